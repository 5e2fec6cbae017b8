//! Fuzz target `data_filter`: its body is `stock_manager::fuzzing::data_filter` (see there).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| stock_manager::fuzzing::data_filter(data));

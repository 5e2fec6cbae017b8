//! Fuzz target `label_input`: its body is `stock_manager::fuzzing::label_input` (see there).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| stock_manager::fuzzing::label_input(data));

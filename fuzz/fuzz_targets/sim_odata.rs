//! Fuzz target `sim_odata`: its body is `stock_manager::fuzzing::sim_odata` (see there).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| stock_manager::fuzzing::sim_odata(data));

//! Fuzz target `provider_json`: its body is `stock_manager::fuzzing::provider_json` (see there).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| stock_manager::fuzzing::provider_json(data));

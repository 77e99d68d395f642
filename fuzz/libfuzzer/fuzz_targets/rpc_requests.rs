#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tfwasm_fuzz::targets::rpc_requests(data));

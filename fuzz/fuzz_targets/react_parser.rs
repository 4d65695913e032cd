//! The tolerant ReAct parser (REACT-1): any text gives a step or a typed
//! error, never a panic; a parsed step's action input is JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(step) = strata_ctx::parse_step(&text) {
        let _ = format!("{step:?}");
    }
});

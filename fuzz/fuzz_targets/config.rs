//! Configuration and token amounts: any TOML, JSON or amount text gives a
//! value or a typed error naming the field, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_ctx::types::TokenAmount;
use strata_ctx::Config;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(config) = Config::from_toml_str(&text) {
        let _ = config.threshold_tokens();
    }
    if let Ok(config) = Config::from_json_str(&text) {
        let _ = config.window_tokens();
    }
    let _ = text.parse::<TokenAmount>();
});

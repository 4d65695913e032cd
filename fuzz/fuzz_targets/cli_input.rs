//! The `strata-ctx` command's input reader (EDGE-3): any bytes give messages
//! in one of the formats or an error naming the line or field, never a
//! panic; parsing the Strata JSONL of what was read gives it back.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code, unreachable_pub)]
#[path = "../../crates/cli/src/parse.rs"]
mod parse;

fuzz_target!(|data: &[u8]| {
    let Ok((_, messages)) = parse::parse(data) else {
        return;
    };
    if messages.is_empty() {
        return;
    }
    let jsonl: String = messages
        .iter()
        .map(|m| serde_json::to_string(m).unwrap_or_default() + "\n")
        .collect();
    let (_, again) = parse::parse(jsonl.as_bytes()).expect("Strata JSONL reads back");
    assert_eq!(again, messages);
});

//! What the benches share: the conversation file they measure.

use serde_json::Value;

/// The bytes of `STRATA_BENCH_FILE` when set, else of the corpus
/// transcript `default` (a file name under `tests/data/corpus/`).
pub fn bench_file(default: &str) -> Vec<u8> {
    let path = std::env::var("STRATA_BENCH_FILE")
        .unwrap_or_else(|_| format!("{}/tests/data/corpus/{default}", env!("CARGO_MANIFEST_DIR")));
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The messages of a parsed file: an array, or an object's `messages`.
#[allow(dead_code)] // Not every bench parses the file into a value.
pub fn messages_of(value: &Value) -> &Value {
    match value {
        Value::Object(o) => o.get("messages").unwrap_or(value),
        _ => value,
    }
}

//! One spelling of a tool's name (TOOL-1, #29.3): a limit, a rule and a
//! protection set under any spelling of a tool's name apply to the tool,
//! however its calls spell it.

use std::sync::Arc;

use serde_json::json;
use strata_ctx::compress::Limits;
use strata_ctx::{
    rule_fn, CharCounter, Compressor, Config, History, Message, ToolCall, ToolResult, Truncator,
};

#[test]
fn tool_1_a_limit_set_under_any_spelling_applies() {
    let output = "line\n".repeat(50);
    let small = Limits::new(5, 10_000);
    for set in ["read-file", "Read_File", " READ-FILE "] {
        let dir = tempfile::tempdir().unwrap();
        let truncator = Truncator::builder(dir.path())
            .tool_limits(set, small)
            .spill_dir(None)
            .build();
        for called in ["read_file", "Read-File"] {
            let cut = truncator.truncate(called, output.as_bytes());
            assert!(
                cut.truncated && cut.shown_lines <= 5,
                "{set} -> {called}: {}",
                cut.shown_lines
            );
        }
        assert!(
            !truncator.truncate("read_files", output.as_bytes()).truncated,
            "{set}: another tool"
        );
    }
}

#[test]
fn tool_1_a_rule_registered_under_any_spelling_applies() {
    let args = json!({"path": "a.rs"});
    let result = ToolResult::success("fn main() {}\n".repeat(200));
    for set in ["read-file", "Read_File"] {
        let mut compressor = Compressor::new();
        compressor.register(set, rule_fn(|_| Ok(json!("by the custom rule"))));
        for called in ["read_file", "READ-FILE"] {
            let form = compressor.compress(called, &args, &result);
            assert_eq!(form.result.data, json!("by the custom rule"), "{set} -> {called}");
        }
        let other = compressor.compress("read_files", &args, &result);
        assert_ne!(
            other.result.data,
            json!("by the custom rule"),
            "{set}: another tool"
        );
    }
}

#[test]
fn tool_1_a_protection_set_under_any_spelling_applies() {
    let call = ToolCall::new("c1", "read_file", json!({"path": "a.rs"}));
    let result = Message::tool_result(&call, ToolResult::success("x"));
    let other_call = ToolCall::new("c2", "read_files", json!({"path": "a.rs"}));
    let other = Message::tool_result(&other_call, ToolResult::success("x"));
    for set in ["read-file", "Read_File"] {
        let mut history = History::new(Config::default(), Arc::new(CharCounter));
        history.set_protected_tools([set]);
        assert!(history.is_protected(&result), "{set}");
        assert!(!history.is_protected(&other), "{set}: another tool");
    }
}

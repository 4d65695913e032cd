//! TOOL-1 … TOOL-10 on real outputs and on edge cases. Each snapshot shows
//! the input's size and the history form.

use serde_json::{json, Value};
use strata_ctx_compress::{Compressor, Limits, Truncator};
use strata_ctx_core::{rule_fn, ResultStatus, ToolResult};

use crate::data;

fn sample(name: &str) -> (String, Value, String) {
    let text = std::fs::read_to_string(data(&format!("tool-outputs/{name}.txt"))).unwrap();
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(data(&format!("tool-outputs/{name}.args.json"))).unwrap(),
    )
    .unwrap();
    (
        meta["tool"].as_str().unwrap().to_owned(),
        meta["arguments"].clone(),
        text,
    )
}

fn show_text(tool: &str, input: &str, out: &str) -> String {
    format!(
        "tool: {tool}\ninput: {} bytes, {} lines\noutput: {} bytes, {} lines\n---\n{out}",
        input.len(),
        input.lines().count(),
        out.len(),
        out.lines().count()
    )
}

fn show_result(tool: &str, input: &ToolResult, out: &ToolResult) -> String {
    format!(
        "tool: {tool}\ninput: {} bytes of JSON\noutput: {} bytes of JSON\n---\n{}",
        input.to_json().len(),
        out.to_json().len(),
        serde_json::to_string_pretty(out).unwrap()
    )
}

#[test]
fn tool_rules_on_real_text_outputs() {
    let c = Compressor::new();
    for name in [
        "bash_sqlfluff_long",
        "execute_bash_ls_recursive",
        "execute_bash_django_test",
        "bash_cargo_llvm_cov",
        "glob_claude",
        "read_claude",
        "edit_claude",
        "write_claude",
        "todowrite_claude",
        "str_replace_editor_view",
        "find_file_swe_agent",
        "ls_swe_agent",
        "pip_install_unknown_tool",
    ] {
        let (tool, args, text) = sample(name);
        let (out, fallback) = c.compress_text(&tool, &args, &text);
        assert!(fallback.is_none());
        assert!(out.len() <= text.len(), "{name}: TOOL-11 never larger");
        assert_eq!(
            c.compress_text(&tool, &args, &out).0,
            out,
            "{name}: TOOL-11 idempotent"
        );
        insta::assert_snapshot!(name, show_text(&tool, &text, &out));
    }
}

/// The structured shapes of TOOL-0, filled with real data.
#[test]
fn tool_rules_on_structured_data() {
    let c = Compressor::new();
    let (_, _, listing) = sample("execute_bash_ls_recursive");
    let (_, _, view) = sample("str_replace_editor_view");
    let (_, todo_args, _) = sample("todowrite_claude");
    let (_, write_args, _) = sample("write_claude");
    let (_, _, log) = sample("bash_sqlfluff_long");

    let entries: Vec<Value> = listing
        .lines()
        .skip(1)
        .take(60)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let name = l.trim_end_matches('\r');
            json!({"name": name.trim_end_matches(':'), "kind": if name.ends_with(':') { "dir" } else { "file" }})
        })
        .collect();
    let code: String = view
        .lines()
        .map(|l| format!("{}\n", l.split_once('\t').map_or(l, |p| p.1)))
        .collect();
    let matches: Vec<Value> = code
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("def "))
        .map(|(i, l)| json!({"file": "astropy/coordinates/angles.py", "line": i + 1, "text": l}))
        .collect();
    let diff: String = std::iter::once("--- a/angles.py\n+++ b/angles.py\n@@ -10,40 +10,41 @@\n".to_owned())
        .chain(code.lines().take(40).map(|l| format!("-{l}\n+{l}  # changed\n")))
        .collect();

    let cases: Vec<(&str, &str, ToolResult)> = vec![
        (
            "structured_ls",
            "LS",
            ToolResult::success(json!({"path": "/workspace/astropy", "entries": entries})),
        ),
        (
            "structured_glob",
            "Glob",
            ToolResult::success(
                json!({"pattern": "**/*.py", "paths": entries.iter().map(|e| e["name"].clone()).collect::<Vec<_>>()}),
            ),
        ),
        (
            "structured_grep",
            "Grep",
            ToolResult::success(json!({"pattern": "def ", "matches": matches})),
        ),
        (
            "structured_read",
            "Read",
            ToolResult::success(
                json!({"path": "astropy/coordinates/angles.py", "content": code, "start_line": 1, "end_line": code.lines().count(), "total_lines": code.lines().count(), "mtime": "2026-01-01T10:00:00Z"}),
            ),
        ),
        (
            "structured_edit_diff",
            "Edit",
            ToolResult::success(json!({"path": "angles.py", "diff": diff})),
        ),
        (
            "structured_multiedit",
            "MultiEdit",
            ToolResult::success(
                json!({"path": "angles.py", "edits": [{"old": code.lines().take(20).collect::<Vec<_>>().join("\n"), "new": code.lines().skip(20).take(20).collect::<Vec<_>>().join("\n")}]}),
            ),
        ),
        (
            "structured_write_created",
            "Write",
            ToolResult::success(json!({"path": write_args["file_path"], "content": code, "created": true})),
        ),
        (
            "structured_bash_failed",
            "Bash",
            ToolResult {
                status: ResultStatus::Error,
                data: json!({"command": "python -m pytest", "exit_code": 1, "stdout": log, "stderr": "Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n    main()\nValueError: bad indent"}),
                text: Some("dropped".into()),
                error: Some(strata_ctx_core::ToolError {
                    code: "exit_1".into(),
                    message: "the command exited with status 1".into(),
                }),
                stats: json!({"elapsed_ms": 5230}),
                context: json!({"cwd": "/workspace"}),
                full_output_path: Some("tool-output/bash_20260101_000000_0.txt".into()),
            },
        ),
        (
            "structured_todowrite",
            "TodoWrite",
            ToolResult::success(todo_args.clone()),
        ),
        (
            "truncated_marker_kept",
            "Bash",
            ToolResult {
                status: ResultStatus::Partial,
                data: json!({"output": log, "truncated": true}),
                ..ToolResult::default()
            },
        ),
        (
            "unknown_tool_json",
            "Task",
            ToolResult::success(json!({"report": code.lines().take(120).collect::<Vec<_>>()})),
        ),
    ];
    for (name, tool, input) in cases {
        let out = c.compress(tool, &Value::Null, &input);
        assert!(out.fallback.is_none(), "{name}");
        assert!(
            out.result.to_json().len() <= input.to_json().len(),
            "{name}: never larger"
        );
        assert_eq!(
            c.compress(tool, &Value::Null, &out.result).result,
            out.result,
            "{name}: idempotent"
        );
        insta::assert_snapshot!(name, show_result(tool, &input, &out.result));
    }
}

#[test]
fn edge_cases() {
    let c = Compressor::new();
    let huge_line = format!("BEGIN {} END", "0123456789".repeat(20_000));
    let crlf: String = (0..300).map(|i| format!("line {i}\r\n")).collect();
    let binary = String::from_utf8_lossy(&[b'o', b'k', 0xff, 0xfe, b'\n', 0x00, 0xc3, b'\n']).into_owned();
    for (name, text) in [
        ("edge_empty", String::new()),
        ("edge_one_huge_line", huge_line),
        ("edge_crlf", crlf),
        ("edge_binary", binary),
    ] {
        let (out, _) = c.compress_text("bash", &Value::Null, &text);
        assert!(out.len() <= text.len());
        assert_eq!(c.compress_text("bash", &Value::Null, &out).0, out);
        insta::assert_snapshot!(name, show_text("bash", &text, &out));
    }
    let error = ToolResult::error("not_found", "no such file: src/missing.rs");
    let out = c
        .compress("Read", &json!({"path": "src/missing.rs"}), &error)
        .result;
    assert_eq!(out, error, "TOOL-1: errors are kept in full");
}

#[test]
fn tool_10_failing_and_panicking_rules_fall_back() {
    let mut c = Compressor::new();
    c.register(
        "deploy",
        rule_fn(|_| Err(strata_ctx_core::RuleError::new("unexpected shape"))),
    );
    c.register("Flaky", rule_fn(|_| panic!("boom")));
    let log = strata_ctx_testkit::long_log(500);
    let (out, fallback) = c.compress_text("DEPLOY", &Value::Null, &log);
    let fallback = fallback.unwrap();
    assert_eq!(fallback.reason, "unexpected shape");
    assert_eq!(
        fallback.to_string(),
        "the rule for `DEPLOY` failed (unexpected shape); the generic rule was used"
    );
    assert!(out.contains("error[E0425]") && out.len() < 2_000);
    let (out2, fallback) = c.compress_text("flaky", &Value::Null, &log);
    assert_eq!(fallback.unwrap().reason, "panicked: boom");
    assert_eq!(out, out2);
    // A registered rule replaces the built-in one.
    c.register("Bash", rule_fn(|_| Ok(Value::from("custom"))));
    assert_eq!(c.compress_text("bash", &Value::Null, &log).0, "custom");
}

#[test]
fn trunc_1_notice_and_view() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, text) = sample("execute_bash_ls_recursive");
    let t = Truncator::builder(dir.path())
        .limits(Limits::new(40, 50 * 1024))
        .clock(|| strata_ctx_core::Timestamp::from_unix_millis(1_767_225_600_000).unwrap())
        .build();
    let cut = t.truncate("execute_bash", text.as_bytes());
    let mut result = cut.result.clone();
    let path = result.full_output_path.clone().unwrap();
    assert!(path.starts_with("tool-output/execute_bash_20260101_000000_"));
    result.full_output_path = Some("tool-output/execute_bash_20260101_000000_N.txt".into());
    let text_field = result
        .text
        .clone()
        .unwrap()
        .replace(&path, "tool-output/execute_bash_20260101_000000_N.txt");
    result.text = Some(text_field);
    insta::assert_snapshot!(
        "truncated_ls_recursive",
        serde_json::to_string_pretty(&result).unwrap()
    );
    let grep = t.truncate("Grep", "a.rs:1:x\n".repeat(100).as_bytes());
    assert!(grep
        .result
        .text
        .unwrap()
        .starts_with("Found 100 matches (showing first 40). Full output: "));
}

//! TOOL-14: structured outputs are cut and compressed in their nested
//! text, not only in top-level text fields.

use serde_json::{json, Value};
use strata_ctx_compress::{Compressor, Limits, Truncator};
use strata_ctx_core::{ResultStatus, ToolResult};

/// A test report as an MCP-style tool returns it: results in an array of
/// objects, each with a long log.
fn report() -> Value {
    let log = |name: &str, fail: bool| -> String {
        let mut s: String = (0..400).map(|i| format!("{name}: step {i} ok\n")).collect();
        if fail {
            s.push_str(&format!("AssertionError: {name} expected 3, got 2\n"));
        }
        s.push_str("done\n");
        s
    };
    json!({
        "summary": {"passed": 1, "failed": 1},
        "results": [
            {"name": "test_a", "log": log("test_a", false)},
            {"name": "test_b", "log": log("test_b", true)}
        ]
    })
}

#[test]
fn tool_14_nested_texts_are_truncated_in_place() {
    let project = tempfile::tempdir().unwrap();
    let truncator = Truncator::builder(project.path())
        .limits(Limits::new(50, 4_096))
        .build();
    let (cut, longest) = truncator.truncate_result("run_tests", ToolResult::success(report()));
    let longest = longest.expect("a text was cut");
    assert_eq!(cut.status, ResultStatus::Partial);
    let data = &cut.data;
    assert_eq!(
        data["summary"],
        json!({"passed": 1, "failed": 1}),
        "structure kept"
    );
    assert_eq!(data["truncated"], json!(true));
    for (i, item) in data["results"].as_array().unwrap().iter().enumerate() {
        let log = item["log"].as_str().unwrap();
        assert!(
            log.lines().count() <= 50,
            "results[{i}].log: {} lines",
            log.lines().count()
        );
        assert_eq!(item["log_lines"], json!(if i == 0 { 401 } else { 402 }));
    }
    let notices = cut.text.unwrap();
    assert!(
        notices.contains("results[0].log: ") && notices.contains("results[1].log: "),
        "{notices}"
    );
    assert!(longest.total_lines >= 401);
    // The whole texts are in their spill files.
    let spill = std::fs::read_to_string(project.path().join(cut.full_output_path.unwrap())).unwrap();
    assert_eq!(spill.lines().count(), 401);
}

#[test]
fn tool_14_nested_texts_are_compressed_in_place() {
    let compressor = Compressor::new();
    let form = compressor
        .compress("run_tests", &json!({}), &ToolResult::success(report()))
        .result
        .data;
    // The structure stays; each log is condensed, its failure kept.
    assert_eq!(form["summary"]["failed"], json!(1));
    let b = form["results"][1]["log"].as_str().expect("a text still");
    assert!(b.contains("AssertionError: test_b expected 3, got 2"), "{b}");
    assert!(b.len() < 2_100, "{}", b.len());
    let again = compressor
        .compress("run_tests", &json!({}), &ToolResult::success(form.clone()))
        .result
        .data;
    assert_eq!(again, form, "idempotent");
}

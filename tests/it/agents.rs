//! Other agents' sessions through Strata (TOOL-1, #30.2): a Codex CLI
//! rollout is read, its tools are known, its commands, failures and
//! patched files reach the digest, and the recap reads its plan.

use strata_ctx::history::Digest;
use strata_ctx::prompt::todo_recap;
use strata_ctx::wire;

/// A Codex CLI rollout (the shapes of its `RolloutLine` and `ResponseItem`
/// types): a failing `exec_command`, a patch through `apply_patch`, a plan,
/// a `shell` run with an argument vector, and a final answer.
const ROLLOUT: &str = r#"{"timestamp":"2025-10-29T00:59:38Z","type":"session_meta","payload":{"id":"s1","cwd":"/work/app"}}
{"timestamp":"2025-10-29T00:59:39Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the failing test"}]}}
{"timestamp":"2025-10-29T00:59:40Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npx vitest run src/cart.test.ts\"}","call_id":"c1"}}
{"timestamp":"2025-10-29T00:59:45Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\" ✓ src/a.test.ts (3 tests) 4ms\\n ❯ src/cart.test.ts (3 tests | 1 failed)\\n   × cart > applies the discount\\nAssertionError: expected 90 to be 81 // Object.is equality\\n Test Files  1 failed | 1 passed (2)\\n\",\"metadata\":{\"exit_code\":1}}"}}
{"timestamp":"2025-10-29T00:59:46Z","type":"response_item","payload":{"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/cart.ts\n@@\n-  return price * 0.9;\n+  return price * 0.9 * 0.9;\n*** End Patch\n"}}
{"timestamp":"2025-10-29T00:59:46Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"Success. Updated the following files:\nM src/cart.ts\n"}}
{"timestamp":"2025-10-29T00:59:47Z","type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"Fix the discount\",\"status\":\"completed\"},{\"step\":\"Run the whole suite\",\"status\":\"in_progress\"}]}","call_id":"c3"}}
{"timestamp":"2025-10-29T00:59:47Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"Plan updated"}}
{"timestamp":"2025-10-29T00:59:48Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"],\"workdir\":\"/work/app/api\"}","call_id":"c4"}}
{"timestamp":"2025-10-29T00:59:50Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c4","output":"{\"output\":\"--- FAIL: TestPrice (0.00s)\\n    price_test.go:12: got 81, want 90\\nFAIL\\nexit status 1\\nFAIL\\texample.com/api\\t0.01s\\n\",\"metadata\":{\"exit_code\":1}}"}}
{"timestamp":"2025-10-29T00:59:51Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The API test still fails."}]}}
"#;

#[test]
fn tool_1_a_codex_rollout_reaches_the_digest_and_the_recap() {
    let messages = wire::codex::read(ROLLOUT).unwrap();
    let mut digest = Digest::new();
    digest.observe_messages(&messages);
    let text = digest.render(4_000);
    assert!(text.contains("npx vitest run src/cart.test.ts"), "{text}");
    assert!(text.contains("AssertionError: expected 90 to be 81"), "{text}");
    assert!(text.contains("go test ./..."), "{text}");
    assert!(
        text.contains("last error: price_test.go:12: got 81, want 90"),
        "{text}"
    );
    assert!(
        text.contains("src/cart.ts"),
        "the patched file is a changed file: {text}"
    );
    let recap = todo_recap(&messages).unwrap();
    assert_eq!(
        recap,
        "[Todo recap] 1 done, 1 in progress, 0 pending\n- [in_progress] Run the whole suite"
    );
}

#[test]
fn tool_1_a_codex_output_is_condensed_as_a_command() {
    let messages = wire::codex::read(ROLLOUT).unwrap();
    let compressor = strata_ctx::Compressor::new();
    let call = &messages[1].tool_calls[0];
    let log: String = (0..400)
        .map(|i| format!(" ✓ src/feature{i}.test.ts (4 tests) 3ms\n"))
        .collect::<String>()
        + &messages[2].text();
    let (form, _) = compressor.compress_text(&call.name, &call.arguments, &log);
    assert!(form.len() < 1_500, "{} bytes", form.len());
    assert!(form.contains("AssertionError: expected 90 to be 81"), "{form}");
    assert!(form.contains("Test Files  1 failed | 1 passed (2)"), "{form}");
}

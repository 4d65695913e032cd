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

/// Codex CLI's code mode: the model writes a script (`exec`, a freeform
/// call) whose nested `tools.exec_command` calls run the commands, and
/// the answer is content parts under the script's status.
const CODE_MODE: &str = r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"make the build pass"}]}}
{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"k1","name":"exec","input":"const r = await tools.exec_command({cmd: \"npx tsc --noEmit\", max_output_tokens: 4000});\ntext(r.output);"}}
{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"k1","output":[{"type":"input_text","text":"Script completed\nWall time 4.2 seconds\nOutput:\n"},{"type":"input_text","text":"src/cart.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\nFound 1 error in src/cart.ts:12\n"}]}}
{"type":"response_item","payload":{"type":"custom_tool_call","call_id":"k2","name":"exec","input":"await tools.apply_patch(`*** Begin Patch\n*** Update File: src/cart.ts\n@@\n-  total = \"0\";\n+  total = 0;\n*** End Patch`);"}}
{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"k2","output":[{"type":"input_text","text":"Script completed\nWall time 0.1 seconds\nOutput:\n"}]}}
"#;

#[test]
fn tool_1_a_code_mode_script_reaches_the_digest() {
    let messages = wire::codex::read(CODE_MODE).unwrap();
    let mut digest = Digest::new();
    digest.observe_messages(&messages);
    let text = digest.render(4_000);
    assert!(text.contains("npx tsc --noEmit"), "the nested command: {text}");
    assert!(
        text.contains("error TS2322: Type 'string' is not assignable to type 'number'."),
        "{text}"
    );
    assert!(text.contains("src/cart.ts"), "the patched file: {text}");
    assert!(!text.contains("Wall time"), "{text}");

    // Its long output is condensed as a command's, under its status.
    let call = &messages[1].tool_calls[0];
    let noise: String = (0..300)
        .map(|i| format!("[{i}] checking src/module{i}.ts\n"))
        .collect();
    let log = messages[2]
        .text()
        .replace("Output:\n", &format!("Output:\n{noise}"));
    let (form, _) = strata_ctx::Compressor::new().compress_text(&call.name, &call.arguments, &log);
    assert!(form.len() < 2_000, "{} bytes: {form}", form.len());
    assert!(form.starts_with("Script completed\nOutput:\n"), "{form}");
    assert!(form.contains("error TS2322"), "{form}");
}

/// TOOL-1: Codex CLI's `exec_command` returns while a long run goes on
/// (`Process running with session ID 3`); the model polls it with
/// `write_stdin`, whose answer ends the run. The digest gives that end to
/// the command that started it.
#[test]
fn tool_1_a_polled_command_ends_where_it_started() {
    let rollout = r#"{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo test --workspace\",\"yield_time_ms\":10000}","call_id":"c1"}}
{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: a1\nWall time: 10.0 seconds\nProcess running with session ID 3\nOriginal token count: 40\nOutput:\n   Compiling app v0.1.0 (/work/app)\n"}}
{"type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":3,\"chars\":\"\",\"yield_time_ms\":30000}","call_id":"c2"}}
{"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Chunk ID: a2\nWall time: 4.1 seconds\nProcess exited with code 101\nOriginal token count: 90\nOutput:\nthread 'cart::tests::total' panicked at src/cart.rs:40:9:\nassertion `left == right` failed\ntest result: FAILED. 11 passed; 1 failed; 0 ignored\nerror: test failed, to rerun pass `--lib`\n"}}
{"type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":9,\"chars\":\"\"}","call_id":"c3"}}
{"type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"Chunk ID: a3\nWall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nerror: unknown session\n"}}
"#;
    let messages = wire::codex::read(rollout).unwrap();
    let mut digest = Digest::new();
    digest.observe_messages(&messages);
    let text = digest.render(4_000);
    assert!(
        text.contains(
            "`cargo test --workspace` → exit 101; test result: FAILED. 11 passed; 1 failed; 0 ignored"
        ),
        "{text}"
    );
    assert!(text.contains("panicked at src/cart.rs:40:9"), "{text}");
    // One command: the polls are not commands, and a session nobody
    // started gives no command either.
    assert_eq!(text.matches("\n- `").count(), 1, "{text}");
    assert!(!text.contains("unknown session"), "{text}");
}

/// #30.7 through the engine: the model pins a step's result with the `pin`
/// tool (by the short id the window shows); as the round grows past the
/// budget, older steps are condensed and cleared, the pinned one stays as
/// it was recorded.
#[tokio::test]
async fn the_model_pins_a_step_that_condensing_then_leaves_alone() {
    use serde_json::json;
    use strata_ctx::{Config, Engine, Message, ToolCall};

    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path())
        .config(Config::from_toml_str("context_window = 6000").unwrap())
        .build()
        .unwrap();
    engine.begin_round("Release the crate.").await.unwrap();
    let skill = ToolCall::new("s0", "load_skill", json!({"name": "release"}));
    let text: String = (0..60)
        .map(|i| format!("release rule {i}: tag, changelog, publish in order\n"))
        .collect();
    engine
        .record_step(
            Message::assistant_with_calls("", vec![skill.clone()]),
            vec![Message::tool_text("s0", "load_skill", text.clone())],
        )
        .await
        .unwrap();
    let result_id = engine
        .history()
        .window()
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some("s0"))
        .unwrap()
        .id;
    let pin = ToolCall::new("p0", strata_ctx::PIN_TOOL, json!({"ids": [result_id.short()]}));
    let answer = engine.pin_tool(&pin).unwrap();
    assert_eq!(
        answer.data["pinned"].as_array().unwrap().len(),
        2,
        "{:?}",
        answer.data
    );
    for i in 1..40 {
        build_step(&mut engine, i, 80, "of build output").await;
    }
    let window = engine.window();
    let shown = window
        .context
        .scratchpad()
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some("s0"))
        .expect("the pinned step is in the window");
    assert_eq!(shown.text(), text);
    assert!(
        !window
            .context
            .scratchpad()
            .iter()
            .any(|m| m.tool_call_id.as_deref() == Some("c1") && m.text().contains("line 40 of build output")),
        "older unpinned steps were condensed"
    );
    let wrong = ToolCall::new("p1", "pin", json!({"ids": []}));
    assert_eq!(
        engine.pin_tool(&wrong).unwrap().status,
        strata_ctx::ResultStatus::Error
    );
    assert!(engine.pin_tool(&ToolCall::new("x", "Bash", json!({}))).is_none());
}

/// #30.5: what leaves the window leaves a handle, and the `recall` tool
/// gives back the original from the full log: a cleared result, a range
/// of steps the digest stands for; an unknown id is an error result, and
/// a long recall is cut and spilled like any tool output.
#[tokio::test]
async fn recall_gives_back_what_a_handle_stands_for() {
    use serde_json::json;
    use strata_ctx::history::is_cleared;
    use strata_ctx::{Config, Engine, ResultStatus, ToolCall};

    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path())
        .config(Config::from_toml_str("context_window = 3500").unwrap())
        .build()
        .unwrap();
    engine.begin_round("Build it.").await.unwrap();
    for i in 0..30 {
        build_step(&mut engine, i, 120, "compiled").await;
    }
    let window = engine.window();
    let texts: Vec<String> = window.messages().iter().map(|m| m.text().into_owned()).collect();
    let handle = texts
        .iter()
        .find_map(|t| t.split("recall ").nth(1).map(|rest| rest[..8].to_owned()))
        .expect("a handle in the window");
    let answer = engine
        .recall_tool(&ToolCall::new(
            "r1",
            strata_ctx::RECALL_TOOL,
            json!({"id": handle}),
        ))
        .unwrap();
    // The step is longer than the truncator's 100 lines: cut and spilled
    // like any tool output, its end in view.
    assert_eq!(answer.status, ResultStatus::Partial, "{answer:?}");
    assert!(answer.full_output_path.is_some());
    let text = answer.data["output"].as_str().unwrap();
    assert!(
        text.contains("line 0 compiled") && text.ends_with("line 119 compiled\n"),
        "{text}"
    );
    assert!(!window
        .messages()
        .iter()
        .any(|m| is_cleared(m) && m.text().contains("line 119")));

    // A range: the digest's handle names its first and last step.
    let digest = texts
        .iter()
        .find(|t| t.starts_with("[Progress digest"))
        .expect("a digest");
    let range = digest.split("recall ").nth(1).unwrap();
    let (from, to) = (&range[..8], &range[12..20]);
    let answer = engine
        .recall_tool(&ToolCall::new("r2", "recall", json!({"id": from, "to": to})))
        .unwrap();
    let text = answer
        .data
        .as_str()
        .or_else(|| answer.data["output"].as_str())
        .unwrap();
    assert!(text.contains("step 0 line 0 compiled"), "{text}");
    assert!(text.contains("→ Bash({\"command\":\"make step0\"})"), "{text}");

    let unknown = engine
        .recall_tool(&ToolCall::new("r3", "recall", json!({"id": "ffffffffffff"})))
        .unwrap();
    assert_eq!(unknown.status, ResultStatus::Error);
    assert!(engine
        .recall_tool(&ToolCall::new("x", "Bash", json!({})))
        .is_none());
}

/// Records step `i` of a build: `make step{i}` printing `lines` lines
/// `step {i} line {j} {words}`.
async fn build_step(engine: &mut strata_ctx::Engine, i: usize, lines: usize, words: &str) {
    use strata_ctx::{Message, ToolCall};
    let call = ToolCall::new(
        format!("c{i}"),
        "Bash",
        serde_json::json!({"command": format!("make step{i}")}),
    );
    let out: String = (0..lines)
        .map(|j| format!("step {i} line {j} {words}\n"))
        .collect();
    engine
        .record_step(
            Message::assistant_with_calls("", vec![call]),
            vec![Message::tool_text(format!("c{i}"), "Bash", out)],
        )
        .await
        .unwrap();
}

/// HIST-10 through the engine: the model leaves a finished step out of its
/// window with the ready-made `prune` tool, by the short id the window
/// shows, and brings it back with `delete`; bad arguments are error
/// results, other calls are not its.
#[tokio::test]
async fn the_model_prunes_a_step_and_brings_it_back() {
    use serde_json::json;
    use strata_ctx::{Engine, Message, ResultStatus, ToolCall};

    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path()).build().unwrap();
    engine.begin_round("Find the config.").await.unwrap();
    let call = ToolCall::new("g0", "Grep", json!({"pattern": "config"}));
    let found: String = (0..40).map(|i| format!("src/mod{i}.rs:1: // config\n")).collect();
    engine
        .record_step(
            Message::assistant_with_calls("", vec![call]),
            vec![Message::tool_text("g0", "Grep", found)],
        )
        .await
        .unwrap();
    engine.finish_round("It is in src/config.rs.").unwrap();
    let before = engine.window_tokens();
    let result = engine
        .history()
        .window()
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some("g0"))
        .unwrap()
        .id;
    let short = engine.history().short_ids().short(&result).unwrap();

    let prune = ToolCall::new("p0", strata_ctx::PRUNE_TOOL, json!({"ids": [short.clone()]}));
    let answer = engine.prune_tool(&prune).unwrap();
    assert_eq!(
        answer.data["left_out"], 2,
        "the call and its result: {:?}",
        answer.data
    );
    assert!(engine.window_tokens() < before);
    assert!(!engine
        .window()
        .messages()
        .iter()
        .any(|m| m.tool_call_id.as_deref() == Some("g0")));

    let back = ToolCall::new("p1", "prune", json!({"ids": [short], "mode": "delete"}));
    assert_eq!(engine.prune_tool(&back).unwrap().data["left_out"], 0);
    assert_eq!(engine.window_tokens(), before);

    let unknown = ToolCall::new("p2", "prune", json!({"ids": ["zzzzzzzz"]}));
    assert_eq!(
        engine.prune_tool(&unknown).unwrap().data["rejected"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    for bad in [json!({"ids": []}), json!({"ids": ["a"], "mode": "drop"})] {
        let call = ToolCall::new("p3", "prune", bad);
        assert_eq!(engine.prune_tool(&call).unwrap().status, ResultStatus::Error);
    }
    assert!(engine
        .prune_tool(&ToolCall::new("x", "Bash", json!({})))
        .is_none());
}

/// A Claude Code session that keeps its plan with the one-item task tools
/// (their input and result shapes as Claude Code documents them): three
/// tasks created, one finished, one deleted, one started.
const TASK_SESSION: &str = r#"{"type":"user","sessionId":"s1","uuid":"u1","message":{"role":"user","content":"Port the parser and test it."}}
{"type":"assistant","sessionId":"s1","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"TaskCreate","input":{"subject":"Port the parser","description":"Move parse.py to src/parse.rs","activeForm":"Porting the parser"}},{"type":"tool_use","id":"t2","name":"TaskCreate","input":{"subject":"Test the parser","description":"Cover the edge cases","activeForm":"Testing the parser"}},{"type":"tool_use","id":"t3","name":"TaskCreate","input":{"subject":"Update the README","description":"","activeForm":"Updating the README"}}]}}
{"type":"user","sessionId":"s1","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Task #1 created successfully: Port the parser"},{"type":"tool_result","tool_use_id":"t2","content":"Task #2 created successfully: Test the parser"},{"type":"tool_result","tool_use_id":"t3","content":"Task #3 created successfully: Update the README"}]}}
{"type":"assistant","sessionId":"s1","uuid":"a2","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t4","name":"TaskUpdate","input":{"taskId":"1","status":"completed"}},{"type":"tool_use","id":"t5","name":"TaskUpdate","input":{"taskId":"3","status":"deleted"}},{"type":"tool_use","id":"t6","name":"TaskUpdate","input":{"taskId":"2","status":"in_progress","activeForm":"Testing the parser"}}]}}
{"type":"user","sessionId":"s1","uuid":"u3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t4","content":"Updated task #1 status"},{"type":"tool_result","tool_use_id":"t5","content":"Updated task #3 deleted"},{"type":"tool_result","tool_use_id":"t6","content":"Updated task #2 activeForm, status"}]}}
"#;

/// CTX-5, TOOL-1: Claude Code's task tools keep the recap and the digest
/// as its whole-list `TodoWrite` does, in one pass or step by step through
/// the engine, and a digest of the later steps merged over the earlier
/// one agrees.
#[tokio::test]
async fn ctx_5_claude_code_task_tools_reach_the_recap_and_the_digest() {
    use strata_ctx::Engine;

    let messages = wire::claude_code::read(TASK_SESSION).unwrap();
    let expected = "[Todo recap] 1 done, 1 in progress, 0 pending\n- [in_progress] Test the parser";
    assert_eq!(todo_recap(&messages).as_deref(), Some(expected));

    let mut whole = Digest::new();
    whole.observe_messages(&messages);
    let text = whole.render(2_000);
    assert!(
        text.contains("Todo: [completed] Port the parser; [in_progress] Test the parser"),
        "{text}"
    );
    assert!(!text.contains("README"), "a deleted task is gone: {text}");
    let (first, later) = messages.split_at(5);
    let mut merged = Digest::new();
    merged.observe_messages(first);
    let mut second = Digest::new();
    second.observe_messages(later);
    merged.merge(&second);
    assert_eq!(merged.render(2_000), text);
    assert_eq!(
        whole.missing_from("We ported the parser."),
        ["Open todo: [in_progress] Test the parser"]
    );

    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path()).build().unwrap();
    engine.begin_round("Port the parser and test it.").await.unwrap();
    for (i, m) in messages
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.tool_calls.is_empty())
    {
        let results = messages[i + 1..].iter().take_while(|r| r.tool_call_id.is_some());
        engine
            .record_step(m.clone(), results.cloned().collect())
            .await
            .unwrap();
    }
    let window = engine.window();
    let recap = window.context.recap().unwrap();
    assert_eq!(recap, expected);
}

//! One long round, as real agent sessions are (REACT-6, HIST-14): an
//! agent loop of 40 steps with parallel calls and large outputs at a 16k
//! window with the default configuration, and the budget guarantee over
//! generated long rounds.

use std::sync::mpsc;

use proptest::prelude::*;
use serde_json::json;
use strata_ctx::types::MessageId;
use strata_ctx::{Config, Engine, Event, Message, Pairs, ResultStatus, ToolCall, ToolResult};

/// A pytest run of `n` tests that fails `failed` of them, with its
/// progress lines, a traceback and the summary, `pad` lines of captured
/// log between them.
fn pytest_output(n: usize, failed: usize, pad: usize, error: &str) -> String {
    let mut out =
        String::from("============================= test session starts ==============================\n");
    out.push_str(&format!("collected {n} items\n\n"));
    for i in 0..n {
        let verdict = if i < failed { "FAILED" } else { "PASSED" };
        out.push_str(&format!("tests/test_parser.py::test_case_{i:03} {verdict}\n"));
    }
    for i in 0..pad {
        out.push_str(&format!("DEBUG parser: token {i} consumed at offset {}\n", i * 7));
    }
    if failed > 0 {
        out.push_str("Traceback (most recent call last):\n  File \"src/parser.py\", line 88, in parse\n");
        out.push_str(&format!("{error}\n"));
    }
    out.push_str(&format!(
        "========================= {failed} failed, {} passed in 1.21s =========================\n",
        n - failed
    ));
    out
}

/// The task of the scripted parser-fixing session.
const TASK: &str = "The parser rejects `f(a, b)`. Find out why and fix it.";

/// A builder for an engine over `root` at a 16k window, default
/// configuration otherwise.
fn at_16k(root: &std::path::Path) -> strata_ctx::EngineBuilder {
    Engine::builder(root).config(Config::from_toml_str("context_window = 16000").unwrap())
}

/// The model's step `i` of a session fixing a parser: reads, a large
/// write, edits, test runs with parallel calls, a todo list.
fn step(i: usize) -> (Message, Vec<Message>) {
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let mut add = |call: ToolCall, result: ToolResult| {
        // Ids of the call's: the digest shows them in its recall handle.
        results.push(
            Message::tool_result(&call, result).with_id(MessageId::derived(&format!("lr:{}", call.id))),
        );
        calls.push(call);
    };
    match i % 5 {
        0 => {
            // Two files read at once.
            for f in [format!("src/module_{i}.py"), format!("tests/test_module_{i}.py")] {
                let body: String = (0..400)
                    .map(|l| format!("{l:4}  def f_{l}(x): return x + {l}\n"))
                    .collect();
                add(
                    ToolCall::new(format!("r{i}_{f}"), "Read", json!({"file_path": f})),
                    ToolResult::success(body),
                );
            }
        }
        1 => {
            let content = "def helper():\n    return 42\n".repeat(300);
            add(
                ToolCall::new(
                    format!("w{i}"),
                    "Write",
                    json!({"file_path": format!("src/gen_{i}.py"), "content": content}),
                ),
                ToolResult::success(json!({"path": format!("src/gen_{i}.py"), "bytes": 8_400})),
            );
        }
        2 => add(
            ToolCall::new(
                format!("e{i}"),
                "Edit",
                json!({"file_path": "src/parser.py", "old_string": format!("return {i}"), "new_string": format!("return {}", i + 1)}),
            ),
            ToolResult::success(
                json!({"path": "src/parser.py", "diff": format!("@@ -88 +88 @@\n-    return {i}\n+    return {}", i + 1)}),
            ),
        ),
        3 => {
            // Parallel test runs, one of them a huge log.
            let error = format!("ValueError: unexpected token ')' at line {i} of grammar.txt");
            add(
                ToolCall::new(
                    format!("t{i}"),
                    "Bash",
                    json!({"command": format!("python -m pytest tests/test_parser.py -k case_{i}")}),
                ),
                ToolResult {
                    data: json!({"stdout": pytest_output(60, 2, 20_000, &error), "exit_code": 1}),
                    ..ToolResult::error("exit_1", "the command exited with status 1")
                },
            );
            add(
                ToolCall::new(format!("l{i}"), "Bash", json!({"command": "ruff check src"})),
                ToolResult::success(json!({"stdout": "All checks passed!\n", "exit_code": 0})),
            );
        }
        _ => add(
            ToolCall::new(
                format!("todo{i}"),
                "TodoWrite",
                json!({"todos": [
                    {"content": "Reproduce the parser failure", "status": "completed"},
                    {"content": format!("Fix token handling (attempt {i})"), "status": "in_progress"},
                    {"content": "Run the whole suite", "status": "pending"}
                ]}),
            ),
            ToolResult::success("Todos updated"),
        ),
    }
    let thought = format!(
        "Step {i}: {}",
        "I look at what the last output says and decide the next move. ".repeat(6)
    );
    let first = calls.first().map(|c| c.id.clone()).unwrap_or_default();
    let assistant =
        Message::assistant_with_calls(thought, calls).with_id(MessageId::derived(&format!("lr:a:{first}")));
    (assistant, results)
}

/// REACT-6, HIST-14: 40 steps with parallel calls and outputs up to 1 MB
/// at a 16k window, default configuration: no step fails, the window
/// stays within the threshold after every step, pairs hold, the input and
/// the newest step are always there, and the digest of the steps that
/// left the window is a reviewed snapshot.
#[tokio::test]
async fn react_6_agent_loop_of_40_steps_at_16k() {
    let project = tempfile::tempdir().unwrap();
    let (tx, events) = mpsc::channel();
    let mut engine = at_16k(project.path()).events_to(tx).build().unwrap();
    engine.begin_round(TASK).await.unwrap();
    for i in 0..40 {
        let (assistant, results) = step(i);
        let newest = assistant.tool_calls.last().unwrap().id.clone();
        let report = engine.record_step(assistant, results).await.unwrap();
        let window = engine.window();
        assert!(!report.over_budget && !window.over_budget, "step {i}");
        crate::assert_within_budget(&window, format_args!("step {i}"));
        let shown = window.messages();
        assert!(Pairs::new(&shown).is_complete(), "step {i}");
        assert!(window.context.input().is_some(), "step {i}");
        assert!(
            shown
                .iter()
                .any(|m| m.tool_call_id.as_deref() == Some(newest.as_str())),
            "step {i}: the newest result is shown"
        );
    }
    assert!(!events.try_iter().any(|e| matches!(e, Event::OverBudget { .. })));
    let window = engine.window();
    let digest = &window.context.scratchpad()[0];
    assert_eq!(digest.role, strata_ctx::Role::System);
    // What the model would otherwise have lost: the last error of the
    // failing runs, the files changed, the todo state.
    assert!(
        digest.content.contains("ValueError: unexpected token ')'"),
        "{}",
        digest.content
    );
    assert!(digest.content.contains("src/parser.py"));
    insta::assert_snapshot!("long_round_digest", digest.content);
    // The full log keeps every output whole.
    let log = engine.history().full_log();
    assert!(log.iter().any(|m| m
        .result
        .as_ref()
        .is_some_and(|r| r.status == ResultStatus::Error
            && r.data["stdout"].as_str().is_some_and(|s| s.len() > 1_000_000))));
}

/// A generated step: `calls` parallel calls of which each returns
/// `size` bytes, some of them failing.
fn generated_step(i: usize, calls: usize, size: usize, thought: usize) -> (Message, Vec<Message>) {
    let mut tool_calls = Vec::new();
    let mut results = Vec::new();
    for c in 0..calls {
        let call = ToolCall::new(
            format!("s{i}c{c}"),
            if c % 2 == 0 { "Bash" } else { "Read" },
            json!({"command": format!("make test-{i}-{c}"), "path": format!("f{c}.rs")}),
        );
        let line = format!("line of output {i}/{c}: error[E0{c}] something failed\n");
        let body = line.repeat(size / line.len() + 1);
        results.push(Message::tool_result(&call, ToolResult::success(body)));
        tool_calls.push(call);
    }
    (
        Message::assistant_with_calls("t".repeat(thought), tool_calls),
        results,
    )
}

proptest! {
    #![proptest_config(strata_ctx_testkit::strategy::cases(12))]

    /// HIST-14's guarantee: for any window of at least 8,000 tokens whose
    /// fixed layers fit, over long rounds of tiny and huge steps with
    /// parallel calls, no step fails and the window is within the
    /// threshold after every step, with pairs intact.
    #[test]
    fn hist_14_every_step_fits(
        window in 8_000usize..40_000,
        steps in proptest::collection::vec((0usize..5, prop_oneof![0usize..200, 1_000usize..20_000, 200_000usize..1_100_000], 0usize..3_000), 5..60),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        rt.block_on(async {
            let project = tempfile::tempdir().unwrap();
            let mut engine = Engine::builder(project.path())
                .config(Config::from_toml_str(&format!("context_window = {window}")).unwrap())
                .build()
                .unwrap();
            engine.begin_round("Make the build pass.").await.unwrap();
            for (i, &(calls, size, thought)) in steps.iter().enumerate() {
                let (assistant, results) = generated_step(i, calls, size, thought);
                let report = engine.record_step(assistant, results).await.unwrap();
                let w = engine.window();
                prop_assert!(!report.over_budget, "step {}", i);
                prop_assert!(w.tokens <= w.threshold, "step {}: {} > {}", i, w.tokens, w.threshold);
                prop_assert!(Pairs::new(&w.messages()).is_complete());
            }
            Ok(())
        })?;
    }
}

/// A summariser that answers after `delay`, or fails.
struct StepSummarizer {
    delay: std::time::Duration,
    fail: bool,
}

#[async_trait::async_trait]
impl strata_ctx::Summarizer for StepSummarizer {
    async fn summarize(&self, messages: &[Message]) -> strata_ctx::LlmResult<String> {
        tokio::time::sleep(self.delay).await;
        if self.fail {
            return Err(strata_ctx::LlmError::InvalidResponse {
                message: "garbage".into(),
            });
        }
        let earlier = messages.iter().any(|m| m.role == strata_ctx::Role::Summary);
        Ok(format!(
            "Rolled {} messages{}.",
            messages.len(),
            if earlier { " onto the summary so far" } else { "" }
        ))
    }
}

async fn long_round_with(summarizer: StepSummarizer) -> (Engine, Vec<Event>) {
    let project = tempfile::tempdir().unwrap();
    let (tx, events) = mpsc::channel();
    let mut engine = Engine::builder(project.path())
        .config(Config::from_toml_str("context_window = 16000\nsummary_timeout = \"5s\"").unwrap())
        .summarizer(std::sync::Arc::new(summarizer))
        .events_to(tx)
        .build()
        .unwrap();
    engine.begin_round("Fix the parser.").await.unwrap();
    for i in 0..25 {
        let (assistant, results) = step(i);
        engine.record_step(assistant, results).await.unwrap();
        let window = engine.window();
        crate::assert_within_budget(&window, format_args!("step {i}"));
    }
    (engine, events.try_iter().collect())
}

/// REACT-6: with a summariser, the steps leaving the window are summarised
/// a batch at a time into a rolling summary that joins the digest.
#[tokio::test]
async fn react_6_rolling_summary_joins_the_digest() {
    let (mut engine, events) = long_round_with(StepSummarizer {
        delay: std::time::Duration::ZERO,
        fail: false,
    })
    .await;
    let summarized: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::StepsSummarized { steps, degraded } => Some((*steps, degraded.clone())),
            _ => None,
        })
        .collect();
    assert!(summarized.len() >= 2, "{summarized:?}");
    assert!(summarized.iter().all(|(n, d)| *n > 0 && d.is_none()));
    let digest = engine.window().context.scratchpad()[0].content.clone();
    assert!(digest.starts_with("[Progress digest of"), "{digest}");
    assert!(
        digest.contains("Summary of those steps:\nRolled ") && digest.contains("onto the summary so far"),
        "{digest}"
    );
}

/// REACT-6, HIST-7: a summariser that fails or times out leaves the
/// digest alone, says so, and is not asked again for the same steps.
#[tokio::test(start_paused = true)]
async fn react_6_failed_step_summary_leaves_the_digest_alone() {
    for (summarizer, reason) in [
        (
            StepSummarizer {
                delay: std::time::Duration::ZERO,
                fail: true,
            },
            "garbage",
        ),
        (
            StepSummarizer {
                delay: std::time::Duration::from_secs(60),
                fail: false,
            },
            "timed out",
        ),
    ] {
        let (mut engine, events) = long_round_with(summarizer).await;
        let degraded: Vec<usize> = events
            .iter()
            .filter_map(|e| match e {
                Event::StepsSummarized {
                    steps,
                    degraded: Some(why),
                } if why.contains(reason) => Some(*steps),
                _ => None,
            })
            .collect();
        assert!(!degraded.is_empty(), "{reason}");
        let digest = engine.window().context.scratchpad()[0].content.clone();
        assert!(!digest.contains("Summary of those steps"), "{digest}");
        // Each step went to the summariser once at most.
        assert!(degraded.iter().sum::<usize>() <= 25);
    }
}

/// A model that counts a quarter more tokens than the default counter,
/// reports them as usage, and rejects a request over its 16k context
/// window, as providers do.
struct StrictModel;

#[async_trait::async_trait]
impl strata_ctx::LlmClient for StrictModel {
    async fn complete(
        &self,
        request: strata_ctx::LlmRequest,
    ) -> strata_ctx::LlmResult<strata_ctx::LlmResponse> {
        use strata_ctx::TokenCounter;
        let tokens = strata_ctx::CharCounter.count_messages(&request.messages) * 5 / 4;
        if tokens > 16_000 {
            return Err(strata_ctx::LlmError::ContextTooLong {
                message: format!("{tokens} tokens > 16000"),
            });
        }
        Ok(strata_ctx::LlmResponse::new(
            "next step",
            strata_ctx::Usage::new(tokens as u64, 20),
        ))
    }
}

/// HIST-12, HIST-14: the same loop through `Engine::complete` against a
/// model that counts more than the counter and rejects what does not fit:
/// every call goes through with the default configuration, never
/// `StillTooLong`.
#[tokio::test]
async fn hist_14_agent_loop_through_complete_never_still_too_long() {
    let project = tempfile::tempdir().unwrap();
    let mut engine = at_16k(project.path()).build().unwrap();
    engine.begin_round(TASK).await.unwrap();
    for i in 0..40 {
        engine
            .complete(&StrictModel, strata_ctx::LlmOptions::default())
            .await
            .unwrap_or_else(|e| panic!("step {i}: {e}"));
        let (assistant, results) = step(i);
        engine.record_step(assistant, results).await.unwrap();
    }
    engine
        .complete(&StrictModel, strata_ctx::LlmOptions::default())
        .await
        .unwrap();
}

/// EVAL-1 as a regression guard: on the real sessions of
/// `tests/data/corpus/` with at least 10 steps, the final window at 16k
/// keeps most working facts and far more than newest-first trimming.
#[tokio::test]
async fn eval_1_facts_kept_on_the_test_corpus() {
    let dir = crate::workspace_path("tests/data/corpus");
    let mut total = strata_ctx::eval::Tally::default();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let messages = strata_ctx_testkit::load_transcript(&path).unwrap().messages;
        if messages.iter().filter(|m| m.has_tool_calls()).count() < 10 {
            continue;
        }
        let project = tempfile::tempdir().unwrap();
        let mut engine = at_16k(project.path()).build().unwrap();
        let report = strata_ctx::eval::facts_kept(&mut engine, &messages)
            .await
            .unwrap();
        assert_eq!(report.summary.over_budget_steps, 0, "{}", path.display());
        total.add(report.total());
    }
    assert!(total.facts > 100, "{total:?}");
    assert!(total.strata * 100 >= total.facts * 85, "{total:?}");
    assert!(total.strata >= 2 * total.trim, "{total:?}");
}

/// HIST-14: when the user writes again after a round too long to keep, the
/// summary that archives it quotes where it stopped (the last test run
/// and its error); once the new round grows past the budget, the quote is
/// the first thing to go, and the summary keeps the rest. The window is
/// within the threshold after every step.
#[tokio::test]
async fn hist_14_the_quoted_last_steps_go_first_when_the_next_round_grows() {
    let project = tempfile::tempdir().unwrap();
    let mut engine = at_16k(project.path()).build().unwrap();
    engine.begin_round(TASK).await.unwrap();
    // Too long to keep even with every result cleared.
    for i in 0..150 {
        let (assistant, results) = step(i);
        engine.record_step(assistant, results).await.unwrap();
    }
    engine.finish_round("The parser accepts `f(a, b)` now.").unwrap();
    engine
        .begin_round("Now make the error messages clearer.")
        .await
        .unwrap();
    let quoted = |engine: &Engine| {
        engine
            .history()
            .window()
            .iter()
            .find(|m| m.role == strata_ctx::Role::Summary)
            .map(|m| m.content.to_string())
            .unwrap_or_default()
    };
    let summary = quoted(&engine);
    let (_, quote) = summary
        .split_once("### Where the archived work stopped")
        .expect("the summary quotes the last steps");
    assert!(
        quote.contains("Answer: The parser accepts `f(a, b)` now."),
        "{quote}"
    );
    let mut gone_at = None;
    for i in 150..190 {
        let (assistant, results) = step(i);
        engine.record_step(assistant, results).await.unwrap();
        crate::assert_within_budget(&engine.window(), format_args!("step {i}"));
        let summary = quoted(&engine);
        if gone_at.is_none() && !summary.contains("### Where the archived work stopped") {
            gone_at = Some(i);
            // The rest of the summary stays: what the archived steps did.
            assert!(summary.contains("src/parser.py"), "{summary}");
            assert!(summary.contains("[The archived messages are in the full log: "));
        }
    }
    let gone_at = gone_at.expect("the quote goes once the new round grows");
    assert!(gone_at > 150, "not before the new round needed the room");
}

//! Regression tests of the reliability issues found by probing the
//! library as a hostile user would (REL-1 … REL-3).

use std::sync::{mpsc, Arc};

use serde_json::json;
use strata_ctx::history::{clear_result, Repair};
use strata_ctx::{CharCounter, Config, Engine, Event, History, Message, Pairs, Role, ToolCall, ToolResult};

/// REL-1, HIST-17 (issue: 16,000 short rounds left 9,267 "Summary
/// generation failed" notices, 427k tokens against a 12.8k threshold,
/// while replay reported no step over budget): with no summariser, any
/// number of short rounds leaves one notice and the window within the
/// threshold at every round start.
#[tokio::test]
async fn rel_1_short_rounds_never_pile_up_notices() {
    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path())
        .config(Config::from_toml_str("context_window = 16000").unwrap())
        .build()
        .unwrap();
    let mut transcript = Vec::new();
    for i in 0..1_500 {
        transcript.push(Message::user(format!(
            "Question {i}: {}",
            "why is the sky blue? ".repeat(4)
        )));
        transcript.push(Message::assistant(format!(
            "Answer {i}: {}",
            "because of Rayleigh scattering. ".repeat(4)
        )));
    }
    let summary = strata_ctx::replay::replay(&mut engine, &transcript, |_, _| {})
        .await
        .unwrap();
    assert_eq!(summary.rounds, 1_500);
    assert_eq!(summary.over_budget_steps, 0, "{summary:?}");
    assert!(summary.max_window_tokens <= engine.threshold_tokens());
    let window = engine.window();
    let notices = window
        .context
        .history()
        .iter()
        .filter(|m| m.role == Role::Summary)
        .count();
    assert_eq!(notices, 1);
}

/// REL-1 (issue: clearing a result shorter than the marker grew the
/// window, 2,004 → 4,332 tokens at a 1,000 window): a short result is
/// left as it is, and compaction never grows the window.
#[tokio::test]
async fn rel_1_clearing_never_grows_the_window() {
    let call = ToolCall::new("c", "bash", json!({}));
    let mut short = Message::tool_result(&call, ToolResult::success("ok"));
    assert!(!clear_result(&mut short, Some(&call)));
    assert_eq!(short.text(), "{\"status\":\"success\",\"data\":\"ok\"}");
    let mut h = History::new(
        Config::from_toml_str("context_window = 1000").unwrap(),
        Arc::new(CharCounter),
    );
    h.begin_round(Message::user("go"));
    for n in 0..200 {
        let call = ToolCall::new(format!("c{n}"), "bash", json!({}));
        h.record_step(
            Message::assistant_with_calls("", vec![call.clone()]),
            vec![Message::tool_result(&call, ToolResult::success("ok"))],
        );
    }
    let before = h.window_tokens();
    let stats = h.compact(&strata_ctx::NoSummarizer).await;
    assert!(h.window_tokens() <= before, "{} > {before}", h.window_tokens());
    assert!(!h.window().iter().any(strata_ctx::history::is_cleared));
    assert!(stats.tokens_after <= stats.tokens_before);
}

/// REL-1 (issue: a repeated tool-call id left a call without a result and
/// no repair was reported): the engine renames the reused id, pairs both
/// calls and says so.
#[tokio::test]
async fn rel_1_engine_renames_reused_call_ids() {
    let project = tempfile::tempdir().unwrap();
    let (tx, events) = mpsc::channel();
    let mut engine = Engine::builder(project.path()).events_to(tx).build().unwrap();
    engine.begin_round("go").await.unwrap();
    let a = ToolCall::new("same", "bash", json!({"command": "echo 1"}));
    let b = ToolCall::new("same", "bash", json!({"command": "echo 2"}));
    let results = vec![
        Message::tool_result(&a, ToolResult::success("1")),
        Message::tool_result(&b, ToolResult::success("2")),
    ];
    engine
        .record_step(Message::assistant_with_calls("", vec![a.clone(), b]), results)
        .await
        .unwrap();
    engine
        .record_step(
            Message::assistant_with_calls("", vec![a.clone()]),
            vec![Message::tool_result(&a, ToolResult::success("3"))],
        )
        .await
        .unwrap();
    let shown = engine.window().messages();
    assert!(
        Pairs::new(&shown).is_complete(),
        "{:?}",
        Pairs::new(&shown).issues()
    );
    let answers: Vec<String> = shown
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| m.text().into_owned())
        .collect();
    assert_eq!(answers.len(), 3);
    assert!(
        answers[1].contains("\"2\"") && answers[2].contains("\"3\""),
        "{answers:?}"
    );
    let renamed: Vec<Repair> = events
        .try_iter()
        .filter_map(|e| match e {
            Event::Repaired(r) => Some(r),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(renamed.len(), 2, "{renamed:?}");
    assert!(renamed
        .iter()
        .all(|r| matches!(r, Repair::Renamed { old, .. } if old == "same")));
}

/// REL-2: the full log keeps at most `max_logged_bytes` of one output and
/// says where the whole is.
#[tokio::test]
async fn rel_2_logged_output_is_bounded() {
    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path())
        .max_logged_bytes(10_000)
        .build()
        .unwrap();
    engine.begin_round("go").await.unwrap();
    let call = ToolCall::new("c", "bash", json!({"command": "yes"}));
    let output = "y\n".repeat(1_000_000);
    engine
        .record_step(
            Message::assistant_with_calls("", vec![call.clone()]),
            vec![Message::tool_result(&call, ToolResult::success(output))],
        )
        .await
        .unwrap();
    let last = engine.history().full_log().last().unwrap();
    let logged = last.result.as_ref().unwrap().data.as_str().unwrap().to_owned();
    assert!(logged.len() < 10_300, "{}", logged.len());
    assert!(
        logged
            .contains("the log keeps the first 10000 of 2000000 bytes; the whole output is in tool-output/"),
        "{}",
        &logged[logged.len() - 200..]
    );
}

//! HIST-10 message-id pruning and HIST-12 reactive compaction.

use std::sync::Arc;

use serde_json::json;
use strata_ctx_core::{CharCounter, Config, Message, Pairs, TokenAmount, ToolCall};
use strata_ctx_history::{id_hint, Error, History, PruneAction};

use crate::Fixed;

fn history() -> History {
    let config = Config::builder()
        .context_window(TokenAmount::Tokens(50_000))
        .build()
        .unwrap();
    let mut h = History::new(config, Arc::new(CharCounter));
    h.set_recording(true);
    h.begin_round(Message::user("look at both files"));
    let a = ToolCall::new("a", "Read", json!({"path": "a.rs"}));
    let b = ToolCall::new("b", "Read", json!({"path": "b.rs"}));
    h.record_step(
        Message::assistant_with_calls("reading", vec![a.clone(), b.clone()]),
        vec![
            Message::tool_text("a", "Read", "fn x() {}\n".repeat(300)),
            Message::tool_text("b", "Read", "fn b() {}"),
        ],
    );
    h.finish_round(Message::assistant("a.rs is long; b.rs is tiny"));
    h
}

#[test]
fn hist_10_pruning_a_result_drops_its_whole_step() {
    let mut h = history();
    let before = h.window_tokens();
    let result_a = h.window()[2].id;
    let short = h.short_ids().short(&result_a).unwrap();
    assert_eq!(id_hint(&short), format!("[message_id: {short}]"));
    let outcome = h.prune(PruneAction::Create(vec![short.clone()]));
    assert!(outcome.rejected.is_empty());
    assert_eq!(
        outcome.hidden.len(),
        3,
        "the call message and both parallel results"
    );
    let window = h.window();
    assert_eq!(window.len(), 2);
    assert!(Pairs::new(&window).is_complete());
    assert!(h.window_tokens() < before - 900);
    assert_eq!(h.full_log().len(), 5, "the full log keeps them");

    // Replay reproduces the pruned window.
    let replayed = History::replay(Config::default(), Arc::new(CharCounter), h.take_records());
    assert_eq!(replayed.window(), h.window());

    // `delete` brings them back; summaries and unknown ids are refused.
    let outcome = h.prune(PruneAction::Delete(vec![short]));
    assert!(outcome.hidden.is_empty());
    assert_eq!(h.window().len(), 5);
    assert_eq!(h.window_tokens(), before);
    let outcome = h.prune(PruneAction::Append(vec!["ffffffff".into(), "zz".into()]));
    assert_eq!(outcome.rejected.len(), 2);
}

#[tokio::test]
async fn hist_12_reactive_compaction_cannot_loop() {
    let mut h = history();
    let first = h.compact_after_overflow(&Fixed::ok()).await;
    assert!(first.is_ok());
    let again = h.compact_after_overflow(&Fixed::ok()).await;
    assert!(matches!(again, Err(Error::StillTooLong { .. })));
    h.begin_round(Message::user("next"));
    assert!(h.compact_after_overflow(&Fixed::ok()).await.is_ok());
}

/// The window's size stays exact when compaction clears a pruned result.
#[tokio::test]
async fn hist_10_pruned_results_cleared_by_compaction_keep_the_size_exact() {
    use strata_ctx_core::TokenCounter;
    let config = Config::builder()
        .context_window(TokenAmount::Tokens(3_000))
        .build()
        .unwrap();
    let mut h = History::new(config, Arc::new(CharCounter));
    h.begin_round(Message::user("go"));
    for n in 0..12 {
        let call = ToolCall::new(format!("c{n}"), "Read", json!({}));
        h.record_step(
            Message::assistant_with_calls("", vec![call.clone()]),
            vec![Message::tool_text(&call.id, "Read", "line of code\n".repeat(100))],
        );
    }
    let first_result = h.window()[2].id;
    let short = h.short_ids().short(&first_result).unwrap();
    h.prune(PruneAction::Create(vec![short]));
    let stats = h.compact(&Fixed::ok()).await;
    assert!(stats.tool_results_cleared > 0);
    assert_eq!(h.window_tokens(), CharCounter.count_messages(&h.window()));
}

/// HIST-10, HIST-14: a message the model left out is not in the window:
/// compaction neither counts it against the budget nor shrinks it.
#[tokio::test]
async fn hist_10_pruned_messages_neither_count_nor_shrink_in_compaction() {
    let mut pruned = history();
    let all = pruned.window_tokens();
    let short = pruned.short_ids().short(&pruned.window()[2].id).unwrap();
    pruned.prune(PruneAction::Create(vec![short.clone()]));
    let shown = pruned.window_tokens();
    // The same history under a threshold between what is shown and what
    // the log holds.
    let threshold = shown + (all - shown) / 2;
    let config = Config::builder()
        .context_window(TokenAmount::Tokens(threshold as u64 * 10 / 8 + 1))
        .min_retain_rounds(1)
        .build()
        .unwrap();
    let mut h = History::replay(config, Arc::new(CharCounter), pruned.take_records());
    assert!(h.window_tokens() <= h.budget().threshold());
    let stats = h.compact(&Fixed::ok()).await;
    assert!(!stats.over_budget, "{stats:?}");
    assert_eq!(stats.tool_results_cleared, 0, "{stats:?}");
    h.prune(PruneAction::Delete(vec![short]));
    assert!(
        h.window().iter().any(|m| m.content.contains("fn x() {}")),
        "the pruned result comes back whole"
    );
}

/// A pruned message that changes (pinned, a result in history form gets
/// its whole text back) stays out of the window's count: the window's
/// tokens are those of the messages it shows.
#[test]
fn a_pruned_message_that_changes_stays_out_of_the_count() {
    use strata_ctx_core::TokenCounter;
    let mut h = History::new(Config::default(), Arc::new(CharCounter));
    h.begin_round(Message::user("run it"));
    let call = ToolCall::new("t", "Bash", json!({"command": "make"}));
    let log: String = (0..2_000).map(|i| format!("building unit {i}\n")).collect();
    h.record_step(
        Message::assistant_with_calls("building", vec![call]),
        vec![Message::tool_text("t", "Bash", log.clone())],
    );
    h.finish_round(Message::assistant("built"));
    let result = h.window()[2].id;
    assert!(h.window()[2].content.len() < log.len(), "in history form");
    let shown = |h: &History| CharCounter.count_messages(&h.window());
    h.prune(PruneAction::Create(vec![result.short()]));
    assert_eq!(h.window_tokens(), shown(&h));
    assert_eq!(h.pin(&[result.short()], true).changed.len(), 2);
    assert_eq!(h.window_tokens(), shown(&h));
    // Shown again, the pinned result is whole.
    h.prune(PruneAction::Delete(vec![result.short()]));
    assert!(h.window().iter().any(|m| m.content == log.as_str()));
    assert_eq!(h.window_tokens(), shown(&h));
}

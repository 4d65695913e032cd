//! MEM-1..3 through the facade: a user's session context and long-term
//! memory across two conversations, with a scripted model; suggestions
//! deduplicated, logged and never in the window; every layer within its
//! budget.

use std::path::Path;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;
use strata_ctx::store::Conversation;
use strata_ctx::{
    Engine, Event, LlmOptions, LlmResponse, LongTermMemory, MemoryChange, Message, SessionLimits, ToolCall,
    ToolMode, ToolResult, Usage,
};
use strata_ctx_testkit::ScriptedClient;

fn engine(dir: &Path, log: &str, tx: std::sync::mpsc::Sender<Event>) -> Engine {
    Engine::builder(dir)
        .tool_mode(ToolMode::Native)
        .session_context(SessionLimits::default())
        .long_term_memory(LongTermMemory::open(dir.join("memory"), "ada").unwrap(), 200)
        .conversation(Conversation::open(dir.join(log)).unwrap())
        .suggestion_timeout(Duration::from_millis(200))
        .events_to(tx)
        .build()
        .unwrap()
}

/// Time is paused: the suggestion timeout and the slow model's delay run
/// on tokio's clock, so a loaded machine cannot make a prompt model late.
#[tokio::test(start_paused = true)]
async fn mem_two_conversations() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let model = ScriptedClient::new();

    // Conversation 1: a step that reads a file and remembers a decision.
    let mut first = engine(dir.path(), "one.jsonl", tx.clone());
    first
        .begin_round("I deploy with Docker. Fix the Dockerfile.")
        .await
        .unwrap();
    let read = ToolCall::new("c1", "Read", json!({"path": "Dockerfile"}));
    let note = ToolCall::new(
        "c2",
        "remember",
        json!({"key": "decision", "value": "pin the base image"}),
    );
    let noted = first.memory_tool(&note).unwrap();
    first
        .record_step(
            Message::assistant_with_calls("Reading.", vec![read.clone(), note.clone()]),
            vec![
                Message::tool_result(&read, ToolResult::success("FROM python")),
                Message::tool_result(&note, noted),
            ],
        )
        .await
        .unwrap();
    first.finish_round("Pinned python:3.12.").unwrap();
    model.push_text(r#"{"save": ["Ada deploys with Docker."]}"#);
    let changes = first.extract_memory(&model).await.unwrap();
    assert!(matches!(&changes[..], [MemoryChange::Added(f)] if f.text == "Ada deploys with Docker."));
    // The extraction saw the round.
    let asked = &model.requests()[0].messages;
    assert!(asked.iter().any(|m| m.content.contains("Fix the Dockerfile")));

    model.push_text(r#"["Build the image", "Run the container"]"#);
    let made = first.suggest_followups(&model, 2).await;
    assert_eq!(made, ["Build the image", "Run the container"]);
    model.push_text(r#"["build the IMAGE", "Push the image"]"#);
    let again = first.suggest_followups(&model, 2).await;
    assert_eq!(again, ["Push the image"], "earlier suggestions are not repeated");
    model.push_delayed(Duration::from_secs(2), "[\"late\"]");
    assert!(
        first.suggest_followups(&model, 2).await.is_empty(),
        "a slow model degrades to none"
    );
    let window: Vec<String> = first
        .window()
        .messages()
        .into_iter()
        .map(|m| m.content.to_string())
        .collect();
    assert!(
        !window.iter().any(|t| t.contains("Build the image")),
        "suggestions never enter the window"
    );
    let live_session = first.session_context().unwrap().clone();
    drop(first);

    // Resuming conversation 1 gives back its session context and its
    // suggestions (for deduplication).
    let resumed = engine(dir.path(), "one.jsonl", tx.clone());
    assert_eq!(resumed.session_context().unwrap(), &live_session);
    assert_eq!(
        resumed.suggestions(),
        ["Build the image", "Run the container", "Push the image"]
    );
    drop(resumed);

    // Conversation 2: a new log; the memory is the user's.
    let mut second = engine(dir.path(), "two.jsonl", tx);
    assert!(
        second.session_context().unwrap().is_empty(),
        "the session context is per conversation"
    );
    second
        .begin_round("Write a docker compose file for the app.")
        .await
        .unwrap();
    model.push(
        Duration::ZERO,
        Ok(LlmResponse::new("Here it is.", Usage::new(0, 0))),
    );
    second.complete(&model, LlmOptions::new()).await.unwrap();
    let sent = model.requests().last().unwrap().messages.clone();
    let recalled = sent
        .iter()
        .find(|m| m.content.contains("What you remember about this user"))
        .expect("the memory layer");
    assert!(recalled.content.contains("- Ada deploys with Docker."));
    second.finish_round("Here it is.").unwrap();
    // An input the memory says nothing about recalls nothing.
    second.begin_round("What is 2 + 2?").await.unwrap();
    assert!(!second
        .window()
        .messages()
        .iter()
        .any(|m| m.content.contains("What you remember")));

    let events: Vec<Event> = rx.try_iter().collect();
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::MemoryChanged(MemoryChange::Added(_)))));
    assert!(events.iter().any(|e| matches!(e, Event::SessionUpdated(_))));
    assert!(events.iter().any(|e| matches!(e, Event::Suggested { .. })));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::SuggestionsFailed { .. })));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// MEM-1, MEM-2: whatever the facts and entries, the memory and
    /// session layers stay within their budgets.
    #[test]
    fn mem_layers_within_budget(
        facts in prop::collection::vec("[a-z]{2,9}( [a-z]{2,9}){0,12}", 0..20),
        entries in prop::collection::vec(("[a-z]{1,8}", "[a-z ]{1,120}"), 0..20),
        memory_budget in 0usize..300,
        session_budget in 0usize..300,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut memory = LongTermMemory::open(dir.path(), "u").unwrap();
        for f in &facts {
            let _ = memory.save(f);
        }
        let query = facts.join(" ");
        let count = |t: &str| t.chars().count() / 3 + 1;
        if let Some(text) = memory.render(&query, memory_budget, count) {
            prop_assert!(count(&text) <= memory_budget);
        }
        let mut session = strata_ctx::SessionContext::new(SessionLimits::default().with_max_tokens(session_budget));
        for (k, v) in &entries {
            let _ = session.apply(&strata_ctx::memory::Update::set(k.as_str(), v.as_str(), strata_ctx::memory::Source::Agent));
        }
        if let Some(text) = session.render(usize::MAX, count) {
            prop_assert!(count(&text) <= session_budget);
        }
    }
}

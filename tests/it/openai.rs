//! HIST-12 end to end over HTTP (EDGE-1): an OpenAI-compatible server on
//! 127.0.0.1 rejects the window with `context_length_exceeded`; the engine
//! compacts and the retried, smaller request goes through.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use strata_ctx::{Config, Engine, Event, Usage};
use strata_ctx_openai::OpenAiClient;
use strata_ctx_testkit::{HttpServer, Reply, ScriptedClient};

use crate::agent::{action, finish, run_round, sample_project, tools};
use crate::engine::Fixed;

#[tokio::test]
async fn hist_12_context_length_exceeded_over_http_compacts_and_retries() {
    let project = tempfile::tempdir().unwrap();
    sample_project(project.path());
    let summarizer = Arc::new(Fixed::default());
    let (events_tx, events) = std::sync::mpsc::channel();
    let mut engine = Engine::builder(project.path())
        .config(Config::from_toml_str("context_window = 50000\nmin_retain_rounds = 1").unwrap())
        .tools(tools())
        .summarizer(summarizer.clone())
        .events_to(events_tx)
        .build()
        .unwrap();
    let scripted = ScriptedClient::new();
    for round in 0..3 {
        scripted
            .push_text(action("Count.", "Bash", json!({"command": "seq 45"})))
            .push_text(finish(&format!("done {round}")));
        run_round(
            &mut engine,
            &scripted,
            project.path(),
            &format!("question {round}"),
        )
        .await
        .unwrap();
    }

    let overflow = json!({"error": {
        "message": "This model's maximum context length is 50000 tokens. However, your messages resulted in 61234 tokens.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}});
    let server = HttpServer::start(vec![
        Reply::json(400, &overflow),
        Reply::completion(&finish("fine"), 812, 9),
    ])
    .await;
    let client = OpenAiClient::builder()
        .base_url(server.base_url())
        .model("test-model")
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let answer = run_round(&mut engine, &client, project.path(), "question 3")
        .await
        .unwrap();
    assert_eq!(answer, "fine");
    assert_eq!(summarizer.calls.load(Ordering::SeqCst), 1, "one compaction");

    let got = server.received();
    assert_eq!(got.len(), 2);
    let sent = |i: usize| got[i].body["messages"].as_array().unwrap().clone();
    let (rejected, retried) = (sent(0), sent(1));
    assert!(
        retried.len() < rejected.len(),
        "{} then {}",
        rejected.len(),
        retried.len()
    );
    let has_summary = retried.iter().any(|m| {
        m["role"] == "system"
            && m["content"]
                .as_str()
                .unwrap_or_default()
                .starts_with("## Archived History Summary")
    });
    assert!(has_summary, "the retry carries the archived summary");
    assert_eq!(
        retried.last().unwrap()["content"],
        "question 3",
        "the round's input is sent"
    );
    // The provider's usage figures reached the engine.
    let usage: Vec<Usage> = events
        .try_iter()
        .filter_map(|e| match e {
            Event::UsageRecorded(u) => Some(u),
            _ => None,
        })
        .collect();
    assert_eq!(usage.last(), Some(&Usage::new(812, 9)));
}

//! Integration tests of strata-ctx-summary with the scripted client, on tokio's
//! paused clock (HIST-5, HIST-7, HIST-12).

// Test code: unwrapping, panicking and printing are how it reports; the
// house lints (Cargo.toml) are for library code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub
)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use strata_ctx_core::{LlmError, LlmResponse, Message, ProgressFn, Summarizer, SummaryProgress, Usage};
use strata_ctx_summary::LlmSummarizer;
use strata_ctx_testkit::{HistoryBuilder, ScriptedClient};

const ARCHIVE: &str = "### 🎯 Objectives & Status\n* **Original Goal**: port the parser.";

fn history(rounds: usize, output_len: usize) -> Vec<Message> {
    let mut b = HistoryBuilder::new();
    for r in 0..rounds {
        b = b.round(&format!("task {r}"), 3, output_len);
    }
    b.build()
}

fn recorder() -> (ProgressFn, Arc<Mutex<Vec<SummaryProgress>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    (Arc::new(move |p| sink.lock().unwrap().push(p)), seen)
}

#[tokio::test(start_paused = true)]
async fn hist_5_summary_has_header_span_and_prompt() {
    let client = ScriptedClient::new();
    client.push_text(ARCHIVE);
    let s = LlmSummarizer::new(Arc::new(client.clone())).with_model("small-model");
    let messages = history(2, 100);
    let summary = s.summarize(&messages).await.unwrap();
    assert_eq!(
        summary,
        format!("## 📌 Archived Session Summary\n*(Contains context from 2026-01-01 00:00:01 UTC to 2026-01-01 00:00:16 UTC)*\n\n{ARCHIVE}")
    );
    let req = &client.requests()[0];
    assert_eq!(req.options.model.as_deref(), Some("small-model"));
    assert!(req.messages[0]
        .content
        .contains("from 2026-01-01 00:00:01 UTC to 2026-01-01 00:00:16 UTC"));
    assert!(
        req.messages[0].content.contains("does not describe")
            || req.messages[0].content.contains("current task")
    );
    let body = &req.messages[1].content;
    assert!(body.starts_with("The messages to archive:\n\n[user] task 0"));
    assert!(body.contains("Action: bash({\"command\":\"step 0\"})\n\n[tool bash] "));
}

#[tokio::test(start_paused = true)]
async fn hist_7_timeout_is_a_typed_error() {
    let client = ScriptedClient::new();
    client.push_delayed(Duration::from_secs(300), ARCHIVE);
    let s = LlmSummarizer::new(Arc::new(client));
    let started = tokio::time::Instant::now();
    let err = s.summarize(&history(1, 10)).await.unwrap_err();
    assert!(matches!(err, LlmError::Timeout { after } if after == Duration::from_secs(120)));
    assert_eq!(started.elapsed(), Duration::from_secs(120));
}

/// CORE-7: `summary_timeout` and `summary_model` reach the summariser
/// built from a configuration.
#[tokio::test(start_paused = true)]
async fn hist_7_summariser_from_config_takes_its_timeout_and_model() {
    let mut config = strata_ctx_core::Config::default();
    config.set("summary_timeout", "30s").unwrap();
    config.set("summary_model", "small-model").unwrap();
    let client = ScriptedClient::new();
    client.push_delayed(Duration::from_secs(300), ARCHIVE);
    let s = LlmSummarizer::from_config(Arc::new(client.clone()), &config);
    let started = tokio::time::Instant::now();
    let err = s.summarize(&history(1, 10)).await.unwrap_err();
    assert!(matches!(err, LlmError::Timeout { after } if after == Duration::from_secs(30)));
    assert_eq!(started.elapsed(), Duration::from_secs(30));
    assert_eq!(client.requests()[0].options.model.as_deref(), Some("small-model"));
}

#[tokio::test(start_paused = true)]
async fn hist_7_errors_empty_and_garbage_answers_are_errors() {
    let client = ScriptedClient::new();
    client
        .push_error(LlmError::Provider {
            status: Some(500),
            message: "upstream".into(),
        })
        .push_text("  \n ")
        .push_text("x".repeat(50_000));
    let s = LlmSummarizer::new(Arc::new(client));
    let m = history(1, 10);
    assert!(matches!(
        s.summarize(&m).await,
        Err(LlmError::Provider {
            status: Some(500),
            ..
        })
    ));
    assert_eq!(
        s.summarize(&m).await.unwrap_err().to_string(),
        "invalid response from the model provider: the summary is empty"
    );
    assert!(s
        .summarize(&m)
        .await
        .unwrap_err()
        .to_string()
        .contains("longer than what it summarises"));
}

#[tokio::test(start_paused = true)]
async fn hist_7_large_input_is_summarised_in_chunks() {
    let client = ScriptedClient::from_fn(|req| {
        let n = req.messages[1].content.matches("[user]").count();
        Ok(LlmResponse::new(
            format!("* {n} tasks archived in this part"),
            Usage::default(),
        ))
    });
    let (progress, seen) = recorder();
    let s = LlmSummarizer::new(Arc::new(client.clone()))
        .with_max_input_tokens(3_000)
        .with_progress(progress);
    let messages = history(12, 1_500);
    let summary = s.summarize(&messages).await.unwrap();
    let requests = client.requests();
    assert!(requests.len() >= 3, "{} chunks", requests.len());
    for (i, r) in requests.iter().enumerate() {
        let tokens: usize = r.messages.iter().map(|m| m.content.chars().count() / 3).sum();
        assert!(tokens <= 3_000, "request {i} has {tokens} tokens");
        // No step is split from its results.
        let body = &r.messages[1].content;
        assert_eq!(
            body.matches("Action: bash").count(),
            body.matches("[tool bash]").count()
        );
        if i > 0 {
            assert!(body.starts_with("Summary of the earlier part of these messages"));
            assert!(body.contains("tasks archived in this part"));
        }
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), requests.len());
    assert_eq!(
        seen[0],
        SummaryProgress::ChunkStarted {
            chunk: 1,
            chunks: requests.len()
        }
    );
    assert!(summary.ends_with("tasks archived in this part"));
}

#[tokio::test(start_paused = true)]
async fn hist_12_overflow_shrinks_and_retries() {
    let client = ScriptedClient::new();
    client
        .push_error(LlmError::ContextTooLong {
            message: "too long".into(),
        })
        .push_error(LlmError::ContextTooLong {
            message: "still too long".into(),
        })
        .push_text(ARCHIVE);
    let (progress, seen) = recorder();
    let s = LlmSummarizer::new(Arc::new(client.clone())).with_progress(progress);
    let summary = s.summarize(&history(3, 3_000)).await.unwrap();
    assert!(summary.ends_with(ARCHIVE));
    let sizes: Vec<usize> = client
        .requests()
        .iter()
        .map(|r| r.messages[1].content.len())
        .collect();
    assert!(sizes[0] > sizes[1] && sizes[1] > sizes[2], "{sizes:?}");
    assert!(client.requests()[2].messages[1]
        .content
        .contains("[tool results cleared]"));
    let shrunk = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|p| matches!(p, SummaryProgress::Shrunk { .. }))
        .count();
    assert_eq!(shrunk, 2);
}

#[tokio::test(start_paused = true)]
async fn hist_12_overflow_that_persists_ends_in_a_typed_error() {
    let client = ScriptedClient::from_fn(|_| {
        Err(LlmError::ContextTooLong {
            message: "never fits".into(),
        })
    });
    let s = LlmSummarizer::new(Arc::new(client.clone())).with_max_attempts(3);
    let err = s.summarize(&history(2, 500)).await.unwrap_err();
    assert!(err.is_context_too_long());
    assert_eq!(client.calls(), 3, "bounded retries, never a loop");
}

/// A model that follows the prompt's rules literally: it keeps the earlier
/// archive's facts only when the prompt tells it to carry them over, and
/// adds one fact per archived tool step.
fn literal_model(req: &strata_ctx_core::LlmRequest) -> strata_ctx_core::LlmResult<LlmResponse> {
    let prompt = &req.messages[0].content;
    let body = &req.messages[1].content;
    let merge = prompt.contains("carry every fact it holds") && !prompt.contains("must not be repeated");
    let mut facts: Vec<String> = Vec::new();
    if merge {
        facts.extend(body.lines().filter(|l| l.starts_with("* [✓]")).map(str::to_owned));
    }
    facts.extend(
        body.lines()
            .filter_map(|l| l.strip_prefix("Action: bash({\"command\":\""))
            .map(|c| format!("* [✓] ran {}", c.trim_end_matches("\"})"))),
    );
    Ok(LlmResponse::new(
        format!(
            "### ✅ Completed Milestones (The \"Done\" Pile)\n{}",
            facts.join("\n")
        ),
        Usage::default(),
    ))
}

/// HIST-17: the prompt says the earlier archive is in the input and must
/// be merged, so a model that obeys it keeps the earlier facts when its
/// summary replaces the earlier one.
#[tokio::test(start_paused = true)]
async fn hist_17_a_literal_model_keeps_the_earlier_archive() {
    let client = ScriptedClient::from_fn(literal_model);
    let s = LlmSummarizer::new(Arc::new(client.clone()));
    let first = s.summarize(&history(2, 10)).await.unwrap();
    assert!(first.contains("* [✓] ran step 0"), "{first}");

    let mut input = vec![Message::summary(first.clone())];
    input.extend(HistoryBuilder::new().round("task 9", 1, 10).build());
    let second = s.summarize(&input).await.unwrap();
    assert!(
        second.contains("* [✓] ran step 0"),
        "the earlier fact was dropped:\n{second}"
    );
    assert!(
        second.matches("* [✓] ran step 0").count() >= 2,
        "the new step is added too:\n{second}"
    );
    assert!(client.requests()[1].messages[0]
        .content
        .contains("merge, do not drop"));
}

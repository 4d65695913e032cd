//! TOOL-12 with the scripted client, on tokio's paused clock.

use std::sync::Arc;
use std::time::Duration;

use strata_ctx_compress::{PendingSummaries, SummarySource, ToolSummarizer};
use strata_ctx_core::LlmError;
use strata_ctx_testkit::ScriptedClient;

const OUTPUT: &str = "running 12 tests\ntest parser::flat ... ok\ntest parser::nested ... FAILED\nfailures:\nthread 'parser::nested' panicked at src/parser.rs:88:9\ntest result: FAILED. 11 passed; 1 failed";

#[tokio::test(start_paused = true)]
async fn tool_12_llm_summary_used_and_capped() {
    let client = ScriptedClient::new();
    client.push_text(format!("  {}  ", "x".repeat(2_000)));
    let s = ToolSummarizer::new(Arc::new(client.clone()))
        .with_model("small")
        .summarize("Bash", OUTPUT)
        .await;
    assert_eq!(s.source, SummarySource::Llm);
    assert_eq!(s.text.chars().count(), 800);
    let request = &client.requests()[0];
    assert_eq!(request.options.model.as_deref(), Some("small"));
    assert!(request.messages[0]
        .content
        .contains("Output of `Bash`:\nrunning 12 tests"));
}

#[tokio::test(start_paused = true)]
async fn tool_12_timeout_error_and_empty_answers_fall_back_to_the_extract() {
    let client = ScriptedClient::new();
    client
        .push_delayed(Duration::from_secs(10), "too late")
        .push_error(LlmError::RateLimited {
            retry_after: None,
            message: "slow down".into(),
        })
        .push_text("   \n");
    let summarizer = ToolSummarizer::new(Arc::new(client));
    let expected = "running 12 tests\ntest parser::flat ... ok\ntest parser::nested ... FAILED\nfailures:\nthread 'parser::nested' panicked at src/parser.rs:88:9\ntest result: FAILED. 11 passed; 1 failed";
    let started = tokio::time::Instant::now();
    let timed_out = summarizer.summarize("Bash", OUTPUT).await;
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(3),
        "the default timeout is 3 s"
    );
    assert_eq!(timed_out.text, expected);
    assert_eq!(
        timed_out.source,
        SummarySource::Extract {
            reason: "timed out after 3s".into()
        }
    );
    let failed = summarizer.summarize("Bash", OUTPUT).await;
    assert!(matches!(failed.source, SummarySource::Extract { ref reason } if reason.contains("slow down")));
    let empty = summarizer.summarize("Bash", OUTPUT).await;
    assert_eq!(empty.text, expected);
    // Never a bare placeholder, even for output with nothing to extract.
    let client = ScriptedClient::new();
    client.push_error(LlmError::Timeout {
        after: Duration::from_secs(3),
    });
    let s = ToolSummarizer::new(Arc::new(client))
        .summarize("Read", "just one line")
        .await;
    assert_eq!(s.text, "just one line");
}

#[tokio::test(start_paused = true)]
async fn tool_12_started_after_the_tool_and_picked_up_later() {
    let client = ScriptedClient::new();
    client
        .push_delayed(Duration::from_millis(500), "first")
        .push_text("second");
    let summarizer = ToolSummarizer::new(Arc::new(client));
    let pending = PendingSummaries::new();
    summarizer.start(&pending, "call_1", "Bash", OUTPUT);
    summarizer.start(&pending, "call_2", "Bash", OUTPUT);
    assert_eq!(pending.len(), 2);
    assert_eq!(pending.take("call_2").await.unwrap().text, "second");
    assert_eq!(pending.take("call_1").await.unwrap().text, "first");
    assert!(pending.take("call_1").await.is_none());
    assert!(pending.is_empty());
}

#[test]
fn tool_12_outside_a_runtime_the_extract_is_ready() {
    let summarizer = ToolSummarizer::new(Arc::new(ScriptedClient::new()));
    let pending = PendingSummaries::new();
    summarizer.start(&pending, "c", "Bash", OUTPUT);
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let s = rt.block_on(pending.take("c")).unwrap();
    assert!(matches!(s.source, SummarySource::Extract { .. }));
}

/// CORE-7: `tool_summary_timeout` and `summary_model` reach the tool
/// summariser built from a configuration.
#[tokio::test(start_paused = true)]
async fn tool_12_summariser_from_config_takes_its_timeout_and_model() {
    let mut config = strata_ctx_core::Config::default();
    config.set("tool_summary_timeout", "20s").unwrap();
    config.set("summary_model", "small").unwrap();
    let client = ScriptedClient::new();
    // Later than the default 3 s, within the configured 20 s.
    client.push_delayed(Duration::from_secs(10), "two tests failed in the parser");
    let s = ToolSummarizer::from_config(Arc::new(client.clone()), &config)
        .summarize("Bash", OUTPUT)
        .await;
    assert_eq!(s.source, SummarySource::Llm);
    assert_eq!(s.text, "two tests failed in the parser");
    assert_eq!(client.requests()[0].options.model.as_deref(), Some("small"));

    let client = ScriptedClient::new();
    client.push_delayed(Duration::from_secs(10), "too late");
    let s = ToolSummarizer::from_config(Arc::new(client.clone()), &strata_ctx_core::Config::default())
        .summarize("Bash", OUTPUT)
        .await;
    assert_ne!(s.source, SummarySource::Llm, "the default 3 s limit holds");
    assert_eq!(client.requests()[0].options.model, None);
}

//! MODEL-6: the response cache, in memory and on disk.

// Test code: unwrapping and panicking are how it reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;
use strata_ctx_cache::{cache_key, cache_key_for, CacheEvent, CachedClient};
use strata_ctx_core::{
    Clock, Endpoint, LlmClient, LlmError, LlmOptions, LlmRequest, Message, Timestamp, ToolCall, ToolResult,
};
use strata_ctx_testkit::{strategy, ScriptedClient};

fn ask(text: &str) -> LlmRequest {
    LlmRequest::new(vec![Message::system("Be brief."), Message::user(text)])
}

fn stepping() -> Clock {
    // Each call to the clock is one minute later.
    Clock::stepping(
        Timestamp::from_unix_millis(1_795_000_000_000).unwrap(),
        Duration::from_secs(60),
    )
}

/// MODEL-6: two clients that share a cache directory keep their answers
/// apart when their models or endpoints differ, and share them when they
/// are the same endpoint.
#[tokio::test]
async fn model_6_clients_of_other_models_do_not_share_answers() {
    let dir = tempfile::tempdir().unwrap();
    let url = "https://api.example.com/v1/chat/completions";
    let client = |model: &str, answer: &str| {
        let scripted = ScriptedClient::new().with_endpoint(Endpoint::new("openai", url, model));
        scripted.push_text(answer);
        (
            scripted.clone(),
            CachedClient::new(scripted, Duration::from_secs(3_600)).on_disk(dir.path()),
        )
    };
    let (small_model, small) = client("small", "four (small)");
    let (large_model, large) = client("large", "four (large)");
    let (_, small_again) = client("small", "never asked");
    assert_eq!(small.complete(ask("2 + 2?")).await.unwrap().text, "four (small)");
    assert_eq!(large.complete(ask("2 + 2?")).await.unwrap().text, "four (large)");
    assert_eq!(
        small_again.complete(ask("2 + 2?")).await.unwrap().text,
        "four (small)",
        "the same endpoint and model share the answer"
    );
    assert_eq!(
        (small_model.requests().len(), large_model.requests().len()),
        (1, 1)
    );
    assert_eq!(small.endpoint().model.as_deref(), Some("small"), "forwarded");

    let other_url = Endpoint::new("openai", "http://127.0.0.1:8080/v1/chat/completions", "small");
    let other_provider = Endpoint::new("anthropic", url, "small");
    let keys = [
        cache_key_for(&Endpoint::new("openai", url, "small"), &ask("q")),
        cache_key_for(&other_url, &ask("q")),
        cache_key_for(&other_provider, &ask("q")),
        cache_key(&ask("q")),
    ];
    for (i, a) in keys.iter().enumerate() {
        for b in &keys[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

/// MODEL-6: the cache in memory is bounded: past its entries, answers
/// are evicted and asked again, and it never serves more than it holds.
#[tokio::test]
async fn model_6_memory_cache_is_bounded() {
    let model = ScriptedClient::from_fn(|request| {
        Ok(strata_ctx_core::LlmResponse::new(
            format!("answer to {}", request.messages.len()),
            strata_ctx_core::Usage::new(1, 1),
        ))
    });
    let cached = CachedClient::new(model.clone(), Duration::from_secs(3_600)).max_entries(4);
    let questions: Vec<String> = (0..40).map(|i| format!("question {i}")).collect();
    for q in &questions {
        cached.complete(ask(q)).await.unwrap();
    }
    for q in &questions {
        cached.complete(ask(q)).await.unwrap();
    }
    let stats = cached.stats();
    assert!(stats.hits <= 4, "{stats:?}");
    assert_eq!(stats.hits + stats.misses, 80);
    assert_eq!(model.requests().len() as u64, stats.misses);

    // Within the bound, every repeat is a hit.
    let roomy = CachedClient::new(model.clone(), Duration::from_secs(3_600)).max_entries(64);
    for q in questions.iter().chain(&questions) {
        roomy.complete(ask(q)).await.unwrap();
    }
    assert_eq!(roomy.stats().hits, 40);
}

#[tokio::test]
async fn model_6_repeated_requests_are_served_without_a_call() {
    let model = ScriptedClient::new();
    model.push_text("four").push_text("five");
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let cached = CachedClient::new(model.clone(), Duration::from_secs(3_600))
        .on_event(move |e| sink.lock().unwrap().push(e.clone()));
    assert_eq!(cached.complete(ask("2 + 2?")).await.unwrap().text, "four");
    // The same question with other ids and times is the same request.
    assert_eq!(cached.complete(ask("2 + 2?")).await.unwrap().text, "four");
    assert_eq!(cached.complete(ask("2 + 3?")).await.unwrap().text, "five");
    assert_eq!(model.requests().len(), 2);
    assert_eq!((cached.stats().hits, cached.stats().misses), (1, 2));
    let key = cache_key(&ask("2 + 2?"));
    assert_eq!(
        events.lock().unwrap()[..3],
        [
            CacheEvent::Miss { key: key.clone() },
            CacheEvent::Stored { key: key.clone() },
            CacheEvent::Hit { key }
        ]
    );
    // A streamed request is served from the cache too.
    let streamed = cached
        .stream(ask("2 + 3?"))
        .await
        .unwrap()
        .finish()
        .await
        .unwrap();
    assert_eq!(streamed.text, "five");
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn model_6_answers_expire_and_errors_are_never_stored() {
    let model = ScriptedClient::new();
    model
        .push_error(LlmError::RateLimited {
            retry_after: None,
            message: "slow down".into(),
        })
        .push_text("fresh")
        .push_text("fresher");
    // The clock is read when an answer is stored and when one is found.
    let cached = CachedClient::new(model.clone(), Duration::from_secs(100)).clock(stepping());
    assert!(cached.complete(ask("q")).await.is_err());
    // Stored at minute 0: the error was not.
    assert_eq!(cached.complete(ask("q")).await.unwrap().text, "fresh");
    assert_eq!(
        cached.complete(ask("q")).await.unwrap().text,
        "fresh",
        "60 s old: fresh"
    );
    assert_eq!(
        cached.complete(ask("q")).await.unwrap().text,
        "fresher",
        "120 s old: expired"
    );
    assert_eq!(model.requests().len(), 3);
}

#[tokio::test]
async fn model_6_disk_cache_outlives_the_client_and_survives_damage() {
    let dir = tempfile::tempdir().unwrap();
    let model = ScriptedClient::new();
    model.push_text("kept").push_text("again");
    let first = CachedClient::new(model.clone(), Duration::from_secs(3_600)).on_disk(dir.path().join("c"));
    assert_eq!(first.complete(ask("q")).await.unwrap().text, "kept");
    drop(first);
    let second = CachedClient::new(model.clone(), Duration::from_secs(3_600)).on_disk(dir.path().join("c"));
    assert_eq!(second.complete(ask("q")).await.unwrap().text, "kept");
    assert_eq!(model.requests().len(), 1, "served from disk by a new client");
    let file = dir
        .path()
        .join("c")
        .join(format!("{}.json", cache_key(&ask("q"))));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // A damaged entry is a miss, reported, and replaced.
    std::fs::write(&file, b"{ not json").unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let third = CachedClient::new(model.clone(), Duration::from_secs(3_600))
        .on_disk(dir.path().join("c"))
        .on_event(move |e| sink.lock().unwrap().push(e.clone()));
    assert_eq!(third.complete(ask("q")).await.unwrap().text, "again");
    assert!(matches!(events.lock().unwrap()[0], CacheEvent::Failed { .. }));
    assert_eq!(third.complete(ask("q")).await.unwrap().text, "again");
    assert_eq!(model.requests().len(), 2);
    // A symbolic link where an entry should be is never followed.
    #[cfg(unix)]
    {
        let target = dir.path().join("elsewhere.json");
        std::fs::copy(&file, &target).unwrap();
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&target, &file).unwrap();
        model.push_text("not from the link");
        assert_eq!(third.complete(ask("q")).await.unwrap().text, "not from the link");
    }
}

fn with_fresh_stamps(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .cloned()
        .map(|m| m.with_id(strata_ctx_core::MessageId::new()).with_created_at(None))
        .collect()
}

proptest! {
    /// Equal requests have equal keys whatever their ids and times; a
    /// request that differs in a message, a tool result or an option does
    /// not.
    #[test]
    fn model_6_keys_are_canonical(
        messages in proptest::collection::vec(strategy::message(), 1..6),
        extra in "[a-z]{1,12}",
    ) {
        let request = LlmRequest::new(messages.clone());
        prop_assert_eq!(cache_key(&request), cache_key(&LlmRequest::new(with_fresh_stamps(&messages))));
        let mut longer = messages.clone();
        longer.push(Message::user(extra.clone()));
        prop_assert_ne!(cache_key(&request), cache_key(&LlmRequest::new(longer)));
        let mut edited = messages.clone();
        edited[0].content = format!("{}{extra}", edited[0].content).into();
        prop_assert_ne!(cache_key(&request), cache_key(&LlmRequest::new(edited)));
        let other_model = LlmRequest::new(messages.clone()).with_options(LlmOptions::new().with_model(extra.clone()));
        prop_assert_ne!(cache_key(&request), cache_key(&other_model));
        let call = ToolCall::new("c1", "Read", json!({"path": extra}));
        let a = LlmRequest::new(vec![Message::tool_result(&call, ToolResult::success("x"))]);
        let b = LlmRequest::new(vec![Message::tool_result(&call, ToolResult::success("y"))]);
        prop_assert_ne!(cache_key(&a), cache_key(&b));
        // The time limit is not part of what is asked.
        let timed = LlmRequest::new(messages).with_options(LlmOptions::new().with_timeout(Duration::from_secs(9)));
        prop_assert_eq!(cache_key(&request), cache_key(&timed));
    }
}

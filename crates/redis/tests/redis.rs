//! STORE-5 on a real Redis server (`#[ignore]`d: `cargo test --
//! --include-ignored` runs them with `STRATA_TEST_REDIS_URL` naming one,
//! as `.ci/run` does when a server answers): a repeated request is
//! served from Redis without a model call, also to another client sharing
//! the cache; entries expire with the time to live; a cache that cannot
//! be reached is a miss, never a failure.

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
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use strata_ctx_cache::{CacheEvent, CacheStore, CachedClient};
use strata_ctx_core::{LlmClient, LlmRequest, Message};
use strata_ctx_redis::RedisCache;
use strata_ctx_testkit::ScriptedClient;

/// The server the tests run against. They are `#[ignore]`d: `cargo test
/// -- --include-ignored` runs them where `STRATA_TEST_REDIS_URL` names one
/// (`.ci/run` does), and they fail, rather than pass, without it.
fn url() -> String {
    match std::env::var("STRATA_TEST_REDIS_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!("STRATA_TEST_REDIS_URL must name a Redis server for this test"),
    }
}

/// One server test at a time: one of them closes every client connection
/// of the server, which would fail the others running beside it.
async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    SERIAL.lock().await
}

/// A question no other run asks.
fn question() -> LlmRequest {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    LlmRequest::new(vec![Message::user(format!("What is 2 + 2? ({nanos})"))])
}

#[tokio::test]
#[ignore = "needs a Redis server: set STRATA_TEST_REDIS_URL, run with --include-ignored"]
async fn store_5_answers_shared_through_redis() {
    let _serial = one_at_a_time().await;
    let url = url();
    let model = ScriptedClient::new();
    model.push_text("4");
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let cache = Arc::new(RedisCache::connect(&url).await.unwrap());
    let first = CachedClient::new(model.clone(), Duration::from_secs(60))
        .with_store(cache.clone())
        .on_event(move |e| seen.lock().unwrap().push(e.clone()));
    let ask = question();
    assert_eq!(first.complete(ask.clone()).await.unwrap().text, "4");
    assert_eq!(first.complete(ask.clone()).await.unwrap().text, "4");
    assert_eq!(model.calls(), 1, "the second answer came from Redis");
    // Another process's client over the same Redis.
    let other_cache = Arc::new(RedisCache::connect(&url).await.unwrap());
    let second = CachedClient::new(model.clone(), Duration::from_secs(60)).with_store(other_cache);
    assert_eq!(second.complete(ask.clone()).await.unwrap().text, "4");
    assert_eq!(model.calls(), 1, "shared between clients");
    let events = events.lock().unwrap();
    assert!(matches!(events[0], CacheEvent::Miss { .. }));
    assert!(events.iter().any(|e| matches!(e, CacheEvent::Stored { .. })));
    assert!(events.iter().any(|e| matches!(e, CacheEvent::Hit { .. })));
}

#[tokio::test]
#[ignore = "needs a Redis server: set STRATA_TEST_REDIS_URL, run with --include-ignored"]
async fn store_5_entries_expire_with_the_ttl() {
    let _serial = one_at_a_time().await;
    let url = url();
    let cache = RedisCache::connect(&url).await.unwrap();
    let key = format!(
        "ttl-{}",
        SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos()
    );
    cache.put(&key, b"x", Duration::from_millis(150)).await.unwrap();
    assert_eq!(cache.get(&key).await.unwrap().as_deref(), Some(&b"x"[..]));
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(cache.get(&key).await.unwrap(), None, "Redis dropped it");
}

#[tokio::test]
async fn store_5_unreachable_cache_is_a_miss() {
    assert!(RedisCache::connect("redis://127.0.0.1:1").await.is_err());
    // A cache whose server goes away after connecting: simulated by a
    // store that always fails; the client asks the model and reports it.
    struct Broken;
    #[async_trait::async_trait]
    impl CacheStore for Broken {
        fn describe(&self) -> String {
            "broken".into()
        }
        async fn get(&self, _: &str) -> Result<Option<Vec<u8>>, String> {
            Err("connection refused".into())
        }
        async fn put(&self, _: &str, _: &[u8], _: Duration) -> Result<(), String> {
            Err("connection refused".into())
        }
    }
    let model = ScriptedClient::new();
    model.push_text("4").push_text("4");
    let failed = Arc::new(Mutex::new(0));
    let count = Arc::clone(&failed);
    let client = CachedClient::new(model.clone(), Duration::from_secs(60))
        .with_store(Arc::new(Broken))
        .on_event(move |e| {
            if matches!(e, CacheEvent::Failed { .. }) {
                *count.lock().unwrap() += 1;
            }
        });
    let ask = question();
    assert_eq!(client.complete(ask.clone()).await.unwrap().text, "4");
    assert_eq!(client.complete(ask).await.unwrap().text, "4");
    assert_eq!(model.calls(), 2);
    assert_eq!(*failed.lock().unwrap(), 4, "each get and put reported");
}

/// The server closes every connection between two calls: the next call
/// connects again and succeeds.
#[tokio::test]
#[ignore = "needs a Redis server: set STRATA_TEST_REDIS_URL, run with --include-ignored"]
async fn store_5_connection_killed() {
    let _serial = one_at_a_time().await;
    let url = url();
    let cache = RedisCache::connect(&url).await.unwrap();
    let key = format!(
        "kill-{}",
        SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos()
    );
    cache.put(&key, b"y", Duration::from_secs(60)).await.unwrap();
    let killed = std::process::Command::new("redis-cli")
        .args(["-u", &url, "CLIENT", "KILL", "TYPE", "normal"])
        .output()
        .expect("redis-cli");
    assert!(killed.status.success());
    assert_eq!(cache.get(&key).await.unwrap().as_deref(), Some(&b"y"[..]));
}

//! The stores (STORE-4, STORE-5), each beside the others in the same run:
//! appending records and loading a conversation in the JSONL directory
//! and in PostgreSQL, and a cache hit in memory, on disk and in Redis.
//! PostgreSQL and Redis are measured when `STRATA_TEST_POSTGRES_URL` /
//! `STRATA_TEST_REDIS_URL` name servers.

// Bench code: unwrapping, panicking and printing are how it reports; the
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

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use strata_ctx::postgres::PgBackend;
use strata_ctx::redis::RedisCache;
use strata_ctx::store::{Backend, Record, Store};
use strata_ctx::{CachedClient, LlmClient, LlmRequest, Message, Usage};
use strata_ctx_testkit::ScriptedClient;

fn records(n: usize) -> Vec<Record> {
    (0..n)
        .map(|i| Record::User {
            message: Message::user(format!(
                "step {i}: {}",
                "the tool printed a line of output ".repeat(8)
            )),
        })
        .collect()
}

fn fresh() -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("bench-{}-{nanos}", std::process::id())
}

fn backends(dir: &std::path::Path) -> Vec<(&'static str, Box<dyn Backend>)> {
    let mut out: Vec<(&'static str, Box<dyn Backend>)> = vec![("jsonl", Box::new(Store::open(dir).unwrap()))];
    if let Ok(url) = std::env::var("STRATA_TEST_POSTGRES_URL") {
        out.push(("postgres", Box::new(PgBackend::connect(&url).unwrap())));
    }
    out
}

fn store(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let batch = records(10);
    let big = records(1_000);
    for (name, backend) in backends(dir.path()) {
        let ns = fresh();
        let mut log = backend.open(&ns, "append", true).unwrap();
        c.bench_function(&format!("store/append 10 records/{name}"), |b| {
            b.iter(|| log.append(&batch).unwrap())
        });
        drop(log);
        let mut log = backend.open(&ns, "load", true).unwrap();
        log.append(&big).unwrap();
        drop(log);
        c.bench_function(&format!("store/load 1,000 records/{name}"), |b| {
            b.iter(|| backend.load(&ns, "load").unwrap())
        });
    }
}

fn cache(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ask = LlmRequest::new(vec![Message::user("What is 2 + 2?")]);
    let answer = || {
        let model = ScriptedClient::new();
        model.set_fallback(|_| Ok(strata_ctx::LlmResponse::new("4", Usage::new(10, 1))));
        model
    };
    let ttl = Duration::from_secs(3600);
    let mut clients: Vec<(&str, CachedClient<ScriptedClient>)> = vec![
        ("memory", CachedClient::new(answer(), ttl)),
        ("disk", CachedClient::new(answer(), ttl).on_disk(dir.path())),
    ];
    if let Ok(url) = std::env::var("STRATA_TEST_REDIS_URL") {
        let redis = runtime.block_on(RedisCache::connect(&url)).unwrap();
        clients.push((
            "redis",
            CachedClient::new(answer(), ttl).with_store(Arc::new(redis)),
        ));
    }
    for (name, client) in &clients {
        runtime.block_on(client.complete(ask.clone())).unwrap();
        c.bench_function(&format!("cache/hit/{name}"), |b| {
            b.iter_batched(
                || ask.clone(),
                |r| runtime.block_on(client.complete(r)).unwrap(),
                BatchSize::SmallInput,
            )
        });
    }
}

criterion_group!(benches, store, cache);
criterion_main!(benches);

//! The path from a file to a window, phase by phase (PERF-1), each phase
//! beside its physical baseline on the same bytes in the same run:
//!
//! | phase | Strata | baseline |
//! |---|---|---|
//! | parse | `from_openai_slice` (messages with ids) | `serde_json::from_slice` into plain structs |
//! | count | `CharCounter::count_messages` | a `memchr` newline scan of the file |
//! | build | `History::from_messages` (repair, counts) | cloning the messages |
//! | plan | `History::plan` | — |
//! | render | `OpenAiMessages::write_json` to a buffer | `serde_json::to_writer` of the plain structs, and of Strata's own `Message` structs |
//!
//! The file is `STRATA_BENCH_FILE` when set (an OpenAI `messages` array or
//! an object with `messages`), a corpus transcript otherwise.

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

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde::{Deserialize, Serialize};
use strata_ctx::history::History;
use strata_ctx::prompt::OpenAiMessages;
use strata_ctx::{from_openai_slice, CharCounter, Config, TokenCounter};

mod common;
use common::bench_file;

/// An OpenAI message as plain structs: what a program that only reads and
/// writes the JSON would hold.
#[derive(Serialize, Deserialize)]
struct Plain {
    role: String,
    #[serde(default)]
    content: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<PlainCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct PlainCall {
    id: String,
    #[serde(rename = "type", default)]
    kind: String,
    function: PlainFunction,
}

#[derive(Serialize, Deserialize)]
struct PlainFunction {
    name: String,
    arguments: String,
}

/// A top-level array, or an object with `messages`.
#[derive(Deserialize)]
#[serde(untagged)]
enum PlainFile {
    List(Vec<Plain>),
    Object { messages: Vec<Plain> },
}

fn plain(bytes: &[u8]) -> Vec<Plain> {
    match serde_json::from_slice(bytes).unwrap() {
        PlainFile::List(m) | PlainFile::Object { messages: m } => m,
    }
}

fn path(c: &mut Criterion) {
    let bytes = bench_file("mini-swe-agent__deepseek_chat_test_1-100__django__django-13964.json");
    let messages = from_openai_slice(&bytes).expect("a plain OpenAI list");
    let plains = plain(&bytes);
    let counter: Arc<dyn TokenCounter> = Arc::new(CharCounter);
    let config = Config::default();
    let history = History::from_messages(config.clone(), counter.clone(), messages.clone()).0;

    let mut g = c.benchmark_group("path");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse/plain_structs_baseline", |b| {
        b.iter(|| plain(black_box(&bytes)))
    });
    g.bench_function("parse/strata", |b| {
        b.iter(|| from_openai_slice(black_box(&bytes)).unwrap())
    });
    g.bench_function("count/memchr_newlines_baseline", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(&bytes)).count())
    });
    g.bench_function("count/strata", |b| {
        b.iter(|| counter.count_messages(black_box(&messages)))
    });
    g.bench_function("build/clone_baseline", |b| {
        b.iter(|| black_box(&messages).clone())
    });
    g.bench_function("build/strata", |b| {
        b.iter_batched(
            || messages.clone(),
            |m| History::from_messages(config.clone(), counter.clone(), m),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("plan/strata", |b| b.iter(|| black_box(&history).plan()));
    let mut out = Vec::with_capacity(bytes.len() * 2);
    g.bench_function("render/plain_structs_baseline", |b| {
        b.iter(|| {
            out.clear();
            serde_json::to_writer(&mut out, black_box(&plains)).unwrap();
        })
    });
    g.bench_function("render/message_structs_baseline", |b| {
        b.iter(|| {
            out.clear();
            serde_json::to_writer(&mut out, black_box(&messages)).unwrap();
        })
    });
    g.bench_function("render/strata", |b| {
        b.iter(|| {
            out.clear();
            OpenAiMessages(black_box(&messages)).write_json(&mut out).unwrap();
        })
    });
    g.finish();
}

criterion_group!(benches, path);
criterion_main!(benches);

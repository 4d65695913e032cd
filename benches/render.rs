//! Rendering a window as OpenAI messages (CTX-4): through a `Value`
//! tree, and straight from the borrowed messages (`OpenAiMessages`),
//! beside `serde_json::to_string` of the same messages' own typed structs
//! in the same run.
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

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::Value;
use strata_ctx::prompt::{openai_messages, OpenAiMessages};
use strata_ctx::{from_openai_messages, Message};

mod common;
use common::{bench_file, messages_of};

fn messages() -> Vec<Message> {
    let bytes = bench_file("mini-swe-agent__deepseek_chat_test_1-100__django__django-13964.json");
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    from_openai_messages(messages_of(&value)).unwrap()
}

fn render(c: &mut Criterion) {
    let messages = messages();
    let mut g = c.benchmark_group("render");
    g.bench_function("typed_structs_baseline", |b| {
        b.iter(|| serde_json::to_string(black_box(&messages)).unwrap())
    });
    g.bench_function("value_tree", |b| {
        b.iter(|| serde_json::to_string(&openai_messages(black_box(&messages))).unwrap())
    });
    g.bench_function("borrowed", |b| {
        b.iter(|| serde_json::to_string(&OpenAiMessages(black_box(&messages))).unwrap())
    });
    g.finish();
}

criterion_group!(benches, render);
criterion_main!(benches);

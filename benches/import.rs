//! Reading a conversation file (for `strata-ctx bench`, PERF-1): the JSON parse against the
//! conversion into messages, and the imported message ids against ids
//! hashed over whole contents (how they were derived before), on the same
//! messages in the same run.
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

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;
use strata_ctx::{from_openai_messages, MessageId};

mod common;
use common::{bench_file, messages_of};

fn import(c: &mut Criterion) {
    let bytes = bench_file("openhands__django__django-11099.json");
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    let list = messages_of(&value);
    let messages = from_openai_messages(list).unwrap();
    let mut g = c.benchmark_group("import");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse_json_baseline", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&bytes)).unwrap())
    });
    g.bench_function("convert", |b| {
        b.iter(|| from_openai_messages(black_box(list)).unwrap())
    });
    g.bench_function("ids_whole_content_baseline", |b| {
        b.iter(|| {
            for (i, m) in messages.iter().enumerate() {
                black_box(MessageId::derived(&format!(
                    "openai\u{0}{i}\u{0}{}\u{0}{}",
                    m.role.as_str(),
                    m.content
                )));
            }
        })
    });
    g.bench_function("ids_imported", |b| {
        b.iter(|| {
            for (i, m) in messages.iter().enumerate() {
                black_box(MessageId::imported("openai", i, m.role.as_str(), &m.content));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, import);
criterion_main!(benches);

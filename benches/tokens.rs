//! Token counting over a real transcript (CORE-5).
//!
//! `count/*` measures throughput over the transcript's bytes against a
//! plain memchr newline scan of the same bytes, for the default counter and
//! OpenAI's o200k_base tokenizer (cold and cached); `step/*` compares the
//! per-step cost of an incremental tally with recounting the history.

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

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use strata_ctx::types::{CachedCounter, TokenTally};
use strata_ctx::{CharCounter, Message, TokenCounter};
use strata_ctx_testkit::load_transcript;
use strata_ctx_tiktoken::{Encoding, TiktokenCounter};

fn history() -> Vec<Message> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/corpus/mini-swe-agent__deepseek_reasoner_dev__pvlib__pvlib-python-1072.json"
    );
    match load_transcript(path) {
        Ok(t) => t.messages,
        Err(e) => panic!("cannot load the bench transcript: {e}"),
    }
}

fn count(c: &mut Criterion) {
    let messages = history();
    let bytes: String = messages.iter().map(|m| m.text().into_owned()).collect();
    let mut group = c.benchmark_group("count");
    group
        .sample_size(20)
        .throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("memchr_newlines_baseline", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(bytes.as_bytes())).count())
    });
    group.bench_function("char_counter", |b| {
        b.iter(|| CharCounter.count_messages(black_box(&messages)))
    });
    let cached = CachedCounter::new(CharCounter);
    cached.count_messages(&messages);
    group.bench_function("cached_counter_warm", |b| {
        b.iter(|| cached.count_messages(black_box(&messages)))
    });
    // EDGE-2: exact counts with OpenAI's tokenizer, cold (every message
    // encoded) and through the per-message cache (what the engine pays for
    // messages that stay in the window).
    let exact = match TiktokenCounter::new(Encoding::O200kBase) {
        Ok(counter) => counter,
        Err(e) => panic!("cannot build the o200k_base tokenizer: {e}"),
    };
    group.bench_function("tiktoken_o200k", |b| {
        b.iter(|| exact.count_messages(black_box(&messages)))
    });
    let exact_cached = CachedCounter::new(exact);
    exact_cached.count_messages(&messages);
    group.bench_function("tiktoken_o200k_cached_warm", |b| {
        b.iter(|| exact_cached.count_messages(black_box(&messages)))
    });
    group.finish();
}

fn step(c: &mut Criterion) {
    let messages = history();
    let (last, earlier) = match messages.split_last() {
        Some(split) => split,
        None => panic!("empty transcript"),
    };
    let tally = TokenTally::from_messages(&CharCounter, earlier);
    let mut group = c.benchmark_group("step");
    group.sample_size(20);
    group.bench_function("tally_push", |b| {
        b.iter_batched_ref(
            || tally.clone(),
            |t| t.push(&CharCounter, black_box(last)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("full_recount", |b| {
        b.iter(|| CharCounter.count_messages(black_box(&messages)))
    });
    group.finish();
}

criterion_group!(benches, count, step);
criterion_main!(benches);

//! The compaction trigger and plan over a 2,000-message, ~1.5 M-character
//! history (HIST-3, HIST-4): cold (load and count everything, check the
//! trigger, plan) and incremental (record one step, check the trigger).
//!
//! The data is built deterministically: a system prompt, then rounds of
//! user → (assistant with 1–2 tool calls → their results)* → final answer,
//! tool results of 2–20 KB skewed small. "Cold" is measured twice: from
//! loading the messages (repair and counting every message included) and on
//! a loaded history that has not planned before. The baseline in each group is a
//! plain memchr newline count over the same characters.

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

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use serde_json::json;
use strata_ctx::types::TokenAmount;
use strata_ctx::{CharCounter, Config, History, Message, ToolCall};

/// xorshift64*, seeded.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn output(len: usize, seed: u64) -> String {
    let mut s = String::with_capacity(len + 80);
    let mut i = seed;
    while s.len() < len {
        i += 1;
        s.push_str(&format!(
            "src/module_{}/file.rs:{}: let value = compute(input, {});\n",
            i % 37,
            i % 997,
            i
        ));
    }
    s.truncate(len);
    s
}

fn session() -> Vec<Message> {
    let mut rng = Rng(0x5eed);
    let mut m = vec![Message::system("You are a coding agent.")];
    let mut n = 0;
    while m.len() < 2_000 {
        n += 1;
        m.push(Message::user(format!(
            "Request {n}: please look into issue #{n} and fix it."
        )));
        let steps = usize::from(rng.next() % 10 < 3);
        for s in 0..steps {
            let calls: Vec<ToolCall> = (0..1 + rng.next() % 2)
                .map(|c| {
                    ToolCall::new(
                        format!("call_{n}_{s}_{c}"),
                        "bash",
                        json!({"command": format!("grep -rn item_{n} src")}),
                    )
                })
                .collect();
            m.push(Message::assistant_with_calls("Let me check.", calls.clone()));
            for call in &calls {
                let size = 2_000 + (rng.unit().powi(6) * 18_000.0) as usize;
                m.push(Message::tool_text(&call.id, "bash", output(size, rng.next())));
            }
        }
        m.push(Message::assistant(format!("Fixed issue #{n}.")));
    }
    m.truncate(2_000);
    m
}

fn config() -> Config {
    match Config::builder()
        .context_window(TokenAmount::Tokens(200_000))
        .build()
    {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    }
}

fn bench(c: &mut Criterion) {
    let messages = session();
    let chars: usize = messages.iter().map(|m| m.text().chars().count()).sum();
    let text: String = messages.iter().map(|m| m.text().into_owned()).collect();
    eprintln!("bench history: {} messages, {} characters", messages.len(), chars);

    let mut group = c.benchmark_group("compaction/cold");
    group.sample_size(20);
    group.bench_function("memchr_newlines_baseline", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(text.as_bytes())).count())
    });
    group.bench_function("load_trigger_plan", |b| {
        b.iter_batched(
            || messages.clone(),
            |messages| {
                let (h, _) = History::from_messages(config(), Arc::new(CharCounter), messages);
                (h.needs_compaction(), h.plan())
            },
            BatchSize::LargeInput,
        )
    });
    let (loaded, _) = History::from_messages(config(), Arc::new(CharCounter), messages.clone());
    group.bench_function("trigger_plan_loaded", |b| {
        b.iter(|| (loaded.needs_compaction(), loaded.plan()))
    });
    group.finish();

    let mut group = c.benchmark_group("compaction/incremental");
    group.sample_size(20);
    let call = ToolCall::new("call_new", "bash", json!({"command": "cargo test"}));
    let step = Message::assistant_with_calls("Run the tests.", vec![call.clone()]);
    let result = Message::tool_text("call_new", "bash", output(4_000, 7));
    group.bench_function("record_step_and_check", |b| {
        b.iter_batched(
            || {
                // A clone has no spare capacity; a live history has.
                let mut h = loaded.clone();
                h.reserve(16);
                h
            },
            |mut h| {
                h.record_step(step.clone(), vec![result.clone()]);
                let due = h.needs_compaction();
                // Returned, so that dropping the history is not timed.
                (h, due)
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("check_only", |b| b.iter(|| black_box(&loaded).needs_compaction()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

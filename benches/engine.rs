//! The turn engine over a real session: the mini-SWE-agent transcript of
//! `tests/data/corpus/` with 164 `bash` steps in one long round, replayed
//! step by step through `Engine` (truncation, history form, the in-round
//! budget of REACT-5, a window built after every step) with a 32k window,
//! and with a 16k window, where most of the round leaves the window into
//! the progress digest (REACT-6).
//!
//! The baseline is serialising the same messages to JSON once per step
//! (what sending each window as a request body costs at least); the figure
//! to read is the ratio of the two.

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

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use strata_ctx::prompt::ChatWriter;
use strata_ctx::replay::{turns, Turn};
use strata_ctx::{Config, Engine, Message};
use strata_ctx_testkit::load_transcript;

const TRANSCRIPT: &str =
    "tests/data/corpus/mini-swe-agent__deepseek_chat_test_1-100__django__django-13964.json";

fn messages() -> Vec<Message> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(TRANSCRIPT);
    load_transcript(path).map(|t| t.messages).unwrap_or_default()
}

/// Replays every step (as `strata-ctx replay` reads a transcript), building
/// the window after each; returns the number of windows built.
fn replay(messages: &[Message], root: &std::path::Path, window: usize) -> usize {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let config = Config::from_toml_str(&format!("context_window = {window}")).unwrap();
    let mut engine = Engine::builder(root).config(config).build().unwrap();
    let mut windows = 0;
    for turn in turns(messages) {
        if let Turn::Step(assistant, results) = turn {
            let results = results.into_iter().cloned().collect();
            rt.block_on(engine.record_step(assistant.clone(), results))
                .unwrap();
            black_box(engine.window());
            windows += 1;
        } else {
            play(&mut engine, turn, &rt);
        }
    }
    windows
}

/// A turn that is not a step: a round begins (ending an open one) or ends.
fn play(engine: &mut Engine, turn: Turn<'_>, rt: &tokio::runtime::Runtime) {
    match turn {
        Turn::Begin(user) => {
            if engine.round_open() {
                engine.finish_round("").unwrap();
            }
            rt.block_on(engine.begin_round(&user.content)).unwrap();
        }
        Turn::Finish(answer) => engine.finish_round(answer.content.clone()).unwrap(),
        _ => {}
    }
}

fn bench(c: &mut Criterion) {
    let messages = messages();
    let project = tempfile::tempdir().unwrap();
    let steps = replay(&messages, project.path(), 32_000);
    let mut group = c.benchmark_group(format!("engine replay, {steps} steps"));
    group.sample_size(10);
    group.bench_function("baseline: serialise the transcript once per step", |b| {
        b.iter(|| {
            for _ in 0..steps {
                black_box(serde_json::to_vec(&messages).unwrap());
            }
        })
    });
    for window in [32_000, 16_000] {
        group.bench_function(
            format!("engine at {window}: record each step and build its window"),
            |b| {
                b.iter_batched(
                    || tempfile::tempdir().unwrap(),
                    |dir| black_box(replay(&messages, dir.path(), window)),
                    BatchSize::PerIteration,
                )
            },
        );
    }
    group.finish();
}

/// `steps` steps of the transcript's round, cycled, with fresh call ids:
/// one round as long as asked.
fn long_round(messages: &[Message], steps: usize) -> Vec<Message> {
    let mut source = Vec::new();
    let mut user = None;
    for turn in turns(messages) {
        match turn {
            Turn::Begin(m) if user.is_none() => user = Some(m.clone()),
            Turn::Step(a, r) => source.push((a.clone(), r.into_iter().cloned().collect::<Vec<_>>())),
            _ => {}
        }
    }
    let mut out: Vec<Message> = user.into_iter().collect();
    for k in 0..steps {
        let Some((a, results)) = source.get(k % source.len().max(1)) else {
            break;
        };
        let mut a = a.clone();
        for call in &mut a.tool_calls {
            call.id = format!("{}-{k}", call.id);
        }
        out.push(a);
        for r in results {
            let mut r = r.clone();
            r.tool_call_id = r.tool_call_id.map(|id| format!("{id}-{k}"));
            out.push(r);
        }
    }
    out
}

/// REL-3: recording step N costs what step N holds, not what came before:
/// one round of 1,000, 4,000 and 16,000 steps replayed at a 16k window
/// (throughput in steps per second should stay flat).
fn bench_linear(c: &mut Criterion) {
    let messages = messages();
    let mut group = c.benchmark_group("one-round replay at 16k");
    group.sample_size(10);
    for steps in [1_000, 4_000, 16_000] {
        let round = long_round(&messages, steps);
        group.throughput(criterion::Throughput::Elements(steps as u64));
        group.bench_function(format!("{steps} steps"), |b| {
            b.iter_batched(
                || tempfile::tempdir().unwrap(),
                |dir| black_box(replay(&round, dir.path(), 16_000)),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// An engine at `window` tokens that replayed the transcript up to its
/// `step`-th step, and that step, not recorded yet.
fn engine_before(
    messages: &[Message],
    root: &std::path::Path,
    window: usize,
    step: usize,
    rt: &tokio::runtime::Runtime,
) -> (Engine, Message, Vec<Message>) {
    let config = Config::from_toml_str(&format!("context_window = {window}")).unwrap();
    let mut engine = Engine::builder(root).config(config).build().unwrap();
    let mut steps = 0;
    for turn in turns(messages) {
        if let Turn::Step(assistant, results) = turn {
            let results: Vec<Message> = results.into_iter().cloned().collect();
            if steps == step {
                return (engine, assistant.clone(), results);
            }
            rt.block_on(engine.record_step(assistant.clone(), results))
                .unwrap();
            steps += 1;
        } else {
            play(&mut engine, turn, rt);
        }
    }
    panic!("the transcript has fewer than {step} steps");
}

/// #32.4: one agent step at 32k, late in the round (the window near its
/// threshold): recording the step, then building, counting and rendering
/// the window as the chat API's JSON (with the agent's [`ChatWriter`],
/// which renders what the step added), beside serialising the same
/// window's messages with `serde_json` into a `Vec<u8>` (the goal: at most
/// twice that).
fn bench_step(c: &mut Criterion) {
    let messages = messages();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let project = tempfile::tempdir().unwrap();
    let (mut engine, assistant, results) = engine_before(&messages, project.path(), 32_000, 120, &rt);
    rt.block_on(engine.record_step(assistant, results)).unwrap();
    let window = engine.window().messages();
    let mut group = c.benchmark_group("one agent step at 32k");
    group.bench_function("baseline: serde_json of the window into a Vec<u8>", |b| {
        b.iter(|| black_box(serde_json::to_vec(&window).unwrap()))
    });
    group.bench_function("record, build, count and render the window", |b| {
        b.iter_batched(
            || {
                let dir = tempfile::tempdir().unwrap();
                let (mut engine, assistant, results) = engine_before(&messages, dir.path(), 32_000, 120, &rt);
                // The agent's writer has written the window before.
                let mut writer = ChatWriter::new();
                writer.write(&engine.window().context);
                (dir, engine, assistant, results, writer)
            },
            |(dir, mut engine, assistant, results, mut writer)| {
                rt.block_on(engine.record_step(assistant, results)).unwrap();
                black_box(writer.write(&engine.window().context).len());
                (dir, engine, writer)
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench, bench_linear, bench_step);
criterion_main!(benches);

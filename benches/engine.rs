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

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use strata::replay::{turns, Turn};
use strata::{Config, Engine, Message};
use strata_testkit::load_transcript;

const TRANSCRIPT: &str =
    "tests/data/corpus/mini-swe-agent__deepseek_chat_test_1-100__django__django-13964.json";

fn messages() -> Vec<Message> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(TRANSCRIPT);
    load_transcript(path).map(|t| t.messages).unwrap_or_default()
}

/// Replays every step (as `strata replay` reads a transcript), building
/// the window after each; returns the number of windows built.
fn replay(messages: &[Message], root: &std::path::Path, window: usize) -> usize {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let config = Config::from_toml_str(&format!("context_window = {window}")).unwrap();
        let mut engine = Engine::builder(root).config(config).build().unwrap();
        let mut windows = 0;
        for turn in turns(messages) {
            match turn {
                Turn::Begin(user) => {
                    if engine.round_open() {
                        engine.finish_round("").unwrap();
                    }
                    engine.begin_round(&user.content).await.unwrap();
                }
                Turn::Step(assistant, results) => {
                    let results = results.into_iter().cloned().collect();
                    engine.record_step(assistant.clone(), results).await.unwrap();
                    black_box(engine.window());
                    windows += 1;
                }
                Turn::Finish(answer) => engine.finish_round(answer.content.clone()).unwrap(),
                _ => {}
            }
        }
        windows
    })
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

criterion_group!(benches, bench);
criterion_main!(benches);

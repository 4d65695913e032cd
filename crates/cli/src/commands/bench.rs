//! `strata-ctx bench`: what Strata costs on the user's own transcripts,
//! phase by phase (PERF-1).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Value};
use strata_ctx::history::History;
use strata_ctx::prompt::{ChatWriter, OpenAiMessages};
use strata_ctx::replay::replay;
use strata_ctx::{Engine, Message, NoSummarizer, TokenCounter};

use super::{out, out_json_pretty};
use crate::error::CliError;
use crate::input::read_bytes;
use crate::parse::parse;
use crate::BudgetArgs;

/// Arguments of `strata-ctx bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The conversations to measure (any format the other commands read).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    budget: BudgetArgs,
    /// How many times each phase runs; the median is shown.
    #[arg(long, value_name = "N", default_value_t = 5)]
    runs: usize,
    /// One JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

/// The phases of the path from a file to a window.
const PHASES: [&str; 7] = ["read", "parse", "count", "build", "plan", "compact", "render"];

/// The median of `times` (at least one).
fn middle(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// The median time of `runs` runs of `f` (at least one), and its last
/// result. Each run's result is dropped before the next run starts, out
/// of the timer: a run costs what one call costs a program, not the
/// freeing of the run before it or a second copy held beside it.
fn median<T>(runs: usize, mut f: impl FnMut() -> Result<T, CliError>) -> Result<(Duration, T), CliError> {
    let mut times = Vec::with_capacity(runs);
    let start = Instant::now();
    let mut last = f()?;
    times.push(start.elapsed());
    for _ in 1..runs {
        drop(last);
        let start = Instant::now();
        last = f()?;
        times.push(start.elapsed());
    }
    Ok((middle(times), last))
}

/// The process's peak resident memory in bytes, where the system tells it
/// (Linux's `VmHWM`).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// What one file measured: its size, its messages, the median time of
/// every phase, and the agent steps replayed with their median time each.
struct Measured {
    bytes: usize,
    messages: usize,
    phases: [Duration; 7],
    steps: usize,
    per_step: Duration,
}

/// The median time of one agent step: the transcript replayed through an
/// engine at the budget's window, each step recorded, its window built,
/// counted and rendered as the chat API's messages (what an agent does
/// before each call), divided by the steps.
async fn per_step(
    messages: &[Message],
    args: &BenchArgs,
    counter: &Arc<dyn TokenCounter>,
) -> Result<(usize, Duration), CliError> {
    let mut times = Vec::new();
    let mut steps = 0;
    for _ in 0..args.runs.max(1) {
        let project = tempfile::tempdir()
            .map_err(|e| CliError::Runtime(format!("cannot create a scratch directory: {e}")))?;
        let mut engine = Engine::builder(project.path())
            .config(args.budget.config()?)
            .counter(counter.clone())
            .build()?;
        // What an agent keeps across its steps: the chat body's writer.
        let mut writer = ChatWriter::new();
        let start = Instant::now();
        let summary = replay(&mut engine, messages, |_, window| {
            std::hint::black_box(writer.write(&window.context).len());
        })
        .await?;
        times.push(start.elapsed());
        steps = summary.steps;
    }
    let each = middle(times) / u32::try_from(steps.max(1)).unwrap_or(u32::MAX);
    Ok((steps, each))
}

/// The times of every phase for one file.
async fn measure(
    path: &Path,
    args: &BenchArgs,
    counter: &Arc<dyn TokenCounter>,
) -> Result<Measured, CliError> {
    let config = args.budget.config()?;
    let runs = args.runs.max(1);
    let (read, (source, bytes)) = median(runs, || read_bytes(Some(path)))?;
    let (parse_time, messages) = median(runs, || {
        parse(&bytes)
            .map(|(_, m)| m)
            .map_err(|why| CliError::Input(format!("{source}: {why}")))
    })?;
    let (count, _) = median(runs, || Ok(counter.count_messages(&messages)))?;
    let build = |messages: Vec<Message>| History::from_messages(config.clone(), counter.clone(), messages).0;
    // The copy each run builds from is made outside the timer.
    let timed_build = || {
        let copy = messages.clone();
        let start = Instant::now();
        let history = build(copy);
        (start.elapsed(), history)
    };
    let (first, mut history) = timed_build();
    let mut build_times = vec![first];
    for _ in 1..runs {
        let (time, built) = timed_build();
        build_times.push(time);
        history = built;
    }
    let build_time = middle(build_times);
    let (plan, _) = median(runs, || Ok(history.plan()))?;
    let mut compact_times = Vec::with_capacity(runs);
    let mut window = Vec::new();
    for _ in 0..runs {
        let mut copy = history.clone();
        let start = Instant::now();
        copy.compact(&NoSummarizer).await;
        compact_times.push(start.elapsed());
        window = copy.window().into_owned();
    }
    let compact = middle(compact_times);
    let mut rendered = Vec::new();
    let (render, _) = median(runs, || {
        rendered.clear();
        OpenAiMessages(&window)
            .write_json(&mut rendered)
            .map_err(|e| CliError::Runtime(e.to_string()))
    })?;
    let (steps, per_step) = per_step(&messages, args, counter).await?;
    Ok(Measured {
        bytes: bytes.len(),
        messages: messages.len(),
        phases: [read, parse_time, count, build_time, plan, compact, render],
        steps,
        per_step,
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000.0
}

/// Runs `strata-ctx bench`.
pub async fn run(args: &BenchArgs, counter: Arc<dyn TokenCounter>) -> Result<(), CliError> {
    let mut rows = Vec::new();
    for path in &args.files {
        rows.push((path.display().to_string(), measure(path, args, &counter).await?));
    }
    let peak = peak_memory();
    if args.json {
        let files: Vec<Value> = rows
            .iter()
            .map(|(file, m)| {
                let phases: serde_json::Map<String, Value> = PHASES
                    .iter()
                    .zip(&m.phases)
                    .map(|(name, d)| ((*name).to_owned(), json!(ms(*d))))
                    .collect();
                json!({"file": file, "bytes": m.bytes, "messages": m.messages, "ms": phases,
                       "steps": m.steps, "us_per_step": m.per_step.as_secs_f64() * 1e6})
            })
            .collect();
        return out_json_pretty(&json!({"runs": args.runs, "files": files, "peak_memory_bytes": peak}));
    }
    let mut text = format!(
        "median of {} runs, in milliseconds\n{:<40} {:>10} {:>8}",
        args.runs.max(1),
        "file",
        "bytes",
        "messages"
    );
    for name in PHASES {
        text.push_str(&format!(" {name:>8}"));
    }
    text.push_str(&format!(" {:>6} {:>8}\n", "steps", "µs/step"));
    for (file, m) in &rows {
        let name = Path::new(file)
            .file_name()
            .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
        let name: String = name.chars().take(40).collect();
        text.push_str(&format!("{name:<40} {:>10} {:>8}", m.bytes, m.messages));
        for d in &m.phases {
            text.push_str(&format!(" {:>8.3}", ms(*d)));
        }
        text.push_str(&format!(
            " {:>6} {:>8.1}\n",
            m.steps,
            m.per_step.as_secs_f64() * 1e6
        ));
    }
    text.push_str("a step: recording it, building, counting and rendering the window after it\n");
    match (peak, rows.iter().map(|r| r.1.bytes).max()) {
        (Some(peak), Some(largest)) => text.push_str(&format!(
            "peak memory: {:.1} MiB ({:.1}× the largest file)\n",
            peak as f64 / (1024.0 * 1024.0),
            peak as f64 / largest.max(1) as f64
        )),
        _ => text.push_str("peak memory: not known on this system\n"),
    }
    out(&text)
}

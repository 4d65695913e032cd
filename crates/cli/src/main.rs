//! `strata-ctx`: Strata's context engineering on the command line (EDGE-3).
//!
//! Inspect a recorded agent conversation, compact it, see a tool output's
//! cut and history form, render a window for a provider, or replay a
//! transcript through the turn engine. `strata-ctx demo` shows a whole agent
//! session offline. See `docs/cli.md` for every command and its `--json`
//! output.
//!
//! Exit codes: 0 success, 1 the work failed, 2 bad usage or bad input (the
//! message names the line or field).

// A command: printing is its job, and its items are public to its own
// modules only.
#![allow(clippy::print_stdout, clippy::print_stderr, unreachable_pub)]

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand, ValueEnum};
use strata_ctx::tiktoken::{Encoding, TiktokenCounter};
use strata_ctx::{CharCounter, TokenCounter};

mod commands;
mod error;
mod input;
mod parse;
mod progress;

use error::CliError;

/// Context engineering for LLM agents: inspect, compact, render and replay
/// agent conversations.
///
/// Conversations are read from FILE or stdin, as Strata JSONL, an OpenAI
/// chat-completions `messages` array (JSON or JSONL), or an object with a
/// `messages` field.
#[derive(Debug, Parser)]
#[command(name = "strata-ctx", version, about, long_about = None, max_term_width = 100)]
struct Cli {
    /// How tokens are counted: `chars` (one per three characters, fast and
    /// slightly high), or OpenAI's `o200k` / `cl100k` tokenizers (exact).
    #[arg(long, global = true, value_enum, default_value_t = Tokenizer::Chars)]
    tokenizer: Tokenizer,

    /// The largest conversation a command reads whole, in bytes; a larger
    /// or endless input stops there with an error.
    #[arg(long, global = true, value_name = "BYTES", default_value_t = input::DEFAULT_MAX_INPUT_BYTES)]
    max_input: u64,

    /// A conversation store (a directory, or a PostgreSQL URL
    /// `postgres://…`): commands that read a conversation then take
    /// `NAMESPACE/NAME` in it instead of a file; `store` works on it.
    #[arg(long, global = true, value_name = "DIR|URL")]
    store: Option<String>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Tokenizer {
    Chars,
    O200k,
    Cl100k,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Messages, rounds, tokens per round and per role, the tool-output
    /// share and pairing problems of a conversation.
    Inspect(commands::inspect::InspectArgs),
    /// A user's long-term memory: list, add, forget or search its facts.
    Memory(commands::memory::MemoryArgs),
    /// Conversations between stores (a directory, PostgreSQL): list,
    /// import, export byte for byte, migrate.
    Store(commands::store::StoreArgs),
    /// Compacts a conversation: old rounds archived into a summary, tool
    /// results cleared, on round boundaries; the window goes to stdout as
    /// Strata JSONL, the statistics to stderr.
    Compact(commands::compact::CompactArgs),
    /// A tool result envelope (JSON) in, its history form out.
    Compress(commands::compress::CompressArgs),
    /// A tool's raw output in, what the model sees of it out (cut on line
    /// boundaries, the full text saved to a spill file).
    Truncate(commands::truncate::TruncateArgs),
    /// A user message with the read reminder of its @file mentions.
    Mention(commands::mention::MentionArgs),
    /// A conversation as the model would receive it: ReAct text, OpenAI or
    /// Anthropic JSON.
    Render(commands::render::RenderArgs),
    /// Feeds a recorded transcript through the turn engine step by step and
    /// reports the window at every step.
    Replay(commands::replay::ReplayArgs),
    /// Measures a directory of transcripts: working facts left in the final
    /// window at each context window (beside newest-first trimming), and
    /// the diagnostic lines and size of command outputs in history form
    /// (beside head and head+tail cuts).
    Eval(commands::eval::EvalArgs),
    /// A scripted agent session over a sample project, offline: @file
    /// reminders, a truncation, the stale-read note, compactions.
    Demo(commands::demo::DemoArgs),
    /// What Strata costs on your transcripts: the median time of each phase
    /// from file to window (read, parse, count, build, plan, compact, render) and
    /// the peak memory.
    Bench(commands::bench::BenchArgs),
}

/// The options that decide a window's budget, shared by `compact` and
/// `replay`.
#[derive(Debug, Clone, Args)]
pub struct BudgetArgs {
    /// The model's context window in tokens (`20000`, `128k`).
    #[arg(long, value_name = "N")]
    window: Option<String>,
    /// The share of the window at which compaction starts (`0.8`).
    #[arg(long, value_name = "F")]
    threshold: Option<String>,
    /// The most recent rounds always kept in full.
    #[arg(long = "keep-rounds", value_name = "N")]
    keep_rounds: Option<usize>,
}

impl BudgetArgs {
    /// A configuration with these options applied to the defaults.
    pub fn config(&self) -> Result<strata_ctx::Config, CliError> {
        let mut config = strata_ctx::Config::default();
        let mut set = |flag: &str, field: &str, value: &str| {
            config
                .set(field, value)
                .map_err(|e| CliError::Input(format!("{flag} {value}: {}", reason(&e))))
        };
        if let Some(v) = &self.window {
            set("--window", "context_window", v)?;
        }
        if let Some(v) = &self.threshold {
            set("--threshold", "compact_threshold", v)?;
        }
        if let Some(n) = self.keep_rounds {
            set("--keep-rounds", "min_retain_rounds", &n.to_string())?;
        }
        config
            .validate()
            .map_err(|e| CliError::Input(format!("the options do not fit together: {}", reason(&e))))?;
        Ok(config)
    }
}

/// The part of a configuration error after the field's name.
fn reason(e: &strata_ctx::types::Error) -> String {
    match e {
        strata_ctx::types::Error::InvalidConfig { reason, .. } => reason.clone(),
        other => other.to_string(),
    }
}

fn counter(tokenizer: Tokenizer) -> Result<Arc<dyn TokenCounter>, CliError> {
    let encoding = match tokenizer {
        Tokenizer::Chars => return Ok(Arc::new(CharCounter)),
        Tokenizer::O200k => Encoding::O200kBase,
        Tokenizer::Cl100k => Encoding::Cl100kBase,
    };
    let counter = TiktokenCounter::cached(encoding).map_err(|e| CliError::Runtime(e.to_string()))?;
    Ok(Arc::new(counter))
}

fn run(cli: Cli) -> Result<(), CliError> {
    input::set_max_input_bytes(cli.max_input);
    input::set_store(cli.store.clone());
    let counter = counter(cli.tokenizer)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Runtime(format!("cannot start the async runtime: {e}")))?;
    match cli.command {
        Command::Inspect(args) => commands::inspect::run(&args, &*counter),
        Command::Compact(args) => runtime.block_on(commands::compact::run(&args, counter)),
        Command::Compress(args) => commands::compress::run(&args),
        Command::Truncate(args) => commands::truncate::run(&args),
        Command::Mention(args) => commands::mention::run(&args),
        Command::Render(args) => commands::render::run(&args),
        Command::Replay(args) => runtime.block_on(commands::replay::run(&args, counter)),
        Command::Eval(args) => runtime.block_on(commands::eval::run(&args, counter)),
        Command::Demo(args) => runtime.block_on(commands::demo::run(&args)),
        Command::Bench(args) => runtime.block_on(commands::bench::run(&args, counter)),
        Command::Memory(args) => commands::memory::run(&args),
        Command::Store(args) => commands::store::run(&args, cli.store.as_deref()),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with 0; usage errors exit 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Closed) => ExitCode::SUCCESS,
        Err(e) => {
            commands::note(&format!("strata-ctx: {e}"));
            ExitCode::from(e.exit_code())
        }
    }
}

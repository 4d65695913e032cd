//! `strata-ctx compact`: a conversation compacted now (HIST-3..9).

use std::sync::Arc;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use strata_ctx::history::{CompactionStats, History};
use strata_ctx::openai::OpenAiClient;
use strata_ctx::{Config, LlmSummarizer, Message, NoSummarizer, Role, Summarizer, TokenCounter};

use super::{out_json, out_lines};
use crate::error::CliError;
use crate::input::read_conversation;
use crate::BudgetArgs;

/// Which messages a summary covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// Everything archived.
    All,
    /// The user's messages only.
    User,
    /// The assistant's messages and tool results only.
    Assistant,
}

/// Who writes the archived summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SummarizerKind {
    /// Nobody: the archived rounds are replaced by a notice (HIST-7's
    /// degraded path).
    None,
    /// An OpenAI-compatible model, configured by `STRATA_OPENAI_BASE_URL`,
    /// `STRATA_OPENAI_API_KEY` and `STRATA_MODEL`.
    Openai,
}

/// Arguments of `strata-ctx compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// The conversation (stdin when absent or `-`).
    file: Option<std::path::PathBuf>,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Which messages the summary covers.
    #[arg(long, value_enum, default_value_t = Target::All)]
    target: Target,
    /// Who writes the summary.
    #[arg(long, value_enum, default_value_t = SummarizerKind::None)]
    summarizer: SummarizerKind,
    /// One object `{window, stats}` on stdout instead of JSONL and text.
    #[arg(long)]
    json: bool,
}

/// The summariser a `--summarizer` option asks for.
pub fn summarizer(
    kind: SummarizerKind,
    counter: Arc<dyn TokenCounter>,
    config: &Config,
) -> Result<Arc<dyn Summarizer>, CliError> {
    Ok(match kind {
        SummarizerKind::None => Arc::new(NoSummarizer),
        SummarizerKind::Openai => {
            let client =
                OpenAiClient::from_env().map_err(|e| CliError::Input(format!("--summarizer openai: {e}")))?;
            Arc::new(LlmSummarizer::from_config(Arc::new(client), config).with_counter(counter))
        }
    })
}

/// The statistics of HIST-9 as the JSON of `docs/cli.md`.
pub fn stats_json(stats: &CompactionStats) -> Value {
    json!({
        "tokens_before": stats.tokens_before,
        "tokens_after": stats.tokens_after,
        "tokens_archived": stats.tokens_archived,
        "summary_tokens": stats.summary_tokens,
        "rounds_archived": stats.rounds_archived,
        "rounds_retained": stats.rounds_retained,
        "tool_results_cleared": stats.tool_results_cleared,
        "arguments_cut": stats.arguments_cut,
        "threshold_tokens": stats.threshold_tokens,
        "degraded": stats.degraded,
        "degraded_reason": stats.degraded_reason,
        "over_budget": stats.over_budget,
        "elapsed_ms": stats.elapsed_ms,
    })
}

/// The statistics as lines for people.
pub fn stats_text(stats: &CompactionStats) -> String {
    let mut text = format!(
        "compacted: {} → {} tokens (threshold {})\n  {} round(s) archived ({} tokens) into a {}-token summary, {} retained\n  {} tool result(s) cleared, {} argument(s) cut, {} ms\n",
        stats.tokens_before,
        stats.tokens_after,
        stats.threshold_tokens,
        stats.rounds_archived,
        stats.tokens_archived,
        stats.summary_tokens,
        stats.rounds_retained,
        stats.tool_results_cleared,
        stats.arguments_cut,
        stats.elapsed_ms
    );
    if stats.degraded {
        text.push_str(&format!(
            "  degraded: no summary ({}); a notice stands in for the archived rounds\n",
            stats.degraded_reason.as_deref().unwrap_or("no reason given")
        ));
    }
    if stats.over_budget {
        text.push_str("  over budget: the retained rounds alone exceed the threshold\n");
    }
    text
}

/// Runs `strata-ctx compact`.
pub async fn run(args: &CompactArgs, counter: Arc<dyn TokenCounter>) -> Result<(), CliError> {
    let mut config = args.budget.config()?;
    let target = match args.target {
        Target::All => "all",
        Target::User => "user",
        Target::Assistant => "assistant",
    };
    config.set("compaction_target", target)?;
    let summarizer = summarizer(args.summarizer, counter.clone(), &config)?;
    let conversation = read_conversation(args.file.as_ref())?;
    let system: Vec<Message> = conversation
        .messages
        .iter()
        .take_while(|m| m.role == Role::System)
        .cloned()
        .collect();
    drop(conversation.records);
    let (mut history, repairs) = History::from_messages(config, counter, conversation.messages);
    let spinner = crate::progress::spinner("compacting");
    let stats = history.compact(&*summarizer).await;
    spinner.finish_and_clear();
    // System messages are not history (HIST-1): they are kept, first.
    let window = history.window();
    let window = system.iter().chain(window.iter());
    let repairs: Vec<String> = repairs.iter().map(ToString::to_string).collect();
    if args.json {
        let mut stats = stats_json(&stats);
        stats["repairs"] = json!(repairs);
        let window: Vec<&Message> = window.collect();
        return out_json(&json!({"window": window, "stats": stats}));
    }
    out_lines(window)?;
    let mut text = stats_text(&stats);
    for r in &repairs {
        text.push_str(&format!("  repaired: {r}\n"));
    }
    super::note(text.trim_end());
    Ok(())
}

//! `strata-ctx replay`: a recorded transcript through the turn engine, step by
//! step (REACT-2..5, HIST-3..12).

use std::sync::Arc;

use clap::Args;
use serde_json::{json, Value};
use strata_ctx::replay::{replay, ReplayStep, ReplaySummary};
use strata_ctx::{Engine, Role, TokenCounter};

use super::compact::{summarizer, SummarizerKind};
use super::{out, out_json};
use crate::error::CliError;
use crate::input::read_conversation;
use crate::BudgetArgs;

/// Arguments of `strata-ctx replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The transcript (stdin when absent or `-`).
    file: Option<std::path::PathBuf>,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Who writes the summaries of compactions.
    #[arg(long, value_enum, default_value_t = SummarizerKind::None)]
    summarizer: SummarizerKind,
    /// One JSON object per step, then a summary object with the final
    /// window, instead of text.
    #[arg(long)]
    json: bool,
}

fn step_json(s: &ReplayStep) -> Value {
    json!({
        "step": s.step,
        "round": s.round,
        "window_tokens": s.window_tokens,
        "threshold_tokens": s.threshold_tokens,
        "over_budget": s.over_budget,
        "truncated": s.truncated,
        "compacted": s.compacted,
        "in_round_actions": {"condensed": s.condensed, "cleared": s.cleared, "omitted": s.omitted},
        "pairs_intact": s.pairs_intact,
        "input_present": s.input_present,
    })
}

fn step_text(s: &ReplayStep) -> String {
    let mut line = format!(
        "step {:>4}  round {:>3}  {:>7} / {} tokens",
        s.step, s.round, s.window_tokens, s.threshold_tokens
    );
    if s.truncated {
        line.push_str("  truncated");
    }
    if s.compacted {
        line.push_str("  compacted");
    }
    if s.condensed + s.cleared + s.omitted > 0 {
        line.push_str(&format!(
            "  condensed {} cleared {} omitted {}",
            s.condensed, s.cleared, s.omitted
        ));
    }
    if s.over_budget {
        line.push_str("  OVER BUDGET");
    }
    if !s.pairs_intact || !s.input_present {
        line.push_str("  BROKEN");
    }
    line.push('\n');
    line
}

fn summary_json(s: &ReplaySummary) -> Value {
    json!({
        "steps": s.steps,
        "rounds": s.rounds,
        "max_window_tokens": s.max_window_tokens,
        "over_budget_steps": s.over_budget_steps,
        "compactions": s.compactions,
        "broken_steps": s.broken_steps,
        "repairs": s.repairs,
        "tool_output_tokens_raw": s.tool_output_tokens_raw,
        "tool_output_tokens_history": s.tool_output_tokens_history,
    })
}

/// Runs `strata-ctx replay`.
pub async fn run(args: &ReplayArgs, counter: Arc<dyn TokenCounter>) -> Result<(), CliError> {
    let config = args.budget.config()?;
    let summarizer = summarizer(args.summarizer, counter.clone(), &config)?;
    let conversation = read_conversation(args.file.as_ref())?;
    // Spill files and the rules layer live in a scratch project.
    let project = tempfile::tempdir()
        .map_err(|e| CliError::Runtime(format!("cannot create a scratch directory: {e}")))?;
    let mut engine = Engine::builder(project.path())
        .config(config)
        .counter(counter)
        .summarizer(summarizer)
        .system_prompt(
            conversation
                .system_prompt()
                .unwrap_or_else(|| "You are a coding agent.".to_owned()),
        )
        .build()?;
    let total = conversation
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count();
    let bar = crate::progress::bar(total as u64, "replaying");
    let mut failed: Option<CliError> = None;
    let json = args.json;
    let summary = replay(&mut engine, &conversation.messages, |step, _| {
        bar.inc(1);
        if failed.is_some() {
            return;
        }
        let written = if json {
            out_json(&step_json(step))
        } else {
            bar.suspend(|| out(&step_text(step)))
        };
        failed = written.err();
    })
    .await?;
    bar.finish_and_clear();
    if let Some(e) = failed {
        return Err(e);
    }
    let window = engine.window();
    if json {
        return out_json(&json!({"summary": summary_json(&summary), "window": window.messages()}));
    }
    let saved = summary
        .tool_output_tokens_raw
        .saturating_sub(summary.tool_output_tokens_history);
    out(&format!(
        "\n{} steps in {} rounds; largest window {} tokens (threshold {}); {} step(s) over budget; {} compaction(s)\n\
         tool output: {} tokens as returned, {} in history form ({:.0}% saved)\n\
         final window: {} messages, {} tokens\n",
        summary.steps,
        summary.rounds,
        summary.max_window_tokens,
        window.threshold,
        summary.over_budget_steps,
        summary.compactions,
        summary.tool_output_tokens_raw,
        summary.tool_output_tokens_history,
        100.0 * super::share(saved, summary.tool_output_tokens_raw),
        window.messages().len(),
        window.tokens,
    ))?;
    if summary.broken_steps > 0 {
        return Err(CliError::Runtime(format!(
            "{} step(s) had a split pair or lost the input",
            summary.broken_steps
        )));
    }
    Ok(())
}

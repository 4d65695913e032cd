//! `strata-ctx replay`: a recorded transcript through the turn engine, step by
//! step (REACT-2..5, HIST-3..12).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};
use strata_ctx::replay::{calls_after_steps, replay, ReplayStep, ReplaySummary};
use strata_ctx::{CacheRule, CacheUse, Engine, Price, PromptCache, Role, TokenCounter, Window};

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
    /// The provider whose prompt cache prices each call, and whose request
    /// body `--dump` writes.
    #[arg(long, value_enum, default_value_t = Provider::Openai)]
    format: Provider,
    /// Prices each call at this model's price (from Strata's price table),
    /// cache reads and writes at theirs.
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// The price to use instead, in US dollars per million input and
    /// output tokens (`3,15`); cache reads and writes are then priced as
    /// plain input.
    #[arg(long, value_name = "IN,OUT")]
    price: Option<String>,
    /// Writes each call's request body as sent to this directory
    /// (`000001.json`, …): the OpenAI chat-completions body, an object with
    /// `messages`, or with `--format anthropic` the Anthropic Messages body.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
}

/// A provider, for its prompt cache and its request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Provider {
    /// OpenAI chat completions: cache reads from 1,024 shared tokens at
    /// half price.
    Openai,
    /// Anthropic Messages, the conversation cached to its last block:
    /// cache reads at 0.1×, writes at 1.25×.
    Anthropic,
}

impl Provider {
    fn rule(self) -> CacheRule {
        match self {
            Provider::Openai => CacheRule::OpenAi,
            Provider::Anthropic => CacheRule::Anthropic,
        }
    }
}

/// Writes the body of call `n` to `dir`.
fn dump(dir: &Path, n: usize, body: &Value) -> Result<(), CliError> {
    let path = dir.join(format!("{n:06}.json"));
    let bytes =
        serde_json::to_vec(body).map_err(|e| CliError::Runtime(format!("{}: {e}", path.display())))?;
    std::fs::write(&path, bytes)
        .map_err(|e| CliError::Runtime(format!("cannot write {}: {e}", path.display())))
}

/// Writes the OpenAI body of call `n`, `{"messages": [...]}`, to `dir`,
/// straight from the window.
fn dump_openai(dir: &Path, n: usize, window: &Window) -> Result<(), CliError> {
    let path = dir.join(format!("{n:06}.json"));
    let mut bytes = b"{\"messages\":".to_vec();
    window
        .write_openai(&mut bytes)
        .map_err(|e| CliError::Runtime(format!("{}: {e}", path.display())))?;
    bytes.push(b'}');
    std::fs::write(&path, bytes)
        .map_err(|e| CliError::Runtime(format!("cannot write {}: {e}", path.display())))
}

fn cache_json(c: &CacheUse, rule: CacheRule) -> Value {
    json!({
        "calls": c.calls,
        "input_tokens": c.input_tokens,
        "cache_read_tokens": c.cache_read_tokens,
        "cache_write_tokens": c.cache_write_tokens,
        "input_units": rule.units(c),
    })
}

fn step_json(s: &ReplayStep, cache: &CacheUse, rule: CacheRule) -> Value {
    json!({
        "cache": cache_json(cache, rule),
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

fn step_text(s: &ReplayStep, cache: &CacheUse) -> String {
    let mut line = format!(
        "step {:>4}  round {:>3}  {:>7} / {} tokens  {:>3.0}% cached",
        s.step,
        s.round,
        s.window_tokens,
        s.threshold_tokens,
        100.0 * cache.hit_rate()
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

fn summary_json(
    s: &ReplaySummary,
    cache: &CacheUse,
    rule: CacheRule,
    price: Option<&(String, Price)>,
) -> Value {
    json!({
        "cache": cache_json(cache, rule),
        "cost_usd": price.map(|(_, p)| p.cost(&cache.usage())),
        "priced_as": price.map(|(name, _)| name),
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

/// The replay's summary as text: steps, windows, tool output, the final
/// window and what its model calls would cost.
fn summary_text(
    summary: &ReplaySummary,
    window: &Window,
    calls: &CacheUse,
    rule: CacheRule,
    price: Option<&(String, Price)>,
) -> String {
    let saved = summary
        .tool_output_tokens_raw
        .saturating_sub(summary.tool_output_tokens_history);
    format!(
        "\n{} steps in {} rounds; largest window {} tokens (threshold {}); {} step(s) over budget; {} compaction(s)\n\
         tool output: {} tokens as returned, {} in history form ({:.0}% saved)\n\
         final window: {} messages, {} tokens\n\
         model calls: {}; input {} tokens, {} read from the prompt cache ({:.0}%), {} written; {:.0} input-price units{}\n",
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
        calls.calls,
        calls.input_tokens,
        calls.cache_read_tokens,
        100.0 * calls.hit_rate(),
        calls.cache_write_tokens,
        rule.units(calls),
        price
            .map(|(name, p)| format!("; ${:.4} at {name}", p.cost(&calls.usage())))
            .unwrap_or_default(),
    )
}

/// Runs `strata-ctx replay`.
pub async fn run(args: &ReplayArgs, counter: Arc<dyn TokenCounter>) -> Result<(), CliError> {
    let config = args.budget.config()?;
    let price = super::inspect::price_of(args.model.as_deref(), args.price.as_deref())?;
    if let Some(dir) = &args.dump {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::Input(format!("--dump {}: cannot create it: {e}", dir.display())))?;
    }
    let summarizer = summarizer(args.summarizer, counter.clone(), &config)?;
    let conversation = read_conversation(args.file.as_ref())?;
    // Spill files and the rules layer live in a scratch project.
    let project = tempfile::tempdir()
        .map_err(|e| CliError::Runtime(format!("cannot create a scratch directory: {e}")))?;
    let prompt = crate::input::replay_system_prompt(&conversation.messages);
    let mut engine = Engine::builder(project.path())
        .config(config)
        .counter(counter.clone())
        .summarizer(summarizer)
        .system_prompt(prompt)
        .build()?;
    let total = conversation
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count();
    let bar = crate::progress::bar(total as u64, "replaying");
    let mut failed: Option<CliError> = None;
    let json = args.json;
    let rule = args.format.rule();
    let mut cache = PromptCache::new(rule);
    let mut calls = CacheUse::default();
    let cache_counter = counter;
    let called = calls_after_steps(&conversation.messages);
    let summary = replay(&mut engine, &conversation.messages, |step, window| {
        bar.inc(1);
        if failed.is_some() {
            return;
        }
        // The model is called with the window where the agent called it
        // (not after a call the run never answered, once for parallel
        // calls); both providers' messages are the same, rendered once
        // for the cache.
        let call = if called.get(step.step - 1).copied().unwrap_or(true) {
            cache.call_window(window, &*cache_counter)
        } else {
            CacheUse::default()
        };
        calls += call;
        let dumped = match (&args.dump, args.format) {
            (Some(dir), Provider::Openai) => dump_openai(dir, step.step, window),
            (Some(dir), Provider::Anthropic) => dump(dir, step.step, &window.to_anthropic()),
            (None, _) => Ok(()),
        };
        let written = dumped.and_then(|()| {
            if json {
                out_json(&step_json(step, &call, rule))
            } else {
                bar.suspend(|| out(&step_text(step, &call)))
            }
        });
        failed = written.err();
    })
    .await?;
    bar.finish_and_clear();
    if let Some(e) = failed {
        return Err(e);
    }
    let window = engine.window();
    if json {
        let summary = summary_json(&summary, &calls, rule, price.as_ref());
        return out_json(&json!({"summary": summary, "window": window.messages()}));
    }
    out(&summary_text(&summary, &window, &calls, rule, price.as_ref()))?;
    if summary.broken_steps > 0 {
        return Err(CliError::Runtime(format!(
            "{} step(s) had a split pair or lost the input",
            summary.broken_steps
        )));
    }
    Ok(())
}

//! The engine's events (EVT-1) and model calls through `tracing` (feature
//! `tracing`), with the OpenTelemetry GenAI field names where one exists
//! (`gen_ai.usage.input_tokens` …), so an agent's subscriber or exporter
//! sees them without glue code.
//!
//! Every [`Event`] is a `tracing` event of target `strata_ctx` at level
//! INFO (WARN for a degraded compaction, going over budget, a failed rule
//! and a rules warning), with a `strata.event` field naming it and its
//! figures as fields. Each model call of `Engine::complete` is a span
//! `gen_ai.chat` (named `chat {model}` for OpenTelemetry through
//! `otel.name`) with the GenAI semantic conventions' attributes, named
//! exactly as the conventions name them: `gen_ai.operation.name`,
//! `gen_ai.provider.name` and `gen_ai.request.model` (the options' model,
//! else the client's, [`LlmClient::endpoint`](strata_ctx_core::LlmClient::endpoint)),
//! and, once answered, `gen_ai.usage.input_tokens`,
//! `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens`,
//! `gen_ai.usage.cache_creation.input_tokens` and
//! `gen_ai.response.finish_reasons` (an array as JSON text: `["stop"]`).

use strata_ctx_core::{Endpoint, LlmOptions, LlmResponse};
use tracing::{field, Level, Span};

use crate::event::Event;

const TARGET: &str = "strata_ctx";

/// Emits `event` as a `tracing` event.
pub(crate) fn event(event: &Event) {
    match event {
        Event::RoundStarted { round, mentions, .. } => {
            tracing::event!(target: TARGET, Level::INFO, strata.event = "round_started", strata.round = round, strata.mentions = mentions.len(), "round started")
        }
        Event::StepRecorded { round, step, calls } => {
            tracing::event!(target: TARGET, Level::INFO, strata.event = "step_recorded", strata.round = round, strata.step = step, strata.calls = calls, "step recorded")
        }
        Event::OutputTruncated {
            tool,
            total_lines,
            shown_lines,
            ..
        } => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "output_truncated",
            gen_ai.tool.name = tool.as_str(),
            strata.total_lines = total_lines,
            strata.shown_lines = shown_lines
        ),
        Event::FileModified { path } => {
            tracing::event!(target: TARGET, Level::INFO, strata.event = "file_modified", strata.path = path.as_str(), "file modified")
        }
        Event::CompactionStarted { reason, tokens } => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "compaction_started",
            strata.reason = ?reason,
            strata.tokens = tokens
        ),
        Event::CompactionFinished(stats) => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "compaction_finished",
            strata.tokens_before = stats.tokens_before,
            strata.tokens_after = stats.tokens_after,
            strata.rounds_archived = stats.rounds_archived,
            strata.degraded = stats.degraded,
            strata.summary_facts = stats.summary_facts,
            strata.summary_facts_added = stats.summary_facts_added
        ),
        Event::CompactionDegraded { reason } => {
            tracing::event!(target: TARGET, Level::WARN, strata.event = "compaction_degraded", strata.reason = reason.as_str(), "compaction degraded")
        }
        Event::StepsCondensed {
            to_history_form,
            cleared,
            omitted,
            tokens,
        } => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "steps_condensed",
            strata.to_history_form = to_history_form,
            strata.cleared = cleared,
            strata.omitted = omitted,
            strata.tokens = tokens
        ),
        Event::StepsSummarized { steps, degraded } => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "steps_summarized",
            strata.steps = steps,
            strata.degraded = degraded.as_deref()
        ),
        Event::OverBudget { tokens, threshold } => tracing::event!(target: TARGET, Level::WARN,
            strata.event = "over_budget",
            strata.tokens = tokens,
            strata.threshold = threshold
        ),
        Event::WindowChanged { tokens, threshold } => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "window_changed",
            strata.tokens = tokens,
            strata.threshold = threshold
        ),
        Event::Continued {
            continuation,
            text_bytes,
            calls,
        } => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "continued",
            strata.continuation = continuation,
            strata.text_bytes = text_bytes,
            strata.calls = calls
        ),
        Event::UsageRecorded(usage) => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "usage_recorded",
            gen_ai.usage.input_tokens = usage.input_tokens,
            gen_ai.usage.output_tokens = usage.output_tokens,
            gen_ai.usage.cache_read.input_tokens = usage.cached_input_tokens,
            gen_ai.usage.cache_creation.input_tokens = usage.cache_write_tokens
        ),
        Event::ServerContextEdited { edits, totals } => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "server_context_edited",
            strata.server.edits = edits.len(),
            strata.server.cleared_tool_uses = totals.cleared_tool_uses,
            strata.server.cleared_input_tokens = totals.cleared_input_tokens,
            strata.server.compactions = totals.compactions,
            "server context edited"
        ),
        Event::MemoryChanged(change) => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "memory_changed",
            strata.memory.change = ?change,
            "long-term memory changed"
        ),
        Event::Suggested { items } => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "suggested",
            strata.suggestions = items.len(),
            "follow-up suggestions"
        ),
        Event::SuggestionsFailed { reason } => tracing::event!(target: TARGET, Level::WARN,
            strata.event = "suggestions_failed",
            strata.reason = reason.as_str(),
            "follow-up suggestions failed"
        ),
        Event::SessionUpdated(update) => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "session_updated",
            strata.session.key = update.key(),
            "session context updated"
        ),
        Event::CostRecorded(cost) => tracing::event!(target: TARGET, Level::INFO,
            strata.event = "cost_recorded",
            strata.cost.call_usd = cost.call,
            strata.cost.round_usd = cost.round,
            strata.cost.session_usd = cost.session
        ),
        Event::Repaired(repairs) => {
            tracing::event!(target: TARGET, Level::INFO, strata.event = "repaired", strata.repairs = repairs.len(), "repaired")
        }
        Event::RuleFailed(failure) => tracing::event!(target: TARGET, Level::WARN,
            strata.event = "rule_failed",
            gen_ai.tool.name = failure.tool.as_str(),
            strata.reason = failure.reason.as_str()
        ),
        Event::RulesWarning(text) => {
            tracing::event!(target: TARGET, Level::WARN, strata.event = "rules_warning", strata.reason = text.as_str(), "rules warning")
        }
        Event::RoundFinished { round, steps } => {
            tracing::event!(target: TARGET, Level::INFO, strata.event = "round_finished", strata.round = round, strata.steps = steps, "round finished")
        }
    }
}

/// The span of one model call to `endpoint`, its answer's fields still
/// empty.
pub(crate) fn call_span(options: &LlmOptions, endpoint: &Endpoint) -> Span {
    let model = options
        .model
        .as_deref()
        .or(endpoint.model.as_deref())
        .unwrap_or_default();
    let name = if model.is_empty() {
        "chat".to_owned()
    } else {
        format!("chat {model}")
    };
    tracing::info_span!(
        target: "strata_ctx",
        "gen_ai.chat",
        otel.name = name.as_str(),
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = endpoint.provider.as_deref().unwrap_or_default(),
        gen_ai.request.model = model,
        gen_ai.usage.input_tokens = field::Empty,
        gen_ai.usage.output_tokens = field::Empty,
        gen_ai.usage.cache_read.input_tokens = field::Empty,
        gen_ai.usage.cache_creation.input_tokens = field::Empty,
        gen_ai.response.finish_reasons = field::Empty,
    )
}

/// A token count as the conventions' `int`: `tracing-opentelemetry` makes
/// an `i64` field an integer attribute, but a `u64` one a string.
fn int(tokens: u64) -> i64 {
    i64::try_from(tokens).unwrap_or(i64::MAX)
}

/// Records `answer`'s figures on its call's span.
pub(crate) fn answered(span: &Span, answer: &LlmResponse) {
    span.record("gen_ai.usage.input_tokens", int(answer.usage.input_tokens));
    span.record("gen_ai.usage.output_tokens", int(answer.usage.output_tokens));
    if let Some(cached) = answer.usage.cached_input_tokens {
        span.record("gen_ai.usage.cache_read.input_tokens", int(cached));
    }
    if let Some(written) = answer.usage.cache_write_tokens {
        span.record("gen_ai.usage.cache_creation.input_tokens", int(written));
    }
    // An array of strings; `tracing` fields hold text, so it is written
    // as JSON, the form exporters parse string arrays from.
    let reasons = serde_json::json!([answer.finish_reason.as_str()]).to_string();
    span.record("gen_ai.response.finish_reasons", reasons.as_str());
}

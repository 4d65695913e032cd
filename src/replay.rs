//! Recorded transcripts fed through the [`Engine`] step by step, to see
//! what it would have sent at every model call (the CLI's `strata-ctx replay`).

use std::collections::HashSet;

use strata_ctx_core::{Message, Pairs, Role};
use strata_ctx_history::repair;

use crate::engine::{Engine, EngineError, LayerTokens, Window};

/// What the engine did at one step of a replay, and the window after it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ReplayStep {
    /// The step's number in the whole replay, from 1.
    pub step: usize,
    /// The round it belongs to, from 1.
    pub round: usize,
    /// The window's estimated tokens after the step.
    pub window_tokens: usize,
    /// The compaction threshold.
    pub threshold_tokens: usize,
    /// Whether the window is over the threshold though nothing more can
    /// be condensed (REACT-5).
    pub over_budget: bool,
    /// Whether an output of this step was cut for the model (TRUNC-1).
    pub truncated: bool,
    /// Whether a compaction ran since the previous step (at this step or
    /// at the start of its round).
    pub compacted: bool,
    /// Older steps of the round newly shown in history form.
    pub condensed: usize,
    /// Older steps of the round whose results were newly cleared.
    pub cleared: usize,
    /// Older steps of the round newly left out of the window.
    pub omitted: usize,
    /// Whether every tool call in the window has its result and every
    /// result its call (HIST-2).
    pub pairs_intact: bool,
    /// Whether the round's user message is in the window.
    pub input_present: bool,
    /// Tokens of the step's results as the tools returned them.
    pub result_tokens: usize,
    /// Tokens of the step's results in history form.
    pub history_result_tokens: usize,
    /// The window after the step, layer by layer (they add up to the
    /// token counter's count, which `window_tokens` may refine with the
    /// provider's usage).
    pub layers: LayerTokens,
}

/// The totals of a replay.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ReplaySummary {
    /// Steps replayed.
    pub steps: usize,
    /// Rounds begun.
    pub rounds: usize,
    /// The largest window after any step or round start.
    pub max_window_tokens: usize,
    /// Steps, and round starts, after which the window was over the
    /// threshold.
    pub over_budget_steps: usize,
    /// Repairs made to the transcript before it was replayed (HIST-2,
    /// REL-1): reused call ids renamed, results moved next to their calls,
    /// orphan and duplicate results left out, unanswered calls answered.
    pub repairs: usize,
    /// Compactions run.
    pub compactions: usize,
    /// Steps after which a pair was split or the input was missing; always
    /// 0 unless the engine has a bug.
    pub broken_steps: usize,
    /// Tokens of every tool result as the tools returned them.
    pub tool_output_tokens_raw: usize,
    /// Tokens of the same results in history form.
    pub tool_output_tokens_history: usize,
}

/// Feeds a recorded transcript through `engine`, calling `on_step` after
/// each step with what happened and the window the model would get next.
///
/// Each `user` message begins a round. Each `assistant` message with tool
/// calls is a step, with the results of its calls from wherever they are
/// in the transcript (a call without a result gets the engine's
/// `interrupted` result). An `assistant` message without calls ends the
/// round when a `user` message or the end follows it (tool messages
/// aside), and is a step without calls otherwise. `system` messages,
/// summaries and anything before the first `user` message are skipped:
/// give the system prompt to the engine's builder. The last round is left
/// open when the transcript ends inside it.
///
/// # Errors
///
/// What [`Engine::begin_round`], [`Engine::record_step`] and
/// [`Engine::finish_round`] return, typically [`EngineError::Store`] when
/// the engine persists to a store that fails.
///
/// # Example
///
/// ```
/// use strata_ctx::replay::replay;
/// use strata_ctx::{Engine, Message};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build()?.block_on(async {
/// # let project = tempfile::tempdir()?;
/// let transcript = vec![Message::user("hi"), Message::assistant("hello!")];
/// let mut engine = Engine::builder(project.path()).build()?;
/// let summary = replay(&mut engine, &transcript, |_, _| {}).await?;
/// assert_eq!((summary.rounds, summary.steps), (1, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn replay(
    engine: &mut Engine,
    messages: &[Message],
    mut on_step: impl FnMut(&ReplayStep, &Window),
) -> Result<ReplaySummary, EngineError> {
    let mut summary = ReplaySummary::default();
    let mut compacted = false;
    // Pairing holds from the start (REL-1): a transcript with reused call
    // ids or stray results is repaired first, and the repairs counted.
    let leading = messages.iter().take_while(|m| m.role == Role::System).count();
    let (body, repairs) = repair(&messages[leading..]);
    summary.repairs = repairs.len();
    for turn in turns(&body) {
        match turn {
            Turn::Begin(user) => {
                if engine.round_open() {
                    engine.finish_round("")?;
                }
                let start = engine.begin_round(&user.content).await?;
                summary.rounds += 1;
                if start.compaction.is_some() {
                    summary.compactions += 1;
                    compacted = true;
                }
                let tokens = engine.window_tokens();
                summary.max_window_tokens = summary.max_window_tokens.max(tokens);
                // The budget holds at every point the window changes, rounds
                // without tool calls included.
                summary.over_budget_steps += usize::from(tokens > engine.threshold_tokens());
            }
            Turn::Finish(answer) => engine.finish_round(answer.content.clone())?,
            Turn::Step(m, results) => {
                let results: Vec<Message> = results.into_iter().cloned().collect();
                let result_tokens = engine.counter().count_messages(&results);
                let report = engine.record_step(m.clone(), results).await?;
                if report.compaction.is_some() {
                    summary.compactions += 1;
                    compacted = true;
                }
                let window = engine.window();
                let shown = window.messages();
                let step = ReplayStep {
                    step: summary.steps + 1,
                    round: summary.rounds,
                    window_tokens: window.tokens,
                    threshold_tokens: window.threshold,
                    over_budget: window.over_budget || window.tokens > window.threshold,
                    truncated: !report.truncated.is_empty(),
                    compacted: std::mem::take(&mut compacted),
                    condensed: report.condensed,
                    cleared: report.cleared,
                    omitted: report.omitted,
                    pairs_intact: Pairs::new(&shown).is_complete(),
                    input_present: window.context.input().is_some(),
                    result_tokens,
                    history_result_tokens: report.history_result_tokens,
                    layers: window.layers,
                };
                summary.steps += 1;
                summary.max_window_tokens = summary.max_window_tokens.max(step.window_tokens);
                summary.over_budget_steps += usize::from(step.over_budget);
                summary.broken_steps += usize::from(!step.pairs_intact || !step.input_present);
                summary.tool_output_tokens_raw += step.result_tokens;
                summary.tool_output_tokens_history += step.history_result_tokens;
                on_step(&step, &window);
            }
        }
    }
    Ok(summary)
}

/// One thing a recorded transcript asks of the engine.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Turn<'a> {
    /// A user message: a new round begins (an open one ends first, without
    /// an answer).
    Begin(&'a Message),
    /// An assistant message and the results of its calls, in call order.
    Step(&'a Message, Vec<&'a Message>),
    /// The assistant's final answer of the round.
    Finish(&'a Message),
}

/// What a transcript asks of the engine, in order, as [`replay`] reads it:
/// each `user` message begins a round; each `assistant` message with tool
/// calls is a step with the results of its calls, wherever they are (each
/// result is used once); an `assistant` message without calls is the
/// round's answer when a `user` message or the end follows it (tool
/// messages aside), and a step without calls otherwise. Messages outside a
/// round are skipped.
///
/// ```
/// use strata_ctx::replay::{turns, Turn};
/// use strata_ctx::Message;
///
/// let transcript = [Message::user("hi"), Message::assistant("hello!")];
/// assert!(matches!(turns(&transcript)[..], [Turn::Begin(_), Turn::Finish(_)]));
/// ```
pub fn turns(messages: &[Message]) -> Vec<Turn<'_>> {
    let pairs = Pairs::new(messages);
    let mut used: HashSet<usize> = HashSet::new();
    let mut open = false;
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        match m.role {
            Role::User => {
                open = true;
                out.push(Turn::Begin(m));
            }
            Role::Assistant if open => {
                let ends = m.tool_calls.is_empty()
                    && messages[i + 1..]
                        .iter()
                        .find(|n| n.role != Role::Tool)
                        .is_none_or(|n| n.role == Role::User);
                if ends {
                    open = false;
                    out.push(Turn::Finish(m));
                    continue;
                }
                let results = m
                    .tool_calls
                    .iter()
                    .filter_map(|c| pairs.result_of(&c.id))
                    .filter(|&r| used.insert(r))
                    .map(|r| &messages[r])
                    .collect();
                out.push(Turn::Step(m, results));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::{Config, ToolCall, ToolResult};

    fn transcript() -> Vec<Message> {
        let a = ToolCall::new("a", "Bash", json!({"command": "seq 3000"}));
        let b = ToolCall::new("b", "Read", json!({"path": "x.rs"}));
        let out: String = (0..3000).map(|i| format!("{i}\n")).collect();
        vec![
            Message::system("sys"),
            Message::user("first"),
            Message::assistant_with_calls("run both", vec![a.clone(), b.clone()]),
            // Results out of order, and one call never answered below.
            Message::tool_result(&b, ToolResult::success("fn x() {}")),
            Message::tool_result(
                &a,
                ToolResult::success(json!({"command": "seq 3000", "exit_code": 0, "stdout": out})),
            ),
            Message::assistant("thinking aloud, then more work"),
            Message::assistant_with_calls(
                "again",
                vec![ToolCall::new("c", "Bash", json!({"command": "true"}))],
            ),
            Message::assistant("done"),
            Message::user("second"),
            Message::assistant("fine"),
        ]
    }

    #[tokio::test]
    async fn steps_rounds_and_figures() {
        let project = tempfile::tempdir().unwrap();
        let mut engine = Engine::builder(project.path())
            .config(Config::from_toml_str("context_window = 16000").unwrap())
            .build()
            .unwrap();
        let mut seen = Vec::new();
        let summary = replay(&mut engine, &transcript(), |s, w| {
            assert_eq!(w.tokens, s.window_tokens);
            seen.push(s.clone());
        })
        .await
        .unwrap();
        assert_eq!(summary.rounds, 2);
        assert_eq!(summary.steps, 3, "two with calls, one thought without");
        assert_eq!(
            seen.iter().map(|s| (s.step, s.round)).collect::<Vec<_>>(),
            [(1, 1), (2, 1), (3, 1)]
        );
        assert!(seen[0].truncated && !seen[1].truncated);
        assert!(seen.iter().all(|s| s.pairs_intact && s.input_present));
        assert_eq!(summary.broken_steps, 0);
        assert!(summary.tool_output_tokens_history < summary.tool_output_tokens_raw);
        assert_eq!(
            summary.tool_output_tokens_raw,
            seen.iter().map(|s| s.result_tokens).sum::<usize>()
        );
        assert!(!engine.round_open(), "the last round ended with its answer");
        // The unanswered call got an `interrupted` result in the history.
        let log = engine.history().full_log();
        assert!(log.iter().any(|m| m.tool_call_id.as_deref() == Some("c")));
    }
}

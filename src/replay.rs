//! Recorded transcripts fed through the [`Engine`] step by step, to see
//! what it would have sent at every model call (the CLI's `strata-ctx replay`).

use std::collections::HashSet;

use strata_ctx_core::{Message, Pairs, Role};
use strata_ctx_history::repair;
use strata_ctx_prompt::Context;

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
    let mut pairs = PairWatch::default();
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
                    pairs_intact: pairs.intact(&window.context),
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

/// For each step [`replay`] makes of `messages` ([`turns`]), whether the
/// agent called the model after it, as the peers' baselines price calls
/// (at the end of each run of results): not after a step whose calls got
/// no result (the run stopped) or that made none, nor when the next
/// message is another assistant message of the same response (Claude
/// Code records parallel calls as one assistant message each, their
/// results after them all). `replay`'s callback gets the step's number:
/// step `n` is at `n - 1`.
///
/// ```
/// use serde_json::json;
/// use strata_ctx::replay::calls_after_steps;
/// use strata_ctx::{Message, ToolCall, ToolResult};
///
/// let read = ToolCall::new("r", "Read", json!({"file_path": "a.py"}));
/// let grep = ToolCall::new("g", "Grep", json!({"pattern": "x"}));
/// let stopped = ToolCall::new("b", "Bash", json!({"command": "make"}));
/// let transcript = vec![
///     Message::user("fix it"),
///     Message::assistant_with_calls("", vec![read.clone()]),
///     Message::assistant_with_calls("", vec![grep.clone()]),
///     Message::tool_result(&read, ToolResult::success("x = 1")),
///     Message::tool_result(&grep, ToolResult::success("a.py:1:x = 1")),
///     Message::assistant_with_calls("", vec![stopped]),
/// ];
/// assert_eq!(calls_after_steps(&transcript), [false, true, false]);
/// ```
pub fn calls_after_steps(messages: &[Message]) -> Vec<bool> {
    let body = &messages[messages.iter().take_while(|m| m.role == Role::System).count()..];
    let mut at = 0;
    turns(body)
        .into_iter()
        .filter_map(|turn| match turn {
            Turn::Step(m, results) => Some((m, results)),
            _ => None,
        })
        .map(|(m, results)| {
            // Steps come in order: the search goes on from the last one.
            at += body[at..].iter().position(|x| std::ptr::eq(x, m)).unwrap_or(0);
            let same_response = body.get(at + 1).is_some_and(|n| n.role == Role::Assistant);
            !results.is_empty() && !same_response
        })
        .collect()
}

/// Whether each window's calls and results are paired ([`Pairs`]),
/// checked on what the window adds to the one before (REL-3): a window
/// whose history and scratchpad continue the previous window's runs
/// ([`MessageRun::continues`](strata_ctx_core::MessageRun::continues)) is checked on its new messages only, which
/// must pair among themselves with call ids of their own. Anything else
/// is checked whole.
#[derive(Debug, Default)]
struct PairWatch {
    /// The previous window.
    seen: Option<Seen>,
    /// The call ids of the previous window.
    calls: HashSet<String>,
}

/// What [`PairWatch`] remembers of a window.
#[derive(Debug, Clone, Copy)]
struct Seen {
    /// The history's run, by name and length.
    history: (u64, usize),
    /// Whether it had an input.
    input: bool,
    /// The scratchpad's run, by name and length.
    scratchpad: (u64, usize),
    /// Whether its pairs were intact.
    intact: bool,
}

impl PairWatch {
    fn intact(&mut self, context: &Context) -> bool {
        let (history, scratchpad) = (context.history_run(), context.scratchpad_run());
        let input = context.input().is_some();
        let grown = self.seen.and_then(|seen| {
            let continues = seen.intact
                && history.continues(seen.history.0, seen.history.1)
                && history.len() == seen.history.1
                && seen.input == input
                && scratchpad.continues(seen.scratchpad.0, seen.scratchpad.1);
            continues.then_some(seen.scratchpad.1)
        });
        let intact = match grown {
            Some(from) => {
                let new = scratchpad.get(from..).unwrap_or_default();
                let own_ids = new
                    .iter()
                    .flat_map(|m| &m.tool_calls)
                    .all(|call| !self.calls.contains(&call.id));
                self.calls
                    .extend(new.iter().flat_map(|m| &m.tool_calls).map(|c| c.id.clone()));
                own_ids && Pairs::new(new).is_complete()
            }
            None => {
                let shown = || history.iter().chain(context.input()).chain(scratchpad.iter());
                self.calls = shown()
                    .flat_map(|m| &m.tool_calls)
                    .map(|c| c.id.clone())
                    .collect();
                shown().collect::<Pairs>().is_complete()
            }
        };
        self.seen = Some(Seen {
            history: (history.name(), history.len()),
            input,
            scratchpad: (scratchpad.name(), scratchpad.len()),
            intact,
        });
        intact
    }
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

    /// REL-3: the pairs of a window that continues the previous one are
    /// checked on the new steps, and find what a whole check finds: a
    /// reused call id, a stray result; a window that does not continue is
    /// checked whole.
    #[test]
    fn rel_3_pairs_are_checked_on_what_a_window_adds() {
        use strata_ctx_core::MessageRun;
        use strata_ctx_prompt::SystemLayer;
        let step = |id: &str| {
            let call = ToolCall::new(id, "Bash", json!({"command": "ls"}));
            let result = Message::tool_result(&call, ToolResult::success("a.rs"));
            [Message::assistant_with_calls("", vec![call]), result]
        };
        let window = |steps: &MessageRun| {
            Context::new(SystemLayer::new("s"))
                .with_input(Message::user("go"))
                .with_scratchpad_run(steps.clone())
        };
        let mut steps = MessageRun::new(step("c1").to_vec());
        let mut watch = PairWatch::default();
        assert!(watch.intact(&window(&steps)));
        steps.extend(step("c2"));
        assert!(watch.intact(&window(&steps)), "a new step with its own ids");
        let checked = steps.clone();
        steps.extend(step("c1"));
        assert!(
            !watch.intact(&window(&steps)),
            "a call id the window already shows"
        );
        assert!(!Pairs::new(&steps).is_complete(), "as a whole check finds");
        // Another run: checked whole, and paired again.
        let mut steps = MessageRun::new(checked.to_vec());
        assert!(watch.intact(&window(&steps)));
        steps.extend([Message::tool_text("c9", "Bash", "stray")]);
        assert!(!watch.intact(&window(&steps)), "a result without its call");
        // A broken window is checked whole at the next step.
        let mut healed = MessageRun::new(checked.to_vec());
        healed.extend(step("c3"));
        assert!(watch.intact(&window(&healed)));

        // What stands before the scratchpad is looked at again when it
        // changes: another history, a longer one, an input in between.
        let shown = |history: &MessageRun, steps: &MessageRun, input: bool| {
            let context = Context::new(SystemLayer::new("s"))
                .with_history_run(history.clone())
                .with_scratchpad_run(steps.clone());
            if input {
                context.with_input(Message::user("go"))
            } else {
                context
            }
        };
        let [call, result] = step("h1");
        let mut history = MessageRun::new(vec![Message::user("old"), call.clone(), result.clone()]);
        let mut watch = PairWatch::default();
        assert!(watch.intact(&shown(&history, &healed, true)));
        let stray = MessageRun::new(vec![Message::tool_text("h9", "Bash", "stray")]);
        assert!(!watch.intact(&shown(&stray, &healed, true)), "another history");
        assert!(watch.intact(&shown(&history, &healed, true)));
        history.extend([Message::tool_text("h8", "Bash", "stray")]);
        assert!(!watch.intact(&shown(&history, &healed, true)), "a longer history");
        // A call at the end of the history, answered at the start of the
        // scratchpad: paired without an input between them, not with one.
        let open = MessageRun::new(vec![Message::user("old"), call]);
        let answered = MessageRun::new(vec![result]);
        let split = |input: bool| shown(&open, &answered, input);
        let mut watch = PairWatch::default();
        assert!(watch.intact(&split(false)));
        assert!(
            !watch.intact(&split(true)),
            "an input between a call and its result"
        );
    }
}

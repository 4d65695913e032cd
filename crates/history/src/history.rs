//! The history: full log, window, trigger and compaction (HIST-1 … HIST-9,
//! HIST-11, HIST-13).

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use strata_ctx_compress::{Compressor, RuleFailure};
use strata_ctx_core::{
    rounds, CompactionTarget, Config, Message, MessageId, MessageRun, Role, ShortIds, Summarizer,
    TokenCounter, TokenTally, Usage,
};

use crate::budget::Budget;
use crate::digest::Digest;
use crate::prune::{PruneAction, PruneOutcome, Pruning};
use crate::record::{Record, Recorder};
use crate::repair::{interrupted_result, repair, CallIds, Repair};
use crate::shrink::*;

mod compact;
mod pin;
mod tail;
mod window;

pub use compact::{CompactionPlan, CompactionStats};
pub use pin::{PinOutcome, MAX_RECALLED};
use window::Window;

/// A conversation's history (HIST-11): the full log of every message ever
/// recorded, and the window that is sent to the model — archived summaries
/// first, then the retained messages in their history form.
///
/// Recording keeps the pairing invariant (HIST-2): a step's calls are each
/// answered in the window, by a synthetic `interrupted` result when the
/// agent gives none. Token accounting is incremental: recording a message
/// counts that message only.
#[derive(Clone)]
pub struct History {
    config: Config,
    counter: Arc<dyn TokenCounter>,
    compressor: Compressor,
    log: Vec<Message>,
    /// The window's messages, their tokens, the round's start and what
    /// the model pruned.
    window: Window,
    budget: Budget,
    /// The records of its changes, when recording (STORE-1).
    recorder: Recorder,
    /// Tools whose results are never cleared, lowercase (HIST-15).
    protected: Vec<String>,
    /// Every call id recorded, to rename a reused one (REL-1).
    call_ids: CallIds,
    rule_failures: Vec<RuleFailure>,
}

impl fmt::Debug for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("History")
            .field("log", &self.log.len())
            .field("window", &self.window.len())
            .field("window_tokens", &self.window_tokens())
            .field("round_open", &self.round_open())
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl History {
    /// An empty history.
    pub fn new(config: Config, counter: Arc<dyn TokenCounter>) -> Self {
        History {
            budget: Budget::new(&config),
            config,
            counter,
            compressor: Compressor::new(),
            log: Vec::new(),
            window: Window::default(),
            recorder: Recorder::default(),
            protected: Vec::new(),
            call_ids: CallIds::default(),
            rule_failures: Vec::new(),
        }
    }

    /// A history holding `messages` (a loaded or imported conversation),
    /// repaired for the pairing invariant; the repairs are returned. The
    /// full log keeps the messages as given; the leading `system` messages
    /// are the system prompt and are left out of the window (HIST-1: L1/L2
    /// are never history), while a `system` message later in the
    /// conversation is a notice and stays (REL-1).
    pub fn from_messages(
        config: Config,
        counter: Arc<dyn TokenCounter>,
        messages: Vec<Message>,
    ) -> (Self, Vec<Repair>) {
        let mut h = History::new(config, counter);
        let leading = messages.iter().take_while(|m| m.role == Role::System).count();
        let (window, repairs) = repair(&messages[leading..]);
        h.call_ids = CallIds::of(&window);
        h.log = messages;
        h.set_window(window);
        (h, repairs)
    }

    /// Sets the compressor that makes the history form of tool results. By
    /// default, [`Compressor::new`].
    pub fn set_compressor(&mut self, compressor: Compressor) -> &mut Self {
        self.compressor = compressor;
        self
    }

    /// The budget policy (HIST-14): estimate, trigger, targets and the
    /// overflow guard.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The budget policy, to set what the window holds outside the
    /// history ([`Budget::set_outside`]) or the shed batch.
    pub fn budget_mut(&mut self) -> &mut Budget {
        &mut self.budget
    }

    /// The counter's count of the whole window: the history's messages and
    /// what it does not hold ([`Budget::outside`]).
    fn counted(&self) -> usize {
        self.window_tokens() + self.budget.outside()
    }

    fn set_window(&mut self, window: Vec<Message>) {
        self.window.set(window, &*self.counter);
    }

    /// The short ids of the window's messages (CORE-2), by which the model
    /// names messages to prune; see [`id_hint`](crate::id_hint).
    pub fn short_ids(&self) -> ShortIds {
        ShortIds::new(self.window.messages().iter().map(|m| m.id))
    }

    /// Applies the model's pruning request (HIST-10): `create` replaces the
    /// list of messages to leave out of the window, `append` adds to it,
    /// `delete` takes ids off it. A named tool call or result takes its
    /// whole step with it (parallel calls included), so pairs are never
    /// split; summaries cannot be pruned. The full log keeps everything.
    pub fn prune(&mut self, action: PruneAction) -> PruneOutcome {
        self.record(|| Record::Prune {
            action: action.clone(),
        });
        self.apply_prune(action)
    }

    fn apply_prune(&mut self, action: PruneAction) -> PruneOutcome {
        self.window.prune(action)
    }

    /// Compacts at once because the model rejected the request as too long
    /// (HIST-12), whatever the trigger says.
    ///
    /// # Errors
    ///
    /// [`Error::StillTooLong`](crate::Error::StillTooLong) when nothing was
    /// recorded since the last reactive compaction: compacting again would
    /// change nothing, and the caller must not loop.
    pub async fn compact_after_overflow(
        &mut self,
        summarizer: &dyn Summarizer,
    ) -> crate::Result<CompactionStats> {
        self.overflowed(self.counted())?;
        Ok(self.compact_to_fit(summarizer).await)
    }

    /// Notes the model's rejection of a window counted `sent` as too long
    /// (HIST-12): the budget learns how far the counter was off. The one
    /// guard of every overflow path, this history's and the engine's.
    ///
    /// # Errors
    ///
    /// [`Error::StillTooLong`](crate::Error::StillTooLong) when nothing was
    /// recorded since the last rejection: compacting again would change
    /// nothing, and the caller must not loop.
    pub fn overflowed(&mut self, sent: usize) -> crate::Result<()> {
        if self.budget.overflowed(sent, self.log.len()) {
            Ok(())
        } else {
            Err(crate::Error::StillTooLong {
                window_tokens: self.window_tokens(),
            })
        }
    }

    fn push(&mut self, message: Message, logged: Message) {
        self.window.push(message, &*self.counter);
        self.log.push(logged);
    }

    /// Reserves room for at least `additional` more messages in the window
    /// and the full log, so that recording them does not reallocate.
    pub fn reserve(&mut self, additional: usize) {
        self.window.reserve(additional);
        self.log.reserve(additional);
        self.recorder.reserve(additional);
    }

    /// Starts a round with the user's message (REACT-3).
    pub fn begin_round(&mut self, user: Message) {
        self.window.begin_round();
        self.record(|| Record::User {
            message: user.clone(),
        });
        self.push(user.clone(), user);
    }

    /// Records one assistant step and the results of its calls. Results
    /// enter the window in their history form, in call order; a call
    /// without a result gets an `interrupted` error result; results for
    /// other calls are kept in the full log only.
    ///
    /// Returns the step as it entered the window: the assistant message,
    /// then one result per call.
    pub fn record_step(&mut self, assistant: Message, results: Vec<Message>) -> &[Message] {
        let (assistant, results) = self.unique_call_ids(assistant, results);
        let (answers, rest) = strata_ctx_core::answer_calls(&assistant.tool_calls, results);
        let mut window = Vec::with_capacity(assistant.tool_calls.len());
        let mut logged = Vec::with_capacity(assistant.tool_calls.len());
        for (call, found) in assistant.tool_calls.iter().zip(answers) {
            match found {
                // A pinned result enters as it is (#30.7).
                Some(result) if result.is_pinned() || assistant.is_pinned() => {
                    window.push(result.clone());
                    logged.push(result);
                }
                Some(result) => {
                    let (mut history_form, failure) =
                        self.compressor.compress_message(&result, &call.arguments);
                    self.rule_failures.extend(failure);
                    // A condensed result says how to get it back (#30.5).
                    let data = |m: &Message| m.result.as_ref().map(|r| r.data.clone());
                    if history_form.content != result.content || data(&history_form) != data(&result) {
                        add_recall_handle(&mut history_form);
                    }
                    window.push(history_form);
                    logged.push(result);
                }
                None => {
                    let synthetic = interrupted_result(call);
                    window.push(synthetic.clone());
                    logged.push(synthetic);
                }
            }
        }
        logged.extend(rest);
        self.record(|| Record::Step {
            assistant: assistant.clone(),
            log: logged.clone(),
            window: window.clone(),
        });
        let start = self.window.len();
        self.apply_step(assistant, window, logged);
        &self.window.messages()[start..]
    }

    /// Gives each call of a step whose id was used before (by an earlier
    /// call, or another call of the step) a fresh one, and its result the
    /// same (REL-1): results answer the calls of their id in order. Each
    /// renaming is kept as a [`Repair::Renamed`] for
    /// [`History::take_repairs`]. Steps whose ids are new come back as
    /// they are; [`History::record_step`] does this itself, and an engine
    /// calls it first to keep its own views of the step consistent.
    pub fn unique_call_ids(&mut self, assistant: Message, results: Vec<Message>) -> (Message, Vec<Message>) {
        self.call_ids.unique(assistant, results)
    }

    /// The repairs made while recording since the last call (a reused call
    /// id renamed, REL-1), for the caller to report.
    pub fn take_repairs(&mut self) -> Vec<Repair> {
        self.call_ids.take_repairs()
    }

    /// The compression rules that failed while recording since the last
    /// call (the generic rule stood in for each), for the caller to
    /// report: a custom rule's failure is never dropped silently.
    pub fn take_rule_failures(&mut self) -> Vec<RuleFailure> {
        std::mem::take(&mut self.rule_failures)
    }

    fn apply_step(&mut self, assistant: Message, window: Vec<Message>, logged: Vec<Message>) {
        self.call_ids.note(&assistant.tool_calls);
        self.push(assistant.clone(), assistant);
        for m in window {
            self.window.push(m, &*self.counter);
        }
        self.log.extend(logged);
    }

    /// Ends the round with the assistant's final answer (REACT-2).
    pub fn finish_round(&mut self, answer: Message) {
        self.record(|| Record::Answer {
            message: answer.clone(),
        });
        self.push(answer.clone(), answer);
        self.window.finish_round();
    }

    /// Records the usage the provider reported for the last call (REACT-4),
    /// made on the window as it is now. Messages recorded after it are
    /// estimated with the token counter.
    pub fn record_usage(&mut self, usage: Usage) {
        self.record_usage_at(usage, self.counted());
    }

    /// [`History::record_usage`] for a request whose window the counter
    /// counted `counted` tokens (the window sent, when more was recorded
    /// since).
    pub fn record_usage_at(&mut self, usage: Usage, counted: usize) {
        self.record(|| Record::Usage { usage });
        self.budget.record_usage(usage.input_tokens, counted);
    }

    /// The records of everything recorded since the last call, for a
    /// store (`strata-ctx-store`'s `Conversation`) to persist (STORE-1). Keep
    /// them if persisting fails: nothing is lost.
    pub fn take_records(&mut self) -> Vec<Record> {
        self.recorder.take()
    }

    /// Sets whether changes are kept as [`Record`]s for
    /// [`History::take_records`]. By default, they are not: a history that
    /// is never persisted does not hold a second copy of what it records.
    pub fn set_recording(&mut self, recording: bool) -> &mut Self {
        self.recorder.set(recording);
        self
    }

    /// Keeps the record `make` builds, when recording; builds nothing
    /// otherwise.
    fn record(&mut self, make: impl FnOnce() -> Record) {
        self.recorder.record(make);
    }

    /// Rebuilds a history from its records (STORE-3): the window is the
    /// one the live history had, byte for byte. Records are applied as
    /// made; compactions are not run again.
    pub fn replay(
        config: Config,
        counter: Arc<dyn TokenCounter>,
        records: impl IntoIterator<Item = Record>,
    ) -> Self {
        let mut h = History::new(config, counter);
        for record in records {
            match record {
                Record::User { message } => {
                    h.window.begin_round();
                    h.push(message.clone(), message);
                }
                Record::Step {
                    assistant,
                    log,
                    window,
                } => h.apply_step(assistant, window, log),
                Record::Answer { message } => {
                    h.push(message.clone(), message);
                    h.window.finish_round();
                }
                Record::Usage { usage } => {
                    let counted = h.counted();
                    h.budget.record_usage(usage.input_tokens, counted);
                }
                Record::Compaction {
                    archived,
                    summary,
                    replaced,
                } => {
                    h.apply_compaction(&archived, summary, replaced);
                }
                Record::Prune { action } => {
                    h.apply_prune(action);
                }
                Record::Pin { ids, pinned } => {
                    h.apply_pin(&ids, pinned);
                }
                // The engine's session context and suggestions, not the
                // history's.
                Record::Session { .. } | Record::Suggestions { .. } => {}
            }
        }
        h
    }

    /// Logs follow-up suggestions (MEM-3) with the history's records:
    /// they are persisted, and never enter the window.
    pub fn record_suggestions(&mut self, items: Vec<String>) {
        self.record(|| Record::Suggestions { items });
    }

    /// Logs a change of the session context (MEM-1) with the history's
    /// records, so that it is persisted in order with them.
    pub fn record_session(&mut self, update: strata_ctx_memory::Update) {
        self.record(|| Record::Session { update });
    }

    fn apply_compaction(&mut self, archived: &[MessageId], summary: Option<Message>, replaced: Vec<Message>) {
        let gone: std::collections::HashSet<&MessageId> = archived.iter().collect();
        let summaries = self.window.summaries();
        let old = self.window.messages();
        let new_form = |m: &Message| replaced.iter().find(|r| r.id == m.id).unwrap_or(m).clone();
        let mut window: Vec<Message> = old[..summaries]
            .iter()
            .filter(|m| !gone.contains(&m.id))
            .map(new_form)
            .collect();
        window.extend(summary);
        window.extend(
            old[summaries..]
                .iter()
                .filter(|m| !gone.contains(&m.id))
                .map(new_form),
        );
        self.set_window(window);
        self.budget.compacted(self.log.len());
    }

    /// Marks tools whose results are never cleared (HIST-15), by their
    /// names as [`strata_ctx_tools::normalize`] spells them. By default,
    /// none.
    pub fn set_protected_tools<I, S>(&mut self, tools: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.protected = tools
            .into_iter()
            .map(|t| strata_ctx_tools::normalize(t.as_ref()))
            .collect();
        self
    }

    /// Whether `message` is the result of a protected tool (HIST-15).
    pub fn is_protected(&self, message: &Message) -> bool {
        message.role == Role::Tool
            && message
                .tool_name
                .as_deref()
                .is_some_and(|n| self.is_protected_tool(n))
    }

    /// Whether the tool `name` is protected (HIST-15), by its
    /// [`strata_ctx_tools::normalize`]d name.
    pub fn is_protected_tool(&self, name: &str) -> bool {
        !self.protected.is_empty() && self.protected.contains(&strata_ctx_tools::normalize(name))
    }
}

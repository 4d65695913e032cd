//! The history: full log, window, trigger and compaction (HIST-1 … HIST-9,
//! HIST-11, HIST-13).

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use strata_ctx_compress::{Compressor, RuleFailure};
use strata_ctx_core::{
    rounds, CompactionTarget, Config, Message, MessageId, ProgressFn, ResultStatus, Role, ShortIds,
    Summarizer, TokenCounter, TokenTally, ToolResult, Usage,
};

use crate::budget::Budget;
use crate::digest::Digest;
use crate::prune::{self, PruneAction, PruneOutcome};
use crate::record::Record;
use crate::repair::{interrupted_result, repair, Repair};

/// The text that replaces a tool result cleared to save tokens (HIST-6).
pub const CLEARED: &str = "[tool result cleared to save tokens]";

/// How the notice that stands in for a failed summary begins (HIST-7).
pub const DEGRADED_PREFIX: &str = "Summary generation";

/// Whether a summary message is the notice of a failed summary.
fn is_degraded(m: &Message) -> bool {
    m.role == Role::Summary && m.content.starts_with(DEGRADED_PREFIX)
}

/// Thoughts of old steps are cut to this many characters (HIST-16).
pub const MAX_THOUGHT_CHARS: usize = 300;

/// User messages of earlier rounds longer than this many characters are
/// cut when the budget needs it (HIST-16).
pub const MAX_USER_CHARS: usize = 2_000;

/// Tool-call arguments longer than this are cut when clearing is not
/// enough (HIST-6).
pub const MAX_ARGUMENT_CHARS: usize = 500;

/// Shrinks the tool-call arguments of `message` (HIST-6, HIST-16): the
/// body of a write becomes its size and fingerprint
/// (`[file body: 120 lines, 4,210 bytes, fnv1a 3f2a…]`), the old and new
/// text of an edit their line counts (`[edit: 3 lines → 5 lines]`), so the
/// path stays; then arguments still longer than [`MAX_ARGUMENT_CHARS`]
/// characters are cut, and the cut JSON text, with `…`, becomes a string
/// argument. Returns how many calls were changed.
pub fn cut_arguments(message: &mut Message) -> usize {
    let mut cut = 0;
    for call in &mut message.tool_calls {
        if matches!(&call.arguments, Value::String(s) if s.ends_with('…')) {
            continue;
        }
        let mut changed = shrink_bodies(&call.name, &mut call.arguments);
        let text = call.arguments.to_string();
        if text.chars().count() > MAX_ARGUMENT_CHARS {
            let head: String = text.chars().take(MAX_ARGUMENT_CHARS).collect();
            call.arguments = Value::String(format!("{head}…"));
            changed = true;
        }
        cut += usize::from(changed);
    }
    cut
}

/// Replaces the long text bodies of a write or edit call by what they
/// were; returns whether anything changed.
fn shrink_bodies(tool: &str, arguments: &mut Value) -> bool {
    const BODY: usize = 200;
    let kind = strata_ctx_compress::canonical_call(tool, arguments);
    let Value::Object(map) = arguments else {
        return false;
    };
    let lines = |s: &str| s.lines().count().max(usize::from(!s.is_empty()));
    let mut changed = false;
    match kind {
        Some(strata_ctx_compress::ToolKind::Write) => {
            for key in ["content", "file_text", "text", "contents"] {
                if let Some(Value::String(body)) = map.get_mut(key) {
                    if body.len() > BODY {
                        *body = format!(
                            "[file body: {} lines, {} bytes, fnv1a {:016x}]",
                            lines(body),
                            body.len(),
                            strata_ctx_core::fnv1a(body.as_bytes())
                        );
                        changed = true;
                    }
                }
            }
        }
        Some(strata_ctx_compress::ToolKind::Edit | strata_ctx_compress::ToolKind::MultiEdit) => {
            let pairs = [
                ("old_string", "new_string"),
                ("old_str", "new_str"),
                ("old_text", "new_text"),
            ];
            for (old_key, new_key) in pairs {
                let old = map.get(old_key).and_then(Value::as_str).map(str::to_owned);
                let new = map.get(new_key).and_then(Value::as_str).map(str::to_owned);
                let (Some(old), Some(new)) = (old, new) else {
                    continue;
                };
                if old.len() + new.len() > BODY {
                    map.remove(old_key);
                    map.insert(
                        new_key.to_owned(),
                        Value::String(format!("[edit: {} lines → {} lines]", lines(&old), lines(&new))),
                    );
                    changed = true;
                }
            }
            if let Some(Value::Array(edits)) = map.get_mut("edits") {
                for edit in edits {
                    changed |= shrink_bodies("Edit", edit);
                }
            }
        }
        _ => {}
    }
    changed
}

/// What one compaction did (HIST-9).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct CompactionStats {
    /// Window tokens before.
    pub tokens_before: usize,
    /// Window tokens after.
    pub tokens_after: usize,
    /// Tokens of the messages archived into the summary.
    pub tokens_archived: usize,
    /// Tokens of the new summary message.
    pub summary_tokens: usize,
    /// Complete rounds archived.
    pub rounds_archived: usize,
    /// Complete rounds kept.
    pub rounds_retained: usize,
    /// Tool results cleared to fit the budget (HIST-6).
    pub tool_results_cleared: usize,
    /// Tool-call arguments cut to fit the budget (HIST-6).
    pub arguments_cut: usize,
    /// The budget the window had to fit.
    pub threshold_tokens: usize,
    /// Whether the summary failed and the notice stands in its place
    /// (HIST-7).
    pub degraded: bool,
    /// The summariser's error, when degraded.
    pub degraded_reason: Option<String>,
    /// Whether the window is still over the budget (HIST-6): the newest
    /// rounds alone do not fit.
    pub over_budget: bool,
    /// Milliseconds the compaction took.
    pub elapsed_ms: u64,
}

/// What a compaction would do; see [`History::plan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompactionPlan {
    /// Leading summaries of the window, kept as they are.
    pub summaries: usize,
    /// The window's messages from `summaries` up to this index are
    /// archived (all of them, or one side with a compaction target).
    pub archive_end: usize,
    /// Complete rounds archived.
    pub rounds_archived: usize,
    /// Complete rounds kept.
    pub rounds_retained: usize,
    /// Tokens of the messages up to `archive_end`.
    pub tokens_archived: usize,
}

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
    window: Vec<Message>,
    tally: TokenTally,
    round_open: bool,
    /// Where the round in progress starts in the (unpruned) window: kept
    /// as the window changes, so that asking costs nothing (REL-3).
    round_at: Option<usize>,
    budget: Budget,
    records: Vec<Record>,
    recording: bool,
    prune_list: Vec<MessageId>,
    pruned: HashSet<MessageId>,
    /// Tools whose results are never cleared, lowercase (HIST-15).
    protected: Vec<String>,
    /// Every call id recorded, to rename a reused one (REL-1).
    call_ids: HashSet<String>,
    /// Repairs made while recording, for the caller to report.
    repairs: Vec<Repair>,
    rule_failures: Vec<RuleFailure>,
    pruned_tokens: usize,
    progress: Option<ProgressFn>,
}

impl fmt::Debug for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("History")
            .field("log", &self.log.len())
            .field("window", &self.window.len())
            .field("window_tokens", &self.tally.total())
            .field("round_open", &self.round_open)
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
            window: Vec::new(),
            tally: TokenTally::new(),
            round_open: false,
            round_at: None,
            records: Vec::new(),
            recording: false,
            prune_list: Vec::new(),
            pruned: HashSet::new(),
            protected: Vec::new(),
            call_ids: HashSet::new(),
            repairs: Vec::new(),
            rule_failures: Vec::new(),
            pruned_tokens: 0,
            progress: None,
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
        h.call_ids = window
            .iter()
            .flat_map(|m| &m.tool_calls)
            .map(|c| c.id.clone())
            .collect();
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

    /// Sets the callback that receives the summariser's progress during a
    /// compaction (HIST-7). By default, none.
    pub fn set_progress(&mut self, progress: Option<ProgressFn>) -> &mut Self {
        self.progress = progress;
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
        self.tally = TokenTally::from_messages(&*self.counter, &window);
        self.window = window;
        self.round_at = self.window.iter().rposition(|m| m.role == Role::User);
        self.refresh_pruned();
    }

    /// Recomputes the pruned units from the requested ids, after the window
    /// changed.
    fn refresh_pruned(&mut self) {
        self.pruned = prune::expand(&self.window, &self.prune_list);
        self.pruned_tokens = self
            .window
            .iter()
            .enumerate()
            .filter(|(_, m)| self.pruned.contains(&m.id))
            .map(|(i, _)| self.tally.get(i).unwrap_or(0))
            .sum();
    }

    /// The short ids of the window's messages (CORE-2), by which the model
    /// names messages to prune; see [`id_hint`](crate::id_hint).
    pub fn short_ids(&self) -> ShortIds {
        ShortIds::new(self.window.iter().map(|m| m.id))
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
        let short = self.short_ids();
        let mut outcome = PruneOutcome::default();
        let (ids, mode) = match action {
            PruneAction::Create(ids) => (ids, 0),
            PruneAction::Append(ids) => (ids, 1),
            PruneAction::Delete(ids) => (ids, 2),
        };
        let mut resolved = Vec::new();
        for text in ids {
            match short.resolve(&text) {
                Ok(id) if self.window.iter().any(|m| m.id == id && m.role == Role::Summary) => outcome
                    .rejected
                    .push(format!("{text}: summaries cannot be pruned")),
                Ok(id) => resolved.push(id),
                Err(e) => outcome.rejected.push(format!("{text}: {e}")),
            }
        }
        match mode {
            0 => self.prune_list = resolved,
            1 => {
                for id in resolved {
                    if !self.prune_list.contains(&id) {
                        self.prune_list.push(id);
                    }
                }
            }
            _ => self.prune_list.retain(|id| !resolved.contains(id)),
        }
        self.refresh_pruned();
        outcome.hidden = self
            .window
            .iter()
            .filter(|m| self.pruned.contains(&m.id))
            .map(|m| m.id)
            .collect();
        outcome
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
        if !self.budget.overflowed(self.counted(), self.log.len()) {
            return Err(crate::Error::StillTooLong {
                window_tokens: self.window_tokens(),
            });
        }
        Ok(self.compact_to_fit(summarizer).await)
    }

    fn push(&mut self, message: Message, logged: Message) {
        self.tally.push(&*self.counter, &message);
        self.window.push(message);
        self.log.push(logged);
    }

    /// Reserves room for at least `additional` more messages in the window
    /// and the full log, so that recording them does not reallocate.
    pub fn reserve(&mut self, additional: usize) {
        self.window.reserve(additional);
        self.log.reserve(additional);
        self.tally.reserve(additional);
        self.records.reserve(additional);
    }

    /// Starts a round with the user's message (REACT-3).
    pub fn begin_round(&mut self, user: Message) {
        self.round_open = true;
        self.round_at = Some(self.window.len());
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
        let mut results: Vec<Option<Message>> = results.into_iter().map(Some).collect();
        let mut window = Vec::with_capacity(assistant.tool_calls.len());
        let mut logged = Vec::with_capacity(assistant.tool_calls.len());
        for call in &assistant.tool_calls {
            let found = results
                .iter_mut()
                .find(|r| {
                    r.as_ref()
                        .is_some_and(|r| r.tool_call_id.as_deref() == Some(call.id.as_str()))
                })
                .and_then(Option::take);
            match found {
                Some(result) => {
                    let (history_form, failure) = self.compressor.compress_message(&result, &call.arguments);
                    self.rule_failures.extend(failure);
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
        logged.extend(results.into_iter().flatten());
        self.record(|| Record::Step {
            assistant: assistant.clone(),
            log: logged.clone(),
            window: window.clone(),
        });
        let start = self.window.len();
        self.apply_step(assistant, window, logged);
        &self.window[start..]
    }

    /// Gives each call of a step whose id was used before (by an earlier
    /// call, or another call of the step) a fresh one, and its result the
    /// same (REL-1): results answer the calls of their id in order. Each
    /// renaming is kept as a [`Repair::Renamed`] for
    /// [`History::take_repairs`]. Steps whose ids are new come back as
    /// they are; [`History::record_step`] does this itself, and an engine
    /// calls it first to keep its own views of the step consistent.
    pub fn unique_call_ids(
        &mut self,
        mut assistant: Message,
        mut results: Vec<Message>,
    ) -> (Message, Vec<Message>) {
        let mut step: HashSet<&str> = HashSet::new();
        let fine = assistant
            .tool_calls
            .iter()
            .all(|c| !self.call_ids.contains(&c.id) && step.insert(c.id.as_str()));
        if fine {
            return (assistant, results);
        }
        let mut taken: HashSet<String> = HashSet::new();
        let mut renamed: Vec<(String, String)> = Vec::new();
        for call in &mut assistant.tool_calls {
            if self.call_ids.contains(&call.id) || !taken.insert(call.id.clone()) {
                let new =
                    crate::repair::fresh_id(&call.id, &|id| self.call_ids.contains(id) || taken.contains(id));
                taken.insert(new.clone());
                self.repairs.push(Repair::Renamed {
                    old: call.id.clone(),
                    new: new.clone(),
                });
                renamed.push((call.id.clone(), new.clone()));
                call.id = new;
            } else {
                renamed.push((call.id.clone(), call.id.clone()));
            }
        }
        // Results take the ids of their calls, in call order per old id.
        let mut used = vec![false; renamed.len()];
        for r in &mut results {
            let Some(old) = r.tool_call_id.clone() else {
                continue;
            };
            if let Some(k) = (0..renamed.len()).find(|&k| !used[k] && renamed[k].0 == old) {
                used[k] = true;
                r.tool_call_id = Some(renamed[k].1.clone());
            }
        }
        (assistant, results)
    }

    /// The repairs made while recording since the last call (a reused call
    /// id renamed, REL-1), for the caller to report.
    pub fn take_repairs(&mut self) -> Vec<Repair> {
        std::mem::take(&mut self.repairs)
    }

    /// The compression rules that failed while recording since the last
    /// call (the generic rule stood in for each), for the caller to
    /// report: a custom rule's failure is never dropped silently.
    pub fn take_rule_failures(&mut self) -> Vec<RuleFailure> {
        std::mem::take(&mut self.rule_failures)
    }

    fn apply_step(&mut self, assistant: Message, window: Vec<Message>, logged: Vec<Message>) {
        self.call_ids
            .extend(assistant.tool_calls.iter().map(|c| c.id.clone()));
        self.push(assistant.clone(), assistant);
        for m in window {
            self.tally.push(&*self.counter, &m);
            self.window.push(m);
        }
        self.log.extend(logged);
    }

    /// Ends the round with the assistant's final answer (REACT-2).
    pub fn finish_round(&mut self, answer: Message) {
        self.record(|| Record::Answer {
            message: answer.clone(),
        });
        self.push(answer.clone(), answer);
        self.round_open = false;
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
    /// [`Conversation`](crate::Conversation) to persist (STORE-1). Keep
    /// them if persisting fails: nothing is lost.
    pub fn take_records(&mut self) -> Vec<Record> {
        std::mem::take(&mut self.records)
    }

    /// Sets whether changes are kept as [`Record`]s for
    /// [`History::take_records`]. By default, they are not: a history that
    /// is never persisted does not hold a second copy of what it records.
    pub fn set_recording(&mut self, recording: bool) -> &mut Self {
        self.recording = recording;
        self
    }

    /// Keeps the record `make` builds, when recording; builds nothing
    /// otherwise.
    fn record(&mut self, make: impl FnOnce() -> Record) {
        if self.recording {
            self.records.push(make());
        }
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
                    h.round_open = true;
                    h.round_at = Some(h.window.len());
                    h.push(message.clone(), message);
                }
                Record::Step {
                    assistant,
                    log,
                    window,
                } => h.apply_step(assistant, window, log),
                Record::Answer { message } => {
                    h.push(message.clone(), message);
                    h.round_open = false;
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
            }
        }
        h
    }

    fn apply_compaction(&mut self, archived: &[MessageId], summary: Option<Message>, replaced: Vec<Message>) {
        let gone: std::collections::HashSet<&MessageId> = archived.iter().collect();
        let summaries = self.window.iter().take_while(|m| m.role == Role::Summary).count();
        let mut window: Vec<Message> = self.window[..summaries]
            .iter()
            .filter(|m| !gone.contains(&m.id))
            .cloned()
            .collect();
        window.extend(summary);
        for m in &self.window[summaries..] {
            if gone.contains(&m.id) {
                continue;
            }
            match replaced.iter().find(|r| r.id == m.id) {
                Some(r) => window.push(r.clone()),
                None => window.push(m.clone()),
            }
        }
        self.set_window(window);
        self.budget.compacted(self.log.len());
    }

    /// The window: summaries, then the retained messages.
    ///
    /// Messages pruned by the model (HIST-10) are left out.
    pub fn window(&self) -> Cow<'_, [Message]> {
        if self.pruned.is_empty() {
            Cow::Borrowed(&self.window)
        } else {
            Cow::Owned(
                self.window
                    .iter()
                    .filter(|m| !self.pruned.contains(&m.id))
                    .cloned()
                    .collect(),
            )
        }
    }

    /// The number of messages in [`History::window`], without building
    /// it.
    pub fn window_len(&self) -> usize {
        if self.pruned.is_empty() {
            self.window.len()
        } else {
            self.window
                .iter()
                .filter(|m| !self.pruned.contains(&m.id))
                .count()
        }
    }

    /// Every message ever recorded, as recorded.
    pub fn full_log(&self) -> &[Message] {
        &self.log
    }

    /// Whether a round is in progress.
    pub fn round_open(&self) -> bool {
        self.round_open
    }

    /// Where the round in progress starts in the (unpruned) window.
    fn round_start(&self) -> Option<usize> {
        self.round_at.filter(|_| self.round_open)
    }

    /// Whether the window holds messages of earlier rounds (beyond the
    /// summaries) that a compaction could archive; costs nothing.
    pub fn has_earlier_rounds(&self) -> bool {
        let end = self.round_start().unwrap_or(self.window.len());
        end > 0 && self.window[end - 1].role != Role::Summary
    }

    /// The tokens of [`History::retained`]: the window without the round
    /// in progress, pruned messages left out.
    pub fn retained_tokens(&self) -> usize {
        let end = self.round_start().unwrap_or(self.window.len());
        if self.pruned.is_empty() {
            return self.tally.sum(0..end);
        }
        (0..end)
            .filter(|&i| !self.pruned.contains(&self.window[i].id))
            .map(|i| self.tally.get(i).unwrap_or(0))
            .sum()
    }

    /// The window without the round in progress (pruned messages left
    /// out): what a context builder renders as layer L3 while the round's
    /// own steps come from its scratchpad (REACT-3).
    pub fn retained(&self) -> Cow<'_, [Message]> {
        let end = self.round_start().unwrap_or(self.window.len());
        let part = &self.window[..end];
        if self.pruned.is_empty() {
            Cow::Borrowed(part)
        } else {
            Cow::Owned(
                part.iter()
                    .filter(|m| !self.pruned.contains(&m.id))
                    .cloned()
                    .collect(),
            )
        }
    }

    /// The tokens of the round in progress in the window (its user message
    /// and its steps in history form, pruned ones left out); 0 between
    /// rounds.
    pub fn round_tokens(&self) -> usize {
        if self.round_start().is_none() {
            return 0;
        }
        self.window_tokens() - self.retained_tokens()
    }

    /// Whether the model pruned the message with this id from the window
    /// (HIST-10).
    pub fn is_hidden(&self, id: &MessageId) -> bool {
        self.pruned.contains(id)
    }

    /// The window's tokens by the token counter.
    pub fn window_tokens(&self) -> usize {
        self.tally.total() - self.pruned_tokens
    }

    /// What the history's messages may take, in the counter's tokens: the
    /// threshold less what the window holds outside the history
    /// ([`Budget::history_room`]). Compaction fits the history into it.
    pub fn room_tokens(&self) -> usize {
        self.budget.history_room()
    }

    /// The size of the next request as the budget estimates it
    /// ([`Budget::estimate`]): the last usage's input tokens plus what was
    /// counted since, or, without a usage figure (or after a compaction
    /// made it stale), the count of the window.
    pub fn estimated_tokens(&self) -> usize {
        self.budget.estimate(self.counted())
    }

    /// The estimated share of the context window in use (HIST-13).
    pub fn usage_fraction(&self) -> f64 {
        self.budget.usage_fraction(self.counted())
    }

    /// Whether automatic compaction should run now
    /// ([`Budget::compaction_due`], HIST-4, HIST-13): it is switched on,
    /// the window holds at least `min_messages_to_compact` messages, the
    /// estimate reaches the threshold, and something was recorded since
    /// the last compaction.
    pub fn needs_compaction(&self) -> bool {
        self.budget
            .compaction_due(self.counted(), self.window.len(), self.log.len())
    }

    /// Compacts when [`History::needs_compaction`] says so.
    pub async fn compact_if_needed(&mut self, summarizer: &dyn Summarizer) -> Option<CompactionStats> {
        if self.needs_compaction() {
            Some(self.compact(summarizer).await)
        } else {
            None
        }
    }

    /// What [`History::compact`] would do now, without doing it: which
    /// messages would be archived and how many complete rounds kept
    /// (HIST-3). Costs one pass over the window's rounds.
    pub fn plan(&self) -> CompactionPlan {
        self.plan_with(self.config.min_retain_rounds)
    }

    /// [`History::plan`] keeping at least `min_retain` complete rounds
    /// (and more while they fit) instead of `min_retain_rounds`.
    pub fn plan_with(&self, min_retain: usize) -> CompactionPlan {
        let budget = self.room_tokens();
        let summaries = self.window.iter().take_while(|m| m.role == Role::Summary).count();
        let body = &self.window[summaries..];
        let body_rounds = rounds(body);
        let in_progress = usize::from(self.round_open && !body_rounds.is_empty());
        let complete = body_rounds.len() - in_progress;
        let round_tokens: Vec<usize> = body_rounds
            .iter()
            .map(|r| self.tally.sum(summaries + r.start..summaries + r.end))
            .collect();
        let summary_reserve = (budget / 10).min(2_000);
        let fixed =
            self.tally.sum(0..summaries) + summary_reserve + round_tokens[complete..].iter().sum::<usize>();
        let mut keep = complete.min(min_retain);
        let mut kept_tokens: usize = round_tokens[complete - keep..complete].iter().sum();
        while keep < complete && fixed + kept_tokens + round_tokens[complete - keep - 1] <= budget {
            kept_tokens += round_tokens[complete - keep - 1];
            keep += 1;
        }
        // Everything before the first retained round is archived, including
        // messages before the first user message, once any round goes.
        let cut = if keep == complete {
            0
        } else {
            body_rounds.get(complete - keep).map_or(body.len(), |r| r.start)
        };
        CompactionPlan {
            summaries,
            archive_end: summaries + cut,
            rounds_archived: complete - keep,
            rounds_retained: keep,
            tokens_archived: self.tally.sum(summaries..summaries + cut),
        }
    }

    /// Compacts the window now (HIST-3, HIST-5 … HIST-7, HIST-9).
    ///
    /// The oldest complete rounds that do not fit are summarised into one
    /// `summary` message placed after the earlier summaries, which are
    /// never touched; at least the newest `min_retain_rounds` complete
    /// rounds and the round in progress are kept. If the summariser fails
    /// or takes longer than `summary_timeout`, a notice stands in for the
    /// summary and the archived rounds are dropped from the window. If the
    /// window is still over the budget, tool results are cleared oldest
    /// first (the newest `keep_tool_messages` stay), then long tool-call
    /// arguments are cut; if even that is not enough,
    /// [`CompactionStats::over_budget`] is set. The full log is never
    /// changed.
    pub async fn compact(&mut self, summarizer: &dyn Summarizer) -> CompactionStats {
        self.compact_with(summarizer, self.config.min_retain_rounds).await
    }

    /// [`History::compact`] when the budget cannot wait (HIST-14): the
    /// retention of `min_retain_rounds` yields, and only the complete
    /// rounds that fit the budget are kept (none, if none fits).
    pub async fn compact_to_fit(&mut self, summarizer: &dyn Summarizer) -> CompactionStats {
        self.compact_with(summarizer, 0).await
    }

    async fn compact_with(&mut self, summarizer: &dyn Summarizer, min_retain: usize) -> CompactionStats {
        let started = Instant::now();
        let budget = self.room_tokens();
        let mut stats = CompactionStats {
            tokens_before: self.tally.total(),
            threshold_tokens: budget,
            ..CompactionStats::default()
        };
        let plan = self.plan_with(min_retain);
        let (summaries, cut) = (plan.summaries, plan.archive_end - plan.summaries);
        let body = &self.window[summaries..];
        let (complete, keep) = (plan.rounds_archived + plan.rounds_retained, plan.rounds_retained);
        // HIST-8: with a target, only that side of the old rounds is
        // summarised; the other side stays verbatim. Steps (a call message
        // and its results) always stay together on the assistant side.
        let side = |m: &Message| match self.config.compaction_target {
            CompactionTarget::All => true,
            CompactionTarget::User => m.role == Role::User,
            CompactionTarget::Assistant => m.role != Role::User,
        };
        let mut archived: Vec<Message> = Vec::new();
        let mut kept_old: Vec<Message> = Vec::new();
        for (i, m) in body[..cut].iter().enumerate() {
            if side(m) {
                stats.tokens_archived += self.tally.get(summaries + i).unwrap_or(0);
                archived.push(m.clone());
            } else {
                kept_old.push(m.clone());
            }
        }
        stats.rounds_archived = complete - keep;
        stats.rounds_retained = keep;

        // HIST-17: summaries merge. The summariser gets the earlier
        // summaries with the archived messages and its summary replaces
        // them all; when it fails, the earlier summaries stay and one
        // notice stands for every failed attempt.
        let earlier = &self.window[..summaries];
        let mut window: Vec<Message> = Vec::with_capacity(self.window.len() + 1);
        let mut dropped: Vec<MessageId> = Vec::new();
        let mut summary = None;
        if !archived.is_empty() {
            // What the archived steps did, from the full log (REACT-6): the
            // summary replaces every earlier one, so the facts cover
            // everything before the retained messages.
            let end = self.window[summaries + cut..]
                .first()
                .and_then(|kept| self.log.iter().position(|m| m.id == kept.id))
                .unwrap_or(self.log.len());
            let mut digest = Digest::new();
            digest.observe_messages(&self.log[..end]);
            let facts = digest
                .has_facts()
                .then(|| digest.render((budget / 10).clamp(200, 2_000) * 3));
            let mut input: Vec<Message> = earlier.iter().filter(|m| !is_degraded(m)).cloned().collect();
            input.extend(archived.iter().cloned());
            // The change tracker feeds the summary's file-state section.
            if let Some(facts) = &facts {
                input.push(
                    Message::system(format!(
                        "Facts of the archived steps, from the change tracker (ground the File System State section in them):\n{facts}"
                    ))
                    .with_id(MessageId::derived(&format!("strata:facts:{end}")))
                    .with_created_at(None),
                );
            }
            let text = match tokio::time::timeout(
                self.config.summary_timeout,
                summarizer.summarize(&input, self.progress.clone()),
            )
            .await
            {
                Ok(Ok(text)) => Ok(text),
                Ok(Err(e)) => {
                    stats.degraded = true;
                    stats.degraded_reason = Some(e.to_string());
                    Err(format!(
                        "{DEGRADED_PREFIX} failed ({e}), keeping recent history only."
                    ))
                }
                Err(_) => {
                    stats.degraded = true;
                    stats.degraded_reason = Some("timed out".into());
                    Err(format!(
                        "{DEGRADED_PREFIX} timed out, keeping recent history only."
                    ))
                }
            };
            let text = match text {
                Ok(text) => {
                    dropped.extend(earlier.iter().map(|m| m.id));
                    text
                }
                Err(mut notice) => {
                    dropped.extend(earlier.iter().filter(|m| is_degraded(m)).map(|m| m.id));
                    window.extend(earlier.iter().filter(|m| !is_degraded(m)).cloned());
                    if let Some(facts) = &facts {
                        notice.push_str("\n\n");
                        notice.push_str(facts);
                    }
                    notice
                }
            };
            let first = archived.first().map(|m| m.id.to_string()).unwrap_or_default();
            let last = archived.last().map(|m| m.id.to_string()).unwrap_or_default();
            let message = Message::summary(text)
                .with_id(MessageId::derived(&format!("strata:summary:{first}:{last}")))
                .with_created_at(archived.last().and_then(|m| m.created_at));
            stats.summary_tokens = self.counter.count_message(&message);
            window.push(message.clone());
            summary = Some(message);
        } else {
            window.extend_from_slice(earlier);
        }
        window.extend(kept_old);
        window.extend_from_slice(&self.window[summaries + cut..]);
        self.set_window(window);
        let changed = self.fit_budget(budget, &mut stats);
        // Clearing changed token counts that the pruned total relies on.
        self.refresh_pruned();
        if self.recording {
            let replaced = changed.iter().map(|&i| self.window[i].clone()).collect();
            self.records.push(Record::Compaction {
                archived: dropped
                    .iter()
                    .copied()
                    .chain(archived.iter().map(|m| m.id))
                    .collect(),
                summary,
                replaced,
            });
        }
        stats.tokens_after = self.window_tokens();
        stats.over_budget = self.tally.total() > budget;
        stats.elapsed_ms = started.elapsed().as_millis() as u64;
        // The usage figure described the old window: it is stale now.
        self.budget.compacted(self.log.len());
        stats
    }

    /// HIST-6: clear tool results oldest first, then cut long arguments,
    /// keeping the newest `keep_tool_messages` tool messages intact.
    /// Returns the indices of the messages it changed, in order.
    fn fit_budget(&mut self, budget: usize, stats: &mut CompactionStats) -> Vec<usize> {
        let mut changed = Vec::new();
        if self.tally.total() <= budget {
            return changed;
        }
        let tools: Vec<usize> = self
            .window
            .iter()
            .enumerate()
            .filter(|(_, m)| m.role == Role::Tool && !self.is_protected(m))
            .map(|(i, _)| i)
            .collect();
        let preferred = tools.len().saturating_sub(self.config.keep_tool_messages);
        // Calls before the newest kept results, and everything before the
        // last user message (the task in progress stays whole).
        let old_end = tools.get(preferred).copied().unwrap_or(self.window.len());
        let last_user = self.window.iter().rposition(|m| m.role == Role::User);
        // What may shrink, in order (HIST-6, HIST-16): the older results;
        // the older calls' arguments and thoughts; long user messages of
        // earlier rounds; then the preferences yield: the newest
        // `keep_tool_messages` results and every call's arguments.
        let mut stages: Vec<(usize, Shrink)> = Vec::new();
        stages.extend(tools[..preferred].iter().map(|&i| (i, clear as Shrink)));
        stages.extend((0..old_end).map(|i| (i, shrink_step as Shrink)));
        stages.extend((0..last_user.unwrap_or(0)).map(|i| (i, cut_user as Shrink)));
        stages.extend(tools[preferred..].iter().map(|&i| (i, clear as Shrink)));
        stages.extend((old_end..self.window.len()).map(|i| (i, shrink_step as Shrink)));
        for (i, shrink) in stages {
            if self.tally.total() <= budget {
                break;
            }
            let n = shrink(&mut self.window[i]);
            if n == 0 {
                continue;
            }
            self.tally.replace(i, &*self.counter, &self.window[i]);
            match self.window[i].role {
                Role::Tool => stats.tool_results_cleared += n,
                Role::Assistant => stats.arguments_cut += n,
                _ => {}
            }
            changed.push(i);
        }
        changed.sort_unstable();
        changed.dedup();
        changed
    }

    /// Marks tools whose results are never cleared (HIST-15), names
    /// matched case-insensitively. By default, none.
    pub fn set_protected_tools<I, S>(&mut self, tools: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.protected = tools
            .into_iter()
            .map(|t| t.as_ref().to_ascii_lowercase())
            .collect();
        self
    }

    /// Whether `message` is the result of a protected tool (HIST-15).
    pub fn is_protected(&self, message: &Message) -> bool {
        !self.protected.is_empty()
            && message.role == Role::Tool
            && message
                .tool_name
                .as_deref()
                .is_some_and(|n| self.protected.contains(&n.to_ascii_lowercase()))
    }
}

/// One way a message may shrink; returns how many things it shrank.
type Shrink = fn(&mut Message) -> usize;

fn clear(m: &mut Message) -> usize {
    usize::from(clear_result(m))
}

fn shrink_step(m: &mut Message) -> usize {
    let cut = cut_arguments(m);
    cut + usize::from(cut_thought(m))
}

fn cut_user(m: &mut Message) -> usize {
    usize::from(cut_user_message(m))
}

/// Cuts the thought of an assistant message with tool calls to
/// [`MAX_THOUGHT_CHARS`] characters (HIST-16). Returns whether it was cut.
pub fn cut_thought(message: &mut Message) -> bool {
    if message.role != Role::Assistant || message.content.chars().count() <= MAX_THOUGHT_CHARS {
        return false;
    }
    let head: String = message.content.chars().take(MAX_THOUGHT_CHARS).collect();
    message.content = format!("{head}…");
    true
}

/// Cuts a user message longer than [`MAX_USER_CHARS`] characters to its
/// start and end around a marker saying how much was left out (HIST-16);
/// for user messages of earlier rounds, never the task in progress.
/// Returns whether it was cut.
pub fn cut_user_message(message: &mut Message) -> bool {
    let n = message.content.chars().count();
    if message.role != Role::User || n <= MAX_USER_CHARS {
        return false;
    }
    let head: String = message.content.chars().take(MAX_USER_CHARS * 2 / 3).collect();
    let tail: String = message.content.chars().skip(n - MAX_USER_CHARS / 3).collect();
    let left_out = n - MAX_USER_CHARS * 2 / 3 - MAX_USER_CHARS / 3;
    message.content = format!("{head}\n[… {left_out} characters left out …]\n{tail}");
    true
}

/// Replaces a tool message's result with [`CLEARED`], keeping the tool's
/// name, its status and its error (HIST-6). Returns `false` when it was
/// cleared already or is not a tool message.
pub fn clear_result(message: &mut Message) -> bool {
    if message.role != Role::Tool {
        return false;
    }
    let status = message
        .result
        .as_ref()
        .map_or(ResultStatus::Success, |r| r.status);
    let already = message.content == CLEARED || message.result.as_ref().is_some_and(|r| r.data == CLEARED);
    // A result no longer than the marker stays: clearing it would grow
    // the window.
    let short = match &message.result {
        Some(r) if message.content.is_empty() => {
            r.data.as_str().map_or(usize::MAX, str::len) <= CLEARED.len()
        }
        _ => message.content.len() <= CLEARED.len(),
    };
    if already || short {
        return false;
    }
    match &mut message.result {
        Some(result) => {
            *result = ToolResult {
                status,
                data: Value::from(CLEARED),
                error: result.error.clone(),
                ..ToolResult::default()
            };
            message.content.clear();
        }
        None => message.content = CLEARED.to_owned(),
    }
    true
}

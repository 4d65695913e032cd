//! What the engine reports while it works (EVT-1).

use std::path::PathBuf;
use std::sync::{mpsc, Arc};

use crate::cost::Cost;
use strata_ctx_core::{AppliedEdit, Usage};

use crate::engine::ServerContextStats;
use strata_ctx_history::{CompactionStats, Repair};

/// Why a compaction ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompactionReason {
    /// The window reached the threshold (HIST-4).
    Threshold,
    /// The model rejected the request as too long (HIST-12).
    Overflow,
    /// The embedder asked for it.
    Manual,
}

/// One thing the [`Engine`](crate::Engine) did (EVT-1). Delivered, in
/// order, to the callback or channel given to
/// [`EngineBuilder::on_event`](crate::EngineBuilder::on_event) or
/// [`EngineBuilder::events_to`](crate::EngineBuilder::events_to).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A round began with the user's message.
    RoundStarted {
        /// The round's number, from 1.
        round: usize,
        /// Files the user mentioned that got a read reminder (MENTION-3).
        mentions: Vec<String>,
        /// `@` mentions that were not files inside the project.
        ignored: Vec<String>,
    },
    /// A step (an assistant message and its results) was recorded.
    StepRecorded {
        /// The round.
        round: usize,
        /// The step in its round, from 1.
        step: usize,
        /// How many tool calls it made.
        calls: usize,
    },
    /// A tool's output was cut for the model (TRUNC-1).
    OutputTruncated {
        /// The tool.
        tool: String,
        /// The call it answered.
        call_id: String,
        /// Lines of the whole output.
        total_lines: usize,
        /// Lines shown to the model.
        shown_lines: usize,
        /// The spill file holding the whole output, when it was saved.
        spill: Option<PathBuf>,
        /// Why the whole output could not be saved, when it was not.
        spill_error: Option<String>,
    },
    /// A file the agent read again had changed behind its back (MTIME-1).
    FileModified {
        /// The path as the tool call named it.
        path: String,
    },
    /// A compaction started.
    CompactionStarted {
        /// Why.
        reason: CompactionReason,
        /// The window's estimated tokens.
        tokens: usize,
    },
    /// A compaction finished (HIST-9).
    CompactionFinished(CompactionStats),
    /// The summary failed and a notice stands in for it (HIST-7).
    CompactionDegraded {
        /// What went wrong.
        reason: String,
    },
    /// Old steps of the round in progress were condensed to fit the budget
    /// (REACT-5).
    StepsCondensed {
        /// Steps now shown in their history form.
        to_history_form: usize,
        /// Steps whose results were cleared.
        cleared: usize,
        /// Steps left out of the window behind the digest (REACT-6).
        omitted: usize,
        /// The window's estimated tokens afterwards.
        tokens: usize,
    },
    /// The steps whose results left the window were summarised by the
    /// summariser, and the rolling summary joins the digest (REACT-6); or
    /// the summariser failed or timed out and the digest alone stands for
    /// them.
    StepsSummarized {
        /// Steps newly summarised.
        steps: usize,
        /// What went wrong, when the digest alone stands for them.
        degraded: Option<String>,
    },
    /// The window is over the threshold and nothing more can be condensed:
    /// the newest steps alone do not fit (HIST-6, REACT-5).
    OverBudget {
        /// The window's estimated tokens.
        tokens: usize,
        /// The threshold.
        threshold: usize,
    },
    /// The window's estimated size changed.
    WindowChanged {
        /// The window's estimated tokens.
        tokens: usize,
        /// The threshold.
        threshold: usize,
    },
    /// An answer was cut at the token limit and the model is asked to
    /// continue it (MODEL-4).
    Continued {
        /// Which continuation this is, from 1.
        continuation: u32,
        /// Bytes of the answer's text so far.
        text_bytes: usize,
        /// Tool calls of the answer so far.
        calls: usize,
    },
    /// The provider's usage for the last call was recorded (REACT-4).
    UsageRecorded(Usage),
    /// Long-term memory changed (MEM-2): a fact added, updated or
    /// forgotten.
    MemoryChanged(strata_ctx_memory::MemoryChange),
    /// Follow-up suggestions were made after a round (MEM-3); they are in
    /// the log, never in the window.
    Suggested {
        /// The suggestions.
        items: Vec<String>,
    },
    /// No follow-up suggestion could be made (MEM-3): the call failed,
    /// timed out or answered with something unusable.
    SuggestionsFailed {
        /// Why.
        reason: String,
    },
    /// The session context changed (MEM-1): by a rule, the agent's
    /// `remember` / `forget` call, or the engine's API.
    SessionUpdated(strata_ctx_memory::Update),
    /// The provider edited the request before the model read it
    /// (MODEL-7): what its answer says it cleared or compacted, and the
    /// totals so far.
    ServerContextEdited {
        /// This answer's edits, in the provider's order.
        edits: Vec<AppliedEdit>,
        /// The sums over every answer so far.
        totals: ServerContextStats,
    },
    /// What the calls cost, after a usage was recorded, when the engine
    /// knows the model's price (MODEL-5): the last call, the round, the
    /// session, in US dollars.
    CostRecorded(Cost),
    /// A loaded history broke the pairing invariant and was repaired
    /// (HIST-2).
    Repaired(Vec<Repair>),
    /// A compression rule failed on a result (a custom rule's error or
    /// panic); the generic rule made its history form (TOOL-10).
    RuleFailed(strata_ctx_compress::RuleFailure),
    /// The project rules need attention, e.g. they were cut at the cap
    /// (CTX-2).
    RulesWarning(String),
    /// A round ended with the assistant's answer.
    RoundFinished {
        /// The round.
        round: usize,
        /// How many steps it took.
        steps: usize,
    },
}

/// The callback events go to.
pub(crate) type EventFn = Arc<dyn Fn(&Event) + Send + Sync>;

/// A callback that sends every event to `sender`; a closed channel drops
/// them. Sending never blocks.
pub(crate) fn channel_sink(sender: mpsc::Sender<Event>) -> EventFn {
    Arc::new(move |event: &Event| {
        // A receiver that hung up does not want events any more.
        let _ = sender.send(event.clone());
    })
}

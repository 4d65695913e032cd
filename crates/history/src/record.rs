//! The records a conversation log is made of (STORE-1).

use serde::{Deserialize, Serialize};
use strata_ctx_core::{Message, MessageId, Usage};

use crate::prune::PruneAction;

/// One line of a conversation's JSONL log: one change of the history.
/// Replaying the records with [`History::replay`](crate::History::replay)
/// rebuilds the window exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Record {
    /// A round began with this user message.
    User {
        /// The user's message.
        message: Message,
    },
    /// An assistant step with the results of its calls.
    Step {
        /// The assistant's message with its tool calls.
        assistant: Message,
        /// The results as the full log keeps them: as the agent gave them,
        /// in call order, a synthetic result for an unanswered call, then
        /// any result that answers none of the calls.
        log: Vec<Message>,
        /// The results as they entered the window: history form, call
        /// order, synthetic results for unanswered calls.
        window: Vec<Message>,
    },
    /// The round ended with this answer.
    Answer {
        /// The final answer.
        message: Message,
    },
    /// The provider's usage figures for a model call.
    Usage {
        /// The figures.
        usage: Usage,
    },
    /// A compaction: the archived messages, the summary that replaced them,
    /// and the messages changed to fit the budget (HIST-6).
    Compaction {
        /// Ids of the messages archived out of the window.
        archived: Vec<MessageId>,
        /// The new summary message, if any rounds were archived.
        summary: Option<Message>,
        /// Messages of the window in their new form (cleared results, cut
        /// arguments).
        replaced: Vec<Message>,
    },
    /// The model's pruning request (HIST-10).
    Prune {
        /// The request.
        action: PruneAction,
    },
    /// Messages pinned or unpinned (#30.7), with their whole steps.
    Pin {
        /// The messages named.
        ids: Vec<MessageId>,
        /// Pinned (`true`) or unpinned.
        pinned: bool,
    },
    /// Follow-up suggestions made after a round (MEM-3): kept in the log,
    /// never in the window.
    Suggestions {
        /// The suggestions, in order.
        items: Vec<String>,
    },
    /// A change of the session context (MEM-1). The history's window
    /// does not depend on it; the engine rebuilds the record from these.
    Session {
        /// The change, as it was applied.
        update: strata_ctx_memory::Update,
    },
}

/// The records of a history's changes, kept only when recording
/// (STORE-1): a history that is never persisted holds no second copy of
/// what it records.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recorder {
    records: Vec<Record>,
    on: bool,
}

impl Recorder {
    /// Turns recording on or off.
    pub(crate) fn set(&mut self, on: bool) {
        self.on = on;
    }

    /// Whether changes are recorded.
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// Keeps the record `make` builds, when recording; builds nothing
    /// otherwise.
    pub(crate) fn record(&mut self, make: impl FnOnce() -> Record) {
        if self.on {
            self.records.push(make());
        }
    }

    /// Reserves room for `additional` more records, when recording.
    pub(crate) fn reserve(&mut self, additional: usize) {
        if self.on {
            self.records.reserve(additional);
        }
    }

    /// The records kept since the last call.
    pub(crate) fn take(&mut self) -> Vec<Record> {
        std::mem::take(&mut self.records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_1_a_recorder_keeps_records_only_when_on() {
        let mut r = Recorder::default();
        let answer = || Record::Answer {
            message: Message::assistant("done"),
        };
        r.record(answer);
        assert!(!r.is_on() && r.take().is_empty(), "off by default: nothing built");
        r.set(true);
        r.record(answer);
        r.record(answer);
        assert_eq!(r.take().len(), 2);
        assert!(r.take().is_empty(), "taken once");
    }
}

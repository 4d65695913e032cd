//! The engine's smaller parts: the model calls' bookkeeping, the
//! conversation's journal, and the stamps of the messages the engine
//! makes.

use strata_ctx_core::{Clock, IdSource, Message, Usage};
use strata_ctx_history::Record;
use strata_ctx_store::ConversationLog;

use super::ServerContextStats;
use crate::{Cost, Price};

/// What the model calls left behind (MODEL-5, MODEL-7, REACT-4): their
/// cost at the model's price, what the provider's context management did,
/// the count of the window last handed out (what a usage report measured)
/// and how many continuations a cut answer may take.
#[derive(Debug, Clone)]
pub(super) struct ModelCalls {
    pub(super) max_continuations: u32,
    price: Option<Price>,
    cost: Cost,
    server_stats: ServerContextStats,
    /// The count of the last window handed out.
    last_counted: Option<usize>,
}

impl ModelCalls {
    pub(super) fn new(price: Option<Price>, max_continuations: u32) -> ModelCalls {
        ModelCalls {
            max_continuations,
            price,
            cost: Cost::default(),
            server_stats: ServerContextStats::default(),
            last_counted: None,
        }
    }

    /// The cost so far, when the price is known.
    pub(super) fn cost(&self) -> Option<Cost> {
        self.price.map(|_| self.cost)
    }

    /// Prices `usage`; the cost so far when the price is known.
    pub(super) fn add_usage(&mut self, usage: &Usage) -> Option<Cost> {
        let price = self.price?;
        self.cost.add(price.cost(usage));
        Some(self.cost)
    }

    /// A new round: the round's cost starts again.
    pub(super) fn new_round(&mut self) {
        self.cost.new_round();
    }

    /// What the provider's context management did so far.
    pub(super) fn server_stats(&self) -> ServerContextStats {
        self.server_stats
    }

    /// Takes a provider's applied edits into the statistics; the totals.
    pub(super) fn add_edits(&mut self, edits: &[strata_ctx_core::AppliedEdit]) -> ServerContextStats {
        self.server_stats.add(edits);
        self.server_stats
    }

    /// Remembers the count of the window handed out.
    pub(super) fn handed_out(&mut self, counted: usize) {
        self.last_counted = Some(counted);
    }

    /// The count of the last window handed out, if any.
    pub(super) fn last_counted(&self) -> Option<usize> {
        self.last_counted
    }
}

/// The conversation log the engine appends to, and what could not be
/// written yet (a full disk, say): the owner of persisting (CORE-5).
pub(super) struct Journal {
    log: Option<Box<dyn ConversationLog>>,
    unsaved: Vec<Record>,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("on", &self.log.is_some())
            .field("unsaved", &self.unsaved.len())
            .finish()
    }
}

impl Journal {
    pub(super) fn new(log: Option<Box<dyn ConversationLog>>) -> Journal {
        Journal {
            log,
            unsaved: Vec::new(),
        }
    }

    /// Appends `records`, and those a failed append kept, to the log. On
    /// failure they are all kept for the next append.
    pub(super) fn append(&mut self, records: Vec<Record>) -> Result<(), strata_ctx_store::Error> {
        let Some(log) = &mut self.log else {
            return Ok(());
        };
        self.unsaved.extend(records);
        if self.unsaved.is_empty() {
            return Ok(());
        }
        log.append(&self.unsaved)?;
        self.unsaved.clear();
        Ok(())
    }
}

/// The clock and ids of the messages the engine makes (CORE-2).
#[derive(Debug, Clone)]
pub(super) struct Stamps {
    pub(super) clock: Clock,
    ids: IdSource,
}

impl Stamps {
    pub(super) fn new(clock: Clock, ids: IdSource) -> Stamps {
        Stamps { clock, ids }
    }

    /// `message` with a new id and the time now.
    pub(super) fn stamp(&self, message: Message) -> Message {
        message
            .with_id(self.ids.next())
            .with_created_at(Some(self.clock.now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MODEL-5: usage is priced only when the price is known; a round
    /// starts its cost again.
    #[test]
    fn model_5_calls_are_priced_when_the_price_is_known() {
        let usage = Usage::new(1_000_000, 0);
        let mut unpriced = ModelCalls::new(None, 3);
        assert_eq!(unpriced.add_usage(&usage), None);
        assert_eq!(unpriced.cost(), None);
        let mut priced = ModelCalls::new(Some(Price::new(3.0, 15.0)), 3);
        let cost = priced.add_usage(&usage).unwrap();
        assert!((cost.session - 3.0).abs() < 1e-9, "{cost:?}");
        priced.new_round();
        assert_eq!(priced.cost().map(|c| c.round), Some(0.0));
        assert_eq!(priced.last_counted(), None);
        priced.handed_out(42);
        assert_eq!(priced.last_counted(), Some(42));
    }

    /// CORE-5: what a failed append kept goes with the next one.
    #[test]
    fn core_5_a_failed_append_is_retried_with_the_next() {
        #[derive(Debug)]
        struct Flaky(std::sync::Arc<std::sync::Mutex<(bool, Vec<usize>)>>);
        impl ConversationLog for Flaky {
            fn load(&self) -> Result<strata_ctx_store::Loaded, strata_ctx_store::Error> {
                Ok(strata_ctx_store::Loaded::new(Vec::new()))
            }
            fn append(&mut self, records: &[Record]) -> Result<(), strata_ctx_store::Error> {
                let mut state = self.0.lock().unwrap();
                if state.0 {
                    state.0 = false;
                    return Err(strata_ctx_store::Error::Io {
                        path: "log".into(),
                        source: std::io::Error::other("disk full"),
                    });
                }
                state.1.push(records.len());
                Ok(())
            }
            fn append_lines(&mut self, _: &[String]) -> Result<(), strata_ctx_store::Error> {
                Ok(())
            }
        }
        let state = std::sync::Arc::new(std::sync::Mutex::new((true, Vec::new())));
        let mut journal = Journal::new(Some(Box::new(Flaky(state.clone()))));
        let record = || Record::User {
            message: Message::user("x"),
        };
        assert!(journal.append(vec![record()]).is_err());
        journal.append(vec![record(), record()]).unwrap();
        assert_eq!(state.lock().unwrap().1, [3]);
        journal.append(Vec::new()).unwrap();
        assert_eq!(state.lock().unwrap().1, [3], "nothing to write");
        assert_eq!(format!("{journal:?}"), "Journal { on: true, unsaved: 0 }");
        let mut off = Journal::new(None);
        off.append(vec![record()]).unwrap();
        assert_eq!(format!("{off:?}"), "Journal { on: false, unsaved: 0 }");
    }

    /// CORE-2: stamps come from the clock and the id source.
    #[test]
    fn core_2_stamps() {
        let start = strata_ctx_core::Timestamp::from_unix_millis(0).unwrap();
        let stamps = Stamps::new(
            Clock::stepping(start, std::time::Duration::from_millis(1)),
            IdSource::sequential("t"),
        );
        let a = stamps.stamp(Message::user("a"));
        let b = stamps.stamp(Message::user("b"));
        assert_ne!(a.id, b.id);
        assert!(a.created_at < b.created_at);
    }
}

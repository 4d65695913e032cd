//! Long-term memory (MEM-2) and follow-up suggestions (MEM-3) in the
//! engine: what memory recalls for a round is a layer of its own; every
//! write is an event; suggestions go to the log, never to the window.

use std::time::Duration;

use strata_ctx_core::{LlmClient, Message, Role};
use strata_ctx_history::Record;
use strata_ctx_memory::{LongTermMemory, MemoryChange, MemoryError};
use strata_ctx_prompt::{Context, SystemLayer};

use super::{session::tail_tokens, Engine, EngineError};
use crate::event::Event;

/// The default token budget of what long-term memory recalls each round.
pub const DEFAULT_MEMORY_TOKENS: usize = 400;

/// The default time limit of a follow-up suggestion call.
pub const DEFAULT_SUGGESTION_TIMEOUT: Duration = Duration::from_secs(10);

/// The engine's long-term memory and what it recalled for this round.
pub(super) struct MemoryState {
    pub(super) store: LongTermMemory,
    pub(super) max_tokens: usize,
    pub(super) text: Option<String>,
    pub(super) tokens: usize,
}

/// What the engine remembers beyond the window (MEM-1 … MEM-3): the
/// session context, long-term memory and what it recalled this round,
/// and the follow-up suggestions made so far with their time limit.
pub(super) struct Memories {
    pub(super) session: Option<super::session::SessionState>,
    pub(super) long_term: Option<MemoryState>,
    pub(super) suggested: Vec<String>,
    pub(super) suggestion_timeout: Duration,
}

impl Memories {
    /// What long-term memory recalled for this round.
    pub(super) fn memory_text(&self) -> Option<String> {
        self.long_term.as_ref().and_then(|m| m.text.clone())
    }

    /// The session layer's text, when there is one.
    pub(super) fn session_text(&self) -> Option<String> {
        self.session.as_ref().and_then(|s| s.text.clone())
    }

    /// What the session layer and the recalled memory cost in the window.
    pub(super) fn tokens(&self) -> usize {
        self.session.as_ref().map_or(0, |s| s.tokens) + self.long_term.as_ref().map_or(0, |m| m.tokens)
    }
}

/// The suggestions a conversation's log holds, for deduplication.
pub(super) fn logged_suggestions(loaded: &[Record]) -> Vec<String> {
    loaded
        .iter()
        .filter_map(|r| match r {
            Record::Suggestions { items } => Some(items.iter().cloned()),
            _ => None,
        })
        .flatten()
        .collect()
}

impl Engine {
    /// The long-term memory, when the engine has one
    /// ([`EngineBuilder::long_term_memory`](crate::EngineBuilder::long_term_memory)).
    pub fn long_term_memory(&self) -> Option<&LongTermMemory> {
        self.memories.long_term.as_ref().map(|m| &m.store)
    }

    /// Saves `text` as a fact of long-term memory (MEM-2): a fact already
    /// known is not saved twice. The change is an
    /// [`Event::MemoryChanged`].
    ///
    /// # Errors
    ///
    /// [`EngineError::NoLongTermMemory`] when the engine has none,
    /// [`EngineError::Memory`] when the write fails.
    pub fn save_memory(&mut self, text: &str) -> Result<MemoryChange, EngineError> {
        let change = self.store_mut()?.save(text)?;
        self.memory_changed(&change);
        Ok(change)
    }

    /// Forgets the fact `id` of long-term memory (MEM-2).
    ///
    /// # Errors
    ///
    /// [`EngineError::NoLongTermMemory`] when the engine has none,
    /// [`EngineError::Memory`] when no fact has this id or the write
    /// fails.
    pub fn forget_memory(&mut self, id: &str) -> Result<MemoryChange, EngineError> {
        let change = self.store_mut()?.forget(id)?;
        self.memory_changed(&change);
        Ok(change)
    }

    /// Asks `client` what the last finished round teaches about the user
    /// and updates long-term memory (MEM-2): new facts saved, contradicted
    /// or refined ones updated, facts no longer true forgotten; each change
    /// an [`Event::MemoryChanged`]. Within the summary time limit
    /// ([`Config::summary_timeout`](strata_ctx_core::Config::summary_timeout)).
    ///
    /// # Errors
    ///
    /// [`EngineError::NoLongTermMemory`] when the engine has none,
    /// [`EngineError::Memory`] when the model's answer could not be used
    /// (nothing changed then) or a write failed.
    pub async fn extract_memory(&mut self, client: &dyn LlmClient) -> Result<Vec<MemoryChange>, EngineError> {
        let round = self.last_round();
        let timeout = self.config.summary_timeout;
        let changes = self.store_mut()?.extract(client, &round, timeout).await?;
        for change in &changes {
            self.memory_changed(change);
        }
        Ok(changes)
    }

    /// Asks `client` for `count` (2 to 4) follow-up inputs the user might
    /// send next (MEM-3), after the last finished round. They repeat
    /// neither each other nor earlier suggestions of the conversation, go
    /// to the log (never to the window) and are an [`Event::Suggested`].
    /// Degrades to none, with an [`Event::SuggestionsFailed`], when the
    /// call fails or takes longer than the time limit
    /// ([`EngineBuilder::suggestion_timeout`](crate::EngineBuilder::suggestion_timeout)).
    pub async fn suggest_followups(&mut self, client: &dyn LlmClient, count: usize) -> Vec<String> {
        let round = self.last_round();
        let result = strata_ctx_memory::suggest(
            client,
            &round,
            &self.memories.suggested,
            count,
            self.memories.suggestion_timeout,
        )
        .await;
        match result {
            Ok(items) if !items.is_empty() => {
                self.memories.suggested.extend(items.iter().cloned());
                self.history.record_suggestions(items.clone());
                self.emit(Event::Suggested { items: items.clone() });
                // Persisting can wait for the next append, as usage does.
                let _ = self.persist();
                items
            }
            Ok(_) => Vec::new(),
            Err(e) => {
                self.emit(Event::SuggestionsFailed {
                    reason: e.to_string(),
                });
                Vec::new()
            }
        }
    }

    /// The suggestions made so far in this conversation (MEM-3).
    pub fn suggestions(&self) -> &[String] {
        &self.memories.suggested
    }

    fn store_mut(&mut self) -> Result<&mut LongTermMemory, EngineError> {
        self.memories
            .long_term
            .as_mut()
            .map(|m| &mut m.store)
            .ok_or(EngineError::NoLongTermMemory)
    }

    fn memory_changed(&mut self, change: &MemoryChange) {
        if !matches!(change, MemoryChange::Unchanged(_)) {
            self.emit(Event::MemoryChanged(change.clone()));
        }
    }

    /// The last finished round: its user message, steps and answer, as
    /// the full log keeps them.
    fn last_round(&self) -> Vec<Message> {
        let log = self.history.full_log();
        let start = log.iter().rposition(|m| m.role == Role::User).unwrap_or(0);
        log[start..].to_vec()
    }

    /// Recalls what long-term memory holds about `input` for the round
    /// that begins (MEM-2), within its budget.
    pub(super) fn recall(&mut self, input: &str) {
        let counter = self.counter.clone();
        let Some(memory) = self.memories.long_term.as_mut() else {
            return;
        };
        memory.text = memory
            .store
            .render(input, memory.max_tokens, |t| counter.count_text(t));
        memory.tokens = tail_tokens(
            &*counter,
            Context::new(SystemLayer::new("")).with_memory(memory.text.clone()),
        );
    }
}

impl From<MemoryError> for EngineError {
    fn from(e: MemoryError) -> Self {
        EngineError::Memory(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MEM-1, MEM-2: the memories' layers cost what they recalled, and
    /// nothing when off.
    #[test]
    fn mem_2_the_layers_cost_what_they_hold() {
        let off = Memories {
            session: None,
            long_term: None,
            suggested: Vec::new(),
            suggestion_timeout: DEFAULT_SUGGESTION_TIMEOUT,
        };
        assert_eq!(
            (off.tokens(), off.memory_text(), off.session_text()),
            (0, None, None)
        );
        let dir = tempfile::tempdir().unwrap();
        let on = Memories {
            long_term: Some(MemoryState {
                store: LongTermMemory::open(dir.path(), "u").unwrap(),
                max_tokens: DEFAULT_MEMORY_TOKENS,
                text: Some("prefers tabs".into()),
                tokens: 5,
            }),
            ..off
        };
        assert_eq!(on.tokens(), 5);
        assert_eq!(on.memory_text().as_deref(), Some("prefers tabs"));
    }
}

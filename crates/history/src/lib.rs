//! Conversation history for LLM agents: rounds, the pairing invariant, the
//! compaction trigger and round-aligned compaction with a budget guarantee.
//!
//! # Overview
//!
//! - [`History`] keeps the full log and the window (HIST-11), records
//!   rounds and steps with tool results in their history form, estimates
//!   the next request from the provider's usage (HIST-4) and compacts
//!   ([`History::compact`]) on round boundaries, never splitting a tool
//!   call from its result, with the budget guarantee of HIST-6.
//! - [`History::prune`] lets the model leave messages out of the window by
//!   short id (HIST-10); [`History::compact_after_overflow`] is the
//!   reactive compaction of HIST-12, which cannot loop.
//! - [`repair`] restores the pairing invariant of a loaded history
//!   (HIST-2) and reports each [`Repair`].
//! - [`Budget`] is the one budget policy (HIST-14): the estimate of the
//!   next request, the compaction trigger, the targets of condensing and
//!   the overflow guard; the history and the engine both ask it.
//! - [`Digest`] tracks the files, commands, errors and todo state of the
//!   steps that leave the window inside a long round (REACT-6).
//! - [`CompactionStats`] are the figures of one compaction (HIST-9).
//! - [`Record`]s are what a history's changes are kept as (STORE-1);
//!   [`History::replay`] rebuilds the window from them (STORE-3). Where
//!   they are kept is `strata-ctx-store`'s concern: this crate knows no
//!   files.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use strata_ctx_core::{CharCounter, Config, Message, TokenAmount};
//! use strata_ctx_history::History;
//! use strata_ctx_summary::LlmSummarizer;
//! use strata_ctx_testkit::ScriptedClient;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), strata_ctx_core::Error> {
//! let config = Config::builder()
//!     .context_window(TokenAmount::Tokens(4_000))
//!     .min_retain_rounds(2)
//!     .build()?;
//! let mut history = History::new(config, Arc::new(CharCounter));
//! for i in 0..10 {
//!     history.begin_round(Message::user(format!("question {i}: {}", "x".repeat(1_200))));
//!     history.finish_round(Message::assistant("answer"));
//! }
//! assert!(history.needs_compaction());
//! let client = ScriptedClient::new();
//! client.push_text("* **Original Goal**: answer ten questions.");
//! let stats = history.compact(&LlmSummarizer::new(Arc::new(client))).await;
//! assert!(stats.rounds_retained >= 2 && !stats.over_budget);
//! assert!(history.window_tokens() <= history.room_tokens());
//! assert_eq!(history.full_log().len(), 20);
//! # Ok(())
//! # }
//! ```

pub use budget::Budget;
pub use digest::{command_argument, last_error_line, outcome_note, path_argument, CommandFact, Digest};
pub use error::{Error, Result};
pub use history::{CompactionPlan, CompactionStats, History, PinOutcome, MAX_RECALLED};
pub use prune::{id_hint, PruneAction, PruneOutcome};
pub use record::Record;
pub use repair::{interrupted_result, repair, Repair, INTERRUPTED_MESSAGE};
pub use shrink::{
    add_recall_handle, clear_result, cut_arguments, cut_thought, cut_user_message, is_cleared, recall_handle,
    CLEARED, DEGRADED_PREFIX, MAX_ARGUMENT_CHARS, MAX_THOUGHT_CHARS, MAX_USER_CHARS,
};
pub use strata_ctx_tools::{program_word, INSPECTION_PROGRAMS};

mod budget;
mod digest;
mod error;
mod history;
mod prune;
mod record;
mod repair;
mod shrink;

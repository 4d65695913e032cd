//! Where a conversation is kept (STORE-1 … STORE-6): the [`Backend`]
//! trait, the JSONL store on files, and the contract suite every backend
//! passes.
//!
//! A history keeps its changes as [`Record`]s and knows no files; this
//! crate is the one owner of persisting them.
//!
//! # Overview
//!
//! - [`Store`] is a directory of namespaces holding conversations as
//!   JSONL files; [`Conversation`] is one of them, open for appending,
//!   with a lock against a second writer.
//! - [`Backend`] is what a store is to the engine (open, append, load,
//!   list); [`ConversationLog`] is one open conversation.
//!   `strata-ctx-postgres` implements both over PostgreSQL.
//! - [`contract`] is the suite of checks a backend passes, run by the
//!   JSONL store's tests and by every other backend's.
//! - [`read_log`] reads a log file as records, naming the first line that
//!   is not one.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use strata_ctx_core::{CharCounter, Config, Message};
//! use strata_ctx_history::History;
//! use strata_ctx_store::Store;
//!
//! let dir = tempfile::tempdir()?;
//! let store = Store::open(dir.path())?;
//! let mut log = store.open_conversation("my-agent", "session-1", true)?;
//! let mut history = History::new(Config::default(), Arc::new(CharCounter));
//! history.set_recording(true);
//! history.begin_round(Message::user("hi"));
//! history.finish_round(Message::assistant("hello"));
//! log.append(&history.take_records())?;
//!
//! let loaded = store.load("my-agent", "session-1")?;
//! let resumed = History::replay(Config::default(), Arc::new(CharCounter), loaded.records);
//! assert_eq!(resumed.full_log(), history.full_log());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use backend::{Backend, ConversationLog};
pub use error::{Error, Result};
pub use jsonl::{read_log, read_log_within, Conversation, Loaded, Store, DEFAULT_MAX_LOG_BYTES};
pub use strata_ctx_history::Record;

mod backend;
pub mod contract;
mod error;
mod jsonl;

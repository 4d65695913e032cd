//! One contract for every place conversations live (STORE-4): the JSONL
//! directory ([`Store`]) is the embedded default; other backends (the
//! PostgreSQL one of `strata-ctx-postgres`) implement the same two traits
//! with the same semantics, and one contract test suite checks them all.

use std::fmt;

use crate::error::Result;
use crate::jsonl::{Conversation, Loaded, Store};
use strata_ctx_history::Record;

/// One conversation, open for appending by its one writer (STORE-1,
/// STORE-2). A second writer of the same conversation is refused with
/// [`Error::Locked`](crate::Error::Locked) while this one is open;
/// dropping it lets the next writer in.
pub trait ConversationLog: Send + fmt::Debug {
    /// The records written so far, in order.
    ///
    /// # Errors
    ///
    /// The backend's read error.
    fn load(&self) -> Result<Loaded>;

    /// Appends `records`, in order. A backend with transactions writes all
    /// of them or none; the JSONL file writes whole lines only, so that a
    /// crash leaves at most a torn last line, which loading leaves out.
    ///
    /// # Errors
    ///
    /// The backend's write error; the caller still holds every record and
    /// may append them again.
    fn append(&mut self, records: &[Record]) -> Result<()>;

    /// Appends records given as their JSON lines, byte for byte (what
    /// `strata-ctx store import` uses, so that an export gives back the
    /// same bytes). Each line is checked to be a record first; nothing is
    /// written when one is not.
    ///
    /// # Errors
    ///
    /// [`Error::CorruptRecord`](crate::Error::CorruptRecord) naming the
    /// first line that is not a record, or the backend's write error.
    fn append_lines(&mut self, lines: &[String]) -> Result<()>;
}

/// Where a namespace's conversations live (STORE-2, STORE-4): their
/// names, which is current, and each one's log.
pub trait Backend: Send + Sync + fmt::Debug {
    /// Opens a conversation for appending, creating it when `create` is
    /// set, takes its writer's lock and makes it the namespace's current
    /// one.
    ///
    /// # Errors
    ///
    /// [`Error::Locked`](crate::Error::Locked) when another writer holds
    /// it, [`Error::NotFound`](crate::Error::NotFound) when it does not
    /// exist and `create` is not set,
    /// [`Error::InvalidName`](crate::Error::InvalidName), or the backend's
    /// error.
    fn open(&self, namespace: &str, name: &str, create: bool) -> Result<Box<dyn ConversationLog>>;

    /// A conversation's records, read without taking its lock.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`](crate::Error::NotFound) when it does not exist,
    /// or the backend's error.
    fn load(&self, namespace: &str, name: &str) -> Result<Loaded>;

    /// A conversation's records as their JSON lines, byte for byte as
    /// written (`strata-ctx store export`).
    ///
    /// # Errors
    ///
    /// As [`Backend::load`].
    fn lines(&self, namespace: &str, name: &str) -> Result<Vec<String>>;

    /// The names of a namespace's conversations, sorted.
    ///
    /// # Errors
    ///
    /// The backend's error.
    fn list(&self, namespace: &str) -> Result<Vec<String>>;

    /// The namespaces that hold conversations, sorted.
    ///
    /// # Errors
    ///
    /// The backend's error.
    fn namespaces(&self) -> Result<Vec<String>>;

    /// The namespace's current conversation, if one was set.
    ///
    /// # Errors
    ///
    /// The backend's error.
    fn current(&self, namespace: &str) -> Result<Option<String>>;

    /// Makes `name` the namespace's current conversation.
    ///
    /// # Errors
    ///
    /// The backend's error.
    fn set_current(&self, namespace: &str, name: &str) -> Result<()>;
}

/// Checks that every line is a record, naming the first that is not.
pub(crate) fn check_lines(lines: &[String], source: &std::path::Path) -> Result<()> {
    for (i, line) in lines.iter().enumerate() {
        if let Err(e) = serde_json::from_str::<Record>(line) {
            return Err(crate::Error::CorruptRecord {
                path: source.to_owned(),
                line: i + 1,
                reason: e.to_string(),
            });
        }
    }
    Ok(())
}

impl ConversationLog for Conversation {
    fn load(&self) -> Result<Loaded> {
        Conversation::load(self)
    }

    fn append(&mut self, records: &[Record]) -> Result<()> {
        Conversation::append(self, records)
    }

    fn append_lines(&mut self, lines: &[String]) -> Result<()> {
        Conversation::append_lines(self, lines)
    }
}

impl Backend for Store {
    fn open(&self, namespace: &str, name: &str, create: bool) -> Result<Box<dyn ConversationLog>> {
        Ok(Box::new(self.open_conversation(namespace, name, create)?))
    }

    fn load(&self, namespace: &str, name: &str) -> Result<Loaded> {
        Store::load(self, namespace, name)
    }

    fn lines(&self, namespace: &str, name: &str) -> Result<Vec<String>> {
        Store::lines(self, namespace, name)
    }

    fn list(&self, namespace: &str) -> Result<Vec<String>> {
        Store::list(self, namespace)
    }

    fn namespaces(&self) -> Result<Vec<String>> {
        Store::namespaces(self)
    }

    fn current(&self, namespace: &str) -> Result<Option<String>> {
        Store::current(self, namespace)
    }

    fn set_current(&self, namespace: &str, name: &str) -> Result<()> {
        Store::set_current(self, namespace, name)
    }
}

//! File freshness (MTIME-1, MTIME-2): a note when a file the agent read
//! before has changed on disk since, by someone else.
//!
//! [`Freshness`] remembers, in memory only, the modification time each file
//! had when the agent last read or wrote it. Reading it again with another
//! modification time yields the note `Note: <file> was modified
//! externally.`; the agent's own writes update the record, so they never
//! raise it.
//!
//! # Overview
//!
//! - [`Freshness::read`] and [`Freshness::wrote`] with the file system's
//!   times; [`Freshness::read_at`] and [`Freshness::wrote_at`] with times
//!   the tool reports.
//! - [`Freshness::annotate`] adds the note to a Read result's `data` and
//!   `text`.
//!
//! # Example
//!
//! ```
//! use std::time::{Duration, SystemTime};
//! use strata_ctx_mtime::Freshness;
//!
//! let freshness = Freshness::new();
//! let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
//! assert_eq!(freshness.read_at("src/lib.rs", t0), None);
//! let t1 = t0 + Duration::from_secs(5);
//! assert_eq!(freshness.read_at("src/lib.rs", t1).as_deref(), Some("Note: src/lib.rs was modified externally."));
//! freshness.wrote_at("src/lib.rs", t1 + Duration::from_secs(5));
//! assert_eq!(freshness.read_at("src/lib.rs", t1 + Duration::from_secs(5)), None);
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use serde_json::Value;
use strata_ctx_core::ToolResult;

/// The note for a file modified externally (MTIME-1).
pub fn note(path: &str) -> String {
    format!("Note: {path} was modified externally.")
}

/// The last seen modification time of each file (MTIME-1), shared by the
/// tools of one agent. Not persisted.
///
/// Paths are taken as given (absolute, or relative to the working
/// directory), or, with [`Freshness::with_root`], relative to a project
/// root; the note names the path as the tool call gave it.
#[derive(Debug, Default)]
pub struct Freshness {
    seen: Mutex<HashMap<PathBuf, SystemTime>>,
    root: Option<PathBuf>,
}

fn key(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

fn mtime(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Freshness {
    /// An empty record.
    pub fn new() -> Self {
        Freshness::default()
    }

    /// An empty record resolving relative paths against `root` (the
    /// project root), so that notes name files as the tools do.
    pub fn with_root(root: impl Into<PathBuf>) -> Self {
        Freshness {
            seen: Mutex::default(),
            root: Some(root.into()),
        }
    }

    /// Where `path` is on disk.
    fn resolve(&self, path: &Path) -> PathBuf {
        match &self.root {
            Some(root) if path.is_relative() => root.join(path),
            _ => path.to_owned(),
        }
    }

    /// Records that the agent read `path` with modification time `at`;
    /// returns the note when it had read it before with another time.
    pub fn read_at(&self, path: impl AsRef<Path>, at: SystemTime) -> Option<String> {
        let path = path.as_ref();
        let previous = self
            .seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key(&self.resolve(path)), at);
        match previous {
            Some(before) if before != at => Some(note(&path.display().to_string())),
            _ => None,
        }
    }

    /// [`Freshness::read_at`] with the file's modification time on disk;
    /// `None` when it cannot be read.
    pub fn read(&self, path: impl AsRef<Path>) -> Option<String> {
        let path = path.as_ref();
        mtime(&self.resolve(path)).and_then(|at| self.read_at(path, at))
    }

    /// Records that the agent itself wrote `path`, leaving it with
    /// modification time `at` (MTIME-2).
    pub fn wrote_at(&self, path: impl AsRef<Path>, at: SystemTime) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key(&self.resolve(path.as_ref())), at);
    }

    /// [`Freshness::wrote_at`] with the file's modification time on disk.
    pub fn wrote(&self, path: impl AsRef<Path>) {
        let path = path.as_ref();
        if let Some(at) = mtime(&self.resolve(path)) {
            self.wrote_at(path, at);
        }
    }

    /// Forgets every file.
    pub fn clear(&self) {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// Records a read of `path` and, when it changed externally, adds the
    /// note to `result`: as `data.note` for structured data, appended to
    /// text data, and appended to `text` (MTIME-1). Returns whether a note
    /// was added.
    pub fn annotate(&self, result: &mut ToolResult, path: impl AsRef<Path>) -> bool {
        let Some(note) = self.read(path) else { return false };
        add_note(result, &note);
        true
    }
}

/// Adds a freshness note (see [`Freshness::read`]) to a result: as
/// `data.note` for structured data, appended to text data, and appended to
/// `text` (MTIME-1).
pub fn add_note(result: &mut ToolResult, note: &str) {
    match &mut result.data {
        Value::Object(o) => {
            o.insert("note".into(), Value::String(note.to_owned()));
        }
        Value::String(s) => {
            s.push_str("\n\n");
            s.push_str(note);
        }
        other => {
            let data = std::mem::take(other);
            *other = serde_json::json!({ "output": data, "note": note });
        }
    }
    result.text = Some(match result.text.take() {
        Some(t) => format!("{t}\n\n{note}"),
        None => note.to_owned(),
    });
}

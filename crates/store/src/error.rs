//! The error type of `strata-ctx-store`.

use std::path::PathBuf;

/// A specialised `Result` whose error defaults to [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong when persisting or loading a conversation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read or written (a full disk
    /// included). Records that were not written are still the caller's.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A line of a log that is not the last one cannot be read: the log is
    /// damaged and is not loaded.
    #[error("{path}:{line}: corrupt record: {reason}")]
    CorruptRecord {
        /// The log file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A store file or directory is a symbolic link: the store never
    /// follows one (REL-4).
    #[error("{path} is a symbolic link: the store does not follow links")]
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// A log is larger than the limit it is read within (REL-2).
    #[error("{path} holds {bytes} bytes, over the limit of {limit}")]
    TooLarge {
        /// The log file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// Another writer holds the conversation (STORE-2).
    #[error("{path} is open for writing elsewhere")]
    Locked {
        /// The log file.
        path: PathBuf,
    },
    /// A namespace or conversation name that is not a plain file name.
    #[error("invalid name `{name}`: use letters, digits, `-`, `_` and `.`, not starting with `.`")]
    InvalidName {
        /// The name as given.
        name: String,
    },
    /// A database backend failed (STORE-4): the connection, a query or
    /// the server. `transient` says whether the same call may succeed if
    /// made again (a dropped connection, a restarting server); appends
    /// that fail so are not written at all, and can be made again.
    #[error("the {backend} store failed: {message}")]
    Backend {
        /// The backend (`postgres`, …).
        backend: &'static str,
        /// What failed, with the server's reason.
        message: String,
        /// Whether trying again may succeed.
        transient: bool,
    },
    /// The conversation does not exist.
    #[error("no conversation `{name}` in {dir}")]
    NotFound {
        /// The conversation's name.
        name: String,
        /// The namespace directory.
        dir: PathBuf,
    },
}

impl Error {
    /// Whether the same call may succeed if made again: a database
    /// backend's transient failure (STORE-4).
    pub fn is_transient(&self) -> bool {
        matches!(self, Error::Backend { transient: true, .. })
    }
}

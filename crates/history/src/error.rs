//! The error type of `strata-ctx-history`.

/// A specialised `Result` whose error defaults to [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong in a history.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The model still rejects the window after a reactive compaction and
    /// nothing new could be compacted (HIST-12).
    #[error("the window ({window_tokens} tokens) is still too long after compaction")]
    StillTooLong {
        /// The window's tokens after the last compaction.
        window_tokens: usize,
    },
}

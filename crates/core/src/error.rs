//! The error type of `strata-ctx-core`.

use std::path::PathBuf;
use std::time::Duration;

/// A specialised `Result` whose error defaults to [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong in `strata-ctx-core` itself: configuration, token
/// amounts and durations, ids and timestamps, messages in a foreign
/// format, files. Model calls fail with [`LlmError`], rules with
/// [`RuleError`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A token amount (CORE-8) could not be parsed.
    #[error("invalid token amount `{value}`: {reason}")]
    InvalidTokenAmount {
        /// The text as it was given.
        value: String,
        /// Why it was rejected.
        reason: &'static str,
    },

    /// A duration could not be parsed.
    #[error(
        "invalid duration `{value}`: expected seconds (`120`) or a duration such as `500ms`, `2m` or `1h 30m`"
    )]
    InvalidDuration {
        /// The text as it was given.
        value: String,
    },

    /// A configuration field holds a value that is not allowed.
    #[error("invalid configuration field `{field}`: {reason}")]
    InvalidConfig {
        /// The field's name, as written in a file (`compact_threshold`) or
        /// as the environment variable (`STRATA_COMPACT_THRESHOLD`).
        field: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A configuration file could not be parsed.
    #[error("cannot parse configuration {origin}: {message}")]
    ConfigParse {
        /// Where the text came from (a path, or `TOML text`/`JSON text`).
        origin: String,
        /// The parser's message, which names the line or field.
        message: String,
    },

    /// A file could not be read or written.
    #[error("cannot access {path}")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// A message id text is not a valid id.
    #[error("invalid message id `{value}`")]
    InvalidMessageId {
        /// The text as it was given.
        value: String,
    },

    /// A timestamp text is not RFC 3339.
    #[error("invalid timestamp `{value}`: expected RFC 3339 such as 2026-11-22T10:56:00Z")]
    InvalidTimestamp {
        /// The text as it was given.
        value: String,
    },

    /// A message in a foreign format (an OpenAI chat-completions list) could
    /// not be read.
    #[error("cannot read message {index}: {reason}")]
    InvalidMessage {
        /// The message's position in its list, from 0.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },

    /// A short id matches no message.
    #[error("no message has the id `{prefix}`")]
    UnknownShortId {
        /// The prefix that was looked up.
        prefix: String,
    },

    /// A short id matches several messages.
    #[error("the id `{prefix}` matches {matches} messages; give more characters")]
    AmbiguousShortId {
        /// The prefix that was looked up.
        prefix: String,
        /// How many ids start with it.
        matches: usize,
    },
}

impl Error {
    pub(crate) fn config(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidConfig {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// A specialised `Result` for model calls, whose error is [`LlmError`].
pub type LlmResult<T, E = LlmError> = std::result::Result<T, E>;

/// What can go wrong when a model is called: by an
/// [`LlmClient`](crate::LlmClient), its stream, or a
/// [`Summarizer`](crate::Summarizer) that calls one.
///
/// The variants let callers react to the kind of failure without parsing
/// text: [`LlmError::ContextTooLong`] triggers reactive compaction,
/// [`LlmError::RateLimited`] and [`LlmError::Timeout`] are worth a retry
/// (see [`LlmError::is_retryable`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The model rejected the request because the input is larger than its
    /// context window. Compact and try again (HIST-12).
    #[error("the request exceeds the model's context window: {message}")]
    ContextTooLong {
        /// The provider's explanation.
        message: String,
    },

    /// The model did not answer within the allowed time.
    #[error("the model did not answer within {after:?}")]
    Timeout {
        /// The time limit that was hit.
        after: Duration,
    },

    /// The provider asked to slow down.
    #[error("rate limited by the provider: {message}")]
    RateLimited {
        /// How long the provider asked to wait, when it said so.
        retry_after: Option<Duration>,
        /// The provider's explanation.
        message: String,
    },

    /// The provider answered with an error that is none of the above.
    #[error("the model provider failed{}: {message}", status.map(|s| format!(" with status {s}")).unwrap_or_default())]
    Provider {
        /// The HTTP status, when there is one.
        status: Option<u16>,
        /// The provider's explanation.
        message: String,
    },

    /// A streamed answer broke off before it was complete: the connection
    /// was cut or the server stopped sending (MODEL-3).
    #[error("the model's stream broke off: {message}")]
    StreamCut {
        /// What was seen.
        message: String,
    },

    /// The answer was still cut at the token limit after the allowed
    /// continuations (MODEL-4).
    #[error("the answer was still cut at the token limit after {continuations} continuations")]
    StillCut {
        /// How many continuations were made.
        continuations: u32,
    },

    /// [`NoSummarizer`](crate::NoSummarizer) was asked for a summary: no
    /// summariser is configured. Compaction never asks it.
    #[error("no summariser is configured")]
    NoSummarizer,

    /// The provider's answer could not be understood.
    #[error("invalid response from the model provider: {message}")]
    InvalidResponse {
        /// What was wrong with it.
        message: String,
    },
}

impl LlmError {
    /// Returns `true` when the model refused the request for being larger
    /// than its context window, the signal for reactive compaction.
    pub fn is_context_too_long(&self) -> bool {
        matches!(self, LlmError::ContextTooLong { .. })
    }

    /// Returns `true` for failures that may pass when the same request is
    /// sent again later: timeouts, rate limits and server-side (5xx) errors.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Timeout { .. } | LlmError::RateLimited { .. } | LlmError::StreamCut { .. } => true,
            LlmError::Provider { status, .. } => matches!(status, Some(500..=599) | None),
            _ => false,
        }
    }
}

/// Why a compression rule ([`CompressRule`](crate::CompressRule)) could
/// not handle its input; the caller falls back to the generic rule and
/// reports the failure with the tool's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RuleError {
    message: String,
}

impl RuleError {
    /// A rule error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        RuleError {
            message: message.into(),
        }
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

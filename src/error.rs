//! The facade's error: each crate's error, converted with `?`.

use strata_ctx_core::{LlmError, RuleError};

use crate::engine::EngineError;

/// A specialised `Result` whose error defaults to [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Any error of the Strata crates, for code that drives several of them
/// and propagates with `?`. Each crate keeps its own error, with its
/// context; this enum wraps them unchanged, so matching on the inner
/// error loses nothing.
///
/// ```
/// use strata_ctx::{Config, Error};
///
/// fn window() -> strata_ctx::Result<u64> {
///     let config = Config::from_toml_str("context_window = \"lots\"")?;
///     Ok(config.window_tokens())
/// }
/// assert!(matches!(window(), Err(Error::Core(_))));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Configuration, token amounts, ids, timestamps, foreign messages,
    /// files (`strata-ctx-core`).
    #[error(transparent)]
    Core(#[from] strata_ctx_core::Error),
    /// A model call, its stream, or a summariser (`strata-ctx-core`'s
    /// [`LlmError`]).
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// A compression rule (`strata-ctx-core`'s [`RuleError`]).
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// A model answer that is not a ReAct step (`strata-ctx-prompt`).
    #[error(transparent)]
    Prompt(#[from] strata_ctx_prompt::Error),
    /// A conversation store (`strata-ctx-store`).
    #[error(transparent)]
    Store(#[from] strata_ctx_store::Error),
    /// A history (`strata-ctx-history`).
    #[error(transparent)]
    History(#[from] strata_ctx_history::Error),
    /// The engine.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// Long-term memory (`strata-ctx-memory`).
    #[error(transparent)]
    Memory(#[from] strata_ctx_memory::MemoryError),
    /// The session context refused an update (`strata-ctx-memory`).
    #[error(transparent)]
    Session(#[from] strata_ctx_memory::SessionError),
    /// The tokenizer of the exact counter (`strata-ctx-tiktoken`).
    #[cfg(feature = "tiktoken")]
    #[error(transparent)]
    Tokenizer(#[from] strata_ctx_tiktoken::Error),
}

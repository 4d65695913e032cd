//! Context engineering for LLM agents.
//!
//! Strata decides, on every model call, what the model sees and what the
//! agent keeps in memory: a layered prompt, tool outputs cut and compressed
//! before they enter the history, long histories compacted into archived
//! summaries on round boundaries without ever splitting a tool call from its
//! result, `@file` mentions turned into read reminders, and stale file reads
//! flagged.
//!
//! This crate is the facade: it re-exports the workspace's crates as
//! modules and their most used types at the top.
//!
//! # Overview
//!
//! - [`Message`], [`Role`], [`ToolCall`] and [`ToolResult`]: the data model
//!   (see `docs/format.md` for the JSON form).
//! - [`rounds`] and [`Pairs`]: rounds of a history and the pairing of tool
//!   calls with their results.
//! - [`TokenCounter`] with the default [`CharCounter`].
//! - [`LlmClient`]: the model the library calls for summaries.
//! - [`Config`]: the settings, from code, files and `STRATA_*` variables.
//! - [`Truncator`] and [`Compressor`]: what the model sees of a tool's
//!   output now, and what the history keeps of it.
//! - [`LlmSummarizer`]: the archived summary of old rounds.
//! - [`History`]: the remembered conversation and its compaction.
//! - [`Mentions`] and [`Freshness`]: `@file` reminders and stale-read notes.
//! - [`Context`]: the layered window and its renderings (ReAct text,
//!   OpenAI, Anthropic).
//! - [`Engine`]: the turn engine that drives them all, round by round,
//!   reporting [`Event`]s; [`replay`] feeds a recorded transcript through
//!   it; [`eval`] measures what the window keeps of a session's working
//!   facts and of command outputs, against the baselines (`strata-ctx eval`).
//! - [`types`], [`compress`], [`summary`], [`history`], [`prompt`],
//!   [`atfile`] and [`mtime`]: everything of each crate.
//! - With the feature `openai`, `strata_ctx::openai`: an [`LlmClient`] for any
//!   OpenAI-compatible endpoint (crate `strata-ctx-openai`); with the feature
//!   `anthropic`, `strata_ctx::anthropic`: one for the Anthropic Messages API
//!   (crate `strata-ctx-anthropic`). Both send the tools of native mode,
//!   stream ([`LlmClient::stream`], [`StreamEvent`]) and report the finish
//!   reason that [`Engine::complete`] continues on. With the feature
//!   `tiktoken`, `strata_ctx::tiktoken`: an exact [`TokenCounter`] with
//!   OpenAI's tokenizers (crate `strata-ctx-tiktoken`).
//! - With the feature `async-openai`, `strata_ctx::async_openai`: an
//!   agent's history in `async-openai`'s chat request messages to Strata's
//!   messages and a window back. The crate `strata-ctx-rig` does the same
//!   for `rig-core`'s messages.
//!
//! # Example
//!
//! ```
//! use strata_ctx::{rounds, CharCounter, Config, Message, TokenCounter};
//!
//! let config = Config::from_toml_str("context_window = \"32k\"")?;
//! let history = vec![Message::user("hello"), Message::assistant("hi! what shall we build?")];
//! let used = CharCounter.count_messages(&history) as u64;
//! assert!(used < config.threshold_tokens());
//! assert_eq!(rounds(&history).len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use strata_ctx_core::{
    rounds, AppliedEdit, CharCounter, Clock, Config, ContextEdits, CountTokens, EditKind, Endpoint,
    FinishReason, IdSource, LlmClient, LlmError, LlmOptions, LlmRequest, LlmResponse, LlmResult, LlmStream,
    Message, MessageId, MessageRun, Pairs, Provider, ProviderItem, ResultStatus, Role, RuleError,
    ServerContext, StreamEvent, Text, ThinkingBlock, TokenCounter, ToolCall, ToolChoice, ToolResult, Usage,
};
#[doc(inline)]
pub use strata_ctx_wire::{
    from_anthropic_messages, from_openai_messages, from_openai_slice, from_openai_str, read_openai_list,
    OpenAiList,
};

/// The data model, token counting, the LLM client trait and configuration
/// (crate `strata-ctx-core`).
pub use strata_ctx_core as types;

/// Tool output: truncation with spill files, the history form of tool
/// results, LLM summaries of tool results (crate `strata-ctx-compress`).
pub use strata_ctx_compress as compress;
/// What agents' tools are: names, aliases, kinds and argument accessors
/// (TOOL-1), as one crate decides them for all of Strata.
pub use strata_ctx_tools as tools;
/// Wire formats as serde types (OpenAI chat completions, Anthropic
/// Messages, Codex CLI rollouts, Claude Code sessions), read into
/// messages (EDGE-3).
pub use strata_ctx_wire as wire;

/// The prompt texts Strata sends (PROMPT-1), and [`prompts::fill`] for
/// their placeholders.
pub use strata_ctx_prompts as prompts;

#[doc(inline)]
pub use strata_ctx_compress::{Compressor, Truncator};

/// Archived summaries of old rounds over an [`LlmClient`] (crate
/// `strata-ctx-summary`).
pub use strata_ctx_summary as summary;

#[doc(inline)]
pub use strata_ctx_core::{NoSummarizer, Summarizer};

/// The history: full log and window, pairing repair, the compaction
/// trigger and round-aligned compaction (crate `strata-ctx-history`).
pub use strata_ctx_history as history;

/// Where a conversation is kept (STORE-1 … STORE-6): the JSONL store, the
/// `Backend` trait and the contract suite every backend passes.
pub use strata_ctx_store as store;

#[doc(inline)]
pub use strata_ctx_core::{rule_fn, CompressRule};
#[doc(inline)]
pub use strata_ctx_history::{CompactionStats, History};

/// The layered context: layers, rule files, renderings, the ReAct format
/// and its parser (crate `strata-ctx-prompt`).
pub use strata_ctx_prompt as prompt;

/// `@file` mentions and the read reminder (crate `strata-ctx-atfile`).
pub use strata_ctx_atfile as atfile;

/// Memory beyond the window: the session context, its rules and the
/// agent's `remember` / `forget` tools (crate `strata-ctx-memory`).
pub use strata_ctx_memory as memory;

/// Notes on files modified behind the agent's back (crate `strata-ctx-mtime`).
pub use strata_ctx_mtime as mtime;

/// An [`LlmClient`] for OpenAI-compatible chat-completions endpoints, with
/// retries and context-length errors mapped (crate `strata-ctx-openai`,
/// feature `openai`).
#[cfg(feature = "openai")]
pub use strata_ctx_openai as openai;

/// An [`LlmClient`] for the Anthropic Messages API: tools, thinking,
/// prompt caching, streaming, retries and context-length errors mapped
/// (crate `strata-ctx-anthropic`, feature `anthropic`).
#[cfg(feature = "anthropic")]
pub use strata_ctx_anthropic as anthropic;

/// Conversations in a PostgreSQL database: a [`Backend`](store::Backend)
/// for several agent servers sharing one database (crate
/// `strata-ctx-postgres`, feature `postgres`).
#[cfg(feature = "postgres")]
pub use strata_ctx_postgres as postgres;

/// The response and summary caches in Redis: a
/// [`CacheStore`](cache::CacheStore) several agent processes share (crate
/// `strata-ctx-redis`, feature `redis`).
#[cfg(feature = "redis")]
pub use strata_ctx_redis as redis;

/// An agent's history in `async-openai`'s chat request messages as
/// Strata's messages, and a window back, one call each (crate
/// `strata-ctx-async-openai`, feature `async-openai`).
#[cfg(feature = "async-openai")]
pub use strata_ctx_async_openai as async_openai;

/// An exact [`TokenCounter`] with OpenAI's `o200k_base` and `cl100k_base`
/// tokenizers (crate `strata-ctx-tiktoken`, feature `tiktoken`).
#[cfg(feature = "tiktoken")]
pub use strata_ctx_tiktoken as tiktoken;

#[doc(inline)]
pub use strata_ctx_atfile::Mentions;
#[doc(inline)]
pub use strata_ctx_memory::{
    memory_tools, session_rule_fn, LongTermMemory, MemoryChange, SessionContext, SessionLimits, SessionRule,
};
#[doc(inline)]
pub use strata_ctx_mtime::Freshness;
#[doc(inline)]
pub use strata_ctx_prompt::{
    parse_step, Context, Prefix, ReactEvent, ReactStream, Step, SystemLayer, ToolMode, ToolSpec,
};
#[doc(inline)]
pub use strata_ctx_summary::LlmSummarizer;

pub use engine::{
    files_rule, pin_tool, prune_tool, recall_tool, Engine, EngineBuilder, EngineError, LayerTokens,
    RoundStart, ServerContextStats, StepReport, Window, WindowCount, DEFAULT_MAX_CONTINUATIONS,
    DEFAULT_MAX_LOGGED_BYTES, DEFAULT_MEMORY_TOKENS, DEFAULT_SUGGESTION_TIMEOUT, PIN_TOOL, PRUNE_TOOL,
    RECALL_TOOL,
};
pub use error::{Error, Result};
pub use event::{CompactionReason, Event};

pub use cost::{Cost, Price, PriceTable};
pub use prompt_cache::{CacheRule, CacheUse, PromptCache, MIN_CACHED_TOKENS};
pub use strata_ctx_cache::CachedClient;

/// The response cache in front of any [`LlmClient`] (MODEL-6).
pub use strata_ctx_cache as cache;

mod cost;
mod engine;
mod error;
pub mod eval;
mod event;
mod prompt_cache;
pub mod replay;
#[cfg(feature = "tracing")]
mod trace;

/// The README's code blocks, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The code blocks of `docs/tool-output.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/tool-output.md")]
struct ToolOutputDoctests;

/// The code blocks of `docs/engine.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/engine.md")]
struct EngineDoctests;

/// The code blocks of `docs/history.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/history.md")]
struct HistoryDoctests;

/// The code blocks of `docs/guide.md`, compiled and run as doctests
/// (they use both model clients: `cargo test --all-features`).
#[cfg(all(doctest, feature = "openai", feature = "anthropic"))]
#[doc = include_str!("../docs/guide.md")]
struct GuideDoctests;

/// The code blocks of `docs/eval.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/eval.md")]
struct EvalDoctests;

/// The code blocks of `docs/store.md`, compiled as doctests.
#[cfg(all(doctest, feature = "postgres"))]
#[doc = include_str!("../docs/store.md")]
struct StoreDoctests;

/// The code blocks of `docs/reliability.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/reliability.md")]
struct ReliabilityDoctests;

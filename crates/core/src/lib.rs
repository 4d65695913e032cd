//! Core types of Strata: messages, ids, rounds, pairs, token counting, the
//! LLM client trait and configuration.
//!
//! # Overview
//!
//! - [`Message`] is one entry of a conversation, with [`Role`],
//!   [`ToolCall`]s and the [`ToolResult`] envelope; its JSON form is the
//!   canonical interchange format.
//! - [`MessageId`] and [`ShortIds`] identify messages, also by short
//!   prefixes the model can write.
//! - [`rounds`] splits a history into rounds; [`Pairs`] matches tool calls
//!   with their results and reports what does not pair.
//! - [`TokenCounter`] counts tokens; [`CharCounter`] is the default,
//!   [`CachedCounter`] and [`TokenTally`] keep counting proportional to what
//!   changed.
//! - [`CompressRule`] is the plug-in trait for the history form of a
//!   tool's results.
//! - [`Summarizer`] writes the archived summary of old rounds.
//! - [`LlmClient`] is the model the library calls for summaries.
//! - [`Config`] holds the settings; [`TokenAmount`] reads `80k`, `1.5M` and
//!   `0.8`.
//! - [`Error`] is the one error type of this crate.
//!
//! Implementers of the plug-in traits depend on this crate only; agent
//! authors use the `strata` facade, which re-exports it.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use strata_ctx_core::{rounds, CharCounter, Message, Pairs, TokenCounter, ToolCall, ToolResult};
//!
//! let call = ToolCall::new("call_1", "Read", json!({"path": "src/main.rs"}));
//! let history = vec![
//!     Message::user("What does main do?"),
//!     Message::assistant_with_calls("Let me look.", vec![call.clone()]),
//!     Message::tool_result(&call, ToolResult::success("fn main() {}")),
//!     Message::assistant("It does nothing yet."),
//! ];
//! assert_eq!(rounds(&history), vec![0..4]);
//! assert!(Pairs::new(&history).is_complete());
//! let tokens = CharCounter.count_messages(&history);
//! assert!(tokens > 0);
//!
//! let line = serde_json::to_string(&history[2])?;
//! let back: Message = serde_json::from_str(&line)?;
//! assert_eq!(back, history[2]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use config::{parse_duration, CompactionTarget, Config, ConfigBuilder, TokenAmount, CONFIG_FIELDS};
pub use error::{Error, LlmError, LlmResult, Result, RuleError};
pub use id::{fnv1a, id_hint, MessageId, ShortIds, SHORT_ID_LEN};
pub use llm::{CountTokens, Endpoint, FinishReason, LlmClient, LlmOptions, LlmRequest, LlmResponse, Usage};
pub use message::{
    Message, Metadata, ResultStatus, Role, ThinkingBlock, ToolCall, ToolError, ToolResult, PINNED_KEY,
};
pub use rounds::{answer_calls, rounds, CallSite, PairIssue, Pairs};
pub use rule::{rule_fn, CompressRule, RuleFn, RuleInput};
pub use run::MessageRun;
pub use server::{AppliedEdit, ContextEdits, EditKind, Provider, ProviderItem, ServerContext};
pub use stamp::{Clock, IdSource};
pub use stream::{LlmStream, StreamEvent, StreamSource, ToolCallBuffer};
pub use summarizer::{NoSummarizer, ProgressFn, Summarizer, SummaryProgress};
pub use text::Text;
pub use time::Timestamp;
pub use tokens::{
    json_chars, message_model_text, CachedCounter, CharCounter, TokenCounter, TokenTally, MESSAGE_OVERHEAD,
};
pub use tool::{ToolChoice, ToolSpec};

/// Re-exported so that implementers of [`LlmClient`] need not depend on
/// `async-trait` themselves.
pub use async_trait::async_trait;

mod config;
mod error;
mod forward;
mod id;
mod llm;
mod message;
mod rounds;
mod rule;
mod run;
mod server;
mod stamp;
mod stream;
mod summarizer;
mod text;
mod time;
mod tokens;
mod tool;

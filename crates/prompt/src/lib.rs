//! The layered context of LLM agents (CTX-*, REACT-1).
//!
//! - [`Context`]: one window, layer by layer in the fixed order of CTX-1
//!   (L1 [`SystemLayer`]: system prompt and tools → L2 project rules → L3
//!   history → current input → scratchpad → todo recap), with its stable
//!   [`Prefix`] (CTX-3) and three renderings (CTX-4): ReAct text
//!   ([`Context::render_react`]), OpenAI chat-completions messages
//!   ([`Context::to_openai`]) and Anthropic messages
//!   ([`Context::to_anthropic`]).
//! - [`Rules`]: the project rules layer L2 (CTX-2).
//! - [`todo_recap`], [`todo_board`] and [`recap_of`] (CTX-5), and
//!   [`topic_anchor`] (CTX-6).
//! - The ReAct text format (REACT-1): [`parse_step`] turns a model's answer
//!   into a [`Step`], tolerating the usual noise (leading whitespace, code
//!   fences around the JSON arguments, text after the action), and
//!   [`Step::render`] writes a step back in the format.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use strata_ctx_prompt::{parse_step, Step};
//!
//! let step = parse_step("Thought: I need the file.\nAction: Read[{\"path\": \"src/lib.rs\"}]")?;
//! assert_eq!(step, Step::Action {
//!     thought: "I need the file.".into(),
//!     tool: "Read".into(),
//!     arguments: json!({"path": "src/lib.rs"}),
//! });
//! let done = parse_step("Thought: all set\nAction: Finish[The bug is fixed.]")?;
//! assert!(matches!(done, Step::Finish { ref answer, .. } if answer == "The bug is fixed."));
//! # Ok::<(), strata_ctx_prompt::Error>(())
//! ```

pub use chat::{ChatMarks, ChatWriter};
pub use layers::{Context, Prefix, SystemLayer, ToolMode};
pub use react::{parse_step, ReactEvent, ReactStream, Step};
pub use recap::{recap_of, todo_board, todo_recap, topic_anchor, RECAP_ITEMS};
pub use render::{
    anthropic_conversation, anthropic_messages, arguments_text, chat_message, openai_messages,
    OpenAiMessages, SUMMARY_HEADING,
};
pub use rules::{Rules, RulesLayer, CODE_LAW};
pub use strata_ctx_core::ToolSpec;

mod chat;
mod layers;
mod react;
mod recap;
mod render;
mod rules;

/// The error type of `strata-ctx-prompt`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The model's answer is not in the ReAct format. `raw` is the answer
    /// as given, to feed back to the model with `reason`.
    #[error("the answer is not a ReAct step: {reason}")]
    MalformedStep {
        /// What is wrong.
        reason: String,
        /// The model's answer, unchanged.
        raw: String,
    },
}

/// A specialised `Result` whose error defaults to [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

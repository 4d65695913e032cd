//! The wire formats of providers and agents' transcripts as serde types,
//! read into Strata's messages (EDGE-3).
//!
//! Each format lives in one module: its types derive `Deserialize`, and
//! one function turns a file's text into [`Message`]s. Lines a format
//! does not know (a newer agent's event kinds) are passed over, never
//! fatal; a line that is not JSON is an error that names it.
//!
//! - [`chat`]: the OpenAI chat-completions form (`messages` arrays and
//!   request bodies), read from a parsed value, from text or from a
//!   reader a message at a time.
//! - [`anthropic`]: the Anthropic Messages form: content blocks, the
//!   request body with its context management, the answer and the
//!   streamed events, and histories in that form.
//! - [`responses`]: the OpenAI Responses form: its items, as the API
//!   answers with them and as Codex CLI records them, the request body,
//!   the response and the streamed events.
//! - [`codex`]: Codex CLI rollout files (`~/.codex/sessions/…/rollout-*.jsonl`).
//! - [`claude_code`]: Claude Code session files
//!   (`~/.claude/projects/…/<session>.jsonl`).
//!
//! # Example
//!
//! ```
//! use strata_ctx_wire::{codex, Detected};
//!
//! let rollout = r#"{"timestamp":"2025-10-29T00:59:38Z","type":"session_meta","payload":{"id":"s1","cwd":"/repo"}}
//! {"timestamp":"2025-10-29T00:59:39Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}}
//! {"timestamp":"2025-10-29T00:59:40Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cargo test\"]}","call_id":"c1"}}
//! {"timestamp":"2025-10-29T00:59:41Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"test result: ok\",\"metadata\":{\"exit_code\":0}}"}}"#;
//! assert_eq!(strata_ctx_wire::detect(rollout), Some(Detected::CodexRollout));
//! let messages = codex::read(rollout)?;
//! assert_eq!(messages.len(), 3);
//! assert_eq!(messages[1].tool_calls[0].name, "shell");
//! assert_eq!(messages[2].text(), "test result: ok");
//! # Ok::<(), strata_ctx_wire::WireError>(())
//! ```

pub mod anthropic;
pub mod chat;
pub mod claude_code;
pub mod codex;
pub mod responses;

pub use anthropic::from_anthropic_messages;
pub use chat::{from_openai_messages, from_openai_slice, from_openai_str, read_openai_list, OpenAiList};

pub use strata_ctx_core::Message;

/// Why a transcript could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// A line is not a JSON value of the format.
    #[error("line {line}: {reason}")]
    Line {
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The messages the lines hold are not a conversation.
    #[error("{0}")]
    Conversation(String),
}

/// A transcript format told by its first line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Detected {
    /// A Codex CLI rollout file.
    CodexRollout,
    /// A Claude Code session file.
    ClaudeCodeSession,
}

/// The format of a transcript, told by its first non-blank line; `None`
/// for other texts.
pub fn detect(text: &str) -> Option<Detected> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    if codex::is_rollout_line(first) {
        Some(Detected::CodexRollout)
    } else if claude_code::is_session_line(first) {
        Some(Detected::ClaudeCodeSession)
    } else {
        None
    }
}

/// The lines of `text` that are not blank, numbered from 1.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
}

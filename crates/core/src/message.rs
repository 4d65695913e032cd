//! Messages, tool calls and the tool result envelope (CORE-1, CORE-3).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::id::MessageId;
use crate::server::ProviderItem;
use crate::text::Text;
use crate::time::Timestamp;

/// Free-form metadata of a message, ordered by key so that its JSON form is
/// stable.
pub type Metadata = serde_json::Map<String, Value>;

/// The metadata key that marks a message pinned ([`Message::pinned`]).
pub const PINNED_KEY: &str = "pinned";

/// Who a [`Message`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions of the agent (L1) or of the project (L2). Never part of
    /// the history.
    System,
    /// A person's input. Each user message starts a round (CORE-4).
    User,
    /// The model's answer: text, tool calls, or both.
    Assistant,
    /// The result of one tool call, naming the call's id.
    Tool,
    /// An archived summary of earlier rounds, made by compaction (HIST-5).
    Summary,
}

impl Role {
    /// The role's name as written in JSON (`"user"`, `"tool"`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Summary => "summary",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One tool call of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id, unique in the conversation; the result names it.
    pub id: String,
    /// The tool's name as the model wrote it.
    pub name: String,
    /// The arguments, as JSON. Providers that send arguments as a string of
    /// JSON are decoded by the renderers and clients; text that is not JSON
    /// is kept as a JSON string. Shared (an `Arc`): every copy of the call
    /// holds the same arguments, which can be as large as a file written.
    #[serde(default)]
    pub arguments: Arc<Value>,
}

impl ToolCall {
    /// A call with these parts.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: Arc::new(arguments),
        }
    }
}

/// A block of the model's visible reasoning, kept so that it can be sent
/// back as the provider requires (Anthropic's extended thinking during a
/// tool loop). It serialises exactly as the provider's block.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ThinkingBlock {
    /// Reasoning as text, with the provider's signature (empty when the
    /// provider gives none, as OpenAI-compatible `reasoning_content`).
    Thinking {
        /// The reasoning.
        thinking: String,
        /// The provider's signature of it.
        #[serde(default)]
        signature: String,
    },
    /// Reasoning the provider encrypted; sent back as it came.
    RedactedThinking {
        /// The encrypted reasoning.
        data: String,
    },
}

/// How a tool run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ResultStatus {
    /// The tool did what was asked.
    #[default]
    Success,
    /// The tool did part of it, or its output was cut.
    Partial,
    /// The tool failed; see [`ToolResult::error`].
    Error,
}

impl ResultStatus {
    /// The status as written in JSON.
    pub fn as_str(&self) -> &'static str {
        match self {
            ResultStatus::Success => "success",
            ResultStatus::Partial => "partial",
            ResultStatus::Error => "error",
        }
    }
}

/// The error part of a failed tool result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolError {
    /// A short machine-readable code (`"not_found"`, `"interrupted"`).
    pub code: String,
    /// What went wrong, for the model.
    pub message: String,
}

/// The tool result envelope (CORE-3): what a tool returns, and what the
/// history keeps of it in compressed form.
///
/// `data` is either structured JSON (for the shapes each built-in rule
/// understands, see `docs/format.md`) or a JSON string holding the raw
/// output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ToolResult {
    /// How the run ended.
    pub status: ResultStatus,
    /// The output, structured or as text.
    #[serde(default)]
    pub data: Value,
    /// A text rendering for people; dropped from the history form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Code and message when `status` is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// Figures about the run (timings, sizes); dropped from the history
    /// form. `null` when absent.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub stats: Value,
    /// Anything else the tool wants to pass on; dropped from the history
    /// form. `null` when absent.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub context: Value,
    /// Where the full output was saved when it was cut (TRUNC-1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
}

impl ToolResult {
    /// A successful result carrying `data`.
    pub fn success(data: impl Into<Value>) -> Self {
        ToolResult {
            data: data.into(),
            ..ToolResult::default()
        }
    }

    /// A failed result with an error code and message.
    pub fn error(code: impl Into<String>, message: impl Into<String>) -> Self {
        ToolResult {
            status: ResultStatus::Error,
            data: Value::Null,
            error: Some(ToolError {
                code: code.into(),
                message: message.into(),
            }),
            ..ToolResult::default()
        }
    }

    /// The envelope as compact JSON, the way the model sees it.
    pub fn to_json(&self) -> String {
        // A struct of strings and JSON values always serialises.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// One entry of a conversation (CORE-1).
///
/// The JSON form, with snake_case field names and absent optional fields
/// left out, is the canonical interchange format; `docs/format.md` shows a
/// full history.
///
/// A `tool` message answers the call named by `tool_call_id`. What the model
/// reads of it is [`Message::text`]: the `content` when there is any,
/// otherwise the JSON of the `result` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// The message's id.
    pub id: MessageId,
    /// Who the message comes from.
    pub role: Role,
    /// The text. For an assistant message with tool calls, the thought
    /// (may be empty).
    #[serde(default)]
    pub content: Text,
    /// The tool calls of an assistant message, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The model's reasoning before this assistant message, as the
    /// provider returned it. Not counted in the window (providers drop the
    /// reasoning of earlier turns) and sent back only for the round in
    /// progress.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thinking: Vec<ThinkingBlock>,
    /// What the provider returned with this assistant message and
    /// requires back verbatim (MODEL-7): a compaction block or item,
    /// reasoning items. Sent back, before the message's own content, only
    /// to the provider it came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provider_items: Vec<ProviderItem>,
    /// For a `tool` message, the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a `tool` message, the name of the tool that ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For a `tool` message, the structured result envelope (boxed: most
    /// messages have none, and a message stays small without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<ToolResult>>,
    /// Free-form metadata, ordered by key.
    #[serde(default, skip_serializing_if = "Metadata::is_empty")]
    pub metadata: Metadata,
    /// When the message was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
}

impl Message {
    /// A message of `role` with `content`, a new random id and the current
    /// time.
    pub fn new(role: Role, content: impl Into<Text>) -> Self {
        Message {
            id: MessageId::new(),
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            thinking: Vec::new(),
            provider_items: Vec::new(),
            tool_call_id: None,
            tool_name: None,
            result: None,
            metadata: Metadata::new(),
            created_at: Some(Timestamp::now()),
        }
    }

    /// A system message.
    pub fn system(content: impl Into<Text>) -> Self {
        Message::new(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<Text>) -> Self {
        Message::new(Role::User, content)
    }

    /// An assistant message with text and no tool calls.
    pub fn assistant(content: impl Into<Text>) -> Self {
        Message::new(Role::Assistant, content)
    }

    /// An assistant message with a thought (may be empty) and tool calls.
    pub fn assistant_with_calls(thought: impl Into<Text>, calls: Vec<ToolCall>) -> Self {
        Message {
            tool_calls: calls,
            ..Message::new(Role::Assistant, thought)
        }
    }

    /// A summary message (HIST-5).
    pub fn summary(content: impl Into<Text>) -> Self {
        Message::new(Role::Summary, content)
    }

    /// A tool message answering `call` with a structured result. Its
    /// `content` stays empty: the model reads the envelope's JSON.
    pub fn tool_result(call: &ToolCall, result: ToolResult) -> Self {
        Message {
            tool_call_id: Some(call.id.clone()),
            tool_name: Some(call.name.clone()),
            result: Some(Box::new(result)),
            ..Message::new(Role::Tool, Text::new())
        }
    }

    /// A tool message answering the call `call_id` of tool `name` with plain
    /// text, as most agents record observations.
    pub fn tool_text(call_id: impl Into<String>, name: impl Into<String>, text: impl Into<Text>) -> Self {
        Message {
            tool_call_id: Some(call_id.into()),
            tool_name: Some(name.into()),
            ..Message::new(Role::Tool, text)
        }
    }

    /// Sets the id. By default, messages get a random id.
    pub fn with_id(mut self, id: MessageId) -> Self {
        self.id = id;
        self
    }

    /// Sets the creation time. By default, messages are stamped with the
    /// current time.
    pub fn with_created_at(mut self, at: Option<Timestamp>) -> Self {
        self.created_at = at;
        self
    }

    /// This message, pinned (#30.7): it survives compaction verbatim and
    /// is never cleared or cut, like an instruction, a skill or a
    /// constraint the user stated. Pinning a tool call pins its results,
    /// and a result its call, so pairs stay whole.
    ///
    /// ```
    /// use strata_ctx_core::Message;
    /// let rule = Message::user("Never push to main.").pinned();
    /// assert!(rule.is_pinned());
    /// assert!(!Message::user("hi").is_pinned());
    /// ```
    pub fn pinned(mut self) -> Self {
        self.set_pinned(true);
        self
    }

    /// Pins or unpins this message ([`Message::pinned`]); the mark is
    /// `"pinned": true` in its [`Message::metadata`].
    pub fn set_pinned(&mut self, pinned: bool) {
        if pinned {
            self.metadata.insert(PINNED_KEY.to_owned(), Value::Bool(true));
        } else {
            self.metadata.remove(PINNED_KEY);
        }
    }

    /// Whether this message is pinned ([`Message::pinned`]).
    pub fn is_pinned(&self) -> bool {
        self.metadata.get(PINNED_KEY) == Some(&Value::Bool(true))
    }

    /// Returns `true` for an assistant message that carries tool calls.
    pub fn has_tool_calls(&self) -> bool {
        !self.tool_calls.is_empty()
    }

    /// What the model reads of the message's body: `content`, or, when that
    /// is empty and a result envelope is present, the envelope's JSON.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.result {
            Some(result) if self.content.is_empty() => Cow::Owned(result.to_json()),
            _ => Cow::Borrowed(&self.content),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn core_1_absent_optionals_are_omitted() {
        let m = Message::user("hi")
            .with_id(MessageId::from_u128(1))
            .with_created_at(None);
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"id":"00000000-0000-0000-0000-000000000001","role":"user","content":"hi"}"#
        );
    }

    #[test]
    fn core_3_envelope_json() {
        let r = ToolResult::error("not_found", "no such file");
        assert_eq!(
            r.to_json(),
            r#"{"status":"error","data":null,"error":{"code":"not_found","message":"no such file"}}"#
        );
        let back: ToolResult = serde_json::from_value(
            json!({"status": "partial", "data": "x", "full_output_path": "tool-output/a.txt", "extra": 1}),
        )
        .unwrap();
        assert_eq!(back.status, ResultStatus::Partial);
        assert_eq!(back.full_output_path.as_deref(), Some("tool-output/a.txt"));
    }

    #[test]
    fn tool_text_prefers_content() {
        let call = ToolCall::new("c1", "Read", json!({"path": "a.rs"}));
        let m = Message::tool_result(&call, ToolResult::success("fn main() {}"));
        assert_eq!(m.text(), r#"{"status":"success","data":"fn main() {}"}"#);
        let t = Message::tool_text("c1", "bash", "ok");
        assert_eq!(t.text(), "ok");
    }

    #[test]
    fn unknown_role_is_rejected() {
        let err = serde_json::from_str::<Message>(
            r#"{"id":"00000000-0000-0000-0000-000000000001","role":"robot"}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("robot"), "{err}");
    }
}

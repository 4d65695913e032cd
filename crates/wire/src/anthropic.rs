//! The Anthropic Messages form: its content blocks as serde types, read
//! and sent, and histories in that form read into Strata's messages.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use strata_ctx_core::ThinkingBlock;

mod api;
mod import;

pub use api::{
    Amount, Answer, ApiError, AppliedEdit, ContextEdit, ContextManagement, ContextReport, Conversation,
    Event, MessageDelta, MessageParam, Part, Request, Role, StartedMessage, Usage,
};
pub use import::from_anthropic_messages;

/// A call id as the Messages API takes it for `tool_use` and
/// `tool_result` blocks: letters, digits, `_` and `-` only. Another
/// provider's id with other characters (`functions.Read:0`) has each of
/// them made `_` and ends in `_` and 8 hex digits of its hash, so two ids
/// that differ only there stay apart; an empty one becomes `call_` and the
/// hash of nothing.
///
/// ```
/// use strata_ctx_wire::anthropic::tool_use_id;
///
/// assert_eq!(tool_use_id("toolu_01A"), "toolu_01A");
/// assert_eq!(tool_use_id("call_9"), "call_9");
/// let mapped = tool_use_id("functions.Read:0");
/// assert!(mapped.starts_with("functions_Read_0_"));
/// assert_ne!(mapped, tool_use_id("functions_Read:0"));
/// ```
pub fn tool_use_id(id: &str) -> Cow<'_, str> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !id.is_empty() && id.chars().all(allowed) {
        return Cow::Borrowed(id);
    }
    let kept: String = id.chars().map(|c| if allowed(c) { c } else { '_' }).collect();
    let hash = strata_ctx_core::fnv1a(id.as_bytes()) as u32;
    let head = if kept.is_empty() { "call" } else { kept.as_str() };
    Cow::Owned(format!("{head}_{hash:08x}"))
}

/// One content block of a Messages API message, as read and as sent.
///
/// Blocks of other types (images, documents, server tools) are read as
/// [`Block::Other`] and left out.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block<'a> {
    /// Text; the last block of a stable prefix carries `cache_control`.
    Text {
        /// The text.
        #[serde(borrow)]
        text: Cow<'a, str>,
        /// Where a prompt-cache breakpoint ends (CTX-3).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A call of a tool.
    ToolUse {
        /// The call's id, which its result repeats.
        #[serde(default, borrow)]
        id: Option<Cow<'a, str>>,
        /// The tool's name.
        #[serde(default, borrow)]
        name: Option<Cow<'a, str>>,
        /// The arguments: always an object when sent.
        #[serde(default)]
        input: Option<Value>,
        /// Where a prompt-cache breakpoint ends.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// The result of a call.
    ToolResult {
        /// The call it answers.
        #[serde(default, borrow)]
        tool_use_id: Cow<'a, str>,
        /// Its text, or text blocks.
        #[serde(default, borrow)]
        content: Option<ResultContent<'a>>,
        /// Whether the call failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
        /// Where a prompt-cache breakpoint ends.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// Reasoning, with its signature.
    Thinking {
        /// The reasoning.
        #[serde(default, borrow)]
        thinking: Cow<'a, str>,
        /// The provider's signature of it.
        #[serde(default, borrow)]
        signature: Cow<'a, str>,
    },
    /// Reasoning the provider keeps encrypted.
    RedactedThinking {
        /// The encrypted reasoning.
        #[serde(default, borrow)]
        data: Cow<'a, str>,
    },
    /// The provider's own compaction of what came before it (MODEL-7):
    /// its fields, kept verbatim.
    Compaction(Map<String, Value>),
    /// Any other block.
    #[serde(other)]
    Other,
}

/// The `delta` of a streamed `content_block_delta` event.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Delta<'a> {
    /// More text.
    TextDelta {
        /// The piece.
        #[serde(default, borrow)]
        text: Cow<'a, str>,
    },
    /// More reasoning.
    ThinkingDelta {
        /// The piece.
        #[serde(default, borrow)]
        thinking: Cow<'a, str>,
    },
    /// The reasoning's signature, or a piece of it.
    SignatureDelta {
        /// The piece.
        #[serde(default, borrow)]
        signature: Cow<'a, str>,
    },
    /// A piece of a call's input, as JSON text.
    InputJsonDelta {
        /// The piece.
        #[serde(default, borrow)]
        partial_json: Cow<'a, str>,
    },
    /// A piece of a compaction block (MODEL-7): its summary, and the
    /// opaque part whole in the latest delta that has one.
    CompactionDelta {
        /// A piece of the summary.
        #[serde(default, borrow)]
        content: Option<Cow<'a, str>>,
        /// The opaque part.
        #[serde(default)]
        encrypted_content: Option<Value>,
    },
    /// Any other delta.
    #[serde(other)]
    Other,
}

/// A tool as the Messages API takes it: `{"description", "input_schema",
/// "name"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool<'a> {
    /// What it does, its usage rules and examples.
    pub description: String,
    /// The JSON Schema of its input.
    pub input_schema: Value,
    /// Its name.
    pub name: &'a str,
}

impl<'a> Tool<'a> {
    /// `spec` as a Messages API tool.
    pub fn of(spec: &'a strata_ctx_core::ToolSpec) -> Self {
        Tool {
            description: spec.full_description(),
            input_schema: spec.input_schema(),
            name: &spec.name,
        }
    }
}

/// `tool_choice`: `{"type": "auto" | "any" | "none"}` or `{"name": …,
/// "type": "tool"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolChoice<'a> {
    /// The tool to call, for `tool`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
    /// `auto`, `any`, `none` or `tool`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl<'a> ToolChoice<'a> {
    /// The tool choice `choice` is in this API (`required` is `any`).
    pub fn of(choice: &'a strata_ctx_core::ToolChoice) -> Self {
        let (kind, name) = match choice {
            strata_ctx_core::ToolChoice::None => ("none", None),
            strata_ctx_core::ToolChoice::Required => ("any", None),
            strata_ctx_core::ToolChoice::Tool(name) => ("tool", Some(name.as_str())),
            _ => ("auto", None),
        };
        ToolChoice { name, kind }
    }
}

/// Extended thinking switched on, with its budget:
/// `{"budget_tokens": …, "type": "enabled"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Thinking {
    /// The most tokens the reasoning may take.
    pub budget_tokens: u32,
    /// Always `enabled`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl Thinking {
    /// Thinking with `budget_tokens`.
    pub fn enabled(budget_tokens: u32) -> Self {
        Thinking {
            budget_tokens,
            kind: "enabled",
        }
    }
}

/// A prompt-cache breakpoint: `{"type": "ephemeral"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub struct CacheControl {
    /// Always `ephemeral`.
    #[serde(rename = "type")]
    pub kind: Ephemeral,
}

/// The one kind of cache breakpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ephemeral {
    /// `ephemeral`.
    Ephemeral,
}

impl CacheControl {
    /// `{"type": "ephemeral"}`.
    pub const EPHEMERAL: CacheControl = CacheControl {
        kind: Ephemeral::Ephemeral,
    };
}

/// A `tool_result`'s content: a string or blocks (their texts are read).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum ResultContent<'a> {
    /// A string.
    Text(#[serde(borrow)] Cow<'a, str>),
    /// Blocks.
    Blocks(Vec<Block<'a>>),
    /// Anything else, which holds no text.
    Other(Value),
}

/// A message's `content`: a string, or blocks.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Content<'a> {
    /// A string: one text block.
    Text(#[serde(borrow)] Cow<'a, str>),
    /// Blocks.
    Blocks(Vec<Block<'a>>),
}

impl<'a> Block<'a> {
    /// A text block.
    pub fn text(text: impl Into<Cow<'a, str>>) -> Self {
        Block::Text {
            text: text.into(),
            cache_control: None,
        }
    }

    /// The block's text, for a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Block::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The reasoning a `thinking` or `redacted_thinking` block holds.
    pub fn thinking(&self) -> Option<ThinkingBlock> {
        match self {
            Block::Thinking { thinking, signature } => Some(ThinkingBlock::Thinking {
                thinking: thinking.to_string(),
                signature: signature.to_string(),
            }),
            Block::RedactedThinking { data } => Some(ThinkingBlock::RedactedThinking {
                data: data.to_string(),
            }),
            _ => None,
        }
    }

    /// A compaction block as the provider sent it (MODEL-7): its fields
    /// with its `type`. `None` for other blocks.
    pub fn verbatim(&self) -> Option<Value> {
        let Block::Compaction(fields) = self else {
            return None;
        };
        let mut item = fields.clone();
        item.insert("type".into(), Value::from("compaction"));
        Some(Value::Object(item))
    }
}

impl<'a> Content<'a> {
    /// The blocks: a string is one text block.
    pub fn into_blocks(self) -> Vec<Block<'a>> {
        match self {
            Content::Text(text) => vec![Block::text(text)],
            Content::Blocks(blocks) => blocks,
        }
    }
}

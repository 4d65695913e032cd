//! The Messages API's request body, its answer and the events of a
//! streamed answer.
//!
//! Types that are sent declare their fields in the order `serde_json`
//! writes a map's keys, so a body sent through them has the bytes of the
//! same body written as a [`Value`].

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Block, CacheControl, Delta, Thinking, Tool, ToolChoice};

/// A `POST /v1/messages` body; without the answer's settings
/// (`max_tokens`, `temperature`, `stream`, `context_management`), the
/// body of `/v1/messages/count_tokens`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request<'a> {
    /// Server-side context management (MODEL-7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_management: Option<ContextManagement>,
    /// The longest answer, in tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The conversation.
    pub messages: Vec<MessageParam<'a>>,
    /// The model.
    pub model: Cow<'a, str>,
    /// Whether the answer is streamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// The system prompt's blocks; left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub system: Vec<Block<'a>>,
    /// Sampling temperature (the API refuses one with thinking on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Extended thinking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    /// Which tool the model must call, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice<'a>>,
    /// The tools; left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool<'a>>,
}

impl<'a> Request<'a> {
    /// A body for `model` holding `conversation`, with no settings.
    pub fn new(model: impl Into<Cow<'a, str>>, conversation: Conversation<'a>) -> Self {
        Request {
            context_management: None,
            max_tokens: None,
            messages: conversation.messages,
            model: model.into(),
            stream: None,
            system: conversation.system,
            temperature: None,
            thinking: None,
            tool_choice: None,
            tools: Vec::new(),
        }
    }
}

/// A conversation as the API takes it: the system blocks and the
/// messages, `{"messages": [...], "system": [...]}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Conversation<'a> {
    /// The messages, user and assistant alternating.
    pub messages: Vec<MessageParam<'a>>,
    /// The system prompt's blocks.
    pub system: Vec<Block<'a>>,
}

impl Conversation<'_> {
    /// Puts a prompt-cache breakpoint on the last block of the last
    /// message, so that the next call reads the conversation up to here
    /// from the cache. A reasoning block takes none: nothing is marked
    /// when the last block is one.
    pub fn cache_through_last_block(&mut self) {
        if let Some(part) = self.messages.last_mut().and_then(|m| m.content.last_mut()) {
            part.set_cache_control(CacheControl::EPHEMERAL);
        }
    }

    /// Whether extended thinking may be on for this conversation. The API
    /// keeps one thinking setting per assistant turn, and a tool-use loop
    /// is one turn: when the conversation ends in tool results, the
    /// assistant message that called the tools must start with a thinking
    /// block for thinking to be on. It does not when that turn began
    /// without thinking, or with another provider's model: then the turn
    /// ends without thinking, and the next one may use it again.
    pub fn allows_thinking(&self) -> bool {
        let Some(last) = self.messages.last() else {
            return true;
        };
        let in_tool_loop =
            last.role == Role::User && last.content.iter().any(|p| p.kind() == Some("tool_result"));
        if !in_tool_loop {
            return true;
        }
        let Some(caller) = self.messages.iter().rev().find(|m| m.role == Role::Assistant) else {
            return true;
        };
        caller
            .content
            .iter()
            .map(Part::kind)
            .find(|kind| *kind != Some("compaction"))
            .is_some_and(|kind| matches!(kind, Some("thinking" | "redacted_thinking")))
    }
}

/// One message of a request: its role and its blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageParam<'a> {
    /// Its blocks.
    pub content: Vec<Part<'a>>,
    /// Who wrote it.
    pub role: Role,
}

/// Who wrote a message: the API has two roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user (tool results are the user's too).
    User,
    /// The model.
    Assistant,
}

/// A block of a message as sent: one of the form's blocks, or a block the
/// provider returned earlier, sent back verbatim (MODEL-7).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Part<'a> {
    /// A block of the form.
    Block(Block<'a>),
    /// A block the provider returned, as it came.
    Verbatim(Cow<'a, Value>),
}

impl Part<'_> {
    /// The block's `type` (`text`, `tool_use`, `thinking` …); `None` for a
    /// verbatim block without one, or a block of a type Strata does not
    /// read.
    pub fn kind(&self) -> Option<&str> {
        match self {
            Part::Block(Block::Text { .. }) => Some("text"),
            Part::Block(Block::ToolUse { .. }) => Some("tool_use"),
            Part::Block(Block::ToolResult { .. }) => Some("tool_result"),
            Part::Block(Block::Thinking { .. }) => Some("thinking"),
            Part::Block(Block::RedactedThinking { .. }) => Some("redacted_thinking"),
            Part::Block(Block::Compaction(_)) => Some("compaction"),
            Part::Block(Block::Other) => None,
            Part::Verbatim(value) => value.get("type").and_then(Value::as_str),
        }
    }

    /// Marks the block as the end of a cached prefix; reasoning blocks
    /// and blocks that are not objects take no mark.
    fn set_cache_control(&mut self, mark: CacheControl) {
        match self {
            Part::Block(
                Block::Text { cache_control, .. }
                | Block::ToolUse { cache_control, .. }
                | Block::ToolResult { cache_control, .. },
            ) => *cache_control = Some(mark),
            Part::Block(Block::Compaction(fields)) => {
                fields.insert("cache_control".into(), serde_json::json!(mark));
            }
            Part::Verbatim(value) => {
                let kind = value.get("type").and_then(Value::as_str).unwrap_or_default();
                if value.is_object() && !matches!(kind, "thinking" | "redacted_thinking") {
                    if let Value::Object(fields) = value.to_mut() {
                        fields.insert("cache_control".into(), serde_json::json!(mark));
                    }
                }
            }
            Part::Block(_) => {}
        }
    }
}

/// The request's `context_management` (MODEL-7): `{"edits": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextManagement {
    /// The edits, in the order the server applies them.
    pub edits: Vec<ContextEdit>,
}

/// One context-management edit the server applies before the model
/// reads the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type")]
pub enum ContextEdit {
    /// `clear_thinking_20251015`: drops the reasoning of older turns.
    #[serde(rename = "clear_thinking_20251015")]
    ClearThinking {
        /// How much reasoning to keep (`thinking_turns`).
        keep: Amount,
    },
    /// `clear_tool_uses_20250919`: replaces old tool results with a
    /// placeholder once the input passes `trigger`.
    #[serde(rename = "clear_tool_uses_20250919")]
    ClearToolUses {
        /// The least to clear when it clears (`input_tokens`).
        #[serde(skip_serializing_if = "Option::is_none")]
        clear_at_least: Option<Amount>,
        /// Tools whose results are never cleared.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        exclude_tools: Vec<String>,
        /// How many recent tool uses to keep (`tool_uses`).
        keep: Amount,
        /// When to clear (`input_tokens`).
        trigger: Amount,
    },
    /// `compact_20260112`: summarises the conversation once the input
    /// passes `trigger`.
    #[serde(rename = "compact_20260112")]
    Compact {
        /// When to compact (`input_tokens`).
        trigger: Amount,
    },
}

/// A counted amount: `{"type": "input_tokens" | "tool_uses" |
/// "thinking_turns", "value": n}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Amount {
    /// What is counted.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// How many.
    pub value: u64,
}

impl Amount {
    /// `n` input tokens.
    pub fn input_tokens(n: u64) -> Self {
        Amount {
            kind: "input_tokens",
            value: n,
        }
    }

    /// `n` tool uses.
    pub fn tool_uses(n: u64) -> Self {
        Amount {
            kind: "tool_uses",
            value: n,
        }
    }

    /// `n` assistant turns of reasoning.
    pub fn thinking_turns(n: u64) -> Self {
        Amount {
            kind: "thinking_turns",
            value: n,
        }
    }
}

/// A non-streamed answer: a `message` object.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Answer<'a> {
    /// Its blocks.
    #[serde(borrow)]
    pub content: Vec<Block<'a>>,
    /// Why it stopped (`end_turn`, `tool_use`, `max_tokens`, …).
    #[serde(default, borrow)]
    pub stop_reason: Option<Cow<'a, str>>,
    /// The tokens it took.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// The context-management edits the server applied (MODEL-7).
    #[serde(default)]
    pub context_management: Option<ContextReport>,
}

/// The `usage` of an answer or of a streamed message's start or end.
/// A field the server left out is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct Usage {
    /// Input tokens after the last cache breakpoint.
    #[serde(default)]
    pub input_tokens: Option<u64>,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: Option<u64>,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
}

impl Usage {
    /// Usage in Strata's meaning (REACT-4): the whole window as
    /// `input_tokens`, the cache reads and writes as its parts. What this
    /// report leaves out is taken from `so_far` (a stream reports usage
    /// at its start and again at its end).
    pub fn over(self, so_far: strata_ctx_core::Usage) -> strata_ctx_core::Usage {
        let (read, write) = (self.cache_read_input_tokens, self.cache_creation_input_tokens);
        let input = self
            .input_tokens
            .map(|n| n + read.unwrap_or(0) + write.unwrap_or(0));
        strata_ctx_core::Usage {
            input_tokens: input.unwrap_or(so_far.input_tokens),
            output_tokens: self.output_tokens.unwrap_or(so_far.output_tokens),
            cached_input_tokens: read.or(so_far.cached_input_tokens),
            cache_write_tokens: write.or(so_far.cache_write_tokens),
        }
    }
}

/// What an answer says of context management: `{"applied_edits":
/// [...]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ContextReport {
    /// The edits applied to the request.
    #[serde(default)]
    pub applied_edits: Vec<AppliedEdit>,
}

/// One applied edit, with the counts the server reported.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct AppliedEdit {
    /// The edit's name (`clear_tool_uses_20250919`, …).
    #[serde(default, rename = "type")]
    pub kind: String,
    /// Tool uses cleared.
    #[serde(default)]
    pub cleared_tool_uses: u64,
    /// Assistant turns whose reasoning was cleared.
    #[serde(default)]
    pub cleared_thinking_turns: u64,
    /// Input tokens the edit removed.
    #[serde(default)]
    pub cleared_input_tokens: u64,
}

impl ContextReport {
    /// The applied edits in Strata's terms.
    pub fn edits(&self) -> Vec<strata_ctx_core::AppliedEdit> {
        self.applied_edits.iter().map(AppliedEdit::to_core).collect()
    }
}

impl AppliedEdit {
    /// The edit in Strata's terms.
    pub fn to_core(&self) -> strata_ctx_core::AppliedEdit {
        let mut edit = strata_ctx_core::AppliedEdit::new(strata_ctx_core::EditKind::parse(&self.kind));
        edit.cleared_tool_uses = self.cleared_tool_uses;
        edit.cleared_thinking_turns = self.cleared_thinking_turns;
        edit.cleared_input_tokens = self.cleared_input_tokens;
        edit
    }
}

/// One event of a streamed answer. Event types added after this client
/// are [`Event::Other`], to be skipped as the API's versioning policy
/// asks.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event<'a> {
    /// The message begins: its usage so far and any applied edits.
    MessageStart {
        /// The message without its content.
        message: StartedMessage,
    },
    /// A content block opens.
    ContentBlockStart {
        /// Its position in the message.
        #[serde(default)]
        index: usize,
        /// The block as it starts.
        #[serde(borrow)]
        content_block: Block<'a>,
    },
    /// A piece of an open block.
    ContentBlockDelta {
        /// The block's position.
        #[serde(default)]
        index: usize,
        /// The piece.
        #[serde(borrow)]
        delta: Delta<'a>,
    },
    /// A block closes.
    ContentBlockStop {
        /// The block's position.
        #[serde(default)]
        index: usize,
    },
    /// The message's end: why it stopped, its usage, applied edits.
    MessageDelta {
        /// Why it stopped.
        #[serde(default, borrow)]
        delta: MessageDelta<'a>,
        /// The usage at its end.
        #[serde(default)]
        usage: Option<Usage>,
        /// The edits applied (MODEL-7).
        #[serde(default)]
        context_management: Option<ContextReport>,
    },
    /// The stream ends.
    MessageStop,
    /// Keeps the connection open.
    Ping,
    /// The server failed during the stream.
    Error {
        /// What failed.
        error: ApiError,
    },
    /// An event type added after this client.
    #[serde(other)]
    Other,
}

/// A streamed message's start: `message_start`'s `message`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct StartedMessage {
    /// The usage so far.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// The edits applied (MODEL-7).
    #[serde(default)]
    pub context_management: Option<ContextReport>,
}

/// `message_delta`'s `delta`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct MessageDelta<'a> {
    /// Why the message stopped.
    #[serde(default, borrow)]
    pub stop_reason: Option<Cow<'a, str>>,
}

/// An error the API reports: `{"type": "overloaded_error", "message": …}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ApiError {
    /// The error's type.
    #[serde(default, rename = "type")]
    pub kind: String,
    /// What the server says of it.
    #[serde(default)]
    pub message: String,
}

impl ApiError {
    /// The HTTP status the API gives errors of this type (400 for types
    /// it does not list), so that an error inside a stream is handled as
    /// the same error before it (an overload is retried).
    pub fn status(&self) -> u16 {
        match self.kind.as_str() {
            "overloaded_error" => 529,
            "rate_limit_error" => 429,
            "api_error" => 500,
            "request_too_large" => 413,
            "authentication_error" => 401,
            "permission_error" => 403,
            "not_found_error" => 404,
            _ => 400,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(role: Role, parts: Vec<Part<'static>>) -> MessageParam<'static> {
        MessageParam { content: parts, role }
    }

    fn tool_use() -> Part<'static> {
        Part::Block(Block::ToolUse {
            id: Some("t1".into()),
            name: Some("Read".into()),
            input: Some(json!({})),
            cache_control: None,
        })
    }

    fn tool_result() -> Part<'static> {
        Part::Block(Block::ToolResult {
            tool_use_id: "t1".into(),
            content: None,
            is_error: None,
            cache_control: None,
        })
    }

    /// One thinking setting per assistant turn: within a tool loop, only
    /// if the calling message starts with (possibly redacted) thinking;
    /// a compaction block before it does not count; a new turn may.
    #[test]
    fn thinking_is_allowed_per_turn() {
        let thought = Part::Block(Block::Thinking {
            thinking: "x".into(),
            signature: "s".into(),
        });
        let redacted = Part::Verbatim(Cow::Owned(json!({"type": "redacted_thinking", "data": "d"})));
        let compaction = Part::Verbatim(Cow::Owned(json!({"type": "compaction", "content": "c"})));
        let user = || message(Role::User, vec![Part::Block(Block::text("go"))]);
        let turn = |caller: Vec<Part<'static>>| Conversation {
            messages: vec![
                user(),
                message(Role::Assistant, caller),
                message(Role::User, vec![tool_result()]),
            ],
            system: Vec::new(),
        };
        assert!(turn(vec![thought.clone(), tool_use()]).allows_thinking());
        assert!(turn(vec![redacted, tool_use()]).allows_thinking());
        assert!(turn(vec![compaction.clone(), thought, tool_use()]).allows_thinking());
        assert!(!turn(vec![tool_use()]).allows_thinking());
        assert!(!turn(vec![compaction, tool_use()]).allows_thinking());
        let mut next = turn(vec![tool_use()]);
        next.messages
            .push(message(Role::Assistant, vec![Part::Block(Block::text("done"))]));
        next.messages.push(user());
        assert!(next.allows_thinking(), "a new turn");
        assert!(Conversation::default().allows_thinking());
    }

    #[test]
    fn a_part_names_its_type() {
        assert_eq!(tool_use().kind(), Some("tool_use"));
        assert_eq!(tool_result().kind(), Some("tool_result"));
        assert_eq!(Part::Block(Block::text("x")).kind(), Some("text"));
        assert_eq!(Part::Block(Block::Other).kind(), None);
        assert_eq!(
            Part::Verbatim(Cow::Owned(json!({"type": "compaction"}))).kind(),
            Some("compaction")
        );
        assert_eq!(Part::Verbatim(Cow::Owned(json!(3))).kind(), None);
    }

    #[test]
    fn the_body_sent_has_the_api_names_and_leaves_out_what_is_unset() {
        let mut conversation = Conversation {
            messages: vec![MessageParam {
                content: vec![Part::Block(Block::text("Hi"))],
                role: Role::User,
            }],
            system: Vec::new(),
        };
        conversation.cache_through_last_block();
        let mut body = Request::new("claude-x", conversation);
        body.max_tokens = Some(100);
        body.context_management = Some(ContextManagement {
            edits: vec![ContextEdit::Compact {
                trigger: Amount::input_tokens(50_000),
            }],
        });
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({
                "context_management": {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50000}}]},
                "max_tokens": 100,
                "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}]}],
                "model": "claude-x",
            })
        );
    }

    #[test]
    fn a_breakpoint_goes_on_any_last_block_but_reasoning() {
        let thinking = json!({"type": "thinking", "thinking": "hm", "signature": "s"});
        let compaction = json!({"type": "compaction", "content": "So far"});
        for (part, marked) in [
            (Part::Verbatim(Cow::Borrowed(&thinking)), false),
            (Part::Verbatim(Cow::Borrowed(&compaction)), true),
            (
                Part::Block(Block::Thinking {
                    thinking: "hm".into(),
                    signature: "s".into(),
                }),
                false,
            ),
            (
                Part::Block(Block::ToolResult {
                    tool_use_id: "t1".into(),
                    content: None,
                    is_error: None,
                    cache_control: None,
                }),
                true,
            ),
        ] {
            let mut conversation = Conversation {
                messages: vec![MessageParam {
                    content: vec![part],
                    role: Role::User,
                }],
                system: Vec::new(),
            };
            conversation.cache_through_last_block();
            let sent = serde_json::to_value(&conversation).unwrap();
            assert_eq!(
                sent["messages"][0]["content"][0]["cache_control"].is_object(),
                marked,
                "{sent}"
            );
        }
    }

    #[test]
    fn stream_events_read_with_unknown_ones_passed_over() {
        let event: Event<'_> = serde_json::from_str(
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7},
            "context_management":{"applied_edits":[{"type":"clear_tool_uses_20250919","cleared_tool_uses":3}]}}"#,
        )
        .unwrap();
        let Event::MessageDelta {
            delta,
            usage,
            context_management,
        } = event
        else {
            panic!("{event:?}")
        };
        assert_eq!(delta.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(usage.unwrap().output_tokens, Some(7));
        let edits = context_management.unwrap().edits();
        assert_eq!(
            (edits[0].kind.clone(), edits[0].cleared_tool_uses),
            (strata_ctx_core::EditKind::ClearToolUses, 3)
        );
        let thinking: ContextReport = serde_json::from_str(
            r#"{"applied_edits":[{"type":"clear_thinking_20251015","cleared_thinking_turns":2},{"type":"fold_99"}]}"#,
        )
        .unwrap();
        let edits = thinking.edits();
        assert_eq!(
            (edits[0].kind.clone(), edits[0].cleared_thinking_turns),
            (strata_ctx_core::EditKind::ClearThinking, 2)
        );
        assert_eq!(edits[1].kind, strata_ctx_core::EditKind::Other("fold_99".into()));
        let later: Event<'_> = serde_json::from_str(r#"{"type":"future_event","x":1}"#).unwrap();
        assert_eq!(later, Event::Other);
        let error: Event<'_> =
            serde_json::from_str(r#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#)
                .unwrap();
        let Event::Error { error } = error else { panic!() };
        assert_eq!((error.status(), error.message.as_str()), (529, "busy"));
    }

    #[test]
    fn usage_counts_the_whole_window_as_input() {
        let so_far = strata_ctx_core::Usage {
            input_tokens: 5,
            output_tokens: 1,
            cached_input_tokens: None,
            cache_write_tokens: None,
        };
        let start = Usage {
            input_tokens: Some(20),
            cache_read_input_tokens: Some(1000),
            cache_creation_input_tokens: Some(30),
            output_tokens: None,
        }
        .over(so_far);
        assert_eq!(
            (
                start.input_tokens,
                start.output_tokens,
                start.cached_input_tokens,
                start.cache_write_tokens
            ),
            (1050, 1, Some(1000), Some(30))
        );
        let end = Usage {
            output_tokens: Some(9),
            ..Usage::default()
        }
        .over(start);
        assert_eq!((end.input_tokens, end.output_tokens), (1050, 9));
    }
}

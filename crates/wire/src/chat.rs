//! The OpenAI chat-completions form: its messages as serde types, and
//! histories in that form read into Strata's messages.
//!
//! One definition serves every source and both directions: messages
//! read from and written to it. Histories are read from a parsed [`Value`]
//! ([`from_openai_messages`]), text or bytes read straight into the types
//! ([`from_openai_str`], [`from_openai_slice`]) and a reader consumed a
//! message at a time ([`read_openai_list`]). What each field may hold is
//! said once, on the types, so the three cannot disagree. The API's
//! request body ([`ChatRequest`]), its answer ([`ChatCompletion`]) and the
//! chunks of a streamed answer (a [`ChatCompletion`] whose choices carry a
//! `delta`) are types of this module as well.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use strata_ctx_core::{Message, MessageId, Metadata, Role, Text, ToolCall};

mod api;
mod import;

pub use api::{
    ChatAnswer, ChatCallPiece, ChatChoice, ChatCompletion, ChatRequest, ChatTool, ChatToolChoice,
    ChatToolFunction, ChatUsage, NamedFunction, PieceFunction, PromptTokensDetails, StreamOptions,
};
pub use import::{from_openai_messages, from_openai_slice, from_openai_str, read_openai_list, OpenAiList};

/// The longest call id the chat-completions API takes.
pub const MAX_CALL_ID_BYTES: usize = 40;

/// A call id as the chat-completions API takes it: at most
/// [`MAX_CALL_ID_BYTES`] bytes. A longer one (another server's: vLLM's
/// `chatcmpl-tool-…` ids are 46) keeps its first 31 bytes and ends in
/// `_` and 8 hex digits of its hash, so a call and its result, written
/// apart, still name the same id and two long ids stay apart.
///
/// ```
/// use strata_ctx_wire::chat::call_id;
///
/// assert_eq!(call_id("call_1"), "call_1");
/// let long = "chatcmpl-tool-0123456789abcdef0123456789abcdef";
/// assert_eq!(call_id(long).len(), 40);
/// assert_eq!(call_id(long), call_id(long));
/// ```
pub fn call_id(id: &str) -> Cow<'_, str> {
    if id.len() <= MAX_CALL_ID_BYTES {
        return Cow::Borrowed(id);
    }
    let mut keep = MAX_CALL_ID_BYTES - 9;
    while !id.is_char_boundary(keep) {
        keep -= 1;
    }
    let hash = strata_ctx_core::fnv1a(id.as_bytes()) as u32;
    Cow::Owned(format!("{}_{hash:08x}", &id[..keep]))
}

/// One message of a chat-completions `messages` array, as read and as
/// sent.
///
/// Keys it does not name (`refusal`, `audio`, …) are passed over when
/// read. Its fields are declared in the order `serde_json` writes a map's
/// keys, so a message sent through these types has the bytes of the same
/// message written as a [`Value`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ChatMessage<'a> {
    /// The text: a string, an array of parts, or `null`.
    #[serde(default, borrow)]
    pub content: Option<ChatContent<'a>>,
    /// Not part of the form: a message with an `id` is Strata's own
    /// (or another format's). Never written.
    #[serde(default, skip_serializing)]
    pub id: Option<IgnoredAny>,
    /// The tool a tool (or legacy `function`) message comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Cow<'a, str>>,
    /// `system`, `developer`, `user`, `assistant`, `tool` or the legacy
    /// `function`.
    #[serde(borrow)]
    pub role: Cow<'a, str>,
    /// The call a tool message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<Cow<'a, str>>,
    /// The calls an assistant message makes.
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ChatToolCall<'a>>>,
}

/// A message's `content`.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatContent<'a> {
    /// A string.
    Text(Cow<'a, str>),
    /// An array of parts.
    Parts(Vec<ChatPart<'a>>),
    /// Anything else, which holds no text (written as `null`).
    Other,
}

/// One part of an array `content`.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatPart<'a> {
    /// A string, or an object with a string `text` (`{"type": "text", …}`,
    /// as it is written).
    Text(Cow<'a, str>),
    /// A block only the Anthropic Messages API has (`tool_use`,
    /// `tool_result`, `thinking`, `redacted_thinking`): the list is in
    /// that form, not this one.
    Anthropic,
    /// Anything else (an image, audio, a file), which holds no text
    /// (written as `null`).
    Other,
}

/// One of an assistant message's `tool_calls`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ChatToolCall<'a> {
    /// The function called.
    #[serde(default, borrow)]
    pub function: Option<ChatFunction<'a>>,
    /// The call's id, which the tool message answering it repeats.
    #[serde(default)]
    pub id: Option<Cow<'a, str>>,
    /// `function`, the only kind of call this form has.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<Cow<'a, str>>,
}

/// A call's `function`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ChatFunction<'a> {
    /// The arguments: the API sends a string of JSON; other histories
    /// keep the object itself.
    #[serde(default, borrow)]
    pub arguments: Option<ChatArguments<'a>>,
    /// The tool's name.
    #[serde(default)]
    pub name: Option<Cow<'a, str>>,
}

/// A call's `function.arguments`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum ChatArguments<'a> {
    /// A string, which is JSON when the model wrote it well.
    Text(#[serde(borrow)] Cow<'a, str>),
    /// Any other JSON value, kept as it is.
    Value(Value),
}

impl<'a> ChatMessage<'a> {
    /// A message of `role` with `content` as its text, and nothing else.
    pub fn text(role: &'a str, content: impl Into<Cow<'a, str>>) -> Self {
        ChatMessage {
            content: Some(ChatContent::Text(content.into())),
            id: None,
            name: None,
            role: Cow::Borrowed(role),
            tool_call_id: None,
            tool_calls: None,
        }
    }
}

impl<'a> ChatToolCall<'a> {
    /// A call as sent: `{"function": {"arguments": …, "name": …}, "id": …,
    /// "type": "function"}`, its arguments the JSON text the API expects.
    pub fn function(id: &'a str, name: &'a str, arguments: Cow<'a, str>) -> Self {
        ChatToolCall {
            function: Some(ChatFunction {
                arguments: Some(ChatArguments::Text(arguments)),
                name: Some(Cow::Borrowed(name)),
            }),
            id: Some(call_id(id)),
            kind: Some(Cow::Borrowed("function")),
        }
    }
}

impl Serialize for ChatContent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            ChatContent::Text(text) => serializer.serialize_str(text),
            ChatContent::Parts(parts) => serializer.collect_seq(parts),
            ChatContent::Other => serializer.serialize_unit(),
        }
    }
}

impl Serialize for ChatPart<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            ChatPart::Text(text) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("text", text)?;
                map.serialize_entry("type", "text")?;
                map.end()
            }
            ChatPart::Anthropic | ChatPart::Other => serializer.serialize_unit(),
        }
    }
}

impl ChatArguments<'_> {
    /// The arguments as a value: a string is read as JSON where it is
    /// JSON and kept as a string where it is not.
    pub fn into_value(self) -> Value {
        match self {
            ChatArguments::Text(text) => {
                serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.into_owned()))
            }
            ChatArguments::Value(value) => value,
        }
    }
}

impl ChatMessage<'_> {
    /// Whether the message belongs to another format: it carries an `id`
    /// (Strata's messages do) or content blocks of the Anthropic API.
    pub fn is_other_format(&self) -> bool {
        self.id.is_some()
            || matches!(&self.content, Some(ChatContent::Parts(parts)) if parts.contains(&ChatPart::Anthropic))
    }

    /// The Strata message this one makes as the `index`-th of its list.
    ///
    /// - `system` and `developer` become [`Role::System`]; the legacy
    ///   `function` role a tool message.
    /// - The text parts of an array `content` are joined with newlines.
    /// - A tool message answers `tool_call_id`, or else the call its
    ///   `name` names; other roles keep neither.
    /// - The id is [`MessageId::imported`] from the position and text, so
    ///   reading the same list twice gives the same ids.
    ///
    /// # Errors
    ///
    /// What is wrong, for an unknown role or a call without an id or a
    /// function name.
    pub fn into_message(self, index: usize) -> std::result::Result<Message, String> {
        let role = role_of(&self.role).ok_or_else(|| format!("unknown role `{}`", self.role))?;
        let content = match self.content {
            Some(ChatContent::Text(text)) => Text::from(text),
            Some(ChatContent::Parts(parts)) => Text::from(joined(parts)),
            Some(ChatContent::Other) | None => Text::default(),
        };
        let calls = self.tool_calls.unwrap_or_default();
        let mut tool_calls = Vec::with_capacity(calls.len());
        for (n, call) in calls.into_iter().enumerate() {
            let (
                Some(id),
                Some(ChatFunction {
                    name: Some(name),
                    arguments,
                }),
            ) = (call.id, call.function)
            else {
                return Err(format!("tool call {n} has no `id` or no `function.name`"));
            };
            let arguments = arguments.map_or(Value::Null, ChatArguments::into_value);
            tool_calls.push(ToolCall::new(id, name, arguments));
        }
        let (tool_call_id, tool_name) = if role == Role::Tool {
            let name = self.name.map(Cow::into_owned);
            (
                self.tool_call_id.map(Cow::into_owned).or_else(|| name.clone()),
                name,
            )
        } else {
            (None, None)
        };
        Ok(Message {
            id: MessageId::imported("openai", index, &self.role, &content),
            role,
            content,
            tool_calls,
            thinking: Vec::new(),
            provider_items: Vec::new(),
            tool_call_id,
            tool_name,
            result: None,
            metadata: Metadata::new(),
            created_at: None,
        })
    }
}

/// The role an OpenAI `role` names: `system` and `developer` are system
/// messages, the legacy `function` a tool message; `None` for any other.
pub fn role_of(text: &str) -> Option<Role> {
    Some(match text {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        "summary" => Role::Summary,
        _ => return None,
    })
}

/// The texts of a content array, one per line.
fn joined(parts: Vec<ChatPart<'_>>) -> String {
    let mut out = String::new();
    for (n, text) in parts
        .into_iter()
        .filter_map(|p| match p {
            ChatPart::Text(text) => Some(text),
            _ => None,
        })
        .enumerate()
    {
        if n > 0 {
            out.push('\n');
        }
        out.push_str(&text);
    }
    out
}

/// The `visit_*` methods of a value read as `$text` where it is a string
/// and as `$other` where it is a number, a boolean or `null`: what a
/// lenient field of this form does with each scalar.
macro_rules! text_or_other {
    ($text:expr, $other:expr) => {
        fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Self::Value, E> {
            Ok($text(Cow::Borrowed(v)))
        }
        fn visit_str<E>(self, v: &str) -> std::result::Result<Self::Value, E> {
            Ok($text(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E>(self, v: String) -> std::result::Result<Self::Value, E> {
            Ok($text(Cow::Owned(v)))
        }
        fn visit_unit<E>(self) -> std::result::Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_bool<E>(self, _: bool) -> std::result::Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_i64<E>(self, _: i64) -> std::result::Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E>(self, _: u64) -> std::result::Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E>(self, _: f64) -> std::result::Result<Self::Value, E> {
            Ok($other)
        }
    };
}

impl<'de: 'a, 'a> Deserialize<'de> for ChatContent<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct ContentVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for ContentVisitor<'a> {
            type Value = ChatContent<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content parts")
            }
            text_or_other!(ChatContent::Text, ChatContent::Other);
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(16));
                while let Some(part) = seq.next_element()? {
                    parts.push(part);
                }
                Ok(ChatContent::Parts(parts))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Self::Value, A::Error> {
                IgnoredAny.visit_map(map).map(|_| ChatContent::Other)
            }
        }
        deserializer.deserialize_any(ContentVisitor(PhantomData))
    }
}

/// The keys of a content part that matter.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum PartKey {
    Text,
    Type,
    #[serde(other)]
    Other,
}

/// A part's `text` or `type`: its string, or nothing for any other value.
struct MaybeText<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for MaybeText<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct TextVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = Option<Cow<'a, str>>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            text_or_other!(Some, None);
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Self::Value, A::Error> {
                IgnoredAny.visit_seq(seq).map(|_| None)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Self::Value, A::Error> {
                IgnoredAny.visit_map(map).map(|_| None)
            }
        }
        deserializer
            .deserialize_any(TextVisitor(PhantomData))
            .map(MaybeText)
    }
}

struct PartVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for PartVisitor<'a> {
    type Value = ChatPart<'a>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content part")
    }
    text_or_other!(ChatPart::Text, ChatPart::Other);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
        let mut text: Option<Option<Cow<'a, str>>> = None;
        let mut anthropic = false;
        while let Some(key) = map.next_key::<PartKey>()? {
            match key {
                PartKey::Text if text.is_some() => return Err(de::Error::duplicate_field("text")),
                PartKey::Text => text = Some(map.next_value::<MaybeText<'a>>()?.0),
                PartKey::Type => {
                    let kind = map.next_value::<MaybeText<'a>>()?.0;
                    anthropic |= matches!(
                        kind.as_deref(),
                        Some("tool_use" | "tool_result" | "thinking" | "redacted_thinking")
                    );
                }
                PartKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(match (anthropic, text.flatten()) {
            (true, _) => ChatPart::Anthropic,
            (false, Some(text)) => ChatPart::Text(text),
            (false, None) => ChatPart::Other,
        })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Self::Value, A::Error> {
        IgnoredAny.visit_seq(seq).map(|_| ChatPart::Other)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ChatPart<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_any(PartVisitor(PhantomData))
    }
}

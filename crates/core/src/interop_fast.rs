//! Reading a plain OpenAI chat-completions list straight from its bytes,
//! without a `serde_json::Value` tree in between.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use crate::id::MessageId;
use crate::interop::{arguments_of, role_of};
use crate::message::{Message, Metadata, Role, ToolCall};
use crate::text::Text;

/// The messages of `bytes` when they hold a plain OpenAI chat-completions
/// list (a JSON array of messages, or an object whose only conversation
/// is its `messages` array), read straight from the bytes: the same
/// messages, ids included, as [`from_openai_messages`](crate::from_openai_messages)
/// gives for the parsed value, in about a third of the time and memory.
///
/// `None` for anything else, including what might be another format (a
/// top-level `system`, messages with an `id`, content blocks of the
/// Anthropic API) and anything that would be an error: read those with
/// `serde_json` and [`from_openai_messages`](crate::from_openai_messages),
/// which tells what is wrong and where.
///
/// ```
/// use strata_ctx_core::{from_openai_messages, from_openai_slice};
///
/// let bytes = br#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]"#;
/// let fast = from_openai_slice(bytes).unwrap();
/// let value: serde_json::Value = serde_json::from_slice(bytes)?;
/// assert_eq!(fast, from_openai_messages(&value)?);
/// assert!(from_openai_slice(br#"[{"role": "robot"}]"#).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_openai_slice(bytes: &[u8]) -> Option<Vec<Message>> {
    from_openai_str(std::str::from_utf8(bytes).ok()?)
}

/// [`from_openai_slice`] for text already known to be UTF-8: its strings
/// are not checked again.
///
/// ```
/// use strata_ctx_core::{from_openai_slice, from_openai_str};
///
/// let text = r#"[{"role": "user", "content": "hi"}]"#;
/// assert_eq!(from_openai_str(text), from_openai_slice(text.as_bytes()));
/// ```
pub fn from_openai_str(text: &str) -> Option<Vec<Message>> {
    let list: Listing = serde_json::from_str(text).ok()?;
    list.0
}

/// A top-level array, or an object with `messages` and no `system`;
/// `None` inside for any other shape.
struct Listing(Option<Vec<Message>>);

/// The messages of an array, each made as it is read (no list of raw
/// messages is held beside them); an error for anything that is not a
/// plain OpenAI message.
fn messages<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<Message>, A::Error> {
    let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
    while let Some(raw) = seq.next_element::<Raw<'de>>()? {
        let message = raw
            .into_message(out.len())
            .ok_or_else(|| de::Error::custom("not a plain message"))?;
        out.push(message);
    }
    Ok(out)
}

/// The `messages` array of an object.
struct Messages(Vec<Message>);

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Messages;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of messages")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                messages(seq).map(Messages)
            }
        }
        d.deserialize_seq(V)
    }
}

impl<'de> Deserialize<'de> for Listing {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Listing;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of messages or an object with `messages`")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                messages(seq).map(|m| Listing(Some(m)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut messages = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "messages" if messages.is_none() => messages = Some(map.next_value::<Messages>()?.0),
                        // Another format, or a repeated key: the general path decides.
                        "messages" | "system" => return Err(de::Error::custom("not a plain list")),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Listing(messages))
            }
        }
        d.deserialize_any(V)
    }
}

/// One message as the OpenAI form has it.
#[derive(Deserialize)]
pub(crate) struct Raw<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
    #[serde(default)]
    content: Content,
    #[serde(default)]
    tool_calls: Calls,
    #[serde(default, borrow)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    /// Present only in other formats (Strata's messages carry an id).
    #[serde(default)]
    id: Option<IgnoredAny>,
}

impl Raw<'_> {
    pub(crate) fn into_message(self, index: usize) -> Option<Message> {
        if self.id.is_some() {
            return None;
        }
        let role = role_of(&self.role)?;
        let content = self.content.0;
        let (tool_call_id, tool_name) = if role == Role::Tool {
            let name = self.name.map(Cow::into_owned);
            (
                self.tool_call_id.map(Cow::into_owned).or_else(|| name.clone()),
                name,
            )
        } else {
            (None, None)
        };
        let id = MessageId::imported("openai", index, &self.role, &content);
        Some(Message {
            id,
            role,
            content,
            tool_calls: self.tool_calls.0?,
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

/// `content`: a string, an array of parts whose texts are joined with
/// newlines, or anything else for no text.
#[derive(Default)]
struct Content(Text);

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
                Ok(Content(Text::from(v)))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Content, E> {
                Ok(Content(Text::from(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
                let mut texts: Vec<String> = Vec::new();
                while let Some(Part(text)) = seq.next_element()? {
                    texts.extend(text);
                }
                Ok(Content(Text::from(texts.join("\n"))))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Content, E> {
                Ok(Content::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Content, E> {
                Ok(Content::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Content, E> {
                Ok(Content::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Content, E> {
                Ok(Content::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Content, E> {
                Ok(Content::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// One part of an array `content`: its text when it is a string or an
/// object with a string `text`. A block of the Anthropic API makes the
/// whole read fail, so that the general path decides the format.
struct Part(Option<String>);

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Part;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content part")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Part, E> {
                Ok(Part(Some(v.to_owned())))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Part, A::Error> {
                let mut text = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "text" if text.is_none() => text = Some(map.next_value::<Value>()?),
                        "type" => {
                            let kind = map.next_value::<Value>()?;
                            let other_api = matches!(
                                kind.as_str(),
                                Some("tool_use" | "tool_result" | "thinking" | "redacted_thinking")
                            );
                            if other_api {
                                return Err(de::Error::custom("an Anthropic block"));
                            }
                        }
                        "text" => return Err(de::Error::custom("a repeated key")),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Part(text.and_then(|t| t.as_str().map(str::to_owned))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Part, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Part(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Part, E> {
                Ok(Part(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Part, E> {
                Ok(Part(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Part, E> {
                Ok(Part(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Part, E> {
                Ok(Part(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Part, E> {
                Ok(Part(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// `tool_calls`: an array of calls; anything else for none. `None` inside
/// when a call lacks its id or name (an error for the general path).
struct Calls(Option<Vec<ToolCall>>);

impl Default for Calls {
    fn default() -> Self {
        Calls(Some(Vec::new()))
    }
}

impl<'de> Deserialize<'de> for Calls {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct RawCall<'a> {
            #[serde(borrow)]
            id: Option<Cow<'a, str>>,
            #[serde(borrow)]
            function: Option<RawFunction<'a>>,
        }
        #[derive(Deserialize)]
        struct RawFunction<'a> {
            #[serde(borrow)]
            name: Option<Cow<'a, str>>,
            arguments: Option<Arguments>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Calls;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("tool calls")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Calls, A::Error> {
                // Most messages make one call: room for one, not four.
                let mut calls = Some(Vec::with_capacity(1));
                while let Some(call) = seq.next_element::<RawCall<'de>>()? {
                    let function = call.function;
                    let (name, arguments) = match function {
                        Some(f) => (f.name, f.arguments.map(|a| a.0)),
                        None => (None, None),
                    };
                    let (Some(id), Some(name), Some(list)) = (call.id, name, calls.as_mut()) else {
                        calls = None;
                        continue;
                    };
                    list.push(ToolCall::new(
                        id.into_owned(),
                        name.into_owned(),
                        arguments.unwrap_or(Value::Null),
                    ));
                }
                // More, or none: no room left over.
                if let Some(calls) = &mut calls {
                    calls.shrink_to_fit();
                }
                Ok(Calls(calls))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Calls, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Calls::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Calls, E> {
                Ok(Calls::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Calls, E> {
                Ok(Calls::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Calls, E> {
                Ok(Calls::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Calls, E> {
                Ok(Calls::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Calls, E> {
                Ok(Calls::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Calls, E> {
                Ok(Calls::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// A call's `function.arguments` as [`arguments_of`] makes them: a string
/// is read as JSON where it is JSON, straight from the text the parser
/// holds (no string is made of it first), and anything else is kept.
struct Arguments(Value);

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Arguments;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("call arguments")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Arguments, E> {
                Ok(Arguments(
                    serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_owned())),
                ))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Arguments, E> {
                Ok(Arguments(arguments_of(Some(Value::String(v)))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Arguments, A::Error> {
                Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Arguments)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Arguments, A::Error> {
                Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Arguments)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Arguments, E> {
                Ok(Arguments(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Arguments, E> {
                Ok(Arguments(Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Arguments, E> {
                Ok(Arguments(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Arguments, E> {
                Ok(Arguments(Value::from(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Arguments, E> {
                Ok(Arguments(Value::Null))
            }
        }
        d.deserialize_any(V)
    }
}

//! Histories in the chat-completions form read into Strata's messages,
//! from a parsed value, from text or from a reader.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};

use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use strata_ctx_core::{Error, Message, Result};

use super::ChatMessage;

/// Reads an OpenAI chat-completions `messages` array into [`Message`]s.
///
/// - `system` and `developer` become [`Role::System`](strata_ctx_core::Role::System), `user`, `assistant`
///   and `tool` keep their role; the legacy `function` role becomes a tool
///   message.
/// - `content` may be a string, `null` or an array of parts; the text parts
///   are joined with newlines.
/// - Each tool call's `function.arguments` string is decoded as JSON; text
///   that is not JSON is kept as a JSON string.
/// - Ids are derived from each message's position and text
///   ([`MessageId::imported`](strata_ctx_core::MessageId::imported)), so reading the same list twice gives the
///   same ids. Messages have no timestamp.
///
/// # Errors
///
/// [`Error::InvalidMessage`] with the message's index when the value is not
/// an array, a message is not an object or not in this form (a field of
/// the wrong type), its role is missing or unknown, or a tool call has no
/// id or name.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::Role;
/// use strata_ctx_wire::chat::from_openai_messages;
///
/// let messages = from_openai_messages(&json!([
///     {"role": "user", "content": "list files"},
///     {"role": "assistant", "content": null, "tool_calls": [
///         {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}
///     ]},
///     {"role": "tool", "tool_call_id": "c1", "name": "bash", "content": "a.rs"}
/// ]))?;
/// assert_eq!(messages[1].tool_calls[0].arguments["command"], "ls");
/// assert_eq!(messages[2].role, Role::Tool);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_openai_messages(value: &Value) -> Result<Vec<Message>> {
    let list = value.as_array().ok_or_else(|| Error::InvalidMessage {
        index: 0,
        reason: "expected an array of messages".into(),
    })?;
    list.iter()
        .enumerate()
        .map(|(index, m)| {
            let bad = |reason: String| Error::InvalidMessage { index, reason };
            if !m.is_object() {
                return Err(bad("expected an object".into()));
            }
            ChatMessage::deserialize(m)
                .map_err(|e| bad(e.to_string()))?
                .into_message(index)
                .map_err(bad)
        })
        .collect()
}

/// The messages of a chat-completions list, each made as it is read.
/// Reading fails at the first message that is not in the form, or that
/// belongs to another format ([`ChatMessage::is_other_format`]).
struct PlainList(Vec<Message>);

impl<'de> Deserialize<'de> for PlainList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = PlainList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of chat-completions messages")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<PlainList, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(message) = seq.next_element::<ChatMessage<'de>>()? {
                    if message.is_other_format() {
                        return Err(de::Error::custom("another format's message"));
                    }
                    out.push(message.into_message(out.len()).map_err(de::Error::custom)?);
                }
                Ok(PlainList(out))
            }
        }
        deserializer.deserialize_seq(ListVisitor)
    }
}

/// A request body, or any object whose conversation is its `messages`:
/// its other keys are passed over, but a `system` beside `messages` is the
/// Anthropic form.
#[derive(Deserialize)]
struct PlainBody {
    messages: PlainList,
    #[serde(default, deserialize_with = "present")]
    system: bool,
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> std::result::Result<bool, D::Error> {
    IgnoredAny::deserialize(deserializer).map(|_| true)
}

/// What [`read_openai_list`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum OpenAiList {
    /// A top-level JSON array of messages.
    Array(Vec<Message>),
    /// An object with a `messages` array (and other keys, passed over).
    Object(Vec<Message>),
    /// Anything else (another format, or something wrong): read it with
    /// [`from_openai_messages`] or another format's reader, which tell
    /// what is wrong and where.
    Other,
}

impl OpenAiList {
    /// The messages, whichever way they were written.
    pub fn into_messages(self) -> Option<Vec<Message>> {
        match self {
            OpenAiList::Array(m) | OpenAiList::Object(m) => Some(m),
            OpenAiList::Other => None,
        }
    }
}

/// The list a document holds, read by `read`, given the document's first
/// byte.
fn plain_list<'de, D: Deserializer<'de>>(first: Option<u8>, deserializer: D) -> OpenAiList {
    match first {
        Some(b'[') => {
            PlainList::deserialize(deserializer).map_or(OpenAiList::Other, |l| OpenAiList::Array(l.0))
        }
        Some(b'{') => match PlainBody::deserialize(deserializer) {
            Ok(PlainBody {
                messages,
                system: false,
            }) => OpenAiList::Object(messages.0),
            _ => OpenAiList::Other,
        },
        _ => OpenAiList::Other,
    }
}

/// The messages of `text` when it holds a plain OpenAI chat-completions
/// list (a JSON array of messages, or an object whose conversation is its
/// `messages` array): the same messages, ids included, as
/// [`from_openai_messages`] gives for the parsed value, without a
/// [`Value`] tree in between.
///
/// `None` for anything else, including what might be another format (a
/// top-level `system`, messages with an `id`, content blocks of the
/// Anthropic API) and anything that would be an error: read those with
/// `serde_json` and [`from_openai_messages`], which tells what is wrong
/// and where.
///
/// ```
/// use strata_ctx_wire::chat::{from_openai_messages, from_openai_str};
///
/// let text = r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]"#;
/// let messages = from_openai_str(text).unwrap();
/// let value: serde_json::Value = serde_json::from_str(text)?;
/// assert_eq!(messages, from_openai_messages(&value)?);
/// assert!(from_openai_str(r#"[{"role": "robot"}]"#).is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_openai_str(text: &str) -> Option<Vec<Message>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.bytes().find(|b| !b.is_ascii_whitespace());
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let list = plain_list(first, &mut deserializer).into_messages()?;
    deserializer.end().ok()?;
    Some(list)
}

/// [`from_openai_str`] for bytes; `None` as well when they are not UTF-8.
///
/// ```
/// use strata_ctx_wire::chat::{from_openai_slice, from_openai_str};
///
/// let text = r#"[{"role": "user", "content": "hi"}]"#;
/// assert_eq!(from_openai_slice(text.as_bytes()), from_openai_str(text));
/// ```
pub fn from_openai_slice(bytes: &[u8]) -> Option<Vec<Message>> {
    from_openai_str(std::str::from_utf8(bytes).ok()?)
}

/// Reads a plain OpenAI chat-completions list from `reader`, as
/// [`from_openai_str`] reads it from text (the same messages, ids
/// included), a message at a time: the memory it takes is the messages'
/// and a read buffer's, not the whole input's.
///
/// # Errors
///
/// Only errors of `reader`; what is not a plain list is
/// [`OpenAiList::Other`].
///
/// ```
/// use strata_ctx_wire::chat::{from_openai_str, read_openai_list, OpenAiList};
///
/// let text = r#"{"model": "m", "messages": [{"role": "user", "content": "hi"}]}"#;
/// let messages = from_openai_str(text).unwrap_or_default();
/// assert_eq!(read_openai_list(text.as_bytes())?, OpenAiList::Object(messages));
/// assert_eq!(read_openai_list(&b"[{\"role\": \"robot\"}]"[..])?, OpenAiList::Other);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_openai_list<R: Read>(mut reader: R) -> io::Result<OpenAiList> {
    // A byte-order mark is not JSON, but files have it.
    const BOM: &[u8] = "\u{feff}".as_bytes();
    let mut head = [0u8; 3];
    let mut n = 0;
    while n < head.len() {
        match reader.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let skip = if &head[..n] == BOM { n } else { 0 };
    let mut reader = BufReader::with_capacity(64 * 1024, (&head[skip..n]).chain(reader));
    // The first byte that is not white space says what the document is.
    let first = loop {
        let buf = match reader.fill_buf() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => other?,
        };
        if buf.is_empty() {
            break None;
        }
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(at) => {
                let first = buf[at];
                reader.consume(at);
                break Some(first);
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    };
    let mut deserializer = serde_json::Deserializer::from_reader(&mut reader);
    let list = plain_list(first, &mut deserializer);
    if list == OpenAiList::Other {
        return Ok(list);
    }
    match deserializer.end() {
        Ok(()) => Ok(list),
        Err(e) if e.is_io() => Err(io::Error::other(e)),
        Err(_) => Ok(OpenAiList::Other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::Role;

    #[test]
    fn reads_parts_and_bad_arguments() {
        let list = json!([
            {"role": "developer", "content": [{"type": "text", "text": "a"}, "b", {"type": "image_url"}, {"text": 3}, {"type": "text", "text": {"text": "nested"}}, {"type": {"type": "tool_use"}}]},
            {"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{not json"}}]},
            {"role": "function", "name": "f", "content": 7},
        ]);
        let m = from_openai_messages(&list).unwrap();
        assert_eq!(m[0].role, Role::System);
        assert_eq!(m[0].content, "a\nb");
        assert_eq!(*m[1].tool_calls[0].arguments, json!("{not json"));
        assert_eq!((m[2].role, m[2].tool_call_id.as_deref()), (Role::Tool, Some("f")));
        assert_eq!(m[2].content, "");
        assert_eq!(m, from_openai_messages(&list).unwrap(), "ids are reproducible");
        assert_eq!(from_openai_str(&list.to_string()), Some(m));
    }

    #[test]
    fn errors_name_the_message() {
        let err = from_openai_messages(&json!([{"role": "user"}, {"role": "robot"}])).unwrap_err();
        assert_eq!(err.to_string(), "cannot read message 1: unknown role `robot`");
        let err = from_openai_messages(&json!([{"role": "assistant", "tool_calls": [{"function": {}}]}]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot read message 0: tool call 0 has no `id` or no `function.name`"
        );
        let err = from_openai_messages(&json!([{"content": "x"}])).unwrap_err();
        assert_eq!(err.to_string(), "cannot read message 0: missing field `role`");
        let err = from_openai_messages(&json!(["x"])).unwrap_err();
        assert_eq!(err.to_string(), "cannot read message 0: expected an object");
        assert!(from_openai_messages(&json!({"messages": []})).is_err());
    }

    #[test]
    fn other_formats_step_aside() {
        for text in [
            r#"{"system": "s", "messages": []}"#,
            r#"{"system": null, "messages": []}"#,
            r#"[{"role": "user", "id": "0190c1a2-0000-8000-8000-000000000000", "content": "x"}]"#,
            r#"[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}]"#,
            r#"{"messages": [], "messages": []}"#,
            r#"{"model": "m"}"#,
            r#"[] []"#,
            "\"text\"",
            "",
        ] {
            assert_eq!(from_openai_str(text), None, "{text}");
            assert_eq!(
                read_openai_list(text.as_bytes()).unwrap(),
                OpenAiList::Other,
                "{text}"
            );
        }
        let plain = "\u{feff} [{\"role\": \"user\", \"content\": \"hi\", \"id\": null}] \n";
        let messages = from_openai_str(plain).unwrap();
        assert_eq!(
            read_openai_list(plain.as_bytes()).unwrap(),
            OpenAiList::Array(messages)
        );
    }
}

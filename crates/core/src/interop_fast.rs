//! Reading a plain OpenAI chat-completions list straight from its bytes,
//! without a `serde_json::Value` tree in between.

use std::borrow::Cow;

use serde_json::Value;

use crate::interop::{openai_message, role_of};
use crate::json_read::{value_of, Reader};
use crate::message::{Message, ToolCall};
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
    from_openai_str(simdutf8::basic::from_utf8(bytes).ok()?)
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
    let mut r = Reader::new(text);
    let messages = match r.peek()? {
        b'[' => messages(&mut r)?,
        b'{' => listing(&mut r)?,
        _ => return None,
    };
    r.at_end().then_some(messages)
}

/// An object whose `messages` is the conversation: its other keys
/// skipped; `None` without `messages`, with a `system` (another format) or
/// with `messages` twice.
fn listing(r: &mut Reader<'_>) -> Option<Vec<Message>> {
    r.eat(b'{')?;
    let mut found = None;
    if r.eat(b'}').is_some() {
        return None;
    }
    loop {
        match r.key()? {
            "messages" if found.is_none() => found = Some(messages(r)?),
            "messages" | "system" => return None,
            _ => r.skip()?,
        }
        if !r.more(b'}')? {
            return found;
        }
    }
}

/// The messages of an array, each made as it is read; `None` for anything
/// that is not a plain OpenAI message.
fn messages(r: &mut Reader<'_>) -> Option<Vec<Message>> {
    r.eat(b'[')?;
    let mut out = Vec::new();
    if r.empty_array() {
        return Some(out);
    }
    loop {
        let message = message(r, out.len())?;
        out.push(message);
        if !r.more(b']')? {
            // The room doubling left, given back.
            out.shrink_to_fit();
            return Some(out);
        }
    }
}

/// The message `bytes` hold (one JSON object, with nothing but whitespace
/// around it), the `index`-th of its list; `None` for anything else.
pub(crate) fn message_of(bytes: &[u8], index: usize) -> Option<Message> {
    let mut r = Reader::new(simdutf8::basic::from_utf8(bytes).ok()?);
    let message = message(&mut r, index)?;
    r.at_end().then_some(message)
}

/// Sets `slot` once: a key given twice makes the message another format's
/// (or a mistake), and `None`.
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    slot.is_none().then(|| *slot = Some(value))
}

/// A string or `null`; `None` inside for `null`, `None` for anything else.
fn optional_string(r: &mut Reader<'_>) -> Option<Option<String>> {
    if r.peek()? == b'"' {
        return Some(Some(r.string()?.to_owned()));
    }
    match r.value()? {
        Value::Null => Some(None),
        _ => None,
    }
}

/// One message as the OpenAI form has it: `role` (required), `content`,
/// `tool_calls`, `tool_call_id` and `name`, each at most once; other keys
/// skipped. A message with an `id` is another format's (Strata's).
fn message(r: &mut Reader<'_>, index: usize) -> Option<Message> {
    r.eat(b'{')?;
    let mut role_text: Option<Cow<'_, str>> = None;
    let mut content: Option<Text> = None;
    let mut calls: Option<Vec<ToolCall>> = None;
    let mut tool_call_id: Option<Option<String>> = None;
    let mut name: Option<Option<String>> = None;
    let mut id_seen = false;
    if r.eat(b'}').is_some() {
        return None;
    }
    loop {
        match r.key()? {
            "role" => {
                let text = r.string_cow()?;
                once(&mut role_text, text)?;
            }
            "content" => {
                let text = read_content(r)?;
                once(&mut content, text)?;
            }
            "tool_calls" => {
                let list = read_calls(r)?;
                once(&mut calls, list)?;
            }
            "tool_call_id" => {
                let id = optional_string(r)?;
                once(&mut tool_call_id, id)?;
            }
            "name" => {
                let text = optional_string(r)?;
                once(&mut name, text)?;
            }
            "id" => {
                if id_seen || r.value()? != Value::Null {
                    return None;
                }
                id_seen = true;
            }
            _ => r.skip()?,
        }
        if !r.more(b'}')? {
            break;
        }
    }
    let role_text = role_text?;
    let role = role_of(&role_text)?;
    Some(openai_message(
        index,
        &role_text,
        role,
        content.unwrap_or_default(),
        calls.unwrap_or_default(),
        tool_call_id.flatten(),
        name.flatten(),
    ))
}

/// `content`: a string, an array of parts whose texts are joined with
/// newlines, or anything else for no text.
fn read_content(r: &mut Reader<'_>) -> Option<Text> {
    match r.peek()? {
        b'"' => Some(Text::from(r.string()?)),
        b'[' => {
            r.eat(b'[')?;
            let mut joined = String::new();
            let mut any = false;
            if !r.empty_array() {
                loop {
                    if let Some(text) = read_part(r)? {
                        if any {
                            joined.push('\n');
                        }
                        joined.push_str(&text);
                        any = true;
                    }
                    if !r.more(b']')? {
                        break;
                    }
                }
            }
            Some(Text::from(joined))
        }
        _ => r.skip().map(|()| Text::default()),
    }
}

/// One part of an array `content`: its text when it is a string or an
/// object with a string `text`. A block of the Anthropic API makes the
/// whole read fail, so that the general path decides the format.
fn read_part(r: &mut Reader<'_>) -> Option<Option<String>> {
    match r.peek()? {
        b'"' => Some(Some(r.string()?.to_owned())),
        b'{' => {
            r.eat(b'{')?;
            let mut text: Option<Value> = None;
            if r.eat(b'}').is_none() {
                loop {
                    match r.key()? {
                        "text" => {
                            let value = r.value()?;
                            once(&mut text, value)?;
                        }
                        "type" => {
                            let kind = r.value()?;
                            let other_api = matches!(
                                kind.as_str(),
                                Some("tool_use" | "tool_result" | "thinking" | "redacted_thinking")
                            );
                            if other_api {
                                return None;
                            }
                        }
                        _ => r.skip()?,
                    }
                    if !r.more(b'}')? {
                        break;
                    }
                }
            }
            Some(match text {
                Some(Value::String(text)) => Some(text),
                _ => None,
            })
        }
        _ => r.skip().map(|()| None),
    }
}

/// `tool_calls`: an array of calls, each with an id and a function name;
/// anything but an array for none. `None` when a call lacks its id or
/// name (the general path then says so).
fn read_calls(r: &mut Reader<'_>) -> Option<Vec<ToolCall>> {
    if r.peek()? != b'[' {
        return r.skip().map(|()| Vec::new());
    }
    r.eat(b'[')?;
    // Most messages make one call: room for one, not four.
    let mut calls = Vec::with_capacity(1);
    if !r.empty_array() {
        loop {
            calls.push(read_call(r)?);
            if !r.more(b']')? {
                break;
            }
        }
    }
    // More, or none: no room left over.
    calls.shrink_to_fit();
    Some(calls)
}

/// One call: `id` and `function` (`name` and `arguments`), each at most
/// once; other keys skipped.
fn read_call(r: &mut Reader<'_>) -> Option<ToolCall> {
    r.eat(b'{')?;
    let mut id: Option<Option<String>> = None;
    let mut function: Option<Option<(Option<String>, Value)>> = None;
    if r.eat(b'}').is_none() {
        loop {
            match r.key()? {
                "id" => {
                    let text = optional_string(r)?;
                    once(&mut id, text)?;
                }
                "function" => {
                    let f = if r.peek()? == b'{' {
                        Some(read_function(r)?)
                    } else if r.value()? == Value::Null {
                        None
                    } else {
                        return None;
                    };
                    once(&mut function, f)?;
                }
                _ => r.skip()?,
            }
            if !r.more(b'}')? {
                break;
            }
        }
    }
    let (name, arguments) = function.flatten()?;
    Some(ToolCall::new(id.flatten()?, name?, arguments))
}

/// A call's `function`: its `name`, and its `arguments` as the general
/// reader makes them (a string is read as JSON where it is JSON, anything
/// else kept, none `null`).
fn read_function(r: &mut Reader<'_>) -> Option<(Option<String>, Value)> {
    r.eat(b'{')?;
    let mut name: Option<Option<String>> = None;
    let mut arguments: Option<Value> = None;
    if r.eat(b'}').is_none() {
        loop {
            match r.key()? {
                "name" => {
                    let text = optional_string(r)?;
                    once(&mut name, text)?;
                }
                "arguments" => {
                    let value = if r.peek()? == b'"' {
                        // Read in one pass where it can be, else decoded
                        // first and its text read as JSON.
                        match r.nested_value() {
                            Some(value) => value,
                            None => arguments_text(r.string()?),
                        }
                    } else {
                        r.value()?
                    };
                    once(&mut arguments, value)?;
                }
                _ => r.skip()?,
            }
            if !r.more(b'}')? {
                break;
            }
        }
    }
    Some((name.flatten(), arguments.unwrap_or(Value::Null)))
}

/// Arguments given as a string: their JSON where the string is JSON, the
/// string itself where it is not (`serde_json` decides what this reader
/// refuses).
fn arguments_text(text: &str) -> Value {
    value_of(text)
        .or_else(|| serde_json::from_str(text).ok())
        .unwrap_or_else(|| Value::String(text.to_owned()))
}

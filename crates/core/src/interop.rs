//! Reading chat histories in the OpenAI chat-completions form.

use serde_json::Value;

use crate::error::{Error, Result};
use crate::id::MessageId;
use crate::message::{Message, Metadata, Role, ToolCall};
use crate::text::Text;

/// Reads an OpenAI chat-completions `messages` array into [`Message`]s.
///
/// - `system` and `developer` become [`Role::System`], `user`, `assistant`
///   and `tool` keep their role; the legacy `function` role becomes a tool
///   message.
/// - `content` may be a string, `null` or an array of parts; the text parts
///   are joined with newlines.
/// - Each tool call's `function.arguments` string is decoded as JSON; text
///   that is not JSON is kept as a JSON string.
/// - Ids are derived from each message's position and text ([`MessageId::imported`]), so reading the
///   same list twice gives the same ids. Messages have no timestamp.
///
/// # Errors
///
/// [`Error::InvalidMessage`] with the message's index when the value is not
/// an array, a message is not an object, its role is missing or unknown, or
/// a tool call has no id or name.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{from_openai_messages, Role};
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
        .map(|(i, m)| from_openai_message(i, m))
        .collect()
}

fn from_openai_message(index: usize, value: &Value) -> Result<Message> {
    let bad = |reason: String| Error::InvalidMessage { index, reason };
    let object = value
        .as_object()
        .ok_or_else(|| bad("expected an object".into()))?;
    let role_text = object
        .get("role")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("missing `role`".into()))?;
    let role = role_of(role_text).ok_or_else(|| bad(format!("unknown role `{role_text}`")))?;
    let content = content_text(object.get("content"));
    let mut tool_calls = Vec::new();
    if let Some(calls) = object.get("tool_calls").and_then(Value::as_array) {
        for (n, call) in calls.iter().enumerate() {
            let id = call.get("id").and_then(Value::as_str);
            let function = call.get("function");
            let name = function.and_then(|f| f.get("name")).and_then(Value::as_str);
            let (Some(id), Some(name)) = (id, name) else {
                return Err(bad(format!("tool call {n} has no `id` or no `function.name`")));
            };
            let arguments = arguments_of(function.and_then(|f| f.get("arguments")).cloned());
            tool_calls.push(ToolCall::new(id, name, arguments));
        }
    }
    let text_field = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    Ok(openai_message(
        index,
        role_text,
        role,
        content.into(),
        tool_calls,
        text_field("tool_call_id"),
        text_field("name"),
    ))
}

/// The message an OpenAI message makes, the `index`-th of its list, from
/// its parts as written: both readers (the general and the fast one) end
/// here. A tool message answers `tool_call_id`, or else the call its
/// `name` names; other roles keep neither.
pub(crate) fn openai_message(
    index: usize,
    role_text: &str,
    role: Role,
    content: Text,
    tool_calls: Vec<ToolCall>,
    tool_call_id: Option<String>,
    name: Option<String>,
) -> Message {
    let (tool_call_id, tool_name) = if role == Role::Tool {
        (tool_call_id.or_else(|| name.clone()), name)
    } else {
        (None, None)
    };
    Message {
        id: MessageId::imported("openai", index, role_text, &content),
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
    }
}

/// The role an OpenAI `role` names: `system` and `developer` are system
/// messages, the legacy `function` a tool message; `None` for any other.
pub(crate) fn role_of(text: &str) -> Option<Role> {
    Some(match text {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        "summary" => Role::Summary,
        _ => return None,
    })
}

/// A call's `function.arguments`: a string is decoded as JSON (kept as a
/// string when it is not JSON), anything else kept, nothing `null`.
pub(crate) fn arguments_of(arguments: Option<Value>) -> Value {
    match arguments {
        Some(Value::String(text)) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        Some(other) => other,
        None => Value::Null,
    }
}

fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Value::as_str)))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_parts_and_bad_arguments() {
        let m = from_openai_messages(&json!([
            {"role": "developer", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{not json"}}]},
        ]))
        .unwrap();
        assert_eq!(m[0].role, Role::System);
        assert_eq!(m[0].content, "a\nb");
        assert_eq!(*m[1].tool_calls[0].arguments, json!("{not json"));
        assert_eq!(m, from_openai_messages(&json!([
            {"role": "developer", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{not json"}}]},
        ])).unwrap(), "ids are reproducible");
    }

    #[test]
    fn errors_name_the_message() {
        let err = from_openai_messages(&json!([{"role": "user"}, {"role": "robot"}])).unwrap_err();
        assert_eq!(err.to_string(), "cannot read message 1: unknown role `robot`");
        let err = from_openai_messages(&json!([{"role": "assistant", "tool_calls": [{"function": {}}]}]))
            .unwrap_err();
        assert!(matches!(err, Error::InvalidMessage { index: 0, .. }));
        assert!(from_openai_messages(&json!({"messages": []})).is_err());
    }
}

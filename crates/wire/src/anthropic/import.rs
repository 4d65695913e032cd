//! Histories in the Anthropic Messages form read into Strata's messages.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};
use strata_ctx_core::{
    Error, Message, MessageId, Provider, ProviderItem, Result, ResultStatus, Role, ToolCall, ToolError,
    ToolResult,
};

use super::{Block, Content, ResultContent};

/// The texts of text blocks, one per line.
fn texts(blocks: &[Block<'_>]) -> String {
    blocks
        .iter()
        .filter_map(Block::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Reads an Anthropic Messages conversation into [`Message`]s: a request
/// body `{"system": …, "messages": [...]}` or a `messages` array alone.
///
/// - `system`, a string or text blocks, becomes one [`Role::System`]
///   message per block.
/// - A user message's `tool_result` blocks become tool messages (named
///   after the call they answer; `is_error` gives an error result); its
///   text blocks, one user message after them.
/// - An assistant message's text blocks are its content, `tool_use`
///   blocks its calls, `thinking` and `redacted_thinking` blocks its
///   reasoning. Blocks of other types (images, documents, server tools)
///   are left out.
/// - Ids are derived from each message's position and text ([`MessageId::imported`]), so reading the
///   same conversation twice gives the same ids.
///
/// # Errors
///
/// [`Error::InvalidMessage`] with the message's index when the value is
/// not a conversation, a message is not an object, its role is neither
/// `user` nor `assistant`, or a `tool_use` block has no id or name.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::Role;
/// use strata_ctx_wire::anthropic::from_anthropic_messages;
///
/// let messages = from_anthropic_messages(&json!({
///     "system": "Be brief.",
///     "messages": [
///         {"role": "user", "content": "list files"},
///         {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]},
///         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.rs"}]}
///     ]
/// }))?;
/// assert_eq!(messages[0].role, Role::System);
/// assert_eq!(messages[2].tool_calls[0].arguments["command"], "ls");
/// assert_eq!((messages[3].role, messages[3].tool_name.as_deref()), (Role::Tool, Some("Bash")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_anthropic_messages(value: &Value) -> Result<Vec<Message>> {
    let bad = |index: usize, reason: String| Error::InvalidMessage { index, reason };
    let (system, list) = match value {
        Value::Object(o) => (o.get("system"), o.get("messages")),
        other => (None, Some(other)),
    };
    let list = list.and_then(Value::as_array).ok_or_else(|| {
        bad(
            0,
            "expected an array of messages or an object with `messages`".into(),
        )
    })?;
    let mut out = Vec::new();
    let mut push = |role: Role, index: usize, mut m: Message| {
        m.role = role;
        m.created_at = None;
        m.id = MessageId::imported(
            &format!("anthropic\u{0}{index}"),
            out.len(),
            role.as_str(),
            &m.content,
        );
        out.push(m);
    };
    match system {
        Some(Value::String(s)) if !s.trim().is_empty() => push(Role::System, 0, Message::system(s.clone())),
        Some(blocks @ Value::Array(_)) => {
            let blocks = Vec::<Block<'_>>::deserialize(blocks)
                .map_err(|e| bad(0, format!("`system` is not text blocks: {e}")))?;
            for text in blocks.iter().filter_map(Block::as_text) {
                push(Role::System, 0, Message::system(text));
            }
        }
        _ => {}
    }
    let mut names: HashMap<String, String> = HashMap::new();
    for (index, m) in list.iter().enumerate() {
        let object = m
            .as_object()
            .ok_or_else(|| bad(index, "expected an object".into()))?;
        let role = object.get("role").and_then(Value::as_str).unwrap_or_default();
        let blocks: Vec<Block<'_>> = match object.get("content") {
            None | Some(Value::Null) => Vec::new(),
            Some(content @ (Value::String(_) | Value::Array(_))) => Content::deserialize(content)
                .map_err(|e| bad(index, format!("`content` is not text or blocks: {e}")))?
                .into_blocks(),
            Some(other) => return Err(bad(index, format!("`content` is {other}"))),
        };
        match role {
            "user" => {
                for b in &blocks {
                    if let Some(message) = tool_result(b, &names) {
                        push(Role::Tool, index, message);
                    }
                }
                let only_results =
                    !blocks.is_empty() && blocks.iter().all(|b| matches!(b, Block::ToolResult { .. }));
                if !only_results {
                    push(Role::User, index, Message::user(texts(&blocks)));
                }
            }
            "assistant" => {
                let message = assistant(&blocks, &mut names)
                    .ok_or_else(|| bad(index, "a `tool_use` block has no `id` or `name`".into()))?;
                push(Role::Assistant, index, message);
            }
            other => {
                return Err(bad(
                    index,
                    format!("role `{other}` is not a Messages API role (user, assistant)"),
                ))
            }
        }
    }
    Ok(out)
}

/// The tool message of a `tool_result` block, named by the call it
/// answers (`names`: call id to tool name); `None` for other blocks.
fn tool_result(block: &Block<'_>, names: &HashMap<String, String>) -> Option<Message> {
    let Block::ToolResult {
        tool_use_id,
        content,
        is_error,
        ..
    } = block
    else {
        return None;
    };
    let id = tool_use_id.to_string();
    let name = names.get(&id).cloned().unwrap_or_default();
    let text = match content {
        Some(ResultContent::Text(s)) => s.to_string(),
        Some(ResultContent::Blocks(parts)) => texts(parts),
        _ => String::new(),
    };
    let mut message = Message::tool_text(id, name, text.clone());
    if *is_error == Some(true) {
        message.result = Some(Box::new(ToolResult {
            status: ResultStatus::Error,
            error: Some(ToolError {
                code: "tool_error".into(),
                message: text,
            }),
            ..ToolResult::default()
        }));
    }
    Some(message)
}

/// The assistant message of `blocks`: its text, tool calls (each named in
/// `names` for the results that answer it), thinking and compaction
/// items; `None` when a `tool_use` block has no id or name.
fn assistant(blocks: &[Block<'_>], names: &mut HashMap<String, String>) -> Option<Message> {
    let mut calls = Vec::new();
    let mut thinking = Vec::new();
    let mut items = Vec::new();
    for b in blocks {
        match b {
            Block::ToolUse { id, name, input, .. } => {
                let (id, name) = (id.as_ref()?, name.as_ref()?);
                names.insert(id.to_string(), name.to_string());
                let input = input.clone().unwrap_or(Value::Object(Map::new()));
                calls.push(ToolCall::new(id.as_ref(), name.as_ref(), input));
            }
            Block::Thinking { .. } | Block::RedactedThinking { .. } => {
                thinking.extend(b.thinking());
            }
            Block::Compaction(_) => {
                items.extend(
                    b.verbatim()
                        .map(|item| ProviderItem::new(Provider::Anthropic, item)),
                );
            }
            _ => {}
        }
    }
    let mut message = Message::assistant_with_calls(texts(blocks), calls);
    message.thinking = thinking;
    message.provider_items = items;
    Some(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::ThinkingBlock;

    #[test]
    fn round_trips_the_anthropic_rendering() {
        let call = ToolCall::new("t1", "Read", json!({"path": "a.rs"}));
        let mut answer = Message::assistant_with_calls("Reading.", vec![call.clone()]);
        answer.thinking = vec![ThinkingBlock::Thinking {
            thinking: "hm".into(),
            signature: "s".into(),
        }];
        let original = [
            Message::user("look"),
            answer,
            Message::tool_result(&call, ToolResult::error("not_found", "no such file")),
            Message::assistant("It is missing."),
        ];
        // What the Anthropic renderer writes for these.
        let body = json!({"system": [{"type": "text", "text": "sys"}], "messages": [
            {"role": "user", "content": [{"type": "text", "text": "look"}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}, {"type": "text", "text": "Reading."}, {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "a.rs"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": original[2].text(), "is_error": true}]},
            {"role": "assistant", "content": [{"type": "compaction", "content": "Looked for a.rs."}, {"type": "text", "text": "It is missing."}]}
        ]});
        let back = from_anthropic_messages(&body).unwrap();
        // MODEL-7: a compaction block is kept verbatim, not read as text.
        assert_eq!(
            back[4].provider_items,
            [ProviderItem::new(
                Provider::Anthropic,
                json!({"type": "compaction", "content": "Looked for a.rs."})
            )]
        );
        assert_eq!(back.len(), 5);
        assert_eq!(back[2].tool_calls, original[1].tool_calls);
        assert_eq!(back[2].thinking, original[1].thinking);
        assert_eq!(back[3].tool_name.as_deref(), Some("Read"));
        assert_eq!(
            back[3].result.as_ref().map(|r| r.status),
            Some(ResultStatus::Error)
        );
        assert_eq!(back[4].content, "It is missing.");
        assert_eq!(from_anthropic_messages(&body).unwrap(), back, "ids are stable");
        assert!(from_anthropic_messages(&json!([{"role": "tool"}])).is_err());
        assert!(from_anthropic_messages(&json!(3)).is_err());
        // Blocks of the wrong shape are named, not read as empty text.
        let err =
            from_anthropic_messages(&json!({"system": [{"type": "text"}], "messages": []})).unwrap_err();
        assert!(err.to_string().contains("`system` is not text blocks"), "{err}");
        let err = from_anthropic_messages(&json!([{"role": "user", "content": [{"text": "no type"}]}]))
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("message 0: `content` is not text or blocks"),
            "{err}"
        );
    }
}

//! Parsing a conversation in any of the formats the commands accept
//! (EDGE-3): Strata JSONL or JSON, OpenAI messages as JSON or JSONL, an
//! object with `messages`, an Anthropic Messages body, a Codex CLI rollout
//! or a Claude Code session file. Pure: it depends on `strata`, `serde` and `serde_json`
//! only, so that the fuzz target of the CLI's input reader compiles it
//! as it is.

use std::sync::Arc;

use serde_json::Value;
use strata_ctx::history::Record;
use strata_ctx::types::MessageId;
use strata_ctx::{
    from_anthropic_messages, from_openai_messages, from_openai_str, CharCounter, Config, History, Message,
};

/// The formats a conversation may come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Strata's canonical JSONL: one `Message` per line.
    StrataJsonl,
    /// A JSON array of Strata messages.
    StrataArray,
    /// An OpenAI chat-completions `messages` array.
    OpenAiArray,
    /// One OpenAI chat-completions message per line.
    OpenAiJsonl,
    /// A JSON object with a `messages` field (OpenAI or Strata messages).
    MessagesObject,
    /// An Anthropic Messages body (`system` and `messages`) or messages
    /// array: content blocks with `tool_use` / `tool_result`.
    AnthropicJson,
    /// A conversation log the engine wrote (STORE-1): one record per line;
    /// its messages are the full log it rebuilds.
    StrataLog,
    /// A Codex CLI rollout file (`rollout-*.jsonl`).
    CodexRollout,
    /// A Claude Code session file.
    ClaudeCodeSession,
}

impl Format {
    /// The name shown to people and in JSON outputs.
    pub fn name(self) -> &'static str {
        match self {
            Format::StrataJsonl => "strata-jsonl",
            Format::StrataArray => "strata-json",
            Format::OpenAiArray => "openai-json",
            Format::OpenAiJsonl => "openai-jsonl",
            Format::MessagesObject => "messages-object",
            Format::AnthropicJson => "anthropic-json",
            Format::StrataLog => "strata-log",
            Format::CodexRollout => "codex-rollout",
            Format::ClaudeCodeSession => "claude-code-session",
        }
    }
}

/// Parses a conversation; the error names the line or field that is wrong.
pub fn parse(bytes: &[u8]) -> Result<(Format, Vec<Message>), String> {
    parse_text(utf8(bytes)?)
}

/// `bytes` as text, checked with SIMD; the error names the line and byte
/// where UTF-8 stops.
pub fn utf8(bytes: &[u8]) -> Result<&str, String> {
    simdutf8::compat::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        format!("line {line}: not UTF-8 (byte {})", e.valid_up_to())
    })
}

/// Parses a conversation already checked as UTF-8 (see [`parse`]).
pub fn parse_text(text: &str) -> Result<(Format, Vec<Message>), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(
            "empty input: expected messages as JSONL, a JSON array or an object with `messages`".into(),
        );
    }
    // A plain OpenAI list is read straight from the bytes; anything else,
    // or anything wrong, goes the general way below, which names errors.
    if let Some(messages) = from_openai_str(text) {
        let format = if trimmed.starts_with('[') {
            Format::OpenAiArray
        } else {
            Format::MessagesObject
        };
        return Ok((format, messages));
    }
    if trimmed.starts_with('[') {
        let value: Value = serde_json::from_str(text).map_err(|e| json_error(&e))?;
        if is_anthropic(&value, &value) {
            return anthropic(&value);
        }
        let (format, messages) = list(&value, "")?;
        let format = if format == Format::StrataJsonl {
            Format::StrataArray
        } else {
            Format::OpenAiArray
        };
        return Ok((format, messages));
    }
    match strata_ctx::wire::detect(text) {
        Some(strata_ctx::wire::Detected::CodexRollout) => {
            let messages = strata_ctx::wire::codex::read(text).map_err(|e| e.to_string())?;
            return Ok((Format::CodexRollout, messages));
        }
        Some(strata_ctx::wire::Detected::ClaudeCodeSession) => {
            let messages = strata_ctx::wire::claude_code::read(text).map_err(|e| e.to_string())?;
            return Ok((Format::ClaudeCodeSession, messages));
        }
        _ => {}
    }
    if let Some(records) = log_records(text) {
        return Ok((Format::StrataLog, log_messages(&records?)));
    }
    // A whole JSON document (an object with `messages`), or JSON lines.
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) if is_anthropic(&value, &value["messages"]) => anthropic(&value),
        Ok(Value::Object(o)) if o.contains_key("messages") => {
            let (_, messages) = list(&o["messages"], "messages")?;
            Ok((Format::MessagesObject, messages))
        }
        Ok(Value::Object(_)) | Err(_) => jsonl(text),
        Ok(other) => Err(format!(
            "expected messages as JSONL, a JSON array or an object with `messages`, found {}",
            kind(&other)
        )),
    }
}

/// The messages of a conversation log: the full log its records rebuild.
pub fn log_messages(records: &[Record]) -> Vec<Message> {
    History::replay(Config::default(), Arc::new(CharCounter), records.iter().cloned())
        .full_log()
        .to_vec()
}

/// The records of a conversation log, when `text` is one: its first line
/// is an object whose `type` names a record. `None` for any other text;
/// the error names the first line that is not a record.
pub fn log_records(text: &str) -> Option<Result<Vec<Record>, String>> {
    const KINDS: &[&str] = &[
        "user",
        "step",
        "answer",
        "usage",
        "compaction",
        "prune",
        "session",
        "suggestions",
        "pin",
    ];
    /// What tells a record from a message: its `type`, and no `role`.
    /// Nothing else of the line is kept (a whole conversation on one line
    /// is skipped, not built).
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<std::borrow::Cow<'a, str>>,
        #[serde(default)]
        role: Option<serde::de::IgnoredAny>,
    }
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    // Other agents' logs have `type`d lines too.
    if !first.trim_start().starts_with('{') || strata_ctx::wire::detect(first).is_some() {
        return None;
    }
    let head: Head<'_> = serde_json::from_str(first).ok()?;
    if !head.kind.is_some_and(|t| KINDS.contains(&t.as_ref())) || head.role.is_some() {
        return None;
    }
    let mut records = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(line) {
            Ok(record) => records.push(record),
            Err(e) => {
                return Some(Err(format!(
                    "line {}: not a conversation record: {}",
                    n + 1,
                    cut_message(&e.to_string())
                )))
            }
        }
    }
    Some(Ok(records))
}

/// Whether a conversation is in the Anthropic form: a top-level `system`
/// beside `messages` (OpenAI bodies carry their system prompt as a
/// message), or content blocks only that API has.
fn is_anthropic(top: &Value, messages: &Value) -> bool {
    let anthropic_block = |b: &Value| {
        matches!(
            b.get("type").and_then(Value::as_str),
            Some("tool_use" | "tool_result" | "thinking" | "redacted_thinking")
        )
    };
    top.get("system").is_some()
        || messages.as_array().is_some_and(|list| {
            list.iter().any(|m| {
                m.get("content")
                    .and_then(Value::as_array)
                    .is_some_and(|blocks| blocks.iter().any(anthropic_block))
            })
        })
}

fn anthropic(value: &Value) -> Result<(Format, Vec<Message>), String> {
    let messages = from_anthropic_messages(value).map_err(|e| match e {
        strata_ctx::types::Error::InvalidMessage { index, reason } => format!("messages[{index}]: {reason}"),
        other => other.to_string(),
    })?;
    Ok((Format::AnthropicJson, messages))
}

pub(crate) fn json_error(e: &serde_json::Error) -> String {
    format!("line {} column {}: invalid JSON: {e}", e.line(), e.column())
}

/// What kind of JSON value `v` is, for an error message.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Whether a JSON message is in Strata's form rather than OpenAI's: it
/// carries a UUID `id`, and its calls (if any) have `name`, not
/// `function`.
fn is_strata(v: &Value) -> bool {
    let id = v
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(|id| id.parse::<MessageId>().is_ok());
    let calls_ok = v
        .get("tool_calls")
        .and_then(Value::as_array)
        .is_none_or(|calls| calls.iter().all(|c| c.get("function").is_none()));
    id && calls_ok
}

fn strata_message(v: &Value, at: &str) -> Result<Message, String> {
    serde_json::from_value(v.clone())
        .map_err(|e| format!("{at}: not a Strata message: {}", cut_message(&e.to_string())))
}

/// A decoder's message cut to a readable length: it quotes the value it
/// refused, which may be a whole tool output.
pub(crate) fn cut_message(message: &str) -> String {
    const MAX: usize = 200;
    match message.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &message[..at]),
        None => message.to_owned(),
    }
}

/// The messages of a JSON array; `field` names it in errors.
fn list(value: &Value, field: &str) -> Result<(Format, Vec<Message>), String> {
    let Some(items) = value.as_array() else {
        return Err(format!(
            "`{field}` must be an array of messages, found {}",
            kind(value)
        ));
    };
    let at = |i: usize| {
        if field.is_empty() {
            format!("message {i}")
        } else {
            format!("{field}[{i}]")
        }
    };
    if items.first().is_some_and(is_strata) {
        let messages = items
            .iter()
            .enumerate()
            .map(|(i, v)| strata_message(v, &at(i)))
            .collect::<Result<_, _>>()?;
        return Ok((Format::StrataJsonl, messages));
    }
    let messages = from_openai_messages(value).map_err(|e| match e {
        strata_ctx::types::Error::InvalidMessage { index, reason } => format!("{}: {reason}", at(index)),
        other => other.to_string(),
    })?;
    Ok((Format::OpenAiArray, messages))
}

fn jsonl(text: &str) -> Result<(Format, Vec<Message>), String> {
    let mut values = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| format!("line {}: invalid JSON at column {}: {e}", n + 1, e.column()))?;
        if !v.is_object() {
            return Err(format!(
                "line {}: expected a message object, found {}",
                n + 1,
                kind(&v)
            ));
        }
        values.push((n + 1, v));
    }
    let strata = values.first().is_some_and(|(_, v)| is_strata(v));
    if strata {
        let messages = values
            .iter()
            .map(|(line, v)| strata_message(v, &format!("line {line}")))
            .collect::<Result<_, _>>()?;
        return Ok((Format::StrataJsonl, messages));
    }
    // Converted as one list, so that ids are those of the same messages
    // given as a JSON array.
    let list = Value::Array(values.iter().map(|(_, v)| v.clone()).collect());
    let messages = from_openai_messages(&list).map_err(|e| match e {
        strata_ctx::types::Error::InvalidMessage { index, reason } => {
            let line = values.get(index).map_or(0, |(line, _)| *line);
            format!("line {line}: {reason}")
        }
        other => other.to_string(),
    })?;
    Ok((Format::OpenAiJsonl, messages))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_message_is_cut_on_a_character() {
        assert_eq!(cut_message("short"), "short");
        let long = "é".repeat(500);
        let cut = cut_message(&long);
        assert_eq!(cut.chars().count(), 201);
        assert!(cut.ends_with('…'));
    }
}

//! Claude Code session files: one JSON object per line.
//!
//! Each conversation line is `{"type": "user" | "assistant", "message":
//! {...}, "uuid", "parentUuid", "sessionId", "isSidechain", …}` where
//! `message` is an Anthropic Messages message (text, `tool_use`,
//! `tool_result` and `thinking` blocks). Claude Code writes one line per
//! content block of an assistant reply, all with the same `message.id`;
//! they are joined back into one message. Lines of sub-agents
//! (`isSidechain: true`), summaries, system notes and file-history
//! snapshots are passed over.

use serde::Deserialize;
use serde_json::{json, Value};
use strata_ctx_core::{Message, MessageId};

use crate::anthropic::from_anthropic_messages;

use crate::{lines, WireError};

/// One line of a session file.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Line {
    #[serde(rename = "type")]
    kind: Option<String>,
    message: Option<Entry>,
    #[serde(default)]
    is_sidechain: bool,
    #[serde(default)]
    is_meta: bool,
}

/// A message of the conversation, as the Anthropic API shapes it.
#[derive(Debug, Deserialize)]
struct Entry {
    /// The API's message id: the lines of one reply share it.
    id: Option<String>,
    role: String,
    #[serde(default)]
    content: Value,
}

/// Whether `line` opens a Claude Code session file: a line with a `type`
/// and one of the session's own keys (`sessionId`, `uuid`, `parentUuid`,
/// `leafUuid`) and no `role` of its own.
pub fn is_session_line(line: &str) -> bool {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Head {
        #[serde(rename = "type")]
        kind: Option<String>,
        session_id: Option<serde::de::IgnoredAny>,
        uuid: Option<serde::de::IgnoredAny>,
        leaf_uuid: Option<serde::de::IgnoredAny>,
        role: Option<serde::de::IgnoredAny>,
    }
    let Ok(head) = serde_json::from_str::<Head>(line) else {
        return false;
    };
    head.kind.is_some()
        && head.role.is_none()
        && (head.session_id.is_some() || head.uuid.is_some() || head.leaf_uuid.is_some())
}

/// The messages of a session file, in order, as
/// [`from_anthropic_messages`] reads them once the lines of each reply are
/// joined: tool calls with their names, results as tool messages (an
/// `is_error` result as an error), text as user and assistant messages.
pub fn read(text: &str) -> Result<Vec<Message>, WireError> {
    let mut messages: Vec<Value> = Vec::new();
    let mut last_id: Option<String> = None;
    for (number, line) in lines(text) {
        let value: Value = serde_json::from_str(line).map_err(|e| WireError::Line {
            line: number,
            reason: format!("not JSON: {e}"),
        })?;
        let Ok(line) = serde_json::from_value::<Line>(value) else {
            continue;
        };
        let (Some(kind), Some(entry)) = (line.kind, line.message) else {
            continue;
        };
        if line.is_sidechain || line.is_meta || !matches!(kind.as_str(), "user" | "assistant") {
            continue;
        }
        let blocks = match entry.content {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks,
            _ => continue,
        };
        let same_reply = entry.role == "assistant" && entry.id.is_some() && entry.id == last_id;
        last_id = entry.id.clone();
        match messages.last_mut() {
            Some(previous) if same_reply => {
                if let Some(list) = previous["content"].as_array_mut() {
                    list.extend(blocks);
                }
            }
            _ => messages.push(json!({"role": entry.role, "content": blocks})),
        }
    }
    let mut out = from_anthropic_messages(&Value::Array(messages))
        .map_err(|e| WireError::Conversation(e.to_string()))?;
    for (i, m) in out.iter_mut().enumerate() {
        m.id = MessageId::imported("claude-code-session", i, m.role.as_str(), &m.content);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use strata_ctx_core::{ResultStatus, Role};

    use super::*;

    /// A session as Claude Code writes it, shortened: the reply to the
    /// task is two lines (a text block, then a tool_use block) of one
    /// message id.
    const SESSION: &str = r#"{"type":"summary","summary":"Fixing tests","leafUuid":"u0"}
{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/work/app","sessionId":"s1","version":"1.0.98","type":"user","message":{"role":"user","content":"the date parser fails on leap years"},"uuid":"u1","timestamp":"2025-09-01T10:00:00.000Z"}
{"parentUuid":"u1","isSidechain":false,"sessionId":"s1","type":"assistant","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"Let me run the tests."}],"stop_reason":null},"uuid":"u2","timestamp":"2025-09-01T10:00:01.000Z"}
{"parentUuid":"u2","isSidechain":false,"sessionId":"s1","type":"assistant","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"pytest -q","description":"Run tests"}}],"stop_reason":"tool_use"},"uuid":"u3","timestamp":"2025-09-01T10:00:01.500Z"}
{"parentUuid":"u3","isSidechain":false,"sessionId":"s1","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"FAILED tests/test_dates.py::test_leap - AssertionError\n1 failed, 12 passed","is_error":true}]},"toolUseResult":{"stdout":"","stderr":"","interrupted":false},"uuid":"u4","timestamp":"2025-09-01T10:00:03.000Z"}
{"parentUuid":"u4","isSidechain":true,"sessionId":"s1","type":"assistant","message":{"id":"msg_side","role":"assistant","content":[{"type":"text","text":"sub-agent chatter"}]},"uuid":"u5"}
{"parentUuid":"u4","isSidechain":false,"sessionId":"s1","type":"system","content":"PostToolUse hook ran","uuid":"u6"}
{"parentUuid":"u6","isSidechain":false,"sessionId":"s1","type":"assistant","message":{"id":"msg_02","role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Edit","input":{"file_path":"/work/app/dates.py","old_string":"% 100","new_string":"% 400"}}]},"uuid":"u7"}
{"parentUuid":"u7","isSidechain":false,"sessionId":"s1","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_2","type":"tool_result","content":"The file /work/app/dates.py has been updated."}]},"uuid":"u8"}
{"type":"file-history-snapshot","messageId":"m","snapshot":{}}
"#;

    #[test]
    fn a_session_reads_as_steps() {
        assert!(is_session_line(SESSION.lines().next().unwrap()));
        let m = read(SESSION).unwrap();
        let roles: Vec<Role> = m.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Assistant,
                Role::Tool
            ]
        );
        assert_eq!(m[1].content.as_ref(), "Let me run the tests.");
        assert_eq!(m[1].tool_calls[0].name, "Bash");
        assert_eq!(m[2].tool_name.as_deref(), Some("Bash"));
        assert_eq!(m[2].result.as_ref().map(|r| r.status), Some(ResultStatus::Error));
        assert_eq!(m[3].tool_calls[0].arguments["file_path"], "/work/app/dates.py");
        assert!(!m.iter().any(|m| m.text().contains("sub-agent")));
    }

    #[test]
    fn other_files_are_not_sessions() {
        assert!(!is_session_line(r#"{"role":"user","content":"x","uuid":"u"}"#));
        assert!(!is_session_line(
            r#"{"type":"user","message":{"role":"user","content":"x"}}"#
        ));
        assert!(read("{\"type\":\"user\"}\n{oops").is_err());
    }
}

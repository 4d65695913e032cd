//! Codex CLI rollout files: one JSON object per line.
//!
//! Each line is `{"timestamp", "type", "payload"}`; the conversation is in
//! the `response_item` lines, whose payloads are items of OpenAI's
//! Responses API as Codex CLI records them: `message` (role and content
//! parts), `function_call` (`name`, `arguments` as a JSON string,
//! `call_id`), `custom_tool_call` (a freeform `input`, as `apply_patch`
//! takes its patch), `local_shell_call` (an argument vector) and their
//! outputs. Older rollouts hold the items themselves, one per line, after
//! a first line with the session's `id`. Reasoning, session metadata,
//! turn context and UI events are passed over.

use serde::Deserialize;
use serde_json::{json, Value};
use strata_ctx_core::{Message, MessageId, Role, ToolCall, ToolResult};
use strata_ctx_tools::ShellOutput;

use crate::responses::{Item, Output};
use crate::{lines, WireError};

/// One line of a rollout file.
#[derive(Debug, Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: Option<String>,
    payload: Option<Value>,
}

const ITEM_KINDS: &[&str] = &[
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "reasoning",
];

/// Whether `line` opens a rollout file: a `session_meta` or
/// `response_item` line, or (older files) an object with `id` and
/// `timestamp` and no `role`.
pub fn is_rollout_line(line: &str) -> bool {
    let Ok(Value::Object(head)) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    match head.get("type").and_then(Value::as_str) {
        Some("session_meta" | "response_item" | "turn_context" | "event_msg") => head.contains_key("payload"),
        None => {
            ["id", "timestamp", "instructions"]
                .iter()
                .all(|k| head.contains_key(*k))
                && !head.contains_key("role")
        }
        _ => false,
    }
}

/// The messages of a rollout file, in order: user and assistant messages
/// (developer and system messages as system ones), each call as an
/// assistant message's tool call (calls in a row share one message) and
/// each output as a tool message. A `shell` output's exit code is kept:
/// a non-zero one makes the result an error.
pub fn read(text: &str) -> Result<Vec<Message>, WireError> {
    let mut builder = Builder::default();
    for (number, line) in lines(text) {
        let value: Value = serde_json::from_str(line).map_err(|e| WireError::Line {
            line: number,
            reason: format!("not JSON: {e}"),
        })?;
        let Ok(head) = serde_json::from_value::<Line>(value.clone()) else {
            continue;
        };
        let item = match (head.kind.as_deref(), head.payload) {
            (Some("response_item"), Some(payload)) => payload,
            (Some(kind), None) if ITEM_KINDS.contains(&kind) => value,
            _ => continue,
        };
        match serde_json::from_value::<Item>(item) {
            Ok(item) => builder.push(item),
            // An item of a known kind with fields this reader does not
            // expect: passed over like an unknown kind.
            Err(_) => continue,
        }
    }
    Ok(builder.finish())
}

#[derive(Default)]
struct Builder {
    out: Vec<Message>,
    /// Tool names by call id, for the outputs.
    names: std::collections::HashMap<String, String>,
}

impl Builder {
    fn push(&mut self, item: Item) {
        match item {
            Item::Message { role, content } => {
                let text: Vec<String> = content.into_iter().filter_map(|p| p.text).collect();
                let text = text.join("\n");
                let role = match role.as_str() {
                    "user" => Role::User,
                    "assistant" => Role::Assistant,
                    _ => Role::System,
                };
                self.add(Message::new(role, text));
            }
            Item::FunctionCall {
                name: Some(name),
                arguments,
                call_id: Some(call_id),
                ..
            } => {
                let args =
                    crate::responses::arguments_value(Some(arguments.unwrap_or_else(|| Value::from(""))));
                self.call(ToolCall::new(call_id, name, args));
            }
            Item::CustomToolCall { name, input, call_id } => {
                self.call(ToolCall::new(call_id, name, json!({ "input": input })));
            }
            Item::LocalShellCall { call_id, id, action } => {
                let id = call_id.or(id).unwrap_or_default();
                let args = action
                    .get("command")
                    .map(|c| json!({ "command": c }))
                    .unwrap_or(action);
                self.call(ToolCall::new(id, "local_shell", args));
            }
            Item::FunctionCallOutput { call_id, output } | Item::CustomToolCallOutput { call_id, output } => {
                self.output(call_id, output);
            }
            // A call without its name or id, reasoning, compaction and
            // other items carry no step.
            _ => {}
        }
    }

    fn call(&mut self, call: ToolCall) {
        self.names.insert(call.id.clone(), call.name.clone());
        match self.out.last_mut() {
            // Calls in a row, or calls right after the assistant's text,
            // are one step.
            Some(last) if last.role == Role::Assistant => last.tool_calls.push(call),
            _ => self.add(Message::assistant_with_calls("", vec![call])),
        }
    }

    fn output(&mut self, call_id: String, output: Output) {
        let name = self.names.get(&call_id).cloned().unwrap_or_default();
        let (text, failed) = match output {
            // Content parts (a code mode script's status, then what it
            // wrote) read as one text, each part on lines of its own.
            Output::Text(text) => shell_text(text),
            Output::Parts(parts) => {
                let mut text = String::new();
                for part in parts.into_iter().filter_map(|p| p.text) {
                    if !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(&part);
                }
                shell_text(text)
            }
            Output::Payload { content, success } => (content, success == Some(false)),
        };
        let mut message = Message::tool_text(call_id, name, text.clone());
        if failed {
            message.result = Some(Box::new(ToolResult::error("nonzero_exit", text)));
        }
        self.add(message);
    }

    fn add(&mut self, mut message: Message) {
        message.created_at = None;
        message.id = MessageId::imported(
            "codex-rollout",
            self.out.len(),
            message.role.as_str(),
            &message.content,
        );
        self.out.push(message);
    }

    fn finish(self) -> Vec<Message> {
        self.out
    }
}

/// A tool's output text and whether it failed: a shell's envelope
/// (`shell`'s JSON object, `exec_command`'s header, a code mode script's
/// status) tells; the JSON object gives way to what the command printed,
/// a header stays as the model read it.
fn shell_text(text: String) -> (String, bool) {
    match ShellOutput::parse(&text) {
        Some(shell) => {
            let failed = shell.failed();
            let text = if shell.is_json() {
                shell.output().to_owned()
            } else {
                text
            };
            (text, failed)
        }
        None => (text, false),
    }
}

#[cfg(test)]
mod tests {
    use strata_ctx_core::ResultStatus;

    use super::*;

    /// A rollout as Codex CLI writes it (shapes from its `RolloutLine` and
    /// `ResponseItem` types), shortened.
    const ROLLOUT: &str = r#"{"timestamp":"2025-10-29T00:59:38.317Z","type":"session_meta","payload":{"id":"019a2d7a","cwd":"/work/app","originator":"codex_cli_rs","cli_version":"0.50.0"}}
{"timestamp":"2025-10-29T00:59:38.317Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/work/app</cwd>\n</environment_context>"}]}}
{"timestamp":"2025-10-29T00:59:38.317Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the failing test"}]}}
{"timestamp":"2025-10-29T00:59:38.400Z","type":"turn_context","payload":{"cwd":"/work/app","model":"gpt-5-codex"}}
{"timestamp":"2025-10-29T00:59:39.522Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"**Running tests**"}}
{"timestamp":"2025-10-29T00:59:39.600Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Running tests**"}],"encrypted_content":"gAAA"}}
{"timestamp":"2025-10-29T00:59:39.700Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npm test\",\"yield_time_ms\":10000}","call_id":"call_1"}}
{"timestamp":"2025-10-29T00:59:45.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"FAIL src/sum.test.js\\n  ● sum › adds\\nTests: 1 failed, 3 passed\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":5.2}}"}}
{"timestamp":"2025-10-29T00:59:46.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/sum.js\n@@\n-  return a - b;\n+  return a + b;\n*** End Patch\n"}}
{"timestamp":"2025-10-29T00:59:46.100Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_2","output":"Success. Updated the following files:\nM src/sum.js\n"}}
{"timestamp":"2025-10-29T00:59:47.000Z","type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"Fix sum\",\"status\":\"completed\"},{\"step\":\"Run tests\",\"status\":\"in_progress\"}]}","call_id":"call_3"}}
{"timestamp":"2025-10-29T00:59:47.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_3","output":"Plan updated"}}
{"timestamp":"2025-10-29T00:59:48.000Z","type":"response_item","payload":{"type":"local_shell_call","call_id":"call_4","status":"completed","action":{"type":"exec","command":["bash","-lc","npm test"],"timeout_ms":10000}}}
{"timestamp":"2025-10-29T00:59:50.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_4","output":"Tests: 4 passed"}}
{"timestamp":"2025-10-29T00:59:51.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed: sum added instead of subtracting."}]}}
{"timestamp":"2025-10-29T00:59:51.100Z","type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{"id":"abc"}}}
"#;

    #[test]
    fn a_rollout_reads_as_steps() {
        let m = read(ROLLOUT).unwrap();
        let roles: Vec<Role> = m.iter().map(|m| m.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [User, User, Assistant, Tool, Assistant, Tool, Assistant, Tool, Assistant, Tool, Assistant]
        );
        assert_eq!(m[1].content.as_ref(), "fix the failing test");
        assert_eq!(m[2].tool_calls[0].name, "exec_command");
        assert_eq!(m[2].tool_calls[0].arguments["cmd"], "npm test");
        assert!(m[3].text().starts_with("FAIL src/sum.test.js"));
        assert_eq!(m[3].tool_name.as_deref(), Some("exec_command"));
        assert_eq!(
            m[3].result.as_ref().map(|r| r.status),
            Some(ResultStatus::Error),
            "exit code 1"
        );
        assert!(m[4].tool_calls[0].arguments["input"]
            .as_str()
            .unwrap()
            .contains("*** Update File: src/sum.js"));
        assert_eq!(m[6].tool_calls[0].arguments["plan"][0]["step"], "Fix sum");
        assert_eq!(m[8].tool_calls[0].name, "local_shell");
        assert_eq!(m[8].tool_calls[0].arguments["command"][2], "npm test");
        assert!(m[9].result.is_none(), "a plain output is a success");
        assert_eq!(m[10].content.as_ref(), "Fixed: sum added instead of subtracting.");
        // The same text gives the same ids; no two messages share one.
        let again = read(ROLLOUT).unwrap();
        assert!(m.iter().zip(&again).all(|(a, b)| a.id == b.id));
        let ids: std::collections::HashSet<_> = m.iter().map(|m| m.id).collect();
        assert_eq!(ids.len(), m.len());
    }

    #[test]
    fn older_rollouts_hold_the_items_themselves() {
        let old = "{\"id\":\"s1\",\"timestamp\":\"2025-05-01T10:00:00Z\",\"instructions\":null}\n{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"hi\"}]}\n{\"record_type\":\"state\"}\n{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"command\\\":[\\\"ls\\\"]}\",\"call_id\":\"c\"}\n{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":{\"content\":\"denied\",\"success\":false}}\n";
        assert!(is_rollout_line(old.lines().next().unwrap()));
        let m = read(old).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[2].result.as_ref().map(|r| r.status), Some(ResultStatus::Error));
    }

    #[test]
    fn an_exec_command_header_tells_the_exit_code() {
        let rollout = r#"{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo test\"}","call_id":"c1"}}
{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: 9f2c1a\nWall time: 2.4127 seconds\nProcess exited with code 101\nOriginal token count: 12\nOutput:\nerror[E0425]: cannot find value `x`\n"}}
{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c2"}}
{"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Chunk ID: 1\nWall time: 0.01 seconds\nProcess exited with code 0\nOutput:\nsrc\n"}}
"#;
        let m = read(rollout).unwrap();
        assert_eq!(m[1].result.as_ref().map(|r| r.status), Some(ResultStatus::Error));
        assert!(m[1].text().starts_with("Chunk ID: 9f2c1a\n"), "the header stays");
        assert!(m[3].result.is_none(), "exit code 0 is a success");
    }

    /// TOOL-1: Codex CLI's code mode runs commands from a script (`exec`,
    /// a freeform call) and answers with content parts under a status.
    #[test]
    fn a_code_mode_script_reads_as_a_shell_call() {
        let rollout = r#"{"type":"response_item","payload":{"type":"custom_tool_call","name":"exec","call_id":"k1","input":"const r = await tools.exec_command({cmd: \"cargo test -q\"});\ntext(r.output);"}}
{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"k1","output":[{"type":"input_text","text":"Script completed\nWall time 3.1 seconds\nOutput:\n"},{"type":"input_text","text":"test result: FAILED. 3 passed; 1 failed"}]}}
{"type":"response_item","payload":{"type":"custom_tool_call","name":"exec","call_id":"k2","input":"const r = await tools.exec_command({cmd: \"npm test\"});\ntext(r.output.lines);"}}
{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"k2","output":[{"type":"input_text","text":"Script failed\nWall time 0.2 seconds\nOutput:\n"},{"type":"input_text","text":"Script error:\nTypeError: r.output.lines is undefined"}]}}
"#;
        let m = read(rollout).unwrap();
        let call = &m[0].tool_calls[0];
        assert_eq!(
            strata_ctx_tools::command(&call.arguments).as_deref(),
            Some("cargo test -q")
        );
        assert_eq!(
            strata_ctx_tools::classify(&call.name, &call.arguments),
            Some(strata_ctx_tools::ToolKind::Bash)
        );
        // The parts are one text, each on lines of its own.
        assert_eq!(
            m[1].text(),
            "Script completed\nWall time 3.1 seconds\nOutput:\ntest result: FAILED. 3 passed; 1 failed"
        );
        assert!(m[1].result.is_none(), "the script itself completed");
        assert_eq!(m[3].result.as_ref().map(|r| r.status), Some(ResultStatus::Error));
        assert!(m[3]
            .text()
            .ends_with("Output:\nScript error:\nTypeError: r.output.lines is undefined"));
    }

    #[test]
    fn a_broken_line_is_named() {
        let err = read("{\"type\":\"session_meta\",\"payload\":{}}\nnot json\n").unwrap_err();
        assert!(err.to_string().starts_with("line 2: not JSON"), "{err}");
        assert!(!is_rollout_line("{\"role\":\"user\",\"content\":\"x\"}"));
        assert!(!is_rollout_line("[1]"));
    }
}

//! How old messages shrink when the budget needs it: tool results cleared,
//! arguments and thoughts cut, long user messages shortened (HIST-6,
//! HIST-7, HIST-16).

use serde_json::Value;
use strata_ctx_core::{Message, ResultStatus, Role, Text, ToolCall, ToolResult};

use crate::digest::outcome_note;

/// The text that begins a tool result cleared to save tokens (HIST-6); its
/// recall handle follows it: `[tool result cleared to save tokens; recall
/// 1a2b3c4d]` ([`clear_result`]).
pub const CLEARED: &str = "[tool result cleared to save tokens]";

/// How the notice that stands in for a failed summary begins (HIST-7).
pub const DEGRADED_PREFIX: &str = "Summary generation";

/// Whether a summary message is the notice of a failed summary.
pub(crate) fn is_degraded(m: &Message) -> bool {
    m.role == Role::Summary && m.content.starts_with(DEGRADED_PREFIX)
}

/// Thoughts of old steps are cut to this many characters (HIST-16).
pub const MAX_THOUGHT_CHARS: usize = 300;

/// User messages of earlier rounds longer than this many characters are
/// cut when the budget needs it (HIST-16).
pub const MAX_USER_CHARS: usize = 2_000;

/// Tool-call arguments longer than this are cut when clearing is not
/// enough (HIST-6).
pub const MAX_ARGUMENT_CHARS: usize = 500;

/// Shrinks the tool-call arguments of `message` (HIST-6, HIST-16): the
/// body of a write becomes its size and fingerprint
/// (`[file body: 120 lines, 4,210 bytes, fnv1a 3f2a…]`), the old and new
/// text of an edit their line counts (`[edit: 3 lines → 5 lines]`), so the
/// path stays; then arguments still longer than [`MAX_ARGUMENT_CHARS`]
/// characters are cut, and the cut JSON text, with `…`, becomes a string
/// argument. Returns how many calls were changed.
pub fn cut_arguments(message: &mut Message) -> usize {
    let mut cut = 0;
    for call in &mut message.tool_calls {
        if matches!(&*call.arguments, Value::String(s) if s.ends_with('…')) {
            continue;
        }
        // The arguments are shared with the full log: a changed copy
        // replaces them here only.
        let mut arguments = Value::clone(&call.arguments);
        let mut changed = shrink_bodies(&call.name, &mut arguments);
        let text = arguments.to_string();
        if text.chars().count() > MAX_ARGUMENT_CHARS {
            let head: String = text.chars().take(MAX_ARGUMENT_CHARS).collect();
            arguments = Value::String(format!("{head}…"));
            changed = true;
        }
        if changed {
            call.arguments = std::sync::Arc::new(arguments);
        }
        cut += usize::from(changed);
    }
    cut
}

/// Replaces the long text bodies of a write or edit call by what they
/// were; returns whether anything changed.
fn shrink_bodies(tool: &str, arguments: &mut Value) -> bool {
    const BODY: usize = 200;
    let kind = strata_ctx_compress::canonical_call(tool, arguments);
    let Value::Object(map) = arguments else {
        return false;
    };
    let lines = |s: &str| s.lines().count().max(usize::from(!s.is_empty()));
    let mut changed = false;
    match kind {
        Some(strata_ctx_compress::ToolKind::Write) => {
            for (key, body) in map.iter_mut() {
                if !strata_ctx_tools::CONTENT_KEYS
                    .iter()
                    .any(|k| strata_ctx_tools::same_key(key, k))
                {
                    continue;
                }
                if let Value::String(body) = body {
                    if body.len() > BODY {
                        *body = format!(
                            "[file body: {} lines, {} bytes, fnv1a {:016x}]",
                            lines(body),
                            body.len(),
                            strata_ctx_core::fnv1a(body.as_bytes())
                        );
                        changed = true;
                    }
                }
            }
        }
        Some(strata_ctx_compress::ToolKind::Edit | strata_ctx_compress::ToolKind::MultiEdit) => {
            for (old_name, new_name) in strata_ctx_tools::REPLACEMENT_KEYS {
                let key = |name: &str| map.keys().find(|k| strata_ctx_tools::same_key(k, name)).cloned();
                let (Some(old_key), Some(new_key)) = (key(old_name), key(new_name)) else {
                    continue;
                };
                let old = map.get(&old_key).and_then(Value::as_str).map(str::to_owned);
                let new = map.get(&new_key).and_then(Value::as_str).map(str::to_owned);
                let (Some(old), Some(new)) = (old, new) else {
                    continue;
                };
                if old.len() + new.len() > BODY {
                    map.remove(&old_key);
                    map.insert(
                        new_key,
                        Value::String(format!("[edit: {} lines → {} lines]", lines(&old), lines(&new))),
                    );
                    changed = true;
                }
            }
            if let Some(Value::Array(edits)) = map.get_mut("edits") {
                for edit in edits {
                    changed |= shrink_bodies("Edit", edit);
                }
            }
        }
        _ => {}
    }
    changed
}

pub(crate) fn shrink_step(m: &mut Message) -> usize {
    let cut = cut_arguments(m);
    cut + usize::from(cut_thought(m))
}

/// Cuts the thought of an assistant message with tool calls to
/// [`MAX_THOUGHT_CHARS`] characters (HIST-16). Returns whether it was cut.
pub fn cut_thought(message: &mut Message) -> bool {
    if message.role != Role::Assistant || message.content.chars().count() <= MAX_THOUGHT_CHARS {
        return false;
    }
    let head: String = message.content.chars().take(MAX_THOUGHT_CHARS).collect();
    message.content = format!("{head}…").into();
    true
}

/// Cuts a user message longer than [`MAX_USER_CHARS`] characters to its
/// start and end around a marker saying how much was left out (HIST-16);
/// for user messages of earlier rounds, never the task in progress.
/// Returns whether it was cut.
pub fn cut_user_message(message: &mut Message) -> bool {
    let n = message.content.chars().count();
    if message.role != Role::User || n <= MAX_USER_CHARS {
        return false;
    }
    let head: String = message.content.chars().take(MAX_USER_CHARS * 2 / 3).collect();
    let tail: String = message.content.chars().skip(n - MAX_USER_CHARS / 3).collect();
    let left_out = n - MAX_USER_CHARS * 2 / 3 - MAX_USER_CHARS / 3;
    message.content = format!("{head}\n[… {left_out} characters left out …]\n{tail}").into();
    true
}

/// Whether a tool message was cleared ([`clear_result`]).
pub fn is_cleared(message: &Message) -> bool {
    let prefix = CLEARED.trim_end_matches(']');
    message.content.starts_with(prefix)
        || message
            .result
            .as_ref()
            .is_some_and(|r| r.data.as_str().is_some_and(|d| d.starts_with(prefix)))
}

/// Adds `message`'s recall handle to its history form (#30.5): a line
/// `[recall 1a2b3c4d]` after its text, or the envelope's `text` when the
/// result is structured.
pub fn add_recall_handle(message: &mut Message) {
    let handle = format!("[{}]", recall_handle(&message.id));
    match &mut message.result {
        Some(result) if message.content.is_empty() => result.text = Some(handle),
        _ => message.content = format!("{}\n{handle}", message.content).into(),
    }
}

/// `text` without the line [`add_recall_handle`] put under it, so that
/// what the tool printed reads as it did (a shell's envelope, whose last
/// line is its own, parses again).
pub(crate) fn without_recall_handle(text: &str) -> &str {
    match text.rsplit_once('\n') {
        Some((body, last))
            if last
                .strip_prefix("[recall ")
                .and_then(|rest| rest.strip_suffix(']'))
                .is_some_and(|id| id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit())) =>
        {
            body
        }
        _ => text,
    }
}

/// The handle a message leaves where it was cleared or condensed: what
/// the `recall` tool takes to give back the original from the full log
/// (#30.5). `recall 1a2b3c4d`, the first eight hex digits of its id.
pub fn recall_handle(id: &strata_ctx_core::MessageId) -> String {
    format!("recall {}", id.short())
}

/// Replaces a tool message's result with [`CLEARED`] and its recall
/// handle (`[tool result cleared to save tokens; recall 1a2b3c4d]`),
/// keeping the tool's name, its status and its error (HIST-6, #30.5).
/// Given the `call` it answers, a command that went wrong keeps its
/// outcome and last error on a line below ([`outcome_note`]): `exit 1;
/// last error: ModuleNotFoundError: No module named 'numpy'`.
/// Returns `false` when it was cleared already or is not a tool message.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{Message, ToolCall, ToolResult};
/// use strata_ctx_history::clear_result;
///
/// let call = ToolCall::new("c1", "bash", json!({"command": "python run.py"}));
/// let out = format!("{}Traceback (most recent call last):\n  File \"run.py\", line 1, in <module>\nModuleNotFoundError: No module named 'numpy'\n<returncode>1</returncode>", "loading\n".repeat(40));
/// let mut result = Message::tool_result(&call, ToolResult::success(out));
/// assert!(clear_result(&mut result, Some(&call)));
/// let text = result.result.unwrap().data.as_str().unwrap().to_owned();
/// assert!(text.starts_with("[tool result cleared to save tokens; recall "));
/// assert!(text.ends_with("]\nexit 1; last error: ModuleNotFoundError: No module named 'numpy'"));
/// ```
pub fn clear_result(message: &mut Message, call: Option<&ToolCall>) -> bool {
    if message.role != Role::Tool {
        return false;
    }
    let status = message
        .result
        .as_ref()
        .map_or(ResultStatus::Success, |r| r.status);
    let already = is_cleared(message);
    if already {
        return false;
    }
    let mut marker = format!(
        "{}; {}]",
        CLEARED.trim_end_matches(']'),
        recall_handle(&message.id)
    );
    if let Some(note) = call.and_then(|call| outcome_note(call, message)) {
        marker.push('\n');
        marker.push_str(&note);
    }
    // A result no longer than the marker stays: clearing it would grow
    // the window.
    let short = match &message.result {
        Some(r) if message.content.is_empty() => r.data.as_str().map_or(usize::MAX, str::len) <= marker.len(),
        _ => message.content.len() <= marker.len(),
    };
    if short {
        return false;
    }
    match &mut message.result {
        Some(result) => {
            **result = ToolResult {
                status,
                data: Value::from(marker),
                error: result.error.clone(),
                ..ToolResult::default()
            };
            message.content = Text::new();
        }
        None => message.content = marker.into(),
    }
    true
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use strata_ctx_core::{Message, ToolCall};

    use super::cut_arguments;

    fn shrunk(name: &str, arguments: serde_json::Value) -> serde_json::Value {
        let mut m = Message::assistant_with_calls("", vec![ToolCall::new("c1", name, arguments)]);
        assert_eq!(cut_arguments(&mut m), 1, "{name}");
        serde_json::Value::clone(&m.tool_calls[0].arguments)
    }

    /// HIST-6: a write's body and an edit's sides shrink under every
    /// agent's argument names, and the path stays.
    #[test]
    fn hist_6_bodies_shrink_under_every_agents_names() {
        let body = "line of code\n".repeat(40);
        let claude = shrunk("Write", json!({"file_path": "src/a.rs", "content": body}));
        assert_eq!(claude["file_path"], "src/a.rs");
        assert!(claude["content"]
            .as_str()
            .unwrap()
            .starts_with("[file body: 40 lines, 520 bytes"));
        let windsurf = shrunk(
            "write_to_file",
            json!({"TargetFile": "/app/a.ts", "CodeContent": body}),
        );
        assert_eq!(windsurf["TargetFile"], "/app/a.ts");
        assert!(windsurf["CodeContent"]
            .as_str()
            .unwrap()
            .starts_with("[file body: 40 lines"));
        let kiro = shrunk(
            "strReplace",
            json!({"path": "a.rs", "oldStr": body, "newStr": "x"}),
        );
        assert_eq!(
            kiro,
            json!({"path": "a.rs", "newStr": "[edit: 40 lines → 1 lines]"})
        );
        let claude = shrunk(
            "Edit",
            json!({"file_path": "a.rs", "old_string": "a", "new_string": body}),
        );
        assert_eq!(claude["new_string"], "[edit: 1 lines → 40 lines]");
        assert!(claude.get("old_string").is_none());
    }

    /// Short bodies stay as they are.
    #[test]
    fn short_bodies_stay() {
        let mut m = Message::assistant_with_calls(
            "",
            vec![ToolCall::new(
                "c1",
                "Write",
                json!({"file_path": "a", "content": "x"}),
            )],
        );
        assert_eq!(cut_arguments(&mut m), 0);
    }
}

//! The todo recap (CTX-5) and the topic anchor (CTX-6).

use std::collections::HashMap;

use strata_ctx_core::{Message, ResultStatus, Role};
use strata_ctx_tools::TodoBoard;

/// The most open items a recap lists.
pub const RECAP_ITEMS: usize = 10;

/// The recap of the todo list `messages` leave (CTX-5): counts, then the
/// open items (in progress first), at most [`RECAP_ITEMS`]; `None` when no
/// todo list was written. Only the list as it stands counts, never its
/// history: the latest whole-list write (`TodoWrite`, `update_plan` …)
/// and Claude Code's one-item task tools after it, folded by
/// [`todo_board`].
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx_prompt::todo_recap;
/// use strata_ctx_core::{Message, ToolCall};
///
/// let call = ToolCall::new("t1", "TodoWrite", json!({"todos": [
///     {"content": "Write the parser", "status": "completed"},
///     {"content": "Test it", "status": "pending"},
///     {"content": "Wire it in", "status": "in_progress"},
/// ]}));
/// let recap = todo_recap(&[Message::assistant_with_calls("", vec![call])]);
/// assert_eq!(recap.as_deref(), Some("[Todo recap] 1 done, 1 in progress, 1 pending\n- [in_progress] Wire it in\n- [pending] Test it"));
/// ```
pub fn todo_recap(messages: &[Message]) -> Option<String> {
    recap_of(&todo_board(messages))
}

/// The todo list that the calls in `messages` leave, each call taken with
/// the text of its result (Claude Code's `TaskCreate` answers with the new
/// item's number); a call whose result is an error changed nothing.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{Message, ToolCall, ToolResult};
/// use strata_ctx_prompt::{recap_of, todo_board};
///
/// let create = ToolCall::new("c1", "TaskCreate", json!({"subject": "Fix the parser", "description": "…"}));
/// let update = ToolCall::new("c2", "TaskUpdate", json!({"taskId": "1", "status": "in_progress"}));
/// let board = todo_board(&[
///     Message::assistant_with_calls("", vec![create.clone()]),
///     Message::tool_result(&create, ToolResult::success("Task #1 created successfully: Fix the parser")),
///     Message::assistant_with_calls("", vec![update.clone()]),
///     Message::tool_result(&update, ToolResult::success("Updated task #1 status")),
/// ]);
/// assert_eq!(
///     recap_of(&board).as_deref(),
///     Some("[Todo recap] 0 done, 1 in progress, 0 pending\n- [in_progress] Fix the parser")
/// );
/// ```
pub fn todo_board(messages: &[Message]) -> TodoBoard {
    let results: HashMap<&str, &Message> = messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| Some((m.tool_call_id.as_deref()?, m)))
        .collect();
    let mut board = TodoBoard::new();
    let calls = messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.tool_calls.iter());
    for call in calls {
        let result = results.get(call.id.as_str());
        if result
            .and_then(|r| r.result.as_ref())
            .is_some_and(|r| r.status == ResultStatus::Error)
        {
            continue;
        }
        let text = result.map(|r| r.text());
        board.apply(&call.name, &call.arguments, text.as_deref());
    }
    board
}

/// The recap of `board` (CTX-5): counts, then the open items (in progress
/// first), at most [`RECAP_ITEMS`]; `None` when no todo call was taken in.
pub fn recap_of(board: &TodoBoard) -> Option<String> {
    if !board.is_set() {
        return None;
    }
    let items = board.items();
    let open = board.open();
    let done = items.iter().filter(|t| t.is_done()).count();
    let in_progress = open.iter().filter(|t| t.is_in_progress()).count();
    let mut out = format!(
        "[Todo recap] {done} done, {in_progress} in progress, {} pending",
        open.len() - in_progress
    );
    for t in open.iter().take(RECAP_ITEMS) {
        out.push_str(&format!(
            "\n- [{}] {}",
            t.status.to_ascii_lowercase(),
            t.text.replace('\n', " ")
        ));
    }
    if open.len() > RECAP_ITEMS {
        out.push_str(&format!("\n(and {} more open)", open.len() - RECAP_ITEMS));
    }
    Some(out)
}

fn first_chars(text: &str, n: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.chars().take(n).collect()
}

/// The topic anchor appended to the current user input (CTX-6):
/// `[Current topic] Previous question: <first 80 chars>. This message:
/// <first 50 chars>.` Without a previous round only the second part is
/// written. Whitespace runs are folded to one space.
///
/// # Example
///
/// ```
/// let anchor = strata_ctx_prompt::topic_anchor(Some("How do I parse TOML?"), "And JSON?");
/// assert_eq!(anchor, "[Current topic] Previous question: How do I parse TOML?. This message: And JSON?.");
/// ```
pub fn topic_anchor(previous: Option<&str>, current: &str) -> String {
    match previous {
        Some(p) => format!(
            "[Current topic] Previous question: {}. This message: {}.",
            first_chars(p, 80),
            first_chars(current, 50)
        ),
        None => format!("[Current topic] This message: {}.", first_chars(current, 50)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use strata_ctx_core::ToolCall;

    #[test]
    fn ctx_5_latest_state_only_and_capped() {
        let old = ToolCall::new(
            "a",
            "TodoWrite",
            json!({"todos": [{"content": "old", "status": "pending"}]}),
        );
        let items: Vec<Value> = (0..14)
            .map(|i| json!({"content": format!("item {i}"), "status": "pending"}))
            .collect();
        let new = ToolCall::new("b", "todo_write", json!({ "todos": items }));
        let h = [
            Message::assistant_with_calls("", vec![old]),
            Message::assistant_with_calls("", vec![new]),
        ];
        let recap = todo_recap(&h).unwrap();
        assert!(recap.starts_with("[Todo recap] 0 done, 0 in progress, 14 pending\n- [pending] item 0"));
        assert!(recap.ends_with("- [pending] item 9\n(and 4 more open)"));
        assert!(!recap.contains("old"));
        assert_eq!(todo_recap(&[Message::user("hi")]), None);
    }

    #[test]
    fn ctx_6_anchor_cuts_by_characters() {
        let long = "问".repeat(100);
        let a = topic_anchor(Some(&long), "line one\n\nline   two");
        assert_eq!(
            a,
            format!(
                "[Current topic] Previous question: {}. This message: line one line two.",
                "问".repeat(80)
            )
        );
        assert_eq!(topic_anchor(None, "hi"), "[Current topic] This message: hi.");
    }
}

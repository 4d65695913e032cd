//! The ready-made tools the engine runs itself: `pin` (#30.7),
//! `recall` (#30.5) and `prune` (HIST-10).

use serde_json::{json, Value};
use strata_ctx_core::{Message, Role, ToolCall, ToolResult, ToolSpec};
use strata_ctx_history::{PinOutcome, PruneAction};

use super::Engine;

/// The name of the ready-made pinning tool ([`pin_tool`]).
pub const PIN_TOOL: &str = "pin";

/// The model's `pin` tool, to offer beside its own (the engine runs its
/// calls with [`Engine::pin_tool`]): it pins messages by the ids the
/// window shows, so that they survive compaction verbatim and are never
/// cleared, or unpins them.
///
/// ```
/// let spec = strata_ctx::pin_tool();
/// assert_eq!(spec.name, "pin");
/// assert!(spec.parameters["properties"]["ids"].is_object());
/// ```
pub fn pin_tool() -> ToolSpec {
    ToolSpec::new(
        PIN_TOOL,
        "Keeps messages in your context for the rest of the session, word for word: an instruction, a skill you loaded, a constraint the user stated. Pinned messages are never summarised or cleared. Use it sparingly; unpin what no longer matters.",
        json!({"type": "object", "properties": {
            "ids": {"type": "array", "items": {"type": "string"}, "description": "The ids of the messages to pin (or unpin), as the context shows them."},
            "unpin": {"type": "boolean", "description": "Unpin instead of pin. Default false."}
        }, "required": ["ids"]}),
    )
}

/// The name of the ready-made recall tool ([`recall_tool`]).
pub const RECALL_TOOL: &str = "recall";

/// The model's `recall` tool, to offer beside its own (the engine runs its
/// calls with [`Engine::recall_tool`]): it gives back, from the full log,
/// what a cleared result, a condensed step or an archived round stood
/// for, by the handle it left (`recall 1a2b3c4d`, or a range `recall
/// 1a2b3c4d to 9f8e7d6c`).
///
/// ```
/// let spec = strata_ctx::recall_tool();
/// assert_eq!(spec.name, "recall");
/// assert!(spec.parameters["required"].as_array().unwrap().contains(&"id".into()));
/// ```
pub fn recall_tool() -> ToolSpec {
    ToolSpec::new(
        RECALL_TOOL,
        "Gives back what was cleared, condensed or archived from your context, word for word, from the full log. Pass the id of a handle such as `recall 1a2b3c4d`, and `to` for a range (`recall 1a2b3c4d to 9f8e7d6c`). Long outputs are cut and saved to a file, as tool outputs are.",
        json!({"type": "object", "properties": {
            "id": {"type": "string", "description": "The id after `recall` in a handle."},
            "to": {"type": "string", "description": "The last id of a range, when the handle names one."}
        }, "required": ["id"]}),
    )
}

/// The name of the ready-made pruning tool ([`prune_tool`]).
pub const PRUNE_TOOL: &str = "prune";

/// The model's `prune` tool, to offer beside its own (the engine runs its
/// calls with [`Engine::prune_tool`]): it leaves messages it no longer
/// needs out of its context by the ids the window shows (HIST-10), or
/// brings them back. A tool call or result takes its whole step with it;
/// the full log keeps everything, and `recall` gives it back.
///
/// ```
/// let spec = strata_ctx::prune_tool();
/// assert_eq!(spec.name, "prune");
/// assert_eq!(spec.parameters["properties"]["mode"]["enum"][2], "delete");
/// ```
pub fn prune_tool() -> ToolSpec {
    ToolSpec::new(
        PRUNE_TOOL,
        "Leaves messages you no longer need out of your context, to keep it small: an exploration that led nowhere, a long output you have read. Name them by the ids the context shows. A tool call or result takes its whole step with it. Nothing is lost: the full log keeps them, `delete` brings them back.",
        json!({"type": "object", "properties": {
            "ids": {"type": "array", "items": {"type": "string"}, "description": "The ids of the messages, as the context shows them."},
            "mode": {"type": "string", "enum": ["append", "create", "delete"], "description": "append (the default) adds them to what is left out; create replaces that list; delete brings them back."}
        }, "required": ["ids"]}),
    )
}

/// The message ids a `pin` or `prune` call names in `ids`.
fn ids_argument(call: &ToolCall) -> Vec<String> {
    call.arguments
        .get("ids")
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// One message of the full log as recall shows it.
fn recalled(m: &Message) -> String {
    let mut out = match (&m.role, &m.tool_name) {
        (Role::Tool, Some(name)) => format!("[{} {name} result]\n", m.id.short()),
        (role, _) => format!("[{} {role}]\n", m.id.short()),
    };
    out.push_str(&m.text());
    for call in &m.tool_calls {
        out.push_str(&format!("\n→ {}({})", call.name, call.arguments));
    }
    out
}

impl Engine {
    /// Runs the model's `recall` call ([`recall_tool`]) and returns the
    /// result to record for it: the messages of the full log the handle
    /// names, as text, cut and spilled by the engine's truncator like any
    /// tool output; an error result for an unknown id. `None` for any
    /// other call.
    pub fn recall_tool(&mut self, call: &ToolCall) -> Option<ToolResult> {
        if call.name != RECALL_TOOL {
            return None;
        }
        let arg = |name: &str| call.arguments.get(name).and_then(Value::as_str);
        let Some(from) = arg("id") else {
            return Some(ToolResult::error(
                "invalid_arguments",
                "`id` names the message to recall",
            ));
        };
        let text = match self.history.recall(from, arg("to")) {
            Ok(messages) => messages.iter().map(recalled).collect::<Vec<_>>().join("\n\n"),
            Err(e) => return Some(ToolResult::error("unknown_id", e)),
        };
        Some(
            self.intake
                .truncator
                .truncate(RECALL_TOOL, text.as_bytes())
                .result,
        )
    }

    /// Pins (`pinned = true`) or unpins messages by id or short id
    /// ([`History::pin`](strata_ctx_history::History::pin)): they stay in
    /// the window verbatim through compaction and condensing, and are
    /// never cleared. A step of the round in progress that holds one
    /// stays as it is.
    pub fn pin(&mut self, ids: &[String], pinned: bool) -> PinOutcome {
        let outcome = self.history.pin(ids, pinned);
        self.round.pad.pin(&outcome.changed, pinned, &self.history);
        outcome
    }

    /// Runs the model's `prune` call ([`prune_tool`]) with
    /// [`Engine::prune`] and returns the result to record for it: how many
    /// messages are now left out, and the ids it could not apply with the
    /// reason; `None` for any other call.
    pub fn prune_tool(&mut self, call: &ToolCall) -> Option<ToolResult> {
        if call.name != PRUNE_TOOL {
            return None;
        }
        let ids = ids_argument(call);
        let mode = call
            .arguments
            .get("mode")
            .and_then(Value::as_str)
            .unwrap_or("append");
        let action = match mode {
            "append" if !ids.is_empty() => PruneAction::Append(ids),
            "create" => PruneAction::Create(ids),
            "delete" if !ids.is_empty() => PruneAction::Delete(ids),
            "append" | "delete" => {
                return Some(ToolResult::error(
                    "invalid_arguments",
                    "`ids` must list at least one message id",
                ))
            }
            other => {
                return Some(ToolResult::error(
                    "invalid_arguments",
                    format!("`mode` is append, create or delete, not `{other}`"),
                ))
            }
        };
        let outcome = self.prune(action);
        Some(ToolResult::success(json!({
            "left_out": outcome.hidden.len(),
            "rejected": outcome.rejected,
        })))
    }

    /// Runs the model's `pin` call ([`pin_tool`]) and returns the result to
    /// record for it; `None` for any other call.
    pub fn pin_tool(&mut self, call: &ToolCall) -> Option<ToolResult> {
        if call.name != PIN_TOOL {
            return None;
        }
        let ids = ids_argument(call);
        if ids.is_empty() {
            return Some(ToolResult::error(
                "invalid_arguments",
                "`ids` must list at least one message id",
            ));
        }
        let unpin = call.arguments.get("unpin").and_then(Value::as_bool) == Some(true);
        let outcome = self.pin(&ids, !unpin);
        let short = self.history.short_ids();
        let changed: Vec<String> = outcome
            .changed
            .iter()
            .map(|id| short.short(id).unwrap_or_else(|| id.short()))
            .collect();
        Some(ToolResult::success(json!({
            if unpin { "unpinned" } else { "pinned" }: changed,
            "rejected": outcome.rejected,
        })))
    }
}

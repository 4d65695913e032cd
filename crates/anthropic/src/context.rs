//! Anthropic's server-side context management (MODEL-7): the
//! `context_management` edits of a request, the beta flags they need, and
//! what the answer says was applied.

use serde_json::{json, Value};
use strata_ctx_core::{AppliedEdit, ContextEdits, EditKind, LlmResponse, Provider, ProviderItem};

/// The beta flag of context editing (`clear_tool_uses`, `clear_thinking`).
pub const BETA_CONTEXT_MANAGEMENT: &str = "context-management-2025-06-27";
/// The beta flag of server-side compaction (`compact_20260112`).
pub const BETA_COMPACTION: &str = "compact-2026-01-12";

/// The smallest trigger the API accepts for compaction.
const MIN_COMPACTION_TRIGGER: u64 = 50_000;

/// The `context_management` object for `edits` and the beta flags it
/// needs, or `None` when nothing is delegated. `thinking` says whether
/// extended thinking is on: only then is `clear_thinking_20251015` sent
/// (first, as the API requires).
pub(crate) fn context_management(edits: &ContextEdits, thinking: bool) -> Option<(Value, Vec<&'static str>)> {
    let mut list = Vec::new();
    let mut betas = Vec::new();
    let trigger = json!({"type": "input_tokens", "value": edits.trigger_tokens});
    if edits.mode.clears() {
        if thinking {
            list.push(
                json!({"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}),
            );
        }
        let mut clear = json!({
            "type": "clear_tool_uses_20250919",
            "trigger": trigger,
            "keep": {"type": "tool_uses", "value": edits.keep_tool_uses},
        });
        if let Some(n) = edits.clear_at_least {
            clear["clear_at_least"] = json!({"type": "input_tokens", "value": n});
        }
        if !edits.exclude_tools.is_empty() {
            clear["exclude_tools"] = json!(edits.exclude_tools);
        }
        list.push(clear);
        betas.push(BETA_CONTEXT_MANAGEMENT);
    }
    if edits.mode.compacts() {
        let at = edits.trigger_tokens.max(MIN_COMPACTION_TRIGGER);
        list.push(json!({"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": at}}));
        betas.push(BETA_COMPACTION);
    }
    (!list.is_empty()).then(|| (json!({"edits": list}), betas))
}

/// The edits the answer reports in `context_management.applied_edits`.
pub(crate) fn applied_edits(message: &Value) -> Vec<AppliedEdit> {
    message
        .pointer("/context_management/applied_edits")
        .and_then(Value::as_array)
        .map(|edits| edits.iter().map(AppliedEdit::from_anthropic).collect())
        .unwrap_or_default()
}

/// A `compaction` block as the item to send back, and the edit it stands
/// for.
pub(crate) fn compaction(block: &Value) -> (ProviderItem, AppliedEdit) {
    (
        ProviderItem::new(Provider::Anthropic, block.clone()),
        AppliedEdit::new(EditKind::Compaction),
    )
}

/// Adds what a non-streamed answer's body says of context management to
/// `response`: its applied edits, and a compaction edit for each
/// compaction block when the body does not list one.
pub(crate) fn read_back(body: &Value, mut response: LlmResponse) -> LlmResponse {
    let mut edits = applied_edits(body);
    let compacted =
        !response.provider_items.is_empty() && !edits.iter().any(|e| e.kind == EditKind::Compaction);
    if compacted {
        edits.extend(
            response
                .provider_items
                .iter()
                .filter(|i| i.is_compaction())
                .map(|_| AppliedEdit::new(EditKind::Compaction)),
        );
    }
    response.context_edits = edits;
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_ctx_core::ServerContext;

    /// MODEL-7: the documented wire form of each mode.
    #[test]
    fn model_7_edits_in_the_wire_form() {
        let edits = ContextEdits::new(ServerContext::Clear, 30_000)
            .with_keep_tool_uses(4)
            .with_clear_at_least(5_000)
            .with_exclude_tools(vec!["todo".into()]);
        let (value, betas) = context_management(&edits, false).unwrap();
        assert_eq!(
            value,
            json!({"edits": [{
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "input_tokens", "value": 30000},
                "keep": {"type": "tool_uses", "value": 4},
                "clear_at_least": {"type": "input_tokens", "value": 5000},
                "exclude_tools": ["todo"],
            }]})
        );
        assert_eq!(betas, [BETA_CONTEXT_MANAGEMENT]);
        let (value, betas) =
            context_management(&ContextEdits::new(ServerContext::Both, 160_000), true).unwrap();
        let kinds: Vec<&str> = value["edits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "clear_thinking_20251015",
                "clear_tool_uses_20250919",
                "compact_20260112"
            ]
        );
        assert_eq!(betas, [BETA_CONTEXT_MANAGEMENT, BETA_COMPACTION]);
        let (value, _) =
            context_management(&ContextEdits::new(ServerContext::Compact, 1_000), false).unwrap();
        assert_eq!(value["edits"][0]["trigger"]["value"], 50_000, "the API's floor");
        assert!(context_management(&ContextEdits::new(ServerContext::Off, 1_000), true).is_none());
    }
}

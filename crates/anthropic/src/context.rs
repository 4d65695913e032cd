//! Anthropic's server-side context management (MODEL-7): the
//! `context_management` edits of a request, the beta flags they need, and
//! what the answer says was applied.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use strata_ctx_core::{AppliedEdit, ContextEdits, EditKind, LlmResponse, Provider, ProviderItem};
use strata_ctx_wire::anthropic::{Amount, ContextEdit, ContextManagement, ContextReport};

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
pub(crate) fn context_management(
    edits: &ContextEdits,
    thinking: bool,
) -> Option<(ContextManagement, Vec<&'static str>)> {
    let mut list = Vec::new();
    let mut betas = Vec::new();
    if edits.mode.clears() {
        if thinking {
            list.push(ContextEdit::ClearThinking {
                keep: Amount::thinking_turns(1),
            });
        }
        list.push(ContextEdit::ClearToolUses {
            clear_at_least: edits.clear_at_least.map(Amount::input_tokens),
            exclude_tools: edits.exclude_tools.clone(),
            keep: Amount::tool_uses(u64::from(edits.keep_tool_uses)),
            trigger: Amount::input_tokens(edits.trigger_tokens),
        });
        betas.push(BETA_CONTEXT_MANAGEMENT);
    }
    if edits.mode.compacts() {
        list.push(ContextEdit::Compact {
            trigger: Amount::input_tokens(edits.trigger_tokens.max(MIN_COMPACTION_TRIGGER)),
        });
        betas.push(BETA_COMPACTION);
    }
    (!list.is_empty()).then_some((ContextManagement { edits: list }, betas))
}

/// `headers` with `betas` added to `anthropic-beta` (each once, after
/// the client's own).
pub(crate) fn with_betas(headers: &HeaderMap, betas: &[&str]) -> HeaderMap {
    let name = HeaderName::from_static("anthropic-beta");
    let mut flags: Vec<String> = headers
        .get(&name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(',').map(|f| f.trim().to_owned()).collect())
        .unwrap_or_default();
    for beta in betas {
        if !flags.iter().any(|f| f == beta) {
            flags.push((*beta).to_owned());
        }
    }
    let mut headers = headers.clone();
    // The client's flags were checked when it was built and these are
    // constants: always a valid header value.
    if let Ok(value) = HeaderValue::from_str(&flags.join(",")) {
        headers.insert(name, value);
    }
    headers
}

/// A `compaction` block as the item to send back, and the edit it stands
/// for.
pub(crate) fn compaction(block: Value) -> (ProviderItem, AppliedEdit) {
    (
        ProviderItem::new(Provider::Anthropic, block),
        AppliedEdit::new(EditKind::Compaction),
    )
}

/// Adds what a non-streamed answer says of context management to
/// `response`: its applied edits, and a compaction edit for each
/// compaction block when the answer does not list one.
pub(crate) fn read_back(report: Option<&ContextReport>, mut response: LlmResponse) -> LlmResponse {
    let mut edits = report.map(ContextReport::edits).unwrap_or_default();
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
    use serde_json::json;
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
            serde_json::to_value(value).unwrap(),
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
        let value = serde_json::to_value(value).unwrap();
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
        assert_eq!(
            serde_json::to_value(value).unwrap()["edits"][0]["trigger"]["value"],
            50_000,
            "the API's floor"
        );
        assert!(context_management(&ContextEdits::new(ServerContext::Off, 1_000), true).is_none());
        let mut own = HeaderMap::new();
        own.insert("anthropic-beta", HeaderValue::from_static("files-api-2025-04-14"));
        let merged = with_betas(&own, &[BETA_COMPACTION, BETA_COMPACTION]);
        assert_eq!(
            merged["anthropic-beta"],
            "files-api-2025-04-14,compact-2026-01-12"
        );
    }

    /// MODEL-7: a streamed compaction block assembles from its deltas
    /// (summary in pieces, the opaque part from the latest delta); edits
    /// listed at the start and the end of a message count once.
    #[test]
    fn model_7_streamed_compaction_and_edits() {
        use std::collections::VecDeque;
        use strata_ctx_core::{LlmStream, StreamEvent};

        let edits = json!({"applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 1, "cleared_input_tokens": 700}]});
        let events = [
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}, "context_management": edits}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": null, "encrypted_content": null}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": "Summary ", "encrypted_content": "old"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": "complete", "encrypted_content": "final"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}, "context_management": edits}),
            json!({"type": "message_stop"}),
        ];
        let mut decoder = crate::EventDecoder::default();
        let mut out = VecDeque::new();
        for event in &events {
            decoder.decode("", &event.to_string(), &mut out).unwrap();
        }
        let answer = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(LlmStream::from_events(out.into_iter().collect::<Vec<StreamEvent>>()).finish())
            .unwrap();
        assert_eq!(
            answer.provider_items,
            [ProviderItem::new(
                Provider::Anthropic,
                json!({"type": "compaction", "content": "Summary complete", "encrypted_content": "final"})
            )]
        );
        let kinds: Vec<EditKind> = answer.context_edits.iter().map(|e| e.kind.clone()).collect();
        assert_eq!(kinds, [EditKind::ClearToolUses, EditKind::Compaction]);
        assert_eq!(answer.context_edits[0].cleared_input_tokens, 700);
    }
}

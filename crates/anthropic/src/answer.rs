//! A Messages API answer, read through the form's types.

use serde_json::{Map, Value};
use strata_ctx_core::{FinishReason, LlmResponse, LlmResult as Result, ToolCall, Usage};
use strata_ctx_http::{body_excerpt, invalid};
use strata_ctx_wire::anthropic::{Answer, Block};

use crate::context;

/// Reads a Messages API answer.
///
/// # Errors
///
/// [`LlmError::InvalidResponse`](strata_ctx_core::LlmError::InvalidResponse) when the body is not a message
/// or a `tool_use` block has no name.
pub fn parse_message(body: &[u8]) -> Result<LlmResponse> {
    let answer: Answer<'_> = serde_json::from_slice(body).map_err(|e| {
        let what = if e.is_data() { "a message" } else { "JSON" };
        invalid(format!("the body is not {what} ({e}): {}", body_excerpt(body)))
    })?;
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut thinking = Vec::new();
    let mut items = Vec::new();
    for (i, block) in answer.content.into_iter().enumerate() {
        match block {
            Block::Text { text: t, .. } => text.push_str(&t),
            Block::ToolUse { id, name, input, .. } => {
                let name = name.ok_or_else(|| invalid(format!("`content[{i}].name` is missing")))?;
                let input = input.unwrap_or_else(|| Value::Object(Map::new()));
                calls.push(ToolCall::new(id.unwrap_or_default(), name, input));
            }
            Block::Thinking { .. } | Block::RedactedThinking { .. } => thinking.extend(block.thinking()),
            Block::Compaction(_) => items.extend(block.verbatim().map(|item| context::compaction(item).0)),
            // Blocks of features Strata does not use (server tools,
            // citations) carry nothing it records.
            _ => {}
        }
    }
    let finish = answer
        .stop_reason
        .as_deref()
        .map_or(FinishReason::Stop, FinishReason::parse);
    let usage = answer.usage.unwrap_or_default().over(Usage::default());
    let response = LlmResponse::new(text, usage)
        .with_tool_calls(calls)
        .with_thinking(thinking)
        .with_provider_items(items)
        .with_finish_reason(finish);
    Ok(context::read_back(answer.context_management.as_ref(), response))
}

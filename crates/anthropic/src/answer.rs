//! A Messages API answer, read through the form's types.

use serde::Deserialize;
use serde_json::{json, Value};
use strata_ctx_core::{FinishReason, LlmResponse, LlmResult as Result, ToolCall, Usage};
use strata_ctx_http::{body_excerpt, invalid};
use strata_ctx_wire::anthropic::Block;

use crate::context;

/// Usage in Strata's meaning (REACT-4): the whole window as
/// `input_tokens`, the cache reads and writes as its parts.
pub(crate) fn usage_of(usage: Option<&Value>, so_far: Usage) -> Usage {
    let number = |name: &str| usage.and_then(|u| u.get(name)).and_then(Value::as_u64);
    let read = number("cache_read_input_tokens");
    let write = number("cache_creation_input_tokens");
    let input = number("input_tokens").map(|n| n + read.unwrap_or(0) + write.unwrap_or(0));
    Usage {
        input_tokens: input.unwrap_or(so_far.input_tokens),
        output_tokens: number("output_tokens").unwrap_or(so_far.output_tokens),
        cached_input_tokens: read.or(so_far.cached_input_tokens),
        cache_write_tokens: write.or(so_far.cache_write_tokens),
    }
}

/// Reads a Messages API answer.
///
/// # Errors
///
/// [`LlmError::InvalidResponse`](strata_ctx_core::LlmError::InvalidResponse) when the body is not a message.
pub fn parse_message(body: &[u8]) -> Result<LlmResponse> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| invalid(format!("the body is not JSON ({e}): {}", body_excerpt(body))))?;
    let content = v
        .get("content")
        .filter(|c| c.is_array())
        .ok_or_else(|| invalid(format!("no `content` list in {}", body_excerpt(body))))?;
    let blocks = Vec::<Block<'_>>::deserialize(content).map_err(|e| {
        invalid(format!(
            "`content` is not a list of blocks ({e}): {}",
            body_excerpt(body)
        ))
    })?;
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut thinking = Vec::new();
    let mut items = Vec::new();
    for (i, block) in blocks.into_iter().enumerate() {
        match block {
            Block::Text { text: t, .. } => text.push_str(&t),
            Block::ToolUse { id, name, input } => {
                let name = name.ok_or_else(|| invalid(format!("`content[{i}].name` is missing")))?;
                let input = input.unwrap_or_else(|| json!({}));
                calls.push(ToolCall::new(id.unwrap_or_default(), name, input));
            }
            Block::Thinking { .. } | Block::RedactedThinking { .. } => thinking.extend(block.thinking()),
            Block::Compaction(_) => {
                if let Some(item) = block.verbatim() {
                    items.push(context::compaction(&item).0);
                }
            }
            // Blocks of features Strata does not use (server tools,
            // citations) carry nothing it records.
            _ => {}
        }
    }
    let finish = v
        .get("stop_reason")
        .and_then(Value::as_str)
        .map_or(FinishReason::Stop, FinishReason::parse);
    let response = LlmResponse::new(text, usage_of(v.get("usage"), Usage::default()))
        .with_tool_calls(calls)
        .with_thinking(thinking)
        .with_provider_items(items)
        .with_finish_reason(finish);
    Ok(context::read_back(&v, response))
}

//! The Responses API (`/responses`): the client's second mode beside chat
//! completions (MODEL-7), and the shapes its token-counting endpoint
//! (`/responses/input_tokens`, MODEL-8) shares.
//!
//! Requests are stateless (`store: false`, no `previous_response_id`):
//! the window is sent whole each time, with the items the provider
//! returned earlier (reasoning, compaction) where they came, and
//! reasoning asked back encrypted so that it can be.

use serde_json::{json, Value};
use strata_ctx_core::{
    AppliedEdit, EditKind, FinishReason, LlmRequest, LlmResponse, LlmResult as Result, Provider,
    ProviderItem, ToolCall, ToolChoice, ToolSpec, Usage,
};
use strata_ctx_http::{body_excerpt, invalid};

/// `request` as the Responses API's `input` items: messages with their
/// text, each tool call a `function_call` item and each result a
/// `function_call_output` item, in order; the OpenAI items an assistant
/// message carries (MODEL-7) go before its own, without their `id` (the
/// requests are not stored, so ids would name nothing).
pub(crate) fn input_items(request: &LlmRequest) -> Value {
    let chat = strata_ctx_prompt::openai_messages(&request.messages);
    let mut items = Vec::new();
    // `openai_messages` gives one entry per message, in order.
    for (m, message) in chat.as_array().into_iter().flatten().zip(&request.messages) {
        for item in message
            .provider_items
            .iter()
            .filter(|i| i.provider == Provider::OpenAi)
        {
            let mut item = item.item.clone();
            if let Value::Object(map) = &mut item {
                map.remove("id");
            }
            items.push(item);
        }
        let role = m["role"].as_str().unwrap_or("user");
        match role {
            "tool" => items.push(json!({
                "type": "function_call_output",
                "call_id": m["tool_call_id"],
                "output": m["content"],
            })),
            "assistant" => {
                if let Some(text) = m["content"].as_str().filter(|t| !t.is_empty()) {
                    items.push(json!({"role": "assistant", "content": text}));
                }
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    items.push(json!({
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": call["function"]["name"],
                        "arguments": call["function"]["arguments"],
                    }));
                }
            }
            _ => items.push(json!({"role": role, "content": m["content"]})),
        }
    }
    Value::Array(items)
}

/// `tools` as the Responses API's function tools (flat, not nested under
/// `function` as in chat completions).
pub(crate) fn tools(tools: &[ToolSpec]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "name": t.name,
                    "description": t.full_description(),
                    "parameters": t.input_schema(),
                })
            })
            .collect(),
    )
}

/// The `/responses` body: the model, the input items, the tools and tool
/// choice, the options, `store: false` with encrypted reasoning included,
/// and `context_management` when compaction is delegated (MODEL-7).
pub(crate) fn body(model: &str, request: &LlmRequest) -> Value {
    let options = &request.options;
    let mut body = json!({
        "model": options.model.as_deref().unwrap_or(model),
        "input": input_items(request),
        "store": false,
        "include": ["reasoning.encrypted_content"],
    });
    if !request.tools.is_empty() {
        body["tools"] = tools(&request.tools);
        if let Some(choice) = &options.tool_choice {
            body["tool_choice"] = match choice {
                ToolChoice::None => json!("none"),
                ToolChoice::Required => json!("required"),
                ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
                _ => json!("auto"),
            };
        }
    }
    if let Some(max) = options.max_tokens {
        body["max_output_tokens"] = json!(max);
    }
    if let Some(t) = options.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(edits) = request.server_context.as_ref().filter(|e| e.mode.compacts()) {
        body["context_management"] =
            json!([{"type": "compaction", "compact_threshold": edits.trigger_tokens}]);
    }
    body
}

/// Reads a `/responses` answer: the text of its `message` items, its
/// `function_call` items as calls, its `reasoning` and `compaction` items
/// kept verbatim (MODEL-7), a compaction reported as an applied edit, the
/// usage and why it stopped.
///
/// # Errors
///
/// [`LlmError::InvalidResponse`](strata_ctx_core::LlmError::InvalidResponse)
/// for a body that is not a response, or a call without a name.
pub(crate) fn parse(body: &[u8]) -> Result<LlmResponse> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| invalid(format!("the body is not JSON ({e}): {}", body_excerpt(body))))?;
    let output = v
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid(format!("no `output` list in {}", body_excerpt(body))))?;
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut items = Vec::new();
    let mut edits = Vec::new();
    for (i, item) in output.iter().enumerate() {
        let field = |name: &str| item.get(name).and_then(Value::as_str);
        match field("type") {
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => {
                            text.push_str(part.get("text").and_then(Value::as_str).unwrap_or_default())
                        }
                        Some("refusal") => {
                            text.push_str(part.get("refusal").and_then(Value::as_str).unwrap_or_default())
                        }
                        _ => {}
                    }
                }
            }
            Some("function_call") => {
                let name = field("name").ok_or_else(|| invalid(format!("`output[{i}].name` is missing")))?;
                let id = field("call_id").or_else(|| field("id")).unwrap_or_default();
                let arguments = match item.get("arguments") {
                    Some(Value::String(s)) => {
                        serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
                    }
                    Some(other) => other.clone(),
                    None => json!({}),
                };
                calls.push(ToolCall::new(id, name, arguments));
            }
            Some("compaction") => {
                edits.push(AppliedEdit::new(EditKind::Compaction));
                items.push(ProviderItem::new(Provider::OpenAi, item.clone()));
            }
            Some("reasoning") => items.push(ProviderItem::new(Provider::OpenAi, item.clone())),
            // Items of tools Strata does not run (web search, …).
            _ => {}
        }
    }
    let finish = match (
        v.get("status").and_then(Value::as_str),
        v.pointer("/incomplete_details/reason"),
    ) {
        (Some("incomplete"), Some(Value::String(reason))) if reason == "max_output_tokens" => {
            FinishReason::Length
        }
        (Some("incomplete"), Some(Value::String(reason))) if reason == "content_filter" => {
            FinishReason::ContentFilter
        }
        _ if !calls.is_empty() => FinishReason::ToolCalls,
        _ => FinishReason::Stop,
    };
    Ok(LlmResponse::new(text, usage_of(v.get("usage")))
        .with_tool_calls(calls)
        .with_provider_items(items)
        .with_context_edits(edits)
        .with_finish_reason(finish))
}

fn usage_of(usage: Option<&Value>) -> Usage {
    let number = |path: &str| usage.and_then(|u| u.pointer(path)).and_then(Value::as_u64);
    Usage {
        input_tokens: number("/input_tokens").unwrap_or(0),
        output_tokens: number("/output_tokens").unwrap_or(0),
        cached_input_tokens: number("/input_tokens_details/cached_tokens"),
        cache_write_tokens: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_ctx_core::{ContextEdits, Message, ServerContext};

    /// MODEL-7: a response's items read back; sent again before the
    /// assistant's own items, without ids.
    #[test]
    fn model_7_items_read_and_sent_back() {
        let body = json!({
            "id": "resp_1", "object": "response", "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc-r"},
                {"type": "compaction", "id": "cmp_1", "encrypted_content": "enc-c"},
                {"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "Reading.", "annotations": []}]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "Read", "arguments": "{\"path\":\"a.rs\"}"}
            ],
            "usage": {"input_tokens": 900, "input_tokens_details": {"cached_tokens": 512}, "output_tokens": 30}
        });
        let answer = parse(body.to_string().as_bytes()).unwrap();
        assert_eq!(answer.text, "Reading.");
        assert_eq!(
            answer.tool_calls,
            [ToolCall::new("call_1", "Read", json!({"path": "a.rs"}))]
        );
        assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
        assert_eq!(answer.usage.cached_input_tokens, Some(512));
        assert_eq!(answer.context_edits, [AppliedEdit::new(EditKind::Compaction)]);
        assert_eq!(answer.provider_items.len(), 2);

        let call = &answer.tool_calls[0];
        let request = LlmRequest::new(vec![
            Message::user("look"),
            answer.to_message(),
            Message::tool_text(&call.id, &call.name, "fn main() {}"),
        ])
        .with_server_context(ContextEdits::new(ServerContext::Compact, 120_000));
        let body = super::body("gpt-5", &request);
        assert_eq!(
            body["input"],
            json!([
                {"role": "user", "content": "look"},
                {"type": "reasoning", "summary": [], "encrypted_content": "enc-r"},
                {"type": "compaction", "encrypted_content": "enc-c"},
                {"role": "assistant", "content": "Reading."},
                {"type": "function_call", "call_id": "call_1", "name": "Read", "arguments": "{\"path\":\"a.rs\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "fn main() {}"},
            ])
        );
        assert_eq!(
            body["context_management"],
            json!([{"type": "compaction", "compact_threshold": 120000}])
        );
        assert_eq!(body["store"], false);
    }

    #[test]
    fn cut_and_bad_answers() {
        let cut = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": []});
        assert_eq!(
            parse(cut.to_string().as_bytes()).unwrap().finish_reason,
            FinishReason::Length
        );
        assert!(parse(b"{}").is_err());
        assert!(parse(b"not json").is_err());
        let nameless = json!({"output": [{"type": "function_call", "call_id": "c"}]});
        assert!(parse(nameless.to_string().as_bytes()).is_err());
    }
}

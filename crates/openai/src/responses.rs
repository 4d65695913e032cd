//! The Responses API's shapes, for its token-counting endpoint
//! (`/responses/input_tokens`, MODEL-8).

use serde_json::{json, Value};
use strata_ctx_core::{LlmRequest, ToolSpec};

/// `request` as the Responses API's `input` items: messages with their
/// text, each tool call a `function_call` item and each result a
/// `function_call_output` item, in order.
pub(crate) fn input_items(request: &LlmRequest) -> Value {
    let chat = strata_ctx_prompt::openai_messages(&request.messages);
    let mut items = Vec::new();
    for m in chat.as_array().into_iter().flatten() {
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

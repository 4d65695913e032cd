//! A conversation started with one provider continues with another, in
//! the middle of a round (MODEL-1, MODEL-2): call ids, thinking and the
//! thinking setting are mapped or dropped as each API requires, over real
//! HTTP on 127.0.0.1.

use serde_json::{json, Value};
use strata_ctx::{Engine, LlmOptions, Message, ToolResult, ToolSpec};
use strata_ctx_anthropic::AnthropicClient;
use strata_ctx_openai::OpenAiClient;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A call id of a vLLM server: 46 characters, over the chat API's 40.
const LONG_ID: &str = "chatcmpl-tool-0123456789abcdef0123456789abcdef";
/// A call id of a Kimi server: characters the Messages API refuses.
const DOTTED_ID: &str = "functions.Read:1";

fn read_tool() -> ToolSpec {
    ToolSpec::new(
        "Read",
        "Reads a file.",
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    )
}

fn chat_answer(message: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-test",
        "choices": [{"index": 0, "message": message, "finish_reason": if message.get("tool_calls").is_some() { "tool_calls" } else { "stop" }}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    }))
}

fn messages_answer(content: Value, stop: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": stop,
        "usage": {"input_tokens": 100, "output_tokens": 10}
    }))
}

fn bodies(requests: &[wiremock::Request]) -> Vec<Value> {
    requests
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

/// Every `tool_result` answers a `tool_use` of the assistant message
/// before it, and every id is one the Messages API takes.
fn assert_anthropic_pairs(body: &Value) {
    let allowed = |id: &str| {
        !id.is_empty()
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    let mut called: Vec<String> = Vec::new();
    for message in body["messages"].as_array().unwrap() {
        for block in message["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("tool_use") => {
                    let id = block["id"].as_str().unwrap();
                    assert!(allowed(id), "{id}");
                    called.push(id.to_owned());
                }
                Some("tool_result") => {
                    let id = block["tool_use_id"].as_str().unwrap();
                    assert!(called.iter().any(|c| c == id), "{id} answers no call in {body}");
                }
                _ => {}
            }
        }
    }
}

/// Every tool message answers a call of the assistant before it, and every
/// id is at most 40 bytes.
fn assert_chat_pairs(body: &Value) {
    let mut called: Vec<String> = Vec::new();
    for message in body["messages"].as_array().unwrap() {
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            let id = call["id"].as_str().unwrap();
            assert!(id.len() <= 40, "{id}");
            called.push(id.to_owned());
        }
        if message["role"] == "tool" {
            let id = message["tool_call_id"].as_str().unwrap();
            assert!(called.iter().any(|c| c == id), "{id} answers no call");
        }
        assert!(message.get("thinking").is_none());
    }
}

#[tokio::test]
async fn model_2_switch_providers_in_the_middle_of_a_round() {
    let openai_server = MockServer::start().await;
    let anthropic_server = MockServer::start().await;
    // OpenAI-compatible server: two calls with other servers' ids, then
    // the final answer.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(chat_answer(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": LONG_ID, "type": "function", "function": {"name": "Read", "arguments": "{\"path\":\"a.rs\"}"}},
            {"id": DOTTED_ID, "type": "function", "function": {"name": "Read", "arguments": "{\"path\":\"b.rs\"}"}}
        ]})))
        .up_to_n_times(1)
        .mount(&openai_server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(chat_answer(
            json!({"role": "assistant", "content": "a.rs and b.rs agree; c.rs differs."}),
        ))
        .mount(&openai_server)
        .await;
    // Anthropic with extended thinking: a signed thought and a call.
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(messages_answer(
            json!([
                {"type": "thinking", "thinking": "Now c.rs.", "signature": "sig-1"},
                {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"path": "c.rs"}}
            ]),
            "tool_use",
        ))
        .mount(&anthropic_server)
        .await;
    let openai = OpenAiClient::builder()
        .base_url(format!("{}/v1", openai_server.uri()))
        .api_key("sk-test")
        .model("gpt-test")
        .build()
        .unwrap();
    let anthropic = AnthropicClient::builder()
        .base_url(anthropic_server.uri())
        .api_key("sk-ant-test")
        .model("claude-test")
        .thinking_budget(2_048)
        .build()
        .unwrap();

    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path())
        .tools(vec![read_tool()])
        .build()
        .unwrap();
    engine.begin_round("Compare a.rs, b.rs and c.rs.").await.unwrap();

    // Step 1, OpenAI.
    let first = engine.complete(&openai, LlmOptions::new()).await.unwrap();
    assert_eq!(first.tool_calls.len(), 2);
    let results: Vec<Message> = first
        .tool_calls
        .iter()
        .map(|c| {
            Message::tool_result(
                c,
                ToolResult::success(format!("contents of {}", c.arguments["path"])),
            )
        })
        .collect();
    engine.record_step(first.to_message(), results).await.unwrap();

    // Step 2, Anthropic: the ids it refuses are mapped, call and result
    // alike; the turn began without thinking, so it goes on without.
    let second = engine.complete(&anthropic, LlmOptions::new()).await.unwrap();
    let sent = bodies(&anthropic_server.received_requests().await.unwrap());
    assert_anthropic_pairs(&sent[0]);
    assert!(
        sent[0].get("thinking").is_none(),
        "thinking cannot start within a turn"
    );
    assert!(
        sent[0].to_string().contains(LONG_ID),
        "an id it takes is sent as it is"
    );
    assert!(!sent[0].to_string().contains(DOTTED_ID));
    let result = Message::tool_result(&second.tool_calls[0], ToolResult::success("contents of c.rs"));
    engine
        .record_step(second.to_message(), vec![result])
        .await
        .unwrap();

    // Step 3, back to OpenAI: ids within 40 bytes, pairs intact, no
    // thinking; the Anthropic call's id is kept as it is.
    let third = engine.complete(&openai, LlmOptions::new()).await.unwrap();
    let sent = bodies(&openai_server.received_requests().await.unwrap());
    assert_chat_pairs(&sent[1]);
    assert!(!sent[1].to_string().contains(LONG_ID));
    assert!(
        sent[1].to_string().contains(DOTTED_ID),
        "a short id is sent as it is"
    );
    assert!(sent[1].to_string().contains("toolu_01"));
    assert!(
        !sent[1].to_string().contains("Now c.rs."),
        "Anthropic's thinking stays with Anthropic"
    );
    engine.finish_round_with(third.to_message()).unwrap();

    // The log keeps every id as the models gave it.
    let log = serde_json::to_string(engine.history().full_log()).unwrap();
    assert!(log.contains(LONG_ID) && log.contains(DOTTED_ID));

    // A new turn with Anthropic may think again.
    engine.begin_round("And d.rs?").await.unwrap();
    engine.complete(&anthropic, LlmOptions::new()).await.unwrap();
    let sent = bodies(&anthropic_server.received_requests().await.unwrap());
    assert_eq!(sent[1]["thinking"]["type"], "enabled");
    assert_anthropic_pairs(&sent[1]);
}

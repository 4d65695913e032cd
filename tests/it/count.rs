//! MODEL-8: the providers' token-counting endpoints, and the engine's
//! count of its window with the local estimate as the fallback.

use std::time::Duration;

use serde_json::{json, Value};
use strata_ctx::{
    CountTokens, Engine, LlmError, LlmOptions, LlmRequest, Message, ToolCall, ToolResult, ToolSpec,
};
use strata_ctx_anthropic::AnthropicClient;
use strata_ctx_openai::OpenAiClient;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn request() -> LlmRequest {
    let call = ToolCall::new("toolu_1", "Read", json!({"path": "a.rs"}));
    LlmRequest::new(vec![
        Message::system("You are a coding agent."),
        Message::user("What is in a.rs?"),
        Message::assistant_with_calls("Reading.", vec![call.clone()]),
        Message::tool_result(&call, ToolResult::error("not_found", "no such file")),
    ])
    .with_tools(vec![ToolSpec::new(
        "Read",
        "Reads a file.",
        json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    )])
}

fn anthropic(server: &MockServer) -> AnthropicClient {
    AnthropicClient::builder()
        .base_url(server.uri())
        .api_key("sk-ant-test")
        .model("claude-test")
        .max_retries(0)
        .build()
        .unwrap()
}

fn openai(server: &MockServer) -> OpenAiClient {
    OpenAiClient::builder()
        .base_url(format!("{}/v1", server.uri()))
        .api_key("sk-test")
        .model("gpt-test")
        .max_retries(0)
        .build()
        .unwrap()
}

async fn sent(server: &MockServer) -> Value {
    serde_json::from_slice(&server.received_requests().await.unwrap()[0].body).unwrap()
}

#[tokio::test]
async fn model_8_anthropic_count_tokens() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages/count_tokens"))
        .and(header("x-api-key", "sk-ant-test"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"input_tokens": 4321})))
        .mount(&server)
        .await;
    assert_eq!(anthropic(&server).count_tokens(&request()).await.unwrap(), 4321);
    let body = sent(&server).await;
    assert_eq!(body["model"], "claude-test");
    assert_eq!(body["system"][0]["text"], "You are a coding agent.");
    assert_eq!(body["messages"].as_array().unwrap().len(), 3);
    assert_eq!(body["tools"][0]["name"], "Read");
    assert!(
        body.get("max_tokens").is_none() && body.get("stream").is_none(),
        "{body}"
    );
}

#[tokio::test]
async fn model_8_openai_input_tokens_in_the_responses_shapes() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses/input_tokens"))
        .and(header("authorization", "Bearer sk-test"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"object": "response.input_tokens", "input_tokens": 1234})),
        )
        .mount(&server)
        .await;
    assert_eq!(openai(&server).count_tokens(&request()).await.unwrap(), 1234);
    let body = sent(&server).await;
    assert_eq!(body["model"], "gpt-test");
    let input = body["input"].as_array().unwrap();
    assert_eq!(
        input[0],
        json!({"role": "system", "content": "You are a coding agent."})
    );
    assert_eq!(input[1], json!({"role": "user", "content": "What is in a.rs?"}));
    assert_eq!(input[2], json!({"role": "assistant", "content": "Reading."}));
    assert_eq!(
        input[3],
        json!({"type": "function_call", "call_id": "toolu_1", "name": "Read", "arguments": "{\"path\":\"a.rs\"}"})
    );
    assert_eq!(input[4]["type"], "function_call_output");
    assert_eq!(input[4]["call_id"], "toolu_1");
    assert!(input[4]["output"].as_str().unwrap().contains("no such file"));
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(
        body["tools"][0]["name"], "Read",
        "flat, as the Responses API has them"
    );
}

#[tokio::test]
async fn model_8_engine_counts_its_window_and_falls_back_offline() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages/count_tokens"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"input_tokens": 777})))
        .mount(&server)
        .await;
    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path()).build().unwrap();
    engine.begin_round("Count me.").await.unwrap();
    let estimate = engine.window_tokens();
    let count = engine.count_window(&anthropic(&server), LlmOptions::new()).await;
    assert!(count.exact && count.error.is_none(), "{count:?}");
    assert_eq!(count.tokens, 777);
    assert_eq!(engine.window_tokens(), 777, "the count anchors the estimate");
    let body = sent(&server).await;
    assert_eq!(body["messages"][0]["content"][0]["text"], "Count me.");

    // A server that has no such endpoint (a chat-completions-only one):
    // the local estimate, the error, and nothing changed.
    let bare = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({"error": {"message": "not found"}})))
        .mount(&bare)
        .await;
    let mut fresh = Engine::builder(project.path()).build().unwrap();
    fresh.begin_round("Count me.").await.unwrap();
    let count = fresh.count_window(&openai(&bare), LlmOptions::new()).await;
    assert!(!count.exact);
    assert_eq!(count.tokens, estimate);
    assert!(
        matches!(
            count.error,
            Some(LlmError::Provider {
                status: Some(404),
                ..
            })
        ),
        "{count:?}"
    );
    // Unreachable, and an answer that is not a count.
    let offline = OpenAiClient::builder()
        .base_url("http://127.0.0.1:9/v1")
        .model("gpt-test")
        .max_retries(0)
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let count = fresh.count_window(&offline, LlmOptions::new()).await;
    assert!(!count.exact && count.error.is_some() && count.tokens == estimate);
    let odd = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"tokens": "many"})))
        .mount(&odd)
        .await;
    let count = fresh.count_window(&anthropic(&odd), LlmOptions::new()).await;
    assert!(
        matches!(count.error, Some(LlmError::InvalidResponse { .. })),
        "{count:?}"
    );
    assert_eq!(fresh.window_tokens(), estimate);
}

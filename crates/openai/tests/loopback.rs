//! EDGE-1 against a real HTTP server on 127.0.0.1: the test starts a small
//! server that answers each request with the next scripted reply and
//! records what it received.

// Test code: unwrapping, panicking and printing are how it reports; the
// house lints (Cargo.toml) are for library code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub
)]

use std::time::Duration;

use serde_json::{json, Value};
use strata_ctx_core::{LlmClient, LlmError, LlmOptions, LlmRequest, Message, ToolCall, ToolResult};
use strata_ctx_openai::OpenAiClient;
use strata_ctx_testkit::{HttpServer as Server, Reply};
use tokio::net::TcpListener;

fn completion(text: &str, prompt: u64, completion: u64) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                  "prompt_tokens_details": {"cached_tokens": 1024}}
    })
}

fn client(server: &Server) -> OpenAiClient {
    OpenAiClient::builder()
        .base_url(server.base_url())
        .api_key("sk-test")
        .model("test-model")
        .timeout(Duration::from_secs(10))
        .backoff(Duration::from_millis(20), Duration::from_millis(100))
        .max_retries(2)
        .build()
        .unwrap()
}

fn request() -> LlmRequest {
    let call = ToolCall::new("call_1", "Read", json!({"path": "src/lib.rs"}));
    LlmRequest::new(vec![
        Message::system("You are a coding agent."),
        Message::summary("We fixed the parser."),
        Message::user("Look at @src/lib.rs"),
        Message::assistant_with_calls("Reading it.", vec![call.clone()]),
        Message::tool_result(&call, ToolResult::success("pub fn f() {}")),
    ])
}

#[tokio::test]
async fn edge_1_success_sends_the_window_and_returns_usage() {
    let server = Server::start(vec![Reply::json(200, &completion("It defines f.", 1200, 34))]).await;
    let options = LlmOptions::new().with_max_tokens(256).with_temperature(0.0);
    let answer = client(&server)
        .complete(request().with_options(options))
        .await
        .unwrap();
    assert_eq!(answer.text, "It defines f.");
    assert_eq!(answer.usage.input_tokens, 1200);
    assert_eq!(answer.usage.output_tokens, 34);
    assert_eq!(answer.usage.cached_input_tokens, Some(1024));

    let got = server.received();
    assert_eq!(got.len(), 1);
    let head = got[0].head.to_lowercase();
    assert!(head.starts_with("post /v1/chat/completions http/1.1"), "{head}");
    assert!(head.contains("authorization: bearer sk-test"), "{head}");
    assert!(head.contains("content-type: application/json"), "{head}");
    let body = &got[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["max_tokens"], 256);
    assert_eq!(body["temperature"], 0.0);
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "system", "user", "assistant", "tool"]);
    assert!(body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .starts_with("## Archived History Summary"));
    assert_eq!(
        body["messages"][3]["tool_calls"][0]["function"]["arguments"],
        r#"{"path":"src/lib.rs"}"#
    );
    assert_eq!(body["messages"][4]["tool_call_id"], "call_1");
}

#[tokio::test]
async fn edge_1_native_tool_calls_and_model_override() {
    let body = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_9", "type": "function", "function": {"name": "Grep", "arguments": "{\"pattern\":\"TODO\"}"}}
    ]}}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}});
    let server = Server::start(vec![Reply::json(200, &body)]).await;
    let options = LlmOptions::new().with_model("other-model");
    let answer = client(&server)
        .complete(request().with_options(options))
        .await
        .unwrap();
    assert_eq!(answer.text, "");
    assert_eq!(
        answer.tool_calls,
        vec![ToolCall::new("call_9", "Grep", json!({"pattern": "TODO"}))]
    );
    assert_eq!(answer.usage.cached_input_tokens, None);
    assert_eq!(server.received()[0].body["model"], "other-model");
}

#[tokio::test]
async fn edge_1_rate_limit_then_success_honours_retry_after() {
    let limited = json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}});
    let server = Server::start(vec![
        Reply::json(429, &limited).header("retry-after-ms", "300"),
        Reply::json(200, &completion("ok", 7, 1)),
    ])
    .await;
    let answer = client(&server).complete(request()).await.unwrap();
    assert_eq!(answer.text, "ok");
    let got = server.received();
    assert_eq!(got.len(), 2);
    // The client waited at least what the provider asked for.
    assert!(
        got[1].at - got[0].at >= Duration::from_millis(300),
        "{:?}",
        got[1].at - got[0].at
    );
    assert_eq!(got[0].body, got[1].body, "the same request is sent again");
}

#[tokio::test]
async fn edge_1_rate_limit_exhausted_reports_the_wait() {
    let replies = (0..3)
        .map(|_| Reply::raw(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "0"))
        .collect();
    let server = Server::start(replies).await;
    let err = client(&server).complete(request()).await.unwrap_err();
    match err {
        LlmError::RateLimited { retry_after, message } => {
            assert_eq!(retry_after, Some(Duration::ZERO));
            assert_eq!(message, "slow down");
        }
        other => panic!("expected RateLimited, got {other:?}"),
    }
    assert_eq!(server.received().len(), 3, "one attempt and two retries");
}

#[tokio::test]
async fn edge_1_retry_after_beyond_the_limit_is_returned_at_once() {
    let server = Server::start(vec![Reply::raw(429, "{}").header("retry-after", "3600")]).await;
    let err = client(&server).complete(request()).await.unwrap_err();
    assert!(
        matches!(err, LlmError::RateLimited { retry_after: Some(d), .. } if d == Duration::from_secs(3600))
    );
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn edge_1_server_errors_are_retried_with_backoff() {
    let server = Server::start(vec![
        Reply::raw(503, "upstream unavailable"),
        Reply::raw(500, r#"{"error":{"message":"internal"}}"#),
        Reply::json(200, &completion("third time", 1, 1)),
    ])
    .await;
    let answer = client(&server).complete(request()).await.unwrap();
    assert_eq!(answer.text, "third time");
    let got = server.received();
    assert_eq!(got.len(), 3);
    // Backoff of 20 ms then 40 ms, each jittered to at least half.
    assert!(got[1].at - got[0].at >= Duration::from_millis(10));
    assert!(got[2].at - got[1].at >= Duration::from_millis(20));
}

#[tokio::test]
async fn edge_1_server_errors_exhausted_name_the_status() {
    let server = Server::start((0..3).map(|_| Reply::raw(502, "bad gateway")).collect()).await;
    let err = client(&server).complete(request()).await.unwrap_err();
    assert!(
        matches!(&err, LlmError::Provider { status: Some(502), message } if message == "bad gateway"),
        "{err:?}"
    );
    assert_eq!(server.received().len(), 3);
}

#[tokio::test]
async fn edge_1_timeout() {
    let server = Server::start(vec![
        Reply::json(200, &completion("late", 1, 1)).after(Duration::from_secs(5))
    ])
    .await;
    let options = LlmOptions::new().with_timeout(Duration::from_millis(200));
    let err = client(&server)
        .complete(request().with_options(options))
        .await
        .unwrap_err();
    assert!(
        matches!(err, LlmError::Timeout { after } if after == Duration::from_millis(200)),
        "{err:?}"
    );
    assert_eq!(server.received().len(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn edge_1_context_length_exceeded_is_context_too_long() {
    let body = json!({"error": {
        "message": "This model's maximum context length is 16385 tokens. However, your messages resulted in 20112 tokens.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}});
    let server = Server::start(vec![Reply::json(400, &body)]).await;
    let err = client(&server).complete(request()).await.unwrap_err();
    assert!(err.is_context_too_long(), "{err:?}");
    assert!(err.to_string().contains("20112 tokens"), "{err}");
    assert_eq!(
        server.received().len(),
        1,
        "not retried: the engine compacts first"
    );
}

#[tokio::test]
async fn edge_1_malformed_json_body() {
    let server = Server::start(vec![Reply::raw(
        200,
        r#"{"choices": [{"message": {"content": "cut off"#,
    )])
    .await;
    let err = client(&server).complete(request()).await.unwrap_err();
    match &err {
        LlmError::InvalidResponse { message } => assert!(
            message.contains("not JSON") && message.contains("cut off"),
            "{message}"
        ),
        other => panic!("expected InvalidResponse, got {other:?}"),
    }
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn edge_1_client_errors_are_not_retried() {
    let body = json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}});
    let server = Server::start(vec![Reply::json(401, &body)]).await;
    let err = client(&server).complete(request()).await.unwrap_err();
    assert!(
        matches!(&err, LlmError::Provider { status: Some(401), message } if message == "Incorrect API key provided")
    );
    assert!(!err.to_string().contains("sk-test"));
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn edge_1_refused_connections_are_retried_then_reported() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = OpenAiClient::builder()
        .base_url(format!("http://{addr}/v1"))
        .model("m")
        .backoff(Duration::from_millis(1), Duration::from_millis(2))
        .build()
        .unwrap();
    let err = client.complete(request()).await.unwrap_err();
    assert!(matches!(err, LlmError::Provider { status: None, .. }), "{err:?}");
    assert!(err.is_retryable());
}

/// A server that takes each connection and closes it unanswered: the
/// client tries once and retries `max_retries` times, each a connection of
/// its own, then reports a transport error.
#[tokio::test]
async fn edge_1_dropped_connections_are_retried_as_configured() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = accepted.clone();
    let server = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            drop(socket);
        }
    });
    let client = OpenAiClient::builder()
        .base_url(format!("http://{addr}/v1"))
        .model("m")
        .backoff(Duration::from_millis(1), Duration::from_millis(2))
        .max_retries(2)
        .build()
        .unwrap();
    let err = client.complete(request()).await.unwrap_err();
    assert!(matches!(err, LlmError::Provider { status: None, .. }), "{err:?}");
    assert_eq!(
        accepted.load(std::sync::atomic::Ordering::SeqCst),
        3,
        "one try and two retries"
    );
    let once = OpenAiClient::builder()
        .base_url(format!("http://{addr}/v1"))
        .model("m")
        .max_retries(0)
        .build()
        .unwrap();
    once.complete(request()).await.unwrap_err();
    assert_eq!(
        accepted.load(std::sync::atomic::Ordering::SeqCst),
        4,
        "no retry when none is allowed"
    );
    server.abort();
}

/// MODEL-3, MODEL-7: the Responses mode streams event by event (text and
/// argument deltas as they come, items when done, usage at the end), and
/// the assembled answer is the one the same response gives unstreamed.
#[tokio::test]
async fn model_3_responses_stream_event_by_event() {
    use strata_ctx_core::StreamEvent;
    use strata_ctx_openai::OpenAiApi;

    let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc-r"});
    let message = json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": "Reading it.", "annotations": []}]});
    let call = json!({"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "Read",
        "arguments": "{\"path\":\"a.rs\"}", "status": "completed"});
    let response = json!({"id": "resp_1", "object": "response", "status": "completed",
        "output": [reasoning, message, call],
        "usage": {"input_tokens": 900, "input_tokens_details": {"cached_tokens": 512}, "output_tokens": 30}});
    let events = [
        json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1", "summary": []}}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": reasoning}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
        json!({"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": "Reading"}),
        json!({"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": " it."}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": message}),
        json!({"type": "response.output_item.added", "output_index": 2, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "Read", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 2, "item_id": "fc_1", "delta": "{\"path\":"}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 2, "item_id": "fc_1", "delta": "\"a.rs\"}"}),
        json!({"type": "response.function_call_arguments.done", "output_index": 2, "item_id": "fc_1", "arguments": "{\"path\":\"a.rs\"}"}),
        json!({"type": "response.output_item.done", "output_index": 2, "item": call}),
        json!({"type": "response.completed", "response": response}),
    ];
    let sse_of = |events: &[Value]| -> String {
        events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
            .collect()
    };
    let server = Server::start(vec![
        Reply::raw(200, sse_of(&events)).header("content-type", "text/event-stream"),
        Reply::json(200, &response),
    ])
    .await;
    let client = OpenAiClient::builder()
        .api(OpenAiApi::Responses)
        .base_url(server.base_url())
        .api_key("sk-test")
        .model("gpt-test")
        .build()
        .unwrap();

    let mut stream = client.stream(request()).await.unwrap();
    let mut seen = Vec::new();
    while let Some(event) = stream.next().await {
        seen.push(event.unwrap());
    }
    let deltas: Vec<&str> = seen
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["Reading", " it."], "text as it came");
    assert!(seen
        .iter()
        .any(|e| matches!(e, StreamEvent::ToolCallDelta { arguments, .. } if arguments == "{\"path\":")));
    assert!(matches!(seen.last(), Some(StreamEvent::Done { .. })));

    let whole = client.complete(request()).await.unwrap();
    let sent = server.received();
    assert_eq!(sent[0].body["stream"], true);
    assert_eq!(sent[1].body.get("stream"), None);

    let again = Server::start(vec![
        Reply::raw(200, sse_of(&events)).header("content-type", "text/event-stream")
    ])
    .await;
    let assembled = OpenAiClient::builder()
        .api(OpenAiApi::Responses)
        .base_url(again.base_url())
        .model("gpt-test")
        .build()
        .unwrap()
        .stream(request())
        .await
        .unwrap()
        .finish()
        .await
        .unwrap();
    assert_eq!(assembled, whole);
    assert_eq!(
        whole.tool_calls,
        [ToolCall::new("call_9", "Read", json!({"path": "a.rs"}))]
    );
    assert_eq!(whole.provider_items.len(), 1);
}

//! The model edge (MODEL-1..4) over real HTTP on 127.0.0.1: both clients
//! against a mock server speaking each provider's documented wire format,
//! complete and streamed, and the engine's native tools, streaming and
//! continuation on top of them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use strata_ctx::{
    Engine, EngineError, Event, FinishReason, LlmClient, LlmError, LlmOptions, LlmRequest, LlmResponse,
    Message, StreamEvent, ThinkingBlock, ToolCall, ToolChoice, ToolMode, ToolResult, ToolSpec, Usage,
};
use strata_ctx_anthropic::AnthropicClient;
use strata_ctx_openai::OpenAiClient;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        "Read",
        "Reads a file.",
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    )
    .with_guidelines(["Read before you edit."])
    .with_examples([json!({"path": "src/lib.rs"})])]
}

fn request() -> LlmRequest {
    let call = ToolCall::new("toolu_1", "Read", json!({"path": "a.rs"}));
    let mut answer = Message::assistant_with_calls("Reading.", vec![call.clone()]);
    answer.thinking = vec![ThinkingBlock::Thinking {
        thinking: "The user wants a.rs.".into(),
        signature: "sig-1".into(),
    }];
    LlmRequest::new(vec![
        Message::system("You are a coding agent."),
        Message::user("What is in a.rs?"),
        answer,
        Message::tool_result(&call, ToolResult::error("not_found", "no such file")),
    ])
    .with_tools(tools())
    .with_options(LlmOptions::new().with_tool_choice(ToolChoice::Required))
}

fn anthropic(server: &MockServer) -> AnthropicClient {
    AnthropicClient::builder()
        .base_url(server.uri())
        .api_key("sk-ant-test")
        .model("claude-test")
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .unwrap()
}

fn openai(server: &MockServer) -> OpenAiClient {
    OpenAiClient::builder()
        .base_url(format!("{}/v1", server.uri()))
        .api_key("sk-test")
        .model("gpt-test")
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .unwrap()
}

fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

fn sse_response(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

fn body_of(server_request: &wiremock::Request) -> Value {
    serde_json::from_slice(&server_request.body).unwrap()
}

/// Anthropic's documented streaming example shape: thinking with a
/// signature, text, and a tool call whose input arrives in pieces.
fn anthropic_stream(stop_reason: &str) -> String {
    sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "usage": {"input_tokens": 20, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 30, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The file is missing; "}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "list the directory."}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig-2"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        ("ping", json!({"type": "ping"})),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Listing "}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "files."}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"command\": "}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "\"ls\"}"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 2}),
        ),
        ("some_future_event", json!({"type": "some_future_event"})),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null}, "usage": {"output_tokens": 42}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

#[tokio::test]
async fn model_2_anthropic_request_and_answer() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", "sk-ant-test"))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [
                {"type": "thinking", "thinking": "List it.", "signature": "sig-2"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "Listing."},
                {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "ls"}},
                {"type": "tool_use", "id": "toolu_3", "name": "Read", "input": {"path": "b.rs"}}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 20, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 30, "output_tokens": 42}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let answer = anthropic(&server).complete(request()).await.unwrap();
    assert_eq!(answer.text, "Listing.");
    assert_eq!(answer.tool_calls.len(), 2, "parallel calls");
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    assert_eq!(answer.thinking.len(), 2);
    // REACT-4: the whole window, cache reads and writes included.
    assert_eq!(answer.usage.input_tokens, 1050);
    assert_eq!(answer.usage.cached_input_tokens, Some(1000));
    assert_eq!(answer.usage.cache_write_tokens, Some(30));

    let sent = body_of(&server.received_requests().await.unwrap()[0]);
    assert_eq!(sent["model"], "claude-test");
    assert_eq!(sent["max_tokens"], 4096);
    assert_eq!(sent["system"][0]["text"], "You are a coding agent.");
    assert_eq!(sent["system"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(sent["tools"][0]["input_schema"]["required"][0], "path");
    assert!(sent["tools"][0]["description"]
        .as_str()
        .unwrap()
        .contains("Guidelines:\n- Read before you edit."));
    assert_eq!(sent["tool_choice"], json!({"type": "any"}));
    let messages = sent["messages"].as_array().unwrap();
    // The round's thinking goes back first in its message, signed.
    assert_eq!(
        messages[1]["content"][0],
        json!({"type": "thinking", "thinking": "The user wants a.rs.", "signature": "sig-1"})
    );
    assert_eq!(messages[1]["content"][2]["type"], "tool_use");
    let result = &messages[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["is_error"], true);
    // The conversation's last block is a cache breakpoint too.
    assert_eq!(result["cache_control"]["type"], "ephemeral");
}

#[tokio::test]
async fn model_3_anthropic_stream_events_and_assembly() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(sse_response(anthropic_stream("tool_use")))
        .mount(&server)
        .await;
    let mut stream = anthropic(&server).stream(request()).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap());
    }
    let answer = stream.finish().await.unwrap();
    assert_eq!(answer.text, "Listing files.");
    assert_eq!(
        answer.tool_calls,
        vec![ToolCall::new("toolu_2", "Bash", json!({"command": "ls"}))]
    );
    assert_eq!(
        answer.thinking,
        vec![ThinkingBlock::Thinking {
            thinking: "The file is missing; list the directory.".into(),
            signature: "sig-2".into()
        }]
    );
    assert_eq!(answer.usage.input_tokens, 1050);
    assert_eq!(answer.usage.output_tokens, 42);
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    assert!(matches!(&events[0], StreamEvent::ThinkingDelta(t) if t == "The file is missing; "));
    assert!(events.contains(&StreamEvent::ToolCallStarted {
        index: 0,
        id: "toolu_2".into(),
        name: "Bash".into()
    }));
    assert!(events.contains(&StreamEvent::ToolCallDelta {
        index: 0,
        arguments: "{\"command\": ".into()
    }));
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Done {
            finish_reason: FinishReason::ToolCalls
        })
    );
    let sent = body_of(&server.received_requests().await.unwrap()[0]);
    assert_eq!(sent["stream"], true);
}

#[tokio::test]
async fn model_3_broken_streams_are_typed_errors() {
    let server = MockServer::start().await;
    let full = anthropic_stream("end_turn");
    let cut = full[..full
        .find("event: content_block_stop\ndata: {\"index\":2")
        .unwrap_or(full.len() / 2)]
        .to_owned();
    let bad_json = "event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \n\n".to_owned();
    let overloaded = sse(&[(
        "error",
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    )]);
    for (body, check) in [
        (
            cut,
            (|e: &LlmError| matches!(e, LlmError::StreamCut { .. })) as fn(&LlmError) -> bool,
        ),
        (bad_json, |e: &LlmError| {
            matches!(e, LlmError::InvalidResponse { .. })
        }),
        (overloaded, |e: &LlmError| {
            matches!(
                e,
                LlmError::Provider {
                    status: Some(529),
                    ..
                }
            ) && e.is_retryable()
        }),
    ] {
        server.reset().await;
        Mock::given(method("POST"))
            .respond_with(sse_response(body))
            .mount(&server)
            .await;
        let stream = anthropic(&server).stream(request()).await.unwrap();
        let err = stream.finish().await.unwrap_err();
        assert!(check(&err), "{err:?}");
    }
}

#[tokio::test]
async fn model_2_anthropic_errors_retries_and_overflow() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(529).set_body_json(
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "0")
                .set_body_json(
                    json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
                ),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 1}})))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    let answer = anthropic(&server).complete(request()).await.unwrap();
    assert_eq!(answer.text, "ok");
    assert_eq!(server.received_requests().await.unwrap().len(), 3);

    server.reset().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}})))
        .mount(&server)
        .await;
    let err = anthropic(&server).complete(request()).await.unwrap_err();
    assert!(err.is_context_too_long(), "{err}");
}

fn openai_chunks(parts: &[Value]) -> String {
    let mut body: String = parts.iter().map(|p| format!("data: {p}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

#[tokio::test]
async fn model_3_openai_stream_with_tools() {
    let server = MockServer::start().await;
    let chunk = |delta: Value, finish: Value| json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    let body = openai_chunks(&[
        chunk(json!({"role": "assistant", "content": "Checking."}), Value::Null),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "Read", "arguments": ""}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_2", "type": "function", "function": {"name": "Read", "arguments": "{\"path\":\"b.rs\"}"}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"path\":\"a.rs\"}"}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 900, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 512}}}),
    ]);
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .respond_with(sse_response(body))
        .mount(&server)
        .await;
    let answer = openai(&server)
        .stream(request())
        .await
        .unwrap()
        .finish()
        .await
        .unwrap();
    assert_eq!(answer.text, "Checking.");
    let paths: Vec<&Value> = answer.tool_calls.iter().map(|c| &c.arguments["path"]).collect();
    assert_eq!(paths, [&json!("a.rs"), &json!("b.rs")]);
    assert_eq!(answer.usage.cached_input_tokens, Some(512));
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    let sent = body_of(&server.received_requests().await.unwrap()[0]);
    assert_eq!(sent["tools"][0]["type"], "function");
    assert_eq!(sent["tool_choice"], "required");
    assert_eq!(sent["stream"], true);

    // Cut before the finish: a typed error, the partial text kept.
    server.reset().await;
    Mock::given(method("POST"))
        .respond_with(sse_response(format!(
            "data: {}\n\n",
            chunk(json!({"content": "Chec"}), Value::Null)
        )))
        .mount(&server)
        .await;
    let mut stream = openai(&server).stream(request()).await.unwrap();
    while let Some(Ok(_)) = stream.next().await {}
    assert_eq!(stream.partial().text, "Chec");
    assert!(matches!(stream.finish().await, Err(LlmError::StreamCut { .. })));
}

fn engine(dir: &std::path::Path, mode: ToolMode) -> Engine {
    Engine::builder(dir)
        .tool_mode(mode)
        .tools(tools())
        .build()
        .unwrap()
}

/// MODEL-1: native mode sends the tools and a prompt without ReAct rules;
/// ReAct mode describes them in L1 and sends none.
#[tokio::test]
async fn model_1_engine_sends_tools_by_mode() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"choices": [{"message": {"content": "Hi."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 1}})))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    for mode in [ToolMode::Native, ToolMode::React] {
        let mut e = engine(dir.path(), mode);
        e.begin_round("hello").await.unwrap();
        e.complete(&openai(&server), LlmOptions::new()).await.unwrap();
    }
    let got = server.received_requests().await.unwrap();
    let (native, react) = (body_of(&got[0]), body_of(&got[1]));
    assert_eq!(native["tools"][0]["function"]["name"], "Read");
    let system = native["messages"][0]["content"].as_str().unwrap();
    assert!(
        !system.contains("Action:") && !system.contains("## Read"),
        "{system}"
    );
    assert!(react.get("tools").is_none());
    let system = react["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("Action:")
            && system.contains("## Read")
            && system.contains("Example: Read[{\"path\":\"src/lib.rs\"}]")
    );
}

/// A client whose answers are cut at the token limit a given number of
/// times, recording the requests.
struct Cut {
    parts: Mutex<Vec<LlmResponse>>,
    seen: Mutex<Vec<LlmRequest>>,
}

#[strata_ctx::types::async_trait]
impl LlmClient for Cut {
    async fn complete(&self, request: LlmRequest) -> strata_ctx::LlmResult<LlmResponse> {
        self.seen.lock().unwrap().push(request);
        let mut parts = self.parts.lock().unwrap();
        Ok(if parts.is_empty() {
            LlmResponse::default()
        } else {
            parts.remove(0)
        })
    }
}

fn cut(text: &str, out: u64) -> LlmResponse {
    LlmResponse::new(text, Usage::new(100, out)).with_finish_reason(FinishReason::Length)
}

/// MODEL-4: a cut answer is continued and joined, streaming or not; each
/// continuation is an event; still cut after the limit is a clear error.
#[tokio::test]
async fn model_4_continuation_joins_and_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let continued = Arc::new(Mutex::new(Vec::new()));
    let sink = continued.clone();
    let mut e = Engine::builder(dir.path())
        .on_event(move |event| {
            if let Event::Continued { continuation, .. } = event {
                sink.lock().unwrap().push(*continuation);
            }
        })
        .build()
        .unwrap();
    e.begin_round("explain").await.unwrap();
    let client = Cut {
        parts: Mutex::new(vec![
            cut("Thought: done.\nAction: Finish[The bug is in ", 10),
            cut("the parser's ", 10),
            LlmResponse::new("index.]", Usage::new(130, 3)),
        ]),
        seen: Mutex::new(Vec::new()),
    };
    let mut deltas = String::new();
    let answer = e
        .complete_streaming(&client, LlmOptions::new(), |event| {
            if let StreamEvent::TextDelta(t) = event {
                deltas.push_str(t);
            }
        })
        .await
        .unwrap();
    assert_eq!(
        answer.text,
        "Thought: done.\nAction: Finish[The bug is in the parser's index.]"
    );
    assert_eq!(deltas, answer.text);
    assert_eq!(answer.usage.output_tokens, 23);
    assert_eq!(*continued.lock().unwrap(), vec![1, 2]);
    // The continuation carries the answer so far as the last message.
    let last = client.seen.lock().unwrap()[2].messages.last().cloned().unwrap();
    assert_eq!(last.role, strata_ctx::Role::Assistant);
    assert_eq!(
        last.content,
        "Thought: done.\nAction: Finish[The bug is in the parser's"
    );

    let always = Cut {
        parts: Mutex::new(vec![cut("a", 1), cut("b", 1), cut("c", 1)]),
        seen: Mutex::new(Vec::new()),
    };
    let err = e.complete(&always, LlmOptions::new()).await.unwrap_err();
    assert!(
        matches!(err, EngineError::Model(LlmError::StillCut { continuations: 2 })),
        "{err}"
    );
}

/// A model that streams one delta and then never finishes.
struct Stalls;

struct StallSource(bool);

#[strata_ctx::types::async_trait]
impl strata_ctx::types::StreamSource for StallSource {
    async fn next_events(
        &mut self,
        out: &mut std::collections::VecDeque<StreamEvent>,
    ) -> strata_ctx::LlmResult<bool> {
        if !self.0 {
            self.0 = true;
            out.push_back(StreamEvent::TextDelta("Thought: half".into()));
            out.push_back(StreamEvent::Usage(Usage::new(5_000, 3)));
            return Ok(true);
        }
        std::future::pending::<()>().await;
        Ok(false)
    }
}

#[strata_ctx::types::async_trait]
impl LlmClient for Stalls {
    async fn complete(&self, _: LlmRequest) -> strata_ctx::LlmResult<LlmResponse> {
        Err(LlmError::Timeout {
            after: Duration::from_secs(1),
        })
    }
    async fn stream(&self, _: LlmRequest) -> strata_ctx::LlmResult<strata_ctx::LlmStream> {
        Ok(strata_ctx::LlmStream::new(StallSource(false)))
    }
}

/// MODEL-3: dropping a streamed call half-way records nothing, not even
/// the usage the stream already reported. Time is paused: the call is
/// dropped when the stream stalls, whatever the machine's load.
#[tokio::test(start_paused = true)]
async fn model_3_dropped_stream_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let usage_events = Arc::new(Mutex::new(0));
    let sink = usage_events.clone();
    let mut e = Engine::builder(dir.path())
        .on_event(move |event| {
            if let Event::UsageRecorded(_) = event {
                *sink.lock().unwrap() += 1;
            }
        })
        .build()
        .unwrap();
    e.begin_round("go").await.unwrap();
    let (log, tokens) = (e.history().full_log().len(), e.window_tokens());
    let mut seen = 0;
    let call = e.complete_streaming(&Stalls, LlmOptions::new(), |_| seen += 1);
    assert!(tokio::time::timeout(Duration::from_millis(50), call)
        .await
        .is_err());
    assert_eq!(seen, 2, "the delta and the usage arrived before the stall");
    assert_eq!((e.history().full_log().len(), e.window_tokens()), (log, tokens));
    assert_eq!(*usage_events.lock().unwrap(), 0);
    // The engine is usable afterwards.
    e.finish_round("stopped").unwrap();
}

/// A responder giving its answers in turn.
struct InTurn(std::sync::atomic::AtomicUsize, Vec<ResponseTemplate>);

impl wiremock::Respond for InTurn {
    fn respond(&self, _: &wiremock::Request) -> ResponseTemplate {
        let n = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.1[n.min(self.1.len() - 1)].clone()
    }
}

/// MODEL-4 over HTTP: Anthropic's `max_tokens` stop and OpenAI's `length`
/// finish are continued by the engine and joined, streamed or not.
#[tokio::test]
async fn model_4_continuation_over_both_wire_formats() {
    let dir = tempfile::tempdir().unwrap();
    let anthropic_part = |text: &str, stop: &str| {
        ResponseTemplate::new(200).set_body_json(json!({"content": [{"type": "text", "text": text}], "stop_reason": stop, "usage": {"input_tokens": 50, "output_tokens": 8}}))
    };
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(InTurn(
            Default::default(),
            vec![
                anthropic_part("The cause is the off-by-", "max_tokens"),
                anthropic_part("one in the loop.", "end_turn"),
            ],
        ))
        .mount(&server)
        .await;
    let mut e = Engine::builder(dir.path()).build().unwrap();
    e.begin_round("why?").await.unwrap();
    let answer = e.complete(&anthropic(&server), LlmOptions::new()).await.unwrap();
    assert_eq!(answer.text, "The cause is the off-by-one in the loop.");
    let sent = server.received_requests().await.unwrap();
    let last = body_of(&sent[1])["messages"]
        .as_array()
        .unwrap()
        .last()
        .cloned()
        .unwrap();
    assert_eq!(last["role"], "assistant", "the answer so far is prefilled");
    assert_eq!(last["content"][0]["text"], "The cause is the off-by-");

    let chunk = |text: &str, finish: Value| {
        format!(
            "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
            json!({"choices": [{"index": 0, "delta": {"content": text}}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        )
    };
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(InTurn(
            Default::default(),
            vec![
                sse_response(chunk("Fixed by ", json!("length"))),
                sse_response(chunk("checking the index.", json!("stop"))),
            ],
        ))
        .mount(&server)
        .await;
    let mut e = Engine::builder(dir.path().join("b")).build().unwrap();
    e.begin_round("fix?").await.unwrap();
    let answer = e
        .complete_streaming(&openai(&server), LlmOptions::new(), |_| {})
        .await
        .unwrap();
    assert_eq!(answer.text, "Fixed by checking the index.");
    assert_eq!(answer.finish_reason, FinishReason::Stop);
}

//! MODEL-7 end to end: `examples/coding_agent.rs --server-side-context`
//! against a scripted server speaking Anthropic's Messages API (plain and
//! streamed) and OpenAI's Responses API. The first run's requests carry the
//! provider's context-management fields; its second answer brings a
//! compaction block or item with a tool call, and the next request sends
//! it back verbatim; a second run resumes the same conversation log and
//! sends it back again.

use std::path::Path;

use crate::coding_agent::example;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Wire {
    Anthropic,
    AnthropicStream,
    Responses,
}

/// What one request looked like: its path, its `anthropic-beta` header
/// and its body.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    beta: String,
    body: Value,
}

/// Answers: call 0 writes a file (and reports a clearing), call 1
/// compacts and reads the file back, every later call answers.
struct Scripted {
    wire: Wire,
    next: AtomicUsize,
    seen: Arc<Mutex<Vec<Seen>>>,
}

const SUMMARY: &str = "Summary: wrote notes.txt.";

impl Respond for Scripted {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let beta = request
            .headers
            .get("anthropic-beta")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        self.seen.lock().unwrap().push(Seen {
            path: request.url.path().to_owned(),
            beta,
            body,
        });
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        match self.wire {
            Wire::Anthropic => ResponseTemplate::new(200).set_body_json(anthropic(n)),
            Wire::AnthropicStream => {
                ResponseTemplate::new(200).set_body_raw(anthropic_sse(n), "text/event-stream")
            }
            Wire::Responses => ResponseTemplate::new(200).set_body_json(responses(n)),
        }
    }
}

fn anthropic(n: usize) -> Value {
    let usage = json!({"input_tokens": 800, "output_tokens": 10});
    match n {
        0 => json!({
            "type": "message", "role": "assistant", "stop_reason": "tool_use", "usage": usage,
            "content": [
                {"type": "text", "text": "Writing."},
                {"type": "tool_use", "id": "t1", "name": "Write", "input": {"path": "notes.txt", "content": "hi\n"}}
            ],
            "context_management": {"applied_edits": [
                {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 2, "cleared_input_tokens": 9000}
            ]}
        }),
        1 => json!({
            "type": "message", "role": "assistant", "stop_reason": "tool_use", "usage": usage,
            "content": [
                {"type": "compaction", "content": SUMMARY},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "cat notes.txt"}}
            ]
        }),
        _ => json!({
            "type": "message", "role": "assistant", "stop_reason": "end_turn", "usage": usage,
            "content": [{"type": "text", "text": "Done."}]
        }),
    }
}

fn anthropic_sse(n: usize) -> String {
    let start =
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 800, "output_tokens": 1}}});
    let mut events = vec![("message_start", start)];
    let mut block = |index: usize, start: Value, deltas: Vec<Value>| {
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for delta in deltas {
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    };
    let (stop, edits) = match n {
        0 => {
            block(
                0,
                json!({"type": "text", "text": ""}),
                vec![json!({"type": "text_delta", "text": "Writing."})],
            );
            block(
                1,
                json!({"type": "tool_use", "id": "t1", "name": "Write", "input": {}}),
                vec![
                    json!({"type": "input_json_delta", "partial_json": "{\"path\": \"notes.txt\", \"content\": \"hi\\n\"}"}),
                ],
            );
            (
                "tool_use",
                json!({"applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 2, "cleared_input_tokens": 9000}]}),
            )
        }
        1 => {
            let (a, b) = SUMMARY.split_at(8);
            block(
                0,
                json!({"type": "compaction", "content": null}),
                vec![
                    json!({"type": "compaction_delta", "content": a}),
                    json!({"type": "compaction_delta", "content": b}),
                ],
            );
            block(
                1,
                json!({"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}),
                vec![json!({"type": "input_json_delta", "partial_json": "{\"command\": \"cat notes.txt\"}"})],
            );
            ("tool_use", Value::Null)
        }
        _ => {
            block(
                0,
                json!({"type": "text", "text": ""}),
                vec![json!({"type": "text_delta", "text": "Done."})],
            );
            ("end_turn", Value::Null)
        }
    };
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 10}, "context_management": edits}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
        .iter()
        .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n"))
        .collect()
}

fn responses(n: usize) -> Value {
    let usage = json!({"input_tokens": 800, "output_tokens": 10});
    match n {
        0 => json!({
            "id": "resp_0", "object": "response", "status": "completed", "usage": usage,
            "output": [
                {"type": "reasoning", "id": "rs_0", "summary": [], "encrypted_content": "enc-reasoning"},
                {"type": "function_call", "id": "fc_0", "call_id": "t1", "name": "Write", "arguments": "{\"path\": \"notes.txt\", \"content\": \"hi\\n\"}"}
            ]
        }),
        1 => json!({
            "id": "resp_1", "object": "response", "status": "completed", "usage": usage,
            "output": [
                {"type": "compaction", "id": "cmp_1", "encrypted_content": "enc-compaction"},
                {"type": "function_call", "id": "fc_1", "call_id": "t2", "name": "Bash", "arguments": "{\"command\": \"cat notes.txt\"}"}
            ]
        }),
        _ => json!({
            "id": format!("resp_{n}"), "object": "response", "status": "completed", "usage": usage,
            "output": [
                {"type": "message", "id": "msg_2", "role": "assistant", "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
            ]
        }),
    }
}

/// Runs the example once on `task`, in `dir`, keeping the conversation in
/// `log`; returns its standard output.
async fn run_once(server: &MockServer, wire: Wire, dir: &Path, log: &Path, task: &str) -> String {
    let exe = example();
    assert!(
        exe.exists(),
        "{} is missing: `cargo build --all-features --example coding_agent` builds it",
        exe.display()
    );
    let mut cmd = Command::new(exe);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .args([
            "--task",
            task,
            "--model",
            "scripted",
            "--price",
            "1,10",
            "--server-side-context",
        ])
        .arg("--dir")
        .arg(dir)
        .arg("--conversation")
        .arg(log);
    match wire {
        Wire::Responses => cmd
            .args(["--provider", "openai"])
            .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
            .env("OPENAI_API_KEY", "sk-test"),
        _ => cmd
            .args(["--provider", "anthropic"])
            .env("ANTHROPIC_BASE_URL", server.uri())
            .env("ANTHROPIC_API_KEY", "sk-ant-test"),
    };
    if wire == Wire::AnthropicStream {
        cmd.arg("--stream");
    }
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    stdout
}

/// The compaction blocks or items a request sends.
fn compactions(seen: &Seen) -> Vec<Value> {
    let mut found = Vec::new();
    for message in seen.body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "compaction" {
                found.push(block.clone());
            }
        }
    }
    for item in seen.body["input"].as_array().into_iter().flatten() {
        if item["type"] == "compaction" {
            found.push(item.clone());
        }
    }
    found
}

async fn delegate(wire: Wire) {
    let server = MockServer::start().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(Scripted {
            wire,
            next: AtomicUsize::new(0),
            seen: seen.clone(),
        })
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("conversation.jsonl");
    let work = dir.path().join("work");

    let out = run_once(&server, wire, &work, &log, "Write notes.txt saying hi.").await;
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("Done."));
    let usage = lines.next().unwrap();
    match wire {
        Wire::Responses => assert!(
            usage.ends_with("provider cleared 0 tool uses (0 tokens) and compacted 1 times"),
            "{usage}"
        ),
        _ => assert!(
            usage.ends_with("provider cleared 2 tool uses (9000 tokens) and compacted 1 times"),
            "{usage}"
        ),
    }
    assert_eq!(std::fs::read_to_string(work.join("notes.txt")).unwrap(), "hi\n");

    // The second run resumes the log: its one request sends the
    // compaction back.
    let out = run_once(&server, wire, &work, &log, "Is it there?").await;
    assert_eq!(out.lines().next(), Some("Done."));

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4);
    let window = 32_000u64;
    let trigger = window * 8 / 10;
    let expected_compaction = match wire {
        Wire::Responses => json!({"type": "compaction", "encrypted_content": "enc-compaction"}),
        _ => json!({"type": "compaction", "content": SUMMARY}),
    };
    for (i, request) in seen.iter().enumerate() {
        match wire {
            Wire::Responses => {
                assert_eq!(request.path, "/v1/responses");
                assert_eq!(
                    request.body["context_management"],
                    json!([{"type": "compaction", "compact_threshold": trigger}])
                );
                assert_eq!(request.body["store"], false);
            }
            _ => {
                assert_eq!(request.path, "/v1/messages");
                let edits = &request.body["context_management"]["edits"];
                assert_eq!(edits[0]["type"], "clear_tool_uses_20250919", "{edits}");
                assert_eq!(
                    edits[0]["trigger"],
                    json!({"type": "input_tokens", "value": trigger})
                );
                assert_eq!(edits[0]["keep"], json!({"type": "tool_uses", "value": 6}));
                assert_eq!(edits[1]["type"], "compact_20260112");
                assert!(
                    request.beta.contains("context-management-2025-06-27")
                        && request.beta.contains("compact-2026-01-12"),
                    "{}",
                    request.beta
                );
            }
        }
        let sent = compactions(request);
        if i < 2 {
            assert!(sent.is_empty(), "nothing compacted yet");
        } else {
            assert_eq!(sent, std::slice::from_ref(&expected_compaction), "request {i}");
        }
    }
    if wire == Wire::Responses {
        // The reasoning item went back in the tool loop, without its id.
        let second = seen[1].body["input"].to_string();
        assert!(
            second.contains("enc-reasoning") && !second.contains("rs_0"),
            "{second}"
        );
    }
    // The log holds the provider's item as it came.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains(match wire {
            Wire::Responses => "cmp_1",
            _ => SUMMARY,
        }),
        "{text}"
    );
}

#[tokio::test]
async fn model_7_anthropic_delegation_and_resume() {
    delegate(Wire::Anthropic).await;
}

#[tokio::test]
async fn model_7_anthropic_streamed_delegation_and_resume() {
    delegate(Wire::AnthropicStream).await;
}

#[tokio::test]
async fn model_7_openai_responses_delegation_and_resume() {
    delegate(Wire::Responses).await;
}

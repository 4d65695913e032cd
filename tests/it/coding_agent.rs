//! MODEL-1..4 end to end: `examples/coding_agent.rs` completes a scripted
//! multi-step task against a mock server speaking each provider's wire
//! format, streaming and not. The script writes a file, reads it back
//! with two parallel calls, edits it, and answers; the server checks that
//! each request carries the results of the step before.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// One answer of the scripted model: a thought or answer text and calls.
struct Turn {
    text: &'static str,
    calls: Vec<(&'static str, &'static str, Value)>,
}

fn script() -> Vec<Turn> {
    vec![
        Turn {
            text: "I will create the file.",
            calls: vec![(
                "t1",
                "Write",
                json!({"path": "notes/hello.txt", "content": "hi there\n"}),
            )],
        },
        Turn {
            text: "",
            calls: vec![
                ("t2", "Bash", json!({"command": "cat notes/hello.txt"})),
                ("t3", "Grep", json!({"pattern": "^hi"})),
            ],
        },
        Turn {
            text: "Now the edit.",
            calls: vec![(
                "t4",
                "Edit",
                json!({"path": "notes/hello.txt", "old": "hi", "new": "hello"}),
            )],
        },
        Turn {
            text: "Done: notes/hello.txt now says hello there.",
            calls: vec![],
        },
    ]
}

#[derive(Clone, Copy, PartialEq)]
enum Wire {
    OpenAi,
    Anthropic,
}

/// Answers call N with turn N in the provider's format, and remembers
/// the request bodies.
struct Scripted {
    wire: Wire,
    next: AtomicUsize,
    seen: Arc<Mutex<Vec<Value>>>,
}

impl Respond for Scripted {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let stream = body["stream"] == true;
        self.seen.lock().unwrap().push(body);
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let Some(turn) = script().into_iter().nth(n) else {
            return ResponseTemplate::new(500).set_body_string("script exhausted");
        };
        let usage = (1000 + 100 * n as u64, 20);
        match (self.wire, stream) {
            (Wire::OpenAi, false) => ResponseTemplate::new(200).set_body_json(openai_json(&turn, usage)),
            (Wire::OpenAi, true) => sse(openai_sse(&turn, usage)),
            (Wire::Anthropic, false) => {
                ResponseTemplate::new(200).set_body_json(anthropic_json(&turn, usage))
            }
            (Wire::Anthropic, true) => sse(anthropic_sse(&turn, usage)),
        }
    }
}

fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

fn openai_json(turn: &Turn, (input, output): (u64, u64)) -> Value {
    let calls: Vec<Value> = turn
        .calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
        .collect();
    let mut message = json!({"role": "assistant", "content": turn.text});
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    let finish = if calls.is_empty() { "stop" } else { "tool_calls" };
    json!({"choices": [{"index": 0, "message": message, "finish_reason": finish}],
           "usage": {"prompt_tokens": input, "completion_tokens": output}})
}

fn openai_sse(turn: &Turn, (input, output): (u64, u64)) -> String {
    let mut chunks = Vec::new();
    // The text in two pieces, the arguments in two pieces.
    let (a, b) = turn.text.split_at(turn.text.len() / 2);
    for piece in [a, b] {
        chunks.push(json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]}));
    }
    for (i, (id, name, args)) in turn.calls.iter().enumerate() {
        let args = args.to_string();
        let (x, y) = args.split_at(args.len() / 2);
        chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": x}}]}}]}));
        chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "function": {"arguments": y}}]}}]}));
    }
    let finish = if turn.calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}));
    chunks.push(json!({"choices": [], "usage": {"prompt_tokens": input, "completion_tokens": output}}));
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

fn anthropic_json(turn: &Turn, (input, output): (u64, u64)) -> Value {
    let mut content = vec![json!({"type": "text", "text": turn.text})];
    content.extend(
        turn.calls
            .iter()
            .map(|(id, name, args)| json!({"type": "tool_use", "id": id, "name": name, "input": args})),
    );
    let stop = if turn.calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    json!({"type": "message", "role": "assistant", "content": content, "stop_reason": stop,
           "usage": {"input_tokens": input / 2, "cache_read_input_tokens": input / 2, "output_tokens": output}})
}

fn anthropic_sse(turn: &Turn, (input, output): (u64, u64)) -> String {
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"usage": {"input_tokens": input / 2, "cache_read_input_tokens": input / 2, "output_tokens": 1}}}),
    )];
    events.push((
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ));
    let (a, b) = turn.text.split_at(turn.text.len() / 2);
    for piece in [a, b] {
        events.push(("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})));
    }
    events.push((
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    for (i, (id, name, args)) in turn.calls.iter().enumerate() {
        let index = i + 1;
        let args = args.to_string();
        let (x, y) = args.split_at(args.len() / 2);
        events.push(("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
        for piece in [x, y] {
            events.push(("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})));
        }
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    let stop = if turn.calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": output}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
        .iter()
        .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n"))
        .collect()
}

/// The example's binary, built by `cargo test` beside this test's.
pub(crate) fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(|deps| deps.parent()).unwrap();
    debug
        .join("examples")
        .join(format!("coding_agent{}", std::env::consts::EXE_SUFFIX))
}

async fn run(wire: Wire, stream: bool) {
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
    let exe = example();
    assert!(
        exe.exists(),
        "{} is missing: `cargo test` builds it with the other targets; a run limited to `--test it` must build it first (`cargo build --all-features --example coding_agent`)",
        exe.display()
    );
    let mut cmd = Command::new(exe);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .args([
            "--task",
            "Create notes/hello.txt saying hi there, check it, then make it say hello there.",
        ])
        .arg("--dir")
        .arg(dir.path())
        .args(["--model", "scripted", "--price", "1,10"]);
    match wire {
        Wire::OpenAi => cmd
            .args(["--provider", "openai"])
            .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
            .env("OPENAI_API_KEY", "sk-test"),
        Wire::Anthropic => cmd
            .args(["--provider", "anthropic"])
            .env("ANTHROPIC_BASE_URL", server.uri())
            .env("ANTHROPIC_API_KEY", "sk-ant-test"),
    };
    if stream {
        cmd.arg("--stream");
    }
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("Done: notes/hello.txt now says hello there."));
    let usage = lines.next().unwrap();
    assert!(usage.starts_with("usage: scripted via "), "{usage}");
    assert!(usage.contains(", 4 calls, 4600 input tokens"), "{usage}");
    // MODEL-5: 4,600 input tokens at $1 and 80 output tokens at $10 per million.
    assert!(usage.ends_with(", cost $0.0054"), "{usage}");
    // The tools really ran in the scratch directory.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes/hello.txt")).unwrap(),
        "hello there\n"
    );

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4);
    for body in seen.iter() {
        assert_eq!(
            body["tools"].as_array().map(Vec::len),
            Some(5),
            "native tools in every request"
        );
        assert_eq!(body["stream"] == true, stream);
    }
    // Each request carries the results of the step before: the file's
    // text from Bash and Grep went back to the model.
    let third = seen[2].to_string();
    assert!(
        third.contains("hi there") && third.contains("notes/hello.txt:1: hi there"),
        "{third}"
    );
    let last = seen[3].to_string();
    assert!(last.contains("\\\"replaced\\\":1"), "{last}");
}

#[tokio::test]
async fn model_coding_agent_openai() {
    run(Wire::OpenAi, false).await;
}

#[tokio::test]
async fn model_coding_agent_openai_streaming() {
    run(Wire::OpenAi, true).await;
}

#[tokio::test]
async fn model_coding_agent_anthropic() {
    run(Wire::Anthropic, false).await;
}

#[tokio::test]
async fn model_coding_agent_anthropic_streaming() {
    run(Wire::Anthropic, true).await;
}

/// A newcomer's first run without a key is told which variable to set,
/// before any request is sent.
#[test]
fn model_coding_agent_names_the_missing_key() {
    let exe = example();
    assert!(exe.exists(), "{} is missing", exe.display());
    for (provider, variable) in [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")] {
        let out = Command::new(&exe)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .args(["--provider", provider, "--task", "say hi"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&format!("{variable} is not set")), "{stderr}");
    }
}

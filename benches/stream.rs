//! Stream assembly (MODEL-3): a real session's assistant text streamed in
//! four-character deltas, as providers stream tokens, in each provider's
//! wire format, cut into 1,500-byte network chunks, decoded and assembled
//! into the final answer by `LlmStream`, against `serde_json` parsing the
//! same chunks' JSON in one call (a JSON array of them: the JSON work any
//! reader must do, without the server-sent-event framing). Throughput is
//! in bytes of each input; the goal is at least half the baseline's.

// Bench code: unwrapping, panicking and printing are how it reports; the
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

use std::collections::VecDeque;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use strata_ctx::types::async_trait;
use strata_ctx::types::StreamSource;
use strata_ctx::{LlmStream, StreamEvent};
use strata_ctx_anthropic::EventDecoder;
use strata_ctx_http::SseDecoder;
use strata_ctx_openai::ChunkDecoder;
use strata_ctx_testkit::load_transcript;

/// 60,000 characters of a real session's text (what its model and tools
/// wrote).
fn text() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/corpus/mini-swe-agent__deepseek_chat_test_1-100__django__django-13964.json"
    );
    let messages = match load_transcript(path) {
        Ok(t) => t.messages,
        Err(e) => panic!("cannot load the bench transcript: {e}"),
    };
    let all: String = messages.iter().map(|m| m.text().into_owned()).collect();
    let text: String = all.chars().take(60_000).collect();
    assert!(text.len() >= 50_000, "the bench transcript is too short");
    text
}

fn deltas(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(4).map(|c| c.iter().collect()).collect()
}

/// The OpenAI stream's `data:` payloads and the whole SSE body.
fn openai_stream(text: &str) -> (Vec<Value>, Vec<u8>) {
    let mut payloads: Vec<Value> = deltas(text)
        .into_iter()
        .map(|d| json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": d}, "finish_reason": null}]}))
        .collect();
    payloads.push(json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    payloads.push(json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 10}}));
    let mut body: String = payloads.iter().map(|p| format!("data: {p}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    (payloads, body.into_bytes())
}

/// The Anthropic stream's events and the whole SSE body.
fn anthropic_stream(text: &str) -> (Vec<Value>, Vec<u8>) {
    let mut events = vec![
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ];
    events.extend(deltas(text).into_iter().map(
        |d| json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d}}),
    ));
    events.push(json!({"type": "content_block_stop", "index": 0}));
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 10}}));
    events.push(json!({"type": "message_stop"}));
    let body: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or_default()))
        .collect();
    (events, body.into_bytes())
}

#[derive(Clone, Copy)]
enum Wire {
    OpenAi,
    Anthropic,
}

/// Bytes arriving in network chunks, decoded as the clients decode them.
struct Replay<'a> {
    chunks: std::slice::Chunks<'a, u8>,
    sse: SseDecoder,
    wire: Wire,
    openai: ChunkDecoder,
    anthropic: EventDecoder,
}

#[async_trait]
impl StreamSource for Replay<'static> {
    async fn next_events(&mut self, out: &mut VecDeque<StreamEvent>) -> strata_ctx::LlmResult<bool> {
        loop {
            while let Some(e) = self.sse.next_event() {
                match self.wire {
                    Wire::OpenAi => self.openai.decode(&e.data, out)?,
                    Wire::Anthropic => self.anthropic.decode(&e.event, &e.data, out)?,
                }
            }
            if !out.is_empty() {
                return Ok(true);
            }
            match self.chunks.next() {
                Some(chunk) => self.sse.push(chunk)?,
                None => return Ok(false),
            }
        }
    }
}

fn assemble(body: &'static [u8], wire: Wire, rt: &tokio::runtime::Runtime) -> usize {
    let stream = LlmStream::new(Replay {
        chunks: body.chunks(1500),
        sse: SseDecoder::new(),
        wire,
        openai: ChunkDecoder::default(),
        anthropic: EventDecoder::default(),
    });
    match rt.block_on(stream.finish()) {
        Ok(answer) => answer.text.len(),
        Err(e) => panic!("the bench stream failed: {e}"),
    }
}

fn stream(c: &mut Criterion) {
    let text = text();
    let rt = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(rt) => rt,
        Err(e) => panic!("no runtime: {e}"),
    };
    for (name, wire, (payloads, body)) in [
        ("openai", Wire::OpenAi, openai_stream(&text)),
        ("anthropic", Wire::Anthropic, anthropic_stream(&text)),
    ] {
        let body: &'static [u8] = Box::leak(body.into_boxed_slice());
        assert_eq!(assemble(body, wire, &rt), text.len());
        let array = serde_json::to_vec(&payloads).unwrap_or_default();
        let mut group = c.benchmark_group(format!("stream/{name}"));
        group.sample_size(20);
        group.throughput(Throughput::Bytes(array.len() as u64));
        group.bench_function("serde_json_one_call_baseline", |b| {
            b.iter(|| serde_json::from_slice::<Vec<Value>>(black_box(&array)).map(|v| v.len()))
        });
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function("decode_and_assemble", |b| {
            b.iter(|| assemble(black_box(body), wire, &rt))
        });
        group.finish();
    }
}

criterion_group!(benches, stream);
criterion_main!(benches);

//! The stream decoders (MODEL-3): any bytes, cut into any chunks, through
//! the server-sent-events decoder and the providers' event decoders (chat
//! completions, the Responses API, Anthropic) give events or a typed
//! error, never a panic; a stream they close ends with exactly one `Done`
//! (the Responses decoder: at most one, and nothing after it), and any
//! chunking gives the same events.
#![no_main]

use std::collections::VecDeque;

use libfuzzer_sys::fuzz_target;
use strata_ctx::anthropic::EventDecoder;
use strata_ctx::openai::{ChunkDecoder, ResponsesDecoder};
use strata_ctx_http::{SseDecoder, SseEvent};
use strata_ctx::StreamEvent;

fn events(data: &[u8], size: usize) -> Result<Vec<SseEvent>, String> {
    let mut sse = SseDecoder::with_max_event_bytes(1 << 16);
    let mut out = Vec::new();
    for chunk in data.chunks(size) {
        sse.push(chunk).map_err(|e| e.to_string())?;
        while let Some(e) = sse.next_event() {
            out.push(e);
        }
    }
    sse.finish().map_err(|e| e.to_string())?;
    while let Some(e) = sse.next_event() {
        out.push(e);
    }
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    let Some((&size, rest)) = data.split_first() else {
        return;
    };
    let size = usize::from(size % 32) + 1;
    let whole = events(rest, rest.len().max(1));
    let chunked = events(rest, size);
    assert_eq!(whole, chunked, "chunking changed the events");
    let Ok(list) = chunked else {
        return;
    };
    let mut openai = ChunkDecoder::default();
    let mut anthropic = EventDecoder::default();
    let (mut a, mut b) = (VecDeque::new(), VecDeque::new());
    let mut openai_failed = false;
    let mut anthropic_failed = false;
    for e in &list {
        if !openai_failed {
            openai_failed = openai.decode(&e.data, &mut a).is_err();
        }
        if !anthropic_failed {
            anthropic_failed = anthropic.decode(&e.event, &e.data, &mut b).is_err();
        }
    }
    let mut responses = ResponsesDecoder::default();
    let mut c = VecDeque::new();
    for e in &list {
        if responses.decode(&e.data, &mut c).is_err() {
            break;
        }
    }
    let done = c.iter().filter(|e| matches!(e, StreamEvent::Done { .. })).count();
    assert!(done <= 1);
    if done == 1 {
        assert!(responses.is_done());
        assert!(matches!(c.back(), Some(StreamEvent::Done { .. })));
    }
    openai.close(&mut a);
    anthropic.close(&mut b);
    for out in [a, b] {
        let done = out
            .iter()
            .filter(|e| matches!(e, StreamEvent::Done { .. }))
            .count();
        assert_eq!(done, 1);
        assert!(matches!(out.back(), Some(StreamEvent::Done { .. })));
    }
});

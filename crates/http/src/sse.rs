//! An incremental decoder of server-sent events (MODEL-3), as both
//! providers stream their answers.

use std::collections::VecDeque;

use strata_ctx_core::{LlmError, LlmResult as Result};

/// One server-sent event: its `event:` name (empty when the server named
/// none) and its `data:` lines joined with newlines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The event's name.
    pub event: String,
    /// The event's data.
    pub data: String,
}

/// Decodes a byte stream of server-sent events chunk by chunk, whatever
/// the chunk boundaries (inside a line, inside a UTF-8 character, between
/// `\r` and `\n`).
///
/// Each byte is looked at once: a chunk is scanned for line ends with
/// `memchr`, and only the unfinished tail of a line
/// is kept for the next chunk. Comments (`:` lines), `id:` and `retry:`
/// are skipped. A line or an event's data larger than the decoder's limit
/// is an error, so an endless line cannot grow memory without bound; the
/// same bytes give the same events or the same error however they are
/// chunked.
///
/// ```
/// use strata_ctx_http::SseDecoder;
///
/// let mut sse = SseDecoder::new();
/// sse.push(b"event: ping\ndata: {\"a\"").unwrap();
/// assert!(sse.next_event().is_none());
/// sse.push(b":1}\n\n").unwrap();
/// let event = sse.next_event().unwrap();
/// assert_eq!((event.event.as_str(), event.data.as_str()), ("ping", "{\"a\":1}"));
/// ```
#[derive(Debug)]
pub struct SseDecoder {
    line: Vec<u8>,
    after_cr: bool,
    event: String,
    data: String,
    has_data: bool,
    ready: VecDeque<SseEvent>,
    max_event_bytes: usize,
}

impl Default for SseDecoder {
    fn default() -> Self {
        SseDecoder::new()
    }
}

impl SseDecoder {
    /// The default limit of one event's size: 16 MiB.
    pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 << 20;

    /// A decoder with the default event size limit.
    pub fn new() -> Self {
        SseDecoder::with_max_event_bytes(Self::DEFAULT_MAX_EVENT_BYTES)
    }

    /// A decoder that rejects events larger than `max` bytes.
    pub fn with_max_event_bytes(max: usize) -> Self {
        SseDecoder {
            line: Vec::new(),
            after_cr: false,
            event: String::new(),
            data: String::new(),
            has_data: false,
            ready: VecDeque::new(),
            max_event_bytes: max,
        }
    }

    /// Feeds the next chunk of the stream.
    ///
    /// # Errors
    ///
    /// [`LlmError::InvalidResponse`] when a line is not UTF-8 or an event
    /// grows over the limit.
    pub fn push(&mut self, mut chunk: &[u8]) -> Result<()> {
        if chunk.is_empty() {
            return Ok(());
        }
        if self.after_cr && chunk.first() == Some(&b'\n') {
            chunk = &chunk[1..];
        }
        self.after_cr = false;
        while let Some(at) = memchr::memchr2(b'\n', b'\r', chunk) {
            let (head, rest) = chunk.split_at(at);
            if self.line.is_empty() {
                self.take_line(head)?;
            } else {
                self.line.extend_from_slice(head);
                let line = std::mem::take(&mut self.line);
                self.take_line(&line)?;
            }
            chunk = match rest {
                [b'\r', b'\n', tail @ ..] => tail,
                [b'\r'] => {
                    self.after_cr = true;
                    &[]
                }
                [_, tail @ ..] => tail,
                [] => &[],
            };
        }
        self.line.extend_from_slice(chunk);
        if self.line.len() > self.max_event_bytes {
            return Err(self.too_large());
        }
        Ok(())
    }

    /// The next complete event, if any.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }

    /// Ends the stream: an event not closed by a blank line is
    /// dispatched, as a server that closes right after its last `data:`
    /// line means it.
    ///
    /// # Errors
    ///
    /// [`LlmError::InvalidResponse`] when the unfinished line is not UTF-8.
    pub fn finish(&mut self) -> Result<()> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.take_line(&line)?;
        }
        self.dispatch();
        Ok(())
    }

    fn too_large(&self) -> LlmError {
        LlmError::InvalidResponse {
            message: format!("a streamed event is larger than {} bytes", self.max_event_bytes),
        }
    }

    fn take_line(&mut self, line: &[u8]) -> Result<()> {
        if line.is_empty() {
            self.dispatch();
            return Ok(());
        }
        if line.len() > self.max_event_bytes {
            return Err(self.too_large());
        }
        let line = std::str::from_utf8(line).map_err(|e| LlmError::InvalidResponse {
            message: format!("a streamed line is not UTF-8: {e}"),
        })?;
        let (field, value) = match line.find(':') {
            Some(0) => return Ok(()),
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (line, ""),
        };
        match field {
            "event" => {
                self.event.clear();
                self.event.push_str(value);
            }
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                if self.data.len() > self.max_event_bytes {
                    return Err(self.too_large());
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self) {
        if self.has_data {
            self.ready.push_back(SseEvent {
                event: std::mem::take(&mut self.event),
                data: std::mem::take(&mut self.data),
            });
        }
        self.event.clear();
        self.data.clear();
        self.has_data = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn all(decoder: &mut SseDecoder) -> Vec<SseEvent> {
        std::iter::from_fn(|| decoder.next_event()).collect()
    }

    const STREAM: &str = "event: a\r\ndata: one\r\ndata: two\r\n\r\n: comment\nid: 7\ndata: é\n\nevent: x\n\nretry: 3\rdata\r\r";

    fn expected() -> Vec<SseEvent> {
        vec![
            SseEvent {
                event: "a".into(),
                data: "one\ntwo".into(),
            },
            SseEvent {
                event: String::new(),
                data: "é".into(),
            },
            SseEvent {
                event: String::new(),
                data: String::new(),
            },
        ]
    }

    #[test]
    fn model_3_decodes_every_line_ending() {
        let mut d = SseDecoder::new();
        d.push(STREAM.as_bytes()).unwrap();
        d.finish().unwrap();
        assert_eq!(all(&mut d), expected());
    }

    #[test]
    fn bounded_and_typed() {
        let mut d = SseDecoder::with_max_event_bytes(16);
        assert!(d.push(b"data: 0123456789abcdefg").is_err());
        let mut d = SseDecoder::with_max_event_bytes(16);
        d.push(b"data: 01234567\n").unwrap();
        assert!(d.push(b"data: 89abcdef\n").is_err());
        // A comment line is bounded too, whatever the chunking.
        let mut d = SseDecoder::with_max_event_bytes(16);
        assert!(d.push(b": a long comment line\n").is_err());
        let mut d = SseDecoder::new();
        assert!(d.push(b"data: \xff\n").is_err());
        // An unfinished event at the end is still dispatched.
        let mut d = SseDecoder::new();
        d.push(b"data: last").unwrap();
        d.finish().unwrap();
        assert_eq!(all(&mut d)[0].data, "last");
    }

    proptest! {
        /// MODEL-3: any split of the bytes gives the same events.
        #[test]
        fn model_3_any_chunking(cuts in prop::collection::vec(0..STREAM.len(), 0..12)) {
            let bytes = STREAM.as_bytes();
            let mut cuts = cuts;
            cuts.sort_unstable();
            let mut d = SseDecoder::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                d.push(&bytes[from..cut]).unwrap();
                from = cut;
            }
            d.finish().unwrap();
            prop_assert_eq!(all(&mut d), expected());
        }
    }
}

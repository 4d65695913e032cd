//! Streamed chat completions: the chunk decoder (MODEL-3).

use crate::*;

/// Turns chat-completion chunks into [`StreamEvent`]s; the wire-format
/// half of the stream, apart from the HTTP body so that it can be tested
/// and fuzzed on bytes.
#[derive(Debug, Default)]
pub struct ChunkDecoder {
    calls: ToolCallBuffer,
    finish: Option<FinishReason>,
    usage: Usage,
    done: bool,
}

impl ChunkDecoder {
    /// Decodes the `data:` of one server-sent event into `out`.
    ///
    /// # Errors
    ///
    /// [`LlmError::InvalidResponse`] for data that is not a chunk,
    /// [`LlmError::Provider`] for an error the server sent in the stream.
    pub fn decode(&mut self, data: &str, out: &mut VecDeque<StreamEvent>) -> Result<()> {
        if self.done {
            return Ok(());
        }
        let data = data.trim();
        if data == "[DONE]" {
            self.close(out);
            return Ok(());
        }
        let v = event_json(data)?;
        if let Some(error) = v.get("error") {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(LlmError::Provider {
                status: None,
                message,
            });
        }
        if let Some(usage) = v.get("usage").filter(|u| !u.is_null()) {
            self.usage = usage_of(Some(usage));
        }
        let Some(choice) = v.pointer("/choices/0") else {
            return Ok(());
        };
        if let Some(delta) = choice.get("delta") {
            if let Some(thinking) = reasoning_text(delta).filter(|t| !t.is_empty()) {
                out.push_back(StreamEvent::ThinkingDelta(thinking.to_owned()));
            }
            if let Some(text) = delta
                .get("content")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                out.push_back(StreamEvent::TextDelta(text.to_owned()));
            }
            for (position, call) in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let index = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .and_then(|i| usize::try_from(i).ok())
                    .unwrap_or(position);
                let text = |path: &str| call.pointer(path).and_then(Value::as_str).unwrap_or_default();
                if !self.calls.is_open(index) {
                    let (id, name) = (text("/id"), text("/function/name"));
                    self.calls.start(index, id, name);
                    out.push_back(StreamEvent::ToolCallStarted {
                        index,
                        id: id.to_owned(),
                        name: name.to_owned(),
                    });
                }
                let arguments = text("/function/arguments");
                if !arguments.is_empty() {
                    self.calls.append(index, arguments);
                    out.push_back(StreamEvent::ToolCallDelta {
                        index,
                        arguments: arguments.to_owned(),
                    });
                }
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(FinishReason::parse(reason));
        }
        Ok(())
    }

    /// Ends the stream: the open calls are finished, then the usage and
    /// `Done` follow.
    pub fn close(&mut self, out: &mut VecDeque<StreamEvent>) {
        if self.done {
            return;
        }
        for (index, call) in self.calls.finish_all() {
            out.push_back(StreamEvent::ToolCallFinished { index, call });
        }
        out.push_back(StreamEvent::Usage(self.usage));
        out.push_back(StreamEvent::Done {
            finish_reason: self.finish.clone().unwrap_or_default(),
        });
        self.done = true;
    }

    /// Whether `[DONE]` (or [`ChunkDecoder::close`]) ended the stream.
    pub fn is_done(&self) -> bool {
        self.done
    }
}

impl StreamDecoder for ChunkDecoder {
    fn decode(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<()> {
        ChunkDecoder::decode(self, &event.data, out)
    }

    fn is_done(&self) -> bool {
        self.done
    }

    /// Some compatible servers close without `[DONE]` after the finish
    /// reason: complete, not cut.
    fn at_end(&mut self, out: &mut VecDeque<StreamEvent>) {
        if self.finish.is_some() {
            self.close(out);
        }
    }
}

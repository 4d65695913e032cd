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
        let chunk: ChatCompletion<'_> = event_json(data)?;
        if let Some(error) = chunk.error {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(LlmError::Provider {
                status: None,
                message,
            });
        }
        if let Some(usage) = chunk.usage {
            self.usage = usage.into();
        }
        let Some(choice) = chunk.choices.into_iter().next() else {
            return Ok(());
        };
        if let Some(delta) = choice.delta {
            if let Some(thinking) = delta.reasoning_text().filter(|t| !t.is_empty()) {
                out.push_back(StreamEvent::ThinkingDelta(thinking.to_owned()));
            }
            if let Some(ChatContent::Text(text)) = delta.content {
                if !text.is_empty() {
                    out.push_back(StreamEvent::TextDelta(text.into_owned()));
                }
            }
            for (position, call) in delta.tool_calls.into_iter().flatten().enumerate() {
                let index = call
                    .index
                    .and_then(|i| usize::try_from(i).ok())
                    .unwrap_or(position);
                let function = call.function.unwrap_or_default();
                if !self.calls.is_open(index) {
                    let id = call.id.as_deref().unwrap_or_default();
                    let name = function.name.as_deref().unwrap_or_default();
                    self.calls.start(index, id, name);
                    out.push_back(StreamEvent::ToolCallStarted {
                        index,
                        id: id.to_owned(),
                        name: name.to_owned(),
                    });
                }
                if let Some(ChatArguments::Text(arguments)) = function.arguments {
                    if !arguments.is_empty() {
                        self.calls.append(index, &arguments);
                        out.push_back(StreamEvent::ToolCallDelta {
                            index,
                            arguments: arguments.into_owned(),
                        });
                    }
                }
            }
        }
        if let Some(reason) = choice.finish_reason {
            self.finish = Some(FinishReason::parse(&reason));
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

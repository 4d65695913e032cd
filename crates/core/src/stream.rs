//! Streamed answers (MODEL-3): typed events, assembled incrementally into
//! the final [`LlmResponse`].

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use async_trait::async_trait;
use serde_json::Value;

use crate::error::{LlmError, LlmResult as Result};
use crate::llm::{FinishReason, LlmResponse, Usage};
use crate::message::{ThinkingBlock, ToolCall};
use crate::server::{AppliedEdit, ProviderItem};

/// One event of a streamed answer (MODEL-3).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// More of the answer's text.
    TextDelta(String),
    /// More of the model's reasoning.
    ThinkingDelta(String),
    /// The reasoning block in progress is complete, with the provider's
    /// signature when it gave one.
    ThinkingFinished {
        /// The provider's signature of the block.
        signature: Option<String>,
    },
    /// A reasoning block the provider encrypted.
    RedactedThinking {
        /// The encrypted reasoning, to send back as it came.
        data: String,
    },
    /// The model started a tool call.
    ToolCallStarted {
        /// The call's position in the answer, from 0.
        index: usize,
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a tool call's JSON arguments.
    ToolCallDelta {
        /// The call's position in the answer.
        index: usize,
        /// The next piece of the arguments' text.
        arguments: String,
    },
    /// A tool call is complete.
    ToolCallFinished {
        /// The call's position in the answer.
        index: usize,
        /// The call, its arguments decoded (text that is not JSON, as a
        /// cut call's, is kept as a JSON string).
        call: ToolCall,
    },
    /// The provider's token figures for the call.
    Usage(Usage),
    /// Something the provider requires back verbatim on later requests
    /// (MODEL-7), such as a compaction block, complete.
    ProviderItem(ProviderItem),
    /// The context edits the provider applied to the request (MODEL-7).
    ContextEdited(Vec<AppliedEdit>),
    /// The answer is complete; no event follows.
    Done {
        /// Why the model stopped.
        finish_reason: FinishReason,
    },
}

/// The tool calls of a streamed answer while their arguments arrive: what
/// a [`StreamSource`] keeps to emit [`StreamEvent::ToolCallFinished`].
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::ToolCallBuffer;
///
/// let mut calls = ToolCallBuffer::default();
/// calls.start(0, "c1", "Read");
/// calls.append(0, "{\"path\":");
/// calls.append(0, "\"a.rs\"}");
/// let call = calls.finish(0).unwrap();
/// assert_eq!(*call.arguments, json!({"path": "a.rs"}));
/// assert!(calls.finish(0).is_none());
/// ```
#[derive(Debug, Default, Clone)]
pub struct ToolCallBuffer {
    open: BTreeMap<usize, (String, String, String)>,
}

impl ToolCallBuffer {
    /// Opens call `index`; a second start of the same index keeps the
    /// arguments so far and takes the id and name when they were empty.
    pub fn start(&mut self, index: usize, id: &str, name: &str) {
        let entry = self.open.entry(index).or_default();
        if entry.0.is_empty() {
            entry.0.push_str(id);
        }
        if entry.1.is_empty() {
            entry.1.push_str(name);
        }
    }

    /// Appends arguments text to call `index` (opening it when needed).
    pub fn append(&mut self, index: usize, arguments: &str) {
        self.open.entry(index).or_default().2.push_str(arguments);
    }

    /// Whether call `index` is open.
    pub fn is_open(&self, index: usize) -> bool {
        self.open.contains_key(&index)
    }

    /// Closes call `index` and returns it with its arguments decoded.
    pub fn finish(&mut self, index: usize) -> Option<ToolCall> {
        let (id, name, arguments) = self.open.remove(&index)?;
        Some(ToolCall::new(id, name, decode_arguments(arguments)))
    }

    /// Closes every open call, in index order.
    pub fn finish_all(&mut self) -> Vec<(usize, ToolCall)> {
        let indices: Vec<usize> = self.open.keys().copied().collect();
        indices
            .into_iter()
            .filter_map(|i| self.finish(i).map(|call| (i, call)))
            .collect()
    }
}

/// Arguments text as JSON: empty is `{}`, text that is not JSON is kept
/// as a JSON string.
pub(crate) fn decode_arguments(text: String) -> Value {
    if text.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

/// Where a streamed answer's events come from: a client's decoder of its
/// provider's wire format.
///
/// Implementations emit events in order and end with
/// [`StreamEvent::Done`]; a stream that ends without it is reported by
/// [`LlmStream`] as [`LlmError::StreamCut`].
#[async_trait]
pub trait StreamSource: Send {
    /// Appends the next events to `out`. Returns `false` once the stream
    /// has ended (and nothing was appended).
    ///
    /// # Errors
    ///
    /// [`LlmError::InvalidResponse`] for an event that cannot be read,
    /// [`LlmError::StreamCut`] when the connection broke, or the provider's
    /// error when it sent one inside the stream.
    async fn next_events(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<bool>;
}

/// A streamed answer (MODEL-3): read its events with
/// [`LlmStream::next`], then take the assembled answer with
/// [`LlmStream::finish`].
///
/// Assembly is incremental: each delta is appended once, nothing is
/// parsed twice. Dropping the stream closes the connection and leaves
/// nothing recorded: the engine records an answer only once it is
/// complete.
///
/// ```
/// use strata_ctx_core::{LlmResponse, LlmStream, StreamEvent, Usage};
///
/// # tokio_test_block(async {
/// let mut stream = LlmStream::from_response(LlmResponse::new("Hello.", Usage::new(10, 2)));
/// let mut text = String::new();
/// while let Some(event) = stream.next().await {
///     if let StreamEvent::TextDelta(delta) = event? {
///         text.push_str(&delta);
///     }
/// }
/// let answer = stream.finish().await?;
/// assert_eq!((text.as_str(), answer.text.as_str()), ("Hello.", "Hello."));
/// # Ok::<(), strata_ctx_core::LlmError>(())
/// # });
/// # fn tokio_test_block<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub struct LlmStream {
    source: Box<dyn StreamSource>,
    pending: VecDeque<StreamEvent>,
    assembled: LlmResponse,
    calls: BTreeMap<usize, ToolCall>,
    thinking: Option<String>,
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    Done,
    Failed,
}

impl fmt::Debug for LlmStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmStream")
            .field("assembled", &self.assembled)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// Replays a list of events: the source of [`LlmStream::from_events`].
struct Replay(Option<Vec<StreamEvent>>);

#[async_trait]
impl StreamSource for Replay {
    async fn next_events(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<bool> {
        match self.0.take() {
            Some(events) => {
                out.extend(events);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

impl LlmStream {
    /// A stream reading events from `source`.
    pub fn new(source: impl StreamSource + 'static) -> Self {
        LlmStream {
            source: Box::new(source),
            pending: VecDeque::new(),
            assembled: LlmResponse::default(),
            calls: BTreeMap::new(),
            thinking: None,
            state: State::Open,
        }
    }

    /// A stream of the given events, for tests and for clients that
    /// receive a whole answer at once.
    pub fn from_events(events: Vec<StreamEvent>) -> Self {
        LlmStream::new(Replay(Some(events)))
    }

    /// A stream replaying a complete answer: its reasoning, its text, its
    /// calls, its usage and its finish reason.
    pub fn from_response(response: LlmResponse) -> Self {
        let mut events: Vec<StreamEvent> = response
            .provider_items
            .into_iter()
            .map(StreamEvent::ProviderItem)
            .collect();
        if !response.context_edits.is_empty() {
            events.push(StreamEvent::ContextEdited(response.context_edits));
        }
        for block in response.thinking {
            match block {
                ThinkingBlock::Thinking { thinking, signature } => {
                    events.push(StreamEvent::ThinkingDelta(thinking));
                    events.push(StreamEvent::ThinkingFinished {
                        signature: Some(signature).filter(|s| !s.is_empty()),
                    });
                }
                ThinkingBlock::RedactedThinking { data } => {
                    events.push(StreamEvent::RedactedThinking { data })
                }
            }
        }
        if !response.text.is_empty() {
            events.push(StreamEvent::TextDelta(response.text));
        }
        for (index, call) in response.tool_calls.into_iter().enumerate() {
            events.push(StreamEvent::ToolCallStarted {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
            });
            events.push(StreamEvent::ToolCallFinished { index, call });
        }
        events.push(StreamEvent::Usage(response.usage));
        events.push(StreamEvent::Done {
            finish_reason: response.finish_reason,
        });
        LlmStream::from_events(events)
    }

    /// The next event, or `None` after [`StreamEvent::Done`] or an error.
    ///
    /// # Errors
    ///
    /// The source's error, or [`LlmError::StreamCut`] when the stream ended
    /// without [`StreamEvent::Done`]. After an error the stream yields
    /// nothing more.
    pub async fn next(&mut self) -> Option<Result<StreamEvent>> {
        if self.state != State::Open {
            return None;
        }
        while self.pending.is_empty() {
            match self.source.next_events(&mut self.pending).await {
                Ok(true) => {}
                Ok(false) => {
                    self.state = State::Failed;
                    return Some(Err(LlmError::StreamCut {
                        message: "the stream ended before the answer was complete".into(),
                    }));
                }
                Err(e) => {
                    self.state = State::Failed;
                    return Some(Err(e));
                }
            }
        }
        let event = self.pending.pop_front()?;
        self.absorb(&event);
        Some(Ok(event))
    }

    /// Reads the rest of the stream and returns the assembled answer.
    ///
    /// # Errors
    ///
    /// As [`LlmStream::next`]; a stream that already failed reports
    /// [`LlmError::StreamCut`].
    pub async fn finish(mut self) -> Result<LlmResponse> {
        while let Some(event) = self.next().await {
            event?;
        }
        match self.state {
            State::Done => Ok(self.assembled),
            _ => Err(LlmError::StreamCut {
                message: "the stream failed earlier".into(),
            }),
        }
    }

    /// What has been assembled so far.
    pub fn partial(&self) -> &LlmResponse {
        &self.assembled
    }

    fn close_thinking(&mut self, signature: Option<String>) {
        let thinking = self.thinking.take();
        if thinking.is_some() || signature.is_some() {
            self.assembled.thinking.push(ThinkingBlock::Thinking {
                thinking: thinking.unwrap_or_default(),
                signature: signature.unwrap_or_default(),
            });
        }
    }

    fn absorb(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextDelta(delta) => self.assembled.text.push_str(delta),
            StreamEvent::ThinkingDelta(delta) => {
                self.thinking.get_or_insert_with(String::new).push_str(delta)
            }
            StreamEvent::ThinkingFinished { signature } => self.close_thinking(signature.clone()),
            StreamEvent::RedactedThinking { data } => {
                self.close_thinking(None);
                self.assembled
                    .thinking
                    .push(ThinkingBlock::RedactedThinking { data: data.clone() });
            }
            StreamEvent::ToolCallStarted { .. } | StreamEvent::ToolCallDelta { .. } => {}
            StreamEvent::ToolCallFinished { index, call } => {
                self.calls.insert(*index, call.clone());
            }
            StreamEvent::Usage(usage) => self.assembled.usage = *usage,
            StreamEvent::ProviderItem(item) => self.assembled.provider_items.push(item.clone()),
            StreamEvent::ContextEdited(edits) => self.assembled.context_edits.extend(edits.iter().cloned()),
            StreamEvent::Done { finish_reason } => {
                self.close_thinking(None);
                self.assembled.tool_calls = std::mem::take(&mut self.calls).into_values().collect();
                self.assembled.finish_reason = finish_reason.clone();
                self.state = State::Done;
                self.pending.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn model_3_replayed_response_reassembles() {
        let response = LlmResponse::new("Reading.", Usage::new(5, 3))
            .with_tool_calls(vec![
                ToolCall::new("a", "Read", json!({"path": "x"})),
                ToolCall::new("b", "Bash", json!({"command": "ls"})),
            ])
            .with_thinking(vec![
                ThinkingBlock::Thinking {
                    thinking: "hm".into(),
                    signature: "sig".into(),
                },
                ThinkingBlock::RedactedThinking { data: "zz".into() },
            ])
            .with_finish_reason(FinishReason::ToolCalls);
        let back = block_on(LlmStream::from_response(response.clone()).finish()).unwrap();
        assert_eq!(back, response);
    }

    #[test]
    fn model_3_cut_stream_is_a_typed_error() {
        let mut stream = LlmStream::from_events(vec![StreamEvent::TextDelta("par".into())]);
        block_on(async {
            assert!(matches!(stream.next().await, Some(Ok(StreamEvent::TextDelta(_)))));
            assert!(matches!(
                stream.next().await,
                Some(Err(LlmError::StreamCut { .. }))
            ));
            assert!(stream.next().await.is_none());
            assert_eq!(stream.partial().text, "par");
            assert!(matches!(stream.finish().await, Err(LlmError::StreamCut { .. })));
        });
    }

    #[test]
    fn tool_call_buffer_keeps_cut_arguments() {
        let mut b = ToolCallBuffer::default();
        b.start(1, "c", "Write");
        b.append(1, "{\"path\": \"a");
        b.start(0, "d", "Read");
        let all = b.finish_all();
        assert_eq!(*all[0].1.arguments, json!({}));
        assert_eq!(*all[1].1.arguments, json!("{\"path\": \"a"));
    }
}

//! Streamed messages: the event decoder (MODEL-3).

use crate::*;
use strata_ctx_core::{AppliedEdit, EditKind};
use strata_ctx_http::SseEvent;
use strata_ctx_http::{event_json, StreamDecoder};
use strata_ctx_wire::anthropic::{Block as FormBlock, ContextReport, Delta, Event};

/// What a content block of a streamed message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Block {
    Text,
    Thinking,
    Tool(usize),
    /// A compaction block (MODEL-7), kept whole until it closes.
    Compaction,
    Other,
}

/// Turns the Messages API's streamed events (`message_start`,
/// `content_block_start` / `_delta` / `_stop`, `message_delta`,
/// `message_stop`, `ping`, `error`) into [`StreamEvent`]s; the wire-format
/// half of the stream, apart from the HTTP body so that it can be tested
/// and fuzzed on bytes. Event types it does not know are skipped, as the
/// API's versioning policy asks of clients.
#[derive(Debug, Default)]
pub struct EventDecoder {
    blocks: HashMap<usize, Block>,
    signatures: HashMap<usize, String>,
    compactions: HashMap<usize, Value>,
    calls: ToolCallBuffer,
    next_call: usize,
    usage: Usage,
    finish: Option<FinishReason>,
    /// Whether the answer listed a compaction among its applied edits,
    /// and the compactions it holds (MODEL-7).
    listed_compaction: bool,
    reported: Vec<AppliedEdit>,
    compacted: Vec<AppliedEdit>,
    done: bool,
}

impl EventDecoder {
    /// Decodes one server-sent event into `out`. Its data's `type` says
    /// what it is; the event's name, which repeats it, is not read.
    ///
    /// # Errors
    ///
    /// [`LlmError::InvalidResponse`](strata_ctx_core::LlmError::InvalidResponse) for data that is not JSON or
    /// not an event of the API (a known event of the wrong shape); for an
    /// `error` event, the variant its error type maps to (an overload is
    /// a retryable [`LlmError::Provider`](strata_ctx_core::LlmError::Provider) with status 529, a too-long prompt
    /// [`LlmError::ContextTooLong`](strata_ctx_core::LlmError::ContextTooLong)).
    pub fn decode(&mut self, _event: &str, data: &str, out: &mut VecDeque<StreamEvent>) -> Result<()> {
        if self.done {
            return Ok(());
        }
        match event_json::<Event<'_>>(data)? {
            Event::MessageStart { message } => {
                self.usage = message.usage.unwrap_or_default().over(self.usage);
                self.edits(message.context_management.as_ref(), out);
            }
            Event::ContentBlockStart { index, content_block } => {
                let kind = self.open_block(index, content_block, out);
                self.blocks.insert(index, kind);
            }
            Event::ContentBlockDelta { index, delta } => self.delta(index, delta, out),
            Event::ContentBlockStop { index } => self.close_block(index, out),
            Event::MessageDelta {
                delta,
                usage,
                context_management,
            } => {
                self.edits(context_management.as_ref(), out);
                if let Some(reason) = delta.stop_reason {
                    self.finish = Some(FinishReason::parse(&reason));
                }
                self.usage = usage.unwrap_or_default().over(self.usage);
            }
            Event::MessageStop => self.close(out),
            Event::Error { error } => {
                return Err(strata_ctx_http::classify(error.status(), data.as_bytes(), None).error);
            }
            // `ping` and types added after this client.
            _ => {}
        }
        Ok(())
    }

    /// What the block opening at `index` is; its first text, if any.
    fn open_block(&mut self, index: usize, block: FormBlock<'_>, out: &mut VecDeque<StreamEvent>) -> Block {
        match block {
            FormBlock::Text { text, .. } => {
                if !text.is_empty() {
                    out.push_back(StreamEvent::TextDelta(text.into_owned()));
                }
                Block::Text
            }
            FormBlock::Thinking { thinking, .. } => {
                if !thinking.is_empty() {
                    out.push_back(StreamEvent::ThinkingDelta(thinking.into_owned()));
                }
                Block::Thinking
            }
            FormBlock::RedactedThinking { data } => {
                out.push_back(StreamEvent::RedactedThinking {
                    data: data.into_owned(),
                });
                Block::Other
            }
            FormBlock::ToolUse { id, name, .. } => {
                let call = self.next_call;
                self.next_call += 1;
                let (id, name) = (
                    id.unwrap_or_default().into_owned(),
                    name.unwrap_or_default().into_owned(),
                );
                self.calls.start(call, &id, &name);
                out.push_back(StreamEvent::ToolCallStarted {
                    index: call,
                    id,
                    name,
                });
                Block::Tool(call)
            }
            compaction @ FormBlock::Compaction(_) => {
                if let Some(item) = compaction.verbatim() {
                    self.compactions.insert(index, item);
                }
                Block::Compaction
            }
            _ => Block::Other,
        }
    }

    /// A piece of the block open at `index`.
    fn delta(&mut self, index: usize, delta: Delta<'_>, out: &mut VecDeque<StreamEvent>) {
        match delta {
            Delta::TextDelta { text } => out.push_back(StreamEvent::TextDelta(text.into_owned())),
            Delta::ThinkingDelta { thinking } => {
                out.push_back(StreamEvent::ThinkingDelta(thinking.into_owned()))
            }
            Delta::SignatureDelta { signature } => {
                self.signatures.entry(index).or_default().push_str(&signature)
            }
            Delta::InputJsonDelta { partial_json } => {
                if let Some(Block::Tool(call)) = self.blocks.get(&index) {
                    if !partial_json.is_empty() {
                        self.calls.append(*call, &partial_json);
                        out.push_back(StreamEvent::ToolCallDelta {
                            index: *call,
                            arguments: partial_json.into_owned(),
                        });
                    }
                }
            }
            Delta::CompactionDelta {
                content,
                encrypted_content,
            } => {
                // The summary arrives in pieces; the opaque part, when
                // there is one, whole in the latest delta.
                if let Some(block) = self.compactions.get_mut(&index) {
                    if let Some(piece) = content {
                        let so_far = block.get("content").and_then(Value::as_str).unwrap_or_default();
                        block["content"] = Value::String(format!("{so_far}{piece}"));
                    }
                    if let Some(opaque) = encrypted_content.filter(|v| !v.is_null()) {
                        block["encrypted_content"] = opaque;
                    }
                }
            }
            _ => {}
        }
    }

    /// Reports the applied edits a message's start or end lists (MODEL-7).
    fn edits(&mut self, report: Option<&ContextReport>, out: &mut VecDeque<StreamEvent>) {
        let edits = report.map(ContextReport::edits).unwrap_or_default();
        // The start and the end of a message may both list them.
        if !edits.is_empty() && edits != self.reported {
            self.listed_compaction |= edits.iter().any(|e| e.kind == EditKind::Compaction);
            self.reported.clone_from(&edits);
            out.push_back(StreamEvent::ContextEdited(edits));
        }
    }

    fn close_block(&mut self, index: usize, out: &mut VecDeque<StreamEvent>) {
        match self.blocks.remove(&index) {
            Some(Block::Tool(call)) => {
                if let Some(finished) = self.calls.finish(call) {
                    out.push_back(StreamEvent::ToolCallFinished {
                        index: call,
                        call: finished,
                    });
                }
            }
            Some(Block::Thinking) => out.push_back(StreamEvent::ThinkingFinished {
                signature: self.signatures.remove(&index),
            }),
            Some(Block::Compaction) => {
                if let Some(block) = self.compactions.remove(&index) {
                    let (item, edit) = context::compaction(block);
                    out.push_back(StreamEvent::ProviderItem(item));
                    self.compacted.push(edit);
                }
            }
            _ => {}
        }
    }

    /// Ends the message: open blocks are closed, then the usage and
    /// `Done` follow.
    pub fn close(&mut self, out: &mut VecDeque<StreamEvent>) {
        if self.done {
            return;
        }
        let mut open: Vec<usize> = self.blocks.keys().copied().collect();
        open.sort_unstable();
        for index in open {
            self.close_block(index, out);
        }
        for (index, call) in self.calls.finish_all() {
            out.push_back(StreamEvent::ToolCallFinished { index, call });
        }
        // A compaction the answer did not list among its applied edits.
        let compacted = std::mem::take(&mut self.compacted);
        if !self.listed_compaction && !compacted.is_empty() {
            out.push_back(StreamEvent::ContextEdited(compacted));
        }
        out.push_back(StreamEvent::Usage(self.usage));
        out.push_back(StreamEvent::Done {
            finish_reason: self.finish.clone().unwrap_or_default(),
        });
        self.done = true;
    }

    /// Whether `message_stop` ended the stream.
    pub fn is_done(&self) -> bool {
        self.done
    }
}

impl StreamDecoder for EventDecoder {
    fn decode(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<()> {
        EventDecoder::decode(self, &event.event, &event.data, out)
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

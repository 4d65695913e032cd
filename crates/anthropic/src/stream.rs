//! Streamed messages: the event decoder (MODEL-3).

use crate::*;
use serde::Deserialize;
use strata_ctx_core::{AppliedEdit, EditKind};
use strata_ctx_http::SseEvent;
use strata_ctx_http::{body_excerpt, event_json, invalid, StreamDecoder};
use strata_ctx_wire::anthropic::{Block as FormBlock, Delta};

/// The start of `data`, for an error message.
fn excerpt(data: &str) -> String {
    body_excerpt(data.as_bytes())
}

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
    /// Decodes one server-sent event (its name and data) into `out`.
    ///
    /// # Errors
    ///
    /// [`LlmError::InvalidResponse`](strata_ctx_core::LlmError::InvalidResponse) for data that is not JSON; for an
    /// `error` event, the variant its error type maps to (an overload is
    /// a retryable [`LlmError::Provider`](strata_ctx_core::LlmError::Provider) with status 529, a too-long prompt
    /// [`LlmError::ContextTooLong`](strata_ctx_core::LlmError::ContextTooLong)).
    pub fn decode(&mut self, event: &str, data: &str, out: &mut VecDeque<StreamEvent>) -> Result<()> {
        if self.done {
            return Ok(());
        }
        let v: Value = event_json(data)?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(event);
        let index = v
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .unwrap_or(0);
        match kind {
            "message_start" => {
                self.usage = usage_of(v.pointer("/message/usage"), self.usage);
                if let Some(message) = v.get("message") {
                    self.edits(message, out);
                }
            }
            "content_block_start" => {
                let block = v.get("content_block").unwrap_or(&Value::Null);
                let block = FormBlock::deserialize(block).map_err(|e| {
                    invalid(format!(
                        "a streamed content block is not one ({e}): {}",
                        excerpt(data)
                    ))
                })?;
                let kind = match block {
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
                };
                self.blocks.insert(index, kind);
            }
            "content_block_delta" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                let delta = Delta::deserialize(delta)
                    .map_err(|e| invalid(format!("a streamed delta is not one ({e}): {}", excerpt(data))))?;
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
                        // The summary arrives in pieces; the opaque part,
                        // when there is one, whole in the latest delta.
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
            "content_block_stop" => self.close_block(index, out),
            "message_delta" => {
                self.edits(&v, out);
                if let Some(reason) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.finish = Some(FinishReason::parse(reason));
                }
                self.usage = usage_of(v.get("usage"), self.usage);
            }
            "message_stop" => self.close(out),
            "error" => {
                let error = v.get("error").unwrap_or(&v);
                let status = match error.get("type").and_then(Value::as_str) {
                    Some("overloaded_error") => 529,
                    Some("rate_limit_error") => 429,
                    Some("api_error") => 500,
                    Some("request_too_large") => 413,
                    Some("authentication_error") => 401,
                    Some("permission_error") => 403,
                    Some("not_found_error") => 404,
                    _ => 400,
                };
                return Err(strata_ctx_http::classify(status, data.as_bytes(), None).error);
            }
            // `ping` and types added after this client.
            _ => {}
        }
        Ok(())
    }

    /// Reports the applied edits `object` lists (MODEL-7).
    fn edits(&mut self, object: &Value, out: &mut VecDeque<StreamEvent>) {
        let edits = context::applied_edits(object);
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
                    let (item, edit) = context::compaction(&block);
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

//! The Responses API (`/responses`): the client's second mode beside chat
//! completions (MODEL-7), and the shapes its token-counting endpoint
//! (`/responses/input_tokens`, MODEL-8) shares.
//!
//! Requests are stateless (`store: false`, no `previous_response_id`):
//! the window is sent whole each time, with the items the provider
//! returned earlier (reasoning, compaction) where they came, and
//! reasoning asked back encrypted so that it can be.

use std::collections::VecDeque;

use std::borrow::Cow;

use serde_json::Value;
use strata_ctx_core::{
    AppliedEdit, EditKind, LlmRequest, LlmResponse, LlmResult as Result, Provider, ProviderItem, Role,
    StreamEvent, ToolCall, ToolCallBuffer,
};
use strata_ctx_http::{body_excerpt, event_json, invalid, SseEvent, StreamDecoder};
use strata_ctx_wire::chat::ChatContent;
use strata_ctx_wire::responses::{
    arguments_value, ApiError, Compaction, Event, FunctionTool, InputItem, Item, Part, Request, Response,
    ToolChoice,
};

/// `request` as the Responses API's `input` items: messages with their
/// text, each tool call a `function_call` item and each result a
/// `function_call_output` item, in order; the OpenAI items an assistant
/// message carries (MODEL-7) go before its own, without their `id` (the
/// requests are not stored, so ids would name nothing).
pub(crate) fn input_items(request: &LlmRequest) -> Vec<InputItem<'_>> {
    let mut items = Vec::new();
    for message in &request.messages {
        for item in message
            .provider_items
            .iter()
            .filter(|i| i.provider == Provider::OpenAi)
        {
            let mut item = item.item.clone();
            if let Value::Object(map) = &mut item {
                map.remove("id");
            }
            items.push(InputItem::Verbatim(item));
        }
        // The chat rendering decides each message's text and role.
        let chat = strata_ctx_prompt::chat_message(message);
        let content = match chat.content {
            Some(ChatContent::Text(text)) => text,
            _ => Cow::Borrowed(""),
        };
        match message.role {
            Role::Tool => items.push(InputItem::FunctionCallOutput {
                call_id: message.tool_call_id.as_deref().unwrap_or_default(),
                output: content,
                kind: "function_call_output",
            }),
            Role::Assistant => {
                if !content.is_empty() {
                    items.push(InputItem::Message {
                        content,
                        role: chat.role,
                    });
                }
                for call in &message.tool_calls {
                    items.push(InputItem::FunctionCall {
                        arguments: strata_ctx_prompt::arguments_text(call),
                        call_id: &call.id,
                        name: &call.name,
                        kind: "function_call",
                    });
                }
            }
            _ => items.push(InputItem::Message {
                content,
                role: chat.role,
            }),
        }
    }
    items
}

/// The `/responses/input_tokens` body (MODEL-8): the model, the input
/// items and the tools.
pub(crate) fn count_body<'a>(model: &'a str, request: &'a LlmRequest) -> Request<'a> {
    let mut body = Request::new(
        request.options.model.as_deref().unwrap_or(model),
        input_items(request),
    );
    body.tools = request.tools.iter().map(FunctionTool::of).collect();
    body
}

/// The `/responses` body: the model, the input items, the tools and tool
/// choice, the options, `store: false` with encrypted reasoning included,
/// `context_management` when compaction is delegated (MODEL-7), and
/// `stream: true` for a streamed answer (MODEL-3).
pub(crate) fn body<'a>(model: &'a str, request: &'a LlmRequest, stream: bool) -> Request<'a> {
    let options = &request.options;
    let mut body = count_body(model, request);
    body.store = Some(false);
    body.include = vec!["reasoning.encrypted_content"];
    if !body.tools.is_empty() {
        body.tool_choice = options.tool_choice.as_ref().map(ToolChoice::of);
    }
    body.max_output_tokens = options.max_tokens;
    body.temperature = options.temperature;
    body.context_management = request
        .server_context
        .as_ref()
        .filter(|e| e.mode.compacts())
        .map(|edits| vec![Compaction::at(edits.trigger_tokens)]);
    body.stream = stream.then_some(true);
    body
}

/// Reads a `/responses` answer: the text of its `message` items, its
/// `function_call` items as calls, its `reasoning` and `compaction` items
/// kept verbatim (MODEL-7), a compaction reported as an applied edit, the
/// usage and why it stopped.
///
/// # Errors
///
/// [`LlmError::InvalidResponse`](strata_ctx_core::LlmError::InvalidResponse)
/// for a body that is not a response, or a call without a name.
pub fn parse_response(body: &[u8]) -> Result<LlmResponse> {
    let mut response: Response = serde_json::from_slice(body).map_err(|e| {
        let what = if e.is_data() { "a response" } else { "JSON" };
        invalid(format!("the body is not {what} ({e}): {}", body_excerpt(body)))
    })?;
    let output = response
        .output
        .take()
        .ok_or_else(|| invalid(format!("no `output` list in {}", body_excerpt(body))))?;
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut items = Vec::new();
    let mut edits = Vec::new();
    for (i, item) in output.into_iter().enumerate() {
        if let Some(verbatim) = item.verbatim() {
            if matches!(item, Item::Compaction(_)) {
                edits.push(AppliedEdit::new(EditKind::Compaction));
            }
            items.push(ProviderItem::new(Provider::OpenAi, verbatim));
            continue;
        }
        match item {
            Item::Message { content, .. } => content
                .iter()
                .filter_map(Part::answer_text)
                .for_each(|t| text.push_str(t)),
            Item::FunctionCall {
                name,
                arguments,
                call_id,
                id,
            } => {
                let name = name.ok_or_else(|| invalid(format!("`output[{i}].name` is missing")))?;
                let id = call_id.or(id).unwrap_or_default();
                calls.push(ToolCall::new(id, name, arguments_value(arguments)));
            }
            // Items of tools Strata does not run (web search, …).
            _ => {}
        }
    }
    let finish = response.finish_reason(!calls.is_empty());
    Ok(LlmResponse::new(text, response.usage())
        .with_tool_calls(calls)
        .with_provider_items(items)
        .with_context_edits(edits)
        .with_finish_reason(finish))
}

/// Turns the Responses API's streamed events into [`StreamEvent`]s
/// (MODEL-3): text deltas, function calls as they are written, reasoning
/// and compaction items kept verbatim when done (MODEL-7), the usage and
/// why it stopped from `response.completed` (or `response.incomplete`).
/// The wire-format half of the stream, apart from the HTTP body so that it
/// can be tested and fuzzed on bytes; the assembled answer is the one
/// `LlmClient::complete` reads from the same response unstreamed.
#[derive(Debug, Default)]
pub struct ResponsesDecoder {
    calls: ToolCallBuffer,
    /// The call index of each function call's output index.
    call_of: Vec<(u64, usize)>,
    any_call: bool,
    done: bool,
}

impl ResponsesDecoder {
    /// Decodes the `data:` of one server-sent event into `out`.
    ///
    /// # Errors
    ///
    /// [`LlmError::InvalidResponse`](strata_ctx_core::LlmError::InvalidResponse)
    /// for data that is not an event, [`LlmError::Provider`](strata_ctx_core::LlmError::Provider)
    /// for `error` and `response.failed` events.
    pub fn decode(&mut self, data: &str, out: &mut VecDeque<StreamEvent>) -> Result<()> {
        if self.done {
            return Ok(());
        }
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        match event_json::<Event<'_>>(data)? {
            Event::TextDelta { delta } if !delta.is_empty() => {
                out.push_back(StreamEvent::TextDelta(delta.into_owned()));
            }
            Event::ItemAdded {
                output_index,
                item: Item::FunctionCall {
                    name, call_id, id, ..
                },
            } => {
                let index = self.call_of.len();
                self.call_of.push((output_index, index));
                let (id, name) = (call_id.or(id).unwrap_or_default(), name.unwrap_or_default());
                self.calls.start(index, &id, &name);
                self.any_call = true;
                out.push_back(StreamEvent::ToolCallStarted { index, id, name });
            }
            Event::ArgumentsDelta { output_index, delta } => {
                if let Some(index) = self.index_of(output_index).filter(|_| !delta.is_empty()) {
                    self.calls.append(index, &delta);
                    out.push_back(StreamEvent::ToolCallDelta {
                        index,
                        arguments: delta.into_owned(),
                    });
                }
            }
            Event::ItemDone { output_index, item } => self.item_done(item, output_index, out)?,
            Event::Completed { response } => {
                for (index, call) in self.calls.finish_all() {
                    out.push_back(StreamEvent::ToolCallFinished { index, call });
                }
                out.push_back(StreamEvent::Usage(response.usage()));
                out.push_back(StreamEvent::Done {
                    finish_reason: response.finish_reason(self.any_call),
                });
                self.done = true;
            }
            Event::Failed { response } => return Err(provider_error(response.error, data)),
            Event::Error { message, error } => {
                let message = message.or_else(|| error.and_then(|e| e.message));
                return Err(provider_error(Some(ApiError { message }), data));
            }
            // Created, in progress, content parts, reasoning summaries as
            // they are written (kept whole when their item is done), …
            _ => {}
        }
        Ok(())
    }

    fn index_of(&self, output_index: u64) -> Option<usize> {
        self.call_of
            .iter()
            .find(|(o, _)| *o == output_index)
            .map(|(_, i)| *i)
    }

    fn item_done(&mut self, item: Item, output_index: u64, out: &mut VecDeque<StreamEvent>) -> Result<()> {
        if let Some(verbatim) = item.verbatim() {
            if matches!(item, Item::Compaction(_)) {
                out.push_back(StreamEvent::ContextEdited(vec![AppliedEdit::new(
                    EditKind::Compaction,
                )]));
            }
            out.push_back(StreamEvent::ProviderItem(ProviderItem::new(
                Provider::OpenAi,
                verbatim,
            )));
            return Ok(());
        }
        let Item::FunctionCall {
            name,
            arguments,
            call_id,
            id,
        } = item
        else {
            return Ok(());
        };
        let index = match self.index_of(output_index) {
            Some(index) => index,
            // A call whose `added` event never came: whole now.
            None => {
                let index = self.call_of.len();
                self.call_of.push((output_index, index));
                let name = name.ok_or_else(|| invalid("a streamed function call has no name"))?;
                let id = call_id.or(id).unwrap_or_default();
                self.calls.start(index, &id, &name);
                self.any_call = true;
                index
            }
        };
        if let Some(mut call) = self.calls.finish(index) {
            // The done item holds the whole arguments: they stand for
            // whatever the deltas wrote, read as `parse` reads them.
            if let Some(arguments) = arguments.filter(|a| a.as_str().is_some_and(|a| !a.trim().is_empty())) {
                call = ToolCall::new(call.id, call.name, arguments_value(Some(arguments)));
            }
            out.push_back(StreamEvent::ToolCallFinished { index, call });
        }
        Ok(())
    }

    /// Whether `response.completed` (or `response.incomplete`) ended the
    /// stream.
    pub fn is_done(&self) -> bool {
        self.done
    }
}

impl StreamDecoder for ResponsesDecoder {
    fn decode(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<()> {
        ResponsesDecoder::decode(self, &event.data, out)
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

/// A failed response or an error event as a provider error, with the
/// server's message (or the event's start when it gave none).
fn provider_error(error: Option<ApiError>, data: &str) -> strata_ctx_core::LlmError {
    strata_ctx_core::LlmError::Provider {
        status: None,
        message: error
            .and_then(|e| e.message)
            .unwrap_or_else(|| body_excerpt(data.as_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::FinishReason;
    use strata_ctx_core::{ContextEdits, Message, ServerContext};

    /// MODEL-7: a response's items read back; sent again before the
    /// assistant's own items, without ids.
    #[test]
    fn model_7_items_read_and_sent_back() {
        let body = json!({
            "id": "resp_1", "object": "response", "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc-r"},
                {"type": "compaction", "id": "cmp_1", "encrypted_content": "enc-c"},
                {"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "Reading.", "annotations": []}]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "Read", "arguments": "{\"path\":\"a.rs\"}"}
            ],
            "usage": {"input_tokens": 900, "input_tokens_details": {"cached_tokens": 512}, "output_tokens": 30}
        });
        let answer = parse_response(body.to_string().as_bytes()).unwrap();
        assert_eq!(answer.text, "Reading.");
        assert_eq!(
            answer.tool_calls,
            [ToolCall::new("call_1", "Read", json!({"path": "a.rs"}))]
        );
        assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
        assert_eq!(answer.usage.cached_input_tokens, Some(512));
        assert_eq!(answer.context_edits, [AppliedEdit::new(EditKind::Compaction)]);
        assert_eq!(answer.provider_items.len(), 2);

        let call = &answer.tool_calls[0];
        let request = LlmRequest::new(vec![
            Message::user("look"),
            answer.to_message(),
            Message::tool_text(&call.id, &call.name, "fn main() {}"),
        ])
        .with_server_context(ContextEdits::new(ServerContext::Compact, 120_000));
        let body = serde_json::to_value(super::body("gpt-5", &request, false)).unwrap();
        assert_eq!(
            body["input"],
            json!([
                {"role": "user", "content": "look"},
                {"type": "reasoning", "summary": [], "encrypted_content": "enc-r"},
                {"type": "compaction", "encrypted_content": "enc-c"},
                {"role": "assistant", "content": "Reading."},
                {"type": "function_call", "call_id": "call_1", "name": "Read", "arguments": "{\"path\":\"a.rs\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "fn main() {}"},
            ])
        );
        assert_eq!(
            body["context_management"],
            json!([{"type": "compaction", "compact_threshold": 120000}])
        );
        assert_eq!(body["store"], false);
    }

    #[test]
    fn cut_and_bad_answers() {
        let cut = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": []});
        assert_eq!(
            parse_response(cut.to_string().as_bytes()).unwrap().finish_reason,
            FinishReason::Length
        );
        assert!(parse_response(b"{}").is_err());
        assert!(parse_response(b"not json").is_err());
        let nameless = json!({"output": [{"type": "function_call", "call_id": "c"}]});
        assert!(parse_response(nameless.to_string().as_bytes()).is_err());
    }

    /// MODEL-3: errors in the stream are provider errors, data that is not
    /// JSON is an invalid answer, a cut answer says so, and nothing
    /// follows the end.
    #[test]
    fn model_3_streamed_errors_and_ends() {
        let mut d = ResponsesDecoder::default();
        let mut out = VecDeque::new();
        let failed = json!({"type": "response.failed", "response": {"status": "failed", "error": {"code": "server_error", "message": "The model crashed."}}});
        match d.decode(&failed.to_string(), &mut out) {
            Err(strata_ctx_core::LlmError::Provider { message, .. }) => {
                assert_eq!(message, "The model crashed.")
            }
            other => panic!("{other:?}"),
        }
        let error = json!({"type": "error", "code": "rate_limit_exceeded", "message": "Slow down."});
        assert!(matches!(
            d.decode(&error.to_string(), &mut out),
            Err(strata_ctx_core::LlmError::Provider { message, .. }) if message == "Slow down."
        ));
        assert!(matches!(
            d.decode("{not json", &mut out),
            Err(strata_ctx_core::LlmError::InvalidResponse { .. })
        ));

        let mut d = ResponsesDecoder::default();
        let cut = json!({"type": "response.incomplete", "response": {"status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"}, "usage": {"input_tokens": 5, "output_tokens": 9}}});
        d.decode(&cut.to_string(), &mut out).unwrap();
        assert!(d.is_done());
        assert!(matches!(
            out.back(),
            Some(StreamEvent::Done {
                finish_reason: FinishReason::Length
            })
        ));
        let before = out.len();
        d.decode(
            &json!({"type": "response.output_text.delta", "delta": "late"}).to_string(),
            &mut out,
        )
        .unwrap();
        assert_eq!(out.len(), before, "nothing after the end");
    }

    /// A call whose `added` event never came is taken whole from its done
    /// item; a compaction item is an applied edit and a provider item.
    #[test]
    fn model_7_streamed_items_without_their_start() {
        let mut d = ResponsesDecoder::default();
        let mut out = VecDeque::new();
        let call = json!({"type": "response.output_item.done", "output_index": 4,
            "item": {"type": "function_call", "call_id": "c1", "name": "Bash", "arguments": "{\"cmd\":\"ls\"}"}});
        d.decode(&call.to_string(), &mut out).unwrap();
        let compaction = json!({"type": "response.output_item.done", "output_index": 5,
            "item": {"type": "compaction", "id": "cmp_1", "encrypted_content": "enc"}});
        d.decode(&compaction.to_string(), &mut out).unwrap();
        let events: Vec<StreamEvent> = out.into_iter().collect();
        assert_eq!(
            events[0],
            StreamEvent::ToolCallFinished {
                index: 0,
                call: ToolCall::new("c1", "Bash", json!({"cmd": "ls"}))
            }
        );
        assert_eq!(
            events[1],
            StreamEvent::ContextEdited(vec![AppliedEdit::new(EditKind::Compaction)])
        );
        assert!(matches!(&events[2], StreamEvent::ProviderItem(item) if item.item["id"] == "cmp_1"));
        let nameless = json!({"type": "response.output_item.done", "output_index": 6, "item": {"type": "function_call", "call_id": "c2"}});
        assert!(d.decode(&nameless.to_string(), &mut VecDeque::new()).is_err());
    }
}

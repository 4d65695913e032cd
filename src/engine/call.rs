//! Calling the model with the window (REACT-4, HIST-12): tools in native
//! mode (MODEL-1), streaming (MODEL-3) and continuation of cut answers
//! (MODEL-4), the provider's count of the window (MODEL-8), and the usage
//! and cost of each call (REACT-4, MODEL-5).

use crate::cost::Cost;
use strata_ctx_core::{
    CountTokens, LlmClient, LlmError, LlmOptions, LlmRequest, LlmResponse, StreamEvent, Usage,
};

use super::{Engine, EngineError};
use crate::event::Event;

/// How many times a cut answer is continued by default (MODEL-4).
pub const DEFAULT_MAX_CONTINUATIONS: u32 = 2;

/// What [`Engine::count_window`] found (MODEL-8).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WindowCount {
    /// The window's tokens: the provider's count, or the local estimate
    /// when the provider could not be asked.
    pub tokens: usize,
    /// Whether `tokens` is the provider's count.
    pub exact: bool,
    /// Why the provider could not count, when it could not.
    pub error: Option<LlmError>,
}

impl Engine {
    /// What the model calls recorded so far cost, when the engine knows
    /// the model's price ([`EngineBuilder::price`](crate::EngineBuilder::price)): the last call, the
    /// round and every call since the engine was built (MODEL-5).
    pub fn cost(&self) -> Option<Cost> {
        self.calls.cost()
    }

    /// Records the usage the provider reported for the last window sent
    /// (REACT-4): from now on the window's size is that figure plus the
    /// estimate of what was added since.
    ///
    /// A usage of 0 input tokens (a provider that reports none) is not a
    /// measurement and leaves the estimate to the token counter.
    pub fn record_usage(&mut self, usage: Usage) {
        self.emit(Event::UsageRecorded(usage));
        if let Some(cost) = self.calls.add_usage(&usage) {
            self.emit(Event::CostRecorded(cost));
        }
        if usage.input_tokens == 0 {
            return;
        }
        let at = self.calls.last_counted().unwrap_or_else(|| self.counted());
        self.history.record_usage_at(usage, at);
        // Persisting usage can wait for the next step's append.
    }

    /// The window's tokens as the provider counts them (MODEL-8): the
    /// request [`Engine::complete`] would send now goes to `counter`'s
    /// token-counting endpoint, and its count anchors the engine's
    /// estimate as a recorded usage does (without a cost). Offline, or
    /// when the endpoint fails, the local estimate is returned with the
    /// error and nothing changes.
    pub async fn count_window(&mut self, counter: &dyn CountTokens, options: LlmOptions) -> WindowCount {
        let window = self.window();
        let request = LlmRequest::new(window.messages())
            .with_tools(self.layers.system().request_tools().to_vec())
            .with_options(options);
        match counter.count_tokens(&request).await {
            Ok(tokens) => {
                let at = self.calls.last_counted().unwrap_or_else(|| self.counted());
                self.history.record_usage_at(Usage::new(tokens, 0), at);
                WindowCount {
                    tokens: self.window_tokens(),
                    exact: true,
                    error: None,
                }
            }
            Err(e) => WindowCount {
                tokens: window.tokens,
                exact: false,
                error: Some(e),
            },
        }
    }

    /// Sends the window to `client` and returns the model's answer, with
    /// the usage it reports recorded (REACT-4).
    ///
    /// - In native mode ([`ToolMode::Native`](crate::ToolMode::Native))
    ///   the request carries the tools (MODEL-1).
    /// - When the model rejects the request as too long, the engine
    ///   compacts at once and sends the smaller window again (HIST-12); a
    ///   second rejection is an error, never a loop.
    /// - When the answer is cut at the token limit, the engine asks the
    ///   model to continue it, up to
    ///   [`EngineBuilder::max_continuations`](crate::EngineBuilder::max_continuations)
    ///   times, and joins the parts ([`LlmResponse::join`]); each
    ///   continuation is an [`Event::Continued`] (MODEL-4).
    /// - When context management is delegated to the provider
    ///   ([`Config::server_context`](strata_ctx_core::Config::server_context)),
    ///   the request asks for it ([`Engine::server_context`]); the edits the
    ///   answer reports are an [`Event::ServerContextEdited`] and add to
    ///   [`Engine::server_context_stats`]. Compaction items stay on the
    ///   answer, for [`LlmResponse::to_message`] to record (MODEL-7).
    ///
    /// Nothing of the answer is recorded: pass it to
    /// [`Engine::record_step`] or [`Engine::finish_round`]
    /// ([`LlmResponse::to_message`] gives the assistant message).
    ///
    /// # Errors
    ///
    /// [`EngineError::Model`] when the call fails (with
    /// [`LlmError::StillCut`] when the answer is still cut after the
    /// continuations), [`EngineError::StillTooLong`] when the model
    /// rejects the compacted window too,
    /// [`EngineError::ServerContextUnsupported`] when delegation is on and
    /// `client` does not offer it.
    pub async fn complete(
        &mut self,
        client: &dyn LlmClient,
        options: LlmOptions,
    ) -> Result<LlmResponse, EngineError> {
        self.call(client, options, None).await
    }

    /// As [`Engine::complete`], streaming (MODEL-3): each event of the
    /// answer goes to `on_event` as it arrives (the deltas of every
    /// continuation included; the `Done` of a part that is continued is
    /// not passed on), and the assembled answer is returned at the end.
    ///
    /// Cancel-safe: dropping the future stops the stream and records
    /// nothing, not even the usage.
    ///
    /// # Errors
    ///
    /// As [`Engine::complete`]; a stream that breaks off is
    /// [`EngineError::Model`] with [`LlmError::StreamCut`].
    pub async fn complete_streaming(
        &mut self,
        client: &dyn LlmClient,
        options: LlmOptions,
        mut on_event: impl FnMut(&StreamEvent) + Send,
    ) -> Result<LlmResponse, EngineError> {
        self.call(client, options, Some(&mut on_event)).await
    }

    async fn call(
        &mut self,
        client: &dyn LlmClient,
        options: LlmOptions,
        mut on_event: Option<&mut (dyn FnMut(&StreamEvent) + Send)>,
    ) -> Result<LlmResponse, EngineError> {
        let server_context = self.server_edits_for(client)?;
        let mut overflowed = false;
        let mut answer: Option<LlmResponse> = None;
        let mut continuations = 0;
        loop {
            let window = self.window();
            let messages = window.messages();
            let messages = match &answer {
                Some(partial) => partial.continuation_of(&messages),
                None => messages,
            };
            let mut request = LlmRequest::new(messages)
                .with_tools(self.layers.system().request_tools().to_vec())
                .with_options(options.clone());
            request.server_context = server_context.clone();
            #[cfg(feature = "tracing")]
            let span = crate::trace::call_span(&request.options, &client.endpoint());
            let call = async {
                match on_event.as_deref_mut() {
                    Some(sink) => stream_part(client, request, sink).await,
                    None => client.complete(request).await,
                }
            };
            #[cfg(feature = "tracing")]
            let call = tracing::Instrument::instrument(call, span.clone());
            let part = call.await;
            #[cfg(feature = "tracing")]
            if let Ok(answer) = &part {
                crate::trace::answered(&span, answer);
            }
            let part = match part {
                Ok(part) => part,
                Err(e) if e.is_context_too_long() && answer.is_none() => {
                    if overflowed {
                        return Err(EngineError::StillTooLong {
                            tokens: self.window_tokens(),
                        });
                    }
                    overflowed = true;
                    self.handle_overflow().await?;
                    continue;
                }
                Err(e) => return Err(EngineError::Model(e)),
            };
            let joined = match answer.take() {
                Some(mut so_far) => {
                    so_far.join(part);
                    so_far
                }
                None => part,
            };
            if !joined.finish_reason.is_cut() {
                self.note_edits(&joined.context_edits);
                self.record_usage(joined.usage);
                if let Some(sink) = on_event {
                    sink(&StreamEvent::Done {
                        finish_reason: joined.finish_reason.clone(),
                    });
                }
                return Ok(joined);
            }
            if continuations >= self.calls.max_continuations {
                return Err(EngineError::Model(LlmError::StillCut { continuations }));
            }
            continuations += 1;
            self.emit(Event::Continued {
                continuation: continuations,
                text_bytes: joined.text.len(),
                calls: joined.tool_calls.len(),
            });
            answer = Some(joined);
        }
    }
}

/// Streams one part of an answer to `sink`, holding back its `Done` (the
/// caller sends the last one), and returns it assembled.
async fn stream_part(
    client: &dyn LlmClient,
    request: LlmRequest,
    sink: &mut (dyn FnMut(&StreamEvent) + Send),
) -> Result<LlmResponse, LlmError> {
    let mut stream = client.stream(request).await?;
    while let Some(event) = stream.next().await {
        let event = event?;
        if !matches!(event, StreamEvent::Done { .. }) {
            sink(&event);
        }
    }
    stream.finish().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use strata_ctx_core::{FinishReason, ToolSpec, Usage};
    use strata_ctx_prompt::ToolMode;
    use strata_ctx_testkit::ScriptedClient;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
    }

    /// MODEL-1: native mode sends the tools; MODEL-4: with no
    /// continuation allowed, a cut answer is `StillCut` at once; REACT-4:
    /// a complete answer's usage is recorded.
    #[test]
    fn model_1_and_4_request_and_bound() {
        let dir = tempfile::tempdir().unwrap();
        let tool = ToolSpec::new("Read", "Reads.", serde_json::Value::Null);
        let mut e = Engine::builder(dir.path())
            .tool_mode(ToolMode::Native)
            .tools(vec![tool.clone()])
            .max_continuations(0)
            .build()
            .unwrap();
        let client = ScriptedClient::new();
        client.push(
            Duration::ZERO,
            Ok(LlmResponse::new("cut", Usage::new(10, 1)).with_finish_reason(FinishReason::Length)),
        );
        client.push_text_with_usage("whole", Usage::new(777, 2));
        block_on(async {
            e.begin_round("go").await.unwrap();
            let err = e.complete(&client, LlmOptions::new()).await.unwrap_err();
            assert!(
                matches!(err, EngineError::Model(LlmError::StillCut { continuations: 0 })),
                "{err}"
            );
            let answer = e.complete(&client, LlmOptions::new()).await.unwrap();
            assert_eq!(answer.text, "whole");
        });
        let requests = client.requests();
        assert_eq!(requests[0].tools, vec![tool]);
        assert_eq!(e.window_tokens(), 777, "the usage anchors the estimate");
    }
}

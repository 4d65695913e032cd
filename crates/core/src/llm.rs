//! The LLM client trait (CORE-6).

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::LlmResult as Result;
use crate::message::{Message, ThinkingBlock, ToolCall};
use crate::server::{AppliedEdit, ContextEdits, ProviderItem, ServerContext};
use crate::stream::LlmStream;
use crate::tool::{ToolChoice, ToolSpec};

/// Options of one model call. Every field is optional; a client fills what
/// is missing from its own settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LlmOptions {
    /// The model to use. By default, the client's model.
    pub model: Option<String>,
    /// The most tokens the answer may have.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// How long the call may take before it fails with
    /// [`LlmError::Timeout`](crate::LlmError::Timeout).
    pub timeout: Option<Duration>,
    /// Whether and which tool the model must call, when the request
    /// carries tools. By default, the provider's (`auto`).
    pub tool_choice: Option<ToolChoice>,
}

impl LlmOptions {
    /// Options with nothing set.
    pub fn new() -> Self {
        LlmOptions::default()
    }

    /// Sets the model. By default, the client's model.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets the answer's token limit. By default, the provider's.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets the temperature. By default, the provider's.
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets the time limit. By default, the client's.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the tool choice. By default, the provider's (`auto`).
    pub fn with_tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }
}

/// One model call: the messages to send, the tools offered and the
/// options.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LlmRequest {
    /// The window, in order.
    pub messages: Vec<Message>,
    /// The tools the model may call natively (MODEL-1): clients send them
    /// in their provider's `tools` field. Empty in ReAct mode, where L1
    /// describes the tools in text.
    pub tools: Vec<ToolSpec>,
    /// The call's options.
    pub options: LlmOptions,
    /// The context management the provider is asked to do on its side
    /// (MODEL-7); `None` asks for none. Clients that do not offer it
    /// ignore it (see [`LlmClient::manages_context`]).
    pub server_context: Option<ContextEdits>,
}

impl LlmRequest {
    /// A request to send `messages` with no tools and default options.
    pub fn new(messages: Vec<Message>) -> Self {
        LlmRequest {
            messages,
            tools: Vec::new(),
            options: LlmOptions::default(),
            server_context: None,
        }
    }

    /// Sets the tools offered for native calling. By default, none.
    pub fn with_tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = tools;
        self
    }

    /// Sets the options. By default, none is set.
    pub fn with_options(mut self, options: LlmOptions) -> Self {
        self.options = options;
        self
    }

    /// Asks the provider to manage the context on its side (MODEL-7). By
    /// default, it is not asked.
    pub fn with_server_context(mut self, edits: ContextEdits) -> Self {
        self.server_context = Some(edits);
        self
    }
}

/// Token figures the provider reports for one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the request, as the provider counted them: the exact size
    /// of the window that was sent (REACT-4).
    pub input_tokens: u64,
    /// Tokens of the answer.
    pub output_tokens: u64,
    /// The part of `input_tokens` served from the provider's prompt cache,
    /// when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// The part of `input_tokens` written to the provider's prompt cache,
    /// when it says (Anthropic's `cache_creation_input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
}

impl Usage {
    /// Usage with these input and output counts and no cache figure.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Usage {
            input_tokens,
            output_tokens,
            cached_input_tokens: None,
            cache_write_tokens: None,
        }
    }
}

/// Why the model stopped writing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishReason {
    /// The answer is complete (OpenAI `stop`, Anthropic `end_turn` or
    /// `stop_sequence`).
    #[default]
    Stop,
    /// The answer was cut at the token limit (OpenAI `length`, Anthropic
    /// `max_tokens`): continue it (MODEL-4).
    Length,
    /// The model called tools (OpenAI `tool_calls`, Anthropic `tool_use`).
    ToolCalls,
    /// The provider withheld the answer (OpenAI `content_filter`,
    /// Anthropic `refusal`).
    ContentFilter,
    /// Anything else, as the provider wrote it.
    Other(String),
}

impl FinishReason {
    /// Reads a provider's finish or stop reason.
    ///
    /// ```
    /// use strata_ctx_core::FinishReason;
    ///
    /// assert_eq!(FinishReason::parse("max_tokens"), FinishReason::Length);
    /// assert_eq!(FinishReason::parse("tool_use"), FinishReason::ToolCalls);
    /// assert_eq!(FinishReason::parse("pause_turn"), FinishReason::Other("pause_turn".into()));
    /// ```
    pub fn parse(reason: &str) -> Self {
        match reason {
            "stop" | "end_turn" | "stop_sequence" => FinishReason::Stop,
            "length" | "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
            "tool_calls" | "tool_use" | "function_call" => FinishReason::ToolCalls,
            "content_filter" | "refusal" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_owned()),
        }
    }

    /// Returns `true` when the answer was cut at the token limit.
    pub fn is_cut(&self) -> bool {
        *self == FinishReason::Length
    }

    /// The reason as the OpenTelemetry GenAI conventions and OpenAI write
    /// it: `stop`, `length`, `tool_calls`, `content_filter`, or the
    /// provider's own word.
    ///
    /// ```
    /// use strata_ctx_core::FinishReason;
    /// assert_eq!(FinishReason::parse("end_turn").as_str(), "stop");
    /// assert_eq!(FinishReason::parse("tool_use").as_str(), "tool_calls");
    /// assert_eq!(FinishReason::parse("pause_turn").as_str(), "pause_turn");
    /// ```
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Other(other) => other,
        }
    }
}

/// The answer of one model call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LlmResponse {
    /// The answer's text (may be empty when the model only calls tools).
    pub text: String,
    /// Native tool calls, for providers that return them.
    pub tool_calls: Vec<ToolCall>,
    /// The model's reasoning blocks, for providers that return them.
    pub thinking: Vec<ThinkingBlock>,
    /// The provider's token figures.
    pub usage: Usage,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// The context edits the provider applied to the request before the
    /// model read it (MODEL-7), in the provider's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context_edits: Vec<AppliedEdit>,
    /// What the provider returned that it requires back verbatim
    /// (MODEL-7): compaction blocks or items, reasoning items.
    /// [`LlmResponse::to_message`] keeps them on the assistant message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provider_items: Vec<ProviderItem>,
}

impl LlmResponse {
    /// A complete text answer with its usage.
    pub fn new(text: impl Into<String>, usage: Usage) -> Self {
        LlmResponse {
            text: text.into(),
            tool_calls: Vec::new(),
            thinking: Vec::new(),
            usage,
            finish_reason: FinishReason::Stop,
            context_edits: Vec::new(),
            provider_items: Vec::new(),
        }
    }

    /// Sets the native tool calls. By default, there are none.
    pub fn with_tool_calls(mut self, calls: Vec<ToolCall>) -> Self {
        self.tool_calls = calls;
        self
    }

    /// Sets the reasoning blocks. By default, there are none.
    pub fn with_thinking(mut self, thinking: Vec<ThinkingBlock>) -> Self {
        self.thinking = thinking;
        self
    }

    /// Sets the applied context edits (MODEL-7). By default, there are
    /// none.
    pub fn with_context_edits(mut self, edits: Vec<AppliedEdit>) -> Self {
        self.context_edits = edits;
        self
    }

    /// Sets the items to send back verbatim (MODEL-7). By default, there
    /// are none.
    pub fn with_provider_items(mut self, items: Vec<ProviderItem>) -> Self {
        self.provider_items = items;
        self
    }

    /// Sets the finish reason. By default, [`FinishReason::Stop`].
    pub fn with_finish_reason(mut self, reason: FinishReason) -> Self {
        self.finish_reason = reason;
        self
    }

    /// Joins the continuation `next` of this cut answer (MODEL-4): the
    /// texts are concatenated; the calls completed before the cut are
    /// kept; a call cut in its arguments is replaced by the
    /// continuation's first call when that calls the same tool (the model
    /// wrote it again whole), and kept as it is otherwise, so nothing is
    /// dropped; reasoning blocks are appended; usage adds up (output
    /// tokens summed, input the latest); the finish reason is the
    /// continuation's.
    ///
    /// ```
    /// use serde_json::json;
    /// use strata_ctx_core::{FinishReason, LlmResponse, ToolCall, Usage};
    ///
    /// let mut answer = LlmResponse::new("The fix is to ", Usage::new(100, 4))
    ///     .with_finish_reason(FinishReason::Length);
    /// answer.join(LlmResponse::new("check the index.", Usage::new(104, 3)));
    /// assert_eq!(answer.text, "The fix is to check the index.");
    /// assert_eq!(answer.usage, Usage::new(104, 7));
    /// assert_eq!(answer.finish_reason, FinishReason::Stop);
    /// ```
    pub fn join(&mut self, next: LlmResponse) {
        self.text.push_str(&next.text);
        let mut calls = next.tool_calls.into_iter().peekable();
        if let Some(cut) = self.tool_calls.last() {
            let is_cut =
                matches!(&*cut.arguments, Value::String(s) if serde_json::from_str::<Value>(s).is_err());
            if is_cut && calls.peek().is_some_and(|c| c.name == cut.name) {
                self.tool_calls.pop();
            }
        }
        self.tool_calls.extend(calls);
        self.thinking.extend(next.thinking);
        self.context_edits.extend(next.context_edits);
        self.provider_items.extend(next.provider_items);
        self.usage = Usage {
            input_tokens: next.usage.input_tokens.max(self.usage.input_tokens),
            output_tokens: self.usage.output_tokens + next.usage.output_tokens,
            cached_input_tokens: next.usage.cached_input_tokens.or(self.usage.cached_input_tokens),
            cache_write_tokens: next.usage.cache_write_tokens.or(self.usage.cache_write_tokens),
        };
        self.finish_reason = next.finish_reason;
    }

    /// The messages of the request that continues this cut answer
    /// (MODEL-4): `messages` and then the answer so far as an assistant
    /// message (its text and reasoning, without calls, which the API
    /// would want answered), for the model to carry on from.
    pub fn continuation_of(&self, messages: &[Message]) -> Vec<Message> {
        let mut out = messages.to_vec();
        let mut partial = Message::assistant(self.text.trim_end());
        partial.thinking = self.thinking.clone();
        partial.provider_items = self.provider_items.clone();
        partial.created_at = None;
        out.push(partial);
        out
    }

    /// The answer as the assistant message to record: the text (the
    /// thought, when there are calls), the native calls, the reasoning and
    /// the items the provider requires back (MODEL-7).
    pub fn to_message(&self) -> Message {
        let mut message = Message::assistant_with_calls(self.text.clone(), self.tool_calls.clone());
        message.thinking = self.thinking.clone();
        message.provider_items = self.provider_items.clone();
        message
    }
}

/// Who answers a client's requests: the provider, the endpoint and the
/// model used when a request names none ([`LlmClient::endpoint`]). A
/// response cache keys its answers by it (MODEL-6), so two clients that
/// would answer differently never share an answer, and telemetry reports
/// it (`gen_ai.provider.name`, `gen_ai.request.model`).
///
/// ```
/// use strata_ctx_core::Endpoint;
///
/// let e = Endpoint::new("openai", "https://api.openai.com/v1/chat/completions", "gpt-4o-mini");
/// assert_eq!(e.provider.as_deref(), Some("openai"));
/// assert_eq!(Endpoint::default().model, None, "nothing known");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Endpoint {
    /// The provider, as the OpenTelemetry GenAI conventions name it
    /// (`openai`, `anthropic`, …).
    pub provider: Option<String>,
    /// Where requests go (the URL of the endpoint).
    pub url: Option<String>,
    /// The model a request that names none is answered by.
    pub model: Option<String>,
}

impl Endpoint {
    /// An endpoint whose provider, URL and default model are known.
    pub fn new(provider: impl Into<String>, url: impl Into<String>, model: impl Into<String>) -> Self {
        Endpoint {
            provider: Some(provider.into()),
            url: Some(url.into()),
            model: Some(model.into()),
        }
    }

    /// Whether nothing is known of it.
    pub fn is_unknown(&self) -> bool {
        self.provider.is_none() && self.url.is_none() && self.model.is_none()
    }
}

/// A chat model (CORE-6).
///
/// Implementations send the request and return the answer with the
/// provider's usage figures. They report failures with the matching
/// [`LlmError`](crate::LlmError) variant, because callers act on the kind:
///
/// - [`LlmError::ContextTooLong`](crate::LlmError::ContextTooLong) when the
///   provider says the input is larger than the model's window: the engine
///   then compacts and retries once (HIST-12);
/// - [`LlmError::Timeout`](crate::LlmError::Timeout) when the call took longer
///   than [`LlmOptions::timeout`] (or the client's own limit);
/// - [`LlmError::RateLimited`](crate::LlmError::RateLimited) on a 429 that the
///   client's own retries did not overcome;
/// - [`LlmError::Provider`](crate::LlmError::Provider) for any other error answer,
///   and [`LlmError::InvalidResponse`](crate::LlmError::InvalidResponse) for an
///   answer that cannot be read.
///
/// The trait is object safe (`Arc<dyn LlmClient>` is the usual way to share
/// one); `&T`, `Box<T>` and `Arc<T>` forward to `T`.
#[async_trait]
pub trait LlmClient: Send + Sync {
    /// Sends `request` and returns the answer.
    ///
    /// # Errors
    ///
    /// See the trait's documentation for which variant means what.
    async fn complete(&self, request: LlmRequest) -> Result<LlmResponse>;

    /// Sends `request` and returns the answer as a stream of events
    /// (MODEL-3), assembled into the same [`LlmResponse`] as
    /// [`LlmClient::complete`] gives by [`LlmStream::finish`].
    ///
    /// By default, the client completes the request and replays the
    /// answer as events; streaming clients override it.
    ///
    /// # Errors
    ///
    /// As [`LlmClient::complete`], for what fails before the first event;
    /// later failures come out of the stream.
    async fn stream(&self, request: LlmRequest) -> Result<LlmStream> {
        Ok(LlmStream::from_response(self.complete(request).await?))
    }

    /// Whether the client sends `mode` of server-side context management
    /// to its provider (MODEL-7) when a request asks for it. By default,
    /// only [`ServerContext::Off`]: a client that does not override this
    /// ignores [`LlmRequest::server_context`].
    fn manages_context(&self, mode: ServerContext) -> bool {
        !mode.is_on()
    }

    /// Who answers: the provider, the endpoint and the default model
    /// ([`Endpoint`]). By default, nothing is known; the provided clients
    /// say, and a client of your own should, so that a shared response
    /// cache keeps its answers apart from another client's.
    fn endpoint(&self) -> Endpoint {
        Endpoint::default()
    }
}

crate::forward::forward_impls!(LlmClient sync {
    fn manages_context(&self, mode: ServerContext) -> bool;
    fn endpoint(&self) -> Endpoint;
} async {
    async fn complete(&self, request: LlmRequest) -> Result<LlmResponse>;
    async fn stream(&self, request: LlmRequest) -> Result<LlmStream>;
});

/// A provider's token-counting endpoint (MODEL-8): the exact input tokens
/// of a request, as the provider will count them, without running the
/// model. Anthropic's `/v1/messages/count_tokens` and OpenAI's
/// `/responses/input_tokens` implement it through their clients;
/// `Engine::count_window` asks it and falls back to the local estimate
/// when it cannot be reached.
///
/// The trait is object safe; `&T`, `Box<T>` and `Arc<T>` forward to `T`.
#[async_trait]
pub trait CountTokens: Send + Sync {
    /// The input tokens of `request`.
    ///
    /// # Errors
    ///
    /// As [`LlmClient::complete`]: the endpoint failed, could not be
    /// reached, or answered with something else than a count.
    async fn count_tokens(&self, request: &LlmRequest) -> Result<u64>;
}

crate::forward::forward_impls!(CountTokens async {
    async fn count_tokens(&self, request: &LlmRequest) -> Result<u64>;
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::LlmError;
    use std::sync::Arc;

    struct Echo;

    #[async_trait]
    impl LlmClient for Echo {
        async fn complete(&self, request: LlmRequest) -> Result<LlmResponse> {
            match request.messages.last() {
                Some(m) => Ok(LlmResponse::new(
                    m.content.clone(),
                    Usage::new(request.messages.len() as u64, 1),
                )),
                None => Err(LlmError::InvalidResponse {
                    message: "nothing to answer".into(),
                }),
            }
        }
    }

    fn _obj(_: &dyn LlmClient) {}

    #[tokio::test]
    async fn core_6_object_safe_and_forwarding() {
        _obj(&Echo);
        let shared: Arc<dyn LlmClient> = Arc::new(Echo);
        let boxed: Box<dyn LlmClient> = Box::new(Echo);
        let req = LlmRequest::new(vec![Message::user("ping")]);
        let a = shared.complete(req.clone()).await.unwrap();
        let b = boxed.complete(req.clone()).await.unwrap();
        let c = <&Echo as LlmClient>::complete(&&Echo, req).await.unwrap();
        assert_eq!(a.text, "ping");
        assert_eq!(a, b);
        assert_eq!(b, c);
        assert_eq!(a.usage, Usage::new(1, 1));
        assert!(shared.complete(LlmRequest::new(vec![])).await.is_err());
    }

    /// MODEL-4: a call cut in its arguments is replaced by the model's
    /// rewrite of it; kept when the continuation calls something else.
    #[test]
    fn model_4_join_replaces_a_cut_call() {
        let cut = |args: &str| {
            LlmResponse::new("Writing.", Usage::new(10, 5))
                .with_tool_calls(vec![
                    ToolCall::new("a", "Read", serde_json::json!({"path": "x"})),
                    ToolCall::new("b", "Write", Value::String(args.into())),
                ])
                .with_finish_reason(FinishReason::Length)
        };
        let mut answer = cut("{\"path\": \"y\", \"content\": \"lo");
        answer.join(
            LlmResponse::new("", Usage::new(12, 9))
                .with_tool_calls(vec![ToolCall::new(
                    "c",
                    "Write",
                    serde_json::json!({"path": "y", "content": "long"}),
                )])
                .with_finish_reason(FinishReason::ToolCalls),
        );
        let names: Vec<&str> = answer.tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(answer.usage, Usage::new(12, 14));
        assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
        let mut answer = cut("{\"pa");
        answer.join(LlmResponse::new(" and done.", Usage::new(12, 2)));
        assert_eq!(answer.tool_calls.len(), 2, "nothing dropped");
        assert_eq!(answer.text, "Writing. and done.");
        let next = answer.continuation_of(&[Message::user("go")]);
        assert_eq!(
            next.last().map(|m| (m.role, m.tool_calls.len())),
            Some((crate::Role::Assistant, 0))
        );
    }

    #[test]
    fn errors_classify() {
        assert!(LlmError::ContextTooLong { message: "x".into() }.is_context_too_long());
        assert!(LlmError::Timeout {
            after: Duration::from_secs(1)
        }
        .is_retryable());
        assert!(LlmError::Provider {
            status: Some(503),
            message: "busy".into()
        }
        .is_retryable());
        assert!(!LlmError::Provider {
            status: Some(400),
            message: "bad".into()
        }
        .is_retryable());
        assert_eq!(
            LlmError::Provider {
                status: Some(400),
                message: "bad".into()
            }
            .to_string(),
            "the model provider failed with status 400: bad"
        );
    }
}

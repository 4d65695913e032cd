//! An [`LlmClient`] for the Anthropic Messages API (MODEL-2).
//!
//! [`AnthropicClient`] sends a request's messages as a Messages body
//! (rendered by [`strata_ctx_prompt::anthropic_messages`]): L1 and L2 as
//! `system` blocks with a `cache_control` breakpoint at the end of the
//! stable prefix (CTX-3) and, by default, a second one on the last block of
//! the conversation so that the next call reads it from the cache; tool
//! calls and results as `tool_use` / `tool_result` blocks (parallel calls
//! in one message, `is_error` on failed results); the round's thinking
//! blocks sent back as the API requires during a tool loop; tools with
//! their `input_schema` and `tool_choice` (MODEL-1).
//!
//! The answer's text, tool calls, thinking blocks (signed, or redacted),
//! stop reason and usage come back in an [`LlmResponse`]. Usage follows
//! Strata's meaning (REACT-4): `input_tokens` is the whole window, the
//! provider's `input_tokens` plus its cache reads and writes;
//! `cached_input_tokens` and `cache_write_tokens` are those parts.
//! [`LlmClient::stream`] streams the answer as server-sent events
//! (MODEL-3).
//!
//! Retries are [`strata_ctx_http`]'s, shared with the OpenAI client: 429, 529
//! (`overloaded_error`) and other 5xx answers and failed connections are
//! retried with exponential backoff and jitter, honouring `retry-after`.
//!
//! | The provider says | [`LlmError`](strata_ctx_core::LlmError) |
//! |---|---|
//! | 400/413 `prompt is too long` / `request_too_large` | [`LlmError::ContextTooLong`](strata_ctx_core::LlmError::ContextTooLong): the engine compacts and retries (HIST-12) |
//! | nothing within the time limit | [`LlmError::Timeout`](strata_ctx_core::LlmError::Timeout) |
//! | 429 after every retry | [`LlmError::RateLimited`](strata_ctx_core::LlmError::RateLimited) with the last `retry-after` |
//! | 401, 403, 404, other 4xx; 5xx and 529 after every retry | [`LlmError::Provider`](strata_ctx_core::LlmError::Provider) with the status and the message |
//! | 200 with a body that is not a message | [`LlmError::InvalidResponse`](strata_ctx_core::LlmError::InvalidResponse) |
//! | an `error` event inside a stream | the same variants, as for a status |
//! | a stream that breaks off before `message_stop` | [`LlmError::StreamCut`](strata_ctx_core::LlmError::StreamCut) |
//!
//! # Configuration
//!
//! In code with [`AnthropicClient::builder`], or from the environment with
//! [`AnthropicClient::from_env`]:
//!
//! | Variable | Meaning | Default |
//! |---|---|---|
//! | `ANTHROPIC_BASE_URL` | the API's base URL, without `/v1` | `https://api.anthropic.com` |
//! | `ANTHROPIC_API_KEY` | the key, sent as `x-api-key` | none |
//! | `STRATA_MODEL` (or `ANTHROPIC_MODEL`) | the model | required |
//!
//! # Example
//!
//! ```no_run
//! use strata_ctx_anthropic::AnthropicClient;
//! use strata_ctx_core::{LlmClient, LlmRequest, Message};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = AnthropicClient::builder()
//!     .api_key("sk-ant-...")
//!     .model("claude-sonnet-4-5")
//!     .max_tokens(4096)
//!     .build()?;
//! let answer = client.complete(LlmRequest::new(vec![Message::user("Say hi.")])).await?;
//! println!("{} ({} tokens in)", answer.text, answer.usage.input_tokens);
//! # Ok(())
//! # }
//! ```

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use strata_ctx_core::{
    CountTokens, Endpoint, FinishReason, LlmClient, LlmRequest, LlmResponse, LlmResult as Result, LlmStream,
    ServerContext, StreamEvent, ToolCallBuffer, ToolSpec, Usage,
};
use strata_ctx_http::{read_body, Retry, SseBody, SseEvents};
use strata_ctx_wire::anthropic;

mod answer;
mod context;
mod stream;
pub use answer::parse_message;
pub use context::{BETA_COMPACTION, BETA_CONTEXT_MANAGEMENT};
pub use stream::EventDecoder;

/// The environment variable holding the base URL.
pub const ENV_BASE_URL: &str = "ANTHROPIC_BASE_URL";
/// The environment variable holding the API key.
pub const ENV_API_KEY: &str = "ANTHROPIC_API_KEY";
/// The environment variable holding the model.
pub const ENV_MODEL: &str = "STRATA_MODEL";
/// The environment variable read for the model when [`ENV_MODEL`] is not
/// set.
pub const ENV_MODEL_FALLBACK: &str = "ANTHROPIC_MODEL";
/// Anthropic's base URL, the default.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version sent as `anthropic-version`.
pub const API_VERSION: &str = "2023-06-01";

/// A client for the Anthropic Messages API.
///
/// Cheap to clone (the connection pool is shared). The API key never
/// appears in its `Debug` output or in errors.
#[derive(Clone)]
pub struct AnthropicClient {
    http: reqwest::Client,
    endpoint: String,
    count_endpoint: String,
    headers: HeaderMap,
    model: String,
    max_tokens: u32,
    thinking_budget: Option<u32>,
    cache_conversation: bool,
    timeout: Duration,
    retry: Retry,
}

/// Configures an [`AnthropicClient`]; see [`AnthropicClient::builder`].
#[derive(Clone)]
pub struct AnthropicClientBuilder {
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    max_tokens: u32,
    thinking_budget: Option<u32>,
    cache_conversation: bool,
    betas: Vec<String>,
    timeout: Duration,
    retry: Retry,
}

impl AnthropicClient {
    /// A builder with the defaults: Anthropic's base URL, no key, no
    /// model (required), 4,096 answer tokens, no extended thinking, the
    /// conversation cached, a 120 s time limit per attempt, 3 retries with
    /// backoff from 500 ms doubling up to 20 s, and `retry-after` waits of
    /// up to 60 s honoured.
    pub fn builder() -> AnthropicClientBuilder {
        AnthropicClientBuilder {
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: None,
            model: None,
            max_tokens: 4096,
            thinking_budget: None,
            cache_conversation: true,
            betas: Vec::new(),
            timeout: Duration::from_secs(120),
            retry: Retry::default(),
        }
    }

    /// A client configured from the environment ([`ENV_BASE_URL`],
    /// [`ENV_API_KEY`], [`ENV_MODEL`] or [`ENV_MODEL_FALLBACK`]), with the
    /// builder's other defaults.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`](strata_ctx_core::Error::InvalidConfig) naming the variable when the model is
    /// missing or a variable is not valid.
    pub fn from_env() -> Result<Self, strata_ctx_core::Error> {
        AnthropicClientBuilder::from_lookup(|name| std::env::var(name).ok())?.build()
    }

    /// The model used when a request names none.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The Messages URL requests are sent to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The request body (MODEL-2): model, answer limit, system blocks,
    /// messages, tools and tool choice, thinking, temperature,
    /// context management (MODEL-7), stream; as it is sent, typed
    /// (`serde_json::to_value` shows it as JSON).
    pub fn body<'a>(&'a self, request: &'a LlmRequest, stream: bool) -> anthropic::Request<'a> {
        let options = &request.options;
        let mut conversation = strata_ctx_prompt::anthropic_conversation(&request.messages);
        if self.cache_conversation {
            conversation.cache_through_last_block();
        }
        let thinking = self.thinking_for(&conversation);
        let model = options.model.as_deref().unwrap_or(&self.model);
        let mut body = anthropic::Request::new(model, conversation);
        body.max_tokens = Some(options.max_tokens.unwrap_or(self.max_tokens));
        if !request.tools.is_empty() {
            body.tools = request.tools.iter().map(anthropic::Tool::of).collect();
            body.tool_choice = options.tool_choice.as_ref().map(anthropic::ToolChoice::of);
        }
        match thinking {
            Some(budget) => body.thinking = Some(anthropic::Thinking::enabled(budget)),
            // The API refuses a temperature with thinking on.
            None => body.temperature = options.temperature,
        }
        body.context_management = self
            .context_management(request, thinking.is_some())
            .map(|(edits, _)| edits);
        body.stream = stream.then_some(true);
        body
    }

    /// The thinking budget of a request with `conversation`: the client's,
    /// unless the turn in progress began without thinking (another
    /// provider's model, or thinking off), which the API refuses to change
    /// within a turn.
    fn thinking_for(&self, conversation: &anthropic::Conversation<'_>) -> Option<u32> {
        self.thinking_budget.filter(|_| conversation.allows_thinking())
    }

    /// The request's `context_management` (MODEL-7) and its beta flags.
    fn context_management(
        &self,
        request: &LlmRequest,
        thinking: bool,
    ) -> Option<(anthropic::ContextManagement, Vec<&'static str>)> {
        let edits = request.server_context.as_ref()?;
        context::context_management(edits, thinking)
    }

    /// The client's headers, with the beta flags `request` needs.
    fn headers_for(&self, request: &LlmRequest) -> HeaderMap {
        // The flags do not depend on thinking.
        match self.context_management(request, false) {
            Some((_, betas)) => context::with_betas(&self.headers, &betas),
            None => self.headers.clone(),
        }
    }

    async fn send(&self, request: &LlmRequest, stream: bool) -> Result<(reqwest::Response, Duration)> {
        let timeout = request.options.timeout.unwrap_or(self.timeout);
        let body = to_json(&self.body(request, stream));
        let response = strata_ctx_http::send(
            &self.http,
            &self.endpoint,
            &self.headers_for(request),
            &body,
            timeout,
            &self.retry,
        )
        .await?;
        Ok((response, timeout))
    }
}

/// Tools as Messages API tools with `input_schema` (MODEL-1), in the order
/// given; byte-stable for the same specs.
pub fn anthropic_tools(tools: &[ToolSpec]) -> Value {
    serde_json::to_value(tools.iter().map(anthropic::Tool::of).collect::<Vec<_>>()).unwrap_or_default()
}

/// A typed body as JSON bytes (typed values always serialise).
fn to_json(body: &anthropic::Request<'_>) -> Vec<u8> {
    serde_json::to_vec(body).unwrap_or_default()
}

impl fmt::Debug for AnthropicClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnthropicClient")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("thinking_budget", &self.thinking_budget)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// `/v1/messages/count_tokens` (MODEL-8): the request's system, messages,
/// tools and thinking as [`LlmClient::complete`] would send them, without
/// the answer's settings; retried as the client retries.
#[async_trait]
impl CountTokens for AnthropicClient {
    async fn count_tokens(&self, request: &LlmRequest) -> Result<u64> {
        let timeout = request.options.timeout.unwrap_or(self.timeout);
        let mut body = self.body(request, false);
        body.max_tokens = None;
        body.temperature = None;
        body.context_management = None;
        strata_ctx_http::count_tokens(
            &self.http,
            &self.count_endpoint,
            &self.headers,
            &to_json(&body),
            timeout,
            &self.retry,
        )
        .await
    }
}

#[async_trait]
impl LlmClient for AnthropicClient {
    /// Sends the request, retrying rate limits, overloads, server errors
    /// and failed connections as configured.
    ///
    /// # Errors
    ///
    /// See the [crate documentation](crate) for which answer becomes which
    /// [`LlmError`](strata_ctx_core::LlmError).
    async fn complete(&self, request: LlmRequest) -> Result<LlmResponse> {
        let (response, timeout) = self.send(&request, false).await?;
        parse_message(&read_body(response, timeout).await?)
    }

    /// Streams the answer (MODEL-3); the time limit bounds the wait for
    /// the answer to start and each silence between chunks.
    ///
    /// # Errors
    ///
    /// As [`LlmClient::complete`] for what fails before the stream starts.
    async fn stream(&self, request: LlmRequest) -> Result<LlmStream> {
        let (response, timeout) = self.send(&request, true).await?;
        Ok(LlmStream::new(SseEvents::new(
            SseBody::new(response, timeout),
            EventDecoder::default(),
        )))
    }

    /// Every mode (MODEL-7): clearing with `clear_tool_uses_20250919`
    /// (and `clear_thinking_20251015` with extended thinking), compaction
    /// with `compact_20260112`, under their beta flags.
    fn manages_context(&self, _mode: ServerContext) -> bool {
        true
    }

    /// `anthropic`, the endpoint requests go to, and the builder's model.
    fn endpoint(&self) -> Endpoint {
        Endpoint::new("anthropic", self.endpoint.as_str(), self.model.as_str())
    }
}

impl AnthropicClientBuilder {
    /// A builder from the environment as read by `lookup`: [`ENV_BASE_URL`],
    /// [`ENV_API_KEY`], [`ENV_MODEL`] (or [`ENV_MODEL_FALLBACK`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`](strata_ctx_core::Error::InvalidConfig) naming `STRATA_MODEL` when no model is set.
    ///
    /// ```
    /// use strata_ctx_anthropic::AnthropicClientBuilder;
    ///
    /// let env = |name: &str| match name {
    ///     "ANTHROPIC_BASE_URL" => Some("http://127.0.0.1:8080/".to_owned()),
    ///     "ANTHROPIC_MODEL" => Some("claude-haiku-4-5".to_owned()),
    ///     _ => None,
    /// };
    /// let client = AnthropicClientBuilder::from_lookup(env)?.build()?;
    /// assert_eq!(client.endpoint(), "http://127.0.0.1:8080/v1/messages");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, strata_ctx_core::Error> {
        let set = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let mut builder = AnthropicClient::builder();
        if let Some(url) = set(ENV_BASE_URL) {
            builder = builder.base_url(url);
        }
        if let Some(key) = set(ENV_API_KEY) {
            builder = builder.api_key(key);
        }
        let model = set(ENV_MODEL)
            .or_else(|| set(ENV_MODEL_FALLBACK))
            .ok_or_else(|| strata_ctx_core::Error::InvalidConfig {
                field: ENV_MODEL.to_owned(),
                reason: "not set: name the model to call, e.g. STRATA_MODEL=claude-sonnet-4-5".to_owned(),
            })?;
        Ok(builder.model(model))
    }

    /// Sets the base URL, without `/v1`; requests go to
    /// `<base>/v1/messages`. By default, Anthropic's.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Sets the API key, sent as `x-api-key`. By default, none.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Sets the model used when a request names none. Required.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets the answer's token limit when a request sets none (the API
    /// requires one). By default, 4,096.
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = tokens;
        self
    }

    /// Turns extended thinking on with this token budget (less than the
    /// answer's limit). By default, off.
    pub fn thinking_budget(mut self, tokens: u32) -> Self {
        self.thinking_budget = Some(tokens);
        self
    }

    /// Sets whether the last block of the conversation gets a
    /// `cache_control` breakpoint besides the end of the stable prefix. By
    /// default, on.
    pub fn cache_conversation(mut self, on: bool) -> Self {
        self.cache_conversation = on;
        self
    }

    /// Adds a beta feature, sent in the `anthropic-beta` header.
    pub fn beta(mut self, name: impl Into<String>) -> Self {
        self.betas.push(name.into());
        self
    }

    /// Sets the time limit of one attempt, up to the end of the answer (or,
    /// streaming, up to its start and between chunks); a request's own
    /// [`LlmOptions::timeout`](strata_ctx_core::LlmOptions::timeout) wins. By
    /// default, 120 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets how many times a retryable failure is retried (0: never). By
    /// default, 3.
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.retry.max_retries = retries;
        self
    }

    /// Sets the backoff: the first wait and the most any wait may be. By
    /// default, 500 ms and 20 s.
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.retry.initial = initial;
        self.retry.max = max.max(initial);
        self
    }

    /// Sets the longest `retry-after` the client waits for. By default,
    /// 60 s.
    pub fn max_retry_after(mut self, max: Duration) -> Self {
        self.retry.max_retry_after = max;
        self
    }

    /// Builds the client.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`](strata_ctx_core::Error::InvalidConfig) when the model is missing, the base URL is
    /// not an `http(s)` URL, the key cannot be a header, or the TLS stack
    /// cannot be initialised.
    pub fn build(self) -> Result<AnthropicClient, strata_ctx_core::Error> {
        let config = |field: &str, reason: String| strata_ctx_core::Error::InvalidConfig {
            field: field.to_owned(),
            reason,
        };
        let model = self
            .model
            .filter(|m| !m.trim().is_empty())
            .ok_or_else(|| config("model", "no model set".to_owned()))?;
        let (base, http) = strata_ctx_http::client_for(
            &self.base_url,
            concat!("strata-ctx-anthropic/", env!("CARGO_PKG_VERSION")),
        )?;
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(API_VERSION),
        );
        if let Some(key) = &self.api_key {
            let mut value = HeaderValue::from_str(key).map_err(|_| {
                config(
                    "api_key",
                    "holds characters an HTTP header cannot carry".to_owned(),
                )
            })?;
            value.set_sensitive(true);
            headers.insert(HeaderName::from_static("x-api-key"), value);
        }
        if !self.betas.is_empty() {
            let value = HeaderValue::from_str(&self.betas.join(","))
                .map_err(|_| config("beta", "holds characters an HTTP header cannot carry".to_owned()))?;
            headers.insert(HeaderName::from_static("anthropic-beta"), value);
        }
        Ok(AnthropicClient {
            http,
            endpoint: format!("{base}/v1/messages"),
            count_endpoint: format!("{base}/v1/messages/count_tokens"),
            headers,
            model,
            max_tokens: self.max_tokens,
            thinking_budget: self.thinking_budget,
            cache_conversation: self.cache_conversation,
            timeout: self.timeout,
            retry: self.retry,
        })
    }
}

impl fmt::Debug for AnthropicClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnthropicClientBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::{LlmOptions, Message, ToolCall, ToolChoice, ToolResult};

    /// MODEL-2: the body's typed parts are written as the API names them.
    #[test]
    fn model_2_the_body_names_tools_choice_thinking_and_the_breakpoint() {
        let client = AnthropicClient::builder()
            .api_key("k")
            .model("claude-test")
            .thinking_budget(2_048)
            .cache_conversation(true)
            .build()
            .unwrap();
        let call = ToolCall::new("t1", "Read", json!({"path": "a.rs"}));
        let mut thought = Message::assistant_with_calls("", vec![call.clone()]);
        thought.thinking = vec![strata_ctx_core::ThinkingBlock::Thinking {
            thinking: "Read it first.".into(),
            signature: "sig".into(),
        }];
        let request = LlmRequest::new(vec![
            Message::system("Be brief."),
            Message::user("Read a.rs"),
            thought,
            Message::tool_result(&call, ToolResult::success("fn main() {}")),
        ])
        .with_tools(vec![ToolSpec::new("Read", "Reads a file.", Value::Null)])
        .with_options(
            LlmOptions::new()
                .with_tool_choice(ToolChoice::Tool("Read".into()))
                .with_temperature(0.5),
        );
        let body = serde_json::to_value(client.body(&request, false)).unwrap();
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 2048})
        );
        assert!(
            body.get("temperature").is_none(),
            "the API refuses one with thinking on"
        );
        assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "Read"}));
        assert_eq!(body["tools"][0]["name"], "Read");
        assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
        let last = &body["messages"][2]["content"][0];
        assert_eq!(last["type"], "tool_result");
        assert_eq!(last["cache_control"], json!({"type": "ephemeral"}));
        // The same turn begun without thinking (another provider's call):
        // thinking stays off until the next turn, and the temperature goes.
        let mut unthought = request.clone();
        unthought.messages[2].thinking.clear();
        let body = serde_json::to_value(client.body(&unthought, false)).unwrap();
        assert!(body.get("thinking").is_none(), "{body}");
        assert_eq!(body["temperature"], json!(0.5));
        let required = LlmOptions::new().with_tool_choice(ToolChoice::Required);
        let required = request.clone().with_options(required);
        let body = serde_json::to_value(client.body(&required, false)).unwrap();
        assert_eq!(body["tool_choice"], json!({"type": "any"}));
    }
}

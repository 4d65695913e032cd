//! An [`LlmClient`] for any OpenAI-compatible chat-completions endpoint
//! (EDGE-1): OpenAI itself, Azure-style gateways, vLLM, llama.cpp's server,
//! Ollama, LiteLLM, OpenRouter and the like.
//!
//! [`OpenAiClient`] sends a request's messages as chat-completions
//! `messages` (rendered by [`strata_ctx_prompt::openai_messages`]) and its
//! tools as function tools with `tool_choice` (MODEL-1), and returns the
//! answer's text, its native tool calls, its reasoning
//! (`reasoning_content`, as DeepSeek-style servers send it), the finish
//! reason and the provider's usage figures. [`LlmClient::stream`] streams
//! the answer as server-sent events (MODEL-3), with usage included
//! (`stream_options.include_usage`).
//!
//! Retries, backoff and the reading of error answers are
//! [`strata_ctx_http`]'s, shared with the Anthropic client: 429 answers
//! (honouring `Retry-After` and `retry-after-ms`), 5xx answers and failed
//! connections are retried with exponential backoff and jitter.
//! Everything else is reported at once with the [`LlmError`] variant callers
//! act on:
//!
//! | The provider says | [`LlmError`] |
//! |---|---|
//! | 400/413 with `context_length_exceeded`, or a message about the context length | [`LlmError::ContextTooLong`]: the engine compacts and retries (HIST-12) |
//! | nothing within the time limit | [`LlmError::Timeout`] |
//! | 429 after every retry | [`LlmError::RateLimited`] with the last `Retry-After` |
//! | 429 `insufficient_quota`, 401, 404, other 4xx, 5xx after every retry | [`LlmError::Provider`] with the status and the provider's message |
//! | 200 with a body that is not a chat completion | [`LlmError::InvalidResponse`] |
//! | a stream that breaks off before `[DONE]` | [`LlmError::StreamCut`] |
//!
//! # Configuration
//!
//! In code with [`OpenAiClient::builder`], or from the environment with
//! [`OpenAiClient::from_env`]:
//!
//! | Variable | Meaning | Default |
//! |---|---|---|
//! | `STRATA_OPENAI_BASE_URL` (or `OPENAI_BASE_URL`) | the API's base URL, up to `/v1` | `https://api.openai.com/v1` |
//! | `STRATA_OPENAI_API_KEY` (or `OPENAI_API_KEY`) | the bearer token | none (no `Authorization` header) |
//! | `STRATA_MODEL` | the model | required |
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use strata_ctx_core::{LlmClient, LlmRequest, Message};
//! use strata_ctx_openai::OpenAiClient;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = OpenAiClient::builder()
//!     .base_url("http://127.0.0.1:8000/v1")
//!     .model("qwen2.5-coder-32b")
//!     .timeout(Duration::from_secs(60))
//!     .max_retries(3)
//!     .build()?;
//! let answer = client.complete(LlmRequest::new(vec![Message::user("Say hi.")])).await?;
//! println!("{} ({} tokens in)", answer.text, answer.usage.input_tokens);
//! # Ok(())
//! # }
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use serde_json::Value;
use strata_ctx_core::{
    CountTokens, Endpoint, FinishReason, LlmClient, LlmError, LlmRequest, LlmResponse, LlmResult as Result,
    LlmStream, ServerContext, StreamEvent, ToolCallBuffer, Usage,
};
use strata_ctx_http::{
    body_excerpt, event_json, invalid, read_body, Retry, SseBody, SseEvent, SseEvents, StreamDecoder,
};
use strata_ctx_wire::chat::{
    ChatArguments, ChatCompletion, ChatContent, ChatRequest, ChatTool, ChatToolChoice, StreamOptions,
};

mod responses;
mod stream;
pub use responses::{parse_response, ResponsesDecoder};
pub use stream::ChunkDecoder;

/// The environment variable holding the base URL.
pub const ENV_BASE_URL: &str = "STRATA_OPENAI_BASE_URL";
/// The environment variable read for the base URL when [`ENV_BASE_URL`]
/// is not set, as OpenAI's own SDKs read it.
pub const ENV_BASE_URL_FALLBACK: &str = "OPENAI_BASE_URL";
/// The environment variable holding the API key.
pub const ENV_API_KEY: &str = "STRATA_OPENAI_API_KEY";
/// The environment variable read for the API key when
/// [`ENV_API_KEY`] is not set.
pub const ENV_API_KEY_FALLBACK: &str = "OPENAI_API_KEY";
/// The environment variable holding the model.
pub const ENV_MODEL: &str = "STRATA_MODEL";
/// OpenAI's base URL, the default.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Which of OpenAI's APIs a client speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OpenAiApi {
    /// `/chat/completions`, which every OpenAI-compatible server offers.
    /// The default.
    #[default]
    ChatCompletions,
    /// `/responses`, OpenAI's own API (MODEL-7): server-side compaction
    /// ([`ServerContext::Compact`]), reasoning items kept and sent back.
    /// Requests are stateless (`store: false`); [`LlmClient::stream`]
    /// streams the answer event by event ([`ResponsesDecoder`]).
    Responses,
}

/// A client for an OpenAI-compatible chat-completions endpoint, or for
/// OpenAI's Responses API ([`OpenAiClientBuilder::api`]).
///
/// Cheap to clone (the connection pool is shared); share one per endpoint.
/// The API key never appears in its `Debug` output or in errors.
#[derive(Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    api: OpenAiApi,
    endpoint: String,
    count_endpoint: String,
    api_key: Option<String>,
    headers: HeaderMap,
    model: String,
    timeout: Duration,
    retry: Retry,
}

/// Configures an [`OpenAiClient`]; see [`OpenAiClient::builder`].
#[derive(Clone)]
pub struct OpenAiClientBuilder {
    api: OpenAiApi,
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    timeout: Duration,
    retry: Retry,
}

impl OpenAiClient {
    /// A builder with the defaults: OpenAI's base URL, no key, no model
    /// (required), a 120 s time limit per attempt, 3 retries with backoff
    /// from 500 ms doubling up to 20 s, and `Retry-After` waits of up to
    /// 60 s honoured.
    pub fn builder() -> OpenAiClientBuilder {
        OpenAiClientBuilder {
            api: OpenAiApi::ChatCompletions,
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: None,
            model: None,
            timeout: Duration::from_secs(120),
            retry: Retry::default(),
        }
    }

    /// A client configured from the environment: [`ENV_BASE_URL`],
    /// [`ENV_API_KEY`] (or [`ENV_API_KEY_FALLBACK`]) and [`ENV_MODEL`],
    /// with the builder's other defaults.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`](strata_ctx_core::Error::InvalidConfig) naming the variable when `STRATA_MODEL` is
    /// missing or a variable is not valid.
    pub fn from_env() -> Result<Self, strata_ctx_core::Error> {
        OpenAiClientBuilder::from_lookup(|name| std::env::var(name).ok())?.build()
    }

    /// The model used when a request names none.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The chat-completions URL requests are sent to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The request body: the model, the messages, the tools and tool
    /// choice (MODEL-1), the options, and for a stream `stream: true` with
    /// usage included.
    fn body(&self, request: &LlmRequest, stream: bool) -> Vec<u8> {
        if self.api == OpenAiApi::Responses {
            // Typed values always serialise.
            return serde_json::to_vec(&responses::body(&self.model, request, stream)).unwrap_or_default();
        }
        let options = &request.options;
        let tools = !request.tools.is_empty();
        let body = ChatRequest {
            max_tokens: options.max_tokens,
            messages: request
                .messages
                .iter()
                .map(strata_ctx_prompt::chat_message)
                .collect(),
            model: options.model.as_deref().unwrap_or(&self.model),
            stream: stream.then_some(true),
            stream_options: stream.then_some(StreamOptions { include_usage: true }),
            temperature: options.temperature,
            tool_choice: options
                .tool_choice
                .as_ref()
                .filter(|_| tools)
                .map(ChatToolChoice::of),
            tools: tools.then(|| request.tools.iter().map(ChatTool::of).collect()),
        };
        // Typed values always serialise.
        serde_json::to_vec(&body).unwrap_or_default()
    }

    async fn send(&self, request: &LlmRequest, stream: bool) -> Result<(reqwest::Response, Duration)> {
        let timeout = request.options.timeout.unwrap_or(self.timeout);
        let body = self.body(request, stream);
        let response = strata_ctx_http::send(
            &self.http,
            &self.endpoint,
            &self.headers,
            &body,
            timeout,
            &self.retry,
        )
        .await?;
        Ok((response, timeout))
    }
}

/// Tools as chat-completions function tools (MODEL-1), in the order
/// given; byte-stable for the same specs.
pub fn openai_tools(tools: &[strata_ctx_core::ToolSpec]) -> Value {
    serde_json::to_value(tools.iter().map(ChatTool::of).collect::<Vec<_>>()).unwrap_or_default()
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("endpoint", &self.endpoint)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// `/responses/input_tokens` (MODEL-8): the request's messages and tools
/// in the Responses API's shapes, with its model; retried as the client
/// retries. Servers that only speak chat completions answer it with an
/// error, and `Engine::count_window` falls back to the local estimate.
#[async_trait]
impl CountTokens for OpenAiClient {
    async fn count_tokens(&self, request: &LlmRequest) -> Result<u64> {
        let timeout = request.options.timeout.unwrap_or(self.timeout);
        // Typed values always serialise.
        let body = serde_json::to_vec(&responses::count_body(&self.model, request)).unwrap_or_default();
        strata_ctx_http::count_tokens(
            &self.http,
            &self.count_endpoint,
            &self.headers,
            &body,
            timeout,
            &self.retry,
        )
        .await
    }
}

#[async_trait]
impl LlmClient for OpenAiClient {
    /// Sends the request, retrying rate limits, server errors and failed
    /// connections as configured.
    ///
    /// # Errors
    ///
    /// See the [crate documentation](crate) for which answer becomes which
    /// [`LlmError`].
    async fn complete(&self, request: LlmRequest) -> Result<LlmResponse> {
        let (response, timeout) = self.send(&request, false).await?;
        let body = read_body(response, timeout).await?;
        match self.api {
            OpenAiApi::Responses => parse_response(&body),
            _ => parse_completion(&body),
        }
    }

    /// Streams the answer (MODEL-3); the time limit bounds the wait for
    /// the answer to start and each silence between chunks.
    ///
    /// # Errors
    ///
    /// As [`LlmClient::complete`] for what fails before the stream starts.
    async fn stream(&self, request: LlmRequest) -> Result<LlmStream> {
        let (response, timeout) = self.send(&request, true).await?;
        let body = SseBody::new(response, timeout);
        Ok(match self.api {
            OpenAiApi::Responses => LlmStream::new(SseEvents::new(body, ResponsesDecoder::default())),
            _ => LlmStream::new(SseEvents::new(body, ChunkDecoder::default())),
        })
    }

    /// `openai`, the endpoint requests go to, and the builder's model.
    fn endpoint(&self) -> Endpoint {
        Endpoint::new("openai", self.endpoint.as_str(), self.model.as_str())
    }

    /// In [`OpenAiApi::Responses`] mode, compaction (MODEL-7); chat
    /// completions offer no server-side context management.
    fn manages_context(&self, mode: ServerContext) -> bool {
        match self.api {
            OpenAiApi::Responses => matches!(mode, ServerContext::Off | ServerContext::Compact),
            _ => !mode.is_on(),
        }
    }
}

impl OpenAiClientBuilder {
    /// A builder from the environment: [`ENV_BASE_URL`], [`ENV_API_KEY`]
    /// (or [`ENV_API_KEY_FALLBACK`]) and [`ENV_MODEL`] as read by `lookup`;
    /// the other settings keep their defaults and may still be changed.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`](strata_ctx_core::Error::InvalidConfig) naming `STRATA_MODEL` when it is missing or
    /// empty.
    ///
    /// ```
    /// use strata_ctx_openai::OpenAiClientBuilder;
    ///
    /// let env = |name: &str| match name {
    ///     "STRATA_OPENAI_BASE_URL" => Some("http://127.0.0.1:11434/v1/".to_owned()),
    ///     "STRATA_MODEL" => Some("llama3.1".to_owned()),
    ///     _ => None,
    /// };
    /// let client = OpenAiClientBuilder::from_lookup(env)?.build()?;
    /// assert_eq!(client.endpoint(), "http://127.0.0.1:11434/v1/chat/completions");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, strata_ctx_core::Error> {
        let set = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let mut builder = OpenAiClient::builder();
        if let Some(url) = set(ENV_BASE_URL).or_else(|| set(ENV_BASE_URL_FALLBACK)) {
            builder = builder.base_url(url);
        }
        if let Some(key) = set(ENV_API_KEY).or_else(|| set(ENV_API_KEY_FALLBACK)) {
            builder = builder.api_key(key);
        }
        let model = set(ENV_MODEL).ok_or_else(|| strata_ctx_core::Error::InvalidConfig {
            field: ENV_MODEL.to_owned(),
            reason: "not set: name the model to call, e.g. STRATA_MODEL=gpt-4o-mini".to_owned(),
        })?;
        Ok(builder.model(model))
    }

    /// Sets which API the client speaks: requests go to
    /// `<base>/chat/completions` or `<base>/responses`. By default,
    /// [`OpenAiApi::ChatCompletions`].
    ///
    /// ```
    /// use strata_ctx_openai::{OpenAiApi, OpenAiClient};
    ///
    /// let client = OpenAiClient::builder().model("gpt-5").api(OpenAiApi::Responses).build()?;
    /// assert_eq!(client.endpoint(), "https://api.openai.com/v1/responses");
    /// # Ok::<(), strata_ctx_core::Error>(())
    /// ```
    pub fn api(mut self, api: OpenAiApi) -> Self {
        self.api = api;
        self
    }

    /// Sets the base URL, up to and including the version (`…/v1`);
    /// requests go to `<base>/chat/completions` (or `<base>/responses`).
    /// By default, OpenAI's.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Sets the API key, sent as a bearer token. By default, none.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Sets the model used when a request names none. Required.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets the time limit of one attempt, from sending the request to the
    /// end of the answer; a request's own
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

    /// Sets the backoff: the first wait and the most any wait may be; each
    /// retry doubles the wait, then takes a random half to all of it. By
    /// default, 500 ms and 20 s.
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.retry.initial = initial;
        self.retry.max = max.max(initial);
        self
    }

    /// Sets the longest `Retry-After` the client waits for; a provider
    /// asking for more gets [`LlmError::RateLimited`] returned at once, with
    /// the wait it asked for. By default, 60 s.
    pub fn max_retry_after(mut self, max: Duration) -> Self {
        self.retry.max_retry_after = max;
        self
    }

    /// Builds the client.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`](strata_ctx_core::Error::InvalidConfig) when the model is missing, the base URL is
    /// not an `http(s)` URL, or the TLS stack cannot be initialised.
    pub fn build(self) -> Result<OpenAiClient, strata_ctx_core::Error> {
        let model = self.model.filter(|m| !m.trim().is_empty()).ok_or_else(|| {
            strata_ctx_core::Error::InvalidConfig {
                field: "model".to_owned(),
                reason: "no model set".to_owned(),
            }
        })?;
        let (base, http) = strata_ctx_http::client_for(
            &self.base_url,
            concat!("strata-ctx-openai/", env!("CARGO_PKG_VERSION")),
        )?;
        let mut headers = HeaderMap::new();
        if let Some(key) = &self.api_key {
            let mut value = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                strata_ctx_core::Error::InvalidConfig {
                    field: "api_key".to_owned(),
                    reason: "holds characters an HTTP header cannot carry".to_owned(),
                }
            })?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        Ok(OpenAiClient {
            http,
            api: self.api,
            endpoint: match self.api {
                OpenAiApi::Responses => format!("{base}/responses"),
                _ => format!("{base}/chat/completions"),
            },
            count_endpoint: format!("{base}/responses/input_tokens"),
            api_key: self.api_key,
            model,
            timeout: self.timeout,
            retry: self.retry,
            headers,
        })
    }
}

impl fmt::Debug for OpenAiClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClientBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .finish()
    }
}

/// Reads a chat-completions answer (its first choice): the text, the
/// tool calls, the usage and why it stopped. The client calls it on every
/// non-streamed answer; it is public for answers recorded elsewhere.
///
/// # Errors
///
/// [`LlmError::InvalidResponse`] when the body is not a completion, has
/// no choice, or a call has no name.
///
/// ```
/// let body = br#"{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}"#;
/// let answer = strata_ctx_openai::parse_completion(body)?;
/// assert_eq!(answer.text, "hi");
/// assert!(strata_ctx_openai::parse_completion(b"{}").is_err());
/// # Ok::<(), strata_ctx_core::LlmError>(())
/// ```
pub fn parse_completion(body: &[u8]) -> Result<LlmResponse> {
    let completion: ChatCompletion<'_> = serde_json::from_slice(body).map_err(|e| {
        let what = if e.is_data() { "a completion" } else { "JSON" };
        invalid(format!("the body is not {what} ({e}): {}", body_excerpt(body)))
    })?;
    completion
        .into_response()
        .map_err(|why| invalid(format!("{why} in {}", body_excerpt(body))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use strata_ctx_testkit::strategy;

    proptest! {
        #![proptest_config(strategy::cases(256))]

        /// Whatever a server sends, reading it gives an answer or a typed
        /// error, never a panic; the same for streamed chunks.
        #[test]
        fn any_body_is_read_or_rejected(value in strategy::json_value(), bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let body = serde_json::json!({"choices": [{"message": value.clone(), "delta": value.clone(), "finish_reason": value}], "usage": {"prompt_tokens": 1}});
            let _ = parse_completion(body.to_string().as_bytes());
            let _ = parse_completion(&bytes);
            let mut decoder = ChunkDecoder::default();
            let mut out = VecDeque::new();
            let _ = decoder.decode(&body.to_string(), &mut out);
            let _ = decoder.decode(&String::from_utf8_lossy(&bytes), &mut out);
            decoder.close(&mut out);
            let done = matches!(out.back(), Some(StreamEvent::Done { .. }));
            prop_assert!(done);
        }
    }

    fn client() -> OpenAiClient {
        OpenAiClient::builder().model("m").build().unwrap()
    }

    #[test]
    fn model_1_tools_and_choice_in_the_body() {
        let tools =
            vec![strata_ctx_core::ToolSpec::new("Read", "Reads.", Value::Null)
                .with_guidelines(["Read first."])];
        let request = LlmRequest::new(vec![strata_ctx_core::Message::user("hi")])
            .with_tools(tools)
            .with_options(
                strata_ctx_core::LlmOptions::new()
                    .with_tool_choice(strata_ctx_core::ToolChoice::Tool("Read".into()))
                    .with_temperature(0.2),
            );
        let bytes = client().body(&request, true);
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        // The temperature as given, not widened to the f64 nearest 0.2f32.
        assert!(String::from_utf8_lossy(&bytes).contains("\"temperature\":0.2,"));
        assert_eq!(
            body["tools"][0]["function"]["description"],
            "Reads.\n\nGuidelines:\n- Read first."
        );
        assert_eq!(body["tools"][0]["function"]["parameters"]["type"], "object");
        assert_eq!(body["tool_choice"]["function"]["name"], "Read");
        assert_eq!(body["stream_options"]["include_usage"], true);
        let plain: Value = serde_json::from_slice(&client().body(&LlmRequest::new(vec![]), false)).unwrap();
        assert!(plain.get("tools").is_none() && plain.get("stream").is_none());
    }

    #[test]
    fn model_3_chunks_assemble() {
        let mut d = ChunkDecoder::default();
        let mut out = VecDeque::new();
        for data in [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"hm"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Let me look."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"Read","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.rs\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4}}"#,
            "[DONE]",
        ] {
            d.decode(data, &mut out).unwrap();
        }
        assert!(d.is_done());
        let events: Vec<StreamEvent> = out.into_iter().collect();
        assert_eq!(events[0], StreamEvent::ThinkingDelta("hm".into()));
        assert_eq!(events[1], StreamEvent::TextDelta("Let me look.".into()));
        assert!(
            matches!(&events[2], StreamEvent::ToolCallStarted { index: 0, id, name } if id == "c1" && name == "Read")
        );
        assert!(
            matches!(&events[5], StreamEvent::ToolCallFinished { call, .. } if *call.arguments == json!({"path": "a.rs"}))
        );
        assert_eq!(events[6], StreamEvent::Usage(Usage::new(9, 4)));
        assert_eq!(
            events[7],
            StreamEvent::Done {
                finish_reason: FinishReason::ToolCalls
            }
        );
        let mut d = ChunkDecoder::default();
        assert!(matches!(
            d.decode("{not json", &mut VecDeque::new()),
            Err(LlmError::InvalidResponse { .. })
        ));
        assert!(matches!(
            d.decode(r#"{"error":{"message":"overloaded"}}"#, &mut VecDeque::new()),
            Err(LlmError::Provider { status: None, .. })
        ));
    }

    #[test]
    fn completion_parsing() {
        let r = parse_completion(
            br#"{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a.rs\"}"}},{"id":"c2","type":"function","function":{"name":"Bash","arguments":"not json"}}]}}]}"#,
        )
        .unwrap();
        assert_eq!(r.text, "");
        assert_eq!(*r.tool_calls[0].arguments, json!({"path": "a.rs"}));
        assert_eq!(*r.tool_calls[1].arguments, json!("not json"));
        assert_eq!(r.usage, Usage::default());
        assert_eq!(r.finish_reason, FinishReason::Stop);
        let r = parse_completion(
            br#"{"choices":[{"message":{"content":"The answ","reasoning_content":"think"},"finish_reason":"length"}]}"#,
        )
        .unwrap();
        assert!(r.finish_reason.is_cut());
        assert_eq!(r.thinking.len(), 1);
        let r = parse_completion(br#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#).unwrap();
        assert_eq!(r.text, "ab");
        assert!(matches!(
            parse_completion(br#"{"choices":[]}"#),
            Err(LlmError::InvalidResponse { .. })
        ));
        assert!(matches!(
            parse_completion(b"<html>"),
            Err(LlmError::InvalidResponse { .. })
        ));
    }

    #[test]
    fn builder_validates_and_hides_the_key() {
        assert!(
            matches!(OpenAiClient::builder().build(), Err(strata_ctx_core::Error::InvalidConfig { field, .. }) if field == "model")
        );
        let err = OpenAiClient::builder()
            .model("m")
            .base_url("localhost:8000")
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("base_url"), "{err}");
        let c = OpenAiClient::builder()
            .model("m")
            .api_key("sk-secret")
            .build()
            .unwrap();
        assert!(!format!("{c:?}").contains("sk-secret"));
        assert_eq!(client().endpoint(), "https://api.openai.com/v1/chat/completions");
        let err = OpenAiClientBuilder::from_lookup(|_| None).unwrap_err();
        assert!(err.to_string().contains("STRATA_MODEL"), "{err}");
        let c = OpenAiClientBuilder::from_lookup(|n| match n {
            "OPENAI_API_KEY" => Some("k".into()),
            "STRATA_MODEL" => Some("gpt-4o".into()),
            _ => None,
        })
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(c.api_key.as_deref(), Some("k"));
        assert_eq!(c.model(), "gpt-4o");
    }
}

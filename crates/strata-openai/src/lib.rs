//! An [`LlmClient`] for any OpenAI-compatible chat-completions endpoint
//! (EDGE-1): OpenAI itself, Azure-style gateways, vLLM, llama.cpp's server,
//! Ollama, LiteLLM, OpenRouter and the like.
//!
//! [`OpenAiClient`] sends a request's messages as chat-completions
//! `messages` (rendered by [`strata_context::openai_messages`]), and returns
//! the answer's text, its native tool calls and the provider's usage
//! figures. It retries what is worth retrying, with exponential backoff
//! and jitter: 429 answers (honouring `Retry-After` and `retry-after-ms`),
//! 5xx answers and failed connections. Everything else is reported at once
//! with the [`Error`] variant callers act on:
//!
//! | The provider says | [`Error`] |
//! |---|---|
//! | 400/413 with `context_length_exceeded`, or a message about the context length | [`Error::ContextTooLong`]: the engine compacts and retries (HIST-12) |
//! | nothing within the time limit | [`Error::Timeout`] |
//! | 429 after every retry | [`Error::RateLimited`] with the last `Retry-After` |
//! | 429 `insufficient_quota`, 401, 404, other 4xx, 5xx after every retry | [`Error::Provider`] with the status and the provider's message |
//! | 200 with a body that is not a chat completion | [`Error::InvalidResponse`] |
//!
//! # Configuration
//!
//! In code with [`OpenAiClient::builder`], or from the environment with
//! [`OpenAiClient::from_env`]:
//!
//! | Variable | Meaning | Default |
//! |---|---|---|
//! | `STRATA_OPENAI_BASE_URL` | the API's base URL, up to `/v1` | `https://api.openai.com/v1` |
//! | `STRATA_OPENAI_API_KEY` (or `OPENAI_API_KEY`) | the bearer token | none (no `Authorization` header) |
//! | `STRATA_MODEL` | the model | required |
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use strata_core::{LlmClient, LlmRequest, Message};
//! use strata_openai::OpenAiClient;
//!
//! # async fn run() -> Result<(), strata_core::Error> {
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
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::BuildHasher;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{HeaderMap, CONTENT_TYPE};
use serde_json::{json, Value};
use strata_core::{Error, LlmClient, LlmRequest, LlmResponse, Result, ToolCall, Usage};

/// The environment variable holding the base URL.
pub const ENV_BASE_URL: &str = "STRATA_OPENAI_BASE_URL";
/// The environment variable holding the API key.
pub const ENV_API_KEY: &str = "STRATA_OPENAI_API_KEY";
/// The environment variable read for the API key when
/// [`ENV_API_KEY`] is not set.
pub const ENV_API_KEY_FALLBACK: &str = "OPENAI_API_KEY";
/// The environment variable holding the model.
pub const ENV_MODEL: &str = "STRATA_MODEL";
/// OpenAI's base URL, the default.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// A client for an OpenAI-compatible chat-completions endpoint.
///
/// Cheap to clone (the connection pool is shared); share one per endpoint.
/// The API key never appears in its `Debug` output or in errors.
#[derive(Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    endpoint: String,
    api_key: Option<String>,
    model: String,
    timeout: Duration,
    retry: Retry,
    context_window: Option<u64>,
    jitter: RandomState,
}

#[derive(Debug, Clone, Copy)]
struct Retry {
    max_retries: u32,
    initial: Duration,
    max: Duration,
    max_retry_after: Duration,
}

/// Configures an [`OpenAiClient`]; see [`OpenAiClient::builder`].
#[derive(Clone)]
pub struct OpenAiClientBuilder {
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    timeout: Duration,
    retry: Retry,
    context_window: Option<u64>,
}

impl OpenAiClient {
    /// A builder with the defaults: OpenAI's base URL, no key, no model
    /// (required), a 120 s time limit per attempt, 3 retries with backoff
    /// from 500 ms doubling up to 20 s, and `Retry-After` waits of up to
    /// 60 s honoured.
    pub fn builder() -> OpenAiClientBuilder {
        OpenAiClientBuilder {
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: None,
            model: None,
            timeout: Duration::from_secs(120),
            retry: Retry {
                max_retries: 3,
                initial: Duration::from_millis(500),
                max: Duration::from_secs(20),
                max_retry_after: Duration::from_secs(60),
            },
            context_window: None,
        }
    }

    /// A client configured from the environment: [`ENV_BASE_URL`],
    /// [`ENV_API_KEY`] (or [`ENV_API_KEY_FALLBACK`]) and [`ENV_MODEL`],
    /// with the builder's other defaults.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] naming the variable when `STRATA_MODEL` is
    /// missing or a variable is not valid.
    pub fn from_env() -> Result<Self> {
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

    fn body(&self, request: &LlmRequest) -> Value {
        let options = &request.options;
        let mut body = json!({
            "model": options.model.as_deref().unwrap_or(&self.model),
            "messages": strata_context::openai_messages(&request.messages),
        });
        if let Some(max) = options.max_tokens {
            body["max_tokens"] = json!(max);
        }
        if let Some(t) = options.temperature {
            body["temperature"] = json!(t);
        }
        body
    }

    /// The wait before retry number `attempt` (from 0): the backoff
    /// doubled per attempt and capped, then jittered to between half and
    /// all of it so that many clients do not retry in step.
    fn backoff(&self, attempt: u32) -> Duration {
        let base = self
            .retry
            .initial
            .saturating_mul(2u32.saturating_pow(attempt))
            .min(self.retry.max);
        let half = base / 2;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        let random = self.jitter.hash_one((attempt, std::time::SystemTime::now()));
        half + Duration::from_nanos(if nanos == 0 { 0 } else { random % nanos })
    }

    async fn attempt(&self, body: &[u8], timeout: Duration) -> Result<LlmResponse, Failure> {
        let mut req = self
            .http
            .post(&self.endpoint)
            .timeout(timeout)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let response = req.send().await.map_err(|e| transport(e, timeout))?;
        let status = response.status().as_u16();
        let retry_after = retry_after(response.headers());
        let bytes = response.bytes().await.map_err(|e| transport(e, timeout))?;
        if (200..300).contains(&status) {
            return parse_completion(&bytes).map_err(Failure::final_);
        }
        Err(error_answer(status, &bytes, retry_after))
    }
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("endpoint", &self.endpoint)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .field("context_window", &self.context_window)
            .finish()
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
    /// [`Error`].
    async fn complete(&self, request: LlmRequest) -> Result<LlmResponse> {
        let timeout = request.options.timeout.unwrap_or(self.timeout);
        let body = self.body(&request).to_string().into_bytes();
        let mut attempt = 0;
        loop {
            let failure = match self.attempt(&body, timeout).await {
                Ok(response) => return Ok(response),
                Err(failure) => failure,
            };
            if !failure.retry || attempt >= self.retry.max_retries {
                return Err(failure.error);
            }
            let wait = match failure.retry_after {
                Some(wait) if wait > self.retry.max_retry_after => return Err(failure.error),
                Some(wait) => wait,
                None => self.backoff(attempt),
            };
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    fn context_window(&self) -> Option<u64> {
        self.context_window
    }
}

impl OpenAiClientBuilder {
    /// A builder from the environment: [`ENV_BASE_URL`], [`ENV_API_KEY`]
    /// (or [`ENV_API_KEY_FALLBACK`]) and [`ENV_MODEL`] as read by `lookup`;
    /// the other settings keep their defaults and may still be changed.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] naming `STRATA_MODEL` when it is missing or
    /// empty.
    ///
    /// ```
    /// use strata_openai::OpenAiClientBuilder;
    ///
    /// let env = |name: &str| match name {
    ///     "STRATA_OPENAI_BASE_URL" => Some("http://127.0.0.1:11434/v1/".to_owned()),
    ///     "STRATA_MODEL" => Some("llama3.1".to_owned()),
    ///     _ => None,
    /// };
    /// let client = OpenAiClientBuilder::from_lookup(env)?.build()?;
    /// assert_eq!(client.endpoint(), "http://127.0.0.1:11434/v1/chat/completions");
    /// # Ok::<(), strata_core::Error>(())
    /// ```
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let set = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let mut builder = OpenAiClient::builder();
        if let Some(url) = set(ENV_BASE_URL) {
            builder = builder.base_url(url);
        }
        if let Some(key) = set(ENV_API_KEY).or_else(|| set(ENV_API_KEY_FALLBACK)) {
            builder = builder.api_key(key);
        }
        let model = set(ENV_MODEL).ok_or_else(|| Error::InvalidConfig {
            field: ENV_MODEL.to_owned(),
            reason: "not set: name the model to call, e.g. STRATA_MODEL=gpt-4o-mini".to_owned(),
        })?;
        Ok(builder.model(model))
    }

    /// Sets the base URL, up to and including the version (`…/v1`);
    /// requests go to `<base>/chat/completions`. By default, OpenAI's.
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
    /// [`LlmOptions::timeout`](strata_core::LlmOptions::timeout) wins. By
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
    /// asking for more gets [`Error::RateLimited`] returned at once, with
    /// the wait it asked for. By default, 60 s.
    pub fn max_retry_after(mut self, max: Duration) -> Self {
        self.retry.max_retry_after = max;
        self
    }

    /// Sets the context window the client reports through
    /// [`LlmClient::context_window`]. By default, unknown.
    pub fn context_window(mut self, tokens: u64) -> Self {
        self.context_window = Some(tokens);
        self
    }

    /// Builds the client.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] when the model is missing, the base URL is
    /// not an `http(s)` URL, or the TLS stack cannot be initialised.
    pub fn build(self) -> Result<OpenAiClient> {
        let model = self
            .model
            .filter(|m| !m.trim().is_empty())
            .ok_or_else(|| Error::InvalidConfig {
                field: "model".to_owned(),
                reason: "no model set".to_owned(),
            })?;
        let base = self.base_url.trim().trim_end_matches('/');
        let parsed = reqwest::Url::parse(base).map_err(|e| Error::InvalidConfig {
            field: "base_url".to_owned(),
            reason: format!("`{base}` is not a URL: {e}"),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::InvalidConfig {
                field: "base_url".to_owned(),
                reason: format!("`{base}` must start with http:// or https://"),
            });
        }
        let http = reqwest::Client::builder()
            .user_agent(concat!("strata-openai/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::InvalidConfig {
                field: "base_url".to_owned(),
                reason: format!("cannot create the HTTP client: {e}"),
            })?;
        Ok(OpenAiClient {
            http,
            endpoint: format!("{base}/chat/completions"),
            api_key: self.api_key,
            model,
            timeout: self.timeout,
            retry: self.retry,
            context_window: self.context_window,
            jitter: RandomState::new(),
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

/// A failed attempt: the error to report, and whether and when to retry.
struct Failure {
    error: Error,
    retry: bool,
    retry_after: Option<Duration>,
}

impl Failure {
    fn final_(error: Error) -> Self {
        Failure {
            error,
            retry: false,
            retry_after: None,
        }
    }
}

fn transport(e: reqwest::Error, timeout: Duration) -> Failure {
    if e.is_timeout() {
        return Failure::final_(Error::Timeout { after: timeout });
    }
    // Connection refused or reset, DNS, TLS: possibly passing.
    let mut message = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    Failure {
        error: Error::Provider {
            status: None,
            message,
        },
        retry: true,
        retry_after: None,
    }
}

/// `retry-after-ms` (OpenAI's, in milliseconds) or `Retry-After` in
/// seconds. An HTTP date is not honoured (the backoff applies).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> {
        let v: f64 = headers.get(name)?.to_str().ok()?.trim().parse().ok()?;
        (v.is_finite() && v >= 0.0).then_some(v)
    };
    if let Some(ms) = number("retry-after-ms") {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    number("retry-after").map(|s| Duration::from_secs_f64(s.min(86_400.0)))
}

/// The words with which providers say the input does not fit.
const CONTEXT_PHRASES: [&str; 7] = [
    "context_length_exceeded",
    "context length",
    "context window",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "input is too long",
];

fn error_answer(status: u16, body: &[u8], retry_after: Option<Duration>) -> Failure {
    let json: Option<Value> = serde_json::from_slice(body).ok();
    let error = json.as_ref().map(|v| v.get("error").unwrap_or(v));
    let field = |name: &str| {
        error
            .and_then(|e| e.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (code, kind) = (field("code"), field("type"));
    let mut message = match error.and_then(|e| e.as_str()).map(str::to_owned) {
        Some(text) => text,
        None => field("message"),
    };
    if message.is_empty() {
        message = body_excerpt(body);
    }
    let lower = format!("{code} {kind} {message}").to_lowercase();
    if matches!(status, 400 | 413 | 422) && CONTEXT_PHRASES.iter().any(|p| lower.contains(p)) {
        return Failure::final_(Error::ContextTooLong { message });
    }
    if status == 429 {
        if code == "insufficient_quota" || kind == "insufficient_quota" {
            return Failure::final_(Error::Provider {
                status: Some(status),
                message,
            });
        }
        return Failure {
            error: Error::RateLimited { retry_after, message },
            retry: true,
            retry_after,
        };
    }
    Failure {
        error: Error::Provider {
            status: Some(status),
            message,
        },
        retry: status >= 500,
        retry_after: if status >= 500 { retry_after } else { None },
    }
}

/// Up to 500 characters of a body that is not a JSON error, for the message.
fn body_excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(empty body)".to_owned();
    }
    match text.char_indices().nth(500) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidResponse {
        message: message.into(),
    }
}

fn parse_completion(body: &[u8]) -> Result<LlmResponse> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| invalid(format!("the body is not JSON ({e}): {}", body_excerpt(body))))?;
    let message = v
        .pointer("/choices/0/message")
        .ok_or_else(|| invalid(format!("no `choices[0].message` in {}", body_excerpt(body))))?;
    let text = match message.get("content") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        // Content parts, as some compatible servers send them.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Some(other) => return Err(invalid(format!("`choices[0].message.content` is {other}"))),
    };
    let mut calls = Vec::new();
    if let Some(list) = message.get("tool_calls").and_then(Value::as_array) {
        for (i, call) in list.iter().enumerate() {
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .ok_or_else(|| invalid(format!("`tool_calls[{i}].function.name` is missing")))?;
            let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
            let arguments = match call.pointer("/function/arguments") {
                Some(Value::String(s)) => {
                    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
                }
                Some(other) => other.clone(),
                None => json!({}),
            };
            calls.push(ToolCall::new(id, name, arguments));
        }
    }
    let number = |path: &str| v.pointer(path).and_then(Value::as_u64);
    let usage = Usage {
        input_tokens: number("/usage/prompt_tokens").unwrap_or(0),
        output_tokens: number("/usage/completion_tokens").unwrap_or(0),
        cached_input_tokens: number("/usage/prompt_tokens_details/cached_tokens"),
    };
    Ok(LlmResponse::new(text, usage).with_tool_calls(calls))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_testkit::strategy;

    proptest! {
        #![proptest_config(strategy::cases(256))]

        /// Whatever a server sends, reading it gives an answer or a typed
        /// error, never a panic.
        #[test]
        fn any_body_is_read_or_rejected(value in strategy::json_value(), bytes in proptest::collection::vec(any::<u8>(), 0..256), status in 100u16..600) {
            let body = serde_json::json!({"choices": [{"message": value.clone()}], "error": value, "usage": {"prompt_tokens": 1}});
            let _ = parse_completion(body.to_string().as_bytes());
            let _ = parse_completion(&bytes);
            for body in [bytes.clone(), body.to_string().into_bytes()] {
                let failure = error_answer(status, &body, Some(Duration::from_secs(1)));
                // Only rate limits and server errors are retried.
                prop_assert_eq!(failure.retry, status == 429 && failure.error.is_retryable() || status >= 500);
                prop_assert!(!failure.error.to_string().is_empty());
            }
        }
    }

    fn client() -> OpenAiClient {
        OpenAiClient::builder().model("m").build().unwrap()
    }

    #[test]
    fn errors_are_classified() {
        let f = error_answer(
            400,
            br#"{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
            None,
        );
        assert!(f.error.is_context_too_long() && !f.retry);
        // Anthropic-style wording through a gateway, no code.
        let f = error_answer(
            400,
            br#"{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
            None,
        );
        assert!(f.error.is_context_too_long());
        // A 400 about something else is not.
        let f = error_answer(
            400,
            br#"{"error":{"message":"temperature must be at most 2"}}"#,
            None,
        );
        assert!(
            matches!(
                f.error,
                Error::Provider {
                    status: Some(400),
                    ..
                }
            ) && !f.retry
        );
        let f = error_answer(
            429,
            br#"{"error":{"code":"insufficient_quota","message":"no credit"}}"#,
            None,
        );
        assert!(
            matches!(
                f.error,
                Error::Provider {
                    status: Some(429),
                    ..
                }
            ) && !f.retry
        );
        let f = error_answer(429, b"slow down", Some(Duration::from_secs(2)));
        assert!(
            matches!(&f.error, Error::RateLimited { retry_after: Some(d), message } if *d == Duration::from_secs(2) && message == "slow down")
        );
        assert!(f.retry);
        let f = error_answer(502, b"", None);
        assert!(f.retry);
        assert_eq!(
            f.error.to_string(),
            "the model provider failed with status 502: (empty body)"
        );
        // A string `error`, as some servers send.
        let f = error_answer(404, br#"{"error":"model 'x' not found"}"#, None);
        assert_eq!(
            f.error.to_string(),
            "the model provider failed with status 404: model 'x' not found"
        );
    }

    #[test]
    fn retry_after_headers() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", "3".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3)));
        h.insert("retry-after-ms", "250".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
        let mut h = HeaderMap::new();
        h.insert("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap());
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", "-1".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_caps() {
        let c = OpenAiClient::builder()
            .model("m")
            .backoff(Duration::from_millis(100), Duration::from_millis(1000))
            .build()
            .unwrap();
        for attempt in 0..10 {
            let full = Duration::from_millis(100 * 2u64.pow(attempt.min(4))).min(Duration::from_millis(1000));
            let wait = c.backoff(attempt);
            assert!(
                wait >= full / 2 && wait <= full,
                "attempt {attempt}: {wait:?} vs {full:?}"
            );
        }
        assert!(c.backoff(u32::MAX) <= Duration::from_millis(1000));
    }

    #[test]
    fn completion_parsing() {
        let r = parse_completion(
            br#"{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a.rs\"}"}},{"id":"c2","type":"function","function":{"name":"Bash","arguments":"not json"}}]}}]}"#,
        )
        .unwrap();
        assert_eq!(r.text, "");
        assert_eq!(r.tool_calls[0].arguments, json!({"path": "a.rs"}));
        assert_eq!(r.tool_calls[1].arguments, json!("not json"));
        assert_eq!(r.usage, Usage::default());
        let r = parse_completion(br#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#).unwrap();
        assert_eq!(r.text, "ab");
        assert!(matches!(
            parse_completion(br#"{"choices":[]}"#),
            Err(Error::InvalidResponse { .. })
        ));
        assert!(matches!(
            parse_completion(b"<html>"),
            Err(Error::InvalidResponse { .. })
        ));
    }

    #[test]
    fn builder_validates_and_hides_the_key() {
        assert!(
            matches!(OpenAiClient::builder().build(), Err(Error::InvalidConfig { field, .. }) if field == "model")
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

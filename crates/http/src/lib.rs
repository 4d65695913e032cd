//! The HTTP plumbing Strata's model clients share (EDGE-1, MODEL-2,
//! MODEL-3): one retry policy, one reading of error answers, one way to
//! stream a body. `strata-ctx-openai` and `strata-ctx-anthropic` ask it; neither
//! decides these things on its own.
//!
//! - [`Retry`]: how often and how long to retry, exponential backoff with
//!   jitter, `Retry-After` / `retry-after-ms` honoured up to a limit.
//! - [`Failure`] and [`classify`]: an error answer becomes the
//!   [`LlmError`] variant callers act on ([`LlmError::ContextTooLong`] for the
//!   providers' "prompt is too long" wordings, [`LlmError::RateLimited`],
//!   [`LlmError::Provider`]) and whether it is worth a retry.
//! - [`send`]: posts a JSON body with retries and returns the successful
//!   response, whose body the client reads whole or streams through
//!   [`SseBody`].

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::Value;
use std::collections::VecDeque;

use strata_ctx_core::{async_trait, LlmError, LlmResult, StreamEvent, StreamSource};

mod sse;
pub use sse::{SseDecoder, SseEvent};

/// When and how long a client retries.
#[derive(Debug, Clone)]
pub struct Retry {
    /// How many times a retryable failure is retried (0: never).
    pub max_retries: u32,
    /// The first backoff wait.
    pub initial: Duration,
    /// The most any backoff wait may be.
    pub max: Duration,
    /// The longest `Retry-After` honoured; a provider asking for more
    /// gets its error returned at once.
    pub max_retry_after: Duration,
    jitter: RandomState,
}

impl Default for Retry {
    /// 3 retries, backoff from 500 ms doubling up to 20 s, `Retry-After`
    /// up to 60 s.
    fn default() -> Self {
        Retry {
            max_retries: 3,
            initial: Duration::from_millis(500),
            max: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
            jitter: RandomState::new(),
        }
    }
}

impl Retry {
    /// The wait before retry number `attempt` (from 0): the backoff
    /// doubled per attempt and capped, then jittered to between half and
    /// all of it so that many clients do not retry in step.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let base = self
            .initial
            .saturating_mul(2u32.saturating_pow(attempt))
            .min(self.max);
        let half = base / 2;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        let random = self.jitter.hash_one((attempt, std::time::SystemTime::now()));
        half + Duration::from_nanos(if nanos == 0 { 0 } else { random % nanos })
    }
}

/// A failed attempt: the error to report, and whether and when to retry.
#[derive(Debug)]
pub struct Failure {
    /// The error reported when no retry follows.
    pub error: LlmError,
    /// Whether a retry may help.
    pub retry: bool,
    /// The wait the provider asked for.
    pub retry_after: Option<Duration>,
}

impl Failure {
    /// A failure not worth retrying.
    pub fn final_(error: LlmError) -> Self {
        Failure {
            error,
            retry: false,
            retry_after: None,
        }
    }
}

/// A transport failure (connection refused or reset, DNS, TLS, a body cut
/// short) as a retryable [`LlmError::Provider`] without status, with the
/// whole chain of causes; a timeout as [`LlmError::Timeout`].
pub fn transport(e: &reqwest::Error, timeout: Duration) -> Failure {
    if e.is_timeout() {
        return Failure::final_(LlmError::Timeout { after: timeout });
    }
    Failure {
        error: LlmError::Provider {
            status: None,
            message: error_chain(e),
        },
        retry: true,
        retry_after: None,
    }
}

/// An error and its causes, joined with `: `.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

/// `retry-after-ms` (in milliseconds) or `Retry-After` in seconds. An
/// HTTP date is not honoured (the backoff applies).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> {
        let v: f64 = headers.get(name)?.to_str().ok()?.trim().parse().ok()?;
        (v.is_finite() && v >= 0.0).then_some(v)
    };
    if let Some(ms) = number("retry-after-ms") {
        return Some(Duration::from_secs_f64(ms.min(86_400_000.0) / 1000.0));
    }
    number("retry-after").map(|s| Duration::from_secs_f64(s.min(86_400.0)))
}

/// The words with which providers say the input does not fit.
const CONTEXT_PHRASES: [&str; 8] = [
    "context_length_exceeded",
    "context length",
    "context window",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "input is too long",
    "request_too_large",
];

/// Reads an error answer of either provider: OpenAI's
/// `{"error": {"message", "type", "code"}}`, Anthropic's
/// `{"type": "error", "error": {"type", "message"}}`, a bare string
/// `error`, or any other body.
///
/// | The provider says | [`LlmError`] | retried |
/// |---|---|---|
/// | 400/413/422 with a context-length code or wording | [`LlmError::ContextTooLong`] | no |
/// | 429 `insufficient_quota` | [`LlmError::Provider`] | no |
/// | 429 | [`LlmError::RateLimited`] with `Retry-After` | yes |
/// | 5xx, Anthropic's 529 `overloaded_error` | [`LlmError::Provider`] | yes |
/// | other 4xx | [`LlmError::Provider`] | no |
pub fn classify(status: u16, body: &[u8], retry_after: Option<Duration>) -> Failure {
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
        return Failure::final_(LlmError::ContextTooLong { message });
    }
    if status == 429 {
        if code == "insufficient_quota" || kind == "insufficient_quota" {
            return Failure::final_(LlmError::Provider {
                status: Some(status),
                message,
            });
        }
        return Failure {
            error: LlmError::RateLimited { retry_after, message },
            retry: true,
            retry_after,
        };
    }
    Failure {
        error: LlmError::Provider {
            status: Some(status),
            message,
        },
        retry: status >= 500,
        retry_after: if status >= 500 { retry_after } else { None },
    }
}

/// Up to 500 characters of a body, for messages.
pub fn body_excerpt(body: &[u8]) -> String {
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

/// Checks a client's base URL and creates its HTTP client: returns the
/// base without trailing slashes and a client sending `user_agent`.
///
/// # Errors
///
/// [`Error::InvalidConfig`](strata_ctx_core::Error::InvalidConfig) naming `base_url` when it is not an `http(s)`
/// URL or the TLS stack cannot be initialised.
pub fn client_for(
    base_url: &str,
    user_agent: &str,
) -> Result<(String, reqwest::Client), strata_ctx_core::Error> {
    let config = |reason: String| strata_ctx_core::Error::InvalidConfig {
        field: "base_url".to_owned(),
        reason,
    };
    let base = base_url.trim().trim_end_matches('/');
    let parsed = reqwest::Url::parse(base).map_err(|e| config(format!("`{base}` is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(config(format!("`{base}` must start with http:// or https://")));
    }
    let http = reqwest::Client::builder()
        .user_agent(user_agent)
        .build()
        .map_err(|e| config(format!("cannot create the HTTP client: {e}")))?;
    Ok((base.to_owned(), http))
}

/// Posts `body` to a token-counting endpoint with the client's retries
/// and reads the count it answers (MODEL-8): one way for both clients.
///
/// # Errors
///
/// As [`send`] and [`read_body`], and [`input_tokens_of`]'s.
pub async fn count_tokens(
    http: &reqwest::Client,
    endpoint: &str,
    headers: &HeaderMap,
    body: &[u8],
    timeout: Duration,
    retry: &Retry,
) -> LlmResult<u64> {
    let response = send(http, endpoint, headers, body, timeout, retry).await?;
    input_tokens_of(&read_body(response, timeout).await?)
}

/// The `input_tokens` of a token-counting endpoint's answer (MODEL-8):
/// Anthropic's `{"input_tokens": N}` and OpenAI's
/// `{"object": "response.input_tokens", "input_tokens": N}` alike.
///
/// # Errors
///
/// [`LlmError::InvalidResponse`] when the body is not JSON with a whole
/// `input_tokens`.
pub fn input_tokens_of(body: &[u8]) -> LlmResult<u64> {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("input_tokens").and_then(serde_json::Value::as_u64))
        .ok_or_else(|| invalid(format!("not a token count: {}", body_excerpt(body))))
}

/// An [`LlmError::InvalidResponse`] with this message.
pub fn invalid(message: impl Into<String>) -> LlmError {
    LlmError::InvalidResponse {
        message: message.into(),
    }
}

/// Posts `body` (JSON) with `headers` to `url`, retrying what is worth
/// retrying under `retry`, and returns the first successful response.
/// `timeout` bounds each attempt up to the response's headers when
/// `whole` is false (a stream reads its body afterwards), or up to the end
/// of the body when it is true.
///
/// # Errors
///
/// The classified error of the last attempt ([`classify`], [`transport`]).
pub async fn send(
    http: &reqwest::Client,
    url: &str,
    headers: &HeaderMap,
    body: &[u8],
    timeout: Duration,
    retry: &Retry,
) -> LlmResult<reqwest::Response> {
    let mut attempt = 0;
    loop {
        let failure = match try_once(http, url, headers, body, timeout).await {
            Ok(response) => return Ok(response),
            Err(failure) => failure,
        };
        if !failure.retry || attempt >= retry.max_retries {
            return Err(failure.error);
        }
        let wait = match failure.retry_after {
            Some(wait) if wait > retry.max_retry_after => return Err(failure.error),
            Some(wait) => wait,
            None => retry.backoff(attempt),
        };
        tokio::time::sleep(wait).await;
        attempt += 1;
    }
}

async fn try_once(
    http: &reqwest::Client,
    url: &str,
    headers: &HeaderMap,
    body: &[u8],
    timeout: Duration,
) -> Result<reqwest::Response, Failure> {
    let request = http
        .post(url)
        .headers(headers.clone())
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.to_vec());
    let response = tokio::time::timeout(timeout, request.send())
        .await
        .map_err(|_| Failure::final_(LlmError::Timeout { after: timeout }))?
        .map_err(|e| transport(&e, timeout))?;
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(response);
    }
    let after = retry_after(response.headers());
    let bytes = tokio::time::timeout(timeout, response.bytes())
        .await
        .map_err(|_| Failure::final_(LlmError::Timeout { after: timeout }))?
        .map_err(|e| transport(&e, timeout))?;
    Err(classify(status, &bytes, after))
}

/// Reads a whole successful body within `timeout`.
///
/// # Errors
///
/// [`LlmError::Timeout`], or [`LlmError::Provider`] without status when the
/// connection broke.
pub async fn read_body(response: reqwest::Response, timeout: Duration) -> LlmResult<Vec<u8>> {
    match tokio::time::timeout(timeout, response.bytes()).await {
        Ok(Ok(bytes)) => Ok(bytes.to_vec()),
        Ok(Err(e)) => Err(transport(&e, timeout).error),
        Err(_) => Err(LlmError::Timeout { after: timeout }),
    }
}

/// The server-sent events of a streamed body (MODEL-3), read chunk by
/// chunk with a limit on the silence between chunks.
#[derive(Debug)]
pub struct SseBody {
    response: reqwest::Response,
    sse: SseDecoder,
    idle: Duration,
    ended: bool,
}

impl SseBody {
    /// Reads `response`'s body as server-sent events; a gap of more than
    /// `idle` between chunks is [`LlmError::Timeout`].
    pub fn new(response: reqwest::Response, idle: Duration) -> Self {
        SseBody {
            response,
            sse: SseDecoder::new(),
            idle,
            ended: false,
        }
    }

    /// The next event, or `None` at the end of the body.
    ///
    /// # Errors
    ///
    /// [`LlmError::StreamCut`] when the connection broke, [`LlmError::Timeout`]
    /// after `idle` without a byte, [`LlmError::InvalidResponse`] for bytes
    /// that are not server-sent events.
    pub async fn next(&mut self) -> LlmResult<Option<SseEvent>> {
        loop {
            if let Some(event) = self.sse.next_event() {
                return Ok(Some(event));
            }
            if self.ended {
                return Ok(None);
            }
            match tokio::time::timeout(self.idle, self.response.chunk()).await {
                Err(_) => return Err(LlmError::Timeout { after: self.idle }),
                Ok(Err(e)) => {
                    return Err(LlmError::StreamCut {
                        message: error_chain(&e),
                    })
                }
                Ok(Ok(Some(bytes))) => self.sse.push(&bytes)?,
                Ok(Ok(None)) => {
                    self.sse.finish()?;
                    self.ended = true;
                }
            }
        }
    }
}

/// A provider's decoder of a streamed answer (MODEL-3): the wire half of
/// a stream, fed one server-sent event at a time, apart from the HTTP body
/// so that it can be tested and fuzzed on bytes.
pub trait StreamDecoder: Send {
    /// Decodes `event` into `out`.
    ///
    /// # Errors
    ///
    /// What the provider's format makes of the event: an invalid answer,
    /// a provider error sent in the stream.
    fn decode(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>) -> LlmResult<()>;

    /// Whether the answer is complete: nothing more is read.
    fn is_done(&self) -> bool;

    /// The body ended before the decoder was done: close what an answer
    /// complete in all but its last marker leaves open. By default,
    /// nothing (the stream is then cut).
    fn at_end(&mut self, _out: &mut VecDeque<StreamEvent>) {}
}

/// The events of a streamed answer: `body`'s server-sent events through a
/// provider's [`StreamDecoder`], as many as each read gives.
#[derive(Debug)]
pub struct SseEvents<D> {
    body: SseBody,
    decoder: D,
}

impl<D: StreamDecoder> SseEvents<D> {
    /// `body` read through `decoder`.
    pub fn new(body: SseBody, decoder: D) -> Self {
        SseEvents { body, decoder }
    }
}

#[async_trait]
impl<D: StreamDecoder> StreamSource for SseEvents<D> {
    async fn next_events(&mut self, out: &mut VecDeque<StreamEvent>) -> LlmResult<bool> {
        loop {
            if self.decoder.is_done() {
                return Ok(false);
            }
            match self.body.next().await? {
                Some(event) => self.decoder.decode(&event, out)?,
                None => {
                    self.decoder.at_end(out);
                    return Ok(!out.is_empty());
                }
            }
            if !out.is_empty() {
                return Ok(true);
            }
        }
    }
}

/// The data of a streamed event as JSON.
///
/// # Errors
///
/// [`LlmError::InvalidResponse`] naming what was sent when it is not JSON,
/// or not JSON of the shape `T` reads.
pub fn event_json<'a, T: serde::Deserialize<'a>>(data: &'a str) -> LlmResult<T> {
    serde_json::from_str(data).map_err(|e| {
        let what = if e.is_data() { "the event expected" } else { "JSON" };
        invalid(format!(
            "a streamed event is not {what} ({e}): {}",
            body_excerpt(data.as_bytes())
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_ctx_testkit::strategy;

    proptest! {
        #![proptest_config(strategy::cases(256))]

        /// Whatever a server sends, reading it gives a typed error, never a
        /// panic; only rate limits and server errors are retried.
        #[test]
        fn any_error_body_is_classified(value in strategy::json_value(), bytes in proptest::collection::vec(any::<u8>(), 0..256), status in 100u16..600) {
            let body = serde_json::json!({"error": value});
            for body in [bytes.clone(), body.to_string().into_bytes()] {
                let failure = classify(status, &body, Some(Duration::from_secs(1)));
                prop_assert_eq!(failure.retry, status == 429 && failure.error.is_retryable() || status >= 500);
                prop_assert!(!failure.error.to_string().is_empty());
            }
        }
    }

    #[test]
    fn errors_are_classified() {
        let f = classify(
            400,
            br#"{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
            None,
        );
        assert!(f.error.is_context_too_long() && !f.retry);
        // Anthropic's own error shape.
        let f = classify(
            400,
            br#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
            None,
        );
        assert!(f.error.is_context_too_long());
        let f = classify(413, br#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}"#, None);
        assert!(f.error.is_context_too_long());
        let f = classify(
            529,
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            Some(Duration::from_secs(1)),
        );
        assert!(f.retry && f.retry_after == Some(Duration::from_secs(1)));
        let f = classify(
            400,
            br#"{"error":{"message":"temperature must be at most 2"}}"#,
            None,
        );
        assert!(
            matches!(
                f.error,
                LlmError::Provider {
                    status: Some(400),
                    ..
                }
            ) && !f.retry
        );
        let f = classify(
            429,
            br#"{"error":{"code":"insufficient_quota","message":"no credit"}}"#,
            None,
        );
        assert!(
            matches!(
                f.error,
                LlmError::Provider {
                    status: Some(429),
                    ..
                }
            ) && !f.retry
        );
        let f = classify(429, b"slow down", Some(Duration::from_secs(2)));
        assert!(
            matches!(&f.error, LlmError::RateLimited { retry_after: Some(d), message } if *d == Duration::from_secs(2) && message == "slow down")
        );
        assert!(f.retry);
        let f = classify(502, b"", None);
        assert!(f.retry);
        assert_eq!(
            f.error.to_string(),
            "the model provider failed with status 502: (empty body)"
        );
        let f = classify(404, br#"{"error":"model 'x' not found"}"#, None);
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
        let r = Retry {
            initial: Duration::from_millis(100),
            max: Duration::from_millis(1000),
            ..Retry::default()
        };
        for attempt in 0..10 {
            let full = Duration::from_millis(100 * 2u64.pow(attempt.min(4))).min(Duration::from_millis(1000));
            let wait = r.backoff(attempt);
            assert!(
                wait >= full / 2 && wait <= full,
                "attempt {attempt}: {wait:?} vs {full:?}"
            );
        }
        assert!(r.backoff(u32::MAX) <= Duration::from_millis(1000));
    }
}

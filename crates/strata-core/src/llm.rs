//! The LLM client trait (CORE-6).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::message::{Message, ToolCall};

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
    /// [`Error::Timeout`](crate::Error::Timeout).
    pub timeout: Option<Duration>,
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
}

/// One model call: the messages to send and the options.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LlmRequest {
    /// The window, in order.
    pub messages: Vec<Message>,
    /// The call's options.
    pub options: LlmOptions,
}

impl LlmRequest {
    /// A request to send `messages` with default options.
    pub fn new(messages: Vec<Message>) -> Self {
        LlmRequest {
            messages,
            options: LlmOptions::default(),
        }
    }

    /// Sets the options. By default, none is set.
    pub fn with_options(mut self, options: LlmOptions) -> Self {
        self.options = options;
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
}

impl Usage {
    /// Usage with these input and output counts and no cache figure.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Usage {
            input_tokens,
            output_tokens,
            cached_input_tokens: None,
        }
    }
}

/// The answer of one model call.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LlmResponse {
    /// The answer's text (may be empty when the model only calls tools).
    pub text: String,
    /// Native tool calls, for providers that return them.
    pub tool_calls: Vec<ToolCall>,
    /// The provider's token figures.
    pub usage: Usage,
}

impl LlmResponse {
    /// A text answer with its usage.
    pub fn new(text: impl Into<String>, usage: Usage) -> Self {
        LlmResponse {
            text: text.into(),
            tool_calls: Vec::new(),
            usage,
        }
    }

    /// Sets the native tool calls. By default, there are none.
    pub fn with_tool_calls(mut self, calls: Vec<ToolCall>) -> Self {
        self.tool_calls = calls;
        self
    }
}

/// A chat model (CORE-6).
///
/// Implementations send the request and return the answer with the
/// provider's usage figures. They report failures with the matching
/// [`Error`](crate::Error) variant, because callers act on the kind:
///
/// - [`Error::ContextTooLong`](crate::Error::ContextTooLong) when the
///   provider says the input is larger than the model's window: the engine
///   then compacts and retries once (HIST-12);
/// - [`Error::Timeout`](crate::Error::Timeout) when the call took longer
///   than [`LlmOptions::timeout`] (or the client's own limit);
/// - [`Error::RateLimited`](crate::Error::RateLimited) on a 429 that the
///   client's own retries did not overcome;
/// - [`Error::Provider`](crate::Error::Provider) for any other error answer,
///   and [`Error::InvalidResponse`](crate::Error::InvalidResponse) for an
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

    /// The context window of the default model in tokens, when the client
    /// knows it. By default, `None`.
    fn context_window(&self) -> Option<u64> {
        None
    }
}

#[async_trait]
impl<T: LlmClient + ?Sized> LlmClient for &T {
    async fn complete(&self, request: LlmRequest) -> Result<LlmResponse> {
        (**self).complete(request).await
    }
    fn context_window(&self) -> Option<u64> {
        (**self).context_window()
    }
}

#[async_trait]
impl<T: LlmClient + ?Sized> LlmClient for Box<T> {
    async fn complete(&self, request: LlmRequest) -> Result<LlmResponse> {
        (**self).complete(request).await
    }
    fn context_window(&self) -> Option<u64> {
        (**self).context_window()
    }
}

#[async_trait]
impl<T: LlmClient + ?Sized> LlmClient for Arc<T> {
    async fn complete(&self, request: LlmRequest) -> Result<LlmResponse> {
        (**self).complete(request).await
    }
    fn context_window(&self) -> Option<u64> {
        (**self).context_window()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    struct Echo;

    #[async_trait]
    impl LlmClient for Echo {
        async fn complete(&self, request: LlmRequest) -> Result<LlmResponse> {
            match request.messages.last() {
                Some(m) => Ok(LlmResponse::new(
                    m.content.clone(),
                    Usage::new(request.messages.len() as u64, 1),
                )),
                None => Err(Error::InvalidResponse {
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
        assert_eq!(shared.context_window(), None);
    }

    #[test]
    fn errors_classify() {
        assert!(Error::ContextTooLong { message: "x".into() }.is_context_too_long());
        assert!(Error::Timeout {
            after: Duration::from_secs(1)
        }
        .is_retryable());
        assert!(Error::Provider {
            status: Some(503),
            message: "busy".into()
        }
        .is_retryable());
        assert!(!Error::Provider {
            status: Some(400),
            message: "bad".into()
        }
        .is_retryable());
        assert_eq!(
            Error::Provider {
                status: Some(400),
                message: "bad".into()
            }
            .to_string(),
            "the model provider failed with status 400: bad"
        );
    }
}

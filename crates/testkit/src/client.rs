//! A scripted [`LlmClient`].

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use strata_ctx_core::{
    async_trait, Endpoint, LlmClient, LlmError, LlmRequest, LlmResponse, LlmResult as Result, Usage,
};

type Responder = dyn Fn(&LlmRequest) -> Result<LlmResponse> + Send + Sync;

/// One queued answer of a [`ScriptedClient`].
#[derive(Debug)]
struct Scripted {
    delay: Duration,
    outcome: Result<LlmResponse>,
}

/// An [`LlmClient`] that answers from a script: queued replies first, in
/// order, then the fallback responder if one is set, else an error.
///
/// Every request is recorded and can be inspected with
/// [`ScriptedClient::requests`]. Delays use `tokio::time::sleep`, so tests
/// that pause tokio's clock run them instantly.
///
/// # Example
///
/// ```
/// use strata_ctx_core::{LlmClient, LlmRequest, Message, Usage};
/// use strata_ctx_testkit::ScriptedClient;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = ScriptedClient::new();
/// client.push_text("first").push_text_with_usage("second", Usage::new(100, 5));
/// let a = client.complete(LlmRequest::new(vec![Message::user("hi")])).await?;
/// assert_eq!(a.text, "first");
/// assert_eq!(client.calls(), 1);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct ScriptedClient {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    queue: Mutex<VecDeque<Scripted>>,
    requests: Mutex<Vec<LlmRequest>>,
    responder: Mutex<Option<Arc<Responder>>>,
    /// Whether it says it offers server-side context management.
    manages_context: std::sync::atomic::AtomicBool,
    /// Who it says it is.
    endpoint: Mutex<Endpoint>,
}

impl std::fmt::Debug for ScriptedClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedClient")
            .field("queued", &lock(&self.inner.queue).len())
            .field("calls", &self.calls())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ScriptedClient {
    /// A client with an empty script.
    pub fn new() -> Self {
        ScriptedClient::default()
    }

    /// Makes the client say it offers every mode of server-side context
    /// management (MODEL-7), as a provider's client would. By default, it
    /// offers none.
    pub fn managing_context(self) -> Self {
        self.inner
            .manages_context
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self
    }

    /// Makes the client say it is `endpoint` ([`LlmClient::endpoint`]),
    /// as a provider's client would. By default, nothing is known.
    pub fn with_endpoint(self, endpoint: Endpoint) -> Self {
        *lock(&self.inner.endpoint) = endpoint;
        self
    }

    /// A client that answers every request with `respond`.
    pub fn from_fn(respond: impl Fn(&LlmRequest) -> Result<LlmResponse> + Send + Sync + 'static) -> Self {
        let client = ScriptedClient::new();
        client.set_fallback(respond);
        client
    }

    /// Answers requests with `respond` once the queue is empty. By default,
    /// an empty queue answers with [`LlmError::Provider`].
    pub fn set_fallback(
        &self,
        respond: impl Fn(&LlmRequest) -> Result<LlmResponse> + Send + Sync + 'static,
    ) -> &Self {
        *lock(&self.inner.responder) = Some(Arc::new(respond));
        self
    }

    /// Queues a reply after `delay`.
    pub fn push(&self, delay: Duration, outcome: Result<LlmResponse>) -> &Self {
        lock(&self.inner.queue).push_back(Scripted { delay, outcome });
        self
    }

    /// Queues a text reply with usage `(0, 0)`.
    pub fn push_text(&self, text: impl Into<String>) -> &Self {
        self.push_text_with_usage(text, Usage::default())
    }

    /// Queues a text reply with the given usage.
    pub fn push_text_with_usage(&self, text: impl Into<String>, usage: Usage) -> &Self {
        self.push(Duration::ZERO, Ok(LlmResponse::new(text, usage)))
    }

    /// Queues a text reply that arrives after `delay`.
    pub fn push_delayed(&self, delay: Duration, text: impl Into<String>) -> &Self {
        self.push(delay, Ok(LlmResponse::new(text, Usage::default())))
    }

    /// Queues an error.
    pub fn push_error(&self, error: LlmError) -> &Self {
        self.push(Duration::ZERO, Err(error))
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<LlmRequest> {
        lock(&self.inner.requests).clone()
    }

    /// The number of requests received so far.
    pub fn calls(&self) -> usize {
        lock(&self.inner.requests).len()
    }

    /// The number of queued replies not yet used.
    pub fn remaining(&self) -> usize {
        lock(&self.inner.queue).len()
    }
}

#[async_trait]
impl LlmClient for ScriptedClient {
    async fn complete(&self, request: LlmRequest) -> Result<LlmResponse> {
        lock(&self.inner.requests).push(request.clone());
        let next = lock(&self.inner.queue).pop_front();
        match next {
            Some(Scripted { delay, outcome }) => {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                outcome
            }
            None => {
                let responder = lock(&self.inner.responder).clone();
                match responder {
                    Some(respond) => respond(&request),
                    None => Err(LlmError::Provider {
                        status: None,
                        message: "the scripted client has no reply left".into(),
                    }),
                }
            }
        }
    }

    fn manages_context(&self, mode: strata_ctx_core::ServerContext) -> bool {
        !mode.is_on()
            || self
                .inner
                .manages_context
                .load(std::sync::atomic::Ordering::Relaxed)
    }

    fn endpoint(&self) -> Endpoint {
        lock(&self.inner.endpoint).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_ctx_core::Message;

    #[tokio::test(start_paused = true)]
    async fn replies_in_order_then_fallback() {
        let client = ScriptedClient::new();
        client
            .push_delayed(Duration::from_secs(500), "slow")
            .push_error(LlmError::ContextTooLong {
                message: "too long".into(),
            });
        let req = LlmRequest::new(vec![Message::user("x")]);
        let started = tokio::time::Instant::now();
        assert_eq!(client.complete(req.clone()).await.unwrap().text, "slow");
        assert!(started.elapsed() >= Duration::from_secs(500));
        assert!(client
            .complete(req.clone())
            .await
            .unwrap_err()
            .is_context_too_long());
        assert!(client.complete(req.clone()).await.is_err());
        client.set_fallback(|r| {
            Ok(LlmResponse::new(
                format!("{} messages", r.messages.len()),
                Usage::new(7, 1),
            ))
        });
        assert_eq!(client.complete(req).await.unwrap().text, "1 messages");
        assert_eq!(client.calls(), 4);
        assert_eq!(client.remaining(), 0);
    }
}

//! A response cache in front of any [`LlmClient`] (MODEL-6): a repeated
//! request is answered from memory or disk, without a network call.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use strata_ctx_core::{
    Clock, ContextEdits, Endpoint, LlmClient, LlmRequest, LlmResponse, LlmResult, LlmStream, MessageId,
    ProviderItem, ServerContext, ThinkingBlock, ToolCall, ToolChoice, ToolResult, ToolSpec,
};

/// The key of a request in a response cache, when who answers is not
/// known: [`cache_key_for`] with [`Endpoint::default`].
pub fn cache_key(request: &LlmRequest) -> String {
    cache_key_for(&Endpoint::default(), request)
}

/// The key of a request to `endpoint` in a response cache: a UUID v5, as
/// 32 hex characters, of the canonical JSON of who answers (the provider,
/// the endpoint's URL and the model used when the request names none) and
/// of the request (the messages' roles, texts, calls, results and
/// reasoning; the tools; the model, token limit, temperature and tool
/// choice). Message ids, timestamps and the time limit are left out: two
/// requests that ask the same thing of the same endpoint have the same
/// key; two clients with different models or endpoints never do.
///
/// ```
/// use strata_ctx_cache::cache_key_for;
/// use strata_ctx_core::{Endpoint, LlmRequest, Message};
///
/// let ask = LlmRequest::new(vec![Message::user("2 + 2?")]);
/// let mini = Endpoint::new("openai", "https://api.openai.com/v1/chat/completions", "gpt-4o-mini");
/// let large = Endpoint::new("openai", "https://api.openai.com/v1/chat/completions", "gpt-4o");
/// assert_ne!(cache_key_for(&mini, &ask), cache_key_for(&large, &ask));
/// assert_eq!(cache_key_for(&mini, &ask), cache_key_for(&mini, &ask.clone()));
/// ```
pub fn cache_key_for(endpoint: &Endpoint, request: &LlmRequest) -> String {
    // Serialised straight from the borrowed request: no copy of the
    // messages' texts beside the one canonical string that is hashed.
    #[derive(Serialize)]
    struct Canonical<'a> {
        scope: &'static str,
        messages: Vec<CanonicalMessage<'a>>,
        tools: &'a [ToolSpec],
        model: Option<&'a str>,
        max_tokens: Option<u32>,
        temperature: Option<f32>,
        tool_choice: Option<&'a ToolChoice>,
        #[serde(skip_serializing_if = "Option::is_none")]
        server_context: Option<&'a ContextEdits>,
        // Who answers; absent when unknown, so keys made before it was
        // part of the key stay the same for clients that do not say.
        #[serde(skip_serializing_if = "unknown")]
        endpoint: &'a Endpoint,
    }
    #[derive(Serialize)]
    struct CanonicalMessage<'a> {
        role: &'a str,
        content: &'a str,
        tool_calls: &'a [ToolCall],
        tool_call_id: Option<&'a str>,
        tool_name: Option<&'a str>,
        result: Option<&'a ToolResult>,
        thinking: &'a [ThinkingBlock],
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        provider_items: &'a [ProviderItem],
    }
    fn unknown(endpoint: &&Endpoint) -> bool {
        endpoint.is_unknown()
    }
    let o = &request.options;
    let canonical = Canonical {
        scope: "strata:cache",
        messages: request
            .messages
            .iter()
            .map(|m| CanonicalMessage {
                role: m.role.as_str(),
                content: &m.content,
                tool_calls: &m.tool_calls,
                tool_call_id: m.tool_call_id.as_deref(),
                tool_name: m.tool_name.as_deref(),
                result: m.result.as_deref(),
                thinking: &m.thinking,
                provider_items: &m.provider_items,
            })
            .collect(),
        tools: &request.tools,
        model: o.model.as_deref(),
        max_tokens: o.max_tokens,
        temperature: o.temperature,
        tool_choice: o.tool_choice.as_ref(),
        server_context: request.server_context.as_ref(),
        endpoint,
    };
    // Serialising these plain structs cannot fail; an empty text would
    // still give a key, one no real request shares.
    let text = serde_json::to_string(&canonical).unwrap_or_default();
    MessageId::derived(&text).to_hex()
}

/// What a [`CachedClient`] did with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheEvent {
    /// The answer came from the cache.
    Hit {
        /// The request's [`cache_key`].
        key: String,
    },
    /// The cache had no fresh answer; the request went to the client.
    Miss {
        /// The request's [`cache_key`].
        key: String,
    },
    /// The client's answer was stored.
    Stored {
        /// The request's [`cache_key`].
        key: String,
    },
    /// A stored answer could not be read or written (a damaged file, a
    /// full disk); the request was served by the client all the same.
    Failed {
        /// The request's [`cache_key`].
        key: String,
        /// What went wrong.
        reason: String,
    },
}

/// How many requests a [`CachedClient`] served from its cache, and how many
/// it passed on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Requests answered from the cache.
    pub hits: u64,
    /// Requests passed on to the client.
    pub misses: u64,
}

/// A stored answer and when it was stored.
#[derive(Serialize, Deserialize)]
struct Entry {
    stored_at_ms: i64,
    response: LlmResponse,
}

enum Backend {
    /// Bounded: the least useful entries go first (moka's TinyLFU), and
    /// none outlives the time to live.
    Memory(moka::sync::Cache<String, (i64, LlmResponse)>),
    Disk(PathBuf),
    Shared(Arc<dyn CacheStore>),
}

/// A cache a [`CachedClient`] keeps its answers in beyond the process
/// (STORE-5): a server several agent processes share, such as Redis
/// (`strata-ctx-redis`). It stores opaque values under keys, each for a
/// time to live, after which it may drop them; the client still checks
/// freshness itself.
///
/// A [`CachedClient`] over a summariser's model is a summary cache.
#[async_trait]
pub trait CacheStore: Send + Sync {
    /// What the cache is, for `Debug` output and reports (`redis://host`).
    fn describe(&self) -> String;

    /// The value stored under `key`, if any.
    ///
    /// # Errors
    ///
    /// Why the cache could not be read (the client then calls the model).
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String>;

    /// Stores `value` under `key` for `ttl`.
    ///
    /// # Errors
    ///
    /// Why it could not be stored (the answer is returned all the same).
    async fn put(&self, key: &str, value: &[u8], ttl: Duration) -> Result<(), String>;
}

type CacheEventFn = Arc<dyn Fn(&CacheEvent) + Send + Sync>;

/// An [`LlmClient`] that answers a repeated request from a cache (MODEL-6),
/// in memory or in a directory, for `ttl`; errors are never stored. Off
/// unless you wrap a client in it.
///
/// [`LlmClient::stream`] serves a cached answer as a stream; a streamed
/// answer that was not cached is passed through without being stored
/// (call [`LlmClient::complete`] for answers you want kept).
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use strata_ctx_cache::CachedClient;
/// use strata_ctx_core::{LlmClient, LlmRequest, Message};
/// use strata_ctx_testkit::ScriptedClient;
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let model = ScriptedClient::new();
/// model.push_text("4");
/// let cached = CachedClient::new(model.clone(), Duration::from_secs(3600));
/// let ask = || LlmRequest::new(vec![Message::user("2 + 2?")]);
/// assert_eq!(cached.complete(ask()).await?.text, "4");
/// assert_eq!(cached.complete(ask()).await?.text, "4", "served from the cache");
/// assert_eq!(model.requests().len(), 1);
/// assert_eq!(cached.stats().hits, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct CachedClient<C> {
    inner: C,
    ttl: Duration,
    backend: Backend,
    clock: Clock,
    events: Option<CacheEventFn>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl<C> fmt::Debug for CachedClient<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let backend = match &self.backend {
            Backend::Memory(_) => "memory".to_owned(),
            Backend::Disk(dir) => dir.display().to_string(),
            Backend::Shared(store) => store.describe(),
        };
        f.debug_struct("CachedClient")
            .field("ttl", &self.ttl)
            .field("backend", &backend)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl<C> CachedClient<C> {
    /// Hits and misses so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }
}

/// The answers a cache in memory holds at most, by default.
pub const DEFAULT_MEMORY_ENTRIES: u64 = 1_000;

fn memory(entries: u64, ttl: Duration) -> Backend {
    Backend::Memory(
        moka::sync::Cache::builder()
            .max_capacity(entries)
            .time_to_live(ttl.max(Duration::from_millis(1)))
            .build(),
    )
}

impl<C: LlmClient> CachedClient<C> {
    /// `inner` behind a cache in memory whose answers stay fresh for `ttl`,
    /// holding at most [`DEFAULT_MEMORY_ENTRIES`] answers (the least used
    /// go first; [`CachedClient::max_entries`] sets another bound).
    pub fn new(inner: C, ttl: Duration) -> Self {
        CachedClient {
            inner,
            ttl,
            backend: memory(DEFAULT_MEMORY_ENTRIES, ttl),
            clock: Clock::system(),
            events: None,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// Holds at most `entries` answers in memory: when more come, the
    /// least used go (a cache on disk or in a shared store is bounded by
    /// its time to live instead).
    pub fn max_entries(mut self, entries: u64) -> Self {
        if matches!(self.backend, Backend::Memory(_)) {
            self.backend = memory(entries, self.ttl);
        }
        self
    }

    /// Keeps the answers in `dir` instead, one JSON file per request
    /// (`<key>.json`, owner-only, written whole or not at all), so that
    /// they outlive the process. The directory is created when needed.
    pub fn on_disk(mut self, dir: impl Into<PathBuf>) -> Self {
        self.backend = Backend::Disk(dir.into());
        self
    }

    /// Keeps the answers in `store` instead, a cache several processes
    /// can share (STORE-5): each entry stored for the time to live.
    pub fn with_store(mut self, store: Arc<dyn CacheStore>) -> Self {
        self.backend = Backend::Shared(store);
        self
    }

    /// Sets the clock that decides freshness. By default, the system clock.
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Sends each [`CacheEvent`] to `callback`; it must return quickly.
    pub fn on_event(mut self, callback: impl Fn(&CacheEvent) + Send + Sync + 'static) -> Self {
        self.events = Some(Arc::new(callback));
        self
    }

    /// The client behind the cache.
    pub fn inner(&self) -> &C {
        &self.inner
    }

    fn emit(&self, event: CacheEvent) {
        if let Some(events) = &self.events {
            events(&event);
        }
    }

    fn fresh(&self, stored_at_ms: i64) -> bool {
        let age = self.clock.now().unix_millis().saturating_sub(stored_at_ms);
        u128::try_from(age).is_ok_and(|age| age < self.ttl.as_millis())
    }

    /// The fresh stored answer of `key`, if any.
    async fn lookup(&self, key: &str) -> Option<LlmResponse> {
        let entry = match &self.backend {
            Backend::Memory(cache) => Ok(cache.get(key)),
            Backend::Disk(dir) => {
                read_entry(&entry_path(dir, key)).map(|entry| entry.map(|e| (e.stored_at_ms, e.response)))
            }
            Backend::Shared(store) => store.get(key).await.and_then(|bytes| match bytes {
                Some(b) => serde_json::from_slice::<Entry>(&b)
                    .map(|e| Some((e.stored_at_ms, e.response)))
                    .map_err(|e| format!("not a cached answer: {e}")),
                None => Ok(None),
            }),
        };
        let found = entry.unwrap_or_else(|reason| {
            self.emit(CacheEvent::Failed {
                key: key.to_owned(),
                reason,
            });
            None
        });
        found.filter(|(at, _)| self.fresh(*at)).map(|(_, r)| r)
    }

    async fn store(&self, key: &str, response: &LlmResponse) {
        let now = self.clock.now().unix_millis();
        let stored = match &self.backend {
            Backend::Memory(cache) => {
                cache.insert(key.to_owned(), (now, response.clone()));
                // Evict now rather than on a later call, so the bound
                // holds at every moment.
                cache.run_pending_tasks();
                Ok(())
            }
            Backend::Disk(dir) => write_entry(
                dir,
                key,
                &Entry {
                    stored_at_ms: now,
                    response: response.clone(),
                },
            ),
            Backend::Shared(store) => {
                let entry = Entry {
                    stored_at_ms: now,
                    response: response.clone(),
                };
                match serde_json::to_vec(&entry) {
                    Ok(bytes) => store.put(key, &bytes, self.ttl).await,
                    Err(e) => Err(format!("cannot serialise the answer: {e}")),
                }
            }
        };
        match stored {
            Ok(()) => self.emit(CacheEvent::Stored { key: key.to_owned() }),
            Err(reason) => self.emit(CacheEvent::Failed {
                key: key.to_owned(),
                reason,
            }),
        }
    }

    async fn hit_or_miss(&self, request: &LlmRequest) -> (String, Option<LlmResponse>) {
        let key = cache_key_for(&self.inner.endpoint(), request);
        match self.lookup(&key).await {
            Some(response) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                self.emit(CacheEvent::Hit { key: key.clone() });
                (key, Some(response))
            }
            None => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                self.emit(CacheEvent::Miss { key: key.clone() });
                (key, None)
            }
        }
    }
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.json"))
}

/// The entry at `path`: `None` when there is none, an error when it
/// cannot be read or is not an entry (it is then replaced on the next
/// store). A symbolic link is never followed.
fn read_entry(path: &Path) -> Result<Option<Entry>, String> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        Ok(meta) if !meta.is_file() => {
            return Err(format!("{} is not a regular file", path.display()));
        }
        Ok(_) => {}
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| format!("{} is not a cached answer: {e}", path.display()))
}

/// Writes `entry` to a temporary file beside its place, then renames it
/// over: a reader sees the old entry or the new, never half of one.
fn write_entry(dir: &Path, key: &str, entry: &Entry) -> Result<(), String> {
    let fail = |what: &str, e: &dyn fmt::Display| format!("cannot {what} in {}: {e}", dir.display());
    strata_ctx_fs::create_private_dir(dir).map_err(|e| fail("create the cache directory", &e))?;
    let bytes = serde_json::to_vec(entry).map_err(|e| fail("serialise the answer", &e))?;
    // One temporary name per write, so that two writers of one key do not
    // meet; a new file, never through a link.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{key}.{}.{n}.tmp", std::process::id()));
    let written = strata_ctx_fs::create_private_file(&tmp)
        .and_then(|mut file| file.write_all(&bytes).and_then(|()| file.sync_all()));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail("write the answer", &e));
    }
    std::fs::rename(&tmp, entry_path(dir, key)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail("store the answer", &e)
    })
}

#[async_trait]
impl<C: LlmClient> LlmClient for CachedClient<C> {
    async fn complete(&self, request: LlmRequest) -> LlmResult<LlmResponse> {
        let (key, cached) = self.hit_or_miss(&request).await;
        if let Some(response) = cached {
            return Ok(response);
        }
        let response = self.inner.complete(request).await?;
        self.store(&key, &response).await;
        Ok(response)
    }

    async fn stream(&self, request: LlmRequest) -> LlmResult<LlmStream> {
        match self.hit_or_miss(&request).await {
            (_, Some(response)) => Ok(LlmStream::from_response(response)),
            (_, None) => self.inner.stream(request).await,
        }
    }

    fn manages_context(&self, mode: ServerContext) -> bool {
        self.inner.manages_context(mode)
    }

    fn endpoint(&self) -> Endpoint {
        self.inner.endpoint()
    }
}

//! A Redis backend for Strata's response and summary caches (STORE-5).
//!
//! [`RedisCache`] is a [`CacheStore`]: a [`CachedClient`] given one with
//! [`CachedClient::with_store`] keeps its answers in Redis, each under
//! `strata:cache:<key>` with the cache's time to live as Redis's own
//! expiry, so that several agent processes on several hosts share them.
//! A `CachedClient` over a summariser's model is a summary cache.
//! A cache that cannot be reached is a miss, reported as a
//! [`CacheEvent::Failed`](strata_ctx_cache::CacheEvent::Failed): the model
//! is asked, nothing fails.
//!
//! ```no_run
//! use std::sync::Arc;
//! use std::time::Duration;
//! use strata_ctx_cache::CachedClient;
//! use strata_ctx_core::LlmClient;
//! use strata_ctx_redis::RedisCache;
//!
//! # async fn run(model: impl LlmClient) -> Result<(), Box<dyn std::error::Error>> {
//! let cache = RedisCache::connect("redis://127.0.0.1:6379").await?;
//! let client = CachedClient::new(model, Duration::from_secs(3600)).with_store(Arc::new(cache));
//! # drop(client);
//! # Ok(())
//! # }
//! ```

use std::time::Duration;

use async_trait::async_trait;
use redis::aio::MultiplexedConnection;
use redis::AsyncCommands;
use strata_ctx_cache::CacheStore;
#[cfg(doc)]
use strata_ctx_cache::CachedClient;

/// The prefix of every key the cache writes.
pub const KEY_PREFIX: &str = "strata:cache:";

/// Why the cache could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot use the Redis cache at {url}: {reason}")]
#[non_exhaustive]
pub struct RedisError {
    /// The URL given, without its password.
    pub url: String,
    /// Redis's reason.
    pub reason: String,
}

/// Answers kept in Redis (STORE-5).
pub struct RedisCache {
    url: String,
    connection: tokio::sync::Mutex<MultiplexedConnection>,
    client: redis::Client,
}

impl std::fmt::Debug for RedisCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCache")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// `url` without a password.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}://…@{}", &url[..scheme], &url[at + 1..]),
        _ => url.to_owned(),
    }
}

impl RedisCache {
    /// Connects to the Redis server at `url` (`redis://host:6379/0`).
    ///
    /// # Errors
    ///
    /// [`RedisError`] when the URL is not valid or the server cannot be
    /// reached.
    pub async fn connect(url: &str) -> Result<RedisCache, RedisError> {
        let fail = |e: redis::RedisError| RedisError {
            url: redact(url),
            reason: e.to_string(),
        };
        let client = redis::Client::open(url).map_err(fail)?;
        let connection = client.get_multiplexed_async_connection().await.map_err(fail)?;
        Ok(RedisCache {
            url: redact(url),
            connection: tokio::sync::Mutex::new(connection),
            client,
        })
    }

    /// Runs `op` on the connection; when it fails, once more on a new
    /// connection (a restarted server, a dropped link): reads and writes
    /// of the cache are safe to repeat.
    async fn with_connection<T, F, Fut>(&self, op: F) -> Result<T, String>
    where
        F: Fn(MultiplexedConnection) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>>,
    {
        let connection = self.connection.lock().await.clone();
        match op(connection).await {
            Ok(v) => Ok(v),
            Err(first)
                if first.is_io_error() || first.is_connection_dropped() || first.is_connection_refusal() =>
            {
                let fresh = self
                    .client
                    .get_multiplexed_async_connection()
                    .await
                    .map_err(|e| format!("{first}; reconnecting: {e}"))?;
                *self.connection.lock().await = fresh.clone();
                op(fresh).await.map_err(|e| e.to_string())
            }
            Err(e) => Err(e.to_string()),
        }
    }
}

#[async_trait]
impl CacheStore for RedisCache {
    fn describe(&self) -> String {
        self.url.clone()
    }

    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        let key = format!("{KEY_PREFIX}{key}");
        self.with_connection(|mut c| {
            let key = key.clone();
            async move { c.get::<_, Option<Vec<u8>>>(key).await }
        })
        .await
    }

    async fn put(&self, key: &str, value: &[u8], ttl: Duration) -> Result<(), String> {
        let key = format!("{KEY_PREFIX}{key}");
        let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        self.with_connection(|mut c| {
            let (key, value) = (key.clone(), value.to_vec());
            async move { c.pset_ex::<_, _, ()>(key, value, millis).await }
        })
        .await
    }
}

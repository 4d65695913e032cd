//! A PostgreSQL backend for Strata's conversation store (STORE-4).
//!
//! [`PgBackend`] keeps conversations in three tables (created and
//! upgraded by embedded, versioned migrations) with the semantics of the
//! JSONL directory: records in order, each kept as the JSON line the JSONL
//! log would hold, so that `strata-ctx store export` gives the same bytes;
//! one writer per conversation, held by a PostgreSQL advisory lock on the
//! writer's own connection, so that a writer that dies (even by `SIGKILL`)
//! lets the next one in at once; each append one transaction, so that no
//! half of it is ever read back. Several agent servers on several hosts
//! can share one database.
//!
//! The API is synchronous, as the engine's persistence is: each backend
//! runs its connections on a runtime of its own thread, so it can be used
//! inside any async runtime, or none.
//!
//! ```no_run
//! use strata_ctx_store::Backend;
//! use strata_ctx_postgres::PgBackend;
//!
//! let backend = PgBackend::connect("postgres://strata@db.internal/agents")?;
//! let conversation = backend.open("ada", "2026-11-23", true)?;
//! # drop(conversation);
//! # Ok::<(), strata_ctx_store::Error>(())
//! ```

use std::future::Future;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use strata_ctx_store::{Backend, ConversationLog, Error, Loaded, Record, Result};
use tokio_postgres::{Client, NoTls};

mod conversation;
mod memory;
mod migrate;

pub use migrate::{MIGRATIONS, SCHEMA_VERSION};

/// How long one database operation may take before it fails as
/// transient.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What a backend and its open conversations share: the runtime on a
/// thread of its own that runs their connections (alive while any of them
/// is), the shared connection for reads, the settings.
struct Shared {
    url: String,
    handle: tokio::runtime::Handle,
    client: tokio::sync::Mutex<Option<Arc<Client>>>,
    timeout: Duration,
    /// Dropping it, with the last backend or conversation, ends the thread
    /// and its runtime.
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Shared {
    fn start(url: &str, timeout: Duration) -> Result<Arc<Shared>> {
        let (ready_tx, ready_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("strata-postgres".into())
            .spawn(
                move || match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                    Ok(runtime) => {
                        let _ = ready_tx.send(Ok(runtime.handle().clone()));
                        // Runs the connections until the last user is gone.
                        let _ = runtime.block_on(stop_rx);
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.to_string()));
                    }
                },
            )
            .map_err(|e| failed(format!("cannot start its thread: {e}"), false))?;
        let handle = ready_rx
            .recv()
            .map_err(|_| failed("its thread ended at once", false))?
            .map_err(|e| failed(format!("cannot start its runtime: {e}"), false))?;
        Ok(Arc::new(Shared {
            url: url.to_owned(),
            handle,
            client: tokio::sync::Mutex::new(None),
            timeout,
            _stop: stop_tx,
        }))
    }

    /// Runs `future` on the runtime within the time limit and waits for
    /// it (from any thread, inside an async runtime or not).
    fn run<T: Send + 'static>(&self, future: impl Future<Output = Result<T>> + Send + 'static) -> Result<T> {
        let (tx, rx) = mpsc::sync_channel(1);
        let timeout = self.timeout;
        self.handle.spawn(async move {
            let outcome = match tokio::time::timeout(timeout, future).await {
                Ok(outcome) => outcome,
                Err(_) => Err(failed(format!("no answer within {} s", timeout.as_secs()), true)),
            };
            let _ = tx.send(outcome);
        });
        rx.recv().map_err(|_| failed("its runtime stopped", true))?
    }

    /// Runs `f` with the shared connection, connecting (again) when there
    /// is none or it closed. A call that fails as transient is made once
    /// more on a new connection: every call made so is a read or an
    /// idempotent write.
    fn query<T, F, Fut>(self: &Arc<Self>, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(Arc<Client>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T>> + Send,
    {
        let f = Arc::new(f);
        let once = || {
            let shared = Arc::clone(self);
            let f = Arc::clone(&f);
            async move {
                let client = {
                    let mut slot = shared.client.lock().await;
                    match slot.as_ref().filter(|c| !c.is_closed()) {
                        Some(c) => Arc::clone(c),
                        None => {
                            let c = Arc::new(connect(shared.url.clone()).await?);
                            *slot = Some(Arc::clone(&c));
                            c
                        }
                    }
                };
                f(client).await
            }
        };
        match self.run(once()) {
            Err(e) if e.is_transient() => self.run(once()),
            other => other,
        }
    }
}

impl Shared {
    /// The first column of what `sql` returns for the text parameters
    /// `args`, as texts, in order.
    fn texts(self: &Arc<Self>, sql: &'static str, args: Vec<String>) -> Result<Vec<String>> {
        self.query(move |c| {
            let args = args.clone();
            async move {
                let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = args
                    .iter()
                    .map(|a| a as &(dyn tokio_postgres::types::ToSql + Sync))
                    .collect();
                let rows = c.query(sql, &params).await.map_err(db)?;
                Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
            }
        })
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn failed(message: impl Into<String>, transient: bool) -> Error {
    Error::Backend {
        backend: "postgres",
        message: message.into(),
        transient,
    }
}

/// A database error as the store's: connection failures and server
/// shutdowns are transient, the rest are not.
fn db(e: tokio_postgres::Error) -> Error {
    let transient = e.is_closed()
        || e.code().is_some_and(|c| {
            let code = c.code();
            code.starts_with("08") || code.starts_with("57P") || code == "40001" || code == "40P01"
        })
        || e.to_string().contains("connection");
    let message = match e.as_db_error() {
        Some(d) => format!("{}: {}", d.code().code(), d.message()),
        None => e.to_string(),
    };
    failed(message, transient)
}

/// Connects to `url` on the worker; the connection runs there.
async fn connect(url: String) -> Result<Client> {
    let (client, connection) = tokio_postgres::connect(&url, NoTls).await.map_err(db)?;
    tokio::spawn(async move {
        // Ends when the client is dropped or the server goes away; the
        // next query then fails as transient.
        let _ = connection.await;
    });
    Ok(client)
}

pub(crate) fn check_name(name: &str) -> Result<()> {
    if strata_ctx_fs::is_plain_name(name) {
        Ok(())
    } else {
        Err(Error::InvalidName {
            name: name.to_owned(),
        })
    }
}

/// Where a conversation is, for errors that name a place.
fn place(namespace: &str, name: &str) -> std::path::PathBuf {
    format!("postgres:{namespace}/{name}").into()
}

/// The conversation store in a PostgreSQL database (STORE-4).
///
/// Share one behind an `Arc`; each open conversation has a connection of
/// its own (its writer's lock lives there).
#[derive(Debug)]
pub struct PgBackend {
    shared: Arc<Shared>,
}

impl PgBackend {
    /// Connects to the database at `url` (`postgres://user@host/db`) and
    /// brings its schema up to date ([`PgBackend::migrate`]).
    ///
    /// # Errors
    ///
    /// [`Error::Backend`] when the database cannot be reached or a
    /// migration fails.
    pub fn connect(url: &str) -> Result<PgBackend> {
        PgBackend::connect_with_timeout(url, DEFAULT_TIMEOUT)
    }

    /// As [`PgBackend::connect`], each operation limited to `timeout`
    /// (by default, [`DEFAULT_TIMEOUT`]).
    ///
    /// # Errors
    ///
    /// As [`PgBackend::connect`].
    pub fn connect_with_timeout(url: &str, timeout: Duration) -> Result<PgBackend> {
        let backend = PgBackend {
            shared: Shared::start(url, timeout)?,
        };
        backend.migrate()?;
        Ok(backend)
    }

    /// Connects to the database at `url` to read from it: no migration
    /// runs and nothing is written, so listing or inspecting a store never
    /// changes it.
    ///
    /// # Errors
    ///
    /// [`Error::Backend`] when the database cannot be reached, or when its
    /// schema is missing or not at this build's version
    /// ([`SCHEMA_VERSION`]): [`PgBackend::connect`] or `strata-ctx store
    /// migrate` brings it up to date.
    pub fn connect_read_only(url: &str) -> Result<PgBackend> {
        let backend = PgBackend {
            shared: Shared::start(url, DEFAULT_TIMEOUT)?,
        };
        let version = backend.shared.query(|client| async move {
            let row = client
                .query_one("SELECT to_regclass('strata_schema_migrations') IS NOT NULL", &[])
                .await
                .map_err(db)?;
            if !row.get::<_, bool>(0) {
                return Ok(0);
            }
            migrate::version(&client).await
        })?;
        if version != SCHEMA_VERSION {
            return Err(failed(
                format!(
                    "the database's Strata schema is at version {version}, this build reads version {SCHEMA_VERSION}; \
                     `strata-ctx store migrate` (or PgBackend::connect) brings it up to date"
                ),
                false,
            ));
        }
        Ok(backend)
    }

    /// Applies the migrations the database lacks, in order, each in a
    /// transaction, under a lock that makes concurrent callers wait.
    /// Returns the versions applied.
    ///
    /// # Errors
    ///
    /// [`Error::Backend`].
    pub fn migrate(&self) -> Result<Vec<i32>> {
        self.shared
            .query(|client| async move { migrate::run(&client).await })
    }

    /// The schema version the database is at.
    ///
    /// # Errors
    ///
    /// [`Error::Backend`].
    pub fn schema_version(&self) -> Result<i32> {
        self.shared
            .query(|client| async move { migrate::version(&client).await })
    }
}

impl Backend for PgBackend {
    fn open(&self, namespace: &str, name: &str, create: bool) -> Result<Box<dyn ConversationLog>> {
        check_name(namespace)?;
        check_name(name)?;
        let (ns, nm, url) = (namespace.to_owned(), name.to_owned(), self.shared.url.clone());
        let (client, last) = self.shared.run(async move {
            let client = connect_locked(url, lock_key(&ns, &nm), place(&ns, &nm)).await?;
            if !create && !exists(&client, &ns, &nm).await? {
                return Err(Error::NotFound {
                    name: nm.clone(),
                    dir: place(&ns, ""),
                });
            }
            client
                .execute(
                    "INSERT INTO strata_conversations (namespace, name) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    &[&ns, &nm],
                )
                .await
                .map_err(db)?;
            let last = last_seq(&client, &ns, &nm).await?;
            Ok((client, last))
        })?;
        self.set_current(namespace, name)?;
        Ok(Box::new(conversation::PgConversation {
            backend: PgBackend {
                shared: Arc::clone(&self.shared),
            },
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            writer: Arc::new(client),
            next: last + 1,
        }))
    }

    fn load(&self, namespace: &str, name: &str) -> Result<Loaded> {
        let lines = self.lines(namespace, name)?;
        let mut records = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            records.push(
                serde_json::from_str::<Record>(line).map_err(|e| Error::CorruptRecord {
                    path: place(namespace, name),
                    line: i + 1,
                    reason: e.to_string(),
                })?,
            );
        }
        Ok(Loaded::new(records))
    }

    fn lines(&self, namespace: &str, name: &str) -> Result<Vec<String>> {
        check_name(namespace)?;
        check_name(name)?;
        let (ns, nm) = (namespace.to_owned(), name.to_owned());
        self.shared.query(move |c| {
            let (ns, nm) = (ns.clone(), nm.clone());
            async move {
                if !exists(&c, &ns, &nm).await? {
                    return Err(Error::NotFound {
                        name: nm.clone(),
                        dir: place(&ns, ""),
                    });
                }
                let rows = c
                    .query(
                        "SELECT line FROM strata_records WHERE namespace = $1 AND name = $2 ORDER BY seq",
                        &[&ns, &nm],
                    )
                    .await
                    .map_err(db)?;
                Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
            }
        })
    }

    fn list(&self, namespace: &str) -> Result<Vec<String>> {
        check_name(namespace)?;
        self.shared.texts(
            "SELECT name FROM strata_conversations WHERE namespace = $1 ORDER BY name COLLATE \"C\"",
            vec![namespace.to_owned()],
        )
    }

    fn namespaces(&self) -> Result<Vec<String>> {
        self.shared.texts(
            "SELECT namespace FROM strata_conversations GROUP BY namespace ORDER BY namespace COLLATE \"C\"",
            Vec::new(),
        )
    }

    fn current(&self, namespace: &str) -> Result<Option<String>> {
        check_name(namespace)?;
        let names = self.shared.texts(
            "SELECT name FROM strata_current WHERE namespace = $1",
            vec![namespace.to_owned()],
        )?;
        Ok(names.into_iter().next())
    }

    fn set_current(&self, namespace: &str, name: &str) -> Result<()> {
        check_name(namespace)?;
        check_name(name)?;
        let (ns, nm) = (namespace.to_owned(), name.to_owned());
        self.shared.query(move |c| {
            let (ns, nm) = (ns.clone(), nm.clone());
            async move {
                c.execute(
                    "INSERT INTO strata_current (namespace, name) VALUES ($1, $2) \
                     ON CONFLICT (namespace) DO UPDATE SET name = EXCLUDED.name",
                    &[&ns, &nm],
                )
                .await
                .map_err(db)?;
                Ok(())
            }
        })
    }
}

fn lock_key(namespace: &str, name: &str) -> String {
    format!("strata:{namespace}/{name}")
}

/// Connects anew and takes the writer's lock `key` on that connection
/// (STORE-2): [`Error::Locked`] naming `place` when another writer holds
/// it. The lock lives as long as the connection, or until it is released.
pub(crate) async fn connect_locked(url: String, key: String, place: std::path::PathBuf) -> Result<Client> {
    let client = connect(url).await?;
    let locked: bool = client
        .query_one("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", &[&key])
        .await
        .map_err(db)?
        .get(0);
    if locked {
        Ok(client)
    } else {
        Err(Error::Locked { path: place })
    }
}

/// Whether the conversation exists.
async fn exists(client: &Client, ns: &str, nm: &str) -> Result<bool> {
    Ok(client
        .query_opt(
            "SELECT 1 FROM strata_conversations WHERE namespace = $1 AND name = $2",
            &[&ns, &nm],
        )
        .await
        .map_err(db)?
        .is_some())
}

/// The sequence number of the conversation's last record, 0 for none.
pub(crate) async fn last_seq(client: &Client, ns: &str, nm: &str) -> Result<i64> {
    Ok(client
        .query_one(
            "SELECT COALESCE(MAX(seq), 0) FROM strata_records WHERE namespace = $1 AND name = $2",
            &[&ns, &nm],
        )
        .await
        .map_err(db)?
        .get(0))
}

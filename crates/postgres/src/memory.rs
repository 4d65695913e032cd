//! A user's long-term memory in the database (MEM-2, STORE-4).

use std::sync::Arc;

use strata_ctx_memory::{LongTermMemory, MemoryError, MemoryLog};
use strata_ctx_store::Error;
use tokio_postgres::Client;

use crate::conversation::unlock;
use crate::{check_name, connect_locked, db, PgBackend};

/// A user's long-term memory log in the database (MEM-2, STORE-4): its
/// connection holds the namespace's writer lock.
struct PgMemoryLog {
    backend: PgBackend,
    namespace: String,
    writer: Arc<Client>,
    next: i64,
}

impl std::fmt::Debug for PgMemoryLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgMemoryLog")
            .field("namespace", &self.namespace)
            .finish_non_exhaustive()
    }
}

/// The advisory lock key of a user's memory writer.
fn memory_key(namespace: &str) -> String {
    format!("strata-memory:{namespace}")
}

fn memory_error(e: Error) -> MemoryError {
    match e {
        Error::Locked { path } => MemoryError::Locked { path },
        other => MemoryError::Backend {
            backend: "postgres",
            message: other.to_string(),
        },
    }
}

impl PgBackend {
    /// The long-term memory of `namespace` (MEM-2), kept in this database
    /// beside the conversations, its writer's lock held by a connection of
    /// its own until it is dropped.
    ///
    /// # Errors
    ///
    /// [`MemoryError::Locked`] when another writer holds it,
    /// [`MemoryError::InvalidName`], [`MemoryError::Backend`].
    pub fn memory(&self, namespace: &str) -> std::result::Result<LongTermMemory, MemoryError> {
        check_name(namespace).map_err(|_| MemoryError::InvalidName {
            name: namespace.to_owned(),
        })?;
        let (ns, url) = (namespace.to_owned(), self.shared.url.clone());
        let (client, max) = self
            .shared
            .run(async move {
                let client =
                    connect_locked(url, memory_key(&ns), format!("postgres:memory/{ns}").into()).await?;
                let max: i64 = client
                    .query_one(
                        "SELECT COALESCE(MAX(seq), 0) FROM strata_memory WHERE namespace = $1",
                        &[&ns],
                    )
                    .await
                    .map_err(db)?
                    .get(0);
                Ok((client, max))
            })
            .map_err(memory_error)?;
        let log = PgMemoryLog {
            backend: PgBackend {
                shared: Arc::clone(&self.shared),
            },
            namespace: namespace.to_owned(),
            writer: Arc::new(client),
            next: max + 1,
        };
        LongTermMemory::with_log(namespace, Box::new(log))
    }
}

impl MemoryLog for PgMemoryLog {
    fn describe(&self) -> String {
        format!("postgres:memory/{}", self.namespace)
    }

    fn lines(&mut self) -> std::result::Result<Vec<String>, MemoryError> {
        self.backend
            .shared
            .texts(
                "SELECT line FROM strata_memory WHERE namespace = $1 ORDER BY seq",
                vec![self.namespace.clone()],
            )
            .map_err(memory_error)
    }

    fn append(&mut self, line: &str) -> std::result::Result<(), MemoryError> {
        let (ns, line, seq, writer) = (
            self.namespace.clone(),
            line.to_owned(),
            self.next,
            Arc::clone(&self.writer),
        );
        self.backend
            .shared
            .run(async move {
                writer
                    .execute(
                        "INSERT INTO strata_memory (namespace, seq, line) VALUES ($1, $2, $3)",
                        &[&ns, &seq, &line],
                    )
                    .await
                    .map_err(db)?;
                Ok(())
            })
            .map_err(memory_error)?;
        self.next += 1;
        Ok(())
    }
}

impl Drop for PgMemoryLog {
    fn drop(&mut self) {
        unlock(
            &self.backend.shared,
            &self.writer,
            format!("strata-memory:{}", self.namespace),
        );
    }
}

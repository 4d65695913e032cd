//! One conversation open for writing in the database (STORE-1, STORE-2).

use std::sync::Arc;

use strata_ctx_store::{ConversationLog, Error, Loaded, Record, Result};
use tokio_postgres::Client;

use crate::{connect_locked, db, failed, last_seq, lock_key, place, Backend, PgBackend, Shared};

/// One conversation open for writing: its own connection holds the
/// writer's advisory lock, released when it is dropped or dies.
pub(crate) struct PgConversation {
    pub(crate) backend: PgBackend,
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) writer: Arc<Client>,
    /// The sequence number of the next record.
    pub(crate) next: i64,
}

impl std::fmt::Debug for PgConversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgConversation")
            .field("namespace", &self.namespace)
            .field("name", &self.name)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// Inserts `lines` as records `first..` of a conversation in one
/// transaction.
async fn insert(
    client: Arc<Client>,
    ns: String,
    nm: String,
    first: i64,
    lines: Arc<Vec<String>>,
) -> Result<()> {
    client.batch_execute("BEGIN").await.map_err(db)?;
    // Within PostgreSQL's limit of parameters per statement.
    for (chunk_at, chunk) in lines.chunks(1_000).enumerate() {
        let start = first + (chunk_at * 1_000) as i64;
        let seqs: Vec<i64> = (0..chunk.len() as i64).map(|i| start + i).collect();
        let mut sql = String::from("INSERT INTO strata_records (namespace, name, seq, line) VALUES ");
        let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![&ns, &nm];
        for (i, (seq, line)) in seqs.iter().zip(chunk).enumerate() {
            if i > 0 {
                sql.push_str(", ");
            }
            sql.push_str(&format!("($1, $2, ${}, ${})", 3 + 2 * i, 4 + 2 * i));
            params.push(seq);
            params.push(line);
        }
        if let Err(e) = client.execute(sql.as_str(), &params).await {
            let _ = client.batch_execute("ROLLBACK").await;
            return Err(db(e));
        }
    }
    client.batch_execute("COMMIT").await.map_err(db)
}

/// Takes the writer's lock of a conversation on a new connection, and
/// reads its last sequence number.
async fn relock(url: String, ns: String, nm: String) -> Result<(Client, i64)> {
    let client = connect_locked(url, lock_key(&ns, &nm), place(&ns, &nm)).await?;
    let last = last_seq(&client, &ns, &nm).await?;
    Ok((client, last))
}

impl PgConversation {
    /// Writes `lines` as the next records in one transaction. When the
    /// connection drops, the lock is taken again on a new one and the
    /// records written again unless the transaction had committed (safe:
    /// this is the only writer).
    fn write(&mut self, lines: Vec<String>) -> Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let shared = &self.backend.shared;
        let count = lines.len() as i64;
        // Shared with a second attempt, not copied for it.
        let lines = Arc::new(lines);
        let (ns, nm) = (self.namespace.clone(), self.name.clone());
        let first = self.next;
        let outcome = shared.run(insert(
            Arc::clone(&self.writer),
            ns.clone(),
            nm.clone(),
            first,
            Arc::clone(&lines),
        ));
        match outcome {
            Ok(()) => {
                self.next += count;
                Ok(())
            }
            Err(e) if e.is_transient() => {
                let (client, stored) = shared.run(relock(shared.url.clone(), ns.clone(), nm.clone()))?;
                self.writer = Arc::new(client);
                self.next = stored + 1;
                if stored >= first + count - 1 {
                    return Ok(());
                }
                shared.run(insert(Arc::clone(&self.writer), ns, nm, self.next, lines))?;
                self.next += count;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

impl ConversationLog for PgConversation {
    fn load(&self) -> Result<Loaded> {
        self.backend.load(&self.namespace, &self.name)
    }

    fn append(&mut self, records: &[Record]) -> Result<()> {
        let mut lines = Vec::with_capacity(records.len());
        for r in records {
            lines.push(serde_json::to_string(r).map_err(|e| failed(e.to_string(), false))?);
        }
        self.write(lines)
    }

    fn append_lines(&mut self, lines: &[String]) -> Result<()> {
        for (i, line) in lines.iter().enumerate() {
            if let Err(e) = serde_json::from_str::<Record>(line) {
                return Err(Error::CorruptRecord {
                    path: place(&self.namespace, &self.name),
                    line: i + 1,
                    reason: e.to_string(),
                });
            }
        }
        self.write(lines.to_vec())
    }
}

/// Releases a writer's lock at once, rather than when the server notices
/// the connection closed; on a dead connection it is already released.
pub(crate) fn unlock(shared: &Shared, writer: &Arc<Client>, key: String) {
    let writer = Arc::clone(writer);
    let _ = shared.run(async move {
        writer
            .query_one("SELECT pg_advisory_unlock(hashtextextended($1, 0))", &[&key])
            .await
            .map_err(db)?;
        Ok(())
    });
}

impl Drop for PgConversation {
    fn drop(&mut self) {
        unlock(
            &self.backend.shared,
            &self.writer,
            lock_key(&self.namespace, &self.name),
        );
    }
}

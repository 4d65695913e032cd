//! The schema, as embedded, versioned migrations (STORE-4).

use tokio_postgres::Client;

use crate::{db, Result};

/// The migrations, in order: a version and its SQL. A database records
/// the versions it has in `strata_schema_migrations`.
pub const MIGRATIONS: &[(i32, &str)] = &[
    (
        1,
        "CREATE TABLE strata_conversations (
        namespace text NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (namespace, name)
    );
    CREATE TABLE strata_records (
        namespace text NOT NULL,
        name text NOT NULL,
        seq bigint NOT NULL,
        line text NOT NULL,
        PRIMARY KEY (namespace, name, seq),
        FOREIGN KEY (namespace, name) REFERENCES strata_conversations ON DELETE CASCADE
    );
    CREATE TABLE strata_current (
        namespace text PRIMARY KEY,
        name text NOT NULL
    );",
    ),
    (
        2,
        "CREATE TABLE strata_memory (
        namespace text NOT NULL,
        seq bigint NOT NULL,
        line text NOT NULL,
        PRIMARY KEY (namespace, seq)
    );",
    ),
];

/// The newest schema version this crate knows.
pub const SCHEMA_VERSION: i32 = 2;

/// A constant key for the advisory lock that serialises migrators.
const MIGRATION_LOCK: i64 = 0x5354_5241_5441_0001;

/// Applies the missing migrations; returns the versions applied.
pub(crate) async fn run(client: &Client) -> Result<Vec<i32>> {
    client
        .query_one("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db)?;
    let outcome = apply(client).await;
    let _ = client
        .query_one("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await;
    outcome
}

async fn apply(client: &Client) -> Result<Vec<i32>> {
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS strata_schema_migrations (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )",
        )
        .await
        .map_err(db)?;
    let have = version(client).await?;
    let mut applied = Vec::new();
    for (v, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > have) {
        let script =
            format!("BEGIN; {sql}; INSERT INTO strata_schema_migrations (version) VALUES ({v}); COMMIT;");
        if let Err(e) = client.batch_execute(&script).await {
            let _ = client.batch_execute("ROLLBACK").await;
            return Err(db(e));
        }
        applied.push(*v);
    }
    Ok(applied)
}

/// The newest version applied, 0 for none.
pub(crate) async fn version(client: &Client) -> Result<i32> {
    let row = client
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM strata_schema_migrations",
            &[],
        )
        .await
        .map_err(db)?;
    Ok(row.get(0))
}

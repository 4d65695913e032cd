//! STORE-4, STORE-6 on a real PostgreSQL server: the store contract, and
//! failure and load tests. They need a server, so they are `#[ignore]`d:
//! `cargo test -- --include-ignored` runs them with
//! `STRATA_TEST_POSTGRES_URL` naming a database (`.ci/run` does when a
//! server answers). Nothing is mocked.

// Test code: unwrapping, panicking and printing are how it reports; the
// house lints (Cargo.toml) are for library code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub
)]

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use strata_ctx_core::{Message, Usage};
use strata_ctx_postgres::PgBackend;
use strata_ctx_store::{contract, Backend, Error, Record};

/// The server the tests run against. They are `#[ignore]`d: `cargo test
/// -- --include-ignored` runs them where `STRATA_TEST_POSTGRES_URL` names
/// one (`.ci/run` does), and they fail, rather than pass, without it.
fn url() -> String {
    match std::env::var("STRATA_TEST_POSTGRES_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!("STRATA_TEST_POSTGRES_URL must name a PostgreSQL server for this test"),
    }
}

/// A namespace no other run uses.
fn fresh(tag: &str) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("t-{tag}-{}-{nanos}", std::process::id())
}

fn record(i: usize) -> Record {
    if i.is_multiple_of(2) {
        Record::User {
            message: Message::user(format!("message {i}")).with_created_at(None),
        }
    } else {
        Record::Usage {
            usage: Usage::new(i as u64, 1),
        }
    }
}

/// The sequence numbers of `lines`, read back from the records.
fn numbers(lines: &[String]) -> Vec<usize> {
    lines
        .iter()
        .map(|l| match serde_json::from_str::<Record>(l).unwrap() {
            Record::User { message } => message.content["message ".len()..].parse().unwrap(),
            Record::Usage { usage } => usage.input_tokens as usize,
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[test]
#[ignore = "needs a PostgreSQL server: set STRATA_TEST_POSTGRES_URL, run with --include-ignored"]
fn store_6_postgres_keeps_the_contract() {
    let url = url();
    let backend = PgBackend::connect(&url).unwrap();
    assert_eq!(
        backend.schema_version().unwrap(),
        strata_ctx_postgres::SCHEMA_VERSION
    );
    assert!(backend.migrate().unwrap().is_empty(), "migrations apply once");
    contract::check_backend(&backend, &fresh("contract")).unwrap();
}

/// 16 writers on distinct conversations and 2 on the same one, 500
/// appends each: nothing lost, order kept, the contender refused.
#[test]
#[ignore = "needs a PostgreSQL server: set STRATA_TEST_POSTGRES_URL, run with --include-ignored"]
fn store_6_concurrent_writers() {
    let url = url();
    let backend = Arc::new(PgBackend::connect(&url).unwrap());
    let ns = fresh("load");
    let writers: Vec<_> = (0..16)
        .map(|w| {
            let backend = Arc::clone(&backend);
            let ns = ns.clone();
            std::thread::spawn(move || {
                let mut log = backend.open(&ns, &format!("c{w}"), true).unwrap();
                for i in 0..500 {
                    log.append(&[record(i)]).unwrap();
                }
            })
        })
        .collect();
    // Two writers race for one conversation: one gets it, the other is
    // refused while it is held.
    let (a, b) = (Arc::clone(&backend), Arc::clone(&backend));
    let (na, nb) = (ns.clone(), ns.clone());
    let barrier = Arc::new(std::sync::Barrier::new(2));
    let (ba, bb) = (Arc::clone(&barrier), Arc::clone(&barrier));
    let contend = |backend: Arc<PgBackend>, ns: String, barrier: Arc<std::sync::Barrier>| {
        move || {
            barrier.wait();
            match backend.open(&ns, "shared", true) {
                Ok(mut log) => {
                    for i in 0..500 {
                        log.append(&[record(i)]).unwrap();
                    }
                    true
                }
                Err(Error::Locked { .. }) => false,
                Err(e) => panic!("{e}"),
            }
        }
    };
    let ta = std::thread::spawn(contend(a, na, ba));
    let tb = std::thread::spawn(contend(b, nb, bb));
    let won = [ta.join().unwrap(), tb.join().unwrap()];
    for w in writers {
        w.join().unwrap();
    }
    for w in 0..16 {
        let lines = backend.lines(&ns, &format!("c{w}")).unwrap();
        assert_eq!(numbers(&lines), (0..500).collect::<Vec<_>>(), "conversation c{w}");
    }
    let shared = numbers(&backend.lines(&ns, "shared").unwrap());
    // Both may have got it in turn (the first finished before the second
    // tried); never at once, so the records never interleave.
    let winners = won.iter().filter(|w| **w).count();
    assert!(winners >= 1);
    let expected: Vec<usize> = (0..winners).flat_map(|_| 0..500).collect();
    assert_eq!(shared, expected);
    eprintln!("concurrent writers: 16 × 500 appends kept in order; the shared conversation taken by {winners} of 2 writers in turn, never at once");
}

/// A writer process killed with SIGKILL in the middle of its appends:
/// every record read back is whole, in order, and the next writer gets in
/// at once (the lock died with the connection).
#[test]
#[ignore = "needs a PostgreSQL server: set STRATA_TEST_POSTGRES_URL, run with --include-ignored"]
fn store_6_writer_killed_mid_append() {
    let url = url();
    if let Ok(ns) = std::env::var("STRATA_PG_CHILD_NAMESPACE") {
        // The child: append until killed.
        let backend = PgBackend::connect(&url).unwrap();
        let mut log = backend.open(&ns, "victim", true).unwrap();
        for i in 0.. {
            log.append(&[record(2 * i), record(2 * i + 1)]).unwrap();
        }
        return;
    }
    let ns = fresh("kill");
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "store_6_writer_killed_mid_append",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("STRATA_PG_CHILD_NAMESPACE", &ns)
        .env("STRATA_TEST_POSTGRES_URL", &url)
        .spawn()
        .unwrap();
    let backend = PgBackend::connect(&url).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let n = backend.lines(&ns, "victim").map(|l| l.len()).unwrap_or(0);
        if n >= 200 || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGKILL: no destructor runs, the connection just goes.
    child.kill().unwrap();
    child.wait().unwrap();
    let lines = backend.lines(&ns, "victim").unwrap();
    assert!(lines.len() >= 200, "{} records", lines.len());
    assert!(lines.len().is_multiple_of(2), "appends are whole: no half of one");
    assert_eq!(numbers(&lines), (0..lines.len()).collect::<Vec<_>>());
    // The lock went with the dead connection (the server notices within
    // moments).
    let mut reopened = None;
    for _ in 0..100 {
        match backend.open(&ns, "victim", false) {
            Ok(log) => {
                reopened = Some(log);
                break;
            }
            Err(Error::Locked { .. }) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("{e}"),
        }
    }
    let mut log = reopened.expect("the next writer gets in");
    log.append(&[record(lines.len())]).unwrap();
    eprintln!(
        "killed writer: {} whole records kept, next writer appended after it",
        lines.len()
    );
}

/// The writer's connection terminated by the server between two appends:
/// the next append takes the lock again on a new connection and writes
/// once, nothing lost, nothing doubled.
#[test]
#[ignore = "needs a PostgreSQL server: set STRATA_TEST_POSTGRES_URL, run with --include-ignored"]
fn store_6_connection_dropped() {
    let url = url();
    let backend = PgBackend::connect(&url).unwrap();
    let ns = fresh("drop");
    let mut log = backend.open(&ns, "c", true).unwrap();
    log.append(&[record(0), record(1)]).unwrap();
    terminate_writers(&url, &ns);
    log.append(&[record(2), record(3)]).unwrap();
    log.append(&[record(4)]).unwrap();
    assert_eq!(numbers(&backend.lines(&ns, "c").unwrap()), [0, 1, 2, 3, 4]);
    assert_eq!(backend.list(&ns).unwrap(), ["c"], "reads reconnect too");
}

/// Ends, from the server's side, every connection that holds a writer's
/// lock of namespace `ns`, and waits (up to 10 s) until each has exited: a
/// backend told to end holds its locks until then, and a writer that
/// reconnects at once would find its lock still taken.
fn terminate_writers(url: &str, ns: &str) {
    let sql = format!(
        "WITH k AS (SELECT hashtextextended('strata:{ns}/c', 0) AS key) \
         SELECT pg_terminate_backend(l.pid, 10000) FROM pg_locks l, k \
         WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted \
         AND l.classid::bigint = ((k.key >> 32) & 4294967295) \
         AND l.objid::bigint = (k.key & 4294967295)"
    );
    psql(url, &sql);
}

/// The database restarted between two appends (run when
/// `STRATA_TEST_POSTGRES_RESTART` holds the command that restarts it).
#[test]
#[ignore = "restarts the PostgreSQL server: set STRATA_TEST_POSTGRES_URL and STRATA_TEST_POSTGRES_RESTART, run alone with --include-ignored"]
fn store_6_database_restarted() {
    let url = url();
    let restart = std::env::var("STRATA_TEST_POSTGRES_RESTART")
        .expect("STRATA_TEST_POSTGRES_RESTART must hold the command that restarts the server");
    let backend = PgBackend::connect(&url).unwrap();
    let ns = fresh("restart");
    let mut log = backend.open(&ns, "c", true).unwrap();
    log.append(&[record(0)]).unwrap();
    let status = Command::new("sh").args(["-c", &restart]).status().unwrap();
    assert!(status.success(), "{restart}");
    // The server takes a moment to accept connections again; the append
    // fails as transient until then, and then succeeds once.
    let mut appended = false;
    for _ in 0..60 {
        match log.append(&[record(1)]) {
            Ok(()) => {
                appended = true;
                break;
            }
            Err(e) if e.is_transient() => std::thread::sleep(Duration::from_millis(500)),
            Err(e) => panic!("{e}"),
        }
    }
    assert!(appended);
    assert_eq!(numbers(&backend.lines(&ns, "c").unwrap()), [0, 1]);
}

/// MEM-2 in the database: a user's memory saved, updated and forgotten,
/// one writer at a time, and read back by the next.
#[test]
#[ignore = "needs a PostgreSQL server: set STRATA_TEST_POSTGRES_URL, run with --include-ignored"]
fn store_4_memory_in_postgres() {
    use strata_ctx_memory::{MemoryChange, MemoryError};
    let url = url();
    let backend = PgBackend::connect(&url).unwrap();
    let user = fresh("mem");
    let mut memory = backend.memory(&user).unwrap();
    let MemoryChange::Added(tabs) = memory.save("Ada prefers tabs.").unwrap() else {
        panic!("added")
    };
    assert!(matches!(
        memory.save("ada prefers TABS").unwrap(),
        MemoryChange::Unchanged(_)
    ));
    memory.save("Ada deploys with Docker.").unwrap();
    memory.update(&tabs.id, "Ada prefers spaces.").unwrap();
    assert!(matches!(backend.memory(&user), Err(MemoryError::Locked { .. })));
    drop(memory);
    let mut memory = backend.memory(&user).unwrap();
    let texts: Vec<&str> = memory.facts().iter().map(|f| f.text.as_str()).collect();
    assert_eq!(texts, ["Ada prefers spaces.", "Ada deploys with Docker."]);
    memory.forget(&tabs.id).unwrap();
    assert_eq!(
        memory.search("docker compose", 3)[0].0.text,
        "Ada deploys with Docker."
    );
    drop(memory);
    assert_eq!(backend.memory(&user).unwrap().facts().len(), 1);
}

fn psql(url: &str, sql: &str) -> String {
    let o = Command::new("psql").arg(url).args(["-qAt", "-c", sql]).output();
    match o {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        Ok(o) => panic!("psql: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => panic!("psql is needed to act from the server's side: {e}"),
    }
}

/// Reads never write: a read-only connection to a database without the
/// schema says so and creates nothing; once migrated, it reads.
#[test]
#[ignore = "needs a PostgreSQL server: set STRATA_TEST_POSTGRES_URL, run with --include-ignored"]
fn store_4_read_only_connection_writes_nothing() {
    let url = url();
    let db = fresh("ro").replace('-', "_");
    psql(&url, &format!("CREATE DATABASE {db}"));
    let (base, _) = url.rsplit_once('/').unwrap();
    let db_url = format!("{base}/{db}");
    let refused = PgBackend::connect_read_only(&db_url).unwrap_err();
    assert!(refused.to_string().contains("store migrate"), "{refused}");
    assert_eq!(
        psql(&db_url, "SELECT to_regclass('strata_schema_migrations') IS NULL"),
        "t",
        "a read-only connection created the schema"
    );
    drop(PgBackend::connect(&db_url).unwrap());
    let reader = PgBackend::connect_read_only(&db_url).unwrap();
    assert!(reader.namespaces().unwrap().is_empty());
    drop(reader);
    psql(&url, &format!("DROP DATABASE {db} WITH (FORCE)"));
}

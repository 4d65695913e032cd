//! `strata-ctx store`: conversations between backends (STORE-4, STORE-6):
//! list, import, export byte for byte, migrate.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Subcommand};
use serde_json::json;
use strata_ctx::postgres::PgBackend;
use strata_ctx::replay::{turns, Turn};
use strata_ctx::store::{Backend, Store};
use strata_ctx::{CharCounter, Config, History, Message, MessageId};

use super::{note, out, out_json_pretty};
use crate::error::CliError;
use crate::input::read_file_conversation;

/// Arguments of `strata-ctx store`.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// The store: a directory (the JSONL store) or a PostgreSQL URL
    /// (`postgres://user@host/db`).
    #[arg(
        long,
        value_name = "DIR|URL",
        global = true,
        default_value = ".strata/conversations"
    )]
    store: String,
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// The namespaces and their conversations, the current one marked.
    List {
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Brings conversations in: a JSONL store directory (every namespace
    /// and conversation, byte for byte, and which is current), or
    /// transcripts (each file, or each file of a directory, becomes a
    /// conversation named after it).
    Import {
        /// A store directory, or transcripts.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The namespace of imported transcripts.
        #[arg(long, default_value = "imported")]
        namespace: String,
    },
    /// Writes every conversation out as a JSONL store directory, byte for
    /// byte.
    Export {
        /// The directory to write (created; existing conversations in it
        /// are not overwritten).
        #[arg(long, value_name = "DIR")]
        to: PathBuf,
        /// Only this namespace. By default, every one.
        #[arg(long)]
        namespace: Option<String>,
    },
    /// Brings a database's schema up to date (a directory needs none).
    Migrate,
}

/// The store `strata-ctx store` works on when `--store` is not given.
pub const DEFAULT_STORE: &str = ".strata/conversations";

/// The backend `spec` names.
pub fn backend(spec: &str) -> Result<Box<dyn Backend>, CliError> {
    if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        let pg = PgBackend::connect(spec).map_err(|e| CliError::Runtime(e.to_string()))?;
        return Ok(Box::new(pg));
    }
    Ok(Box::new(
        Store::open(spec).map_err(|e| CliError::Runtime(e.to_string()))?,
    ))
}

/// The backend `spec` names, to read from: nothing is created or
/// migrated, so a read never writes (a missing directory holds nothing; a
/// database without the schema says so).
pub fn read_backend(spec: &str) -> Result<Box<dyn Backend>, CliError> {
    if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        let pg = PgBackend::connect_read_only(spec).map_err(|e| CliError::Runtime(e.to_string()))?;
        return Ok(Box::new(pg));
    }
    Ok(Box::new(Store::open_existing(spec)))
}

pub fn runtime(e: strata_ctx::store::Error) -> CliError {
    match e {
        strata_ctx::store::Error::InvalidName { .. }
        | strata_ctx::store::Error::CorruptRecord { .. }
        | strata_ctx::store::Error::NotFound { .. } => CliError::Input(e.to_string()),
        other => CliError::Runtime(other.to_string()),
    }
}

/// Runs `strata-ctx store` on the store `--store` names.
pub fn run(args: &StoreArgs, store: Option<&str>) -> Result<(), CliError> {
    let spec = store.unwrap_or(DEFAULT_STORE);
    match &args.action {
        Action::Migrate => {
            if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
                let pg = PgBackend::connect(spec).map_err(|e| CliError::Runtime(e.to_string()))?;
                let version = pg.schema_version().map_err(runtime)?;
                out(&format!("schema at version {version}\n"))
            } else {
                out("a directory store needs no migration\n")
            }
        }
        Action::List { json } => list(&*read_backend(spec)?, *json),
        Action::Import { paths, namespace } => {
            let to = backend(spec)?;
            let mut conversations = 0;
            for path in paths {
                conversations += import(&*to, path, namespace)?;
            }
            note(&format!("imported {conversations} conversation(s) into {}", spec));
            Ok(())
        }
        Action::Export { to, namespace } => {
            let from = read_backend(spec)?;
            let dir = Store::open(to).map_err(runtime)?;
            let mut conversations = 0;
            let namespaces = match namespace {
                Some(ns) => vec![ns.clone()],
                None => from.namespaces().map_err(runtime)?,
            };
            for ns in namespaces {
                conversations += copy(&*from, &dir, &ns)?;
            }
            note(&format!(
                "exported {conversations} conversation(s) to {}",
                to.display()
            ));
            Ok(())
        }
    }
}

fn list(store: &dyn Backend, json_out: bool) -> Result<(), CliError> {
    let mut report = serde_json::Map::new();
    let mut text = String::new();
    for ns in store.namespaces().map_err(runtime)? {
        let current = store.current(&ns).map_err(runtime)?;
        let names = store.list(&ns).map_err(runtime)?;
        text.push_str(&format!("{ns}\n"));
        for name in &names {
            let mark = if current.as_deref() == Some(name.as_str()) {
                "*"
            } else {
                " "
            };
            text.push_str(&format!("  {mark} {name}\n"));
        }
        report.insert(ns, json!({"current": current, "conversations": names}));
    }
    if json_out {
        return out_json_pretty(&serde_json::Value::Object(report));
    }
    out(&text)
}

/// Copies every conversation of namespace `ns` from `from` to `to`, byte
/// for byte, and which one is current. Conversations `to` already has are
/// left alone (refused, named).
fn copy(from: &dyn Backend, to: &dyn Backend, ns: &str) -> Result<usize, CliError> {
    let names = from.list(ns).map_err(runtime)?;
    let existing = to.list(ns).map_err(runtime)?;
    for name in &names {
        if existing.contains(name) {
            return Err(CliError::Input(format!(
                "{ns}/{name} is already in the destination: not overwritten"
            )));
        }
        let lines = from.lines(ns, name).map_err(runtime)?;
        let mut log = to.open(ns, name, true).map_err(runtime)?;
        log.append_lines(&lines).map_err(runtime)?;
    }
    if let Some(current) = from.current(ns).map_err(runtime)? {
        if names.contains(&current) {
            to.set_current(ns, &current).map_err(runtime)?;
        }
    }
    Ok(names.len())
}

/// Whether `path` is a JSONL store directory: a directory holding
/// directories.
fn is_store(path: &Path) -> bool {
    std::fs::read_dir(path)
        .map(|entries| entries.flatten().any(|e| e.file_type().is_ok_and(|t| t.is_dir())))
        .unwrap_or(false)
}

fn import(to: &dyn Backend, path: &Path, namespace: &str) -> Result<usize, CliError> {
    if path.is_dir() && is_store(path) {
        let from = Store::open(path).map_err(runtime)?;
        let mut n = 0;
        for ns in from.namespaces().map_err(runtime)? {
            n += copy(&from, to, &ns)?;
        }
        return Ok(n);
    }
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| CliError::Runtime(format!("{}: {e}", path.display())))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json" || x == "jsonl"))
            .collect();
        files.sort();
        files
    } else {
        vec![path.to_owned()]
    };
    for file in &files {
        let conversation = read_file_conversation(file)?;
        let name = file
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| CliError::Input(format!("{}: not a usable name", file.display())))?;
        let mut log = to.open(namespace, name, true).map_err(runtime)?;
        if !log.load().map_err(runtime)?.records.is_empty() {
            return Err(CliError::Input(format!(
                "{namespace}/{name} is already in the store: not overwritten"
            )));
        }
        log.append(&records_of(&conversation.messages)).map_err(runtime)?;
    }
    Ok(files.len())
}

/// The conversation log of a transcript: its rounds, steps and answers as
/// the engine records them (STORE-1); the system prompt, which logs do
/// not hold, is left out.
fn records_of(messages: &[Message]) -> Vec<strata_ctx::history::Record> {
    let mut history = History::new(Config::default(), Arc::new(CharCounter));
    history.set_recording(true);
    let leading = messages
        .iter()
        .take_while(|m| m.role == strata_ctx::Role::System)
        .count();
    let (body, _repairs) = strata_ctx::history::repair(&messages[leading..]);
    for turn in turns(&body) {
        match turn {
            Turn::Begin(user) => {
                // A round the transcript left without an answer ends with
                // an empty one, its id derived from the next round's.
                if history.round_open() {
                    let id = MessageId::derived(&format!("strata:unanswered:{}", user.id));
                    history.finish_round(Message::assistant("").with_id(id).with_created_at(None));
                }
                history.begin_round(user.clone());
            }
            Turn::Step(assistant, results) => {
                history.record_step(assistant.clone(), results.into_iter().cloned().collect());
            }
            Turn::Finish(answer) => history.finish_round(answer.clone()),
            _ => {}
        }
    }
    history.take_records()
}

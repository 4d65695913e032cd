//! `strata-ctx memory`: a user's long-term memory (MEM-2): list, add,
//! forget and search its facts.

use clap::{Args, Subcommand};
use serde_json::json;
use strata_ctx::{LongTermMemory, MemoryChange};

use super::{out, out_json_pretty};
use crate::error::CliError;

/// Arguments of `strata-ctx memory`.
#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// The memory store: a directory, or a PostgreSQL URL
    /// (`postgres://user@host/db`).
    #[arg(
        long = "store",
        visible_alias = "dir",
        value_name = "DIR|URL",
        default_value = ".strata/memory"
    )]
    store: String,
    /// Whose memory: the namespace, one per user.
    #[arg(long = "user-id", value_name = "NAME")]
    user: String,
    /// One JSON document instead of text.
    #[arg(long)]
    json: bool,
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Lists the facts, oldest first.
    List,
    /// Saves a fact (nothing changes when it is already known).
    Add {
        /// The fact.
        text: String,
    },
    /// Forgets the fact with this id.
    Forget {
        /// The fact's id (`m3`).
        id: String,
    },
    /// The facts most relevant to a text, best first.
    Search {
        /// The text.
        query: String,
        /// How many facts at most.
        #[arg(long, default_value_t = 5)]
        limit: usize,
    },
}

/// The memory of `user` in the store `spec`: a directory or a PostgreSQL
/// URL.
pub fn open_memory(spec: &str, user: &str) -> Result<LongTermMemory, CliError> {
    let opened = if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
        let pg =
            strata_ctx::postgres::PgBackend::connect(spec).map_err(|e| CliError::Runtime(e.to_string()))?;
        pg.memory(user)
    } else {
        LongTermMemory::open(spec, user)
    };
    opened.map_err(|e| match e {
        strata_ctx::memory::MemoryError::InvalidName { .. } => CliError::Input(e.to_string()),
        other => CliError::Runtime(other.to_string()),
    })
}

/// Runs `strata-ctx memory`.
pub fn run(args: &MemoryArgs) -> Result<(), CliError> {
    let mut memory = open_memory(&args.store, &args.user)?;
    let fact_json = |f: &strata_ctx::memory::Fact| json!({"id": f.id, "text": f.text, "created_at": f.created_at, "updated_at": f.updated_at});
    match &args.action {
        Action::List => {
            if args.json {
                return out_json_pretty(&json!(memory.facts().iter().map(fact_json).collect::<Vec<_>>()));
            }
            let mut text = String::new();
            for f in memory.facts() {
                text.push_str(&format!("{:<5} {}\n", f.id, f.text));
            }
            if text.is_empty() {
                text = format!("no facts about {}\n", args.user);
            }
            out(&text)
        }
        Action::Add { text } => {
            let change = memory.save(text).map_err(|e| CliError::Input(e.to_string()))?;
            report(&change, args.json)
        }
        Action::Forget { id } => {
            let change = memory.forget(id).map_err(|e| CliError::Input(e.to_string()))?;
            report(&change, args.json)
        }
        Action::Search { query, limit } => {
            let found = memory.search(query, *limit);
            if args.json {
                let list: Vec<_> = found
                    .iter()
                    .map(|(f, score)| {
                        let mut v = fact_json(f);
                        v["score"] = json!(score);
                        v
                    })
                    .collect();
                return out_json_pretty(&json!(list));
            }
            let mut text = String::new();
            for (f, score) in &found {
                text.push_str(&format!("{:<5} {score:>6.2}  {}\n", f.id, f.text));
            }
            if text.is_empty() {
                text = "nothing relevant\n".to_owned();
            }
            out(&text)
        }
    }
}

fn report(change: &MemoryChange, json_out: bool) -> Result<(), CliError> {
    if json_out {
        let (what, fact) = match change {
            MemoryChange::Added(f) => ("added", f),
            MemoryChange::Updated { after, .. } => ("updated", after),
            MemoryChange::Forgotten(f) => ("forgotten", f),
            MemoryChange::Unchanged(f) => ("unchanged", f),
            // A change this command does not know yet.
            #[allow(unreachable_patterns)]
            _ => return out(&format!("{change}\n")),
        };
        return out_json_pretty(&json!({"change": what, "id": fact.id, "text": fact.text}));
    }
    out(&format!("{change}\n"))
}

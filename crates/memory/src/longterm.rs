//! Long-term memory per namespace (MEM-2): facts about a user kept across
//! conversations, saved explicitly or extracted by a model at the end of
//! a round, updated rather than duplicated, forgotten on request, and
//! retrieved by relevance to the current input.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use strata_ctx_core::{Clock, Timestamp};

use crate::rank::{bm25, overlap, words};

/// How alike (by their words) a new fact must be to an old one to count
/// as the same fact.
const SAME_FACT: f64 = 0.85;
/// The longest fact, in bytes.
const MAX_FACT_BYTES: usize = 1_000;

/// The heading of the rendered memory.
pub const MEMORY_HEADING: &str = "What you remember about this user from earlier conversations:";

/// What can go wrong with long-term memory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// A file of the store could not be read or written.
    #[error("cannot use {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The store's file is a symbolic link (REL-4).
    #[error("{path} is a symbolic link; the memory store never writes through one")]
    Symlink {
        /// The file.
        path: PathBuf,
    },
    /// Another writer holds the namespace.
    #[error("{path} is in use by another writer")]
    Locked {
        /// The file.
        path: PathBuf,
    },
    /// The namespace is not a plain name.
    #[error("`{name}` is not a namespace name (letters, digits, `-`, `_`, `.`; at most 128 bytes)")]
    InvalidName {
        /// The name given.
        name: String,
    },
    /// A line of the store does not parse.
    #[error("{path}, line {line}: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// Why it does not parse.
        reason: String,
    },
    /// No fact has this id.
    #[error("no fact has the id `{id}`")]
    NotFound {
        /// The id.
        id: String,
    },
    /// The fact is empty.
    #[error("a fact cannot be empty")]
    Empty,
    /// A database backend failed (STORE-4); nothing was written.
    #[error("the {backend} memory store failed: {message}")]
    Backend {
        /// The backend (`postgres`, …).
        backend: &'static str,
        /// What failed, with the server's reason.
        message: String,
    },
    /// The model's answer could not be used; nothing was changed.
    #[error("the model's answer could not be used: {reason}")]
    Model {
        /// Why.
        reason: String,
    },
}

type Result<T, E = MemoryError> = std::result::Result<T, E>;

/// One fact about the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Fact {
    /// A short id (`m1`, `m2`, …), stable for the fact's life.
    pub id: String,
    /// The fact.
    pub text: String,
    /// When it was first saved.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// What a write did; every write is one (for the engine's events).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryChange {
    /// A new fact.
    Added(Fact),
    /// A fact changed.
    Updated {
        /// As it was.
        before: Fact,
        /// As it is.
        after: Fact,
    },
    /// A fact was removed.
    Forgotten(Fact),
    /// The fact was already known (the same, or nearly the same, words):
    /// nothing changed.
    Unchanged(Fact),
}

impl std::fmt::Display for MemoryChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryChange::Added(fact) => write!(f, "added {}: {}", fact.id, fact.text),
            MemoryChange::Updated { before, after } => {
                write!(f, "updated {}: {} -> {}", after.id, before.text, after.text)
            }
            MemoryChange::Forgotten(fact) => write!(f, "forgot {}: {}", fact.id, fact.text),
            MemoryChange::Unchanged(fact) => write!(f, "already known {}: {}", fact.id, fact.text),
        }
    }
}

/// A line of the store.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Op {
    Save { fact: Fact },
    Forget { id: String },
}

/// Turns texts into vectors, for stores that have an embedding model
/// (MEM-2); [`LongTermMemory::search_with`] ranks facts by cosine
/// similarity with it instead of by their words.
pub trait Embed: Send + Sync {
    /// The vector of `text`.
    fn embed(&self, text: &str) -> Vec<f32>;
}

/// Where a namespace's memory log lives (MEM-2, STORE-4): its lines in
/// order, and appends by its one writer. The file of [`LongTermMemory::open`]
/// is the default; `strata-ctx-postgres` keeps it in the database that
/// holds the conversations.
pub trait MemoryLog: Send + std::fmt::Debug {
    /// Where the log is, for errors (`/…/ada.memory.jsonl`,
    /// `postgres:ada`).
    fn describe(&self) -> String;

    /// The log's lines, in order, without a torn last line.
    ///
    /// # Errors
    ///
    /// The log's read error.
    fn lines(&mut self) -> Result<Vec<String>>;

    /// Appends one line (without its newline), whole or not at all.
    ///
    /// # Errors
    ///
    /// The log's write error; nothing is written then.
    fn append(&mut self, line: &str) -> Result<()>;
}

/// A user's long-term memory (MEM-2): one namespace, kept as an
/// append-only log of saves and forgets, by one writer at a time. Loading
/// replays the log.
///
/// ```
/// use strata_ctx_memory::{LongTermMemory, MemoryChange};
///
/// let dir = tempfile::tempdir()?;
/// let mut memory = LongTermMemory::open(dir.path(), "ada")?;
/// let MemoryChange::Added(fact) = memory.save("Ada prefers tabs in Python.")? else { unreachable!() };
/// assert!(matches!(memory.save("ada prefers TABS in python")?, MemoryChange::Unchanged(_)));
/// memory.update(&fact.id, "Ada prefers 4 spaces in Python since 2026.")?;
/// let found = memory.search("how to indent python", 3);
/// assert_eq!(found[0].0.text, "Ada prefers 4 spaces in Python since 2026.");
/// drop(memory);
/// assert_eq!(LongTermMemory::open(dir.path(), "ada")?.facts().len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct LongTermMemory {
    log: Box<dyn MemoryLog>,
    namespace: String,
    facts: Vec<Fact>,
    next_id: u64,
    clock: Clock,
}

impl LongTermMemory {
    /// Opens (or creates) the memory of `namespace` in the directory
    /// `dir`: the file `<dir>/<namespace>.memory.jsonl`, owner-only, never
    /// through a link, locked for its one writer; a torn last line, from a
    /// write cut short, is cut off.
    ///
    /// # Errors
    ///
    /// [`MemoryError::InvalidName`], [`MemoryError::Locked`] when another
    /// writer holds it, [`MemoryError::Symlink`], [`MemoryError::Corrupt`]
    /// for a line (other than a torn last one) that does not parse,
    /// [`MemoryError::Io`].
    pub fn open(dir: impl AsRef<Path>, namespace: &str) -> Result<Self> {
        check_name(namespace)?;
        let log = crate::file_log::FileLog::open(dir.as_ref(), namespace)?;
        LongTermMemory::with_log(namespace, Box::new(log))
    }

    /// The memory of `namespace` kept in `log` (another backend's).
    ///
    /// # Errors
    ///
    /// [`MemoryError::InvalidName`], [`MemoryError::Corrupt`] for a line
    /// that does not parse, or the log's error.
    pub fn with_log(namespace: &str, log: Box<dyn MemoryLog>) -> Result<Self> {
        check_name(namespace)?;
        let mut memory = LongTermMemory {
            log,
            namespace: namespace.to_owned(),
            facts: Vec::new(),
            next_id: 1,
            clock: Clock::system(),
        };
        let lines = memory.log.lines()?;
        for (i, line) in lines.iter().enumerate() {
            let op = serde_json::from_str::<Op>(line).map_err(|e| MemoryError::Corrupt {
                path: memory.log.describe().into(),
                line: i + 1,
                reason: e.to_string(),
            })?;
            memory.apply(op);
        }
        Ok(memory)
    }

    /// Sets the clock that stamps facts. By default, the system's.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Save { fact } => {
                if let Some(n) = fact.id.strip_prefix('m').and_then(|n| n.parse::<u64>().ok()) {
                    self.next_id = self.next_id.max(n + 1);
                }
                match self.facts.iter_mut().find(|f| f.id == fact.id) {
                    Some(old) => *old = fact,
                    None => self.facts.push(fact),
                }
            }
            Op::Forget { id } => self.facts.retain(|f| f.id != id),
        }
    }

    /// Writes `op` whole and applies it.
    fn write(&mut self, op: Op) -> Result<()> {
        let line = serde_json::to_string(&op).map_err(|e| MemoryError::Model {
            reason: e.to_string(),
        })?;
        self.log.append(&line)?;
        self.apply(op);
        Ok(())
    }

    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Where the log is.
    pub fn describe(&self) -> String {
        self.log.describe()
    }

    /// The facts, oldest first.
    pub fn facts(&self) -> &[Fact] {
        &self.facts
    }

    /// The fact with `id`.
    pub fn get(&self, id: &str) -> Option<&Fact> {
        self.facts.iter().find(|f| f.id == id)
    }

    /// Saves `text` as a fact, unless a fact with the same (or nearly the
    /// same) words is known: then nothing changes.
    ///
    /// # Errors
    ///
    /// [`MemoryError::Empty`], [`MemoryError::Io`].
    pub fn save(&mut self, text: &str) -> Result<MemoryChange> {
        let text = clean(text)?;
        if let Some(same) = self.facts.iter().find(|f| overlap(&f.text, &text) >= SAME_FACT) {
            return Ok(MemoryChange::Unchanged(same.clone()));
        }
        let now = self.clock.now();
        let fact = Fact {
            id: format!("m{}", self.next_id),
            text,
            created_at: now,
            updated_at: now,
        };
        self.write(Op::Save { fact: fact.clone() })?;
        Ok(MemoryChange::Added(fact))
    }

    /// Replaces the text of fact `id` (a contradiction or a refinement).
    ///
    /// # Errors
    ///
    /// [`MemoryError::NotFound`], [`MemoryError::Empty`],
    /// [`MemoryError::Io`].
    pub fn update(&mut self, id: &str, text: &str) -> Result<MemoryChange> {
        let text = clean(text)?;
        let before = self
            .get(id)
            .cloned()
            .ok_or_else(|| MemoryError::NotFound { id: id.to_owned() })?;
        if before.text == text {
            return Ok(MemoryChange::Unchanged(before));
        }
        let after = Fact {
            text,
            updated_at: self.clock.now(),
            ..before.clone()
        };
        self.write(Op::Save { fact: after.clone() })?;
        Ok(MemoryChange::Updated { before, after })
    }

    /// Removes fact `id`.
    ///
    /// # Errors
    ///
    /// [`MemoryError::NotFound`], [`MemoryError::Io`].
    pub fn forget(&mut self, id: &str) -> Result<MemoryChange> {
        let fact = self
            .get(id)
            .cloned()
            .ok_or_else(|| MemoryError::NotFound { id: id.to_owned() })?;
        self.write(Op::Forget { id: id.to_owned() })?;
        Ok(MemoryChange::Forgotten(fact))
    }

    /// The `k` facts most relevant to `query` by their words (BM25), best
    /// first, with their scores; facts sharing no word with it are left
    /// out.
    pub fn search(&self, query: &str, k: usize) -> Vec<(&Fact, f64)> {
        let documents: Vec<Vec<String>> = self.facts.iter().map(|f| words(&f.text)).collect();
        let scores = bm25(query, &documents);
        best(self.facts.iter().zip(scores).filter(|(_, s)| *s > 0.0), k)
    }

    /// The `k` facts most relevant to `query` by `embedder`'s vectors
    /// (cosine similarity), best first.
    pub fn search_with(&self, embedder: &dyn Embed, query: &str, k: usize) -> Vec<(&Fact, f64)> {
        let q = embedder.embed(query);
        best(
            self.facts
                .iter()
                .map(|f| (f, cosine(&q, &embedder.embed(&f.text)))),
            k,
        )
    }

    /// The facts most relevant to `query` as the model reads them, within
    /// `max_tokens` as `count` counts text; `None` when none is relevant
    /// or none fits.
    pub fn render(&self, query: &str, max_tokens: usize, count: impl Fn(&str) -> usize) -> Option<String> {
        render_facts(
            self.search(query, 16).into_iter().map(|(f, _)| f),
            max_tokens,
            count,
        )
    }
}

/// `facts` as the model reads them, in the order given, within
/// `max_tokens`; `None` when none fits.
pub fn render_facts<'a>(
    facts: impl IntoIterator<Item = &'a Fact>,
    max_tokens: usize,
    count: impl Fn(&str) -> usize,
) -> Option<String> {
    let mut text = MEMORY_HEADING.to_owned();
    let mut shown = 0;
    for fact in facts {
        let longer = format!("{text}\n- {}", fact.text);
        if count(&longer) > max_tokens {
            continue;
        }
        text = longer;
        shown += 1;
    }
    (shown > 0).then_some(text)
}

fn best<'a>(scored: impl Iterator<Item = (&'a Fact, f64)>, k: usize) -> Vec<(&'a Fact, f64)> {
    let mut scored: Vec<(&Fact, f64)> = scored.collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id)));
    scored.truncate(k);
    scored
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let n = norm(a) * norm(b);
    if n == 0.0 {
        0.0
    } else {
        dot / n
    }
}

fn clean(text: &str) -> Result<String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Err(MemoryError::Empty);
    }
    if text.len() <= MAX_FACT_BYTES {
        return Ok(text);
    }
    let mut end = MAX_FACT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Ok(text[..end].to_owned())
}

pub(crate) fn check_name(name: &str) -> Result<()> {
    if strata_ctx_fs::is_plain_name(name) {
        Ok(())
    } else {
        Err(MemoryError::InvalidName {
            name: name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Duration;
    use strata_ctx_core::{LlmClient, LlmRequest, LlmResponse, LlmResult, Message, Usage};

    fn open(dir: &Path) -> LongTermMemory {
        LongTermMemory::open(dir, "ada").unwrap()
    }

    /// A client that answers every request with one text.
    struct Says(&'static str);

    #[async_trait::async_trait]
    impl LlmClient for Says {
        async fn complete(&self, _: LlmRequest) -> LlmResult<LlmResponse> {
            Ok(LlmResponse::new(self.0, Usage::new(1, 1)))
        }
    }

    #[test]
    fn mem_2_save_dedupe_update_forget_persist() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = open(dir.path());
        let MemoryChange::Added(tabs) = m.save("Ada prefers tabs.").unwrap() else {
            panic!("added")
        };
        assert_eq!(tabs.id, "m1");
        assert!(matches!(m.save("  ada PREFERS tabs ").unwrap(), MemoryChange::Unchanged(f) if f.id == "m1"));
        let MemoryChange::Added(lyon) = m.save("Ada lives in Lyon.").unwrap() else {
            panic!("added")
        };
        assert!(matches!(
            m.update("m1", "Ada prefers spaces.").unwrap(),
            MemoryChange::Updated { .. }
        ));
        assert!(matches!(m.forget(&lyon.id).unwrap(), MemoryChange::Forgotten(_)));
        assert!(matches!(m.forget("m9"), Err(MemoryError::NotFound { .. })));
        assert!(matches!(m.save("   "), Err(MemoryError::Empty)));
        assert!(matches!(
            LongTermMemory::open(dir.path(), "ada"),
            Err(MemoryError::Locked { .. })
        ));
        drop(m);
        let m = open(dir.path());
        assert_eq!(m.facts().len(), 1);
        assert_eq!(m.facts()[0].text, "Ada prefers spaces.");
        let mut m = m;
        let MemoryChange::Added(next) = m.save("Ada writes Rust.").unwrap() else {
            panic!("added")
        };
        assert_eq!(next.id, "m3", "ids are never reused");
        assert!(LongTermMemory::open(dir.path(), "../x").is_err());
    }

    #[test]
    fn mem_2_torn_last_line_and_corrupt_lines() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = open(dir.path());
        m.save("Ada prefers tabs.").unwrap();
        let path = dir.path().join("ada.memory.jsonl");
        drop(m);
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"op\":\"save\",\"fact\":{\"id\"").unwrap();
        drop(file);
        let mut m = open(dir.path());
        assert_eq!(m.facts().len(), 1, "a torn last line is left out");
        m.save("Ada writes Rust.").unwrap();
        drop(m);
        assert_eq!(
            open(dir.path()).facts().len(),
            2,
            "the next write starts a line of its own"
        );
        // A blank unended last line after a corrupt line is not a torn
        // write: the corrupt line is reported, not cut off and left in
        // the file (found by the memory_log fuzz target).
        std::fs::write(
            &path,
            "{\"op\":\"save\",\"fact\":{\"id\":\"m1\",\"text\":\"x\":1\n\x0c\x0c",
        )
        .unwrap();
        assert!(matches!(
            LongTermMemory::open(dir.path(), "ada"),
            Err(MemoryError::Corrupt { line: 1, .. })
        ));
        std::fs::write(&path, "{\"op\":\"forget\",\"id\":\"m2\"}\n \t").unwrap();
        let mut m = open(dir.path());
        m.save("Ada writes Rust.").unwrap();
        drop(m);
        assert_eq!(
            open(dir.path()).facts().len(),
            1,
            "a blank unended line is ended before the next write"
        );
        std::fs::write(&path, "garbage\n{\"op\":\"forget\",\"id\":\"m1\"}\n").unwrap();
        assert!(matches!(
            LongTermMemory::open(dir.path(), "ada"),
            Err(MemoryError::Corrupt { line: 1, .. })
        ));
    }

    #[test]
    fn mem_2_retrieval_ranks_by_relevance() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = open(dir.path());
        for fact in [
            "Ada prefers tabs for indentation in Python.",
            "Ada deploys with Docker on a Hetzner server.",
            "Ada's main project is a Rust parser for SQL.",
            "Ada drinks her coffee black.",
        ] {
            m.save(fact).unwrap();
        }
        let top: Vec<&str> = m
            .search("the SQL parser fails on a Rust test", 2)
            .iter()
            .map(|(f, _)| f.id.as_str())
            .collect();
        assert_eq!(top, ["m3"]);
        let top: Vec<&str> = m
            .search("indentation python docker", 4)
            .iter()
            .map(|(f, _)| f.id.as_str())
            .collect();
        assert_eq!(top.len(), 2);
        assert!(m.search("weather", 4).is_empty());
        let text = m.render("python indentation", 1_000, str::len).unwrap();
        assert_eq!(
            text,
            format!("{MEMORY_HEADING}\n- Ada prefers tabs for indentation in Python.")
        );
        assert_eq!(m.render("python", 5, str::len), None, "nothing fits");
    }

    /// MEM-2: extraction with a scripted model: contradiction updates,
    /// new facts are saved once, forgotten ones go; garbage changes
    /// nothing.
    #[tokio::test(start_paused = true)]
    async fn mem_2_extraction() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = open(dir.path());
        m.save("Ada prefers tabs.").unwrap();
        m.save("Ada lives in Lyon.").unwrap();
        let round = [Message::user(
            "I moved to Berlin, and I use spaces now. I write Go at work.",
        )];
        let answer = Says(
            "Here you go:\n```json\n{\"save\": [\"Ada writes Go at work.\", \"Ada prefers tabs\"], \"update\": [{\"id\": \"m2\", \"text\": \"Ada lives in Berlin.\"}], \"forget\": [\"m1\"]}\n```",
        );
        let changes = m.extract(&answer, &round, Duration::from_secs(5)).await.unwrap();
        assert_eq!(changes.len(), 4, "{changes:?}");
        let texts: Vec<&str> = m.facts().iter().map(|f| f.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Ada lives in Berlin.",
                "Ada writes Go at work.",
                "Ada prefers tabs"
            ]
        );
        let before = m.facts().to_vec();
        for garbage in [
            "no json here",
            "{\"save\": 3}",
            "{\"forget\": [\"m99\"]}",
            "{\"update\": [{\"id\": \"m2\"}]}",
        ] {
            let err = m
                .extract(&Says(garbage), &round, Duration::from_secs(5))
                .await
                .unwrap_err();
            assert!(matches!(err, MemoryError::Model { .. }), "{garbage}: {err}");
        }
        assert_eq!(m.facts(), &before[..], "a bad answer changes nothing");
    }

    #[test]
    fn mem_2_embedding_hook() {
        struct Letters;
        impl Embed for Letters {
            fn embed(&self, text: &str) -> Vec<f32> {
                let t = text.to_lowercase();
                vec![t.matches('x').count() as f32, t.matches('y').count() as f32]
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let mut m = open(dir.path());
        m.save("xxx").unwrap();
        m.save("yyy").unwrap();
        let top = m.search_with(&Letters, "yy", 1);
        assert_eq!(top[0].0.text, "yyy");
    }
}

//! Loading real transcripts in the corpus form.

use std::path::{Path, PathBuf};

use serde_json::Value;
use strata_ctx_core::{Error, Message, Result};
use strata_ctx_wire::from_openai_messages;

/// A transcript: where it comes from and its messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    /// The `source` object of the file (repository, path, commit, format).
    pub source: Value,
    /// The messages.
    pub messages: Vec<Message>,
}

/// Reads a transcript file of the form `{"source": {...}, "messages":
/// [...]}` (OpenAI chat-completions messages), or a bare array of messages.
///
/// # Errors
///
/// [`Error::Io`] when the file cannot be read, [`Error::InvalidMessage`]
/// when it is not such a transcript.
pub fn load_transcript(path: impl AsRef<Path>) -> Result<Transcript> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| Error::InvalidMessage {
        index: 0,
        reason: format!("{} is not JSON: {e}", path.display()),
    })?;
    let (source, list) = match value {
        Value::Object(mut o) => (
            o.remove("source").unwrap_or(Value::Null),
            o.remove("messages").unwrap_or(Value::Null),
        ),
        list => (Value::Null, list),
    };
    Ok(Transcript {
        source,
        messages: from_openai_messages(&list)?,
    })
}

/// The transcript files (`*.json`) of the workspace's `tests/data/corpus`,
/// in name order; none when the directory cannot be read.
pub fn corpus_files() -> Vec<PathBuf> {
    data_files("corpus", "json")
}

/// The files of the workspace's `tests/data/<folder>` with `extension`, in
/// name order; none when the directory cannot be read.
pub(crate) fn data_files(folder: &str, extension: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

//! Reading a conversation from a file or stdin, in any of the formats the
//! commands accept (EDGE-3).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use strata_ctx::{read_openai_list, Message, OpenAiList};

use crate::error::CliError;
pub use crate::parse::{parse, Format};

/// A conversation as read.
#[derive(Debug)]
pub struct Conversation {
    /// Where it came from: the path, or `stdin`.
    pub source: String,
    /// The format detected.
    pub format: Format,
    /// The messages.
    pub messages: Vec<Message>,
    /// The records, when it is a conversation log ([`Format::StrataLog`]).
    pub records: Vec<strata_ctx::history::Record>,
}

impl Conversation {
    /// The text of the `system` messages before the first other message,
    /// joined by blank lines.
    pub fn system_prompt(&self) -> Option<String> {
        leading_system(&self.messages)
    }
}

/// The text of the `system` messages before the first other message of
/// `messages`, joined by blank lines.
fn leading_system(messages: &[Message]) -> Option<String> {
    let parts: Vec<&str> = messages
        .iter()
        .take_while(|m| m.role == strata_ctx::Role::System)
        .map(|m| m.content.as_str())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// The system prompt a transcript is replayed under (`replay`, `eval`):
/// its own, or a one-line stand-in when it records none (a Codex rollout,
/// a Claude Code session), so that the engine's default prompt does not
/// weigh on what a replay counts and costs.
pub fn replay_system_prompt(messages: &[Message]) -> String {
    leading_system(messages).unwrap_or_else(|| "You are a coding agent.".to_owned())
}

/// The default of `--max-input`: the largest conversation file read.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

static MAX_INPUT_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT_BYTES);

/// Sets the largest input a command reads whole (REL-2).
pub fn set_max_input_bytes(bytes: u64) {
    MAX_INPUT_BYTES.store(bytes, Ordering::Relaxed);
}

static STORE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// Sets the conversation store `--store` names: conversations are then
/// read from it by `NAMESPACE/NAME`.
pub fn set_store(store: Option<String>) {
    let _ = STORE.set(store);
}

/// The log of conversation `NAMESPACE/NAME` in the store `spec`, as its
/// bytes.
fn from_store(spec: &str, which: &Path) -> Result<(String, Vec<u8>), CliError> {
    let which = which.to_string_lossy();
    let Some((namespace, name)) = which.split_once('/') else {
        return Err(CliError::Input(format!(
            "`{which}`: with --store, name a conversation as NAMESPACE/NAME"
        )));
    };
    let store = crate::commands::store::read_backend(spec)?;
    let lines = store
        .lines(namespace, name)
        .map_err(crate::commands::store::runtime)?;
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
    }
    if bytes.is_empty() {
        return Err(CliError::Input(format!(
            "{spec}: {namespace}/{name} holds no records"
        )));
    }
    Ok((format!("{spec}:{namespace}/{name}"), bytes))
}

/// Opens `path` for reading: a missing file or a directory is bad input,
/// any other failure a runtime error.
pub fn open(path: &Path) -> Result<std::fs::File, CliError> {
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CliError::Input(format!("{}: no such file", path.display())),
        _ => CliError::Runtime(format!("cannot read {}: {e}", path.display())),
    })?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(CliError::Input(format!(
            "{}: is a directory, not a file",
            path.display()
        )));
    }
    Ok(file)
}

/// Reads all bytes of `path`, or of stdin when it is `None` or `-`, up to
/// the `--max-input` limit: a larger (or endless) input is bad input,
/// and reading stops at the limit (REL-2).
pub fn read_bytes(path: Option<&Path>) -> Result<(String, Vec<u8>), CliError> {
    let limit = MAX_INPUT_BYTES.load(Ordering::Relaxed);
    let mut bytes = Vec::new();
    let (source, read) = match path.filter(|p| *p != Path::new("-")) {
        Some(p) => {
            let file = open(p)?;
            // Room for the whole file at once: growing by doubling would
            // hold up to twice its size while it is read.
            let size = file.metadata().map_or(0, |m| m.len()).min(limit + 1);
            bytes.reserve_exact(usize::try_from(size).unwrap_or(0).saturating_add(1));
            (
                p.display().to_string(),
                file.take(limit + 1).read_to_end(&mut bytes),
            )
        }
        None => (
            "stdin".to_owned(),
            std::io::stdin().lock().take(limit + 1).read_to_end(&mut bytes),
        ),
    };
    read.map_err(|e| CliError::Runtime(format!("cannot read {source}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(CliError::Input(format!(
            "{source}: larger than the input limit of {limit} bytes (raise it with --max-input)"
        )));
    }
    Ok((source, bytes))
}

/// Reads a conversation from `path` (or stdin), detecting its format.
/// With `--store`, `path` names a conversation of the store instead.
pub fn read_conversation(path: Option<&PathBuf>) -> Result<Conversation, CliError> {
    let (source, bytes) = match (STORE.get().and_then(Option::as_deref), path) {
        (Some(spec), Some(which)) => from_store(spec, which)?,
        (None, Some(p)) if p.as_path() != Path::new("-") => return read_file_conversation(p),
        _ => read_bytes(path.map(PathBuf::as_path))?,
    };
    conversation_of(source, &bytes)
}

/// A plain OpenAI list in the file `path`, read a message at a time
/// (the file is never held whole); `None` for anything else, which is
/// read whole by the general path.
fn stream_openai_list(path: &Path) -> Result<Option<Conversation>, CliError> {
    let limit = MAX_INPUT_BYTES.load(Ordering::Relaxed);
    let source = path.display().to_string();
    // The reader buffers what it reads itself.
    let mut reader = open(path)?.take(limit + 1);
    let list =
        read_openai_list(&mut reader).map_err(|e| CliError::Runtime(format!("cannot read {source}: {e}")))?;
    if reader.limit() == 0 {
        return Err(CliError::Input(format!(
            "{source}: larger than the input limit of {limit} bytes (raise it with --max-input)"
        )));
    }
    let (format, messages) = match list {
        OpenAiList::Array(messages) => (Format::OpenAiArray, messages),
        OpenAiList::Object(messages) => (Format::MessagesObject, messages),
        OpenAiList::Other => return Ok(None),
    };
    Ok(Some(Conversation {
        source,
        format,
        messages,
        records: Vec::new(),
    }))
}

/// Reads a conversation from the file `path`, whatever `--store` says.
pub fn read_file_conversation(path: &Path) -> Result<Conversation, CliError> {
    if let Some(conversation) = stream_openai_list(path)? {
        return Ok(conversation);
    }
    let (source, bytes) = read_bytes(Some(path))?;
    conversation_of(source, &bytes)
}

fn conversation_of(source: String, bytes: &[u8]) -> Result<Conversation, CliError> {
    let bad = |why: String| CliError::Input(format!("{source}: {why}"));
    // A conversation log keeps its records (parsed once); anything else
    // is read by `parse`.
    let text = crate::parse::utf8(bytes).map_err(bad)?;
    let log = crate::parse::log_records(text.strip_prefix('\u{feff}').unwrap_or(text));
    let (format, messages, records) = match log {
        Some(records) => {
            let records = records.map_err(bad)?;
            (Format::StrataLog, crate::parse::log_messages(&records), records)
        }
        None => {
            let (format, messages) = crate::parse::parse_text(text).map_err(bad)?;
            (format, messages, Vec::new())
        }
    };
    Ok(Conversation {
        source,
        format,
        messages,
        records,
    })
}

/// Writes `messages` as Strata JSONL.
#[cfg(test)]
pub fn to_jsonl(messages: &[Message]) -> String {
    let mut out = String::new();
    for m in messages {
        out.push_str(&serde_json::to_string(m).unwrap_or_default());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use strata_ctx_testkit::strategy;

    proptest! {
        #![proptest_config(strategy::cases(256))]

        /// EDGE-3: any bytes give messages or an error, never a panic.
        #[test]
        fn any_bytes_parse_or_fail_cleanly(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = parse(&bytes);
        }

        /// Lines of JSON that are not messages are errors naming a line.
        #[test]
        fn any_json_lines_parse_or_name_a_line(values in proptest::collection::vec(strategy::json_value(), 1..6)) {
            let text: String = values.iter().map(|v| format!("{v}\n")).collect();
            if let Err(e) = parse(text.as_bytes()) {
                prop_assert!(e.starts_with("line ") || e.starts_with("message ") || e.starts_with("expected") || e.starts_with("`"), "{}", e);
            }
        }

        /// Strata JSONL written by the CLI reads back as the same messages,
        /// as JSONL and as a JSON array.
        #[test]
        fn strata_jsonl_round_trips(messages in proptest::collection::vec(strategy::message(), 1..8)) {
            let (format, back) = parse(to_jsonl(&messages).as_bytes()).unwrap();
            prop_assert_eq!(format, Format::StrataJsonl);
            prop_assert_eq!(&back, &messages);
            let array = serde_json::to_string(&messages).unwrap();
            prop_assert_eq!(parse(array.as_bytes()).unwrap(), (Format::StrataArray, messages));
        }
    }

    #[test]
    fn formats_are_detected() {
        let openai = r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#;
        let (f, m) = parse(openai.as_bytes()).unwrap();
        assert_eq!((f, m.len()), (Format::OpenAiArray, 2));
        let lines =
            "{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"assistant\",\"content\":\"hello\"}\n";
        let (f, same) = parse(lines.as_bytes()).unwrap();
        assert_eq!(f, Format::OpenAiJsonl);
        assert_eq!(same, m, "the same messages, ids included, as the array");
        let err = parse(b"{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"bogus\"}\n").unwrap_err();
        assert_eq!(err, "line 3: unknown role `bogus`");
        let object = format!("{{\"source\": {{}}, \"messages\": {openai}}}");
        assert_eq!(parse(object.as_bytes()).unwrap().0, Format::MessagesObject);
        let strata = to_jsonl(&m);
        let (f, again) = parse(strata.as_bytes()).unwrap();
        assert_eq!((f, &again), (Format::StrataJsonl, &m));
        let array = serde_json::to_string(&m).unwrap();
        assert_eq!(parse(array.as_bytes()).unwrap(), (Format::StrataArray, m));
    }

    #[test]
    fn errors_name_the_line_or_field() {
        let bad = "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\": \"user\", \"content\": }\n";
        assert!(
            parse(bad.as_bytes())
                .unwrap_err()
                .starts_with("line 2: invalid JSON"),
            "{:?}",
            parse(bad.as_bytes())
        );
        let bad = r#"{"messages": [{"role":"user","content":"hi"},{"role":"wizard","content":"x"}]}"#;
        let err = parse(bad.as_bytes()).unwrap_err();
        assert!(err.starts_with("messages[1]: "), "{err}");
        let err = parse(b"[1, 2]").unwrap_err();
        assert!(err.starts_with("message 0: "), "{err}");
        let err = parse(b"{\"role\":\"user\",\"content\":\"a\"}\n\xff\xfe\n").unwrap_err();
        assert_eq!(err, "line 2: not UTF-8 (byte 30)");
        assert!(parse(b"  \n").unwrap_err().starts_with("empty input"));
        assert!(parse(b"42").unwrap_err().contains("found a number"));
        let err = parse(b"[{\"role\":\"user\",\"content\":\"hi\"}").unwrap_err();
        assert!(err.starts_with("line 1 column"), "{err}");
    }
}

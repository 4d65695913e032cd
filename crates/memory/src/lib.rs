//! Memory beyond the window for LLM agents (MEM-1).
//!
//! [`SessionContext`] is a small, bounded key → value record of what the
//! agent is working on: the files in play, the task's keywords, the last
//! decisions, the open questions. Rules over tool calls and results
//! ([`SessionRule`], [`session_rule_fn`]) and the agent itself, through
//! the `remember` and `forget` tools ([`memory_tools`]), keep it current;
//! the engine of the `strata-ctx` facade shows it every turn as a layer of
//! its own, within a token budget, and logs every change so that a
//! resumed or replayed conversation has the same record.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use strata_ctx_core::ToolCall;
//! use strata_ctx_memory::{SessionContext, SessionLimits, Source, Update};
//!
//! let mut session = SessionContext::new(SessionLimits::default());
//! session.apply(&Update::set("task", "make the parser accept tabs", Source::Agent))?;
//! let call = ToolCall::new("c1", "remember", json!({"key": "decision", "value": "keep the lexer"}));
//! let (result, update) = session.handle_tool(&call).ok_or("not a memory tool")?;
//! assert!(update.is_some());
//! assert_eq!(session.get("decision"), Some("keep the lexer"));
//! let text = session.render(usize::MAX, |t| t.len() / 3).ok_or("empty")?;
//! assert!(text.contains("- task: make the parser accept tabs"));
//! # drop(result);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod extract;
mod file_log;
mod longterm;
mod rank;
mod suggest;

pub use longterm::{
    render_facts, Embed, Fact, LongTermMemory, MemoryChange, MemoryError, MemoryLog, MEMORY_HEADING,
};
pub use suggest::{suggest, SuggestError};

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use strata_ctx_core::{Message, ToolCall, ToolResult, ToolSpec};

/// The name of the agent's tool that sets an entry.
pub const REMEMBER_TOOL: &str = "remember";
/// The name of the agent's tool that removes an entry.
pub const FORGET_TOOL: &str = "forget";

/// The heading of the rendered record.
pub const SESSION_HEADING: &str =
    "Session context (what this session is working on; kept up to date for you):";

/// Why an update was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The key is empty, too long, or holds a line break.
    #[error("the key `{key}` is not valid: {reason}")]
    InvalidKey {
        /// The key as given.
        key: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The value is empty.
    #[error("the value of `{key}` is empty (use forget to remove an entry)")]
    EmptyValue {
        /// The entry's key.
        key: String,
    },
}

/// How large the record may grow (MEM-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionLimits {
    /// The most entries; setting one more drops the one changed longest
    /// ago. By default, 24.
    pub max_entries: usize,
    /// The longest value in bytes; longer values are cut on a character
    /// boundary and marked `…`. By default, 400.
    pub max_value_bytes: usize,
    /// The most tokens the rendered record may take in the window; the
    /// entries changed longest ago are left out first. By default, 600.
    pub max_tokens: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            max_entries: 24,
            max_value_bytes: 400,
            max_tokens: 600,
        }
    }
}

impl SessionLimits {
    /// Sets the most entries. By default, 24.
    pub fn with_max_entries(mut self, n: usize) -> Self {
        self.max_entries = n.max(1);
        self
    }

    /// Sets the longest value in bytes. By default, 400.
    pub fn with_max_value_bytes(mut self, n: usize) -> Self {
        self.max_value_bytes = n.max(16);
        self
    }

    /// Sets the token budget of the rendered record. By default, 600.
    pub fn with_max_tokens(mut self, n: usize) -> Self {
        self.max_tokens = n;
        self
    }
}

/// Who wrote an entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Source {
    /// The agent, through the `remember` tool or the engine's API.
    Agent,
    /// A rule over tool calls, by its name.
    Rule(String),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Agent => f.write_str("agent"),
            Source::Rule(name) => write!(f, "rule {name}"),
        }
    }
}

/// One change of the record; what the conversation log keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Update {
    /// Sets `key` to `value`.
    Set {
        /// The entry's key.
        key: String,
        /// The new value.
        value: String,
        /// Who set it.
        source: Source,
    },
    /// Adds `item` to the front of the list kept under `key` (items
    /// separated by `, `), dropping an equal item further down and keeping
    /// at most `max_items`.
    Push {
        /// The entry's key.
        key: String,
        /// The item.
        item: String,
        /// The most items the list keeps.
        max_items: usize,
        /// Who added it.
        source: Source,
    },
    /// Removes `key`.
    Forget {
        /// The entry's key.
        key: String,
    },
}

impl Update {
    /// Sets `key` to `value`.
    pub fn set(key: impl Into<String>, value: impl Into<String>, source: Source) -> Self {
        Update::Set {
            key: key.into(),
            value: value.into(),
            source,
        }
    }

    /// Pushes `item` to the list under `key`, keeping `max_items`.
    pub fn push(key: impl Into<String>, item: impl Into<String>, max_items: usize, source: Source) -> Self {
        Update::Push {
            key: key.into(),
            item: item.into(),
            max_items,
            source,
        }
    }

    /// Removes `key`.
    pub fn forget(key: impl Into<String>) -> Self {
        Update::Forget { key: key.into() }
    }

    /// The key the update changes.
    pub fn key(&self) -> &str {
        match self {
            Update::Set { key, .. } | Update::Push { key, .. } | Update::Forget { key } => key,
        }
    }
}

/// One entry of the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Entry {
    /// The value.
    pub value: String,
    /// Who set it last.
    pub source: Source,
    /// When it was set, as the record's change counter: larger is newer.
    pub changed: u64,
}

/// The session context (MEM-1): a bounded key → value record.
///
/// Keys are short names (`task`, `files`, `decision`, …: at most 64
/// bytes, no line breaks, compared without case); values are one or more
/// lines of text, cut to [`SessionLimits::max_value_bytes`]. Applying the
/// same updates in the same order always gives the same record, which is
/// how a resumed conversation gets it back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionContext {
    entries: BTreeMap<String, Entry>,
    limits: SessionLimits,
    changes: u64,
}

impl SessionContext {
    /// An empty record with `limits`.
    pub fn new(limits: SessionLimits) -> Self {
        SessionContext {
            entries: BTreeMap::new(),
            limits,
            changes: 0,
        }
    }

    /// The limits.
    pub fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(&normalize(key)).map(|e| e.value.as_str())
    }

    /// The entries, by key.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &Entry)> {
        self.entries.iter().map(|(k, e)| (k.as_str(), e))
    }

    /// How many entries the record holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the record is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Applies `update`. Returns whether the record changed (setting a
    /// value it already has changes nothing).
    ///
    /// # Errors
    ///
    /// [`SessionError`] for a key that is not valid or an empty value;
    /// the record is unchanged.
    pub fn apply(&mut self, update: &Update) -> Result<bool, SessionError> {
        let key = valid_key(update.key())?;
        let (value, source) = match update {
            Update::Forget { .. } => return Ok(self.entries.remove(&key).is_some()),
            Update::Set { value, source, .. } => (value.trim().to_owned(), source),
            Update::Push {
                item,
                max_items,
                source,
                ..
            } => {
                let item = item.trim();
                let mut items = vec![item];
                if let Some(old) = self.entries.get(&key) {
                    items.extend(old.value.split(", ").filter(|i| *i != item));
                }
                items.truncate((*max_items).max(1));
                (items.join(", "), source)
            }
        };
        if value.is_empty() {
            return Err(SessionError::EmptyValue { key });
        }
        let value = cut(&value, self.limits.max_value_bytes);
        if self.entries.get(&key).is_some_and(|e| e.value == value) {
            return Ok(false);
        }
        self.changes += 1;
        self.entries.insert(
            key,
            Entry {
                value,
                source: source.clone(),
                changed: self.changes,
            },
        );
        while self.entries.len() > self.limits.max_entries {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.changed)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.entries.remove(&k),
                None => break,
            };
        }
        Ok(true)
    }

    /// The record as the model reads it, newest entries first, within
    /// `max_tokens` (and the limits' own budget) as `count` counts text;
    /// `None` when it is empty or not even one entry fits.
    pub fn render(&self, max_tokens: usize, count: impl Fn(&str) -> usize) -> Option<String> {
        let budget = max_tokens.min(self.limits.max_tokens);
        let mut entries: Vec<(&String, &Entry)> = self.entries.iter().collect();
        entries.sort_by_key(|(_, e)| std::cmp::Reverse(e.changed));
        let mut text = SESSION_HEADING.to_owned();
        let mut shown = 0;
        for (key, entry) in entries {
            let line = format!("\n- {key}: {}", entry.value.replace('\n', "\n  "));
            let longer = format!("{text}{line}");
            if count(&longer) > budget {
                continue;
            }
            text = longer;
            shown += 1;
        }
        (shown > 0).then_some(text)
    }

    /// Runs the agent's `remember` or `forget` call on the record: the
    /// tool result to record for it and the update applied (`None` when
    /// it changed nothing or failed). `None` for any other tool.
    pub fn handle_tool(&mut self, call: &ToolCall) -> Option<(ToolResult, Option<Update>)> {
        let text = |name: &str| {
            call.arguments
                .get(name)
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        let update = match call.name.as_str() {
            REMEMBER_TOOL => Update::set(text("key"), text("value"), Source::Agent),
            FORGET_TOOL => Update::forget(text("key")),
            _ => return None,
        };
        Some(match self.apply(&update) {
            Ok(true) => (
                ToolResult::success(json!({"key": normalize(update.key()), "done": true})),
                Some(update),
            ),
            Ok(false) => (
                ToolResult::success(
                    json!({"key": normalize(update.key()), "done": false, "note": "nothing changed"}),
                ),
                None,
            ),
            Err(e) => (ToolResult::error("invalid_memory_update", e.to_string()), None),
        })
    }
}

/// The agent's `remember` and `forget` tools, to offer the model beside
/// its own (the engine handles their calls with
/// [`SessionContext::handle_tool`]).
pub fn memory_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            REMEMBER_TOOL,
            "Keeps a short fact about this session in view for the rest of it: the task, a decision and why, the file in play, an open question. Setting a key again replaces its value.",
            json!({"type": "object", "properties": {
                "key": {"type": "string", "description": "A short name, e.g. task, decision, files, question."},
                "value": {"type": "string", "description": "The fact, in a sentence or two."}
            }, "required": ["key", "value"]}),
        ),
        ToolSpec::new(
            FORGET_TOOL,
            "Removes a fact kept with remember that no longer holds.",
            json!({"type": "object", "properties": {
                "key": {"type": "string", "description": "The key to remove."}
            }, "required": ["key"]}),
        ),
    ]
}

/// Keeps the session context current from tool calls and their results
/// (MEM-1), as the compression rules keep history forms.
pub trait SessionRule: Send + Sync {
    /// The rule's name, shown as the source of what it sets.
    fn name(&self) -> &str;

    /// The updates a call and its result make.
    fn updates(&self, call: &ToolCall, result: &Message) -> Vec<Update>;
}

/// A [`SessionRule`] from a name and a closure.
pub struct SessionRuleFn {
    name: String,
    f: Arc<UpdatesFn>,
}

/// What a [`SessionRuleFn`] runs.
type UpdatesFn = dyn Fn(&ToolCall, &Message) -> Vec<Update> + Send + Sync;

impl fmt::Debug for SessionRuleFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionRuleFn")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl SessionRule for SessionRuleFn {
    fn name(&self) -> &str {
        &self.name
    }

    fn updates(&self, call: &ToolCall, result: &Message) -> Vec<Update> {
        (self.f)(call, result)
    }
}

/// A [`SessionRule`] named `name` running `f`.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{Message, ToolCall};
/// use strata_ctx_memory::{session_rule_fn, SessionRule, Source, Update};
///
/// let branch = session_rule_fn("branch", |call, _result| {
///     match call.arguments.get("command").and_then(|c| c.as_str()) {
///         Some(c) if c.starts_with("git checkout ") => {
///             vec![Update::set("branch", &c[13..], Source::Rule("branch".into()))]
///         }
///         _ => Vec::new(),
///     }
/// });
/// let call = ToolCall::new("c1", "Bash", json!({"command": "git checkout fix-tabs"}));
/// let updates = branch.updates(&call, &Message::tool_text("c1", "Bash", ""));
/// assert_eq!(updates[0].key(), "branch");
/// ```
pub fn session_rule_fn(
    name: impl Into<String>,
    f: impl Fn(&ToolCall, &Message) -> Vec<Update> + Send + Sync + 'static,
) -> SessionRuleFn {
    SessionRuleFn {
        name: name.into(),
        f: Arc::new(f),
    }
}

/// A key as stored: trimmed, lower case.
fn normalize(key: &str) -> String {
    key.trim().to_lowercase()
}

fn valid_key(key: &str) -> Result<String, SessionError> {
    let key = normalize(key);
    let reason = if key.is_empty() {
        "it is empty"
    } else if key.len() > 64 {
        "it is longer than 64 bytes"
    } else if key.contains(['\n', '\r']) {
        "it holds a line break"
    } else {
        return Ok(key);
    };
    Err(SessionError::InvalidKey { key, reason })
}

/// `text` cut to at most `max` bytes on a character boundary, marked `…`.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn agent(key: &str, value: &str) -> Update {
        Update::set(key, value, Source::Agent)
    }

    /// MEM-1: set, replace, push, forget; invalid updates change nothing.
    #[test]
    fn mem_1_updates() {
        let mut s = SessionContext::new(SessionLimits::default());
        assert!(s.apply(&agent("Task", "fix tabs")).unwrap());
        assert!(
            !s.apply(&agent("task", " fix tabs ")).unwrap(),
            "same value, no change"
        );
        assert_eq!(s.get("TASK"), Some("fix tabs"));
        let files = |f: &str| Update::push("files", f, 3, Source::Rule("files".into()));
        for f in ["a.rs", "b.rs", "a.rs", "c.rs", "d.rs"] {
            s.apply(&files(f)).unwrap();
        }
        assert_eq!(s.get("files"), Some("d.rs, c.rs, a.rs"));
        assert!(s.apply(&Update::forget("task")).unwrap());
        assert!(!s.apply(&Update::forget("task")).unwrap());
        let before = s.clone();
        assert!(matches!(
            s.apply(&agent("", "x")),
            Err(SessionError::InvalidKey { .. })
        ));
        assert!(matches!(
            s.apply(&agent("a\nb", "x")),
            Err(SessionError::InvalidKey { .. })
        ));
        assert!(matches!(
            s.apply(&agent("k", "  ")),
            Err(SessionError::EmptyValue { .. })
        ));
        assert_eq!(s, before);
    }

    /// MEM-1: the record's bounds: the oldest entry leaves, long values
    /// are cut on a character boundary.
    #[test]
    fn mem_1_bounds() {
        let limits = SessionLimits::default()
            .with_max_entries(2)
            .with_max_value_bytes(16);
        let mut s = SessionContext::new(limits);
        s.apply(&agent("a", "1")).unwrap();
        s.apply(&agent("b", "2")).unwrap();
        s.apply(&agent("a", "3")).unwrap();
        s.apply(&agent("c", "4")).unwrap();
        let keys: Vec<&str> = s.entries().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "c"], "b changed longest ago");
        s.apply(&agent("d", "ééééééééééééééé")).unwrap();
        let value = s.get("d").unwrap();
        assert!(value.len() <= 16 && value.ends_with('…'), "{value}");
    }

    #[test]
    fn mem_1_tools() {
        let mut s = SessionContext::new(SessionLimits::default());
        let remember = ToolCall::new(
            "c1",
            "remember",
            json!({"key": "decision", "value": "keep the lexer"}),
        );
        let (result, update) = s.handle_tool(&remember).unwrap();
        assert_eq!(result.status, strata_ctx_core::ResultStatus::Success);
        assert_eq!(update, Some(agent("decision", "keep the lexer")));
        let (again, none) = s.handle_tool(&remember).unwrap();
        assert_eq!(none, None);
        assert!(again.to_json().contains("nothing changed"));
        let bad = ToolCall::new("c2", "remember", json!({"value": "no key"}));
        let (result, update) = s.handle_tool(&bad).unwrap();
        assert_eq!(result.status, strata_ctx_core::ResultStatus::Error);
        assert_eq!(update, None);
        let forget = ToolCall::new("c3", "forget", json!({"key": "decision"}));
        assert!(s.handle_tool(&forget).unwrap().1.is_some());
        assert!(s.is_empty());
        assert!(s.handle_tool(&ToolCall::new("c4", "Read", json!({}))).is_none());
        let names: Vec<String> = memory_tools().into_iter().map(|t| t.name).collect();
        assert_eq!(names, [REMEMBER_TOOL, FORGET_TOOL]);
    }

    #[test]
    fn mem_1_render_newest_first_within_budget() {
        let mut s = SessionContext::new(SessionLimits::default());
        assert_eq!(s.render(1_000, str::len), None);
        s.apply(&agent("old", "first")).unwrap();
        s.apply(&agent("new", "second\nline")).unwrap();
        let text = s.render(1_000, str::len).unwrap();
        assert_eq!(
            text,
            format!("{SESSION_HEADING}\n- new: second\n  line\n- old: first")
        );
        let small = s.render(SESSION_HEADING.len() + 22, str::len).unwrap();
        assert!(small.contains("- new:") && !small.contains("- old:"), "{small}");
        assert_eq!(s.render(10, str::len), None, "not even one entry fits");
    }

    fn update_strategy() -> impl Strategy<Value = Update> {
        let key = prop::sample::select(vec!["task", "files", "decision", "Question", "x"]);
        prop_oneof![
            (key.clone(), ".{0,80}").prop_map(|(k, v)| Update::set(k, v, Source::Agent)),
            (key.clone(), "[a-z./]{1,20}", 1usize..5).prop_map(|(k, v, n)| Update::push(
                k,
                v,
                n,
                Source::Rule("r".into())
            )),
            key.prop_map(Update::forget),
        ]
    }

    proptest! {
        /// MEM-1: whatever the updates, the record keeps its bounds, its
        /// rendering its budget, and replaying the log of applied updates
        /// gives the same record.
        #[test]
        fn mem_1_bounds_and_replay(updates in prop::collection::vec(update_strategy(), 0..60),
                                   entries in 1usize..6, budget in 0usize..400) {
            let limits = SessionLimits::default().with_max_entries(entries).with_max_value_bytes(40);
            let mut live = SessionContext::new(limits);
            let mut log = Vec::new();
            for u in &updates {
                if live.apply(u) == Ok(true) {
                    log.push(u.clone());
                }
                prop_assert!(live.len() <= entries);
                prop_assert!(live.entries().all(|(_, e)| e.value.len() <= 40));
                if let Some(text) = live.render(budget, |t| t.len() / 3) {
                    prop_assert!(text.len() / 3 <= budget);
                }
            }
            let mut replayed = SessionContext::new(limits);
            for u in &log {
                replayed.apply(u).unwrap();
            }
            prop_assert_eq!(replayed.entries().collect::<Vec<_>>(), live.entries().collect::<Vec<_>>());
        }
    }
}

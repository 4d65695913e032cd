//! `@file` mentions in user messages (MENTION-1 … MENTION-3).
//!
//! A user who writes `fix the bug in @src/auth.rs` expects the agent to
//! look at that file. [`Mentions`] finds such mentions, keeps only the
//! paths that are safely inside the project, and appends a reminder that
//! tells the model to read them — never the files' content, which the
//! agent reads with its own tool when it needs it.
//!
//! # Overview
//!
//! - [`candidates`]: the purely textual part, no file system.
//! - [`Mentions`]: the project-aware parser; [`Mentions::apply`] returns
//!   the user's text with the reminder appended.
//! - [`reminder`]: the reminder text for a list of paths.
//!
//! # Example
//!
//! ```
//! use strata_ctx_atfile::Mentions;
//!
//! let root = tempfile::tempdir()?;
//! std::fs::create_dir(root.path().join("src"))?;
//! std::fs::write(root.path().join("src/auth.rs"), "fn login() {}")?;
//!
//! let mentions = Mentions::new(root.path());
//! let applied = mentions.apply("Why does @src/auth.rs fail? Mail me at dev@example.com.");
//! assert_eq!(applied.paths, vec!["src/auth.rs"]);
//! assert!(applied.text.ends_with(
//!     "<system-reminder>\nThe user mentioned @src/auth.rs.\nYou MUST read this file with the Read tool before answering.\n</system-reminder>"
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

/// The most mentions a reminder lists by default.
pub const MAX_LISTED: usize = 5;

fn pattern() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"@([a-zA-Z0-9/._-]+(?:\.[a-zA-Z0-9]+)?)").ok())
        .as_ref()
}

/// One mention as written: the path without the `@`, and the byte range of
/// `@path` in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The path as written, trailing sentence punctuation removed.
    pub path: String,
    /// Byte range of the mention, `@` included.
    pub range: std::ops::Range<usize>,
}

/// The mentions of `text` by pattern alone (MENTION-1): `@` followed by
/// path characters, not preceded by an ASCII letter or digit (so e-mail
/// addresses are not mentions, while text in any script may run right up
/// to a mention), with trailing `.`, `,` and `)` left out. Duplicates are
/// kept; nothing is checked against the file system.
pub fn candidates(text: &str) -> Vec<Candidate> {
    let Some(re) = pattern() else { return Vec::new() };
    let mut out = Vec::new();
    for caps in re.captures_iter(text) {
        let (Some(all), Some(path)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        let before = text[..all.start()].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        let trimmed = path.as_str().trim_end_matches(['.', ',', ')']);
        if trimmed.is_empty() {
            continue;
        }
        out.push(Candidate {
            path: trimmed.to_owned(),
            range: all.start()..path.start() + trimmed.len(),
        });
    }
    out
}

/// The reminder for `paths` (MENTION-3), listing at most `max_listed` and
/// counting the rest; `None` for no paths.
///
/// # Example
///
/// ```
/// let text = strata_ctx_atfile::reminder(&["a.rs", "b.rs"], 5);
/// assert_eq!(text.as_deref(), Some("<system-reminder>\nThe user mentioned @a.rs, @b.rs.\nYou MUST read these files with the Read tool before answering.\n</system-reminder>"));
/// ```
pub fn reminder<S: AsRef<str>>(paths: &[S], max_listed: usize) -> Option<String> {
    if paths.is_empty() {
        return None;
    }
    let listed: Vec<String> = paths
        .iter()
        .take(max_listed.max(1))
        .map(|p| format!("@{}", p.as_ref()))
        .collect();
    let more = paths.len() - listed.len();
    let mut named = listed.join(", ");
    if more > 0 {
        named.push_str(&format!(" (and {more} more…)"));
    }
    let instruction = if paths.len() == 1 {
        "You MUST read this file with the Read tool before answering."
    } else {
        "You MUST read these files with the Read tool before answering."
    };
    Some(format!(
        "<system-reminder>\nThe user mentioned {named}.\n{instruction}\n</system-reminder>"
    ))
}

/// A user message with its mentions applied.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Applied {
    /// The text with the reminder appended, or unchanged when it mentions
    /// nothing.
    pub text: String,
    /// The mentioned paths, relative to the project root, deduplicated in
    /// order of appearance.
    pub paths: Vec<String>,
    /// Mentions that were ignored: outside the project, absolute, escaping
    /// with `..` or a symlink, or (unless allowed) not existing.
    pub ignored: Vec<String>,
}

/// Finds `@file` mentions of a project's files (MENTION-1 … MENTION-3).
#[derive(Debug, Clone)]
pub struct Mentions {
    root: PathBuf,
    allow_missing: bool,
    max_listed: usize,
}

impl Mentions {
    /// Mentions of files under `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Mentions {
            root: root.into(),
            allow_missing: false,
            max_listed: MAX_LISTED,
        }
    }

    /// Sets whether paths that do not exist count as mentions (they must
    /// still stay inside the root). By default, they do not.
    pub fn allow_missing(mut self, allow: bool) -> Self {
        self.allow_missing = allow;
        self
    }

    /// Sets how many mentions the reminder lists. By default, 5.
    pub fn max_listed(mut self, max: usize) -> Self {
        self.max_listed = max.max(1);
        self
    }

    /// Returns `true` when `path` is a mention of a file inside the root
    /// (MENTION-2): relative, without `..`, and — when it exists — resolving
    /// (symlinks followed) to a regular file inside the root: not the root
    /// itself, a directory, a FIFO, a socket or a device, which the model
    /// cannot read as a file (REL-1).
    pub fn is_inside(&self, path: &str) -> bool {
        let relative = Path::new(path);
        if relative.is_absolute()
            || relative
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return false;
        }
        let full = self.root.join(relative);
        match (full.canonicalize(), self.root.canonicalize()) {
            (Ok(target), Ok(root)) => {
                target != root
                    && target.starts_with(root)
                    && std::fs::metadata(&target).is_ok_and(|m| m.is_file())
            }
            // Missing (or a dangling link): only a lexical mention, if allowed,
            // and never through a symlink.
            (Err(_), _) => self.allow_missing && std::fs::symlink_metadata(&full).is_err(),
            (Ok(_), Err(_)) => false,
        }
    }

    /// The mentions of `text`, checked and deduplicated, and the text with
    /// the reminder appended (MENTION-3).
    pub fn apply(&self, text: &str) -> Applied {
        let mut paths: Vec<String> = Vec::new();
        let mut ignored: Vec<String> = Vec::new();
        for c in candidates(text) {
            if paths.contains(&c.path) || ignored.contains(&c.path) {
                continue;
            }
            if self.is_inside(&c.path) {
                paths.push(c.path);
            } else {
                ignored.push(c.path);
            }
        }
        let text = match reminder(&paths, self.max_listed) {
            Some(r) => format!("{text}\n\n{r}"),
            None => text.to_owned(),
        };
        Applied { text, paths, ignored }
    }
}

//! The project rules layer, L2 (CTX-2).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

/// The rule file read by default, matched case-insensitively.
pub const CODE_LAW: &str = "CODE_LAW.md";

/// The rules layer as built: the text to inject and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RulesLayer {
    /// The text of the layer: each file under a `# Project rules (<path>)`
    /// heading, in a fixed order. Empty when there is no rule file.
    pub text: String,
    /// The files read, relative to the project root.
    pub files: Vec<PathBuf>,
    /// Warnings for the embedder, such as the layer being cut at its cap.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
struct Cached {
    modified: Option<SystemTime>,
    len: u64,
    text: String,
}

/// Reads the project rules (CTX-2): `CODE_LAW.md` at the project root, in
/// any case, plus configured files such as `AGENTS.md` or `CLAUDE.md`,
/// optionally in subdirectories too. Files are cached by modification time
/// and size, so an unchanged file is not read again; a change is picked up
/// at the next build. The layer is capped (32 KiB by default) and a cut is
/// marked in the text and reported as a warning, never silent.
#[derive(Debug)]
pub struct Rules {
    root: PathBuf,
    names: Vec<String>,
    nested: bool,
    max_bytes: usize,
    cache: Mutex<HashMap<PathBuf, Cached>>,
    reads: Mutex<usize>,
}

impl Rules {
    /// The rules of the project at `root`: `CODE_LAW.md` only, at the root,
    /// capped at 32 KiB.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Rules {
            root: root.into(),
            names: vec![CODE_LAW.to_owned()],
            nested: false,
            max_bytes: 32 * 1024,
            cache: Mutex::new(HashMap::new()),
            reads: Mutex::new(0),
        }
    }

    /// Adds a rule file name (matched case-insensitively), e.g. `AGENTS.md`.
    /// By default, only `CODE_LAW.md`.
    pub fn with_file(mut self, name: impl Into<String>) -> Self {
        self.names.push(name.into());
        self
    }

    /// Sets whether rule files in subdirectories count too (hidden
    /// directories, `target` and `node_modules` are skipped). By default,
    /// only the root's.
    pub fn with_nested(mut self, nested: bool) -> Self {
        self.nested = nested;
        self
    }

    /// Sets the cap of the layer in bytes. By default, 32 KiB.
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// How many times a file was actually read (not served from the
    /// cache).
    pub fn reads(&self) -> usize {
        *self.reads.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn matches(&self, file_name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.eq_ignore_ascii_case(file_name))
    }

    /// The rule files, ordered by name (in configured order) then path.
    fn find(&self) -> Vec<(usize, PathBuf)> {
        let mut found = Vec::new();
        let mut dirs = vec![PathBuf::new()];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(self.root.join(&dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Ok(kind) = entry.file_type() else { continue };
                if kind.is_dir() {
                    let skip = name.starts_with('.') || name == "target" || name == "node_modules";
                    if self.nested && !skip {
                        dirs.push(dir.join(&name));
                    }
                } else if kind.is_file() {
                    if let Some(rank) = self.matches(&name) {
                        found.push((rank, dir.join(&name)));
                    }
                }
            }
        }
        found.sort_by(|a, b| {
            (a.1.components().count(), a.0, &a.1).cmp(&(b.1.components().count(), b.0, &b.1))
        });
        found
    }

    fn read(&self, relative: &Path) -> Option<String> {
        let path = self.root.join(relative);
        let meta = std::fs::metadata(&path).ok()?;
        let (modified, len) = (meta.modified().ok(), meta.len());
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(c) = cache.get(&path) {
            if c.modified == modified && c.len == len && modified.is_some() {
                return Some(c.text.clone());
            }
        }
        let bytes = std::fs::read(&path).ok()?;
        *self.reads.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        cache.insert(
            path,
            Cached {
                modified,
                len,
                text: text.clone(),
            },
        );
        Some(text)
    }

    /// Builds the layer from the files as they are now.
    pub fn build(&self) -> RulesLayer {
        let mut text = String::new();
        let mut files = Vec::new();
        for (_, relative) in self.find() {
            let Some(content) = self.read(&relative) else {
                continue;
            };
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&format!(
                "# Project rules ({})\n\n{}",
                relative.display(),
                content.trim_end()
            ));
            files.push(relative);
        }
        let mut warnings = Vec::new();
        if text.len() > self.max_bytes {
            let total = text.len();
            let mut cut = self.max_bytes;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str(&format!(
                "\n[… project rules cut at {} bytes: {} bytes left out …]",
                self.max_bytes,
                total - cut
            ));
            warnings.push(format!(
                "the project rules are {total} bytes, over the cap of {} bytes; the rest was left out",
                self.max_bytes
            ));
        }
        RulesLayer {
            text,
            files,
            warnings,
        }
    }
}

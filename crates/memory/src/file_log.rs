//! The memory log in a file (MEM-2): `<dir>/<namespace>.memory.jsonl`.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use strata_ctx_fs::{create_private_dir, open_private_append, PrivateFileError};

use crate::longterm::{MemoryError, MemoryLog};

type Result<T, E = MemoryError> = std::result::Result<T, E>;

/// A namespace's memory log in a file: owner-only, never through a link,
/// locked for its one writer while open.
#[derive(Debug)]
pub(crate) struct FileLog {
    path: PathBuf,
    file: File,
    /// Whether the file ends in a whole line without its newline, to be
    /// ended before the next write.
    unended: bool,
}

impl FileLog {
    pub(crate) fn open(dir: &Path, namespace: &str) -> Result<FileLog> {
        create_private_dir(dir).map_err(|source| MemoryError::Io {
            path: dir.to_owned(),
            source,
        })?;
        let path = dir.join(format!("{namespace}.memory.jsonl"));
        let file = open_private_append(&path).map_err(|e| match e {
            PrivateFileError::Io(source) => MemoryError::Io {
                path: path.clone(),
                source,
            },
            _ => MemoryError::Symlink { path: path.clone() },
        })?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(MemoryError::Locked { path }),
            Err(std::fs::TryLockError::Error(source)) => return Err(MemoryError::Io { path, source }),
        }
        Ok(FileLog {
            path,
            file,
            unended: false,
        })
    }

    fn io(&self) -> impl Fn(std::io::Error) -> MemoryError + '_ {
        move |source| MemoryError::Io {
            path: self.path.clone(),
            source,
        }
    }
}

impl MemoryLog for FileLog {
    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    fn lines(&mut self) -> Result<Vec<String>> {
        let mut text = String::new();
        (&self.file).read_to_string(&mut text).map_err(self.io())?;
        // What follows the last newline is the last line, ended or not.
        let ended = text.rfind('\n').map_or(0, |n| n + 1);
        let mut lines: Vec<String> = text[..ended]
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect();
        let tail = &text[ended..];
        if tail.trim().is_empty() {
            // Blank: the next write starts a line of its own.
            self.unended = !tail.is_empty();
        } else if serde_json::from_str::<serde_json::Value>(tail).is_ok() {
            lines.push(tail.to_owned());
            self.unended = true;
        } else {
            // A write cut short: the torn last line is cut off, so that
            // the next write starts clean.
            self.file.set_len(ended as u64).map_err(self.io())?;
        }
        Ok(lines)
    }

    fn append(&mut self, line: &str) -> Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 2);
        if std::mem::take(&mut self.unended) {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.file.write_all(&bytes).map_err(self.io())?;
        self.file.flush().map_err(self.io())
    }
}

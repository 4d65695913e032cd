//! JSONL persistence of conversations (STORE-1 … STORE-3).

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use strata_ctx_history::Record;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// The most bytes of a conversation log [`read_log`] reads (REL-2); a
/// larger log is [`Error::TooLarge`]. See [`read_log_within`].
pub const DEFAULT_MAX_LOG_BYTES: u64 = 1024 * 1024 * 1024;

/// Creates `dir` and its missing parents, readable by its owner only
/// (REL-4).
fn create_private_dir(dir: &Path) -> Result<()> {
    strata_ctx_fs::create_private_dir(dir).map_err(io(dir))
}

/// Refuses `path` when it is a symbolic link (REL-4): the store never
/// writes through one.
fn refuse_symlink(path: &Path) -> Result<Option<std::fs::Metadata>> {
    strata_ctx_fs::refuse_symlink(path).map_err(private(path))
}

/// Opens (or creates) a log for reading and appending: a new file is
/// readable by its owner only, a symbolic link is refused (REL-4).
fn open_private(path: &Path) -> Result<File> {
    strata_ctx_fs::open_private_append(path).map_err(private(path))
}

/// The store's error for a failed private open of `path`.
fn private(path: &Path) -> impl Fn(strata_ctx_fs::PrivateFileError) -> Error + '_ {
    move |e| match e {
        strata_ctx_fs::PrivateFileError::Io(source) => Error::Io {
            path: path.to_owned(),
            source,
        },
        _ => Error::Symlink {
            path: path.to_owned(),
        },
    }
}

fn check_name(name: &str) -> Result<()> {
    if strata_ctx_fs::is_plain_name(name) {
        Ok(())
    } else {
        Err(Error::InvalidName {
            name: name.to_owned(),
        })
    }
}

/// A conversation's records as loaded from its log.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Loaded {
    /// The records, in order.
    pub records: Vec<Record>,
    /// The line number of a torn last line that was left out (a write cut
    /// short by a crash), if there was one.
    pub torn_line: Option<usize>,
}

impl Loaded {
    /// Records loaded whole, with no torn line.
    pub fn new(records: Vec<Record>) -> Self {
        Loaded {
            records,
            torn_line: None,
        }
    }
}

/// Reads a conversation log (STORE-1): one JSON record per line. A last
/// line that is incomplete (no newline) and does not parse is reported in
/// [`Loaded::torn_line`] and left out.
///
/// # Errors
///
/// [`Error::Io`] when the file cannot be read; [`Error::CorruptRecord`]
/// with its line number when any other line does not parse.
pub fn read_log(path: &Path) -> Result<Loaded> {
    read_log_within(path, DEFAULT_MAX_LOG_BYTES)
}

/// [`read_log`] of a log of at most `max_bytes` bytes (REL-2); it opens
/// the file read-only and writes nothing.
///
/// # Errors
///
/// [`Error::TooLarge`] for a larger log, [`Error::Symlink`] for a symbolic
/// link, and the errors of [`read_log`].
pub fn read_log_within(path: &Path, max_bytes: u64) -> Result<Loaded> {
    refuse_symlink(path)?;
    let file = File::open(path).map_err(io(path))?;
    let size = file.metadata().map_err(io(path))?.len();
    if size > max_bytes {
        return Err(Error::TooLarge {
            path: path.to_owned(),
            bytes: size,
            limit: max_bytes,
        });
    }
    let mut reader = BufReader::new(file.take(max_bytes));
    let mut records = Vec::new();
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(io(path))?;
        if n == 0 {
            return Ok(Loaded {
                records,
                torn_line: None,
            });
        }
        number += 1;
        let complete = line.ends_with(b"\n");
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end();
        if text.is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(text) {
            Ok(record) => records.push(record),
            Err(_) if !complete => {
                return Ok(Loaded {
                    records,
                    torn_line: Some(number),
                })
            }
            Err(e) => {
                return Err(Error::CorruptRecord {
                    path: path.to_owned(),
                    line: number,
                    reason: e.to_string(),
                })
            }
        }
    }
}

/// A directory of conversations in namespaces, each with a current
/// conversation (STORE-2): `<dir>/<namespace>/<conversation>.jsonl` and
/// `<dir>/<namespace>/CURRENT`.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store in `dir`, created if missing.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the directory cannot be created.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        if !dir.is_dir() {
            create_private_dir(&dir)?;
        }
        Ok(Store { dir })
    }

    /// The store in `dir`, to read from: nothing is created, and a
    /// missing directory is a store with no namespaces. Reads never write
    /// (`namespaces`, `list`, `current`, `lines`); a write through this
    /// handle creates what it needs, as with [`Store::open`].
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("strata-store-that-is-not-there");
    /// let store = strata_ctx_store::Store::open_existing(&dir);
    /// assert!(store.namespaces().unwrap().is_empty());
    /// assert!(store.list("default").unwrap().is_empty());
    /// assert!(!dir.exists());
    /// ```
    pub fn open_existing(dir: impl Into<PathBuf>) -> Self {
        Store { dir: dir.into() }
    }

    /// A namespace's directory, to read: not created.
    fn existing_namespace_dir(&self, namespace: &str) -> Result<PathBuf> {
        check_name(namespace)?;
        Ok(self.dir.join(namespace))
    }

    fn namespace_dir(&self, namespace: &str) -> Result<PathBuf> {
        check_name(namespace)?;
        let dir = self.dir.join(namespace);
        if !dir.is_dir() {
            refuse_symlink(&dir)?;
            create_private_dir(&dir)?;
        }
        Ok(dir)
    }

    /// A conversation's records, read without opening it for writing,
    /// taking its lock or touching `CURRENT`: it works on a read-only or
    /// full disk (REL-4).
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] when it does not exist, and the errors of
    /// [`read_log`].
    pub fn load(&self, namespace: &str, name: &str) -> Result<Loaded> {
        check_name(namespace)?;
        check_name(name)?;
        let path = self.dir.join(namespace).join(format!("{name}.jsonl"));
        if refuse_symlink(&path)?.is_none() {
            return Err(Error::NotFound {
                name: name.to_owned(),
                dir: self.dir.join(namespace),
            });
        }
        read_log(&path)
    }

    /// A conversation's records as the lines of its log, byte for byte,
    /// without the newlines; a torn last line is left out.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] when it does not exist, [`Error::Io`],
    /// [`Error::TooLarge`] over [`DEFAULT_MAX_LOG_BYTES`].
    pub fn lines(&self, namespace: &str, name: &str) -> Result<Vec<String>> {
        check_name(namespace)?;
        check_name(name)?;
        let path = self.dir.join(namespace).join(format!("{name}.jsonl"));
        let Some(meta) = refuse_symlink(&path)? else {
            return Err(Error::NotFound {
                name: name.to_owned(),
                dir: self.dir.join(namespace),
            });
        };
        if meta.len() > DEFAULT_MAX_LOG_BYTES {
            return Err(Error::TooLarge {
                path,
                bytes: meta.len(),
                limit: DEFAULT_MAX_LOG_BYTES,
            });
        }
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let text = String::from_utf8(bytes).map_err(|e| Error::CorruptRecord {
            path: path.clone(),
            line: 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count(),
            reason: "not UTF-8".into(),
        })?;
        let mut lines: Vec<&str> = text.split('\n').collect();
        // What follows the last newline is empty, or a torn line.
        lines.pop();
        Ok(lines
            .into_iter()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// The namespaces that hold conversations, sorted.
    ///
    /// # Errors
    ///
    /// [`Error::Io`].
    pub fn namespaces(&self) -> Result<Vec<String>> {
        let mut names = Vec::new();
        let entries = match std::fs::read_dir(&self.dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(names),
            other => other.map_err(io(&self.dir))?,
        };
        for entry in entries {
            let entry = entry.map_err(io(&self.dir))?;
            let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if let (true, Some(name)) = (is_dir, entry.file_name().to_str()) {
                if check_name(name).is_ok() {
                    names.push(name.to_owned());
                }
            }
        }
        names.sort();
        Ok(names)
    }

    /// The path of a conversation's log.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidName`] for a name that is not a plain file name.
    pub fn path(&self, namespace: &str, name: &str) -> Result<PathBuf> {
        check_name(name)?;
        Ok(self.namespace_dir(namespace)?.join(format!("{name}.jsonl")))
    }

    /// The names of a namespace's conversations, sorted.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] or [`Error::InvalidName`].
    pub fn list(&self, namespace: &str) -> Result<Vec<String>> {
        let dir = self.existing_namespace_dir(namespace)?;
        let mut names = Vec::new();
        let entries = match std::fs::read_dir(&dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(names),
            other => other.map_err(io(&dir))?,
        };
        for entry in entries {
            let entry = entry.map_err(io(&dir))?;
            if let Some(name) = entry.file_name().to_str().and_then(|n| n.strip_suffix(".jsonl")) {
                names.push(name.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// The namespace's current conversation, if one was set.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] or [`Error::InvalidName`].
    pub fn current(&self, namespace: &str) -> Result<Option<String>> {
        let path = self.existing_namespace_dir(namespace)?.join("CURRENT");
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text.trim().to_owned()).filter(|n| !n.is_empty())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::Io { path, source: e }),
        }
    }

    /// Makes `name` the namespace's current conversation.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] or [`Error::InvalidName`].
    pub fn set_current(&self, namespace: &str, name: &str) -> Result<()> {
        check_name(name)?;
        if self.current(namespace)?.as_deref() == Some(name) {
            // Nothing to write: reopening works on a full or read-only disk.
            return Ok(());
        }
        let dir = self.namespace_dir(namespace)?;
        // Write then rename, so a reader never sees half a name; the
        // temporary file is created anew, never through a link.
        let tmp = dir.join("CURRENT.tmp");
        let _ = std::fs::remove_file(&tmp);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp).map_err(io(&tmp))?;
        file.write_all(name.as_bytes()).map_err(io(&tmp))?;
        drop(file);
        let path = dir.join("CURRENT");
        std::fs::rename(&tmp, &path).map_err(io(&path))
    }

    /// Opens a conversation for appending, creating it when `create` is
    /// set, and makes it current. A torn last line is cut off first (and
    /// reported by [`Conversation::load`] before that).
    ///
    /// # Errors
    ///
    /// [`Error::Locked`] when another writer holds it (STORE-2),
    /// [`Error::NotFound`] when it does not exist and `create` is not set,
    /// [`Error::Io`], [`Error::InvalidName`].
    pub fn open_conversation(&self, namespace: &str, name: &str, create: bool) -> Result<Conversation> {
        let path = self.path(namespace, name)?;
        if !create && !path.exists() {
            return Err(Error::NotFound {
                name: name.to_owned(),
                dir: self.dir.join(namespace),
            });
        }
        let conversation = Conversation::open(&path)?;
        self.set_current(namespace, name)?;
        Ok(conversation)
    }
}

/// One conversation's log, open for appending and locked against other
/// writers (STORE-1, STORE-2). The lock is released when it is dropped.
#[derive(Debug)]
pub struct Conversation {
    path: PathBuf,
    file: File,
    torn_line: Option<usize>,
}

impl Conversation {
    /// Opens (or creates) the log at `path` for appending.
    ///
    /// # Errors
    ///
    /// [`Error::Locked`] when another writer holds it, [`Error::Io`].
    pub fn open(path: impl Into<PathBuf>) -> Result<Self> {
        let path = path.into();
        let mut file = open_private(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(Error::Locked { path }),
            Err(std::fs::TryLockError::Error(source)) => return Err(Error::Io { path, source }),
        }
        // Cut a torn last line so that appends start on a fresh line.
        let mut torn_line = None;
        let len = file.metadata().map_err(io(&path))?.len();
        if len > 0 {
            let loaded = read_log(&path)?;
            if let Some(line) = loaded.torn_line {
                torn_line = Some(line);
                let text = std::fs::read(&path).map_err(io(&path))?;
                let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                file.set_len(keep as u64).map_err(io(&path))?;
                file.seek(SeekFrom::End(0)).map_err(io(&path))?;
            }
        }
        Ok(Conversation {
            path,
            file,
            torn_line,
        })
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The line number of a torn last line that was cut when the log was
    /// opened, if any.
    pub fn torn_line(&self) -> Option<usize> {
        self.torn_line
    }

    /// Appends records, one line each, flushed after each record.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] (a full disk, say); records before the failing one are
    /// written, the caller still holds all of them.
    pub fn append(&mut self, records: &[Record]) -> Result<()> {
        for record in records {
            let mut line = serde_json::to_vec(record).map_err(|e| Error::Io {
                path: self.path.clone(),
                source: std::io::Error::other(e),
            })?;
            line.push(b'\n');
            self.file.write_all(&line).map_err(io(&self.path))?;
            self.file.flush().map_err(io(&self.path))?;
        }
        Ok(())
    }

    /// Appends records given as their JSON lines, byte for byte, after
    /// checking that each is a record (nothing is written otherwise).
    ///
    /// # Errors
    ///
    /// [`Error::CorruptRecord`] naming the first line that is not a
    /// record, [`Error::Io`].
    pub fn append_lines(&mut self, lines: &[String]) -> Result<()> {
        crate::backend::check_lines(lines, &self.path)?;
        for line in lines {
            let mut bytes = Vec::with_capacity(line.len() + 1);
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            self.file.write_all(&bytes).map_err(io(&self.path))?;
        }
        self.file.flush().map_err(io(&self.path))
    }

    /// Reads the records written so far.
    ///
    /// # Errors
    ///
    /// As [`read_log`].
    pub fn load(&self) -> Result<Loaded> {
        read_log(&self.path)
    }
}

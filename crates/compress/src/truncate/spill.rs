//! Spill files: where the whole output of a cut goes, created private and
//! never over an existing file (TRUNC-2, REL-2).

use super::*;

impl Truncator {
    /// Saves `output` whole to a new spill file.
    pub(super) fn spill_all(&self, tool: &str, output: &[u8]) -> Spill {
        match self.open_spill(tool) {
            Ok(mut sink) => match sink.write(output) {
                Ok(()) => sink.finish(),
                Err(e) => sink.fail(e),
            },
            Err(spill) => spill,
        }
    }

    pub(super) fn display_path(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    pub(super) fn open_spill(&self, tool: &str) -> Result<Sink, Spill> {
        let Some(dir) = &self.spill_dir else {
            return Err(Spill::Disabled);
        };
        let dir = self.root.join(dir);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Spill::Failed(format!("{} is a symlink", dir.display())))
            }
            Ok(meta) if !meta.is_dir() => {
                return Err(Spill::Failed(format!("{} is not a directory", dir.display())))
            }
            Ok(_) => {}
            Err(_) => {
                if let Err(e) = strata_ctx_fs::create_private_dir(&dir) {
                    return Err(Spill::Failed(format!("cannot create {}: {e}", dir.display())));
                }
            }
        }
        let stamp = (self.clock)().to_compact_string();
        let name = sanitize(tool);
        for _ in 0..1000 {
            // Unique within this truncator and its clones; exclusive
            // creation skips names taken by others (other truncators,
            // other processes).
            let n = self.counter.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("{name}_{stamp}_{n}.txt"));
            match strata_ctx_fs::create_private_file(&path) {
                Ok(file) => {
                    return Ok(Sink {
                        file: io::BufWriter::with_capacity(CHUNK, file),
                        path,
                        written: 0,
                        cap: self.max_spill_bytes,
                        capped: false,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Spill::Failed(format!("cannot create {}: {e}", path.display()))),
            }
        }
        Err(Spill::Failed(format!("no free file name in {}", dir.display())))
    }
}

/// The note of a spill file that holds only the start of the output,
/// after `earlier` when there is one.
pub(super) fn capped_note(cap: u64, earlier: Option<String>) -> String {
    let note =
        format!("The full output is longer than the spill limit: its file holds the first {cap} bytes.");
    match earlier {
        Some(e) => format!("The output could not be read completely: {e}. {note}"),
        None => note,
    }
}

/// An open spill file.
pub(super) struct Sink {
    pub(super) file: io::BufWriter<File>,
    pub(super) path: PathBuf,
    pub(super) written: u64,
    pub(super) cap: u64,
    /// Whether bytes past the cap were left out.
    pub(super) capped: bool,
}

impl Sink {
    /// Writes what fits under the cap; the rest is left out and noted.
    pub(super) fn write(&mut self, data: &[u8]) -> io::Result<()> {
        let room = self.cap.saturating_sub(self.written);
        let take = (data.len() as u64).min(room) as usize;
        if take < data.len() {
            self.capped = true;
        }
        self.written += take as u64;
        self.file.write_all(&data[..take])
    }

    pub(super) fn finish(mut self) -> Spill {
        match self.file.flush() {
            Ok(()) => Spill::Saved(self.path),
            Err(e) => self.fail(e),
        }
    }

    /// Removes the incomplete file and reports why.
    pub(super) fn fail(self, e: io::Error) -> Spill {
        let path = self.path;
        drop(self.file);
        let _ = std::fs::remove_file(&path);
        Spill::Failed(format!("cannot write {}: {e}", path.display()))
    }
}

/// A file-name-safe form of a tool name.
pub(super) fn sanitize(tool: &str) -> String {
    let mut name: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    if name.is_empty() {
        name.push_str("tool");
    }
    name
}

/// An output being read: its head, up to one byte over the limit, and
/// the spill file the whole output streams to once it is over the limits.
pub(super) struct Streamed {
    pub(super) head: Vec<u8>,
    pub(super) sink: Option<Sink>,
    pub(super) spill: Spill,
}

impl Streamed {
    /// Takes the next chunk `data`, `newlines` having been read so far.
    pub(super) fn push(
        &mut self,
        truncator: &Truncator,
        tool: &str,
        limits: Limits,
        data: &[u8],
        newlines: usize,
    ) {
        if self.sink.is_none() && matches!(self.spill, Spill::NotNeeded) {
            let room = (limits.max_bytes + 1)
                .saturating_sub(self.head.len())
                .min(data.len());
            self.head.extend_from_slice(&data[..room]);
            if self.head.len() > limits.max_bytes || newlines > limits.max_lines {
                match truncator.open_spill(tool) {
                    Ok(mut s) => {
                        // Everything read so far: the head part and the
                        // rest of this chunk.
                        match s.write(&self.head).and_then(|_| s.write(&data[room..])) {
                            Ok(()) => self.sink = Some(s),
                            Err(e) => self.spill = s.fail(e),
                        }
                    }
                    Err(failed) => self.spill = failed,
                }
            }
            return;
        }
        if let Some(s) = self.sink.as_mut() {
            if let Err(e) = s.write(data) {
                if let Some(s) = self.sink.take() {
                    self.spill = s.fail(e);
                }
            }
        }
    }
}

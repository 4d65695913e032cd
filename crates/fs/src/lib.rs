//! Files only their owner reads, never written through a link (REL-4):
//! the one place that decides how Strata's crates create directories,
//! logs and spill files.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

/// Creates `dir` and its missing parents, readable by its owner only
/// (`0700` on Unix).
///
/// # Errors
///
/// The operating system's error.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates a new file at `path`, readable by its owner only (`0600`),
/// for writing. Fails on any existing entry, a link included, and so
/// never follows one (`O_CREAT | O_EXCL`).
///
/// # Errors
///
/// The operating system's error (`AlreadyExists` for an existing entry).
pub fn create_private_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Whether `name` is a plain name for a file or a namespace of a store:
/// letters, digits, `-`, `_` and `.`, not starting with `.`, at most 128
/// bytes. Such a name never leaves its directory.
///
/// ```
/// use strata_ctx_fs::is_plain_name;
///
/// assert!(is_plain_name("ada-2026.11"));
/// assert!(!is_plain_name("../etc") && !is_plain_name(".hidden") && !is_plain_name(""));
/// ```
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// What [`open_private_append`] and [`refuse_symlink`] can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PrivateFileError {
    /// The path is a symbolic link, or was swapped for one while it was
    /// opened.
    #[error("is a symbolic link")]
    Symlink,
    /// The operating system's error.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The metadata of `path` without following a link: `None` when nothing
/// is there.
///
/// # Errors
///
/// [`PrivateFileError::Symlink`] when `path` is a symbolic link.
pub fn refuse_symlink(path: &Path) -> Result<Option<Metadata>, PrivateFileError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(PrivateFileError::Symlink),
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Opens (or creates) the file at `path` for reading and appending: a new
/// file is readable by its owner only, a symbolic link is refused, also
/// one swapped in between the check and the open.
///
/// # Errors
///
/// [`PrivateFileError::Symlink`], or the operating system's error.
pub fn open_private_append(path: &Path) -> Result<File, PrivateFileError> {
    let before = refuse_symlink(path)?;
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path)?;
    if !same_file(before.as_ref(), &file) || refuse_symlink(path)?.is_none() {
        return Err(PrivateFileError::Symlink);
    }
    Ok(file)
}

/// Whether the opened `file` is the file `before` described.
fn same_file(before: Option<&Metadata>, file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (before, file.metadata()) {
            (Some(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            (None, Ok(_)) => true,
            (_, Err(_)) => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (before, file);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rel_4_private_and_no_links() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a/b");
        create_private_dir(&sub).unwrap();
        let log = sub.join("log.jsonl");
        drop(open_private_append(&log).unwrap());
        assert!(create_private_file(&log).is_err(), "never over an existing entry");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&sub), 0o700);
            assert_eq!(mode(&log), 0o600);
            let link = sub.join("link.jsonl");
            std::os::unix::fs::symlink(&log, &link).unwrap();
            assert!(matches!(
                open_private_append(&link),
                Err(PrivateFileError::Symlink)
            ));
            assert!(matches!(refuse_symlink(&link), Err(PrivateFileError::Symlink)));
            assert!(create_private_file(&link).is_err());
        }
        assert!(refuse_symlink(&sub.join("none")).unwrap().is_none());
    }
}

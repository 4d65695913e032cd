//! A small, real filesystem that fills up: a tmpfs mounted for a test.

use std::path::Path;
use std::process::Command;

/// A tmpfs of a given size mounted on a temporary directory, unmounted
/// when dropped: a real full disk for fault tests of the store and spill
/// files. Mounting needs the machine's permission (root in a sandbox that
/// allows mounts); where it is refused, [`Tmpfs::mount`] returns `None`
/// and the test says it was skipped.
#[derive(Debug)]
pub struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (as `mount -o size=` takes it, e.g.
    /// `"64k"`), or `None` when the machine does not allow it.
    pub fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        mounted.then_some(Tmpfs { dir })
    }

    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

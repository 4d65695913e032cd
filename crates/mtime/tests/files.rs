//! MTIME-1 and MTIME-2 with real files.

// Test code: unwrapping, panicking and printing are how it reports; the
// house lints (Cargo.toml) are for library code.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub
)]

use std::fs::{File, FileTimes};
use std::time::{Duration, SystemTime};

use serde_json::json;
use strata_ctx_core::ToolResult;
use strata_ctx_mtime::Freshness;

fn touch(path: &std::path::Path, at: SystemTime) {
    let file = File::options().write(true).open(path).unwrap();
    file.set_times(FileTimes::new().set_modified(at)).unwrap();
}

#[test]
fn mtime_1_external_change_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main.rs");
    std::fs::write(&path, "fn main() {}").unwrap();
    let f = Freshness::new();
    let mut first = ToolResult::success(json!({"path": "main.rs", "content": "fn main() {}"}));
    assert!(!f.annotate(&mut first, &path));
    let mut again = ToolResult::success(json!({"path": "main.rs", "content": "fn main() {}"}));
    assert!(!f.annotate(&mut again, &path), "unchanged: no note");

    touch(&path, SystemTime::now() + Duration::from_secs(60));
    let mut changed = ToolResult::success(json!({"path": "main.rs", "content": "fn main() { run() }"}));
    assert!(f.annotate(&mut changed, &path));
    let note = format!("Note: {} was modified externally.", path.display());
    assert_eq!(changed.data["note"], note.as_str());
    assert_eq!(changed.text.as_deref(), Some(note.as_str()));

    let mut text = ToolResult::success("plain text");
    touch(&path, SystemTime::now() + Duration::from_secs(120));
    assert!(f.annotate(&mut text, &path));
    assert_eq!(text.data, format!("plain text\n\n{note}").as_str());
}

#[test]
fn mtime_2_own_writes_are_exempt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lib.rs");
    std::fs::write(&path, "a").unwrap();
    let f = Freshness::new();
    assert_eq!(f.read(&path), None);
    std::fs::write(&path, "b").unwrap();
    touch(&path, SystemTime::now() + Duration::from_secs(30));
    f.wrote(&path);
    assert_eq!(f.read(&path), None, "the agent's own write raises no note");
    assert_eq!(f.read(dir.path().join("missing.rs")), None);
}

/// MTIME-1 with a project root: relative paths resolve against it, the
/// note names the path as the tool gave it, and the absolute path is the
/// same record.
#[test]
fn mtime_1_root_relative_paths_are_named_as_given() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    let f = Freshness::with_root(dir.path());
    assert_eq!(f.read("a.txt"), None);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("a.txt"))
        .unwrap();
    file.set_modified(SystemTime::now() + Duration::from_secs(30))
        .unwrap();
    drop(file);
    assert_eq!(
        f.read("a.txt").as_deref(),
        Some("Note: a.txt was modified externally.")
    );
    assert_eq!(f.read(dir.path().join("a.txt")), None);
    f.wrote("a.txt");
    assert_eq!(f.read("a.txt"), None);
}

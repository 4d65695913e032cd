//! CTX-2: rule files, case-insensitive names, the cache and the cap.

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

use strata_ctx_prompt::Rules;

#[test]
fn ctx_2_code_law_in_any_case_and_changes_picked_up() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::new(dir.path());
    assert_eq!(rules.build().text, "", "absent: nothing");
    std::fs::write(dir.path().join("Code_Law.md"), "Never use unwrap.\n").unwrap();
    let layer = rules.build();
    assert_eq!(layer.text, "# Project rules (Code_Law.md)\n\nNever use unwrap.");
    assert_eq!(rules.build(), layer, "byte-stable");
    assert_eq!(rules.reads(), 1, "an unchanged file is not read again");

    let path = dir.path().join("Code_Law.md");
    std::fs::write(&path, "Never use unwrap or expect.\n").unwrap();
    File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_times(FileTimes::new().set_modified(SystemTime::now() + Duration::from_secs(10)))
        .unwrap();
    assert!(rules.build().text.ends_with("Never use unwrap or expect."));
    assert_eq!(rules.reads(), 2);
}

#[test]
fn ctx_2_other_and_nested_files_in_a_fixed_order() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("web/.git")).unwrap();
    std::fs::write(dir.path().join("CODE_LAW.md"), "root law").unwrap();
    std::fs::write(dir.path().join("agents.md"), "agents").unwrap();
    std::fs::write(dir.path().join("web/CODE_LAW.md"), "web law").unwrap();
    std::fs::write(dir.path().join("web/.git/CODE_LAW.md"), "hidden").unwrap();
    let layer = Rules::new(dir.path())
        .with_file("AGENTS.md")
        .with_nested(true)
        .build();
    assert_eq!(
        layer.text,
        "# Project rules (CODE_LAW.md)\n\nroot law\n\n# Project rules (agents.md)\n\nagents\n\n# Project rules (web/CODE_LAW.md)\n\nweb law"
    );
    assert_eq!(Rules::new(dir.path()).build().files.len(), 1);
}

#[test]
fn ctx_2_cap_is_visible_and_warned() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("CODE_LAW.md"), "ü".repeat(40_000)).unwrap();
    let layer = Rules::new(dir.path()).build();
    assert!(layer.text.len() < 33_000);
    assert!(layer.text.ends_with("bytes left out …]"));
    assert_eq!(layer.warnings.len(), 1);
}

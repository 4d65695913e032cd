//! MENTION-1 … MENTION-3.

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

use proptest::prelude::*;
use strata_ctx_atfile::{candidates, Mentions};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/utils")).unwrap();
    for f in [
        "src/utils/auth.ts",
        "src/main.rs",
        "README.md",
        "a.rs",
        "b.rs",
        "c.rs",
        "d.rs",
        "e.rs",
        "f.rs",
        "g.rs",
    ] {
        std::fs::write(dir.path().join(f), "x").unwrap();
    }
    dir
}

#[test]
fn mention_3_spec_example_one_file() {
    let dir = project();
    let applied = Mentions::new(dir.path()).apply("Check @src/utils/auth.ts.");
    assert_eq!(
        applied.text,
        "Check @src/utils/auth.ts.\n\n<system-reminder>\nThe user mentioned @src/utils/auth.ts.\nYou MUST read this file with the Read tool before answering.\n</system-reminder>"
    );
}

#[test]
fn mention_1_email_and_punctuation() {
    let found: Vec<String> = candidates("mail me@x.com, see @a.rs, (@b.rs) and @c.rs... also @d.rs,")
        .into_iter()
        .map(|c| c.path)
        .collect();
    assert_eq!(found, ["a.rs", "b.rs", "c.rs", "d.rs"]);
}

#[test]
fn mention_2_duplicates_and_seven_mentions() {
    let dir = project();
    let applied = Mentions::new(dir.path()).apply("@a.rs @b.rs @a.rs @c.rs @d.rs @e.rs @f.rs @g.rs");
    assert_eq!(
        applied.paths,
        ["a.rs", "b.rs", "c.rs", "d.rs", "e.rs", "f.rs", "g.rs"]
    );
    assert!(applied.text.contains(
        "The user mentioned @a.rs, @b.rs, @c.rs, @d.rs, @e.rs (and 2 more…).\nYou MUST read these files with the Read tool before answering."
    ));
}

#[test]
fn mention_2_escapes_are_not_mentions() {
    let dir = project();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("link.txt")).unwrap();
    let m = Mentions::new(dir.path());
    let applied = m.apply("@../../etc/passwd @/etc/passwd @link.txt @missing.rs @src/main.rs");
    assert_eq!(applied.paths, ["src/main.rs"]);
    assert!(applied.ignored.contains(&"../../etc/passwd".to_owned()));
    assert!(applied.ignored.contains(&"/etc/passwd".to_owned()));
    #[cfg(unix)]
    assert!(applied.ignored.contains(&"link.txt".to_owned()));
    assert!(m.clone().allow_missing(true).apply("@missing.rs").paths == ["missing.rs"]);
    assert!(m.apply("no mentions here").text == "no mentions here");
}

#[test]
fn mention_1_chinese_text_around_mentions() {
    let dir = project();
    let applied = Mentions::new(dir.path()).apply("请看@src/main.rs和@README.md。谢谢");
    assert_eq!(applied.paths, ["src/main.rs", "README.md"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The parser never panics, and no accepted mention leaves the root.
    #[test]
    fn mention_2_never_outside_the_root(text in "[ a-z@./_-]{0,60}|.{0,60}") {
        let dir = project();
        let m = Mentions::new(dir.path()).allow_missing(true);
        let applied = m.apply(&text);
        let root = dir.path().canonicalize().unwrap();
        for p in &applied.paths {
            prop_assert!(!p.starts_with('/') && !p.split('/').any(|c| c == ".."));
            if let Ok(full) = dir.path().join(p).canonicalize() {
                prop_assert!(full.starts_with(&root));
            }
        }
        for c in candidates(&text) {
            prop_assert!(text.is_char_boundary(c.range.start) && text.is_char_boundary(c.range.end));
            prop_assert_eq!(&text[c.range.start + 1..c.range.end], c.path.as_str());
        }
    }
}

/// REL-1 (issue: directories, the root, FIFOs and devices were accepted
/// and the model told it MUST read them): only regular files are
/// mentions.
#[test]
fn rel_1_only_regular_files_are_mentions() {
    let dir = project();
    std::fs::create_dir(dir.path().join("pkg")).unwrap();
    #[cfg(unix)]
    {
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()));
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).unwrap();
    }
    let m = Mentions::new(dir.path());
    let applied = m.apply("look at @pkg, @., @pipe, @zero and @src/main.rs");
    assert_eq!(applied.paths, ["src/main.rs"]);
    for ignored in ["pkg", "pipe", "zero"] {
        assert!(
            applied.ignored.contains(&ignored.to_owned()),
            "{ignored}: {applied:?}"
        );
    }
    assert!(!applied.text.contains("pipe`"), "{}", applied.text);
}

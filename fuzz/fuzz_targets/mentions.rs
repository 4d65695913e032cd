//! `@file` mentions (MENTION-1..3): any text gives mentions inside the
//! project root only, never a panic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use strata_ctx::atfile::{candidates, Mentions};

fn root() -> &'static tempfile::TempDir {
    static ROOT: OnceLock<tempfile::TempDir> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir_all(dir.path().join("src")).expect("src");
        std::fs::write(dir.path().join("src/main.rs"), "fn main() {}").expect("a file");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = candidates(&text);
    let applied = Mentions::new(root().path()).apply(&text);
    for path in &applied.paths {
        assert!(!path.starts_with('/') && !path.contains(".."), "{path}");
    }
});

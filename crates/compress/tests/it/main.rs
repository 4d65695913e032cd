//! Integration tests of strata-ctx-compress.

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

mod captured;
mod documented;
mod elided;
mod findings;
mod formatters;
mod messages;
mod nested;
mod props;
mod snapshots;
mod spill;
mod summary;
mod terminal_view;
mod toolchains;

use std::path::PathBuf;

/// A file of the workspace's test data.
pub fn data(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(relative)
}

//! Integration tests of the `strata` facade, on the documented format and
//! on real transcripts.

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

mod agent;
mod agents;
#[cfg(all(feature = "openai", feature = "anthropic"))]
mod coding_agent;
mod corpus;
mod count;
mod engine;
mod format_doc;
mod golden;
mod long_round;
mod memory;
mod model;
mod mutation;
mod openai;
mod reliability;
mod replay;
#[cfg(all(feature = "openai", feature = "anthropic"))]
mod server_context;
#[cfg(all(feature = "openai", feature = "anthropic"))]
mod switch;
mod tool_names;
#[cfg(feature = "tracing")]
mod tracing_events;

use std::path::PathBuf;

/// Asserts that `window` is within its threshold, naming `at` (a step or
/// round) when it is not.
#[track_caller]
pub fn assert_within_budget(window: &strata_ctx::Window, at: impl std::fmt::Display) {
    assert!(
        window.tokens <= window.threshold,
        "{at}: {} > {}",
        window.tokens,
        window.threshold
    );
}

/// A path below the workspace root.
pub fn workspace_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

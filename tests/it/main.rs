//! Integration tests of the `strata` facade, on the documented format and
//! on real transcripts.

mod agent;
mod corpus;
mod engine;
mod format_doc;
mod golden;
mod long_round;
mod mutation;
mod openai;
mod reliability;
mod replay;

use std::path::PathBuf;

/// A path below the workspace root.
pub fn workspace_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

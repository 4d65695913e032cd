//! Integration tests of strata-compress.

mod nested;
mod props;
mod snapshots;
mod spill;
mod summary;

use std::path::PathBuf;

/// A file of the workspace's test data.
pub fn data(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(relative)
}

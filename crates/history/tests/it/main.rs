//! Integration tests of strata-ctx-history.

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

mod compaction;
mod last_error;
mod props;
mod prune;

use std::time::Duration;

use strata_ctx_core::{async_trait, LlmError, LlmResult as Result, Message, Summarizer};

/// A summariser that answers with a fixed short text, after an optional
/// delay, or fails.
pub struct Fixed {
    pub delay: Duration,
    pub fail: bool,
}

impl Fixed {
    pub fn ok() -> Self {
        Fixed {
            delay: Duration::ZERO,
            fail: false,
        }
    }
}

#[async_trait]
impl Summarizer for Fixed {
    async fn summarize(&self, messages: &[Message]) -> Result<String> {
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        if self.fail {
            return Err(LlmError::Provider {
                status: Some(503),
                message: "overloaded".into(),
            });
        }
        Ok(format!(
            "## 📌 Archived Session Summary\n{} messages archived",
            messages.len()
        ))
    }
}

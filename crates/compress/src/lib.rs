//! Tool output for LLM agents: truncation with spill files, the per-tool
//! history form, and LLM summaries of tool results.
//!
//! Two independent mechanisms act on every tool result:
//!
//! - **Truncation** (what the model sees now): [`Truncator`] cuts output
//!   over 2,000 lines or 50 KiB on a line boundary and streams the full
//!   output to a private spill file under the project root (TRUNC-1 …
//!   TRUNC-3).
//! - **History form** (what is remembered): [`Compressor`] keeps of each
//!   result what later steps need, by tool: a directory's counts and first
//!   entries, a search's summary and first matches, a command's exit code,
//!   first and last lines and every diagnostic line in between (TOOL-1 …
//!   TOOL-11). Custom rules plug in through
//!   [`CompressRule`](strata_ctx_core::CompressRule).
//!
//! [`ToolSummarizer`] optionally has a small model summarise a result in
//! 1–3 sentences, with a rule-based [`extract`] when the model is slow or
//! fails (TOOL-12).
//!
//! # Overview
//!
//! - [`Truncator`], [`TruncatorBuilder`], [`Limits`], [`Truncated`],
//!   [`Spill`]
//! - [`Compressor`], [`RuleLimits`], [`GenericRule`], [`Compressed`],
//!   [`RuleFailure`], [`canonical`]
//! - [`ToolSummarizer`], [`PendingSummaries`], [`ToolSummary`], [`extract`]
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use strata_ctx_compress::{Compressor, Truncator};
//!
//! let dir = tempfile::tempdir()?;
//! let log: String = (0..5_000)
//!     .map(|i| if i == 2_500 { "error: linker failed\n".to_owned() } else { format!("step {i}\n") })
//!     .collect();
//!
//! // What the model sees in this round: the first 2,000 lines and a notice.
//! let cut = Truncator::new(dir.path()).truncate("Bash", log.as_bytes());
//! assert!(cut.truncated);
//!
//! // What the history keeps: a few lines, the failure included.
//! let (history, _) = Compressor::new().compress_text("Bash", &json!({"command": "make"}), &log);
//! assert!(history.contains("error: linker failed"));
//! assert!(history.len() < 3_000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use compressor::{Compressed, Compressor, RuleFailure, MARKERS};
pub use diagnose::prefix::without_process_name;
pub use diagnose::{
    announced_message, announces_message, as_shown, elaboration, file_heading_of, heads_error_list,
    is_announced_message, is_count, is_exit_status, is_finding_field, is_pointed_code, is_value_heading,
    is_verdict, last_failure, line_kind, line_kind_in, reports_no_failures, says_failure, without_colours,
    without_level_tag, LineKind,
};
pub use kind::{canonical, canonical_call, ToolKind};
pub use rules::{GenericRule, RuleLimits};
pub use summary::{extract, PendingSummaries, SummarySource, ToolSummarizer, ToolSummary};
pub use truncate::{
    Limits, Spill, Truncated, Truncator, TruncatorBuilder, DEFAULT_MAX_READ_BYTES, DEFAULT_MAX_SPILL_BYTES,
};

mod compressor;
mod diagnose;
mod kind;
mod rules;
mod summary;
mod text;
mod truncate;

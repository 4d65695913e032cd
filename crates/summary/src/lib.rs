//! Archived summaries of old conversation rounds (HIST-5, HIST-7, HIST-12).
//!
//! [`LlmSummarizer`] implements [`Summarizer`](strata_ctx_core::Summarizer)
//! over any [`LlmClient`](strata_ctx_core::LlmClient): it
//! writes the old messages out as a transcript, asks the model for the
//! archive of `prompts/summary.md`, and makes sure the answer carries the
//! `## 📌 Archived Session Summary` header with the covered time span.
//! Input larger than the summariser's window is summarised in chunks, each
//! chunk seeing the summary of the ones before; an input the model still
//! rejects as too long is shrunk (tool results cleared oldest first, then
//! the oldest messages dropped) and sent again, a bounded number of times.
//! The whole job has a time limit (120 s by default).
//!
//! # Overview
//!
//! - [`LlmSummarizer`]: the summariser; configure it with its `with_*`
//!   methods.
//! - [`transcript`]: the text form of messages the model reads.
//! - [`SUMMARY_HEADER`] and [`summary_header`]: the header every archive
//!   starts with.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use strata_ctx_core::{Message, Summarizer};
//! use strata_ctx_summary::LlmSummarizer;
//! use strata_ctx_testkit::ScriptedClient;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), strata_ctx_core::LlmError> {
//! let client = ScriptedClient::new();
//! client.push_text("### 🎯 Objectives & Status\n* **Original Goal**: fix the lexer.");
//! let summarizer = LlmSummarizer::new(Arc::new(client));
//! let old = [Message::user("fix the lexer"), Message::assistant("fixed")];
//! let summary = summarizer.summarize(&old).await?;
//! assert!(summary.starts_with("## 📌 Archived Session Summary\n*(Contains context from"));
//! # Ok(())
//! # }
//! ```

pub use llm::{summary_header, transcript, LlmSummarizer, SUMMARY_HEADER};

mod llm;

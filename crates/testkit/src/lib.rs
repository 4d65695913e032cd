//! Test doubles for Strata: a scripted LLM client, token counters with exact
//! numbers, history builders and proptest strategies.
//!
//! Use it as a dev-dependency, as `tower-test` is used for `tower`.
//!
//! # Overview
//!
//! - [`ScriptedClient`] answers model calls from a queue (texts, errors,
//!   delays, usage figures) and records every request.
//! - [`FixedTokenCounter`] and [`ByteCounter`] make budgets exact.
//! - [`HistoryBuilder`] writes histories with reproducible ids: rounds,
//!   parallel calls, huge outputs, orphans.
//! - [`strategy`] generates messages and histories for proptest.
//! - [`load_transcript`] reads the real agent transcripts kept as test data,
//!   [`documented_outputs`] the tool outputs written after their documented
//!   formats and [`captured_outputs`] those captured from real runs, with
//!   their failure lines marked.
//! - [`HttpServer`] answers HTTP requests on 127.0.0.1 with scripted
//!   [`Reply`]s, for clients of OpenAI-compatible endpoints.
//!
//! # Example
//!
//! ```
//! use strata_ctx_core::{rounds, Pairs, TokenCounter};
//! use strata_ctx_testkit::{FixedTokenCounter, HistoryBuilder};
//!
//! let history = HistoryBuilder::new()
//!     .round("first task", 3, 200)
//!     .round("second task", 1, 10_000)
//!     .build();
//! assert_eq!(rounds(&history).len(), 2);
//! assert!(Pairs::new(&history).is_complete());
//! assert_eq!(FixedTokenCounter::new(10).count_messages(&history), 10 * history.len() as usize);
//! ```

pub use builder::{has_role, long_log, text_of_len, CallSpec, HistoryBuilder};
pub use client::ScriptedClient;
pub use corpus::{corpus_files, load_transcript, Transcript};
pub use counter::{ByteCounter, FixedTokenCounter};
pub use http::{HttpServer, Received, Reply};
pub use marked::{captured_outputs, documented_outputs, MarkedOutput};
pub use tmpfs::Tmpfs;

mod builder;
mod client;
mod corpus;
mod counter;
mod http;
mod marked;
pub mod strategy;
mod tmpfs;

//! Reads an agent transcript and shows how Strata sees it: rounds, tokens
//! per round and per role, the share of tool output, and pairing problems.
//!
//! ```text
//! cargo run --example inspect_transcript [FILE]
//! ```
//!
//! FILE is a JSON file holding an OpenAI chat-completions `messages` array,
//! or an object with a `messages` field (the form of the transcripts in
//! `tests/data/corpus/`). Without FILE, a real Claude Code session is used.

// An example: unwrapping, panicking and printing are how it reports; the
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

use std::collections::BTreeMap;
use std::error::Error;

use strata_ctx::types::{PairIssue, ShortIds};
use strata_ctx::{from_openai_messages, rounds, CharCounter, Pairs, Role, TokenCounter};

const DEFAULT: &str = "tests/data/corpus/claude-code__coverage-test-fix.json";

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| format!("{}/{DEFAULT}", env!("CARGO_MANIFEST_DIR")));
    let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let list = value.get("messages").unwrap_or(&value);
    let messages = from_openai_messages(list)?;

    let counter = CharCounter;
    let total = counter.count_messages(&messages);
    println!("{path}");
    println!(
        "{} messages, {} rounds, ~{total} tokens (chars / 3)\n",
        messages.len(),
        rounds(&messages).len()
    );

    let mut by_role: BTreeMap<&str, usize> = BTreeMap::new();
    for m in &messages {
        *by_role.entry(m.role.as_str()).or_default() += counter.count_message(m);
    }
    for (role, tokens) in &by_role {
        println!(
            "  {role:<10} {tokens:>8} tokens  {:>5.1}%",
            100.0 * *tokens as f64 / total.max(1) as f64
        );
    }
    let tool = by_role.get(Role::Tool.as_str()).copied().unwrap_or(0);
    println!(
        "  tool output is {:.0}% of the history\n",
        100.0 * tool as f64 / total.max(1) as f64
    );

    let ids = ShortIds::new(messages.iter().map(|m| m.id));
    for (n, range) in rounds(&messages).into_iter().enumerate() {
        let first = &messages[range.start];
        let steps = messages[range.clone()]
            .iter()
            .filter(|m| m.has_tool_calls())
            .count();
        let tokens = counter.count_messages(&messages[range.clone()]);
        let text: String = first.content.chars().take(60).collect();
        println!(
            "round {:>2} [{}] {:>3} messages, {:>3} steps, {:>6} tokens  {:?}",
            n + 1,
            ids.short(&first.id).unwrap_or_default(),
            range.len(),
            steps,
            tokens,
            text.replace('\n', " ")
        );
    }

    let pairs = Pairs::new(&messages);
    if pairs.is_complete() {
        println!("\nevery tool call has its result");
    } else {
        println!("\npairing problems:");
        for issue in pairs.issues() {
            match issue {
                PairIssue::UnansweredCall { call_id, site } => {
                    println!("  message {}: call {call_id} was never answered", site.message)
                }
                PairIssue::OrphanResult { message, call_id } => {
                    println!("  message {message}: result for unknown call {call_id:?}")
                }
                other => println!("  {other:?}"),
            }
        }
    }
    Ok(())
}

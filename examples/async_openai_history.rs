//! An agent built on `async-openai` hands its history to Strata and takes
//! the window back, one call each.
//!
//! The history is 30 rounds of a coding agent, each reading a 200-line
//! file, in `async-openai`'s chat request messages. Strata reads them,
//! fits them in an 8k window (compacting older rounds, cutting the long
//! results) and gives the window back as `async-openai` messages, ready
//! for a `CreateChatCompletionRequest`. Offline:
//! `cargo run --example async_openai_history --features async-openai`.

// An example: unwrapping and printing are how it reports; the house lints
// (Cargo.toml) are for library code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, missing_docs)]

use std::error::Error;

use async_openai::types::chat::ChatCompletionRequestMessage;
use serde_json::json;
use strata_ctx::async_openai::{from_async_openai, to_async_openai};
use strata_ctx::{Config, Engine};

/// What the agent holds: its history in async-openai's types.
fn agent_history() -> Vec<ChatCompletionRequestMessage> {
    let mut history = vec![json!({"role": "system", "content": "You are a coding agent."})];
    for round in 0..30 {
        let id = format!("call_{round}");
        let file: String = (0..200).map(|i| format!("fn f{round}_{i}() {{}}\n")).collect();
        history.push(json!({"role": "user", "content": format!("What is in src/m{round}.rs?")}));
        history.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function",
            "function": {"name": "Read", "arguments": json!({"path": format!("src/m{round}.rs")}).to_string()}}]}));
        history.push(json!({"role": "tool", "tool_call_id": id, "content": file}));
        history.push(json!({"role": "assistant", "content": format!("It defines 200 functions, f{round}_0 to f{round}_199.")}));
    }
    serde_json::from_value(json!(history)).unwrap()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let history = agent_history();
    let project = tempfile::tempdir()?;
    let mut engine = Engine::builder(project.path())
        .config(Config::from_toml_str("context_window = 8000")?)
        .messages(from_async_openai(&history)?) // in: one call
        .build()?;
    engine.begin_round("Which file defines f29_7?").await?;
    let window = to_async_openai(&engine.window().messages())?; // out: one call

    println!("the agent's history: {} messages", history.len());
    println!(
        "the window Strata gives back: {} messages, {} tokens (threshold {})",
        window.len(),
        engine.window_tokens(),
        engine.threshold_tokens()
    );
    assert!(engine.window_tokens() <= engine.threshold_tokens());
    assert!(matches!(
        window.last(),
        Some(ChatCompletionRequestMessage::User(_))
    ));
    Ok(())
}

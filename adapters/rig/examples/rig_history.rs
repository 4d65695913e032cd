//! An agent built on `rig-core` hands its history to Strata and takes the
//! window back, one call each.
//!
//! The history is 30 rounds of a coding agent, each reading a 200-line
//! file, in rig's messages. Strata reads them, fits them in an 8k window
//! (compacting older rounds, cutting the long results) and gives the
//! window back as rig messages, ready for the agent's next chat call.
//! Offline: `cargo run --manifest-path adapters/rig/Cargo.toml --example rig_history`.

// An example: unwrapping and printing are how it reports; the house lints
// (Cargo.toml) are for library code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, missing_docs)]

use std::error::Error;

use rig_core::message::{
    AssistantContent, AssistantMessage, CallId, Message, ToolCall, ToolFunction, ToolName,
};
use serde_json::json;
use strata_ctx::{Config, Engine};
use strata_ctx_rig::{from_rig, to_rig};

/// What the agent holds: its history in rig's types.
fn agent_history() -> Vec<Message> {
    let read = ToolName::new("Read").unwrap();
    let mut history = vec![Message::system("You are a coding agent.")];
    for round in 0..30 {
        let id = CallId::from_wire(format!("call_{round}"));
        let file: String = (0..200).map(|i| format!("fn f{round}_{i}() {{}}\n")).collect();
        let function = ToolFunction::new(read.clone(), json!({"path": format!("src/m{round}.rs")}));
        history.push(Message::user(format!("What is in src/m{round}.rs?")));
        history.push(Message::Assistant(AssistantMessage::new(vec![
            AssistantContent::ToolCall(ToolCall::new(id.clone(), function)),
        ])));
        history.push(Message::tool_result(id, read.clone(), file));
        history.push(Message::assistant(format!(
            "It defines 200 functions, f{round}_0 to f{round}_199."
        )));
    }
    history
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let history = agent_history();
    let project = tempfile::tempdir()?;
    let mut engine = Engine::builder(project.path())
        .config(Config::from_toml_str("context_window = 8000")?)
        .messages(from_rig(&history)) // in: one call
        .build()?;
    engine.begin_round("Which file defines f29_7?").await?;
    let window = to_rig(&engine.window().messages())?; // out: one call

    println!("the agent's history: {} messages", history.len());
    println!(
        "the window Strata gives back: {} messages, {} tokens (threshold {})",
        window.len(),
        engine.window_tokens(),
        engine.threshold_tokens()
    );
    assert!(engine.window_tokens() <= engine.threshold_tokens());
    assert!(matches!(window.last(), Some(Message::User { .. })));
    Ok(())
}

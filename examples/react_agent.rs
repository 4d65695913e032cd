//! A complete ReAct agent loop over a small sample project, offline.
//!
//! The "model" is a scripted client from `strata-ctx-testkit` that answers in
//! the ReAct format; the tools run against a project in a temporary
//! directory. Strata does the rest: the `@file` reminder, the cut of a long
//! output with its spill file, the note on a file changed behind the
//! agent's back, the history form, and a compaction when the small window
//! fills up. Each model call prints the window's size.
//!
//! Run it with `cargo run --example react_agent`.

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

use std::error::Error;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};
use strata_ctx::{
    parse_step, Config, Engine, Event, LlmOptions, Message, Step, ToolCall, ToolMode, ToolResult, ToolSpec,
};
use strata_ctx_testkit::ScriptedClient;

fn tools() -> Vec<ToolSpec> {
    let path = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    vec![
        ToolSpec::new("Read", "Reads a file of the project.", path),
        ToolSpec::new(
            "Bash",
            "Runs a shell command in the project.",
            json!({"type": "object", "properties": {"command": {"type": "string"}}}),
        ),
    ]
}

/// The tools, against the project at `root`. `Bash` is simulated: the
/// test suite prints a long log.
fn run_tool(root: &Path, call: &ToolCall) -> ToolResult {
    let arg = |k: &str| {
        call.arguments
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match call.name.as_str() {
        "Read" => match std::fs::read_to_string(root.join(arg("path"))) {
            Ok(text) => ToolResult::success(json!({"path": arg("path"), "content": text})),
            Err(e) => ToolResult::error("not_found", e.to_string()),
        },
        "Bash" => {
            let mut stdout: String = (0..3_000).map(|i| format!("test case_{i:04} ... ok\n")).collect();
            stdout.push_str("test case_3000 ... FAILED\n\ntest result: FAILED. 3000 passed; 1 failed\n");
            ToolResult::success(
                json!({"command": arg("command"), "exit_code": 101, "stdout": stdout, "stderr": ""}),
            )
        }
        other => ToolResult::error("unknown_tool", format!("no tool named {other}")),
    }
}

/// What the scripted model answers, call by call.
fn script(client: &ScriptedClient) {
    let action =
        |thought: &str, tool: &str, args: Value| format!("Thought: {thought}\nAction: {tool}[{args}]");
    let finish = |answer: &str| format!("Thought: I have what I need.\nAction: Finish[{answer}]");
    // Round 1: the mentioned file, then the test suite.
    client
        .push_text(action(
            "The user mentioned the file; read it first.",
            "Read",
            json!({"path": "src/lib.rs"}),
        ))
        .push_text(action("Run the tests.", "Bash", json!({"command": "cargo test"})))
        .push_text(finish("One test fails: case_3000. `add` subtracts."));
    // Round 2: the file again, changed meanwhile by someone else.
    client
        .push_text(action("Read it again.", "Read", json!({"path": "src/lib.rs"})))
        .push_text(finish("It was fixed outside the session; `add` adds now."));
    // Rounds 3 to 6: long questions and answers fill the small window.
    for round in 3..=6 {
        client.push_text(finish(&format!(
            "Answer {round}: {}",
            "Details of the design. ".repeat(120)
        )));
    }
    // Round 7 begins over the threshold: the oldest rounds are archived.
    client.push_text(finish("We fixed `add`, and went over the design four times."));
}

fn print_event(event: &Event) {
    match event {
        Event::OutputTruncated {
            tool,
            total_lines,
            shown_lines,
            spill,
            ..
        } => println!(
            "  ✂ {tool} output cut: {shown_lines} of {total_lines} lines shown, the rest in {}",
            spill.as_ref().map_or("(not saved)".into(), |p| p.display().to_string())
        ),
        Event::FileModified { path } => println!("  ⚠ {path} was modified externally"),
        Event::CompactionStarted { reason, tokens } => {
            println!("  ⟳ compaction ({reason:?}) at {tokens} tokens")
        }
        Event::CompactionFinished(stats) => println!(
            "  ✓ compacted: {} → {} tokens, {} round(s) archived, {} kept",
            stats.tokens_before, stats.tokens_after, stats.rounds_archived, stats.rounds_retained
        ),
        Event::StepsCondensed {
            to_history_form,
            cleared,
            omitted,
            ..
        } => println!("  ⇣ older steps condensed: {to_history_form} to history form, {cleared} cleared, {omitted} left out"),
        _ => {}
    }
}

async fn round(
    engine: &mut Engine,
    client: &ScriptedClient,
    root: &Path,
    text: &str,
) -> Result<(), Box<dyn Error>> {
    println!(
        "\n▶ round {}: {}",
        engine.round() + 1,
        text.chars().take(60).collect::<String>()
    );
    let start = engine.begin_round(text).await?;
    if !start.mentions.is_empty() {
        println!("  @ reminder added to the user's message:");
        let reminder = &start.message.content[text.len()..];
        for line in reminder.trim().lines() {
            println!("    {line}");
        }
    }
    loop {
        let window = engine.window();
        println!(
            "  → model call: {} messages, {} of {} tokens",
            window.messages().len(),
            window.tokens,
            window.threshold
        );
        let reply = engine.complete(client, LlmOptions::new()).await?;
        match parse_step(&reply.text)? {
            Step::Finish { answer, .. } => {
                println!("  ✔ {}", answer.chars().take(70).collect::<String>());
                engine.finish_round(answer)?;
                return Ok(());
            }
            Step::Action {
                thought,
                tool,
                arguments,
            } => {
                let call = ToolCall::new(
                    format!("call_{}_{}", engine.round(), engine.steps() + 1),
                    tool,
                    arguments,
                );
                println!("  ⚙ {}[{}]", call.name, call.arguments);
                let result = Message::tool_result(&call, run_tool(root, &call));
                engine
                    .record_step(Message::assistant_with_calls(thought, vec![call]), vec![result])
                    .await?;
            }
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    let project = tempfile::tempdir()?;
    let root = project.path();
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    )?;
    std::fs::write(root.join("CODE_LAW.md"), "Run the tests before you answer.\n")?;

    let config = Config::from_toml_str("context_window = \"8k\"\nmin_retain_rounds = 1")?;
    let client = ScriptedClient::new();
    script(&client);
    // The summariser of compaction is a model too; here a scripted one.
    let summariser_model = ScriptedClient::from_fn(|_| {
        Ok(strata_ctx::LlmResponse::new(
            "## Objectives & Status\nFix `add`.\n## Completed Milestones\nFound the failing test; the file was fixed.",
            strata_ctx::Usage::default(),
        ))
    });
    let mut engine = Engine::builder(root)
        .config(config)
        // The model writes `Thought:`/`Action:` text: the tools and the
        // format go in the system prompt.
        .tool_mode(ToolMode::React)
        .tools(tools())
        .summarizer(Arc::new(strata_ctx::LlmSummarizer::new(Arc::new(
            summariser_model,
        ))))
        .on_event(print_event)
        .build()?;
    println!("Strata ReAct agent over {}", root.display());
    println!("threshold: {} tokens", engine.threshold_tokens());

    round(
        &mut engine,
        &client,
        root,
        "The tests fail. Look at @src/lib.rs and tell me why.",
    )
    .await?;

    // Someone fixes the file outside the agent.
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    )?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(root.join("src/lib.rs"))?;
    file.set_modified(SystemTime::now() + Duration::from_secs(5))?;
    drop(file);
    round(&mut engine, &client, root, "Is it still broken?").await?;

    for n in 3..=6 {
        let question = format!(
            "Question {n}: {}",
            "Explain the design decisions again. ".repeat(40)
        );
        round(&mut engine, &client, root, &question).await?;
    }
    round(&mut engine, &client, root, "Where are we?").await?;

    let window = engine.window();
    println!(
        "\nfinal window: {} messages, {} of {} tokens; full log: {} messages",
        window.messages().len(),
        window.tokens,
        window.threshold,
        engine.history().full_log().len()
    );
    let text = window.render_react();
    if let Some(at) = text.find("## Archived History Summary") {
        println!("\n{}", text[at..].lines().take(4).collect::<Vec<_>>().join("\n"));
    }
    Ok(())
}

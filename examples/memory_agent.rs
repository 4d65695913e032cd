//! Memory beyond the window, offline: one user, two conversations.
//!
//! The "model" is a scripted client from `strata-ctx-testkit` that calls
//! native tools. In the first conversation the agent reads a file and
//! notes a decision with its `remember` tool (the session context, MEM-1);
//! after the round, the model extracts what it learnt about the user into
//! their long-term memory (MEM-2) and suggests follow-ups (MEM-3). The
//! second conversation, a new log with the same user, begins with those
//! facts recalled into the window, because they are relevant to its input.
//!
//! Run it with `cargo run --example memory_agent [-- --user-id NAME --dir PATH]`.

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
use std::path::{Path, PathBuf};

use serde_json::json;
use strata_ctx::store::Conversation;
use strata_ctx::{
    memory_tools, Engine, LlmOptions, LlmResponse, LongTermMemory, Message, SessionLimits, ToolCall,
    ToolMode, ToolResult, ToolSpec, Usage, DEFAULT_MEMORY_TOKENS,
};
use strata_ctx_testkit::ScriptedClient;

fn tools() -> Vec<ToolSpec> {
    let mut tools = vec![ToolSpec::new(
        "Read",
        "Reads a file of the project.",
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    )];
    tools.extend(memory_tools());
    tools
}

fn calls(text: &str, calls: Vec<ToolCall>) -> LlmResponse {
    LlmResponse::new(text, Usage::new(0, 0)).with_tool_calls(calls)
}

/// One engine over conversation `log`, with the user's memory in `dir`.
fn engine(root: &Path, log: &Path, memory_dir: &Path, user: &str) -> Result<Engine, Box<dyn Error>> {
    Ok(Engine::builder(root)
        .tool_mode(ToolMode::Native)
        .tools(tools())
        .session_context(SessionLimits::default())
        .long_term_memory(LongTermMemory::open(memory_dir, user)?, DEFAULT_MEMORY_TOKENS)
        .conversation(Conversation::open(log)?)
        .build()?)
}

/// Runs a round: calls the model until it answers, running `Read` on the
/// project and the memory tools through the engine.
async fn round(
    engine: &mut Engine,
    model: &ScriptedClient,
    root: &Path,
    task: &str,
) -> Result<String, Box<dyn Error>> {
    engine.begin_round(task).await?;
    loop {
        let answer = engine.complete(model, LlmOptions::new()).await?;
        if answer.tool_calls.is_empty() {
            engine.finish_round_with(answer.to_message())?;
            return Ok(answer.text);
        }
        let mut results = Vec::new();
        for call in &answer.tool_calls {
            let result = match engine.memory_tool(call) {
                Some(result) => result,
                None => {
                    match std::fs::read_to_string(root.join(call.arguments["path"].as_str().unwrap_or(""))) {
                        Ok(text) => ToolResult::success(text),
                        Err(e) => ToolResult::error("not_found", e.to_string()),
                    }
                }
            };
            results.push(Message::tool_result(call, result));
        }
        engine.record_step(answer.to_message(), results).await?;
    }
}

async fn run(dir: PathBuf, user: String) -> Result<(), Box<dyn Error>> {
    let root = dir.join("project");
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::write(
        root.join("src/lexer.py"),
        "def lex(text):\n\treturn text.split()\n",
    )?;
    let memory_dir = dir.join("memory");

    // The first conversation.
    let model = ScriptedClient::new();
    model.push(
        std::time::Duration::ZERO,
        Ok(calls(
            "Reading the lexer and noting the plan.",
            vec![
                ToolCall::new("c1", "Read", json!({"path": "src/lexer.py"})),
                ToolCall::new(
                    "c2",
                    "remember",
                    json!({"key": "decision", "value": "keep the lexer, make it split on tabs too"}),
                ),
            ],
        )),
    );
    model.push_text("The lexer splits on any whitespace, tabs included: nothing to change.");
    // What the model learns about the user, asked after the round.
    model.push_text(r#"{"save": ["Ada indents Python with tabs.", "Ada's project is a lexer in Python."], "update": [], "forget": []}"#);
    model.push_text(r#"["Add a test for tabs", "Show me the lexer's tests"]"#);

    let mut first = engine(&root, &dir.join("first.jsonl"), &memory_dir, &user)?;
    let answer = round(
        &mut first,
        &model,
        &root,
        "I indent with tabs. Does the lexer handle them?",
    )
    .await?;
    println!("first conversation: {answer}");
    if let Some(session) = first.session_context() {
        for (key, entry) in session.entries() {
            println!("  session context  {key}: {} ({})", entry.value, entry.source);
        }
    }
    for change in first.extract_memory(&model).await? {
        println!("  long-term memory {change}");
    }
    for suggestion in first.suggest_followups(&model, 2).await {
        println!("  suggestion       {suggestion}");
    }
    drop(first);

    // The second conversation: a new log, the same user.
    model.push_text("Use tabs, as in the rest of your project.");
    let mut second = engine(&root, &dir.join("second.jsonl"), &memory_dir, &user)?;
    let answer = round(
        &mut second,
        &model,
        &root,
        "How should I indent the new Python module?",
    )
    .await?;
    let sent = model
        .requests()
        .last()
        .map(|r| r.messages.clone())
        .unwrap_or_default();
    let recalled = sent
        .iter()
        .find(|m| m.content.contains("What you remember about this user"))
        .map(|m| m.content.clone())
        .ok_or("the memory layer is missing from the second conversation's window")?;
    println!("second conversation: {answer}");
    println!("  recalled into its window:");
    for line in recalled.lines().filter(|l| l.starts_with("- ")) {
        println!("    {line}");
    }
    Ok(())
}

fn main() {
    let mut dir = None;
    let mut user = "ada".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match (flag.as_str(), args.next()) {
            ("--dir", Some(v)) => dir = Some(PathBuf::from(v)),
            ("--user-id", Some(v)) => user = v,
            _ => {
                eprintln!("usage: memory_agent [--dir PATH] [--user-id NAME]");
                std::process::exit(2);
            }
        }
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = dir.unwrap_or_else(|| scratch.path().to_owned());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    if let Err(e) = runtime.block_on(run(dir, user)) {
        eprintln!("memory_agent: {e}");
        std::process::exit(1);
    }
}

//! `strata-ctx demo`: a scripted agent session over a sample project, offline.
//!
//! The model is a script of native tool calls (as an OpenAI-compatible
//! model would send them); the tools run against a sample Rust project in a
//! temporary directory. Everything else is Strata's turn engine: the
//! `@file` reminder, a long test log cut with its spill file, the todo
//! recap, the note on a file changed behind the agent's back, older steps
//! condensed inside a long round, and compactions as the small window
//! fills.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use clap::Args;
use indicatif::ProgressBar;
use serde_json::{json, Value};
use strata_ctx::{
    Config, Engine, Event, LlmClient, LlmOptions, LlmRequest, LlmResponse, LlmSummarizer, Message, ToolCall,
    ToolResult, ToolSpec, Usage,
};

use crate::error::CliError;

/// Arguments of `strata-ctx demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The model's context window in the demo, in tokens; small, so that
    /// compaction happens within a few rounds.
    #[arg(long, value_name = "N", default_value = "6000")]
    window: String,
    /// A pause before each model call, in milliseconds, to follow along.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pace: u64,
}

/// A model that answers from a script, in order.
struct Script(Mutex<VecDeque<LlmResponse>>);

#[async_trait]
impl LlmClient for Script {
    async fn complete(&self, _: LlmRequest) -> strata_ctx::LlmResult<LlmResponse> {
        let next = self.0.lock().ok().and_then(|mut q| q.pop_front());
        next.ok_or_else(|| strata_ctx::LlmError::InvalidResponse {
            message: "the demo's script is over".into(),
        })
    }
}

/// The summariser's model: a summary of what the session did so far.
struct SummaryModel;

#[async_trait]
impl LlmClient for SummaryModel {
    async fn complete(&self, request: LlmRequest) -> strata_ctx::LlmResult<LlmResponse> {
        let text = request
            .messages
            .iter()
            .map(|m| m.text())
            .collect::<Vec<_>>()
            .join("\n");
        let mut done = vec!["- Found why the tests failed: `add` subtracted."];
        if text.contains("fixed outside") || text.contains("a + b") {
            done.push("- The user fixed `add` outside the session; the tests pass.");
        }
        if text.contains("Grep") || text.contains("design") {
            done.push("- Reviewed the design of the calculator (parser, errors, overflow).");
        }
        let summary = format!(
            "## Objectives & Status\nMake the calculator's tests pass, then review its design.\n\
             ## Completed Milestones\n{}\n## Key Facts\n- Tests live in tests/calc.rs; CODE_LAW.md asks to run them before answering.",
            done.join("\n")
        );
        Ok(LlmResponse::new(summary, Usage::default()))
    }
}

fn call(id: &str, tool: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, tool, arguments)
}

fn act(thought: &str, calls: Vec<ToolCall>) -> LlmResponse {
    LlmResponse::new(thought, Usage::default()).with_tool_calls(calls)
}

fn answer(text: &str) -> LlmResponse {
    LlmResponse::new(text, Usage::default())
}

/// A `TodoWrite` call setting the statuses of the session's three tasks.
fn plan(id: &str, statuses: [&str; 3]) -> ToolCall {
    let tasks = ["Run the test suite", "Find the failing case", "Explain the cause"];
    let todos: Vec<Value> = tasks
        .iter()
        .zip(statuses)
        .map(|(content, status)| json!({"content": content, "status": status}))
        .collect();
    call(id, "TodoWrite", json!({ "todos": todos }))
}

/// The model's side of the session.
fn script() -> VecDeque<LlmResponse> {
    let mut s = VecDeque::new();
    // Round 1: both mentioned files at once, a plan, the failing suite.
    s.push_back(act(
        "Read both files the user mentioned.",
        vec![
            call("c1", "Read", json!({"path": "src/lib.rs"})),
            call("c2", "Read", json!({"path": "tests/calc.rs"})),
        ],
    ));
    s.push_back(act(
        "Plan the work.",
        vec![plan("c3", ["in_progress", "pending", "pending"])],
    ));
    s.push_back(act(
        "Run the tests.",
        vec![call("c4", "Bash", json!({"command": "cargo test"}))],
    ));
    s.push_back(act(
        "The log names the failing case; update the plan.",
        vec![plan("c5", ["completed", "completed", "in_progress"])],
    ));
    s.push_back(answer(
        "`add` subtracts: `a - b` in src/lib.rs. 3,000 cases pass and `add_small_numbers` fails; the full log is in the spill file.",
    ));
    // Round 2: the file changed behind the agent's back.
    s.push_back(act(
        "Read it again.",
        vec![call("c6", "Read", json!({"path": "src/lib.rs"}))],
    ));
    s.push_back(answer(
        "It was fixed outside this session: `add` now returns `a + b`.",
    ));
    // Rounds 3 to 6: design questions with searches; the window fills up.
    for round in 3..=6 {
        let id = format!("g{round}");
        s.push_back(act(
            "Search for the places that matter.",
            vec![call(&id, "Grep", json!({"pattern": "fn ", "path": "src"}))],
        ));
        s.push_back(answer(&format!(
            "Design note {round}: {}",
            "The parser, the error type and overflow handling each have their own module; ".repeat(25)
        )));
    }
    s.push_back(answer(
        "We fixed `add` and reviewed the design four times; nothing else is open.",
    ));
    s
}

fn tools() -> Vec<ToolSpec> {
    let object = |props: Value| json!({"type": "object", "properties": props});
    vec![
        ToolSpec::new(
            "Read",
            "Reads a file of the project.",
            object(json!({"path": {"type": "string"}})),
        ),
        ToolSpec::new(
            "Bash",
            "Runs a shell command.",
            object(json!({"command": {"type": "string"}})),
        ),
        ToolSpec::new(
            "Grep",
            "Searches the project.",
            object(json!({"pattern": {"type": "string"}})),
        ),
        ToolSpec::new(
            "TodoWrite",
            "Writes the task list.",
            object(json!({"todos": {"type": "array"}})),
        ),
    ]
}

/// The sample project's tools. Bash and Grep are simulated with outputs of
/// a realistic size.
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
            Ok(content) => ToolResult::success(json!({"path": arg("path"), "content": content})),
            Err(e) => ToolResult::error("not_found", e.to_string()),
        },
        "Bash" => {
            let mut stdout: String = (0..3_000).map(|i| format!("test case_{i:04} ... ok\n")).collect();
            stdout.push_str("test add_small_numbers ... FAILED\n\nfailures:\n    add_small_numbers: assertion failed: add(2, 2) == 4\n\ntest result: FAILED. 3000 passed; 1 failed\n");
            ToolResult::success(
                json!({"command": arg("command"), "exit_code": 101, "stdout": stdout, "stderr": ""}),
            )
        }
        "Grep" => {
            let matches: Vec<Value> = (0..30)
                .map(|i| json!({"file": format!("src/module_{}.rs", i % 12), "line": i * 7 + 1, "text": format!("pub fn handler_{i}(input: &str) -> Result<Value, CalcError> {{")}))
                .collect();
            ToolResult::success(json!({"pattern": arg("pattern"), "matches": matches}))
        }
        "TodoWrite" => ToolResult::success(json!({"todos": call.arguments.get("todos")})),
        other => ToolResult::error("unknown_tool", format!("no tool named {other}")),
    }
}

fn sample_project(root: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::create_dir_all(root.join("tests"))?;
    std::fs::write(
        root.join("src/lib.rs"),
        "/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    )?;
    std::fs::write(
        root.join("tests/calc.rs"),
        "#[test]\nfn add_small_numbers() {\n    assert_eq!(calc::add(2, 2), 4);\n}\n",
    )?;
    std::fs::write(
        root.join("CODE_LAW.md"),
        "# Rules\n\nRun the tests before you answer.\n",
    )
}

/// Prints a line above the progress bar, or plainly when there is none.
fn say(bar: &ProgressBar, line: impl AsRef<str>) {
    if bar.is_hidden() {
        // From event callbacks, which cannot fail: a closed stdout only
        // silences the demo, which then ends at the next write of `run`.
        let _ = super::out(&format!("{}\n", line.as_ref()));
    } else {
        bar.println(line.as_ref());
    }
}

fn describe(event: &Event) -> Option<String> {
    Some(match event {
        Event::OutputTruncated {
            tool,
            total_lines,
            shown_lines,
            spill,
            ..
        } => format!(
            "    ✂ {tool} output cut for the model: {shown_lines} of {total_lines} lines (its start, its failures and its end), the whole in {}",
            spill.as_ref().map_or("(not saved)".into(), |p| p.display().to_string())
        ),
        Event::FileModified { path } => format!("    ⚠ {path} changed since the agent read it: a note is added"),
        Event::CompactionStarted { reason, tokens } => format!("    ⟳ compaction ({reason:?}) at {tokens} tokens"),
        Event::CompactionFinished(stats) => format!(
            "    ✓ compacted {} → {} tokens: {} round(s) archived into a {}-token summary, {} kept",
            stats.tokens_before, stats.tokens_after, stats.rounds_archived, stats.summary_tokens, stats.rounds_retained
        ),
        Event::StepsCondensed {
            to_history_form,
            cleared,
            omitted,
            ..
        } => format!("    ⇣ older steps condensed: {to_history_form} to history form, {cleared} cleared, {omitted} left out"),
        _ => return None,
    })
}

async fn round(
    engine: &mut Engine,
    model: &Script,
    root: &Path,
    text: &str,
    bar: &ProgressBar,
    pace: Duration,
) -> Result<(), CliError> {
    say(
        bar,
        format!("\n▶ round {}: {}", engine.round() + 1, clip(text, 70)),
    );
    let start = engine.begin_round(text).await?;
    if !start.mentions.is_empty() {
        say(bar, "    @ read reminder added to the user's message:");
        for line in start.message.content[text.len()..].trim().lines() {
            say(bar, format!("      {line}"));
        }
    }
    loop {
        let window = engine.window();
        say(
            bar,
            format!(
                "    → model call: {} messages, {} of {} tokens",
                window.messages().len(),
                window.tokens,
                window.threshold
            ),
        );
        if let Some(recap) = window.context.recap() {
            say(bar, format!("    ☑ {}", recap.lines().next().unwrap_or_default()));
        }
        tokio::time::sleep(pace).await;
        let reply = engine.complete(model, LlmOptions::new()).await?;
        if reply.tool_calls.is_empty() {
            say(bar, format!("    ✔ {}", clip(&reply.text, 80)));
            engine.finish_round(reply.text)?;
            bar.inc(1);
            return Ok(());
        }
        let names: Vec<String> = reply
            .tool_calls
            .iter()
            .map(|c| format!("{}[{}]", c.name, c.arguments))
            .collect();
        say(bar, format!("    ⚙ {}", clip(&names.join(", "), 100)));
        let results = reply
            .tool_calls
            .iter()
            .map(|c| Message::tool_result(c, run_tool(root, c)))
            .collect();
        engine
            .record_step(
                Message::assistant_with_calls(reply.text, reply.tool_calls),
                results,
            )
            .await?;
    }
}

/// Runs `strata-ctx demo`.
pub async fn run(args: &DemoArgs) -> Result<(), CliError> {
    let runtime_error =
        |e: std::io::Error| CliError::Runtime(format!("cannot set up the sample project: {e}"));
    let project = tempfile::tempdir().map_err(runtime_error)?;
    let root = project.path();
    sample_project(root).map_err(runtime_error)?;
    let mut config = Config::default();
    config
        .set("context_window", &args.window)
        .map_err(|e| CliError::Input(format!("--window {}: {e}", args.window)))?;
    config.set("min_retain_rounds", "1")?;
    let questions: Vec<String> = (3..=6)
        .map(|n| {
            format!(
                "Question {n}: {}",
                "How is the calculator designed, and why? ".repeat(30)
            )
        })
        .collect();
    let bar = crate::progress::bar(3 + questions.len() as u64, "rounds");
    let printer = bar.clone();
    let model = Script(Mutex::new(script()));
    let mut engine = Engine::builder(root)
        .config(config)
        .tools(tools())
        .summarizer(Arc::new(LlmSummarizer::new(Arc::new(SummaryModel))))
        .on_event(move |e| {
            if let Some(line) = describe(e) {
                say(&printer, line);
            }
        })
        .build()?;
    say(
        &bar,
        format!(
            "Strata demo: an agent session over a sample project in {}",
            root.display()
        ),
    );
    say(
        &bar,
        format!(
            "window {} tokens, compaction at {} tokens",
            engine.config().window_tokens(),
            engine.threshold_tokens()
        ),
    );
    let pace = Duration::from_millis(args.pace);

    round(
        &mut engine,
        &model,
        root,
        "The tests fail. Look at @src/lib.rs and @tests/calc.rs and tell me why.",
        &bar,
        pace,
    )
    .await?;

    // Someone fixes the file outside the agent.
    say(&bar, "\n(meanwhile, the user fixes src/lib.rs in their editor)");
    fix_outside(root).map_err(runtime_error)?;
    round(
        &mut engine,
        &model,
        root,
        "I pushed a fix. Is it still broken?",
        &bar,
        pace,
    )
    .await?;

    for question in &questions {
        round(&mut engine, &model, root, question, &bar, pace).await?;
    }
    round(&mut engine, &model, root, "Where are we?", &bar, pace).await?;
    bar.finish_and_clear();

    super::out(&ending(&mut engine))
}

/// Fixes the sample's `src/lib.rs` as an editor would, outside the agent,
/// with a modification time after the agent's read.
fn fix_outside(root: &Path) -> std::io::Result<()> {
    let fixed = "/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
    std::fs::write(root.join("src/lib.rs"), fixed)?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(root.join("src/lib.rs"))?;
    file.set_modified(SystemTime::now() + Duration::from_secs(5))
}

/// The demo's last words: the final window's size, and what the model now
/// reads of the archived rounds.
fn ending(engine: &mut Engine) -> String {
    let window = engine.window();
    let mut end = format!(
        "\nfinal window: {} messages, {} of {} tokens; the full log keeps all {} messages\n",
        window.messages().len(),
        window.tokens,
        window.threshold,
        engine.history().full_log().len()
    );
    let text = window.render_react();
    if let Some(at) = text.find("## Archived History Summary") {
        end.push_str("\nwhat the model now reads of the archived rounds:\n\n");
        end.push_str(&summary_excerpt(&text[at..], SUMMARY_LINES));
    }
    end
}

/// The lines of the archived summary the demo shows at most.
const SUMMARY_LINES: usize = 16;

/// The first `max` lines of the summary block (it ends at the next
/// message), never ending on a heading or a blank line, with a count of
/// what is left out.
fn summary_excerpt(text: &str, max: usize) -> String {
    let block: Vec<&str> = text
        .lines()
        .take_while(|l| {
            !["[user] ", "[assistant] ", "[system] ", "[tool] "]
                .iter()
                .any(|r| l.starts_with(r))
        })
        .collect();
    let mut shown: Vec<&str> = block.iter().take(max).copied().collect();
    while shown
        .last()
        .is_some_and(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        shown.pop();
    }
    let mut out: String = shown.iter().map(|l| format!("  {l}\n")).collect();
    let left = block.len() - shown.len();
    if left > 0 {
        out.push_str(&format!("  … ({left} more lines)\n"));
    }
    out
}

/// `text` on one line in at most `max` characters: cut at a word boundary
/// with an ellipsis when longer.
fn clip(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() <= max && line.len() == text.trim_end().len() {
        return line.to_owned();
    }
    let cut: String = line.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(char::is_whitespace) {
        Some(at) if at > max / 2 => cut[..at].trim_end().to_owned(),
        _ => cut,
    };
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    #[test]
    fn clip_cuts_at_a_word() {
        assert_eq!(
            super::clip("How is the calculator designed, and why?", 25),
            "How is the calculator…"
        );
        assert_eq!(super::clip("short", 25), "short");
        assert_eq!(super::clip("two\nlines", 25), "two…");
        assert_eq!(super::clip(&"x".repeat(30), 10), format!("{}…", "x".repeat(9)));
    }

    #[test]
    fn the_summary_excerpt_never_ends_on_a_heading() {
        let text = "## Archived History Summary\n\n## Objectives\nFix add.\n## Completed Milestones\n- add fixed\n[user] next";
        assert_eq!(
            super::summary_excerpt(text, 5),
            "  ## Archived History Summary\n  \n  ## Objectives\n  Fix add.\n  … (2 more lines)\n"
        );
        assert!(super::summary_excerpt(text, 50).ends_with("  - add fixed\n"));
    }
}

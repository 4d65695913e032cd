//! A small coding agent driving a real model, with Strata managing its
//! context (MODEL-1..4).
//!
//! The agent has five tools over a scratch directory, `Read`, `Write`,
//! `Edit`, `Bash` and `Grep`, offered to the model as native tools. Each
//! model call sends the window Strata built; each tool result goes back
//! through Strata (cut, compressed, tracked); an answer cut at the token
//! limit is continued; a window the model rejects as too long is
//! compacted and sent again.
//!
//! ```text
//! cargo run --features openai,anthropic --example coding_agent -- \
//!     --provider anthropic --stream --task "Write fizzbuzz.py and run it"
//! ```
//!
//! | Flag | Meaning | Default |
//! |---|---|---|
//! | `--provider openai\|anthropic` | the API to call | `openai` |
//! | `--task "…"` | what to do | required |
//! | `--stream` | stream the answer, printing text as it comes | off |
//! | `--model NAME` | the model | `STRATA_MODEL`, else the provider's default below |
//! | `--dir PATH` | the scratch directory (created when missing) | a new temporary directory |
//! | `--window TOKENS` | the context window Strata keeps to | 32000 |
//! | `--max-steps N` | the most tool steps before giving up | 30 |
//! | `--price IN,OUT` | the model's price, US dollars per million input and output tokens | Strata's price table, when it knows the model |
//! | `--server-side-context` | delegate context management to the provider (MODEL-7): Anthropic clears old tool results and compacts; OpenAI compacts, through its Responses API | off |
//! | `--responses` | speak OpenAI's Responses API instead of chat completions | off (on with `--server-side-context`) |
//! | `--conversation FILE` | keep the conversation in this log and resume it when it exists | none |
//!
//! The base URL and key come from `OPENAI_BASE_URL` / `OPENAI_API_KEY` or
//! `ANTHROPIC_BASE_URL` / `ANTHROPIC_API_KEY`. The agent prints the final
//! answer and one line of usage, with what the calls cost and, with
//! `--server-side-context`, what the provider cleared and compacted.

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
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use serde_json::{json, Value};
use strata_ctx::anthropic::AnthropicClient;
use strata_ctx::openai::{OpenAiApi, OpenAiClient};
use strata_ctx::store::Conversation;
use strata_ctx::{
    Config, Engine, LlmClient, LlmOptions, Message, Price, PriceTable, ServerContext, StreamEvent, ToolCall,
    ToolMode, ToolResult, ToolSpec, Usage,
};

/// The command line.
struct Args {
    provider: String,
    task: String,
    stream: bool,
    model: Option<String>,
    dir: Option<PathBuf>,
    window: usize,
    max_steps: usize,
    price: Option<Price>,
    server_side_context: bool,
    responses: bool,
    conversation: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        provider: "openai".into(),
        task: String::new(),
        stream: false,
        model: None,
        dir: None,
        window: 32_000,
        max_steps: 30,
        price: None,
        server_side_context: false,
        responses: false,
        conversation: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--provider" => args.provider = value()?,
            "--task" => args.task = value()?,
            "--stream" => args.stream = true,
            "--model" => args.model = Some(value()?),
            "--dir" => args.dir = Some(value()?.into()),
            "--window" => args.window = value()?.parse().map_err(|e| format!("--window: {e}"))?,
            "--max-steps" => args.max_steps = value()?.parse().map_err(|e| format!("--max-steps: {e}"))?,
            "--price" => args.price = Some(value()?.parse::<Price>().map_err(|e| format!("--price: {e}"))?),
            "--server-side-context" => args.server_side_context = true,
            "--responses" => args.responses = true,
            "--conversation" => args.conversation = Some(value()?.into()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if args.task.trim().is_empty() {
        return Err("give the task with --task \"...\"".into());
    }
    Ok(args)
}

/// The tools, one registry for the model and for L1 (MODEL-1).
fn tools() -> Vec<ToolSpec> {
    let path = json!({"type": "string", "description": "A path relative to the working directory."});
    vec![
        ToolSpec::new(
            "Read",
            "Reads a text file and returns its content with line numbers.",
            json!({"type": "object", "properties": {"path": path}, "required": ["path"]}),
        ),
        ToolSpec::new(
            "Write",
            "Creates or replaces a file with the given content.",
            json!({"type": "object", "properties": {"path": path, "content": {"type": "string"}}, "required": ["path", "content"]}),
        ),
        ToolSpec::new(
            "Edit",
            "Replaces one exact occurrence of `old` with `new` in a file.",
            json!({"type": "object", "properties": {"path": path, "old": {"type": "string"}, "new": {"type": "string"}}, "required": ["path", "old", "new"]}),
        )
        .with_guidelines(["Read the file first; `old` must occur exactly once."]),
        ToolSpec::new(
            "Bash",
            "Runs a shell command in the working directory and returns its exit code and output.",
            json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
        )
        .with_examples([json!({"command": "ls -la"})]),
        ToolSpec::new(
            "Grep",
            "Searches the files of the working directory for a regular expression; returns `path:line: text` matches.",
            json!({"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}),
        ),
    ]
}

/// A relative path inside `root`, or an error for one that leaves it.
fn inside(root: &Path, path: &str) -> Result<PathBuf, String> {
    let relative = Path::new(path);
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!("`{path}` is not a path inside the working directory"));
    }
    Ok(root.join(relative))
}

/// Runs one call against the scratch directory.
fn run_tool(root: &Path, call: &ToolCall) -> ToolResult {
    let arg = |k: &str| {
        call.arguments
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let file = |k: &str| inside(root, &arg(k));
    let result = match call.name.as_str() {
        "Read" => file("path")
            .and_then(|p| std::fs::read_to_string(&p).map_err(|e| e.to_string()))
            .map(|text| {
                let numbered: String = text
                    .lines()
                    .enumerate()
                    .map(|(i, l)| format!("{:>5}\t{l}\n", i + 1))
                    .collect();
                json!({"path": arg("path"), "content": numbered})
            }),
        "Write" => file("path").and_then(|p| {
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::write(&p, arg("content")).map_err(|e| e.to_string())?;
            Ok(json!({"path": arg("path"), "bytes": arg("content").len()}))
        }),
        "Edit" => file("path").and_then(|p| {
            let text = std::fs::read_to_string(&p).map_err(|e| e.to_string())?;
            match text.matches(&arg("old")).count() {
                1 => {
                    std::fs::write(&p, text.replacen(&arg("old"), &arg("new"), 1))
                        .map_err(|e| e.to_string())?;
                    Ok(json!({"path": arg("path"), "replaced": 1}))
                }
                n => Err(format!(
                    "`old` occurs {n} times in {}; it must occur once",
                    arg("path")
                )),
            }
        }),
        "Bash" => Command::new("sh")
            .arg("-c")
            .arg(arg("command"))
            .current_dir(root)
            .output()
            .map_err(|e| e.to_string())
            .map(|out| {
                json!({
                    "command": arg("command"),
                    "exit_code": out.status.code(),
                    "stdout": String::from_utf8_lossy(&out.stdout),
                    "stderr": String::from_utf8_lossy(&out.stderr),
                })
            }),
        "Grep" => grep(root, &arg("pattern")),
        other => Err(format!("no tool named {other}")),
    };
    match result {
        Ok(data) => ToolResult::success(data),
        Err(message) => ToolResult::error("failed", message),
    }
}

fn grep(root: &Path, pattern: &str) -> Result<Value, String> {
    let re = regex::Regex::new(pattern).map_err(|e| e.to_string())?;
    let mut matches = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| e.to_string())?
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.path());
        for entry in entries {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                dirs.push(path);
            } else if let (true, Ok(text)) = (kind.is_file(), std::fs::read_to_string(&path)) {
                let name = path.strip_prefix(root).unwrap_or(&path).display().to_string();
                for (i, line) in text.lines().enumerate().filter(|(_, l)| re.is_match(l)) {
                    matches.push(format!("{name}:{}: {line}", i + 1));
                }
            }
        }
    }
    Ok(json!({"pattern": pattern, "matches": matches}))
}

fn client(args: &Args) -> Result<(Arc<dyn LlmClient>, String), Box<dyn Error>> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    Ok(match args.provider.as_str() {
        "openai" => {
            let model = args
                .model
                .clone()
                .or_else(|| env("STRATA_MODEL"))
                .unwrap_or_else(|| "gpt-4.1-mini".into());
            let mut b = OpenAiClient::builder().model(&model);
            // Server-side compaction is a Responses API feature.
            if args.responses || args.server_side_context {
                b = b.api(OpenAiApi::Responses);
            }
            let url = env("OPENAI_BASE_URL");
            let key = env("OPENAI_API_KEY");
            if key.is_none() && url.is_none() {
                return Err("OPENAI_API_KEY is not set: export your key (or OPENAI_BASE_URL for a local server that needs none)".into());
            }
            if let Some(url) = url {
                b = b.base_url(url);
            }
            if let Some(key) = key {
                b = b.api_key(key);
            }
            (Arc::new(b.build()?), model)
        }
        "anthropic" => {
            let model = args
                .model
                .clone()
                .or_else(|| env("STRATA_MODEL"))
                .unwrap_or_else(|| "claude-sonnet-4-5".into());
            let mut b = AnthropicClient::builder().model(&model);
            let url = env("ANTHROPIC_BASE_URL");
            let key = env("ANTHROPIC_API_KEY");
            if key.is_none() && url.is_none() {
                return Err("ANTHROPIC_API_KEY is not set: export your key (or ANTHROPIC_BASE_URL for a proxy that needs none)".into());
            }
            if let Some(url) = url {
                b = b.base_url(url);
            }
            if let Some(key) = key {
                b = b.api_key(key);
            }
            (Arc::new(b.build()?), model)
        }
        other => return Err(format!("unknown provider `{other}`: use openai or anthropic").into()),
    })
}

async fn run(args: Args) -> Result<(), Box<dyn Error>> {
    let (client, model) = client(&args)?;
    let scratch;
    let root = match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            dir.clone()
        }
        None => {
            scratch = tempfile::tempdir()?;
            scratch.path().to_path_buf()
        }
    };
    let mut config = Config::from_toml_str(&format!("context_window = {}", args.window))?;
    if args.server_side_context {
        // What each provider offers (MODEL-7): Anthropic clears and
        // compacts, OpenAI's Responses API compacts.
        config.server_context = match args.provider.as_str() {
            "anthropic" => ServerContext::Both,
            _ => ServerContext::Compact,
        };
    }
    let mut builder = Engine::builder(&root)
        .config(config)
        .tool_mode(ToolMode::Native)
        .tools(tools());
    if let Some(path) = &args.conversation {
        // Resumed when it holds records (STORE-3), with the provider's
        // compaction items, which go back to it as they came.
        builder = builder.conversation(Conversation::open(path)?);
    }
    // What the calls cost: the given price, else the shipped table's.
    if let Some(price) = args.price.or_else(|| PriceTable::builtin().get(&model)) {
        builder = builder.price(price);
    }
    let mut engine = builder.build()?;
    engine.begin_round(&args.task).await?;
    let mut total = Usage::default();
    let mut calls = 0;
    for _ in 0..=args.max_steps {
        let answer = if args.stream {
            engine
                .complete_streaming(&*client, LlmOptions::new(), |event| {
                    if let StreamEvent::TextDelta(text) = event {
                        eprint!("{text}");
                    }
                })
                .await?
        } else {
            engine.complete(&*client, LlmOptions::new()).await?
        };
        calls += 1;
        total.input_tokens += answer.usage.input_tokens;
        total.output_tokens += answer.usage.output_tokens;
        total.cached_input_tokens =
            Some(total.cached_input_tokens.unwrap_or(0) + answer.usage.cached_input_tokens.unwrap_or(0));
        if answer.tool_calls.is_empty() {
            engine.finish_round_with(answer.to_message())?;
            println!("{}", answer.text.trim());
            let cost = match engine.cost() {
                Some(cost) => format!("${:.4}", cost.session),
                None => "unknown (no price for this model; give --price)".into(),
            };
            let server = engine.server_context().map(|_| {
                let s = engine.server_context_stats();
                format!(
                    ", provider cleared {} tool uses ({} tokens) and compacted {} times",
                    s.cleared_tool_uses, s.cleared_input_tokens, s.compactions
                )
            });
            println!(
                "usage: {model} via {}, {calls} calls, {} input tokens ({} cached), {} output tokens, window {} of {} tokens, cost {cost}{}",
                args.provider,
                total.input_tokens,
                total.cached_input_tokens.unwrap_or(0),
                total.output_tokens,
                engine.window_tokens(),
                engine.threshold_tokens(),
                server.unwrap_or_default(),
            );
            return Ok(());
        }
        let results: Vec<Message> = answer
            .tool_calls
            .iter()
            .map(|call| Message::tool_result(call, run_tool(&root, call)))
            .collect();
        for call in &answer.tool_calls {
            eprintln!("[{}] {}", call.name, call.arguments);
        }
        engine.record_step(answer.to_message(), results).await?;
    }
    Err(format!("no answer after {} steps", args.max_steps).into())
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("coding_agent: {e}");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    let result = match runtime {
        Ok(rt) => rt.block_on(run(args)),
        Err(e) => Err(e.into()),
    };
    if let Err(e) = result {
        // The error and each of its causes: "the model call failed: …".
        let mut message = e.to_string();
        let mut source = e.source();
        while let Some(cause) = source {
            message.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        eprintln!("coding_agent: {message}");
        std::process::exit(1);
    }
}

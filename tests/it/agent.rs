//! A small ReAct agent over a sample project, driven by a scripted model:
//! the harness of the engine and golden tests.

use std::path::Path;

use serde_json::{json, Value};
use strata_ctx::{
    parse_step, Engine, EngineError, LlmClient, LlmOptions, Message, Step, ToolCall, ToolResult, ToolSpec,
};

/// The tools the sample agent offers.
pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "Read",
            "Reads a file of the project.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        ),
        ToolSpec::new(
            "Write",
            "Writes a file of the project.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}),
        ),
        ToolSpec::new(
            "Bash",
            "Runs a shell command.",
            json!({"type": "object", "properties": {"command": {"type": "string"}}}),
        ),
        ToolSpec::new("TodoWrite", "Updates the todo list.", json!({"type": "object"})),
    ]
}

/// A sample project: a small crate with a bug.
pub fn sample_project(root: &Path) {
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    )
    .unwrap();
    std::fs::write(root.join("README.md"), "# calc\n\nAdds numbers.\n").unwrap();
}

/// Runs one tool call against the project. `Bash` is simulated: `seq N`
/// prints N lines `line <i>: the quick brown fox…`, `cargo test` a short passing log, anything else `ok`.
pub fn run_tool(root: &Path, call: &ToolCall) -> ToolResult {
    let arg = |k: &str| {
        call.arguments
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match call.name.as_str() {
        "Read" => match std::fs::read_to_string(root.join(arg("path"))) {
            Ok(text) => ToolResult::success(text),
            Err(e) => ToolResult::error("not_found", e.to_string()),
        },
        "Write" => {
            let path = root.join(arg("path"));
            let created = !path.exists();
            match std::fs::write(&path, arg("content")) {
                Ok(()) => ToolResult::success(json!({"path": arg("path"), "created": created})),
                Err(e) => ToolResult::error("io", e.to_string()),
            }
        }
        "Bash" => {
            let command = arg("command");
            let output = if let Some(n) = command.strip_prefix("seq ") {
                let n: usize = n.trim().parse().unwrap_or(0);
                (1..=n)
                    .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
                    .collect()
            } else if command == "cargo test" {
                "running 1 test\ntest tests::adds ... ok\n\ntest result: ok. 1 passed; 0 failed\n".to_owned()
            } else {
                "ok\n".to_owned()
            };
            ToolResult::success(json!({"command": command, "exit_code": 0, "stdout": output, "stderr": ""}))
        }
        "TodoWrite" => ToolResult::success(json!({"ok": true})),
        other => ToolResult::error("unknown_tool", format!("no tool named {other}")),
    }
}

/// Runs one round: the model's replies come from `client`, each action is
/// run against the project and recorded, `Finish` ends the round. Calls
/// get the ids `r<round>s<step>`. Returns the answer.
pub async fn run_round(
    engine: &mut Engine,
    client: &dyn LlmClient,
    root: &Path,
    text: &str,
) -> Result<String, EngineError> {
    engine.begin_round(text).await?;
    for _ in 0..100 {
        let reply = engine.complete(client, LlmOptions::new()).await?;
        match parse_step(&reply.text) {
            Ok(Step::Finish { answer, .. }) => {
                engine.finish_round(answer.clone())?;
                return Ok(answer);
            }
            Ok(Step::Action {
                thought,
                tool,
                arguments,
            }) => {
                let id = format!("r{}s{}", engine.round(), engine.steps() + 1);
                let call = ToolCall::new(id, tool, arguments);
                // Stamped by the engine, so that a run under a fixed clock
                // and id source is byte-identical (CORE-2).
                let assistant = engine.stamp(Message::assistant_with_calls(thought, vec![call.clone()]));
                let result = engine.stamp(Message::tool_result(&call, run_tool(root, &call)));
                engine.record_step(assistant, vec![result]).await?;
            }
            Err(e) => panic!("the script holds a malformed step: {e}"),
        }
    }
    panic!("the round did not finish");
}

/// The ReAct text of an action.
pub fn action(thought: &str, tool: &str, arguments: Value) -> String {
    format!("Thought: {thought}\nAction: {tool}[{arguments}]")
}

/// The ReAct text of a final answer.
pub fn finish(answer: &str) -> String {
    format!("Thought: done\nAction: Finish[{answer}]")
}

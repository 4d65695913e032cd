//! Golden histories (CTX-1, CTX-4, REACT-1 … REACT-3): three sessions run
//! through the engine with a scripted model, their windows rendered in the
//! three formats and compared with the reviewed snapshots in
//! `tests/it/snapshots/`.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use strata_ctx::compress::{Limits, Truncator};
use strata_ctx::types::Timestamp;
use strata_ctx::{Clock, Config, Engine, IdSource, Message, ToolCall, ToolMode, Window};
use strata_ctx_testkit::ScriptedClient;

use crate::agent::{action, finish, run_round, run_tool, sample_project, tools};
use crate::engine::Fixed;

const SYSTEM: &str = "You are the coding agent of the calc project.";

fn engine(root: &Path, toml: &str) -> Engine {
    let truncator = Truncator::builder(root)
        .limits(Limits::new(100, 8192))
        .clock(|| Timestamp::from_unix_millis(1_795_000_000_000).unwrap())
        .build();
    Engine::builder(root)
        .config(Config::from_toml_str(toml).unwrap())
        .system_prompt(SYSTEM)
        // A ReAct agent: the scripted model writes `Action:` lines.
        .tool_mode(ToolMode::React)
        .tools(tools())
        .summarizer(Arc::new(Fixed::default()))
        .truncator(truncator)
        // Reproducible ids: recall handles show them.
        .ids(IdSource::sequential("golden-window"))
        .build()
        .unwrap()
}

fn snapshot_all(name: &str, window: &Window) {
    insta::assert_snapshot!(format!("{name}_react"), window.render_react());
    insta::assert_json_snapshot!(format!("{name}_openai"), window.to_openai());
    insta::assert_json_snapshot!(format!("{name}_anthropic"), window.to_anthropic());
}

/// A plain chat of three rounds, then the fourth question.
#[tokio::test]
async fn golden_plain_chat() {
    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path())
        .system_prompt("You are a friendly assistant. Answer briefly.")
        .build()
        .unwrap();
    let client = ScriptedClient::new();
    let turns = [
        (
            "Hi! What is a crate in Rust?",
            "A crate is a compilation unit: a library or a binary.",
        ),
        (
            "And a workspace?",
            "A set of crates built together, sharing one Cargo.lock.",
        ),
        (
            "Can crates in it depend on each other?",
            "Yes, with path dependencies.",
        ),
    ];
    for (question, answer) in turns {
        client.push_text(finish(answer));
        run_round(&mut engine, &client, project.path(), question)
            .await
            .unwrap();
    }
    engine
        .begin_round("Thanks! One more: what is a feature?")
        .await
        .unwrap();
    snapshot_all("chat", &engine.window());
}

/// A coding session: a mentioned file, parallel calls, a truncated
/// output, a write and a todo list; the window in the middle of the round
/// (full observations) and at the next round (history form).
#[tokio::test]
async fn golden_coding_session() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    sample_project(root);
    std::fs::write(root.join("CODE_LAW.md"), "Every public function has a test.\n").unwrap();
    let mut engine = engine(root, "");
    engine
        .begin_round("`add` is wrong, fix @src/lib.rs please.")
        .await
        .unwrap();

    let step = |calls: Vec<ToolCall>, thought: &str| {
        let results = calls
            .iter()
            // Ids of the call's: the window shows them in recall handles.
            .map(|c| {
                Message::tool_result(c, run_tool(root, c))
                    .with_id(strata_ctx::types::MessageId::derived(&format!("golden:{}", c.id)))
            })
            .collect();
        let first = calls.first().map(|c| c.id.clone()).unwrap_or_default();
        let id = strata_ctx::types::MessageId::derived(&format!("golden:a:{first}"));
        (Message::assistant_with_calls(thought, calls).with_id(id), results)
    };
    let (a, r) = step(
        vec![
            ToolCall::new("c1", "Read", json!({"path": "src/lib.rs"})),
            ToolCall::new("c2", "Bash", json!({"command": "cargo test"})),
        ],
        "Read the file and run the tests at once.",
    );
    engine.record_step(a, r).await.unwrap();
    let (a, r) = step(
        vec![ToolCall::new("c3", "Bash", json!({"command": "seq 150"}))],
        "Look at a long log.",
    );
    let report = engine.record_step(a, r).await.unwrap();
    assert_eq!(report.truncated, ["c3"]);
    let (a, r) = step(
        vec![ToolCall::new(
            "c4",
            "Write",
            json!({"path": "src/lib.rs", "content": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"}),
        )],
        "Fix the operator.",
    );
    engine.record_step(a, r).await.unwrap();
    let (a, r) = step(
        vec![ToolCall::new(
            "c5",
            "TodoWrite",
            json!({"todos": [
                {"content": "Fix add", "status": "completed"},
                {"content": "Add a test for add", "status": "in_progress"},
                {"content": "Update the README", "status": "pending"}
            ]}),
        )],
        "Plan the rest.",
    );
    engine.record_step(a, r).await.unwrap();
    insta::assert_snapshot!("coding_mid_round_react", engine.window().render_react());

    engine
        .finish_round("Fixed: `add` used `-`; it now adds.")
        .unwrap();
    engine.begin_round("Now add the test.").await.unwrap();
    snapshot_all("coding", &engine.window());
}

/// A session long enough to compact more than once: the summaries merge
/// into one (HIST-17), first in L3, the newest round verbatim.
#[tokio::test]
async fn golden_session_compacted_twice() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    sample_project(root);
    let mut engine = engine(root, "context_window = 4000\nmin_retain_rounds = 1");
    let client = ScriptedClient::new();
    for round in 1..=6 {
        client
            .push_text(action("Count the lines.", "Bash", json!({"command": "seq 20"})))
            .push_text(finish(&format!(
                "Round {round}: 20 lines. {}",
                "More detail. ".repeat(40)
            )));
        run_round(
            &mut engine,
            &client,
            root,
            &format!("Question {round}: {}", "Please count. ".repeat(30)),
        )
        .await
        .unwrap();
    }
    engine.begin_round("What did we learn?").await.unwrap();
    let window = engine.window();
    let summaries = window
        .context
        .history()
        .iter()
        .filter(|m| m.role == strata_ctx::Role::Summary)
        .count();
    assert_eq!(summaries, 1, "summaries merge");
    assert!(window.tokens <= window.threshold);
    snapshot_all("compacted", &window);
}

/// One whole agent run under a stepping clock and a sequential id source
/// (CORE-2): the model called through `Engine::complete`, a long output
/// spilled by the default truncator, rounds compacted. Two runs in two
/// project directories give byte-identical full logs, windows and spill
/// names, and the full log is the reviewed snapshot.
#[tokio::test]
async fn golden_whole_agent_run_is_reproducible() {
    async fn run() -> (String, String, Vec<String>) {
        let project = tempfile::tempdir().unwrap();
        let root = project.path();
        sample_project(root);
        let start = Timestamp::from_unix_millis(1_795_000_000_000).unwrap();
        let mut engine = Engine::builder(root)
            .config(Config::from_toml_str("context_window = 2500\nmin_retain_rounds = 1").unwrap())
            .system_prompt(SYSTEM)
            // A ReAct agent: the scripted model writes `Action:` lines.
            .tool_mode(ToolMode::React)
            .tools(tools())
            .summarizer(Arc::new(Fixed::default()))
            .clock(Clock::stepping(start, std::time::Duration::from_secs(1)))
            .ids(IdSource::sequential("golden"))
            .build()
            .unwrap();
        let client = ScriptedClient::new();
        client
            .push_text(action("Read it.", "Read", json!({"path": "src/lib.rs"})))
            .push_text(action("Run the tests.", "Bash", json!({"command": "cargo test"})))
            .push_text(finish("`add` subtracts; the test fails."));
        run_round(
            &mut engine,
            &client,
            root,
            "Why does the test of @src/lib.rs fail?",
        )
        .await
        .unwrap();
        for round in 2..=6 {
            client
                .push_text(action("Look at the log.", "Bash", json!({"command": "seq 60"})))
                .push_text(finish(&format!(
                    "Round {round}: 60 lines. {}",
                    "Detail. ".repeat(120)
                )));
            run_round(
                &mut engine,
                &client,
                root,
                &format!("Question {round}: count the log."),
            )
            .await
            .unwrap();
        }
        engine.begin_round("What did we learn?").await.unwrap();
        assert!(
            engine
                .history()
                .window()
                .iter()
                .any(|m| m.role == strata_ctx::Role::Summary),
            "the run compacted"
        );
        let log: String = engine
            .history()
            .full_log()
            .iter()
            .map(|m| serde_json::to_string(m).unwrap() + "\n")
            .collect();
        let window = engine.window().render_react();
        let mut spills: Vec<String> = walk(&root.join("tool-output"))
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        spills.sort();
        let root_text = root.display().to_string();
        (
            log.replace(&root_text, "<root>"),
            window.replace(&root_text, "<root>"),
            spills,
        )
    }
    fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .flat_map(|e| {
                let p = e.path();
                if p.is_dir() {
                    walk(&p)
                } else {
                    vec![p]
                }
            })
            .collect()
    }
    let (log, window, spills) = run().await;
    let again = run().await;
    assert_eq!((&log, &window, &spills), (&again.0, &again.1, &again.2));
    assert!(!spills.is_empty(), "the long outputs were spilled");
    assert!(log.contains("\"created_at\":\"2026-11-18T"), "{log}");
    insta::assert_snapshot!("whole_run_spills", spills.join("\n"));
    insta::assert_snapshot!("whole_run_log", log);
    insta::assert_snapshot!("whole_run_window", window);
}

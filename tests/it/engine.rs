//! The turn engine driven through whole rounds (REACT-2 … REACT-5,
//! HIST-4, HIST-12, CTX-1 … CTX-6, MENTION-3, MTIME-1/2, EVT-1).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, SystemTime};

use serde_json::json;
use strata_ctx::compress::{Limits, Truncator};
use strata_ctx::history::PruneAction;
use strata_ctx::store::Conversation;
use strata_ctx::types::Timestamp;
use strata_ctx::{
    CompactionReason, Config, Engine, EngineError, Event, LlmError, LlmOptions, Message, Pairs, Role,
    Summarizer, ToolCall, ToolResult, Usage,
};
use strata_ctx_testkit::ScriptedClient;

use crate::agent::{action, finish, run_round, sample_project, tools};

/// A summariser that answers with a fixed text and counts its calls.
#[derive(Default)]
pub struct Fixed {
    pub calls: AtomicUsize,
}

#[async_trait::async_trait]
impl Summarizer for Fixed {
    async fn summarize(&self, messages: &[Message]) -> strata_ctx::LlmResult<String> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(format!(
            "Summary {n} of {} messages: the user asked about calc.",
            messages.len()
        ))
    }
}

fn config(toml: &str) -> Config {
    Config::from_toml_str(toml).unwrap()
}

fn fixed_clock() -> Timestamp {
    Timestamp::from_unix_millis(1_795_000_000_000).unwrap()
}

struct Setup {
    project: tempfile::TempDir,
    engine: Engine,
    client: ScriptedClient,
    events: mpsc::Receiver<Event>,
}

fn setup(toml: &str, summarizer: Arc<dyn Summarizer>) -> Setup {
    let project = tempfile::tempdir().unwrap();
    sample_project(project.path());
    let (tx, events) = mpsc::channel();
    let truncator = Truncator::builder(project.path())
        .limits(Limits::new(100, 8192))
        .clock(fixed_clock)
        .build();
    let engine = Engine::builder(project.path())
        .config(config(toml))
        .tools(tools())
        .summarizer(summarizer)
        .truncator(truncator)
        .events_to(tx)
        .build()
        .unwrap();
    Setup {
        project,
        engine,
        client: ScriptedClient::new(),
        events,
    }
}

fn drain(events: &mpsc::Receiver<Event>) -> Vec<Event> {
    events.try_iter().collect()
}

/// REACT-2/3: during a round the model sees full observations after the
/// current input; afterwards the round is in the history in history form.
#[tokio::test]
async fn react_2_3_round_in_scratchpad_then_history() {
    let mut s = setup("", Arc::new(Fixed::default()));
    let root = s.project.path().to_owned();
    s.client
        .push_text(action("Look at it.", "Bash", json!({"command": "seq 80"})))
        .push_text(finish("It prints 80 lines."));
    s.engine.begin_round("What does seq print?").await.unwrap();
    let reply = s.engine.complete(&s.client, LlmOptions::new()).await.unwrap();
    assert!(reply.text.contains("Action: Bash"));
    let call = ToolCall::new("c1", "Bash", json!({"command": "seq 80"}));
    let result = Message::tool_result(&call, crate::agent::run_tool(&root, &call));
    let report = s
        .engine
        .record_step(
            Message::assistant_with_calls("Look at it.", vec![call]),
            vec![result],
        )
        .await
        .unwrap();
    assert_eq!(report.step, 1);
    let window = s.engine.window();
    let messages = window.messages();
    // L1, input, step: the input is not inside L3 while its round runs.
    assert_eq!(window.context.history().len(), 0);
    assert_eq!(window.context.input().unwrap().content, "What does seq print?");
    let full = window.context.scratchpad()[1].text().into_owned();
    assert!(
        full.contains("line 80: the quick"),
        "the model sees the whole output: {full}"
    );
    assert_eq!(messages.len(), 4);
    let request = s.client.requests();
    assert_eq!(request.len(), 1);
    assert_eq!(request[0].messages.len(), 2, "L1 and the input");

    s.engine.complete(&s.client, LlmOptions::new()).await.unwrap();
    s.engine.finish_round("It prints 80 lines.").unwrap();
    let window = s.engine.window();
    assert!(window.context.input().is_none());
    assert!(window.context.scratchpad().is_empty());
    let roles: Vec<Role> = window.context.history().iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::Assistant]);
    let remembered = window.context.history()[2].text().into_owned();
    assert!(remembered.len() < full.len(), "history form: {remembered}");
    assert_eq!(s.engine.history().full_log().len(), 4);
}

/// REACT-4: after a usage figure, the window's size is that figure plus
/// the estimate of what was added since; a compaction makes it stale.
#[tokio::test]
async fn react_4_usage_plus_estimate() {
    let mut s = setup("", Arc::new(Fixed::default()));
    s.engine.begin_round("hello").await.unwrap();
    let counted = s.engine.window().counted;
    s.engine.record_usage(Usage::new(5_000, 10));
    assert_eq!(s.engine.window_tokens(), 5_000);
    let call = ToolCall::new("c1", "Bash", json!({"command": "ls"}));
    let result = Message::tool_result(&call, ToolResult::success("a\nb\n"));
    s.engine
        .record_step(Message::assistant_with_calls("", vec![call]), vec![result])
        .await
        .unwrap();
    let window = s.engine.window();
    assert_eq!(window.tokens, 5_000 + window.counted - counted);
    s.engine.compact().await.unwrap();
    assert_eq!(
        s.engine.window_tokens(),
        s.engine.window().counted,
        "stale usage is not used"
    );
    assert!(drain(&s.events).contains(&Event::UsageRecorded(Usage::new(5_000, 10))));
}

/// MENTION-3 through the engine, with the topic anchor (CTX-6) and the
/// todo recap (CTX-5) in their slots.
#[tokio::test]
async fn mentions_anchor_and_recap_in_their_slots() {
    let project = tempfile::tempdir().unwrap();
    sample_project(project.path());
    let mut engine = Engine::builder(project.path())
        .topic_anchor(true)
        .build()
        .unwrap();
    let start = engine.begin_round("Fix @src/lib.rs and @nope.rs.").await.unwrap();
    assert_eq!(start.mentions, ["src/lib.rs"]);
    assert_eq!(start.ignored, ["nope.rs"]);
    assert!(start.message.content.ends_with(
        "<system-reminder>\nThe user mentioned @src/lib.rs.\nYou MUST read this file with the Read tool before answering.\n</system-reminder>"
    ));
    let todo = ToolCall::new(
        "t1",
        "TodoWrite",
        json!({"todos": [{"content": "fix add", "status": "in_progress"}, {"content": "test", "status": "pending"}]}),
    );
    let result = Message::tool_result(&todo, ToolResult::success(json!({"ok": true})));
    engine
        .record_step(Message::assistant_with_calls("Plan.", vec![todo]), vec![result])
        .await
        .unwrap();
    let window = engine.window();
    let input = window.context.input().unwrap();
    assert!(input
        .content
        .ends_with("[Current topic] This message: Fix @src/lib.rs and @nope.rs.."));
    let messages = window.messages();
    let last = messages.last().unwrap();
    assert!(last
        .content
        .starts_with("<system-reminder>\n[Todo recap] 0 done, 1 in progress, 1 pending"));
    engine.finish_round("Fixed.").unwrap();
    // The anchor lives in the input slot only, never in the history.
    assert!(!engine.history().full_log()[0].content.contains("[Current topic]"));
    engine.begin_round("Now add tests").await.unwrap();
    let window = engine.window();
    assert!(window.context.input().unwrap().content.ends_with(
        "[Current topic] Previous question: Fix @src/lib.rs and @nope.rs.. This message: Now add tests."
    ));
    assert!(
        window.messages().last().unwrap().content.contains("[Todo recap]"),
        "recap survives rounds"
    );
}

/// TRUNC-1 through the engine: the model sees the cut output, the whole
/// of it is in the spill file, the history keeps the history form, and an
/// event says so.
#[tokio::test]
async fn trunc_1_cut_for_the_model_and_reported() {
    let mut s = setup("", Arc::new(Fixed::default()));
    let root = s.project.path().to_owned();
    s.engine.begin_round("count").await.unwrap();
    let call = ToolCall::new("c1", "Bash", json!({"command": "seq 500"}));
    let output: String = (1..=500).map(|i| format!("{i}\n")).collect();
    let result = Message::tool_text("c1", "Bash", output.clone());
    let report = s
        .engine
        .record_step(Message::assistant_with_calls("", vec![call]), vec![result])
        .await
        .unwrap();
    assert_eq!(report.truncated, ["c1"]);
    let window = s.engine.window();
    let seen = window.context.scratchpad()[1].result.clone().unwrap();
    assert_eq!(seen.status, strata_ctx::ResultStatus::Partial);
    let path = seen.full_output_path.clone().unwrap();
    assert_eq!(std::fs::read_to_string(root.join(&path)).unwrap(), output);
    assert!(seen
        .text
        .unwrap()
        .starts_with("Found 500 lines (showing the first 78 and the last 20)."));
    let view = seen.data["output"].as_str().unwrap().to_owned();
    assert!(
        view.ends_with("498\n499\n500\n"),
        "the end of the log is seen too (TOOL-8)"
    );
    let events = drain(&s.events);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::OutputTruncated {
            total_lines: 500,
            shown_lines: 98,
            spill: Some(_),
            ..
        }
    )));
    // TOOL-13: the full log keeps the output as returned, and the
    // history form is made from it, not from the cut view.
    let logged = &s.engine.history().full_log()[2];
    assert_eq!(logged.text(), output);
    let form = s.engine.history().window()[2].text().into_owned();
    assert!(
        form.contains("500") && !form.contains("showing the first 78"),
        "{form}"
    );
}

/// TRUNC-1, TOOL-8 through the engine: a command run under a terminal
/// (Codex CLI's `exec_command` with `tty`) whose progress bar drew over
/// one line hundreds of times is seen as the terminal shows it: whole,
/// since what it shows fits, without the drawings; the full log keeps the
/// bytes printed. Before, its 54 KB went over the result's share and
/// were cut, the drawings taking the view's room.
#[tokio::test]
async fn trunc_1_a_terminal_s_drawings_are_not_seen() {
    let mut s = setup("", Arc::new(Fixed::default()));
    s.engine.begin_round("install").await.unwrap();
    let call = ToolCall::new("c1", "Bash", json!({"command": "pip install numpy"}));
    let bar: String = (0..=400)
        .map(|i| {
            format!(
                "   {:<40} {:>5.1}/18.3 MB\r",
                "━".repeat(i / 10),
                i as f64 * 0.0457
            )
        })
        .collect();
    let output =
        format!("Collecting numpy\r\n{bar}\r\nERROR: Could not install packages due to an OSError\r\n");
    let result = Message::tool_text("c1", "Bash", output.clone());
    let report = s
        .engine
        .record_step(Message::assistant_with_calls("", vec![call]), vec![result])
        .await
        .unwrap();
    assert!(report.truncated.is_empty());
    let window = s.engine.window();
    let seen = window.context.scratchpad()[1].content.to_string();
    let last = bar.rsplit_terminator('\r').next().unwrap();
    assert_eq!(
        seen,
        format!("Collecting numpy\n{last}\nERROR: Could not install packages due to an OSError\n")
    );
    assert_eq!(s.engine.history().full_log()[2].text(), output);
}

/// MTIME-1/2 through the engine with real files: a file changed behind the
/// agent's back gets the note on the next read; its own write does not.
#[tokio::test]
async fn mtime_notes_on_external_change_only() {
    let mut s = setup("", Arc::new(Fixed::default()));
    let root = s.project.path().to_owned();
    let read = |id: &str| {
        let call = ToolCall::new(id, "Read", json!({"path": "src/lib.rs"}));
        let result = Message::tool_result(&call, crate::agent::run_tool(&root, &call));
        (Message::assistant_with_calls("", vec![call]), vec![result])
    };
    s.engine.begin_round("check lib").await.unwrap();
    let (a, r) = read("r1");
    assert!(s.engine.record_step(a, r).await.unwrap().modified.is_empty());
    // Someone else edits the file, with a later mtime.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(root.join("src/lib.rs"))
        .unwrap();
    file.set_modified(SystemTime::now() + Duration::from_secs(60))
        .unwrap();
    drop(file);
    let (a, r) = read("r2");
    let report = s.engine.record_step(a, r).await.unwrap();
    assert_eq!(report.modified, ["src/lib.rs"]);
    let window = s.engine.window();
    let noted = window.context.scratchpad().last().unwrap().text().into_owned();
    assert!(
        noted.contains("Note: src/lib.rs was modified externally."),
        "{noted}"
    );
    // The agent's own write, then a read: no note.
    let write = ToolCall::new(
        "w1",
        "Write",
        json!({"path": "src/lib.rs", "content": "pub fn add() {}\n"}),
    );
    let result = Message::tool_result(&write, crate::agent::run_tool(&root, &write));
    s.engine
        .record_step(Message::assistant_with_calls("", vec![write]), vec![result])
        .await
        .unwrap();
    let (a, r) = read("r3");
    assert!(s.engine.record_step(a, r).await.unwrap().modified.is_empty());
    assert!(drain(&s.events).contains(&Event::FileModified {
        path: "src/lib.rs".into()
    }));
}

/// HIST-4/HIST-5 in a whole session: with a small window, compaction runs
/// between rounds, archives old rounds into a summary that comes first in
/// L3, and keeps the window under the threshold.
#[tokio::test]
async fn compaction_in_the_middle_of_a_session() {
    let summarizer = Arc::new(Fixed::default());
    let toml = "context_window = 6000\nmin_retain_rounds = 1";
    let mut s = setup(toml, summarizer.clone());
    let root = s.project.path().to_owned();
    for round in 0..12 {
        s.client
            .push_text(action("Read it.", "Read", json!({"path": "src/lib.rs"})))
            .push_text(action("Count.", "Bash", json!({"command": "seq 45"})))
            .push_text(finish(&format!("Round {round} done: {}", "words ".repeat(150))));
        run_round(
            &mut s.engine,
            &s.client,
            &root,
            &format!("Question {round}: {}", "why ".repeat(100)),
        )
        .await
        .unwrap();
        let window = s.engine.window();
        crate::assert_within_budget(&window, format_args!("round {round}"));
        assert!(Pairs::new(&window.messages()).is_complete());
    }
    let events = drain(&s.events);
    assert!(
        summarizer.calls.load(Ordering::SeqCst) >= 2,
        "compacted more than once"
    );
    let finished: Vec<&strata_ctx::CompactionStats> = events
        .iter()
        .filter_map(|e| match e {
            Event::CompactionFinished(stats) => Some(stats),
            _ => None,
        })
        .collect();
    assert!(finished.iter().all(|st| !st.degraded && st.rounds_archived > 0));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::CompactionStarted {
            reason: CompactionReason::Threshold,
            ..
        }
    )));
    let window = s.engine.window();
    let history = window.context.history();
    assert_eq!(history[0].role, Role::Summary);
    // HIST-17: summaries merge; the newest summary stands for all the
    // earlier ones, which the summariser was given with the archived
    // rounds.
    let n = summarizer.calls.load(Ordering::SeqCst);
    assert_eq!(history.iter().filter(|m| m.role == Role::Summary).count(), 1);
    assert!(window
        .render_react()
        .contains(&format!("[system] ## Archived History Summary\n\nSummary {n} of")));
    // The full log keeps everything: 12 rounds of user, 2 steps, answer.
    assert_eq!(s.engine.history().full_log().len(), 12 * 6);
}

/// HIST-12: the model rejects the window as too long; the engine compacts
/// at once and the retried call goes through. A second rejection of the
/// compacted window is an error, not a loop.
#[tokio::test]
async fn hist_12_reactive_compaction_after_an_overflow() {
    let summarizer = Arc::new(Fixed::default());
    let mut s = setup(
        "context_window = 50000\nmin_retain_rounds = 1",
        summarizer.clone(),
    );
    let root = s.project.path().to_owned();
    for round in 0..3 {
        s.client
            .push_text(action("Count.", "Bash", json!({"command": "seq 45"})))
            .push_text(finish(&format!("done {round}")));
        run_round(&mut s.engine, &s.client, &root, &format!("question {round}"))
            .await
            .unwrap();
    }
    assert_eq!(
        summarizer.calls.load(Ordering::SeqCst),
        0,
        "nowhere near the threshold"
    );
    let before = s.engine.window().messages().len();
    s.client
        .push_error(LlmError::ContextTooLong {
            message: "maximum context length is 50000 tokens".into(),
        })
        .push_text(finish("fine"));
    let answer = run_round(&mut s.engine, &s.client, &root, "question 3")
        .await
        .unwrap();
    assert_eq!(answer, "fine");
    assert_eq!(summarizer.calls.load(Ordering::SeqCst), 1);
    let requests = s.client.requests();
    let (failed, retried) = (&requests[requests.len() - 2], &requests[requests.len() - 1]);
    assert!(
        retried.messages.len() < failed.messages.len(),
        "the retry is smaller"
    );
    assert!(s.engine.window().messages().len() < before + 2);
    let events = drain(&s.events);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::CompactionStarted {
            reason: CompactionReason::Overflow,
            ..
        }
    )));

    // Rejected twice: a typed error.
    s.client
        .push_error(LlmError::ContextTooLong {
            message: "too long".into(),
        })
        .push_error(LlmError::ContextTooLong {
            message: "still too long".into(),
        });
    s.engine.begin_round("question 4").await.unwrap();
    let err = s.engine.complete(&s.client, LlmOptions::new()).await.unwrap_err();
    assert!(matches!(err, EngineError::StillTooLong { .. }), "{err:?}");
    // Other failures are passed on as they are.
    s.client.push_error(LlmError::RateLimited {
        message: "slow down".into(),
        retry_after: None,
    });
    let err = s.engine.complete(&s.client, LlmOptions::new()).await.unwrap_err();
    assert!(
        matches!(err, EngineError::Model(LlmError::RateLimited { .. })),
        "{err:?}"
    );
}

/// REACT-5 on a synthetic long round: old steps go to history form, then
/// get cleared, then are left out behind a notice; the newest five stay
/// full, the input stays, pairs stay whole, and events report it.
#[tokio::test]
async fn react_5_long_round_condenses_oldest_first() {
    const STEPS: usize = 200;
    let mut s = setup("context_window = 8000", Arc::new(Fixed::default()));
    s.engine.begin_round("Refactor everything.").await.unwrap();
    let mut last = Default::default();
    for i in 0..STEPS {
        let call = ToolCall::new(format!("c{i}"), "Bash", json!({"command": format!("step {i}")}));
        let stdout: String = (0..40)
            .map(|l| format!("step {i} line {l} of output\n"))
            .collect();
        let result = Message::tool_result(
            &call,
            ToolResult::success(
                json!({"command": format!("step {i}"), "exit_code": 0, "stdout": stdout, "stderr": ""}),
            ),
        );
        last = s
            .engine
            .record_step(
                Message::assistant_with_calls(format!("Step {i}."), vec![call]),
                vec![result],
            )
            .await
            .unwrap();
        let window = s.engine.window();
        crate::assert_within_budget(&window, format_args!("step {i}"));
        assert!(Pairs::new(&window.messages()).is_complete());
        assert_eq!(window.context.input().unwrap().content, "Refactor everything.");
        // The newest five steps are full.
        let scratch = window.context.scratchpad();
        let tail = &scratch[scratch.len() - 2 * 5.min(i + 1)..];
        for m in tail.iter().filter(|m| m.role == Role::Tool) {
            assert!(
                m.text().contains("of output\\n"),
                "step {i}: a newest step is not full"
            );
        }
    }
    assert!(!last.over_budget);
    let window = s.engine.window();
    let scratch = window.context.scratchpad();
    assert_eq!(scratch[0].role, Role::System, "the digest of left-out steps");
    assert!(
        scratch[0].content.starts_with("[Progress digest of"),
        "{}",
        scratch[0].content
    );
    assert!(
        scratch[0].content.contains("Commands run (newest first):"),
        "{}",
        scratch[0].content
    );
    assert!(scratch.iter().any(strata_ctx::history::is_cleared));
    let events = drain(&s.events);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::StepsCondensed { to_history_form, .. } if *to_history_form > 0)));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::StepsCondensed { omitted, .. } if *omitted > 0)));
    // The history keeps every step in history form, none left out.
    assert_eq!(s.engine.history().window().len(), 1 + STEPS * 2);
}

/// HIST-14: the newest steps are a preference that yields to the budget:
/// when six large steps do not fit a small window, the older of the
/// newest five are condensed too and the window stays within the
/// threshold, the newest step still shown in full.
#[tokio::test]
async fn hist_14_newest_steps_yield_to_the_budget() {
    let mut s = setup("context_window = 3000", Arc::new(Fixed::default()));
    s.engine.begin_round("go").await.unwrap();
    for i in 0..6 {
        let call = ToolCall::new(format!("c{i}"), "Read", json!({"path": format!("f{i}")}));
        let result = Message::tool_result(&call, ToolResult::success(format!("{i}{}", "x".repeat(1_500))));
        let report = s
            .engine
            .record_step(Message::assistant_with_calls("", vec![call]), vec![result])
            .await
            .unwrap();
        assert!(!report.over_budget, "step {i}");
        let window = s.engine.window();
        crate::assert_within_budget(&window, format_args!("step {i}"));
        let last = window.context.scratchpad().last().unwrap().text().into_owned();
        assert!(
            last.contains(&format!("{i}xxxx")),
            "step {i}: the newest result is shown: {last}"
        );
    }
    assert!(!drain(&s.events)
        .iter()
        .any(|e| matches!(e, Event::OverBudget { .. })));
}

/// HIST-14: what the window must always hold (system prompt, rules, the
/// input) larger than the threshold is a typed error, and nothing is
/// recorded.
#[tokio::test]
async fn hist_14_fixed_layers_that_do_not_fit_are_an_error() {
    let mut s = setup("context_window = 3000", Arc::new(Fixed::default()));
    let err = s
        .engine
        .begin_round(&"too long ".repeat(1_500))
        .await
        .unwrap_err();
    assert!(
        matches!(err, EngineError::DoesNotFit { threshold: 2400, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("do not fit"), "{err}");
    assert!(!s.engine.round_open());
    assert!(s.engine.history().full_log().is_empty());
    s.engine.begin_round("short").await.unwrap();
}

/// CTX-3: the prefix is the same bytes and hash across builds and rounds,
/// and changes when CODE_LAW.md does.
#[tokio::test]
async fn ctx_3_prefix_is_stable_until_the_rules_change() {
    let mut s = setup("", Arc::new(Fixed::default()));
    let root = s.project.path().to_owned();
    std::fs::write(root.join("code_law.md"), "Never unwrap.\n").unwrap();
    s.engine.begin_round("one").await.unwrap();
    let first = s.engine.window();
    let again = s.engine.window();
    let bytes = |w: &strata_ctx::Window| w.render_react()[..w.prefix().bytes].to_owned();
    assert_eq!(first.prefix(), again.prefix());
    assert!(bytes(&first).contains("# Project rules (code_law.md)\n\nNever unwrap."));
    s.engine.finish_round("ok").unwrap();
    s.client
        .push_text(action("Count.", "Bash", json!({"command": "seq 3"})))
        .push_text(finish("three"));
    run_round(&mut s.engine, &s.client, &root, "two").await.unwrap();
    s.engine.begin_round("three").await.unwrap();
    let later = s.engine.window();
    assert_eq!(later.prefix(), first.prefix());
    assert_eq!(bytes(&later), bytes(&first));
    // Byte-identical leading messages in what the client was sent.
    let requests = s.client.requests();
    assert_eq!(requests[0].messages[..2], requests[1].messages[..2]);
    assert_eq!(
        later.to_openai()[1]["content"],
        first.to_openai()[1]["content"],
        "the rules message of the OpenAI rendering"
    );
    std::fs::write(root.join("code_law.md"), "Never unwrap. Never panic.\n").unwrap();
    let changed = s.engine.window();
    assert_ne!(changed.prefix().hash, first.prefix().hash);
    assert!(bytes(&changed).contains("Never panic."));
    assert_eq!(changed.prefix().to_string().len(), 16);
}

/// STORE-3 through the engine: a conversation persisted by one engine is
/// resumed by another with the same window, even in the middle of a round.
#[tokio::test]
async fn store_3_resume_gives_the_same_window() {
    let project = tempfile::tempdir().unwrap();
    sample_project(project.path());
    let log = project.path().join("conversation.jsonl");
    let client = ScriptedClient::new();
    let (window, rendered) = {
        let mut engine = Engine::builder(project.path())
            .conversation(Conversation::open(&log).unwrap())
            .build()
            .unwrap();
        client
            .push_text(action("Read it.", "Read", json!({"path": "README.md"})))
            .push_text(finish("It adds numbers."));
        run_round(&mut engine, &client, project.path(), "What is this?")
            .await
            .unwrap();
        engine.begin_round("And then?").await.unwrap();
        let call = ToolCall::new("x", "Bash", json!({"command": "cargo test"}));
        let result = Message::tool_result(&call, crate::agent::run_tool(project.path(), &call));
        engine
            .record_step(Message::assistant_with_calls("Test.", vec![call]), vec![result])
            .await
            .unwrap();
        let w = engine.window();
        (w.messages(), w.render_react())
    };
    let mut resumed = Engine::builder(project.path())
        .conversation(Conversation::open(&log).unwrap())
        .build()
        .unwrap();
    assert!(resumed.round_open());
    assert_eq!(resumed.round(), 2);
    assert_eq!(resumed.steps(), 1, "a call and its result are one step");
    let again = resumed.window();
    assert_eq!(again.messages().len(), window.len());
    assert_eq!(again.context.history(), &window[1..5]);
    assert!(again
        .render_react()
        .starts_with(&rendered[..rendered.find("[assistant] Thought: Test.").unwrap()]));
    resumed.finish_round("done").unwrap();
}

/// HIST-2 on import: an orphan call is repaired and the repair reported.
#[tokio::test]
async fn imported_history_is_repaired_and_reported() {
    let project = tempfile::tempdir().unwrap();
    let (tx, rx) = mpsc::channel();
    let call = ToolCall::new("lost", "Bash", json!({"command": "sleep 100"}));
    let engine = Engine::builder(project.path())
        .messages(vec![
            Message::user("run it"),
            Message::assistant_with_calls("", vec![call]),
        ])
        .events_to(tx)
        .build()
        .unwrap();
    assert!(rx
        .try_iter()
        .any(|e| matches!(e, Event::Repaired(ref r) if r.len() == 1)));
    assert!(Pairs::new(&engine.history().window()).is_complete());
}

/// Misuse is a typed error and changes nothing.
#[tokio::test]
async fn misuse_is_a_typed_error() {
    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path()).build().unwrap();
    let err = engine
        .record_step(Message::assistant("x"), vec![])
        .await
        .unwrap_err();
    assert!(matches!(err, EngineError::NoRound));
    assert!(matches!(engine.finish_round("x"), Err(EngineError::NoRound)));
    engine.begin_round("a").await.unwrap();
    assert!(matches!(
        engine.begin_round("b").await,
        Err(EngineError::RoundInProgress)
    ));
    assert_eq!(engine.history().full_log().len(), 1);
}

/// The engine and its futures can move across threads (a tokio task).
#[test]
fn engine_is_send() {
    fn send<T: Send>(_: &T) {}
    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path()).build().unwrap();
    send(&engine);
    send(&engine.begin_round("x"));
    send(&engine.record_step(Message::assistant("x"), vec![]));
}

/// CTX-2 through the engine: rules over the cap are cut with a marker and
/// one warning event, not one per build.
#[tokio::test]
async fn ctx_2_rules_over_the_cap_warn_once() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("CODE_LAW.md"), "rule\n".repeat(10_000)).unwrap();
    let (tx, rx) = mpsc::channel();
    let mut engine = Engine::builder(project.path()).events_to(tx).build().unwrap();
    engine.begin_round("go").await.unwrap();
    let window = engine.window();
    let _ = engine.window();
    let rules = window.context.rules().unwrap();
    assert!(rules.len() < 33 * 1024);
    assert!(rules.contains("project rules cut at 32768 bytes"));
    let warnings = rx
        .try_iter()
        .filter(|e| matches!(e, Event::RulesWarning(_)))
        .count();
    assert_eq!(warnings, 1);
}

/// HIST-10: with id hints on, the window names every message the model may
/// prune; pruning by a hinted id drops the whole step from the next window
/// (never half a pair), the full log keeps it, and the hints are counted.
#[tokio::test]
async fn hist_10_id_hints_name_messages_the_model_can_prune() {
    let project = tempfile::tempdir().unwrap();
    sample_project(project.path());
    let build = |hints: bool| {
        Engine::builder(project.path())
            .tools(tools())
            .id_hints(hints)
            .build()
            .unwrap()
    };
    let (mut hinted, mut plain) = (build(true), build(false));
    for engine in [&mut hinted, &mut plain] {
        engine.begin_round("What does seq print?").await.unwrap();
        let call = ToolCall::new("c1", "Bash", json!({"command": "seq 80"}));
        let result = Message::tool_result(&call, crate::agent::run_tool(project.path(), &call));
        engine
            .record_step(Message::assistant_with_calls("Look.", vec![call]), vec![result])
            .await
            .unwrap();
        engine.finish_round("80 lines.").unwrap();
        engine.begin_round("And seq 3?").await.unwrap();
    }
    let window = hinted.window();
    let text = window.render_react();
    let hints: Vec<&str> = text
        .match_indices("[message_id: ")
        .map(|(i, _)| &text[i + 13..i + text[i..].find(']').unwrap()])
        .collect();
    // user, assistant step, result, answer, the new input.
    assert_eq!(hints.len(), 5, "{text}");
    assert!(window.tokens > plain.window().tokens, "the hints are counted");
    assert!(!plain.window().render_react().contains("[message_id:"));

    // The model names the tool result: its step goes, its call with it.
    let outcome = hinted.prune(PruneAction::Append(vec![hints[2].to_owned()]));
    assert!(outcome.rejected.is_empty(), "{:?}", outcome.rejected);
    assert_eq!(outcome.hidden.len(), 2);
    let window = hinted.window();
    let roles: Vec<Role> = window.context.history().iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
    assert!(Pairs::new(&window.messages()).is_complete());
    assert_eq!(hinted.history().full_log().len(), 5);
}

/// TOOL-10: a custom rule that fails reaches an event; the generic rule
/// makes the history form, and nothing is dropped silently.
#[tokio::test]
async fn tool_10_failed_custom_rule_is_an_event() {
    let dir = tempfile::tempdir().unwrap();
    let mut compressor = strata_ctx::compress::Compressor::new();
    compressor.register(
        "Deploy",
        strata_ctx::rule_fn(|_: strata_ctx::types::RuleInput<'_>| {
            Err(strata_ctx::RuleError::new("no version line"))
        }),
    );
    let (tx, rx) = mpsc::channel();
    let mut e = Engine::builder(dir.path())
        .compressor(compressor)
        .events_to(tx)
        .build()
        .unwrap();
    e.begin_round("deploy it").await.unwrap();
    let call = ToolCall::new("d1", "Deploy", json!({}));
    e.record_step(
        Message::assistant_with_calls("", vec![call.clone()]),
        vec![Message::tool_result(
            &call,
            ToolResult::success("deployed\nall good"),
        )],
    )
    .await
    .unwrap();
    let failures: Vec<String> = rx
        .try_iter()
        .filter_map(|ev| match ev {
            Event::RuleFailed(f) => Some(f.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].contains("`Deploy`") && failures[0].contains("no version line"),
        "{failures:?}"
    );
}

/// MODEL-5: with the model's price, each recorded usage adds to the cost of
/// the call, the round and the session, as an event too; a new round
/// starts its cost at 0; without a price no cost is kept.
#[tokio::test]
async fn prov_2_cost_per_call_round_and_session() {
    let project = tempfile::tempdir().unwrap();
    let price = strata_ctx::PriceTable::builtin()
        .get("gpt-4o-2024-08-06")
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let mut engine = Engine::builder(project.path())
        .price(price)
        .events_to(tx)
        .build()
        .unwrap();
    let client = ScriptedClient::new();
    let mut cached = strata_ctx::Usage::new(1_000_000, 10_000);
    cached.cached_input_tokens = Some(500_000);
    client
        .push_text_with_usage(finish("one"), strata_ctx::Usage::new(1_000_000, 100_000))
        .push_text_with_usage(action("again", "Read", json!({"path": "a"})), cached)
        .push_text_with_usage(finish("two"), strata_ctx::Usage::new(0, 0));
    run_round(&mut engine, &client, project.path(), "first")
        .await
        .unwrap();
    let first = engine.cost().unwrap();
    // gpt-4o: $2.50 in, $10.00 out per million.
    assert!((first.call - (2.5 + 1.0)).abs() < 1e-9, "{first:?}");
    assert_eq!(first.round, first.call);
    run_round(&mut engine, &client, project.path(), "second")
        .await
        .unwrap();
    let second = engine.cost().unwrap();
    let cached_call = 0.5 * 2.5 + 0.5 * 1.25 + 0.01 * 10.0;
    assert!((second.round - cached_call).abs() < 1e-9, "{second:?}");
    assert_eq!(second.call, 0.0, "the last call reported nothing");
    assert!((second.session - (3.5 + cached_call)).abs() < 1e-9, "{second:?}");
    let costs: Vec<strata_ctx::Cost> = rx
        .try_iter()
        .filter_map(|e| match e {
            Event::CostRecorded(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(costs.len(), 3);
    assert_eq!(costs.last(), Some(&second));

    let plain = Engine::builder(project.path()).build().unwrap();
    assert_eq!(plain.cost(), None);
}

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use strata_ctx_core::{rounds, CharCounter, Config, Message, Pairs, Role, TokenAmount, ToolCall, Usage};
use strata_ctx_history::{is_cleared, History, Repair, CLEARED};
use strata_ctx_testkit::{load_transcript, text_of_len};

use crate::Fixed;

fn config(window: u64, retain: usize) -> Config {
    Config::builder()
        .context_window(TokenAmount::Tokens(window))
        .min_retain_rounds(retain)
        .build()
        .unwrap()
}

/// The summary message of the window.
fn summary_of(h: &History) -> Message {
    h.window()
        .iter()
        .find(|m| m.role == Role::Summary)
        .unwrap()
        .clone()
}

fn round(h: &mut History, n: usize, output: usize) {
    h.begin_round(Message::user(format!("task {n}")));
    // A tool of the generic rule, whose history form keeps 2,000 bytes.
    let call = ToolCall::new(format!("c{n}"), "fetch", json!({"url": format!("run {n}")}));
    h.record_step(
        Message::assistant_with_calls("checking", vec![call.clone()]),
        vec![Message::tool_text(
            &call.id,
            "fetch",
            text_of_len(output, n as u64),
        )],
    );
    h.finish_round(Message::assistant(format!("done {n}")));
}

/// Regression (HIST-4): after a compaction the old usage figure is stale
/// and the next step does not compact again because of it.
#[tokio::test]
async fn hist_4_stale_usage_does_not_retrigger() {
    let mut h = History::new(config(10_000, 2), Arc::new(CharCounter));
    for n in 0..6 {
        round(&mut h, n, 300);
    }
    h.record_usage(Usage::new(9_000, 100));
    assert!(h.needs_compaction());
    let stats = h.compact(&Fixed::ok()).await;
    assert!(stats.rounds_archived > 0 || stats.tokens_after <= stats.threshold_tokens);
    assert!(!h.needs_compaction(), "nothing new since the compaction");
    h.begin_round(Message::user("one more small question"));
    assert!(
        !h.needs_compaction(),
        "the stale 9,000 is not used: {}",
        h.estimated_tokens()
    );
    assert!(h.estimated_tokens() < 8_000);
}

/// HIST-4 / HIST-13: the trigger follows usage plus what was added since,
/// and can be switched off.
#[test]
fn hist_4_trigger_uses_usage_and_estimate_since() {
    let mut h = History::new(config(10_000, 2), Arc::new(CharCounter));
    round(&mut h, 0, 30);
    h.record_usage(Usage::new(7_900, 10));
    assert!(!h.needs_compaction());
    h.begin_round(Message::user("x".repeat(600)));
    assert_eq!(h.estimated_tokens(), 7_900 + 4 + 200);
    assert!(h.needs_compaction());
    assert!((h.usage_fraction() - 0.8104).abs() < 1e-9);
    let mut off = config(10_000, 2);
    off.auto_compact = false;
    let mut h2 = History::new(off, Arc::new(CharCounter));
    round(&mut h2, 0, 30);
    h2.record_usage(Usage::new(9_999, 1));
    assert!(!h2.needs_compaction());
}

/// HIST-7: a summariser that fails or is too slow degrades to the notice.
#[tokio::test(start_paused = true)]
async fn hist_7_degraded_summary() {
    for (summarizer, notice) in [
        (Fixed { delay: Duration::from_secs(500), fail: false }, "Summary generation timed out, keeping recent history only."),
        (Fixed { delay: Duration::ZERO, fail: true }, "Summary generation failed (the model provider failed with status 503: overloaded), keeping recent history only."),
    ] {
        let mut h = History::new(config(4_000, 2), Arc::new(CharCounter));
        for n in 0..8 {
            round(&mut h, n, 2_400);
        }
        let stats = h.compact(&summarizer).await;
        assert!(stats.degraded);
        assert_eq!(h.window()[0].role, Role::Summary);
        // #30.5: the notice says where the archived messages are.
        let archived = h.full_log()[0].id.short();
        let text = h.window()[0].content.to_string();
        assert!(
            text.starts_with(&format!("{notice}\n\n[The archived messages are in the full log: recall {archived} to ")),
            "{text}"
        );
        assert_eq!(h.full_log().len(), 32);
        assert!(Pairs::new(&h.window()).is_complete());
    }
}

/// HIST-7: `NoSummarizer` is a degraded mode chosen, not a failure: the
/// summariser is not called, nothing waits, the notice says so, and the
/// next compaction replaces the notice rather than stacking another.
#[tokio::test(start_paused = true)]
async fn hist_7_no_summarizer_is_a_mode_not_a_failure() {
    let mut h = History::new(config(4_000, 2), Arc::new(CharCounter));
    for n in 0..8 {
        round(&mut h, n, 2_400);
    }
    let started = tokio::time::Instant::now();
    let stats = h.compact(&strata_ctx_core::NoSummarizer).await;
    assert_eq!(started.elapsed(), Duration::ZERO, "no time limit waited out");
    assert!(stats.degraded && stats.rounds_archived > 0);
    assert_eq!(
        stats.degraded_reason.as_deref(),
        Some("no summariser is configured")
    );
    let window = h.window();
    assert_eq!(window[0].role, Role::Summary);
    assert!(
        window[0].content.starts_with(
            "Summary generation is off (no summariser is configured), keeping recent history only."
        ),
        "{}",
        window[0].content
    );
    assert!(Pairs::new(&window).is_complete());
    for n in 8..16 {
        round(&mut h, n, 2_400);
    }
    h.compact(&strata_ctx_core::NoSummarizer).await;
    let notices = h.window().iter().filter(|m| m.role == Role::Summary).count();
    assert_eq!(notices, 1, "the earlier notice is replaced");
}

/// HIST-6: one round of 120 steps cannot be archived; its oldest tool
/// results are cleared, the newest six stay, pairs stay whole.
#[tokio::test]
async fn hist_6_single_long_round_is_cleared_oldest_first() {
    let mut h = History::new(config(16_000, 10), Arc::new(CharCounter));
    h.begin_round(Message::user("fix the bug"));
    for n in 0..120 {
        let call = ToolCall::new(format!("c{n}"), "bash", json!({"command": format!("step {n}")}));
        h.record_step(
            Message::assistant_with_calls("", vec![call.clone()]),
            // Output in which nothing went wrong: a cleared result keeps
            // its handle alone.
            vec![Message::tool_text(
                &call.id,
                "bash",
                text_of_len(1_500, n).replace("error", "entry"),
            )],
        );
    }
    let stats = h.compact(&Fixed::ok()).await;
    assert_eq!(stats.rounds_archived, 0);
    assert!(stats.tool_results_cleared > 0);
    assert!(!stats.over_budget);
    assert!(h.window_tokens() <= h.room_tokens());
    let window = h.window();
    let tools: Vec<&Message> = window.iter().filter(|m| m.role == Role::Tool).collect();
    assert_eq!(tools.len(), 120);
    assert!(tools[..6].iter().all(|m| is_cleared(m)));
    // #30.5: a cleared result says how to get it back.
    assert_eq!(
        tools[0].content.as_ref(),
        format!(
            "{}; recall {}]",
            CLEARED.trim_end_matches(']'),
            tools[0].id.short()
        )
    );
    assert!(tools[114..].iter().all(|m| !is_cleared(m)));
    assert!(Pairs::new(&h.window()).is_complete());
    assert_eq!(h.window()[0].content, "fix the bug");
}

/// HIST-6, #30.3: a failing command's result cleared to fit the budget
/// keeps its exit status and last error under the recall handle, so a
/// long round that closes loses no error it met; a passing one keeps the
/// handle alone.
#[tokio::test]
async fn hist_6_a_cleared_failure_keeps_its_outcome_and_last_error() {
    let mut h = History::new(config(16_000, 10), Arc::new(CharCounter));
    h.begin_round(Message::user("fix the bug"));
    for n in 0..150 {
        let call = ToolCall::new(
            format!("c{n}"),
            "bash",
            json!({"command": format!("python check_{n}.py")}),
        );
        let rows: String = (0..120)
            .map(|i| format!("row {i} of check {n}: {}\n", i * 7919 % 1000))
            .collect();
        let output = match n % 3 {
            0 => format!(
                "{rows}Traceback (most recent call last):\n  File \"check_{n}.py\", line 3, in <module>\n    import numpy\nModuleNotFoundError: No module named 'numpy{n}'\n<returncode>1</returncode>"
            ),
            _ => format!("{rows}all good\n<returncode>0</returncode>"),
        };
        h.record_step(
            Message::assistant_with_calls("", vec![call.clone()]),
            vec![Message::tool_text(&call.id, "bash", output)],
        );
    }
    let stats = h.compact(&Fixed::ok()).await;
    assert!(stats.tool_results_cleared > 10, "{stats:?}");
    assert!(h.window_tokens() <= h.room_tokens());
    let window = h.window();
    let tools: Vec<&Message> = window.iter().filter(|m| m.role == Role::Tool).collect();
    assert!(is_cleared(tools[0]) && is_cleared(tools[1]));
    assert_eq!(
        tools[0].content.as_ref(),
        format!(
            "{}; recall {}]\nexit 1; last error: ModuleNotFoundError: No module named 'numpy0'",
            CLEARED.trim_end_matches(']'),
            tools[0].id.short()
        )
    );
    assert_eq!(
        tools[1].content.as_ref(),
        format!(
            "{}; recall {}]",
            CLEARED.trim_end_matches(']'),
            tools[1].id.short()
        )
    );
    assert!(Pairs::new(&h.window()).is_complete());
}

/// HIST-14, HIST-16: `keep_tool_messages` is a preference that yields to
/// the budget: when the newest results alone do not fit, they are cleared
/// too, oldest first, and the window fits.
#[tokio::test]
async fn hist_14_kept_results_yield_to_the_budget() {
    let mut h = History::new(config(2_000, 10), Arc::new(CharCounter));
    h.begin_round(Message::user("go"));
    for n in 0..8 {
        let call = ToolCall::new(format!("c{n}"), "mystery", json!({}));
        h.record_step(
            Message::assistant_with_calls("", vec![call.clone()]),
            vec![Message::tool_text(&call.id, "mystery", text_of_len(1_900, n))],
        );
    }
    let stats = h.compact(&Fixed::ok()).await;
    assert!(!stats.over_budget, "{stats:?}");
    assert!(h.window_tokens() <= h.room_tokens());
    let window = h.window();
    let tools: Vec<&Message> = window.iter().filter(|m| m.role == Role::Tool).collect();
    assert!(is_cleared(tools.first().unwrap()));
    assert!(
        !is_cleared(tools.last().unwrap()),
        "the newest stays while it fits"
    );
    assert!(Pairs::new(&window).is_complete());
}

/// HIST-15: a protected tool's results are never cleared.
#[tokio::test]
async fn hist_15_protected_tools_are_never_cleared() {
    let mut h = History::new(config(2_000, 10), Arc::new(CharCounter));
    h.set_protected_tools(["Plan"]);
    h.begin_round(Message::user("go"));
    for n in 0..8 {
        let name = if n == 0 { "plan" } else { "mystery" };
        let call = ToolCall::new(format!("c{n}"), name, json!({}));
        h.record_step(
            Message::assistant_with_calls("", vec![call.clone()]),
            vec![Message::tool_text(&call.id, name, text_of_len(700, n))],
        );
    }
    h.compact(&Fixed::ok()).await;
    let window = h.window();
    let plan = window
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some("c0"))
        .unwrap();
    assert!(!is_cleared(plan));
    assert!(window.iter().any(is_cleared));
}

/// HIST-16: long user messages of earlier rounds shrink when the budget
/// needs it; the task in progress stays whole. When even that is not
/// enough, the caller is told.
#[tokio::test]
async fn hist_16_old_user_messages_shrink_and_over_budget_is_reported() {
    let mut h = History::new(config(3_000, 10), Arc::new(CharCounter));
    let old_task = format!("First task. {}", "Background detail. ".repeat(400));
    h.begin_round(Message::user(old_task.clone()));
    h.finish_round(Message::assistant("done"));
    let task = format!("Second task. {}", "More detail here. ".repeat(100));
    h.begin_round(Message::user(task.clone()));
    let stats = h.compact(&Fixed::ok()).await;
    let window = h.window();
    let first = window
        .iter()
        .find(|m| m.content.starts_with("First task."))
        .unwrap();
    assert!(first.content.contains("characters left out"), "{}", first.content);
    assert!(first.content.chars().count() < 2_100);
    assert!(
        window.iter().any(|m| m.content == task),
        "the task in progress stays whole"
    );
    assert!(!stats.over_budget && h.window_tokens() <= h.room_tokens());

    let mut h = History::new(config(2_000, 10), Arc::new(CharCounter));
    h.begin_round(Message::user("x".repeat(9_000)));
    let stats = h.compact(&Fixed::ok()).await;
    assert!(stats.over_budget && stats.tokens_after > stats.threshold_tokens);
}

/// HIST-2 on a real transcript whose last call never got a result.
#[test]
fn hist_2_real_transcript_with_interrupted_call() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/corpus/mini-swe-agent__deepseek_reasoner_dev__pvlib__pvlib-python-1072.json"
    );
    let mut messages = load_transcript(path).unwrap().messages;
    // Drop the last result to make the final call an orphan, as in half the corpus.
    let last_tool = messages.iter().rposition(|m| m.role == Role::Tool).unwrap();
    messages.truncate(last_tool);
    let (h, repairs) = History::from_messages(Config::default(), Arc::new(CharCounter), messages.clone());
    assert!(matches!(repairs.as_slice(), [Repair::Interrupted { .. }]));
    assert!(Pairs::new(&h.window()).is_complete());
    assert_eq!(h.full_log(), messages.as_slice());
    assert!(
        h.window().iter().all(|m| m.role != Role::System),
        "HIST-1: no L1 in the history"
    );
    assert_eq!(rounds(&h.window()).len(), 1);
}

/// HIST-8: a target summarises one side of the old rounds and keeps the
/// other verbatim, never splitting a step.
#[tokio::test]
async fn hist_8_compaction_targets() {
    use strata_ctx_core::CompactionTarget;
    for target in [CompactionTarget::User, CompactionTarget::Assistant] {
        let mut c = config(4_000, 2);
        c.compaction_target = target;
        let mut h = History::new(c, Arc::new(CharCounter));
        for n in 0..8 {
            round(&mut h, n, 2_400);
        }
        let stats = h.compact(&Fixed::ok()).await;
        assert!(stats.rounds_archived > 0, "{stats:?}");
        let window = h.window();
        assert!(Pairs::new(&window).is_complete());
        let old_user = window.iter().any(|m| m.content == "task 0");
        let old_answer = window.iter().any(|m| m.content == "done 0");
        match target {
            CompactionTarget::User => assert!(!old_user && old_answer),
            _ => assert!(old_user && !old_answer),
        }
        assert_eq!(window[0].role, Role::Summary);
    }
}

/// HIST-7: the summariser's progress reaches the embedder during a
/// compaction, and the LLM summary lands in the window with its header.
#[tokio::test]
async fn hist_7_progress_is_reported() {
    use std::sync::Mutex;
    use strata_ctx_core::SummaryProgress;
    let client = strata_ctx_testkit::ScriptedClient::new();
    client.push_text("* **Original Goal**: eight tasks.");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let mut h = History::new(config(4_000, 2), Arc::new(CharCounter));
    for n in 0..8 {
        round(&mut h, n, 2_400);
    }
    let summarizer = strata_ctx_summary::LlmSummarizer::new(Arc::new(client))
        .with_progress(Arc::new(move |p| sink.lock().unwrap().push(p)));
    let stats = h.compact(&summarizer).await;
    assert!(!stats.degraded);
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        &[SummaryProgress::ChunkStarted { chunk: 1, chunks: 1 }]
    );
    assert!(h.window()[0]
        .content
        .starts_with("## 📌 Archived Session Summary\n*(Contains context from"));
}

/// REACT-6: the change tracker feeds the summary: the summariser is given
/// the facts of the archived steps (files changed, commands and their last
/// errors), and a failed summary's notice carries them.
#[tokio::test]
async fn react_6_change_tracker_feeds_the_summary() {
    use std::sync::Mutex;
    struct Capture(Mutex<Vec<Message>>);
    #[strata_ctx_core::async_trait]
    impl strata_ctx_core::Summarizer for Capture {
        async fn summarize(&self, messages: &[Message]) -> strata_ctx_core::LlmResult<String> {
            *self.0.lock().unwrap() = messages.to_vec();
            Ok("summary".into())
        }
    }
    let build = || {
        let mut h = History::new(config(1_500, 1), Arc::new(CharCounter));
        for n in 0..6 {
            h.begin_round(Message::user(format!("task {n}")));
            let call = ToolCall::new(
                format!("c{n}"),
                "bash",
                json!({"command": format!("sed -i 's/a/b/' src/m{n}.py && python run_{n}.py")}),
            );
            h.record_step(
                Message::assistant_with_calls("", vec![call.clone()]),
                vec![Message::tool_text(
                    &call.id,
                    "bash",
                    // Plain lines above the error: the filler of
                    // `text_of_len` is all failure lines, and each would
                    // compete to be the last error.
                    format!(
                        "{}\nValueError: round {n} failed here",
                        text_of_len(2_000, n as u64).replace("error", "entry")
                    ),
                )],
            );
            h.finish_round(Message::assistant(format!("done {n}")));
        }
        h
    };
    let capture = Capture(Mutex::new(Vec::new()));
    let mut h = build();
    let stats = h.compact(&capture).await;
    assert!(stats.rounds_archived > 0 && !stats.degraded);
    let input = capture.0.lock().unwrap().clone();
    let facts = input.last().unwrap();
    assert_eq!(facts.role, Role::System);
    assert!(
        facts.content.starts_with("Facts of the archived steps"),
        "{}",
        facts.content
    );
    assert!(
        facts.content.contains("src/m0.py") && facts.content.contains("ValueError: round 0 failed here"),
        "{}",
        facts.content
    );

    let mut h = build();
    h.compact(&Fixed {
        delay: Duration::ZERO,
        fail: true,
    })
    .await;
    let notice = h.window()[0].content.clone();
    assert!(
        notice.starts_with("Summary generation failed") && notice.contains("python run_0.py"),
        "{notice}"
    );
}

/// #30.6: a summary that leaves out working facts of the archived rounds
/// gets them appended from the change tracker, and the statistics say how
/// many were checked and added; a summary that keeps them is left as it is.
#[tokio::test]
async fn a_vague_summary_gets_the_facts_it_left_out() {
    let mut h = History::new(config(3_000, 1), Arc::new(CharCounter));
    h.begin_round(Message::user("Fix the date parser. Never change the public API."));
    let edit = ToolCall::new(
        "e1",
        "Edit",
        json!({"file_path": "src/dates.rs", "old_string": "% 100", "new_string": "% 400"}),
    );
    h.record_step(
        Message::assistant_with_calls("", vec![edit.clone()]),
        vec![Message::tool_text(&edit.id, "Edit", "ok")],
    );
    let test = ToolCall::new("t1", "Bash", json!({"command": "cargo test -q"}));
    h.record_step(
        Message::assistant_with_calls("", vec![test.clone()]),
        vec![Message::tool_text(
            &test.id,
            "Bash",
            "thread 'dates::leap' panicked at src/dates.rs:40:5:\nassertion failed: is_leap(2000)\ntest result: FAILED. 11 passed; 1 failed\nerror: test failed, to rerun pass `--lib`",
        )],
    );
    h.finish_round(Message::assistant("The leap test still fails."));
    for n in 1..6 {
        round(&mut h, n, 2_000);
    }
    let stats = h.compact(&Fixed::ok()).await;
    assert!(stats.rounds_archived > 0);
    assert_eq!(
        stats.summary_facts, 3,
        "the file, the failing command, the constraint"
    );
    assert_eq!(stats.summary_facts_added, 3);
    let summary = summary_of(&h);
    assert!(
        summary.content.contains(
            "\n\n### Facts from the change tracker the summary left out\n- File changed: src/dates.rs\n- Failed: `cargo test -q` → test result: FAILED. 11 passed; 1 failed; error: test failed, to rerun pass `--lib` — last error: thread 'dates::leap' panicked at src/dates.rs:40:5: assertion failed: is_leap(2000)\n- The user said: Never change the public API\n\n[The archived messages are in the full log: recall "
        ),
        "{}",
        summary.content
    );

    // A summary that holds the facts gets nothing appended.
    struct Thorough;
    #[strata_ctx_core::async_trait]
    impl strata_ctx_core::Summarizer for Thorough {
        async fn summarize(&self, _: &[Message]) -> strata_ctx_core::LlmResult<String> {
            Ok("Changed src/dates.rs. `cargo test -q` failed: thread 'dates::leap' panicked at src/dates.rs:40:5: assertion failed: is_leap(2000) (test result: FAILED. 11 passed; 1 failed). Never change the public API".into())
        }
    }
    for n in 6..12 {
        round(&mut h, n, 2_000);
    }
    let stats = h.compact(&Thorough).await;
    assert_eq!(stats.summary_facts, 3);
    assert_eq!(stats.summary_facts_added, 0);
    let summary = summary_of(&h);
    assert!(!summary.content.contains("left out"), "{}", summary.content);
}

/// #30.7: pinned messages survive compaction verbatim and are never
/// cleared; pinning a result pins its call; the pins are recorded, so a
/// rebuilt history has them; unpinned, they are archived like the rest.
#[tokio::test]
async fn pinned_messages_survive_compaction_and_are_never_cleared() {
    let mut h = History::new(config(3_000, 1), Arc::new(CharCounter));
    h.set_recording(true);
    let rule = Message::user("Never push to main. Fix the parser.").pinned();
    h.begin_round(rule.clone());
    let skill = ToolCall::new("s1", "load_skill", json!({"name": "release"}));
    let skill_text = text_of_len(2_500, 7);
    h.record_step(
        Message::assistant_with_calls("", vec![skill.clone()]),
        vec![Message::tool_text(&skill.id, "load_skill", skill_text.clone())],
    );
    h.finish_round(Message::assistant("ready"));
    let result_id = h
        .window()
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some("s1"))
        .unwrap()
        .id;
    let outcome = h.pin(&[result_id.to_string()], true);
    assert!(outcome.rejected.is_empty());
    assert_eq!(outcome.changed.len(), 2, "the result and its call");
    for n in 1..6 {
        round(&mut h, n, 2_000);
    }
    let stats = h.compact(&Fixed::ok()).await;
    assert!(stats.rounds_archived >= 3, "{stats:?}");
    let window = h.window().into_owned();
    assert!(window
        .iter()
        .any(|m| m.id == rule.id && m.content == rule.content));
    let kept = window
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some("s1"))
        .unwrap();
    assert_eq!(
        kept.text(),
        skill_text,
        "verbatim: neither history form nor cleared"
    );
    assert!(window.iter().any(|m| m.tool_calls.iter().any(|c| c.id == "s1")));
    assert!(Pairs::new(&window).is_complete(), "pairs stay whole");

    // The records rebuild the pins.
    let records = h.take_records();
    let rebuilt = History::replay(config(3_000, 1), Arc::new(CharCounter), records);
    assert_eq!(rebuilt.window().into_owned(), window);

    // Unpinned, the skill goes with the next compaction.
    h.pin(&[result_id.to_string()], false);
    for n in 6..12 {
        round(&mut h, n, 2_000);
    }
    h.compact(&Fixed::ok()).await;
    assert!(!h.window().iter().any(|m| m.tool_call_id.as_deref() == Some("s1")));
    assert!(
        h.window().iter().any(|m| m.id == rule.id),
        "the user's rule is still pinned"
    );
    // Summaries are not pinned.
    let summary = h.window().iter().find(|m| m.role == Role::Summary).unwrap().id;
    assert_eq!(h.pin(&[summary.to_string()], true).rejected.len(), 1);
}

/// A round of 150 shell steps, each printing `lines` lines; step `n`
/// fails with its own error when `n % 10 == 9`.
fn long_round(h: &mut History, lines: usize) {
    h.begin_round(Message::user("fix the bug"));
    for n in 0..150 {
        let call = ToolCall::new(
            format!("c{n}"),
            "bash",
            json!({"command": format!("python check_{n}.py")}),
        );
        let mut out: String = (0..lines)
            .map(|i| format!("checking item {i} of step {n}\n"))
            .collect();
        if n % 10 == 9 {
            out.push_str(&format!("ValueError: step {n} found a bad item\n"));
        }
        h.record_step(
            Message::assistant_with_calls(format!("Now step {n}."), vec![call.clone()]),
            vec![Message::tool_text(&call.id, "bash", out)],
        );
    }
    h.finish_round(Message::assistant("The bug is fixed in parse.py."));
}

/// HIST-3, HIST-14, HIST-18: when the user writes again after a round too
/// long to keep and the budget cannot wait, the round is archived on its
/// boundary, and the summary quotes where it stopped: its last steps in
/// history form, oldest first, and its final answer, within the room the
/// new round leaves. The window stays under the budget.
#[tokio::test]
async fn an_archived_round_too_long_to_keep_leaves_its_last_steps_in_the_summary() {
    let mut h = History::new(config(16_000, 10), Arc::new(CharCounter));
    long_round(&mut h, 10);
    h.begin_round(Message::user("and now the docs"));
    let stats = h
        .compact_after_overflow(&strata_ctx_core::NoSummarizer)
        .await
        .unwrap();
    assert_eq!((stats.rounds_archived, stats.rounds_retained), (1, 0));
    assert!(stats.tokens_before > 3 * stats.tokens_after, "{stats:?}");
    assert!(!stats.over_budget);
    assert!(h.window_tokens() <= h.room_tokens());
    let summary = summary_of(&h).content.to_string();
    let (_, tail) = summary
        .split_once("### Where the archived work stopped")
        .expect("the summary quotes the last steps");
    // The newest step and the newest failure, with the command that made it.
    assert!(tail.contains("$ python check_149.py"), "{tail}");
    assert!(tail.contains("$ python check_139.py\n"), "{tail}");
    assert!(tail.contains("ValueError: step 139 found a bad item"), "{tail}");
    // Oldest first, and the answer last.
    let at = |s: &str| tail.find(s).unwrap();
    assert!(at("check_139.py") < at("check_149.py"));
    assert!(tail.contains("Answer: The bug is fixed in parse.py."));
    assert!(at("check_149.py") < at("Answer:"));
    // Only the round's last steps: the quote is bounded by the room.
    assert!(!tail.contains("$ python check_0.py\n"));
    let quoted = tail.matches("\n$ python check_").count();
    assert!((3..150).contains(&quoted), "{quoted} steps quoted");
    assert!(tail.len() <= 16_000 / 6 * 3, "{} characters", tail.len());
    // The new round is whole after the summary.
    assert_eq!(h.window().last().unwrap().content, "and now the docs");
}

/// The quote is only for a summary with no complete round after it: while
/// rounds stay in the window, they show where the work stands.
#[tokio::test]
async fn a_summary_followed_by_kept_rounds_quotes_no_steps() {
    let mut h = History::new(config(16_000, 1), Arc::new(CharCounter));
    long_round(&mut h, 10);
    round(&mut h, 1, 300);
    h.begin_round(Message::user("and now the docs"));
    let stats = h.compact(&Fixed::ok()).await;
    assert_eq!((stats.rounds_archived, stats.rounds_retained), (1, 1));
    let summary = summary_of(&h).content.to_string();
    assert!(!summary.contains("Where the archived work stopped"), "{summary}");
}

/// The quote takes half of the room the new round leaves: a long new input
/// leaves it less.
#[tokio::test]
async fn the_quoted_steps_take_half_of_the_room_the_new_round_leaves() {
    use strata_ctx_core::TokenCounter;
    let mut h = History::new(config(16_000, 10), Arc::new(CharCounter));
    long_round(&mut h, 10);
    let input = Message::user("explain this log:\n".to_owned() + &"a line of the log\n".repeat(1_200));
    let input_tokens = CharCounter.count_message(&input);
    h.begin_round(input);
    let room = h.room_tokens();
    h.compact_after_overflow(&strata_ctx_core::NoSummarizer)
        .await
        .unwrap();
    let summary = summary_of(&h).content.to_string();
    let start = summary.find("### Where the archived work stopped").unwrap();
    let end = summary
        .find("\n\n[The archived messages are in the full log")
        .unwrap();
    let quoted = end - start;
    // Half of what the input and the summary's reserve leave.
    let reserve = strata_ctx_history::Budget::summary_reserve(room);
    let half = (room - input_tokens - reserve) / 2 * 3;
    assert!(half < room / 6 * 3, "the input leaves less than the facts' share");
    assert!(
        quoted <= half && quoted * 2 > half,
        "{quoted} of {half} characters"
    );
    assert!(h.window_tokens() <= room);
}

/// HIST-14: the quoted last steps leave the summary on request, once; the
/// rest of the summary stays, the window shrinks, and a history rebuilt
/// from its records holds the same window.
#[tokio::test]
async fn the_quoted_steps_leave_the_summary_and_a_rebuilt_history_agrees() {
    let mut h = History::new(config(16_000, 10), Arc::new(CharCounter));
    h.set_recording(true);
    long_round(&mut h, 10);
    h.begin_round(Message::user("and now the docs"));
    h.compact_after_overflow(&strata_ctx_core::NoSummarizer)
        .await
        .unwrap();
    let before = h.window_tokens();
    let quoted = summary_of(&h).content.to_string();
    assert!(quoted.contains("### Where the archived work stopped"));
    assert!(h.drop_quoted_steps());
    let summary = summary_of(&h).content.to_string();
    assert!(
        !summary.contains("### Where the archived work stopped"),
        "{summary}"
    );
    let (kept, _) = quoted
        .split_once("\n\n### Where the archived work stopped")
        .unwrap();
    assert!(summary.starts_with(kept), "{summary}");
    assert!(summary.contains("[The archived messages are in the full log: "));
    assert!(h.window_tokens() < before);
    assert!(!h.drop_quoted_steps(), "nothing left to drop");
    let replayed = History::replay(config(16_000, 10), Arc::new(CharCounter), h.take_records());
    assert_eq!(replayed.window(), h.window());
}

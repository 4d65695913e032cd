//! REACT-5, HIST-2, REACT-3 on real transcripts: each one is fed through
//! the engine step by step with a 16k and a 32k token window.
//!
//! The transcripts in `tests/data/corpus/` always run; set
//! `STRATA_CORPUS_DIR` to a directory of more (such as the whole collection
//! they come from) to replay those too.

use std::path::PathBuf;

use strata_ctx::{Config, Engine, Message, Pairs, Role, Window};
use strata_ctx_testkit::load_transcript;

use crate::workspace_path;

/// What one replay saw.
#[derive(Debug, Default)]
struct Figures {
    steps: usize,
    rounds: usize,
    max_tokens: usize,
    over_budget_steps: usize,
    condensed: usize,
    cleared: usize,
    omitted: usize,
}

/// The newest steps REACT-5 keeps in full.
const KEEP_FULL: usize = 5;

fn check_window(window: &Window, user: &str, name: &str, figures: &mut Figures) {
    let messages = window.messages();
    let pairs = Pairs::new(&messages);
    assert!(pairs.is_complete(), "{name}: split pair {:?}", pairs.issues());
    let input = window
        .context
        .input()
        .expect("the round's input is in the window");
    assert!(input.content.starts_with(user), "{name}: input changed");
    figures.max_tokens = figures.max_tokens.max(window.tokens);
    if window.tokens > window.threshold {
        assert!(
            window.over_budget,
            "{name}: {} > {} unflagged",
            window.tokens, window.threshold
        );
        figures.over_budget_steps += 1;
        // Flagged only when the newest steps alone are left.
        let steps = window
            .context
            .scratchpad()
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count();
        assert!(steps <= KEEP_FULL, "{name}: over budget with {steps} steps shown");
    } else {
        assert!(!window.over_budget, "{name}: flagged under the threshold");
    }
    // Old steps are condensed before newer ones: a cleared result never
    // follows one that is not, and the newest results are never cleared.
    let tools: Vec<&Message> = window
        .context
        .scratchpad()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .collect();
    // A result no longer than what clearing it would leave (the marker,
    // its recall handle and the outcome of a command that went wrong) is
    // never cleared: it says nothing about the order.
    let calls: Vec<&strata_ctx::ToolCall> = window
        .context
        .scratchpad()
        .iter()
        .flat_map(|m| m.tool_calls.iter())
        .collect();
    // A call whose arguments were cut (`"{\"command\":\"cd /testbed && cat
    // > /tmp/a.py ……"`) is a cleared step's: its command is no longer
    // there to say what came of it, so whether its result would clear
    // cannot be told from the window; the engine told it from the whole
    // call.
    let would_clear = |m: &Message| {
        let call = calls
            .iter()
            .find(|c| Some(c.id.as_str()) == m.tool_call_id.as_deref())
            .copied();
        let cut =
            call.is_some_and(|c| matches!(&*c.arguments, serde_json::Value::String(s) if s.ends_with('…')));
        !cut && strata_ctx::history::clear_result(&mut m.clone(), call)
    };
    let ordered: Vec<bool> = tools
        .iter()
        .filter(|m| strata_ctx::history::is_cleared(m) || would_clear(m))
        .map(|m| strata_ctx::history::is_cleared(m))
        .collect();
    if let Some(kept) = ordered.iter().position(|cleared| !cleared) {
        assert!(
            !ordered[kept..].contains(&true),
            "{name}: a newer result cleared first"
        );
    }
    let newest = tools.len().min(KEEP_FULL);
    assert!(
        !tools[tools.len() - newest..]
            .iter()
            .any(|m| strata_ctx::history::is_cleared(m)),
        "{name}: a newest result cleared"
    );
}

/// Feeds `messages` through an engine with [`strata_ctx::replay::replay`],
/// checking the window after every step.
async fn replay(messages: &[Message], window: u64, name: &str) -> Figures {
    let project = tempfile::tempdir().unwrap();
    let config = Config::from_toml_str(&format!("context_window = {window}")).unwrap();
    let system = messages
        .iter()
        .find(|m| m.role == Role::System)
        .map(|m| m.content.clone())
        .unwrap_or_else(|| "You are a coding agent.".into());
    let mut engine = Engine::builder(project.path())
        .config(config)
        .system_prompt(system)
        .build()
        .unwrap();
    let mut figures = Figures::default();
    let summary = strata_ctx::replay::replay(&mut engine, messages, |step, window| {
        let user = round_input(messages, step.round);
        check_window(window, &user, name, &mut figures);
        assert!(
            step.pairs_intact && step.input_present,
            "{name}: step {}",
            step.step
        );
        figures.condensed += step.condensed;
        figures.cleared += step.cleared;
        figures.omitted += step.omitted;
    })
    .await
    .unwrap();
    assert_eq!(summary.broken_steps, 0);
    assert_eq!(summary.over_budget_steps, figures.over_budget_steps);
    figures.steps = summary.steps;
    figures.rounds = summary.rounds;
    figures
}

/// The text of the `round`-th user message, from 1.
fn round_input(messages: &[Message], round: usize) -> String {
    messages
        .iter()
        .filter(|m| m.role == Role::User)
        .nth(round - 1)
        .map(|m| m.content.to_string())
        .unwrap_or_default()
}

fn transcripts() -> Vec<PathBuf> {
    let mut dirs = vec![workspace_path("tests/data/corpus")];
    if let Some(extra) = std::env::var_os("STRATA_CORPUS_DIR") {
        dirs.push(PathBuf::from(extra));
    }
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[tokio::test]
async fn react_5_real_transcripts_stay_under_the_threshold() {
    let mut total = Figures::default();
    for path in transcripts() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let messages = load_transcript(&path).unwrap().messages;
        for window in [16_000, 32_000] {
            let f = replay(&messages, window, &format!("{name}@{window}")).await;
            eprintln!(
                "{name} @{window}: {} steps, {} rounds, max {} tokens, {} over budget, {} condensed, {} cleared, {} omitted",
                f.steps, f.rounds, f.max_tokens, f.over_budget_steps, f.condensed, f.cleared, f.omitted
            );
            assert!(f.rounds >= 1 && f.steps >= 1, "{name}: nothing replayed");
            total.steps += f.steps;
            total.over_budget_steps += f.over_budget_steps;
            total.condensed += f.condensed;
            total.cleared += f.cleared;
            total.omitted += f.omitted;
        }
    }
    eprintln!(
        "total: {} steps, {} over budget, {} condensed, {} cleared, {} omitted",
        total.steps, total.over_budget_steps, total.condensed, total.cleared, total.omitted
    );
    // The long sessions do not fit a 16k window without condensing.
    assert!(total.condensed > 0);
}

/// The transcript whose failing scripts the cleared-result tests read.
const FAILING_SCRIPTS: &str =
    "tests/data/corpus/mini-swe-agent__deepseek_chat_dev__pydicom__pydicom-1139.json";

/// Checks that every cleared result among `shown` keeps the outcome note
/// of its command as the digest reads it from `messages`, and that no
/// other says `last error:`; returns how many kept one.
fn cleared_failures(messages: &[Message], shown: &[Message]) -> usize {
    let calls: Vec<&strata_ctx::ToolCall> = messages.iter().flat_map(|m| m.tool_calls.iter()).collect();
    let outcome = |id: &str| {
        let result = messages
            .iter()
            .find(|m| m.role == Role::Tool && m.tool_call_id.as_deref() == Some(id))?;
        let call = calls.iter().find(|c| c.id == id)?;
        strata_ctx::history::outcome_note(call, result)
    };
    let mut failures = 0;
    for m in shown.iter().filter(|m| strata_ctx::history::is_cleared(m)) {
        let text = match &m.result {
            Some(r) if m.content.is_empty() => r.data.as_str().unwrap_or_default().to_owned(),
            _ => m.content.to_string(),
        };
        let Some(note) = outcome(m.tool_call_id.as_deref().unwrap()) else {
            assert!(!text.contains("last error:"), "{text}");
            continue;
        };
        failures += 1;
        // The note is read from the history form, which may have cut a
        // long line: its outcome and the start of its error are the same.
        let (outcome, error) = note.split_once("last error: ").unwrap_or((&note, ""));
        let start: String = error.chars().take(60).collect();
        assert!(
            text.contains(&format!("]\n{outcome}")) && text.contains(&start),
            "{text} lacks {note}"
        );
    }
    failures
}

/// HIST-6, #30.3: a long round that closes (the user writes again) keeps
/// the errors it met. Its steps come back into the history with their
/// results cleared; each cleared result of a command that went wrong keeps
/// its outcome and last error under its recall handle.
#[tokio::test]
async fn hist_6_a_long_round_that_closes_keeps_the_errors_it_met() {
    let mut messages = load_transcript(workspace_path(FAILING_SCRIPTS)).unwrap().messages;
    // The run stopped on a call without a result; the user writes again.
    messages.push(Message::user("Thanks. Which files did you change, and why?"));
    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path())
        .config(Config::from_toml_str("context_window = 16000").unwrap())
        .build()
        .unwrap();
    let summary = strata_ctx::replay::replay(&mut engine, &messages, |_, _| {})
        .await
        .unwrap();
    assert_eq!(summary.rounds, 2);
    let window = engine.window();
    assert!(
        window.tokens <= window.threshold,
        "{} > {}",
        window.tokens,
        window.threshold
    );
    let failures = cleared_failures(&messages, &window.messages());
    assert!(failures >= 5, "{failures} cleared failures");
}

/// REACT-5, HIST-6: within a round, a step whose results are cleared to
/// fit keeps the outcome and last error of each command that went wrong.
#[tokio::test]
async fn react_5_a_cleared_step_keeps_the_errors_of_its_commands() {
    let messages = load_transcript(workspace_path(FAILING_SCRIPTS)).unwrap().messages;
    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path())
        .config(Config::from_toml_str("context_window = 16000").unwrap())
        .build()
        .unwrap();
    let mut failures = 0;
    strata_ctx::replay::replay(&mut engine, &messages, |_, window| {
        failures += cleared_failures(&messages, window.context.scratchpad());
    })
    .await
    .unwrap();
    assert!(failures >= 5, "{failures} cleared failures seen mid-round");
}

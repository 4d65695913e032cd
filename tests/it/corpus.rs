use strata_ctx::{rounds, Message, Pairs, Role};
use strata_ctx_testkit::load_transcript;

use crate::workspace_path;

fn load(name: &str) -> Vec<Message> {
    load_transcript(workspace_path(&format!("tests/data/corpus/{name}")))
        .unwrap()
        .messages
}

/// CORE-4 and HIST-2 on a real Claude Code session: three user messages,
/// parallel calls recorded as consecutive assistant messages whose results
/// follow later. Every call has its result, but two results do not follow
/// their call as providers require: they are misplaced, and the history's
/// repair moves them, after which the session is paired.
#[test]
fn claude_code_session_rounds_and_pairs() {
    let messages = load("claude-code__coverage-test-fix.json");
    assert_eq!(messages.len(), 37);
    let rs = rounds(&messages);
    assert_eq!(rs.len(), 3);
    assert_eq!(rs[0].start, 0);
    let pairs = Pairs::new(&messages);
    assert_eq!(pairs.issues().len(), 2, "{:?}", pairs.issues());
    assert!(pairs
        .issues()
        .iter()
        .all(|i| matches!(i, strata_ctx::types::PairIssue::MisplacedResult { .. })));
    let calls: usize = messages.iter().map(|m| m.tool_calls.len()).sum();
    assert_eq!(calls, 13);
    assert!(messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .all(|c| pairs.result_of(&c.id).is_some()));
    let (repaired, repairs) = strata_ctx::history::repair(&messages);
    assert!(Pairs::new(&repaired).is_complete());
    assert_eq!(repaired.len(), messages.len());
    assert!(!repairs.is_empty());
}

/// CORE-4 on the common real shape: a system prompt, then one round of
/// one user message and many tool steps.
#[test]
fn mini_swe_agent_session_is_one_long_round() {
    let messages = load("mini-swe-agent__deepseek_reasoner_dev__pvlib__pvlib-python-1072.json");
    assert_eq!(messages[0].role, Role::System);
    assert_eq!(rounds(&messages), vec![1..messages.len()]);
    assert!(Pairs::new(&messages).is_complete());
    assert_eq!(messages.iter().filter(|m| m.role == Role::Tool).count(), 15);
}

/// CORE-1: real messages survive the canonical JSONL form.
#[test]
fn core_1_real_messages_round_trip_as_jsonl() {
    for name in [
        "claude-code__coverage-test-fix.json",
        "mini-swe-agent__deepseek_reasoner_dev__pvlib__pvlib-python-1072.json",
    ] {
        let messages = load(name);
        let jsonl: String = messages
            .iter()
            .map(|m| serde_json::to_string(m).unwrap() + "\n")
            .collect();
        let back: Vec<Message> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(back, messages, "{name}");
    }
}

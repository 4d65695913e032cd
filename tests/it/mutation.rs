//! The mutation harness (REL-1): real transcripts of `tests/data/corpus/`
//! (and of `STRATA_CORPUS_DIR`, when set), damaged the way real logs are
//! damaged, through every exit of the library: compaction, the three
//! renderings, replay and the store's round trip. Each must answer every
//! call exactly once, show no orphan result, keep its budget or say so,
//! and drop nothing without reporting it.
//!
//! `cargo test --test it mutation` runs 256 cases; CI runs 5,000
//! (`PROPTEST_CASES=5000`); `PROPTEST_CASES=1000000 cargo test --release
//! --test it mutation` is the long run.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::Value;
use strata_ctx::history::{repair, Repair};
use strata_ctx::store::Store;
use strata_ctx::{
    CharCounter, Config, Context, Engine, History, Message, MessageId, Pairs, Role, SystemLayer, Text,
};
use strata_ctx_testkit::load_transcript;

use crate::workspace_path;

fn transcripts() -> &'static [Vec<Message>] {
    static ALL: std::sync::OnceLock<Vec<Vec<Message>>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut dirs = vec![workspace_path("tests/data/corpus")];
        if let Ok(extra) = std::env::var("STRATA_CORPUS_DIR") {
            dirs.push(extra.into());
        }
        let mut all = Vec::new();
        for dir in dirs {
            let mut files: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            files.sort();
            all.extend(
                files
                    .iter()
                    .filter_map(|f| load_transcript(f).ok())
                    .map(|t| t.messages),
            );
        }
        all
    })
}

/// One way real logs get damaged.
#[derive(Debug, Clone)]
enum Mutation {
    /// A message is lost.
    Drop(usize),
    /// A message is written twice.
    Duplicate(usize),
    /// Two messages swap places.
    Swap(usize, usize),
    /// An assistant message with several calls is split into one message
    /// per call.
    SplitCalls(usize),
    /// A tool result is lost.
    RemoveResult(usize),
    /// A result is given a call id nobody made.
    Orphan(usize),
    /// A call reuses the id of another call.
    RepeatId(usize, usize),
    /// A system message appears mid-conversation.
    SystemNotice(usize),
    /// A message loses its content.
    Empty(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let i = any::<prop::sample::Index>();
    prop_oneof![
        i.clone().prop_map(|i| Mutation::Drop(i.index(1 << 20))),
        i.clone().prop_map(|i| Mutation::Duplicate(i.index(1 << 20))),
        (i.clone(), i.clone()).prop_map(|(a, b)| Mutation::Swap(a.index(1 << 20), b.index(1 << 20))),
        i.clone().prop_map(|i| Mutation::SplitCalls(i.index(1 << 20))),
        i.clone().prop_map(|i| Mutation::RemoveResult(i.index(1 << 20))),
        i.clone().prop_map(|i| Mutation::Orphan(i.index(1 << 20))),
        (i.clone(), i.clone()).prop_map(|(a, b)| Mutation::RepeatId(a.index(1 << 20), b.index(1 << 20))),
        i.clone().prop_map(|i| Mutation::SystemNotice(i.index(1 << 20))),
        i.prop_map(|i| Mutation::Empty(i.index(1 << 20))),
    ]
}

fn apply(messages: &mut Vec<Message>, m: &Mutation, n: usize) {
    let len = messages.len().max(1);
    let fresh = |tag: &str| MessageId::derived(&format!("mutation:{tag}:{n}"));
    match *m {
        Mutation::Drop(i) if !messages.is_empty() => {
            messages.remove(i % len);
        }
        Mutation::Duplicate(i) if !messages.is_empty() => {
            let copy = messages[i % len].clone().with_id(fresh("dup"));
            messages.insert(i % len + 1, copy);
        }
        Mutation::Swap(a, b) if !messages.is_empty() => messages.swap(a % len, b % len),
        Mutation::SplitCalls(i) => {
            let Some(at) = (0..len)
                .map(|k| (i + k) % len)
                .find(|&k| messages.get(k).is_some_and(|m| m.tool_calls.len() > 1))
            else {
                return;
            };
            let m = messages.remove(at);
            for (k, call) in m.tool_calls.iter().enumerate() {
                let part = Message::assistant_with_calls(
                    if k == 0 { m.content.clone() } else { Text::new() },
                    vec![call.clone()],
                )
                .with_id(fresh(&format!("split{k}")));
                messages.insert(at + k, part);
            }
        }
        Mutation::RemoveResult(i) => {
            if let Some(at) = (0..len)
                .map(|k| (i + k) % len)
                .find(|&k| messages.get(k).is_some_and(|m| m.role == Role::Tool))
            {
                messages.remove(at);
            }
        }
        Mutation::Orphan(i) => {
            if let Some(at) = (0..len)
                .map(|k| (i + k) % len)
                .find(|&k| messages.get(k).is_some_and(|m| m.role == Role::Tool))
            {
                messages[at].tool_call_id = Some(format!("nobody-{n}"));
            }
        }
        Mutation::RepeatId(a, b) => {
            let calls: Vec<(usize, usize)> = messages
                .iter()
                .enumerate()
                .flat_map(|(i, m)| (0..m.tool_calls.len()).map(move |k| (i, k)))
                .collect();
            if calls.len() >= 2 {
                let (fi, fk) = calls[a % calls.len()];
                let (ti, tk) = calls[b % calls.len()];
                let id = messages[fi].tool_calls[fk].id.clone();
                messages[ti].tool_calls[tk].id = id;
            }
        }
        Mutation::SystemNotice(i) => {
            let at = 1 + i % len;
            let notice = Message::system(format!("notice {n}")).with_id(fresh("notice"));
            messages.insert(at.min(messages.len()), notice);
        }
        Mutation::Empty(i) if !messages.is_empty() => messages[i % len].content = Text::new(),
        _ => {}
    }
}

/// Every call answered exactly once by the next messages, and no result
/// without its call, in an OpenAI body.
fn openai_paired(body: &Value) -> Result<(), String> {
    let messages = body.as_array().ok_or("not an array")?;
    let mut open: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for m in messages {
        match m["role"].as_str() {
            Some("tool") => {
                let id = m["tool_call_id"].as_str().unwrap_or_default().to_owned();
                let Some(pos) = open.iter().position(|x| *x == id) else {
                    return Err(format!("result {id} answers no open call"));
                };
                open.remove(pos);
            }
            _ => {
                if !open.is_empty() {
                    return Err(format!("calls {open:?} not answered before the next message"));
                }
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    let id = c["id"].as_str().unwrap_or_default().to_owned();
                    if !seen.insert(id.clone()) {
                        return Err(format!("call id {id} twice"));
                    }
                    open.push(id);
                }
            }
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("calls {open:?} never answered"))
    }
}

/// The same for an Anthropic body: each `tool_use` answered by a
/// `tool_result` in the next message.
fn anthropic_paired(body: &Value) -> Result<(), String> {
    let messages = body["messages"].as_array().ok_or("no messages")?;
    let blocks = |m: &Value, kind: &str, key: &str| -> Vec<String> {
        m["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == kind)
            .map(|b| b[key].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    for (i, m) in messages.iter().enumerate() {
        let uses = blocks(m, "tool_use", "id");
        let next = messages
            .get(i + 1)
            .map(|n| blocks(n, "tool_result", "tool_use_id"))
            .unwrap_or_default();
        for id in &uses {
            if !next.contains(id) {
                return Err(format!("tool_use {id} has no tool_result next"));
            }
        }
        let previous = i
            .checked_sub(1)
            .map(|p| blocks(&messages[p], "tool_use", "id"))
            .unwrap_or_default();
        for id in blocks(m, "tool_result", "tool_use_id") {
            if !previous.contains(&id) {
                return Err(format!("tool_result {id} follows no tool_use"));
            }
        }
    }
    Ok(())
}

fn check(messages: &[Message], window: usize) -> Result<(), TestCaseError> {
    let leading = messages.iter().take_while(|m| m.role == Role::System).count();
    let body = &messages[leading..];
    // Nothing silently dropped: every message of the body is in the
    // repaired list or reported.
    let (fixed, repairs) = repair(body);
    prop_assert!(
        Pairs::new(&fixed).is_complete(),
        "{:?}",
        Pairs::new(&fixed).issues()
    );
    let kept: HashSet<MessageId> = fixed.iter().map(|m| m.id).collect();
    let reported: HashSet<MessageId> = repairs
        .iter()
        .filter_map(|r| match r {
            Repair::OrphanDropped { message } | Repair::DuplicateDropped { message } => Some(*message),
            _ => None,
        })
        .collect();
    let mut counts: HashMap<MessageId, usize> = HashMap::new();
    for m in body {
        *counts.entry(m.id).or_default() += 1;
        prop_assert!(
            kept.contains(&m.id) || reported.contains(&m.id),
            "{:?} dropped silently",
            m.id
        );
    }

    // Compaction.
    let config = Config::from_toml_str(&format!("context_window = {window}")).unwrap();
    let (mut history, _) = History::from_messages(config.clone(), Arc::new(CharCounter), messages.to_vec());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let stats = rt.block_on(history.compact(&strata_ctx::NoSummarizer));
    let compacted = history.window().into_owned();
    prop_assert!(
        Pairs::new(&compacted).is_complete(),
        "compact: {:?}",
        Pairs::new(&compacted).issues()
    );
    // HIST-6: the window fits, or the caller is told, and never told
    // wrongly.
    prop_assert_eq!(stats.over_budget, history.window_tokens() > history.room_tokens());

    // The three renderings of the compacted window.
    let context = Context::new(SystemLayer::new("sys")).with_history(compacted.clone());
    openai_paired(&context.to_openai()).map_err(|e| TestCaseError::fail(format!("openai: {e}")))?;
    anthropic_paired(&context.to_anthropic()).map_err(|e| TestCaseError::fail(format!("anthropic: {e}")))?;
    // ReAct (REACT-1): every call of the window is an action, in order.
    let react = context.render_react();
    let mut from = 0;
    for call in compacted.iter().flat_map(|m| &m.tool_calls) {
        let action = format!("Action: {}[", call.name);
        let at = react[from..].find(&action);
        prop_assert!(at.is_some(), "react: {action} missing or out of order");
        from += at.unwrap_or_default() + action.len();
    }
    prop_assert!(
        react.starts_with("[system] sys"),
        "react: {}",
        react.chars().take(80).collect::<String>()
    );

    // Replay through the engine, persisting to a store: every step
    // paired, the budget held, and the log loads back to the same window.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let conversation = store.open_conversation("m", "c", true).unwrap();
    let mut engine = Engine::builder(dir.path())
        .config(config.clone())
        .conversation(conversation)
        .build()
        .unwrap();
    let summary = rt
        .block_on(strata_ctx::replay::replay(&mut engine, messages, |_, _| {}))
        .map_err(|e| TestCaseError::fail(format!("replay: {e}")))?;
    prop_assert_eq!(summary.broken_steps, 0);
    prop_assert_eq!(summary.over_budget_steps, 0, "{:?}", summary);
    let loaded = store.load("m", "c").unwrap();
    let replayed = History::replay(config, Arc::new(CharCounter), loaded.records);
    prop_assert_eq!(replayed.window(), engine.history().window(), "store round trip");
    prop_assert!(Pairs::new(&replayed.window()).is_complete());
    let last = engine.window();
    openai_paired(&last.to_openai()).map_err(|e| TestCaseError::fail(format!("engine openai: {e}")))?;
    anthropic_paired(&last.to_anthropic())
        .map_err(|e| TestCaseError::fail(format!("engine anthropic: {e}")))?;
    Ok(())
}

proptest! {
    #![proptest_config(strata_ctx_testkit::strategy::cases(48))]

    /// REL-1: any transcript of the corpus, with up to six mutations,
    /// through every exit of the library.
    #[test]
    fn rel_1_mutated_transcripts_stay_paired(
        pick in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..6),
        window in prop_oneof![Just(8_000usize), Just(16_000), Just(32_000)],
    ) {
        let all = transcripts();
        let mut messages = all[pick.index(all.len())].clone();
        for (n, m) in mutations.iter().enumerate() {
            apply(&mut messages, m, n);
        }
        check(&messages, window)?;
    }
}

/// The harness can fail: a damaged transcript rendered without repair is
/// caught by both pairing checks.
#[test]
fn harness_detects_broken_pairs() {
    let mut messages = transcripts()[0].clone();
    apply(&mut messages, &Mutation::RemoveResult(0), 0);
    let context = Context::new(SystemLayer::new("sys")).with_history(messages);
    assert!(openai_paired(&context.to_openai()).is_err());
    assert!(anthropic_paired(&context.to_anthropic()).is_err());
}

//! HIST-2, HIST-3, HIST-6, HIST-11 as properties over generated sessions.

use std::collections::HashSet;
use std::sync::Arc;

use proptest::prelude::*;
use strata_ctx_core::{rounds, CharCounter, CompactionTarget, Config, Message, Pairs, Role, TokenAmount};
use strata_ctx_history::History;
use strata_ctx_testkit::strategy::{self, HistoryShape};

use crate::Fixed;

/// Replays `messages` into a history round by round, compacting whenever
/// the trigger says so, and checks the invariants after every compaction.
fn replay(
    messages: Vec<Message>,
    window: u64,
    retain: usize,
    target: CompactionTarget,
) -> Result<(), TestCaseError> {
    let config = h_config(window, retain, target);
    let mut h = History::new(config, Arc::new(CharCounter));
    h.set_recording(true);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut i = 0;
    let mut finished_rounds: Vec<Message> = Vec::new();
    while i < messages.len() {
        let m = &messages[i];
        match m.role {
            Role::User => {
                h.begin_round(m.clone());
                finished_rounds.push(m.clone());
                i += 1;
            }
            Role::Assistant if m.has_tool_calls() => {
                let mut results = Vec::new();
                let mut j = i + 1;
                while j < messages.len() && messages[j].role == Role::Tool {
                    results.push(messages[j].clone());
                    j += 1;
                }
                h.record_step(m.clone(), results);
                i = j;
            }
            Role::Assistant => {
                h.finish_round(m.clone());
                i += 1;
            }
            _ => i += 1,
        }
        if h.needs_compaction() {
            let before: Vec<Message> = h
                .window()
                .iter()
                .take_while(|m| m.role == Role::Summary)
                .cloned()
                .collect();
            let complete_before = rounds(&h.window()).len() - usize::from(h.round_open());
            let stats = rt.block_on(h.compact(&Fixed::ok()));
            let w = h.window();
            // HIST-2: no call without its result or the reverse.
            prop_assert!(Pairs::new(&w).is_complete(), "{:?}", Pairs::new(&w).issues());
            // HIST-17: summaries merge into one; without archiving, the
            // earlier ones are byte-identical.
            prop_assert!(w.iter().filter(|m| m.role == Role::Summary).count() <= 1);
            if w.len() >= before.len() && stats.tokens_archived == 0 {
                prop_assert_eq!(&w[..before.len()], before.as_slice());
            }
            // HIST-3: the body starts at a round boundary.
            let summaries = w.iter().take_while(|m| m.role == Role::Summary).count();
            prop_assert!(
                target != CompactionTarget::All
                    || summaries == w.len()
                    || w[summaries].role == Role::User
                    || stats.rounds_archived == 0
            );
            // HIST-3: the newest rounds are kept.
            let keep = retain.min(complete_before);
            prop_assert!(stats.rounds_retained >= keep);
            let users: HashSet<_> = w.iter().filter(|m| m.role == Role::User).map(|m| m.id).collect();
            let open = usize::from(h.round_open());
            let newest = finished_rounds.iter().rev().take(keep + open);
            for u in newest {
                prop_assert!(users.contains(&u.id));
            }
            // HIST-6: the window fits or the caller is told.
            prop_assert!(stats.over_budget || h.window_tokens() <= h.room_tokens());
            prop_assert_eq!(stats.over_budget, h.window_tokens() > h.room_tokens());
        }
        // HIST-11: the full log holds every message of the window (summaries
        // and synthetic results aside).
        let logged: HashSet<_> = h.full_log().iter().map(|m| m.id).collect();
        for m in h.window().iter() {
            let synthetic = m.role == Role::Summary
                || m.result
                    .as_ref()
                    .and_then(|r| r.error.as_ref())
                    .is_some_and(|e| e.code == "interrupted");
            prop_assert!(synthetic || logged.contains(&m.id));
        }
    }
    // STORE-3: replaying the records gives the live window.
    let replayed = History::replay(
        h_config(window, retain, target),
        Arc::new(CharCounter),
        h.take_records(),
    );
    prop_assert_eq!(replayed.window(), h.window());
    prop_assert_eq!(replayed.full_log(), h.full_log());
    Ok(())
}

fn h_config(window: u64, retain: usize, target: CompactionTarget) -> Config {
    Config::builder()
        .context_window(TokenAmount::Tokens(window))
        .min_retain_rounds(retain)
        .compaction_target(target)
        .build()
        .unwrap()
}

const TARGETS: [CompactionTarget; 3] = [
    CompactionTarget::All,
    CompactionTarget::User,
    CompactionTarget::Assistant,
];

proptest! {
    #![proptest_config(strata_ctx_testkit::strategy::cases(96))]

    #[test]
    fn hist_invariants_many_rounds(messages in strategy::history(HistoryShape {
        summaries: 0..=0,
        rounds: 1..=25,
        ..HistoryShape::default()
    }.with_orphans(true)), window in 1_500u64..12_000, retain in 0usize..6, target in proptest::sample::select(&TARGETS[..])) {
        replay(messages, window, retain, target)?;
    }

    #[test]
    fn hist_invariants_single_long_round(messages in strategy::history(HistoryShape {
        summaries: 0..=0,
        ..HistoryShape::single_long_round()
    }), window in 2_000u64..20_000, retain in 0usize..3) {
        replay(messages, window, retain, CompactionTarget::All)?;
    }
}

//! proptest strategies for messages and histories.

use std::ops::RangeInclusive;

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::{json, Value};
use strata_ctx_core::{
    Message, MessageId, Metadata, ResultStatus, Role, Timestamp, ToolCall, ToolError, ToolResult,
};

use crate::builder::{text_of_len, CallSpec, HistoryBuilder};

/// A proptest configuration with `default` cases, or the number in the
/// `PROPTEST_CASES` environment variable when it is set (to run more cases
/// locally or in CI).
pub fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(cases)
}

/// Any JSON value without floats (whose text form may not round-trip
/// bit-exactly through other tools), nested up to three levels.
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            btree_map("[a-z_]{1,6}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Any role.
pub fn role() -> impl Strategy<Value = Role> {
    prop_oneof![
        Just(Role::System),
        Just(Role::User),
        Just(Role::Assistant),
        Just(Role::Tool),
        Just(Role::Summary),
    ]
}

/// Any timestamp between 1970 and 2100 with millisecond precision, or
/// none.
pub fn timestamp() -> impl Strategy<Value = Option<Timestamp>> {
    proptest::option::of((0i64..4_102_444_800_000).prop_filter_map("in range", Timestamp::from_unix_millis))
}

/// Any tool result envelope.
pub fn tool_result() -> impl Strategy<Value = ToolResult> {
    (
        prop_oneof![
            Just(ResultStatus::Success),
            Just(ResultStatus::Partial),
            Just(ResultStatus::Error)
        ],
        json_value(),
        proptest::option::of(".{0,20}"),
        proptest::option::of(("[a-z_]{1,10}", ".{0,20}")),
        json_value(),
        json_value(),
        proptest::option::of("[a-z/_.]{1,20}"),
    )
        .prop_map(|(status, data, text, error, stats, context, path)| ToolResult {
            status,
            data,
            text,
            error: error.map(|(code, message)| ToolError { code, message }),
            stats,
            context,
            full_output_path: path,
        })
}

/// Any message, with every optional part sometimes present: the input of
/// serialisation round-trip tests. Not a well-formed conversation.
pub fn message() -> impl Strategy<Value = Message> {
    (
        any::<u128>(),
        role(),
        ".{0,40}",
        vec(("[a-z0-9_]{1,8}", "[A-Za-z_]{1,10}", json_value()), 0..3),
        proptest::option::of("[a-z0-9_]{1,8}"),
        proptest::option::of("[A-Za-z_]{1,10}"),
        proptest::option::of(tool_result()),
        btree_map("[a-z_]{1,6}", json_value(), 0..3),
        timestamp(),
    )
        .prop_map(
            |(id, role, content, calls, tool_call_id, tool_name, result, metadata, created_at)| Message {
                id: MessageId::from_u128(id),
                role,
                content: content.into(),
                tool_calls: calls
                    .into_iter()
                    .map(|(id, name, args)| ToolCall::new(id, name, args))
                    .collect(),
                thinking: Vec::new(),
                provider_items: Vec::new(),
                tool_call_id,
                tool_name,
                result: result.map(Box::new),
                metadata: metadata.into_iter().collect::<Metadata>(),
                created_at,
            },
        )
}

/// The shape of the histories [`history`] generates.
#[derive(Debug, Clone)]
pub struct HistoryShape {
    /// How many leading summary messages (from earlier compactions).
    pub summaries: RangeInclusive<usize>,
    /// How many rounds.
    pub rounds: RangeInclusive<usize>,
    /// How many assistant steps with tool calls per round.
    pub steps: RangeInclusive<usize>,
    /// The most parallel calls in one step.
    pub max_parallel: usize,
    /// The size range of tool outputs in bytes; sizes are skewed to the
    /// small end.
    pub output_len: RangeInclusive<usize>,
    /// Whether to leave some calls unanswered and add stray results.
    pub orphans: bool,
}

impl Default for HistoryShape {
    /// Up to 2 summaries, 1–12 rounds of 0–6 steps, up to 3 parallel calls,
    /// outputs of 0–2,000 bytes, no orphans.
    fn default() -> Self {
        HistoryShape {
            summaries: 0..=2,
            rounds: 1..=12,
            steps: 0..=6,
            max_parallel: 3,
            output_len: 0..=2_000,
            orphans: false,
        }
    }
}

impl HistoryShape {
    /// One long round of 20–150 steps, as most real coding sessions are.
    pub fn single_long_round() -> Self {
        HistoryShape {
            summaries: 0..=1,
            rounds: 1..=1,
            steps: 20..=150,
            max_parallel: 2,
            output_len: 0..=4_000,
            orphans: false,
        }
    }

    /// Sets whether orphans are generated. By default, they are not.
    pub fn with_orphans(mut self, orphans: bool) -> Self {
        self.orphans = orphans;
        self
    }
}

#[derive(Debug, Clone)]
struct CallPlan {
    len: usize,
    answered: bool,
    status: u8,
}

#[derive(Debug, Clone)]
struct RoundPlan {
    steps: Vec<Vec<CallPlan>>,
    finished: bool,
    stray: bool,
}

fn call_plan(shape: &HistoryShape) -> impl Strategy<Value = CallPlan> {
    let (lo, hi) = (*shape.output_len.start(), *shape.output_len.end());
    let orphans = shape.orphans;
    // Square a uniform fraction to skew sizes towards the small end.
    (
        0u32..=1000,
        prop::bool::weighted(if orphans { 0.9 } else { 1.0 }),
        0u8..10,
    )
        .prop_map(move |(f, answered, status)| {
            let f = f as usize;
            CallPlan {
                len: lo + (hi - lo) * f * f / 1_000_000,
                answered,
                status,
            }
        })
}

fn round_plan(shape: &HistoryShape) -> impl Strategy<Value = RoundPlan> {
    let calls = vec(call_plan(shape), 1..=shape.max_parallel.max(1));
    let orphans = shape.orphans;
    (
        vec(calls, shape.steps.clone()),
        prop::bool::weighted(0.9),
        prop::bool::weighted(if orphans { 0.2 } else { 0.0 }),
    )
        .prop_map(|(steps, finished, stray)| RoundPlan {
            steps,
            finished,
            stray,
        })
}

/// Well-formed histories of the given shape: summaries, then rounds of
/// user input, assistant steps with (possibly parallel) tool calls and
/// their results, and usually a final answer. With
/// [`HistoryShape::orphans`], some calls stay unanswered and some rounds get
/// a stray result.
///
/// Tool names cycle through `bash`, `Read`, `Grep` and an unknown tool;
/// every tenth result is an error.
pub fn history(shape: HistoryShape) -> impl Strategy<Value = Vec<Message>> {
    (
        any::<u32>(),
        shape.summaries.clone(),
        vec(round_plan(&shape), shape.rounds.clone()),
    )
        .prop_map(|(seed, summaries, rounds)| build(seed, summaries, &rounds))
}

fn build(seed: u32, summaries: usize, rounds: &[RoundPlan]) -> Vec<Message> {
    const TOOLS: &[&str] = &["bash", "Read", "Grep", "custom_tool"];
    let mut b = HistoryBuilder::with_seed(u64::from(seed));
    for s in 0..summaries {
        b = b.summary(&format!("## Archived History Summary\nsummary {s}"));
    }
    let mut n = 0u64;
    for (r, round) in rounds.iter().enumerate() {
        b = b.user(&format!("request {r}"));
        for (s, step) in round.steps.iter().enumerate() {
            let specs = step.iter().map(|c| {
                n += 1;
                let tool = TOOLS[(n as usize) % TOOLS.len()];
                let args = json!({ "n": n });
                let mut out = text_of_len(c.len, n);
                if c.status == 0 {
                    out = format!("Error: failed at step {s}\n{out}");
                }
                if c.answered {
                    CallSpec::new(tool, args, out)
                } else {
                    CallSpec::unanswered(tool, args)
                }
            });
            b = b.step(&format!("thinking about step {s}"), specs.collect::<Vec<_>>());
        }
        if round.stray {
            b = b.orphan_result(&format!("ghost_{r}"), "stray output");
        }
        if round.finished {
            b = b.answer(&format!("answer {r}"));
        }
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use strata_ctx_core::{rounds, Pairs};

    #[test]
    fn generated_histories_are_well_formed() {
        let mut runner = TestRunner::deterministic();
        for _ in 0..50 {
            let h = history(HistoryShape::default())
                .new_tree(&mut runner)
                .unwrap()
                .current();
            assert!(Pairs::new(&h).is_complete());
            assert!(!rounds(&h).is_empty());
        }
    }

    #[test]
    fn orphans_appear_when_asked() {
        let mut runner = TestRunner::deterministic();
        let found = (0..100).any(|_| {
            let h = history(HistoryShape::default().with_orphans(true))
                .new_tree(&mut runner)
                .unwrap()
                .current();
            !Pairs::new(&h).is_complete()
        });
        assert!(found);
    }

    #[test]
    fn long_rounds_are_long() {
        let mut runner = TestRunner::deterministic();
        let h = history(HistoryShape::single_long_round())
            .new_tree(&mut runner)
            .unwrap()
            .current();
        assert_eq!(rounds(&h).len(), 1);
        assert!(h.len() > 40);
    }
}

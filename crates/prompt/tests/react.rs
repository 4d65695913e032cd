//! REACT-1: the parser on clean and noisy model output.

// Test code: unwrapping, panicking and printing are how it reports; the
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

use proptest::prelude::*;
use serde_json::json;
use strata_ctx_prompt::{parse_step, Error, Step};

fn action(thought: &str, tool: &str, arguments: serde_json::Value) -> Step {
    Step::Action {
        thought: thought.into(),
        tool: tool.into(),
        arguments,
    }
}

#[test]
fn react_1_usual_noise_is_tolerated() {
    let cases = [
        (
            "Thought: look\nAction: Bash[{\"command\": \"ls\"}]",
            action("look", "Bash", json!({"command": "ls"})),
        ),
        (
            "\n\n   Thought: look\n  Action: Bash[{\"command\": \"ls\"}]\n",
            action("look", "Bash", json!({"command": "ls"})),
        ),
        (
            "Thought: look\nAction: Bash[```json\n{\"command\": \"ls\"}\n```]",
            action("look", "Bash", json!({"command": "ls"})),
        ),
        (
            "```\nThought: look\nAction: Read[{\"path\": \"a]b.rs\"}]\n```\nObservation: (I will wait)",
            action("look", "Read", json!({"path": "a]b.rs"})),
        ),
        (
            "**Thought:** multi\nline thought\n**Action:** Grep[{\"pattern\": \"fn\"}] and then more",
            action("multi\nline thought", "Grep", json!({"pattern": "fn"})),
        ),
        ("Action: TodoWrite[]", action("", "TodoWrite", json!({}))),
    ];
    for (raw, want) in cases {
        assert_eq!(parse_step(raw).unwrap(), want, "{raw:?}");
    }
    assert_eq!(
        parse_step("Thought: done\nAction: finish[Use `v[0]` not `v.first()`.] trailing").unwrap(),
        Step::Finish {
            thought: "done".into(),
            answer: "Use `v[0]` not `v.first()`.".into()
        }
    );
}

#[test]
fn react_1_malformed_output_is_a_typed_error_with_the_raw_text() {
    for (raw, reason) in [
        ("I think the answer is 42.", "no `Action:` line"),
        ("Thought: x\nAction: [{}]", "`Action:` names no tool"),
        (
            "Thought: x\nAction: Bash {\"command\": \"ls\"}",
            "`Action: Bash` has no `[…]` after the tool name",
        ),
        (
            "Thought: x\nAction: Bash[{command: ls}]",
            "the arguments of `Bash` are not JSON",
        ),
        (
            "Thought: x\nAction: Bash[{\"command\": \"ls\"}",
            "`Bash[` is not closed after its JSON arguments",
        ),
        (
            "Thought: x\nAction: Finish[never closed",
            "`Finish[` is never closed",
        ),
    ] {
        let Error::MalformedStep {
            reason: got,
            raw: kept,
        } = parse_step(raw).unwrap_err()
        else {
            unreachable!()
        };
        assert!(got.starts_with(reason), "{raw:?}: {got}");
        assert_eq!(kept, raw);
    }
}

proptest! {
    /// Rendering a step and parsing it back gives the step; arbitrary text
    /// never panics the parser.
    #[test]
    fn react_1_render_parse_round_trip(
        thought in "[a-zA-Z ,.]{0,40}",
        tool in "[A-Za-z_][A-Za-z0-9_]{0,12}",
        args in strata_ctx_testkit::strategy::json_value(),
        noise in ".{0,80}",
    ) {
        let args = json!({ "value": args });
        let step = action(thought.trim(), &tool, args);
        prop_assert_eq!(parse_step(&step.render()).unwrap(), step);
        let _ = parse_step(&noise);
    }
}

//! An output that the agent recording it had already cut says where
//! (TOOL-8): Codex CLI, Claude Code, OpenHands, mini-SWE-agent and
//! SWE-agent each print a marker in place of what they left out, in the
//! forms their sources write it. The history form and the mid-round view
//! keep that marker, so the model is not told that a cut output is whole;
//! the marker is a summary line, and grows the room as one.

use serde_json::json;
use strata_ctx_compress::{line_kind, Compressor, Limits, LineKind, Truncator};

/// A cargo test run of passing tests and one failure, its middle
/// replaced by `marker`, as the agent cut it, with `after` more passing
/// tests under the marker.
fn cut_run(marker: &str, after: usize) -> String {
    let head: String = (0..120)
        .map(|i| format!("test cart::case_{i} ... ok\n"))
        .collect();
    let more: String = (0..after)
        .map(|i| format!("test order::case_{i} ... ok\n"))
        .collect();
    let tail = "test cart::case_900 ... ok\n\nfailures:\n\n---- cart::applies_discount stdout ----\n\
                thread 'cart::applies_discount' panicked at src/cart.rs:88:9:\n\
                assertion `left == right` failed\n  left: 100\n  right: 90\n\n\
                test result: FAILED. 999 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.41s\n";
    format!("{head}{marker}\n{more}{tail}")
}

/// Each agent's marker, as its source prints it.
const MARKERS: [&str; 12] = [
    // Codex CLI, by lines, by bytes, and by tokens and characters.
    "[... omitted 764 of 1020 lines ...]",
    "[... output truncated to fit 10240 bytes ...]",
    "…4100 tokens truncated…",
    "…16384 chars truncated…",
    // Claude Code's Bash tool, and what it says where it saved a long
    // output it cut.
    "... [638 lines truncated] ...",
    "Output too large (34.3KB). Full output saved to: /home/dev/.claude/projects/shop/tool-results/toolu_01.txt",
    "Preview (first 2KB):",
    // opencode's, above where it saved the whole.
    "...output truncated...",
    "Full output saved to: /home/dev/.local/share/opencode/tool-output/tool_0001",
    // OpenHands, at the end of the line it cut.
    "test cart::case_4<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you.</NOTE>",
    // mini-SWE-agent, between its `<elided_chars>` tags.
    "3968 characters elided",
    // SWE-agent's note under a cut observation.
    "Observations should not exceed 100000 characters. 3968 characters were elided.",
];

#[test]
fn tool_8_an_agent_s_marker_of_what_it_left_out_is_a_summary() {
    for marker in MARKERS {
        assert_eq!(line_kind(marker), LineKind::Summary, "{marker}");
    }
    // Words of the same kind in a program's own output are not markers.
    for plain in [
        "[... omitted ...]",
        "lines truncated at 80 columns",
        "the response was clipped",
        "characters elided from the name",
    ] {
        assert_eq!(line_kind(plain), LineKind::Plain, "{plain}");
    }
}

#[test]
fn tool_8_the_history_form_keeps_an_agent_s_marker() {
    let c = Compressor::new();
    for marker in MARKERS {
        let output = cut_run(marker, 0);
        let (form, _) = c.compress_text("Bash", &json!({"command": "cargo test"}), &output);
        assert!(
            form.len() < output.len() / 2,
            "{marker}: {} of {}",
            form.len(),
            output.len()
        );
        assert!(
            form.contains(marker.trim_start_matches("test cart::case_4")),
            "{marker}\n{form}"
        );
        assert!(
            form.contains("test result: FAILED. 999 passed; 1 failed"),
            "{form}"
        );
        // TOOL-11: the form of the form is the same form.
        assert_eq!(
            c.compress_text("Bash", &json!({"command": "cargo test"}), &form)
                .0,
            form
        );
    }
}

#[test]
fn tool_8_the_mid_round_view_keeps_an_agent_s_marker() {
    let truncator = Truncator::builder(std::env::temp_dir())
        .spill_dir(None)
        .limits(Limits::new(40, 4096))
        .build();
    let output = cut_run(MARKERS[0], 400);
    let cut = truncator.truncate("Bash", output.as_bytes());
    assert!(cut.truncated);
    let view = cut.result.data.to_string();
    assert!(view.contains(MARKERS[0]), "{view}");
}

//! TOOL-11 and TRUNC-1 as properties.

use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{json, Value};
use strata_ctx_compress::{Compressor, Limits, Truncator};
use strata_ctx_core::ToolResult;

/// One line of tool output: words, sometimes a diagnostic, sometimes very
/// long, sometimes not ASCII.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-z0-9 ./_:-]{0,60}",
        1 => Just("error: something failed".to_owned()),
        1 => Just("warning: unused variable `x`".to_owned()),
        1 => "[a-zé✓ ]{0,30}",
        1 => "[a-z]{1,10}".prop_map(|w| w.repeat(200)),
        // Coloured as a terminal shows it, long enough to be cut, or with
        // an escape that is no colour code.
        1 => "[a-z ]{0,20}".prop_map(|w| format!("\x1b[1;31merror\x1b[0m: {w}")),
        1 => "[a-z]{1,10}".prop_map(|w| format!("\x1b[32m{}\x1b[0m", w.repeat(60))),
        1 => "[a-z\x1b\\[0-9;m]{0,20}",
        // Under the name of the process that printed it, indented or not.
        1 => ("[a-z]{1,6}", " {0,6}", "[a-z0-9 ./_:-]{0,40}").prop_map(|(p, i, w)| format!("{p}:test: {i}{w}")),
        1 => (" {0,6}", "[a-z ]{0,20}").prop_map(|(i, w)| format!("api-1  | {i}error: {w}")),
    ]
}

/// A line of noise: a passing test, a download.
fn noise_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{1,8}".prop_map(|w| format!("test t::{w} ... ok")),
        "[a-z_]{1,8}".prop_map(|w| format!("tests/a.py::test_{w} PASSED")),
        "[a-z]{1,8}".prop_map(|w| format!("  Downloading {w}-1.0.tar.gz (12 kB)")),
    ]
}

/// Lines of output, now and then a run of noise (a view's head stops in
/// one).
fn output() -> impl Strategy<Value = String> {
    let lines = vec(
        prop_oneof![
            12 => line().prop_map(|l| vec![l]),
            1 => vec(noise_line(), 4..40),
        ],
        0..150,
    )
    .prop_map(|runs| runs.concat());
    (lines, any::<bool>(), any::<bool>()).prop_map(|(lines, newline_at_end, crlf)| {
        let sep = if crlf { "\r\n" } else { "\n" };
        let mut s = lines.join(sep);
        if newline_at_end && !s.is_empty() {
            s.push_str(sep);
        }
        s
    })
}

const STATUSES: [&str; 3] = ["pending", "in_progress", "completed"];
const TOOLS: &[&str] = &[
    "bash",
    "Read",
    "Grep",
    "Glob",
    "LS",
    "Edit",
    "Write",
    "TodoWrite",
    "mystery_tool",
];

/// Lines of the input that a condensed text stands for: its kept lines plus
/// the lines its `[… N lines …]` markers count.
fn represented_lines(out: &str) -> usize {
    out.lines().map(|l| gap(l).unwrap_or(1)).sum()
}

/// The lines a `[… N lines …]` marker stands for; `None` for other lines.
fn gap(line: &str) -> Option<usize> {
    line.strip_prefix("[… ")
        .and_then(|r| r.strip_suffix(" lines …]").or_else(|| r.strip_suffix(" line …]")))
        .and_then(|n| n.parse().ok())
}

proptest! {
    #![proptest_config(strata_ctx_testkit::strategy::cases(256))]

    /// TOOL-11: never larger, idempotent, for text of every tool.
    #[test]
    fn tool_11_text_never_larger_and_idempotent(text in output(), tool in proptest::sample::select(TOOLS)) {
        let c = Compressor::new();
        let (once, _) = c.compress_text(tool, &Value::Null, &text);
        prop_assert!(once.len() <= text.len(), "{} > {}", once.len(), text.len());
        let (twice, _) = c.compress_text(tool, &Value::Null, &once);
        prop_assert_eq!(twice, once);
    }

    /// TOOL-8 / TOOL-10: what is kept plus what the markers say was left
    /// out adds up to the input's lines.
    #[test]
    fn tool_8_marker_counts_add_up(text in output(), tool in proptest::sample::select(&["bash", "mystery_tool"][..])) {
        let c = Compressor::new();
        let (out, _) = c.compress_text(tool, &Value::Null, &text);
        if out != text {
            prop_assert_eq!(represented_lines(&out), text.lines().count());
        }
    }

    /// TOOL-11 on envelopes with structured data of every shape.
    #[test]
    fn tool_11_envelopes_never_larger_and_idempotent(
        lines in vec(line(), 0..120),
        tool in proptest::sample::select(TOOLS),
        shape in 0usize..6,
    ) {
        let text = lines.join("\n");
        let data = match shape {
            0 => json!({"command": "make", "exit_code": 2, "stdout": text, "stderr": lines.iter().rev().take(40).cloned().collect::<Vec<_>>().join("\n")}),
            1 => json!({"path": "a.rs", "content": text, "start_line": 3, "mtime": "2026-01-01T00:00:00Z"}),
            2 => json!({"pattern": "x", "matches": lines.iter().enumerate().map(|(i, l)| json!({"file": format!("f{}.rs", i % 7), "line": i, "text": l})).collect::<Vec<_>>()}),
            3 => json!({"path": ".", "entries": lines.iter().map(|l| json!({"name": l, "kind": "file"})).collect::<Vec<_>>()}),
            4 => json!({"todos": lines.iter().enumerate().map(|(i, l)| json!({"content": l, "status": STATUSES[i % 3]})).collect::<Vec<_>>()}),
            _ => json!({"output": text, "truncated": true}),
        };
        let input = ToolResult { text: Some("x".repeat(50)), stats: json!({"ms": 1}), ..ToolResult::success(data) };
        let c = Compressor::new();
        let once = c.compress(tool, &Value::Null, &input).result;
        prop_assert!(once.to_json().len() <= input.to_json().len());
        prop_assert!(once.text.is_none() && once.stats.is_null());
        let twice = c.compress(tool, &Value::Null, &once).result;
        prop_assert_eq!(twice, once);
    }

    /// TOOL-11 on a shell's output in each agent's envelope: Codex CLI's
    /// header and object, Gemini CLI's fields, OpenHands' notes,
    /// opencode's metadata, mini-SWE-agent's tags.
    #[test]
    fn tool_11_shell_envelopes_never_larger_and_idempotent(text in output(), shape in 0usize..6) {
        let answer = match shape {
            0 => format!("Chunk ID: 1a\nWall time: 1.5 seconds\nProcess exited with code 1\nOriginal token count: 99\nOutput:\n{text}"),
            1 => json!({"output": text, "metadata": {"exit_code": 1, "duration_seconds": 1.5}}).to_string(),
            2 => format!("Command: make\nDirectory: (root)\nOutput: {text}\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 7"),
            3 => format!("{text}\n[Python Interpreter: /usr/bin/python]\nroot@host:/workspace # \n[Command finished with exit code 1]"),
            4 => format!("{text}\n\n<bash_metadata>\nbash tool terminated command after exceeding timeout 120000 ms\n</bash_metadata>"),
            _ => format!("<returncode>1</returncode>\n<output>\n{text}\n</output>"),
        };
        let c = Compressor::new();
        let args = json!({"command": "make"});
        let (once, _) = c.compress_text("bash", &args, &answer);
        prop_assert!(once.len() <= answer.len(), "{} > {}", once.len(), answer.len());
        let (twice, _) = c.compress_text("bash", &args, &once);
        prop_assert_eq!(twice, once);
    }

    /// TRUNC-1: a file tool's view is a prefix of the output, within the
    /// limits, cut at a line boundary unless one line alone is over the
    /// byte limit.
    #[test]
    fn trunc_1_cuts_on_line_boundaries(text in output(), max_lines in 1usize..50, max_bytes in 16usize..3_000) {
        let t = Truncator::builder(std::env::temp_dir()).spill_dir(None).limits(Limits::new(max_lines, max_bytes)).build();
        let cut = t.truncate("Read", text.as_bytes());
        let view = view_of(&cut);
        prop_assert!(text.starts_with(&view));
        prop_assert_eq!(cut.total_lines, text.lines().count());
        prop_assert_eq!(cut.truncated, text.len() > max_bytes || cut.total_lines > max_lines);
        if cut.truncated {
            prop_assert!(view.len() <= max_bytes);
            prop_assert!(cut.shown_lines <= max_lines);
            prop_assert!(view.is_empty() || view.ends_with('\n') || cut.shown_lines == 0);
            prop_assert_eq!(cut.shown_lines, view.matches('\n').count());
            let prefix = format!("Found {} ", cut.total_lines);
            prop_assert!(cut.result.text.as_deref().unwrap().starts_with(&prefix));
        } else {
            prop_assert_eq!(view, text);
        }
    }

    /// TRUNC-1, TOOL-8: a shell's view shows lines of the output in their
    /// order (head, diagnostic lines, tail) with gap markers that count
    /// what is left out, within the limits; the last line is shown when a
    /// tail fits.
    #[test]
    fn trunc_1_a_shells_view_keeps_head_and_tail(text in output(), max_lines in 1usize..50, max_bytes in 16usize..3_000) {
        let t = Truncator::builder(std::env::temp_dir()).spill_dir(None).limits(Limits::new(max_lines, max_bytes)).build();
        let cut = t.truncate("bash", text.as_bytes());
        let view = view_of(&cut);
        // A shell's view shows its lines as a terminal does (`\r\n` as
        // `\n`), and is cut when what it shows does not fit.
        let text = strata_ctx_compress::as_shown(&text).into_owned();
        prop_assert_eq!(cut.truncated, text.len() > max_bytes || cut.total_lines > max_lines);
        if !cut.truncated {
            prop_assert_eq!(view, text);
            return Ok(());
        }
        prop_assert!(view.len() <= max_bytes, "{} > {}", view.len(), max_bytes);
        prop_assert!(cut.shown_lines <= max_lines);
        // Every shown line is the output's line at the place the markers say.
        let lines: Vec<&str> = text.lines().collect();
        let mut at = 0;
        let mut shown = 0;
        for line in view.lines() {
            match gap(line) {
                Some(n) => at += n,
                None => {
                    prop_assert!(at < lines.len());
                    prop_assert!(lines[at].starts_with(line.trim_end_matches('\u{FFFD}')) || line.contains(" bytes …] "),
                        "line {} is {:?}, the view shows {:?}", at, lines[at], line);
                    at += 1;
                    shown += 1;
                }
            }
        }
        if cut.result.text.as_deref().unwrap_or_default().contains(" and the last ") {
            prop_assert!(view.lines().count() <= max_lines, "{} lines, markers included", view.lines().count());
            prop_assert_eq!(at, lines.len(), "the markers and lines account for every line");
            prop_assert_eq!(shown, cut.shown_lines);
        }
    }
}

fn view_of(cut: &strata_ctx_compress::Truncated) -> String {
    match &cut.result.data {
        Value::String(s) => s.clone(),
        other => other["output"].as_str().unwrap().to_owned(),
    }
}

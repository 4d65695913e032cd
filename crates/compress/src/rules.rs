//! The built-in history-form rules (TOOL-2 … TOOL-10).

use std::collections::{BTreeSet, HashSet};

use serde_json::{json, Map, Value};
use strata_ctx_core::{CompressRule, RuleError, RuleInput};
use strata_ctx_tools::ShellOutput;

use crate::compressor::json_len;
use crate::kind::ToolKind;
use crate::text::{cap_line, condense, gap_marker, line_count, Budget};

/// The limits of the built-in rules. Each default is the spec's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleLimits {
    /// LS: entries kept (TOOL-2). By default, 10.
    pub ls_entries: usize,
    /// Glob: paths kept (TOOL-3). By default, 10.
    pub glob_paths: usize,
    /// Grep: match lines kept (TOOL-4). By default, 5.
    pub grep_matches: usize,
    /// Read: lines kept (TOOL-5). By default, 500.
    pub read_lines: usize,
    /// Read: bytes kept. By default, 24 KiB.
    pub read_bytes: usize,
    /// Edit, MultiEdit and Write: lines of the key snippet (TOOL-6,
    /// TOOL-7). By default, 30.
    pub snippet_lines: usize,
    /// Edit: a diff longer than this keeps only its summary. By default,
    /// 400 lines.
    pub large_diff_lines: usize,
    /// Bash: first and last stdout lines kept (TOOL-8). By default, 3 and
    /// 5.
    pub bash_head: usize,
    /// See `bash_head`.
    pub bash_tail: usize,
    /// Bash: last stderr lines kept. By default, 20.
    pub stderr_tail: usize,
    /// Bash and generic: diagnostic lines kept from the middle of an
    /// output (Bash: sixteen times as many, found from both ends). By
    /// default, 12.
    pub diagnostics: usize,
    /// Bash: bytes of the stdout summary. By default, 1,200: diagnostic
    /// lines come first, so a short summary keeps what a developer reads
    /// (TOOL-8).
    pub bash_bytes: usize,
    /// Bash: how much more room an output's diagnostic lines (failures,
    /// summaries, warnings and the locations of failures) may take beyond
    /// `bash_bytes`. Warnings and locations grow it by at most 12 bytes per
    /// line of the output; failures and summaries grow it however densely
    /// the output prints them. By default, 10,000: a type checker's seventy
    /// errors stay whole, a log of passing tests stays at `bash_bytes`.
    pub bash_grow: usize,
    /// Generic rule: head and tail lines. By default, 10 each.
    pub generic_lines: usize,
    /// Generic rule: bytes kept. By default, 2,000.
    pub generic_bytes: usize,
    /// The most bytes of one kept line. By default, 400. A command's
    /// history form keeps twice this many of a failure line (a type
    /// checker's error with its types spelled out), at most 240 of any
    /// other.
    pub line_bytes: usize,
    /// TodoWrite: open items listed (TOOL-9). By default, 10.
    pub todo_items: usize,
}

impl Default for RuleLimits {
    fn default() -> Self {
        RuleLimits {
            ls_entries: 10,
            glob_paths: 10,
            grep_matches: 5,
            read_lines: 500,
            read_bytes: 24 * 1024,
            snippet_lines: 30,
            large_diff_lines: 400,
            bash_head: 3,
            bash_tail: 5,
            stderr_tail: 20,
            diagnostics: 12,
            bash_bytes: 1_200,
            bash_grow: 10_000,
            generic_lines: 10,
            generic_bytes: 2_000,
            line_bytes: 400,
            todo_items: 10,
        }
    }
}

impl RuleLimits {
    /// These limits with every byte budget of a text (Bash, Read, the
    /// snippets and the generic rule) at most `bytes`.
    fn with_text_bytes(&self, bytes: usize) -> RuleLimits {
        RuleLimits {
            read_bytes: self.read_bytes.min(bytes),
            bash_bytes: self.bash_bytes.min(bytes),
            bash_grow: self
                .bash_grow
                .min(bytes.saturating_sub(self.bash_bytes.min(bytes))),
            generic_bytes: self.generic_bytes.min(bytes),
            line_bytes: self.line_bytes.min(bytes),
            ..*self
        }
    }

    fn bash(&self) -> Budget {
        Budget {
            head: self.bash_head,
            tail: self.bash_tail,
            diagnostics: self.diagnostics * 16,
            max_bytes: self.bash_bytes.max(256),
            // A kept line shows its first 150 characters or so.
            max_line_bytes: self.line_bytes.clamp(64, 240),
            // A type checker's error with its types spelled out (tsc's
            // `Argument of type '{ … }' is not assignable to parameter of
            // type '{ … }'.`, 500 to 700 bytes) stays whole, within the
            // form's room.
            max_failure_line_bytes: self
                .line_bytes
                .saturating_mul(2)
                .min(self.bash_bytes.max(256).saturating_add(self.bash_grow))
                .max(64),
            grow: self.bash_grow,
        }
    }

    fn stderr(&self) -> Budget {
        Budget {
            head: 0,
            tail: self.stderr_tail,
            diagnostics: self.diagnostics / 2,
            max_bytes: self.bash_bytes.max(256),
            max_line_bytes: self.line_bytes.max(64),
            max_failure_line_bytes: self.line_bytes.max(64),
            grow: self.bash_grow / 2,
        }
    }

    fn generic(&self) -> Budget {
        Budget {
            head: self.generic_lines,
            tail: self.generic_lines,
            diagnostics: self.diagnostics,
            max_bytes: self.generic_bytes.max(256),
            max_line_bytes: self.line_bytes.max(64),
            max_failure_line_bytes: self.line_bytes.max(64),
            grow: 0,
        }
    }
}

/// The rule of a built-in tool.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Builtin {
    pub(crate) kind: ToolKind,
    pub(crate) limits: RuleLimits,
}

impl CompressRule for Builtin {
    fn compress(&self, input: RuleInput<'_>) -> Result<Value, RuleError> {
        let l = &self.limits;
        let data = input.data;
        Ok(match (self.kind, data) {
            (ToolKind::Ls, Value::Object(o)) if o.contains_key("entries") => ls(o, l),
            (ToolKind::Glob, Value::Object(o)) if o.contains_key("paths") => glob(o, l),
            (ToolKind::Grep, Value::Object(o)) if o.contains_key("matches") => grep(o, l),
            (ToolKind::Read, Value::Object(o)) if o.contains_key("content") => read(o, l),
            (ToolKind::Edit | ToolKind::MultiEdit, Value::Object(o))
                if o.contains_key("diff") || o.contains_key("edits") =>
            {
                edit(o, l)
            }
            (ToolKind::Write, Value::Object(o)) if o.contains_key("content") => write(o, l),
            (ToolKind::Bash, Value::Object(o)) if o.contains_key("stdout") || o.contains_key("stderr") => {
                bash(o, l)
            }
            (ToolKind::TodoWrite, Value::Object(o)) if o.contains_key("todos") => todos(data, l),
            (kind, Value::String(text)) => Value::String(text_rule(Some(kind), text, l)),
            // Other shapes, including this rule's own output: left alone
            // unless large, so that the rule stays idempotent.
            (_, Value::Object(_) | Value::Array(_)) if json_len(data) <= 4 * l.generic_bytes => data.clone(),
            // Large and of another shape: its texts condensed where they
            // are (TOOL-14); when that is not enough, the tool's text rule
            // over the pretty JSON, so that a second pass (which sees a
            // string) agrees.
            (kind, Value::Object(_) | Value::Array(_)) => {
                let budget = 4 * l.generic_bytes;
                let nested = condense_nested(data, budget, &|t, share| {
                    text_rule(Some(kind), t, &l.with_text_bytes(share))
                });
                if json_len(&nested) <= budget {
                    nested
                } else {
                    let pretty = serde_json::to_string_pretty(data).unwrap_or_default();
                    Value::String(text_rule(Some(kind), &pretty, l))
                }
            }
            _ => data.clone(),
        })
    }
}

/// The generic rule (TOOL-10), a [`CompressRule`] for any tool: text keeps
/// its head, tail and diagnostic lines within a byte budget; structured data
/// over the budget becomes such a text of its pretty JSON.
#[derive(Debug, Clone, Copy, Default)]
pub struct GenericRule {
    limits: RuleLimits,
}

impl GenericRule {
    /// The generic rule with these limits.
    pub fn new(limits: RuleLimits) -> Self {
        GenericRule { limits }
    }
}

impl CompressRule for GenericRule {
    fn compress(&self, input: RuleInput<'_>) -> Result<Value, RuleError> {
        Ok(generic(input.data, &self.limits))
    }
}

pub(crate) fn generic(data: &Value, l: &RuleLimits) -> Value {
    match data {
        Value::String(text) => Value::String(condense(text, &l.generic()).text.into_owned()),
        Value::Null | Value::Bool(_) | Value::Number(_) => data.clone(),
        _ => {
            if json_len(data) <= l.generic_bytes {
                return data.clone();
            }
            // Its texts condensed where they are (TOOL-14), or the pretty
            // JSON condensed as text when that is not enough.
            let nested = condense_nested(data, l.generic_bytes, &|t, share| {
                condense(t, &l.with_text_bytes(share).generic()).text.into_owned()
            });
            if json_len(&nested) <= l.generic_bytes {
                return nested;
            }
            let pretty = serde_json::to_string_pretty(data).unwrap_or_default();
            Value::String(condense(&pretty, &l.generic()).text.into_owned())
        }
    }
}

/// Texts of structured data longer than this are condensed where they are
/// (TOOL-14).
const LONG_TEXT: usize = 256;

/// `data` with every text longer than [`LONG_TEXT`] bytes, however deep,
/// replaced by `rule(text, share)`: the long texts share what `budget`
/// leaves after the rest of the data, with room for JSON escapes, and
/// each gets at least [`LONG_TEXT`] bytes (TOOL-14).
fn condense_nested(data: &Value, budget: usize, rule: &dyn Fn(&str, usize) -> String) -> Value {
    fn long_texts(v: &Value, n: &mut usize, bytes: &mut usize) {
        match v {
            Value::String(t) if t.len() > LONG_TEXT => {
                *n += 1;
                *bytes += json_len(v);
            }
            Value::Array(items) => items.iter().for_each(|x| long_texts(x, n, bytes)),
            Value::Object(map) => map.values().for_each(|x| long_texts(x, n, bytes)),
            _ => {}
        }
    }
    fn apply(v: &Value, share: usize, rule: &dyn Fn(&str, usize) -> String) -> Value {
        match v {
            Value::String(t) if t.len() > LONG_TEXT => Value::String(rule(t, share)),
            Value::Array(items) => Value::Array(items.iter().map(|x| apply(x, share, rule)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, x)| (k.clone(), apply(x, share, rule)))
                    .collect(),
            ),
            _ => v.clone(),
        }
    }
    let (mut n, mut long) = (0, 0);
    long_texts(data, &mut n, &mut long);
    if n == 0 {
        return data.clone();
    }
    let rest = json_len(data) - long;
    let share = (budget.saturating_sub(rest) * 4 / 5 / n).max(LONG_TEXT);
    apply(data, share, rule)
}

pub(crate) fn text_rule(kind: Option<ToolKind>, text: &str, l: &RuleLimits) -> String {
    match kind {
        Some(ToolKind::Ls) => list_text(text, l.ls_entries, "entries", l),
        Some(ToolKind::Glob) => list_text(text, l.glob_paths, "paths", l),
        Some(ToolKind::Grep) => list_text(text, l.grep_matches, "matches", l),
        Some(ToolKind::Read) => head_text(text, l.read_lines, l.read_bytes, l),
        Some(ToolKind::Edit | ToolKind::MultiEdit | ToolKind::Write) => {
            head_text(text, l.snippet_lines, l.generic_bytes.max(l.line_bytes * 4), l)
        }
        Some(ToolKind::Bash) => match ShellOutput::parse(text) {
            // Codex CLI's `{"output": …, "metadata": {"exit_code": …}}` and
            // `exec_command`'s header: what the command printed is condensed
            // in place, and the envelope keeps its exit code, not its timing.
            Some(structured) => {
                // What the envelope keeps comes out of the form's room.
                let mut budget = l.bash();
                budget.max_bytes = budget
                    .max_bytes
                    .saturating_sub(structured.envelope_bytes())
                    .max(256);
                let condensed = condense(structured.output(), &budget).text.into_owned();
                structured.condensed(condensed)
            }
            None => condense(text, &l.bash()).text.into_owned(),
        },
        _ => condense(text, &l.generic()).text.into_owned(),
    }
}

/// A header line, the first `n` lines and a marker; unchanged when it has
/// at most `n + 2` short lines.
fn list_text(text: &str, n: usize, noun: &str, l: &RuleLimits) -> String {
    let total = line_count(text.as_bytes());
    if total <= n + 2 && text.lines().all(|x| x.len() <= l.line_bytes) {
        return text.to_owned();
    }
    let mut header = format!("{total} {noun}");
    if noun == "matches" {
        header.push_str(&format!(" in {} files", distinct_prefixes(text)));
    }
    let mut out = vec![header];
    out.extend(
        text.lines()
            .take(n)
            .map(|x| cap_line(x.trim_end_matches('\r'), l.line_bytes).into_owned()),
    );
    if total > n {
        out.push(format!("[… {} more {noun} …]", total - n));
    }
    out.join("\n")
}

/// The number of distinct `file` parts of `file:line:text` lines. Search
/// output comes grouped by file, so a line is only looked up when its file
/// differs from the previous line's.
fn distinct_prefixes(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut seen: HashSet<&[u8]> = HashSet::new();
    let mut previous: &[u8] = &[];
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        if let Some(colon) = memchr::memchr(b':', line) {
            let file = &line[..colon];
            if file != previous {
                seen.insert(file);
                previous = file;
            }
        }
        start = end + 1;
    }
    seen.len()
}

/// The first lines of `text` within `max_lines` and `max_bytes`, then a
/// marker; unchanged when it fits.
fn head_text(text: &str, max_lines: usize, max_bytes: usize, l: &RuleLimits) -> String {
    let total = line_count(text.as_bytes());
    if total <= max_lines + 1 && text.len() <= max_bytes && text.lines().all(|x| x.len() <= l.line_bytes) {
        return text.to_owned();
    }
    head_text_of(text, total, max_lines, max_bytes, l)
}

/// [`head_text`] for a text of `total` lines that does not fit.
fn head_text_of(text: &str, total: usize, max_lines: usize, max_bytes: usize, l: &RuleLimits) -> String {
    let mut out = String::new();
    let mut kept = 0;
    for line in text.lines().take(max_lines) {
        let line = cap_line(line.trim_end_matches('\r'), l.line_bytes);
        if out.len() + line.len() + 40 > max_bytes {
            break;
        }
        out.push_str(&line);
        out.push('\n');
        kept += 1;
    }
    if total > kept {
        out.push_str(&gap_marker(total - kept));
    } else {
        out.pop();
    }
    out
}

mod tools;
use tools::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::{canonical, canonical_call};

    #[test]
    fn aliases() {
        assert_eq!(canonical("read_file"), Some(ToolKind::Read));
        assert_eq!(canonical("Execute-Command"), Some(ToolKind::Bash));
        assert_eq!(canonical("search_files"), Some(ToolKind::Grep));
        assert_eq!(canonical("list_files"), Some(ToolKind::Ls));
        assert_eq!(canonical("write_to_file"), Some(ToolKind::Write));
        assert_eq!(canonical("replace_in_file"), Some(ToolKind::Edit));
        assert_eq!(canonical("Task"), None);
        assert_eq!(
            canonical_call("str_replace_editor", &json!({"command": "view"})),
            Some(ToolKind::Read)
        );
        assert_eq!(
            canonical_call("str_replace_editor", &json!({"command": "create"})),
            Some(ToolKind::Write)
        );
    }

    #[test]
    fn tool_8_codex_shell_output_kept_as_json_is_condensed_inside() {
        let mut printed: String = (0..400)
            .map(|i| format!("   Compiling dep{i} v0.1.{i}\n"))
            .collect();
        printed.push_str("error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:4:13\n");
        printed.push_str("error: could not compile `app` (bin \"app\") due to 1 previous error\n");
        let text =
            json!({"output": printed, "metadata": {"exit_code": 101, "duration_seconds": 2.5}}).to_string();
        let args = json!({"command": ["bash", "-lc", "cargo build"]});
        let form = text_rule(canonical_call("shell", &args), &text, &RuleLimits::default());
        let read = ShellOutput::parse(&form).expect("still the object");
        assert_eq!(read.exit_code(), Some(101));
        let out = read.output();
        assert!(
            out.contains("error[E0425]: cannot find value `x` in this scope"),
            "{out}"
        );
        assert!(out.contains("error: could not compile `app`"), "{out}");
        assert!(form.len() * 5 < text.len(), "{} of {}", form.len(), text.len());
        assert!(
            !form.contains("duration_seconds"),
            "the moment's timing goes: {form}"
        );
        assert_eq!(
            text_rule(canonical_call("shell", &args), &form, &RuleLimits::default()),
            form,
            "idempotent"
        );
    }

    /// TOOL-8: Codex CLI's `exec_command` answers under a header; its form
    /// keeps the exit code and drops the chunk id, wall time and token
    /// count, which say nothing once the call is past.
    #[test]
    fn tool_8_codex_exec_output_keeps_its_exit_code_not_its_timing() {
        let mut printed: String = (0..300)
            .map(|i| format!("tests/test_{i}.py::test_ok PASSED\n"))
            .collect();
        printed.push_str("FAILED tests/test_x.py::test_y - AssertionError: 1 != 2\n");
        let text = format!(
            "Chunk ID: 9c1f2e\nWall time: 12.0480 seconds\nProcess exited with code 1\nOriginal token count: 4100\nOutput:\n{printed}"
        );
        let kind = canonical_call("exec_command", &json!({"cmd": "pytest -q"}));
        let form = text_rule(kind, &text, &RuleLimits::default());
        assert!(
            form.starts_with("Process exited with code 1\nOutput:\n"),
            "{form}"
        );
        let read = ShellOutput::parse(&form).expect("still under its header");
        assert_eq!(read.exit_code(), Some(1));
        assert!(read.output().contains("FAILED tests/test_x.py::test_y"), "{form}");
        assert_eq!(text_rule(kind, &form, &RuleLimits::default()), form, "idempotent");
        // A short answer keeps what it printed whole, without the timing.
        let short = "Chunk ID: 1\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nok\n";
        assert_eq!(
            text_rule(kind, short, &RuleLimits::default()),
            "Process exited with code 0\nOutput:\nok\n"
        );
    }

    fn bash_form(text: &str) -> String {
        text_rule(Some(ToolKind::Bash), text, &RuleLimits::default())
    }

    /// TOOL-8: a type checker's errors with their types spelled out (tsc's,
    /// 500 to 700 bytes each) stay whole, up to twice `line_bytes`; a longer
    /// one is cut there, and a line that is no failure at 240 bytes.
    #[test]
    fn tool_8_a_long_error_line_stays_whole() {
        let ty = |n: usize| {
            format!(
                "'{{ code: \"invalid_type\"; input: unknown; {} }}'",
                "readonly x: number; ".repeat(n)
            )
        };
        let error = |i: usize, n: usize| {
            format!("src/core/checks.ts({i},27): error TS2345: Argument of type {} is not assignable to parameter of type {}.", ty(n), ty(n))
        };
        let mut log = String::new();
        for i in 0..40 {
            log.push_str(&format!(
                "note: checking module {i} of the project with the strictest settings on, {}\n",
                "x".repeat(300)
            ));
        }
        let (long, longer) = (error(96, 14), error(147, 30));
        assert!(
            (600..800).contains(&long.len()) && longer.len() > 800,
            "{} {}",
            long.len(),
            longer.len()
        );
        log.push_str(&format!("{long}\n{longer}\n"));
        let form = bash_form(&log);
        assert!(form.lines().any(|l| l == long), "{form}");
        let cut = form
            .lines()
            .find(|l| l.starts_with("src/core/checks.ts(147,27)"))
            .unwrap_or_default();
        assert!(cut.len() < longer.len() && cut.contains("[… "), "{cut}");
        assert!(
            form.lines().all(|l| l.starts_with("src/") || l.len() <= 280),
            "{form}"
        );
        // Within a small budget, no line is longer than the text's room.
        let small = RuleLimits::default().with_text_bytes(300).bash();
        assert!(
            small.max_failure_line_bytes <= 300,
            "{}",
            small.max_failure_line_bytes
        );
    }

    #[test]
    fn tool_8_a_rust_panic_keeps_its_message_and_operands() {
        // cargo test's shape: the message follows `panicked at …:` on its
        // own line; an assertion's operands follow the assertion.
        let mut log: String = (0..150)
            .map(|i| {
                format!(
                    "test m{}::tests::case_{i} ... {}\n",
                    i / 10,
                    if i == 33 || i == 97 { "FAILED" } else { "ok" }
                )
            })
            .collect();
        log.push_str("\nfailures:\n\n---- m3::tests::case_33 stdout ----\n");
        log.push_str("thread 'm3::tests::case_33' panicked at src/m3.rs:120:9:\nassertion `left == right` failed\n  left: 3\n  right: 4\n");
        log.push_str("note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n");
        log.push_str(
            "---- m9::tests::case_97 stdout ----\nthread 'm9::tests::case_97' panicked at src/m9.rs:44:5:\n",
        );
        log.push_str("called `Option::unwrap()` on a `None` value\n\n\nfailures:\n    m3::tests::case_33\n    m9::tests::case_97\n\n");
        log.push_str("test result: FAILED. 148 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.52s\n");
        let form = bash_form(&log);
        for kept in [
            "called `Option::unwrap()` on a `None` value",
            "assertion `left == right` failed",
            "  left: 3",
            "  right: 4",
            "test result: FAILED. 148 passed; 2 failed",
        ] {
            assert!(form.contains(kept), "{kept}:\n{form}");
        }
        assert!(form.len() * 3 < log.len(), "{} of {}", form.len(), log.len());
    }

    #[test]
    fn tool_8_a_jest_failure_keeps_what_was_expected_and_received() {
        let mut log = String::from("> jest --ci\n\n");
        for i in 0..60 {
            if i == 41 {
                log.push_str("FAIL src/Widget41.test.tsx (5.1 s)\n  ● Widget41 › renders the title\n\n");
                log.push_str("    expect(received).toBe(expected) // Object.is equality\n\n");
                log.push_str("    Expected: \"Hello 41\"\n    Received: \"Hello\"\n\n");
                log.push_str("      at Object.<anonymous> (src/Widget41.test.tsx:13:21)\n\n");
            } else {
                log.push_str(&format!(
                    "PASS src/Widget{i}.test.tsx\n  ✓ renders ({i} ms)\n  ✓ updates ({i} ms)\n"
                ));
            }
        }
        log.push_str(
            "\nTest Suites: 1 failed, 59 passed, 60 total\nTests:       1 failed, 119 passed, 120 total\n",
        );
        let form = bash_form(&log);
        for kept in [
            "● Widget41 › renders the title",
            "Expected: \"Hello 41\"",
            "Received: \"Hello\"",
            "Tests:       1 failed, 119 passed, 120 total",
        ] {
            assert!(form.contains(kept), "{kept}:\n{form}");
        }
        assert!(
            !form.contains("PASS src/Widget3.test.tsx"),
            "passing suites are noise:\n{form}"
        );
    }

    #[test]
    fn hunk_ranges() {
        assert_eq!(
            changed_ranges("@@ -1,3 +1,4 @@\n x\n@@ -20 +21 @@\n"),
            vec!["1-4", "21"]
        );
    }
}

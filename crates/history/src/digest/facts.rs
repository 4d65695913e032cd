//! What a tool call and its output say: the program a command runs, the
//! path an action touches, a run's outcome and its last error (found by
//! `last_error`), the note left where a result is cleared (REACT-6).

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;
use strata_ctx_compress::{
    as_shown, is_count, is_exit_status, is_verdict, line_kind, reports_no_failures, without_colours, LineKind,
};
use strata_ctx_core::{Message, ResultStatus, ToolCall};
use strata_ctx_tools::{classify, command, command_gist, only_inspects, ToolKind};

use super::last_error::last_error_line;
use super::{CommandFact, MAX_COMMAND_CHARS, MAX_LINE_CHARS};

/// The file a call names ([`strata_ctx_tools::path`], under every
/// agent's argument names).
pub fn path_argument(arguments: &Value) -> Option<String> {
    strata_ctx_tools::path(arguments).map(str::to_owned)
}

/// The shell command a call runs, when it is a shell call (`Bash` and every
/// agent's alias, Codex CLI's argument vectors among them) or another tool
/// that takes a `command` line ([`strata_ctx_tools::command`]).
pub fn command_argument(call: &ToolCall) -> Option<Cow<'_, str>> {
    if classify(&call.name, &call.arguments).is_some_and(|k| k != ToolKind::Bash) {
        return None;
    }
    command(&call.arguments)
}

pub(crate) fn shell_writes() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?:sed -i\S*\s+(?:'[^']*'|"[^"]*"|\S+)\s+|>\s*|\btee\s+(?:-a\s+)?)([\w./-]+\.\w+)"#)
            .unwrap_or_else(|_| never())
    })
}

pub(crate) fn exit_status() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(?:exit(?:ed with)? (?:code|status)|returncode|return code)\D{0,3}(-?\d+)")
            .unwrap_or_else(|_| never())
    })
}

#[cold]
pub(crate) fn never() -> Regex {
    // The patterns above are constants that compile; this keeps the
    // library free of panics should that ever change: nothing matches.
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| never())
}

/// How many lines above a run's last count its other closing counts may
/// stand ([`command_fact`]): Jest's, Vitest's and Playwright's blocks (of
/// a run that failed, any count above may say what failed).
const SUMMARY_BLOCK_LINES: usize = 8;

/// The fewest characters of a line taken for a failure or a verdict: a
/// shorter one (`FAIL`, `Error:`) is a bare status.
pub(super) const MIN_FAILURE_CHARS: usize = 8;

/// Among how many of an output's last lines with text a runner's closing
/// verdict stands ([`command_fact`]).
const CLOSING_LINES: usize = 3;
/// How many words a closing verdict says at least: a table's heading
/// (tsc's `Errors  Files`) says less.
const CLOSING_WORDS: usize = 3;

pub(crate) fn cut(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

/// What a run printed, as a tool's result holds it
/// ([`output_text`], [`read_run`]).
#[derive(Debug, Default)]
pub(crate) struct Run {
    /// Every string of the result, joined by newlines.
    pub(crate) text: String,
    /// The exit code the result or the output reports.
    pub(crate) code: Option<i64>,
    /// The session of a process still running when the call returned, as
    /// a shell's envelope says it (Codex CLI's `Process running with
    /// session ID 7`, [`strata_ctx_tools::ShellOutput::session_id`]).
    pub(crate) session: Option<i64>,
}

impl Run {
    /// Appends `text` on a line of its own; a shell's output kept as JSON
    /// gives what it printed, its exit code and its session.
    fn push(&mut self, text: &str) {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        // A history form's recall handle is Strata's, not the tool's.
        let text = crate::shrink::without_recall_handle(text);
        match strata_ctx_tools::ShellOutput::parse(text) {
            Some(structured) => {
                self.text.push_str(structured.output());
                self.code = self.code.or(structured.exit_code());
                self.session = self.session.or(structured.session_id());
            }
            None => self.text.push_str(text),
        }
    }
}

/// Every string of a result, joined by newlines, with the exit code and
/// the running session a structured result reports (a result's data, or
/// a text that is a shell's output kept as JSON,
/// [`strata_ctx_tools::ShellOutput`]).
pub(crate) fn output_text(message: &Message) -> Run {
    fn walk(v: &Value, run: &mut Run) {
        match v {
            Value::String(s) => run.push(s),
            Value::Array(items) => items.iter().for_each(|x| walk(x, run)),
            Value::Object(map) => {
                for (k, x) in map {
                    if matches!(
                        k.as_str(),
                        "exit_code" | "exitCode" | "returncode" | "status_code"
                    ) {
                        run.code = run.code.or(x.as_i64());
                    }
                    walk(x, run);
                }
            }
            _ => {}
        }
    }
    // The text first: a shell's output recorded as a JSON object (Codex
    // CLI's `shell`) gives what it printed and its exit code.
    let mut run = Run::default();
    run.push(&message.content);
    if let Some(result) = &message.result {
        walk(&result.data, &mut run);
        if let Some(e) = &result.error {
            run.text.push('\n');
            run.text.push_str(&e.message);
        }
    }
    run
}

/// The longest outcome and error an [`outcome_note`] shows, in
/// characters: the note stands under every cleared result that went wrong.
const NOTE_OUTCOME_CHARS: usize = 100;
/// See [`NOTE_OUTCOME_CHARS`].
pub(super) const NOTE_ERROR_CHARS: usize = 160;

/// What a command's result that leaves the window must still say: its
/// outcome and last error line, `exit 1; 1 failed, 4 passed; last error:
/// E   AssertionError: 2 != 3`, as the digest records them. `None` when
/// the call runs no program (a read, an edit, `cat`, `grep`) or nothing
/// in the output went wrong.
///
/// A tool result cleared to save tokens keeps this line under its recall
/// handle (HIST-6, #30.3): the step's call stays in the window, and so
/// does what came of it.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{Message, ToolCall, ToolResult};
/// use strata_ctx_history::outcome_note;
///
/// let call = ToolCall::new("c1", "bash", json!({"command": "python -m pytest -q"}));
/// let out = "F.\nE   AssertionError: 2 != 3\n1 failed, 1 passed in 0.1s\n<returncode>1</returncode>";
/// let result = Message::tool_result(&call, ToolResult::success(out));
/// assert_eq!(
///     outcome_note(&call, &result).as_deref(),
///     Some("exit 1; 1 failed, 1 passed in 0.1s; last error: E   AssertionError: 2 != 3")
/// );
/// let ok = Message::tool_result(&call, ToolResult::success("2 passed in 0.1s\n<returncode>0</returncode>"));
/// assert_eq!(outcome_note(&call, &ok), None);
/// ```
pub fn outcome_note(call: &ToolCall, result: &Message) -> Option<String> {
    let command = command_argument(call)?;
    if only_inspects(&command) {
        return None;
    }
    let failed = result
        .result
        .as_ref()
        .is_some_and(|r| r.status == ResultStatus::Error);
    let run = read_run(Some(result));
    // As the outcome says it: the exit code when there is one.
    let failed_run = run.code.map_or(failed, |code| code != 0);
    let (fact, outcome) = command_fact_and_outcome(&command, run, failed);
    if !(failed_run || fact.error.is_some() || fact.failing_summary.is_some()) {
        return None;
    }
    // Each part of the outcome on its own: a long summary (cargo's `test
    // result: FAILED. 19 passed; 1 failed; 0 ignored; …`) leaves the
    // verdict after it whole (`error: test failed, to rerun pass `--test
    // it``).
    let mut parts: Vec<String> = outcome.iter().map(|part| cut(part, NOTE_OUTCOME_CHARS)).collect();
    parts.extend(
        fact.error
            .map(|e| format!("last error: {}", cut(&e, NOTE_ERROR_CHARS))),
    );
    Some(parts.join("; "))
}

/// The last warning line of `text` with a message, trimmed: what a run
/// that printed no failure failed on.
fn last_warning_line(text: &str) -> Option<Cow<'_, str>> {
    last_warning(text, |_| true).map(Cow::Borrowed)
}

/// The last warning line of `text` with a message that `also` holds for,
/// trimmed.
pub(super) fn last_warning(text: &str, also: impl Fn(&str) -> bool) -> Option<&str> {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| l.chars().count() >= MIN_FAILURE_CHARS && line_kind(l) == LineKind::Warning && also(l))
}

/// What a run printed, its exit code (the envelope's, else the last exit
/// status the output states) and its running session.
pub(super) fn read_run(result: Option<&Message>) -> Run {
    let mut run = result.map(output_text).unwrap_or_default();
    run.code = run.code.or_else(|| {
        exit_status()
            .captures_iter(&run.text)
            .last()
            .and_then(|c| c.get(1)?.as_str().parse().ok())
    });
    run
}

/// The fact of a command whose run printed `text` and ended with `code`
/// ([`read_run`]); `failed` when the tool marked its result failed.
pub(super) fn command_fact(command: &str, run: Run, failed: bool) -> CommandFact {
    command_fact_and_outcome(command, run, failed).0
}

/// The fact of a command ([`command_fact`]) and the parts its outcome
/// joins (the exit status, the summary, the verdict after it).
fn command_fact_and_outcome(command: &str, run: Run, failed: bool) -> (CommandFact, Vec<String>) {
    let Run { text, code, .. } = run;
    // Colour codes are how a tool printed, not what it said; a line a
    // progress bar redrew is what a terminal shows of it.
    let shown = as_shown(&text);
    let text = without_colours(&shown);
    // The run's verdict: its test summary, else, when it did not succeed,
    // how its build or runner ended (`error: could not compile `app` due
    // to 2 previous errors`, `FAIL\texample.com/api\t0.01s`, `make: ***
    // [all] Error 2`, `error: command '/usr/bin/gcc' failed with exit code
    // 1`), but a bare status or exit code, which the exit code says.
    // A line that says nothing failed (`SUCCESS: no error occurred`) is
    // the verdict of a check the agent wrote.
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    // A run's count (`strata_ctx_compress::is_count`), or a line that says
    // nothing failed.
    let is_summary = |l: &&str| is_count(l) || reports_no_failures(l);
    // The last verdict that says something failed, else the last one
    // (`go test ./...` closes on the packages that passed after those
    // that failed).
    fn verdict_in<'a>(lines: &[&'a str]) -> Option<&'a str> {
        let verdicts = || {
            lines
                .iter()
                .rev()
                .filter(|l| l.chars().count() >= MIN_FAILURE_CHARS && is_verdict(l) && !is_exit_status(l))
        };
        verdicts()
            .find(|l| line_kind(l) == LineKind::Failure)
            .or_else(|| verdicts().next())
            .copied()
    }
    let summary_at = lines.iter().rposition(is_summary);
    // A runner's last word after its summary, among the last lines
    // (Django's `runtests.py` closes `FAILED (errors=1)` with `1 test(s)
    // failed!`, cargo its `test result:` with `error: test failed, to
    // rerun pass `--lib``), when it says something failed; not a table's
    // heading that rows follow (tsc's `Errors  Files`), nor ESLint's
    // count of what `--fix` could fix.
    let closing = summary_at.and_then(|at| {
        let printed: Vec<&str> = lines[at + 1..]
            .iter()
            .copied()
            .filter(|l| !l.is_empty())
            .collect();
        verdict_in(&printed[printed.len().saturating_sub(CLOSING_LINES)..])
            .filter(|l| line_kind(l) == LineKind::Failure && l.split_whitespace().count() >= CLOSING_WORDS)
    });
    // Of the runner's closing counts, the last that says something failed
    // (Jest's `Test Suites: 2 failed, 2 total` over `Tests: 0 total`,
    // Playwright's `1 failed` over `2 passed (23.0s)`); of a run that
    // failed, the last such count of any of its parts (the test binary
    // whose `test result: FAILED.` stands above the doc-tests' `test
    // result: ok.` that close `cargo test`). A run whose runner closes on
    // a failure after its summary (`error: 1 target failed:`) failed, when
    // its tool left the exit code out.
    let run_failed = failed || code.map_or(closing.is_some(), |c| c != 0);
    let failing_at = summary_at.and_then(|at| {
        let from = if run_failed {
            0
        } else {
            at.saturating_sub(SUMMARY_BLOCK_LINES)
        };
        (from..=at)
            .rev()
            .find(|&i| is_summary(&lines[i]) && line_kind(lines[i]) == LineKind::Failure)
    });
    let summary = match failing_at.or(summary_at) {
        Some(at) => Some(lines[at]),
        None if code == Some(0) => None,
        None => verdict_in(&lines),
    };
    let mut outcome = Vec::new();
    match (code, failed) {
        (Some(code), _) => outcome.push(format!("exit {code}")),
        (None, true) => outcome.push("failed".to_owned()),
        (None, false) => {}
    }
    if let Some(summary) = summary {
        outcome.push(cut(summary, MAX_LINE_CHARS));
    }
    if let Some(closing) = closing {
        outcome.push(cut(closing, MAX_LINE_CHARS));
    }
    let fact = CommandFact {
        command: cut(&command_gist(command), MAX_COMMAND_CHARS),
        outcome: (!outcome.is_empty()).then(|| outcome.join("; ")),
        // The summary line shows in the outcome: the error is the last
        // other one; unless the summary is a verdict, not a count, with
        // what it says under it (a failed TAP test point over its
        // diagnostics), which the error then says whole.
        // A run that failed on its warnings alone (hadolint's `-:3 DL3008
        // warning: Pin versions in apt get install.`) failed on the last.
        error: match summary {
            Some(verdict) if !is_count(verdict) => match last_error_line(&text, None) {
                Some(error) if error.as_ref() == verdict.trim() => last_error_line(&text, summary),
                whole => whole,
            },
            _ => last_error_line(&text, summary),
        }
        .or_else(|| {
            (failed || code.is_some_and(|c| c != 0))
                .then(|| last_warning_line(&text))
                .flatten()
        })
        .map(|l| cut(&l, MAX_LINE_CHARS)),
        earlier_errors: Vec::new(),
        failing_summary: summary
            .filter(|s| line_kind(s) == LineKind::Failure)
            .map(|s| cut(s, MAX_LINE_CHARS)),
    };
    (fact, outcome)
}

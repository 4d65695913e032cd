//! What a tool call and its output say: the program a command runs, the
//! path an action touches, the error lines of an output (REACT-6).

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;
use strata_ctx_compress::{
    announced_message, announces_message, elaboration, is_announced_message, is_exit_status, is_pointed_code,
    is_verdict, line_kind, line_kind_in, reports_no_failures, without_colours, without_level_tag,
    without_process_name, LineKind,
};
use strata_ctx_core::{Message, ResultStatus, ToolCall};
use strata_ctx_tools::{classify, command, command_gist, program_of, ToolKind, INSPECTION_PROGRAMS};

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

/// A test run's summary: its counts (`3 passed, 1 failed`, Maven's `Tests
/// run: 17, Failures: 3`, testthat's `[ FAIL 3 | WARN 2 | SKIP 0 | PASS
/// 21 ]`) or unittest's `OK` and `FAILED (failures=1)`,
/// in capitals: Go's `ok  \texample.com/app` names one package that
/// passed, RSpec's `Failed examples:` heads a list.
pub(crate) fn test_summary() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i:\b\d+ (?:passed|failed|errors?|failures?)\b|^Ran \d+ tests?|test result:|Tests?:\s+\d+|Tests run: \d+, Failures: \d+)|^(?:OK|FAILED)\b|^\[ FAIL \d+ \| WARN \d+ \| SKIP \d+ \| PASS \d+ \]$",
        )
        .unwrap_or_else(|_| never())
    })
}

/// An exception's message, after its class (`Error: fetch 2 failed`,
/// `AssertionError: 3 failed`): no run's summary, whatever count it holds.
fn exception_message() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^(?:[\w.]*\.)?[A-Z]?\w*(?:Error|Exception): ").unwrap_or_else(|_| never()))
}

#[cold]
pub(crate) fn never() -> Regex {
    // The patterns above are constants that compile; this keeps the
    // library free of panics should that ever change: nothing matches.
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| never())
}

/// Whether a failure line ends on a link to where help is (pip's `ERROR:
/// ResolutionImpossible: for help visit https://pip.pypa.io/…`, Maven's
/// `[ERROR] [Help 1] http://cwiki.apache.org/…`): it points at the error
/// above it, which says what failed. Not when the words right before the
/// address say the tool acted on it (`ConnectionError: cannot reach
/// http://inventory.local/items`, `Failed to fetch from https://…`): the
/// address is what the error is about.
fn points_to_help(line: &str) -> bool {
    static ACTS: OnceLock<Regex> = OnceLock::new();
    let Some((before, link)) = line.trim_end().rsplit_once(char::is_whitespace) else {
        return false;
    };
    let acts = ACTS.get_or_init(|| {
        Regex::new(
            r"(?i)\b(?:reach|connect(?:ing)?(?: to)?|fetch(?:ing)?|GET|POST|PUT|PATCH|DELETE|HEAD|request(?:ing)?(?: to)?|download(?:ing)?|load(?:ing)?|open(?:ing)?|resolve|access(?:ing)?|from)\s*$",
        )
        .unwrap_or_else(|_| never())
    });
    (link.starts_with("https://") || link.starts_with("http://")) && !acts.is_match(before)
}

/// The fewest characters of a line taken for a failure or a verdict: a
/// shorter one (`FAIL`, `Error:`) is a bare status.
const MIN_FAILURE_CHARS: usize = 8;

/// The last failure line of an output, as its toolchain prints it
/// ([`strata_ctx_compress::line_kind`]), trimmed, other than `besides`
/// (a summary shown elsewhere) and other than a bare status (at least
/// eight characters, not a mere exit status): the last one with a message
/// (an error, an assertion, a failing test) when there is one, else the
/// last verdict (`FAIL\tpkg`, `BUILD FAILED`,
/// [`strata_ctx_compress::is_verdict`]); and among those with a message,
/// one that is a failure by its own words before one that is only by the
/// level tag its tool puts on every line (`npm ERR! `,
/// [`strata_ctx_compress::without_level_tag`]) and does not end on a link
/// to help about the error above it. A failure line that ends with a
/// colon and announces its message on the next line (Rust's `thread 'x'
/// panicked at src/a.rs:3:5:`) comes with that line, be it a failure line
/// itself (`Error: Unable to load file a.py:` above `[Errno 21] Is a
/// directory: 'a.py'`), when the two fit in 160 characters.
///
/// ```
/// use strata_ctx_history::last_error_line;
///
/// let log = "thread 'main' panicked at src/main.rs:4:5:\ncalled `Option::unwrap()` on a `None` value\n";
/// assert_eq!(
///     last_error_line(log, None).as_deref(),
///     Some("thread 'main' panicked at src/main.rs:4:5: called `Option::unwrap()` on a `None` value")
/// );
/// ```
pub fn last_error_line<'a>(text: &'a str, besides: Option<&str>) -> Option<Cow<'a, str>> {
    // A line is judged as printed too: indentation can say what it is
    // (`go test`'s `    a_test.go:12: got 81, want 90`).
    let failures = || {
        text.lines().rev().filter_map(move |line| {
            // What the line's process printed, without its name (Compose's
            // `api-1  | `): what is judged; the line is kept with it.
            let printed = without_process_name(line);
            let l = printed.trim();
            // Colour codes say nothing: a coloured `[ERROR] ` alone is as
            // bare as a plain one.
            let failure = without_colours(l).trim().chars().count() >= MIN_FAILURE_CHARS
                && Some(line.trim()) != besides
                && !is_exit_status(l)
                && match line_kind(l) {
                    LineKind::Failure => true,
                    kind => {
                        (printed.len() != l.len() && line_kind(printed) == LineKind::Failure)
                            // A warning raised as an exception, at the end
                            // of its traceback; a finding's message over
                            // its place (ansible-lint's `name[missing]: All
                            // tasks should be named.` over `site.yml:12`).
                            || (matches!(kind, LineKind::Warning | LineKind::Plain)
                                && line_kind_in(text, printed) == LineKind::Failure)
                    }
                }
                // Read in its place: a passing test's `go test -v` log is
                // noise, the code sbt echoes under an error is context;
                // the code a frame points at is code, though it throws
                // (Jest's `> 3 | throw new TypeError(…)`).
                && !matches!(line_kind_in(text, printed), LineKind::Noise | LineKind::Context)
                && !is_pointed_code(l);
            // Kept with its process's name, when it has one.
            failure.then_some(line.trim())
        })
    };
    // A failure by its own words before one only by its level tag (`npm
    // ERR! node_modules/react-select` under `npm ERR! Could not resolve
    // dependency:`), before a verdict.
    let own_words = |l: &str| {
        let plain = without_colours(without_process_name(l));
        let message = without_level_tag(&plain);
        message.len() == plain.len() || line_kind(message) == LineKind::Failure
    };
    let line = failures()
        .find(|l| !is_verdict(l) && own_words(l) && !points_to_help(l))
        .or_else(|| failures().find(|l| !is_verdict(l)))
        .or_else(|| failures().next())?;
    // `line` is a slice of `text`: what stands before it may announce it.
    let start = line.as_ptr() as usize - text.as_ptr() as usize;
    if let Some(logged) = go_test_log_above(line, &text[..start]) {
        return Some(Cow::Owned(format!("{line} {logged}")));
    }
    if let Some(why) = verdict_with_diagnostics(text, line, start) {
        return Some(Cow::Owned(why));
    }
    if let Some(section) = listed_test_section(line, &text[..start]) {
        if let Some(error) = last_error_line(section, None) {
            return Some(error);
        }
    }
    if let Some(above) = announcing_line_above(&text[..start]) {
        // Only whole: the message must survive the shortest cut a last
        // error gets.
        if above.chars().count() + 1 + line.chars().count() <= NOTE_ERROR_CHARS {
            return Some(Cow::Owned(format!("{above} {line}")));
        }
    }
    if !announces_message(line) {
        return Some(Cow::Borrowed(line));
    }
    // `line` is a slice of `text`: what follows it is its message, and
    // what follows a message that ends with a colon, the message it
    // announces in turn (Minitest's `4) Failure:` over `CartTest#test_hash
    // [test/cart_test.rb:8]:` over `Expected [] to include 1.`).
    let mut joined = Cow::Borrowed(line);
    let mut announcing = line;
    for _ in 0..ANNOUNCED_DEPTH {
        let end = announcing.as_ptr() as usize - text.as_ptr() as usize + announcing.len();
        let Some(message) = text
            .get(end..)
            .and_then(|after| announced_message(after).or_else(|| tagged_message(announcing, after)))
        else {
            break;
        };
        joined = Cow::Owned(format!("{joined} {}", message.trim()));
        if !message.trim_end().ends_with(':') {
            break;
        }
        announcing = message;
    }
    Some(joined)
}

/// The message a failure line under a level tag announces under the same
/// tag (`npm error Could not resolve dependency:` over `npm error peer
/// typescript@">=4.3 <7" from ts-jest@29.4.15`), given `after`, the text
/// that follows it: what the next line with more than its tag says, among
/// the next two, when that can be a message.
fn tagged_message<'a>(announcing: &str, after: &'a str) -> Option<&'a str> {
    if without_level_tag(announcing).len() == announcing.len() {
        return None;
    }
    let next = after
        .split('\n')
        .skip(1)
        .take(2)
        .map(|l| l.trim_end_matches('\r'))
        .find(|l| !without_level_tag(l).trim().is_empty())?;
    let message = without_level_tag(next);
    (message.len() < next.len() && is_announced_message(message)).then_some(message)
}

/// The section of a failed test a runner closes on the list of, when
/// `line` is a line of that list, as cargo-nextest prints it (`FAIL [
/// 0.141s] (162/162) cart tests::totals`), and `before` what precedes it:
/// from the same line where the run first printed it, over the test's
/// output (its panic), to the next test's status. The line only names the
/// test; its section says what went wrong.
fn listed_test_section<'a>(line: &str, before: &'a str) -> Option<&'a str> {
    static STATUS: OnceLock<Regex> = OnceLock::new();
    let status = STATUS.get_or_init(|| {
        Regex::new(r"(?m)^\s*(?:PASS|FAIL|SIGSEGV|SIGABRT|SIGKILL|TIMEOUT|LEAK|FLAKY|SLOW|Summary|Cancelling|START)\s+\[\s*[\d.]+m?s\]")
            .unwrap_or_else(|_| never())
    });
    let trimmed = line.trim();
    if !(trimmed.starts_with("FAIL") || trimmed.starts_with("SIG") || trimmed.starts_with("TIMEOUT"))
        || !status.is_match(trimmed)
    {
        return None;
    }
    let first = before.find(trimmed)? + trimmed.len();
    let rest = before.get(first..)?;
    let end = status.find(rest).map_or(rest.len(), |m| m.start());
    rest.get(..end)
}

/// How many messages, each announced by the one before, a last error line
/// takes along ([`last_error_line`]).
const ANNOUNCED_DEPTH: usize = 2;

/// Among how many of an output's last lines with text a runner's closing
/// verdict stands ([`command_fact`]).
const CLOSING_LINES: usize = 3;
/// How many words a closing verdict says at least: a table's heading
/// (tsc's `Errors  Files`) says less.
const CLOSING_WORDS: usize = 3;

/// How far above a Go test's `--- FAIL:` line the message it logged may
/// stand ([`go_test_log_above`]).
const GO_LOG_REACH: usize = 8;

/// The last message a failed Go test logged, as `go test -v` prints it: under
/// the test's `=== RUN` (or `=== CONT`) line, above its verdict (`    cart_test.go:26:
/// Remove("A") = false, want true` over `--- FAIL: TestRemove (0.00s)`),
/// when `line` is such a verdict and `before` is what precedes it. The
/// verdict alone names the test, not what went wrong.
fn go_test_log_above<'a>(line: &str, before: &'a str) -> Option<&'a str> {
    let name = line.strip_prefix("--- FAIL: ")?.split(" (").next()?;
    // What the test logged under its start line, which `from` begins with.
    let logged = |from: &'a str| {
        from.lines()
            .skip(1)
            .take_while(|l| !l.starts_with("=== ") && !l.trim_start().starts_with("--- "))
            .filter(|l| line_kind(l) == LineKind::Failure)
            .last()
            .map(str::trim)
    };
    // Under the test's own `=== RUN` or `=== CONT` line: a subtest's log
    // stands far above the listing of verdicts.
    let started = ["=== RUN   ", "=== CONT  "]
        .iter()
        .filter_map(|head| before.rfind(&format!("{head}{name}\n")))
        .max();
    match started {
        Some(at) => logged(before.get(at..)?),
        // Else the log right above the verdict.
        None => before
            .lines()
            .rev()
            .take(GO_LOG_REACH)
            .take_while(|l| l.starts_with([' ', '\t']) || l.trim().is_empty())
            .find(|l| line_kind(l) == LineKind::Failure)
            .map(str::trim),
    }
}

/// The last line of `before` (what precedes a failure line), trimmed,
/// when it is a failure line that announces a message: the failure the
/// line after it details. A one-word heading (`failures:`, as Cargo heads
/// its list of failed tests) announces a list, not a message.
fn announcing_line_above(before: &str) -> Option<&str> {
    let before = before.trim_end_matches([' ', '\t']).strip_suffix('\n')?;
    let above = before.rsplit('\n').next()?.trim();
    let words = above.trim_end_matches(':').split_whitespace().count();
    (above.chars().count() >= MIN_FAILURE_CHARS
        && words >= 2
        && announces_message(above)
        && line_kind(above) == LineKind::Failure)
        .then_some(above)
}

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

/// A verdict `line` (a slice of `text` from `start`) with the diagnostics
/// printed under it, when it has some: a TAP test point says why it failed
/// in the comments under it (bats' `not ok 3 ship succeeds` over `# (in
/// test file a.bats, line 14)` over `#   `[ "$status" -eq 0 ]' failed`).
/// All of them when they fit [`NOTE_ERROR_CHARS`], else the last.
fn verdict_with_diagnostics(text: &str, line: &str, start: usize) -> Option<String> {
    if !is_verdict(line) {
        return None;
    }
    // As printed, indentation and all: how deep the diagnostics stand.
    let printed = &text[text[..start].rfind('\n').map_or(0, |n| n + 1)..start + line.len()];
    let why: Vec<&str> = elaboration(printed, &text[start + line.len()..])
        .map(str::trim)
        .collect();
    let all = format!("{line} {}", why.join(" "));
    let last = format!("{line} {}", why.last()?);
    [all, last]
        .into_iter()
        .find(|joined| joined.chars().count() <= NOTE_ERROR_CHARS)
}

/// The longest outcome and error an [`outcome_note`] shows, in
/// characters: the note stands under every cleared result that went wrong.
const NOTE_OUTCOME_CHARS: usize = 100;
/// See [`NOTE_OUTCOME_CHARS`].
const NOTE_ERROR_CHARS: usize = 160;

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
    let program = program_of(&command);
    if INSPECTION_PROGRAMS.contains(&program.trim_start_matches("./")) {
        return None;
    }
    let failed = result
        .result
        .as_ref()
        .is_some_and(|r| r.status == ResultStatus::Error);
    let run = read_run(Some(result));
    // As the outcome says it: the exit code when there is one.
    let failed_run = run.code.map_or(failed, |code| code != 0);
    let fact = command_fact(&command, run, failed);
    if !(failed_run || fact.error.is_some() || fact.failing_summary.is_some()) {
        return None;
    }
    let mut parts: Vec<String> = fact
        .outcome
        .map(|o| cut(&o, NOTE_OUTCOME_CHARS))
        .into_iter()
        .collect();
    parts.extend(
        fact.error
            .map(|e| format!("last error: {}", cut(&e, NOTE_ERROR_CHARS))),
    );
    Some(parts.join("; "))
}

/// The last warning line of `text` with a message, trimmed: what a run
/// that printed no failure failed on.
fn last_warning_line(text: &str) -> Option<Cow<'_, str>> {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| l.chars().count() >= MIN_FAILURE_CHARS && line_kind(l) == LineKind::Warning)
        .map(Cow::Borrowed)
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
    let Run { text, code, .. } = run;
    // Colour codes are how a tool printed, not what it said.
    let text = without_colours(&text);
    // The run's verdict: its test summary, else, when it did not succeed,
    // how its build or runner ended (`error: could not compile `app` due
    // to 2 previous errors`, `FAIL\texample.com/api\t0.01s`, `make: ***
    // [all] Error 2`, `error: command '/usr/bin/gcc' failed with exit code
    // 1`), but a bare status or exit code, which the exit code says.
    // A line that says nothing failed (`SUCCESS: no error occurred`) is
    // the verdict of a check the agent wrote.
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    // ESLint's count of what `--fix` could fix is not the run's summary,
    // nor is an exception's message that holds a count (Node's `Error:
    // fetch 2 failed`).
    let is_summary = |l: &&str| {
        (test_summary().is_match(l)
            && !l.ends_with("potentially fixable with the `--fix` option.")
            && !exception_message().is_match(l))
            || reports_no_failures(l)
    };
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
    let summary = match summary_at {
        Some(at) => Some(lines[at]),
        None if code == Some(0) => None,
        None => verdict_in(&lines),
    };
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
    CommandFact {
        command: cut(&command_gist(command), MAX_COMMAND_CHARS),
        outcome: (!outcome.is_empty()).then(|| outcome.join("; ")),
        // The summary line shows in the outcome: the error is the last
        // other one.
        // A run that failed on its warnings alone (hadolint's `-:3 DL3008
        // warning: Pin versions in apt get install.`) failed on the last.
        error: last_error_line(&text, summary)
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
    }
}

#[cfg(test)]
mod tests {
    use super::points_to_help;

    #[test]
    fn a_link_to_help_is_told_from_an_address_an_error_is_about() {
        for line in [
            "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/",
            "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException",
            "npm ERR! https://docs.npmjs.com/cli/registry",
            "For more information see https://example.org/errors/E42",
            "(Background on this error at: https://sqlalche.me/e/21/f405)",
        ] {
            assert!(points_to_help(line), "{line}");
        }
        for line in [
            "ConnectionError: cannot reach http://inventory.local/items",
            "Error: failed to fetch from https://registry.example.org/index.json",
            "GET http://127.0.0.1:8000/orders/7",
            "ERROR: ResolutionImpossible: for help visit the docs",
            "https://pip.pypa.io",
        ] {
            assert!(!points_to_help(line), "{line}");
        }
    }
}

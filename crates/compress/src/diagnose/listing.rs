//! The source pytest lists in a traceback, the lines of a diff's hunk,
//! and the titles of examples that passed: not what went wrong.
//!
//! Under its default `--tb=auto` (and `long`, `short`), pytest prints each
//! entry of a traceback with the code around the failing line, indented by
//! four spaces, and above it the function's arguments (`error =
//! NewConnectionError(…)`). A library's code and docstrings are full of
//! failure words (`    if error and self._is_connection_error(error):`,
//! `        raise EmptyPoolError if no connection is free`): read alone,
//! such a line is a failure, and forty of them crowd out the `E` lines
//! that say what failed. Read in their place they are code.

use std::sync::OnceLock;

use regex::Regex;

use super::place::{closing, lines_above, span_in};
use super::prefix::without_process_name;
use super::{compiled, without_colours};

/// How many lines above a listed line the start of its entry may be: a
/// long function's code with its docstring fits.
const LISTING_REACH: usize = 400;

/// One of the arguments pytest prints over an entry's code: `caplog =
/// <_pytest.logging.LogCaptureFixture object at 0x7f…>`, `address =
/// ('127.0.0.1', 9), timeout = 2`.
fn argument() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^[A-Za-z_]\w* = \S")
}

/// Where pytest starts an entry: a failed test's title (`____ test_remote
/// ____`), the rule between two entries (`_ _ _ _`), an entry's place as
/// `--tb=short` and the short entries of `auto` open it
/// (`app/config.py:18: in fetch_remote`), or the line between two chained
/// exceptions (`The above exception was the direct cause of the following
/// exception:`, `During handling of the above exception, another exception
/// occurred:`).
fn entry_start() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        concat!(
            r"^(?:_{3,} \S.* _{3,}|(?:_ ){4,}_?|\S+\.pyi?:\d+: in \S+",
            r"|The above exception was the direct cause of the following exception:",
            r"|During handling of the above exception, another exception occurred:)\s*$",
        ),
    )
}

/// Whether `line`, a line of `text` as [`str::lines`] yields it, is code
/// or an argument pytest lists in a traceback entry: indented by four
/// spaces (or an argument, unindented), under the start of its entry
/// ([`entry_start`]) with only the entry's own lines between (code,
/// arguments, the `>` line it failed on, blank lines).
///
/// ```text
/// ____________________________ test_remote ____________________________
///
/// caplog = <_pytest.logging.LogCaptureFixture object at 0x7f9b6522a890>   ← listed
///
///     def test_remote(caplog):                                             ← listed
///         if error:                                                        ← listed
/// >       assert fetch_remote(URL)["port"] == 8080
/// E       requests.exceptions.ConnectionError: …
/// ```
pub(crate) fn is_listed(text: &str, line: &str) -> bool {
    let plain = without_colours(line);
    if ipython_code().is_match(&plain) && is_listed_by_ipython(text, line) {
        return true;
    }
    if !plain.starts_with("    ") && !argument().is_match(&plain) {
        return false;
    }
    let in_entry = |above: &str| {
        above.trim().is_empty()
            || above.starts_with("    ")
            || above.starts_with('>')
            || argument().is_match(above)
            // The worker pytest-xdist ran the test on, under its title
            // (`[gw1] linux -- Python 3.11.7 /usr/bin/python`).
            || above.starts_with("[gw")
    };
    let (start, _) = span_in(text, line);
    opened_above(
        text.as_bytes(),
        start,
        LISTING_REACH,
        |above| entry_start().is_match(above),
        in_entry,
    )
}

/// A line of the code IPython lists in a frame of its traceback, by its
/// number (`   2998     raise ValueError(`); the one the frame points at
/// (`--> 241         raise KeyError(…)`) is pointed code
/// ([`super::is_pointed_code`]), the code that ran, not listed around it.
fn ipython_code() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^\s+\d+(?: |$)")
}

/// Whether `line`, a line of `text` numbered as IPython's code
/// ([`ipython_code`]), stands in a frame of its traceback, under the
/// frame's heading (`Cell In[1], line 9`, `File /home/dev/a.py:6, in
/// load(lines)`) with only the frame's code between.
fn is_listed_by_ipython(text: &str, line: &str) -> bool {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    let frame = compiled(&FRAME, ipython_frame!());
    let (start, _) = span_in(text, line);
    opened_above(
        text.as_bytes(),
        start,
        LISTING_REACH,
        |above| frame.is_match(above),
        |above| ipython_code().is_match(above) || super::is_pointed_code(above),
    )
}

/// How many lines above a line of a diff's hunk the hunk's header may
/// be ([`in_diff_hunk`]).
const HUNK_REACH: usize = 400;

/// A hunk's header: a unified diff's (`@@ -12,7 +12,9 @@ fn main() {`, as
/// `git diff`, `diff -u`, Black's and isort's `--diff` print it) or
/// rustfmt's (`Diff in /src/lib.rs:19:`, `Diff in src/lib.rs at line
/// 19:` before rustfmt 1.5).
fn hunk_header() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"^(?:@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|Diff in \S.*(?::\d+| at line \d+):$)",
    )
}

/// Whether `line`, a line of `text` as [`str::lines`] yields it, is a
/// line of a diff's hunk: an unchanged line (a space first), an added or
/// removed one, under the hunk's header ([`hunk_header`]) with only the
/// hunk's own lines between. Such a line is code, whatever its words
/// (`         Err(error) => println!("failed to parse TOML: {error}"),`
/// in `cargo fmt --check`'s diff, a `git diff` of a test's assertions).
///
/// ```text
/// Diff in /src/main.rs:19:
///      match input.parse() {                                      ← in the hunk
/// -        Err(error) => println!("failed: {error}"),                ← in the hunk
/// +        Err(error) => {                                           ← in the hunk
/// ```
pub(crate) fn in_diff_hunk(text: &str, line: &str) -> bool {
    in_diff_hunk_at(text.as_bytes(), span_in(text, line).0, line)
}

/// [`in_diff_hunk`] for `line`, which starts at byte `start` of `text`,
/// bytes that need not all be UTF-8 (the end of an output the model's
/// view is cut from).
pub(crate) fn in_diff_hunk_at(text: &[u8], start: usize, line: &str) -> bool {
    let in_hunk = |l: &str| l.is_empty() || l.starts_with([' ', '+', '-', '\\']);
    in_hunk(without_process_name(&without_colours(line)))
        && opened_above(
            text,
            start,
            HUNK_REACH,
            |above| hunk_header().is_match(above),
            in_hunk,
        )
}

/// How far above an example's title the `Failures:` heading is looked
/// for ([`is_passed_example`]).
const HEADING_SEARCH_BYTES: usize = 256 * 1024;

/// Whether `line`, a line of `text` as [`str::lines`] yields it, is the
/// title of an example that passed, as RSpec's documentation format and
/// Hspec print each example under its group (`  raises an error on a
/// missing sku`), and the group's title over them: words with no mark of
/// their own, in an output that closes with their count of examples (`28
/// examples, 4 failures`, at its end, [`closing`]), above its `Failures:`
/// heading (none within [`HEADING_SEARCH_BYTES`] above). A failed
/// example's title carries its mark (`(FAILED - 1)`, `FAILED [1]`); one
/// that passed is what it is whatever its words.
pub(crate) fn is_passed_example(text: &str, line: &str) -> bool {
    static COUNT: OnceLock<Regex> = OnceLock::new();
    static TITLE: OnceLock<Regex> = OnceLock::new();
    let plain = without_colours(line);
    let title = compiled(&TITLE, r"^(?: {2})*[A-Za-z][^:()\[\]{}<>=|]*$");
    let is_title = |l: &str| title.is_match(l.trim_end()) && !l.contains("FAILED");
    if !is_title(&plain) {
        return false;
    }
    let (start, end) = span_in(text, line);
    // A group's title stands at the left, over its examples' titles.
    if !plain.starts_with(' ') {
        let next = text
            .get(end..)
            .and_then(|after| after.lines().nth(1))
            .unwrap_or_default();
        let next = without_colours(next);
        if !(next.starts_with("  ") && is_title(&next)) {
            return false;
        }
    }
    if !compiled(&COUNT, r"(?m)^\d+ examples?, \d+ failures?").is_match(closing(text)) {
        return false;
    }
    let from = start.min(text.len()).saturating_sub(HEADING_SEARCH_BYTES);
    let above = &text.as_bytes()[from..start.min(text.len())];
    // No heading above, at the start of its line.
    !memchr::memmem::find_iter(above, b"Failures:\n").any(|at| {
        at.checked_sub(1)
            .map_or(from == 0, |before| above[before] == b'\n')
    })
}

/// How far below a panic the verdicts of its tests are looked at
/// ([`is_expected_panic`]).
const VERDICT_SEARCH_BYTES: usize = 256 * 1024;

/// Whether `line`, a line of `text` as [`str::lines`] yields it, is a
/// thread's panic that failed no test, as `cargo test -- --nocapture`
/// prints a `#[should_panic]` test's panic and one a test caught (`thread
/// 'tests::rejects_zero' (13882) panicked at src/lib.rs:3:9:`): the run
/// closes with Rust's `test result: ok.` (at its end, [`closing`]), and
/// no test failed below the panic (no `test result: FAILED` nor `error:
/// test failed` within [`VERDICT_SEARCH_BYTES`]).
pub(crate) fn is_expected_panic(text: &str, line: &str) -> bool {
    let plain = without_colours(without_process_name(line));
    let said = plain.trim_start();
    if !(said.starts_with("thread '") && said.contains(" panicked at ")) {
        return false;
    }
    if memchr::memmem::find(closing(text).as_bytes(), b"test result: ok.").is_none() {
        return false;
    }
    let (_, end) = span_in(text, line);
    let end = end.min(text.len());
    let below = &text.as_bytes()[end..text.len().min(end.saturating_add(VERDICT_SEARCH_BYTES))];
    [&b"test result: FAILED"[..], b"error: test failed", b"FAILED."]
        .iter()
        .all(|verdict| memchr::memmem::find(below, verdict).is_none())
}

/// How many lines of npm's usage a usage error may print
/// ([`is_npm_usage`]): `npm ci`'s is about ninety.
const NPM_USAGE_REACH: usize = 400;

/// Whether `line`, a line of `text` as [`str::lines`] yields it, is part
/// of the usage npm prints under a usage error (`npm error code EUSAGE`
/// over `npm ci` refusing a lock file out of sync): from `npm error
/// Usage:` down to `npm error Run "npm help ci" for more info`, every line
/// under npm's level tag, which makes each a failure by its tag. The help
/// says nothing of what failed. Read only where the output closes with
/// that last line ([`closing`]).
pub(crate) fn is_npm_usage(text: &str, line: &str) -> bool {
    let tagged = super::levels::is_npm_error_line;
    let opens = |l: &str| tagged(l) && l.ends_with(" Usage:");
    let printed = without_colours(without_process_name(line));
    if !tagged(&printed) || memchr::memmem::find(closing(text).as_bytes(), b" for more info").is_none() {
        return false;
    }
    opens(&printed)
        || opened_above(
            text.as_bytes(),
            span_in(text, line).0,
            NPM_USAGE_REACH,
            opens,
            tagged,
        )
}

/// How many lines a flag's description may take in Go's usage
/// ([`is_go_flag_usage`]).
const FLAG_USAGE_REACH: usize = 8;

/// Whether `line`, a line of `text` as [`str::lines`] yields it, is the
/// description of a flag as Go's `flag` package prints a program's usage
/// (under `flag provided but not defined: -port`, and for `-h`): each
/// line of it indented by four spaces and a tab, under the flag's own
/// `  -timeout duration`. Whatever its words (`    \tstop at the first
/// failed job`), it is help.
pub(crate) fn is_go_flag_usage(text: &str, line: &str) -> bool {
    static FLAG: OnceLock<Regex> = OnceLock::new();
    const INDENT: &str = "    \t";
    let describes = |l: &str| l.starts_with(INDENT) && !l[INDENT.len()..].starts_with([' ', '\t']);
    describes(line)
        && opened_above(
            text.as_bytes(),
            span_in(text, line).0,
            FLAG_USAGE_REACH,
            |above| compiled(&FLAG, r"^  -[\w.-]+(?: [\w.]+)?$").is_match(above),
            describes,
        )
}

/// Whether a line that opens a block (`opens`: pytest's entry, a diff's
/// hunk) stands within `reach` lines above the line of `text` that holds
/// byte `start`, with only lines of the block (`within`) between; each
/// line above read as its process printed it, without colours (Compose's
/// `api-1  | ` left out: `start` may be where what follows it starts).
fn opened_above(
    text: &[u8],
    start: usize,
    reach: usize,
    opens: impl Fn(&str) -> bool,
    within: impl Fn(&str) -> bool,
) -> bool {
    let start = memchr::memrchr(b'\n', &text[..start.min(text.len())]).map_or(0, |i| i + 1);
    for (s, e) in lines_above(text, start).take(reach) {
        let printed = String::from_utf8_lossy(&text[s..e]);
        let printed = printed.trim_end_matches('\r');
        // Most lines of a block say so as printed: no need to read them
        // apart from their colours and process names.
        if within(printed) && !opens(printed) {
            continue;
        }
        let above = without_colours(printed);
        let above = without_process_name(&above);
        if opens(above) {
            return true;
        }
        if !within(above) {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TOOL-8: the descriptions of the flags Go's `flag` package lists
    /// are help, whatever their words; the error over them is not, nor is
    /// a line indented alike under anything but a flag.
    #[test]
    fn go_s_flag_descriptions_are_help() {
        let log = "flag provided but not defined: -port\nUsage of /tmp/go-build1/b001/exe/shop:\n  -addr string\n    \tlisten address (default \":8080\")\n\
                   \n  -fail-fast\n    \tstop at the first failed job\n    \tinstead of retrying it\n  -v\tverbose\nexit status 2\n";
        let help: Vec<&str> = log.lines().filter(|l| is_go_flag_usage(log, l)).collect();
        assert_eq!(
            help,
            [
                "    \tlisten address (default \":8080\")",
                "    \tstop at the first failed job",
                "    \tinstead of retrying it"
            ]
        );
        let elsewhere = "--- FAIL: TestX (0.00s)\n    \tfailed to connect\n";
        assert!(elsewhere.lines().all(|l| !is_go_flag_usage(elsewhere, l)));
    }

    /// TOOL-8: the usage npm prints under a usage error is noise, from its
    /// `Usage:` heading to its pointer to help, where the output closes
    /// with that pointer; the error above it is not.
    #[test]
    fn npm_s_usage_under_a_usage_error_is_help() {
        let log = "npm error code EUSAGE\nnpm error\nnpm error Missing: is-odd@3.0.1 from lock file\nnpm error\n\
                   npm error Clean install a project\nnpm error\nnpm error Usage:\nnpm error npm ci\nnpm error\n\
                   npm error Options:\nnpm error [--install-strategy <hoisted|nested|shallow|linked>] [--legacy-bundling]\n\
                   npm error   --strict-peer-deps\nnpm error     If set to `true`, and `--legacy-peer-deps` is not set, then _any_\n\
                   npm error\nnpm error Run \"npm help ci\" for more info\n";
        let usage: Vec<&str> = log.lines().filter(|l| is_npm_usage(log, l)).collect();
        assert_eq!(usage.first(), Some(&"npm error Usage:"));
        assert_eq!(usage.last(), Some(&"npm error Run \"npm help ci\" for more info"));
        assert_eq!(usage.len(), 9);
        // Cut before its pointer to help, the output is read as printed.
        let cut = &log[..log.find("npm error Run").unwrap_or(log.len())];
        assert!(cut.lines().all(|l| !is_npm_usage(cut, l)));
        // A line under the tag of another tool is none of npm's usage.
        let other = log.replace("npm error Options:", "Options:");
        let option = other
            .lines()
            .find(|l| l.ends_with("--strict-peer-deps"))
            .unwrap_or_default();
        assert!(!option.is_empty() && !is_npm_usage(&other, option));
    }

    fn listed(text: &str) -> Vec<&str> {
        text.lines().filter(|l| is_listed(text, l)).collect()
    }

    /// TOOL-8: a library's code and arguments in a pytest entry are
    /// listed, its `>` line, `E` lines and places are not.
    #[test]
    fn tool_8_pytest_lists_code_under_an_entry() {
        let log = "\
____________________________ test_remote ____________________________
[gw1] linux -- Python 3.11.7 /usr/bin/python

caplog = <LogCaptureFixture object at 0x7f>
error = NewConnectionError('refused')

    def test_remote(caplog):
        \"\"\"Raise an error when the server fails.\"\"\"
        if error:
>       assert fetch_remote(URL)[\"port\"] == 8080
            timeout = error
E       ConnectionError: refused

tests/test_config.py:14: ConnectionError

The above exception was the direct cause of the following exception:

self = <HTTPAdapter object at 0x7f>

    def send(self, error):
        if error:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
app/config.py:18: in fetch_remote
    if error is not None: raise_error()
";
        assert_eq!(
            listed(log),
            [
                "caplog = <LogCaptureFixture object at 0x7f>",
                "error = NewConnectionError('refused')",
                "    def test_remote(caplog):",
                "        \"\"\"Raise an error when the server fails.\"\"\"",
                "        if error:",
                "            timeout = error",
                "self = <HTTPAdapter object at 0x7f>",
                "    def send(self, error):",
                "        if error:",
                "    if error is not None: raise_error()",
            ]
        );
    }

    /// TOOL-8: indented lines elsewhere are what they say: a captured
    /// section's output, a Python traceback's code under its frame, a
    /// log's continuation.
    #[test]
    fn tool_8_other_indented_lines_are_not_listed() {
        let log = "\
____________________________ test_remote ____________________________
----------------------------- Captured stdout call -----------------------------
    ERROR: the server failed
Traceback (most recent call last):
  File \"a.py\", line 3, in <module>
    if error: fail()
build failed:
    error = 3
";
        assert!(listed(log).is_empty(), "{:?}", listed(log));
        // An entry too far above is not looked for.
        let far = format!(
            "_ _ _ _ _ _\n{}    if error:\n",
            "    x = 1\n".repeat(LISTING_REACH)
        );
        // The lines within reach of the rule are listed, the one past it not.
        assert_eq!(listed(&far).len(), LISTING_REACH);
        assert!(!is_listed(&far, far.lines().last().unwrap_or_default()));
    }

    fn in_hunks(text: &str) -> Vec<&str> {
        text.lines().filter(|l| in_diff_hunk(text, l)).collect()
    }

    /// TOOL-8: the lines of a diff's hunk, under rustfmt's header or a
    /// unified diff's, are code whatever their words; the header, the
    /// lines after the hunk and a hunk with no header are not; and a
    /// line of such a hunk reads as code in its place.
    #[test]
    fn tool_8_a_diff_s_hunk_is_code() {
        let rustfmt = "\
Diff in /src/main.rs:19:
     match input.parse() {
\x1b[31m-        Err(error) => println!(\"failed: {error}\"),
\x1b(B\x1b[m\x1b[32m+        Err(error) => {
\x1b(B\x1b[m
         }
Diff in /src/lib.rs at line 4:
 fn fail() -> Result<(), Error> {
error: could not format
";
        assert_eq!(
            in_hunks(rustfmt),
            [
                "     match input.parse() {",
                "\x1b[31m-        Err(error) => println!(\"failed: {error}\"),",
                "\x1b(B\x1b[m\x1b[32m+        Err(error) => {",
                "\x1b(B\x1b[m",
                "         }",
                " fn fail() -> Result<(), Error> {",
            ]
        );
        let git = "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -3,4 +3,4 @@ def test_total():\n     with pytest.raises(ValueError, match=\"failed\"):\n-        total(-1)\n+        total(-2)\n\\ No newline at end of file\n";
        assert_eq!(
            in_hunks(git),
            [
                "     with pytest.raises(ValueError, match=\"failed\"):",
                "-        total(-1)",
                "+        total(-2)",
                "\\ No newline at end of file",
            ]
        );
        let context = " with pytest.raises(ValueError, match=\"failed\"):";
        assert_eq!(super::super::line_kind(context), super::super::LineKind::Failure);
        let diffed = format!("@@ -1 +1 @@\n{context}\n");
        let in_place = diffed.lines().nth(1).unwrap_or_default();
        assert_eq!(
            super::super::line_kind_in(&diffed, in_place),
            super::super::LineKind::Plain
        );
        // Under a process's name, line for line.
        let named = "api-1  | @@ -11,2 +11,2 @@\napi-1  | -from a import Error\n";
        let printed = named
            .lines()
            .nth(1)
            .and_then(|l| l.strip_prefix("api-1  | "))
            .unwrap_or_default();
        assert!(in_diff_hunk(named, printed));
        assert_eq!(in_hunks(named), ["api-1  | -from a import Error"]);
        // No header, a header too far above, or another line between.
        assert!(in_hunks(" error: a\n-error: b\n").is_empty());
        let far = format!("@@ -1 +1 @@\n{}", " x\n".repeat(HUNK_REACH + 1));
        assert_eq!(in_hunks(&far).len(), HUNK_REACH);
        assert!(in_hunks("@@ -1 +1 @@\nFAILED: t.py\n error: a\n").is_empty());
    }

    /// TOOL-8: the code IPython lists in a frame of its traceback is
    /// listed, under the frame's heading, whatever its words; the line
    /// the frame points at is not, nor a numbered line elsewhere.
    #[test]
    fn tool_8_ipython_lists_code_under_its_frames() {
        let log = "\
KeyError                                  Traceback (most recent call last)
Cell In[1], line 9
      8 print(df.describe())
----> 9 summary = df.groupby(\"name\")[\"totl\"].sum()

File /home/dev/.venv/lib/python3.11/site-packages/pandas/core/base.py:241, in SelectionMixin.__getitem__(self, key)
    238     raise ValueError(\"bad key\")
--> 241         raise KeyError(f\"Column not found: {key}\")
    242     ndim = self.obj[key].ndim

KeyError: 'Column not found: totl'
   12 failed, 3 passed
";
        assert_eq!(
            listed(log),
            [
                "      8 print(df.describe())",
                "    238     raise ValueError(\"bad key\")",
                "    242     ndim = self.obj[key].ndim"
            ]
        );
    }

    /// TOOL-8, REACT-6: under `cargo test -- --nocapture`, the panic of
    /// a `#[should_panic]` test, or one a test caught, fails nothing when
    /// no test failed below it and the run closes with `test result: ok.`.
    #[test]
    fn tool_8_a_panic_that_failed_no_test_is_expected() {
        let panic = "thread 'tests::rejects_zero' (13882) panicked at src/lib.rs:3:9:";
        let run = |verdicts: &str| {
            format!("running 2 tests\n\n{panic}\ndivision by zero: 1 / 0\n{verdicts}\n   Doc-tests ledger\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n")
        };
        let passed = run("test tests::rejects_zero - should panic ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.08s\n");
        assert!(is_expected_panic(
            &passed,
            passed.lines().nth(2).unwrap_or_default()
        ));
        let failed = run("test tests::rejects_zero ... FAILED\n\nfailures:\n    tests::rejects_zero\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.08s\n");
        assert!(!is_expected_panic(
            &failed,
            failed.lines().nth(2).unwrap_or_default()
        ));
        // Not a panic; not a run of Rust's tests.
        assert!(!is_expected_panic(
            &passed,
            passed.lines().nth(3).unwrap_or_default()
        ));
        let alone = format!("{panic}\ndivision by zero\n");
        assert!(!is_expected_panic(
            &alone,
            alone.lines().next().unwrap_or_default()
        ));
        // Without a name for its thread, too.
        let unnamed = passed.replace("'tests::rejects_zero' (13882)", "'<unnamed>'");
        assert!(is_expected_panic(
            &unnamed,
            unnamed.lines().nth(2).unwrap_or_default()
        ));
        // A thread's other end is no panic; a panic is a thread's.
        for other in [
            "thread 'tests::rejects_zero' has overflowed its stack",
            "note: the test panicked at src/lib.rs:3:9:",
        ] {
            let text = passed.replace(panic, other);
            assert!(
                !is_expected_panic(&text, text.lines().nth(2).unwrap_or_default()),
                "{other}"
            );
        }
        // Read in its place, the panic is plain in the run that passed, a
        // failure in the one that failed.
        let kind = |t: &str| super::super::line_kind_in(t, t.lines().nth(2).unwrap_or_default());
        assert_eq!(kind(&passed), super::super::LineKind::Plain);
        assert_eq!(kind(&failed), super::super::LineKind::Failure);
    }

    fn passed_examples(text: &str) -> Vec<&str> {
        text.lines().filter(|l| is_passed_example(text, l)).collect()
    }

    /// TOOL-8: RSpec's documentation format and Hspec title each example
    /// under its group; those that passed carry no mark and are what they
    /// are whatever their words, above the `Failures:` heading of an
    /// output that closes with its count of examples. Failed ones, the
    /// details under the heading, and lines elsewhere are not.
    #[test]
    fn tool_8_a_passed_example_s_title_is_no_failure() {
        let hspec = "\nerrors\n  fails on bad input\n  reports an error FAILED [1]\n\nFailures:\n\n  Spec.hs:5:3: \n  1) errors reports an error\n       expected: 1\n\nerror handling\n\n2 examples, 1 failure\n";
        assert_eq!(passed_examples(hspec), ["errors", "  fails on bad input"]);
        let rspec = "Cart\n  raises an error on a missing sku\n  applies a discount (FAILED - 1)\n\nFinished in 0.01 seconds\n2 examples, 1 failure\n";
        assert_eq!(
            passed_examples(rspec),
            ["Cart", "  raises an error on a missing sku"]
        );
        let in_place = rspec.lines().nth(1).unwrap_or_default();
        assert_eq!(
            super::super::line_kind_in(rspec, in_place),
            super::super::LineKind::Noise
        );
        // No count of examples, a line with a mark or a field, or a line
        // at the left over no example: as they say.
        assert!(passed_examples("Cart\n  raises an error\n2 tests, 0 failures\n").is_empty());
        assert!(passed_examples("  error: boom\n  failed (x)\n1 example, 0 failures\n").is_empty());
        assert!(passed_examples("error connecting\nretrying\n1 example, 0 failures\n").is_empty());
        // The heading is looked for far above: a message deep in the
        // failures' details is no title of an example that passed.
        let details = format!(
            "Failures:\n\n  1) cart totals\n{}\n  negative discount\n\n1 example, 1 failure\n",
            "       detail line of the failure\n".repeat(100)
        );
        assert!(passed_examples(&details).is_empty());
        // Only a heading of its own line counts.
        let mid_line = "Summary of Failures:\nCart\n  raises an error\n\n1 example, 0 failures\n";
        assert_eq!(passed_examples(mid_line), ["Cart", "  raises an error"]);
    }
}

//! Whether a line is a run's count, whether its failure counts say that
//! nothing failed, whether a failure line is a verdict, and whether a line
//! states an exit status alone.

use std::sync::OnceLock;

use regex::Regex;

use super::prefix::{self, without_stream_prefix};
use super::words::{COUNT, VERDICT};
use super::{compiled, fixable, line_kind, summary, without_colours, LineKind};

/// Whether `line` reports that nothing failed: a summary whose every
/// failure count is zero (`Tests run: 5, Failures: 0, Errors: 0`,
/// `failed=0`), or that says so in words (`Errors found: []`, `SUCCESS:
/// no error occurred`, `imported without errors`). Such a line is a
/// [`LineKind::Summary`], never a failure, whatever words it uses.
///
/// ```
/// use strata_ctx_compress::reports_no_failures;
/// assert!(reports_no_failures("SUCCESS: Query executed without error."));
/// assert!(reports_no_failures("Errors Found: []"));
/// assert!(reports_no_failures("Error: (none)"));
/// assert!(reports_no_failures("errors: none"));
/// assert!(!reports_no_failures("psql:a.sql:6: ERROR:  null value in column \"name\" violates not-null constraint"));
/// assert!(!reports_no_failures("Errors Found: ['L031']"));
/// assert!(!reports_no_failures("5 passed in 0.1s"));
/// assert!(reports_no_failures("[         0 containers failed     ]"));
/// assert!(!reports_no_failures("[         6 tests failed          ]"));
/// ```
pub fn reports_no_failures(line: &str) -> bool {
    line_kind(line) == LineKind::Summary && zero_failure_counts(&without_colours(line))
}

/// Whether every failure count of a summary line is zero (`0 failed`,
/// `0 errors`, `failed: 0`, Ansible's `unreachable=0    failed=0`), so the line reports success.
/// An empty list or nothing in place of the count (`Errors found: []`,
/// `errors: none`, `failures = {}`, Gemini CLI's `Error: (none)`) and `no
/// errors` say zero too, as the checks agents write print them; not a
/// message that begins with such a word (PostgreSQL's `ERROR:  null value
/// in column "name" violates not-null constraint`).
pub(super) fn zero_failure_counts(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let counts = compiled(
        &RE,
        concat!(
            // A count stands alone: the number that ends a name
            // (`source-00 failed`, `v1.0 failed`) counts nothing.
            r"(?i)(?:^|[^\w.-])(\d+) (?:failed|failures?|errors?|failing|aborted)\b",
            // A count of what failed (the JUnit Platform console's `[
            // 0 containers failed ]`, `0 scenarios failed`).
            r"|(?:^|[^\w.-])(\d+) (?:[a-z]+ ){1,2}(?:failed|errored|aborted)\b",
            r"|\b(?:failed|failures?|errors?|unreachable|aborted)(?: found| count)?(?::?\s+|=)(\d+(?:\.\d+)?)",
            r"|^[#ℹ] fail (\d+)$|^# \{ total: \d+, .*\bfail: (\d+)|^(?:Expected )?Fail:\s+(\d+)\s*$",
            r"|\b(?:failures?|errors?)(?: found| count)?(?::\s*|\s*=\s*)(?:\[\]|\{\}|\(\)|\(none\)|(?:none|null|nil)\s*(?:$|[,;.)\]}|]))",
            r"|\b(?:no|without) (?:errors?|failures?)\b",
        ),
    );
    let mut any = false;
    for c in counts.captures_iter(line) {
        let n = c.iter().skip(1).flatten().next().map_or("", |m| m.as_str());
        // A duration is no count (CTest's `***Failed    0.02 sec`).
        if n.contains('.') {
            continue;
        }
        any = true;
        if !n.trim_start_matches('0').is_empty() {
            return false;
        }
    }
    any
}

/// Whether `line` is a run's count of what passed and failed, as test
/// runners and checkers close on them, whether or not anything failed:
/// pytest's `1 failed, 3 passed in 0.2s`, RSpec's `33 examples, 3
/// failures`, Maven's `Tests run: 4, Failures: 1, Errors: 0`, unittest's
/// `Ran 4 tests` and `FAILED (errors=1)`, cargo's `test result: ok.`,
/// Jest's `Tests: 3 failed, 60 passed`, mypy's `Found 3 errors in 2
/// files`; read as shown, without colours. A number that a message goes on
/// after is no count (libpq's `port 5432 failed: Connection refused`), nor
/// is an exit status, an exception's message that holds a number (`Error:
/// fetch 2 failed`) or ESLint's count of what `--fix` could fix.
///
/// ```
/// use strata_ctx_compress::is_count;
/// assert!(is_count("==== 1 failed, 3 passed in 0.21s ===="));
/// assert!(is_count("\x1b[1mTests:\x1b[22m       \x1b[31m6 failed\x1b[39m, 12 total"));
/// assert!(is_count("33 examples, 0 failures"));
/// assert!(!is_count("connection to server at \"db\" (10.0.3.7), port 5432 failed: Connection refused"));
/// assert!(!is_count("Process exited with code 1"));
/// assert!(!is_count("running 2 tests"));
/// assert!(!is_count("AssertionError: 3 failed"));
/// assert!(!is_count("  1 error and 0 warnings potentially fixable with the `--fix` option."));
/// ```
pub fn is_count(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let plain = without_colours(line);
    let t = without_stream_prefix(plain.trim()).trim();
    compiled(&RE, COUNT).is_match(t) && !counts_nothing().is_match(t) && !fixable().is_match(t)
}

/// What a build or runner says when it stops ([`VERDICT`]).
fn verdict() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, VERDICT)
}

/// A line with a number that is no run's count: what a runner is about
/// to run (cargo's `running 2 tests`, .NET's `A total of 1 test files
/// matched …`), the verdict Django's `runtests.py` closes on after its
/// counts (`1 test(s) failed!` under `FAILED (errors=1)`), an exception's
/// message (`Error: fetch 2 failed`, `AssertionError: 3 failed`).
fn counts_nothing() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"^running \d+ tests?$|^A total of \d+ test files? matched\b|^collected \d+ items?\b|^\d+ test\(s\) failed!$|^(?:[\w.]*\.)?[A-Z]?\w*(?:Error|Exception): ",
    )
}

/// Whether `line` states an exit status and nothing more, as an agent's
/// shell tool appends it to what the command printed: `[The command
/// completed with exit code 1.]`, `Exit code: 2`, `exit status 1`, `exit 1`.
/// A line that says what ended with it (`error: command '/usr/bin/gcc'
/// failed with exit code 1`) is a verdict, not a bare status.
///
/// ```
/// use strata_ctx_compress::is_exit_status;
/// assert!(is_exit_status("[The command completed with exit code 1.]"));
/// assert!(!is_exit_status("error: command '/usr/bin/gcc' failed with exit code 1"));
/// ```
pub fn is_exit_status(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"(?i)^\W*(?:\w+\s+){0,4}(?:exit(?:ed)?(?: with)?(?: (?:code|status))?|returncode)[\s:=>]*-?\d+(?:</\w+>)?\W*$",
    )
    .is_match(line.trim())
}
/// Whether a failure line is a verdict rather than a message: a test or
/// build summary (`1 failed, 2 passed`, `BUILD FAILED in 2s`), Go's
/// package line (`FAIL\tpkg\t0.01s`), a bare `FAIL` or an exit status;
/// a `go test -json` event of a verdict, or of a test's or package's end.
///
/// ```
/// use strata_ctx_compress::is_verdict;
/// assert!(is_verdict("FAIL\texample.com/api\t0.012s"));
/// assert!(is_verdict("Tests:       1 failed, 3 passed, 4 total"));
/// assert!(!is_verdict("--- FAIL: TestPrice (0.00s)"));
/// // pytest's banner when it stops early: the failure above it says more.
/// assert!(is_verdict("!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!"));
/// // A build that stops points at the errors above it.
/// assert!(is_verdict("ninja: build stopped: subcommand failed."));
/// assert!(is_verdict("> Compilation failed; see the compiler error output for details."));
/// ```
pub fn is_verdict(line: &str) -> bool {
    match prefix::test_event(line) {
        Some(prefix::TestEvent::Printed(text)) => return is_verdict(&text),
        Some(_) => return true,
        None => {}
    }
    let plain = without_colours(line);
    let t = without_stream_prefix(plain.trim()).trim();
    summary().is_match(t) || verdict().is_match(t)
}

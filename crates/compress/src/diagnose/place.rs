//! Lines read in their place: what a line is depends, for some shapes, on
//! the lines around it (a `go test -v` log under a passing test, a test
//! runner's numbered heading above a failure).

use std::sync::OnceLock;

use regex::Regex;

use super::file_heading::is_path;
use super::prefix::without_stream_prefix;
use super::traceback::{ends_traceback, exception_name};
use super::{compiled, is_tagged_marks, line_kind, without_colours, LineKind};

/// A test runner's numbered heading above a failure's details: RSpec,
/// Minitest, PHPUnit, ExUnit and Mocha print `1) <the test's name>` there.
/// Read in its place ([`line_kind_in`]), a failure when one follows it.
pub(super) const NUMBERED_HEADING: &str = r"^[ \t]{0,8}\d{1,4}\) \S";

/// A message under a failing test, after an arrow (Vitest's `     →
/// expected 100 to be 90`). Read in its place ([`line_kind_in`]), a
/// failure when a failure line is right above it.
pub(super) const ARROW_MESSAGE: &str = r"^\s+→ \S";

/// How many lines below a numbered heading its failure may follow
/// (Mocha's nests the test's name over three).
pub(crate) const HEADING_REACH: usize = 5;

/// A `go test -v` log line, indented under its test: `    a_test.go:12:
/// checking 3`.
fn go_test_log() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^(?: {4}|\t)+[\w.-]+_test\.go:\d+: ")
}

/// What `line`, a line of `text` as [`str::lines`] yields it, is when read
/// in its place. Otherwise as [`line_kind`], but a `go test -v` log line
/// prints the same whether its test failed (`t.Errorf`) or passed
/// (`t.Log`, shown only under `-v`): under a test whose verdict below it
/// is `--- PASS:` or `--- SKIP:` (a subtest's, printed once its parent's
/// subtests have all run, however far below), it is noise; and the code and
/// arguments pytest lists in a traceback's entry are code, whatever their
/// words (`    if error and self._is_connection_error(error):`).
///
/// ```
/// use strata_ctx_compress::{line_kind_in, LineKind};
///
/// let log = "=== RUN   TestOk0\n    calc_test.go:6: checking 0\n--- PASS: TestOk0 (0.00s)\n";
/// let line = log.lines().nth(1).unwrap();
/// assert_eq!(line_kind_in(log, line), LineKind::Noise);
/// let log = log.replace("PASS", "FAIL");
/// assert_eq!(line_kind_in(&log, log.lines().nth(1).unwrap()), LineKind::Failure);
/// ```
pub fn line_kind_in(text: &str, line: &str) -> LineKind {
    if let Some(kind) = listed_under_count(text, line) {
        return kind;
    }
    match kind_in_place(line, after_line(text, line)) {
        LineKind::Failure | LineKind::Warning | LineKind::Summary
            if super::listing::is_listed(text, line) || super::listing::in_diff_hunk(text, line) =>
        {
            LineKind::Plain
        }
        LineKind::Failure
            if go_test_log().is_match(without_stream_prefix(line)) && run_passed(text, line) =>
        {
            LineKind::Noise
        }
        LineKind::Failure if super::listing::is_passed_example(text, line) => LineKind::Noise,
        LineKind::Failure if super::listing::is_expected_panic(text, line) => LineKind::Plain,
        LineKind::Failure if super::listing::is_npm_usage(text, line) => LineKind::Noise,
        LineKind::Failure if is_echoed_code(text, line) => LineKind::Context,
        LineKind::Failure if super::levels::is_warning_record(text, line) => LineKind::Warning,
        LineKind::Failure | LineKind::Warning if super::listing::is_go_flag_usage(text, line) => {
            LineKind::Noise
        }
        LineKind::Plain if arrow_message().is_match(line) && failure_above(text, line) => LineKind::Failure,
        LineKind::Plain | LineKind::Context
            if is_numbered_heading(line) && in_failure_section(text, line) =>
        {
            LineKind::Failure
        }
        LineKind::Warning
            if ends_traceback(text, line) || warnings_failed(text) || dies_with_callers(text, line) =>
        {
            LineKind::Failure
        }
        LineKind::Plain if exception_name().is_match(line) && ends_traceback(text, line) => LineKind::Failure,
        LineKind::Plain if is_message_over_place(text, line) => LineKind::Failure,
        LineKind::Plain if super::causes::is_cause(text, line) => LineKind::Failure,
        LineKind::Plain if is_failed_example(text, line) => LineKind::Failure,
        kind => kind,
    }
}

/// How many entries above a test listed under a count the count may be
/// ([`listed_under_count`]).
const LIST_REACH: usize = 500;

/// What a test listed under a count says, as Playwright closes a run (`
/// 4 failed` over `    [chromium] › cart.spec.ts:7:1 › lists the items
/// ───`, then `  1 flaky` over its own): a failure under the count of
/// failed tests, a warning under the flaky ones, what it reads as alone
/// under any other; `None` for a line that is no such entry.
fn listed_under_count(text: &str, line: &str) -> Option<LineKind> {
    static ENTRY: OnceLock<Regex> = OnceLock::new();
    let entry = |l: &str| {
        l.contains(" › ")
            && compiled(&ENTRY, r"^\s+(?:\[[\w .-]+\] › )?\S+:\d+:\d+ › \S").is_match(&without_colours(l))
    };
    if !entry(line) {
        return None;
    }
    let (start, _) = span_in(text, line);
    let count = lines_above(text.as_bytes(), start)
        .take(LIST_REACH)
        .filter_map(|(s, e)| text.get(s..e))
        .find(|above| !entry(above))?;
    let count = without_colours(count);
    let (number, what) = count.trim().split_once(' ')?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match what {
        "failed" => Some(LineKind::Failure),
        "flaky" => Some(LineKind::Warning),
        _ => None,
    }
}

/// How many words a line says at least to be a finding's message over
/// its place ([`is_message_over_place`]).
const MESSAGE_WORDS: usize = 3;

/// Whether `line`, a line of `text`, is a finding's message over
/// the bare place it was found at, a location that opens the next line
/// and says nothing of its own: ansible-lint's `name[missing]: All tasks
/// should be named.` over `site.yml:12 Task/Handler: shell`, Credo's `[W]
/// ↗ There should be no calls to IO.inspect/1.` over `lib/a.ex:3:7
/// #(A.b)`. The message says something in words, and stands no deeper
/// than its place: a frame's function (`main.main()`) or code line (`
/// assert total(items) == 90` over pytest's `src/cart.py:3: in total`)
/// does not.
pub(crate) fn is_message_over_place(text: &str, line: &str) -> bool {
    static WORD: OnceLock<Regex> = OnceLock::new();
    static PLACE: OnceLock<Regex> = OnceLock::new();
    let Some(next) = next_line(text, line) else {
        return false;
    };
    let place = without_stream_prefix(next);
    let message = without_stream_prefix(line);
    let indent = |l: &str| l.len() - l.trim_start().len();
    let word = compiled(&WORD, r"^[A-Za-z][a-z]+[.,:;!?]?$");
    compiled(&PLACE, r"^\s*\.{0,2}/?[\w@./\\-]+\.\w{1,5}:\d+(?::\d+)?(?:\s|$)").is_match(place)
        && indent(message) <= indent(place)
        && message.split_whitespace().filter(|w| word.is_match(w)).count() >= MESSAGE_WORDS
        && line_kind(place) == LineKind::Context
}

/// How far from its end an output says how its run went: that its
/// warnings failed it ([`warnings_failed`]), how many examples or tests
/// failed ([`closing`]).
const VERDICT_REACH: usize = 4 * 1024;

/// The end of `text`, its last [`VERDICT_REACH`] bytes (on a character's
/// boundary), where a run says how it went (`28 examples, 4 failures`,
/// `test result: ok.`).
pub(crate) fn closing(text: &str) -> &str {
    &text[crate::text::ceil_boundary(text, text.len().saturating_sub(VERDICT_REACH))..]
}

/// Whether the end of `text` says that its warnings failed the run, as
/// Sphinx under `-W` (`build finished with problems, 1 warning (with
/// warnings treated as errors).`) and MkDocs under `--strict` (`Aborted
/// with 1 warnings in strict mode!`) close: each warning is a failure.
fn warnings_failed(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"(?m)warnings? (?:being )?treated as errors|^Aborted with \d+ warnings? in strict mode",
    )
    .is_match(closing(text))
}

/// A message under a failing test, after an arrow, as Vitest prints it
/// below the test's `×` line: `     → expected 100 to be 90`.
fn arrow_message() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, ARROW_MESSAGE)
}

/// How many log lines a `go test -v` run may print under its `=== RUN`
/// line ([`run_passed`]): a table test logging five lines for each of
/// fifty cases.
const RUN_LOG_REACH: usize = 256;

/// How far below a test's log its verdict is looked for ([`run_passed`]):
/// a subtest's comes after all its parent's subtests have run.
const VERDICT_SEARCH_BYTES: usize = 256 * 1024;

/// Whether `line`, a `go test -v` log line of `text`, was logged by a
/// test that passed or was skipped: the `=== RUN   TestTotal/case_0` it
/// is printed under (its other log lines between) names the test, whose
/// verdict (`    --- PASS: TestTotal/case_0 (0.00s)`) Go prints once its
/// parent's subtests have all run, within [`VERDICT_SEARCH_BYTES`].
fn run_passed(text: &str, line: &str) -> bool {
    let (start, end) = span_in(text, line);
    // From the start of its line: `line` may be what a process printed,
    // after its name.
    let start = memchr::memrchr(b'\n', &text.as_bytes()[..start.min(text.len())]).map_or(0, |i| i + 1);
    let Some(name) = lines_above(text.as_bytes(), start)
        .take(RUN_LOG_REACH)
        .filter_map(|(s, e)| text.get(s..e))
        .map(without_stream_prefix)
        .find(|l| !go_test_log().is_match(l))
        .and_then(|l| {
            l.strip_prefix("=== RUN   ")
                .or_else(|| l.strip_prefix("=== CONT  "))
        })
        .map(str::trim)
    else {
        return false;
    };
    let below =
        &text.as_bytes()[end..crate::text::floor_boundary(text, end.saturating_add(VERDICT_SEARCH_BYTES))];
    let verdict = |word: &str| memchr::memmem::find(below, format!("--- {word}: {name} (").as_bytes());
    match (verdict("PASS").or_else(|| verdict("SKIP")), verdict("FAIL")) {
        (Some(passed), failed) => failed.is_none_or(|f| passed < f),
        (None, _) => false,
    }
}

/// How many lines above a numbered heading the heading of its section
/// may be ([`in_failure_section`]).
const SECTION_REACH: usize = 400;

/// Whether `line`, a numbered heading of `text`, stands in a section a
/// failure line heads: PHPUnit's `There were 2 errors:` over `1)
/// CartTest::testQty` and the message under it (`Undefined array key
/// "zz"`), which no failure word follows. The section's heading is the
/// nearest unindented line above that ends with a colon and is not
/// itself numbered.
fn in_failure_section(text: &str, line: &str) -> bool {
    let (start, _) = span_in(text, line);
    lines_above(text.as_bytes(), start)
        .take(SECTION_REACH)
        .filter_map(|(s, e)| text.get(s..e))
        .find(|l| !l.starts_with([' ', '\t']) && l.trim_end().ends_with(':') && !is_numbered_heading(l))
        .is_some_and(|heading| line_kind(heading) == LineKind::Failure)
}

/// Whether the line above `line`, a line of `text`, is a failure line.
fn failure_above(text: &str, line: &str) -> bool {
    let (start, _) = span_in(text, line);
    lines_above(text.as_bytes(), start)
        .next()
        .and_then(|(s, e)| text.get(s..e))
        .is_some_and(|above| line_kind(above) == LineKind::Failure)
}

/// [`line_kind_in`] for a line and `after`, the text that follows it (from
/// the end of the line, its newline included or not).
pub(crate) fn kind_in_place(line: &str, after: &[u8]) -> LineKind {
    let kind = line_kind(line);
    match kind {
        LineKind::Plain if super::context::is_tex_error(line, after) => LineKind::Failure,
        LineKind::Failure if go_test_log().is_match(line) && passed_below(after) => LineKind::Noise,
        // The code sbt echoes under its error (`[error]     total + x`
        // above `[error]           ^`) is where the error is, not one.
        LineKind::Failure | LineKind::Warning
            if (line.starts_with("[error] ") || line.starts_with("[warn] ")) && marks_below(after) =>
        {
            LineKind::Context
        }
        LineKind::Plain | LineKind::Context if is_numbered_heading(line) && failure_below(after) => {
            LineKind::Failure
        }
        _ => kind,
    }
}

/// A test runner's numbered heading ([`NUMBERED_HEADING`]).
fn numbered_heading() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, NUMBERED_HEADING)
}

/// Whether `line` has the shape of a test runner's numbered heading
/// (`1) Calc adds negative numbers`); [`line_kind_in`] tells whether it
/// heads a failure.
pub(crate) fn is_numbered_heading(line: &str) -> bool {
    numbered_heading().is_match(&without_colours(line))
}

/// Whether a failure line is among the [`HEADING_REACH`] lines below the
/// one `after` goes on from.
fn failure_below(after: &[u8]) -> bool {
    after
        .split(|&b| b == b'\n')
        .skip(1)
        .take(HEADING_REACH)
        .filter_map(|line| std::str::from_utf8(line).ok())
        .any(|line| line_kind(line) == LineKind::Failure)
}

/// Whether the line below is the marks under echoed code
/// ([`is_tagged_marks`]), given `after`, the rest of the line above.
fn marks_below(after: &[u8]) -> bool {
    after
        .split(|&b| b == b'\n')
        .nth(1)
        .and_then(|line| std::str::from_utf8(line).ok())
        .is_some_and(|line| is_tagged_marks(line.trim_end_matches('\r')))
}

/// Whether the first line below the indented ones that follow `after`'s
/// first (the rest of the line above) is a passing or skipped test's
/// verdict; looks at most 32 lines down.
fn passed_below(after: &[u8]) -> bool {
    for line in after.split(|&b| b == b'\n').skip(1).take(32) {
        let trimmed = line.trim_ascii();
        if trimmed.starts_with(b"--- PASS: ") || trimmed.starts_with(b"--- SKIP: ") {
            return true;
        }
        if trimmed.starts_with(b"--- FAIL: ") || !(line.is_empty() || line[0] == b' ' || line[0] == b'\t') {
            return false;
        }
    }
    false
}

/// The line under `line`, a line of `text`, without its `\r`.
fn next_line<'a>(text: &'a str, line: &str) -> Option<&'a str> {
    after_line(text, line)
        .split(|&b| b == b'\n')
        .nth(1)
        .and_then(|l| std::str::from_utf8(l).ok())
        .map(|l| l.trim_end_matches('\r'))
}

/// What follows `line`, a slice of `text` (a line as [`str::lines`] yields it), in
/// `text`.
fn after_line<'a>(text: &'a str, line: &str) -> &'a [u8] {
    &text.as_bytes()[span_in(text, line).1.min(text.len())..]
}

/// Where `slice`, a slice of `text`, starts and ends in it.
pub(crate) fn span_in(text: &str, slice: &str) -> (usize, usize) {
    let start = (slice.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    (start, start.saturating_add(slice.len()))
}

/// Whether `line`, a line of `text`, is the code a runtime echoes between
/// the place an exception was raised at and the carets that point into
/// it: Node.js as an exception ends the process, under `/app/node_modules/
/// pg/lib/client.js:694` or its own `node:internal/deps/undici/undici:13510`
/// (`Error.captureStackTrace(err)`, `throw err;`), Python over a syntax
/// error, under `  File "a.py", line 3`.
/// It is the code that threw, whatever it names; the error is below it.
fn is_echoed_code(text: &str, line: &str) -> bool {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    let carets = |l: &str| !l.trim().is_empty() && l.trim().bytes().all(|b| b == b'^');
    next_line(text, line).is_some_and(carets)
        && line_above(text, line)
            .is_some_and(|above| compiled(&PLACE, r#"^\S+:\d+$|^\s*File "[^"]+", line \d+$"#).is_match(above))
}

/// The line over `line`, a line of `text`.
pub(crate) fn line_above<'a>(text: &'a str, line: &str) -> Option<&'a str> {
    let (s, e) = lines_above(text.as_bytes(), span_in(text, line).0).next()?;
    text.get(s..e)
}

/// Whether `line`, a line of `text`, is the example a doctest failed at,
/// as pytest's `--doctest-modules` lists a docstring up to it (`003 >>>
/// to_seconds("2m")`, or the `...` line that ends it), right over
/// doctest's `Expected:` or `UNEXPECTED EXCEPTION: …` (Python's doctest
/// heads the same example `Failed example:`).
fn is_failed_example(text: &str, line: &str) -> bool {
    static EXAMPLE: OnceLock<Regex> = OnceLock::new();
    // Most plain lines start with no digit: no search for them.
    line.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && compiled(&EXAMPLE, r"^\d{3,} \s*(?:>>>|\.\.\.)(?: |$)").is_match(line)
        && next_line(text, line)
            .is_some_and(|next| next == "Expected:" || next.starts_with("UNEXPECTED EXCEPTION: "))
}

/// Where the example a doctest failed at stands ([`is_failed_example`]),
/// when it is right above `line`, a line of `text` (its `Expected:`).
pub(crate) fn failed_example_above(text: &str, line: &str) -> Option<(usize, usize)> {
    let (s, e) = lines_above(text.as_bytes(), span_in(text, line).0).next()?;
    is_failed_example(text, text.get(s..e)?).then_some((s, e))
}

/// Whether `line`, a line of `text` that Perl located (`negative total
/// for carol at lib/App/Report.pm line 17.`), is a `die` with its callers,
/// as Carp's `confess` prints it: the next line is a caller (`\tApp::
/// Report::_row(…) called at lib/App/Report.pm line 11`). Carp's `cluck`
/// warns with the same callers; it is the rarer of the two.
fn dies_with_callers(text: &str, line: &str) -> bool {
    static CALLER: OnceLock<Regex> = OnceLock::new();
    line.trim_end().ends_with('.')
        && line.contains(" line ")
        && next_line(text, line).is_some_and(|next| compiled(&CALLER, perl_caller!()).is_match(next))
}

/// The lines above the one starting at `start` in `text`, nearest first,
/// each as its span without its line end (`\n`, `\r\n`).
pub(crate) fn lines_above(text: &[u8], start: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut newline = start.min(text.len()).checked_sub(1);
    std::iter::from_fn(move || {
        let end = newline?;
        let line_start = memchr::memrchr(b'\n', &text[..end]).map_or(0, |i| i + 1);
        newline = line_start.checked_sub(1);
        let end = if end > line_start && text[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        Some((line_start, end))
    })
}

/// How many lines above a failure the title of its section is looked
/// for ([`section_title_above`]): a test's traceback, with its source
/// lines and locals, fits.
const TITLE_REACH: usize = 60;

/// The title of the section a failure starting at `start` in `text` is
/// in: the nearest line above it, within [`TITLE_REACH`] lines, that is a
/// title between two rules ([`is_ruled_title`]), as test runners head each
/// failed test's report (pytest's `____ test_total[2-3] ____`, cargo's
/// `---- tests::adds stdout ----`); its span, and how many lines above the
/// failure it is. What failed is said under it; which test, only there.
///
/// A bare rule ends the search: sympy's runner heads a report with one and
/// the test's id under it (`sympy/core/tests/test_a.py:test_b`, centred
/// between underscores when it fits), which is then the title; a rule
/// with no such id under it (unittest's under `FAIL: test_b (…)`) closes
/// the section, so a title above it belongs to another test.
pub(crate) fn section_title_above(text: &[u8], start: usize) -> Option<(usize, usize, usize)> {
    let mut below = None;
    for (up, (s, e)) in lines_above(text, start).take(TITLE_REACH).enumerate() {
        let line = String::from_utf8_lossy(&text[s..e]);
        if is_ruled_title(&line) {
            return Some((s, e, up + 1));
        }
        if is_bare_rule(&line) {
            return below.filter(|&(s, e, _)| names_a_test(&String::from_utf8_lossy(&text[s..e])));
        }
        below = Some((s, e, up + 1));
    }
    None
}

/// Whether `line` is a rule alone: one of the characters rules are drawn
/// with, at least ten times and nothing else.
fn is_bare_rule(line: &str) -> bool {
    let line = line.trim_end();
    let mut chars = line.chars();
    chars
        .next()
        .filter(|c| "_=-─━⎯".contains(*c))
        .is_some_and(|rule| line.chars().count() >= 10 && chars.all(|c| c == rule))
}

/// Whether `line` is a test's id alone, as a runner titles its report: a
/// file and the test's name after one or two colons
/// (`sympy/core/tests/test_a.py:test_b`, `tests/test_a.py::test_b[1]`),
/// between underscores or spaces.
fn names_a_test(line: &str) -> bool {
    let id = line.trim_matches(|c: char| c == '_' || c.is_whitespace());
    let Some((file, name)) = id.split_once(':') else {
        return false;
    };
    let name = name.trim_start_matches(':');
    !id.contains(char::is_whitespace)
        && is_path(file)
        && name.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// Whether `line` is a title between two rules of the same character
/// (`____ test_x ____`, `---- a::b stdout ----`, `━━━ Suite ━━━`), each
/// at least three long.
fn is_ruled_title(line: &str) -> bool {
    let line = line.trim();
    let Some(rule) = line.chars().next().filter(|c| "_=-─━⎯*#~".contains(*c)) else {
        return false;
    };
    let opening = line.chars().take_while(|c| *c == rule).count();
    let closing = line.chars().rev().take_while(|c| *c == rule).count();
    let title = line.trim_matches(rule);
    opening >= 3 && closing >= 3 && title.chars().any(char::is_alphanumeric)
}

/// The last failure line of `text` ([`LineKind::Failure`]), trimmed: the
/// line an agent acts on.
///
/// ```
/// let log = "collected 2 items\nFAILED tests/test_a.py::test_x - assert 1 == 2\n=== 1 failed, 1 passed in 0.1s ===\n";
/// assert_eq!(strata_ctx_compress::last_failure(log), Some("=== 1 failed, 1 passed in 0.1s ==="));
/// ```
pub fn last_failure(text: &str) -> Option<&str> {
    text.lines()
        .rev()
        .find(|l| line_kind_in(text, l) == LineKind::Failure)
        .map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What line `n` of `log` is, read in its place.
    fn kind(log: &str, n: usize) -> LineKind {
        line_kind_in(log, log.lines().nth(n).unwrap_or_default())
    }

    /// TOOL-8: the example a doctest failed at, as pytest lists its
    /// docstring, is a failure, so that its `Expected:` and `Got:` values
    /// come with it; the examples above it, that passed, are not.
    #[test]
    fn tool_8_the_example_pytest_s_doctest_failed_at_is_a_failure() {
        let log = "_________________ [doctest] pkg.units.to_seconds _________________\n\
                   011     >>> to_seconds(\"90s\")\n\
                   012     90\n\
                   013     >>> to_seconds(\"1h\")\n\
                   Expected:\n    3601\nGot:\n    3600\n\n\
                   /tmp/pkg/units.py:13: DocTestFailure\n\
                   015     >>> to_seconds(\"1.5h\")\n\
                   UNEXPECTED EXCEPTION: ValueError(\"invalid literal for int() with base 10: '1.5'\")\n\
                   016 >>> x = 1\n\
                   Expected nothing\n";
        let line = |n: usize| log.lines().nth(n).unwrap_or_default();
        assert_eq!(line_kind_in(log, line(1)), LineKind::Plain);
        assert_eq!(line_kind_in(log, line(3)), LineKind::Failure);
        assert_eq!(line_kind_in(log, line(10)), LineKind::Failure);
        assert_eq!(line_kind_in(log, line(12)), LineKind::Plain);
        // The form brings the example in from the `Expected:` under it.
        let expected = line(4);
        let (s, e) = failed_example_above(log, expected).unwrap_or_default();
        assert_eq!(&log[s..e], line(3));
        assert_eq!(failed_example_above(log, line(2)), None);
    }

    /// TOOL-8: help a tool prints under its error is noise in its place,
    /// whatever its words: npm's usage under `npm error code EUSAGE`, the
    /// descriptions of a Go program's flags.
    #[test]
    fn tool_8_usage_under_an_error_is_noise() {
        let npm = "npm error code EUSAGE\nnpm error Missing: is-odd@3.0.1 from lock file\nnpm error\nnpm error Usage:\n\
                   npm error   --strict-peer-deps\nnpm error     If set to `true`, and `--legacy-peer-deps` is not set, then _any_\n\
                   npm error Run \"npm help ci\" for more info\n";
        let line = |text: &'static str, n: usize| text.lines().nth(n).unwrap_or_default();
        assert_eq!(line_kind_in(npm, line(npm, 1)), LineKind::Failure);
        assert_eq!(line_kind_in(npm, line(npm, 5)), LineKind::Noise);
        let go = "flag provided but not defined: -port\nUsage of shop:\n  -fail-fast\n    \tstop at the first failed job\n";
        assert_eq!(line_kind_in(go, line(go, 0)), LineKind::Failure);
        assert_eq!(line_kind_in(go, line(go, 3)), LineKind::Noise);
    }

    /// TOOL-8: a message Perl located is a `die` where Carp lists its
    /// callers under it (`confess`), a warning alone or over other lines.
    #[test]
    fn tool_8_a_perl_message_over_its_callers_is_a_die() {
        let log = "Argument \"x\" isn't numeric in addition (+) at app.pl line 11, <DATA> line 4.\n\
                   negative total for carol at lib/App/Report.pm line 17, <DATA> line 4.\n\
                   \tApp::Report::_row(App::Report=HASH(0x5627b5ff3860), \"carol\", 5) called at lib/App/Report.pm line 11\n\
                   \tApp::Report::render(App::Report=HASH(0x5627b5ff3860)) called at app.pl line 17\n\
                   alice: 13\n";
        let line = |n: usize| log.lines().nth(n).unwrap_or_default();
        assert_eq!(line_kind_in(log, line(0)), LineKind::Warning);
        assert_eq!(line_kind_in(log, line(1)), LineKind::Failure);
        assert_eq!(line_kind_in(log, line(2)), LineKind::Context);
        assert!(!dies_with_callers(log, line(0)));
        assert!(!dies_with_callers(log, line(4)));
        // A caller needs its tab: an indented line is no caller.
        let spaced = log.replace('\t', "    ");
        assert_eq!(
            line_kind_in(&spaced, spaced.lines().nth(1).unwrap_or_default()),
            LineKind::Warning
        );
    }

    /// TOOL-8: a warning is a failure where the run closes saying that
    /// warnings failed it (Sphinx's `-W`, MkDocs' `--strict`), and a
    /// warning elsewhere; the level among a Node error's fields is no
    /// failure of its own.
    #[test]
    fn warnings_fail_a_run_that_says_so() {
        let warning = "/docs/usage.rst:42: WARNING: undefined label: 'config-vouchers' [ref.ref]";
        let failed = format!("reading sources... [100%] usage\n{warning}\nbuild finished with problems, 1 warning (with warnings treated as errors).\n");
        assert_eq!(line_kind_in(&failed, warning), LineKind::Failure);
        let passed = format!("reading sources... [100%] usage\n{warning}\nbuild succeeded, 1 warning.\n");
        assert_eq!(line_kind_in(&passed, warning), LineKind::Warning);
        let strict = "WARNING -  Doc file 'a.md' contains a link 'b.md', but the target is not found";
        let aborted = format!("{strict}\nINFO    -  Documentation built in 1.42 seconds\n\nAborted with 1 warnings in strict mode!\n");
        assert_eq!(line_kind_in(&aborted, strict), LineKind::Failure);
        // Said far above the end, it is not the run's verdict.
        let far = format!(
            "{warning}\nwarnings treated as errors\n{}",
            "x\n".repeat(VERDICT_REACH)
        );
        assert_eq!(line_kind_in(&far, warning), LineKind::Warning);
        assert_eq!(line_kind("  severity: 'ERROR',"), LineKind::Context);
        assert_eq!(line_kind("  code: 'ERR_MODULE_NOT_FOUND',"), LineKind::Context);
        // A field the inspector shows only as a placeholder says nothing.
        assert_eq!(line_kind("  errors: [Getter/Setter]"), LineKind::Context);
        assert_eq!(line_kind("  errors: [Array],"), LineKind::Context);
        assert_eq!(line_kind("  errors: 'failed twice',"), LineKind::Failure);
        assert_eq!(
            line_kind("  message: 'Request failed with status code 500',"),
            LineKind::Failure
        );
    }

    /// TOOL-8: the code Node.js echoes over its carets when an exception
    /// ends the process is where the error was thrown, not the error;
    /// the same line with no place above it, or no carets below, reads by
    /// its words.
    #[test]
    fn tool_8_the_code_node_echoes_over_its_carets_is_context() {
        let crash = "/app/node_modules/pg/lib/client.js:694\n          Error.captureStackTrace(err)\n                ^\n\nerror: relation \"accounts\" does not exist\n    at async main (/app/q.js:5:13) {\n";
        assert_eq!(kind(crash, 1), LineKind::Context);
        assert_eq!(kind(crash, 4), LineKind::Failure);
        let ts_node = "file:///home/dev/ts/dist/index.mjs:290\n            throw error;\n            ^\nTSError: ⨯ Unable to compile TypeScript:\n";
        assert_eq!(kind(ts_node, 1), LineKind::Context);
        let loader = "node:internal/deps/undici/undici:13510\n      Error.captureStackTrace(err);\n            ^\n\nError: Cannot find module '/app/dist/main.js'\n";
        assert_eq!(kind(loader, 1), LineKind::Context);
        for log in [
            "Starting\n          Error.captureStackTrace(err)\n                ^\n",
            "/app/lib/client.js:694\n          Error.captureStackTrace(err)\nerror: boom\n",
        ] {
            assert_eq!(kind(log, 1), LineKind::Failure, "{log:?}");
        }
    }

    /// TOOL-8: java.util.logging heads each record with its date and
    /// caller: a `WARNING: ` record under that header is a warning
    /// whatever its words, `SEVERE: ` a failure; the report Go's race
    /// detector heads `WARNING: ` fails the run. .NET's console logger
    /// heads each record with its level and category, its message indented
    /// under it.
    #[test]
    fn tool_8_records_under_a_header_read_by_their_level() {
        let log = "Dec 05, 2026 6:09:19 AM Main main\nWARNING: fetch of orders failed (attempt 1/2): Connection refused\nDec 05, 2026 6:09:19 AM Main main\nSEVERE: giving up on orders\n";
        assert_eq!(kind(log, 1), LineKind::Warning);
        assert_eq!(kind(log, 3), LineKind::Failure);
        let race = "syncing\nWARNING: DATA RACE\nWrite at 0x00c000012345 by goroutine 7:\n";
        assert_eq!(kind(race, 1), LineKind::Failure);
        // .NET's console logger: the level heads the record, its message
        // is indented under it.
        let dotnet = "warn: Microsoft.AspNetCore.HttpsPolicy.HttpsRedirectionMiddleware[3]\n      Failed to determine the https port for redirect.\nfail: Microsoft.AspNetCore.Server.Kestrel[13]\n      Connection id \"0HN8\", Request id \"0HN8:1\": An unhandled exception was thrown by the application.\n      System.InvalidOperationException: No service for type 'IOrders' has been registered.\n";
        assert_eq!(kind(dotnet, 1), LineKind::Warning);
        assert_eq!(kind(dotnet, 3), LineKind::Failure);
        assert_eq!(kind(dotnet, 4), LineKind::Failure);
    }

    /// TOOL-8: Vitest's message under a failing test is a failure; an
    /// arrow line anywhere else, or under a line that is no failure, is not.
    #[test]
    fn an_arrow_message_is_a_failure_only_under_one() {
        let log = "   × cart > applies discount 3ms\n     → expected 100 to be 90\n";
        assert_eq!(kind(log, 1), LineKind::Failure);
        for log in [
            "   ✓ cart > adds 1ms\n     → expected 100 to be 90\n",
            "Deploying\n     → step 2 of 4\n",
            "     → step 2 of 4\n",
        ] {
            let arrow = log.lines().find(|l| l.contains('→')).unwrap_or_default();
            assert_ne!(line_kind_in(log, arrow), LineKind::Failure, "{log:?}");
        }
    }

    /// TOOL-8: a warning raised as an exception ends its traceback: the
    /// run failed on it. The same warning printed by the `warnings`
    /// module, or standing alone, stays a warning.
    #[test]
    fn tool_8_a_warning_ending_a_traceback_is_a_failure() {
        let raised = "ERROR: while parsing the following warning configuration:\n\nTraceback (most recent call last):\n  File \"/a/config.py\", line 21, in parse\n    m = __import__(module)\n        ^^^^^^^^^^^^^^^^^^\n  File \"/a/numpy/core/_utils.py\", line 10, in _raise_warning\n    warnings.warn(\nDeprecationWarning: numpy.core is deprecated and has been renamed to numpy._core.\n";
        let last = raised.lines().rev().find(|l| !l.is_empty()).unwrap_or_default();
        assert_eq!(line_kind_in(raised, last), LineKind::Failure);
        assert_eq!(last_failure(raised), Some(last));
        for text in [
            "/a/b.py:3: DeprecationWarning: numpy.core is deprecated\n  import numpy.core\nok\n",
            "DeprecationWarning: numpy.core is deprecated\n",
            "Running\n  step 1\nDeprecationWarning: numpy.core is deprecated\n",
            "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: x\nDeprecationWarning: numpy.core is deprecated\n",
        ] {
            let warning = text.lines().find(|l| l.contains("Warning:")).unwrap_or_default();
            assert_eq!(line_kind_in(text, warning), LineKind::Warning, "{text:?}");
        }
    }

    /// TOOL-8: TeX's errors in its own words (`! Undefined control
    /// sequence.`) are failures over the line of input TeX stopped at,
    /// within reach and before the next error; the same shape in a
    /// Fortran file's comments, or far over a line of input, is plain.
    #[test]
    fn tool_8_a_tex_error_is_one_over_its_line_of_input() {
        for error in [
            "! Undefined control sequence.",
            "! Missing $ inserted.",
            "! Extra alignment tab has been changed to \\cr.",
            "! Paragraph ended before \\textbf was complete.",
            "! \\textbf allowed only in paragraph mode.",
        ] {
            let log = format!(
                "(./main.tex\n{error}\n<inserted text> \n                $\nl.20 Each block has width w_\n"
            );
            let line = log.lines().nth(1).unwrap_or_default();
            assert_eq!(line_kind_in(&log, line), LineKind::Failure, "{error}");
            assert!(crate::diagnose::candidates().is_match(line), "{error}");
            assert_eq!(line_kind(line), LineKind::Plain, "{error}");
        }
        let fortran = "! Compute the total of each block\nsubroutine total(x)\n  real :: x\nend subroutine\n";
        assert_eq!(
            line_kind_in(fortran, fortran.lines().next().unwrap_or_default()),
            LineKind::Plain
        );
        let help =
            "Type  H <return>  for immediate help.\n".repeat(super::super::context::TEX_INPUT_REACH - 1);
        let near = format!("! Missing $ inserted.\n{help}l.9 x\n");
        assert_eq!(
            line_kind_in(&near, near.lines().next().unwrap_or_default()),
            LineKind::Failure
        );
        let far = format!("! Missing $ inserted.\n{help} ...\nl.9 x\n");
        assert_eq!(
            line_kind_in(&far, far.lines().next().unwrap_or_default()),
            LineKind::Plain
        );
        // The next error's line of input is that error's.
        let two = "! Missing $ inserted.\n! Undefined control sequence.\nl.3 x\n";
        assert_eq!(
            line_kind_in(two, two.lines().next().unwrap_or_default()),
            LineKind::Plain
        );
        assert_eq!(
            line_kind_in(two, two.lines().nth(1).unwrap_or_default()),
            LineKind::Failure
        );
    }

    /// TOOL-8: an exception named in no failure's words ends its traceback
    /// as any other does (Django's `Item.DoesNotExist`, `TimeoutExpired`),
    /// in the middle of a long output too; the same name elsewhere is a
    /// plain line.
    #[test]
    fn tool_8_an_exception_in_no_failure_s_words_ends_its_traceback() {
        for exception in [
            "shop.models.Item.DoesNotExist: Item matching query does not exist.",
            // As a model's manager raises it, named by its model alone.
            "Product.DoesNotExist: Product matching query does not exist.",
            "Order.MultipleObjectsReturned: get() returned more than one Order -- it returned 2!",
            "DoesNotExist: no row",
            "TimeoutExpired: Command 'make' timed out after 30 seconds",
            "numpy.core._exceptions._UFuncNoLoopError: ufunc 'add' did not contain a loop with signature matching types",
        ] {
            let traceback = format!(
                "Traceback (most recent call last):\n  File \"/app/shop/tests.py\", line 11, in test_missing\n    Item.objects.get(name=\"nope\")\n{exception}\n"
            );
            let line = traceback.lines().find(|l| *l == exception).unwrap_or_default();
            assert_eq!(line_kind_in(&traceback, line), LineKind::Failure, "{exception}");
            assert_eq!(last_failure(&traceback), Some(exception));
            let long = "collecting step\n".repeat(3_000) + &traceback + &"cleanup step\n".repeat(3_000);
            assert!(crate::diagnose::candidates().is_match(exception), "{exception}");
            assert_eq!(last_failure(&long), Some(exception), "{exception}");
        }
        for text in [
            "Summary\n  3 items\nshop.models.Item.DoesNotExist: x\n",
            "Summary\n  3 items\nProduct.DoesNotExist: x\n",
            "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: x\nDoesNotExist: y\n",
        ] {
            let line = text.lines().rev().find(|l| !l.is_empty()).unwrap_or_default();
            assert_eq!(line_kind_in(text, line), LineKind::Plain, "{text:?}");
        }
    }

    /// TOOL-8: the code sbt echoes under an error, above its marks, is
    /// where the error is; the error's own line stays a failure.
    #[test]
    fn tool_8_code_echoed_above_marks_is_context() {
        let log = "[error] /a/Order.scala:12:5: not found: value discountFor\n[error]     discountFor(customer)\n[error]     ^\n[error] one error found\n";
        let kinds: Vec<LineKind> = log.lines().map(|l| line_kind_in(log, l)).collect();
        assert_eq!(
            kinds,
            [
                LineKind::Failure,
                LineKind::Context,
                LineKind::Context,
                LineKind::Failure
            ]
        );
        // Without marks below, a tagged line is judged by its words.
        let log = "[error]     discountFor(customer)\n[error] one error found\n";
        assert_eq!(
            line_kind_in(log, log.lines().next().unwrap_or_default()),
            LineKind::Failure
        );
    }

    /// TOOL-8: a subtest's log under `go test -v` is noise when the
    /// subtest passed, however far below its verdict stands; a failed
    /// subtest's log, and a log whose test has no verdict, stay.
    #[test]
    fn tool_8_a_passed_subtest_s_log_is_noise() {
        let mut log = String::from("=== RUN   TestTotal\n");
        for n in 0..3 {
            log.push_str(&format!(
                "=== RUN   TestTotal/case_{n}\n    cart_test.go:10: checked {n}\n"
            ));
        }
        log.push_str("    cart_test.go:9: Total(2) = 5, want 4\n--- FAIL: TestTotal (0.00s)\n");
        log.push_str("    --- PASS: TestTotal/case_0 (0.00s)\n    --- PASS: TestTotal/case_1 (0.00s)\n");
        log.push_str("    --- FAIL: TestTotal/case_2 (0.00s)\nFAIL\n");
        let kind = |needle: &str| {
            let line = log.lines().find(|l| l.contains(needle)).unwrap_or_default();
            line_kind_in(&log, line)
        };
        assert_eq!(kind("checked 0"), LineKind::Noise);
        assert_eq!(kind("checked 1"), LineKind::Noise);
        assert_eq!(kind("checked 2"), LineKind::Failure);
        assert_eq!(kind("want 4"), LineKind::Failure);
        let cut = log.replace("    --- PASS: TestTotal/case_0 (0.00s)\n", "");
        let line = cut.lines().find(|l| l.contains("checked 0")).unwrap_or_default();
        assert_eq!(line_kind_in(&cut, line), LineKind::Failure);
    }

    /// TOOL-8: a passed test's log is noise however long (a table test
    /// logging each of its cases) and under a process's name
    /// (Compose's `api-1  | `) as well.
    #[test]
    fn tool_8_a_passed_test_s_long_log_is_noise_under_a_process_s_name() {
        let mut log = String::from("=== RUN   TestS2S\n");
        for n in 0..50 {
            log.push_str(&format!(
                "    s2s_test.go:127: === TEST {n} ===\n    s2s_test.go:130:     Expected:      map[a:{n}]\n    s2s_test.go:144:     Actual:        map[a:{n}]\n"
            ));
        }
        log.push_str("--- PASS: TestS2S (0.00s)\n=== RUN   TestCSV\n    csv_test.go:9: got 2 values, want 4\n--- FAIL: TestCSV (0.00s)\nFAIL\n");
        for process in ["", "api-1  | "] {
            let log: String = log.lines().map(|l| format!("{process}{l}\n")).collect();
            let kind = |needle: &str| {
                let line = log.lines().find(|l| l.contains(needle)).unwrap_or_default();
                line_kind_in(&log, line)
            };
            assert_eq!(kind("Actual:        map[a:49]"), LineKind::Noise, "{process:?}");
            // What the process printed, read without its name.
            let line = log.lines().find(|l| l.contains("map[a:48]")).unwrap_or_default();
            assert_eq!(
                line_kind_in(&log, &line[process.len()..]),
                LineKind::Noise,
                "{process:?}"
            );
            assert_eq!(kind("want 4"), LineKind::Failure, "{process:?}");
        }
    }

    /// TOOL-8: a title between two rules heads a failed test's report
    /// (pytest's, cargo's); a bare rule, a rule of spaced marks (pytest's
    /// `_ _ _` between frames) or a rule on one side only is none.
    #[test]
    fn tool_8_a_ruled_title_heads_a_section() {
        for title in [
            "_____________ test_total[2-3] _____________",
            "---- tests::adds stdout ----",
            "━━━ Cart ━━━",
            "=== FAILURES ===",
        ] {
            assert!(is_ruled_title(title), "{title}");
        }
        for other in [
            "______________________________",
            "_ _ _ _ _ _ _ _ _ _",
            "--- FAIL: TestAdd (0.00s)",
            "-- Docs: https://docs.pytest.org",
            "=== !!! ===",
            "a ___ b ___",
        ] {
            assert!(!is_ruled_title(other), "{other}");
        }
        let log = "____ test_a ____\n\n    def test_a():\n>       assert 1 == 2\nE       assert 1 == 2\n";
        let failure = log.find("E ").unwrap_or_default();
        assert_eq!(section_title_above(log.as_bytes(), failure), Some((0, 16, 4)));
        let far = format!("____ test_a ____\n{}E   boom\n", "  x = 1\n".repeat(TITLE_REACH));
        let failure = far.find("E ").unwrap_or_default();
        assert_eq!(section_title_above(far.as_bytes(), failure), None);
    }

    /// TOOL-8: Playwright's closing lists: a test under the count of
    /// failed ones is a failure, under the flaky ones a warning; the same
    /// line elsewhere (its report's heading) reads as it does alone.
    #[test]
    fn tool_8_a_test_listed_under_a_count_is_what_the_count_says() {
        let log = "  1) [chromium] › a.spec.ts:7:1 › lists ───\n\n    Error: boom\n\n  2 failed\n    [chromium] › a.spec.ts:7:1 › lists ───\n    [chromium] › a.spec.ts:11:1 › totals ───\n  1 flaky\n    [firefox] › a.spec.ts:15:1 › pays ───\n  3 passed (2.0s)\n";
        let kind = |line: &str| {
            let at = log.find(line).unwrap_or_default();
            line_kind_in(log, &log[at..at + line.len()])
        };
        assert_eq!(
            kind("    [chromium] › a.spec.ts:7:1 › lists ───"),
            LineKind::Failure
        );
        assert_eq!(
            kind("    [chromium] › a.spec.ts:11:1 › totals ───"),
            LineKind::Failure
        );
        assert_eq!(
            kind("    [firefox] › a.spec.ts:15:1 › pays ───"),
            LineKind::Warning
        );
        assert_eq!(
            listed_under_count(log, &log[..log.find('\n').unwrap_or_default()]),
            None
        );
        let alone = "    [chromium] › a.spec.ts:7:1 › lists ───\n";
        assert_eq!(listed_under_count(alone, alone.trim_end_matches('\n')), None);
        // A count is a number: under words, or under a title that is no
        // entry though it holds the mark, the line reads as it does alone.
        for above in ["  tests failed", "    cart › adds"] {
            let log = format!("  2 failed\n{above}\n    [chromium] › a.spec.ts:7:1 › lists ───\n");
            let entry = &log[log.find("    [chromium]").unwrap_or_default()..log.len() - 1];
            assert_eq!(listed_under_count(&log, entry), None, "{above}");
        }
        // Without a project: the title after the place alone.
        let plain = "  1 failed\n    a.spec.ts:7:1 › lists ───\n";
        let entry = &plain[plain.find("    a.spec").unwrap_or_default()..plain.len() - 1];
        assert_eq!(line_kind_in(plain, entry), LineKind::Failure);
    }

    /// TOOL-8: under a bare rule, a test's id alone is the title (sympy's
    /// runner heads a report so when the id is too long to centre between
    /// underscores); a bare rule with anything else under it closes the
    /// section, so the title of an earlier test above it is not this one's.
    #[test]
    fn tool_8_a_bare_rule_closes_a_section() {
        let rule = "_".repeat(80);
        fn failure_in(log: &str) -> Option<(&str, usize)> {
            let failure = log.find("AssertionError").unwrap_or_default();
            section_title_above(log.as_bytes(), failure).map(|(s, e, up)| (&log[s..e], up))
        }
        let sympy = format!(
            "{rule}\n sympy/core/tests/test_basic_long_name.py::test_subs \nTraceback (most recent call last):\n  File \"t.py\", line 3, in test_subs\n    assert a\nAssertionError\n"
        );
        assert_eq!(
            failure_in(&sympy),
            Some((" sympy/core/tests/test_basic_long_name.py::test_subs ", 4))
        );
        let single = format!("{rule}\n sympy/core/tests/test_a.py:test_b \nAssertionError\n");
        assert_eq!(
            failure_in(&single),
            Some((" sympy/core/tests/test_a.py:test_b ", 1))
        );
        let unittest = format!(
            "____ test_earlier ____\nE   x\n{}\nFAIL: test_b (t.T.test_b)\n{}\nTraceback (most recent call last):\nAssertionError: 1 != 2\n",
            "=".repeat(70),
            "-".repeat(70)
        );
        assert_eq!(failure_in(&unittest), None);
        for other in ["tests/test_a.py:12", "src/a.rs:3:5", "see tests/a.py::t", "x::y"] {
            assert!(!names_a_test(other), "{other}");
        }
        for id in ["____ sympy/a.py:test_b ____", " tests/test_a.py::test_b[1] "] {
            assert!(names_a_test(id), "{id}");
        }
        assert!(!is_bare_rule("_ _ _ _ _ _ _ _ _ _ _ _"));
        assert!(!is_bare_rule("-----"));
        assert!(is_bare_rule(&"-".repeat(70)));
    }
}

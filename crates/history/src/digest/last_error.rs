//! Which line of an output is its last error, as its toolchain words it,
//! with the message it announces or the diagnostics under it (REACT-6).

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;
use strata_ctx_compress::{
    announced_message, announces_message, elaboration, file_heading_of, heads_error_list,
    is_announced_message, is_exit_status, is_pointed_code, is_verdict, line_kind, line_kind_in, says_failure,
    without_colours, without_level_tag, without_process_name, LineKind,
};

use super::facts::{last_warning, never, MIN_FAILURE_CHARS, NOTE_ERROR_CHARS};

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

/// Whether a failure line is advice about the error, not the error: uv's
/// and git's `hint: …` (`hint: While the active Python version is 3.11,
/// the resolution failed for other Python versions …` under the
/// conclusion that the requirements are unsatisfiable), rustc's and
/// Clippy's `help: …` and `= help: …`, a `note: …`.
fn is_advice(line: &str) -> bool {
    let plain = without_colours(without_process_name(line));
    let said = plain.trim_start().trim_start_matches("= ");
    ["hint:", "help:", "note:"]
        .iter()
        .any(|tag| said.starts_with(tag))
}

/// The last line of `text` logged at the warning level whose words say
/// that something failed (sqlfluff's `WARNING:sqlfluff.linter:One fix for
/// L003 not applied, it would re-cause the same error.`), trimmed: the
/// last error of an output that holds no failure line.
fn warned_failure(text: &str) -> Option<&str> {
    last_warning(text, says_failure)
}

/// The last failure line of an output, as its toolchain prints it
/// ([`strata_ctx_compress::line_kind`]), trimmed, other than `besides`
/// (a summary shown elsewhere) and other than a bare status (at least
/// eight characters, not a mere exit status): the last one with a message
/// (an error, an assertion, a failing test) when there is one, else the
/// last verdict (`FAIL\tpkg`, `BUILD FAILED`,
/// [`strata_ctx_compress::is_verdict`]), and where the output holds no
/// failure line, its last warning whose words say something failed
/// ([`strata_ctx_compress::says_failure`]); and among those with a message,
/// one that is a failure by its own words before one that is only by the
/// level tag its tool puts on every line (`npm ERR! `,
/// [`strata_ctx_compress::without_level_tag`]) and does not end on a link
/// to help about the error above it, nor is advice about it
/// (`hint: …`, `help: …`, `note: …`). A failure line that ends with a
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
            if without_colours(l).trim().chars().count() < MIN_FAILURE_CHARS
                || Some(line.trim()) == besides
                || is_exit_status(l)
            {
                return None;
            }
            let kind = line_kind(l);
            let by_words = kind == LineKind::Failure
                || (printed.len() != l.len() && line_kind(printed) == LineKind::Failure);
            if !by_words && !matches!(kind, LineKind::Warning | LineKind::Plain) {
                return None;
            }
            // Read in its place, once: a warning raised as an exception, at
            // the end of its traceback, and a finding's message over its
            // place (ansible-lint's `name[missing]: All tasks should be
            // named.` over `site.yml:12`) are failures; a passing test's
            // `go test -v` log is noise, the code sbt echoes under an error
            // is context; the code a frame points at is code, though it
            // throws (Jest's `> 3 | throw new TypeError(…)`); so are the
            // code pytest lists in a traceback and a diff's hunk (isort's
            // `-from urllib3.exceptions import …Error`).
            let in_place = line_kind_in(text, printed);
            let failure = (by_words || in_place == LineKind::Failure)
                && !matches!(in_place, LineKind::Noise | LineKind::Context | LineKind::Plain)
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
        .find(|l| {
            (!is_verdict(l) || is_failed_test_status(l))
                && own_words(l)
                && !points_to_help(l)
                && !is_advice(l)
                && !heads_error_list(l)
        })
        .or_else(|| failures().find(|l| !is_verdict(l)))
        .or_else(|| failures().next())
        .or_else(|| warned_failure(text))?;
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
    if let Some(paragraph) = boxed_paragraph(line, &text[..start]) {
        return Some(Cow::Owned(paragraph));
    }
    if let Some(above) = announcing_line_above(&text[..start]) {
        // Only whole: the message must survive the shortest cut a last
        // error gets.
        if above.chars().count() + 1 + line.chars().count() <= NOTE_ERROR_CHARS {
            return Some(Cow::Owned(format!("{above} {line}")));
        }
    }
    if let Some(test) = test_heading_above(&text[..start]) {
        if test.chars().count() + 1 + line.chars().count() <= NOTE_ERROR_CHARS {
            return Some(Cow::Owned(format!("{test} {line}")));
        }
    }
    if !announces_message(line) {
        return Some(in_file(text, line, Cow::Borrowed(line)));
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
    Some(in_file(text, line, joined))
}

/// What the finding `line` of `text` says (`said`), after the heading that
/// names its file when the finding names none itself (ESLint's
/// `src/app.js` over `  2:42  error  'x' is not defined  no-undef`,
/// SQLFluff's `== [models/a.sql] FAIL` over `L:   1 | P:  10 | CV03 | …`,
/// [`strata_ctx_compress::file_heading_of`]): without it, the error says
/// where in a file, not in which. Only whole: what the finding says must
/// survive the shortest cut a last error gets.
fn in_file<'a>(text: &'a str, line: &str, said: Cow<'a, str>) -> Cow<'a, str> {
    match file_heading_of(text, line).map(str::trim) {
        Some(heading) if heading.chars().count() + 1 + said.chars().count() <= NOTE_ERROR_CHARS => {
            Cow::Owned(format!("{heading} {said}"))
        }
        _ => said,
    }
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
/// 0.141s] (162/162) cart tests::totals`) and Meson under its `Summary of
/// Failures:` (`3/9 cart labels   FAIL   0.01s   killed by signal 6
/// SIGABRT`), and `before` what precedes it: from the same line where the
/// run first printed it, over the test's output (its panic, the error log
/// `--print-errorlogs` shows), to the next test's status. The line only
/// names the test; its section says what went wrong.
fn listed_test_section<'a>(line: &str, before: &'a str) -> Option<&'a str> {
    static STATUS: OnceLock<Regex> = OnceLock::new();
    let status = STATUS.get_or_init(|| {
        Regex::new(concat!(
            r"(?m)^\s*(?:PASS|FAIL|SIGSEGV|SIGABRT|SIGKILL|TIMEOUT|LEAK|FLAKY|SLOW|Summary|Cancelling|START)\s+\[\s*[\d.]+m?s\]",
            r"|^\s*\d+/\d+ .+?\s(?:OK|FAIL|SKIP|TIMEOUT|EXPECTEDFAIL|UNEXPECTEDPASS|ERROR)\s+[\d.]+s\b|^Summary of Failures:",
        ))
        .unwrap_or_else(|_| never())
    });
    if !is_failed_test_status(line) {
        return None;
    }
    let trimmed = line.trim();
    let first = before.find(trimmed)? + trimmed.len();
    let rest = before.get(first..)?;
    let end = status.find(rest).map_or(rest.len(), |m| m.start());
    rest.get(..end)
}

/// Whether `line` is a runner's status line of a test that failed, as
/// cargo-nextest (`FAIL [   0.141s] (162/162) cart tests::totals`) and
/// Meson (`7/12 libfmt2:unit / test_format   FAIL   0.03s   exit status
/// 1`) print it in their run and again in the list they close on
/// ([`listed_test_section`]): the test that failed, though it names an
/// exit status as a verdict does.
fn is_failed_test_status(line: &str) -> bool {
    static FAILED: OnceLock<Regex> = OnceLock::new();
    FAILED
        .get_or_init(|| {
            Regex::new(r"^\s*(?:(?:FAIL|SIG\w+|TIMEOUT)\s+\[\s*[\d.]+m?s\]|\d+/\d+ .+?\s(?:FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)\s+[\d.]+s\b)")
                .unwrap_or_else(|_| never())
        })
        .is_match(line)
}

/// How many messages, each announced by the one before, a last error line
/// takes along ([`last_error_line`]).
const ANNOUNCED_DEPTH: usize = 2;

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

/// The test a message is about, when `before` (what precedes the
/// message) ends on ExUnit's heading of a failed test and the place of its
/// assertion (`  4) test discount (ShopTest)` over `
/// test/shop_test.exs:11`), joined (`4) test discount (ShopTest)
/// test/shop_test.exs:11:`): its message alone (`Assertion with ==
/// failed`) names neither.
fn test_heading_above(before: &str) -> Option<String> {
    static HEADING: OnceLock<Regex> = OnceLock::new();
    let mut lines = before
        .trim_end_matches([' ', '\t'])
        .strip_suffix('\n')?
        .rsplit('\n');
    let place = lines.next()?.trim_end_matches('\r');
    let heading = lines.next()?.trim_end_matches('\r');
    let heading_re = HEADING.get_or_init(|| {
        Regex::new(r"^\s*\d+\) (?:test|doctest|property) .+ \([\w.]+\)$").unwrap_or_else(|_| never())
    });
    let place = place.trim();
    let is_place = place.rsplit_once(':').is_some_and(|(file, line)| {
        (file.ends_with(".exs") || file.ends_with(".ex")) && line.parse::<u32>().is_ok()
    });
    (is_place && heading_re.is_match(heading)).then(|| format!("{} {place}:", heading.trim()))
}

/// A failure `line` of a diagnostic Terraform draws in a box (`│ ` before
/// each line) read with the lines above it that it continues, given
/// `before`, what precedes it: Terraform wraps a message at 78 columns, so
/// the last failure line is often the tail of a sentence (`│ failed:
/// Connection refused` under `│ psql: error: connection to server at
/// "db.internal" (10.0.3.7), port 5432`). A line above is wrapped when it
/// is as long as the box's lines get and does not end a sentence or
/// announce what follows; as many as fit [`NOTE_ERROR_CHARS`], without the
/// box. `None` when `line` is not in a box or continues no line.
fn boxed_paragraph(line: &str, before: &str) -> Option<String> {
    const GUTTER: char = '│';
    let line = without_colours(line);
    let tail = line.strip_prefix(GUTTER)?.trim();
    let mut joined = tail.to_owned();
    let above = before.strip_suffix('\n')?.rsplit('\n').map(without_colours);
    let boxed = above.map_while(|l| Some(l.strip_prefix(GUTTER)?.trim().to_owned()));
    let wrapped = |l: &String| l.chars().count() >= WRAPPED_CHARS && !l.ends_with(['.', ':', '!', '?']);
    for l in boxed.take_while(wrapped) {
        if l.chars().count() + 1 + joined.chars().count() > NOTE_ERROR_CHARS {
            break;
        }
        joined = format!("{l} {joined}");
    }
    (joined.len() > tail.len()).then_some(joined)
}

/// How long a line of a Terraform diagnostic's box is at least when the
/// line after it continues it ([`boxed_paragraph`]): its lines wrap at 78
/// columns, between words.
const WRAPPED_CHARS: usize = 60;

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

#[cfg(test)]
mod tests {
    use super::{is_advice, last_error_line, points_to_help};

    /// REACT-6: Terraform wraps its diagnostics at 78 columns in a box:
    /// the last error is the wrapped sentence, not its tail; a short line
    /// above (what the command printed) or one that ends a sentence is
    /// not part of it.
    #[test]
    fn a_terraform_error_is_read_whole_across_its_box_s_wrapped_lines() {
        let apply = concat!(
            "╷\n",
            "│ Error: local-exec provisioner error\n",
            "│ \n",
            "│   with terraform_data.step[3],\n",
            "│ \n",
            "│ Error running command './migrate.sh delta': exit status 2. Output:\n",
            "│ preparing delta\n",
            "│ psql: error: connection to server at \"db.internal\" (10.0.3.7), port 5432\n",
            "│ failed: Connection refused\n",
            "╵\n",
        );
        assert_eq!(
            last_error_line(apply, None).as_deref(),
            Some("psql: error: connection to server at \"db.internal\" (10.0.3.7), port 5432 failed: Connection refused")
        );
        let header = "╷\n│ Error: Reference to undeclared resource\n│ \n│ A managed resource has not been declared.\n╵\n";
        assert_eq!(
            last_error_line(header, None).as_deref(),
            Some("│ Error: Reference to undeclared resource")
        );
        // As many of the wrapped lines as fit 160 characters, the last ones.
        let above = format!("│ {} to", "x".repeat(130));
        let long = format!(
            "╷\n│ {}\n{above}\n│ failed: Connection refused\n╵\n",
            "y".repeat(70)
        );
        let joined = format!("{} failed: Connection refused", &above[4..]);
        assert_eq!(joined.chars().count(), 160);
        assert_eq!(last_error_line(&long, None).as_deref(), Some(joined.as_str()));
        let longer = long.replace(" to\n", " tos\n");
        assert_eq!(
            last_error_line(&longer, None).as_deref(),
            Some("│ failed: Connection refused")
        );
        // Outside a box, a line is what it says.
        let plain = "psql: error: connection to server at \"db.internal\" (10.0.3.7), port 5432\nfailed: Connection refused\n";
        assert_eq!(
            last_error_line(plain, None).as_deref(),
            Some("failed: Connection refused")
        );
    }

    /// REACT-6: node:test's spec reporter closes every run with its
    /// counts (`ℹ fail 0`): a run that passed has no last error.
    #[test]
    fn a_passing_node_test_run_has_no_last_error() {
        let passed = "▶ cart\n  ✔ totals (0.5ms)\n✔ cart (1.2ms)\nℹ tests 1\nℹ suites 1\nℹ pass 1\nℹ fail 0\nℹ cancelled 0\n";
        assert_eq!(last_error_line(passed, None), None);
        let failed = passed.replace("ℹ fail 0", "ℹ fail 1");
        assert_eq!(last_error_line(&failed, None).as_deref(), Some("ℹ fail 1"));
    }

    /// REACT-6: `cargo test -- --nocapture` prints the panic of a
    /// `#[should_panic]` test that passed: a run that passed has no last
    /// error; one whose test failed below the panic has it.
    #[test]
    fn an_expected_panic_of_a_passing_cargo_test_run_is_no_error() {
        let passed = "running 2 tests\nchecking 6 / 3\n\nthread 'tests::rejects_zero' (13882) panicked at src/lib.rs:3:9:\ndivision by zero: 1 / 0\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\ntest tests::divides ... ok\ntest tests::rejects_zero - should panic ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.08s\n\n";
        assert_eq!(last_error_line(passed, None), None);
        let failed = passed
            .replace("rejects_zero - should panic ... ok", "rejects_zero ... FAILED")
            .replace(
                "test result: ok. 2 passed; 0 failed",
                "test result: FAILED. 1 passed; 1 failed",
            );
        assert_eq!(
            last_error_line(&failed, None).as_deref(),
            Some("test tests::rejects_zero ... FAILED")
        );
        let panicked_alone = failed.replace("test tests::rejects_zero ... FAILED\n", "");
        assert_eq!(
            last_error_line(&panicked_alone, None).as_deref(),
            Some("thread 'tests::rejects_zero' (13882) panicked at src/lib.rs:3:9: division by zero: 1 / 0")
        );
    }

    /// REACT-6: tests expected to fail that did, and skipped ones, are no
    /// error, whatever their reasons say.
    #[test]
    fn expected_failures_and_skips_are_no_error() {
        let passed = "test_ok.py::test_parse PASSED [ 33%]\ntest_ok.py::test_known XFAIL (known failure) [ 66%]\ntest_ok.py::test_net SKIPPED (connection failed) [100%]\n=== 1 passed, 1 skipped, 1 xfailed in 0.1s ===\n";
        assert_eq!(last_error_line(passed, None), None);
        // Nor are the titles of examples that passed (Hspec, RSpec's
        // documentation format).
        let hspec = "errors\n  fails on bad input\n  reports an error\n\nFinished in 0.0001 seconds\n2 examples, 0 failures\n";
        assert_eq!(last_error_line(hspec, None), None);
    }

    /// REACT-6: advice under an error is not the last error, though its
    /// words fail (uv's `hint: … the resolution failed …` under its
    /// conclusion, which is); alone, it is what there is.
    #[test]
    fn advice_is_not_the_last_error() {
        let uv = "  × No solution found when resolving dependencies:\n  ╰─▶ Because your project depends on numpy<1.20 and pandas>=2.2, we can conclude that your project's requirements are unsatisfiable.\n\n      hint: While the active Python version is 3.11, the resolution failed for other Python versions supported by your project.\n";
        assert_eq!(
            last_error_line(uv, None).as_deref(),
            Some("╰─▶ Because your project depends on numpy<1.20 and pandas>=2.2, we can conclude that your project's requirements are unsatisfiable.")
        );
        let alone = "hint: the build failed, see above\n";
        assert_eq!(
            last_error_line(alone, None).as_deref(),
            Some("hint: the build failed, see above")
        );
        for line in [
            "hint: x failed",
            "   = help: the trait `Error` is not implemented",
            "note: failed",
            "\x1b[1mhelp:\x1b[0m failed",
        ] {
            assert!(is_advice(line), "{line}");
        }
        for line in [
            "error: hint: failed",
            "hinted: failed",
            "FAILED tests/a.py::test_note",
        ] {
            assert!(!is_advice(line), "{line}");
        }
    }

    /// REACT-6: Node's missing module is the error, not the heading of
    /// the modules that required it (`Require stack:`) under it.
    #[test]
    fn a_missing_module_is_the_last_error_over_its_require_stack() {
        let node = "node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\nError: Cannot find module './db'\nRequire stack:\n- /home/dev/app/index.js\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n    at Object.<anonymous> (/home/dev/app/index.js:1:1) {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: [ '/home/dev/app/index.js' ]\n}\n\nNode.js v20.20.2\n";
        assert_eq!(
            last_error_line(node, None).as_deref(),
            Some("Error: Cannot find module './db'")
        );
    }

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

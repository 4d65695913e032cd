//! What each line of a command's output is, as the toolchains agents run
//! print it (TOOL-8): a failure, a warning, a summary, the context of a
//! failure, noise, or plain output.
//!
//! The patterns come from the tools' own output formats, not from any
//! word list of a measuring script: rustc and cargo (`error[E0308]:`,
//! `-->`, `test … FAILED`, `test result:`), Go (`--- FAIL:`, `FAIL\tpkg`,
//! `file.go:12:3: undefined: x`, `panic:`, `goroutine 1 [running]:`),
//! tsc (`file.ts(3,5): error TS2322:`), eslint (`  3:10  error  …`),
//! jest and vitest (`FAIL src/a.test.ts`, `●`, `✕`, `×`, `Tests: 1
//! failed`), pytest, mypy and ruff (`FAILED a.py::t`, `E   assert`,
//! `a.py:3: error:`, `a.py:1:1: F401`), javac, Maven and Gradle
//! (`A.java:3: error:`, `[ERROR]`, `BUILD FAILURE`, `> Task :x FAILED`),
//! make, gcc and clang (`make: *** [all] Error 1`, `a.c:3:5: error:`,
//! `undefined reference to`), npm, pnpm and yarn (`npm ERR!`, `npm error`,
//! `ERR_PNPM_…`, `error Command failed`), and the stack traces of Python,
//! Java, JavaScript, Go and Rust, whose frames in libraries are noise.

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};

/// The fields under a Windows PowerShell error (`    + CategoryInfo
/// : ObjectNotFound: …`, `    + FullyQualifiedErrorId : PathNotFound,…`):
/// what the error was. Context, though they open as a diff's added line
/// does ([`words::REPORT_LIKE_CODE`]). A macro, so that both patterns can
/// hold it.
macro_rules! powershell_field {
    () => {
        r"^\s*\+ (?:CategoryInfo|FullyQualifiedErrorId)\s+: \S"
    };
}

/// A Pydantic error under its field (`  Field required [type=missing,
/// input_value={}, input_type=dict]`, Pydantic 1's `(type=value_error.missing)`),
/// found by its end: opening on the indentation cost the search 4 %. A
/// macro, so that [`words::FAILURE`] and [`payload`] can hold it.
macro_rules! field_error {
    () => {
        r" \[type=[a-z_]+(?:, .*input_type=\w+)?\]$| \(type=[a-z_.]+(?:; [^)]*)?\)$"
    };
}

/// Python's position markers under a frame's code line (PEP 657: `^^^^`,
/// `~~~^^^`). A macro, so that [`noise_words::NOISE`] and
/// [`is_position_markers`] can hold it.
macro_rules! position_markers {
    () => {
        r"^\s*~*\^[\^~]*\s*$"
    };
}

/// A heading that goes on with the error above it, over a list: Node's
/// `Require stack:` over the modules that required one it could not find
/// (`- /app/server.js`). A macro, so that [`words::FAILURE`] and
/// [`heads_error_list`] can hold it.
macro_rules! error_list_heading {
    () => {
        r"^Require stack:$"
    };
}

/// The heading of a frame of IPython's and Jupyter's tracebacks (`Cell
/// In[1], line 9`, `File /home/dev/prices.py:6, in load(lines)`). A
/// macro, so that [`CONTEXT`] and [`listing`]'s frames can hold it.
macro_rules! ipython_frame {
    () => {
        r"^Cell In ?\[\d+\], line \d+|^File \S+:\d+, in \S"
    };
}

/// A caller Perl's Carp lists under a `confess` or `croak` (`\tApp::
/// Report::_row(App::Report=HASH(0x5627b5ff3860), "carol", 5) called at
/// lib/App/Report.pm line 11`). A macro, so that [`CONTEXT`] and the read
/// of a `die` in its place can hold it.
macro_rules! perl_caller {
    () => {
        r"^\t\S.* called at \S+ line \d+$"
    };
}

/// The start of a row of SQLFluff's report, its line and position (`L:
/// 3 | P:  10 | `). A macro, so that [`FAILURE`] and the search for the
/// heading that names a row's file can hold it.
macro_rules! sqlfluff_row {
    () => {
        r"^L:\s*\d+ \| P:\s*\d+ \|"
    };
}

mod announce;
mod causes;
mod counts;
mod file_heading;
mod levels;
mod listing;
mod located;
mod noise_words;
mod payload;
mod place;
pub(crate) mod prefix;
mod shape;
mod terminal;
mod traceback;
mod words;

pub use announce::{
    announced_message, announces_message, elaboration, is_announced_message, is_finding_field,
    is_value_heading,
};
pub(crate) use announce::{message_lines, value_under, Elaborations, NEXT_OPERAND_REACH, OPERAND_REACH};
pub(crate) use causes::causes_under;
use counts::zero_failure_counts;
pub use counts::{is_count, is_exit_status, is_verdict, reports_no_failures};
pub(crate) use file_heading::file_heading_above;
pub use file_heading::file_heading_of;
pub use levels::says_failure;
pub use levels::without_level_tag;
pub(crate) use levels::{grows_as_failure, is_tagged_marks};
use levels::{logged_as_warning, logged_level, severity_tagged, sniff_level, GLOG_RECORD};
pub(crate) use located::{frame_place, opens_value};
use located::{has_message, is_note, located_message, without_paths};
pub(crate) use payload::{field_above, payload_lines, payload_messages};
pub(crate) use place::{
    failed_example_above, is_message_over_place, is_numbered_heading, kind_in_place, lines_above,
    section_title_above, span_in, HEADING_REACH,
};
pub use place::{last_failure, line_kind_in};
use place::{ARROW_MESSAGE, NUMBERED_HEADING};
use prefix::{without_stream_prefix, STREAM_PREFIX, TEST_EVENT};
pub(crate) use shape::{Met, Repeats};
pub use terminal::{as_shown, without_colours};
pub(crate) use terminal::{line_as_shown, redraws};
pub(crate) use traceback::exception_continued;
use traceback::EXCEPTION_NAME;
use words::{FAILURE, FIXABLE, REPORT_LIKE_CODE, SPEC_EXPECTATION, SUMMARY, TAP_FIELD, WARNING};

/// What a line of a command's output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LineKind {
    /// Something failed: an error, a failing test, a panic, an exception,
    /// a build that broke, a command that exited non-zero.
    Failure,
    /// A warning or a deprecation.
    Warning,
    /// A summary: test counts, a build's outcome, an exit status.
    Summary,
    /// Where a failure happened: a source location (`--> src/a.rs:3:5`),
    /// a stack frame in the project's own code, the code line a
    /// compiler points at.
    Context,
    /// What nobody reads again: progress bars, passing tests, downloads
    /// and installs, compiling of dependencies, stack frames inside
    /// libraries and the runtime.
    Noise,
    /// Anything else.
    Plain,
}

impl LineKind {
    /// Whether the line carries a diagnostic (a failure, a warning or a
    /// summary).
    pub fn is_diagnostic(self) -> bool {
        matches!(self, LineKind::Failure | LineKind::Warning | LineKind::Summary)
    }
}

fn compiled(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| build(pattern))
}

/// `pattern` compiled with ASCII word boundaries: the lazy DFA runs them
/// on any text, where Unicode ones make it give up on the first non-ASCII
/// byte. Its cache may grow to [`DFA_CACHE_BYTES`]: the one search for
/// candidate lines ([`candidates`]) is a few hundred patterns, and with
/// regex's default of 2 MiB its lazy DFA filled its cache again and
/// again on a long log and gave up for the slower engines (a 11 MB
/// build log took 2.1 s, 16 times as long, once one more pattern was in).
fn build(pattern: &str) -> Regex {
    RegexBuilder::new(&pattern.replace(r"\b", r"(?-u:\b)"))
        .dfa_size_limit(DFA_CACHE_BYTES)
        .build()
        .unwrap_or_else(|_| never())
}

/// The most memory the lazy DFA of one of this module's patterns may
/// cache, per thread that searches with it: most use far less.
const DFA_CACHE_BYTES: usize = 16 << 20;

/// One search for every line that may carry a diagnostic or context: a
/// superset of [`line_kind`]'s failure, warning, summary and context
/// lines (every line under a [`STREAM_PREFIX`] among them), found in one
/// pass over a whole output, so that only those lines are classified.
pub(crate) fn candidates() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // A glog record at the info level is what its words say.
        let glog = GLOG_RECORD.replace("[IWEF]", "[WEF]");
        build(&format!(
            "(?m)(?:{FAILURE})|(?:{SPEC_EXPECTATION})|(?:{WARNING})|(?:{SUMMARY})|(?:{CONTEXT})|(?:{NUMBERED_HEADING})|(?:{ARROW_MESSAGE})|(?:{EXCEPTION_NAME})|(?:{TEX_ERROR})|^(?:{STREAM_PREFIX})|^[ \t]*┃ |^[ \t]*{glog}|{TEST_EVENT}"
        ))
    })
}

#[cold]
fn never() -> Regex {
    // The patterns here are constants that compile; this keeps the
    // library free of panics should that ever change: nothing matches.
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| never())
}

/// Whether `line` heads a list that goes on with the error above it, as
/// Node's `Require stack:` heads the modules that required one it could
/// not find: a failure line, so that the list stays with its error, but
/// not the error itself, which the line above says (`Error: Cannot find
/// module './db'`).
///
/// ```
/// use strata_ctx_compress::heads_error_list;
/// assert!(heads_error_list("Require stack:"));
/// assert!(heads_error_list("\x1b[31mRequire stack:\x1b[0m"));
/// assert!(!heads_error_list("Error: Cannot find module './db'"));
/// ```
pub fn heads_error_list(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, error_list_heading!()).is_match(without_colours(prefix::without_process_name(line)).trim())
}

/// Whether `line` is a frame of a Rust backtrace, as a panic under
/// `RUST_BACKTRACE=1` and anyhow's `Stack backtrace:` print them: its
/// number, then the function's path (`  2: cfgtool::parse`, `  8: <&dyn
/// core::ops::function::Fn<()> as …>::call_once`), with no message after
/// it, unlike the numbered causes of an error (`    0: config is not
/// valid JSON`).
fn is_rust_frame(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let Some((_, symbol)) = line.split_once(": ") else {
        return false;
    };
    !symbol.contains(": ")
        && compiled(&RE, r"^\s*\d{1,4}: (?:<|[A-Za-z_]\w*(?:<[^<>\s]*>)?::\S)").is_match(line)
}

/// Lines that look like code or a diff rather than output: a diff's `+`
/// and `-` lines, `raise`, `throw`, `def`, imports, comments (`# …`,
/// `// …`) and calls of error helpers and loggers (`t.Errorf(`,
/// `logger.error(`, `console.warn(`).
fn code() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"^\s*(?:[+-](?:\s|$)|@@ )|\w\.(?:Errorf|Fatalf|Error|Fatal|error|warn|warning|exception|critical|fatal)\(|err != nil|^\s*(?:raise |except\b|catch\s*\(|throw new |def |func |class |return |assert_?\w*\(|#include|import |from \S+ import |# |// )",
    )
}

/// Noise: passing tests, progress, downloads and installs, compiling of
/// dependencies, library stack frames ([`noise_words::NOISE`]).
fn noise() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, noise_words::NOISE)
}

/// An assertion's operands and matcher: jest and vitest (`Expected: 3`,
/// `Received: 4`, `expect(received).toBe(expected)`, and what jest
/// received where a promise or a function was to be tested: `Received
/// promise rejected instead of resolved`, `Received function did not
/// throw`), Rust (`left: 3`, `right: 4`), JUnit and others (`Actual: …`),
/// testify (`actual  : 100`, its colons aligned), ExUnit (`code:  assert
/// …` over `left:` and `right:`), javac's `symbol:` and `location:`
/// under `cannot find symbol`, the quoted code between, and the types of
/// a mismatch as scalac and javac print them (` found   : Int(0)` over `
/// required: String`), and Jest 22's headings over each operand's value
/// (`    Expected value to be:` over `      28`, `    Received:` over
/// `      29`), and Hspec's `expected: 25` over ` but got: 27`. A macro,
/// so that [`CONTEXT`] can hold it.
macro_rules! operand {
    () => {
        r"^\s*(?:Expected|Received|Actual|expected|received|actual|(?:but )?got|left|right|code|symbol|location|found|required|Found|Required)(?: [a-z]+){0,2} *:\s|^(?:Expected|Got):$|^\s*expect\(received\)|^\s*Received (?:promise (?:rejected|resolved) instead of (?:resolved|rejected)|function did not throw)$|^\s*(?:Expected value to [a-z ]+|Received|received\.length):$"
    };
}
const OPERAND: &str = operand!();

/// The line a code frame points at (`> 14 |   expect(total).toBe(90)`,
/// Biome's `> 3 │ let total = 0;`, BuildKit's `   8 | >>> RUN npm ci` in
/// the Dockerfile excerpt under a failed step, Semgrep's `  17┆ eval(x)`
/// under its finding, IPython's `----> 3 items = prices.load(rows)` in a
/// frame of its traceback). A macro, so that [`CONTEXT`] can hold it.
macro_rules! pointed_code {
    () => {
        r"^\s*>\s*\d+\s*[|│]|^\s*\d+ \| >>> |^\s+\d+┆ |^-+> \d+ "
    };
}

pub(crate) mod context;
pub(crate) use context::{is_excerpt_line, is_quoted_code};
use context::{named_frame, CONTEXT, TEX_ERROR};

/// Whether `line` names a place in a file ([`CONTEXT`]): a frame, a
/// location, a finding's `a.c:3:5:`; or a finding's line and column at
/// the start of a row under its file's heading, as the stylish reporters
/// of ESLint, Stylelint and remark print each (`  3:7  warning  …`).
pub(crate) fn is_located(line: &str) -> bool {
    static ROW: OnceLock<Regex> = OnceLock::new();
    context().is_match(line) || compiled(&ROW, r"^\s+\d+:\d+\s+\S").is_match(line)
}

/// Whether `line` is the line a code frame points at (`> 14 |
/// expect(total).toBe(90)`): the code that failed, where the frame's other
/// numbered lines are only around it. It is code, whatever it names: no
/// error message, though it may throw one.
///
/// ```
/// use strata_ctx_compress::is_pointed_code;
///
/// assert!(is_pointed_code("    > 3 | function parse(s) { throw new TypeError(`not a number: ${s}`) }"));
/// assert!(!is_pointed_code("      4 | module.exports = { parse };"));
/// assert!(!is_pointed_code("    TypeError: not a number: x"));
/// ```
pub fn is_pointed_code(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, pointed_code!()).is_match(prefix::without_process_name(&without_colours(line)))
}

/// How far under a compiler's heading ([`is_compiler_heading`]) the
/// primary label of its code frame ([`is_caret_label`]) may stand: the
/// place, a blank gutter, and a few lines of the code it points at.
pub(crate) const LABEL_REACH: usize = 8;

/// Whether `line` heads a diagnostic as rustc (and Gleam, Roc, ruff, ty)
/// heads its errors: `error[E0308]: mismatched types`, `error[invalid-
/// argument-type]: …`, `error: cannot find macro`, a code frame under it.
pub(crate) fn is_compiler_heading(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^error(?:\[[\w-]+\])?: \S").is_match(&without_colours(line))
}

/// Whether `line` is the position markers Python 3.11 prints under a
/// frame's code line (`    ~~~~^^^^^^`, [`position_markers!`]).
pub(crate) fn is_position_markers(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, position_markers!()).is_match(line)
}

/// Whether `line` is a code frame's primary label: the carets under the
/// code a compiler's diagnostic points at, and what it says there
/// (rustc's `  |            ---   ^^^ expected `u32`, found `&str``,
/// `  |     ^^ not found in this scope`): the diagnostic's message at its
/// place, which the heading above it often leaves general (`error[E0308]:
/// mismatched types`). Carets with nothing after them (GCC's `~~~^~~`,
/// Python's `^^^^`) and secondary labels (`--- expected due to this`)
/// are not.
pub(crate) fn is_caret_label(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^\s*\d*\s*[|│][\s|_/\\~-]*\^[\^~-]*\s+\S").is_match(&without_colours(line))
}

/// Whether `line` is an assertion's operand or matcher ([`OPERAND`]): a
/// context line that belongs to the failure above it.
pub(crate) fn is_operand(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, OPERAND).is_match(line)
}

/// Progress: bars, percentages with rates, spinners; not the thin rule
/// (`─`) Playwright and others draw after a heading. A located line that
/// draws a bar after its location is a diagnostic's heading (Biome's
/// `./src/a.ts:3:7 lint/style/useConst  FIXABLE  ━━━━`), not progress:
/// [`line_kind`] asks [`context`] first.
fn progress() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"[█▉▊▋▌▍▎▏━▓▒░]{4}|\[[=#>\-\s]{8,}\]|\d{1,3}%\|| \d+(?:\.\d+)? ?(?:[kMG]i?B|it)/s\b|\bETA\b",
    )
}

/// Failures, as each toolchain words them.
fn failure() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, FAILURE)
}

/// Warnings and deprecations.
fn warning() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, WARNING)
}

/// Summaries: test counts, build outcomes, exit statuses.
fn summary() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, SUMMARY)
}

/// Context: source locations and frames of the project's code.
fn context() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, CONTEXT)
}

/// A line of a code frame under its gutter, as rustc, gcc, Jest and ruff
/// print them (`  14 |   return totl;`, `   |          ^^^^`), Vitest
/// with no space before its bar (`     15|   throw new Error("x")`), and
/// Semgrep (`     17┆ subprocess.run(cmd, shell=True)`), and the mark
/// SQLite's shell puts under the statement it could not parse (`  ^---
/// error here`).
fn code_frame() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"^\s*\d*\s+\|(?:\s|$)|^\s+\d+\|(?:\s|$)|^\s+(?:\d+|▶▶)┆|^\s*\^--- error here$",
    )
}

/// A sentence in a code frame's gutter, where no line number stands
/// (PowerShell 7's `     | You cannot call a method on a null-valued
/// expression.`).
fn framed_message() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^\s+\| [A-Z][a-z]+ [a-z].*\.$")
}

/// ScalaTest's failed expectation ([`SPEC_EXPECTATION`]).
fn spec_expectation() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, SPEC_EXPECTATION)
}

/// A field of a TAP producer's YAML diagnostic block other than its
/// message (`  name: 'AssertionError'`, `  code: 'ERR_TEST_FAILURE'`,
/// `  failureType: 'testCodeFailure'`).
fn tap_field() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, TAP_FIELD)
}

/// A tool's report line that opens like a comment or a diff's line: an
/// RSpec frame (`# ./lib/calc.rb:4:in 'div'`), a TAP producer's closing
/// count (`# fail 2`), Test::More's diagnostics (`#   Failed test
/// 'adds'`), Composer's problems (`    - a/b v1.0 requires php ^8.2 ->
/// your php version (8.1.2) does not satisfy that requirement.`).
fn fixable() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, FIXABLE)
}

fn report_like_code() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, REPORT_LIKE_CODE)
}

/// The longest line classified; longer lines are judged by their start.
const CLASSIFIED_BYTES: usize = 512;

/// What `line` is (see [`LineKind`]).
///
/// ```
/// use strata_ctx_compress::{line_kind, LineKind};
///
/// assert_eq!(line_kind("error[E0308]: mismatched types"), LineKind::Failure);
/// assert_eq!(line_kind("src/app.ts(12,5): error TS2322: Type 'string' is not assignable"), LineKind::Failure);
/// assert_eq!(line_kind("./main.go:14:2: undefined: handler"), LineKind::Failure);
/// assert_eq!(line_kind("  --> src/main.rs:4:13"), LineKind::Context);
/// assert_eq!(line_kind("warning: unused variable: `x`"), LineKind::Warning);
/// assert_eq!(line_kind("Tests:       1 failed, 41 passed, 42 total"), LineKind::Failure);
/// assert_eq!(line_kind("test result: ok. 12 passed; 0 failed"), LineKind::Summary);
/// assert_eq!(line_kind("tests/test_api.py::test_login PASSED"), LineKind::Noise);
/// assert_eq!(line_kind("Requirement already satisfied: exceptiongroup in /usr/lib"), LineKind::Noise);
/// assert_eq!(line_kind("Compiling 3 files"), LineKind::Plain);
/// ```
///
/// A `go test -json` event is what it reports: the line a test printed,
/// judged alone, a failure, or noise.
pub fn line_kind(line: &str) -> LineKind {
    if let Some(event) = prefix::test_event(line) {
        return match event {
            prefix::TestEvent::Printed(text) => line_kind(&text),
            prefix::TestEvent::Failed => LineKind::Failure,
            prefix::TestEvent::Other => LineKind::Noise,
        };
    }
    // As a terminal shows it, then its start: a progress bar's drawings
    // may stand before what the line says.
    let line = line_as_shown(line.trim_end_matches('\n'));
    let line = &line[..crate::text::floor_boundary(line, CLASSIFIED_BYTES)];
    // Colour codes (`\x1b[31;1m`) are how tools print, not what they say.
    let plain = without_colours(line);
    let line = without_stream_prefix(plain.as_ref());
    if line.trim().is_empty() {
        return LineKind::Plain;
    }
    if noise().is_match(line) || (progress().is_match(line) && !context().is_match(line)) {
        return LineKind::Noise;
    }
    if let Some(kind) = sniff_level(line) {
        return kind;
    }
    // Context whatever their words: sbt's marks under the code it echoes
    // (`[error]     ^`); a code frame's line (rustc's `   |   ^^^ memory
    // access failed`, Jest's `  2 | throw new RangeError(…)`); the fields
    // of a TAP producer's YAML block under a failing test point
    // (node:test's `  name: 'TypeError'`), whose `error:` field says why;
    // Lua's heading over the frames under its error (`stack traceback:`);
    // a frame that names a function ([`named_frame`]).
    if is_tagged_marks(line)
        || code_frame().is_match(line)
        || named_frame().is_match(line)
        || tap_field().is_match(line)
        || line.trim() == "stack traceback:"
    {
        // PowerShell 7 writes an error's message in the gutter of the
        // frame under it, with no line number (`     | Cannot find path
        // 'C:\a' because it does not exist.`): a failure in its words.
        if framed_message().is_match(line) && failure().is_match(&without_paths(line)) {
            return LineKind::Failure;
        }
        return LineKind::Context;
    }
    // A comment's `# ` opens RSpec's frames and TAP's counts too.
    if code().is_match(line) && !report_like_code().is_match(line) {
        return LineKind::Plain;
    }
    // A frame of a Rust backtrace names a function, whatever its words
    // (anyhow's `0: <E as anyhow::context::ext::StdError>::ext_context`).
    if is_rust_frame(line) {
        return LineKind::Plain;
    }
    // A compiler's located note says where, whatever its words (g++'s
    // `a.h:219:5: note:   template argument deduction/substitution
    // failed:` under the error it explains).
    if is_note(line) && context().is_match(line) {
        return LineKind::Context;
    }
    // What its level says, whatever its message's words ([`logged_level`]).
    if let Some(kind) = logged_level(line) {
        return kind;
    }
    let summary = summary().is_match(line) || fixable().is_match(line);
    // A summary that counts failures is itself a failure line: it is what
    // the agent reads first; one whose every failure count is zero
    // (`Tests run: 5, Failures: 0, Errors: 0`) is a summary.
    let zero_failures = zero_failure_counts(line);
    // Words inside file names (`errors.py`, `deprecated.cfg`) say nothing.
    let words = without_paths(line);
    if (failure().is_match(&words) || spec_expectation().is_match(line))
        && !zero_failures
        && !fixable().is_match(line)
    {
        // A line the tool itself logged at the warning level (sbt's
        // `[warn]`, Maven's `[WARNING]`) is a warning whatever its words
        // (`[warn] It would fail on the following input: None`); not
        // Prettier's list of the files it would change (`[warn] src/a.ts`).
        if logged_as_warning(line) && words.trim() != "[warn]" {
            return LineKind::Warning;
        }
        return LineKind::Failure;
    }
    if summary || zero_failures {
        return LineKind::Summary;
    }
    if warning().is_match(&words) {
        return LineKind::Warning;
    }
    if context().is_match(line) {
        if let Some(tag) = severity_tagged().captures(line) {
            return if tag.get(1).is_some() {
                LineKind::Failure
            } else {
                LineKind::Warning
            };
        }
        // A located message that is not a mere frame: Go and ruff print
        // failures with no "error" word. A compiler's located note (gcc's
        // and clang's `a.c:3:74: note: directive argument in the range …`)
        // belongs to the diagnostic above it: it says where, not what.
        if located_message().is_match(line)
            && !line.trim_start().starts_with("at ")
            && has_message(line)
            && !is_note(line)
        {
            return LineKind::Failure;
        }
        return LineKind::Context;
    }
    LineKind::Plain
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TOOL-8: the system's messages as Go words them, in lower case
    /// (`failures_of_each_toolchain`), are failures after what failed,
    /// not in a sentence.
    #[test]
    fn tool_8_lower_case_system_messages_are_failures_only_after_what_failed() {
        for line in [
            "Skipping a.txt: file exists",
            "If the file exists, it is replaced.",
            "The path is a directory, or not a directory.",
            "Pipes: broken pipe handling is described below",
        ] {
            assert_eq!(line_kind(line), LineKind::Plain, "{line}");
        }
    }

    /// TOOL-8: Node's `Require stack:` heads the list under its error, a
    /// failure line that is not the error.
    #[test]
    fn tool_8_require_stack_heads_its_error_s_list() {
        assert!(heads_error_list("Require stack:"));
        assert!(heads_error_list("api-1  | Require stack:"));
        assert!(!heads_error_list("Error: Cannot find module './db'"));
        assert!(!heads_error_list("Require stack: none"));
        assert_eq!(line_kind("Require stack:"), LineKind::Failure);
    }

    /// TOOL-8: gdb's backtrace: a frame of the project is where it
    /// failed, whatever its arguments say; the C library's frames, the
    /// frame gdb stopped in there and the source it cannot show are
    /// noise; the signal is the failure.
    #[test]
    fn tool_8_gdb_s_frames_are_context_in_the_project_and_noise_in_libc() {
        let context = [
            "#6  0x00005555555551ba in parse_qty (s=0x555555556035 \"0\") at ab.c:3",
            "#2  0x000055555555526b in report (msg=0x7ffe \"connection failed\") at net.c:16",
            "Cart::total (this=0x7fffffffe3c0, n=3) at src/cart.cpp:12",
        ];
        for line in context {
            assert_eq!(line_kind(line), LineKind::Context, "{line}");
        }
        let noise = [
            "__pthread_kill_implementation (threadid=<optimized out>, signo=signo@entry=6, no_tid=no_tid@entry=0) at ./nptl/pthread_kill.c:44",
            "44\t./nptl/pthread_kill.c: No such file or directory.",
            "#4  0x00007ffff7dfb395 in __assert_fail_base (fmt=0x7ffff7f70a90 \"%s%s%s:%u: %s%sAssertion `%s' failed.\\n%n\") at ./assert/assert.c:94",
            "#0  __strlen_evex () at ../sysdeps/x86_64/multiarch/strlen-evex.S:79",
            "#1  0x00007ffff7a2d1ca in ?? () from /lib/x86_64-linux-gnu/libc.so.6",
        ];
        for line in noise {
            assert_eq!(line_kind(line), LineKind::Noise, "{line}");
        }
        assert_eq!(
            line_kind("Program received signal SIGABRT, Aborted."),
            LineKind::Failure
        );
        let gdb = "ab: ab.c:3: parse_qty: Assertion `q > 0' failed.\n\nProgram received signal SIGABRT, Aborted.\n__pthread_kill_implementation (no_tid=0) at ./nptl/pthread_kill.c:44\n44\t./nptl/pthread_kill.c: No such file or directory.\n#4  0x00007ffff7dfb395 in __assert_fail_base (fmt=0x7ffff7f70a90 \"%s%sAssertion `%s' failed.\\n%n\") at ./assert/assert.c:94\n#6  0x00005555555551ba in parse_qty (s=0x555555556035 \"0\") at ab.c:3\n";
        assert_eq!(
            last_failure(gdb),
            Some("Program received signal SIGABRT, Aborted.")
        );
    }

    /// TOOL-8: a frame of an `async` function is a frame, as Node and
    /// Deno print it (`at async loadConfig (file:///a/cause.mjs:3:27)`,
    /// with the brace that opens the error's fields after the last);
    /// Deno's runtime's are noise.
    #[test]
    fn tool_8_an_async_frame_is_context_and_deno_s_runtime_noise() {
        for line in [
            "        at async loadConfig (file:///home/dev/orders/cause.mjs:3:27)",
            "    at async file:///home/dev/orders/cause.mjs:11:1 {",
            "    at load (/home/dev/misc/rej.js:2:36) {",
        ] {
            assert_eq!(line_kind(line), LineKind::Context, "{line}");
        }
        for line in [
            "    at async Object.readTextFile (ext:deno_fs/30_fs.js:1:10042)",
            "    at ext:core/01_core.js:178:7",
        ] {
            assert_eq!(line_kind(line), LineKind::Noise, "{line}");
        }
        assert_eq!(line_kind("    at async Promise.all (index 0)"), LineKind::Plain);
    }

    /// TOOL-8: a field's name that opens a value printed under it says
    /// nothing alone; a field with its value, or a frame, does.
    #[test]
    fn tool_8_a_field_that_opens_a_value_is_told_apart() {
        for line in ["  actual: {", "  expected: [  ", "    $args: {"] {
            assert!(opens_value(line), "{line}");
        }
        for line in [
            "  code: 'ENOENT',",
            "    at file:///home/dev/orders/big.mjs:5:8",
            "  actual: { count: 2 },",
            "Error: failed to load {",
        ] {
            assert!(!opens_value(line), "{line}");
        }
    }

    /// TOOL-8: a Rust backtrace's frames name functions, whatever their
    /// words: the standard library's and the C runtime's, and where the
    /// crates of Cargo's registry stand, are noise; the program's own are
    /// plain; an error's numbered causes are not frames.
    #[test]
    fn tool_8_a_rust_frame_is_no_failure() {
        for line in [
            "   0: <E as anyhow::context::ext::StdError>::ext_context",
            "   1: anyhow::context::<impl anyhow::Context<T,E> for core::result::Result<T,E>>::context",
            "   2: cfgtool::parse",
            "  12: app::errors::Error::new",
        ] {
            assert_eq!(line_kind(line), LineKind::Plain, "{line}");
        }
        for line in [
            "   8: <&dyn core::ops::function::Fn<(), Output = i32> + core::marker::Sync as core::ops::function::FnOnce<()>>::call_once",
            "  19: __libc_start_call_main",
            "  21: _start",
            "             at ./csu/../csu/libc-start.c:360:3",
            "             at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/anyhow-1.0.105/src/context.rs:54:37",
        ] {
            assert_eq!(line_kind(line), LineKind::Noise, "{line}");
        }
        assert_eq!(line_kind("             at ./src/main.rs:7:59"), LineKind::Context);
        for line in [
            "    0: failed to read /etc/app.toml: permission denied",
            "    1: std::io::Error: No such file",
        ] {
            assert!(!is_rust_frame(line), "{line}");
        }
        assert_eq!(
            line_kind("    0: failed to read /etc/app.toml: permission denied"),
            LineKind::Failure
        );
    }

    #[test]
    fn a_lua_traceback_is_frames_under_its_error() {
        let cases = [
            (
                "lua5.4: cart.lua:3: attempt to perform arithmetic on a nil value (field 'qty')",
                LineKind::Failure,
            ),
            ("stack traceback:", LineKind::Context),
            ("\tcart.lua:3: in local 'total'", LineKind::Context),
            ("\tcart.lua:8: in main chunk", LineKind::Context),
            ("\tshop/init.lua:40: in function 'shop.load'", LineKind::Context),
            ("\tcart.lua:12: in function <cart.lua:10>", LineKind::Context),
            // A located message is still one.
            ("\tcart.lua:3: attempt to index a nil value", LineKind::Failure),
        ];
        for (line, kind) in cases {
            assert_eq!(line_kind(line), kind, "{line}");
        }
    }

    #[test]
    fn a_json_log_line_is_what_its_level_says() {
        let cases = [
            (
                r#"{"level":40,"time":1,"msg":"payment gateway slow"}"#,
                LineKind::Warning,
            ),
            (
                r#"{"level":50,"time":1,"msg":"order skipped"}"#,
                LineKind::Failure,
            ),
            (r#"{"level":60,"msg":"sync aborted"}"#, LineKind::Failure),
            (
                r#"{"time":"2024-05-01T10:00:00Z","level":"ERROR","msg":"db down"}"#,
                LineKind::Failure,
            ),
            (
                r#"{"levelname": "WARNING", "message": "disk at 91%"}"#,
                LineKind::Warning,
            ),
            (
                r#"{"severity":"CRITICAL","message":"queue lost"}"#,
                LineKind::Failure,
            ),
            // A warning whatever its words, as a `[warn]` tag makes one.
            (
                r#"{"level":"warn","msg":"retry failed, trying again"}"#,
                LineKind::Warning,
            ),
            (r#"{"level":30,"msg":"order synced"}"#, LineKind::Plain),
            (r#"{"level":"info","msg":"ok"}"#, LineKind::Plain),
            // Not an object: the words decide.
            (r#"  "level": "error","#, LineKind::Failure),
            (r#"level=warn msg=slow"#, LineKind::Warning),
        ];
        for (line, kind) in cases {
            assert_eq!(line_kind(line), kind, "{line}");
        }
    }

    /// TOOL-8: glog's, klog's, Abseil's and TensorFlow's records are
    /// what the letter of their level says, whatever their words.
    #[test]
    fn tool_8_a_glog_record_is_what_its_level_letter_says() {
        let cases = [
            (
                "W1205 08:47:33.702497 139736581053312 absl_job.py:8] shard 2: fetch failed (attempt 1/3)",
                LineKind::Warning,
            ),
            (
                "E1205 08:47:33.702597 139736581053312 absl_job.py:11] shard 3: no rows",
                LineKind::Failure,
            ),
            (
                "F1205 08:47:33.702643 9082 main.go:15] could not write the output",
                LineKind::Failure,
            ),
            (
                "E0000 00:00:1710411722.623456   12345 cuda_blas.cc:1418] Unable to register cuBLAS factory",
                LineKind::Failure,
            ),
            (
                "2024-03-14 10:22:01.523456: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register cuDNN factory",
                LineKind::Failure,
            ),
            (
                "2024-03-14 10:22:02.623456: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
                LineKind::Warning,
            ),
            (
                "2024-03-14 10:22:01.123456: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on: round-off errors may differ.",
                LineKind::Plain,
            ),
            (
                "I1205 08:47:33.702426 9082 leaderelection.go:250] attempting to acquire leader lease",
                LineKind::Plain,
            ),
            // No record: a place without the letter's timestamp.
            ("E2 a.go:3] failed", LineKind::Failure),
            ("Warning: W1205 a.go:3] slow", LineKind::Warning),
        ];
        for (line, kind) in cases {
            assert_eq!(line_kind(line), kind, "{line}");
        }
    }

    /// TOOL-8: a linter's finding by its rule code, with a colon, under
    /// the place it names (pydocstyle), and vulture's by its confidence;
    /// the place above is where, and a code's line is no finding. And
    /// pkg-config's package it cannot find.
    #[test]
    fn tool_8_findings_by_rule_code_and_confidence_are_failures() {
        let cases = [
            (
                "        D100: Missing docstring in public module",
                LineKind::Failure,
            ),
            (
                "        D401: First line should be in imperative mood (perhaps 'Find', not 'Finds')",
                LineKind::Failure,
            ),
            (
                "C0114: Missing module docstring (missing-module-docstring)",
                LineKind::Failure,
            ),
            (
                "shop/cart.py:1: unused import 'json' (90% confidence)",
                LineKind::Failure,
            ),
            (
                "shop/cart.py:18: unused method '_seperate' (60% confidence)",
                LineKind::Failure,
            ),
            ("shop/cart.py:1 at module level:", LineKind::Context),
            (
                "Package 'libfoo', required by 'virtual:world', not found",
                LineKind::Failure,
            ),
            ("No package 'libfoo' found", LineKind::Failure),
            ("shop/cart.py:1: import json", LineKind::Context),
            (
                "E1127 10:00:00.123456 12345 cart.go:44] lookup price: no rows",
                LineKind::Failure,
            ),
            (
                "I1127 10:00:00.123456 12345 cart.go:44] D100: served",
                LineKind::Plain,
            ),
        ];
        for (line, kind) in cases {
            assert_eq!(line_kind(line), kind, "{line}");
        }
    }

    /// TOOL-8: what the AWS CLI, kubectl, Compose and the GitHub CLI
    /// print when they cannot do what was asked, and codespell's findings,
    /// in their words; Docker's note before it pulls is none.
    #[test]
    fn tool_8_cloud_clis_say_what_they_could_not_do() {
        let cases = [
            (
                r#"Unable to locate credentials. You can configure credentials by running "aws configure"."#,
                LineKind::Failure,
            ),
            (
                "Unable to connect to the server: x509: certificate signed by unknown authority",
                LineKind::Failure,
            ),
            // Poetry's, over the build backend's failure.
            ("Unable to determine package info for path: /app/vendor/shop", LineKind::Failure),
            ("Unable to find a matching version for react@99", LineKind::Failure),
            (
                "The connection to the server localhost:8080 was refused - did you specify the right host or port?",
                LineKind::Failure,
            ),
            (
                r#"The Deployment "web" is invalid: spec.template.spec.containers[0].ports[0].protocol: Unsupported value: "HTTP""#,
                LineKind::Failure,
            ),
            (
                r#"service "migrate" didn't complete successfully: exit 1"#,
                LineKind::Failure,
            ),
            (
                "HTTP 404: Not Found (https://api.github.com/repos/acme/app/pulls/12)",
                LineKind::Failure,
            ),
            // `go run`'s program that a signal ended.
            ("signal: killed", LineKind::Failure),
            // codespell's misspellings fail its run.
            ("README.md:3: teh ==> the", LineKind::Failure),
            ("src/cart.py:12: recieve ==> receive", LineKind::Failure),
            ("Unable to find image 'nginx:latest' locally", LineKind::Plain),
            ("The connection to the server was slow", LineKind::Plain),
        ];
        for (line, kind) in cases {
            assert_eq!(line_kind(line), kind, "{line}");
        }
    }

    /// TOOL-8: a number that a message goes on after is no count: libpq
    /// (`psql`, and every client built on it) names the port it could
    /// not reach before `failed:`.
    #[test]
    fn tool_8_a_port_that_failed_is_no_count() {
        let libpq = r#"psql: error: connection to server at "db.internal" (10.0.3.7), port 5432 failed: Connection refused"#;
        assert_eq!(line_kind(libpq), LineKind::Failure);
        assert!(!is_verdict(libpq));
        for count in [
            "== 3 failed, 2 passed in 0.12s ==",
            "Tests: 1 failed, 5 total",
            "(3 failed)",
        ] {
            assert!(is_verdict(count), "{count}");
        }
    }

    #[test]
    fn tool_8_a_code_frame_s_primary_label() {
        assert!(is_caret_label(
            "  |            ---   ^^^ expected `u32`, found `&str`"
        ));
        assert!(is_caret_label("  |     ^^ not found in this scope"));
        assert!(is_caret_label("12 | |_____^ expected `()`, found `i32`"));
        assert!(is_caret_label("   │     ^^^ unused variable"));
        assert!(!is_caret_label("  |            --- expected due to this"));
        assert!(!is_caret_label("      |                   ~~~~~~^~"));
        assert!(!is_caret_label("    ^^^^^^^^^^^^^^^"));
        assert!(!is_caret_label("  |            |"));
        // Only an error's heading brings its labels along.
        assert!(is_compiler_heading("error[E0308]: mismatched types"));
        // ty's and ruff's rule names.
        assert!(is_compiler_heading(
            "error[invalid-argument-type]: Argument is incorrect"
        ));
        assert!(is_compiler_heading(
            "error: cannot find macro `foo` in this scope"
        ));
        assert!(!is_compiler_heading("warning: unused variable: `x`"));
        assert!(!is_compiler_heading("  = note: expected type `u32`"));
        assert!(!is_compiler_heading("src/a.c:3:5: error: expected ';'"));
    }

    fn kinds(text: &str) -> Vec<(LineKind, &str)> {
        text.lines().map(|l| (line_kind(l), l)).collect()
    }

    /// TOOL-8: the exit status agents' shell tools append, and lines that
    /// say more than one.
    #[test]
    fn tool_8_an_appended_exit_status_is_told_apart() {
        for status in [
            "[The command completed with exit code 1.]",
            "Exit code: 2",
            "exit status 1",
            "exit 1",
            "Process exited with code 101",
            "<returncode>1</returncode>",
        ] {
            assert!(is_exit_status(status), "{status}");
        }
        for other in [
            "make: *** [Makefile:3: all] Error 2",
            "error: process didn't exit successfully: `target/debug/app` (exit status: 101) while running the release build",
            "exit code",
        ] {
            assert!(!is_exit_status(other), "{other}");
        }
    }

    fn failures(text: &str) -> Vec<&str> {
        kinds(text)
            .into_iter()
            .filter(|(k, _)| *k == LineKind::Failure)
            .map(|(_, l)| l)
            .collect()
    }

    #[test]
    fn tool_8_vitest_s_code_frame_and_boilerplate() {
        // Vitest draws its frame's bar right after the line number: code,
        // though it throws; a line that draws no bar is what it says.
        for frame in [
            "     15|   it(\"leaks\", () => { Promise.reject(new Error(\"refund ser…",
            "     16|",
        ] {
            assert_eq!(line_kind(frame), LineKind::Context, "{frame}");
        }
        assert_eq!(line_kind("15|throw new Error(\"x\")"), LineKind::Failure);
        for boilerplate in [
            "This error originated in \"test/cart.test.js\" test file. It doesn't mean the error was thrown inside the file itself, but while it was running.",
            "This might cause false positive tests. Resolve unhandled errors to make sure your tests are not affected.",
        ] {
            assert_eq!(line_kind(boilerplate), LineKind::Noise, "{boilerplate}");
        }
        assert_eq!(
            line_kind("Vitest caught 2 unhandled errors during the test run."),
            LineKind::Failure
        );
    }

    #[test]
    fn powershell_s_places_and_fields_are_context_and_http_headers_plain() {
        for context in [
            "At line:1 char:1",
            "At C:\\src\\deploy.ps1:14 char:5",
            "    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand",
            "   at <ScriptBlock>, C:\\tests\\Cart.Tests.ps1:27",
            // A frame's line in the gutter, not a sentence.
            "     |  ~~~~~~~~~~~~~~~",
        ] {
            assert_eq!(line_kind(context), LineKind::Context, "{context}");
        }
        for plain in [
            "Set-Cookie: session=abc; Path=/",
            "Content-Type: application/json",
            "Accept-Ranges: bytes",
        ] {
            assert_eq!(line_kind(plain), LineKind::Plain, "{plain}");
        }
        assert_eq!(line_kind("  [+] adds an item 12ms (10ms|2ms)"), LineKind::Noise);
        assert_eq!(
            line_kind("Tests Passed: 46, Failed: 0, Skipped: 0, Inconclusive: 0, NotRun: 0"),
            LineKind::Summary
        );
    }

    #[test]
    fn the_line_a_code_frame_points_at_is_told_apart() {
        for pointed in [
            "> 14 |   expect(total).toBe(90)",
            "  > 3 │ let total = 0;",
            "   8 | >>> RUN npm ci",
        ] {
            assert!(is_pointed_code(pointed), "{pointed}");
            assert_eq!(line_kind(pointed), LineKind::Context, "{pointed}");
        }
        for around in [
            "  13 |   await page.click();",
            "   7 |     COPY . .",
            "   9 | >>>",
        ] {
            assert!(!is_pointed_code(around), "{around}");
        }
    }

    #[test]
    fn words_in_file_names_are_not_diagnostics() {
        for line in [
            "angle_utilities.py  errors.py\t\t  solar_system.py",
            "alias.cfg  deprecated.cfg  empty.cfg  not_empty.cfg",
            "/work/app/src/errors/mod.rs",
            "tests/test_failures.py tests/test_warnings.py",
        ] {
            assert_eq!(line_kind(line), LineKind::Plain, "{line}");
        }
        // A failure beside a path is still one.
        assert_eq!(
            line_kind("src/errors/mod.rs:3:5: error[E0425]: cannot find value"),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("tests/test_errors.py::test_parse FAILED"),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("django.core.exceptions.ImproperlyConfigured: Requested setting DEBUG"),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("warning: unused import in src/lib.rs"),
            LineKind::Warning
        );
    }

    #[test]
    fn flags_of_an_echoed_command_are_not_failures() {
        // `just`, `make` and CI logs echo the command they run.
        for line in [
            "cargo llvm-cov --fail-under-lines 100",
            "cargo test --workspace --no-fail-fast",
            "mypy --show-error-codes src",
        ] {
            assert_ne!(line_kind(line), LineKind::Failure, "{line}");
        }
        for line in [
            "error: could not compile `app`",
            "[error] build failed",
            "Build failed (exit 1)",
            "2 errors found",
            "ERROR: No matching distribution found for foo",
        ] {
            assert_eq!(line_kind(line), LineKind::Failure, "{line}");
        }
    }

    #[test]
    fn code_and_diffs_are_not_failures() {
        for line in [
            "    raise ValueError('bad input')",
            "+    t.Errorf(\"wrong\")",
            "\tif err != nil {",
            "def test_error_handling():",
            "-        throw new Error('x')",
            // A numbered listing (`cat -n`, `nl`) is not PHPStan's table,
            // nor a comment that says what code can't do.
            "  1077\t        Does not modify timezone information on (de)serialization.",
            "1552:         # The transform can't be applied yet, as joins must be trimmed later.",
            // A file's name before a match is no package's task prefix.
            "pydicom/encoders/base.py:ENCODING_PROFILES: Dict[UID, List[ProfileType]] = {",
            "HTTP/1.1 200 OK",
            // `npm ls`: an optional dependency left out is as asked.
            "│ ├── UNMET OPTIONAL DEPENDENCY canvas@^2.5.0",
            "│ │ │   ├── es-errors@1.3.0 deduped",
            "127.0.0.1 - - [04/Dec/2026:10:22:36 +0000] \"GET /health HTTP/1.1\" 200 2 \"-\" \"curl/7.88.1\"",
            // A klog record at the info level is no ruff finding.
            "I1127 10:00:00.123456   12345 server.go:42] Starting server on :8080",
        ] {
            assert_ne!(line_kind(line), LineKind::Failure, "{line}");
        }
    }

    /// TOOL-8: a run's counts are summaries, failing or not, in each
    /// runner's words; what a runner is about to run and a Haskell call
    /// stack's call site are not.
    #[test]
    fn tool_8_counts_in_each_runner_s_words() {
        for line in [
            "33 examples, 0 failures",
            "Ran 4 tests",
            "[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0",
            " 25 pass",
            "# pass 12",
            "8 files would be reformatted, 25 files would be left unchanged.",
        ] {
            assert!(is_count(line), "{line}");
            assert_eq!(line_kind(line), LineKind::Summary, "{line}");
        }
        for line in [
            "28 examples, 4 failures",
            "[ERROR] Tests run: 4, Failures: 1, Errors: 1, Skipped: 0",
            "Tests:       6 failed, 6 passed, 12 total",
        ] {
            assert!(is_count(line), "{line}");
            assert_eq!(line_kind(line), LineKind::Failure, "{line}");
        }
        for line in [
            "running 2 tests",
            "collected 12 items",
            "A total of 1 test files matched the specified pattern.",
            "1 test(s) failed!",
            "psql: error: connection to server on socket, port 5432 failed: Connection refused",
            "Error: fetch 2",
            "exit code 1",
        ] {
            assert!(!is_count(line), "{line}");
        }
        // Cargo's closing word over the targets that failed is a verdict.
        assert!(is_verdict("error: 2 targets failed:"));
        assert!(is_verdict("error: 1 target failed: `--test it`"));
        assert!(!is_verdict("error: could not find `Cargo.toml` in `/src`"));
        assert_eq!(
            line_kind("         error, called at Cart.hs:16:15 in main:Cart)"),
            LineKind::Context
        );
        assert_eq!(
            line_kind("  undefined, called at src/Lib.hs:5:7 in app-0.1.0-inplace:Lib"),
            LineKind::Context
        );
    }

    #[test]
    fn zero_failures_is_a_summary() {
        assert_eq!(line_kind("===== 12 passed in 0.34s ====="), LineKind::Summary);
        assert_eq!(
            line_kind("test result: ok. 3 passed; 0 failed; 0 ignored"),
            LineKind::Summary
        );
        assert_eq!(
            line_kind("Found 0 errors. Watching for file changes."),
            LineKind::Summary
        );
        assert_eq!(
            line_kind("===== 1 failed, 11 passed in 0.34s ====="),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("test result: FAILED. 2 passed; 1 failed"),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("Tests run: 5, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.05 s"),
            LineKind::Summary
        );
        assert_eq!(line_kind("3 examples, 0 failures"), LineKind::Summary);
        // node:test's spec reporter's counts: none failed, or some.
        assert_eq!(line_kind("ℹ fail 0"), LineKind::Summary);
        assert_eq!(line_kind("ℹ tests 25"), LineKind::Summary);
        assert_eq!(line_kind("ℹ fail 4"), LineKind::Failure);
        // node-tap's counts, with no failure or none counted.
        assert_eq!(line_kind("# { total: 44, pass: 44 }"), LineKind::Summary);
        assert_eq!(line_kind("# { total: 3, pass: 3, fail: 0 }"), LineKind::Summary);
        // Ansible's recap, Django's and golangci-lint's counts of issues.
        assert_eq!(
            line_kind("web1 : ok=2    changed=0    unreachable=0    failed=0    skipped=0"),
            LineKind::Summary
        );
        assert_eq!(
            line_kind("web1 : ok=2    changed=0    unreachable=0    failed=1    skipped=0"),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("System check identified 5 issues (0 silenced)."),
            LineKind::Summary
        );
    }

    #[test]
    fn colours_do_not_hide_failures() {
        assert_eq!(
            line_kind("\x1b[31;1mSystemCheckError: System check identified some issues:\x1b[0m"),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("\x1b[32m✓\x1b[39m src/a.test.ts (3 tests) 4ms"),
            LineKind::Noise
        );
    }

    #[test]
    fn failures_of_each_toolchain() {
        // Each from the tool's documentation or a public issue, shortened.
        let lines = [
            // TAP's failing test point, though its title says nothing.
            "    not ok 2 - when flag specified then value is true",
            // Pydantic's errors, each under its field.
            "  Field required [type=missing, input_value={'id': 'x31', 'items': [{...}]}, input_type=dict]",
            "  field required (type=value_error.missing)",
            // TeX's errors under `-file-line-error` (in its own words,
            // they are read in their place); BibTeX's, which end on where
            // it read them.
            "./main.tex:17: Undefined control sequence.",
            "sections/intro.tex:3: Missing $ inserted.",
            "I was expecting a `,' or a `}'---line 9 of file refs.bib",
            "I found no database files---while reading file main.aux",
            // A resolver's conclusion, as uv and pip word it.
            "         And because your project depends on numpy<1.20 and pandas>=2.2, we can conclude that your project's requirements are unsatisfiable.",
            // nginx's records over the error level.
            "nginx: [emerg] unknown directive \"servr\" in /etc/nginx/conf.d/shop.conf:3",
            "2026/12/06 01:00:00 [alert] 12#12: worker process 13 exited on signal 9",
            // buf's findings and errors, the message glued to the place.
            "proto/shop/cart.proto:3:1:Package name \"shop\" should be suffixed with a correctly formed version, such as \"shop.v1\".",
            "proto/shop/cart.proto:11:1:unexpected `}` after definition",
            // Perl::Critic's violations; PHP_CodeSniffer's rows at the
            // error level.
            "lib/Shop/Cart.pm: Bareword file handle opened at line 5, column 5.  See pages 202,204 of PBP.  (Severity: 5)",
            "Code before strictures are enabled at line 2, column 1.  See page 429 of PBP.  (Severity: 5)",
            "  7 | ERROR | [x] Expected 1 space(s) after IF keyword; 0 found",
            " 11 | ERROR | [ ] Visibility must be declared on method \"total\"",
            // markdownlint, Apple's linker.
            "README.md:12:81 MD013/line-length Line length [Expected: 80; Actual: 95]",
            "docs/guide.md:3 MD022/blanks-around-headings Headings should be surrounded by blank lines",
            "Undefined symbols for architecture arm64:",
            // PowerShell in both views, cmd.exe, Pester.
            "Get-Content : Cannot find path 'C:\\a.txt' because it does not exist.",
            "Import-Module: The specified module 'Shop' was not loaded because no valid module file was found in any module directory.",
            "Set-Location: Cannot find path 'C:\\nosuch' because it does not exist.",
            "InvalidOperation: You cannot call a method on a null-valued expression.",
            "     | You cannot call a method on a null-valued expression.",
            "The term 'nuget' is not recognized as a name of a cmdlet, function, script file, or executable program.",
            "'pytest' is not recognized as an internal or external command,",
            "  [-] applies a discount 15ms (13ms|2ms)",
            "   Expected 90, but got 100.",
            // apt, a job a signal ended, a core dump, Rust's stack overflow.
            "E: Unable to locate package libfoo-dev",
            "zsh: killed     node server.js",
            "timeout: the monitored command dumped core",
            "thread 'main' has overflowed its stack",
            // Jasmine's failed expectation.
            "    Expected 3 to equal 4.",
            "    Expected spy save to have been called.",
            // rustc, cargo, clippy
            "error[E0425]: cannot find value `x` in this scope",
            "error: could not compile `app` (bin \"app\") due to 1 previous error",
            "thread 'tests::parses' panicked at src/lib.rs:10:9:",
            "test tests::parses ... FAILED",
            // go
            "--- FAIL: TestParse (0.00s)",
            "FAIL\tgithub.com/acme/app/parser\t0.012s",
            "./main.go:12:2: declared and not used: x",
            "./main.go:4:2: \"strings\" imported and not used",
            "imported and not used: \"os\"",
            "./main.go:5:2: \"encoding/json\" imported as js and not used",
            "panic: runtime error: index out of range [3] with length 3",
            // tsc, eslint
            "src/index.ts(4,7): error TS2322: Type 'number' is not assignable to type 'string'.",
            "src/index.ts:4:7 - error TS2322: Type 'number' is not assignable to type 'string'.",
            "  12:5  error  'foo' is assigned a value but never used  no-unused-vars",
            // jest, vitest
            "FAIL src/sum.test.js",
            "  ● sum › adds 1 + 2 to equal 3",
            " × src/sum.test.ts > sum > adds (3 ms)",
            "Tests:       1 failed, 3 passed, 4 total",
            // pytest, mypy, ruff
            "FAILED tests/test_sum.py::test_add - assert 3 == 4",
            "E       assert 3 == 4",
            "src/app.py:3: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]",
            "app.py:1:8: F401 [*] `os` imported but unused",
            // javac, maven, gradle
            "Main.java:5: error: cannot find symbol",
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile",
            "> Task :app:compileJava FAILED",
            "BUILD FAILED in 2s",
            // make, gcc, clang, ld
            "main.c:3:5: error: implicit declaration of function 'foo'",
            "make: *** [Makefile:4: all] Error 1",
            "/usr/bin/ld: main.o: in function `main': undefined reference to `foo'",
            // npm, pnpm, yarn
            "npm ERR! code ELIFECYCLE",
            "npm error Missing script: \"tset\"",
            " ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  app@1.0.0 test: `vitest run`",
            "error Command failed with exit code 1.",
            // stack traces
            "Traceback (most recent call last):",
            "ZeroDivisionError: division by zero",
            "Exception in thread \"main\" java.lang.NullPointerException",
            "TypeError: Cannot read properties of undefined (reading 'map')",
            // Maven Surefire, git, OOM, C#, Swift, RSpec, PHPUnit, Terraform, CMake, webpack
            "Tests run: 12, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.3 s <<< FAILURE!",
            "CONFLICT (content): Merge conflict in src/app.py",
            "fatal: not a git repository (or any of the parent directories): .git",
            "runtime: out of memory: cannot allocate 4194304-byte block",
            "Program.cs(12,17): error CS0103: The name 'foo' does not exist in the current context",
            "Sources/App/main.swift:3:5: error: cannot find 'fo' in scope",
            "Failure/Error: expect(sum(1, 2)).to eq(4)",
            "1 example, 1 failure",
            "FAILURES!",
            "Error: Unsupported argument",
            "CMake Error at CMakeLists.txt:3 (find_package):",
            "ERROR in ./src/index.js 3:0-25",
            "Module not found: Error: Can't resolve './util' in '/work/app/src'",
            // shells
            "bash: pytset: command not found",
            "Segmentation fault (core dumped)",
            "Process exited with code 2",
            "patch: **** malformed patch at line 5: @@ -1 +1 @@",
            "/usr/bin/python3: No module named pytest",
            "go: no such tool \"vet2\"",
            "No tests found, exiting with code 1",
            // TAP producers (node:test, tape, prove, bats): a failing test
            // point, nested or not, and the closing count of failures.
            "not ok 42 - discount TENOFF never below zero",
            "    not ok 1 - rejects words",
            "# fail 2",
            // node-tap's closing counts when a test failed.
            "# { total: 44, pass: 40, fail: 4 }",
            // trybuild's compile-fail test whose compiler output changed.
            "test tests/ui/wrong_type.rs ... mismatch",
            // Test::More's diagnostics and TAP::Harness's verdict (prove).
            "#   Failed test 'total applies the discount'",
            "# Looks like you failed 1 test of 6.",
            "Dubious, test returned 1 (wstat 256, 0x100)",
            // The JUnit Platform console's failed test in its tree.
            "│     ├─ appliesTen() ✘ TEN takes a tenth off ==> expected: <91> but was: <90>",
            // behave's heading over the scenarios that raised; Robot
            // Framework's failed test.
            "Errored scenarios:",
            "Discount TEN                                                          | FAIL |",
            // Biome, oxlint and Next.js marks; ShellCheck at every level;
            // PHPStan's rows; RuboCop's count; Django's checks.
            "  ✖ This let declares a variable that is only assigned once.",
            "  × eslint(no-debugger): `debugger` statement is not allowed",
            // miette's ASCII theme, as oxlint draws it without a terminal.
            "  x eslint(eqeqeq): Expected === and instead saw ==",
            "  x Expected a semicolon or an implicit semicolon after a statement, but found none",
            " ⨯ ./src/app/page.tsx:3:1",
            "   ^------^ SC2086 (info): Double quote to prevent globbing and word splitting.",
            "  27     Call to an undefined method Shop\\Item::cost().",
            "64 files inspected, 3 offenses detected, 1 offense autocorrectable",
            "shop.Order: (models.E015) 'ordering' refers to the nonexistent field 'created'.",
            // git refusing a push, go vet, Ansible, Lua, Perl.
            " ! [rejected]        main -> main (fetch first)",
            "vet: ./main.go:9:2: unreachable code",
            "web1 : ok=2    changed=0    unreachable=1    failed=0    skipped=0",
            "spec/cart_spec.lua:16: attempt to perform arithmetic on a nil value (field 'rate')",
            "Can't locate object method \"price\" via package \"Shop::Item\" at lib/Shop/Cart.pm line 51.",
            // Perl's fatal errors worded like its warnings (perldiag's F).
            "Undefined subroutine &main::load_rows called at script/import.pl line 12.",
            "Not a HASH reference at lib/Shop/Cart.pm line 30.",
            "Global symbol \"$summ\" requires explicit package name (did you forget to declare \"my $summ\"?) at bad.pl line 17.",
            "Missing right curly or square bracket at lib/Shop/Cart.pm line 88, at end of line",
            // Redis's error replies as redis-cli prints them to a pipe; the
            // Docker client without its daemon.
            "ERR unknown command 'HSETX', with args beginning with: 'a' 'b' 'c' ",
            "WRONGTYPE Operation against a key holding the wrong kind of value",
            "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
            // pytest's place of a failed assertion under `--tb=line`.
            "/home/dev/shop/tests/test_cart.py:11: assert 18.0 == 17",
            "tests/test_cart.py:14: assert 0 == 1",
            // npm refusing a lock file out of sync, or a script it lacks.
            "npm error Missing: is-odd@3.0.1 from lock file",
            "npm error Invalid: lock file's is-number@6.0.0 does not satisfy is-number@7.0.0",
            "npm error Missing script: \"build\"",
            // A JSON document Python cannot decode, systemd's absence,
            // SQLite's shell.
            "Expecting ',' delimiter: line 1 column 9 (char 8)",
            "System has not been booted with systemd as init system (PID 1). Can't operate.",
            "Parse error near line 5: near \"SELEC\": syntax error",
            // Stylelint, Valgrind, the sanitizers, bandit, Kubernetes.
            "  3:5  ✖  Unexpected unknown property \"colr\"   property-no-unknown",
            "==4242== Invalid read of size 4",
            "==4242== 40 bytes in 1 blocks are definitely lost in loss record 1 of 1",
            "SUMMARY: AddressSanitizer: heap-buffer-overflow /home/dev/cart.c:14 in main",
            "WARNING: ThreadSanitizer: data race (pid=20251)",
            "WARNING: DATA RACE",
            "WARNING: DATA RACE",
            ">> Issue: [B101:assert_used] Use of assert detected.",
            // A klog record at the error level.
            "E1127 10:00:00.123456   12345 cart.go:44] lookup price: no rows",
            "F1127 10:00:00.123456   12345 main.go:20] cannot listen on :8080",
            // A critical log record, Elm's headed problem.
            "2026-11-27 10:00:00,123 - shop.db - CRITICAL - Database unavailable",
            "-- TYPE MISMATCH ------------------------------------------------------ src/Main.elm",
            // C++'s uncaught exception.
            "terminate called after throwing an instance of 'std::out_of_range'",
            "  what():  vector::_M_range_check: __n (which is 5) >= this->size() (which is 3)",
            // The shell, the system, sed, grep, HTTP, Python, pip.
            "./deploy.sh: line 3: APP_DIR: unbound variable",
            "./deploy.sh: line 12: [: too many arguments",
            "ssh: connect to host 10.0.0.5 port 22: Connection refused",
            "chmod: changing permissions of '/etc/hosts': Operation not permitted",
            "cat: src: Is a directory",
            "[Errno 21] Is a directory: '/tmp/src/project'",
            // The same messages as Go words them, after what failed.
            "2026/12/04 23:45:26 listen tcp :8080: bind: address already in use",
            "dial tcp 127.0.0.1:5432: connect: connection refused",
            "go: github.com/google/uuid: Get \"https://proxy.golang.org/github.com/google/uuid/@v/list\": dial tcp: lookup proxy.golang.org on 10.255.255.53:53: no such host",
            "npm error request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org",
            "read tcp 10.0.0.1:5000->10.0.0.2:80: i/o timeout",
            "read /home/dev/shop/data: is a directory",
            "mkdir /home/dev/shop/data: file exists",
            "write |1: broken pipe",
            "Get \"http://127.0.0.1:9000/stock\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
            // The MySQL client's error, alone and after the rule `-v`
            // prints, its stdout unsynchronised with its stderr.
            "ERROR 1146 (42S02) at line 12: Table 'shop.customers' doesn't exist",
            "--------------ERROR 1062 (23000) at line 5: Duplicate entry '1' for key 'PRIMARY'",
            // Tomcat's record at java.util.logging's error level.
            "05-Dec-2026 06:09:19.123 SEVERE [main] org.apache.catalina.core.StandardContext.startInternal One or more listeners failed to start.",
            // curl's numbered errors, whatever their words.
            "curl: (52) Empty reply from server",
            "curl: (22) The requested URL returned error: 500",
            "curl: (6) Could not resolve host: api.internal",
            "no such option: --no-find-links",
            "sed: -e expression #1, char 5: unterminated `s' command",
            "grep: Unmatched ( or \\(",
            "HTTP/2 404 ",
            "HTTP/1.1 503 Service Unavailable",
            // An access log's record of a request that failed on the
            // server's side (gunicorn, nginx, Apache).
            "127.0.0.1 - - [04/Dec/2026:10:22:37 +0000] \"POST /orders HTTP/1.1\" 500 265 \"-\" \"curl/7.88.1\"",
            // Next.js's and morgan's development logs of a request that
            // failed on the server's side; a watcher's crashed app; webpack's
            // heading over a broken build.
            " GET /api/orders 500 in 23ms",
            "GET /orders 500 12.345 ms - 21",
            "[nodemon] app crashed - waiting for file changes before starting...",
            "Compiled with problems:",
            "10.0.0.2 - - [04/Dec/2026:10:22:37 +0000] \"GET / HTTP/2.0\" 502 157",
            "Terminated",
            // node-gyp's verdicts, under npm's prefix.
            "npm error gyp ERR! build error ",
            "npm error gyp ERR! stack Error: `make` failed with exit code: 2",
            "npm error gyp ERR! not ok",
            // `npm ls`: a package outside the range asked for, one missing.
            "└─┬ react@17.0.2 invalid: \"^18.3.1\" from the root project",
            "│ ├── react@17.0.2 deduped invalid: \"^18.3.1\" from node_modules/react-dom",
            "├── UNMET DEPENDENCY left-pad@^1.3.0",
            "npm error missing: left-pad@^1.3.0, required by app@1.0.0",
            "KeyboardInterrupt",
            "SystemExit: 2",
            "foo 1.0 has requirement bar>=2, but you have bar 1.0.",
            // Under the name of the process that printed them: Docker
            // Compose's services, Turborepo's tasks.
            "api-1  | sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed",
            "@shop/ui:test:  FAIL  src/button.test.tsx > renders",
            "web-5d9c7b-x2k   0/1     CrashLoopBackOff   5 (30s ago)   3m",
            // Closing lines: Docker's legacy builder, GNU time, R, black,
            // Node's missing module.
            "The command '/bin/sh -c npm ci' returned a non-zero code: 1",
            "Command exited with non-zero status 1",
            "Execution halted",
            "Oh no! 💥 💔 💥",
            "Require stack:",
            // A coverage threshold not met (Jest), Turborepo's failed task
            // in its own words, Nix's builder and the log it repeats,
            // Ansible's failed task, a `go test -json` event of a failure.
            r#"Jest: "global" coverage threshold for lines (80%) not met: 71.8%"#,
            "@acme/web#build: command (/repo/apps/web) /usr/local/bin/pnpm run build exited (1)",
            "tool> src/main.c:14:5: error: implicit declaration of function 'parse_args'",
            "       > make: *** [Makefile:21: build/main.o] Error 1",
            r#"fatal: [web02]: FAILED! => {"changed": false, "msg": "'db_password' is undefined"}"#,
            r#"{"Action":"output","Package":"shop/cart","Test":"TestTotal","Output":"--- FAIL: TestTotal (0.00s)\n"}"#,
            // SQLFluff's violation; lines under the time they were logged
            // at, and the job and step of a GitHub Actions log.
            "L:   3 | P:  10 | LT01 | Expected only single space before 'AS' keyword.",
            "L:   3 | P:  10 | L003 | Expected 1 indentations, found 0 [compared to line 02]",
            "L:   1 | P:  23 |  PRS | Line 1, Position 23: Found unparsable section: 'WHERE'.",
            "2024-05-01T10:00:01.123456789Z KeyError: 'SPRING24'",
            "test (ubuntu-latest)\tRun tests\t2024-05-01T10:00:39.0077070Z E       assert 100 == 90",
            // Security findings: advisories by their ids (npm audit,
            // pip-audit), npm audit's severity, Semgrep's marked rule; and
            // ktlint's and markdownlint's `file:line:col Message`.
            "Prototype Pollution in lodash - https://github.com/advisories/GHSA-p6mc-m468-83gw",
            "jinja2  2.11.2  PYSEC-2021-66  2.11.3",
            "Severity: critical",
            "   ❯❯❱ python.lang.security.audit.eval-detected.eval-detected",
            "    ❯❱ python.lang.security.audit.subprocess-shell-true.subprocess-shell-true",
            "/home/u/app/src/main/kotlin/Cart.kt:27:45 Missing newline before \")\"",
        ];
        for line in lines {
            assert_eq!(line_kind(line), LineKind::Failure, "{line}");
        }
        // Not a rule's name after the place (Biome's heading), nor a word
        // that only looks like an id.
        for line in [
            "./src/cart.ts:3:7 lint/style/useConst  FIXABLE",
            "the CVE process is documented in SECURITY.md",
            "Severity: the level of a finding",
        ] {
            assert_ne!(line_kind(line), LineKind::Failure, "{line}");
        }
    }

    /// TOOL-8: Zig's test runner: a test's line that goes on with what
    /// std.testing printed (`expected 9, found 6`), a panic or its `FAIL
    /// (…)`, and the line over where two strings differ, are failures;
    /// a passing test's line is none; the standard library's and the
    /// runner's frames are noise, the project's a place.
    #[test]
    fn tool_8_zig_s_test_runner_and_its_frames() {
        for line in [
            "9/65 big.test.discount tier 3...expected 9, found 6",
            "3/6 cart.test.find of a missing sku...FAIL (NotFound)",
            "5/6 cart.test.average of one...thread 11718 panic: division by zero",
            "2/4 main.test.parse...index 2 incorrect. expected 1, found 0",
            "1/2 root.test.ratio...actual 0.5, not within absolute tolerance 0.01 of expected 0.25",
            "First difference occurs on line 1:",
            // `zig build test` indents what a test printed under its error.
            "       First difference occurs on line 1:",
            "FAIL (TestExpectedEqual)",
        ] {
            assert_eq!(line_kind(line), LineKind::Failure, "{line}");
        }
        for line in [
            "2/6 cart.test.find returns the item...OK",
            "4/6 cart.test.label...",
        ] {
            assert_ne!(line_kind(line), LineKind::Failure, "{line}");
        }
        for line in [
            "/opt/zig/lib/std/testing.zig:57:5: 0x125402f in expectEqual (cart.zig)",
            "/usr/lib/zig/compiler/test_runner.zig:295:25: 0x1202e61 in mainTerminal (test_runner.zig)",
            "???:?:?: 0x7f3e2c0 in ??? (???)",
            "       /opt/zig/lib/std/start.zig:248:5: 0x11fe7c1 in _start (std.zig)",
        ] {
            assert_eq!(line_kind(line), LineKind::Noise, "{line}");
        }
        let project =
            "/home/dev/zt/src/cart.zig:28:5: 0x1254076 in test.total adds quantity times price (cart.zig)";
        assert_eq!(line_kind(project), LineKind::Context);
    }

    /// TOOL-8: a finding's message over the bare place it was found at is
    /// a failure though no failure word says so (ansible-lint, Credo); a
    /// frame's function or code line over a place, or a message over a
    /// place that says something of its own, is not.
    #[test]
    fn tool_8_a_message_over_its_bare_place_is_a_failure() {
        // Each line as a slice of its text, as `str::lines` yields it.
        let first = |text: &'static str| text.lines().next().unwrap_or_default();
        let ansible = "name[missing]: All tasks should be named.\nplaybooks/web.yml:14 Task/Handler: shell\n";
        assert_eq!(line_kind_in(ansible, first(ansible)), LineKind::Failure);
        let credo = "┃ [W] ↗ There should be no calls to IO.inspect/1.\n┃       lib/shop/orders.ex:133:7 #(Shop.Orders.total)\n";
        assert_eq!(line_kind_in(credo, first(credo)), LineKind::Failure);
        assert_eq!(last_failure(credo), Some(first(credo)));
        let go = "main.main()\n\t/app/main.go:12 +0x1d\n";
        assert_eq!(line_kind_in(go, first(go)), LineKind::Plain);
        let deeper = "    assert the total of all the items == 90\nsrc/cart.py:3 in total\n";
        assert_eq!(line_kind_in(deeper, first(deeper)), LineKind::Plain);
        let located = "Found these in the sources today\nsrc/a.py:3: error: Incompatible types\n";
        assert_eq!(line_kind_in(located, first(located)), LineKind::Plain);
        let last = "All tasks should be named here.\n";
        assert_eq!(line_kind_in(last, first(last)), LineKind::Plain);
    }

    /// TOOL-8: a `go test -json` event is judged by what it reports, and
    /// a line that only looks like one by its words.
    #[test]
    fn go_test_json_events_are_what_they_report() {
        let event = |action: &str, output: &str| {
            format!(
                r#"{{"Time":"2024-05-01T10:00:00Z","Action":"{action}","Package":"shop/cart","Test":"TestTotal","Output":{}}}"#,
                serde_json::Value::from(output)
            )
        };
        assert_eq!(
            line_kind(&event("output", "    cart_test.go:42: Total() = 100, want 90\n")),
            LineKind::Failure
        );
        assert_eq!(
            line_kind(&event("output", "=== RUN   TestTotal\n")),
            LineKind::Noise
        );
        assert_eq!(line_kind(&event("fail", "")), LineKind::Failure);
        for action in ["start", "run", "pass", "skip", "pause", "cont"] {
            assert_eq!(line_kind(&event(action, "")), LineKind::Noise, "{action}");
        }
        assert!(is_verdict(&event("output", "FAIL\tshop/cart\t0.012s\n")));
        assert!(is_verdict(&event("fail", "")));
        assert!(!is_verdict(&event("output", "--- FAIL: TestTotal (0.00s)\n")));
        // No package: not test2json's; cut short: no event at all.
        assert_eq!(line_kind(r#"{"Action":"fail","msg":"ok"}"#), LineKind::Failure);
        assert_eq!(line_kind(r#"{"Action":"pass","msg":"ok"}"#), LineKind::Plain);
        assert_eq!(
            line_kind(r#"{"Action":"pass","Package":"shop/cart","#),
            LineKind::Plain
        );
        let long = event("pass", &"x".repeat(70 * 1024));
        assert_eq!(line_kind(&long), LineKind::Plain);
        // As long as an event is read, and no longer.
        let room = 64 * 1024 - event("pass", "").len();
        assert_eq!(line_kind(&event("pass", &"x".repeat(room))), LineKind::Noise);
        assert_eq!(line_kind(&event("pass", &"x".repeat(room + 1))), LineKind::Plain);
    }

    #[test]
    fn warnings_of_each_toolchain() {
        for line in [
            "  ⚠ eslint(no-unused-vars): Variable 'unused' is declared but never used.",
            "  ! eslint(no-unused-vars): Variable 'unusedVar4' is declared but never used.",
            "polls.Question: (models.W042) Auto-created primary key used when not defining a primary key type.",
            "Use of uninitialized value $rate in multiplication (*) at lib/Shop/Cart.pm line 42, <$fh> line 5.",
            "Argument \"n/a\" isn't numeric in addition (+) at /home/dev/lib/Shop/Cart.pm line 44.",
            "  9:1  ⚠  Expected empty line before rule     rule-empty-line-before",
            "W1127 10:00:00.123456   12345 cart.go:42] stock low",
            "W: GPG error: http://deb.example.org stable InRelease: The following signatures could not be verified",
            // An access log's record of a request refused as the client's
            // error.
            "127.0.0.1 - - [04/Dec/2026:10:22:37 +0000] \"GET /orders/7 HTTP/1.1\" 404 207 \"-\" \"curl/7.88.1\"",
            " GET /api/orders/7 404 in 12ms",
            "XPASS test_ok.py::test_x - known failure",
            "test_ok.py::test_x XPASS                                   [ 50%]",
            "POST /orders 422 3.1 ms - 40",
            // A checker's located finding below an error, whatever its
            // words: cppcheck's severities, gcc's.
            "src/a.c:4:41: warning: If memory allocation fails, then there is a possible null pointer dereference: p [nullPointerOutOfMemory]",
            "src/b.c:2:87: warning:inconclusive: If resource allocation fails, then there is a possible null pointer dereference: f [nullPointerOutOfResources]",
            "src/a.c:3:5: style: The function 'f' is never used. [unusedFunction]",
            "src/a.c:5:12: performance: Function parameter 'items' should be passed by const reference. [passedByValue]",
            "src/cart.cc:9:3: portability: Casting between unsigned char * and long * which have an incompatible binary data representation. [invalidPointerCast]",
            // PHP_CodeSniffer's row at the warning level.
            " 21 | WARNING | [ ] Line exceeds 120 characters; contains 195",
            // Nim's warning in Go's words, after its level.
            "/home/dev/app/src/cart.nim(8, 3) Warning: imported and not used: 'strutils' [UnusedImport]",
            // Git's whitespace errors (`git diff --check` exits 2 on them).
            "src/a.txt:1: trailing whitespace.",
            "README.md:12: space before tab in indent, indent with spaces.",
            "<stdin>:9: new blank line at EOF.",
        ] {
            assert_eq!(line_kind(line), LineKind::Warning, "{line}");
        }
        // A log record at the warning level, whatever its message says, in
        // the formats of Python's logging, loguru, structlog, slog and
        // logrus, zap, tracing, env_logger, Logback, Spring Boot, nginx,
        // PostgreSQL, uvicorn, gunicorn, Celery, Monolog, Elixir,
        // pino-pretty, zerolog and Docker's CLI.
        for line in [
            "2026-12-05 05:50:54,124 - app.db - WARNING - retrying after failed connection attempt 1",
            "WARNING:app.db:retrying after failed connection attempt 1",
            "2026-12-05 05:50:54.124 | WARNING  | app.main:run:13 - request failed, will retry",
            "2026-12-05 05:50:54 [warning  ] slow query failed to use index  table=orders",
            "time=2026-12-05T05:50:54.124Z level=WARN msg=\"retry after failure\" attempt=2",
            "time=\"2026-12-05T05:50:54Z\" level=warning msg=\"failed to refresh token, using cached\"",
            "2026-12-05T05:50:54.124Z\tWARN\tapp/main.go:13\tcache miss failed over to db",
            "2026-12-05T05:50:54.123457Z  WARN app::db: retrying failed query attempt=2",
            "[2026-12-05T05:50:54Z WARN  app::db] query failed, retrying",
            "05:50:54.124 [main] WARN  com.example.App - Failed to load optional plugin, continuing",
            "2026-12-05T05:50:54.124Z  WARN 1234 --- [app] [           main] o.s.b.a.w.s.WebMvcConfig : failed to resolve view",
            "2026/12/05 05:50:54 [warn] 1234#1234: *2 upstream server temporarily disabled; failed attempts 3",
            "2026-12-05 05:50:54.124 UTC [1234] WARNING:  could not flush dirty data: No space left on device",
            "WARNING:  Invalid HTTP request received; failed to parse",
            "[2026-12-05 05:50:54 +0000] [1234] [WARNING] Worker with pid 1240 was terminated due to signal 9",
            "[2026-12-05 05:50:54,123: WARNING/MainProcess] Task orders.sync failed, retry in 5s",
            "[2026-12-05T05:50:54.123456+00:00] app.WARNING: Payment webhook failed, queued for retry [] []",
            "05:50:54.123 [warning] Connection to Redis failed, reconnecting",
            "[05:50:54.123] WARN (1234): upstream request failed, serving stale cache",
            "5:50AM WRN cache refresh failed error=\"timeout\"",
            "WARNING: Retrying (Retry(total=1, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError(\"HTTPConnection(host='127.0.0.1', port=9): Failed to establish a new connection: [Errno 111] Connection refused\")': /simple/nosuchpkg/",
            "WARN[0000] /app/compose.yaml: the attribute `version` is obsolete, it will be ignored; failed to parse",
        ] {
            assert_eq!(line_kind(line), LineKind::Warning, "{line}");
        }
        // The same words at the error level, or a level that only the
        // message names, or a report headed `WARNING: ` as the race
        // detector heads one, are failures.
        for line in [
            "2026-12-05 05:50:54,123 - app.db - ERROR - could not connect, WARNING ignored",
            "2026-12-05T05:50:54.1234567Z FAILED tests/test_a.py::test_x - AssertionError: WARNING raised",
            "WARNING: ThreadSanitizer: data race (pid=20251)",
            "2026-12-05T05:50:54.123Z ERROR 1234 --- [main] o.s.boot.SpringApplication : Application run failed",
        ] {
            assert_eq!(line_kind(line), LineKind::Failure, "{line}");
        }
        // An error after its place is a failure; an informational finding
        // says where, as a note does.
        assert_eq!(
            line_kind("src/b.c:3:38: error: Division by zero. [zerodiv]"),
            LineKind::Failure
        );
        for line in [
            "src/a.c:1:2: information: Include file: <stdlib.h> not found. Please note: Standard library headers do not need to be provided to get proper results. [missingIncludeSystem]",
            "nofile:0:0: information: Active checkers: 121/189 (use --checkers-report=<filename> to see details) [checkersReport]",
            "a.c:12:3: remark: loop not vectorized: could not determine number of loop iterations [-Rpass-missed=loop-vectorize]",
        ] {
            assert_eq!(line_kind(line), LineKind::Context, "{line}");
        }
        // Words that merely name whitespace are no such error.
        assert_eq!(
            line_kind("Removed trailing whitespace from 3 files."),
            LineKind::Plain
        );
        // A check `R CMD check` notes.
        assert_eq!(
            line_kind("* checking R code for possible problems ... NOTE"),
            LineKind::Warning
        );
        // Test::More's place of a failure is where, not a warning.
        assert_eq!(line_kind("#   at t/01-cart.t line 21."), LineKind::Context);
    }

    /// miette's ASCII marks (`  x `, `  ! `) stand before a rule's code or
    /// a sentence; code that names a variable `x` (a listing, a REPL) is
    /// none of them.
    #[test]
    fn tool_8_miette_s_ascii_marks_are_not_code() {
        for line in [
            "  x = total(items)",
            "  x += 1",
            "  x.push(3)",
            "  ! ready",
            "    x eslint(eqeqeq): indented deeper",
        ] {
            assert_eq!(line_kind(line), LineKind::Plain, "{line}");
        }
        assert_eq!(
            line_kind("  x eslint(eqeqeq): Expected === and instead saw =="),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("  ! eslint(no-unused-vars): Variable 'b' is declared but never used."),
            LineKind::Warning
        );
    }

    #[test]
    fn noise_of_each_toolchain() {
        let lines = [
            // Jest 24's heading over what tests logged.
            "  ● Console",
            // A TAP producer's passing test point, whatever its title says.
            "    ok 5 - when program variadic argument not last then error",
            "ok 12 - fails on a missing file # SKIP no fixtures",
            // Pydantic's link under each error.
            "    For further information visit https://errors.pydantic.dev/2.14/v/missing",
            // clang-tidy's closing boilerplate.
            "Suppressed 3275 warnings (3275 in non-user code).",
            "Use -header-filter=.* to display errors from all non-system headers. Use -system-headers to display errors from system headers as well.",
            // The development server's banner of Django and Flask.
            "WARNING: This is a development server. Do not use it in a production setting. Use a production WSGI or ASGI server instead.",
            "\x1b[31m\x1b[1mWARNING: This is a development server. Do not use it in a production deployment. Use a production WSGI server instead.\x1b[0m",
            "For more information on production servers see: https://docs.djangoproject.com/en/5.2/howto/deployment/",
            // node-gyp's steps and environment, under npm's prefix too.
            "npm error gyp info spawn args '-Dvisibility=default',",
            "gyp info it worked if it ends with ok",
            "npm error gyp ERR! node -v v20.20.2",
            "npm error gyp ERR! $npm_package_version 1.0.0",
            "npm error make: Entering directory '/app/native/build'",
            "  CXX(target) Release/obj.target/sum/src/sum.o",
            // A frame of code SQLAlchemy generated at run time.
            "  File \"<sqlalchemy generated _go() wrapper for sqlalchemy.orm.session.SessionTransaction.commit>\", line 2, in commit",
            "   Compiling serde v1.0.210",
            "tests/test_a.py::test_one PASSED                                   [ 50%]",
            // Tests expected to fail that did, and skipped ones, whatever
            // their reasons say.
            "test_ok.py::test_known XFAIL (known failure)                             [100%]",
            "XFAIL test_ok.py::test_known - known failure",
            "SKIPPED [1] tests/test_net.py:5: connection failed, no network",
            "tests/test_net.py::test_fetch SKIPPED (could not import 'requests': No module named 'requests')",
            "test_x (m.T.test_x) ... expected failure",
            "test_y (m.T.test_y) ... skipped 'error handling not on windows'",
            "  ↓ test/cart.test.js > skips the failing path",
            // pytest's progress, a failed test's `F` among the others.
            "........................................................................ [ 20%]",
            ".......................................F..........s........x..... [ 13%]",
            "test tests::parses ... ok",
            "--- PASS: TestParse (0.00s)",
            // A subtest that passed, under its parent.
            "    --- PASS: TestGet/present (0.00s)",
            "=== RUN   TestParse",
            "ok  \tgithub.com/acme/app\t0.004s",
            " ✓ src/sum.test.ts (1 test) 2ms",
            "PASS src/sum.test.js",
            "Downloading numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl (18.2 MB)",
            "   ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 18.2/18.2 MB 45.1 MB/s eta 0:00:00",
            "go: downloading golang.org/x/text v0.14.0",
            "npm WARN deprecated inflight@1.0.6: This module is not supported",
            // pre-commit's passing hooks, PHPStan's progress bar.
            "trim trailing whitespace.................................................Passed",
            "check json...........................................(no files to check)Skipped",
            " 20/48 [▓▓▓▓▓▓▓▓▓▓▓▓░░░░░░░░░░░░░░░░]  41%",
            // Image pulls, git's transfers, package managers' steps.
            "a3ed95caeb02: Pull complete",
            "remote: Counting objects: 100% (120/120), done.",
            "[1/4] Resolving packages...",
            "Solving environment: done",
            "  - Installing requests (2.31.0)",
            "Installed 12 packages in 20ms",
            " + requests==2.31.0",
            "    Updating crates.io index",
            "npm notice New major version of npm available! 10.8.2 -> 11.6.0",
            // Valgrind's banner and pointer to its options.
            "==4242== Memcheck, a memory error detector",
            "==4242== For lists of detected and suppressed errors, rerun with: -s",
            "  File \"/usr/lib/python3.11/unittest/case.py\", line 57, in testPartExecutor",
            "    at Object.<anonymous> (node_modules/jest-circus/build/utils.js:298:28)",
            "\tat org.junit.Assert.fail(Assert.java:89)",
            "/usr/local/go/src/testing/testing.go:1595 +0xff",
            "panic({0x519a00, 0xc0000ca000})",
            "  runtime.mapaccess1_faststr()",
            "created by testing.(*T).Run",
            "   at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/panicking.rs:72:14",
            // npm's pointer to its debug log, in npm 11's words and npm 8's.
            "npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-26T21_40_03_056Z-debug-0.log",
            "npm ERR! A complete log of this run can be found in:",
            "npm ERR!     /home/u/.npm/_logs/2024-01-02T10_00_00_000Z-debug-0.log",
            // rustc's and clippy's boilerplate under a finding.
            "  = note: `#[warn(clippy::ptr_arg)]` on by default",
            "  = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#ptr_arg",
            // Deno's and bun's passing tests, Minitest's and ExUnit's in
            // their verbose forms, PHPUnit's `--debug` lines.
            "zero plus 41 ... ok (82µs)",
            "zero plus 1 ... ok (16ms)",
            "(pass) sum > zero plus 41 [0.02ms]",
            // The JUnit Platform console's tree of passing tests, and the
            // frames of JUnit and the JDK it prints with no `at`.
            "│     ├─ sums() ✔",
            "       org.junit.jupiter.api.AssertEquals.failNotEqual(AssertEquals.java:197)",
            "       java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
            // GoogleTest's and Robot Framework's passing tests.
            "[       OK ] Balance.SumsOneAccount (0 ms)",
            "Totals Add Up                                                         | PASS |",
            "TestCalc#test_add_41 = 0.00 s = .",
            "  * test adds 23 (0.00ms) [L#4]",
            "Test 'CartTest::testAdd with data set \"p0\" (0)' started",
            "     # /usr/lib/ruby/gems/3.1.0/gems/rspec-core-3.12.0/lib/rspec/core/example.rb:263:in `instance_exec'",
            // A passing TAP test point; node:test's internal frames.
            "ok 1 - total of 0 items",
            "    Test.run (node:internal/test_runner/test:796:25)",
            "    async Test.processPendingSubtests (node:internal/test_runner/test:526:7)",
            "    Test.runInAsyncScope (node:async_hooks:206:9)",
            // Build steps that went through: Gradle, CMake, Ninja,
            // SwiftPM, BuildKit, .NET.
            "> Task :app:compileJava UP-TO-DATE",
            "> Task :app:classes",
            "[ 45%] Building CXX object src/CMakeFiles/core.dir/part3.cpp.o",
            "[ 98%] Built target core",
            "[12/180] Building CXX object src/CMakeFiles/core.dir/part12.cpp.o",
            "[3/80] Compiling ArgumentParser Flag.swift",
            "#7 DONE 0.4s",
            "#5 CACHED",
            "  Restored /home/dev/Shop/Shop.csproj (in 212 ms).",
            "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/junit/junit/4.13.2/junit-4.13.2.jar (385 kB at 1.2 MB/s)",
            "Download https://repo.maven.apache.org/maven2/org/jetbrains/kotlin/kotlin-stdlib/1.9.0/kotlin-stdlib-1.9.0.jar, took 12 ms",
            "  Passed Shop.Tests.CartTests.Adds_item [3 ms]",
            "Test Case '-[AppTests.StoreTests testAdds]' passed (0.001 seconds).",
        ];
        for line in lines {
            assert_eq!(line_kind(line), LineKind::Noise, "{line}");
        }
        // Checks and steps that went through, whatever they are named.
        for line in [
            "* checking R files for syntax errors ... OK",
            "  Applying shop.0002_add_error_log... OK",
        ] {
            assert_eq!(line_kind(line), LineKind::Noise, "{line}");
        }
        // The same tools' failed steps are failures.
        for line in [
            "> Task :app:compileJava FAILED",
            "#9 ERROR: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1",
            "FAILED: src/CMakeFiles/core.dir/engine.cpp.o",
        ] {
            assert_eq!(line_kind(line), LineKind::Failure, "{line}");
        }
    }

    #[test]
    fn context_lines() {
        for line in [
            // Jest 22's headings over an assertion's operands.
            "    Expected value to be:",
            "    Received:",
            "  --> src/main.rs:4:13",
            "  File \"/work/app/models.py\", line 12, in save",
            "    at parse (/work/app/src/parse.js:10:11)",
            "\tat com.acme.App.main(App.java:14)",
            "goroutine 1 [running]:",
            "4 |     let x: i32 = \"a\";",
            // TeX's line of input where it stopped on an error.
            "l.17   \\mathrm{Attn}(Q,K,V) = \\softmax",
            "l.24 ...[width=0.5\\textwidth]{figures/speedup.pdf}",
            // What ripgrep's `--vimgrep` prints: a line and a column, the
            // match glued to them.
            "src/mod1.py:1:1:import os",
            "src/shop/cart.py:12:5:Decimal(\"0.00\")",
            // What `grep -n` prints: a line and no column.
            "astroid/bases.py:137: return getattr(self._proxied, name)",
            "src/app.py:42:    value = parse(raw)",
            // Ruby, PHP, .NET and Rust backtrace frames of the project.
            "\tfrom /app/lib/billing.rb:30:in `run'",
            "#0 /app/src/Calc.php(12): add('x', 2)",
            "   at Billing.Invoice.Total() in /app/src/Invoice.cs:line 42",
            "             at ./src/main.rs:5:5",
            // RSpec's and ExUnit's frames, Deno's test locations.
            "     # ./lib/calc.rb:4:in `div'",
            "       (ex 0.1.0) lib/ex.ex:3: Ex.fetch!/2",
            "       test/ex_test.exs:12: (test)",
            "adds => ./deno_test.ts:4:6",
            // RSpec's operands.
            "            got: -3",
            // node:test's report of a failing TAP test point.
            "  location: '/home/dev/shop/test/cart.test.js:13:1'",
            "    parseQty (file:///home/dev/shop/src/cart.js:11:30)",
            "    TestContext.<anonymous> (file:///home/dev/shop/test/cart.test.js:13:51)",
            // Biome's heading draws a rule after its location; its code
            // frames and miette's (oxlint) draw `│`; ShellCheck's and
            // Vitest's places; Test::More's operands.
            "./src/cart.ts:3:7 lint/style/useConst  FIXABLE  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━",
            "  > 3 │ let total = 0;",
            "    9 │   debugger;",
            "    ╭─[src/price.ts:9:3]",
            "In scripts/deploy.sh line 7:",
            " ❯ src/cart.test.ts:14:28",
            " ❯ parse src/lib.ts:2:42",
            "#          got: '100'",
            "#     expected: '90'",
            "==4242==    at 0x10915E: main (cart.c:14)",
            "    #0 0x55d5c1 in main /src/cart.c:14:5",
            "#1  0x0000555555555189 in load (p=0x0) at cart.c:9",
            "   Location: ./shop/cart.py:12:4",
            "api_1  |   File \"/app/shop/db.py\", line 18, in connect",
            // Erlang, OCaml, Julia, Clojure and R (rlang) frames.
            "     in function  shop_cart:load/1 (src/shop_cart.erl, line 12)",
            "Called from Dune__exe__Main in file \"bin/main.ml\", line 5, characters 2-12",
            "   @ Shop ~/dev/Shop/src/cart.jl:14",
            "\tat shop.cart$total.invokeStatic(cart.clj:12)",
            " 1. └─shop::total(cart) at R/cart.R:14:3",
            // Under the class loader's or module's name, as Gradle and
            // the module system print a frame of the project.
            "        at app//org.example.AppTest.greets(AppTest.java:12)",
            "\tat com.acme.shop@1.2/com.acme.shop.Cart.total(Cart.java:40)",
            // Terraform's and PostgreSQL's places.
            "│   on main.tf line 12, in resource \"aws_instance\" \"web\":",
            "  on variables.tf line 3:",
            "LINE 1: select * from users;",
            // Semgrep's matched code, npm audit's vulnerable package,
            // Credo's place in its gutter.
            "           17┆ subprocess.run(cmd, shell=True, check=True)",
            "lodash  <=4.17.20",
            "semver  7.0.0 - 7.5.1",
            "┃       lib/shop/orders.ex:133:7 #(Shop.Orders.total)",
        ] {
            assert_eq!(line_kind(line), LineKind::Context, "{line}");
        }
        // Their libraries' and runtimes' frames are noise.
        for line in [
            "\tfrom /usr/lib/ruby/3.1.0/rubygems/core_ext/kernel_require.rb:85:in `require'",
            "\tfrom /app/vendor/bundle/ruby/3.1.0/gems/rack-2.2.3/lib/rack.rb:12:in `call'",
            "#1 /app/vendor/phpunit/phpunit/src/Framework/TestCase.php(1154): Calc->add()",
            "#2 {main}",
            "   at System.Linq.Enumerable.First[TSource](IEnumerable`1 source)",
            "             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:80:14",
            "\tat clojure.lang.Compiler.analyze(Compiler.java:6825)",
            // Under the class loader's name, as Gradle prints a test's stack.
            "\tat app//org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:151)",
            "   @ Base ./array.jl:861",
        ] {
            assert_eq!(line_kind(line), LineKind::Noise, "{line}");
        }
        // Kotlin's compiler findings and RSpec's failed examples.
        assert_eq!(
            line_kind("e: file:///app/src/main/kotlin/App.kt:12:9 Unresolved reference: foo"),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("w: /app/src/main/kotlin/App.kt:3:5 Parameter 'x' is never used"),
            LineKind::Warning
        );
        // Before Kotlin 2.0, the place in parentheses.
        assert_eq!(
            line_kind("e: /app/src/main/kotlin/App.kt: (12, 9): Unresolved reference: foo"),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("w: /app/src/main/kotlin/App.kt: (3, 5): Parameter 'x' is never used"),
            LineKind::Warning
        );
        // Perl's `die` without a message; `warn`'s stays a warning.
        assert_eq!(line_kind("Died at script/import.pl line 42."), LineKind::Failure);
        assert_eq!(
            line_kind("Use of uninitialized value $x in addition (+) at a.pl line 2."),
            LineKind::Warning
        );
        for warning in [
            "Useless use of a constant (\"x\") in void context at a.pl line 3.",
            "Name \"main::y\" used only once: possible typo at a.pl line 4.",
        ] {
            assert_eq!(line_kind(warning), LineKind::Warning, "{warning}");
        }
        // Redis's replies that are no errors.
        for reply in ["OK", "ERRORS 0", "QUEUED"] {
            assert_ne!(line_kind(reply), LineKind::Failure, "{reply}");
        }
        assert_eq!(
            line_kind("rspec ./spec/billing_spec.rb:12 # Billing#total returns the sum"),
            LineKind::Failure
        );
        // With a column and a message, a location is a finding (go vet),
        // and so is one indented under its failing test (go test).
        assert_eq!(
            line_kind("./main.go:5:2: fmt.Printf format %d has arg x of wrong type string"),
            LineKind::Failure
        );
        assert_eq!(
            line_kind("    price_test.go:12: got 81, want 90"),
            LineKind::Failure
        );
    }

    #[test]
    fn a_line_is_read_where_it_stands_in_its_text() {
        let log = "=== RUN   TestOk0\n    calc_test.go:6: checking 0\n--- PASS: TestOk0 (0.00s)\n=== RUN   TestAdd3\n    calc_test.go:28: got 4, want 5\n--- FAIL: TestAdd3 (0.00s)\n=== RUN   TestOk4\n    calc_test.go:33: checking 4\n--- PASS: TestOk4 (0.00s)\n";
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(line_kind_in(log, lines[1]), LineKind::Noise);
        assert_eq!(line_kind_in(log, lines[4]), LineKind::Failure);
        assert_eq!(line_kind_in(log, lines[7]), LineKind::Noise);
        assert_eq!(last_failure(log), Some("--- FAIL: TestAdd3 (0.00s)"));
    }

    #[test]
    fn an_announced_message_is_a_plain_line_with_text() {
        assert!(is_announced_message(
            "called `Option::unwrap()` on a `None` value"
        ));
        for line in ["", "   ", "error: could not compile `app`"] {
            assert!(!is_announced_message(line), "{line:?}");
        }
        assert_eq!(announced_message("\nerror: x\n"), None);
        assert_eq!(announced_message("\r\n18 !== 20\r\n"), Some("18 !== 20"));
    }

    #[test]
    fn tool_8_a_numbered_heading_above_a_failure_is_one() {
        // RSpec, PHPUnit, ExUnit and Mocha, each as printed.
        for log in [
            "  1) Calc adds negative numbers\n     Failure/Error: expect(c.add(-1, -2)).to eq(3)\n",
            "1) CartTest::testRemove\nInvalidArgumentException: no item ghost\n",
            "  1) test adds negatives (ExTest)\n     test/ex_test.exs:8\n     Assertion with == failed\n",
            "  1) Array\n       #indexOf()\n         returns -1 when absent:\n\n      AssertionError [ERR_ASSERTION]: 1 == -1\n",
            "1) Calculator adds\n  Message:\n    Expected 3 to equal 4.\n  Stack:\n",
        ] {
            let heading = log.lines().next().unwrap();
            assert_eq!(line_kind_in(log, heading), LineKind::Failure, "{log}");
            assert_eq!(line_kind(heading), LineKind::Plain, "{log}");
        }
        // A numbered list with no failure near it stays plain, and so does
        // a heading whose failure is further down than its reach.
        let list = "1) install the package\n2) run the tests\n3) read the report\n";
        assert_eq!(line_kind_in(list, "1) install the package"), LineKind::Plain);
        let far = format!("1) a test\n{}error: x\n", "detail\n".repeat(HEADING_REACH));
        assert_eq!(line_kind_in(&far, "1) a test"), LineKind::Plain);
        let near = format!("1) a test\n{}error: x\n", "detail\n".repeat(HEADING_REACH - 1));
        assert_eq!(line_kind_in(&near, "1) a test"), LineKind::Failure);
        // What else a runner prints at the end of a failure is as before.
        // The signal under Go's panic details it: the panic is the error.
        assert_eq!(
            line_kind("[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x482c3a]"),
            LineKind::Context
        );
        assert_eq!(line_kind("TestCalc#test_div = 0.00 s = E"), LineKind::Failure);
        assert_eq!(
            line_kind("Your code has been rated at 0.23/10"),
            LineKind::Summary
        );
    }

    #[test]
    fn tool_8_a_go_test_log_under_a_passing_test_is_noise() {
        let log = "    calc_test.go:6: checking 0";
        let kind = |after: &str| kind_in_place(log, after.as_bytes());
        assert_eq!(kind("\n--- PASS: TestOk0 (0.00s)\n"), LineKind::Noise);
        assert_eq!(
            kind("\n    calc_test.go:7: more\n\t\tdetail\n--- SKIP: TestOk0 (0.00s)"),
            LineKind::Noise
        );
        assert_eq!(kind("\r\n--- PASS: TestOk0 (0.00s)\r\n"), LineKind::Noise);
        // Under a failing test, or with no verdict below, it stays a failure.
        assert_eq!(kind("\n--- FAIL: TestAdd3 (0.00s)\n"), LineKind::Failure);
        assert_eq!(
            kind("\n    --- FAIL: TestAdd3/sub (0.00s)\n--- PASS: X"),
            LineKind::Failure
        );
        assert_eq!(kind("\nFAIL\n"), LineKind::Failure);
        assert_eq!(kind(""), LineKind::Failure);
        assert_eq!(kind(&"\n    a_test.go:1: x".repeat(40)), LineKind::Failure);
        // A subtest's verdict, indented, counts.
        assert_eq!(kind("\n    --- PASS: TestX/sub (0.00s)\n"), LineKind::Noise);
        // Other located lines are not go test logs.
        assert_eq!(
            kind_in_place("./main.go:14:2: undefined: handler", b"\n--- PASS: X"),
            LineKind::Failure
        );
    }

    #[test]
    fn a_pytest_session_ends_on_its_failure() {
        let log = "\
============================= test session starts ==============================
collected 3 items

tests/test_sum.py::test_add PASSED                                       [ 33%]
tests/test_sum.py::test_sub FAILED                                       [ 66%]
tests/test_sum.py::test_mul PASSED                                       [100%]

=================================== FAILURES ===================================
___________________________________ test_sub ___________________________________

    def test_sub():
>       assert sub(3, 1) == 1
E       assert 2 == 1
E        +  where 2 = sub(3, 1)

tests/test_sum.py:8: AssertionError
=========================== short test summary info ============================
FAILED tests/test_sum.py::test_sub - assert 2 == 1
========================= 1 failed, 2 passed in 0.05s ==========================";
        assert_eq!(
            last_failure(log),
            Some("========================= 1 failed, 2 passed in 0.05s ==========================")
        );
        let f = failures(log);
        assert!(f.contains(&"E       assert 2 == 1"), "{f:?}");
        assert!(f.contains(&"tests/test_sum.py:8: AssertionError"), "{f:?}");
        assert!(!f.iter().any(|l| l.contains("PASSED")), "{f:?}");
    }

    /// TOOL-1: the notice an agent's shell tool appends when it ended a
    /// run (opencode's `<bash_metadata>` block) says the command did not
    /// finish: a failure, and the run's last.
    #[test]
    fn tool_1_an_agent_s_timeout_notice_is_a_failure() {
        let log = "\
 ✓ src/a.test.ts (3 tests) 4ms
 ❯ src/cookies.test.ts (12 tests | 2 failed)
     × should handle SameSite=Lax attribute 4ms


<bash_metadata>
bash tool terminated command after exceeding timeout 60000 ms
</bash_metadata>";
        assert_eq!(
            last_failure(log),
            Some("bash tool terminated command after exceeding timeout 60000 ms")
        );
        assert_eq!(
            line_kind("Process was terminated by watchdog (process exited unexpectedly)"),
            LineKind::Failure
        );
        assert_eq!(line_kind("<bash_metadata>"), LineKind::Plain);
        assert_eq!(line_kind("the job was terminated normally"), LineKind::Plain);
    }

    /// TOOL-8: ESLint's count of what `--fix` could fix closes its
    /// output after the summary: a summary, so the summary above stays the
    /// run's last failure.
    #[test]
    fn tool_8_eslint_s_fixable_count_is_a_summary() {
        let log = "\
/app/src/a.ts
  1:5  error  'z1' is never reassigned. Use 'const' instead  prefer-const

✖ 150 problems (125 errors, 25 warnings)
  50 errors and 0 warnings potentially fixable with the `--fix` option.
";
        assert_eq!(
            line_kind("  50 errors and 0 warnings potentially fixable with the `--fix` option."),
            LineKind::Summary
        );
        assert_eq!(
            last_failure(log),
            Some("✖ 150 problems (125 errors, 25 warnings)")
        );
        // Not a count of what could be fixed.
        assert_eq!(
            line_kind("  50 errors and 0 warnings could not be fixed"),
            LineKind::Failure
        );
    }

    /// TOOL-8: a compiler's located note (gcc, clang, swiftc) says where
    /// the diagnostic above it applies, not that something else failed;
    /// a located message with no level word is still a failure (Go, ruff).
    #[test]
    fn tool_8_a_located_note_is_context() {
        for note in [
            "src/mod1.c:3:74: note: directive argument in the range [4000, 2147483647]",
            "src/main.c:4:100: note: each undeclared identifier is reported only once for each function it appears in",
            "include/util.h:12:6: note: declared here",
            "Sources/App/Cart.swift:9:10: note: did you mean 'total'?",
            // Whatever its words, in a path with a `+` (g++'s headers).
            "/usr/include/c++/12/bits/allocator.h:219:5: note:   template argument deduction/substitution failed:",
        ] {
            assert_eq!(line_kind(note), LineKind::Context, "{note}");
        }
        for failure in [
            "./handler.go:14:2: undefined: renderJSON",
            "src/main.c:4:100: error: 'undefined_var' undeclared (first use in this function)",
            "pkg/notes.go:3:1: notes is not used",
        ] {
            assert_eq!(line_kind(failure), LineKind::Failure, "{failure}");
        }
        assert_eq!(
            line_kind("src/mod1.c:3:26: warning: unused variable 'unused1' [-Wunused-variable]"),
            LineKind::Warning
        );
    }

    /// TOOL-8: a linter's finding by its place and its bracketed severity
    /// (haml-lint), in any file a project lints, extensionless ones named
    /// for what they hold (RuboCop on a `Gemfile`); a bare line number
    /// without one is `grep -n`'s match.
    #[test]
    fn tool_8_a_tagged_or_located_finding_in_any_project_file() {
        for (line, kind) in [
            (
                "app/views/cart.html.haml:33 [W] ImplicitDiv: `%div.total` can be written as `.total`",
                LineKind::Warning,
            ),
            (
                "app/views/cart.html.haml:8 [E] ParseError: Illegal nesting",
                LineKind::Failure,
            ),
            (
                "Gemfile:4:1: C: Layout/EmptyLines: Extra blank line detected.",
                LineKind::Warning,
            ),
            // RuboCop's severities: a Lint cop's warning and an error are
            // failures, a style cop's convention a warning whatever its
            // words.
            (
                "lib/cart.rb:21:5: W: Lint/UselessAssignment: Useless assignment to variable - unused.",
                LineKind::Failure,
            ),
            (
                "lib/cart.rb:24:21: E: Lint/Syntax: unexpected token tEQL",
                LineKind::Failure,
            ),
            (
                "lib/cart.rb:8:7: C: [Correctable] Style/RaiseArgs: Provide an exception class and message as arguments to raise.",
                LineKind::Warning,
            ),
            (
                "lib/cart.rb:12:3: R: Metrics/AbcSize: Assignment Branch Condition size for total is too high. [<1, 7, 2> 7.35/5]",
                LineKind::Warning,
            ),
            (
                "config/deploy.yml:12:3: [error] wrong indentation: expected 2 but found 4 (indentation)",
                LineKind::Failure,
            ),
            ("app/views/cart.html.haml:33: = render 'row'", LineKind::Context),
            (
                "Dockerfile:3 DL3008 warning: Pin versions in apt get install",
                LineKind::Warning,
            ),
            ("Rakefile:12: task :default => :spec", LineKind::Context),
            ("Visit profile:3:4 for details", LineKind::Plain),
        ] {
            assert_eq!(line_kind(line), kind, "{line}");
        }
    }

    /// TOOL-8: a build that tags each line with its level (sbt, Maven) is
    /// read by the tag as well as the words; CTest's, ScalaTest's, a
    /// bundler's and a TAP block's lines by their own shapes.
    #[test]
    fn tool_8_level_tags_and_runner_shapes() {
        for (line, kind) in [
            // sbt's and Maven's warnings, whatever their words.
            (
                "[warn] It would fail on the following input: None",
                LineKind::Warning,
            ),
            (
                "[WARNING] Failed to build parent project for org.example:app",
                LineKind::Warning,
            ),
            // Prettier's files to change are its failures.
            ("[warn] src/cart/total.ts", LineKind::Failure),
            ("[error] /a/Cart.scala:31:24: type mismatch;", LineKind::Failure),
            // sbt's timer, and the marks under the code it echoes.
            (
                "[error] Total time: 9 s, completed Nov 27, 2026, 10:12:03 AM",
                LineKind::Noise,
            ),
            (
                "[success] Total time: 2 s, completed Nov 27, 2026, 10:12:03 AM",
                LineKind::Noise,
            ),
            ("[error]                  ^", LineKind::Context),
            // ScalaTest's failed expectation ends with the spec's line;
            // a frame that ends the same way is still a frame.
            (
                "[info]   90.0 did not equal 81.0 (CartSpec.scala:27)",
                LineKind::Failure,
            ),
            (
                "  List(1, 2) had length 2 instead of expected length 3 (ListSpec.scala:12)",
                LineKind::Failure,
            ),
            ("[info] Suites: completed 5, aborted 0", LineKind::Summary),
            ("[info] Suites: completed 4, aborted 1", LineKind::Failure),
            // Maven's help text under a failed build.
            ("[ERROR] -> [Help 1]", LineKind::Noise),
            (
                "[ERROR] Re-run Maven using the -X switch to enable full debug logging.",
                LineKind::Noise,
            ),
            (
                "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException",
                LineKind::Noise,
            ),
            (
                "[ERROR]   CalculatorTest.parseBad:48 » NumberFormat For input string: \"x1\"",
                LineKind::Failure,
            ),
            // webpack's ts-loader prints tsc's code on a line of its own.
            ("      TS2304: Cannot find name 'totl'.", LineKind::Failure),
            // CTest: a test that did not pass, one that did.
            (
                "12/27 Test #12: test_parse_price ...............***Failed    0.02 sec",
                LineKind::Failure,
            ),
            (
                " 3/27 Test  #3: test_exception ..........***Exception: SegFault  0.01 sec",
                LineKind::Failure,
            ),
            (
                "    11/27 Test #11: test_case_10 ..........   Passed    0.02 sec",
                LineKind::Noise,
            ),
            // node:test's YAML block: its fields, then its message.
            ("  name: 'TypeError'", LineKind::Context),
            ("  code: 'ERR_TEST_FAILURE'", LineKind::Context),
            ("  error: 'not a quantity: three'", LineKind::Failure),
            // `flutter test`: its progress, its failed test.
            ("00:02 +1: Cart adds an item", LineKind::Noise),
            ("00:03 +3 -1: Cart removes an item", LineKind::Noise),
            ("00:02 +2 -1: Cart applies a discount [E]", LineKind::Failure),
            ("00:03 +3 -1: Some tests failed.", LineKind::Failure),
            // Composer's problems, though they open like a diff's lines.
            (
                "    - laravel/framework v11.0.3 requires php ^8.2 -> your php version (8.1.2) does not satisfy that requirement.",
                LineKind::Failure,
            ),
            ("- a removed line that does not satisfy that requirement", LineKind::Plain),
            // Maven's javac and Checkstyle findings, by their bracketed
            // location, whatever their words; Surefire's failed tests.
            ("[ERROR] /a/App.java:[4,48] ';' expected", LineKind::Failure),
            ("  CalculatorTest.addWrong:46 expected:<5> but was:<4>", LineKind::Failure),
            // Cypress's boxed rows, its table's heading.
            ("  │ ✖  checkout.cy.ts    00:05    2    1    1    -    - │", LineKind::Failure),
            ("       Spec                      Tests  Passing  Failing  Pending  Skipped", LineKind::Noise),
            ("Couldn't compile the test.", LineKind::Failure),
            ("For more information about this error, try `rustc --explain E0425`.", LineKind::Noise),
            ("npm ERR! For a full report see:", LineKind::Noise),
            ("py312: skipped because could not find python interpreter with spec(s): py312", LineKind::Noise),
            // A code frame's lines are context, whatever their words; a
            // table or a box is no code frame.
            ("   |                  ^^^^ memory access failed: alloc1234 has been freed", LineKind::Context),
            ("      2 | exports.div=(a,b)=>{ if(b===0) throw new RangeError('division by zero') }", LineKind::Context),
            ("41 |     raise ConnectionError(\"could not connect to database\")", LineKind::Context),
            ("| build | failed |", LineKind::Failure),
            ("│ InvalidArgumentException: no item ghost", LineKind::Failure),
            // insta's changed lines of a snapshot.
            ("    0       │-Total: 90.00", LineKind::Failure),
            ("          0 │+Total: 100.00", LineKind::Failure),
            ("    1     1 │ Items: 1", LineKind::Plain),
            // SQLite's mark under a statement it could not parse.
            ("  ^--- error here", LineKind::Context),
            // pip's notes under a failed build.
            ("  note: This error originates from a subprocess, and is likely not a problem with pip.", LineKind::Noise),
        ] {
            assert_eq!(line_kind(line), kind, "{line}");
        }
        // Verdicts, read without their colours, and the level tags a
        // tool puts on every line.
        assert!(is_verdict("\u{1b}[31mErrors while running CTest\u{1b}[0m"));
        assert!(is_verdict(
            "[error] (Test / test) sbt.TestsFailedException: Tests unsuccessful"
        ));
        assert!(!is_verdict(
            "error[E0425]: cannot find value `totl` in this scope"
        ));
        // pnpm's closing line when a script fails: the script said why.
        assert!(is_verdict(" ELIFECYCLE  Command failed."));
        assert!(is_verdict(" ELIFECYCLE  Command failed with exit code 1."));
        // nox's closing lines over the sessions it ran.
        assert!(is_verdict("nox > Session typecheck failed."));
        assert!(is_verdict("nox > * tests: failed"));
        assert!(!is_verdict("nox > Program mypy not found."));
        // Ansible's recap counts a host's failed tasks; the task's `fatal:`
        // above it says what failed.
        assert!(is_verdict(
            "localhost                  : ok=4    changed=3    unreachable=0    failed=1    skipped=0"
        ));
        assert!(!is_verdict(
            "fatal: [localhost]: FAILED! => {\"changed\": false, \"msg\": \"'port' is undefined\"}"
        ));
        assert_eq!(without_level_tag("npm ERR! code E404"), "code E404");
        assert_eq!(without_level_tag("[error]     ^"), "    ^");
        assert_eq!(without_level_tag("error: plain"), "error: plain");
        // A duration is no count of failures.
        assert!(!zero_failure_counts("***Failed    0.02 sec"));
        assert!(zero_failure_counts("Tests run: 3, Failures: 0, Errors: 0"));
        // A number that ends a name counts nothing (`source-00 failed`).
        for named in [
            "2026-12-05 06:02:15,347 - sync - ERROR - fetch of source-00 failed: [Errno 111] Connection refused",
            "release v1.0 failed to publish",
            "job shard_0 failed after 12s",
        ] {
            assert!(!zero_failure_counts(named), "{named}");
            assert_eq!(line_kind(named), LineKind::Failure, "{named}");
        }
        assert!(zero_failure_counts("[         0 containers failed ]"));
        // An empty list or nothing in place of a count, `no errors`: none.
        for none in [
            "Errors Found: []",
            "errors: none",
            "failures = {}",
            "Error count: 0",
            "No errors found.",
            "Parsed without errors",
            "Result: no failures",
        ] {
            assert!(zero_failure_counts(none), "{none}");
            assert_eq!(line_kind(none), LineKind::Summary, "{none}");
            assert!(reports_no_failures(none), "{none}");
        }
        // A passing test's mark makes the line noise, whatever it says.
        assert!(zero_failure_counts("✓ no failures"));
        assert!(!reports_no_failures("✓ no failures"));
        for some in [
            "Errors found: ['L031']",
            "errors: [E501 line too long]",
            "Error: nothing to commit",
            "errors: 2",
            "ValueError: no errors allowed here: 3 errors",
        ] {
            assert!(!zero_failure_counts(some), "{some}");
            assert_eq!(line_kind(some), LineKind::Failure, "{some}");
            assert!(!reports_no_failures(some), "{some}");
        }
    }
}

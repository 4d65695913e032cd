//! The level tags tools put on a line (`[warn]`, `npm ERR!`, haml-lint's
//! `[W]`): what a line is by the level it was logged at.

use std::sync::OnceLock;

use regex::Regex;

use super::{compiled, LineKind};

/// What a line is by the level its tool logged it at, whatever words its
/// message holds: a RuboCop offense by its severity letter
/// ([`offense_level`]), a log record by its level field or glog's letter
/// (pino's `{"level":50,…}`, `W1205 08:46:17.806054 9 a.go:12] fetch
/// failed`; [`json_log_level`], [`glog_level`]), a Yarn message by its
/// code ([`yarn_level`]), a checker's located finding by the level below
/// an error after its place (cppcheck's `a.c:4:41: warning: If memory
/// allocation fails, …`; [`located_level`]). `None` when no level says.
pub(super) fn logged_level(line: &str) -> Option<LineKind> {
    offense_level(line)
        .or_else(|| json_log_level(line))
        .or_else(|| glog_level(line))
        .or_else(|| yarn_level(line))
        .or_else(|| located_level(line))
}

/// What a RuboCop offense is by the severity letter after its place
/// (`lib/cart.rb:21:5: W: Lint/UselessAssignment: …`): an error or fatal
/// one (`E`, `F`) and a warning (`W`, the Lint cops' probable bugs) are
/// failures; a convention or refactoring one (`C`, `R`, the style cops')
/// is a warning, whatever words its message holds (`C:
/// Style/RaiseArgs: Provide an exception class …`). `None` for any other
/// line.
fn offense_level(line: &str) -> Option<LineKind> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let level = compiled(
        &RE,
        r"^\s*\S+:\d+:\d+: ([CRWEF]): (?:\[(?:Correctable|Corrected|Todo)\] )?[A-Z][A-Za-z]+/[A-Za-z0-9]+: ",
    )
    .captures(line)?
    .get(1)?;
    Some(if matches!(level.as_str(), "W" | "E" | "F") {
        LineKind::Failure
    } else {
        LineKind::Warning
    })
}

/// What a row of PHP_CodeSniffer's report is by the level in its column
/// (`  7 | ERROR | [x] Expected 1 space(s) after IF keyword; 0 found`, `
/// 12 | WARNING | Line exceeds 120 characters; contains 131 characters`):
/// an error is a failure, a warning a warning, though the row reads like a
/// line of a code frame. `None` for any other line.
pub(super) fn sniff_level(line: &str) -> Option<LineKind> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let level = compiled(&RE, r"^\s*\d+ \| (ERROR|WARNING) *\| \S")
        .captures(line)?
        .get(1)?;
    Some(if level.as_str() == "ERROR" {
        LineKind::Failure
    } else {
        LineKind::Warning
    })
}

/// Yarn's (2 and later) message codes of errors: an exception, a build
/// script or package that failed, a resolution, fetch or network failure,
/// a lockfile or artifact an immutable install would change, a manifest,
/// configuration, patch or constraint that is wrong, what cannot be found.
const YARN_ERRORS: &[u16] = &[
    1, 9, 10, 11, 12, 14, 15, 16, 18, 20, 21, 22, 28, 30, 33, 34, 35, 41, 42, 43, 44, 45, 46, 47, 51, 52, 57,
    58, 64, 66, 67, 71, 75, 78, 79, 80, 81, 82, 83, 84, 91,
];

/// Yarn's message codes of warnings: a peer dependency missing or
/// incompatible, a build disabled, a package deprecated or not for this
/// system, a setting deprecated, a package extension unused.
const YARN_WARNINGS: &[u16] = &[
    2, 3, 4, 5, 6, 27, 31, 32, 50, 53, 59, 60, 61, 62, 63, 68, 69, 72, 76, 77, 86,
];

/// What a line of Yarn (2 and later) is by the message code it opens with
/// (`➤ YN0028: │ The lockfile would have been modified by this install,
/// which is explicitly forbidden.`, `➤ YN0082: │ left-pad@npm:^9.9.9: No
/// candidates found`): the level a terminal shows by the colour of its
/// `➤`, which a log without colours loses. An error's code makes each of
/// its lines a failure, a warning's a warning, and any other code's a
/// plain line, whatever its words (`YN0007: │ a@npm:1.0.0 must be built
/// because it never has been before or the last one failed`). `None` for
/// the generic `YN0000` (its words say) and any other line.
fn yarn_level(line: &str) -> Option<LineKind> {
    let said = line.trim_start();
    let said = said.strip_prefix("➤ ").unwrap_or(said);
    let code = said.strip_prefix("YN")?;
    if code.as_bytes().get(4) != Some(&b':') {
        return None;
    }
    let code: u16 = code.get(..4)?.parse().ok()?;
    if code == 0 {
        return None;
    }
    Some(if YARN_ERRORS.contains(&code) {
        LineKind::Failure
    } else if YARN_WARNINGS.contains(&code) {
        LineKind::Warning
    } else {
        LineKind::Plain
    })
}

/// What a located finding is by the level a compiler or checker puts
/// after its place, when that level is not an error: gcc's, clang's and
/// Swift's `a.c:4:41: warning: …`, and cppcheck's lower severities
/// (`style:`, `performance:`, `portability:`, with its `:inconclusive`
/// mark) are warnings whatever words their messages hold (`warning: If
/// memory allocation fails, then there is a possible null pointer
/// dereference`); an informational one (cppcheck's `information:
/// Include file: <stdio.h> not found.`, clang's `remark:`) says where, as a
/// note does. TeX under `-file-line-error` puts the file and line before
/// each of its errors alone (`./main.tex:17: Undefined control sequence.`,
/// where it prints `! Undefined control sequence.` without the flag): a
/// failure. `None` for any other line.
fn located_level(line: &str) -> Option<LineKind> {
    static RE: OnceLock<Regex> = OnceLock::new();
    static TEX: OnceLock<Regex> = OnceLock::new();
    if compiled(&TEX, r"^\S+\.(?:tex|sty|cls|ltx|dtx):\d+: [A-Z]").is_match(line) {
        return Some(LineKind::Failure);
    }
    let level = compiled(
        &RE,
        r"^\s*[^\s:]+(?::\d+){1,2}: (?:(warning|style|performance|portability)|information|remark)(?::inconclusive)?: \S",
    )
    .captures(line)?;
    Some(if level.get(1).is_some() {
        LineKind::Warning
    } else {
        LineKind::Context
    })
}

/// The head of a record of Google's logging libraries, its level's letter
/// in a group ([`glog_level`]).
pub(super) const GLOG_RECORD: &str = r"(?:([IWEF])\d{4} \d\d:\d\d:\d+\.\d+\s+\d+|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: ([IWEF])) [^\s\]]+:\d+\] ";

/// What a record of Google's logging libraries is by the letter that
/// opens it, whatever its message says: glog's, klog's (Kubernetes and
/// `kubectl`) and Abseil's (`E1205 08:46:17.806054    9082
/// memcache.go:265] …`, `W0000 00:00:1710411722.623456   12345
/// gpu_device.cc:2344] …`), and TensorFlow's under its timestamp
/// (`2024-03-14 10:22:01.523456: E external/…/cuda_dnn.cc:9261] …`). An
/// error (`E`) or fatal (`F`) record is a failure, a warning (`W`) one a
/// warning, an info (`I`) one plain, though it speaks of `round-off
/// errors`. `None` for any other line.
fn glog_level(line: &str) -> Option<LineKind> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let trimmed = line.trim_start();
    if !trimmed.starts_with(['I', 'W', 'E', 'F']) && !trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let record = RE
        .get_or_init(|| super::build(&format!("^{GLOG_RECORD}")))
        .captures(trimmed)?;
    let letter = record.get(1).or_else(|| record.get(2))?;
    Some(match letter.as_str() {
        "E" | "F" => LineKind::Failure,
        "W" => LineKind::Warning,
        _ => LineKind::Plain,
    })
}

/// A location followed by a linter's bracketed severity (haml-lint's
/// `app/a.html.haml:33 [W] ImplicitDiv: …`, `[E]`): a finding, where a
/// bare line number alone would read as `grep -n`'s match. The first group
/// holds an error's tag, the second a warning's.
pub(super) fn severity_tagged() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"^\s*\S+:\d+(?::\d+)?:?\s+\[(?:(E|F|error|fatal)|(W|warn|warning))\]\s+\S",
    )
}

/// The tags npm puts before every line of an error (npm 7 to 9's `npm
/// ERR!`, npm 10's `npm error`).
const NPM_ERROR_TAGS: [&str; 2] = ["npm ERR!", "npm error"];

/// Whether `line` starts with npm's error tag ([`NPM_ERROR_TAGS`]).
pub(crate) fn is_npm_error_line(line: &str) -> bool {
    NPM_ERROR_TAGS.iter().any(|tag| line.starts_with(tag))
}

/// `line` without the level tag a tool puts before every line it logs
/// at the error level (`npm ERR! `, Maven's `[ERROR] `, sbt's `[error] `)
/// or before the fields of an error (PostgreSQL's `HINT:  `, `DETAIL:  `):
/// what is left says whether the line is a failure by its own words or
/// only by its tag (`npm ERR! node_modules/react-select`).
///
/// ```
/// use strata_ctx_compress::without_level_tag;
/// assert_eq!(without_level_tag("npm ERR! Could not resolve dependency:"), "Could not resolve dependency:");
/// assert_eq!(without_level_tag("[ERROR]   AppTest.adds:12 expected:<3> but was:<4>"), "  AppTest.adds:12 expected:<3> but was:<4>");
/// assert_eq!(without_level_tag("error: could not compile `app`"), "error: could not compile `app`");
/// assert_eq!(without_level_tag("HINT:  Perhaps you meant \"t.name\"."), "Perhaps you meant \"t.name\".");
/// ```
pub fn without_level_tag(line: &str) -> &str {
    static RE: OnceLock<Regex> = OnceLock::new();
    match compiled(
        &RE,
        r"^\s*(?:npm (?:ERR!|error)|\[(?:error|ERROR)\]|(?:HINT|DETAIL): ) ?",
    )
    .find(line)
    {
        Some(tag) => &line[tag.end()..],
        None => line,
    }
}

/// The level tag of a line a build tool logged as a warning: sbt's
/// `[warn]`, Maven's `[WARNING]`, `[WARN]`, apt's `W:`; and pytest's mark
/// of a test expected to fail that passed (`XPASS test_a.py::test_b -
/// known failure`, `test_a.py::test_b XPASS`; under `strict` it is also
/// listed as failed).
fn warning_level() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^(?:\[(?:warn|WARN|WARNING)\]|W:|XPASS) |::\S* XPASS\b")
}

/// Whether `line` was logged at the warning level, so that it is a
/// warning whatever its words say (`2026-12-05 05:50:54,124 - app.db -
/// WARNING - retrying after failed connection attempt 1`): a build tool's
/// level tag ([`warning_level`]), or the level field of a log record
/// ([`record_head`]) when the head before it says nothing of a failure
/// ([`says_failure`]), so that a message that merely holds the word
/// (`FAILED test_a.py::test_x - AssertionError: WARNING raised`) reads by
/// its own.
pub(super) fn logged_as_warning(line: &str) -> bool {
    warning_level().is_match(line) || record_head(line).is_some_and(|head| !says_failure(head))
}

/// Whether `line` says in its words that something failed, whatever the
/// level it was logged at (`… - WARNING - fetch of orders failed (attempt
/// 1/3): [Errno 111] Connection refused`).
///
/// ```
/// use strata_ctx_compress::{line_kind, says_failure, LineKind};
///
/// let retry = "2026-12-05 06:02:15,347 - sync - WARNING - fetch of orders failed (attempt 1/3)";
/// assert_eq!(line_kind(retry), LineKind::Warning);
/// assert!(says_failure(retry));
/// assert!(!says_failure("2026-12-05 06:02:15,347 - sync - WARNING - stock low"));
/// ```
pub fn says_failure(line: &str) -> bool {
    super::failure().is_match(&super::located::without_paths(line))
}

/// Whether `line`, a warning, says in its words that something failed and
/// was read as a warning by its level alone: a log record's (`… -
/// WARNING - fetch of orders failed`), a checker's after its place (`a.c:4:41:
/// warning: If memory allocation fails, …`). It grows a history form's
/// room as a failure does, though it comes after them; a build tool's
/// tagged warning (Maven's `[WARNING]`, apt's `W: Failed to fetch …`) is
/// one of its many notices, and does not.
pub(crate) fn grows_as_failure(line: &str) -> bool {
    !warning_level().is_match(line) && says_failure(line)
}

/// The head of a log record logged at the warning level, before its
/// level: the first level a line names, within its first
/// [`RECORD_HEAD_BYTES`], as the formats of common loggers place it
/// (Python's `logging` and loguru, structlog, slog's and logrus's
/// `level=WARN`, zap's and zerolog's, Rust's `tracing` and `env_logger`,
/// Logback and Spring Boot, Celery, gunicorn, nginx, PostgreSQL's server,
/// Monolog, Elixir's `Logger`, pino-pretty, Docker's `WARN[0000]`, and
/// the `WARNING: ` pip, Bazel and java.util.logging open a record with) is
/// a warning one. Go's race detector and the sanitizers head a report that
/// fails the run `WARNING: ` too (`WARNING: DATA RACE`, `WARNING:
/// ThreadSanitizer: data race`): no record.
fn record_head(line: &str) -> Option<&str> {
    static LEVEL: OnceLock<Regex> = OnceLock::new();
    if !(line.contains("WARN") || line.contains("warn") || line.contains("WRN")) {
        return None;
    }
    let head = &line[..crate::text::floor_boundary(line, RECORD_HEAD_BYTES)];
    let level = compiled(
        &LEVEL,
        concat!(
            r#"(?:^|[\s\[|(/"=.{])(?:(WARN(?:ING)?|WRN)|ERRO?R?|FATAL|FTL|CRIT(?:ICAL)?|SEVERE|PANIC|ALERT|EMERG|INFO|INF|NOTICE|DEBUG|DBG|DEBG|TRACE|TRC|TRCE|LOG)(?:$|[\s\]|)/",:\[-])"#,
            r#"|(?:\[|level=)"?(?:(warn(?:ing)?)|err(?:or)?|fatal|crit(?:ical)?|info|notice|debug|trace)(?:$|[\s\]"])"#,
        ),
    )
    .captures(head)?;
    let token = level.get(1).or_else(|| level.get(2))?;
    let report = [
        "DATA RACE",
        "ThreadSanitizer:",
        "AddressSanitizer:",
        "LeakSanitizer:",
        "MemorySanitizer:",
    ];
    let after = line[token.end()..].trim_start_matches(':').trim_start();
    (!report.iter().any(|r| after.starts_with(r))).then(|| &line[..token.start()])
}

/// How far into a line a log record's level may stand ([`record_head`]).
const RECORD_HEAD_BYTES: usize = 120;

/// Whether `line`, a line of `text`, is the message of a record logged at
/// the warning level under a header of its own, a warning whatever its
/// words: .NET's console logger's indented lines under `warn:
/// Microsoft.AspNetCore.HttpsPolicy.HttpsRedirectionMiddleware[3]`
/// (`      Failed to determine the https port for redirect.`).
pub(super) fn is_warning_record(text: &str, line: &str) -> bool {
    static DOTNET: OnceLock<Regex> = OnceLock::new();
    if !line.starts_with("      ") {
        return false;
    }
    let (start, _) = super::place::span_in(text, line);
    super::place::lines_above(text.as_bytes(), start)
        .take(RECORD_LINES)
        .filter_map(|(s, e)| text.get(s..e))
        .find(|above| !above.starts_with("      "))
        .is_some_and(|header| compiled(&DOTNET, r"^warn: \S+\[\d+\]$").is_match(header))
}

/// How many lines of its message a record logged under a header of its
/// own may hold ([`is_warning_record`]).
const RECORD_LINES: usize = 20;

/// Whether `line` is the marks a build that tags each line with its level
/// prints under the code it echoes, as sbt does (`[error]     ^`,
/// `[warn]   ~~~~`).
pub(crate) fn is_tagged_marks(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, r"^\[(?:error|warn)\]\s+[\^~]+\s*$").is_match(line)
}

/// The level a structured log line was written at, read from its JSON
/// fields: pino's and Bunyan's numbers (`"level":50` an error, `60`
/// fatal, `40` a warning), zap's, slog's, structlog's and Winston's names
/// (`"level":"error"`, `"level": "WARN"`), python-json-logger's
/// `"levelname"`, Google Cloud's `"severity"`: a failure for an error or
/// worse, a warning for a warning, `None` for any other level or a line
/// that is no such object.
fn json_log_level(line: &str) -> Option<LineKind> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let trimmed = line.trim_start();
    if !trimmed.starts_with('{') {
        return None;
    }
    let level = compiled(
        &RE,
        r#""(?:level|levelname|severity|log\.level)"\s*:\s*(?:"(?i:(error|err|fatal|critical|crit|alert|emerg|emergency|panic)|(warn|warning))"|(5\d|60)\b|(4\d)\b)"#,
    )
    .captures(trimmed)?;
    if level.get(1).is_some() || level.get(3).is_some() {
        Some(LineKind::Failure)
    } else if level.get(2).is_some() || level.get(4).is_some() {
        Some(LineKind::Warning)
    } else {
        None
    }
}

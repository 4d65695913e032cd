//! What a tool puts before the lines of the processes it runs (their
//! names, an installer's indent: [`nested`]), and a report's gutter: taken
//! off a line before it is judged.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::compiled;

pub(crate) mod nested;

/// The longest `go test -json` event read as one ([`test_event`]): a
/// longer line is judged by its words.
const EVENT_BYTES: usize = 64 * 1024;

/// A `go test -json` event that may report a failure ([`test_event`]).
pub(super) const TEST_EVENT: &str = r#"^\s*\{.*"Action":"(?:output|fail)""#;

/// What a `go test -json` event reports (see [`test_event`]).
#[derive(Debug, PartialEq, Eq)]
pub(super) enum TestEvent {
    /// A line the test or the package printed, without its newline.
    Printed(String),
    /// A test or a package that failed.
    Failed,
    /// A test that started, ran, passed, paused or was skipped.
    Other,
}

/// `line` read as the event `go test -json` (test2json) writes for each
/// line a test prints and each verdict: `{"Time":"…","Action":"output",
/// "Package":"shop/cart","Test":"TestTotal","Output":"--- FAIL: TestTotal
/// (0.00s)\n"}`. `None` when the line is no such event.
///
/// ```
/// # use strata_ctx_compress::{line_kind, LineKind};
/// assert_eq!(line_kind(r#"{"Time":"2024-05-01T10:00:00Z","Action":"fail","Package":"shop/cart","Elapsed":0.01}"#), LineKind::Failure);
/// assert_eq!(line_kind(r#"{"Action":"output","Package":"shop/cart","Output":"ok  \tshop/cart\t0.01s\n"}"#), LineKind::Noise);
/// ```
pub(super) fn test_event(line: &str) -> Option<TestEvent> {
    let line = line.trim();
    if !line.starts_with('{') || line.len() > EVENT_BYTES || !line.contains("\"Action\":") {
        return None;
    }
    let Ok(Value::Object(event)) = serde_json::from_str::<Value>(line) else {
        return None;
    };
    let action = event.get("Action")?.as_str()?;
    event.get("Package")?;
    Some(match action {
        "output" => TestEvent::Printed(
            event
                .get("Output")?
                .as_str()?
                .trim_end_matches(['\r', '\n'])
                .to_owned(),
        ),
        "fail" => TestEvent::Failed,
        _ => TestEvent::Other,
    })
}

/// The name a tool that runs several processes puts before each line of
/// theirs: Docker Compose's service (`api-1  | `, `api_1  | `), Turborepo's
/// package and task (`web:build: `, `@shop/ui:test: `, and in its own
/// lines about a task `web#build: `), pnpm's package
/// directory and script in a recursive run (`packages/api test: `, for
/// the scripts such runs are for), Nix's builder (`hello> `, and `       > `
/// in the log Nix repeats), the time a log line was written at
/// (`2024-05-01T10:00:01.1234567Z `, with the job and step before it as `gh
/// run view --log` prints a GitHub Actions log), BuildKit's step and time under a
/// `docker build` step that prints (`#9 31.20 `).
///
/// A file's name is no package's (`a.py:ENCODING: x`, as `grep` prints a
/// match, keeps its name).
pub(super) const STREAM_PREFIX: &str = concat!(process_prefix!(), r"| {7}> ");

/// A [`STREAM_PREFIX`] that names the process or the time of its line:
/// all of them but the indent Nix puts before the log it repeats, which
/// stands where a code frame's pointed line may (`       > 4 | test(…)`).
const PROCESS_PREFIX: &str = process_prefix!();

/// The patterns of [`PROCESS_PREFIX`], for both constants: ASCII
/// classes, which compile to a smaller automaton than Unicode's `\w`.
macro_rules! process_prefix {
    () => {
        concat!(
            r"[0-9A-Za-z_.-]+[-_][0-9]+ +\| |[@A-Za-z_][@0-9A-Za-z_/-]*[:#][A-Za-z][0-9A-Za-z_-]*: |#[0-9]+ [0-9]+\.[0-9]+ ",
            r"|[@A-Za-z_][@0-9A-Za-z_-]*(?:/[@0-9A-Za-z_-]+)+ (?:test|build|lint|check|typecheck|type-check|compile|e2e|ci)(?::[0-9A-Za-z_-]+)?: ",
            // Nix's builder (`hello> make: *** [Makefile:8: all] Error 2`
            // under `nix build -L`); the last lines of its log that Nix
            // repeats under a failed build (`       > make: *** …`) are
            // [`STREAM_PREFIX`]'s alone.
            r"|[A-Za-z][0-9A-Za-z_.+-]*> ",
            // What runs npm scripts side by side names each line's script:
            // concurrently by its number (`[0] `), Yarn's `workspaces
            // foreach` by its workspace (`[@shop/api]: `), npm-run-all by a
            // script with a colon in its name (`[test:unit] `), Lerna's
            // `--stream` by its scoped package (`@shop/api: `); and
            // pytest-xdist's worker (`[gw0] `), Foreman's process
            // (`10:00:01 web.1  | `). Not a level in brackets (sbt's
            // `[info] `, Maven's `[ERROR] `, Ansible's `[WARNING]: `), nor Yarn 1's
            // step (`[1/4] `).
            r"|\[(?:[0-9]{1,3}|gw[0-9]+|[a-z][0-9a-z_.-]*:[0-9a-z_.:-]+)\] |\[[@0-9a-z][@0-9A-Za-z_./:-]*\]: |@[0-9a-z_.-]+/[0-9a-z_.-]+: ",
            r"|(?:[0-9][0-9]:[0-9][0-9]:[0-9][0-9] )?[A-Za-z][0-9A-Za-z_-]*\.[0-9]+ +\| ",
            // The time a log line was written at, as GitHub Actions,
            // `kubectl logs --timestamps` and `docker logs -t` put it
            // first (`2024-05-01T10:00:01.1234567Z `), and the job and
            // step `gh run view --log` puts before it (`test\tRun
            // tests\t2024-…Z `).
            r"|(?:[^\t\n]+\t[^\t\n]+\t)?[0-9]{4}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9](?:\.[0-9]+)?Z ",
        )
    };
}
use process_prefix;

/// `line` without the names and times of the processes that printed it:
/// Docker Compose's service (`api-1  | `), Turborepo's package and task
/// (`web:test: `), pnpm's package in a recursive run (`packages/api
/// test: `), Nix's builder (`hello> `), the time a log line was written at
/// with the job and step `gh run view --log` puts before it, and a name
/// under another. What the process printed, as it printed it. The indent
/// Nix puts before the log it repeats stays, for it may be a code
/// frame's pointed line (`       > 4 | test(…)`).
///
/// ```
/// use strata_ctx_compress::without_process_name;
///
/// assert_eq!(without_process_name("api-1  | [ERROR] "), "[ERROR] ");
/// assert_eq!(without_process_name("build\tRun tests\t2024-05-01T10:00:01.1234567Z web:test:   × total"), "  × total");
/// assert_eq!(without_process_name("       > 4 | test('x')"), "       > 4 | test('x')");
/// ```
pub fn without_process_name(line: &str) -> &str {
    static RE: OnceLock<Regex> = OnceLock::new();
    match compiled(&RE, &format!("^(?:{PROCESS_PREFIX})+")).find(line) {
        Some(name) => &line[name.end()..],
        None => line,
    }
}

/// `text` without the names and times processes' lines carry
/// ([`PROCESS_PREFIX`]): what each process printed, line for line, so
/// that the lines a failure's message, frames and code stand on are found
/// by their indentation as in the process's own output
/// (`packages/cart test:      → expected 9 to be 10` under `packages/cart
/// test:    × cart > coupon none 13ms`); a name under another (a CI
/// job's log, `gh run view --log`, of Turborepo's run) is left out too.
/// A name in brackets no line alone tells from a level (concurrently's
/// `[api] `) is left out where most lines carry one ([`bracketed_names`];
/// lines `is_gap` says stand for lines left out, a form's markers, are
/// not counted). Borrowed when no line has one.
pub(crate) fn as_printed_alone(text: &str, is_gap: impl Fn(&str) -> bool) -> Cow<'_, str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let alone = compiled(&RE, &format!("(?m)^(?:{PROCESS_PREFIX})+")).replace_all(text, "");
    let names = bracketed_names(&alone, is_gap);
    if names.is_empty() {
        return alone;
    }
    let mut out = String::with_capacity(alone.len());
    for line in alone.split_inclusive('\n') {
        // A process's name may stand under the command's (pnpm's
        // `packages/api test: ` under `[api] `).
        let name = bracketed_name(line).filter(|n| names.contains(n));
        out.push_str(name.map_or(line, |n| without_process_name(&line[n.len() + 3..])));
    }
    Cow::Owned(out)
}

/// Words in brackets that are a level or a verdict, not a process's name
/// (sbt's `[info] `, `[warn] `, `[error] `, `[success] `).
const BRACKETED_LEVELS: &[&str] = &[
    "info", "warn", "warning", "error", "err", "debug", "trace", "success", "fatal", "notice", "verbose",
    "log", "ok", "fail", "failed", "pass", "passed", "skip", "skipped", "done", "note", "hint", "critical",
];

/// The name `line` opens with in brackets and a space, as concurrently
/// prints a named command's lines (`[api] `): a lower-case word.
fn bracketed_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('[')?;
    // A name is at most 32 bytes: a long line is not searched to its end.
    let end = memchr::memmem::find(&rest.as_bytes()[..rest.len().min(34)], b"] ")?;
    let name = &rest[..end];
    let word = name.len() <= 32
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.-".contains(&b));
    word.then_some(name)
}

/// The names in brackets the lines of `text` open with, when three in
/// four lines that print something carry one and none is a level
/// ([`BRACKETED_LEVELS`]): the commands a tool such as concurrently runs
/// side by side, each line under its command's name. Empty otherwise.
fn bracketed_names(text: &str, is_gap: impl Fn(&str) -> bool) -> Vec<&str> {
    if !text.starts_with('[') && !text.contains("\n[") {
        return Vec::new();
    }
    let (mut printed, mut named) = (0usize, 0usize);
    let mut names: Vec<&str> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty() && !is_gap(l)) {
        printed += 1;
        if let Some(name) = bracketed_name(line) {
            named += 1;
            if !names.contains(&name) {
                if BRACKETED_LEVELS.contains(&name) || names.len() == 8 {
                    return Vec::new();
                }
                names.push(name);
            }
        }
    }
    if printed < 4 || named * 4 < printed * 3 {
        return Vec::new();
    }
    names
}

/// `line` without the [`STREAM_PREFIX`] of the process that printed it:
/// what the process printed is judged as it would be alone (under the
/// names of the processes it ran under, too).
///
/// ```
/// # use strata_ctx_compress::{line_kind, LineKind};
/// assert_eq!(line_kind(r#"api-1  |   File "/app/shop/db.py", line 18, in connect"#), LineKind::Context);
/// assert_eq!(line_kind("web:build: src/a.ts(3,7): error TS2322: Type 'string' is not assignable"), LineKind::Failure);
/// assert_eq!(line_kind("packages/api test: not ok 41 - totals"), LineKind::Failure);
/// assert_eq!(line_kind("#9 12.24 npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported"), LineKind::Noise);
/// assert_eq!(line_kind("#9 31.20 npm error code ERESOLVE"), LineKind::Failure);
/// ```
pub(super) fn without_stream_prefix(line: &str) -> &str {
    static RE: OnceLock<Regex> = OnceLock::new();
    match compiled(&RE, &format!("^(?:{STREAM_PREFIX})+")).find(line) {
        Some(prefix) => &line[prefix.end()..],
        None => without_gutter(line),
    }
}

/// How far in the gutter of an exception group's traceback may stand
/// ([`without_gutter`]): two spaces for the group, two more for each
/// group nested in it, five deep.
const GROUP_GUTTER_DEPTH: usize = 10;

/// `line` without the gutter PHPUnit's TestDox report draws under a
/// failing test (`   │ Failed asserting that 15.0 is identical to 16.0.`,
/// `   │ /app/tests/CartTest.php:9`) or Credo draws along its issues (`┃
/// [W] ↗ There should be no calls to IO.inspect/1.`, `┃       lib/a.ex:3:7
/// #(A.b)`): the text is judged as printed alone. A code frame's gutter,
/// which a line number or marks follow (`  4 │ let x`, `    │   ^^^`),
/// stays.
///
/// Python (3.11 and later) draws the tracebacks of an exception group in
/// such a gutter too, one level of it for each group (`  | ExceptionGroup:
/// unhandled errors in a TaskGroup (2 sub-exceptions)`, `    | ValueError:
/// page 7`), under `  + Exception Group Traceback (most recent call
/// last):`: a line whose text begins with a letter, and a frame (`  |
/// File "a.py", line 7, in fetch`), are judged as printed alone, while
/// the code and marks indented under the gutter stay in it.
///
/// ```
/// # use strata_ctx_compress::{line_kind, LineKind};
/// assert_eq!(line_kind("   │ /app/tests/CartTest.php:9"), LineKind::Context);
/// assert_eq!(line_kind("    | ValueError: page 7: bad checksum 0x3f != 0x40"), LineKind::Failure);
/// assert_eq!(line_kind("  |   File \"/app/sync.py\", line 7, in fetch"), LineKind::Context);
/// // SQLFluff's description, wrapped under its gutter, stays in it.
/// assert_eq!(line_kind("                       | only one select target."), LineKind::Context);
/// assert_eq!(line_kind("┃       lib/shop/orders.ex:133:7 #(Shop.Orders.total)"), LineKind::Context);
/// ```
fn without_gutter(line: &str) -> &str {
    if let Some(rest) = line.trim_start().strip_prefix("┃ ") {
        return rest;
    }
    let indented = line.starts_with([' ', '\t']);
    if indented {
        let drawn = line.trim_start();
        if let Some(heading) = drawn.strip_prefix("+ ") {
            if heading.starts_with("Exception Group Traceback") {
                return heading;
            }
        }
        // Python draws the gutter two spaces in for a group, two more for
        // each group in it; a line that goes on a wrapped description
        // further in (SQLFluff's `                       | only one
        // select target.`) is no traceback's.
        let depth = line.len() - drawn.len();
        let group_gutter = depth.is_multiple_of(2)
            && depth <= GROUP_GUTTER_DEPTH
            && line[..depth].bytes().all(|b| b == b' ');
        if let Some(rest) = drawn.strip_prefix("| ").filter(|_| group_gutter) {
            if rest.starts_with(char::is_alphabetic) || rest.starts_with("  File \"") {
                return rest;
            }
        }
    }
    match line.trim_start().strip_prefix("│ ") {
        Some(rest) if indented && rest.starts_with(|c: char| !c.is_whitespace() && c != '^') => rest,
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TOOL-8: what each process printed, line for line, its indentation
    /// as it printed it; the indent before the log Nix repeats and the
    /// lines no process names stay as they are.
    #[test]
    fn tool_8_processes_names_and_times_are_left_out_line_for_line() {
        let log = concat!(
            "web:test:  FAIL  a.test.js\n",
            "web:test:     → expected 9 to be 10\n",
            "packages/api test:   at total (src/a.js:3:9)\n",
            "api-1  |   File \"/app/db.py\", line 18, in connect\n",
            "build\tRun tests\t2024-05-01T10:00:01.1234567Z error: boom\n",
            "build\tRun tests\t2024-05-01T10:00:01.1234567Z web:test:   at x (a.js:1:2)\n",
            "       > 4 | test('x', () => {\n",
            "[0] FAIL src/a.test.js\n",
            "[@shop/api]:   ● total\n",
            "[test:unit] not ok 1 - total\n",
            "@shop/api: error TS2322: x\n",
            "10:00:01 web.1  | Traceback (most recent call last):\n",
            "[gw0] [ 50%] FAILED tests/a.py::test_b\n",
            "[info] - total *** FAILED ***\n[ERROR] boom\n[WARNING]: no inventory\n[1/4] Resolving packages...\n",
            "Tasks:    0 successful, 1 total",
        );
        assert_eq!(
            as_printed_alone(log, |_| false),
            concat!(
                " FAIL  a.test.js\n",
                "    → expected 9 to be 10\n",
                "  at total (src/a.js:3:9)\n",
                "  File \"/app/db.py\", line 18, in connect\n",
                "error: boom\n",
                "  at x (a.js:1:2)\n",
                "       > 4 | test('x', () => {\n",
                "FAIL src/a.test.js\n",
                "  ● total\n",
                "not ok 1 - total\n",
                "error TS2322: x\n",
                "Traceback (most recent call last):\n",
                "[ 50%] FAILED tests/a.py::test_b\n",
                "[info] - total *** FAILED ***\n[ERROR] boom\n[WARNING]: no inventory\n[1/4] Resolving packages...\n",
                "Tasks:    0 successful, 1 total",
            )
        );
        assert!(matches!(
            as_printed_alone("a.py:3: error: x\n  code\n", |_| false),
            Cow::Borrowed(_)
        ));
    }

    /// TOOL-8: concurrently's names in brackets are left out where three
    /// in four lines carry one, a process's name under them too; sbt's
    /// levels, a few bracketed lines and a form's markers are not names.
    #[test]
    fn tool_8_names_in_brackets_on_most_lines_are_left_out() {
        let run = "[api] FAIL src/a.test.js\n[web] packages/web test:   ● total\n\n[api]   expected 3\nplain line\n[api] Tests: 1 failed\n";
        assert_eq!(
            as_printed_alone(run, |_| false),
            "FAIL src/a.test.js\n  ● total\n\n  expected 3\nplain line\nTests: 1 failed\n"
        );
        let sbt =
            "[info] compiling\n[info] - total *** FAILED ***\n[error] Failed tests:\n[error] \tCartSpec\n";
        assert_eq!(as_printed_alone(sbt, |_| false), sbt);
        let few = "[api] a\nb\nc\n[api] d\n";
        assert_eq!(as_printed_alone(few, |_| false), few);
        let form = "[api] FAIL a\n[… 30 lines …]\n[api] b\n[… 2 lines …]\n[api] c\n[api] d\n";
        assert_eq!(
            as_printed_alone(form, |l| l.starts_with("[… ")),
            "FAIL a\n[… 30 lines …]\nb\n[… 2 lines …]\nc\nd\n"
        );
        assert_eq!(as_printed_alone(form, |_| false), form);
    }

    /// TOOL-8: a name in brackets is a lower-case word of letters, digits
    /// and `_.-`, at most 32 bytes, opening its line; the lines carrying
    /// one may start after the first, and four lines are enough.
    #[test]
    fn tool_8_a_bracketed_name_is_a_short_lower_case_word() {
        assert_eq!(bracketed_name("[web1] x"), Some("web1"));
        assert_eq!(bracketed_name("[a_b.c-1] x"), Some("a_b.c-1"));
        for line in [
            "[API] x",
            "[9abc] x",
            "[a b] x",
            "[web+1] x",
            "[api]x",
            " [api] x",
        ] {
            assert_eq!(bracketed_name(line), None, "{line}");
        }
        assert_eq!(bracketed_name(&format!("[{}] x", "a".repeat(33))), None);
        assert_eq!(
            bracketed_name(&format!("[{}] x", "a".repeat(32))).map(str::len),
            Some(32)
        );
        let later = "starting\n[api] a\n[api] b\n[api] c\n[api] d\n";
        assert_eq!(bracketed_names(later, |_| false), ["api"]);
        let four = "[api] a\n[web] b\n[api] c\n[api] d\n";
        assert_eq!(bracketed_names(four, |_| false), ["api", "web"]);
        assert!(bracketed_names("[api] a\n[api] b\n[api] c\n", |_| false).is_empty());
        // Three in four is enough.
        assert_eq!(
            bracketed_names("[api] a\nplain\n[api] c\n[api] d\n", |_| false),
            ["api"]
        );
    }
}

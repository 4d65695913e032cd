//! What a tool puts before the lines of the processes it runs, and a
//! report's gutter: taken off a line before it is judged.

use std::sync::OnceLock;

use regex::Regex;

use super::compiled;

/// The name a tool that runs several processes puts before each line of
/// theirs: Docker Compose's service (`api-1  | `, `api_1  | `), Turborepo's
/// package and task (`web:build: `, `@shop/ui:test: `), pnpm's package
/// directory and script in a recursive run (`packages/api test: `, for
/// the scripts such runs are for), BuildKit's step and time under a
/// `docker build` step that prints (`#9 31.20 `).
///
/// A file's name is no package's (`a.py:ENCODING: x`, as `grep` prints a
/// match, keeps its name).
pub(super) const STREAM_PREFIX: &str = concat!(
    r"[\w.-]+[-_]\d+ +\| |[@A-Za-z_][@\w/-]*:[A-Za-z][\w-]*: |#\d+ \d+\.\d+ ",
    r"|[@A-Za-z_][@\w-]*(?:/[@\w-]+)+ (?:test|build|lint|check|typecheck|type-check|compile|e2e|ci)(?::[\w-]+)?: ",
);

/// `line` without the [`STREAM_PREFIX`] of the process that printed it:
/// what the process printed is judged as it would be alone.
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
    match compiled(&RE, &format!("^(?:{STREAM_PREFIX})")).find(line) {
        Some(prefix) => &line[prefix.end()..],
        None => without_gutter(line),
    }
}

/// `line` without the gutter PHPUnit's TestDox report draws under a
/// failing test (`   │ Failed asserting that 15.0 is identical to 16.0.`,
/// `   │ /app/tests/CartTest.php:9`): the text is judged as printed alone.
/// A code frame's gutter, which a line number or marks follow (`  4 │
/// let x`, `    │   ^^^`), stays.
///
/// ```
/// # use strata_ctx_compress::{line_kind, LineKind};
/// assert_eq!(line_kind("   │ /app/tests/CartTest.php:9"), LineKind::Context);
/// ```
fn without_gutter(line: &str) -> &str {
    let indented = line.starts_with([' ', '\t']);
    match line.trim_start().strip_prefix("│ ") {
        Some(rest) if indented && rest.starts_with(|c: char| !c.is_whitespace() && c != '^') => rest,
        _ => line,
    }
}

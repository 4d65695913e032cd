//! The end of a Python traceback: the exception it ends on, named in
//! failure's words or not, and the lines that go on with its message.

use std::sync::OnceLock;

use regex::Regex;

use super::compiled;
use super::place::{lines_above, span_in};

/// An exception's class, and its message, as a Python traceback ends on
/// them in no failure's words: a dotted name ending on a class
/// (`shop.models.Item.DoesNotExist: Item matching query does not exist.`,
/// a private one too: `numpy.core._exceptions._UFuncNoLoopError: …`), a
/// class's inner class (Django's `Product.DoesNotExist: Product matching
/// query does not exist.`, as a model's manager raises it) or one
/// CamelCase name (`TimeoutExpired: Command 'make' timed out`).
pub(super) const EXCEPTION_NAME: &str = r"^(?:[a-z_]\w*(?:\.\w+)*\._*[A-Z]\w*|[A-Z][0-9A-Za-z_]*(?:\.[A-Z][0-9A-Za-z_]*)+|[A-Z][a-z]+(?:[A-Z][a-z]+)+)(?::\s|$)";

/// How many indented lines (frames, their code, carets) a Python
/// traceback may hold above its exception for [`ends_traceback`].
const TRACEBACK_REACH: usize = 2_000;

/// Whether `line`, a line of `text`, is the exception a Python traceback
/// ends on: unindented, under the traceback's indented frames, which
/// `Traceback (most recent call last):` heads. A warning raised as an
/// exception (`DeprecationWarning: numpy.core is deprecated`, under
/// `-W error` or pytest's `filterwarnings = error`) failed the run, and so
/// did an exception named in no failure's words ([`EXCEPTION_NAME`]).
pub(super) fn ends_traceback(text: &str, line: &str) -> bool {
    if line.starts_with([' ', '\t']) {
        return false;
    }
    let (start, _) = span_in(text, line);
    let mut above = lines_above(text.as_bytes(), start).take(TRACEBACK_REACH);
    let first = above.next().and_then(|(s, e)| text.get(s..e));
    if !first.is_some_and(|l| l.starts_with([' ', '\t'])) {
        return false;
    }
    above
        .filter_map(|(s, e)| text.get(s..e))
        .find(|l| !l.starts_with([' ', '\t']))
        .is_some_and(|heading| heading.trim_end() == "Traceback (most recent call last):")
}

/// The most lines a Python exception's message goes on over
/// ([`exception_continued`]).
const EXCEPTION_LINES: usize = 3;

/// The lines that go on with the message of `line`, a line of `text`
/// that ends a Python traceback ([`ends_traceback`]), given `after`, the
/// text that follows it (from the end of its line): Python prints a
/// message of several lines as it is, each at the line's start, so the
/// plain lines with text right under the exception are its message
/// (SQLAlchemy's `[SQL: INSERT INTO items (sku, name) VALUES (?, ?)]` and
/// `[parameters: ('sku-3', 'dup')]` under `sqlalchemy.exc.IntegrityError:
/// … UNIQUE constraint failed: items.sku`), at most [`EXCEPTION_LINES`],
/// up to a blank, indented or other line, or a log record (a program that
/// logs the exception goes on logging: `2026-12-03 16:42:56,848 INFO …`).
pub(crate) fn exception_continued<'a>(
    text: &str,
    line: &str,
    after: &'a str,
) -> impl Iterator<Item = &'a str> {
    let lines: Vec<&str> = after
        .split('\n')
        .skip(1)
        .map(|l| l.trim_end_matches('\r'))
        .take_while(|l| {
            !l.starts_with([' ', '\t']) && !log_record().is_match(l) && super::is_announced_message(l)
        })
        .take(EXCEPTION_LINES)
        .collect();
    // The walk up to the traceback's heading only for a failure with such
    // lines under it: most have none.
    let ends = !lines.is_empty() && line.contains(": ") && ends_traceback(text, line);
    lines.into_iter().filter(move |_| ends)
}

/// A line a logger printed: it starts with a date or a time, or a level.
fn log_record() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"^\[?(?:\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d)|^\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|CRITICAL|FATAL)\b",
    )
}

/// [`EXCEPTION_NAME`].
pub(super) fn exception_name() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, EXCEPTION_NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TOOL-8: the lines right under the exception a traceback ends on go
    /// on with its message, at the line's start and up to a blank line; a
    /// log record the program prints next, an indented line, or lines
    /// under an exception that ends no traceback do not.
    #[test]
    fn tool_8_an_exception_s_message_goes_on_under_it() {
        let traceback =
            "Traceback (most recent call last):\n  File \"app.py\", line 24, in <module>\n    s.commit()\n";
        // The exception is the first line of `rest`, under the traceback.
        let continued = |rest: &str| {
            let text = format!("{traceback}{rest}");
            let end = traceback.len() + rest.find('\n').unwrap_or(rest.len());
            exception_continued(&text, &text[traceback.len()..end], &text[end..])
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            continued("sqlalchemy.exc.IntegrityError: UNIQUE constraint failed: items.sku\n[SQL: INSERT INTO items (sku) VALUES (?)]\n[parameters: ('sku-3',)]\n\nmore\n"),
            ["[SQL: INSERT INTO items (sku) VALUES (?)]", "[parameters: ('sku-3',)]"]
        );
        assert!(
            continued("ValueError: bad qty\n2026-12-03 16:42:56,848 INFO sync: synced batch 903\n")
                .is_empty()
        );
        assert!(continued("ValueError: bad qty\nINFO:app:retrying\n").is_empty());
        assert!(continued("ValueError: bad qty\n    indented\n").is_empty());
        let text = "ValueError: bad qty\n[SQL: SELECT 1]\n";
        assert!(exception_continued(text, "ValueError: bad qty", &text[19..])
            .next()
            .is_none());
    }
}

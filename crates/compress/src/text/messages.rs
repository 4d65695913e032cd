//! The lines a failure line leaves unsaid, added to those the search for
//! diagnostic lines found (TOOL-8).

use crate::diagnose::{self, LineKind};

/// Adds to `spans` the lines that say what a failure line leaves unsaid:
/// the message a failure line that ends with a colon announces (Rust's
/// `thread 'x' panicked at src/a.rs:3:5:` above `called `Option::unwrap()`
/// on a `None` value`, [`diagnose::announced_message`]), the deeper
/// lines that elaborate one (TypeScript's `  Type 'undefined' is not
/// assignable to type 'Item'.`, [`diagnose::elaboration`]), and the lines
/// between a numbered heading and its failure, which name the test
/// (Mocha's `1) Cart` over `#total()` over `applies no discount:`), and
/// the value under an operand's heading (doctest's `Got:` over `    x`,
/// [`diagnose::value_under`]), and the headed values under an announced
/// message (Catch2's `with expansion:` over `  3 == 4`,
/// [`diagnose::values_after`]), and the label a compiler prints under the
/// code its error points at (rustc's `^^^ expected `u32`, found `&str``,
/// [`diagnose::is_caret_label`]). The lines of `head` (the kept first
/// lines, as spans) bring theirs too: a build's first error may be its
/// third line. Only lines within `middle` (a range of `text`) are added.
pub(super) fn with_announced_messages(
    text: &str,
    head: &[(usize, usize)],
    middle: std::ops::Range<usize>,
    spans: &mut Vec<(usize, usize)>,
) {
    let end = middle.end;
    let mut added: Vec<(usize, usize)> = Vec::new();
    for &(start, stop) in head.iter().chain(spans.iter()) {
        let (Some(line), Some(after)) = (text.get(start..stop), text.get(stop..end)) else {
            continue;
        };
        let failure = || diagnose::line_kind(line) == LineKind::Failure;
        // What a compiler says at the place it points at (rustc's `^^^
        // expected `u32`, found `&str``), under the diagnostic's heading.
        if diagnose::is_compiler_heading(line) {
            added.extend(lines_under(
                text,
                after,
                diagnose::LABEL_REACH,
                diagnose::is_caret_label,
            ));
        }
        // A Python exception's message of several lines.
        if failure() {
            added
                .extend(diagnose::exception_continued(text, line, after).map(|m| diagnose::span_in(text, m)));
        }
        let mut elaboration = diagnose::elaboration(line, after).peekable();
        let mut value = diagnose::value_under(line, after).peekable();
        if diagnose::announces_message(line) && failure() {
            added.extend(announced(text, after));
            // A list under its heading (behave's `Failing scenarios:` over
            // each scenario's place).
            added.extend(elaboration.map(|m| diagnose::span_in(text, m)));
        } else if elaboration.peek().is_some() && failure() {
            added.extend(elaboration.map(|m| diagnose::span_in(text, m)));
        } else if value.peek().is_some() {
            added.extend(value.map(|m| diagnose::span_in(text, m)));
        } else if diagnose::is_numbered_heading(line)
            && diagnose::line_kind_in(text, line) == LineKind::Failure
        {
            added.extend(lines_under(text, after, diagnose::HEADING_REACH, |l| {
                !l.trim().is_empty()
            }));
        }
    }
    added.retain(|&(start, _)| middle.contains(&start));
    if !added.is_empty() {
        spans.extend(added);
        spans.sort_unstable();
        spans.dedup();
    }
}

/// The spans in `text` of the message a failure line announces, given
/// `after`, the text from the failure line's end
/// ([`diagnose::announced_lines`]).
fn announced(text: &str, after: &str) -> Vec<(usize, usize)> {
    diagnose::announced_lines(after)
        .into_iter()
        .map(|m| diagnose::span_in(text, m))
        .collect()
}

/// The spans in `text` of the lines among the `reach` under the one
/// `after` goes on from, up to the next failure line, that `wanted`
/// takes.
fn lines_under<'t>(
    text: &'t str,
    after: &'t str,
    reach: usize,
    wanted: impl Fn(&str) -> bool + 't,
) -> impl Iterator<Item = (usize, usize)> + 't {
    after
        .split('\n')
        .skip(1)
        .take(reach)
        .take_while(|l| diagnose::line_kind(l) != LineKind::Failure)
        .filter(move |l| wanted(l))
        .map(move |l| diagnose::span_in(text, l.trim_end_matches('\r')))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines `announced` finds under the first line of `text`.
    fn announced_lines(text: &str) -> Vec<&str> {
        let first = text.find('\n').unwrap_or(text.len());
        announced(text, &text[first..])
            .into_iter()
            .map(|(start, stop)| &text[start..stop])
            .collect()
    }

    /// TOOL-8: a failure's announced message comes with what goes on under
    /// it: the value it heads (GoogleTest), the headed values under it
    /// (Catch2), the message it announces in turn when it ends with a
    /// colon at the line's start (Robot Framework), and no more.
    #[test]
    fn tool_8_an_announced_message_comes_with_what_it_announces() {
        let robot = "Lists Are Equal          | FAIL |\nLists are different:\nIndex 1: b != c\n-----\n";
        assert_eq!(
            announced_lines(robot),
            ["Lists are different:", "Index 1: b != c"]
        );
        let robot = "Discount TEN          | FAIL |\nTotal 90.0 != 90.5\nnext line\n";
        assert_eq!(announced_lines(robot), ["Total 90.0 != 90.5"]);
        let gtest = "a_test.cpp:4: Failure\nExpected equality of these values:\n  total\n    Which is: 9\n  10\n[  FAILED  ] T.A (0 ms)\n";
        assert_eq!(
            announced_lines(gtest),
            [
                "Expected equality of these values:",
                "  total",
                "    Which is: 9",
                "  10"
            ]
        );
        let catch2 =
            "t.cpp:20: FAILED:\n  CHECK( i < 18 )\nwith expansion:\n  18 < 18\n\nt.cpp:21: FAILED:\n";
        assert_eq!(
            announced_lines(catch2),
            ["  CHECK( i < 18 )", "with expansion:", "  18 < 18"]
        );
        // Two levels at most: a third colon announces nothing more.
        let deep = "error: a:\nb:\nc:\nd\n";
        assert_eq!(announced_lines(deep), ["b:", "c:"]);
    }
}

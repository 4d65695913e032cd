//! The lines a failure line leaves unsaid, added to those the search for
//! diagnostic lines found (TOOL-8).

use crate::diagnose::{self, LineKind};

/// Adds to `spans` the lines that say what a failure line leaves unsaid:
/// the message a failure line that ends with a colon announces (Rust's
/// `thread 'x' panicked at src/a.rs:3:5:` above `called `Option::unwrap()`
/// on a `None` value`, with the values and messages it heads in turn,
/// [`diagnose::message_lines`]), the deeper lines that elaborate one
/// (TypeScript's `  Type 'undefined' is not assignable to type 'Item'.`,
/// [`diagnose::elaboration`]), and the lines
/// between a numbered heading and its failure, which name the test
/// (Mocha's `1) Cart` over `#total()` over `applies no discount:`), and
/// the value under an operand's heading (doctest's `Got:` over `    x`,
/// [`diagnose::value_under`]), and the label a compiler prints under the
/// code its error points at (rustc's `^^^ expected `u32`, found `&str``,
/// [`diagnose::is_caret_label`]), and the causes an error's chain lists
/// under `Caused by:` ([`diagnose::causes_under`]), and the example a
/// doctest failed at over its `Expected:`. The lines of `head` (the kept first
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
        // The causes an error's chain lists under `Caused by:` (anyhow's,
        // Cargo's).
        added.extend(diagnose::causes_under(line, after).map(|m| diagnose::span_in(text, m)));
        // The example a doctest failed at, over its `Expected:` (as
        // pytest lists the docstring up to it).
        added.extend(diagnose::failed_example_above(text, line));
        // A Python exception's message of several lines.
        if failure() {
            added
                .extend(diagnose::exception_continued(text, line, after).map(|m| diagnose::span_in(text, m)));
            // The message fields of the payload an error opens (`ZodError: [`).
            added.extend(
                diagnose::payload_messages(line, after)
                    .into_iter()
                    .map(|m| diagnose::span_in(text, m)),
            );
            // The field a Pydantic error is about, above it.
            added.extend(
                diagnose::lines_above(text.as_bytes(), start)
                    .next()
                    .filter(|&(s, e)| {
                        text.get(s..e)
                            .is_some_and(|above| diagnose::field_above(line, above))
                    }),
            );
        }
        let mut elaboration = diagnose::elaboration(line, after).peekable();
        let mut value = diagnose::value_under(line, after).peekable();
        if diagnose::announces_message(line) && failure() {
            // Its message, and a list under it as a heading (behave's
            // `Failing scenarios:` over each scenario's place).
            added.extend(
                diagnose::message_lines(line, after)
                    .into_iter()
                    .map(|m| diagnose::span_in(text, m)),
            );
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

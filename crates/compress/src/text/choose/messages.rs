//! The lines that carry each failure's message (TOOL-8).

use super::{line_str, Line};
use crate::diagnose::{self, LineKind, NEXT_OPERAND_REACH, OPERAND_REACH};

/// A line that carries a failure's message, and the failure's.
#[derive(Debug, Clone, Copy)]
pub(in crate::text) struct Message {
    /// The message's line.
    pub(in crate::text) line: Line,
    /// The number of the failure line whose message it is: the message
    /// says nothing without it.
    pub(in crate::text) failure: usize,
}

/// The message of each failure: an assertion's operand (`Expected: 3`,
/// `left: 3`) or matcher at most three lines after the failure (a blank
/// and a label may stand between: Playwright's `Locator: getByTestId(…)`
/// above `Expected string: "Paid"`) or two after the previous such line;
/// the first line with text among the two after a failure that ends with
/// a colon (`… panicked at src/a.rs:3:5:`,
/// [`diagnose::announced_message`]), with the values it heads and those
/// headed under it (GoogleTest's `Expected equality of these values:`,
/// Catch2's `with expansion:`, [`diagnose::is_value_heading`]); and the
/// lines between a numbered heading and its failure, which name the
/// test; and the deeper-indented
/// lines right under a failure that elaborate it
/// ([`diagnose::elaboration`]).
pub(in crate::text) fn messages_of_failures(text: &str, all: &[(Line, LineKind)]) -> Vec<Message> {
    /// The last line a message may follow.
    enum Anchor {
        None,
        /// A failure: operands may follow it.
        Line(usize),
        /// An operand: more operands may follow it.
        Operand(usize),
        /// A failure that announces its message.
        Announces(usize),
        /// A numbered heading: the test's name follows it.
        Heading(usize),
        /// An operand's heading, or a line of its value: (more of) its
        /// value follows it (doctest's `Got:` over `    x`).
        Value(usize),
    }
    impl Anchor {
        /// The line an operand may follow, and how far under it.
        fn operand_reach(&self) -> Option<(usize, usize)> {
            match *self {
                Anchor::None => None,
                Anchor::Line(n) | Anchor::Announces(n) | Anchor::Heading(n) => Some((n, OPERAND_REACH)),
                Anchor::Operand(n) | Anchor::Value(n) => Some((n, NEXT_OPERAND_REACH)),
            }
        }
    }
    let mut attached: Vec<Message> = Vec::new();
    let mut anchor = Anchor::None;
    let mut elaborations = diagnose::Elaborations::default();
    let mut failure: Option<usize> = None;
    // Where each line that goes on with an exception's message starts.
    let mut continued: Vec<usize> = Vec::new();
    // Where the payload the last failure opened ends ([`diagnose::payload_lines`]).
    let mut payload_end = 0;
    let mut previous: Option<&Line> = None;
    for (l, k) in all {
        let line = line_str(text, l);
        // The field a Pydantic error is about, right above it.
        let above = previous.replace(l);
        if let Some(field) = above.filter(|a| a.number + 1 == l.number) {
            if *k == LineKind::Failure && diagnose::field_above(line, line_str(text, field)) {
                attached.push(Message {
                    line: *field,
                    failure: l.number,
                });
            }
        }
        if *k == LineKind::Plain && continued.contains(&l.start) {
            attached.push(Message {
                line: *l,
                failure: failure.unwrap_or(l.number),
            });
            continue;
        }
        // The rest of the payload an error opens is its shape (a failure's
        // word among its keys, `"errors": [`, too): no message, no failure.
        if l.start < payload_end {
            continue;
        }
        let within = |n: usize, reach: usize| l.number > n && l.number <= n + reach;
        // Every message stands under a failure: the last one met.
        let message = Message {
            line: *l,
            failure: failure.unwrap_or(l.number),
        };
        if elaborations.elaborates(l.number, *k, line) {
            attached.push(message);
            continue;
        }
        // What a compiler says at the place its diagnostic points at.
        if *k == LineKind::Context
            && failure.is_some_and(|n| within(n, diagnose::LABEL_REACH))
            && diagnose::is_caret_label(line)
        {
            attached.push(message);
            continue;
        }
        if *k == LineKind::Failure {
            // The code a bare `assert` ran, over its `AssertionError`.
            attached.extend(
                super::frames::code_over_bare_exception(text, l).map(|code| Message {
                    line: code,
                    failure: l.number,
                }),
            );
            failure = Some(l.number);
            let after = text.get(l.end..).unwrap_or_default();
            let payload = diagnose::payload_lines(line, after);
            payload_end = after
                .split_inclusive('\n')
                .take(payload + 1)
                .fold(l.end, |end, line| end + line.len());
            continued = diagnose::exception_continued(text, line, after)
                .chain(diagnose::payload_messages(line, after))
                .map(|m| diagnose::span_in(text, m).0)
                .collect();
        }
        match (k, &anchor) {
            (LineKind::Failure, _) => {
                anchor = if diagnose::announces_message(line) {
                    Anchor::Announces(l.number)
                } else if diagnose::is_numbered_heading(line) {
                    Anchor::Heading(l.number)
                } else {
                    Anchor::Line(l.number)
                }
            }
            (LineKind::Context, _)
                if anchor.operand_reach().is_some_and(|(n, reach)| within(n, reach))
                    && diagnose::is_operand(line) =>
            {
                attached.push(message);
                let after = text.get(l.end..).unwrap_or_default();
                anchor = if diagnose::value_under(line, after).next().is_some() {
                    Anchor::Value(l.number)
                } else {
                    Anchor::Operand(l.number)
                };
            }
            // A value's heading (Catch2's `with expansion:`): its value
            // follows it.
            (LineKind::Plain | LineKind::Context, _)
                if anchor.operand_reach().is_some_and(|(n, reach)| within(n, reach))
                    && diagnose::is_value_heading(line) =>
            {
                attached.push(message);
                anchor = Anchor::Value(l.number);
            }
            // An operand's value under its heading; the next operand may
            // follow it.
            (LineKind::Plain, Anchor::Value(n))
                if within(*n, 1) && line.starts_with([' ', '\t']) && !line.trim().is_empty() =>
            {
                attached.push(message);
                anchor = Anchor::Value(l.number);
            }
            // An indented message may go on under it, as deep (GHC's hints,
            // [`diagnose::message_continued`]).
            (LineKind::Plain, Anchor::Announces(n)) if within(*n, 2) && !line.trim().is_empty() => {
                attached.push(message);
                anchor = if line.starts_with([' ', '\t']) || diagnose::is_value_heading(line) {
                    Anchor::Value(l.number)
                } else if diagnose::announces_message(line) {
                    // A message that announces one more (Robot
                    // Framework's `Lists are different:`).
                    Anchor::Announces(l.number)
                } else {
                    Anchor::Operand(l.number)
                };
            }
            (LineKind::Plain, Anchor::Heading(n))
                if within(*n, diagnose::HEADING_REACH) && !line.trim().is_empty() =>
            {
                attached.push(message);
            }
            _ => {}
        }
    }
    attached
}

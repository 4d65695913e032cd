//! The lines above a failure that say which file or which test it is
//! about (TOOL-8).

use std::collections::HashSet;

use super::frames::is_arrow_place;
use super::{failure_runs, line_after, line_str, Line};
use crate::diagnose;

/// The line naming the file an indented finding is about
/// ([`diagnose::file_heading_above`]): without it the finding says where
/// in a file, not in which.
pub(super) fn file_heading(text: &str, finding: &Line) -> Option<Line> {
    above(
        finding,
        diagnose::file_heading_above(text.as_bytes(), finding.start)?,
    )
}

/// How many lines of a code excerpt may stand between a failure and the
/// place heading it ([`place_over_excerpt`]): a blank line, the code
/// lines a compiler quotes and the line of its caret.
const EXCERPT_REACH: usize = 6;

/// The place heading the code excerpt right above a failure, as gfortran
/// and Crystal print an error: `mod3.f90:21:17:` (Crystal's `In
/// src/shop.cr:16:10`), a blank line, the code with its line number and
/// the caret under it, then `Error: Symbol ‘beta3’ at (1) has no IMPLICIT
/// type`. Without it the failure says what, not where. Only excerpt lines
/// (a gutter, `   21 |     r = r + beta3`, `      |     1`) and blank lines
/// may stand between, the nearest an excerpt line ([`excerpt_above`]): a
/// place right above its failure is its context already.
pub(super) fn place_over_excerpt(text: &str, failure: &Line) -> Option<Line> {
    let place = excerpt_above(text, failure)?.find(|l| {
        let said = line_str(text, l);
        !(said.trim().is_empty() || diagnose::is_excerpt_line(said))
    })?;
    let said = diagnose::without_colours(line_str(text, &place));
    let said = said.as_ref();
    (diagnose::is_located(said) && !diagnose::is_pointed_code(said) && !is_arrow_place(said)).then_some(place)
}

/// The code line the excerpt right above a failure quotes (`   21 |     r
/// = r + beta3` over its caret line): what the caret under it points at.
pub(super) fn quoted_code_above(text: &str, failure: &Line) -> Option<Line> {
    excerpt_above(text, failure)?
        .take_while(|l| {
            let line = line_str(text, l);
            line.trim().is_empty() || diagnose::is_excerpt_line(line)
        })
        .find(|l| diagnose::is_quoted_code(line_str(text, l)))
}

/// The lines within [`EXCERPT_REACH`] above `failure`, the nearest first,
/// when the nearest is a line of an excerpt and the failure is not: a
/// blank line between closes another diagnostic's excerpt (rustc's, whose
/// place stands under its message), and a caret's label (rustc's `   |
/// ^^^ required by this bound in …` under a note's place) is part of one.
fn excerpt_above<'t>(text: &'t str, failure: &'t Line) -> Option<impl Iterator<Item = Line> + 't> {
    if diagnose::is_excerpt_line(line_str(text, failure)) {
        return None;
    }
    let mut lines = diagnose::lines_above(text.as_bytes(), failure.start)
        .take(EXCERPT_REACH + 1)
        .enumerate()
        .map_while(move |(up, (start, end))| above(failure, (start, end, up + 1)))
        .peekable();
    lines
        .peek()
        .is_some_and(|l| diagnose::is_excerpt_line(line_str(text, l)))
        .then_some(lines)
}

/// The line of input TeX stopped at, under its error
/// ([`diagnose::context::is_tex_input_line`]: `l.20 Each block has width w_` under
/// `! Missing $ inserted.`, `<inserted text>` and the `$` it inserted):
/// without it the error says what, not where. The nearest within
/// [`diagnose::context::TEX_INPUT_REACH`] lines, before another failure.
pub(super) fn input_line_under(text: &str, failure: &Line) -> Option<Line> {
    let down = diagnose::context::input_line_below(text.as_bytes().get(failure.end..)?)?;
    std::iter::successors(line_after(text, failure), |l| line_after(text, l)).nth(down - 1)
}

/// The title of the section a failure is in
/// ([`diagnose::section_title_above`]): which test failed, where the
/// failure says only how.
fn section_title(text: &str, failure: &Line) -> Option<Line> {
    above(
        failure,
        diagnose::section_title_above(text.as_bytes(), failure.start)?,
    )
}

/// The titles of the sections the runs of `failures` are in
/// ([`section_title`]), the latest first, each once, but those `seen`
/// among the diagnostic lines.
pub(super) fn section_titles(text: &str, failures: &[Line], seen: &HashSet<&str>) -> Vec<Line> {
    let mut titled = HashSet::new();
    failure_runs(text, failures)
        .rev()
        .filter_map(|(first, _)| section_title(text, &first))
        .filter(|t| !seen.contains(line_str(text, t)) && titled.insert(t.number))
        .collect()
}

/// The line spanning `start..end`, `up` lines above `line`.
fn above(line: &Line, (start, end, up): (usize, usize, usize)) -> Option<Line> {
    Some(Line {
        number: line.number.checked_sub(up)?,
        start,
        end,
    })
}

/// The numbered heading (`1) cart`) within [`diagnose::HEADING_REACH`]
/// lines above `line`, if any: the test a failure under it belongs to
/// (Mocha's `1) cart` over `total of 0 items:` over `AssertionError …`).
pub(super) fn numbered_heading_above<'t>(text: &'t str, line: &Line) -> Option<&'t str> {
    diagnose::lines_above(text.as_bytes(), line.start)
        .take(diagnose::HEADING_REACH)
        .filter_map(|(start, end)| text.get(start..end))
        .find(|above| diagnose::is_numbered_heading(above))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TOOL-8: a heading or a title is numbered by how far above the
    /// failure it stands.
    #[test]
    fn a_line_above_is_numbered_from_the_failure() {
        let log = "____ test_a ____\n\n>       assert 1 == 2\nE       assert 1 == 2\n";
        let start = log.find("E ").unwrap_or_default();
        let failure = Line {
            number: 7,
            start,
            end: log.len() - 1,
        };
        assert_eq!(
            section_title(log, &failure),
            Some(Line {
                number: 4,
                start: 0,
                end: 16
            })
        );
        let first = Line {
            number: 0,
            start,
            end: log.len() - 1,
        };
        assert_eq!(section_title(log, &first), None);
        let stylish = "src/app.js\n  2:10  error  'x' is never used  no-unused-vars\n";
        let start = stylish.find("  2:").unwrap_or_default();
        let finding = Line {
            number: 1,
            start,
            end: stylish.len() - 1,
        };
        assert_eq!(
            file_heading(stylish, &finding),
            Some(Line {
                number: 0,
                start: 0,
                end: 10
            })
        );
    }

    /// TOOL-8: each run of failures brings its section's title once, the
    /// latest first; a title above no failure, or already kept as a
    /// diagnostic line, is not brought.
    #[test]
    fn each_failing_section_brings_its_title_once() {
        let log =
            "____ test_a ____\nE   one\nx\ny\nE   two\n____ test_b ____\nok\n____ test_c ____\nE   three\n";
        let mut failures = Vec::new();
        let mut start = 0;
        for (number, line) in log.split('\n').enumerate() {
            let end = start + line.len();
            if line.starts_with("E ") {
                failures.push(Line { number, start, end });
            }
            start = end + 1;
        }
        let titles = |seen: &HashSet<&str>| -> Vec<usize> {
            section_titles(log, &failures, seen)
                .iter()
                .map(|l| l.number)
                .collect()
        };
        assert_eq!(titles(&HashSet::new()), [7, 0]);
        assert_eq!(titles(&HashSet::from(["____ test_c ____"])), [0]);
    }

    /// The `n`th line of `text`.
    fn nth(text: &str, n: usize) -> Line {
        let start: usize = text.split('\n').take(n).map(|l| l.len() + 1).sum();
        let end = start + text[start..].find('\n').unwrap_or(text.len() - start);
        Line {
            number: n,
            start,
            end,
        }
    }

    /// The number of the place over the excerpt above the `n`th line, and
    /// of the code line it quotes.
    fn excerpt_of(text: &str, n: usize) -> (Option<usize>, Option<usize>) {
        let failure = nth(text, n);
        (
            place_over_excerpt(text, &failure).map(|l| l.number),
            quoted_code_above(text, &failure).map(|l| l.number),
        )
    }

    /// TOOL-8: gfortran's and Crystal's errors stand under the code they
    /// quote, and that under the place: the failure brings both, across
    /// the blank line and the caret.
    #[test]
    fn tool_8_a_failure_under_its_excerpt_brings_its_place_and_code() {
        let gfortran =
            "gfortran -c mod3.f90\nmod3.f90:21:17:\n\n   21 |     r = r + beta3\n      |                 1\n\
                        Error: Symbol ‘beta3’ at (1) has no IMPLICIT type\n";
        assert_eq!(excerpt_of(gfortran, 5), (Some(1), Some(3)));
        let crystal = "In src/shop.cr:16:10\n\n 16 | cart.add(\"three\")\n               ^\n\
                       Error: expected argument #1 to 'Cart#add' to be Int32, not String\n";
        assert_eq!(excerpt_of(crystal, 4), (Some(0), Some(2)));
        // The place is the first printed line above the excerpt, within reach.
        let far = format!("a.f90:1:1:\n{}Error: x\n", "   1 | x\n".repeat(EXCERPT_REACH + 1));
        assert_eq!(excerpt_of(&far, EXCERPT_REACH + 2).0, None);
        let near = format!("a.f90:1:1:\n{}Error: x\n", "   1 | x\n".repeat(EXCERPT_REACH));
        assert_eq!(
            excerpt_of(&near, EXCERPT_REACH + 1),
            (Some(0), Some(EXCERPT_REACH))
        );
    }

    /// TOOL-8: a place that is not over the failure's own excerpt is none
    /// of its own: rustc's arrow under the message above, across the blank
    /// line that closes that message; a place right above the failure (its
    /// context already); a code line a frame points at; a caret's label,
    /// itself a line of the excerpt; a line that is no place.
    #[test]
    fn a_place_not_over_the_failure_s_excerpt_is_not_brought() {
        let rustc =
            "error[E0308]: mismatched types\n --> src/a.rs:3:5\n  |\n3 |     x\n  |     ^ expected `u32`\n\n\
                     error: aborting due to 1 previous error\n";
        assert_eq!(excerpt_of(rustc, 6), (None, None));
        let arrow =
            "error[E0308]: mismatched types\n --> src/a.rs:3:5\n  |\n3 |     x\n  |     ^\nerror: x\n";
        assert_eq!(excerpt_of(arrow, 5), (None, Some(3)));
        assert_eq!(excerpt_of(rustc, 4), (None, None));
        let adjacent = "src/a.svelte:3:14\nError: Type 'string' is not assignable to type 'number'.\n";
        assert_eq!(excerpt_of(adjacent, 1), (None, None));
        let pointed = "> 12 |     cart.totl\n     |          ^\nBuild worker exited with code: 1\n";
        assert_eq!(excerpt_of(pointed, 2), (None, None));
        let unplaced = "Compiling\n   1 | x\n     ^\nError: x\n";
        assert_eq!(excerpt_of(unplaced, 3), (None, Some(1)));
    }

    /// The number of the line of input under the `n`th line.
    fn input_of(text: &str, n: usize) -> Option<usize> {
        input_line_under(text, &nth(text, n)).map(|l| l.number)
    }

    /// TOOL-8: TeX prints the line of input it stopped at under its error,
    /// after what it inserted or had read and its help: the error brings
    /// the nearest, within reach and before the next error.
    #[test]
    fn tool_8_a_tex_error_brings_the_line_of_input_under_it() {
        let tex = "! Undefined control sequence.\nl.17   \\mathrm{Attn} = \\softmax\n   \\left(x\\right)\n\
                   ! Missing $ inserted.\n<inserted text> \n                $\nl.20 Each block has width w_\n";
        assert_eq!(input_of(tex, 0), Some(1));
        assert_eq!(input_of(tex, 3), Some(6));
        // Past another error, the line of input is that error's.
        let past = "! LaTeX Error: File `a.tex' not found.\n\nType X to quit.\n\
                    ./main.tex:21: Emergency stop.\n<read *>\nl.21 \\input{a}\n";
        assert_eq!(input_of(past, 0), None);
        assert_eq!(input_of(past, 3), Some(5));
        // The line of input stands within reach.
        let help = "   help\n".repeat(diagnose::context::TEX_INPUT_REACH - 1);
        let near = format!("! Missing $ inserted.\n{help}l.9 x\n");
        assert_eq!(input_of(&near, 0), Some(diagnose::context::TEX_INPUT_REACH));
        let far = format!("! Missing $ inserted.\n{help}   help\nl.9 x\n");
        assert_eq!(input_of(&far, 0), None);
        // No other line is a line of input.
        assert_eq!(input_of("! Missing $ inserted.\nl17 x\nline 17: x\n", 0), None);
    }
}

//! The lines above a failure that say which file or which test it is
//! about (TOOL-8).

use std::collections::HashSet;

use super::{failure_runs, line_str, Line};
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
}

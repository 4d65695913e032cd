//! The lines a failure prints under it to say why (TOOL-8).

use super::{failure_runs, line_after, line_str, Line};
use crate::diagnose::{self, LineKind};

/// The lines that detail the latest runs of failure lines: the block a
/// tool prints right under a failure, in no failure's words, to say why
/// it failed. pip's `ERROR: Cannot install requests==2.31.0 and
/// urllib3<1.21 because these package versions have conflicting
/// dependencies.` stands over `The conflict is caused by:` and, indented
/// under it, the requirements that clash.
///
/// For each of the last [`DETAILED_RUNS`] runs of failure lines (one other
/// line may stand between two of a run) that ends on an unindented line,
/// the latest first: a heading in words that ends with a colon under it
/// (blank lines between) and the indented lines under the heading, or
/// under the failure itself when it ends with a colon, within
/// [`DETAIL_REACH`] lines under the run; [`DETAIL_LINES`] at
/// most. Indented code under a failure's words (a listing of a file) is
/// no such block. They take spare room only, after the diagnostic lines
/// and the frames.
pub(super) fn details(text: &str, all: &[(Line, LineKind)]) -> Vec<Line> {
    let failures: Vec<Line> = all
        .iter()
        .filter(|(_, k)| *k == LineKind::Failure)
        .map(|(l, _)| *l)
        .collect();
    let ends = failure_runs(&failures)
        .map(|(_, last)| last)
        .filter(|l| !line_str(text, l).starts_with([' ', '\t']));
    let mut details = Vec::new();
    for end in ends.rev().take(DETAILED_RUNS) {
        let mut announced = line_str(text, &end).trim_end().ends_with(':');
        let mut line = end;
        let mut taken = 0;
        // Blank lines count towards the reach: a run of them ends the
        // walk, however long.
        for _ in 0..DETAIL_REACH {
            if taken == DETAIL_LINES {
                break;
            }
            let Some(next) = line_after(text, &line) else {
                break;
            };
            line = next;
            let shown = line_str(text, &line);
            if shown.trim().is_empty() && (taken == 0 || announced) {
                continue;
            }
            let plain = diagnose::line_kind_in(text, shown) == LineKind::Plain;
            if plain && taken == 0 && !announced && is_heading(shown) {
                announced = true;
            } else if !(plain && announced && shown.starts_with([' ', '\t'])) {
                break;
            }
            details.push(line);
            taken += 1;
        }
    }
    details
}

/// Whether `line` is a heading in words that announces the lines under it
/// (`The conflict is caused by:`): a capital, at most eight words, a colon
/// at the end.
fn is_heading(line: &str) -> bool {
    let Some(words) = line.trim_end().strip_suffix(':') else {
        return false;
    };
    words.starts_with(|c: char| c.is_ascii_uppercase())
        && words.split_whitespace().count() <= 8
        && words.chars().all(|c| c.is_alphanumeric() || " ,'-".contains(c))
}

/// How many runs of failure lines are detailed ([`details`]), the latest
/// first.
const DETAILED_RUNS: usize = 2;

/// The most lines that detail one run ([`details`]).
const DETAIL_LINES: usize = 4;

/// How far under a run its details may stand ([`details`]), blank lines
/// counted.
const DETAIL_REACH: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    /// The details `text` gets, each line's kind read in it.
    fn detailed(text: &str) -> Vec<&str> {
        let mut all = Vec::new();
        let mut start = 0;
        for (number, line) in text.split('\n').enumerate() {
            let end = start + line.len();
            all.push((Line { number, start, end }, diagnose::line_kind_in(text, line)));
            start = end + 1;
        }
        details(text, &all).iter().map(|l| line_str(text, l)).collect()
    }

    #[test]
    fn tool_8_a_block_under_a_heading_details_the_failure_above() {
        let pip = "ERROR: Cannot install a==1 and b<2 because these package versions have conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested b<2\n    a 1 depends on b>=2\n\nTo fix this you could try to:\n";
        assert_eq!(
            detailed(pip),
            [
                "The conflict is caused by:",
                "    The user requested b<2",
                "    a 1 depends on b>=2"
            ]
        );
        // Under a failure that ends with a colon, its indented lines.
        assert_eq!(
            detailed("error: could not resolve:\n  left-pad@2 (wanted by app)\n  right-pad@1\nnext\n"),
            ["  left-pad@2 (wanted by app)", "  right-pad@1"]
        );
        // Two failures one line apart are one run: what details it comes
        // after the second.
        assert!(detailed("error: could not resolve:\n  left-pad@2\nerror: gave up\n").is_empty());
        // At most DETAIL_LINES.
        let many = "error: these failed:\n".to_owned() + &"  one more\n".repeat(9);
        assert_eq!(detailed(&many).len(), DETAIL_LINES);
        // Within DETAIL_REACH lines, blank ones counted.
        let far = "error: these failed:\n".to_owned() + &"\n".repeat(DETAIL_REACH) + "  too far\n";
        assert!(detailed(&far).is_empty());
    }

    #[test]
    fn tool_8_a_log_going_on_or_code_under_a_failure_is_no_detail() {
        // The log goes on after the failure.
        assert!(
            detailed("thread 'main' panicked at src/lib.rs:3:5\ncompiling unit 501\n  indented\n").is_empty()
        );
        // A listing of a file: the failure's words are indented code.
        assert!(detailed("    if bad:\n        raise ValueError(\"Unrecognized line\")\n    for k in d:\n        if v is None:\n").is_empty());
        // A heading must be words: code that ends with a colon is not one.
        assert!(!is_heading("for type_, val in match.groupdict().items():"));
        assert!(!is_heading("the conflict is caused by:"));
        assert!(!is_heading("One two three four five six seven eight nine:"));
        assert!(is_heading("Possible solutions:"));
    }
}

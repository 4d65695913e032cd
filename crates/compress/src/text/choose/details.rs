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
pub(super) fn details(text: &str, failures: &[Line]) -> Vec<Line> {
    let ends = failure_runs(text, failures)
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

/// The assertion diffs under the latest failures: the legend jest and
/// Vitest print (`- Expected  - 1` over `+ Received  + 0`, a snapshot's `-
/// Snapshot  - 2` over `+ Received  + 2`, or `- Expected:` and `+
/// Received:` each over its value) and the changed
/// lines of the diff under it (`-   "b": 2,`): the values, which the
/// failure's words may leave out (`expect(received).toEqual(expected)`).
/// The legends within [`DETAIL_REACH`] lines under a run of failure
/// lines, the latest first, up to [`DIFFED_RUNS`] of them (runs with no
/// legend under them, a code frame's line that names an error, say, do
/// not count), each with up to [`DIFF_LINES`] changed lines of the block
/// under it; under unittest's `AssertionError: a != b`, the changed lines
/// of its ndiff ([`ndiff_under`]).
pub(super) fn assertion_diffs(text: &str, failures: &[Line]) -> Vec<Line> {
    failure_runs(text, failures)
        .rev()
        .filter_map(|(_, end)| diff_of(text, end))
        .take(DIFFED_RUNS)
        .flatten()
        .collect()
}

/// The assertion diff under `failure`, the last line of a run of failure
/// lines, or the one `failure` is the legend of ([`assertion_diffs`]):
/// its legend and changed lines, unittest's ndiff or a TAP block's diff;
/// `None` when none stands under it. What the model sees mid-round shows
/// the same lines under the last failure it shows.
fn diff_of(text: &str, failure: Line) -> Option<Vec<Line>> {
    let mut line = failure;
    // A failure that is its diff's legend (AVA's `Difference (-
    // actual, + expected):`), else a legend under the failure.
    let legend_itself = one_line_legend(line_str(text, &failure)).map(|_| failure);
    legend_itself
        .or_else(|| {
            (0..DETAIL_REACH).find_map(|_| {
                line = line_after(text, &line)?;
                let shown = line_str(text, &line);
                (legend_of(shown, '-', "Expected")
                    || legend_of(shown, '-', "Snapshot")
                    || one_line_legend(shown).is_some())
                .then_some(line)
            })
        })
        .map(|legend| diff_under(text, legend))
        .or_else(|| ndiff_under(text, failure))
        .or_else(|| tap_diff_under(text, failure))
}

/// The changed lines of the `difflib.ndiff` block unittest prints right
/// under `AssertionError: a != b` when it can diff the two values (`-
/// {'qty': 1, 'tags': ['x', 'y']}`, `?` hints and blank lines between, `+
/// {'qty': 2, 'tags': ['x']}`), up to [`DIFF_LINES`], and a sequence's
/// first difference above them (`First differing element 1:` over `'b'`
/// and `'c'`); `None` under any other line, or when no such block
/// follows.
fn ndiff_under(text: &str, assertion: Line) -> Option<Vec<Line>> {
    let said = diagnose::without_colours(line_str(text, &assertion));
    if !(said.starts_with("AssertionError: ") && said.contains(" != ")) {
        return None;
    }
    let mut kept = Vec::new();
    let (mut blanks, mut values) = (0, 0);
    for (line, shown) in lines_under(text, assertion).take(DIFF_REACH) {
        if shown.trim().is_empty() {
            blanks += 1;
            if blanks == 2 {
                break;
            }
            continue;
        }
        blanks = 0;
        // A sequence's first difference, its two values under it.
        if values > 0 {
            values -= 1;
            kept.push(line);
        } else if shown.starts_with("First differing element ") {
            kept.push(line);
            values = 2;
        } else if shown.starts_with("- ") || shown.starts_with("+ ") {
            kept.push(line);
            if kept.len() == DIFF_LINES {
                break;
            }
        } else if !(shown.starts_with("? ") || shown.starts_with("  ")) {
            break;
        }
    }
    (!kept.is_empty()).then_some(kept)
}

/// The changed lines of the unified diff a TAP producer writes in the
/// YAML block under a failing test point (node-tap's `not ok 1 - should
/// be equal` over `  ---`, its fields, and `diff: |` over `--- expected`,
/// `+++ actual`, `@@ -1,1 +1,1 @@`, `-25`, `+27`), up to [`DIFF_LINES`]:
/// the values, wherever the field stands in the block (after the test's
/// source, often); `None` under any other line, or when the block, up to
/// its `...` within [`TAP_BLOCK_REACH`] lines, holds no such diff.
fn tap_diff_under(text: &str, failure: Line) -> Option<Vec<Line>> {
    if !diagnose::without_colours(line_str(text, &failure))
        .trim_start()
        .starts_with("not ok ")
    {
        return None;
    }
    let mut block = lines_under(text, failure).take(TAP_BLOCK_REACH);
    let (header, shown) = block.find(|(_, shown)| {
        let field = shown.trim();
        field == "..." || field.starts_with("--- ")
    })?;
    if shown.trim() == "..." {
        return None;
    }
    let indent = shown.len() - shown.trim_start().len();
    let mut kept = Vec::new();
    for (line, shown) in lines_under(text, header).take(DIFF_REACH) {
        let change = shown.trim_start();
        if change.is_empty() || shown.len() - change.len() < indent {
            break;
        }
        let header = change.starts_with("+++ ") || change.starts_with("@@");
        if !header && is_change(change, ['-', '+']) {
            kept.push(line);
            if kept.len() == DIFF_LINES {
                break;
            }
        }
    }
    (!kept.is_empty()).then_some(kept)
}

/// Whether `line` is the half of a diff's legend that starts with `sign`
/// and names `side` (`- Expected`, `+ Received  + 0`, `- Expected:`).
fn legend_of(line: &str, sign: char, side: &str) -> bool {
    line.trim_start()
        .strip_prefix(sign)
        .and_then(|rest| rest.strip_prefix(' '))
        .is_some_and(|rest| {
            rest.strip_prefix(side)
                .is_some_and(|after| after.is_empty() || after.starts_with([' ', ':']))
        })
}

/// The legend starting at `expected` and the changed lines under it: the
/// `+ Received` half within two lines, a value under a half that ends with
/// a colon, then the lines that start with `-` or `+` in the block of
/// lines under the legend, up to [`DIFF_LINES`].
fn diff_under(text: &str, expected: Line) -> Vec<Line> {
    let mut kept = vec![expected];
    if let Some(signs) = one_line_legend(line_str(text, &expected)) {
        changed_under(text, expected, signs, &mut kept);
        return kept;
    }
    let with_value = |kept: &mut Vec<Line>, half: Line| -> Line {
        match line_after(text, &half)
            .filter(|_| line_str(text, &half).trim_end().ends_with(':'))
            .filter(|v| !line_str(text, v).trim().is_empty())
        {
            Some(value) => {
                kept.push(value);
                value
            }
            None => half,
        }
    };
    let mut line = with_value(&mut kept, expected);
    let mut received = None;
    for _ in 0..2 {
        let Some(next) = line_after(text, &line) else {
            break;
        };
        line = next;
        if legend_of(line_str(text, &line), '+', "Received") {
            received = Some(line);
            break;
        }
    }
    let Some(received) = received else {
        return kept;
    };
    kept.push(received);
    let line = with_value(&mut kept, received);
    changed_under(text, line, ['-', '+'], &mut kept);
    kept
}

/// The signs of a diff's legend in one line, both sides named: Deno's
/// `    [Diff] Actual / Expected`, Node's `+ actual - expected` (with `...
/// Lines skipped` after it where it left unchanged lines out), Mocha's
/// `+ expected - actual`, AVA's `  Difference (- actual, + expected):`
/// mark changed lines with `-` and `+`; Rust's `pretty_assertions` and
/// `similar-asserts` (`Diff < left / right > :`, or with the names the
/// assertion gave its sides) with `<` and `>`.
fn one_line_legend(line: &str) -> Option<[char; 2]> {
    let legend = diagnose::without_colours(line);
    // Node's, where it left unchanged lines out (`+ actual - expected ...
    // Lines skipped`).
    let legend = legend.trim().trim_end_matches(" ... Lines skipped");
    let angled = legend
        .strip_prefix("Diff < ")
        .and_then(|sides| sides.strip_suffix(" > :"))
        .is_some_and(|sides| sides.split_once(" / ").is_some());
    if angled {
        return Some(['<', '>']);
    }
    matches!(
        legend,
        "[Diff] Actual / Expected"
            | "[Diff] Expected / Actual"
            | "+ actual - expected"
            | "+ expected - actual"
            | "- expected + actual"
            | "Difference (- actual, + expected):"
            | "Difference:"
    )
    .then_some(['-', '+'])
}

/// The lines that start with one of `signs` (and hold more) in the block
/// of lines under `line` (blank lines may stand before it), up to
/// [`DIFF_LINES`], pushed on `kept`. A `-` or `+` may stand after the
/// indent a runner gives its diff; `<` and `>` stand first, where an
/// unchanged line has a space.
fn changed_under(text: &str, line: Line, signs: [char; 2], kept: &mut Vec<Line>) {
    let (mut changed, mut in_block) = (0, false);
    for (line, shown) in lines_under(text, line).take(DIFF_REACH) {
        if shown.trim().is_empty() {
            if in_block {
                break;
            }
            continue;
        }
        in_block = true;
        // A changed line: its sign, then what changed, after a space or
        // right after it (Mocha's `-50` over `+45`).
        let change = diagnose::without_colours(shown);
        let change: &str = if signs[0] == '-' {
            change.trim_start()
        } else {
            &change
        };
        if is_change(change, signs) {
            kept.push(line);
            changed += 1;
            if changed == DIFF_LINES {
                break;
            }
        }
    }
}

/// Whether `change`, a diff's line from its sign on, changes something:
/// one of `signs`, then more than blanks.
fn is_change(change: &str, signs: [char; 2]) -> bool {
    change
        .strip_prefix(signs)
        .is_some_and(|rest| !rest.trim().is_empty())
}

/// The lines under `line` in `text`, each with what it says, nearest
/// first.
fn lines_under(text: &str, line: Line) -> impl Iterator<Item = (Line, &str)> {
    std::iter::successors(line_after(text, &line), move |l| line_after(text, l))
        .map(move |l| (l, line_str(text, &l)))
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

/// How many assertion diffs a form keeps ([`assertion_diffs`]), the
/// latest first.
const DIFFED_RUNS: usize = 8;

/// The most changed lines kept of one assertion diff ([`assertion_diffs`]).
const DIFF_LINES: usize = 4;

/// How many lines of the block under a diff's legend are looked through
/// ([`assertion_diffs`]).
const DIFF_REACH: usize = 24;

/// How far under a failing TAP test point its YAML block's diff may stand
/// ([`tap_diff_under`]).
const TAP_BLOCK_REACH: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    /// The failure lines of `text`, each line's kind read in it.
    fn failures_of(text: &str) -> Vec<Line> {
        let mut failures = Vec::new();
        let mut start = 0;
        for (number, line) in text.split('\n').enumerate() {
            let end = start + line.len();
            if diagnose::line_kind_in(text, line) == LineKind::Failure {
                failures.push(Line { number, start, end });
            }
            start = end + 1;
        }
        failures
    }

    /// The details `text` gets.
    fn detailed(text: &str) -> Vec<&str> {
        details(text, &failures_of(text))
            .iter()
            .map(|l| line_str(text, l))
            .collect()
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

    /// The assertion diffs `text` gets.
    fn diffed(text: &str) -> Vec<&str> {
        assertion_diffs(text, &failures_of(text))
            .iter()
            .map(|l| line_str(text, l))
            .collect()
    }

    /// TOOL-8: jest's and Vitest's diff under a failed assertion: its
    /// legend and its changed lines, or each half of the legend with the
    /// value under it.
    #[test]
    fn tool_8_an_assertion_s_diff_gives_the_values() {
        let jest = "  ● parse › parses nested\n\n    expect(received).toEqual(expected) // deep equality\n\n    - Expected  - 1\n    + Received  + 0\n\n      Object {\n        \"a\": 1,\n    -   \"b\": 2,\n      }\n\n      at Object.toEqual (test/calc.test.js:11:93)\n    - not a change\n";
        assert_eq!(
            diffed(jest),
            ["    - Expected  - 1", "    + Received  + 0", "    -   \"b\": 2,"]
        );
        let vitest = "AssertionError: expected '12' to be 3 // Object.is equality\n\n- Expected: \n3\n\n+ Received: \n\"12\"\n\n ❯ test/calc.test.js:4:52\n";
        assert_eq!(diffed(vitest), ["- Expected: ", "3", "+ Received: ", "\"12\""]);
        // At most DIFF_LINES changed lines.
        let many = "AssertionError: differ\n- Expected\n+ Received\n".to_owned() + &"- a\n+ b\n".repeat(4);
        assert_eq!(diffed(&many).len(), 2 + DIFF_LINES);
        // Not a legend: other words, or no space after the sign.
        for text in [
            "AssertionError: differ\n- Expectations\n+ Received\n- a\n",
            "AssertionError: differ\n-Expected\n+ Received\n- a\n",
            "AssertionError: differ\nall good\n",
        ] {
            assert!(diffed(text).is_empty(), "{text:?}");
        }
        // A sign with nothing after it changes nothing.
        assert_eq!(
            diffed("AssertionError: differ\n- Expected\n+ Received\n-  \n+ a\n"),
            ["- Expected", "+ Received", "+ a"]
        );
        // Half a legend is kept alone.
        assert_eq!(
            diffed("AssertionError: differ\n- Expected\nnext\n\n\n+ Received\n"),
            ["- Expected"]
        );
        // A legend in one line, as Deno and Node print it, over blank lines
        // and the changed values.
        let deno = "error: AssertionError: Values are not equal.\n\n\n    [Diff] Actual / Expected\n\n\n-   100\n+   90\n\n  throw new AssertionError(message);\n";
        assert_eq!(
            diffed(deno),
            ["    [Diff] Actual / Expected", "-   100", "+   90"]
        );
        let node = "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:\n+ actual - expected\n\n  {\n+   total: 100\n-   total: 90\n  }\n";
        assert_eq!(
            diffed(node),
            ["+ actual - expected", "+   total: 100", "-   total: 90"]
        );
        assert!(diffed("AssertionError: differ\n[Diff] Before / After\n- a\n").is_empty());
        // A snapshot's legend.
        let snapshot = "  ● cart › renders summary\n\n    expect(received).toMatchSnapshot()\n\n    Snapshot name: `cart renders summary 1`\n\n    - Snapshot  - 1\n    + Received  + 1\n\n      {\n    -   \"total\": 6,\n    +   \"total\": 7,\n      }\n";
        assert_eq!(
            diffed(snapshot),
            [
                "    - Snapshot  - 1",
                "    + Received  + 1",
                "    -   \"total\": 6,",
                "    +   \"total\": 7,"
            ]
        );
    }

    /// TOOL-8: Rust's `pretty_assertions` and `similar-asserts` mark
    /// the sides of their diff with `<` and `>` under a legend that names
    /// them: the changed lines are the values; an unchanged line (a space
    /// first) is none, whatever it holds, and so is a bare `>` (the
    /// newline one side ends on).
    #[test]
    fn tool_8_a_rust_diff_in_angles_gives_the_values() {
        let pretty = "thread 'label_multiline' panicked at tests/cart.rs:33:5:\nassertion failed: `(left == right)`\n\n\x1b[1mDiff\x1b[0m \x1b[31m< left\x1b[0m / \x1b[32mright >\x1b[0m :\n A1 x2\n <html>\n\x1b[31m<C3 x4\x1b[0m\n\x1b[32m>C3 x3\x1b[0m\n\x1b[32m>\x1b[0m\n\n\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            diffed(pretty),
            [
                "\x1b[1mDiff\x1b[0m \x1b[31m< left\x1b[0m / \x1b[32mright >\x1b[0m :",
                "\x1b[31m<C3 x4\x1b[0m",
                "\x1b[32m>C3 x3\x1b[0m"
            ]
        );
        let named = "assertion failed: `(expected == actual)`\n\nDiff < expected / actual > :\n<7\n>5\n";
        assert_eq!(diffed(named), ["Diff < expected / actual > :", "<7", ">5"]);
        // Angles under a legend of signs, or a legend of one side, are
        // no values.
        assert_eq!(
            diffed("AssertionError: differ\n+ actual - expected\n<a\n- b\n"),
            ["+ actual - expected", "- b"]
        );
        assert!(diffed("assertion failed: `(left == right)`\nDiff < left > :\n<a\n>b\n").is_empty());
    }

    /// TOOL-8: Node's assertion diff where it left unchanged lines out
    /// (`+ actual - expected ... Lines skipped`, its `...` lines): the
    /// changed lines are the values, under the legend's marker of skips.
    #[test]
    fn tool_8_node_s_diff_with_lines_skipped_gives_the_values() {
        let node = "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:\n+ actual - expected ... Lines skipped\n\n  {\n    sku0: {\n...\n    sku17: {\n+     price: 25.5,\n-     price: 26,\n    },\n...\n  }\n    at file:///home/dev/orders/big.mjs:5:8\n";
        assert_eq!(
            diffed(node),
            [
                "+ actual - expected ... Lines skipped",
                "+     price: 25.5,",
                "-     price: 26,"
            ]
        );
    }

    /// TOOL-8: node-tap's unified diff in the YAML block under a failing
    /// test point, however far down the block (after the test's source):
    /// its changed lines, not its `--- expected`/`+++ actual` header, its
    /// hunk's `@@`, nor the source's pointer (`----^`) further down; none
    /// past the block's `...`, under another failure, or past the diff's
    /// indent.
    #[test]
    fn tool_8_a_tap_block_s_diff_gives_the_values() {
        let source =
            "          source: |\n            t.equal(total(sample()), 25)\n            ---------------^\n"
                .repeat(6);
        let tap = format!("    not ok 1 - should be equal\n      ---\n      compare: ===\n{source}      diff: |\n        --- expected\n        +++ actual\n        @@ -1,1 +1,1 @@\n        -25\n        +27\n      at:\n        line: 4\n      ...\n");
        assert_eq!(diffed(&tap), ["        -25", "        +27"]);
        let ended = "not ok 2 - items\n  ---\n  at:\n    line: 5\n  ...\nlater:\n  --- expected\n  -a\n";
        assert!(diffed(ended).is_empty());
        let elsewhere = "error: boom\n  ---\n  diff: |\n    --- expected\n    +++ actual\n    -a\n    +b\n";
        assert!(diffed(elsewhere).is_empty());
        let many = "not ok 3 - same\n  ---\n  diff: |\n    --- expected\n    +++ actual\n".to_owned()
            + &"    -a\n    +b\n".repeat(4);
        assert_eq!(diffed(&many).len(), DIFF_LINES);
        // The diff ends at a blank line or where the block goes back out
        // of its field (a YAML list's `- item` further out is no change).
        let out = "not ok 4 - out\n  ---\n  diff: |\n    --- expected\n    +++ actual\n    -a\n  list:\n  - b\n   -c\n";
        assert_eq!(diffed(out), ["    -a"]);
        let blank =
            "not ok 5 - blank\n  ---\n  diff: |\n    --- expected\n    +++ actual\n    -a\n\n    +b\n";
        assert_eq!(diffed(blank), ["    -a"]);
    }

    /// TOOL-8: unittest's ndiff under `AssertionError: a != b`: its
    /// changed lines, over the `?` hints and blank lines between; none
    /// under another failure, or past the block.
    #[test]
    fn tool_8_unittest_s_ndiff_gives_the_values() {
        let unittest = "AssertionError: {'qty': 1, 'tags': ['x', 'y']} != {'qty': 2, 'tags': ['x']}\n- {'qty': 1, 'tags': ['x', 'y']}\n?         ^            -----\n\n+ {'qty': 2, 'tags': ['x']}\n?         ^\n\n\n- not this\n";
        assert_eq!(
            diffed(unittest),
            ["- {'qty': 1, 'tags': ['x', 'y']}", "+ {'qty': 2, 'tags': ['x']}"]
        );
        let lists = "AssertionError: Lists differ: ['a', 'b'] != ['a', 'c']\n\nFirst differing element 1:\n'b'\n'c'\n\n- ['a', 'b']\n?       ^\n\n+ ['a', 'c']\n?       ^\n";
        assert_eq!(
            diffed(lists),
            ["First differing element 1:", "'b'", "'c'", "- ['a', 'b']"]
        );
        assert!(diffed("ValueError: a != b\n- a\n+ b\n").is_empty());
        let many = "AssertionError: x != y\n".to_owned() + &"- a\n+ b\n".repeat(4);
        assert_eq!(diffed(&many).len(), DIFF_LINES);
    }
}

//! Line-level condensing of text: head, tail and diagnostic lines within a
//! byte budget (TOOL-8, TOOL-10).

use std::borrow::Cow;
use std::collections::HashSet;

use memchr::{memchr, memrchr};

use crate::diagnose::{self, LineKind};

mod choose;
mod gaps;
mod line;
mod messages;
mod named;
mod spans;
use choose::choose;
use diagnose::prefix::nested::Nest;
pub(crate) use gaps::{gap_marker, gap_of, shown_for_its_marker};
use gaps::{original_lines, Represented};
pub(crate) use line::{cap_line, ceil_boundary, floor_boundary};
use line::{line_cap, shown_line};
use messages::with_announced_messages;
use named::Named;
use spans::diagnostic_spans;

/// Budgets of [`condense`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Lines kept from the start.
    pub(crate) head: usize,
    /// Lines kept from the end.
    pub(crate) tail: usize,
    /// Diagnostic lines kept from the middle.
    pub(crate) diagnostics: usize,
    /// The most bytes of the result.
    pub(crate) max_bytes: usize,
    /// The most bytes of one kept line.
    pub(crate) max_line_bytes: usize,
    /// The most bytes of one kept failure line ([`LineKind::Failure`]),
    /// when more than `max_line_bytes`: its message is what an agent acts
    /// on.
    pub(crate) max_failure_line_bytes: usize,
    /// How much more room the diagnostic lines may take beyond
    /// `max_bytes` (0: a fixed room). Never more than
    /// [`GROWN_BYTES_PER_LINE`] per line of the original text.
    pub(crate) grow: usize,
}

/// A grown room is at most this many bytes per line of the original text
/// (about a fifth of a typical log line), so that a form stays a fraction
/// of what it stands for. Counted in lines, not bytes, because a form
/// knows how many lines it stands for (its kept lines and the counts of
/// its gap markers) but not how many bytes: condensing a form again then
/// finds the same room, and changes nothing.
const GROWN_BYTES_PER_LINE: usize = 12;

/// The most room `text` may take: `budget.max_bytes`, or more when it
/// stands for many lines.
fn cap(text: &str, budget: &Budget) -> usize {
    budget
        .max_bytes
        .max(original_lines(text).saturating_mul(GROWN_BYTES_PER_LINE))
}

impl Budget {
    /// The most lines a condensed text can have: kept lines plus one gap
    /// marker around each kept middle line.
    fn max_lines(&self) -> usize {
        self.head + self.tail + 2 * self.diagnostics + 1
    }
}

/// Returns `true` when `line` carries a diagnostic: a failure, a warning
/// or a summary.
pub(crate) fn is_diagnostic(line: &str) -> bool {
    diagnose::line_kind(line).is_diagnostic()
}

/// The number of newlines in `bytes`, counted with SIMD (`bytecount`,
/// which picks AVX2 or SSE2 at run time): about twice as fast as finding
/// each newline with `memchr`. Every count of lines in this crate asks it.
pub(crate) fn newlines(bytes: &[u8]) -> usize {
    bytecount::count(bytes, b'\n')
}

/// The number of lines of `text`: newlines, plus one for a last line
/// without a newline.
pub(crate) fn line_count(text: &[u8]) -> usize {
    newlines(text) + usize::from(!text.is_empty() && text[text.len() - 1] != b'\n')
}

/// A line of the text: its number (from 0) and byte range without the
/// newline (and without a trailing `\r`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Line {
    number: usize,
    start: usize,
    end: usize,
}

fn trim_cr(text: &[u8], start: usize, end: usize) -> usize {
    if end > start && text[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// The room a condensed `text` may take: `budget.max_bytes`, grown by
/// what its diagnostic lines cost (`costs.0`), up to `budget.grow` more,
/// and no more than [`cap`] allows for its length, but for its failures
/// and summaries (`costs.1`, part of `costs.0`): what failed is kept
/// however densely the output prints it (40 compiler errors in 80 lines),
/// within `budget.grow`.
fn room(text: &str, budget: &Budget, (diagnostic_cost, failure_cost): (usize, usize)) -> usize {
    let grown = budget.max_bytes + diagnostic_cost.min(budget.grow);
    grown.min(cap(text, budget) + failure_cost.min(budget.grow))
}

/// Whether `line`, of `kind`, grows the room past [`cap`] ([`room`]): a
/// failure or a summary; and a warning that names its own place, as a
/// linter reports each finding (haml-lint's `app/a.haml:33 [W]
/// ImplicitDiv: …`) and a compiler each warning (gcc's `a.c:3:5: warning:
/// …`), in a build that fails as in one that passes, and one that says
/// in its words that something failed, a warning by its level alone (a
/// log record's `WARNING - fetch of orders failed (attempt 1/3)`,
/// [`diagnose::grows_as_failure`]): each is a thing to fix, and the
/// failures come first in the order of priority.
fn grows_past_cap(kind: LineKind, line: &str) -> bool {
    match kind {
        LineKind::Failure | LineKind::Summary => true,
        LineKind::Warning => diagnose::is_located(line) || diagnose::grows_as_failure(line),
        LineKind::Context | LineKind::Noise | LineKind::Plain => false,
    }
}

/// What keeping `line` costs: its bytes, capped, a newline and room for a
/// gap marker beside it.
fn cost(line: &str, budget: &Budget) -> usize {
    line.len().min(line_cap(line, budget)) + 1 + MARKER_RESERVE
}

/// Context lines (frames, locations) kept from spare room, innermost first.
const INNERMOST_FRAMES: usize = 3;

/// Room reserved beside each kept line for the gap marker that may follow.
const MARKER_RESERVE: usize = 24;

/// Returns `true` when `text` is within `budget` as it is, so condensing
/// would change nothing: its lines are short, and it is no longer than the
/// room its own diagnostic lines would be given, with no more lines than
/// the head, the tail and its diagnostic lines with a marker each.
fn within(text: &str, budget: &Budget) -> bool {
    if !text.split('\n').all(|l| l.len() <= line_cap(l, budget)) {
        return false;
    }
    if text.len() <= budget.max_bytes && line_count(text.as_bytes()) <= budget.max_lines() {
        return true;
    }
    if budget.grow == 0 || text.len() > budget.max_bytes + budget.grow {
        return false;
    }
    let (mut diagnostic_cost, mut failure_cost, mut diagnostics) = (0, 0, 0);
    let lines: Vec<(Line, LineKind)> = text
        .lines()
        .enumerate()
        .map(|(number, line)| {
            let start = line.as_ptr() as usize - text.as_ptr() as usize;
            let end = start + line.len();
            (Line { number, start, end }, diagnose::line_kind_in(text, line))
        })
        .collect();
    // A failure's message (an operand, what it announces, the lines that
    // elaborate it) is paid for as its failure is: the form keeps it among
    // the diagnostic lines.
    let messages: HashSet<usize> = choose::messages_of_failures(text, &lines)
        .iter()
        .map(|m| m.line.number)
        .collect();
    for (l, kind) in &lines {
        let line = line_str(text, l);
        if kind.is_diagnostic() || *kind == LineKind::Context || messages.contains(&l.number) {
            diagnostic_cost += cost(line, budget);
            diagnostics += 1;
        }
        if grows_past_cap(*kind, line) {
            failure_cost += cost(line, budget);
        }
    }
    text.len() <= room(text, budget, (diagnostic_cost, failure_cost))
        && line_count(text.as_bytes()) <= 2 * (budget.head + budget.tail + diagnostics) + 1
}

/// What [`condense`] kept and left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Condensed<'a> {
    /// The condensed text.
    pub(crate) text: Cow<'a, str>,
    /// Lines of the input.
    pub(crate) total_lines: usize,
    /// Lines kept (whole or cut).
    pub(crate) kept_lines: usize,
}

/// Keeps the first and last lines and the diagnostic lines of the middle,
/// marking each gap with `[… N lines …]`. What is kept follows what the
/// output holds: the last failure line first (the line an agent acts on),
/// then summaries, the other failures, warnings, the context of failures,
/// and the head and tail; noise (passing tests, progress, downloads,
/// library frames) last. The room is `budget.max_bytes`, grown by what the
/// diagnostic lines cost up to `budget.grow` more. A text already within
/// the budget is returned unchanged, and a form is one that condensing
/// again leaves as it is (see [`SETTLING_PASSES`]), so condensing is
/// idempotent. Lines
/// are judged without their colour codes (how a tool printed, not what it
/// said) and kept as the tool printed them, but for a line cut for length,
/// which loses its colours. A text is read and kept as a terminal shows it
/// ([`diagnose::as_shown`]): a `\r\n` line end is `\n`, a line a progress
/// bar redrew its last drawing.
pub(crate) fn condense<'a>(text: &'a str, budget: &Budget) -> Condensed<'a> {
    let Cow::Owned(shown) = diagnose::as_shown(text) else {
        return settled(text, budget);
    };
    let Condensed {
        text,
        total_lines,
        kept_lines,
    } = settled(&shown, budget);
    Condensed {
        text: Cow::Owned(text.into_owned()),
        total_lines,
        kept_lines,
    }
}

/// [`condense`] of a text as a terminal shows it: condensed until
/// condensing leaves it as it is.
fn settled<'a>(text: &'a str, budget: &Budget) -> Condensed<'a> {
    let mut condensed = condense_once(text, budget);
    for _ in 0..SETTLING_PASSES {
        let Cow::Owned(form) = &condensed.text else {
            break;
        };
        let again = condense_once(form, budget);
        let kept_lines = again.kept_lines;
        let again = again.text.into_owned();
        if again == *form {
            break;
        }
        condensed.text = Cow::Owned(again);
        condensed.kept_lines = kept_lines;
    }
    condensed
}

/// How many more times [`settled`] condenses a form it made, until
/// condensing leaves it as it is. A form holds fewer lines than its text,
/// and lines chosen near the edge of the room may not all be chosen again
/// from the form, where gap markers stand for what was left out and the
/// room grows by what the form still shows: each pass keeps a subset of
/// the lines of the one before, small texts all, and it stops at the
/// first pass that changes nothing.
const SETTLING_PASSES: usize = 3;

/// One pass of [`condense`].
fn condense_once<'a>(text: &'a str, budget: &Budget) -> Condensed<'a> {
    match kept(text, budget) {
        Kept::Within(n) => Condensed {
            text: Cow::Borrowed(text),
            total_lines: n,
            kept_lines: n,
        },
        Kept::Lines(shown, total_lines) => Condensed {
            text: Cow::Owned(render(&shown, total_lines, &Represented::of(text))),
            total_lines,
            kept_lines: shown.len(),
        },
    }
}

/// What a room keeps of a text ([`kept`]).
pub(crate) enum Kept<'a> {
    /// All of it: the text is within the room, and has this many lines.
    Within(usize),
    /// These lines, each with its number (from 0) as it is shown (as
    /// printed, or cut for length), of so many.
    Lines(Vec<(usize, Cow<'a, str>)>, usize),
}

/// The lines of `text` a room of `budget` keeps, in order: the decision
/// of which lines of an output matter, for a history form ([`condense`])
/// and for what the model sees of a long output mid-round alike. What is
/// kept follows what the output holds (see [`condense`]).
pub(crate) fn kept<'a>(text: &'a str, budget: &Budget) -> Kept<'a> {
    let uncoloured = diagnose::without_colours(text);
    // Under a tool that runs several processes, each line is judged, and
    // stands under the line above it, as its process printed it; which
    // process said it tells it apart from the same words of another.
    let alone = diagnose::prefix::as_printed_alone(&uncoloured, |l| gaps::gap_of(l).is_some());
    let named = Named::of(&uncoloured, &alone);
    // The output of a build an installer ran is judged out of the indent
    // the installer nests it in (pip's under `[155 lines of output]`).
    let diagnose::prefix::nested::OutOfNesting {
        text: mut plain,
        nests,
    } = diagnose::prefix::nested::out_of_nesting(&alone, |l| gaps::gap_of(l).is_some());
    let as_printed = matches!(
        (&uncoloured, &alone, &plain),
        (Cow::Borrowed(_), Cow::Borrowed(_), Cow::Borrowed(_))
    );
    if plain.ends_with('\n') && !text.ends_with('\n') {
        // A last line of colour codes alone (`\x1b[0m` after the last
        // newline) is still a line of the output: it keeps its place.
        plain.to_mut().push(' ');
    }
    let (chosen, total_lines) = match plan(&plain, &named, &nests, budget) {
        Plan::Within(n) => return Kept::Within(n),
        Plan::Keep(chosen, total) => (chosen, total),
    };
    let shown: Vec<(usize, Cow<'a, str>)> = if as_printed {
        chosen
            .iter()
            .map(|l| {
                let line = line_str(text, l);
                (l.number, cap_line(line, line_cap(line, budget)))
            })
            .collect()
    } else {
        // Colour codes, processes' names and nesting indents hold no
        // newline, so line `n` of the plain text is line `n` of `text`.
        let printed: Vec<&str> = text
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        chosen
            .iter()
            .map(|l| {
                let said = line_str(&plain, l);
                (l.number, shown_line(printed.get(l.number).copied(), said, budget))
            })
            .collect()
    };
    Kept::Lines(shown, total_lines)
}

/// What [`condense`] does with a text: leave it as it is (it has this many
/// lines), or keep these lines of so many.
enum Plan {
    Within(usize),
    Keep(Vec<Line>, usize),
}

/// The [`Plan`] for a text without colour codes, its nested output
/// ([`diagnose::prefix::nested`]) out of its indent.
fn plan(text: &str, named: &Named<'_>, nests: &[Nest], budget: &Budget) -> Plan {
    let bytes = text.as_bytes();
    if within(text, budget) {
        return Plan::Within(line_count(bytes));
    }

    // Head: the first lines, walking forward.
    let mut head = Vec::new();
    let mut pos = 0;
    while head.len() < budget.head && pos < bytes.len() {
        let end = memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
        head.push(Line {
            number: head.len(),
            start: pos,
            end: trim_cr(bytes, pos, end),
        });
        pos = end + 1;
    }
    let middle_start = pos.min(bytes.len());

    // Tail: the last lines, walking backward from the end.
    let mut tail_rev = Vec::new();
    let mut end = bytes.len();
    if end > middle_start && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    while tail_rev.len() < budget.tail && end > middle_start {
        let start = memrchr(b'\n', &bytes[middle_start..end]).map_or(middle_start, |i| middle_start + i + 1);
        tail_rev.push((start, trim_cr(bytes, start, end)));
        end = start.saturating_sub(1);
        if start == middle_start {
            break;
        }
    }
    let middle_end = tail_rev.last().map_or(bytes.len(), |&(s, _)| s).max(middle_start);

    let first_quota = budget.diagnostics.div_ceil(2);
    let last_quota = budget.diagnostics - first_quota;
    let mut spans = diagnostic_spans(text, middle_start, middle_end, first_quota, last_quota);
    let head_spans: Vec<(usize, usize)> = head.iter().map(|l| (l.start, l.end)).collect();
    with_announced_messages(text, &head_spans, middle_start..middle_end, &mut spans);

    // Number the middle's candidate lines in one pass.
    let mut line_no = head.len();
    let mut counted_to = middle_start;
    let mut middle = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        line_no += newlines(&bytes[counted_to..start]);
        counted_to = start;
        middle.push(Line {
            number: line_no,
            start,
            end: trim_cr(bytes, start, end),
        });
    }
    line_no += newlines(&bytes[counted_to..middle_end]);
    let middle_lines = line_no - head.len();
    let tail: Vec<Line> = tail_rev
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &(start, end))| Line {
            number: head.len() + middle_lines + i,
            start,
            end,
        })
        .collect();
    let total_lines = head.len() + middle_lines + tail.len();

    let chosen = with_nest_headings(choose(text, named, budget, &head, &middle, &tail), nests);
    Plan::Keep(with_short_gaps_shown(bytes, chosen), total_lines)
}

/// `chosen` (in order) with the heading of each nest a chosen line stands
/// in (pip's `╰─> [155 lines of output]`): it says whose output the
/// indented lines are, and a form condensed again finds the nest by it.
fn with_nest_headings(mut chosen: Vec<Line>, nests: &[Nest]) -> Vec<Line> {
    let headings: Vec<Line> = nests
        .iter()
        .filter(|nest| chosen.iter().any(|l| nest.lines.contains(&l.number)))
        .map(|nest| Line {
            number: nest.heading.0,
            start: nest.heading.1.start,
            end: nest.heading.1.end,
        })
        .filter(|heading| chosen.iter().all(|l| l.number != heading.number))
        .collect();
    if !headings.is_empty() {
        chosen.extend(headings);
        chosen.sort_unstable_by_key(|l| l.number);
    }
    chosen
}

/// Shows the line instead of the marker where one line was left out
/// between two kept ones and it is no longer than the marker (a blank
/// line, `PASSED`, a closing brace): the form reads as printed and never
/// grows for it.
fn with_short_gaps_shown(bytes: &[u8], chosen: Vec<Line>) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::with_capacity(chosen.len());
    for line in chosen {
        let between = out
            .last()
            .filter(|kept| line.number == kept.number + 2)
            .and_then(|kept| {
                // From after the kept line's newline to before this one's.
                let start = kept.end + memchr(b'\n', bytes.get(kept.end..line.start)?)? + 1;
                let end = trim_cr(bytes, start, line.start.checked_sub(1)?);
                (start <= end && shown_for_its_marker(end - start)).then_some(Line {
                    number: kept.number + 1,
                    start,
                    end,
                })
            });
        out.extend(between);
        out.push(line);
    }
    out
}

/// The kept lines with a gap marker for each run left out, counting the
/// lines the left-out lines stand for.
fn render(kept: &[(usize, Cow<'_, str>)], total_lines: usize, represented: &Represented) -> String {
    let mut out = String::new();
    let mut next = 0;
    for (number, line) in kept {
        if *number > next {
            out.push_str(&gap_marker(represented.between(next, *number)));
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        next = number + 1;
    }
    if total_lines > next {
        out.push_str(&gap_marker(represented.between(next, total_lines)));
        out.push('\n');
    }
    // Drop the last newline unless the last line is empty: that line must
    // still count.
    if !out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn line_str<'a>(text: &'a str, line: &Line) -> &'a str {
    // Ranges end at a newline or `\r`, both ASCII, or at the text's end, so
    // they are char boundaries.
    text.get(line.start..line.end).unwrap_or_default()
}

/// The first line of `text` and the lines that carry diagnostics, joined,
/// at most `max_chars` characters: the rule-based extract of TOOL-12.
pub(crate) fn extract(text: &str, first: usize, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || !(i < first || is_diagnostic(line)) {
            continue;
        }
        let n = line.chars().count() + usize::from(!out.is_empty());
        if chars + n > max_chars {
            let room = max_chars.saturating_sub(chars + usize::from(!out.is_empty()));
            if room > 1 {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.extend(line.chars().take(room - 1));
                out.push('…');
            }
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
        chars += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::spans::MIDDLE_SEARCH_BYTES;
    use super::*;
    use proptest::prelude::*;

    /// TOOL-8: a kept line nested under an installer's heading brings the
    /// heading, once; a line outside every nest brings none.
    #[test]
    fn tool_8_a_kept_nested_line_brings_its_nest_s_heading() {
        let line = |number| Line {
            number,
            start: number * 10,
            end: number * 10 + 5,
        };
        let nests = [Nest {
            heading: (4, 40..45),
            lines: 5..9,
        }];
        let numbers = |lines: Vec<Line>| lines.iter().map(|l| l.number).collect::<Vec<_>>();
        assert_eq!(
            numbers(with_nest_headings(vec![line(0), line(6)], &nests)),
            [0, 4, 6]
        );
        assert_eq!(
            with_nest_headings(vec![line(4), line(8)], &nests),
            [line(4), line(8)]
        );
        assert_eq!(
            numbers(with_nest_headings(vec![line(1), line(9)], &nests)),
            [1, 9]
        );
    }

    /// TOOL-8: a warning grows the room past its cap when it names its
    /// place, or says that something failed and is a warning by its level
    /// alone (a log record's); not a build tool's tagged warning, nor one
    /// that says nothing failed.
    #[test]
    fn tool_8_which_warnings_grow_the_room() {
        let warning = |line: &str| grows_past_cap(LineKind::Warning, line);
        assert!(warning(
            "2026-12-05 06:02:15,347 - sync - WARNING - fetch of orders failed (attempt 1/3)"
        ));
        assert!(warning(
            "src/a.c:3:5: warning: unused variable 'x' [-Wunused-variable]"
        ));
        assert!(!warning(
            "W: Failed to fetch http://archive.ubuntu.com/ubuntu/dists/jammy/InRelease"
        ));
        assert!(!warning("[WARNING] Tests failed to compile, skipping"));
        assert!(!warning("2026-12-05 06:02:15,347 - sync - WARNING - stock low"));
        assert!(grows_past_cap(LineKind::Failure, "FAILED"));
        assert!(grows_past_cap(LineKind::Summary, "3 passed"));
        assert!(!grows_past_cap(
            LineKind::Plain,
            "2026-12-05 - sync - INFO - fetch failed"
        ));
    }

    proptest! {
        /// The SIMD count is the count of newline bytes, at any length and
        /// alignment (the vector loops and their scalar ends alike).
        #[test]
        fn newlines_are_counted_exactly(
            bytes in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'a'), any::<u8>()], 0..600),
            skip in 0usize..40,
        ) {
            let bytes = &bytes[skip.min(bytes.len())..];
            prop_assert_eq!(newlines(bytes), bytes.iter().filter(|&&b| b == b'\n').count());
        }
    }

    const B: Budget = Budget {
        head: 3,
        tail: 3,
        diagnostics: 4,
        max_bytes: 2_000,
        max_line_bytes: 200,
        max_failure_line_bytes: 200,
        grow: 0,
    };

    /// TOOL-10: a last line of colour codes alone (a reset after the last
    /// newline) is still a line: the markers and kept lines add up to the
    /// output's lines.
    #[test]
    fn a_last_line_of_colour_codes_still_counts() {
        for end in ["\x1b[0m", "\x1b[["] {
            let text = format!("{}\r\n{end}", "a".repeat(600));
            let form = condense(&text, &B).text;
            assert_eq!(original_lines(&form), 2, "{form:?}");
            let text = format!(
                "{}{end}",
                (0..40).map(|i| format!("line {i}\n")).collect::<String>()
            );
            let form = condense(&text, &B).text;
            assert_eq!(original_lines(&form), 41, "{form:?}");
        }
    }

    /// TOOL-10 / TOOL-11: a form condensed again, with a smaller room,
    /// leaves out some of its own gap markers: the marker that takes their
    /// place counts the lines they stood for, not one line each.
    #[test]
    fn a_marker_left_out_counts_the_lines_it_stood_for() {
        let lines: String = (0..300).map(|i| format!("step {i} done\n")).collect();
        let form = condense(&lines, &B).text.into_owned();
        assert!(form.contains("[… "), "{form}");
        assert_eq!(original_lines(&form), 300);
        let smaller = Budget {
            head: 1,
            tail: 1,
            max_bytes: 60,
            ..B
        };
        let again = condense(&form, &smaller).text;
        assert_ne!(again, form);
        assert_eq!(original_lines(&again), 300, "{again}");
    }

    /// TOOL-11: a form's gap markers are not kept as lines of its head or
    /// as its closing line: what was left out stays out, and one marker
    /// stands for the whole run, never two in a row.
    #[test]
    fn a_form_s_markers_are_not_kept_as_lines() {
        let mut form = String::from("step 0\n[… 20 lines …]\n");
        form.extend((21..60).map(|i| format!("step {i}\n")));
        form.push_str("error: disk full\nstep 61\n[… 9 lines …]");
        let budget = Budget {
            head: 2,
            tail: 2,
            max_bytes: 300,
            ..B
        };
        let again = condense(&form, &budget).text;
        assert_eq!(
            again,
            "step 0\n[… 59 lines …]\nerror: disk full\nstep 61\n[… 9 lines …]",
        );
    }

    #[test]
    fn a_failure_brings_the_lines_that_finish_what_it_says() {
        let lines_added = |text: &str, line: &str| {
            let start = text.find(line).unwrap();
            let mut spans = vec![(start, start + line.len())];
            with_announced_messages(text, &[], 0..text.len(), &mut spans);
            spans[1..]
                .iter()
                .map(|&(s, e)| text[s..e].to_owned())
                .collect::<Vec<_>>()
        };
        // A failure that ends with a colon: its message, past a blank line.
        let text = "AssertionError: values differ:\n\n18 !== 20\nmore\n";
        assert_eq!(lines_added(text, "AssertionError: values differ:"), ["18 !== 20"]);
        // A heading: the lines down to its failure, blank ones left out.
        let text = "1) Cart\n   #total()\n\n   applies no discount:\nAssertionError: 18 == 20\nafter\n";
        assert_eq!(
            lines_added(text, "1) Cart"),
            ["   #total()", "   applies no discount:"]
        );
        // A plain line that ends with a colon, a failure that does not, and
        // a numbered line with no failure below bring nothing.
        for (text, line) in [
            ("Results:\nall good\n", "Results:"),
            ("error: boom\ndetail\n", "error: boom"),
            ("1) install it\n2) run it\n", "1) install it"),
        ] {
            assert!(lines_added(text, line).is_empty(), "{text:?}");
        }
    }

    #[test]
    fn small_text_is_unchanged() {
        let t = "a\nb\nc\n";
        let c = condense(t, &B);
        assert!(matches!(c.text, Cow::Borrowed(_)));
        assert_eq!(c.total_lines, 3);
    }

    /// TOOL-8: the search for diagnostic lines goes on past a message said
    /// in block after block (a log's retries, each between other lines)
    /// to the failure said once; a block of one shape (a listing) counts
    /// toward its quota line by line. Forward and backward alike.
    #[test]
    fn tool_8_the_search_goes_on_past_a_message_said_at_every_retry() {
        let retries: String = (0..10)
            .map(|i| format!("ERROR retry {i} refused\nINFO job {i} done\n"))
            .collect();
        let listing: String = (0..12)
            .map(|i| format!("FAILED t.py::t_{i} - rate {i}\n"))
            .collect();
        let plain = "INFO idle\n".repeat(300);
        let found = |text: &str, first: usize, last: usize| {
            diagnostic_spans(text, 0, text.len(), first, last)
                .iter()
                .any(|&(s, e)| &text[s..e] == "CRITICAL job 7 failed")
        };
        let forward = format!("{retries}CRITICAL job 7 failed\n{plain}");
        assert!(found(&forward, 8, 0));
        let backward = format!("{plain}CRITICAL job 7 failed\n{retries}");
        assert!(found(&backward, 0, 8));
        // Past a listing that fills the quotas, a failure is found by the
        // search of the middle between them, when it is short enough.
        let forward = format!("{listing}CRITICAL job 7 failed\n{plain}");
        assert!(found(&forward, 8, 0));
        let backward = format!("{plain}CRITICAL job 7 failed\n{listing}");
        assert!(found(&backward, 0, 8));
        let long = "INFO idle\n".repeat(MIDDLE_SEARCH_BYTES / 10 + 1);
        let forward = format!("{listing}CRITICAL job 7 failed\n{long}");
        assert!(!found(&forward, 8, 0));
        let backward = format!("{long}CRITICAL job 7 failed\n{listing}");
        assert!(!found(&backward, 0, 8));
    }

    /// TOOL-8: under a tool that runs several processes, a failure's
    /// message is found under it as in the process's own output, the
    /// process's name stays on each line shown, and the same words said
    /// by two processes are two findings.
    #[test]
    fn tool_8_lines_are_read_as_their_process_printed_them() {
        let mut t = String::from("• Running test in 3 packages\n");
        for (package, test) in [("cart", "coupon none"), ("util", "trims")] {
            for i in 0..60 {
                t.push_str(&format!("@shop/{package}:test:    ✓ case {i} 1ms\n"));
            }
            t.push_str(&format!("@shop/{package}:test:    × {test} 13ms\n"));
            t.push_str(&format!(
                "@shop/{package}:test:      → expected 9 to be 10 ({package})\n"
            ));
            for i in 0..60 {
                t.push_str(&format!("@shop/{package}:test:    ✓ other {i} 1ms\n"));
            }
            t.push_str(&format!(
                "@shop/{package}:test:  ELIFECYCLE  Test failed. See above for more details.\n"
            ));
        }
        t.push_str("Failed:    @shop/cart#test, @shop/util#test\n");
        let c = condense(&t, &B);
        for kept in [
            "@shop/cart:test:      → expected 9 to be 10 (cart)",
            "@shop/util:test:      → expected 9 to be 10 (util)",
            "@shop/cart:test:  ELIFECYCLE  Test failed. See above for more details.",
            "@shop/util:test:  ELIFECYCLE  Test failed. See above for more details.",
        ] {
            assert!(c.text.contains(kept), "lost {kept}\n{}", c.text);
        }
        assert_eq!(condense(&c.text, &B).text, c.text, "idempotent");
    }

    #[test]
    fn tool_8_failure_in_the_middle_survives() {
        let mut t = String::new();
        for i in 0..1000 {
            if i == 500 {
                t.push_str("thread 'main' panicked at src/lib.rs:3:5\n");
            } else {
                t.push_str(&format!("compiling unit {i}\n"));
            }
        }
        let c = condense(&t, &B);
        assert_eq!(c.total_lines, 1000);
        assert_eq!(
            c.text,
            "compiling unit 0\ncompiling unit 1\ncompiling unit 2\n[… 497 lines …]\nthread 'main' panicked at src/lib.rs:3:5\n[… 496 lines …]\ncompiling unit 997\ncompiling unit 998\ncompiling unit 999"
        );
        assert_eq!(condense(&c.text, &B).text, c.text, "idempotent");
    }

    /// TOOL-8: one line left out between two kept ones is shown when it
    /// is no longer than its marker, and stays a marker when longer.
    #[test]
    fn tool_8_a_short_line_between_kept_ones_is_shown() {
        let mut t = String::new();
        for i in 0..400 {
            t.push_str(&match i {
                200 => "error: the first problem\r\n".to_owned(),
                201 => "\r\n".to_owned(),
                202 => "error: the second problem\n".to_owned(),
                203 => "a line longer than the marker it would be\n".to_owned(),
                204 => "error: the third problem\n".to_owned(),
                _ => format!("compiling unit {i}\n"),
            });
        }
        let c = condense(&t, &B);
        assert!(
            c.text.contains(
                "error: the first problem\n\nerror: the second problem\n[… 1 line …]\nerror: the third problem\n"
            ),
            "{}",
            c.text
        );
        assert_eq!(c.total_lines, 400);
        assert_eq!(condense(&c.text, &B).text, c.text, "idempotent");
    }

    #[test]
    fn tool_8_what_failed_comes_before_its_details() {
        // pytest's shape: the assertion names the failure, the `E` lines
        // under it hold long data; the room holds the summary, the
        // headline and a few details, not every detail.
        let data = |side: &str| format!("E   [{side}]: [{}]", "-12.055, 16.443, ".repeat(12));
        let mut t = String::from("collected 5 items\n");
        t.push_str("E   ValueError: the first problem\n");
        for i in 0..30 {
            t.push_str(&format!("        value_{i} = compute({i})\n"));
        }
        t.push_str(">   assert_series_equal(left, right)\n");
        t.push_str("E   AssertionError: Series are different\n");
        t.push_str("E   \n");
        t.push_str(&format!(
            "{}\n{}\n{}\n",
            data("index"),
            data("left"),
            data("right")
        ));
        t.push_str("E   At positional index 0, first diff: -12.055 != 16.443\n");
        t.push_str("\npandas/_libs/testing.pyx:171: AssertionError\n");
        t.push_str("FAILED tests/test_temperature.py::test_fuentes\n");
        t.push_str("======== 1 failed, 4 passed in 0.10s ========\n");
        let budget = Budget { max_bytes: 700, ..B };
        let c = condense(&t, &budget);
        for kept in [
            "E   ValueError: the first problem",
            "E   AssertionError: Series are different",
            "FAILED tests/test_temperature.py::test_fuentes",
            "1 failed, 4 passed",
        ] {
            assert!(c.text.contains(kept), "{kept}:\n{}", c.text);
        }
        assert!(!c.text.contains("[index]"), "a detail gives way:\n{}", c.text);
    }

    #[test]
    fn comments_and_imports_are_not_failures() {
        for line in [
            "        # error after dawn as well. Test each case separately:",
            "  // TODO: report errors to the caller",
            "from django.core.exceptions import ValidationError",
            // A source file read through a shell: a logging call.
            "        logger.error('request failed: %s', error)",
            "    console.error(`failed to load ${path}`);",
            "        log.warning(\"retry failed\")",
        ] {
            assert_ne!(diagnose::line_kind(line), LineKind::Failure, "{line}");
        }
        assert_eq!(
            diagnose::line_kind("ModuleNotFoundError: No module named 'pytz'"),
            LineKind::Failure
        );
    }

    #[test]
    fn one_huge_line_keeps_both_ends() {
        let t = format!("start{}end", "x".repeat(100_000));
        let c = condense(&t, &B);
        assert!(c.text.len() <= 200, "{}", c.text.len());
        assert!(
            c.text.starts_with("startx") && c.text.ends_with("xend"),
            "{}",
            c.text
        );
        assert!(c.text.contains("bytes …]"));
        assert_eq!(condense(&c.text, &B).text, c.text);
    }

    #[test]
    fn crlf_and_multibyte() {
        let t: String = (0..100).map(|i| format!("zeile {i} äöü ✓\r\n")).collect();
        let c = condense(&t, &B);
        assert!(!c.text.contains('\r'));
        assert!(c.text.starts_with("zeile 0 äöü ✓\nzeile 1"));
        let long = "ü".repeat(500);
        let capped = cap_line(&long, 100);
        assert!(capped.len() <= 100);
    }

    #[test]
    fn extract_keeps_first_and_diagnostic_lines() {
        let t = "Running tests\nsetup\nok 1\nok 2\nFAILED test_x: AssertionError\nwarning: unused\n";
        assert_eq!(
            extract(t, 2, 800),
            "Running tests\nsetup\nFAILED test_x: AssertionError\nwarning: unused"
        );
        let cut = extract(&"error ".repeat(300), 2, 100);
        assert_eq!(cut.chars().count(), 100);
    }
}

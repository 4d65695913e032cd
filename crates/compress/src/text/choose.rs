//! Which lines of a long output its history form keeps (TOOL-8).

use std::collections::{HashMap, HashSet};

use super::{gap_of, line_str, Budget, Line, Named, INNERMOST_FRAMES};
use crate::diagnose::{self, LineKind};

mod details;
mod frames;
mod headings;
mod messages;
mod room;

use frames::{
    code_under_frame, finding_above_fields, frame_above, frame_below, function_above_frame, is_arrow_place,
    messages_over_places, place_under, FAILING_FRAMES,
};
use headings::{
    file_heading, input_line_under, numbered_heading_above, place_over_excerpt, quoted_code_above,
    section_titles,
};
pub(super) use messages::{messages_of_failures, Message};
use room::Room;

/// The lines to keep, in order, within the room: by priority, with the
/// diagnostic lines paid from the grown room and the rest from
/// `budget.max_bytes`.
pub(super) fn choose(
    text: &str,
    named: &Named<'_>,
    budget: &Budget,
    head: &[Line],
    middle: &[Line],
    tail: &[Line],
) -> Vec<Line> {
    let mut all: Vec<(Line, LineKind)> = head
        .iter()
        .chain(middle)
        .chain(tail)
        .map(|l| (*l, diagnose::line_kind_in(text, line_str(text, l))))
        .collect();
    all.extend(messages_over_places(text, &all));
    // The gap markers of a form condensed again are none of its lines:
    // what was left out stays out, its marker redrawn with the lines
    // around it.
    let is_marker = |l: &Line| gap_of(line_str(text, l)).is_some();
    all.retain(|(l, _)| !is_marker(l));
    all.sort_by_key(|(l, _)| l.number);
    let noise: HashSet<usize> = all
        .iter()
        .filter(|(_, k)| *k == LineKind::Noise)
        .map(|(l, _)| l.number)
        .collect();
    let quiet = |l: &&Line| !noise.contains(&l.number) && !is_marker(l);
    let failures: Vec<Line> = all
        .iter()
        .filter(|(_, k)| *k == LineKind::Failure)
        .map(|(l, _)| *l)
        .collect();
    // What each failure says beyond its line: its message, and the place
    // its fields name, when it lists fields (bandit's `   Location:
    // app/a.py:7:11` under `>> Issue: [B602:…] …`): which finding is where.
    let mut messages = messages_of_failures(text, &all);
    let failed: HashSet<usize> = failures.iter().map(|l| l.number).collect();
    let fields: HashMap<usize, Line> = all
        .iter()
        .filter(|(_, k)| *k == LineKind::Context)
        .filter_map(|(l, _)| {
            let finding = finding_above_fields(text, l).filter(|f| failed.contains(&f.number))?;
            Some((finding.number, *l))
        })
        .collect();
    messages.extend(fields.iter().map(|(&failure, &line)| Message { line, failure }));
    messages.sort_by_key(|m| m.line.number);
    let (mut diagnostic, repeats) = diagnostic_lines(text, named, &all, &failures, &messages);
    // What a line says, with the process that said it: two processes'
    // same words are two findings.
    let said = |l: &Line| named.said(text, l);
    // Diagnostic lines, each once by its text, grow the room. A message
    // over the place an arrow points at is told apart by that place when
    // another message stands between it and the last time it was said
    // (ruff's `D103 Missing docstring in public function` over each
    // function's `--> a.py:4:5`, between other rules' findings; rustc's
    // `warning: unused variable` over each `-->`): another finding, which
    // a bare place would leave unnamed. Said again and again in a row
    // (`unformatted: File would be reformatted` over each file's place),
    // it is kept once, over the places that follow. A place, in turn, is
    // told apart by the message above it.
    let kinds: HashMap<usize, LineKind> = all.iter().map(|(l, k)| (l.number, *k)).collect();
    let is_place =
        |l: &Line| kinds.get(&l.number) == Some(&LineKind::Context) && is_arrow_place(line_str(text, l));
    let place_under = |l: &Line| line_after(text, l).filter(|next| is_place(next));
    let mut restated = HashSet::new();
    let mut last_said: Option<(usize, &str)> = None;
    for &(line, kind) in &all {
        if kind.is_diagnostic() && place_under(&line).is_some() {
            let said = said(&line);
            if let Some((number, _)) = last_said.filter(|(_, last)| *last == said) {
                restated.extend([number, line.number]);
            }
            last_said = Some((line.number, said));
        }
    }
    // A place stays beside the occurrence of its message that stays (the
    // places, all context lines, come last in the order of priority).
    let message_above = |l: &Line| {
        line_before(text, l).filter(|above| {
            kinds.get(&above.number).is_some_and(|k| k.is_diagnostic()) && !restated.contains(&above.number)
        })
    };
    // What each failure's messages say, together.
    let mut said_by: HashMap<usize, String> = HashMap::new();
    for m in &messages {
        let said = said_by.entry(m.failure).or_default();
        said.push_str(line_str(text, &m.line));
        said.push('\n');
    }

    let mut findings = HashSet::new();
    let mut kept = HashSet::new();
    let mut said_again = Vec::new();
    diagnostic.retain(|l| {
        let said = said(l);
        let keep = if !is_place(l) {
            let place = (!restated.contains(&l.number))
                .then(|| place_under(l))
                .flatten()
                .map(|p| line_str(text, &p));
            // A failure under a test's numbered heading is that test's
            // message, told apart by its heading, which stays with it; a
            // failure under a file's heading (ESLint's `  51:22  error
            // 'x' is not defined  no-undef` in two files) is told apart
            // by its file. Warnings said again are kept once.
            let heading = (kinds.get(&l.number) == Some(&LineKind::Failure))
                .then(|| {
                    numbered_heading_above(text, l)
                        .or_else(|| file_heading(text, l).map(|h| line_str(text, &h)))
                        .or_else(|| input_line_under(text, l).map(|h| line_str(text, &h)))
                })
                .flatten();
            // A failure said again with other messages (scalac's `a.scala:3:
            // error: type mismatch;` over each mismatch's ` found   : …`,
            // bandit's finding with its fields naming another place) is
            // told apart by them.
            let message = said_by.get(&l.number).map(String::as_str);
            let new = findings.insert((said, place.or(heading).or(message)));
            // A message said again under another failure that announces
            // it (GHC's `• Couldn't match type ‘Int’ with ‘[Char]’` under
            // each `Many.hs:4:8: error:`) is that failure's: it comes
            // after every other line, as a shape said again does.
            let announcing = line_before(text, l)
                .filter(|above| kinds.get(&above.number) == Some(&LineKind::Failure))
                .map(|above| line_str(text, &above))
                .filter(|above| diagnose::announces_message(above));
            if let Some(announcing) = announcing {
                if findings.insert((said, Some(announcing))) && !new {
                    said_again.push(*l);
                }
            }
            new
        } else if let Some(above) = message_above(l) {
            kept.contains(&above.number) && findings.insert((said, Some(line_str(text, &above))))
        } else {
            findings.insert((said, None))
        };
        if keep {
            kept.insert(l.number);
        }
        keep
    });
    let seen: HashSet<&str> = diagnostic.iter().map(said).collect();
    // The lines of a shape said again and again grow the room as the
    // others do, and take what is left of it after every other line.
    let (diagnostic, mut repeated): (Vec<Line>, Vec<Line>) =
        diagnostic.into_iter().partition(|l| !repeats.contains(&l.number));
    repeated.extend(said_again);
    // The frame each failure happened in, when its code line stands
    // between them (pytest's `--tb=short`), or the first of the project's
    // in the stack under it (Jest's, past its code frame), the latest
    // first, a repeated failure's too: it may use what is left of the
    // room the diagnostic lines grew, once the other lines are in, and
    // grows none.
    let mut framed = HashSet::new();
    let failing_frames: Vec<Line> = all
        .iter()
        .rev()
        .filter(|(_, k)| *k == LineKind::Failure)
        .flat_map(|(l, _)| {
            frame_above(text, l)
                .into_iter()
                .chain(frame_below(text, l, &kinds))
        })
        .filter(|f| !seen.contains(said(f)) && framed.insert(said(f)))
        .take(FAILING_FRAMES)
        .collect();

    // The title of each failure's section, the latest first: which test
    // failed. It may use what is left of the grown room once the
    // diagnostic lines and the others are in, and grows none.
    let titles = section_titles(text, &failures, &seen);

    let mut rest: Vec<Line> = Vec::new();
    rest.extend(head.iter().take(1).filter(quiet));
    rest.extend(tail.iter().rev().take(2).filter(quiet));
    // Spare room: the innermost locations and frames of the project's
    // code, where a failure happened, other than those a diagnostic line
    // already brings (a runner's list of failed tests, a chained
    // traceback, repeat the locations above their failures).
    let frames: Vec<Line> = all
        .iter()
        .filter(|(l, k)| {
            let line = line_str(text, l);
            *k == LineKind::Context && !seen.contains(line) && !diagnose::opens_value(line)
        })
        .map(|(l, _)| *l)
        .collect();
    // Each with the code line a Python frame prints under it: what ran;
    // the frames beside failures first.
    let mut code_of: Vec<(Line, Line)> = Vec::new();
    let beside_failures = diagnostic
        .iter()
        .filter(|l| diagnose::line_kind(line_str(text, l)) == LineKind::Context);
    for frame in beside_failures {
        if let Some(code) = code_under_frame(text, frame) {
            rest.push(code);
            code_of.push((code, *frame));
        }
    }
    // The lines code frames point at, the latest first: where each
    // failure is in the code, before the lines around them.
    rest.extend(
        frames
            .iter()
            .rev()
            .filter(|l| diagnose::is_pointed_code(line_str(text, l)))
            .take(INNERMOST_FRAMES),
    );
    // Each place once, and none a diagnostic line names: goroutines or
    // threads stopped in the same code (the workers of a Go test that
    // timed out) print the same frames, and the place of another one,
    // further up, is worth more.
    let mut places: HashSet<_> = diagnostic
        .iter()
        .map(|l| diagnose::frame_place(line_str(text, l)))
        .collect();
    let innermost = frames
        .iter()
        .rev()
        .filter(|l| places.insert(diagnose::frame_place(line_str(text, l))))
        .take(INNERMOST_FRAMES);
    for frame in innermost {
        rest.push(*frame);
        rest.extend(function_above_frame(text, frame));
        if let Some(code) = code_under_frame(text, frame) {
            rest.push(code);
            code_of.push((code, *frame));
        }
    }
    rest.extend(details::details(text, &failures));
    rest.extend(head.iter().skip(1).filter(quiet));
    rest.extend(tail.iter().rev().skip(2).filter(quiet));
    // The first and last lines open and close the text: the first unless
    // it is noise; the last with some text (pylint closes on its rating,
    // then blank lines) whatever its kind but a gap marker, as a cut of
    // the log's end shows it (Maven's `[ERROR] [Help 1] …` under a failed
    // build); and when
    // that last line is an exit status an agent's shell tool appends
    // (`[The command completed with exit code 1.]`), the one above it too.
    let mut closing = tail
        .iter()
        .rev()
        .filter(|l| !line_str(text, l).trim().is_empty() && !is_marker(l));
    let last = closing.next();
    let above_status = last
        .filter(|l| diagnose::is_exit_status(line_str(text, l)))
        .and_then(|_| closing.next());
    let ends: Vec<Line> = head
        .iter()
        .take(1)
        .filter(quiet)
        .chain(above_status)
        .chain(last.or(tail.last()))
        .copied()
        .collect();
    // The values of the latest assertions' diffs: from what is left of
    // the grown room once the diagnostic lines are in, before the others,
    // and grow none.
    let diffs = details::assertion_diffs(text, &failures);
    let placed: Vec<Line> = diffs
        .iter()
        .chain(&titles)
        .chain(&failing_frames)
        .copied()
        .collect();
    // Titles and frames of a shape met again and again (`____ test_rate_7
    // ____` over each case of a parametrized test) come after the
    // repeated diagnostic lines.
    let (titles_once, titles_again) = past_repeats(text, named, &titles);
    let (frames_once, frames_again) = past_repeats(text, named, &failing_frames);
    let growing: Vec<Line> = diagnostic.iter().chain(&repeated).copied().collect();
    let mut room = Room::new(text, budget, &growing, &placed, &kinds);
    // What a line says nothing without: a code line chosen for its frame,
    // its frame; a message, its failure (one said again, kept once
    // elsewhere). Such a line is kept with one of them or not at all.
    let mut owners: HashMap<usize, Vec<usize>> = HashMap::new();
    let owned = code_of
        .iter()
        .map(|(code, frame)| (code.number, frame.number))
        .chain(messages.iter().map(|m| (m.line.number, m.failure)));
    for (line, owner) in owned {
        owners.entry(line).or_default().push(owner);
    }
    let lines: HashMap<usize, Line> = all.iter().map(|(l, _)| (l.number, *l)).collect();
    let mut any = false;
    for line in ends
        .iter()
        .chain(&diagnostic)
        .chain(&diffs)
        .chain(&rest)
        .chain(&titles_once)
        .chain(&frames_once)
        .chain(&repeated)
        .chain(&titles_again)
        .chain(&frames_again)
    {
        if let Some(owners) = owners.get(&line.number) {
            let with_owner = owners.iter().any(|o| room.kept_numbers.contains(o))
                || owners
                    .iter()
                    .any(|o| lines.get(o).is_some_and(|owner| room.keep(owner, false)));
            if !with_owner {
                continue;
            }
        }
        let kept = room.keep(line, false);
        // A finding is kept with the place its fields name when it fits.
        if let Some(place) = fields.get(&line.number).filter(|_| kept) {
            room.keep(place, false);
        }
        any |= kept;
    }
    if !any {
        // All noise: its first and last lines say what it was.
        for line in head.iter().take(1).chain(tail.last()).filter(|l| !is_marker(l)) {
            room.keep(line, true);
        }
    }
    let mut kept = room.kept;
    // So do the ends kept when nothing else was: none stays without one
    // of its owners.
    let numbers: HashSet<usize> = kept.iter().map(|l| l.number).collect();
    kept.retain(|l| {
        owners
            .get(&l.number)
            .is_none_or(|owners| owners.iter().any(|o| numbers.contains(o)))
    });
    kept.sort_by_key(|l| l.number);
    kept
}

/// `lines` in two: those whose shape was met in fewer than
/// [`diagnose::Repeats`]' few lines before them, and the others, each in
/// order.
fn past_repeats(text: &str, named: &Named<'_>, lines: &[Line]) -> (Vec<Line>, Vec<Line>) {
    let mut repeats = diagnose::Repeats::default();
    lines
        .iter()
        .partition(|l| !repeats.alone_again(named.said(text, l)))
}

/// The lines that carry a diagnostic, in order of priority: the last
/// failure, the latest summaries, the first failure, what each run of
/// failures says failed, their messages, the other failures, the other
/// summaries, warnings (the latest first), then the locations beside
/// failures; and last the lines of a shape said in several blocks of
/// lines before, whose numbers come along ([`diagnose::Repeats`]).
fn diagnostic_lines(
    text: &str,
    named: &Named<'_>,
    all: &[(Line, LineKind)],
    failures: &[Line],
    messages: &[Message],
) -> (Vec<Line>, HashSet<usize>) {
    let of = |wanted: LineKind| -> Vec<Line> {
        all.iter()
            .filter(|(_, k)| *k == wanted)
            .map(|(l, _)| *l)
            .collect()
    };
    let summaries = of(LineKind::Summary);
    // The context of a failure ([`place_under`], [`finding_above_fields`])
    // and of a warning: the location right under its heading (rustc's
    // `-->`, oxlint's `╭─[a.ts:4:7]`): where to fix it.
    let failed_numbers: HashSet<usize> = failures.iter().map(|f| f.number).collect();
    let failed = |l: Line| failed_numbers.contains(&l.number);
    // Each candidate with the next one that prints something.
    let printed = || all.iter().filter(|(l, _)| !line_str(text, l).trim().is_empty());
    let contexts = printed()
        .zip(printed().skip(1))
        .filter_map(|(a, b)| match (a.1, b.1) {
            // The code a caret right above the failure points at, rather
            // than the caret.
            (LineKind::Context, LineKind::Failure) if b.0.number == a.0.number + 1 => {
                Some(quoted_code_above(text, &b.0).unwrap_or(a.0))
            }
            (LineKind::Failure, LineKind::Context) if place_under(text, &a.0, &b.0) => Some(b.0),
            (LineKind::Warning, LineKind::Context) if b.0.number == a.0.number + 1 => Some(b.0),
            _ => None,
        })
        .chain(
            all.iter()
                .filter(|(l, k)| *k == LineKind::Context && finding_above_fields(text, l).is_some_and(failed))
                .map(|(l, _)| *l),
        );
    // The first line of each run of failure lines (one other line may
    // stand between two of a run) says what failed (`E   AssertionError:
    // …` above its `E   [left]: …` details, `npm ERR! code E404` above
    // its log lines); the others detail it.
    let headlines = failure_runs(text, failures).map(|(first, _)| first);

    // A verdict in a listing of tests repeats what the runner's closing
    // summary and the failure's details say: it comes after them.
    let listed: HashSet<usize> = failures
        .iter()
        .filter(|l| is_listed_verdict(text, l))
        .map(|l| l.number)
        .collect();
    let unlisted = |l: &Line| !listed.contains(&l.number);

    let mut diagnostic: Vec<Line> = Vec::new();
    diagnostic.extend(failures.last());
    diagnostic.extend(summaries.iter().rev().take(3));
    diagnostic.extend(failures.first());
    diagnostic.extend(headlines.rev().filter(unlisted));
    diagnostic.extend(failures.iter().rev().filter_map(|l| {
        file_heading(text, l)
            .or_else(|| place_over_excerpt(text, l))
            .or_else(|| input_line_under(text, l))
    }));
    diagnostic.extend(messages.iter().rev().map(|m| m.line));
    diagnostic.extend(failures.iter().rev().skip(1).filter(|l| unlisted(l)));
    diagnostic.extend(failures.iter().rev().filter(|l| !unlisted(l)));
    diagnostic.extend(summaries.iter().rev().skip(3));
    // The warnings, the latest first as the failures above them (the last
    // of a linter's warnings stands nearest the end and the errors); each
    // located in a file by its line and column alone (the rows of ESLint's
    // stylish report) under that file's heading; a warning said again is
    // kept once (below), and brings no heading.
    let mut warned = HashSet::new();
    for warning in of(LineKind::Warning).into_iter().rev() {
        if warned.insert(named.said(text, &warning)) && diagnose::is_located(line_str(text, &warning)) {
            diagnostic.extend(file_heading(text, &warning));
        }
        diagnostic.push(warning);
    }
    // The latest first, as the failures above them: a place said again
    // stays beside the same occurrence of its message.
    diagnostic.extend(contexts.collect::<Vec<_>>().into_iter().rev());
    // A line of a shape said in a few blocks of lines before it in this
    // order (a log's `ERROR queue connection failed (attempt 7)` at every
    // retry, between other lines; the same assertion failing in each case
    // of a parametrized test, with its code line) comes after all the
    // others, in the same order: the failure said once stays before the
    // hundredth retry. A listing of one shape (each line a test) is one
    // block ([`diagnose::Repeats`]).
    let mut repeats = diagnose::Repeats::default();
    let mut after = None;
    let met: HashMap<usize, diagnose::Met> = all
        .iter()
        .map(|(l, _)| {
            let met = repeats.meet(named.said(text, l), after == Some(l.number));
            after = Some(l.number + 1);
            (l.number, met)
        })
        .collect();
    let mut placed = HashSet::new();
    let (mut diagnostic, repeated): (Vec<Line>, Vec<Line>) = diagnostic
        .into_iter()
        .filter(|l| placed.insert(l.number))
        .partition(|l| met.get(&l.number).is_none_or(|&m| !repeats.again(m)));
    let repeats = repeated.iter().map(|l| l.number).collect();
    diagnostic.extend(repeated);
    (diagnostic, repeats)
}

/// The runs of `failures` (lines of `text`, in order; one other line may
/// stand between two of a run, but for a gap marker that stands for more:
/// in a form condensed again, the runs are those of the output), each as
/// its first and last line.
fn failure_runs<'a>(text: &str, failures: &'a [Line]) -> impl DoubleEndedIterator<Item = (Line, Line)> + 'a {
    let apart = |before: &Line, after: &Line| {
        before.number + 2 < after.number
            || before.number + 2 == after.number
                && line_after(text, before).is_some_and(|l| gap_of(line_str(text, &l)).is_some_and(|n| n > 1))
    };
    let starts: Vec<usize> = (0..failures.len())
        .filter(|&i| i == 0 || apart(&failures[i - 1], &failures[i]))
        .collect();
    let ends: Vec<usize> = starts
        .iter()
        .skip(1)
        .map(|s| s - 1)
        .chain(failures.len().checked_sub(1))
        .collect();
    starts
        .into_iter()
        .zip(ends)
        .map(|(s, e)| (failures[s], failures[e]))
}

/// The line before `line` in `text`, if any.
fn line_before(text: &str, line: &Line) -> Option<Line> {
    let (start, end) = diagnose::lines_above(text.as_bytes(), line.start).next()?;
    Some(Line {
        number: line.number.checked_sub(1)?,
        start,
        end,
    })
}

/// The line after `line` in `text`, if any.
fn line_after(text: &str, line: &Line) -> Option<Line> {
    let bytes = text.as_bytes();
    let start = line.end + memchr::memchr(b'\n', &bytes[line.end..])? + 1;
    let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
    Some(Line {
        number: line.number + 1,
        start,
        end: super::trim_cr(bytes, start, end),
    })
}

/// Whether a failure line is one verdict in a runner's listing of tests,
/// one line a test: a passing test's line (noise) stands next to it and
/// starts as it does (`tests/a.py::test_x FAILED [ 3%]` beside
/// `tests/a.py::test_w PASSED [ 2%]`, Cargo's `test t::x ... FAILED`
/// beside `test t::w ... ok`, unittest's `test_x (a.T) ... FAIL` beside
/// `test_w (a.T) ... ok`). Runners repeat such a test, with its message,
/// in their closing summary and above its details.
fn is_listed_verdict(text: &str, failure: &Line) -> bool {
    let line = line_str(text, failure);
    let shares_start = |other: &str| {
        let common = line
            .bytes()
            .zip(other.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        common >= LISTING_PREFIX && line.as_bytes()[..common].iter().any(u8::is_ascii_alphanumeric)
    };
    [line_before(text, failure), line_after(text, failure)]
        .into_iter()
        .flatten()
        .any(|n| {
            let neighbour = line_str(text, &n);
            shares_start(neighbour) && diagnose::line_kind_in(text, neighbour) == LineKind::Noise
        })
}

/// How many leading bytes a test's line in a listing shares with the next
/// one's ([`is_listed_verdict`]): `test_` at least.
const LISTING_PREFIX: usize = 5;

#[cfg(test)]
mod tests {
    use super::frames::{frame_below, is_node_place, is_python_frame};
    use super::*;

    /// The `n`th line of `text` (CRLF endings trimmed).
    /// The numbers of the diagnostic lines of `text`, whose lines are of
    /// `kinds`, when the candidates are the lines `among` takes (as the
    /// middle of a long output holds them: plain lines are not looked at).
    fn diagnostic_numbers(
        text: &str,
        kinds: &[LineKind],
        among: impl Fn(usize, LineKind) -> bool,
    ) -> Vec<usize> {
        let all: Vec<(Line, LineKind)> = kinds
            .iter()
            .enumerate()
            .filter(|(n, k)| among(*n, **k))
            .map(|(n, k)| (nth(text, n), *k))
            .collect();
        ordered(text, &all).0.iter().map(|l| l.number).collect()
    }

    /// [`diagnostic_lines`] of the candidates `all`, their failures taken
    /// from them as [`choose`] takes them.
    fn ordered(text: &str, all: &[(Line, LineKind)]) -> (Vec<Line>, HashSet<usize>) {
        let failures: Vec<Line> = all
            .iter()
            .filter(|(_, k)| *k == LineKind::Failure)
            .map(|(l, _)| *l)
            .collect();
        diagnostic_lines(
            text,
            &Named::default(),
            all,
            &failures,
            &messages_of_failures(text, all),
        )
    }

    /// TOOL-8: adjacent lines of one shape are a listing, whose lines keep
    /// their rank; the same shape between other lines, past three blocks,
    /// is said again and again, and comes last. So do titles of one shape.
    #[test]
    fn tool_8_a_shape_said_again_and_again_comes_last() {
        let listing: String = (0..6)
            .map(|i| format!("FAILED t.py::t_{i} - rate {i}\n"))
            .collect();
        let retries: String = (0..6).map(|i| format!("ERROR retry {i}\nok {i}\n")).collect();
        let repeats_of = |text: &str, among: &dyn Fn(&str) -> bool| {
            let all: Vec<(Line, LineKind)> = (0..text.lines().count())
                .map(|n| nth(text, n))
                .filter(|l| among(line_str(text, l)))
                .map(|l| (l, diagnose::line_kind(line_str(text, &l))))
                .collect();
            let (order, repeats) = ordered(text, &all);
            let mut repeats: Vec<usize> = repeats.into_iter().collect();
            repeats.sort_unstable();
            // The repeated lines close the order.
            let tail: Vec<usize> = order[order.len() - repeats.len()..]
                .iter()
                .map(|l| l.number)
                .collect();
            assert!(tail.iter().all(|n| repeats.contains(n)), "{tail:?} {repeats:?}");
            repeats
        };
        assert!(repeats_of(&listing, &|_| true).is_empty());
        // The last, the first and the latest but one keep their rank.
        assert_eq!(repeats_of(&retries, &|l| l.starts_with("ERROR")), [2, 4, 6]);
        let titles: Vec<Line> = (0..5).map(|n| nth(&retries, n * 2)).collect();
        let (once, again) = past_repeats(&retries, &Named::default(), &titles);
        let numbers = |lines: &[Line]| lines.iter().map(|l| l.number).collect::<Vec<_>>();
        assert_eq!((numbers(&once), numbers(&again)), (vec![0, 2, 4], vec![6, 8]));
    }

    fn nth(text: &str, n: usize) -> Line {
        let mut start = 0;
        for _ in 0..n {
            start += text[start..].find('\n').map_or(text.len() - start, |i| i + 1);
        }
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        Line {
            number: n,
            start,
            end: super::super::trim_cr(text.as_bytes(), start, end),
        }
    }

    /// The lines `messages_of_failures` attaches, given each line's kind.
    fn attached(text: &str, kinds: &[LineKind]) -> Vec<usize> {
        let all: Vec<(Line, LineKind)> = kinds
            .iter()
            .enumerate()
            .map(|(n, k)| (nth(text, n), *k))
            .collect();
        messages_of_failures(text, &all)
            .iter()
            .map(|m| m.line.number)
            .collect()
    }

    /// TOOL-8: the message fields of the payload an error opens are its
    /// message, past a failure's word among the payload's keys (a union's
    /// `"errors": [`), which opens no failure of its own.
    #[test]
    fn tool_8_a_payload_s_messages_are_its_error_s() {
        use LineKind::{Context, Failure, Plain};
        let text = concat!(
            "ZodError: [\n",
            "  {\n",
            "    \"errors\": [\n",
            "      { \"code\": \"too_small\" },\n",
            "      \"message\": \"Too small: expected string to have >=5 characters\"\n",
            "    ],\n",
            "    \"message\": \"Invalid input\"\n",
            "  }\n",
            "]\n",
            " ❯ src/a.test.ts:8:17\n",
            "  \"message\": \"not in a payload\"\n",
        );
        let kinds = [
            Failure, Plain, Failure, Plain, Plain, Plain, Plain, Plain, Plain, Context, Plain,
        ];
        assert_eq!(attached(text, &kinds), [4, 6]);
        // A failure right after the payload is read as any: its operand is
        // its message.
        let next = format!("{text}AssertionError: values differ\n  Expected: 2\n");
        let mut more = kinds.to_vec();
        more.extend([Failure, Context]);
        assert_eq!(attached(&next, &more), [4, 6, 12]);
        // Without the payload's end in reach, its fields are read as any
        // other lines: no message field is the error's by its name.
        let open = text.replace("]\n ❯", "x\n ❯");
        let fields = attached(&open, &kinds);
        assert!(!fields.contains(&6), "{fields:?}");
    }

    /// TOOL-8: each error of a Pydantic `ValidationError` has the field
    /// right above it for its message; a line above anything else, or two
    /// lines above, is none.
    #[test]
    fn tool_8_a_pydantic_error_s_field_is_its_message() {
        use LineKind::{Failure, Plain};
        let text = concat!(
            "pydantic_core._pydantic_core.ValidationError: 2 validation errors for Order\n",
            "id\n",
            "  Input should be a valid integer [type=int_parsing, input_value='x', input_type=str]\n",
            "email\n",
            "\n",
            "  Field required [type=missing]\n",
            "name\n",
            "  total is too low\n",
        );
        let kinds = [Failure, Plain, Failure, Plain, Plain, Failure, Plain, Failure];
        let fields = attached(text, &kinds);
        assert!(fields.contains(&1), "{fields:?}");
        assert!(!fields.contains(&3) && !fields.contains(&6), "{fields:?}");
        // Only over a failure.
        let plain = [Failure, Plain, Plain, Plain, Plain, Failure, Plain, Failure];
        assert!(!attached(text, &plain).contains(&1));
    }

    #[test]
    fn a_failure_s_message_is_found_within_its_reach() {
        use LineKind::{Context, Failure, Plain};
        let filler = "x\n".repeat(4);
        // An operand two lines below its failure is its message; one four
        // lines below is not.
        let text = format!("{filler}error: values differ\nx\n  left: 3\nx\nx\nx\n  right: 4\n");
        let kinds = [
            Plain, Plain, Plain, Plain, Failure, Plain, Context, Plain, Plain, Plain, Context,
        ];
        assert_eq!(attached(&text, &kinds), [6]);
        // Three lines below, past a blank and a label (Playwright's
        // `Locator: …` above `Expected string: "1"`), it is still; the
        // next operand follows within two lines of it, not three.
        let text = format!(
            "{filler}Error: failed\n\n  Locator: x\n  Expected: 1\n  Received: 0\nx\nx\n  Actual: 2\n"
        );
        let kinds = [
            Plain, Plain, Plain, Plain, Failure, Plain, Plain, Context, Context, Plain, Plain, Context,
        ];
        assert_eq!(attached(&text, &kinds), [7, 8]);
        let text = format!("{filler}Error: failed\n\nx\nx\n  Expected: 1\n");
        let kinds = [Plain, Plain, Plain, Plain, Failure, Plain, Plain, Plain, Context];
        assert!(attached(&text, &kinds).is_empty());
        // Under a heading: the lines with text within its reach.
        let text = format!("{filler}1) Cart\n  #total()\n\nx\nx\nx\n  far below\n");
        let kinds = [
            Plain, Plain, Plain, Plain, Failure, Plain, Plain, Plain, Plain, Plain, Plain,
        ];
        assert_eq!(attached(&text, &kinds), [5, 7, 8, 9]);
    }

    #[test]
    fn a_verdict_beside_a_passing_test_of_its_listing_is_listed() {
        let text = "tests/a.py::test_w PASSED [ 2%]\ntests/a.py::test_x FAILED [ 3%]\ntests/a.py::test_y FAILED [ 4%]\ntests/a.py::test_z FAILED [ 5%]\nFAILED tests/a.py::test_x - AssertionError: 1 != 2\n";
        // Beside a passing test of the listing, above or below.
        assert!(is_listed_verdict(text, &nth(text, 1)));
        // Between two failures: not beside a pass.
        assert!(!is_listed_verdict(text, &nth(text, 2)));
        // The summary's line starts otherwise than the listing's.
        assert!(!is_listed_verdict(text, &nth(text, 4)));
        let cargo = "test t::b ... FAILED\ntest t::c ... ok\n";
        assert!(is_listed_verdict(cargo, &nth(cargo, 0)));
        // Go's verdicts share only punctuation with the passing ones: Go
        // names a failed test nowhere else.
        let go = "    --- PASS: TestT/a (0.00s)\n    --- FAIL: TestT/b (0.00s)\n";
        assert!(!is_listed_verdict(go, &nth(go, 1)));
        // Jest's marks share six bytes, none a letter or digit: jest's
        // failures come back under `●` with their details all the same,
        // but the shared start alone is no listing.
        let jest = "    \u{2713} adds 1 (2 ms)\n    \u{2715} adds floats (1 ms)\n";
        assert_eq!(diagnose::line_kind(jest.lines().next().unwrap()), LineKind::Noise);
        assert!(!is_listed_verdict(jest, &nth(jest, 1)));
    }

    #[test]
    fn a_line_s_neighbours_are_found_with_their_numbers() {
        let text = "a\r\nbb\nccc\n";
        let after = line_after(text, &nth(text, 0)).unwrap();
        assert_eq!((after.number, line_str(text, &after)), (1, "bb"));
        let after = line_after(text, &after).unwrap();
        assert_eq!((after.number, line_str(text, &after)), (2, "ccc"));
        let before = line_before(text, &nth(text, 1)).unwrap();
        assert_eq!((before.number, line_str(text, &before)), (0, "a"));
        assert!(line_before(text, &nth(text, 0)).is_none());
        assert!(line_after("last", &nth("last", 0)).is_none());
    }

    #[test]
    fn an_indented_finding_s_file_is_the_unindented_line_above_it() {
        let text = "\n/app/src/a.js\n  1:2  error  x  no-var\n\n  3:4  error  y  eqeqeq\n\nFILE: src\\B.php\n  5 | ERROR | z\n\u{2716} 2 problems\n  6:1  error  w\n";
        let heading = file_heading(text, &nth(text, 4)).unwrap();
        assert_eq!((heading.number, line_str(text, &heading)), (1, "/app/src/a.js"));
        assert_eq!(file_heading(text, &nth(text, 7)).map(|l| l.number), Some(6));
        // Not a path above it; an unindented finding has none; nor has
        // the top line.
        assert!(file_heading(text, &nth(text, 9)).is_none());
        assert!(file_heading(text, &nth(text, 8)).is_none());
        assert!(file_heading(text, &nth(text, 0)).is_none());
    }

    #[test]
    fn a_rust_frame_brings_its_function() {
        let text = "   4: app::load\n             at ./src/main.rs:3:51\n   5: app::main\r\n             at ./src/main.rs:9:20\nx\n             at ./src/lib.rs:1:1\n   at /app/a.js:3:4\n";
        let name = function_above_frame(text, &nth(text, 1)).unwrap();
        assert_eq!((name.number, line_str(text, &name)), (0, "   4: app::load"));
        let name = function_above_frame(text, &nth(text, 3)).unwrap();
        assert_eq!(line_str(text, &name), "   5: app::main");
        // No numbered function above, or not a Rust location.
        assert!(function_above_frame(text, &nth(text, 5)).is_none());
        assert!(function_above_frame(text, &nth(text, 6)).is_none());
        assert!(function_above_frame(text, &nth(text, 0)).is_none());
        // A numbered line above a frame that is not Rust's, or above a
        // Rust location that is no frame; a line above that is not a
        // number and a function.
        for text in [
            "   7: app::x\n   at /app/a.js:3:4",
            "   8: app::y\nsrc/main.rs:3:5",
            "note: app::z\n   at ./src/a.rs:1:1",
            ": app::w\n   at ./src/a.rs:1:1",
            "   9: \n   at ./src/a.rs:1:1",
        ] {
            assert!(function_above_frame(text, &nth(text, 1)).is_none(), "{text}");
        }
    }

    #[test]
    fn a_location_beside_a_failure_is_a_diagnostic_line() {
        let text =
            "x\n  --> src/a.rs:3:5\nerror: boom\ny\n  --> src/b.rs:1:1\nz\nerror: bang\n  --> src/c.rs:2:2\n";
        let kinds = [
            LineKind::Plain,
            LineKind::Context,
            LineKind::Failure,
            LineKind::Plain,
            LineKind::Context,
            LineKind::Plain,
            LineKind::Failure,
            LineKind::Context,
        ];
        // Its plain lines are not looked at, so a line away is next in the
        // list.
        let numbers = diagnostic_numbers(text, &kinds, |_, k| k != LineKind::Plain);
        // Right before or right after a failure; not a line away.
        assert!(numbers.contains(&1) && numbers.contains(&7), "{numbers:?}");
        assert!(!numbers.contains(&4), "{numbers:?}");
    }

    /// TOOL-8: bandit's place of a finding, under the fields it lists
    /// first, is the finding's context; a place under fields of no
    /// failure, or under more fields than a finding lists, is not.
    #[test]
    fn a_finding_s_place_under_its_fields_is_a_diagnostic_line() {
        let text = concat!(
            ">> Issue: [B602:subprocess_popen_with_shell_equals_true] shell=True\n",
            "   Severity: High   Confidence: High\n",
            "   CWE: CWE-78 (https://cwe.mitre.org/data/definitions/78.html)\n",
            "   More Info: https://bandit.readthedocs.io/\n",
            "   Location: src/run.py:42:8\n",
            "Run metrics:\n",
            "   Severity: Low   Confidence: Low\n",
            "   Location: src/b.py:1:1\n",
            "Files skipped (0):\n",
            ">> Issue: [B101:assert_used] assert\n",
            "   A: 1\n   B: 2\n   C: 3\n   D: 4\n   E: 5\n",
            "   Location: src/c.py:2:2\n",
        );
        let mut kinds = vec![LineKind::Plain; 16];
        for (n, k) in [
            (0, LineKind::Failure),
            (4, LineKind::Context),
            (7, LineKind::Context),
            (9, LineKind::Failure),
            (15, LineKind::Context),
        ] {
            kinds[n] = k;
        }
        assert_eq!(
            finding_above_fields(text, &nth(text, 4)).map(|l| l.number),
            Some(0)
        );
        assert_eq!(finding_above_fields(text, &nth(text, 0)), None);
        // As many fields as a finding may list stand between it and its
        // place; one more, and the place is no finding's.
        let four = ">> Issue: [B101:assert_used] assert\n   A: 1\n   B: 2\n   C: 3\n   D: 4\n   Location: a.py:1:1\n";
        assert_eq!(
            finding_above_fields(four, &nth(four, 5)).map(|l| l.number),
            Some(0)
        );
        let numbers = diagnostic_numbers(text, &kinds, |_, k| k != LineKind::Plain);
        assert!(numbers.contains(&4), "{numbers:?}");
        assert!(!numbers.contains(&7) && !numbers.contains(&15), "{numbers:?}");
    }

    #[test]
    fn pytest_s_crash_location_under_a_blank_line_is_a_diagnostic_line() {
        // pytest prints where the exception was raised under its `E`
        // lines and a blank line; a location two lines under a failure
        // with printed text between is not its context.
        let text = "E   conf.ImproperlyConfigured: no settings\n\ndjango/conf/__init__.py:57: ImproperlyConfigured\n=== warnings ===\nE   KeyError: 'a'\nx\nsrc/b.py:6: in f\n";
        let kinds = [
            LineKind::Failure,
            LineKind::Plain,
            LineKind::Context,
            LineKind::Plain,
            LineKind::Failure,
            LineKind::Plain,
            LineKind::Context,
        ];
        // The blank line among the candidates, the printed plain ones not.
        let numbers = diagnostic_numbers(text, &kinds, |n, _| n != 3 && n != 5);
        assert!(numbers.contains(&2), "{numbers:?}");
        assert!(!numbers.contains(&6), "{numbers:?}");
    }

    #[test]
    fn the_location_under_a_warning_is_a_diagnostic_line_the_one_above_is_not() {
        // rustc's and oxlint's location under a warning's heading; pytest's
        // warnings summary names the place above the warning.
        let text = "warning: unused\n  --> src/a.rs:3:5\nx\nsrc/b.py:6\n  DeprecationWarning: old\n";
        let kinds = [
            LineKind::Warning,
            LineKind::Context,
            LineKind::Plain,
            LineKind::Context,
            LineKind::Warning,
        ];
        let numbers = diagnostic_numbers(text, &kinds, |_, _| true);
        assert!(numbers.contains(&1), "{numbers:?}");
        assert!(!numbers.contains(&3), "{numbers:?}");
    }

    #[test]
    fn a_python_frame_brings_its_code_line() {
        let text = "Traceback (most recent call last):\r\n  File \"/app/db.py\", line 86, in run\r\n    return cursor.execute(sql)\r\n  File \"/app/x.py\", line 3, in f\n  File \"/app/y.py\", line 4, in g\n\n  File \"/app/z.py\", line 5, in h\nnot indented\n  File \"/app/end.py\", line 6, in e";
        let code = code_under_frame(text, &nth(text, 1)).unwrap();
        assert_eq!(
            (code.number, line_str(text, &code)),
            (2, "    return cursor.execute(sql)")
        );
        // A frame under a frame, a blank line, an unindented line or the
        // end of the text is no code line.
        for n in [3, 4, 6, 8] {
            assert!(code_under_frame(text, &nth(text, n)).is_none(), "line {n}");
        }
        // Only a Python frame brings one.
        assert!(code_under_frame(text, &nth(text, 0)).is_none());
    }

    /// TOOL-8: an exception raised without a message (a bare `assert`'s
    /// `AssertionError`) has the code line of the traceback's last frame
    /// for its message, above Python 3.11's position markers or not; an
    /// exception with a message, or a name under anything but a frame's
    /// code, has none.
    #[test]
    fn tool_8_a_bare_exception_s_message_is_the_code_over_it() {
        use super::frames::code_over_bare_exception;
        let code_over = |text: &str, n: usize| {
            code_over_bare_exception(text, &nth(text, n)).map(|l| line_str(text, &l).to_owned())
        };
        let py311 = "Traceback (most recent call last):\n  File \"t.py\", line 3, in test_a\n    assert total(2) == 5\n           ^^^^^^^^^^^^^\nAssertionError\n";
        assert_eq!(code_over(py311, 4).as_deref(), Some("    assert total(2) == 5"));
        let py310 = "Traceback (most recent call last):\n  File \"t.py\", line 3, in test_a\n    assert total(2) == 5\nAssertionError\n";
        assert_eq!(code_over(py310, 3).as_deref(), Some("    assert total(2) == 5"));
        // An exception with a message says what failed itself.
        let said = "  File \"t.py\", line 3, in f\n    raise KeyError(k)\nKeyError: 'sku'\n";
        assert_eq!(code_over(said, 2), None);
        // A name alone under anything but a frame's code is no exception's.
        let other = "running\n    step 2\nDONE\n";
        assert_eq!(code_over(other, 2), None);
        // An exception's name is a dotted identifier ending on a capital.
        for (line, bare) in [
            ("pkg.errors.Timeout", true),
            ("_private.CheckError", true),
            ("2.Error", false),
            ("Error: x", false),
            ("error", false),
        ] {
            let text = format!("  File \"t.py\", line 3, in f\n    assert x\n{line}\n");
            assert_eq!(code_over(&text, 2).is_some(), bare, "{line}");
        }
    }

    #[test]
    fn a_failure_brings_the_frame_above_its_code_line() {
        let text = "____ test_div ____\ntests/t.py:4: in test_div\n    assert div(1, 0) == 0\npkg/calc.py:8: in div\n    return a / b\n           ^^^^^\nE   ZeroDivisionError: division by zero\n";
        let frame = frame_above(text, &nth(text, 6)).unwrap();
        assert_eq!(
            (frame.number, line_str(text, &frame)),
            (3, "pkg/calc.py:8: in div")
        );
        // Three lines up at most: the frame, its code line, its markers.
        let far = "a.py:1: in f\n    x\n    y\n    z\nE   ValueError: v\n";
        assert!(frame_above(far, &nth(far, 4)).is_none());
        let near = "a.py:1: in f\n    x\n    y\nE   ValueError: v\n";
        assert_eq!(frame_above(near, &nth(near, 3)).map(|l| l.number), Some(0));
        // Another diagnostic above ends the search; so does the text's start.
        let other = "a.py:1: in f\nE   KeyError: k\n    x\nE   ValueError: v\n";
        assert!(frame_above(other, &nth(other, 3)).is_none());
        assert!(frame_above(text, &nth(text, 0)).is_none());
    }

    /// The kind of each line of `text`, read in its place.
    fn kinds_in_place(text: &str) -> HashMap<usize, LineKind> {
        text.lines()
            .enumerate()
            .map(|(n, l)| (n, diagnose::line_kind_in(text, l)))
            .collect()
    }

    #[test]
    fn a_failure_brings_the_first_project_frame_of_the_stack_under_it() {
        // Jest: the message, its code frame, then the stack, whose first
        // frame in the project names the file the code frame shows.
        let text = "  ● badge\n\n    TypeError: Cannot read properties of undefined (reading 'toString')\n\n      26 | export function Badge({ count }) {\n    > 27 |   return <span>{count.toString()}</span>;\n         |                 ^\n      28 | }\n\n      at toString (src/Cart.jsx:27:41)\n      at renderWithHooks (node_modules/react-dom/cjs/react-dom.development.js:15486:18)\n      at Object.<anonymous> (src/Cart.test.jsx:19:9)\n";
        let kinds = kinds_in_place(text);
        let frame = frame_below(text, &nth(text, 2), &kinds).unwrap();
        assert_eq!(
            (frame.number, line_str(text, &frame)),
            (9, "      at toString (src/Cart.jsx:27:41)")
        );
        // The test's heading has its message first, another diagnostic.
        assert!(frame_below(text, &nth(text, 0), &kinds).is_none());
        // A code frame's lines are places, not frames of the stack; past
        // the reach there is none.
        let far = format!("Error: e\n{}  at f (src/a.js:1:1)\n", "x\n".repeat(14));
        assert!(frame_below(&far, &nth(&far, 0), &kinds_in_place(&far)).is_none());
        let near = far.replacen("x\n", "", 1);
        let frame = frame_below(&near, &nth(&near, 0), &kinds_in_place(&near));
        assert_eq!(frame.map(|l| l.number), Some(14));
    }

    #[test]
    fn the_same_place_in_two_goroutines_is_one_place() {
        let place = |l: &str| diagnose::frame_place(l).into_owned();
        assert_eq!(
            place("\t/src/queue.go:21 +0x45"),
            place("\t/src/queue.go:21 +0x58")
        );
        assert_eq!(
            place("goroutine 9 [chan receive]:"),
            place("goroutine 12 [chan receive]:")
        );
        assert_eq!(place("Thread 3 (LWP 77):"), place("Thread 4 (LWP 77):"));
        assert_eq!(
            place("#1  0x00005555555551a9 in load (p=0x0) at cart.c:9"),
            "#1   in load (p=0x0) at cart.c:9"
        );
        assert_ne!(
            place("\t/src/queue.go:21 +0x45"),
            place("\t/src/queue.go:31 +0x45")
        );
        assert_ne!(
            place("goroutine 9 [chan receive]:"),
            place("goroutine 9 [running]:")
        );
    }

    #[test]
    fn an_exception_group_s_failure_brings_its_frame_through_the_gutter() {
        // Python 3.11's exception group: the code and its marks under the
        // gutter read as a code frame's lines, nearer than the frame.
        let text = "  +-+---------------- 1 ----------------\n    | Traceback (most recent call last):\n    |   File \"/app/sync.py\", line 7, in fetch\n    |     if i == 7: raise ValueError(\"bad checksum\")\n    |                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n    | ValueError: bad checksum\n";
        assert_eq!(
            diagnose::line_kind(line_str(text, &nth(text, 5))),
            LineKind::Failure
        );
        assert_eq!(
            diagnose::line_kind(line_str(text, &nth(text, 4))),
            LineKind::Context
        );
        assert_eq!(frame_above(text, &nth(text, 5)).map(|l| l.number), Some(2));
        // A library's frame is no place to fix: the nearest location is.
        let library = text.replace("/app/sync.py", "/usr/lib/python3.11/asyncio/taskgroups.py");
        assert_eq!(
            frame_above(&library, &nth(&library, 5)).map(|l| l.number),
            Some(4)
        );
    }

    #[test]
    fn pytest_s_short_frames_are_python_frames() {
        assert!(is_python_frame("tests/test_calc.py:365: in test_div_zero"));
        assert!(is_python_frame("  File \"/app/x.py\", line 3, in f"));
        for line in [
            "tests/test_calc.py:365: AssertionError",
            "calc.rs:3: in f",
            "a.py:x3: in f",
            "a.py:: in f",
            "a.py:3: in ",
            "a.py:3: in two words",
        ] {
            assert!(!is_python_frame(line), "{line}");
        }
        let text = "pkg/calc.py:8: in div\n    return a / b\n";
        assert_eq!(code_under_frame(text, &nth(text, 0)).map(|l| l.number), Some(1));
    }

    #[test]
    fn node_s_place_of_an_uncaught_exception_brings_its_code_line() {
        let text =
            "/app/server.js:12\nconst port = cfg.port;\n                 ^\n\nTypeError: x\n/app/b.ts:3\n\n";
        let code = code_under_frame(text, &nth(text, 0)).unwrap();
        assert_eq!(
            (code.number, line_str(text, &code)),
            (1, "const port = cfg.port;")
        );
        // A blank line is no code line; nor is the end of the text.
        assert!(code_under_frame(text, &nth(text, 5)).is_none());
        assert!(code_under_frame("/app/a.js:3", &nth("/app/a.js:3", 0)).is_none());
        for place in ["/app/server.js:12", "a.mjs:1", "src/x.cts:40"] {
            assert!(is_node_place(place), "{place}");
        }
        for line in [
            "/app/server.js:",
            "/app/server.js:1x",
            "see /app/a.js:3",
            "/app/a.py:3",
            "/app/a.js",
        ] {
            assert!(!is_node_place(line), "{line}");
        }
    }
}

//! What the model sees of a command's output that is too long: its head,
//! the diagnostic lines between and its tail (TRUNC-1, TOOL-8).
//!
//! A 5,000-line test log cut to its first 2,000 lines hides the `FAILED`
//! line at line 4,990 until the round ends. For shell tools (and tools
//! nobody listed) the view keeps the end as well: a fifth of the limits
//! for the last lines, up to two fifths for lines from between (at most
//! [`DIAGNOSTICS`]), chosen as a history form chooses them
//! ([`text::kept`]: the last failure and its message first, noise last),
//! and the rest for the head, with `[… N lines …]` where lines are left
//! out. The head gets what the lines between leave: an output with none
//! shows more of its start. A head that runs into noise (passing tests,
//! downloads) stops a few lines into it, and its room goes to the lines
//! between, then to a tail grown back over the failure details a test
//! runner prints last.
//!
//! Both truncation paths build the view from the same bytes: the first
//! `max_bytes + 1` bytes of the output and its last [`END_WINDOW`] ×
//! `max_bytes` bytes, so that a streamed output and the same output in
//! memory are shown alike.

use memchr::memrchr;

use super::{cut_point, Limits};
use crate::diagnose::{self, LineKind};
use crate::text::{self, cap_line, gap_marker};

/// The most diagnostic lines shown from between head and tail.
pub(super) const DIAGNOSTICS: usize = 200;

/// How many times `max_bytes` of the output's end are kept to find the
/// tail and the diagnostic lines before it.
pub(super) const END_WINDOW: usize = 16;

/// The longest diagnostic line shown whole; longer ones keep both ends.
const DIAGNOSTIC_LINE_BYTES: usize = 400;

/// Room for one gap marker and its newline.
const MARKER_BYTES: usize = 24;

/// A view with head, diagnostics and tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct View {
    /// The text shown.
    pub(super) text: String,
    /// Whole lines of the head shown.
    pub(super) head: usize,
    /// Diagnostic lines shown.
    pub(super) diagnostics: usize,
    /// Lines of the tail shown.
    pub(super) tail: usize,
    /// Lines shown where one short line was left out between others
    /// ([`short_line_before`]), in place of its marker.
    pub(super) between: usize,
    /// Whether bytes that are not UTF-8 were shown as U+FFFD.
    pub(super) lossy: bool,
}

/// Appends `bytes` to `out` as text, checked at SIMD speed; bytes that are
/// not UTF-8 become U+FFFD, and then it returns `true`.
fn push_text(out: &mut String, bytes: &[u8]) -> bool {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => {
            out.push_str(text);
            false
        }
        Err(_) => {
            out.push_str(&String::from_utf8_lossy(bytes));
            true
        }
    }
}

impl View {
    /// Output lines shown (markers aside).
    pub(super) fn shown_lines(&self) -> usize {
        self.head + self.diagnostics + self.between + self.tail
    }

    /// What the notice says is shown: its parts that show something.
    pub(super) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.head > 0 {
            parts.push(format!("the first {}", self.head));
        }
        if self.diagnostics > 0 {
            parts.push(format!(
                "{} diagnostic {}",
                self.diagnostics,
                if self.diagnostics == 1 { "line" } else { "lines" }
            ));
        }
        if self.tail > 0 {
            parts.push(format!("the last {}", self.tail));
        }
        match parts.as_slice() {
            [] => "no line".to_owned(),
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        }
    }
}

/// The view of an output of `total_lines` lines, from `head` (its first `max_bytes + 1` bytes or all of it) and `end`
/// (its last bytes, starting at byte `end_offset`). `None` when the limits
/// leave no room for a tail, or a single line fills them: the caller then
/// shows the head alone.
pub(super) fn compose(
    head: &[u8],
    end: &[u8],
    end_offset: usize,
    total_lines: usize,
    limits: Limits,
) -> Option<View> {
    let tail_lines_max = limits.max_lines / 5;
    let tail_bytes_max = limits.max_bytes / 5;
    if tail_lines_max == 0 || tail_bytes_max == 0 {
        return None;
    }
    // `end` from its first whole line.
    let first = if end_offset == 0 {
        0
    } else {
        memchr::memchr(b'\n', end).map_or(end.len(), |i| i + 1)
    };
    let end_bytes = &end[first..];
    // A last line longer than the tail's room leaves the tail empty; the
    // lines before the end may still show it, cut.
    let (tail_start, tail) =
        tail_of(end_bytes, tail_lines_max, tail_bytes_max).unwrap_or((end_bytes.len(), 0));

    let diagnostics_max = (limits.max_lines / 5).min(DIAGNOSTICS);
    let diagnostic_bytes = if diagnostics_max == 0 {
        0
    } else {
        limits.max_bytes * 2 / 5
    };
    let tail_bytes = end_bytes.len() - tail_start;
    // The head first takes what the diagnostic lines may not need, then
    // what they left.
    let head_within = |lines: usize, bytes: usize| -> Option<Limits> {
        let limits = Limits::new(
            limits.max_lines.checked_sub(tail + 2 * lines + 2)?.max(1),
            limits
                .max_bytes
                .checked_sub(tail_bytes + bytes + 2 * MARKER_BYTES)?,
        );
        (limits.max_bytes > 0).then_some(limits)
    };
    // Whole lines of the head within `limits`; none when its first line
    // alone is longer.
    let head_cut = |limits: Limits| match cut_point(head, limits, None) {
        (_, _, true) => (0, 0),
        (end, lines, false) => (end, lines),
    };
    let (least_head_end, least_lines) = head_cut(head_within(diagnostics_max, diagnostic_bytes)?);
    if least_lines == 0 && memchr::memchr(b'\n', head).is_none() {
        // One line longer than the limits: its start is what can be shown.
        return None;
    }
    // The diagnostic lines between the head's end and the tail.
    let start_of = |head_end: usize| (end_offset + first).max(head_end) - (end_offset + first);
    let region_of = |head_end: usize| end_bytes.get(start_of(head_end)..tail_start).unwrap_or_default();
    let (head_end, head_lines, picked, tail_start, tail) =
        if let Some((end, lines)) = quiet_head(&head[..least_head_end]) {
            // The head stops in its first run of noise (passing tests,
            // downloads, dependency builds); the diagnostic lines get the
            // room it leaves, then the tail what they leave.
            let lines_left = limits.max_lines.saturating_sub(tail + lines + 2);
            let bytes_left = limits.max_bytes.saturating_sub(end + 2 * MARKER_BYTES);
            let picked = diagnostics_in(
                region_of(end),
                (lines_left / 2).min(DIAGNOSTICS),
                bytes_left.saturating_sub(tail_bytes),
            );
            let picked_cost = shown_cost(region_of(end), &picked);
            let after_head = end_bytes.get(start_of(end)..).unwrap_or_default();
            let (grown_start, grown) = grow_tail(
                after_head,
                (tail_start.saturating_sub(start_of(end)), tail),
                lines_left.saturating_sub(picked_cost.lines).max(tail),
                bytes_left.saturating_sub(picked_cost.bytes).max(tail_bytes),
            );
            // Lines the grown tail shows are not shown again.
            let picked: Vec<(usize, String)> = picked
                .into_iter()
                .filter(|(start, _)| *start < grown_start)
                .collect();
            (end, lines, picked, start_of(end) + grown_start, grown)
        } else {
            let picked = diagnostics_in(region_of(least_head_end), diagnostics_max, diagnostic_bytes);
            let cost = shown_cost(region_of(least_head_end), &picked);
            let (head_end, head_lines) = head_cut(head_within(cost.lines.div_ceil(2), cost.bytes)?);
            // The picked lines' starts from the head's end; lines the grown
            // head shows are not shown again.
            let (was, is) = (start_of(least_head_end), start_of(head_end));
            let picked: Vec<(usize, String)> = picked
                .into_iter()
                .filter(|(start, _)| was + start >= is)
                .map(|(start, line)| (was + start - is, line))
                .collect();
            (head_end, head_lines, picked, tail_start, tail)
        };
    let region = end_bytes.get(start_of(head_end)..tail_start).unwrap_or_default();
    // The line number of the region's first line, counted once; each
    // picked line's from the one before it.
    let mut number = total_lines - tail - text::line_count(region);
    let mut counted = 0;

    let mut out = String::with_capacity(limits.max_bytes);
    let mut lossy = push_text(&mut out, &head[..head_end]);
    let mut next = head_lines;
    let mut between = 0;
    for (start, line) in &picked {
        number += text::newlines(&region[counted..*start]);
        counted = *start;
        if number > next {
            between += usize::from(push_gap(
                &mut out,
                number - next,
                short_line_before(region, *start),
            ));
        }
        out.push_str(&cap_line(line, DIAGNOSTIC_LINE_BYTES));
        out.push('\n');
        next = number + 1;
    }
    let tail_first = total_lines - tail;
    if tail_first > next {
        between += usize::from(push_gap(
            &mut out,
            tail_first - next,
            short_line_before(region, region.len()),
        ));
    }
    lossy |= push_text(&mut out, &end_bytes[tail_start..]);
    if head_lines + picked.len() + tail == 0 {
        return None;
    }
    Some(View {
        text: out,
        head: head_lines,
        diagnostics: picked.len(),
        tail,
        between,
        lossy,
    })
}

/// Writes the marker for `lines` left out, or the one line left out
/// itself when it is `short` ([`short_line_before`]): the view reads as
/// printed and never grows for it. Returns whether the line was shown.
fn push_gap(out: &mut String, lines: usize, short: Option<&str>) -> bool {
    let shown = match short {
        Some(line) if lines == 1 => {
            out.push_str(line);
            true
        }
        _ => {
            out.push_str(&gap_marker(lines));
            false
        }
    };
    out.push('\n');
    shown
}

/// The line of `region` that ends where the line at `at` begins, when it
/// is no longer than the marker that would stand for it (a blank line,
/// `PASSED`, a closing brace) and is text.
fn short_line_before(region: &[u8], at: usize) -> Option<&str> {
    if region.get(at.checked_sub(1)?) != Some(&b'\n') {
        return None;
    }
    let (start, end) = diagnose::lines_above(region, at).next()?;
    if !text::shown_for_its_marker(end - start) {
        return None;
    }
    std::str::from_utf8(&region[start..end]).ok()
}

/// Where the tail starts in `end`, and its lines: the last whole lines,
/// at most `lines` of them within `bytes`. `None` when not even the last
/// line fits.
fn tail_of(end: &[u8], lines: usize, bytes: usize) -> Option<(usize, usize)> {
    if end.is_empty() {
        return None;
    }
    let mut start = end.len();
    let mut count = 0;
    // A last line without a newline is a line too.
    let mut search_end = if end.last() == Some(&b'\n') {
        end.len() - 1
    } else {
        end.len()
    };
    while count < lines {
        let line_start = memrchr(b'\n', &end[..search_end]).map_or(0, |i| i + 1);
        if end.len() - line_start > bytes {
            break;
        }
        start = line_start;
        count += 1;
        if line_start == 0 {
            break;
        }
        search_end = line_start - 1;
    }
    (count > 0).then_some((start, count))
}

/// The lines of `region` worth showing between the head and the tail,
/// at most `max` and within `bytes`, each with its start, as a history
/// form keeps them ([`text::kept`]): the last failure and its message
/// first, then summaries, the other failures, warnings and their context,
/// noise last. The region is read lossily; the starts are its own.
fn diagnostics_in(region: &[u8], max: usize, bytes: usize) -> Vec<(usize, String)> {
    if max == 0 || region.is_empty() || bytes == 0 {
        return Vec::new();
    }
    let said = String::from_utf8_lossy(region);
    let budget = text::Budget {
        head: 0,
        tail: 0,
        diagnostics: max,
        max_bytes: bytes,
        max_line_bytes: DIAGNOSTIC_LINE_BYTES,
        max_failure_line_bytes: DIAGNOSTIC_LINE_BYTES,
        grow: 0,
    };
    // Lossy reading keeps the newlines: line `n` starts where it did.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', region).map(|i| i + 1))
        .collect();
    let lines: Vec<(usize, String)> = match text::kept(&said, &budget) {
        text::Kept::Within(_) => said
            .split('\n')
            .enumerate()
            .map(|(n, line)| (n, line.strip_suffix('\r').unwrap_or(line).to_owned()))
            .collect(),
        text::Kept::Lines(kept, _) => kept.into_iter().map(|(n, line)| (n, line.into_owned())).collect(),
    };
    let mut shown: Vec<(usize, String)> = lines
        .into_iter()
        .filter_map(|(n, line)| Some((*starts.get(n)?, line)))
        .filter(|(start, _)| *start < region.len())
        .collect();
    // Within `bytes` and `max` lines and as many markers, as the view
    // counts them: the first lines go first, the last failure is at the
    // end.
    let costs = line_costs(region, &shown);
    let mut cost = total(&costs);
    let mut first = 0;
    while first < costs.len() && (cost.lines > 2 * max || cost.bytes > bytes) {
        // The first line has a marker before it, its own or given below.
        cost.bytes -= costs[first].bytes + MARKER_BYTES * (2 - costs[first].lines);
        cost.lines -= 2;
        first += 1;
        // The next line, now the first, needs a marker before it.
        if costs.get(first).is_some_and(|c| c.lines == 1) {
            cost.bytes += MARKER_BYTES;
            cost.lines += 1;
        }
    }
    shown.drain(..first);
    shown
}

/// What showing some lines of a region costs ([`shown_cost`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cost {
    /// Bytes: each line, capped, its newline and its marker.
    bytes: usize,
    /// Lines: the lines and their markers.
    lines: usize,
}

/// What showing the lines `picked` of `region` (with their starts, in
/// order) costs: each line, capped, and its newline, and a gap marker
/// before each that does not follow the one before it.
fn shown_cost(region: &[u8], picked: &[(usize, String)]) -> Cost {
    total(&line_costs(region, picked))
}

/// The sum of `costs`.
fn total(costs: &[Cost]) -> Cost {
    costs.iter().fold(Cost { bytes: 0, lines: 0 }, |sum, c| Cost {
        bytes: sum.bytes + c.bytes,
        lines: sum.lines + c.lines,
    })
}

/// What showing each of the lines `picked` of `region` costs
/// ([`shown_cost`]): a line that follows the one before it needs no
/// marker (one line), another one (two).
fn line_costs(region: &[u8], picked: &[(usize, String)]) -> Vec<Cost> {
    let mut before: Option<usize> = None;
    picked
        .iter()
        .map(|(start, line)| {
            let follows =
                before.is_some_and(|b| text::newlines(region.get(b..*start).unwrap_or_default()) == 1);
            before = Some(*start);
            let marker = usize::from(!follows);
            Cost {
                bytes: line.len().min(DIAGNOSTIC_LINE_BYTES) + 1 + marker * MARKER_BYTES,
                lines: 1 + marker,
            }
        })
        .collect()
}

/// How many noise lines in a row end the head ([`quiet_head`]).
const NOISE_RUN: usize = 8;

/// How many lines of that run the head keeps: what kind of output it was.
const NOISE_KEPT: usize = 3;

/// Where the head stops when it runs into noise, and its lines then: after
/// the first [`NOISE_KEPT`] lines of its first run of [`NOISE_RUN`] noise
/// lines (blank lines neither count nor break a run). `None` when `head`
/// has no such run.
fn quiet_head(head: &[u8]) -> Option<(usize, usize)> {
    let (mut run, mut kept_end, mut lines, mut start) = (0, None, 0, 0);
    while start < head.len() {
        let end = memchr::memchr(b'\n', &head[start..]).map_or(head.len(), |i| start + i);
        let line = String::from_utf8_lossy(&head[start..end]);
        let line = diagnose::line_as_shown(&line);
        lines += 1;
        if diagnose::kind_in_place(line, &head[end..]) == LineKind::Noise {
            run += 1;
            if run == NOISE_KEPT {
                kept_end = Some(((end + 1).min(head.len()), lines));
            }
            if run == NOISE_RUN {
                return kept_end;
            }
        } else if !line.trim().is_empty() {
            (run, kept_end) = (0, None);
        }
        start = end + 1;
    }
    None
}

/// The tail, starting at `start` in `end` with `lines` lines, grown
/// backwards over the lines before it (a test runner's failure details)
/// until a run of [`NOISE_RUN`] noise lines, within `max_lines` and
/// `max_bytes` in all: room left by a quiet head goes to what the output
/// said at its end, not to more noise.
fn grow_tail(
    end: &[u8],
    (start, lines): (usize, usize),
    max_lines: usize,
    max_bytes: usize,
) -> (usize, usize) {
    let (mut start, mut lines) = (start.min(end.len()), lines);
    // Where the tail stood before the run of noise it is in.
    let (mut run, mut before_run) = (0, (start, lines));
    while start > 0 && lines < max_lines {
        let line_end = start - 1;
        let line_start = memrchr(b'\n', &end[..line_end]).map_or(0, |i| i + 1);
        if end.len() - line_start > max_bytes {
            break;
        }
        let line = String::from_utf8_lossy(&end[line_start..line_end]);
        let line = diagnose::line_as_shown(&line);
        if diagnose::kind_in_place(line, &end[line_end..]) == LineKind::Noise {
            if run == 0 {
                before_run = (start, lines);
            }
            run += 1;
            if run == NOISE_RUN {
                return before_run;
            }
        } else if !line.trim().is_empty() {
            run = 0;
        }
        start = line_start;
        lines += 1;
    }
    (start, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_utf8_keep_the_numbering() {
        let mut log: Vec<u8> = Vec::new();
        for i in 0..400 {
            match i {
                250 => log.extend_from_slice(b"\xff\xfe\xff\xfe binary junk \xc3\n"),
                300 => log.extend_from_slice(b"error: linker `cc` failed\n"),
                _ => log.extend_from_slice(format!("line {i}\n").as_bytes()),
            }
        }
        let view = compose(&log, &log, 0, 400, Limits::new(100, 100_000)).unwrap();
        let before = format!("[… {} lines …]\nerror: linker `cc` failed\n", 300 - view.head);
        assert!(view.text.contains(&before), "{}", view.text);
        assert!(view.text.ends_with("line 399\n"));
    }

    #[test]
    fn a_numbered_heading_comes_with_the_failure_below_it() {
        // RSpec: the test's name is on a line no failure word marks; the
        // matcher's operands under the failure are its message.
        let mut log = String::new();
        for i in 0..3_000 {
            match i {
                2_000 => log.push_str(
                    "  1) Calc adds negative numbers\n     Failure/Error: expect(add(-1, -2)).to eq(-3)\n\n       expected: -3\n            got: 3\n",
                ),
                _ => log.push_str(&format!("Calc works for case {i}\n")),
            }
        }
        let view = compose(log.as_bytes(), log.as_bytes(), 0, 3_005, Limits::default()).unwrap();
        // The heading, the failure, the blank line and both operands.
        assert_eq!(view.diagnostics, 5, "{}", view.text);
        assert!(
            view.text.contains(
                "]\n  1) Calc adds negative numbers\n     Failure/Error: expect(add(-1, -2)).to eq(-3)\n\n       expected: -3\n            got: 3\n[…"
            ),
            "{}",
            view.text
        );
    }

    /// TRUNC-1, TOOL-8: far down a log, the last failure comes with the
    /// lines that carry its message (an assertion's operands, a TAP
    /// point's comments); a failure above it does not, so that more
    /// failures fit.
    #[test]
    fn a_diff_s_hunks_are_code_and_their_headers_are_shown() {
        // `cargo fmt --check` over 60 hunks whose code says `Error` and
        // `failed`: the headers are the diagnostics, the code none.
        let mut log = String::new();
        for i in 0..60u8 {
            // Each hunk's code in words of its own, so that no shape is said
            // again and again.
            let name = format!("{}{}", char::from(b'a' + i % 26), char::from(b'a' + i / 26));
            log.push_str(&format!(
                "Diff in /src/m{i}.rs:{i}:\n     type Error = {name}Error;\n-    let x = parse(input)\n-        .map_err(Error::failed)?;\n+    let x = parse(input).map_err(Error::failed)?;\n     Ok(x)\n"
            ));
        }
        let lines = log.lines().count();
        let view = compose(log.as_bytes(), log.as_bytes(), 0, lines, Limits::new(60, 4_000)).unwrap();
        let shown = |s: &str| view.text.matches(s).count();
        assert!(shown("Diff in /src/m") > 6, "{}", view.text);
        assert!(view.text.contains("Diff in /src/m58.rs:58:\n"), "{}", view.text);
        // No code picked from between head and tail.
        for code in ["     type Error = ", "-        .map_err(Error::failed)?;"] {
            assert!(!view.text.contains(&format!("lines …]\n{code}")), "{}", view.text);
        }
    }

    #[test]
    fn the_last_failure_comes_with_its_message() {
        let mut log = String::new();
        for i in 0..3_000 {
            match i {
                1_000 => log.push_str("thread 'tests::a' panicked at src/lib.rs:9:5:\nassertion `left == right` failed\n  left: 136\n right: 137\n"),
                2_000 => log.push_str("not ok 38 config key 33 round-trips\n# (in test file many.bats, line 187)\n#   `[ \"$output\" = \"building k0\" ]' failed\n"),
                _ => log.push_str(&format!("ok {i} case {i}\n")),
            }
        }
        let view = compose(log.as_bytes(), log.as_bytes(), 0, 3_005, Limits::default()).unwrap();
        assert!(
            view.text.contains("]\nnot ok 38 config key 33 round-trips\n# (in test file many.bats, line 187)\n#   `[ \"$output\" = \"building k0\" ]' failed\n[…"),
            "{}",
            view.text
        );
        assert!(
            view.text.contains("assertion `left == right` failed\n"),
            "{}",
            view.text
        );
        // With room, the failure above comes with its operands too.
        assert!(view.text.contains("  left: 136\n right: 137\n"), "{}", view.text);
        // Alone, the assertion is the last failure: its operands come.
        let alone = log.replace("not ok 38", "ok 38");
        let view = compose(alone.as_bytes(), alone.as_bytes(), 0, 3_005, Limits::default()).unwrap();
        assert!(
            view.text
                .contains("assertion `left == right` failed\n  left: 136\n right: 137\n[…"),
            "{}",
            view.text
        );
    }

    #[test]
    fn a_heading_the_search_finds_itself_is_shown_once() {
        // The heading holds a stem (`rror`) and is found on its own; the
        // two failures below it find it again.
        let mut log = String::new();
        for i in 0..3_000 {
            match i {
                2_000 => log.push_str(
                    "  1) Parser raises ParseError on bad input\n     Failure/Error: expect { parse('x') }.to raise_error(ParseError)\n       expected ParseError, got nil\n",
                ),
                _ => log.push_str(&format!("Parser works for case {i}\n")),
            }
        }
        let view = compose(log.as_bytes(), log.as_bytes(), 0, 3_002, Limits::default()).unwrap();
        assert_eq!(
            view.text.matches("1) Parser raises ParseError").count(),
            1,
            "{}",
            view.text
        );
        assert!(view
            .text
            .contains("  1) Parser raises ParseError on bad input\n     Failure/Error:"));
    }

    #[test]
    fn a_head_stops_a_few_lines_into_its_first_run_of_noise() {
        let passing: String = (0..10).map(|i| format!("test t::ok_{i} ... ok\n")).collect();
        let head = format!("running 12 tests\n\n{passing}test t::bad ... FAILED\n");
        // After the heading, the blank line and three lines of the run.
        let (end, lines) = quiet_head(head.as_bytes()).unwrap();
        assert_eq!(lines, 5);
        assert!(head[..end].ends_with("test t::ok_2 ... ok\n"));
        // Blank lines neither count nor break a run.
        let spaced = passing.replace('\n', "\n\n");
        assert_eq!(quiet_head(spaced.as_bytes()).map(|(_, l)| l), Some(5));
        // A run shorter than NOISE_RUN, broken by a line with text, is no
        // stop.
        let broken = passing.replacen("test t::ok_5 ... ok", "building docs", 1);
        let broken = broken.replacen("test t::ok_1 ... ok", "building docs", 1);
        assert_eq!(quiet_head(broken.as_bytes()), None);
        assert_eq!(quiet_head(b"src/a.rs\nsrc/b.rs\n"), None);
    }

    #[test]
    fn a_tail_grows_over_details_up_to_a_run_of_noise() {
        let passing: String = (0..10).map(|i| format!("test t::ok_{i} ... ok\n")).collect();
        let end = format!("{passing}\n---- t::bad stdout ----\nleft: 1\nright: 2\n\ntest result: FAILED\n");
        let tail = end.len() - "test result: FAILED\n".len();
        // Up to the passing tests, all of which it leaves out.
        let (start, lines) = grow_tail(end.as_bytes(), (tail, 1), 100, 10_000);
        assert_eq!((start, lines), (passing.len(), 6));
        // Within its limits.
        assert_eq!(grow_tail(end.as_bytes(), (tail, 1), 3, 10_000).1, 3);
        let (start, _) = grow_tail(end.as_bytes(), (tail, 1), 100, 30);
        assert!(end.len() - start <= 30);
        // From the start of the text, nothing to grow over.
        assert_eq!(grow_tail(b"a\n", (0, 1), 10, 10), (0, 1));
        // Up to the byte: a limit that holds three lines exactly.
        let three = "right: 2\n\ntest result: FAILED\n".len();
        assert_eq!(grow_tail(end.as_bytes(), (tail, 1), 100, three).1, 3);
        assert_eq!(grow_tail(end.as_bytes(), (tail, 1), 100, three - 1).1, 2);

        // A short run of noise among the details is crossed, and a line
        // with text between two runs breaks them.
        let end = format!("{passing}---- t::a stdout ----\nleft: 1\ntest t::x ... ok\ntest t::y ... ok\ntest t::z ... ok\n---- t::b stdout ----\nright: 2\ntest result: FAILED\n");
        let tail = end.len() - "test result: FAILED\n".len();
        assert_eq!(
            grow_tail(end.as_bytes(), (tail, 1), 100, 10_000),
            (passing.len(), 8)
        );
    }

    #[test]
    fn shown_lines_cost_their_bytes_a_newline_and_a_marker_before_each_run() {
        let region = b"a\nbb\nccc\n";
        let picked = |lines: &[(usize, &str)]| -> Vec<(usize, String)> {
            lines.iter().map(|(s, l)| (*s, (*l).to_owned())).collect()
        };
        assert_eq!(
            shown_cost(region, &picked(&[(0, "a")])),
            Cost {
                bytes: 1 + 1 + MARKER_BYTES,
                lines: 2
            }
        );
        // `bb` follows `a`: no marker between.
        assert_eq!(
            shown_cost(region, &picked(&[(0, "a"), (2, "bb")])),
            Cost {
                bytes: 2 + 3 + MARKER_BYTES,
                lines: 3
            }
        );
        assert_eq!(
            shown_cost(region, &picked(&[(0, "a"), (5, "ccc")])),
            Cost {
                bytes: 2 + 4 + 2 * MARKER_BYTES,
                lines: 4
            }
        );
        let long = "x".repeat(DIAGNOSTIC_LINE_BYTES + 50);
        assert_eq!(
            shown_cost(region, &picked(&[(0, &long)])).bytes,
            DIAGNOSTIC_LINE_BYTES + 1 + MARKER_BYTES
        );
    }

    #[test]
    fn lines_between_are_all_shown_when_they_fit_else_the_last_failure_first() {
        let region =
            "/app/src/b.js\n  1:2  error  first\n  3:4  error  second\nwarning: late\nwarning: later\n";
        let lines = |picked: Vec<(usize, String)>| picked.into_iter().map(|(_, l)| l).collect::<Vec<_>>();
        // Within the room: all of them, no marker between.
        assert_eq!(lines(diagnostics_in(region.as_bytes(), 3, 10_000)).len(), 5);
        // Short of room: the failures, with their file, before the
        // warnings below them.
        // Short of room: the last failure first, then the failures before
        // it and the warnings.
        let picked = diagnostics_in(region.as_bytes(), 3, 70);
        assert!(shown_cost(region.as_bytes(), &picked).bytes <= 70);
        assert_eq!(lines(picked), ["  3:4  error  second"]);
        let picked = diagnostics_in(region.as_bytes(), 3, 100);
        assert!(shown_cost(region.as_bytes(), &picked).bytes <= 100);
        assert_eq!(
            lines(picked)[..2],
            ["  1:2  error  first", "  3:4  error  second"]
        );
        let picked = diagnostics_in(region.as_bytes(), 1, 10_000);
        // One line's room and its marker's: the last failure.
        assert!(shown_cost(region.as_bytes(), &picked).lines <= 2);
        assert_eq!(lines(picked), ["  3:4  error  second"]);
        assert!(diagnostics_in(region.as_bytes(), 0, 10_000).is_empty());
        assert!(diagnostics_in(region.as_bytes(), 3, 0).is_empty());
    }

    #[test]
    fn lines_between_that_fit_are_each_shown_once_and_an_exact_room_holds_them() {
        let region = b"error: a\nwarning: b\n";
        let picked = diagnostics_in(region, 10, 10_000);
        assert_eq!(picked, [(0, "error: a".to_owned()), (9, "warning: b".to_owned())]);
        let room = shown_cost(region, &picked).bytes;
        assert_eq!(diagnostics_in(region, 10, room), picked);
        assert_eq!(diagnostics_in(region, 10, room - 1).len(), 1);
    }

    #[test]
    fn a_first_line_longer_than_the_head_s_room_leaves_the_head_empty() {
        let log = format!(
            "{}\n{}error: the build failed\ndone\n",
            "x".repeat(1_990),
            "step\n".repeat(300)
        );
        let lines = log.lines().count();
        let view = compose(log.as_bytes(), log.as_bytes(), 0, lines, Limits::new(100, 2_000)).unwrap();
        assert_eq!(view.head, 0);
        assert!(view.text.starts_with("[… "), "{}", view.text);
        assert!(view.text.contains("error: the build failed\n"), "{}", view.text);
        assert!(!view.describe().contains("the first"), "{}", view.describe());
        // A last line longer than the tail's room too: the lines between
        // alone.
        let log = format!("{log}{}\n", "y".repeat(600));
        let view = compose(
            log.as_bytes(),
            log.as_bytes(),
            0,
            lines + 1,
            Limits::new(100, 2_000),
        )
        .unwrap();
        assert_eq!((view.head, view.tail), (0, 0));
        assert!(view.text.contains("error: the build failed\n"), "{}", view.text);
        assert_eq!(view.describe(), "1 diagnostic line");
    }

    #[test]
    fn a_notice_names_the_parts_that_show_something() {
        let view = |head, diagnostics, tail| View {
            text: String::new(),
            head,
            diagnostics,
            tail,
            between: 0,
            lossy: false,
        };
        assert_eq!(
            view(3, 2, 1).describe(),
            "the first 3, 2 diagnostic lines and the last 1"
        );
        assert_eq!(view(0, 1, 4).describe(), "1 diagnostic line and the last 4");
        assert_eq!(view(2, 0, 0).describe(), "the first 2");
        assert_eq!(view(0, 0, 0).describe(), "no line");
    }

    #[test]
    fn tail_takes_whole_lines_within_both_limits() {
        assert_eq!(tail_of(b"a\nbb\nccc\n", 2, 100), Some((2, 2)));
        assert_eq!(tail_of(b"a\nbb\nccc", 5, 100), Some((0, 3)));
        assert_eq!(tail_of(b"a\nbb\nccc\n", 5, 4), Some((5, 1)));
        assert_eq!(tail_of(b"a\nbb\ncccccc\n", 5, 4), None);
        assert_eq!(
            tail_of(b"", 5, 4),
            None,
            "the end of one long line has no whole line"
        );
    }

    #[test]
    fn a_failure_far_down_a_log_is_shown() {
        let log: String = (0..5_000)
            .map(|i| match i {
                3_000 => "FAILED tests/test_io.py::test_roundtrip - AssertionError\n".to_owned(),
                _ => format!("tests/test_io.py::test_{i} PASSED\n"),
            })
            .collect();
        let limits = Limits::default();
        let view = compose(log.as_bytes(), log.as_bytes(), 0, 5_000, limits).unwrap();
        // A fifth of the 50 KiB for the tail: 292 lines of 35 bytes.
        assert_eq!(view.tail, 292);
        assert_eq!(view.diagnostics, 1);
        let gap_before = format!("[… {} lines …]\n", 3_000 - view.head);
        let gap_after = format!("[… {} lines …]\n", 5_000 - 292 - 3_001);
        assert!(view
            .text
            .contains(&format!("{gap_before}FAILED tests/test_io.py::test_roundtrip - AssertionError\n{gap_after}tests/test_io.py::test_4708 PASSED\n")));
        assert!(view.text.ends_with("tests/test_io.py::test_4999 PASSED\n"));
        assert!(view.text.len() <= limits.max_bytes);
        assert_eq!(
            view.describe(),
            format!("the first {}, 1 diagnostic line and the last 292", view.head)
        );
    }

    /// TOOL-8: failures far down a log that hold none of the common words
    /// are found by their marks and their own words: Biome's `✖`, a
    /// Flutter test marked `[E]`, a crash, `cargo audit`'s advisory.
    #[test]
    fn failures_marked_or_worded_their_own_way_far_down_a_log_are_shown() {
        let failures = [
            "  ✖ This let declares a variable that is only assigned once.",
            "00:02 +2 -1: Cart applies a discount [E]",
            "Segmentation fault (core dumped)",
            "ID:       RUSTSEC-2024-0332",
        ];
        let log: String = (0..5_000)
            .map(|i| match i {
                2_500..=2_503 => format!("{}\n", failures[i - 2_500]),
                _ => format!("step {i} of the build, all fine here\n"),
            })
            .collect();
        let view = compose(log.as_bytes(), log.as_bytes(), 0, 5_000, Limits::default()).unwrap();
        for failure in failures {
            assert!(view.text.contains(failure), "{failure}");
        }
        assert_eq!(view.diagnostics, 4);
    }

    #[test]
    fn a_short_line_left_out_alone_is_shown_instead_of_its_marker() {
        // Two failures with a blank line between them, far down a log.
        let log: String = (0..5_000)
            .map(|i| match i {
                3_000 => "error: the first problem\n".to_owned(),
                3_001 => "\n".to_owned(),
                3_002 => "error: the second problem\n".to_owned(),
                3_004 => "}\n".to_owned(),
                _ => format!("step {i} of the build, all fine here\n"),
            })
            .collect();
        let view = compose(log.as_bytes(), log.as_bytes(), 0, 5_000, Limits::default()).unwrap();
        assert!(
            view.text
                .contains("\nerror: the first problem\n\nerror: the second problem\n[… "),
            "{}",
            view.text
        );
        // The blank line is shown among the lines between, as a history
        // form shows it.
        assert_eq!(view.between, 0);
        assert_eq!(view.shown_lines(), view.head + view.diagnostics + view.tail);
    }

    #[test]
    fn only_a_short_whole_line_stands_for_its_marker() {
        let region = b"first\n}\n\r\nlonger than any marker is\nlast";
        assert_eq!(short_line_before(region, 8), Some("}"));
        assert_eq!(short_line_before(region, 10), Some(""));
        assert_eq!(short_line_before(region, 6), Some("first"));
        // Not at a line's start, too long, at the start.
        assert_eq!(short_line_before(region, 7), None);
        assert_eq!(short_line_before(region, 36), None);
        assert_eq!(short_line_before(region, 0), None);
        assert_eq!(short_line_before(b"\xff\xfe\n", 3), None);
        let mut out = String::new();
        assert!(push_gap(&mut out, 1, Some("}")));
        assert!(!push_gap(&mut out, 2, Some("}")));
        assert!(!push_gap(&mut out, 1, None));
        assert_eq!(out, "}\n[… 2 lines …]\n[… 1 line …]\n");
    }
}

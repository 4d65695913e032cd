//! What the model sees of a command's output that is too long: its head,
//! the diagnostic lines between and its tail (TRUNC-1, TOOL-8).
//!
//! A 5,000-line test log cut to its first 2,000 lines hides the `FAILED`
//! line at line 4,990 until the round ends. For shell tools (and tools
//! nobody listed) the view keeps the end as well: a fifth of the limits
//! for the last lines, up to two fifths for the failure, warning and
//! summary lines from between (at most [`DIAGNOSTICS`], the last ones and
//! failures first, a message said in block after block last), and the
//! rest for the head, with `[… N lines …]` where
//! lines are left out. The head gets what the diagnostic lines leave: an
//! output with none shows more of its start. A head that runs into noise
//! (passing tests, downloads) stops a few lines into it, and its room goes
//! to the diagnostic lines, then to a tail grown back over the failure
//! details a test runner prints last.
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

    /// What the notice says is shown.
    pub(super) fn describe(&self) -> String {
        let mut parts = vec![format!("the first {}", self.head)];
        if self.diagnostics > 0 {
            parts.push(format!(
                "{} diagnostic {}",
                self.diagnostics,
                if self.diagnostics == 1 { "line" } else { "lines" }
            ));
        }
        let last = format!("the last {}", self.tail);
        match parts.len() {
            1 => format!("{} and {last}", parts[0]),
            _ => format!("{}, {} and {last}", parts[0], parts[1]),
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
    let (tail_start, tail) = tail_of(end_bytes, tail_lines_max, tail_bytes_max)?;

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
    let (least_head_end, least_lines, partial) =
        cut_point(head, head_within(diagnostics_max, diagnostic_bytes)?, None);
    if partial || least_lines == 0 {
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
            let picked_bytes: usize = picked.iter().map(|(_, line)| diagnostic_cost(line)).sum();
            let after_head = end_bytes.get(start_of(end)..).unwrap_or_default();
            let (grown_start, grown) = grow_tail(
                after_head,
                (tail_start.saturating_sub(start_of(end)), tail),
                lines_left.saturating_sub(2 * picked.len()).max(tail),
                bytes_left.saturating_sub(picked_bytes).max(tail_bytes),
            );
            // Lines the grown tail shows are not shown again.
            let picked: Vec<(usize, String)> = picked
                .into_iter()
                .filter(|(start, _)| *start < grown_start)
                .collect();
            (end, lines, picked, start_of(end) + grown_start, grown)
        } else {
            let picked = diagnostics_in(region_of(least_head_end), diagnostics_max, diagnostic_bytes);
            let picked_bytes: usize = picked.iter().map(|(_, line)| diagnostic_cost(line)).sum();
            let (head_end, head_lines, _) = cut_point(head, head_within(picked.len(), picked_bytes)?, None);
            // Lines the grown head shows are not shown again.
            let moved = start_of(head_end).saturating_sub(start_of(least_head_end));
            let picked: Vec<(usize, String)> = picked
                .into_iter()
                .filter(|(start, _)| *start >= moved)
                .map(|(start, line)| (start - moved, line))
                .collect();
            (head_end, head_lines, picked, tail_start, tail)
        };
    let region = end_bytes.get(start_of(head_end)..tail_start).unwrap_or_default();
    // The line number of the region's first line, counted once; each
    // picked line's from the one before it.
    let mut number = total_lines - tail - text::newlines(region);
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

/// The last `max` diagnostic lines of `region` (failures, warnings and
/// summaries), within `bytes`, each with its start: failures first when
/// not all fit. The search runs on the bytes, so that the starts are the
/// region's own even where it is not UTF-8; a line is read lossily.
fn diagnostics_in(region: &[u8], max: usize, bytes: usize) -> Vec<(usize, String)> {
    if max == 0 || region.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<(usize, String, LineKind)> = Vec::new();
    // Each found line as met in its block ([`diagnose::Repeats`]).
    let mut met: Vec<diagnose::Met> = Vec::new();
    let (mut repeats, mut after) = (diagnose::Repeats::default(), None);
    let mut at = 0;
    let mut likely = diagnose::Likely::new(region);
    let hunks = diagnose::holds_hunk_header(region);
    while let Some(m) = likely.find_at(at) {
        let start = memrchr(b'\n', &region[..m]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &region[m..]).map_or(region.len(), |i| m + i);
        let line = String::from_utf8_lossy(&region[start..end]);
        let line = diagnose::line_as_shown(&line);
        let kind = match diagnose::kind_in_place(line, &region[end..]) {
            // The code of a diff's hunk, whatever its words.
            LineKind::Failure | LineKind::Warning | LineKind::Summary
                if hunks && diagnose::in_diff_hunk_at(region, start, line) =>
            {
                LineKind::Plain
            }
            kind => kind,
        };
        let line_met = repeats.meet(line, after == Some(start));
        after = Some(end + 1);
        if kind == LineKind::Failure {
            // A test runner's numbered heading names the failing test a
            // few lines above a failure with no word the search finds.
            if let Some((heading_start, heading)) = heading_above(region, start) {
                if found.last().is_none_or(|f| f.0 < heading_start) {
                    met.push(line_met.beside(&heading));
                    found.push((heading_start, heading, LineKind::Failure));
                }
            }
        }
        if kind.is_diagnostic() {
            found.push((start, line.to_owned(), kind));
            met.push(line_met);
        }
        at = end + 1;
        if at >= region.len() {
            break;
        }
    }
    // The last ones, failures before the rest, and the lines of a shape
    // said in block after block (a log's retries) after all the others
    // ([`diagnose::Repeats`]), within the room; shown in their order.
    let mut order: Vec<usize> = (0..found.len()).rev().collect();
    order.sort_by_key(|&i| found[i].2 != LineKind::Failure);
    let repeated: Vec<bool> = {
        let mut repeated = vec![false; found.len()];
        for &i in &order {
            repeated[i] = repeats.again(met[i]);
        }
        repeated
    };
    order.sort_by_key(|&i| repeated[i]);
    let mut used = 0;
    let mut kept: Vec<usize> = Vec::new();
    // The files kept findings are in, by their headings' starts.
    let mut files: Vec<(usize, String)> = Vec::new();
    // The messages shown, each once, with their failures.
    let mut told: Vec<(usize, String)> = Vec::new();
    // How many failures kept so far, the last first.
    let mut messaged = 0;
    for i in order {
        if kept.len() + files.len() + told.len() >= max {
            break;
        }
        let (start, line, kind) = &found[i];
        // A finding printed under its file's name (ESLint) comes with it.
        let file = (*kind == LineKind::Failure)
            .then(|| file_heading(region, *start))
            .flatten()
            // Once, and not when the search found it already (`found` is
            // in order).
            .filter(|(at, _)| {
                !files.iter().any(|(f, _)| f == at) && found.binary_search_by_key(at, |(s, ..)| *s).is_err()
            });
        let cost = diagnostic_cost(line) + file.as_ref().map_or(0, |(_, f)| diagnostic_cost(f));
        if used + cost <= bytes {
            used += cost;
            kept.push(i);
            files.extend(file);
            // The last failure's message, line by line while there is
            // room: what it says nothing without (` right: 137`).
            messaged += usize::from(*kind == LineKind::Failure);
            let messages = if *kind == LineKind::Failure && messaged <= MESSAGED_FAILURES {
                messages_under(region, line, *start)
            } else {
                Vec::new()
            };
            for (at, message) in &messages {
                let shown =
                    found.binary_search_by_key(at, |(s, ..)| *s).is_ok() || told.iter().any(|(s, _)| s == at);
                let cost = diagnostic_cost(message);
                if shown || used + cost > bytes || kept.len() + files.len() + told.len() >= max {
                    continue;
                }
                used += cost;
                told.push((*at, message.clone()));
            }
        }
    }
    let mut shown: Vec<(usize, String)> = kept
        .into_iter()
        .map(|i| (found[i].0, std::mem::take(&mut found[i].1)))
        .chain(files)
        .chain(told)
        .collect();
    shown.sort_unstable_by_key(|(start, _)| *start);
    shown
}

/// How many of the last failures shown come with their messages: the
/// one the agent acts on; further up, another failure tells more than a
/// message in the same room.
const MESSAGED_FAILURES: usize = 1;

/// How many bytes under a failure its message is looked for in
/// ([`messages_under`]).
const MESSAGE_WINDOW: usize = 4096;

/// The lines under the failure `line`, which starts at `start` in
/// `region`, that carry its message ([`diagnose::message_lines`]) and its
/// assertion diff ([`crate::text::assertion_diff_under`]), with their
/// starts, within the region's first [`MESSAGE_WINDOW`] bytes after it.
fn messages_under(region: &[u8], line: &str, start: usize) -> Vec<(usize, String)> {
    let end =
        memchr::memchr(b'\n', region.get(start..).unwrap_or_default()).map_or(region.len(), |i| start + i);
    let window = region
        .get(end..(end + MESSAGE_WINDOW).min(region.len()))
        .unwrap_or_default();
    let after = match std::str::from_utf8(window) {
        Ok(text) => text,
        // Up to the first byte that is not UTF-8, or a character cut at
        // the window's end.
        Err(e) => std::str::from_utf8(&window[..e.valid_up_to()]).unwrap_or_default(),
    };
    let mut messages: Vec<(usize, String)> = diagnose::message_lines(line, after)
        .into_iter()
        .map(|m| {
            (
                end + (m.as_ptr() as usize - after.as_ptr() as usize),
                m.to_owned(),
            )
        })
        .collect();
    // The assertion diff under it, as a history form keeps it: the values
    // the failure's words may leave out.
    let from_failure = region.get(start..end + after.len()).unwrap_or_default();
    if let Ok(text) = std::str::from_utf8(from_failure) {
        messages.extend(
            crate::text::assertion_diff_under(text)
                .into_iter()
                .map(|(at, l)| (start + at, l.to_owned())),
        );
    }
    messages
}

/// The line naming the file an indented finding starting at `start` in
/// `region` is about ([`diagnose::file_heading_above`]), with its start.
fn file_heading(region: &[u8], start: usize) -> Option<(usize, String)> {
    let (s, e, _) = diagnose::file_heading_above(region, start)?;
    Some((s, String::from_utf8_lossy(&region[s..e]).into_owned()))
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

/// What showing a diagnostic line costs: the line, capped, its newline
/// and the gap marker before it.
fn diagnostic_cost(line: &str) -> usize {
    line.len().min(DIAGNOSTIC_LINE_BYTES) + 1 + MARKER_BYTES
}

/// The numbered heading (`1) Cart applies the discount`) within
/// [`diagnose::HEADING_REACH`] lines above the line starting at `start`
/// in `region`, with its own start.
fn heading_above(region: &[u8], start: usize) -> Option<(usize, String)> {
    diagnose::lines_above(region, start)
        .take(diagnose::HEADING_REACH)
        .map(|(s, e)| (s, String::from_utf8_lossy(&region[s..e])))
        .find(|(_, line)| diagnose::is_numbered_heading(line))
        .map(|(s, line)| (s, line.into_owned()))
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
        assert_eq!(view.diagnostics, 4, "{}", view.text);
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
        assert!(!view.text.contains(" right: 137"), "{}", view.text);
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
    fn a_heading_is_looked_for_only_within_its_reach() {
        let near = b"x\n1) a test\nmore\nerror: boom\n";
        let at = near.len() - "error: boom\n".len();
        assert_eq!(heading_above(near, at), Some((2, "1) a test".to_owned())));
        let far = format!(
            "1) a test\n{}error: boom\n",
            "detail\n".repeat(diagnose::HEADING_REACH)
        );
        let at = far.len() - "error: boom\n".len();
        assert_eq!(heading_above(far.as_bytes(), at), None);
        assert_eq!(heading_above(b"error: boom\n", 0), None);
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
    fn a_diagnostic_line_costs_its_bytes_a_newline_and_a_marker() {
        assert_eq!(diagnostic_cost("abc"), 3 + 1 + MARKER_BYTES);
        let long = "x".repeat(DIAGNOSTIC_LINE_BYTES + 50);
        assert_eq!(diagnostic_cost(&long), DIAGNOSTIC_LINE_BYTES + 1 + MARKER_BYTES);
    }

    #[test]
    fn an_indented_finding_s_file_is_found_above_it() {
        let region = "  1:2  error  a\n/app/src/b.js\n  3:4  error  b\n\n  5:6  error  c\nnot a file here at all\n  7:8  error  d\n";
        let at = |line: &str| region.find(line).unwrap();
        let file = file_heading(region.as_bytes(), at("  5:6"));
        assert_eq!(file, Some((at("/app"), "/app/src/b.js".to_owned())));
        // Under a line that names no file, unindented, or at the top.
        assert_eq!(file_heading(region.as_bytes(), at("  7:8")), None);
        assert_eq!(file_heading(region.as_bytes(), at("/app")), None);
        assert_eq!(file_heading(region.as_bytes(), 0), None);
    }

    #[test]
    fn diagnostic_lines_are_failures_first_each_with_its_file_once() {
        let region =
            "/app/src/b.js\n  1:2  error  first\n  3:4  error  second\nwarning: late\nwarning: later\n";
        let lines = |picked: Vec<(usize, String)>| picked.into_iter().map(|(_, l)| l).collect::<Vec<_>>();
        // The failures before the warnings below them; the file once.
        assert_eq!(
            lines(diagnostics_in(region.as_bytes(), 3, 10_000)),
            ["/app/src/b.js", "  1:2  error  first", "  3:4  error  second"]
        );
        // The heading counts toward the lines and the bytes.
        assert_eq!(
            lines(diagnostics_in(region.as_bytes(), 2, 10_000)),
            ["/app/src/b.js", "  3:4  error  second"]
        );
        let room = diagnostic_cost("  3:4  error  second") + diagnostic_cost("/app/src/b.js");
        assert_eq!(
            lines(diagnostics_in(region.as_bytes(), 10, room)),
            ["/app/src/b.js", "  3:4  error  second"]
        );
        // A byte short: the second finding and its file do not fit, the
        // first (a byte shorter) and its file do.
        assert_eq!(
            lines(diagnostics_in(region.as_bytes(), 10, room - 1)),
            ["/app/src/b.js", "  1:2  error  first"]
        );
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
        assert_eq!(view.between, 1);
        assert_eq!(view.shown_lines(), view.head + view.diagnostics + 1 + view.tail);
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

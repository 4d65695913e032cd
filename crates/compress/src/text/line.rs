//! One kept line of a form: how much of it is shown.

use std::borrow::Cow;

use super::Budget;
use crate::diagnose::{self, LineKind};

/// The largest index `<= at` that is a char boundary of `s`.
pub(crate) fn floor_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    let mut i = at;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest index `>= at` that is a char boundary of `s`.
pub(crate) fn ceil_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// `line` cut to at most `max` bytes, keeping its start and end around a
/// marker saying how much was left out.
pub(crate) fn cap_line(line: &str, max: usize) -> Cow<'_, str> {
    if line.len() <= max {
        return Cow::Borrowed(line);
    }
    let marker_len = format!(" [… {} bytes …] ", line.len()).len();
    let room = max.saturating_sub(marker_len);
    let head_end = floor_boundary(line, room * 2 / 3);
    let tail_start = ceil_boundary(line, line.len() - (room - head_end).min(line.len()));
    let tail_start = tail_start.max(head_end);
    let left_out = tail_start - head_end;
    let mut out = String::with_capacity(max);
    out.push_str(&line[..head_end]);
    out.push_str(&format!(" [… {left_out} bytes …] "));
    out.push_str(&line[tail_start..]);
    if out.len() > max {
        // Digits of the real count are fewer than the reserved ones, so this
        // only happens when `max` cannot even hold the marker.
        out.truncate(floor_boundary(&out, max));
    }
    Cow::Owned(out)
}

/// The most bytes of `line` a form keeps: `budget.max_failure_line_bytes`
/// for a failure or a warning (a type error's whole type, an exception's
/// whole message, MSBuild's `warning CS0618: …` before the project it
/// names), `budget.max_line_bytes` for any other.
pub(super) fn line_cap(line: &str, budget: &Budget) -> usize {
    let longer = budget.max_failure_line_bytes > budget.max_line_bytes && line.len() > budget.max_line_bytes;
    if longer && matches!(diagnose::line_kind(line), LineKind::Failure | LineKind::Warning) {
        budget.max_failure_line_bytes
    } else {
        budget.max_line_bytes
    }
}

/// How a form shows a line it keeps that says `said` once its colours
/// and its process's name are left out: as `printed` when it fits the
/// line's cap, else cut from what it says, without colours, the name of
/// the process that printed it (`web:test: `) kept whole.
pub(super) fn shown_line<'a>(printed: Option<&'a str>, said: &str, budget: &Budget) -> Cow<'a, str> {
    let Some(printed) = printed else {
        return Cow::Owned(cap_line(said, line_cap(said, budget)).into_owned());
    };
    let uncoloured = diagnose::without_colours(printed);
    let process = match uncoloured.strip_suffix(said) {
        Some(name) => name.len(),
        None => 0,
    };
    let cap = line_cap(said, budget);
    if printed.len() <= cap + process {
        return Cow::Borrowed(printed);
    }
    let (name, said) = uncoloured.split_at(process);
    Cow::Owned(format!("{name}{}", cap_line(said, cap)))
}

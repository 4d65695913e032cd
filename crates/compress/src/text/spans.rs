//! The search of a text's middle for the lines that may carry
//! diagnostics, from both ends ([`diagnostic_spans`]).

use memchr::{memchr, memrchr};

use crate::diagnose;

/// The start of the first match at or after `at` of a line that may carry
/// a diagnostic ([`diagnose::candidates`]).
fn find_diagnostic(haystack: &str, at: usize) -> Option<usize> {
    diagnose::candidates().find_at(haystack, at).map(|m| m.start())
}

/// The middle lines that may carry diagnostics, as byte spans: the first
/// `first_quota` searched forward from `from`, the last `last_quota`
/// searched backward from `to` in growing windows, so that the search
/// stops as soon as both are found (REL-3: a 50 MB log costs what its
/// ends cost), and as many failures as the larger quota between them
/// when that middle is at most [`MIDDLE_SEARCH_BYTES`].
pub(super) fn diagnostic_spans(
    text: &str,
    from: usize,
    to: usize,
    first_quota: usize,
    last_quota: usize,
) -> Vec<(usize, usize)> {
    let middle = &text[..to];
    let bytes = middle.as_bytes();
    let line_at = |pos: usize| {
        let start = memrchr(b'\n', &bytes[from..pos]).map_or(from, |i| from + i + 1);
        let end = memchr(b'\n', &bytes[pos..]).map_or(to, |i| pos + i);
        (start, end)
    };
    // Only failures, warnings and summaries count toward a quota: the
    // locations and code excerpts between them (a compiler's `-->` and `|`
    // lines) come along, up to as many again as the quota. So do the
    // lines of a shape said more than a few times already (a log's
    // `ERROR queue connection failed (attempt 7)` at every retry): the
    // search goes on past them to the failure said once.
    // Each search meets its lines in its own order ([`diagnose::Repeats`]).
    let counts = |span: (usize, usize), adjacent: bool, repeats: &mut diagnose::Repeats| {
        let line = &text[span.0..span.1];
        let met = repeats.meet(line, adjacent);
        diagnose::line_kind_in(text, line).is_diagnostic() && !repeats.again(met)
    };
    let (mut repeats, mut after) = (diagnose::Repeats::default(), None);
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let (mut counted, mut others) = (0, 0);
    let mut scanned_to = from;
    while counted < first_quota && others < first_quota * CONTEXT_PER_DIAGNOSTIC && scanned_to < to {
        let Some(m) = find_diagnostic(middle, scanned_to) else {
            scanned_to = to;
            break;
        };
        let span = line_at(m.max(from));
        let adjacent = after == Some(span.0);
        after = Some(span.1 + 1);
        if counts(span, adjacent, &mut repeats) {
            counted += 1;
        } else {
            others += 1;
        }
        spans.push(span);
        scanned_to = span.1 + 1;
    }
    let scanned_to = scanned_to.min(to);
    let mut last: Vec<(usize, usize)> = Vec::new();
    let (mut counted, mut others) = (0, 0);
    let (mut repeats, mut before) = (diagnose::Repeats::default(), None);
    let mut window_end = to;
    let mut window = 64 * 1024;
    while counted < last_quota && others < last_quota * CONTEXT_PER_DIAGNOSTIC && window_end > scanned_to {
        // A window of whole lines ending at `window_end`.
        let mut start = window_end.saturating_sub(window).max(scanned_to);
        if start > scanned_to {
            start = memchr(b'\n', &bytes[start..window_end]).map_or(window_end, |i| start + i + 1);
        }
        let mut found = Vec::new();
        let mut at = start;
        while at < window_end {
            let Some(m) = find_diagnostic(&middle[..window_end], at) else {
                break;
            };
            let span = line_at(m);
            found.push(span);
            at = span.1 + 1;
        }
        for span in found.into_iter().rev() {
            if counted >= last_quota || others >= last_quota * CONTEXT_PER_DIAGNOSTIC {
                break;
            }
            let adjacent = before == Some(span.1 + 1);
            before = Some(span.0);
            if counts(span, adjacent, &mut repeats) {
                counted += 1;
            } else {
                others += 1;
            }
            last.push(span);
        }
        window_end = start;
        window *= 2;
    }
    // Between what the two searches looked at, when both stopped on their
    // quota among many warnings (ESLint's 900 findings, two of them
    // errors): the failures, which come first in the order of priority,
    // wherever they stand. Only in a middle of at most
    // [`MIDDLE_SEARCH_BYTES`]: a longer log costs what its ends cost.
    let gap_end = last.last().map_or(window_end, |&(start, _)| start).min(to);
    if scanned_to < gap_end && gap_end - scanned_to <= MIDDLE_SEARCH_BYTES {
        let mut at = scanned_to;
        let mut failures = 0;
        while failures < first_quota.max(last_quota) {
            let Some(m) = find_diagnostic(&middle[..gap_end], at) else {
                break;
            };
            let span = line_at(m);
            if diagnose::line_kind_in(text, &text[span.0..span.1]) == diagnose::LineKind::Failure {
                spans.push(span);
                failures += 1;
            }
            at = span.1 + 1;
        }
    }
    spans.extend(last);
    spans.sort_unstable();
    spans.dedup();
    spans
}

/// The most bytes between the ends' searches for diagnostic lines that
/// are searched for failures too ([`diagnostic_spans`]).
pub(super) const MIDDLE_SEARCH_BYTES: usize = 1024 * 1024;

/// How many lines that carry no diagnostic (locations, frames, code
/// excerpts) the search for diagnostic lines takes along per line of its
/// quota.
const CONTEXT_PER_DIAGNOSTIC: usize = 3;

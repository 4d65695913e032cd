//! Line-level condensing of text: head, tail and diagnostic lines within a
//! byte budget (TOOL-8, TOOL-10).

use std::borrow::Cow;
use std::sync::OnceLock;

use memchr::{memchr, memrchr};
use regex::bytes::Regex;

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
}

impl Budget {
    /// The most lines a condensed text can have: kept lines plus one gap
    /// marker around each kept middle line.
    fn max_lines(&self) -> usize {
        self.head + self.tail + 2 * self.diagnostics + 1
    }
}

/// Words that mark a line as carrying diagnostics: errors, warnings,
/// failures, panics, tracebacks and exceptions, exit statuses, test and
/// build summaries. Matched anywhere in a line, in the cases tools write
/// them (`error`, `Error`, `ERROR`; a missing first letter covers both
/// cases): at most 32 patterns, the most a fast SIMD search takes.
pub const DIAGNOSTIC_WORDS: &[&str] = &[
    "error",
    "Error",
    "ERROR",
    "warn",
    "Warn",
    "WARN",
    "fail",
    "Fail",
    "FAIL",
    "panic",
    "raceback",
    "xception",
    "fatal",
    "Fatal",
    "FATAL",
    "assert",
    "abort",
    "Abort",
    "xit code",
    "xit status",
    "returncode",
    "test result",
    " passed",
    "egmentation fault",
    "killed",
    "Killed",
    "o such file",
    "ermission denied",
    "ot found",
    "annot ",
    "ould not",
    "ndefined",
];

/// The searcher for [`DIAGNOSTIC_WORDS`]: an alternation of literals, which
/// the regex engine runs as a SIMD multi-literal search.
fn diagnostic_words() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let alternation: Vec<String> = DIAGNOSTIC_WORDS.iter().map(|w| regex::escape(w)).collect();
        Regex::new(&alternation.join("|")).unwrap_or_else(|_| fallback_searcher())
    })
}

#[cold]
fn fallback_searcher() -> Regex {
    // An alternation of escaped literals always compiles; this keeps the
    // library free of panics should that ever change: nothing matches.
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| fallback_searcher())
}

/// The start of the first diagnostic word in `haystack` at or after `at`.
fn find_diagnostic(haystack: &[u8], at: usize) -> Option<usize> {
    diagnostic_words().find_at(haystack, at).map(|m| m.start())
}

/// Returns `true` when `line` carries a diagnostic.
pub(crate) fn is_diagnostic(line: &str) -> bool {
    diagnostic_words().is_match(line.as_bytes())
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
fn ceil_boundary(s: &str, at: usize) -> usize {
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

/// The marker standing for `n` left-out lines.
pub(crate) fn gap_marker(n: usize) -> String {
    if n == 1 {
        "[… 1 line …]".to_owned()
    } else {
        format!("[… {n} lines …]")
    }
}

/// A line of the text: its number (from 0) and byte range without the
/// newline (and without a trailing `\r`).
#[derive(Debug, Clone, Copy)]
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

/// Returns `true` when `text` is within `budget` as it is, so condensing
/// would change nothing.
fn within(text: &str, budget: &Budget) -> bool {
    text.len() <= budget.max_bytes
        && line_count(text.as_bytes()) <= budget.max_lines()
        && text.split('\n').all(|l| l.len() <= budget.max_line_bytes)
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
/// marking each gap with `[… N lines …]`, all within `budget.max_bytes`.
/// A text already within the budget is returned unchanged, so condensing is
/// idempotent.
pub(crate) fn condense<'a>(text: &'a str, budget: &Budget) -> Condensed<'a> {
    let bytes = text.as_bytes();
    if within(text, budget) {
        let n = line_count(bytes);
        return Condensed {
            text: Cow::Borrowed(text),
            total_lines: n,
            kept_lines: n,
        };
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

    // Middle: diagnostic lines, the first half of the budget searched
    // forward from the start, the second half backward from the end, so
    // that the search stops as soon as both are found.
    let first_quota = budget.diagnostics.div_ceil(2);
    let last_quota = budget.diagnostics - first_quota;
    let middle = &bytes[..middle_end];
    let line_at = |pos: usize| {
        let start = memrchr(b'\n', &middle[middle_start..pos]).map_or(middle_start, |i| middle_start + i + 1);
        let end = memchr(b'\n', &middle[pos..]).map_or(middle_end, |i| pos + i);
        (start, end)
    };
    let mut diag_spans: Vec<(usize, usize)> = Vec::new();
    let mut scanned_to = middle_start;
    while diag_spans.len() < first_quota && scanned_to < middle_end {
        let Some(m) = find_diagnostic(middle, scanned_to) else {
            scanned_to = middle_end;
            break;
        };
        let (start, end) = line_at(m);
        diag_spans.push((start, end));
        scanned_to = end + 1;
    }
    let scanned_to = scanned_to.min(middle_end);
    let mut last_spans: Vec<(usize, usize)> = Vec::new();
    let mut window_end = middle_end;
    let mut window = 64 * 1024;
    while last_spans.len() < last_quota && window_end > scanned_to {
        // A window of whole lines ending at `window_end`.
        let mut start = window_end.saturating_sub(window).max(scanned_to);
        if start > scanned_to {
            start = memchr(b'\n', &middle[start..window_end]).map_or(window_end, |i| start + i + 1);
        }
        let found: Vec<(usize, usize)> = {
            let mut spans = Vec::new();
            let mut at = start;
            while at < window_end {
                let Some(m) = find_diagnostic(&middle[..window_end], at) else {
                    break;
                };
                let span = line_at(m);
                spans.push(span);
                at = span.1 + 1;
            }
            spans
        };
        let need = last_quota - last_spans.len();
        last_spans.extend(found.into_iter().rev().take(need));
        window_end = start;
        window *= 2;
    }
    diag_spans.extend(last_spans);
    diag_spans.sort_unstable();
    diag_spans.dedup();

    // Number the kept lines in one pass over the middle.
    let mut line_no = head.len();
    let mut counted_to = middle_start;
    let mut diagnostics = Vec::with_capacity(diag_spans.len());
    for (start, end) in diag_spans {
        line_no += newlines(&bytes[counted_to..start]);
        counted_to = start;
        diagnostics.push(Line {
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

    // Choose what fits, in order of priority: the first and last two lines,
    // the diagnostics, then the rest of head and tail.
    let mut candidates: Vec<Line> = Vec::new();
    candidates.extend(head.iter().take(2));
    candidates.extend(tail.iter().rev().take(2));
    candidates.extend(diagnostics.iter());
    candidates.extend(head.iter().skip(2));
    candidates.extend(tail.iter().rev().skip(2));
    const MARKER_RESERVE: usize = 24;
    let mut used = MARKER_RESERVE;
    let mut kept: Vec<Line> = Vec::new();
    for line in candidates {
        let cost = line_str(text, &line).len().min(budget.max_line_bytes) + 1 + MARKER_RESERVE;
        if used + cost <= budget.max_bytes {
            used += cost;
            kept.push(line);
        }
    }
    kept.sort_by_key(|l| l.number);

    let mut out = String::with_capacity(used);
    let mut next = 0;
    for line in &kept {
        if line.number > next {
            out.push_str(&gap_marker(line.number - next));
            out.push('\n');
        }
        out.push_str(&cap_line(line_str(text, line), budget.max_line_bytes));
        out.push('\n');
        next = line.number + 1;
    }
    if total_lines > next {
        out.push_str(&gap_marker(total_lines - next));
        out.push('\n');
    }
    // Drop the last newline unless the last line is empty: that line must
    // still count.
    if !out.ends_with("\n\n") {
        out.pop();
    }
    Condensed {
        text: Cow::Owned(out),
        total_lines,
        kept_lines: kept.len(),
    }
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
    use super::*;
    use proptest::prelude::*;

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
    };

    #[test]
    fn small_text_is_unchanged() {
        let t = "a\nb\nc\n";
        let c = condense(t, &B);
        assert!(matches!(c.text, Cow::Borrowed(_)));
        assert_eq!(c.total_lines, 3);
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

//! Gap markers: how a history form says what it left out (`[… 12 lines
//! …]`), and how many lines of the output a form stands for, its markers
//! counted as the lines they replaced (TOOL-10, TOOL-11).

/// The lines a gap marker ([`gap_marker`]) stands for; `None` for any
/// other line.
pub(crate) fn gap_of(line: &str) -> Option<usize> {
    line.strip_prefix("[… ")
        .and_then(|r| r.strip_suffix(" lines …]").or_else(|| r.strip_suffix(" line …]")))
        .and_then(|n| n.parse().ok())
}

/// Whether a left-out line of `len` bytes is shown in place of the marker
/// that would stand for it alone: it is no longer than that marker (a
/// blank line, `PASSED`, a closing brace), so the text reads as printed
/// and never grows for it.
pub(crate) fn shown_for_its_marker(len: usize) -> bool {
    len <= gap_marker(1).len()
}

/// The marker standing for `n` left-out lines.
pub(crate) fn gap_marker(n: usize) -> String {
    if n == 1 {
        "[… 1 line …]".to_owned()
    } else {
        format!("[… {n} lines …]")
    }
}

/// The lines `text` stands for: its lines, with each gap marker
/// (`[… N lines …]`) counted as the lines it replaced.
pub(super) fn original_lines(text: &str) -> usize {
    text.lines().map(|l| gap_of(l).unwrap_or(1)).sum()
}

/// The lines of a text that each of its lines stands for, summed from its
/// first: a gap marker ([`gap_of`]) stands for the lines it replaced (in a
/// form condensed again), any other line for itself. `None` for a text
/// without markers, whose every line stands for one.
pub(super) struct Represented(Option<Vec<usize>>);

impl Represented {
    /// What each line of `text` stands for.
    pub(super) fn of(text: &str) -> Self {
        if !text.contains("[… ") {
            return Represented(None);
        }
        let mut sums = vec![0];
        let mut sum = 0;
        for line in text.split('\n') {
            sum += gap_of(line.strip_suffix('\r').unwrap_or(line)).unwrap_or(1);
            sums.push(sum);
        }
        Represented(Some(sums))
    }

    /// The lines that lines `from..to` stand for.
    pub(super) fn between(&self, from: usize, to: usize) -> usize {
        let Some(sums) = &self.0 else {
            return to - from;
        };
        match (sums.get(from), sums.get(to)) {
            (Some(a), Some(b)) => b - a,
            _ => to - from,
        }
    }
}

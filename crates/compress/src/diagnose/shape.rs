//! The shape of a line: what it says with its numbers left out, so that a
//! message a log repeats with a new time, attempt or id each time
//! (`12:00:01 ERROR queue connection failed (attempt 7)`) is told from a
//! message said once.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// In how many blocks ([`Repeats`]) a shape keeps its place in the order of
/// priority; in other blocks, its lines come after every other
/// diagnostic line.
pub(crate) const SHAPE_BLOCKS: usize = 3;

/// The shape of `line`: its words and signs, each word that holds a digit
/// (a number, a time, an address, an id such as `SKU-0131` or
/// `test_fetch[3]`'s `3`) read as one placeholder, blanks ignored (a
/// number padded to its column's width keeps the shape).
pub(crate) fn shape(line: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    for word in line
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if word.bytes().any(|b| b.is_ascii_digit()) {
            '#'.hash(&mut hasher);
        } else {
            word.hash(&mut hasher);
        }
    }
    // The signs between the words, in order, so that `a: b` and `a (b)`
    // differ.
    for c in line
        .chars()
        .filter(|c| !c.is_alphanumeric() && !c.is_whitespace())
    {
        c.hash(&mut hasher);
    }
    hasher.finish()
}

/// Which lines of a text say again what lines before them said: the one
/// owner of that decision.
///
/// Lines are met in the text's order, forward or backward ([`meet`]),
/// which numbers their blocks: a line next to the one met before it, of the
/// same shape, is in its block (a listing: pytest's closing summary, each
/// line a test); any other line opens a block. Then, in any order (the
/// order of priority), [`again`] tells whether a line's shape was asked
/// about in [`SHAPE_BLOCKS`] other blocks before: the same shape in block
/// after block is a message a log says again and again between other lines
/// (`ERROR queue connection failed (attempt 7)` at every retry).
///
/// [`meet`]: Repeats::meet
/// [`again`]: Repeats::again
#[derive(Debug, Default)]
pub(crate) struct Repeats {
    /// The shape of the line met last, and the number of its block.
    last: Option<u64>,
    block: usize,
    /// The blocks each shape was asked about in.
    asked: HashMap<u64, Vec<usize>>,
}

/// A line met by [`Repeats::meet`]: its shape and its block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Met {
    shape: u64,
    block: usize,
}

impl Repeats {
    /// Meets `line` after the line met before it, `adjacent` when the two
    /// are next to each other in the text.
    pub(crate) fn meet(&mut self, line: &str, adjacent: bool) -> Met {
        let shape = shape(line);
        if !(adjacent && self.last == Some(shape)) {
            self.block += 1;
        }
        self.last = Some(shape);
        Met {
            shape,
            block: self.block,
        }
    }

    /// Whether the line `met` says again what [`SHAPE_BLOCKS`] blocks
    /// asked about before said; in a block asked about already, a shape
    /// is never said again.
    pub(crate) fn again(&mut self, met: Met) -> bool {
        let blocks = self.asked.entry(met.shape).or_default();
        if blocks.contains(&met.block) {
            return false;
        }
        if blocks.len() >= SHAPE_BLOCKS {
            return true;
        }
        blocks.push(met.block);
        false
    }

    /// Meets `line` in a block of its own and tells whether it says again
    /// what lines asked about before said: for lines asked about in the
    /// order they are met, none of them a listing.
    pub(crate) fn alone_again(&mut self, line: &str) -> bool {
        let met = self.meet(line, false);
        self.again(met)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_times_and_ids_leave_the_shape_as_it_is() {
        let said = |a: &str, b: &str| shape(a) == shape(b);
        assert!(said(
            "2026-11-29 07:10:06,200 ERROR worker: queue connection failed (attempt 0): [Errno 111] Connection refused",
            "2026-11-29 07:10:06,261 ERROR worker: queue connection failed (attempt 163): [Errno 111] Connection refused",
        ));
        assert!(said(
            "FAILED test_svc.py::test_fetch[3] - ConnectionError: upstream 502 for item 3",
            "  FAILED test_svc.py::test_fetch[38] - ConnectionError: upstream 502 for item 38",
        ));
        assert!(said("at 0x7fece3ec8110", "at 0x55d5c1"));
        assert!(said("a.py::t[3] FAILED [  3%]", "a.py::t[10] FAILED [ 10%]"));
        // Other words or other signs make another shape.
        assert!(!said(
            "ERROR worker: queue connection failed (attempt 1)",
            "CRITICAL worker: job 131 failed: bad quantity None for SKU-0131",
        ));
        assert!(!said("error: a (b)", "error: a: b"));
        assert!(!said("x failed", "y failed"));
        assert!(!said("12 failed", "failed"));
    }

    #[test]
    fn a_shape_repeats_past_its_first_blocks() {
        let mut repeats = Repeats::default();
        let again: Vec<bool> = (0..5)
            .map(|i| repeats.alone_again(&format!("ERROR retry {i}")))
            .collect();
        assert_eq!(again, [false, false, false, true, true]);
        // In a block asked about already, a shape is never said again.
        let mut repeats = Repeats::default();
        let met: Vec<Met> = (0..5)
            .map(|i| repeats.meet(&format!("ERROR retry {i}"), false))
            .collect();
        let first: Vec<bool> = met[..4].iter().map(|&m| repeats.again(m)).collect();
        assert_eq!(first, [false, false, false, true]);
        assert!(!repeats.again(met[1]));
        assert!(repeats.again(met[4]));
        let other = repeats.meet("CRITICAL job 7 failed", false);
        assert!(!repeats.again(other));
        // A listing: one block.
        let mut repeats = Repeats::default();
        let listing: Vec<Met> = (0..50)
            .map(|i| repeats.meet(&format!("FAILED t.py::t_{i} - rate {i}"), i > 0))
            .collect();
        assert!(listing.iter().all(|&m| !repeats.again(m)));
    }

    #[test]
    fn adjacent_lines_of_one_shape_are_one_block() {
        let mut repeats = Repeats::default();
        let numbered: Vec<usize> = [
            ("FAILED t_1", false),
            ("FAILED t_2", true),
            ("FAILED t_3", true),
            ("INFO idle", true),
            ("FAILED t_4", true),
            ("FAILED t_5", false),
        ]
        .iter()
        .map(|(line, adjacent)| repeats.meet(line, *adjacent).block)
        .collect();
        assert_eq!(numbered, [1, 1, 1, 2, 3, 4]);
    }
}

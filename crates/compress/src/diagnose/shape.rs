//! The shape of a line: what it says with its numbers left out, so that a
//! message a log repeats with a new time, attempt or id each time
//! (`12:00:01 ERROR queue connection failed (attempt 7)`) is told from a
//! message said once.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// In how many blocks ([`Blocks`]) a shape keeps its place in the order of
/// priority; in other blocks, its lines come after every other
/// diagnostic line ([`Shapes`]).
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

/// The blocks ([`Blocks`]) each shape was met in.
///
/// A block of lines of one shape is a listing (pytest's closing summary,
/// each line a test); the same shape in block after block is a message a
/// log says again and again between other lines (`ERROR queue connection
/// failed (attempt 7)` at every retry).
#[derive(Debug, Default)]
pub(crate) struct Shapes(HashMap<u64, Vec<usize>>);

impl Shapes {
    /// Meets `line` in the block numbered `block`; whether its shape was
    /// met in [`SHAPE_BLOCKS`] other blocks before.
    pub(crate) fn repeats(&mut self, line: &str, block: usize) -> bool {
        let blocks = self.0.entry(shape(line)).or_default();
        if blocks.contains(&block) {
            return false;
        }
        if blocks.len() >= SHAPE_BLOCKS {
            return true;
        }
        blocks.push(block);
        false
    }
}

/// Numbers the blocks of the lines met in order, forward or backward: a
/// line next to the one met before it, of the same shape, is in its block
/// (a listing); any other line opens a block.
#[derive(Debug, Default)]
pub(crate) struct Blocks {
    last: Option<u64>,
    block: usize,
}

impl Blocks {
    /// The block of `line`, met after the line met before it, `adjacent`
    /// when the two are next to each other in the text.
    pub(crate) fn of(&mut self, line: &str, adjacent: bool) -> usize {
        let shape = shape(line);
        if !(adjacent && self.last == Some(shape)) {
            self.block += 1;
        }
        self.last = Some(shape);
        self.block
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
        let mut shapes = Shapes::default();
        let repeats: Vec<bool> = (0..5)
            .map(|i| shapes.repeats(&format!("ERROR retry {i}"), i))
            .collect();
        assert_eq!(repeats, [false, false, false, true, true]);
        // In a block it was met in, a shape is never a repeat.
        assert!(!shapes.repeats("ERROR retry 9", 1));
        assert!(!shapes.repeats("CRITICAL job 7 failed", 5));
        // A listing: one block.
        let mut shapes = Shapes::default();
        assert!((0..50).all(|i| !shapes.repeats(&format!("FAILED t.py::t_{i} - rate {i}"), 0)));
    }

    #[test]
    fn adjacent_lines_of_one_shape_are_one_block() {
        let mut blocks = Blocks::default();
        let numbered: Vec<usize> = [
            ("FAILED t_1", false),
            ("FAILED t_2", true),
            ("FAILED t_3", true),
            ("INFO idle", true),
            ("FAILED t_4", true),
            ("FAILED t_5", false),
        ]
        .iter()
        .map(|(line, adjacent)| blocks.of(line, *adjacent))
        .collect();
        assert_eq!(numbered, [1, 1, 1, 2, 3, 4]);
    }
}

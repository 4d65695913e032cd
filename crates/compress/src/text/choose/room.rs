//! The room of a history form and what it has kept (TOOL-8).

use std::collections::{HashMap, HashSet};

use crate::diagnose::{self, LineKind};
use crate::text::{cost, grows_past_cap, line_str, room, Budget, Line, MARKER_RESERVE};

/// The room of a history form, filled line by line: diagnostic lines may
/// use the room they grew, and so may the lines placed beside them
/// (without growing it); other lines the base room only.
pub(super) struct Room<'a> {
    text: &'a str,
    budget: &'a Budget,
    diagnostic: HashSet<usize>,
    pub(super) room: usize,
    pub(super) used: usize,
    pub(super) kept: Vec<Line>,
    pub(super) kept_numbers: HashSet<usize>,
}

impl<'a> Room<'a> {
    /// The room for `diagnostic` lines and the lines `placed` beside them,
    /// each line of the kind `kinds` read in its place (as the check that
    /// a text is already within its room reads it).
    pub(super) fn new(
        text: &'a str,
        budget: &'a Budget,
        diagnostic: &[Line],
        placed: &[Line],
        kinds: &HashMap<usize, LineKind>,
    ) -> Room<'a> {
        let (mut cost_of_diagnostics, mut cost_of_failures) = (0, 0);
        let kinds: Vec<(&str, LineKind)> = diagnostic
            .iter()
            .map(|l| {
                let line = line_str(text, l);
                (
                    line,
                    kinds
                        .get(&l.number)
                        .copied()
                        .unwrap_or_else(|| diagnose::line_kind(line)),
                )
            })
            .collect();
        for &(line, kind) in &kinds {
            let c = cost(line, budget);
            cost_of_diagnostics += c;
            if grows_past_cap(kind, line) {
                cost_of_failures += c;
            }
        }
        Room {
            text,
            budget,
            diagnostic: diagnostic.iter().chain(placed).map(|l| l.number).collect(),
            room: room(text, budget, (cost_of_diagnostics, cost_of_failures)),
            used: MARKER_RESERVE,
            kept: Vec::new(),
            kept_numbers: HashSet::new(),
        }
    }

    /// Keeps `line` if it fits (any line in the whole room when
    /// `anywhere`); returns whether it was kept.
    pub(super) fn keep(&mut self, line: &Line, anywhere: bool) -> bool {
        let diagnostic = self.diagnostic.contains(&line.number);
        // Lines that carry no diagnostic get no more than the base room.
        let limit = if diagnostic || anywhere {
            self.room
        } else {
            self.room.min(self.budget.max_bytes)
        };
        // A diagnostic line beside a kept one joins its run and opens no
        // new gap, so it needs no room for a marker. Other lines pay for
        // one all the same: the base room stays a bound on what they add.
        let beside = |n: usize| self.kept_numbers.contains(&n);
        let joins_run = (line.number > 0 && beside(line.number - 1)) || beside(line.number + 1);
        let discount = if joins_run && diagnostic {
            MARKER_RESERVE
        } else {
            0
        };
        let c = cost(line_str(self.text, line), self.budget) - discount;
        let fits = self.used + c <= limit && self.kept_numbers.insert(line.number);
        if fits {
            self.used += c;
            self.kept.push(*line);
        }
        fits
    }
}

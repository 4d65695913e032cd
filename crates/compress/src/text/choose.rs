//! Which lines of a long output its history form keeps (TOOL-8).

use std::collections::HashSet;

use super::{cap, cost, line_str, room, Budget, Line, INNERMOST_FRAMES, MARKER_RESERVE};
use crate::diagnose::{self, LineKind};

/// The lines to keep, in order, within the room: by priority, with the
/// diagnostic lines paid from the grown room and the rest from
/// `budget.max_bytes`.
pub(super) fn choose(
    text: &str,
    budget: &Budget,
    head: &[Line],
    middle: &[Line],
    tail: &[Line],
) -> Vec<Line> {
    let kind = |l: &Line| diagnose::line_kind(line_str(text, l));
    let all: Vec<(Line, LineKind)> = head
        .iter()
        .chain(middle)
        .chain(tail)
        .map(|l| (*l, kind(l)))
        .collect();
    let of = |wanted: &[LineKind]| -> Vec<Line> {
        all.iter()
            .filter(|(_, k)| wanted.contains(k))
            .map(|(l, _)| *l)
            .collect()
    };
    let failures = of(&[LineKind::Failure]);
    let summaries = of(&[LineKind::Summary]);
    let warnings = of(&[LineKind::Warning]);
    // The context of a failure: a location or frame right before or after it.
    let contexts: Vec<Line> = all
        .windows(2)
        .filter_map(|w| match (w[0].1, w[1].1) {
            (LineKind::Context, LineKind::Failure) if w[1].0.number == w[0].0.number + 1 => Some(w[0].0),
            (LineKind::Failure, LineKind::Context) if w[1].0.number == w[0].0.number + 1 => Some(w[1].0),
            _ => None,
        })
        .collect();
    // The message of a failure: an assertion's operand (`Expected: 3`,
    // `left: 3`) or matcher at most two lines after the failure or after
    // the previous such line, and the plain line after a failure that
    // ends with a colon (`… panicked at src/a.rs:3:5:`).
    let mut attached: Vec<Line> = Vec::new();
    let mut anchor: Option<(usize, bool)> = None;
    for (l, k) in &all {
        let near = |within: usize| anchor.is_some_and(|(n, _)| l.number > n && l.number <= n + within);
        match k {
            LineKind::Failure => anchor = Some((l.number, diagnose::announces_message(line_str(text, l)))),
            LineKind::Context if near(2) && diagnose::is_operand(line_str(text, l)) => {
                attached.push(*l);
                anchor = Some((l.number, false));
            }
            LineKind::Plain
                if near(1)
                    && anchor.is_some_and(|(_, announces)| announces)
                    && !line_str(text, l).trim().is_empty() =>
            {
                attached.push(*l);
                anchor = Some((l.number, false));
            }
            _ => {}
        }
    }
    let noise: HashSet<usize> = all
        .iter()
        .filter(|(_, k)| *k == LineKind::Noise)
        .map(|(l, _)| l.number)
        .collect();
    let quiet = |l: &&Line| !noise.contains(&l.number);

    // The first line of each run of failure lines (one other line may
    // stand between two of a run) says what failed (`E   AssertionError:
    // …` above its `E   [left]: …` details, `npm ERR! code E404` above
    // its log lines); the others detail it.
    let headlines: Vec<Line> = failures
        .iter()
        .enumerate()
        .filter(|(i, l)| *i == 0 || failures[i - 1].number + 2 < l.number)
        .map(|(_, l)| *l)
        .collect();

    // In order of priority.
    let mut diagnostic: Vec<Line> = Vec::new();
    diagnostic.extend(failures.last());
    diagnostic.extend(summaries.iter().rev().take(3));
    diagnostic.extend(failures.first());
    diagnostic.extend(headlines.iter().rev());
    diagnostic.extend(attached.iter().rev());
    diagnostic.extend(failures.iter().rev().skip(1));
    diagnostic.extend(summaries.iter().rev().skip(3));
    diagnostic.extend(warnings.iter());
    diagnostic.extend(contexts.iter());
    let mut rest: Vec<Line> = Vec::new();
    rest.extend(head.iter().take(1).filter(quiet));
    rest.extend(tail.iter().rev().take(2).filter(quiet));
    // Spare room: the innermost locations and frames of the project's
    // code, where a failure happened.
    rest.extend(of(&[LineKind::Context]).iter().rev().take(INNERMOST_FRAMES));
    rest.extend(head.iter().skip(1).filter(quiet));
    rest.extend(tail.iter().rev().skip(2).filter(quiet));

    // Diagnostic lines, each once by its text, grow the room.
    let mut seen = HashSet::new();
    diagnostic.retain(|l| seen.insert(line_str(text, l)));
    let diagnostic_numbers: HashSet<usize> = diagnostic.iter().map(|l| l.number).collect();
    let diagnostic_cost: usize = diagnostic.iter().map(|l| cost(line_str(text, l), budget)).sum();
    let room = room(budget, diagnostic_cost).min(cap(text, budget));
    let mut used = MARKER_RESERVE;
    let mut kept: Vec<Line> = Vec::new();
    let mut kept_numbers: HashSet<usize> = HashSet::new();
    // The first and last lines open and close the text, whatever else.
    let ends: Vec<Line> = head
        .iter()
        .take(1)
        .chain(tail.last())
        .filter(quiet)
        .copied()
        .collect();
    let mut keep = |line: &Line, limit: usize| {
        // A diagnostic line beside a kept one joins its run and opens no
        // new gap, so it needs no room for a marker. Other lines pay for
        // one all the same: the base room stays a bound on what they add.
        let beside = |n: usize| kept_numbers.contains(&n);
        let joins_run = (line.number > 0 && beside(line.number - 1)) || beside(line.number + 1);
        let discount = if joins_run && diagnostic_numbers.contains(&line.number) {
            MARKER_RESERVE
        } else {
            0
        };
        let c = cost(line_str(text, line), budget) - discount;
        let fits = used + c <= limit && kept_numbers.insert(line.number);
        if fits {
            used += c;
            kept.push(*line);
        }
        fits
    };
    let mut any = false;
    for line in ends.iter().chain(&diagnostic).chain(&rest) {
        // Lines that carry no diagnostic get no more than the base room.
        let limit = if diagnostic_numbers.contains(&line.number) {
            room
        } else {
            room.min(budget.max_bytes)
        };
        any |= keep(line, limit);
    }
    if !any {
        // All noise: its first and last lines say what it was.
        for line in head.iter().take(1).chain(tail.last()) {
            keep(line, room);
        }
    }
    kept.sort_by_key(|l| l.number);
    kept
}

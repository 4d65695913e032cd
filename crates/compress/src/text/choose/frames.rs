//! The frames of a failure in its history form: the frame a failure
//! happened in, the code line printed under a frame, the function a Rust
//! backtrace names above its location (TOOL-8).

use std::collections::{HashMap, HashSet};

use super::{line_after, line_before};
use crate::diagnose::{self, LineKind};
use crate::text::{line_str, Line};

/// How many of a finding's indented fields may stand between it and its
/// place ([`place_under`]).
const FIELD_REACH: usize = 4;

/// Whether `below` is where the failure `above` names its place: right
/// under it, or under it and a blank line or a bare gutter (pytest's
/// `django/conf/__init__.py:57: ImproperlyConfigured` under the `E`
/// lines, ruff's and rustc's `  |` above the code they quote).
pub(super) fn place_under(text: &str, above: &Line, below: &Line) -> bool {
    below.number == above.number + 1
        || (below.number == above.number + 2
            && line_before(text, below).is_some_and(|l| matches!(line_str(text, &l).trim(), "" | "|" | "│")))
}

/// Whether `line` is a place an arrow points at under a diagnostic's
/// message: rustc's and ruff's `--> src/a.rs:3:5`, codespan's `┌─
/// a.rs:3:5`, miette's (Biome, oxlint) `╭─[a.ts:4:7]`, `,-[a.ts:4:7]` in
/// its ASCII theme.
pub(super) fn is_arrow_place(line: &str) -> bool {
    let line = line.trim_start();
    ["--> ", "┌─ ", "╭─[", ",-["]
        .iter()
        .any(|arrow| line.starts_with(arrow))
}

/// The message over each bare place among `all` that is not among them
/// (ansible-lint's `name[missing]: All tasks should be named.` over
/// `site.yml:12 Task/Handler: shell`): a failure that no failure word
/// marks, which the search for diagnostic lines does not meet
/// ([`diagnose::is_message_over_place`]).
pub(super) fn messages_over_places(text: &str, all: &[(Line, LineKind)]) -> Vec<(Line, LineKind)> {
    let met: HashSet<usize> = all.iter().map(|(l, _)| l.number).collect();
    all.iter()
        .filter(|(_, k)| *k == LineKind::Context)
        .filter_map(|(l, _)| line_before(text, l))
        .filter(|above| !met.contains(&above.number))
        .filter(|above| diagnose::is_message_over_place(text, line_str(text, above)))
        .map(|above| (above, LineKind::Failure))
        .collect()
}

/// The line above the indented fields a finding lists, when `place` is
/// the last of them (bandit's `>> Issue: [B602:…] …` over `   Severity:
/// High   Confidence: High`, `   CWE: …` and `   Location:
/// src/run.py:42:8`): the finding whose place it names.
pub(super) fn finding_above_fields(text: &str, place: &Line) -> Option<Line> {
    if !diagnose::is_finding_field(line_str(text, place)) {
        return None;
    }
    std::iter::successors(line_before(text, place), |l| line_before(text, l))
        .take(FIELD_REACH + 1)
        .find(|l| !diagnose::is_finding_field(line_str(text, l)))
}

/// The function a Rust backtrace names above a frame's location (`4:
/// app::load` above `at ./src/main.rs:3:51`): which code ran there.
pub(super) fn function_above_frame(text: &str, frame: &Line) -> Option<Line> {
    let location = line_str(text, frame).trim();
    if !(location.starts_with("at ") && location.contains(".rs:")) {
        return None;
    }
    let above = line_before(text, frame)?;
    let name = line_str(text, &above).trim_start();
    let numbered = name
        .split_once(": ")
        .is_some_and(|(n, f)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !f.trim().is_empty());
    numbered.then_some(above)
}

/// The frame a failure happened in, where the frame's code line and
/// position markers stand between them: pytest's `--tb=short` prints
/// `pkg/calc.py:8: in div`, `    return a / b`, `           ^^^^^`, then
/// `E   ZeroDivisionError: division by zero`, and a Python traceback
/// `File "pkg/calc.py", line 8, in div` above the same. A Python frame
/// within [`FRAME_REACH`] lines above the failure's first line, else the
/// nearest location there, unless another diagnostic comes first.
pub(super) fn frame_above(text: &str, failure: &Line) -> Option<Line> {
    let mut nearest = None;
    let mut line = *failure;
    for _ in 0..FRAME_REACH {
        let Some(above) = line_before(text, &line) else {
            break;
        };
        line = above;
        // A Python frame within reach is the place (a library's is
        // noise), though the code and marks under it read as a code
        // frame's lines (as they do in an exception group's gutter).
        let kind = diagnose::line_kind_in(text, line_str(text, &line));
        if kind != LineKind::Noise && is_python_frame(line_str(text, &line)) {
            return Some(line);
        }
        match kind {
            LineKind::Context => {
                nearest.get_or_insert(line);
            }
            LineKind::Failure | LineKind::Summary | LineKind::Warning => break,
            LineKind::Noise | LineKind::Plain => {}
        }
    }
    nearest
}

/// The first frame of the project's code in the stack a failure prints
/// under its message (JavaScript, Java, .NET, Ruby: Jest's `TypeError:
/// Cannot read properties of undefined` over its code frame, then `at
/// toString (src/Cart.jsx:27:41)`): where it was thrown, which the code
/// frame shows but does not name. Within [`FRAME_BELOW_REACH`] lines, past
/// the code frame and the library's frames (noise); none once another
/// diagnostic comes first. `kinds` holds each candidate line's kind, read
/// in its place; the others are plain.
pub(super) fn frame_below(text: &str, failure: &Line, kinds: &HashMap<usize, LineKind>) -> Option<Line> {
    let mut line = *failure;
    // Past the payload the failure opens (`ZodError: [`): the reach counts
    // from where it ends.
    let after = text.get(failure.end..).unwrap_or_default();
    for _ in 0..diagnose::payload_lines(line_str(text, failure), after) {
        line = line_after(text, &line)?;
    }
    for _ in 0..FRAME_BELOW_REACH {
        line = line_after(text, &line)?;
        match kinds.get(&line.number) {
            Some(LineKind::Context) if is_stack_frame(line_str(text, &line)) => return Some(line),
            Some(LineKind::Failure | LineKind::Summary | LineKind::Warning) => return None,
            _ => {}
        }
    }
    None
}

/// How far under a failure the first frame of its stack may stand
/// ([`frame_below`]): a blank line, a code frame of six lines, a blank
/// line, a few of the library's frames.
const FRAME_BELOW_REACH: usize = 14;

/// Whether `line`, a place, is a frame of a stack printed under a
/// failure: `at …` (JavaScript, Java, .NET), Ruby's `from …`, RSpec's
/// `# ./spec/…`, Vitest's `❯ src/a.test.ts:14:19` and gdb's numbered
/// frames (`#1  0x55… in checksum (p=0x0) at mt.c:9`), in colour or not.
fn is_stack_frame(line: &str) -> bool {
    let line = diagnose::without_colours(line);
    let line = line.trim_start();
    // RSpec's `# ` and gdb's `#1 `.
    let numbered = line
        .strip_prefix('#')
        .map(|n| n.trim_start_matches(|c: char| c.is_ascii_digit()))
        .is_some_and(|rest| rest.starts_with(' '));
    numbered || ["at ", "from ", "❯ "].iter().any(|p| line.starts_with(p))
}

/// The most frames of failures a form keeps ([`frame_above`],
/// [`frame_below`]), the
/// latest first: enough for a short run's failures, never a listing of
/// every frame of a long one.
pub(super) const FAILING_FRAMES: usize = 8;

/// How far above a failure its frame may stand ([`frame_above`]): the
/// frame, its code line, the code's position markers.
const FRAME_REACH: usize = 3;

/// Whether `line` is a Python frame that prints its code line under it:
/// a traceback's `File "a.py", line 3, in f`, or pytest's short form of
/// it, `a.py:3: in f`; in the gutter of an exception group's traceback
/// too (`  |   File "a.py", line 3, in f`).
pub(super) fn is_python_frame(line: &str) -> bool {
    let line = line.trim_start();
    let line = line.strip_prefix("| ").map_or(line, str::trim_start);
    line.starts_with("File \"")
        || line.split_once(": in ").is_some_and(|(place, function)| {
            let number = place.rsplit_once(".py:").map_or("", |(_, n)| n);
            !number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit())
                && !function.is_empty()
                && !function.contains(char::is_whitespace)
        })
}

/// The code line a Python traceback shows over an exception raised
/// without a message (a bare `assert` ends on `AssertionError`): what
/// failed, which the exception's name alone does not say. The line under
/// the traceback's last frame, right above the exception or above the
/// position markers Python 3.11 prints under it.
pub(in crate::text) fn code_over_bare_exception(text: &str, failure: &Line) -> Option<Line> {
    if !is_bare_exception(line_str(text, failure)) {
        return None;
    }
    let mut code = line_before(text, failure)?;
    if diagnose::is_position_markers(line_str(text, &code)) {
        code = line_before(text, &code)?;
    }
    let frame = line_before(text, &code)?;
    code_under_frame(text, &frame).filter(|c| c.number == code.number)
}

/// Whether `line` is an exception's name alone, at the line's start
/// (`AssertionError`, `StopIteration`, `pkg.errors.Timeout`).
fn is_bare_exception(line: &str) -> bool {
    let line = line.trim_end();
    let name = line.rsplit('.').next().unwrap_or_default();
    !line.is_empty()
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && line.split('.').all(|part| {
            part.starts_with(|c: char| c.is_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// Whether `line` is the place Node.js names above the code of an
/// uncaught exception (`/app/server.js:12`, then the code line, a caret
/// under it, a blank line and `TypeError: …`).
pub(super) fn is_node_place(line: &str) -> bool {
    line.rsplit_once(':').is_some_and(|(path, number)| {
        let script = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"]
            .iter()
            .any(|e| path.ends_with(e));
        script
            && !path.contains(char::is_whitespace)
            && !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit())
    })
}

/// The code line printed under a frame: a Python traceback's (`File
/// "a.py", line 3, in f` or pytest's `a.py:3: in f` above `    return
/// g(x)`), indented, and the one under the place Node.js names above an
/// uncaught exception (`/app/server.js:12` above `const port =
/// cfg.port;`): what ran there; and the code OCaml quotes under its place
/// (`File "cart.ml", line 5, characters 38-41:` over `5 | let count items =
/// …`): what the error is about.
pub(super) fn code_under_frame(text: &str, frame: &Line) -> Option<Line> {
    let place = line_str(text, frame);
    let node = is_node_place(place);
    if !node && !is_python_frame(place) {
        return None;
    }
    let code = line_after(text, frame)?;
    let line = line_str(text, &code);
    let shown = if node {
        !line.trim().is_empty()
    } else {
        line.starts_with(' ') && !line.trim().is_empty() && !line.trim_start().starts_with("File \"")
            // OCaml's code under its place, after the line's number (`10 |
            // let total = List.length items + "1"`).
            || diagnose::is_quoted_code(line)
    };
    shown.then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TOOL-8: gdb's numbered frames are frames of a stack, as RSpec's
    /// `# ./spec/…` are; a heading or a directive that opens with `#` is
    /// none.
    #[test]
    fn tool_8_gdb_s_numbered_frames_are_stack_frames() {
        for frame in [
            "#1  0x00005555555551e1 in checksum (p=0x0) at mt.c:9",
            "#12 main () at a.c:4",
            "     # ./spec/cart_spec.rb:3:in 'block (2 levels) in <top>'",
            "    at total (src/cart.js:3:9)",
        ] {
            assert!(is_stack_frame(frame), "{frame}");
        }
        for line in ["#include <stdio.h>", "#1", "#12:", "## Summary"] {
            assert!(!is_stack_frame(line), "{line}");
        }
    }
}

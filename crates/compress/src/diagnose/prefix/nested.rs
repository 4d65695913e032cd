//! The output of a build that an installer ran, nested in the installer's
//! report under a heading and an indent: taken out of the indent before it
//! is judged.
//!
//! pip reports a build that failed with the build's own output indented
//! six spaces under `╰─> [155 lines of output]`, uv with it indented
//! under `[stdout]` and `[stderr]`, Cargo with a build script's under
//! `--- stdout` and `--- stderr`, Poetry with its build backend's in a
//! gutter (`    | `). What the build printed there (Cython's
//! and gcc's `a.pyx:7:15: undeclared name …`, a traceback's frames under
//! `Traceback (most recent call last):`) is what it would say alone: read
//! with the indent, a compiler's located message reads as a frame's line,
//! and lines that stand under a failure by their indentation stand under
//! nothing.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::super::compiled;

/// A heading over a build's output: pip's `╰─> [155 lines of output]`,
/// uv's `[stdout]` and `[stderr]`, Cargo's `--- stdout` and `--- stderr`
/// under a build script that failed; their words are the nest's left
/// edge (pip lines up the build's output under the `[`). And Poetry's
/// `Backend subprocess exited when trying to invoke build_wheel`, over
/// the output in a gutter (`    | `).
const HEADING: &str = concat!(
    r"(?:^|[ \t])(\[[0-9]+ lines? of output\])\r?$|^[ \t]*(\[(?:stdout|stderr)\])\r?$|^[ \t]*(--- (?:stdout|stderr))\r?$",
    r"|^[ \t]*(Backend subprocess exited when trying to invoke [a-z_]+)\r?$",
);

/// [`HEADING`] on a line.
fn heading() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, HEADING)
}

/// Where the lines of a text that are a [`HEADING`] start, in order: one
/// search of the text.
fn heading_starts(text: &str) -> Vec<usize> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let mut starts: Vec<usize> = compiled(&RE, &format!("(?m){HEADING}"))
        .find_iter(text)
        .map(|m| text[..m.start()].rfind('\n').map_or(0, |i| i + 1))
        .collect();
    starts.dedup();
    starts
}

/// The number of spaces `line` opens with.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Where the lines of a nest start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    /// This many spaces in.
    Column(usize),
    /// After a gutter of spaces and a bar (Poetry's `    | `): how many
    /// spaces, once the first line under the heading says.
    Gutter(Option<usize>),
}

impl Edge {
    /// The edge of the nest under `line`, when it is a [`HEADING`]: the
    /// column at which its words start (pip's `[` after `  ╰─> `, in
    /// characters), or a gutter.
    fn under(line: &str) -> Option<Edge> {
        let captures = heading().captures(line)?;
        if captures.get(4).is_some() {
            return Some(Edge::Gutter(None));
        }
        let words = captures.iter().skip(1).flatten().next()?;
        Some(Edge::Column(line[..words.start()].chars().count())).filter(|&e| e != Edge::Column(0))
    }

    /// How many bytes of `line` (without its newline) are the nest's edge,
    /// or `None` when the line is not in the nest: indented less, or
    /// without the gutter.
    fn of(self, line: &str) -> Option<usize> {
        match self {
            Edge::Column(n) => (line.trim().is_empty() || indent(line) >= n).then(|| indent(line).min(n)),
            Edge::Gutter(spaces) => {
                let spaces = spaces.unwrap_or_else(|| indent(line));
                let rest = line.get(spaces..)?.strip_prefix('|')?;
                (indent(line) == spaces && (rest.is_empty() || rest.starts_with(' ')))
                    .then(|| spaces + 1 + usize::from(!rest.is_empty()))
            }
        }
    }
}

/// A build's output nested under a [`HEADING`], in the text out of its
/// indent ([`out_of_nesting`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Nest {
    /// The heading's line number and its bytes, without the newline.
    pub(crate) heading: (usize, Range<usize>),
    /// The numbers of the lines nested under it.
    pub(crate) lines: Range<usize>,
}

/// A text with the output nested under each [`HEADING`] taken out of its
/// indent, and where each nest is.
#[derive(Debug)]
pub(crate) struct OutOfNesting<'a> {
    /// The text, line for line: no line is added or left out. Borrowed
    /// when nothing is nested.
    pub(crate) text: Cow<'a, str>,
    /// The nests, in order.
    pub(crate) nests: Vec<Nest>,
}

/// `text` with the output nested under each [`HEADING`] taken out of its
/// indent: the column of the heading's words, kept off each line of the
/// block, which ends at the first line indented less (or after pip's
/// `[end of output]`). A line `is_gap` says stands for lines
/// left out (a form's `[… 12 lines …]`) neither ends a block nor loses
/// anything.
///
/// ```text
///   ╰─> [3 lines of output]
///       a.pyx:7:15: undeclared name not builtin: total
///       Traceback (most recent call last):
///       [end of output]
/// ```
///
/// reads as `a.pyx:7:15: …` and `Traceback …` at the start of their
/// lines.
pub(crate) fn out_of_nesting(text: &str, is_gap: impl Fn(&str) -> bool) -> OutOfNesting<'_> {
    // Most outputs nest nothing: one search decides, and finds the lines
    // to read as headings.
    let starts = heading_starts(text);
    if starts.is_empty() {
        return OutOfNesting {
            text: Cow::Borrowed(text),
            nests: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut nests: Vec<Nest> = Vec::new();
    // The open nest's edge.
    let mut block: Option<Edge> = None;
    let mut starts = starts.into_iter().peekable();
    let mut offset = 0;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        let start = offset;
        offset += line.len();
        let is_heading = starts.next_if_eq(&start).is_some();
        if let Some(edge) = block.filter(|_| !is_gap(body)) {
            match edge.of(body) {
                Some(cut) => {
                    out.push_str(&line[cut..]);
                    if let Some(nest) = nests.last_mut() {
                        nest.lines.end = number + 1;
                    }
                    if let Edge::Gutter(None) = edge {
                        block = Some(Edge::Gutter(Some(indent(body))));
                    }
                    if body.trim() == "[end of output]" {
                        block = None;
                    }
                    continue;
                }
                // Blank lines may stand between a gutter's heading and it.
                None if edge == Edge::Gutter(None) && body.trim().is_empty() => {}
                None => block = None,
            }
        } else if block.is_some() {
            // A gap marker stands for lines of the nest.
            out.push_str(line);
            if let Some(nest) = nests.last_mut() {
                nest.lines.end = number + 1;
            }
            continue;
        }
        // Here no nest is open, or it closed at this line.
        if let Some(edge) = is_heading.then(|| Edge::under(body)).flatten() {
            let start = out.len();
            nests.push(Nest {
                heading: (number, start..start + body.len()),
                lines: number + 1..number + 1,
            });
            block = Some(edge);
        }
        out.push_str(line);
    }
    nests.retain(|n| !n.lines.is_empty());
    OutOfNesting {
        text: match nests.is_empty() {
            true => Cow::Borrowed(text),
            false => Cow::Owned(out),
        },
        nests,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`out_of_nesting`] with no gap markers: its text.
    fn dedented(text: &str) -> Cow<'_, str> {
        out_of_nesting(text, |_| false).text
    }

    /// TOOL-8: pip's report of a build that failed: the build's output
    /// under its heading is read out of its indent, line for line; pip's
    /// own lines around it stay as they are.
    #[test]
    fn tool_8_pip_s_nested_build_output_is_read_out_of_its_indent() {
        let pip = concat!(
            "  × Building wheel for shop (pyproject.toml) did not run successfully.\n",
            "  │ exit code: 1\n",
            "  ╰─> [4 lines of output]\n",
            "      shop/fast.pyx:7:15: undeclared name not builtin: total\n",
            "      \n",
            "        File \"setup.py\", line 3, in <module>\n",
            "      [end of output]\n",
            "  \n",
            "  note: This error originates from a subprocess.\n",
        );
        let nested = out_of_nesting(pip, |_| false);
        assert_eq!(
            nested.text,
            concat!(
                "  × Building wheel for shop (pyproject.toml) did not run successfully.\n",
                "  │ exit code: 1\n",
                "  ╰─> [4 lines of output]\n",
                "shop/fast.pyx:7:15: undeclared name not builtin: total\n",
                "\n",
                "  File \"setup.py\", line 3, in <module>\n",
                "[end of output]\n",
                "  \n",
                "  note: This error originates from a subprocess.\n",
            )
        );
        let heading = "  ╰─> [4 lines of output]";
        let start = nested.text.find(heading).unwrap_or_default();
        assert_eq!(
            nested.nests,
            [Nest {
                heading: (2, start..start + heading.len()),
                lines: 3..7,
            }]
        );
    }

    /// TOOL-8: a form of a nested output (its heading kept, lines left out
    /// as gap markers) is read out of its indent as the output is.
    #[test]
    fn tool_8_a_gap_marker_neither_ends_a_nest_nor_is_indented() {
        let form = "  ╰─> [40 lines of output]\n[… 12 lines …]\n      a.pyx:7:15: undeclared name\n[… 3 lines …]\n      [end of output]\n";
        let nested = out_of_nesting(form, |l| l.starts_with("[… "));
        assert_eq!(
            nested.text,
            "  ╰─> [40 lines of output]\n[… 12 lines …]\na.pyx:7:15: undeclared name\n[… 3 lines …]\n[end of output]\n"
        );
        assert_eq!(nested.nests[0].lines, 1..5);
        // A nest that a form's marker ends.
        let form = "  ╰─> [40 lines of output]\n      a.pyx:7:15: x\n[… 38 lines …]\n  note: y\n";
        assert_eq!(
            out_of_nesting(form, |l| l.starts_with("[… ")).nests[0].lines,
            1..3
        );
    }

    /// TOOL-8: uv's `[stdout]` and `[stderr]` at the indent of their
    /// block; Cargo's `--- stderr` under a build script; the block ends at
    /// the first line indented less.
    #[test]
    fn tool_8_uv_s_and_cargo_s_nested_output_ends_where_the_indent_does() {
        let uv = "  cause: build failed\n\n         [stderr]\n\n         a.c:3:5: error: x\n           int y;\nhint: try again\n    indented after\n";
        assert_eq!(
            dedented(uv),
            "  cause: build failed\n\n         [stderr]\n\na.c:3:5: error: x\n  int y;\nhint: try again\n    indented after\n"
        );
        let cargo = "Caused by:\n  --- stderr\n  thread 'main' panicked at build.rs:3:5:\n  no lib\nerror: could not compile\n";
        assert_eq!(
            dedented(cargo),
            "Caused by:\n  --- stderr\nthread 'main' panicked at build.rs:3:5:\nno lib\nerror: could not compile\n"
        );
    }

    /// TOOL-8: Poetry's report of a build backend that failed: the
    /// output in its gutter (`    | `), after a blank line, is read out of
    /// it; the first line without the gutter ends it.
    #[test]
    fn tool_8_poetry_s_gutter_is_taken_off_the_backend_s_output() {
        let poetry = concat!(
            "PEP517 build of a dependency failed\n\n",
            "Backend subprocess exited when trying to invoke get_requires_for_build_wheel\n\n",
            "    | Compiling shop/fast.pyx because it changed.\n",
            "    | \n",
            "    | shop/fast.pyx:10:8: Cannot assign type 'double' to 'int'\n",
            "    |\n",
            "    |   File \"setup.py\", line 3, in <module>\n",
            "\n",
            "    | not nested\n",
        );
        let nested = out_of_nesting(poetry, |_| false);
        assert_eq!(
            nested.text,
            concat!(
                "PEP517 build of a dependency failed\n\n",
                "Backend subprocess exited when trying to invoke get_requires_for_build_wheel\n\n",
                "Compiling shop/fast.pyx because it changed.\n",
                "\n",
                "shop/fast.pyx:10:8: Cannot assign type 'double' to 'int'\n",
                "\n",
                "  File \"setup.py\", line 3, in <module>\n",
                "\n",
                "    | not nested\n",
            )
        );
        assert_eq!(nested.nests.len(), 1);
        assert_eq!(nested.nests[0].lines, 3..9);
        // A gutter with another indent is another gutter's.
        let other = "Backend subprocess exited when trying to invoke build_wheel\n    | a\n  | b\n";
        assert_eq!(
            dedented(other),
            "Backend subprocess exited when trying to invoke build_wheel\na\n  | b\n"
        );
        // A bar that opens a word is no gutter's.
        let barred = "Backend subprocess exited when trying to invoke build_wheel\n    | a\n    |b\n";
        assert_eq!(
            dedented(barred),
            "Backend subprocess exited when trying to invoke build_wheel\na\n    |b\n"
        );
    }

    /// TOOL-8: a heading with nothing indented under it nests nothing; an
    /// output with no heading is borrowed as it is.
    #[test]
    fn tool_8_nothing_is_nested_without_a_heading_and_an_indent() {
        let flat = "  --- stderr\nerror: x\n  not nested\n";
        let nested = out_of_nesting(flat, |_| false);
        assert!(matches!(nested.text, Cow::Borrowed(_)));
        assert!(nested.nests.is_empty());
        assert!(matches!(dedented("  a.c:3:5: error: x\n"), Cow::Borrowed(_)));
        assert!(matches!(dedented(""), Cow::Borrowed(_)));
    }
}

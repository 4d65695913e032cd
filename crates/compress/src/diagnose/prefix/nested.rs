//! The output of a build that an installer ran, nested in the installer's
//! report under a heading and an indent: taken out of the indent before it
//! is judged.
//!
//! pip reports a build that failed with the build's own output indented
//! six spaces under `╰─> [155 lines of output]`, uv with it indented
//! under `[stdout]` and `[stderr]`, Cargo with a build script's under
//! `--- stdout` and `--- stderr`. What the build printed there (Cython's
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
/// under a build script that failed.
/// Its words are the nest's left edge: pip lines up the build's output
/// under the `[` of `╰─> [155 lines of output]`.
const HEADING: &str = r"(?:^|[ \t])(\[\d+ lines? of output\])\r?$|^[ \t]*(\[(?:stdout|stderr)\])\r?$|^[ \t]*(--- (?:stdout|stderr))\r?$";

/// [`HEADING`] on a line.
fn heading() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, HEADING)
}

/// Whether any line of a text is a [`HEADING`]: one search of the text.
fn has_heading(text: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(&RE, &format!("(?m){HEADING}")).is_match(text)
}

/// The number of spaces `line` opens with.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The column at which a heading's words start (pip's `[` after `  ╰─> `,
/// in characters): the indent of the lines nested under it. `None` for a
/// line that is no [`HEADING`].
fn nest_indent(line: &str) -> Option<usize> {
    let words = heading().captures(line)?.iter().skip(1).flatten().next()?;
    Some(line[..words.start()].chars().count())
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
    // Most outputs nest nothing: one search decides.
    if !has_heading(text) {
        return OutOfNesting {
            text: Cow::Borrowed(text),
            nests: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut nests: Vec<Nest> = Vec::new();
    // The open nest's indent.
    let mut block: Option<usize> = None;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        let blank = body.trim().is_empty() || is_gap(body);
        if block.is_some_and(|n| !blank && indent(body) < n) {
            block = None;
        }
        if let Some(n) = block {
            out.push_str(&line[indent(line).min(n)..]);
            if let Some(nest) = nests.last_mut() {
                nest.lines.end = number + 1;
            }
            if body.trim() == "[end of output]" {
                block = None;
            }
            continue;
        }
        if let Some(n) = nest_indent(body).filter(|&n| n > 0) {
            let start = out.len();
            nests.push(Nest {
                heading: (number, start..start + body.len()),
                lines: number + 1..number + 1,
            });
            block = Some(n);
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

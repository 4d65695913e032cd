//! What a terminal makes of a tool's output: colour codes and cursor
//! moves (ANSI escape sequences) are how a tool printed, not what it said,
//! and a line redrawn after a carriage return shows its last drawing.

use std::borrow::Cow;
use std::sync::OnceLock;

use memchr::memchr;
use regex::Regex;

use super::compiled;

/// ANSI escape sequences: colours and cursor moves (CSI, `\x1b[31m`,
/// `\x1b[?25l`), a terminal's titles and hyperlinks (OSC, ended by BEL or
/// ST: GCC's and Cargo's links to the docs of a warning, `\x1b]8;;https://…\x1b\\`,
/// around the text they link), character sets, and the short escapes
/// (`\x1b=`, `\x1b7`, `\x1bM`).
fn ansi() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    compiled(
        &RE,
        r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[ -/]*[0-~]",
    )
}

/// `text` without its colour codes and cursor moves (ANSI escape
/// sequences): how a tool printed, not what it said. Borrowed when there
/// are none.
///
/// ```
/// use strata_ctx_compress::without_colours;
///
/// assert_eq!(without_colours("\x1b[31merror\x1b[0m: x"), "error: x");
/// let linked = "warning: unused [\x1b]8;;https://gcc.gnu.org/w\x1b\\-Wunused\x1b]8;;\x1b\\]";
/// assert_eq!(without_colours(linked), "warning: unused [-Wunused]");
/// ```
pub fn without_colours(text: &str) -> Cow<'_, str> {
    if text.contains('\x1b') {
        ansi().replace_all(text, "")
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` as a terminal shows it, line by line ([`line_as_shown`]): a
/// `\r\n` line end (Windows', or a terminal's) is `\n`, and a line a
/// progress bar redrew after carriage returns is its last drawing (Cargo's
/// `    Building [===> ] 32/33: app\r\x1b[Kerror[E0308]: mismatched types`
/// is the error), as a program reading a tool's output through a
/// terminal (Codex CLI's `exec_command` under a `tty`) gets it. Borrowed
/// when it holds no carriage return.
///
/// ```
/// use strata_ctx_compress::as_shown;
///
/// let pty = "   Compiling app\r\n    Building [==> ] 3/4: app\r\x1b[Kerror: boom\r\n";
/// assert_eq!(as_shown(pty), "   Compiling app\n\x1b[Kerror: boom\n");
/// assert_eq!(as_shown("plain\n"), "plain\n");
/// ```
pub fn as_shown(text: &str) -> Cow<'_, str> {
    if memchr(b'\r', text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = line.strip_suffix('\n').map_or((line, ""), |body| (body, "\n"));
        shown.push_str(line_as_shown(body));
        shown.push_str(end);
    }
    Cow::Owned(shown)
}

/// One line (without its `\n`) as a terminal shows it: without a `\r`
/// that ends it, and of a line redrawn after carriage returns, its last
/// drawing that shows something (`50%|#####     |\r100%|##########|` is
/// `100%|##########|`; a drawing of colour codes or spaces alone, which
/// only clears, shows nothing).
pub(crate) fn line_as_shown(line: &str) -> &str {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if memchr(b'\r', line.as_bytes()).is_none() {
        return line;
    }
    line.rsplit('\r')
        .find(|drawing| !without_colours(drawing).trim().is_empty())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::line_as_shown;

    /// TOOL-8: a line is its last drawing that shows something.
    #[test]
    fn a_redrawn_line_is_its_last_drawing() {
        assert_eq!(line_as_shown("plain\r"), "plain");
        assert_eq!(
            line_as_shown(" 50%|#####     |\r100%|##########|"),
            "100%|##########|"
        );
        assert_eq!(line_as_shown("error: boom\r\x1b[K"), "error: boom");
        assert_eq!(
            line_as_shown("Building [=> ] 1/2\r\x1b[K\x1b[91merror\x1b[0m: x"),
            "\x1b[K\x1b[91merror\x1b[0m: x"
        );
        assert_eq!(line_as_shown("\r\r"), "");
    }

    /// TOOL-8: a line is read as shown before it is cut for reading:
    /// a progress bar's thousands of drawings stand before the error.
    #[test]
    fn a_long_redrawn_line_is_read_by_its_last_drawing() {
        let drawings: String = (0..2_000).map(|i| format!("{i:>4}/2000 [####    ]\r")).collect();
        let line = format!("{drawings}RuntimeError: CUDA out of memory");
        assert_eq!(super::super::line_kind(&line), super::super::LineKind::Failure);
    }
}

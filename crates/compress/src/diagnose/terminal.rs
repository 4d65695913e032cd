//! What a terminal makes of a tool's output: colour codes and cursor
//! moves (ANSI escape sequences) are how a tool printed, not what it said,
//! and a line redrawn after a carriage return shows its last drawing.

use std::borrow::Cow;
use std::sync::OnceLock;

use memchr::memchr2_iter;
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

/// `text` as a terminal shows it, line by line: a
/// `\r\n` line end (Windows', or a terminal's) is `\n`, a line a
/// progress bar or spinner redrew after carriage returns is its last
/// drawing (Cargo's `    Building [===> ] 32/33: app\r\x1b[Kerror[E0308]:
/// mismatched types` is the error, npm's `⠼\x1b[1G\x1b[0Knpm error code
/// E404` is npm's error), and lines a live region erased by moving the
/// cursor up over them (`\x1b[1A\x1b[2K`: Jest's `RUNS` lines, a spinner
/// over several lines; a reverse index, `\x1bM`) are what was drawn over
/// them, and rows below an erase to the screen's end (`\x1b[J`) are gone, as a program reading
/// a tool's output through a terminal (Codex CLI's `exec_command` under a
/// `tty`) gets it. Borrowed when no line was redrawn.
///
/// ```
/// use strata_ctx_compress::as_shown;
///
/// let pty = "   Compiling app\r\n    Building [==> ] 3/4: app\r\x1b[Kerror: boom\r\n";
/// assert_eq!(as_shown(pty), "   Compiling app\nerror: boom\n");
/// assert_eq!(as_shown("⠙\x1b[1G\x1b[0Knpm error code E404\n"), "npm error code E404\n");
/// let jest = " RUNS  a.test.js\n\x1b[1A\x1b[2K FAIL  a.test.js\n";
/// assert_eq!(as_shown(jest), " FAIL  a.test.js\n");
/// assert_eq!(as_shown("plain\n"), "plain\n");
/// ```
pub fn as_shown(text: &str) -> Cow<'_, str> {
    if redraws(text.as_bytes()) {
        Cow::Owned(screen(text))
    } else {
        Cow::Borrowed(text)
    }
}

/// Whether a terminal shows `bytes` otherwise than they read ([`as_shown`]
/// changes them): a carriage return, a move to a line's first column, up
/// or an erase below. Colour codes alone are not.
pub(crate) fn redraws(bytes: &[u8]) -> bool {
    memchr2_iter(b'\r', 0x1b, bytes).any(|at| redraw_at(bytes, at) > 0 || screen_move_at(bytes, at).is_some())
}

/// The lines of `text` as a terminal's screen ends up showing them, when
/// the cursor moves up over lines drawn before: each line, or part of a
/// line after a move up, is drawn over the row the cursor is on
/// ([`drawn_over`]).
fn screen(text: &str) -> String {
    let mut rows: Vec<&str> = Vec::new();
    let mut row = 0;
    for line in text.split_inclusive('\n') {
        let (body, ended) = line.strip_suffix('\n').map_or((line, false), |body| (body, true));
        let bytes = body.as_bytes();
        let mut start = 0;
        for at in memchr::memchr_iter(0x1b, bytes) {
            let Some((width, lines)) = screen_move_at(bytes, at) else {
                continue;
            };
            draw(&mut rows, row, &body[start..at]);
            match lines {
                Some(lines) => row = row.saturating_sub(lines),
                // The rows below the cursor's are erased.
                None => rows.truncate(row + 1),
            }
            start = at + width;
        }
        draw(&mut rows, row, &body[start..]);
        if ended {
            row += 1;
        }
    }
    // The rows down to the cursor's: a line ended on its own row.
    let ended = text.ends_with('\n');
    let last = if ended { row } else { row + 1 };
    while rows.len() < last {
        rows.push("");
    }
    let mut shown = rows.join("\n");
    if ended {
        shown.push('\n');
    }
    shown
}

/// Draws `drawing` over the row `row` of `rows`; a row below the last is
/// a new, empty one, made when something is drawn on it.
fn draw<'a>(rows: &mut Vec<&'a str>, row: usize, drawing: &'a str) {
    let base = rows.get(row).copied().unwrap_or_default();
    let shown = drawn_over(base, drawing);
    if row < rows.len() {
        rows[row] = shown;
    } else if !shown.is_empty() {
        rows.resize(row, "");
        rows.push(shown);
    }
}

/// How many bytes at `at` in `bytes` change the rows of the screen, and
/// how: `Some(n)` moves the cursor up `n` lines (CSI `A`, `\x1b[1A` or
/// `\x1b[A`; CSI `F`, which goes to the first column of a line above too;
/// the reverse index `\x1bM`, one line), `None` erases the rows below the
/// cursor's (CSI `J` from the cursor down, `\x1b[J`, `\x1b[0J`: a live
/// region drawn again shorter than before).
fn screen_move_at(bytes: &[u8], at: usize) -> Option<(usize, Option<usize>)> {
    let from = bytes.get(at..)?;
    if from.starts_with(b"\x1bM") {
        return Some((2, Some(1)));
    }
    let rest = from.strip_prefix(b"\x1b[")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 4 {
        return None;
    }
    // No number, or 0, is one line.
    let number = rest[..digits]
        .iter()
        .fold(0, |n, d| n * 10 + usize::from(d - b'0'));
    match rest.get(digits) {
        Some(b'A' | b'F') => Some((2 + digits + 1, Some(number.max(1)))),
        Some(b'J') if number == 0 => Some((2 + digits + 1, None)),
        _ => None,
    }
}

/// The escape sequences that move the cursor to a line's first column, as
/// a carriage return does (CSI `G`: npm's spinner redraws so).
const COLUMN_ONE: [&str; 3] = ["\x1b[G", "\x1b[1G", "\x1b[0G"];

/// One line (without its `\n`) as a terminal shows it: without a `\r`
/// that ends it, and of a line redrawn after carriage returns (or moves to
/// its first column), its last drawing that shows something
/// (`50%|#####     |\r100%|##########|` is `100%|##########|`), without
/// the codes it clears the line with first (`\x1b[K`): a drawing of colour
/// codes or spaces alone leaves what it was drawn over, one that clears
/// the line first and draws nothing leaves nothing.
pub(crate) fn line_as_shown(line: &str) -> &str {
    drawn_over("", line)
}

/// What a row that showed `base` shows once `line` is drawn over it from
/// its first column ([`line_as_shown`] of a fresh row): `line` itself when
/// it was not redrawn and the row was empty; else its last drawing that
/// shows something or clears the row, else `base`.
fn drawn_over<'a>(base: &'a str, line: &'a str) -> &'a str {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let bytes = line.as_bytes();
    // What the line shows once `drawing` is drawn over `shown`: the
    // drawing when it shows something, nothing when it clears the line
    // first, else what it was drawn over.
    let over = |shown: &'a str, drawn: &'a str| {
        let mut drawing = drawn;
        while let Some(rest) = ERASE_LINE.iter().find_map(|e| drawing.strip_prefix(e)) {
            drawing = rest;
        }
        let cleared = drawing.len() < drawn.len();
        if cleared || !without_colours(drawing).trim().is_empty() {
            drawing
        } else {
            shown
        }
    };
    let (mut start, mut shown) = (0, base);
    for at in memchr2_iter(b'\r', 0x1b, bytes) {
        let width = redraw_at(bytes, at);
        if width == 0 || at < start {
            continue;
        }
        shown = over(shown, &line[start..at]);
        start = at + width;
    }
    if start == 0 && base.is_empty() {
        return line;
    }
    over(shown, &line[start..])
}

/// How many bytes at `at` in `bytes` move the cursor back to the line's
/// first column (a carriage return, [`COLUMN_ONE`]'s sequences); 0 for
/// none.
fn redraw_at(bytes: &[u8], at: usize) -> usize {
    match bytes[at] {
        b'\r' => 1,
        _ => COLUMN_ONE
            .iter()
            .find(|m| bytes[at..].starts_with(m.as_bytes()))
            .map_or(0, |m| m.len()),
    }
}

/// The escape sequences that clear a line, which a redrawn line opens with
/// (`\x1b[K`, `\x1b[2K`).
const ERASE_LINE: [&str; 4] = ["\x1b[K", "\x1b[0K", "\x1b[1K", "\x1b[2K"];

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
        // Cleared, it shows nothing; drawn over with nothing, it stays.
        assert_eq!(line_as_shown("error: boom\r\x1b[K"), "");
        assert_eq!(line_as_shown("error: boom\r"), "error: boom");
        assert_eq!(line_as_shown("error: boom\r\r\x1b[0m"), "error: boom");
        assert_eq!(
            line_as_shown("Building [=> ] 1/2\r\x1b[K\x1b[91merror\x1b[0m: x"),
            "\x1b[91merror\x1b[0m: x"
        );
        assert_eq!(line_as_shown("\r\r"), "");
        assert_eq!(
            line_as_shown("⠙\x1b[1G\x1b[0K⠹\x1b[1G\x1b[0K\x1b[1mnpm\x1b[22m error"),
            "\x1b[1mnpm\x1b[22m error"
        );
        assert_eq!(
            line_as_shown("\x1b[31merror\x1b[0m: x"),
            "\x1b[31merror\x1b[0m: x"
        );
    }

    /// TOOL-8: a text is shown line by line; one no line of which was
    /// redrawn is itself.
    #[test]
    fn a_text_is_shown_line_by_line() {
        use std::borrow::Cow;
        let plain = "\x1b[31merror\x1b[0m: x\nok\n";
        assert!(matches!(super::as_shown(plain), Cow::Borrowed(t) if t == plain));
        assert_eq!(super::as_shown("a\r\nb\r\n"), "a\nb\n");
        // A move to the first column with no carriage return redraws too.
        assert_eq!(super::as_shown("⠙\x1b[1Gnpm error\nok"), "npm error\nok");
    }

    /// TOOL-8: lines a live region erased by moving the cursor up over
    /// them show what was drawn over them: Jest's `RUNS` line under its
    /// `\r\x1b[K\r\x1b[1A` erasures, a two-line spinner redrawn with
    /// `\x1b[2F`; a move up past the first line stays on it, a drawing of
    /// colour codes alone leaves the row as it was.
    #[test]
    fn lines_erased_by_a_move_up_show_what_was_drawn_over_them() {
        use super::as_shown;
        let jest = "\n RUNS  a.test.js\n\r\x1b[K\r\x1b[1A\r\x1b[K\r\x1b[1A FAIL  a.test.js\n  ● adds\n";
        assert_eq!(as_shown(jest), " FAIL  a.test.js\n  ● adds\n");
        let spinner = "⠋ build\n⠋ test\n\x1b[2F⠙ build\n✗ test failed\n";
        assert_eq!(as_shown(spinner), "⠙ build\n✗ test failed\n");
        assert_eq!(as_shown("a\n\x1b[5Ab\n"), "b\n");
        assert_eq!(as_shown("error: x\n\x1b[1A\x1b[0m\n"), "error: x\n");
        assert_eq!(as_shown("a\nb\n\x1b[1A\x1b[2K"), "a\n");
        assert_eq!(as_shown("a\n\nb\x1b[A"), "a\n\nb");
        // A text that ends on a cleared line ends with that line's end.
        assert_eq!(as_shown("a\n\r\x1b[2K"), "a\n");
        // A move of up to 9,999 lines; a longer number is no move.
        assert_eq!(as_shown("a\nb\n\x1b[1000Ac\n"), "c\nb\n");
        assert_eq!(as_shown("a\nb\n\x1b[99999Ac\n"), "a\nb\n\x1b[99999Ac\n");
        // Without a move up, each line is shown as it was, empty ones too.
        assert_eq!(as_shown("a\r\n\r\n\r\x1b[K\nb"), "a\n\n\nb");
        assert_eq!(as_shown("\r\n"), "\n");
    }

    /// TOOL-8: a live region drawn again shorter than before erases the
    /// rows below it (CSI `J`), and a reverse index (`\x1bM`) moves up a
    /// line as CSI `A` does; erasing the whole screen (`\x1b[2J`) is no
    /// such move.
    #[test]
    fn rows_below_an_erase_are_gone_and_a_reverse_index_moves_up() {
        use super::as_shown;
        let region = "#1 load\n#2 build 10%\n#3 test\n\x1b[3A\x1b[J#2 ERROR: exit code 1\n";
        assert_eq!(as_shown(region), "#2 ERROR: exit code 1\n");
        assert_eq!(as_shown("a\nb\nc\n\x1b[2A\x1b[0Jd\n"), "a\nd\n");
        assert_eq!(as_shown("a\nb\x1bMc\n"), "c\nb\n");
        // What was drawn on the cursor's row before the erase stays.
        assert_eq!(as_shown("a\nx\n\x1b[1Ab\x1b[J\n"), "a\nb\n");
        assert_eq!(as_shown("a\n\x1b[2Jb\n"), "a\n\x1b[2Jb\n");
        assert_eq!(as_shown("a\n\x1b[10000Jb\n"), "a\n\x1b[10000Jb\n");
    }

    /// a progress bar's thousands of drawings stand before the error.
    #[test]
    fn a_long_redrawn_line_is_read_by_its_last_drawing() {
        let drawings: String = (0..2_000).map(|i| format!("{i:>4}/2000 [####    ]\r")).collect();
        let line = format!("{drawings}RuntimeError: CUDA out of memory");
        assert_eq!(super::super::line_kind(&line), super::super::LineKind::Failure);
    }
}

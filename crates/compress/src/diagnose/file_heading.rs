//! The heading that names the file a finding is about, where the finding
//! names only a line and a column (TOOL-8, REACT-6).

use std::sync::OnceLock;

use regex::Regex;

use super::place::lines_above;
use super::{compiled, without_colours};

/// How many lines above a row of findings its file's heading may be
/// (ESLint's `src/app.js` above `  2:10  error  …`).
pub(crate) const FILE_HEADING_REACH: usize = 400;

/// Whether the line starting at `start` in `text` is a row of findings
/// under its file's heading: indented (ESLint's `  3:7  error  …`), or
/// SQLFluff's `L:   3 | P:  10 | LT01 | …` under `== [models/a.sql] FAIL`.
fn is_finding_row(text: &[u8], start: usize) -> bool {
    static SQLFLUFF: OnceLock<Regex> = OnceLock::new();
    let row = row_at(text, start);
    matches!(row.first(), Some(b' ' | b'\t'))
        || std::str::from_utf8(row).is_ok_and(|r| compiled(&SQLFLUFF, sqlfluff_row!()).is_match(r))
}

/// The line starting at `start` in `text`, without its line end.
fn row_at(text: &[u8], start: usize) -> &[u8] {
    let row = &text[start.min(text.len())..];
    &row[..memchr::memchr(b'\n', row).unwrap_or(row.len())]
}

/// The line naming the file a finding starting at `start` in `text` is
/// about, as a row under its heading ([`is_finding_row`]): ESLint's and
/// Stylelint's `src/app.js` above `  3:7 error  …`, PHP_CodeSniffer's
/// `FILE: src/A.php`, ShellCheck's `In run.sh line 3:`, SQLFluff's `==
/// [models/a.sql] FAIL`. It is the nearest line above the finding, within
/// [`FILE_HEADING_REACH`] lines, that is no row, when it names a file
/// ([`names_a_file`]); its span, and how many lines above the finding it
/// is. A finding that opens on its own file's path (reek's `  app/a.rb:3:
/// UtilityFunction: …` under `app/a.rb -- 2 warnings:`) has none: the
/// heading would only say it again.
pub(crate) fn file_heading_above(text: &[u8], start: usize) -> Option<(usize, usize, usize)> {
    if !is_finding_row(text, start) {
        return None;
    }
    // As it reads, without its colours (ts-jest's `\x1b[96mtest/a.ts\x1b[0m:8:30
    // - error …`).
    let finding = String::from_utf8_lossy(row_at(text, start));
    let finding = without_colours(&finding);
    let first_word = finding.split_whitespace().next().unwrap_or_default();
    let place = first_word.split([':', '(']).next().unwrap_or_default();
    if is_path(place) {
        return None;
    }
    let (up, (s, e)) = lines_above(text, start)
        .take(FILE_HEADING_REACH)
        .enumerate()
        .find(|(_, (s, e))| {
            let line = &text[*s..*e];
            // A form's gap marker stands for lines the heading was found
            // above when the form was made: the search goes on past it.
            let marker = std::str::from_utf8(line).is_ok_and(|l| crate::text::gap_of(l).is_some());
            !(line.trim_ascii().is_empty() || is_finding_row(text, *s) || marker || is_table_frame(line))
        })?;
    names_a_file(&String::from_utf8_lossy(&text[s..e])).then_some((s, e, up + 1))
}

/// Whether `line` is drawn between a file's heading and its rows, as
/// PHP_CodeSniffer frames its table: a rule (`-----…`) or the count over
/// the rows (`FOUND 17 ERRORS AFFECTING 7 LINES`, `FOUND 2 ERRORS AND 1
/// WARNING AFFECTING 3 LINES`).
fn is_table_frame(line: &[u8]) -> bool {
    static COUNT: OnceLock<Regex> = OnceLock::new();
    let line = line.trim_ascii();
    (line.len() >= 10 && line.iter().all(|&b| b == b'-' || b == b'='))
        || std::str::from_utf8(line).is_ok_and(|l| {
            compiled(&COUNT, r"^FOUND \d+ [A-Z ]+\d*[A-Z ]* AFFECTING \d+ LINES?$").is_match(l)
        })
}

/// The heading naming the file a finding of `text` is about, when the
/// finding names none itself: ESLint's `src/app.js` over `  2:42  error
/// 'x' is not defined  no-undef`, SQLFluff's `== [models/a.sql] FAIL` over
/// `L:   1 | P:  10 | CV03 | …`, PHP_CodeSniffer's `FILE: src/A.php`,
/// ShellCheck's `In run.sh line 3:`: the nearest line above the finding,
/// within 400 lines, that is no row of findings, when it is a short
/// heading naming a file by its extension (not pip's `Processing
/// /home/dev/pkg`). `line` is a slice of `text`, trimmed or not; a line of
/// another text has none, and so has a finding that opens on its own
/// file's path.
///
/// ```
/// use strata_ctx_compress::file_heading_of;
///
/// let report = "src/app.js\n  2:42  error  'x' is not defined  no-undef\n";
/// let finding = report.lines().nth(1).unwrap_or_default().trim();
/// assert_eq!(file_heading_of(report, finding), Some("src/app.js"));
/// assert_eq!(file_heading_of(report, "src/app.js"), None);
/// ```
pub fn file_heading_of<'a>(text: &'a str, line: &str) -> Option<&'a str> {
    let start = (line.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    if start + line.len() > text.len() || line.is_empty() {
        return None;
    }
    let line_start = memchr::memrchr(b'\n', &text.as_bytes()[..start]).map_or(0, |i| i + 1);
    let (s, e, _) = file_heading_above(text.as_bytes(), line_start)?;
    let heading = text.get(s..e)?.trim_end();
    // A file's name, not a directory's (pip's `Processing /home/dev/pkg`
    // over the output of the build it ran).
    heading_words(heading)
        .any(|w| is_path(w) && has_extension(w))
        .then_some(heading)
}

/// The words of a heading as paths read in it, without the colon or comma
/// after them and the brackets around them (`src/app.js:`, SQLFluff's
/// `[models/a.sql]`).
fn heading_words(line: &str) -> impl Iterator<Item = &str> {
    line.split_whitespace()
        .map(|w| w.trim_end_matches([':', ',']).trim_matches(['[', ']']))
}

/// Whether `line` is a short heading (at most four words) with a word that
/// names a file: a path with a separator, or a name with an extension,
/// made of the characters paths are.
pub(crate) fn names_a_file(line: &str) -> bool {
    line.split_whitespace().count() <= 4 && heading_words(line).any(is_path)
}

/// Whether `word` reads as a file's path (`src/app.js`, `C:\\a\\b.rs`,
/// `main.go`), not a ratio (`[1/4]`), an address or a sentence's end.
pub(super) fn is_path(word: &str) -> bool {
    let path_chars = word
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._-/\\~@+:".contains(&b));
    let extension = has_extension(word);
    let separated = word.contains(['/', '\\']) && word.bytes().filter(u8::is_ascii_alphabetic).count() >= 2;
    path_chars && !word.contains("://") && (separated || extension)
}

/// Whether `word` ends on a file's extension (`app.js`, `a.tar.gz`), not a
/// sentence's or a version's (`v1.2`).
fn has_extension(word: &str) -> bool {
    let (stem, ext) = word.rsplit_once('.').unwrap_or((word, ""));
    (1..=5).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        && ext.bytes().any(|b| b.is_ascii_alphabetic())
        && !stem.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_told_from_a_ratio_an_address_and_words() {
        for path in [
            "src/app.js",
            "/home/dev/a",
            "C:\\app\\b.rs",
            "main.go",
            "In",
            "run.sh",
        ] {
            assert_eq!(is_path(path), path != "In", "{path}");
        }
        for other in [
            "[1/4]",
            "1/4",
            "https://x.io/a.js",
            "v1.2",
            "problems",
            "\u{23af}\u{23af}[1/4]",
        ] {
            assert!(!is_path(other), "{other}");
        }
        assert!(names_a_file("In run.sh line 3:"));
        assert!(names_a_file("== [models/orders.sql] FAIL"));
        // SQLFluff's rows, and the lines they wrap onto, stand under their
        // file's heading; a row above any heading has none.
        let lint = "L:   9 | P:   1 | LT01 | x\n== [models/a.sql] FAIL\nL:   1 | P:  10 | CV03 | Trailing comma\n\
                    \x20                      | [convention.select_trailing_comma]\nL:   2 | P:   5 | LT09 | y\n";
        let row = |n: usize| lint.lines().nth(n).unwrap_or_default();
        assert_eq!(file_heading_of(lint, row(4)), Some("== [models/a.sql] FAIL"));
        assert_eq!(file_heading_of(lint, row(2)), Some("== [models/a.sql] FAIL"));
        assert_eq!(file_heading_of(lint, row(0)), None);
        assert_eq!(file_heading_of(lint, row(1)), None);
        assert!(!names_a_file("[1/4] Resolving packages..."));
        // The last row, with no line end after it, has its heading too.
        let last = lint.trim_end();
        assert_eq!(
            file_heading_of(last, last.lines().nth(4).unwrap_or_default()),
            Some("== [models/a.sql] FAIL")
        );
        // A line of another text, before or after this one in memory, and
        // an empty line have none.
        let other = String::from("L:   1 | P:  10 | CV03 | Trailing comma");
        assert_eq!(file_heading_of(lint, &other), None);
        let lint_owned = lint.to_owned();
        let later = String::from("L:   1 | P:  10 | CV03 | Trailing comma");
        assert_eq!(file_heading_of(&lint_owned, &later), None);
        assert_eq!(file_heading_of(lint, &lint[lint.len()..]), None);
        // A heading that names a directory is no file's (pip's step over
        // the build it ran).
        let pip = "Processing /home/dev/pkg\n  error: subprocess-exited-with-error\n";
        assert_eq!(file_heading_of(pip, pip.lines().nth(1).unwrap_or_default()), None);
        let pip = "Processing /home/dev/pkg.tar.gz\n  error: subprocess-exited-with-error\n";
        assert_eq!(
            file_heading_of(pip, pip.lines().nth(1).unwrap_or_default()),
            Some("Processing /home/dev/pkg.tar.gz")
        );
        assert!(!names_a_file("Tests failed in the module src/app.js today"));
    }

    /// TOOL-8, REACT-6: PHP_CodeSniffer draws rules and a count between a
    /// file's heading and its rows: the search passes them; no other line
    /// is passed.
    #[test]
    fn a_table_s_rules_and_count_stand_between_a_heading_and_its_rows() {
        let rule = "-".repeat(70);
        let report = format!(
            "FILE: src/Cart.php\n{rule}\nFOUND 2 ERRORS AND 1 WARNING AFFECTING 2 LINES\n{rule}\n  7 | ERROR | [x] x\n"
        );
        let row = report.lines().nth(4).unwrap_or_default();
        assert_eq!(file_heading_of(&report, row), Some("FILE: src/Cart.php"));
        for frame in [
            rule.as_str(),
            "==========",
            "FOUND 17 ERRORS AFFECTING 7 LINES",
            "FOUND 1 WARNING AFFECTING 1 LINE",
        ] {
            assert!(is_table_frame(frame.as_bytes()), "{frame}");
        }
        for other in [
            "---------",
            "FOUND 2 ERRORS",
            "-- a -------------",
            "Found 2 errors affecting 2 lines",
        ] {
            assert!(!is_table_frame(other.as_bytes()), "{other}");
        }
        let counted = "FILE: src/Cart.php\nChecked 2 files\n  7 | ERROR | [x] x\n";
        assert_eq!(
            file_heading_of(counted, counted.lines().nth(2).unwrap_or_default()),
            None
        );
    }
}

//! The causes an error's chain lists under `Caused by:`, as anyhow, eyre
//! and Cargo print them.

use super::place::{lines_above, span_in};
use super::without_colours;

/// How many causes an error's chain may list under its `Caused by:`
/// ([`is_cause`]).
const CAUSE_REACH: usize = 32;

/// Whether `line`, a line of `text`, is a cause of an error, as anyhow
/// and eyre list them, indented under `Caused by:` with no blank line
/// between (`    0: config is not valid JSON`, `    1: trailing comma at
/// line 1 column 13`): the chain that says why the error above happened,
/// its deepest cause last. What a process printed, listed under the cause
/// (Cargo's `--- stdout` of a build script), is not.
pub(super) fn is_cause(text: &str, line: &str) -> bool {
    if !is_indented(line) {
        return false;
    }
    let (start, _) = span_in(text, line);
    !opens_stream(line)
        && lines_above(text.as_bytes(), start)
            .take(CAUSE_REACH)
            .filter_map(|(s, e)| text.get(s..e))
            .find(|l| !is_indented(l) || opens_stream(l))
            .is_some_and(heads_causes)
}

/// The causes listed under `line` when it heads them (`Caused by:`,
/// [`is_cause`]), given `after`, the text that follows it from its end.
pub(crate) fn causes_under<'a>(line: &str, after: &'a str) -> impl Iterator<Item = &'a str> {
    let heads = heads_causes(line);
    after
        .split('\n')
        .skip(1)
        .take(if heads { CAUSE_REACH } else { 0 })
        .map(|l| l.trim_end_matches('\r'))
        .take_while(|l| is_indented(l) && !opens_stream(l))
}

/// Whether `line` opens what a process printed on one of its streams,
/// as Cargo lists a build script's under the cause that it failed (`
/// --- stdout`, `  --- stderr`): its lines are no causes.
fn opens_stream(line: &str) -> bool {
    matches!(line.trim(), "--- stdout" | "--- stderr")
}

/// Whether `line` heads the causes of an error, as anyhow, eyre and Cargo
/// print them: `Caused by:` alone.
fn heads_causes(line: &str) -> bool {
    without_colours(line).trim_end() == "Caused by:"
}

/// Whether `line` says something, indented.
fn is_indented(line: &str) -> bool {
    line.starts_with([' ', '\t']) && !line.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::super::{line_kind_in, LineKind};
    use super::*;

    /// TOOL-8: the lines indented under `Caused by:` are an error's
    /// causes, failures whatever their words, up to a line that is not
    /// indented; what a build script printed on its streams under the
    /// cause (Cargo's `--- stdout`) is not.
    #[test]
    fn tool_8_the_causes_under_caused_by_are_failures() {
        let anyhow = "Error: failed to load config\n\nCaused by:\n    0: config is not valid JSON\n    1: trailing comma at line 1 column 13\n\n  later\n";
        let lines: Vec<&str> = anyhow.lines().collect();
        assert_eq!(line_kind_in(anyhow, lines[3]), LineKind::Failure);
        assert_eq!(line_kind_in(anyhow, lines[4]), LineKind::Failure);
        assert_eq!(line_kind_in(anyhow, lines[6]), LineKind::Plain);
        assert_eq!(
            causes_under(
                lines[2],
                &anyhow[anyhow.find("Caused by:").map_or(0, |i| i + 10)..]
            )
            .collect::<Vec<_>>(),
            [
                "    0: config is not valid JSON",
                "    1: trailing comma at line 1 column 13"
            ]
        );
        assert_eq!(causes_under("Caused:", "\n  x\n").count(), 0);
        let cargo = "error: failed to run custom build command for `openssl-sys v0.9.98`\n\nCaused by:\n  process didn't exit successfully: `build-script-main` (exit status: 101)\n  --- stdout\n  OPENSSL_DIR unset\n";
        let lines: Vec<&str> = cargo.lines().collect();
        assert_eq!(line_kind_in(cargo, lines[4]), LineKind::Plain);
        assert_eq!(line_kind_in(cargo, lines[5]), LineKind::Plain);
        let after = &cargo[cargo.find("Caused by:").map_or(0, |i| i + 10)..];
        assert_eq!(causes_under(lines[2], after).count(), 1);
        // Under another heading, an indented line is what its words say.
        let other = "Stack backtrace:\n    0: config is not valid JSON\n";
        assert_eq!(
            line_kind_in(other, other.lines().nth(1).unwrap_or_default()),
            LineKind::Plain
        );
    }
}

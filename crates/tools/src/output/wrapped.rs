//! The lines agents put around what a command printed: OpenHands'
//! notes, opencode's metadata block, mini-SWE-agent's tags.

use super::Shape;

/// The notes OpenHands puts under a command's output, each a whole line
/// that starts so and closes with `]`.
const NOTES: &[&str] = &[
    "[Current working directory: ",
    "[Python interpreter: ",
    "[Python Interpreter: ",
    "[The command timed out after ",
    "[The command has no new output after ",
];

/// OpenHands' notes of the Python interpreter, the same under every
/// output.
pub(super) const INTERPRETER_NOTES: &[&str] = &["[Python interpreter: ", "[Python Interpreter: "];

/// OpenHands' notes of how a command ended, around its exit code.
const EXIT_NOTES: &[(&str, &str)] = &[
    ("[The command completed with exit code ", ".]"),
    ("[Command finished with exit code ", "]"),
];

/// The block opencode's `bash` closes an output with.
const BASH_METADATA: (&str, &str) = ("<bash_metadata>", "</bash_metadata>");

/// What a command printed and the notes an agent put under it: OpenHands'
/// bracketed notes (the shell's prompt among them, as its older form
/// shows it above `[Command finished with exit code 1]`) or opencode's
/// `<bash_metadata>` block, read upwards from the end, blank lines
/// between them.
pub(super) fn noted(text: &str) -> Option<Shape> {
    let mut start = text.trim_end_matches(['\n', '\r']).len();
    let mut known = false;
    let mut exit_code = None;
    if text[..start].ends_with(BASH_METADATA.1) {
        start = text[..start].rfind(BASH_METADATA.0)?;
        if start > 0 && !text[..start].ends_with('\n') {
            return None;
        }
        known = true;
    } else {
        loop {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let line = text[line_start..start].trim_end_matches('\r');
            let code = EXIT_NOTES
                .iter()
                .find_map(|(open, close)| line.strip_prefix(open)?.strip_suffix(close)?.parse::<i64>().ok());
            let note = code.is_some() || (line.ends_with(']') && NOTES.iter().any(|n| line.starts_with(n)));
            if note {
                // The note nearest the end says how the command ended.
                exit_code = exit_code.or(code);
                known = true;
            } else if !(line.trim().is_empty() || known && is_prompt(line)) {
                break;
            }
            start = line_start;
            if line_start == 0 {
                break;
            }
            start -= 1;
        }
    }
    // Blank lines above the notes are theirs; the newline that ends the
    // output's last line is the output's.
    start = text[..start].trim_end_matches(['\n', '\r']).len();
    if start > 0 {
        let rest = &text[start..];
        start += if rest.starts_with("\r\n") {
            2
        } else {
            usize::from(rest.starts_with('\n'))
        };
    }
    known.then(|| Shape::Wrapped {
        above: String::new(),
        output: text[..start].to_owned(),
        below: text[start..].to_owned(),
        exit_code,
    })
}

/// A shell's prompt as OpenHands' older notes show it
/// (`root@openhands-workspace:/workspace/django # `).
pub(super) fn is_prompt(line: &str) -> bool {
    let line = line.trim_end();
    let Some((user, rest)) = line.split_once('@') else {
        return false;
    };
    !user.is_empty()
        && !user.contains(char::is_whitespace)
        && rest.contains(':')
        && line.ends_with(['#', '$'])
}

/// mini-SWE-agent's tags: `<returncode>1</returncode>` and `<output>`,
/// each on its own line, above the output, and `</output>` on the last.
pub(super) fn tagged(text: &str) -> Option<Shape> {
    let rest = text.strip_prefix("<returncode>")?;
    let (code, rest) = rest.split_once("</returncode>")?;
    let exit_code = code.trim().parse::<i64>().ok()?;
    let rest = rest.trim_start_matches(['\r', '\n']).strip_prefix("<output>")?;
    let rest = rest
        .strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))
        .unwrap_or(rest);
    let output_start = text.len() - rest.len();
    let end = text.trim_end_matches(['\n', '\r']).len();
    let closing = text[..end].strip_suffix("</output>")?.len();
    if closing < output_start || !(closing == output_start || text[..closing].ends_with('\n')) {
        return None;
    }
    Some(Shape::Wrapped {
        above: text[..output_start].to_owned(),
        output: text[output_start..closing].to_owned(),
        below: text[closing..].to_owned(),
        exit_code: Some(exit_code),
    })
}

/// `output` between what stands above and below it, each part from the
/// start of a line.
pub(super) fn wrapped_text(mut above: String, output: &str, below: &str) -> String {
    above.push_str(output);
    if !output.is_empty() && !output.ends_with('\n') {
        above.push('\n');
    }
    above.push_str(below);
    above
}

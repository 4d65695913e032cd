//! What a tool's recorded output says, under the shapes agents record it
//! in.

use serde_json::{Map, Value};

mod wrapped;
use wrapped::{is_prompt, noted, tagged, wrapped_text, INTERPRETER_NOTES};

/// A shell's output that an agent recorded with an envelope around what
/// the command printed, rather than as plain text:
///
/// - as a JSON object: Codex CLI's `shell` and `local_shell` calls answer
///   `{"output": "…", "metadata": {"exit_code": 1, "duration_seconds":
///   0.5}}`, and transcripts in OpenAI chat form carry that object as the
///   tool message's text;
/// - under a header of `Name: value` lines that ends with `Output:`: Codex
///   CLI's `exec_command` and `write_stdin` answer `Chunk ID: …`, `Wall
///   time: … seconds`, `Process exited with code 1` (or `Process running
///   with session ID 7`), `Original token count: …`, and its `apply_patch`
///   answers `Exit code: 0` and `Wall time: …`; the scripts of its code
///   mode (`exec`) answer `Script completed` (or `Script failed`, `Script
///   terminated`, `Script running with cell ID 3`), `Wall time 0.4
///   seconds`, `Output:`, and a failed script ends on `Script error:`
///   and the error;
/// - as labelled fields around the output: Gemini CLI's
///   `run_shell_command` answers `Command: …`, `Directory: …`, `Output: …`
///   (or `Stdout: …` and `Stderr: …`), then `Error: …`, `Exit Code: …`,
///   `Signal: …`, `Background PIDs: …` and `Process Group PGID: …`, each
///   `(none)` or `(empty)` when there is nothing to say;
/// - with notes under it: OpenHands' `execute_bash` appends `[The command
///   completed with exit code 1.]`, `[Current working directory: …]`,
///   `[Python interpreter: …]` (and, in its older form, the shell's prompt
///   and `[Command finished with exit code 1]`), opencode's `bash` a
///   `<bash_metadata>` block (the command stopped for its timeout);
/// - in tags: mini-SWE-agent answers `<returncode>1</returncode>`, then
///   the output between `<output>` and `</output>`, each on a line of its
///   own.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellOutput {
    shape: Shape,
}

#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Json(Map<String, Value>),
    /// The header, up to and with its `Output:` line, and what follows.
    Headed {
        header: String,
        output: String,
        exit_code: Option<i64>,
        /// A script's `Script failed` status.
        script_failed: bool,
    },
    /// Labelled fields: the command (perhaps over several lines) and the
    /// directory above the output, the output, and the fields below it,
    /// each a label and its value.
    Labelled {
        command: String,
        directory: String,
        output: String,
        below: Vec<(&'static str, String)>,
    },
    /// What the command printed between the lines an agent put above it
    /// (a tag) and under it (notes, a closing tag), each from the start of
    /// a line.
    Wrapped {
        above: String,
        output: String,
        below: String,
        exit_code: Option<i64>,
    },
}

/// The most lines of a header before its `Output:` line.
const HEADER_LINES: usize = 8;

impl ShellOutput {
    /// Reads `text` as a shell's output in an envelope: a JSON object with
    /// an `output` string, and perhaps an exit code (`metadata.exit_code`,
    /// or `exit_code`/`exitCode` beside the output); or a header of known
    /// `Name: value` lines ending with a line `Output:`. `None` for
    /// anything else, plain text included.
    ///
    /// ```
    /// use strata_ctx_tools::ShellOutput;
    ///
    /// let text = r#"{"output":"error: could not compile `app`\n","metadata":{"exit_code":101,"duration_seconds":2.5}}"#;
    /// let out = ShellOutput::parse(text).unwrap();
    /// assert_eq!(out.output(), "error: could not compile `app`\n");
    /// assert_eq!(out.exit_code(), Some(101));
    ///
    /// let text = "Chunk ID: 3f2a1c\nWall time: 1.2031 seconds\nProcess exited with code 1\nOriginal token count: 12\nOutput:\nFAILED tests/test_a.py::test_x\n";
    /// let out = ShellOutput::parse(text).unwrap();
    /// assert_eq!(out.output(), "FAILED tests/test_a.py::test_x\n");
    /// assert_eq!(out.exit_code(), Some(1));
    ///
    /// assert!(ShellOutput::parse("plain text").is_none());
    /// ```
    pub fn parse(text: &str) -> Option<ShellOutput> {
        let shape = if text.trim_start().starts_with('{') {
            match serde_json::from_str::<Value>(text).ok()? {
                Value::Object(object) if object.get("output").is_some_and(Value::is_string) => {
                    Shape::Json(object)
                }
                _ => return None,
            }
        } else {
            headed(text)
                .or_else(|| labelled(text))
                .or_else(|| tagged(text))
                .or_else(|| noted(text))?
        };
        Some(ShellOutput { shape })
    }

    /// What the command printed.
    pub fn output(&self) -> &str {
        match &self.shape {
            Shape::Json(object) => object.get("output").and_then(Value::as_str).unwrap_or_default(),
            Shape::Headed { output, .. } | Shape::Labelled { output, .. } | Shape::Wrapped { output, .. } => {
                output
            }
        }
    }

    /// Whether the envelope is a JSON object (Codex CLI's `shell`), rather
    /// than text around what the command printed.
    pub fn is_json(&self) -> bool {
        matches!(self.shape, Shape::Json(_))
    }

    /// The command's exit code, when the envelope reports one.
    pub fn exit_code(&self) -> Option<i64> {
        let beside = |o: &Map<String, Value>| {
            ["exit_code", "exitCode"]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_i64))
        };
        match &self.shape {
            Shape::Json(object) => object
                .get("metadata")
                .and_then(Value::as_object)
                .and_then(beside)
                .or_else(|| beside(object)),
            Shape::Headed { exit_code, .. } | Shape::Wrapped { exit_code, .. } => *exit_code,
            Shape::Labelled { below, .. } => below
                .iter()
                .find(|(label, _)| *label == EXIT_CODE)
                .and_then(|(_, value)| value.trim().parse().ok()),
        }
    }

    /// The session of a process still running when the call returned
    /// (Codex CLI's `Process running with session ID 7`): a later
    /// `write_stdin` call with that `session_id` reads on from it.
    ///
    /// ```
    /// use strata_ctx_tools::ShellOutput;
    ///
    /// let text = "Chunk ID: 1\nWall time: 10.0 seconds\nProcess running with session ID 7\nOutput:\nCompiling app\n";
    /// assert_eq!(ShellOutput::parse(text).unwrap().session_id(), Some(7));
    /// let done = "Process exited with code 0\nOutput:\nok\n";
    /// assert_eq!(ShellOutput::parse(done).unwrap().session_id(), None);
    /// ```
    pub fn session_id(&self) -> Option<i64> {
        let Shape::Headed { header, .. } = &self.shape else {
            return None;
        };
        header
            .lines()
            .find_map(|l| l.strip_prefix(RUNNING_SESSION)?.trim().parse().ok())
    }

    /// Whether the envelope says the call failed: an exit code other than
    /// 0, or a code mode script's `Script failed`.
    ///
    /// ```
    /// use strata_ctx_tools::ShellOutput;
    ///
    /// let text = "Script failed\nWall time 0.2 seconds\nOutput:\nScript error:\nTypeError: r.output is undefined\n";
    /// let out = ShellOutput::parse(text).unwrap();
    /// assert!(out.failed());
    /// assert_eq!(out.exit_code(), None);
    /// assert!(!ShellOutput::parse("Script completed\nWall time 1.0 seconds\nOutput:\nok\n").unwrap().failed());
    /// ```
    pub fn failed(&self) -> bool {
        self.exit_code().is_some_and(|c| c != 0)
            || matches!(
                self.shape,
                Shape::Headed {
                    script_failed: true,
                    ..
                }
            )
    }

    /// The envelope with `output` in place of what the command printed:
    /// the rest (the exit code, the duration) as it was, a JSON object as
    /// compact JSON.
    pub fn with_output(self, output: String) -> String {
        match self.shape {
            Shape::Json(object) => output_first(object, output),
            Shape::Headed { mut header, .. } => {
                header.push_str(&output);
                header
            }
            Shape::Labelled {
                command,
                directory,
                below,
                ..
            } => labelled_text(&command, &directory, &output, &below),
            Shape::Wrapped { above, below, .. } => wrapped_text(above, &output, &below),
        }
    }

    /// The envelope as a history form keeps it: `output` in place of what
    /// the command printed, with what stays true after the call (the exit
    /// code, a running process's session id, the command) and without
    /// what only described that moment: the chunk id, the wall time, the
    /// original token count, the duration and a process group's id. A
    /// labelled `Command:` keeps its first line, up to 200 characters (the
    /// call's arguments hold it whole), and a signal or background process
    /// that is not there (`Signal: (none)`) is left out, as are the
    /// Python interpreter and the shell's prompt OpenHands notes under
    /// every output (`[Python interpreter: /usr/bin/python]`). The result
    /// still reads as a [`ShellOutput`].
    ///
    /// ```
    /// use strata_ctx_tools::ShellOutput;
    ///
    /// let text = "Chunk ID: 3f2a1c\nWall time: 1.2031 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\nFAILED a\n";
    /// let form = ShellOutput::parse(text).unwrap().condensed("FAILED a".to_owned());
    /// assert_eq!(form, "Process exited with code 1\nOutput:\nFAILED a");
    ///
    /// let text = r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":2.5}}"#;
    /// let form = ShellOutput::parse(text).unwrap().condensed("x".to_owned());
    /// assert_eq!(form, r#"{"output":"x","metadata":{"exit_code":1}}"#);
    /// ```
    pub fn condensed(self, output: String) -> String {
        self.around(&output)
    }

    /// How many bytes [`condensed`](Self::condensed) keeps besides the
    /// output: what a form's room for the output leaves to the envelope.
    ///
    /// ```
    /// use strata_ctx_tools::ShellOutput;
    ///
    /// let text = "Chunk ID: 3f2a1c\nWall time: 1.2 seconds\nProcess exited with code 1\nOutput:\nFAILED a\n";
    /// assert_eq!(ShellOutput::parse(text).unwrap().envelope_bytes(), "Process exited with code 1\nOutput:\n".len());
    /// ```
    pub fn envelope_bytes(&self) -> usize {
        self.around("").len()
    }

    /// What [`condensed`](Self::condensed) keeps of the envelope, around
    /// `output`.
    fn around(&self, output: &str) -> String {
        match &self.shape {
            Shape::Json(object) => {
                // What the command printed is `output`'s: not copied.
                let mut object: Map<String, Value> = object
                    .iter()
                    .filter(|(key, _)| *key != "output")
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                if let Some(Value::Object(metadata)) = object.get_mut("metadata") {
                    for key in MOMENT_KEYS {
                        metadata.remove(*key);
                    }
                }
                for key in MOMENT_KEYS {
                    object.remove(*key);
                }
                output_first(object, output.to_owned())
            }
            Shape::Headed { header, .. } => {
                let mut kept: String = header
                    .split_inclusive('\n')
                    .filter(|line| !MOMENT_LINES.iter().any(|p| line.starts_with(p)))
                    .collect();
                kept.push_str(output);
                kept
            }
            Shape::Labelled {
                command,
                directory,
                below,
                ..
            } => {
                // A signal or background process that is not there
                // (`Signal: (none)`) is said in every result; whether
                // there was an error is kept either way.
                let below: Vec<(&str, String)> = below
                    .iter()
                    .filter(|(label, value)| {
                        *label != PROCESS_GROUP && (*label == ERROR || value.trim() != NONE)
                    })
                    .cloned()
                    .collect();
                labelled_text(&short_command(command), directory, output, &below)
            }
            // The tags and notes say how the command ended and where the
            // shell is; the interpreter and the prompt OpenHands shows
            // under every output say nothing of this one.
            Shape::Wrapped { above, below, .. } => {
                let below: String = below
                    .split_inclusive('\n')
                    .filter(|line| {
                        let line = line.trim_end();
                        !(is_prompt(line) || INTERPRETER_NOTES.iter().any(|n| line.starts_with(n)))
                    })
                    .collect();
                wrapped_text(above.clone(), output, &below)
            }
        }
    }
}

/// A JSON envelope as compact JSON with `output` first, as Codex CLI
/// writes it, then the other keys.
fn output_first(object: Map<String, Value>, output: String) -> String {
    let mut text = String::from("{\"output\":");
    text.push_str(&Value::String(output).to_string());
    for (key, value) in object {
        if key != "output" {
            text.push(',');
            text.push_str(&Value::String(key).to_string());
            text.push(':');
            text.push_str(&value.to_string());
        }
    }
    text.push('}');
    text
}

/// Header lines that describe only the moment of the call.
const MOMENT_LINES: &[&str] = &[
    "Chunk ID: ",
    "Wall time: ",
    "Wall time ",
    "Original token count: ",
];

/// Header lines that stay true after the call, besides an exit code: a
/// running process, the command, a running script.
const LASTING_LINES: &[&str] = &[RUNNING_SESSION, "Command: ", "Script running with cell ID "];

/// The header line of a process still running, before its session id.
const RUNNING_SESSION: &str = "Process running with session ID ";

/// The status of a Codex CLI code mode script that threw.
const SCRIPT_FAILED: &str = "Script failed";

/// The statuses of a Codex CLI code mode script that ended, each a whole
/// line.
const SCRIPT_ENDED: &[&str] = &["Script completed", SCRIPT_FAILED, "Script terminated"];

/// Keys of a JSON envelope (or its `metadata`) that describe only the
/// moment of the call.
const MOMENT_KEYS: &[&str] = &["duration_seconds", "durationSeconds", "duration_ms", "wall_time"];

/// A header of known lines ending with `Output:`, and what follows it.
fn headed(text: &str) -> Option<Shape> {
    let mut exit_code = None;
    let mut script_failed = false;
    let mut at = 0;
    for known in 0..=HEADER_LINES {
        let rest = &text[at..];
        let (line, next) = match rest.find('\n') {
            Some(i) => (&rest[..i], at + i + 1),
            None => (rest, text.len()),
        };
        let line = line.trim_end_matches('\r');
        if line == "Output:" {
            return (known > 0).then(|| Shape::Headed {
                header: text[..next].to_owned(),
                output: text[next..].to_owned(),
                exit_code,
                script_failed,
            });
        }
        let code = |prefix: &str| {
            line.strip_prefix(prefix)
                .and_then(|n| n.trim().parse::<i64>().ok())
        };
        if let Some(n) = code("Process exited with code ").or_else(|| code("Exit code: ")) {
            exit_code = Some(n);
        } else if SCRIPT_ENDED.contains(&line) {
            script_failed |= line == SCRIPT_FAILED;
        } else if !MOMENT_LINES
            .iter()
            .chain(LASTING_LINES)
            .any(|p| line.starts_with(p))
        {
            return None;
        }
        if next >= text.len() {
            return None;
        }
        at = next;
    }
    None
}

/// The label of the exit code among the fields below a labelled output.
const EXIT_CODE: &str = "Exit Code";
/// The label of the error field.
const ERROR: &str = "Error";
/// The value of a field that holds nothing.
const NONE: &str = "(none)";
/// The label of a process group's id, true only at the moment of the call.
const PROCESS_GROUP: &str = "Process Group PGID";
/// The fields that may follow a labelled output, in their order.
const BELOW: [&str; 5] = [ERROR, EXIT_CODE, "Signal", "Background PIDs", PROCESS_GROUP];

/// Gemini CLI's labelled fields: `Command: …` (perhaps over several
/// lines), `Directory: …`, then `Output: …`, or `Stdout: …` and `Stderr:
/// …`, up to the known fields at the end, each on a line of its own and
/// in their order.
fn labelled(text: &str) -> Option<Shape> {
    if !text.starts_with("Command: ") {
        return None;
    }
    let command_end = text.find("\nDirectory: ")?;
    let directory = command_end + "\nDirectory: ".len();
    let body = directory + text[directory..].find('\n')? + 1;
    let (stdout, rest) = ["Output: ", "Stdout: "].iter().find_map(|label| {
        text[body..]
            .strip_prefix(label)
            .map(|rest| (*label == "Stdout: ", rest))
    })?;
    // The fields below, read upwards from the end (past the newline that
    // may close the text): each known label once, in its place.
    let mut end = rest.trim_end_matches(['\n', '\r']).len();
    let mut below = Vec::new();
    let mut next = BELOW.len();
    while let Some(start) = rest[..end].rfind('\n') {
        let line = rest[start + 1..end].trim_end_matches('\r');
        let Some(at) = BELOW[..next]
            .iter()
            .rposition(|label| line.strip_prefix(label).is_some_and(|v| v.starts_with(": ")))
        else {
            break;
        };
        below.push((BELOW[at], line[BELOW[at].len() + 2..].to_owned()));
        next = at;
        end = start;
    }
    below.reverse();
    let printed = &rest[..end];
    let output = if stdout {
        // `Stdout: …` then `Stderr: …`: the two streams, one after the other.
        let (out, err) = match printed.rfind("\nStderr: ") {
            Some(at) => (&printed[..at], &printed[at + "\nStderr: ".len()..]),
            None => (printed, "(empty)"),
        };
        [out, err]
            .iter()
            .filter(|s| s.trim() != "(empty)")
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    } else if printed.trim() == "(empty)" {
        String::new()
    } else {
        printed.to_owned()
    };
    Some(Shape::Labelled {
        command: text["Command: ".len()..command_end].to_owned(),
        directory: text[directory..body - 1].to_owned(),
        output,
        below,
    })
}

/// The most characters of a labelled command a condensed form keeps.
const COMMAND_CHARS: usize = 200;

/// `command` cut to its first line, and to [`COMMAND_CHARS`], with ` …`
/// where it was cut.
fn short_command(command: &str) -> String {
    let first = command.lines().next().unwrap_or_default();
    let mut short: String = first.chars().take(COMMAND_CHARS).collect();
    if short.len() < command.len() {
        short.push_str(" …");
    }
    short
}

/// Labelled fields again: the command, the directory, the output under
/// `Output: `, then the fields below.
fn labelled_text(command: &str, directory: &str, output: &str, below: &[(&str, String)]) -> String {
    let output = if output.is_empty() { "(empty)" } else { output };
    let mut text = format!("Command: {command}\nDirectory: {directory}\nOutput: {output}");
    for (label, value) in below {
        text.push_str(&format!("\n{label}: {value}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_is_a_nonzero_exit_or_a_failed_script() {
        let failed = |text: &str| ShellOutput::parse(text).map(|o| o.failed());
        assert_eq!(failed("Process exited with code 0\nOutput:\nok\n"), Some(false));
        assert_eq!(failed("Process exited with code 2\nOutput:\nno\n"), Some(true));
        assert_eq!(
            failed(r#"{"output":"x","metadata":{"exit_code":0}}"#),
            Some(false)
        );
        assert_eq!(failed(r#"{"output":"x","exit_code":1}"#), Some(true));
        assert_eq!(
            failed("Script failed\nWall time 0.1 seconds\nOutput:\n"),
            Some(true)
        );
        assert_eq!(failed("Script terminated\nOutput:\n"), Some(false));
        // A running script's status is a header line like the others.
        assert_eq!(
            failed("Script running with cell ID 4\nOutput:\npartial\n"),
            Some(false)
        );
        // Not a status: the script's own words under it.
        assert_eq!(failed("Script failed badly\nOutput:\n"), None);
    }

    /// TOOL-8: OpenHands' notes and opencode's metadata under an output
    /// are not what the command printed: the output ends above them, the
    /// exit code is read from them, and a form keeps them under it.
    #[test]
    fn tool_8_notes_under_an_output_are_read_apart() {
        let text = "FAILED a\nFound 2 errors\n[The command completed with exit code 1.]\n[Current working directory: /workspace]\n[Python interpreter: /usr/bin/python]";
        let out = ShellOutput::parse(text).unwrap();
        assert_eq!(out.output(), "FAILED a\nFound 2 errors\n");
        assert_eq!(out.exit_code(), Some(1));
        assert_eq!(
            out.condensed("Found 2 errors".to_owned()),
            "Found 2 errors\n[The command completed with exit code 1.]\n[Current working directory: /workspace]\n"
        );
        // The older form: the prompt above how the command ended.
        let text = "Ran 3 tests\nFAILED (errors=1)\n\n[Python Interpreter: /opt/env/bin/python]\nroot@openhands-workspace:/workspace/django # \n[Command finished with exit code 1]\n";
        let out = ShellOutput::parse(text).unwrap();
        assert_eq!(out.output(), "Ran 3 tests\nFAILED (errors=1)\n");
        assert!(out.failed());
        assert_eq!(
            out.envelope_bytes(),
            "\n[Command finished with exit code 1]\n".len()
        );
        let form = out.condensed("FAILED (errors=1)".to_owned());
        assert_eq!(form, "FAILED (errors=1)\n\n[Command finished with exit code 1]\n");
        let again = ShellOutput::parse(&form).unwrap();
        assert_eq!(again.clone().condensed(again.output().to_owned()), form);
        let text = "Compiling app\n\n<bash_metadata>\nbash tool terminated command after exceeding timeout 120000 ms\n</bash_metadata>";
        let out = ShellOutput::parse(text).unwrap();
        assert_eq!(out.output(), "Compiling app\n");
        assert_eq!(out.exit_code(), None);
        // Brackets alone, or a prompt under no note, are the command's.
        for plain in [
            "see [1]\n[done]",
            "[Current working directory: /a] and more",
            "root@host:/a # ",
            "x</bash_metadata>",
        ] {
            assert!(ShellOutput::parse(plain).is_none(), "{plain}");
        }
        // mini-SWE-agent's tags around the output.
        let text = "<returncode>1</returncode>\n<output>\nFAILED a\nFound 2 errors\n</output>";
        let out = ShellOutput::parse(text).unwrap();
        assert_eq!(
            (out.output(), out.exit_code()),
            ("FAILED a\nFound 2 errors\n", Some(1))
        );
        assert_eq!(
            out.condensed("Found 2 errors".to_owned()),
            "<returncode>1</returncode>\n<output>\nFound 2 errors\n</output>"
        );
        let empty = ShellOutput::parse("<returncode>0</returncode>\n<output>\n</output>").unwrap();
        assert_eq!((empty.output(), empty.failed()), ("", false));
        assert!(ShellOutput::parse("<returncode>x</returncode>\n<output>\n</output>").is_none());
        assert!(ShellOutput::parse("<returncode>1</returncode>\n<output>\nno end").is_none());
        // All notes, nothing printed.
        let out = ShellOutput::parse("[The command completed with exit code 0.]").unwrap();
        assert_eq!((out.output(), out.failed()), ("", false));
    }

    #[test]
    fn codex_shell_output_is_read() {
        let out = ShellOutput::parse(
            r#"{"output": "ok\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}"#,
        );
        let out = out.unwrap();
        assert_eq!(out.output(), "ok\n");
        assert_eq!(out.exit_code(), Some(0));
        let rewritten = out.with_output("short".to_owned());
        assert_eq!(
            ShellOutput::parse(&rewritten).unwrap().output(),
            "short",
            "{rewritten}"
        );
        assert!(rewritten.contains(r#""exit_code":0"#), "{rewritten}");
    }

    #[test]
    fn an_exit_code_beside_the_output_is_read() {
        let out = ShellOutput::parse(r#"{"output": "x", "exitCode": 2}"#).unwrap();
        assert_eq!(out.exit_code(), Some(2));
        assert_eq!(
            ShellOutput::parse(r#"{"output": "x"}"#).unwrap().exit_code(),
            None
        );
    }

    #[test]
    fn codex_exec_output_under_its_header_is_read() {
        let text = "Chunk ID: dd3e4e\nWall time: 0.1823 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nerror: x\nmore\n";
        let out = ShellOutput::parse(text).unwrap();
        assert_eq!(out.output(), "error: x\nmore\n");
        assert_eq!(out.exit_code(), Some(2));
        assert_eq!(
            out.clone().with_output(out.output().to_owned()),
            text,
            "the header is kept as it was"
        );
        assert_eq!(
            out.with_output("short".to_owned()),
            "Chunk ID: dd3e4e\nWall time: 0.1823 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nshort"
        );
        // A process still running has no exit code yet; apply_patch's header.
        let running =
            ShellOutput::parse("Chunk ID: 1\nProcess running with session ID 7\nOutput:\n").unwrap();
        assert_eq!((running.output(), running.exit_code()), ("", None));
        let patch =
            ShellOutput::parse("Exit code: 0\r\nWall time: 0.5 seconds\r\nOutput:\r\nSuccess.").unwrap();
        assert_eq!((patch.output(), patch.exit_code()), ("Success.", Some(0)));
    }

    #[test]
    fn the_condensed_envelope_keeps_what_stays_true() {
        let text = "Chunk ID: dd3e4e\nWall time: 0.1823 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nerror: x\n";
        let form = ShellOutput::parse(text).unwrap().condensed("error: x".to_owned());
        assert_eq!(form, "Process exited with code 2\nOutput:\nerror: x");
        let running = "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 7\nOutput:\n";
        assert_eq!(
            ShellOutput::parse(running).unwrap().condensed(String::new()),
            "Process running with session ID 7\nOutput:\n"
        );
        let json = r#"{"output":"x","duration_seconds":3,"metadata":{"exit_code":1,"duration_seconds":2.5}}"#;
        let form = ShellOutput::parse(json).unwrap().condensed("y".to_owned());
        assert_eq!(form, r#"{"output":"y","metadata":{"exit_code":1}}"#);
        assert_eq!(ShellOutput::parse(&form).unwrap().exit_code(), Some(1));
    }

    const GEMINI: &str = "Command: npm test\nDirectory: (root)\nOutput: > app@1.0.0 test\nError: Cannot find module 'x'\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242";

    #[test]
    fn gemini_shell_output_is_read_and_condensed() {
        let out = ShellOutput::parse(GEMINI).unwrap();
        assert!(!out.is_json());
        assert!(ShellOutput::parse(r#"{"output": "x"}"#).unwrap().is_json());
        // The output's own `Error: …` line is what the command printed,
        // not the field below it.
        assert_eq!(out.output(), "> app@1.0.0 test\nError: Cannot find module 'x'");
        assert_eq!(out.exit_code(), Some(1));
        assert_eq!(out.clone().with_output(out.output().to_owned()), GEMINI);
        let form = out.condensed("Error: Cannot find module 'x'".to_owned());
        assert_eq!(
            form,
            "Command: npm test\nDirectory: (root)\nOutput: Error: Cannot find module 'x'\nError: (none)\nExit Code: 1"
        );
        assert_eq!(
            ShellOutput::parse(&form)
                .unwrap()
                .condensed("Error: Cannot find module 'x'".to_owned()),
            form
        );
        let again = ShellOutput::parse(&form).unwrap();
        assert_eq!(again.output(), "Error: Cannot find module 'x'");
        assert_eq!(again.exit_code(), Some(1));
        // The newline that may close the text hides no field.
        for closed in [format!("{GEMINI}\n"), format!("{GEMINI}\r\n\n")] {
            let out = ShellOutput::parse(&closed).unwrap();
            assert_eq!(out.output(), "> app@1.0.0 test\nError: Cannot find module 'x'");
            assert_eq!(out.exit_code(), Some(1));
            assert_eq!(out.condensed("Error: Cannot find module 'x'".to_owned()), form);
        }
    }

    #[test]
    fn gemini_stdout_and_stderr_are_one_output() {
        let text = "Command: cat <<EOF > a.txt\nx\nEOF\nmake\nDirectory: src\nStdout: built a\nbuilt b\nStderr: make: *** [all] Error 2\nError: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: 77\nProcess Group PGID: 9";
        let out = ShellOutput::parse(text).unwrap();
        assert_eq!(out.output(), "built a\nbuilt b\nmake: *** [all] Error 2");
        assert_eq!(out.exit_code(), Some(2));
        let form = out.condensed("make: *** [all] Error 2".to_owned());
        // A command over several lines keeps its first one.
        assert_eq!(
            form,
            "Command: cat <<EOF > a.txt …\nDirectory: src\nOutput: make: *** [all] Error 2\nError: (none)\nExit Code: 2\nBackground PIDs: 77"
        );
        let empty = "Command: true\nDirectory: (root)\nStdout: (empty)\nStderr: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 1";
        let out = ShellOutput::parse(empty).unwrap();
        assert_eq!((out.output(), out.exit_code()), ("", Some(0)));
        assert_eq!(
            out.condensed(String::new()),
            "Command: true\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0"
        );
        // A long command is cut.
        let long = format!(
            "Command: python -c '{}'\nDirectory: (root)\nOutput: x\nExit Code: 0",
            "x".repeat(500)
        );
        let form = ShellOutput::parse(&long).unwrap().condensed("x".to_owned());
        assert!(
            form.starts_with(&format!(
                "Command: python -c '{} …\nDirectory: (root)\n",
                "x".repeat(189)
            )),
            "{form}"
        );
        // Killed by a signal: no exit code, the signal stays.
        let killed = "Command: sleep 9\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 9\nBackground PIDs: (none)\nProcess Group PGID: 5";
        let out = ShellOutput::parse(killed).unwrap();
        assert_eq!(out.exit_code(), None);
        assert_eq!(
            out.condensed(String::new()),
            "Command: sleep 9\nDirectory: (root)\nOutput: (empty)\nError: (none)\nSignal: 9"
        );
    }

    #[test]
    fn other_text_is_not_a_shell_output() {
        for text in [
            "",
            "plain",
            "{not json",
            r#"{"stdout": "x"}"#,
            r#"{"output": 3}"#,
            r#"["output"]"#,
            "{\"output\": \"x\"} trailing",
            "Output:\nno header above it",
            "Wall time: 1 seconds\nno output line",
            "Wall time: 1 seconds\nSomething else: 2\nOutput:\nx",
            "Chunk ID: 1\n\n\n\n\n\n\n\n\nOutput:\nx",
            "Command: ls\nOutput: x",
            "Command: ls\nDirectory: (root)\nResult: x",
            "Command: ls\nDirectory: (root)",
            "Directory: (root)\nOutput: x",
        ] {
            assert!(ShellOutput::parse(text).is_none(), "{text}");
        }
    }
}

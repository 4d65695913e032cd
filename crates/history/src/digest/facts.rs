//! What a tool call and its output say: the program a command runs, the
//! path an action touches, the error lines of an output (REACT-6).

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;
use strata_ctx_compress::{canonical_call, ToolKind};
use strata_ctx_core::{Message, ToolCall};

/// Programs that look at, edit or move files rather than run something
/// (`cat`, `sed`, `grep`, `ls`, `git`, `rm`, …, and SWE-agent's file
/// commands): the digest counts them instead of listing them, and
/// `strata-ctx eval` does not count their runs as facts.
pub const INSPECTION_PROGRAMS: &[&str] = &[
    "cat",
    "sed",
    "head",
    "tail",
    "nl",
    "less",
    "more",
    "grep",
    "egrep",
    "rg",
    "ag",
    "find",
    "ls",
    "tree",
    "git",
    "echo",
    "printf",
    "wc",
    "awk",
    "strings",
    "diff",
    "cd",
    "pwd",
    "which",
    "file",
    "stat",
    "rm",
    "cp",
    "mv",
    "mkdir",
    "touch",
    "chmod",
    "export",
    "curl",
    "open",
    "goto",
    "scroll_down",
    "scroll_up",
    "search_dir",
    "search_file",
    "find_file",
    "edit",
    "create",
    "submit",
    "view",
    "str_replace",
    "insert",
    "undo_edit",
    "decompile",
];

/// The program one part of a command line runs (a part between `&&`, `;`,
/// `|` or newlines): its first word after variable assignments and
/// `sudo`/`time`/`env`/`nohup`/`timeout N`; `None` for an empty part or
/// one that only changes the shell's state (`cd`, `export`, `source`, `.`,
/// `set`).
pub fn program_word(part: &str) -> Option<&str> {
    let mut words = part.split_whitespace().peekable();
    while let Some(w) = words.peek() {
        let assignment = w.split_once('=').is_some_and(|(k, _)| {
            k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if assignment || matches!(*w, "sudo" | "time" | "env" | "nohup") {
            words.next();
        } else if *w == "timeout" {
            words.next();
            words.next();
        } else {
            break;
        }
    }
    words
        .next()
        .filter(|w| !matches!(*w, "cd" | "export" | "source" | "." | "set"))
}

/// The file a call names, under the argument names agents use for it
/// (`path`, `file_path`, `filePath`, `file`, `filename`, `target_file`).
pub fn path_argument(arguments: &Value) -> Option<String> {
    ["path", "file_path", "filePath", "file", "filename", "target_file"]
        .iter()
        .find_map(|k| arguments.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

/// The shell command a call runs, when it is a shell call (`Bash` and its
/// aliases) or another tool that takes a `command` line.
pub fn command_argument(call: &ToolCall) -> Option<&str> {
    if canonical_call(&call.name, &call.arguments).is_some_and(|k| k != ToolKind::Bash) {
        return None;
    }
    ["command", "cmd"]
        .iter()
        .find_map(|k| call.arguments.get(*k).and_then(Value::as_str))
        .filter(|c| !c.trim().is_empty())
}

/// The program a command line runs: the first word of its first part that
/// runs a program rather than looks at files (`cd … && sed -i … && python x.py`
/// runs `python`), after variable assignments and
/// `sudo`/`time`/`env`/`nohup`/`timeout N`; empty when it only looks.
pub(crate) fn program_of(command: &str) -> &str {
    let mut first = "";
    let mut heredoc: Option<&str> = None;
    let lines = command.lines().filter(|line| match heredoc {
        Some(end) => {
            if line.trim() == end {
                heredoc = None;
            }
            false
        }
        None => {
            heredoc = line
                .split_once("<<")
                .map(|(_, d)| d.trim_start_matches('-').trim().trim_matches(['\'', '"']))
                .and_then(|d| d.split_whitespace().next());
            true
        }
    });
    for part in lines
        .flat_map(|l| l.split([';', '|']))
        .flat_map(|p| p.split("&&"))
    {
        match program_word(part) {
            Some(w) if !INSPECTION_PROGRAMS.contains(&w.trim_start_matches("./")) => return w,
            Some(w) if first.is_empty() => first = w,
            _ => {}
        }
    }
    first
}

pub(crate) fn shell_writes() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?:sed -i\S*\s+(?:'[^']*'|"[^"]*"|\S+)\s+|>\s*|\btee\s+(?:-a\s+)?)([\w./-]+\.\w+)"#)
            .unwrap_or_else(|_| never())
    })
}

pub(crate) fn exit_status() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(?:exit(?:ed with)? (?:code|status)|returncode|return code)\D{0,3}(-?\d+)")
            .unwrap_or_else(|_| never())
    })
}

pub(crate) fn test_summary() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)\b\d+ (?:passed|failed|errors?|failures?)\b|^(?:OK|FAILED)\b|^Ran \d+ tests?|test result:|Tests?:\s+\d+",
        )
        .unwrap_or_else(|_| never())
    })
}

pub(crate) fn error_words() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)error|exception|traceback|fail|panic|assert|ERR!").unwrap_or_else(|_| never())
    })
}

/// Lines of code or diffs that merely mention errors (`raise ValueError`,
/// `+ t.Errorf(…)`, `if err != nil`) are not diagnostics.
pub(crate) fn code_line() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^\s*(?:[+-](?:\s|$)|@@)|\w\.(?:Errorf|Fatalf|Error|Fatal)\(|err != nil|^\s*(?:raise|except|catch|throw|assert_?\w*\(|def |func |class |return )",
        )
        .unwrap_or_else(|_| never())
    })
}

#[cold]
pub(crate) fn never() -> Regex {
    // The patterns above are constants that compile; this keeps the
    // library free of panics should that ever change: nothing matches.
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| never())
}

/// Whether `line` reports an error: it names an error, exception,
/// traceback, failure, panic or assertion, is 12 to 200 characters long
/// once trimmed, and is not a line of code or of a diff.
pub fn is_error_line(line: &str) -> bool {
    let t = line.trim();
    (12..=200).contains(&t.chars().count()) && error_words().is_match(t) && !code_line().is_match(line)
}

/// The last error line of `text` ([`is_error_line`]), trimmed.
pub fn last_error_line(text: &str) -> Option<&str> {
    text.lines().rev().find(|l| is_error_line(l)).map(str::trim)
}

pub(crate) fn cut(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}

/// Every string of a result, joined by newlines, and the exit code a
/// structured result reports.
pub(crate) fn output_text(message: &Message) -> (String, Option<i64>) {
    fn walk(v: &Value, out: &mut String, code: &mut Option<i64>) {
        match v {
            Value::String(s) => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(s);
            }
            Value::Array(items) => items.iter().for_each(|x| walk(x, out, code)),
            Value::Object(map) => {
                for (k, x) in map {
                    if matches!(
                        k.as_str(),
                        "exit_code" | "exitCode" | "returncode" | "status_code"
                    ) {
                        *code = code.or(x.as_i64());
                    }
                    walk(x, out, code);
                }
            }
            _ => {}
        }
    }
    let mut out = message.content.to_string();
    let mut code = None;
    if let Some(result) = &message.result {
        walk(&result.data, &mut out, &mut code);
        if let Some(e) = &result.error {
            out.push('\n');
            out.push_str(&e.message);
        }
    }
    (out, code)
}

//! The definitions `eval` measures with, kept apart from the product's
//! rules, as the reference scripts state them: which tools run programs,
//! which change files, which lines are diagnostics and errors.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;
use strata_ctx_history::{program_word, INSPECTION_PROGRAMS};

/// Tools that run shell commands: Claude Code, mini-SWE-agent, OpenHands,
/// Codex CLI (`shell`, `exec_command`, `local_shell`, `container.exec`),
/// Gemini CLI (`run_shell_command`), Cline, opencode.
pub(super) const SHELL_TOOLS: &[&str] = &[
    "bash",
    "execute_bash",
    "Bash",
    "shell",
    "run_command",
    "terminal",
    "execute_command",
    "exec_command",
    "shell_command",
    "run_shell_command",
    "PowerShell",
    "local_shell",
    "container.exec",
];

/// Tool names that view, edit or search, which are not program runs
/// either (beside [`INSPECTION_PROGRAMS`]).
const NOT_PROGRAM_TOOLS: &[&str] = &[
    "str_replace_editor",
    "Read",
    "Grep",
    "Glob",
    "LS",
    "Edit",
    "MultiEdit",
    "Write",
    "TodoWrite",
    "exit_cost",
    "finish",
    "#",
    // Codex CLI, opencode and Gemini CLI tools that are not program runs.
    "apply_patch",
    "update_plan",
    "write_stdin",
    "read",
    "write",
    "edit",
    "glob",
    "grep",
    "list",
    "todowrite",
    "todoread",
    "webfetch",
    "read_file",
    "write_file",
    "replace",
    "list_directory",
    "search_file_content",
    "Task",
    "WebFetch",
    "WebSearch",
    "NotebookEdit",
    "BashOutput",
    "KillShell",
];

/// Tools whose path argument is a file they change: Claude Code,
/// opencode (`edit`, `write`), Gemini CLI (`replace`, `write_file`).
pub(super) const EDIT_TOOLS: &[&str] = &[
    "Edit",
    "MultiEdit",
    "Write",
    "edit_file",
    "write_file",
    "create_file",
    "edit",
    "write",
    "replace",
    "NotebookEdit",
];

fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| {
        Regex::new(pattern)
            .or_else(|_| Regex::new(r"[^\s\S]"))
            .unwrap_or_else(|_| unreachable_regex())
    })
}

#[cold]
fn unreachable_regex() -> Regex {
    // Both patterns above are constants that compile.
    Regex::new("").unwrap_or_else(|_| unreachable_regex())
}

pub(super) fn shell_writes() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    regex(
        &RE,
        r#"(?:sed -i\S*\s+(?:'[^']*'|"[^"]*"|\S+)\s+|>\s*)([\w./-]+\.\w+)"#,
    )
}

/// Diagnostic lines: errors, warnings, failures, tracebacks, exit codes,
/// test and build summaries.
pub(super) fn diagnostic() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    regex(
        &RE,
        r"(?i)(error|exception|traceback|failed|failure|warning|assert|panic|exit code|returncode|\bFAIL\b|\b\d+ passed\b|BUILD (SUCCESS|FAILURE))",
    )
}

/// Error-class lines: error, exception, traceback, fail, panic, assert.
pub(super) fn error_class() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    regex(&RE, r"(?i)(error|exception|traceback|fail|panic|assert)")
}

/// Lines of code or diffs that merely mention errors (`raise ValueError`,
/// `+ t.Errorf(…)`, `if err != nil`): not error lines.
fn code_line() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    regex(
        &RE,
        r"^\s*(?:[+-](?:\s|$)|@@)|\w\.(?:Errorf|Fatalf|Error|Fatal)\(|err != nil|^\s*(?:raise|except|catch|throw|assert_?\w*\(|def |func |class |return )",
    )
}

/// Whether `line` is an error line as the reference scripts count one: it
/// names an error, exception, traceback, failure, panic or assertion (or
/// npm's `ERR!`), is 12 to 200 characters long once trimmed, and is not a
/// line of code or of a diff. This is the measure's definition, kept apart
/// from the product's ([`strata_ctx_compress::line_kind`]), so that the
/// figures do not measure the rule they judge.
pub fn is_error_line(line: &str) -> bool {
    let t = line.trim();
    (12..=200).contains(&t.chars().count())
        && (error_class().is_match(t) || t.contains("ERR!"))
        && !code_line().is_match(line)
}

/// The program a shell command line runs: the program of its first part
/// that runs one ([`program_word`]), as the reference scripts read it.
pub fn effective_command(command: &str) -> &str {
    command
        .split(['\n', ';'])
        .flat_map(|p| p.split("&&"))
        .find_map(program_word)
        .unwrap_or_default()
}

/// The program a call ran, if it ran one: the effective command of a
/// shell call, or the tool's name for other tools (SWE-agent's commands
/// are tools); `None` for views, edits and searches.
pub fn program_of(tool: &str, arguments: &Value) -> Option<String> {
    let command = strata_ctx_tools::command(arguments).unwrap_or_default();
    let program = if SHELL_TOOLS.contains(&tool) {
        effective_command(&command)
    } else {
        tool
    };
    let listed = |p: &str| INSPECTION_PROGRAMS.contains(&p) || NOT_PROGRAM_TOOLS.contains(&p);
    (!program.is_empty() && !listed(program) && !listed(program.trim_start_matches("./")))
        .then(|| program.to_owned())
}

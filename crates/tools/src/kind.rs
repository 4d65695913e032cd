//! Tool kinds, and the names and argument shapes that map to them.

use std::fmt;

use serde_json::Value;

use crate::args::{field, has_patch, path, CONTENT_KEYS, REPLACEMENT_KEYS};

/// A kind of tool: what Strata knows how to cut, condense and track.
/// [`kind_of`] maps a name (and the aliases of other agents) to one;
/// [`classify`] also reads the arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ToolKind {
    /// Lists a directory (`LS`).
    Ls,
    /// Finds files by pattern (`Glob`).
    Glob,
    /// Searches file contents (`Grep`).
    Grep,
    /// Reads a file (`Read`).
    Read,
    /// Edits a file in place, by replacement or by patch (`Edit`,
    /// Codex CLI's `apply_patch`).
    Edit,
    /// Several edits of one file (`MultiEdit`).
    MultiEdit,
    /// Writes a whole file (`Write`).
    Write,
    /// Runs a shell command, or feeds one that is running (`Bash`, Codex
    /// CLI's `exec_command` and `write_stdin`).
    Bash,
    /// Updates the todo list or plan (`TodoWrite`, Codex CLI's
    /// `update_plan`, Claude Code's `TaskCreate` and `TaskUpdate`).
    TodoWrite,
}

impl ToolKind {
    /// The kind's canonical tool name: `LS`, `Glob`, `Grep`, `Read`,
    /// `Edit`, `MultiEdit`, `Write`, `Bash` or `TodoWrite`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Ls => "LS",
            ToolKind::Glob => "Glob",
            ToolKind::Grep => "Grep",
            ToolKind::Read => "Read",
            ToolKind::Edit => "Edit",
            ToolKind::MultiEdit => "MultiEdit",
            ToolKind::Write => "Write",
            ToolKind::Bash => "Bash",
            ToolKind::TodoWrite => "TodoWrite",
        }
    }

    /// Whether the kind changes a file (`Write`, `Edit`, `MultiEdit`).
    pub fn writes(self) -> bool {
        matches!(self, ToolKind::Write | ToolKind::Edit | ToolKind::MultiEdit)
    }
}

impl fmt::Display for ToolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The one spelling of a tool's name: trimmed, ASCII-lowercased, with `-`
/// and spaces read as `_`. Every map keyed by tool name (truncation
/// limits, custom rules, protected tools) is keyed by it, so a setting
/// made for `read-file` or `Read_File` applies to `read_file`.
///
/// ```
/// assert_eq!(strata_ctx_tools::normalize(" Read-File "), "read_file");
/// ```
pub fn normalize(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// The kind a tool's name stands for, if any: the names of Claude Code,
/// Codex CLI, opencode, Gemini CLI, OpenHands, SWE-agent, Cline, Roo
/// Code, Cursor, Windsurf, Continue, Goose, Amp, Kimi CLI, Kiro and VS
/// Code's agent, matched after [`normalize`], and again with a
/// camel-cased name split into words (`ReadFile` as `read_file`,
/// `StrReplaceFile` as `str_replace_file`). An MCP-style prefix
/// (`mcp__server__read_file`, `developer__shell`, `functions.shell`) is
/// looked through.
///
/// ```
/// use strata_ctx_tools::{kind_of, ToolKind};
/// assert_eq!(kind_of("run_shell_command"), Some(ToolKind::Bash));
/// assert_eq!(kind_of("WriteFile"), Some(ToolKind::Write));
/// assert_eq!(kind_of("mcp__fs__read_file"), Some(ToolKind::Read));
/// assert_eq!(kind_of("get_weather"), None);
/// ```
pub fn kind_of(name: &str) -> Option<ToolKind> {
    let normalized = normalize(name);
    lookup(&normalized).or_else(|| {
        let words = split_words(name);
        (words != normalized).then(|| lookup(&words)).flatten()
    })
}

/// [`by_name`] on a normalized name, or on its last part after a prefix.
fn lookup(name: &str) -> Option<ToolKind> {
    by_name(name).or_else(|| {
        // `server__tool` (Claude Code's MCP tools, Goose's extensions) or
        // `namespace.tool`: the last part names the tool.
        let last = name.rsplit(['.', '/']).next().unwrap_or(name);
        let last = last.rsplit("__").next().unwrap_or(last);
        (last.len() < name.len()).then(|| by_name(last)).flatten()
    })
}

/// `name` [`normalize`]d with an `_` before each capital that follows a
/// lowercase letter or a digit: `StrReplaceFile` → `str_replace_file`.
fn split_words(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut after_lower = false;
    for c in name.trim().chars() {
        if c.is_ascii_uppercase() && after_lower {
            out.push('_');
        }
        after_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(c);
    }
    normalize(&out)
}

fn by_name(name: &str) -> Option<ToolKind> {
    Some(match name {
        // Claude Code `LS`, Gemini CLI `list_directory`, opencode `list`,
        // Cline `list_files`, Cursor `list_dir`.
        // Continue `view_subdirectory`.
        "ls" | "list" | "list_files" | "list_dir" | "list_directory" | "listdir" | "view_subdirectory" => {
            ToolKind::Ls
        }
        // Claude Code and opencode `Glob`/`glob`, Cursor `file_search`,
        // SWE-agent `find_file`.
        // Windsurf `find_by_name`, Continue `file_glob_search`.
        "glob" | "find_files" | "file_search" | "find_file" | "glob_files" | "find_by_name"
        | "file_glob_search" => ToolKind::Glob,
        // Gemini CLI `search_file_content`, Codex CLI `grep_files`, Cline
        // `search_files`, Cursor `grep_search`, SWE-agent `search_dir`.
        "grep"
        | "search_files"
        | "grep_search"
        | "grep_files"
        | "search_file_content"
        | "search_dir"
        | "search_file"
        | "rg"
        | "ripgrep"
        | "search" => ToolKind::Grep,
        // Claude Code `Read` and `NotebookRead`, Gemini CLI and Codex CLI
        // `read_file`, SWE-agent `open`, Gemini CLI `read_many_files`.
        // Windsurf `view_file` and `view_code_item`, Kiro `readFile`.
        "read" | "read_file" | "read_many_files" | "view" | "view_file" | "view_files" | "view_code_item"
        | "cat" | "open" | "open_file" | "notebookread" | "notebook_read" => ToolKind::Read,
        // Gemini CLI `replace`, Codex CLI `apply_patch`, opencode `patch`,
        // Cline `replace_in_file`, Roo `apply_diff`, Cursor `edit_file`,
        // Claude Code `NotebookEdit` (a cell of `notebook_path`).
        // Windsurf `replace_file_content`, Continue `edit_existing_file`,
        // Roo `insert_content` and `search_and_replace`, Kimi CLI
        // `StrReplaceFile`, Kiro `strReplace`, VS Code's agent
        // `replace_string_in_file` and `insert_edit_into_file`.
        "edit"
        | "replace"
        | "replace_in_file"
        | "str_replace"
        | "edit_file"
        | "apply_patch"
        | "patch"
        | "apply_diff"
        | "insert"
        | "search_replace"
        | "notebookedit"
        | "notebook_edit"
        | "edit_notebook"
        | "replace_file_content"
        | "edit_existing_file"
        | "insert_content"
        | "search_and_replace"
        | "str_replace_file"
        | "replace_string_in_file"
        | "insert_edit_into_file" => ToolKind::Edit,
        // Windsurf `multi_replace_file_content`, VS Code's agent
        // `multi_replace_string_in_file`.
        "multiedit" | "multi_edit" | "multi_replace_file_content" | "multi_replace_string_in_file" => {
            ToolKind::MultiEdit
        }
        // Gemini CLI `write_file`, Cline `write_to_file`, Continue
        // `create_new_file`, Augment `save-file`, Kiro `fsWrite`.
        "write" | "write_to_file" | "create_file" | "create" | "write_file" | "create_new_file"
        | "save_file" | "fs_write" => ToolKind::Write,
        // Claude Code `Bash`, Codex CLI `shell`, `exec_command`,
        // `write_stdin`, `local_shell`, `container.exec`, and the scripts
        // of its code mode (`exec`) and `js_repl`, Gemini CLI
        // `run_shell_command`, OpenHands `execute_bash`, Cline
        // `execute_command`, Cursor `run_terminal_cmd`, Claude Code's
        // PowerShell, and `BashOutput` and its successor `TaskOutput`
        // (the output of a command left running).
        // Windsurf `run_command` and `command_status` (the output of a
        // command left running), Continue `run_terminal_command`, VS
        // Code's agent `run_in_terminal` and `get_terminal_output`,
        // Augment `launch-process` and `read-process`, Kiro
        // `executeBash`.
        "bash"
        | "shell"
        | "shell_command"
        | "exec_command"
        | "write_stdin"
        | "local_shell"
        | "container.exec"
        | "exec"
        | "js_repl"
        | "execute_command"
        | "execute_bash"
        | "run_terminal_cmd"
        | "run_command"
        | "terminal"
        | "run_shell_command"
        | "powershell"
        | "bashoutput"
        | "bash_output"
        | "taskoutput"
        | "command_status"
        | "run_terminal_command"
        | "run_in_terminal"
        | "get_terminal_output"
        | "launch_process"
        | "read_process" => ToolKind::Bash,
        // Claude Code `TodoWrite`, opencode `todowrite`, Codex CLI
        // `update_plan`, Gemini CLI `write_todos`, OpenHands
        // `task_tracker`, and Claude Code's one-item `TaskCreate` and
        // `TaskUpdate` (see `TodoBoard`).
        // Roo `update_todo_list`, Kimi CLI `SetTodoList`, VS Code's agent
        // `manage_todo_list`.
        "todowrite" | "todo_write" | "write_todos" | "update_todos" | "update_plan" | "todo"
        | "task_tracker" | "taskcreate" | "taskupdate" | "update_todo_list" | "set_todo_list"
        | "manage_todo_list" => ToolKind::TodoWrite,
        _ => return None,
    })
}

/// The kind of one call: by its name ([`kind_of`]), then by the
/// sub-command of an editor tool (`str_replace_editor` with `command` =
/// `view`, `create`, `str_replace`), then by the shape of its arguments:
///
/// - a patch (`*** Begin Patch`, or a unified diff) → [`ToolKind::Edit`];
/// - a command line under any of [`COMMAND_KEYS`](crate::COMMAND_KEYS)
///   (a string or an argument vector) → [`ToolKind::Bash`];
/// - a file path ([`PATH_KEYS`](crate::PATH_KEYS)) with the old side of a
///   replacement ([`REPLACEMENT_KEYS`]) → [`ToolKind::Edit`], with `edits`
///   or Windsurf's `ReplacementChunks` → [`ToolKind::MultiEdit`], with a
///   file's text ([`CONTENT_KEYS`]) → [`ToolKind::Write`];
///
/// each argument name matched whatever its case and separators
/// ([`field`](crate::field)).
/// - `todos`, or a `plan` of steps → [`ToolKind::TodoWrite`].
pub fn classify(name: &str, arguments: &Value) -> Option<ToolKind> {
    if let Some(kind) = kind_of(name) {
        // Codex CLI's `shell` with `["apply_patch", "*** Begin Patch…"]`
        // edits rather than runs.
        if kind == ToolKind::Bash && has_patch(arguments) {
            return Some(ToolKind::Edit);
        }
        return Some(kind);
    }
    let sub = arguments.get("command").and_then(Value::as_str);
    if normalize(name).contains("editor") {
        return match sub {
            Some("view") => Some(ToolKind::Read),
            // Goose's `text_editor` writes with `write`.
            Some("create" | "write") => Some(ToolKind::Write),
            Some("str_replace" | "insert" | "undo_edit" | "edit") => Some(ToolKind::Edit),
            _ => None,
        };
    }
    by_shape(arguments)
}

fn by_shape(arguments: &Value) -> Option<ToolKind> {
    if has_patch(arguments) {
        return Some(ToolKind::Edit);
    }
    if crate::args::command(arguments).is_some() {
        return Some(ToolKind::Bash);
    }
    if path(arguments).is_some() {
        let replaces = REPLACEMENT_KEYS
            .iter()
            .any(|(old, _)| field(arguments, &[old]).is_some_and(|v| !v.is_null()));
        if replaces {
            return Some(ToolKind::Edit);
        }
        // Claude Code's `edits`, Windsurf's `ReplacementChunks`.
        if field(arguments, &["edits", "replacement_chunks"]).is_some_and(Value::is_array) {
            return Some(ToolKind::MultiEdit);
        }
        if field(arguments, CONTENT_KEYS).is_some_and(|v| !v.is_null()) {
            return Some(ToolKind::Write);
        }
    }
    if arguments.get("todos").is_some_and(Value::is_array)
        || arguments.get("plan").is_some_and(Value::is_array)
    {
        return Some(ToolKind::TodoWrite);
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_agents_names() {
        let cases = [
            // Claude Code
            ("Bash", ToolKind::Bash),
            ("Read", ToolKind::Read),
            ("MultiEdit", ToolKind::MultiEdit),
            ("TodoWrite", ToolKind::TodoWrite),
            ("TaskCreate", ToolKind::TodoWrite),
            ("TaskUpdate", ToolKind::TodoWrite),
            ("TaskOutput", ToolKind::Bash),
            // Codex CLI
            ("exec_command", ToolKind::Bash),
            ("write_stdin", ToolKind::Bash),
            ("shell", ToolKind::Bash),
            ("shell_command", ToolKind::Bash),
            ("apply_patch", ToolKind::Edit),
            ("NotebookEdit", ToolKind::Edit),
            ("NotebookRead", ToolKind::Read),
            ("update_plan", ToolKind::TodoWrite),
            // opencode
            ("todowrite", ToolKind::TodoWrite),
            ("list", ToolKind::Ls),
            // Gemini CLI
            ("run_shell_command", ToolKind::Bash),
            ("replace", ToolKind::Edit),
            ("write_file", ToolKind::Write),
            ("search_file_content", ToolKind::Grep),
            ("write_todos", ToolKind::TodoWrite),
            // OpenHands, Cline, Cursor
            ("execute_bash", ToolKind::Bash),
            ("Execute-Command", ToolKind::Bash),
            ("write_to_file", ToolKind::Write),
            ("grep_search", ToolKind::Grep),
            // Windsurf and Antigravity
            ("run_command", ToolKind::Bash),
            ("command_status", ToolKind::Bash),
            ("view_file", ToolKind::Read),
            ("replace_file_content", ToolKind::Edit),
            ("multi_replace_file_content", ToolKind::MultiEdit),
            ("find_by_name", ToolKind::Glob),
            // Continue
            ("run_terminal_command", ToolKind::Bash),
            ("create_new_file", ToolKind::Write),
            ("edit_existing_file", ToolKind::Edit),
            ("file_glob_search", ToolKind::Glob),
            // Roo Code, VS Code's agent, Augment, Kiro
            ("update_todo_list", ToolKind::TodoWrite),
            ("search_and_replace", ToolKind::Edit),
            ("run_in_terminal", ToolKind::Bash),
            ("replace_string_in_file", ToolKind::Edit),
            ("manage_todo_list", ToolKind::TodoWrite),
            ("launch-process", ToolKind::Bash),
            ("save-file", ToolKind::Write),
            ("executeBash", ToolKind::Bash),
            ("fsWrite", ToolKind::Write),
            ("readFile", ToolKind::Read),
            ("strReplace", ToolKind::Edit),
            // Kimi CLI: camel-cased names are split into words
            ("Shell", ToolKind::Bash),
            ("ReadFile", ToolKind::Read),
            ("WriteFile", ToolKind::Write),
            ("StrReplaceFile", ToolKind::Edit),
            ("SetTodoList", ToolKind::TodoWrite),
            // Prefixed
            ("mcp__fs__read_file", ToolKind::Read),
            ("developer__shell", ToolKind::Bash),
            ("functions.exec_command", ToolKind::Bash),
        ];
        for (name, kind) in cases {
            assert_eq!(kind_of(name), Some(kind), "{name}");
        }
        assert_eq!(kind_of("Task"), None);
        assert_eq!(kind_of("mcp__x__frobnicate"), None);
    }

    #[test]
    fn editor_sub_commands() {
        let c = |sub: &str| classify("str_replace_editor", &json!({"command": sub, "path": "/a.py"}));
        assert_eq!(c("view"), Some(ToolKind::Read));
        assert_eq!(c("create"), Some(ToolKind::Write));
        assert_eq!(c("str_replace"), Some(ToolKind::Edit));
        assert_eq!(c("insert"), Some(ToolKind::Edit));
        assert_eq!(c("frobnicate"), None);
        // Goose's `developer__text_editor` writes a whole file with `write`.
        let goose = json!({"command": "write", "path": "/a.py", "file_text": "x"});
        assert_eq!(classify("developer__text_editor", &goose), Some(ToolKind::Write));
    }

    #[test]
    fn camel_case_names_are_split_only_when_whole_names_fail() {
        assert_eq!(split_words("StrReplaceFile"), "str_replace_file");
        assert_eq!(split_words("runInTerminal2Go"), "run_in_terminal2_go");
        assert_eq!(split_words("HTTPGet"), "httpget");
        // `TaskOutput` is known whole; `MultiEdit` both ways.
        assert_eq!(kind_of("TaskOutput"), Some(ToolKind::Bash));
        assert_eq!(kind_of("MultiEdit"), Some(ToolKind::MultiEdit));
        assert_eq!(kind_of("ReadTheDocs"), None);
        assert_eq!(kind_of("mcp__kimi__WriteFile"), Some(ToolKind::Write));
    }

    #[test]
    fn argument_names_in_every_style() {
        // Windsurf's and Antigravity's arguments.
        assert_eq!(
            classify("tool", &json!({"CommandLine": "npm test", "Cwd": "/app"})),
            Some(ToolKind::Bash)
        );
        assert_eq!(
            classify(
                "tool",
                &json!({"TargetFile": "/app/a.ts", "CodeContent": "x", "EmptyFile": false})
            ),
            Some(ToolKind::Write)
        );
        assert_eq!(
            classify(
                "tool",
                &json!({"TargetFile": "/app/a.ts", "ReplacementChunks": [{"TargetContent": "a", "ReplacementContent": "b"}]})
            ),
            Some(ToolKind::MultiEdit)
        );
        // Kiro's and the MCP filesystem server's.
        assert_eq!(
            classify("tool", &json!({"path": "a.rs", "oldStr": "a", "newStr": "b"})),
            Some(ToolKind::Edit)
        );
        assert_eq!(
            classify("tool", &json!({"path": "a.rs", "oldText": "a", "newText": "b"})),
            Some(ToolKind::Edit)
        );
        assert_eq!(
            classify("tool", &json!({"filepath": "a.rs", "contents": "x"})),
            Some(ToolKind::Write)
        );
        assert_eq!(
            classify("tool", &json!({"TargetFile": "a.rs", "CodeContent": null})),
            None,
            "a null body writes nothing"
        );
    }

    #[test]
    fn unknown_tools_by_shape() {
        assert_eq!(
            classify("runner", &json!({"command": "make"})),
            Some(ToolKind::Bash)
        );
        assert_eq!(
            classify("runner", &json!({"cmd": ["ls", "-l"]})),
            Some(ToolKind::Bash)
        );
        assert_eq!(
            classify("runner", &json!({"command": ""})),
            None,
            "an empty command runs nothing"
        );
        assert_eq!(
            classify("put", &json!({"path": "a.txt", "content": "x"})),
            Some(ToolKind::Write)
        );
        assert_eq!(
            classify(
                "change",
                &json!({"file_path": "a.rs", "old_string": "a", "new_string": "b"})
            ),
            Some(ToolKind::Edit)
        );
        assert_eq!(
            classify("change", &json!({"filePath": "a.rs", "edits": []})),
            Some(ToolKind::MultiEdit)
        );
        assert_eq!(
            classify(
                "diffit",
                &json!({"patch": "--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n"})
            ),
            Some(ToolKind::Edit)
        );
        assert_eq!(
            classify("plan", &json!({"plan": [{"step": "a", "status": "pending"}]})),
            Some(ToolKind::TodoWrite)
        );
        assert_eq!(classify("weather", &json!({"city": "Oslo"})), None);
        assert_eq!(classify("put", &json!({"content": "no path"})), None);
    }

    #[test]
    fn a_shell_call_that_applies_a_patch_is_an_edit() {
        let args =
            json!({"command": ["apply_patch", "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"]});
        assert_eq!(classify("shell", &args), Some(ToolKind::Edit));
        assert_eq!(
            classify("shell", &json!({"command": ["bash", "-lc", "ls"]})),
            Some(ToolKind::Bash)
        );
    }

    #[test]
    fn normalize_is_one_spelling() {
        assert_eq!(normalize("Read-File"), "read_file");
        assert_eq!(normalize(" READ_FILE"), "read_file");
        assert_eq!(normalize("read file"), "read_file");
        assert_eq!(normalize(&normalize("A-b C")), normalize("A-b C"));
    }
}

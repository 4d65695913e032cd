//! The built-in tool kinds and the names that map to them (TOOL-1).

use std::fmt;

use serde_json::Value;

/// A built-in tool kind: what Strata knows how to compress, track and
/// shrink. [`canonical`] and [`canonical_call`] map a tool's name (and the
/// aliases of other agents) to one.
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
    /// Edits a file in place (`Edit`).
    Edit,
    /// Several edits of one file (`MultiEdit`).
    MultiEdit,
    /// Writes a whole file (`Write`).
    Write,
    /// Runs a shell command (`Bash`).
    Bash,
    /// Updates the todo list (`TodoWrite`).
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

/// The built-in tool a name stands for, if any. Names are matched
/// case-insensitively, with `-` read as `_`, and with the usual aliases of
/// other agents (`read_file`, `execute_command`, `search_files`,
/// `list_files`, `write_to_file`, `replace_in_file`, ...).
pub fn canonical(tool: &str) -> Option<ToolKind> {
    let name = tool.trim().to_ascii_lowercase().replace('-', "_");
    Some(match name.as_str() {
        "ls" | "list_files" | "list_dir" | "list_directory" | "listdir" => ToolKind::Ls,
        "glob" | "find_files" | "file_search" | "find_file" | "glob_files" => ToolKind::Glob,
        "grep" | "search_files" | "grep_search" | "search_dir" | "search_file" | "rg" | "ripgrep"
        | "search" => ToolKind::Grep,
        "read" | "read_file" | "view" | "view_file" | "cat" | "open" | "open_file" => ToolKind::Read,
        "edit" | "replace_in_file" | "str_replace" | "edit_file" | "apply_patch" | "apply_diff"
        | "insert" => ToolKind::Edit,
        "multiedit" | "multi_edit" => ToolKind::MultiEdit,
        "write" | "write_to_file" | "create_file" | "create" | "write_file" => ToolKind::Write,
        "bash" | "execute_command" | "execute_bash" | "shell" | "run_terminal_cmd" | "run_command"
        | "exec" | "terminal" | "run_shell_command" => ToolKind::Bash,
        "todowrite" | "todo_write" | "update_todos" | "todo" => ToolKind::TodoWrite,
        _ => return None,
    })
}

/// [`canonical`], also looking at the arguments of multi-command tools
/// (`str_replace_editor` with `command` = `view`, `create`, `str_replace`).
pub fn canonical_call(tool: &str, arguments: &Value) -> Option<ToolKind> {
    canonical(tool).or_else(|| {
        let name = tool.to_ascii_lowercase();
        if name.contains("editor") {
            match arguments.get("command").and_then(Value::as_str) {
                Some("view") => Some(ToolKind::Read),
                Some("create") => Some(ToolKind::Write),
                Some("str_replace") | Some("insert") | Some("undo_edit") => Some(ToolKind::Edit),
                _ => None,
            }
        } else {
            None
        }
    })
}

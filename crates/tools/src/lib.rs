//! What an agent's tools are, in one place (TOOL-1).
//!
//! Every agent names its tools its own way: Claude Code's `Bash`, `Read`
//! and `Edit`; Codex CLI's `exec_command`, `shell` and `apply_patch`;
//! opencode's `bash`, `read` and `todowrite`; Gemini CLI's
//! `run_shell_command`, `read_file` and `replace`; OpenHands'
//! `execute_bash` and `str_replace_editor`; SWE-agent's commands. This
//! crate is the one owner of that knowledge. Truncation limits, history
//! forms, custom rules, protected tools, the digest, the todo recap, file
//! freshness and `eval` all ask it, so a tool is known everywhere or
//! nowhere.
//!
//! # Overview
//!
//! - [`normalize`]: the one spelling of a tool's name that every map of
//!   tool names is keyed by (`Read-File`, `read_file` and ` READ_FILE `
//!   are one tool).
//! - [`ToolKind`], [`kind_of`] (by name) and [`classify`] (by name, then
//!   by the shape of the arguments, so an unknown tool that takes a
//!   `command` is still a shell).
//! - Argument accessors: [`path`], [`command`], [`session`], [`todos`],
//!   [`changed_files`], [`patch_files`].
//! - The todo list: [`TodoBoard`] folds whole-list writes and Claude
//!   Code's one-item task tools into the list as it stands.
//! - Command lines: [`program_word`], [`program_of`],
//!   [`INSPECTION_PROGRAMS`], and [`command_gist`], a command as one line.
//! - Recorded outputs: [`ShellOutput`], a shell's output kept as a JSON
//!   object (Codex CLI's `{"output": …, "metadata": {"exit_code": …}}`).
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use strata_ctx_tools::{classify, command, changed_files, ToolKind};
//!
//! // Codex CLI's shell tool takes its command as an argument vector.
//! let args = json!({"command": ["bash", "-lc", "cargo test -q"], "workdir": "/repo"});
//! assert_eq!(classify("shell", &args), Some(ToolKind::Bash));
//! assert_eq!(command(&args).as_deref(), Some("cargo test -q"));
//!
//! // Its patches name the files they change.
//! let patch = json!({"input": "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** End Patch"});
//! assert_eq!(classify("apply_patch", &patch), Some(ToolKind::Edit));
//! assert_eq!(changed_files("apply_patch", &patch), vec!["src/lib.rs"]);
//!
//! // A tool nobody listed is known by its arguments.
//! let unknown = json!({"command": "npm test"});
//! assert_eq!(classify("my_runner", &unknown), Some(ToolKind::Bash));
//! ```

mod args;
mod command;
mod kind;
mod output;
mod script;
mod todo;

pub use args::{
    changed_files, command, content, field, patch_files, path, same_key, session, COMMAND_KEYS, CONTENT_KEYS,
    PATH_KEYS, REPLACEMENT_KEYS,
};
pub use command::{command_gist, inspects, only_inspects, program_of, program_word, INSPECTION_PROGRAMS};
pub use kind::{classify, kind_of, normalize, ToolKind};
pub use output::ShellOutput;
pub use todo::{todos, Todo, TodoBoard};

//! What a call's arguments say, under the names every agent uses.

use std::borrow::Cow;

use serde_json::Value;

use crate::kind::classify;

/// The argument names agents give a file's path, in the order they are
/// looked up: `path` (OpenHands, Codex CLI), `file_path` (Claude Code,
/// Gemini CLI), `filePath` (opencode, VS Code's agent), `absolute_path`
/// (Gemini CLI's `read_file`), `notebook_path`, `file`, `filename`,
/// `target_file` (Cursor, Windsurf's `TargetFile`), `filepath`
/// (Continue). A name is matched whatever its case and separators
/// ([`field`]), so `TargetFile`, `FilePath` and `AbsolutePath` are found
/// too.
pub const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "absolute_path",
    "notebook_path",
    "file",
    "filename",
    "target_file",
    "filepath",
];

/// The argument names agents give a shell command line: `command`
/// (Claude Code, OpenHands, Gemini CLI, opencode), `cmd` (Codex CLI's
/// `exec_command`, Amp), `command_line` (Windsurf's and Antigravity's
/// `CommandLine`).
pub const COMMAND_KEYS: &[&str] = &["command", "cmd", "command_line"];

/// The argument names agents give the whole text a write puts in a file:
/// `content` (Claude Code, opencode, Gemini CLI, Cline), `file_text`
/// (OpenHands, SWE-agent), `contents` (Cursor, Continue), `text` (Kiro),
/// `code_content` (Windsurf's `CodeContent`), `file_content` (Augment).
pub const CONTENT_KEYS: &[&str] = &[
    "content",
    "file_text",
    "contents",
    "text",
    "code_content",
    "file_content",
];

/// The argument names agents give the two sides of a replacement, old
/// and new: `old_string`/`new_string` (Claude Code, Cursor),
/// `old_str`/`new_str` (OpenHands, SWE-agent, Kiro's `oldStr`),
/// `oldString`/`newString` (opencode, VS Code's agent), `old_text`/
/// `new_text` (the MCP filesystem server's `oldText`), `target_content`/
/// `replacement_content` (Windsurf's replacement chunks).
pub const REPLACEMENT_KEYS: &[(&str, &str)] = &[
    ("old_string", "new_string"),
    ("old_str", "new_str"),
    ("old_text", "new_text"),
    ("target_content", "replacement_content"),
];

/// Whether two argument names are one name spelled in two styles: equal
/// when ASCII-lowercased and without `_` and `-`, so `file_path`,
/// `filePath` and `FilePath` are one name.
///
/// ```
/// assert!(strata_ctx_tools::same_key("TargetFile", "target_file"));
/// assert!(!strata_ctx_tools::same_key("file", "file_path"));
/// ```
pub fn same_key(a: &str, b: &str) -> bool {
    // Compared char by char as the two are read, with nothing allocated:
    // `field` asks this of every argument of a call whose names it does
    // not find as they are.
    fn squash(key: &str) -> impl Iterator<Item = char> + '_ {
        key.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .map(|c| c.to_ascii_lowercase())
    }
    a == b || squash(a).eq(squash(b))
}

/// The value of the first of `keys` that `arguments` holds: by its exact
/// name first, then by the same name in another case or with other
/// separators (`TargetFile` for `target_file`, `oldStr` for `old_str`),
/// as agents spell their arguments in their own styles.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_tools::field;
/// let args = json!({"TargetFile": "src/a.ts", "CodeContent": "x"});
/// assert_eq!(field(&args, &["target_file"]), Some(&json!("src/a.ts")));
/// assert_eq!(field(&args, &["path"]), None);
/// ```
pub fn field<'a>(arguments: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    let object = arguments.as_object()?;
    keys.iter().find_map(|k| object.get(*k)).or_else(|| {
        keys.iter()
            .find_map(|k| object.iter().find(|(name, _)| same_key(name, k)).map(|(_, v)| v))
    })
}

/// The file a call names, under any of [`PATH_KEYS`].
///
/// ```
/// use serde_json::json;
/// assert_eq!(strata_ctx_tools::path(&json!({"filePath": "src/a.ts"})), Some("src/a.ts"));
/// assert_eq!(strata_ctx_tools::path(&json!({"AbsolutePath": "/src/a.ts"})), Some("/src/a.ts"));
/// assert_eq!(strata_ctx_tools::path(&json!({"path": ""})), None);
/// ```
pub fn path(arguments: &Value) -> Option<&str> {
    let exact = PATH_KEYS
        .iter()
        .find_map(|k| arguments.get(*k).and_then(Value::as_str));
    exact
        .or_else(|| field(arguments, PATH_KEYS).and_then(Value::as_str))
        .filter(|p| !p.trim().is_empty())
}

/// The text a write puts in its file, under any of [`CONTENT_KEYS`].
///
/// ```
/// use serde_json::json;
/// assert_eq!(strata_ctx_tools::content(&json!({"TargetFile": "a.py", "CodeContent": "x = 1"})), Some("x = 1"));
/// ```
pub fn content(arguments: &Value) -> Option<&str> {
    field(arguments, CONTENT_KEYS).and_then(Value::as_str)
}

/// The shell command line a call runs: any of [`COMMAND_KEYS`] as a string, or
/// as an argument vector (Codex CLI's `shell`), where `["bash", "-lc",
/// X]` stands for `X` and other vectors are joined with spaces. `None`
/// when there is none or it is blank.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_tools::command;
/// assert_eq!(command(&json!({"cmd": "go test ./..."})).as_deref(), Some("go test ./..."));
/// assert_eq!(command(&json!({"CommandLine": "npm test", "Cwd": "/app"})).as_deref(), Some("npm test"));
/// assert_eq!(command(&json!({"command": ["/bin/zsh", "-c", "make"]})).as_deref(), Some("make"));
/// assert_eq!(command(&json!({"command": ["rg", "-n", "foo"]})).as_deref(), Some("rg -n foo"));
/// ```
///
/// A script tool's input (Codex CLI's code mode `exec` and its `js_repl`,
/// JavaScript under `input` or `code`, or the bare string of a freeform
/// call) runs the commands of its nested shell calls, joined by `; `:
///
/// ```
/// use serde_json::json;
/// use strata_ctx_tools::command;
/// let exec = json!({"input": "const r = await tools.exec_command({cmd: \"cargo test\"});\ntext(r.output);"});
/// assert_eq!(command(&exec).as_deref(), Some("cargo test"));
/// let repl = json!({"code": "await codex.tool('exec_command', {cmd: 'npm ci'});\nawait codex.tool('exec_command', {cmd: 'npm test'});"});
/// assert_eq!(command(&repl).as_deref(), Some("npm ci; npm test"));
/// ```
pub fn command(arguments: &Value) -> Option<Cow<'_, str>> {
    let Some(value) = field(arguments, COMMAND_KEYS) else {
        return script_command(arguments);
    };
    let text = match value {
        Value::String(s) => Cow::Borrowed(s.as_str()),
        Value::Array(items) => {
            let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script] if is_shell(shell) && matches!(*flag, "-c" | "-lc" | "-ic") => {
                    Cow::Borrowed(*script)
                }
                _ => Cow::Owned(words.join(" ")),
            }
        }
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}

/// The running process a call reads from or writes to: its `session_id`
/// (Codex CLI's `write_stdin`, which polls or feeds a command that
/// `exec_command` left running), a number or a numeric string.
///
/// ```
/// use serde_json::json;
/// assert_eq!(strata_ctx_tools::session(&json!({"session_id": 7, "chars": ""})), Some(7));
/// assert_eq!(strata_ctx_tools::session(&json!({"session_id": "7"})), Some(7));
/// assert_eq!(strata_ctx_tools::session(&json!({"cmd": "ls"})), None);
/// ```
pub fn session(arguments: &Value) -> Option<i64> {
    match arguments.get("session_id")? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The commands a script tool's nested shell calls run, joined by `; `.
fn script_command(arguments: &Value) -> Option<Cow<'_, str>> {
    let script = ["input", "code"]
        .iter()
        .find_map(|k| arguments.get(*k).and_then(Value::as_str))
        .or_else(|| arguments.as_str())?;
    let commands = crate::script::nested_commands(script);
    (!commands.is_empty()).then(|| Cow::Owned(commands.join("; ")))
}

fn is_shell(program: &str) -> bool {
    let base = program.rsplit('/').next().unwrap_or(program);
    matches!(
        base,
        "bash" | "sh" | "zsh" | "dash" | "fish" | "pwsh" | "powershell"
    )
}

/// The patch text a call carries, if any: `input`, `patch`, `patchText`
/// (opencode) or `diff` holding a Codex-style patch or a unified diff, or
/// a command line that applies one.
fn patch_text(arguments: &Value) -> Option<Cow<'_, str>> {
    for key in ["input", "patch", "patchText", "diff"] {
        if let Some(text) = arguments.get(key).and_then(Value::as_str) {
            if looks_like_patch(text) {
                return Some(Cow::Borrowed(text));
            }
        }
    }
    // A freeform tool's input (Codex CLI's `apply_patch` as a custom
    // tool) arrives as a bare string.
    if let Some(text) = arguments.as_str().filter(|t| looks_like_patch(t)) {
        return Some(Cow::Borrowed(text));
    }
    command(arguments).filter(|c| c.contains("*** Begin Patch"))
}

fn looks_like_patch(text: &str) -> bool {
    text.contains("*** Begin Patch")
        || (text.contains("\n+++ ") || text.starts_with("+++ ")) && text.contains("\n@@")
}

/// Whether the arguments carry a patch ([`patch_text`]).
pub(crate) fn has_patch(arguments: &Value) -> bool {
    patch_text(arguments).is_some()
}

/// The files a patch changes: the `*** Update File:`, `*** Add File:`,
/// `*** Delete File:` and `*** Move to:` lines of Codex CLI's patches, and
/// the `+++ b/…` lines of a unified diff (not `/dev/null`), in order,
/// each once.
///
/// ```
/// let patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Add File: b.py\n+z\n*** End Patch";
/// assert_eq!(strata_ctx_tools::patch_files(patch), vec!["a.py", "b.py"]);
/// assert_eq!(strata_ctx_tools::patch_files("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n"), vec!["x.go"]);
/// ```
pub fn patch_files(patch: &str) -> Vec<&str> {
    let mut files: Vec<&str> = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end_matches('\r');
        let file = [
            "*** Update File: ",
            "*** Add File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|p| line.strip_prefix(p))
        .or_else(|| {
            let rest = line.strip_prefix("+++ ")?;
            let rest = rest.split('\t').next().unwrap_or(rest).trim();
            (rest != "/dev/null").then(|| rest.strip_prefix("b/").unwrap_or(rest))
        })
        .map(str::trim)
        .filter(|f| !f.is_empty());
        if let Some(file) = file {
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

/// The files a call changes: the path of a write or an edit, the files of
/// a patch (whether passed as an argument or applied through a shell
/// command), in order, each once. Empty for calls that change no file by
/// their arguments (a shell command's redirections are the command's
/// business).
pub fn changed_files(name: &str, arguments: &Value) -> Vec<String> {
    if let Some(patch) = patch_text(arguments) {
        return patch_files(&patch).into_iter().map(str::to_owned).collect();
    }
    match classify(name, arguments) {
        Some(kind) if kind.writes() => path(arguments).map(str::to_owned).into_iter().collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ToolKind;

    /// Whether `name` with `arguments` runs a shell command.
    fn runs(name: &str, arguments: &Value) -> bool {
        classify(name, arguments) == Some(ToolKind::Bash) && command(arguments).is_some()
    }

    #[test]
    fn codex_commands() {
        let exec = json!({"cmd": "cargo build", "yield_time_ms": 1000});
        assert!(runs("exec_command", &exec));
        assert_eq!(command(&exec).as_deref(), Some("cargo build"));
        let shell = json!({"command": ["bash", "-lc", "pytest -x"], "timeout_ms": 1000});
        assert_eq!(command(&shell).as_deref(), Some("pytest -x"));
        assert!(!runs("write_stdin", &json!({"session_id": 3, "chars": "y\n"})));
    }

    #[test]
    fn changed_files_of_every_form() {
        assert_eq!(
            changed_files("Write", &json!({"file_path": "a.rs", "content": ""})),
            ["a.rs"]
        );
        assert_eq!(
            changed_files(
                "str_replace_editor",
                &json!({"command": "create", "path": "/x.py", "file_text": ""})
            ),
            ["/x.py"]
        );
        assert!(changed_files("str_replace_editor", &json!({"command": "view", "path": "/x.py"})).is_empty());
        // Claude Code's notebook cell edit changes its notebook; reading one
        // changes nothing.
        let cell = json!({"notebook_path": "nb/eda.ipynb", "cell_id": "c3", "new_source": "df.head()"});
        assert_eq!(changed_files("NotebookEdit", &cell), ["nb/eda.ipynb"]);
        assert!(changed_files("NotebookRead", &json!({"notebook_path": "nb/eda.ipynb"})).is_empty());
        let applied = json!({"cmd": "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\nEOF"});
        assert_eq!(changed_files("exec_command", &applied), ["src/a.ts"]);
        let opencode = json!({"patchText": "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch"});
        assert_eq!(changed_files("patch", &opencode), ["old.txt"]);
        assert!(changed_files("Bash", &json!({"command": "echo hi > a.txt"})).is_empty());
    }

    #[test]
    fn patch_files_of_both_forms() {
        let moved = "*** Begin Patch\n*** Update File: a.rs\n*** Move to: b.rs\n@@\n-x\n+y\n*** End Patch";
        assert_eq!(patch_files(moved), ["a.rs", "b.rs"]);
        let new = "--- /dev/null\n+++ b/new.c\t2024-01-01\n@@ -0,0 +1 @@\n+int x;\n";
        assert_eq!(patch_files(new), ["new.c"]);
        assert!(patch_files("+++ /dev/null\n").is_empty());
        assert!(patch_files("").is_empty());
    }
}

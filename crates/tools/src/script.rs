//! The shell commands a script tool runs: Codex CLI's code mode `exec`
//! (`await tools.exec_command({cmd: "cargo test"})`) and its `js_repl`
//! (`await codex.tool("exec_command", {cmd: "npm test"})`) take
//! JavaScript whose nested tool calls run the commands.

/// The nested calls of a script that run a shell command: the tool's name
/// as the script spells it.
const SHELL_TOOLS: &[&str] = &["exec_command", "shell_command", "shell", "local_shell"];

/// The most nested commands read from one script.
const MAX_COMMANDS: usize = 16;

/// The command lines a script's nested shell calls run, in order:
/// `tools.NAME(ARG)` (code mode) and `codex.tool("NAME", ARG)` (`js_repl`)
/// for a shell tool NAME, where ARG is a string literal (the command) or
/// an object literal whose `cmd` or `command` is one. A literal in single,
/// double or back quotes is read with its escapes; a template's
/// `${…}` stays as written. At most 16.
pub(crate) fn nested_commands(script: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut rest = script;
    while commands.len() < MAX_COMMANDS {
        let Some((at, after)) = next_call(rest) else {
            break;
        };
        if let Some(command) = argument_command(after) {
            if !command.trim().is_empty() {
                commands.push(command);
            }
        }
        rest = &rest[at..];
    }
    commands
}

/// The next nested shell call in `text`: where to go on scanning from,
/// and the text after the call's opening that holds its argument.
fn next_call(text: &str) -> Option<(usize, &str)> {
    let mut from = 0;
    loop {
        let tools = text[from..].find("tools.").map(|i| from + i);
        let codex = text[from..].find("codex.tool(").map(|i| from + i);
        let at = match (tools, codex) {
            (Some(t), Some(c)) => t.min(c),
            (Some(t), None) => t,
            (None, Some(c)) => c,
            (None, None) => return None,
        };
        if Some(at) == codex {
            let after = &text[at + "codex.tool(".len()..];
            if let Some((name, rest)) = string_literal(after.trim_start()) {
                let rest = rest.trim_start();
                if SHELL_TOOLS.contains(&name.as_str()) {
                    if let Some(argument) = rest.strip_prefix(',') {
                        return Some((at + 1, argument));
                    }
                }
            }
        } else {
            let after = &text[at + "tools.".len()..];
            let name_end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let (name, rest) = after.split_at(name_end);
            if SHELL_TOOLS.contains(&name) {
                if let Some(argument) = rest.trim_start().strip_prefix('(') {
                    return Some((at + 1, argument));
                }
            }
        }
        from = at + 1;
    }
}

/// The command of a call's argument: a string literal, or an object
/// literal's `cmd` or `command` key holding one.
fn argument_command(argument: &str) -> Option<String> {
    let argument = argument.trim_start();
    if let Some((command, _)) = string_literal(argument) {
        return Some(command);
    }
    let mut body = argument.strip_prefix('{')?;
    // The object's keys, up to the one that names the command; other
    // values are skipped by their literal or up to the next comma.
    for _ in 0..16 {
        body = body.trim_start();
        let (key, rest) = match string_literal(body) {
            Some((key, rest)) => (key, rest),
            None => {
                let end = body
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(body.len());
                (body[..end].to_owned(), &body[end..])
            }
        };
        let value = rest.trim_start().strip_prefix(':')?.trim_start();
        if key == "cmd" || key == "command" {
            return string_literal(value).map(|(command, _)| command);
        }
        let after_value = match string_literal(value) {
            Some((_, after)) => after,
            None => &value[value.find([',', '}']).unwrap_or(value.len())..],
        };
        body = after_value.trim_start().strip_prefix(',')?;
    }
    None
}

/// The string literal `text` starts with (in `"`, `'` or `` ` ``), read
/// with its escapes, and the text after it. `None` when `text` does not
/// start with a quote or the literal does not close.
fn string_literal(text: &str) -> Option<(String, &str)> {
    let quote = text.chars().next().filter(|c| matches!(c, '"' | '\'' | '`'))?;
    let mut value = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                let (_, escaped) = chars.next()?;
                value.push(match escaped {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    other => other,
                });
            }
            c if c == quote => return Some((value, &text[i + c.len_utf8()..])),
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_mode_and_js_repl_calls() {
        let script = r#"const a = await tools.exec_command({cmd: "cargo test -p core", yield_time_ms: 10000});
text(a.output);
const b = await tools.exec_command('npm run build');
await codex.tool("shell_command", { command: `pytest -k "parse and not slow"` });"#;
        assert_eq!(
            nested_commands(script),
            [
                "cargo test -p core",
                "npm run build",
                "pytest -k \"parse and not slow\""
            ]
        );
    }

    #[test]
    fn other_keys_and_escapes() {
        let script = r#"await tools.exec_command({"workdir": "/repo", max_output_tokens: 2000, "cmd": "printf 'a\tb\n' && echo \"ok\""})"#;
        assert_eq!(nested_commands(script), ["printf 'a\tb\n' && echo \"ok\""]);
    }

    #[test]
    fn not_a_shell_call() {
        // Other nested tools, a variable for the command, an unclosed
        // literal, a tool whose name only starts like a shell's.
        for script in [
            "await tools.apply_patch(patch)",
            "await tools.exec_command({cmd})",
            "await tools.exec_command(command)",
            "await tools.exec_command({cmd: \"ls",
            "await tools.shell_commands({cmd: \"ls\"})",
            "await codex.tool(\"view_image\", {path: \"a.png\"})",
            "await codex.tool(\"exec_command\")",
            "tools.",
            "",
        ] {
            assert!(nested_commands(script).is_empty(), "{script}");
        }
    }

    #[test]
    fn at_most_sixteen() {
        let script = "await tools.exec_command('ls');\n".repeat(40);
        assert_eq!(nested_commands(&script).len(), MAX_COMMANDS);
    }
}

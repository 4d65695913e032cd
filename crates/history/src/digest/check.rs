//! Checking a summary against the change tracker's facts (#30.6): what a
//! summary that replaces archived rounds must not lose.

use std::sync::OnceLock;

use regex::Regex;

use super::{cut, Digest, MAX_LINE_CHARS};

/// The most constraint sentences of the user's a digest keeps.
pub(super) const MAX_CONSTRAINTS: usize = 8;

/// A sentence that states a constraint: `must`, `never`, `always`, `do
/// not`, `don't`, `only`, `without`, `avoid`, `make sure`, `keep`.
fn constraint() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:must|never|always|do not|don't|only|without|avoid|make sure|keep)\b")
            .unwrap_or_else(|_| super::facts::never())
    })
}

impl Digest {
    /// Notes the sentences of a user's message that state a constraint
    /// (8 to 200 characters), each once, the newest last.
    pub(super) fn note_constraints(&mut self, text: &str) {
        // Reminders Strata or the agent appended (`<system-reminder>…`)
        // are not the user's words.
        let mut own = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("<system-reminder>") {
            own.push_str(&rest[..start]);
            rest = rest[start..]
                .find("</system-reminder>")
                .map_or("", |end| &rest[start + end + "</system-reminder>".len()..]);
        }
        own.push_str(rest);
        for sentence in own
            .split(['\n', '.', '!', '?'])
            .map(str::trim)
            .filter(|s| (8..=200).contains(&s.chars().count()) && constraint().is_match(s))
        {
            let sentence = sentence.to_owned();
            self.constraints.retain(|c| *c != sentence);
            if self.constraints.len() == MAX_CONSTRAINTS {
                self.constraints.remove(0);
            }
            self.constraints.push(sentence);
        }
    }

    /// The todo list's line: `Todo: [status] text; …`, each text cut to
    /// 80 characters; `None` when no list was written or it is empty.
    pub(super) fn todo_line(&self) -> Option<String> {
        let items: Vec<String> = self.todos.items().iter().map(todo_item).collect();
        (!items.is_empty()).then(|| format!("Todo: {}", items.join("; ")))
    }

    /// The open items of the todo list, as `[status] text`.
    fn open_todos(&self) -> Vec<String> {
        self.todos.open().iter().map(todo_item).collect()
    }

    /// The working facts of the observed steps: each changed file, each
    /// command that failed (with its last error), each open todo item and
    /// each constraint the user stated.
    pub fn fact_count(&self) -> usize {
        self.files_changed.len()
            + self.commands.iter().filter(|c| failed(c)).count()
            + self.todos.open().len()
            + self.constraints.len()
    }

    /// The working facts `text` does not mention, one short line each, in
    /// a fixed order (files, failing commands, open todos, constraints):
    /// what a summary of the observed steps left out. A file counts as
    /// mentioned when its path is in `text`, a failing command when its
    /// command line and its last error are, a todo or a constraint when
    /// its words are.
    ///
    /// ```
    /// use serde_json::json;
    /// use strata_ctx_core::{Message, ToolCall, ToolResult};
    /// use strata_ctx_history::Digest;
    ///
    /// let edit = ToolCall::new("c1", "Edit", json!({"file_path": "src/parse.rs", "old_string": "a", "new_string": "b"}));
    /// let mut digest = Digest::new();
    /// digest.observe_messages(&[
    ///     Message::user("Fix the parser. Never change the public API."),
    ///     Message::assistant_with_calls("", vec![edit.clone()]),
    ///     Message::tool_result(&edit, ToolResult::success("ok")),
    /// ]);
    /// assert_eq!(digest.fact_count(), 2);
    /// assert_eq!(
    ///     digest.missing_from("We fixed the parser in src/parse.rs."),
    ///     vec!["The user said: Never change the public API"]
    /// );
    /// ```
    pub fn missing_from(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for file in &self.files_changed {
            if !text.contains(file.as_str()) {
                out.push(format!("File changed: {file}"));
            }
        }
        for c in self.commands.iter().filter(|c| failed(c)) {
            let error_missing = c.error.as_ref().is_some_and(|e| !text.contains(e.as_str()));
            if text.contains(c.first_line()) && !error_missing {
                continue;
            }
            let mut line = format!("Failed: `{}`", c.command);
            if let Some(outcome) = &c.outcome {
                line.push_str(&format!(" → {outcome}"));
            }
            if let Some(error) = &c.error {
                line.push_str(&format!(" — last error: {error}"));
            }
            out.push(cut(&line, MAX_LINE_CHARS * 2));
        }
        for todo in &self.open_todos() {
            let words = todo.split_once("] ").map_or(todo.as_str(), |(_, t)| t);
            if !text.contains(words) {
                out.push(format!("Open todo: {todo}"));
            }
        }
        for c in &self.constraints {
            if !text.contains(c.as_str()) {
                out.push(format!("The user said: {c}"));
            }
        }
        out
    }
}

/// A todo item as the digest shows it: `[status] text`, the text cut to
/// 80 characters.
fn todo_item(t: &strata_ctx_tools::Todo<'_>) -> String {
    format!("[{}] {}", t.status, cut(t.text, 80))
}

/// Whether a command's last run failed: a non-zero exit, a `failed`
/// outcome, or an error line.
fn failed(c: &super::CommandFact) -> bool {
    c.error.is_some()
        || c.outcome
            .as_deref()
            .is_some_and(|o| o.starts_with("failed") || (o.starts_with("exit ") && !o.starts_with("exit 0")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::{Message, ToolCall, ToolResult};

    /// #30.6: a summary names a script it ran by the command's first line,
    /// as the agent wrote it; the digest's one-line form of the whole
    /// command is not asked for.
    #[test]
    fn a_failing_script_is_mentioned_by_its_first_line() {
        let call = ToolCall::new(
            "c1",
            "bash",
            json!({"command": "cat > t.py << 'EOF'\nimport a\nEOF\npython t.py"}),
        );
        let out = "<returncode>1</returncode>\n<output>\nModuleNotFoundError: No module named 'a'\n</output>";
        let mut d = Digest::new();
        d.observe_messages(&[
            Message::assistant_with_calls("", vec![call.clone()]),
            Message::tool_result(&call, ToolResult::success(out)),
        ]);
        let error = "ModuleNotFoundError: No module named 'a'";
        assert!(d
            .missing_from(&format!("Ran `cat > t.py << 'EOF'`, which failed: {error}"))
            .is_empty());
        let missing = d.missing_from(&format!("Ran a script in t.py, which failed: {error}"));
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert!(
            missing[0].starts_with("Failed: `cat > t.py << 'EOF' … ⏎ python t.py` → exit 1"),
            "{missing:?}"
        );
    }

    #[test]
    fn constraints_are_the_users_own_words() {
        let mut d = Digest::new();
        d.note_constraints(
            "Fix it. Never touch the schema!\n<system-reminder>\nYou MUST read this file with the Read tool.\n</system-reminder>\nAlways run the tests first",
        );
        assert_eq!(
            d.constraints,
            ["Never touch the schema", "Always run the tests first"]
        );
        for i in 0..20 {
            d.note_constraints(&format!("You must keep rule {i}"));
        }
        assert_eq!(d.constraints.len(), MAX_CONSTRAINTS);
        assert_eq!(
            d.constraints.last().map(String::as_str),
            Some("You must keep rule 19")
        );
    }
}

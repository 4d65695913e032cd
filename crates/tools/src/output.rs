//! What a tool's recorded output says, under the shapes agents record it
//! in.

use serde_json::{Map, Value};

/// A shell's output that an agent recorded as a JSON object rather than as
/// plain text: Codex CLI's `shell` and `local_shell` calls answer
/// `{"output": "…", "metadata": {"exit_code": 1, "duration_seconds":
/// 0.5}}`, and transcripts in OpenAI chat form carry that object as the
/// tool message's text.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellOutput {
    object: Map<String, Value>,
}

impl ShellOutput {
    /// Reads `text` as a shell's structured output: a JSON object with an
    /// `output` string, and perhaps an exit code (`metadata.exit_code`,
    /// or `exit_code`/`exitCode` beside the output). `None` for anything
    /// else, plain text included; only text that opens with `{` is parsed.
    ///
    /// ```
    /// use strata_ctx_tools::ShellOutput;
    ///
    /// let text = r#"{"output":"error: could not compile `app`\n","metadata":{"exit_code":101,"duration_seconds":2.5}}"#;
    /// let out = ShellOutput::parse(text).unwrap();
    /// assert_eq!(out.output(), "error: could not compile `app`\n");
    /// assert_eq!(out.exit_code(), Some(101));
    /// assert!(ShellOutput::parse("plain text").is_none());
    /// ```
    pub fn parse(text: &str) -> Option<ShellOutput> {
        if !text.trim_start().starts_with('{') {
            return None;
        }
        match serde_json::from_str::<Value>(text).ok()? {
            Value::Object(object) if object.get("output").is_some_and(Value::is_string) => {
                Some(ShellOutput { object })
            }
            _ => None,
        }
    }

    /// What the command printed.
    pub fn output(&self) -> &str {
        self.object
            .get("output")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The command's exit code, when the object reports one.
    pub fn exit_code(&self) -> Option<i64> {
        let beside = |o: &Map<String, Value>| {
            ["exit_code", "exitCode"]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_i64))
        };
        self.object
            .get("metadata")
            .and_then(Value::as_object)
            .and_then(beside)
            .or_else(|| beside(&self.object))
    }

    /// The object with `output` in place of what the command printed,
    /// written as compact JSON: the rest (the exit code, the duration) as
    /// it was.
    pub fn with_output(mut self, output: String) -> String {
        self.object.insert("output".to_owned(), Value::String(output));
        Value::Object(self.object).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn other_text_is_not_a_shell_output() {
        for text in [
            "",
            "plain",
            "{not json",
            r#"{"stdout": "x"}"#,
            r#"{"output": 3}"#,
            r#"["output"]"#,
            "{\"output\": \"x\"} trailing",
        ] {
            assert!(ShellOutput::parse(text).is_none(), "{text}");
        }
    }
}

//! Tool definitions: one registry for the L1 text and each provider's
//! `tools` field (MODEL-1).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool the agent offers the model (MODEL-1).
///
/// One definition serves every place a tool is described: layer L1 in
/// ReAct mode, and the provider's `tools` field in native mode (OpenAI
/// function tools, Anthropic tools with `input_schema`). Each rendering is
/// byte-stable: the same spec gives the same bytes, so a cached prefix
/// holds (CTX-3).
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::ToolSpec;
///
/// let read = ToolSpec::new(
///     "Read",
///     "Reads a text file of the project.",
///     json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
/// )
/// .with_guidelines(["Read a file before you edit it."])
/// .with_examples([json!({"path": "src/main.rs"})]);
/// assert_eq!(read.name, "Read");
/// assert!(read.full_description().ends_with("Examples:\n- {\"path\":\"src/main.rs\"}"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolSpec {
    /// The tool's exact name.
    pub name: String,
    /// What the tool does and when to use it.
    pub description: String,
    /// The JSON Schema of the arguments (`Value::Null` when there is none).
    #[serde(default)]
    pub parameters: Value,
    /// Example arguments, each a JSON value the tool accepts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    /// Rules for using the tool well, one per line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guidelines: Vec<String>,
}

impl ToolSpec {
    /// A tool with a name, a description and a JSON Schema of its
    /// arguments; no examples and no guidelines.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters,
            examples: Vec::new(),
            guidelines: Vec::new(),
        }
    }

    /// Sets the example arguments. By default, none.
    pub fn with_examples(mut self, examples: impl IntoIterator<Item = Value>) -> Self {
        self.examples = examples.into_iter().collect();
        self
    }

    /// Sets the usage guidelines. By default, none.
    pub fn with_guidelines<S: Into<String>>(mut self, guidelines: impl IntoIterator<Item = S>) -> Self {
        self.guidelines = guidelines.into_iter().map(Into::into).collect();
        self
    }

    /// The description with the guidelines and examples appended, as the
    /// providers' `tools` fields carry it: the description, then
    /// `Guidelines:` and `Examples:` lists when there are any.
    pub fn full_description(&self) -> String {
        let mut text = self.description.trim().to_owned();
        let mut section = |title: &str, items: Vec<String>| {
            if items.is_empty() {
                return;
            }
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(title);
            for item in items {
                text.push_str("\n- ");
                text.push_str(&item);
            }
        };
        section(
            "Guidelines:",
            self.guidelines
                .iter()
                .map(|g| g.trim().to_owned())
                .filter(|g| !g.is_empty())
                .collect(),
        );
        // serde_json's maps are ordered by key: the bytes are stable.
        section("Examples:", self.examples.iter().map(Value::to_string).collect());
        text
    }

    /// The JSON Schema the providers get: the parameters, or an object
    /// schema without properties when there are none (both providers
    /// require an object schema).
    pub fn input_schema(&self) -> Value {
        match &self.parameters {
            Value::Null => serde_json::json!({"type": "object", "properties": {}}),
            other => other.clone(),
        }
    }
}

/// Whether and which tool the model must call (MODEL-1).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides (the providers' default).
    #[default]
    Auto,
    /// The model must not call a tool.
    None,
    /// The model must call at least one tool.
    Required,
    /// The model must call this tool.
    Tool(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn model_1_description_sections() {
        let plain = ToolSpec::new("Bash", "Runs a command.", Value::Null);
        assert_eq!(plain.full_description(), "Runs a command.");
        assert_eq!(plain.input_schema(), json!({"type": "object", "properties": {}}));
        let full = plain
            .clone()
            .with_guidelines(["Quote paths.", "  "])
            .with_examples([json!({"command": "ls", "a": 1})]);
        assert_eq!(
            full.full_description(),
            "Runs a command.\n\nGuidelines:\n- Quote paths.\n\nExamples:\n- {\"a\":1,\"command\":\"ls\"}"
        );
        let back: ToolSpec = serde_json::from_value(serde_json::to_value(&full).unwrap()).unwrap();
        assert_eq!(back, full);
    }
}

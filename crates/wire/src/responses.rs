//! The OpenAI Responses form: its items as serde types, as the API answers
//! with them and as Codex CLI records them in its rollouts, and the API's
//! request body, answer and streamed events.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod api;

pub use api::{
    ApiError, Compaction, Event, FunctionTool, IncompleteDetails, InputTokensDetails, Request, Response,
    ToolChoice, Usage,
};

/// One item of a response's `output` (or of a conversation's `input`).
///
/// Fields are optional where a server or an older rollout may leave them
/// out; each reader says what an item without them means. Items of other
/// kinds (web searches, images, …) are [`Item::Other`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Item {
    /// A message: its role and content parts.
    Message {
        /// `user`, `assistant`, `developer` or `system`.
        #[serde(default)]
        role: String,
        /// Its parts (`input_text`, `output_text`, `refusal`, …).
        #[serde(default)]
        content: Vec<Part>,
    },
    /// A call of a function tool.
    FunctionCall {
        /// The tool's name.
        #[serde(default)]
        name: Option<String>,
        /// The arguments: a string of JSON, as the API writes them.
        #[serde(default)]
        arguments: Option<Value>,
        /// What the call's output answers.
        #[serde(default)]
        call_id: Option<String>,
        /// The item's own id.
        #[serde(default)]
        id: Option<String>,
    },
    /// A call of a free-form (custom) tool, such as Codex's `apply_patch`.
    CustomToolCall {
        /// The tool's name.
        name: String,
        /// The input text.
        #[serde(default)]
        input: String,
        /// What the call's output answers.
        call_id: String,
    },
    /// A call of the local shell tool.
    LocalShellCall {
        /// What the call's output answers.
        #[serde(default)]
        call_id: Option<String>,
        /// The item's own id.
        #[serde(default)]
        id: Option<String>,
        /// What to run (`{"type": "exec", "command": [...]}`).
        action: Value,
    },
    /// The output of a function call.
    FunctionCallOutput {
        /// The call it answers.
        call_id: String,
        /// What the tool returned.
        output: Output,
    },
    /// The output of a custom tool call.
    CustomToolCallOutput {
        /// The call it answers.
        call_id: String,
        /// What the tool returned.
        output: Output,
    },
    /// The model's reasoning, kept verbatim to be sent back (MODEL-7):
    /// its fields but `type`.
    Reasoning(Map<String, Value>),
    /// The provider's compaction of what came before (MODEL-7): its
    /// fields but `type`.
    Compaction(Map<String, Value>),
    /// Any other item.
    #[serde(other)]
    Other,
}

/// One item of a request's `input`, as sent. Fields are declared in the
/// order `serde_json` writes a map's keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputItem<'a> {
    /// A message: `{"content": …, "role": …}`.
    Message {
        /// Its text.
        content: Cow<'a, str>,
        /// `user`, `assistant`, `system` or `developer`.
        role: Cow<'a, str>,
    },
    /// A call the model made: `{"arguments", "call_id", "name", "type":
    /// "function_call"}`.
    FunctionCall {
        /// The arguments as JSON text.
        arguments: Cow<'a, str>,
        /// What its output answers.
        call_id: &'a str,
        /// The tool's name.
        name: &'a str,
        /// Always `function_call`.
        #[serde(rename = "type")]
        kind: &'static str,
    },
    /// A call's output: `{"call_id", "output", "type":
    /// "function_call_output"}`.
    FunctionCallOutput {
        /// The call it answers.
        call_id: &'a str,
        /// What the tool returned.
        output: Cow<'a, str>,
        /// Always `function_call_output`.
        #[serde(rename = "type")]
        kind: &'static str,
    },
    /// An item the provider sent (reasoning, compaction), sent back
    /// verbatim (MODEL-7).
    Verbatim(Value),
}

/// A content part of a message.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Part {
    /// `input_text`, `output_text`, `refusal`, …
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// The text of a text part.
    #[serde(default)]
    pub text: Option<String>,
    /// The text of a refusal.
    #[serde(default)]
    pub refusal: Option<String>,
}

/// A tool's output: a string (plain, or Codex's JSON with `output` and
/// `metadata.exit_code`), content parts, or `{content, success}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Output {
    /// A string.
    Text(String),
    /// Content parts.
    Parts(Vec<Part>),
    /// Codex's older `{content, success}`.
    Payload {
        /// The text.
        #[serde(default)]
        content: String,
        /// Whether the tool succeeded.
        #[serde(default)]
        success: Option<bool>,
    },
}

impl Item {
    /// The item as the provider sent it, for a verbatim item (reasoning,
    /// compaction): its fields with its `type`. `None` for other items.
    pub fn verbatim(&self) -> Option<Value> {
        let (kind, fields) = match self {
            Item::Reasoning(fields) => ("reasoning", fields),
            Item::Compaction(fields) => ("compaction", fields),
            _ => return None,
        };
        let mut item = fields.clone();
        item.insert("type".into(), Value::from(kind));
        Some(Value::Object(item))
    }
}

impl Part {
    /// What an answer's part says: an `output_text`'s text or a
    /// refusal's; nothing for other parts.
    pub fn answer_text(&self) -> Option<&str> {
        match self.kind.as_deref() {
            Some("output_text") => self.text.as_deref(),
            Some("refusal") => self.refusal.as_deref(),
            _ => None,
        }
    }
}

/// A function call's arguments as a value: a string is read as JSON where
/// it is JSON and kept as a string where it is not; another value as it
/// is; none `{}`.
pub fn arguments_value(arguments: Option<Value>) -> Value {
    match arguments {
        Some(Value::String(text)) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        Some(other) => other,
        None => Value::Object(Map::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_read_with_their_fields_and_verbatim_ones_whole() {
        let call: Item =
            serde_json::from_value(json!({"type": "function_call", "id": "fc_1", "call_id": "c1",
            "name": "Read", "arguments": "{\"path\": \"a.rs\"}"}))
            .unwrap();
        let Item::FunctionCall {
            name,
            arguments,
            call_id,
            ..
        } = call
        else {
            panic!("{call:?}")
        };
        assert_eq!((name.as_deref(), call_id.as_deref()), (Some("Read"), Some("c1")));
        assert_eq!(arguments_value(arguments), json!({"path": "a.rs"}));
        assert_eq!(arguments_value(Some(json!("{cut"))), json!("{cut"));
        assert_eq!(arguments_value(None), json!({}));
        let reasoning =
            json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA", "summary": []});
        let item: Item = serde_json::from_value(reasoning.clone()).unwrap();
        assert_eq!(item.verbatim(), Some(reasoning));
        let other: Item = serde_json::from_value(json!({"type": "web_search_call", "id": "w"})).unwrap();
        assert_eq!((other.clone(), other.verbatim()), (Item::Other, None));
        let refusal: Part = serde_json::from_value(json!({"type": "refusal", "refusal": "No."})).unwrap();
        assert_eq!(refusal.answer_text(), Some("No."));
    }
}

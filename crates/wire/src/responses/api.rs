//! The Responses API's request body, its answer and the events of a
//! streamed answer.
//!
//! Types that are sent declare their fields in the order `serde_json`
//! writes a map's keys, so a body sent through them has the bytes of the
//! same body written as a [`Value`](serde_json::Value).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use strata_ctx_core::{FinishReason, ToolSpec};

use super::{InputItem, Item};

/// A `POST /responses` body; with the model, the input and the tools
/// alone, the body of `/responses/input_tokens`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request<'a> {
    /// Server-side compaction (MODEL-7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_management: Option<Vec<Compaction>>,
    /// What to include beside the output (`reasoning.encrypted_content`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<&'static str>,
    /// The conversation as input items.
    pub input: Vec<InputItem<'a>>,
    /// The longest answer, in tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// The model.
    pub model: &'a str,
    /// Whether the server keeps the response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    /// Whether the answer is streamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Which tool the model must call, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice<'a>>,
    /// The function tools; left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<FunctionTool<'a>>,
}

impl<'a> Request<'a> {
    /// A body for `model` holding `input`, with no settings.
    pub fn new(model: &'a str, input: Vec<InputItem<'a>>) -> Self {
        Request {
            context_management: None,
            include: Vec::new(),
            input,
            max_output_tokens: None,
            model,
            store: None,
            stream: None,
            temperature: None,
            tool_choice: None,
            tools: Vec::new(),
        }
    }
}

/// A function tool, flat (not nested under `function` as in chat
/// completions): `{"description", "name", "parameters", "type":
/// "function"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionTool<'a> {
    /// What it does, its usage rules and examples.
    pub description: String,
    /// Its name.
    pub name: &'a str,
    /// The JSON Schema of its arguments.
    pub parameters: serde_json::Value,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl<'a> FunctionTool<'a> {
    /// `spec` as a function tool.
    pub fn of(spec: &'a ToolSpec) -> Self {
        FunctionTool {
            description: spec.full_description(),
            name: &spec.name,
            parameters: spec.input_schema(),
            kind: "function",
        }
    }
}

/// `tool_choice`: `"auto"`, `"none"`, `"required"` or `{"name": …,
/// "type": "function"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ToolChoice<'a> {
    /// `auto`, `none` or `required`.
    Mode(&'static str),
    /// One function.
    Function {
        /// Its name.
        name: &'a str,
        /// Always `function`.
        #[serde(rename = "type")]
        kind: &'static str,
    },
}

impl<'a> ToolChoice<'a> {
    /// The tool choice `choice` is in this API.
    pub fn of(choice: &'a strata_ctx_core::ToolChoice) -> Self {
        match choice {
            strata_ctx_core::ToolChoice::None => ToolChoice::Mode("none"),
            strata_ctx_core::ToolChoice::Required => ToolChoice::Mode("required"),
            strata_ctx_core::ToolChoice::Tool(name) => ToolChoice::Function {
                name,
                kind: "function",
            },
            _ => ToolChoice::Mode("auto"),
        }
    }
}

/// Server-side compaction once the input passes `compact_threshold`
/// tokens: `{"compact_threshold": n, "type": "compaction"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Compaction {
    /// The input size, in tokens, past which the server compacts.
    pub compact_threshold: u64,
    /// Always `compaction`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl Compaction {
    /// Compaction past `threshold` tokens.
    pub fn at(threshold: u64) -> Self {
        Compaction {
            compact_threshold: threshold,
            kind: "compaction",
        }
    }
}

/// A response: the answer of `POST /responses`, and the `response` of
/// the events that end a stream (where its `output` may be left out).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Response {
    /// `completed`, `incomplete`, `failed`, …
    #[serde(default)]
    pub status: Option<String>,
    /// Why an incomplete response stopped.
    #[serde(default)]
    pub incomplete_details: Option<IncompleteDetails>,
    /// Its items.
    #[serde(default)]
    pub output: Option<Vec<Item>>,
    /// The tokens it took.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// What failed, for a failed response.
    #[serde(default)]
    pub error: Option<ApiError>,
}

impl Response {
    /// Why it stopped: cut at the token limit or filtered when it is
    /// `incomplete` for that reason, else tool calls when it made any
    /// (`any_call`), else a complete stop.
    pub fn finish_reason(&self, any_call: bool) -> FinishReason {
        let reason = self.incomplete_details.as_ref().and_then(|d| d.reason.as_deref());
        match (self.status.as_deref(), reason) {
            (Some("incomplete"), Some("max_output_tokens")) => FinishReason::Length,
            (Some("incomplete"), Some("content_filter")) => FinishReason::ContentFilter,
            _ if any_call => FinishReason::ToolCalls,
            _ => FinishReason::Stop,
        }
    }

    /// The usage in Strata's terms (zero where it reports none).
    pub fn usage(&self) -> strata_ctx_core::Usage {
        self.usage.unwrap_or_default().to_core()
    }
}

/// `incomplete_details`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct IncompleteDetails {
    /// `max_output_tokens`, `content_filter`, …
    #[serde(default)]
    pub reason: Option<String>,
}

/// A response's `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct Usage {
    /// Input tokens, cached ones included.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// The input's details.
    #[serde(default)]
    pub input_tokens_details: Option<InputTokensDetails>,
}

/// `usage.input_tokens_details`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct InputTokensDetails {
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cached_tokens: Option<u64>,
}

impl Usage {
    /// The usage in Strata's terms: the whole input as `input_tokens`,
    /// the cached part as `cached_input_tokens`.
    pub fn to_core(self) -> strata_ctx_core::Usage {
        strata_ctx_core::Usage {
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            cached_input_tokens: self.input_tokens_details.and_then(|d| d.cached_tokens),
            cache_write_tokens: None,
        }
    }
}

/// An error the API reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ApiError {
    /// What the server says of it.
    #[serde(default)]
    pub message: Option<String>,
}

/// One event of a streamed response. Event types this client does not
/// act on (created, in progress, content parts, reasoning summaries as
/// they are written) and types added later are [`Event::Other`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum Event<'a> {
    /// A piece of an answer's text or refusal.
    #[serde(rename = "response.output_text.delta", alias = "response.refusal.delta")]
    TextDelta {
        /// The piece.
        #[serde(default, borrow)]
        delta: Cow<'a, str>,
    },
    /// An output item begins.
    #[serde(rename = "response.output_item.added")]
    ItemAdded {
        /// Its position in the output.
        #[serde(default)]
        output_index: u64,
        /// The item as it starts.
        item: Item,
    },
    /// A piece of a function call's arguments.
    #[serde(rename = "response.function_call_arguments.delta")]
    ArgumentsDelta {
        /// The call's position in the output.
        #[serde(default)]
        output_index: u64,
        /// The piece.
        #[serde(default, borrow)]
        delta: Cow<'a, str>,
    },
    /// An output item is whole.
    #[serde(rename = "response.output_item.done")]
    ItemDone {
        /// Its position in the output.
        #[serde(default)]
        output_index: u64,
        /// The item, whole.
        item: Item,
    },
    /// The response ended, complete or cut (`response.incomplete`).
    #[serde(rename = "response.completed", alias = "response.incomplete")]
    Completed {
        /// The response: its status, usage and output.
        #[serde(default)]
        response: Response,
    },
    /// The response failed.
    #[serde(rename = "response.failed")]
    Failed {
        /// The response, with its error.
        #[serde(default)]
        response: Response,
    },
    /// The server failed during the stream.
    #[serde(rename = "error")]
    Error {
        /// What the server says.
        #[serde(default)]
        message: Option<String>,
        /// The error, when it is nested.
        #[serde(default)]
        error: Option<ApiError>,
    },
    /// Any other event.
    #[serde(other)]
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_body_sent_has_the_api_names_and_leaves_out_what_is_unset() {
        let spec = ToolSpec::new("Read", "Reads a file.", serde_json::Value::Null);
        let choice = strata_ctx_core::ToolChoice::Tool("Read".into());
        let mut body = Request::new("gpt-x", Vec::new());
        body.tools = vec![FunctionTool::of(&spec)];
        body.tool_choice = Some(ToolChoice::of(&choice));
        body.context_management = Some(vec![Compaction::at(120_000)]);
        let sent = serde_json::to_value(&body).unwrap();
        assert_eq!(sent["tool_choice"], json!({"type": "function", "name": "Read"}));
        assert_eq!(sent["tools"][0]["type"], "function");
        assert_eq!(sent["tools"][0]["parameters"]["type"], "object");
        assert_eq!(
            sent["context_management"],
            json!([{"type": "compaction", "compact_threshold": 120000}])
        );
        for unset in ["include", "store", "stream", "temperature", "max_output_tokens"] {
            assert!(sent.get(unset).is_none(), "{unset}");
        }
        let required = strata_ctx_core::ToolChoice::Required;
        assert_eq!(
            serde_json::to_value(ToolChoice::of(&required)).unwrap(),
            "required"
        );
    }

    #[test]
    fn stream_events_read_with_their_aliases() {
        let refusal: Event<'_> =
            serde_json::from_str(r#"{"type":"response.refusal.delta","delta":"No."}"#).unwrap();
        assert_eq!(refusal, Event::TextDelta { delta: "No.".into() });
        let cut: Event<'_> = serde_json::from_str(
            r#"{"type":"response.incomplete","response":{"status":"incomplete",
            "incomplete_details":{"reason":"content_filter"},"usage":{"input_tokens":5,"output_tokens":9,
            "input_tokens_details":{"cached_tokens":4}}}}"#,
        )
        .unwrap();
        let Event::Completed { response } = cut else {
            panic!("{cut:?}")
        };
        assert_eq!(response.finish_reason(true), FinishReason::ContentFilter);
        assert_eq!(response.usage().cached_input_tokens, Some(4));
        let later: Event<'_> = serde_json::from_str(r#"{"type":"response.created","response":{}}"#).unwrap();
        assert_eq!(later, Event::Other);
        let done = Response::default();
        assert_eq!(
            (done.finish_reason(true), done.finish_reason(false)),
            (FinishReason::ToolCalls, FinishReason::Stop)
        );
    }
}

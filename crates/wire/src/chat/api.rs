//! The chat-completions API's request body, its answer and the chunks of
//! a streamed answer.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use strata_ctx_core::{FinishReason, LlmResponse, ThinkingBlock, ToolCall, ToolChoice, ToolSpec, Usage};

use super::{ChatArguments, ChatContent, ChatMessage, ChatPart};

/// A `POST /chat/completions` body. Fields are declared in the order
/// `serde_json` writes a map's keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    /// The most tokens the answer may take.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The conversation.
    pub messages: Vec<ChatMessage<'a>>,
    /// The model's name.
    pub model: &'a str,
    /// Whether the answer comes as server-sent chunks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// For a stream: a last chunk with the usage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    /// The sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Which tool the model must (or must not) call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ChatToolChoice<'a>>,
    /// The tools the model may call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ChatTool<'a>>>,
}

/// A stream's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StreamOptions {
    /// Whether a last chunk carries the usage.
    pub include_usage: bool,
}

/// A function tool: `{"function": {"description", "name", "parameters"},
/// "type": "function"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatTool<'a> {
    /// The function.
    pub function: ChatToolFunction<'a>,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// A function tool's description.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatToolFunction<'a> {
    /// What it does, its usage rules and examples.
    pub description: String,
    /// Its name.
    pub name: &'a str,
    /// The JSON Schema of its arguments.
    pub parameters: Value,
}

impl<'a> ChatTool<'a> {
    /// `spec` as a function tool.
    pub fn of(spec: &'a ToolSpec) -> Self {
        ChatTool {
            function: ChatToolFunction {
                description: spec.full_description(),
                name: &spec.name,
                parameters: spec.input_schema(),
            },
            kind: "function",
        }
    }
}

/// `tool_choice`: `"none"`, `"auto"`, `"required"` or one function.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ChatToolChoice<'a> {
    /// `none`, `auto` or `required`.
    Mode(&'static str),
    /// `{"function": {"name": …}, "type": "function"}`.
    Function {
        /// The function to call.
        function: NamedFunction<'a>,
        /// Always `function`.
        #[serde(rename = "type")]
        kind: &'static str,
    },
}

/// A function named in a tool choice.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedFunction<'a> {
    /// The function's name.
    pub name: &'a str,
}

impl<'a> ChatToolChoice<'a> {
    /// The tool choice `choice` is in this API.
    pub fn of(choice: &'a ToolChoice) -> Self {
        match choice {
            ToolChoice::None => ChatToolChoice::Mode("none"),
            ToolChoice::Required => ChatToolChoice::Mode("required"),
            ToolChoice::Tool(name) => ChatToolChoice::Function {
                function: NamedFunction { name },
                kind: "function",
            },
            _ => ChatToolChoice::Mode("auto"),
        }
    }
}

/// A completion, or one chunk of a streamed one: its first choice and the
/// usage are what is read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatCompletion<'a> {
    /// The answers; the first is the one asked for.
    #[serde(default, borrow)]
    pub choices: Vec<ChatChoice<'a>>,
    /// The tokens it took.
    #[serde(default)]
    pub usage: Option<ChatUsage>,
    /// An error a server sent in a stream.
    #[serde(default)]
    pub error: Option<Value>,
}

/// One choice of a completion (`message`) or of a chunk (`delta`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatChoice<'a> {
    /// The answer of a completion.
    #[serde(default, borrow)]
    pub message: Option<ChatAnswer<'a>>,
    /// A chunk's part of the answer.
    #[serde(default, borrow)]
    pub delta: Option<ChatAnswer<'a>>,
    /// Why the model stopped (`stop`, `length`, `tool_calls`, …).
    #[serde(default)]
    pub finish_reason: Option<Cow<'a, str>>,
}

/// An assistant's answer, or a chunk's part of it: text, reasoning and
/// calls. In a chunk, a call's arguments come in pieces, its `index` says
/// which call a piece belongs to.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatAnswer<'a> {
    /// The text (some compatible servers send parts).
    #[serde(default, borrow)]
    pub content: Option<ChatContent<'a>>,
    /// The calls, or a chunk's pieces of them.
    #[serde(default, borrow)]
    pub tool_calls: Option<Vec<ChatCallPiece<'a>>>,
    /// Reasoning, as DeepSeek and vLLM send it.
    #[serde(default, borrow)]
    pub reasoning_content: Option<Cow<'a, str>>,
    /// Reasoning, as OpenRouter and Ollama send it.
    #[serde(default, borrow)]
    pub reasoning: Option<Cow<'a, str>>,
}

/// A call of an answer, or a chunk's piece of one.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatCallPiece<'a> {
    /// Which call of the answer a chunk's piece belongs to.
    #[serde(default)]
    pub index: Option<u64>,
    /// The call's id (in a chunk, on its first piece).
    #[serde(default)]
    pub id: Option<Cow<'a, str>>,
    /// The function's name and arguments (in a chunk, a piece of them).
    #[serde(default, borrow)]
    pub function: Option<PieceFunction<'a>>,
}

/// The function of a call or of a piece of one.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct PieceFunction<'a> {
    /// The function's name.
    #[serde(default)]
    pub name: Option<Cow<'a, str>>,
    /// Its arguments, or a piece of their text.
    #[serde(default, borrow)]
    pub arguments: Option<ChatArguments<'a>>,
}

/// A completion's usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub struct ChatUsage {
    /// Tokens read.
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    /// Tokens written.
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    /// How the tokens read split.
    #[serde(default)]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
}

/// How a request's tokens split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub struct PromptTokensDetails {
    /// Tokens served from the provider's prompt cache.
    #[serde(default)]
    pub cached_tokens: Option<u64>,
}

impl From<ChatUsage> for Usage {
    fn from(u: ChatUsage) -> Self {
        Usage {
            input_tokens: u.prompt_tokens.unwrap_or(0),
            output_tokens: u.completion_tokens.unwrap_or(0),
            cached_input_tokens: u.prompt_tokens_details.and_then(|d| d.cached_tokens),
            cache_write_tokens: None,
        }
    }
}

impl ChatAnswer<'_> {
    /// The reasoning text: `reasoning_content`, else `reasoning`.
    pub fn reasoning_text(&self) -> Option<&str> {
        self.reasoning_content.as_deref().or(self.reasoning.as_deref())
    }

    /// The text; parts are joined without a separator, as the servers
    /// that send them cut one text into parts.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.content {
            Some(ChatContent::Text(text)) => Cow::Borrowed(text),
            Some(ChatContent::Parts(parts)) => Cow::Owned(
                parts
                    .iter()
                    .filter_map(|p| match p {
                        ChatPart::Text(t) => Some(&**t),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => Cow::Borrowed(""),
        }
    }
}

impl ChatCompletion<'_> {
    /// The answer of a completion as a response: text, calls (arguments
    /// read as JSON where they are, `{}` when absent), reasoning, usage
    /// and finish reason.
    ///
    /// # Errors
    ///
    /// What is missing: the first choice's `message`, or a call's
    /// function name.
    pub fn into_response(self) -> Result<LlmResponse, String> {
        let usage = self.usage.map(Usage::from).unwrap_or_default();
        let Some(choice) = self.choices.into_iter().next() else {
            return Err("no `choices[0].message`".into());
        };
        let message = choice.message.ok_or("no `choices[0].message`")?;
        if matches!(message.content, Some(ChatContent::Other)) {
            return Err("`choices[0].message.content` is neither text nor parts".into());
        }
        let mut calls = Vec::new();
        for (i, call) in message.tool_calls.iter().flatten().enumerate() {
            let function = call.function.as_ref();
            let name = function
                .and_then(|f| f.name.as_deref())
                .ok_or_else(|| format!("`tool_calls[{i}].function.name` is missing"))?;
            let arguments = function
                .and_then(|f| f.arguments.clone())
                .map_or_else(|| Value::Object(Default::default()), ChatArguments::into_value);
            calls.push(ToolCall::new(
                call.id.as_deref().unwrap_or_default(),
                name,
                arguments,
            ));
        }
        let thinking = message
            .reasoning_text()
            .filter(|t| !t.is_empty())
            .map(|thinking| ThinkingBlock::Thinking {
                thinking: thinking.to_owned(),
                signature: String::new(),
            });
        let finish = choice
            .finish_reason
            .as_deref()
            .map_or(FinishReason::Stop, FinishReason::parse);
        Ok(LlmResponse::new(message.text(), usage)
            .with_tool_calls(calls)
            .with_thinking(thinking.into_iter().collect())
            .with_finish_reason(finish))
    }
}

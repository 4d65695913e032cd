//! Strata's messages to and from [rig]'s messages, so that an agent built
//! on `rig-core` hands its history to Strata and takes the window back in
//! one call each.
//!
//! rig keeps a conversation as [`rig_core::message::Message`]s: system
//! text, user messages of text and tool results, assistant turns of text,
//! tool calls and reasoning. [`from_rig`] reads them as Strata's messages
//! (a tool result becomes a tool message of its own, as every provider's
//! history has it); [`to_rig`] writes a window back, each message's text
//! as Strata renders it for the model (a summary under its heading, a
//! result's envelope) and consecutive tool results in one user message,
//! as rig groups them.
//!
//! ```
//! use rig_core::message::Message as RigMessage;
//! use strata_ctx_core::Role;
//! use strata_ctx_rig::{from_rig, to_rig};
//!
//! let history = vec![
//!     RigMessage::system("You are a coding agent."),
//!     RigMessage::user("What does src/lib.rs export?"),
//!     RigMessage::assistant("`parse` and `Error`."),
//! ];
//! let messages = from_rig(&history);
//! assert_eq!(messages[2].role, Role::Assistant);
//! // … the engine's window, as `window.messages()` …
//! assert_eq!(to_rig(&messages)?, history);
//! # Ok::<(), strata_ctx_rig::Error>(())
//! ```
//!
//! [rig]: https://docs.rs/rig-core
#![deny(missing_docs)]

use rig_core::message::{
    AssistantContent, AssistantMessage, CallId, Message as RigMessage, Reasoning, ToolFunction, ToolName,
    ToolResult as RigResult, ToolResultContent, UserContent,
};
use serde_json::Value;
use strata_ctx_core::{Message, ResultStatus, Role, ThinkingBlock, ToolCall, ToolResult};

/// Why a window could not be written as rig's messages.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// rig names every tool; the message at `index` calls, or answers a
    /// call of, a tool without a name.
    #[error("message {index} names a tool without a name, which rig refuses")]
    NamelessTool {
        /// The message's position in the list.
        index: usize,
    },
}

/// `messages`, an agent's history in rig's types, as Strata's messages
/// (hand them to `EngineBuilder::messages`). An assistant turn keeps its
/// text, its calls (arguments rig could not read as JSON are kept as
/// their text) and its reasoning as unsigned thinking; a user message's
/// tool results come first, each a tool message, then its text. Media
/// (images, audio, video, documents) and provider-opaque blocks are left
/// out: Strata's window holds text.
pub fn from_rig(messages: &[RigMessage]) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            RigMessage::System { content } => out.push(Message::system(content.as_str())),
            RigMessage::User { content } => {
                let mut text = Vec::new();
                for part in content {
                    match part {
                        UserContent::Text(t) => text.push(t.text()),
                        UserContent::ToolResult(result) => out.push(tool_message(result)),
                        _ => {}
                    }
                }
                if !text.is_empty() {
                    out.push(Message::user(text.join("\n")));
                }
            }
            RigMessage::Assistant(turn) => out.push(assistant(turn)),
        }
    }
    out
}

fn assistant(turn: &AssistantMessage) -> Message {
    let mut text = Vec::new();
    let mut calls = Vec::new();
    let mut thinking = Vec::new();
    for block in &turn.content {
        match block {
            AssistantContent::Text(t) => text.push(t.text()),
            AssistantContent::ToolCall(call) => {
                let arguments = match &call.function.invalid_arguments {
                    Some(raw) => Value::String(raw.clone()),
                    None => Value::Object(call.function.arguments.clone()),
                };
                calls.push(ToolCall::new(
                    call.id.wire(),
                    call.function.name.as_str(),
                    arguments,
                ));
            }
            AssistantContent::Reasoning(r) if !r.redacted => thinking.push(ThinkingBlock::Thinking {
                thinking: r.text.clone(),
                signature: String::new(),
            }),
            _ => {}
        }
    }
    let mut message = Message::assistant_with_calls(text.join("\n"), calls);
    message.thinking = thinking;
    message
}

fn tool_message(result: &RigResult) -> Message {
    let text: Vec<String> = result
        .content
        .iter()
        .filter_map(|part| match part {
            ToolResultContent::Text(t) => Some(t.text().to_owned()),
            ToolResultContent::Json { value } => Some(value.to_string()),
            _ => None,
        })
        .collect();
    let text = text.join("\n");
    let (id, name) = (result.call.wire(), result.name.as_str());
    if result.is_error {
        let call = ToolCall::new(id, name, Value::Null);
        Message::tool_result(&call, ToolResult::error("tool_error", text))
    } else {
        Message::tool_text(id, name, text)
    }
}

/// `messages` (a window's, from `Window::messages`) as rig's messages,
/// ready for a rig agent's chat history. Each message's text is the one
/// the chat rendering gives the model; unsigned thinking goes back as
/// reasoning, and consecutive tool results share one user message.
///
/// # Errors
///
/// [`Error::NamelessTool`] for a call or result without a tool name.
pub fn to_rig(messages: &[Message]) -> Result<Vec<RigMessage>, Error> {
    let mut out: Vec<RigMessage> = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        let name = |name: &str| ToolName::new(name).map_err(|_| Error::NamelessTool { index });
        let text = strata_ctx_prompt::chat_message(message)
            .content
            .and_then(|c| match c {
                strata_ctx_wire::chat::ChatContent::Text(t) => Some(t.into_owned()),
                _ => None,
            })
            .unwrap_or_default();
        match message.role {
            Role::System | Role::Summary => out.push(RigMessage::system(text)),
            Role::User => out.push(RigMessage::user(text)),
            Role::Assistant => {
                let mut blocks = Vec::new();
                for block in &message.thinking {
                    if let ThinkingBlock::Thinking { thinking, .. } = block {
                        blocks.push(AssistantContent::Reasoning(Reasoning::new(thinking.as_str())));
                    }
                }
                if !message.content.is_empty() {
                    blocks.push(AssistantContent::text(message.content.as_str()));
                }
                for call in &message.tool_calls {
                    let function = ToolFunction::new(name(&call.name)?, (*call.arguments).clone());
                    blocks.push(AssistantContent::ToolCall(rig_core::message::ToolCall::new(
                        CallId::from_wire(call.id.as_str()),
                        function,
                    )));
                }
                out.push(RigMessage::Assistant(AssistantMessage::new(blocks)));
            }
            Role::Tool => {
                let id = CallId::from_wire(message.tool_call_id.as_deref().unwrap_or_default());
                let mut result = UserContent::tool_result(
                    id,
                    name(message.tool_name.as_deref().unwrap_or_default())?,
                    vec![ToolResultContent::text(text)],
                );
                if let UserContent::ToolResult(r) = &mut result {
                    r.is_error = message
                        .result
                        .as_ref()
                        .is_some_and(|r| r.status == ResultStatus::Error);
                }
                match out.last_mut() {
                    Some(RigMessage::User { content })
                        if content.iter().all(|c| matches!(c, UserContent::ToolResult(_))) =>
                    {
                        content.push(result)
                    }
                    _ => out.push(RigMessage::User {
                        content: vec![result],
                    }),
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::Pairs;

    fn call(id: &str, name: &str, arguments: Value) -> AssistantContent {
        let function = ToolFunction::new(ToolName::new(name).unwrap(), arguments);
        AssistantContent::ToolCall(rig_core::message::ToolCall::new(CallId::from_wire(id), function))
    }

    fn result(id: &str, name: &str, text: &str) -> UserContent {
        UserContent::tool_result(
            CallId::from_wire(id),
            ToolName::new(name).unwrap(),
            vec![ToolResultContent::text(text)],
        )
    }

    /// A tool-using turn with reasoning goes to Strata and back unchanged:
    /// calls paired with their results, two results in one user message.
    #[test]
    fn a_tool_turn_goes_there_and_back() {
        let history = vec![
            RigMessage::system("You are a coding agent."),
            RigMessage::user("Compare a.rs and b.rs."),
            RigMessage::Assistant(AssistantMessage::new(vec![
                AssistantContent::Reasoning(Reasoning::new("Read both.")),
                AssistantContent::text("Reading them."),
                call("call_1", "Read", json!({"path": "a.rs"})),
                call("call_2", "Read", json!({"path": "b.rs"})),
            ])),
            RigMessage::User {
                content: vec![
                    result("call_1", "Read", "fn a() {}"),
                    result("call_2", "Read", "fn b() {}"),
                ],
            },
            RigMessage::assistant("They differ in one name."),
        ];
        let messages = from_rig(&history);
        let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::System,
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Tool,
                Role::Assistant
            ]
        );
        assert!(Pairs::new(&messages).is_complete());
        assert_eq!(messages[2].tool_calls[1].arguments["path"], "b.rs");
        assert_eq!(messages[4].tool_call_id.as_deref(), Some("call_2"));
        assert!(
            matches!(&messages[2].thinking[..], [ThinkingBlock::Thinking { thinking, .. }] if thinking == "Read both.")
        );
        assert_eq!(to_rig(&messages).unwrap(), history);
    }

    /// A user message's results come before its text; media and opaque
    /// blocks are left out; a failed result stays failed both ways.
    #[test]
    fn results_text_media_and_failures() {
        let mut failed = result("c1", "Bash", "exit 1");
        if let UserContent::ToolResult(r) = &mut failed {
            r.is_error = true;
        }
        let history = vec![
            RigMessage::Assistant(AssistantMessage::new(vec![call(
                "c1",
                "Bash",
                json!({"command": "make"}),
            )])),
            RigMessage::User {
                content: vec![
                    UserContent::text("Also look at this:"),
                    UserContent::image_url("https://example.com/a.png", None, None),
                    failed,
                ],
            },
        ];
        let messages = from_rig(&history);
        assert_eq!(messages.len(), 3);
        assert_eq!((messages[1].role, messages[2].role), (Role::Tool, Role::User));
        assert_eq!(
            messages[1].result.as_ref().map(|r| r.status),
            Some(ResultStatus::Error)
        );
        assert_eq!(messages[2].text(), "Also look at this:");
        let back = to_rig(&messages).unwrap();
        let RigMessage::User { content } = &back[1] else {
            panic!("{back:?}")
        };
        assert!(matches!(&content[0], UserContent::ToolResult(r) if r.is_error));
    }

    /// Arguments rig could not read as JSON are kept as their text.
    #[test]
    fn unreadable_arguments_are_kept_as_text() {
        let turn = RigMessage::Assistant(AssistantMessage::new(vec![call(
            "c1",
            "Read",
            json!("{\"path\": \"a"),
        )]));
        let messages = from_rig(&[turn]);
        assert_eq!(*messages[0].tool_calls[0].arguments, json!("{\"path\": \"a"));
    }

    #[test]
    fn a_nameless_tool_is_an_error() {
        let call = ToolCall::new("c1", "", json!({}));
        let messages = [Message::assistant_with_calls("", vec![call])];
        assert!(matches!(to_rig(&messages), Err(Error::NamelessTool { index: 0 })));
        let orphan = [Message::tool_text("c1", "", "x")];
        assert!(matches!(to_rig(&orphan), Err(Error::NamelessTool { index: 0 })));
    }
}

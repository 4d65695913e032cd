//! Strata's messages to and from [`async-openai`]'s chat request messages,
//! so that an agent built on `async-openai` hands its history to Strata
//! and takes the window back in one call each.
//!
//! Both directions go through the chat-completions format that both
//! crates speak: the messages are read as Strata reads any OpenAI chat
//! history ([`strata_ctx_wire::chat::from_openai_messages`]), and a window
//! is written as Strata renders it for the chat API
//! ([`strata_ctx_prompt::openai_messages`]: summaries as `system`
//! messages, arguments as JSON text, call ids the API takes).
//!
//! ```
//! use async_openai::types::chat::{
//!     ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
//!     ChatCompletionRequestUserMessage,
//! };
//! use strata_ctx_async_openai::{from_async_openai, to_async_openai};
//! use strata_ctx_core::Role;
//!
//! let history: Vec<ChatCompletionRequestMessage> = vec![
//!     ChatCompletionRequestSystemMessage::from("You are a coding agent.").into(),
//!     ChatCompletionRequestUserMessage::from("What does src/lib.rs export?").into(),
//! ];
//! let messages = from_async_openai(&history)?;
//! assert_eq!(messages[1].role, Role::User);
//! // … the engine's window, as `window.messages()` …
//! let back = to_async_openai(&messages)?;
//! assert_eq!(back, history);
//! # Ok::<(), strata_ctx_async_openai::Error>(())
//! ```
//!
//! [`async-openai`]: https://docs.rs/async-openai
#![deny(missing_docs)]

use async_openai::types::chat::ChatCompletionRequestMessage;
use strata_ctx_core::Message;

/// Why messages could not be carried across.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `async-openai`'s messages did not serialise.
    #[error("the async-openai messages did not serialise: {0}")]
    Serialize(#[source] serde_json::Error),
    /// Strata could not read a message (a tool call without a name, …).
    #[error("a message could not be read: {0}")]
    Read(#[source] strata_ctx_core::Error),
    /// A rendered message is not one `async-openai` reads.
    #[error("a message is not one async-openai reads: {0}")]
    Write(#[source] serde_json::Error),
}

/// `messages`, an agent's history in `async-openai`'s types, as Strata's
/// messages (hand them to `EngineBuilder::messages`). System and
/// developer messages are system messages, an assistant's `tool_calls`
/// its calls, a `tool` message the result of the call it names; text
/// parts are joined and other parts (images, audio) left out.
///
/// # Errors
///
/// [`Error::Serialize`] or [`Error::Read`], naming the message.
pub fn from_async_openai(messages: &[ChatCompletionRequestMessage]) -> Result<Vec<Message>, Error> {
    let value = serde_json::to_value(messages).map_err(Error::Serialize)?;
    strata_ctx_wire::chat::from_openai_messages(&value).map_err(Error::Read)
}

/// `messages` (a window's, from `Window::messages`) as `async-openai`'s
/// chat request messages, ready for a `CreateChatCompletionRequest`.
///
/// # Errors
///
/// [`Error::Write`] when a rendered message is not one `async-openai`
/// reads; Strata's renderings are, so this points to a version mismatch.
pub fn to_async_openai(messages: &[Message]) -> Result<Vec<ChatCompletionRequestMessage>, Error> {
    let value = strata_ctx_prompt::openai_messages(messages);
    serde_json::from_value(value).map_err(Error::Write)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use strata_ctx_core::{Pairs, Role};

    fn messages(value: Value) -> Vec<ChatCompletionRequestMessage> {
        serde_json::from_value(value).unwrap()
    }

    /// A tool-using history goes to Strata and back unchanged, but for a
    /// call id over the API's 40 bytes, which is mapped for the call and
    /// its result alike.
    #[test]
    fn a_tool_history_goes_there_and_back() {
        let long = "chatcmpl-tool-0123456789abcdef0123456789abcdef";
        let history = json!([
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "Compare a.rs and b.rs."},
            {"role": "assistant", "content": "Reading them.", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": "{\"path\":\"a.rs\"}"}},
                {"id": long, "type": "function", "function": {"name": "Read", "arguments": "{\"path\":\"b.rs\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "fn a() {}"},
            {"role": "tool", "tool_call_id": long, "content": "fn b() {}"},
            {"role": "assistant", "content": "They differ in one name."}
        ]);
        let ours = from_async_openai(&messages(history.clone())).unwrap();
        let roles: Vec<Role> = ours.iter().map(|m| m.role).collect();
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
        assert!(Pairs::new(&ours).is_complete());
        assert_eq!(ours[2].tool_calls[1].id, long, "Strata keeps the model's id");
        let back = serde_json::to_value(to_async_openai(&ours).unwrap()).unwrap();
        let mapped = back[2]["tool_calls"][1]["id"].as_str().unwrap();
        assert!(mapped.len() <= 40 && mapped != long);
        assert_eq!(back[4]["tool_call_id"], mapped);
        let mut expected = history;
        expected[2]["tool_calls"][1]["id"] = json!(mapped);
        expected[4]["tool_call_id"] = json!(mapped);
        assert_eq!(back, expected);
    }

    /// A summary goes out as a system message under its heading; text
    /// parts are joined on the way in.
    #[test]
    fn summaries_and_parts() {
        let out = to_async_openai(&[strata_ctx_core::Message::summary("We fixed the parser.")]).unwrap();
        let value = serde_json::to_value(&out).unwrap();
        assert_eq!(value[0]["role"], "system");
        assert!(value[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("## Archived History Summary"));
        let parts = json!([{"role": "user", "content": [
            {"type": "text", "text": "first"}, {"type": "text", "text": "second"}
        ]}]);
        let ours = from_async_openai(&messages(parts)).unwrap();
        assert!(ours[0].text().contains("first") && ours[0].text().contains("second"));
    }

    /// The deprecated `function` role reads as a tool message naming its
    /// function, and a developer message as a system one.
    #[test]
    fn function_and_developer_messages() {
        let old = json!([
            {"role": "developer", "content": "Be brief."},
            {"role": "function", "name": "Read", "content": "fn a() {}"}
        ]);
        let ours = from_async_openai(&messages(old)).unwrap();
        assert_eq!(ours[0].role, Role::System);
        assert_eq!(ours[1].role, Role::Tool);
        assert_eq!(ours[1].tool_name.as_deref(), Some("Read"));
    }
}

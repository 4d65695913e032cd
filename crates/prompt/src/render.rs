//! The three renderings of a window (CTX-4).

use std::borrow::{Borrow, Cow};

use serde_json::{json, Value};
use strata_ctx_core::{Message, Provider, ResultStatus, Role, ThinkingBlock, ToolCall};
use strata_ctx_wire::anthropic::{
    tool_use_id, Block, CacheControl, Conversation, MessageParam, Part, ResultContent, Role as Speaker,
};
use strata_ctx_wire::chat::{call_id, ChatContent, ChatMessage, ChatToolCall};

use crate::layers::{react_block, recap_text, Context};

/// The heading a summary is rendered under (CTX-4).
pub const SUMMARY_HEADING: &str = "## Archived History Summary";

/// A summary's text as the model reads it: under [`SUMMARY_HEADING`],
/// unless it starts with it already.
fn summary_text(m: &Message) -> String {
    let text = m.text();
    let text = text.trim();
    if text.starts_with(SUMMARY_HEADING) {
        text.to_owned()
    } else {
        format!("{SUMMARY_HEADING}\n\n{text}")
    }
}

/// Arguments as the JSON text of a call: a string argument (arguments that
/// were not JSON, or were cut to save tokens) is written as it is.
pub fn arguments_text(call: &ToolCall) -> Cow<'_, str> {
    match &*call.arguments {
        Value::String(s) => Cow::Borrowed(s),
        // `serde_json::to_string` writes bytes straight to a buffer, where
        // `Value`'s `Display` goes through a formatter.
        other => Cow::Owned(serde_json::to_string(other).unwrap_or_default()),
    }
}

/// An assistant message in the ReAct format: the thought, then one
/// `Action:` line per call, or `Action: Finish[…]` when it calls nothing.
fn react_assistant(m: &Message) -> String {
    let thought = m.content.trim();
    let mut out = String::new();
    if m.tool_calls.is_empty() {
        return format!("Action: Finish[{thought}]");
    }
    if !thought.is_empty() {
        out.push_str("Thought: ");
        out.push_str(thought);
        out.push('\n');
    }
    for (i, call) in m.tool_calls.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("Action: {}[{}]", call.name, arguments_text(call)));
    }
    out
}

impl Context {
    /// The window as ReAct text (REACT-1): one block per message,
    /// `[role] body`, separated by blank lines. Assistant steps read
    /// `Thought: …` / `Action: Tool[{json}]`, a final answer
    /// `Action: Finish[answer]`, tool results `[tool] <envelope JSON>`,
    /// summaries `[system] ## Archived History Summary …`.
    ///
    /// The first [`Prefix::bytes`](crate::Prefix::bytes) bytes are L1 and
    /// L2 (CTX-3).
    pub fn render_react(&self) -> String {
        let mut out = react_block("system", self.system().text());
        if let Some(rules) = self.rules() {
            out.push_str(&react_block("system", rules));
        }
        let body = self.history().iter().chain(self.input()).chain(self.scratchpad());
        for m in body {
            let hint = self.hint(m);
            let text = match (m.role, hint) {
                (Role::Summary, _) => react_block("system", &summary_text(m)),
                (Role::Assistant, None) => react_block("assistant", &react_assistant(m)),
                // After the action, not inside the thought or the answer.
                (Role::Assistant, Some(hint)) => {
                    react_block("assistant", &format!("{}\n\n{hint}", react_assistant(m)))
                }
                (role, None) => react_block(role.as_str(), &m.text()),
                (role, Some(hint)) => react_block(role.as_str(), &format!("{}\n\n{hint}", m.text())),
            };
            out.push_str(&text);
        }
        for (_, text) in self.tail() {
            out.push_str(&react_block("user", &text));
        }
        // One newline at the end, not a blank line.
        while out.ends_with("\n\n") {
            out.pop();
        }
        out
    }

    /// The window as OpenAI chat-completions `messages` (CTX-4): L1, L2
    /// and summaries as `system` messages (a summary's content starts
    /// `## Archived History Summary`), calls as `tool_calls` with their
    /// arguments as a JSON string, results as `role: "tool"` messages
    /// naming their `tool_call_id`, the recap as a `user` message.
    pub fn to_openai(&self) -> Value {
        let mut out = Vec::with_capacity(self.len());
        // A message always converts to a value.
        let _ = self.try_for_each_chat_message(|m| {
            out.push(serde_json::to_value(m)?);
            Ok::<(), serde_json::Error>(())
        });
        Value::Array(out)
    }

    /// The window as an Anthropic Messages request body without the model
    /// settings (CTX-4): `{"system": [blocks], "messages": [...]}`.
    ///
    /// `system` holds L1 and L2 as text blocks, the last of them marked
    /// with `cache_control` (the end of the stable prefix, CTX-3), then
    /// the summaries, folded into the system text as blocks starting
    /// `## Archived History Summary` (they precede every message, so the
    /// order of CTX-1 is kept). A `system` notice inside the scratchpad
    /// becomes a user text block inside `<system-reminder>` tags. Calls become `tool_use` blocks, results
    /// `tool_result` blocks in a `user` message (`is_error` when the status
    /// is `error`), the recap a text block. Consecutive messages of the
    /// same role are merged into one, as the API requires; a window whose
    /// first message would be the assistant's gets a leading user block
    /// `(conversation continues)`. Empty text blocks are left out.
    pub fn to_anthropic(&self) -> Value {
        let mut prefix = vec![self.system().text()];
        prefix.extend(self.rules());
        let tail = self
            .tail()
            .map(|(_, text)| Cow::Owned(Message::user(text).with_created_at(None)));
        let body: Vec<Cow<'_, Message>> = self.body().chain(tail).collect();
        serde_json::to_value(conversation(&prefix, &body)).unwrap_or_default()
    }
}

/// A list of messages as the Anthropic Messages body without the model
/// settings, `{"system": [blocks], "messages": [...]}`, rendered as
/// [`Context::to_anthropic`] renders the window's; see
/// [`anthropic_conversation`] for the rules.
///
/// ```
/// use strata_ctx_prompt::anthropic_messages;
/// use strata_ctx_core::Message;
///
/// let v = anthropic_messages(&[Message::system("Be brief."), Message::user("Hi")]);
/// assert_eq!(v["system"][0]["cache_control"]["type"], "ephemeral");
/// assert_eq!(v["messages"][0]["content"][0]["text"], "Hi");
/// ```
pub fn anthropic_messages(messages: &[Message]) -> Value {
    serde_json::to_value(anthropic_conversation(messages)).unwrap_or_default()
}

/// A list of messages as the Anthropic Messages conversation, typed: the
/// leading `system` messages (L1 and L2) are the system blocks, the last
/// of them marked with `cache_control` (the end of the stable prefix,
/// CTX-3); summaries follow as system blocks; a later `system` message
/// becomes a user block inside `<system-reminder>` tags.
///
/// The reasoning blocks of the assistant messages after the last user
/// message (the round in progress) are sent first in their message, as
/// the API requires during a tool loop; earlier ones are left out, as
/// the API drops them anyway.
///
/// This is what a client for the Anthropic Messages API sends for the
/// messages of an [`LlmRequest`](strata_ctx_core::LlmRequest).
///
/// ```
/// use strata_ctx_prompt::anthropic_conversation;
/// use strata_ctx_core::Message;
///
/// let messages = [Message::system("Be brief."), Message::user("Hi")];
/// let conversation = anthropic_conversation(&messages);
/// assert_eq!(conversation.system.len(), 1);
/// assert_eq!(conversation.messages.len(), 1);
/// ```
pub fn anthropic_conversation(messages: &[Message]) -> Conversation<'_> {
    let lead = messages.iter().take_while(|m| m.role == Role::System).count();
    let prefix: Vec<&str> = messages[..lead].iter().map(|m| m.content.as_str()).collect();
    conversation(&prefix, &messages[lead..])
}

fn conversation<'a, M: Borrow<Message>>(prefix: &[&'a str], body: &'a [M]) -> Conversation<'a> {
    let mut system: Vec<Block<'a>> = prefix
        .iter()
        .filter(|t| !t.trim().is_empty())
        .map(|t| Block::text(*t))
        .collect();
    if let Some(Block::Text { cache_control, .. }) = system.last_mut() {
        *cache_control = Some(CacheControl::EPHEMERAL);
    }
    // The round in progress: after the user message that precedes the
    // last assistant message (a recap may follow that as a user message).
    let last_answer = body.iter().rposition(|m| m.borrow().role == Role::Assistant);
    let current_round = last_answer
        .and_then(|end| body[..end].iter().rposition(|m| m.borrow().role == Role::User))
        .map_or(0, |i| i + 1);
    let mut messages: Vec<MessageParam<'a>> = Vec::new();
    for (i, m) in body.iter().enumerate() {
        let m: &'a Message = m.borrow();
        match m.role {
            Role::Summary => system.push(Block::text(summary_text(m))),
            // A notice inside the conversation: the API has no system
            // role there.
            Role::System => push(&mut messages, Speaker::User, text_block(recap_text(&m.text()))),
            Role::User => push(&mut messages, Speaker::User, text_block(m.text())),
            Role::Assistant => {
                // The provider's own blocks first (MODEL-7): a compaction
                // block stands for everything before it.
                let mut blocks: Vec<Part<'a>> = m
                    .provider_items
                    .iter()
                    .filter(|item| item.provider == Provider::Anthropic)
                    .map(|item| Part::Verbatim(Cow::Borrowed(&item.item)))
                    .collect();
                if i >= current_round {
                    blocks.extend(m.thinking.iter().filter_map(thinking_block));
                }
                blocks.extend(text_block(m.content.as_str()));
                blocks.extend(m.tool_calls.iter().map(|c| {
                    Part::Block(Block::ToolUse {
                        id: Some(tool_use_id(&c.id)),
                        name: Some(Cow::Borrowed(&c.name)),
                        input: Some(tool_input(&c.arguments)),
                        cache_control: None,
                    })
                }));
                push(&mut messages, Speaker::Assistant, blocks);
            }
            Role::Tool => {
                let failed = m.result.as_ref().is_some_and(|r| r.status == ResultStatus::Error);
                push(
                    &mut messages,
                    Speaker::User,
                    vec![Part::Block(Block::ToolResult {
                        tool_use_id: tool_use_id(m.tool_call_id.as_deref().unwrap_or_default()),
                        content: Some(ResultContent::Text(m.text())),
                        is_error: failed.then_some(true),
                        cache_control: None,
                    })],
                );
            }
        }
    }
    if messages.first().is_some_and(|m| m.role == Speaker::Assistant) {
        messages.insert(
            0,
            MessageParam {
                content: text_block("(conversation continues)"),
                role: Speaker::User,
            },
        );
    }
    Conversation { messages, system }
}

/// Appends `blocks` to the last message when it has `role` (the API
/// wants roles to alternate), else as a new message; nothing for none.
fn push<'a>(messages: &mut Vec<MessageParam<'a>>, role: Speaker, blocks: Vec<Part<'a>>) {
    if blocks.is_empty() {
        return;
    }
    match messages.last_mut() {
        Some(last) if last.role == role => last.content.extend(blocks),
        _ => messages.push(MessageParam {
            content: blocks,
            role,
        }),
    }
}

/// A reasoning block as the API takes it back: signed thinking and
/// redacted thinking; unsigned reasoning (another provider's) is left out.
fn thinking_block(block: &ThinkingBlock) -> Option<Part<'_>> {
    match block {
        ThinkingBlock::Thinking { signature, .. } if signature.is_empty() => None,
        ThinkingBlock::Thinking { thinking, signature } => Some(Part::Block(Block::Thinking {
            thinking: Cow::Borrowed(thinking),
            signature: Cow::Borrowed(signature),
        })),
        ThinkingBlock::RedactedThinking { data } => Some(Part::Block(Block::RedactedThinking {
            data: Cow::Borrowed(data),
        })),
    }
}

fn text_block<'a>(text: impl Into<Cow<'a, str>>) -> Vec<Part<'a>> {
    let text = text.into();
    if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![Part::Block(Block::text(text))]
    }
}

/// A `tool_use` input must be an object: anything else is wrapped.
fn tool_input(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::Null => json!({}),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            _ => json!({ "input": s }),
        },
        other => json!({ "input": other }),
    }
}

/// A list of messages as OpenAI chat-completions `messages`, each rendered
/// as [`Context::to_openai`] renders the window's: summaries as `system`
/// messages under [`SUMMARY_HEADING`], calls as `tool_calls` with their
/// arguments as a JSON string, results as `role: "tool"` messages.
///
/// This is what a client for an OpenAI-compatible endpoint sends for the
/// messages of an [`LlmRequest`](strata_ctx_core::LlmRequest).
///
/// ```
/// use strata_ctx_prompt::openai_messages;
/// use strata_ctx_core::Message;
///
/// let v = openai_messages(&[Message::system("Be brief."), Message::summary("We fixed the parser.")]);
/// assert_eq!(v[0]["role"], "system");
/// assert_eq!(v[1]["content"], "## Archived History Summary\n\nWe fixed the parser.");
/// ```
pub fn openai_messages(messages: &[Message]) -> Value {
    serde_json::to_value(OpenAiMessages(messages)).unwrap_or_default()
}

/// The chat-completions message `m` is rendered as: a summary as a system
/// message under [`SUMMARY_HEADING`], an assistant's calls with their
/// arguments as JSON text and its content `null` when it has no thought,
/// a tool message with the call it answers.
pub fn chat_message(m: &Message) -> ChatMessage<'_> {
    let mut out = ChatMessage::text(m.role.as_str(), m.text());
    match m.role {
        Role::Summary => {
            out.content = Some(ChatContent::Text(Cow::Owned(summary_text(m))));
            out.role = Cow::Borrowed("system");
        }
        Role::Assistant if !m.tool_calls.is_empty() => {
            out.content =
                (!m.content.is_empty()).then_some(ChatContent::Text(Cow::Borrowed(m.content.as_str())));
            let calls = m.tool_calls.iter();
            out.tool_calls = Some(
                calls
                    .map(|c| ChatToolCall::function(&c.id, &c.name, arguments_text(c)))
                    .collect(),
            );
        }
        Role::Tool => out.tool_call_id = Some(call_id(m.tool_call_id.as_deref().unwrap_or_default())),
        _ => {}
    }
    out
}

/// [`openai_messages`] as a value that serialises itself, straight from
/// the borrowed messages: the same JSON, byte for byte, without building a
/// [`Value`] tree first. Give it to `serde_json::to_writer` (or embed it in
/// a request body) where the messages are sent.
///
/// ```
/// use strata_ctx_core::Message;
/// use strata_ctx_prompt::{openai_messages, OpenAiMessages};
///
/// let messages = [Message::system("Be brief."), Message::user("Hi!")];
/// let fast = serde_json::to_string(&OpenAiMessages(&messages))?;
/// assert_eq!(fast, serde_json::to_string(&openai_messages(&messages))?);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct OpenAiMessages<'a>(pub &'a [Message]);

impl serde::Serialize for OpenAiMessages<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(chat_message))
    }
}

impl OpenAiMessages<'_> {
    /// Writes the messages as a JSON array to `w`, as
    /// `serde_json::to_writer(w, self)` does.
    ///
    /// # Errors
    ///
    /// Whatever writing to `w` returns.
    ///
    /// ```
    /// use serde_json::json;
    /// use strata_ctx_core::{Message, ToolCall};
    /// use strata_ctx_prompt::OpenAiMessages;
    ///
    /// let call = ToolCall::new("c1", "Read", json!({"path": "a \"b\".rs"}));
    /// let messages = [Message::user("Hi!"), Message::assistant_with_calls("", vec![call])];
    /// let mut out = Vec::new();
    /// OpenAiMessages(&messages).write_json(&mut out)?;
    /// assert_eq!(out, serde_json::to_vec(&OpenAiMessages(&messages))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_json<W: std::io::Write>(&self, w: W) -> std::io::Result<()> {
        serde_json::to_writer(w, self).map_err(std::io::Error::from)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::SystemLayer;
    use strata_ctx_core::ToolResult;

    /// A call and its (failed) result.
    pub(crate) fn step() -> (Message, Message) {
        let call = ToolCall::new("c1", "Read", json!({"path": "a.rs"}));
        let result = Message::tool_result(&call, ToolResult::error("not_found", "no such file"));
        (Message::assistant_with_calls("look", vec![call]), result)
    }

    #[test]
    fn ctx_4_anthropic_merges_results_and_marks_errors() {
        let (a, r) = step();
        let c = Context::new(SystemLayer::new("s"))
            .with_history(vec![Message::summary("old"), a.clone(), r.clone()])
            .with_input(Message::user("next"))
            .with_recap(Some("[Todo recap] 1 done".into()));
        let v = c.to_anthropic();
        let messages = v["messages"].as_array().unwrap();
        // leading user block, assistant, user(tool_result + input + recap)
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[0]["content"][0]["text"], "(conversation continues)");
        assert_eq!(messages[1]["content"][1]["type"], "tool_use");
        let user = messages[2]["content"].as_array().unwrap();
        assert_eq!(user[0]["type"], "tool_result");
        assert_eq!(user[0]["is_error"], true);
        assert_eq!(user[1]["text"], "next");
        assert!(user[2]["text"].as_str().unwrap().contains("[Todo recap]"));
        let system = v["system"].as_array().unwrap();
        assert_eq!(system[0]["cache_control"]["type"], "ephemeral");
        assert!(system[1]["text"].as_str().unwrap().starts_with(SUMMARY_HEADING));
    }

    /// HIST-10: hints on every message the model may name, in every
    /// rendering; none on summaries, none in the prefix.
    #[test]
    fn hist_10_id_hints_in_every_rendering() {
        let (a, r) = step();
        let summary = Message::summary("old");
        let input = Message::user("next");
        let ids = strata_ctx_core::ShortIds::new([summary.id, a.id, r.id, input.id]);
        let hint = |m: &Message| format!("[message_id: {}]", ids.short(&m.id).unwrap());
        let plain = Context::new(SystemLayer::new("s"))
            .with_history(vec![summary.clone(), a.clone(), r.clone()])
            .with_input(input.clone());
        let c = plain.clone().with_id_hints(Some(ids.clone()));
        assert_eq!(c.prefix(), plain.prefix());

        let react = c.render_react();
        for m in [&a, &r, &input] {
            assert_eq!(react.matches(&hint(m)).count(), 1, "{react}");
        }
        assert!(!react.contains(&hint(&summary)));
        assert!(
            react.contains("Action: Read[{\"path\":\"a.rs\"}]\n\n[message_id: "),
            "{react}"
        );

        let openai = c.to_openai().to_string();
        let anthropic = c.to_anthropic().to_string();
        let messages: String = c.messages().iter().map(|m| m.text().into_owned()).collect();
        for text in [&openai, &anthropic, &messages] {
            for m in [&a, &r, &input] {
                assert_eq!(text.matches(&hint(m)).count(), 1, "{text}");
            }
            assert!(!text.contains(&hint(&summary)));
        }
        // The result keeps its envelope before the hint, and its status.
        assert!(anthropic.contains("\"is_error\":true"));
        assert!(messages.contains("\"status\":\"error\""), "{messages}");
        assert!(!plain.render_react().contains("[message_id:"));
    }

    #[test]
    fn ctx_4_openai_arguments_are_strings() {
        let (a, r) = step();
        let v = Context::new(SystemLayer::new("s"))
            .with_scratchpad(vec![a, r])
            .to_openai();
        assert_eq!(
            v[1]["tool_calls"][0]["function"]["arguments"],
            "{\"path\":\"a.rs\"}"
        );
        assert_eq!(v[2]["role"], "tool");
        assert_eq!(v[2]["tool_call_id"], "c1");
    }

    #[test]
    fn ctx_4_summary_heading_is_not_doubled() {
        let once = Context::new(SystemLayer::new("s")).with_history(vec![Message::summary("old")]);
        let twice = Context::new(SystemLayer::new("s"))
            .with_history(vec![Message::summary(format!("{SUMMARY_HEADING}\n\nold"))]);
        assert_eq!(once.render_react(), twice.render_react());
        assert_eq!(
            once.to_openai()[1]["content"],
            format!("{SUMMARY_HEADING}\n\nold")
        );
    }

    #[test]
    fn tool_input_is_always_an_object() {
        assert_eq!(tool_input(&json!("{\"a\":1}")), json!({"a": 1}));
        assert_eq!(tool_input(&json!("{\"a\":1…")), json!({"input": "{\"a\":1…"}));
        assert_eq!(tool_input(&json!([1])), json!({"input": [1]}));
        assert_eq!(tool_input(&Value::Null), json!({}));
    }

    #[test]
    fn react_final_answer_and_parallel_calls() {
        let calls = vec![
            ToolCall::new("1", "Glob", json!({"pattern": "*.rs"})),
            ToolCall::new("2", "Grep", json!({"pattern": "fn"})),
        ];
        let c = Context::new(SystemLayer::new("s")).with_history(vec![
            Message::assistant_with_calls("both", calls),
            Message::assistant("done"),
        ]);
        let text = c.render_react();
        assert!(text.contains(
            "[assistant] Thought: both\nAction: Glob[{\"pattern\":\"*.rs\"}]\nAction: Grep[{\"pattern\":\"fn\"}]"
        ));
        assert!(text.ends_with("[assistant] Action: Finish[done]\n"));
    }
}

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

    /// Gives `f` each message of [`Context::to_openai`] in order, borrowed
    /// from the window rather than built as a [`Value`]: the walk to
    /// render, hash or count a window's messages without copying them.
    /// Stops at the first error `f` returns.
    ///
    /// # Errors
    ///
    /// The first error `f` returns.
    ///
    /// ```
    /// use strata_ctx_core::Message;
    /// use strata_ctx_prompt::{Context, SystemLayer};
    ///
    /// let window = Context::new(SystemLayer::new("Be brief.")).with_input(Message::user("Hi!"));
    /// let mut roles = Vec::new();
    /// window.try_for_each_chat_message(|m| {
    ///     roles.push(m.role.to_string());
    ///     Ok::<(), std::convert::Infallible>(())
    /// })?;
    /// assert_eq!(roles, ["system", "user"]);
    /// # Ok::<(), std::convert::Infallible>(())
    /// ```
    pub fn try_for_each_chat_message<E>(
        &self,
        f: impl FnMut(&ChatMessage<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.try_for_each_chat_message_from(0, f)
    }

    /// [`Context::try_for_each_chat_message`] from the message at `from`
    /// on: the messages before it are passed over without being looked at,
    /// so that what a later window adds costs what it adds (see
    /// [`Context::unchanged_since`]).
    ///
    /// # Errors
    ///
    /// The first error `f` returns.
    pub fn try_for_each_chat_message_from<E>(
        &self,
        from: usize,
        mut f: impl FnMut(&ChatMessage<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut at = 0;
        let mut each = |at: &mut usize, m: ChatMessage<'_>| {
            let due = *at >= from;
            *at += 1;
            if due {
                f(&m)
            } else {
                Ok(())
            }
        };
        each(&mut at, ChatMessage::text("system", self.system().text()))?;
        if let Some(rules) = self.rules() {
            each(&mut at, ChatMessage::text("system", rules))?;
        }
        // The body is walked from the first message due.
        let skip = from.saturating_sub(at);
        at += skip.min(self.body_len());
        for m in self.body_from(skip) {
            each(&mut at, chat_message(&m))?;
        }
        for (_, text) in self.tail() {
            each(&mut at, ChatMessage::text("user", text))?;
        }
        Ok(())
    }

    /// Where this window's chat messages stand ([`ChatMarks`]), to tell
    /// how many of them a later window holds unchanged.
    pub fn chat_marks(&self) -> ChatMarks {
        ChatMarks {
            system: self.system().text().to_owned(),
            rules: self.rules().map(str::to_owned),
            history: (self.history_run().name(), self.history().len()),
            input: self
                .input()
                .map(|m| serde_json::to_vec(&chat_message(m)).unwrap_or_default()),
            scratchpad: (self.scratchpad_run().name(), self.scratchpad().len()),
            alone: self.renders_alone(),
        }
    }

    /// How many of this window's leading chat messages (as
    /// [`Context::to_openai`] lists them) are, unchanged, those of the
    /// window `earlier` marks: its L1 and L2, then the history while it
    /// continues the same run, then the input and the scratchpad while
    /// those are the same. 0 when either window shows id hints, since a
    /// hint can change as the window grows.
    ///
    /// ```
    /// use strata_ctx_core::{Message, MessageRun};
    /// use strata_ctx_prompt::{Context, SystemLayer};
    ///
    /// let mut steps = MessageRun::new(vec![Message::assistant("looking")]);
    /// let window = |steps: &MessageRun| {
    ///     Context::new(SystemLayer::new("Be brief."))
    ///         .with_input(Message::user("fix it").with_created_at(None))
    ///         .with_scratchpad_run(steps.clone())
    /// };
    /// let marks = window(&steps).chat_marks();
    /// steps.extend([Message::assistant("found it")]);
    /// // L1, the input and the first step are the same; the new step is not.
    /// assert_eq!(window(&steps).unchanged_since(&marks), 3);
    /// ```
    pub fn unchanged_since(&self, earlier: &ChatMarks) -> usize {
        self.chat_marks().unchanged_since(earlier)
    }

    /// Writes [`Context::to_openai`] to `w` as JSON, byte for byte what
    /// `serde_json::to_writer(w, &context.to_openai())` writes, without
    /// building the [`Value`] or copying a message.
    ///
    /// # Errors
    ///
    /// Whatever writing to `w` returns.
    ///
    /// ```
    /// use strata_ctx_core::Message;
    /// use strata_ctx_prompt::{Context, SystemLayer};
    ///
    /// let window = Context::new(SystemLayer::new("Be brief.")).with_input(Message::user("Hi!"));
    /// let mut out = Vec::new();
    /// window.write_openai(&mut out)?;
    /// assert_eq!(out, serde_json::to_vec(&window.to_openai())?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_openai<W: std::io::Write>(&self, mut w: W) -> std::io::Result<()> {
        let mut first = true;
        w.write_all(b"[")?;
        self.try_for_each_chat_message(|m| {
            if !std::mem::take(&mut first) {
                w.write_all(b",")?;
            }
            serde_json::to_writer(&mut w, m).map_err(std::io::Error::from)
        })?;
        w.write_all(b"]")
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

/// Where a window's chat messages stand ([`Context::chat_marks`]): its L1
/// and L2, the runs of its history and scratchpad by name and length, and
/// its input, so that a later window can tell how many of its leading
/// messages are the same ([`Context::unchanged_since`]) without comparing
/// them (REL-3).
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMarks {
    system: String,
    rules: Option<String>,
    history: (u64, usize),
    /// The input as rendered.
    input: Option<Vec<u8>>,
    scratchpad: (u64, usize),
    alone: bool,
}

impl ChatMarks {
    /// [`Context::unchanged_since`], with these the marks of the later
    /// window.
    pub fn unchanged_since(&self, earlier: &ChatMarks) -> usize {
        let continues = |(name, len): (u64, usize), (earlier_name, earlier_len): (u64, usize)| {
            earlier_len == 0 || (name == earlier_name && len >= earlier_len)
        };
        if !(self.alone && earlier.alone) || self.system != earlier.system || self.rules != earlier.rules {
            return 0;
        }
        let prefix = 1 + usize::from(self.rules.is_some());
        if !continues(self.history, earlier.history) {
            return prefix;
        }
        let history_end = prefix + earlier.history.1;
        if self.history.1 != earlier.history.1 || self.input != earlier.input {
            return history_end;
        }
        let scratchpad_at = history_end + usize::from(self.input.is_some());
        if !continues(self.scratchpad, earlier.scratchpad) {
            return scratchpad_at;
        }
        scratchpad_at + earlier.scratchpad.1
    }
}

/// Writes windows one after another as the chat API's `messages`, a JSON
/// array: the messages a window holds unchanged since the previous one
/// ([`Context::unchanged_since`]) are copied as they were written, and
/// only the rest is rendered, so that an agent's step costs what the step
/// added (REL-3). The bytes are those of [`Context::write_openai`].
///
/// ```
/// use strata_ctx_core::{Message, MessageRun};
/// use strata_ctx_prompt::{ChatWriter, Context, SystemLayer};
///
/// let mut steps = MessageRun::new(vec![Message::assistant("looking")]);
/// let window = |steps: &MessageRun| {
///     Context::new(SystemLayer::new("Be brief.")).with_scratchpad_run(steps.clone())
/// };
/// let mut writer = ChatWriter::new();
/// writer.write(&window(&steps));
/// steps.extend([Message::assistant("found it")]);
/// let body = writer.write(&window(&steps)).to_vec();
/// let mut whole = Vec::new();
/// window(&steps).write_openai(&mut whole)?;
/// assert_eq!(body, whole);
/// assert_eq!(writer.rendered(), 1, "only the new step was rendered");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Default, Clone)]
pub struct ChatWriter {
    /// `[`, then each message followed by `,`; the last `,` is the `]`.
    bytes: Vec<u8>,
    /// Where each message ends in `bytes`.
    ends: Vec<usize>,
    marks: Option<ChatMarks>,
    rendered: usize,
}

impl ChatWriter {
    /// A writer that has written nothing yet.
    pub fn new() -> Self {
        ChatWriter::default()
    }

    /// `window`'s messages as a JSON array.
    pub fn write(&mut self, window: &Context) -> &[u8] {
        let marks = window.chat_marks();
        let kept = self
            .marks
            .as_ref()
            .map_or(0, |earlier| marks.unchanged_since(earlier))
            .min(self.ends.len());
        self.ends.truncate(kept);
        match self.ends.last() {
            // The separator after the last message kept (it was the `]`).
            Some(&end) => {
                self.bytes.truncate(end);
                self.bytes.push(b',');
            }
            None => {
                self.bytes.clear();
                self.bytes.push(b'[');
            }
        }
        let before = self.ends.len();
        let (bytes, ends) = (&mut self.bytes, &mut self.ends);
        // Writing to memory cannot fail.
        let _ = window.try_for_each_chat_message_from(kept, |m| {
            serde_json::to_writer(&mut *bytes, m)?;
            ends.push(bytes.len());
            bytes.push(b',');
            Ok::<(), serde_json::Error>(())
        });
        self.rendered = self.ends.len() - before;
        self.marks = Some(marks);
        match self.bytes.last_mut() {
            Some(last) if *last == b',' => *last = b']',
            _ => self.bytes.push(b']'),
        }
        &self.bytes
    }

    /// The last window's messages, each as its JSON.
    pub fn messages(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(1).chain(self.ends.iter().map(|end| end + 1));
        starts
            .zip(&self.ends)
            .filter_map(|(start, &end)| self.bytes.get(start..end))
    }

    /// How many messages the last [`ChatWriter::write`] rendered, the rest
    /// being copied.
    pub fn rendered(&self) -> usize {
        self.rendered
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
mod tests {
    use super::*;
    use crate::SystemLayer;
    use strata_ctx_core::ToolResult;

    fn step() -> (Message, Message) {
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

    /// REL-3: what a window holds unchanged since an earlier one, from
    /// the marks alone, and the walk from there gives the rest.
    #[test]
    fn rel_3_unchanged_since_follows_each_layer() {
        use strata_ctx_core::MessageRun;
        let (a, r) = step();
        let history = MessageRun::new(vec![Message::user("old task"), Message::assistant("done")]);
        let mut steps = MessageRun::new(vec![a.clone(), r.clone()]);
        let window = |history: &MessageRun, steps: &MessageRun, input: &str| {
            Context::new(SystemLayer::new("s"))
                .with_rules("rules")
                .with_history_run(history.clone())
                .with_input(Message::user(input).with_created_at(None))
                .with_scratchpad_run(steps.clone())
                .with_recap(Some("[Todo recap] 1 done".into()))
        };
        let marks = window(&history, &steps, "task").chat_marks();
        // L1, L2, 2 history, the input, 2 steps: 7 unchanged, the recap not.
        assert_eq!(window(&history, &steps, "task").unchanged_since(&marks), 7);
        steps.extend([a.clone(), r.clone()]);
        let grown = window(&history, &steps, "task");
        assert_eq!(grown.unchanged_since(&marks), 7);
        let mut walked = Vec::new();
        grown
            .try_for_each_chat_message_from(7, |m| {
                walked.push(serde_json::to_value(m)?);
                Ok::<(), serde_json::Error>(())
            })
            .unwrap();
        assert_eq!(walked, grown.to_openai().as_array().unwrap()[7..]);
        // The input changed: the history still holds.
        assert_eq!(window(&history, &steps, "other").unchanged_since(&marks), 4);
        // Another scratchpad run: up to the input.
        let other = MessageRun::new(steps.to_vec());
        assert_eq!(window(&history, &other, "task").unchanged_since(&marks), 5);
        // Another history: L1 and L2 only.
        let rewritten = MessageRun::new(history.to_vec());
        assert_eq!(window(&rewritten, &steps, "task").unchanged_since(&marks), 2);
        // The history grew: what follows it moved.
        let mut longer = history.clone();
        longer.extend([Message::user("more")]);
        let marks_of_history = window(&history, &steps, "task").chat_marks();
        assert!(window(&longer, &steps, "task").unchanged_since(&marks_of_history) <= 4);
        // Other rules, or id hints: nothing.
        let ruled = Context::new(SystemLayer::new("s")).with_rules("other rules");
        assert_eq!(ruled.unchanged_since(&marks), 0);
        let hinted = window(&history, &steps, "task").with_id_hints(Some(strata_ctx_core::ShortIds::new([])));
        assert_eq!(hinted.unchanged_since(&marks), 0);
    }

    /// REL-3: the writer's body and its messages are the window's, and it
    /// renders only what a window added.
    #[test]
    fn rel_3_a_chat_writer_renders_what_was_added() {
        use strata_ctx_core::MessageRun;
        let (a, r) = step();
        let mut steps = MessageRun::new(vec![a.clone(), r.clone()]);
        let window = |steps: &MessageRun| {
            Context::new(SystemLayer::new("s"))
                .with_input(Message::user("go").with_created_at(None))
                .with_scratchpad_run(steps.clone())
                .with_recap(Some("[Todo recap] 1 done".into()))
        };
        let mut writer = ChatWriter::new();
        let first = writer.write(&window(&steps)).to_vec();
        assert_eq!(first, serde_json::to_vec(&window(&steps).to_openai()).unwrap());
        assert_eq!(writer.rendered(), 5, "everything, the first time");
        steps.extend([a.clone(), r.clone()]);
        let grown = window(&steps);
        assert_eq!(
            writer.write(&grown),
            &serde_json::to_vec(&grown.to_openai()).unwrap()[..]
        );
        assert_eq!(writer.rendered(), 3, "the new step and the recap");
        let each: Vec<serde_json::Value> = writer
            .messages()
            .map(|m| serde_json::from_slice(m).unwrap())
            .collect();
        assert_eq!(serde_json::Value::Array(each), grown.to_openai());
        // The same window again: only the recap, after the last message.
        assert_eq!(
            writer.write(&grown),
            &serde_json::to_vec(&grown.to_openai()).unwrap()[..]
        );
        assert_eq!(writer.rendered(), 1);
    }
}

//! The layered window (CTX-1) and its stable prefix (CTX-3).

use std::borrow::Cow;
use std::fmt;

use strata_ctx_core::{fnv1a, Message, MessageId, MessageRun, Role, ShortIds, ToolSpec};
use strata_ctx_prompts::{NATIVE_SYSTEM, REACT_SYSTEM};

/// How the model calls tools (MODEL-1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolMode {
    /// The model writes `Action: Tool[{json}]` in text; L1 describes the
    /// tools (REACT-1).
    #[default]
    React,
    /// The model calls tools natively: the tools go in the provider's
    /// `tools` field, not in L1.
    Native,
}

/// Layer L1: the system prompt and the tool descriptions, rendered once
/// into one text whose bytes depend on nothing else (CTX-3).
///
/// In ReAct mode ([`SystemLayer::react`]) the text describes each tool
/// (description, guidelines, arguments schema, examples); in native mode
/// ([`SystemLayer::native`]) the tools travel in the provider's `tools`
/// field ([`LlmRequest::tools`](strata_ctx_core::LlmRequest::tools)) and the
/// text is the prompt alone. The prompts default to
/// `prompts/react_system.md` and `prompts/native_system.md` (PROMPT-1);
/// [`SystemLayer::with_prompt`] overrides them.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx_prompt::{SystemLayer, ToolSpec};
///
/// let l1 = SystemLayer::react().with_tools(vec![ToolSpec::new(
///     "Read",
///     "Reads a file.",
///     json!({"type": "object", "properties": {"path": {"type": "string"}}}),
/// )]);
/// assert!(l1.text().starts_with("You solve the user's task step by step."));
/// assert!(l1.text().contains("## Read\n\nReads a file.\n\nArguments: {\"properties\""));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SystemLayer {
    prompt: String,
    tools: Vec<ToolSpec>,
    mode: ToolMode,
    text: String,
}

impl SystemLayer {
    /// L1 in ReAct mode with the given system prompt and no tools.
    pub fn new(prompt: impl Into<String>) -> Self {
        let prompt = prompt.into();
        SystemLayer {
            text: prompt.trim_end().to_owned(),
            prompt,
            tools: Vec::new(),
            mode: ToolMode::React,
        }
    }

    /// L1 with the embedded ReAct system prompt (`prompts/react_system.md`).
    pub fn react() -> Self {
        SystemLayer::new(REACT_SYSTEM)
    }

    /// L1 in native mode with the embedded prompt for native tool calling
    /// (`prompts/native_system.md`).
    pub fn native() -> Self {
        SystemLayer::new(NATIVE_SYSTEM).with_mode(ToolMode::Native)
    }

    /// L1 with the embedded prompt of `mode`.
    pub fn for_mode(mode: ToolMode) -> Self {
        match mode {
            ToolMode::React => SystemLayer::react(),
            ToolMode::Native => SystemLayer::native(),
        }
    }

    /// Sets the system prompt, keeping the mode and the tools.
    pub fn with_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = prompt.into();
        self.rerender();
        self
    }

    /// Sets the tools, described after the prompt in the order given (in
    /// ReAct mode) or offered in the request (in native mode).
    pub fn with_tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = tools;
        self.rerender();
        self
    }

    /// Sets how the model calls tools, keeping the prompt.
    pub fn with_mode(mut self, mode: ToolMode) -> Self {
        self.mode = mode;
        self.rerender();
        self
    }

    fn rerender(&mut self) {
        self.text = match self.mode {
            ToolMode::React => render_l1(&self.prompt, &self.tools),
            ToolMode::Native => self.prompt.trim_end().to_owned(),
        };
    }

    /// How the model calls tools.
    pub fn mode(&self) -> ToolMode {
        self.mode
    }

    /// The tools to put in a request's `tools` field: all of them in
    /// native mode, none in ReAct mode.
    pub fn request_tools(&self) -> &[ToolSpec] {
        match self.mode {
            ToolMode::React => &[],
            ToolMode::Native => &self.tools,
        }
    }

    /// The system prompt as given.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The tools as given.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// The rendered layer.
    pub fn text(&self) -> &str {
        &self.text
    }
}

fn render_l1(prompt: &str, tools: &[ToolSpec]) -> String {
    let mut text = prompt.trim_end().to_owned();
    if tools.is_empty() {
        return text;
    }
    text.push_str("\n\n# Tools");
    for tool in tools {
        text.push_str("\n\n## ");
        text.push_str(&tool.name);
        if !tool.description.trim().is_empty() {
            text.push_str("\n\n");
            text.push_str(tool.description.trim());
        }
        let guidelines: Vec<&str> = tool
            .guidelines
            .iter()
            .map(|g| g.trim())
            .filter(|g| !g.is_empty())
            .collect();
        if !guidelines.is_empty() {
            text.push_str("\n\nGuidelines:");
            for g in guidelines {
                text.push_str("\n- ");
                text.push_str(g);
            }
        }
        // serde_json's maps are ordered by key: the bytes are stable.
        if !tool.parameters.is_null() {
            text.push_str("\n\nArguments: ");
            text.push_str(&tool.parameters.to_string());
        }
        for example in &tool.examples {
            text.push_str("\nExample: ");
            text.push_str(&tool.name);
            text.push('[');
            text.push_str(&example.to_string());
            text.push(']');
        }
    }
    text
}

/// Where the stable prefix of a window ends, and its hash (CTX-3).
///
/// The prefix is layers L1 and L2. For unchanged inputs its bytes, and so
/// its hash, are the same across builds and rounds: put a provider's cache
/// breakpoint at its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Prefix {
    /// How many leading messages of [`Context::messages`] it spans (1 or 2).
    pub messages: usize,
    /// Its length in bytes in the ReAct text rendering
    /// ([`Context::render_react`]), where the rest starts.
    pub bytes: usize,
    /// FNV-1a (64-bit) of its bytes; stable across platforms and releases.
    pub hash: u64,
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.hash)
    }
}

/// One window, layer by layer, in the fixed order of CTX-1: L1 system
/// prompt and tools → L2 project rules → L3 history (summaries, then the
/// retained rounds) → the current user input → the current round's
/// scratchpad → what long-term memory recalls (MEM-2) → the session
/// context (MEM-1) → the todo recap.
///
/// Build one with [`Context::new`] and the `with_*` setters (the engine of
/// the `strata-ctx` facade does it on every call), then render it with
/// [`Context::messages`], [`Context::render_react`],
/// [`Context::to_openai`] or [`Context::to_anthropic`].
///
/// # Example
///
/// ```
/// use strata_ctx_prompt::{Context, SystemLayer};
/// use strata_ctx_core::Message;
///
/// let context = Context::new(SystemLayer::new("You are terse."))
///     .with_rules("# Project rules (CODE_LAW.md)\n\nNo unwrap.")
///     .with_history(vec![Message::user("hi"), Message::assistant("hello")])
///     .with_input(Message::user("what now?"));
/// let text = context.render_react();
/// assert!(text.starts_with("[system] You are terse.\n\n[system] # Project rules"));
/// assert!(text.ends_with("[user] what now?\n"));
/// let prefix = context.prefix();
/// assert_eq!(prefix.messages, 2);
/// assert!(text[prefix.bytes..].starts_with("[user] hi"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    system: SystemLayer,
    rules: Option<String>,
    history: MessageRun,
    input: Option<Message>,
    scratchpad: MessageRun,
    memory: Option<String>,
    session: Option<String>,
    recap: Option<String>,
    id_hints: Option<ShortIds>,
}

impl Context {
    /// A window holding L1 only.
    pub fn new(system: SystemLayer) -> Self {
        Context {
            system,
            rules: None,
            history: MessageRun::default(),
            input: None,
            scratchpad: MessageRun::default(),
            memory: None,
            session: None,
            recap: None,
            id_hints: None,
        }
    }

    /// Sets L2, the project rules text (see [`Rules`](crate::Rules)); an
    /// empty text means no layer.
    pub fn with_rules(mut self, rules: impl Into<String>) -> Self {
        let rules = rules.into();
        self.rules = (!rules.trim().is_empty()).then_some(rules);
        self
    }

    /// Sets L3, the history: summaries first, then the retained rounds. A
    /// `system` message in it is a notice of the conversation, not L1
    /// (HIST-1): it renders where it stands (for Anthropic, as a
    /// `<system-reminder>` user block), never silently dropped (REL-1).
    pub fn with_history(self, history: Vec<Message>) -> Self {
        self.with_history_run(MessageRun::new(history))
    }

    /// Sets L3 to a run the caller keeps growing: the window shares it
    /// instead of copying it ([`MessageRun`]).
    pub fn with_history_run(mut self, history: MessageRun) -> Self {
        self.history = history;
        self
    }

    /// Sets the current user input (already preprocessed: mentions, topic
    /// anchor).
    pub fn with_input(mut self, input: Message) -> Self {
        self.input = Some(input);
        self
    }

    /// Sets the current round's steps: assistant messages and tool
    /// results, as the model should see them.
    pub fn with_scratchpad(self, steps: Vec<Message>) -> Self {
        self.with_scratchpad_run(MessageRun::new(steps))
    }

    /// Sets the scratchpad to a run the caller keeps growing: the window
    /// shares it instead of copying it ([`MessageRun`]).
    pub fn with_scratchpad_run(mut self, steps: MessageRun) -> Self {
        self.scratchpad = steps;
        self
    }

    /// Sets what long-term memory recalls for this round (MEM-2), shown
    /// after the scratchpad, before the session context.
    pub fn with_memory(mut self, memory: Option<String>) -> Self {
        self.memory = memory.filter(|m| !m.trim().is_empty());
        self
    }

    /// Sets the session context (MEM-1), shown after the scratchpad and
    /// before the recap, at the end of the window so that changing it
    /// never breaks the cached prefix.
    pub fn with_session(mut self, session: Option<String>) -> Self {
        self.session = session.filter(|s| !s.trim().is_empty());
        self
    }

    /// Sets the todo recap (CTX-5) shown after the scratchpad.
    pub fn with_recap(mut self, recap: Option<String>) -> Self {
        self.recap = recap.filter(|r| !r.trim().is_empty());
        self
    }

    /// Appends `[message_id: xxxxxxxx]` to the messages of the history,
    /// the input and the scratchpad whose ids are in `ids`, in every
    /// rendering (HIST-10), so that the model can name the messages it no
    /// longer needs. Give the short ids the pruning side resolves against
    /// (`History::short_ids`). Summaries and notices get no hint; L1 and L2
    /// are untouched, so the prefix stays the same. By default, no hints.
    ///
    /// ```
    /// use strata_ctx_prompt::{Context, SystemLayer};
    /// use strata_ctx_core::{Message, ShortIds};
    ///
    /// let question = Message::user("What is 2 + 2?");
    /// let ids = ShortIds::new([question.id]);
    /// let short = ids.short(&question.id).unwrap_or_default();
    /// let context = Context::new(SystemLayer::new("Be brief."))
    ///     .with_input(question)
    ///     .with_id_hints(Some(ids));
    /// assert!(context.render_react().ends_with(&format!("What is 2 + 2?\n\n[message_id: {short}]\n")));
    /// ```
    pub fn with_id_hints(mut self, ids: Option<ShortIds>) -> Self {
        self.id_hints = ids;
        self
    }

    /// The hint appended to `m`, when hints are on and `m` may be named.
    pub(crate) fn hint(&self, m: &Message) -> Option<String> {
        if matches!(m.role, Role::System | Role::Summary) {
            return None;
        }
        let short = self.id_hints.as_ref()?.short(&m.id)?;
        Some(strata_ctx_core::id_hint(&short))
    }

    /// The history, input and scratchpad in order, each with its hint
    /// appended to its text when it has one.
    pub(crate) fn body(&self) -> impl Iterator<Item = Cow<'_, Message>> {
        self.body_from(0)
    }

    /// [`Context::body`] without its first `skip` messages, passed over
    /// without being looked at.
    pub(crate) fn body_from(&self, skip: usize) -> impl Iterator<Item = Cow<'_, Message>> {
        let history = self.history.get(skip..).unwrap_or_default();
        let skip = skip.saturating_sub(self.history.len());
        let input = self.input.as_ref().filter(|_| skip == 0);
        let skip = skip.saturating_sub(usize::from(self.input.is_some()));
        let scratchpad = self.scratchpad.get(skip..).unwrap_or_default();
        history
            .iter()
            .chain(input)
            .chain(scratchpad)
            .map(|m| match self.hint(m) {
                Some(hint) => Cow::Owned(with_hint(m, &hint)),
                None => Cow::Borrowed(m),
            })
    }

    /// How many messages [`Context::body`] walks.
    pub(crate) fn body_len(&self) -> usize {
        self.history.len() + usize::from(self.input.is_some()) + self.scratchpad.len()
    }

    /// Layer L1.
    pub fn system(&self) -> &SystemLayer {
        &self.system
    }

    /// Layer L2, when there is one.
    pub fn rules(&self) -> Option<&str> {
        self.rules.as_deref()
    }

    /// Layer L3.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The current user input.
    pub fn input(&self) -> Option<&Message> {
        self.input.as_ref()
    }

    /// The current round's steps.
    pub fn scratchpad(&self) -> &[Message] {
        &self.scratchpad
    }

    /// Layer L3 as the run it shares with whoever built the window.
    pub fn history_run(&self) -> &MessageRun {
        &self.history
    }

    /// The scratchpad as the run it shares with whoever built the window.
    pub fn scratchpad_run(&self) -> &MessageRun {
        &self.scratchpad
    }

    /// Whether each message renders the same whatever the rest of the
    /// window holds: `false` when id hints are on, since a message's short
    /// id can grow as the window does.
    pub fn renders_alone(&self) -> bool {
        self.id_hints.is_none()
    }

    /// The todo recap.
    pub fn recap(&self) -> Option<&str> {
        self.recap.as_deref()
    }

    /// The session context (MEM-1).
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// What long-term memory recalls (MEM-2).
    pub fn memory(&self) -> Option<&str> {
        self.memory.as_deref()
    }

    /// The layers after the scratchpad, as the model reads them: what
    /// long-term memory recalls, the session context, then the recap, each
    /// inside `<system-reminder>` tags, with their layer's name.
    pub(crate) fn tail(&self) -> impl Iterator<Item = (&'static str, String)> + '_ {
        let memory = self.memory.as_deref().map(|m| ("memory", recap_text(m)));
        let session = self.session.as_deref().map(|s| ("session", recap_text(s)));
        let recap = self.recap.as_deref().map(|r| ("recap", recap_text(r)));
        memory.into_iter().chain(session).chain(recap)
    }

    /// The stable prefix: L1 and L2 (CTX-3).
    pub fn prefix(&self) -> Prefix {
        let mut text = react_block(Role::System.as_str(), self.system.text());
        let mut messages = 1;
        if let Some(rules) = &self.rules {
            text.push_str(&react_block(Role::System.as_str(), rules));
            messages += 1;
        }
        Prefix {
            messages,
            bytes: text.len(),
            hash: fnv1a(text.as_bytes()),
        }
    }

    /// The window as one list of messages, in CTX-1 order: L1 and L2 as
    /// `system` messages, the history (summaries keep their role), the
    /// input, the scratchpad, and the recap as a `user` message inside
    /// `<system-reminder>` tags. Ids of the made-up messages derive from
    /// their content, so equal windows give equal lists.
    pub fn messages(&self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.len());
        out.push(made_up(Role::System, "l1", self.system.text().to_owned()));
        if let Some(rules) = &self.rules {
            out.push(made_up(Role::System, "l2", rules.clone()));
        }
        out.extend(self.body().map(Cow::into_owned));
        for (layer, text) in self.tail() {
            out.push(made_up(Role::User, layer, text));
        }
        out
    }

    /// How many messages [`Context::messages`] returns.
    pub fn len(&self) -> usize {
        1 + usize::from(self.rules.is_some())
            + self.history.len()
            + usize::from(self.input.is_some())
            + self.scratchpad.len()
            + usize::from(self.memory.is_some())
            + usize::from(self.session.is_some())
            + usize::from(self.recap.is_some())
    }

    /// Whether the window holds nothing but L1 (it is never empty).
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// `m` with `hint` after its text, on a line of its own. A result shown
/// as its envelope's JSON keeps the JSON before the hint.
fn with_hint(m: &Message, hint: &str) -> Message {
    let mut m = m.clone();
    let mut text = m.text().into_owned();
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(hint);
    m.content = text.into();
    m
}

/// The recap as the model reads it.
pub(crate) fn recap_text(recap: &str) -> String {
    format!("<system-reminder>\n{recap}\n</system-reminder>")
}

fn made_up(role: Role, layer: &str, content: String) -> Message {
    let id = MessageId::derived(&format!("strata:{layer}:{:016x}", fnv1a(content.as_bytes())));
    Message::new(role, content).with_id(id).with_created_at(None)
}

/// One message of the ReAct text rendering: `[role] body` and a blank line.
pub(crate) fn react_block(label: &str, body: &str) -> String {
    format!("[{label}] {body}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctx_1_order_and_len() {
        let c = Context::new(SystemLayer::new("sys"))
            .with_rules("rules")
            .with_history(vec![
                Message::summary("old"),
                Message::user("q1"),
                Message::system("x"),
            ])
            .with_input(Message::user("q2"))
            .with_scratchpad(vec![Message::assistant("thinking")])
            .with_recap(Some("[Todo recap] 0 done".into()));
        let roles: Vec<Role> = c.messages().iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::System,
                Role::System,
                Role::Summary,
                Role::User,
                // A system notice inside the history stays where it is
                // (REL-1).
                Role::System,
                Role::User,
                Role::Assistant,
                Role::User
            ]
        );
        assert_eq!(c.len(), 8);
        assert_eq!(c.messages(), c.messages(), "made-up ids are deterministic");
    }

    #[test]
    fn ctx_3_prefix_ignores_everything_after_l2() {
        let a = Context::new(SystemLayer::new("sys")).with_rules("r");
        let b = a
            .clone()
            .with_history(vec![Message::user("q")])
            .with_input(Message::user("x"));
        assert_eq!(a.prefix(), b.prefix());
        let c = a.clone().with_rules("r2");
        assert_ne!(a.prefix().hash, c.prefix().hash);
        assert_eq!(
            Context::new(SystemLayer::new("sys"))
                .with_rules("  ")
                .prefix()
                .messages,
            1
        );
    }
}

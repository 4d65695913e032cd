//! The turn engine: the one place that knows every crate (REACT-2 … REACT-5,
//! HIST-4, HIST-12, EVT-1).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};

use async_trait::async_trait;
use serde_json::Value;
use strata_atfile::Mentions;
use strata_compress::{canonical_call, Compressor, Limits, Spill, Truncator};
use strata_context::{todo_recap, topic_anchor, Context, Prefix, Rules, SystemLayer, ToolMode, ToolSpec};
use strata_core::{
    CharCounter, Config, Message, MessageId, ProgressFn, ResultStatus, Role, Summarizer, TokenCounter, Usage,
};
use strata_history::{
    clear_result, cut_arguments, cut_thought, path_argument, CompactionStats, Conversation, Digest, History,
    PruneAction, PruneOutcome, Record,
};
use strata_mtime::{add_note, Freshness};

use crate::event::{channel_sink, CompactionReason, Event, EventFn};

mod call;
pub use call::DEFAULT_MAX_CONTINUATIONS;

/// What can go wrong in the [`Engine`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// [`Engine::begin_round`] while a round is in progress.
    #[error("a round is in progress: finish it before beginning another")]
    RoundInProgress,
    /// A step or an answer while no round is in progress.
    #[error("no round is in progress: begin one first")]
    NoRound,
    /// The model rejected the request as too long again, and nothing was
    /// recorded since the last reactive compaction (HIST-12): compacting
    /// again would change nothing.
    #[error("the window is still too long for the model after compacting ({tokens} tokens estimated)")]
    StillTooLong {
        /// The window's estimated tokens.
        tokens: usize,
    },
    /// What the window must always hold, the system prompt, tools and
    /// rules (L1, L2) and the round's input, is larger than the threshold
    /// on its own (HIST-14): no condensing can make it fit. Nothing was
    /// recorded; shorten the input or the system prompt, or raise the
    /// context window.
    #[error(
        "the system prompt, tools and rules ({fixed_tokens} tokens) and the input ({input_tokens} tokens) do not fit the threshold of {threshold} tokens"
    )]
    DoesNotFit {
        /// Tokens of L1 and L2.
        fixed_tokens: usize,
        /// Tokens of the round's input.
        input_tokens: usize,
        /// The threshold the window is kept under.
        threshold: usize,
    },
    /// The model call failed (other than by overflowing, which
    /// [`Engine::complete`] handles).
    #[error("the model call failed")]
    Model(#[source] strata_core::Error),
    /// The conversation could not be loaded or persisted. When persisting
    /// failed (a full disk, say), the step is recorded in memory all the
    /// same and its records are written with the next successful append.
    #[error(transparent)]
    Store(#[from] strata_history::Error),
}

/// How far a step of the round in progress was condensed (REACT-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Full,
    History,
    Cleared,
    Omitted,
}

/// One step of the round in progress, in each form the window can show.
#[derive(Debug, Clone)]
struct Scratch {
    /// The assistant message, then its results as the model saw them.
    full: Vec<Message>,
    /// The same in history form.
    history: Vec<Message>,
    /// The history form with results cleared and long arguments cut, once
    /// made.
    cleared: Option<Vec<Message>>,
    level: Level,
    tokens: [usize; 4],
    /// What the step did, for the digest once its results leave the
    /// window (REACT-6).
    facts: Digest,
    /// Whether a result of the step comes from a protected tool
    /// (HIST-15): it is shown in history form, never cleared.
    protected: bool,
}

impl Scratch {
    fn messages(&self) -> &[Message] {
        match (self.level, &self.cleared) {
            (Level::Full, _) => &self.full,
            (Level::Omitted, _) => &[],
            (Level::Cleared, Some(cleared)) => cleared,
            _ => &self.history,
        }
    }

    fn tokens(&self) -> usize {
        self.tokens[self.level as usize]
    }

    fn id(&self) -> MessageId {
        self.full
            .first()
            .map(|m| m.id)
            .unwrap_or_else(|| MessageId::from_u128(0))
    }
}

/// What [`Engine::begin_round`] did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RoundStart {
    /// The user's message as recorded, with the read reminder of its
    /// mentions (MENTION-3).
    pub message: Message,
    /// The mentioned files.
    pub mentions: Vec<String>,
    /// `@` mentions that were not files inside the project.
    pub ignored: Vec<String>,
    /// The compaction the new input triggered (HIST-4), if any.
    pub compaction: Option<CompactionStats>,
}

/// What [`Engine::record_step`] did.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct StepReport {
    /// The step's number in its round, from 1.
    pub step: usize,
    /// Call ids whose output was cut for the model (TRUNC-1).
    pub truncated: Vec<String>,
    /// Paths read again after an external change (MTIME-1).
    pub modified: Vec<String>,
    /// The compaction the step triggered, if any.
    pub compaction: Option<CompactionStats>,
    /// Older steps of the round newly shown in history form (REACT-5).
    pub condensed: usize,
    /// Older steps of the round whose results were newly cleared
    /// (REACT-5).
    pub cleared: usize,
    /// Older steps of the round newly left out of the window (REACT-5).
    pub omitted: usize,
    /// The window's estimated tokens afterwards.
    pub window_tokens: usize,
    /// Whether the window is over the threshold though nothing more can be
    /// condensed.
    pub over_budget: bool,
    /// Tokens of the step's results in history form (TOOL-*), what the
    /// history keeps of them once the round is over.
    pub history_result_tokens: usize,
}

/// The window to send now: the layered [`Context`] and its size.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Window {
    /// The layers, to render in the model's format.
    pub context: Context,
    /// Estimated tokens: the last reported usage plus what was added since
    /// (REACT-4), or the token counter's count when there is no usable
    /// usage figure.
    pub tokens: usize,
    /// The token counter's count of the window.
    pub counted: usize,
    /// The threshold the window is kept under.
    pub threshold: usize,
    /// Whether the window is over the threshold though everything that can
    /// be condensed was (HIST-6, REACT-5).
    pub over_budget: bool,
}

impl Window {
    /// The stable prefix (CTX-3).
    pub fn prefix(&self) -> Prefix {
        self.context.prefix()
    }

    /// The window as one list of messages ([`Context::messages`]).
    pub fn messages(&self) -> Vec<Message> {
        self.context.messages()
    }

    /// The window as ReAct text ([`Context::render_react`]).
    pub fn render_react(&self) -> String {
        self.context.render_react()
    }

    /// The window as OpenAI chat-completions messages
    /// ([`Context::to_openai`]).
    pub fn to_openai(&self) -> Value {
        self.context.to_openai()
    }

    /// The window as an Anthropic Messages body ([`Context::to_anthropic`]).
    pub fn to_anthropic(&self) -> Value {
        self.context.to_anthropic()
    }
}

/// The summariser used when none is configured: it always fails, so
/// compaction takes the degraded path of HIST-7 (recent rounds kept, a
/// notice in place of the summary).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSummarizer;

#[async_trait]
impl Summarizer for NoSummarizer {
    async fn summarize(&self, _: &[Message], _: Option<ProgressFn>) -> strata_core::Result<String> {
        Err(strata_core::Error::InvalidResponse {
            message: "no summariser is configured".into(),
        })
    }
}

/// Sets up an [`Engine`]; see [`Engine::builder`].
pub struct EngineBuilder {
    root: PathBuf,
    config: Config,
    mode: ToolMode,
    prompt: Option<String>,
    tools: Option<Vec<ToolSpec>>,
    max_continuations: u32,
    counter: Arc<dyn TokenCounter>,
    summarizer: Arc<dyn Summarizer>,
    summarize_steps: bool,
    compressor: Option<Compressor>,
    truncator: Option<Truncator>,
    mentions: Option<Mentions>,
    rules: Option<Rules>,
    topic_anchor: bool,
    id_hints: bool,
    clear_batch_tokens: Option<usize>,
    protected_tools: Vec<String>,
    max_logged_bytes: usize,
    events: Option<EventFn>,
    conversation: Option<Conversation>,
    messages: Option<Vec<Message>>,
}

impl fmt::Debug for EngineBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EngineBuilder")
            .field("root", &self.root)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl EngineBuilder {
    /// Sets the configuration. By default, [`Config::default`].
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Sets the system prompt of L1. By default, the embedded prompt of
    /// the tool mode (`prompts/react_system.md` or
    /// `prompts/native_system.md`, PROMPT-1).
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = Some(prompt.into());
        self
    }

    /// Sets the tools (MODEL-1): described in L1 in ReAct mode, sent in
    /// each request's `tools` field in native mode.
    pub fn tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Sets how the model calls tools (MODEL-1). By default,
    /// [`ToolMode::React`]: the model writes actions in text. With
    /// [`ToolMode::Native`], [`Engine::complete`] sends the tools in the
    /// provider's `tools` field and the default system prompt has no
    /// ReAct format rules.
    pub fn tool_mode(mut self, mode: ToolMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets how many times [`Engine::complete`] continues an answer cut at
    /// the token limit before it gives up with
    /// [`Error::StillCut`](strata_core::Error::StillCut) (MODEL-4; 0: never
    /// continue). By default, [`DEFAULT_MAX_CONTINUATIONS`].
    pub fn max_continuations(mut self, n: u32) -> Self {
        self.max_continuations = n;
        self
    }

    /// Sets the token counter. By default, [`CharCounter`].
    pub fn counter(mut self, counter: Arc<dyn TokenCounter>) -> Self {
        self.counter = counter;
        self
    }

    /// Sets the summariser of compaction (HIST-5), e.g. an
    /// [`LlmSummarizer`](crate::LlmSummarizer). Without one, compaction
    /// keeps the recent rounds only and says so (HIST-7). With one, the
    /// steps of a long round whose results leave the window are also
    /// summarised, a batch at a time, into a rolling summary that joins
    /// their digest (REACT-6).
    pub fn summarizer(mut self, summarizer: Arc<dyn Summarizer>) -> Self {
        self.summarizer = summarizer;
        self.summarize_steps = true;
        self
    }

    /// Sets the compressor of the history form (TOOL-*). By default,
    /// [`Compressor::new`].
    pub fn compressor(mut self, compressor: Compressor) -> Self {
        self.compressor = Some(compressor);
        self
    }

    /// Sets the truncator of tool output (TRUNC-*). By default, one over
    /// the project root with the spec's limits (2,000 lines, 50 KiB), the
    /// byte limit lowered to a quarter of the threshold for windows under
    /// about 68k tokens, so that one output never fills a small window.
    pub fn truncator(mut self, truncator: Truncator) -> Self {
        self.truncator = Some(truncator);
        self
    }

    /// Sets how `@file` mentions are read (MENTION-*). By default,
    /// [`Mentions::new`] over the project root.
    pub fn mentions(mut self, mentions: Mentions) -> Self {
        self.mentions = Some(mentions);
        self
    }

    /// Sets the project rules (CTX-2). By default, `CODE_LAW.md` at the
    /// project root, capped at the configuration's `rules_max_bytes`.
    pub fn rules(mut self, rules: Rules) -> Self {
        self.rules = Some(rules);
        self
    }

    /// Appends the topic anchor (CTX-6) to the current user input. Off by
    /// default.
    pub fn topic_anchor(mut self, on: bool) -> Self {
        self.topic_anchor = on;
        self
    }

    /// Appends `[message_id: xxxxxxxx]` to every message of the history,
    /// the input and the scratchpad in the window (HIST-10), so that the
    /// model can name the messages it no longer needs; pass its request to
    /// [`Engine::prune`]. The hints are counted in the window's size. Off
    /// by default.
    pub fn id_hints(mut self, on: bool) -> Self {
        self.id_hints = on;
        self
    }

    /// Sets how many tokens the window sheds at least once it has to shed
    /// any (HIST-15): when the window passes the threshold, old steps are
    /// condensed until it is this much under it, so that the prompt
    /// cache, which every change to old steps invalidates, is invalidated
    /// once for a batch of steps rather than at every step. By default,
    /// an eighth of the threshold.
    pub fn clear_batch_tokens(mut self, tokens: usize) -> Self {
        self.clear_batch_tokens = Some(tokens);
        self
    }

    /// Marks tools whose results are never cleared (HIST-15), e.g. a
    /// tool that returns the plan or the task's acceptance criteria:
    /// their steps are shown in history form at most, and leave the
    /// window only when nothing else is left to condense. Names are
    /// matched case-insensitively. By default, none.
    pub fn protected_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.protected_tools = tools
            .into_iter()
            .map(|t| t.as_ref().to_ascii_lowercase())
            .collect();
        self
    }

    /// Sets the most bytes of one tool output the full log keeps (REL-2):
    /// of a longer output it keeps the start and says where the whole is
    /// (the spill file, when one was written). By default, 8 MiB.
    pub fn max_logged_bytes(mut self, bytes: usize) -> Self {
        self.max_logged_bytes = bytes;
        self
    }

    /// Sends events (EVT-1) to a callback. It runs on the engine's task
    /// and must return quickly.
    pub fn on_event(mut self, callback: impl Fn(&Event) + Send + Sync + 'static) -> Self {
        self.events = Some(Arc::new(callback));
        self
    }

    /// Sends events (EVT-1) to a channel; sending never blocks.
    pub fn events_to(mut self, sender: mpsc::Sender<Event>) -> Self {
        self.events = Some(channel_sink(sender));
        self
    }

    /// Persists the conversation to `conversation` (STORE-1), resuming
    /// what it already holds (STORE-3).
    pub fn conversation(mut self, conversation: Conversation) -> Self {
        self.conversation = Some(conversation);
        self
    }

    /// Starts from an existing conversation (an imported transcript), which
    /// is repaired for the pairing invariant (HIST-2; the repairs are
    /// reported as an event). Ignored when a conversation with records is
    /// given.
    pub fn messages(mut self, messages: Vec<Message>) -> Self {
        self.messages = Some(messages);
        self
    }

    /// The engine.
    ///
    /// # Errors
    ///
    /// [`EngineError::Store`] when the conversation cannot be loaded.
    pub fn build(self) -> Result<Engine, EngineError> {
        let EngineBuilder {
            root,
            config,
            mode,
            prompt,
            tools,
            max_continuations,
            counter,
            summarizer,
            summarize_steps,
            compressor,
            truncator,
            mentions,
            rules,
            topic_anchor,
            id_hints,
            clear_batch_tokens,
            protected_tools,
            max_logged_bytes,
            events,
            conversation,
            messages,
        } = self;
        let mut system = SystemLayer::for_mode(mode);
        if let Some(prompt) = prompt {
            system = system.with_prompt(prompt);
        }
        if let Some(tools) = tools {
            system = system.with_tools(tools);
        }
        let loaded = match &conversation {
            Some(c) => c.load()?.records,
            None => Vec::new(),
        };
        let mut repairs = Vec::new();
        let mut history = if !loaded.is_empty() {
            History::replay(config.clone(), counter.clone(), loaded)
        } else if let Some(messages) = messages {
            let (h, r) = History::from_messages(config.clone(), counter.clone(), messages);
            repairs = r;
            h
        } else {
            History::new(config.clone(), counter.clone())
        };
        if let Some(c) = compressor {
            history.set_compressor(c);
        }
        if let Some(tokens) = clear_batch_tokens {
            history.budget_mut().set_clear_batch(tokens);
        }
        history.set_protected_tools(&protected_tools);
        history.set_recording(conversation.is_some());
        if let Some(events) = &events {
            let events = events.clone();
            let progress: ProgressFn = Arc::new(move |p| events(&Event::CompactionProgress(p)));
            history.set_progress(Some(progress));
        }
        let rounds = strata_core::rounds(history.full_log()).len();
        let hint_tokens = id_hints.then(|| counter.count_text("\n\n[message_id: 0123abcd]"));
        let mut engine = Engine {
            truncator: truncator.unwrap_or_else(|| default_truncator(&root, &config)),
            mentions: mentions.unwrap_or_else(|| Mentions::new(&root)),
            rules: rules.unwrap_or_else(|| Rules::new(&root).with_max_bytes(config.rules_max_bytes)),
            freshness: Freshness::with_root(&root),
            root,
            config,
            counter,
            summarizer,
            summarize_steps,
            max_logged_bytes,
            history,
            system,
            max_continuations,
            topic_anchor,
            hint_tokens,
            events,
            conversation,
            unsaved: Vec::new(),
            rules_text: String::new(),
            rules_warnings: Vec::new(),
            prefix_tokens: 0,
            input: None,
            input_tokens: 0,
            previous_input: None,
            steps: Vec::new(),
            scratch_tokens: 0,
            next_condense: 0,
            next_clear: 0,
            next_omit: 0,
            digest: Digest::new(),
            digest_message: None,
            digest_tokens: 0,
            covered: Vec::new(),
            summarized: 0,
            rolling: None,
            recap: None,
            recap_tokens: 0,
            last_counted: None,
            over_budget: false,
            round: rounds,
        };
        engine.recap = todo_recap(engine.history.full_log());
        engine.recap_tokens = engine.recap_tokens_of();
        engine.previous_input = engine
            .history
            .full_log()
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.clone());
        engine.resume_round();
        engine.refresh_prefix();
        if !repairs.is_empty() {
            engine.emit(Event::Repaired(repairs));
        }
        Ok(engine)
    }
}

/// The turn engine: configure it once, then drive each round through it.
///
/// On every round: [`Engine::begin_round`] with the user's text (mentions
/// get their read reminder, compaction runs when the new input reaches the
/// threshold); then, for each model call, [`Engine::window`] gives what to
/// send, [`Engine::record_usage`] takes the provider's usage and
/// [`Engine::record_step`] the assistant's step with its tool results
/// (cut for the model with a spill file, history form to the history,
/// freshness notes for reads); [`Engine::finish_round`] ends it with the
/// answer. When a round outgrows the window on its own, its oldest steps
/// are condensed (REACT-5); when the model rejects a request as too long,
/// [`Engine::handle_overflow`] compacts at once (HIST-12).
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata::{Engine, Message, ToolCall, ToolResult};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build()?.block_on(async {
/// let project = tempfile::tempdir()?;
/// std::fs::write(project.path().join("notes.md"), "remember the milk")?;
/// let mut engine = Engine::builder(project.path()).build()?;
///
/// let start = engine.begin_round("What does @notes.md say?").await?;
/// assert!(start.message.content.contains("You MUST read this file"));
///
/// let call = ToolCall::new("c1", "Read", json!({"path": "notes.md"}));
/// let result = Message::tool_result(&call, ToolResult::success("remember the milk"));
/// engine.record_step(Message::assistant_with_calls("Read it.", vec![call]), vec![result]).await?;
///
/// let window = engine.window();
/// assert!(window.render_react().contains("[tool] {\"status\":\"success\",\"data\":\"remember the milk\"}"));
/// engine.finish_round("It says: remember the milk.")?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Engine {
    root: PathBuf,
    config: Config,
    counter: Arc<dyn TokenCounter>,
    summarizer: Arc<dyn Summarizer>,
    /// Whether a summariser was given, so that steps leaving the window
    /// are summarised too (REACT-6).
    summarize_steps: bool,
    /// The most bytes of one output the full log keeps (REL-2).
    max_logged_bytes: usize,
    history: History,
    truncator: Truncator,
    mentions: Mentions,
    rules: Rules,
    freshness: Freshness,
    system: SystemLayer,
    max_continuations: u32,
    topic_anchor: bool,
    /// The tokens one id hint costs, when hints are on (HIST-10).
    hint_tokens: Option<usize>,
    events: Option<EventFn>,
    conversation: Option<Conversation>,
    unsaved: Vec<Record>,
    rules_text: String,
    rules_warnings: Vec<String>,
    /// Tokens of L1 and L2.
    prefix_tokens: usize,
    /// The current input as rendered (with the topic anchor).
    input: Option<Message>,
    input_tokens: usize,
    previous_input: Option<String>,
    steps: Vec<Scratch>,
    /// Tokens of the steps at their levels, hidden ones left out.
    scratch_tokens: usize,
    next_condense: usize,
    next_clear: usize,
    next_omit: usize,
    /// The facts of the round's steps whose results left the window
    /// (REACT-6), and its rendering at the top of the scratchpad.
    digest: Digest,
    digest_message: Option<Message>,
    digest_tokens: usize,
    /// Steps the digest covers, in the order they joined it; the first
    /// `summarized` of them went to the summariser, whose rolling summary
    /// is `rolling` (REACT-6).
    covered: Vec<usize>,
    summarized: usize,
    rolling: Option<String>,
    recap: Option<String>,
    recap_tokens: usize,
    /// The count of the last window handed out: what a usage report
    /// measured.
    last_counted: Option<usize>,
    over_budget: bool,
    round: usize,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("root", &self.root)
            .field("round", &self.round)
            .field("steps", &self.steps.len())
            .field("history", &self.history)
            .field("over_budget", &self.over_budget)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Sets up an engine for the project at `root` (where mentions are
    /// resolved, rule files read and spill files written).
    pub fn builder(root: impl Into<PathBuf>) -> EngineBuilder {
        EngineBuilder {
            root: root.into(),
            config: Config::default(),
            mode: ToolMode::React,
            prompt: None,
            tools: None,
            max_continuations: DEFAULT_MAX_CONTINUATIONS,
            counter: Arc::new(CharCounter),
            summarizer: Arc::new(NoSummarizer),
            summarize_steps: false,
            compressor: None,
            truncator: None,
            mentions: None,
            rules: None,
            topic_anchor: false,
            id_hints: false,
            clear_batch_tokens: None,
            protected_tools: Vec::new(),
            max_logged_bytes: DEFAULT_MAX_LOGGED_BYTES,
            events: None,
            conversation: None,
            messages: None,
        }
    }

    fn emit(&self, event: Event) {
        if let Some(events) = &self.events {
            events(&event);
        }
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The history: full log and window.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The file freshness tracker (MTIME-*).
    pub fn freshness(&self) -> &Freshness {
        &self.freshness
    }

    /// The token counter the engine estimates with.
    pub fn counter(&self) -> &dyn TokenCounter {
        &*self.counter
    }

    /// Rounds begun so far, the one in progress included.
    pub fn round(&self) -> usize {
        self.round
    }

    /// Steps recorded in the round in progress.
    pub fn steps(&self) -> usize {
        self.steps.len()
    }

    /// Whether a round is in progress.
    pub fn round_open(&self) -> bool {
        self.history.round_open()
    }

    /// The threshold the window is kept under (HIST-4).
    pub fn threshold_tokens(&self) -> usize {
        self.history.budget().threshold()
    }

    /// The window's estimated tokens now (REACT-4).
    pub fn window_tokens(&self) -> usize {
        self.estimate(self.counted())
    }

    /// The estimated share of the context window in use (HIST-13).
    pub fn usage_fraction(&self) -> f64 {
        self.window_tokens() as f64 / self.config.window_tokens().max(1) as f64
    }

    /// Whether the window is over the threshold though everything that can
    /// be condensed was.
    pub fn over_budget(&self) -> bool {
        self.over_budget
    }

    /// Re-reads the rule files when they changed and recounts L1+L2.
    fn refresh_prefix(&mut self) {
        let layer = self.rules.build();
        if layer.warnings != self.rules_warnings {
            for w in &layer.warnings {
                self.emit(Event::RulesWarning(w.clone()));
            }
            self.rules_warnings = layer.warnings;
        }
        if layer.text != self.rules_text || self.prefix_tokens == 0 {
            self.rules_text = layer.text;
            let prefix = Context::new(self.system.clone()).with_rules(self.rules_text.clone());
            // In native mode the tools travel beside the messages and
            // count as much (MODEL-1).
            let tools: usize = self
                .system
                .request_tools()
                .iter()
                .map(|t| {
                    let schema = t.input_schema().to_string();
                    self.counter.count_text(&t.name)
                        + self.counter.count_text(&t.full_description())
                        + self.counter.count_text(&schema)
                })
                .sum();
            self.prefix_tokens = self.counter.count_messages(&prefix.messages()) + tools;
        }
    }

    fn recap_tokens_of(&self) -> usize {
        let context = Context::new(SystemLayer::new("")).with_recap(self.recap.clone());
        match context.messages().last() {
            Some(m) if self.recap.is_some() => self.counter.count_message(m),
            _ => 0,
        }
    }

    /// The token counter's count of the window as it would be built now.
    fn counted(&self) -> usize {
        let l3 = self.history.retained_tokens();
        // Every message of the history's window shows in the window, in
        // one form or another, with its hint (summaries included: a
        // slight over-count, on the safe side).
        let hints = self.hint_tokens.map_or(0, |n| n * self.history.window_len());
        self.prefix_tokens
            + l3
            + self.input_tokens
            + self.digest_tokens
            + self.scratch_tokens
            + self.recap_tokens
            + hints
    }

    /// REACT-4: the budget's estimate of a window counted `counted`.
    fn estimate(&self, counted: usize) -> usize {
        self.history.budget().estimate(counted)
    }

    /// Rebuilds the scratchpad of a round that was in progress when the
    /// conversation was saved, from its history form.
    fn resume_round(&mut self) {
        if !self.history.round_open() {
            return;
        }
        let window = self.history.window().into_owned();
        let Some(start) = window.iter().rposition(|m| m.role == Role::User) else {
            return;
        };
        self.input = Some(window[start].clone());
        self.input_tokens = self.counter.count_message(&window[start]);
        let mut steps: Vec<Vec<Message>> = Vec::new();
        for m in &window[start + 1..] {
            match (m.role, steps.last_mut()) {
                (Role::Tool, Some(step)) => step.push(m.clone()),
                _ => steps.push(vec![m.clone()]),
            }
        }
        for step in steps {
            let tokens = self.counter.count_messages(&step);
            let mut facts = Digest::new();
            if let Some((assistant, results)) = step.split_first() {
                facts.observe(assistant, results);
            }
            let protected = self.is_protected(&step);
            self.push_step(Scratch {
                full: step.clone(),
                history: step,
                cleared: None,
                level: Level::Full,
                tokens: [tokens, tokens, tokens, 0],
                facts,
                protected,
            });
        }
    }

    fn push_step(&mut self, step: Scratch) {
        if !self.history.is_hidden(&step.id()) {
            self.scratch_tokens += step.tokens();
        }
        self.steps.push(step);
    }

    fn recount_scratch(&mut self) {
        self.scratch_tokens = self
            .steps
            .iter()
            .filter(|s| !self.history.is_hidden(&s.id()))
            .map(Scratch::tokens)
            .sum();
    }

    /// Writes what was recorded to the conversation, keeping it on failure.
    fn persist(&mut self) -> Result<(), EngineError> {
        let records = self.history.take_records();
        let Some(conversation) = &mut self.conversation else {
            return Ok(());
        };
        self.unsaved.extend(records);
        if self.unsaved.is_empty() {
            return Ok(());
        }
        conversation.append(&self.unsaved)?;
        self.unsaved.clear();
        Ok(())
    }

    /// Begins a round with the user's text (REACT-3): `@file` mentions get
    /// their read reminder (MENTION-*), the message is recorded, and when
    /// the window with the new input reaches the threshold the history is
    /// compacted (HIST-4).
    ///
    /// # Errors
    ///
    /// [`EngineError::RoundInProgress`] when a round is open;
    /// [`EngineError::Store`] when persisting failed (the round began all
    /// the same).
    pub async fn begin_round(&mut self, text: &str) -> Result<RoundStart, EngineError> {
        if self.history.round_open() {
            return Err(EngineError::RoundInProgress);
        }
        self.refresh_prefix();
        let applied = self.mentions.apply(text);
        let user = Message::user(applied.text);
        let mut input = user.clone();
        if self.topic_anchor {
            input.content.push_str("\n\n");
            input
                .content
                .push_str(&topic_anchor(self.previous_input.as_deref(), text));
        }
        let input_tokens = self.counter.count_message(&input);
        let threshold = self.threshold_tokens();
        if self
            .history
            .budget()
            .scaled(self.prefix_tokens + input_tokens + self.recap_tokens)
            > threshold
        {
            return Err(EngineError::DoesNotFit {
                fixed_tokens: self.prefix_tokens,
                input_tokens,
                threshold,
            });
        }
        self.history.begin_round(user.clone());
        self.input_tokens = input_tokens;
        self.input = Some(input);
        self.previous_input = Some(text.to_owned());
        self.steps.clear();
        self.scratch_tokens = 0;
        self.next_condense = 0;
        self.next_clear = 0;
        self.next_omit = 0;
        self.reset_digest();
        self.over_budget = false;
        self.round += 1;
        self.emit(Event::RoundStarted {
            round: self.round,
            mentions: applied.paths.clone(),
            ignored: applied.ignored.clone(),
        });
        let compaction = if self.compaction_due() {
            Some(self.compact_now(CompactionReason::Threshold, false).await)
        } else {
            None
        };
        let (forced, _) = self.keep_budget().await;
        let compaction = forced.or(compaction);
        self.window_changed();
        self.persist()?;
        Ok(RoundStart {
            message: user,
            mentions: applied.paths,
            ignored: applied.ignored,
            compaction,
        })
    }

    /// Records one step of the round: the assistant's message with its
    /// tool calls, and the tools' results (REACT-2). Each result is cut
    /// for the model when too long (TRUNC-1, the whole output saved to a
    /// spill file), a read of a file changed behind the agent's back gets
    /// its note and the agent's own writes are remembered (MTIME-*); the
    /// step enters the scratchpad as the model sees it and the history in
    /// history form. Then the budget is kept: old rounds are compacted when
    /// the window reaches the threshold, and old steps of this round are
    /// condensed (REACT-5).
    ///
    /// A call without a result gets an `interrupted` error result (HIST-2);
    /// results for no call of the step stay in the full log only.
    ///
    /// # Errors
    ///
    /// [`EngineError::NoRound`] when no round is open;
    /// [`EngineError::Store`] when persisting failed (the step was recorded
    /// all the same).
    pub async fn record_step(
        &mut self,
        assistant: Message,
        results: Vec<Message>,
    ) -> Result<StepReport, EngineError> {
        if !self.history.round_open() {
            return Err(EngineError::NoRound);
        }
        self.refresh_prefix();
        // A reused call id is renamed before anything sees the step (REL-1).
        let (assistant, results) = self.history.unique_call_ids(assistant, results);
        let repairs = self.history.take_repairs();
        if !repairs.is_empty() {
            self.emit(Event::Repaired(repairs));
        }
        let mut report = StepReport {
            step: self.steps.len() + 1,
            ..StepReport::default()
        };
        // The results of one step share one cap (HIST-14).
        let truncator = self.truncator.shared_by(results.len());
        let mut view = Vec::with_capacity(results.len());
        let mut raw = Vec::with_capacity(results.len());
        for m in results {
            let (shown, whole) = self.model_view(&truncator, &assistant, m, &mut report);
            view.push(shown);
            raw.push(whole);
        }
        let mut facts = Digest::new();
        facts.observe(&assistant, &raw);
        let protected = self.is_protected(&raw);
        // The history form is made from the output as returned, not from
        // the cut view (TOOL-13); the full log keeps the output whole.
        let history = self.history.record_step(assistant.clone(), raw).to_vec();
        // The full form pairs like the history form: one result per call,
        // in call order, a synthetic one where the agent gave none.
        let mut full = Vec::with_capacity(history.len());
        full.push(assistant.clone());
        for (call, form) in assistant.tool_calls.iter().zip(history.iter().skip(1)) {
            let seen = view
                .iter()
                .find(|m| m.tool_call_id.as_deref() == Some(call.id.as_str()));
            full.push(seen.cloned().unwrap_or_else(|| form.clone()));
        }
        report.history_result_tokens = self.counter.count_messages(history.get(1..).unwrap_or_default());
        let tokens = [
            self.counter.count_messages(&full),
            history.first().map_or(0, |m| self.counter.count_message(m)) + report.history_result_tokens,
            0,
            0,
        ];
        self.push_step(Scratch {
            full,
            history,
            cleared: None,
            level: Level::Full,
            tokens,
            facts,
            protected,
        });
        if let Some(recap) = todo_recap(std::slice::from_ref(&assistant)) {
            self.recap = Some(recap);
            self.recap_tokens = self.recap_tokens_of();
        }
        self.emit(Event::StepRecorded {
            round: self.round,
            step: report.step,
            calls: assistant.tool_calls.len(),
        });
        self.set_reserved();
        // Inside a round only archiving old rounds helps; clearing the
        // history's results waits for the next round's start.
        if self.history.has_earlier_rounds()
            && self.compaction_due()
            && self.history.plan().rounds_archived > 0
        {
            report.compaction = Some(self.compact_now(CompactionReason::Threshold, false).await);
        }
        let (forced, counts) = self.keep_budget().await;
        report.compaction = forced.or(report.compaction);
        (report.condensed, report.cleared, report.omitted) = counts;
        report.window_tokens = self.window_changed();
        report.over_budget = self.over_budget;
        self.persist()?;
        Ok(report)
    }

    /// One result as the model sees it, cut by `truncator` when too long,
    /// and as the tool returned it; both with the freshness note of a
    /// read.
    fn model_view(
        &mut self,
        truncator: &Truncator,
        assistant: &Message,
        mut m: Message,
        report: &mut StepReport,
    ) -> (Message, Message) {
        let mut raw = m.clone();
        let call = assistant
            .tool_calls
            .iter()
            .find(|c| m.tool_call_id.as_deref() == Some(c.id.as_str()));
        let tool = call
            .map(|c| c.name.clone())
            .or_else(|| m.tool_name.clone())
            .unwrap_or_default();
        let call_id = m.tool_call_id.clone().unwrap_or_default();
        let cut = match m.result.take() {
            Some(result) => {
                let (result, cut) = truncator.truncate_result(&tool, result);
                m.result = Some(result);
                cut
            }
            None => {
                let cut = truncator.truncate(&tool, m.content.as_bytes());
                if cut.truncated {
                    m.content.clear();
                    m.result = Some(cut.result.clone());
                }
                Some(cut)
            }
        };
        if let Some(cut) = cut.filter(|c| c.truncated) {
            // The log's copy says where the whole output was saved too.
            if let (Some(raw), Some(path)) = (&mut raw.result, &cut.result.full_output_path) {
                raw.full_output_path.get_or_insert_with(|| path.clone());
            }
            let (spill, spill_error) = match cut.spill {
                Spill::Saved(path) => (Some(path), None),
                Spill::Failed(why) => (None, Some(why)),
                _ => (None, None),
            };
            self.emit(Event::OutputTruncated {
                tool: tool.clone(),
                call_id: call_id.clone(),
                total_lines: cut.total_lines,
                shown_lines: cut.shown_lines,
                spill,
                spill_error,
            });
            report.truncated.push(call_id);
        }
        cap_logged(
            &mut raw,
            self.max_logged_bytes,
            m.result.as_ref().and_then(|r| r.full_output_path.as_deref()),
        );
        let Some(call) = call else { return (m, raw) };
        let Some(path) = path_argument(&call.arguments) else {
            return (m, raw);
        };
        let failed = m.result.as_ref().is_some_and(|r| r.status == ResultStatus::Error);
        match canonical_call(&call.name, &call.arguments) {
            Some("Read") if !failed => {
                if let Some(note) = self.freshness.read(&path) {
                    for target in [&mut m, &mut raw] {
                        match &mut target.result {
                            Some(result) if target.content.is_empty() => add_note(result, &note),
                            _ => {
                                target.content.push_str("\n\n");
                                target.content.push_str(&note);
                            }
                        }
                    }
                    self.emit(Event::FileModified { path: path.clone() });
                    report.modified.push(path);
                }
            }
            Some("Write" | "Edit" | "MultiEdit") if !failed => self.freshness.wrote(&path),
            _ => {}
        }
        (m, raw)
    }

    /// Whether a step's results include one of a protected tool
    /// (HIST-15).
    fn is_protected(&self, results: &[Message]) -> bool {
        results.iter().any(|m| self.history.is_protected(m))
    }

    fn reset_digest(&mut self) {
        self.digest = Digest::new();
        self.digest_message = None;
        self.digest_tokens = 0;
        self.covered.clear();
        self.summarized = 0;
        self.rolling = None;
    }

    /// Ends the round with the assistant's final answer (REACT-2): the
    /// scratchpad is cleared and the answer joins the history.
    ///
    /// # Errors
    ///
    /// [`EngineError::NoRound`] when no round is open;
    /// [`EngineError::Store`] when persisting failed (the round ended all
    /// the same).
    pub fn finish_round(&mut self, answer: impl Into<String>) -> Result<(), EngineError> {
        if !self.history.round_open() {
            return Err(EngineError::NoRound);
        }
        self.history.finish_round(Message::assistant(answer));
        self.emit(Event::RoundFinished {
            round: self.round,
            steps: self.steps.len(),
        });
        self.steps.clear();
        self.scratch_tokens = 0;
        self.reset_digest();
        self.next_omit = 0;
        self.input = None;
        self.input_tokens = 0;
        self.over_budget = false;
        self.window_changed();
        self.persist()
    }

    /// Records the usage the provider reported for the last window sent
    /// (REACT-4): from now on the window's size is that figure plus the
    /// estimate of what was added since.
    ///
    /// A usage of 0 input tokens (a provider that reports none) is not a
    /// measurement and leaves the estimate to the token counter.
    pub fn record_usage(&mut self, usage: Usage) {
        self.emit(Event::UsageRecorded(usage));
        if usage.input_tokens == 0 {
            return;
        }
        let at = self.last_counted.unwrap_or_else(|| self.counted());
        self.history.record_usage_at(usage, at);
        // Persisting usage can wait for the next step's append.
    }

    /// Applies the model's pruning request (HIST-10); see
    /// [`History::prune`].
    pub fn prune(&mut self, action: PruneAction) -> PruneOutcome {
        let outcome = self.history.prune(action);
        self.recount_scratch();
        outcome
    }

    /// The window to send now (CTX-1): L1, L2 (re-read when a rule file
    /// changed), the history without the round in progress, the current
    /// input, the round's steps (the oldest condensed when needed,
    /// REACT-5) and the todo recap.
    pub fn window(&mut self) -> Window {
        self.refresh_prefix();
        self.condense(Level::Omitted);
        let mut scratchpad = Vec::new();
        scratchpad.extend(self.digest_message.clone());
        // Steps left out are a prefix: start after them (REL-3).
        for step in &self.steps[self.next_omit.min(self.steps.len())..] {
            if !self.history.is_hidden(&step.id()) {
                scratchpad.extend_from_slice(step.messages());
            }
        }
        let mut context = Context::new(self.system.clone())
            .with_rules(self.rules_text.clone())
            .with_history(self.history.retained().into_owned())
            .with_scratchpad(scratchpad)
            .with_recap(self.recap.clone())
            .with_id_hints(self.hint_tokens.map(|_| self.history.short_ids()));
        if let Some(input) = &self.input {
            context = context.with_input(input.clone());
        }
        let counted = self.counted();
        self.last_counted = Some(counted);
        Window {
            context,
            tokens: self.estimate(counted),
            counted,
            threshold: self.threshold_tokens(),
            over_budget: self.over_budget,
        }
    }

    /// Compacts the history now, whatever the trigger says.
    ///
    /// # Errors
    ///
    /// [`EngineError::Store`] when persisting failed (the compaction stands).
    pub async fn compact(&mut self) -> Result<CompactionStats, EngineError> {
        let stats = self.compact_now(CompactionReason::Manual, false).await;
        self.condense(Level::Omitted);
        self.window_changed();
        self.persist()?;
        Ok(stats)
    }

    /// Handles the model's rejection of the last window as too long
    /// (HIST-12): learns how far the token counter was off, compacts at
    /// once and condenses the round's old steps, so that the call can be
    /// retried with [`Engine::window`].
    ///
    /// # Errors
    ///
    /// [`EngineError::StillTooLong`] when nothing was recorded since the
    /// last overflow: a second overflow after compaction is not retried
    /// (no loop). [`EngineError::Store`] when persisting failed.
    pub async fn handle_overflow(&mut self) -> Result<CompactionStats, EngineError> {
        let log_len = self.history.full_log().len();
        let sent = self.last_counted.unwrap_or_else(|| self.counted());
        if !self.history.budget_mut().overflowed(sent, log_len) {
            return Err(EngineError::StillTooLong {
                tokens: self.window_tokens(),
            });
        }
        let stats = self.compact_now(CompactionReason::Overflow, true).await;
        self.condense(Level::Omitted);
        self.window_changed();
        self.persist()?;
        Ok(stats)
    }

    /// Whether automatic compaction is due (HIST-4, HIST-13).
    fn compaction_due(&self) -> bool {
        self.history.budget().compaction_due(
            self.counted(),
            self.history.window_len(),
            self.history.full_log().len(),
        )
    }

    /// Tells the budget what the window holds outside the history: L1,
    /// L2, the recap, the digest, and how much more the scratchpad takes
    /// than the round's history form.
    fn set_reserved(&mut self) {
        let outside = self.counted().saturating_sub(self.history.window_tokens());
        self.history.budget_mut().set_outside(outside);
    }

    /// Compacts the history; `to_fit` lets the retention of
    /// `min_retain_rounds` yield to the budget (HIST-14).
    async fn compact_now(&mut self, reason: CompactionReason, to_fit: bool) -> CompactionStats {
        self.set_reserved();
        self.emit(Event::CompactionStarted {
            reason,
            tokens: self.window_tokens(),
        });
        let stats = if to_fit {
            self.history.compact_to_fit(&*self.summarizer).await
        } else {
            self.history.compact(&*self.summarizer).await
        };
        if stats.degraded {
            self.emit(Event::CompactionDegraded {
                reason: stats.degraded_reason.clone().unwrap_or_default(),
            });
        }
        self.emit(Event::CompactionFinished(stats.clone()));
        self.recount_scratch();
        stats
    }

    /// HIST-14: keeps the window within the threshold after it changed.
    /// The round's old steps go to history form first; then, when the
    /// window is still over, earlier rounds are archived whatever
    /// `min_retain_rounds` says; then the round's steps are condensed
    /// further ([`Engine::condense`]). Returns the compaction that ran and
    /// the steps condensed, cleared and left out.
    async fn keep_budget(&mut self) -> (Option<CompactionStats>, (usize, usize, usize)) {
        let (a, b, c) = self.condense(Level::History);
        let mut compaction = None;
        if self.window_tokens() > self.threshold_tokens() {
            self.set_reserved();
            if self.history.has_earlier_rounds() && self.history.plan_with(0).rounds_archived > 0 {
                compaction = Some(self.compact_now(CompactionReason::Threshold, true).await);
            }
        }
        let (d, e, f) = self.condense(Level::Omitted);
        if self.summarize_steps && self.covered.len() > self.summarized {
            self.summarize_covered().await;
            // The summary took room: condense again if needed (its steps
            // join at the next batch).
            let (g, h, i) = self.condense(Level::Omitted);
            return (compaction, (a + d + g, b + e + h, c + f + i));
        }
        (compaction, (a + d, b + e, c + f))
    }

    /// REACT-6: the steps newly covered by the digest, with the rolling
    /// summary so far, go to the summariser under the summary timeout; its
    /// answer becomes the rolling summary. On an error or a timeout the
    /// digest alone stands for them (HIST-7), and they are not sent again.
    async fn summarize_covered(&mut self) {
        let mut input = Vec::new();
        if let Some(rolling) = &self.rolling {
            input.push(Message::summary(rolling.clone()));
        }
        for &i in &self.covered[self.summarized..] {
            input.extend(self.steps[i].history.iter().cloned());
        }
        let steps = self.covered.len() - self.summarized;
        self.summarized = self.covered.len();
        let answer = tokio::time::timeout(
            self.config.summary_timeout,
            self.summarizer.summarize(&input, None),
        )
        .await;
        let degraded = match answer {
            Ok(Ok(text)) if !text.trim().is_empty() => {
                self.rolling = Some(text);
                self.render_digest();
                None
            }
            Ok(Ok(_)) => Some("the summary was empty".to_owned()),
            Ok(Err(e)) => Some(e.to_string()),
            Err(_) => Some("timed out".to_owned()),
        };
        self.emit(Event::StepsSummarized { steps, degraded });
    }

    /// REACT-5, HIST-14, HIST-15: once the window is over the threshold,
    /// the oldest steps of the round are shown in history form, then their
    /// results are cleared (their thoughts and long arguments cut, what
    /// they found kept in the digest, REACT-6), then they are left out,
    /// until the window is [`EngineBuilder::clear_batch_tokens`] under the
    /// threshold. The newest `keep_full_steps` steps are a preference:
    /// when the older ones are all gone and the window is still over, they
    /// go the same way, the newest step last. `deepest` is the furthest a
    /// step may go. Returns how many steps went to history form, were
    /// cleared and were left out.
    fn condense(&mut self, deepest: Level) -> (usize, usize, usize) {
        let threshold = self.threshold_tokens();
        let mut counts = (0, 0, 0);
        if self.window_tokens() > threshold {
            let n = self.steps.len();
            let preferred = n.saturating_sub(self.config.keep_full_steps);
            let stages = [
                (preferred, self.history.budget().shed_target()),
                (n.saturating_sub(1), threshold),
                (n, threshold),
            ];
            for (eligible, target) in stages {
                self.condense_steps(eligible, target, deepest, &mut counts);
                if self.window_tokens() <= threshold {
                    break;
                }
            }
        }
        let over = self.window_tokens() > threshold;
        if over && deepest == Level::Omitted && !self.over_budget {
            self.emit(Event::OverBudget {
                tokens: self.window_tokens(),
                threshold,
            });
        }
        if deepest == Level::Omitted || !over {
            self.over_budget = over;
        }
        let (condensed, cleared, omitted) = counts;
        if condensed + cleared + omitted > 0 {
            self.emit(Event::StepsCondensed {
                to_history_form: condensed,
                cleared,
                omitted,
                tokens: self.window_tokens(),
            });
        }
        counts
    }

    /// One stage of [`Engine::condense`]: the first `eligible` steps, one
    /// level at a time, oldest first, until the window is at `target`.
    fn condense_steps(
        &mut self,
        eligible: usize,
        target: usize,
        deepest: Level,
        counts: &mut (usize, usize, usize),
    ) {
        while self.window_tokens() > target {
            if self.next_condense < eligible {
                let i = self.next_condense;
                self.set_level(i, Level::History);
                self.next_condense += 1;
                counts.0 += 1;
            } else if deepest == Level::History {
                break;
            } else if self.next_clear < eligible {
                let i = self.next_clear;
                let protected = self.steps[i].protected;
                let mut form = self.steps[i].history.clone();
                for m in &mut form {
                    if !protected {
                        clear_result(m);
                    }
                    cut_arguments(m);
                    cut_thought(m);
                }
                self.steps[i].tokens[Level::Cleared as usize] = self.counter.count_messages(&form);
                self.steps[i].cleared = Some(form);
                self.set_level(i, Level::Cleared);
                if !protected {
                    self.cover(i);
                }
                self.next_clear += 1;
                counts.1 += 1;
            } else if self.next_omit < eligible {
                let i = self.next_omit;
                self.set_level(i, Level::Omitted);
                if self.steps[i].protected {
                    self.cover(i);
                }
                self.next_omit += 1;
                counts.2 += 1;
            } else {
                break;
            }
        }
    }

    /// Adds what step `i` did to the digest, now that its results left
    /// the window, and renders the digest again (REACT-6).
    fn cover(&mut self, i: usize) {
        self.digest.merge(&self.steps[i].facts);
        self.covered.push(i);
        self.render_digest();
    }

    /// The digest message: the facts, and the rolling summary when there
    /// is one, within the digest's share of the budget (a sixth of the
    /// threshold, at most 4,000 tokens, about three characters a token).
    fn render_digest(&mut self) {
        let budget = (self.threshold_tokens() / 6).min(4_000) * 3;
        let mut text = match &self.rolling {
            Some(rolling) => {
                let facts = self.digest.render(budget / 2);
                let room = budget.saturating_sub(facts.chars().count() + 40);
                let mut summary: String = rolling.chars().take(room).collect();
                if summary.len() < rolling.len() {
                    summary.push('…');
                }
                format!("{facts}\n\nSummary of those steps:\n{summary}")
            }
            None => self.digest.render(budget),
        };
        if text.is_empty() {
            text = self.digest.render(budget);
        }
        let message = Message::system(text)
            .with_id(MessageId::derived(&format!(
                "strata:digest:{}",
                self.digest.steps()
            )))
            .with_created_at(None);
        self.digest_tokens = self.counter.count_message(&message);
        self.digest_message = Some(message);
    }

    fn set_level(&mut self, i: usize, level: Level) {
        let hidden = self.history.is_hidden(&self.steps[i].id());
        let step = &mut self.steps[i];
        if !hidden {
            self.scratch_tokens =
                self.scratch_tokens.saturating_sub(step.tokens()) + step.tokens[level as usize];
        }
        step.level = level;
    }

    fn window_changed(&self) -> usize {
        let tokens = self.window_tokens();
        self.emit(Event::WindowChanged {
            tokens,
            threshold: self.threshold_tokens(),
        });
        tokens
    }
}

/// The default of [`EngineBuilder::max_logged_bytes`].
pub const DEFAULT_MAX_LOGGED_BYTES: usize = 8 * 1024 * 1024;

/// Cuts the text of a tool output kept in the full log to `max` bytes
/// (REL-2), saying where the whole is.
fn cap_logged(message: &mut Message, max: usize, spill: Option<&str>) {
    let cut = |text: &mut String| {
        if text.len() <= max {
            return;
        }
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let total = text.len();
        text.truncate(end);
        text.push_str(&format!("\n[… the log keeps the first {end} of {total} bytes"));
        match spill {
            Some(path) => text.push_str(&format!("; the whole output is in {path}]")),
            None => text.push(']'),
        }
    };
    cut(&mut message.content);
    if let Some(result) = &mut message.result {
        match &mut result.data {
            Value::String(text) => cut(text),
            Value::Object(map) => map.values_mut().for_each(|v| {
                if let Value::String(text) = v {
                    cut(text);
                }
            }),
            _ => {}
        }
    }
}

/// The default truncator: the spec's limits (TRUNC-1), with the byte limit
/// lowered to a quarter of the threshold (at 3 bytes a token) for small
/// windows, so that one output never fills the window on its own.
fn default_truncator(root: &Path, config: &Config) -> Truncator {
    let defaults = Limits::default();
    let quarter = (config.threshold_tokens() as usize).saturating_mul(3) / 4;
    let max_bytes = defaults.max_bytes.min(quarter.max(1024));
    Truncator::builder(root)
        .limits(Limits::new(defaults.max_lines, max_bytes))
        .build()
}

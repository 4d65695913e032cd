//! Setting up an [`Engine`]: [`EngineBuilder`] and its defaults.

use super::intake::Intake;
use super::memory::{logged_suggestions, Memories, MemoryState};
use super::session::{files_rule, SessionState};
use super::*;
use crate::cost::Price;
use strata_ctx_history::Record;
use strata_ctx_memory::LongTermMemory;
use strata_ctx_memory::{SessionLimits, SessionRule};
use strata_ctx_store::ConversationLog;

/// Sets up an [`Engine`]; see [`Engine::builder`].
pub struct EngineBuilder {
    root: PathBuf,
    config: Config,
    counter: Arc<dyn TokenCounter>,
    summarizer: Arc<dyn Summarizer>,
    summarize_steps: bool,
    events: Option<EventFn>,
    prompt: PromptParts,
    intake: IntakeParts,
    history: HistoryParts,
    memory: MemoryParts,
    calls: (u32, Option<Price>),
    stamps: (Clock, IdSource),
}

/// What the layers are made of: the tool mode, the system prompt and
/// tools, the rules, the topic anchor and the id hints.
struct PromptParts {
    mode: ToolMode,
    prompt: Option<String>,
    tools: Option<Vec<ToolSpec>>,
    rules: Option<Rules>,
    topic_anchor: bool,
    id_hints: bool,
}

/// How results come in: the truncator, the mentions and the full log's cap
/// of one output.
struct IntakeParts {
    truncator: Option<Truncator>,
    mentions: Option<Mentions>,
    max_logged_bytes: usize,
}

/// Where the history starts and how it is kept: the conversation log or
/// the messages to start from, the compressor, the shed batch and the
/// protected tools.
struct HistoryParts {
    conversation: Option<Box<dyn ConversationLog>>,
    messages: Option<Vec<Message>>,
    compressor: Option<Compressor>,
    clear_batch_tokens: Option<usize>,
    protected_tools: Vec<String>,
}

/// What the engine remembers beyond the window.
struct MemoryParts {
    session_limits: Option<SessionLimits>,
    session_rules: Vec<Arc<dyn SessionRule>>,
    long_term: Option<(LongTermMemory, usize)>,
    suggestion_timeout: std::time::Duration,
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
    /// The builder of [`Engine::builder`], with every default.
    pub(super) fn new(root: PathBuf) -> Self {
        EngineBuilder {
            root,
            config: Config::default(),
            counter: Arc::new(CharCounter),
            summarizer: Arc::new(NoSummarizer),
            summarize_steps: false,
            events: None,
            prompt: PromptParts {
                mode: ToolMode::Native,
                prompt: None,
                tools: None,
                rules: None,
                topic_anchor: false,
                id_hints: false,
            },
            intake: IntakeParts {
                truncator: None,
                mentions: None,
                max_logged_bytes: DEFAULT_MAX_LOGGED_BYTES,
            },
            history: HistoryParts {
                conversation: None,
                messages: None,
                compressor: None,
                clear_batch_tokens: None,
                protected_tools: Vec::new(),
            },
            memory: MemoryParts {
                session_limits: None,
                session_rules: Vec::new(),
                long_term: None,
                suggestion_timeout: super::memory::DEFAULT_SUGGESTION_TIMEOUT,
            },
            calls: (DEFAULT_MAX_CONTINUATIONS, None),
            stamps: (Clock::system(), IdSource::random()),
        }
    }

    /// Sets the configuration. By default, [`Config::default`].
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Sets the system prompt of L1. By default, the embedded prompt of
    /// the tool mode (`prompts/react_system.md` or
    /// `prompts/native_system.md`, PROMPT-1).
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt.prompt = Some(prompt.into());
        self
    }

    /// Sets the tools (MODEL-1): described in L1 in ReAct mode, sent in
    /// each request's `tools` field in native mode.
    pub fn tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.prompt.tools = Some(tools);
        self
    }

    /// Sets how the model calls tools (MODEL-1). By default,
    /// [`ToolMode::Native`]: [`Engine::complete`] sends the tools in the
    /// provider's `tools` field, the model answers with the provider's
    /// tool calls, and the default system prompt has no format rules.
    /// With [`ToolMode::React`], for models without tool calling, the
    /// tools are described in the system prompt and the model writes
    /// `Thought:`/`Action:` text that [`Engine::complete`] parses.
    pub fn tool_mode(mut self, mode: ToolMode) -> Self {
        self.prompt.mode = mode;
        self
    }

    /// Sets how many times [`Engine::complete`] continues an answer cut at
    /// the token limit before it gives up with
    /// [`LlmError::StillCut`](strata_ctx_core::LlmError::StillCut) (MODEL-4; 0: never
    /// continue). By default, [`DEFAULT_MAX_CONTINUATIONS`].
    pub fn max_continuations(mut self, n: u32) -> Self {
        self.calls.0 = n;
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
        self.history.compressor = Some(compressor);
        self
    }

    /// Sets the truncator of tool output (TRUNC-*). By default, one over
    /// the project root with the spec's limits (2,000 lines, 50 KiB), the
    /// byte limit lowered to a quarter of the threshold for windows under
    /// about 68k tokens, so that one output never fills a small window.
    pub fn truncator(mut self, truncator: Truncator) -> Self {
        self.intake.truncator = Some(truncator);
        self
    }

    /// Sets how `@file` mentions are read (MENTION-*). By default,
    /// [`Mentions::new`] over the project root.
    pub fn mentions(mut self, mentions: Mentions) -> Self {
        self.intake.mentions = Some(mentions);
        self
    }

    /// Sets the project rules (CTX-2). By default, `CODE_LAW.md` at the
    /// project root, capped at the configuration's `rules_max_bytes`.
    pub fn rules(mut self, rules: Rules) -> Self {
        self.prompt.rules = Some(rules);
        self
    }

    /// Appends the topic anchor (CTX-6) to the current user input. Off by
    /// default.
    pub fn topic_anchor(mut self, on: bool) -> Self {
        self.prompt.topic_anchor = on;
        self
    }

    /// Appends `[message_id: xxxxxxxx]` to every message of the history,
    /// the input and the scratchpad in the window (HIST-10), so that the
    /// model can name the messages it no longer needs; pass its request to
    /// [`Engine::prune`]. The hints are counted in the window's size. Off
    /// by default.
    pub fn id_hints(mut self, on: bool) -> Self {
        self.prompt.id_hints = on;
        self
    }

    /// Sets how many tokens the window sheds at least once it has to shed
    /// any (HIST-15): when the window passes the threshold, old steps are
    /// condensed until it is this much under it, so that the prompt
    /// cache, which every change to old steps invalidates, is invalidated
    /// once for a batch of steps rather than at every step. By default,
    /// half the threshold: on real sessions that halves what a provider
    /// with prompt caching bills, and keeps as many working facts.
    pub fn clear_batch_tokens(mut self, tokens: usize) -> Self {
        self.history.clear_batch_tokens = Some(tokens);
        self
    }

    /// Marks tools whose results are never cleared (HIST-15), e.g. a
    /// tool that returns the plan or the task's acceptance criteria:
    /// their steps are shown in history form at most, and leave the
    /// window only when nothing else is left to condense. Names are
    /// matched as [`strata_ctx_tools::normalize`] spells them (`Read-File`
    /// is `read_file`). By default, none.
    pub fn protected_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.history.protected_tools = tools
            .into_iter()
            .map(|t| strata_ctx_tools::normalize(t.as_ref()))
            .collect();
        self
    }

    /// Sets the most bytes of one tool output the full log keeps (REL-2):
    /// of a longer output it keeps the start and says where the whole is
    /// (the spill file, when one was written). By default, 8 MiB.
    pub fn max_logged_bytes(mut self, bytes: usize) -> Self {
        self.intake.max_logged_bytes = bytes;
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

    /// Turns the session context on (MEM-1), with `limits`: a small
    /// record of what the session is working on, shown every turn after
    /// the scratchpad. The built-in rule keeps the paths the agent's
    /// calls name under `files`; add your own with
    /// [`EngineBuilder::session_rule`]; offer the model
    /// [`memory_tools`](strata_ctx_memory::memory_tools) and run their
    /// calls with [`Engine::memory_tool`]. By default, off.
    pub fn session_context(mut self, limits: SessionLimits) -> Self {
        self.memory.session_limits = Some(limits);
        self
    }

    /// Adds a rule that keeps the session context current from each
    /// step's calls and results (MEM-1), after the built-in `files` rule.
    /// Takes effect when the session context is on.
    pub fn session_rule(mut self, rule: impl SessionRule + 'static) -> Self {
        self.memory.session_rules.push(Arc::new(rule));
        self
    }

    /// Gives the engine a user's long-term memory (MEM-2): at the start of
    /// each round, the facts most relevant to the input are recalled into
    /// a layer of their own after the scratchpad, within `max_tokens`
    /// ([`DEFAULT_MEMORY_TOKENS`](crate::DEFAULT_MEMORY_TOKENS) is a good
    /// start); [`Engine::save_memory`], [`Engine::forget_memory`] and
    /// [`Engine::extract_memory`] write to it. By default, none.
    pub fn long_term_memory(mut self, memory: LongTermMemory, max_tokens: usize) -> Self {
        self.memory.long_term = Some((memory, max_tokens));
        self
    }

    /// Sets the time limit of [`Engine::suggest_followups`] (MEM-3). By
    /// default, 10 s.
    pub fn suggestion_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.memory.suggestion_timeout = timeout;
        self
    }

    /// Persists the conversation to `conversation` (STORE-1), resuming
    /// what it already holds (STORE-3): a JSONL [`Conversation`](strata_ctx_store::Conversation), or a
    /// conversation of any [`Backend`](strata_ctx_store::Backend)
    /// (STORE-4).
    pub fn conversation(mut self, conversation: impl ConversationLog + 'static) -> Self {
        self.history.conversation = Some(Box::new(conversation));
        self
    }

    /// As [`EngineBuilder::conversation`], with a conversation a
    /// [`Backend`](strata_ctx_store::Backend) opened.
    pub fn conversation_log(mut self, conversation: Box<dyn ConversationLog>) -> Self {
        self.history.conversation = Some(conversation);
        self
    }

    /// Starts from an existing conversation (an imported transcript), which
    /// is repaired for the pairing invariant (HIST-2; the repairs are
    /// reported as an event). Ignored when a conversation with records is
    /// given.
    pub fn messages(mut self, messages: Vec<Message>) -> Self {
        self.history.messages = Some(messages);
        self
    }

    /// Sets the clock of the messages the engine makes and of the default
    /// truncator's spill file names (CORE-2). By default, the system
    /// clock; [`Clock::stepping`] makes a run reproducible.
    pub fn clock(mut self, clock: Clock) -> Self {
        self.stamps.0 = clock;
        self
    }

    /// Sets where the ids of the messages the engine makes come from
    /// (CORE-2). By default, random ids; [`IdSource::sequential`] makes a
    /// run reproducible. Messages you make yourself keep their ids: give
    /// them the engine's with [`Engine::stamp`].
    pub fn ids(mut self, ids: IdSource) -> Self {
        self.stamps.1 = ids;
        self
    }

    /// Sets the price of the model the engine's calls go to (MODEL-5):
    /// each recorded usage then adds to [`Engine::cost`] and is an
    /// [`Event::CostRecorded`]. `PriceTable::builtin().get(model)` has
    /// the price of current models. By default, none: no cost is kept.
    pub fn price(mut self, price: Price) -> Self {
        self.calls.1 = Some(price);
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
            counter,
            summarizer,
            summarize_steps,
            events,
            prompt,
            intake,
            history,
            memory,
            calls: (max_continuations, price),
            stamps: (clock, ids),
        } = self;
        let loaded = match &history.conversation {
            Some(c) => c.load()?.records,
            None => Vec::new(),
        };
        let memories = memory.build(&loaded);
        let (history, conversation, repairs) = history.build(&config, &counter, loaded);
        let rounds = strata_ctx_core::rounds(history.full_log()).len();
        let mut engine = Engine {
            layers: prompt.build(&root, &config, &*counter),
            intake: Intake {
                truncator: intake
                    .truncator
                    .unwrap_or_else(|| default_truncator(&root, &config, &clock)),
                mentions: intake.mentions.unwrap_or_else(|| Mentions::new(&root)),
                freshness: Freshness::with_root(&root),
                max_logged_bytes: intake.max_logged_bytes,
                root,
            },
            config,
            counter,
            summarizer,
            history,
            events,
            round: RoundState::after(rounds, summarize_steps),
            calls: ModelCalls::new(price, max_continuations),
            journal: Journal::new(conversation),
            stamps: Stamps::new(clock, ids),
            memories,
        };
        engine.render_session();
        engine
            .layers
            .observe_todos(engine.history.full_log(), &*engine.counter);
        engine.round.previous_input = engine
            .history
            .full_log()
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.to_string());
        engine.resume_round();
        engine.refresh_prefix();
        if !repairs.is_empty() {
            engine.emit(Event::Repaired(repairs));
        }
        Ok(engine)
    }
}

impl PromptParts {
    /// The layers: the system layer of the mode, prompt and tools, and the
    /// rules (by default `CODE_LAW.md` at `root`).
    fn build(self, root: &Path, config: &Config, counter: &dyn TokenCounter) -> Layers {
        let mut system = SystemLayer::for_mode(self.mode);
        if let Some(prompt) = self.prompt {
            system = system.with_prompt(prompt);
        }
        if let Some(tools) = self.tools {
            system = system.with_tools(tools);
        }
        Layers::new(
            system,
            self.rules
                .unwrap_or_else(|| Rules::new(root).with_max_bytes(config.rules_max_bytes)),
            self.topic_anchor,
            self.id_hints
                .then(|| counter.count_text("\n\n[message_id: 0123abcd]")),
        )
    }
}

impl HistoryParts {
    /// The history: replayed from the conversation's `loaded` records,
    /// repaired from the messages to start from, or empty; and the
    /// conversation log, and the repairs made.
    fn build(
        self,
        config: &Config,
        counter: &Arc<dyn TokenCounter>,
        loaded: Vec<Record>,
    ) -> (
        History,
        Option<Box<dyn ConversationLog>>,
        Vec<strata_ctx_history::Repair>,
    ) {
        let mut repairs = Vec::new();
        let mut history = if !loaded.is_empty() {
            History::replay(config.clone(), counter.clone(), loaded)
        } else if let Some(messages) = self.messages {
            let (h, r) = History::from_messages(config.clone(), counter.clone(), messages);
            repairs = r;
            h
        } else {
            History::new(config.clone(), counter.clone())
        };
        if let Some(c) = self.compressor {
            history.set_compressor(c);
        }
        if let Some(tokens) = self.clear_batch_tokens {
            history.budget_mut().set_clear_batch(tokens);
        }
        history.set_protected_tools(&self.protected_tools);
        history.set_recording(self.conversation.is_some());
        (history, self.conversation, repairs)
    }
}

impl MemoryParts {
    /// The memories, with the session context and suggestions the
    /// conversation's `loaded` records hold.
    fn build(self, loaded: &[Record]) -> Memories {
        let session = self.session_limits.map(|limits| {
            let mut rules: Vec<Arc<dyn SessionRule>> = vec![Arc::new(files_rule())];
            rules.extend(self.session_rules);
            SessionState::new(limits, rules, loaded)
        });
        Memories {
            session,
            long_term: self.long_term.map(|(store, max_tokens)| MemoryState {
                store,
                max_tokens,
                text: None,
                tokens: 0,
            }),
            suggested: logged_suggestions(loaded),
            suggestion_timeout: self.suggestion_timeout,
        }
    }
}

/// The default truncator: the spec's limits (TRUNC-1), with the byte limit
/// the budget allows one output
/// ([`Budget::output_bytes`](strata_ctx_history::Budget::output_bytes)).
pub(super) fn default_truncator(root: &Path, config: &Config, clock: &Clock) -> Truncator {
    let defaults = Limits::default();
    let max_bytes = strata_ctx_history::Budget::new(config).output_bytes(defaults.max_bytes);
    let clock = clock.clone();
    Truncator::builder(root)
        .limits(Limits::new(defaults.max_lines, max_bytes))
        .clock(move || clock.now())
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read() -> ToolSpec {
        ToolSpec::new("Read", "Reads a file.", json!({"type": "object"}))
    }

    #[test]
    fn defaults_and_the_mode_survive_a_custom_prompt() {
        let dir = tempfile::tempdir().unwrap();
        // MODEL-1: native tool calls by default, the tools in the request.
        let engine = Engine::builder(dir.path()).tools(vec![read()]).build().unwrap();
        assert_eq!(engine.layers.system().mode(), ToolMode::Native);
        assert_eq!(engine.calls.max_continuations, DEFAULT_MAX_CONTINUATIONS);
        assert!(!engine.layers.system().text().contains("## Read"));
        assert!(!engine.layers.system().text().contains("Action:"));
        assert_eq!(engine.layers.system().request_tools(), &[read()]);
        // ReAct when asked for: the tools in the prompt, none in the request.
        let engine = Engine::builder(dir.path())
            .tool_mode(ToolMode::React)
            .tools(vec![read()])
            .build()
            .unwrap();
        assert!(engine.layers.system().text().contains("## Read"));
        assert!(engine.layers.system().request_tools().is_empty());
        // MODEL-1: the prompt is replaced, the mode and the tools kept.
        let engine = Engine::builder(dir.path())
            .tools(vec![read()])
            .system_prompt("Be terse.")
            .max_continuations(0)
            .build()
            .unwrap();
        assert_eq!(engine.layers.system().text(), "Be terse.");
        assert_eq!(engine.layers.system().request_tools(), &[read()]);
        assert_eq!(engine.calls.max_continuations, 0);
    }

    #[test]
    fn default_truncator_keeps_one_output_under_a_quarter_of_a_small_window() {
        let dir = tempfile::tempdir().unwrap();
        let small = Config::from_toml_str("context_window = 8000").unwrap();
        let large = Config::from_toml_str("context_window = 1000000").unwrap();
        let small_bytes = default_truncator(dir.path(), &small, &Clock::system())
            .limits_for("Bash")
            .max_bytes;
        let large_bytes = default_truncator(dir.path(), &large, &Clock::system())
            .limits_for("Bash")
            .max_bytes;
        assert!(
            small_bytes <= small.threshold_tokens() as usize * 3 / 4,
            "{small_bytes}"
        );
        assert_eq!(large_bytes, Limits::default().max_bytes);
    }
}

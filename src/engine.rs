//! The turn engine: the one place that knows every crate (REACT-2 … REACT-5,
//! HIST-4, HIST-12, EVT-1).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};

use serde_json::Value;
use strata_ctx_atfile::Mentions;
use strata_ctx_compress::{canonical_call, Compressor, Limits, Spill, Truncator};
use strata_ctx_core::{
    CharCounter, Clock, Config, IdSource, Message, MessageRun, NoSummarizer, ResultStatus, Role, Summarizer,
    TokenCounter,
};
use strata_ctx_history::{path_argument, CompactionStats, Digest, History, PruneAction, PruneOutcome};
use strata_ctx_mtime::{add_note, Freshness};
use strata_ctx_prompt::{Context, Prefix, Rules, SystemLayer, ToolMode, ToolSpec};

use crate::event::{channel_sink, CompactionReason, Event, EventFn};

mod builder;
mod call;
mod intake;
mod layers;
mod memory;
mod meter;
mod parts;
mod round;
mod scratchpad;
mod server;
mod session;
mod tools;

use layers::Layers;
use parts::{Journal, ModelCalls, Stamps};
use round::RoundState;
use scratchpad::{Level, Scratch, Scratchpad};

pub use builder::EngineBuilder;
pub use call::{WindowCount, DEFAULT_MAX_CONTINUATIONS};
pub use intake::DEFAULT_MAX_LOGGED_BYTES;
pub use memory::{DEFAULT_MEMORY_TOKENS, DEFAULT_SUGGESTION_TIMEOUT};
pub use server::ServerContextStats;
pub use session::files_rule;
pub use tools::{pin_tool, prune_tool, recall_tool, PIN_TOOL, PRUNE_TOOL, RECALL_TOOL};

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
    /// [`Engine::finish_round_with`] with a message that is not a final
    /// answer: not the assistant's, or with tool calls (record those as a
    /// step).
    #[error("not a final answer: {reason}")]
    NotAnAnswer {
        /// What the message is instead.
        reason: &'static str,
    },
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
    /// Context management is delegated to the provider
    /// ([`Config::server_context`](strata_ctx_core::Config::server_context)),
    /// but the client does not offer that mode
    /// ([`LlmClient::manages_context`](strata_ctx_core::LlmClient::manages_context)):
    /// nothing was sent. Use a client that does (Anthropic's, or OpenAI's
    /// in Responses mode for `compact`), or switch delegation off.
    #[error("the model client does not offer server-side context management `{mode}`")]
    ServerContextUnsupported {
        /// The configured mode.
        mode: strata_ctx_core::ServerContext,
    },
    /// The model call failed (other than by overflowing, which
    /// [`Engine::complete`] handles).
    #[error("the model call failed")]
    Model(#[source] strata_ctx_core::LlmError),
    /// A long-term memory operation on an engine built without one
    /// ([`EngineBuilder::long_term_memory`]).
    #[error("the engine has no long-term memory: give it one with EngineBuilder::long_term_memory")]
    NoLongTermMemory,
    /// Long-term memory failed (MEM-2): a write failed, or the model's
    /// answer could not be used (nothing changed).
    #[error("long-term memory failed")]
    Memory(#[source] strata_ctx_memory::MemoryError),
    /// The conversation could not be loaded or persisted. When persisting
    /// failed (a full disk, say), the step is recorded in memory all the
    /// same and its records are written with the next successful append.
    #[error(transparent)]
    Store(#[from] strata_ctx_store::Error),
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

/// The token counter's count of each layer of a window (CTX-1); they add
/// up to [`Window::counted`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[non_exhaustive]
pub struct LayerTokens {
    /// L1: the system prompt and, in native mode, the tools' definitions.
    pub system: usize,
    /// L2: the project rules.
    pub rules: usize,
    /// The history before the round in progress: archived summaries and
    /// earlier rounds, with their id hints.
    pub history: usize,
    /// The round's user message.
    pub input: usize,
    /// The round's steps, each in the form it has now (whole, history
    /// form, cleared).
    pub scratchpad: usize,
    /// The progress digest of the steps left out, and its rolling summary.
    pub digest: usize,
    /// The tail: the todo recap and the memory and session layers.
    pub tail: usize,
}

impl LayerTokens {
    /// The whole window.
    pub fn total(&self) -> usize {
        self.system + self.rules + self.history + self.input + self.scratchpad + self.digest + self.tail
    }
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
    /// [`Window::counted`], layer by layer.
    pub layers: LayerTokens,
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

    /// Writes the window as OpenAI chat-completions messages, a JSON
    /// array, to `w` ([`Context::write_openai`]): the bytes of
    /// [`Window::to_openai`], without building them as a value first.
    ///
    /// # Errors
    ///
    /// Whatever writing to `w` returns.
    pub fn write_openai<W: std::io::Write>(&self, w: W) -> std::io::Result<()> {
        self.context.write_openai(w)
    }

    /// The window as an Anthropic Messages body ([`Context::to_anthropic`]).
    pub fn to_anthropic(&self) -> Value {
        self.context.to_anthropic()
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
/// use strata_ctx::{Engine, Message, ToolCall, ToolResult};
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
    config: Config,
    counter: Arc<dyn TokenCounter>,
    summarizer: Arc<dyn Summarizer>,
    history: History,
    /// The root, truncation, mentions and freshness of what comes in.
    intake: intake::Intake,
    /// L1, L2, the todo recap and the id hints.
    layers: Layers,
    events: Option<EventFn>,
    /// The round in progress: its input and scratchpad.
    round: RoundState,
    /// The model calls' cost, provider-side edits and last window count.
    calls: ModelCalls,
    /// The conversation log and what is not written to it yet.
    journal: Journal,
    /// The time and ids of the messages the engine makes (CORE-2).
    stamps: Stamps,
    /// The session context, long-term memory and suggestions (MEM-*).
    memories: memory::Memories,
}

/// The window's parts, in the order the window holds them: the one place
/// that both builds the window and counts it, so that the count never
/// drifts from what is sent.
struct Frame<'a> {
    layers: &'a Layers,
    history: &'a History,
    round: &'a RoundState,
    memories: &'a memory::Memories,
}

impl Frame<'_> {
    /// The window: L1, L2 and the recap, the history without the round
    /// in progress, the input, the scratchpad, the memory and session
    /// layers, and the id hints. The history and the scratchpad are the
    /// runs their owners keep ([`History::retained_run`],
    /// [`Scratchpad::shown`](scratchpad::Scratchpad)), shared, not copied.
    fn context(&self, history: MessageRun, scratchpad: MessageRun) -> Context {
        let mut context = self
            .layers
            .context()
            .with_history_run(history)
            .with_scratchpad_run(scratchpad)
            .with_memory(self.memories.memory_text())
            .with_session(self.memories.session_text())
            .with_id_hints(self.layers.hints_on().then(|| self.history.short_ids()));
        if let Some(input) = &self.round.input {
            context = context.with_input(input.clone());
        }
        context
    }

    /// The token counter's count of [`Frame::context`], from the parts'
    /// counts: each part counts itself as it changes, so a step costs
    /// what it adds.
    fn tokens(&self) -> usize {
        self.layer_tokens().total()
    }

    /// [`Frame::tokens`] layer by layer.
    fn layer_tokens(&self) -> LayerTokens {
        // Every message of the history's window shows in the window, in
        // one form or another, with its hint (summaries included: a
        // slight over-count, on the safe side).
        let hints = self.layers.hint_tokens(self.history.window_len());
        let (prefix, rules) = (self.layers.prefix_tokens(), self.layers.rules_tokens());
        let (pad, digest) = (self.round.pad.tokens(), self.round.pad.digest_tokens());
        LayerTokens {
            system: prefix - rules,
            rules,
            history: self.history.retained_tokens() + hints,
            input: self.round.input_tokens(),
            scratchpad: pad - digest,
            digest,
            tail: self.layers.recap_tokens() + self.memories.tokens(),
        }
    }

    /// What the window holds whatever the history and the round: L1, L2,
    /// the recap, and the memory and session layers (HIST-14).
    fn fixed_tokens(&self) -> usize {
        self.layers.prefix_tokens() + self.layers.recap_tokens() + self.memories.tokens()
    }
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("root", &self.intake.root)
            .field("round", &self.round.number)
            .field("steps", &self.round.pad.len())
            .field("history", &self.history)
            .field("over_budget", &self.round.over_budget)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Sets up an engine for the project at `root` (where mentions are
    /// resolved, rule files read and spill files written).
    pub fn builder(root: impl Into<PathBuf>) -> EngineBuilder {
        EngineBuilder::new(root.into())
    }

    fn emit(&self, event: Event) {
        #[cfg(feature = "tracing")]
        crate::trace::event(&event);
        if let Some(events) = &self.events {
            events(&event);
        }
    }

    /// `message` with a new id from the engine's [`IdSource`] and the
    /// time of its [`Clock`] (CORE-2): what the engine does to the
    /// messages it makes itself (the round's user message, the final
    /// answer). Give the messages you make the same treatment (the
    /// assistant message of an answer, tool results) and a run under
    /// [`EngineBuilder::clock`] and [`EngineBuilder::ids`] is
    /// byte-identical from one run to the next.
    pub fn stamp(&self, message: Message) -> Message {
        self.stamps.stamp(message)
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.intake.root
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
        &self.intake.freshness
    }

    /// The token counter the engine estimates with.
    pub fn counter(&self) -> &dyn TokenCounter {
        &*self.counter
    }

    /// The token counter, shared (for measuring beside the engine).
    pub(crate) fn shared_counter(&self) -> Arc<dyn TokenCounter> {
        self.counter.clone()
    }

    /// Rounds begun so far, the one in progress included.
    pub fn round(&self) -> usize {
        self.round.number
    }

    /// Steps recorded in the round in progress.
    pub fn steps(&self) -> usize {
        self.round.pad.len()
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
        self.round.over_budget
    }

    /// Re-reads the rule files when they changed and recounts L1+L2.
    fn refresh_prefix(&mut self) {
        if let Some(warnings) = self.layers.refresh(&*self.counter) {
            for w in warnings {
                self.emit(Event::RulesWarning(w));
            }
        }
    }

    /// The token counter's count of the window as it would be built now.
    fn counted(&self) -> usize {
        self.frame().tokens()
    }

    /// The window's parts, to build it or count it.
    fn frame(&self) -> Frame<'_> {
        Frame {
            layers: &self.layers,
            history: &self.history,
            round: &self.round,
            memories: &self.memories,
        }
    }

    /// REACT-4: the budget's estimate of a window counted `counted`.
    fn estimate(&self, counted: usize) -> usize {
        self.history.budget().estimate(counted)
    }

    fn push_step(&mut self, step: Scratch) {
        self.round.pad.push(step, &self.history);
    }

    fn recount_scratch(&mut self) {
        self.round.pad.recount(&self.history);
    }

    /// Writes what was recorded to the conversation, keeping it on failure.
    fn persist(&mut self) -> Result<(), EngineError> {
        let records = self.history.take_records();
        Ok(self.journal.append(records)?)
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
        let history = self.history.retained_run();
        let scratchpad = self.round.pad.shown(&self.history);
        let frame = self.frame();
        let (context, layers) = (frame.context(history, scratchpad), frame.layer_tokens());
        let counted = layers.total();
        self.calls.handed_out(counted);
        Window {
            context,
            tokens: self.estimate(counted),
            counted,
            layers,
            threshold: self.threshold_tokens(),
            over_budget: self.round.over_budget,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::{ToolCall, ToolResult};

    /// HIST-14: what the window always holds is L1, L2, the recap and the
    /// memory layers; the window adds the history, the round and the hints.
    #[test]
    fn hist_14_the_fixed_part_of_the_frame() {
        let dir = tempfile::tempdir().unwrap();
        let mut layers = Layers::new(
            SystemLayer::new("Be terse."),
            Rules::new(dir.path()),
            false,
            Some(3),
        );
        layers.refresh(&CharCounter);
        layers.set_recap(Some("- [ ] ship it".into()), &CharCounter);
        let store = strata_ctx_memory::LongTermMemory::open(dir.path().join("memory"), "u").unwrap();
        let memories = memory::Memories {
            session: None,
            long_term: Some(memory::MemoryState {
                store,
                max_tokens: 100,
                text: Some("likes tabs".into()),
                tokens: 7,
            }),
            suggested: Vec::new(),
            suggestion_timeout: std::time::Duration::from_secs(1),
        };
        let mut history = History::new(Config::default(), Arc::new(CharCounter));
        history.begin_round(Message::user("first"));
        history.finish_round(Message::assistant("done"));
        let round = RoundState::after(1, false);
        let frame = Frame {
            layers: &layers,
            history: &history,
            round: &round,
            memories: &memories,
        };
        let fixed = layers.prefix_tokens() + layers.recap_tokens() + 7;
        assert!(layers.recap_tokens() > 0);
        assert_eq!(frame.fixed_tokens(), fixed);
        assert_eq!(
            frame.tokens(),
            fixed + history.retained_tokens() + 3 * history.window_len()
        );
    }

    /// CTX-1, REACT-4: what the window is counted is what it holds: the
    /// frame that builds it counts it, through rounds, steps, condensing
    /// and the recap.
    #[test]
    fn ctx_1_the_count_is_the_windows() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("CODE_LAW.md"), "Run the tests before you commit.").unwrap();
        let config = Config::from_toml_str("context_window = 4000").unwrap();
        let mut e = Engine::builder(dir.path()).config(config).build().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let mut digests = 0;
        runtime.block_on(async {
            for round in 0..3 {
                e.begin_round(&format!("task {round}")).await.unwrap();
                for step in 0..6 {
                    let call = ToolCall::new(format!("c{round}{step}"), "Bash", json!({"command": "make"}));
                    let todo = ToolCall::new(
                        format!("t{round}{step}"),
                        "TodoWrite",
                        json!({"todos": [{"content": "fix it", "status": "in_progress"}]}),
                    );
                    let results = vec![
                        Message::tool_result(&call, ToolResult::success("line\n".repeat(200))),
                        Message::tool_result(&todo, ToolResult::success("ok")),
                    ];
                    e.record_step(Message::assistant_with_calls("run", vec![call, todo]), results)
                        .await
                        .unwrap();
                    let window = e.window();
                    assert_eq!(
                        window.counted,
                        CharCounter.count_messages(&window.messages()),
                        "round {round} step {step}"
                    );
                    // Layer by layer, adding up to the whole.
                    let layers = window.layers;
                    assert_eq!(layers.total(), window.counted);
                    let input = window.context.input().map_or(0, |m| CharCounter.count_message(m));
                    assert_eq!(layers.input, input);
                    let pad = CharCounter.count_messages(window.context.scratchpad());
                    assert_eq!(
                        layers.scratchpad + layers.digest,
                        pad,
                        "round {round} step {step}"
                    );
                    assert!(
                        layers.rules > 0 && layers.system > 0 && layers.tail > 0,
                        "{layers:?}"
                    );
                    digests += usize::from(layers.digest > 0);
                }
                e.finish_round("done").unwrap();
            }
        });
        assert!(digests > 0, "the steps left out got a digest");
    }

    /// REL-3: the history and the scratchpad a window shares with the
    /// engine are what building them afresh gives, at every step of real
    /// sessions, through compaction, condensing, pruning, pinning and
    /// windows kept alive across steps; and a window's chat messages are
    /// priced the same walked from what changed as rendered whole.
    #[test]
    fn rel_3_shared_runs_are_the_windows_made_afresh() {
        use crate::replay::{turns, Turn};
        use crate::{CacheRule, PromptCache};
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let mut checked = (0, 0, 0);
        let mut written = (0, 0);
        for name in [
            "mini-swe-agent__deepseek_chat_test_1-100__django__django-13964.json",
            "claude-code__python-to-rust-port.json",
        ] {
            let messages = strata_ctx_testkit::load_transcript(corpus.join(name))
                .unwrap()
                .messages;
            for (window_size, hints) in [(16_000, false), (32_000, true), (12_000, false)] {
                let dir = tempfile::tempdir().unwrap();
                let config = Config::from_toml_str(&format!("context_window = {window_size}")).unwrap();
                let mut e = Engine::builder(dir.path())
                    .config(config)
                    .id_hints(hints)
                    .build()
                    .unwrap();
                let mut walked = PromptCache::new(CacheRule::Anthropic);
                let mut whole = PromptCache::new(CacheRule::Anthropic);
                let mut kept: Vec<(Vec<Message>, Window)> = Vec::new();
                let mut writer = strata_ctx_prompt::ChatWriter::new();
                runtime.block_on(async {
                    for (k, turn) in turns(&messages).into_iter().enumerate() {
                        match turn {
                            Turn::Begin(user) => {
                                if e.round_open() {
                                    e.finish_round("").unwrap();
                                }
                                let start = e.begin_round(&user.content).await.unwrap();
                                checked.1 += usize::from(start.compaction.is_some());
                                // A result of an earlier round, pinned as
                                // the new round begins.
                                let retained = e.history().retained();
                                let earlier = retained.iter().rev().find(|m| m.role == Role::Tool);
                                let earlier: Vec<String> =
                                    earlier.map(|m| m.id.to_string()).into_iter().collect();
                                drop(retained);
                                drop(e.pin(&earlier, true));
                            }
                            Turn::Step(assistant, results) => {
                                let results = results.into_iter().cloned().collect();
                                let report = e.record_step(assistant.clone(), results).await.unwrap();
                                checked.1 += usize::from(report.compaction.is_some());
                            }
                            Turn::Finish(answer) => e.finish_round(answer.content.clone()).unwrap(),
                        }
                        // Now and then, the model prunes, brings back or
                        // pins a message of the window.
                        let ids: Vec<String> =
                            e.history().window().iter().map(|m| m.id.to_string()).collect();
                        let some = |at: usize| {
                            ids.get(at % ids.len().max(1))
                                .cloned()
                                .into_iter()
                                .collect::<Vec<_>>()
                        };
                        match k % 17 {
                            5 => drop(e.prune(PruneAction::Append(some(k)))),
                            9 => drop(e.prune(PruneAction::Delete(some(k - 4)))),
                            13 => drop(e.pin(&some(k / 2), true)),
                            _ => {}
                        }
                        let window = e.window();
                        assert_eq!(
                            window.context.history(),
                            &e.history.retained()[..],
                            "{name} step {k}"
                        );
                        assert_eq!(
                            window.context.scratchpad(),
                            &e.round.pad.messages(&e.history)[..],
                            "{name} step {k}"
                        );
                        let rendered = match window.to_openai() {
                            Value::Array(rendered) => rendered,
                            other => panic!("{other}"),
                        };
                        let mut bytes = Vec::new();
                        window.write_openai(&mut bytes).unwrap();
                        assert_eq!(bytes, serde_json::to_vec(&rendered).unwrap());
                        assert_eq!(writer.write(&window.context), &bytes[..], "{name} step {k}");
                        if !hints {
                            written.0 += writer.rendered();
                            written.1 += window.context.len();
                        }
                        assert_eq!(
                            walked.call_window(&window, e.counter()),
                            whole.call_rendered(&rendered, e.counter()),
                            "{name} at {window_size}, step {k}"
                        );
                        // Some windows outlive the next steps.
                        if k % 7 == 0 {
                            kept.push((window.messages(), window));
                        }
                        checked.0 += 1;
                    }
                });
                checked.2 += kept.len();
                for (shown, w) in &kept {
                    assert_eq!(shown, &w.messages(), "a kept window still shows what it showed");
                }
            }
        }
        assert!(checked.0 > 600 && checked.1 > 0 && checked.2 > 50, "{checked:?}");
        // Without id hints, most steps render only what they add: less than
        // half of what the windows hold, with condensing and compaction.
        assert!(written.0 * 2 < written.1, "{written:?}");
    }
}

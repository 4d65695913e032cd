//! Measuring context engineering on recorded transcripts (EVAL-1, EVAL-2):
//! what `strata-ctx eval` reports.
//!
//! Two questions, each beside a baseline a user would otherwise have:
//!
//! - **Working facts** ([`facts_kept`]): a session is replayed through the
//!   engine; the final window is what the model would read next. How many
//!   of the session's working facts ([`Facts`]: files changed, programs
//!   run, the last error line of each failing run) does it still hold,
//!   against newest-first trimming at the same budget
//!   ([`trim_newest_first`])?
//! - **Command-output retention** ([`retention`]): for each program's
//!   output of at least 2,000 characters, how much smaller is its history
//!   form, and how many of its diagnostic lines does it keep, against a
//!   head cut and a head+tail cut of the same size?
//!
//! The definitions are those of `docs/eval.md`; a fact or line counts as
//! kept when its text appears anywhere in what is kept. Everything is
//! deterministic: the same transcripts and configuration give the same
//! figures.

use std::collections::HashMap;

use regex::Regex;
use serde::Serialize;
use serde_json::Value;
use strata_ctx_compress::Compressor;
use strata_ctx_core::{Message, Role, TokenCounter, ToolResult};

use crate::engine::{Engine, EngineError};
use crate::replay::{calls_after_steps, replay, ReplayStep, ReplaySummary};

/// Outputs shorter than this are not measured for retention.
pub const MIN_OUTPUT_CHARS: usize = 2_000;

mod cost;
mod definitions;

pub use cost::{baselines, Pricer, Strategy, StrategyCost};

use definitions::{diagnostic, error_class, shell_writes, EDIT_TOOLS, SHELL_TOOLS};
pub use definitions::{effective_command, is_error_line, program_of};

/// Every string a message carries (content, call names and arguments,
/// results), strings holding JSON included: what "appears in the window"
/// means.
pub fn strings_of(messages: &[Message]) -> String {
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
                if s.starts_with(['{', '[']) {
                    if let Ok(inner) = serde_json::from_str::<Value>(s) {
                        walk(&inner, out);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|x| walk(x, out)),
            Value::Object(map) => map.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    for m in messages {
        if let Ok(v) = serde_json::to_value(m) {
            walk(&v, &mut out);
        }
    }
    out
}

/// What a tool result says, as text: its content, or the strings of its
/// envelope's data.
fn output_of(message: &Message) -> String {
    match &message.result {
        Some(result) if message.content.is_empty() => flatten(&result.data),
        _ => message.content.to_string(),
    }
}

/// All string values of a JSON value, joined by newlines.
fn flatten(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(flatten).collect::<Vec<_>>().join("\n"),
        Value::Object(map) => map.values().map(flatten).collect::<Vec<_>>().join("\n"),
        other => other.to_string(),
    }
}

/// The first `n` characters of `s`.
fn chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// The kinds of working facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum FactKind {
    /// A file the agent created or changed.
    File,
    /// A program the agent ran (its command line's first 60 characters).
    Command,
    /// The last error line of a failing run (its first 120 characters).
    Error,
}

/// The working facts of a session: what every compaction prompt asks to
/// keep.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Facts {
    /// Files created or changed: by edit and write tools, `str_replace_editor`
    /// (`create`, `str_replace`, `insert`), SWE-agent's `create`, and shell
    /// commands (`sed -i … FILE`, `> FILE`).
    pub files: Vec<String>,
    /// Programs run (tests, builds, scripts): the first 60 characters of
    /// the command line's first line, when at least 8.
    pub commands: Vec<String>,
    /// Of each program run whose output has error lines, the last one
    /// ([`is_error_line`]), its first 120 characters.
    pub errors: Vec<String>,
}

impl Facts {
    /// The facts of a transcript, each once, in the order they arose.
    pub fn of(messages: &[Message]) -> Facts {
        let outputs: HashMap<&str, &Message> = messages
            .iter()
            .filter(|m| m.role == Role::Tool)
            .filter_map(|m| Some((m.tool_call_id.as_deref()?, m)))
            .collect();
        let mut facts = Facts::default();
        for call in messages.iter().flat_map(|m| &m.tool_calls) {
            let args = &call.arguments;
            let text = |key: &str| args.get(key).and_then(Value::as_str);
            if EDIT_TOOLS.contains(&call.name.as_str()) {
                facts
                    .files
                    .extend(strata_ctx_tools::path(args).map(str::to_owned));
            } else if call.name == "apply_patch" {
                facts
                    .files
                    .extend(strata_ctx_tools::changed_files(&call.name, args));
            } else if call.name == "str_replace_editor"
                && matches!(text("command"), Some("create" | "str_replace" | "insert"))
            {
                facts.files.extend(text("path").map(str::to_owned));
            }
            let shell = SHELL_TOOLS.contains(&call.name.as_str());
            let command = match call.name.as_str() {
                "str_replace_editor" => Default::default(),
                _ if shell => strata_ctx_tools::command(args).unwrap_or_default(),
                _ => text("command").unwrap_or_default().into(),
            };
            let command = command.as_ref();
            if call.name == "create" && command.starts_with("create ") {
                facts
                    .files
                    .extend(command.split_whitespace().nth(1).map(str::to_owned));
            }
            for m in shell_writes().captures_iter(command) {
                facts.files.extend(m.get(1).map(|p| p.as_str().to_owned()));
            }
            if program_of(&call.name, args).is_none() || command.is_empty() {
                continue;
            }
            let line = chars(command.trim().lines().next().unwrap_or_default(), 60);
            if line.chars().count() >= 8 {
                facts.commands.push(line.to_owned());
            }
            let output = outputs
                .get(call.id.as_str())
                .map(|m| output_of(m))
                .unwrap_or_default();
            if let Some(last) = output.lines().map(str::trim).rfind(|l| is_error_line(l)) {
                facts.errors.push(chars(last, 120).to_owned());
            }
        }
        for list in [&mut facts.files, &mut facts.commands, &mut facts.errors] {
            let mut seen = std::collections::HashSet::new();
            list.retain(|x| seen.insert(x.clone()));
        }
        facts
    }

    /// Every fact with its kind.
    pub fn iter(&self) -> impl Iterator<Item = (FactKind, &str)> {
        let files = self.files.iter().map(|s| (FactKind::File, s.as_str()));
        let commands = self.commands.iter().map(|s| (FactKind::Command, s.as_str()));
        let errors = self.errors.iter().map(|s| (FactKind::Error, s.as_str()));
        files.chain(commands).chain(errors)
    }

    /// The number of facts.
    pub fn len(&self) -> usize {
        self.files.len() + self.commands.len() + self.errors.len()
    }

    /// Whether there is no fact.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The tool outputs [`mask_observations`] leaves whole: SWE-agent's
/// `LastNObservations` default.
pub const MASK_KEEP: usize = 5;

/// Observation masking, the baseline SWE-agent uses by default
/// (`LastNObservations`, n = 5; the JetBrains study "The Complexity Trap"
/// found it matches LLM summaries at half the cost): every tool output
/// but the newest `keep` becomes `Old environment output: (N lines
/// omitted)`, as `../shared/tools/cost.py` writes it.
///
/// ```
/// use strata_ctx::eval::mask_observations;
/// use strata_ctx::Message;
///
/// let messages: Vec<Message> = (0..7).map(|i| Message::tool_text(format!("c{i}"), "bash", "a\nb\n")).collect();
/// let masked = mask_observations(&messages, 5);
/// assert_eq!(masked[0].text(), "Old environment output: (2 lines omitted)");
/// assert_eq!(masked[2].text(), "a\nb\n");
/// ```
pub fn mask_observations(messages: &[Message], keep: usize) -> Vec<Message> {
    let outputs = messages.iter().filter(|m| m.role == Role::Tool).count();
    let mut seen = 0;
    messages
        .iter()
        .map(|m| {
            if m.role != Role::Tool {
                return m.clone();
            }
            seen += 1;
            if seen + keep > outputs {
                return m.clone();
            }
            let lines = output_of(m).lines().count();
            let mut masked = m.clone();
            masked.result = None;
            masked.content = format!("Old environment output: ({lines} lines omitted)").into();
            masked
        })
        .collect()
}

/// Newest-first trimming, the baseline of [`facts_kept`]: the system
/// prompt and the first user message (when they open the transcript),
/// then as many of the newest messages as fit `budget` tokens, never
/// starting on a tool result (LangChain's `trim_messages` with
/// `strategy="last"`, slightly kinder).
pub fn trim_newest_first(messages: &[Message], budget: usize, counter: &dyn TokenCounter) -> Vec<Message> {
    let head_len = messages
        .iter()
        .take(2)
        .take_while(|m| matches!(m.role, Role::System | Role::User))
        .count();
    let head = &messages[..head_len];
    let mut used = counter.count_messages(head);
    let mut start = messages.len();
    for (i, m) in messages.iter().enumerate().skip(head_len).rev() {
        let cost = counter.count_message(m);
        if used + cost > budget {
            break;
        }
        used += cost;
        start = i;
    }
    while start < messages.len() && messages[start].role == Role::Tool {
        start += 1;
    }
    head.iter().chain(&messages[start..]).cloned().collect()
}

/// Facts of one kind: how many, how many the engine's final window holds,
/// how many newest-first trimming keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Tally {
    /// Facts of the session.
    pub facts: usize,
    /// Held by the engine's final window.
    pub strata: usize,
    /// Held by newest-first trimming at the same budget.
    pub trim: usize,
    /// Held by observation masking of all but the last five outputs
    /// (SWE-agent's default), trimmed newest-first when still over the
    /// same budget ([`mask_observations`]).
    pub mask: usize,
}

impl Tally {
    /// Adds another tally.
    pub fn add(&mut self, other: Tally) {
        self.facts += other.facts;
        self.strata += other.strata;
        self.trim += other.trim;
        self.mask += other.mask;
    }
}

/// The working facts of one session at one window (EVAL-1).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct FactsReport {
    /// The context window replayed at.
    pub window: usize,
    /// The threshold the window was kept under.
    pub threshold: usize,
    /// Files changed.
    pub files: Tally,
    /// Programs run.
    pub commands: Tally,
    /// Last error lines.
    pub errors: Tally,
    /// The facts the final window lost.
    pub lost: Vec<(FactKind, String)>,
    /// The window's tokens after every step, with what happened there.
    #[serde(skip)]
    pub steps: Vec<ReplayStep>,
    /// The replay's totals.
    #[serde(skip)]
    pub summary: ReplaySummary,
    /// What the session's calls cost under Strata and under each peer's
    /// strategy at the same budget, with the facts each one's final
    /// window keeps ([`baselines`]).
    #[serde(skip)]
    pub costs: Vec<StrategyCost>,
}

impl FactsReport {
    /// The three kinds together.
    pub fn total(&self) -> Tally {
        let mut t = self.files;
        t.add(self.commands);
        t.add(self.errors);
        t
    }
}

/// Replays `messages` through `engine` (see [`replay`]) and counts the
/// session's working facts in the final window, beside newest-first
/// trimming of the transcript at the engine's threshold (EVAL-1).
///
/// # Errors
///
/// What [`replay`] returns.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx::eval::facts_kept;
/// use strata_ctx::{Engine, Message, ToolCall, ToolResult};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build()?.block_on(async {
/// # let project = tempfile::tempdir()?;
/// let call = ToolCall::new("c1", "bash", json!({"command": "python -m pytest -q"}));
/// let transcript = vec![
///     Message::user("Fix the test."),
///     Message::assistant_with_calls("Run it.", vec![call.clone()]),
///     Message::tool_result(&call, ToolResult::success("E   AssertionError: 2 != 3\n1 failed")),
/// ];
/// let mut engine = Engine::builder(project.path()).build()?;
/// let report = facts_kept(&mut engine, &transcript).await?;
/// assert_eq!((report.commands.facts, report.commands.strata), (1, 1));
/// assert_eq!(report.errors.facts, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn facts_kept(engine: &mut Engine, messages: &[Message]) -> Result<FactsReport, EngineError> {
    let facts = Facts::of(messages);
    let mut steps = Vec::new();
    let counter = engine.shared_counter();
    let mut strata = Pricer::new(Strategy::Strata, &*counter);
    let called = calls_after_steps(messages);
    let summary = replay(engine, messages, |step, window| {
        steps.push(step.clone());
        if called.get(step.step - 1).copied().unwrap_or(true) {
            strata.call_window(window);
        }
    })
    .await?;
    let window = engine.window();
    let ours = strings_of(&window.messages());
    // Every strategy sends the same system prompt: a transcript that
    // records none is given the engine's, as Strata's windows were.
    let with_system;
    let messages = if messages.first().is_some_and(|m| m.role == Role::System) {
        messages
    } else {
        with_system = std::iter::once(Message::system(window.context.system().text()))
            .chain(messages.iter().cloned())
            .collect::<Vec<_>>();
        &with_system
    };
    let trimmed = strings_of(&trim_newest_first(messages, window.threshold, engine.counter()));
    let masked = strings_of(&trim_newest_first(
        &mask_observations(messages, MASK_KEEP),
        window.threshold,
        engine.counter(),
    ));
    let size = engine.config().window_tokens() as usize;
    let mut costs = vec![(strata.cost(), ours.clone())];
    costs.extend(
        baselines(messages, window.threshold, size, &*counter)
            .into_iter()
            .map(|(cost, last)| (cost, strings_of(&last))),
    );
    let mut report = FactsReport {
        window: size,
        threshold: window.threshold,
        steps,
        summary,
        ..FactsReport::default()
    };
    for (kind, fact) in facts.iter() {
        let tally = match kind {
            FactKind::File => &mut report.files,
            FactKind::Command => &mut report.commands,
            FactKind::Error => &mut report.errors,
        };
        tally.facts += 1;
        let kept = ours.contains(fact);
        tally.strata += usize::from(kept);
        tally.trim += usize::from(trimmed.contains(fact));
        tally.mask += usize::from(masked.contains(fact));
        if !kept {
            report.lost.push((kind, fact.to_owned()));
        }
        for (cost, text) in &mut costs {
            cost.facts += 1;
            cost.kept += usize::from(text.contains(fact));
        }
    }
    report.costs = costs.into_iter().map(|(cost, _)| cost).collect();
    Ok(report)
}

/// Diagnostic lines of one output kept by a cut: by the history form, by a
/// head cut and by a head+tail cut of the same size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Kept {
    /// Distinct lines of the class in the output.
    pub lines: usize,
    /// Kept by the history form.
    pub strata: usize,
    /// Kept by the first characters.
    pub head: usize,
    /// Kept by the first and last characters.
    pub head_tail: usize,
}

/// One command output measured (EVAL-2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct OutputRetention {
    /// The program that printed it.
    pub program: String,
    /// Characters of the output.
    pub raw_chars: usize,
    /// Characters of its history form (its strings, joined).
    pub strata_chars: usize,
    /// All diagnostic lines (errors, warnings, failures, tracebacks, exit
    /// codes, test and build summaries).
    pub diagnostics: Kept,
    /// Error-class lines only.
    pub errors: Kept,
}

/// Distinct lines of `text` that `pattern` matches, trimmed, in order.
fn key_lines<'a>(text: &'a str, pattern: &Regex) -> Vec<&'a str> {
    let mut seen = std::collections::HashSet::new();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && pattern.is_match(l) && seen.insert(*l))
        .collect()
}

fn count_kept(keys: &[&str], ours: &str, head: &str, head_tail: &str) -> Kept {
    let kept = |text: &str| keys.iter().filter(|k| text.contains(chars(k, 120))).count();
    Kept {
        lines: keys.len(),
        strata: kept(ours),
        head: kept(head),
        head_tail: kept(head_tail),
    }
}

/// Measures the history form of every command output of at least
/// [`MIN_OUTPUT_CHARS`] characters in `messages` (EVAL-2): each output goes
/// through `compressor` as a `Bash` result, and its diagnostic lines are
/// looked for in the history form and in a head cut and a head+tail cut of
/// the same number of characters. File views, edits, searches and listings
/// ([`program_of`] is `None`) are left out: their diagnostic-looking lines
/// are code or names.
pub fn retention(messages: &[Message], compressor: &Compressor) -> Vec<OutputRetention> {
    let programs: HashMap<&str, Option<String>> = messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .map(|c| (c.id.as_str(), program_of(&c.name, &c.arguments)))
        .collect();
    let mut out = Vec::new();
    for m in messages.iter().filter(|m| m.role == Role::Tool) {
        let Some(Some(program)) = m.tool_call_id.as_deref().and_then(|id| programs.get(id)) else {
            continue;
        };
        let raw = output_of(m);
        let raw_chars = raw.chars().count();
        if raw_chars < MIN_OUTPUT_CHARS {
            continue;
        }
        let form = compressor.compress("Bash", &Value::Null, &ToolResult::success(raw.as_str()));
        let ours = serde_json::to_value(&form.result)
            .map(|v| flatten(&v))
            .unwrap_or_default();
        let b = ours.chars().count();
        let head: String = raw.chars().take(b).collect();
        let head_tail = if b < raw_chars {
            let tail: String = raw.chars().skip(raw_chars - (b - b / 2)).collect();
            format!("{}{tail}", chars(&raw, b / 2))
        } else {
            raw.clone()
        };
        let measure = |pattern: &Regex| count_kept(&key_lines(&raw, pattern), &ours, &head, &head_tail);
        out.push(OutputRetention {
            program: program.clone(),
            raw_chars,
            strata_chars: b,
            diagnostics: measure(diagnostic()),
            errors: measure(error_class()),
        });
    }
    out
}

/// The totals of [`retention`] over many outputs: the reduction over all
/// of them, and per-output averages of the share of lines kept over the
/// outputs that have such lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RetentionTotals {
    /// Outputs measured.
    pub outputs: usize,
    /// Characters of the outputs.
    pub raw_chars: usize,
    /// Characters of their history forms.
    pub strata_chars: usize,
    /// How much smaller the history forms are, from 0 to 1.
    pub reduction: f64,
    /// Share of diagnostic lines kept: history form, head, head+tail.
    pub diagnostics: [f64; 3],
    /// Share of error-class lines kept: history form, head, head+tail.
    pub errors: [f64; 3],
}

impl RetentionTotals {
    /// The totals of `outputs`.
    pub fn of<'a>(outputs: impl IntoIterator<Item = &'a OutputRetention>) -> RetentionTotals {
        let mut t = RetentionTotals::default();
        let mut sums = [[0.0f64; 3]; 2];
        let mut counts = [0usize; 2];
        for o in outputs {
            t.outputs += 1;
            t.raw_chars += o.raw_chars;
            t.strata_chars += o.strata_chars;
            for (i, k) in [o.diagnostics, o.errors].iter().enumerate() {
                if k.lines == 0 {
                    continue;
                }
                counts[i] += 1;
                let n = k.lines as f64;
                sums[i][0] += k.strata as f64 / n;
                sums[i][1] += k.head as f64 / n;
                sums[i][2] += k.head_tail as f64 / n;
            }
        }
        let avg = |i: usize| sums[i].map(|s| s / counts[i].max(1) as f64);
        t.diagnostics = avg(0);
        t.errors = avg(1);
        t.reduction = 1.0 - t.strata_chars as f64 / t.raw_chars.max(1) as f64;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::{CharCounter, ToolCall};

    #[test]
    fn eval_1_facts_as_documented() {
        let bash = |id: &str, cmd: &str| ToolCall::new(id, "bash", json!({"command": cmd}));
        let calls = [
            bash("a", "cd /testbed && python reproduce.py"),
            bash("b", "sed -i 's/x/y/' src/mod.py && cat src/mod.py"),
            ToolCall::new(
                "c",
                "str_replace_editor",
                json!({"command": "create", "path": "/r/new.py"}),
            ),
            bash("d", "ls"),
        ];
        let mut messages = vec![Message::user("go")];
        for (call, out) in calls.iter().zip([
            "Traceback (most recent call last):\nValueError: bad input here\n",
            "",
            "File created",
            "a.py",
        ]) {
            messages.push(Message::assistant_with_calls("", vec![call.clone()]));
            messages.push(Message::tool_result(call, ToolResult::success(out)));
        }
        let facts = Facts::of(&messages);
        assert_eq!(facts.files, ["src/mod.py", "/r/new.py"]);
        assert_eq!(facts.commands, ["cd /testbed && python reproduce.py"]);
        assert_eq!(facts.errors, ["ValueError: bad input here"]);
        assert_eq!(effective_command("FOO=1 timeout 5 pytest -x"), "pytest");
        assert_eq!(program_of("bash", &json!({"command": "cd x && grep -r y"})), None);
    }

    /// EVAL-1: a transcript that records no system prompt (a Codex
    /// rollout) is priced with the engine's for every strategy: a short
    /// session that Strata leaves untouched costs what the full history
    /// costs.
    #[tokio::test]
    async fn every_strategy_sends_the_engine_system_prompt() -> Result<(), Box<dyn std::error::Error>> {
        let call = ToolCall::new("a", "bash", json!({"command": "pytest -q"}));
        let messages = vec![
            Message::user("fix the test"),
            Message::assistant_with_calls("", vec![call.clone()]),
            Message::tool_result(&call, ToolResult::success("1 failed, 2 passed")),
            Message::assistant("fixed"),
        ];
        let project = tempfile::tempdir()?;
        let mut engine = Engine::builder(project.path())
            .system_prompt("You are a coding agent. ".repeat(200))
            .build()?;
        let report = facts_kept(&mut engine, &messages).await?;
        let tokens = |s: Strategy| {
            report
                .costs
                .iter()
                .find(|c| c.strategy == s)
                .map(|c| c.anthropic.input_tokens)
                .unwrap_or_default()
        };
        let (strata, full) = (tokens(Strategy::Strata), tokens(Strategy::Full));
        assert!(full > 1_000, "the system prompt is priced: {full}");
        assert_eq!(strata, full);
        Ok(())
    }

    /// EVAL-1: a last call the run never answered is followed by no model
    /// call, under any strategy; nor is a call the same response made
    /// beside the next (Claude Code's parallel calls).
    #[tokio::test]
    async fn calls_are_priced_where_the_agent_called_the_model() -> Result<(), Box<dyn std::error::Error>> {
        let call = ToolCall::new("a", "bash", json!({"command": "pytest -q"}));
        let read = ToolCall::new("r", "Read", json!({"file_path": "a.py"}));
        let grep = ToolCall::new("g", "Grep", json!({"pattern": "x"}));
        let stopped = ToolCall::new("b", "bash", json!({"command": "pytest -q"}));
        let messages = vec![
            Message::system("You are a coding agent."),
            Message::user("fix the test"),
            Message::assistant_with_calls("", vec![call.clone()]),
            Message::tool_result(&call, ToolResult::success("1 failed, 2 passed")),
            Message::assistant("Let me look at the code."),
            Message::assistant_with_calls("", vec![read.clone()]),
            Message::assistant_with_calls("", vec![grep.clone()]),
            Message::tool_result(&read, ToolResult::success("x = 1")),
            Message::tool_result(&grep, ToolResult::success("a.py:1:x = 1")),
            Message::assistant_with_calls("", vec![stopped]),
        ];
        assert_eq!(calls_after_steps(&messages), [true, false, false, true, false]);
        let project = tempfile::tempdir()?;
        let mut engine = Engine::builder(project.path())
            .system_prompt("You are a coding agent.")
            .build()?;
        let report = facts_kept(&mut engine, &messages).await?;
        let calls: Vec<u64> = report.costs.iter().map(|c| c.anthropic.calls).collect();
        assert_eq!(calls.len(), 6, "{calls:?}");
        assert!(calls.iter().all(|&n| n == 2), "{calls:?}");
        Ok(())
    }

    #[test]
    fn trim_keeps_head_and_newest_and_never_starts_on_a_result() {
        let call = ToolCall::new("a", "bash", json!({"command": "x"}));
        let messages = vec![
            Message::system("sys"),
            Message::user("task"),
            Message::assistant_with_calls("t".repeat(300), vec![call.clone()]),
            Message::tool_result(&call, ToolResult::success("out")),
            Message::assistant("done"),
        ];
        let counter = CharCounter;
        let kept = trim_newest_first(&messages, counter.count_messages(&messages[..2]) + 30, &counter);
        assert_eq!(kept.len(), 3, "{kept:?}");
        assert_eq!(kept[2].content, "done");
    }

    #[test]
    fn eval_2_retention_against_cuts() {
        let mut out: String = (0..300).map(|i| format!("collecting item {i}\n")).collect();
        out.insert_str(
            out.len() / 2,
            "FAILED tests/test_a.py::test_x - AssertionError: 1 != 2\n",
        );
        out.push_str("=== 1 failed, 299 passed in 2.0s ===\n");
        let call = ToolCall::new("a", "bash", json!({"command": "pytest"}));
        let messages = vec![
            Message::assistant_with_calls("", vec![call.clone()]),
            Message::tool_result(&call, ToolResult::success(out.as_str())),
        ];
        let measured = retention(&messages, &Compressor::new());
        assert_eq!(measured.len(), 1);
        let m = &measured[0];
        assert_eq!(m.diagnostics.lines, 2);
        assert_eq!(m.diagnostics.strata, 2);
        assert!(m.diagnostics.head < 2);
        let totals = RetentionTotals::of(&measured);
        assert!(totals.reduction > 0.8, "{totals:?}");
        assert_eq!(totals.diagnostics[0], 1.0);
    }
}

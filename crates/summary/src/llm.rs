//! The summariser over an [`LlmClient`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use strata_ctx_core::{
    async_trait, CharCounter, Config, LlmClient, LlmError, LlmOptions, LlmRequest, LlmResult as Result,
    Message, ProgressFn, Role, Summarizer, SummaryProgress, TokenCounter,
};
use strata_ctx_prompts as prompts;

/// The first line of every archived summary (HIST-5).
pub const SUMMARY_HEADER: &str = "## 📌 Archived Session Summary";

/// The header of a summary of `messages`: [`SUMMARY_HEADER`] and the
/// covered time span, from the first to the last message's `created_at`
/// (`unknown` where no message carries one).
pub fn summary_header(messages: &[Message]) -> String {
    let (start, end) = span(messages);
    format!("{SUMMARY_HEADER}\n*(Contains context from {start} to {end})*")
}

fn span(messages: &[Message]) -> (String, String) {
    let first = messages.iter().find_map(|m| m.created_at);
    let last = messages.iter().rev().find_map(|m| m.created_at);
    let show = |t: Option<strata_ctx_core::Timestamp>| {
        t.map_or_else(|| "unknown".to_owned(), |t| t.to_display_string())
    };
    (show(first), show(last))
}

/// The text form of `messages` that the summariser reads: one block per
/// message, `[role]` first; tool calls as `Action: name(arguments)`; tool
/// results under `[tool name]`, each cut to `max_tool_chars` characters.
pub fn transcript(messages: &[Message], max_tool_chars: usize) -> String {
    let mut out = String::new();
    for m in messages {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&entry(m, max_tool_chars));
    }
    out
}

fn entry(m: &Message, max_tool_chars: usize) -> String {
    match m.role {
        Role::Tool => {
            let text = m.text();
            let name = m.tool_name.as_deref().unwrap_or("tool");
            let count = text.chars().count();
            if count > max_tool_chars {
                let kept: String = text.chars().take(max_tool_chars).collect();
                format!(
                    "[tool {name}] {kept}\n[… {} more characters …]",
                    count - max_tool_chars
                )
            } else {
                format!("[tool {name}] {text}")
            }
        }
        _ => {
            let mut s = format!("[{}] {}", m.role, m.content);
            for call in &m.tool_calls {
                s.push_str(&format!("\nAction: {}({})", call.name, call.arguments));
            }
            s
        }
    }
}

/// Summarises old rounds with a model (HIST-5, HIST-7, HIST-12).
///
/// See the crate documentation for what it does; every setting has a
/// `with_*` method whose documentation gives the default.
#[derive(Clone)]
pub struct LlmSummarizer {
    client: Arc<dyn LlmClient>,
    prompt: String,
    counter: Arc<dyn TokenCounter>,
    max_input_tokens: usize,
    max_tool_chars: usize,
    max_attempts: usize,
    timeout: Duration,
    options: LlmOptions,
    progress: Option<ProgressFn>,
}

impl fmt::Debug for LlmSummarizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmSummarizer")
            .field("max_input_tokens", &self.max_input_tokens)
            .field("max_tool_chars", &self.max_tool_chars)
            .field("max_attempts", &self.max_attempts)
            .field("timeout", &self.timeout)
            .field("options", &self.options)
            .field("progress", &self.progress.is_some())
            .finish_non_exhaustive()
    }
}

/// One unit of the input: a message, or an assistant step with the results
/// of its calls, which are never split across chunks.
#[derive(Debug, Clone)]
struct Unit {
    text: String,
    tokens: usize,
}

impl LlmSummarizer {
    /// A summariser over `client` with the defaults.
    pub fn new(client: Arc<dyn LlmClient>) -> Self {
        LlmSummarizer {
            client,
            prompt: prompts::SUMMARY.to_owned(),
            counter: Arc::new(CharCounter),
            max_input_tokens: 64_000,
            max_tool_chars: 2_000,
            max_attempts: 4,
            timeout: Duration::from_secs(120),
            options: LlmOptions::new().with_temperature(0.0),
            progress: None,
        }
    }

    /// A summariser over `client` as `config` asks (CORE-7): the time
    /// limit is [`Config::summary_timeout`] and the model
    /// [`Config::summary_model`] when it is set (the client's otherwise).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use strata_ctx_core::Config;
    /// use strata_ctx_summary::LlmSummarizer;
    /// use strata_ctx_testkit::ScriptedClient;
    ///
    /// let mut config = Config::default();
    /// config.set("summary_model", "small-model")?;
    /// config.set("summary_timeout", "30s")?;
    /// let summarizer = LlmSummarizer::from_config(Arc::new(ScriptedClient::new()), &config);
    /// assert!(format!("{summarizer:?}").contains("small-model"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_config(client: Arc<dyn LlmClient>, config: &Config) -> Self {
        let summarizer = LlmSummarizer::new(client).with_timeout(config.summary_timeout);
        match &config.summary_model {
            Some(model) => summarizer.with_model(model.clone()),
            None => summarizer,
        }
    }

    /// Sets the prompt (placeholders `{{start}}` and `{{end}}`). By default,
    /// `prompts/summary.md`.
    pub fn with_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = prompt.into();
        self
    }

    /// Sets the model. By default, the client's (the agent's model).
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.options.model = Some(model.into());
        self
    }

    /// Sets the callback that sees the summary's progress (a chunk started,
    /// the input shrunk after an overflow), so that someone waiting for a
    /// long compaction sees it move. It must return quickly. By default,
    /// none.
    pub fn with_progress(mut self, progress: ProgressFn) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Sets the time limit of the whole summary, all chunks and retries
    /// included. By default, 120 s.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets how many input tokens one request may carry, prompt included;
    /// larger input is summarised in chunks. By default, 64,000.
    pub fn with_max_input_tokens(mut self, tokens: usize) -> Self {
        self.max_input_tokens = tokens;
        self
    }

    /// Sets the counter that measures the input. By default,
    /// [`CharCounter`].
    pub fn with_counter(mut self, counter: Arc<dyn TokenCounter>) -> Self {
        self.counter = counter;
        self
    }

    /// Sets the characters of each tool result in the transcript. By
    /// default, 2,000.
    pub fn with_max_tool_chars(mut self, chars: usize) -> Self {
        self.max_tool_chars = chars;
        self
    }

    /// Sets how many tries one chunk gets when the model rejects it as too
    /// long, shrinking it each time. By default, 4.
    pub fn with_max_attempts(mut self, attempts: usize) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    fn units(&self, messages: &[Message]) -> Vec<Unit> {
        let mut units: Vec<Unit> = Vec::new();
        let mut open_step = false;
        for m in messages {
            let text = entry(m, self.max_tool_chars);
            if m.role == Role::Tool && open_step {
                if let Some(last) = units.last_mut() {
                    last.text.push_str("\n\n");
                    last.text.push_str(&text);
                    last.tokens = self.counter.count_text(&last.text);
                    continue;
                }
            }
            open_step = m.role == Role::Assistant && m.has_tool_calls();
            let tokens = self.counter.count_text(&text);
            units.push(Unit { text, tokens });
        }
        units
    }

    /// Packs units into chunks of at most `budget` tokens; a unit larger
    /// than the budget is cut to it.
    fn chunks(&self, units: Vec<Unit>, budget: usize) -> Vec<Vec<Unit>> {
        let mut chunks: Vec<Vec<Unit>> = Vec::new();
        let mut current: Vec<Unit> = Vec::new();
        let mut used = 0;
        for mut unit in units {
            if unit.tokens > budget {
                // Keep roughly `budget` tokens' worth of its start.
                let keep = unit.text.chars().count() * budget / unit.tokens.max(1);
                unit.text = unit.text.chars().take(keep).collect();
                unit.text.push_str("\n[… cut to fit the summariser …]");
                unit.tokens = self.counter.count_text(&unit.text).min(budget);
            }
            if used + unit.tokens > budget && !current.is_empty() {
                chunks.push(std::mem::take(&mut current));
                used = 0;
            }
            used += unit.tokens;
            current.push(unit);
        }
        if !current.is_empty() {
            chunks.push(current);
        }
        chunks
    }

    fn request(&self, system: &str, earlier: Option<&str>, units: &[Unit]) -> LlmRequest {
        let mut body = String::new();
        if let Some(earlier) = earlier {
            body.push_str("Summary of the earlier part of these messages (merge it into your archive):\n");
            body.push_str(earlier);
            body.push_str("\n\nThe messages that follow it:\n\n");
        } else {
            body.push_str("The messages to archive:\n\n");
        }
        for (i, u) in units.iter().enumerate() {
            if i > 0 {
                body.push_str("\n\n");
            }
            body.push_str(&u.text);
        }
        LlmRequest::new(vec![Message::system(system), Message::user(body)]).with_options(self.options.clone())
    }

    /// Shrinks a chunk for a new try: clears the oldest half of the tool
    /// results still present, then, when none is left, drops the oldest
    /// quarter of the units (keeping one). Returns `false` when nothing
    /// can be shrunk any more.
    fn shrink(&self, units: &mut Vec<Unit>) -> bool {
        let with_results: Vec<usize> = units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.text.contains("[tool ") && !u.text.ends_with("[tool results cleared]"))
            .map(|(i, _)| i)
            .collect();
        if !with_results.is_empty() {
            for &i in &with_results[..with_results.len().div_ceil(2)] {
                let unit = &mut units[i];
                let head = unit
                    .text
                    .split("\n\n[tool ")
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                let head = if head.starts_with("[tool ") {
                    String::new()
                } else {
                    head
                };
                unit.text = format!("{head}\n[tool results cleared]");
                unit.tokens = self.counter.count_text(&unit.text);
            }
            return true;
        }
        if units.len() > 1 {
            let drop = units.len().div_ceil(4).min(units.len() - 1);
            units.drain(..drop);
            return true;
        }
        false
    }

    async fn run(&self, messages: &[Message]) -> Result<String> {
        let progress = self.progress.as_ref();
        let (start, end) = span(messages);
        let system = prompts::fill(&self.prompt, &[("start", &start), ("end", &end)]);
        let overhead = self.counter.count_text(&system) + 200;
        let budget = self.max_input_tokens.saturating_sub(overhead).max(1);
        let units = self.units(messages);
        let input_chars: usize = units.iter().map(|u| u.text.chars().count()).sum();
        let chunks = self.chunks(units, budget);
        let total = chunks.len();
        let mut summary: Option<String> = None;
        for (n, mut chunk) in chunks.into_iter().enumerate() {
            if let Some(p) = progress {
                p(SummaryProgress::ChunkStarted {
                    chunk: n + 1,
                    chunks: total,
                });
            }
            let mut attempt = 1;
            let answer = loop {
                let request = self.request(&system, summary.as_deref(), &chunk);
                match self.client.complete(request).await {
                    Ok(answer) => break answer,
                    Err(e)
                        if e.is_context_too_long()
                            && attempt < self.max_attempts
                            && self.shrink(&mut chunk) =>
                    {
                        attempt += 1;
                        if let Some(p) = progress {
                            let tokens = chunk.iter().map(|u| u.tokens).sum();
                            p(SummaryProgress::Shrunk { attempt, tokens });
                        }
                    }
                    Err(e) => return Err(e),
                }
            };
            summary = Some(answer.text.trim().to_owned());
        }
        let text = summary.unwrap_or_default();
        if text.is_empty() {
            return Err(LlmError::InvalidResponse {
                message: "the summary is empty".into(),
            });
        }
        if text.chars().count() > input_chars.max(2_000) {
            return Err(LlmError::InvalidResponse {
                message: format!(
                    "the summary ({} characters) is longer than what it summarises",
                    text.chars().count()
                ),
            });
        }
        Ok(with_header(&text, messages))
    }
}

/// `text` starting with the header of `messages`, replacing a header line
/// the model wrote itself.
fn with_header(text: &str, messages: &[Message]) -> String {
    let mut body = text;
    if let Some(rest) = body.strip_prefix(SUMMARY_HEADER) {
        body = rest.trim_start_matches(|c: char| c != '\n');
        body = body.trim_start_matches('\n');
        if body.starts_with("*(Contains context") {
            body = body
                .split_once('\n')
                .map_or("", |(_, r)| r)
                .trim_start_matches('\n');
        }
    }
    format!("{}\n\n{}", summary_header(messages), body)
}

#[async_trait]
impl Summarizer for LlmSummarizer {
    async fn summarize(&self, messages: &[Message]) -> Result<String> {
        match tokio::time::timeout(self.timeout, self.run(messages)).await {
            Ok(result) => result,
            Err(_) => Err(LlmError::Timeout { after: self.timeout }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_not_doubled() {
        let m = [Message::user("x").with_created_at(strata_ctx_core::Timestamp::from_unix_millis(0))];
        let once = with_header("### 🎯 Objectives & Status\n* done", &m);
        assert_eq!(
            once,
            "## 📌 Archived Session Summary\n*(Contains context from 1970-01-01 00:00:00 UTC to 1970-01-01 00:00:00 UTC)*\n\n### 🎯 Objectives & Status\n* done"
        );
        assert_eq!(with_header(&once, &m), once);
    }
}

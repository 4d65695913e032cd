//! Optional LLM summaries of tool results (TOOL-12).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use strata_ctx_core::{Config, LlmClient, LlmOptions, LlmRequest, Message};
use strata_ctx_prompts as prompts;
use tokio::task::JoinHandle;

use crate::text;

/// Where a [`ToolSummary`] comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SummarySource {
    /// The model wrote it.
    Llm,
    /// The rule-based extract, because the model timed out, failed or gave
    /// an empty answer; `reason` says which.
    Extract {
        /// Why the model's summary was not used.
        reason: String,
    },
}

/// A short summary of one tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolSummary {
    /// The summary, at most [`ToolSummarizer::max_chars`] characters.
    pub text: String,
    /// Where it comes from.
    pub source: SummarySource,
}

/// The rule-based extract of a tool output: its first 2 lines and the
/// lines that carry errors, warnings and other diagnostics, at most 800
/// characters.
///
/// # Example
///
/// ```
/// let out = "collected 3 items\n\ntest_a PASSED\ntest_b FAILED: assert 1 == 2\ndone";
/// assert_eq!(strata_ctx_compress::extract(out), "collected 3 items\ntest_b FAILED: assert 1 == 2");
/// ```
pub fn extract(output: &str) -> String {
    text::extract(output, 2, 800)
}

/// Summarises tool results with a small model (TOOL-12), falling back to
/// [`extract`] on timeout, error or an empty answer, so a result is never
/// replaced by a bare placeholder.
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use strata_ctx_compress::{SummarySource, ToolSummarizer};
/// use strata_ctx_testkit::ScriptedClient;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let client = ScriptedClient::new();
/// client.push_text("cargo test failed: 1 of 12 tests (parser::nested) panicked at src/parser.rs:88.");
/// let summarizer = ToolSummarizer::new(Arc::new(client));
/// let summary = summarizer.summarize("Bash", "running 12 tests\n...").await;
/// assert_eq!(summary.source, SummarySource::Llm);
/// # }
/// ```
#[derive(Clone)]
pub struct ToolSummarizer {
    client: Arc<dyn LlmClient>,
    prompt: String,
    timeout: Duration,
    max_input_chars: usize,
    max_chars: usize,
    options: LlmOptions,
}

impl fmt::Debug for ToolSummarizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSummarizer")
            .field("timeout", &self.timeout)
            .field("max_input_chars", &self.max_input_chars)
            .field("max_chars", &self.max_chars)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl ToolSummarizer {
    /// A summariser over `client` with the prompt of
    /// `prompts/tool_result_summary.md`, a 3 s timeout, input capped at 8,000
    /// characters and summaries at 800.
    pub fn new(client: Arc<dyn LlmClient>) -> Self {
        ToolSummarizer {
            client,
            prompt: prompts::TOOL_RESULT_SUMMARY.to_owned(),
            timeout: Duration::from_secs(3),
            max_input_chars: 8_000,
            max_chars: 800,
            options: LlmOptions::new().with_max_tokens(300).with_temperature(0.0),
        }
    }

    /// A summariser over `client` as `config` asks (CORE-7): the time
    /// limit is [`Config::tool_summary_timeout`] and the model
    /// [`Config::summary_model`] when it is set (the client's otherwise).
    pub fn from_config(client: Arc<dyn LlmClient>, config: &Config) -> Self {
        let summarizer = ToolSummarizer::new(client).with_timeout(config.tool_summary_timeout);
        match &config.summary_model {
            Some(model) => summarizer.with_model(model.clone()),
            None => summarizer,
        }
    }

    /// Sets the prompt template (placeholders `{{tool}}` and `{{output}}`).
    /// By default, `prompts/tool_result_summary.md`.
    pub fn with_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = prompt.into();
        self
    }

    /// Sets the time limit. By default, 3 s.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the model. By default, the client's.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.options.model = Some(model.into());
        self
    }

    /// The most characters of a summary: 800.
    pub fn max_chars(&self) -> usize {
        self.max_chars
    }

    /// Summarises the output of `tool`. Never fails: see [`SummarySource`].
    pub async fn summarize(&self, tool: &str, output: &str) -> ToolSummary {
        let capped: String = output.chars().take(self.max_input_chars).collect();
        let prompt = prompts::fill(&self.prompt, &[("tool", tool), ("output", &capped)]);
        let request = LlmRequest::new(vec![Message::user(prompt)])
            .with_options(self.options.clone().with_timeout(self.timeout));
        let reason = match tokio::time::timeout(self.timeout, self.client.complete(request)).await {
            Err(_) => format!("timed out after {:?}", self.timeout),
            Ok(Err(e)) => e.to_string(),
            Ok(Ok(answer)) => {
                let text = answer.text.trim();
                if text.is_empty() {
                    "the model gave an empty answer".to_owned()
                } else {
                    return ToolSummary {
                        text: cap_chars(text, self.max_chars),
                        source: SummarySource::Llm,
                    };
                }
            }
        };
        ToolSummary {
            text: text::extract(output, 2, self.max_chars),
            source: SummarySource::Extract { reason },
        }
    }

    /// Starts summarising in the background, right after the tool ran;
    /// pick the summary up later with [`PendingSummaries::take`]. Outside a
    /// tokio runtime the extract is stored at once.
    pub fn start(&self, pending: &PendingSummaries, call_id: &str, tool: &str, output: &str) {
        let entry = match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                let this = self.clone();
                let (tool, output) = (tool.to_owned(), output.to_owned());
                Entry::Running(handle.spawn(async move { this.summarize(&tool, &output).await }))
            }
            Err(_) => Entry::Ready(ToolSummary {
                text: text::extract(output, 2, self.max_chars),
                source: SummarySource::Extract {
                    reason: "no async runtime to run the model on".into(),
                },
            }),
        };
        pending.insert(call_id, entry);
    }
}

fn cap_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

enum Entry {
    Running(JoinHandle<ToolSummary>),
    Ready(ToolSummary),
}

/// Summaries being computed, by tool call id.
#[derive(Default)]
pub struct PendingSummaries {
    entries: Mutex<HashMap<String, Entry>>,
}

impl fmt::Debug for PendingSummaries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingSummaries")
            .field("len", &self.len())
            .finish()
    }
}

impl PendingSummaries {
    /// No summaries.
    pub fn new() -> Self {
        PendingSummaries::default()
    }

    fn insert(&self, call_id: &str, entry: Entry) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Entry::Running(old)) = entries.insert(call_id.to_owned(), entry) {
            old.abort();
        }
    }

    /// The number of summaries started and not yet taken.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Returns `true` when no summary is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Waits for the summary of `call_id` and removes it; `None` when none
    /// was started for that id.
    pub async fn take(&self, call_id: &str) -> Option<ToolSummary> {
        let entry = self
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(call_id)?;
        match entry {
            Entry::Ready(summary) => Some(summary),
            Entry::Running(handle) => Some(handle.await.unwrap_or_else(|e| ToolSummary {
                text: String::new(),
                source: SummarySource::Extract {
                    reason: format!("the summary task failed: {e}"),
                },
            })),
        }
    }
}

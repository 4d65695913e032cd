//! Context management delegated to the model provider (MODEL-7): what
//! each request asks of it, and what its answers say it did.
//!
//! The budget stays the engine's. With delegation on, the provider acts
//! at `compact_threshold` ([`Config::server_trigger_tokens`]) and the
//! engine's own compaction and condensing step back to
//! `server_context_guard` ([`Config::threshold_tokens`]), as a safety net
//! for edits that free too little. The engine keeps the whole
//! conversation, as the providers expect of their clients; its estimate of
//! the window follows the provider's own count, because every answer's
//! usage (counted after the edits) anchors it (REACT-4). Compaction
//! blocks and items stay on the assistant message that brought them, in
//! the log, so that resume and replay send them back.

use strata_ctx_core::{AppliedEdit, ContextEdits, EditKind, LlmClient};

use super::{Engine, EngineError};
use crate::event::Event;

/// What the provider's context management did so far (MODEL-7): the sums
/// of the edits its answers reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerContextStats {
    /// Answers whose request the provider edited.
    pub edited_calls: u64,
    /// Tool uses cleared.
    pub cleared_tool_uses: u64,
    /// Assistant turns whose reasoning was cleared.
    pub cleared_thinking_turns: u64,
    /// Input tokens the edits removed, as the provider reported them.
    pub cleared_input_tokens: u64,
    /// Compactions the provider ran.
    pub compactions: u64,
}

impl ServerContextStats {
    /// Adds one answer's edits.
    pub fn add(&mut self, edits: &[AppliedEdit]) {
        if edits.is_empty() {
            return;
        }
        self.edited_calls += 1;
        for edit in edits {
            self.cleared_tool_uses += edit.cleared_tool_uses;
            self.cleared_thinking_turns += edit.cleared_thinking_turns;
            self.cleared_input_tokens += edit.cleared_input_tokens;
            if edit.kind == EditKind::Compaction {
                self.compactions += 1;
            }
        }
    }
}

impl Engine {
    /// What each request asks the provider to do on its side (MODEL-7),
    /// from the configuration: `None` when
    /// [`Config::server_context`](strata_ctx_core::Config::server_context)
    /// is off. The provider acts at `compact_threshold`, keeps the newest
    /// `keep_tool_messages` tool uses (HIST-6), frees at least the engine's
    /// shed batch when it clears (HIST-15), and never clears the results
    /// of the declared tools that are protected.
    pub fn server_context(&self) -> Option<ContextEdits> {
        let mode = self.config.server_context;
        if !mode.is_on() {
            return None;
        }
        let exclude: Vec<String> = self
            .layers
            .system()
            .tools()
            .iter()
            .filter(|t| self.history.is_protected_tool(&t.name))
            .map(|t| t.name.clone())
            .collect();
        Some(
            ContextEdits::new(mode, self.config.server_trigger_tokens())
                .with_keep_tool_uses(u32::try_from(self.config.keep_tool_messages).unwrap_or(u32::MAX))
                .with_clear_at_least(self.history.budget().clear_batch() as u64)
                .with_exclude_tools(exclude),
        )
    }

    /// What the provider's context management did so far (MODEL-7).
    pub fn server_context_stats(&self) -> ServerContextStats {
        self.calls.server_stats()
    }

    /// The edits to send with a request to `client`.
    ///
    /// # Errors
    ///
    /// [`EngineError::ServerContextUnsupported`] when delegation is on and
    /// `client` does not offer the configured mode: the engine does not
    /// silently manage nothing.
    pub(super) fn server_edits_for(
        &self,
        client: &dyn LlmClient,
    ) -> Result<Option<ContextEdits>, EngineError> {
        let mode = self.config.server_context;
        if !client.manages_context(mode) {
            return Err(EngineError::ServerContextUnsupported { mode });
        }
        Ok(self.server_context())
    }

    /// Takes an answer's applied edits into the statistics and reports
    /// them.
    pub(super) fn note_edits(&mut self, edits: &[AppliedEdit]) {
        if edits.is_empty() {
            return;
        }
        let totals = self.calls.add_edits(edits);
        self.emit(Event::ServerContextEdited {
            edits: edits.to_vec(),
            totals,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use strata_ctx_core::{Config, LlmOptions, LlmResponse, ServerContext, Usage};
    use strata_ctx_prompt::{ToolMode, ToolSpec};
    use strata_ctx_testkit::ScriptedClient;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
    }

    fn engine(dir: &std::path::Path, mode: ServerContext) -> (Engine, mpsc::Receiver<Event>) {
        let mut config = Config::from_toml_str("context_window = 10000\ncompact_threshold = 0.5").unwrap();
        config.server_context = mode;
        let (tx, rx) = mpsc::channel();
        let tools = vec![
            ToolSpec::new("Read", "Reads.", serde_json::Value::Null),
            ToolSpec::new("Todo", "Plans.", serde_json::Value::Null),
        ];
        let e = Engine::builder(dir)
            .config(config)
            .tool_mode(ToolMode::Native)
            .tools(tools)
            .protected_tools(["todo"])
            .events_to(tx)
            .build()
            .unwrap();
        (e, rx)
    }

    /// MODEL-7: what each request asks, from the configuration; the
    /// engine's own threshold steps back to the guard.
    #[test]
    fn model_7_requests_ask_what_the_config_says() {
        let dir = tempfile::tempdir().unwrap();
        let (off, _) = engine(dir.path(), ServerContext::Off);
        assert_eq!(off.server_context(), None);
        assert_eq!(off.threshold_tokens(), 5_000);
        let (on, _) = engine(dir.path(), ServerContext::Both);
        assert_eq!(on.threshold_tokens(), 9_500, "the guard, 0.95 of the window");
        let edits = on.server_context().unwrap();
        assert_eq!(edits.mode, ServerContext::Both);
        assert_eq!(
            edits.trigger_tokens, 5_000,
            "the provider acts at compact_threshold"
        );
        assert_eq!(edits.keep_tool_uses, 6);
        assert_eq!(
            edits.clear_at_least,
            Some(9_500 / 2),
            "the shed batch: half the threshold"
        );
        assert_eq!(
            edits.exclude_tools,
            ["Todo"],
            "protected tools keep their results"
        );
    }

    /// MODEL-7: a client that does not offer the mode gets nothing sent;
    /// one that does gets the edits, and the answer's edits are an event
    /// and statistics; its usage anchors the estimate.
    #[test]
    fn model_7_delegation_refused_or_reported() {
        let dir = tempfile::tempdir().unwrap();
        let (mut e, events) = engine(dir.path(), ServerContext::Clear);
        let plain = ScriptedClient::new();
        plain.push_text("never sent");
        block_on(async {
            e.begin_round("go").await.unwrap();
            let err = e.complete(&plain, LlmOptions::new()).await.unwrap_err();
            assert!(
                matches!(
                    err,
                    EngineError::ServerContextUnsupported {
                        mode: ServerContext::Clear
                    }
                ),
                "{err}"
            );
        });
        assert_eq!(plain.calls(), 0, "nothing was sent");

        let client = ScriptedClient::new().managing_context();
        let mut clear = AppliedEdit::new(EditKind::ClearToolUses);
        clear.cleared_tool_uses = 3;
        clear.cleared_input_tokens = 4_000;
        client.push(
            std::time::Duration::ZERO,
            Ok(LlmResponse::new("done", Usage::new(1_234, 5)).with_context_edits(vec![clear.clone()])),
        );
        let answer = block_on(e.complete(&client, LlmOptions::new())).unwrap();
        assert_eq!(answer.context_edits, [clear.clone()]);
        let sent = client.requests();
        assert_eq!(sent[0].server_context, e.server_context());
        let stats = e.server_context_stats();
        assert_eq!(
            (
                stats.edited_calls,
                stats.cleared_tool_uses,
                stats.cleared_input_tokens
            ),
            (1, 3, 4_000)
        );
        let reported: Vec<Event> = events.try_iter().collect();
        assert!(
            reported.contains(&Event::ServerContextEdited {
                edits: vec![clear],
                totals: stats
            }),
            "{reported:?}"
        );
        assert_eq!(e.window_tokens(), 1_234, "the provider's count after its edits");
    }

    #[test]
    fn model_7_stats_add_up() {
        let mut stats = ServerContextStats::default();
        stats.add(&[]);
        assert_eq!(stats, ServerContextStats::default(), "no edit, no edited call");
        let mut clear = AppliedEdit::new(EditKind::ClearToolUses);
        clear.cleared_tool_uses = 5;
        clear.cleared_input_tokens = 12_000;
        stats.add(&[clear.clone(), AppliedEdit::new(EditKind::Compaction)]);
        stats.add(&[clear]);
        assert_eq!(stats.edited_calls, 2);
        assert_eq!(stats.cleared_tool_uses, 10);
        assert_eq!(stats.cleared_input_tokens, 24_000);
        assert_eq!(stats.compactions, 1);
    }
}

//! The session context (MEM-1): kept by rules over each step's calls and
//! results and by the agent's `remember` / `forget` calls, shown every
//! turn as its own layer after the scratchpad, logged change by change.

use std::sync::Arc;

use strata_ctx_core::{Message, ToolCall, ToolResult};
use strata_ctx_history::{path_argument, Record};
use strata_ctx_memory::{
    session_rule_fn, SessionContext, SessionError, SessionLimits, SessionRule, SessionRuleFn, Source, Update,
};
use strata_ctx_prompt::{Context, SystemLayer};

use super::Engine;
use crate::event::Event;

/// How many paths the built-in `files` rule keeps.
const FILES_KEPT: usize = 8;

/// The engine's session context and what keeps it.
pub(super) struct SessionState {
    pub(super) record: SessionContext,
    pub(super) rules: Vec<Arc<dyn SessionRule>>,
    pub(super) text: Option<String>,
    pub(super) tokens: usize,
}

impl SessionState {
    /// A record with `limits`, kept by `rules`, rebuilt from the
    /// conversation's logged changes (STORE-3: resume equals live).
    pub(super) fn new(limits: SessionLimits, rules: Vec<Arc<dyn SessionRule>>, loaded: &[Record]) -> Self {
        let mut record = SessionContext::new(limits);
        for r in loaded {
            if let Record::Session { update } = r {
                // Logged changes were valid when made; one that is not
                // (a log written by hand) is skipped, as live it would
                // have been refused.
                let _ = record.apply(update);
            }
        }
        SessionState {
            record,
            rules,
            text: None,
            tokens: 0,
        }
    }
}

/// The built-in rule of the session context: the paths the agent's calls
/// name (`path`, `file_path`, …), newest first, under `files`.
pub fn files_rule() -> SessionRuleFn {
    session_rule_fn("files", |call: &ToolCall, _result: &Message| {
        path_argument(&call.arguments)
            .filter(|p| !p.trim().is_empty())
            .map(|p| Update::push("files", p, FILES_KEPT, Source::Rule("files".into())))
            .into_iter()
            .collect()
    })
}

impl Engine {
    /// The session context (MEM-1), when it is on
    /// ([`EngineBuilder::session_context`](crate::EngineBuilder::session_context)).
    pub fn session_context(&self) -> Option<&SessionContext> {
        self.memories.session.as_ref().map(|s| &s.record)
    }

    /// Sets `key` of the session context to `value`, as the agent. Returns
    /// whether it changed; `false` when the session context is off.
    ///
    /// # Errors
    ///
    /// [`SessionError`] for a key that is not valid or an empty value.
    pub fn remember(&mut self, key: &str, value: &str) -> Result<bool, SessionError> {
        self.update_session(Update::set(key, value, Source::Agent))
    }

    /// Removes `key` from the session context. Returns whether it was
    /// there.
    ///
    /// # Errors
    ///
    /// [`SessionError`] for a key that is not valid.
    pub fn forget(&mut self, key: &str) -> Result<bool, SessionError> {
        self.update_session(Update::forget(key))
    }

    /// Runs the agent's `remember` or `forget` call
    /// ([`memory_tools`](strata_ctx_memory::memory_tools)) on the session
    /// context and returns the result to record for it; `None` for any
    /// other call, or when the session context is off.
    pub fn memory_tool(&mut self, call: &ToolCall) -> Option<ToolResult> {
        let state = self.memories.session.as_mut()?;
        let (result, update) = state.record.handle_tool(call)?;
        if let Some(update) = update {
            self.session_changed(update);
        }
        Some(result)
    }

    fn update_session(&mut self, update: Update) -> Result<bool, SessionError> {
        let Some(state) = self.memories.session.as_mut() else {
            return Ok(false);
        };
        let changed = state.record.apply(&update)?;
        if changed {
            self.session_changed(update);
        }
        Ok(changed)
    }

    /// Runs the session rules over a step's calls and their results.
    pub(super) fn observe_session(&mut self, assistant: &Message, results: &[Message]) {
        let Some(state) = self.memories.session.as_mut() else {
            return;
        };
        let mut applied = Vec::new();
        for call in &assistant.tool_calls {
            let Some(result) = results
                .iter()
                .find(|m| m.tool_call_id.as_deref() == Some(call.id.as_str()))
            else {
                continue;
            };
            for rule in &state.rules {
                for update in rule.updates(call, result) {
                    if state.record.apply(&update) == Ok(true) {
                        applied.push(update);
                    }
                }
            }
        }
        for update in applied {
            self.session_changed(update);
        }
    }

    /// Logs, reports and renders an applied change.
    fn session_changed(&mut self, update: Update) {
        self.history.record_session(update.clone());
        self.emit(Event::SessionUpdated(update));
        self.render_session();
    }

    /// The session layer's text and tokens, within its budget.
    pub(super) fn render_session(&mut self) {
        let counter = self.counter.clone();
        let Some(state) = self.memories.session.as_mut() else {
            return;
        };
        state.text = state
            .record
            .render(state.record.limits().max_tokens, |t| counter.count_text(t));
        let tokens = tail_tokens(
            &*counter,
            Context::new(SystemLayer::new("")).with_session(state.text.clone()),
        );
        state.tokens = tokens;
    }
}

/// The tokens of the one layer after the scratchpad that `context`
/// holds beside an empty L1 (0 when it holds none).
pub(super) fn tail_tokens(counter: &dyn strata_ctx_core::TokenCounter, context: Context) -> usize {
    match context.messages().get(1) {
        Some(m) => counter.count_message(m),
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::ToolResult;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
    }

    /// MEM-1: rules and the agent's tools update the record; it shows as
    /// its own layer at the end of the window; a resumed engine has the
    /// same record and the same window.
    #[test]
    fn mem_1_rules_tools_layer_and_resume() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("c.jsonl");
        let open = || {
            Engine::builder(dir.path())
                .session_context(SessionLimits::default())
                .conversation(strata_ctx_store::Conversation::open(&log).unwrap())
                .build()
                .unwrap()
        };
        let mut e = open();
        assert!(e.session_context().unwrap().is_empty());
        block_on(async {
            e.begin_round("fix the tabs").await.unwrap();
            let read = ToolCall::new("c1", "Read", json!({"path": "src/lexer.rs"}));
            let remember = ToolCall::new(
                "c2",
                "remember",
                json!({"key": "decision", "value": "keep the lexer"}),
            );
            let result = e.memory_tool(&remember).unwrap();
            assert!(e.memory_tool(&read).is_none());
            e.record_step(
                Message::assistant_with_calls("Reading.", vec![read.clone(), remember.clone()]),
                vec![
                    Message::tool_result(&read, ToolResult::success("fn lex() {}")),
                    Message::tool_result(&remember, result),
                ],
            )
            .await
            .unwrap();
        });
        let session = e.session_context().unwrap();
        assert_eq!(session.get("files"), Some("src/lexer.rs"));
        assert_eq!(session.get("decision"), Some("keep the lexer"));
        let live = e.window().messages();
        let last = live.last().unwrap();
        assert!(last.content.contains("- files: src/lexer.rs"), "{}", last.content);
        assert!(last.content.contains("- decision: keep the lexer"));
        assert!(e.window_tokens() > 0);
        e.finish_round("Done.").unwrap();
        let live_record = e.session_context().unwrap().clone();
        let live_window = e.window().messages();
        drop(e);

        let mut resumed = open();
        assert_eq!(resumed.session_context().unwrap(), &live_record);
        let window = resumed.window().messages();
        assert_eq!(
            window.iter().map(|m| &m.content).collect::<Vec<_>>(),
            live_window.iter().map(|m| &m.content).collect::<Vec<_>>()
        );
        assert!(resumed.forget("decision").unwrap());
        assert!(!resumed
            .window()
            .messages()
            .last()
            .unwrap()
            .content
            .contains("decision"));
    }

    /// MEM-1: off by default: no layer, no record, the API changes nothing.
    #[test]
    fn mem_1_off_by_default() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = Engine::builder(dir.path()).build().unwrap();
        assert!(e.session_context().is_none());
        assert_eq!(e.remember("task", "x"), Ok(false));
        let call = ToolCall::new("c", "remember", json!({"key": "k", "value": "v"}));
        assert!(e.memory_tool(&call).is_none());
        assert!(matches!(
            e.save_memory("x"),
            Err(super::super::EngineError::NoLongTermMemory)
        ));
        assert!(e.long_term_memory().is_none());
    }
}

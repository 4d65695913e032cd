//! The intake of a step (REACT-2, REACT-3, TOOL-*, TRUNC-1, MTIME-1,
//! REL-2): results cut for the model, their history form, the full log's
//! copy bounded.

use super::*;
use strata_ctx_compress::ToolKind;
use strata_ctx_core::Text;

/// The default of [`EngineBuilder::max_logged_bytes`].
pub const DEFAULT_MAX_LOGGED_BYTES: usize = 8 * 1024 * 1024;

/// Cuts the text of a tool output kept in the full log to `max` bytes
/// (REL-2), saying where the whole is.
pub(super) fn cap_logged(message: &mut Message, max: usize, spill: Option<&str>) {
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
    if message.content.len() > max {
        let mut text = message.content.to_string();
        cut(&mut text);
        message.content = text.into();
    }
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

/// Where a step's results come in (TRUNC-1, REL-2, MENTION-*, MTIME-*):
/// the project root, the truncator that cuts what the model sees, the
/// mentions of the user's text, the freshness of the files read, and how
/// much of one output the full log keeps.
#[derive(Debug)]
pub(super) struct Intake {
    pub(super) root: std::path::PathBuf,
    pub(super) truncator: Truncator,
    pub(super) mentions: Mentions,
    pub(super) freshness: Freshness,
    /// The most bytes of one output the full log keeps (REL-2).
    pub(super) max_logged_bytes: usize,
}

impl Engine {
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
            step: self.round.pad.len() + 1,
            ..StepReport::default()
        };
        // The results of one step share one cap (HIST-14).
        let truncator = self.intake.truncator.shared_by(results.len());
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
        let pinned = assistant.is_pinned() || raw.iter().any(Message::is_pinned);
        self.observe_session(&assistant, &raw);
        // The history form is made from the output as returned, not from
        // the cut view (TOOL-13); the full log keeps the output whole.
        let history = self.history.record_step(assistant.clone(), raw).to_vec();
        for failure in self.history.take_rule_failures() {
            self.emit(Event::RuleFailed(failure));
        }
        // The full form pairs like the history form: one result per call,
        // in call order, a synthetic one where the agent gave none.
        let (seen, _) = strata_ctx_core::answer_calls(&assistant.tool_calls, view);
        let mut full = Vec::with_capacity(history.len());
        full.push(assistant.clone());
        for (seen, form) in seen.into_iter().zip(history.iter().skip(1)) {
            full.push(seen.unwrap_or_else(|| form.clone()));
        }
        // The history form was counted as it was recorded.
        report.history_result_tokens = self.history.newest_tokens(history.len().saturating_sub(1));
        let tokens = (
            self.counter.count_messages(&full),
            self.history.newest_tokens(history.len()),
        );
        self.layers.observe_todos(&full, &*self.counter);
        self.push_step(Scratch::new(full, history, tokens, facts, protected, pinned));
        self.emit(Event::StepRecorded {
            round: self.round.number,
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
        report.over_budget = self.round.over_budget;
        self.persist()?;
        Ok(report)
    }

    /// One result as the model sees it, cut by `truncator` when too long,
    /// and as the tool returned it; both with the freshness note of a
    /// read.
    pub(super) fn model_view(
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
                let (result, cut) = truncator.truncate_result(&tool, *result);
                m.result = Some(Box::new(result));
                cut
            }
            None => {
                let cut = truncator.truncate(&tool, m.content.as_bytes());
                if cut.truncated {
                    m.content = Text::new();
                    m.result = Some(Box::new(cut.result.clone()));
                } else if let (true, Value::String(shown)) = (cut.redrawn, &cut.result.data) {
                    // Whole, as a terminal shows it: a progress bar's
                    // drawings are not seen.
                    m.content = Text::from(shown.as_str());
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
            self.intake.max_logged_bytes,
            m.result.as_ref().and_then(|r| r.full_output_path.as_deref()),
        );
        self.with_freshness(call, m, raw, report)
    }

    /// A read's result with a note when the file changed since the agent
    /// last read it (MTIME-1), in what the model sees and in the log; a
    /// write makes the written file fresh.
    fn with_freshness(
        &mut self,
        call: Option<&strata_ctx_core::ToolCall>,
        mut m: Message,
        mut raw: Message,
        report: &mut StepReport,
    ) -> (Message, Message) {
        let Some(call) = call else { return (m, raw) };
        let Some(path) = path_argument(&call.arguments) else {
            return (m, raw);
        };
        let failed = m.result.as_ref().is_some_and(|r| r.status == ResultStatus::Error);
        match canonical_call(&call.name, &call.arguments) {
            Some(ToolKind::Read) if !failed => {
                if let Some(note) = self.intake.freshness.read(&path) {
                    for target in [&mut m, &mut raw] {
                        match &mut target.result {
                            Some(result) if target.content.is_empty() => add_note(result, &note),
                            _ => {
                                target.content = format!("{}\n\n{note}", target.content).into();
                            }
                        }
                    }
                    self.emit(Event::FileModified { path: path.clone() });
                    report.modified.push(path);
                }
            }
            Some(kind) if kind.writes() && !failed => self.intake.freshness.wrote(&path),
            _ => {}
        }
        (m, raw)
    }

    /// Whether a step's results include one of a protected tool
    /// (HIST-15).
    pub(super) fn is_protected(&self, results: &[Message]) -> bool {
        results.iter().any(|m| self.history.is_protected(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::{ToolCall, ToolResult};

    /// REL-2: the full log's copy is cut on a character boundary, says
    /// how much it kept and where the whole is; short outputs are left.
    #[test]
    fn rel_2_cap_logged() {
        let call = ToolCall::new("c", "Bash", json!({}));
        let mut m = Message::tool_result(
            &call,
            ToolResult::success(json!({"stdout": "é".repeat(10), "code": 1})),
        );
        m.content = "ab".into();
        cap_logged(&mut m, 5, Some("tool-output/c.txt"));
        let data = &m.result.as_ref().unwrap().data;
        let stdout = data["stdout"].as_str().unwrap();
        assert!(
            stdout.starts_with(
                "éé\n[… the log keeps the first 4 of 20 bytes; the whole output is in tool-output/c.txt]"
            ),
            "{stdout}"
        );
        assert_eq!(data["code"], 1);
        assert_eq!(m.content, "ab");
        let mut text = Message::tool_text("c", "Bash", "x".repeat(9));
        cap_logged(&mut text, 4, None);
        assert!(text.content.ends_with("first 4 of 9 bytes]"));
    }
}

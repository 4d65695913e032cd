//! Keeping the window within its budget (HIST-4, HIST-12, HIST-14,
//! REACT-5, REACT-6): compaction, condensing the round's steps, the
//! digest and its rolling summary.

use super::*;

impl Engine {
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
        let sent = self.calls.last_counted().unwrap_or_else(|| self.counted());
        if self.history.overflowed(sent).is_err() {
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
    pub(super) fn compaction_due(&self) -> bool {
        self.history.budget().compaction_due(
            self.counted(),
            self.history.window_len(),
            self.history.full_log().len(),
        )
    }

    /// Tells the budget what the window holds outside the history: L1,
    /// L2, the recap, the digest, and how much more the scratchpad takes
    /// than the round's history form.
    pub(super) fn set_reserved(&mut self) {
        let outside = self.counted().saturating_sub(self.history.window_tokens());
        self.history.budget_mut().set_outside(outside);
    }

    /// Compacts the history; `to_fit` lets the retention of
    /// `min_retain_rounds` yield to the budget (HIST-14).
    pub(super) async fn compact_now(&mut self, reason: CompactionReason, to_fit: bool) -> CompactionStats {
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
    /// The steps an archived round left quoted in the summary go first
    /// ([`History::drop_quoted_steps`]); the round's old steps go to
    /// history form next; then, when the
    /// window is still over, earlier rounds are archived whatever
    /// `min_retain_rounds` says; then the round's steps are condensed
    /// further ([`Engine::condense`]). Returns the compaction that ran and
    /// the steps condensed, cleared and left out.
    pub(super) async fn keep_budget(&mut self) -> (Option<CompactionStats>, (usize, usize, usize)) {
        // Once the window went over, condensing goes on to the shed target
        // in this one batch, whatever level it takes (HIST-15).
        let shedding = self.window_tokens() > self.threshold_tokens();
        // The last steps an archived round left quoted in the summary are
        // the stalest part of the window: they go first.
        if shedding && self.history.drop_quoted_steps() {
            self.recount_scratch();
        }
        let (a, b, c) = self.condense(Level::History);
        let mut compaction = None;
        if self.window_tokens() > self.threshold_tokens() {
            self.set_reserved();
            if self.history.has_earlier_rounds() && self.history.plan_with(0).rounds_archived > 0 {
                compaction = Some(self.compact_now(CompactionReason::Threshold, true).await);
            }
        }
        let (d, e, f) = self.shed(Level::Omitted, shedding);
        if self.round.summarize_steps && self.summarize_covered().await {
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
    /// Returns whether there were such steps.
    pub(super) async fn summarize_covered(&mut self) -> bool {
        let Some((input, steps)) = self.round.pad.take_unsummarized() else {
            return false;
        };
        if !self.summarizer.summarizes() {
            self.emit(Event::StepsSummarized {
                steps,
                degraded: Some("no summariser is configured".to_owned()),
            });
            return true;
        }
        let answer =
            tokio::time::timeout(self.config.summary_timeout, self.summarizer.summarize(&input)).await;
        let degraded = match answer {
            Ok(Ok(text)) if !text.trim().is_empty() => {
                self.round
                    .pad
                    .set_rolling(text, &*self.counter, self.digest_chars());
                None
            }
            Ok(Ok(_)) => Some("the summary was empty".to_owned()),
            Ok(Err(e)) => Some(e.to_string()),
            Err(_) => Some("timed out".to_owned()),
        };
        self.emit(Event::StepsSummarized { steps, degraded });
        true
    }

    /// The digest's share of the budget, in characters
    /// ([`Budget::digest_chars`](strata_ctx_history::Budget::digest_chars)).
    pub(super) fn digest_chars(&self) -> usize {
        self.history.budget().digest_chars()
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
    pub(super) fn condense(&mut self, deepest: Level) -> (usize, usize, usize) {
        self.shed(deepest, false)
    }

    /// [`Engine::condense`]; `started` says condensing began in this
    /// batch, so it goes on to the shed target though the window is no
    /// longer over the threshold.
    pub(super) fn shed(&mut self, deepest: Level, started: bool) -> (usize, usize, usize) {
        let threshold = self.threshold_tokens();
        let mut counts = (0, 0, 0);
        if started || self.window_tokens() > threshold {
            let stages = self
                .history
                .budget()
                .condense_stages(self.round.pad.len(), self.config.keep_full_steps);
            for (eligible, target) in stages {
                self.condense_steps(eligible, target, deepest, &mut counts);
                if self.window_tokens() <= threshold {
                    break;
                }
            }
            if deepest == Level::Omitted && self.window_tokens() > threshold {
                let digest_chars = self.digest_chars();
                let outside = self.counted() - self.round.pad.tokens();
                let over = over_target(self.history.budget(), outside, threshold);
                self.round.pad.yield_digest(&over, &*self.counter, digest_chars);
            }
        }
        let over = self.window_tokens() > threshold;
        if over && deepest == Level::Omitted && !self.round.over_budget {
            self.emit(Event::OverBudget {
                tokens: self.window_tokens(),
                threshold,
            });
        }
        if deepest == Level::Omitted || !over {
            self.round.over_budget = over;
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
    pub(super) fn condense_steps(
        &mut self,
        eligible: usize,
        target: usize,
        deepest: Level,
        counts: &mut (usize, usize, usize),
    ) {
        // Only the scratchpad changes while it is condensed.
        let digest_chars = self.digest_chars();
        let outside = self.counted() - self.round.pad.tokens();
        let over = over_target(self.history.budget(), outside, target);
        self.round.pad.condense(
            eligible,
            deepest,
            &over,
            (&self.history, &*self.counter, digest_chars),
            counts,
        );
    }

    pub(super) fn window_changed(&self) -> usize {
        let tokens = self.window_tokens();
        self.emit(Event::WindowChanged {
            tokens,
            threshold: self.threshold_tokens(),
        });
        tokens
    }
}

/// Whether the window is over `target` as `budget` estimates it, with the
/// scratchpad at the tokens asked about and `outside` tokens beside it:
/// only the scratchpad changes while it is condensed or its digest yields.
fn over_target(
    budget: &strata_ctx_history::Budget,
    outside: usize,
    target: usize,
) -> impl Fn(usize) -> bool + '_ {
    move |scratchpad| budget.estimate(outside + scratchpad) > target
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use strata_ctx_core::{ToolCall, ToolResult};

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
    }

    /// HIST-15: once a step puts the window over the threshold, one batch
    /// sheds to the shed target, though history forms alone would bring
    /// it under the threshold; then steps only append until it is over
    /// again.
    #[test]
    fn hist_15_one_batch_sheds_to_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::from_toml_str(
            "context_window = 8000
keep_full_steps = 1",
        )
        .unwrap();
        // A batch so large that history forms alone cannot shed it.
        let mut e = Engine::builder(dir.path())
            .config(config)
            .clear_batch_tokens(4_600)
            .build()
            .unwrap();
        let target = e.threshold_tokens() - e.history.budget().clear_batch();
        let mut batches = 0;
        let mut quiet = 0;
        block_on(async {
            e.begin_round("build it").await.unwrap();
            for step in 0..60 {
                let call = ToolCall::new(format!("c{step}"), "Bash", serde_json::json!({"command": "make"}));
                let out: String = (0..60)
                    .map(|i| format!("compiling unit {step}, part {i}\n"))
                    .collect();
                let result = Message::tool_result(&call, ToolResult::success(out));
                let report = e
                    .record_step(Message::assistant_with_calls("again", vec![call]), vec![result])
                    .await
                    .unwrap();
                if report.condensed + report.cleared + report.omitted > 0 {
                    batches += 1;
                    assert!(
                        e.window_tokens() <= target,
                        "step {step}: {} after a batch, target {target}",
                        e.window_tokens()
                    );
                } else {
                    quiet += 1;
                }
                assert!(e.window_tokens() <= e.threshold_tokens());
            }
        });
        assert!(
            batches >= 2 && quiet > 3 * batches,
            "{batches} batches, {quiet} quiet steps"
        );
    }

    /// REACT-6: once every step has gone, a window that still lacks a few
    /// tokens (a long input beside a digest at its whole room) gets them
    /// from the digest, its oldest facts first, instead of going over the
    /// threshold.
    #[test]
    fn react_6_the_digest_yields_what_the_window_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::from_toml_str("context_window = 3000").unwrap();
        let mut e = Engine::builder(dir.path()).config(config).build().unwrap();
        let threshold = e.threshold_tokens();
        let full = e.digest_chars();
        let mut yielded = false;
        block_on(async {
            // The input leaves less room than the digest's whole share.
            let input = "Fix the checks. ".repeat(threshold * 3 / 16 - full / 16);
            e.begin_round(&input).await.unwrap();
            for step in 0..40 {
                let call = ToolCall::new(
                    format!("c{step}"),
                    "Bash",
                    serde_json::json!({"command": format!("python check_{step}.py")}),
                );
                let out = format!(
                    "Traceback (most recent call last):\nValueError: bad value {step} in row {step}\n"
                );
                let result = Message::tool_result(&call, ToolResult::error("exit_1", out));
                e.record_step(Message::assistant_with_calls("again", vec![call]), vec![result])
                    .await
                    .unwrap();
                assert!(
                    e.window_tokens() <= threshold,
                    "step {step}: {} of {threshold}",
                    e.window_tokens()
                );
                assert!(!e.round.over_budget, "step {step}");
                let digest = e.round.pad.digest_tokens() * 3;
                if digest > 0 && digest < full * 3 / 4 {
                    yielded = true;
                    // Only what the window lacks: an eighth of its room
                    // at a time.
                    assert!(
                        e.window_tokens() + full / 8 / 3 + 8 > threshold,
                        "step {step}: yielded down to {} of {threshold}",
                        e.window_tokens()
                    );
                }
            }
        });
        assert!(yielded, "the digest never yielded");
    }

    /// HIST-4, HIST-7: a window over the threshold compacts; without a
    /// summariser the compaction says it is degraded.
    #[test]
    fn hist_4_compacts_over_the_threshold() {
        let dir = tempfile::tempdir().unwrap();
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = events.clone();
        let config = Config::from_toml_str("context_window = 2000").unwrap();
        let mut e = Engine::builder(dir.path())
            .config(config)
            .on_event(move |ev| sink.lock().unwrap().push(format!("{ev:?}")))
            .build()
            .unwrap();
        block_on(async {
            for round in 0..12 {
                e.begin_round(&format!("question {round}: {}", "why? ".repeat(40)))
                    .await
                    .unwrap();
                e.finish_round("because ".repeat(40)).unwrap();
            }
            // The check is at the round boundary: the window the next
            // model call reads fits.
            e.begin_round("and now?").await.unwrap();
        });
        assert!(
            e.window_tokens() <= e.threshold_tokens(),
            "{} > {}",
            e.window_tokens(),
            e.threshold_tokens()
        );
        let events = events.lock().unwrap();
        assert!(events.iter().any(|e| e.starts_with("CompactionStarted")));
        assert!(events.iter().any(|e| e.starts_with("CompactionDegraded")));
        assert!(events.iter().any(|e| e.starts_with("WindowChanged")));
    }
}

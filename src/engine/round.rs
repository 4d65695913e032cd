//! The round's lifecycle (CORE-4, REACT-2, MENTION-3, HIST-4): beginning a
//! round with its input, resuming one from the log, finishing it.

use super::*;

impl Engine {
    /// Rebuilds the scratchpad of a round that was in progress when the
    /// conversation was saved, from its history form.
    pub(super) fn resume_round(&mut self) {
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
            let pinned = step.iter().any(Message::is_pinned);
            self.push_step(Scratch {
                full: step.clone(),
                history: step,
                cleared: None,
                level: Level::Full,
                tokens: [tokens, tokens, tokens, 0],
                facts,
                protected,
                pinned,
            });
        }
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
        let user = self.stamp(Message::user(applied.text));
        let mut input = user.clone();
        if self.topic_anchor {
            let anchor = topic_anchor(self.previous_input.as_deref(), text);
            input.content = format!("{}\n\n{anchor}", input.content).into();
        }
        let input_tokens = self.counter.count_message(&input);
        self.recall(text);
        let threshold = self.threshold_tokens();
        if self.history.budget().scaled(
            self.prefix_tokens
                + input_tokens
                + self.recap_tokens
                + self.session_tokens()
                + self.memory_tokens(),
        ) > threshold
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
        self.cost.new_round();
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
        self.history
            .finish_round(self.stamp(Message::assistant(answer.into())));
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
    }

    /// CORE-4: one round at a time; a step or an answer needs one.
    #[test]
    fn core_4_round_lifecycle() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = Engine::builder(dir.path()).build().unwrap();
        assert!(matches!(e.finish_round("x"), Err(EngineError::NoRound)));
        block_on(async {
            let start = e.begin_round("first").await.unwrap();
            assert_eq!(start.message.content, "first");
            assert!(matches!(
                e.begin_round("again").await,
                Err(EngineError::RoundInProgress)
            ));
        });
        assert!(e.round_open());
        e.finish_round("done").unwrap();
        assert!(!e.round_open());
        assert_eq!(e.round(), 1);
    }
}

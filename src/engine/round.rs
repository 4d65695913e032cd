//! The round's lifecycle (CORE-4, REACT-2, MENTION-3, HIST-4): beginning a
//! round with its input, resuming one from the log, finishing it.

use super::*;

/// The round in progress: its number, its input as rendered, the
/// scratchpad of its steps, and whether its window is over budget though
/// everything that can be condensed was.
#[derive(Debug, Default)]
pub(super) struct RoundState {
    /// Rounds begun so far, the one in progress included.
    pub(super) number: usize,
    /// The current input as rendered (with the topic anchor), and its
    /// tokens.
    pub(super) input: Option<Message>,
    input_tokens: usize,
    /// The user's text of the latest round, for the topic anchor.
    pub(super) previous_input: Option<String>,
    pub(super) over_budget: bool,
    /// The round's steps and the digest of those that left the window.
    pub(super) pad: Scratchpad,
    /// Whether steps whose results leave the window go to the summariser
    /// (REACT-6): a summariser was given.
    pub(super) summarize_steps: bool,
}

impl RoundState {
    /// The state after `rounds` rounds, none in progress.
    pub(super) fn after(rounds: usize, summarize_steps: bool) -> RoundState {
        RoundState {
            number: rounds,
            summarize_steps,
            ..RoundState::default()
        }
    }

    /// A new round with `input` (counted `tokens`), given as `text`.
    fn begin(&mut self, input: Message, tokens: usize, text: &str) {
        self.number += 1;
        self.input = Some(input);
        self.input_tokens = tokens;
        self.previous_input = Some(text.to_owned());
        self.over_budget = false;
        self.pad.clear();
    }

    /// A round resumed from the log, with `input` counted `tokens`.
    fn resume(&mut self, input: Message, tokens: usize) {
        self.input = Some(input);
        self.input_tokens = tokens;
    }

    /// The round ended: no input, an empty scratchpad.
    fn finish(&mut self) {
        self.input = None;
        self.input_tokens = 0;
        self.over_budget = false;
        self.pad.clear();
    }

    /// What the round's input costs in the window (its scratchpad counts
    /// itself).
    pub(super) fn input_tokens(&self) -> usize {
        self.input_tokens
    }
}

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
        let tokens = self.counter.count_message(&window[start]);
        self.round.resume(window[start].clone(), tokens);
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
            self.push_step(Scratch::new(
                step.clone(),
                step,
                (tokens, tokens),
                facts,
                protected,
                pinned,
            ));
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
        let applied = self.intake.mentions.apply(text);
        let user = self.stamp(Message::user(applied.text));
        let mut input = user.clone();
        if let Some(anchor) = self.layers.anchor(self.round.previous_input.as_deref(), text) {
            input.content = format!("{}\n\n{anchor}", input.content).into();
        }
        let input_tokens = self.counter.count_message(&input);
        self.recall(text);
        let fixed = self.frame().fixed_tokens();
        if !self.history.budget().admits(fixed, input_tokens) {
            return Err(EngineError::DoesNotFit {
                fixed_tokens: self.layers.prefix_tokens(),
                input_tokens,
                threshold: self.threshold_tokens(),
            });
        }
        self.history.begin_round(user.clone());
        self.round.begin(input, input_tokens, text);
        self.calls.new_round();
        self.emit(Event::RoundStarted {
            round: self.round.number,
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

    /// Ends the round with the assistant's final answer as text (REACT-2):
    /// the scratchpad is cleared and the answer joins the history. An
    /// answer that came from [`Engine::complete`] is better recorded whole
    /// with [`Engine::finish_round_with`], which keeps its thinking and
    /// provider items.
    ///
    /// # Errors
    ///
    /// [`EngineError::NoRound`] when no round is open;
    /// [`EngineError::Store`] when persisting failed (the round ended all
    /// the same).
    pub fn finish_round(&mut self, answer: impl Into<String>) -> Result<(), EngineError> {
        self.finish_round_with(Message::assistant(answer.into()))
    }

    /// Ends the round with the model's final message as it came
    /// ([`LlmResponse::to_message`](strata_ctx_core::LlmResponse::to_message)):
    /// its signed thinking and its provider items (a provider's
    /// compaction block, MODEL-7) reach the log and go back to the
    /// provider on later requests, as the providers require.
    ///
    /// ```
    /// # use strata_ctx::{Engine, LlmResponse, Usage};
    /// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
    /// # let dir = tempfile::tempdir()?;
    /// let mut engine = Engine::builder(dir.path()).build()?;
    /// engine.begin_round("What is 2 + 2?").await?;
    /// let answer = LlmResponse::new("4", Usage::new(20, 1));
    /// engine.finish_round_with(answer.to_message())?;
    /// assert_eq!(engine.history().full_log().last().map(|m| m.text()).as_deref(), Some("4"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`EngineError::NoRound`] when no round is open;
    /// [`EngineError::NotAnAnswer`] when `answer` is not the assistant's or
    /// has tool calls (a step: [`Engine::record_step`]);
    /// [`EngineError::Store`] when persisting failed (the round ended all
    /// the same).
    pub fn finish_round_with(&mut self, answer: Message) -> Result<(), EngineError> {
        if !self.history.round_open() {
            return Err(EngineError::NoRound);
        }
        if answer.role != Role::Assistant {
            return Err(EngineError::NotAnAnswer {
                reason: "the message is not the assistant's",
            });
        }
        if !answer.tool_calls.is_empty() {
            return Err(EngineError::NotAnAnswer {
                reason: "the message calls tools: record it as a step",
            });
        }
        self.history.finish_round(self.stamp(answer));
        self.emit(Event::RoundFinished {
            round: self.round.number,
            steps: self.round.pad.len(),
        });
        self.round.finish();
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

    /// A round's state: numbered from the rounds before it, its input
    /// counted until it ends, the topic anchor's text kept across rounds.
    #[test]
    fn round_state_begins_and_finishes() {
        let mut r = RoundState::after(3, false);
        assert_eq!((r.number, r.input_tokens(), r.input.is_none()), (3, 0, true));
        r.over_budget = true;
        r.begin(Message::user("fix it"), 7, "fix it");
        assert_eq!((r.number, r.input_tokens(), r.over_budget), (4, 7, false));
        r.finish();
        assert_eq!((r.number, r.input_tokens(), r.input.is_none()), (4, 0, true));
        assert_eq!(r.previous_input.as_deref(), Some("fix it"));
        r.resume(Message::user("again"), 5);
        assert_eq!(r.input_tokens(), 5);
        assert!(RoundState::after(0, true).summarize_steps);
        assert!(!RoundState::after(0, false).summarize_steps);
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

    /// MODEL-7, REACT-2: a final answer recorded whole keeps its signed
    /// thinking and the provider's compaction block, in the log and in
    /// the next request; what is not a final answer is refused.
    #[test]
    fn react_2_the_final_answer_is_the_models_message() {
        use strata_ctx_core::{
            LlmOptions, LlmResponse, Provider, ProviderItem, ThinkingBlock, ToolCall, Usage,
        };
        use strata_ctx_testkit::ScriptedClient;

        let dir = tempfile::tempdir().unwrap();
        let mut e = Engine::builder(dir.path()).build().unwrap();
        let client = ScriptedClient::new();
        let thinking = ThinkingBlock::Thinking {
            thinking: "2 + 2 is 4.".into(),
            signature: "sig-1".into(),
        };
        let compaction = ProviderItem::new(
            Provider::Anthropic,
            serde_json::json!({"type": "compaction", "content": "So far: arithmetic."}),
        );
        let mut answer = LlmResponse::new("4", Usage::new(30, 2));
        answer.thinking = vec![thinking.clone()];
        answer.provider_items = vec![compaction.clone()];
        client.push(std::time::Duration::ZERO, Ok(answer));
        client.push_text("5");
        block_on(async {
            e.begin_round("2 + 2?").await.unwrap();
            let answer = e.complete(&client, LlmOptions::new()).await.unwrap();
            let with_calls =
                Message::assistant_with_calls("", vec![ToolCall::new("c1", "Read", serde_json::json!({}))]);
            assert!(matches!(
                e.finish_round_with(with_calls),
                Err(EngineError::NotAnAnswer { .. })
            ));
            assert!(matches!(
                e.finish_round_with(Message::user("4")),
                Err(EngineError::NotAnAnswer { .. })
            ));
            e.finish_round_with(answer.to_message()).unwrap();
            let last = e.history().full_log().last().cloned().unwrap();
            assert_eq!(
                (last.thinking.clone(), last.provider_items.clone()),
                (vec![thinking.clone()], vec![compaction.clone()])
            );

            e.begin_round("and 2 + 3?").await.unwrap();
            e.complete(&client, LlmOptions::new()).await.unwrap();
        });
        let sent = &client.requests()[1];
        let earlier = sent
            .messages
            .iter()
            .find(|m| m.role == Role::Assistant && m.content == "4")
            .expect("the first answer is sent back");
        assert_eq!(earlier.thinking, [thinking]);
        assert_eq!(earlier.provider_items, [compaction]);
    }
}

//! What the window holds and what it costs (HIST-11, HIST-13).

use super::*;

impl History {
    /// The window: summaries, then the retained messages.
    ///
    /// Messages pruned by the model (HIST-10) are left out.
    pub fn window(&self) -> Cow<'_, [Message]> {
        if self.pruning.is_empty() {
            Cow::Borrowed(&self.window)
        } else {
            Cow::Owned(
                self.window
                    .iter()
                    .filter(|m| !self.pruning.hides(&m.id))
                    .cloned()
                    .collect(),
            )
        }
    }

    /// The number of messages in [`History::window`], without building
    /// it.
    pub fn window_len(&self) -> usize {
        if self.pruning.is_empty() {
            self.window.len()
        } else {
            self.window.iter().filter(|m| !self.pruning.hides(&m.id)).count()
        }
    }

    /// Every message ever recorded, as recorded.
    pub fn full_log(&self) -> &[Message] {
        &self.log
    }

    /// Whether a round is in progress.
    pub fn round_open(&self) -> bool {
        self.round_open
    }

    /// Where the round in progress starts in the (unpruned) window.
    fn round_start(&self) -> Option<usize> {
        self.round_at.filter(|_| self.round_open)
    }

    /// Whether the window holds messages of earlier rounds (beyond the
    /// summaries) that a compaction could archive; costs nothing.
    pub fn has_earlier_rounds(&self) -> bool {
        let end = self.round_start().unwrap_or(self.window.len());
        end > 0 && self.window[end - 1].role != Role::Summary
    }

    /// The tokens of [`History::retained`]: the window without the round
    /// in progress, pruned messages left out.
    pub fn retained_tokens(&self) -> usize {
        let end = self.round_start().unwrap_or(self.window.len());
        if self.pruning.is_empty() {
            return self.tally.sum(0..end);
        }
        (0..end)
            .filter(|&i| !self.pruning.hides(&self.window[i].id))
            .map(|i| self.tally.get(i).unwrap_or(0))
            .sum()
    }

    /// The window without the round in progress (pruned messages left
    /// out): what a context builder renders as layer L3 while the round's
    /// own steps come from its scratchpad (REACT-3).
    pub fn retained(&self) -> Cow<'_, [Message]> {
        let end = self.round_start().unwrap_or(self.window.len());
        let part = &self.window[..end];
        if self.pruning.is_empty() {
            Cow::Borrowed(part)
        } else {
            Cow::Owned(
                part.iter()
                    .filter(|m| !self.pruning.hides(&m.id))
                    .cloned()
                    .collect(),
            )
        }
    }

    /// [`History::retained`] as a run the windows share ([`MessageRun`]):
    /// made once, then grown by what is recorded, so that building a
    /// window costs what changed since the last one (REL-3). A message
    /// that changes or leaves (compaction, clearing, pruning, pinning)
    /// makes it again, under a new name.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use strata_ctx_core::{CharCounter, Config, Message};
    /// use strata_ctx_history::History;
    ///
    /// let mut h = History::new(Config::default(), Arc::new(CharCounter));
    /// h.begin_round(Message::user("hi"));
    /// h.finish_round(Message::assistant("hello"));
    /// let first = h.retained_run();
    /// let (name, len) = (first.name(), first.len());
    /// drop(first);
    /// h.begin_round(Message::user("and now?"));
    /// h.finish_round(Message::assistant("done"));
    /// let run = h.retained_run();
    /// assert!(run.continues(name, len), "grown, not made again");
    /// assert_eq!((len, run.len()), (2, 4));
    /// assert_eq!(&run[..], &h.retained()[..]);
    /// ```
    pub fn retained_run(&mut self) -> MessageRun {
        let end = self.round_start().unwrap_or(self.window.len());
        match &mut self.shared {
            Some((run, through)) if *through <= end => {
                run.extend(self.pruning.shown(&self.window[*through..end]).cloned());
                *through = end;
                run.clone()
            }
            _ => {
                let run = MessageRun::new(self.retained().into_owned());
                self.shared = Some((run.clone(), end));
                run
            }
        }
    }

    /// The tokens of the round in progress in the window (its user message
    /// and its steps in history form, pruned ones left out); 0 between
    /// rounds.
    pub fn round_tokens(&self) -> usize {
        if self.round_start().is_none() {
            return 0;
        }
        self.window_tokens() - self.retained_tokens()
    }

    /// Whether the model pruned the message with this id from the window
    /// (HIST-10).
    pub fn is_hidden(&self, id: &MessageId) -> bool {
        self.pruning.hides(id)
    }

    /// The tokens of the window's newest `n` messages (all of them when
    /// there are fewer), as they were counted when recorded: what
    /// [`History::record_step`] just added costs this, without a recount.
    pub fn newest_tokens(&self, n: usize) -> usize {
        let len = self.tally.len();
        self.tally.sum(len.saturating_sub(n)..len)
    }

    /// The window's tokens by the token counter.
    pub fn window_tokens(&self) -> usize {
        self.tally.total() - self.pruning.tokens()
    }

    /// What the history's messages may take, in the counter's tokens: the
    /// threshold less what the window holds outside the history
    /// ([`Budget::history_room`]). Compaction fits the history into it.
    pub fn room_tokens(&self) -> usize {
        self.budget.history_room()
    }

    /// The size of the next request as the budget estimates it
    /// ([`Budget::estimate`]): the last usage's input tokens plus what was
    /// counted since, or, without a usage figure (or after a compaction
    /// made it stale), the count of the window.
    pub fn estimated_tokens(&self) -> usize {
        self.budget.estimate(self.counted())
    }

    /// The estimated share of the context window in use (HIST-13).
    pub fn usage_fraction(&self) -> f64 {
        self.budget.usage_fraction(self.counted())
    }
}

//! What the window holds and what it costs (HIST-10, HIST-11, HIST-13,
//! REL-3).

use std::ops::Range;

use super::*;

/// The window's messages and what they cost: the messages in history form
/// (summaries first), the tokens of each, where the round in progress
/// starts, what the model pruned (HIST-10) and the retained run the
/// windows share (REL-3). Every change goes through it, so the tally, the
/// pruned tokens and the shared run always describe the messages as they
/// are.
#[derive(Clone, Default)]
pub(crate) struct Window {
    messages: Vec<Message>,
    tally: TokenTally,
    round_open: bool,
    /// Where the round in progress starts: kept as the window changes, so
    /// that asking costs nothing (REL-3).
    round_at: Option<usize>,
    pruning: Pruning,
    /// [`Window::retained`] as a run the windows share, and how many
    /// messages it covers: grown as messages are recorded, dropped when
    /// one changes or leaves (REL-3).
    shared: Option<(MessageRun, usize)>,
}

impl Window {
    /// Every message, pruned ones included.
    pub(crate) fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The number of messages, pruned ones included.
    pub(crate) fn len(&self) -> usize {
        self.messages.len()
    }

    /// The tokens of the messages at `range`, pruned ones included.
    pub(crate) fn tokens_of(&self, range: Range<usize>) -> usize {
        self.tally.sum(range)
    }

    /// The tokens of the message at `i`; 0 past the end.
    pub(crate) fn tokens_at(&self, i: usize) -> usize {
        self.tally.get(i).unwrap_or(0)
    }

    /// The leading summaries.
    pub(crate) fn summaries(&self) -> usize {
        self.messages
            .iter()
            .take_while(|m| m.role == Role::Summary)
            .count()
    }

    /// Replaces the messages (a loaded history, a compaction): counts
    /// them, finds the round's start again and the pruned units.
    pub(crate) fn set(&mut self, messages: Vec<Message>, counter: &dyn TokenCounter) {
        self.tally = TokenTally::from_messages(counter, &messages);
        self.messages = messages;
        self.round_at = self.messages.iter().rposition(|m| m.role == Role::User);
        self.refresh_pruned();
    }

    /// Takes the messages out, leaving the window empty until
    /// [`Window::set`]: a compaction moves them rather than copying.
    pub(crate) fn take(&mut self) -> Vec<Message> {
        self.tally = TokenTally::new();
        self.round_at = None;
        self.shared = None;
        std::mem::take(&mut self.messages)
    }

    /// Adds a message at the end, counted.
    pub(crate) fn push(&mut self, message: Message, counter: &dyn TokenCounter) {
        self.tally.push(counter, &message);
        self.messages.push(message);
    }

    /// Reserves room for `additional` more messages.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.messages.reserve(additional);
        self.tally.reserve(additional);
    }

    /// A round begins with the next message.
    pub(crate) fn begin_round(&mut self) {
        self.round_open = true;
        self.round_at = Some(self.messages.len());
    }

    /// The round in progress ended.
    pub(crate) fn finish_round(&mut self) {
        self.round_open = false;
    }

    /// Whether a round is in progress.
    pub(crate) fn round_open(&self) -> bool {
        self.round_open
    }

    /// Changes the message at `i` with `change`, which returns how many
    /// things it changed; when any, the message is counted again and the
    /// shared run made again (and the pruned total, when the model pruned
    /// it). Returns `change`'s count.
    pub(crate) fn edit(
        &mut self,
        i: usize,
        counter: &dyn TokenCounter,
        change: impl FnOnce(&mut Message) -> usize,
    ) -> usize {
        let Some(message) = self.messages.get_mut(i) else {
            return 0;
        };
        let n = change(message);
        if n > 0 {
            self.shared = None;
            self.tally.replace(i, counter, &self.messages[i]);
            // A pruned message's tokens are in the pruned total.
            if self.pruning.hides(&self.messages[i].id) {
                self.refresh_pruned();
            }
        }
        n
    }

    /// Applies the model's pruning request (HIST-10).
    pub(crate) fn prune(&mut self, action: PruneAction) -> PruneOutcome {
        self.shared = None;
        self.pruning.apply(action, &self.messages, &self.tally)
    }

    /// Recomputes the pruned units from the requested ids, after messages
    /// changed.
    fn refresh_pruned(&mut self) {
        self.shared = None;
        self.pruning.refresh(&self.messages, &self.tally);
    }

    /// Whether the model pruned the message with this id (HIST-10).
    pub(crate) fn hides(&self, id: &MessageId) -> bool {
        self.pruning.hides(id)
    }

    /// The messages the model sees: pruned ones left out.
    pub(crate) fn shown(&self) -> Cow<'_, [Message]> {
        self.shown_of(&self.messages)
    }

    /// `part` of the messages without the pruned ones.
    fn shown_of<'a>(&self, part: &'a [Message]) -> Cow<'a, [Message]> {
        if self.pruning.is_empty() {
            Cow::Borrowed(part)
        } else {
            Cow::Owned(self.pruning.shown(part).cloned().collect())
        }
    }

    /// The number of messages the model sees.
    pub(crate) fn shown_len(&self) -> usize {
        if self.pruning.is_empty() {
            self.messages.len()
        } else {
            self.pruning.shown(&self.messages).count()
        }
    }

    /// Where the round in progress starts.
    pub(crate) fn round_start(&self) -> Option<usize> {
        self.round_at.filter(|_| self.round_open)
    }

    /// The end of the retained part: the round's start, or the end.
    fn retained_end(&self) -> usize {
        self.round_start().unwrap_or(self.messages.len())
    }

    /// Whether messages of earlier rounds follow the summaries.
    pub(crate) fn has_earlier_rounds(&self) -> bool {
        let end = self.retained_end();
        end > 0 && self.messages[end - 1].role != Role::Summary
    }

    /// The tokens the model sees of the retained part.
    pub(crate) fn retained_tokens(&self) -> usize {
        let end = self.retained_end();
        if self.pruning.is_empty() {
            return self.tally.sum(0..end);
        }
        (0..end)
            .filter(|&i| !self.pruning.hides(&self.messages[i].id))
            .map(|i| self.tokens_at(i))
            .sum()
    }

    /// The retained part the model sees.
    pub(crate) fn retained(&self) -> Cow<'_, [Message]> {
        self.shown_of(&self.messages[..self.retained_end()])
    }

    /// [`Window::retained`] as the run the windows share, grown by what
    /// was recorded since it was made.
    pub(crate) fn retained_run(&mut self) -> MessageRun {
        let end = self.retained_end();
        match &mut self.shared {
            Some((run, through)) if *through <= end => {
                run.extend(self.pruning.shown(&self.messages[*through..end]).cloned());
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

    /// The tokens the model sees of the whole window.
    pub(crate) fn tokens(&self) -> usize {
        self.tally.total() - self.pruning.tokens()
    }

    /// The tokens of the newest `n` messages, pruned ones included.
    pub(crate) fn newest_tokens(&self, n: usize) -> usize {
        let len = self.tally.len();
        self.tally.sum(len.saturating_sub(n)..len)
    }
}

impl History {
    /// The window: summaries, then the retained messages.
    ///
    /// Messages pruned by the model (HIST-10) are left out.
    pub fn window(&self) -> Cow<'_, [Message]> {
        self.window.shown()
    }

    /// The number of messages in [`History::window`], without building
    /// it.
    pub fn window_len(&self) -> usize {
        self.window.shown_len()
    }

    /// Every message ever recorded, as recorded.
    pub fn full_log(&self) -> &[Message] {
        &self.log
    }

    /// Whether a round is in progress.
    pub fn round_open(&self) -> bool {
        self.window.round_open()
    }

    /// Whether the window holds messages of earlier rounds (beyond the
    /// summaries) that a compaction could archive; costs nothing.
    pub fn has_earlier_rounds(&self) -> bool {
        self.window.has_earlier_rounds()
    }

    /// The tokens of [`History::retained`]: the window without the round
    /// in progress, pruned messages left out.
    pub fn retained_tokens(&self) -> usize {
        self.window.retained_tokens()
    }

    /// The window without the round in progress (pruned messages left
    /// out): what a context builder renders as layer L3 while the round's
    /// own steps come from its scratchpad (REACT-3).
    pub fn retained(&self) -> Cow<'_, [Message]> {
        self.window.retained()
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
        self.window.retained_run()
    }

    /// The tokens of the round in progress in the window (its user message
    /// and its steps in history form, pruned ones left out); 0 between
    /// rounds.
    pub fn round_tokens(&self) -> usize {
        if self.window.round_start().is_none() {
            return 0;
        }
        self.window_tokens() - self.retained_tokens()
    }

    /// Whether the model pruned the message with this id from the window
    /// (HIST-10).
    pub fn is_hidden(&self, id: &MessageId) -> bool {
        self.window.hides(id)
    }

    /// The tokens of the window's newest `n` messages (all of them when
    /// there are fewer), as they were counted when recorded: what
    /// [`History::record_step`] just added costs this, without a recount.
    pub fn newest_tokens(&self, n: usize) -> usize {
        self.window.newest_tokens(n)
    }

    /// The window's tokens by the token counter.
    pub fn window_tokens(&self) -> usize {
        self.window.tokens()
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

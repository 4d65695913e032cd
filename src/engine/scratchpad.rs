//! The round in progress as the window shows it (REACT-5, REACT-6): its
//! steps at the level each was condensed to, and the digest of the steps
//! whose results left the window, with its rolling summary.

use strata_ctx_core::{Message, MessageId, MessageRun, TokenCounter};
use strata_ctx_history::{clear_result, cut_arguments, cut_thought, Digest, History};

/// How far a step of the round in progress was condensed (REACT-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Level {
    Full,
    History,
    Cleared,
    Omitted,
}

/// One step of the round in progress, in each form the window can show.
#[derive(Debug, Clone)]
pub(super) struct Scratch {
    /// The assistant message, then its results as the model saw them.
    pub(super) full: Vec<Message>,
    /// The same in history form.
    pub(super) history: Vec<Message>,
    /// The history form with results cleared and long arguments cut, once
    /// made.
    cleared: Option<Vec<Message>>,
    level: Level,
    tokens: [usize; 4],
    /// What the step did, for the digest once its results leave the
    /// window (REACT-6).
    facts: Digest,
    /// Whether a result of the step comes from a protected tool
    /// (HIST-15): it is shown in history form, never cleared.
    protected: bool,
    /// Whether the step is pinned (#30.7): it stays as it is.
    pub(super) pinned: bool,
}

impl Scratch {
    /// A step shown whole, `full` as the model saw it and `history` in
    /// history form, counted `full_tokens` and `history_tokens`.
    pub(super) fn new(
        full: Vec<Message>,
        history: Vec<Message>,
        (full_tokens, history_tokens): (usize, usize),
        facts: Digest,
        protected: bool,
        pinned: bool,
    ) -> Scratch {
        Scratch {
            full,
            history,
            cleared: None,
            level: Level::Full,
            // A cleared form is counted when it is made.
            tokens: [full_tokens, history_tokens, history_tokens, 0],
            facts,
            protected,
            pinned,
        }
    }

    fn messages(&self) -> &[Message] {
        match (self.level, &self.cleared) {
            (Level::Full, _) => &self.full,
            (Level::Omitted, _) => &[],
            (Level::Cleared, Some(cleared)) => cleared,
            _ => &self.history,
        }
    }

    fn tokens(&self) -> usize {
        self.tokens[self.level as usize]
    }

    fn id(&self) -> MessageId {
        self.full
            .first()
            .map(|m| m.id)
            .unwrap_or_else(|| MessageId::from_u128(0))
    }
}

/// How many steps one call of [`Scratchpad::condense`] sent to history
/// form, cleared and left out.
pub(super) type Condensed = (usize, usize, usize);

/// The round's steps and the digest of those whose results left the
/// window: the one owner of what the scratchpad shows and what it costs.
///
/// Steps are condensed oldest first, one level at a time, by three
/// cursors that only move forward (REL-3): to history form, then cleared
/// (results replaced by a recall handle, long arguments and thoughts
/// cut; what the step found joins the digest), then left out. A pinned
/// step stays whole; a protected one is never cleared.
#[derive(Debug, Default)]
pub(super) struct Scratchpad {
    steps: Vec<Scratch>,
    /// Tokens of the steps at their levels, hidden ones left out.
    step_tokens: usize,
    next_condense: usize,
    next_clear: usize,
    next_omit: usize,
    /// The facts of the steps whose results left the window (REACT-6),
    /// and its rendering at the top of the scratchpad.
    digest: Digest,
    digest_message: Option<Message>,
    digest_tokens: usize,
    /// Steps the digest covers, in the order they joined it; the first
    /// `summarized` of them went to the summariser, whose rolling summary
    /// is `rolling` (REACT-6).
    covered: Vec<usize>,
    summarized: usize,
    rolling: Option<String>,
    /// What the window shows, as last made ([`Scratchpad::shown`]): a
    /// step pushed is appended to it, any other change drops it (REL-3).
    shown: Option<MessageRun>,
}

impl Scratchpad {
    /// Steps recorded in the round.
    pub(super) fn len(&self) -> usize {
        self.steps.len()
    }

    /// What the scratchpad costs in the window: its steps at their levels
    /// and the digest.
    pub(super) fn tokens(&self) -> usize {
        self.step_tokens + self.digest_tokens
    }

    /// What the digest and its rolling summary cost, part of
    /// [`Scratchpad::tokens`].
    pub(super) fn digest_tokens(&self) -> usize {
        self.digest_tokens
    }

    /// Empties it, for a new round or when a round ends.
    pub(super) fn clear(&mut self) {
        *self = Scratchpad::default();
    }

    /// Adds a step; `history` says which messages the model left out
    /// (HIST-10).
    pub(super) fn push(&mut self, step: Scratch, history: &History) {
        if !history.is_hidden(&step.id()) {
            self.step_tokens += step.tokens();
            if let Some(shown) = &mut self.shown {
                shown.extend(step.messages().iter().cloned());
            }
        }
        self.steps.push(step);
    }

    /// [`Scratchpad::messages`] as a run the windows share: made once,
    /// then grown by each step pushed, so that a step costs what it adds.
    pub(super) fn shown(&mut self, history: &History) -> MessageRun {
        if let Some(shown) = &self.shown {
            return shown.clone();
        }
        let shown = MessageRun::new(self.messages(history));
        self.shown = Some(shown.clone());
        shown
    }

    /// Counts the steps again after the model left messages out or
    /// brought them back (HIST-10).
    pub(super) fn recount(&mut self, history: &History) {
        self.shown = None;
        self.step_tokens = self
            .steps
            .iter()
            .filter(|s| !history.is_hidden(&s.id()))
            .map(Scratch::tokens)
            .sum();
    }

    /// The messages the window shows, in order: the digest, then each step
    /// at its level. Steps left out are a prefix: the walk starts after
    /// them (REL-3), but for the pinned ones among them, which stay.
    pub(super) fn messages(&self, history: &History) -> Vec<Message> {
        let mut out = Vec::new();
        out.extend(self.digest_message.clone());
        let omitted = self.next_omit.min(self.steps.len());
        let pinned = self.steps[..omitted].iter().filter(|s| s.pinned);
        for step in pinned.chain(&self.steps[omitted..]) {
            if !history.is_hidden(&step.id()) {
                out.extend_from_slice(step.messages());
            }
        }
        out
    }

    /// Pins or unpins the steps that hold one of `ids`: a pinned step is
    /// shown whole again, however condensed it was.
    pub(super) fn pin(&mut self, ids: &[MessageId], pinned: bool, history: &History) {
        self.shown = None;
        for i in 0..self.steps.len() {
            let step = &mut self.steps[i];
            if !step.full.iter().any(|m| ids.contains(&m.id)) {
                continue;
            }
            step.pinned = pinned;
            for m in step.full.iter_mut().chain(step.history.iter_mut()) {
                m.set_pinned(pinned);
            }
            if pinned {
                self.set_level(i, Level::Full, history);
            }
        }
        self.recount(history);
    }

    /// Condenses the first `eligible` steps, one level at a time, oldest
    /// first, no further than `deepest`, until `over(tokens)` says the
    /// window with the scratchpad at `tokens` fits. The digest is rendered
    /// within `digest_chars` characters. Adds to `counts` the steps sent
    /// to history form, cleared and left out.
    pub(super) fn condense(
        &mut self,
        eligible: usize,
        deepest: Level,
        over: &dyn Fn(usize) -> bool,
        env: (&History, &dyn TokenCounter, usize),
        counts: &mut Condensed,
    ) {
        let (history, counter, digest_chars) = env;
        while over(self.tokens()) {
            // A pinned step stays as it is (#30.7): every cursor passes it.
            let pinned = |cursor: usize| cursor < eligible && self.steps[cursor].pinned;
            if pinned(self.next_condense) {
                self.next_condense += 1;
            } else if pinned(self.next_clear) && self.next_clear < self.next_condense {
                self.next_clear += 1;
            } else if pinned(self.next_omit) && self.next_omit < self.next_clear {
                self.next_omit += 1;
            } else if self.next_condense < eligible {
                self.set_level(self.next_condense, Level::History, history);
                self.next_condense += 1;
                counts.0 += 1;
            } else if deepest == Level::History {
                break;
            } else if self.next_clear < eligible {
                let i = self.next_clear;
                self.clear_step(i, counter);
                self.set_level(i, Level::Cleared, history);
                if !self.steps[i].protected {
                    self.cover(i, counter, digest_chars);
                }
                self.next_clear += 1;
                counts.1 += 1;
            } else if self.next_omit < eligible {
                let i = self.next_omit;
                self.set_level(i, Level::Omitted, history);
                if self.steps[i].protected {
                    self.cover(i, counter, digest_chars);
                }
                self.next_omit += 1;
                counts.2 += 1;
            } else {
                break;
            }
        }
    }

    /// The last resort, once every step that may go has gone: the digest
    /// yields what the window still lacks, its oldest facts first, down to
    /// a quarter of its room of `digest_chars` characters (REACT-6),
    /// rather than the window going over its budget. The next step's
    /// facts render it in its whole room again.
    pub(super) fn yield_digest(
        &mut self,
        over: &dyn Fn(usize) -> bool,
        counter: &dyn TokenCounter,
        digest_chars: usize,
    ) {
        if self.digest_message.is_none() {
            return;
        }
        let mut chars = digest_chars;
        while over(self.tokens()) && chars > digest_chars / 4 {
            chars = chars * 7 / 8;
            self.render_digest(counter, chars);
        }
    }

    /// Makes step `i`'s cleared form: results replaced by their recall
    /// handle (but for a protected tool's), long arguments and the thought
    /// cut.
    fn clear_step(&mut self, i: usize, counter: &dyn TokenCounter) {
        let step = &mut self.steps[i];
        let mut form = step.history.clone();
        // The step's calls: each cleared result keeps what came of its
        // call (HIST-6).
        let calls = form.first().map(|m| m.tool_calls.clone()).unwrap_or_default();
        for m in &mut form {
            if !step.protected {
                let call = m
                    .tool_call_id
                    .as_deref()
                    .and_then(|id| calls.iter().find(|c| c.id == id));
                clear_result(m, call);
            }
            cut_arguments(m);
            cut_thought(m);
        }
        step.tokens[Level::Cleared as usize] = counter.count_messages(&form);
        step.cleared = Some(form);
    }

    /// Adds what step `i` did to the digest, now that its results left
    /// the window, and renders the digest again (REACT-6).
    fn cover(&mut self, i: usize, counter: &dyn TokenCounter, digest_chars: usize) {
        self.digest.merge(&self.steps[i].facts);
        self.covered.push(i);
        self.render_digest(counter, digest_chars);
    }

    /// The steps the digest covers that the summariser has not seen, as
    /// its input after the rolling summary so far, and how many they are;
    /// `None` when there are none. They count as seen from now on, whatever
    /// the summariser answers.
    pub(super) fn take_unsummarized(&mut self) -> Option<(Vec<Message>, usize)> {
        if self.covered.len() <= self.summarized {
            return None;
        }
        let mut input = Vec::new();
        if let Some(rolling) = &self.rolling {
            input.push(Message::summary(rolling.clone()));
        }
        for &i in &self.covered[self.summarized..] {
            input.extend(self.steps[i].history.iter().cloned());
        }
        let steps = self.covered.len() - self.summarized;
        self.summarized = self.covered.len();
        Some((input, steps))
    }

    /// Takes the summariser's answer as the rolling summary of the covered
    /// steps and renders the digest again.
    pub(super) fn set_rolling(&mut self, summary: String, counter: &dyn TokenCounter, digest_chars: usize) {
        self.rolling = Some(summary);
        self.render_digest(counter, digest_chars);
    }

    /// The digest message: the facts, and the rolling summary when there
    /// is one, within `chars` characters.
    fn render_digest(&mut self, counter: &dyn TokenCounter, chars: usize) {
        let mut text = match &self.rolling {
            Some(rolling) => {
                let facts = self.digest.render(chars / 2);
                let room = chars.saturating_sub(facts.chars().count() + 40);
                let mut summary: String = rolling.chars().take(room).collect();
                if summary.len() < rolling.len() {
                    summary.push('…');
                }
                format!("{facts}\n\nSummary of those steps:\n{summary}")
            }
            None => self.digest.render(chars),
        };
        if text.is_empty() {
            text = self.digest.render(chars);
        }
        let message = Message::system(text)
            .with_id(MessageId::derived(&format!(
                "strata:digest:{}",
                self.digest.steps()
            )))
            .with_created_at(None);
        self.digest_tokens = counter.count_message(&message);
        self.digest_message = Some(message);
        self.shown = None;
    }

    fn set_level(&mut self, i: usize, level: Level, history: &History) {
        let hidden = history.is_hidden(&self.steps[i].id());
        let step = &mut self.steps[i];
        if !hidden {
            self.step_tokens = self.step_tokens.saturating_sub(step.tokens()) + step.tokens[level as usize];
        }
        step.level = level;
        self.shown = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use strata_ctx_core::{CharCounter, Config, ToolCall, ToolResult};

    fn history() -> History {
        History::new(Config::default(), Arc::new(CharCounter))
    }

    /// A step of one call whose result is `text`, in history form its
    /// first eight lines.
    fn step(n: usize, text: &str, protected: bool) -> Scratch {
        let call = ToolCall::new(
            format!("c{n}"),
            "Bash",
            serde_json::json!({"command": format!("make {n}")}),
        );
        let assistant = Message::assistant_with_calls(format!("step {n}"), vec![call.clone()]);
        let result = Message::tool_result(&call, ToolResult::success(text));
        let first: Vec<&str> = text.lines().take(8).collect();
        let short = Message::tool_result(&call, ToolResult::success(first.join("\n")));
        let full = vec![assistant.clone(), result];
        let history = vec![assistant, short];
        let tokens = (
            CharCounter.count_messages(&full),
            CharCounter.count_messages(&history),
        );
        let mut facts = Digest::new();
        facts.observe(&full[0], &full[1..]);
        Scratch::new(full, history, tokens, facts, protected, false)
    }

    /// Condenses the first `eligible` steps as far as `deepest`, as if the
    /// window never fitted.
    fn squeeze(pad: &mut Scratchpad, h: &History, eligible: usize, deepest: Level, counts: &mut Condensed) {
        pad.condense(eligible, deepest, &|_| true, (h, &CharCounter, 3_000), counts);
    }

    fn pad(n: usize, protected: impl Fn(usize) -> bool) -> (Scratchpad, History) {
        let h = history();
        let mut pad = Scratchpad::default();
        for i in 0..n {
            pad.push(step(i, &"output line\n".repeat(50), protected(i)), &h);
        }
        (pad, h)
    }

    /// REACT-5: the oldest steps go first, one level at a time, and the
    /// walk stops as soon as the scratchpad fits; the cost it reports is
    /// what it shows.
    #[test]
    fn react_5_condenses_oldest_first_until_it_fits() {
        let (mut pad, h) = pad(6, |_| false);
        let limit = pad.tokens() * 2 / 3;
        let mut counts = (0, 0, 0);
        pad.condense(
            6,
            Level::Omitted,
            &|t| t > limit,
            (&h, &CharCounter, 3_000),
            &mut counts,
        );
        assert!(pad.tokens() <= limit, "{} > {limit}", pad.tokens());
        assert!(counts.0 > 0);
        let levels: Vec<Level> = pad.steps.iter().map(|s| s.level).collect();
        assert!(
            levels.windows(2).all(|w| w[0] >= w[1]),
            "oldest first: {levels:?}"
        );
        assert_eq!(
            levels[5],
            Level::Full,
            "the walk stopped once it fitted: {levels:?}"
        );
        let shown: usize = pad
            .messages(&h)
            .iter()
            .map(|m| CharCounter.count_message(m))
            .sum();
        assert_eq!(pad.tokens(), shown, "what it costs is what it shows");
    }

    /// REACT-6: once every step that may go has gone, the digest yields
    /// what the window still lacks, its oldest facts first, down to a
    /// quarter of its room.
    #[test]
    fn react_6_the_digest_yields_the_last_tokens() {
        let (mut pad, h) = pad(40, |_| false);
        let env: (&History, &dyn TokenCounter, usize) = (&h, &CharCounter, 900);
        let mut counts = (0, 0, 0);
        pad.condense(40, Level::Omitted, &|_| true, env, &mut counts);
        assert!(pad.steps.iter().all(|s| s.level == Level::Omitted));
        let digest = |pad: &Scratchpad| pad.digest_message.as_ref().unwrap().content.to_string();
        assert!(digest(&pad).contains("`make 0`"), "{}", digest(&pad));
        let whole = pad.digest_tokens();
        pad.yield_digest(&|_| false, &CharCounter, 900);
        assert_eq!(pad.digest_tokens(), whole, "nothing lacks: the digest stays");
        let limit = pad.tokens() - 40;
        pad.yield_digest(&|t| t > limit, &CharCounter, 900);
        assert!(pad.tokens() <= limit, "{} > {limit}", pad.tokens());
        assert!(digest(&pad).contains("`make 39`"), "the newest stay");
        assert!(!digest(&pad).contains("`make 0`"), "the oldest go first");
        // Down to a quarter of its room, never below, whatever the window
        // lacks: the newest facts stay.
        pad.yield_digest(&|_| true, &CharCounter, 2_000);
        let floor = digest(&pad);
        assert!(floor.starts_with("[Progress digest of 40"), "{floor}");
        assert!(floor.chars().count() <= 2_000 / 4, "{floor}");
        assert!(floor.contains("`make 39`"), "{floor}");
    }

    /// REACT-5: `deepest` bounds the walk; a pinned step stays whole and a
    /// protected one is never cleared (HIST-15).
    #[test]
    fn react_5_pinned_and_protected_steps() {
        let (mut pad, h) = pad(4, |i| i == 1);
        pad.steps[0].pinned = true;
        let mut counts = (0, 0, 0);
        squeeze(&mut pad, &h, 4, Level::History, &mut counts);
        assert_eq!(counts, (3, 0, 0), "history form only, the pinned step passed");
        assert_eq!(pad.steps[0].level, Level::Full);
        squeeze(&mut pad, &h, 4, Level::Omitted, &mut counts);
        assert_eq!(pad.steps[0].level, Level::Full, "pinned");
        assert_eq!(counts, (3, 3, 3), "each unpinned step cleared, then left out");
        // The protected step keeps its result; the others show its handle.
        let cleared = |i: usize| pad.steps[i].cleared.as_ref().unwrap()[1].text().into_owned();
        assert!(cleared(1).contains("output line"), "{}", cleared(1));
        assert!(cleared(2).contains("cleared"), "{}", cleared(2));
        assert!(pad.steps[1].cleared.is_none() || pad.steps[1].protected);
        assert!(pad.steps[1..].iter().all(|s| s.level == Level::Omitted));
        assert_eq!(pad.messages(&h).len(), 2 + 1, "the pinned step and the digest");
    }

    /// REACT-6: a cleared step's facts join the digest, which heads the
    /// scratchpad; the covered steps go to the summariser once.
    #[test]
    fn react_6_cleared_steps_join_the_digest_once() {
        let (mut pad, h) = pad(3, |_| false);
        let mut counts = (0, 0, 0);
        let limit = pad.tokens() / 20;
        pad.condense(
            2,
            Level::Omitted,
            &|t| t > limit,
            (&h, &CharCounter, 3_000),
            &mut counts,
        );
        assert!(counts.1 > 0, "{counts:?}");
        let first = &pad.messages(&h)[0];
        assert!(first.content.contains("make 0"), "{}", first.content);
        let (input, steps) = pad.take_unsummarized().unwrap();
        assert_eq!(steps, counts.1);
        assert!(input.iter().any(|m| m.content.contains("step 0")));
        assert!(pad.take_unsummarized().is_none(), "sent once");
        // Steps covered later go on their own.
        let before = counts.1;
        squeeze(&mut pad, &h, 3, Level::Cleared, &mut counts);
        let (_, more) = pad.take_unsummarized().unwrap();
        assert_eq!(more, counts.1 - before);
        pad.set_rolling("fixed the build".into(), &CharCounter, 3_000);
        assert!(pad.messages(&h)[0]
            .content
            .contains("Summary of those steps:\nfixed the build"));
        assert_eq!(pad.take_unsummarized().map(|(_, n)| n), None);
    }

    /// Each level shows its form: whole, history form, cleared, nothing;
    /// a step is known by its first message.
    #[test]
    fn a_step_shows_the_form_of_its_level() {
        let mut s = step(0, &"output line\n".repeat(50), false);
        assert_eq!(s.id(), s.full[0].id);
        assert_eq!(s.messages(), &s.full[..]);
        s.level = Level::History;
        assert_eq!(s.messages(), &s.history[..]);
        s.cleared = Some(vec![Message::user("cleared")]);
        s.level = Level::Cleared;
        assert_eq!(s.messages()[0].content, "cleared");
        s.level = Level::Omitted;
        assert!(s.messages().is_empty());
        assert_eq!(s.tokens(), 0);
    }

    /// What the scratchpad costs is counted again from its steps.
    #[test]
    fn recount_sums_the_steps_at_their_levels() {
        let (mut pad, h) = pad(3, |_| false);
        let counted = pad.tokens();
        assert_eq!(pad.len(), 3);
        pad.step_tokens = 0;
        pad.recount(&h);
        assert_eq!(pad.tokens(), counted);
    }

    /// A cursor passes a pinned step only among the eligible ones: a step
    /// pinned beyond them, unpinned later, is still condensed in turn.
    #[test]
    fn a_cursor_passes_pinned_steps_only_among_the_eligible() {
        let (mut pad, h) = pad(4, |_| false);
        let id = pad.steps[2].full[0].id;
        pad.pin(&[id], true, &h);
        let mut counts = (0, 0, 0);
        squeeze(&mut pad, &h, 2, Level::History, &mut counts);
        assert_eq!(pad.next_condense, 2);
        pad.pin(&[id], false, &h);
        squeeze(&mut pad, &h, 4, Level::History, &mut counts);
        assert_eq!(pad.steps[2].level, Level::History);
    }

    // Equivalent mutants (cargo mutants), named with the reason:
    // - `next_clear < next_condense` -> `<=` and `next_omit < next_clear`
    //   -> `<=` in `condense`: when the two cursors are equal and the step
    //   under them is pinned, the branch before (the condense cursor, or
    //   the clear cursor) has already passed it.

    /// The digest fits its characters: with a rolling summary, the facts
    /// take at most half and the summary what is left, cut with an
    /// ellipsis only when it is longer.
    #[test]
    fn react_6_the_digest_fits_its_share() {
        let (mut pad, h) = pad(4, |_| false);
        let mut counts = (0, 0, 0);
        pad.condense(4, Level::Cleared, &|_| true, (&h, &CharCounter, 400), &mut counts);
        let digest = |pad: &Scratchpad| pad.messages(&h)[0].text().into_owned();
        pad.set_rolling("short".into(), &CharCounter, 400);
        let text = digest(&pad);
        assert!(text.ends_with("Summary of those steps:\nshort"), "{text}");
        let facts = text
            .split("\n\nSummary of those steps:")
            .next()
            .unwrap()
            .to_owned();
        assert!(facts.chars().count() <= 200, "{facts}");
        pad.set_rolling("x".repeat(1_000), &CharCounter, 400);
        let text = digest(&pad);
        assert!(text.ends_with("x…"), "{text}");
        let summary = text.split("Summary of those steps:\n").nth(1).unwrap();
        let room = 400 - (facts.chars().count() + 40);
        assert_eq!(summary.chars().count(), room + 1, "the room and the ellipsis");
        assert_eq!(
            pad.tokens() - pad.step_tokens,
            CharCounter.count_message(&pad.messages(&h)[0])
        );
    }

    /// A pinned step is shown whole again, however condensed it was.
    #[test]
    fn pinning_shows_a_step_whole_again() {
        let (mut pad, h) = pad(2, |_| false);
        let mut counts = (0, 0, 0);
        squeeze(&mut pad, &h, 2, Level::Omitted, &mut counts);
        assert_eq!(pad.steps[0].level, Level::Omitted);
        let id = pad.steps[0].full[1].id;
        pad.pin(&[id], true, &h);
        assert_eq!(pad.steps[0].level, Level::Full);
        assert!(pad.steps[0].full.iter().all(Message::is_pinned));
        assert!(pad.messages(&h).iter().any(|m| m.id == id));
    }
}

//! Message-id pruning by the model (HIST-10).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use strata_ctx_core::{Message, MessageId, Role, ShortIds, TokenTally};

/// The model's request on its list of messages to leave out of the window,
/// naming messages by short id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", content = "ids", rename_all = "snake_case")]
pub enum PruneAction {
    /// Replace the list with these ids.
    Create(Vec<String>),
    /// Add these ids to the list.
    Append(Vec<String>),
    /// Take these ids off the list: their messages come back.
    Delete(Vec<String>),
}

/// What a pruning request did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PruneOutcome {
    /// Every message now left out of the window, steps expanded.
    pub hidden: Vec<MessageId>,
    /// Ids that were not applied, each with the reason.
    pub rejected: Vec<String>,
}

pub use strata_ctx_core::id_hint;

/// The model's pruning of a window (HIST-10): the ids it asked to leave
/// out, what they hide (each named message, a call or result with its
/// whole step) and the tokens of what is hidden. The history asks it what
/// is hidden and tells it when the window changed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pruning {
    list: Vec<MessageId>,
    hidden: HashSet<MessageId>,
    tokens: usize,
}

impl Pruning {
    /// Whether nothing is hidden.
    pub(crate) fn is_empty(&self) -> bool {
        self.hidden.is_empty()
    }

    /// Whether the message with this id is hidden.
    pub(crate) fn hides(&self, id: &MessageId) -> bool {
        self.hidden.contains(id)
    }

    /// The tokens of the hidden messages.
    pub(crate) fn tokens(&self) -> usize {
        self.tokens
    }

    /// The messages of `messages` that are not hidden.
    pub(crate) fn shown<'a>(&'a self, messages: &'a [Message]) -> impl Iterator<Item = &'a Message> + 'a {
        messages.iter().filter(move |m| !self.hides(&m.id))
    }

    /// Applies the model's request to `window` (its messages' tokens in
    /// `tally`): ids resolve by their short form, summaries are refused.
    pub(crate) fn apply(
        &mut self,
        action: PruneAction,
        window: &[Message],
        tally: &TokenTally,
    ) -> PruneOutcome {
        let short = ShortIds::new(window.iter().map(|m| m.id));
        let mut outcome = PruneOutcome::default();
        let mut resolve = |ids: Vec<String>| -> Vec<MessageId> {
            let mut resolved = Vec::new();
            for text in ids {
                match short.resolve(&text) {
                    Ok(id) if window.iter().any(|m| m.id == id && m.role == Role::Summary) => outcome
                        .rejected
                        .push(format!("{text}: summaries cannot be pruned")),
                    Ok(id) => resolved.push(id),
                    Err(e) => outcome.rejected.push(format!("{text}: {e}")),
                }
            }
            resolved
        };
        match action {
            PruneAction::Create(ids) => self.list = resolve(ids),
            PruneAction::Append(ids) => {
                for id in resolve(ids) {
                    if !self.list.contains(&id) {
                        self.list.push(id);
                    }
                }
            }
            PruneAction::Delete(ids) => {
                let resolved = resolve(ids);
                self.list.retain(|id| !resolved.contains(id));
            }
        }
        self.refresh(window, tally);
        outcome.hidden = window
            .iter()
            .filter(|m| self.hides(&m.id))
            .map(|m| m.id)
            .collect();
        outcome
    }

    /// Recomputes what the list hides, after `window` changed.
    pub(crate) fn refresh(&mut self, window: &[Message], tally: &TokenTally) {
        self.hidden = expand(window, &self.list);
        self.tokens = window
            .iter()
            .enumerate()
            .filter(|(_, m)| self.hidden.contains(&m.id))
            .map(|(i, _)| tally.get(i).unwrap_or(0))
            .sum();
    }
}

/// The messages of `window` hidden by `list`: each listed message, and for
/// a tool call or result, its whole step (the assistant message and every
/// result of its calls).
pub(crate) fn expand(window: &[Message], list: &[MessageId]) -> HashSet<MessageId> {
    let mut hidden = HashSet::new();
    if list.is_empty() {
        return hidden;
    }
    // The step each call id belongs to.
    let mut step_of_call: HashMap<&str, usize> = HashMap::new();
    for (i, m) in window.iter().enumerate() {
        for c in &m.tool_calls {
            step_of_call.insert(c.id.as_str(), i);
        }
    }
    let hide_step = |step: usize, hidden: &mut HashSet<MessageId>| {
        let assistant = &window[step];
        hidden.insert(assistant.id);
        let calls: HashSet<&str> = assistant.tool_calls.iter().map(|c| c.id.as_str()).collect();
        for m in &window[step + 1..] {
            if m.role == Role::Tool && m.tool_call_id.as_deref().is_some_and(|id| calls.contains(id)) {
                hidden.insert(m.id);
            }
        }
    };
    for id in list {
        let Some(i) = window.iter().position(|m| m.id == *id) else {
            continue;
        };
        let m = &window[i];
        match m.role {
            Role::Summary => {}
            Role::Assistant if m.has_tool_calls() => hide_step(i, &mut hidden),
            Role::Tool => match m.tool_call_id.as_deref().and_then(|c| step_of_call.get(c)) {
                Some(&step) => hide_step(step, &mut hidden),
                None => {
                    hidden.insert(m.id);
                }
            },
            _ => {
                hidden.insert(m.id);
            }
        }
    }
    hidden
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_ctx_core::{CharCounter, TokenCounter};

    /// HIST-10: the owner's own decisions, without a history around it.
    #[test]
    fn hist_10_pruning_appends_once_refuses_summaries_and_shows_the_rest() {
        let window = vec![
            Message::summary("earlier work"),
            Message::user("go"),
            Message::assistant("looking"),
            Message::assistant("done"),
        ];
        let tally = TokenTally::from_messages(&CharCounter, &window);
        let short = ShortIds::new(window.iter().map(|m| m.id));
        let name = |i: usize| short.short(&window[i].id).unwrap_or_default();
        let mut pruning = Pruning::default();
        assert!(pruning.is_empty());

        let outcome = pruning.apply(PruneAction::Append(vec![name(0), name(2)]), &window, &tally);
        assert_eq!(
            outcome.rejected,
            [format!("{}: summaries cannot be pruned", name(0))]
        );
        assert_eq!(outcome.hidden, [window[2].id]);
        assert!(pruning.hides(&window[2].id) && !pruning.hides(&window[0].id));
        assert_eq!(pruning.tokens(), CharCounter.count_messages(&window[2..3]));
        let shown: Vec<_> = pruning.shown(&window).map(|m| m.id).collect();
        assert_eq!(shown, [window[0].id, window[1].id, window[3].id]);

        // Appending an id twice hides it once; `create` replaces the list.
        let outcome = pruning.apply(PruneAction::Append(vec![name(2), name(3)]), &window, &tally);
        assert_eq!(outcome.hidden, [window[2].id, window[3].id]);
        let outcome = pruning.apply(PruneAction::Create(vec![name(1)]), &window, &tally);
        assert_eq!(outcome.hidden, [window[1].id]);
        let outcome = pruning.apply(PruneAction::Delete(vec![name(1)]), &window, &tally);
        assert!(outcome.hidden.is_empty() && pruning.is_empty());
        assert_eq!(pruning.tokens(), 0);
    }
}

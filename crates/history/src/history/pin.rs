//! Pinned messages (#30.7): what survives compaction verbatim and is never
//! cleared.

use super::*;

/// What a pinning request did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PinOutcome {
    /// The messages pinned or unpinned, whole steps included.
    pub changed: Vec<MessageId>,
    /// The ids that were not understood, each with the reason.
    pub rejected: Vec<String>,
}

impl History {
    /// Pins (`pinned = true`) or unpins messages of the window by id or
    /// short id: a pinned message stays in the window verbatim through
    /// every compaction and is never cleared or cut (#30.7). A tool call or
    /// result takes its whole step with it, so pairs are never split.
    /// Summaries are not pinned (the next summary replaces them). The
    /// request is recorded, so a rebuilt history pins the same messages.
    pub fn pin(&mut self, ids: &[String], pinned: bool) -> PinOutcome {
        let short = self.short_ids();
        let mut outcome = PinOutcome::default();
        let mut resolved = Vec::new();
        for text in ids {
            match short.resolve(text) {
                Ok(id)
                    if self
                        .window
                        .messages()
                        .iter()
                        .any(|m| m.id == id && m.role == Role::Summary) =>
                {
                    outcome
                        .rejected
                        .push(format!("{text}: summaries cannot be pinned"))
                }
                Ok(id) => resolved.push(id),
                Err(e) => outcome.rejected.push(format!("{text}: {e}")),
            }
        }
        if resolved.is_empty() {
            return outcome;
        }
        self.record(|| Record::Pin {
            ids: resolved.clone(),
            pinned,
        });
        outcome.changed = self.apply_pin(&resolved, pinned);
        outcome
    }

    /// Marks the messages `ids` name, with their steps, in the window and
    /// the full log; the ids changed.
    pub(super) fn apply_pin(&mut self, ids: &[MessageId], pinned: bool) -> Vec<MessageId> {
        let wanted: HashSet<MessageId> = ids.iter().copied().collect();
        let steps = step_members(self.window.messages(), |m| wanted.contains(&m.id));
        let changed: Vec<MessageId> = steps.iter().map(|&i| self.window.messages()[i].id).collect();
        let ids: HashSet<MessageId> = changed.iter().copied().collect();
        for m in self.log.iter_mut().filter(|m| ids.contains(&m.id)) {
            m.set_pinned(pinned);
        }
        for &i in &steps {
            // Pinned, a message is shown as it was recorded: a result in
            // its history form gets its whole text back from the log.
            let shown = &self.window.messages()[i];
            let original = pinned
                .then(|| self.log.iter().find(|m| m.id == shown.id))
                .flatten()
                .filter(|m| m.content != shown.content || m.result != shown.result)
                .cloned();
            self.window.edit(i, &*self.counter, |m| {
                match original {
                    Some(original) => *m = original,
                    None => m.set_pinned(pinned),
                }
                1
            });
        }
        changed
    }

    /// Positions in `messages` that compaction and shrinking must leave as
    /// they are: pinned messages with their whole steps.
    pub(super) fn pinned_positions(messages: &[Message]) -> HashSet<usize> {
        step_members(messages, Message::is_pinned).into_iter().collect()
    }
}

/// The positions of the messages `chosen` picks, each with its whole
/// step: an assistant message's calls bring their results, a result
/// brings its call's message and that message's other results. In order.
fn step_members(messages: &[Message], chosen: impl Fn(&Message) -> bool) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let call_owner = |call_id: &str| {
        messages
            .iter()
            .position(|m| m.tool_calls.iter().any(|c| c.id == call_id))
    };
    for (i, m) in messages.iter().enumerate().filter(|(_, m)| chosen(m)) {
        let owner = match (&m.tool_call_id, m.has_tool_calls()) {
            (Some(call), _) => call_owner(call),
            (None, true) => Some(i),
            (None, false) => None,
        };
        out.push(i);
        if let Some(owner) = owner {
            out.push(owner);
            let calls: HashSet<&str> = messages[owner].tool_calls.iter().map(|c| c.id.as_str()).collect();
            out.extend(
                messages
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.tool_call_id.as_deref().is_some_and(|c| calls.contains(c)))
                    .map(|(j, _)| j),
            );
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The most messages one recall gives back.
pub const MAX_RECALLED: usize = 40;

impl History {
    /// The messages of the full log from `from` to `to` (both included;
    /// `to` absent: `from` alone), by id or the short id of a recall handle
    /// (#30.5): what a cleared result, a condensed step or an archived
    /// round stood for, as it was recorded, with the results of the last
    /// step named. At most [`MAX_RECALLED`] messages.
    ///
    /// # Errors
    ///
    /// A text saying which id is unknown or ambiguous, or that `to` comes
    /// before `from`.
    pub fn recall(&self, from: &str, to: Option<&str>) -> Result<&[Message], String> {
        let ids = ShortIds::new(self.log.iter().map(|m| m.id));
        let position = |text: &str| -> Result<usize, String> {
            let id = ids.resolve(text.trim()).map_err(|e| format!("{text}: {e}"))?;
            self.log
                .iter()
                .position(|m| m.id == id)
                .ok_or_else(|| format!("{text}: not in the full log"))
        };
        let start = position(from)?;
        let end = match to {
            Some(to) => position(to)?,
            None => start,
        };
        if end < start {
            return Err(format!("{}: comes before {from}", to.unwrap_or_default()));
        }
        // A step is given back whole: the results that follow the last
        // message named come with it.
        let mut end = end;
        while end + 1 < self.log.len() && self.log[end + 1].role == Role::Tool {
            end += 1;
        }
        Ok(&self.log[start..=end.min(start + MAX_RECALLED - 1)])
    }
}

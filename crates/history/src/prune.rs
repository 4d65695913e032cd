//! Message-id pruning by the model (HIST-10).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use strata_ctx_core::{Message, MessageId, Role};

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

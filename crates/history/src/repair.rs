//! The pairing invariant and the repair of histories that break it (HIST-2).

use std::collections::{HashMap, HashSet, VecDeque};

use strata_ctx_core::{Message, MessageId, PairIssue, Pairs, Role, ToolCall, ToolResult};

/// The message text of the synthetic result of an interrupted call.
pub const INTERRUPTED_MESSAGE: &str = "the tool call was interrupted before it returned a result";

/// One change made by [`repair`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Repair {
    /// An unanswered call got a synthetic `error` result with code
    /// `interrupted`, placed right after the call.
    Interrupted {
        /// The call's id.
        call_id: String,
        /// The id of the synthetic result, derived from the call id.
        result: MessageId,
    },
    /// A result whose call is not in the history was left out.
    OrphanDropped {
        /// The dropped message.
        message: MessageId,
    },
    /// A second result for a call that already had one was left out.
    DuplicateDropped {
        /// The dropped message.
        message: MessageId,
    },
    /// A result that did not directly follow its call's message was moved
    /// there, as chat APIs require.
    Moved {
        /// The moved message.
        message: MessageId,
    },
    /// A call reused the id of an earlier call (in the same message or an
    /// earlier one) and was given a new one; the next result with the old
    /// id after it answers it (REL-1).
    Renamed {
        /// The id the call came with.
        old: String,
        /// The id it has now.
        new: String,
    },
}

impl std::fmt::Display for Repair {
    /// One sentence, e.g. ``result 1b4e28ba-… moved next to its call``.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Repair::Interrupted { call_id, .. } => {
                write!(
                    f,
                    "call {call_id} had no result: an `interrupted` result was added"
                )
            }
            Repair::OrphanDropped { message } => write!(f, "result {message} answers no call: left out"),
            Repair::DuplicateDropped { message } => {
                write!(f, "result {message} is a second answer to its call: left out")
            }
            Repair::Moved { message } => write!(f, "result {message} moved next to its call"),
            Repair::Renamed { old, new } => {
                write!(f, "call id {old} was used twice: the second call is now {new}")
            }
        }
    }
}

/// The synthetic result of an interrupted call, with an id derived from the
/// call's id, so that repairing the same history twice gives the same bytes.
pub fn interrupted_result(call: &ToolCall) -> Message {
    let id = MessageId::derived(&format!("strata:interrupted:{}", call.id));
    Message::tool_result(call, ToolResult::error("interrupted", INTERRUPTED_MESSAGE))
        .with_id(id)
        .with_created_at(None)
}

/// Repairs `messages` so that every tool call is directly followed, after
/// its assistant message, by exactly one result per call, in call order
/// (HIST-2), and reports what changed.
///
/// - An unanswered call gets [`interrupted_result`] in its place.
/// - A result without an earlier call, and a second result for the same
///   call, are left out (the full log keeps them).
/// - A result found later than right after its call's message is moved
///   there.
///
/// The repair is deterministic and idempotent: a repaired history is
/// returned unchanged with no repairs.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{Message, Pairs, ToolCall};
/// use strata_ctx_history::{repair, Repair};
///
/// let call = ToolCall::new("c1", "bash", json!({"command": "make"}));
/// let crashed = vec![Message::user("build it"), Message::assistant_with_calls("", vec![call])];
/// let (fixed, repairs) = repair(&crashed);
/// assert!(Pairs::new(&fixed).is_complete());
/// assert!(matches!(repairs[0], Repair::Interrupted { .. }));
/// ```
pub fn repair(messages: &[Message]) -> (Vec<Message>, Vec<Repair>) {
    let (renamed, mut repairs) = rename_repeated_ids(messages);
    let messages = renamed.as_deref().unwrap_or(messages);
    let (out, more) = pair(messages);
    repairs.extend(more);
    (out, repairs)
}

/// A new id for a call that reused `old`: `old~2`, `old~3`, … the first
/// not in `used`.
pub(crate) fn fresh_id(old: &str, used: &dyn Fn(&str) -> bool) -> String {
    (2..)
        .map(|k| format!("{old}~{k}"))
        .find(|id| !used(id))
        .unwrap_or_else(|| format!("{old}~"))
}

/// Gives every call that reuses an earlier call's id a fresh one, and the
/// results their calls in order: a result answers the oldest call of its
/// id still waiting for one. `None` when no id repeats.
fn rename_repeated_ids(messages: &[Message]) -> (Option<Vec<Message>>, Vec<Repair>) {
    let mut seen: HashSet<&str> = HashSet::with_capacity(call_count(messages));
    let repeated = messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .any(|c| !seen.insert(c.id.as_str()));
    if !repeated {
        return (None, Vec::new());
    }
    // Every id the history names, calls and results alike: `seen` stopped
    // at the first repeat, and a new id must not be one a later call or a
    // stray result already has.
    let mut used: HashSet<String> = messages
        .iter()
        .flat_map(|m| {
            m.tool_calls
                .iter()
                .map(|c| c.id.as_str())
                .chain(m.tool_call_id.as_deref())
        })
        .map(str::to_owned)
        .collect();
    let mut first: HashSet<String> = HashSet::new();
    let mut waiting: HashMap<String, VecDeque<String>> = HashMap::new();
    let mut repairs = Vec::new();
    let mut out = messages.to_vec();
    for m in &mut out {
        match m.role {
            Role::Assistant => {
                for call in &mut m.tool_calls {
                    let old = call.id.clone();
                    let id = if first.insert(old.clone()) {
                        old.clone()
                    } else {
                        let new = fresh_id(&old, &|id| used.contains(id));
                        used.insert(new.clone());
                        repairs.push(Repair::Renamed {
                            old: old.clone(),
                            new: new.clone(),
                        });
                        call.id = new.clone();
                        new
                    };
                    waiting.entry(old).or_default().push_back(id);
                }
            }
            Role::Tool => {
                let next = m
                    .tool_call_id
                    .as_deref()
                    .and_then(|id| waiting.get_mut(id))
                    .and_then(VecDeque::pop_front);
                if let Some(id) = next {
                    m.tool_call_id = Some(id);
                }
            }
            _ => {}
        }
    }
    (Some(out), repairs)
}

/// How many calls `messages` make.
fn call_count(messages: &[Message]) -> usize {
    messages.iter().map(|m| m.tool_calls.len()).sum()
}

/// The pairing part of [`repair`], on ids that do not repeat: which
/// result answers which call is [`Pairs`]' rule, the one definition of
/// "paired"; what answers no call is dropped, and each call's result is
/// moved right after it.
fn pair(messages: &[Message]) -> (Vec<Message>, Vec<Repair>) {
    let calls = call_count(messages);
    let pairs = Pairs::new(messages);
    let mut repairs: Vec<Repair> = pairs
        .issues()
        .iter()
        .filter_map(|issue| match issue {
            PairIssue::DuplicateResult { message, .. } => Some(Repair::DuplicateDropped {
                message: messages[*message].id,
            }),
            PairIssue::OrphanResult { message, .. } => Some(Repair::OrphanDropped {
                message: messages[*message].id,
            }),
            _ => None,
        })
        .collect();
    let result_of = |id: &str| pairs.result_of(id);

    // Every message but the dropped results, and a synthetic result for
    // each call without one.
    let mut out = Vec::with_capacity(messages.len() + calls);
    for (i, m) in messages.iter().enumerate() {
        if m.role == Role::Tool {
            continue;
        }
        out.push(m.clone());
        if m.role != Role::Assistant {
            continue;
        }
        let mut expected = i + 1;
        // Ids do not repeat here: each call is answered once.
        for call in &m.tool_calls {
            match result_of(call.id.as_str()) {
                Some(r) => {
                    if r != expected {
                        repairs.push(Repair::Moved {
                            message: messages[r].id,
                        });
                    }
                    expected = r + 1;
                    out.push(messages[r].clone());
                }
                None => {
                    let synthetic = interrupted_result(call);
                    repairs.push(Repair::Interrupted {
                        call_id: call.id.clone(),
                        result: synthetic.id,
                    });
                    out.push(synthetic);
                }
            }
        }
    }
    (out, repairs)
}

/// The call ids a history has recorded, and the renamings that keep
/// them unique (REL-1): a step that reuses an id gets a fresh one, its
/// result the same, and the renaming is kept for the caller to report.
#[derive(Debug, Clone, Default)]
pub(crate) struct CallIds {
    seen: HashSet<String>,
    repairs: Vec<Repair>,
}

impl CallIds {
    /// The ids of the calls in `messages`, as recorded.
    pub(crate) fn of(messages: &[Message]) -> Self {
        let seen = messages
            .iter()
            .flat_map(|m| &m.tool_calls)
            .map(|c| c.id.clone())
            .collect();
        CallIds {
            seen,
            repairs: Vec::new(),
        }
    }

    /// Notes the ids of `calls` as recorded.
    pub(crate) fn note(&mut self, calls: &[ToolCall]) {
        self.seen.extend(calls.iter().map(|c| c.id.clone()));
    }

    /// The step with each call whose id was used before (by a recorded
    /// call, or another call of the step) given a fresh one, and its
    /// result the same: results answer the calls of their id in order.
    pub(crate) fn unique(
        &mut self,
        mut assistant: Message,
        mut results: Vec<Message>,
    ) -> (Message, Vec<Message>) {
        let mut step: HashSet<&str> = HashSet::new();
        let fine = assistant
            .tool_calls
            .iter()
            .all(|c| !self.seen.contains(&c.id) && step.insert(c.id.as_str()));
        if fine {
            return (assistant, results);
        }
        let mut taken: HashSet<String> = HashSet::new();
        let mut renamed: Vec<(String, String)> = Vec::new();
        for call in &mut assistant.tool_calls {
            if self.seen.contains(&call.id) || !taken.insert(call.id.clone()) {
                let new = fresh_id(&call.id, &|id| self.seen.contains(id) || taken.contains(id));
                taken.insert(new.clone());
                self.repairs.push(Repair::Renamed {
                    old: call.id.clone(),
                    new: new.clone(),
                });
                renamed.push((call.id.clone(), new.clone()));
                call.id = new;
            } else {
                renamed.push((call.id.clone(), call.id.clone()));
            }
        }
        let mut used = vec![false; renamed.len()];
        for r in &mut results {
            let Some(old) = r.tool_call_id.clone() else {
                continue;
            };
            if let Some(k) = (0..renamed.len()).find(|&k| !used[k] && renamed[k].0 == old) {
                used[k] = true;
                r.tool_call_id = Some(renamed[k].1.clone());
            }
        }
        (assistant, results)
    }

    /// The renamings made since the last call.
    pub(crate) fn take_repairs(&mut self) -> Vec<Repair> {
        std::mem::take(&mut self.repairs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::Pairs;

    fn call(id: &str) -> ToolCall {
        ToolCall::new(id, "bash", json!({}))
    }

    #[test]
    fn repairs_read_as_sentences() {
        let (_, repairs) = repair(&[
            Message::user("go"),
            Message::assistant_with_calls("", vec![call("c9")]),
        ]);
        assert_eq!(
            repairs.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["call c9 had no result: an `interrupted` result was added"]
        );
        let id = MessageId::derived("x");
        assert_eq!(
            Repair::Moved { message: id }.to_string(),
            format!("result {id} moved next to its call")
        );
    }

    #[test]
    fn hist_2_consecutive_calls_get_their_results_moved() {
        let h = vec![
            Message::user("u"),
            Message::assistant_with_calls("", vec![call("a")]),
            Message::assistant_with_calls("", vec![call("b")]),
            Message::tool_text("a", "bash", "A"),
            Message::tool_text("b", "bash", "B"),
        ];
        let (fixed, repairs) = repair(&h);
        let order: Vec<&str> = fixed.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(order, ["u", "", "A", "", "B"]);
        assert_eq!(
            repairs,
            vec![
                Repair::Moved { message: h[3].id },
                Repair::Moved { message: h[4].id }
            ]
        );
        assert_eq!(repair(&fixed), (fixed.clone(), vec![]));
        assert!(!Pairs::new(&h).is_complete(), "misplaced results are not paired");
        assert!(Pairs::new(&fixed).is_complete(), "what repair makes is paired");
    }

    /// REL-1 (issue: a repeated call id left a call without its result).
    #[test]
    fn rel_1_repeated_call_ids_are_renamed_and_paired() {
        let h = vec![
            Message::user("u"),
            Message::assistant_with_calls("", vec![call("a"), call("a")]),
            Message::tool_text("a", "bash", "A1"),
            Message::tool_text("a", "bash", "A2"),
            Message::assistant_with_calls("", vec![call("a")]),
            Message::tool_text("a", "bash", "A3"),
            Message::assistant_with_calls("", vec![call("a")]),
        ];
        let (fixed, repairs) = repair(&h);
        assert!(
            Pairs::new(&fixed).is_complete(),
            "{:?}",
            Pairs::new(&fixed).issues()
        );
        let renamed: Vec<String> = repairs
            .iter()
            .filter(|r| matches!(r, Repair::Renamed { .. }))
            .map(ToString::to_string)
            .collect();
        assert_eq!(renamed.len(), 3, "{repairs:?}");
        assert_eq!(renamed[0], "call id a was used twice: the second call is now a~2");
        let answers: Vec<(&str, &str)> = fixed
            .iter()
            .filter(|m| m.role == Role::Tool)
            .map(|m| (m.tool_call_id.as_deref().unwrap(), m.content.as_str()))
            .collect();
        assert_eq!(&answers[..3], &[("a", "A1"), ("a~2", "A2"), ("a~3", "A3")]);
        assert_eq!(repair(&fixed), (fixed.clone(), vec![]), "idempotent");
    }

    /// REL-1 (found by the `openai_import` fuzz target): the new id of a
    /// repeated call must not be an id a later call already has.
    #[test]
    fn rel_1_a_new_id_is_not_one_a_later_call_has() {
        let h = vec![
            Message::user("u"),
            Message::assistant_with_calls("", vec![call("a")]),
            Message::tool_text("a", "bash", "A1"),
            Message::assistant_with_calls("", vec![call("a")]),
            Message::tool_text("a", "bash", "A2"),
            Message::assistant_with_calls("", vec![call("b")]),
            Message::tool_text("b", "bash", "B"),
            Message::assistant_with_calls("", vec![call("a~2")]),
            Message::tool_text("a~2", "bash", "A~2"),
            Message::tool_text("a~3", "bash", "stray"),
        ];
        let (fixed, repairs) = repair(&h);
        assert!(
            Pairs::new(&fixed).is_complete(),
            "{:?}",
            Pairs::new(&fixed).issues()
        );
        assert!(
            repairs.contains(&Repair::Renamed {
                old: "a".into(),
                new: "a~4".into()
            }),
            "neither a~2 (a later call) nor a~3 (a stray result): {repairs:?}"
        );
        let answers: Vec<&str> = fixed
            .iter()
            .filter(|m| m.role == Role::Tool)
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(answers, ["A1", "A2", "B", "A~2"]);
        assert_eq!(repair(&fixed), (fixed.clone(), vec![]), "idempotent");
    }

    #[test]
    fn hist_2_interrupted_results_are_stable() {
        let h = vec![
            Message::user("u"),
            Message::assistant_with_calls("", vec![call("x"), call("y")]),
            Message::tool_text("y", "bash", "Y"),
        ];
        let (a, ra) = repair(&h);
        let (b, _) = repair(&h);
        assert_eq!(a, b);
        assert!(Pairs::new(&a).is_complete());
        assert_eq!(
            a[2].result.as_ref().unwrap().error.as_ref().unwrap().code,
            "interrupted"
        );
        assert_eq!(a[3].content, "Y");
        assert_eq!(ra.len(), 1);
    }
}

//! Rounds (CORE-4) and tool call / result pairs (HIST-2).

use std::collections::HashMap;
use std::ops::Range;

use crate::message::{Message, Role, ToolCall};

/// Splits a history into rounds (CORE-4).
///
/// A round starts at each `user` message and runs up to, not including, the
/// next one. Messages before the first `user` message (the leading `system`
/// and `summary` messages, or anything else) belong to no round. The ranges
/// are in order, do not overlap and, from the first user message on, cover
/// every message.
///
/// # Example
///
/// ```
/// use strata_ctx_core::{rounds, Message};
///
/// let history = [
///     Message::summary("earlier work"),
///     Message::user("fix the bug"),
///     Message::assistant("done"),
///     Message::user("thanks"),
/// ];
/// assert_eq!(rounds(&history), vec![1..3, 3..4]);
/// ```
pub fn rounds(messages: &[Message]) -> Vec<Range<usize>> {
    let mut starts = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::User)
        .map(|(i, _)| i)
        .peekable();
    let mut out = Vec::new();
    while let Some(start) = starts.next() {
        let end = starts.peek().copied().unwrap_or(messages.len());
        out.push(start..end);
    }
    out
}

/// The results of one step matched to its calls by the pairing rule of
/// [`Pairs`]: each call, in order, takes the first result that names its
/// id; the results that answer no call (orphans, and duplicates after the
/// first) are handed back in their order.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{answer_calls, Message, ToolCall};
///
/// let calls = [ToolCall::new("a", "bash", json!({})), ToolCall::new("b", "bash", json!({}))];
/// let results = vec![
///     Message::tool_text("b", "bash", "second"),
///     Message::tool_text("x", "bash", "stray"),
///     Message::tool_text("b", "bash", "again"),
/// ];
/// let (answers, rest) = answer_calls(&calls, results);
/// assert!(answers[0].is_none());
/// assert_eq!(answers[1].as_ref().map(|m| m.text()).as_deref(), Some("second"));
/// assert_eq!(rest.len(), 2);
/// ```
pub fn answer_calls(calls: &[ToolCall], results: Vec<Message>) -> (Vec<Option<Message>>, Vec<Message>) {
    let mut results: Vec<Option<Message>> = results.into_iter().map(Some).collect();
    let answers = calls
        .iter()
        .map(|call| {
            results
                .iter_mut()
                .find(|r| {
                    r.as_ref()
                        .is_some_and(|r| r.tool_call_id.as_deref() == Some(call.id.as_str()))
                })
                .and_then(Option::take)
        })
        .collect();
    (answers, results.into_iter().flatten().collect())
}

/// Where a tool call stands: the index of its assistant message and its
/// position among that message's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallSite {
    /// Index of the assistant message in the slice.
    pub message: usize,
    /// Position of the call in the message's `tool_calls`.
    pub call: usize,
}

/// A violation of the pairing invariant (HIST-2), as found by [`Pairs`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PairIssue {
    /// A tool call that no later tool message answers.
    UnansweredCall {
        /// Where the call is.
        site: CallSite,
        /// The call's id.
        call_id: String,
    },
    /// A tool message whose call is not found earlier in the history, or
    /// that names no call at all.
    OrphanResult {
        /// Index of the tool message.
        message: usize,
        /// The call id it names, if any.
        call_id: Option<String>,
    },
    /// A second tool message for a call that already has its result.
    DuplicateResult {
        /// Index of the extra tool message.
        message: usize,
        /// The call id both name.
        call_id: String,
    },
    /// A call whose id was already used by an earlier call; it cannot be
    /// told apart from the first and is treated as unanswerable.
    DuplicateCallId {
        /// Where the second call is.
        site: CallSite,
        /// The repeated id.
        call_id: String,
    },
    /// A result that answers its call but does not follow it: providers
    /// take a call's results only in the run of tool messages right after
    /// the assistant message that made it.
    MisplacedResult {
        /// Index of the tool message.
        message: usize,
        /// The call id it answers.
        call_id: String,
    },
}

/// Which tool call answers which result in a history, and what does not pair
/// up (HIST-2).
///
/// A tool message pairs with the earliest earlier call of the same id that
/// has no result yet, and must stand in the run of tool messages right
/// after that call's assistant message, as providers require. Everything
/// else is reported by [`Pairs::issues`], in the order of the messages. This
/// is the one definition of "paired": [`answer_calls`] matches a step's
/// results by it, and the history's repair produces what it calls
/// complete.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{Message, Pairs, ToolCall};
///
/// let call = ToolCall::new("c1", "bash", json!({"command": "ls"}));
/// let history = [
///     Message::user("list files"),
///     Message::assistant_with_calls("", vec![call]),
///     Message::tool_text("c1", "bash", "a.rs"),
///     Message::tool_text("c9", "bash", "stray"),
/// ];
/// let pairs = Pairs::new(&history);
/// assert_eq!(pairs.result_of("c1"), Some(2));
/// assert_eq!(pairs.issues().len(), 1); // the stray result
/// ```
#[derive(Debug, Clone, Default)]
pub struct Pairs {
    calls: HashMap<String, CallSite>,
    results: HashMap<String, usize>,
    issues: Vec<PairIssue>,
}

impl Pairs {
    /// Analyses `messages`. Any walk of borrowed messages (a window's
    /// layers chained, without copying them) is analysed the same way by
    /// collecting it: `shown.collect::<Pairs>()`.
    pub fn new(messages: &[Message]) -> Self {
        messages.iter().collect()
    }

    fn analyse<'m>(messages: impl IntoIterator<Item = &'m Message>) -> Self {
        let mut pairs = Pairs::default();
        let mut duplicate_sites = Vec::new();
        // The last message that is not a tool result: only tool messages
        // may stand between a call and its result.
        let mut last_speaker = None;
        for (index, message) in messages.into_iter().enumerate() {
            if message.role != Role::Tool {
                last_speaker = Some(index);
            }
            match message.role {
                Role::Assistant => {
                    for (position, call) in message.tool_calls.iter().enumerate() {
                        let site = CallSite {
                            message: index,
                            call: position,
                        };
                        if pairs.calls.contains_key(&call.id) {
                            duplicate_sites.push((site, call.id.clone()));
                        } else {
                            pairs.calls.insert(call.id.clone(), site);
                        }
                    }
                }
                Role::Tool => {
                    let issue = match &message.tool_call_id {
                        Some(id) if pairs.results.contains_key(id) => Some(PairIssue::DuplicateResult {
                            message: index,
                            call_id: id.clone(),
                        }),
                        Some(id) if pairs.calls.contains_key(id) => {
                            pairs.results.insert(id.clone(), index);
                            let adjacent = pairs.calls.get(id).map(|site| site.message) == last_speaker;
                            (!adjacent).then(|| PairIssue::MisplacedResult {
                                message: index,
                                call_id: id.clone(),
                            })
                        }
                        other => Some(PairIssue::OrphanResult {
                            message: index,
                            call_id: other.clone(),
                        }),
                    };
                    pairs.issues.extend(issue);
                }
                _ => {}
            }
        }
        for (id, site) in &pairs.calls {
            if !pairs.results.contains_key(id) {
                pairs.issues.push(PairIssue::UnansweredCall {
                    site: *site,
                    call_id: id.clone(),
                });
            }
        }
        pairs.issues.extend(
            duplicate_sites
                .into_iter()
                .map(|(site, call_id)| PairIssue::DuplicateCallId { site, call_id }),
        );
        pairs.issues.sort_by_key(|issue| issue.position());
        pairs
    }

    /// Index of the tool message that answers call `call_id`.
    pub fn result_of(&self, call_id: &str) -> Option<usize> {
        self.results.get(call_id).copied()
    }

    /// Where the call `call_id` is.
    pub fn call_of(&self, call_id: &str) -> Option<CallSite> {
        self.calls.get(call_id).copied()
    }

    /// Returns `true` when every call has its result and every result its
    /// call.
    pub fn is_complete(&self) -> bool {
        self.issues.is_empty()
    }

    /// The violations found, ordered by position in the history.
    pub fn issues(&self) -> &[PairIssue] {
        &self.issues
    }
}

/// [`Pairs::new`] over messages walked in place.
///
/// ```
/// use strata_ctx_core::{Message, Pairs};
///
/// let (history, input) = ([Message::user("hi")], Message::user("and?"));
/// let pairs: Pairs = history.iter().chain([&input]).collect();
/// assert!(pairs.is_complete());
/// ```
impl<'m> FromIterator<&'m Message> for Pairs {
    fn from_iter<I: IntoIterator<Item = &'m Message>>(messages: I) -> Self {
        Pairs::analyse(messages)
    }
}

impl PairIssue {
    /// The index of the message the issue is about.
    pub fn message(&self) -> usize {
        match self {
            PairIssue::UnansweredCall { site, .. } | PairIssue::DuplicateCallId { site, .. } => site.message,
            PairIssue::OrphanResult { message, .. }
            | PairIssue::DuplicateResult { message, .. }
            | PairIssue::MisplacedResult { message, .. } => *message,
        }
    }

    fn position(&self) -> (usize, usize) {
        match self {
            PairIssue::UnansweredCall { site, .. } | PairIssue::DuplicateCallId { site, .. } => {
                (site.message, site.call)
            }
            _ => (self.message(), 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::json;

    fn call(id: &str) -> ToolCall {
        ToolCall::new(id, "bash", json!({}))
    }

    #[test]
    fn core_4_leading_system_and_summary_are_outside() {
        let h = [
            Message::system("s"),
            Message::summary("old"),
            Message::user("a"),
            Message::assistant_with_calls("", vec![call("1")]),
            Message::tool_text("1", "bash", "x"),
            Message::assistant("done"),
            Message::user("b"),
        ];
        assert_eq!(rounds(&h), vec![2..6, 6..7]);
        assert!(rounds(&h[..2]).is_empty());
        assert!(rounds(&[]).is_empty());
    }

    #[test]
    fn hist_2_parallel_calls_pair_up() {
        let h = [
            Message::user("a"),
            Message::assistant_with_calls("", vec![call("1"), call("2")]),
            Message::tool_text("2", "bash", "y"),
            Message::tool_text("1", "bash", "x"),
        ];
        let p = Pairs::new(&h);
        assert!(p.is_complete());
        assert_eq!(p.result_of("1"), Some(3));
        assert_eq!(p.call_of("2"), Some(CallSite { message: 1, call: 1 }));
    }

    /// HIST-2: a result must stand in the run of tool messages right
    /// after its call; parallel results may come in any order.
    #[test]
    fn hist_2_a_result_away_from_its_call_is_misplaced() {
        let h = [
            Message::user("u"),
            Message::assistant_with_calls("", vec![call("a"), call("b")]),
            Message::tool_text("b", "bash", "B"),
            Message::tool_text("a", "bash", "A"),
            Message::assistant_with_calls("", vec![call("c")]),
            Message::user("interrupting"),
            Message::tool_text("c", "bash", "C"),
        ];
        let p = Pairs::new(&h);
        assert_eq!(p.result_of("a"), Some(3));
        assert_eq!(
            p.issues(),
            &[PairIssue::MisplacedResult {
                message: 6,
                call_id: "c".into()
            }]
        );
        assert!(!p.is_complete());
        assert!(Pairs::new(&h[..4]).is_complete(), "any order within the run");
    }

    #[test]
    fn answer_calls_takes_the_first_result_of_each_call() {
        let calls = [call("a"), call("b")];
        let (answers, rest) = answer_calls(
            &calls,
            vec![
                Message::tool_text("b", "bash", "B1"),
                Message::tool_text("a", "bash", "A"),
                Message::tool_text("b", "bash", "B2"),
            ],
        );
        let texts: Vec<Option<String>> = answers
            .iter()
            .map(|m| m.as_ref().map(|m| m.text().into_owned()))
            .collect();
        assert_eq!(texts, [Some("A".to_owned()), Some("B1".to_owned())]);
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].text(), "B2");
        let (none, rest) = answer_calls(&calls, Vec::new());
        assert_eq!((none, rest.len()), (vec![None, None], 0));
    }

    #[test]
    fn hist_2_orphans_both_ways() {
        let h = [
            Message::tool_text("0", "bash", "before its call"),
            Message::user("a"),
            Message::assistant_with_calls("", vec![call("0"), call("1"), call("1")]),
            Message::tool_text("0", "bash", "x"),
            Message::tool_text("0", "bash", "again"),
            Message::tool_text("9", "bash", "stray"),
        ];
        let p = Pairs::new(&h);
        assert_eq!(
            p.issues(),
            &[
                PairIssue::OrphanResult {
                    message: 0,
                    call_id: Some("0".into())
                },
                PairIssue::UnansweredCall {
                    site: CallSite { message: 2, call: 1 },
                    call_id: "1".into()
                },
                PairIssue::DuplicateCallId {
                    site: CallSite { message: 2, call: 2 },
                    call_id: "1".into()
                },
                PairIssue::DuplicateResult {
                    message: 4,
                    call_id: "0".into()
                },
                PairIssue::OrphanResult {
                    message: 5,
                    call_id: Some("9".into())
                },
            ]
        );
        assert_eq!(p.result_of("0"), Some(3));
    }
}

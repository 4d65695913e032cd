//! Deterministic histories for tests.

use serde_json::{json, Value};
use strata_ctx_core::{Message, MessageId, Role, Timestamp, ToolCall, ToolResult};

/// One tool call of a step, with the output its result carries (or none,
/// for an interrupted call).
#[derive(Debug, Clone, PartialEq)]
pub struct CallSpec {
    /// The tool's name.
    pub tool: String,
    /// The call's arguments.
    pub arguments: Value,
    /// The result's text, or `None` when the call is never answered.
    pub output: Option<String>,
}

impl CallSpec {
    /// A call of `tool` answered with `output`.
    pub fn new(tool: impl Into<String>, arguments: Value, output: impl Into<String>) -> Self {
        CallSpec {
            tool: tool.into(),
            arguments,
            output: Some(output.into()),
        }
    }

    /// A call of `tool` that never gets a result.
    pub fn unanswered(tool: impl Into<String>, arguments: Value) -> Self {
        CallSpec {
            tool: tool.into(),
            arguments,
            output: None,
        }
    }
}

/// Builds histories with reproducible ids (`seed` in the high 64 bits, a
/// counter in the low ones), call ids (`call_<n>`) and timestamps (one
/// second apart from 2026-01-01).
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{rounds, Pairs};
/// use strata_ctx_testkit::{CallSpec, HistoryBuilder};
///
/// let history = HistoryBuilder::new()
///     .system("You are a coding agent.")
///     .user("fix the test")
///     .step("look around", [
///         CallSpec::new("Bash", json!({"command": "ls"}), "src\ntests"),
///         CallSpec::new("Read", json!({"path": "src/lib.rs"}), "fn main() {}"),
///     ])
///     .answer("fixed")
///     .build();
/// assert_eq!(history.len(), 6);
/// assert_eq!(rounds(&history), vec![1..6]);
/// assert!(Pairs::new(&history).is_complete());
/// ```
#[derive(Debug, Clone)]
pub struct HistoryBuilder {
    seed: u64,
    next: u64,
    messages: Vec<Message>,
}

impl Default for HistoryBuilder {
    fn default() -> Self {
        HistoryBuilder::new()
    }
}

/// 2026-01-01T00:00:00Z in milliseconds.
const EPOCH_MS: i64 = 1_767_225_600_000;

impl HistoryBuilder {
    /// An empty history with seed 0.
    pub fn new() -> Self {
        HistoryBuilder::with_seed(0)
    }

    /// An empty history whose ids carry `seed`, so that two builders with
    /// different seeds never share an id.
    pub fn with_seed(seed: u64) -> Self {
        HistoryBuilder {
            seed,
            next: 0,
            messages: Vec::new(),
        }
    }

    fn stamp(&mut self, message: Message) -> Message {
        self.next += 1;
        let id = MessageId::from_u128((u128::from(self.seed) << 64) | u128::from(self.next));
        let at = Timestamp::from_unix_millis(EPOCH_MS + 1000 * self.next as i64);
        message.with_id(id).with_created_at(at)
    }

    /// Appends a message as it is, with the next id and time.
    pub fn message(mut self, message: Message) -> Self {
        let m = self.stamp(message);
        self.messages.push(m);
        self
    }

    /// Appends a system message.
    pub fn system(self, text: &str) -> Self {
        self.message(Message::system(text))
    }

    /// Appends a summary message.
    pub fn summary(self, text: &str) -> Self {
        self.message(Message::summary(text))
    }

    /// Appends a user message, starting a round.
    pub fn user(self, text: &str) -> Self {
        self.message(Message::user(text))
    }

    /// Appends an assistant message without tool calls (a final answer).
    pub fn answer(self, text: &str) -> Self {
        self.message(Message::assistant(text))
    }

    /// Appends an assistant step with its calls (several calls are parallel
    /// calls), followed by the results of the answered ones, in call order.
    pub fn step(mut self, thought: &str, calls: impl IntoIterator<Item = CallSpec>) -> Self {
        let specs: Vec<CallSpec> = calls.into_iter().collect();
        let base = self.next;
        let tool_calls: Vec<ToolCall> = specs
            .iter()
            .enumerate()
            .map(|(i, s)| ToolCall::new(format!("call_{}_{}", base + 1, i), &s.tool, s.arguments.clone()))
            .collect();
        let step = self.stamp(Message::assistant_with_calls(thought, tool_calls.clone()));
        self.messages.push(step);
        for (call, spec) in tool_calls.iter().zip(&specs) {
            if let Some(output) = &spec.output {
                let m = self.stamp(Message::tool_text(&call.id, &call.name, output.as_str()));
                self.messages.push(m);
            }
        }
        self
    }

    /// Appends a step with one `bash` call answered by `output`.
    pub fn bash(self, command: &str, output: &str) -> Self {
        self.step("", [CallSpec::new("bash", json!({ "command": command }), output)])
    }

    /// Appends a step with one call answered by a structured result.
    pub fn structured(mut self, tool: &str, arguments: Value, result: ToolResult) -> Self {
        let call = ToolCall::new(format!("call_{}_0", self.next + 1), tool, arguments);
        let step = self.stamp(Message::assistant_with_calls("", vec![call.clone()]));
        self.messages.push(step);
        let m = self.stamp(Message::tool_result(&call, result));
        self.messages.push(m);
        self
    }

    /// Appends a tool result for a call that does not exist.
    pub fn orphan_result(self, call_id: &str, text: &str) -> Self {
        self.message(Message::tool_text(call_id, "bash", text))
    }

    /// Appends a whole round: the user's text, `steps` bash steps whose
    /// outputs are `output_len` bytes each, and a final answer.
    pub fn round(mut self, user: &str, steps: usize, output_len: usize) -> Self {
        self = self.user(user);
        for i in 0..steps {
            let out = text_of_len(output_len, i as u64);
            self = self.bash(&format!("step {i}"), &out);
        }
        self.answer(&format!("done: {user}"))
    }

    /// The messages built so far.
    pub fn build(self) -> Vec<Message> {
        self.messages
    }

    /// The number of messages so far.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Returns `true` when nothing has been added.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

/// Deterministic text of exactly `len` bytes, in lines of up to 80
/// characters, varying with `seed`.
pub fn text_of_len(len: usize, seed: u64) -> String {
    const WORDS: &[&str] = &[
        "alpha",
        "beta",
        "gamma",
        "delta",
        "error",
        "ok",
        "src/lib.rs",
        "42",
        "fn",
        "test",
    ];
    let mut out = String::with_capacity(len + 16);
    let mut i = seed as usize;
    let mut line = 0;
    while out.len() < len {
        let w = WORDS[i % WORDS.len()];
        i = i.wrapping_mul(31).wrapping_add(7);
        if line + w.len() + 1 > 80 {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(w);
        line += w.len();
    }
    out.truncate(len);
    out
}

/// A command output of `lines` lines, like a long build or test log, with a
/// failure line in the middle.
pub fn long_log(lines: usize) -> String {
    let mut out = String::new();
    for i in 0..lines {
        if i == lines / 2 {
            out.push_str("error[E0425]: cannot find value `x` in this scope\n");
        } else {
            out.push_str(&format!("   Compiling crate-{i} v0.1.{i} (/work/crate-{i})\n"));
        }
    }
    out
}

/// Returns `true` when `messages` hold a message of `role`.
pub fn has_role(messages: &[Message], role: Role) -> bool {
    messages.iter().any(|m| m.role == role)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_ctx_core::{PairIssue, Pairs};

    #[test]
    fn ids_and_times_are_reproducible() {
        let a = HistoryBuilder::with_seed(3).round("a", 2, 10).build();
        let b = HistoryBuilder::with_seed(3).round("a", 2, 10).build();
        assert_eq!(a, b);
        assert_eq!(a.len(), 6);
        assert!(a.windows(2).all(|w| w[0].created_at < w[1].created_at));
        assert_ne!(
            a[0].id,
            HistoryBuilder::with_seed(4).round("a", 0, 0).build()[0].id
        );
    }

    #[test]
    fn orphans_are_made_on_purpose() {
        let h = HistoryBuilder::new()
            .user("go")
            .step(
                "",
                [
                    CallSpec::new("bash", json!({}), "ok"),
                    CallSpec::unanswered("bash", json!({})),
                ],
            )
            .orphan_result("ghost", "boo")
            .build();
        let issues = Pairs::new(&h).issues().to_vec();
        assert_eq!(issues.len(), 2);
        assert!(matches!(issues[0], PairIssue::UnansweredCall { .. }));
        assert!(matches!(issues[1], PairIssue::OrphanResult { .. }));
    }

    #[test]
    fn text_helpers() {
        assert_eq!(text_of_len(1000, 1).len(), 1000);
        assert!(text_of_len(1000, 1).lines().all(|l| l.len() <= 80));
        let log = long_log(101);
        assert_eq!(log.lines().count(), 101);
        assert!(log.lines().nth(50).unwrap().starts_with("error"));
    }
}

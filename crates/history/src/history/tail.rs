//! Where the archived work stopped (HIST-3, HIST-14, HIST-18): the last
//! steps of a round that a compaction archives whole because the budget
//! cannot wait, quoted in its summary.
//!
//! When the user writes again after a round too long to keep, the round is
//! archived on its boundary and the window holds the summary and the new
//! input: most of it is free. The round's last steps (each call and its
//! result in history form) and its final answer are what the next round
//! most needs, so the summary quotes them, newest first, within the room
//! the compaction gives them.

use strata_ctx_core::{Message, Role, ToolCall};

use super::{History, Record};
use crate::digest::cut;
use crate::shrink::without_recall_handle;

/// The heading of the quoted steps.
pub(super) const TAIL_HEADING: &str = "### Where the archived work stopped (its last steps, oldest first)";

/// The most characters of the round's final answer quoted.
const ANSWER_CHARS: usize = 600;

/// The most characters of a call's command, path or arguments in a step's
/// heading line.
const CALL_CHARS: usize = 160;

/// The last steps of the archived round, from the full log's messages
/// `log` that the summary covers: from the newest back to the round's
/// user message, as long as they fit in `max_chars` with the heading,
/// each call's name and what it ran or touched over its result's history
/// form (`form`, made again from the original: the window's copy may have
/// been cleared by then). The round's final answer comes last. `None`
/// when nothing fits or there are no steps.
pub(super) fn last_steps(
    log: &[Message],
    form: impl Fn(&Message, &ToolCall) -> Message,
    max_chars: usize,
) -> Option<String> {
    // The heading, then each entry after a newline, or after a blank line
    // once one is in.
    let mut used = TAIL_HEADING.len();
    let mut entries: Vec<String> = Vec::new();
    let mut answered: Vec<&Message> = Vec::new();
    let mut fits = |entry: String, entries: &mut Vec<String>| {
        let cost = entry.len() + if entries.is_empty() { 1 } else { 2 };
        if used + cost > max_chars {
            return false;
        }
        used += cost;
        entries.push(entry);
        true
    };
    for m in log.iter().rev() {
        match m.role {
            Role::User => break,
            // A pinned step stays in the window as it is (#30.7).
            Role::Tool if m.is_pinned() => {}
            Role::Tool => answered.push(m),
            Role::Assistant if m.tool_calls.is_empty() => {
                let text = m.text();
                let answer = cut(text.trim(), ANSWER_CHARS);
                if entries.is_empty() && answered.is_empty() && !answer.is_empty() {
                    fits(format!("Answer: {answer}"), &mut entries);
                }
            }
            Role::Assistant => {
                // The results met since the step before, newest first.
                for result in answered.drain(..) {
                    let Some(call) = m
                        .tool_calls
                        .iter()
                        .find(|c| Some(c.id.as_str()) == result.tool_call_id.as_deref())
                    else {
                        continue;
                    };
                    if !fits(step_entry(call, &form(result, call)), &mut entries) {
                        return finish(entries);
                    }
                }
            }
            _ => {}
        }
    }
    finish(entries)
}

impl History {
    /// Takes the quoted last steps ([`History::compact`] quotes them when
    /// no complete round stays after its summary) out of the newest
    /// summary: once the round that followed has grown past the budget,
    /// they are the stalest part of the window and the first room it
    /// takes back (HIST-14). The summary keeps everything else. Recorded,
    /// so a rebuilt history drops them too; returns whether the window
    /// changed.
    pub fn drop_quoted_steps(&mut self) -> bool {
        let Some(at) = self.window.summaries().checked_sub(1) else {
            return false;
        };
        let Some(text) = without_quote(&self.window.messages()[at].content) else {
            return false;
        };
        self.window.edit(at, &*self.counter, |m| {
            m.content = text.into();
            1
        });
        let summary = self.window.messages()[at].clone();
        self.record(|| Record::Compaction {
            archived: Vec::new(),
            summary: None,
            replaced: vec![summary],
        });
        self.budget.compacted(self.log.len());
        true
    }
}

/// A summary's `text` without its quoted last steps (from the heading to
/// the recall line, or to the end); `None` when it quotes none.
fn without_quote(text: &str) -> Option<String> {
    let start = text.find(&format!("\n\n{TAIL_HEADING}"))?;
    let end = text[start..].find(RECALL_LINE).map_or(text.len(), |i| start + i);
    Some(format!("{}{}", &text[..start], &text[end..]))
}

/// How the line naming the archived messages' range in the full log
/// begins, under the quote.
pub(super) const RECALL_LINE: &str = "\n\n[The archived messages are in the full log: ";

/// The quoted steps, oldest first, under their heading.
fn finish(mut entries: Vec<String>) -> Option<String> {
    if entries.is_empty() {
        return None;
    }
    entries.reverse();
    Some(format!("{TAIL_HEADING}\n{}", entries.join("\n\n")))
}

/// One step: `$ command` (or `name path`, `name arguments`) over its
/// result's text.
fn step_entry(call: &ToolCall, result: &Message) -> String {
    let head = match strata_ctx_tools::command(&call.arguments) {
        Some(command) => format!("$ {}", cut(&first_line(&command), CALL_CHARS)),
        None => match strata_ctx_tools::path(&call.arguments) {
            Some(path) => format!("{} {}", call.name, cut(path, CALL_CHARS)),
            None => format!("{} {}", call.name, cut(&call.arguments.to_string(), CALL_CHARS)),
        },
    };
    let text = result.text();
    let body = without_recall_handle(&text).trim_end();
    format!("{head}\n{body}")
}

/// The first line of `text`, with `…` when more follows.
fn first_line(text: &str) -> std::borrow::Cow<'_, str> {
    let text = text.trim();
    match text.split_once('\n') {
        Some((first, _)) => format!("{} …", first.trim_end()).into(),
        None => text.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(n: usize, calls: &[(&str, serde_json::Value, &str)]) -> Vec<Message> {
        let tool_calls: Vec<ToolCall> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args, _))| ToolCall::new(format!("c{n}{i}"), *name, args.clone()))
            .collect();
        let mut out = vec![Message::assistant_with_calls("thinking", tool_calls.clone())];
        for (call, (_, _, text)) in tool_calls.iter().zip(calls) {
            out.push(Message::tool_text(&call.id, &call.name, *text));
        }
        out
    }

    fn same(m: &Message, _: &ToolCall) -> Message {
        m.clone()
    }

    #[test]
    fn parallel_calls_are_each_quoted_under_their_own_call() {
        let mut log = vec![Message::user("go")];
        log.extend(step(
            0,
            &[
                (
                    "bash",
                    json!({"command": "cargo test\n--more"}),
                    "test result: FAILED",
                ),
                ("Read", json!({"file_path": "src/lib.rs"}), "fn main() {}"),
                ("lookup", json!({"q": "x"}), "found"),
            ],
        ));
        let tail = last_steps(&log, same, 1_000).unwrap();
        assert_eq!(
            tail,
            format!(
                "{TAIL_HEADING}\n$ cargo test …\ntest result: FAILED\n\nRead src/lib.rs\nfn main() {{}}\n\nlookup {{\"q\":\"x\"}}\nfound"
            )
        );
    }

    #[test]
    fn the_walk_stops_at_the_first_step_that_does_not_fit_and_at_the_user() {
        let mut log = vec![Message::user("old task")];
        log.extend(step(0, &[("bash", json!({"command": "make old"}), "old")]));
        log.push(Message::user("go"));
        log.extend(step(
            1,
            &[("bash", json!({"command": "make a"}), &"x".repeat(500))],
        ));
        log.push(Message::assistant("Thinking aloud between steps."));
        log.extend(step(2, &[("bash", json!({"command": "make b"}), "ok b")]));
        log.push(Message::assistant("Done."));
        let tail = last_steps(&log, same, 200).unwrap();
        assert!(tail.ends_with("$ make b\nok b\n\nAnswer: Done."), "{tail}");
        assert!(!tail.contains("make a"));
        let all = last_steps(&log, same, 10_000).unwrap();
        assert!(all.contains("$ make a") && !all.contains("make old"), "{all}");
        assert!(!all.contains("Thinking aloud"), "only the final answer: {all}");
        // The form is the one given, not the window's copy.
        let formed = last_steps(
            &log,
            |m, _| Message::tool_text("x", "bash", format!("form of {}", m.text().len())),
            10_000,
        )
        .unwrap();
        assert!(formed.contains("$ make a\nform of 500"), "{formed}");
    }

    #[test]
    fn a_pinned_step_is_not_quoted_twice() {
        let mut log = vec![Message::user("go")];
        log.extend(step(0, &[("bash", json!({"command": "make a"}), "a")]));
        let mut pinned = step(1, &[("bash", json!({"command": "make b"}), "b")]);
        for m in &mut pinned {
            m.set_pinned(true);
        }
        log.extend(pinned);
        let tail = last_steps(&log, same, 1_000).unwrap();
        assert!(tail.contains("$ make a") && !tail.contains("make b"), "{tail}");
    }

    #[test]
    fn the_quote_fills_its_room_exactly() {
        let mut log = vec![Message::user("go")];
        log.extend(step(0, &[("bash", json!({"command": "make a"}), "aaaa")]));
        log.extend(step(1, &[("bash", json!({"command": "make b"}), "bbbb")]));
        let whole = last_steps(&log, same, 10_000).unwrap();
        assert_eq!(
            last_steps(&log, same, whole.len()).as_deref(),
            Some(whole.as_str())
        );
        let one = last_steps(&log, same, whole.len() - 1).unwrap();
        assert_eq!(one, format!("{TAIL_HEADING}\n$ make b\nbbbb"));
        assert_eq!(last_steps(&log, same, one.len()).as_deref(), Some(one.as_str()));
        assert_eq!(last_steps(&log, same, one.len() - 1), None);
    }

    #[test]
    fn nothing_to_quote_is_none() {
        assert_eq!(last_steps(&[Message::user("go")], same, 1_000), None);
        let mut log = vec![Message::user("go")];
        log.extend(step(0, &[("bash", json!({"command": "ls"}), "a")]));
        assert_eq!(last_steps(&log, same, 10), None, "no room for the heading");
        assert_eq!(
            last_steps(&log, same, TAIL_HEADING.len() + 4),
            None,
            "no room for a step"
        );
    }

    #[test]
    fn a_quote_is_cut_out_up_to_the_recall_line() {
        let text = format!("Summary.\n\n{TAIL_HEADING}\n$ make\nok{RECALL_LINE}recall 1 to 2]");
        assert_eq!(
            without_quote(&text).as_deref(),
            Some(format!("Summary.{RECALL_LINE}recall 1 to 2]").as_str())
        );
        let bare = format!("Summary.\n\n{TAIL_HEADING}\n$ make\nok");
        assert_eq!(without_quote(&bare).as_deref(), Some("Summary."));
        assert_eq!(without_quote("Summary."), None);
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        let call = ToolCall::new("c", "bash", json!({"command": "é".repeat(400)}));
        let entry = step_entry(&call, &Message::tool_text("c", "bash", "ok"));
        assert_eq!(entry, format!("$ {}…\nok", "é".repeat(CALL_CHARS)));
        assert_eq!(first_line("  a\nb "), "a …");
        assert_eq!(first_line("a"), "a");
    }
}

//! The ReAct text format (REACT-1).

use serde_json::Value;

use crate::{Error, Result};

/// One step of a ReAct agent, as the model writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Call a tool.
    Action {
        /// The thought before the action (may be empty).
        thought: String,
        /// The tool's name.
        tool: String,
        /// The arguments (`{}` when the brackets are empty).
        arguments: Value,
    },
    /// Answer the user and end the round.
    Finish {
        /// The thought before the answer (may be empty).
        thought: String,
        /// The final answer.
        answer: String,
    },
}

impl Step {
    /// The step in the ReAct text format:
    /// `Thought: …\nAction: Tool[{json}]` or `Action: Finish[answer]`.
    pub fn render(&self) -> String {
        match self {
            Step::Action {
                thought,
                tool,
                arguments,
            } => format!("Thought: {thought}\nAction: {tool}[{arguments}]"),
            Step::Finish { thought, answer } => format!("Thought: {thought}\nAction: Finish[{answer}]"),
        }
    }
}

fn malformed(reason: impl Into<String>, raw: &str) -> Error {
    Error::MalformedStep {
        reason: reason.into(),
        raw: raw.to_owned(),
    }
}

/// Parses a model's answer in the ReAct format (REACT-1).
///
/// The first `Action:` counts; `Thought:` before it is optional. Leading
/// whitespace, code fences around the whole step or around the JSON
/// arguments, and any text after the action's closing bracket are
/// tolerated. `Finish[…]` (any case) ends the round; its answer may hold
/// brackets of its own.
///
/// # Errors
///
/// [`Error::MalformedStep`], carrying the raw text, when there is no
/// `Action:`, no tool name, no brackets, or arguments that are not JSON.
pub fn parse_step(raw: &str) -> Result<Step> {
    let text = raw.trim_start();
    let Some(action_at) = find_label(text, "Action:") else {
        return Err(malformed("no `Action:` line", raw));
    };
    let thought = thought_of(&text[..action_at]);
    let rest = text[action_at + "Action:".len()..]
        .trim_start()
        .trim_start_matches("**")
        .trim_start();
    let name_len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.' || c == ':' || c == '/'))
        .unwrap_or(rest.len());
    let tool = rest[..name_len].trim_end_matches(':').to_owned();
    if tool.is_empty() {
        return Err(malformed("`Action:` names no tool", raw));
    }
    let after_name = rest[name_len..].trim_start();
    let Some(inner) = after_name.strip_prefix('[') else {
        return Err(malformed(
            format!("`Action: {tool}` has no `[…]` after the tool name"),
            raw,
        ));
    };
    if tool.eq_ignore_ascii_case("finish") {
        let end = matching_bracket(inner).or_else(|| inner.rfind(']'));
        let Some(end) = end else {
            return Err(malformed("`Finish[` is never closed", raw));
        };
        return Ok(Step::Finish {
            thought,
            answer: inner[..end].trim().to_owned(),
        });
    }
    let body = strip_fence_open(inner);
    if body.trim_start().starts_with(']') {
        return Ok(Step::Action {
            thought,
            tool,
            arguments: Value::Object(serde_json::Map::new()),
        });
    }
    let mut stream = serde_json::Deserializer::from_str(body).into_iter::<Value>();
    let arguments = match stream.next() {
        Some(Ok(value)) => value,
        Some(Err(e)) => {
            return Err(malformed(
                format!("the arguments of `{tool}` are not JSON: {e}"),
                raw,
            ))
        }
        None => return Err(malformed(format!("the arguments of `{tool}` are missing"), raw)),
    };
    let tail = body[stream.byte_offset()..].trim_start();
    let tail = tail.strip_prefix("```").unwrap_or(tail).trim_start();
    if !tail.starts_with(']') {
        return Err(malformed(
            format!("`{tool}[` is not closed after its JSON arguments"),
            raw,
        ));
    }
    Ok(Step::Action {
        thought,
        tool,
        arguments,
    })
}

/// A part of a ReAct answer, yielded by [`ReactStream`] as soon as it is
/// complete (MODEL-3).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReactEvent {
    /// The thought is complete: the `Action:` line has begun.
    Thought(String),
    /// A tool call is complete: its brackets closed around JSON
    /// arguments.
    Action {
        /// The tool's name.
        tool: String,
        /// The arguments.
        arguments: Value,
    },
    /// The final answer, complete at the end of the stream.
    FinalAnswer(String),
}

/// A streaming ReAct parser (MODEL-3): feed it the text deltas of a
/// streamed answer; it yields the thought as soon as the `Action:` line
/// begins and the action as soon as its brackets close, and gives the
/// same [`Step`] as [`parse_step`] on the whole text at the end.
///
/// Work per delta is proportional to the delta: lines are scanned once
/// for the `Action:` label, and the action is parsed only when a `]`
/// arrives that may close it.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_prompt::{ReactEvent, ReactStream, Step};
///
/// let mut parser = ReactStream::new();
/// let mut events = Vec::new();
/// for delta in ["Thought: look at", " the file.\nAct", "ion: Read[{\"path\": ", "\"a.rs\"}]"] {
///     events.extend(parser.push(delta));
/// }
/// assert_eq!(events[0], ReactEvent::Thought("look at the file.".into()));
/// assert_eq!(events[1], ReactEvent::Action { tool: "Read".into(), arguments: json!({"path": "a.rs"}) });
/// let (rest, step) = parser.finish().unwrap();
/// assert!(rest.is_empty());
/// assert!(matches!(step, Step::Action { .. }));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReactStream {
    text: String,
    /// Where the line not yet known to hold no label starts.
    line_start: usize,
    /// Where `Action:` starts, once seen.
    action_at: Option<usize>,
    thought_sent: bool,
    action_sent: bool,
}

impl ReactStream {
    /// A parser with nothing read.
    pub fn new() -> Self {
        ReactStream::default()
    }

    /// The text read so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Reads the next delta and returns what it completed.
    pub fn push(&mut self, delta: &str) -> Vec<ReactEvent> {
        let mut events = Vec::new();
        self.text.push_str(delta);
        if self.action_at.is_none() {
            self.scan_lines();
            if let Some(at) = self.action_at {
                events.push(ReactEvent::Thought(thought_of(self.text[..at].trim_start())));
                self.thought_sent = true;
            }
        }
        if self.action_at.is_some() && !self.action_sent && delta.contains(']') {
            if let Ok(Step::Action { tool, arguments, .. }) = parse_step(&self.text) {
                events.push(ReactEvent::Action { tool, arguments });
                self.action_sent = true;
            }
        }
        events
    }

    /// Looks for `Action:` at the start of each line not yet ruled out.
    fn scan_lines(&mut self) {
        loop {
            let rest = &self.text[self.line_start..];
            let line_end = rest.find('\n');
            let line = &rest[..line_end.unwrap_or(rest.len())];
            if find_label(line, "Action:").is_some() {
                let lead = line.len() - line.trim_start().trim_start_matches("**").len();
                self.action_at = Some(self.line_start + lead);
                return;
            }
            match line_end {
                // The line is complete and holds no label.
                Some(end) => self.line_start += end + 1,
                None => return,
            }
        }
    }

    /// Ends the stream: what was not yielded yet, and the step as
    /// [`parse_step`] reads the whole text.
    ///
    /// # Errors
    ///
    /// [`Error::MalformedStep`] as [`parse_step`] gives it.
    pub fn finish(self) -> Result<(Vec<ReactEvent>, Step)> {
        let step = parse_step(&self.text)?;
        let mut events = Vec::new();
        match &step {
            Step::Action {
                thought,
                tool,
                arguments,
            } => {
                if !self.thought_sent {
                    events.push(ReactEvent::Thought(thought.clone()));
                }
                if !self.action_sent {
                    events.push(ReactEvent::Action {
                        tool: tool.clone(),
                        arguments: arguments.clone(),
                    });
                }
            }
            Step::Finish { thought, answer } => {
                if !self.thought_sent {
                    events.push(ReactEvent::Thought(thought.clone()));
                }
                events.push(ReactEvent::FinalAnswer(answer.clone()));
            }
        }
        Ok((events, step))
    }
}

/// The thought of the text before `Action:`, as [`parse_step`] reads it.
fn thought_of(before: &str) -> String {
    match find_label(before, "Thought:") {
        Some(at) => before[at + "Thought:".len()..]
            .trim()
            .trim_start_matches("**")
            .trim(),
        None => before.trim().trim_start_matches("```").trim(),
    }
    .trim_end_matches("**")
    .trim()
    .to_owned()
}

/// The byte offset of `label` at the start of a line (after optional
/// whitespace or a `**` bold marker), case-insensitively.
fn find_label(text: &str, label: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start().trim_start_matches("**");
        let lead = line.len() - trimmed.len();
        if trimmed
            .get(..label.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(label))
        {
            return Some(offset + lead);
        }
        offset += line.len();
    }
    None
}

/// The index in `inner` (text after an opening `[`) of its matching `]`.
fn matching_bracket(inner: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in inner.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth == 0 => return Some(i),
            ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `text` without a leading code fence (```` ``` ```` or ```` ```json ````).
fn strip_fence_open(text: &str) -> &str {
    let t = text.trim_start();
    match t.strip_prefix("```") {
        Some(rest) => rest.trim_start_matches(|c: char| c.is_ascii_alphabetic()),
        None => text,
    }
}

#[cfg(test)]
mod stream_tests {
    use super::*;
    use proptest::prelude::*;

    const ANSWERS: [&str; 4] = [
        "Thought: look\nAction: Read[{\"path\": \"a]b.rs\"}]",
        "**Thought:** done.\n**Action:** Finish[It [works] now.]",
        "I will list.\n  Action: Bash[{\"command\": \"ls\"}] trailing",
        "Action: Grep[]",
    ];

    proptest! {
        /// MODEL-3: any split of an answer gives the step of the batch
        /// parser, each part yielded once, the thought before the action.
        #[test]
        fn model_3_streaming_matches_batch(pick in 0..ANSWERS.len(), cuts in prop::collection::vec(0usize..64, 0..8)) {
            let text = ANSWERS[pick];
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(text.len())).filter(|c| text.is_char_boundary(*c)).collect();
            cuts.sort_unstable();
            let mut parser = ReactStream::new();
            let mut events = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([text.len()]) {
                events.extend(parser.push(&text[from..cut]));
                from = cut;
            }
            let (rest, step) = parser.finish().unwrap();
            events.extend(rest);
            prop_assert_eq!(&step, &parse_step(text).unwrap());
            let thoughts = events.iter().filter(|e| matches!(e, ReactEvent::Thought(_))).count();
            prop_assert_eq!(thoughts, 1);
            prop_assert!(matches!(events[0], ReactEvent::Thought(_)));
            match step {
                Step::Action { tool, arguments, .. } => {
                    prop_assert_eq!(events.last(), Some(&ReactEvent::Action { tool, arguments }));
                }
                Step::Finish { answer, .. } => {
                    prop_assert_eq!(events.last(), Some(&ReactEvent::FinalAnswer(answer)));
                }
            }
        }
    }

    #[test]
    fn model_3_action_yielded_before_the_end() {
        let mut p = ReactStream::new();
        assert!(p.push("Thought: a\n").is_empty());
        assert_eq!(p.push("Action: Bash["), vec![ReactEvent::Thought("a".into())]);
        assert!(p.push("{\"command\": \"echo ]\"").is_empty());
        assert!(matches!(p.push("}]")[..], [ReactEvent::Action { .. }]));
        assert!(ReactStream::new().finish().is_err());
    }
}

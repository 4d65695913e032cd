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
    let before = &text[..action_at];
    let thought = match find_label(before, "Thought:") {
        Some(at) => before[at + "Thought:".len()..]
            .trim()
            .trim_start_matches("**")
            .trim(),
        None => before.trim().trim_start_matches("```").trim(),
    }
    .trim_end_matches("**")
    .trim()
    .to_owned();
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

//! The history form of tool results: envelope rules and the rule registry
//! (TOOL-1, TOOL-10, TOOL-11).

use std::collections::HashMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use serde_json::{Map, Value};
use strata_ctx_core::{CompressRule, Message, ResultStatus, Role, RuleInput, ToolResult};

use crate::kind::canonical_call;
use crate::rules::{generic, text_rule, Builtin, RuleLimits};

/// The marker fields of `data` that the history form always keeps (TOOL-1).
pub const MARKERS: &[&str] = &["truncated", "applied", "fallback", "full_output_path"];

/// Fields whose text a one-field object is read as (`{"output": "..."}`).
const TEXT_FIELDS: &[&str] = &["output", "text", "content", "stdout", "result", "data"];

/// Why a rule's output was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleFailure {
    /// The tool whose rule failed.
    pub tool: String,
    /// The rule's error, or the panic's message.
    pub reason: String,
}

impl fmt::Display for RuleFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the rule for `{}` failed ({}); the generic rule was used",
            self.tool, self.reason
        )
    }
}

/// A result in history form.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Compressed {
    /// The history form.
    pub result: ToolResult,
    /// Set when the tool's rule failed and the generic rule stood in.
    pub fallback: Option<RuleFailure>,
}

/// Turns tool results into their history form (TOOL-1 … TOOL-11).
///
/// The envelope keeps `status`, the full `error`, the markers
/// `truncated`, `applied`, `fallback` and `full_output_path`, and `data`
/// compressed by the tool's rule; it drops `text`, `stats` and `context`.
/// Built-in rules cover LS, Glob, Grep, Read, Edit, MultiEdit, Write, Bash
/// and TodoWrite under their usual names and aliases; other tools get the
/// generic rule unless a rule is registered for them.
///
/// A compressed result is never larger than its input and compressing it
/// again changes nothing (TOOL-11). A rule that errors or panics is replaced
/// by the generic rule and the failure is reported in
/// [`Compressed::fallback`].
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use strata_ctx_compress::Compressor;
/// use strata_ctx_core::ToolResult;
///
/// let compressor = Compressor::new();
/// let matches: Vec<_> = (1..=40).map(|i| json!({"file": "src/a.rs", "line": i, "text": "fn x()"})).collect();
/// let result = ToolResult::success(json!({"pattern": "fn x", "matches": matches}));
/// let history = compressor.compress("Grep", &json!({}), &result).result;
/// assert_eq!(history.data["summary"], "40 matches in 1 files");
/// assert_eq!(history.data["matches"][0], "src/a.rs:1: fn x()");
/// ```
#[derive(Clone)]
pub struct Compressor {
    limits: RuleLimits,
    custom: HashMap<String, Arc<dyn CompressRule>>,
}

impl fmt::Debug for Compressor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&String> = self.custom.keys().collect();
        names.sort();
        f.debug_struct("Compressor")
            .field("limits", &self.limits)
            .field("custom", &names)
            .finish()
    }
}

impl Default for Compressor {
    fn default() -> Self {
        Compressor::new()
    }
}

impl Compressor {
    /// A compressor with the built-in rules and default limits.
    pub fn new() -> Self {
        Compressor::with_limits(RuleLimits::default())
    }

    /// A compressor with the built-in rules and these limits.
    pub fn with_limits(limits: RuleLimits) -> Self {
        Compressor {
            limits,
            custom: HashMap::new(),
        }
    }

    /// The limits of the built-in rules.
    pub fn limits(&self) -> &RuleLimits {
        &self.limits
    }

    /// Registers `rule` for `tool`, by its name as
    /// [`strata_ctx_tools::normalize`] spells it, in place of the built-in
    /// or generic rule.
    pub fn register(&mut self, tool: &str, rule: impl CompressRule + 'static) -> &mut Self {
        self.custom
            .insert(strata_ctx_tools::normalize(tool), Arc::new(rule));
        self
    }

    /// The history form of `result`, the output of a call of `tool` with
    /// `arguments`.
    pub fn compress(&self, tool: &str, arguments: &Value, result: &ToolResult) -> Compressed {
        let (data, fallback) = self.compress_data(tool, arguments, result.status, &result.data);
        Compressed {
            result: ToolResult {
                status: result.status,
                data,
                text: None,
                error: result.error.clone(),
                stats: Value::Null,
                context: Value::Null,
                full_output_path: result.full_output_path.clone(),
            },
            fallback,
        }
    }

    /// The history form of a plain-text observation, as most agents record
    /// tool output.
    pub fn compress_text(&self, tool: &str, arguments: &Value, text: &str) -> (String, Option<RuleFailure>) {
        if !self.custom.contains_key(&strata_ctx_tools::normalize(tool)) {
            // Built-in rules work on the text itself: no copy into a Value.
            let out = text_rule(canonical_call(tool, arguments), text, &self.limits);
            return if out.len() < text.len() || out == text {
                (out, None)
            } else {
                (text.to_owned(), None)
            };
        }
        let data = Value::String(text.to_owned());
        let (out, fallback) = self.compress_data(tool, arguments, ResultStatus::Success, &data);
        match out {
            Value::String(s) => (s, fallback),
            other => (other.to_string(), fallback),
        }
    }

    /// The history form of a `tool` message: its `result` when it has one,
    /// otherwise its text. `arguments` are those of the call it answers.
    /// Other messages are returned unchanged.
    pub fn compress_message(&self, message: &Message, arguments: &Value) -> (Message, Option<RuleFailure>) {
        if message.role != Role::Tool {
            return (message.clone(), None);
        }
        let tool = message.tool_name.as_deref().unwrap_or_default();
        let mut out = message.clone();
        let fallback = match &message.result {
            Some(result) => {
                let c = self.compress(tool, arguments, result);
                out.result = Some(Box::new(c.result));
                c.fallback
            }
            None => {
                let (text, fallback) = self.compress_text(tool, arguments, &message.content);
                out.content = text.into();
                fallback
            }
        };
        (out, fallback)
    }

    fn compress_data(
        &self,
        tool: &str,
        arguments: &Value,
        status: ResultStatus,
        data: &Value,
    ) -> (Value, Option<RuleFailure>) {
        // Markers are set aside and put back; an object that is only a text
        // field (`{"output": "..."}`) is compressed as that text.
        let Value::Object(object) = data else {
            let (out, fallback) = self.run_rule(tool, arguments, status, data);
            return (if smaller(&out, data) { out } else { data.clone() }, fallback);
        };
        let markers: Map<String, Value> = MARKERS
            .iter()
            .filter_map(|k| object.get(*k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        let mut fields = object.iter().filter(|(k, _)| !MARKERS.contains(&k.as_str()));
        let text_field = match (fields.next(), fields.next()) {
            (Some((k, v @ Value::String(_))), None) if TEXT_FIELDS.contains(&k.as_str()) => Some((k, v)),
            _ => None,
        };
        let (mut out, fallback) = match text_field {
            Some((key, text)) => {
                let (out, fallback) = self.run_rule(tool, arguments, status, text);
                let mut o = Map::new();
                o.insert(key.clone(), if smaller(&out, text) { out } else { text.clone() });
                (Value::Object(o), fallback)
            }
            None if markers.is_empty() => {
                let (out, fallback) = self.run_rule(tool, arguments, status, data);
                (if smaller(&out, data) { out } else { data.clone() }, fallback)
            }
            None => {
                let body: Map<String, Value> = object
                    .iter()
                    .filter(|(k, _)| !MARKERS.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let body = Value::Object(body);
                let (out, fallback) = self.run_rule(tool, arguments, status, &body);
                (if smaller(&out, &body) { out } else { body }, fallback)
            }
        };
        if !markers.is_empty() {
            out = match out {
                Value::Object(mut o) => {
                    o.extend(markers);
                    Value::Object(o)
                }
                other => {
                    let mut o = Map::new();
                    o.insert("output".into(), other);
                    o.extend(markers);
                    Value::Object(o)
                }
            };
            if out != *data && !smaller(&out, data) {
                out = data.clone();
            }
        }
        (out, fallback)
    }

    fn run_rule(
        &self,
        tool: &str,
        arguments: &Value,
        status: ResultStatus,
        data: &Value,
    ) -> (Value, Option<RuleFailure>) {
        let input = RuleInput::new(tool, arguments, status, data);
        let custom = self.custom.get(&strata_ctx_tools::normalize(tool));
        let outcome = match (custom, canonical_call(tool, arguments)) {
            (Some(rule), _) => catch_unwind(AssertUnwindSafe(|| rule.compress(input))),
            (None, Some(kind)) => {
                let rule = Builtin {
                    kind,
                    limits: self.limits,
                };
                catch_unwind(AssertUnwindSafe(|| rule.compress(input)))
            }
            (None, None) => return (generic(data, &self.limits), None),
        };
        let reason = match outcome {
            Ok(Ok(value)) => return (value, None),
            Ok(Err(e)) => e.to_string(),
            Err(panic) => panic_message(&*panic),
        };
        (
            generic(data, &self.limits),
            Some(RuleFailure {
                tool: tool.to_owned(),
                reason,
            }),
        )
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        format!("panicked: {s}")
    } else if let Some(s) = panic.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".to_owned()
    }
}

/// Returns `true` when `a`'s compact JSON is shorter than `b`'s, the
/// measure of "never larger" (TOOL-11). Strings far apart in length are
/// compared without serialising them.
pub(crate) fn smaller(a: &Value, b: &Value) -> bool {
    if let (Value::String(x), Value::String(y)) = (a, b) {
        // An escaped string is at most six times its length.
        if x.len() * 6 < y.len() {
            return true;
        }
        return escaped_len(x) < escaped_len(y);
    }
    json_len(a) < json_len(b)
}

/// The size of a value's compact JSON, computed without serialising it.
pub(crate) fn json_len(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(b) => 4 + usize::from(!b),
        Value::Number(n) => n.to_string().len(),
        Value::String(s) => escaped_len(s),
        Value::Array(items) => 2 + items.len().saturating_sub(1) + items.iter().map(json_len).sum::<usize>(),
        Value::Object(o) => {
            2 + o.len().saturating_sub(1)
                + o.iter()
                    .map(|(k, v)| escaped_len(k) + 1 + json_len(v))
                    .sum::<usize>()
        }
    }
}

/// The length of `s` as a JSON string, quotes included.
fn escaped_len(s: &str) -> usize {
    2 + s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_len_matches_serde() {
        for v in [
            json!(null),
            json!(true),
            json!(false),
            json!(-12.5),
            json!("a\"b\\c\n\u{1}é"),
            json!([]),
            json!({}),
            json!({"k\n": [1, "x", {"y": null}], "b": false}),
        ] {
            assert_eq!(json_len(&v), v.to_string().len(), "{v}");
        }
    }
}

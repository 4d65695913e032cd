//! Writing a window as OpenAI messages straight to bytes (CTX-4).

use std::io::{self, Write};

use serde_json::Value;
use strata_ctx_core::{write_escaped, Escapes};

use crate::render::{OpenAiMessages, OpenAiParts};

impl OpenAiMessages<'_> {
    /// Writes the messages as a JSON array to `w`: the bytes
    /// `serde_json::to_writer(w, self)` writes, in less time.
    ///
    /// The OpenAI form carries a call's arguments as a string of JSON.
    /// Written through `Serialize`, they are written as JSON into a
    /// buffer and then written again, escaped, as a string; here they are
    /// written once, escaped as they go.
    ///
    /// # Errors
    ///
    /// Whatever writing to `w` returns.
    ///
    /// ```
    /// use serde_json::json;
    /// use strata_ctx_core::{Message, ToolCall};
    /// use strata_ctx_prompt::OpenAiMessages;
    ///
    /// let call = ToolCall::new("c1", "Read", json!({"path": "a \"b\".rs"}));
    /// let messages = [Message::user("Hi!"), Message::assistant_with_calls("", vec![call])];
    /// let mut out = Vec::new();
    /// OpenAiMessages(&messages).write_json(&mut out)?;
    /// assert_eq!(out, serde_json::to_vec(&OpenAiMessages(&messages))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_json<W: Write>(&self, mut w: W) -> io::Result<()> {
        w.write_all(b"[")?;
        for (i, m) in self.0.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            let parts = OpenAiParts::of(m);
            w.write_all(b"{\"content\":")?;
            match &parts.content {
                Some(text) => string(&mut w, text)?,
                None => w.write_all(b"null")?,
            }
            w.write_all(b",\"role\":")?;
            string(&mut w, parts.role)?;
            if let Some(calls) = parts.tool_calls {
                w.write_all(b",\"tool_calls\":[")?;
                for (k, call) in calls.iter().enumerate() {
                    if k > 0 {
                        w.write_all(b",")?;
                    }
                    w.write_all(b"{\"function\":{\"arguments\":")?;
                    arguments(&mut w, &call.arguments)?;
                    w.write_all(b",\"name\":")?;
                    string(&mut w, &call.name)?;
                    w.write_all(b"},\"id\":")?;
                    string(&mut w, &call.id)?;
                    w.write_all(b",\"type\":\"function\"}")?;
                }
                w.write_all(b"]")?;
            }
            if let Some(id) = parts.tool_call_id {
                w.write_all(b",\"tool_call_id\":")?;
                string(&mut w, id)?;
            }
            w.write_all(b"}")?;
        }
        w.write_all(b"]")
    }
}

/// `s` as a JSON string.
fn string<W: Write>(w: &mut W, s: &str) -> io::Result<()> {
    w.write_all(b"\"")?;
    write_escaped(w, s, Escapes::Once)?;
    w.write_all(b"\"")
}

/// A call's arguments as a JSON string of their JSON: a string argument
/// (text that was not JSON, or was cut) as it is, anything else written
/// with every string of it escaped twice.
fn arguments<W: Write>(w: &mut W, arguments: &Value) -> io::Result<()> {
    if let Value::String(s) = arguments {
        return string(w, s);
    }
    w.write_all(b"\"")?;
    nested(w, arguments)?;
    w.write_all(b"\"")
}

/// Writes `value` as JSON inside a JSON string: the compact form
/// `serde_json` writes, with the quotes of its strings and the backslashes
/// of their escapes escaped once more. Everything else JSON writes
/// (brackets, numbers, literals) needs no escape in a string.
fn nested<W: Write>(w: &mut W, value: &Value) -> io::Result<()> {
    match value {
        Value::Null => w.write_all(b"null"),
        Value::Bool(true) => w.write_all(b"true"),
        Value::Bool(false) => w.write_all(b"false"),
        Value::Number(n) => serde_json::to_writer(&mut *w, n).map_err(io::Error::from),
        Value::String(s) => nested_string(w, s),
        Value::Array(items) => {
            w.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                nested(w, item)?;
            }
            w.write_all(b"]")
        }
        Value::Object(map) => {
            w.write_all(b"{")?;
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                nested_string(w, key)?;
                w.write_all(b":")?;
                nested(w, item)?;
            }
            w.write_all(b"}")
        }
    }
}

fn nested_string<W: Write>(w: &mut W, s: &str) -> io::Result<()> {
    w.write_all(b"\\\"")?;
    write_escaped(w, s, Escapes::Twice)?;
    w.write_all(b"\\\"")
}

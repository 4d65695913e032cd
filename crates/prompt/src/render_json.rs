//! Writing a window as OpenAI messages straight to bytes (CTX-4).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};
use serde_json::Value;

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
    serde_json::to_writer(w, s).map_err(io::Error::from)
}

/// A call's arguments as a JSON string of their JSON: a string argument
/// (text that was not JSON, or was cut) as it is, anything else written
/// with every string of it escaped twice.
fn arguments<W: Write>(w: &mut W, arguments: &Value) -> io::Result<()> {
    if let Value::String(s) = arguments {
        return string(w, s);
    }
    w.write_all(b"\"")?;
    arguments
        .serialize(&mut serde_json::Serializer::with_formatter(&mut *w, Nested))
        .map_err(io::Error::from)?;
    w.write_all(b"\"")
}

/// Writes JSON as the contents of a JSON string: the quotes of its strings
/// and the backslashes of their escapes escaped once more. Everything else
/// JSON writes (brackets, numbers, literals, the text of strings between
/// escapes) needs no escape in a string.
struct Nested;

impl Formatter for Nested {
    fn begin_string<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\\\"")
    }

    fn end_string<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\\\"")
    }

    fn write_char_escape<W: ?Sized + Write>(&mut self, w: &mut W, escape: CharEscape) -> io::Result<()> {
        // The inner escape is a backslash and a letter (or `uXXXX`); the
        // backslash is written escaped, and so is the letter when it is a
        // quote or a backslash.
        let rest: &[u8] = match escape {
            CharEscape::Quote => b"\\\\\\\"",
            CharEscape::ReverseSolidus => b"\\\\\\\\",
            CharEscape::Solidus => b"\\\\/",
            CharEscape::Backspace => b"\\\\b",
            CharEscape::FormFeed => b"\\\\f",
            CharEscape::LineFeed => b"\\\\n",
            CharEscape::CarriageReturn => b"\\\\r",
            CharEscape::Tab => b"\\\\t",
            CharEscape::AsciiControl(byte) => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let code = [
                    b'\\',
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(byte >> 4)],
                    HEX[usize::from(byte & 0xf)],
                ];
                return w.write_all(&code);
            }
        };
        w.write_all(rest)
    }
}

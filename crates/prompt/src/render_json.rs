//! Writing a window as OpenAI messages straight to bytes (CTX-4).

use std::io::{self, Write};

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
    w.write_all(b"\"")?;
    contents(w, s, Depth::Outer)?;
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
    contents(w, s, Depth::Nested)?;
    w.write_all(b"\\\"")
}

/// Whether a string is written as a JSON string, or inside one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Depth {
    Outer,
    Nested,
}

/// Whether JSON escapes `byte` in a string: a quote, a backslash or a
/// control character.
fn escaped(byte: u8) -> bool {
    (byte < 0x20) | (byte == b'"') | (byte == b'\\')
}

/// Where the first byte of a block that JSON escapes is, if any: sixteen
/// bytes tested at once in two words (the zero-byte test of Mycroft, as
/// `serde_json` does it eight bytes at a time). A test may also flag bytes
/// after a flagged one, never before: the lowest flag is exact.
fn first_escape(block: &[u8; 16]) -> Option<usize> {
    const ONES: u128 = u128::MAX / 255;
    let x = u128::from_le_bytes(*block);
    let control = x.wrapping_sub(ONES * 0x20) & !x;
    let quote = x ^ (ONES * u128::from(b'"'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = x ^ (ONES * u128::from(b'\\'));
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    match (control | quote | backslash) & (ONES << 7) {
        0 => None,
        flags => Some(flags.trailing_zeros() as usize / 8),
    }
}

/// Writes `s` escaped as JSON does (the bytes `serde_json` writes between
/// the quotes), or escaped twice for [`Depth::Nested`]. Text without
/// escapes is skipped sixteen bytes at a time and written in runs.
fn contents<W: Write>(w: &mut W, s: &str, depth: Depth) -> io::Result<()> {
    let bytes = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes.get(i..i + 16).and_then(|b| <&[u8; 16]>::try_from(b).ok()) {
            Some(block) => match first_escape(block) {
                None => {
                    i += 16;
                    continue;
                }
                Some(at) => i += at,
            },
            None if !escaped(bytes[i]) => {
                i += 1;
                continue;
            }
            None => {}
        }
        w.write_all(&bytes[run..i])?;
        escape(w, bytes[i], depth)?;
        i += 1;
        run = i;
    }
    w.write_all(&bytes[run..])
}

/// Writes the escape of `byte` (one that [`escaped`] names): JSON's short
/// form where it has one, `\u00XX` otherwise; nested, its backslash, and
/// the quote or backslash it escapes, are escaped again.
fn escape<W: Write>(w: &mut W, byte: u8, depth: Depth) -> io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        0x08 => Some(b'b'),
        0x0c => Some(b'f'),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        _ => None,
    };
    let mut out = [0u8; 8];
    let mut len = 0;
    let mut put = |b: u8| {
        out[len] = b;
        len += 1;
    };
    if depth == Depth::Nested {
        put(b'\\');
    }
    put(b'\\');
    match short {
        Some(letter) => {
            if depth == Depth::Nested && matches!(letter, b'"' | b'\\') {
                put(b'\\');
            }
            put(letter);
        }
        None => {
            for b in [
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ] {
                put(b);
            }
        }
    }
    w.write_all(&out[..len])
}

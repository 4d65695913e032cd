//! Reading JSON whose text is itself the contents of a JSON string, as a
//! call's `arguments` are in the OpenAI form, in one pass: each string
//! inside is decoded once, from both levels of escapes at the same time,
//! instead of the outer string being decoded first and its text then
//! parsed and decoded again.
//!
//! Written escapes are nested: a quote of the inner text is `\"` in the
//! outer one, an inner escape `\n` is `\\n`, an inner `\"` is `\\\"`.
//! What this reader does not expect (an inner quote or backslash written
//! as a `\u` escape of the outer string, a letter of `true` or a digit
//! written as one) makes it refuse: the caller then
//! decodes the outer string and parses its text, which decides. It never
//! reads a text otherwise than that would.

use serde_json::{Map, Value};

use crate::json_read::{copy_run, deeper, hex4, literal_at, number_at, unicode_at, UNESCAPED};

/// The value whose JSON text is the contents of the string that starts
/// at `at` in `bytes` (just after its opening quote), and where that
/// string ends (after its closing quote); `None` for anything this reader
/// refuses, including a text that is not JSON. Strings are decoded in
/// `scratch`, whose room is kept from one call to the next.
pub(crate) fn nested_value(bytes: &[u8], at: usize, scratch: &mut Vec<u8>) -> Option<(Value, usize)> {
    let mut r = Nested { bytes, at, scratch };
    let value = r.value(0)?;
    r.skip_space();
    // The outer string's closing quote.
    (*r.bytes.get(r.at)? == b'"').then_some((value, r.at + 1))
}

struct Nested<'a, 's> {
    /// The outer text.
    bytes: &'a [u8],
    /// Where the reader is in it.
    at: usize,
    /// Decoded strings of the inner text.
    scratch: &'s mut Vec<u8>,
}

impl Nested<'_, '_> {
    /// The next byte of the inner text and how many outer bytes write
    /// it, if it is ASCII; `None` at the outer string's end and for
    /// anything unexpected.
    fn peek(&self) -> Option<(u8, usize)> {
        match *self.bytes.get(self.at)? {
            b'"' => None,
            b'\\' => {
                let byte = match *self.bytes.get(self.at + 1)? {
                    b'u' => {
                        let code = hex4(self.bytes, self.at + 2)?;
                        return u8::try_from(code).ok().filter(u8::is_ascii).map(|b| (b, 6));
                    }
                    letter => UNESCAPED[usize::from(letter)],
                };
                (byte != 0).then_some((byte, 2))
            }
            byte if byte < 0x20 => None,
            byte => Some((byte, 1)),
        }
    }

    /// Consumes the inner byte `byte` when it is next.
    fn eat(&mut self, byte: u8) -> Option<()> {
        let (next, len) = self.peek()?;
        (next == byte).then(|| self.at += len)
    }

    /// Skips the inner text's whitespace.
    fn skip_space(&mut self) {
        while let Some((b' ' | b'\n' | b'\t' | b'\r', len)) = self.peek() {
            self.at += len;
        }
    }

    /// After a member: `Some(true)` for a `,`, `Some(false)` for `close`.
    fn more(&mut self, close: u8) -> Option<bool> {
        self.skip_space();
        match self.peek()? {
            (b',', len) => {
                self.at += len;
                Some(true)
            }
            (b, len) if b == close => {
                self.at += len;
                Some(false)
            }
            _ => None,
        }
    }

    /// The members of an array or an object, after its opening bracket,
    /// up to its `close`, each read by `member`.
    fn members(&mut self, close: u8, mut member: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.skip_space();
        if self.eat(close).is_some() {
            return Some(());
        }
        loop {
            member(self)?;
            if !self.more(close)? {
                return Some(());
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        self.skip_space();
        let (byte, len) = self.peek()?;
        Some(match byte {
            b'"' => {
                self.at += len;
                Value::String(self.string()?.to_owned())
            }
            b'[' => {
                self.at += len;
                let depth = deeper(depth)?;
                let mut items = Vec::new();
                self.members(b']', |r| {
                    items.push(r.value(depth)?);
                    Some(())
                })?;
                Value::Array(items)
            }
            b'{' => {
                self.at += len;
                let depth = deeper(depth)?;
                let mut map = Map::new();
                self.members(b'}', |r| {
                    r.skip_space();
                    r.eat(b'"')?;
                    let key = r.string()?.to_owned();
                    r.skip_space();
                    r.eat(b':')?;
                    let item = r.value(depth)?;
                    // The last of a repeated key wins, as in `serde_json`.
                    map.insert(key, item);
                    Some(())
                })?;
                Value::Object(map)
            }
            b'-' | b'0'..=b'9' => {
                // Written plainly, as numbers are.
                let (number, len) = number_at(self.bytes, self.at)?;
                self.at += len;
                Value::Number(number)
            }
            _ => {
                let (value, len) = literal_at(self.bytes, self.at)?;
                self.at += len;
                value
            }
        })
    }

    /// The rest of an inner string, after its opening quote, decoded into
    /// the scratch room.
    fn string(&mut self) -> Option<&str> {
        let bytes = self.bytes;
        let mut at = self.at;
        self.scratch.clear();
        loop {
            // The run up to the next quote, backslash or control character.
            at = copy_run(bytes, at, self.scratch);
            // A raw quote ends the outer string inside the inner one, and
            // a raw control character is no JSON: only a backslash goes on.
            if *bytes.get(at)? != b'\\' {
                return None;
            }
            at = match *bytes.get(at + 1)? {
                // `\"`: the inner string's closing quote.
                b'"' => {
                    self.at = at + 2;
                    return simdutf8::basic::from_utf8(self.scratch).ok();
                }
                // `\\`: an inner escape, whose letter follows.
                b'\\' => self.inner_escape(at + 2)?,
                b'/' => {
                    self.scratch.push(b'/');
                    at + 2
                }
                // A character written as an outer `\u` escape (two for a
                // surrogate pair): any but a quote, a backslash or a
                // control character, which would be the inner text's own
                // and are refused.
                b'u' => {
                    let (c, end) = unicode_at(bytes, at + 2, b"\\u")?;
                    if c == '"' || c == '\\' || c < ' ' {
                        return None;
                    }
                    self.scratch
                        .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    end
                }
                // `\n` and the like are raw control characters of the
                // inner text, which JSON refuses in a string.
                _ => return None,
            };
        }
    }

    /// Decodes the inner escape whose letter is written at `at` (after
    /// the outer `\\` that writes the inner backslash); where it ends.
    fn inner_escape(&mut self, at: usize) -> Option<usize> {
        let bytes = self.bytes;
        let (byte, end) = match *bytes.get(at)? {
            // The letter is itself escaped: `\\\"` is an inner `\"`,
            // `\\\\` an inner `\\`, `\\\/` an inner `\/`.
            b'\\' => match *bytes.get(at + 1)? {
                letter @ (b'"' | b'\\' | b'/') => (letter, at + 2),
                _ => return None,
            },
            b'u' => {
                // A high surrogate's low one follows as an inner `\u`,
                // written `\\u`.
                let (c, end) = unicode_at(bytes, at + 1, b"\\\\u")?;
                self.scratch
                    .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                return Some(end);
            }
            b'"' => return None,
            letter => (UNESCAPED[usize::from(letter)], at + 1),
        };
        if byte == 0 {
            return None;
        }
        self.scratch.push(byte);
        Some(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_read::tests::{any_value, written};
    use proptest::prelude::*;

    /// What the general path makes of `text` written as a JSON string:
    /// its JSON, or `None` where it is not JSON.
    fn general(text: &str) -> Option<Value> {
        serde_json::from_str(text).ok()
    }

    /// `nested_value` over `text` written as a JSON string by `serde_json`.
    fn nested(text: &str) -> Option<Value> {
        let outer = serde_json::to_string(text).unwrap_or_default();
        let (value, end) = nested_value(outer.as_bytes(), 1, &mut Vec::new())?;
        assert_eq!(end, outer.len(), "the end is after the closing quote");
        Some(value)
    }

    #[test]
    fn reads_the_arguments_of_real_calls() {
        let outer =
            r#""{\"command\": \"find . -type f -name \\\"*.py\\\" | grep -i \\\"sqlfluff\\\" | head -20\"}""#;
        let (value, end) = nested_value(outer.as_bytes(), 1, &mut Vec::new()).unwrap_or_default();
        assert_eq!(end, outer.len());
        assert_eq!(
            value,
            serde_json::json!({"command": "find . -type f -name \"*.py\" | grep -i \"sqlfluff\" | head -20"})
        );
        for text in [
            r#"{"path": "a\\b", "line": 3, "ok": true, "none": null, "list": [1, -2.5e3, "x"]}"#,
            "{\n  \"command\": \"cat <<'EOF'\\nhello\\tworld\\nEOF\"\n}\n",
            r#"{"emoji": "\ud83d\ude00 and é", "quote": "\"", "slash": "\/", "ctl": "\u0001"}"#,
            r#"[]"#,
            r#"  {}  "#,
            r#""just a string""#,
            r#"12"#,
        ] {
            assert_eq!(nested(text), general(text), "{text}");
            assert!(nested(text).is_some(), "read in one pass: {text}");
        }
    }

    #[test]
    fn refuses_what_is_not_json_or_not_expected() {
        for text in [
            "",
            "{",
            "{\"a\": 1,}",
            "{\"a\": \"raw\nnewline\"}",
            "{\"a\": 1} x",
            "[1 2]",
            "tru",
            "01",
            "\"\\ud800\"",
            "\"\\x\"",
            "plain words",
        ] {
            assert_eq!(nested(text), None, "{text:?}");
        }
        // Escapes of the outer string: read as the general path reads
        // them where expected (a bracket, a character in a string, a
        // surrogate pair), refused where not (quotes, a digit).
        for (outer, read_here) in [
            (r#""\u007b}""#, true),
            (r#""[\"\ud83d\ude00 \u00e9\"]""#, true),
            (r#""\u0022a\u0022""#, false),
            (r#""[\u0031]""#, false),
        ] {
            let general = serde_json::from_str::<String>(outer).ok();
            let read = nested_value(outer.as_bytes(), 1, &mut Vec::new()).map(|(v, _)| v);
            assert_eq!(read.is_some(), read_here, "{outer}");
            assert!(read.is_none() || read == general.as_deref().and_then(self::general));
        }
        // Deeper than the limit: refused.
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH_PLUS), "]".repeat(MAX_DEPTH_PLUS));
        assert_eq!(nested(&deep), None);
    }

    const MAX_DEPTH_PLUS: usize = crate::json_read::MAX_DEPTH + 2;

    proptest! {
        /// Any value, written compact or pretty, then written as a JSON
        /// string, is read back as the general path reads it.
        #[test]
        fn reads_what_the_general_path_reads(value in any_value(), pretty in any::<bool>()) {
            let text = written(&value, pretty).map_err(|e| TestCaseError::fail(e.to_string()))?;
            // `serde_json` reads some floats one unit off what it wrote:
            // what counts is reading as it reads.
            prop_assert!(nested(&text).is_some());
            prop_assert_eq!(nested(&text), general(&text));
        }

        /// Damaged texts are refused or read as the general path reads
        /// them; never otherwise, and never out of bounds.
        #[test]
        fn damaged_texts_are_refused_or_agree(
            value in any_value(),
            cut in any::<prop::sample::Index>(),
            byte in prop::sample::select(b"\"\\,:[]{}0 \nu".to_vec()),
        ) {
            let text = serde_json::to_string(&value).unwrap_or_default();
            let mut bytes = text.into_bytes();
            let at = cut.index(bytes.len() + 1);
            bytes.insert(at, byte);
            if let Ok(text) = String::from_utf8(bytes) {
                if let Some(read) = nested(&text) {
                    prop_assert_eq!(Some(read), general(&text));
                }
            }
        }

        /// Outer strings of any bytes are read safely, and where read,
        /// as decoding them and reading their text gives.
        #[test]
        fn any_outer_text_is_read_safely(text in "\"[\\\\\"{}\\[\\]:,0-9a-fnrtu /\n]{0,40}\"?") {
            if let Some((value, end)) = nested_value(text.as_bytes(), 1, &mut Vec::new()) {
                let decoded: Option<String> =
                    text.get(..end).and_then(|t| serde_json::from_str(t).ok());
                prop_assert_eq!(decoded.as_deref().and_then(general), Some(value));
            }
        }
    }
}

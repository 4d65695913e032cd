//! A JSON reader for the fast import paths: strings decoded sixteen bytes
//! at a time, values built or checked without serde's machinery.
//!
//! It accepts what `serde_json` parses into a `Value`, and reads it into
//! the same values, or it refuses (`None`): a caller then reads the text
//! the general way, which decides, and names what is wrong. It refuses
//! nesting deeper than [`MAX_DEPTH`], below `serde_json`'s own limit.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

use crate::json_nested::nested_value;
use crate::json_text::{first_special, is_special};

/// How deep arrays and objects may nest here; deeper is left to
/// `serde_json` (whose limit is 128).
pub(crate) const MAX_DEPTH: usize = 100;

/// A position in a JSON text, and the room strings with escapes are
/// decoded into.
pub(crate) struct Reader<'a> {
    text: &'a str,
    pos: usize,
    /// Decoded text, as bytes: blocks are copied into it whole before
    /// the reader knows where a run ends, and cut back to it after (the
    /// cut is always at an ASCII byte, so what is left is UTF-8; it is
    /// checked once when read).
    scratch: Vec<u8>,
}

/// Where a string read by [`Reader::string`] is: in the text itself (it
/// had no escapes) or decoded into the reader's scratch room.
enum Found<'a> {
    Text(&'a str),
    Scratch,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Reader {
            text,
            pos: 0,
            scratch: Vec::new(),
        }
    }

    /// The next byte that is not JSON whitespace, not consumed.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Consumes `byte`, the next one after whitespace.
    pub(crate) fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    /// Whether only whitespace is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// After the `[` of an array: consumes its `]` when it is empty.
    pub(crate) fn empty_array(&mut self) -> bool {
        self.eat(b']').is_some()
    }

    /// After a member of an array or object: `Some(true)` for a `,`,
    /// `Some(false)` for the closing `close`.
    pub(crate) fn more(&mut self, close: u8) -> Option<bool> {
        match self.peek()? {
            b',' => {
                self.pos += 1;
                Some(true)
            }
            b if b == close => {
                self.pos += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// Reads an object's key and its `:`.
    pub(crate) fn key(&mut self) -> Option<&str> {
        let found = self.string_found()?;
        self.eat(b':')?;
        self.found(found)
    }

    /// Reads a string.
    pub(crate) fn string(&mut self) -> Option<&str> {
        let found = self.string_found()?;
        self.found(found)
    }

    /// Reads a string, borrowed from the text when it has no escapes.
    pub(crate) fn string_cow(&mut self) -> Option<Cow<'a, str>> {
        Some(match self.string_found()? {
            Found::Text(s) => Cow::Borrowed(s),
            Found::Scratch => Cow::Owned(self.found(Found::Scratch)?.to_owned()),
        })
    }

    fn found(&self, found: Found<'a>) -> Option<&str> {
        match found {
            Found::Text(s) => Some(s),
            Found::Scratch => simdutf8::basic::from_utf8(&self.scratch).ok(),
        }
    }

    /// Reads a string at the next `"`: the text between the quotes when it
    /// has no escapes, else its decoded text in the scratch room. `None`
    /// for a control character, a bad escape or a lone surrogate, which
    /// `serde_json` refuses too.
    fn string_found(&mut self) -> Option<Found<'a>> {
        self.eat(b'"')?;
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let at = start + clean_run(bytes, start);
        match bytes.get(at)? {
            b'"' => {
                self.pos = at + 1;
                self.text.get(start..at).map(Found::Text)
            }
            b'\\' => {
                self.scratch.clear();
                self.scratch.extend_from_slice(bytes.get(start..at)?);
                self.decode(at)?;
                Some(Found::Scratch)
            }
            _ => None,
        }
    }

    /// Decodes the rest of a string from the escape at `at` into the
    /// scratch room, and consumes its closing quote.
    ///
    /// Each block of sixteen bytes is copied whole before it is searched,
    /// and the scratch cut back to where its run ends: one fixed-size copy
    /// a block, however short the runs between escapes are.
    fn decode(&mut self, mut at: usize) -> Option<()> {
        let bytes = self.text.as_bytes();
        loop {
            // `at` is at a backslash.
            let escape = *bytes.get(at + 1)?;
            match UNESCAPED[usize::from(escape)] {
                0 if escape == b'u' => at = self.unicode_escape(at + 2)?,
                0 => return None,
                byte => {
                    self.scratch.push(byte);
                    at += 2;
                }
            }
            // The run up to the next quote, backslash or control character.
            at = copy_run(bytes, at, &mut self.scratch);
            match bytes.get(at)? {
                b'"' => {
                    self.pos = at + 1;
                    return Some(());
                }
                b'\\' => {}
                _ => return None,
            }
        }
    }

    /// Decodes the `\u` escape whose four hex digits are at `at` into the
    /// scratch room (two escapes for a surrogate pair); where it ends.
    fn unicode_escape(&mut self, at: usize) -> Option<usize> {
        let (c, end) = unicode_at(self.text.as_bytes(), at, b"\\u")?;
        self.scratch
            .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        Some(end)
    }

    /// Reads `null`, `true` or `false`.
    fn literal(&mut self) -> Option<Value> {
        let (value, len) = literal_at(self.text.as_bytes(), self.pos)?;
        self.pos += len;
        Some(value)
    }

    /// Reads a number as `serde_json` reads it.
    fn number(&mut self) -> Option<Number> {
        let (number, len) = number_at(self.text.as_bytes(), self.pos)?;
        self.pos += len;
        Some(number)
    }

    /// Reads a string whose contents are the text of a JSON value as that
    /// value, decoding each of its strings once (see `json_nested`);
    /// `None`, with nothing consumed, where that reader refuses.
    pub(crate) fn nested_value(&mut self) -> Option<Value> {
        if self.peek()? != b'"' {
            return None;
        }
        let (value, end) = nested_value(self.text.as_bytes(), self.pos + 1, &mut self.scratch)?;
        self.pos = end;
        Some(value)
    }

    /// Reads any value into a `Value`.
    pub(crate) fn value(&mut self) -> Option<Value> {
        self.value_at(0)
    }

    fn value_at(&mut self, depth: usize) -> Option<Value> {
        Some(match self.peek()? {
            b'"' => Value::String(self.string()?.to_owned()),
            b'[' => {
                self.pos += 1;
                let depth = deeper(depth)?;
                let mut items = Vec::new();
                if !self.empty_array() {
                    loop {
                        items.push(self.value_at(depth)?);
                        if !self.more(b']')? {
                            break;
                        }
                    }
                }
                Value::Array(items)
            }
            b'{' => {
                self.pos += 1;
                let depth = deeper(depth)?;
                let mut map = Map::new();
                if self.eat(b'}').is_none() {
                    loop {
                        let key = self.key()?.to_owned();
                        let item = self.value_at(depth)?;
                        // The last of a repeated key wins, as in `serde_json`.
                        map.insert(key, item);
                        if !self.more(b'}')? {
                            break;
                        }
                    }
                }
                Value::Object(map)
            }
            b'-' | b'0'..=b'9' => Value::Number(self.number()?),
            _ => self.literal()?,
        })
    }

    /// Reads past any value, checking it as [`Reader::value`] does.
    pub(crate) fn skip(&mut self) -> Option<()> {
        self.skip_at(0)
    }

    fn skip_at(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.string_found()?;
            }
            b'[' => {
                self.pos += 1;
                let depth = deeper(depth)?;
                if !self.empty_array() {
                    loop {
                        self.skip_at(depth)?;
                        if !self.more(b']')? {
                            break;
                        }
                    }
                }
            }
            b'{' => {
                self.pos += 1;
                let depth = deeper(depth)?;
                if self.eat(b'}').is_none() {
                    loop {
                        self.key()?;
                        self.skip_at(depth)?;
                        if !self.more(b'}')? {
                            break;
                        }
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                self.number()?;
            }
            _ => {
                self.literal()?;
            }
        }
        Some(())
    }
}

/// `text` read as one JSON value, as `serde_json::from_str` reads it;
/// `None` where this reader refuses it (the caller then asks `serde_json`).
pub(crate) fn value_of(text: &str) -> Option<Value> {
    let mut reader = Reader::new(text);
    // No string in `text` decodes longer than `text`: room for any, once.
    reader.scratch.reserve(text.len());
    let value = reader.value()?;
    reader.at_end().then_some(value)
}

/// The byte each one-character escape (`\\n`, `\\"` …) stands for, by
/// the letter after the backslash; 0 where there is none. A table rather
/// than a `match`: escapes come in any order, and a lookup has no branch
/// to mispredict.
pub(crate) const UNESCAPED: [u8; 256] = {
    let mut table = [0; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// How many bytes from `at` on are neither quotes, backslashes nor
/// control characters.
fn clean_run(bytes: &[u8], at: usize) -> usize {
    let mut end = at;
    while let Some(block) = bytes
        .get(end..end + 16)
        .and_then(|b| <&[u8; 16]>::try_from(b).ok())
    {
        match first_special(block) {
            Some(k) => return end + k - at,
            None => end += 16,
        }
    }
    while bytes.get(end).is_some_and(|&b| !is_special(b)) {
        end += 1;
    }
    end - at
}

/// Copies the run of bytes from `at` on that are neither quotes,
/// backslashes nor control characters to `out`; where it stops.
///
/// Each block of sixteen bytes is copied whole before it is searched, and
/// `out` cut back to where the run ends: one fixed-size copy a block,
/// however short the runs between escapes are.
// Inlined into both decoders: a call for each run cost more than most
// runs take (9-10% of reading a transcript, measured).
#[inline(always)]
pub(crate) fn copy_run(bytes: &[u8], mut at: usize, out: &mut Vec<u8>) -> usize {
    while let Some(block) = bytes.get(at..at + 16).and_then(|b| <&[u8; 16]>::try_from(b).ok()) {
        let kept = out.len();
        out.extend_from_slice(block);
        match first_special(block) {
            Some(k) => {
                out.truncate(kept + k);
                return at + k;
            }
            None => at += 16,
        }
    }
    let run = clean_run(bytes, at);
    out.extend_from_slice(bytes.get(at..at + run).unwrap_or_default());
    at + run
}

/// The character of the `\u` escape whose four hex digits are at `at`,
/// and where it ends: for a high surrogate, `separator` (the bytes that
/// write `\u` at this level of escapes) and a low one must follow.
/// `None` for a lone surrogate, which is no character.
pub(crate) fn unicode_at(bytes: &[u8], at: usize, separator: &[u8]) -> Option<(char, usize)> {
    let high = hex4(bytes, at)?;
    let (code, end) = match high {
        0xD800..=0xDBFF => {
            let low_at = at + 4 + separator.len();
            if bytes.get(at + 4..low_at)? != separator {
                return None;
            }
            let low = hex4(bytes, low_at)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            (0x1_0000 + ((high - 0xD800) << 10) + (low - 0xDC00), low_at + 4)
        }
        code => (code, at + 4),
    };
    Some((char::from_u32(code)?, end))
}

/// The four hex digits at `at`.
pub(crate) fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at + 4)?
        .iter()
        .try_fold(0, |n, &d| Some(n * 16 + char::from(d).to_digit(16)?))
}

/// `null`, `true` or `false` at `at`, and how many bytes write it.
pub(crate) fn literal_at(bytes: &[u8], at: usize) -> Option<(Value, usize)> {
    let rest = bytes.get(at..)?;
    if rest.starts_with(b"null") {
        Some((Value::Null, 4))
    } else if rest.starts_with(b"true") {
        Some((Value::Bool(true), 4))
    } else if rest.starts_with(b"false") {
        Some((Value::Bool(false), 5))
    } else {
        None
    }
}

/// The number at `at`, read as `serde_json` reads it (the same grammar,
/// the same range, the same value), and how many bytes write it.
pub(crate) fn number_at(bytes: &[u8], at: usize) -> Option<(Number, usize)> {
    let len = bytes
        .get(at..)?
        .iter()
        .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .count();
    let text = std::str::from_utf8(bytes.get(at..at + len)?).ok()?;
    Some((text.parse().ok()?, len))
}

/// One level deeper, within [`MAX_DEPTH`].
pub(crate) fn deeper(depth: usize) -> Option<usize> {
    (depth < MAX_DEPTH).then_some(depth + 1)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What `serde_json` makes of `text`, when this reader takes it.
    fn agrees(text: &str) -> Result<(), TestCaseError> {
        if let Some(value) = value_of(text) {
            let theirs: Result<Value, _> = serde_json::from_str(text);
            prop_assert_eq!(Some(value), theirs.ok(), "{:?}", text);
        }
        Ok(())
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a": [1, -0, 0.5, -2.5e-3, 1E5, 18446744073709551615, 18446744073709551616, -9223372036854775809]}"#,
            r#"" \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \u0000 é""#,
            r#"{"k": 1, "k": 2}"#,
            " [ true , false , null ] ",
            "[]",
            "{}",
            r#""""#,
        ] {
            let ours = value_of(text);
            assert!(ours.is_some(), "{text}");
            assert_eq!(ours, serde_json::from_str(text).ok(), "{text}");
        }
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        for text in [
            "",
            " ",
            "[1,]",
            "[01]",
            "[1.]",
            "[-]",
            "[+1]",
            "1e400",
            "[1e]",
            "nul",
            "[true false]",
            r#""\ud83d""#,
            r#""\ude00""#,
            r#""\ud83d\u0041""#,
            "\"a\tb\"",
            r#""\x""#,
            r#""\u12g4""#,
            r#"{"a" 1}"#,
            r#"{"a": 1,}"#,
            r#"{1: 2}"#,
            r#""open"#,
            "[1] 2",
            &deep,
        ] {
            assert_eq!(value_of(text), None, "{text:?}");
        }
        // Just within the depth this reader takes.
        let nested = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(value_of(&nested).is_some());
    }

    /// `value` as `serde_json` writes it, compact or pretty.
    pub(crate) fn written(value: &Value, pretty: bool) -> serde_json::Result<String> {
        if pretty {
            serde_json::to_string_pretty(value)
        } else {
            serde_json::to_string(value)
        }
    }

    /// Any value, floats and every kind of character included.
    pub(crate) fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any::<String>().prop_map(Value::String),
            "[\"\\\\\u{0}-\u{1f}a é😀]{0,40}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec(("[a-z\"\\\\é]{0,4}", inner), 0..5)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Written by `serde_json`, compact or pretty, any value is read,
        /// and read as `serde_json` reads it (which, for some floats, is one
        /// unit in the last place off what it wrote).
        #[test]
        fn reads_every_value_back(value in any_value(), pretty in any::<bool>()) {
            let text = written(&value, pretty).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let theirs: Value = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(value_of(&text), Some(theirs));
        }

        /// Strings of any length, with escapes and characters of every
        /// width anywhere (beside, inside and across the sixteen-byte blocks
        /// the decoder copies whole): decoded to the text written.
        #[test]
        fn long_strings_decode_exactly(
            parts in proptest::collection::vec(
                prop_oneof![
                    3 => "[a-z ]{0,40}",
                    1 => "[\"\\\\\n\t\u{0}-\u{1f}é😀€/]{1,3}",
                ],
                0..24,
            ),
        ) {
            let text: String = parts.concat();
            let json = serde_json::to_string(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(value_of(&json), Some(Value::String(text.clone())));
            // The `\u` form of every character, as some writers escape.
            let units: String = text.encode_utf16().map(|unit| format!("\\u{unit:04x}")).collect();
            let escaped = format!("\"{units}\"");
            prop_assert_eq!(value_of(&escaped), Some(Value::String(text)));
        }

        /// On any text of JSON's characters, this reader refuses or reads
        /// what `serde_json` reads.
        #[test]
        fn never_reads_otherwise(text in "[\\[\\]{}\":,0-9eE.+\\-a-z \\\\\n\t\u{1}é]{0,40}") {
            agrees(&text)?;
        }

        /// A valid text cut or with a byte changed: refused, or read as
        /// `serde_json` reads it.
        #[test]
        fn damaged_texts_are_refused_or_agree(
            value in any_value(),
            at in any::<prop::sample::Index>(),
            byte in prop_oneof![Just(b'"'), Just(b'\\'), Just(b','), Just(b']'), Just(b'}'), Just(b'0'), Just(b' ')],
            cut in any::<bool>(),
        ) {
            let text = serde_json::to_string(&value).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut bytes = text.into_bytes();
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                if cut {
                    bytes.truncate(i);
                } else if bytes[i].is_ascii() {
                    bytes[i] = byte;
                }
            }
            if let Ok(text) = String::from_utf8(bytes) {
                agrees(&text)?;
            }
        }
    }
}

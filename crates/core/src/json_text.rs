//! Writing text as JSON strings: the escapes `serde_json` writes, found
//! sixteen bytes at a time. The fast reader ([`crate::json_read`]) scans
//! strings with the same test.

use std::io::{self, Write};

/// How many times [`write_escaped`] escapes a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escapes {
    /// Once: the contents of a JSON string.
    Once,
    /// Twice: the contents of a JSON string inside a JSON string, as the
    /// OpenAI form carries a call's arguments (JSON written as a string).
    Twice,
}

/// Writes `text` escaped as the contents of a JSON string (without its
/// quotes): the bytes `serde_json` writes between the quotes, or, for
/// [`Escapes::Twice`], those bytes escaped once more. Text that needs no
/// escape is skipped sixteen bytes at a time and written in runs.
///
/// # Errors
///
/// Whatever writing to `w` returns.
///
/// ```
/// use strata_ctx_core::{write_escaped, Escapes};
///
/// let mut once = Vec::new();
/// write_escaped(&mut once, "say \"hi\"\n", Escapes::Once)?;
/// assert_eq!(once, br#"say \"hi\"\n"#);
/// let mut twice = Vec::new();
/// write_escaped(&mut twice, "say \"hi\"\n", Escapes::Twice)?;
/// assert_eq!(twice, br#"say \\\"hi\\\"\\n"#);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_escaped<W: Write + ?Sized>(w: &mut W, text: &str, escapes: Escapes) -> io::Result<()> {
    let bytes = text.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes.get(i..i + 16).and_then(|b| <&[u8; 16]>::try_from(b).ok()) {
            Some(block) => match first_special(block) {
                None => {
                    i += 16;
                    continue;
                }
                Some(at) => i += at,
            },
            None if !is_special(bytes[i]) => {
                i += 1;
                continue;
            }
            None => {}
        }
        w.write_all(&bytes[run..i])?;
        escape(w, bytes[i], escapes)?;
        i += 1;
        run = i;
    }
    w.write_all(&bytes[run..])
}

/// Writes the escape of `byte` (one that [`is_special`] names): JSON's
/// short form where it has one, `\u00XX` otherwise; twice, its backslash,
/// and the quote or backslash it escapes, are escaped again.
fn escape<W: Write + ?Sized>(w: &mut W, byte: u8, escapes: Escapes) -> io::Result<()> {
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
    let twice = escapes == Escapes::Twice;
    let mut out = [0u8; 8];
    let mut len = 0;
    let mut put = |b: u8| {
        out[len] = b;
        len += 1;
    };
    if twice {
        put(b'\\');
    }
    put(b'\\');
    match short {
        Some(letter) => {
            if twice && matches!(letter, b'"' | b'\\') {
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

/// Whether JSON treats `byte` specially in a string: a quote, a backslash
/// or a control character (which it escapes when writing, and refuses
/// raw when reading).
pub(crate) fn is_special(byte: u8) -> bool {
    (byte < 0x20) | (byte == b'"') | (byte == b'\\')
}

/// Where the first byte of a block that [`is_special`] is, if any:
/// sixteen bytes tested at once in two words (the zero-byte test of
/// Mycroft, as `serde_json` does it eight bytes at a time). A test may
/// also flag bytes after a flagged one, never before: the lowest flag is
/// exact.
pub(crate) fn first_special(block: &[u8; 16]) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn escaped(text: &str, escapes: Escapes) -> String {
        let mut out = Vec::new();
        write_escaped(&mut out, text, escapes).unwrap_or_default();
        String::from_utf8(out).unwrap_or_default()
    }

    /// `serde_json`'s string without its quotes.
    fn serde_contents(text: &str) -> String {
        let quoted = serde_json::to_string(text).unwrap_or_default();
        quoted[1..quoted.len() - 1].to_owned()
    }

    #[test]
    fn first_special_is_exact() {
        for at in 0..16 {
            for byte in [b'"', b'\\', 0, 0x1f] {
                let mut block = [b'a'; 16];
                block[at] = byte;
                // Bytes after it may be anything, flagged or not.
                for later in at + 1..16 {
                    block[later] = [b'"', 0x7f, 0x80, 0xff, 0x20][later % 5];
                }
                assert_eq!(first_special(&block), Some(at));
            }
        }
        assert_eq!(first_special(&[0x20; 16]), None);
        assert_eq!(first_special(&[0xff; 16]), None);
        assert_eq!(first_special(b"0123456789abcdef"), None);
    }

    proptest! {
        /// Once is `serde_json`'s escaping; twice is `serde_json`'s escaping
        /// of that, for any text and escapes on every side of a block.
        #[test]
        fn escapes_as_serde_json_does(
            text in "[\"\\\\\u{0}-\u{1f}\u{7f}a é😀/]{0,80}",
            plain in "[a-z]{0,40}",
        ) {
            for text in [text.clone(), format!("{plain}{text}{plain}")] {
                let once = serde_contents(&text);
                prop_assert_eq!(escaped(&text, Escapes::Once), once.clone());
                prop_assert_eq!(escaped(&text, Escapes::Twice), serde_contents(&once));
            }
        }
    }
}

//! Reading a plain OpenAI chat-completions list from a reader, a message
//! at a time, without holding the whole file.

use std::io::{self, Read};

use crate::interop_fast::message_of;
use crate::message::Message;

/// How much is read at a time.
const CHUNK: usize = 64 * 1024;

/// What [`read_openai_list`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum OpenAiList {
    /// A top-level JSON array of messages.
    Array(Vec<Message>),
    /// An object with a `messages` array (and other keys, skipped).
    Object(Vec<Message>),
    /// Anything else (another format, or something wrong): read it with
    /// the general path, which tells what and where.
    Other,
}

/// Reads a plain OpenAI chat-completions list from `reader`, as
/// [`from_openai_slice`](crate::from_openai_slice) reads it from bytes
/// (the same messages, ids included), holding one message's bytes at a
/// time instead of the whole input: the memory it takes is the messages'
/// and a read buffer's.
///
/// # Errors
///
/// Only errors of `reader`; what is not a plain list is
/// [`OpenAiList::Other`].
///
/// ```
/// use strata_ctx_core::{from_openai_slice, read_openai_list, OpenAiList};
///
/// let bytes = br#"{"model": "m", "messages": [{"role": "user", "content": "hi"}]}"#;
/// let messages = from_openai_slice(bytes).unwrap_or_default();
/// assert_eq!(read_openai_list(&bytes[..])?, OpenAiList::Object(messages));
/// assert_eq!(read_openai_list(&b"[{\"role\": \"robot\"}]"[..])?, OpenAiList::Other);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_openai_list<R: Read>(reader: R) -> io::Result<OpenAiList> {
    let mut s = Scanner {
        reader,
        buf: Vec::with_capacity(CHUNK),
        pos: 0,
        eof: false,
    };
    // A byte-order mark is not JSON, but files have it.
    s.fill_to(3)?;
    if s.buf.starts_with("\u{feff}".as_bytes()) {
        s.pos = 3;
    }
    let list = match s.next_token()? {
        Some(b'[') => s.array()?.map(OpenAiList::Array),
        Some(b'{') => s.object()?.map(OpenAiList::Object),
        _ => None,
    };
    // Nothing but white space may follow.
    Ok(match (list, s.next_token()?) {
        (Some(list), None) => list,
        _ => OpenAiList::Other,
    })
}

/// A reader with a buffer that keeps the bytes from `pos` on.
struct Scanner<R> {
    reader: R,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
}

impl<R: Read> Scanner<R> {
    /// Reads until `n` bytes are buffered from `pos`, or the end. Bytes
    /// before `pos` are dropped first when they are most of the buffer.
    fn fill_to(&mut self, n: usize) -> io::Result<()> {
        while self.buf.len() - self.pos < n && !self.eof {
            if self.pos > 0 && self.pos >= self.buf.len() / 2 {
                self.buf.drain(..self.pos);
                self.pos = 0;
            }
            let len = self.buf.len();
            self.buf.resize(len + CHUNK, 0);
            let read = loop {
                match self.reader.read(&mut self.buf[len..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other,
                }
            };
            let read = match read {
                Ok(read) => read,
                Err(e) => {
                    self.buf.truncate(len);
                    return Err(e);
                }
            };
            self.buf.truncate(len + read);
            self.eof = read == 0;
        }
        Ok(())
    }

    /// The byte at `pos + at`, reading as needed; `None` at the end.
    fn byte(&mut self, at: usize) -> io::Result<Option<u8>> {
        self.fill_to(at + 1)?;
        Ok(self.buf.get(self.pos + at).copied())
    }

    /// Skips white space; the next byte, consumed (`None` at the end).
    fn next_token(&mut self) -> io::Result<Option<u8>> {
        self.skip_space()?;
        let next = self.byte(0)?;
        self.pos += usize::from(next.is_some());
        Ok(next)
    }

    /// Skips white space.
    fn skip_space(&mut self) -> io::Result<()> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.byte(0)? {
            self.pos += 1;
        }
        Ok(())
    }

    /// The length of the JSON value that starts at `pos` (after white
    /// space, which is skipped), reading until it is whole; `None` when
    /// the input ends first. Only its extent is found; parsing it checks
    /// it.
    fn value_len(&mut self) -> io::Result<Option<usize>> {
        self.skip_space()?;
        match self.byte(0)? {
            None => Ok(None),
            Some(b'"') => self.string_end(1),
            Some(b'{' | b'[') => {
                let (mut at, mut depth) = (1, 1usize);
                loop {
                    match self.byte(at)? {
                        None => return Ok(None),
                        Some(b'"') => match self.string_end(at + 1)? {
                            Some(end) => at = end,
                            None => return Ok(None),
                        },
                        Some(b'{' | b'[') => {
                            depth += 1;
                            at += 1;
                        }
                        Some(b'}' | b']') => {
                            depth -= 1;
                            at += 1;
                            if depth == 0 {
                                return Ok(Some(at));
                            }
                        }
                        Some(_) => at += 1,
                    }
                }
            }
            // A number or a literal: up to what follows it.
            Some(_) => {
                let mut at = 0;
                loop {
                    match self.byte(at)? {
                        None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') => {
                            return Ok(Some(at))
                        }
                        Some(_) => at += 1,
                    }
                }
            }
        }
    }

    /// Where the string whose contents start at `pos + at` ends, after its
    /// closing quote; `None` when the input ends first.
    fn string_end(&mut self, mut at: usize) -> io::Result<Option<usize>> {
        loop {
            let found = memchr::memchr2(b'"', b'\\', &self.buf[(self.pos + at).min(self.buf.len())..]);
            match found {
                Some(i) if self.buf[self.pos + at + i] == b'"' => return Ok(Some(at + i + 1)),
                Some(i) => {
                    // A backslash escapes the next byte, whatever it is.
                    at += i + 2;
                    self.fill_to(at)?;
                    if self.buf.len() - self.pos < at {
                        return Ok(None);
                    }
                }
                None => {
                    at = self.buf.len() - self.pos;
                    if self.eof {
                        return Ok(None);
                    }
                    self.fill_to(at + CHUNK)?;
                }
            }
        }
    }

    /// The messages of an array whose `[` was read, each parsed as soon
    /// as its bytes are read; `None` for anything but plain messages.
    fn array(&mut self) -> io::Result<Option<Vec<Message>>> {
        let mut out = Vec::new();
        self.skip_space()?;
        if self.byte(0)? == Some(b']') {
            self.pos += 1;
            return Ok(Some(out));
        }
        loop {
            let Some(len) = self.value_len()? else {
                return Ok(None);
            };
            let bytes = &self.buf[self.pos..self.pos + len];
            let Some(message) = message_of(bytes, out.len()) else {
                return Ok(None);
            };
            out.push(message);
            self.pos += len;
            match self.next_token()? {
                Some(b',') => {}
                Some(b']') => {
                    // The room doubling left, given back.
                    out.shrink_to_fit();
                    return Ok(Some(out));
                }
                _ => return Ok(None),
            }
        }
    }

    /// The messages of an object whose `{` was read: its `messages` array,
    /// other keys skipped; `None` without one, with a `system` key (another
    /// format) or a repeated `messages`.
    fn object(&mut self) -> io::Result<Option<Vec<Message>>> {
        let mut messages = None;
        loop {
            let Some(len) = self.value_len()? else {
                return Ok(None);
            };
            let Ok(key) =
                serde_json::from_slice::<std::borrow::Cow<'_, str>>(&self.buf[self.pos..self.pos + len])
            else {
                return Ok(None);
            };
            let key = key.into_owned();
            self.pos += len;
            if self.next_token()? != Some(b':') {
                return Ok(None);
            }
            match key.as_str() {
                "messages" if messages.is_none() => {
                    if self.next_token()? != Some(b'[') {
                        return Ok(None);
                    }
                    match self.array()? {
                        Some(list) => messages = Some(list),
                        None => return Ok(None),
                    }
                }
                "messages" | "system" => return Ok(None),
                _ => {
                    let Some(len) = self.value_len()? else {
                        return Ok(None);
                    };
                    if serde_json::from_slice::<serde::de::IgnoredAny>(&self.buf[self.pos..self.pos + len])
                        .is_err()
                    {
                        return Ok(None);
                    }
                    self.pos += len;
                }
            }
            match self.next_token()? {
                Some(b',') => {}
                Some(b'}') => return Ok(messages),
                _ => return Ok(None),
            }
        }
    }
}

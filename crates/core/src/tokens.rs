//! Token counting (CORE-5).

use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use crate::id::MessageId;
use crate::message::Message;

/// Counts the tokens of text and messages (CORE-5).
///
/// Implementations must be cheap to call repeatedly and deterministic: the
/// same input gives the same count. Only [`TokenCounter::count_text`] is
/// required; the default [`TokenCounter::count_message`] adds
/// [`MESSAGE_OVERHEAD`] to the count of everything the model reads of the
/// message.
///
/// The trait is object safe; `&T`, `Box<T>` and `Arc<T>` forward to `T`.
pub trait TokenCounter: Send + Sync {
    /// The number of tokens of `text`.
    fn count_text(&self, text: &str) -> usize;

    /// The number of tokens `message` costs in a window.
    ///
    /// By default, [`MESSAGE_OVERHEAD`] plus the count of the message's
    /// parts joined: its [`Message::text`], and for each tool call its name
    /// and its arguments as JSON.
    fn count_message(&self, message: &Message) -> usize {
        MESSAGE_OVERHEAD + self.count_text(&message_model_text(message))
    }

    /// The total of [`TokenCounter::count_message`] over `messages`.
    fn count_messages(&self, messages: &[Message]) -> usize {
        messages.iter().map(|m| self.count_message(m)).sum()
    }
}

/// The fixed cost, in tokens, that the default counting adds to every
/// message for its role and framing.
pub const MESSAGE_OVERHEAD: usize = 4;

/// Everything the model reads of `message`, as one text: the readable
/// text of its provider items (an Anthropic compaction summary, MODEL-7),
/// the body, then each tool call's name and JSON arguments, separated by
/// newlines.
///
/// This is what the default [`TokenCounter::count_message`] counts; a
/// counter with its own per-message framing (a real tokenizer's) counts
/// the same text.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{message_model_text, Message, ToolCall};
///
/// let call = ToolCall::new("c1", "Read", json!({"path": "a.rs"}));
/// let m = Message::assistant_with_calls("Let me look.", vec![call]);
/// assert_eq!(message_model_text(&m), "Let me look.\nRead\n{\"path\":\"a.rs\"}");
/// ```
pub fn message_model_text(message: &Message) -> std::borrow::Cow<'_, str> {
    let text = message.text();
    let readable = message.provider_items.iter().filter_map(|i| i.readable_text());
    if message.tool_calls.is_empty() && readable.clone().next().is_none() {
        return text;
    }
    // A compaction summary the provider wrote is read before the text
    // (MODEL-7); opaque items are not counted.
    let mut out = String::new();
    for summary in readable {
        out.push_str(summary);
        out.push('\n');
    }
    out.push_str(&text);
    for call in &message.tool_calls {
        out.push('\n');
        out.push_str(&call.name);
        out.push('\n');
        out.push_str(&call.arguments.to_string());
    }
    std::borrow::Cow::Owned(out)
}

/// The default counter: one token per three characters (Unicode scalar
/// values, rounded down), plus [`MESSAGE_OVERHEAD`] per message.
///
/// A coarse estimate that needs no tokenizer. It over-counts English prose
/// a little (about 4 characters a token with BPE tokenizers) and so errs on
/// the safe side of the budget.
///
/// # Example
///
/// ```
/// use strata_ctx_core::{CharCounter, Message, TokenCounter, MESSAGE_OVERHEAD};
///
/// assert_eq!(CharCounter.count_text("hello world"), 3); // 11 chars / 3
/// assert_eq!(CharCounter.count_message(&Message::user("hello world")), 3 + MESSAGE_OVERHEAD);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CharCounter;

impl TokenCounter for CharCounter {
    fn count_text(&self, text: &str) -> usize {
        chars(text) / 3
    }

    /// The default count, without building the joined text: each part's
    /// characters are counted where it lies, and a call's arguments are
    /// measured as their JSON would be written ([`json_chars`]).
    fn count_message(&self, message: &Message) -> usize {
        let mut chars = 0;
        for summary in message.provider_items.iter().filter_map(|i| i.readable_text()) {
            chars += self::chars(summary) + 1;
        }
        chars += match &message.result {
            Some(result) if message.content.is_empty() => self::chars(&result.to_json()),
            _ => self::chars(&message.content),
        };
        for call in &message.tool_calls {
            chars += 2 + self::chars(&call.name) + json_chars(&call.arguments);
        }
        MESSAGE_OVERHEAD + chars / 3
    }
}

/// The number of characters (Unicode scalar values) of `text`, counted
/// with SIMD (`bytecount`, AVX2 or SSE2 chosen at run time).
fn chars(text: &str) -> usize {
    bytecount::num_chars(text.as_bytes())
}

/// The number of characters (Unicode scalar values) of `value` written as
/// compact JSON, as `value.to_string()` writes it, without writing it.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::json_chars;
///
/// let v = json!({"path": "a\"é.rs\n", "n": [1, -2.5, null]});
/// assert_eq!(json_chars(&v), v.to_string().chars().count());
/// ```
pub fn json_chars(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_chars(n),
        Value::String(s) => string_chars(s),
        // Brackets, and a comma between items.
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(json_chars).sum::<usize>()
        }
        // Braces, a comma between entries, a colon in each.
        Value::Object(map) => {
            2 + map.len().saturating_sub(1)
                + map
                    .iter()
                    .map(|(k, v)| string_chars(k) + 1 + json_chars(v))
                    .sum::<usize>()
        }
    }
}

/// The characters of `s` as a JSON string: its quotes, its characters, and
/// what escaping adds (one for `\"`, `\\` and the short control escapes,
/// five for `\u00XX`).
fn string_chars(s: &str) -> usize {
    /// What a byte adds: one for the first byte of each character, and
    /// what escaping it adds.
    fn weight(b: u8) -> u8 {
        let first = u8::from((b as i8) >= -0x40);
        let control = u8::from(b < 0x20);
        let short = u8::from(matches!(b, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d));
        let quote = u8::from(b == b'"') | u8::from(b == b'\\');
        first + control * 5 - short * 4 + quote
    }
    // One pass, in blocks of 32 bytes summed in a byte (at most 6 a byte,
    // 192 a block), which the compiler turns into vector code.
    let bytes = s.as_bytes();
    let mut blocks = bytes.chunks_exact(32);
    let mut total = 2usize;
    for block in &mut blocks {
        total += usize::from(block.iter().fold(0u8, |sum, &b| sum.wrapping_add(weight(b))));
    }
    total
        + blocks
            .remainder()
            .iter()
            .map(|&b| usize::from(weight(b)))
            .sum::<usize>()
}

/// The characters of a JSON number as `serde_json` writes it.
fn number_chars(n: &serde_json::Number) -> usize {
    /// Counts what is written, keeping nothing.
    struct Count(usize);
    impl fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail.
    let _ = fmt::write(&mut count, format_args!("{n}"));
    count.0
}

crate::forward::forward_impls!(TokenCounter sync {
    fn count_text(&self, text: &str) -> usize;
    fn count_message(&self, message: &Message) -> usize;
    fn count_messages(&self, messages: &[Message]) -> usize;
});

/// A counter that remembers the count of each message, for counters that
/// are expensive (a real tokenizer).
///
/// Entries are keyed by message id and a fingerprint of the message's
/// content, so a message that is changed in place (a cleared tool result)
/// is counted again. Texts are not cached. When the cache holds `capacity`
/// entries it is emptied and starts over.
#[derive(Debug)]
pub struct CachedCounter<C> {
    inner: C,
    capacity: usize,
    cache: Mutex<HashMap<(MessageId, u64), usize>>,
}

impl<C: TokenCounter> CachedCounter<C> {
    /// Caches the message counts of `inner`, up to 65,536 messages.
    pub fn new(inner: C) -> Self {
        CachedCounter::with_capacity(inner, 1 << 16)
    }

    /// Caches the message counts of `inner`, up to `capacity` messages.
    pub fn with_capacity(inner: C, capacity: usize) -> Self {
        CachedCounter {
            inner,
            capacity: capacity.max(1),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The wrapped counter.
    pub fn inner(&self) -> &C {
        &self.inner
    }

    /// The number of cached message counts.
    pub fn cached(&self) -> usize {
        self.cache.lock().map(|c| c.len()).unwrap_or(0)
    }
}

fn fingerprint(message: &Message) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    message.role.hash(&mut hasher);
    message.content.hash(&mut hasher);
    for call in &message.tool_calls {
        call.name.hash(&mut hasher);
        call.arguments.to_string().hash(&mut hasher);
    }
    if let Some(result) = &message.result {
        result.to_json().hash(&mut hasher);
    }
    hasher.finish()
}

impl<C: TokenCounter> TokenCounter for CachedCounter<C> {
    fn count_text(&self, text: &str) -> usize {
        self.inner.count_text(text)
    }

    fn count_message(&self, message: &Message) -> usize {
        let key = (message.id, fingerprint(message));
        if let Ok(cache) = self.cache.lock() {
            if let Some(&n) = cache.get(&key) {
                return n;
            }
        }
        let n = self.inner.count_message(message);
        // A poisoned lock only costs the cache, never the count.
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= self.capacity {
                cache.clear();
            }
            cache.insert(key, n);
        }
        n
    }
}

/// A running total of message counts that follows a list of messages as it
/// changes, so that each step costs only what changed (CORE-5).
///
/// Keep one tally beside each list of messages and call the method that
/// matches each change; [`TokenTally::total`] is then always the sum of the
/// counts.
///
/// # Example
///
/// ```
/// use strata_ctx_core::{CharCounter, Message, TokenTally};
///
/// let mut tally = TokenTally::new();
/// tally.push(&CharCounter, &Message::user("a question"));
/// tally.push(&CharCounter, &Message::assistant("an answer"));
/// let before = tally.total();
/// tally.truncate(1);
/// assert!(tally.total() < before);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenTally {
    counts: Vec<usize>,
    total: usize,
}

impl TokenTally {
    /// An empty tally.
    pub fn new() -> Self {
        TokenTally::default()
    }

    /// A tally of `messages`.
    pub fn from_messages(counter: &dyn TokenCounter, messages: &[Message]) -> Self {
        let counts: Vec<usize> = messages.iter().map(|m| counter.count_message(m)).collect();
        let total = counts.iter().sum();
        TokenTally { counts, total }
    }

    /// The sum of all counts.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The number of messages tallied.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Returns `true` when no message is tallied.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The count of message `index`.
    pub fn get(&self, index: usize) -> Option<usize> {
        self.counts.get(index).copied()
    }

    /// The counts, in order.
    pub fn counts(&self) -> &[usize] {
        &self.counts
    }

    /// The sum of the counts of messages in `range` (clamped to the list).
    pub fn sum(&self, range: std::ops::Range<usize>) -> usize {
        let end = range.end.min(self.counts.len());
        let start = range.start.min(end);
        self.counts[start..end].iter().sum()
    }

    /// Adds a message at the end; returns its count.
    pub fn push(&mut self, counter: &dyn TokenCounter, message: &Message) -> usize {
        let n = counter.count_message(message);
        self.counts.push(n);
        self.total += n;
        n
    }

    /// Recounts message `index` after it changed; returns its new count, or
    /// `None` when there is no such message.
    pub fn replace(&mut self, index: usize, counter: &dyn TokenCounter, message: &Message) -> Option<usize> {
        let slot = self.counts.get_mut(index)?;
        let n = counter.count_message(message);
        self.total = self.total - *slot + n;
        *slot = n;
        Some(n)
    }

    /// Removes the messages in `range` (clamped to the list).
    pub fn remove(&mut self, range: std::ops::Range<usize>) {
        let end = range.end.min(self.counts.len());
        let start = range.start.min(end);
        let removed: usize = self.counts.drain(start..end).sum();
        self.total -= removed;
    }

    /// Keeps the first `len` messages.
    pub fn truncate(&mut self, len: usize) {
        let len = len.min(self.counts.len());
        self.remove(len..self.counts.len());
    }

    /// Reserves room for at least `additional` more messages.
    pub fn reserve(&mut self, additional: usize) {
        self.counts.reserve(additional);
    }

    /// Forgets every message.
    pub fn clear(&mut self) {
        self.counts.clear();
        self.total = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn _obj(_: &dyn TokenCounter) {}

    #[test]
    fn core_5_object_safe_and_forwarding() {
        _obj(&CharCounter);
        let boxed: Box<dyn TokenCounter> = Box::new(CharCounter);
        let arced: Arc<dyn TokenCounter> = Arc::new(CharCounter);
        let text = "ünïcödé ✓✓✓";
        assert_eq!(boxed.count_text(text), 11 / 3);
        assert_eq!(arced.count_text(text), 3);
        assert_eq!(<&CharCounter as TokenCounter>::count_text(&&CharCounter, text), 3);
        _obj(&boxed);
        _obj(&arced);
    }

    #[test]
    fn core_5_counts_calls_and_results() {
        let call = ToolCall::new("c", "bash", json!({"command": "ls -la"}));
        let m = Message::assistant_with_calls("look", vec![call]);
        let expected = MESSAGE_OVERHEAD + "look\nbash\n{\"command\":\"ls -la\"}".chars().count() / 3;
        assert_eq!(CharCounter.count_message(&m), expected);
    }

    struct Counting(AtomicUsize);
    impl TokenCounter for Counting {
        fn count_text(&self, text: &str) -> usize {
            self.0.fetch_add(1, Ordering::Relaxed);
            text.len()
        }
    }

    #[test]
    fn cached_counter_recounts_changed_messages_only() {
        let c = CachedCounter::with_capacity(Counting(AtomicUsize::new(0)), 8);
        let mut m = Message::user("hello");
        assert_eq!(c.count_message(&m), 5 + MESSAGE_OVERHEAD);
        assert_eq!(c.count_message(&m), 5 + MESSAGE_OVERHEAD);
        assert_eq!(c.inner().0.load(Ordering::Relaxed), 1);
        m.content = "hello world".into();
        assert_eq!(c.count_message(&m), 11 + MESSAGE_OVERHEAD);
        assert_eq!(c.inner().0.load(Ordering::Relaxed), 2);
        for i in 0..20 {
            c.count_message(&Message::user(i.to_string()));
        }
        assert!(c.cached() <= 8);
    }

    #[test]
    fn tally_follows_changes() {
        let msgs: Vec<Message> = ["aaa", "bbbbbb", "ccccccccc"]
            .iter()
            .map(|t| Message::user(*t))
            .collect();
        let mut t = TokenTally::from_messages(&CharCounter, &msgs);
        assert_eq!(t.total(), 6 + 3 * MESSAGE_OVERHEAD);
        assert_eq!(t.sum(1..3), 5 + 2 * MESSAGE_OVERHEAD);
        t.replace(0, &CharCounter, &Message::user("")).unwrap();
        assert_eq!(t.total(), 5 + 3 * MESSAGE_OVERHEAD);
        t.remove(0..1);
        assert_eq!(t.total(), 5 + 2 * MESSAGE_OVERHEAD);
        assert_eq!(t.replace(9, &CharCounter, &msgs[0]), None);
        t.truncate(1);
        assert_eq!(t.total(), 2 + MESSAGE_OVERHEAD);
        t.clear();
        assert!(t.is_empty());
    }
}

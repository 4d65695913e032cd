//! What a provider's prompt cache would serve of each call: the owner of
//! the cache model that `strata-ctx replay` prices windows with.
//!
//! An agent's bill is its input tokens, and a token read from the
//! provider's prompt cache costs a tenth (Anthropic) or half (OpenAI) of
//! one sent fresh: how much of each request repeats the previous one
//! decides the price as much as its size. [`PromptCache`] follows a
//! session's calls and says, for each, how many input tokens the cache
//! would serve, how many would be written to it, and how many are plain.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::{Add, AddAssign};

use serde_json::Value;

use strata_ctx_prompt::ChatMarks;

use crate::{TokenCounter, Usage, Window};

/// The fewest tokens a provider caches: a shorter shared prefix is sent
/// at the full price (OpenAI's rule; Anthropic's for its larger models).
pub const MIN_CACHED_TOKENS: u64 = 1_024;

/// The step in which OpenAI's cached prefix grows past
/// [`MIN_CACHED_TOKENS`].
const OPENAI_CACHE_STEP: u64 = 128;

/// How a provider bills the input of a call against its prompt cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CacheRule {
    /// Anthropic: what the request shares with the previous one is read
    /// from the cache (0.1× the input price) and the rest is written to it
    /// (1.25×), as when the conversation's last block carries a
    /// breakpoint (`AnthropicClientBuilder::cache_conversation`).
    Anthropic,
    /// OpenAI: what the request shares with the previous one is read from
    /// the cache (0.5×) once it reaches 1,024 tokens, in steps of 128;
    /// writing costs nothing extra.
    OpenAi,
}

impl CacheRule {
    /// The input's price in units of the plain input price: cache reads
    /// and writes at their share of it. Anthropic: 0.1× read, 1.25×
    /// written; OpenAI: 0.5× read.
    pub fn units(self, calls: &CacheUse) -> f64 {
        let (read, write) = match self {
            CacheRule::Anthropic => (0.1, 1.25),
            CacheRule::OpenAi => (0.5, 1.0),
        };
        calls.plain_tokens() as f64
            + read * calls.cache_read_tokens as f64
            + write * calls.cache_write_tokens as f64
    }
}

/// The input of one call or of many, as a prompt cache serves it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CacheUse {
    /// Calls counted.
    pub calls: u64,
    /// Input tokens, the cache's parts included.
    pub input_tokens: u64,
    /// Input tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the cache.
    pub cache_write_tokens: u64,
}

impl CacheUse {
    /// Input tokens neither read from the cache nor written to it.
    pub fn plain_tokens(&self) -> u64 {
        self.input_tokens - self.cache_read_tokens - self.cache_write_tokens
    }

    /// The share of the input read from the cache (0 for no input).
    pub fn hit_rate(&self) -> f64 {
        if self.input_tokens == 0 {
            0.0
        } else {
            self.cache_read_tokens as f64 / self.input_tokens as f64
        }
    }

    /// The input as a provider's usage report, to price with
    /// [`Price::cost`](crate::Price::cost).
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens,
            output_tokens: 0,
            cached_input_tokens: Some(self.cache_read_tokens),
            cache_write_tokens: Some(self.cache_write_tokens),
        }
    }
}

impl Add for CacheUse {
    type Output = CacheUse;

    fn add(self, other: CacheUse) -> CacheUse {
        CacheUse {
            calls: self.calls + other.calls,
            input_tokens: self.input_tokens + other.input_tokens,
            cache_read_tokens: self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens: self.cache_write_tokens + other.cache_write_tokens,
        }
    }
}

impl AddAssign for CacheUse {
    fn add_assign(&mut self, other: CacheUse) {
        *self = *self + other;
    }
}

/// A provider's prompt cache, followed over a session's calls.
///
/// Each call's request is given as its messages as sent, each with its
/// tokens; what it shares with the previous call's request, in whole
/// messages from the start, is what the cache serves (the cache model of
/// the peers' baselines in `strata-ctx eval`). Anthropic reads the cache
/// only at block boundaries near a breakpoint, so for a request that
/// changed far from its end this is an upper bound of what it reads.
///
/// ```
/// use strata_ctx::{CacheRule, PromptCache};
///
/// let mut cache = PromptCache::new(CacheRule::Anthropic);
/// let system = (&b"You are a coding agent."[..], 1_500);
/// let first = cache.call([system, (&b"fix the test"[..], 10)]);
/// assert_eq!((first.cache_read_tokens, first.cache_write_tokens), (0, 1_510));
/// let second = cache.call([system, (&b"fix the test"[..], 10), (&b"cargo test"[..], 400)]);
/// assert_eq!((second.cache_read_tokens, second.cache_write_tokens), (1_510, 400));
/// ```
#[derive(Debug, Clone)]
pub struct PromptCache {
    rule: CacheRule,
    /// The previous request: each message's fingerprint and the tokens up
    /// to and with it.
    previous: Vec<(u64, u64)>,
    /// Where the previous request's messages stood, when it was a window
    /// ([`PromptCache::call_window`]).
    marks: Option<ChatMarks>,
}

impl PromptCache {
    /// An empty cache billed by `rule`.
    pub fn new(rule: CacheRule) -> Self {
        PromptCache {
            rule,
            previous: Vec::new(),
            marks: None,
        }
    }

    /// The rule it bills by.
    pub fn rule(&self) -> CacheRule {
        self.rule
    }

    /// One call whose request holds `messages`, each as sent (its bytes)
    /// with its tokens: what the cache serves of it, against the previous
    /// call's request, which it then replaces.
    pub fn call<'a>(&mut self, messages: impl IntoIterator<Item = (&'a [u8], usize)>) -> CacheUse {
        self.marks = None;
        self.call_counted(0, messages.into_iter().map(|(b, t)| (b, Some(t))), |_| 0)
    }

    /// One call whose request is `window`, rendered as OpenAI
    /// chat-completions messages and counted by `counter` (the same
    /// messages render the same bytes in the Anthropic form).
    ///
    /// What the window holds unchanged since the previous call's window
    /// ([`Context::unchanged_since`](strata_ctx_prompt::Context::unchanged_since))
    /// is taken from that call, neither rendered nor counted again: a call
    /// costs what its window added.
    pub fn call_window(&mut self, window: &Window, counter: &dyn TokenCounter) -> CacheUse {
        let context = &window.context;
        let marks = context.chat_marks();
        let kept = self
            .marks
            .as_ref()
            .map_or(0, |earlier| marks.unchanged_since(earlier));
        self.marks = Some(marks);
        let mut rendered = ChatRequest::default();
        // Writing to memory cannot fail.
        let _ = context.try_for_each_chat_message_from(kept, |m| rendered.push(m));
        self.call_counted(kept, rendered.messages().map(|m| (m, None)), counting(counter))
    }

    /// One call whose request holds `messages` as rendered for the
    /// provider, each counted by `counter`.
    pub fn call_rendered(&mut self, messages: &[Value], counter: &dyn TokenCounter) -> CacheUse {
        self.call_request(&ChatRequest::of_values(messages), counter)
    }

    /// One call whose request is `request`, counted by `counter` where it
    /// differs from the previous one.
    pub(crate) fn call_request(&mut self, request: &ChatRequest, counter: &dyn TokenCounter) -> CacheUse {
        self.marks = None;
        self.call_counted(0, request.messages().map(|m| (m, None)), counting(counter))
    }

    /// The one rule of a call: the previous request's first `kept`
    /// messages, known to be unchanged, then `messages`, each with its
    /// fingerprint and its tokens (given, taken from the previous request
    /// where the prefix still holds, or else counted by `count`); and what
    /// the cache serves.
    fn call_counted<'a>(
        &mut self,
        kept: usize,
        messages: impl Iterator<Item = (&'a [u8], Option<usize>)>,
        mut count: impl FnMut(&[u8]) -> usize,
    ) -> CacheUse {
        let mut request = std::mem::take(&mut self.previous);
        let kept = kept.min(request.len());
        let previous = request.split_off(kept);
        let base = request.last().map_or(0, |p| p.1);
        let (mut total, mut shared) = (base, base);
        let mut same = true;
        for (i, (bytes, tokens)) in messages.enumerate() {
            let mut hasher = DefaultHasher::new();
            bytes.hash(&mut hasher);
            let fingerprint = hasher.finish();
            let before = previous.get(i).filter(|(f, _)| same && *f == fingerprint);
            same = before.is_some();
            let tokens = match (tokens, before) {
                (Some(tokens), _) => tokens as u64,
                (None, Some((_, upto))) => {
                    let start = i
                        .checked_sub(1)
                        .and_then(|j| previous.get(j))
                        .map_or(base, |p| p.1);
                    upto - start
                }
                (None, None) => count(bytes) as u64,
            };
            total += tokens;
            if same {
                shared = total;
            }
            request.push((fingerprint, total));
        }
        self.previous = request;
        let (read, write) = match self.rule {
            CacheRule::Anthropic if total < MIN_CACHED_TOKENS => (0, 0),
            CacheRule::Anthropic if shared < MIN_CACHED_TOKENS => (0, total),
            CacheRule::Anthropic => (shared, total - shared),
            CacheRule::OpenAi if shared < MIN_CACHED_TOKENS => (0, 0),
            CacheRule::OpenAi => {
                let steps = (shared - MIN_CACHED_TOKENS) / OPENAI_CACHE_STEP;
                (MIN_CACHED_TOKENS + steps * OPENAI_CACHE_STEP, 0)
            }
        };
        CacheUse {
            calls: 1,
            input_tokens: total,
            cache_read_tokens: read,
            cache_write_tokens: write,
        }
    }
}

/// Counts a rendered message's bytes with `counter`.
fn counting(counter: &dyn TokenCounter) -> impl FnMut(&[u8]) -> usize + '_ {
    // What serde_json writes is UTF-8.
    |bytes| counter.count_text(&String::from_utf8_lossy(bytes))
}

/// A request as the chat API's messages, each as its JSON bytes, in one
/// buffer: rendered once, then billed by as many caches as need it.
#[derive(Debug, Default)]
pub(crate) struct ChatRequest {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl ChatRequest {
    /// `messages` as the chat API takes them.
    pub(crate) fn of_messages(messages: &[crate::Message]) -> Self {
        let mut out = ChatRequest::default();
        for m in messages {
            // Writing to memory cannot fail.
            let _ = out.push(&strata_ctx_prompt::chat_message(m));
        }
        out
    }

    /// Messages already rendered as values.
    pub(crate) fn of_values(messages: &[Value]) -> Self {
        let mut out = ChatRequest::default();
        for m in messages {
            // Writing to memory cannot fail.
            let _ = out.push(m);
        }
        out
    }

    fn push(&mut self, message: &impl serde::Serialize) -> Result<(), serde_json::Error> {
        serde_json::to_writer(&mut self.bytes, message)?;
        self.ends.push(self.bytes.len());
        Ok(())
    }

    /// Each message's bytes, in order.
    pub(crate) fn messages(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .filter_map(|(start, &end)| self.bytes.get(start..end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(parts: &[(&'static str, usize)]) -> Vec<(&'static [u8], usize)> {
        parts.iter().map(|(text, n)| (text.as_bytes(), *n)).collect()
    }

    #[test]
    fn anthropic_reads_the_shared_prefix_and_writes_the_rest() {
        let mut cache = PromptCache::new(CacheRule::Anthropic);
        let tiny = cache.call(request(&[("sys", 100)]));
        assert_eq!(
            (tiny.cache_read_tokens, tiny.cache_write_tokens),
            (0, 0),
            "too small to cache"
        );
        let first = cache.call(request(&[("sys", 1_000), ("task", 200)]));
        assert_eq!(
            (
                first.input_tokens,
                first.cache_read_tokens,
                first.cache_write_tokens
            ),
            (1_200, 0, 1_200)
        );
        let grown = cache.call(request(&[("sys", 1_000), ("task", 200), ("step 1", 300)]));
        assert_eq!(
            (
                grown.cache_read_tokens,
                grown.cache_write_tokens,
                grown.plain_tokens()
            ),
            (1_200, 300, 0)
        );
        // A message changed in the middle: only what comes before it is read.
        let changed = cache.call(request(&[
            ("sys", 1_000),
            ("task", 200),
            ("step 1, cleared", 20),
            ("step 2", 400),
        ]));
        assert_eq!(
            (changed.cache_read_tokens, changed.cache_write_tokens),
            (1_200, 420)
        );
        let shorter = cache.call(request(&[("sys", 1_000), ("summary", 150)]));
        assert_eq!(
            (shorter.cache_read_tokens, shorter.cache_write_tokens),
            (0, 1_150),
            "under the minimum"
        );
        let total = tiny + first + grown + changed + shorter;
        assert_eq!(
            (total.calls, total.input_tokens),
            (5, 100 + 1_200 + 1_500 + 1_620 + 1_150)
        );
        assert!((CacheRule::Anthropic.units(&grown) - (0.1 * 1_200.0 + 1.25 * 300.0)).abs() < 1e-9);
    }

    #[test]
    fn a_window_is_priced_as_its_openai_messages() {
        let project = tempfile::tempdir().unwrap();
        let mut engine = crate::Engine::builder(project.path())
            .system_prompt("sys ".repeat(2_000))
            .build()
            .unwrap();
        let window = engine.window();
        let rendered = match window.to_openai() {
            Value::Array(messages) => messages,
            other => panic!("{other}"),
        };
        let mut by_window = PromptCache::new(CacheRule::Anthropic);
        let mut by_messages = PromptCache::new(CacheRule::Anthropic);
        for _ in 0..2 {
            let a = by_window.call_window(&window, engine.counter());
            let b = by_messages.call_rendered(&rendered, engine.counter());
            assert_eq!(a, b);
            assert!(a.input_tokens > MIN_CACHED_TOKENS, "{a:?}");
        }
        assert_eq!(
            by_window.call_window(&window, engine.counter()).cache_read_tokens,
            by_window.call_window(&window, engine.counter()).input_tokens
        );
    }

    #[test]
    fn openai_reads_from_1024_tokens_in_steps_of_128_and_writes_nothing() {
        let mut cache = PromptCache::new(CacheRule::OpenAi);
        cache.call(request(&[("sys", 1_000), ("task", 200)]));
        let next = cache.call(request(&[("sys", 1_000), ("task", 200), ("step", 50)]));
        assert_eq!((next.cache_read_tokens, next.cache_write_tokens), (1_152, 0));
        assert_eq!(next.plain_tokens(), 98);
        assert!((next.hit_rate() - 1_152.0 / 1_250.0).abs() < 1e-9);
        let small = cache.call(request(&[("sys", 1_000), ("other", 10)]));
        assert_eq!(
            small.cache_read_tokens, 0,
            "1,000 shared tokens are under the minimum"
        );
        assert!((CacheRule::OpenAi.units(&next) - (98.0 + 0.5 * 1_152.0)).abs() < 1e-9);
        let usage = next.usage();
        assert_eq!(
            (usage.input_tokens, usage.cached_input_tokens),
            (1_250, Some(1_152))
        );
        assert_eq!(CacheUse::default().hit_rate(), 0.0);
    }

    /// The minimum is inclusive: 1,024 tokens are cached, 1,023 are not,
    /// under both rules.
    #[test]
    fn the_minimum_of_1024_tokens_is_cached() {
        let mut anthropic = PromptCache::new(CacheRule::Anthropic);
        let under = anthropic.call(request(&[("short", 1_023)]));
        assert_eq!((under.cache_read_tokens, under.cache_write_tokens), (0, 0));
        let exact = anthropic.call(request(&[("sys", 1_024)]));
        assert_eq!((exact.cache_read_tokens, exact.cache_write_tokens), (0, 1_024));
        let read = anthropic.call(request(&[("sys", 1_024), ("step", 10)]));
        assert_eq!((read.cache_read_tokens, read.cache_write_tokens), (1_024, 10));
        let mut openai = PromptCache::new(CacheRule::OpenAi);
        openai.call(request(&[("sys", 1_024)]));
        let read = openai.call(request(&[("sys", 1_024), ("step", 10)]));
        assert_eq!(read.cache_read_tokens, 1_024);
    }
}

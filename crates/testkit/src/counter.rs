//! Token counters with numbers that are easy to reason about in tests.

use strata_ctx_core::{Message, TokenCounter};

/// A [`TokenCounter`] whose every message costs the same number of tokens,
/// whatever it holds, and whose texts cost one token per character.
///
/// Makes budgets in tests exact: a window of `n` messages costs
/// `n × per_message` tokens.
///
/// # Example
///
/// ```
/// use strata_ctx_core::{Message, TokenCounter};
/// use strata_ctx_testkit::FixedTokenCounter;
///
/// let counter = FixedTokenCounter::new(10);
/// assert_eq!(counter.count_message(&Message::user("a very long text")), 10);
/// assert_eq!(counter.count_text("abc"), 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedTokenCounter {
    per_message: usize,
}

impl FixedTokenCounter {
    /// A counter charging `per_message` tokens for every message.
    pub fn new(per_message: usize) -> Self {
        FixedTokenCounter { per_message }
    }
}

impl TokenCounter for FixedTokenCounter {
    fn count_text(&self, text: &str) -> usize {
        text.chars().count()
    }

    fn count_message(&self, _message: &Message) -> usize {
        self.per_message
    }
}

/// A [`TokenCounter`] charging one token per byte of each message's text,
/// with no per-message overhead: sizes in tests equal text lengths.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ByteCounter;

impl TokenCounter for ByteCounter {
    fn count_text(&self, text: &str) -> usize {
        text.len()
    }

    fn count_message(&self, message: &Message) -> usize {
        message.text().len()
            + message
                .tool_calls
                .iter()
                .map(|c| c.name.len() + c.arguments.to_string().len())
                .sum::<usize>()
    }
}

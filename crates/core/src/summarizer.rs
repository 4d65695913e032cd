//! The plug-in trait for archiving old rounds (HIST-5, HIST-7).

use std::sync::Arc;

use async_trait::async_trait;

use crate::error::LlmResult as Result;
use crate::message::Message;

/// What a [`Summarizer`] reports while it works, so that a user waiting
/// for a long compaction sees it move (HIST-7).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SummaryProgress {
    /// A model call started for chunk `chunk` of `chunks` (from 1).
    ChunkStarted {
        /// The chunk being summarised.
        chunk: usize,
        /// How many chunks there are.
        chunks: usize,
    },
    /// The input overflowed the summariser's window and was shrunk before
    /// a new try (HIST-12).
    Shrunk {
        /// Which try comes next (from 2).
        attempt: usize,
        /// The input's estimated tokens after shrinking.
        tokens: usize,
    },
}

/// A callback receiving [`SummaryProgress`]; it must return quickly. A
/// summariser takes it when it is built (`LlmSummarizer::with_progress`).
pub type ProgressFn = Arc<dyn Fn(SummaryProgress) + Send + Sync>;

/// Writes the archived summary of old messages (HIST-5).
///
/// Given the messages of the rounds to archive, in order, return the text
/// of one `summary` message. The caller (compaction) owns the time limit
/// and the degraded path: on an error it keeps the recent rounds only and
/// says so (HIST-7); with [`NoSummarizer`], whose
/// [`summarizes`](Summarizer::summarizes) is `false`, it takes that path
/// by design, without a call. Implementations report
/// [`LlmError::ContextTooLong`](crate::LlmError::ContextTooLong) only when they
/// could not make the input fit themselves.
///
/// The trait is object safe; `&T`, `Box<T>` and `Arc<T>` forward to `T`.
#[async_trait]
pub trait Summarizer: Send + Sync {
    /// The summary of `messages`.
    ///
    /// # Errors
    ///
    /// When no usable summary could be made: the model failed, timed out,
    /// or answered with nothing usable.
    async fn summarize(&self, messages: &[Message]) -> Result<String>;

    /// Whether this summariser writes summaries at all. By default, `true`;
    /// [`NoSummarizer`] says `false`, and compaction then keeps the recent
    /// rounds with a notice without calling it (HIST-7's degraded mode,
    /// chosen rather than failed into).
    fn summarizes(&self) -> bool {
        true
    }
}

crate::forward::forward_impls!(Summarizer sync {
    fn summarizes(&self) -> bool;
} async {
    async fn summarize(&self, messages: &[Message]) -> Result<String>;
});

/// No summaries: compaction archives old rounds without one, keeping the
/// recent rounds and a notice with the facts of the archived steps in
/// their place (HIST-7's degraded mode). The engine's default.
///
/// Compaction never calls it ([`Summarizer::summarizes`] is `false`);
/// called directly, it answers [`LlmError::NoSummarizer`](crate::LlmError::NoSummarizer).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoSummarizer;

#[async_trait]
impl Summarizer for NoSummarizer {
    async fn summarize(&self, _: &[Message]) -> Result<String> {
        Err(crate::LlmError::NoSummarizer)
    }

    fn summarizes(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Count;

    #[async_trait]
    impl Summarizer for Count {
        async fn summarize(&self, messages: &[Message]) -> Result<String> {
            Ok(format!("{} messages", messages.len()))
        }
    }

    fn _obj(_: &dyn Summarizer) {}

    #[tokio::test]
    async fn summarizer_is_object_safe() {
        _obj(&Count);
        let shared: Arc<dyn Summarizer> = Arc::new(Count);
        let boxed: Box<dyn Summarizer> = Box::new(Count);
        let m = [Message::user("a")];
        assert_eq!(shared.summarize(&m).await.unwrap(), "1 messages");
        assert_eq!(boxed.summarize(&m).await.unwrap(), "1 messages");
        assert!(shared.summarizes() && boxed.summarizes());
        let none: Arc<dyn Summarizer> = Arc::new(NoSummarizer);
        assert!(!none.summarizes());
        assert!(matches!(
            none.summarize(&m).await,
            Err(crate::LlmError::NoSummarizer)
        ));
    }
}

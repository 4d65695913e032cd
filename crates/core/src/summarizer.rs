//! The plug-in trait for archiving old rounds (HIST-5, HIST-7).

use std::sync::Arc;

use async_trait::async_trait;

use crate::error::Result;
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

/// A callback receiving [`SummaryProgress`]; it must return quickly.
pub type ProgressFn = Arc<dyn Fn(SummaryProgress) + Send + Sync>;

/// Writes the archived summary of old messages (HIST-5).
///
/// Given the messages of the rounds to archive, in order, return the text
/// of one `summary` message. The caller (compaction) owns the time limit
/// and the degraded path: on an error it keeps the recent rounds only and
/// says so (HIST-7). Implementations report
/// [`Error::ContextTooLong`](crate::Error::ContextTooLong) only when they
/// could not make the input fit themselves.
///
/// The trait is object safe; `&T`, `Box<T>` and `Arc<T>` forward to `T`.
#[async_trait]
pub trait Summarizer: Send + Sync {
    /// The summary of `messages`, reporting progress to `progress` when
    /// given.
    ///
    /// # Errors
    ///
    /// When no usable summary could be made: the model failed, timed out,
    /// or answered with nothing usable.
    async fn summarize(&self, messages: &[Message], progress: Option<ProgressFn>) -> Result<String>;
}

crate::forward::forward_impls!(Summarizer async {
    async fn summarize(&self, messages: &[Message], progress: Option<ProgressFn>) -> Result<String>;
});

#[cfg(test)]
mod tests {
    use super::*;

    struct Count;

    #[async_trait]
    impl Summarizer for Count {
        async fn summarize(&self, messages: &[Message], _: Option<ProgressFn>) -> Result<String> {
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
        assert_eq!(shared.summarize(&m, None).await.unwrap(), "1 messages");
        assert_eq!(boxed.summarize(&m, None).await.unwrap(), "1 messages");
    }
}

//! A run of messages shared between the engine and the windows it hands
//! out, named so that what changed since an earlier window is known
//! without looking (REL-3).

use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::Message;

/// The next name a run takes: unique in the process.
static NEXT_NAME: AtomicU64 = AtomicU64::new(1);

fn fresh_name() -> u64 {
    NEXT_NAME.fetch_add(1, Ordering::Relaxed)
}

/// A run of messages (a window's history or its scratchpad) that windows
/// share with the engine that built them, and its name.
///
/// Cloning a run costs a reference count, not its messages. A run only
/// grows under its name: [`MessageRun::extend`] appends in place, and any
/// other change is a new run with a new name ([`MessageRun::new`]). When
/// a clone of the run (an earlier window) is still alive, appending copies
/// the messages first and the copy takes a new name, so that one name
/// never stands for two different runs. A run that
/// [`continues`](MessageRun::continues) another's name and length holds
/// the same messages at the same places, and a renderer, a prompt cache or
/// a check can take over what it made of them and look at the new ones
/// only: the cost of a step is the step.
///
/// ```
/// use strata_ctx_core::{Message, MessageRun};
///
/// let mut run = MessageRun::new(vec![Message::user("fix the test")]);
/// let seen = (run.name(), run.len());
/// run.extend([Message::assistant("on it")]);
/// assert!(run.continues(seen.0, seen.1));
///
/// let window = run.clone(); // shared, not copied
/// run.extend([Message::user("and the docs")]);
/// assert!(!run.continues(window.name(), window.len()), "copied under a new name");
/// assert_eq!((window.len(), run.len()), (2, 3));
///
/// let other = MessageRun::new(vec![Message::user("fix the test")]);
/// assert!(!other.continues(seen.0, seen.1), "same messages, another run");
/// ```
#[derive(Clone)]
pub struct MessageRun {
    messages: Arc<Vec<Message>>,
    name: u64,
}

impl MessageRun {
    /// A run of `messages` under a new name.
    pub fn new(messages: Vec<Message>) -> Self {
        MessageRun {
            messages: Arc::new(messages),
            name: fresh_name(),
        }
    }

    /// Its name: unique in the process to this run and the runs it grew
    /// into.
    pub fn name(&self) -> u64 {
        self.name
    }

    /// Returns `true` when this run is the run named `name` as it was at
    /// `len` messages, grown or not: its first `len` messages are the ones
    /// it had then. Every run continues an empty one.
    pub fn continues(&self, name: u64, len: usize) -> bool {
        len == 0 || (self.name == name && self.messages.len() >= len)
    }

    /// Appends `more`, keeping the name; when a clone of the run (an
    /// earlier window) is still alive, the messages are copied first and
    /// the copy takes a new name.
    pub fn extend(&mut self, more: impl IntoIterator<Item = Message>) {
        let mut more = more.into_iter().peekable();
        if more.peek().is_none() {
            return;
        }
        let before = Arc::as_ptr(&self.messages);
        let messages = Arc::make_mut(&mut self.messages);
        if !std::ptr::eq(before, messages) {
            self.name = fresh_name();
        }
        messages.extend(more);
    }

    /// The messages, owned: free when no clone of the run is alive.
    pub fn into_vec(self) -> Vec<Message> {
        Arc::unwrap_or_clone(self.messages)
    }
}

impl Default for MessageRun {
    fn default() -> Self {
        MessageRun::new(Vec::new())
    }
}

impl Deref for MessageRun {
    type Target = [Message];

    fn deref(&self) -> &[Message] {
        &self.messages
    }
}

impl From<Vec<Message>> for MessageRun {
    fn from(messages: Vec<Message>) -> Self {
        MessageRun::new(messages)
    }
}

/// Runs are equal when their messages are, whatever their names.
impl PartialEq for MessageRun {
    fn eq(&self, other: &Self) -> bool {
        self.messages == other.messages
    }
}

impl fmt::Debug for MessageRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageRun")
            .field("name", &self.name)
            .field("messages", &self.messages)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_grows_in_place_when_no_clone_is_alive() {
        let mut run = MessageRun::new(vec![Message::user("a")]);
        let before = Arc::as_ptr(&run.messages);
        run.extend([Message::user("b")]);
        assert_eq!(Arc::as_ptr(&run.messages), before, "appended in place");
        assert_eq!(run.len(), 2);
    }

    #[test]
    fn a_clone_keeps_what_it_saw() {
        let mut run = MessageRun::new(vec![Message::user("a")]);
        let window = run.clone();
        run.extend([Message::user("b")]);
        assert_eq!(window.len(), 1);
        assert_eq!(run.len(), 2);
        assert!(
            !run.continues(window.name(), window.len()),
            "the copy has a name of its own"
        );
        let mut window = window;
        let name = window.name();
        window.extend([Message::user("c")]);
        assert_eq!(window.name(), name, "alone again, it grows under its name");
        assert!(!window.continues(name, 3), "shorter than asked");
        assert!(
            MessageRun::default().continues(name, 0),
            "every run continues an empty one"
        );
    }

    #[test]
    fn names_are_unique_and_extending_by_nothing_changes_nothing() {
        let mut a = MessageRun::default();
        let b = MessageRun::default();
        assert_ne!(a.name(), b.name());
        assert_eq!(a, b, "equal by their messages");
        assert_ne!(MessageRun::new(vec![Message::user("x")]), b);
        assert!(format!("{a:?}").starts_with("MessageRun { name: "), "{a:?}");
        let name = a.name();
        a.extend(std::iter::empty());
        assert_eq!((a.name(), a.len()), (name, 0));
        assert_eq!(MessageRun::from(vec![Message::user("x")]).into_vec().len(), 1);
    }
}

//! Chat messages walked, written and compared in place (REL-3): what a
//! window holds unchanged since an earlier one is known from its marks,
//! so that writing, pricing or checking the next window costs what it
//! added.

use strata_ctx_wire::chat::ChatMessage;

use crate::layers::Context;
use crate::render::chat_message;

impl Context {
    /// Gives `f` each message of [`Context::to_openai`] in order, borrowed
    /// from the window rather than built as a [`Value`](serde_json::Value): the walk to
    /// render, hash or count a window's messages without copying them.
    /// Stops at the first error `f` returns.
    ///
    /// # Errors
    ///
    /// The first error `f` returns.
    ///
    /// ```
    /// use strata_ctx_core::Message;
    /// use strata_ctx_prompt::{Context, SystemLayer};
    ///
    /// let window = Context::new(SystemLayer::new("Be brief.")).with_input(Message::user("Hi!"));
    /// let mut roles = Vec::new();
    /// window.try_for_each_chat_message(|m| {
    ///     roles.push(m.role.to_string());
    ///     Ok::<(), std::convert::Infallible>(())
    /// })?;
    /// assert_eq!(roles, ["system", "user"]);
    /// # Ok::<(), std::convert::Infallible>(())
    /// ```
    pub fn try_for_each_chat_message<E>(
        &self,
        f: impl FnMut(&ChatMessage<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.try_for_each_chat_message_from(0, f)
    }

    /// [`Context::try_for_each_chat_message`] from the message at `from`
    /// on: the messages before it are passed over without being looked at,
    /// so that what a later window adds costs what it adds (see
    /// [`Context::unchanged_since`]).
    ///
    /// # Errors
    ///
    /// The first error `f` returns.
    pub fn try_for_each_chat_message_from<E>(
        &self,
        from: usize,
        mut f: impl FnMut(&ChatMessage<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut at = 0;
        let mut each = |at: &mut usize, m: ChatMessage<'_>| {
            let due = *at >= from;
            *at += 1;
            if due {
                f(&m)
            } else {
                Ok(())
            }
        };
        each(&mut at, ChatMessage::text("system", self.system().text()))?;
        if let Some(rules) = self.rules() {
            each(&mut at, ChatMessage::text("system", rules))?;
        }
        // The body is walked from the first message due.
        let skip = from.saturating_sub(at);
        at += skip.min(self.body_len());
        for m in self.body_from(skip) {
            each(&mut at, chat_message(&m))?;
        }
        for (_, text) in self.tail() {
            each(&mut at, ChatMessage::text("user", text))?;
        }
        Ok(())
    }

    /// Where this window's chat messages stand ([`ChatMarks`]), to tell
    /// how many of them a later window holds unchanged.
    pub fn chat_marks(&self) -> ChatMarks {
        ChatMarks {
            system: self.system().text().to_owned(),
            rules: self.rules().map(str::to_owned),
            history: (self.history_run().name(), self.history().len()),
            input: self
                .input()
                .map(|m| serde_json::to_vec(&chat_message(m)).unwrap_or_default()),
            scratchpad: (self.scratchpad_run().name(), self.scratchpad().len()),
            alone: self.renders_alone(),
        }
    }

    /// How many of this window's leading chat messages (as
    /// [`Context::to_openai`] lists them) are, unchanged, those of the
    /// window `earlier` marks: its L1 and L2, then the history while it
    /// continues the same run, then the input and the scratchpad while
    /// those are the same. 0 when either window shows id hints, since a
    /// hint can change as the window grows.
    ///
    /// ```
    /// use strata_ctx_core::{Message, MessageRun};
    /// use strata_ctx_prompt::{Context, SystemLayer};
    ///
    /// let mut steps = MessageRun::new(vec![Message::assistant("looking")]);
    /// let window = |steps: &MessageRun| {
    ///     Context::new(SystemLayer::new("Be brief."))
    ///         .with_input(Message::user("fix it").with_created_at(None))
    ///         .with_scratchpad_run(steps.clone())
    /// };
    /// let marks = window(&steps).chat_marks();
    /// steps.extend([Message::assistant("found it")]);
    /// // L1, the input and the first step are the same; the new step is not.
    /// assert_eq!(window(&steps).unchanged_since(&marks), 3);
    /// ```
    pub fn unchanged_since(&self, earlier: &ChatMarks) -> usize {
        self.chat_marks().unchanged_since(earlier)
    }

    /// Writes [`Context::to_openai`] to `w` as JSON, byte for byte what
    /// `serde_json::to_writer(w, &context.to_openai())` writes, without
    /// building the [`Value`](serde_json::Value) or copying a message.
    ///
    /// # Errors
    ///
    /// Whatever writing to `w` returns.
    ///
    /// ```
    /// use strata_ctx_core::Message;
    /// use strata_ctx_prompt::{Context, SystemLayer};
    ///
    /// let window = Context::new(SystemLayer::new("Be brief.")).with_input(Message::user("Hi!"));
    /// let mut out = Vec::new();
    /// window.write_openai(&mut out)?;
    /// assert_eq!(out, serde_json::to_vec(&window.to_openai())?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_openai<W: std::io::Write>(&self, mut w: W) -> std::io::Result<()> {
        let mut first = true;
        w.write_all(b"[")?;
        self.try_for_each_chat_message(|m| {
            if !std::mem::take(&mut first) {
                w.write_all(b",")?;
            }
            serde_json::to_writer(&mut w, m).map_err(std::io::Error::from)
        })?;
        w.write_all(b"]")
    }
}

/// Where a window's chat messages stand ([`Context::chat_marks`]): its L1
/// and L2, the runs of its history and scratchpad by name and length, and
/// its input, so that a later window can tell how many of its leading
/// messages are the same ([`Context::unchanged_since`]) without comparing
/// them (REL-3).
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMarks {
    system: String,
    rules: Option<String>,
    history: (u64, usize),
    /// The input as rendered.
    input: Option<Vec<u8>>,
    scratchpad: (u64, usize),
    alone: bool,
}

impl ChatMarks {
    /// [`Context::unchanged_since`], with these the marks of the later
    /// window.
    pub fn unchanged_since(&self, earlier: &ChatMarks) -> usize {
        let continues = |(name, len): (u64, usize), (earlier_name, earlier_len): (u64, usize)| {
            earlier_len == 0 || (name == earlier_name && len >= earlier_len)
        };
        if !(self.alone && earlier.alone) || self.system != earlier.system || self.rules != earlier.rules {
            return 0;
        }
        let prefix = 1 + usize::from(self.rules.is_some());
        if !continues(self.history, earlier.history) {
            return prefix;
        }
        let history_end = prefix + earlier.history.1;
        if self.history.1 != earlier.history.1 || self.input != earlier.input {
            return history_end;
        }
        let scratchpad_at = history_end + usize::from(self.input.is_some());
        if !continues(self.scratchpad, earlier.scratchpad) {
            return scratchpad_at;
        }
        scratchpad_at + earlier.scratchpad.1
    }
}

/// Writes windows one after another as the chat API's `messages`, a JSON
/// array: the messages a window holds unchanged since the previous one
/// ([`Context::unchanged_since`]) are copied as they were written, and
/// only the rest is rendered, so that an agent's step costs what the step
/// added (REL-3). The bytes are those of [`Context::write_openai`].
///
/// ```
/// use strata_ctx_core::{Message, MessageRun};
/// use strata_ctx_prompt::{ChatWriter, Context, SystemLayer};
///
/// let mut steps = MessageRun::new(vec![Message::assistant("looking")]);
/// let window = |steps: &MessageRun| {
///     Context::new(SystemLayer::new("Be brief.")).with_scratchpad_run(steps.clone())
/// };
/// let mut writer = ChatWriter::new();
/// writer.write(&window(&steps));
/// steps.extend([Message::assistant("found it")]);
/// let body = writer.write(&window(&steps)).to_vec();
/// let mut whole = Vec::new();
/// window(&steps).write_openai(&mut whole)?;
/// assert_eq!(body, whole);
/// assert_eq!(writer.rendered(), 1, "only the new step was rendered");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Default, Clone)]
pub struct ChatWriter {
    /// `[`, then each message followed by `,`; the last `,` is the `]`.
    bytes: Vec<u8>,
    /// Where each message ends in `bytes`.
    ends: Vec<usize>,
    marks: Option<ChatMarks>,
    rendered: usize,
}

impl ChatWriter {
    /// A writer that has written nothing yet.
    pub fn new() -> Self {
        ChatWriter::default()
    }

    /// `window`'s messages as a JSON array.
    pub fn write(&mut self, window: &Context) -> &[u8] {
        let marks = window.chat_marks();
        let kept = self
            .marks
            .as_ref()
            .map_or(0, |earlier| marks.unchanged_since(earlier))
            .min(self.ends.len());
        self.ends.truncate(kept);
        match self.ends.last() {
            // The separator after the last message kept (it was the `]`).
            Some(&end) => {
                self.bytes.truncate(end);
                self.bytes.push(b',');
            }
            None => {
                self.bytes.clear();
                self.bytes.push(b'[');
            }
        }
        let before = self.ends.len();
        let (bytes, ends) = (&mut self.bytes, &mut self.ends);
        // Writing to memory cannot fail.
        let _ = window.try_for_each_chat_message_from(kept, |m| {
            serde_json::to_writer(&mut *bytes, m)?;
            ends.push(bytes.len());
            bytes.push(b',');
            Ok::<(), serde_json::Error>(())
        });
        self.rendered = self.ends.len() - before;
        self.marks = Some(marks);
        match self.bytes.last_mut() {
            Some(last) if *last == b',' => *last = b']',
            _ => self.bytes.push(b']'),
        }
        &self.bytes
    }

    /// The last window's messages, each as its JSON.
    pub fn messages(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(1).chain(self.ends.iter().map(|end| end + 1));
        starts
            .zip(&self.ends)
            .filter_map(|(start, &end)| self.bytes.get(start..end))
    }

    /// How many messages the last [`ChatWriter::write`] rendered, the rest
    /// being copied.
    pub fn rendered(&self) -> usize {
        self.rendered
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::step;
    use crate::SystemLayer;
    use strata_ctx_core::Message;

    /// REL-3: what a window holds unchanged since an earlier one, from
    /// the marks alone, and the walk from there gives the rest.
    #[test]
    fn rel_3_unchanged_since_follows_each_layer() {
        use strata_ctx_core::MessageRun;
        let (a, r) = step();
        let history = MessageRun::new(vec![Message::user("old task"), Message::assistant("done")]);
        let mut steps = MessageRun::new(vec![a.clone(), r.clone()]);
        let window = |history: &MessageRun, steps: &MessageRun, input: &str| {
            Context::new(SystemLayer::new("s"))
                .with_rules("rules")
                .with_history_run(history.clone())
                .with_input(Message::user(input).with_created_at(None))
                .with_scratchpad_run(steps.clone())
                .with_recap(Some("[Todo recap] 1 done".into()))
        };
        let marks = window(&history, &steps, "task").chat_marks();
        // L1, L2, 2 history, the input, 2 steps: 7 unchanged, the recap not.
        assert_eq!(window(&history, &steps, "task").unchanged_since(&marks), 7);
        steps.extend([a.clone(), r.clone()]);
        let grown = window(&history, &steps, "task");
        assert_eq!(grown.unchanged_since(&marks), 7);
        let mut walked = Vec::new();
        grown
            .try_for_each_chat_message_from(7, |m| {
                walked.push(serde_json::to_value(m)?);
                Ok::<(), serde_json::Error>(())
            })
            .unwrap();
        assert_eq!(walked, grown.to_openai().as_array().unwrap()[7..]);
        // The input changed: the history still holds.
        assert_eq!(window(&history, &steps, "other").unchanged_since(&marks), 4);
        // Another scratchpad run: up to the input.
        let other = MessageRun::new(steps.to_vec());
        assert_eq!(window(&history, &other, "task").unchanged_since(&marks), 5);
        // Another history: L1 and L2 only.
        let rewritten = MessageRun::new(history.to_vec());
        assert_eq!(window(&rewritten, &steps, "task").unchanged_since(&marks), 2);
        // The history grew: what follows it moved.
        let mut longer = history.clone();
        longer.extend([Message::user("more")]);
        let marks_of_history = window(&history, &steps, "task").chat_marks();
        assert!(window(&longer, &steps, "task").unchanged_since(&marks_of_history) <= 4);
        // Other rules, or id hints: nothing.
        let ruled = Context::new(SystemLayer::new("s")).with_rules("other rules");
        assert_eq!(ruled.unchanged_since(&marks), 0);
        let hinted = window(&history, &steps, "task").with_id_hints(Some(strata_ctx_core::ShortIds::new([])));
        assert_eq!(hinted.unchanged_since(&marks), 0);
    }

    /// REL-3: the writer's body and its messages are the window's, and it
    /// renders only what a window added.
    #[test]
    fn rel_3_a_chat_writer_renders_what_was_added() {
        use strata_ctx_core::MessageRun;
        let (a, r) = step();
        let mut steps = MessageRun::new(vec![a.clone(), r.clone()]);
        let window = |steps: &MessageRun| {
            Context::new(SystemLayer::new("s"))
                .with_input(Message::user("go").with_created_at(None))
                .with_scratchpad_run(steps.clone())
                .with_recap(Some("[Todo recap] 1 done".into()))
        };
        let mut writer = ChatWriter::new();
        let first = writer.write(&window(&steps)).to_vec();
        assert_eq!(first, serde_json::to_vec(&window(&steps).to_openai()).unwrap());
        assert_eq!(writer.rendered(), 5, "everything, the first time");
        steps.extend([a.clone(), r.clone()]);
        let grown = window(&steps);
        assert_eq!(
            writer.write(&grown),
            &serde_json::to_vec(&grown.to_openai()).unwrap()[..]
        );
        assert_eq!(writer.rendered(), 3, "the new step and the recap");
        let each: Vec<serde_json::Value> = writer
            .messages()
            .map(|m| serde_json::from_slice(m).unwrap())
            .collect();
        assert_eq!(serde_json::Value::Array(each), grown.to_openai());
        // The same window again: only the recap, after the last message.
        assert_eq!(
            writer.write(&grown),
            &serde_json::to_vec(&grown.to_openai()).unwrap()[..]
        );
        assert_eq!(writer.rendered(), 1);
    }
}

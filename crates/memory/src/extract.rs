//! Extraction of long-term facts by a model (MEM-2).

use std::time::Duration;

use serde_json::Value;
use strata_ctx_core::{LlmClient, LlmRequest, Message};
use strata_ctx_prompts as prompts;

use crate::longterm::{LongTermMemory, MemoryChange, MemoryError};

type Result<T, E = MemoryError> = std::result::Result<T, E>;

impl LongTermMemory {
    /// Asks `client` which facts the conversation `round` teaches about the
    /// user (the prompt [`prompts::MEMORY_EXTRACT`]) and applies its answer:
    /// new facts saved, contradicted or refined ones updated, those no
    /// longer true forgotten. Returns what changed.
    ///
    /// # Errors
    ///
    /// [`MemoryError::Model`] when the call fails, takes longer than
    /// `timeout`, or answers with something else than the asked JSON, or
    /// names an unknown id: nothing is changed then. [`MemoryError::Io`]
    /// when writing fails (what was written stands).
    pub async fn extract(
        &mut self,
        client: &dyn LlmClient,
        round: &[Message],
        timeout: Duration,
    ) -> Result<Vec<MemoryChange>> {
        let facts: Vec<String> = self
            .facts()
            .iter()
            .map(|f| format!("{}: {}", f.id, f.text))
            .collect();
        let facts = if facts.is_empty() {
            "(nothing yet)".to_owned()
        } else {
            facts.join("\n")
        };
        let mut messages = vec![Message::system(prompts::fill(
            prompts::MEMORY_EXTRACT,
            &[("facts", &facts)],
        ))];
        messages.extend(round.iter().cloned());
        let text = ask(client, messages, timeout).await?;
        self.apply_extraction(&text)
    }

    /// Applies an answer in the form [`LongTermMemory::extract`] asks for.
    /// The whole answer is checked before anything is written.
    ///
    /// # Errors
    ///
    /// As [`LongTermMemory::extract`].
    pub fn apply_extraction(&mut self, answer: &str) -> Result<Vec<MemoryChange>> {
        let bad = |reason: String| MemoryError::Model { reason };
        let value: Value = serde_json::from_str(json_part(answer, '{', '}'))
            .map_err(|e| bad(format!("not the asked JSON object ({e})")))?;
        let texts = |key: &str| -> Result<Vec<String>> {
            match value.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| {
                        i.as_str()
                            .map(str::to_owned)
                            .ok_or_else(|| bad(format!("`{key}` holds {i}, not a string")))
                    })
                    .collect(),
                Some(other) => Err(bad(format!("`{key}` is {other}, not a list"))),
            }
        };
        let save = texts("save")?;
        let forget = texts("forget")?;
        let mut update = Vec::new();
        for item in value
            .get("update")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (Some(id), Some(text)) = (
                item.get("id").and_then(Value::as_str),
                item.get("text").and_then(Value::as_str),
            ) else {
                return Err(bad(format!("an update without an id and a text: {item}")));
            };
            update.push((id.to_owned(), text.to_owned()));
        }
        if let Some(id) = forget
            .iter()
            .chain(update.iter().map(|(id, _)| id))
            .find(|id| self.get(id).is_none())
        {
            return Err(bad(format!("it names the unknown fact `{id}`")));
        }
        let mut changes = Vec::new();
        for (id, text) in &update {
            if !text.trim().is_empty() {
                changes.push(self.update(id, text)?);
            }
        }
        for id in &forget {
            if self.get(id).is_some() {
                changes.push(self.forget(id)?);
            }
        }
        for text in save.iter().filter(|t| !t.trim().is_empty()) {
            changes.push(self.save(text)?);
        }
        Ok(changes)
    }
}

/// Asks `client` with `messages` within `timeout`; the answer's text.
pub(crate) async fn ask(client: &dyn LlmClient, messages: Vec<Message>, timeout: Duration) -> Result<String> {
    let call = client.complete(LlmRequest::new(messages));
    match tokio::time::timeout(timeout, call).await {
        Ok(Ok(answer)) => Ok(answer.text),
        Ok(Err(e)) => Err(MemoryError::Model {
            reason: e.to_string(),
        }),
        Err(_) => Err(MemoryError::Model {
            reason: format!("no answer within {} ms", timeout.as_millis()),
        }),
    }
}

/// The part of `text` from the first `open` to the last `close` (models
/// wrap JSON in prose or code fences).
pub(crate) fn json_part(text: &str, open: char, close: char) -> &str {
    match (text.find(open), text.rfind(close)) {
        (Some(a), Some(b)) if a < b => &text[a..=b],
        _ => text,
    }
}

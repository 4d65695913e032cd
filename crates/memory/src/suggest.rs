//! Follow-up suggestions after a round (MEM-3).

use std::time::Duration;

use serde_json::Value;
use strata_ctx_core::{LlmClient, Message};
use strata_ctx_prompts as prompts;

use crate::extract::{ask, json_part};
use crate::longterm::MemoryError;
use crate::rank::overlap;

/// How alike two suggestions may be before the later one counts as a
/// repeat.
const REPEAT: f64 = 0.8;
/// The longest suggestion, in characters.
const MAX_CHARS: usize = 100;

/// Why no suggestion came.
pub type SuggestError = MemoryError;

/// Asks `client` for `count` (2 to 4) follow-up inputs the user might
/// send after `conversation` (the prompt [`prompts::SUGGESTIONS`]), and
/// returns those that repeat neither each other nor `earlier`, at most
/// `count`, each one line.
///
/// # Errors
///
/// [`MemoryError::Model`] when the call fails, takes longer than
/// `timeout`, or answers with something else than a JSON list of strings.
pub async fn suggest(
    client: &dyn LlmClient,
    conversation: &[Message],
    earlier: &[String],
    count: usize,
    timeout: Duration,
) -> Result<Vec<String>, SuggestError> {
    let count = count.clamp(2, 4);
    let listed = if earlier.is_empty() {
        "(none)".to_owned()
    } else {
        earlier.join("\n")
    };
    let mut messages = vec![Message::system(prompts::fill(
        prompts::SUGGESTIONS,
        &[("count", &count.to_string()), ("earlier", &listed)],
    ))];
    messages.extend(conversation.iter().cloned());
    let text = ask(client, messages, timeout).await?;
    let value: Value = serde_json::from_str(json_part(&text, '[', ']')).map_err(|e| MemoryError::Model {
        reason: format!("not a JSON list ({e})"),
    })?;
    let items = value.as_array().ok_or_else(|| MemoryError::Model {
        reason: "not a JSON list".into(),
    })?;
    Ok(dedupe(items.iter().filter_map(Value::as_str), earlier, count))
}

/// The first `count` of `candidates` that repeat neither an earlier one
/// nor one kept before them, each on one line and at most 100 characters.
pub(crate) fn dedupe<'a>(
    candidates: impl Iterator<Item = &'a str>,
    earlier: &[String],
    count: usize,
) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for candidate in candidates {
        let line: String = candidate.split_whitespace().collect::<Vec<_>>().join(" ");
        let line: String = line.chars().take(MAX_CHARS).collect();
        if line.is_empty()
            || earlier
                .iter()
                .chain(kept.iter())
                .any(|e| overlap(e, &line) >= REPEAT)
        {
            continue;
        }
        kept.push(line);
        if kept.len() == count {
            break;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_ctx_core::{LlmRequest, LlmResponse, LlmResult, Usage};

    struct Says(&'static str, Duration);

    #[async_trait::async_trait]
    impl LlmClient for Says {
        async fn complete(&self, _: LlmRequest) -> LlmResult<LlmResponse> {
            tokio::time::sleep(self.1).await;
            Ok(LlmResponse::new(self.0, Usage::new(1, 1)))
        }
    }

    /// Time is paused: the timeouts run on tokio's clock, not the machine's.
    #[tokio::test(start_paused = true)]
    async fn mem_3_suggestions_deduped_bounded_and_timed() {
        let talk = [Message::user("Fix the parser."), Message::assistant("Fixed.")];
        let earlier = vec!["Run the tests again".to_owned()];
        let says = Says(
            "[\"Run the tests again.\", \"Add a test for tabs\", \"add a test for TABS\", \"Explain the fix\", \"Open a PR\", \"Ship it\"]",
            Duration::ZERO,
        );
        let got = suggest(&says, &talk, &earlier, 3, Duration::from_secs(1))
            .await
            .unwrap();
        assert_eq!(got, ["Add a test for tabs", "Explain the fix", "Open a PR"]);
        let one = suggest(&says, &talk, &[], 1, Duration::from_secs(1))
            .await
            .unwrap();
        assert_eq!(one.len(), 2, "at least two are asked for");
        let slow = Says("[\"x\"]", Duration::from_secs(5));
        assert!(suggest(&slow, &talk, &[], 2, Duration::from_millis(20))
            .await
            .is_err());
        assert!(suggest(
            &Says("sure!", Duration::ZERO),
            &talk,
            &[],
            2,
            Duration::from_secs(1)
        )
        .await
        .is_err());
    }
}

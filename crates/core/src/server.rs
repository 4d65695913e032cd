//! The providers' own context management (MODEL-7): what the engine asks
//! the provider to clear or compact on its side, what the provider says it
//! did, and the items it returns that must go back to it verbatim.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// What the engine delegates to the model provider (MODEL-7), the one
/// switch of [`Config::server_context`](crate::Config::server_context).
///
/// | Mode | Anthropic Messages API | OpenAI Responses API |
/// |---|---|---|
/// | `off` | nothing sent | nothing sent |
/// | `clear` | `clear_tool_uses_20250919` (and `clear_thinking_20251015` with extended thinking) | not offered |
/// | `compact` | `compact_20260112` | `context_management` `compaction` |
/// | `both` | both edits | not offered |
///
/// OpenAI's chat completions offer none of them. A client says what it
/// offers with [`LlmClient::manages_context`](crate::LlmClient::manages_context);
/// the engine refuses to send a mode the client does not offer rather than
/// silently managing nothing.
///
/// ```
/// use strata_ctx_core::ServerContext;
///
/// assert_eq!("compact".parse::<ServerContext>()?, ServerContext::Compact);
/// assert_eq!(ServerContext::Both.to_string(), "both");
/// assert!(ServerContext::Both.clears() && ServerContext::Both.compacts());
/// assert!("sometimes".parse::<ServerContext>().is_err());
/// # Ok::<(), strata_ctx_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerContext {
    /// The engine manages the window alone. The default.
    #[default]
    Off,
    /// The provider clears old tool results (and old reasoning).
    Clear,
    /// The provider compacts the conversation into its own summary.
    Compact,
    /// The provider clears, then compacts when clearing is not enough.
    Both,
}

impl ServerContext {
    /// Whether the mode asks the provider to clear old tool results.
    pub fn clears(self) -> bool {
        matches!(self, ServerContext::Clear | ServerContext::Both)
    }

    /// Whether the mode asks the provider to compact.
    pub fn compacts(self) -> bool {
        matches!(self, ServerContext::Compact | ServerContext::Both)
    }

    /// Whether anything is delegated.
    pub fn is_on(self) -> bool {
        self != ServerContext::Off
    }

    /// The mode as written in configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerContext::Off => "off",
            ServerContext::Clear => "clear",
            ServerContext::Compact => "compact",
            ServerContext::Both => "both",
        }
    }
}

impl fmt::Display for ServerContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ServerContext {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "none" | "false" => Ok(ServerContext::Off),
            "clear" => Ok(ServerContext::Clear),
            "compact" => Ok(ServerContext::Compact),
            "both" | "clear+compact" => Ok(ServerContext::Both),
            _ => Err(Error::config(
                "server_context",
                format!("`{s}` is not off, clear, compact or both"),
            )),
        }
    }
}

/// The provider-side context management one request asks for (MODEL-7);
/// the engine fills it from its configuration and clients write it in
/// their provider's form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContextEdits {
    /// What to delegate.
    pub mode: ServerContext,
    /// The input tokens at which the provider acts.
    pub trigger_tokens: u64,
    /// The newest tool uses clearing keeps.
    pub keep_tool_uses: u32,
    /// The fewest input tokens one clearing must free to be worth breaking
    /// the provider's prompt cache; `None` leaves it to the provider.
    pub clear_at_least: Option<u64>,
    /// Tools whose results are never cleared (protected tools, HIST-15).
    pub exclude_tools: Vec<String>,
}

impl ContextEdits {
    /// Edits of `mode` acting at `trigger_tokens`, keeping the newest 3
    /// tool uses, with nothing excluded.
    pub fn new(mode: ServerContext, trigger_tokens: u64) -> Self {
        ContextEdits {
            mode,
            trigger_tokens,
            keep_tool_uses: 3,
            clear_at_least: None,
            exclude_tools: Vec::new(),
        }
    }

    /// Sets how many of the newest tool uses clearing keeps. By default, 3.
    pub fn with_keep_tool_uses(mut self, keep: u32) -> Self {
        self.keep_tool_uses = keep;
        self
    }

    /// Sets the fewest tokens one clearing must free. By default, the
    /// provider's choice.
    pub fn with_clear_at_least(mut self, tokens: u64) -> Self {
        self.clear_at_least = Some(tokens);
        self
    }

    /// Sets the tools whose results are never cleared. By default, none.
    pub fn with_exclude_tools(mut self, tools: Vec<String>) -> Self {
        self.exclude_tools = tools;
        self
    }
}

/// Which edit the provider applied.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EditKind {
    /// Old tool results (and perhaps their calls) were replaced by a
    /// placeholder.
    ClearToolUses,
    /// Old reasoning blocks were dropped.
    ClearThinking,
    /// The conversation before the answer was compacted into the
    /// provider's summary, returned as a [`ProviderItem`].
    Compaction,
    /// Another edit, by the provider's name for it.
    Other(String),
}

impl EditKind {
    /// Reads a provider's name of an edit (`clear_tool_uses_20250919`,
    /// `clear_thinking_20251015`, `compact_20260112`, `compaction`).
    pub fn parse(name: &str) -> Self {
        if name.starts_with("clear_tool_uses") {
            EditKind::ClearToolUses
        } else if name.starts_with("clear_thinking") {
            EditKind::ClearThinking
        } else if name.starts_with("compact") {
            EditKind::Compaction
        } else {
            EditKind::Other(name.to_owned())
        }
    }
}

/// One edit the provider says it applied to a request before the model
/// read it (MODEL-7), with the counts it reported (0 when it gave none).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AppliedEdit {
    /// The edit.
    pub kind: EditKind,
    /// Tool uses cleared.
    #[serde(default)]
    pub cleared_tool_uses: u64,
    /// Assistant turns whose reasoning was cleared.
    #[serde(default)]
    pub cleared_thinking_turns: u64,
    /// Input tokens the edit removed.
    #[serde(default)]
    pub cleared_input_tokens: u64,
}

impl AppliedEdit {
    /// An edit of `kind` with no counts.
    pub fn new(kind: EditKind) -> Self {
        AppliedEdit {
            kind,
            cleared_tool_uses: 0,
            cleared_thinking_turns: 0,
            cleared_input_tokens: 0,
        }
    }
}

/// Which provider a [`ProviderItem`] belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Provider {
    /// The Anthropic Messages API: the item is a content block of the
    /// assistant message.
    Anthropic,
    /// The OpenAI Responses API: the item is an input item sent before
    /// the assistant message's own items.
    OpenAi,
}

/// Something a provider returned with an answer that it requires back
/// verbatim on later requests (MODEL-7): Anthropic's `compaction` block,
/// OpenAI's `compaction` and `reasoning` items. Kept on the assistant
/// message ([`Message::provider_items`](crate::Message::provider_items)),
/// written to the conversation log as it came, and sent back only to the
/// provider it came from.
///
/// ```
/// use serde_json::json;
/// use strata_ctx_core::{Provider, ProviderItem};
///
/// let item = ProviderItem::new(Provider::Anthropic, json!({"type": "compaction", "content": "So far: …"}));
/// assert!(item.is_compaction());
/// assert_eq!(item.readable_text(), Some("So far: …"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderItem {
    /// The provider that returned it.
    pub provider: Provider,
    /// The block or item, exactly as the provider wrote it.
    pub item: Value,
}

impl ProviderItem {
    /// An item of `provider`.
    pub fn new(provider: Provider, item: Value) -> Self {
        ProviderItem { provider, item }
    }

    /// The item's `type`.
    pub fn kind(&self) -> &str {
        self.item.get("type").and_then(Value::as_str).unwrap_or_default()
    }

    /// Whether the item stands for a compacted conversation.
    pub fn is_compaction(&self) -> bool {
        self.kind() == "compaction"
    }

    /// The part of the item the model reads as text, when it is readable
    /// (Anthropic's compaction summary); `None` for opaque items.
    pub fn readable_text(&self) -> Option<&str> {
        self.item.get("content").and_then(Value::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn model_7_modes_round_trip() {
        for mode in [
            ServerContext::Off,
            ServerContext::Clear,
            ServerContext::Compact,
            ServerContext::Both,
        ] {
            assert_eq!(mode.as_str().parse::<ServerContext>().unwrap(), mode);
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{mode}\""));
        }
        assert!(!ServerContext::Off.is_on());
        assert!(ServerContext::Clear.clears() && !ServerContext::Clear.compacts());
    }

    #[test]
    fn model_7_edit_names_read() {
        assert_eq!(
            EditKind::parse("clear_tool_uses_20250919"),
            EditKind::ClearToolUses
        );
        assert_eq!(
            EditKind::parse("clear_thinking_20251015"),
            EditKind::ClearThinking
        );
        assert_eq!(EditKind::parse("compaction"), EditKind::Compaction);
        assert_eq!(EditKind::parse("fold_99"), EditKind::Other("fold_99".into()));
    }

    #[test]
    fn model_7_opaque_items_have_no_text() {
        let item = ProviderItem::new(
            Provider::OpenAi,
            json!({"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAA"}),
        );
        assert!(item.is_compaction());
        assert_eq!(item.readable_text(), None);
        let back: ProviderItem = serde_json::from_str(&serde_json::to_string(&item).unwrap()).unwrap();
        assert_eq!(back, item);
    }
}

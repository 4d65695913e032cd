//! An exact [`TokenCounter`] backed by OpenAI's BPE tokenizers (EDGE-2).
//!
//! [`TiktokenCounter`] counts with `o200k_base` (GPT-4o, GPT-4.1, o-series,
//! GPT-5) or `cl100k_base` (GPT-4, GPT-3.5), through
//! [`tiktoken-rs`](https://docs.rs/tiktoken-rs). Building an encoder reads
//! and indexes about 200,000 merge ranks, which takes a noticeable fraction
//! of a second, so each encoding is built once per process, on first use,
//! and shared by every counter.
//!
//! Messages are counted the way OpenAI's chat format frames them: three
//! tokens of framing, the role, and everything the model reads of the
//! message ([`message_model_text`]). Wrap the counter in
//! [`CachedCounter`] (or use [`TiktokenCounter::cached`]) so that messages
//! that stay in the window are not encoded again on every call.
//!
//! # Example
//!
//! ```
//! use strata_ctx_core::{Message, TokenCounter};
//! use strata_ctx_tiktoken::{Encoding, TiktokenCounter};
//!
//! let counter = TiktokenCounter::new(Encoding::Cl100kBase)?;
//! assert_eq!(counter.count_text("tiktoken is great!"), 6);
//! // 3 of framing, 1 for the role, 6 for the text.
//! assert_eq!(counter.count_message(&Message::user("tiktoken is great!")), 10);
//!
//! // The encoding for a model name.
//! assert_eq!(Encoding::for_model("gpt-4o-mini"), Encoding::O200kBase);
//! # Ok::<(), strata_ctx_tiktoken::Error>(())
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use strata_ctx_core::{message_model_text, CachedCounter, Message, TokenCounter};
use tiktoken_rs::CoreBPE;

/// The tokens of framing OpenAI's chat format adds to every message
/// (the start and end markers around it).
pub const TOKENS_PER_MESSAGE: usize = 3;

/// An OpenAI BPE encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// `o200k_base`: GPT-4o, GPT-4.1, the o-series and GPT-5.
    O200kBase,
    /// `cl100k_base`: GPT-4, GPT-3.5-turbo and the `text-embedding-3`
    /// models.
    Cl100kBase,
}

impl Encoding {
    /// The encoding's name, as OpenAI spells it (`o200k_base`).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// The encoding a model uses, from its name: `cl100k_base` for the
    /// GPT-4 and GPT-3.5 families (but not `gpt-4o` or `gpt-4.1`) and the
    /// embedding models, `o200k_base` for everything else, newer models
    /// included.
    ///
    /// ```
    /// use strata_ctx_tiktoken::Encoding;
    ///
    /// assert_eq!(Encoding::for_model("gpt-4-turbo"), Encoding::Cl100kBase);
    /// assert_eq!(Encoding::for_model("gpt-4.1-mini"), Encoding::O200kBase);
    /// assert_eq!(Encoding::for_model("o3"), Encoding::O200kBase);
    /// ```
    pub fn for_model(model: &str) -> Encoding {
        let model = model.trim().to_ascii_lowercase();
        // Provider prefixes such as `openai/gpt-4`.
        let model = model.rsplit('/').next().unwrap_or(&model);
        let gpt4_family =
            model.starts_with("gpt-4") && !model.starts_with("gpt-4o") && !model.starts_with("gpt-4.");
        if gpt4_family || model.starts_with("gpt-3.5") || model.starts_with("text-embedding") {
            Encoding::Cl100kBase
        } else {
            Encoding::O200kBase
        }
    }

    /// The process-wide encoder, built on first use.
    fn bpe(self) -> Result<&'static CoreBPE, Error> {
        static O200K: OnceLock<Result<CoreBPE, String>> = OnceLock::new();
        static CL100K: OnceLock<Result<CoreBPE, String>> = OnceLock::new();
        let cell = match self {
            Encoding::O200kBase => O200K.get_or_init(|| tiktoken_rs::o200k_base().map_err(|e| e.to_string())),
            Encoding::Cl100kBase => {
                CL100K.get_or_init(|| tiktoken_rs::cl100k_base().map_err(|e| e.to_string()))
            }
        };
        cell.as_ref().map_err(|message| Error::Load {
            encoding: self,
            message: message.clone(),
        })
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = Error;

    /// Parses `o200k_base` or `cl100k_base` (case-insensitive; `o200k`
    /// and `cl100k` are accepted too).
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "o200k_base" | "o200k" => Ok(Encoding::O200kBase),
            "cl100k_base" | "cl100k" => Ok(Encoding::Cl100kBase),
            _ => Err(Error::UnknownEncoding { name: s.to_owned() }),
        }
    }
}

/// What can go wrong when choosing or building an encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The name is not one of the supported encodings.
    #[error("unknown encoding `{name}`: expected o200k_base or cl100k_base")]
    UnknownEncoding {
        /// The name as it was given.
        name: String,
    },
    /// The tokenizer could not be built from its embedded ranks.
    #[error("cannot build the {encoding} tokenizer: {message}")]
    Load {
        /// The encoding concerned.
        encoding: Encoding,
        /// The tokenizer's explanation.
        message: String,
    },
}

/// A [`TokenCounter`] that counts exactly what an OpenAI model would.
///
/// Cheap to create and to clone: every counter of an encoding shares one
/// encoder. Text is encoded as ordinary text: special-token markers such
/// as `<|endoftext|>` inside a message count as the characters they are,
/// as the chat API treats them.
#[derive(Clone, Copy)]
pub struct TiktokenCounter {
    encoding: Encoding,
    bpe: &'static CoreBPE,
}

impl TiktokenCounter {
    /// A counter for `encoding`, building its encoder if this is the first
    /// use in the process.
    ///
    /// # Errors
    ///
    /// [`Error::Load`] if the encoder cannot be built (the ranks embedded
    /// in `tiktoken-rs` are unreadable; in practice, never).
    pub fn new(encoding: Encoding) -> Result<Self, Error> {
        Ok(TiktokenCounter {
            encoding,
            bpe: encoding.bpe()?,
        })
    }

    /// A counter for the encoding of `model` (see [`Encoding::for_model`]).
    ///
    /// # Errors
    ///
    /// As [`TiktokenCounter::new`].
    pub fn for_model(model: &str) -> Result<Self, Error> {
        TiktokenCounter::new(Encoding::for_model(model))
    }

    /// A counter for `encoding` that remembers each message's count, so
    /// that messages that stay in the window are encoded once.
    ///
    /// # Errors
    ///
    /// As [`TiktokenCounter::new`].
    pub fn cached(encoding: Encoding) -> Result<CachedCounter<Self>, Error> {
        Ok(CachedCounter::new(TiktokenCounter::new(encoding)?))
    }

    /// The counter's encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The token ids of `text`, encoded as ordinary text.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        self.bpe.encode_ordinary(text)
    }
}

impl fmt::Debug for TiktokenCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TiktokenCounter")
            .field("encoding", &self.encoding)
            .finish()
    }
}

impl TokenCounter for TiktokenCounter {
    fn count_text(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        self.bpe.encode_ordinary(text).len()
    }

    /// [`TOKENS_PER_MESSAGE`], plus the role, plus everything the model
    /// reads of the message ([`message_model_text`]), as OpenAI counts a
    /// chat message. A tool result also carries its call id.
    fn count_message(&self, message: &Message) -> usize {
        let mut n = TOKENS_PER_MESSAGE + self.count_text(message.role.as_str());
        n += self.count_text(&message_model_text(message));
        if let Some(id) = &message.tool_call_id {
            n += self.count_text(id);
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::{ToolCall, ToolResult};

    fn cl100k() -> TiktokenCounter {
        TiktokenCounter::new(Encoding::Cl100kBase).unwrap()
    }

    fn o200k() -> TiktokenCounter {
        TiktokenCounter::new(Encoding::O200kBase).unwrap()
    }

    // EDGE-2: token ids published with OpenAI's tokenizer and tiktoken's
    // own tests.
    #[test]
    fn edge_2_cl100k_known_ids() {
        let c = cl100k();
        assert_eq!(c.encode("hello world"), [15339, 1917]);
        assert_eq!(
            c.encode("Hello, how are you doing today?"),
            [9906, 11, 1268, 527, 499, 3815, 3432, 30]
        );
        assert_eq!(c.encode("China is great!"), [23078, 374, 2294, 0]);
        assert_eq!(c.count_text("tiktoken is great!"), 6);
        assert_eq!(c.count_text(""), 0);
    }

    #[test]
    fn edge_2_o200k_known_ids() {
        let o = o200k();
        assert_eq!(o.encode("hello world"), [24912, 2375]);
        assert_eq!(o.count_text("tiktoken is great!"), 6);
    }

    #[test]
    fn special_tokens_are_ordinary_text() {
        let c = cl100k();
        // As text, `<|endoftext|>` is several tokens, never the single
        // special token 100257.
        let ids = c.encode("hello <|endoftext|>");
        assert!(ids.len() > 3, "{ids:?}");
        assert!(!ids.contains(&100257));
    }

    #[test]
    fn message_framing() {
        let c = cl100k();
        // 3 of framing + "user" (1) + "tiktoken is great!" (6)
        assert_eq!(c.count_message(&Message::user("tiktoken is great!")), 10);
        let call = ToolCall::new("call_1", "Read", json!({"path": "a.rs"}));
        let with_call = c.count_message(&Message::assistant_with_calls("Let me look.", vec![call.clone()]));
        let without = c.count_message(&Message::assistant("Let me look."));
        assert!(with_call > without + 5, "{with_call} vs {without}");
        let result = Message::tool_result(&call, ToolResult::success("fn main() {}"));
        assert!(c.count_message(&result) > TOKENS_PER_MESSAGE + c.count_text("fn main() {}"));
    }

    #[test]
    fn encodings_differ_and_are_shared() {
        let text = "Strata 把工具输出压缩后再放进历史。";
        assert_ne!(cl100k().encode(text), o200k().encode(text));
        // Two counters share one encoder.
        assert!(std::ptr::eq(cl100k().bpe, cl100k().bpe));
    }

    #[test]
    fn names_and_models() {
        assert_eq!("O200K_BASE".parse::<Encoding>().unwrap(), Encoding::O200kBase);
        assert_eq!("cl100k".parse::<Encoding>().unwrap(), Encoding::Cl100kBase);
        let err = "p50k_base".parse::<Encoding>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown encoding `p50k_base`: expected o200k_base or cl100k_base"
        );
        assert_eq!(Encoding::for_model("gpt-4"), Encoding::Cl100kBase);
        assert_eq!(Encoding::for_model("openai/gpt-3.5-turbo"), Encoding::Cl100kBase);
        assert_eq!(Encoding::for_model("gpt-4o"), Encoding::O200kBase);
        assert_eq!(Encoding::for_model("gpt-5"), Encoding::O200kBase);
        assert_eq!(Encoding::for_model("some-local-model"), Encoding::O200kBase);
        assert_eq!(Encoding::O200kBase.to_string(), "o200k_base");
    }

    #[test]
    fn cached_counter_agrees() {
        let cached = TiktokenCounter::cached(Encoding::O200kBase).unwrap();
        let m = Message::user("The same message, counted twice.");
        let first = cached.count_message(&m);
        assert_eq!(cached.count_message(&m), first);
        assert_eq!(first, o200k().count_message(&m));
        assert_eq!(cached.cached(), 1);
    }
}

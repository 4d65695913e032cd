//! Message ids (CORE-2) and their short forms.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

use crate::error::{Error, Result};

/// The number of hex characters of a short id when nothing collides.
pub const SHORT_ID_LEN: usize = 8;

/// The namespace of ids derived with [`MessageId::derived`].
const DERIVED_NAMESPACE: Uuid = Uuid::from_u128(0x5f2c_7a4e_3b1d_4e8f_9a6b_2c0d_8e7f_1a3b);

/// A message id: 128 random bits, written as a UUID v4
/// (`1b4e28ba-2fa1-41d2-883f-0016d3cca427`).
///
/// Ids order and hash by their bits. The first [`SHORT_ID_LEN`] hex
/// characters form the short id that the model can use to name a message;
/// [`ShortIds`] lengthens them where two ids of one conversation share a
/// prefix.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MessageId(Uuid);

impl MessageId {
    /// A new random id (UUID v4).
    pub fn new() -> Self {
        MessageId(Uuid::new_v4())
    }

    /// The id with exactly these 128 bits. Meant for tests and for id
    /// sources that must be reproducible.
    pub const fn from_u128(bits: u128) -> Self {
        MessageId(Uuid::from_u128(bits))
    }

    /// The id's 128 bits.
    pub const fn as_u128(&self) -> u128 {
        self.0.as_u128()
    }

    /// An id derived from a name: the same name always gives the same id
    /// (UUID v5 in a namespace of Strata's). Used where a message is made up
    /// by the library, e.g. the synthetic result of an interrupted tool call,
    /// so that rebuilding a window gives the same bytes.
    pub fn derived(name: &str) -> Self {
        MessageId(Uuid::new_v5(&DERIVED_NAMESPACE, name.as_bytes()))
    }

    /// The id of the message at `index` of an imported conversation
    /// (`source` names the format and where in it): a UUID v8 made of the
    /// position and a fast hash of the source, the role, the content's
    /// length and its first 64 bytes, with the position mixed into the
    /// hash too, so that the short ids of two similar messages differ in
    /// their first characters as random ids would. Reading the same file
    /// twice gives the same ids, two positions of one source never share
    /// an id, and no content is hashed whole, so importing costs the same
    /// per message however long the messages are.
    ///
    /// ```
    /// use strata_ctx_core::MessageId;
    ///
    /// let a = MessageId::imported("log.json", 3, "tool", "ok");
    /// let b = MessageId::imported("log.json", 5, "tool", "ok");
    /// assert_ne!(a.short(), b.short(), "similar messages, other short ids");
    /// assert_eq!(a, MessageId::imported("log.json", 3, "tool", "ok"));
    /// ```
    pub fn imported(source: &str, index: usize, role: &str, content: &str) -> Self {
        let bytes = content.as_bytes();
        let head = &bytes[..bytes.len().min(64)];
        let mut key = fnv1a(source.as_bytes()) ^ fnv1a(role.as_bytes()).rotate_left(21);
        key ^= (bytes.len() as u64).rotate_left(42) ^ fnv1a(head).rotate_left(7);
        key ^= splitmix64(index as u64).rotate_left(13);
        let mut raw = [0u8; 16];
        raw[..8].copy_from_slice(&splitmix64(key).to_be_bytes());
        // The position in the low half keeps ids of one source distinct
        // (UUID v8 overwrites only the top bits of byte 8).
        raw[8..].copy_from_slice(&(index as u64).to_be_bytes());
        MessageId(Uuid::new_v8(raw))
    }

    /// The 32 hex characters of the id without hyphens.
    pub fn to_hex(&self) -> String {
        self.0.simple().to_string()
    }

    /// The default short id: the first [`SHORT_ID_LEN`] hex characters.
    /// Inside a conversation use [`ShortIds`], which lengthens it where it
    /// would collide.
    pub fn short(&self) -> String {
        let mut hex = self.to_hex();
        hex.truncate(SHORT_ID_LEN);
        hex
    }
}

impl Default for MessageId {
    /// A new random id, as [`MessageId::new`].
    fn default() -> Self {
        MessageId::new()
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.hyphenated(), f)
    }
}

impl fmt::Debug for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MessageId({})", self.0.hyphenated())
    }
}

impl FromStr for MessageId {
    type Err = Error;

    /// Parses the hyphenated or the simple (32 hex characters) form.
    fn from_str(s: &str) -> Result<Self> {
        Uuid::parse_str(s)
            .map(MessageId)
            .map_err(|_| Error::InvalidMessageId { value: s.to_owned() })
    }
}

impl Serialize for MessageId {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0.hyphenated())
    }
}

impl<'de> Deserialize<'de> for MessageId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The hint appended to a rendered message so that the model can name it
/// (HIST-10): `[message_id: 1b4e28ba]`.
///
/// ```
/// assert_eq!(strata_ctx_core::id_hint("1b4e28ba"), "[message_id: 1b4e28ba]");
/// ```
pub fn id_hint(short_id: &str) -> String {
    format!("[message_id: {short_id}]")
}

/// The short ids of one conversation, each the shortest prefix (at least
/// [`SHORT_ID_LEN`] hex characters) that no other id of the set shares
/// (CORE-2), and the reverse lookup.
///
/// Building costs one sort; [`ShortIds::short`] and [`ShortIds::resolve`]
/// are binary searches.
///
/// # Example
///
/// ```
/// use strata_ctx_core::{MessageId, ShortIds};
///
/// let a = MessageId::from_u128(0x1234_5678_9abc_0000_0000_0000_0000_0001);
/// let b = MessageId::from_u128(0x1234_5678_9abd_0000_0000_0000_0000_0002);
/// let ids = ShortIds::new([a, b]);
/// assert_eq!(ids.short(&a).as_deref(), Some("123456789abc"));
/// assert_eq!(ids.resolve("123456789abd")?, b);
/// assert!(ids.resolve("12345678").is_err()); // ambiguous
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShortIds {
    /// Sorted, deduplicated ids with the length of their short form.
    entries: Vec<(MessageId, usize)>,
}

impl ShortIds {
    /// Computes the short ids of a set of message ids. Duplicates are
    /// ignored.
    pub fn new(ids: impl IntoIterator<Item = MessageId>) -> Self {
        let mut ids: Vec<MessageId> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        let mut entries: Vec<(MessageId, usize)> = ids.iter().map(|&id| (id, SHORT_ID_LEN)).collect();
        for i in 1..ids.len() {
            // Shared leading hex digits of neighbours in sorted order.
            let shared = ((ids[i - 1].as_u128() ^ ids[i].as_u128()).leading_zeros() / 4) as usize;
            let need = (shared + 1).clamp(SHORT_ID_LEN, 32);
            entries[i - 1].1 = entries[i - 1].1.max(need);
            entries[i].1 = entries[i].1.max(need);
        }
        ShortIds { entries }
    }

    /// The number of ids in the set.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Returns `true` when the set holds no id.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The short id of `id`, or `None` when `id` is not in the set.
    pub fn short(&self, id: &MessageId) -> Option<String> {
        let i = self.entries.binary_search_by(|(e, _)| e.cmp(id)).ok()?;
        let mut hex = id.to_hex();
        hex.truncate(self.entries[i].1);
        Some(hex)
    }

    /// Finds the one id that starts with `prefix`: hex digits in either
    /// case, hyphens ignored, so a full id resolves too.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidMessageId`] when the prefix is empty or holds a
    /// character that is not a hex digit or hyphen, or is longer than an id;
    /// [`Error::UnknownShortId`] when no id starts with it;
    /// [`Error::AmbiguousShortId`] when several do.
    pub fn resolve(&self, prefix: &str) -> Result<MessageId> {
        let invalid = || Error::InvalidMessageId {
            value: prefix.to_owned(),
        };
        let mut digits = 0usize;
        let mut low: u128 = 0;
        for c in prefix.chars().filter(|&c| c != '-') {
            let d = c.to_digit(16).ok_or_else(invalid)?;
            if digits == 32 {
                return Err(invalid());
            }
            low = (low << 4) | u128::from(d);
            digits += 1;
        }
        if digits == 0 {
            return Err(invalid());
        }
        // All ids with this prefix lie in [low << rest, (low << rest) | mask].
        let rest = 4 * (32 - digits) as u32;
        let start = if rest == 128 { 0 } else { low << rest };
        let mask = if rest == 0 { 0 } else { u128::MAX >> (128 - rest) };
        let end = start | mask;
        let from = self.entries.partition_point(|(e, _)| e.as_u128() < start);
        let to = self.entries.partition_point(|(e, _)| e.as_u128() <= end);
        match to - from {
            0 => Err(Error::UnknownShortId {
                prefix: prefix.to_owned(),
            }),
            1 => Ok(self.entries[from].0),
            matches => Err(Error::AmbiguousShortId {
                prefix: prefix.to_owned(),
                matches,
            }),
        }
    }
}

/// SplitMix64's finaliser: spreads the bits of `x` over the whole word.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a, 64-bit: a tiny hash whose value is fixed by its definition,
/// unlike `std`'s `DefaultHasher`; used for the prefix hash (CTX-3) and
/// the fingerprints of shrunk arguments (HIST-16).
///
/// ```
/// assert_eq!(strata_ctx_core::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
/// ```
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    #[test]
    fn fnv1a_known_values() {
        // Reference values of the FNV-1a 64-bit definition.
        assert_eq!(super::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    use super::*;
    use proptest::prelude::*;

    #[test]
    fn display_and_parse_round_trip() {
        let id = MessageId::from_u128(0x1b4e28ba_2fa1_41d2_883f_0016d3cca427);
        assert_eq!(id.to_string(), "1b4e28ba-2fa1-41d2-883f-0016d3cca427");
        assert_eq!(id.short(), "1b4e28ba");
        assert_eq!(
            "1b4e28ba2fa141d2883f0016d3cca427".parse::<MessageId>().unwrap(),
            id
        );
        assert!("not-an-id".parse::<MessageId>().is_err());
    }

    #[test]
    fn core_2_new_ids_are_v4() {
        let id = MessageId::new();
        assert_eq!(id.to_string().as_bytes()[14], b'4');
        assert_ne!(MessageId::new(), id);
    }

    #[test]
    fn derived_ids_are_stable() {
        assert_eq!(MessageId::derived("call_1"), MessageId::derived("call_1"));
        assert_ne!(MessageId::derived("call_1"), MessageId::derived("call_2"));
    }

    #[test]
    fn core_2_collisions_lengthen_to_shortest_unique_prefix() {
        let a = MessageId::from_u128(0xabcdef01_2300_0000_0000_000000000000);
        let b = MessageId::from_u128(0xabcdef01_2400_0000_0000_000000000000);
        let c = MessageId::from_u128(0x99999999_0000_0000_0000_000000000000);
        let ids = ShortIds::new([a, b, c, a]);
        assert_eq!(ids.len(), 3);
        assert_eq!(ids.short(&a).unwrap(), "abcdef0123");
        assert_eq!(ids.short(&b).unwrap(), "abcdef0124");
        assert_eq!(ids.short(&c).unwrap(), "99999999");
        assert_eq!(ids.resolve("ABCDEF0124").unwrap(), b);
        assert_eq!(ids.resolve("9").unwrap(), c);
        assert!(matches!(
            ids.resolve("abcdef01"),
            Err(Error::AmbiguousShortId { matches: 2, .. })
        ));
        assert!(matches!(
            ids.resolve("12345678"),
            Err(Error::UnknownShortId { .. })
        ));
        assert!(matches!(ids.resolve(""), Err(Error::InvalidMessageId { .. })));
        assert!(matches!(ids.resolve("xyz"), Err(Error::InvalidMessageId { .. })));
        assert_eq!(ids.resolve(&a.to_string()).unwrap(), a);
        assert!(ids.resolve(&format!("{}0", a.to_hex())).is_err());
        assert_eq!(ids.short(&MessageId::from_u128(7)), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        /// CORE-2: in a set of 10^4 ids every short id resolves back to its
        /// own id, and no shorter prefix would have been unique.
        #[test]
        fn core_2_short_ids_resolve_uniquely(seed in any::<u64>(), clustered in any::<bool>()) {
            let mut state = seed | 1;
            let mut next = || {
                // xorshift64*, enough to spread ids; clustered sets share a
                // long common prefix to force lengthening.
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                state.wrapping_mul(0x2545_f491_4f6c_dd1d)
            };
            let ids: Vec<MessageId> = (0..10_000)
                .map(|_| {
                    let hi = if clustered { 0xfeed_beef_0000_0000 | (next() >> 44) } else { next() };
                    MessageId::from_u128((u128::from(hi) << 64) | u128::from(next()))
                })
                .collect();
            let short = ShortIds::new(ids.iter().copied());
            for id in &ids {
                let s = short.short(id).unwrap();
                prop_assert!(s.len() >= SHORT_ID_LEN);
                prop_assert_eq!(short.resolve(&s).unwrap(), *id);
                if s.len() > SHORT_ID_LEN {
                    prop_assert!(short.resolve(&s[..s.len() - 1]).is_err());
                }
            }
        }
    }

    #[test]
    fn core_2_imported_ids_are_stable_distinct_and_cheap() {
        let long = "x".repeat(1 << 20);
        let a = MessageId::imported("openai", 3, "user", &long);
        assert_eq!(a, MessageId::imported("openai", 3, "user", &long), "stable");
        assert_eq!(a.0.get_version_num(), 8);
        let ids: std::collections::HashSet<MessageId> = (0..1_000)
            .map(|i| MessageId::imported("openai", i, "user", "same text"))
            .collect();
        assert_eq!(ids.len(), 1_000, "positions never share an id");
        assert_ne!(a, MessageId::imported("openai", 3, "assistant", &long));
        assert_ne!(a, MessageId::imported("anthropic", 3, "user", &long));
        assert_ne!(a, MessageId::imported("openai", 3, "user", &long[1..]));
        assert_ne!(
            MessageId::imported("openai", 0, "user", "fix the parser"),
            MessageId::imported("openai", 0, "user", "fix the lexer!")
        );
    }
}

//! The values of configuration fields that are more than a number: token
//! amounts (CORE-8), durations, the compaction target.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};

/// An amount of tokens as written in configuration (CORE-8): a whole count
/// (`81920`), a count with a binary unit (`"80k"` = 80 × 1024,
/// `"1.5M"` = 1.5 × 1024²), or a share of the context window (`"0.8"`,
/// strictly between 0 and 1).
///
/// # Example
///
/// ```
/// use strata_ctx_core::TokenAmount;
///
/// assert_eq!("80k".parse::<TokenAmount>()?, TokenAmount::Tokens(81_920));
/// assert_eq!("1.5M".parse::<TokenAmount>()?.resolve(0), 1_572_864);
/// assert_eq!("0.8".parse::<TokenAmount>()?.resolve(200_000), 160_000);
/// assert!("80kk".parse::<TokenAmount>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TokenAmount {
    /// A number of tokens.
    Tokens(u64),
    /// A share of the context window, strictly between 0 and 1.
    Fraction(f64),
}

impl TokenAmount {
    /// The number of tokens this amount stands for in a window of
    /// `context_window` tokens (fractions round down).
    pub fn resolve(&self, context_window: u64) -> u64 {
        match *self {
            TokenAmount::Tokens(n) => n,
            TokenAmount::Fraction(f) => (f * context_window as f64).floor() as u64,
        }
    }

    /// Checks a float given as a fraction.
    fn fraction(value: f64, text: impl Into<String>) -> Result<Self> {
        if value > 0.0 && value < 1.0 {
            Ok(TokenAmount::Fraction(value))
        } else {
            Err(Error::InvalidTokenAmount {
                value: text.into(),
                reason: "a number with a decimal point is a share of the window and must lie strictly between 0 and 1 (or carry a k or M unit)",
            })
        }
    }
}

impl FromStr for TokenAmount {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        let bad = |reason: &'static str| Error::InvalidTokenAmount {
            value: text.to_owned(),
            reason,
        };
        let s = text.trim();
        if s.is_empty() {
            return Err(bad("empty"));
        }
        if s.starts_with('-') {
            return Err(bad("negative amounts are not allowed"));
        }
        let (number, multiplier) = match s.as_bytes()[s.len() - 1] {
            b'k' | b'K' => (&s[..s.len() - 1], 1024u64),
            b'm' | b'M' => (&s[..s.len() - 1], 1024 * 1024),
            _ => (s, 1),
        };
        let well_formed = !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && number.bytes().filter(|&b| b == b'.').count() <= 1
            && number.bytes().any(|b| b.is_ascii_digit());
        if !well_formed {
            return Err(bad("expected a whole number (81920), a number with k or M (80k, 1.5M) or a fraction below 1 (0.8)"));
        }
        if number.contains('.') {
            let value: f64 = number.parse().map_err(|_| bad("not a number"))?;
            if multiplier == 1 {
                return TokenAmount::fraction(value, text);
            }
            let tokens = (value * multiplier as f64).floor();
            if tokens.is_nan() || tokens >= u64::MAX as f64 {
                return Err(bad("too large"));
            }
            return Ok(TokenAmount::Tokens(tokens as u64));
        }
        let value: u64 = number.parse().map_err(|_| bad("too large"))?;
        value
            .checked_mul(multiplier)
            .map(TokenAmount::Tokens)
            .ok_or_else(|| bad("too large"))
    }
}

impl fmt::Display for TokenAmount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenAmount::Tokens(n) => write!(f, "{n}"),
            TokenAmount::Fraction(x) => write!(f, "{x}"),
        }
    }
}

impl Serialize for TokenAmount {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            TokenAmount::Tokens(n) => serializer.serialize_u64(n),
            TokenAmount::Fraction(x) => serializer.serialize_f64(x),
        }
    }
}

impl<'de> Deserialize<'de> for TokenAmount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = TokenAmount;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a token amount: 81920, \"80k\", \"1.5M\" or a fraction such as 0.8")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<TokenAmount, E> {
                Ok(TokenAmount::Tokens(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<TokenAmount, E> {
                u64::try_from(v).map(TokenAmount::Tokens).map_err(|_| {
                    E::custom(format!(
                        "invalid token amount `{v}`: negative amounts are not allowed"
                    ))
                })
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<TokenAmount, E> {
                TokenAmount::fraction(v, v.to_string()).map_err(E::custom)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<TokenAmount, E> {
                v.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Parses a duration: whole or decimal seconds (`120`, `2.5`), or
/// durations as people write them, parsed by `humantime` (`500ms`, `3s`,
/// `2m`, `1h 30m`, `2min`).
///
/// # Errors
///
/// [`Error::InvalidDuration`] for anything else, including negative values.
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use strata_ctx_core::parse_duration;
///
/// assert_eq!(parse_duration("500ms")?, Duration::from_millis(500));
/// assert_eq!(parse_duration("2m")?, Duration::from_secs(120));
/// assert_eq!(parse_duration("1h 30m")?, Duration::from_secs(5_400));
/// assert_eq!(parse_duration("2.5")?, Duration::from_millis(2_500));
/// assert!(parse_duration("-3s").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_duration(text: &str) -> Result<Duration> {
    let s = text.trim();
    let bad = || Error::InvalidDuration {
        value: text.to_owned(),
    };
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        let seconds: f64 = s.parse().map_err(|_| bad())?;
        return Duration::try_from_secs_f64(seconds).map_err(|_| bad());
    }
    humantime::parse_duration(s).map_err(|_| bad())
}

pub(super) fn format_duration(d: Duration) -> String {
    humantime::format_duration(d).to_string()
}

pub(super) mod duration_serde {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&format_duration(*d))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Duration, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Duration;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration: seconds (120) or text such as \"500ms\", \"3s\", \"2m\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Duration, E> {
                Ok(Duration::from_secs(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Duration, E> {
                parse_duration(&v.to_string()).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Duration, E> {
                Duration::try_from_secs_f64(v)
                    .map_err(|_| E::custom(Error::InvalidDuration { value: v.to_string() }))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Duration, E> {
                parse_duration(v).map_err(E::custom)
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// Which side of old rounds compaction summarises (HIST-8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionTarget {
    /// Summarise whole rounds.
    #[default]
    All,
    /// Summarise the user's old messages; keep the assistant's verbatim.
    User,
    /// Summarise the assistant's old messages (and their tool results); keep
    /// the user's verbatim.
    Assistant,
}

impl FromStr for CompactionTarget {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "all" => Ok(CompactionTarget::All),
            "user" => Ok(CompactionTarget::User),
            "assistant" => Ok(CompactionTarget::Assistant),
            _ => Err(Error::config(
                "compaction_target",
                format!("`{s}` is not one of all, user, assistant"),
            )),
        }
    }
}

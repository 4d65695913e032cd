//! Timestamps of messages.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::error::{Error, Result};

/// A point in time in UTC, written as RFC 3339 (`2026-11-22T10:56:00Z`,
/// with fractional seconds when there are any).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

impl Timestamp {
    /// The current time.
    pub fn now() -> Self {
        Timestamp(OffsetDateTime::now_utc())
    }

    /// The time `millis` milliseconds after the Unix epoch, or `None` when
    /// it is out of range (beyond year ±9999).
    pub fn from_unix_millis(millis: i64) -> Option<Self> {
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
            .ok()
            .filter(|t| (-9999..=9999).contains(&t.year()))
            .map(Timestamp)
    }

    /// Milliseconds since the Unix epoch (rounded towards the past).
    pub fn unix_millis(&self) -> i64 {
        let nanos = self.0.unix_timestamp_nanos();
        // In range by construction: years within ±9999.
        i64::try_from(nanos.div_euclid(1_000_000)).unwrap_or(i64::MAX)
    }

    /// The UTC date and time as `yyyymmdd_HHMMSS`, the form used in file
    /// names.
    pub fn to_compact_string(&self) -> String {
        let t = self.0;
        format!(
            "{:04}{:02}{:02}_{:02}{:02}{:02}",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        )
    }

    /// The UTC date and time to the second, `yyyy-mm-dd HH:MM:SS UTC`, the
    /// form shown to people and models.
    pub fn to_display_string(&self) -> String {
        let t = self.0;
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        )
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.format(&Rfc3339) {
            Ok(text) => f.write_str(&text),
            Err(_) => write!(f, "@{}ms", self.unix_millis()),
        }
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({self})")
    }
}

impl FromStr for Timestamp {
    type Err = Error;

    /// Parses RFC 3339 text with any offset; the result is in UTC.
    fn from_str(s: &str) -> Result<Self> {
        OffsetDateTime::parse(s, &Rfc3339)
            .map(|t| Timestamp(t.to_offset(time::UtcOffset::UTC)))
            .map_err(|_| Error::InvalidTimestamp { value: s.to_owned() })
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trip() {
        let t = Timestamp::from_unix_millis(1_795_000_000_123).unwrap();
        let text = t.to_string();
        assert_eq!(text, "2026-11-18T11:06:40.123Z");
        assert_eq!(text.parse::<Timestamp>().unwrap(), t);
        assert_eq!(t.unix_millis(), 1_795_000_000_123);
        assert_eq!(t.to_compact_string(), "20261118_110640");
        let shifted: Timestamp = "2026-11-18T12:06:40.123+01:00".parse().unwrap();
        assert_eq!(shifted, t);
        assert!("yesterday".parse::<Timestamp>().is_err());
        assert!(Timestamp::from_unix_millis(i64::MAX).is_none());
    }
}

//! Where new messages get their time and id: an injectable [`Clock`] and
//! [`IdSource`], so that a run can be made byte-identical under test
//! (CORE-2).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::id::MessageId;
use crate::time::Timestamp;

/// The time source of the messages, spill files and records a component
/// makes. By default, the system clock.
///
/// Cheap to clone: clones share one source (a [`Clock::stepping`] clock
/// steps once per call, whichever clone calls).
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use strata_ctx_core::{Clock, Timestamp};
///
/// let start = Timestamp::from_unix_millis(1_795_000_000_000).unwrap();
/// let clock = Clock::stepping(start, Duration::from_secs(1));
/// assert_eq!(clock.now(), start);
/// assert_eq!(clock.clone().now().unix_millis(), 1_795_000_001_000);
/// ```
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> Timestamp + Send + Sync>);

impl Clock {
    /// The system clock ([`Timestamp::now`]).
    pub fn system() -> Self {
        Clock(Arc::new(Timestamp::now))
    }

    /// A clock that answers `start`, then `start + step`, `start + 2 ×
    /// step` … one step per call: the same calls give the same times.
    pub fn stepping(start: Timestamp, step: Duration) -> Self {
        let calls = AtomicU64::new(0);
        let step_ms = i64::try_from(step.as_millis()).unwrap_or(i64::MAX);
        Clock(Arc::new(move || {
            let n = i64::try_from(calls.fetch_add(1, Ordering::Relaxed)).unwrap_or(i64::MAX);
            let millis = start.unix_millis().saturating_add(n.saturating_mul(step_ms));
            Timestamp::from_unix_millis(millis).unwrap_or(start)
        }))
    }

    /// A clock that asks `now`.
    pub fn from_fn(now: impl Fn() -> Timestamp + Send + Sync + 'static) -> Self {
        Clock(Arc::new(now))
    }

    /// The time now, as this clock tells it.
    pub fn now(&self) -> Timestamp {
        (self.0)()
    }
}

impl Default for Clock {
    /// The system clock.
    fn default() -> Self {
        Clock::system()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Clock")
    }
}

/// The id source of the messages a component makes. By default, random
/// ids ([`MessageId::new`]).
///
/// Cheap to clone: clones share one source.
///
/// # Example
///
/// ```
/// use strata_ctx_core::IdSource;
///
/// let (a, b) = (IdSource::sequential("run"), IdSource::sequential("run"));
/// let first = a.next();
/// assert_eq!(first, b.next(), "the same seed gives the same ids");
/// assert_ne!(first, a.next(), "and never the same id twice");
/// ```
#[derive(Clone)]
pub struct IdSource(Arc<dyn Fn() -> MessageId + Send + Sync>);

impl IdSource {
    /// Random ids (UUID v4).
    pub fn random() -> Self {
        IdSource(Arc::new(MessageId::new))
    }

    /// Ids derived from `seed` and a counter ([`MessageId::derived`] of
    /// `seed:0`, `seed:1` …): they look like random ids and short ids
    /// stay distinct, but the same seed gives the same ids in the same
    /// order.
    pub fn sequential(seed: impl Into<String>) -> Self {
        let seed = seed.into();
        let calls = AtomicU64::new(0);
        IdSource(Arc::new(move || {
            let n = calls.fetch_add(1, Ordering::Relaxed);
            MessageId::derived(&format!("{seed}:{n}"))
        }))
    }

    /// A source that asks `next`.
    pub fn from_fn(next: impl Fn() -> MessageId + Send + Sync + 'static) -> Self {
        IdSource(Arc::new(next))
    }

    /// A new id.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&self) -> MessageId {
        (self.0)()
    }
}

impl Default for IdSource {
    /// Random ids.
    fn default() -> Self {
        IdSource::random()
    }
}

impl fmt::Debug for IdSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IdSource")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_2_defaults_are_random_and_now() {
        let ids = IdSource::default();
        assert_ne!(ids.next(), ids.next());
        let before = Timestamp::now();
        let now = Clock::default().now();
        assert!(now >= before);
    }

    #[test]
    fn core_2_stepping_clock_and_sequential_ids_repeat() {
        let start = Timestamp::from_unix_millis(0).unwrap();
        let times = |c: Clock| (0..3).map(|_| c.now().unix_millis()).collect::<Vec<_>>();
        let c = Clock::stepping(start, Duration::from_millis(250));
        assert_eq!(times(c.clone()), [0, 250, 500]);
        assert_eq!(c.now().unix_millis(), 750, "clones share the steps");
        assert_eq!(
            times(Clock::stepping(start, Duration::from_millis(250))),
            [0, 250, 500]
        );
        let end = Timestamp::from_unix_millis(253_402_300_799_000).unwrap();
        let far = Clock::stepping(end, Duration::from_secs(3_600));
        assert_eq!(far.now(), end);
        assert_eq!(far.now(), end, "beyond the range the clock stays put");

        let ids = |s: IdSource| (0..50).map(|_| s.next()).collect::<Vec<_>>();
        let a = ids(IdSource::sequential("seed"));
        assert_eq!(a, ids(IdSource::sequential("seed")));
        assert_ne!(a, ids(IdSource::sequential("other")));
        let shorts: std::collections::HashSet<String> = a.iter().map(MessageId::short).collect();
        assert_eq!(shorts.len(), 50);
    }
}

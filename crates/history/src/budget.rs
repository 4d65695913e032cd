//! The one budget policy (HIST-14): the estimate of the next request, the
//! compaction trigger, the guarantee's targets and the overflow guard.

use strata_ctx_core::Config;

/// How big the window may grow and how big it is, in one place.
///
/// Every part of Strata that asks "does the window fit?", "is compaction
/// due?", "how far must old steps shrink?" or "may we compact again after
/// an overflow?" asks a `Budget`; nothing else decides. A
/// [`History`](crate::History) owns one, and the engine reads and feeds it
/// through the history.
///
/// The words mean one thing each:
/// - the **context window** is what the model accepts (`context_window`);
/// - the **threshold** is the most the window may hold
///   (`compact_threshold`, by default 80 % of the context window);
/// - a **count** is what the token counter says of the window now;
/// - the **estimate** is the provider's last reported input tokens plus
///   the counted growth since (REACT-4), scaled by what an overflow taught
///   about the counter (HIST-12), or the scaled count when there is no
///   usable report;
/// - the **shed target** is where condensing stops once it had to start:
///   `clear_batch` tokens under the threshold, so that old steps change in
///   batches worth a prompt-cache invalidation (HIST-15).
///
/// # Example
///
/// ```
/// use strata_ctx_core::Config;
/// use strata_ctx_history::Budget;
///
/// let mut budget = Budget::new(&Config::from_toml_str("context_window = 10000")?);
/// assert_eq!(budget.threshold(), 8_000);
/// assert_eq!(budget.estimate(5_000), 5_000);
/// // The provider counted 6,000 where the counter saw 5,000; 100 more
/// // tokens were counted since.
/// budget.record_usage(6_000, 5_000);
/// assert_eq!(budget.estimate(5_100), 6_100);
/// assert!(budget.fits(5_100));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    context_window: usize,
    threshold: usize,
    clear_batch: usize,
    auto_compact: bool,
    min_messages: usize,
    /// The last usable usage: the provider's input tokens and the count
    /// of the window it measured.
    anchor: Option<(u64, usize)>,
    /// How much the provider's counts exceed the counter's, learnt from an
    /// overflow; 1 until then.
    ratio: f64,
    /// Tokens of the window that the history does not hold (system
    /// prompt, rules, the round's scratchpad beyond its history form).
    outside: usize,
    /// The full log's length at the last compaction and at the last
    /// overflow: nothing new since means no second attempt.
    compacted_at: Option<usize>,
    overflow_at: Option<usize>,
}

impl Budget {
    /// The budget `config` sets; the shed batch is half the threshold.
    pub fn new(config: &Config) -> Self {
        let threshold = config.threshold_tokens() as usize;
        Budget {
            context_window: config.window_tokens() as usize,
            threshold,
            clear_batch: threshold / 2,
            auto_compact: config.auto_compact_enabled(),
            min_messages: config.min_messages_to_compact,
            anchor: None,
            ratio: 1.0,
            outside: 0,
            compacted_at: None,
            overflow_at: None,
        }
    }

    /// Sets how many tokens condensing sheds at least once it must shed
    /// any (HIST-15). By default, half the threshold.
    pub fn set_clear_batch(&mut self, tokens: usize) -> &mut Self {
        self.clear_batch = tokens;
        self
    }

    /// How many tokens condensing sheds at least once it must shed any
    /// (HIST-15).
    pub fn clear_batch(&self) -> usize {
        self.clear_batch
    }

    /// The model's context window.
    pub fn context_window(&self) -> usize {
        self.context_window
    }

    /// The most the window may hold.
    pub fn threshold(&self) -> usize {
        self.threshold
    }

    /// Where condensing stops once the window went over the threshold:
    /// the shed batch under it.
    pub fn shed_target(&self) -> usize {
        self.threshold.saturating_sub(self.clear_batch)
    }

    /// The stages of condensing a round of `steps` steps once the window
    /// went over the threshold (REACT-5, HIST-14), in order: how many of
    /// the oldest steps may be condensed and the count to stop at. First
    /// all but the newest `keep_full` steps, down to the shed target; then
    /// all but the newest step, then every step, down to the threshold.
    pub fn condense_stages(&self, steps: usize, keep_full: usize) -> [(usize, usize); 3] {
        [
            (steps.saturating_sub(keep_full), self.shed_target()),
            (steps.saturating_sub(1), self.threshold),
            (steps, self.threshold),
        ]
    }

    /// The tokens the working facts of steps that left the window may take
    /// out of `room` while their round is in progress: a sixth, at most
    /// 4,000, for the round's digest of its condensed steps (REACT-6). The
    /// summary a compaction writes (HIST-5) has more
    /// ([`Budget::summary_reserve`]), so the facts a round kept do not
    /// shrink when it closes and is archived.
    pub fn facts_tokens(room: usize) -> usize {
        (room / 6).min(4_000)
    }

    /// The characters the round's digest of condensed steps may take
    /// (REACT-6): [`Budget::facts_tokens`] of the threshold, at about
    /// three characters a token.
    pub fn digest_chars(&self) -> usize {
        Budget::facts_tokens(self.threshold) * 3
    }

    /// The room a compaction keeps for the summary it writes, out of the
    /// `room` the history may take (HIST-5): a third, at most 8,000
    /// tokens. More than the round's digest has ([`Budget::facts_tokens`]):
    /// the summary holds the facts of every archived round, and a session
    /// of several tasks in a row keeps the commands and errors of the
    /// earlier ones. More than a third leaves too little for the round in
    /// progress once it grows long: a small window then goes over its
    /// threshold with every step condensed.
    pub fn summary_reserve(room: usize) -> usize {
        (room / 3).min(8_000)
    }

    /// The most bytes of one tool output the model sees at once, given
    /// the truncator's own limit `max_bytes` (TRUNC-1): at most a quarter
    /// of the threshold (at three bytes a token, never under 1 KiB), so
    /// that one output never fills the window on its own.
    pub fn output_bytes(&self, max_bytes: usize) -> usize {
        let quarter = self.threshold.saturating_mul(3) / 4;
        max_bytes.min(quarter.max(1024))
    }

    /// Whether what the window must always hold, counted `fixed` (the
    /// system prompt, tools, rules and other layers) and `input` (the
    /// round's input), fits under the threshold (HIST-14): when it does
    /// not, no condensing can make the window fit.
    pub fn admits(&self, fixed: usize, input: usize) -> bool {
        self.scaled(fixed + input) <= self.threshold
    }

    /// A count as the provider would count it, by what an overflow taught
    /// (HIST-12); the count itself until then. Unlike
    /// [`Budget::estimate`], no usage report enters it: it sizes parts of
    /// a window, such as the layers it must always hold.
    pub fn scaled(&self, counted: usize) -> usize {
        (counted as f64 * self.ratio).ceil() as usize
    }

    /// The estimate of a window whose count is `counted` (REACT-4).
    pub fn estimate(&self, counted: usize) -> usize {
        let scaled = |n: usize| n as f64 * self.ratio;
        let tokens = match self.anchor {
            Some((input, at)) => input as f64 + scaled(counted) - scaled(at),
            None => scaled(counted),
        };
        tokens.max(0.0).ceil() as usize
    }

    /// Whether a window whose count is `counted` is within the threshold.
    pub fn fits(&self, counted: usize) -> bool {
        self.estimate(counted) <= self.threshold
    }

    /// The estimated share of the context window in use (HIST-13).
    pub fn usage_fraction(&self, counted: usize) -> f64 {
        self.estimate(counted) as f64 / self.context_window.max(1) as f64
    }

    /// Takes the provider's report of `input_tokens` for a window whose
    /// count was `counted`. A report of 0 (a provider that reports none)
    /// is not a measurement and is ignored.
    pub fn record_usage(&mut self, input_tokens: u64, counted: usize) {
        if input_tokens > 0 {
            self.anchor = Some((input_tokens, counted));
        }
    }

    /// Whether a usable usage report anchors the estimate.
    pub fn has_usage(&self) -> bool {
        self.anchor.is_some()
    }

    /// Sets the tokens of the window that the history does not hold, so
    /// that the history's share ([`Budget::history_room`]) leaves room
    /// for them.
    pub fn set_outside(&mut self, tokens: usize) -> &mut Self {
        self.outside = tokens;
        self
    }

    /// The tokens of the window that the history does not hold.
    pub fn outside(&self) -> usize {
        self.outside
    }

    /// What the history's messages may take, in the counter's tokens:
    /// the threshold (corrected by what an overflow taught) less what the
    /// history does not hold.
    pub fn history_room(&self) -> usize {
        ((self.threshold as f64 / self.ratio) as usize).saturating_sub(self.outside)
    }

    /// Whether automatic compaction is due (HIST-4, HIST-13): it is on,
    /// the history holds at least `min_messages_to_compact` messages, the
    /// estimate of a window counted `counted` reaches the threshold, and
    /// the full log (of `log_len` messages) grew since the last
    /// compaction.
    pub fn compaction_due(&self, counted: usize, messages: usize, log_len: usize) -> bool {
        self.auto_compact
            && messages >= self.min_messages
            && self.estimate(counted) >= self.threshold
            && self.compacted_at != Some(log_len)
    }

    /// Notes a compaction at a full log of `log_len` messages: the usage
    /// report described the old window and is dropped.
    pub fn compacted(&mut self, log_len: usize) {
        self.anchor = None;
        self.compacted_at = Some(log_len);
    }

    /// Notes the model's rejection of a window counted `sent` as too long
    /// (HIST-12), at a full log of `log_len` messages. Later estimates are
    /// scaled so that such a window counts as the whole context window.
    /// Returns `false` when nothing was recorded since the last rejection:
    /// compacting again would change nothing, and the caller must not
    /// loop.
    pub fn overflowed(&mut self, sent: usize, log_len: usize) -> bool {
        if self.overflow_at == Some(log_len) {
            return false;
        }
        self.overflow_at = Some(log_len);
        let window = self.context_window as f64;
        let sent = sent.max(1) as f64;
        if window > sent * self.ratio {
            self.ratio = window / sent;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(toml: &str) -> Budget {
        Budget::new(&Config::from_toml_str(toml).unwrap())
    }

    #[test]
    fn hist_14_one_meaning_per_word() {
        let b = budget("context_window = 16000");
        assert_eq!(
            (b.context_window(), b.threshold(), b.shed_target()),
            (16_000, 12_800, 6_400)
        );
        assert_eq!(b.estimate(100), 100);
    }

    #[test]
    fn react_4_usage_plus_growth() {
        let mut b = budget("context_window = 10000");
        b.record_usage(0, 500);
        assert!(!b.has_usage(), "0 is no measurement");
        b.record_usage(7_000, 6_000);
        assert_eq!(b.estimate(6_500), 7_500);
        assert!(b.compaction_due(7_000, 10, 20));
        b.compacted(20);
        assert!(!b.has_usage());
        assert!(!b.compaction_due(9_000, 10, 20), "nothing new since");
        assert!(b.compaction_due(9_000, 10, 21));
    }

    /// HIST-14: each number of the policy at its boundary, so that a
    /// policy that always or never fits, or that drops a term, fails.
    #[test]
    fn hist_14_the_shares_and_stages() {
        let b = budget("context_window = 10000");
        // Threshold 8,000, shed batch 4,000.
        assert_eq!(b.condense_stages(10, 3), [(7, 4_000), (9, 8_000), (10, 8_000)]);
        assert_eq!(b.condense_stages(2, 3), [(0, 4_000), (1, 8_000), (2, 8_000)]);
        assert_eq!(b.condense_stages(0, 3), [(0, 4_000), (0, 8_000), (0, 8_000)]);
        assert_eq!(b.digest_chars(), 8_000 / 6 * 3);
        assert_eq!(budget("context_window = 200000").digest_chars(), 12_000);
        assert_eq!(Budget::summary_reserve(6_000), 2_000);
        assert_eq!(Budget::summary_reserve(50_000), 8_000);
        assert_eq!(b.output_bytes(50 * 1024), 6_000);
        assert_eq!(b.output_bytes(4_000), 4_000);
        assert_eq!(budget("context_window = 100").output_bytes(50 * 1024), 1_024);
        assert!(b.admits(5_000, 3_000));
        assert!(!b.admits(5_000, 3_001));
    }

    #[test]
    fn hist_14_every_number_at_its_boundary() {
        let mut b = budget("context_window = 16000");
        assert_eq!(b.clear_batch(), 6_400, "half the threshold");
        assert!(b.fits(12_800) && !b.fits(12_801), "the threshold is the most");
        assert!((b.usage_fraction(4_000) - 0.25).abs() < 1e-9);
        b.set_clear_batch(800);
        assert_eq!((b.clear_batch(), b.shed_target()), (800, 12_000));
        b.set_outside(3_000);
        assert_eq!((b.outside(), b.history_room()), (3_000, 9_800));
        // The estimate is the report plus the growth, and never negative.
        b.record_usage(10_000, 9_000);
        assert!(b.has_usage());
        assert_eq!(b.estimate(9_500), 10_500);
        assert_eq!(b.estimate(12_300), 13_300);
        assert!(
            b.fits(11_800) && !b.fits(11_801),
            "the report, not the count, decides"
        );
        b.record_usage(100, 5_000);
        assert_eq!(b.estimate(0), 0);
        assert_eq!(b.scaled(7), 7, "no overflow: the count itself");
    }

    /// HIST-4, HIST-13: compaction is due only when every condition holds.
    #[test]
    fn hist_13_compaction_due_needs_every_condition() {
        let b = budget("context_window = 10000\nmin_messages_to_compact = 4");
        assert!(
            b.compaction_due(8_000, 4, 1),
            "the estimate reaches the threshold"
        );
        assert!(!b.compaction_due(7_999, 4, 1), "under the threshold");
        assert!(!b.compaction_due(8_000, 3, 1), "too few messages");
        let off = budget("context_window = 10000\nauto_compact = false");
        assert!(!off.compaction_due(9_000, 100, 1), "switched off");
    }

    /// HIST-12: what an overflow teaches is kept (a later, larger
    /// rejection does not lower it), an empty window counts as one token,
    /// and the scale reaches every count made after it.
    ///
    /// `cargo mutants` on this file, with this crate's tests, catches every
    /// mutant but one, which is equivalent: `window > sent * ratio` made
    /// `>=` sets, when the two are equal, the ratio to `window / sent`,
    /// which is the ratio it has.
    #[test]
    fn hist_12_overflow_ratio_only_grows() {
        let mut b = budget("context_window = 10000");
        assert!(b.overflowed(5_000, 1));
        assert_eq!((b.scaled(3), b.scaled(1_001)), (6, 2_002));
        assert!(b.overflowed(6_000, 2));
        assert_eq!(b.estimate(5_000), 10_000, "the ratio stays 2");
        assert!(b.overflowed(4_000, 3));
        assert_eq!(b.estimate(4_000), 10_000, "the ratio grows to 2.5");
        assert_eq!(b.history_room(), 3_200);
        let mut empty = budget("context_window = 10000");
        assert!(empty.overflowed(0, 1));
        assert_eq!(empty.estimate(1), 10_000);
        b.record_usage(9_000, 3_000);
        assert_eq!(b.estimate(3_100), 9_250, "growth since the report is scaled too");
    }

    #[test]
    fn hist_12_overflow_scales_and_never_loops() {
        let mut b = budget("context_window = 10000");
        assert!(b.overflowed(5_000, 40));
        assert_eq!(b.estimate(5_000), 10_000);
        assert_eq!(b.history_room(), 4_000);
        assert!(!b.overflowed(5_000, 40), "a second overflow with nothing new");
        assert!(b.overflowed(5_000, 41));
    }
}

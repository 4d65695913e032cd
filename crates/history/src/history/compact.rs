//! Compaction of the window: the plan, the summary, the budget fit
//! (HIST-3 … HIST-7, HIST-9, HIST-14).

use super::*;

/// The heading of the facts appended to a summary that left them out.
const MISSING_FACTS_HEADING: &str = "\n\n### Facts from the change tracker the summary left out";

/// What one compaction did (HIST-9).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct CompactionStats {
    /// Window tokens before.
    pub tokens_before: usize,
    /// Window tokens after.
    pub tokens_after: usize,
    /// Tokens of the messages archived into the summary.
    pub tokens_archived: usize,
    /// Tokens of the new summary message.
    pub summary_tokens: usize,
    /// Complete rounds archived.
    pub rounds_archived: usize,
    /// Complete rounds kept.
    pub rounds_retained: usize,
    /// Tool results cleared to fit the budget (HIST-6).
    pub tool_results_cleared: usize,
    /// Tool-call arguments cut to fit the budget (HIST-6).
    pub arguments_cut: usize,
    /// The budget the window had to fit.
    pub threshold_tokens: usize,
    /// Whether the summary failed and the notice stands in its place
    /// (HIST-7).
    pub degraded: bool,
    /// The summariser's error, when degraded.
    pub degraded_reason: Option<String>,
    /// Whether the window is still over the budget (HIST-6): the newest
    /// rounds alone do not fit.
    pub over_budget: bool,
    /// Milliseconds the compaction took.
    pub elapsed_ms: u64,
    /// Working facts of the archived steps the summary was checked
    /// against (files changed, failing commands, open todos, the user's
    /// constraints; #30.6).
    pub summary_facts: usize,
    /// Those the model's summary left out, appended to it as a short
    /// block (see [`Digest::missing_from`]).
    pub summary_facts_added: usize,
}

/// What a compaction would do; see [`History::plan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompactionPlan {
    /// Leading summaries of the window, kept as they are.
    pub summaries: usize,
    /// The window's messages from `summaries` up to this index are
    /// archived (all of them, or one side with a compaction target).
    pub archive_end: usize,
    /// Complete rounds archived.
    pub rounds_archived: usize,
    /// Complete rounds kept.
    pub rounds_retained: usize,
    /// Tokens of the messages up to `archive_end`.
    pub tokens_archived: usize,
}

impl History {
    /// Whether automatic compaction should run now
    /// ([`Budget::compaction_due`], HIST-4, HIST-13): it is switched on,
    /// the window holds at least `min_messages_to_compact` messages, the
    /// estimate reaches the threshold, and something was recorded since
    /// the last compaction.
    pub fn needs_compaction(&self) -> bool {
        self.budget
            .compaction_due(self.counted(), self.window_len(), self.log.len())
    }

    /// Compacts when [`History::needs_compaction`] says so.
    pub async fn compact_if_needed(&mut self, summarizer: &dyn Summarizer) -> Option<CompactionStats> {
        if self.needs_compaction() {
            Some(self.compact(summarizer).await)
        } else {
            None
        }
    }

    /// What [`History::compact`] would do now, without doing it: which
    /// messages would be archived and how many complete rounds kept
    /// (HIST-3). Costs one pass over the window's rounds.
    pub fn plan(&self) -> CompactionPlan {
        self.plan_with(self.config.min_retain_rounds)
    }

    /// [`History::plan`] keeping at least `min_retain` complete rounds
    /// (and more while they fit) instead of `min_retain_rounds`.
    pub fn plan_with(&self, min_retain: usize) -> CompactionPlan {
        let budget = self.room_tokens();
        let summaries = self.window.summaries();
        let body = &self.window.messages()[summaries..];
        let body_rounds = rounds(body);
        let in_progress = usize::from(self.window.round_open() && !body_rounds.is_empty());
        let complete = body_rounds.len() - in_progress;
        let round_tokens: Vec<usize> = body_rounds
            .iter()
            .map(|r| self.window.tokens_of(summaries + r.start..summaries + r.end))
            .collect();
        let summary_reserve = crate::Budget::summary_reserve(budget);
        let fixed = self.window.tokens_of(0..summaries)
            + summary_reserve
            + round_tokens[complete..].iter().sum::<usize>();
        let mut keep = complete.min(min_retain);
        let mut kept_tokens: usize = round_tokens[complete - keep..complete].iter().sum();
        while keep < complete && fixed + kept_tokens + round_tokens[complete - keep - 1] <= budget {
            kept_tokens += round_tokens[complete - keep - 1];
            keep += 1;
        }
        // Everything before the first retained round is archived, including
        // messages before the first user message, once any round goes.
        let cut = if keep == complete {
            0
        } else {
            body_rounds.get(complete - keep).map_or(body.len(), |r| r.start)
        };
        CompactionPlan {
            summaries,
            archive_end: summaries + cut,
            rounds_archived: complete - keep,
            rounds_retained: keep,
            tokens_archived: self.window.tokens_of(summaries..summaries + cut),
        }
    }

    /// Compacts the window now (HIST-3, HIST-5 … HIST-7, HIST-9).
    ///
    /// The oldest complete rounds that do not fit are summarised into one
    /// `summary` message placed after the earlier summaries, which are
    /// never touched; at least the newest `min_retain_rounds` complete
    /// rounds and the round in progress are kept. If the summariser fails
    /// or takes longer than `summary_timeout`, a notice stands in for the
    /// summary and the archived rounds are dropped from the window. If the
    /// window is still over the budget, tool results are cleared oldest
    /// first (the newest `keep_tool_messages` stay), then long tool-call
    /// arguments are cut; if even that is not enough,
    /// [`CompactionStats::over_budget`] is set. The full log is never
    /// changed.
    pub async fn compact(&mut self, summarizer: &dyn Summarizer) -> CompactionStats {
        self.compact_with(summarizer, self.config.min_retain_rounds).await
    }

    /// [`History::compact`] when the budget cannot wait (HIST-14): the
    /// retention of `min_retain_rounds` yields, and only the complete
    /// rounds that fit the budget are kept (none, if none fits).
    pub async fn compact_to_fit(&mut self, summarizer: &dyn Summarizer) -> CompactionStats {
        self.compact_with(summarizer, 0).await
    }

    async fn compact_with(&mut self, summarizer: &dyn Summarizer, min_retain: usize) -> CompactionStats {
        let started = Instant::now();
        let budget = self.room_tokens();
        let mut stats = CompactionStats {
            tokens_before: self.window_tokens(),
            threshold_tokens: budget,
            ..CompactionStats::default()
        };
        let plan = self.plan_with(min_retain);
        let summaries = plan.summaries;
        let archived_at = self.archived_positions(&plan);
        stats.tokens_archived = archived_at
            .iter()
            .map(|&i| self.window.tokens_at(summaries + i))
            .sum();
        stats.rounds_archived = plan.rounds_archived;
        stats.rounds_retained = plan.rounds_retained;
        let body = &self.window.messages()[summaries..];
        let archived_ids: Vec<MessageId> = archived_at.iter().map(|&i| body[i].id).collect();
        let last_created = archived_at.last().and_then(|&i| body[i].created_at);
        let tail_chars = self.tail_chars(&plan, budget);

        // HIST-17: summaries merge. The summariser gets the earlier
        // summaries with the archived messages and its summary replaces
        // them all; when it fails, the earlier summaries stay and one
        // notice stands for every failed attempt.
        let (summary, dropped, keep_earlier) = if archived_at.is_empty() {
            (None, Vec::new(), true)
        } else {
            let archived = Archived {
                summaries,
                kept_from: plan.archive_end,
                at: &archived_at,
                ids: &archived_ids,
                last_created,
                tail_chars,
            };
            self.summary_of(summarizer, &archived, budget, &mut stats).await
        };
        let window = self.without_archived(summaries, &archived_at, summary.clone(), keep_earlier);
        self.set_window(window);
        let changed = self.fit_budget(budget, &mut stats);
        if self.recorder.is_on() {
            let replaced = changed
                .iter()
                .map(|&i| self.window.messages()[i].clone())
                .collect();
            self.recorder.record(|| Record::Compaction {
                archived: dropped.iter().copied().chain(archived_ids).collect(),
                summary,
                replaced,
            });
        }
        stats.tokens_after = self.window_tokens();
        stats.over_budget = self.window_tokens() > budget;
        stats.elapsed_ms = started.elapsed().as_millis() as u64;
        // The usage figure described the old window: it is stale now.
        self.budget.compacted(self.log.len());
        stats
    }

    /// The summary message of the archived messages, the ids of the
    /// earlier summaries it replaces, and whether the earlier summaries
    /// stay (HIST-17: summaries merge; a failed summary's notice replaces
    /// only the earlier notices).
    async fn summary_of(
        &self,
        summarizer: &dyn Summarizer,
        archived: &Archived<'_>,
        budget: usize,
        stats: &mut CompactionStats,
    ) -> (Option<Message>, Vec<MessageId>, bool) {
        let summaries = archived.summaries;
        let (digest, end) = self.archived_facts(archived.kept_from);
        let facts = digest
            .has_facts()
            .then(|| digest.render(crate::Budget::summary_reserve(budget) * 3));
        let text = self
            .summarize_archived(summarizer, archived, facts.as_deref(), end, stats)
            .await;
        // The window is as it was before the summariser ran: a compaction
        // whose future is dropped changes nothing.
        let earlier = &self.window.messages()[..summaries];
        let (text, dropped, keep_earlier) = match text {
            Ok(text) => (
                with_missing_facts(text, &digest, stats),
                earlier.iter().map(|m| m.id).collect(),
                false,
            ),
            Err(mut notice) => {
                if let Some(facts) = &facts {
                    notice.push_str("\n\n");
                    notice.push_str(facts);
                }
                let notices = earlier.iter().filter(|m| is_degraded(m)).map(|m| m.id).collect();
                (notice, notices, true)
            }
        };
        let form = |result: &Message, call: &strata_ctx_core::ToolCall| {
            self.compressor.compress_message(result, &call.arguments).0
        };
        let text = match tail::last_steps(&self.log[..end], form, archived.tail_chars) {
            Some(steps) => format!("{text}\n\n{steps}"),
            None => text,
        };
        let message = summary_message(text, archived.ids, archived.last_created);
        stats.summary_tokens = self.counter.count_message(&message);
        (Some(message), dropped, keep_earlier)
    }

    /// The characters a summary may give to the archived round's last
    /// steps ([`tail::last_steps`]): none while complete rounds stay in
    /// the window (they show where the work stands) or when only one side
    /// is archived (HIST-8); otherwise half of the room the retained
    /// messages and the summary's reserve leave, at most the room of the
    /// working facts ([`Budget::facts_tokens`](crate::Budget::facts_tokens)),
    /// at three characters a token.
    fn tail_chars(&self, plan: &CompactionPlan, budget: usize) -> usize {
        if plan.rounds_retained > 0 || self.config.compaction_target != CompactionTarget::All {
            return 0;
        }
        let reserve = crate::Budget::summary_reserve(budget);
        let kept = self.window.tokens_of(plan.archive_end..self.window.len());
        let free = budget.saturating_sub(kept + reserve) / 2;
        free.min(crate::Budget::facts_tokens(budget)) * 3
    }

    /// Which of the old rounds' messages are archived, by position in the
    /// window after its leading summaries. With a target, only that side
    /// of the old rounds is summarised and the other side stays verbatim
    /// (HIST-8); steps (a call message and its results) always stay
    /// together on the assistant side; pinned messages and their steps
    /// stay verbatim (#30.7). Nothing is copied.
    fn archived_positions(&self, plan: &CompactionPlan) -> Vec<usize> {
        let body = &self.window.messages()[plan.summaries..];
        let side = |m: &Message| match self.config.compaction_target {
            CompactionTarget::All => true,
            CompactionTarget::User => m.role == Role::User,
            CompactionTarget::Assistant => m.role != Role::User,
        };
        let pinned = History::pinned_positions(body);
        (0..plan.archive_end - plan.summaries)
            .filter(|&i| side(&body[i]) && !pinned.contains(&i))
            .collect()
    }

    /// What the archived steps did, from the full log up to the first
    /// message the window keeps after position `kept_from` (REACT-6): the
    /// summary replaces every earlier one, so the facts cover everything
    /// before the retained messages. Also where in the log they end.
    fn archived_facts(&self, kept_from: usize) -> (Digest, usize) {
        let end = self.window.messages()[kept_from..]
            .first()
            .and_then(|kept| self.log.iter().position(|m| m.id == kept.id))
            .unwrap_or(self.log.len());
        let mut digest = Digest::new();
        digest.observe_messages(&self.log[..end]);
        (digest, end)
    }

    /// The summariser's summary of the earlier summaries and the
    /// `archived` messages,
    /// grounded in the change tracker's `facts`, under the summary
    /// timeout; or, when it fails, times out or there is none, the notice
    /// that stands for it, with `stats` saying why.
    async fn summarize_archived(
        &self,
        summarizer: &dyn Summarizer,
        archived: &Archived<'_>,
        facts: Option<&str>,
        end: usize,
        stats: &mut CompactionStats,
    ) -> Result<String, String> {
        let (archived_at, summaries) = (archived.at, archived.summaries);
        let mut degraded = |reason: String, notice: &str| {
            stats.degraded = true;
            stats.degraded_reason = Some(reason);
            Err(format!(
                "{DEGRADED_PREFIX} {notice}, keeping recent history only."
            ))
        };
        if !summarizer.summarizes() {
            // The degraded mode chosen with `NoSummarizer`: no call, no
            // time limit to wait out.
            return degraded(
                "no summariser is configured".into(),
                "is off (no summariser is configured)",
            );
        }
        let body = &self.window.messages()[summaries..];
        let mut input: Vec<Message> = self.window.messages()[..summaries]
            .iter()
            .filter(|m| !is_degraded(m))
            .cloned()
            .collect();
        input.extend(archived_at.iter().map(|&i| body[i].clone()));
        // The change tracker feeds the summary's file-state section.
        if let Some(facts) = facts {
            input.push(
                Message::system(format!(
                    "Facts of the archived steps, from the change tracker (ground the File System State section in them):\n{facts}"
                ))
                .with_id(MessageId::derived(&format!("strata:facts:{end}")))
                .with_created_at(None),
            );
        }
        match tokio::time::timeout(self.config.summary_timeout, summarizer.summarize(&input)).await {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(e)) => degraded(e.to_string(), &format!("failed ({e})")),
            Err(_) => degraded("timed out".into(), "timed out"),
        }
    }

    /// The new window, moved out of the old one: earlier summaries (or
    /// those the summary keeps), the summary, the old rounds' side that
    /// stays verbatim (HIST-8), then the retained messages.
    fn without_archived(
        &mut self,
        summaries: usize,
        archived_at: &[usize],
        summary: Option<Message>,
        keep_earlier: bool,
    ) -> Vec<Message> {
        let old = self.window.take();
        let mut window: Vec<Message> = Vec::with_capacity(old.len() + 1 - archived_at.len());
        let mut next_archived = archived_at.iter().copied().peekable();
        let new_summary = summary.is_some();
        let mut summary = summary;
        for (i, m) in old.into_iter().enumerate() {
            if i < summaries {
                // A summary made now replaces the earlier ones; a notice
                // replaces only the earlier notices.
                if !new_summary || (keep_earlier && !is_degraded(&m)) {
                    window.push(m);
                }
                continue;
            }
            // Archived messages are never empty when there is a summary,
            // so it goes before the first of the body.
            if i == summaries {
                window.extend(summary.take());
            }
            if next_archived.peek() == Some(&(i - summaries)) {
                next_archived.next();
                continue;
            }
            window.push(m);
        }
        window
    }

    /// HIST-6: clear tool results oldest first, then cut long arguments,
    /// keeping the newest `keep_tool_messages` tool messages intact.
    /// Returns the indices of the messages it changed, in order.
    fn fit_budget(&mut self, budget: usize, stats: &mut CompactionStats) -> Vec<usize> {
        let mut changed = Vec::new();
        // Messages the model left out (HIST-10) are not in the window:
        // they neither count nor shrink.
        if self.window_tokens() <= budget {
            return changed;
        }
        let tools: Vec<usize> = self
            .window
            .messages()
            .iter()
            .enumerate()
            .filter(|(_, m)| m.role == Role::Tool && !self.is_protected(m) && !m.is_pinned())
            .map(|(i, _)| i)
            .collect();
        let pinned = History::pinned_positions(self.window.messages());
        let preferred = tools.len().saturating_sub(self.config.keep_tool_messages);
        // Calls before the newest kept results, and everything before the
        // last user message (the task in progress stays whole).
        let old_end = tools.get(preferred).copied().unwrap_or(self.window.len());
        let last_user = self.window.messages().iter().rposition(|m| m.role == Role::User);
        // What may shrink, in order (HIST-6, HIST-16): the older results;
        // the older calls' arguments and thoughts; long user messages of
        // earlier rounds; then the preferences yield: the newest
        // `keep_tool_messages` results and every call's arguments.
        let mut stages: Vec<(usize, Shrink)> = Vec::new();
        stages.extend(tools[..preferred].iter().map(|&i| (i, Shrink::Clear)));
        stages.extend((0..old_end).map(|i| (i, Shrink::Step)));
        stages.extend((0..last_user.unwrap_or(0)).map(|i| (i, Shrink::User)));
        stages.extend(tools[preferred..].iter().map(|&i| (i, Shrink::Clear)));
        stages.extend((old_end..self.window.len()).map(|i| (i, Shrink::Step)));
        for (i, shrink) in stages {
            if self.window_tokens() <= budget {
                break;
            }
            let messages = self.window.messages();
            if pinned.contains(&i) || self.window.hides(&messages[i].id) {
                continue;
            }
            // A cleared result keeps what came of its call.
            let call = match shrink {
                Shrink::Clear => call_answered(&messages[..i], &messages[i]),
                _ => None,
            };
            let n = self.window.edit(i, &*self.counter, |m| match shrink {
                Shrink::Clear => usize::from(clear_result(m, call.as_ref())),
                Shrink::Step => shrink_step(m),
                Shrink::User => usize::from(cut_user_message(m)),
            });
            if n == 0 {
                continue;
            }
            match self.window.messages()[i].role {
                Role::Tool => stats.tool_results_cleared += n,
                Role::Assistant => stats.arguments_cut += n,
                _ => {}
            }
            changed.push(i);
        }
        changed.sort_unstable();
        changed.dedup();
        changed
    }
}

/// One way a message of the window may shrink to fit the budget (HIST-6,
/// HIST-16).
#[derive(Debug, Clone, Copy)]
enum Shrink {
    /// A tool result cleared, its outcome kept ([`clear_result`]).
    Clear,
    /// A call's arguments and thought cut ([`shrink_step`]).
    Step,
    /// A long user message of an earlier round cut ([`cut_user_message`]).
    User,
}

/// The call `result` answers, from the newest assistant message of
/// `before` that made it.
fn call_answered(before: &[Message], result: &Message) -> Option<strata_ctx_core::ToolCall> {
    let id = result.tool_call_id.as_deref()?;
    before
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant)
        .find_map(|m| m.tool_calls.iter().find(|c| c.id == id))
        .cloned()
}

/// The messages a compaction archives: after the window's `summaries`
/// leading summaries, at positions `at`, with their `ids`; the window keeps
/// what follows `kept_from`.
struct Archived<'a> {
    summaries: usize,
    kept_from: usize,
    at: &'a [usize],
    ids: &'a [MessageId],
    last_created: Option<strata_ctx_core::Timestamp>,
    /// The room of the quoted last steps ([`tail::last_steps`]), in
    /// characters; 0 for none.
    tail_chars: usize,
}

/// `text` with the working facts it left out appended, deterministically
/// (#30.6): no summary loses a working fact. `stats` says how many facts
/// there were and how many were added.
fn with_missing_facts(mut text: String, digest: &Digest, stats: &mut CompactionStats) -> String {
    stats.summary_facts = digest.fact_count();
    let missing = digest.missing_from(&text);
    stats.summary_facts_added = missing.len();
    if !missing.is_empty() {
        text.push_str(MISSING_FACTS_HEADING);
        for fact in &missing {
            text.push_str("\n- ");
            text.push_str(fact);
        }
    }
    text
}

/// The summary message of `text` for the archived messages `archived`:
/// it says how to get them back from the full log (#30.5), and its id
/// follows from them.
fn summary_message(
    text: String,
    archived: &[MessageId],
    created: Option<strata_ctx_core::Timestamp>,
) -> Message {
    let text = match (archived.first(), archived.last()) {
        (Some(first), Some(last)) => format!(
            "{text}{}{} to {}]",
            tail::RECALL_LINE,
            recall_handle(first),
            last.short()
        ),
        _ => text,
    };
    let first = archived.first().map(ToString::to_string).unwrap_or_default();
    let last = archived.last().map(ToString::to_string).unwrap_or_default();
    Message::summary(text)
        .with_id(MessageId::derived(&format!("strata:summary:{first}:{last}")))
        .with_created_at(created)
}

//! What a session's model calls cost under each strategy, with prompt
//! caching (EVAL-1, #32): Strata's windows and the peers' strategies at
//! the same budget, each call priced by the same [`PromptCache`] over the
//! same chat rendering, so that the figures compare.

use std::collections::HashSet;

use serde::Serialize;
use strata_ctx_core::{Message, Role, TokenCounter};

use super::{mask_observations, trim_newest_first, MASK_KEEP};
use crate::prompt_cache::{CacheRule, CacheUse, ChatRequest, PromptCache};

/// A strategy for what a session's model calls send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Strategy {
    /// Strata's window where the agent called the model
    /// ([`calls_after_steps`](crate::replay::calls_after_steps)).
    Strata,
    /// Everything so far, whatever the budget: for scale.
    Full,
    /// Newest-first trimming ([`trim_newest_first`]), LangChain's
    /// `trim_messages(strategy="last")`.
    Trim,
    /// SWE-agent's observation masking of all but the newest five outputs
    /// ([`mask_observations`]), trimmed when still over.
    Mask,
    /// opencode's prune: the newest tool outputs worth a fifth of the
    /// window stay; older ones are cleared for good, but only when that
    /// frees a tenth of the window at once; trimmed when still over.
    Opencode,
    /// Codex-style compaction: when a request is over the budget, the
    /// history becomes the task, a summary and the newest messages worth a
    /// fifth of the budget; later calls append to it. Its summarising
    /// calls are priced too.
    Codex,
}

impl Strategy {
    /// The peers' strategies, in the order reports list them.
    pub const BASELINES: [Strategy; 5] = [
        Strategy::Full,
        Strategy::Trim,
        Strategy::Mask,
        Strategy::Opencode,
        Strategy::Codex,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Strata => "strata",
            Strategy::Full => "full",
            Strategy::Trim => "newest-first",
            Strategy::Mask => "masking",
            Strategy::Opencode => "opencode-prune",
            Strategy::Codex => "codex-compact",
        }
    }
}

/// What one strategy's calls cost over a session (or a set of them).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StrategyCost {
    /// The strategy.
    pub strategy: Strategy,
    /// Its calls as Anthropic's cache serves them.
    #[serde(skip)]
    pub anthropic: CacheUse,
    /// Its calls as OpenAI's cache serves them.
    #[serde(skip)]
    pub openai: CacheUse,
    /// The session's working facts.
    pub facts: usize,
    /// Those its final window keeps.
    pub kept: usize,
}

impl StrategyCost {
    /// Nothing yet.
    pub fn new(strategy: Strategy) -> Self {
        StrategyCost {
            strategy,
            anthropic: CacheUse::default(),
            openai: CacheUse::default(),
            facts: 0,
            kept: 0,
        }
    }

    /// Adds another session's calls of the same strategy.
    pub fn add(&mut self, other: &StrategyCost) {
        self.anthropic += other.anthropic;
        self.openai += other.openai;
        self.facts += other.facts;
        self.kept += other.kept;
    }

    /// The input billed by Anthropic, in units of the plain input price.
    pub fn anthropic_units(&self) -> f64 {
        CacheRule::Anthropic.units(&self.anthropic)
    }

    /// The input billed by OpenAI, in units of the plain input price.
    pub fn openai_units(&self) -> f64 {
        CacheRule::OpenAi.units(&self.openai)
    }
}

/// Prices the calls of one strategy: each request rendered as the chat
/// API's messages and counted by `counter`, under both cache rules.
pub struct Pricer<'a> {
    cost: StrategyCost,
    anthropic: PromptCache,
    openai: PromptCache,
    counter: &'a dyn TokenCounter,
}

impl std::fmt::Debug for Pricer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pricer")
            .field("cost", &self.cost)
            .finish_non_exhaustive()
    }
}

impl<'a> Pricer<'a> {
    /// A pricer of `strategy`'s calls.
    pub fn new(strategy: Strategy, counter: &'a dyn TokenCounter) -> Self {
        Pricer {
            cost: StrategyCost::new(strategy),
            anthropic: PromptCache::new(CacheRule::Anthropic),
            openai: PromptCache::new(CacheRule::OpenAi),
            counter,
        }
    }

    /// One call that sends `request`.
    pub fn call(&mut self, request: &[Message]) {
        self.bill(&ChatRequest::of_messages(request));
    }

    /// One call that sends `rendered`, chat messages as JSON values.
    pub fn call_rendered(&mut self, rendered: &[serde_json::Value]) {
        self.bill(&ChatRequest::of_values(rendered));
    }

    /// One call that sends `window`: what it holds unchanged since the
    /// previous window is neither rendered nor counted again
    /// ([`PromptCache::call_window`]).
    pub fn call_window(&mut self, window: &crate::Window) {
        self.cost.anthropic += self.anthropic.call_window(window, self.counter);
        self.cost.openai += self.openai.call_window(window, self.counter);
    }

    fn bill(&mut self, request: &ChatRequest) {
        self.cost.anthropic += self.anthropic.call_request(request, self.counter);
        self.cost.openai += self.openai.call_request(request, self.counter);
    }

    /// What the calls cost.
    pub fn cost(&self) -> StrategyCost {
        self.cost
    }
}

/// The marker of an output opencode's prune cleared.
const PRUNED: &str = "[Old tool result content cleared]";

/// The peers' strategies over `messages`, one call after each step (when
/// a run of tool results ends), at `budget` tokens of a `window`-token
/// context: what each costs, and the last request each would send (its
/// final window, for the facts).
pub fn baselines(
    messages: &[Message],
    budget: usize,
    window: usize,
    counter: &dyn TokenCounter,
) -> Vec<(StrategyCost, Vec<Message>)> {
    let ends: Vec<usize> = (0..messages.len())
        .filter(|&i| {
            messages[i].role == Role::Tool && messages.get(i + 1).is_none_or(|m| m.role != Role::Tool)
        })
        .map(|i| i + 1)
        .collect();
    Strategy::BASELINES
        .iter()
        .map(|&strategy| {
            let mut pricer = Pricer::new(strategy, counter);
            let mut state = State::default();
            for &end in &ends {
                let request = state.request(strategy, &messages[..end], budget, window, counter, &mut pricer);
                pricer.call(&request);
            }
            let last = state.request(strategy, messages, budget, window, counter, &mut pricer);
            (pricer.cost(), last)
        })
        .collect()
}

/// What a strategy keeps between calls: opencode's pruned outputs,
/// Codex's compacted history.
#[derive(Debug, Default)]
struct State {
    /// Indexes of the outputs pruned for good.
    pruned: HashSet<usize>,
    /// The compacted history and how many messages of the session it has
    /// taken in.
    history: Vec<Message>,
    taken: usize,
}

impl State {
    fn request(
        &mut self,
        strategy: Strategy,
        seen: &[Message],
        budget: usize,
        window: usize,
        counter: &dyn TokenCounter,
        pricer: &mut Pricer<'_>,
    ) -> Vec<Message> {
        match strategy {
            Strategy::Strata | Strategy::Full => seen.to_vec(),
            Strategy::Trim => trim_newest_first(seen, budget, counter),
            Strategy::Mask => trim_newest_first(&mask_observations(seen, MASK_KEEP), budget, counter),
            Strategy::Opencode => trim_newest_first(&self.prune(seen, window, counter), budget, counter),
            Strategy::Codex => self.compact(seen, budget, counter, pricer),
        }
    }

    /// opencode's prune before a call: walking back from the newest
    /// output, the outputs past the newest fifth of the window are
    /// cleared, for good, when together they free a tenth of it.
    fn prune(&mut self, seen: &[Message], window: usize, counter: &dyn TokenCounter) -> Vec<Message> {
        let (protect, minimum) = (window / 5, window / 10);
        let mut newest = 0;
        let mut candidates = Vec::new();
        let mut freed = 0;
        for (i, m) in seen.iter().enumerate().rev() {
            if m.role != Role::Tool || self.pruned.contains(&i) {
                continue;
            }
            let tokens = counter.count_message(m);
            if newest < protect {
                newest += tokens;
            } else {
                candidates.push(i);
                freed += tokens;
            }
        }
        if freed >= minimum {
            self.pruned.extend(candidates);
        }
        seen.iter()
            .enumerate()
            .map(|(i, m)| {
                if self.pruned.contains(&i) {
                    let mut cleared = m.clone();
                    cleared.result = None;
                    cleared.content = PRUNED.into();
                    cleared
                } else {
                    m.clone()
                }
            })
            .collect()
    }

    /// Codex-style compaction before a call: new messages join the
    /// history; over the budget, a summarising call reads it all, and the
    /// history becomes the task, the summary and the newest messages worth
    /// a fifth of the budget.
    fn compact(
        &mut self,
        seen: &[Message],
        budget: usize,
        counter: &dyn TokenCounter,
        pricer: &mut Pricer<'_>,
    ) -> Vec<Message> {
        self.history.extend(seen[self.taken..].iter().cloned());
        self.taken = seen.len();
        if counter.count_messages(&self.history) <= budget {
            return self.history.clone();
        }
        let mut summarising = self.history.clone();
        summarising.push(Message::user(COMPACT_PROMPT));
        pricer.call(&summarising);
        let head_len = seen
            .iter()
            .take(2)
            .take_while(|m| matches!(m.role, Role::System | Role::User))
            .count();
        let newest = trim_newest_first(
            &self.history[head_len.min(self.history.len())..],
            budget / 5,
            counter,
        );
        let mut compacted: Vec<Message> = seen[..head_len].to_vec();
        compacted.push(Message::user(summary_stand_in()));
        compacted.extend(newest);
        self.history = compacted;
        self.history.clone()
    }
}

/// The request of Codex's summarising call, after the history.
const COMPACT_PROMPT: &str = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff \
summary for another LLM that will resume the task: current progress and key decisions made, \
important context, constraints or user preferences, what remains to be done (clear next steps), \
and any critical data, examples or references needed to continue. Be concise, structured, and \
focused on helping the next LLM seamlessly continue the work.";

/// The summary that stands in Codex's compacted history: 2,000
/// characters, as large as a real one and with none of the session's
/// facts (what it would keep is the model's).
fn summary_stand_in() -> String {
    let line = "Summary of the work so far: progress, decisions, constraints and next steps.\n";
    line.repeat(2_000 / line.len() + 1)[..2_000].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use strata_ctx_core::{CharCounter, ToolCall, ToolResult};

    /// A session of `steps` steps, each printing `lines` lines.
    fn session(steps: usize, lines: usize) -> Vec<Message> {
        let mut messages = vec![
            Message::system("You are a coding agent."),
            Message::user("Fix the build."),
        ];
        for i in 0..steps {
            let call = ToolCall::new(
                format!("c{i}"),
                "bash",
                json!({"command": format!("make step{i}")}),
            );
            let out: String = (0..lines).map(|l| format!("step {i} line {l}\n")).collect();
            messages.push(Message::assistant_with_calls("next", vec![call.clone()]));
            messages.push(Message::tool_result(&call, ToolResult::success(out)));
        }
        messages
    }

    fn by(costs: &[(StrategyCost, Vec<Message>)], s: Strategy) -> &(StrategyCost, Vec<Message>) {
        costs.iter().find(|(c, _)| c.strategy == s).unwrap()
    }

    /// One call per step for every strategy; only the unmanaged one goes
    /// over the budget; an append-only history is read from the cache.
    #[test]
    fn every_strategy_calls_once_a_step_within_the_budget() {
        let messages = session(60, 20);
        let costs = baselines(&messages, 4_000, 5_000, &CharCounter);
        for (cost, last) in &costs {
            let extra = if cost.strategy == Strategy::Codex {
                cost.anthropic.calls - 60
            } else {
                0
            };
            assert_eq!(cost.anthropic.calls, 60 + extra, "{:?}", cost.strategy);
            let tokens = CharCounter.count_messages(last);
            if cost.strategy == Strategy::Full {
                assert!(tokens > 4_000);
                assert!(cost.anthropic.hit_rate() > 0.9, "append-only");
            } else {
                assert!(tokens <= 4_000 + 400, "{:?}: {tokens}", cost.strategy);
            }
        }
        let codex = by(&costs, Strategy::Codex);
        assert!(codex.0.anthropic.calls > 60, "its summarising calls are priced");
        assert!(codex
            .1
            .iter()
            .any(|m| m.text().starts_with("Summary of the work")));
        // Trimming cuts at every call once full: little is served from
        // the cache, so it costs more than compaction.
        let trim = by(&costs, Strategy::Trim);
        assert!(trim.0.anthropic.hit_rate() < codex.0.anthropic.hit_rate());
        assert!(trim.0.anthropic_units() > codex.0.anthropic_units());
    }

    /// opencode clears old outputs for good, only in batches of a tenth
    /// of the window, and never the newest fifth.
    #[test]
    fn opencode_prunes_in_batches_and_keeps_the_newest() {
        let messages = session(60, 20);
        let costs = baselines(&messages, 4_000, 5_000, &CharCounter);
        let (_, last) = by(&costs, Strategy::Opencode);
        let pruned = last.iter().filter(|m| m.text() == PRUNED).count();
        assert!(pruned > 0);
        assert!(last.last().is_some_and(|m| m.text().contains("step 59 line 19")));
        let mut state = State::default();
        let few = session(3, 20);
        let kept = state.prune(&few, 5_000, &CharCounter);
        assert!(kept.iter().all(|m| m.text() != PRUNED), "too little to free");
    }
}

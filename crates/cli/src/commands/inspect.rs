//! `strata-ctx inspect`: what a conversation is made of.

use std::collections::BTreeMap;

use clap::Args;
use serde_json::{json, Value};
use strata_ctx::history::Record;
use strata_ctx::types::{PairIssue, ShortIds};
use strata_ctx::{
    rounds, Message, Pairs, Price, PriceTable, Role, SessionContext, SessionLimits, TokenCounter, Usage,
};

use super::{out, out_json_pretty, share};
use crate::error::CliError;
use crate::input::{read_conversation, Conversation};

/// Arguments of `strata-ctx inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The conversation (stdin when absent or `-`).
    file: Option<std::path::PathBuf>,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Estimates what the conversation's calls cost at this model's price
    /// (from Strata's price table), each call sending the whole
    /// conversation before it.
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// The price to estimate with instead, in US dollars per million input
    /// and output tokens (`2.5,10`).
    #[arg(long, value_name = "IN,OUT")]
    price: Option<String>,
    /// Also shows this user's long-term memory (MEM-2), from the memory
    /// store in `--memory-dir`.
    #[arg(long = "user-id", value_name = "NAME")]
    user: Option<String>,
    /// The memory store, with `--user-id`: a directory or a PostgreSQL
    /// URL.
    #[arg(long, value_name = "DIR|URL", default_value = ".strata/memory")]
    memory_dir: String,
}

/// What a conversation log says beyond its messages: the session context
/// (MEM-1) as its changes rebuild it, and the follow-up suggestions made
/// (MEM-3); and the user's long-term memory (MEM-2) when asked for.
fn memory_of(args: &InspectArgs, records: &[Record]) -> Result<Value, CliError> {
    let mut session = SessionContext::new(SessionLimits::default());
    let mut suggestions = Vec::new();
    for record in records {
        match record {
            Record::Session { update } => {
                let _ = session.apply(update);
            }
            Record::Suggestions { items } => suggestions.extend(items.iter().cloned()),
            _ => {}
        }
    }
    let session: BTreeMap<&str, &str> = session.entries().map(|(k, e)| (k, e.value.as_str())).collect();
    let mut report = json!({"session_context": session, "suggestions": suggestions});
    if let Some(user) = &args.user {
        let memory = super::memory::open_memory(&args.memory_dir, user)?;
        let facts: Vec<Value> = memory
            .facts()
            .iter()
            .map(|f| json!({"id": f.id, "text": f.text}))
            .collect();
        report["long_term_memory"] = json!({"user": user, "facts": facts});
    }
    Ok(report)
}

/// The price `--price` or `--model` asks for, if any: the price given,
/// or the model's from Strata's price table.
pub(super) fn price_of(
    model: Option<&str>,
    price: Option<&str>,
) -> Result<Option<(String, Price)>, CliError> {
    if let Some(text) = price {
        let price: Price = text.parse().map_err(|_| {
            CliError::Input(format!(
                "--price {text}: expected INPUT,OUTPUT in dollars per million tokens"
            ))
        })?;
        let name = model.map_or_else(|| "the given price".into(), str::to_owned);
        return Ok(Some((name, price)));
    }
    match model {
        Some(model) => PriceTable::builtin()
            .get(model)
            .map(|p| Some((model.to_owned(), p)))
            .ok_or_else(|| {
                CliError::Input(format!(
                    "--model {model}: no price is known for it; give --price IN,OUT"
                ))
            }),
        None => Ok(None),
    }
}

/// The estimated cost of each assistant message's call, by message index:
/// the tokens before it as input, its own as output (MODEL-5).
fn call_costs(counts: &[usize], messages: &[Message], price: &Price) -> Vec<f64> {
    let mut before = 0usize;
    let mut costs = vec![0.0; messages.len()];
    for (i, (m, n)) in messages.iter().zip(counts).enumerate() {
        if m.role == Role::Assistant {
            costs[i] = price.cost(&Usage::new(before as u64, *n as u64));
        }
        before += n;
    }
    costs
}

/// A pairing problem as a sentence and as JSON.
pub fn describe(issue: &PairIssue, messages: &[Message]) -> (String, Value) {
    let tool = |i: usize, call: usize| {
        messages
            .get(i)
            .and_then(|m| m.tool_calls.get(call))
            .map(|c| c.name.clone())
            .unwrap_or_default()
    };
    match issue {
        PairIssue::UnansweredCall { site, call_id } => (
            format!(
                "message {}: call {call_id} ({}) has no result",
                site.message,
                tool(site.message, site.call)
            ),
            json!({"kind": "unanswered_call", "message": site.message, "call_id": call_id}),
        ),
        PairIssue::OrphanResult { message, call_id } => (
            format!(
                "message {message}: result for {} with no call before it",
                call_id
                    .as_deref()
                    .map_or("no call id".to_owned(), |c| format!("call {c}"))
            ),
            json!({"kind": "orphan_result", "message": message, "call_id": call_id}),
        ),
        PairIssue::DuplicateResult { message, call_id } => (
            format!("message {message}: a second result for call {call_id}"),
            json!({"kind": "duplicate_result", "message": message, "call_id": call_id}),
        ),
        PairIssue::DuplicateCallId { site, call_id } => (
            format!("message {}: call id {call_id} used twice", site.message),
            json!({"kind": "duplicate_call_id", "message": site.message, "call_id": call_id}),
        ),
        PairIssue::MisplacedResult { message, call_id } => (
            format!("message {message}: result for call {call_id} does not follow its call (reading the history moves it there)"),
            json!({"kind": "misplaced_result", "message": message, "call_id": call_id}),
        ),
        other => (
            format!("{other:?}"),
            json!({"kind": "other", "detail": format!("{other:?}")}),
        ),
    }
}

/// Runs `strata-ctx inspect`.
pub fn run(args: &InspectArgs, counter: &dyn TokenCounter) -> Result<(), CliError> {
    let price = price_of(args.model.as_deref(), args.price.as_deref())?;
    let conversation = read_conversation(args.file.as_ref())?;
    let report = Report::new(
        &conversation,
        counter,
        price,
        memory_of(args, &conversation.records)?,
    );
    if args.json {
        return out_json_pretty(&report.json(args));
    }
    out(&report.text())
}

/// What `inspect` found in a conversation, shown as text or JSON.
struct Report<'a> {
    conversation: &'a Conversation,
    total: usize,
    by_role: BTreeMap<&'static str, usize>,
    tool_tokens: usize,
    rounds: Vec<Value>,
    calls: usize,
    price: Option<(String, Price)>,
    session_cost: Option<f64>,
    problems: Vec<(String, Value)>,
    memory: Value,
}

impl<'a> Report<'a> {
    fn new(
        conversation: &'a Conversation,
        counter: &dyn TokenCounter,
        price: Option<(String, Price)>,
        memory: Value,
    ) -> Report<'a> {
        let messages = &conversation.messages;
        let counts: Vec<usize> = messages.iter().map(|m| counter.count_message(m)).collect();
        let mut by_role: BTreeMap<&'static str, usize> = BTreeMap::new();
        for (m, n) in messages.iter().zip(&counts) {
            *by_role.entry(m.role.as_str()).or_default() += n;
        }
        let costs = price.as_ref().map(|(_, p)| call_costs(&counts, messages, p));
        let pairs = Pairs::new(messages);
        Report {
            conversation,
            total: counts.iter().sum(),
            tool_tokens: by_role.get(Role::Tool.as_str()).copied().unwrap_or(0),
            by_role,
            rounds: round_rows(messages, &counts, costs.as_deref()),
            calls: messages.iter().filter(|m| m.role == Role::Assistant).count(),
            session_cost: costs.as_ref().map(|c| c.iter().sum()),
            price,
            problems: pairs.issues().iter().map(|i| describe(i, messages)).collect(),
            memory,
        }
    }

    fn json(&self, args: &InspectArgs) -> Value {
        let conversation = self.conversation;
        let mut report = json!({
            "source": conversation.source,
            "format": conversation.format.name(),
            "messages": conversation.messages.len(),
            "rounds": self.rounds.len(),
            "tokens": self.total,
            "tokens_by_role": self.by_role,
            "tool_output_tokens": self.tool_tokens,
            "tool_output_share": share(self.tool_tokens, self.total),
            "pairing_problems": self.problems.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(),
            "rounds_detail": self.rounds,
        });
        if let (Some((model, _)), Some(total)) = (&self.price, self.session_cost) {
            report["cost_usd"] = json!({"model": model, "calls": self.calls, "session": total});
        }
        if !conversation.records.is_empty() {
            report["session_context"] = self.memory["session_context"].clone();
            report["suggestions"] = self.memory["suggestions"].clone();
        }
        if args.user.is_some() {
            report["long_term_memory"] = self.memory["long_term_memory"].clone();
        }
        report
    }

    fn text(&self) -> String {
        let (conversation, total) = (self.conversation, self.total);
        let mut text = format!(
            "{} ({})\n{} messages, {} rounds, {total} tokens\n\n",
            conversation.source,
            conversation.format.name(),
            conversation.messages.len(),
            self.rounds.len()
        );
        for (role, tokens) in &self.by_role {
            text.push_str(&format!(
                "  {role:<10} {tokens:>9} tokens {:>6.1}%\n",
                100.0 * share(*tokens, total)
            ));
        }
        text.push_str(&format!(
            "  tool output is {:.1}% of the tokens\n\n",
            100.0 * share(self.tool_tokens, total)
        ));
        for r in &self.rounds {
            text.push_str(&round_line(r));
        }
        if let (Some((model, _)), Some(total)) = (&self.price, self.session_cost) {
            text.push_str(&format!(
                "\nestimated cost at {model}'s price: ${total:.4} for {} calls, each sending the whole conversation before it\n",
                self.calls
            ));
        }
        text.push_str(&memory_text(&self.memory));
        if self.problems.is_empty() {
            text.push_str("\nevery tool call has its result\n");
        } else {
            text.push_str(&format!("\n{} pairing problem(s):\n", self.problems.len()));
            for (line, _) in &self.problems {
                text.push_str(&format!("  {line}\n"));
            }
        }
        text
    }
}

/// One row per round: its id, size, steps, tokens, tool output and first
/// words, and its cost when `costs` (per message) are known.
fn round_rows(messages: &[Message], counts: &[usize], costs: Option<&[f64]>) -> Vec<Value> {
    let ids = ShortIds::new(messages.iter().map(|m| m.id));
    rounds(messages)
        .iter()
        .enumerate()
        .map(|(n, range)| {
            let part = &messages[range.clone()];
            let tokens: usize = counts[range.clone()].iter().sum();
            let tool: usize = part
                .iter()
                .zip(&counts[range.clone()])
                .filter(|(m, _)| m.role == Role::Tool)
                .map(|(_, n)| n)
                .sum();
            let first = &messages[range.start];
            let mut row = json!({
                "round": n + 1,
                "id": ids.short(&first.id).unwrap_or_default(),
                "messages": range.len(),
                "steps": part.iter().filter(|m| m.has_tool_calls()).count(),
                "tokens": tokens,
                "tool_output_tokens": tool,
                "user": first.content.chars().take(80).collect::<String>(),
            });
            if let Some(costs) = costs {
                row["cost_usd"] = json!(costs[range.clone()].iter().sum::<f64>());
            }
            row
        })
        .collect()
}

/// A round's row as a line of text.
fn round_line(r: &Value) -> String {
    let n = |k: &str| r[k].as_u64().unwrap_or(0);
    let user: String = r["user"]
        .as_str()
        .unwrap_or_default()
        .replace('\n', " ")
        .chars()
        .take(50)
        .collect();
    let cost = r["cost_usd"]
        .as_f64()
        .map(|usd| format!(" ${usd:>9.4}"))
        .unwrap_or_default();
    format!(
        "round {:>3} [{}] {:>4} messages {:>4} steps {:>8} tokens ({:>3.0}% tool output){cost}  {user:?}\n",
        n("round"),
        r["id"].as_str().unwrap_or_default(),
        n("messages"),
        n("steps"),
        n("tokens"),
        100.0 * share(n("tool_output_tokens") as usize, n("tokens") as usize),
    )
}

/// The session context, suggestions and long-term memory found, as text.
fn memory_text(memory: &Value) -> String {
    let mut text = String::new();
    if let Some(session) = memory["session_context"].as_object().filter(|s| !s.is_empty()) {
        text.push_str("\nsession context:\n");
        for (key, value) in session {
            text.push_str(&format!("  {key}: {}\n", value.as_str().unwrap_or_default()));
        }
    }
    if let Some(items) = memory["suggestions"].as_array().filter(|s| !s.is_empty()) {
        text.push_str("\nfollow-up suggestions made:\n");
        for item in items {
            text.push_str(&format!("  {}\n", item.as_str().unwrap_or_default()));
        }
    }
    if let Some(facts) = memory["long_term_memory"]["facts"].as_array() {
        let user = memory["long_term_memory"]["user"].as_str().unwrap_or_default();
        text.push_str(&format!(
            "\nlong-term memory of {user}: {} fact(s)\n",
            facts.len()
        ));
        for f in facts {
            text.push_str(&format!(
                "  {:<5} {}\n",
                f["id"].as_str().unwrap_or_default(),
                f["text"].as_str().unwrap_or_default()
            ));
        }
    }
    text
}

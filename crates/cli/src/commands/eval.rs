//! `strata-ctx eval`: what the window keeps of each session's working facts,
//! and what history forms keep of command outputs, beside the baselines
//! (EVAL-1, EVAL-2).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use serde_json::{json, Value};
use strata_ctx::eval::{
    facts_kept, retention, Facts, FactsReport, OutputRetention, RetentionTotals, Strategy, StrategyCost,
    Tally,
};
use strata_ctx::{Compressor, Config, Engine, TokenCounter};

use super::{out, out_json_pretty};
use crate::error::CliError;
use crate::input::parse;

mod html;

/// Arguments of `strata-ctx eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Transcripts: files, or directories whose `.json` and `.jsonl`
    /// files are read (in name order).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Context windows to replay at, comma-separated (`16000,32k`).
    #[arg(long, value_name = "N[,N…]", default_value = "16000,32000")]
    windows: String,
    /// Sessions with fewer tool steps are left out of the facts (short
    /// sessions fit any window).
    #[arg(long, value_name = "N", default_value_t = 30)]
    min_steps: usize,
    /// One line per session and window, and per command output.
    #[arg(long)]
    per: bool,
    /// The report as JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also writes a self-contained HTML report to FILE: per session, the
    /// window's tokens at every step against the threshold, and the facts
    /// kept and lost.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// One transcript as read.
struct Session {
    name: String,
    messages: Vec<strata_ctx::Message>,
    steps: usize,
}

fn sessions(paths: &[PathBuf]) -> Result<Vec<Session>, CliError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|e| {
                CliError::Input(format!("{}: cannot read the directory: {e}", path.display()))
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json" || x == "jsonl"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    if files.is_empty() {
        return Err(CliError::Input(
            "no transcript found (.json or .jsonl files)".into(),
        ));
    }
    files
        .iter()
        .map(|path| {
            let bytes = std::fs::read(path)
                .map_err(|e| CliError::Input(format!("{}: cannot read: {e}", path.display())))?;
            let (_, messages) =
                parse(&bytes).map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?;
            let steps = messages.iter().filter(|m| m.has_tool_calls()).count();
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            Ok(Session {
                name,
                messages,
                steps,
            })
        })
        .collect()
}

fn windows(text: &str) -> Result<Vec<Config>, CliError> {
    text.split(',')
        .map(|w| {
            let mut config = Config::default();
            config
                .set("context_window", w.trim())
                .and_then(|()| config.validate())
                .map_err(|e| CliError::Input(format!("--windows {w}: {e}")))?;
            Ok(config)
        })
        .collect()
}

/// The facts of one session at one window.
struct Row<'a> {
    session: &'a Session,
    report: FactsReport,
}

fn pct(part: usize, whole: usize) -> f64 {
    100.0 * super::share(part, whole)
}

/// Runs `strata-ctx eval`.
pub async fn run(args: &EvalArgs, counter: Arc<dyn TokenCounter>) -> Result<(), CliError> {
    let configs = windows(&args.windows)?;
    let sessions = sessions(&args.paths)?;
    let measured: Vec<&Session> = sessions
        .iter()
        .filter(|s| s.steps >= args.min_steps && !Facts::of(&s.messages).is_empty())
        .collect();
    let bar = crate::progress::bar((measured.len() * configs.len()) as u64, "replaying");
    let mut rows: Vec<Vec<Row<'_>>> = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
    for config in &configs {
        let mut at_window = Vec::new();
        for session in &measured {
            bar.set_message(session.name.clone());
            let project = tempfile::tempdir()
                .map_err(|e| CliError::Runtime(format!("cannot create a scratch directory: {e}")))?;
            let mut engine = Engine::builder(project.path())
                .config(config.clone())
                .counter(counter.clone())
                .system_prompt(crate::input::replay_system_prompt(&session.messages))
                .build()?;
            bar.inc(1);
            match facts_kept(&mut engine, &session.messages).await {
                Ok(report) => at_window.push(Row { session, report }),
                // A session this window cannot hold (its task alone is
                // larger than the threshold, say) is reported and left
                // out; the others are still measured.
                Err(e) => skipped.push(Skipped {
                    session: session.name.clone(),
                    window: config.window_tokens(),
                    reason: e.to_string(),
                }),
            }
        }
        rows.push(at_window);
    }
    bar.finish_and_clear();
    let compressor = Compressor::new();
    let outputs: Vec<(&Session, OutputRetention)> = sessions
        .iter()
        .flat_map(|s| {
            retention(&s.messages, &compressor)
                .into_iter()
                .map(move |o| (s, o))
        })
        .collect();
    let totals = RetentionTotals::of(outputs.iter().map(|(_, o)| o));
    if let Some(path) = &args.html {
        html::write(
            path,
            &html::Report {
                rows: &rows,
                totals: &totals,
                skipped: &skipped,
                min_steps: args.min_steps,
            },
        )?;
    }
    if args.json {
        let mut report = report_json(&rows, &outputs, &totals, args.per);
        report["skipped"] = json!(skipped
            .iter()
            .map(|s| json!({"session": s.session, "window": s.window, "reason": s.reason}))
            .collect::<Vec<_>>());
        return out_json_pretty(&report);
    }
    let mut text = report_text(&rows, &outputs, &totals, args);
    if !skipped.is_empty() {
        let _ = writeln!(text, "\nSkipped (the window cannot hold them):");
        for s in &skipped {
            let _ = writeln!(text, "  {:>7}  {}: {}", s.window, s.session, s.reason);
        }
    }
    out(&text)
}

/// A session a window could not replay, and why.
struct Skipped {
    session: String,
    window: u64,
    reason: String,
}

/// The totals of one window over its sessions.
struct Totals {
    window: usize,
    threshold: usize,
    sessions: usize,
    all: Tally,
    files: Tally,
    commands: Tally,
    errors: Tally,
}

impl Totals {
    fn of(rows: &[Row<'_>]) -> Option<Totals> {
        let first = rows.first()?;
        let mut t = Totals {
            window: first.report.window,
            threshold: first.report.threshold,
            sessions: rows.len(),
            all: Tally::default(),
            files: Tally::default(),
            commands: Tally::default(),
            errors: Tally::default(),
        };
        for r in rows {
            t.files.add(r.report.files);
            t.commands.add(r.report.commands);
            t.errors.add(r.report.errors);
            t.all.add(r.report.total());
        }
        Some(t)
    }

    /// The table's cells: window, sessions, facts, strata %, trim %, and
    /// kept/total of files, commands, errors.
    fn cells(&self) -> [String; 9] {
        let frac = |t: Tally| format!("{}/{}", t.strata, t.facts);
        [
            self.window.to_string(),
            self.sessions.to_string(),
            self.all.facts.to_string(),
            format!("{:.1}%", pct(self.all.strata, self.all.facts)),
            format!("{:.1}%", pct(self.all.trim, self.all.facts)),
            format!("{:.1}%", pct(self.all.mask, self.all.facts)),
            frac(self.files),
            frac(self.commands),
            frac(self.errors),
        ]
    }
}

/// The headings of [`Totals::cells`].
const HEADINGS: [&str; 9] = [
    "window",
    "sessions",
    "facts",
    "strata",
    "newest-first",
    "masking",
    "files",
    "commands",
    "errors",
];

fn report_text(
    rows: &[Vec<Row<'_>>],
    outputs: &[(&Session, OutputRetention)],
    totals: &RetentionTotals,
    args: &EvalArgs,
) -> String {
    let mut s = String::new();
    let frac = |t: Tally| format!("{}/{}", t.strata, t.facts);
    let _ = writeln!(
        s,
        "Working facts in the final window (sessions of {} steps or more)\n",
        args.min_steps
    );
    let line = |cells: &[String]| aligned(cells, &[8, 8, 6, 7, 14, 9, 9, 9, 9]);
    let _ = writeln!(s, "{}", line(&HEADINGS.map(str::to_owned)));
    for at_window in rows {
        let Some(t) = Totals::of(at_window) else { continue };
        let _ = writeln!(s, "{}", line(&t.cells()));
        if args.per {
            for r in at_window {
                let all = r.report.total();
                let _ = writeln!(
                    s,
                    "    {:<60} steps {:>4}  strata {:>3}/{:<3} trim {:>3}  errors {}  max window {}",
                    r.session.name,
                    r.session.steps,
                    all.strata,
                    all.facts,
                    all.trim,
                    frac(r.report.errors),
                    r.report.summary.max_window_tokens,
                );
            }
        }
    }
    for at_window in rows {
        let Some(t) = Totals::of(at_window) else { continue };
        let _ = writeln!(
            s,
            "\nWhat the calls cost at {} (input tokens, prompt caching: Anthropic reads 0.1×, writes 1.25×; OpenAI reads 0.5×)\n",
            t.window
        );
        for line in cost_lines(at_window) {
            let _ = writeln!(s, "{line}");
        }
    }
    let _ = writeln!(
        s,
        "\nCommand outputs of 2,000 characters or more: {}, {} → {} characters ({:.1}% smaller)",
        totals.outputs,
        totals.raw_chars,
        totals.strata_chars,
        100.0 * totals.reduction
    );
    let [ours, head, ht] = totals.diagnostics.map(|x| 100.0 * x);
    let _ = writeln!(
        s,
        "diagnostic lines kept: strata {ours:.1}%, head {head:.1}%, head+tail {ht:.1}%"
    );
    let [ours, head, ht] = totals.errors.map(|x| 100.0 * x);
    let _ = writeln!(
        s,
        "error lines kept:      strata {ours:.1}%, head {head:.1}%, head+tail {ht:.1}%"
    );
    if args.per {
        for (session, o) in outputs {
            let _ = writeln!(
                s,
                "    {:<60} {:<10} {:>7} → {:>6} chars  diagnostics {}/{} (head {}, head+tail {})",
                session.name,
                o.program,
                o.raw_chars,
                o.strata_chars,
                o.diagnostics.strata,
                o.diagnostics.lines,
                o.diagnostics.head,
                o.diagnostics.head_tail
            );
        }
    }
    s
}

/// One strategy's calls over the sessions of one window, with their
/// cost as a ratio to newest-first trimming's (Anthropic, OpenAI).
struct CostRow {
    cost: StrategyCost,
    to_trim: (f64, f64),
}

/// Each strategy's calls over the sessions of one window, Strata first.
fn costs(at_window: &[Row<'_>]) -> Vec<CostRow> {
    let mut sums: Vec<StrategyCost> = Vec::new();
    for r in at_window {
        for cost in &r.report.costs {
            match sums.iter_mut().find(|c| c.strategy == cost.strategy) {
                Some(sum) => sum.add(cost),
                None => sums.push(*cost),
            }
        }
    }
    let trim = sums.iter().find(|c| c.strategy == Strategy::Trim).copied();
    let ratio = |ours: f64, theirs: Option<f64>| theirs.filter(|t| *t > 0.0).map_or(0.0, |t| ours / t);
    sums.into_iter()
        .map(|cost| CostRow {
            to_trim: (
                ratio(cost.anthropic_units(), trim.map(|t| t.anthropic_units())),
                ratio(cost.openai_units(), trim.map(|t| t.openai_units())),
            ),
            cost,
        })
        .collect()
}

impl CostRow {
    /// The cost table's cells: the strategy, its calls, input tokens, the
    /// share Anthropic's cache serves, each provider's billed units
    /// (millions) and their ratio to newest-first trimming's, the facts
    /// kept.
    fn cells(&self) -> [String; 9] {
        let (c, (anthropic, openai)) = (&self.cost, self.to_trim);
        [
            c.strategy.name().to_owned(),
            c.anthropic.calls.to_string(),
            c.anthropic.input_tokens.to_string(),
            format!("{:.1}%", 100.0 * c.anthropic.hit_rate()),
            format!("{:.2}M", c.anthropic_units() / 1e6),
            format!("{anthropic:.2}×"),
            format!("{:.2}M", c.openai_units() / 1e6),
            format!("{openai:.2}×"),
            format!("{:.1}%", pct(c.kept, c.facts)),
        ]
    }
}

/// The headings of [`CostRow::cells`].
const COST_HEADINGS: [&str; 9] = [
    "strategy",
    "calls",
    "input tokens",
    "cached",
    "anthropic",
    "×trim",
    "openai",
    "×trim",
    "facts",
];

/// A table line: each cell right-aligned to its width, two spaces apart.
fn aligned(cells: &[String], widths: &[usize]) -> String {
    let row: Vec<String> = cells
        .iter()
        .zip(widths)
        .map(|(c, w)| format!("{c:>w$}"))
        .collect();
    row.join("  ")
}

/// The cost table's lines, headings first.
fn cost_lines(at_window: &[Row<'_>]) -> Vec<String> {
    let line = |cells: &[String]| aligned(cells, &[16, 6, 12, 6, 10, 7, 10, 7, 6]);
    std::iter::once(line(&COST_HEADINGS.map(str::to_owned)))
        .chain(costs(at_window).iter().map(|row| line(&row.cells())))
        .collect()
}

fn cost_json(row: &CostRow) -> Value {
    let c = &row.cost;
    json!({
        "strategy": c.strategy,
        "calls": c.anthropic.calls,
        "input_tokens": c.anthropic.input_tokens,
        "anthropic": {"cache_read_tokens": c.anthropic.cache_read_tokens, "cache_write_tokens": c.anthropic.cache_write_tokens, "units": c.anthropic_units()},
        "openai": {"cache_read_tokens": c.openai.cache_read_tokens, "units": c.openai_units()},
        "facts": c.facts,
        "kept": c.kept,
        "to_trim": {"anthropic": row.to_trim.0, "openai": row.to_trim.1},
    })
}

fn tally_json(t: Tally) -> Value {
    json!({"facts": t.facts, "strata": t.strata, "trim": t.trim, "mask": t.mask})
}

fn report_json(
    rows: &[Vec<Row<'_>>],
    outputs: &[(&Session, OutputRetention)],
    totals: &RetentionTotals,
    per: bool,
) -> Value {
    let facts: Vec<Value> = rows
        .iter()
        .filter_map(|at_window| {
            let t = Totals::of(at_window)?;
            let mut v = json!({
                "window": t.window,
                "threshold": t.threshold,
                "sessions": t.sessions,
                "total": tally_json(t.all),
                "files": tally_json(t.files),
                "commands": tally_json(t.commands),
                "errors": tally_json(t.errors),
                "costs": costs(at_window).iter().map(cost_json).collect::<Vec<_>>(),
            });
            if per {
                v["per_session"] = at_window
                    .iter()
                    .map(|r| {
                        json!({
                            "session": r.session.name,
                            "steps": r.session.steps,
                            "files": tally_json(r.report.files),
                            "commands": tally_json(r.report.commands),
                            "errors": tally_json(r.report.errors),
                            "lost": r.report.lost,
                            "max_window_tokens": r.report.summary.max_window_tokens,
                            "over_budget_steps": r.report.summary.over_budget_steps,
                        })
                    })
                    .collect();
            }
            Some(v)
        })
        .collect();
    let mut retention = json!({
        "outputs": totals.outputs,
        "raw_chars": totals.raw_chars,
        "strata_chars": totals.strata_chars,
        "reduction": totals.reduction,
        "diagnostics": {"strata": totals.diagnostics[0], "head": totals.diagnostics[1], "head_tail": totals.diagnostics[2]},
        "errors": {"strata": totals.errors[0], "head": totals.errors[1], "head_tail": totals.errors[2]},
    });
    if per {
        retention["per_output"] = outputs
            .iter()
            .map(|(s, o)| {
                let mut v = serde_json::to_value(o).unwrap_or(Value::Null);
                v["session"] = json!(s.name);
                v
            })
            .collect();
    }
    json!({"facts": facts, "retention": retention})
}

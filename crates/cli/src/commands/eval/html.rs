//! The HTML report of `strata-ctx eval --html`: the terminal's figures,
//! then each session's window as stacked layer bands at every step, the
//! sessions that lost a fact first and open.

use std::fmt::Write as _;
use std::path::Path;

use strata_ctx::eval::{FactsReport, RetentionTotals};
use strata_ctx::replay::ReplayStep;

use super::{costs, Row, Skipped, Totals, COST_HEADINGS, HEADINGS};
use crate::error::CliError;

/// Where the report's figures are defined.
const DEFINITIONS: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/eval.md");

/// The layers of the window, bottom to top, with their colours.
const LAYERS: [(&str, &str); 7] = [
    ("system prompt and tools", "#4e79a7"),
    ("project rules", "#76b7b2"),
    ("history", "#59a14f"),
    ("round's input", "#edc948"),
    ("scratchpad", "#f28e2b"),
    ("digest", "#b07aa1"),
    ("recap and memory", "#9c755f"),
];

/// What the report shows.
pub(super) struct Report<'a> {
    pub(super) rows: &'a [Vec<Row<'a>>],
    pub(super) totals: &'a RetentionTotals,
    pub(super) skipped: &'a [Skipped],
    pub(super) min_steps: usize,
}

/// Writes the report to `path`.
pub(super) fn write(path: &Path, report: &Report<'_>) -> Result<(), CliError> {
    std::fs::write(path, render(report))
        .map_err(|e| CliError::Runtime(format!("cannot write {}: {e}", path.display())))
}

fn render(report: &Report<'_>) -> String {
    let mut h = String::from(HEAD);
    let _ = write!(
        h,
        "<h1>strata-ctx eval</h1><p>What Strata's window keeps of each session's working facts \
         (files changed, programs run, last error lines) once the session is replayed, beside \
         newest-first trimming and observation masking at the same budget, and what its history \
         forms keep of command outputs. Definitions: <a href=\"{DEFINITIONS}\">docs/eval.md</a>.</p>"
    );
    facts_table(&mut h, report);
    cost_tables(&mut h, report);
    outputs(&mut h, report.totals);
    skipped(&mut h, report.skipped);
    h.push_str("<h2>Sessions</h2><p>Sessions that lost a fact come first, opened.</p>");
    legend(&mut h);
    for at_window in report.rows {
        let mut sorted: Vec<&Row<'_>> = at_window.iter().collect();
        sorted.sort_by(|a, b| {
            b.report
                .lost
                .len()
                .cmp(&a.report.lost.len())
                .then_with(|| a.session.name.cmp(&b.session.name))
        });
        for r in sorted {
            session(&mut h, r);
        }
    }
    h.push_str("</body></html>\n");
    h
}

const HEAD: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>strata-ctx eval</title><style>\
body{font:14px system-ui,sans-serif;margin:2em;max-width:64em;color:#222}table{border-collapse:collapse}\
td,th{padding:3px 10px;text-align:right}th{border-bottom:1px solid #999}td:first-child,th:first-child{text-align:left}\
details{margin:.8em 0;border-top:1px solid #ddd;padding-top:.4em}summary{cursor:pointer}.lost{color:#a00}\
.legend span{display:inline-block;margin:0 1.2em .3em 0}.swatch{display:inline-block;width:.9em;height:.9em;\
vertical-align:-.1em;margin-right:.3em}code{font-size:12px}</style></head><body>";

fn facts_table(h: &mut String, report: &Report<'_>) {
    let _ = write!(
        h,
        "<h2>Working facts in the final window</h2><p>Sessions of {} steps or more; the share of \
         their facts each strategy's final window holds, and the facts kept of each kind.</p><table><tr>",
        report.min_steps
    );
    for heading in HEADINGS {
        let _ = write!(h, "<th>{heading}</th>");
    }
    h.push_str("</tr>");
    for at_window in report.rows {
        let Some(t) = Totals::of(at_window) else { continue };
        h.push_str("<tr>");
        for cell in t.cells() {
            let _ = write!(h, "<td>{cell}</td>");
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
}

fn cost_tables(h: &mut String, report: &Report<'_>) {
    for at_window in report.rows {
        let Some(t) = Totals::of(at_window) else { continue };
        let _ = write!(
            h,
            "<h2>What the calls cost at {}</h2><p>Input tokens of the model calls the agent made (one after each \
             run of tool results), each strategy's request rendered and counted alike; Anthropic's cache reads at 0.1× and writes \
             at 1.25× the input price, OpenAI's reads at 0.5×; units are millions of plain input \
             tokens, ratios are to newest-first trimming's.</p><table><tr>",
            t.window
        );
        for heading in COST_HEADINGS {
            let _ = write!(h, "<th>{heading}</th>");
        }
        h.push_str("</tr>");
        for row in costs(at_window) {
            h.push_str("<tr>");
            for cell in row.cells() {
                let _ = write!(h, "<td>{cell}</td>");
            }
            h.push_str("</tr>");
        }
        h.push_str("</table>");
    }
}

fn outputs(h: &mut String, totals: &RetentionTotals) {
    let row = |name: &str, [ours, head, both]: [f64; 3]| {
        format!(
            "<tr><td>{name}</td><td>{:.1}%</td><td>{:.1}%</td><td>{:.1}%</td></tr>",
            100.0 * ours,
            100.0 * head,
            100.0 * both
        )
    };
    let _ = write!(
        h,
        "<h2>Command outputs</h2><p>{} outputs of 2,000 characters or more: {} → {} characters in \
         history form ({:.1}% smaller). The lines each cut of the same size keeps:</p><table><tr>\
         <th>lines</th><th>strata</th><th>head cut</th><th>head+tail cut</th></tr>{}{}</table>",
        totals.outputs,
        totals.raw_chars,
        totals.strata_chars,
        100.0 * totals.reduction,
        row("diagnostic lines", totals.diagnostics),
        row("error lines", totals.errors),
    );
}

fn skipped(h: &mut String, skipped: &[Skipped]) {
    if skipped.is_empty() {
        return;
    }
    h.push_str("<h2>Skipped</h2><p>The window cannot hold these sessions:</p><ul>");
    for s in skipped {
        let _ = write!(
            h,
            "<li>{} at {}: {}</li>",
            esc(&s.session),
            s.window,
            esc(&s.reason)
        );
    }
    h.push_str("</ul>");
}

fn legend(h: &mut String) {
    h.push_str("<p class=\"legend\">");
    for (name, colour) in LAYERS {
        let _ = write!(
            h,
            "<span><i class=\"swatch\" style=\"background:{colour}\"></i>{name}</span>"
        );
    }
    h.push_str(
        "<span style=\"color:#c00\">- - - threshold</span><span style=\"color:#c00\">▲ compaction</span>\
         <span style=\"color:#e80\">▲ results cleared</span><span style=\"color:#666\">▲ steps left out</span></p>",
    );
}

fn session(h: &mut String, r: &Row<'_>) {
    let all = r.report.total();
    let errors = r.report.errors;
    let _ = write!(
        h,
        "<details{}><summary><b>{}</b> at {} tokens: {}/{} facts kept (newest-first trim {}, masking {}), \
         errors {}/{}, {} steps, largest window {} tokens</summary>{}",
        if r.report.lost.is_empty() { "" } else { " open" },
        esc(&r.session.name),
        r.report.window,
        all.strata,
        all.facts,
        all.trim,
        all.mask,
        errors.strata,
        errors.facts,
        r.session.steps,
        r.report.summary.max_window_tokens,
        chart(&r.report)
    );
    if r.report.lost.is_empty() {
        h.push_str("<p>Every fact kept.</p>");
    } else {
        h.push_str("<p>Lost:</p><ul>");
        for (kind, fact) in &r.report.lost {
            let kind = serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let _ = write!(h, "<li class=\"lost\">{kind}: <code>{}</code></li>", esc(fact));
        }
        h.push_str("</ul>");
    }
    h.push_str("</details>");
}

/// Escapes text for HTML, without the terminal's colour codes (a lost
/// error line as a test runner coloured it).
fn esc(text: &str) -> String {
    strata_ctx::compress::without_colours(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A step's layers, bottom to top, in [`LAYERS`]' order.
fn bands(step: &ReplayStep) -> [usize; 7] {
    let l = step.layers;
    [
        l.system,
        l.rules,
        l.history,
        l.input,
        l.scratchpad,
        l.digest,
        l.tail,
    ]
}

/// A round step for axis ticks: 1, 2 or 5 times a power of ten, so that
/// `top` takes about four of them.
fn tick_step(top: f64) -> f64 {
    let rough = (top / 4.0).max(1.0);
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * power)
}

/// Tokens as an axis label: `0`, `800`, `4k`, `12.5k`.
fn tokens_label(tokens: f64) -> String {
    if tokens >= 1000.0 {
        let k = tokens / 1000.0;
        if k.fract() == 0.0 {
            format!("{k:.0}k")
        } else {
            format!("{k:.1}k")
        }
    } else {
        format!("{tokens:.0}")
    }
}

/// The window's tokens at every step as stacked layer bands under the
/// threshold, with a token axis and a step axis, as inline SVG; what
/// happened at a step is a mark under it.
fn chart(report: &FactsReport) -> String {
    const W: f64 = 720.0;
    const H: f64 = 230.0;
    const LEFT: f64 = 52.0;
    const RIGHT: f64 = 12.0;
    const TOP: f64 = 10.0;
    const BOTTOM: f64 = 46.0;
    let steps = &report.steps;
    let highest = steps
        .iter()
        .map(|s| bands(s).iter().sum::<usize>().max(s.window_tokens))
        .chain([report.threshold])
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let tick = tick_step(highest * 1.05);
    let top = (highest * 1.05 / tick).ceil() * tick;
    let span = (steps.len().max(2) - 1) as f64;
    let x = |i: usize| LEFT + (W - LEFT - RIGHT) * i as f64 / span;
    let y = |t: f64| H - BOTTOM - (H - BOTTOM - TOP) * t / top;
    let mut svg = format!(
        "<svg viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" font-size=\"10\">\
         <rect width=\"{W}\" height=\"{H}\" fill=\"#fff\"/>"
    );
    // The token axis, with its grid.
    let mut t = 0.0;
    while t <= top + 0.5 {
        let ty = y(t);
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{ty:.1}\" y2=\"{ty:.1}\" stroke=\"#eee\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            W - RIGHT,
            LEFT - 4.0,
            ty + 3.0,
            tokens_label(t)
        );
        t += tick;
    }
    let _ = write!(
        svg,
        "<text x=\"12\" y=\"{:.1}\" transform=\"rotate(-90 12 {:.1})\" text-anchor=\"middle\">tokens</text>",
        (H - BOTTOM + TOP) / 2.0,
        (H - BOTTOM + TOP) / 2.0
    );
    // The layers, stacked.
    let mut below = vec![0usize; steps.len()];
    for (layer, (_, colour)) in LAYERS.iter().enumerate() {
        let above: Vec<usize> = steps
            .iter()
            .zip(&below)
            .map(|(s, b)| b + bands(s)[layer])
            .collect();
        if above != below {
            let upper = above
                .iter()
                .enumerate()
                .map(|(i, t)| format!("{:.1},{:.1}", x(i), y(*t as f64)));
            let lower = below
                .iter()
                .enumerate()
                .rev()
                .map(|(i, t)| format!("{:.1},{:.1}", x(i), y(*t as f64)));
            let points: Vec<String> = upper.chain(lower).collect();
            let _ = write!(
                svg,
                "<polygon fill=\"{colour}\" fill-opacity=\"0.85\" points=\"{}\"/>",
                points.join(" ")
            );
        }
        below = above;
    }
    // The threshold.
    let ty = y(report.threshold as f64);
    let _ = write!(
        svg,
        "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{ty:.1}\" y2=\"{ty:.1}\" stroke=\"#c00\" stroke-dasharray=\"5 3\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#c00\" text-anchor=\"end\">threshold {}</text>",
        W - RIGHT,
        W - RIGHT,
        ty - 3.0,
        report.threshold
    );
    // The step axis, and what happened at each step under it.
    let axis = H - BOTTOM;
    let _ = write!(
        svg,
        "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{axis}\" y2=\"{axis}\" stroke=\"#999\"/>",
        W - RIGHT
    );
    for (i, s) in steps.iter().enumerate() {
        let colour = if s.compacted {
            "#c00"
        } else if s.omitted > 0 {
            "#666"
        } else if s.cleared > 0 {
            "#e80"
        } else {
            continue;
        };
        let (cx, my) = (x(i), axis + 4.0);
        let _ = write!(
            svg,
            "<path d=\"M{:.1},{my:.1} l3,6 h-6 z\" fill=\"{colour}\"/>",
            cx
        );
    }
    let ticks = steps.len().clamp(1, 6);
    for k in 0..ticks {
        let i = if ticks == 1 {
            0
        } else {
            k * (steps.len() - 1) / (ticks - 1)
        };
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x(i),
            axis + 22.0,
            i + 1
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">step</text></svg>",
        (W + LEFT - RIGHT) / 2.0,
        H - 6.0
    );
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_ticks_are_round() {
        assert_eq!(tick_step(12_800.0 * 1.05), 5_000.0);
        assert_eq!(tick_step(3_000.0), 1_000.0);
        assert_eq!(tick_step(700.0), 200.0);
        assert_eq!(tick_step(2.0), 1.0);
        assert_eq!(tokens_label(0.0), "0");
        assert_eq!(tokens_label(800.0), "800");
        assert_eq!(tokens_label(4_000.0), "4k");
        assert_eq!(tokens_label(12_500.0), "12.5k");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
        assert_eq!(
            esc("Applying auth.0007...\u{1b}[32;1m OK\u{1b}[0m"),
            "Applying auth.0007... OK"
        );
    }
}

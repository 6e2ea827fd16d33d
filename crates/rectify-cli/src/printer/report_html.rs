//! `rectify report --output html`: one self-contained page (no external resources) — the run's
//! totals, what it waits for, a timeline of its steps in parallel lanes, and per step its
//! attempts with raw answers, the diagnostics each was sent back for, repairs, verdicts,
//! warnings, files, tokens and cost.

use std::fmt::Write as _;

use rectify::Diagnostic;
use rectify::flow::Report;
use rectify::flow::report::StepReport;
use rectify::flow::store::WaitRecord;

const STYLE: &str = "
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header,section{max-width:1100px;margin:0 auto;padding:12px 20px}
h1{font-size:20px;margin:12px 0 4px}h2{font-size:16px;margin:18px 0 8px}h3{font-size:15px;margin:0 0 6px}
h4{font-size:13px;margin:10px 0 4px;color:#4a5568}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#fff;border:1px solid #dde1e7;padding:8px;overflow:auto;max-height:320px;white-space:pre-wrap}
.totals{display:flex;flex-wrap:wrap;gap:6px 18px;margin:6px 0}.totals div{background:#fff;border:1px solid #dde1e7;padding:4px 10px;border-radius:4px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;color:#fff;background:#718096}
.s-done,.s-completed{background:#2f855a}.s-done_with_warnings{background:#b7791f}.s-waiting{background:#2b6cb0}
.s-failed{background:#c53030}.s-running{background:#6b46c1}.s-pending,.s-skipped{background:#a0aec0}
.lanes{position:relative;background:#fff;border:1px solid #dde1e7;margin:4px 0}
.bar{position:absolute;height:20px;border-radius:3px;color:#fff;font-size:11px;line-height:20px;padding:0 4px;overflow:hidden;white-space:nowrap;text-decoration:none;box-sizing:border-box;min-width:3px}
.step{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:12px 14px;margin:10px 0}
.wait{background:#ebf4ff;border:1px solid #90cdf4;border-radius:6px;padding:12px 14px;margin:10px 0}
.meta{color:#4a5568;font-size:13px}ul.diags{margin:4px 0;padding-left:18px}.error{color:#c53030}.warning{color:#b7791f}
table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #e2e8f0;padding:3px 8px;text-align:left}
details{margin:4px 0}summary{cursor:pointer}
";

/// The page.
pub fn render(report: &Report, workdir: &str) -> String {
    let run = &report.run;
    let mut page = String::with_capacity(16 * 1024);
    let _ = write!(
        page,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>rectify run {id}</title><style>{STYLE}</style></head><body>\n<header><h1>Run <code>{id}</code> · {wf} <span class=\"badge s-{st}\" id=\"run-status\">{st}</span></h1>",
        id = esc(&run.id),
        wf = esc(&run.workflow),
        st = run.status.as_str(),
    );
    let t = &report.totals;
    let _ = write!(
        page,
        "<div class=\"totals\"><div>steps <b>{}</b></div><div>calls <b>{}</b></div><div>tokens in <b>{}</b> / out <b>{}</b></div><div>cost <b>{}</b></div><div>duration <b>{}</b></div><div>workflow <code>{}</code></div></div></header>",
        t.steps,
        t.calls,
        t.input_tokens,
        t.output_tokens,
        t.cost
            .map_or("not priced".to_owned(), |c| format!("${c:.4}")),
        seconds(t.duration_ms),
        esc(&run.workflow_path),
    );
    page.push('\n');
    waits(&mut page, report, workdir);
    timeline(&mut page, report);
    page.push_str("<section id=\"steps\"><h2>Steps</h2>\n");
    let origin = report
        .steps
        .iter()
        .filter_map(|s| s.record.started_ms)
        .min()
        .unwrap_or(run.created_ms);
    for step in &report.steps {
        step_html(&mut page, step, origin);
    }
    page.push_str("</section>\n<script>document.body.dataset.steps=String(document.querySelectorAll('article.step').length);</script>\n</body></html>\n");
    page
}

fn waits(page: &mut String, report: &Report, workdir: &str) {
    if report.waits.is_empty() {
        return;
    }
    page.push_str("<section id=\"waiting\"><h2>Waiting for a person</h2>\n");
    for w in &report.waits {
        wait_html(page, &report.run.id, w, workdir);
    }
    page.push_str("</section>\n");
}

fn wait_html(page: &mut String, run: &str, w: &WaitRecord, workdir: &str) {
    let _ = write!(
        page,
        "<div class=\"wait\"><h3><a href=\"#{}\">{}</a> — {}</h3><p>{}</p>",
        anchor(&w.step),
        esc(&w.step),
        esc(&w.reason),
        esc(w.message.as_deref().unwrap_or_default())
    );
    diagnostics(page, &w.diagnostics);
    if !w.files.is_empty() {
        let files: Vec<String> = w
            .files
            .iter()
            .map(|f| format!("<code>{}</code>", esc(f)))
            .collect();
        let _ = write!(page, "<p>files: {}</p>", files.join(", "));
    }
    if let Some(best) = &w.best {
        let _ = write!(page, "<h4>Best candidate</h4><pre>{}</pre>", payload(best));
    }
    page.push_str("<h4>To continue</h4><pre>");
    for c in rectify::wire::continue_commands(run, &w.step, &w.reason, workdir) {
        let _ = writeln!(page, "{}", esc(&c));
    }
    page.push_str("</pre></div>\n");
}

/// Steps as bars on their start..end times, each in the first lane free at its start.
fn timeline(page: &mut String, report: &Report) {
    let spans: Vec<(&StepReport, i64, i64)> = report
        .steps
        .iter()
        .filter_map(|s| {
            let start = s.record.started_ms?;
            let end = s
                .record
                .ended_ms
                .unwrap_or(report.run.updated_ms)
                .max(start);
            Some((s, start, end))
        })
        .collect();
    if spans.is_empty() {
        return;
    }
    let origin = spans.iter().map(|s| s.1).min().unwrap_or_default();
    let total = (spans.iter().map(|s| s.2).max().unwrap_or(origin) - origin).max(1);
    let mut lanes: Vec<i64> = Vec::new();
    let mut bars = String::new();
    for (step, start, end) in &spans {
        let lane = if let Some(l) = lanes.iter().position(|&free| free <= *start) {
            l
        } else {
            lanes.push(0);
            lanes.len() - 1
        };
        lanes[lane] = *end;
        #[allow(clippy::cast_precision_loss)]
        let (left, width) = (
            (start - origin) as f64 * 100.0 / total as f64,
            (end - start) as f64 * 100.0 / total as f64,
        );
        let _ = write!(
            bars,
            "<a class=\"bar s-{st}\" href=\"#{a}\" style=\"left:{left:.2}%;width:{width:.2}%;top:{top}px\" title=\"{id}: {st}, {dur}\">{id}</a>",
            st = step.record.status.as_str(),
            a = anchor(&step.record.id),
            id = esc(&step.record.id),
            top = lane * 24 + 4,
            dur = seconds(end - start),
        );
    }
    let _ = write!(
        page,
        "<section id=\"timeline\"><h2>Timeline</h2><div class=\"meta\">{} lane(s), {} from the first start</div><div class=\"lanes\" style=\"height:{}px\">{bars}</div></section>",
        lanes.len(),
        seconds(total),
        lanes.len() * 24 + 8
    );
    page.push('\n');
}

fn step_html(page: &mut String, step: &StepReport, origin: i64) {
    let r = &step.record;
    let _ = write!(
        page,
        "<article class=\"step\" id=\"{}\"><h3>{} <span class=\"badge s-{st}\">{st}</span></h3><div class=\"meta\">attempts {} · repairs {} · repair agent runs {} · revisions {} · validations {}{} · tokens {} in / {} out{}{}</div>",
        anchor(&r.id),
        esc(&r.id),
        r.attempts,
        r.repairs,
        r.repair_runs,
        r.revisions,
        r.validations,
        r.verdict
            .as_ref()
            .map_or(String::new(), |v| format!(" · verdict <b>{}</b>", esc(v))),
        r.input_tokens,
        r.output_tokens,
        r.cost.map_or(String::new(), |c| format!(" · ${c:.4}")),
        match (r.started_ms, r.ended_ms) {
            (Some(s), Some(e)) => format!(" · {} (at +{})", seconds(e - s), seconds(s - origin)),
            _ => String::new(),
        },
        st = r.status.as_str(),
    );
    if !r.warnings.is_empty() {
        page.push_str("<h4>Warnings</h4><ul class=\"diags\">");
        for w in &r.warnings {
            let _ = write!(page, "<li class=\"warning\">{}</li>", esc(w));
        }
        page.push_str("</ul>");
    }
    if !r.diagnostics.is_empty() {
        page.push_str("<h4>Open problems</h4>");
        diagnostics(page, &r.diagnostics);
    }
    calls(page, step, origin);
    events(page, step, origin);
    files(page, step);
    page.push_str("</article>\n");
}

fn calls(page: &mut String, step: &StepReport, origin: i64) {
    if step.calls.is_empty() {
        return;
    }
    page.push_str("<h4>Calls</h4><ol>");
    for c in &step.calls {
        let failed = c.outcome.failed.as_ref().map_or(String::new(), |d| {
            format!(" — <span class=\"error\">{}</span>", esc(&d.message))
        });
        let _ = write!(
            page,
            "<li><details><summary><b>{}</b> #{} at +{} · {} in / {} out{failed}</summary><pre>{}</pre>",
            esc(&c.role),
            c.seq,
            seconds(c.at_ms - origin),
            c.input_tokens,
            c.output_tokens,
            payload(&c.raw)
        );
        if !c.outcome.problems.is_empty() {
            diagnostics(page, &c.outcome.problems);
        }
        page.push_str("</details></li>");
    }
    page.push_str("</ol>");
}

fn events(page: &mut String, step: &StepReport, origin: i64) {
    if step.events.is_empty() {
        return;
    }
    page.push_str("<h4>Events</h4><ol>");
    for e in &step.events {
        let _ = write!(
            page,
            "<li>+{} <b>{}</b>",
            seconds(e.at_ms - origin),
            esc(&e.kind)
        );
        diagnostics(page, &e.diagnostics);
        page.push_str("</li>");
    }
    page.push_str("</ol>");
}

fn files(page: &mut String, step: &StepReport) {
    if step.files.is_empty() {
        return;
    }
    page.push_str("<h4>Files kept</h4><table><tr><th>path</th><th>kind</th><th>bytes</th><th>sha-256</th></tr>");
    for f in &step.files {
        let _ = write!(
            page,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            esc(&f.path),
            esc(&f.kind),
            f.bytes,
            esc(f.hash.get(..12).unwrap_or(&f.hash))
        );
    }
    page.push_str("</table>");
}

fn diagnostics(page: &mut String, ds: &[Diagnostic]) {
    if ds.is_empty() {
        return;
    }
    page.push_str("<ul class=\"diags\">");
    for d in ds {
        let at = match (d.location.path.as_str(), d.location.span) {
            ("", Some(s)) => format!(" at {}:{}", s.line, s.column),
            ("", None) => String::new(),
            (p, Some(s)) => format!(" at <code>{}</code> ({}:{})", esc(p), s.line, s.column),
            (p, None) => format!(" at <code>{}</code>", esc(p)),
        };
        let mut line = format!(
            "<li class=\"{}\">{}[{}]{at}: {}",
            d.severity,
            d.severity,
            esc(&d.code),
            esc(&d.message)
        );
        if let Some(e) = &d.expected {
            let _ = write!(line, "; expected {}", esc(e));
        }
        if let Some(r) = &d.received {
            let _ = write!(line, "; got <code>{}</code>", esc(r));
        }
        page.push_str(&line);
        page.push_str("</li>");
    }
    page.push_str("</ul>");
}

fn seconds(ms: i64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let s = ms.max(0) as f64 / 1000.0;
    if s < 10.0 {
        format!("{s:.2} s")
    } else {
        format!("{s:.0} s")
    }
}

/// An element id for a step (ids like `build[t1]` kept readable, anything else escaped).
fn anchor(id: &str) -> String {
    let mut out = String::from("step-");
    for c in id.chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else {
            let _ = write!(out, "_{:x}", u32::from(c));
        }
    }
    out
}

/// The most of one answer a page shows: a report stays readable (and its size bounded by the
/// number of calls, not by what a model wrote); the JSON report holds everything.
const PAYLOAD_BYTES: usize = 64 * 1024;

/// An answer, escaped, cut at [`PAYLOAD_BYTES`] with how much more there is.
fn payload(text: &str) -> String {
    if text.len() <= PAYLOAD_BYTES {
        return esc(text);
    }
    let mut end = PAYLOAD_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n<span class=\"error\">… {} more bytes not shown (`rectify report RUN --output json` has them all)</span>",
        esc(&text[..end]),
        text.len() - end
    )
}

/// HTML text escaping (also safe inside double-quoted attributes).
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{PAYLOAD_BYTES, anchor, esc, payload};

    #[test]
    fn a_huge_answer_is_cut_on_the_page() {
        let huge = "é".repeat(PAYLOAD_BYTES);
        let shown = payload(&huge);
        assert!(shown.len() < PAYLOAD_BYTES + 200, "{}", shown.len());
        assert!(shown.ends_with("has them all)</span>"));
        assert_eq!(payload("<a>"), "&lt;a&gt;");
    }

    #[test]
    fn text_from_models_cannot_break_out_of_the_page() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(anchor("build[t1]"), "step-build_5bt1_5d");
        assert_eq!(anchor("a\"><b"), "step-a_22_3e_3cb");
    }
}

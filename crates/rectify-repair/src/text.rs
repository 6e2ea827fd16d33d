//! Text-to-text repair: the pipeline of [`crate::engine`] with the parser writing JSON text
//! straight into one buffer ([`TextSink`]) instead of building a `serde_json::Value` and
//! serialising it.
//!
//! The result is identical to `repair(text, options).to_json()` with the same repairs and
//! diagnostics. Several top-level candidates are written one after the other and chosen as
//! the value path chooses (by kind, see [`crate::select`]); repairs that restructure a value
//! edit the end of the written text (`crate::parser::rewrite`). Texts this path does not
//! write — a schema, strict mode, YAML, an escaped document, and the rare shapes that make
//! the sink give up (see [`crate::parser::Sink`]) — go through the value path instead.

use rectify_core::Format;

use crate::engine::{self, fatal_diagnostic, region_repair, too_deep};
use crate::extract::{Region, regions};
use crate::locate::Locator;
use crate::log::Log;
use crate::parser::{Fatal, Payload, TextSink, parse_region_with};
use crate::policy::{no_payload, refusals, refused, truncated, unrecorded};
use crate::rules::RepairRule;
use crate::select::{Choice, choose_texts, is_empty_text, record_choice};
use crate::{RepairOptions, RepairedText, Repairs};

/// What the regions of the text held, the value's text in `sink`.
struct Found {
    sink: TextSink,
    values: usize,
    /// Where each value is in the text.
    spans: Vec<(usize, usize)>,
    comma_separated: bool,
    raw: Log,
    fatal: Option<Fatal>,
    truncated: bool,
    unrecorded: usize,
    /// The most brackets open at once in any candidate.
    deepest: usize,
}

pub(crate) fn run(text: &str, options: &RepairOptions, pretty: bool) -> RepairedText {
    attempt(text, options, pretty)
        .unwrap_or_else(|| RepairedText::from_value(engine::run(text, options), pretty))
}

/// The text path, or `None` when the value path must answer.
pub(crate) fn attempt(text: &str, options: &RepairOptions, pretty: bool) -> Option<RepairedText> {
    if options.schema.is_some() || options.strict || options.format == Some(Format::Yaml) {
        return None;
    }
    let strict = strict_prefix(text);
    let blank = |s: &str| s.bytes().all(|b| matches!(b, b' ' | b'\n' | b'\t' | b'\r'));
    let mut found = Found {
        sink: TextSink::new(text.len() + text.len() / 8 + 16, pretty),
        values: 0,
        spans: Vec::new(),
        comma_separated: false,
        raw: Log::default(),
        fatal: None,
        truncated: false,
        unrecorded: 0,
        deepest: 0,
    };
    if let Some(used) = strict
        && blank(text.get(used..).unwrap_or(""))
    {
        let first = text
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(text.len());
        clean_value(text, first, used, options, &mut found)?;
        return Some(RepairedText {
            json: Some(found.sink.into_text()),
            format: Some(Format::Json),
            ..RepairedText::default()
        });
    }
    let regions = regions(text);
    if regions.is_empty() {
        // No payload: the value path reports it (or reads a bare line, `extract.bare_text`).
        return None;
    }
    if options.format.is_none()
        && regions
            .iter()
            .any(|r| matches!(r.fence.as_deref(), Some("yaml" | "yml")))
    {
        return None;
    }
    let first_solid = text.find(|c: char| !c.is_whitespace()).unwrap_or(0);
    // The strict check of the whole text stands for the region's when they differ only by
    // JSON whitespace (a vertical tab, say, is blank to extraction but not to JSON).
    let json_blank_lead = blank(text.get(..first_solid).unwrap_or(""));
    for region in &regions {
        region_repair(&mut found.raw, text, region, first_solid);
        let body = text.get(region.start..region.end).unwrap_or("");
        let whole = region.start == first_solid && region.end == text.len();
        let strict = if whole && json_blank_lead {
            strict.and_then(|used| used.checked_sub(region.start))
        } else {
            strict_prefix(body)
        };
        read_region(text, region, strict, options, &mut found)?;
        if found.fatal.is_some() {
            break;
        }
    }
    // Each candidate's text starts where the sink wrote a top-level value; should the two
    // counts ever differ, the value path answers rather than a wrong choice.
    if found.values > 1 && found.sink.tops.len() != found.values {
        return None;
    }
    Some(finish(text, options, found))
}

/// Where the first JSON value of `text` ends, when the text starts with one (after JSON
/// whitespace), as serde_json decides it. Checked without building it.
fn strict_prefix(text: &str) -> Option<usize> {
    crate::strict::first_value_end(text)
}

/// Mirrors `engine::read_region`: a region that starts with a valid value (perhaps followed
/// by prose) is that value; otherwise the lenient parser reads it. `strict` is where the
/// body's first value ends when it starts with a valid one.
fn read_region(
    text: &str,
    region: &Region,
    strict: Option<usize>,
    options: &RepairOptions,
    found: &mut Found,
) -> Option<()> {
    let body = text.get(region.start..region.end).unwrap_or("");
    if crate::extract::escaped_document(body) || body.starts_with("{{") {
        return None;
    }
    if let Some(used) = strict {
        let rest = body.get(used..).unwrap_or("");
        let tail = rest.trim_start();
        if tail.is_empty() || !crate::strict::continues(body.get(..used).unwrap_or(""), rest) {
            clean_value(text, region.start, region.start + used, options, found)?;
            if !tail.is_empty() {
                let at = region.start + used + (rest.len() - tail.len());
                let rule = crate::parser::trailing_rule(&text[at..region.end]);
                found.raw.dropped(rule, text, at, region.end);
            }
            return Some(());
        }
    }
    let payload = parse_region_with(
        text,
        region.start,
        region.end,
        options.max_depth,
        &mut found.sink,
    );
    found.values += payload.values.len();
    found
        .spans
        .extend(payload.values.iter().map(|&((), s, e)| (s, e)));
    if payload.bailed || found.sink.failed {
        return None;
    }
    found.comma_separated |= payload.comma_separated;
    found.truncated |= payload.truncated;
    found.deepest = found.deepest.max(payload.deepest);
    found.unrecorded += payload.unrecorded;
    found.raw.extend(payload.repairs);
    found.fatal = payload.fatal;
    Some(())
}

/// Writes the valid JSON value in `text[start..end]`; `None` when the lenient parser reads
/// it differently from a strict parser (it repairs something: a lone surrogate, nesting
/// too deep), which the value path then handles.
fn clean_value(
    text: &str,
    start: usize,
    end: usize,
    options: &RepairOptions,
    found: &mut Found,
) -> Option<()> {
    let payload = parse_region_with(text, start, end, options.max_depth, &mut found.sink);
    found.values += payload.values.len();
    found.deepest = found.deepest.max(payload.deepest);
    found
        .spans
        .extend(payload.values.iter().map(|&((), s, e)| (s, e)));
    let clean = is_clean(&payload) && !found.sink.failed;
    clean.then_some(())
}

/// A valid value read without repair; a repeated key counts as none (a strict parse keeps
/// the last value too, and records nothing).
fn is_clean(payload: &Payload<()>) -> bool {
    !payload.bailed
        && payload.fatal.is_none()
        && payload
            .repairs
            .rules()
            .all(|r| r == RepairRule::DuplicateKey)
        && payload.unrecorded == 0
        && payload.values.len() == 1
}

/// Mirrors `engine::finish` for one value or none.
fn finish(text: &str, options: &RepairOptions, mut found: Found) -> RepairedText {
    let mut out = RepairedText {
        format: Some(Format::Json),
        ..RepairedText::default()
    };
    if let Some(fatal) = found.fatal.take() {
        let doc = Locator::new(text);
        out.diagnostics.push(fatal_diagnostic(&doc, text, fatal));
        found.raw.locate(&doc);
        out.repairs = Repairs::from_log(found.raw);
        return out;
    }
    if found.values == 0 {
        out.diagnostics.push(no_payload(text));
        return out;
    }
    let choice = (found.values > 1).then(|| {
        let sink = &found.sink;
        let texts: Vec<&str> = (0..found.values).map(|i| sink.top(i)).collect();
        let choice = choose_texts(&texts, found.comma_separated);
        record_choice(
            &mut found.raw,
            RepairRule::MultipleValues,
            text,
            &found.spans,
            |i| choice.keeps(i),
            |i| texts.get(i).is_none_or(|t| is_empty_text(t)),
        );
        choice
    });
    if let Some(choice @ Choice::List(_)) = &choice
        && found.deepest >= options.max_depth
        && 1 + (0..found.values)
            .filter(|&i| choice.keeps(i))
            .map(|i| text_depth(found.sink.top(i)))
            .max()
            .unwrap_or(0)
            > options.max_depth
    {
        // As `engine::finish`: the list would be nested deeper than the limit.
        let doc = Locator::new(text);
        found.raw.locate(&doc);
        out.repairs = Repairs::from_log(found.raw);
        out.diagnostics.push(too_deep(options.max_depth));
        return out;
    }
    let refusing = found.raw.rules().any(|r| refused(r, options));
    if !found.raw.is_empty() || found.truncated {
        let doc = Locator::new(text);
        found.raw.locate(&doc);
        out.repairs = Repairs::from_log(std::mem::take(&mut found.raw));
        if found.truncated {
            out.diagnostics.push(truncated(&doc, text.len()));
        }
    }
    if found.unrecorded > 0 {
        out.diagnostics.push(unrecorded(found.unrecorded));
    }
    if refusing {
        out.diagnostics.extend(refusals(&out.repairs, options));
    } else {
        out.json = Some(chosen(found.sink, choice));
    }
    out
}

/// How deep the JSON text `t` nests (the parser's deepest stack can be deeper: a tuple of
/// one value is unwrapped, a call of several arguments becomes a string).
fn text_depth(t: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &b in t.as_bytes() {
        if in_string {
            in_string = escaped || b != b'"';
            escaped = !escaped && b == b'\\';
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The value's text; with several candidates, the `choice` `engine::combine` makes.
fn chosen(sink: TextSink, choice: Option<Choice>) -> String {
    match choice {
        None => sink.into_text(),
        Some(Choice::One(i)) => sink.top(i).to_owned(),
        Some(Choice::List(ix)) => list(ix.iter().map(|&i| sink.top(i)), sink.pretty()),
    }
}

/// An array of values given as JSON text, laid out as the values are.
fn list<'a>(items: impl Iterator<Item = &'a str>, pretty: bool) -> String {
    let mut out = String::from("[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if pretty {
            out.push_str("\n  ");
            out.push_str(&item.replace('\n', "\n  "));
        } else {
            out.push_str(item);
        }
    }
    if pretty && out.len() > 1 {
        out.push('\n');
    }
    out.push(']');
    out
}

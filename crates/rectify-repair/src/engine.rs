//! The repair pipeline for one text: fast path, extraction, lenient parse, choice between
//! candidates, schema coercion, then the safety policy.

use rectify_core::{Applicability, Diagnostic, Format, Location, Repair};
use serde_json::Value;

use crate::cover::Cover;
use crate::extract::{Region, regions};
use crate::locate::Locator;
use crate::log::Log;
use crate::parser::{Fatal, parse_region, trailing_rule};
use crate::policy::{enforce, no_payload, refusal, refusals, refused, truncated, unrecorded};
use crate::rules::RepairRule;
use crate::select::{Choice, choose, is_empty, record_choice};
use crate::{RepairOptions, Repaired, coerce, strict, yaml};

/// Everything found in the text before a value is chosen.
#[derive(Default)]
struct Found {
    values: Vec<Value>,
    /// Where each value is in the text.
    spans: Vec<(usize, usize)>,
    comma_separated: bool,
    raw: Log,
    fatal: Option<Fatal>,
    truncated: bool,
    unrecorded: usize,
    regions: usize,
}

pub(crate) fn run(text: &str, options: &RepairOptions) -> Repaired {
    let mut out = run_inner(text, options);
    if out.value.is_none()
        && out
            .diagnostics
            .iter()
            .any(|d| d.code == "extract.no_payload")
        && let Some(mut yaml) = crate::unfenced::read(text, options)
    {
        coerce::apply_to(&mut yaml, options);
        enforce(&mut yaml, options);
        out = yaml;
    }
    if options.schema.is_some() && coerce::text_as_root(&mut out, text, options) {
        enforce(&mut out, options);
    }
    out.source_len = text.len();
    out
}

fn run_inner(text: &str, options: &RepairOptions) -> Repaired {
    let yaml_wanted = options.format == Some(Format::Yaml);
    if !yaml_wanted
        && strict::is_json(text)
        && let Ok(value) = serde_json::from_str::<Value>(text)
        && !(options.strict && has_duplicate_keys(text, options))
    {
        let mut out = Repaired {
            value: Some(value),
            format: Some(Format::Json),
            ..Repaired::default()
        };
        coerce::apply_to(&mut out, options);
        enforce(&mut out, options);
        return out;
    }
    if let Some(region) = yaml::payload(text, options) {
        return run_yaml(text, region, options);
    }
    let found = find(text, options);
    finish(text, options, found)
}

/// A YAML payload: read strictly first, so valid YAML comes back as the reader reads it
/// with no repair; repaired only when that fails. One that the reader fails on and that
/// starts like JSON goes to the JSON repair.
fn run_yaml(text: &str, (start, end): (usize, usize), options: &RepairOptions) -> Repaired {
    let body = text.get(start..end).unwrap_or("");
    let mut out = match yaml::strict(text, (start, end), options) {
        Some(out) => out,
        None if body.trim_start().starts_with(['{', '[']) => {
            let json = RepairOptions {
                format: Some(Format::Json),
                ..options.clone()
            };
            return run(text, &json);
        }
        None => yaml::run(text, (start, end), options),
    };
    coerce::apply_to(&mut out, options);
    enforce(&mut out, options);
    out
}

/// Valid JSON can still repeat a key, which strict mode refuses.
fn has_duplicate_keys(text: &str, options: &RepairOptions) -> bool {
    text.contains('{')
        && lenient(text, options.max_depth)
            .repairs
            .rules()
            .any(|r| r == RepairRule::DuplicateKey)
}

/// The lenient parser over the whole text, from its first non-blank byte.
pub(crate) fn lenient(text: &str, max_depth: usize) -> crate::parser::Payload {
    let first = text
        .find(|c: char| !c.is_whitespace())
        .unwrap_or(text.len());
    parse_region(text, first, text.len(), max_depth)
}

pub(crate) fn run_lossy(bytes: &[u8], valid_up_to: usize, options: &RepairOptions) -> Repaired {
    let text = String::from_utf8_lossy(bytes);
    let mut out = run(&text, options);
    let (repair, refused) = invalid_utf8(&text, bytes, valid_up_to, options);
    out.repairs.insert(0, repair);
    if let Some(refused) = refused {
        out.diagnostics.insert(0, refused);
        out.value = None;
    }
    out
}

/// The `text.invalid_utf8` repair of `bytes` (read as the lossy `text`), and the error when
/// the options refuse it; both go first in the result.
pub(crate) fn invalid_utf8(
    text: &str,
    bytes: &[u8],
    valid_up_to: usize,
    options: &RepairOptions,
) -> (Repair, Option<Diagnostic>) {
    let lead = String::from_utf8_lossy(bytes.get(..valid_up_to).unwrap_or_default());
    let span = Locator::new(text).span(lead.len(), lead.len() + 3);
    let repair = Repair::new(
        RepairRule::InvalidUtf8.code(),
        Location::from_span(span),
        format!("0x{:02x}", bytes.get(valid_up_to).copied().unwrap_or(0)),
        "\u{fffd}",
        Applicability::Unsafe,
    );
    let refused = !options.allow_unsafe || options.strict;
    let diagnostic = refused.then(|| refusal(&repair, options.strict));
    (repair, diagnostic)
}

fn find(text: &str, options: &RepairOptions) -> Found {
    let mut found = Found::default();
    let first_solid = text.find(|c: char| !c.is_whitespace()).unwrap_or(0);
    for region in regions(text) {
        found.regions += 1;
        region_repair(&mut found.raw, text, &region, first_solid);
        let mut next = read_region(text, &region, options, &mut found);
        while let Some(start) = next {
            let more = Region {
                start,
                ..region.clone()
            };
            next = read_region(text, &more, options, &mut found);
        }
        if found.fatal.is_some() {
            break;
        }
    }
    found
}

/// Reads one region: strictly when it holds one valid value (possibly followed by prose),
/// otherwise with the lenient parser. With a schema, prose after a valid value may hold more
/// candidates (`one {...} and the answer {...}`): where the next one starts is returned,
/// to be read as the rest of the region.
fn read_region(
    text: &str,
    region: &Region,
    options: &RepairOptions,
    found: &mut Found,
) -> Option<usize> {
    let body = text.get(region.start..region.end).unwrap_or("");
    if crate::extract::escaped_document(body) {
        let unescaped = body.replace("\\\"", "\"").replace("\\\\", "\\");
        let span = (region.start, region.start + body.len());
        read_rewritten(
            &unescaped,
            RepairRule::EscapedDocument,
            span,
            options,
            found,
        );
        return None;
    }
    if let Some(single) = crate::extract::doubled_braces(body) {
        let span = (region.start, region.start + body.len());
        read_rewritten(&single, RepairRule::DoubledBraces, span, options, found);
        return None;
    }
    // The strict check runs first so that text that is not valid builds no partial value.
    if !options.strict
        && let Some(used) = strict::first_value_end(body)
    {
        let rest = body.get(used..).unwrap_or("");
        let tail = rest.trim_start();
        if (tail.is_empty() || !strict::continues(body.get(..used).unwrap_or(""), rest))
            && let Some(Ok(value)) = body.get(..used).map(serde_json::from_str::<Value>)
        {
            found.values.push(value);
            found.spans.push((region.start, region.start + used));
            if tail.is_empty() {
                return None;
            }
            let at = region.start + used + (rest.len() - tail.len());
            let next = options
                .schema
                .as_ref()
                .and(tail.find(['{', '[']))
                .map(|i| at + i);
            // Prose after the value is dropped safely; a second JSON value in it is data, and
            // dropping it is choosing between values (unsafe), as for `[1] [2]`.
            let rule = if next.is_none() {
                trailing_rule(tail)
            } else {
                RepairRule::Prose
            };
            found
                .raw
                .dropped(rule, text, at, next.unwrap_or(region.end));
            return next;
        }
    }
    let mut payload = parse_region(text, region.start, region.end, options.max_depth);
    // With a schema, prose after a repaired value may hold more candidates too
    // (`{the} answer: {...}`): the drop of the prose is recorded up to the next one instead.
    let next = payload
        .tail
        .filter(|_| options.schema.is_some())
        .and_then(|at| {
            let i = text.get(at..region.end)?.find(['{', '['])?;
            let last = payload.repairs.len().checked_sub(1)?;
            (payload.repairs.last()?.span.start == at).then(|| {
                payload.repairs.truncate(last);
                (at, at + i)
            })
        });
    found.comma_separated |= payload.comma_separated;
    found.truncated |= payload.truncated;
    found.unrecorded += payload.unrecorded;
    found.raw.extend(payload.repairs);
    for (v, start, end) in payload.values {
        found.values.push(v);
        found.spans.push((start, end));
    }
    found.fatal = payload.fatal;
    let (at, next) = next?;
    found.raw.dropped(RepairRule::Prose, text, at, next);
    Some(next)
}

/// A document written escaped — as if it sat inside a string (`{\"key\": 1}`) or with
/// its braces doubled (`{{"key": 1}}`) — at `span` of the text, read as `rewritten`, the
/// document `rule` makes of it; the repairs inside it are located at the whole document.
fn read_rewritten(
    rewritten: &str,
    rule: RepairRule,
    (start, end): (usize, usize),
    options: &RepairOptions,
    found: &mut Found,
) {
    found.raw.outside(rule, start, end);
    let mut payload = parse_region(rewritten, 0, rewritten.len(), options.max_depth);
    found.truncated |= payload.truncated;
    payload.repairs.relocate(start, end);
    found.raw.extend(payload.repairs);
    for (v, _, _) in payload.values {
        found.values.push(v);
        found.spans.push((start, end));
    }
    found.fatal = payload.fatal;
}

/// What extracting `region` of `text` repaired: its code fence, or the prose before it
/// (`first_solid` is where the text's first non-blank character is).
pub(crate) fn region_repair(log: &mut Log, text: &str, region: &Region, first_solid: usize) {
    match &region.fence {
        Some(_) => log.outside(RepairRule::CodeFence, region.start, region.end),
        None if region.start > first_solid => {
            log.dropped(RepairRule::Prose, text, first_solid, region.start);
        }
        None => {}
    }
}

fn finish(text: &str, options: &RepairOptions, mut found: Found) -> Repaired {
    let doc = Locator::new(text);
    let mut out = Repaired {
        format: Some(Format::Json),
        ..Repaired::default()
    };
    if let Some(fatal) = found.fatal.take() {
        out.diagnostics.push(fatal_diagnostic(&doc, text, fatal));
        out.repairs = std::mem::take(&mut found.raw).into_repairs(&doc);
        return out;
    }
    if found.values.is_empty() {
        out.diagnostics.push(no_payload(text));
        if found.regions == 0 && found.raw.is_empty() {
            bare_text(text, options, &mut out, &doc);
        }
        return out;
    }
    let several = found.values.len() > 1;
    let value = combine(text, &mut found, options, &mut out);
    if several {
        out.candidates = found.values;
    }
    out.repairs = std::mem::take(&mut found.raw).into_repairs(&doc);
    // Only candidates put in a list can be deeper than the parser let any of them be: the
    // walk is not made for the one value of every other repair.
    if several && depth(&value) > options.max_depth {
        // Candidates put in a list are one level deeper than the deepest of them: the
        // repaired document must be one that could be read again.
        out.diagnostics.push(too_deep(options.max_depth));
        return out;
    }
    out.value = Some(value);
    if found.truncated {
        out.diagnostics.push(truncated(&doc, text.len()));
    }
    if found.unrecorded > 0 {
        out.diagnostics.push(unrecorded(found.unrecorded));
    }
    coerce::apply_to(&mut out, options);
    enforce(&mut out, options);
    out
}

/// `hello world`, `ES2020`, a URL: a one-line answer with no JSON in it is that text, as a
/// string (unsafe: prose is not data unless the caller says so; `--unsafe` does, and so does a
/// `type: string` schema, through `coerce.text_as_string`). Without permission the
/// no-payload error stands, with the refusal beside it.
fn bare_text(text: &str, options: &RepairOptions, out: &mut Repaired, doc: &Locator<'_>) {
    let trimmed = text.trim();
    let start = text.len() - text.trim_start().len();
    let bare = !trimmed.is_empty()
        && trimmed.len() <= 1024
        && !trimmed.contains(['\n', '{', '[', '}', ']', '"', '`'])
        && !trimmed.starts_with(['\'', '/', '<', '#']);
    if !bare || options.schema.is_some() {
        return;
    }
    // `0x1F`, `1_000`: a number written loosely, as inside a list.
    let number = crate::number::normalize_number(trimmed)
        .filter(|(_, rule)| *rule == RepairRule::NumberFormat)
        .and_then(|(n, _)| Some((serde_json::from_str::<Value>(&n).ok()?, n)));
    let (rule, value, after) = if let Some((value, n)) = number {
        (RepairRule::NumberFormat, value, n)
    } else {
        let s = Value::String(trimmed.to_owned());
        (RepairRule::BareText, s.clone(), s.to_string())
    };
    let repair = Repair::new(
        rule.code(),
        Location::from_span(doc.span(start, start + trimmed.len())),
        trimmed,
        after,
        rule.applicability(),
    );
    out.repairs = vec![repair];
    if refused(rule, options) {
        out.diagnostics.extend(refusals(&out.repairs, options));
        return;
    }
    out.diagnostics.clear();
    out.value = Some(value);
}

/// How many containers deep `value` is (a scalar is 0). Stops counting past the depth limit
/// of the parser that read it, which bounds the recursion.
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(members) => 1 + members.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The error for a repaired document nested deeper than `max` levels.
pub(crate) fn too_deep(max: usize) -> Diagnostic {
    Diagnostic::error(
        "parse.depth",
        Location::root(),
        format!("the repaired document would be nested more than {max} levels deep"),
    )
    .source("repair")
}

/// One value out of the candidates (see [`choose`]); a choice among several candidates is
/// the unsafe repair `extract.multiple_values`. With a schema, the candidate that fits best
/// stands; several fitting equally well is a warning. When the schema alone decided (what
/// stands fits, and no candidate left out does), the choice is the safe
/// `extract.schema_choice`.
fn combine(text: &str, found: &mut Found, options: &RepairOptions, out: &mut Repaired) -> Value {
    if found.values.len() == 1 {
        return found.values.pop().unwrap_or(Value::Null);
    }
    let (choice, decided) = choice(found, options, out);
    let rule = if decided {
        RepairRule::SchemaChoice
    } else {
        RepairRule::MultipleValues
    };
    if decided {
        forget_left_out(found, &choice);
    }
    let values = &found.values;
    record_choice(
        &mut found.raw,
        rule,
        text,
        &found.spans,
        |i| choice.keeps(i),
        |i| values.get(i).is_none_or(is_empty),
    );
    match choice {
        Choice::One(i) => found.values.get(i).cloned().unwrap_or(Value::Null),
        Choice::List(ix) => Value::Array(
            ix.into_iter()
                .filter_map(|i| found.values.get(i).cloned())
                .collect(),
        ),
    }
}

/// What the value never used needs no permission: the repairs made inside a candidate left
/// out give way to the record of its drop. Candidates read out of one rewritten document
/// share its span; where a kept one does, the repairs stay. One pass over the repairs.
fn forget_left_out(found: &mut Found, choice: &Choice) {
    let spans = &found.spans;
    let (kept, left_out): (Vec<_>, Vec<_>) = (0..spans.len()).partition(|&i| choice.keeps(i));
    let kept = Cover::new(kept.into_iter().filter_map(|k| spans.get(k).copied()));
    let gone = Cover::new(
        left_out
            .into_iter()
            .filter_map(|i| spans.get(i).copied())
            .filter(|&(start, end)| !kept.overlaps(start, end)),
    );
    found.raw.forget_where(|start, end| gone.holds(start, end));
}

/// Which candidates stand — the one that fits the schema best, or as [`choose`] decides —
/// and whether the schema alone decided (see [`combine`]). Values written as a list
/// (separated by commas or one per line), and any candidates when the schema wants an
/// array, are a candidate together too, first, so that the whole list wins a tie with one
/// of its items: `"a, b",c,d` for an array of strings keeps all three, and two objects in
/// prose (or two fences) for an array of objects keep both.
fn choice(found: &Found, options: &RepairOptions, out: &mut Repaired) -> (Choice, bool) {
    let all = || Choice::List((0..found.values.len()).collect());
    let as_list =
        found.comma_separated || options.schema.as_ref().is_some_and(coerce::array_target);
    if options.schema.is_some() && as_list {
        let mut candidates = Vec::with_capacity(found.values.len() + 1);
        candidates.push(Value::Array(found.values.clone()));
        candidates.extend(found.values.iter().cloned());
        if let Some(scores) = coerce::candidate_scores(&candidates, options)
            && let Some((i, tied)) = coerce::best_candidate(&scores)
        {
            if i == 0 {
                return (all(), scores[0].0 == 0);
            }
            ambiguous(out, tied);
            let decided = only_fit(&scores[1..], i - 1, &found.values);
            return (Choice::One(i - 1), decided);
        }
    }
    if let Some(scores) = coerce::candidate_scores(&found.values, options)
        && let Some((i, tied)) = coerce::best_candidate(&scores)
    {
        ambiguous(out, tied);
        return (Choice::One(i), only_fit(&scores, i, &found.values));
    }
    (choose(&found.values, found.comma_separated), false)
}

/// True when candidate `i` fits the schema (`scores` from [`coerce::candidate_scores`]) and
/// every other candidate that carries something does not.
fn only_fit(scores: &[(usize, usize)], i: usize, values: &[Value]) -> bool {
    scores
        .iter()
        .zip(values)
        .enumerate()
        .all(|(j, (&(errors, _), v))| {
            if j == i {
                errors == 0
            } else {
                errors > 0 || is_empty(v)
            }
        })
}

/// Warns that several candidates fit the schema equally well, when `tied`.
fn ambiguous(out: &mut Repaired, tied: bool) {
    if tied {
        out.diagnostics.push(
            Diagnostic::warning(
                "repair.ambiguous_candidates",
                Location::root(),
                "several candidates fit the schema; the first one was chosen",
            )
            .source("repair"),
        );
    }
}

/// The error that stopped the parse, located.
pub(crate) fn fatal_diagnostic(doc: &Locator<'_>, text: &str, fatal: Fatal) -> Diagnostic {
    let span = doc.span(fatal.at, (fatal.at + 1).min(text.len()));
    Diagnostic::error(fatal.code, Location::from_span(span), fatal.message).source("repair")
}

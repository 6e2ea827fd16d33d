//! The top level of one payload region: the first value, then whatever follows it (more
//! values, members of an object closed too early, stray brackets, trailing prose).

use serde_json::Value;

use super::{Ctx, Fatal, Parser, Sink, ValueSink};
use crate::log::Log;
use crate::rules::RepairRule;

/// What one region of text held.
#[derive(Debug)]
pub(crate) struct Payload<V = Value> {
    /// Top-level values with their byte ranges.
    pub values: Vec<(V, usize, usize)>,
    /// True when the values were separated by commas (a list missing its brackets) or
    /// written on lines of their own (newline-delimited JSON): they form a list.
    pub comma_separated: bool,
    pub repairs: Log,
    /// Repairs applied beyond the recording limit.
    pub unrecorded: usize,
    pub fatal: Option<Fatal>,
    /// True when the text ended inside a value.
    pub truncated: bool,
    /// True when a streaming sink gave up (see [`Parser::bail`]).
    pub bailed: bool,
    /// The most brackets open at once in any value.
    pub deepest: usize,
    /// Where the text dropped after the values starts (its drop is the last repair).
    pub tail: Option<usize>,
}

/// Parses the values in `src[start..end]` into `Value`s; offsets stay relative to `src`.
pub(crate) fn parse_region(src: &str, start: usize, end: usize, max_depth: usize) -> Payload {
    parse_region_with(src, start, end, max_depth, &mut ValueSink)
}

/// Parses the values in `src[start..end]` into `sink`; offsets stay relative to `src`.
pub(crate) fn parse_region_with<S: Sink>(
    src: &str,
    start: usize,
    end: usize,
    max_depth: usize,
    sink: &mut S,
) -> Payload<S::Val> {
    let region = src.get(..end).unwrap_or(src);
    let mut p = Parser::new(region, start, max_depth, sink);
    let mut out = Payload {
        values: Vec::new(),
        comma_separated: false,
        repairs: Log::default(),
        unrecorded: 0,
        fatal: None,
        truncated: false,
        bailed: false,
        deepest: 0,
        tail: None,
    };
    let mut after_comma = false;
    loop {
        p.skip_blank();
        if p.at_end() || p.stopped() {
            break;
        }
        let at = p.pos;
        let first = out.values.is_empty();
        if p.at_stop() {
            p.record(RepairRule::Prose, at, region.len(), "");
            break;
        }
        match p.peek() {
            Some(b',') if !first => {
                p.pos += 1;
                if merge_members(&mut p, &mut out.values) {
                    continue;
                }
                out.comma_separated = true;
                after_comma = true;
                continue;
            }
            Some(b'}' | b']' | b')') if !first => {
                p.pos += 1;
                p.record(RepairRule::ExtraClosingBracket, at, p.pos, "");
                continue;
            }
            Some(b'{' | b'[') => {}
            Some(_) if first || after_comma || scalar_line(&p, &out.values, at) => {}
            Some(_) => {
                let tail = p.text(at, region.len());
                p.record(trailing_rule(tail), at, region.len(), "");
                out.tail = Some(at);
                break;
            }
            None => break,
        }
        after_comma = false;
        if let Some(&(_, _, end)) = out.values.last()
            && p.b.get(end..at).is_some_and(|gap| gap.contains(&b'\n'))
        {
            out.comma_separated = true;
        }
        if first && crate::extract::member_at(p.b, at) {
            let v = braceless_object(&mut p, at);
            out.values.push((v, at, p.pos));
            continue;
        }
        match p.value(Ctx::Top) {
            Some(v) => out.values.push((v, at, p.pos)),
            None if p.pos == at => {
                p.pos += p.text(at, at + 1).len().max(1);
                p.record(RepairRule::StrayText, at, p.pos, "");
            }
            None => {}
        }
    }
    out.truncated = p.truncated;
    out.repairs = p.repairs;
    out.unrecorded = p.unrecorded;
    out.fatal = p.fatal;
    out.bailed = p.bailed;
    out.deepest = p.deepest;
    p.sink.give_buffers(p.stack, p.path);
    out
}

/// The rule that drops `tail`, the text after the first value: prose is dropped safely; a
/// second JSON value in it is data, and dropping it is choosing between values (unsafe), as
/// for `[1] [2]`. The text path uses the same rule.
pub(crate) fn trailing_rule(tail: &str) -> RepairRule {
    if holds_value(tail) {
        RepairRule::MultipleValues
    } else {
        RepairRule::Prose
    }
}

/// Whether `tail` holds a complete JSON object or array (one of its first few brackets starts
/// one).
fn holds_value(tail: &str) -> bool {
    tail.match_indices(['{', '[']).take(8).any(|(i, _)| {
        let rest = &tail[i..];
        crate::strict::first_value_end(rest)
            .and_then(|end| rest.get(..end))
            .is_some_and(|v| serde_json::from_str::<Value>(v).is_ok())
    })
}

/// True when a scalar starts a line at `at` after a line that held only a scalar: scalars
/// one per line (newline-delimited output), not prose after a document.
fn scalar_line<S: Sink>(
    p: &Parser<'_, '_, S>,
    values: &[(S::Val, usize, usize)],
    at: usize,
) -> bool {
    let Some(&(_, start, end)) = values.last() else {
        return false;
    };
    let starts_scalar = |b: u8| b.is_ascii_digit() || matches!(b, b'-' | b'"');
    p.byte_at(start).is_some_and(starts_scalar)
        && p.byte_at(at).is_some_and(starts_scalar)
        && p.b.get(end..at).is_some_and(|gap| gap.contains(&b'\n'))
}

/// `{"a": 1}, "b": 2}`: members written after the object was closed go into that object.
fn merge_members<S: Sink>(
    p: &mut Parser<'_, '_, S>,
    values: &mut [(S::Val, usize, usize)],
) -> bool {
    let Some((value, start, end)) = values.last_mut() else {
        return false;
    };
    let Some((i, b)) = p.next_solid(p.pos) else {
        return false;
    };
    let key_follows = if p.quote_at(i).is_some() {
        p.quoted_key_at(i)
    } else {
        b.is_ascii_alphabetic() && bare_key_at(p, i)
    };
    if !key_follows {
        return false;
    }
    let Some(mut map) = p.sink.reopen(value) else {
        return false;
    };
    p.record(RepairRule::MergedObject, *end - 1, *end, "");
    if p.open(b'{') {
        let mut set = Vec::new();
        p.members_since(&mut map, &mut set, *start);
        p.stack.pop();
        p.sink.add_nulls(&mut map, set);
    }
    p.sink.close_reopened(value, map);
    *end = p.pos;
    true
}

/// `"key": value, ...}`: a document whose opening brace is missing.
fn braceless_object<S: Sink>(p: &mut Parser<'_, '_, S>, at: usize) -> S::Val {
    p.record(RepairRule::MissingOpeningBrace, at, at, "{");
    if !p.open(b'{') {
        return p.sink.null();
    }
    let mut map = p.sink.begin_object();
    let mut set = Vec::new();
    p.members(&mut map, &mut set);
    p.stack.pop();
    p.sink.add_nulls(&mut map, set);
    p.sink.end_object(map)
}

fn bare_key_at<S: Sink>(p: &Parser<'_, '_, S>, mut i: usize) -> bool {
    let start = i;
    while p
        .byte_at(i)
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        && i - start < 64
    {
        i += 1;
    }
    p.next_solid(i).map(|(_, b)| b) == Some(b':')
}

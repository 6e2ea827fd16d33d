//! Prefix verdicts: checks that can already fail on the part of an answer that has arrived.

mod pattern;
mod plan;

use std::sync::Arc;

use rectify_check::Checker;
use rectify_check::rules::{PartMemory, PartRules};
use rectify_core::{Diagnostic, Location, Seg};
use serde_json::Value;

use crate::StreamError;
use crate::reader::{Completed, Grown, Keys, Observer, PathView, Reader, ReaderOptions};
use pattern::PatternRun;
use plan::{Node, Plan};

/// How the full judge will read the answer, which the prefix checks must agree with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrefixOptions {
    /// Whether the full judge applies unsafe repairs. With them, a repeated key is read
    /// last-wins (`json.duplicate_key`), so nothing in an object is final before it closes;
    /// without them, a member is final once its value is complete.
    pub unsafe_repairs: bool,
}

/// A JSON Schema compiled once into the checks that can fail on a prefix of an answer.
///
/// What is judged early, each only when the answer starts with its JSON value (or a fence),
/// and only where the schema says unconditionally what applies (`properties`, `items`,
/// `prefixItems`, local `$ref`s; nothing under `patternProperties`, `additionalProperties`
/// or inside `anyOf`/`oneOf`/`allOf` branches):
///
/// - a complete, final member or item (any value: a wrong type or enum value, a number out
///   of range, a complete object missing a required member): the same safe repairs as the
///   full judge (for example `"3"` to `3`, an enum value's case), then the sub-schema;
/// - an object starting where the `type` leaves objects out (no safe repair turns an object
///   into another type);
/// - a string in progress already longer than a `maxLength` (characters a repair could trim
///   are not counted);
/// - a string in progress that can no longer match its `pattern` however it goes on (the
///   pattern translated from ECMA-262 as the full check translates it, and run as a DFA over
///   the characters as they arrive; a pattern a DFA cannot run, such as one with
///   look-around, is judged only once the string is complete).
///
/// With [`PrefixChecker::with_rules`], a complete, final array item that already breaks a
/// rule of a rules file is judged too (a reference into a named document, `unique`, and
/// `required_nonempty`/`any_nonempty` under `each`; see
/// [`PartRules`](rectify_check::rules::PartRules)), once the item is valid under its own
/// sub-schema (so the full judge's repairs leave it as it is).
///
/// Not judged early: the root value itself (it completes with the answer), rules over the
/// whole document and custom validators.
/// The root must be an object of two or more properties or an array of containers: for a
/// scalar root the repair may read the whole text as the value.
///
/// ```
/// use rectify_stream::{PrefixChecker, PrefixOptions, StreamJudge, Verdict};
/// use serde_json::json;
/// use std::sync::Arc;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "status": {"enum": ["todo", "done"]},
///         "body": {"type": "string"}
///     }
/// });
/// let checker = Arc::new(PrefixChecker::new(&schema, PrefixOptions::default()));
/// let mut judge = StreamJudge::new(checker.clone());
/// assert!(matches!(judge.push("{\"status\": \"DONE\", \"bo").unwrap(), Verdict::Open));
///
/// let mut judge = StreamJudge::new(checker);
/// let Verdict::Doomed(why) = judge.push("{\"status\": \"lost\", \"bo").unwrap() else {
///     panic!("a wrong enum value is final")
/// };
/// assert_eq!(why[0].location.pointer, "/status");
/// ```
#[derive(Debug)]
pub struct PrefixChecker {
    plan: Plan,
    keys: Keys,
    parts: Option<PartRules>,
    /// The name the schema's diagnostics carry (`schema`, or `schema:PATH` for a file).
    source: String,
}

impl PrefixChecker {
    /// Compiles `schema`. A schema (or part of one) that does not compile judges nothing
    /// there: the full check reports it.
    pub fn new(schema: &Value, options: PrefixOptions) -> PrefixChecker {
        PrefixChecker {
            plan: Plan::build(schema, options.unsafe_repairs),
            keys: if options.unsafe_repairs {
                Keys::LastWins
            } else {
                Keys::Unique
            },
            parts: None,
            source: "schema".to_owned(),
        }
    }

    /// This checker naming its schema `source` in diagnostics, as the full check names it
    /// (`schema:PATH` for a schema read from a file).
    #[must_use]
    pub fn with_source(mut self, source: impl Into<String>) -> PrefixChecker {
        self.source = source.into();
        self
    }

    /// `found` with the schema's diagnostics named by this checker's source.
    fn named(&self, mut found: Vec<Diagnostic>) -> Vec<Diagnostic> {
        for d in &mut found {
            if d.source == "schema" {
                d.source.clone_from(&self.source);
            }
        }
        found
    }

    /// This checker judging completed array items by `checker`'s rules too, with its
    /// reference documents (the rules that can be judged on a part; the others wait for
    /// the whole answer).
    #[must_use]
    pub fn with_rules(mut self, checker: &Checker) -> PrefixChecker {
        self.parts = checker
            .rules()
            .map(|rules| PartRules::new(rules, checker.references()))
            .filter(|parts| !parts.is_empty());
        self
    }

    /// True when the schema lets any prefix be judged.
    pub fn judges(&self) -> bool {
        self.plan.enabled
    }

    /// The reader options that agree with this checker.
    pub fn reader_options(&self) -> ReaderOptions {
        ReaderOptions {
            keys: self.keys,
            ..ReaderOptions::default()
        }
    }

    /// The node for a value at `path`, when it may be judged now.
    fn node(&self, path: PathView<'_>) -> Option<&Node> {
        if !self.plan.enabled || !path.judgeable() || path.is_root() {
            return None;
        }
        if self.keys == Keys::LastWins && path.under_object() {
            return None;
        }
        self.plan.at(path.segments())
    }

    /// The errors of the complete value at `path`, after safe repairs; for a valid array
    /// item, the errors of the rules judged on parts.
    fn complete(
        &self,
        path: PathView<'_>,
        completed: &Completed<'_>,
        memory: &mut PartMemory,
    ) -> Vec<Diagnostic> {
        let Some(check) = self.node(path).and_then(|node| node.check.as_ref()) else {
            return Vec::new();
        };
        if let Some(value) = completed.value()
            && check.schema.is_valid(&value)
        {
            return self.part(path, &value, memory);
        }
        let repaired = rectify_repair::repair(completed.raw, &check.repair);
        let Some(value) = repaired.value else {
            return Vec::new();
        };
        let prefix = path.pointer();
        check
            .schema
            .check_value(&value)
            .into_iter()
            .filter(Diagnostic::is_error)
            .map(|d| relocate(d, &prefix))
            .collect()
    }

    /// The rule errors of a valid array item (nothing for a member: only items are parts).
    fn part(&self, path: PathView<'_>, value: &Value, memory: &mut PartMemory) -> Vec<Diagnostic> {
        let Some(parts) = &self.parts else {
            return Vec::new();
        };
        let at: Vec<Seg<'_>> = path.segments().collect();
        if !matches!(at.last(), Some(Seg::Index(_))) {
            return Vec::new();
        }
        parts
            .judge(memory, &at, value)
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect()
    }

    /// The error of an object starting where the schema wants no object: no safe repair
    /// turns an object into another type.
    fn object(&self, path: PathView<'_>) -> Option<Diagnostic> {
        if self.keys == Keys::LastWins {
            return None; // unsafe repairs may write an object as a string's JSON text
        }
        let types = self.node(path)?.not_object.as_deref()?;
        Some(not_an_object(path, types))
    }

    /// The error of a string in progress that can no longer be valid: already longer than
    /// its `maxLength`, or no longer able to match its `pattern`.
    fn string(
        &self,
        path: PathView<'_>,
        grown: &Grown<'_>,
        run: &mut Option<PatternRun>,
    ) -> Option<Diagnostic> {
        let node = self.node(path)?;
        let settled = settled(grown.raw);
        let held = grown.raw[settled.len()..]
            .bytes()
            .filter(|b| !b.is_ascii_whitespace())
            .count();
        let chars = grown.chars.saturating_sub(held);
        if let Some(max) = node.max_length
            && chars > max
        {
            return Some(too_long(path, max, chars));
        }
        let pattern = node.pattern.as_ref()?;
        let run = match run {
            Some(run) if run.string == grown.start => run,
            _ => run.insert(PatternRun::new(pattern, grown.start)),
        };
        run.feed(pattern, settled)
            .then(|| cannot_match(path, &pattern.source))
    }
}

/// The part of a string in progress that stays in it whatever follows. Were the answer to
/// end now, the repair would read a closing bracket, a fence's backticks and white space at
/// the end of an unterminated string as structure (`{"a": "foo}` is `{"a": "foo"}`), so
/// those are held back until something else follows them.
fn settled(raw: &str) -> &str {
    raw.trim_end_matches(|c: char| c.is_ascii_whitespace() || matches!(c, '}' | ']' | '`'))
}

/// An object where the schema's `type` leaves objects out.
fn not_an_object(path: PathView<'_>, types: &str) -> Diagnostic {
    Diagnostic::error(
        "schema.type",
        Location::from_pointer(&path.pointer()),
        format!("an object is arriving where the type is {types}"),
    )
    .expected(format!("type {types}"))
    .received("an object")
    .source("schema")
}

/// A string in progress longer than `max` characters.
fn too_long(path: PathView<'_>, max: usize, chars: usize) -> Diagnostic {
    Diagnostic::error(
        "schema.max_length",
        Location::from_pointer(&path.pointer()),
        format!("the string is longer than {max} characters ({chars} so far, still going)"),
    )
    .expected(format!("at most {max} characters"))
    .source("schema")
}

/// A string in progress that no continuation can make match `pattern`.
fn cannot_match(path: PathView<'_>, pattern: &str) -> Diagnostic {
    Diagnostic::error(
        "schema.pattern",
        Location::from_pointer(&path.pointer()),
        format!("the string cannot match the pattern {pattern:?}, however it goes on"),
    )
    .expected(format!("a string matching {pattern:?}"))
    .source("schema")
}

/// `diagnostic` moved from the sub-value's root to `prefix`.
fn relocate(mut diagnostic: Diagnostic, prefix: &str) -> Diagnostic {
    let pointer = format!("{prefix}{}", diagnostic.location.pointer);
    diagnostic.location = Location::from_pointer(&pointer);
    diagnostic
}

/// What the prefix says about the answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Nothing read so far rules out a valid answer.
    Open,
    /// The answer can no longer be valid: the errors that say why.
    Doomed(Vec<Diagnostic>),
}

/// A [`Reader`] judged by a [`PrefixChecker`] as text arrives.
#[derive(Debug)]
pub struct StreamJudge {
    reader: Reader,
    checker: Arc<PrefixChecker>,
    doomed: Vec<Diagnostic>,
    repeated_key: bool,
    pattern: Option<PatternRun>,
    memory: PartMemory,
}

impl StreamJudge {
    /// A judge for a new answer.
    pub fn new(checker: Arc<PrefixChecker>) -> StreamJudge {
        StreamJudge {
            reader: Reader::with_options(checker.reader_options()),
            checker,
            doomed: Vec::new(),
            repeated_key: false,
            pattern: None,
            memory: PartMemory::default(),
        }
    }

    /// Reads a chunk of text and judges what completed in it.
    pub fn push(&mut self, chunk: &str) -> Result<Verdict, StreamError> {
        if self.doomed.is_empty() {
            let (reader, mut watch) = self.watch();
            reader.push_observed(chunk, &mut watch)?;
        } else {
            self.reader.push(chunk)?;
        }
        Ok(self.verdict())
    }

    /// Reads a chunk of bytes (a character split across chunks is joined) and judges it.
    pub fn push_bytes(&mut self, chunk: &[u8]) -> Result<Verdict, StreamError> {
        let (reader, mut watch) = self.watch();
        reader.push_bytes_observed(chunk, &mut watch)?;
        Ok(self.verdict())
    }

    /// The reader, and the observer that judges what it reads.
    fn watch(&mut self) -> (&mut Reader, Watch<'_>) {
        let watch = Watch {
            checker: &self.checker,
            found: &mut self.doomed,
            repeated_key: &mut self.repeated_key,
            pattern: &mut self.pattern,
            memory: &mut self.memory,
        };
        (&mut self.reader, watch)
    }

    /// The verdict so far.
    pub fn verdict(&self) -> Verdict {
        if self.doomed.is_empty() {
            Verdict::Open
        } else {
            Verdict::Doomed(self.doomed.clone())
        }
    }

    /// True when the answer repeated a key in an object: with unique keys (no unsafe
    /// repairs), a verdict may rest on a value a later repeat would have replaced.
    pub fn saw_repeated_key(&self) -> bool {
        self.repeated_key
    }

    /// The reader, for the text and the partial value.
    pub fn reader(&self) -> &Reader {
        &self.reader
    }

    /// The reader, to end the stream.
    pub fn reader_mut(&mut self) -> &mut Reader {
        &mut self.reader
    }
}

/// The observer that collects the first errors.
struct Watch<'a> {
    checker: &'a PrefixChecker,
    found: &'a mut Vec<Diagnostic>,
    repeated_key: &'a mut bool,
    pattern: &'a mut Option<PatternRun>,
    memory: &'a mut PartMemory,
}

impl Observer for Watch<'_> {
    fn completed(&mut self, path: PathView<'_>, value: Completed<'_>) {
        if self.found.is_empty() {
            *self.found = self
                .checker
                .named(self.checker.complete(path, &value, self.memory));
        }
    }

    fn string_grew(&mut self, path: PathView<'_>, grown: Grown<'_>) {
        if self.found.is_empty() {
            let found = self.checker.string(path, &grown, self.pattern);
            *self.found = self.checker.named(found.into_iter().collect());
        }
    }

    fn repeated_key(&mut self, _: PathView<'_>, _: &str) {
        *self.repeated_key = true;
    }

    fn object_opened(&mut self, path: PathView<'_>) {
        if self.found.is_empty() {
            *self.found = self
                .checker
                .named(self.checker.object(path).into_iter().collect());
        }
    }
}

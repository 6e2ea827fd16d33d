//! Builds the value and its span map from saphyr's events, without recursion: open
//! containers live on an explicit stack, so nesting depth costs heap, not stack, and is
//! refused past `Limits::max_depth`.

use rectify_core::SpanMapBuilder;
use saphyr_parser::{Event, Parser, ScalarStyle, StrInput, Tag};
use serde_json::{Value, map::Entry};

use super::Fragment;
use super::anchors::{Anchored, Anchors, Usage};
use super::frame::{Frame, Items, PendingKey};
use super::offsets::Offsets;
use super::problem::{Problem, Problems};
use super::scalar;
use crate::Limits;

mod problems;

type Step = Result<(), Problem>;

/// Reads the first document of a YAML stream held in `source[start..end]`.
pub(crate) struct Builder<'a> {
    source: &'a str,
    fragment: &'a str,
    offsets: Offsets<'a>,
    limits: &'a Limits,
    frames: Vec<Frame>,
    spans: SpanMapBuilder,
    anchors: Anchors,
    usage: Usage,
    key_depth: usize,
    root: Option<Value>,
    problems: Problems,
}

impl<'a> Builder<'a> {
    /// A builder for `fragment`, which starts at byte `base` of `source`.
    pub(crate) fn new(source: &'a str, fragment: &'a str, base: usize, limits: &'a Limits) -> Self {
        Builder {
            source,
            fragment,
            offsets: Offsets::new(fragment, base),
            limits,
            frames: Vec::new(),
            spans: SpanMapBuilder::with_capacity(fragment.len() / 16),
            anchors: Anchors::default(),
            usage: Usage::default(),
            key_depth: 0,
            root: None,
            problems: Problems::default(),
        }
    }

    /// Reads the first document.
    pub(crate) fn run(mut self) -> Fragment {
        let mut parser = Parser::new_from_str(self.fragment);
        match self.first_document(&mut parser) {
            Ok(()) => self.finish(),
            Err(fatal) => {
                self.problems.push_always(fatal);
                Fragment::failed(self.problems)
            }
        }
    }

    fn first_document(&mut self, parser: &mut Parser<'a, StrInput<'a>>) -> Step {
        while let Some(next) = parser.next_event() {
            let (event, span) = next.map_err(|e| self.syntax(&e))?;
            let range = (
                self.offsets.byte(span.start.index()),
                self.offsets.byte(span.end.index()),
            );
            if self.event(event, range)? {
                return self.rest(parser);
            }
        }
        Ok(())
    }

    /// After the first document: warns about further documents (which are not read).
    fn rest(&mut self, parser: &mut Parser<'a, StrInput<'a>>) -> Step {
        match parser.peek() {
            Some(Ok((Event::DocumentStart(_), span))) => {
                let range = (
                    self.offsets.byte(span.start.index()),
                    self.offsets.byte(span.end.index()),
                );
                self.problems.push(Problem::warning(
                    "yaml.multi_document",
                    "",
                    range,
                    "the stream has more than one YAML document; only the first is read",
                ));
                Ok(())
            }
            Some(Err(e)) => Err(self.syntax(&e)),
            _ => Ok(()),
        }
    }

    /// Handles one event; true at the end of the first document.
    fn event(&mut self, event: Event<'_>, range: (usize, usize)) -> Result<bool, Problem> {
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                self.scalar(&text, style, anchor, tag.as_deref(), range)?;
            }
            Event::Alias(id) => self.alias(id, range)?,
            Event::SequenceStart(anchor, _) => self.open(Items::Seq(Vec::new()), anchor, range)?,
            Event::MappingStart(anchor, _) => {
                self.open(Items::Map(serde_json::Map::new(), None), anchor, range)?;
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(range)?,
            Event::DocumentEnd | Event::StreamEnd => return Ok(true),
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => {}
        }
        Ok(false)
    }

    fn scalar(
        &mut self,
        text: &str,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        range: (usize, usize),
    ) -> Step {
        let (value, note) = scalar::resolve(text, style, tag);
        let usage = Usage {
            nodes: 1,
            bytes: text.len(),
        };
        self.usage.add(usage);
        if anchor != 0 {
            self.store_anchor(anchor, &value, usage, 0, range)?;
        }
        if self.wants_key() {
            self.set_key(text.to_owned(), range);
            return Ok(());
        }
        if let Some(note) = note {
            let problem = self.note(&note, text, range);
            self.problems.push(problem);
        }
        self.leaf(range);
        self.attach(value, range.1, 0);
        Ok(())
    }

    fn alias(&mut self, id: usize, range: (usize, usize)) -> Step {
        let depth = self.frames.len();
        let anchored = match self.anchors.expand(id, self.limits) {
            Ok(Some(anchored)) => anchored,
            Ok(None) => return Err(self.recursive_alias(range)),
            Err(refused) => return Err(self.refused(refused, range)),
        };
        if depth + anchored.height > self.limits.max_depth {
            return Err(self.too_deep(range));
        }
        let (value, usage, height) = (anchored.value.clone(), anchored.usage, anchored.height);
        self.usage.add(usage);
        if self.wants_key() {
            self.complex_key(value, range);
            return Ok(());
        }
        self.leaf(range);
        self.attach(value, range.1, height);
        Ok(())
    }

    fn open(&mut self, items: Items, anchor: usize, range: (usize, usize)) -> Step {
        if self.frames.len() >= self.limits.max_depth {
            return Err(self.too_deep(range));
        }
        let is_key = self.wants_key();
        let span = (!is_key && self.key_depth == 0).then(|| {
            let key = self.child_key();
            self.spans.open(key, range.0)
        });
        if is_key {
            self.key_depth += 1;
        }
        if anchor != 0 {
            self.anchors.opened();
        }
        let usage = self.usage;
        self.usage.nodes += 1;
        self.frames.push(Frame {
            items,
            span,
            start: range.0,
            end: range.1,
            anchor,
            usage,
            height: 0,
            is_key,
        });
        Ok(())
    }

    fn close(&mut self, range: (usize, usize)) -> Step {
        let Some(frame) = self.frames.pop() else {
            return Ok(());
        };
        let end = if range.0 < range.1 {
            range.1
        } else {
            frame.end.max(frame.start)
        };
        if let Some(id) = frame.span {
            self.spans.close(id, end);
        }
        let (start, anchor, usage, height, is_key) = (
            frame.start,
            frame.anchor,
            frame.usage,
            frame.height + 1,
            frame.is_key,
        );
        let value = frame.into_value();
        if anchor != 0 {
            self.anchors.closed();
            let usage = self.usage.since(usage);
            self.store_anchor(anchor, &value, usage, height, (start, end))?;
        }
        if is_key {
            self.key_depth = self.key_depth.saturating_sub(1);
            self.complex_key(value, (start, end));
        } else {
            self.attach(value, end, height);
        }
        Ok(())
    }

    fn store_anchor(
        &mut self,
        id: usize,
        value: &Value,
        usage: Usage,
        height: usize,
        range: (usize, usize),
    ) -> Step {
        if let Err(refused) = self.anchors.admit(usage, self.limits) {
            return Err(self.refused(refused, range));
        }
        let value = value.clone();
        self.anchors.insert(
            id,
            Anchored {
                value,
                usage,
                height,
            },
        );
        Ok(())
    }

    /// Adds a finished value to the open container (or makes it the root).
    fn attach(&mut self, value: Value, end: usize, height: usize) {
        let Some(parent) = self.frames.last_mut() else {
            self.root = Some(value);
            return;
        };
        parent.end = parent.end.max(end);
        parent.height = parent.height.max(height);
        let (map, pending) = match &mut parent.items {
            Items::Seq(items) => return items.push(value),
            Items::Map(map, pending) => (map, pending),
        };
        let key = pending.take().unwrap_or(PendingKey {
            text: String::new(),
            range: (end, end),
            raw: None,
        });
        let duplicate = match map.entry(key.text) {
            Entry::Occupied(mut slot) => {
                slot.insert(value);
                Some(slot.key().clone())
            }
            Entry::Vacant(slot) => {
                slot.insert(value);
                None
            }
        };
        if let Some(text) = duplicate {
            self.duplicate_key(&text, key.range);
        }
    }

    fn wants_key(&self) -> bool {
        self.frames.last().is_some_and(Frame::wants_key)
    }

    pub(super) fn set_key(&mut self, text: String, range: (usize, usize)) {
        let raw = raw_key(self.source, &text, range);
        if let Some(Frame {
            items: Items::Map(_, pending),
            ..
        }) = self.frames.last_mut()
        {
            *pending = Some(PendingKey { text, range, raw });
        }
    }

    fn child_key(&self) -> rectify_core::Key {
        self.frames
            .last()
            .map_or(rectify_core::Key::Index, Frame::child_key)
    }

    fn leaf(&mut self, range: (usize, usize)) {
        if self.key_depth == 0 {
            let key = self.child_key();
            self.spans.leaf(key, range.0, range.1);
        }
    }

    /// The JSON Pointer of the value being read.
    pub(super) fn pointer_here(&self) -> String {
        let mut pointer = String::new();
        for frame in &self.frames {
            frame.push_child_segment(&mut pointer);
        }
        pointer
    }

    fn finish(mut self) -> Fragment {
        if self.spans.is_empty() {
            let at = self.offsets.byte(0);
            self.spans.leaf(rectify_core::Key::Index, at, at);
        }
        Fragment {
            value: Some(self.root.unwrap_or(Value::Null)),
            spans: self.spans.finish(),
            problems: self.problems,
        }
    }
}

/// The byte range of `text` inside `source[range]` when it is spelled there exactly, plain or
/// between quotes, with no backslash (a `Key::Raw` range is read back as JSON string text).
fn raw_key(source: &str, text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    let spelled = source.get(range.0..range.1)?;
    if text.contains('\\') {
        return None;
    }
    if spelled == text {
        return Some(range);
    }
    let quoted = spelled.len() == text.len() + 2
        && (spelled.starts_with('"') || spelled.starts_with('\''))
        && spelled.get(1..spelled.len() - 1) == Some(text);
    quoted.then_some((range.0 + 1, range.1 - 1))
}

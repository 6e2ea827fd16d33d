//! The open containers of the value being read, innermost last.

use serde_json::{Map, Value};

use super::members::Members;
use crate::path::Seg;

/// Where a complete value's text is: `start..end` in the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// What an open object expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InObject {
    /// A key, or `}` when `close` (after `{` or a trailing comma).
    Key { close: bool },
    /// The `:` after a key.
    Colon,
    /// A member's value.
    Value,
    /// `,` or `}`.
    Next,
}

/// What an open array expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InArray {
    /// An item, or `]` when `close` (after `[` or a trailing comma).
    Item { close: bool },
    /// `,` or `]`.
    Next,
}

/// One open container, with where the values it holds so far are (values are built only
/// when a partial value is asked for).
#[derive(Debug)]
pub(crate) enum Frame {
    /// An open `{`.
    Object {
        start: usize,
        /// The complete members, in order; a repeated key keeps its first place and takes
        /// the last value (as the repair and serde_json read it).
        members: Members,
        key: Option<String>,
        expect: InObject,
    },
    /// An open `[`.
    Array {
        start: usize,
        items: Vec<Span>,
        expect: InArray,
    },
}

impl Frame {
    /// Where the container's `{` or `[` is.
    pub(crate) fn start(&self) -> usize {
        match self {
            Frame::Object { start, .. } | Frame::Array { start, .. } => *start,
        }
    }

    /// The segment of the value being read in this container, if one is.
    pub(crate) fn current(&self) -> Option<Seg<'_>> {
        match self {
            Frame::Object { key, .. } => key.as_deref().map(Seg::Key),
            Frame::Array { items, .. } => Some(Seg::Index(items.len())),
        }
    }

    /// True when the container, closing now, held a member or item and expected another:
    /// its last token was a `,` (a trailing comma, read leniently).
    pub(crate) fn closed_after_comma(&self) -> bool {
        match self {
            Frame::Object {
                members,
                expect: InObject::Key { close: true },
                ..
            } => !members.is_empty(),
            Frame::Array {
                items,
                expect: InArray::Item { close: true },
                ..
            } => !items.is_empty(),
            _ => false,
        }
    }

    /// What the container holds so far, its values built by `build`, with `child` (the
    /// value being read, as far as it goes) at the current segment.
    pub(crate) fn snapshot(
        &self,
        child: Option<Value>,
        build: impl Fn(Span) -> Option<Value>,
    ) -> Value {
        match self {
            Frame::Object { members, key, .. } => {
                let mut map: Map<String, Value> = members
                    .iter()
                    .filter_map(|(k, span)| Some((k.to_owned(), build(span)?)))
                    .collect();
                if let (Some(key), Some(child)) = (key, child) {
                    map.insert(key.clone(), child);
                }
                Value::Object(map)
            }
            Frame::Array { items, .. } => {
                let mut values: Vec<Value> = items.iter().filter_map(|&span| build(span)).collect();
                values.extend(child);
                Value::Array(values)
            }
        }
    }

    /// The segments of the values this container holds in full.
    pub(crate) fn done(&self) -> Vec<Seg<'_>> {
        match self {
            Frame::Object { members, .. } => members.iter().map(|(k, _)| Seg::Key(k)).collect(),
            Frame::Array { items, .. } => (0..items.len()).map(Seg::Index).collect(),
        }
    }

    /// True for an object.
    pub(crate) fn is_object(&self) -> bool {
        matches!(self, Frame::Object { .. })
    }
}

/// The path to the value being read: the current segment of every open container.
#[derive(Debug, Clone, Copy)]
pub struct PathView<'a> {
    frames: &'a [Frame],
    judgeable: bool,
}

impl<'a> PathView<'a> {
    pub(crate) fn new(frames: &'a [Frame], judgeable: bool) -> Self {
        Self { frames, judgeable }
    }

    /// True when the value started the answer (see [`crate::Reader::judgeable`]).
    pub fn judgeable(&self) -> bool {
        self.judgeable
    }

    /// True at the root.
    pub fn is_root(&self) -> bool {
        self.frames.is_empty()
    }

    /// The segments from the root.
    pub fn segments(&self) -> impl Iterator<Item = Seg<'a>> + 'a {
        self.frames.iter().filter_map(Frame::current)
    }

    /// The JSON Pointer.
    pub fn pointer(&self) -> String {
        crate::path::pointer(self.segments())
    }

    /// True when a container on the path is an object (a repeated key could still replace
    /// the value).
    pub fn under_object(&self) -> bool {
        self.frames.iter().any(Frame::is_object)
    }
}

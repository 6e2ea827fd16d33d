//! The open containers of the value being read, innermost last.

use serde_json::{Map, Value};

use crate::path::Seg;

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

/// One open container, with what it holds so far.
#[derive(Debug)]
pub(crate) enum Frame {
    /// An open `{`.
    Object {
        start: usize,
        map: Map<String, Value>,
        key: Option<String>,
        expect: InObject,
    },
    /// An open `[`.
    Array {
        start: usize,
        items: Vec<Value>,
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

    /// The container closed: its value.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Frame::Object { map, .. } => Value::Object(map),
            Frame::Array { items, .. } => Value::Array(items),
        }
    }

    /// A copy of what the container holds so far, with `child` (the value being read, as
    /// far as it goes) at the current segment.
    pub(crate) fn snapshot(&self, child: Option<Value>) -> Value {
        match self {
            Frame::Object { map, key, .. } => {
                let mut map = map.clone();
                if let (Some(key), Some(child)) = (key, child) {
                    map.insert(key.clone(), child);
                }
                Value::Object(map)
            }
            Frame::Array { items, .. } => {
                let mut items = items.clone();
                items.extend(child);
                Value::Array(items)
            }
        }
    }

    /// The segments of the values this container holds in full.
    pub(crate) fn done(&self) -> Vec<Seg<'_>> {
        match self {
            Frame::Object { map, .. } => map.keys().map(|k| Seg::Key(k)).collect(),
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

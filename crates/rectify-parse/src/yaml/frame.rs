//! An open sequence or mapping while the tree is built.

use rectify_core::{Key, NodeId, push_pointer};
use serde_json::{Map, Value};

use super::anchors::Usage;

/// A mapping key waiting for its value.
#[derive(Debug)]
pub(crate) struct PendingKey {
    /// The key's text.
    pub(crate) text: String,
    /// Where the key is in the source.
    pub(crate) range: (usize, usize),
    /// The byte range of the key's text in the source, when the source spells it exactly
    /// (no escapes): the span map then refers to it instead of keeping a copy.
    pub(crate) raw: Option<(usize, usize)>,
}

/// The children read so far.
#[derive(Debug)]
pub(crate) enum Items {
    /// A sequence.
    Seq(Vec<Value>),
    /// A mapping, and the key whose value comes next.
    Map(Map<String, Value>, Option<PendingKey>),
}

/// An open container.
#[derive(Debug)]
pub(crate) struct Frame {
    /// Children so far.
    pub(crate) items: Items,
    /// The span-map node, unless spans are not recorded here (inside a complex key).
    pub(crate) span: Option<NodeId>,
    /// Byte offset of the start.
    pub(crate) start: usize,
    /// Byte offset of the end of the last child so far.
    pub(crate) end: usize,
    /// saphyr's anchor id, 0 when not anchored.
    pub(crate) anchor: usize,
    /// Nodes and bytes produced before this container opened.
    pub(crate) usage: Usage,
    /// Largest height of a child so far.
    pub(crate) height: usize,
    /// True when this container is a mapping key.
    pub(crate) is_key: bool,
}

impl Frame {
    /// True when the next child is a mapping key.
    pub(crate) fn wants_key(&self) -> bool {
        matches!(self.items, Items::Map(_, None))
    }

    /// The span-map key of the child being read.
    pub(crate) fn child_key(&self) -> Key {
        match &self.items {
            Items::Map(_, Some(key)) => match key.raw {
                Some((start, end)) => Key::Raw(start, end),
                None => Key::Owned(key.text.as_str().into()),
            },
            Items::Seq(_) | Items::Map(_, None) => Key::Index,
        }
    }

    /// Appends the pointer segment of the child being read.
    pub(crate) fn push_child_segment(&self, pointer: &mut String) {
        match &self.items {
            Items::Seq(items) => push_pointer(pointer, &items.len().to_string()),
            Items::Map(_, Some(key)) => push_pointer(pointer, &key.text),
            Items::Map(_, None) => {}
        }
    }

    /// The finished value.
    pub(crate) fn into_value(self) -> Value {
        match self.items {
            Items::Seq(items) => Value::Array(items),
            Items::Map(map, _) => Value::Object(map),
        }
    }
}

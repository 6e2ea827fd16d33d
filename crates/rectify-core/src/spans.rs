//! A compact map from JSON Pointer to source span, built in one pass by a reader.
//!
//! Nodes are stored in document order (pre-order) with their descendant count, so building
//! costs one push per value. The first lookup indexes every node's children in one pass, so an
//! array element is found in constant time (and k lookups in a long array cost O(n + k), not
//! O(n·k)); an object member is found by walking that object's keys. Object keys are kept as
//! byte ranges into the source when they can be, so no string is allocated per key.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::location::pointer_segments;

/// The key under which a node sits in its parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// An array element (or the root): addressed by position.
    Index,
    /// An object key stored as the byte range of a JSON string's contents (without the quotes;
    /// escapes are decoded on lookup).
    Raw(usize, usize),
    /// An object key stored as text.
    Owned(Box<str>),
}

#[derive(Clone, Debug)]
struct Node {
    start: usize,
    end: usize,
    key: Key,
    descendants: usize,
}

/// Identifies a node while a [`SpanMapBuilder`] is building it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeId(usize);

/// Map from JSON Pointer to byte range in the source text.
#[derive(Clone, Debug, Default)]
pub struct SpanMap {
    nodes: Vec<Node>,
    /// The children of every node, built on the first lookup.
    children: OnceLock<Children>,
}

/// Node `p`'s children are `list[first[p]..first[p + 1]]` (node indices, in order).
#[derive(Clone, Debug, Default)]
struct Children {
    first: Vec<usize>,
    list: Vec<usize>,
}

impl Children {
    /// One pass: each node is listed once, under its parent.
    fn build(nodes: &[Node]) -> Children {
        let mut first = Vec::with_capacity(nodes.len() + 1);
        let mut list = Vec::with_capacity(nodes.len().saturating_sub(1));
        for (parent, node) in nodes.iter().enumerate() {
            first.push(list.len());
            let end = parent + 1 + node.descendants;
            let mut child = parent + 1;
            while child < end && child < nodes.len() {
                list.push(child);
                child += 1 + nodes[child].descendants;
            }
        }
        first.push(list.len());
        Children { first, list }
    }

    fn of(&self, parent: usize) -> &[usize] {
        match (self.first.get(parent), self.first.get(parent + 1)) {
            (Some(&a), Some(&b)) => self.list.get(a..b).unwrap_or_default(),
            _ => &[],
        }
    }
}

/// Builds a [`SpanMap`] in document order.
#[derive(Debug, Default)]
pub struct SpanMapBuilder {
    nodes: Vec<Node>,
}

impl SpanMapBuilder {
    /// A new, empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder with room for `n` nodes.
    pub fn with_capacity(n: usize) -> Self {
        SpanMapBuilder {
            nodes: Vec::with_capacity(n),
        }
    }

    /// Starts a container node at byte `start`; its children follow until [`Self::close`].
    pub fn open(&mut self, key: Key, start: usize) -> NodeId {
        self.nodes.push(Node {
            start,
            end: start,
            key,
            descendants: 0,
        });
        NodeId(self.nodes.len() - 1)
    }

    /// Ends a container node at byte `end`.
    pub fn close(&mut self, id: NodeId, end: usize) {
        let len = self.nodes.len();
        if let Some(node) = self.nodes.get_mut(id.0) {
            node.end = end;
            node.descendants = len - id.0 - 1;
        }
    }

    /// Adds a scalar node spanning `start..end`.
    pub fn leaf(&mut self, key: Key, start: usize, end: usize) {
        self.nodes.push(Node {
            start,
            end,
            key,
            descendants: 0,
        });
    }

    /// Number of nodes so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when no node was added.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Finishes the map.
    pub fn finish(self) -> SpanMap {
        SpanMap {
            nodes: self.nodes,
            children: OnceLock::new(),
        }
    }
}

impl SpanMap {
    /// Number of nodes (values) in the map.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the map has no node (a document read without spans).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The byte range of the value at `pointer`, if it is in the map.
    pub fn find(&self, source: &str, pointer: &str) -> Option<(usize, usize)> {
        let (found, complete) = self.walk(source, pointer)?;
        complete.then_some(found)
    }

    /// The byte range of the value at `pointer` or, if it does not exist, of its nearest
    /// existing ancestor.
    pub fn find_nearest(&self, source: &str, pointer: &str) -> Option<(usize, usize)> {
        self.walk(source, pointer).map(|(found, _)| found)
    }

    fn walk(&self, source: &str, pointer: &str) -> Option<((usize, usize), bool)> {
        let mut cur = 0;
        self.nodes.first()?;
        for seg in pointer_segments(pointer) {
            match self.child(source, cur, &seg) {
                Some(next) => cur = next,
                None => return Some((self.range(cur), false)),
            }
        }
        Some((self.range(cur), true))
    }

    fn range(&self, i: usize) -> (usize, usize) {
        (self.nodes[i].start, self.nodes[i].end)
    }

    fn child(&self, source: &str, parent: usize, seg: &str) -> Option<usize> {
        let children = self
            .children
            .get_or_init(|| Children::build(&self.nodes))
            .of(parent);
        let first = *children.first()?;
        if self.nodes[first].key == Key::Index {
            // An array: its elements are addressed by position.
            let index: usize = seg.parse().ok()?;
            return children.get(index).copied();
        }
        // An object: the last member with the key wins, as when reading.
        children
            .iter()
            .rev()
            .copied()
            .find(|&c| match &self.nodes[c].key {
                Key::Index => false,
                Key::Raw(s, e) => raw_key(source, *s, *e).is_some_and(|k| k == seg),
                Key::Owned(k) => &**k == seg,
            })
    }
}

fn raw_key(source: &str, start: usize, end: usize) -> Option<Cow<'_, str>> {
    let raw = source.get(start..end)?;
    if raw.contains('\\') {
        serde_json::from_str::<String>(&format!("\"{raw}\""))
            .ok()
            .map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // {"a": [10, {"b\u0021": 2}], "a": 3}
    fn sample() -> (String, SpanMap) {
        let src = r#"{"a": [10, {"b\u0021": 2}], "a": 3}"#.to_owned();
        let mut b = SpanMapBuilder::new();
        let root = b.open(Key::Index, 0);
        let arr = b.open(Key::Raw(2, 3), 6);
        b.leaf(Key::Index, 7, 9);
        let obj = b.open(Key::Index, 11);
        b.leaf(Key::Raw(13, 20), 23, 24);
        b.close(obj, 25);
        b.close(arr, 26);
        b.leaf(Key::Raw(29, 30), 33, 34);
        b.close(root, src.len());
        (src, b.finish())
    }

    #[test]
    fn finds_nested_values_and_decodes_escaped_keys() {
        let (src, map) = sample();
        assert_eq!(map.find(&src, ""), Some((0, src.len())));
        assert_eq!(
            map.find(&src, "/a"),
            Some((33, 34)),
            "duplicate key: last one wins"
        );
        assert_eq!(map.len(), 6);
        assert_eq!(map.find(&src, "/x"), None);
        assert_eq!(map.find_nearest(&src, "/x/y"), Some((0, src.len())));
    }

    #[test]
    fn array_positions() {
        let src = "[1,[2,3]]";
        let mut b = SpanMapBuilder::new();
        let root = b.open(Key::Index, 0);
        b.leaf(Key::Index, 1, 2);
        let inner = b.open(Key::Index, 3);
        b.leaf(Key::Index, 4, 5);
        b.leaf(Key::Index, 6, 7);
        b.close(inner, 8);
        b.close(root, 9);
        let map = b.finish();
        assert_eq!(map.find(src, "/1/1"), Some((6, 7)));
        assert_eq!(map.find(src, "/2"), None);
        assert_eq!(map.find(src, "/1/x"), None);
    }
}

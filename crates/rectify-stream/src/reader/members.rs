//! The complete members of an open object, in order: a repeated key keeps its first place
//! and takes the last value (as the repair and serde_json read an object).

use std::collections::HashMap;

use super::frame::Span;

/// Objects of up to this many members are searched in order; bigger ones get an index, so
/// an object of any size is read in linear time.
const LINEAR: usize = 16;

/// The members read so far, with where each value's text is.
#[derive(Debug, Default)]
pub(crate) struct Members {
    list: Vec<(String, Span)>,
    index: HashMap<String, usize>,
}

impl Members {
    /// Where `key` is in the order, if it has been read.
    fn position(&self, key: &str) -> Option<usize> {
        if self.list.len() <= LINEAR {
            self.list.iter().position(|(k, _)| k == key)
        } else {
            self.index.get(key).copied()
        }
    }

    /// True when `key` has been read.
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// A member read: a new key goes last, a repeated one takes the new value in its place.
    pub(crate) fn insert(&mut self, key: String, span: Span) {
        if let Some(at) = self.position(&key) {
            self.list[at].1 = span;
            return;
        }
        self.list.push((key, span));
        let len = self.list.len();
        if len == LINEAR + 1 {
            let keys = self
                .list
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.clone(), i));
            self.index = keys.collect();
        } else if len > LINEAR + 1 {
            self.index.insert(self.list[len - 1].0.clone(), len - 1);
        }
    }

    /// The members in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, Span)> {
        self.list.iter().map(|(k, span)| (k.as_str(), *span))
    }

    /// True when no member has been read.
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_keeps_its_place_in_small_and_big_objects() {
        for size in [3, LINEAR, LINEAR + 1, 3 * LINEAR] {
            let mut members = Members::default();
            for i in 0..size {
                members.insert(format!("k{i}"), Span { start: i, end: i });
            }
            members.insert("k1".into(), Span { start: 99, end: 99 });
            members.insert(format!("k{}", size - 1), Span { start: 98, end: 98 });
            let got: Vec<_> = members
                .iter()
                .map(|(k, s)| (k.to_owned(), s.start))
                .collect();
            assert_eq!(got.len(), size, "{size}");
            assert_eq!(got[1], ("k1".to_owned(), 99));
            assert_eq!(got[size - 1], (format!("k{}", size - 1), 98));
            assert!(members.contains("k0") && !members.contains("k"));
        }
    }
}

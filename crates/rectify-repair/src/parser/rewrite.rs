//! The restructuring repairs a [`TextSink`] does by editing the end of what it wrote: an
//! object closed too early opened again, an array continued in key position, and the value
//! of a repeated key moved to where the key first appeared (what a `serde_json::Map` does
//! when a key is inserted again).

use super::sink::Sink;
use super::text::{TextObj, TextSink, WrittenKey, hash, write_escaped};

/// Whether a key is among the keys of an object.
pub(super) enum Found {
    Absent,
    /// The index of the key in the object.
    At(usize),
    /// Another key has the same hash: the text path gives up.
    Collision,
}

impl TextSink {
    /// Opens the last top-level value again when it is an object: its closing brace goes.
    pub(super) fn reopen_last(&mut self) -> Option<TextObj> {
        let start = *self.tops.last()?;
        let text = self.out.get(start..)?;
        if !text.starts_with('{') || !text.ends_with('}') {
            return None;
        }
        let empty = text == "{}";
        // Keys written before it are another object's (the last top-level one before a
        // tuple of one that was unwrapped into this object).
        let stale = self.keys.first().is_some_and(|k| k.text.0 < start);
        if self.keys.is_empty() != empty || stale {
            // Its keys are not at hand (an object unwrapped from a tuple of one).
            self.failed = true;
        }
        self.out.pop();
        if self.pretty() && !empty {
            self.out.pop();
        }
        self.set_open(1, !empty);
        Some(TextObj {
            start,
            base: 0,
            len: self.keys.len(),
            replacing: None,
        })
    }

    /// `{"a": [1], [2]}`: the array written since `mark` joins the last member's array.
    /// Anything else written since `mark` is dropped. True when the arrays were joined.
    pub(super) fn extend_last_array(&mut self, obj: &TextObj, read: bool, mark: usize) -> bool {
        let written = self.out.get(mark..).unwrap_or("");
        let more = written.trim_start_matches(',').trim_start();
        let before = self.out.get(..mark).unwrap_or("");
        let joins = read && obj.len > 0 && more.starts_with('[') && before.ends_with(']');
        let items = joins.then(|| {
            more.get(1..more.len().saturating_sub(1))
                .unwrap_or("")
                .to_owned()
        });
        self.out.truncate(mark);
        self.set_open(self.depth(), obj.len > 0);
        let Some(items) = items else {
            return false;
        };
        if !items.trim().is_empty() {
            self.out.pop();
            if !self.out.ends_with('[') {
                let kept = self.out.trim_end().len();
                self.out.truncate(kept);
                self.out.push(',');
            }
            self.out.push_str(&items);
            self.out.push(']');
        }
        let end = self.out.len();
        if let Some(k) = self.keys.get_mut(obj.base + obj.len - 1) {
            k.value.1 = end;
        }
        true
    }

    /// Where `key` (whose hash is `hash`) is among the keys of `obj`.
    pub(super) fn find_key(&self, obj: &TextObj, hash: u64, key: &str) -> Found {
        let seen = self
            .keys
            .get(obj.base..obj.base + obj.len)
            .unwrap_or_default();
        let Some(i) = seen.iter().position(|k| k.hash == hash) else {
            return Found::Absent;
        };
        let (start, end) = seen.get(i).map(|k| k.text).unwrap_or_default();
        let mut escaped = String::with_capacity(key.len() + 2);
        write_escaped(&mut escaped, key);
        if self.out.get(start..end) == Some(escaped.as_str()) {
            Found::At(i)
        } else {
            Found::Collision
        }
    }

    /// The `i`th key of `obj` is written again: its new value will replace the old one
    /// (see [`Self::replace_value`]).
    pub(super) fn repeat_key(&mut self, obj: &mut TextObj, i: usize) -> bool {
        obj.replacing = Some((i, self.out.len()));
        self.set_after_key();
        true
    }

    /// `{"a": 1, "b"}`: keys without values become `null` members at the end, where absent.
    pub(super) fn null_members(&mut self, obj: &mut TextObj, keys: Vec<String>) {
        for key in keys {
            match self.find_key(obj, hash(key.as_bytes()), &key) {
                Found::Absent if self.key(obj, &key) => {
                    self.null();
                    self.member(obj, key, ());
                }
                Found::At(_) => {}
                // Too many members to write this way, or another key with its hash.
                Found::Absent | Found::Collision => self.failed = true,
            }
        }
    }

    /// `{"a", "b"}`: the object `obj` (no member written) becomes `["a","b"]`.
    pub(super) fn object_to_strings(&mut self, obj: &TextObj, keys: Vec<String>) {
        self.out.truncate(obj.start);
        self.keys.truncate(obj.base);
        self.set_open(self.depth() - 1, false);
        let mut arr = self.begin_array_here();
        for key in keys {
            self.string(key);
            self.item(&mut arr, ());
        }
        self.end_array(arr, false);
    }

    /// `["key": 1]`: the string element written since `mark` (the array had `items`
    /// elements before it) is taken back, to be the key of an object.
    pub(super) fn take_written_string(&mut self, mark: usize, items: usize) -> Result<String, ()> {
        let written = self.out.get(mark..).unwrap_or("");
        let literal = written.trim_start_matches(',').trim_start();
        if !literal.starts_with('"') {
            return Err(());
        }
        let key = serde_json::from_str::<String>(literal).map_err(|_| ())?;
        self.out.truncate(mark);
        self.set_open(self.depth(), items > 0);
        Ok(key)
    }

    /// Moves the value written since `at` over the old value of the `i`th key of `obj`;
    /// the members after it shift.
    pub(super) fn replace_value(&mut self, obj: &TextObj, i: usize, at: usize) {
        let new = self.out.split_off(at);
        let Some(&WrittenKey {
            value: (start, end),
            ..
        }) = self.keys.get(obj.base + i)
        else {
            self.failed = true;
            return;
        };
        let moved = self.out.len() - end;
        if moved > self.move_budget {
            self.failed = true;
            return;
        }
        self.move_budget -= moved;
        self.out.replace_range(start..end, &new);
        let shift = |p: usize| p - (end - start) + new.len();
        let first = obj.base + i;
        for (j, k) in self.keys.iter_mut().enumerate().skip(first) {
            if j == first {
                k.value.1 = start + new.len();
            } else if j < obj.base + obj.len {
                k.text = (shift(k.text.0), shift(k.text.1));
                k.value = (shift(k.value.0), shift(k.value.1));
            }
        }
    }
}

//! Where the parser puts what it reads: a [`ValueSink`] builds a `serde_json::Value`, a
//! [`TextSink`](super::text::TextSink) writes compact JSON text as it goes.
//!
//! The parser calls the sink in source order. The repairs whose effect is not local to one
//! value (a duplicate key, a set-like object, members merged after an early `}`,
//! `["key": v]`, an array continued where a key should be) restructure what was read: the
//! value sink changes the value, the text sink edits the end of the text it wrote (see
//! `super::rewrite`). What the text sink cannot write makes the parser stop with
//! [`super::Parser::bail`] or sets [`super::TextSink::failed`]; the caller then repairs the
//! text again with the value sink.

use serde_json::map::Entry;

use super::Seg;
use serde_json::{Map, Number, Value};

/// Receives the values the parser reads.
pub(crate) trait Sink {
    /// A finished value.
    type Val;
    /// An object being filled.
    type Obj;
    /// An array being filled.
    type Arr;
    /// True when the sink writes text as it goes and cannot restructure a value.
    const STREAMING: bool;

    fn null(&mut self) -> Self::Val;
    fn boolean(&mut self, b: bool) -> Self::Val;
    /// A number from its text, `None` (and nothing written) when it is not JSON number text.
    fn number(&mut self, text: &str) -> Option<Self::Val>;
    /// A string from its decoded content.
    fn string(&mut self, s: String) -> Self::Val;
    /// An empty buffer to decode a string into.
    fn scratch(&mut self) -> String;
    /// A key buffer the parser no longer needs.
    fn recycle(&mut self, s: String);
    fn begin_object(&mut self) -> Self::Obj;
    /// The key of the next member, before its value is read; false when a streaming sink
    /// cannot go on (the key repeats).
    fn key(&mut self, obj: &mut Self::Obj, key: &str) -> bool;
    /// The member's value; true when the key was already present (the value replaced).
    fn member(&mut self, obj: &mut Self::Obj, key: String, val: Self::Val) -> bool;
    fn end_object(&mut self, obj: Self::Obj) -> Self::Val;
    fn object_len(obj: &Self::Obj) -> usize;
    fn begin_array(&mut self) -> Self::Arr;
    fn item(&mut self, arr: &mut Self::Arr, val: Self::Val);
    fn array_len(arr: &Self::Arr) -> usize;
    /// Closes an array; `unwrap` gives its only element instead (a tuple of one).
    fn end_array(&mut self, arr: Self::Arr, unwrap: bool) -> Self::Val;
    /// Position in the output, for [`Sink::rendered`].
    fn mark(&self) -> usize;
    /// Compact JSON text of `val`, written since `mark`.
    fn rendered(&mut self, val: &Self::Val, mark: usize) -> String;
    /// Replaces the value `val`, written since `mark`, with the string `s`.
    fn replace_with_string(&mut self, val: Self::Val, mark: usize, s: String) -> Self::Val;

    // Restructuring. A streaming sink edits what it wrote; see `super::rewrite`.

    /// Keys without values (`{"a", "b"}`) added as `null` members where absent.
    fn add_nulls(&mut self, obj: &mut Self::Obj, keys: Vec<String>);
    /// A set-like object (`obj`, which has no member): its keys as an array of strings.
    fn strings(&mut self, obj: Self::Obj, keys: Vec<String>) -> Self::Val;
    /// Appends `val` (read since `mark`) to the last member's value when both are arrays;
    /// true when it did. Otherwise `val` is dropped.
    fn continue_array(&mut self, obj: &mut Self::Obj, val: Option<Self::Val>, mark: usize) -> bool;
    /// The string content of `val` (read since `mark` as an element of an array with
    /// `items` elements so far), taken back; or `val` when it is not a string.
    fn take_string(
        &mut self,
        val: Self::Val,
        mark: usize,
        items: usize,
    ) -> Result<String, Self::Val>;
    /// The object `val` (the last value read) opened again, to add members to it; `None`
    /// when `val` is not an object.
    fn reopen(&mut self, val: &mut Self::Val) -> Option<Self::Obj>;
    /// Closes an object opened with [`Sink::reopen`], back into `val`.
    fn close_reopened(&mut self, val: &mut Self::Val, obj: Self::Obj);

    /// Empty buffers for the parser's bracket stack and path, perhaps with capacity left
    /// from an earlier parse.
    fn take_buffers(&mut self) -> (Vec<u8>, Vec<Seg>) {
        (Vec::new(), Vec::new())
    }

    /// The parser's buffers back, for the next parse.
    fn give_buffers(&mut self, _stack: Vec<u8>, _path: Vec<Seg>) {}
}

/// Builds `serde_json::Value`s.
pub(crate) struct ValueSink;

impl Sink for ValueSink {
    type Val = Value;
    type Obj = Map<String, Value>;
    type Arr = Vec<Value>;
    const STREAMING: bool = false;

    fn null(&mut self) -> Value {
        Value::Null
    }

    fn boolean(&mut self, b: bool) -> Value {
        Value::Bool(b)
    }

    fn number(&mut self, text: &str) -> Option<Value> {
        serde_json::from_str::<Number>(text).ok().map(Value::Number)
    }

    fn string(&mut self, s: String) -> Value {
        Value::String(s)
    }

    fn scratch(&mut self) -> String {
        String::new()
    }

    fn recycle(&mut self, _: String) {}

    fn begin_object(&mut self) -> Self::Obj {
        Map::new()
    }

    fn key(&mut self, _: &mut Self::Obj, _: &str) -> bool {
        true
    }

    fn member(&mut self, obj: &mut Self::Obj, key: String, val: Value) -> bool {
        match obj.entry(key) {
            Entry::Occupied(mut slot) => {
                slot.insert(val);
                true
            }
            Entry::Vacant(slot) => {
                slot.insert(val);
                false
            }
        }
    }

    fn end_object(&mut self, obj: Self::Obj) -> Value {
        Value::Object(obj)
    }

    fn object_len(obj: &Self::Obj) -> usize {
        obj.len()
    }

    fn begin_array(&mut self) -> Self::Arr {
        Vec::new()
    }

    fn item(&mut self, arr: &mut Self::Arr, val: Value) {
        arr.push(val);
    }

    fn array_len(arr: &Self::Arr) -> usize {
        arr.len()
    }

    fn end_array(&mut self, mut arr: Self::Arr, unwrap: bool) -> Value {
        if unwrap {
            return arr.pop().unwrap_or(Value::Null);
        }
        Value::Array(arr)
    }

    fn mark(&self) -> usize {
        0
    }

    fn replace_with_string(&mut self, _: Value, _: usize, s: String) -> Value {
        Value::String(s)
    }

    fn rendered(&mut self, val: &Value, _: usize) -> String {
        val.to_string()
    }

    fn add_nulls(&mut self, obj: &mut Self::Obj, keys: Vec<String>) {
        for key in keys {
            obj.entry(key).or_insert(Value::Null);
        }
    }

    fn strings(&mut self, _: Self::Obj, keys: Vec<String>) -> Value {
        Value::Array(keys.into_iter().map(Value::String).collect())
    }

    fn continue_array(&mut self, obj: &mut Self::Obj, val: Option<Value>, _: usize) -> bool {
        match (obj.values_mut().next_back(), val) {
            (Some(Value::Array(items)), Some(Value::Array(more))) => {
                items.extend(more);
                true
            }
            _ => false,
        }
    }

    fn take_string(&mut self, val: Value, _: usize, _: usize) -> Result<String, Value> {
        match val {
            Value::String(s) => Ok(s),
            v => Err(v),
        }
    }

    fn reopen(&mut self, val: &mut Value) -> Option<Self::Obj> {
        match val {
            Value::Object(map) => Some(std::mem::take(map)),
            _ => None,
        }
    }

    fn close_reopened(&mut self, val: &mut Value, obj: Self::Obj) {
        *val = Value::Object(obj);
    }
}

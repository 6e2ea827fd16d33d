//! A list cannot go round again: once the item being written equals an earlier item of its
//! array, the tokens that would end it and start another are forbidden, so the model can only
//! close the list (or write a different item).
//!
//! A small model asked for a list tends to repeat its items until the token limit
//! (`"tags": ["databases", "reliability", "databases", …]`). The grammar cannot say "no
//! repeats" (JSON Schema's `uniqueItems` is not a context-free property), so this guard
//! watches the answer as it is written: for each earlier item that the current item is a
//! prefix of, a token whose text is the rest of that item followed by `,` would complete the
//! repeat and go on, and is forbidden. A request that writes an item twice still gets it only
//! once; the post-decoding drop of repeats did the same.

/// Tokens whose text holds a comma, with that text (the only tokens that can go on to a next
/// item).
pub(crate) struct CommaTokens(Vec<(u32, Vec<u8>)>);

impl CommaTokens {
    /// The comma tokens of a vocabulary given as (id, text) pairs.
    pub fn new(vocabulary: impl Iterator<Item = (u32, Vec<u8>)>) -> Self {
        Self(
            vocabulary
                .filter(|(_, text)| text.contains(&b','))
                .collect(),
        )
    }
}

/// Where the answer is: its open containers and each open array's items.
#[derive(Debug, Default)]
pub(crate) struct RepeatGuard {
    bytes: Vec<u8>,
    stack: Vec<Frame>,
    in_string: bool,
    escape: bool,
}

#[derive(Debug)]
struct Frame {
    array: bool,
    /// The items written so far (arrays only).
    items: Vec<Vec<u8>>,
    /// Byte offset where the current item starts.
    start: usize,
}

impl RepeatGuard {
    /// Takes the text of an accepted token.
    pub fn push(&mut self, piece: &[u8]) {
        for &byte in piece {
            self.feed(byte);
        }
    }

    fn feed(&mut self, byte: u8) {
        let at = self.bytes.len();
        self.bytes.push(byte);
        if self.in_string {
            let closing = !self.escape && byte == b'"';
            self.escape = !self.escape && byte == b'\\';
            self.in_string = !closing;
            return;
        }
        match byte {
            b'"' => self.in_string = true,
            b'[' | b'{' => self.stack.push(Frame {
                array: byte == b'[',
                items: Vec::new(),
                start: at + 1,
            }),
            b']' | b'}' => {
                self.stack.pop();
            }
            b',' => {
                if let Some(frame) = self.stack.last_mut().filter(|f| f.array) {
                    let item = self.bytes[frame.start..at].to_vec();
                    frame.items.push(item);
                    frame.start = at + 1;
                }
            }
            _ => {}
        }
    }

    /// The tokens that would complete a repeat of an earlier item of the innermost array and
    /// go on to another item.
    pub fn forbidden(&self, commas: &CommaTokens) -> Vec<u32> {
        let Some(frame) = self.stack.last().filter(|f| f.array && !f.items.is_empty()) else {
            return Vec::new();
        };
        let current = &self.bytes[frame.start..];
        let rests: Vec<&[u8]> = frame
            .items
            .iter()
            .filter_map(|item| item.strip_prefix(current))
            .collect();
        if rests.is_empty() {
            return Vec::new();
        }
        commas
            .0
            .iter()
            .filter(|(_, text)| {
                rests.iter().any(|rest| {
                    text.strip_prefix(*rest)
                        .is_some_and(|after| after.first() == Some(&b','))
                })
            })
            .map(|(id, _)| *id)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commas() -> CommaTokens {
        let texts: [&[u8]; 6] = [b",", b"\",", b"\",\"", b"s\",", b"},{", b"ab"];
        CommaTokens::new(
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| (u32::try_from(i).unwrap_or(0), t.to_vec())),
        )
    }

    fn guard(text: &str) -> RepeatGuard {
        let mut guard = RepeatGuard::default();
        guard.push(text.as_bytes());
        guard
    }

    #[test]
    fn a_repeated_string_item_cannot_go_on_to_another_item() {
        // Inside the repeated item: its closing quote plus a comma is forbidden.
        assert_eq!(guard(r#"{"t":["db","x","db"#).forbidden(&commas()), [1, 2]);
        // One letter short: the token that writes the rest and the comma is forbidden too.
        assert_eq!(guard(r#"{"t":["dbs","db"#).forbidden(&commas()), [3]);
        // The item is complete: a lone comma is forbidden.
        assert_eq!(guard(r#"{"t":["db","db""#).forbidden(&commas()), [0]);
    }

    #[test]
    fn new_items_and_other_places_are_free() {
        let commas = commas();
        assert!(guard(r#"{"t":["db","x"#).forbidden(&commas).is_empty());
        assert!(guard(r#"{"t":["db""#).forbidden(&commas).is_empty());
        assert!(guard(r#"{"a":"db","b":"db"#).forbidden(&commas).is_empty());
        // A comma inside a string item does not end it.
        assert!(guard(r#"{"t":["a, b","a"#).forbidden(&commas).is_empty());
        assert_eq!(guard(r#"{"t":["a, b","a, b""#).forbidden(&commas), [0]);
    }

    #[test]
    fn object_items_and_nested_lists_are_watched_at_their_own_level() {
        let commas = commas();
        assert_eq!(guard(r#"[{"n":1},{"n":1}"#).forbidden(&commas), [0]);
        assert_eq!(guard(r#"[{"n":[1,2]},{"n":[1,2]}"#).forbidden(&commas), [0]);
        assert!(
            guard(r#"[{"n":[1,2]},{"n":[1,"#)
                .forbidden(&commas)
                .is_empty()
        );
        assert_eq!(guard(r#"[{"n":[1,2,1"#).forbidden(&commas), [0]);
    }
}

//! Conversion of saphyr's character positions into byte offsets.
//!
//! saphyr's markers count characters, not bytes. ASCII text needs no conversion; other text
//! keeps the byte offset of every 64th character, so a lookup walks at most 63 characters
//! whatever the order of the lookups, and the table costs one `usize` per 64 characters.
//! Lookups come almost in source order, so the last answer is kept and a lookup shortly after
//! it walks only the distance between the two.

use std::cell::Cell;

const STEP: usize = 64;

/// Maps character indexes of a text fragment to byte offsets in the whole source.
pub(crate) struct Offsets<'a> {
    text: &'a str,
    base: usize,
    checkpoints: Option<Vec<usize>>,
    /// The last lookup: character index and byte offset in the fragment.
    last: Cell<(usize, usize)>,
}

impl<'a> Offsets<'a> {
    /// A converter for `text`, which starts at byte `base` of the source.
    pub(crate) fn new(text: &'a str, base: usize) -> Self {
        let checkpoints = (!text.is_ascii()).then(|| {
            text.char_indices()
                .step_by(STEP)
                .map(|(at, _)| at)
                .collect()
        });
        Offsets {
            text,
            base,
            checkpoints,
            last: Cell::new((0, 0)),
        }
    }

    /// The byte offset in the source of character `index` of the fragment (the end of the
    /// fragment when `index` is past it).
    pub(crate) fn byte(&self, index: usize) -> usize {
        let Some(checkpoints) = &self.checkpoints else {
            return self.base + index.min(self.text.len());
        };
        let (last_index, last_byte) = self.last.get();
        let (from, skip) = if index >= last_index && index - last_index < STEP {
            (last_byte, index - last_index)
        } else if let Some(&from) = checkpoints.get(index / STEP) {
            (from, index % STEP)
        } else {
            return self.base + self.text.len();
        };
        let within = self
            .text
            .get(from..)
            .and_then(|rest| rest.char_indices().nth(skip))
            .map_or(self.text.len(), |(at, _)| from + at);
        self.last.set((index, within));
        self.base + within
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_is_identity_plus_base() {
        let o = Offsets::new("abc", 10);
        assert_eq!((o.byte(0), o.byte(3), o.byte(99)), (10, 13, 13));
    }

    #[test]
    fn multibyte_characters_in_any_order() {
        let text = "é".repeat(200) + "x";
        let o = Offsets::new(&text, 5);
        assert_eq!(o.byte(200), 5 + 400);
        assert_eq!(o.byte(1), 5 + 2);
        assert_eq!(o.byte(64), 5 + 128);
        assert_eq!(o.byte(130), 5 + 260);
        assert_eq!(o.byte(201), 5 + 401);
        assert_eq!(o.byte(10_000), 5 + 401);
    }
}

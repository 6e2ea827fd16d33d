//! Text out of bytes that arrive in pieces (a pipe's reads, a model's byte-level tokens).

/// Turns bytes that arrive in pieces into text as they come. A character split between two
/// pieces is held until its last byte arrives (at most 3 bytes are held); bytes that can never
/// be UTF-8 become U+FFFD. All the pieces of text, concatenated, are exactly
/// [`String::from_utf8_lossy`] of all the bytes, however they were cut.
///
/// ```
/// use rectify_provider::Utf8Joiner;
///
/// let mut joiner = Utf8Joiner::default();
/// let euro = "€".as_bytes();
/// assert_eq!(joiner.push(&[b'1', euro[0]]), "1");
/// assert_eq!(joiner.push(&euro[1..]), "€");
/// assert_eq!(joiner.push(&[0xff, euro[0]]), "\u{fffd}");
/// assert_eq!(joiner.finish(), "\u{fffd}");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Utf8Joiner {
    /// The start of a character whose other bytes have not arrived yet.
    pending: Vec<u8>,
}

impl Utf8Joiner {
    /// The text `bytes` complete: the characters finished so far, not yet given out.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut text = String::with_capacity(self.pending.len());
        let mut rest = self.pending.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    rest = &[];
                    break;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    let Some(invalid) = error.error_len() else {
                        // A character cut short: its other bytes may come with the next piece.
                        rest = after;
                        break;
                    };
                    text.push(char::REPLACEMENT_CHARACTER);
                    rest = after.get(invalid..).unwrap_or_default();
                }
            }
        }
        self.pending = rest.to_vec();
        text
    }

    /// The end of the text once no more bytes come: a character cut short becomes U+FFFD.
    pub fn finish(&mut self) -> String {
        let cut = !self.pending.is_empty();
        self.pending.clear();
        if cut {
            char::REPLACEMENT_CHARACTER.to_string()
        } else {
            String::new()
        }
    }

    /// How many bytes are held (the start of a character cut short).
    pub fn held(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The pieces of `bytes` cut at `cuts`, joined.
    fn joined(bytes: &[u8], cuts: &[usize]) -> (String, usize) {
        let mut joiner = Utf8Joiner::default();
        let mut text = String::new();
        let mut most_held = 0;
        let mut from = 0;
        for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
            let to = cut.clamp(from, bytes.len());
            text.push_str(&joiner.push(&bytes[from..to]));
            most_held = most_held.max(joiner.held());
            from = to;
        }
        text.push_str(&joiner.finish());
        (text, most_held)
    }

    /// Bytes that are mostly UTF-8 (multi-byte characters, cut or not) with some stray bytes.
    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            "[a-z€😀é\u{0800}]{0,6}".prop_map(String::into_bytes),
            proptest::collection::vec(any::<u8>(), 0..4),
            "[€😀]".prop_map(|c| c.as_bytes()[..2].to_vec()),
        ];
        proptest::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        /// However the bytes are cut, the text is `from_utf8_lossy` of them all, and no more
        /// than a character's start is ever held.
        #[test]
        fn any_cutting_gives_the_lossy_text_of_the_whole(
            bytes in bytes(),
            mut cuts in proptest::collection::vec(0usize..64, 0..10),
        ) {
            cuts.sort_unstable();
            let (text, most_held) = joined(&bytes, &cuts);
            prop_assert_eq!(text, String::from_utf8_lossy(&bytes).into_owned());
            prop_assert!(most_held <= 3);
        }
    }

    #[test]
    fn one_byte_at_a_time_joins_every_character() {
        let text = "a€😀é\u{0800}z";
        let cuts: Vec<usize> = (1..text.len()).collect();
        assert_eq!(joined(text.as_bytes(), &cuts).0, text);
    }

    #[test]
    fn a_character_cut_at_the_end_is_one_replacement() {
        let mut joiner = Utf8Joiner::default();
        assert_eq!(joiner.push(&"😀".as_bytes()[..3]), "");
        assert_eq!(joiner.held(), 3);
        assert_eq!(joiner.finish(), "\u{fffd}");
        assert_eq!(joiner.finish(), "");
    }
}

//! Finding the first byte of a small set, eight bytes at a time.
//!
//! The string reader and the JSON writer spend most of their time looking for the next byte
//! that is not plain content (a quote, a backslash, a control character). A table lookup per
//! byte costs a load and a branch each; here a word of eight bytes is tested at once with
//! the "has a zero byte" identity (`(y - 0x01…) & !y & 0x80…` is non-zero exactly when `y`
//! has a zero byte, and its lowest set bit marks the first one), so plain text costs a few
//! arithmetic operations per eight bytes. Measured on the broken 10 MB document of the repair
//! peers benchmark (docs/BENCHMARKS.md).

/// `0x01` in every byte.
const LO: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte.
const HI: u64 = 0x8080_8080_8080_8080;

/// A set of bytes to look for: every byte below `below`, and up to a few more.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ByteSet<const N: usize> {
    below: u8,
    bytes: [u8; N],
    table: [bool; 256],
}

impl<const N: usize> ByteSet<N> {
    /// The bytes below `below` (at most `0x80`) and `bytes`.
    pub(crate) const fn new(below: u8, bytes: [u8; N]) -> Self {
        let mut table = [false; 256];
        let mut i = 0;
        while i < below as usize {
            table[i] = true;
            i += 1;
        }
        let mut j = 0;
        while j < N {
            table[bytes[j] as usize] = true;
            j += 1;
        }
        Self {
            below,
            bytes,
            table,
        }
    }

    /// Whether `b` is in the set.
    pub(crate) fn contains(&self, b: u8) -> bool {
        self.table[usize::from(b)]
    }

    /// The bits `0x80` of the bytes of `word` that are in the set, exact up to the lowest
    /// (a borrow may set bits above it).
    fn mask(&self, word: u64) -> u64 {
        let mut found = word.wrapping_sub(LO * u64::from(self.below)) & !word & HI;
        for &b in &self.bytes {
            let y = word ^ (LO * u64::from(b));
            found |= y.wrapping_sub(LO) & !y & HI;
        }
        found
    }

    /// The index of the first byte of `bytes` in the set, or `bytes.len()`.
    pub(crate) fn position(&self, bytes: &[u8]) -> usize {
        let mut chunks = bytes.chunks_exact(8);
        let mut at = 0;
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            let found = self.mask(u64::from_le_bytes(word));
            if found != 0 {
                return at + (found.trailing_zeros() / 8) as usize;
            }
            at += 8;
        }
        let rest = chunks.remainder();
        at + rest
            .iter()
            .position(|&b| self.contains(b))
            .unwrap_or(rest.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SET: ByteSet<4> = ByteSet::new(0x20, [b'"', b'\\', 0xC2, 0xE2]);

    #[test]
    fn finds_the_first_byte_of_the_set() {
        assert_eq!(SET.position(b"plain text, no stop here"), 24);
        assert_eq!(SET.position(b"abcdefghij\"k"), 10);
        assert_eq!(SET.position(b"a\\"), 1);
        assert_eq!(SET.position(b"abcdefgh\x01"), 8);
        assert_eq!(SET.position("r\u{e9}sum\u{e9} \u{a0}".as_bytes()), 9);
        assert_eq!(SET.position(b""), 0);
        // A byte that matches next to one that borrows: the lowest match is exact.
        assert_eq!(SET.position(b"\x00\x01abcdefg"), 0);
        assert_eq!(SET.position(b"ab\xE2\x80\x9Cdefgh"), 2);
    }

    proptest! {
        #[test]
        fn agrees_with_a_byte_by_byte_search(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let expected = bytes.iter().position(|&b| SET.contains(b)).unwrap_or(bytes.len());
            prop_assert_eq!(SET.position(&bytes), expected);
        }
    }
}

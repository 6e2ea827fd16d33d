//! Bytes to text across chunk boundaries: a character split between two chunks is held back
//! until its end arrives.

use crate::StreamError;

/// The incomplete character left at the end of the last chunk (at most 3 bytes).
#[derive(Debug, Default, Clone)]
pub(crate) struct Utf8Tail {
    held: Vec<u8>,
}

impl Utf8Tail {
    /// Appends the text of `held + chunk` to `out`, keeping an incomplete last character.
    /// `offset` is the stream offset of the first held byte, for the error.
    pub(crate) fn decode(
        &mut self,
        chunk: &[u8],
        offset: usize,
        out: &mut String,
    ) -> Result<(), StreamError> {
        let joined;
        let bytes = if self.held.is_empty() {
            chunk
        } else {
            self.held.extend_from_slice(chunk);
            joined = std::mem::take(&mut self.held);
            &joined[..]
        };
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                out.push_str(text);
                Ok(())
            }
            Err(e) if e.error_len().is_none() => {
                let (good, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                self.held = rest.to_vec();
                Ok(())
            }
            Err(e) => Err(StreamError::InvalidUtf8 {
                offset: offset + e.valid_up_to(),
            }),
        }
    }

    /// Fails when a character was cut off by the end of the stream.
    pub(crate) fn finish(&self, offset: usize) -> Result<(), StreamError> {
        if self.held.is_empty() {
            Ok(())
        } else {
            Err(StreamError::InvalidUtf8 { offset })
        }
    }

    /// How many bytes are held back.
    pub(crate) fn len(&self) -> usize {
        self.held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_across_chunks_is_joined() {
        let bytes = "é€😀".as_bytes();
        let mut out = String::new();
        let mut tail = Utf8Tail::default();
        for (i, b) in bytes.iter().enumerate() {
            tail.decode(std::slice::from_ref(b), i, &mut out).unwrap();
        }
        assert_eq!(out, "é€😀");
        assert!(tail.finish(bytes.len()).is_ok());
    }

    #[test]
    fn bad_bytes_and_a_cut_character_are_errors() {
        let mut out = String::new();
        let mut tail = Utf8Tail::default();
        assert_eq!(
            tail.decode(b"ab\xff", 10, &mut out),
            Err(StreamError::InvalidUtf8 { offset: 12 })
        );
        let mut tail = Utf8Tail::default();
        tail.decode(&[0xe2, 0x82], 0, &mut out).unwrap();
        assert_eq!(tail.finish(2), Err(StreamError::InvalidUtf8 { offset: 2 }));
    }
}

//! What can stop a stream from being read at all.

/// A failure of the stream itself (not of the answer: a bad answer is a verdict).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// The bytes are not UTF-8 (an incomplete character is kept until the next chunk; this
    /// is a byte that can never start or continue one, or a character cut off at the end).
    #[error("the stream is not UTF-8 at byte {offset}")]
    InvalidUtf8 {
        /// Offset of the first bad byte in the whole stream.
        offset: usize,
    },
    /// More text arrived than the reader's limit allows.
    #[error("the stream is larger than {limit} bytes")]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
}

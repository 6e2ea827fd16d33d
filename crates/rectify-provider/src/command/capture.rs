//! Bounded capture of a child's output streams.

use std::ops::ControlFlow;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncRead, AsyncReadExt};

/// The last bytes written to a stream, at most `keep` of them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tail {
    inner: Arc<Mutex<Vec<u8>>>,
    keep: usize,
}

impl Tail {
    pub(crate) fn new(keep: usize) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Vec::new())),
            keep,
        }
    }

    fn push(&self, bytes: &[u8]) {
        let mut buffer = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        buffer.extend_from_slice(bytes);
        // Trim lazily (at twice the size) so trimming stays amortised O(1) per byte.
        if buffer.len() > self.keep.saturating_mul(2).max(1) {
            let cut = buffer.len() - self.keep;
            buffer.drain(..cut);
        }
    }

    /// The kept text (lossy UTF-8), at most `keep` bytes, trimmed.
    pub(crate) fn text(&self) -> String {
        let buffer = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let start = buffer.len().saturating_sub(self.keep);
        let text = String::from_utf8_lossy(buffer.get(start..).unwrap_or_default()).into_owned();
        text.trim().to_owned()
    }
}

/// Reads `stream` to its end, keeping only its tail.
pub(crate) async fn read_tail(mut stream: impl AsyncRead + Unpin, tail: Tail) {
    let mut chunk = vec![0u8; 64 * 1024];
    while let Ok(read) = stream.read(&mut chunk).await {
        if read == 0 {
            break;
        }
        tail.push(chunk.get(..read).unwrap_or_default());
    }
}

/// Where a command's stdout goes, piece by piece as it is read.
pub(crate) trait Stdout: Send {
    /// The next bytes. [`ControlFlow::Break`] stops the run: the command's process group is
    /// stopped as at a timeout.
    fn bytes(&mut self, bytes: &[u8]) -> ControlFlow<()>;
}

/// stdout kept whole, to be read once the program is done.
#[derive(Debug, Default)]
pub(crate) struct Whole(pub(crate) Vec<u8>);

impl Stdout for Whole {
    fn bytes(&mut self, bytes: &[u8]) -> ControlFlow<()> {
        self.0.extend_from_slice(bytes);
        ControlFlow::Continue(())
    }
}

/// How reading a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    /// The stream ended (or broke).
    End,
    /// It passed the limit; what came past it was not handed on.
    TooLarge,
    /// The receiver asked to stop.
    Stopped,
}

/// Reads `stream` to its end into `into`, handing each piece on as it is read; stops as soon
/// as it passes `limit` bytes or `into` asks to stop.
pub(crate) async fn read_into(
    mut stream: impl AsyncRead + Unpin,
    limit: usize,
    into: &mut dyn Stdout,
) -> Read {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut total = 0usize;
    while let Ok(read) = stream.read(&mut chunk).await {
        if read == 0 {
            break;
        }
        total += read;
        if total > limit {
            return Read::TooLarge;
        }
        if into.bytes(chunk.get(..read).unwrap_or_default()).is_break() {
            return Read::Stopped;
        }
    }
    Read::End
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tail_keeps_the_end_only() {
        let data: Vec<u8> = (0..100_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let tail = Tail::new(10);
        read_tail(data.as_slice(), tail.clone()).await;
        let expected = String::from_utf8(data[data.len() - 10..].to_vec()).unwrap();
        assert_eq!(tail.text(), expected);
    }

    #[tokio::test]
    async fn a_read_stops_past_the_limit() {
        let mut out = Whole::default();
        assert_eq!(read_into(&b"abc"[..], 3, &mut out).await, Read::End);
        assert_eq!(out.0, b"abc");
        let mut out = Whole::default();
        assert_eq!(read_into(&b"abcd"[..], 3, &mut out).await, Read::TooLarge);
        assert!(out.0.is_empty());
    }

    /// Stops after the first piece it is handed.
    struct StopAtOnce(usize);

    impl Stdout for StopAtOnce {
        fn bytes(&mut self, bytes: &[u8]) -> ControlFlow<()> {
            self.0 += bytes.len();
            ControlFlow::Break(())
        }
    }

    #[tokio::test]
    async fn a_read_stops_when_asked() {
        let mut out = StopAtOnce(0);
        assert_eq!(read_into(&b"abc"[..], 9, &mut out).await, Read::Stopped);
        assert_eq!(out.0, 3);
    }
}

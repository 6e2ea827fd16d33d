//! Bounded capture of a child's output streams.

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

/// What a stream gave so far, up to a limit, shared with its reader (kept when the reading is
/// abandoned, for instance because a process the agent left holds the pipe open).
#[derive(Debug, Clone, Default)]
pub(crate) struct Limited {
    inner: Arc<Mutex<(Vec<u8>, bool)>>,
}

impl Limited {
    /// The bytes read so far; `Err(())` when the stream passed the limit.
    pub(crate) fn take(&self) -> Result<Vec<u8>, ()> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.1 {
            return Err(());
        }
        Ok(std::mem::take(&mut inner.0))
    }
}

/// Reads `stream` to its end into `into`; stops (marking it) as soon as it passes `limit`
/// bytes. `Err(())` then.
pub(crate) async fn read_limited_into(
    mut stream: impl AsyncRead + Unpin,
    limit: usize,
    into: &Limited,
) -> Result<(), ()> {
    let mut chunk = vec![0u8; 64 * 1024];
    while let Ok(read) = stream.read(&mut chunk).await {
        if read == 0 {
            break;
        }
        let mut inner = into.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.0.len() + read > limit {
            inner.1 = true;
            return Err(());
        }
        inner
            .0
            .extend_from_slice(chunk.get(..read).unwrap_or_default());
    }
    Ok(())
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
    async fn limited_read_stops_past_the_limit() {
        let out = Limited::default();
        assert_eq!(read_limited_into(&b"abc"[..], 3, &out).await, Ok(()));
        assert_eq!(out.take(), Ok(b"abc".to_vec()));
        let out = Limited::default();
        assert_eq!(read_limited_into(&b"abcd"[..], 3, &out).await, Err(()));
        assert_eq!(out.take(), Err(()));
    }
}

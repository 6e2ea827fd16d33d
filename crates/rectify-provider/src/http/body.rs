//! Reading response bodies without unbounded memory.

use crate::ErrorKind;

/// Reads the whole body, failing with [`ErrorKind::TooLarge`] past `limit` bytes and with
/// [`ErrorKind::Truncated`] when the connection breaks mid-body.
pub(crate) async fn read_bounded(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, ErrorKind> {
    if response
        .content_length()
        .is_some_and(|len| len > limit as u64)
    {
        return Err(ErrorKind::TooLarge { limit });
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > limit {
                    return Err(ErrorKind::TooLarge { limit });
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(e) => {
                return Err(ErrorKind::Truncated {
                    message: super::error_chain(&e),
                });
            }
        }
    }
}

/// Reads at most `limit` bytes of a body for an error message, ignoring read failures.
pub(crate) async fn read_lossy(mut response: reqwest::Response, limit: usize) -> String {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) | Err(_) => break,
        }
    }
    body.truncate(limit);
    String::from_utf8_lossy(&body).into_owned()
}

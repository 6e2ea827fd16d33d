//! Reading response bodies without unbounded memory.

use crate::ErrorKind;

/// Cuts `text` to at most `max` bytes on a character boundary, marking the cut.
pub(crate) fn truncate_text(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", text.get(..end).unwrap_or(""))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate_text("héllo", 2), "h…");
        assert_eq!(truncate_text("abc", 3), "abc");
    }
}

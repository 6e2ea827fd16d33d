//! Server-sent events (`text/event-stream`) read from body chunks: lines, `data:` fields
//! joined, an event dispatched at each blank line. A dozen lines of the WHATWG rules do not
//! warrant a dependency (`eventsource-stream` would also need reqwest's `stream` feature and
//! `futures`), and the parser must bound its memory, which it does here.

use crate::ErrorKind;

/// One event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SseEvent {
    /// The `event:` name (empty when none was given).
    pub(crate) event: String,
    /// The `data:` lines, joined with `\n`.
    pub(crate) data: String,
}

/// The incremental parser.
#[derive(Debug)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    event: SseEvent,
    has_data: bool,
    limit: usize,
}

impl SseParser {
    /// A parser that fails when one event grows past `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            line: Vec::new(),
            event: SseEvent::default(),
            has_data: false,
            limit,
        }
    }

    /// Reads `bytes`, appending every event they complete to `out`.
    pub(crate) fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), ErrorKind> {
        let mut rest = bytes;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&rest[..nl]);
            rest = &rest[nl + 1..];
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, out)?;
        }
        self.line.extend_from_slice(rest);
        if self.line.len() + self.event.data.len() > self.limit {
            return Err(ErrorKind::TooLarge { limit: self.limit });
        }
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), ErrorKind> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            if self.has_data {
                out.push(std::mem::take(&mut self.event));
            }
            self.event = SseEvent::default();
            self.has_data = false;
            return Ok(());
        }
        let line = std::str::from_utf8(line).map_err(|_| ErrorKind::InvalidResponse {
            message: "the event stream is not UTF-8".into(),
        })?;
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => {
                if self.has_data {
                    self.event.data.push('\n');
                }
                self.event.data.push_str(value);
                self.has_data = true;
            }
            "event" => value.clone_into(&mut self.event.event),
            // Comments (`: keep-alive`), `id`, `retry` and unknown fields are ignored.
            _ => {}
        }
        if self.event.data.len() > self.limit {
            return Err(ErrorKind::TooLarge { limit: self.limit });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(chunks: &[&[u8]]) -> Result<Vec<SseEvent>, ErrorKind> {
        let mut parser = SseParser::new(64);
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, &mut out)?;
        }
        Ok(out)
    }

    #[test]
    fn events_are_read_across_any_split() {
        let wire = b"event: a\r\ndata: {\"x\":\ndata:1}\r\n\r\n: ping\n\ndata: [DONE]\n\n";
        let whole = parse(&[wire]).unwrap();
        assert_eq!(
            whole,
            vec![
                SseEvent {
                    event: "a".into(),
                    data: "{\"x\":\n1}".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "[DONE]".into()
                }
            ]
        );
        for cut in 0..wire.len() {
            assert_eq!(parse(&[&wire[..cut], &wire[cut..]]).unwrap(), whole);
        }
    }

    #[test]
    fn a_character_split_between_chunks_is_kept_and_bad_bytes_are_an_error() {
        let wire = "data: é€\n\n".as_bytes();
        let events = parse(&[&wire[..7], &wire[7..]]).unwrap();
        assert_eq!(events[0].data, "é€");
        assert!(matches!(
            parse(&[b"data: \xff\n\n"]),
            Err(ErrorKind::InvalidResponse { .. })
        ));
    }

    #[test]
    fn a_line_or_event_past_the_limit_is_too_large() {
        let long = [b'x'; 100];
        assert_eq!(parse(&[&long]), Err(ErrorKind::TooLarge { limit: 64 }));
        let many = b"data: 0123456789\n".repeat(10);
        assert_eq!(parse(&[&many]), Err(ErrorKind::TooLarge { limit: 64 }));
    }
}

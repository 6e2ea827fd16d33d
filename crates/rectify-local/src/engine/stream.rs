//! The answer handed on as it is decoded: the bytes of byte-level tokens joined into
//! characters, and the start of what may be a stop sequence held until the next token says
//! (the answer is cut before a stop sequence, so no part of one may be handed on).

use std::ops::ControlFlow;

use rectify_provider::Utf8Joiner;

/// Where the answer's text goes as it is decoded; [`ControlFlow::Break`] stops the decoding.
pub(crate) type OnText<'a> = &'a mut dyn FnMut(&str) -> ControlFlow<()>;

/// How much of the output has been handed on.
#[derive(Debug, Default)]
pub(super) struct TextOut {
    /// Bytes of the output given to `utf8`.
    given: usize,
    utf8: Utf8Joiner,
}

impl TextOut {
    /// Hands on what `output` adds that no stop sequence of `stops` can still take back.
    pub(super) fn step(
        &mut self,
        output: &[u8],
        stops: &[String],
        on_text: OnText<'_>,
    ) -> ControlFlow<()> {
        let safe = output.len() - held_for_stops(output, stops);
        self.hand(output, safe, on_text)
    }

    /// Hands on the rest of `output` (the answer is complete).
    pub(super) fn finish(&mut self, output: &[u8], on_text: OnText<'_>) {
        let _ = self.hand(output, output.len(), on_text);
        let end = self.utf8.finish();
        if !end.is_empty() {
            let _ = on_text(&end);
        }
    }

    /// How many bytes of the output were handed on as text (a character cut short is not).
    pub(super) fn seen(&self) -> usize {
        self.given - self.utf8.held()
    }

    fn hand(&mut self, output: &[u8], to: usize, on_text: OnText<'_>) -> ControlFlow<()> {
        let new = output
            .get(self.given..to.max(self.given))
            .unwrap_or_default();
        self.given += new.len();
        let text = self.utf8.push(new);
        if text.is_empty() {
            return ControlFlow::Continue(());
        }
        on_text(&text)
    }
}

/// The length of the longest end of `output` that is a proper prefix of a stop sequence.
fn held_for_stops(output: &[u8], stops: &[String]) -> usize {
    stops
        .iter()
        .map(|stop| {
            let longest = stop.len().saturating_sub(1).min(output.len());
            (1..=longest)
                .rev()
                .find(|&n| stop.as_bytes().starts_with(&output[output.len() - n..]))
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `tokens` as the generation loop does: the output grows by each token, is cut
    /// at the first stop sequence (which ends the answer), and is handed on after each token.
    fn decode(tokens: &[&[u8]], stops: &[&str]) -> (Vec<String>, Vec<u8>) {
        let stops: Vec<String> = stops.iter().map(|s| (*s).to_owned()).collect();
        let mut out = TextOut::default();
        let mut output = Vec::new();
        let mut pieces = Vec::new();
        let mut on_text = |text: &str| {
            pieces.push(text.to_owned());
            ControlFlow::Continue(())
        };
        for token in tokens {
            output.extend_from_slice(token);
            let found = stops
                .iter()
                .filter_map(|s| output.windows(s.len()).position(|w| w == s.as_bytes()))
                .min();
            if let Some(at) = found {
                output.truncate(at);
                break;
            }
            let _ = out.step(&output, &stops, &mut on_text);
        }
        out.finish(&output, &mut on_text);
        (pieces, output)
    }

    #[test]
    fn split_characters_are_joined_and_a_stop_sequence_is_never_handed_on() {
        let euro = "€".as_bytes();
        let tokens: [&[u8]; 6] = [b"{\"a\": ", &euro[..1], &euro[1..], b"\"}\n", b"\n", b"Q:"];
        let (pieces, output) = decode(&tokens, &["\n\nQ:"]);
        assert_eq!(pieces, ["{\"a\": ", "€", "\"}"]);
        assert_eq!(pieces.concat().as_bytes(), output.as_slice());
    }

    #[test]
    fn the_start_of_a_stop_sequence_that_does_not_complete_is_handed_on() {
        let tokens: [&[u8]; 3] = [b"a\n", b"\nb", b"c"];
        let (pieces, output) = decode(&tokens, &["\n\nQ:"]);
        assert_eq!(pieces, ["a", "\n\nb", "c"]);
        assert_eq!(output, b"a\n\nbc");
    }

    #[test]
    fn what_was_seen_excludes_a_character_cut_short() {
        let mut out = TextOut::default();
        let mut on_text = |_: &str| ControlFlow::Break(());
        let output = [b'x', "€".as_bytes()[0]];
        assert!(out.step(&output, &[], &mut on_text).is_break());
        assert_eq!(out.seen(), 1);
    }
}

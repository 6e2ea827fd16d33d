//! A guard against runaway digits in constrained output.
//!
//! A JSON grammar allows numbers of any length, and strings such as `^[0-9]+\.[0-9]+$`
//! versions, and a small model can get stuck emitting digits (`3.0011111111…`,
//! `"2.000000…"`) until the token budget runs out — measured on Gemma 3 270M at temperature
//! 0.7. No number needs more than [`MAX_NUMBER_DIGITS`] digits (an `f64` holds 17
//! significant digits, a `u64` 20), and a model's answer hardly ever holds a longer run of
//! digits in a string, so past that the sampler forbids tokens that start with a digit and
//! the grammar makes the model end the number or the run.

/// Digits a number may have (integer, fraction and exponent together), or a run of digits
/// in a string, before digit tokens are forbidden.
pub(crate) const MAX_NUMBER_DIGITS: usize = 20;

/// Follows the JSON text generated so far: inside a string or not, and how many digits the
/// number or the run of digits being written has.
#[derive(Debug, Default)]
pub(crate) struct NumberGuard {
    in_string: bool,
    escaped: bool,
    in_number: bool,
    digits: usize,
}

impl NumberGuard {
    /// Takes the bytes of one more token.
    pub fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if self.in_string {
            self.digits = if b.is_ascii_digit() && !self.escaped {
                self.digits + 1
            } else {
                0
            };
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                _ => {}
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                self.in_number = false;
                self.digits = 0;
            }
            b'0'..=b'9' => {
                self.digits = if self.in_number { self.digits + 1 } else { 1 };
                self.in_number = true;
            }
            b'-' | b'+' | b'.' | b'e' | b'E' if self.in_number || b == b'-' => {
                if !self.in_number {
                    self.digits = 0;
                }
                self.in_number = true;
            }
            _ => self.in_number = false,
        }
    }

    /// True when the number or run of digits being written has reached
    /// [`MAX_NUMBER_DIGITS`].
    pub fn digits_exhausted(&self) -> bool {
        (self.in_number || self.in_string) && self.digits >= MAX_NUMBER_DIGITS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(text: &str) -> NumberGuard {
        let mut g = NumberGuard::default();
        g.push(text.as_bytes());
        g
    }

    #[test]
    fn long_numbers_are_cut_and_strings_are_not_numbers() {
        assert!(!guard(r#"{"a":3.0011111111111111"#).digits_exhausted());
        assert!(guard(r#"{"a":3.0011111111111111111"#).digits_exhausted());
        assert!(guard("[-12345678901234567890").digits_exhausted());
        assert!(!guard("[12345678901234567890,").digits_exhausted());
        assert!(guard(r#"{"v":"2.000000000000000000000"#).digits_exhausted());
        assert!(!guard(r#"{"v":"2.0000000000000000000"#).digits_exhausted());
        assert!(!guard(r#"{"v":"2.000000000000000000000.1"#).digits_exhausted());
        assert!(!guard(r#"{"v":"2.000000000000000000000","#).digits_exhausted());
        assert!(!guard(r#"{"a":"x\"1234567890123456789"#).digits_exhausted());
        assert!(guard(r#"{"a":"x\\",1.5e123456789012345678"#).digits_exhausted());
    }
}

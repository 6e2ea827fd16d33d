//! The value read so far, for a caller to show or use before the answer is complete.

use serde_json::Value;

use super::frame::{Frame, PathView};
use super::token::{Escape, Token};
use super::{Keys, Reader};
use crate::path::{Seg, pointer};

/// The value as far as it has arrived.
#[derive(Debug, Clone, PartialEq)]
pub struct Partial {
    /// What has been read: complete members and items, and the string in progress as far as
    /// it goes (a number or literal in progress, or a key without its value, is left out).
    pub value: Value,
    /// Pointers of the values that will not change any more. A value under a listed pointer
    /// is final too; `""` when the whole value is complete.
    pub final_paths: Vec<String>,
    /// The pointer of the value being read, if one is.
    pub in_progress: Option<String>,
    /// True when the whole value has arrived.
    pub complete: bool,
}

impl Partial {
    /// True when the value at `pointer` will not change any more.
    pub fn is_final(&self, pointer: &str) -> bool {
        self.final_paths.iter().any(|p| {
            pointer == p
                || (pointer.starts_with(p.as_str())
                    && pointer.as_bytes().get(p.len()) == Some(&b'/'))
        })
    }
}

impl Reader {
    /// The value read so far; `None` before a value has started.
    pub fn partial(&self) -> Option<Partial> {
        if self.root.is_some() {
            return Some(Partial {
                value: self.value()?.clone(),
                final_paths: vec![String::new()],
                in_progress: None,
                complete: true,
            });
        }
        let mut child = match self.pending {
            Some(span) => self.build(span),
            None => self.token_so_far(),
        };
        for frame in self.stack.iter().rev() {
            child = Some(frame.snapshot(child, |span| self.build(span)));
        }
        let value = child?;
        Some(Partial {
            value,
            final_paths: self.final_paths(),
            in_progress: Some(self.in_progress()),
            complete: false,
        })
    }

    /// The string being read as far as it goes (an escape cut off is left out).
    fn token_so_far(&self) -> Option<Value> {
        let Some(Token::Str {
            start,
            key: false,
            escape,
            escape_at,
            ..
        }) = self.token
        else {
            return None;
        };
        let end = if escape == Escape::None {
            self.text.len()
        } else {
            escape_at
        };
        let body = self.text.get(start + 1..end)?;
        serde_json::from_str::<String>(&format!("\"{body}\""))
            .ok()
            .map(Value::String)
    }

    /// The pointer of the value being read: a member or item, or else the innermost open
    /// container.
    fn in_progress(&self) -> String {
        let path = self.view();
        let inside = match self.stack.last() {
            Some(Frame::Object { key, .. }) => key.is_some(),
            Some(Frame::Array { .. }) => self.token.is_some() || self.pending.is_some(),
            None => false,
        };
        if inside {
            path.pointer()
        } else {
            let len = self.stack.len();
            pointer(PathView::new(&self.stack[..len.saturating_sub(1)], false).segments())
        }
    }

    /// The pointers of the complete values in open containers that are final: all of them
    /// when keys are unique, else only those with no object around them.
    fn final_paths(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (depth, frame) in self.stack.iter().enumerate() {
            let around = &self.stack[..=depth];
            if self.options.keys == Keys::LastWins && around.iter().any(Frame::is_object) {
                break;
            }
            let prefix: Vec<Seg<'_>> = self.stack[..depth]
                .iter()
                .filter_map(Frame::current)
                .collect();
            for seg in frame.done() {
                out.push(pointer(prefix.iter().copied().chain([seg])));
            }
        }
        out
    }
}

//! Repair records as the pipeline collects them: a rule, byte offsets, and the pointer and
//! before/after snippets as ranges of one shared buffer, so recording a repair allocates
//! nothing of its own. [`Log::build`] turns them into `rectify_core::Repair`s.

use rectify_core::{Location, Repair, Span, pointer_to_path};

use crate::locate::Locator;
use crate::rules::RepairRule;

/// A range of [`Log::text`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    start: usize,
    end: usize,
}

/// One recorded repair: `span` holds byte offsets, and line and column once located.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawRepair {
    pub rule: RepairRule,
    pub span: Span,
    pointer: Slot,
    before: Slot,
    after: Slot,
}

/// The repairs of one text, in the order they were made.
#[derive(Clone, Debug, Default)]
pub(crate) struct Log {
    entries: Vec<RawRepair>,
    /// Pointers and snippets, one after the other.
    text: String,
}

impl Log {
    /// Records a repair of the source bytes `start..end`; `pointer` writes its JSON Pointer.
    pub fn push(
        &mut self,
        rule: RepairRule,
        (start, end): (usize, usize),
        pointer: impl FnOnce(&mut String),
        before: &str,
        after: &str,
    ) {
        if self.entries.capacity() == 0 {
            self.entries.reserve(8);
            self.text.reserve(256);
        }
        let pointer = self.slot(pointer);
        let before = self.slot(|t| push_snippet(t, before));
        let after = self.slot(|t| push_snippet(t, after));
        self.entries.push(RawRepair {
            rule,
            span: Span {
                start,
                end,
                ..Span::default()
            },
            pointer,
            before,
            after,
        });
    }

    /// A repair of the text around the value (a code fence, prose): no pointer, no snippets.
    pub fn outside(&mut self, rule: RepairRule, start: usize, end: usize) {
        self.push(rule, (start, end), |_| {}, "", "");
    }

    /// A repair that drops the text `start..end` around the value (prose): no pointer, the
    /// dropped text as its snippet.
    pub fn dropped(&mut self, rule: RepairRule, text: &str, start: usize, end: usize) {
        let before = text.get(start..end).unwrap_or("").trim_end();
        self.push(rule, (start, end), |_| {}, before, "");
    }

    fn slot(&mut self, write: impl FnOnce(&mut String)) -> Slot {
        let start = self.text.len();
        write(&mut self.text);
        Slot {
            start,
            end: self.text.len(),
        }
    }

    /// Appends the repairs of `other`, after these.
    pub fn extend(&mut self, other: Log) {
        if self.entries.is_empty() {
            *self = other;
            return;
        }
        let base = self.text.len();
        self.text.push_str(&other.text);
        let shift = |s: Slot| Slot {
            start: s.start + base,
            end: s.end + base,
        };
        self.entries
            .extend(other.entries.into_iter().map(|r| RawRepair {
                pointer: shift(r.pointer),
                before: shift(r.before),
                after: shift(r.after),
                ..r
            }));
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Forgets the repairs after the first `len` (made inside text that is kept as written).
    pub fn truncate(&mut self, len: usize) {
        if let Some(first) = self.entries.get(len) {
            self.text.truncate(first.pointer.start);
            self.entries.truncate(len);
        }
    }

    /// Forgets the repairs whose byte range `start..end` makes `gone` true (made inside
    /// candidates left out whole, whose drops are recorded with their text instead).
    pub fn forget_where(&mut self, gone: impl Fn(usize, usize) -> bool) {
        crate::work::add(self.entries.len());
        self.entries.retain(|r| !gone(r.span.start, r.span.end));
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn last(&self) -> Option<&RawRepair> {
        self.entries.last()
    }

    /// The rules of the repairs, in order.
    pub fn rules(&self) -> impl ExactSizeIterator<Item = RepairRule> + '_ {
        self.entries.iter().map(|r| r.rule)
    }

    /// Moves every repair to the byte range `start..end` (repairs made inside an unescaped
    /// copy of that text).
    pub fn relocate(&mut self, start: usize, end: usize) {
        for r in &mut self.entries {
            r.span.start = start;
            r.span.end = end;
        }
    }

    /// Fills in the line and column of every repair.
    pub fn locate(&mut self, doc: &Locator<'_>) {
        doc.locate(&mut self.entries, |r| r.span, |r, span| r.span = span);
    }

    /// The repairs as `rectify_core::Repair`s (located first, see [`Log::locate`]).
    pub fn build(&self) -> Vec<Repair> {
        self.entries.iter().map(|r| self.repair(r)).collect()
    }

    /// Locates and builds: the repairs of `doc`.
    pub fn into_repairs(mut self, doc: &Locator<'_>) -> Vec<Repair> {
        self.locate(doc);
        self.build()
    }

    fn get(&self, slot: Slot) -> &str {
        self.text.get(slot.start..slot.end).unwrap_or("")
    }

    fn repair(&self, r: &RawRepair) -> Repair {
        let pointer = self.get(r.pointer);
        let location = Location {
            path: display_path(pointer),
            pointer: pointer.to_owned(),
            span: Some(r.span),
        };
        Repair::new(
            r.rule.code(),
            location,
            self.get(r.before),
            self.get(r.after),
            r.rule.applicability(),
        )
    }
}

/// Longest `before`/`after` snippet kept in a repair record, in characters.
const SNIPPET: usize = 48;

/// Appends `text`, cut after [`SNIPPET`] characters (marked with `…`).
fn push_snippet(out: &mut String, text: &str) {
    let cut = if text.len() <= SNIPPET {
        None
    } else {
        text.char_indices().nth(SNIPPET).map(|(cut, _)| cut)
    };
    match cut.and_then(|cut| text.get(..cut)) {
        Some(head) => {
            out.push_str(head);
            out.push('…');
        }
        None => out.push_str(text),
    }
}

/// A snippet for a repair record: `text` cut after [`SNIPPET`] characters.
pub(crate) fn snippet(text: &str) -> String {
    let mut out = String::new();
    push_snippet(&mut out, text);
    out
}

/// `rectify_core::pointer_to_path`, without its general machinery for the usual pointers
/// (ASCII identifiers and indexes).
fn display_path(pointer: &str) -> String {
    if pointer.is_empty() {
        return "$".to_owned();
    }
    let mut out = String::with_capacity(pointer.len() + 2);
    for seg in pointer.split('/').skip(1) {
        let b = seg.as_bytes();
        let ident = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'$');
        if !b.is_empty() && b.iter().all(u8::is_ascii_digit) {
            out.push('[');
            out.push_str(seg);
            out.push(']');
        } else if b
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'$'))
            && b.iter().all(ident)
        {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(seg);
        } else {
            return pointer_to_path(pointer);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_display_path_agrees_with_core() {
        for p in [
            "",
            "/a",
            "/tasks/0/phaseId",
            "/0/1",
            "/a b/c",
            "/x~1y",
            "/é",
            "/files-to-create/2",
            "/_x/$y",
            "/",
            "/1a",
        ] {
            assert_eq!(display_path(p), pointer_to_path(p), "{p:?}");
        }
    }

    #[test]
    fn extended_logs_keep_their_snippets() {
        let mut a = Log::default();
        a.push(
            RepairRule::TrailingComma,
            (1, 2),
            |p| p.push_str("/a"),
            ",",
            "",
        );
        let mut b = Log::default();
        b.push(
            RepairRule::SingleQuotes,
            (5, 6),
            |p| p.push_str("/b/0"),
            "'x'",
            "\"x\"",
        );
        a.extend(b);
        a.outside(RepairRule::Prose, 9, 12);
        let built = a.into_repairs(&Locator::new("0123456789abc"));
        let got: Vec<(&str, &str, &str, &str, usize)> = built
            .iter()
            .map(|r| {
                let span = r.location.span.unwrap_or_default();
                (
                    r.code.as_str(),
                    r.location.path.as_str(),
                    r.before.as_str(),
                    r.after.as_str(),
                    span.column,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("json.trailing_comma", "a", ",", "", 2),
                ("json.single_quotes", "b[0]", "'x'", "\"x\"", 6),
                ("extract.prose", "$", "", "", 10),
            ]
        );
    }
}

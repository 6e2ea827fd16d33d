//! A sink that writes JSON text as the parser reads, byte for byte what `serde_json::to_string`
//! (or `to_string_pretty`) gives for the value the [`ValueSink`](super::sink::ValueSink)
//! would build: strings escaped the way serde_json escapes them, number text as serde_json
//! keeps it.

use std::cell::RefCell;

use super::rewrite::Found;
use super::scan::ByteSet;
use super::sink::Sink;
use super::{Seg, snippet};

/// Most members an object may have before a streaming parse gives up (keys are compared by
/// hash, one by one; the value path handles bigger objects).
const MAX_KEYS: usize = 256;

/// Spare string buffers kept for reuse.
const POOL: usize = 8;

/// Buffers a text sink and its parser keep from one repair to the next on the same thread,
/// so a small repair allocates little more than its output.
#[derive(Default)]
struct Buffers {
    stack: Vec<u8>,
    path: Vec<Seg>,
    keys: Vec<WrittenKey>,
    pool: Vec<String>,
    tops: Vec<usize>,
}

impl Buffers {
    const EMPTY: Buffers = Buffers {
        stack: Vec::new(),
        path: Vec::new(),
        keys: Vec::new(),
        pool: Vec::new(),
        tops: Vec::new(),
    };
}

/// Longest buffer kept for the next repair, in elements: memory stays bounded.
const KEEP: usize = 4096;

thread_local! {
    static BUFFERS: RefCell<Buffers> = const { RefCell::new(Buffers::EMPTY) };
}

/// Writes JSON text, compact or indented by two spaces.
pub(crate) struct TextSink {
    pub out: String,
    /// Set when the text cannot be written this way (a tuple of one, indented): the
    /// caller repairs through the value path instead.
    pub failed: bool,
    pretty: bool,
    /// Open containers.
    depth: usize,
    /// A value was written in the current container: the next one needs a comma.
    need_comma: bool,
    /// A key was just written: its value follows without a separator.
    after_key: bool,
    /// The keys of the open objects, outermost first (and of the last top-level object,
    /// until the next one opens).
    pub(super) keys: Vec<WrittenKey>,
    pool: Vec<String>,
    /// Bytes that may still be moved to replace the value of a repeated key: bounds the
    /// work to a multiple of the input.
    pub(super) move_budget: usize,
    /// The parser's buffers between parses.
    stack: Vec<u8>,
    path: Vec<Seg>,
    /// Where each top-level value starts in `out`: values read one after the other are
    /// candidates, written back to back.
    pub tops: Vec<usize>,
}

/// A key written in an open object: its hash, and where its text and its value's text are
/// in the output.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WrittenKey {
    pub hash: u64,
    pub text: (usize, usize),
    pub value: (usize, usize),
}

/// An open object: where its keys start in [`TextSink::keys`], how many members it has
/// (complete ones: the key of the member being read is after them), and the member whose key
/// repeated (its index and where the new value starts), if any.
pub(crate) struct TextObj {
    /// Where its `{` is in the output.
    pub(super) start: usize,
    pub(super) base: usize,
    pub(super) len: usize,
    pub(super) replacing: Option<(usize, usize)>,
}

/// An open array: where its `[` is in the output, and how many elements it has.
pub(crate) struct TextArr {
    start: usize,
    len: usize,
}

impl TextSink {
    pub fn new(bytes: usize, pretty: bool) -> Self {
        let kept = BUFFERS
            .try_with(|b| b.try_borrow_mut().map(|mut b| std::mem::take(&mut *b)))
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        TextSink {
            out: String::with_capacity(bytes),
            move_budget: 2 * bytes,
            pretty,
            keys: kept.keys,
            pool: kept.pool,
            stack: kept.stack,
            path: kept.path,
            tops: kept.tops,
            failed: false,
            depth: 0,
            need_comma: false,
            after_key: false,
        }
    }

    /// The text written: the value's text when there was one value.
    pub fn into_text(mut self) -> String {
        std::mem::take(&mut self.out)
    }

    /// Opens an array where the output ends, its separator already written.
    pub(super) fn begin_array_here(&mut self) -> TextArr {
        let start = self.out.len();
        self.out.push('[');
        self.depth += 1;
        self.need_comma = false;
        TextArr { start, len: 0 }
    }

    /// True when the text is indented.
    pub fn pretty(&self) -> bool {
        self.pretty
    }

    /// Where the separator for the next value goes: at the top level a new candidate starts
    /// (see [`Self::sep`]).
    pub(super) fn set_open(&mut self, depth: usize, need_comma: bool) {
        self.depth = depth;
        self.need_comma = need_comma;
        self.after_key = false;
    }

    pub(super) fn depth(&self) -> usize {
        self.depth
    }

    pub(super) fn set_after_key(&mut self) {
        self.after_key = true;
    }

    /// The text of the `i`th top-level value.
    pub fn top(&self, i: usize) -> &str {
        let start = self.tops.get(i).copied().unwrap_or(self.out.len());
        let end = self.tops.get(i + 1).copied().unwrap_or(self.out.len());
        self.out.get(start..end).unwrap_or("")
    }

    fn sep(&mut self) {
        if self.after_key {
            self.after_key = false;
            return;
        }
        if self.depth == 0 {
            self.tops.push(self.out.len());
            return;
        }
        if self.need_comma {
            self.out.push(',');
        }
        if self.pretty {
            self.newline(self.depth);
        }
    }

    fn newline(&mut self, depth: usize) {
        self.out.push('\n');
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn close(&mut self, had_values: bool, closer: char) {
        self.depth = self.depth.saturating_sub(1);
        if self.pretty && had_values {
            self.newline(self.depth);
        }
        self.out.push(closer);
        self.need_comma = true;
    }
}

impl Drop for TextSink {
    /// Keeps the buffers (emptied, and only small ones) for the next repair on this thread.
    fn drop(&mut self) {
        let mut kept = Buffers {
            stack: std::mem::take(&mut self.stack),
            path: std::mem::take(&mut self.path),
            keys: std::mem::take(&mut self.keys),
            pool: std::mem::take(&mut self.pool),
            tops: std::mem::take(&mut self.tops),
        };
        kept.stack.clear();
        kept.tops.clear();
        kept.path.clear();
        kept.keys.clear();
        kept.pool.retain(|s| s.capacity() <= KEEP);
        if kept.stack.capacity() > KEEP || kept.path.capacity() > KEEP {
            kept.stack = Vec::new();
            kept.path = Vec::new();
        }
        if kept.keys.capacity() > KEEP {
            kept.keys = Vec::new();
        }
        if kept.tops.capacity() > KEEP {
            kept.tops = Vec::new();
        }
        let _ = BUFFERS.try_with(|b| {
            if let Ok(mut b) = b.try_borrow_mut() {
                *b = kept;
            }
        });
    }
}

impl Sink for TextSink {
    type Val = ();
    type Obj = TextObj;
    type Arr = TextArr;
    const STREAMING: bool = true;

    fn null(&mut self) {
        self.sep();
        self.out.push_str("null");
        self.need_comma = true;
    }

    fn boolean(&mut self, b: bool) {
        self.sep();
        self.out.push_str(if b { "true" } else { "false" });
        self.need_comma = true;
    }

    fn number(&mut self, text: &str) -> Option<()> {
        if !is_json_number(text.as_bytes()) {
            return None;
        }
        self.sep();
        write_number(&mut self.out, text);
        self.need_comma = true;
        Some(())
    }

    fn string(&mut self, s: String) {
        self.sep();
        write_escaped(&mut self.out, &s);
        self.need_comma = true;
        self.recycle(s);
    }

    fn scratch(&mut self) -> String {
        self.pool.pop().unwrap_or_default()
    }

    fn recycle(&mut self, mut s: String) {
        if self.pool.len() < POOL && s.capacity() <= KEEP {
            s.clear();
            self.pool.push(s);
        }
    }

    fn begin_object(&mut self) -> TextObj {
        if self.depth == 0 {
            // The keys of the last top-level object stay until the next one (see `reopen`).
            self.keys.clear();
        }
        self.sep();
        let start = self.out.len();
        self.out.push('{');
        self.depth += 1;
        self.need_comma = false;
        TextObj {
            start,
            base: self.keys.len(),
            len: 0,
            replacing: None,
        }
    }

    fn key(&mut self, obj: &mut TextObj, key: &str) -> bool {
        let hash = hash(key.as_bytes());
        if obj.len >= MAX_KEYS {
            return false;
        }
        match self.find_key(obj, hash, key) {
            Found::Absent => {}
            Found::At(i) => return self.repeat_key(obj, i),
            Found::Collision => return false,
        }
        self.sep();
        let start = self.out.len();
        write_escaped(&mut self.out, key);
        let end = self.out.len();
        self.out.push_str(if self.pretty { ": " } else { ":" });
        let at = self.out.len();
        self.keys.push(WrittenKey {
            hash,
            text: (start, end),
            value: (at, at),
        });
        self.need_comma = false;
        self.after_key = true;
        true
    }

    fn member(&mut self, obj: &mut TextObj, key: String, (): ()) -> bool {
        self.recycle(key);
        self.need_comma = true;
        if let Some((i, at)) = obj.replacing.take() {
            self.replace_value(obj, i, at);
            return true;
        }
        // The member is complete only now (a parse stopped inside its value leaves it out,
        // as the value sink does).
        let end = self.out.len();
        if let Some(k) = self.keys.get_mut(obj.base + obj.len) {
            k.value.1 = end;
        }
        obj.len += 1;
        false
    }

    fn end_object(&mut self, obj: TextObj) {
        if self.depth > 1 {
            self.keys.truncate(obj.base);
        }
        self.close(obj.len > 0, '}');
    }

    fn object_len(obj: &TextObj) -> usize {
        obj.len
    }

    fn begin_array(&mut self) -> TextArr {
        self.sep();
        self.begin_array_here()
    }

    fn item(&mut self, arr: &mut TextArr, (): ()) {
        arr.len += 1;
        self.need_comma = true;
    }

    fn array_len(arr: &TextArr) -> usize {
        arr.len
    }

    fn end_array(&mut self, arr: TextArr, unwrap: bool) {
        if !unwrap {
            return self.close(arr.len > 0, ']');
        }
        self.depth = self.depth.saturating_sub(1);
        self.need_comma = true;
        if self.pretty || self.out.as_bytes().get(arr.start) != Some(&b'[') {
            self.failed = true;
        } else {
            self.out.remove(arr.start);
        }
    }

    fn mark(&self) -> usize {
        self.out.len()
    }

    fn replace_with_string(&mut self, (): (), mark: usize, s: String) {
        let written = self.out.get(mark..).unwrap_or("");
        let skipped = written.len() - written.trim_start_matches([',', ' ', '\n']).len();
        self.out.truncate(mark + skipped);
        write_escaped(&mut self.out, &s);
        self.need_comma = true;
        self.recycle(s);
    }

    fn rendered(&mut self, (): &(), mark: usize) -> String {
        let text = self.out.get(mark..).unwrap_or("");
        let text = text.trim_start_matches(',').trim_start();
        if !self.pretty {
            return snippet(text);
        }
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
            return snippet(&v.to_string());
        }
        self.failed = true;
        String::new()
    }

    fn add_nulls(&mut self, obj: &mut TextObj, keys: Vec<String>) {
        self.null_members(obj, keys);
    }

    fn strings(&mut self, obj: TextObj, keys: Vec<String>) {
        self.object_to_strings(&obj, keys);
    }

    fn continue_array(&mut self, obj: &mut TextObj, val: Option<()>, mark: usize) -> bool {
        self.extend_last_array(obj, val.is_some(), mark)
    }

    fn take_string(&mut self, (): (), mark: usize, items: usize) -> Result<String, ()> {
        self.take_written_string(mark, items)
    }

    fn reopen(&mut self, (): &mut ()) -> Option<TextObj> {
        self.reopen_last()
    }

    fn close_reopened(&mut self, (): &mut (), obj: TextObj) {
        self.end_object(obj);
    }

    fn take_buffers(&mut self) -> (Vec<u8>, Vec<Seg>) {
        (
            std::mem::take(&mut self.stack),
            std::mem::take(&mut self.path),
        )
    }

    fn give_buffers(&mut self, mut stack: Vec<u8>, mut path: Vec<Seg>) {
        stack.clear();
        path.clear();
        self.stack = stack;
        self.path = path;
    }
}

/// FNV-1a: keys are short, and keys with the same hash are compared as written.
pub(super) fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What serde_json writes for each byte of a string: 0 for the byte itself, `u` for
/// `\u00XX`, otherwise the letter after the backslash.
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// The bytes [`ESCAPE`] escapes.
static ESCAPED: ByteSet<2> = ByteSet::new(0x20, [b'"', b'\\']);

/// Writes `s` as a JSON string, escaped exactly as serde_json does.
pub(crate) fn write_escaped(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    loop {
        let i = start + ESCAPED.position(bytes.get(start..).unwrap_or_default());
        let Some(&b) = bytes.get(i) else {
            break;
        };
        let esc = ESCAPE[usize::from(b)];
        out.push_str(s.get(start..i).unwrap_or(""));
        out.push('\\');
        if esc == b'u' {
            out.push_str("u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        } else {
            out.push(char::from(esc));
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or(""));
    out.push('"');
}

/// Writes JSON number text the way serde_json keeps it (`arbitrary_precision`): unchanged,
/// but for the exponent, always `e` followed by a sign (`1E5` becomes `1e+5`).
fn write_number(out: &mut String, text: &str) {
    let Some(e) = text.find(['e', 'E']) else {
        out.push_str(text);
        return;
    };
    out.push_str(text.get(..e).unwrap_or(""));
    out.push('e');
    let exponent = text.get(e + 1..).unwrap_or("");
    if !exponent.starts_with(['+', '-']) {
        out.push('+');
    }
    out.push_str(exponent);
}

/// True when `b` is exactly one JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(crate) fn is_json_number(b: &[u8]) -> bool {
    crate::strict::number(b, 0) == Some(b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_accepted_exactly_when_serde_json_accepts_them() {
        for s in [
            "0",
            "-0",
            "1",
            "-12",
            "18446744073709551616",
            "-9223372036854775809",
            "1e-5",
            "1.0E5",
            "1.5",
            "1.50",
            "1e5",
            "1E+5",
            "1e-05",
            "-0.0e0",
            "01",
            "1.",
            ".5",
            "+1",
            "1e",
            "1e+",
            "-",
            "",
            "1.e5",
            "0x10",
            "1_0",
            "1 ",
            " 1",
            "--1",
            "1.5.5",
        ] {
            let serde = serde_json::from_str::<serde_json::Number>(s)
                .ok()
                .map(|n| n.to_string());
            let ours = is_json_number(s.as_bytes()).then(|| {
                let mut out = String::new();
                write_number(&mut out, s);
                out
            });
            assert_eq!(ours, serde.filter(|_| s.trim() == s), "{s:?}");
        }
    }

    #[test]
    fn strings_are_escaped_like_serde_json() {
        for s in [
            "",
            "plain",
            "q\"b\\s",
            "\u{0}\u{1f}\u{7f}\n\r\t\u{8}\u{c}",
            "é☺𝄞/",
        ] {
            let mut out = String::new();
            write_escaped(&mut out, s);
            assert_eq!(out, serde_json::Value::String(s.to_owned()).to_string());
        }
    }
}

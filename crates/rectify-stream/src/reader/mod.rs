//! The incremental reader: text arrives in chunks, every byte is looked at once (amortised
//! linear), and the value read so far can be had at any time.
//!
//! It reads the JSON an answer starts with — at its start, or after a Markdown fence line
//! (```` ```json ````) — strictly, with one leniency: a trailing comma before `}` or `]`. An
//! answer that starts with prose is read from the first line that starts with `{`, `[` or a
//! fence, and marked [`Reader::judgeable`] false (the repair may pick another candidate). On
//! anything looser (single quotes, comments, unquoted keys, a raw line break in a string) it
//! stops reading and says why ([`ReadState::GaveUp`]): the whole text is still there for the
//! repair at the end, which reads far more than this reader does.

mod frame;
mod members;
mod partial;
mod step;
mod token;
mod utf8;

pub use frame::PathView;
pub use partial::Partial;

use std::sync::OnceLock;

use serde_json::Value;

use crate::StreamError;
use frame::{Frame, InArray, InObject, Span};
use token::{Escape, Token};
use utf8::Utf8Tail;

/// How a repeated key in an object is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keys {
    /// Keys are taken as unique: a member is final as soon as its value is complete. An
    /// answer that repeats a key (keeping the last, `json.duplicate_key`, is an unsafe
    /// repair) may have been judged on the first value.
    #[default]
    Unique,
    /// The last of repeated keys wins, as the repair reads them: nothing inside an object is
    /// final before the object closes.
    LastWins,
}

/// Limits and reading choices of a [`Reader`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReaderOptions {
    /// The most text read; past it [`StreamError::TooLarge`].
    pub max_bytes: usize,
    /// The deepest nesting read; past it the reader gives up (the text is still kept).
    pub max_depth: usize,
    /// How repeated keys are read.
    pub keys: Keys,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        Self {
            max_bytes: 64 * 1024 * 1024,
            max_depth: 256,
            keys: Keys::Unique,
        }
    }
}

/// Where a reader stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadState {
    /// No value has started yet.
    Waiting,
    /// A value is being read.
    Reading,
    /// The value is complete; what follows is not read.
    Done,
    /// The text is not JSON this reader reads; the reason.
    GaveUp(String),
}

/// A value that has just completed: its text, and its value built on demand.
pub(crate) struct Completed<'a> {
    /// The value's text.
    pub(crate) raw: &'a str,
    /// Where the trailing commas (read leniently) of the whole text are.
    trailing: &'a [usize],
    /// Where `raw` starts in the whole text.
    start: usize,
}

impl Completed<'_> {
    /// The value (`None` only if the reader let through what serde_json refuses).
    pub(crate) fn value(&self) -> Option<Value> {
        let span = Span {
            start: self.start,
            end: self.start + self.raw.len(),
        };
        build(self.raw, self.start, within(self.trailing, span))
    }
}

/// The positions in `all` (ascending) that fall inside `span`.
fn within(all: &[usize], span: Span) -> &[usize] {
    let from = all.partition_point(|&at| at < span.start);
    let to = all.partition_point(|&at| at < span.end);
    &all[from..to]
}

/// The value of `raw` (which starts at `start` in the text), with the trailing commas at
/// `trailing` read as white space.
fn build(raw: &str, start: usize, trailing: &[usize]) -> Option<Value> {
    if trailing.is_empty() {
        return serde_json::from_str(raw).ok();
    }
    let mut bytes = raw.as_bytes().to_vec();
    for &at in trailing {
        bytes[at - start] = b' ';
    }
    serde_json::from_slice(&bytes).ok()
}

/// A string value still arriving.
pub(crate) struct Grown<'a> {
    /// Where its opening quote is (which string it is).
    pub(crate) start: usize,
    /// Its raw text so far, after the quote, up to an escape cut off (escapes not decoded).
    pub(crate) raw: &'a str,
    /// A lower bound of its characters so far (white space not counted).
    pub(crate) chars: usize,
}

/// What the reader tells an observer as it reads (the prefix judge is one).
pub(crate) trait Observer {
    /// A value is complete at `path`.
    fn completed(&mut self, path: PathView<'_>, value: Completed<'_>);
    /// The string value at `path` grew.
    fn string_grew(&mut self, path: PathView<'_>, grown: Grown<'_>);
    /// A key was repeated in the object at `path`.
    fn repeated_key(&mut self, path: PathView<'_>, key: &str);
    /// An object value starts at `path`.
    fn object_opened(&mut self, path: PathView<'_>);
}

/// An observer that wants nothing.
struct Ignore;

impl Observer for Ignore {
    fn completed(&mut self, _: PathView<'_>, _: Completed<'_>) {}
    fn string_grew(&mut self, _: PathView<'_>, _: Grown<'_>) {}
    fn repeated_key(&mut self, _: PathView<'_>, _: &str) {}
    fn object_opened(&mut self, _: PathView<'_>) {}
}

/// Internal reading mode.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    /// Before the value: white space, a fence line.
    Start,
    /// Skipping prose to the next line.
    Prose,
    /// Inside the value.
    Value,
    /// After the value.
    Done,
    /// Stopped.
    GaveUp(String),
}

/// An incremental, resumable reader of the JSON value an answer holds.
///
/// Reading keeps where each complete value's text is, not the value: values are built from
/// the text only when asked for ([`Reader::partial`], [`Reader::value`], once), so the text
/// is read at the speed of a scan.
///
/// ```
/// use rectify_stream::Reader;
///
/// let mut reader = Reader::new();
/// reader.push("```json\n{\"name\": \"Ada\", \"tags\": [\"x\", \"y").unwrap();
/// let partial = reader.partial().unwrap();
/// assert_eq!(partial.value["name"], "Ada");
/// assert_eq!(partial.value["tags"][1], "y");
/// assert!(partial.is_final("/name") && partial.is_final("/tags/0"));
/// assert!(!partial.is_final("/tags/1"));
/// assert_eq!(partial.in_progress.as_deref(), Some("/tags/1"));
/// reader.push("\"]}\n```").unwrap();
/// assert_eq!(reader.value().unwrap()["tags"][1], "y");
/// ```
#[derive(Debug)]
pub struct Reader {
    text: String,
    tail: Utf8Tail,
    options: ReaderOptions,
    pos: usize,
    mode: Mode,
    stack: Vec<Frame>,
    token: Option<Token>,
    pending: Option<Span>,
    root: Option<Span>,
    built: OnceLock<Option<Value>>,
    trailing: Vec<usize>,
    comma: usize,
    fenced: bool,
    prose: bool,
    settled: usize,
}

impl Default for Reader {
    fn default() -> Self {
        Self::new()
    }
}

impl Reader {
    /// A reader with the default options.
    pub fn new() -> Self {
        Self::with_options(ReaderOptions::default())
    }

    /// A reader with these options.
    pub fn with_options(options: ReaderOptions) -> Self {
        Self {
            text: String::new(),
            tail: Utf8Tail::default(),
            options,
            pos: 0,
            mode: Mode::Start,
            stack: Vec::new(),
            token: None,
            pending: None,
            root: None,
            built: OnceLock::new(),
            trailing: Vec::new(),
            comma: 0,
            fenced: false,
            prose: false,
            settled: 0,
        }
    }

    /// Reads the next chunk of text.
    pub fn push(&mut self, chunk: &str) -> Result<(), StreamError> {
        self.push_observed(chunk, &mut Ignore)
    }

    /// Reads the next chunk of bytes; a character split across chunks is joined.
    pub fn push_bytes(&mut self, chunk: &[u8]) -> Result<(), StreamError> {
        self.push_bytes_observed(chunk, &mut Ignore)
    }

    /// Ends the stream: fails when it ended inside a UTF-8 character.
    pub fn finish(&mut self) -> Result<(), StreamError> {
        self.tail.finish(self.text.len())
    }

    pub(crate) fn push_bytes_observed(
        &mut self,
        chunk: &[u8],
        observer: &mut impl Observer,
    ) -> Result<(), StreamError> {
        let before = self.text.len();
        self.check_size(chunk.len() + self.tail.len())?;
        let mut text = std::mem::take(&mut self.text);
        let decoded = self.tail.decode(chunk, before, &mut text);
        self.text = text;
        decoded?;
        self.read(observer);
        Ok(())
    }

    pub(crate) fn push_observed(
        &mut self,
        chunk: &str,
        observer: &mut impl Observer,
    ) -> Result<(), StreamError> {
        if self.tail.len() > 0 {
            return self.push_bytes_observed(chunk.as_bytes(), observer);
        }
        self.check_size(chunk.len())?;
        self.text.push_str(chunk);
        self.read(observer);
        Ok(())
    }

    fn check_size(&self, more: usize) -> Result<(), StreamError> {
        let limit = self.options.max_bytes;
        if self.text.len().saturating_add(more) > limit {
            return Err(StreamError::TooLarge { limit });
        }
        Ok(())
    }

    /// All the text received.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where the reader stands.
    pub fn state(&self) -> ReadState {
        match &self.mode {
            Mode::Start | Mode::Prose => ReadState::Waiting,
            Mode::Value => ReadState::Reading,
            Mode::Done => ReadState::Done,
            Mode::GaveUp(why) => ReadState::GaveUp(why.clone()),
        }
    }

    /// The value, once it is complete (built from the text on the first call).
    pub fn value(&self) -> Option<&Value> {
        let span = self.root?;
        self.built.get_or_init(|| self.build(span)).as_ref()
    }

    /// The value whose text is at `span`.
    fn build(&self, span: Span) -> Option<Value> {
        let raw = &self.text[span.start..span.end];
        build(raw, span.start, self.trailing_in(span))
    }

    /// The trailing commas inside `span`.
    fn trailing_in(&self, span: Span) -> &[usize] {
        within(&self.trailing, span)
    }

    /// True when the value started the answer (after white space or a fence line): what is
    /// read is what the repair will take, so a verdict on it holds.
    pub fn judgeable(&self) -> bool {
        !self.prose && !matches!(self.mode, Mode::GaveUp(_))
    }

    pub(crate) fn view(&self) -> PathView<'_> {
        PathView::new(&self.stack, !self.prose)
    }

    /// How many values have completed so far (a cheap way to tell that a new
    /// [`Reader::partial`] would show more).
    pub fn settled(&self) -> usize {
        self.settled
    }

    /// How repeated keys are read.
    pub fn keys(&self) -> Keys {
        self.options.keys
    }

    fn give_up(&mut self, why: impl Into<String>) {
        self.mode = Mode::GaveUp(why.into());
        self.token = None;
    }

    /// Reads from `pos` as far as the text goes.
    fn read(&mut self, observer: &mut impl Observer) {
        loop {
            let progressed = match self.mode {
                Mode::Start => self.start(),
                Mode::Prose => self.prose(),
                Mode::Value => self.value_step(observer),
                Mode::Done | Mode::GaveUp(_) => false,
            };
            if !progressed {
                return;
            }
        }
    }

    /// Before the value: white space, then `{`, `[`, a fence line, or prose.
    fn start(&mut self) -> bool {
        let bytes = self.text.as_bytes();
        self.pos = skip_space(bytes, self.pos);
        let rest = &bytes[self.pos.min(bytes.len())..];
        match rest.first() {
            None => false,
            Some(b'{' | b'[') => {
                self.mode = Mode::Value;
                true
            }
            Some(b'`') if !self.fenced && b"```".starts_with(&rest[..rest.len().min(3)]) => {
                if rest.len() < 3 {
                    return false;
                }
                match rest.iter().position(|&b| b == b'\n') {
                    Some(nl) => {
                        self.pos += nl + 1;
                        self.fenced = true;
                        true
                    }
                    None => false,
                }
            }
            Some(_) => {
                self.prose = true;
                self.mode = Mode::Prose;
                true
            }
        }
    }

    /// Prose: skips to the start of the next line.
    fn prose(&mut self) -> bool {
        let bytes = self.text.as_bytes();
        if let Some(nl) = bytes[self.pos..].iter().position(|&b| b == b'\n') {
            self.pos += nl + 1;
            self.mode = Mode::Start;
            self.fenced = false;
            true
        } else {
            self.pos = bytes.len();
            false
        }
    }

    /// One step inside the value; false when the text ran out or reading stopped.
    fn value_step(&mut self, observer: &mut impl Observer) -> bool {
        if let Some(token) = self.token {
            return self.continue_token(token, observer);
        }
        self.pos = skip_space(self.text.as_bytes(), self.pos);
        let Some(&b) = self.text.as_bytes().get(self.pos) else {
            return false;
        };
        if self.pending.is_some() {
            self.follow(b, observer);
            if !self.reading() {
                return false;
            }
        }
        match self.stack.last().map(expectation) {
            None => self.start_value(b, observer),
            Some(Expect::Object(expect)) => self.in_object(expect, b, observer),
            Some(Expect::Array(expect)) => self.in_array(expect, b, observer),
        }
        self.reading()
    }

    fn reading(&self) -> bool {
        self.mode == Mode::Value
    }

    fn in_object(&mut self, expect: InObject, b: u8, observer: &mut impl Observer) {
        match (expect, b) {
            (InObject::Key { .. }, b'"') => self.open_token(Token::Str {
                start: self.pos,
                key: true,
                escape: Escape::None,
                escape_at: 0,
                chars: 0,
            }),
            (InObject::Key { close: true } | InObject::Next, b'}') => self.close(observer),
            (InObject::Colon, b':') => self.expect_object(InObject::Value),
            (InObject::Next, b',') => {
                self.comma = self.pos;
                self.expect_object(InObject::Key { close: true });
            }
            (InObject::Value, _) => self.start_value(b, observer),
            _ => self.unexpected(b),
        }
    }

    fn in_array(&mut self, expect: InArray, b: u8, observer: &mut impl Observer) {
        match (expect, b) {
            (InArray::Item { close: true } | InArray::Next, b']') => self.close(observer),
            (InArray::Next, b',') => {
                self.comma = self.pos;
                self.expect_array(InArray::Item { close: true });
            }
            (InArray::Item { .. }, _) => self.start_value(b, observer),
            _ => self.unexpected(b),
        }
    }

    fn unexpected(&mut self, b: u8) {
        let shown = self.text[self.pos..].chars().next().unwrap_or(b as char);
        self.give_up(format!("`{shown}` at byte {} is not strict JSON", self.pos));
    }

    fn expect_object(&mut self, next: InObject) {
        if let Some(Frame::Object { expect, .. }) = self.stack.last_mut() {
            *expect = next;
        }
        self.pos += 1;
    }

    fn expect_array(&mut self, next: InArray) {
        if let Some(Frame::Array { expect, .. }) = self.stack.last_mut() {
            *expect = next;
        }
        self.pos += 1;
    }
}

/// The first byte at or after `pos` that is not JSON white space.
fn skip_space(bytes: &[u8], pos: usize) -> usize {
    let rest = bytes.get(pos..).unwrap_or_default();
    pos + rest
        .iter()
        .position(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        .unwrap_or(rest.len())
}

/// What the innermost container expects.
enum Expect {
    Object(InObject),
    Array(InArray),
}

fn expectation(frame: &Frame) -> Expect {
    match frame {
        Frame::Object { expect, .. } => Expect::Object(*expect),
        Frame::Array { expect, .. } => Expect::Array(*expect),
    }
}

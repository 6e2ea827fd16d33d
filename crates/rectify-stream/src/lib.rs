//! Streaming answers: read a growing answer as it arrives, and stop one that can no longer
//! be valid.
//!
//! - [`Reader`] reads the JSON value an answer holds from chunks, each byte once, and gives
//!   the value so far at any time as a [`Partial`]: the members and items complete so far,
//!   the one in progress, and which paths are final.
//! - [`PrefixChecker`] compiles a JSON Schema once into the checks that can already fail on
//!   a prefix; [`StreamJudge`] feeds a reader and says when the answer is
//!   [`Verdict::Doomed`], with the diagnostics the full check would also give.
//!
//! The verdicts are conservative: a value is judged only once it is complete and final,
//! after the same safe repairs (coercions) the full judge applies, against the sub-schema
//! that applies to it whatever else the answer holds. See [`PrefixChecker`] for what is and
//! is not judged early.

mod error;
mod judge;
pub mod path;
mod reader;

pub use error::StreamError;
pub use judge::{PrefixChecker, PrefixOptions, StreamJudge, Verdict};
pub use reader::{Keys, Partial, PathView, ReadState, Reader, ReaderOptions};

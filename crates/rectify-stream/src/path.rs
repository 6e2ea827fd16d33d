//! Where a value sits in the answer: segments, built into JSON Pointers only when asked.

use rectify_core::push_pointer;

/// One step from a container to a value in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg<'a> {
    /// An object member.
    Key(&'a str),
    /// An array item.
    Index(usize),
}

/// The JSON Pointer of a path given as segments.
pub fn pointer<'a>(segs: impl IntoIterator<Item = Seg<'a>>) -> String {
    let mut out = String::new();
    for seg in segs {
        match seg {
            Seg::Key(key) => push_pointer(&mut out, key),
            Seg::Index(i) => push_pointer(&mut out, &i.to_string()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_keys() {
        assert_eq!(
            pointer([Seg::Key("a/b"), Seg::Index(2), Seg::Key("~")]),
            "/a~1b/2/~0"
        );
        assert_eq!(pointer([]), "");
    }
}

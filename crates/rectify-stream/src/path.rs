//! Where a value sits in the answer: segments, built into JSON Pointers only when asked.

pub use rectify_core::Seg;

/// The JSON Pointer of a path given as segments.
pub fn pointer<'a>(segs: impl IntoIterator<Item = Seg<'a>>) -> String {
    rectify_core::pointer_of(segs)
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

//! A count of the work repair does where it visits what grows with the answer (bytes
//! located, repairs forgotten, candidates chosen between, values coerced), for the tests that
//! check it stays linear in the answer's length. Outside tests it counts nothing.

#[cfg(test)]
thread_local! {
    static DONE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `units` of work (nothing outside tests).
#[inline]
pub(crate) fn add(units: usize) {
    #[cfg(test)]
    DONE.with(|done| done.set(done.get() + units));
    #[cfg(not(test))]
    let _ = units;
}

/// The work counted on this thread since the last call.
#[cfg(test)]
pub(crate) fn take() -> usize {
    DONE.with(|done| done.replace(0))
}

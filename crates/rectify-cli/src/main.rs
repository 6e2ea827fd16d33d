//! The `rectify` binary.
fn main() {}

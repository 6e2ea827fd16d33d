//! Benchmarks of rectify and side-by-side comparisons with peers.

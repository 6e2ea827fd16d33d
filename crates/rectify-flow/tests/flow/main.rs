//! Workflow tests: script agents drive every route; the real engine, store and providers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::many_single_char_names,
    clippy::needless_raw_string_hashes,
    clippy::format_push_string,
    clippy::map_unwrap_or
)]

mod answers;
mod backends;
mod bad_input;
mod boundary;
mod config;
mod layering;
mod parallel;
mod resume;
mod routes;
mod store;
mod support;
mod validators;

//! CLI tests: one integration binary, one module per command.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod ask;
mod ask_stream;
mod bad_input;
mod bounds;
mod check;
mod output_schemas;
mod repair;
mod report;
mod restate;
mod resume;
mod rules;
mod security;
mod snapshot;
mod support;
mod torture;
mod workflows;

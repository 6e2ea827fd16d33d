//! CLI tests: one integration binary, one module per command.

mod bad_input;
mod check;
mod repair;
mod support;

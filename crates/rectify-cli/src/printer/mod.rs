//! Printing results: rustc-style frames for people, a documented JSON protocol for programs.

pub mod human;
pub mod json;
#[cfg(feature = "workflow")]
pub mod report_html;
pub mod run;

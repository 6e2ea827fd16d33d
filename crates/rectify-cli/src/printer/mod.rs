//! Printing results: rustc-style frames for people, a documented JSON protocol for programs.

pub mod ask_json;
pub mod human;
pub mod json;
pub mod report_html;
pub mod run;
pub mod runs;

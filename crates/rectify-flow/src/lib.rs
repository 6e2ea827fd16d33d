//! Workflows (docs/architecture.md, "The path of one workflow unit"): multi-step agent pipelines as
//! one YAML file.
//!
//! A workflow names providers, agents (Markdown with YAML front matter) and steps. Each step
//! runs an agent that writes files or answers; every output is read with its format, repaired
//! deterministically (the fix written back, the original kept), and checked with its schema,
//! rules and cross-file references. A failing output goes to a repair agent or back to the
//! producer with the problems, within counters kept in the [`Store`]; when they run out the
//! run pauses for a person (or fails). Validators judge finished work with PASS/WARN/FAIL.
//! Every state change is committed before the next side effect.
//!
//! - [`load()`] reads a workflow file and reports every configuration problem with its file,
//!   line and column before any model is called;
//! - [`run()`] runs it ([`RunOptions`]) and returns a [`RunSummary`];
//! - [`Report`] reads a run's whole story back from the store;
//! - [`Store`] keeps runs, steps, every raw answer, artifacts, waits and events in SQLite.

// Functions stay under 60 lines (clippy.toml), or say why above an `allow` (issue 35).
#![warn(clippy::too_many_lines)]

pub mod beneath;
pub mod engine;
pub mod graph;
pub mod isolate;
pub mod load;
pub mod report;
pub mod spec;
pub mod store;
pub mod summary;
pub mod template;

pub use engine::{Decision, ProviderFactory, RunError, RunOptions, SpecFactory, resume, run};
pub use load::{LoadError, Problem, Workflow, load, load_str};
pub use report::Report;
pub use store::{RunStatus, Store, StoreError};
pub use summary::RunSummary;

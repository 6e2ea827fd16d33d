//! rectify workflows on [Restate](https://restate.dev), a durable-execution server (issue 17).
//!
//! A run is a Restate *workflow* keyed by its run id. Its handler runs the same engine as
//! `rectify run` ([`rectify_flow::run`]) with an in-memory store, and sends every model and
//! agent call through Restate's journal (`ctx.run`): when the endpoint dies mid-run, Restate
//! invokes the handler again, the engine runs again from the start, and every call that had
//! finished is answered from the journal instead of being made again. Checks, repairs, routing
//! and feedback are the engine's own code, computed again on replay from the same answers.
//!
//! - [`serve`]: the endpoint (`rectify serve --restate`);
//! - [`client`]: starting a run through Restate's ingress (`rectify run --on restate://…`).
//!
//! Each pause (a human step, an exhausted step) is a durable promise: the handler waits on it
//! until a person decides (`rectify resume --on`), across endpoint and server restarts.
//! Answers larger than [`artifacts::INLINE_LIMIT`] are kept in a content-addressed store
//! ([`artifacts`]); the journal keeps their hash.
//!
//! Independent steps run at once: the engine's calls are made in rounds, journaled in the order
//! of their units and made in parallel (see `docs/distributed.md`, "Parallel steps"). Not done
//! yet: files written by a command agent are on the working directory's disk, not in the
//! journal or the artifact store.

pub mod artifacts;
pub mod client;
mod journal;
pub mod service;

pub use client::{Client, ClientError};
pub use service::{DecisionRequest, RunRequest, RunState, SERVICE, ServeError, bind, serve};

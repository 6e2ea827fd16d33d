//! Test support for rectify: fake provider servers, fixtures and a CLI harness.
pub mod fake_server;
pub mod scripted;

//! rectify as a [Model Context Protocol](https://modelcontextprotocol.io) server, built on the
//! official Rust SDK (`rmcp`): a coding agent checks and repairs its own output while it works,
//! asks a model for JSON that fits a schema, and runs, follows and decides on workflows.
//!
//! - **Tools** (`check`, `repair`, `ask`, `run`, `status`, `resume`, `report`), each with a
//!   JSON Schema for its arguments; each answers with the wire format of the matching
//!   `rectify … --output json` (docs/output.md) as structured content. A tool that cannot do
//!   its work (a refused path, a bad schema, an unknown run) answers with `isError`.
//! - **Confinement**: every path is resolved beneath the server's [`Root`] (symbolic links
//!   followed, then checked), a schema's `$ref`s read only its own directory; a path that
//!   leaves the root is refused and nothing is read.
//! - **Resources**: `rectify://diagnostics` (the code catalogue), `rectify://runs/{id}` and
//!   `rectify://runs/{id}/report`. **Prompt**: `fix-diagnostics`, built from a check.
//! - `run`, `resume` and `ask` send progress notifications and stop when cancelled.
//!
//! ```no_run
//! # async fn serve() -> Result<(), rectify_mcp::Error> {
//! let root = rectify_mcp::Root::new(std::path::Path::new(".")).map_err(rectify_mcp::Error::Root)?;
//! rectify_mcp::serve_stdio(rectify_mcp::Server::new(root, Vec::new())).await
//! # }
//! ```

mod code_pages;
mod config;
mod prompts;
mod resources;
mod root;
mod server;
mod tools;
mod transport;
mod trim;
mod wire;

pub use resources::DIAGNOSTICS;
pub use root::{Refused, Root};
pub use server::Server;
pub use transport::{MAX_REQUEST_BYTES, http_address, serve_http, serve_stdio};

/// Why the server could not start or keep serving.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The root is not a usable directory.
    #[error("the root cannot be used: {0}")]
    Root(#[source] std::io::Error),
    /// `--http` names no address.
    #[error("`{0}` is not an address to listen on (PORT, HOST:PORT)")]
    Address(String),
    /// The address cannot be listened on.
    #[error("cannot listen: {0}")]
    Listen(#[source] std::io::Error),
    /// The protocol could not start (the client closed the connection during the handshake).
    #[error("the MCP session failed: {0}")]
    Start(String),
}

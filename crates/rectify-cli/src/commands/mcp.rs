//! `rectify mcp`: the Model Context Protocol server (crate `rectify-mcp`) on standard input and
//! output, or on Streamable HTTP with `--http`.

use anyhow::{Context, Result};
use rectify_mcp::{Root, Server};
use tokio_util::sync::CancellationToken;

use crate::args::McpArgs;
use crate::exit::ExitStatus;

/// Runs `rectify mcp` until the client closes standard input, or (HTTP) until SIGINT or
/// SIGTERM.
pub fn run(args: &McpArgs) -> Result<ExitStatus> {
    let root = Root::new(&args.root)
        .with_context(|| format!("the root `{}` cannot be used", args.root.display()))?;
    let server = Server::new(root, args.agent.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let served = runtime.block_on(async {
        if let Some(given) = &args.http {
            return http(server, given).await;
        }
        tokio::select! {
            served = rectify_mcp::serve_stdio(server) => served.map_err(Into::into),
            _ = super::interrupted() => Ok(()),
        }
    });
    // Runs left in the background stop with the server (their agents are killed); `resume`
    // continues them.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served.map(|()| ExitStatus::Success)
}

async fn http(server: Server, given: &str) -> Result<()> {
    let addr = rectify_mcp::http_address(given)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let bound = listener.local_addr()?;
    eprintln!("rectify mcp: listening on http://{bound}/mcp");
    let stop = CancellationToken::new();
    let stopper = stop.clone();
    tokio::spawn(async move {
        super::interrupted().await;
        stopper.cancel();
    });
    rectify_mcp::serve_http(server, listener, stop).await?;
    Ok(())
}

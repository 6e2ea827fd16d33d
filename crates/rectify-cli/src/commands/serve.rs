//! `rectify serve --restate`: an endpoint that runs workflows for a Restate server.

use std::io::Write as _;

use anyhow::{Context, Result};

use crate::args::ServeArgs;
use crate::exit::ExitStatus;

/// Runs `rectify serve`.
pub fn run(args: &ServeArgs) -> Result<ExitStatus> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let served: Result<ExitStatus> = runtime.block_on(async {
        let listener = rectify::restate::bind(args.bind).await?;
        let addr = listener.local_addr().context("cannot read the address listened on")?;
        // A line scripts can wait for (and read the port from, with `--bind 127.0.0.1:0`).
        let _ = writeln!(
            std::io::stderr().lock(),
            "rectify serve: listening on {addr}; register it with Restate: POST /deployments {{\"uri\": \"http://{addr}\"}}"
        );
        tokio::select! {
            () = rectify::restate::serve(listener) => Ok(ExitStatus::Success),
            code = super::interrupted() => Ok(ExitStatus::Interrupted(code)),
        }
    });
    drop(runtime);
    served
}

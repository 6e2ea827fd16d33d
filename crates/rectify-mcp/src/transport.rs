//! The transports: standard input and output (one client, the process that started the
//! server), and Streamable HTTP (any number of sessions, loopback unless told otherwise).

use std::net::SocketAddr;
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::{Error, Server};

/// The largest request body the HTTP transport reads (as a stdio line may be): a `check` of
/// inline content up to this size.
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// Serves one client on standard input and output until it closes them.
pub async fn serve_stdio(server: Server) -> Result<(), Error> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Error::Start(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| Error::Start(e.to_string()))?;
    Ok(())
}

/// Serves Streamable HTTP at `/mcp` on `listener` until `stop` is cancelled. Requests whose
/// `Host` is not a loopback name (or the address listened on) are refused, which stops DNS
/// rebinding from a browser.
pub async fn serve_http(
    server: Server,
    listener: TcpListener,
    stop: CancellationToken,
) -> Result<(), Error> {
    let addr = listener.local_addr().map_err(Error::Listen)?;
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop.child_token();
    config.max_request_body_bytes = MAX_REQUEST_BYTES;
    config.allowed_hosts.push(addr.ip().to_string());
    config.allowed_hosts.push(addr.to_string());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(_) => continue,
            },
            () = stop.cancelled() => return Ok(()),
        };
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// The address `--http` names: `PORT` alone, or `HOST:PORT`, is bound on loopback unless
/// the host is given.
pub fn http_address(given: &str) -> Result<SocketAddr, Error> {
    if let Ok(port) = given.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Ok(addr) = given.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let (host, port) = given
        .rsplit_once(':')
        .ok_or_else(|| Error::Address(given.to_owned()))?;
    let port: u16 = port.parse().map_err(|_| Error::Address(given.to_owned()))?;
    if host == "localhost" {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    Err(Error::Address(given.to_owned()))
}

//! A fake model server on 127.0.0.1 that speaks the OpenAI and Anthropic wire formats.
//!
//! Each incoming request takes the next scripted [`Reply`] (status, headers, body, delay,
//! [`Fault`]); when the script is empty the fallback reply is used (by default `418` with an
//! explanation, which no provider retries). Every request is recorded, so tests assert what was
//! sent and how many requests arrived. Connections are closed after each reply.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use rectify_test::fake_server::{FakeServer, Reply};
//! let server = FakeServer::start([Reply::openai_text("{\"ok\":true}")]).await.unwrap();
//! assert!(server.openai_base_url().starts_with("http://127.0.0.1:"));
//! assert_eq!(server.request_count(), 0);
//! # });
//! ```

mod http;
mod reply;
pub mod wire;

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

pub use reply::{Fault, Reply};

/// A request as the fake server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    /// The method (`POST`).
    pub method: String,
    /// The request target (`/v1/chat/completions`).
    pub path: String,
    /// Headers with lowercase names, in order.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON, if it is JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

#[derive(Debug)]
struct Shared {
    script: Mutex<VecDeque<Reply>>,
    fallback: Mutex<Reply>,
    requests: Mutex<Vec<RecordedRequest>>,
}

/// The running server; it stops when dropped.
#[derive(Debug)]
pub struct FakeServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl FakeServer {
    /// Binds an ephemeral port on 127.0.0.1 and serves `replies` in order.
    pub async fn start(replies: impl IntoIterator<Item = Reply>) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let exhausted = wire::openai_error("fake server: no scripted reply left");
        let shared = Arc::new(Shared {
            script: Mutex::new(replies.into_iter().collect()),
            fallback: Mutex::new(Reply::json(418, &exhausted)),
            requests: Mutex::new(Vec::new()),
        });
        let task = tokio::spawn(serve(listener, Arc::clone(&shared)));
        Ok(Self { addr, shared, task })
    }

    /// Appends a reply to the script.
    pub fn push(&self, reply: Reply) {
        lock(&self.shared.script).push_back(reply);
    }

    /// Sets the reply used once the script is empty.
    pub fn set_fallback(&self, reply: Reply) {
        *lock(&self.shared.fallback) = reply;
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` (the Anthropic-style base URL).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1` (the OpenAI-style base URL).
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// How many requests arrived.
    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    // Connection tasks live in the set, so aborting `serve` aborts them too.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    connections.spawn(handle(stream, Arc::clone(&shared)));
                }
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn handle(mut stream: TcpStream, shared: Arc<Shared>) {
    let Ok(Some(request)) = http::read_request(&mut stream).await else {
        return;
    };
    lock(&shared.requests).push(request.clone());
    let scripted = lock(&shared.script).pop_front();
    let reply = scripted.unwrap_or_else(|| lock(&shared.fallback).clone());
    let _ = http::write_reply(&mut stream, &reply, &request).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn exchange(server: &FakeServer, request: &[u8]) -> String {
        let mut stream = TcpStream::connect(server.addr()).await.unwrap();
        stream.write_all(request).await.unwrap();
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response).await;
        String::from_utf8_lossy(&response).into_owned()
    }

    #[tokio::test]
    async fn records_requests_and_serves_the_script_in_order() {
        let server = FakeServer::start([Reply::openai_text("one")])
            .await
            .unwrap();
        let body = r#"{"model":"m"}"#;
        let request = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nX-Api-Key: k\r\n\r\n{body}",
            body.len()
        );
        let first = exchange(&server, request.as_bytes()).await;
        assert!(first.starts_with("HTTP/1.1 200 OK\r\n"), "{first}");
        assert!(first.contains("\"content\":\"one\""), "{first}");
        let second = exchange(&server, request.as_bytes()).await;
        assert!(second.starts_with("HTTP/1.1 418"), "{second}");

        let seen = server.requests();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].path, "/v1/chat/completions");
        assert_eq!(seen[0].header("x-api-key"), Some("k"));
        assert_eq!(seen[0].json().unwrap()["model"], "m");
    }

    #[tokio::test]
    async fn truncation_announces_more_than_it_sends() {
        let reply =
            Reply::raw(200, "application/json", "0123456789").with_fault(Fault::TruncateBody);
        let server = FakeServer::start([reply]).await.unwrap();
        let response = exchange(&server, b"GET / HTTP/1.1\r\n\r\n").await;
        assert!(response.contains("content-length: 10\r\n"), "{response}");
        assert!(response.ends_with("\r\n\r\n01234"), "{response}");
    }

    #[tokio::test]
    async fn headers_can_be_echoed() {
        let reply =
            Reply::raw(200, "text/plain", "auth={{header:authorization}}").echoing_headers();
        let server = FakeServer::start([reply]).await.unwrap();
        let response = exchange(
            &server,
            b"GET / HTTP/1.1\r\nAuthorization: Bearer x\r\n\r\n",
        )
        .await;
        assert!(response.ends_with("auth=Bearer x"), "{response}");
    }
}

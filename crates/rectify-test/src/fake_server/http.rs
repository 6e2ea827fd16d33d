//! Hand-written HTTP/1.1, so that faults such as a reset mid-body are possible.

use std::fmt::Write as _;
use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::RecordedRequest;
use super::reply::{Fault, Reply};

/// The largest request head accepted.
const MAX_HEAD: usize = 64 * 1024;
/// The largest request body accepted.
const MAX_BODY: usize = 32 * 1024 * 1024;

/// Reads one request (head and `content-length` body). `Ok(None)` when the client closed first.
pub(crate) async fn read_request(stream: &mut TcpStream) -> io::Result<Option<RecordedRequest>> {
    let mut buffer = Vec::new();
    let head_end = loop {
        if let Some(end) = find(&buffer, b"\r\n\r\n") {
            break end;
        }
        if buffer.len() > MAX_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request head too large",
            ));
        }
        let mut chunk = [0u8; 8192];
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(chunk.get(..read).unwrap_or_default());
    };
    let head = String::from_utf8_lossy(buffer.get(..head_end).unwrap_or_default()).into_owned();
    let mut request = parse_head(&head)?;
    let length: usize = request
        .header("content-length")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    if length > MAX_BODY {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "request body too large",
        ));
    }
    let mut body = buffer.get(head_end + 4..).unwrap_or_default().to_vec();
    while body.len() < length {
        let mut chunk = vec![0u8; (length - body.len()).min(64 * 1024)];
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            break;
        }
        body.extend_from_slice(chunk.get(..read).unwrap_or_default());
    }
    body.truncate(length);
    request.body = body;
    Ok(Some(request))
}

fn parse_head(head: &str) -> io::Result<RecordedRequest> {
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad request line",
        ));
    };
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Ok(RecordedRequest {
        method: method.to_owned(),
        path: path.to_owned(),
        headers,
        body: Vec::new(),
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Writes `reply` (with its fault) and closes the connection.
pub(crate) async fn write_reply(
    stream: &mut TcpStream,
    reply: &Reply,
    request: &RecordedRequest,
) -> io::Result<()> {
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let body = if reply.echo_headers {
        echo(&reply.body, request)
    } else {
        reply.body.clone()
    };
    match reply.fault {
        Some(Fault::Hang) => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(())
        }
        Some(Fault::CloseWithoutResponse) => Ok(()),
        Some(Fault::Trickle) => {
            write_head(stream, reply, Some(body.len())).await?;
            for byte in &body {
                stream.write_all(std::slice::from_ref(byte)).await?;
                stream.flush().await?;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            stream.shutdown().await
        }
        Some(Fault::CutChunkedStream) => write_cut_chunked(stream, reply, &body).await,
        Some(Fault::ResetMidBody) => {
            write_head(stream, reply, Some(body.len())).await?;
            stream
                .write_all(body.get(..body.len() / 2).unwrap_or_default())
                .await?;
            stream.flush().await?;
            stream.set_zero_linger()?;
            Ok(())
        }
        Some(Fault::TruncateBody) => {
            write_head(stream, reply, Some(body.len())).await?;
            stream
                .write_all(body.get(..body.len() / 2).unwrap_or_default())
                .await?;
            stream.shutdown().await
        }
        None => {
            write_head(stream, reply, Some(body.len())).await?;
            stream.write_all(&body).await?;
            stream.shutdown().await
        }
    }
}

async fn write_cut_chunked(stream: &mut TcpStream, reply: &Reply, body: &[u8]) -> io::Result<()> {
    write_head(stream, reply, None).await?;
    let half = body.get(..body.len() / 2).unwrap_or_default();
    stream
        .write_all(format!("{:x}\r\n", half.len()).as_bytes())
        .await?;
    stream.write_all(half).await?;
    stream.write_all(b"\r\n").await?;
    stream.shutdown().await
}

async fn write_head(
    stream: &mut TcpStream,
    reply: &Reply,
    length: Option<usize>,
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in &reply.headers {
        let _ = write!(head, "{name}: {value}\r\n");
    }
    match length {
        Some(length) => {
            let _ = write!(head, "content-length: {length}\r\n");
        }
        None => head.push_str("transfer-encoding: chunked\r\n"),
    }
    head.push_str("connection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await
}

fn echo(body: &[u8], request: &RecordedRequest) -> Vec<u8> {
    let mut text = String::from_utf8_lossy(body).into_owned();
    for (name, value) in &request.headers {
        text = text.replace(&format!("{{{{header:{name}}}}}"), value);
    }
    text.into_bytes()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        418 => "I'm a teapot",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

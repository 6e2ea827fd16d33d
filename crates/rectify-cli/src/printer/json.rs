//! Writing JSON documents (the wire formats of `rectify::wire`) and text on stdout.

/// Writes `text` on stdout (a closed pipe is not an error).
#[cfg(feature = "workflow")]
pub fn print_text(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let write = || {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()
    };
    crate::exit::pipe_closed_ok(write())
}

/// Writes `value` as one JSON document and a newline on stdout.
pub fn print<T: serde::Serialize>(value: &T) -> std::io::Result<()> {
    use std::io::Write;
    let write = || {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, value)?;
        writeln!(out)?;
        out.flush()
    };
    crate::exit::pipe_closed_ok(write())
}

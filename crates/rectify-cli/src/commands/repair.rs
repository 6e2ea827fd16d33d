//! `rectify repair`: extract the payload of model output and repair it deterministically.

use std::io::Write;

use anyhow::Result;
use rectify::parse::Limits;
use rectify::repair::{JsonStyle, RepairOptions, RepairedText};
use rectify::{Applicability, Document, Format, Repair, SpanMap};
use serde_json::Value;

use crate::args::{RepairArgs, RepairOutput};
use crate::exit::ExitStatus;
use crate::input;
use crate::printer::human::HumanPrinter;
use crate::printer::json::print;

/// The payload format a file's extension names: `.json` and `.yaml`/`.yml` (a `.md` or `.txt`
/// file is model output whose payload is detected).
fn payload_format(file: &str) -> Option<Format> {
    match Format::from_path(file)? {
        f @ (Format::Json | Format::Yaml) => Some(f),
        _ => None,
    }
}

/// Runs `rectify repair`.
pub fn run(args: &RepairArgs) -> Result<ExitStatus> {
    let limits = Limits::default();
    let mut options = RepairOptions::default()
        .with_unsafe(args.allow_unsafe)
        .with_strict(args.strict)
        .with_format(args.format.or_else(|| payload_format(&args.file)));
    if let Some(path) = &args.schema {
        options = options.with_schema(input::read_config_document(path, "schema", &limits)?.value);
    }
    let source = input::read_source(&args.file, &limits)?;
    let valid = match args.output {
        RepairOutput::Json => {
            let repaired = rectify::repair::repair_bytes(&source.bytes, &options);
            print(&rectify::wire::RepairWire::from(&repaired))?;
            repaired.is_valid()
        }
        RepairOutput::Value => {
            // Text to text: the repaired document is written without building a value
            // (a schema still goes through the value inside the library).
            let repaired =
                rectify::repair::repair_bytes_to_json(&source.bytes, &options, JsonStyle::Pretty);
            print_human(args, &repaired, source.bytes)?;
            repaired.is_valid()
        }
    };
    Ok(if valid {
        ExitStatus::Success
    } else {
        ExitStatus::Invalid
    })
}

/// Prints the repairs and diagnostics to stderr and the repaired document to stdout. `source`
/// becomes the document the diagnostics' code frames quote, only when one has a span (a copy
/// of a 10 MB answer made for nothing was 5–10% of `rectify repair`'s time, issue 35).
fn print_human(args: &RepairArgs, repaired: &RepairedText, source: Vec<u8>) -> Result<()> {
    let name = if args.file == "-" {
        "<stdin>"
    } else {
        &args.file
    };
    write_repairs(&repaired.repairs)?;
    if !repaired.diagnostics.is_empty() {
        let framed = repaired
            .diagnostics
            .iter()
            .any(|d| d.location.span.is_some());
        let doc = framed.then(|| {
            let text = String::from_utf8(source)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            Document::new(Format::Text, text, Value::Null, SpanMap::default())
        });
        HumanPrinter::stderr().print(&repaired.diagnostics, name, doc.as_ref())?;
    }
    if let Some(text) = &repaired.json {
        let write = || {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{text}")?;
            out.flush()
        };
        crate::exit::pipe_closed_ok(write())?;
    }
    Ok(())
}

/// Writes one line per repair ([`Described`]) to stderr, through one buffer: stderr is
/// unbuffered, and each line was a `String` and two `write` calls (issue 35).
pub(crate) fn write_repairs(repairs: &[Repair]) -> std::io::Result<()> {
    if repairs.is_empty() {
        return Ok(());
    }
    let mut err = std::io::BufWriter::with_capacity(64 * 1024, std::io::stderr().lock());
    for r in repairs {
        writeln!(err, "{}", Described(r))?;
    }
    err.flush()
}

/// A repair as one line: `repaired[json.trailing_comma] 3:14: `,]` → `]``, with
/// `(unsafe)` for unsafe repairs.
pub(crate) struct Described<'a>(pub &'a Repair);

impl std::fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = self.0;
        write!(f, "repaired[{}]", r.code)?;
        if let Some(s) = r.location.span {
            write!(f, " {}:{}", s.line, s.column)?;
        }
        if !(r.before.is_empty() && r.after.is_empty()) {
            write!(f, ": `{}` → `{}`", r.before, r.after)?;
        }
        if r.applicability == Applicability::Unsafe {
            f.write_str(" (unsafe)")?;
        }
        Ok(())
    }
}

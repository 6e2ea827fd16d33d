//! `rectify repair`: extract the payload of model output and repair it deterministically.

use std::io::Write;

use anyhow::Result;
use rectify_core::{Applicability, Document, Format, Repair, SpanMap};
use rectify_parse::Limits;
use rectify_repair::{JsonStyle, RepairOptions, Repaired, RepairedText};
use serde::Serialize;
use serde_json::Value;

use crate::args::{RepairArgs, RepairOutput};
use crate::exit::ExitStatus;
use crate::input;
use crate::printer::human::HumanPrinter;
use crate::printer::json::{WireDiagnostic, print};

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
            let repaired = rectify_repair::repair_bytes(&source.bytes, &options);
            print(&RepairResult::new(&repaired))?;
            repaired.is_valid()
        }
        RepairOutput::Value => {
            // Text to text: the repaired document is written without building a value
            // (a schema still goes through the value inside the library).
            let repaired =
                rectify_repair::repair_bytes_to_json(&source.bytes, &options, JsonStyle::Pretty);
            let text = String::from_utf8_lossy(&source.bytes).into_owned();
            let doc = Document::new(Format::Text, text, Value::Null, SpanMap::default());
            print_human(args, &repaired, &doc)?;
            repaired.is_valid()
        }
    };
    Ok(if valid {
        ExitStatus::Success
    } else {
        ExitStatus::Invalid
    })
}

fn print_human(args: &RepairArgs, repaired: &RepairedText, doc: &Document) -> Result<()> {
    let name = if args.file == "-" {
        "<stdin>"
    } else {
        &args.file
    };
    let mut err = std::io::stderr().lock();
    for r in &repaired.repairs {
        writeln!(err, "{}", describe_repair(r))?;
    }
    drop(err);
    if !repaired.diagnostics.is_empty() {
        HumanPrinter::stderr().print(&repaired.diagnostics, name, Some(doc))?;
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

/// `repaired[json.trailing_comma] 3:14 `,]` → `]``, with `(unsafe)` for unsafe repairs.
pub(crate) fn describe_repair(r: &Repair) -> String {
    let at = r
        .location
        .span
        .map(|s| format!(" {}:{}", s.line, s.column))
        .unwrap_or_default();
    let unsafe_note = if r.applicability == Applicability::Unsafe {
        " (unsafe)"
    } else {
        ""
    };
    let change = if r.before.is_empty() && r.after.is_empty() {
        String::new()
    } else {
        format!(": `{}` → `{}`", r.before, r.after)
    };
    format!("repaired[{}]{at}{change}{unsafe_note}", r.code)
}

/// The `--output json` document of `rectify repair`.
#[derive(Serialize)]
struct RepairResult<'a> {
    valid: bool,
    value: Option<&'a Value>,
    diagnostics: Vec<WireDiagnostic<'a>>,
    repairs: &'a [Repair],
}

impl<'a> RepairResult<'a> {
    fn new(r: &'a Repaired) -> Self {
        RepairResult {
            valid: r.is_valid(),
            value: r.value.as_ref(),
            diagnostics: r
                .diagnostics
                .iter()
                .map(WireDiagnostic::from)
                .collect::<Vec<_>>(),
            repairs: &r.repairs,
        }
    }
}

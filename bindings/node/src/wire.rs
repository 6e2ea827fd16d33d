//! The JSON shapes handed to JavaScript: diagnostics and repairs as `rectify check --output
//! json` prints them (`docs/output/*.schema.json`), and the outcome of a run of the loop. Every
//! result crosses into JavaScript as one JSON text (`JSON.parse` builds the objects faster
//! than setting their properties one by one through N-API).

use rectify::engine::Outcome;
use rectify::{Applicability, Diagnostic, Location, Repair, Severity};
use serde_json::{Map, Value, json};

/// A diagnostic in the wire shape (`severity`, `code`, `path`, `pointer`, `line`, `column`,
/// `message`, `expected`, `received`, `source`).
pub fn diagnostic(d: &Diagnostic) -> Value {
    json!({
        "severity": d.severity.to_string(),
        "code": d.code,
        "path": d.location.path,
        "pointer": d.location.pointer,
        "line": d.location.span.map(|s| s.line),
        "column": d.location.span.map(|s| s.column),
        "message": d.message,
        "expected": d.expected,
        "received": d.received,
        "source": d.source,
    })
}

/// Diagnostics in the wire shape.
pub fn diagnostics(ds: &[Diagnostic]) -> Value {
    Value::Array(ds.iter().map(diagnostic).collect())
}

/// Repairs in the wire shape (`code`, `location`, `before`, `after`, `applicability`).
pub fn repairs(rs: &[Repair]) -> Value {
    Value::Array(
        rs.iter()
            .map(|r| {
                let mut location = Map::new();
                location.insert("pointer".into(), r.location.pointer.clone().into());
                location.insert("path".into(), r.location.path.clone().into());
                if let Some(s) = r.location.span {
                    location.insert(
                        "span".into(),
                        json!({"start": s.start, "end": s.end, "line": s.line, "column": s.column}),
                    );
                }
                json!({
                    "code": r.code,
                    "location": location,
                    "before": r.before,
                    "after": r.after,
                    "applicability": match r.applicability {
                        Applicability::Safe => "safe",
                        Applicability::Unsafe => "unsafe",
                    },
                })
            })
            .collect(),
    )
}

/// A problem a JavaScript validator reported (`message`, and optionally `pointer`, `code`,
/// `severity`, `expected`, `received`) as a diagnostic.
pub fn diagnostic_from_js(v: &Value) -> Diagnostic {
    let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let message = text("message").unwrap_or_else(|| "the validator reported a problem".into());
    let location = Location::from_pointer(&text("pointer").unwrap_or_default());
    let code = text("code").unwrap_or_else(|| "validator.failed".into());
    let mut d = if text("severity").as_deref() == Some("warning") {
        Diagnostic::warning(code, location, message)
    } else {
        Diagnostic::error(code, location, message)
    };
    d.expected = text("expected");
    d.received = text("received");
    d
}

/// An outcome: `status` (`valid`, `exhausted`, `refused`, `provider_failed`), `value`, `best`
/// (`attempt`, `value`, `raw`, `diagnostics`), `diagnostics`, `repairs`, `message`, `config`
/// (a provider failure that is a configuration error), `attempts` (`number`, `provider`,
/// `model`, `raw`, `value`, `diagnostics`, `repairs`, `feedback`, `latency_ms`), `elapsed_ms`.
pub fn outcome(outcome: &Outcome<Value>) -> Value {
    let mut out = Map::new();
    out.insert("status".into(), outcome.status().into());
    out.insert("value".into(), Value::Null);
    out.insert("best".into(), Value::Null);
    out.insert("diagnostics".into(), Value::Array(Vec::new()));
    out.insert("repairs".into(), Value::Array(Vec::new()));
    out.insert("message".into(), Value::Null);
    out.insert("config".into(), false.into());
    match outcome {
        Outcome::Valid {
            value, repairs: r, ..
        } => {
            out.insert("value".into(), value.clone());
            out.insert("repairs".into(), repairs(r));
        }
        Outcome::Exhausted {
            best,
            diagnostics: ds,
            limit,
            ..
        } => {
            if let Some(best) = best {
                out.insert(
                    "best".into(),
                    json!({
                        "attempt": best.attempt,
                        "value": best.value,
                        "raw": best.raw,
                        "diagnostics": diagnostics(&best.diagnostics),
                    }),
                );
            }
            out.insert("diagnostics".into(), diagnostics(ds));
            out.insert("message".into(), limit.to_string().into());
        }
        Outcome::Refused { message, .. } => {
            out.insert("message".into(), message.clone().into());
        }
        Outcome::ProviderFailed { error, .. } => {
            out.insert("message".into(), error.to_string().into());
            out.insert("config".into(), error.is_config().into());
        }
        _ => {}
    }
    let ledger = outcome.ledger();
    let attempts = ledger
        .attempts
        .iter()
        .map(|a| {
            json!({
                "number": a.number,
                "provider": a.provider,
                "model": a.model,
                "raw": a.raw,
                "value": a.report.value,
                "diagnostics": diagnostics(&a.report.diagnostics),
                "repairs": repairs(&a.report.repairs),
                "feedback": a.feedback,
                "latency_ms": a.latency.as_secs_f64() * 1000.0,
            })
        })
        .collect();
    out.insert("attempts".into(), Value::Array(attempts));
    out.insert(
        "elapsed_ms".into(),
        (ledger.totals.elapsed.as_secs_f64() * 1000.0).into(),
    );
    Value::Object(out)
}

/// True when `ds` holds an error (not only warnings).
pub fn has_error(ds: &[Diagnostic]) -> bool {
    ds.iter().any(|d| d.severity == Severity::Error)
}

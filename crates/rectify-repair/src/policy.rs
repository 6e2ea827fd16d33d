//! The safety policy and the diagnostics the pipeline itself reports.

use rectify_core::{Applicability, Diagnostic, Location, Repair};

use crate::locate::Locator;
use crate::rules::RepairRule;
use crate::{RepairOptions, Repaired};

/// Applies the safety policy: in strict mode every repair is an error, otherwise unsafe
/// repairs are errors unless allowed. Either way an error withdraws the value.
pub(crate) fn enforce(out: &mut Repaired, options: &RepairOptions) {
    let refused = refusals(&out.repairs, options);
    if !refused.is_empty() {
        out.value = None;
        out.diagnostics.extend(refused);
    }
}

/// The error diagnostics for the repairs the options do not allow.
pub(crate) fn refusals(repairs: &[Repair], options: &RepairOptions) -> Vec<Diagnostic> {
    repairs
        .iter()
        .filter(|r| refuses(r.applicability, options))
        .map(|r| refusal(r, options.strict))
        .collect()
}

/// True when the options do not allow a repair by `rule`.
pub(crate) fn refused(rule: RepairRule, options: &RepairOptions) -> bool {
    refuses(rule.applicability(), options)
}

fn refuses(applicability: Applicability, options: &RepairOptions) -> bool {
    options.strict || (applicability == Applicability::Unsafe && !options.allow_unsafe)
}

pub(crate) fn refusal(r: &Repair, strict: bool) -> Diagnostic {
    let (code, message) = if strict {
        (
            "repair.strict",
            format!("strict mode: the text needs repair `{}`", r.code),
        )
    } else {
        (
            "repair.unsafe",
            format!(
                "the text needs unsafe repair `{}`, which may change its meaning; allow unsafe repairs to apply it",
                r.code
            ),
        )
    };
    let mut d = Diagnostic::error(code, r.location.clone(), message).source("repair");
    if !r.before.is_empty() {
        d = d.received(r.before.clone());
    }
    if !r.after.is_empty() {
        d = d.expected(r.after.clone());
    }
    d
}

pub(crate) fn unrecorded(n: usize) -> Diagnostic {
    Diagnostic::warning(
        "repair.unrecorded",
        Location::root(),
        format!("{n} more repairs were applied but not listed (the list is capped)"),
    )
    .source("repair")
}

pub(crate) fn no_payload(text: &str) -> Diagnostic {
    let what = if text.trim().is_empty() {
        "the text is empty"
    } else {
        "no JSON value found in the text"
    };
    Diagnostic::error("extract.no_payload", Location::root(), what)
        .expected("a JSON object or array")
        .source("repair")
}

pub(crate) fn truncated(doc: &Locator<'_>, end: usize) -> Diagnostic {
    Diagnostic::warning(
        "repair.truncated",
        Location::from_span(doc.span(end, end)),
        "the text ends inside a value; it was closed where it stopped",
    )
    .source("repair")
}

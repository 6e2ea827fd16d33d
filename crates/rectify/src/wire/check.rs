//! `rectify check` and `rectify repair` on the wire.

use serde::Serialize;
use serde_json::Value;

use super::diagnostic::{DiagnosticWire, all};
use crate::repair::Repaired;
use crate::{Diagnostic, Judgement, Repair};

/// The result of `rectify check --output json` (`docs/output/check.schema.json`).
#[derive(Debug, Clone, Serialize)]
pub struct CheckWire<'a> {
    valid: bool,
    diagnostics: Vec<DiagnosticWire<'a>>,
    repairs: &'a [Repair],
}

impl<'a> CheckWire<'a> {
    /// A check that is `valid` or not, with its diagnostics and the repairs made before it.
    pub fn new(valid: bool, diagnostics: &'a [Diagnostic], repairs: &'a [Repair]) -> Self {
        CheckWire {
            valid,
            diagnostics: all(diagnostics),
            repairs,
        }
    }

    /// The judge's verdict on one text.
    pub fn from_judgement(judgement: &'a Judgement) -> Self {
        CheckWire::new(
            judgement.is_valid(),
            &judgement.diagnostics,
            &judgement.repairs,
        )
    }
}

/// The result of `rectify repair --output json` (`docs/output/repair.schema.json`).
#[derive(Debug, Clone, Serialize)]
pub struct RepairWire<'a> {
    valid: bool,
    value: Option<&'a Value>,
    diagnostics: Vec<DiagnosticWire<'a>>,
    repairs: &'a [Repair],
}

impl<'a> From<&'a Repaired> for RepairWire<'a> {
    fn from(r: &'a Repaired) -> Self {
        RepairWire {
            valid: r.is_valid(),
            value: r.value.as_ref(),
            diagnostics: all(&r.diagnostics),
            repairs: &r.repairs,
        }
    }
}

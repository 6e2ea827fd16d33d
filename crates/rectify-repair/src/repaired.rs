use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use rectify_core::{Diagnostic, Format, Repair, Report};
use serde_json::Value;

use crate::log::Log;

/// The result of [`crate::repair`]: the recovered value (if any), every candidate found, the
/// repairs and the diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Repaired {
    /// The value, when one could be recovered with the repairs the options allow.
    pub value: Option<Value>,
    /// When the text held several top-level values (several fences, values one after the
    /// other), all of them in order, before coercion; empty when it held one (`value`).
    pub candidates: Vec<Value>,
    /// The repairs applied to obtain `value`; when `value` is `None` because a repair was not
    /// allowed (unsafe or strict), the repairs that would have been applied.
    pub repairs: Vec<Repair>,
    /// Errors (no payload, too deep, repair not allowed, schema mismatch) and warnings
    /// (truncated text, ambiguous choice).
    pub diagnostics: Vec<Diagnostic>,
    /// The format the payload was read as.
    pub format: Option<Format>,
    /// Length of the text the value came from: the output buffer is sized from it.
    pub(crate) source_len: usize,
    /// The YAML the value was read from (the payload after the line repairs), which
    /// [`Repaired::to_yaml`] edits in place.
    pub(crate) yaml_source: Option<String>,
}

impl Repaired {
    /// True when a value was recovered and no diagnostic is an error.
    pub fn is_valid(&self) -> bool {
        self.value.is_some() && !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// True when the text needed no repair at all.
    pub fn is_unchanged(&self) -> bool {
        self.repairs.is_empty()
    }

    /// The shared report: value, diagnostics and repairs.
    pub fn into_report(self) -> Report {
        Report::new(self.value, self.diagnostics, self.repairs)
    }

    /// The repaired value as compact JSON text. Numbers keep their text exactly as the
    /// repair left it (`1.50` stays `1.50`); `None` when no value was recovered.
    pub fn to_json(&self) -> Option<String> {
        let value = self.value.as_ref()?;
        let mut out = Vec::with_capacity(self.source_len + self.source_len / 8 + 16);
        serde_json::to_writer(&mut out, value).ok()?;
        String::from_utf8(out).ok()
    }

    /// The repaired value as YAML text ending with a line break, so that a repaired YAML
    /// document is written back as YAML; `None` when no value was recovered.
    ///
    /// When the payload was read as YAML, the text is that payload as written (without its
    /// fence or the prose around it) with only what the repairs changed: the lines the line
    /// repairs fixed, and the scalars coerced to the schema rewritten in place, so lines keep
    /// their numbers and comments stay. When that is not possible (the payload was JSON, or
    /// the repair changed the value's shape) the value is written in block style. Either way
    /// the text reads back to the value.
    ///
    /// ```
    /// use rectify_core::Format;
    /// use rectify_repair::{repair, RepairOptions};
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object", "properties": {"count": {"type": "integer"}}});
    /// let options = RepairOptions::default().with_format(Some(Format::Yaml)).with_schema(schema);
    /// let out = repair("# plan\ntitle: Step 1: setup\ncount: \"3\"\n", &options);
    /// assert_eq!(
    ///     out.to_yaml().unwrap(),
    ///     "# plan\ntitle: \"Step 1: setup\"\ncount: 3\n"
    /// );
    /// ```
    pub fn to_yaml(&self) -> Option<String> {
        let value = self.value.as_ref()?;
        Some(crate::yaml_edit::write(self.yaml_source.as_deref(), value))
    }

    /// The repaired value as JSON text indented by two spaces, numbers kept exactly.
    pub fn to_json_pretty(&self) -> Option<String> {
        let value = self.value.as_ref()?;
        let mut out = Vec::with_capacity(self.source_len + self.source_len / 2 + 16);
        serde_json::to_writer_pretty(&mut out, value).ok()?;
        String::from_utf8(out).ok()
    }
}

/// The result of [`crate::repair_to_json`]: the repaired document as JSON text, with the same
/// repairs and diagnostics [`crate::repair`] gives for the same text and options.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct RepairedText {
    /// The value as JSON text (compact, or indented when asked), exactly what
    /// [`Repaired::to_json`] (or [`Repaired::to_json_pretty`]) gives; `None` when no value
    /// could be recovered with the repairs the options allow.
    pub json: Option<String>,
    /// The repairs, as in [`Repaired::repairs`].
    pub repairs: Repairs,
    /// Errors and warnings, as in [`Repaired::diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
    /// The format the payload was read as.
    pub format: Option<Format>,
}

impl RepairedText {
    /// True when a value was recovered and no diagnostic is an error.
    pub fn is_valid(&self) -> bool {
        self.json.is_some() && !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// True when the text needed no repair at all.
    pub fn is_unchanged(&self) -> bool {
        self.repairs.is_empty()
    }

    /// The text form of a [`Repaired`] value.
    pub(crate) fn from_value(out: Repaired, pretty: bool) -> Self {
        let json = if pretty {
            out.to_json_pretty()
        } else {
            out.to_json()
        };
        RepairedText {
            json,
            repairs: Repairs::from(out.repairs),
            diagnostics: out.diagnostics,
            format: out.format,
        }
    }
}

/// The repairs of a [`RepairedText`], in the order they were made; it dereferences to
/// `[Repair]`.
///
/// They are kept as compact records (a rule, a located span, the pointer and snippets in one
/// buffer) while the text is repaired, and built into [`Repair`]s the first time they are
/// read, so a caller that only wants the repaired text does not pay for the records;
/// [`Repairs::len`] and [`Repairs::is_empty`] do not build them.
#[derive(Clone, Default)]
pub struct Repairs {
    log: Log,
    built: OnceLock<Vec<Repair>>,
}

impl Repairs {
    /// The repairs of a located log.
    pub(crate) fn from_log(log: Log) -> Self {
        Repairs {
            log,
            built: OnceLock::new(),
        }
    }

    /// How many repairs there are.
    pub fn len(&self) -> usize {
        self.built.get().map_or(self.log.len(), Vec::len)
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The repairs as a vector.
    pub fn into_vec(mut self) -> Vec<Repair> {
        self.built.take().unwrap_or_else(|| self.log.build())
    }

    /// Puts `repair` before the others.
    pub(crate) fn insert_first(&mut self, repair: Repair) {
        let mut built = self.built.take().unwrap_or_else(|| self.log.build());
        built.insert(0, repair);
        self.log = Log::default();
        self.built = OnceLock::from(built);
    }
}

impl Deref for Repairs {
    type Target = [Repair];

    fn deref(&self) -> &[Repair] {
        self.built.get_or_init(|| self.log.build())
    }
}

impl From<Vec<Repair>> for Repairs {
    fn from(repairs: Vec<Repair>) -> Self {
        Repairs {
            log: Log::default(),
            built: OnceLock::from(repairs),
        }
    }
}

impl fmt::Debug for Repairs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Repairs {
    fn eq(&self, other: &Repairs) -> bool {
        **self == **other
    }
}

impl PartialEq<Vec<Repair>> for Repairs {
    fn eq(&self, other: &Vec<Repair>) -> bool {
        **self == **other
    }
}

impl<'a> IntoIterator for &'a Repairs {
    type Item = &'a Repair;
    type IntoIter = std::slice::Iter<'a, Repair>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for Repairs {
    type Item = Repair;
    type IntoIter = std::vec::IntoIter<Repair>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

#[cfg(test)]
mod tests {
    use crate::{RepairOptions, repair, repair_to_json};

    #[test]
    fn repairs_are_counted_without_building_and_built_as_the_value_path_builds_them() {
        let text = "Here: ```json\n{'a': [1, 2,], b: None}\n```";
        let options = RepairOptions::default();
        let out = repair_to_json(text, &options);
        assert_eq!(out.repairs.len(), 5);
        assert!(out.repairs.built.get().is_none(), "len() built the records");
        assert_eq!(out.repairs, repair(text, &options).repairs);
        assert!(out.repairs.built.get().is_some());
        let codes: Vec<&str> = out.repairs.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "extract.code_fence",
                "json.single_quotes",
                "json.trailing_comma",
                "json.unquoted_key",
                "json.python_literal"
            ]
        );
    }

    #[test]
    fn a_repair_put_first_goes_before_the_built_ones() {
        let mut repairs = repair_to_json("[1,]", &RepairOptions::default()).repairs;
        let first = repair("{'a': 1}", &RepairOptions::default())
            .repairs
            .remove(0);
        repairs.insert_first(first.clone());
        assert_eq!(repairs.len(), 2);
        let all = repairs.into_vec();
        assert_eq!(all[0], first);
        assert_eq!(all[1].code, "json.trailing_comma");
    }
}

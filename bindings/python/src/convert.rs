//! Values between Python and Rust, and the wire shapes of diagnostics and repairs (the same
//! fields as the CLI's `--output json`, `docs/output/*.schema.json`).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rectify::{Diagnostic, Location, Repair, Severity};
use serde_json::{Map, Number, Value};

/// Deepest nesting converted from Python (a cycle or a runaway structure stops here).
const MAX_DEPTH: usize = 512;

/// A JSON value as Python objects: objects as `dict` (in order), arrays as `list`, integers
/// of any size as `int`.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => number_to_py(py, n)?,
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

fn number_to_py<'py>(py: Python<'py>, n: &Number) -> PyResult<Bound<'py, PyAny>> {
    if let Some(i) = n.as_i64() {
        return Ok(i.into_pyobject(py)?.into_any());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.into_pyobject(py)?.into_any());
    }
    let text = n.as_str();
    if !text.contains(['.', 'e', 'E']) {
        // An integer beyond 64 bits: Python's `int` holds it exactly.
        return py.get_type::<PyInt>().call1((text,));
    }
    let f = n
        .as_f64()
        .ok_or_else(|| PyValueError::new_err(format!("the number {text} is not a float")))?;
    Ok(PyFloat::new(py, f).into_any())
}

/// A Python value (`dict` with `str` keys, `list`, `tuple`, `str`, `int`, `float`, `bool`,
/// `None`) as JSON.
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_py_depth(obj, 0)
}

fn from_py_depth(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(
            "the value is nested too deeply (or contains itself)",
        ));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        let text = obj.str()?.to_cow()?.into_owned();
        let n: Number = serde_json::from_str(&text)
            .map_err(|e| PyValueError::new_err(format!("the integer {text}: {e}")))?;
        return Ok(Value::Number(n));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Number::from_f64(v).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!("{v} has no JSON form (NaN or infinite)"))
        });
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a JSON object's keys are strings, not {}",
                    type_name(&k)
                ))
            })?;
            map.insert(key.to_cow()?.into_owned(), from_py_depth(&v, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        let mut out = Vec::with_capacity(l.len());
        for item in l.iter() {
            out.push(from_py_depth(&item, depth + 1)?);
        }
        return Ok(Value::Array(out));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        let mut out = Vec::with_capacity(t.len());
        for item in t.iter() {
            out.push(from_py_depth(&item, depth + 1)?);
        }
        return Ok(Value::Array(out));
    }
    Err(PyTypeError::new_err(format!(
        "{} is not a JSON value (dict, list, str, int, float, bool or None)",
        type_name(obj)
    )))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "this object".to_owned(), |n| n.to_string())
}

/// A serialisable wire value (`rectify::wire`) as Python objects.
fn wire_to_py<'py, T: serde::Serialize>(py: Python<'py>, wire: &T) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(wire)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    to_py(py, &value)
}

/// A diagnostic in the wire shape of `rectify check --output json`
/// ([`rectify::wire::DiagnosticWire`]).
pub fn diagnostic_to_py<'py>(py: Python<'py>, d: &Diagnostic) -> PyResult<Bound<'py, PyAny>> {
    wire_to_py(py, &rectify::wire::DiagnosticWire::from(d))
}

/// Diagnostics as a list of wire dicts.
pub fn diagnostics_to_py<'py>(py: Python<'py>, ds: &[Diagnostic]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in ds {
        list.append(diagnostic_to_py(py, d)?)?;
    }
    Ok(list)
}

/// Repairs as a list of wire dicts (`code`, `location`, `before`, `after`, `applicability`),
/// as every `--output json` format gives them.
pub fn repairs_to_py<'py>(py: Python<'py>, repairs: &[Repair]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for r in repairs {
        list.append(wire_to_py(py, r)?)?;
    }
    Ok(list)
}

/// A diagnostic from the dict a Python validator returns: `message` (required), `path` (a
/// JSON Pointer, or a sequence of keys and indexes), `code`, `expected`, `received`.
pub fn diagnostic_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Diagnostic> {
    let dict = obj.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err("a validator's problem is a dict with at least a `message`")
    })?;
    let get = |key: &str| -> PyResult<Option<String>> {
        match dict.get_item(key)? {
            Some(v) if !v.is_none() => Ok(Some(v.str()?.to_cow()?.into_owned())),
            _ => Ok(None),
        }
    };
    let message = get("message")?
        .ok_or_else(|| PyValueError::new_err("a validator's problem needs a `message`"))?;
    let pointer = match dict.get_item("pointer")? {
        Some(p) if !p.is_none() => p.str()?.to_cow()?.into_owned(),
        _ => String::new(),
    };
    let location = Location::from_pointer(&pointer);
    let code = get("code")?.unwrap_or_else(|| "validator.failed".to_owned());
    let severity = match get("severity")?.as_deref() {
        Some("warning") => Severity::Warning,
        _ => Severity::Error,
    };
    let mut d = match severity {
        Severity::Warning => Diagnostic::warning(code, location, message),
        Severity::Error => Diagnostic::error(code, location, message),
    };
    d.expected = get("expected")?;
    d.received = get("received")?;
    Ok(d)
}

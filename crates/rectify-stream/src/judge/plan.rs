//! The schema walked once into nodes: for each place a value can sit, the sub-schema that
//! applies to it whatever else the answer holds, compiled once.

use std::collections::HashMap;

use rectify_check::CompiledSchema;
use rectify_repair::RepairOptions;
use serde_json::{Map, Value};

use super::pattern::PrefixPattern;
use crate::path::Seg;

/// Most `$ref` hops followed from one place.
const MAX_HOPS: usize = 32;
/// Most schema nodes planned (a bound on hostile schemas).
const MAX_NODES: usize = 10_000;

/// The check of a complete value at a node: the same safe repairs as the full judge, then
/// the node's schema.
#[derive(Debug)]
pub(crate) struct NodeCheck {
    pub(crate) repair: RepairOptions,
    pub(crate) schema: CompiledSchema,
}

/// One place in the schema.
#[derive(Debug, Default)]
pub(crate) struct Node {
    pub(crate) check: Option<NodeCheck>,
    props: HashMap<String, usize>,
    prefix_items: Vec<usize>,
    items: Option<usize>,
    /// `maxLength` of a node that takes strings only (no `enum` or `const`).
    pub(crate) max_length: Option<usize>,
    /// `pattern` of such a node, when it can be judged on a prefix.
    pub(crate) pattern: Option<PrefixPattern>,
    /// The types the node's `type` allows, when they leave objects out (no safe repair
    /// turns an object into anything else).
    pub(crate) not_object: Option<String>,
}

/// All nodes, the root first.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    nodes: Vec<Node>,
    /// Whether the root's shape lets a prefix be judged at all.
    pub(crate) enabled: bool,
}

impl Plan {
    /// Walks `root` into nodes; `unsafe_repairs` as the full judge's repair policy.
    pub(crate) fn build(root: &Value, unsafe_repairs: bool) -> Plan {
        let mut builder = Builder {
            root,
            unsafe_repairs,
            plan: Plan::default(),
            seen: HashMap::new(),
        };
        builder.node("#", root, true);
        builder.plan.enabled = enabled(root, resolve(root, root));
        builder.plan
    }

    /// The node for the value at `segs`, if the schema says what applies there.
    pub(crate) fn at<'a>(&self, segs: impl Iterator<Item = Seg<'a>>) -> Option<&Node> {
        let mut node = self.nodes.first()?;
        for seg in segs {
            let next = match seg {
                Seg::Key(key) => node.props.get(key).copied(),
                Seg::Index(i) => node.prefix_items.get(i).copied().or(node.items),
            }?;
            node = self.nodes.get(next)?;
        }
        Some(node)
    }
}

struct Builder<'r> {
    root: &'r Value,
    unsafe_repairs: bool,
    plan: Plan,
    seen: HashMap<*const Value, usize>,
}

impl<'r> Builder<'r> {
    /// The node for `schema` (a `$ref` followed), planned once.
    fn node(&mut self, _at: &str, schema: &'r Value, is_root: bool) -> Option<usize> {
        let schema = resolve(self.root, schema)?;
        if let Some(&id) = self.seen.get(&std::ptr::from_ref(schema)) {
            return Some(id);
        }
        if self.plan.nodes.len() >= MAX_NODES {
            return None;
        }
        let id = self.plan.nodes.len();
        self.seen.insert(std::ptr::from_ref(schema), id);
        self.plan.nodes.push(Node {
            check: if is_root { None } else { self.check(schema) },
            max_length: max_length(schema),
            pattern: pattern(schema),
            not_object: not_object(schema),
            ..Node::default()
        });
        let Value::Object(obj) = schema else {
            return Some(id);
        };
        if allows(obj, "object")
            && let Some(Value::Object(props)) = obj.get("properties")
        {
            for (key, sub) in props {
                if let Some(child) = self.node("", sub, false) {
                    self.plan.nodes[id].props.insert(key.clone(), child);
                }
            }
        }
        if allows(obj, "array") {
            self.items(id, obj);
        }
        Some(id)
    }

    fn items(&mut self, id: usize, obj: &'r Map<String, Value>) {
        let tuple = match (obj.get("prefixItems"), obj.get("items")) {
            (Some(Value::Array(prefix)), _) | (None, Some(Value::Array(prefix))) => Some(prefix),
            _ => None,
        };
        if let Some(prefix) = tuple {
            // A place the schema leaves open stops the walk there (usize::MAX is no node).
            let ids: Vec<usize> = prefix
                .iter()
                .map(|s| self.node("", s, false).unwrap_or(usize::MAX))
                .collect();
            self.plan.nodes[id].prefix_items = ids;
        }
        // Items after a tuple are governed by `items` (2020) or `additionalItems` (draft 7):
        // only the 2020 form is planned.
        if let Some(items @ Value::Object(_)) = obj.get("items") {
            let child = self.node("", items, false);
            self.plan.nodes[id].items = child;
        }
    }

    /// The node's own check: its schema compiled with the root's definitions beside it.
    fn check(&self, schema: &Value) -> Option<NodeCheck> {
        let Value::Object(obj) = schema else {
            return None;
        };
        if !refs_are_definitions(schema) {
            return None;
        }
        let mut own = obj.clone();
        for key in ["$defs", "definitions", "$schema"] {
            if let Some(defs) = self.root.get(key)
                && !own.contains_key(key)
            {
                own.insert(key.to_owned(), defs.clone());
            }
        }
        let own = Value::Object(own);
        let compiled = CompiledSchema::compile(&own).ok()?;
        let repair = RepairOptions::default()
            .with_schema(own)
            .with_unsafe(self.unsafe_repairs);
        Some(NodeCheck {
            repair,
            schema: compiled,
        })
    }
}

/// `schema` with its `$ref`s followed (local ones only); `None` when one cannot be.
fn resolve<'r>(root: &'r Value, mut schema: &'r Value) -> Option<&'r Value> {
    for _ in 0..MAX_HOPS {
        let Some(target) = schema.get("$ref") else {
            return Some(schema);
        };
        let fragment = target.as_str()?.strip_prefix('#')?;
        schema = root.pointer(fragment)?;
    }
    None
}

/// True when the schema's `type` is absent or names `kind`.
fn allows(obj: &Map<String, Value>, kind: &str) -> bool {
    match obj.get("type") {
        None => true,
        Some(Value::String(t)) => t == kind,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == kind),
        Some(_) => false,
    }
}

/// The object of a schema that takes strings only and lists no values (whose strings no
/// safe repair changes).
fn strings_only(schema: &Value) -> Option<&Map<String, Value>> {
    let obj = schema.as_object()?;
    let only_strings = match obj.get("type") {
        Some(Value::String(t)) => t == "string",
        _ => false,
    };
    (only_strings && !obj.contains_key("enum") && !obj.contains_key("const")).then_some(obj)
}

/// `maxLength` of a schema that takes strings only and lists no values.
fn max_length(schema: &Value) -> Option<usize> {
    strings_only(schema)?
        .get("maxLength")?
        .as_u64()
        .map(|n| n as usize)
}

/// `pattern` of a schema that takes strings only and lists no values, compiled.
fn pattern(schema: &Value) -> Option<PrefixPattern> {
    PrefixPattern::compile(strings_only(schema)?.get("pattern")?.as_str()?)
}

/// The `type` of a schema that leaves objects out, as written.
fn not_object(schema: &Value) -> Option<String> {
    let obj = schema.as_object()?;
    let types = obj.get("type")?;
    (!allows(obj, "object")).then(|| types.to_string())
}

/// True when every `$ref` in `schema` points into the root's definitions (which the node's
/// own compiled schema carries).
fn refs_are_definitions(schema: &Value) -> bool {
    match schema {
        Value::Object(obj) => obj.iter().all(|(key, v)| {
            if key == "$ref" {
                v.as_str()
                    .is_some_and(|r| r.starts_with("#/$defs/") || r.starts_with("#/definitions/"))
            } else {
                refs_are_definitions(v)
            }
        }),
        Value::Array(items) => items.iter().all(refs_are_definitions),
        _ => true,
    }
}

/// Whether a prefix may be judged at all: the repair reads the whole answer as the root's
/// value when the root wants a scalar, a list of scalars or an object of one property (see
/// `rectify_repair`'s text-as-root), so only an object of two or more properties, or an
/// array of objects or arrays, is judged early.
fn enabled(root: &Value, schema: Option<&Value>) -> bool {
    let Some(Value::Object(obj)) = schema else {
        return false;
    };
    let props = obj
        .get("properties")
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    if allows(obj, "object") && !allows_any_scalar(obj) && props >= 2 {
        return true;
    }
    let items = obj.get("items").and_then(|i| resolve(root, i));
    obj.get("type").is_some_and(|t| t == "array")
        && items
            .and_then(|i| i.get("type"))
            .is_some_and(|t| t == "object" || t == "array")
}

/// True when the `type` is absent or names a scalar type.
fn allows_any_scalar(obj: &Map<String, Value>) -> bool {
    ["string", "number", "integer", "boolean", "null"]
        .iter()
        .any(|kind| obj.get("type").is_some() && allows(obj, kind))
        || obj.get("type").is_none() && !obj.contains_key("properties")
}

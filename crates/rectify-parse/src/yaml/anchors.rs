//! Anchors and the budget that bounds alias expansion.
//!
//! JSON has no references, so an alias becomes a copy of the anchored value. Every node copied
//! for an alias counts against `Limits::max_alias_nodes` and every byte of copied text against
//! `Limits::max_bytes`, over the whole document; the budget is checked before copying, so an
//! alias bomb is refused after at most that much work. Keeping the anchored value itself costs
//! a copy too: for an anchor inside another anchored node (nested copies) that copy is charged
//! to the same budget, so memory stays bounded by the input plus the budget.

use std::collections::HashMap;

use serde_json::Value;

use crate::Limits;

/// Nodes and bytes of text produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// Values (scalars and containers).
    pub(crate) nodes: usize,
    /// Bytes of string text (keys and string scalars).
    pub(crate) bytes: usize,
}

impl Usage {
    /// What was produced since `earlier`.
    pub(crate) fn since(self, earlier: Usage) -> Usage {
        Usage {
            nodes: self.nodes.saturating_sub(earlier.nodes),
            bytes: self.bytes.saturating_sub(earlier.bytes),
        }
    }

    /// Adds `other`.
    pub(crate) fn add(&mut self, other: Usage) {
        self.nodes = self.nodes.saturating_add(other.nodes);
        self.bytes = self.bytes.saturating_add(other.bytes);
    }
}

/// The value of a finished anchored node.
#[derive(Debug)]
pub(crate) struct Anchored {
    /// The value, aliases inside it already expanded.
    pub(crate) value: Value,
    /// How much it costs to copy.
    pub(crate) usage: Usage,
    /// Nesting height: 0 for a scalar, 1 for a container of scalars.
    pub(crate) height: usize,
}

/// Why the budget refused a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// More than this many nodes.
    Nodes(usize),
    /// More than this many bytes of text.
    Bytes(usize),
}

/// Anchored values by saphyr's anchor id, and the budget spent on copies.
#[derive(Debug, Default)]
pub(crate) struct Anchors {
    stored: HashMap<usize, Anchored>,
    open: usize,
    spent: Usage,
}

impl Anchors {
    /// An anchored container was opened.
    pub(crate) fn opened(&mut self) {
        self.open += 1;
    }

    /// An anchored container was closed.
    pub(crate) fn closed(&mut self) {
        self.open = self.open.saturating_sub(1);
    }

    /// Checks that a copy of `usage` for a new anchor fits the budget (only charged for
    /// anchors nested in another open anchored container).
    pub(crate) fn admit(&mut self, usage: Usage, limits: &Limits) -> Result<(), Refused> {
        if self.open > 0 {
            self.charge(usage, limits)?;
        }
        Ok(())
    }

    /// Keeps the value of anchor `id`.
    pub(crate) fn insert(&mut self, id: usize, anchored: Anchored) {
        self.stored.insert(id, anchored);
    }

    /// The value an alias to `id` copies, after charging the copy to the budget; `None` when
    /// the anchor is not finished (an alias inside the node it names).
    pub(crate) fn expand(
        &mut self,
        id: usize,
        limits: &Limits,
    ) -> Result<Option<&Anchored>, Refused> {
        let Some(usage) = self.stored.get(&id).map(|a| a.usage) else {
            return Ok(None);
        };
        self.charge(usage, limits)?;
        Ok(self.stored.get(&id))
    }

    fn charge(&mut self, usage: Usage, limits: &Limits) -> Result<(), Refused> {
        self.spent.add(usage);
        if self.spent.nodes > limits.max_alias_nodes {
            return Err(Refused::Nodes(limits.max_alias_nodes));
        }
        if self.spent.bytes > limits.max_bytes {
            return Err(Refused::Bytes(limits.max_bytes));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_is_charged_and_refused_past_the_limit() {
        let limits = Limits {
            max_alias_nodes: 10,
            ..Limits::default()
        };
        let mut anchors = Anchors::default();
        let usage = Usage { nodes: 4, bytes: 3 };
        anchors.insert(
            1,
            Anchored {
                value: Value::Null,
                usage,
                height: 1,
            },
        );
        assert!(anchors.expand(1, &limits).unwrap().is_some());
        assert!(anchors.expand(1, &limits).unwrap().is_some());
        assert_eq!(anchors.expand(1, &limits).unwrap_err(), Refused::Nodes(10));
        assert!(anchors.expand(2, &limits).unwrap().is_none());
    }

    #[test]
    fn only_nested_anchor_copies_are_charged() {
        let limits = Limits {
            max_alias_nodes: 5,
            ..Limits::default()
        };
        let mut anchors = Anchors::default();
        let big = Usage {
            nodes: 100,
            bytes: 0,
        };
        assert_eq!(anchors.admit(big, &limits), Ok(()));
        anchors.opened();
        assert_eq!(anchors.admit(big, &limits), Err(Refused::Nodes(5)));
    }
}

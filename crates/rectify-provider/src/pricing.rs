//! Token prices, for cost budgets.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Usage;

/// The price of one model in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    /// Dollars per million input tokens.
    pub input_per_million: f64,
    /// Dollars per million output tokens.
    pub output_per_million: f64,
}

impl ModelPrice {
    /// A price from dollars per million input and output tokens.
    pub fn new(input_per_million: f64, output_per_million: f64) -> Self {
        Self {
            input_per_million,
            output_per_million,
        }
    }

    /// The cost of `usage` in dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        (usage.input_tokens as f64 * self.input_per_million
            + usage.output_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }
}

/// A table of model prices, keyed by model name.
///
/// Lookup is exact first, then by the longest key that prefixes the model name, so a key
/// `gpt-4o-mini` also prices `gpt-4o-mini-2024-07-18`. Serializes as a plain map:
/// `{"gpt-4o-mini": {"input_per_million": 0.15, "output_per_million": 0.6}}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Pricing {
    models: BTreeMap<String, ModelPrice>,
}

impl Pricing {
    /// An empty table (every cost is unknown).
    pub fn new() -> Self {
        Self::default()
    }

    /// A starting table with list prices of some common hosted models. Prices change: treat
    /// these as defaults and override them from configuration.
    pub fn builtin() -> Self {
        let mut pricing = Self::new();
        for (model, input, output) in [
            ("gpt-4o", 2.5, 10.0),
            ("gpt-4o-mini", 0.15, 0.6),
            ("gpt-4.1", 2.0, 8.0),
            ("gpt-4.1-mini", 0.4, 1.6),
            ("gpt-4.1-nano", 0.1, 0.4),
            ("claude-3-5-haiku", 0.8, 4.0),
            ("claude-3-5-sonnet", 3.0, 15.0),
            ("claude-sonnet-4", 3.0, 15.0),
            ("claude-opus-4", 15.0, 75.0),
        ] {
            pricing.insert(model, ModelPrice::new(input, output));
        }
        pricing
    }

    /// Parses a table from JSON (`{"model": {"input_per_million": .., "output_per_million": ..}}`).
    pub fn from_json_str(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Sets (or replaces) the price of a model.
    pub fn insert(&mut self, model: impl Into<String>, price: ModelPrice) {
        self.models.insert(model.into(), price);
    }

    /// Adds every entry of `other`, replacing entries with the same key.
    pub fn merge(&mut self, other: Pricing) {
        self.models.extend(other.models);
    }

    /// The price of `model`: an exact entry, else the longest key that prefixes it.
    pub fn get(&self, model: &str) -> Option<&ModelPrice> {
        if let Some(price) = self.models.get(model) {
            return Some(price);
        }
        self.models
            .iter()
            .filter(|(key, _)| model.starts_with(key.as_str()))
            .max_by_key(|(key, _)| key.len())
            .map(|(_, price)| price)
    }

    /// The cost of `usage` on `model` in dollars, or `None` when the model has no price.
    pub fn cost(&self, usage: &Usage, model: &str) -> Option<f64> {
        self.get(model).map(|price| price.cost(usage))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_uses_per_million_prices() {
        let mut pricing = Pricing::new();
        pricing.insert("m", ModelPrice::new(1.0, 2.0));
        let cost = pricing.cost(&Usage::new(500_000, 250_000), "m").unwrap();
        assert!((cost - 1.0).abs() < 1e-9);
        assert_eq!(pricing.cost(&Usage::new(1, 1), "unknown"), None);
    }

    #[test]
    fn longest_prefix_wins() {
        let pricing = Pricing::builtin();
        let mini = pricing.get("gpt-4o-mini-2024-07-18").unwrap();
        assert!((mini.input_per_million - 0.15).abs() < 1e-9);
        let big = pricing.get("gpt-4o-2024-08-06").unwrap();
        assert!((big.input_per_million - 2.5).abs() < 1e-9);
    }

    #[test]
    fn parses_and_merges_json() {
        let mut pricing = Pricing::builtin();
        let custom = Pricing::from_json_str(
            r#"{"gpt-4o": {"input_per_million": 1.0, "output_per_million": 1.0}}"#,
        )
        .unwrap();
        pricing.merge(custom);
        assert!((pricing.get("gpt-4o").unwrap().output_per_million - 1.0).abs() < 1e-9);
    }
}

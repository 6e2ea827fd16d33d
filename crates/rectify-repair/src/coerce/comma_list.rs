//! A list target read from one line of comma-separated items (`foo, bar, baz`, or a single
//! `foo`), the answer a model gives when asked for "a comma-separated list". A comma may be
//! content (`Paris, France`), so the reading is unsafe.

use rectify_core::Repair;
use serde_json::Value;

use super::text_reading;
use crate::rules::RepairRule;

/// Longest item, in characters, that a comma-separated list may hold: a longer one is a
/// sentence, not an item.
const MAX_ITEM: usize = 80;

/// The items of `text` when it is one line of comma-separated items, with the repair that
/// reads them; `None` when it is not (several lines, brackets or quotes, an empty or long
/// item, or a sentence: it ends with `.`, `!`, `?` or `:`, or introduces: `Here: a, b`).
pub(super) fn read(text: &str) -> Option<(Value, Repair)> {
    let items = items(text)?;
    let value = Value::Array(items.into_iter().map(Value::from).collect());
    Some(text_reading(RepairRule::CommaList, text.trim(), value))
}

/// The items of `text` when it is one line of comma-separated items (see [`read`]).
pub(super) fn items(text: &str) -> Option<Vec<String>> {
    let line = text.trim();
    let sentence = line.ends_with(['.', '!', '?', ':']) || line.contains(": ");
    if line.is_empty() || sentence || line.contains(['\n', '{', '[', '"', '`']) {
        return None;
    }
    let items: Vec<&str> = line.split(',').map(str::trim).collect();
    if items
        .iter()
        .any(|item| item.is_empty() || item.chars().count() > MAX_ITEM)
    {
        return None;
    }
    Some(items.into_iter().map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::read;
    use serde_json::json;

    fn items(text: &str) -> Option<serde_json::Value> {
        read(text).map(|(value, _)| value)
    }

    #[test]
    fn one_line_of_items_is_the_list() {
        assert_eq!(items("foo, bar,baz"), Some(json!(["foo", "bar", "baz"])));
        assert_eq!(items("  foo \n"), Some(json!(["foo"])));
    }

    #[test]
    fn sentences_lines_and_empty_items_are_not() {
        assert_eq!(items("No items in the list."), None);
        assert_eq!(items("Here they are: a, b"), None);
        assert_eq!(items("a\nb"), None);
        assert_eq!(items("a,,b"), None);
        assert_eq!(items("[\"a\"]"), None);
        assert_eq!(items(&"x".repeat(81)), None);
    }
}

//! A Markdown document wrapped whole in one ```` ```markdown ```` fence (with a line of prose
//! before or after it) is unwrapped to exactly the fence's content, nested fences included;
//! a document that merely contains code fences — of any label, `markdown` too — is never
//! unwrapped.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rectify_repair::unwrap_markdown;

/// A block of a Markdown document, as lines ending with a line break.
fn block() -> impl Strategy<Value = String> {
    prop_oneof![
        "#{1,3} [A-Z][a-z]{0,8}( [a-z]{1,6})?".prop_map(|h| format!("{h}\n")),
        "[A-Z][a-z]{0,8}( [a-z]{1,6}){0,4}[.:]?".prop_map(|p| format!("{p}\n")),
        prop::collection::vec("[a-z]{1,8}", 1..4)
            .prop_map(|items| lines(items.iter().map(|i| format!("- {i}")))),
        fence(),
    ]
}

/// Each of `items` as a line.
fn lines(items: impl Iterator<Item = String>) -> String {
    items.flat_map(|l| [l, "\n".to_owned()]).collect()
}

/// A code fence with any label (none, a language, `markdown`, `md`) and a few lines.
fn fence() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["", "rust", "json", "markdown", "md", "MD"]),
        prop::collection::vec("[#a-z {}:]{0,12}", 0..4),
    )
        .prop_map(|(label, body)| {
            let body = lines(
                body.into_iter()
                    .filter(|l| !l.trim_start().starts_with('`')),
            );
            format!("```{label}\n{body}```\n")
        })
}

/// A heading outside any fence: the document is more than a fence and prose.
fn heading() -> impl Strategy<Value = String> {
    "#{1,2} [A-Z][a-z]{1,8}".prop_map(|h| format!("{h}\n"))
}

/// A short line of prose.
fn prose() -> impl Strategy<Value = String> {
    "[A-Z][a-z]{1,8}( [a-z]{1,6}){0,5}[.:]".prop_map(|p| format!("{p}\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn documents_with_inner_fences_are_never_unwrapped(
        before in prop::collection::vec(block(), 0..4),
        head in heading(),
        inner in fence(),
        after in prop::collection::vec(block(), 0..4),
        fence_first in any::<bool>(),
        blank in any::<bool>(),
    ) {
        let sep = if blank { "\n" } else { "" };
        let (a, b) = if fence_first { (inner, head) } else { (head, inner) };
        let parts: Vec<String> = before.into_iter().chain([a, b]).chain(after).collect();
        let text = parts.join(sep);
        prop_assert!(unwrap_markdown(&text).is_none(), "{:?}", text);
    }

    #[test]
    fn a_document_in_one_markdown_fence_is_unwrapped_to_its_content(
        blocks in prop::collection::vec(
            prop_oneof![block().prop_filter("no bare fence", |b| !b.starts_with("```\n")), heading()],
            1..6,
        ),
        label in prop::sample::select(vec!["markdown", "md", "Markdown"]),
        intro in prop::option::of(prose()),
        outro in prop::option::of(prose()),
        blank in any::<bool>(),
    ) {
        let sep = if blank { "\n" } else { "" };
        let body = blocks.join(sep);
        let text = format!(
            "{}{sep}```{label}\n{body}```\n{sep}{}",
            intro.clone().unwrap_or_default(),
            outro.clone().unwrap_or_default()
        );
        let found = unwrap_markdown(&text);
        prop_assert!(found.is_some(), "{:?}", text);
        let found = found.unwrap();
        prop_assert_eq!(found.document(&text), body.as_str(), "{:?}", text);
        let prose_repairs = found.repairs.iter().filter(|r| r.code == "extract.prose").count();
        prop_assert_eq!(prose_repairs, usize::from(intro.is_some()) + usize::from(outro.is_some()));
        prop_assert_eq!(found.repairs[0].code.as_str(), "extract.code_fence");
    }
}

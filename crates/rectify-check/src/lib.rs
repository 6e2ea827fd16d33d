//! Checks that turn documents into diagnostics: JSON Schema, Rust types, rules files, Markdown structure.

//! Readers for JSON, YAML and Markdown with source spans and resource limits.

/// Resource limits applied while reading, so that hostile input cannot exhaust the stack, the
/// memory or the time of the reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum nesting depth of arrays and objects (JSON is capped at 128 by its parser).
    pub max_depth: usize,
    /// Maximum input size in bytes.
    pub max_bytes: usize,
    /// Maximum number of nodes a YAML document may expand to through aliases.
    pub max_alias_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 128,
            max_bytes: 256 * 1024 * 1024,
            max_alias_nodes: 100_000,
        }
    }
}

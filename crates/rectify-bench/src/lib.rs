//! Shared workloads for rectify's benchmarks.
//!
//! The generators are deterministic (a fixed linear congruential sequence), so every run and
//! every peer sees the same bytes.

use std::fmt::Write as _;

/// A JSON array of realistic records (ids, names, nested objects, numbers, free text) of about
/// `bytes` bytes, pretty-printed with two-space indentation.
pub fn realistic_array(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 1024);
    out.push_str("[\n");
    let mut seed: u64 = 0x5eed;
    let mut i = 0;
    while out.len() < bytes {
        if i > 0 {
            out.push_str(",\n");
        }
        record(&mut out, i, &mut seed);
        i += 1;
    }
    out.push_str("\n]\n");
    out
}

fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed >> 33
}

const WORDS: [&str; 12] = [
    "invoice",
    "export",
    "phase",
    "review",
    "customer",
    "ledger",
    "quarterly",
    "report",
    "draft",
    "approved",
    "pending",
    "résumé",
];

fn record(out: &mut String, i: usize, seed: &mut u64) {
    let w = |s: &mut u64| WORDS[(next(s) % WORDS.len() as u64) as usize];
    let _ = write!(
        out,
        "  {{\n    \"id\": \"T{i}\",\n    \"phaseId\": \"phase-{}\",\n    \"title\": \"{} {} {}\",\n    \"amount\": {}.{:02},\n    \"done\": {},\n    \"tags\": [\"{}\", \"{}\"],\n    \"owner\": {{\"name\": \"{} {}\", \"email\": \"user{}@example.org\"}},\n    \"notes\": \"Line with \\\"quotes\\\" and a tab\\t, {} {} {}.\"\n  }}",
        next(seed) % 9,
        w(seed),
        w(seed),
        w(seed),
        next(seed) % 100_000,
        next(seed) % 100,
        next(seed).is_multiple_of(2),
        w(seed),
        w(seed),
        w(seed),
        w(seed),
        next(seed) % 1000,
        w(seed),
        w(seed),
        w(seed),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_json_is_valid_and_sized() {
        let text = realistic_array(100_000);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(value.as_array().unwrap().len() > 100);
        assert!(text.len() >= 100_000 && text.len() < 101_000);
    }
}

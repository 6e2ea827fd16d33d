//! Workloads shared by the repair benchmarks and the peer comparison: the same bytes for
//! rectify, jsonrepair-rs, npm `jsonrepair` and PyPI `json-repair`.

/// Broken inputs of the shared corpus (cases without schema or strict options, and not
/// expected to fail), in corpus order.
pub fn corpus_inputs() -> Vec<String> {
    include_str!("../../../rectify-repair/tests/corpus/json_repair.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|case| case.get("options").is_none() && case.get("expect_error").is_none())
        .filter_map(|case| case["input"].as_str().map(str::to_owned))
        .collect()
}

/// The corpus inputs repeated to `n` inputs.
pub fn small_cases(n: usize) -> Vec<String> {
    corpus_inputs().into_iter().cycle().take(n).collect()
}

/// A valid array of realistic records of about `bytes` bytes.
pub fn valid_doc(bytes: usize) -> String {
    rectify_bench::realistic_array(bytes)
}

/// The valid document with breakage injected into every record, in rotation: single quotes,
/// a trailing comma, a missing comma, Python literals; and the end cut off mid-record.
pub fn broken_doc(bytes: usize) -> String {
    let valid = valid_doc(bytes);
    let mut out = String::with_capacity(valid.len());
    let mut record = 0usize;
    for line in valid.lines() {
        if line == "  {" {
            record += 1;
        }
        let broken = match record % 4 {
            0 if line.starts_with("    \"title\"") => line.replace('"', "'"),
            1 if line.starts_with("    \"notes\"") => format!("{line},"),
            2 if line.starts_with("    \"done\"") => line.trim_end_matches(',').to_owned(),
            3 if line.starts_with("    \"done\"") => {
                line.replace("true", "True").replace("false", "False")
            }
            _ => line.to_owned(),
        };
        out.push_str(&broken);
        out.push('\n');
    }
    let mut cut = out.len() - out.len() / 1000;
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    out.truncate(cut);
    out
}

//! The report as pretty-printed JSON: the whole [`Report`], field for field, as the
//! model's serde attributes define it. This is the contract with programs that call
//! sourcebot (`--format json`, the HTTP service); reading the output back with
//! `serde_json::from_str::<Report>` gives the same report.

use crate::model::Report;
use std::io::Write;

/// Renders the report as pretty JSON. Serialising these types cannot fail; should it
/// ever, the result is still JSON: `{"error": "…"}`.
pub fn json(report: &Report) -> String {
    match serde_json::to_string_pretty(report) {
        Ok(text) => text,
        Err(err) => {
            serde_json::json!({ "error": format!("could not serialise the report: {err}") })
                .to_string()
        }
    }
}

/// Writes the report as pretty JSON to `out`, as [`json`] renders it, without building
/// the text in memory first (the command line streams large reports this way).
pub fn write_json(report: &Report, out: &mut impl Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report).map_err(std::io::Error::from)
}

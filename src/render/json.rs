//! The report as pretty-printed JSON: the whole [`Report`], field for field, as the
//! model's serde attributes define it. This is the contract with programs that call
//! sourcebot (`--format json`, the HTTP service); reading the output back with
//! `serde_json::from_str::<Report>` gives the same report.

use crate::model::Report;

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

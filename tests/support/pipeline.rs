//! A pipeline built from settings given as variables, an answer checked with it, and a
//! source of the report found by its link: what the product-checker tests share.

use sourcebot::collect::input::FormatHint;
use sourcebot::config::Config;
use sourcebot::model::{Report, Source};
use sourcebot::pipeline::Pipeline;
use std::collections::HashMap;

/// A pipeline (links probed) with these settings and the defaults for the rest; a
/// variable given twice takes its last value.
pub fn pipeline(vars: &[(&str, String)]) -> Pipeline {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone()))
        .collect();
    let config =
        Config::from_lookup(|name| vars.get(name).cloned()).expect("the settings are valid");
    Pipeline::builder()
        .config(config)
        .build()
        .expect("the pipeline starts")
}

/// `text` read and checked by `pipeline`.
pub async fn check(pipeline: &Pipeline, text: &str) -> Report {
    let answer = pipeline
        .parse(text.as_bytes(), FormatHint::Auto)
        .expect("the answer is read");
    pipeline.check(&answer).await
}

/// The source citing `link` (as the answer wrote it, or as its canonical URL).
pub fn source<'a>(report: &'a Report, link: &str) -> &'a Source {
    report
        .sources()
        .find(|s| s.url.as_deref() == Some(link) || s.canonical_url.as_deref() == Some(link))
        .unwrap_or_else(|| {
            panic!(
                "no source for {link}: {:#?}",
                report.sources().collect::<Vec<_>>()
            )
        })
}

//! A pipeline built from settings given as variables, and an answer checked with it:
//! what the product-checker tests share.

use sourcebot::collect::input::FormatHint;
use sourcebot::config::Config;
use sourcebot::model::Report;
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

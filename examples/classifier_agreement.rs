//! How often the language-model claim classifier agrees with the keyword rules, per
//! claim type, over the ExpertQA development claims in `../shared/corpora` (every
//! `claim_string` of both validation files, each once).
//!
//! With `SOURCEBOT_LLM_URL` and `SOURCEBOT_LLM_MODEL` (and `SOURCEBOT_LLM_API_KEY`)
//! set, the real model is asked, in batches of 40 claims. Without them, the example
//! starts the tests' fake endpoint on loopback, whose answers are **canned** by a small
//! keyword table of its own (not a model): the figures then show only that the
//! machinery works end to end, and are labelled so.
//!
//! ```sh
//! cargo run --release --example classifier_agreement
//! ```

#[allow(dead_code)] // the fake's judge modes are not used here
#[path = "../tests/support/llm.rs"]
mod llm;

use sourcebot::llm::classifier::{LlmClassifier, MAX_CLAIMS_PER_CALL};
use sourcebot::llm::{LlmClient, LlmSettings};
use sourcebot::model::{ClaimType, SourceKind};
use sourcebot::score::classify::{AvailableSource, ClaimClassifier, RuleClassifier};
use sourcebot::score::domain::Tier;
use std::collections::{BTreeMap, HashSet};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("classifier_agreement: {message}");
            ExitCode::from(2)
        }
    }
}

async fn run() -> Result<(), String> {
    let claims = expertqa_claims()?;
    let (settings, fake) = match std::env::var("SOURCEBOT_LLM_URL")
        .ok()
        .filter(|v| !v.is_empty())
    {
        Some(url) => {
            let model = std::env::var("SOURCEBOT_LLM_MODEL")
                .map_err(|_| "SOURCEBOT_LLM_MODEL is needed with SOURCEBOT_LLM_URL".to_string())?;
            let mut settings = LlmSettings::new(&url, &model).map_err(|e| e.to_string())?;
            settings.api_key = std::env::var("SOURCEBOT_LLM_API_KEY").ok();
            settings.timeout = Duration::from_secs(60);
            (settings, None)
        }
        None => {
            let fake = llm::FakeLlm::start(llm::LlmMode::Classify(Arc::new(canned_type))).await;
            let settings =
                LlmSettings::new(&fake.base_url(), "fake-model").map_err(|e| e.to_string())?;
            (settings, Some(fake))
        }
    };
    let label = if fake.is_some() {
        "CANNED answers from the fake endpoint (a keyword table, not a model)".to_string()
    } else {
        format!("model {} at {}", settings.model, settings.endpoint)
    };
    let client = LlmClient::new(settings, None, None).map_err(|e| e.to_string())?;
    let classifier = LlmClassifier::new(Arc::new(client), None);
    let available = available();
    let started = Instant::now();
    // rules type → (claims, agreed, model types when not)
    let mut table: BTreeMap<&'static str, (usize, usize, BTreeMap<&'static str, usize>)> =
        BTreeMap::new();
    let mut failed_batches = 0;
    for batch in claims.chunks(MAX_CLAIMS_PER_CALL) {
        let texts: Vec<&str> = batch.iter().map(String::as_str).collect();
        let deadline = Instant::now() + Duration::from_secs(120);
        let classified = match classifier.classify(&texts, &available, deadline).await {
            Ok(classified) => classified,
            Err(error) => {
                eprintln!("a batch of {} claims failed: {error}", texts.len());
                failed_batches += 1;
                continue;
            }
        };
        for (text, by_model) in texts.iter().zip(classified) {
            let by_rules = RuleClassifier.claim_type(text);
            let row = table.entry(by_rules.as_str()).or_default();
            row.0 += 1;
            if by_model.claim_type == by_rules {
                row.1 += 1;
            } else {
                *row.2.entry(by_model.claim_type.as_str()).or_default() += 1;
            }
        }
    }
    println!("{} ExpertQA claims; classifier: {label}", claims.len());
    println!("rules type     claims   agree   model said instead");
    let (mut total, mut agreed) = (0, 0);
    for (rules_type, (n, agree, instead)) in &table {
        total += n;
        agreed += agree;
        let instead: Vec<String> = instead.iter().map(|(t, k)| format!("{t} {k}")).collect();
        println!(
            "{rules_type:<14} {n:>6}   {:>5.1}%  {}",
            100.0 * *agree as f64 / (*n).max(1) as f64,
            instead.join(", ")
        );
    }
    println!(
        "all            {total:>6}   {:>5.1}%   ({failed_batches} batches failed; {:.1} s)",
        100.0 * agreed as f64 / total.max(1) as f64,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Every `claim_string` of the ExpertQA validation files, each once, in file order.
fn expertqa_claims() -> Result<Vec<String>, String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let mut seen = HashSet::new();
    let mut claims = Vec::new();
    for name in ["expertqa_domain_val.jsonl", "expertqa_rand_val.jsonl"] {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for line in text.lines() {
            let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let answers = value["answers"].as_object().cloned().unwrap_or_default();
            for answer in answers.values() {
                for claim in answer["claims"].as_array().cloned().unwrap_or_default() {
                    if let Some(text) = claim["claim_string"].as_str() {
                        let text = text.trim();
                        if !text.is_empty() && seen.insert(text.to_string()) {
                            claims.push(text.to_string());
                        }
                    }
                }
            }
        }
    }
    Ok(claims)
}

/// The kinds of source ExpertQA answers cite: web pages of every tier.
fn available() -> Vec<AvailableSource> {
    [
        Tier::High,
        Tier::Reputable,
        Tier::Unknown,
        Tier::UserGenerated,
    ]
    .into_iter()
    .map(|tier| {
        let name = sourcebot::score::classify::available_source_name(SourceKind::Web, tier, &[]);
        AvailableSource {
            description: format!("web pages of {tier} domains"),
            reliability: tier.score(),
            kind: SourceKind::Web,
            tier: Some(tier),
            agent: false,
            name,
        }
    })
    .collect()
}

/// The fake's canned type: a keyword table of its own, unlike the rules' (a stand-in
/// for a model, so that the machinery can run without one).
fn canned_type(claim: &str) -> &'static str {
    let claim = claim.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| claim.contains(w));
    if has(&[
        "patient",
        "disease",
        "treatment",
        "clinical",
        "drug",
        "symptom",
        "health",
    ]) {
        ClaimType::Health.as_str()
    } else if has(&["court", "law", "legal", "statute", "regulation"]) {
        ClaimType::Law.as_str()
    } else if has(&["$", "price", "cost", "revenue", "tax", "invest"]) {
        ClaimType::Money.as_str()
    } else if has(&["software", "code", "api", "algorithm", "program"]) {
        ClaimType::Code.as_str()
    } else if has(&["%", "percent", "rate", "survey", "average"]) {
        ClaimType::Statistics.as_str()
    } else {
        ClaimType::General.as_str()
    }
}

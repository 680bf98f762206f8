//! The language-model claim classifier against a fake OpenAI-compatible endpoint on
//! loopback (its answers are canned by the fake, not a real model's): a good reply is
//! believed and shapes relevance; one call carries all of an answer's claims, and a
//! second check of the same claims makes none (cache); a reply that breaks the schema,
//! a slow reply, a 429 and a 500 each leave the answer to the rules, counted by reason;
//! the daily token budget hands over to the rules; the command line uses it too; bad
//! settings are refused. Links are not probed: nothing leaves loopback.

mod support;

use serde_json::Value;
use sourcebot::collect::input::FormatHint;
use sourcebot::config::Config;
use sourcebot::metrics::Metrics;
use sourcebot::model::{ClaimType, ClassificationMethod, Report};
use sourcebot::pipeline::Pipeline;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::cli::{command, run, stderr, stdout};
use support::llm::{FakeLlm, LlmMode, TypeFor};

/// An answer of three sentences: a health claim cited to a forum, a figure cited to a
/// government site, and one that neither cites nor wants a source.
const ANSWER: &str = "The recommended dose is 500 mg [1]. Our revenue grew by 45% last year [2]. Paris is in France.\n\n\
[1] https://www.reddit.com/r/x - A thread\n\
[2] https://www.nih.gov/x - NIH\n";

/// The fake's view: the dose claim is health, the revenue claim statistics (the rules
/// say money: a "statistics" shows the model was heard), anything else general.
fn canned() -> TypeFor {
    Arc::new(|claim: &str| {
        if claim.contains("dose") {
            "health"
        } else if claim.contains("revenue") {
            "statistics"
        } else {
            "general"
        }
    })
}

fn pipeline(llm: &FakeLlm, extra: &[(&str, &str)]) -> (Pipeline, Arc<Metrics>) {
    let mut vars: HashMap<String, String> = [
        ("SOURCEBOT_CLASSIFIER", "llm".to_string()),
        ("SOURCEBOT_LLM_URL", llm.base_url()),
        ("SOURCEBOT_LLM_MODEL", "fake-model".to_string()),
        ("SOURCEBOT_LLM_API_KEY", "sk-test-secret".to_string()),
        ("SOURCEBOT_LLM_TIMEOUT", "400ms".to_string()),
        ("SOURCEBOT_SUPPORT", "off".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for (k, v) in extra {
        vars.insert(k.to_string(), v.to_string());
    }
    let config = Config::from_lookup(|name| vars.get(name).cloned()).expect("settings");
    let metrics = Metrics::new();
    let pipeline = Pipeline::builder()
        .config(config)
        .verify(false)
        .metrics(metrics.clone())
        .build()
        .expect("pipeline");
    (pipeline, metrics)
}

async fn check(pipeline: &Pipeline, text: &str) -> Report {
    let answer = pipeline
        .parse(text.as_bytes(), FormatHint::Auto)
        .expect("answer");
    pipeline.check(&answer).await
}

/// (type, method) of each claim.
fn decided(report: &Report) -> Vec<(ClaimType, ClassificationMethod)> {
    report
        .claims
        .iter()
        .map(|c| {
            (
                c.claim_type.expect("typed"),
                c.classification.as_ref().expect("classified").method,
            )
        })
        .collect()
}

/// What the rules alone decide for [`ANSWER`].
fn by_rules() -> Vec<(ClaimType, ClassificationMethod)> {
    vec![
        (ClaimType::Health, ClassificationMethod::Rules),
        (ClaimType::Money, ClassificationMethod::Rules),
        (ClaimType::General, ClassificationMethod::Rules),
    ]
}

fn metric(metrics: &Metrics, starts: &str) -> Option<String> {
    metrics
        .encode()
        .lines()
        .find(|l| l.starts_with(starts))
        .map(str::to_string)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_good_reply_is_believed_in_one_call_and_cached() {
    let llm = FakeLlm::start(LlmMode::Classify(canned())).await;
    let (pipeline, metrics) = pipeline(&llm, &[]);
    let report = check(&pipeline, ANSWER).await;
    assert_eq!(
        decided(&report),
        [
            (ClaimType::Health, ClassificationMethod::Llm),
            (ClaimType::Statistics, ClassificationMethod::Llm),
            (ClaimType::General, ClassificationMethod::Rules),
        ]
    );
    // The forum suits the dose claim poorly by the model's word (0.15), the government
    // site the figure well (0.95): relevance follows the model, not the rules (0.2, 0.9).
    let relevance: Vec<Option<f64>> = report.claims.iter().map(|c| c.relevance).collect();
    assert_eq!(relevance, [Some(0.15), Some(0.95), None]);
    let dose = report.claims[0]
        .classification
        .as_ref()
        .expect("classified");
    let names: Vec<&str> = dose
        .recommendations
        .iter()
        .map(|r| r.source.as_str())
        .collect();
    assert_eq!(names, ["web:high", "web:user-generated"]);
    assert_eq!(
        dose.recommendations[0].reason,
        "canned: web:high for health"
    );

    // One call for the answer, carrying the two claims that cite a source and the
    // kinds of source, and nothing else: no link, no title.
    let requests = llm.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        request.header("authorization"),
        Some("Bearer sk-test-secret")
    );
    let format = &request.body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["strict"], true);
    let user = request.user_message();
    let claims: Vec<&str> = user["claims"]
        .as_array()
        .expect("claims")
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect();
    assert_eq!(
        claims,
        [
            "The recommended dose is 500 mg [1].",
            "Our revenue grew by 45% last year [2]."
        ]
    );
    let sent = request.body["messages"][1]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    for private in ["reddit.com", "nih.gov", "A thread", "NIH\""] {
        assert!(!sent.contains(private), "{private} was sent: {sent}");
    }
    let user_sources: Vec<&str> = user["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(user_sources, ["web:high", "web:user-generated"]);

    // The JSON report carries the classification.
    let json: Value = serde_json::from_str(&sourcebot::render::json(&report)).expect("json");
    assert_eq!(json["claims"][0]["classification"]["method"], "llm");
    assert_eq!(
        json["claims"][1]["classification"]["recommendations"][0]["relevance"],
        0.95
    );

    // Slack shows the model's decision where it matters: the dose claim rests on a
    // forum, and the model recommends the answer's government pages.
    let mrkdwn = pipeline.mrkdwn(&report);
    assert!(
        mrkdwn.contains(
            "> “The recommended dose is 500 mg [1].” — _health claim cited only to a forum; \
             check it against the answer's official or scholarly web pages_"
        ),
        "{mrkdwn}"
    );
    assert!(!mrkdwn.contains("statistics claim"), "{mrkdwn}");

    // Counted: a call, its tokens, an answer classified by the model.
    assert_eq!(
        metric(
            &metrics,
            "sourcebot_llm_calls_total{purpose=\"classify\",outcome=\"ok\"}"
        )
        .as_deref(),
        Some("sourcebot_llm_calls_total{purpose=\"classify\",outcome=\"ok\"} 1")
    );
    assert!(metric(
        &metrics,
        "sourcebot_llm_tokens_total{purpose=\"classify\",kind=\"prompt\"} 120"
    )
    .is_some());
    assert!(metric(
        &metrics,
        "sourcebot_claim_classifications_total{method=\"llm\",fallback=\"none\"} 1"
    )
    .is_some());
    assert_eq!(
        metric(
            &metrics,
            "sourcebot_llm_call_duration_seconds_count{purpose=\"classify\"}"
        )
        .as_deref(),
        Some("sourcebot_llm_call_duration_seconds_count{purpose=\"classify\"} 1"),
        "the call's latency is in the histogram"
    );

    // The same claims again: from the cache, no call.
    let again = check(&pipeline, ANSWER).await;
    assert_eq!(llm.requests().len(), 1);
    assert_eq!(decided(&again), decided(&report));
}

/// Checks [`ANSWER`] with the fake answering as `mode`; returns the report, the
/// requests the fake saw and the metrics.
async fn with_mode(
    mode: LlmMode,
    extra: &[(&str, &str)],
) -> (Report, usize, Arc<Metrics>, Duration) {
    let llm = FakeLlm::start(mode).await;
    let (pipeline, metrics) = pipeline(&llm, extra);
    let started = Instant::now();
    let report = check(&pipeline, ANSWER).await;
    (report, llm.requests().len(), metrics, started.elapsed())
}

fn fell_back(metrics: &Metrics, reason: &str) -> bool {
    metric(
        metrics,
        &format!(
            "sourcebot_claim_classifications_total{{method=\"rules\",fallback=\"{reason}\"}} 1"
        ),
    )
    .is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_that_breaks_the_schema_leaves_the_answer_to_the_rules() {
    for content in [
        r#"{"claims": []}"#.to_string(),
        r#"{"claims": [{"claim": 1, "claim_type": "astrology", "recommendations": []}, {"claim": 2, "claim_type": "law", "recommendations": []}]}"#.to_string(),
        r#"{"claims": [{"claim": 1, "claim_type": "law", "recommendations": [{"source": "https://evil.example", "relevance": 1, "reason": "x"}]}, {"claim": 2, "claim_type": "law", "recommendations": []}]}"#.to_string(),
        "Sure! Here is the classification you asked for.".to_string(),
    ] {
        let (report, requests, metrics, _) = with_mode(LlmMode::Content(content.clone()), &[]).await;
        assert_eq!(requests, 1);
        assert_eq!(decided(&report), by_rules(), "{content}");
        assert!(fell_back(&metrics, "malformed"), "{content}: {}", metrics.encode());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_model_is_given_up_on_at_its_timeout() {
    let (report, _, metrics, took) =
        with_mode(LlmMode::SlowClassify(Duration::from_secs(3), canned()), &[]).await;
    assert_eq!(decided(&report), by_rules());
    assert!(fell_back(&metrics, "timeout"), "{}", metrics.encode());
    assert!(took < Duration::from_secs(2), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_holds_the_next_answer_back_too() {
    let llm = FakeLlm::start(LlmMode::Status(
        429,
        vec![("retry-after".into(), "30".into())],
        "{\"error\": {\"message\": \"slow down\"}}".into(),
    ))
    .await;
    let (pipeline, metrics) = pipeline(&llm, &[]);
    let report = check(&pipeline, ANSWER).await;
    assert_eq!(decided(&report), by_rules());
    assert!(fell_back(&metrics, "rate_limited"), "{}", metrics.encode());
    llm.set_mode(LlmMode::Classify(canned()));
    let report = check(
        &pipeline,
        "A different claim about a dose of 5 mg [1].\n\n[1] https://www.nih.gov/y",
    )
    .await;
    assert_eq!(llm.requests().len(), 1, "held back: no second call");
    assert_eq!(
        report.claims[0].classification.as_ref().map(|c| c.method),
        Some(ClassificationMethod::Rules)
    );
    assert!(fell_back(&metrics, "held_back"), "{}", metrics.encode());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_error_leaves_the_answer_to_the_rules() {
    let (report, requests, metrics, _) = with_mode(
        LlmMode::Status(
            500,
            Vec::new(),
            "{\"error\": {\"message\": \"boom\"}}".into(),
        ),
        &[],
    )
    .await;
    assert_eq!(requests, 1);
    assert_eq!(decided(&report), by_rules());
    assert!(fell_back(&metrics, "http_error"), "{}", metrics.encode());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_answer_is_sent_in_batches() {
    let llm = FakeLlm::start(LlmMode::Classify(canned())).await;
    let (pipeline, _) = pipeline(&llm, &[]);
    let mut text = String::new();
    for i in 0..45 {
        text.push_str(&format!("Claim {i} about a dose of {i} mg [1]. "));
    }
    text.push_str("\n\n[1] https://www.nih.gov/x - NIH\n");
    let report = check(&pipeline, &text).await;
    let sizes: Vec<usize> = llm
        .requests()
        .iter()
        .map(|r| r.user_message()["claims"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(sizes, [40, 5]);
    assert!(report
        .claims
        .iter()
        .all(|c| c.classification.as_ref().map(|c| c.method) == Some(ClassificationMethod::Llm)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_token_budget_hands_over_to_the_rules() {
    let llm = FakeLlm::start(LlmMode::Classify(canned())).await;
    // Each fake reply reports 150 tokens: the first call spends the day's 100.
    let (pipeline, metrics) = pipeline(&llm, &[("SOURCEBOT_LLM_DAILY_TOKENS", "100")]);
    let first = check(&pipeline, ANSWER).await;
    assert_eq!(
        first.claims[0].classification.as_ref().map(|c| c.method),
        Some(ClassificationMethod::Llm)
    );
    let second = check(
        &pipeline,
        "A different claim about a dose of 5 mg [1].\n\n[1] https://www.nih.gov/y",
    )
    .await;
    assert_eq!(llm.requests().len(), 1, "no call past the budget");
    assert_eq!(
        second.claims[0].classification.as_ref().map(|c| c.method),
        Some(ClassificationMethod::Rules)
    );
    assert!(
        fell_back(&metrics, "over_daily_budget"),
        "{}",
        metrics.encode()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_classifies_with_the_model_too() {
    let llm = FakeLlm::start(LlmMode::Classify(canned())).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("answer.md");
    std::fs::write(&file, ANSWER).expect("write");
    let args: Vec<String> = [
        "check",
        &file.to_string_lossy(),
        "--format",
        "json",
        "--no-verify",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let envs = [
        ("SOURCEBOT_CLASSIFIER", "llm".to_string()),
        ("SOURCEBOT_LLM_URL", llm.base_url()),
        ("SOURCEBOT_LLM_MODEL", "fake-model".to_string()),
    ];
    let output = run(command(&args, &envs)).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let json: Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert_eq!(json["claims"][1]["claim_type"], "statistics");
    assert_eq!(json["claims"][1]["classification"]["method"], "llm");
    assert_eq!(llm.requests().len(), 1);
}

#[test]
fn bad_classifier_settings_are_refused() {
    let read = |vars: &[(&str, &str)]| {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    };
    let error = read(&[("SOURCEBOT_CLASSIFIER", "llm")]).expect_err("needs a model");
    assert!(error.to_string().contains("SOURCEBOT_LLM_URL"), "{error}");
    let error = read(&[("SOURCEBOT_CLASSIFIER", "vibes")]).expect_err("unknown");
    assert!(
        error.to_string().contains("SOURCEBOT_CLASSIFIER"),
        "{error}"
    );
    let error = read(&[
        ("SOURCEBOT_LLM_URL", "http://127.0.0.1:9/v1"),
        ("SOURCEBOT_LLM_MODEL", "m"),
        ("SOURCEBOT_LLM_DAILY_TOKENS", "lots"),
    ])
    .expect_err("not a number");
    assert!(
        error.to_string().contains("SOURCEBOT_LLM_DAILY_TOKENS"),
        "{error}"
    );
    let config = read(&[("SOURCEBOT_CLASSIFIER", "rules")]).expect("rules");
    assert!(!config.classify_with_model);
}

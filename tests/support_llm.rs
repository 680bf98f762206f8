//! The model judge against a fake OpenAI-compatible endpoint on loopback: a good reply
//! is believed (and its quote checked), a reply that breaks the schema, a slow reply,
//! a 429 and a 500 each leave the built-in judgement in place and are counted; a second
//! check of the same claims makes no call (cache); the per-answer budget holds; the
//! request carries the schema, the key and nothing but the title, passages and claims.

mod support;

use serde_json::Value;
use sourcebot::collect::input::FormatHint;
use sourcebot::config::Config;
use sourcebot::health::{Part, Status};
use sourcebot::metrics::Metrics;
use sourcebot::model::{Report, SupportJudge, SupportVerdict};
use sourcebot::pipeline::Pipeline;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::llm::{FakeLlm, LlmMode, VerdictFor};
use support::{Action, HostileServer, Route};

/// A loopback address of this file's block, 127.13.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(13)
}

const FREEZE: &str = "Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend. Exceptions need a director's approval.";
const MENU: &str =
    "The cafeteria opens at nine and serves lunch until two. Coffee is free for staff.";

/// A site with two articles.
async fn site() -> HostileServer {
    let page = |body: &str| {
        Route::always(Action::bytes(
            200,
            &[("content-type", "text/html; charset=utf-8")],
            format!("<html><head><title>Page</title></head><body><nav>Menu Home About</nav><article><p>{body}</p></article></body></html>").into_bytes(),
        ))
    };
    HostileServer::start(
        next_ip(),
        vec![("/freeze", page(FREEZE)), ("/menu", page(MENU))],
    )
    .await
}

/// An answer citing both articles, one claim each.
fn answer_text(site: &HostileServer) -> String {
    format!(
        "Deploys are frozen on Fridays and public holidays [1]. The cafeteria serves lunch until two [2].\n\n[1] {} - Freeze policy\n[2] {} - Cafeteria\n",
        site.url("/freeze"),
        site.url("/menu")
    )
}

/// The model's canned view: the freeze claim only partly (the built-in scorer says
/// supported, so a "partly supported" shows the model was heard), the rest supported.
fn canned() -> VerdictFor {
    Arc::new(|claim: &str| {
        if claim.contains("frozen") {
            "partly supported"
        } else {
            "supported"
        }
    })
}

/// A pipeline probing loopback links, with the model at `llm` and `extra` settings.
fn pipeline(llm: &FakeLlm, extra: &[(&str, &str)]) -> (Pipeline, Arc<Metrics>) {
    let mut vars: HashMap<String, String> = [
        ("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1".to_string()),
        ("SOURCEBOT_LLM_URL", llm.base_url()),
        ("SOURCEBOT_LLM_MODEL", "fake-model".to_string()),
        ("SOURCEBOT_LLM_API_KEY", "sk-test-secret".to_string()),
        ("SOURCEBOT_LLM_TIMEOUT", "1s".to_string()),
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
        .metrics(metrics.clone())
        .build()
        .expect("pipeline");
    (pipeline, metrics)
}

/// Checks `text` with links probed and support judged.
async fn check(pipeline: &Pipeline, text: &str) -> Report {
    let answer = pipeline
        .parse(text.as_bytes(), FormatHint::Auto)
        .expect("answer");
    let mut report = pipeline.check(&answer).await;
    assert_eq!(report.verification.counts.verified, 2, "{report:#?}");
    pipeline
        .check_support(&mut report)
        .await
        .expect("support checked");
    report
}

/// (verdict, judge) of each claim's first support.
fn judged(report: &Report) -> Vec<(SupportVerdict, SupportJudge)> {
    report
        .claims
        .iter()
        .filter_map(|c| c.support.first())
        .map(|s| (s.verdict, s.judge))
        .collect()
}

fn metric_line<'a>(metrics: &'a str, starts: &str) -> Option<&'a str> {
    metrics.lines().find(|l| l.starts_with(starts))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_good_reply_is_believed_and_cached() {
    let site = site().await;
    let llm = FakeLlm::start(LlmMode::Judge(canned())).await;
    let (pipeline, metrics) = pipeline(&llm, &[]);
    let report = check(&pipeline, &answer_text(&site)).await;
    assert_eq!(
        judged(&report),
        [
            (SupportVerdict::PartlySupported, SupportJudge::Llm),
            (SupportVerdict::Supported, SupportJudge::Llm)
        ]
    );
    let freeze = &report.claims[0].support[0];
    assert_eq!(freeze.score, 0.5);
    assert_eq!(freeze.reason.as_deref(), Some("canned: partly supported"));
    assert!(
        freeze
            .quote
            .as_deref()
            .unwrap_or_default()
            .starts_with("Deploys are frozen on Fridays"),
        "{freeze:?}"
    );

    // One call per page, each in the documented request shape.
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(
            request.header("authorization"),
            Some("Bearer sk-test-secret")
        );
        assert_eq!(request.body["model"], "fake-model");
        assert_eq!(request.body["temperature"], 0);
        assert_eq!(request.body["messages"][0]["role"], "system");
        let format = &request.body["response_format"];
        assert_eq!(format["type"], "json_schema");
        assert_eq!(format["json_schema"]["strict"], true);
        assert_eq!(format["json_schema"]["name"], "claim_support");
        // The model is sent the title, the passages and the claims: nothing else.
        let user = request.user_message();
        let keys: Vec<&str> = user
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["claims", "passages", "title"]);
        let passages = user["passages"].to_string();
        assert!(
            !passages.contains("Menu Home About"),
            "navigation: {passages}"
        );
        assert!(!passages.contains("127.13."), "no links: {passages}");
    }
    let text = metrics.encode();
    assert!(
        metric_line(
            &text,
            "sourcebot_llm_calls_total{purpose=\"support\",outcome=\"ok\"} 2"
        )
        .is_some(),
        "{text}"
    );
    assert!(
        text.contains("sourcebot_llm_tokens_total{purpose=\"support\",kind=\"prompt\"} 240"),
        "{text}"
    );
    assert!(
        text.contains(
            "sourcebot_support_judgements_total{verdict=\"partly_supported\",judge=\"llm\"} 1"
        ),
        "{text}"
    );

    // The same claims again: answered from the cache, no call.
    let again = check(&pipeline, &answer_text(&site)).await;
    assert_eq!(judged(&again), judged(&report));
    assert_eq!(llm.requests().len(), 2, "a second check calls again");
    assert!(
        metrics
            .encode()
            .contains("sourcebot_llm_calls_total{purpose=\"support\",outcome=\"cached\"} 2"),
        "{}",
        metrics.encode()
    );
}

/// The built-in scorer's verdicts for the two claims.
fn builtin_verdicts() -> Vec<(SupportVerdict, SupportJudge)> {
    vec![
        (SupportVerdict::Supported, SupportJudge::Builtin),
        (SupportVerdict::Supported, SupportJudge::Builtin),
    ]
}

/// Runs one check against a model answering as `mode`; returns the report, the
/// metrics text, the requests made and the time the support check took.
async fn with_model(
    mode: LlmMode,
    extra: &[(&str, &str)],
) -> (
    Report,
    String,
    usize,
    Duration,
    FakeLlm,
    Pipeline,
    HostileServer,
) {
    let site = site().await;
    let llm = FakeLlm::start(mode).await;
    let (pipeline, metrics) = pipeline(&llm, extra);
    let answer = pipeline
        .parse(answer_text(&site).as_bytes(), FormatHint::Auto)
        .expect("answer");
    let mut report = pipeline.check(&answer).await;
    let started = Instant::now();
    pipeline.check_support(&mut report).await.expect("checked");
    let took = started.elapsed();
    let requests = llm.requests().len();
    (
        report,
        metrics.encode(),
        requests,
        took,
        llm,
        pipeline,
        site,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_that_breaks_the_schema_leaves_the_builtin_judgement() {
    let broken = r#"{"judgements":[{"claim":1,"verdict":"definitely","quote":"","reason":""}]}"#;
    let (report, metrics, requests, ..) =
        with_model(LlmMode::Content(broken.to_string()), &[]).await;
    assert_eq!(judged(&report), builtin_verdicts());
    assert_eq!(requests, 2);
    assert!(
        metrics.contains("sourcebot_llm_calls_total{purpose=\"support\",outcome=\"malformed\"} 2"),
        "{metrics}"
    );
    // Not JSON at all, and a claim nobody asked about: the same.
    for content in [
        "All supported!",
        r#"{"judgements":[{"claim":9,"verdict":"supported","quote":"","reason":""}]}"#,
    ] {
        let (report, ..) = with_model(LlmMode::Content(content.to_string()), &[]).await;
        assert_eq!(judged(&report), builtin_verdicts(), "{content}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_model_is_given_up_on_at_its_timeout() {
    let (report, metrics, requests, took, ..) = with_model(
        LlmMode::Slow(Duration::from_secs(5), canned()),
        &[("SOURCEBOT_LLM_TIMEOUT", "400ms")],
    )
    .await;
    assert_eq!(judged(&report), builtin_verdicts());
    assert_eq!(requests, 2);
    // Both pages' calls run at once and end at the 400 ms timeout, far from 5 s.
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(
        metrics.contains("sourcebot_llm_calls_total{purpose=\"support\",outcome=\"timeout\"} 2"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_holds_every_call_back_for_its_retry_after() {
    let limited = LlmMode::Status(
        429,
        vec![("retry-after".into(), "30".into())],
        r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#.into(),
    );
    // The two pages' calls may both go out before the first 429 comes back.
    let (report, metrics, requests, _, llm, pipeline, site) = with_model(limited, &[]).await;
    assert_eq!(judged(&report), builtin_verdicts());
    assert!(requests >= 1, "{requests}");
    assert!(metrics.contains("outcome=\"rate_limited\""), "{metrics}");
    // The endpoint is healthy again, but Retry-After has not passed: no call is made.
    llm.set_mode(LlmMode::Judge(canned()));
    let again = check(&pipeline, &answer_text(&site)).await;
    assert_eq!(judged(&again), builtin_verdicts());
    assert_eq!(llm.requests().len(), requests, "called while held back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_error_leaves_the_builtin_judgement() {
    let failing = LlmMode::Status(
        500,
        vec![("content-type".into(), "application/json".into())],
        r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}"#.into(),
    );
    let (report, metrics, requests, ..) = with_model(failing, &[]).await;
    assert_eq!(judged(&report), builtin_verdicts());
    assert_eq!(requests, 2);
    assert!(
        metrics.contains("sourcebot_llm_calls_total{purpose=\"support\",outcome=\"http_error\"} 2"),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_of_calls_per_answer_holds() {
    let (report, metrics, requests, ..) = with_model(
        LlmMode::Judge(canned()),
        &[("SOURCEBOT_LLM_CALLS_PER_ANSWER", "1")],
    )
    .await;
    assert_eq!(requests, 1);
    let judges: Vec<SupportJudge> = judged(&report).into_iter().map(|(_, j)| j).collect();
    assert!(
        judges.contains(&SupportJudge::Llm) && judges.contains(&SupportJudge::Builtin),
        "{judges:?}"
    );
    assert!(metrics.contains("outcome=\"over_budget\"} 1"), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_builtin_judge_can_be_chosen_and_json_says_who_judged() {
    let (report, _, requests, ..) = with_model(
        LlmMode::Judge(canned()),
        &[("SOURCEBOT_SUPPORT_JUDGE", "builtin")],
    )
    .await;
    assert_eq!(requests, 0);
    assert_eq!(judged(&report), builtin_verdicts());
    let json: Value = serde_json::from_str(&sourcebot::render::json(&report)).expect("json");
    assert_eq!(json["claims"][0]["support"][0]["judge"], "builtin");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_endpoint_down_then_back_shows_in_its_health() {
    let site = site().await;
    let llm = FakeLlm::start(LlmMode::Status(
        503,
        Vec::new(),
        "upstream unavailable".into(),
    ))
    .await;
    let (pipeline, metrics) = pipeline(&llm, &[]);
    check(&pipeline, &answer_text(&site)).await;
    let down = metrics.health().record(Part::Model);
    assert_eq!(down.status, Status::Down, "{down:?}");
    assert!(
        down.last_error
            .as_deref()
            .is_some_and(|e| e.contains("503")),
        "{down:?}"
    );
    llm.set_mode(LlmMode::Judge(canned()));
    check(&pipeline, &answer_text(&site)).await;
    let back = metrics.health().record(Part::Model);
    assert_eq!(back.status, Status::Ok, "{back:?}");
    assert!(
        back.last_error.is_some(),
        "the last error is kept: {back:?}"
    );
}

//! The HTTP service for answer pipelines end to end: the app `serve` builds (the Slack
//! routes, the API routes and the request counter) runs in-process on 127.0.0.1:0
//! against the fake Slack Web API (tests/support/slack.rs), and the links in the
//! answers point at hostile local servers (tests/support/hostile.rs).
//!
//! Covered: `POST /v1/check` with every input shape (Markdown, `{text, sources}`,
//! research report, search results) and `?verify=false`; `POST /v1/answers` posting the
//! sources in a thread, or the answer then its sources (marked and escaped); bearer
//! authentication and the API switched off; every refusal with its status and JSON
//! body (400, 401, 404, 413 with and without a Content-Length, 415, 422, 429, 503);
//! `/metrics` counters moving with the requests; `/readyz`; fifty answers posted to
//! five channels at once with Slack's per-channel pacing; untrusted titles that must
//! not mention anyone; and what src/api.rs promises in its comments (the source limit
//! bounds the probing, a post once started runs to its end, every refusal is JSON).

mod support;

use reqwest::header::HeaderMap;
use serde_json::{json, Value};
use sourcebot::api::{self, ApiSettings, ApiState};
use sourcebot::config::Config;
use sourcebot::health::{Part, Status};
use sourcebot::metrics::Metrics;
use sourcebot::slack::api::CHANNEL_PACE;
use sourcebot::slack::{self, Bot, SlackSettings, Transport};
use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};
use support::serve::{loopback_client, serve_app};
use support::slack::{assert_paced, Access, Call, Failure, FakeSlack, BOT_USER_ID};
use support::{Action, HostileServer, Route};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKEN: &str = "test-token-0123456789abcdef";
const OTHER_TOKEN: &str = "other-token-fedcba9876543210";
const SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";
const CHANNEL: &str = "C0ANSWERS";
const THREAD: &str = "1700000000.000050";
const WAIT: Duration = Duration::from_secs(5);

// ---------------------------------------------------------------------------------------
// Harness

/// A loopback address of this file's block, 127.6.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(6)
}

/// The API settings of most tests: both tokens, everything else default.
fn api_settings() -> ApiSettings {
    ApiSettings {
        tokens: vec![TOKEN.into(), OTHER_TOKEN.into()],
        ..ApiSettings::default()
    }
}

/// The default settings, with loopback links allowed (the sites are local).
fn config() -> Config {
    let mut config = Config::default();
    config.verify.allow_private = true;
    config
}

/// The app `serve` builds, served on 127.0.0.1:0, with a fake Slack behind it.
struct Service {
    slack: FakeSlack,
    addr: SocketAddr,
    http: reqwest::Client,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Service {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// What came back from the service.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: HeaderMap,
    text: String,
    json: Value,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

impl Service {
    async fn start() -> Service {
        Service::start_with(api_settings(), config()).await
    }

    async fn start_with(api_settings: ApiSettings, config: Config) -> Service {
        Service::start_on(api_settings, config, None).await
    }

    /// The service with its state in the Redis at `redis_url`, if given.
    async fn start_on(
        api_settings: ApiSettings,
        config: Config,
        redis_url: Option<String>,
    ) -> Service {
        sourcebot::verify::install_crypto_provider();
        let slack = FakeSlack::start().await;
        let settings = SlackSettings::from_lookup(|name| match name {
            "SLACK_BOT_TOKEN" => Some("xoxb-test".into()),
            "SLACK_SIGNING_SECRET" => Some(SECRET.into()),
            "SOURCEBOT_SLACK_API_URL" => Some(slack.api_url()),
            "SOURCEBOT_SLACK_TIMEOUT" => Some("2s".into()),
            "SOURCEBOT_REDIS_URL" => redis_url.clone(),
            _ => None,
        })
        .expect("Slack settings");
        let metrics = Metrics::new();
        let bot = Bot::start_with_metrics(&settings, config, metrics.clone())
            .await
            .expect("the bot starts");
        let Transport::Http { signing_secret } = &settings.transport else {
            panic!("HTTP mode expected");
        };
        // As `serve` composes it.
        let slack_routes =
            slack::http::router(bot.clone(), signing_secret, settings.max_body_bytes);
        let api_routes = api::router(ApiState::new(bot, api_settings));
        let app = api::count_requests(slack_routes.merge(api_routes), metrics);
        let (addr, server) = serve_app(app).await;
        Service {
            slack,
            addr,
            http: loopback_client(),
            server,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A POST to `path` with the first token.
    fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.post_as(path, TOKEN)
    }

    fn post_as(&self, path: &str, token: &str) -> reqwest::RequestBuilder {
        self.http.post(self.url(path)).bearer_auth(token)
    }

    /// `POST /v1/check{query}` with a Markdown body.
    async fn check_markdown(&self, query: &str, text: &str) -> Reply {
        send(
            self.post(&format!("/v1/check{query}"))
                .header("content-type", "text/markdown")
                .body(text.to_string()),
        )
        .await
    }

    /// `POST /v1/check` with a JSON body.
    async fn check_json(&self, body: &Value) -> Reply {
        send(self.post("/v1/check").json_body(body)).await
    }

    /// `POST /v1/answers{query}` with a JSON body.
    async fn answers(&self, query: &str, body: &Value) -> Reply {
        send(self.post(&format!("/v1/answers{query}")).json_body(body)).await
    }

    async fn get(&self, path: &str) -> Reply {
        send(self.http.get(self.url(path))).await
    }

    /// The `/metrics` page.
    async fn metrics(&self) -> String {
        let reply = self.get("/metrics").await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        reply.text
    }
}

/// A JSON body (reqwest is built without its `json` feature).
trait JsonBody {
    fn json_body(self, body: &Value) -> Self;
}

impl JsonBody for reqwest::RequestBuilder {
    fn json_body(self, body: &Value) -> Self {
        self.header("content-type", "application/json")
            .body(body.to_string())
    }
}

async fn send(request: reqwest::RequestBuilder) -> Reply {
    let response = request.send().await.expect("the service answers");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.expect("body");
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        text,
        json,
    }
}

/// Sends `request` as is over a new connection and reads the answer until the server
/// closes it: `(status, body)`.
async fn raw_http(addr: SocketAddr, request: &[u8]) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("write the request");
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    let read = async {
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            }
        }
    };
    tokio::time::timeout(WAIT, read)
        .await
        .expect("the server answers and closes the connection");
    let response = String::from_utf8_lossy(&bytes).into_owned();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {response:?}"));
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default();
    (status, body)
}

/// Asserts a refusal: its status, `error.code`, a non-empty `error.message`, and
/// `error.path` when one is given (absent when `None`).
fn assert_error(reply: &Reply, status: u16, code: &str, path: Option<&str>) {
    assert_eq!(reply.status, status, "{}", reply.text);
    assert!(
        reply
            .header("content-type")
            .is_some_and(|ct| ct.starts_with("application/json")),
        "a refusal is JSON: {:?}",
        reply.headers
    );
    let error = &reply.json["error"];
    assert_eq!(error["code"], code, "{}", reply.text);
    assert!(
        error["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{}",
        reply.text
    );
    match path {
        Some(path) => assert_eq!(error["path"], path, "{}", reply.text),
        None => assert!(error.get("path").is_none(), "{}", reply.text),
    }
}

// ---------------------------------------------------------------------------------------
// Answers and sites

/// A site whose `/ok` answers 200, `/gone` 404, and `/slow` 200 after 5 s.
async fn site() -> HostileServer {
    HostileServer::start(
        next_ip(),
        vec![
            ("/ok", Route::status(200)),
            ("/gone", Route::status(404)),
            (
                "/slow",
                Route::always(Action::status(200).after(Duration::from_secs(5))),
            ),
        ],
    )
    .await
}

/// A Markdown answer: a claim citing a live page, one citing a dead page, and one
/// citing nothing.
fn markdown_answer(site: &HostileServer) -> String {
    format!(
        "Deploys freeze on Fridays [1]. The old runbook moved [2]. Our churn fell to 2% last quarter.\n\n\
         [1] {} - Freeze policy\n[2] {} - Old runbook",
        site.url("/ok"),
        site.url("/gone")
    )
}

/// Every source of a report, in display order.
fn sources(report: &Value) -> Vec<Value> {
    report["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["sources"].as_array().expect("sources").clone())
        .collect()
}

/// The source of `report` whose URL is `url`.
fn source(report: &Value, url: &str) -> Value {
    sources(report)
        .into_iter()
        .find(|s| s["url"] == url)
        .unwrap_or_else(|| panic!("no source {url} in {report}"))
}

/// All the text a posted message carries (fallback text and blocks), as one string.
fn posted_text(call: &Call) -> String {
    format!(
        "{} {}",
        call.str("text").unwrap_or_default(),
        call.param("blocks")
            .map(Value::to_string)
            .unwrap_or_default()
    )
}

/// The value of one series (`name{labels}` exactly as encoded) in a metrics page.
fn metric(page: &str, series: &str) -> Option<f64> {
    page.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            (name == series).then(|| value.parse().expect("a number"))
        })
}

/// [`metric`], 0 when the series is not there yet.
fn count(page: &str, series: &str) -> f64 {
    metric(page, series).unwrap_or(0.0)
}

// ---------------------------------------------------------------------------------------
// 1. /v1/check

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_markdown_answer_is_checked_scored_and_rendered() {
    let s = Service::start().await;
    let site = site().await;
    let reply = s.check_markdown("", &markdown_answer(&site)).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let report = &reply.json;
    assert_eq!(report["shape"], "text");
    assert!(report["groups"].as_array().is_some_and(|g| !g.is_empty()));
    let ok = source(report, &site.url("/ok"));
    let gone = source(report, &site.url("/gone"));
    assert_eq!(ok["verdict"]["class"], "verified", "{ok}");
    assert_eq!(ok["verdict"]["status_code"], 200, "{ok}");
    assert_eq!(gone["verdict"]["class"], "broken", "{gone}");
    for s in [&ok, &gone] {
        assert!(s["credibility"]["value"].is_number(), "{s}");
    }
    assert!(report["confidence"]["value"].is_number(), "{report}");
    assert!(report["confidence"]["label"].is_string(), "{report}");
    assert_eq!(report["verification"]["performed"], true);
    assert_eq!(report["verification"]["counts"]["verified"], 1);
    assert_eq!(report["verification"]["counts"]["broken"], 1);
    let claims = report["claims"].as_array().expect("claims");
    let uncited: Vec<&Value> = claims
        .iter()
        .filter(|c| c["cites"].as_array().is_some_and(Vec::is_empty))
        .collect();
    assert!(
        uncited
            .iter()
            .any(|c| c["text"].as_str().unwrap_or_default().contains("churn")),
        "{claims:?}"
    );
    assert_eq!(report["metrics"]["uncited_claims"], 1, "{report}");
    let mrkdwn = reply.json["rendered"]["mrkdwn"].as_str().expect("mrkdwn");
    assert!(
        mrkdwn.contains(&format!("<{}|Freeze policy>", site.url("/ok"))),
        "{mrkdwn}"
    );
    let blocks = reply.json["rendered"]["blocks"]["blocks"]
        .as_array()
        .expect("blocks");
    assert!(!blocks.is_empty());
    assert!(reply.json.get("posted").is_none(), "a check posts nothing");
    assert!(site.requests() >= 2, "both links were probed");
    assert!(s.slack.calls_to("chat.postMessage").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_false_probes_nothing() {
    let s = Service::start().await;
    let site = site().await;
    for query in ["?verify=false", "?verify=0", "?verify=FALSE"] {
        let reply = s.check_markdown(query, &markdown_answer(&site)).await;
        assert_eq!(reply.status, 200, "{query}: {}", reply.text);
        assert_eq!(reply.json["verification"]["performed"], false, "{query}");
        for source in sources(&reply.json) {
            assert_eq!(source["verdict"]["class"], "not_checked", "{source}");
        }
    }
    assert_eq!(site.requests(), 0, "no link may be probed");
    assert_eq!(site.connections(), 0, "no connection may be opened");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_answer_with_sources_is_checked() {
    let s = Service::start().await;
    let site = site().await;
    let reply = s
        .check_json(&json!({
            "text": "Deploys freeze on Fridays [1]. The runbook moved [2].",
            "sources": [
                {"url": site.url("/ok"), "title": "Freeze policy", "type": "web"},
                {"url": site.url("/gone"), "title": "Old runbook"}
            ]
        }))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.json["shape"], "answer_json");
    assert_eq!(
        source(&reply.json, &site.url("/ok"))["verdict"]["class"],
        "verified"
    );
    assert_eq!(
        source(&reply.json, &site.url("/gone"))["verdict"]["class"],
        "broken"
    );
    assert_eq!(reply.json["metrics"]["unique_sources"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slack_message_is_read_as_slack_shows_it() {
    let s = Service::start().await;
    let site = site().await;
    // As conversations.history returns an assistant's answer: the answer in blocks, the
    // citations in a context block, an attachment with a title link, and a fallback
    // `text` that is only a notification line.
    let message = json!({
        "type": "message", "ts": "1700000000.000100", "user": "U0AIBOT", "bot_id": "BAI",
        "app_id": "AAI", "team": "T0001",
        "text": "Hello! I found some results for you! (see the thread)",
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": "Deploys freeze on Fridays after 3 pm [1]."}},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": format!("[1] <{}|Freeze policy>", site.url("/ok"))}]}
        ],
        "attachments": [{"title": "Old runbook", "title_link": site.url("/gone"), "fallback": "Old runbook"}]
    });
    for body in [message.clone(), json!({"ok": true, "messages": [message]})] {
        let reply = s.check_json(&body).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(reply.json["shape"], "slack_message");
        let ok = source(&reply.json, &site.url("/ok"));
        assert_eq!(ok["title"], "Freeze policy");
        assert_eq!(ok["verdict"]["class"], "verified");
        let gone = source(&reply.json, &site.url("/gone"));
        assert_eq!(gone["title"], "Old runbook");
        assert_eq!(gone["verdict"]["class"], "broken");
        assert_eq!(reply.json["metrics"]["unique_sources"], 2);
        assert_eq!(reply.json["metrics"]["cited_claims"], 1);
        assert!(
            !reply.text.contains("Hello! I found"),
            "the notification fallback is not the answer"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_research_report_is_checked() {
    let s = Service::start().await;
    let site = site().await;
    let reply = s
        .check_json(&json!({
            "title": "Deploy policy",
            "phase": "final",
            "citations": [
                {"id": "c1", "text": "Deploys freeze on Fridays.", "url": site.url("/ok"), "confidenceScore": 0.9},
                {"id": "c2", "text": "The runbook moved.", "url": site.url("/gone")},
                {"id": "c3", "text": "A citation without a link"}
            ],
            "generatedAt": "2026-01-01T00:00:00Z"
        }))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.json["shape"], "research_report");
    let ok = source(&reply.json, &site.url("/ok"));
    assert_eq!(ok["verdict"]["class"], "verified", "{ok}");
    assert_eq!(ok["agent_confidence"], 0.9, "{ok}");
    assert_eq!(
        source(&reply.json, &site.url("/gone"))["verdict"]["class"],
        "broken"
    );
    assert_eq!(sources(&reply.json).len(), 3, "{}", reply.json);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_results_get_search_scores() {
    let s = Service::start().await;
    let site = site().await;
    let reply = s
        .check_json(&json!({
            "organic": [
                {"title": "Freeze policy", "link": site.url("/ok"), "snippet": "Fridays", "position": 1, "date": "2025-06-01"},
                {"title": "Old runbook", "link": site.url("/gone"), "snippet": "moved", "position": 2}
            ]
        }))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.json["shape"], "search_results");
    let all = sources(&reply.json);
    assert_eq!(all.len(), 2, "{}", reply.json);
    for source in &all {
        assert!(
            source["credibility"]["search"].is_object(),
            "every search result has its search scores: {source}"
        );
    }
    assert_eq!(
        source(&reply.json, &site.url("/ok"))["verdict"]["class"],
        "verified"
    );
}

// ---------------------------------------------------------------------------------------
// 2. /v1/answers

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sources_are_posted_in_the_given_thread() {
    let s = Service::start().await;
    let site = site().await;
    let reply = s
        .answers(
            "",
            &json!({
                "channel": CHANNEL,
                "thread_ts": THREAD,
                "text": "Deploys freeze on Fridays [1]. The runbook moved [2].",
                "sources": [
                    {"url": site.url("/ok"), "title": "Freeze policy"},
                    {"url": site.url("/gone"), "title": "Old runbook"}
                ]
            }),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let posts = s.slack.calls_to("chat.postMessage");
    assert_eq!(posts.len(), 1, "{posts:?}");
    let post = &posts[0];
    assert_eq!(post.str("channel"), Some(CHANNEL));
    assert_eq!(post.str("thread_ts"), Some(THREAD));
    assert!(
        post.param("blocks")
            .and_then(Value::as_array)
            .is_some_and(|b| !b.is_empty()),
        "posted with blocks: {:?}",
        post.params
    );
    assert!(posted_text(post).contains("Freeze policy"));
    let stored = s.slack.messages(CHANNEL);
    assert_eq!(stored.len(), 1);
    let posted = &reply.json["posted"];
    assert_eq!(posted["sources_ts"], stored[0].ts.as_str(), "{posted}");
    assert_eq!(posted["answer_ts"], Value::Null, "{posted}");
    assert_eq!(posted["thread_ts"], THREAD, "{posted}");
    assert_eq!(posted["channel"], CHANNEL, "{posted}");
    // The report comes back as from /v1/check.
    assert_eq!(
        source(&reply.json, &site.url("/ok"))["verdict"]["class"],
        "verified"
    );
    assert!(reply.json["rendered"]["mrkdwn"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_answer_posts_the_marked_answer_then_its_sources_in_its_thread() {
    let s = Service::start().await;
    let site = site().await;
    let reply = s
        .answers(
            "",
            &json!({
                "channel": CHANNEL,
                "post_answer": true,
                "text": "Deploys freeze on Fridays [1]. Our churn fell to 2% last quarter. Tell <!channel> & <@U123>.",
                "sources": [{"url": site.url("/ok"), "title": "Freeze policy"}]
            }),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let posts = s.slack.calls_to("chat.postMessage");
    assert_eq!(posts.len(), 2, "{posts:?}");
    let (answer, sources_post) = (&posts[0], &posts[1]);
    let answer_text = answer.str("text").expect("the answer is posted as text");
    assert!(
        answer_text.contains("last quarter. _(unverified)_"),
        "{answer_text}"
    );
    assert!(
        !answer_text.contains("Fridays [1]. _(unverified)_"),
        "{answer_text}"
    );
    assert!(answer_text.contains("&lt;!channel&gt;"), "{answer_text}");
    assert!(answer_text.contains("&lt;@U123&gt;"), "{answer_text}");
    assert!(answer_text.contains("&amp;"), "{answer_text}");
    assert!(
        !answer_text.contains("<!channel>") && !answer_text.contains("<@U123>"),
        "{answer_text}"
    );
    assert_eq!(answer.str("thread_ts"), None, "the answer starts a thread");
    let posted = &reply.json["posted"];
    let answer_ts = posted["answer_ts"].as_str().expect("answer_ts");
    let stored = s.slack.messages(CHANNEL);
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0].ts, answer_ts, "answer_ts is the answer's message");
    assert_eq!(
        sources_post.str("thread_ts"),
        Some(answer_ts),
        "the sources go in the answer's thread"
    );
    assert!(sources_post.param("blocks").is_some());
    assert_eq!(posted["sources_ts"], stored[1].ts.as_str());
    assert_eq!(posted["thread_ts"], answer_ts);
    assert_eq!(posted["channel"], CHANNEL);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_thread_or_post_answer_nothing_is_posted() {
    let s = Service::start().await;
    let site = site().await;
    for post_answer in [json!(false), Value::Null] {
        let mut body = json!({
            "channel": CHANNEL,
            "text": "Deploys freeze on Fridays [1].",
            "sources": [{"url": site.url("/ok"), "title": "Freeze policy"}]
        });
        if !post_answer.is_null() {
            body["post_answer"] = post_answer;
        }
        let reply = s.answers("", &body).await;
        assert_error(&reply, 422, "invalid_field", Some("$.thread_ts"));
    }
    assert!(s.slack.calls_to("chat.postMessage").is_empty());
    assert_eq!(site.requests(), 0, "a refused request checks nothing");
}

// ---------------------------------------------------------------------------------------
// 3. Authentication

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_v1_routes_need_a_known_bearer_token() {
    let s = Service::start().await;
    let body = "Deploys freeze on Fridays.";
    let unauthorized = |reply: &Reply| {
        assert_error(reply, 401, "unauthorized", None);
        assert!(
            reply
                .header("www-authenticate")
                .is_some_and(|v| v.starts_with("Bearer")),
            "{:?}",
            reply.headers
        );
    };
    let none = send(s.http.post(s.url("/v1/check")).body(body)).await;
    unauthorized(&none);
    let wrong = send(
        s.post_as("/v1/check", "wrong-token-0123456789abcdef")
            .body(body),
    )
    .await;
    unauthorized(&wrong);
    let prefix = send(s.post_as("/v1/check", &TOKEN[..TOKEN.len() - 1]).body(body)).await;
    unauthorized(&prefix);
    let basic = send(
        s.http
            .post(s.url("/v1/check"))
            .header("authorization", format!("Basic {TOKEN}"))
            .body(body),
    )
    .await;
    unauthorized(&basic);
    let answers = send(
        s.http
            .post(s.url("/v1/answers"))
            .json_body(&json!({"channel": CHANNEL, "thread_ts": THREAD, "text": body})),
    )
    .await;
    unauthorized(&answers);
    assert!(s.slack.calls_to("chat.postMessage").is_empty());
    // Both configured tokens work.
    for token in [TOKEN, OTHER_TOKEN] {
        let reply = send(
            s.post_as("/v1/check?verify=false", token)
                .header("content-type", "text/plain")
                .body(body),
        )
        .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_tokens_the_api_is_off_and_ready_says_so() {
    let settings = ApiSettings {
        tokens: Vec::new(),
        ..ApiSettings::default()
    };
    let s = Service::start_with(settings, config()).await;
    for path in ["/v1/check", "/v1/answers"] {
        let reply = send(s.post(path).body("Deploys freeze on Fridays.")).await;
        assert_error(&reply, 404, "api_disabled", None);
    }
    let ready = s.get("/readyz").await;
    assert_eq!(ready.status, 200, "{}", ready.text);
    assert_eq!(ready.json["api"], "off");
    assert_eq!(ready.json["ready"], true);
}

// ---------------------------------------------------------------------------------------
// 4. Refusals

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_are_400_naming_what_is_wrong() {
    let s = Service::start().await;
    let site = site().await;
    // Bad JSON, by line and column.
    let bad = send(
        s.post("/v1/check")
            .header("content-type", "application/json")
            .body("{\"text\": \"a\",\n \"sources\": [}"),
    )
    .await;
    assert_error(&bad, 400, "malformed", Some("line 2, column 14"));
    let bad = send(
        s.post("/v1/answers")
            .header("content-type", "application/json")
            .body("{\"channel\": \"C1\",\n \"text\": }"),
    )
    .await;
    assert_eq!(bad.status, 400, "{}", bad.text);
    assert_eq!(bad.json["error"]["code"], "malformed");
    assert!(
        bad.json["error"]["path"]
            .as_str()
            .is_some_and(|p| p.starts_with("line 2, column ")),
        "{}",
        bad.text
    );
    // A bad field deep in the sources, on both routes.
    let sources = json!([
        {"url": site.url("/ok"), "title": "Fine"},
        {"url": 5, "title": "Not a URL"}
    ]);
    let deep = s
        .check_json(&json!({"text": "Hi [1].", "sources": sources}))
        .await;
    assert_error(&deep, 400, "malformed", Some("$.sources[1].url"));
    let deep = s
        .answers(
            "",
            &json!({"channel": CHANNEL, "thread_ts": THREAD, "text": "Hi [1].", "sources": sources}),
        )
        .await;
    assert_error(&deep, 400, "malformed", Some("$.sources[1].url"));
    // A bad query.
    let maybe = s.check_markdown("?verify=maybe", "Deploys freeze.").await;
    assert_error(&maybe, 400, "malformed", Some("?verify"));
    // A field of the wrong type.
    for (body, path) in [
        (
            json!({"channel": 42, "thread_ts": THREAD, "text": "a"}),
            "$.channel",
        ),
        (
            json!({"channel": CHANNEL, "thread_ts": 1.5, "text": "a"}),
            "$.thread_ts",
        ),
        (
            json!({"channel": CHANNEL, "post_answer": "yes", "text": "a"}),
            "$.post_answer",
        ),
    ] {
        let reply = s.answers("", &body).await;
        assert_error(&reply, 400, "malformed", Some(path));
    }
    let not_object = s.answers("", &json!(["a"])).await;
    assert_error(&not_object, 400, "malformed", Some("$"));
    assert!(s.slack.calls_to("chat.postMessage").is_empty());
    assert_eq!(site.requests(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_over_the_limit_are_413_with_or_without_a_length() {
    let mut settings = api_settings();
    settings.max_body_bytes = 1024;
    let s = Service::start_with(settings, config()).await;
    let big = format!("Deploys freeze on Fridays. {}", "x".repeat(2000));
    // With a Content-Length.
    for path in ["/v1/check", "/v1/answers"] {
        let reply = send(
            s.post(path)
                .header("content-type", "application/json")
                .body(big.clone()),
        )
        .await;
        assert_error(&reply, 413, "body_too_large", None);
    }
    // Chunked, without a length: the limit is enforced while reading.
    let chunks: String = (0..4)
        .map(|_| format!("{:x}\r\n{}\r\n", 500, "y".repeat(500)))
        .collect();
    let request = format!(
        "POST /v1/check HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: text/markdown\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\
         {chunks}0\r\n\r\n",
        s.addr
    );
    let (status, body) = raw_http(s.addr, request.as_bytes()).await;
    assert_eq!(status, 413, "{body}");
    let error: Value = serde_json::from_str(body.trim()).expect("JSON body");
    assert_eq!(error["error"]["code"], "body_too_large", "{body}");
    // A chunked body within the limit is read whole.
    let small = "Deploys freeze on Fridays.";
    let request = format!(
        "POST /v1/check?verify=false HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: text/markdown\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\
         {:x}\r\n{small}\r\n0\r\n\r\n",
        s.addr,
        small.len()
    );
    let (status, body) = raw_http(s.addr, request.as_bytes()).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_types_that_are_no_answer_are_415() {
    let s = Service::start().await;
    let xml = send(
        s.post("/v1/check")
            .header("content-type", "application/xml")
            .body("<answer/>"),
    )
    .await;
    assert_error(&xml, 415, "unsupported_media_type", None);
    // /v1/answers takes JSON only.
    let markdown = send(
        s.post("/v1/answers")
            .header("content-type", "text/markdown")
            .body("Deploys freeze on Fridays."),
    )
    .await;
    assert_error(&markdown, 415, "unsupported_media_type", None);
    assert!(s.slack.calls_to("chat.postMessage").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn well_formed_but_unusable_requests_are_422() {
    let mut settings = api_settings();
    settings.max_sources = 3;
    let s = Service::start_with(settings, config()).await;
    let site = site().await;
    let missing = s
        .answers("", &json!({"thread_ts": THREAD, "text": "a"}))
        .await;
    assert_error(&missing, 422, "missing_field", Some("$.channel"));
    for (body, path) in [
        (
            json!({"channel": "C0 SPACE", "thread_ts": THREAD, "text": "a"}),
            "$.channel",
        ),
        (
            json!({"channel": CHANNEL, "thread_ts": "yesterday", "text": "a"}),
            "$.thread_ts",
        ),
        (
            json!({"channel": CHANNEL, "post_answer": true, "text": "  "}),
            "$.text",
        ),
    ] {
        let reply = s.answers("", &body).await;
        assert_error(&reply, 422, "invalid_field", Some(path));
    }
    let four: Vec<Value> = (0..4)
        .map(|i| json!({"url": site.url(&format!("/ok{i}")), "title": format!("Page {i}")}))
        .collect();
    let structured = s
        .check_json(&json!({"text": "Four sources.", "sources": four}))
        .await;
    assert_error(&structured, 422, "too_many_sources", Some("$.sources"));
    let structured = s
        .answers(
            "",
            &json!({"channel": CHANNEL, "thread_ts": THREAD, "text": "Four.", "sources": four}),
        )
        .await;
    assert_error(&structured, 422, "too_many_sources", Some("$.sources"));
    let inline: String = (0..4)
        .map(|i| format!("Claim {i} [{i}]({}). ", site.url(&format!("/ok{i}"))))
        .collect();
    let markdown = s.check_markdown("?verify=false", &inline).await;
    assert_eq!(markdown.status, 422, "{}", markdown.text);
    assert_eq!(markdown.json["error"]["code"], "too_many_sources");
    let empty = s.check_markdown("", "   \n").await;
    assert_error(&empty, 422, "empty", None);
    assert!(s.slack.calls_to("chat.postMessage").is_empty());
    assert_eq!(site.requests(), 0, "no refused answer had its links probed");
}

/// `SOURCEBOT_API_MAX_SOURCES` says "at most N are checked per answer": an answer whose
/// links are over the limit must be refused before they are probed, or the limit bounds
/// nothing (a 1 MiB Markdown body can carry thousands of links).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_markdown_answer_over_the_source_limit_is_refused_before_its_links_are_probed() {
    let mut settings = api_settings();
    settings.max_sources = 3;
    let s = Service::start_with(settings, config()).await;
    let site = site().await;
    let inline: String = (0..4)
        .map(|i| format!("Claim {i} [{i}]({}). ", site.url(&format!("/ok{i}"))))
        .collect();
    let reply = s.check_markdown("", &inline).await;
    assert_eq!(reply.status, 422, "{}", reply.text);
    assert_eq!(reply.json["error"]["code"], "too_many_sources");
    assert_eq!(
        site.requests(),
        0,
        "the links of a refused answer were probed: {:?}",
        site.request_log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slack_refusals_are_422_and_say_what_was_already_posted() {
    let s = Service::start().await;
    let outside = "C0OUTSIDE";
    s.slack.set_channel(outside, Access::NotMember);
    let refused = s
        .answers(
            "?verify=false",
            &json!({"channel": outside, "thread_ts": THREAD, "text": "Deploys freeze on Fridays."}),
        )
        .await;
    assert_error(&refused, 422, "slack_refused", None);
    assert_eq!(refused.json["error"]["slack_error"], "not_in_channel");
    assert!(
        refused.json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("/invite")),
        "{}",
        refused.text
    );
    assert!(refused.json["error"].get("posted_answer_ts").is_none());
    // The answer goes out, then the sources post fails: the caller learns the answer's
    // ts so that a retry does not post it twice.
    let later = "C0LATER";
    let request = s
        .post("/v1/answers?verify=false")
        .json_body(&json!({
            "channel": later,
            "post_answer": true,
            "text": "Deploys freeze on Fridays. Our churn fell to 2% last quarter."
        }))
        .send();
    let pending = tokio::spawn(request);
    let first = s.slack.wait_for("chat.postMessage", 2, WAIT).await;
    assert_eq!(first.len(), 2, "the answer is posted: {first:?}");
    // The fake records a call before it stores the message: wait for the answer to be
    // in the channel, or the refusal could hit the answer itself.
    let stored_by = Instant::now() + WAIT;
    while s.slack.messages(later).is_empty() && Instant::now() < stored_by {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The sources post waits a second behind the answer (per-channel pacing).
    s.slack.set_channel(later, Access::NotMember);
    let response = pending.await.expect("join").expect("response");
    let status = response.status().as_u16();
    let body: Value = serde_json::from_str(&response.text().await.expect("body")).expect("JSON");
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["code"], "slack_refused");
    assert_eq!(body["error"]["slack_error"], "not_in_channel");
    let stored = s.slack.messages(later);
    assert_eq!(stored.len(), 1, "only the answer is in the channel");
    assert_eq!(
        body["error"]["posted_answer_ts"],
        stored[0].ts.as_str(),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_is_per_token() {
    let mut settings = api_settings();
    settings.rate_requests = 2;
    settings.rate_period = Duration::from_secs(60);
    let s = Service::start_with(settings, config()).await;
    let check = |token: &'static str| {
        send(
            s.post_as("/v1/check?verify=false", token)
                .header("content-type", "text/plain")
                .body("Deploys freeze on Fridays."),
        )
    };
    assert_eq!(check(TOKEN).await.status, 200);
    assert_eq!(check(TOKEN).await.status, 200);
    let limited = check(TOKEN).await;
    assert_error(&limited, 429, "rate_limited", None);
    let retry_after: u64 = limited
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .expect("Retry-After in seconds");
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    // Refused on /v1/answers too, before anything is read or posted.
    let answers = s
        .answers(
            "",
            &json!({"channel": CHANNEL, "thread_ts": THREAD, "text": "a"}),
        )
        .await;
    assert_error(&answers, 429, "rate_limited", None);
    assert!(s.slack.calls_to("chat.postMessage").is_empty());
    // The other token has its own allowance.
    assert_eq!(check(OTHER_TOKEN).await.status, 200);
    assert_eq!(check(OTHER_TOKEN).await.status, 200);
    assert_eq!(check(OTHER_TOKEN).await.status, 429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slack_out_of_reach_is_503() {
    let s = Service::start().await;
    let body =
        json!({"channel": CHANNEL, "thread_ts": THREAD, "text": "Deploys freeze on Fridays."});
    for failure in [Failure::Hang, Failure::ServerError] {
        s.slack.fail_next("chat.postMessage", failure.clone(), 1);
        let reply = s.answers("?verify=false", &body).await;
        assert_error(&reply, 503, "slack_unavailable", None);
        assert!(
            reply.header("retry-after").is_some(),
            "{failure:?}: {:?}",
            reply.headers
        );
    }
    // Slack's rate limit, still there after the one retry.
    s.slack.fail_next(
        "chat.postMessage",
        Failure::RateLimited {
            retry_after_secs: 1,
        },
        2,
    );
    let reply = s.answers("?verify=false", &body).await;
    assert_error(&reply, 503, "slack_rate_limited", None);
    // And Slack back: the same request goes through.
    let reply = s.answers("?verify=false", &body).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_over_the_time_allowed_is_503() {
    let mut settings = api_settings();
    settings.timeout = Duration::from_secs(1);
    let mut config = config();
    config.verify.timeout = Duration::from_secs(5);
    let s = Service::start_with(settings, config).await;
    let site = site().await;
    let started = Instant::now();
    let reply = s
        .check_markdown(
            "",
            &format!(
                "Deploys freeze on Fridays [1].\n\n[1] {}",
                site.url("/slow")
            ),
        )
        .await;
    let took = started.elapsed();
    assert_error(&reply, 503, "timeout", None);
    assert!(reply.header("retry-after").is_some(), "{:?}", reply.headers);
    assert!(
        took < Duration::from_secs(4),
        "answered after the 1 s limit, not after the 5 s probe: {took:?}"
    );
    assert_eq!(site.requests_to("/slow").len(), 1, "the probe did start");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_routes_are_json_404s() {
    let s = Service::start().await;
    for path in ["/v1/nothing", "/nothing"] {
        let reply = send(s.post(path).body("x")).await;
        assert_error(&reply, 404, "not_found", None);
        let reply = s.get(path).await;
        assert_error(&reply, 404, "not_found", None);
    }
    let reply = s.get("/v1/nothing").await;
    assert!(
        reply.json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("/v1/nothing")),
        "{}",
        reply.text
    );
}

// ---------------------------------------------------------------------------------------
// 5. /metrics

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_requests_links_cache_and_slack_calls() {
    let s = Service::start().await;
    let site = site().await;
    let check_200 = r#"sourcebot_http_requests_total{route="/v1/check",status="200"}"#;
    let answers_401 = r#"sourcebot_http_requests_total{route="/v1/answers",status="401"}"#;
    let verified = r#"sourcebot_links_checked_total{verdict="verified"}"#;
    let hits = r#"sourcebot_verdict_cache_lookups_total{result="hit"}"#;
    let misses = r#"sourcebot_verdict_cache_lookups_total{result="miss"}"#;
    let probes = "sourcebot_probe_duration_seconds_count";
    let posts_ok = r#"sourcebot_slack_api_calls_total{method="chat.postMessage",outcome="ok"}"#;
    let auth_ok = r#"sourcebot_slack_api_calls_total{method="auth.test",outcome="ok"}"#;

    let start = s.metrics().await;
    assert_eq!(metric(&start, auth_ok), Some(1.0), "{start}");
    assert_eq!(count(&start, check_200), 0.0);
    assert_eq!(count(&start, posts_ok), 0.0);
    assert!(start.ends_with("# EOF\n"), "{start}");

    let answer = format!("Deploys freeze on Fridays [1].\n\n[1] {}", site.url("/ok"));
    assert_eq!(s.check_markdown("", &answer).await.status, 200);
    let first = s.metrics().await;
    assert_eq!(count(&first, check_200), 1.0, "{first}");
    assert_eq!(count(&first, verified), count(&start, verified) + 1.0);
    assert_eq!(count(&first, misses), count(&start, misses) + 1.0);
    assert_eq!(count(&first, hits), count(&start, hits));
    assert_eq!(count(&first, probes), count(&start, probes) + 1.0);
    assert!(
        count(
            &first,
            r#"sourcebot_http_requests_total{route="/metrics",status="200"}"#
        ) >= 1.0,
        "{first}"
    );

    // The same link again: a cache hit, no new probe.
    let probed = site.requests();
    assert_eq!(s.check_markdown("", &answer).await.status, 200);
    let second = s.metrics().await;
    assert_eq!(count(&second, check_200), 2.0, "{second}");
    assert_eq!(count(&second, hits), count(&first, hits) + 1.0, "{second}");
    assert_eq!(count(&second, verified), count(&first, verified) + 1.0);
    assert_eq!(count(&second, probes), count(&first, probes), "{second}");
    assert_eq!(site.requests(), probed, "the verdict came from the cache");

    // A refused request and a posted one.
    let refused = send(
        s.http
            .post(s.url("/v1/answers"))
            .json_body(&json!({"channel": CHANNEL, "thread_ts": THREAD, "text": "a"})),
    )
    .await;
    assert_eq!(refused.status, 401);
    let body = json!({"channel": CHANNEL, "thread_ts": THREAD, "text": answer});
    assert_eq!(s.answers("", &body).await.status, 200);
    let third = s.metrics().await;
    assert_eq!(
        count(&third, answers_401),
        count(&second, answers_401) + 1.0
    );
    assert_eq!(
        count(&third, posts_ok),
        count(&second, posts_ok) + 1.0,
        "{third}"
    );
    assert_eq!(
        count(
            &third,
            r#"sourcebot_http_requests_total{route="/v1/answers",status="200"}"#
        ),
        1.0
    );
    assert_eq!(
        count(&third, check_200),
        2.0,
        "answers are not counted as checks"
    );
    assert_eq!(metric(&third, auth_ok), Some(1.0));
}

// ---------------------------------------------------------------------------------------
// 6. /readyz

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_says_who_the_bot_is() {
    let s = Service::start().await;
    let reply = s.get("/readyz").await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.json["ready"], true);
    assert_eq!(reply.json["slack"]["user_id"], BOT_USER_ID);
    assert_eq!(reply.json["slack"]["auth_test"], "ok");
    assert_eq!(reply.json["api"], "on");
    assert!(reply.json["slack"]["signed_in_at"]
        .as_u64()
        .is_some_and(|t| t > 0));
    let health = s.get("/healthz").await;
    assert_eq!(health.status, 200);
    assert_eq!(s.slack.calls_to("auth.test").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_stays_200_and_names_redis_while_it_is_away() {
    let memory = Service::start().await.get("/readyz").await;
    assert_eq!(memory.json["shared_state"]["backend"], "memory");
    assert_eq!(memory.json["degraded"], serde_json::json!([]));

    let Some(mut redis) = support::redis::RedisServer::start().await else {
        return;
    };
    let s = Service::start_on(api_settings(), config(), Some(redis.url())).await;
    let up = s.get("/readyz").await;
    assert_eq!(up.status, 200, "{}", up.text);
    assert_eq!(up.json["shared_state"]["backend"], "redis");
    assert_eq!(up.json["shared_state"]["status"], "ok");

    redis.kill();
    let down = s.get("/readyz").await;
    assert_eq!(
        down.status, 200,
        "a replica that can answer stays in the pool"
    );
    assert_eq!(down.json["ready"], true);
    assert_eq!(down.json["degraded"], serde_json::json!(["shared_state"]));
    assert_eq!(down.json["shared_state"]["status"], "down");
    assert_eq!(down.json["shared_state"]["backend"], "redis");
    assert!(down.json["shared_state"]["last_error"]
        .as_str()
        .is_some_and(|why| !why.is_empty()));
    let metrics = s.get("/metrics").await;
    assert!(
        metrics.text.contains("sourcebot_shared_state_up 0"),
        "{}",
        metrics.text
    );

    redis.restart().await;
    let mut back = s.get("/readyz").await;
    for _ in 0..50 {
        if back.json["shared_state"]["status"] == "ok" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        back = s.get("/readyz").await;
    }
    assert_eq!(back.json["shared_state"]["status"], "ok", "{}", back.text);
    assert_eq!(back.json["degraded"], serde_json::json!([]));
}

// ---------------------------------------------------------------------------------------
// 7. Load

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_answers_to_five_channels_are_each_posted_once_and_paced() {
    const CHANNELS: usize = 5;
    const PER_CHANNEL: usize = 10;
    let mut settings = api_settings();
    settings.rate_requests = 1000;
    let s = Service::start_with(settings, config()).await;
    let channel = |c: usize| format!("C0LOAD{c}");
    // Unique and no prefix of another: mk{c}x{n}z.
    let marker = |c: usize, n: usize| format!("mk{c}x{n:02}z");
    let mut requests = Vec::new();
    for c in 0..CHANNELS {
        for n in 0..PER_CHANNEL {
            let body = json!({
                "channel": channel(c),
                "thread_ts": THREAD,
                "text": format!("Answer {} [1].", marker(c, n)),
                "sources": [{"url": format!("https://example.com/{}", marker(c, n)), "title": marker(c, n)}]
            });
            let request = s.post("/v1/answers?verify=false").json_body(&body).send();
            requests.push(tokio::spawn(async move {
                let response = request.await.expect("response");
                let status = response.status().as_u16();
                let body: Value = serde_json::from_str(&response.text().await.unwrap_or_default())
                    .unwrap_or(Value::Null);
                (status, body)
            }));
        }
    }
    let mut sources_ts = HashSet::new();
    for request in requests {
        let (status, body) = request.await.expect("join");
        assert_eq!(status, 200, "{body}");
        let ts = body["posted"]["sources_ts"].as_str().expect("sources_ts");
        assert!(sources_ts.insert(ts.to_string()), "ts {ts} returned twice");
    }
    let posts = s.slack.calls_to("chat.postMessage");
    assert_eq!(posts.len(), CHANNELS * PER_CHANNEL);
    let mut by_channel: HashMap<String, Vec<&Call>> = HashMap::new();
    for post in &posts {
        by_channel
            .entry(post.str("channel").unwrap_or_default().to_string())
            .or_default()
            .push(post);
        assert_eq!(post.str("thread_ts"), Some(THREAD));
    }
    for c in 0..CHANNELS {
        let calls = by_channel.get(&channel(c)).cloned().unwrap_or_default();
        assert_eq!(calls.len(), PER_CHANNEL, "channel {}", channel(c));
        for n in 0..PER_CHANNEL {
            let m = marker(c, n);
            let with = posts.iter().filter(|p| posted_text(p).contains(&m)).count();
            assert_eq!(with, 1, "{m} posted {with} times");
            assert!(
                calls.iter().any(|p| posted_text(p).contains(&m)),
                "{m} not in its channel"
            );
        }
        let times: Vec<Instant> = calls.iter().map(|p| p.at).collect();
        assert_paced(&times, CHANNEL_PACE, &channel(c));
    }
}

// ---------------------------------------------------------------------------------------
// 8. Untrusted text

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn titles_from_the_answer_mention_no_one() {
    let s = Service::start().await;
    let site = site().await;
    let reply = s
        .answers(
            "",
            &json!({
                "channel": CHANNEL,
                "thread_ts": THREAD,
                "text": "Deploys freeze on Fridays [1].",
                "sources": [{"url": site.url("/ok"), "title": "<!channel> <@U123>", "snippet": "<!here> <#C999>"}]
            }),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let posts = s.slack.calls_to("chat.postMessage");
    assert_eq!(posts.len(), 1);
    let shown = posted_text(&posts[0]);
    for raw in ["<!channel>", "<@U123>", "<!here>", "<#C999>"] {
        assert!(!shown.contains(raw), "{raw} reached Slack: {shown}");
    }
    assert!(shown.contains("&lt;!channel&gt;"), "{shown}");
    let mrkdwn = reply.json["rendered"]["mrkdwn"]
        .as_str()
        .unwrap_or_default();
    assert!(
        !mrkdwn.contains("<!channel>") && !mrkdwn.contains("<@U123>"),
        "{mrkdwn}"
    );
}

// ---------------------------------------------------------------------------------------
// 9. What src/api.rs promises beyond the list above

/// `answers` in src/api.rs says that once posting starts "the request runs to its
/// end": a caller that gives up (a client timeout) after the answer went out must not
/// leave it without its sources, or its retry posts a second copy of the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_that_hangs_up_after_the_answer_is_posted_still_gets_the_sources_posted() {
    let s = Service::start().await;
    let request = s
        .post("/v1/answers?verify=false")
        .json_body(&json!({
            "channel": CHANNEL,
            "post_answer": true,
            "text": "Deploys freeze on Fridays. Our churn fell to 2% last quarter."
        }))
        .send();
    let pending = tokio::spawn(request);
    let answer = s.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(answer.len(), 1, "the answer is posted");
    // The caller hangs up while the sources wait for the channel's pace.
    pending.abort();
    let _ = pending.await;
    let posts = s.slack.wait_for("chat.postMessage", 2, WAIT).await;
    assert_eq!(
        posts.len(),
        2,
        "the answer was posted but its sources never were: {:?}",
        s.slack.messages(CHANNEL)
    );
    let answer_ts = &s.slack.messages(CHANNEL)[0].ts;
    assert_eq!(posts[1].str("thread_ts"), Some(answer_ts.as_str()));
}

/// The module documentation of src/api.rs: "Every refusal is `{"error": {"code",
/// "message", "path"?}}`". Refusals made by the framework (a known route with the wrong
/// method, a query string axum cannot read) are refusals too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_made_by_the_framework_are_json_too() {
    let s = Service::start().await;
    for path in ["/v1/check", "/v1/answers"] {
        let reply = send(s.http.get(s.url(path)).bearer_auth(TOKEN)).await;
        assert_eq!(reply.status, 405, "{path}: {}", reply.text);
        assert!(
            reply.json["error"]["code"].is_string(),
            "GET {path}: 405 without a JSON error body: {:?} {:?}",
            reply.headers,
            reply.text
        );
    }
    let twice = s
        .check_markdown("?verify=true&verify=false", "Deploys freeze on Fridays.")
        .await;
    assert_eq!(twice.status, 400, "{}", twice.text);
    assert_eq!(
        twice.json["error"]["code"], "malformed",
        "a query axum cannot read: {:?} {:?}",
        twice.headers, twice.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_posts_once_over_two_replicas_sharing_redis() {
    let Some(redis) = support::redis::RedisServer::start().await else {
        return;
    };
    let a = Service::start_on(api_settings(), config(), Some(redis.url())).await;
    let b = Service::start_on(api_settings(), config(), Some(redis.url())).await;
    let body =
        json!({"channel": "C0IDEM", "thread_ts": THREAD, "text": "Deploys freeze on Fridays."});
    let keyed = |s: &Service, key: &str| {
        s.post("/v1/answers?verify=false")
            .header("idempotency-key", key)
            .json_body(&body)
    };
    // The caller's retry lands on the other replica, at once and later.
    let (first, second) = tokio::join!(send(keyed(&a, "r-1")), send(keyed(&b, "r-1")));
    let third = send(keyed(&b, "r-1")).await;
    for reply in [&first, &second, &third] {
        assert_eq!(reply.status, 200, "{}", reply.text);
    }
    let posts =
        a.slack.calls_to("chat.postMessage").len() + b.slack.calls_to("chat.postMessage").len();
    assert_eq!(posts, 1, "one post for one key over both replicas");
    let ts: HashSet<&str> = [&first, &second, &third]
        .iter()
        .filter_map(|r| r.json["posted"]["sources_ts"].as_str())
        .collect();
    assert_eq!(ts.len(), 1, "everyone gets the one post's ts: {ts:?}");
    let replayed = [&first, &second, &third]
        .iter()
        .filter(|r| r.header("idempotent-replayed") == Some("true"))
        .count();
    assert_eq!(replayed, 2);
    // The same key for another answer, on the other replica: refused.
    let reused = send(
        a.post("/v1/answers?verify=false")
            .header("idempotency-key", "r-1")
            .json_body(
                &json!({"channel": "C0IDEM", "thread_ts": THREAD, "text": "Another answer."}),
            ),
    )
    .await;
    assert_error(
        &reused,
        422,
        "idempotency_key_reused",
        Some("Idempotency-Key"),
    );
    // The token never reaches Redis; the key does, with its TTL.
    let mut connection = redis.connection().await;
    let keys: Vec<String> = redis::AsyncCommands::keys(&mut connection, "sourcebot:idem:*")
        .await
        .expect("KEYS");
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(!keys[0].contains(TOKEN), "{keys:?}");
    let left: i64 = redis::AsyncCommands::pttl(&mut connection, &keys[0])
        .await
        .expect("PTTL");
    assert!(left > 3_500_000 && left <= 3_600_000, "{left}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_posts_once_however_often_it_is_sent() {
    let s = Service::start().await;
    let body =
        json!({"channel": "C0IDEM", "thread_ts": THREAD, "text": "Deploys freeze on Fridays."});
    let keyed = |key: &str| {
        s.post("/v1/answers?verify=false")
            .header("idempotency-key", key)
            .json_body(&body)
    };
    // Three at once and one after: a single post, the same ts for everyone.
    let (a, b, c) = tokio::join!(send(keyed("k-1")), send(keyed("k-1")), send(keyed("k-1")));
    let d = send(keyed("k-1")).await;
    for reply in [&a, &b, &c, &d] {
        assert_eq!(reply.status, 200, "{}", reply.text);
    }
    let ts: HashSet<&str> = [&a, &b, &c, &d]
        .iter()
        .filter_map(|r| r.json["posted"]["sources_ts"].as_str())
        .collect();
    assert_eq!(ts.len(), 1, "one post for one key: {ts:?}");
    let replayed = [&a, &b, &c, &d]
        .iter()
        .filter(|r| r.header("idempotent-replayed") == Some("true"))
        .count();
    assert_eq!(replayed, 3);
    assert_eq!(s.slack.calls_to("chat.postMessage").len(), 1);
    // Another key posts again; the same key from the other token is another caller.
    assert_eq!(send(keyed("k-2")).await.status, 200);
    let other = send(
        s.post_as("/v1/answers?verify=false", OTHER_TOKEN)
            .header("idempotency-key", "k-1")
            .json_body(&body),
    )
    .await;
    assert_eq!(other.status, 200, "{}", other.text);
    assert_eq!(s.slack.calls_to("chat.postMessage").len(), 3);
    // The same key for a different answer is a caller's mistake, not a retry.
    let reused = send(
        s.post("/v1/answers?verify=false")
            .header("idempotency-key", "k-1")
            .json_body(
                &json!({"channel": "C0IDEM", "thread_ts": THREAD, "text": "Another answer."}),
            ),
    )
    .await;
    assert_error(
        &reused,
        422,
        "idempotency_key_reused",
        Some("Idempotency-Key"),
    );
    assert_eq!(s.slack.calls_to("chat.postMessage").len(), 3);
    // A bad key is refused before anything is posted.
    let bad = send(keyed(&"x".repeat(201))).await;
    assert_error(&bad, 400, "malformed", Some("Idempotency-Key"));
    assert_eq!(s.slack.calls_to("chat.postMessage").len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_before_slack_is_not_remembered_for_the_key() {
    let s = Service::start().await;
    let body =
        json!({"channel": "C0RETRY", "thread_ts": THREAD, "text": "Deploys freeze on Fridays."});
    s.slack
        .fail_next("chat.postMessage", Failure::ServerError, 1);
    let send_keyed = || {
        send(
            s.post("/v1/answers?verify=false")
                .header("idempotency-key", "retry-me")
                .json_body(&body),
        )
    };
    let first = send_keyed().await;
    assert_error(&first, 503, "slack_unavailable", None);
    // Slack is back: the retry with the same key really posts.
    let second = send_keyed().await;
    assert_eq!(second.status, 200, "{}", second.text);
    assert_eq!(second.header("idempotent-replayed"), None);
    assert!(second.json["posted"]["sources_ts"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gate_answers_while_starting_then_hands_over() {
    sourcebot::verify::install_crypto_provider();
    let metrics = Metrics::new();
    let health = metrics.health();
    health.set(Part::Database, Status::Starting);
    health.set(Part::Slack, Status::Starting);
    let gate = api::Gate::new(metrics.clone());
    let (addr, server) = serve_app(gate.router()).await;
    let http = loopback_client();
    let post = || send(http.post(format!("http://{addr}/slack/events")).body("x"));
    let opening = post().await;
    assert_error(&opening, 503, "starting", None);
    assert!(opening.header("retry-after").is_some());
    assert!(opening.json["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("opening its database")));
    health.ok(Part::Database);
    health.failed(Part::Slack, "Slack did not answer auth.test within 10 s");
    let signing_in = post().await;
    assert_error(&signing_in, 503, "starting", None);
    assert!(
        signing_in.json["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("signing in to Slack")
                && m.contains("Slack did not answer auth.test within 10 s")),
        "{}",
        signing_in.text
    );
    gate.open(axum::Router::new().route("/slack/events", axum::routing::post(|| async { "open" })));
    let open = post().await;
    assert_eq!((open.status, open.text.as_str()), (200, "open"));
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_answer_is_collected_off_the_workers_all_the_same() {
    let s = Service::start().await;
    // Over 64 KiB of text: collected on the blocking pool.
    let mut text = String::new();
    for i in 0..1000 {
        text.push_str(&format!(
            "Claim number {i} about deployments holds in most cases we measured so far [{}].\n\n",
            i % 40 + 1
        ));
    }
    for n in 1..=40 {
        text.push_str(&format!(
            "[{n}] https://docs.example.org/page/{n} - Page {n}\n"
        ));
    }
    assert!(text.len() > 64 * 1024, "{}", text.len());
    let reply = s.check_markdown("?verify=false", &text).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.json["metrics"]["unique_sources"], 40);
    assert_eq!(reply.json["metrics"]["dangling_citations"], 0);
}

//! MCP's streamable HTTP transport at `/mcp` end to end: the API's routes
//! (`sourcebot::api::router` over an `ApiState` built as `serve` builds it) run
//! in-process on 127.0.0.1:0, driven by the SDK's own client (rmcp's streamable HTTP
//! client over reqwest) with the bearer token. Covered: the three tools listed with
//! valid JSON Schemas and their annotations; `check_answer` on an answer citing hostile
//! local pages (supporting, contradicting, 404, 500, slow, hanging), valid against its
//! output schema and the same, link by link and claim by claim, as `sourcebot check
//! --format json` with the same settings; `check_links` and `judge_claims` against the
//! check and `sourcebot support`; bad inputs as tool errors naming what was wrong, the
//! session going on; loopback links blocked unless allowed; progress; a call cancelled
//! or dropped stops probing a page that never answers; no session kept, so two replicas
//! behind a round-robin proxy serve one client; and the door: 401 (JSON, as `/v1`)
//! without a token or with a wrong one, 403 for a browser `Origin` not allowed, an
//! allowed one served once configured, 413 for a body over the limit (both refusals in
//! the API's error JSON). Every link server
//! is on this file's loopback block (127.37.x.y).

#[path = "mcp/common.rs"]
mod mcp;
mod support;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header;
use axum::response::Response;
use axum::Router;
use mcp::{Client, GiveUp, Recorder, Silent, Web, QUICK};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use sourcebot::api::{self, ApiSettings, ApiState, SlackRoutes};
use sourcebot::config::Config;
use sourcebot::metrics::Metrics;
use sourcebot::pipeline::Pipeline;
use sourcebot::state::{BotState, MemoryState};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use support::serve::{loopback_client, serve_app};
use support::{HostileServer, Route};

const TOKEN: &str = "mcp-test-token-0123456789abcdef";
const WRONG_TOKEN: &str = "not-the-token-fedcba9876543210";
const ALLOWED_ORIGIN: &str = "https://app.example";
const EVIL_ORIGIN: &str = "https://evil.example";

/// A loopback address of this file's block, 127.37.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(37)
}

/// The API's settings here: the token, and as many sources per call as the binary gets
/// from [`mcp::settings`].
fn api_settings() -> ApiSettings {
    ApiSettings {
        tokens: vec![TOKEN.into()],
        max_sources: mcp::MAX_SOURCES,
        ..ApiSettings::default()
    }
}

/// [`api_settings`] with a time limit far beyond what the cancellation tests wait.
fn patient_api_settings() -> ApiSettings {
    ApiSettings {
        timeout: Duration::from_secs(60),
        ..api_settings()
    }
}

/// The settings `vars` give, as `sourcebot` reads them from its environment.
fn config(vars: &[(&'static str, String)]) -> Config {
    Config::from_lookup(|name| {
        vars.iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.clone())
    })
    .expect("valid settings")
}

/// The API's routes, `/mcp` among them, served on 127.0.0.1:0 over a pipeline with the
/// settings `vars` give.
struct Service {
    addr: SocketAddr,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Service {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl Service {
    /// As `serve` composes it: the pipeline from the settings, the shared state in
    /// memory, the API's routes counted.
    async fn start(api: ApiSettings, vars: &[(&'static str, String)]) -> Service {
        sourcebot::verify::install_crypto_provider();
        let metrics = Metrics::new();
        let shared: Arc<dyn BotState> = Arc::new(MemoryState::new());
        let pipeline = Pipeline::builder()
            .config(config(vars))
            .metrics(metrics.clone())
            .shared_state(shared.clone())
            .build()
            .expect("the pipeline");
        let state = ApiState::starting(
            Arc::new(pipeline),
            metrics.clone(),
            shared,
            api,
            SlackRoutes::Http,
        );
        let app = api::count_requests(api::router(state), metrics);
        let (addr, server) = serve_app(app).await;
        Service { addr, server }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

/// rmcp's client at `url` with `token` (and `origin` as the `Origin` header), or why it
/// could not start.
async fn try_connect(url: &str, token: &str, origin: Option<&str>) -> Result<Client, String> {
    let mut config =
        StreamableHttpClientTransportConfig::with_uri(url.to_string()).auth_header(token);
    if let Some(origin) = origin {
        let mut headers = HashMap::new();
        headers.insert(
            HeaderName::from_static("origin"),
            HeaderValue::from_str(origin).expect("an origin is a header value"),
        );
        config = config.custom_headers(headers);
    }
    let transport = StreamableHttpClientTransport::with_client(loopback_client(), config);
    match tokio::time::timeout(QUICK, Recorder::default().serve(transport)).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err(format!("no answer within {QUICK:?}")),
    }
}

/// rmcp's client at `url` with the token.
async fn connect(url: &str) -> Client {
    try_connect(url, TOKEN, None)
        .await
        .unwrap_or_else(|e| panic!("the client starts: {e}"))
}

/// Closes the client.
async fn close(client: Client) {
    let closed = tokio::time::timeout(QUICK, client.cancel()).await;
    assert!(closed.is_ok(), "the client did not close in time");
}

/// A server whose `/ok` answers 200.
async fn ok_site() -> HostileServer {
    HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await
}

/// What came back from a plain POST to `/mcp`.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    text: String,
    json: Value,
}

/// POSTs `body` to `url` as an MCP client would (JSON, accepting JSON or an event
/// stream), with `token` and `origin` when given.
async fn post(url: &str, token: Option<&str>, origin: Option<&str>, body: String) -> Reply {
    let mut request = loopback_client()
        .post(url)
        .header(header::CONTENT_TYPE.as_str(), "application/json")
        .header(
            header::ACCEPT.as_str(),
            "application/json, text/event-stream",
        )
        .body(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(origin) = origin {
        request = request.header(header::ORIGIN.as_str(), origin);
    }
    let response = tokio::time::timeout(QUICK, request.send())
        .await
        .expect("the service answers in time")
        .expect("the service answers");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap_or_default();
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        text,
        json,
    }
}

/// An `initialize` request, as a client's first message.
fn initialize() -> String {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "plain-http", "version": "0"},
        },
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_the_three_tools_with_their_schemas_and_annotations() {
    let service = Service::start(api_settings(), &mcp::settings(true)).await;
    let client = connect(&service.url()).await;
    let schemas = mcp::tools_are_listed(&client).await;
    assert_eq!(schemas.len(), 3);
    close(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_answer_agrees_with_sourcebot_check_on_hostile_pages() {
    let web = Web::start(next_ip).await;
    let envs = mcp::settings(true);
    let service = Service::start(api_settings(), &envs).await;
    let client = connect(&service.url()).await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    mcp::hostile_answer_agrees_with_check(&client, &web, dir.path(), &envs).await;
    close(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_links_and_judge_claims_agree_with_the_command_line() {
    let web = Web::start(next_ip).await;
    let envs = mcp::settings(true);
    let service = Service::start(api_settings(), &envs).await;
    let client = connect(&service.url()).await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    mcp::links_and_claims_agree_with_the_command_line(&client, &web, dir.path(), &envs).await;
    close(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_are_tool_errors_and_the_session_goes_on() {
    let site = ok_site().await;
    let service = Service::start(api_settings(), &mcp::settings(true)).await;
    let client = connect(&service.url()).await;
    mcp::bad_inputs_are_refused(&client, &site.url("/ok")).await;
    close(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_links_are_blocked_unless_allowed() {
    let site = ok_site().await;
    let service = Service::start(api_settings(), &mcp::settings(false)).await;
    let client = connect(&service.url()).await;
    mcp::loopback_is_blocked(&client, &site).await;
    close(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_is_reported_while_links_are_checked() {
    let slow = mcp::slow_sites(next_ip).await;
    let service = Service::start(api_settings(), &mcp::settings(true)).await;
    let client = connect(&service.url()).await;
    mcp::progress_is_reported(&client, &slow).await;
    close(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_stops_probing_and_the_server_goes_on() {
    let silent = Silent::start(next_ip()).await;
    let site = ok_site().await;
    let service = Service::start(patient_api_settings(), &mcp::patient_settings()).await;
    let client = connect(&service.url()).await;
    mcp::giving_up_stops_the_probe(&client, &silent, &site.url("/ok"), GiveUp::Cancel).await;
    close(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_stops_probing_and_the_server_goes_on() {
    let silent = Silent::start(next_ip()).await;
    let site = ok_site().await;
    let service = Service::start(patient_api_settings(), &mcp::patient_settings()).await;
    let client = connect(&service.url()).await;
    mcp::giving_up_stops_the_probe(&client, &silent, &site.url("/ok"), GiveUp::Drop).await;
    close(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_or_a_wrong_one_is_401_as_on_v1() {
    let service = Service::start(api_settings(), &mcp::settings(true)).await;
    for token in [None, Some(WRONG_TOKEN)] {
        let reply = post(&service.url(), token, None, initialize()).await;
        assert_eq!(reply.status, 401, "{token:?}: {}", reply.text);
        assert_eq!(
            reply.json["error"]["code"], "unauthorized",
            "{token:?}: {}",
            reply.text
        );
        assert!(
            reply.json["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{}",
            reply.text
        );
        assert!(
            reply
                .headers
                .get(header::WWW_AUTHENTICATE.as_str())
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("Bearer")),
            "{:?}",
            reply.headers
        );
        assert!(
            !reply.text.contains(TOKEN) && !reply.text.contains(WRONG_TOKEN),
            "a token in the refusal: {}",
            reply.text
        );
    }
    // The SDK's client cannot get in with a wrong token either.
    let refused = try_connect(&service.url(), WRONG_TOKEN, None).await;
    assert!(refused.is_err(), "a wrong token was let in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_origin_is_refused_unless_allowed() {
    // None allowed (the default): any Origin is refused, even with the token.
    let service = Service::start(api_settings(), &mcp::settings(true)).await;
    let reply = post(&service.url(), Some(TOKEN), Some(EVIL_ORIGIN), initialize()).await;
    assert_eq!(reply.status, 403, "{}", reply.text);
    assert_eq!(
        reply.json["error"]["code"], "origin_not_allowed",
        "the API's error JSON: {}",
        reply.text
    );
    let reply = post(
        &service.url(),
        Some(TOKEN),
        Some(ALLOWED_ORIGIN),
        initialize(),
    )
    .await;
    assert_eq!(
        reply.status, 403,
        "nothing is allowed by default: {}",
        reply.text
    );
    let refused = try_connect(&service.url(), TOKEN, Some(EVIL_ORIGIN)).await;
    assert!(refused.is_err(), "a forbidden origin was let in");

    // One allowed: a client sending it is served; any other is still refused.
    let site = ok_site().await;
    let allowing = Service::start(
        ApiSettings {
            mcp_allowed_origins: vec![ALLOWED_ORIGIN.into()],
            ..api_settings()
        },
        &mcp::settings(true),
    )
    .await;
    let client = try_connect(&allowing.url(), TOKEN, Some(ALLOWED_ORIGIN))
        .await
        .unwrap_or_else(|e| panic!("an allowed origin is served: {e}"));
    assert_eq!(mcp::list_tools(&client).await.len(), 3);
    let result = mcp::call(&client, "check_links", json!({ "urls": [site.url("/ok")] })).await;
    assert_eq!(
        mcp::structured(&result)["links"][0]["verdict"],
        "verified",
        "{result:#}"
    );
    close(client).await;
    let reply = post(
        &allowing.url(),
        Some(TOKEN),
        Some(EVIL_ORIGIN),
        initialize(),
    )
    .await;
    assert_eq!(reply.status, 403, "{}", reply.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_413() {
    let limit = 64 * 1024;
    let service = Service::start(
        ApiSettings {
            max_body_bytes: limit,
            ..api_settings()
        },
        &mcp::settings(true),
    )
    .await;
    let call = json!({
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "check_answer",
            "arguments": {"answer": "Deploys are frozen on Fridays. ".repeat(limit / 16)},
        },
    })
    .to_string();
    assert!(call.len() > limit);
    let reply = post(&service.url(), Some(TOKEN), None, call).await;
    assert_eq!(reply.status, 413, "{}", reply.text);
    assert_eq!(
        reply.json["error"]["code"], "body_too_large",
        "the API's error JSON: {}",
        reply.text
    );
}

/// Two replicas of the service (their own state each) behind a proxy that sends each
/// request to the next one in turn: one client, no sticky sessions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_behind_a_round_robin_proxy_serve_one_client() {
    let site = ok_site().await;
    let envs = mcp::settings(true);
    let first = Service::start(api_settings(), &envs).await;
    let second = Service::start(api_settings(), &envs).await;
    let proxy = RoundRobin::start([first.addr, second.addr]).await;
    let client = connect(&proxy.url()).await;
    mcp::tools_are_listed(&client).await;
    for _ in 0..2 {
        let result = mcp::call(&client, "check_links", json!({ "urls": [site.url("/ok")] })).await;
        assert_eq!(
            mcp::structured(&result)["links"][0]["verdict"],
            "verified",
            "{result:#}"
        );
    }
    let result = mcp::call(
        &client,
        "judge_claims",
        json!({ "claims": mcp::claims_to_judge() }),
    )
    .await;
    assert_eq!(
        mcp::structured(&result)["judgments"][0]["verdict"],
        "supported",
        "{result:#}"
    );
    close(client).await;
    let hits = proxy.hits();
    assert!(
        hits[0] >= 2 && hits[1] >= 2,
        "both replicas served: {hits:?}"
    );
    assert!(
        !proxy.saw_session_id(),
        "a replica handed out an Mcp-Session-Id: sessions would need a sticky balancer"
    );
}

/// A reverse proxy that sends each request to the next of two upstreams in turn,
/// buffering both ways, and notes any `Mcp-Session-Id` the upstreams answer with.
struct RoundRobin {
    addr: SocketAddr,
    hits: Arc<[AtomicUsize; 2]>,
    session_id: Arc<AtomicBool>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for RoundRobin {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl RoundRobin {
    async fn start(upstreams: [SocketAddr; 2]) -> RoundRobin {
        let hits = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let session_id = Arc::new(AtomicBool::new(false));
        let next = Arc::new(AtomicUsize::new(0));
        let http = loopback_client();
        let (counted, noted) = (hits.clone(), session_id.clone());
        let app = Router::new().fallback(move |request: Request| {
            let (http, next, counted, noted) =
                (http.clone(), next.clone(), counted.clone(), noted.clone());
            async move {
                let upstream = next.fetch_add(1, Ordering::SeqCst) % 2;
                counted[upstream].fetch_add(1, Ordering::SeqCst);
                forward(&http, upstreams[upstream], request, &noted).await
            }
        });
        let (addr, server) = serve_app(app).await;
        RoundRobin {
            addr,
            hits,
            session_id,
            server,
        }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    fn hits(&self) -> [usize; 2] {
        [
            self.hits[0].load(Ordering::SeqCst),
            self.hits[1].load(Ordering::SeqCst),
        ]
    }

    fn saw_session_id(&self) -> bool {
        self.session_id.load(Ordering::SeqCst)
    }
}

/// `request` sent on to `upstream`, and its answer back (502 if it failed).
async fn forward(
    http: &reqwest::Client,
    upstream: SocketAddr,
    request: Request,
    session_id: &AtomicBool,
) -> Response {
    let (parts, body) = request.into_parts();
    let failed = |why: String| {
        Response::builder()
            .status(502)
            .body(Body::from(why))
            .unwrap_or_default()
    };
    let Ok(body) = axum::body::to_bytes(body, usize::MAX).await else {
        return failed("the request body could not be read".into());
    };
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let mut outgoing = http.request(parts.method, format!("http://{upstream}{path}"));
    for (name, value) in &parts.headers {
        if name != header::HOST && name != header::CONTENT_LENGTH {
            outgoing = outgoing.header(name, value);
        }
    }
    let response = match outgoing.body(body).send().await {
        Ok(response) => response,
        Err(error) => return failed(error.to_string()),
    };
    if response.headers().contains_key("mcp-session-id") {
        session_id.store(true, Ordering::SeqCst);
    }
    let mut back = Response::builder().status(response.status());
    for (name, value) in response.headers() {
        if ![
            header::CONTENT_LENGTH,
            header::TRANSFER_ENCODING,
            header::CONNECTION,
        ]
        .contains(name)
        {
            back = back.header(name, value);
        }
    }
    match response.bytes().await {
        Ok(bytes) => back.body(Body::from(bytes)).unwrap_or_default(),
        Err(error) => failed(error.to_string()),
    }
}

/// `/metrics` counts the calls per tool and outcome.
#[tokio::test]
async fn calls_are_counted_per_tool_and_outcome() {
    let service = Service::start(api_settings(), &mcp::settings(true)).await;
    let client = connect(&service.url()).await;
    let judged = mcp::call(
        &client,
        "judge_claims",
        json!({"claims": [{"claim": "Deploys stop on Fridays.", "evidence": "Deploys stop on Fridays."}]}),
    )
    .await;
    assert_eq!(judged["isError"], false, "{judged:#}");
    let refused = mcp::call(&client, "check_links", json!({"urls": "x"})).await;
    assert_eq!(refused["isError"], true, "{refused:#}");
    close(client).await;
    let text = loopback_client()
        .get(format!("http://{}/metrics", service.addr))
        .send()
        .await
        .expect("/metrics answers")
        .text()
        .await
        .expect("its text");
    for line in [
        r#"sourcebot_mcp_tool_calls_total{tool="judge_claims",outcome="ok"} 1"#,
        r#"sourcebot_mcp_tool_calls_total{tool="check_links",outcome="bad_input"} 1"#,
    ] {
        assert!(text.contains(line), "{line} not in:\n{text}");
    }
}

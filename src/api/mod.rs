//! The HTTP service for answer pipelines, served by `serve` beside the Slack routes:
//! `POST /v1/check` turns any answer the collector reads into the scored report (with
//! its rendered mrkdwn and blocks); `POST /v1/answers` also posts it to Slack — the
//! answer itself with an "unverified" marker after each uncited claim, then its sources
//! in the thread, or the sources alone as a reply; `GET /readyz` says whether Slack
//! answered `auth.test` at start ([`Gate`] answers for `serve` until it did);
//! `GET /metrics` serves [`crate::metrics`].
//!
//! The `/v1` routes need a bearer token from `SOURCEBOT_API_TOKEN` (compared in
//! constant time) and are off without one. Each token has its own rate limit; bodies,
//! sources per answer, requests at once and time per check are bounded. Every refusal
//! is `{"error": {"code", "message", "path"?}}` with its status: 400 (malformed, with
//! the JSON path of the bad field), 401, 404, 413, 415, 422 (well-formed but unusable,
//! or refused by Slack), 429 (with `Retry-After`), 503 (busy, timed out, or Slack
//! unreachable).

use crate::collect::input::{FormatHint, InputError};
use crate::metrics::Metrics;
use crate::model::{Answer, Report};
use crate::render::answer::answer_mrkdwn;
use crate::render::blocks::BlockMessage;
use crate::setting::{duration, positive, ConfigError};
use crate::slack::api::{CallError, Outgoing};
use crate::slack::workspace::Unserved;
use crate::slack::{Bot, Workspace, WorkspaceKey};
use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{MatchedPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;

mod idempotency;

use idempotency::{
    fingerprint, idempotency_key, once_across_replicas, shared_key, Replies, StoredReply,
};
pub use idempotency::{MAX_REPLIES, REPLY_TTL};

/// `SOURCEBOT_API_TOKEN`: bearer tokens for the `/v1` routes, separated by commas.
pub const API_TOKEN: &str = "SOURCEBOT_API_TOKEN";
/// `SOURCEBOT_API_MAX_BODY_BYTES`: largest request body (default 1 MiB).
pub const API_MAX_BODY_BYTES: &str = "SOURCEBOT_API_MAX_BODY_BYTES";
/// `SOURCEBOT_API_MAX_SOURCES`: most sources per answer (default 500).
pub const API_MAX_SOURCES: &str = "SOURCEBOT_API_MAX_SOURCES";
/// `SOURCEBOT_API_TIMEOUT`: longest a check may take before the request is answered
/// 503 (default 30 s).
pub const API_TIMEOUT: &str = "SOURCEBOT_API_TIMEOUT";
/// `SOURCEBOT_API_RATE_LIMIT`: requests per token, `120/min` (also `/s`, `/h`).
pub const API_RATE_LIMIT: &str = "SOURCEBOT_API_RATE_LIMIT";

/// Shortest token accepted: anything shorter is guessable.
pub const MIN_TOKEN_CHARS: usize = 16;
/// Requests worked on at once, over all tokens; more are answered 503.
pub const MAX_IN_FLIGHT: usize = 256;
/// Longest answer posted with `post_answer`, in characters after escaping (Slack cuts
/// a message's text at 40,000).
pub const MAX_ANSWER_CHARS: usize = 38_000;

/// The service's settings.
#[derive(Clone)]
pub struct ApiSettings {
    /// Accepted bearer tokens; none turns the `/v1` routes off.
    pub tokens: Vec<String>,
    /// Largest request body in bytes.
    pub max_body_bytes: usize,
    /// Most sources per answer.
    pub max_sources: usize,
    /// Longest a check may take.
    pub timeout: Duration,
    /// Requests allowed per token per `rate_period`.
    pub rate_requests: u32,
    /// The period of the rate limit.
    pub rate_period: Duration,
}

impl std::fmt::Debug for ApiSettings {
    /// Tokens are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiSettings")
            .field("tokens", &format!("<{} redacted>", self.tokens.len()))
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_sources", &self.max_sources)
            .field("timeout", &self.timeout)
            .field("rate_requests", &self.rate_requests)
            .field("rate_period", &self.rate_period)
            .finish()
    }
}

impl Default for ApiSettings {
    fn default() -> Self {
        ApiSettings {
            tokens: Vec::new(),
            max_body_bytes: 1 << 20,
            max_sources: 500,
            timeout: Duration::from_secs(30),
            rate_requests: 120,
            rate_period: Duration::from_secs(60),
        }
    }
}

impl ApiSettings {
    /// Reads the process environment.
    pub fn from_env() -> Result<ApiSettings, ConfigError> {
        ApiSettings::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`; empty values count as unset.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<ApiSettings, ConfigError> {
        let get = |name: &'static str| {
            lookup(name)
                .filter(|v| !v.trim().is_empty())
                .map(|v| (name, v))
        };
        let mut settings = ApiSettings::default();
        if let Some((name, value)) = get(API_TOKEN) {
            settings.tokens = tokens(name, &value)?;
        }
        if let Some((name, value)) = get(API_MAX_BODY_BYTES) {
            settings.max_body_bytes = positive(name, &value, 64 << 20)?;
        }
        if let Some((name, value)) = get(API_MAX_SOURCES) {
            settings.max_sources = positive(name, &value, 100_000)?;
        }
        if let Some((name, value)) = get(API_TIMEOUT) {
            settings.timeout = duration(
                name,
                &value,
                Duration::from_secs(1),
                Duration::from_secs(600),
            )?;
        }
        if let Some((name, value)) = get(API_RATE_LIMIT) {
            (settings.rate_requests, settings.rate_period) = rate(name, &value)?;
        }
        Ok(settings)
    }

    /// Whether the `/v1` routes are on.
    pub fn enabled(&self) -> bool {
        !self.tokens.is_empty()
    }
}

fn tokens(name: &'static str, value: &str) -> Result<Vec<String>, ConfigError> {
    let tokens: Vec<String> = value
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(short) = tokens
        .iter()
        .position(|t| t.chars().count() < MIN_TOKEN_CHARS)
    {
        return Err(ConfigError {
            name,
            value: "<redacted>".into(),
            expected: format!(
                "token {} is shorter than {MIN_TOKEN_CHARS} characters; use long random tokens \
                 (e.g. `openssl rand -hex 32`) separated by commas",
                short + 1
            ),
        });
    }
    if tokens
        .iter()
        .any(|t| t.chars().any(|c| c.is_whitespace() || c.is_control()))
    {
        return Err(ConfigError {
            name,
            value: "<redacted>".into(),
            expected: "tokens cannot contain spaces or control characters".into(),
        });
    }
    Ok(tokens)
}

/// `120/min`, `5/s`, `1000/h` → (requests, period).
fn rate(name: &'static str, value: &str) -> Result<(u32, Duration), ConfigError> {
    let failed = || ConfigError {
        name,
        value: value.to_string(),
        expected: "expected requests per period, e.g. 120/min, 5/s or 1000/h (1 to 1000000)".into(),
    };
    let (count, period) = value.trim().split_once('/').ok_or_else(failed)?;
    let count: u32 = count
        .trim()
        .parse()
        .ok()
        .filter(|n| (1..=1_000_000).contains(n))
        .ok_or_else(failed)?;
    let period = match period.trim() {
        "s" | "sec" | "second" => Duration::from_secs(1),
        "m" | "min" | "minute" => Duration::from_secs(60),
        "h" | "hour" => Duration::from_secs(3600),
        _ => return Err(failed()),
    };
    Ok((count, period))
}

/// A refusal: its status and the JSON body `{error: {code, message, path?}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable, machine-readable code (`unauthorized`, `malformed`…).
    pub code: &'static str,
    /// What was wrong, for people.
    pub message: String,
    /// The JSON path of the bad field, when one is to blame.
    pub path: Option<String>,
    /// Seconds to wait before trying again (429, 503).
    pub retry_after: Option<u64>,
    /// Anything else the caller needs (what was already posted, say).
    pub extra: Option<Value>,
}

impl ApiError {
    /// A refusal with `status`, `code` and `message`.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            path: None,
            retry_after: None,
            extra: None,
        }
    }

    fn at(mut self, path: impl Into<String>) -> ApiError {
        self.path = Some(path.into());
        self
    }

    fn retry_after(mut self, seconds: u64) -> ApiError {
        self.retry_after = Some(seconds.max(1));
        self
    }
}

impl ApiError {
    /// The JSON body sent for it: `{"error": {"code", "message", "path"?, …extra}}`.
    pub fn body(&self) -> Value {
        let mut error = serde_json::json!({"code": self.code, "message": self.message});
        if let Some(path) = &self.path {
            error["path"] = Value::from(path.as_str());
        }
        if let Some(Value::Object(extra)) = &self.extra {
            for (key, value) in extra {
                error[key] = value.clone();
            }
        }
        serde_json::json!({ "error": error })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body())).into_response();
        let headers = response.headers_mut();
        if let Some(seconds) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"sourcebot\""),
            );
        }
        response
    }
}

/// Everything the routes share.
pub struct ApiState {
    bot: Arc<Bot>,
    settings: ApiSettings,
    limiter: DefaultKeyedRateLimiter<usize>,
    in_flight: Semaphore,
    signed_in_at: u64,
    replies: Replies,
}

impl ApiState {
    /// The service around `bot` (its pipeline, Slack client and metrics).
    pub fn new(bot: Arc<Bot>, settings: ApiSettings) -> Arc<ApiState> {
        let burst = NonZeroU32::new(settings.rate_requests).unwrap_or(NonZeroU32::MIN);
        let replenish = settings.rate_period / burst.get();
        let quota = Quota::with_period(replenish)
            .unwrap_or_else(|| Quota::per_second(burst))
            .allow_burst(burst);
        Arc::new(ApiState {
            bot,
            settings,
            limiter: RateLimiter::keyed(quota),
            in_flight: Semaphore::new(MAX_IN_FLIGHT),
            replies: Replies::default(),
            signed_in_at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        })
    }
}

/// The door of `serve` while it signs in to Slack: from the first moment it answers
/// `/healthz` (200), `/readyz` (503, with the sign-in's last error) and `/metrics`, and
/// every other route with 503 `starting` (Slack retries its deliveries); once
/// [`Gate::open`] is given the full app, every request goes there.
#[derive(Clone)]
pub struct Gate {
    app: Arc<std::sync::RwLock<Option<Router>>>,
    last_error: Arc<std::sync::Mutex<Option<String>>>,
    metrics: Arc<Metrics>,
}

impl Gate {
    /// A closed gate; its `/metrics` serves `metrics`.
    pub fn new(metrics: Arc<Metrics>) -> Gate {
        Gate {
            app: Arc::new(std::sync::RwLock::new(None)),
            last_error: Arc::new(std::sync::Mutex::new(None)),
            metrics,
        }
    }

    /// From now on every request goes to `app`.
    pub fn open(&self, app: Router) {
        if let Ok(mut slot) = self.app.write() {
            *slot = Some(app);
        }
    }

    /// Why signing in failed last, shown by `/readyz` until the gate opens.
    pub fn sign_in_failed(&self, reason: String) {
        if let Ok(mut last) = self.last_error.lock() {
            *last = Some(reason);
        }
    }

    /// The router to serve: the full app once open, the starting routes until then.
    pub fn router(&self) -> Router {
        let gate = self.clone();
        Router::new().fallback(move |request: Request| {
            let gate = gate.clone();
            async move { gate.dispatch(request).await }
        })
    }

    async fn dispatch(&self, request: Request) -> Response {
        use tower::ServiceExt;
        let app = self.app.read().ok().and_then(|slot| slot.clone());
        let app = app.unwrap_or_else(|| self.starting());
        match app.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }

    fn starting(&self) -> Router {
        let last_error = self.last_error.lock().ok().and_then(|last| last.clone());
        let metrics = self.metrics.clone();
        count_requests(
            Router::new()
                .route("/healthz", get(|| async { "ok" }))
                .route(
                    "/readyz",
                    get(move || async move {
                        (
                            StatusCode::SERVICE_UNAVAILABLE,
                            Json(serde_json::json!({
                                "ready": false,
                                "slack": {"auth_test": "pending", "last_error": last_error},
                            })),
                        )
                    }),
                )
                .route(
                    "/metrics",
                    get({
                        let metrics = metrics.clone();
                        move || async move { metrics_response(&metrics) }
                    }),
                )
                .fallback(|| async {
                    ApiError::new(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "starting",
                        "sourcebot is signing in to Slack; try again shortly",
                    )
                    .retry_after(5)
                }),
            metrics,
        )
    }
}

/// `/readyz`, `/metrics`, `/v1/check` and `/v1/answers`, with a JSON 404 for anything
/// else. Merge the Slack routes (and `/healthz`) beside it, then wrap the whole with
/// [`count_requests`].
pub fn router(state: Arc<ApiState>) -> Router {
    Router::new()
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/v1/check", post(check))
        .route("/v1/answers", post(answers))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .with_state(state)
}

/// Counts every request answered in `metrics`, by matched route and status.
pub fn count_requests(app: Router, metrics: Arc<Metrics>) -> Router {
    app.layer(middleware::from_fn_with_state(metrics, count))
}

async fn count(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let response = next.run(request).await;
    metrics.request(&route, response.status().as_u16());
    response
}

async fn not_found(request: Request) -> ApiError {
    let path = request.uri().path();
    if path.starts_with("/v1/") {
        return ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!(
                "no such API route: {} (the routes are POST /v1/check and POST /v1/answers)",
                path
            ),
        );
    }
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such route")
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not allowed on {}", uri.path()),
    )
}

/// `GET /readyz`: 200 once signed in, also while shared state (Redis) is away: a
/// replica that can answer stays in the pool, and the body names what is degraded.
async fn readyz(State(state): State<Arc<ApiState>>) -> Response {
    let identity = state.bot.identity();
    let installed = matches!(
        state.bot.workspaces(),
        crate::slack::Workspaces::Installed(_)
    );
    let shared = state.bot.state_health().await;
    Json(serde_json::json!({
        "ready": true,
        "degraded": if shared.up { Vec::<&str>::new() } else { vec![shared.backend] },
        "shared_state": {
            "backend": shared.backend,
            "status": if shared.up { "ok" } else { "degraded" },
            "last_error": if shared.up { None } else { shared.last_error },
        },
        "slack": {
            "auth_test": if identity.is_some() { "ok" } else { "no bot token" },
            "user_id": identity.map(|i| i.user_id.as_str()),
            "bot_id": identity.and_then(|i| i.bot_id.as_deref()),
            "workspaces": if installed { "installed by OAuth" } else { "one (the bot token's)" },
            "signed_in_at": state.signed_in_at,
        },
        "api": if state.settings.enabled() { "on" } else { "off" },
    }))
    .into_response()
}

async fn metrics(State(state): State<Arc<ApiState>>) -> Response {
    metrics_response(state.bot.metrics())
}

fn metrics_response(metrics: &Metrics) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        metrics.encode(),
    )
        .into_response()
}

/// `?verify=false` skips probing.
#[derive(Debug, Deserialize)]
struct CheckQuery {
    verify: Option<String>,
}

impl CheckQuery {
    fn verify(&self) -> Result<bool, ApiError> {
        match self
            .verify
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("true") | Some("1") => Ok(true),
            Some("false") | Some("0") => Ok(false),
            Some(other) => Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "malformed",
                format!("verify={other:?}: expected true or false"),
            )
            .at("?verify")),
        }
    }
}

/// The query, or a 400 saying what is wrong with it.
fn read_query(
    query: Result<Query<CheckQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<CheckQuery, ApiError> {
    query
        .map(|Query(q)| q)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "malformed", e.body_text()).at("?"))
}

/// The report with its renderings.
#[derive(Serialize)]
struct CheckResponse<'a> {
    #[serde(flatten)]
    report: &'a Report,
    rendered: Rendered,
    #[serde(skip_serializing_if = "Option::is_none")]
    posted: Option<Posted>,
}

/// The report as posted to Slack.
#[derive(Serialize)]
struct Rendered {
    mrkdwn: String,
    blocks: BlockMessage,
}

/// Where `/v1/answers` posted.
#[derive(Debug, Clone, Serialize)]
struct Posted {
    channel: String,
    /// The answer's message, when `post_answer`.
    answer_ts: Option<String>,
    /// The sources section's message.
    sources_ts: String,
    /// The thread the sources are in.
    thread_ts: String,
}

/// What every `/v1` request goes through first: the API is on, the token is good, its
/// rate allows one more, and there is room to work. The permit is held until the
/// response is ready.
async fn admit<'a>(
    state: &'a ApiState,
    headers: &HeaderMap,
) -> Result<tokio::sync::SemaphorePermit<'a>, ApiError> {
    if !state.settings.enabled() {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "api_disabled",
            format!("the answer API is off: set {API_TOKEN} to turn it on"),
        ));
    }
    let token = bearer(headers).ok_or_else(|| {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "send the token as `Authorization: Bearer <token>`",
        )
    })?;
    let index = state
        .settings
        .tokens
        .iter()
        .map(|known| known.as_bytes().ct_eq(token.as_bytes()))
        .enumerate()
        .fold(
            None,
            |found, (i, equal)| {
                if bool::from(equal) {
                    Some(i)
                } else {
                    found
                }
            },
        )
        .ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", "unknown token"))?;
    if let Err(not_until) = state.limiter.check_key(&index) {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!(
                "this token may make {} requests per {}; try again in {} ms",
                state.settings.rate_requests,
                humantime::format_duration(state.settings.rate_period),
                wait.as_millis()
            ),
        )
        .retry_after(wait.as_secs_f64().ceil() as u64));
    }
    state.in_flight.try_acquire().map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            format!("{MAX_IN_FLIGHT} requests are being worked on; try again shortly"),
        )
        .retry_after(1)
    })
}

/// The token of `Authorization: Bearer <token>`.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// How to read a body of this content type; 415 for types that are no answer.
fn format_hint(headers: &HeaderMap, json_only: bool) -> Result<FormatHint, ApiError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(if json_only {
            FormatHint::Json
        } else {
            FormatHint::Auto
        });
    };
    let media = value
        .to_str()
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match media.as_str() {
        "application/json" => Ok(FormatHint::Json),
        "text/markdown" | "text/x-markdown" | "text/plain" if !json_only => Ok(FormatHint::Text),
        _ => Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            if json_only {
                format!("send application/json, not {media:?}")
            } else {
                format!("send application/json, text/markdown or text/plain, not {media:?}")
            },
        )),
    }
}

/// The body, at most `limit` bytes; 413 beyond.
async fn read_body(body: Body, headers: &HeaderMap, limit: usize) -> Result<Bytes, ApiError> {
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the body is larger than {limit} bytes ({API_MAX_BODY_BYTES})"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    to_bytes(body, limit).await.map_err(|_| too_large())
}

/// A parse error as a 400 naming where the input is wrong.
fn malformed(error: InputError) -> ApiError {
    match error {
        InputError::Shape { path, message } => ApiError::new(
            StatusCode::BAD_REQUEST,
            "malformed",
            format!("{path}: {message}"),
        )
        .at(path),
        InputError::Json { line, column, .. } => {
            ApiError::new(StatusCode::BAD_REQUEST, "malformed", error.to_string())
                .at(format!("line {line}, column {column}"))
        }
        InputError::TooLarge { .. } => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            error.to_string(),
        ),
        InputError::Empty => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "empty",
            "the answer is empty",
        ),
        InputError::NotUtf8 { .. } => {
            ApiError::new(StatusCode::BAD_REQUEST, "malformed", error.to_string())
        }
    }
}

/// Refuses answers with more sources than allowed.
fn check_source_count(answer: &Answer, limit: usize) -> Result<(), ApiError> {
    if answer.sources.len() > limit {
        return Err(too_many_sources(answer.sources.len(), limit).at("$.sources"));
    }
    Ok(())
}

fn too_many_sources(count: usize, limit: usize) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "too_many_sources",
        format!("the answer has {count} sources; at most {limit} are checked per answer ({API_MAX_SOURCES})"),
    )
}

/// Answers at least this large (text plus about 200 bytes per structured source) are
/// collected on the blocking pool; smaller ones cost less than the hand-over.
const BLOCKING_COLLECT_BYTES: usize = 64 * 1024;

/// Collects, verifies (when asked) and scores `answer` within the time allowed. The
/// sources are counted before any link is probed: the limit bounds the probing.
/// Collecting is CPU work that grows with the answer (about 10 ms for 1 MiB), so a
/// large answer is collected on the blocking pool, not on the workers that answer
/// other requests.
async fn run_check(
    state: &Arc<ApiState>,
    answer: Answer,
    verify: bool,
    workspace: Option<&Workspace>,
) -> Result<Report, ApiError> {
    let size = answer.text.len() + answer.sources.len() * 200;
    let mut report = if size < BLOCKING_COLLECT_BYTES {
        state.bot.pipeline().collect(&answer)
    } else {
        let collecting = state.clone();
        tokio::task::spawn_blocking(move || collecting.bot.pipeline().collect(&answer))
            .await
            .map_err(|error| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    format!("collecting the sources failed: {error}"),
                )
            })?
    };
    let pipeline = state.bot.pipeline();
    let listed = report.metrics.unique_sources + report.metrics.links_skipped;
    if listed > state.settings.max_sources {
        return Err(too_many_sources(listed, state.settings.max_sources));
    }
    let started = std::time::Instant::now();
    tokio::time::timeout(state.settings.timeout, async {
        match workspace {
            Some(workspace) => {
                pipeline
                    .verify_and_score_with(&mut report, verify, Some(&workspace.permalinks))
                    .await
            }
            None => pipeline.verify_and_score(&mut report, verify, None).await,
        }
    })
    .await
    .map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!(
                "the check took longer than {} ({API_TIMEOUT})",
                humantime::format_duration(state.settings.timeout)
            ),
        )
        .retry_after(1)
    })?;
    if verify {
        // Whether the pages say it, in what is left of the request's time.
        let left = state.settings.timeout.saturating_sub(started.elapsed());
        let internal = workspace.map(|w| &w.permalinks);
        pipeline
            .check_support_with(&mut report, left, internal)
            .await;
    }
    Ok(report)
}

fn respond(state: &ApiState, report: &Report) -> Result<Response, ApiError> {
    response_body(state, report, None).map(|body| Json(body).into_response())
}

/// The report with its renderings (and where it was posted) as JSON.
fn response_body(
    state: &ApiState,
    report: &Report,
    posted: Option<Posted>,
) -> Result<Value, ApiError> {
    let pipeline = state.bot.pipeline();
    serde_json::to_value(CheckResponse {
        report,
        rendered: Rendered {
            mrkdwn: pipeline.mrkdwn(report),
            blocks: pipeline.blocks(report),
        },
        posted,
    })
    .map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("the report could not be written as JSON: {e}"),
        )
    })
}

async fn check(
    State(state): State<Arc<ApiState>>,
    query: Result<Query<CheckQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let _permit = admit(&state, &headers).await?;
    let verify = read_query(query)?.verify()?;
    let hint = format_hint(&headers, false)?;
    let bytes = read_body(body, &headers, state.settings.max_body_bytes).await?;
    let answer = state
        .bot
        .pipeline()
        .parse(&bytes, hint)
        .map_err(malformed)?;
    check_source_count(&answer, state.settings.max_sources)?;
    let report = run_check(&state, answer, verify, None).await?;
    respond(&state, &report)
}

/// A `/v1/answers` request, read field by field so that each problem names its field.
#[derive(Debug)]
struct AnswerRequest {
    /// The workspace to post in, when the app is installed in several.
    team_id: Option<String>,
    channel: String,
    thread_ts: Option<String>,
    post_answer: bool,
    answer: Answer,
}

fn answer_request(bytes: &[u8], state: &ApiState) -> Result<AnswerRequest, ApiError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "malformed",
            format!(
                "invalid JSON at line {}, column {}: {e}",
                e.line(),
                e.column()
            ),
        )
        .at(format!("line {}, column {}", e.line(), e.column()))
    })?;
    let Value::Object(object) = value else {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "malformed",
            "expected a JSON object {channel, thread_ts?, text, sources?, post_answer?}",
        )
        .at("$"));
    };
    let channel = string_field(&object, "channel")?
        .map(|c| c.trim().to_string())
        .ok_or_else(|| missing("channel"))?;
    if channel.is_empty() || channel.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(unusable(
            "channel",
            "expected a channel id such as C0123456789",
        ));
    }
    let thread_ts = string_field(&object, "thread_ts")?.map(|t| t.trim().to_string());
    if let Some(ts) = &thread_ts {
        let valid = ts.split_once('.').is_some_and(|(s, us)| {
            !s.is_empty()
                && !us.is_empty()
                && s.chars().chain(us.chars()).all(|c| c.is_ascii_digit())
        });
        if !valid {
            return Err(unusable(
                "thread_ts",
                "expected a message ts such as 1712345678.123456",
            ));
        }
    }
    let post_answer = match object.get("post_answer") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(wrong_type("post_answer", "a boolean")),
    };
    let text = string_field(&object, "text")?.unwrap_or_default();
    if !post_answer && thread_ts.is_none() {
        return Err(unusable(
            "thread_ts",
            "the sources go in a thread: give the answer's thread_ts, or set post_answer to post the answer too",
        ));
    }
    if post_answer && text.trim().is_empty() {
        return Err(unusable("text", "post_answer needs the answer's text"));
    }
    let mut shape = Map::new();
    shape.insert("text".into(), Value::from(text));
    if let Some(sources) = object.get("sources").filter(|s| !s.is_null()) {
        shape.insert("sources".into(), sources.clone());
    }
    let shape = Value::Object(shape).to_string();
    let answer = state
        .bot
        .pipeline()
        .parse(shape.as_bytes(), FormatHint::Json)
        .map_err(malformed)?;
    let team_id = string_field(&object, "team_id")?.map(|t| t.trim().to_string());
    if let Some(team) = &team_id {
        if team.is_empty() || !team.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(unusable(
                "team_id",
                "expected a workspace id such as T0123456789",
            ));
        }
    }
    Ok(AnswerRequest {
        team_id,
        channel,
        thread_ts,
        post_answer,
        answer,
    })
}

fn string_field(object: &Map<String, Value>, name: &str) -> Result<Option<String>, ApiError> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(wrong_type(name, "a string")),
    }
}

fn wrong_type(field: &str, expected: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "malformed",
        format!("$.{field}: expected {expected}"),
    )
    .at(format!("$.{field}"))
}

fn missing(field: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "missing_field",
        format!("$.{field} is required"),
    )
    .at(format!("$.{field}"))
}

fn unusable(field: &str, why: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_field",
        format!("$.{field}: {why}"),
    )
    .at(format!("$.{field}"))
}

async fn answers(
    State(state): State<Arc<ApiState>>,
    query: Result<Query<CheckQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let _permit = admit(&state, &headers).await?;
    let verify = read_query(query)?.verify()?;
    format_hint(&headers, true)?;
    let key = idempotency_key(&headers)?;
    let bytes = read_body(body, &headers, state.settings.max_body_bytes).await?;
    let Some(key) = key else {
        return check_and_post(state.clone(), bytes, verify)
            .await
            .map(Json)
            .map(IntoResponse::into_response);
    };
    // The token is part of the key: one caller cannot replay another's answer.
    let token = bearer(&headers).unwrap_or_default().to_string();
    let asked = fingerprint(&bytes, verify);
    let cell = state.replies.cell(&token, &key, asked)?;
    let mut replayed = true;
    let (reply, from_another_replica) = cell
        .get_or_try_init(|| {
            replayed = false;
            let state = state.clone();
            let shared_state = state.bot.state().clone();
            let shared_key = shared_key(&token, &key);
            async move {
                once_across_replicas(&shared_state, &shared_key, asked, || async move {
                    match check_and_post(state, bytes, verify).await {
                        Ok(body) => Ok(StoredReply::ok(body)),
                        // Something went to Slack: a retry must not post it again.
                        Err(error)
                            if error
                                .extra
                                .as_ref()
                                .is_some_and(|e| e.get("posted_answer_ts").is_some()) =>
                        {
                            Ok(StoredReply::from_error(&error))
                        }
                        Err(error) => Err(error),
                    }
                })
                .await
            }
        })
        .await?
        .clone();
    let mut response = reply.response();
    if replayed || from_another_replica {
        response
            .headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    Ok(response)
}

/// Checks the answer of a `/v1/answers` body and posts it; the response body.
async fn check_and_post(
    state: Arc<ApiState>,
    bytes: Bytes,
    verify: bool,
) -> Result<Value, ApiError> {
    let request = answer_request(&bytes, &state)?;
    check_source_count(&request.answer, state.settings.max_sources)?;
    let workspace = answer_workspace(&state, request.team_id.as_deref()).await?;
    let report = run_check(&state, request.answer.clone(), verify, Some(&workspace)).await?;
    let answer_text = request
        .post_answer
        .then(|| answer_mrkdwn(&request.answer.text, &report));
    if let Some(text) = &answer_text {
        let chars = text.chars().count();
        if chars > MAX_ANSWER_CHARS {
            return Err(unusable(
                "text",
                &format!("the answer is {chars} characters as posted; Slack takes at most {MAX_ANSWER_CHARS}"),
            ));
        }
    }
    // Posting runs in a task of its own, to its end: a caller who hangs up half-way
    // must not leave half a post behind for a retry to double.
    let posting = tokio::spawn(async move {
        let posted = post_to_slack(
            &state,
            &workspace,
            &request,
            answer_text.as_deref(),
            &report,
        )
        .await?;
        response_body(&state, &report, Some(posted))
    });
    posting.await.map_err(|error| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("posting failed: {error}"),
        )
    })?
}

/// The workspace a `/v1/answers` request posts in: the one its `team_id` names (when
/// the app is installed in several), else the bot token's.
async fn answer_workspace(
    state: &ApiState,
    team_id: Option<&str>,
) -> Result<Arc<Workspace>, ApiError> {
    let workspaces = state.bot.workspaces();
    let Some(team) = team_id else {
        return workspaces.home().cloned().ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "missing_field",
                "$.team_id is required: sourcebot is installed in several workspaces, so say which one to post in",
            )
            .at("$.team_id")
        });
    };
    let key = WorkspaceKey::new(None, Some(team), false);
    match workspaces.resolve(key.as_ref()).await {
        Ok(workspace) => Ok(workspace),
        Err(Unserved::Store(error)) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            error.to_string(),
        )),
        Err(why) => Err(unusable("team_id", &why.to_string())),
    }
}

/// Posts the answer (when given) and the sources section in its thread.
async fn post_to_slack(
    state: &ApiState,
    workspace: &Workspace,
    request: &AnswerRequest,
    answer_text: Option<&str>,
    report: &Report,
) -> Result<Posted, ApiError> {
    let slack = &workspace.api;
    let channel = request.channel.as_str();
    let answer_ts = match answer_text {
        Some(text) => Some(
            slack
                .post_text(channel, request.thread_ts.as_deref(), text)
                .await
                .map_err(|e| slack_refused(e, None))?,
        ),
        None => None,
    };
    let thread_ts = match (&request.thread_ts, &answer_ts) {
        (Some(thread), _) => thread.clone(),
        (None, Some(answer)) => answer.clone(),
        (None, None) => {
            return Err(unusable("thread_ts", "no thread to post the sources in"));
        }
    };
    let pipeline = state.bot.pipeline();
    let outgoing = Outgoing {
        blocks: pipeline.blocks(report),
        mrkdwn: pipeline.mrkdwn(report),
    };
    let sources_ts = slack
        .post(channel, Some(&thread_ts), &outgoing)
        .await
        .map_err(|e| slack_refused(e, answer_ts.as_deref()))?;
    Ok(Posted {
        channel: channel.to_string(),
        answer_ts,
        sources_ts,
        thread_ts,
    })
}

/// A Slack failure as a refusal; says what was already posted, so a caller does not
/// post the answer twice.
fn slack_refused(error: CallError, answer_ts: Option<&str>) -> ApiError {
    let mut refusal = match &error {
        CallError::Slack { code, .. } => {
            let hint = match code.as_str() {
                "not_in_channel" => ": invite the bot to the channel (`/invite @sourcebot`)",
                "channel_not_found" => ": no such channel, or the bot cannot see it",
                _ => "",
            };
            let mut refusal = ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "slack_refused",
                format!("{error}{hint}"),
            );
            refusal.extra = Some(serde_json::json!({"slack_error": code}));
            refusal
        }
        CallError::RateLimited { .. } => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "slack_rate_limited",
            error.to_string(),
        )
        .retry_after(5),
        CallError::Timeout { .. } | CallError::Transport { .. } => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "slack_unavailable",
            error.to_string(),
        )
        .retry_after(5),
    };
    if let Some(ts) = answer_ts {
        let extra = refusal.extra.get_or_insert_with(|| serde_json::json!({}));
        extra["posted_answer_ts"] = Value::from(ts);
    }
    refusal
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(vars: &[(&str, &str)]) -> Result<ApiSettings, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ApiSettings::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_and_every_setting() {
        let defaults = settings(&[]).expect("defaults");
        assert!(!defaults.enabled());
        assert_eq!(defaults.max_body_bytes, 1 << 20);
        assert_eq!(defaults.max_sources, 500);
        let read = settings(&[
            (API_TOKEN, "0123456789abcdef0123, fedcba9876543210fedc"),
            (API_MAX_BODY_BYTES, "2048"),
            (API_MAX_SOURCES, "50"),
            (API_TIMEOUT, "5s"),
            (API_RATE_LIMIT, "10/s"),
        ])
        .expect("settings");
        assert_eq!(read.tokens.len(), 2);
        assert_eq!(read.max_body_bytes, 2048);
        assert_eq!(read.max_sources, 50);
        assert_eq!(read.timeout, Duration::from_secs(5));
        assert_eq!(
            (read.rate_requests, read.rate_period),
            (10, Duration::from_secs(1))
        );
        assert!(
            !format!("{read:?}").contains("0123456789abcdef"),
            "tokens are redacted"
        );
    }

    #[test]
    fn bad_settings_name_the_variable_and_never_echo_a_token() {
        for (name, value, says) in [
            (API_TOKEN, "x7tiny", "shorter than 16"),
            (API_TOKEN, "0123456789abcdef0123,tiny", "token 2 is shorter"),
            (API_RATE_LIMIT, "fast", "requests per period"),
            (API_RATE_LIMIT, "0/s", "requests per period"),
            (API_RATE_LIMIT, "10/day", "requests per period"),
            (API_MAX_SOURCES, "0", "from 1"),
            (API_TIMEOUT, "forever", "duration"),
        ] {
            let error = settings(&[(name, value)]).expect_err(value);
            assert_eq!(error.name, name);
            assert!(error.to_string().contains(says), "{error}");
            if name == API_TOKEN {
                assert!(!error.to_string().contains(value), "{error}");
            }
        }
    }

    #[test]
    fn bearer_tokens_are_read_from_the_header() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer abc"),
        );
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer   abc "),
        );
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }

    #[test]
    fn content_types() {
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
            headers
        };
        assert_eq!(
            format_hint(&with("application/json; charset=utf-8"), false),
            Ok(FormatHint::Json)
        );
        assert_eq!(
            format_hint(&with("text/markdown"), false),
            Ok(FormatHint::Text)
        );
        assert_eq!(format_hint(&HeaderMap::new(), false), Ok(FormatHint::Auto));
        let refused = format_hint(&with("application/xml"), false).expect_err("xml");
        assert_eq!(refused.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert!(format_hint(&with("text/markdown"), true).is_err());
    }
}

//! The HTTP service for answer pipelines, served by `serve` beside the Slack routes:
//! `POST /v1/check` turns any answer the collector reads into the scored report (with
//! its rendered mrkdwn and blocks, and `support_judges`: who judged whether the cited
//! pages support the claims, by name); `POST /v1/answers` also posts it to Slack — the
//! answer itself with an "unverified" marker after each uncited claim, then its sources
//! in the thread, or the sources alone as a reply; `GET /readyz` (and `/readyz/slack`,
//! `/readyz/api`) says how each part is doing (`api/ready.rs`); `GET /metrics` serves
//! [`crate::metrics`]. `/v1/check` needs only the pipeline, so it answers while Slack
//! or the database is away; `/v1/answers` needs Slack and says so (503) while it is
//! away. [`Gate`] holds Slack's routes closed until `serve` has brought them up.
//!
//! The `/v1` routes need a bearer token from `SOURCEBOT_API_TOKEN` (compared in
//! constant time) and are off without one. Each token has its own rate limit; bodies,
//! sources per answer, requests at once and time per check are bounded. Every refusal
//! is `{"error": {"code", "message", "path"?}}` with its status: 400 (malformed, with
//! the JSON path of the bad field), 401, 404, 413, 415, 422 (well-formed but unusable,
//! or refused by Slack), 429 (with `Retry-After`), 503 (busy, timed out, or Slack
//! unreachable).

use crate::collect::input::{FormatHint, InputError};
use crate::health::Part;
use crate::metrics::Metrics;
use crate::model::{Answer, Report};
use crate::pipeline::Pipeline;
use crate::render::answer::answer_mrkdwn;
use crate::render::blocks::BlockMessage;
use crate::render::evidence::{judges, JudgeCount};
use crate::setting::{duration, positive, ConfigError};
use crate::slack::api::{CallError, Outgoing};
use crate::slack::workspace::Unserved;
use crate::slack::{Bot, Workspace, WorkspaceKey};
use crate::state::BotState;
use crate::store::workspace_data::WorkspaceData;
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
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;

mod answers;
mod error;
mod idempotency;
pub mod mcp;
mod ready;
mod settings;

use answers::*;
pub use error::*;
pub use settings::*;

use idempotency::{
    fingerprint, idempotency_key, once_across_replicas, shared_key, Replies, StoredReply,
};
pub use idempotency::{MAX_REPLIES, REPLY_TTL};
/// Everything the routes share. `/v1/check` needs only the pipeline, which exists
/// from the first moment; the bot (Slack) and the database arrive when `serve` has
/// brought them up ([`ApiState::signed_in`], [`ApiState::database`]), and until then
/// the routes that need them say so.
pub struct ApiState {
    pipeline: Arc<Pipeline>,
    metrics: Arc<Metrics>,
    /// The state replicas share (idempotency across replicas), and its health.
    shared: Arc<dyn BotState>,
    bot: OnceLock<Arc<Bot>>,
    data: OnceLock<Arc<dyn WorkspaceData>>,
    settings: ApiSettings,
    limiter: DefaultKeyedRateLimiter<usize>,
    in_flight: Semaphore,
    signed_in_at: OnceLock<u64>,
    replies: Replies,
    /// Where Slack's traffic arrives, for `/readyz`'s `affects`.
    slack_routes: SlackRoutes,
}

/// Where Slack's traffic reaches this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlackRoutes {
    /// `/slack/events`, `/slack/commands`, `/slack/interactions`.
    Http,
    /// A Socket Mode connection.
    Socket,
}

impl ApiState {
    /// The service around `bot`, already signed in (its pipeline, Slack client, state,
    /// database and metrics).
    pub fn new(bot: Arc<Bot>, settings: ApiSettings) -> Arc<ApiState> {
        let state = ApiState::starting(
            bot.shared_pipeline().clone(),
            bot.metrics().clone(),
            bot.state().clone(),
            settings,
            SlackRoutes::Http,
        );
        state.database(bot.hub().data().clone());
        state.signed_in(bot);
        state
    }

    /// The service before Slack answered: `/v1/check` works with `pipeline`;
    /// `/v1/answers` answers 503 until [`ApiState::signed_in`]. Slack's traffic
    /// arrives over `slack_routes` (for `/readyz`'s `affects`).
    pub fn starting(
        pipeline: Arc<Pipeline>,
        metrics: Arc<Metrics>,
        shared: Arc<dyn BotState>,
        settings: ApiSettings,
        slack_routes: SlackRoutes,
    ) -> Arc<ApiState> {
        let burst = NonZeroU32::new(settings.rate_requests).unwrap_or(NonZeroU32::MIN);
        let replenish = settings.rate_period / burst.get();
        let quota = Quota::with_period(replenish)
            .unwrap_or_else(|| Quota::per_second(burst))
            .allow_burst(burst);
        Arc::new(ApiState {
            pipeline,
            metrics,
            shared,
            bot: OnceLock::new(),
            data: OnceLock::new(),
            settings,
            limiter: RateLimiter::keyed(quota),
            in_flight: Semaphore::new(MAX_IN_FLIGHT),
            replies: Replies::default(),
            signed_in_at: OnceLock::new(),
            slack_routes,
        })
    }

    /// Slack answered: `/v1/answers` posts through `bot` from now on.
    pub fn signed_in(&self, bot: Arc<Bot>) {
        let _ = self
            .signed_in_at
            .set(crate::calendar::unix_now().max(0) as u64);
        let _ = self.bot.set(bot);
    }

    /// The installation (or workspace) database opened: `/readyz` asks it.
    pub fn database(&self, data: Arc<dyn WorkspaceData>) {
        let _ = self.data.set(data);
    }

    /// The bot, or 503 naming Slack and what failed while it has not signed in.
    fn slack(&self) -> Result<&Arc<Bot>, ApiError> {
        self.bot.get().ok_or_else(|| {
            let (waiting, record) = match self.metrics.health().bringing_up() {
                (Part::Database, record) => {
                    ("is opening its database before signing in to Slack", record)
                }
                (_, record) => ("has not signed in to Slack yet", record),
            };
            let why = record
                .last_error
                .map(|error| format!(": {error}"))
                .unwrap_or_default();
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "slack_unavailable",
                format!(
                    "sourcebot {waiting}{why}; nothing was posted (POST /v1/check works meanwhile)"
                ),
            )
            .retry_after(5)
        })
    }
}

/// The door of `serve`'s Slack routes (and install routes) while it brings up the
/// database and signs in to Slack: until [`Gate::open`] is given them, every request
/// that reaches it is answered 503 `starting` with `Retry-After` (Slack delivers it
/// again) and the reason, counted in the metrics. `/healthz`, `/readyz`, `/metrics`
/// and the answer API are served beside it from the first moment.
#[derive(Clone)]
pub struct Gate {
    app: Arc<std::sync::RwLock<Option<Router>>>,
    metrics: Arc<Metrics>,
}

impl Gate {
    /// A closed gate, counting what it answers in `metrics` (and reading why it is
    /// still closed from their health).
    pub fn new(metrics: Arc<Metrics>) -> Gate {
        Gate {
            app: Arc::new(std::sync::RwLock::new(None)),
            metrics,
        }
    }

    /// From now on every request goes to `app`.
    pub fn open(&self, app: Router) {
        if let Ok(mut slot) = self.app.write() {
            *slot = Some(app);
        }
    }

    /// The router to serve: `app` once open, 503 `starting` until then.
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
        let waiting = match self.metrics.health().bringing_up() {
            (Part::Database, record) => ("opening its database", record),
            (_, record) => ("signing in to Slack", record),
        };
        let message = match waiting.1.last_error {
            Some(error) => format!("sourcebot is {} ({error}); try again shortly", waiting.0),
            None => format!("sourcebot is {}; try again shortly", waiting.0),
        };
        count_requests(
            Router::new().fallback(move || async move {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "starting", message).retry_after(5)
            }),
            self.metrics.clone(),
        )
    }
}

/// `/readyz`, `/metrics`, `/v1/check` and `/v1/answers`, with a JSON 404 for anything
/// else. Merge the Slack routes (and `/healthz`) beside it, then wrap the whole with
/// [`count_requests`].
pub fn router(state: Arc<ApiState>) -> Router {
    fallbacks(routes(state))
}

/// The same routes without the fallbacks, for `serve`, which sends every other path
/// to the Slack routes once they are up ([`Gate`]).
pub fn routes(state: Arc<ApiState>) -> Router {
    Router::new()
        .route("/readyz", get(ready::all))
        .route("/readyz/slack", get(ready::slack))
        .route("/readyz/api", get(ready::api))
        .route("/metrics", get(metrics))
        .route("/v1/check", post(check))
        .route("/v1/answers", post(answers))
        .with_state(state.clone())
        .merge(mcp::http::routes(state))
}

/// Answers 404 (JSON) for paths no route serves, and 405 for a method a route does not
/// take: the last routes of `serve`'s app.
pub fn fallbacks(app: Router) -> Router {
    app.method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
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

async fn metrics(State(state): State<Arc<ApiState>>) -> Response {
    metrics_response(&state.metrics)
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
    /// Who judged whether the cited pages support the claims, by name (the built-in
    /// scorer, or the language model's name) with how many judgements each made; left
    /// out when nothing was judged. Each support in `claims` says its own `judge`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    support_judges: Vec<JudgeCount>,
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
    let index = authenticate(&state.settings, headers)?;
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

/// Who a `/v1` request is, decided before anything else (and before Slack or any
/// other part is asked whether it is up): the index of its token among `settings`'
/// tokens, compared in constant time; 404 when the API is off, 401 without a token or
/// with one that is not known.
fn authenticate(settings: &ApiSettings, headers: &HeaderMap) -> Result<usize, ApiError> {
    if !settings.enabled() {
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
    settings
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
        .ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", "unknown token"))
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
        state.pipeline.collect(&answer)
    } else {
        let collecting = state.clone();
        tokio::task::spawn_blocking(move || collecting.pipeline.collect(&answer))
            .await
            .map_err(|error| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    format!("collecting the sources failed: {error}"),
                )
            })?
    };
    let pipeline = &state.pipeline;
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
            .check_support_with(&mut report, internal, Some(left))
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
    let pipeline = &state.pipeline;
    serde_json::to_value(CheckResponse {
        report,
        support_judges: judges(report, pipeline.config().render.support_model.as_deref()),
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
    let answer = state.pipeline.parse(&bytes, hint).map_err(malformed)?;
    check_source_count(&answer, state.settings.max_sources)?;
    let report = run_check(&state, answer, verify, None).await?;
    respond(&state, &report)
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
        assert!(defaults.mcp_allowed_origins.is_empty());
        let origins = settings(&[(
            MCP_ALLOWED_ORIGINS,
            " https://app.example.com:443, http://localhost:*,null ",
        )])
        .expect("origins");
        assert_eq!(
            origins.mcp_allowed_origins,
            ["https://app.example.com:443", "http://localhost:*", "null"]
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
            (MCP_ALLOWED_ORIGINS, "app.example.com", "not an origin"),
            (
                MCP_ALLOWED_ORIGINS,
                "https://a.example/path",
                "not an origin",
            ),
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

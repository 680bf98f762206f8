//! HTTP mode: the axum routes Slack calls — `/slack/events`, `/slack/commands`,
//! `/slack/interactions` — and `/healthz`. Every Slack request is size-limited before
//! it is read, its signature checked with slack-morphism's verifier (a bad or missing
//! signature, or a timestamp more than five minutes off, is refused with 401), and
//! acknowledged at once: the work runs in a spawned task, so Slack always gets its 2xx
//! well within 3 s.

use super::inbound::{command_job, interaction_job, Job, USAGE};
use super::Bot;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use slack_morphism::prelude::*;
use slack_morphism::signature_verifier::SlackEventSignatureVerifier;
use std::sync::Arc;

#[derive(Clone)]
struct AppState {
    bot: Arc<Bot>,
    signatures: SlackEventSignatureVerifier,
}

/// The Slack routes and `/healthz`, with bodies limited to `max_body_bytes`.
pub fn router(bot: Arc<Bot>, signing_secret: &str, max_body_bytes: usize) -> Router {
    let state = AppState {
        bot,
        signatures: SlackEventSignatureVerifier::new(&SlackSigningSecret::new(
            signing_secret.to_string(),
        )),
    };
    Router::new()
        .route("/slack/events", post(events))
        .route("/slack/commands", post(commands))
        .route("/slack/interactions", post(interactions))
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .with_state(state)
        .merge(health_router())
}

/// `GET /healthz`: 200 while the process serves.
pub fn health_router() -> Router {
    Router::new().route("/healthz", get(|| async { "ok" }))
}

/// A refusal with a one-line reason.
fn refuse(status: StatusCode, reason: &str) -> Response {
    (status, format!("{reason}\n")).into_response()
}

/// Why a request was refused: the status and a one-line reason.
type Refusal = (StatusCode, &'static str);

/// Checks `x-slack-signature` and `x-slack-request-timestamp` against the raw body.
fn check_signature(state: &AppState, headers: &HeaderMap, body: &[u8]) -> Result<(), Refusal> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let (Some(signature), Some(timestamp)) = (
        header(SlackEventSignatureVerifier::SLACK_SIGNED_HASH_HEADER),
        header(SlackEventSignatureVerifier::SLACK_SIGNED_TIMESTAMP),
    ) else {
        return Err((StatusCode::UNAUTHORIZED, "missing Slack signature headers"));
    };
    let Ok(body) = std::str::from_utf8(body) else {
        return Err((StatusCode::BAD_REQUEST, "the body is not UTF-8"));
    };
    state
        .signatures
        .verify(signature, body, timestamp)
        .map_err(|error| {
            tracing::warn!(%error, "refused a request with a bad Slack signature");
            (StatusCode::UNAUTHORIZED, "bad Slack signature")
        })
}

async fn events(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err((status, reason)) = check_signature(&state, &headers, &body) {
        return refuse(status, reason);
    }
    let event: SlackPushEvent = match serde_json::from_slice(&body) {
        Ok(event) => event,
        Err(error) => {
            tracing::warn!(%error, "unreadable event");
            return refuse(StatusCode::BAD_REQUEST, "unreadable event");
        }
    };
    match event {
        SlackPushEvent::UrlVerification(check) => {
            Json(serde_json::json!({ "challenge": check.challenge })).into_response()
        }
        SlackPushEvent::EventCallback(callback) => {
            state.bot.accept_event(&callback);
            StatusCode::OK.into_response()
        }
        SlackPushEvent::AppRateLimited(_) => {
            tracing::warn!("Slack says the app is rate limited: events are being dropped");
            StatusCode::OK.into_response()
        }
    }
}

async fn commands(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    // Slack's certificate checks carry no command: answer them, do nothing.
    if form_field(&body, "ssl_check").as_deref() == Some("1") {
        return StatusCode::OK.into_response();
    }
    if let Err((status, reason)) = check_signature(&state, &headers, &body) {
        return refuse(status, reason);
    }
    let command: SlackCommandEvent = match serde_urlencoded::from_bytes(&body) {
        Ok(command) => command,
        Err(error) => {
            tracing::warn!(%error, "unreadable command");
            return refuse(StatusCode::BAD_REQUEST, "unreadable command");
        }
    };
    match command_job(&command) {
        Job::Usage { .. } => ephemeral(USAGE),
        Job::Refuse { why, .. } => ephemeral(&why),
        job => {
            state.bot.spawn(job);
            ephemeral("Checking the sources…")
        }
    }
}

async fn interactions(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err((status, reason)) = check_signature(&state, &headers, &body) {
        return refuse(status, reason);
    }
    let Some(payload) = form_field(&body, "payload") else {
        return refuse(StatusCode::BAD_REQUEST, "no payload");
    };
    let interaction: SlackInteractionEvent = match serde_json::from_str(&payload) {
        Ok(interaction) => interaction,
        Err(error) => {
            tracing::warn!(%error, "unreadable interaction");
            return refuse(StatusCode::BAD_REQUEST, "unreadable interaction");
        }
    };
    if let Some(job) = interaction_job(&interaction) {
        state.bot.spawn(job);
    }
    StatusCode::OK.into_response()
}

/// An immediate ephemeral answer to a command.
fn ephemeral(text: &str) -> Response {
    Json(serde_json::json!({ "response_type": "ephemeral", "text": text })).into_response()
}

/// One field of a form-encoded body.
fn form_field(body: &[u8], name: &str) -> Option<String> {
    url::form_urlencoded::parse(body)
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
}

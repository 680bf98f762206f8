//! HTTP mode: the axum routes Slack calls — `/slack/events`, `/slack/commands`,
//! `/slack/interactions` — and `/healthz`. Every Slack request is size-limited before
//! it is read, its signature checked with slack-morphism's verifier (a bad or missing
//! signature, or a timestamp more than five minutes off, is refused with 401), and
//! acknowledged at once: the work runs in a spawned task, so Slack always gets its 2xx
//! well within 3 s.

use super::workspace::WorkspaceKey;
use super::Bot;
use crate::collect::slack_message::lenient;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;
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
    let Some(event) = json_body(&body, "event") else {
        return refuse(StatusCode::BAD_REQUEST, "unreadable event");
    };
    match event.get("type").and_then(Value::as_str) {
        Some("url_verification") => {
            let challenge = event.get("challenge").cloned().unwrap_or(Value::Null);
            Json(serde_json::json!({ "challenge": challenge })).into_response()
        }
        Some("event_callback") => {
            state.bot.accept_event(&event).await;
            StatusCode::OK.into_response()
        }
        Some("app_rate_limited") => {
            tracing::warn!("Slack says the app is rate limited: events are being dropped");
            StatusCode::OK.into_response()
        }
        other => {
            tracing::debug!(kind = ?other, "ignored an event of a kind the bot does not handle");
            StatusCode::OK.into_response()
        }
    }
}

/// A JSON body read leniently (a lone UTF-16 surrogate escape becomes U+FFFD rather
/// than losing the request); `None`, logged, when it is not JSON.
fn json_body(body: &[u8], what: &str) -> Option<Value> {
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(error) => {
            tracing::warn!(%error, what, "a request body that is not UTF-8");
            return None;
        }
    };
    match lenient::parse(text) {
        Ok((value, repaired)) => {
            if repaired {
                tracing::debug!(what, "lone UTF-16 surrogates in a request were replaced");
            }
            Some(value)
        }
        Err(error) => {
            tracing::warn!(%error, what, "unreadable JSON");
            None
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
    let workspace = WorkspaceKey::of_command(|name| form_field(&body, name));
    ephemeral(&state.bot.accept_command(&command, workspace).await)
}

async fn interactions(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err((status, reason)) = check_signature(&state, &headers, &body) {
        return refuse(status, reason);
    }
    let Some(payload) = form_field(&body, "payload") else {
        return refuse(StatusCode::BAD_REQUEST, "no payload");
    };
    let Some(interaction) = json_body(payload.as_bytes(), "interaction") else {
        return refuse(StatusCode::BAD_REQUEST, "unreadable interaction");
    };
    match state.bot.accept_interaction(&interaction).await {
        // The settings modal's errors, shown under its fields.
        Some(body) => Json(body).into_response(),
        None => StatusCode::OK.into_response(),
    }
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

//! `GET /readyz`, `/readyz/slack` and `/readyz/api`: whether this process can serve,
//! and how each part it leans on is doing. Every probe answers the same body — one
//! object per part (`slack`, `shared_state`, `database`, `model`) with its status
//! (`ok`, `down`, `starting`, `off`, `unknown`), its last error, which endpoints it
//! affects and what they do meanwhile — and differs only in what makes it 200:
//!
//! - `/readyz/api`: the answer API is on. `/v1/check` needs only the pipeline, which
//!   exists from the first moment, so Slack or a database being away never takes the
//!   API out of a load balancer.
//! - `/readyz/slack`: Slack answered the sign-in and the database opened, so Slack's
//!   requests can be acted on.
//! - `/readyz`: everything this process serves is ready (Slack, and the API when on).
//!
//! A part that fails after start (Slack unreachable mid-run, Redis or the database
//! stopped, the model endpoint down) is reported `down` and listed in `degraded`, and
//! the probes stay 200: the other replicas share the same Slack, Redis and database,
//! so taking this one out of the pool would not help, and it still serves what it can
//! (cached workspaces, `/v1/check`, retried replies).

use super::{ApiState, SlackRoutes};
use crate::health::{Part, Record, Status};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// How long `/readyz` waits for the database to answer `SELECT 1`: well inside a
/// probe's own timeout (2 s in deploy/kubernetes.yaml), so a database that hangs makes
/// the body say so rather than the probe time out.
const DATABASE_PING: Duration = Duration::from_millis(500);

/// Workspaces whose Slack calls fail listed at most.
const FAILING_WORKSPACES_SHOWN: usize = 20;

/// Which probe was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    All,
    Slack,
    Api,
}

impl Probe {
    fn name(self) -> &'static str {
        match self {
            Probe::All => "all",
            Probe::Slack => "slack",
            Probe::Api => "api",
        }
    }
}

/// `GET /readyz`.
pub(super) async fn all(State(state): State<Arc<ApiState>>) -> Response {
    answer(&state, Probe::All).await
}

/// `GET /readyz/slack`.
pub(super) async fn slack(State(state): State<Arc<ApiState>>) -> Response {
    answer(&state, Probe::Slack).await
}

/// `GET /readyz/api`.
pub(super) async fn api(State(state): State<Arc<ApiState>>) -> Response {
    answer(&state, Probe::Api).await
}

async fn answer(state: &ApiState, probe: Probe) -> Response {
    let parts = [
        ("slack", slack_part(state)),
        ("shared_state", shared_state_part(state).await),
        ("database", database_part(state).await),
        ("model", model_part(state)),
    ];
    let api_on = state.settings.enabled();
    let slack_ready = state.bot.get().is_some();
    let ready = match probe {
        Probe::Api => api_on,
        Probe::Slack => slack_ready,
        Probe::All => slack_ready,
    };
    let degraded: Vec<&str> = parts
        .iter()
        .filter(|(_, part)| part["status"] == Status::Down.as_str())
        .map(|(name, _)| *name)
        .collect();
    let mut body = json!({
        "ready": ready,
        "probe": probe.name(),
        "degraded": degraded,
        "api": if api_on { "on" } else { "off" },
    });
    for (name, part) in parts {
        body[name] = part;
    }
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(body)).into_response()
}

/// A part's record as JSON, with the endpoints it affects and what they do while it
/// is down.
fn part(record: &Record, affects: &[&str], when_down: &str) -> Value {
    json!({
        "status": record.status.as_str(),
        "last_error": record.last_error,
        "last_error_at": record.last_error_at,
        "since": record.since,
        "affects": affects,
        "when_down": when_down,
    })
}

fn slack_part(state: &ApiState) -> Value {
    let health = state.metrics.health();
    let record = health.record(Part::Slack);
    let mut affects = match state.slack_routes {
        SlackRoutes::Http => vec!["/slack/events", "/slack/commands", "/slack/interactions"],
        SlackRoutes::Socket => vec!["Socket Mode"],
    };
    affects.push("/v1/answers");
    let mut value = part(
        &record,
        &affects,
        "Slack's requests are acknowledged; replies are tried again for SOURCEBOT_SLACK_RETRY_FOR, then logged with their channel and thread. /v1/answers answers 503 slack_unavailable. Before the first sign-in, Slack's requests get 503 (Slack delivers them again). /v1/check keeps working; Slack links in it are not checked until Slack answers",
    );
    let bot = state.bot.get();
    let identity = bot.and_then(|bot| bot.identity());
    value["auth_test"] = json!(match (bot, identity) {
        (None, _) => "pending",
        (Some(_), Some(_)) => "ok",
        (Some(_), None) => "no bot token",
    });
    value["user_id"] = json!(identity.map(|i| i.user_id.as_str()));
    value["bot_id"] = json!(identity.and_then(|i| i.bot_id.as_deref()));
    value["workspaces"] = json!(bot.map(|bot| match bot.workspaces() {
        crate::slack::Workspaces::Installed(_) => "installed by OAuth",
        crate::slack::Workspaces::Single(_) => "one (the bot token's)",
    }));
    value["signed_in_at"] = json!(state.signed_in_at.get());
    let (failing, known) = health.slack_workspaces(FAILING_WORKSPACES_SHOWN);
    value["workspaces_seen"] = json!(known);
    value["failing_workspaces"] = failing
        .into_iter()
        .map(|(id, record)| {
            (
                id,
                json!({"last_error": record.last_error, "since": record.since}),
            )
        })
        .collect::<serde_json::Map<String, Value>>()
        .into();
    value
}

async fn shared_state_part(state: &ApiState) -> Value {
    let shared = state.shared.check_health().await;
    let record = Record {
        status: if shared.up { Status::Ok } else { Status::Down },
        last_error: if shared.up { None } else { shared.last_error },
        last_error_at: None,
        since: crate::calendar::unix_now(),
    };
    let mut value = part(
        &record,
        &["/slack/events", "/slack/commands", "/slack/interactions", "/v1/answers"],
        "each replica goes on alone: Slack's retried deliveries and Idempotency-Key replays are recognised only by the replica that saw the first one, and pacing is per replica; everything is answered",
    );
    value["backend"] = json!(shared.backend);
    // The store reports only whether it answers now.
    value["since"] = Value::Null;
    value
}

async fn database_part(state: &ApiState) -> Value {
    let health = state.metrics.health();
    let backend = state.data.get().map(|data| data.backend());
    if let Some(data) = state.data.get() {
        match tokio::time::timeout(DATABASE_PING, data.ping()).await {
            Ok(Ok(())) => health.ok(Part::Database),
            Ok(Err(error)) => health.failed(Part::Database, &error.to_string()),
            Err(_) => health.failed(
                Part::Database,
                &format!(
                    "the database did not answer within {} ms",
                    DATABASE_PING.as_millis()
                ),
            ),
        }
    }
    let mut value = part(
        &health.record(Part::Database),
        &[
            "/slack/events",
            "/slack/commands",
            "/slack/interactions",
            "/slack/oauth_redirect",
        ],
        "workspaces read within the last hour are served from the cache; requests from others are acknowledged, logged and counted in sourcebot_unserved_total{reason=\"database\"}; installs, settings changes, report history and feedback fail with a message and are not half-written; /v1/check keeps working",
    );
    value["backend"] = json!(backend);
    value
}

fn model_part(state: &ApiState) -> Value {
    let configured = state.pipeline.config().llm.is_some();
    let mut record = state.metrics.health().record(Part::Model);
    if !configured {
        record.status = Status::Off;
    }
    part(
        &record,
        &[
            "/v1/check",
            "/v1/answers",
            "/slack/events",
            "/slack/commands",
            "/slack/interactions",
        ],
        "claims are classified and judged by the built-in rules, and each report says which judge was used",
    )
}

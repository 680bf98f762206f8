//! MCP's streamable HTTP transport at `/mcp`, beside `/v1` and behind the same door:
//! a bearer token from `SOURCEBOT_API_TOKEN` (401 without one; 404 while the API is
//! off), the same per-token rate limit and requests-at-once bound, the same body limit
//! (413), and `Origin` checked against `SOURCEBOT_MCP_ALLOWED_ORIGINS` (403 for any
//! other; requests without `Origin`, as agents send them, pass). The transport is
//! stateless: no `Mcp-Session-Id` is kept, so any replica answers any request.

use super::{McpLimits, McpServer};
use crate::api::{admit, ApiError, ApiState, API_MAX_BODY_BYTES, MCP_ALLOWED_ORIGINS};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;

/// The path MCP is served at.
pub const PATH: &str = "/mcp";

/// `/mcp`, guarded as `/v1` is.
pub fn routes(state: Arc<ApiState>) -> Router {
    let server = McpServer::new(
        state.pipeline.clone(),
        McpLimits::from_settings(&state.settings),
    )
    .with_metrics(state.metrics.clone());
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        // The bearer token, not the Host header, keeps others out; behind a load
        // balancer the Host is whatever name the operator gave the service.
        .disable_allowed_hosts()
        .with_allowed_origins(state.settings.mcp_allowed_origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(state.settings.max_body_bytes);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Router::new()
        .route_service(PATH, service)
        .layer(middleware::from_fn_with_state(state, guard))
}

/// The token, the rate limit and the requests-at-once bound, before MCP sees the
/// request; the transport's own refusals (a foreign `Origin`, a body too large) in the
/// API's error JSON after.
async fn guard(State(state): State<Arc<ApiState>>, request: Request, next: Next) -> Response {
    match admit(&state, request.headers()).await {
        Ok(_permit) => in_api_words(next.run(request).await, state.settings.max_body_bytes),
        Err(refused) => refused.into_response(),
    }
}

/// `response`, or for the transport's plain-text 403 and 413 the same refusal as
/// `{"error": {"code", "message"}}`, as every `/v1` refusal is.
fn in_api_words(response: Response, limit: usize) -> Response {
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return response;
    }
    match response.status() {
        StatusCode::FORBIDDEN => ApiError::new(
            StatusCode::FORBIDDEN,
            "origin_not_allowed",
            format!("this Origin may not call {PATH}; list it in {MCP_ALLOWED_ORIGINS}"),
        )
        .into_response(),
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the body is larger than {limit} bytes ({API_MAX_BODY_BYTES})"),
        )
        .into_response(),
        _ => response,
    }
}

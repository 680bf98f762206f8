//! The install routes: `GET /slack/install` sends the browser to Slack's authorize page
//! with a fresh `state` (and a cookie binding it to that browser); `GET
//! /slack/oauth_redirect` is where Slack sends it back: the state is checked (signed,
//! not expired, this browser's, used once), the code exchanged with `oauth.v2.access`,
//! the installation stored, and a plain page says how it went. A wrong, reused or
//! expired state is refused with 400 and nothing is stored.

use super::oauth::{installation_from_access, OAuthSettings, StateError, STATE_COOKIE, STATE_TTL};
use crate::slack::api::SlackApi;
use crate::state::BotState;
use crate::store::installations::InstallationStore;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// What the install routes need.
pub struct InstallService {
    /// The app's credentials and where it is reached.
    pub settings: OAuthSettings,
    /// Where installations go.
    pub store: Arc<dyn InstallationStore>,
    /// Where used states are claimed (shared by replicas with Redis).
    pub state: Arc<dyn BotState>,
    /// Slack's Web API (for `oauth.v2.access`).
    pub slack: Arc<SlackApi>,
}

/// `GET /slack/install` and `GET /slack/oauth_redirect`.
pub fn router(service: Arc<InstallService>) -> Router {
    Router::new()
        .route("/slack/install", get(install))
        .route("/slack/oauth_redirect", get(redirect))
        .with_state(service)
}

async fn install(State(service): State<Arc<InstallService>>) -> Response {
    let (state, nonce) = match service.settings.new_state(now()) {
        Ok(made) => made,
        Err(error) => {
            return page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Cannot install",
                &error.to_string(),
            )
        }
    };
    let cookie = format!(
        "{STATE_COOKIE}={nonce}; Path=/slack; Max-Age={}; HttpOnly; SameSite=Lax{}",
        STATE_TTL.as_secs(),
        if service.settings.secure_cookies() {
            "; Secure"
        } else {
            ""
        }
    );
    let location = service.settings.authorize_url(&state);
    let mut response = StatusCode::FOUND.into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::LOCATION, location),
        (header::SET_COOKIE, cookie),
        (header::CACHE_CONTROL, "no-store".to_string()),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    response
}

/// What Slack adds to the redirect URI.
#[derive(Debug, Deserialize)]
struct Redirect {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

async fn redirect(
    State(service): State<Arc<InstallService>>,
    headers: HeaderMap,
    Query(query): Query<Redirect>,
) -> Response {
    let refuse =
        |error: StateError| page(StatusCode::BAD_REQUEST, "Not installed", &error.to_string());
    let Some(state) = query.state.as_deref() else {
        return refuse(StateError::Forged);
    };
    let nonce =
        match service
            .settings
            .check_state(state, cookie(&headers, STATE_COOKIE).as_deref(), now())
        {
            Ok(nonce) => nonce,
            Err(error) => return refuse(error),
        };
    if !service
        .state
        .first_delivery(&format!("oauth-state:{nonce}"))
        .await
    {
        return refuse(StateError::Reused);
    }
    if let Some(error) = query.error.as_deref() {
        let why = if error == "access_denied" {
            "The installation was cancelled in Slack; nothing was installed.".to_string()
        } else {
            format!("Slack ended the installation ({error}); nothing was installed.")
        };
        return page(StatusCode::OK, "Not installed", &why);
    }
    let Some(code) = query.code.filter(|c| !c.is_empty()) else {
        return page(
            StatusCode::BAD_REQUEST,
            "Not installed",
            "Slack's redirect carried no code; start again from /slack/install.",
        );
    };
    let answer = match service
        .slack
        .oauth_access(
            &service.settings.client_id,
            &service.settings.client_secret,
            vec![
                ("code", Some(code)),
                ("redirect_uri", Some(service.settings.redirect_uri())),
            ],
        )
        .await
    {
        Ok(answer) => answer,
        Err(error) => {
            tracing::warn!(%error, "oauth.v2.access failed");
            let status = if error.code().is_some() {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::BAD_GATEWAY
            };
            return page(status, "Not installed", &format!("Slack did not complete the installation: {error}. Start again from /slack/install."));
        }
    };
    let installation = match installation_from_access(&answer, now() as i64) {
        Ok(installation) => installation,
        Err(error) => {
            tracing::warn!(%error, "unusable oauth.v2.access answer");
            return page(StatusCode::BAD_GATEWAY, "Not installed", &error.to_string());
        }
    };
    if let Err(error) = service.store.save(&installation).await {
        tracing::warn!(%error, "cannot store an installation");
        return page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Not installed",
            "The installation could not be stored; try again in a moment.",
        );
    }
    let workspace = answer
        .pointer("/team/name")
        .or_else(|| answer.pointer("/enterprise/name"))
        .and_then(|name| name.as_str())
        .unwrap_or("your workspace");
    tracing::info!(
        team_id = installation.team_id.as_deref().unwrap_or("-"),
        enterprise_id = installation.enterprise_id.as_deref().unwrap_or("-"),
        "installed"
    );
    let mut response = page(
        StatusCode::OK,
        "sourcebot is installed",
        &format!("sourcebot is installed in {workspace}. Mention @sourcebot in a thread under an answer, or run /sources, to see what the answer rests on."),
    );
    if let Ok(clear) = HeaderValue::from_str(&format!(
        "{STATE_COOKIE}=; Path=/slack; Max-Age=0; HttpOnly; SameSite=Lax"
    )) {
        response.headers_mut().insert(header::SET_COOKIE, clear);
    }
    response
}

/// The value of cookie `name` in the request's `Cookie` headers.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.trim().to_string())
}

/// A plain HTML page; `text` is escaped (it may quote Slack or a workspace's name).
fn page(status: StatusCode, title: &str, text: &str) -> Response {
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body><h1>{title}</h1><p>{}</p></body></html>",
        escape_html(text),
        title = escape_html(title)
    );
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; sourcebot_oauth_state=abc"),
        );
        assert_eq!(cookie(&headers, STATE_COOKIE).as_deref(), Some("abc"));
        assert_eq!(cookie(&headers, "b"), None);
    }

    #[test]
    fn pages_escape_what_they_quote() {
        assert_eq!(
            escape_html("<b>\"Acme\" & 'co'</b>"),
            "&lt;b&gt;&quot;Acme&quot; &amp; &#39;co&#39;&lt;/b&gt;"
        );
    }
}

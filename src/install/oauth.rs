//! Slack's OAuth v2 install flow, the parts without network: the settings, the `state`
//! that ties Slack's redirect to the browser that started the install (signed with
//! HMAC-SHA256, expiring, used once, bound to a cookie, as Slack recommends), the
//! authorize URL, and reading `oauth.v2.access`'s answer into an [`Installation`].
//! The HTTP routes are in [`super::routes`]; the call to Slack in
//! [`crate::slack::api::SlackApi::oauth_access`].

use crate::setting::ConfigError;
use crate::store::installations::Installation;
use crate::store::token_key::TokenKey;
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};
use serde_json::Value;
use std::time::Duration;

pub use crate::slack::settings::CLIENT_ID;
/// `SLACK_CLIENT_SECRET`: the app's client secret.
pub const CLIENT_SECRET: &str = "SLACK_CLIENT_SECRET";
/// `SOURCEBOT_PUBLIC_URL`: where Slack and browsers reach this service
/// (`https://sourcebot.example.com`); the redirect URI is `{it}/slack/oauth_redirect`.
pub const PUBLIC_URL: &str = "SOURCEBOT_PUBLIC_URL";
/// `SOURCEBOT_DATABASE_URL`: where installations are kept (default
/// [`DEFAULT_DATABASE_URL`]; `postgres://…` for many replicas).
pub const DATABASE_URL: &str = "SOURCEBOT_DATABASE_URL";
/// The database used when `SOURCEBOT_DATABASE_URL` is not set: `sourcebot.db` in the
/// working directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://sourcebot.db";
/// `SOURCEBOT_TOKEN_KEY`: the key tokens are encrypted with at rest (64 hex digits).
pub const TOKEN_KEY: &str = "SOURCEBOT_TOKEN_KEY";

/// Slack's authorize page.
pub const AUTHORIZE_URL: &str = "https://slack.com/oauth/v2/authorize";
/// The bot scopes asked for: those of `manifest.yml` (a test keeps them equal).
pub const BOT_SCOPES: &[&str] = &[
    "app_mentions:read",
    "channels:history",
    "channels:read",
    "chat:write",
    "commands",
    "files:read",
    "groups:history",
    "groups:read",
    "im:history",
    "mpim:history",
    "users:read",
];
/// How long an install may take from `/slack/install` to Slack's redirect.
pub const STATE_TTL: Duration = Duration::from_secs(600);
/// The cookie that binds the state to the browser.
pub const STATE_COOKIE: &str = "sourcebot_oauth_state";

/// The install settings; OAuth is on when the client id and secret are set.
#[derive(Clone)]
pub struct OAuthSettings {
    /// The app's client id.
    pub client_id: String,
    /// The app's client secret.
    pub client_secret: String,
    /// Where this service is reached, without a trailing `/`.
    pub public_url: String,
    /// Where installations are kept.
    pub database_url: String,
    /// The key tokens are sealed with.
    pub token_key: TokenKey,
}

impl std::fmt::Debug for OAuthSettings {
    /// Secrets are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("public_url", &self.public_url)
            .field(
                "database_url",
                &crate::state::redis::without_secrets(&self.database_url),
            )
            .field("token_key", &"<redacted>")
            .finish()
    }
}

impl OAuthSettings {
    /// Reads the settings through `lookup`: `None` when OAuth is off (no client id and
    /// secret); an error naming the setting when one is missing or malformed.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<OAuthSettings>, ConfigError> {
        let get = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let (client_id, client_secret) = match (get(CLIENT_ID), get(CLIENT_SECRET)) {
            (None, None) => return Ok(None),
            (Some(id), Some(secret)) => (id, secret),
            (None, Some(_)) => return Err(missing(CLIENT_ID, "set with SLACK_CLIENT_SECRET to install the app in workspaces (Basic Information → App Credentials)")),
            (Some(_), None) => return Err(missing(CLIENT_SECRET, "set with SLACK_CLIENT_ID to install the app in workspaces (Basic Information → App Credentials)")),
        };
        let public_url = get(PUBLIC_URL).ok_or_else(|| {
            missing(
                PUBLIC_URL,
                "required with SLACK_CLIENT_ID: where Slack redirects browsers, e.g. https://sourcebot.example.com",
            )
        })?;
        let parsed = url::Url::parse(&public_url).ok().filter(|u| {
            matches!(u.scheme(), "https" | "http") && u.host().is_some() && u.query().is_none()
        });
        if parsed.is_none() {
            return Err(ConfigError {
                name: PUBLIC_URL,
                value: public_url,
                expected: "expected the service's base URL, e.g. https://sourcebot.example.com"
                    .into(),
            });
        }
        let token_key = match get(TOKEN_KEY) {
            None => {
                return Err(missing(
                    TOKEN_KEY,
                    "required with SLACK_CLIENT_ID: 32 random bytes as 64 hex digits (openssl rand -hex 32), to encrypt tokens at rest",
                ))
            }
            Some(hex) => TokenKey::from_hex(&hex).map_err(|error| ConfigError {
                name: TOKEN_KEY,
                value: "<hidden>".into(),
                expected: error.to_string(),
            })?,
        };
        Ok(Some(OAuthSettings {
            client_id,
            client_secret,
            public_url: public_url.trim_end_matches('/').to_string(),
            database_url: get(DATABASE_URL).unwrap_or_else(|| DEFAULT_DATABASE_URL.into()),
            token_key,
        }))
    }

    /// `{public_url}/slack/oauth_redirect`.
    pub fn redirect_uri(&self) -> String {
        format!("{}/slack/oauth_redirect", self.public_url)
    }

    /// Whether cookies must be `Secure` (the service is reached over HTTPS).
    pub fn secure_cookies(&self) -> bool {
        self.public_url.starts_with("https://")
    }

    /// Slack's authorize URL for `state`.
    pub fn authorize_url(&self, state: &str) -> String {
        let mut url = url::Url::parse(AUTHORIZE_URL).unwrap_or_else(|_| {
            // A constant that parses; never reached.
            url::Url::parse("https://slack.com/").expect("a constant URL")
        });
        url.query_pairs_mut()
            .append_pair("client_id", &self.client_id)
            .append_pair("scope", &BOT_SCOPES.join(","))
            .append_pair("redirect_uri", &self.redirect_uri())
            .append_pair("state", state);
        url.into()
    }

    /// The key states are signed with: derived from the client secret, for this use
    /// only.
    fn signing_key(&self) -> hmac::Key {
        let secret = hmac::Key::new(hmac::HMAC_SHA256, self.client_secret.as_bytes());
        let derived = hmac::sign(&secret, b"sourcebot oauth state v1");
        hmac::Key::new(hmac::HMAC_SHA256, derived.as_ref())
    }

    /// A new `state` and the nonce its cookie carries: `{nonce}.{expires}.{signature}`.
    pub fn new_state(&self, now_unix: u64) -> Result<(String, String), StateError> {
        let mut bytes = [0u8; 16];
        SystemRandom::new()
            .fill(&mut bytes)
            .map_err(|_| StateError::NoRandomness)?;
        let nonce = hex(&bytes);
        let expires = now_unix + STATE_TTL.as_secs();
        let signed = format!("{nonce}.{expires}");
        let tag = hmac::sign(&self.signing_key(), signed.as_bytes());
        Ok((format!("{signed}.{}", hex(tag.as_ref())), nonce))
    }

    /// Checks `state` against the browser's cookie nonce at `now_unix`; its nonce, to be
    /// claimed once by the caller.
    pub fn check_state(
        &self,
        state: &str,
        cookie_nonce: Option<&str>,
        now_unix: u64,
    ) -> Result<String, StateError> {
        let mut parts = state.split('.');
        let (Some(nonce), Some(expires), Some(tag), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(StateError::Forged);
        };
        let tag = unhex(tag).ok_or(StateError::Forged)?;
        hmac::verify(
            &self.signing_key(),
            format!("{nonce}.{expires}").as_bytes(),
            &tag,
        )
        .map_err(|_| StateError::Forged)?;
        let expires: u64 = expires.parse().map_err(|_| StateError::Forged)?;
        if now_unix > expires {
            return Err(StateError::Expired);
        }
        if cookie_nonce != Some(nonce) {
            return Err(StateError::OtherBrowser);
        }
        Ok(nonce.to_string())
    }
}

fn missing(name: &'static str, expected: &str) -> ConfigError {
    ConfigError {
        name,
        value: String::new(),
        expected: expected.into(),
    }
}

/// Why a `state` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Not one this service signed.
    #[error("the install link was not made here (bad state); start again from /slack/install")]
    Forged,
    /// Older than [`STATE_TTL`].
    #[error("the install link expired; start again from /slack/install")]
    Expired,
    /// The browser that came back is not the one that started (no or another cookie).
    #[error(
        "the install was started in another browser; start again from /slack/install in this one"
    )]
    OtherBrowser,
    /// Already used once.
    #[error("the install link was already used; start again from /slack/install")]
    Reused,
    /// The system gave no randomness.
    #[error("cannot make an install link: no randomness from the system")]
    NoRandomness,
}

/// Why `oauth.v2.access`'s answer could not be read as an installation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Slack's oauth.v2.access answer has no usable {0}")]
pub struct AccessError(pub &'static str);

/// Reads `oauth.v2.access`'s answer (Slack's documented JSON) into an installation
/// made at `now_unix`.
pub fn installation_from_access(
    answer: &Value,
    now_unix: i64,
) -> Result<Installation, AccessError> {
    let text = |pointer: &str| {
        answer
            .pointer(pointer)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    if text("/token_type").as_deref() != Some("bot") {
        return Err(AccessError("bot token (token_type \"bot\")"));
    }
    let is_enterprise_install = answer
        .get("is_enterprise_install")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let enterprise_id = text("/enterprise/id");
    let team_id = if is_enterprise_install {
        None
    } else {
        Some(text("/team/id").ok_or(AccessError("team.id"))?)
    };
    if is_enterprise_install && enterprise_id.is_none() {
        return Err(AccessError("enterprise.id for an org-wide install"));
    }
    let expires_in = answer.get("expires_in").and_then(Value::as_i64);
    Ok(Installation {
        enterprise_id,
        team_id,
        is_enterprise_install,
        app_id: text("/app_id").ok_or(AccessError("app_id"))?,
        bot_user_id: text("/bot_user_id").ok_or(AccessError("bot_user_id"))?,
        bot_id: text("/bot_id"),
        bot_token: text("/access_token").ok_or(AccessError("access_token"))?,
        bot_scopes: text("/scope")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        bot_refresh_token: text("/refresh_token"),
        bot_token_expires_at: expires_in.map(|seconds| now_unix + seconds),
        installer_user_id: text("/authed_user/id"),
        installed_at: now_unix,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    fn settings() -> OAuthSettings {
        OAuthSettings::from_lookup(|name| match name {
            CLIENT_ID => Some("1234.5678".into()),
            CLIENT_SECRET => Some("s3cret".into()),
            PUBLIC_URL => Some("https://sourcebot.example.com/".into()),
            TOKEN_KEY => Some(KEY.into()),
            _ => None,
        })
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("settings"))
    }

    #[test]
    fn off_without_credentials_and_each_missing_piece_is_named() {
        assert!(matches!(OAuthSettings::from_lookup(|_| None), Ok(None)));
        let only_id = OAuthSettings::from_lookup(|n| (n == CLIENT_ID).then(|| "1.2".into()));
        assert_eq!(only_id.err().map(|e| e.name), Some(CLIENT_SECRET));
        let no_key = OAuthSettings::from_lookup(|n| match n {
            CLIENT_ID | CLIENT_SECRET => Some("x".into()),
            PUBLIC_URL => Some("https://a.example.com".into()),
            _ => None,
        });
        assert_eq!(no_key.err().map(|e| e.name), Some(TOKEN_KEY));
        let bad_key = OAuthSettings::from_lookup(|n| match n {
            CLIENT_ID | CLIENT_SECRET => Some("x".into()),
            PUBLIC_URL => Some("https://a.example.com".into()),
            TOKEN_KEY => Some("not-hex-and-secret".into()),
            _ => None,
        });
        let error = bad_key.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            error.contains(TOKEN_KEY) && !error.contains("not-hex-and-secret"),
            "{error}"
        );
        let s = settings();
        assert_eq!(
            s.redirect_uri(),
            "https://sourcebot.example.com/slack/oauth_redirect"
        );
        assert_eq!(s.database_url, "sqlite://sourcebot.db");
        let shown = format!("{s:?}");
        assert!(!shown.contains("s3cret") && !shown.contains(KEY), "{shown}");
    }

    #[test]
    fn the_authorize_url_carries_what_slack_asks_for() {
        let url = url::Url::parse(&settings().authorize_url("st.at.e")).expect("a URL");
        assert_eq!(url.host_str(), Some("slack.com"));
        assert_eq!(url.path(), "/oauth/v2/authorize");
        let query: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
        assert_eq!(query["client_id"], "1234.5678");
        assert_eq!(query["scope"], BOT_SCOPES.join(","));
        assert_eq!(
            query["redirect_uri"],
            "https://sourcebot.example.com/slack/oauth_redirect"
        );
        assert_eq!(query["state"], "st.at.e");
    }

    #[test]
    fn a_state_is_signed_expires_and_is_bound_to_its_cookie() {
        let s = settings();
        let (state, nonce) = s.new_state(1_000).expect("randomness");
        assert_eq!(
            s.check_state(&state, Some(&nonce), 1_100),
            Ok(nonce.clone())
        );
        assert_eq!(
            s.check_state(&state, Some(&nonce), 1_000 + STATE_TTL.as_secs() + 1),
            Err(StateError::Expired)
        );
        assert_eq!(
            s.check_state(&state, None, 1_100),
            Err(StateError::OtherBrowser)
        );
        assert_eq!(
            s.check_state(&state, Some("other"), 1_100),
            Err(StateError::OtherBrowser)
        );
        // A later expiry, or another nonce, breaks the signature.
        let parts: Vec<&str> = state.split('.').collect();
        let stretched = format!("{}.{}.{}", parts[0], 9_999_999, parts[2]);
        assert_eq!(
            s.check_state(&stretched, Some(&nonce), 1_100),
            Err(StateError::Forged)
        );
        assert_eq!(
            s.check_state("garbage", Some(&nonce), 1_100),
            Err(StateError::Forged)
        );
        let (second, _) = s.new_state(1_000).expect("randomness");
        assert_ne!(second, state, "every state is new");
    }

    #[test]
    fn slacks_documented_access_answer_becomes_an_installation() {
        // https://docs.slack.dev/reference/methods/oauth.v2.access (example response),
        // with token rotation on (expires_in, refresh_token).
        let answer = json!({
            "ok": true,
            "access_token": "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
            "token_type": "bot",
            "scope": "commands,incoming-webhook",
            "bot_user_id": "U0KRQLJ9H",
            "app_id": "A0KRD7HC3",
            "team": {"name": "Slack Softball Team", "id": "T9TK3CUKW"},
            "enterprise": {"name": "slack-sports", "id": "E12345678"},
            "authed_user": {"id": "U1234", "scope": "chat:write", "access_token": "xoxp-1234", "token_type": "user"},
            "expires_in": 43200,
            "refresh_token": "xoxe-1-abc"
        });
        let installation = installation_from_access(&answer, 1_700_000_000).expect("readable");
        assert_eq!(installation.team_id.as_deref(), Some("T9TK3CUKW"));
        assert_eq!(installation.enterprise_id.as_deref(), Some("E12345678"));
        assert!(!installation.is_enterprise_install);
        assert_eq!(installation.bot_user_id, "U0KRQLJ9H");
        assert_eq!(installation.bot_scopes, ["commands", "incoming-webhook"]);
        assert_eq!(installation.bot_token_expires_at, Some(1_700_043_200));
        assert_eq!(
            installation.bot_refresh_token.as_deref(),
            Some("xoxe-1-abc")
        );
        assert_eq!(installation.installer_user_id.as_deref(), Some("U1234"));

        let mut org = answer.clone();
        org["is_enterprise_install"] = json!(true);
        org["team"] = Value::Null;
        let org = installation_from_access(&org, 1).expect("an org-wide install");
        assert_eq!(
            (org.team_id, org.enterprise_id.as_deref()),
            (None, Some("E12345678"))
        );

        let mut user_only = answer;
        user_only["token_type"] = json!("user");
        assert!(installation_from_access(&user_only, 1).is_err());
    }
}

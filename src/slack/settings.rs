//! The bot's settings from the environment: the Slack secrets, where to listen, which
//! API to call, which bots to watch. Each missing or malformed setting is one
//! [`ConfigError`] naming the variable and what it should look like.

use crate::config::{duration, ConfigError};
use std::net::SocketAddr;
use std::time::Duration;

/// `SLACK_BOT_TOKEN`: the bot token (`xoxb-…`). Required.
pub const BOT_TOKEN: &str = "SLACK_BOT_TOKEN";
/// `SLACK_SIGNING_SECRET`: verifies requests in HTTP mode. Required without an app token.
pub const SIGNING_SECRET: &str = "SLACK_SIGNING_SECRET";
/// `SLACK_APP_TOKEN`: an app-level token (`xapp-…`) turns on Socket Mode.
pub const APP_TOKEN: &str = "SLACK_APP_TOKEN";
/// `SOURCEBOT_LISTEN`: the HTTP address (default `0.0.0.0:3000`).
pub const LISTEN: &str = "SOURCEBOT_LISTEN";
/// `SOURCEBOT_SLACK_API_URL`: Slack's Web API (default `https://slack.com/api`).
pub const API_URL: &str = "SOURCEBOT_SLACK_API_URL";
/// `SOURCEBOT_WATCH_BOT_IDS`: bots (`B…`) whose messages get sources on their own.
pub const WATCH_BOT_IDS: &str = "SOURCEBOT_WATCH_BOT_IDS";
/// `SOURCEBOT_SLACK_TIMEOUT`: the longest any Slack call may take (default 10s).
pub const SLACK_TIMEOUT: &str = "SOURCEBOT_SLACK_TIMEOUT";
/// `SOURCEBOT_MAX_BODY_BYTES`: the largest request Slack may send (default 1 MiB).
pub const MAX_BODY_BYTES: &str = "SOURCEBOT_MAX_BODY_BYTES";

/// How requests reach the bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Slack posts to `/slack/events`, `/slack/commands`, `/slack/interactions`; each
    /// request is checked with the signing secret.
    Http {
        /// `SLACK_SIGNING_SECRET`.
        signing_secret: String,
    },
    /// The bot opens a WebSocket to Slack: no public URL needed.
    Socket {
        /// `SLACK_APP_TOKEN`.
        app_token: String,
    },
}

/// Everything `sourcebot serve` needs besides the pipeline's settings.
#[derive(Clone, PartialEq, Eq)]
pub struct SlackSettings {
    /// `SLACK_BOT_TOKEN`.
    pub bot_token: String,
    /// HTTP or Socket Mode.
    pub transport: Transport,
    /// Where the HTTP server listens (`/healthz` in both modes).
    pub listen: SocketAddr,
    /// The Web API's base URL.
    pub api_url: String,
    /// Watched bots' ids.
    pub watch_bot_ids: Vec<String>,
    /// The longest a Slack call may take.
    pub call_timeout: Duration,
    /// The largest request body accepted.
    pub max_body_bytes: usize,
}

impl std::fmt::Debug for SlackSettings {
    /// Secrets are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlackSettings")
            .field("bot_token", &"<redacted>")
            .field(
                "transport",
                &match self.transport {
                    Transport::Http { .. } => "http",
                    Transport::Socket { .. } => "socket",
                },
            )
            .field("listen", &self.listen)
            .field("api_url", &self.api_url)
            .field("watch_bot_ids", &self.watch_bot_ids)
            .field("call_timeout", &self.call_timeout)
            .field("max_body_bytes", &self.max_body_bytes)
            .finish()
    }
}

impl SlackSettings {
    /// Reads the process environment.
    pub fn from_env() -> Result<SlackSettings, ConfigError> {
        SlackSettings::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`; empty values count as unset.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<SlackSettings, ConfigError> {
        let get = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let bot_token = token(BOT_TOKEN, get(BOT_TOKEN), "xoxb-")?;
        let transport = match get(APP_TOKEN) {
            Some(value) => Transport::Socket {
                app_token: token(APP_TOKEN, Some(value), "xapp-")?,
            },
            None => Transport::Http {
                signing_secret: get(SIGNING_SECRET).ok_or_else(|| ConfigError {
                    name: SIGNING_SECRET,
                    value: String::new(),
                    expected: "required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode); find it under Basic Information → App Credentials".into(),
                })?,
            },
        };
        let listen = match get(LISTEN) {
            None => SocketAddr::from(([0, 0, 0, 0], 3000)),
            Some(value) => value.parse().map_err(|_| ConfigError {
                name: LISTEN,
                value: value.clone(),
                expected: "expected an address and port, e.g. 0.0.0.0:3000 or 127.0.0.1:8080"
                    .into(),
            })?,
        };
        let api_url = match get(API_URL) {
            None => super::api::SLACK_API_URL.to_string(),
            Some(value) => api_url(&value)?,
        };
        let watch_bot_ids = match get(WATCH_BOT_IDS) {
            None => Vec::new(),
            Some(value) => bot_ids(&value)?,
        };
        let call_timeout = match get(SLACK_TIMEOUT) {
            None => Duration::from_secs(10),
            Some(value) => duration(
                SLACK_TIMEOUT,
                &value,
                Duration::from_secs(1),
                Duration::from_secs(120),
            )?,
        };
        let max_body_bytes = match get(MAX_BODY_BYTES) {
            None => 1 << 20,
            Some(value) => value
                .parse::<usize>()
                .ok()
                .filter(|n| (1024..=64 << 20).contains(n))
                .ok_or_else(|| ConfigError {
                    name: MAX_BODY_BYTES,
                    value: value.clone(),
                    expected: "expected a whole number of bytes from 1024 to 67108864".into(),
                })?,
        };
        Ok(SlackSettings {
            bot_token,
            transport,
            listen,
            api_url,
            watch_bot_ids,
            call_timeout,
            max_body_bytes,
        })
    }
}

/// A token with its prefix; the error never repeats the value.
fn token(name: &'static str, value: Option<String>, prefix: &str) -> Result<String, ConfigError> {
    match value {
        Some(value) if value.starts_with(prefix) && value.len() > prefix.len() && !value.contains(char::is_whitespace) => Ok(value),
        Some(_) => Err(ConfigError {
            name,
            value: "<redacted>".into(),
            expected: format!("expected a token starting with {prefix}"),
        }),
        None => Err(ConfigError {
            name,
            value: String::new(),
            expected: format!("required: the token starting with {prefix} from the app's settings (OAuth & Permissions for the bot token, Basic Information → App-Level Tokens for the app token)"),
        }),
    }
}

fn api_url(value: &str) -> Result<String, ConfigError> {
    let error = || ConfigError {
        name: API_URL,
        value: value.to_string(),
        expected: "expected an http or https URL, e.g. https://slack.com/api".into(),
    };
    let url = url::Url::parse(value).map_err(|_| error())?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(error());
    }
    Ok(value.trim_end_matches('/').to_string())
}

fn bot_ids(value: &str) -> Result<Vec<String>, ConfigError> {
    let mut ids = Vec::new();
    for id in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if !(id.starts_with('B')
            && id.len() > 1
            && id
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        {
            return Err(ConfigError {
                name: WATCH_BOT_IDS,
                value: value.to_string(),
                expected: format!("{id:?} is not a bot id; expected bot ids such as B012ABCDEF separated by commas"),
            });
        }
        if !ids.iter().any(|known| known == id) {
            ids.push(id.to_string());
        }
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(vars: &[(&str, &str)]) -> Result<SlackSettings, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        SlackSettings::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn http_mode_with_defaults() {
        let settings = read(&[(BOT_TOKEN, "xoxb-1"), (SIGNING_SECRET, "s3cret")]).unwrap();
        assert_eq!(
            settings.transport,
            Transport::Http {
                signing_secret: "s3cret".into()
            }
        );
        assert_eq!(settings.listen, "0.0.0.0:3000".parse().unwrap());
        assert_eq!(settings.api_url, "https://slack.com/api");
        assert!(settings.watch_bot_ids.is_empty());
        assert!(!format!("{settings:?}").contains("xoxb-1"), "token printed");
    }

    #[test]
    fn socket_mode_and_every_setting() {
        let settings = read(&[
            (BOT_TOKEN, "xoxb-1"),
            (APP_TOKEN, "xapp-1"),
            (LISTEN, "127.0.0.1:8080"),
            (API_URL, "http://127.0.0.1:9/api/"),
            (WATCH_BOT_IDS, "B01, B02,B01"),
            (SLACK_TIMEOUT, "5s"),
            (MAX_BODY_BYTES, "2048"),
        ])
        .unwrap();
        assert_eq!(
            settings.transport,
            Transport::Socket {
                app_token: "xapp-1".into()
            }
        );
        assert_eq!(settings.api_url, "http://127.0.0.1:9/api");
        assert_eq!(settings.watch_bot_ids, ["B01", "B02"]);
        assert_eq!(settings.call_timeout, Duration::from_secs(5));
        assert_eq!(settings.max_body_bytes, 2048);
    }

    #[test]
    fn each_bad_setting_is_named() {
        for (vars, name, says) in [
            (vec![], BOT_TOKEN, "required"),
            (
                vec![(BOT_TOKEN, "xoxp-1"), (SIGNING_SECRET, "s")],
                BOT_TOKEN,
                "xoxb-",
            ),
            (
                vec![(BOT_TOKEN, "xoxb-1")],
                SIGNING_SECRET,
                "required in HTTP mode",
            ),
            (
                vec![(BOT_TOKEN, "xoxb-1"), (APP_TOKEN, "xoxb-2")],
                APP_TOKEN,
                "xapp-",
            ),
            (
                vec![
                    (BOT_TOKEN, "xoxb-1"),
                    (SIGNING_SECRET, "s"),
                    (LISTEN, "3000"),
                ],
                LISTEN,
                "address and port",
            ),
            (
                vec![
                    (BOT_TOKEN, "xoxb-1"),
                    (SIGNING_SECRET, "s"),
                    (API_URL, "slack.com"),
                ],
                API_URL,
                "http or https",
            ),
            (
                vec![
                    (BOT_TOKEN, "xoxb-1"),
                    (SIGNING_SECRET, "s"),
                    (WATCH_BOT_IDS, "U123"),
                ],
                WATCH_BOT_IDS,
                "not a bot id",
            ),
            (
                vec![
                    (BOT_TOKEN, "xoxb-1"),
                    (SIGNING_SECRET, "s"),
                    (MAX_BODY_BYTES, "10"),
                ],
                MAX_BODY_BYTES,
                "from 1024",
            ),
        ] {
            let error = read(&vars).unwrap_err();
            assert_eq!(error.name, name);
            assert!(error.to_string().contains(says), "{error}");
        }
        let error = read(&[(BOT_TOKEN, "xoxp-secret-value"), (SIGNING_SECRET, "s")]).unwrap_err();
        assert!(
            !error.to_string().contains("secret-value"),
            "a token was echoed: {error}"
        );
    }
}

//! The bot's settings from the environment: the Slack secrets, where to listen, which
//! API to call, which bots to watch. Each missing or malformed setting is one
//! [`ConfigError`] naming the variable and what it should look like.

use crate::setting::{duration, ConfigError};
use std::net::SocketAddr;
use std::time::Duration;

/// `SLACK_BOT_TOKEN`: the bot token (`xoxb-…`). Required, but when the app is installed
/// by OAuth ([`CLIENT_ID`]).
pub const BOT_TOKEN: &str = "SLACK_BOT_TOKEN";
/// `SLACK_SIGNING_SECRET`: verifies requests in HTTP mode. Required without an app token.
pub const SIGNING_SECRET: &str = "SLACK_SIGNING_SECRET";
/// `SLACK_CLIENT_ID`: the app's client id (Basic Information → App Credentials); set,
/// the app is installed by OAuth ([`crate::install::oauth`]).
pub const CLIENT_ID: &str = "SLACK_CLIENT_ID";
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
/// `SOURCEBOT_SETTLE`: how long a watched answer must go unedited before it is checked
/// (default 1.5 s): streaming assistants edit a placeholder many times a second.
pub const SETTLE: &str = "SOURCEBOT_SETTLE";
/// `SOURCEBOT_SETTLE_MAX`: the longest a watched answer waits for its edits to stop
/// (default 30 s); past it, it is checked as it stands, and again when it settles.
pub const SETTLE_MAX: &str = "SOURCEBOT_SETTLE_MAX";

/// `SOURCEBOT_REDIS_URL`: the Redis that replicas share their state in (`redis://` or
/// `rediss://` for TLS); unset, the state stays in this process.
pub const REDIS_URL: &str = "SOURCEBOT_REDIS_URL";

/// `SOURCEBOT_SLACK_RETRY_FOR`: how long a reply Slack cannot be reached for (a
/// refused connection, HTTP 502, 503 or 504) is tried again, with back-off, before it
/// is logged with its channel and thread and given up (default 60 s; 0 s: never).
pub const SLACK_RETRY_FOR: &str = "SOURCEBOT_SLACK_RETRY_FOR";
/// Default of [`SLACK_RETRY_FOR`].
pub const DEFAULT_SLACK_RETRY_FOR: Duration = Duration::from_secs(60);
/// `SOURCEBOT_WORKSPACE_CACHE_TTL`: how long a workspace's installation, once read, is
/// used before it is read again (default 60 s). While the database is down, workspaces
/// read within the last hour go on being served from the cache.
pub const WORKSPACE_CACHE_TTL: &str = "SOURCEBOT_WORKSPACE_CACHE_TTL";

/// Default of [`SETTLE`].
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(1500);
/// `SOURCEBOT_HISTORY_DAYS`: how many days each workspace's report history and the
/// feedback on it are kept (default 30; 1 to 3650).
pub const HISTORY_DAYS: &str = "SOURCEBOT_HISTORY_DAYS";

/// Default of [`HISTORY_DAYS`].
pub const DEFAULT_HISTORY_DAYS: u32 = 30;

/// Default of [`SETTLE_MAX`].
pub const DEFAULT_SETTLE_MAX: Duration = Duration::from_secs(30);

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
    /// `SLACK_BOT_TOKEN`: the one workspace served without OAuth. Optional when the app
    /// is installed by OAuth (`SLACK_CLIENT_ID` set): each workspace's token comes from
    /// the installation store.
    pub bot_token: Option<String>,
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
    /// How long a watched answer must go unedited before it is checked.
    pub settle: Duration,
    /// The longest a watched answer waits for its edits to stop.
    pub settle_max: Duration,
    /// The Redis replicas share their state in; `None`: in this process.
    pub redis_url: Option<String>,
    /// Days the report history and feedback are kept.
    pub history_days: u32,
    /// How long a reply Slack cannot be reached for is tried again.
    pub retry_for: Duration,
    /// How long a workspace's installation, once read, is used before it is read again.
    pub workspace_cache_ttl: Duration,
}

impl std::fmt::Debug for SlackSettings {
    /// Secrets are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlackSettings")
            .field("bot_token", &self.bot_token.as_ref().map(|_| "<redacted>"))
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
            .field("settle", &self.settle)
            .field("settle_max", &self.settle_max)
            .field("history_days", &self.history_days)
            .field("retry_for", &self.retry_for)
            .field("workspace_cache_ttl", &self.workspace_cache_ttl)
            .field(
                "redis_url",
                &self
                    .redis_url
                    .as_deref()
                    .map(crate::state::redis::without_secrets),
            )
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
        let bot_token = match get(BOT_TOKEN) {
            None if get(CLIENT_ID).is_some() => None,
            value => Some(token(BOT_TOKEN, value, "xoxb-")?),
        };
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
        let settle = match get(SETTLE) {
            None => DEFAULT_SETTLE,
            Some(value) => duration(SETTLE, &value, Duration::ZERO, Duration::from_secs(60))?,
        };
        let settle_max = match get(SETTLE_MAX) {
            None => DEFAULT_SETTLE_MAX.max(settle),
            Some(value) => duration(
                SETTLE_MAX,
                &value,
                Duration::from_millis(100),
                Duration::from_secs(600),
            )?,
        };
        if settle_max < settle {
            return Err(ConfigError {
                name: SETTLE_MAX,
                value: humantime::format_duration(settle_max).to_string(),
                expected: format!(
                    "must be at least {SETTLE} ({})",
                    humantime::format_duration(settle)
                ),
            });
        }
        let redis_url = get(REDIS_URL).map(|value| redis_url(&value)).transpose()?;
        let history_days = match get(HISTORY_DAYS) {
            None => DEFAULT_HISTORY_DAYS,
            Some(value) => value
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|days| (1..=3650).contains(days))
                .ok_or_else(|| ConfigError {
                    name: HISTORY_DAYS,
                    value: value.clone(),
                    expected: "expected a whole number of days from 1 to 3650".into(),
                })?,
        };
        let retry_for = match get(SLACK_RETRY_FOR) {
            None => DEFAULT_SLACK_RETRY_FOR,
            Some(value) => duration(
                SLACK_RETRY_FOR,
                &value,
                Duration::ZERO,
                Duration::from_secs(600),
            )?,
        };
        let workspace_cache_ttl = match get(WORKSPACE_CACHE_TTL) {
            None => crate::slack::workspace::WORKSPACE_CACHE_TTL,
            Some(value) => duration(
                WORKSPACE_CACHE_TTL,
                &value,
                Duration::from_secs(1),
                Duration::from_secs(3600),
            )?,
        };
        Ok(SlackSettings {
            retry_for,
            workspace_cache_ttl,
            bot_token,
            transport,
            listen,
            api_url,
            watch_bot_ids,
            call_timeout,
            max_body_bytes,
            settle,
            settle_max,
            redis_url,
            history_days,
        })
    }
}

/// A `redis://` or `rediss://` URL; the error shows it without its password.
fn redis_url(value: &str) -> Result<String, ConfigError> {
    let scheme_ok = ["redis://", "rediss://"].iter().any(|scheme| {
        value.len() > scheme.len() && value[..scheme.len()].eq_ignore_ascii_case(scheme)
    });
    if scheme_ok && !value.contains(char::is_whitespace) {
        return Ok(value.to_string());
    }
    Err(ConfigError {
        name: REDIS_URL,
        value: crate::state::redis::without_secrets(value),
        expected: "expected redis://[user:password@]host[:port][/db], or rediss://… for TLS".into(),
    })
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
    fn redis_url_is_read_and_its_password_never_shown() {
        let base = [(BOT_TOKEN, "xoxb-1"), (SIGNING_SECRET, "s")];
        assert_eq!(read(&base).unwrap().redis_url, None);
        let with = |url: &'static str| {
            let mut pairs = base.to_vec();
            pairs.push((REDIS_URL, url));
            read(&pairs)
        };
        let settings = with("rediss://default:hunter2@cache.internal:6380/0").unwrap();
        assert_eq!(
            settings.redis_url.as_deref(),
            Some("rediss://default:hunter2@cache.internal:6380/0")
        );
        let shown = format!("{settings:?}");
        assert!(
            !shown.contains("hunter2") && shown.contains("cache.internal"),
            "{shown}"
        );
        let error = with("http://user:hunter2@cache:6379")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(REDIS_URL) && error.contains("redis://"),
            "{error}"
        );
        assert!(!error.contains("hunter2"), "{error}");
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
        assert_eq!(settings.settle, DEFAULT_SETTLE);
        assert_eq!(settings.settle_max, DEFAULT_SETTLE_MAX);
        let settings = read(&[
            (BOT_TOKEN, "xoxb-1"),
            (SIGNING_SECRET, "s"),
            (SETTLE, "250ms"),
            (SETTLE_MAX, "5s"),
        ])
        .unwrap();
        assert_eq!(settings.settle, Duration::from_millis(250));
        assert_eq!(settings.settle_max, Duration::from_secs(5));
        assert_eq!(settings.history_days, DEFAULT_HISTORY_DAYS);
    }

    #[test]
    fn the_retry_window_and_the_workspace_cache_are_read_and_bounded() {
        let base = [(BOT_TOKEN, "xoxb-1"), (SIGNING_SECRET, "s")];
        let defaults = read(&base).unwrap();
        assert_eq!(defaults.retry_for, DEFAULT_SLACK_RETRY_FOR);
        assert_eq!(
            defaults.workspace_cache_ttl,
            crate::slack::workspace::WORKSPACE_CACHE_TTL
        );
        let set = read(&[
            base[0],
            base[1],
            (SLACK_RETRY_FOR, "0s"),
            (WORKSPACE_CACHE_TTL, "5m"),
        ])
        .unwrap();
        assert_eq!(set.retry_for, Duration::ZERO, "0s turns retries off");
        assert_eq!(set.workspace_cache_ttl, Duration::from_secs(300));
        for (name, value) in [
            (SLACK_RETRY_FOR, "forever"),
            (SLACK_RETRY_FOR, "1h"),
            (WORKSPACE_CACHE_TTL, "0s"),
            (WORKSPACE_CACHE_TTL, "2h"),
        ] {
            let error = read(&[base[0], base[1], (name, value)]).expect_err(value);
            assert_eq!(error.name, name, "{error}");
        }
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
            (
                vec![
                    (BOT_TOKEN, "xoxb-1"),
                    (SIGNING_SECRET, "s"),
                    (HISTORY_DAYS, "0"),
                ],
                HISTORY_DAYS,
                "from 1 to 3650",
            ),
            (
                vec![
                    (BOT_TOKEN, "xoxb-1"),
                    (SIGNING_SECRET, "s"),
                    (SETTLE, "soon"),
                ],
                SETTLE,
                "",
            ),
            (
                vec![
                    (BOT_TOKEN, "xoxb-1"),
                    (SIGNING_SECRET, "s"),
                    (SETTLE, "10s"),
                    (SETTLE_MAX, "2s"),
                ],
                SETTLE_MAX,
                "at least SOURCEBOT_SETTLE",
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

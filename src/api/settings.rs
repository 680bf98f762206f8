//! The answer API's settings (`SOURCEBOT_API_*`): tokens, limits, the rate per token.

use super::*;

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

/// `SOURCEBOT_MCP_ALLOWED_ORIGINS`: browser origins that may call `/mcp`, separated
/// by commas (`https://app.example.com`, `http://localhost:*`); none by default, so a
/// request that carries any `Origin` is refused (403) and agents, which send none, pass.
pub const MCP_ALLOWED_ORIGINS: &str = "SOURCEBOT_MCP_ALLOWED_ORIGINS";

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
    /// Browser origins allowed to call `/mcp`.
    pub mcp_allowed_origins: Vec<String>,
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
            mcp_allowed_origins: Vec::new(),
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
        if let Some((name, value)) = get(MCP_ALLOWED_ORIGINS) {
            settings.mcp_allowed_origins = origins(name, &value)?;
        }
        Ok(settings)
    }

    /// Whether the `/v1` routes are on.
    pub fn enabled(&self) -> bool {
        !self.tokens.is_empty()
    }
}

pub(super) fn tokens(name: &'static str, value: &str) -> Result<Vec<String>, ConfigError> {
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

/// Origins separated by commas, each `http://` or `https://` a host (and a port, or
/// `:*`), or `null`.
pub(super) fn origins(name: &'static str, value: &str) -> Result<Vec<String>, ConfigError> {
    let mut origins = Vec::new();
    for origin in value.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        let host = origin
            .strip_prefix("https://")
            .or_else(|| origin.strip_prefix("http://"));
        let well_formed = origin == "null"
            || host.is_some_and(|h| {
                !h.is_empty() && !h.contains('/') && !h.chars().any(char::is_whitespace)
            });
        if !well_formed {
            return Err(ConfigError {
                name,
                value: value.to_string(),
                expected: format!(
                    "{origin:?} is not an origin: expected a scheme and host, e.g.                      https://app.example.com or http://localhost:*, separated by commas"
                ),
            });
        }
        origins.push(origin.to_string());
    }
    Ok(origins)
}

/// `120/min`, `5/s`, `1000/h` → (requests, period).
pub(super) fn rate(name: &'static str, value: &str) -> Result<(u32, Duration), ConfigError> {
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

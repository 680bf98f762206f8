//! An optional language model behind an OpenAI-compatible chat-completions endpoint
//! (OpenAI, Azure OpenAI, vLLM, Ollama, LiteLLM…), asked for JSON that matches a schema
//! (structured output). The claim-support judge uses it ([`crate::support::judge`]);
//! anything else that wants a model's judgement goes through the same [`LlmClient`].
//!
//! It is off unless `SOURCEBOT_LLM_URL` and `SOURCEBOT_LLM_MODEL` are set. Every call has
//! a timeout; replies are validated by the caller and only valid ones are cached (in
//! this process, and in shared state for the other replicas); a 429 holds every call
//! back for its `Retry-After`, across replicas. Callers fall back to their built-in
//! rules on any [`LlmError`]. The API key goes in the `Authorization` header and is
//! never printed or logged. The endpoint is the operator's, not an answer's, so it is
//! not behind the verifier's guard: a model on `localhost` is fine.

pub mod classifier;
mod client;

pub use client::{Answered, CallBudget, JsonRequest, LlmClient, Usage};

use crate::setting::{duration, positive, ConfigError};
use std::time::Duration;
use url::Url;

/// `SOURCEBOT_LLM_URL`: the endpoint's base URL (`https://api.openai.com/v1`), or its
/// full chat-completions URL.
pub const LLM_URL: &str = "SOURCEBOT_LLM_URL";
/// `SOURCEBOT_LLM_MODEL`: the model to ask (`gpt-4o-mini`).
pub const LLM_MODEL: &str = "SOURCEBOT_LLM_MODEL";
/// `SOURCEBOT_LLM_API_KEY`: sent as `Authorization: Bearer …` (optional: local servers
/// often need none).
pub const LLM_API_KEY: &str = "SOURCEBOT_LLM_API_KEY";
/// `SOURCEBOT_LLM_TIMEOUT`: the longest one call may take (`6s`).
pub const LLM_TIMEOUT: &str = "SOURCEBOT_LLM_TIMEOUT";
/// `SOURCEBOT_LLM_CALLS_PER_ANSWER`: calls made at most while checking one answer.
pub const LLM_CALLS_PER_ANSWER: &str = "SOURCEBOT_LLM_CALLS_PER_ANSWER";
/// `SOURCEBOT_LLM_CACHE_TTL`: how long a valid reply is reused for the same question.
pub const LLM_CACHE_TTL: &str = "SOURCEBOT_LLM_CACHE_TTL";
/// `SOURCEBOT_LLM_DAILY_TOKENS`: tokens (request and reply, as the endpoint reports
/// them) all replicas may spend in one UTC day; past it the built-in rules take over
/// until the next day. Unset: no daily limit.
pub const LLM_DAILY_TOKENS: &str = "SOURCEBOT_LLM_DAILY_TOKENS";

/// How to reach the model.
#[derive(Clone, PartialEq, Eq)]
pub struct LlmSettings {
    /// The chat-completions URL requests are posted to.
    pub endpoint: Url,
    /// The model named in each request.
    pub model: String,
    /// The bearer token, if the endpoint wants one.
    pub api_key: Option<String>,
    /// The longest one call may take.
    pub timeout: Duration,
    /// Calls made at most while checking one answer.
    pub calls_per_answer: usize,
    /// How long a valid reply is reused for the same question.
    pub cache_ttl: Duration,
    /// Tokens all replicas may spend in one UTC day; `None`: no limit.
    pub daily_tokens: Option<u64>,
}

/// Secrets are never printed.
impl std::fmt::Debug for LlmSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmSettings")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("calls_per_answer", &self.calls_per_answer)
            .field("cache_ttl", &self.cache_ttl)
            .field("daily_tokens", &self.daily_tokens)
            .finish()
    }
}

/// The default timeout of one call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(6);
/// The default number of calls per answer.
pub const DEFAULT_CALLS_PER_ANSWER: usize = 8;
/// The default time a reply is reused.
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(24 * 3600);

impl LlmSettings {
    /// Settings for `model` at `endpoint` (a base URL or the chat-completions URL), with
    /// the defaults for the rest.
    pub fn new(endpoint: &str, model: &str) -> Result<LlmSettings, ConfigError> {
        Ok(LlmSettings {
            endpoint: endpoint_url(LLM_URL, endpoint)?,
            model: model.trim().to_string(),
            api_key: None,
            timeout: DEFAULT_TIMEOUT,
            calls_per_answer: DEFAULT_CALLS_PER_ANSWER,
            cache_ttl: DEFAULT_CACHE_TTL,
            daily_tokens: None,
        })
    }

    /// Reads the `SOURCEBOT_LLM_*` settings through `get` (a variable's non-empty value).
    /// `None` when no endpoint is set; an error when one is set without a model, or a
    /// value is malformed.
    pub fn from_lookup(
        get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    ) -> Result<Option<LlmSettings>, ConfigError> {
        let Some((name, url)) = get(LLM_URL) else {
            return Ok(None);
        };
        let Some((_, model)) = get(LLM_MODEL) else {
            return Err(ConfigError {
                name: LLM_MODEL,
                value: String::new(),
                expected: format!(
                    "the model to ask (e.g. gpt-4o-mini) is needed when {name} is set"
                ),
            });
        };
        let mut settings = LlmSettings {
            endpoint: endpoint_url(name, &url)?,
            ..LlmSettings::new("http://127.0.0.1/", &model)?
        };
        settings.api_key = get(LLM_API_KEY).map(|(_, key)| key.trim().to_string());
        if let Some((name, value)) = get(LLM_TIMEOUT) {
            settings.timeout = duration(
                name,
                &value,
                Duration::from_millis(100),
                Duration::from_secs(120),
            )?;
        }
        if let Some((name, value)) = get(LLM_CALLS_PER_ANSWER) {
            settings.calls_per_answer = positive(name, &value, 1_000)?;
        }
        if let Some((name, value)) = get(LLM_DAILY_TOKENS) {
            settings.daily_tokens = Some(positive(name, &value, 1_000_000_000_000)? as u64);
        }
        if let Some((name, value)) = get(LLM_CACHE_TTL) {
            settings.cache_ttl = duration(
                name,
                &value,
                Duration::ZERO,
                Duration::from_secs(30 * 24 * 3600),
            )?;
        }
        Ok(Some(settings))
    }
}

/// The chat-completions URL for `value`: an http(s) URL, `/chat/completions` appended
/// unless it is there. Plain http only to a loopback host, so a key never crosses a
/// network in clear.
fn endpoint_url(name: &'static str, value: &str) -> Result<Url, ConfigError> {
    let failed = |expected: &str| ConfigError {
        name,
        value: value.to_string(),
        expected: expected.to_string(),
    };
    let mut url = Url::parse(value.trim())
        .map_err(|_| failed("expected an http(s) URL, e.g. https://api.openai.com/v1"))?;
    let loopback = match url.host() {
        Some(url::Host::Domain(host)) => host.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(failed(
                "expected https (plain http only to localhost or a loopback address)",
            ))
        }
        _ => {
            return Err(failed(
                "expected an http(s) URL, e.g. https://api.openai.com/v1",
            ))
        }
    }
    if url.host().is_none() || !url.username().is_empty() || url.password().is_some() {
        return Err(failed(
            "expected a URL with a host and no user name or password in it",
        ));
    }
    if !url
        .path()
        .trim_end_matches('/')
        .ends_with("/chat/completions")
    {
        let path = format!("{}/chat/completions", url.path().trim_end_matches('/'));
        url.set_path(&path);
    }
    Ok(url)
}

/// Why the model gave no usable answer. Every one sends the caller to its fallback.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// The endpoint asked to wait (a 429 here or on another replica), for this long yet.
    #[error("the model's endpoint asked to wait {} s", .0.as_secs())]
    HeldBack(Duration),
    /// The caller's budget of calls is spent.
    #[error("the budget of model calls for this answer is spent")]
    OverBudget,
    /// Today's token budget (`SOURCEBOT_LLM_DAILY_TOKENS`) is spent, until midnight UTC.
    #[error("the day's budget of {0} model tokens is spent")]
    OverDailyBudget(u64),
    /// No reply within the timeout (or the caller's deadline).
    #[error("the model did not answer within {} ms", .0.as_millis())]
    Timeout(Duration),
    /// HTTP 429.
    #[error("the model's endpoint is rate-limiting (429)")]
    RateLimited,
    /// Any other HTTP error status, with the endpoint's message when it gave one.
    #[error("the model's endpoint answered HTTP {status}: {message}")]
    Status {
        /// The status code.
        status: u16,
        /// The `error.message` of the body, cut short, or the status's reason.
        message: String,
    },
    /// The request did not get through (connection refused, TLS…).
    #[error("cannot reach the model's endpoint: {0}")]
    Transport(String),
    /// The model declined (`message.refusal`).
    #[error("the model declined: {0}")]
    Refused(String),
    /// The reply was not a chat completion holding the JSON asked for.
    #[error("the model's reply is not what was asked for: {0}")]
    Malformed(String),
}

impl LlmError {
    /// A short fixed label for metrics.
    pub fn label(&self) -> &'static str {
        match self {
            LlmError::HeldBack(_) => "held_back",
            LlmError::OverBudget => "over_budget",
            LlmError::OverDailyBudget(_) => "over_daily_budget",
            LlmError::Timeout(_) => "timeout",
            LlmError::RateLimited => "rate_limited",
            LlmError::Status { .. } => "http_error",
            LlmError::Transport(_) => "transport",
            LlmError::Refused(_) => "refused",
            LlmError::Malformed(_) => "malformed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(vars: &[(&'static str, &str)]) -> Result<Option<LlmSettings>, ConfigError> {
        let map: HashMap<&str, String> = vars.iter().map(|(k, v)| (*k, v.to_string())).collect();
        LlmSettings::from_lookup(&|name: &'static str| map.get(name).map(|v| (name, v.clone())))
    }

    #[test]
    fn off_without_a_url_and_an_error_without_a_model() {
        assert_eq!(read(&[]).unwrap(), None);
        let error = read(&[(LLM_URL, "https://api.openai.com/v1")]).unwrap_err();
        assert_eq!(error.name, LLM_MODEL);
    }

    #[test]
    fn base_urls_get_the_chat_completions_path() {
        let settings = read(&[
            (LLM_URL, "https://api.openai.com/v1/"),
            (LLM_MODEL, "gpt-4o-mini"),
            (LLM_API_KEY, "sk-secret"),
            (LLM_TIMEOUT, "3s"),
            (LLM_CALLS_PER_ANSWER, "4"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(
            settings.endpoint.as_str(),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(settings.timeout, Duration::from_secs(3));
        assert_eq!(settings.calls_per_answer, 4);
        let full = LlmSettings::new("http://127.0.0.1:8000/v1/chat/completions", "m").unwrap();
        assert_eq!(
            full.endpoint.as_str(),
            "http://127.0.0.1:8000/v1/chat/completions"
        );
        assert!(!format!("{settings:?}").contains("sk-secret"));
    }

    #[test]
    fn plain_http_only_to_loopback() {
        assert!(LlmSettings::new("http://localhost:11434/v1", "llama3").is_ok());
        assert!(LlmSettings::new("http://[::1]:8000/v1", "m").is_ok());
        let error = LlmSettings::new("http://llm.internal/v1", "m").unwrap_err();
        assert!(error.expected.contains("https"), "{error}");
        assert!(LlmSettings::new("ftp://host/v1", "m").is_err());
        assert!(LlmSettings::new("https://user:pw@host/v1", "m").is_err());
        assert!(read(&[
            (LLM_URL, "https://x/v1"),
            (LLM_MODEL, "m"),
            (LLM_TIMEOUT, "forever")
        ])
        .is_err());
    }
}

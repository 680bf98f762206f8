//! The HTTP side of [`LlmClient`]: one `POST {endpoint}` per question with the model,
//! a system and a user message, `temperature: 0` and `response_format: json_schema`
//! (strict); the reply's `choices[0].message.content` parsed as JSON and handed to the
//! caller's validator. Valid replies are cached by a digest of the question; a 429
//! holds further calls back (in shared state, so every replica waits); token usage,
//! latency and outcomes go to the metrics.

use super::{LlmError, LlmSettings};
use crate::health::Part;
use crate::metrics::Metrics;
use crate::reply::{innermost, read_capped, retry_after, service_client, BodyError};
use crate::state::memory::TtlMap;
use crate::state::{BotState, MemoryState};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The back-off family under which a 429 from the model is kept in shared state.
const HOLD_BACK_KEY: &str = "llm.chat.completions";
/// The wait after a 429 that gave no `Retry-After`.
const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(20);
/// The longest wait a `Retry-After` is believed for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(600);
/// The largest reply body read.
const MAX_REPLY_BYTES: usize = 1 << 20;
/// Replies kept in this process at most.
const CACHE_MAX_ENTRIES: usize = 10_000;
/// The largest reply kept in the cache.
const CACHE_MAX_REPLY_BYTES: usize = 16 << 10;

/// Today's date in UTC, `YYYY-MM-DD`: the day a token budget counts.
fn today() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    now.get(..10).unwrap_or("1970-01-01").to_string()
}

/// One question for the model.
#[derive(Debug, Clone)]
pub struct JsonRequest<'a> {
    /// What the call is for, as a metric label (`support`, `classify`).
    pub purpose: &'static str,
    /// The system message: the task and the rules.
    pub system: &'a str,
    /// The user message: the material to judge.
    pub user: String,
    /// The schema's name (`[a-zA-Z0-9_-]`, up to 64 characters).
    pub schema_name: &'static str,
    /// The JSON schema the reply must match.
    pub schema: &'a Value,
    /// The most tokens the reply may take.
    pub max_tokens: u32,
}

/// Tokens a call used, as the endpoint reported them (`usage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens of the request.
    pub prompt_tokens: u64,
    /// Tokens of the reply.
    pub completion_tokens: u64,
}

/// A validated answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answered<T> {
    /// What the validator made of the reply.
    pub value: T,
    /// Tokens used (zero when the answer came from the cache).
    pub usage: Usage,
    /// Whether the answer came from the cache.
    pub cached: bool,
}

/// Calls left while checking one answer: every call that goes to the network takes
/// one; cached answers take none.
#[derive(Debug)]
pub struct CallBudget {
    left: AtomicUsize,
}

impl CallBudget {
    /// A budget of `calls`.
    pub fn new(calls: usize) -> CallBudget {
        CallBudget {
            left: AtomicUsize::new(calls),
        }
    }

    /// Takes one call; false when none is left.
    fn take(&self) -> bool {
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }

    /// Calls left.
    pub fn left(&self) -> usize {
        self.left.load(Ordering::Relaxed)
    }
}

/// A client of one OpenAI-compatible chat-completions endpoint.
pub struct LlmClient {
    http: reqwest::Client,
    settings: LlmSettings,
    state: Arc<dyn BotState>,
    metrics: Option<Arc<Metrics>>,
    cache: TtlMap<String, Arc<str>>,
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl LlmClient {
    /// A client for `settings`, keeping its back-off in `state` (shared state for
    /// several replicas; `None` for this process only) and counting into `metrics`.
    pub fn new(
        settings: LlmSettings,
        state: Option<Arc<dyn BotState>>,
        metrics: Option<Arc<Metrics>>,
    ) -> Result<LlmClient, LlmError> {
        let http = service_client()
            .map_err(|e| LlmError::Transport(format!("cannot set up the HTTP client: {e}")))?;
        Ok(LlmClient {
            http,
            cache: TtlMap::new(settings.cache_ttl, CACHE_MAX_ENTRIES),
            settings,
            state: state.unwrap_or_else(|| Arc::new(MemoryState::new())),
            metrics,
        })
    }

    /// The settings.
    pub fn settings(&self) -> &LlmSettings {
        &self.settings
    }

    /// A fresh budget of calls for one answer.
    pub fn budget(&self) -> CallBudget {
        CallBudget::new(self.settings.calls_per_answer)
    }

    /// Asks `request`, ending by the timeout or `deadline`, whichever is first, and
    /// validates the reply's JSON with `validate`. A cached valid reply to the same
    /// question is used first; a network call takes one from `budget`.
    pub async fn ask<T>(
        &self,
        request: &JsonRequest<'_>,
        budget: &CallBudget,
        deadline: Instant,
        validate: impl Fn(&Value) -> Result<T, String>,
    ) -> Result<Answered<T>, LlmError> {
        let key = self.cache_key(request);
        if let Some(value) = self.cached(&key).await.and_then(|v| validate(&v).ok()) {
            self.count_call(request.purpose, "cached", None);
            return Ok(Answered {
                value,
                usage: Usage::default(),
                cached: true,
            });
        }
        let waiting = self.state.held_back(HOLD_BACK_KEY).await;
        if !waiting.is_zero() {
            return Err(self.failed(request.purpose, LlmError::HeldBack(waiting), None));
        }
        let day = today();
        if let Some(limit) = self.settings.daily_tokens {
            if self.state.model_tokens(&day).await >= limit {
                return Err(self.failed(request.purpose, LlmError::OverDailyBudget(limit), None));
            }
        }
        if !budget.take() {
            return Err(self.failed(request.purpose, LlmError::OverBudget, None));
        }
        let started = Instant::now();
        let limit = self
            .settings
            .timeout
            .min(deadline.saturating_duration_since(started));
        let outcome = match tokio::time::timeout(limit, self.call(request)).await {
            Ok(result) => result,
            Err(_) => Err(LlmError::Timeout(limit)),
        };
        let seconds = Some(started.elapsed().as_secs_f64());
        let (content, usage) = match outcome {
            Ok(reply) => reply,
            Err(error) => return Err(self.failed(request.purpose, error, seconds)),
        };
        self.count_tokens(request.purpose, usage);
        self.state
            .add_model_tokens(
                &day,
                usage.prompt_tokens.saturating_add(usage.completion_tokens),
            )
            .await;
        let parsed = serde_json::from_str::<Value>(strip_fence(&content))
            .map_err(|e| LlmError::Malformed(format!("the content is not JSON: {e}")))
            .and_then(|value| {
                validate(&value)
                    .map(|valid| (value, valid))
                    .map_err(LlmError::Malformed)
            });
        match parsed {
            Ok((value, valid)) => {
                self.count_call(request.purpose, "ok", seconds);
                if let Some(metrics) = &self.metrics {
                    metrics.health().ok(Part::Model);
                }
                self.remember(&key, &value).await;
                Ok(Answered {
                    value: valid,
                    usage,
                    cached: false,
                })
            }
            Err(error) => Err(self.failed(request.purpose, error, seconds)),
        }
    }

    /// One POST, its status and body read into the reply's content and usage.
    async fn call(&self, request: &JsonRequest<'_>) -> Result<(String, Usage), LlmError> {
        let body = json!({
            "model": self.settings.model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
            "temperature": 0,
            "max_tokens": request.max_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": request.schema_name,
                    "strict": true,
                    "schema": request.schema,
                },
            },
        });
        let body = serde_json::to_vec(&body)
            .map_err(|e| LlmError::Malformed(format!("cannot encode the request: {e}")))?;
        let mut post = self
            .http
            .post(self.settings.endpoint.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(key) = &self.settings.api_key {
            let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {key}"))
                .map_err(|_| {
                    LlmError::Transport("SOURCEBOT_LLM_API_KEY cannot be sent in a header".into())
                })?;
            value.set_sensitive(true);
            post = post.header(reqwest::header::AUTHORIZATION, value);
        }
        let mut response = post
            .send()
            .await
            .map_err(|e| LlmError::Transport(innermost(&e)))?;
        let status = response.status();
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            let wait = retry_after(response.headers()).unwrap_or(DEFAULT_RETRY_AFTER);
            self.state
                .hold_back(HOLD_BACK_KEY, wait.min(MAX_RETRY_AFTER))
                .await;
            return Err(LlmError::RateLimited);
        }
        let body =
            read_capped(&mut response, MAX_REPLY_BYTES)
                .await
                .map_err(|error| match error {
                    BodyError::Transport(cause) => LlmError::Transport(cause),
                    BodyError::TooLarge(max) => {
                        LlmError::Malformed(format!("the reply is larger than {max} bytes"))
                    }
                })?;
        if !status.is_success() {
            return Err(LlmError::Status {
                status: status.as_u16(),
                message: error_message(&body)
                    .unwrap_or_else(|| status.canonical_reason().unwrap_or("").to_string()),
            });
        }
        completion(&body)
    }

    async fn cached(&self, key: &str) -> Option<Value> {
        if self.settings.cache_ttl.is_zero() {
            return None;
        }
        let text = match self.cache.get(&key.to_string()) {
            Some(text) => text,
            None => {
                let shared: Arc<str> = self.state.shared_model_reply(key).await?.into();
                self.cache.insert(key.to_string(), shared.clone());
                shared
            }
        };
        serde_json::from_str(&text).ok()
    }

    async fn remember(&self, key: &str, value: &Value) {
        if self.settings.cache_ttl.is_zero() {
            return;
        }
        let Ok(text) = serde_json::to_string(value) else {
            return;
        };
        if text.len() > CACHE_MAX_REPLY_BYTES {
            return;
        }
        self.state
            .share_model_reply(key, &text, self.settings.cache_ttl)
            .await;
        self.cache.insert(key.to_string(), text.into());
    }

    /// A digest of everything that shapes the reply.
    fn cache_key(&self, request: &JsonRequest<'_>) -> String {
        let mut hash = Sha256::new();
        for part in [
            self.settings.endpoint.as_str(),
            &self.settings.model,
            request.schema_name,
            &request.schema.to_string(),
            request.system,
            &request.user,
        ] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
        hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn failed(&self, purpose: &'static str, error: LlmError, seconds: Option<f64>) -> LlmError {
        tracing::info!(purpose, %error, "the model gave no usable answer; the built-in rules take over");
        self.count_call(purpose, error.label(), seconds);
        if let Some(metrics) = &self.metrics {
            // Only a failure to reach the endpoint (or a 5xx) says it is down.
            let down = match &error {
                LlmError::Timeout(_) | LlmError::Transport(_) => true,
                LlmError::Status { status, .. } => *status >= 500,
                _ => false,
            };
            if down {
                metrics.health().failed(Part::Model, &error.to_string());
            } else if seconds.is_some() {
                metrics.health().ok(Part::Model);
            }
        }
        error
    }

    fn count_call(&self, purpose: &'static str, outcome: &'static str, seconds: Option<f64>) {
        if let Some(metrics) = &self.metrics {
            metrics.llm_call(purpose, outcome, seconds);
        }
    }

    fn count_tokens(&self, purpose: &'static str, usage: Usage) {
        if let Some(metrics) = &self.metrics {
            metrics.llm_tokens(purpose, usage.prompt_tokens, usage.completion_tokens);
        }
    }
}

/// The content and usage of a chat completion's first choice.
fn completion(body: &[u8]) -> Result<(String, Usage), LlmError> {
    let reply: Value = serde_json::from_slice(body)
        .map_err(|e| LlmError::Malformed(format!("the body is not JSON: {e}")))?;
    let choice = reply
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| LlmError::Malformed("no `choices[0]`".into()))?;
    let message = choice
        .get("message")
        .ok_or_else(|| LlmError::Malformed("no `choices[0].message`".into()))?;
    if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
        return Err(LlmError::Refused(cut(refusal, 200)));
    }
    if choice.get("finish_reason").and_then(Value::as_str) == Some("length") {
        return Err(LlmError::Malformed(
            "the reply was cut short (finish_reason: length)".into(),
        ));
    }
    let content = message
        .get("content")
        .and_then(Value::as_str)
        .ok_or_else(|| LlmError::Malformed("no text in `choices[0].message.content`".into()))?;
    let tokens = |name: &str| {
        reply
            .get("usage")
            .and_then(|u| u.get(name))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Ok((
        content.to_string(),
        Usage {
            prompt_tokens: tokens("prompt_tokens"),
            completion_tokens: tokens("completion_tokens"),
        },
    ))
}

/// The `error.message` of an OpenAI-style error body, cut short.
fn error_message(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let message = value
        .get("error")
        .and_then(|e| e.get("message").or(Some(e)))
        .and_then(Value::as_str)?;
    Some(cut(message, 200))
}

/// JSON content, without one surrounding Markdown code fence (some servers add one in
/// JSON mode).
fn strip_fence(content: &str) -> &str {
    let trimmed = content.trim();
    let Some(inner) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let inner = inner.strip_prefix("json").unwrap_or(inner);
    inner.strip_suffix("```").unwrap_or(inner).trim()
}

fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_chat_completion() {
        // The shape of OpenAI's documented chat-completion object.
        let body = br#"{
          "id": "chatcmpl-123", "object": "chat.completion", "created": 1677652288,
          "model": "gpt-4o-mini",
          "choices": [{"index": 0, "message": {"role": "assistant",
             "content": "{\"verdict\":\"supported\"}", "refusal": null},
             "logprobs": null, "finish_reason": "stop"}],
          "usage": {"prompt_tokens": 9, "completion_tokens": 12, "total_tokens": 21}
        }"#;
        let (content, usage) = completion(body).unwrap();
        assert_eq!(content, "{\"verdict\":\"supported\"}");
        assert_eq!(usage.prompt_tokens, 9);
        assert_eq!(usage.completion_tokens, 12);
    }

    #[test]
    fn refusals_truncations_and_odd_bodies_are_errors() {
        let refused = br#"{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}"#;
        assert!(matches!(completion(refused), Err(LlmError::Refused(_))));
        let cut_short =
            br#"{"choices":[{"message":{"content":"{\"verd"},"finish_reason":"length"}]}"#;
        assert!(matches!(completion(cut_short), Err(LlmError::Malformed(_))));
        assert!(matches!(completion(b"[]"), Err(LlmError::Malformed(_))));
        assert!(matches!(completion(b"<html>"), Err(LlmError::Malformed(_))));
    }

    #[test]
    fn error_bodies_and_fences() {
        let body = br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(
            error_message(body).as_deref(),
            Some("Incorrect API key provided")
        );
        assert_eq!(strip_fence("```json\n{\"a\":1}\n```"), "{\"a\":1}");
        assert_eq!(strip_fence(" {\"a\":1} "), "{\"a\":1}");
    }

    #[test]
    fn a_budget_runs_out() {
        let budget = CallBudget::new(2);
        assert!(budget.take());
        assert!(budget.take());
        assert!(!budget.take());
        assert_eq!(budget.left(), 0);
    }
}

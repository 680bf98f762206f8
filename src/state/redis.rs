//! [`BotState`] in Redis, shared by every replica (`SOURCEBOT_REDIS_URL`, `redis://` or
//! `rediss://` for TLS). Each family is one key per entry under the namespace
//! (`sourcebot:` by default), with the family's TTL set by Redis itself, so nothing
//! grows without bound:
//!
//! | family | key | command |
//! |---|---|---|
//! | deliveries | `{ns}delivery:{id}` | `SET … NX PX` (claim: the first replica to set it does the work) |
//! | shares | `{ns}share:{key}` | `SET … PX`, then `GETDEL` (taken once, by whichever replica gets the click) |
//! | evidence | `{ns}evidence:{key}` | `SET … PX` of the modal view as JSON, then `GET` (by whichever replica gets a click, as often as it comes) |
//! | replies | `{ns}reply:{channel}:{ts}` | `SET … PX` of the [`ReplyRecord`] as JSON, `GET`, `DEL` |
//! | post slots | `{ns}pace:{channel}` | a script that takes the next slot by Redis's clock (`TIME`), so replicas' clocks never matter |
//! | back-offs | `{ns}backoff:{method}` | `SET … PX retry-after` (kept if longer), `PTTL` |
//! | locks | `{ns}lock:{name}` (`answer:{channel}:{ts}`, `token-refresh:…`) | `SET … NX PX` with the holder's id; released by a compare-and-delete script |
//! | API requests | `{ns}idem:{caller}:{key}` | a hash (`asked`, `state`, `response`) claimed and read by one script; `pending` expires if its replica dies |
//! | verdicts | `{ns}verdict:{url}` | `SET … PX ttl` of the [`Verdict`] as JSON; `GET` and `PTTL` at once |
//! | settings versions | `{ns}settings-version:{workspace}` | `INCR` when a workspace's settings are saved, `GET` by every replica's settings cache (one small counter per workspace, no TTL); while Redis does not answer a read is 0, so caches reload from the database |
//!
//! Redis being down or slow never stops the bot: every call is bounded by
//! [`RedisSettings::op_timeout`]; a failed claim counts as "first" (the event is
//! answered rather than lost, so de-duplication is best effort while Redis is away), a
//! failed read as "nothing kept", a failed write is dropped; post slots and back-offs
//! fall back to this process's own ([`LocalLimits`]). The connection is made
//! lazily and remade by the client's connection manager; [`BotState::health`] and the
//! gauge `sourcebot_shared_state_up` say whether the last call worked, and the log says
//! so once when Redis goes away and once when it is back.

use super::pace::LocalLimits;
use super::{
    AnswerKey, BotState, IdempotencyClaim, ReplyRecord, StateHealth, DEDUPE_TTL, EVIDENCE_TTL,
    REPLY_TTL, SHARE_TTL,
};
use crate::metrics::Metrics;
use crate::model::Verdict;
use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Client, SetExpiry, SetOptions};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How to reach Redis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisSettings {
    /// `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS).
    pub url: String,
    /// Prefix of every key, so several deployments can share one Redis.
    pub namespace: String,
    /// The longest one call may take, connecting included; past it the call counts as
    /// failed. Default 250 ms: Slack wants its ack within 3 s.
    pub op_timeout: Duration,
}

impl RedisSettings {
    /// Settings for `url` with the default namespace and timeout.
    pub fn new(url: impl Into<String>) -> RedisSettings {
        RedisSettings {
            url: url.into(),
            namespace: "sourcebot:".to_string(),
            op_timeout: Duration::from_millis(250),
        }
    }
}

/// Why Redis could not be used at start.
#[derive(Debug, thiserror::Error)]
pub enum RedisStateError {
    /// The URL is not one the client can use.
    #[error("SOURCEBOT_REDIS_URL is not a usable Redis URL ({0}); expected redis://host:port or rediss://host:port")]
    BadUrl(String),
}

/// Takes the next post slot of a channel: `KEYS[1]` holds the next free time (ms, by
/// Redis's clock); the reply is how long the caller waits. `ARGV[1]` is the pace in ms.
/// `SCAN` rounds (of 1,000 keys looked at each) when deleting a workspace's keys: a
/// bound, so an uninstall never loops forever; what is left expires with its TTL.
const MAX_SCAN_ROUNDS: usize = 100_000;

/// The key families kept per workspace ([`super::ScopedState`]).
const SCOPED_FAMILIES: [&str; 6] = ["share", "evidence", "reply", "lock", "pace", "backoff"];

/// `text` with Redis glob's special characters escaped, to match literally.
fn glob_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\' | '^' | '-') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

const NEXT_SLOT_SCRIPT: &str = r#"
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
local pace = tonumber(ARGV[1])
local slot = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
redis.call('SET', KEYS[1], slot + pace, 'PX', slot - now + pace + 60000)
return slot - now
"#;

/// Holds a method back: `KEYS[1]` expires when the wait is over; a shorter hold never
/// cuts a longer one. `ARGV[1]` is the wait in ms.
const HOLD_BACK_SCRIPT: &str = r#"
local wait = tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < wait then
  redis.call('SET', KEYS[1], '1', 'PX', wait)
end
return 1
"#;

/// Releases a lock: deletes `KEYS[1]` only if it still holds `ARGV[1]`.
const UNLOCK_SCRIPT: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"#;

/// Claims an idempotency key (`KEYS[1]`) for the request `ARGV[1]` (its fingerprint)
/// for `ARGV[2]` ms: `{'claimed'}`, `{'pending'}`, `{'done', response}` or
/// `{'mismatch'}`.
const CLAIM_IDEMPOTENCY_SCRIPT: &str = r#"
local asked = redis.call('HGET', KEYS[1], 'asked')
if not asked then
  redis.call('HSET', KEYS[1], 'asked', ARGV[1], 'state', 'pending')
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {'claimed'}
end
if asked ~= ARGV[1] then
  return {'mismatch'}
end
if redis.call('HGET', KEYS[1], 'state') == 'done' then
  return {'done', redis.call('HGET', KEYS[1], 'response')}
end
return {'pending'}
"#;

/// Keeps the response (`ARGV[2]`) of the request `ARGV[1]` under `KEYS[1]` for
/// `ARGV[3]` ms, if that request still holds the key.
const FINISH_IDEMPOTENCY_SCRIPT: &str = r#"
if redis.call('HGET', KEYS[1], 'asked') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'state', 'done', 'response', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
"#;

/// Frees `KEYS[1]` if the request `ARGV[1]` holds it and has not finished.
const RELEASE_IDEMPOTENCY_SCRIPT: &str = r#"
if redis.call('HGET', KEYS[1], 'asked') == ARGV[1] and redis.call('HGET', KEYS[1], 'state') == 'pending' then
  return redis.call('DEL', KEYS[1])
end
return 0
"#;

/// The bot's state in Redis.
pub struct RedisState {
    connection: ConnectionManager,
    fallback: LocalLimits,
    /// Tokens counted in this process, the count used while Redis does not answer.
    tokens: super::memory::TokenCounts,
    namespace: String,
    op_timeout: Duration,
    health: Health,
}

impl RedisState {
    /// A state in the Redis at `settings.url`. Nothing is sent yet: the connection is
    /// made by the first call, so the bot starts (degraded) while Redis is down.
    pub fn new(
        settings: &RedisSettings,
        metrics: Option<Arc<Metrics>>,
    ) -> Result<RedisState, RedisStateError> {
        let client = Client::open(settings.url.as_str())
            .map_err(|e| RedisStateError::BadUrl(without_secrets(&e.to_string())))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(settings.op_timeout))
            .set_response_timeout(Some(settings.op_timeout))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_secs(1));
        let connection = ConnectionManager::new_lazy_with_config(client, config)
            .map_err(|e| RedisStateError::BadUrl(without_secrets(&e.to_string())))?;
        Ok(RedisState {
            connection,
            fallback: LocalLimits::new(),
            tokens: super::memory::TokenCounts::default(),
            namespace: settings.namespace.clone(),
            op_timeout: settings.op_timeout,
            health: Health::new(metrics),
        })
    }

    fn key(&self, family: &str, id: &str) -> String {
        format!("{}{family}:{id}", self.namespace)
    }

    /// Runs one call within the timeout, noting whether Redis answered.
    async fn call<T>(
        &self,
        what: &'static str,
        call: impl Future<Output = redis::RedisResult<T>>,
    ) -> Option<T> {
        match tokio::time::timeout(self.op_timeout, call).await {
            Ok(Ok(value)) => {
                self.health.worked();
                Some(value)
            }
            Ok(Err(error)) => {
                self.health
                    .failed(what, &without_secrets(&error.to_string()));
                None
            }
            Err(_) => {
                let why = format!("no answer within {} ms", self.op_timeout.as_millis());
                self.health.failed(what, &why);
                None
            }
        }
    }

    /// Deletes every key that begins with `prefix`, `SCAN` round by round (bounded);
    /// how many went, or `None` when Redis stopped answering.
    async fn delete_matching(&self, prefix: &str) -> Option<usize> {
        let pattern = format!("{}*", glob_escape(prefix));
        let mut cursor: u64 = 0;
        let mut deleted = 0;
        for _ in 0..MAX_SCAN_ROUNDS {
            let mut connection = self.connection.clone();
            let pattern = pattern.clone();
            let (next, keys) = self
                .call("find a workspace's keys", async move {
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(pattern)
                        .arg("COUNT")
                        .arg(1000)
                        .query_async::<(u64, Vec<String>)>(&mut connection)
                        .await
                })
                .await?;
            if !keys.is_empty() {
                let mut connection = self.connection.clone();
                deleted += self
                    .call("delete a workspace's keys", async move {
                        connection.unlink::<_, usize>(keys).await
                    })
                    .await?;
            }
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
        Some(deleted)
    }

    /// `SET key value PX ttl`.
    async fn put(&self, what: &'static str, key: String, value: String, ttl: Duration) {
        let mut connection = self.connection.clone();
        let options = SetOptions::default().with_expiration(SetExpiry::PX(millis(ttl)));
        self.call(what, async move {
            connection
                .set_options::<_, _, ()>(key, value, options)
                .await
        })
        .await;
    }
}

/// How long a day's token count is kept: two days.
const TOKEN_COUNT_TTL_SECONDS: i64 = 2 * 24 * 3600;

#[async_trait]
impl BotState for RedisState {
    async fn first_delivery(&self, delivery_id: &str) -> bool {
        let mut connection = self.connection.clone();
        let key = self.key("delivery", delivery_id);
        let options = SetOptions::default()
            .conditional_set(redis::ExistenceCheck::NX)
            .with_expiration(SetExpiry::PX(millis(DEDUPE_TTL)));
        let claimed = self
            .call("claim a delivery", async move {
                connection
                    .set_options::<_, _, Option<String>>(key, "1", options)
                    .await
            })
            .await;
        // Unknown (Redis away): answer rather than lose the event.
        claimed.is_none_or(|reply| reply.is_some())
    }

    async fn keep_share(&self, key: &str, message: serde_json::Value) {
        let key = self.key("share", key);
        self.put("keep a report", key, message.to_string(), SHARE_TTL)
            .await;
    }

    async fn take_share(&self, key: &str) -> Option<serde_json::Value> {
        let mut connection = self.connection.clone();
        let key = self.key("share", key);
        let kept = self
            .call("take a report", async move {
                connection.get_del::<_, Option<String>>(key).await
            })
            .await??;
        serde_json::from_str(&kept).ok()
    }

    async fn keep_evidence(&self, key: &str, view: serde_json::Value) {
        let key = self.key("evidence", key);
        self.put("keep evidence", key, view.to_string(), EVIDENCE_TTL)
            .await;
    }

    async fn evidence(&self, key: &str) -> Option<serde_json::Value> {
        let mut connection = self.connection.clone();
        let key = self.key("evidence", key);
        let kept = self
            .call("read evidence", async move {
                connection.get::<_, Option<String>>(key).await
            })
            .await??;
        serde_json::from_str(&kept).ok()
    }

    async fn reply_to(&self, answer: &AnswerKey) -> Option<ReplyRecord> {
        let mut connection = self.connection.clone();
        let key = self.key("reply", &answer.as_string());
        let kept = self
            .call("read a reply", async move {
                connection.get::<_, Option<String>>(key).await
            })
            .await??;
        serde_json::from_str(&kept).ok()
    }

    async fn remember_reply(&self, answer: &AnswerKey, reply: ReplyRecord) {
        let Ok(value) = serde_json::to_string(&reply) else {
            return;
        };
        let key = self.key("reply", &answer.as_string());
        self.put("remember a reply", key, value, REPLY_TTL).await;
    }

    async fn forget_reply(&self, answer: &AnswerKey) {
        let mut connection = self.connection.clone();
        let key = self.key("reply", &answer.as_string());
        self.call("forget a reply", async move {
            connection.del::<_, ()>(key).await
        })
        .await;
    }

    async fn lock(&self, name: &str, holder: &str, ttl: Duration) -> bool {
        let mut connection = self.connection.clone();
        let key = self.key("lock", name);
        let options = SetOptions::default()
            .conditional_set(redis::ExistenceCheck::NX)
            .with_expiration(SetExpiry::PX(millis(ttl)));
        let holder = holder.to_string();
        let taken = self
            .call("take a lock", async move {
                connection
                    .set_options::<_, _, Option<String>>(key, holder, options)
                    .await
            })
            .await;
        // Unknown (Redis away): go ahead rather than leave the answer unhandled.
        taken.is_none_or(|reply| reply.is_some())
    }

    async fn unlock(&self, name: &str, holder: &str) {
        let mut connection = self.connection.clone();
        let key = self.key("lock", name);
        let holder = holder.to_string();
        self.call("release a lock", async move {
            redis::cmd("EVAL")
                .arg(UNLOCK_SCRIPT)
                .arg(1)
                .arg(key)
                .arg(holder)
                .query_async::<i64>(&mut connection)
                .await
        })
        .await;
    }

    async fn next_post_slot(&self, channel: &str, pace: Duration) -> Duration {
        let mut connection = self.connection.clone();
        let key = self.key("pace", channel);
        let wait = self
            .call("take a post slot", async move {
                redis::cmd("EVAL")
                    .arg(NEXT_SLOT_SCRIPT)
                    .arg(1)
                    .arg(key)
                    .arg(millis(pace))
                    .query_async::<i64>(&mut connection)
                    .await
            })
            .await;
        match wait {
            Some(ms) => Duration::from_millis(u64::try_from(ms).unwrap_or(0)),
            None => self.fallback.next_post_slot(channel, pace),
        }
    }

    async fn hold_back(&self, method: &str, wait: Duration) {
        self.fallback.hold_back(method, wait);
        let mut connection = self.connection.clone();
        let key = self.key("backoff", method);
        self.call("hold back", async move {
            redis::cmd("EVAL")
                .arg(HOLD_BACK_SCRIPT)
                .arg(1)
                .arg(key)
                .arg(millis(wait).max(1))
                .query_async::<i64>(&mut connection)
                .await
        })
        .await;
    }

    async fn held_back(&self, method: &str) -> Duration {
        let mut connection = self.connection.clone();
        let key = self.key("backoff", method);
        let left = self
            .call("read a back-off", async move {
                connection.pttl::<_, i64>(key).await
            })
            .await;
        match left {
            // -2: no key, -1: no expiry (never written so): no hold.
            Some(ms) => Duration::from_millis(u64::try_from(ms).unwrap_or(0)),
            None => self.fallback.held_back(method),
        }
    }

    async fn shared_verdict(&self, url: &str) -> Option<(Verdict, Duration)> {
        let mut connection = self.connection.clone();
        let key = self.key("verdict", url);
        let (kept, left) = self
            .call("read a verdict", async move {
                redis::pipe()
                    .get(&key)
                    .pttl(&key)
                    .query_async::<(Option<String>, i64)>(&mut connection)
                    .await
            })
            .await?;
        let left = Duration::from_millis(u64::try_from(left).ok().filter(|ms| *ms > 0)?);
        let verdict = serde_json::from_str(&kept?).ok()?;
        Some((verdict, left))
    }

    async fn share_verdict(&self, url: &str, verdict: &Verdict, ttl: Duration) {
        if ttl.is_zero() {
            return;
        }
        let Ok(value) = serde_json::to_string(verdict) else {
            return;
        };
        let key = self.key("verdict", url);
        self.put("share a verdict", key, value, ttl).await;
    }

    async fn shared_model_reply(&self, key: &str) -> Option<String> {
        let mut connection = self.connection.clone();
        let key = self.key("llm", key);
        self.call("read a model reply", async move {
            connection.get::<_, Option<String>>(&key).await
        })
        .await?
    }

    async fn share_model_reply(&self, key: &str, reply: &str, ttl: Duration) {
        if ttl.is_zero() {
            return;
        }
        let key = self.key("llm", key);
        self.put("share a model reply", key, reply.to_string(), ttl)
            .await;
    }

    async fn add_model_tokens(&self, day: &str, tokens: u64) -> u64 {
        let local = self.tokens.add(day, tokens);
        let mut connection = self.connection.clone();
        let key = self.key("llm-tokens", day);
        let total = self
            .call("count model tokens", async move {
                let (total, _): (u64, bool) = redis::pipe()
                    .atomic()
                    .incr(&key, tokens)
                    .expire(&key, TOKEN_COUNT_TTL_SECONDS)
                    .query_async(&mut connection)
                    .await?;
                Ok(total)
            })
            .await;
        total.unwrap_or(local)
    }

    async fn model_tokens(&self, day: &str) -> u64 {
        let mut connection = self.connection.clone();
        let key = self.key("llm-tokens", day);
        let total = self
            .call("read model tokens", async move {
                connection.get::<_, Option<u64>>(&key).await
            })
            .await;
        match total {
            Some(total) => total.unwrap_or(0),
            None => self.tokens.get(day),
        }
    }

    async fn claim_idempotency(
        &self,
        key: &str,
        asked: u64,
        pending_ttl: Duration,
    ) -> IdempotencyClaim {
        let mut connection = self.connection.clone();
        let redis_key = self.key("idem", key);
        let claimed = self
            .call("claim an idempotency key", async move {
                redis::cmd("EVAL")
                    .arg(CLAIM_IDEMPOTENCY_SCRIPT)
                    .arg(1)
                    .arg(redis_key)
                    .arg(asked.to_string())
                    .arg(millis(pending_ttl).max(1))
                    .query_async::<Vec<String>>(&mut connection)
                    .await
            })
            .await;
        match claimed.as_deref() {
            // Unknown (Redis away): the API's own table still keeps this replica's
            // requests once.
            None => IdempotencyClaim::Claimed,
            Some([state]) if state == "pending" => IdempotencyClaim::Pending,
            Some([state]) if state == "mismatch" => IdempotencyClaim::Mismatch,
            Some([state, response]) if state == "done" => IdempotencyClaim::Done(response.clone()),
            Some(_) => IdempotencyClaim::Claimed,
        }
    }

    async fn finish_idempotency(&self, key: &str, asked: u64, response: &str, ttl: Duration) {
        let mut connection = self.connection.clone();
        let redis_key = self.key("idem", key);
        let response = response.to_string();
        self.call("keep a response", async move {
            redis::cmd("EVAL")
                .arg(FINISH_IDEMPOTENCY_SCRIPT)
                .arg(1)
                .arg(redis_key)
                .arg(asked.to_string())
                .arg(response)
                .arg(millis(ttl).max(1))
                .query_async::<i64>(&mut connection)
                .await
        })
        .await;
    }

    async fn release_idempotency(&self, key: &str, asked: u64) {
        let mut connection = self.connection.clone();
        let redis_key = self.key("idem", key);
        self.call("release an idempotency key", async move {
            redis::cmd("EVAL")
                .arg(RELEASE_IDEMPOTENCY_SCRIPT)
                .arg(1)
                .arg(redis_key)
                .arg(asked.to_string())
                .query_async::<i64>(&mut connection)
                .await
        })
        .await;
    }

    async fn settings_version(&self, workspace: &str) -> u64 {
        let mut connection = self.connection.clone();
        let key = self.key("settings-version", workspace);
        self.call("read a settings version", async move {
            connection.get::<_, Option<u64>>(&key).await
        })
        .await
        .flatten()
        .unwrap_or(0)
    }

    async fn bump_settings_version(&self, workspace: &str) -> u64 {
        let mut connection = self.connection.clone();
        let key = self.key("settings-version", workspace);
        self.call("bump a settings version", async move {
            connection.incr::<_, _, u64>(&key, 1u64).await
        })
        .await
        .unwrap_or(0)
    }

    async fn forget_scope(&self, scope: &str) -> usize {
        let prefix = super::scoped::scope_prefix(scope);
        let local = self.fallback.remove_where(|name| name.starts_with(&prefix));
        let mut deleted = 0;
        for family in SCOPED_FAMILIES {
            match self.delete_matching(&self.key(family, &prefix)).await {
                Some(count) => deleted += count,
                None => {
                    tracing::warn!(workspace = scope, "cannot delete all of an uninstalled workspace's state now; the rest expires");
                    break;
                }
            }
        }
        local + deleted
    }

    async fn check_health(&self) -> StateHealth {
        let mut connection = self.connection.clone();
        self.call("ping", async move {
            redis::cmd("PING")
                .query_async::<String>(&mut connection)
                .await
        })
        .await;
        self.health()
    }

    fn health(&self) -> StateHealth {
        StateHealth {
            backend: "redis",
            up: self.health.up.load(Ordering::Relaxed),
            last_error: self.health.last_error(),
        }
    }
}

/// Whether the last call worked; logs and sets the gauge on each change.
struct Health {
    up: AtomicBool,
    last_error: Mutex<Option<String>>,
    metrics: Option<Arc<Metrics>>,
}

impl Health {
    fn new(metrics: Option<Arc<Metrics>>) -> Health {
        if let Some(metrics) = &metrics {
            metrics.shared_state_up(true);
        }
        Health {
            up: AtomicBool::new(true),
            last_error: Mutex::new(None),
            metrics,
        }
    }

    fn worked(&self) {
        if !self.up.swap(true, Ordering::Relaxed) {
            tracing::info!("shared state (Redis) answers again");
            if let Some(metrics) = &self.metrics {
                metrics.shared_state_up(true);
            }
        }
    }

    fn failed(&self, what: &str, why: &str) {
        if let Ok(mut last) = self.last_error.lock() {
            *last = Some(format!("{what}: {why}"));
        }
        if self.up.swap(false, Ordering::Relaxed) {
            tracing::warn!(
                what,
                error = why,
                "shared state (Redis) unavailable: checks go on, verdicts and replies are not shared and duplicate deliveries may be answered until it returns"
            );
            if let Some(metrics) = &self.metrics {
                metrics.shared_state_up(false);
            }
        }
    }

    fn last_error(&self) -> Option<String> {
        self.last_error.lock().ok().and_then(|last| last.clone())
    }
}

fn millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)
}

/// `text` with any `user:password@` of a URL in it replaced by `***@`: the client's
/// errors may quote the URL, and secrets never reach a log.
pub fn without_secrets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(scheme) = rest.find("://") {
        let (head, tail) = rest.split_at(scheme + 3);
        out.push_str(head);
        let authority_end = tail
            .find(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace())
            .unwrap_or(tail.len());
        match tail[..authority_end].rfind('@') {
            Some(at) => {
                out.push_str("***");
                out.push_str(&tail[at..authority_end]);
            }
            None => out.push_str(&tail[..authority_end]),
        }
        rest = &tail[authority_end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_taken_out_of_urls() {
        assert_eq!(
            without_secrets("cannot reach redis://default:hunter2@cache.internal:6380/0 now"),
            "cannot reach redis://***@cache.internal:6380/0 now"
        );
        assert_eq!(
            without_secrets("rediss://:p%40ss@h and redis://h2:1"),
            "rediss://***@h and redis://h2:1"
        );
        assert_eq!(without_secrets("no url here"), "no url here");
    }

    #[test]
    fn a_malformed_url_is_refused_without_echoing_it() {
        let error = RedisState::new(&RedisSettings::new("http://user:secret@host"), None)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("SOURCEBOT_REDIS_URL"), "{error}");
        assert!(!error.contains("secret"), "{error}");
    }
}

//! The bot's short-lived state, behind one interface ([`BotState`]) so that it can live
//! in this process ([`memory::MemoryState`], the default: one replica, nothing to
//! install) or, for several replicas, in shared storage. Everything kept here expires
//! (but the settings versions: one small counter per workspace),
//! and every family is bounded. The key families:
//!
//! | family | key | value | kept for | written by | read by |
//! |---|---|---|---|---|---|
//! | deliveries | an Events API `event_id` | — | at least [`DEDUPE_TTL`] / 2, at most [`DEDUPE_TTL`] | every event, on arrival | the same, to drop Slack's retries |
//! | shares | a report's key (the button's value) | the report as a `response_url` message | [`SHARE_TTL`] | ephemeral reports (`/sources`) | the "Share in channel" button, once |
//! | evidence | a random id (the "Show evidence" button's value) | the evidence modal as a `views.open` view | [`EVIDENCE_TTL`] | reports with claims checked against their pages | the "Show evidence" button, as often as it is pressed |
//! | replies | an answer: its channel and `ts` | [`ReplyRecord`]: the reply's `ts` and digests of what both said | [`REPLY_TTL`] | watched answers, once settled | edits and deletions of those answers |
//! | post slots | a channel | the next time a post may go | a minute past the slot | every post | every post (one a second per channel, over all replicas) |
//! | back-offs | a Web API method | until when Slack asked to wait | the `Retry-After` | a 429 | every call of that method |
//! | locks | an answer (`answer:…`), an installation's token refresh (`token-refresh:…`) | who holds it | [`ANSWER_LOCK_TTL`] (answers) at most | the replica doing the work | the others, which wait or skip |
//! | API requests | a caller's `Idempotency-Key` | what was asked (a fingerprint), then the response | while it runs, then an hour | `POST /v1/answers` | the same key on any replica (shared stores only) |
//! | verdicts | a canonical URL | its [`Verdict`] | the verifier's TTL for its class | every probe (shared stores only) | the verifier, after its own cache |
//! | model replies | a digest of a question to the language model | its validated JSON reply | `SOURCEBOT_LLM_CACHE_TTL` | every valid reply (shared stores only) | [`crate::llm::LlmClient`], after its own cache |
//! | settings versions | a workspace ([`crate::slack::WorkspaceKey::scope`]) | a counter | as long as the store (one small number per workspace; no TTL) | every settings change | [`crate::store::workspace_data::SettingsCache`], at most once a second per workspace |
//!
//! With many workspaces, the families a workspace owns (shares, evidence, replies, post
//! slots, back-offs, locks) are kept under its id ([`scoped::ScopedState`]), and deleted
//! with it when the app is uninstalled there.
//!
//! Values are plain serde data, so a shared store can keep them as JSON: [`redis`] keeps
//! them in Redis for several replicas (`SOURCEBOT_REDIS_URL`).

pub mod memory;
pub mod pace;
pub mod redis;
pub mod scoped;

use crate::model::Verdict;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::time::Duration;

pub use self::redis::{RedisSettings, RedisState};
pub use memory::MemoryState;
pub use scoped::ScopedState;

/// How long a delivery id is remembered at most (at least half of it): Slack's last
/// retry comes 5 minutes after the first delivery.
pub const DEDUPE_TTL: Duration = Duration::from_secs(720);
/// Delivery ids remembered at most (as 64-bit hashes: about 4 MB at the cap).
pub const DEDUPE_MAX: usize = 200_000;
/// How long a report waits for its "Share in channel" click (a `response_url` lives
/// 30 minutes).
pub const SHARE_TTL: Duration = Duration::from_secs(1800);
/// Reports kept for sharing at most.
pub const SHARE_MAX: usize = 10_000;
/// How long a report's evidence waits for its "Show evidence" click: a day, as long as
/// the bot remembers its replies. Later the button answers that it has expired.
pub const EVIDENCE_TTL: Duration = Duration::from_secs(24 * 3600);
/// Evidence views kept in memory at most (each at most about 40 kB of text); past it the
/// oldest go first. Redis keeps every one for its TTL.
pub const EVIDENCE_MAX: usize = 2_000;
/// How long the bot remembers its reply to a watched answer, so that an edit updates it
/// and a deletion deletes it: a day. Later edits get no update.
pub const REPLY_TTL: Duration = Duration::from_secs(24 * 3600);
/// Answers whose replies are remembered at most; past it the oldest are forgotten.
pub const REPLY_MAX: usize = 50_000;

/// The longest one replica may hold an answer's lock: a check (2.5 s) and a few Slack
/// calls (10 s each at most) fit well within it; a replica that died holding it
/// delays the answer by this much at most.
pub const ANSWER_LOCK_TTL: Duration = Duration::from_secs(60);

/// An answer the bot replied to: its channel and `ts`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AnswerKey {
    /// The channel.
    pub channel: String,
    /// The answer's `ts`.
    pub ts: String,
}

impl AnswerKey {
    /// The key as one string (`C123:1700000000.000100`), for stores keyed by strings.
    pub fn as_string(&self) -> String {
        format!("{}:{}", self.channel, self.ts)
    }
}

/// The bot's reply to a watched answer, and what it was made from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyRecord {
    /// The channel of the reply.
    pub channel: String,
    /// The reply's `ts`.
    pub ts: String,
    /// A digest of the answer's content (text, blocks, attachments) the reply was made
    /// from: an edit that leaves it unchanged (Slack re-sends a parent when its thread
    /// grows) needs no new check.
    pub content_digest: u64,
    /// A digest of what the reply shows: a new check that renders the same needs no
    /// update.
    pub shown_digest: u64,
    /// The answer's version the reply was made from (its `edited.ts`; zero for the
    /// first): a replica that settles an older version leaves the reply alone.
    #[serde(default)]
    pub version: (u64, u64),
    /// The answer was deleted (and the reply with it, if there was one): no replica
    /// replies to it again.
    #[serde(default)]
    pub deleted: bool,
}

/// The bot's short-lived state. See the module documentation for the families.
#[async_trait]
pub trait BotState: Send + Sync {
    /// True the first time `delivery_id` is seen within [`DEDUPE_TTL`] (and remembers
    /// it): later copies are Slack's retries.
    async fn first_delivery(&self, delivery_id: &str) -> bool;
    /// Keeps `message` for the share button under `key`, for [`SHARE_TTL`].
    async fn keep_share(&self, key: &str, message: serde_json::Value);
    /// Takes the message kept under `key` (once), if it has not expired.
    async fn take_share(&self, key: &str) -> Option<serde_json::Value>;
    /// Keeps a report's evidence `view` (a modal for `views.open`) under `key` for
    /// [`EVIDENCE_TTL`].
    async fn keep_evidence(&self, key: &str, view: serde_json::Value);
    /// The evidence view kept under `key`, if it has not expired (read as often as the
    /// button is pressed).
    async fn evidence(&self, key: &str) -> Option<serde_json::Value>;
    /// The reply to `answer`, if the bot made one within [`REPLY_TTL`].
    async fn reply_to(&self, answer: &AnswerKey) -> Option<ReplyRecord>;
    /// Remembers the reply to `answer`.
    async fn remember_reply(&self, answer: &AnswerKey, reply: ReplyRecord);
    /// Forgets the reply to `answer`.
    async fn forget_reply(&self, answer: &AnswerKey);
    /// Takes the lock `name` for `holder`, for `ttl` at most: one holder (replica) at a
    /// time does what it guards. False while another holder has it. A store that cannot
    /// be asked grants it (best effort).
    async fn lock(&self, name: &str, holder: &str, ttl: Duration) -> bool;
    /// Releases the lock `name` if `holder` still has it.
    async fn unlock(&self, name: &str, holder: &str);
    /// [`BotState::lock`] on `answer`: one replica handles an answer (checks, posts,
    /// updates, deletes its reply) at a time.
    async fn lock_answer(&self, answer: &AnswerKey, holder: &str, ttl: Duration) -> bool {
        self.lock(&format!("answer:{}", answer.as_string()), holder, ttl)
            .await
    }
    /// Releases the lock on `answer` if `holder` still has it.
    async fn unlock_answer(&self, answer: &AnswerKey, holder: &str) {
        self.unlock(&format!("answer:{}", answer.as_string()), holder)
            .await
    }
    /// Takes the next post slot of `channel`: how long to wait before posting, so that
    /// posts to one channel, from every replica, are at least `pace` apart.
    async fn next_post_slot(&self, channel: &str, pace: Duration) -> Duration;
    /// Slack asked (429 `Retry-After`) to wait `wait` before calling `method` again:
    /// every replica holds back.
    async fn hold_back(&self, method: &str, wait: Duration);
    /// How long calls to `method` must still wait.
    async fn held_back(&self, method: &str) -> Duration;
    /// The verdict a replica found for the canonical `url`, with the time it has left;
    /// `None` in memory, where the verifier's own cache is the only one.
    async fn shared_verdict(&self, _url: &str) -> Option<(Verdict, Duration)> {
        None
    }
    /// Shares the verdict found for `url` with the other replicas, for `ttl`.
    async fn share_verdict(&self, _url: &str, _verdict: &Verdict, _ttl: Duration) {}

    /// The language model's valid reply to the question with digest `key`, if another
    /// replica asked it recently (shared stores only: `None` otherwise).
    async fn shared_model_reply(&self, _key: &str) -> Option<String> {
        None
    }

    /// Keeps the model's valid `reply` to the question with digest `key` for `ttl`, for
    /// the other replicas (shared stores only).
    async fn share_model_reply(&self, _key: &str, _reply: &str, _ttl: Duration) {}

    /// Adds `tokens` to the language-model tokens counted on `day` (`YYYY-MM-DD`, UTC)
    /// by every replica, and returns the day's total. A day's count is kept for two
    /// days.
    async fn add_model_tokens(&self, day: &str, tokens: u64) -> u64;

    /// The language-model tokens counted on `day` by every replica.
    async fn model_tokens(&self, day: &str) -> u64;
    /// Claims the idempotency key `key` for a request that asks `asked` (a fingerprint),
    /// for `pending_ttl` while it runs. In memory: always [`IdempotencyClaim::Claimed`],
    /// the API's own table being the only one.
    async fn claim_idempotency(
        &self,
        _key: &str,
        _asked: u64,
        _pending_ttl: Duration,
    ) -> IdempotencyClaim {
        IdempotencyClaim::Claimed
    }
    /// Keeps `response` as the answer to every later request with `key`, for `ttl`.
    async fn finish_idempotency(&self, _key: &str, _asked: u64, _response: &str, _ttl: Duration) {}
    /// Frees `key` (the request failed before anything was done), so a retry runs.
    async fn release_idempotency(&self, _key: &str, _asked: u64) {}
    /// The version of the settings of `workspace` (its [`crate::slack::WorkspaceKey::scope`]):
    /// it moves whenever any replica saves them, so a replica's cache knows to reload.
    /// Zero when never bumped (and in a store that shares nothing).
    async fn settings_version(&self, _workspace: &str) -> u64 {
        0
    }
    /// Moves the version of the settings of `workspace` (they were just saved) and
    /// returns the new one.
    async fn bump_settings_version(&self, _workspace: &str) -> u64 {
        0
    }
    /// Deletes everything kept for the workspace (or organization) `scope` through a
    /// [`ScopedState`] (the app left it); how many entries went.
    async fn forget_scope(&self, scope: &str) -> usize;
    /// Asks the store whether it answers now (Redis: `PING`, within the call timeout),
    /// then says [`BotState::health`].
    async fn check_health(&self) -> StateHealth {
        self.health()
    }
    /// Where the state lives and whether it answered last time.
    fn health(&self) -> StateHealth {
        StateHealth {
            backend: "memory",
            up: true,
            last_error: None,
        }
    }
}

/// What an idempotency key holds, as [`BotState::claim_idempotency`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// Nobody had it: the caller runs the request, then finishes or releases the key.
    Claimed,
    /// Another replica runs the same request now.
    Pending,
    /// Done: the response kept for it.
    Done(String),
    /// The key was used for a different request.
    Mismatch,
}

/// Where the state lives and whether it works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateHealth {
    /// `"memory"` or `"redis"`.
    pub backend: &'static str,
    /// False while the shared store does not answer (the bot goes on, degraded).
    pub up: bool,
    /// The last failure, with what was being done (no secrets).
    pub last_error: Option<String>,
}

/// A stable 64-bit digest (FNV-1a) of `bytes`: the same in every process and release,
/// so replicas sharing state agree on it.
pub fn digest(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_stable() {
        assert_eq!(digest(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(digest(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(digest(b"ab"), digest(b"ba"));
    }
}

//! One workspace's slice of the bot's state. With many workspaces, what one does must
//! not touch another: a 429 from Slack in workspace A holds back A's calls only (Slack
//! limits each workspace separately), and replies, locks, reports, evidence and post slots are
//! kept under the workspace's id, so that uninstalling it can delete them all
//! ([`BotState::forget_scope`]). [`ScopedState`] wraps the shared store and puts
//! `ws:{id}:` in front of those keys; deliveries (Slack's ids are unique across
//! workspaces), verdicts (a public page is the same for everyone) and API requests
//! (not a workspace's) pass through unchanged.

use super::{AnswerKey, BotState, IdempotencyClaim, ReplyRecord, StateHealth};
use crate::model::Verdict;
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;

/// The prefix of every key kept for the workspace (or organization) `scope`.
pub fn scope_prefix(scope: &str) -> String {
    format!("ws:{scope}:")
}

/// The state of one workspace: the shared store, with that workspace's keys apart.
pub struct ScopedState {
    inner: Arc<dyn BotState>,
    prefix: String,
}

impl ScopedState {
    /// `inner`'s slice for the workspace (or organization) `scope`.
    pub fn new(inner: Arc<dyn BotState>, scope: &str) -> ScopedState {
        ScopedState {
            inner,
            prefix: scope_prefix(scope),
        }
    }

    fn name(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    fn answer(&self, answer: &AnswerKey) -> AnswerKey {
        AnswerKey {
            channel: self.name(&answer.channel),
            ts: answer.ts.clone(),
        }
    }
}

#[async_trait]
impl BotState for ScopedState {
    async fn first_delivery(&self, delivery_id: &str) -> bool {
        self.inner.first_delivery(delivery_id).await
    }

    async fn keep_share(&self, key: &str, message: serde_json::Value) {
        self.inner.keep_share(&self.name(key), message).await;
    }

    async fn take_share(&self, key: &str) -> Option<serde_json::Value> {
        self.inner.take_share(&self.name(key)).await
    }

    async fn keep_evidence(&self, key: &str, view: serde_json::Value) {
        self.inner.keep_evidence(&self.name(key), view).await;
    }

    async fn evidence(&self, key: &str) -> Option<serde_json::Value> {
        self.inner.evidence(&self.name(key)).await
    }

    async fn reply_to(&self, answer: &AnswerKey) -> Option<ReplyRecord> {
        self.inner.reply_to(&self.answer(answer)).await
    }

    async fn remember_reply(&self, answer: &AnswerKey, reply: ReplyRecord) {
        self.inner.remember_reply(&self.answer(answer), reply).await;
    }

    async fn forget_reply(&self, answer: &AnswerKey) {
        self.inner.forget_reply(&self.answer(answer)).await;
    }

    async fn lock(&self, name: &str, holder: &str, ttl: Duration) -> bool {
        self.inner.lock(&self.name(name), holder, ttl).await
    }

    async fn unlock(&self, name: &str, holder: &str) {
        self.inner.unlock(&self.name(name), holder).await;
    }

    async fn next_post_slot(&self, channel: &str, pace: Duration) -> Duration {
        self.inner.next_post_slot(&self.name(channel), pace).await
    }

    async fn hold_back(&self, method: &str, wait: Duration) {
        self.inner.hold_back(&self.name(method), wait).await;
    }

    async fn held_back(&self, method: &str) -> Duration {
        self.inner.held_back(&self.name(method)).await
    }

    async fn shared_verdict(&self, url: &str) -> Option<(Verdict, Duration)> {
        self.inner.shared_verdict(url).await
    }

    async fn share_verdict(&self, url: &str, verdict: &Verdict, ttl: Duration) {
        self.inner.share_verdict(url, verdict, ttl).await;
    }

    async fn shared_model_reply(&self, key: &str) -> Option<String> {
        self.inner.shared_model_reply(key).await
    }

    async fn share_model_reply(&self, key: &str, reply: &str, ttl: Duration) {
        self.inner.share_model_reply(key, reply, ttl).await;
    }

    /// The token budget is the deployment's, not a workspace's.
    async fn add_model_tokens(&self, day: &str, tokens: u64) -> u64 {
        self.inner.add_model_tokens(day, tokens).await
    }

    async fn model_tokens(&self, day: &str) -> u64 {
        self.inner.model_tokens(day).await
    }

    async fn claim_idempotency(
        &self,
        key: &str,
        asked: u64,
        pending_ttl: Duration,
    ) -> IdempotencyClaim {
        self.inner.claim_idempotency(key, asked, pending_ttl).await
    }

    async fn finish_idempotency(&self, key: &str, asked: u64, response: &str, ttl: Duration) {
        self.inner
            .finish_idempotency(key, asked, response, ttl)
            .await;
    }

    async fn release_idempotency(&self, key: &str, asked: u64) {
        self.inner.release_idempotency(key, asked).await;
    }

    async fn forget_scope(&self, scope: &str) -> usize {
        self.inner.forget_scope(scope).await
    }

    /// Settings versions are kept by workspace already: passed through as they are.
    async fn settings_version(&self, workspace: &str) -> u64 {
        self.inner.settings_version(workspace).await
    }

    async fn bump_settings_version(&self, workspace: &str) -> u64 {
        self.inner.bump_settings_version(workspace).await
    }

    async fn check_health(&self) -> StateHealth {
        self.inner.check_health().await
    }

    fn health(&self) -> StateHealth {
        self.inner.health()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::MemoryState;

    #[tokio::test]
    async fn workspaces_keep_apart_and_one_can_be_forgotten() {
        let shared: Arc<dyn BotState> = Arc::new(MemoryState::new());
        let a = ScopedState::new(shared.clone(), "TA");
        let b = ScopedState::new(shared.clone(), "TB");
        let answer = AnswerKey {
            channel: "C1".into(),
            ts: "1.1".into(),
        };
        let reply = ReplyRecord {
            channel: "C1".into(),
            ts: "1.2".into(),
            ..ReplyRecord::default()
        };
        a.remember_reply(&answer, reply.clone()).await;
        b.remember_reply(&answer, reply.clone()).await;
        a.hold_back("chat.postMessage", Duration::from_secs(30))
            .await;
        assert!(a.held_back("chat.postMessage").await > Duration::from_secs(29));
        assert_eq!(
            b.held_back("chat.postMessage").await,
            Duration::ZERO,
            "A's 429 does not hold B back"
        );
        assert!(a.lock("answer:x", "me", Duration::from_secs(5)).await);
        assert!(
            b.lock("answer:x", "other", Duration::from_secs(5)).await,
            "locks are per workspace"
        );
        a.keep_share("k", serde_json::json!({"text": "a"})).await;
        assert_eq!(b.take_share("k").await, None, "B cannot take A's report");

        let forgotten = shared.forget_scope("TA").await;
        assert!(forgotten >= 4, "forgot {forgotten}");
        assert_eq!(a.reply_to(&answer).await, None);
        assert_eq!(a.held_back("chat.postMessage").await, Duration::ZERO);
        assert_eq!(a.take_share("k").await, None);
        assert!(a.lock("answer:x", "someone", Duration::from_secs(5)).await);
        assert_eq!(
            b.reply_to(&answer).await,
            Some(reply),
            "B's state is untouched"
        );
        // Deliveries are not a workspace's: one id is one event everywhere.
        assert!(a.first_delivery("Ev1").await);
        assert!(!b.first_delivery("Ev1").await);
    }
}

//! Token rotation: installations whose bot tokens expire (Slack's token rotation gives
//! 12-hour tokens and single-use refresh tokens) are refreshed with `oauth.v2.access`
//! (`grant_type=refresh_token`) before they expire. A refresh token works once, so one
//! replica refreshes each installation, under a lock in the bot's state (Redis across
//! replicas), and reads the installation again under it: one that another replica just
//! refreshed is left alone, and the others read the new token from the store. A failed
//! refresh is logged (never with a token) and tried again next round, while the old
//! token still lasts.

use super::oauth::OAuthSettings;
use crate::slack::api::SlackApi;
use crate::state::BotState;
use crate::store::installations::{Installation, InstallationStore};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Tokens expiring within this are refreshed (Slack's last 12 hours).
pub const REFRESH_AHEAD: Duration = Duration::from_secs(2 * 3600);
/// How long one replica may hold an installation's refresh.
pub const REFRESH_LOCK_TTL: Duration = Duration::from_secs(60);
/// How often a replica looks for tokens to refresh.
pub const REFRESH_EVERY: Duration = Duration::from_secs(300);

/// Refreshes expiring tokens.
pub struct Rotator {
    /// The app's credentials.
    pub settings: OAuthSettings,
    /// The installations.
    pub store: Arc<dyn InstallationStore>,
    /// Where the refresh locks are taken.
    pub state: Arc<dyn BotState>,
    /// Slack's Web API.
    pub slack: Arc<SlackApi>,
    /// This replica's id as a lock holder.
    pub holder: String,
}

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Round {
    /// Tokens refreshed.
    pub refreshed: usize,
    /// Due, but another replica holds or just did the refresh.
    pub skipped: usize,
    /// Refreshes that failed (tried again next round).
    pub failed: usize,
}

impl Rotator {
    /// Refreshes every token that expires within [`REFRESH_AHEAD`] of `now_unix`.
    pub async fn refresh_due(&self, now_unix: i64) -> Round {
        let mut round = Round::default();
        let horizon = now_unix + REFRESH_AHEAD.as_secs() as i64;
        let due = match self.store.expiring_before(horizon).await {
            Ok(due) => due,
            Err(error) => {
                tracing::warn!(%error, "cannot list the tokens to refresh");
                round.failed += 1;
                return round;
            }
        };
        for installation in due {
            let key = installation.key();
            let lock = format!(
                "token-refresh:{}:{}:{}",
                key.enterprise_id.as_deref().unwrap_or("-"),
                key.team_id.as_deref().unwrap_or("-"),
                key.is_enterprise_install
            );
            if !self.state.lock(&lock, &self.holder, REFRESH_LOCK_TTL).await {
                round.skipped += 1;
                continue;
            }
            // Under the lock, as it is now: another replica may have just refreshed it.
            let current = match self.store.find(&key).await {
                Ok(Some(current)) if current.key() == key => current,
                Ok(_) => {
                    round.skipped += 1;
                    self.state.unlock(&lock, &self.holder).await;
                    continue;
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot read an installation to refresh");
                    round.failed += 1;
                    self.state.unlock(&lock, &self.holder).await;
                    continue;
                }
            };
            match self.refresh(current, now_unix).await {
                Refreshed::Done => round.refreshed += 1,
                Refreshed::NotDue => round.skipped += 1,
                Refreshed::Failed => round.failed += 1,
            }
            self.state.unlock(&lock, &self.holder).await;
        }
        round
    }

    async fn refresh(&self, current: Installation, now_unix: i64) -> Refreshed {
        let horizon = now_unix + REFRESH_AHEAD.as_secs() as i64;
        let (Some(refresh_token), Some(expires_at)) = (
            current.bot_refresh_token.clone(),
            current.bot_token_expires_at,
        ) else {
            return Refreshed::NotDue;
        };
        if expires_at >= horizon {
            return Refreshed::NotDue;
        }
        let team = current.team_id.as_deref().unwrap_or("-").to_string();
        let answer = match self
            .slack
            .oauth_access(
                &self.settings.client_id,
                &self.settings.client_secret,
                vec![
                    ("grant_type", Some("refresh_token".to_string())),
                    ("refresh_token", Some(refresh_token)),
                ],
            )
            .await
        {
            Ok(answer) => answer,
            Err(error) => {
                tracing::warn!(team_id = %team, %error, expires_in_s = expires_at - now_unix, "cannot refresh a bot token; trying again next round");
                return Refreshed::Failed;
            }
        };
        let text = |key: &str| answer.get(key).and_then(Value::as_str).map(str::to_string);
        let (Some(token), Some(refresh), Some(expires_in)) = (
            text("access_token"),
            text("refresh_token"),
            answer.get("expires_in").and_then(Value::as_i64),
        ) else {
            tracing::warn!(team_id = %team, "Slack's refresh answer lacks a token, refresh token or expiry");
            return Refreshed::Failed;
        };
        let refreshed = Installation {
            bot_token: token,
            bot_refresh_token: Some(refresh),
            bot_token_expires_at: Some(now_unix + expires_in),
            ..current
        };
        match self.store.save(&refreshed).await {
            Ok(()) => {
                tracing::info!(team_id = %team, "refreshed a bot token");
                Refreshed::Done
            }
            Err(error) => {
                // The old refresh token is spent: this one must not be lost quietly.
                tracing::error!(team_id = %team, %error, "a refreshed bot token could not be stored; the workspace needs reinstalling if this persists");
                Refreshed::Failed
            }
        }
    }

    /// Refreshes due tokens every [`REFRESH_EVERY`], in a task of its own.
    pub fn spawn(self: Arc<Self>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(REFRESH_EVERY);
            loop {
                tick.tick().await;
                let now = crate::calendar::unix_now();
                let round = self.refresh_due(now).await;
                if round != Round::default() {
                    tracing::debug!(?round, "token rotation round");
                }
            }
        })
    }
}

enum Refreshed {
    Done,
    NotDue,
    Failed,
}

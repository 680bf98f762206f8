//! The bot's side of Slack's Web API, made safe to lean on: every call bounded by a
//! timeout, a 429 answered by waiting `Retry-After` and trying once more (and every
//! replica holding that method back meanwhile), a reply Slack could not be reached for
//! tried again with back-off within the client's window ([`SlackApi::with_retries`]),
//! posts paced to one a second per channel over all replicas (both through
//! [`crate::state::BotState`]), blocks Slack rejects replaced by the plain mrkdwn text,
//! and unfurling always off. Every call's outcome is counted and told to the Slack
//! part's health (`/readyz`). Modals (`views.open`) are sent as the JSON the renderer
//! checked. Why a call failed is in `errors.rs`; the reads (threads, permalinks, files)
//! in `read.rs`. Built on slack-morphism's client; the API URL is configurable so
//! tests point it at a fake server.

use super::inbound::BotIdentity;
use crate::health::SlackOutcome;
use crate::metrics::Metrics;
use crate::render::blocks::BlockMessage;
use crate::reply::innermost;
use crate::state::{BotState, MemoryState};
use serde::Serialize;
use serde_json::Value;
use slack_morphism::errors::SlackClientError;
use slack_morphism::prelude::*;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

mod errors;
mod read;

pub use read::SlackFile;

use errors::{never_sent, REFUSED_TOKEN};
pub use errors::{CallError, SetupError};

/// The slack-morphism client over hyper, http or https.
pub type HyperClient = SlackClient<SlackClientHyperConnector<HttpsConnector>>;
type HttpsConnector =
    hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>;

/// Slack's Web API, as the default API URL.
pub const SLACK_API_URL: &str = "https://slack.com/api";

/// Time between two posts to one channel (Slack allows about one a second).
pub const CHANNEL_PACE: Duration = Duration::from_secs(1);

/// Pages of 200 replies read from one thread at most (2,000 messages): a longer
/// thread's answer is looked for among its first 2,000 messages.
pub const MAX_THREAD_PAGES: usize = 10;

/// The longest `Retry-After` the bot waits for before its one retry.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// A message to post: the Block Kit version and the plain mrkdwn kept for when Slack
/// refuses the blocks.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// Blocks and notification text.
    pub blocks: BlockMessage,
    /// The whole report as mrkdwn.
    pub mrkdwn: String,
    /// Blocks to send instead when Slack refuses `blocks` with `invalid_blocks` (the
    /// same report with ordinary buttons for its feedback), tried before the mrkdwn.
    pub alternate: Option<Vec<Value>>,
}

impl Outgoing {
    /// A message of `blocks`, and `mrkdwn` for when Slack refuses them.
    pub fn new(blocks: BlockMessage, mrkdwn: String) -> Outgoing {
        Outgoing {
            blocks,
            mrkdwn,
            alternate: None,
        }
    }
}

/// Which form of an [`Outgoing`] Slack took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// Its blocks.
    Blocks,
    /// Its alternate blocks: Slack refused the first ones.
    Alternate,
    /// The plain mrkdwn: Slack refused the blocks.
    Plain,
}

/// A user as `users.info` describes them: what sourcebot needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlackUser {
    /// `U…` or `W…`.
    pub id: String,
    /// A bot user (an app's, or a legacy bot).
    pub is_bot: bool,
    /// The bot id (`B…`) its messages carry (`profile.bot_id`), for bot users.
    pub bot_id: Option<String>,
    /// The name people see (display name, else real name, else user name): untrusted.
    pub name: String,
    /// A workspace admin.
    pub is_admin: bool,
    /// A workspace owner.
    pub is_owner: bool,
    /// The primary owner.
    pub is_primary_owner: bool,
    /// Deactivated.
    pub deleted: bool,
}

impl SlackUser {
    /// Reads `users.info`'s `user` object leniently: a missing flag is false.
    pub fn from_json(user: &Value) -> Option<SlackUser> {
        let text = |pointer: &str| {
            user.pointer(pointer)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let flag = |key: &str| user.get(key).and_then(Value::as_bool).unwrap_or(false);
        let id = text("/id")?;
        Some(SlackUser {
            is_bot: flag("is_bot"),
            bot_id: text("/profile/bot_id"),
            name: text("/profile/display_name")
                .or_else(|| text("/profile/real_name"))
                .or_else(|| text("/real_name"))
                .or_else(|| text("/name"))
                .unwrap_or_else(|| id.clone()),
            is_admin: flag("is_admin"),
            is_owner: flag("is_owner"),
            is_primary_owner: flag("is_primary_owner"),
            deleted: flag("deleted"),
            id,
        })
    }

    /// Whether they administer the workspace (admin, owner or primary owner).
    pub fn administers(&self) -> bool {
        !self.deleted && (self.is_admin || self.is_owner || self.is_primary_owner)
    }
}

/// The Web API with the bot token, timeouts, retry and pacing.
pub struct SlackApi {
    client: Arc<HyperClient>,
    token: SlackApiToken,
    call_timeout: Duration,
    /// The Web API's base URL, for the calls made without slack-morphism.
    api_url: String,
    /// A plain HTTP client for them (`oauth.v2.access`).
    http: reqwest::Client,
    /// Post slots and Slack's back-offs: in this process, or shared by replicas.
    limits: Arc<dyn BotState>,
    metrics: Option<Arc<Metrics>>,
    /// The workspace whose token this is (`T…`), for its health in `/readyz`.
    workspace: Option<Arc<str>>,
    /// How long a reply Slack could not be reached for is tried again (0: never).
    retry_for: Duration,
}

/// The longest wait between two tries of a reply Slack could not be reached for.
pub const MAX_RETRY_STEP: Duration = Duration::from_secs(15);

/// The methods that deliver a reply: tried again, within the client's retry window,
/// when Slack could not be reached.
const REPLY_METHODS: [&str; 7] = [
    "chat.postMessage",
    "chat.postEphemeral",
    "chat.update",
    "chat.delete",
    "views.publish",
    "views.update",
    "response_url",
];

/// Of those, the ones that can be sent twice without a second message: tried again
/// after a timeout too (a post that timed out may have arrived, and Slack has no
/// idempotency key to make a second one safe).
const IDEMPOTENT_REPLY_METHODS: [&str; 4] = [
    "chat.update",
    "chat.delete",
    "views.publish",
    "views.update",
];

/// The body of a post to a `response_url`.
#[derive(Debug, Clone, Serialize)]
pub struct ResponseMessage {
    /// `ephemeral` or `in_channel`.
    pub response_type: &'static str,
    /// Notification text (or the whole message without blocks).
    pub text: String,
    /// Block Kit blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<serde_json::Value>>,
    /// Replace the message the response URL belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace_original: Option<bool>,
    /// Never preview the links.
    pub unfurl_links: bool,
    /// Never preview media.
    pub unfurl_media: bool,
}

impl ResponseMessage {
    /// Text only the person who asked sees.
    pub fn ephemeral(text: &str) -> ResponseMessage {
        ResponseMessage {
            response_type: "ephemeral",
            text: text.to_string(),
            blocks: None,
            replace_original: None,
            unfurl_links: false,
            unfurl_media: false,
        }
    }

    /// A Block Kit message, `ephemeral` or `in_channel`.
    pub fn with_blocks(
        response_type: &'static str,
        text: &str,
        blocks: Vec<serde_json::Value>,
    ) -> ResponseMessage {
        ResponseMessage {
            response_type,
            blocks: Some(blocks),
            ..ResponseMessage::ephemeral(text)
        }
    }
}

impl SlackApi {
    /// A client for the API at `api_url` (Slack's, or a test server's), http or https.
    pub fn new(
        api_url: &str,
        bot_token: &str,
        call_timeout: Duration,
    ) -> Result<SlackApi, SetupError> {
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_native_roots()
            .map_err(|e| SetupError::Certificates(e.to_string()))?
            .https_or_http()
            .enable_http1()
            .build();
        let connector = SlackClientHyperConnector::from(https)
            .with_slack_api_url(api_url.trim_end_matches('/'));
        Ok(SlackApi {
            client: Arc::new(SlackClient::new(connector)),
            token: SlackApiToken::new(bot_token.to_string().into()),
            call_timeout,
            api_url: api_url.trim_end_matches('/').to_string(),
            http: reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| SetupError::Certificates(e.to_string()))?,
            limits: Arc::new(MemoryState::new()),
            metrics: None,
            workspace: None,
            retry_for: Duration::ZERO,
        })
    }

    /// Replies (posts, updates, deletions, views published, `response_url` posts) that
    /// fail because Slack cannot be reached (a refused connection, 502, 503, 504) are
    /// tried again after 1, 2, 4… s (at most [`MAX_RETRY_STEP`] apart) for up to
    /// `window`; then the error is returned and counted as lost. Zero: no retries.
    pub fn with_retries(mut self, window: Duration) -> SlackApi {
        self.retry_for = window;
        self
    }

    /// This client, replying once (no retries): for callers that wait on the answer,
    /// such as the answer API, whose client can try again itself.
    pub fn without_retries(&self) -> SlackApi {
        self.with_token_of(self.token.clone())
            .with_retries(Duration::ZERO)
    }

    /// Reports this client's calls under `workspace` (`T…`) in `/readyz`.
    pub fn for_workspace(mut self, workspace: &str) -> SlackApi {
        self.workspace = Some(Arc::from(workspace));
        self
    }

    /// Takes post slots and Slack's back-offs from `state`, so that replicas sharing it
    /// pace their posts together and all hold back when Slack asks one of them to.
    pub fn with_state(mut self, state: Arc<dyn BotState>) -> SlackApi {
        self.limits = state;
        self
    }

    /// The same client (connections, state, metrics) acting with `bot_token`: one
    /// workspace's, when the app is installed in many.
    pub fn with_token(&self, bot_token: &str) -> SlackApi {
        self.with_token_of(SlackApiToken::new(bot_token.to_string().into()))
    }

    fn with_token_of(&self, token: SlackApiToken) -> SlackApi {
        SlackApi {
            client: self.client.clone(),
            token,
            call_timeout: self.call_timeout,
            api_url: self.api_url.clone(),
            http: self.http.clone(),
            limits: self.limits.clone(),
            metrics: self.metrics.clone(),
            workspace: self.workspace.clone(),
            retry_for: self.retry_for,
        }
    }

    /// Counts every call, by method and outcome, in `metrics`.
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> SlackApi {
        self.metrics = Some(metrics);
        self
    }

    /// The metrics this client counts into, when it has them.
    pub fn metrics(&self) -> Option<&Arc<Metrics>> {
        self.metrics.as_ref()
    }

    /// The slack-morphism client (Socket Mode needs it).
    pub fn client(&self) -> Arc<HyperClient> {
        self.client.clone()
    }

    /// Runs one call with the timeout; a 429 is waited out (up to [`MAX_RETRY_WAIT`])
    /// and tried once more; a reply Slack could not be reached for is tried again
    /// within the retry window ([`SlackApi::with_retries`]). The outcome is counted
    /// and told to the Slack part's health.
    async fn call<T, F, Fut>(&self, method: &'static str, attempt: F) -> Result<T, CallError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = ClientResult<T>>,
    {
        let started = std::time::Instant::now();
        let mut wait = Duration::from_secs(1);
        let mut result = self.call_with_retry(method, &attempt).await;
        while let Err(error) = &result {
            if !self.retries(method, error) || started.elapsed() + wait > self.retry_for {
                break;
            }
            tracing::info!(
                method,
                %error,
                retry_in_ms = wait.as_millis() as u64,
                "Slack cannot be reached: trying the reply again"
            );
            if let Some(metrics) = &self.metrics {
                metrics.slack_retry(method);
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(MAX_RETRY_STEP);
            result = self.call_with_retry(method, &attempt).await;
        }
        self.observe(method, &result);
        result
    }

    /// Whether `error` of `method` is worth another try: a reply that did not reach
    /// Slack (or, for a reply that may be sent twice, timed out), with a window set.
    fn retries(&self, method: &str, error: &CallError) -> bool {
        !self.retry_for.is_zero()
            && REPLY_METHODS.contains(&method)
            && match error {
                CallError::Unreachable { .. } => true,
                CallError::Timeout { .. } => IDEMPOTENT_REPLY_METHODS.contains(&method),
                _ => false,
            }
    }

    /// Counts the call's outcome, tells the Slack part's health, and counts a reply
    /// that could not be delivered for want of Slack as lost.
    fn observe<T>(&self, method: &'static str, result: &Result<T, CallError>) {
        let Some(metrics) = &self.metrics else { return };
        let outcome = match result {
            Ok(_) => "ok",
            Err(error) => error.outcome(),
        };
        metrics.slack_call(method, outcome);
        let workspace = self.workspace.as_deref();
        let health = metrics.health();
        match result {
            Ok(_) => health.slack_call(workspace, SlackOutcome::Reached),
            Err(error @ (CallError::Unreachable { .. } | CallError::Timeout { .. })) => {
                // A post that timed out may have arrived: not counted as lost.
                let lost = REPLY_METHODS.contains(&method)
                    && (matches!(error, CallError::Unreachable { .. })
                        || IDEMPOTENT_REPLY_METHODS.contains(&method));
                if lost {
                    metrics.reply_lost(method);
                }
                let error = error.to_string();
                health.slack_call(workspace, SlackOutcome::Unreachable(&error));
            }
            Err(CallError::Slack { code, .. }) if REFUSED_TOKEN.contains(&code.as_str()) => {
                let error = format!("Slack refused the token ({code})");
                health.slack_call(workspace, SlackOutcome::Refused(&error));
            }
            Err(_) => health.slack_call(workspace, SlackOutcome::Reached),
        }
    }

    async fn call_with_retry<T, F, Fut>(
        &self,
        method: &'static str,
        attempt: &F,
    ) -> Result<T, CallError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = ClientResult<T>>,
    {
        let held = self.limits.held_back(method).await.min(MAX_RETRY_WAIT);
        if !held.is_zero() {
            tracing::debug!(
                method,
                wait_ms = held.as_millis() as u64,
                "holding back: Slack asked for a pause"
            );
            tokio::time::sleep(held).await;
        }
        match self.once(method, attempt()).await {
            Err(Retry(wait)) => {
                tracing::warn!(
                    method,
                    wait_ms = wait.as_millis() as u64,
                    "Slack rate limit: waiting, then one retry"
                );
                self.limits.hold_back(method, wait).await;
                tokio::time::sleep(wait).await;
                match self.once(method, attempt()).await {
                    Err(Retry(_)) => Err(CallError::RateLimited { method }),
                    Ok(result) => result,
                }
            }
            Ok(result) => result,
        }
    }

    async fn once<T>(
        &self,
        method: &'static str,
        call: impl Future<Output = ClientResult<T>>,
    ) -> Result<Result<T, CallError>, Retry> {
        match tokio::time::timeout(self.call_timeout, call).await {
            Err(_) => Ok(Err(CallError::Timeout {
                method,
                seconds: self.call_timeout.as_secs(),
            })),
            Ok(Ok(value)) => Ok(Ok(value)),
            Ok(Err(SlackClientError::RateLimitError(limit))) => Err(Retry(
                limit
                    .retry_after
                    .unwrap_or(Duration::from_secs(1))
                    .min(MAX_RETRY_WAIT),
            )),
            Ok(Err(SlackClientError::ApiError(api))) => Ok(Err(CallError::Slack {
                method,
                code: api.code,
            })),
            Ok(Err(SlackClientError::HttpError(http)))
                if matches!(http.status_code.as_u16(), 502..=504) =>
            {
                Ok(Err(CallError::Unreachable {
                    method,
                    detail: format!("Slack answered HTTP {}", http.status_code.as_u16()),
                }))
            }
            Ok(Err(SlackClientError::HttpProtocolError(protocol))) if never_sent(&protocol) => {
                Ok(Err(CallError::Unreachable {
                    method,
                    detail: protocol
                        .cause
                        .as_ref()
                        .map(|cause| innermost(cause.as_ref()))
                        .unwrap_or_else(|| "cannot connect".to_string()),
                }))
            }
            Ok(Err(other)) => Ok(Err(CallError::Transport {
                method,
                detail: other.to_string(),
            })),
        }
    }

    /// `auth.test`: who the bot is.
    pub async fn identity(&self) -> Result<BotIdentity, CallError> {
        Ok(self.sign_in().await?.0)
    }

    /// `auth.test`: who the bot is, and the workspace (`team_id`) the token is for.
    pub async fn sign_in(&self) -> Result<(BotIdentity, String), CallError> {
        let session = self.client.open_session(&self.token);
        let answer = self.call("auth.test", || session.auth_test()).await?;
        Ok((
            BotIdentity {
                user_id: answer.user_id.0,
                bot_id: answer.bot_id.map(|b| b.0),
            },
            answer.team_id.0,
        ))
    }

    /// Posts `message` in `channel` (in the thread of `thread_ts`), at most one post a
    /// second per channel. If Slack rejects the blocks, the plain mrkdwn is posted
    /// instead. Returns the new message's `ts`.
    pub async fn post(
        &self,
        channel: &str,
        thread_ts: Option<&str>,
        message: &Outgoing,
    ) -> Result<String, CallError> {
        self.post_report(channel, thread_ts, message)
            .await
            .map(|(ts, _)| ts)
    }

    /// [`SlackApi::post`], saying which form Slack took.
    pub async fn post_report(
        &self,
        channel: &str,
        thread_ts: Option<&str>,
        message: &Outgoing,
    ) -> Result<(String, Sent), CallError> {
        let plain = SlackMessageContent::new().with_text(message.mrkdwn.clone());
        self.paced(
            channel,
            blocks_or_plain(channel, message, plain, |content| {
                self.post_content(channel, thread_ts, content)
            }),
        )
        .await
    }

    /// Replaces the bot's message `ts` in `channel` with `message` (`chat.update`), paced
    /// like posts; the plain mrkdwn when Slack refuses the blocks.
    pub async fn update(
        &self,
        channel: &str,
        ts: &str,
        message: &Outgoing,
    ) -> Result<(), CallError> {
        self.update_report(channel, ts, message).await.map(|_| ())
    }

    /// [`SlackApi::update`], saying which form Slack took.
    pub async fn update_report(
        &self,
        channel: &str,
        ts: &str,
        message: &Outgoing,
    ) -> Result<Sent, CallError> {
        // Without blocks the old ones would stay: clear them.
        let plain = SlackMessageContent::new()
            .with_text(message.mrkdwn.clone())
            .with_blocks(Vec::new());
        self.paced(
            channel,
            blocks_or_plain(channel, message, plain, |content| {
                self.update_content(channel, ts, content)
            }),
        )
        .await
        .map(|((), sent)| sent)
    }

    async fn update_content(
        &self,
        channel: &str,
        ts: &str,
        content: SlackMessageContent,
    ) -> Result<(), CallError> {
        let request = SlackApiChatUpdateRequest::new(
            channel.to_string().into(),
            content,
            ts.to_string().into(),
        );
        let session = self.client.open_session(&self.token);
        self.call("chat.update", || session.chat_update(&request))
            .await
            .map(|_| ())
    }

    /// Deletes the bot's message `ts` in `channel` (`chat.delete`). A message that is
    /// already gone is not an error.
    pub async fn delete(&self, channel: &str, ts: &str) -> Result<(), CallError> {
        let request =
            SlackApiChatDeleteRequest::new(channel.to_string().into(), ts.to_string().into());
        let session = self.client.open_session(&self.token);
        match self
            .call("chat.delete", || session.chat_delete(&request))
            .await
        {
            Err(error) if error.code() == Some("message_not_found") => Ok(()),
            other => other.map(|_| ()),
        }
    }

    /// Posts `text` (mrkdwn, already made safe) in `channel` (in the thread of
    /// `thread_ts`), paced like [`SlackApi::post`]. Returns the new message's `ts`.
    pub async fn post_text(
        &self,
        channel: &str,
        thread_ts: Option<&str>,
        text: &str,
    ) -> Result<String, CallError> {
        self.paced(channel, async {
            let content = SlackMessageContent::new().with_text(text.to_string());
            self.post_content(channel, thread_ts, content).await
        })
        .await
    }

    /// Runs `post` in the next free slot of `channel`: posts to one channel, from this
    /// replica or any other sharing its state, go at least [`CHANNEL_PACE`] apart.
    async fn paced<T>(&self, channel: &str, post: impl Future<Output = T>) -> T {
        let wait = self.limits.next_post_slot(channel, CHANNEL_PACE).await;
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        post.await
    }

    async fn post_content(
        &self,
        channel: &str,
        thread_ts: Option<&str>,
        content: SlackMessageContent,
    ) -> Result<String, CallError> {
        let request = SlackApiChatPostMessageRequest::new(channel.to_string().into(), content)
            .opt_thread_ts(thread_ts.map(|t| t.to_string().into()))
            .with_unfurl_links(false)
            .with_unfurl_media(false);
        let session = self.client.open_session(&self.token);
        let answer = self
            .call("chat.postMessage", || session.chat_post_message(&request))
            .await?;
        Ok(answer.ts.0)
    }

    /// `chat.postEphemeral` of a report: only `user` sees `message`, in the thread of
    /// `thread_ts`; its alternate blocks, then its mrkdwn, when Slack refuses the
    /// blocks. Paced like posts.
    pub async fn post_ephemeral_report(
        &self,
        channel: &str,
        user: &str,
        thread_ts: Option<&str>,
        message: &Outgoing,
    ) -> Result<Sent, CallError> {
        let plain = SlackMessageContent::new().with_text(message.mrkdwn.clone());
        let send = |content: SlackMessageContent| async move {
            let request = SlackApiChatPostEphemeralRequest::new(
                channel.to_string().into(),
                user.to_string().into(),
                content,
            )
            .opt_thread_ts(thread_ts.map(|t| t.to_string().into()));
            let session = self.client.open_session(&self.token);
            self.call("chat.postEphemeral", || {
                session.chat_post_ephemeral(&request)
            })
            .await
            .map(|_| ())
        };
        self.paced(channel, blocks_or_plain(channel, message, plain, send))
            .await
            .map(|((), sent)| sent)
    }

    /// `chat.postEphemeral`: only `user` sees `text` (mrkdwn).
    pub async fn post_ephemeral(
        &self,
        channel: &str,
        user: &str,
        text: &str,
    ) -> Result<(), CallError> {
        let request = SlackApiChatPostEphemeralRequest::new(
            channel.to_string().into(),
            user.to_string().into(),
            SlackMessageContent::new().with_text(text.to_string()),
        );
        let session = self.client.open_session(&self.token);
        self.call("chat.postEphemeral", || {
            session.chat_post_ephemeral(&request)
        })
        .await
        .map(|_| ())
    }

    /// `views.publish`: shows `view` (a Home tab, as JSON) to `user_id`. Sent and read
    /// as [`SlackApi::open_view`] does.
    pub async fn publish_view(&self, user_id: &str, view: &Value) -> Result<(), CallError> {
        let request = serde_json::json!({"user_id": user_id, "view": view});
        let session = self.client.open_session(&self.token);
        self.call("views.publish", || {
            session
                .http_session_api
                .http_post::<_, serde::de::IgnoredAny>("views.publish", &request, None)
        })
        .await
        .map(|_| ())
    }

    /// `users.info`: who `user` is (a bot and its bot id; an admin or owner). Slack's
    /// `user_not_found` comes back as [`CallError::Slack`]; a reply without a readable
    /// user as [`CallError::Transport`].
    pub async fn user_info(&self, user: &str) -> Result<SlackUser, CallError> {
        let session = self.client.open_session(&self.token);
        let params = vec![("user", Some(user.to_string()))];
        let reply: RawUser = self
            .call("users.info", || {
                session
                    .http_session_api
                    .http_get("users.info", &params, None)
            })
            .await?;
        SlackUser::from_json(&reply.user).ok_or(CallError::Transport {
            method: "users.info",
            detail: "the reply has no user id".to_string(),
        })
    }

    /// `views.open`: shows `view` (a modal, as JSON) to the person whose click gave
    /// `trigger_id` (Slack takes it for 3 seconds after the click). The view is sent as
    /// the JSON it is — what the renderer built and checked, not a round trip through
    /// slack-morphism's models — and only `ok` and `error` are read from the answer
    /// (slack-morphism's `views_open` would refuse an answer whose view it cannot model
    /// after the modal opened). Same timeout, retry and errors as every call.
    pub async fn open_view(&self, trigger_id: &str, view: &Value) -> Result<(), CallError> {
        let request = serde_json::json!({"trigger_id": trigger_id, "view": view});
        let session = self.client.open_session(&self.token);
        self.call("views.open", || {
            session
                .http_session_api
                .http_post::<_, serde::de::IgnoredAny>("views.open", &request, None)
        })
        .await
        .map(|_| ())
    }

    /// `oauth.v2.access`: exchanges an install's `code` (with `redirect_uri`), or a
    /// refresh token (`grant_type=refresh_token`), for tokens. A form POST with the
    /// app's client id and secret as HTTP Basic auth, so no secret or token is ever in
    /// a URL. Slack's answer is returned as it came (every field: `enterprise`,
    /// `is_enterprise_install`, `refresh_token`, `expires_in`…). Needs no bot token.
    pub async fn oauth_access(
        &self,
        client_id: &str,
        client_secret: &str,
        params: Vec<(&'static str, Option<String>)>,
    ) -> Result<Value, CallError> {
        const METHOD: &str = "oauth.v2.access";
        let form: Vec<(&str, String)> = params
            .into_iter()
            .filter_map(|(key, value)| value.map(|v| (key, v)))
            .collect();
        let request = self
            .http
            .post(format!("{}/{METHOD}", self.api_url))
            .basic_auth(client_id, Some(client_secret))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(serde_urlencoded::to_string(&form).unwrap_or_default())
            .send();
        let result = match tokio::time::timeout(self.call_timeout, async {
            let response = request.await?;
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            let body: Vec<u8> = response.bytes().await?.to_vec();
            Ok::<_, reqwest::Error>((status, retry_after, body))
        })
        .await
        {
            Err(_) => Err(CallError::Timeout {
                method: METHOD,
                seconds: self.call_timeout.as_secs(),
            }),
            Ok(Err(error)) if error.is_connect() => Err(CallError::Unreachable {
                method: METHOD,
                detail: error.without_url().to_string(),
            }),
            Ok(Err(error)) => Err(CallError::Transport {
                method: METHOD,
                detail: error.without_url().to_string(),
            }),
            Ok(Ok((429, ..))) => Err(CallError::RateLimited { method: METHOD }),
            Ok(Ok((status, _, body))) => match serde_json::from_slice::<Value>(&body) {
                Ok(answer) if answer.get("ok").and_then(Value::as_bool) == Some(true) => Ok(answer),
                Ok(answer) => Err(CallError::Slack {
                    method: METHOD,
                    code: answer
                        .get("error")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown_error")
                        .to_string(),
                }),
                Err(_) => Err(CallError::Transport {
                    method: METHOD,
                    detail: format!("HTTP {status} without a JSON answer"),
                }),
            },
        };
        self.observe(METHOD, &result);
        result
    }

    /// Posts `message` (a [`ResponseMessage`], or one kept as JSON) to a `response_url`
    /// from a command or an interaction.
    pub async fn respond<M: Serialize + Send + Sync>(
        &self,
        response_url: &str,
        message: &M,
    ) -> Result<(), CallError> {
        let url = url::Url::parse(response_url).map_err(|e| CallError::Transport {
            method: "response_url",
            detail: format!("not a URL: {e}"),
        })?;
        let span = tracing::debug_span!("response_url");
        let connector = self.client.http_api.connector.clone();
        self.call("response_url", || {
            let context = SlackClientApiCallContext {
                rate_control_params: None,
                token: None,
                tracing_span: &span,
                is_sensitive_url: true,
            };
            connector.http_post_uri::<_, serde_json::Value>(url.clone(), message, context)
        })
        .await
        .map(|_| ())
    }
}

/// Sends `message`'s blocks with `send`; when Slack refuses them (`invalid_blocks`,
/// `msg_blocks_too_long`), sends `plain` instead.
async fn blocks_or_plain<T, F, Fut>(
    channel: &str,
    message: &Outgoing,
    plain: SlackMessageContent,
    send: F,
) -> Result<(T, Sent), CallError>
where
    F: Fn(SlackMessageContent) -> Fut,
    Fut: Future<Output = Result<T, CallError>>,
{
    let refused = |result: &Result<T, CallError>| {
        matches!(result, Err(CallError::Slack { code, .. })
            if code == "invalid_blocks" || code == "msg_blocks_too_long")
    };
    let first = send(block_content(&message.blocks.text, &message.blocks.blocks)).await;
    if !refused(&first) {
        return first.map(|done| (done, Sent::Blocks));
    }
    if let Some(alternate) = &message.alternate {
        tracing::warn!(
            channel,
            "Slack refused the blocks: sending the alternate blocks"
        );
        let second = send(block_content(&message.blocks.text, alternate)).await;
        if !refused(&second) {
            return second.map(|done| (done, Sent::Alternate));
        }
    }
    tracing::warn!(channel, "Slack refused the blocks: sending the plain text");
    send(plain).await.map(|done| (done, Sent::Plain))
}

/// Blocks and notification text as slack-morphism content; blocks it cannot model are
/// sent as the JSON they are.
fn block_content(text: &str, blocks: &[Value]) -> SlackMessageContent {
    let blocks: Option<Vec<SlackBlock>> = blocks
        .iter()
        .map(|b| serde_json::from_value(b.clone()).ok())
        .collect();
    SlackMessageContent::new()
        .with_text(text.to_string())
        .opt_blocks(blocks)
}

/// `users.info`'s reply: the user object.
#[derive(serde::Deserialize)]
struct RawUser {
    #[serde(default)]
    user: Value,
}

/// A 429 to wait out.
struct Retry(Duration);

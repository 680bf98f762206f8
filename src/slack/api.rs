//! The bot's side of Slack's Web API, made safe to lean on: every call bounded by a
//! timeout, a 429 answered by waiting `Retry-After` and trying once more, posts paced
//! to one a second per channel, blocks Slack rejects replaced by the plain mrkdwn text,
//! and unfurling always off. Built on slack-morphism's client; the API URL is
//! configurable so tests point it at a fake server.

use super::inbound::{BotIdentity, Permalink};
use crate::metrics::Metrics;
use crate::render::blocks::BlockMessage;
use dashmap::DashMap;
use serde::Serialize;
use slack_morphism::errors::SlackClientError;
use slack_morphism::prelude::*;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

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

/// Why a Slack call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// Slack answered `ok: false` with this error code.
    #[error("Slack refused {method}: {code}")]
    Slack {
        /// The API method.
        method: &'static str,
        /// Slack's error code (`not_in_channel`, `invalid_blocks`…).
        code: String,
    },
    /// Still rate limited after the one retry.
    #[error("Slack rate-limited {method} twice")]
    RateLimited {
        /// The API method.
        method: &'static str,
    },
    /// No answer within the call timeout.
    #[error("Slack did not answer {method} within {seconds} s")]
    Timeout {
        /// The API method.
        method: &'static str,
        /// The timeout.
        seconds: u64,
    },
    /// The request failed on the way (network, protocol).
    #[error("calling Slack's {method} failed: {detail}")]
    Transport {
        /// The API method.
        method: &'static str,
        /// What went wrong.
        detail: String,
    },
}

impl CallError {
    /// Slack's error code, when Slack gave one.
    pub fn code(&self) -> Option<&str> {
        match self {
            CallError::Slack { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// Why the client could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The system's root certificates could not be loaded.
    #[error("cannot load the system's root certificates: {0}")]
    Certificates(String),
}

/// A message to post: the Block Kit version and the plain mrkdwn kept for when Slack
/// refuses the blocks.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// Blocks and notification text.
    pub blocks: BlockMessage,
    /// The whole report as mrkdwn.
    pub mrkdwn: String,
}

/// The Web API with the bot token, timeouts, retry and pacing.
pub struct SlackApi {
    client: Arc<HyperClient>,
    token: SlackApiToken,
    call_timeout: Duration,
    last_post: DashMap<String, Arc<Mutex<Option<Instant>>>>,
    metrics: Option<Arc<Metrics>>,
}

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
            last_post: DashMap::new(),
            metrics: None,
        })
    }

    /// Counts every call, by method and outcome, in `metrics`.
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> SlackApi {
        self.metrics = Some(metrics);
        self
    }

    /// The slack-morphism client (Socket Mode needs it).
    pub fn client(&self) -> Arc<HyperClient> {
        self.client.clone()
    }

    /// Runs one call with the timeout; a 429 is waited out (up to [`MAX_RETRY_WAIT`])
    /// and tried once more.
    async fn call<T, F, Fut>(&self, method: &'static str, attempt: F) -> Result<T, CallError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = ClientResult<T>>,
    {
        let result = self.call_with_retry(method, attempt).await;
        if let Some(metrics) = &self.metrics {
            let outcome = match &result {
                Ok(_) => "ok",
                Err(CallError::Slack { .. }) => "slack_error",
                Err(CallError::RateLimited { .. }) => "rate_limited",
                Err(CallError::Timeout { .. }) => "timeout",
                Err(CallError::Transport { .. }) => "transport",
            };
            metrics.slack_call(method, outcome);
        }
        result
    }

    async fn call_with_retry<T, F, Fut>(
        &self,
        method: &'static str,
        attempt: F,
    ) -> Result<T, CallError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = ClientResult<T>>,
    {
        match self.once(method, attempt()).await {
            Err(Retry(wait)) => {
                tracing::warn!(
                    method,
                    wait_ms = wait.as_millis() as u64,
                    "Slack rate limit: waiting, then one retry"
                );
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
            Ok(Err(other)) => Ok(Err(CallError::Transport {
                method,
                detail: other.to_string(),
            })),
        }
    }

    /// `auth.test`: who the bot is.
    pub async fn identity(&self) -> Result<BotIdentity, CallError> {
        let session = self.client.open_session(&self.token);
        let answer = self.call("auth.test", || session.auth_test()).await?;
        Ok(BotIdentity {
            user_id: answer.user_id.0,
            bot_id: answer.bot_id.map(|b| b.0),
        })
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
        self.paced(channel, async {
            let blocks: Option<Vec<SlackBlock>> = message
                .blocks
                .blocks
                .iter()
                .map(|b| serde_json::from_value(b.clone()).ok())
                .collect();
            let with_blocks = SlackMessageContent::new()
                .with_text(message.blocks.text.clone())
                .opt_blocks(blocks);
            match self.post_content(channel, thread_ts, with_blocks).await {
                Err(CallError::Slack { code, .. })
                    if code == "invalid_blocks" || code == "msg_blocks_too_long" =>
                {
                    tracing::warn!(
                        channel,
                        code,
                        "Slack refused the blocks: posting the plain text"
                    );
                    let plain = SlackMessageContent::new().with_text(message.mrkdwn.clone());
                    self.post_content(channel, thread_ts, plain).await
                }
                other => other,
            }
        })
        .await
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

    /// Runs `post` at least [`CHANNEL_PACE`] after the previous post in `channel`
    /// ended; posts to one channel go one at a time.
    async fn paced<T>(&self, channel: &str, post: impl Future<Output = T>) -> T {
        let pace = self
            .last_post
            .entry(channel.to_string())
            .or_default()
            .clone();
        let mut last = pace.lock().await;
        if let Some(at) = *last {
            let next = at + CHANNEL_PACE;
            tokio::time::sleep_until(next.into()).await;
        }
        let result = post.await;
        *last = Some(Instant::now());
        drop(last);
        self.forget_idle_channels();
        result
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

    /// Pacing entries of channels not posted to for a minute are dropped once the table
    /// grows, so it stays as small as the channels in use.
    fn forget_idle_channels(&self) {
        if self.last_post.len() < 1024 {
            return;
        }
        let idle = Duration::from_secs(60);
        self.last_post.retain(|_, pace| match pace.try_lock() {
            Ok(last) => last.is_some_and(|at| at.elapsed() < idle),
            Err(_) => true,
        });
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

    /// Posts `message` to a `response_url` from a command or an interaction.
    pub async fn respond(
        &self,
        response_url: &str,
        message: &ResponseMessage,
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

    /// The messages of a thread, parent first (`conversations.replies`, following the
    /// cursor for at most [`MAX_THREAD_PAGES`] pages of 200).
    pub async fn thread(
        &self,
        channel: &str,
        thread_ts: &str,
    ) -> Result<Vec<SlackHistoryMessage>, CallError> {
        let session = self.client.open_session(&self.token);
        let mut messages = Vec::new();
        let mut cursor: Option<SlackCursorId> = None;
        for _ in 0..MAX_THREAD_PAGES {
            let request = SlackApiConversationsRepliesRequest::new(
                channel.to_string().into(),
                thread_ts.to_string().into(),
            )
            .with_limit(200)
            .opt_cursor(cursor.take());
            let page = self
                .call("conversations.replies", || {
                    session.conversations_replies(&request)
                })
                .await?;
            messages.extend(page.messages);
            cursor = page
                .response_metadata
                .and_then(|m| m.next_cursor)
                .filter(|c| !c.0.is_empty());
            if cursor.is_none() {
                break;
            }
        }
        Ok(messages)
    }

    /// The message a permalink points at, or `None` when Slack has no such message.
    pub async fn message(
        &self,
        link: &Permalink,
    ) -> Result<Option<SlackHistoryMessage>, CallError> {
        let session = self.client.open_session(&self.token);
        let messages = match &link.thread_ts {
            Some(thread_ts) if *thread_ts != link.ts => {
                let request = SlackApiConversationsRepliesRequest::new(
                    link.channel.clone().into(),
                    thread_ts.clone().into(),
                )
                .with_latest(link.ts.clone().into())
                .with_inclusive(true)
                .with_limit(200);
                match self
                    .call("conversations.replies", || {
                        session.conversations_replies(&request)
                    })
                    .await
                {
                    Ok(answer) => answer.messages,
                    Err(e) if e.code() == Some("thread_not_found") => Vec::new(),
                    Err(e) => return Err(e),
                }
            }
            _ => {
                let request = SlackApiConversationsHistoryRequest::new()
                    .with_channel(link.channel.clone().into())
                    .with_latest(link.ts.clone().into())
                    .with_inclusive(true)
                    .with_limit(1);
                self.call("conversations.history", || {
                    session.conversations_history(&request)
                })
                .await?
                .messages
            }
        };
        Ok(messages.into_iter().find(|m| m.origin.ts.0 == link.ts))
    }
}

/// A 429 to wait out.
struct Retry(Duration);

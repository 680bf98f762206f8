//! The Slack bot. Requests arrive over HTTP ([`http`]) or Socket Mode ([`socket`]);
//! [`inbound`] reads each into a [`Job`]; the [`Bot`] acknowledges at once and does the
//! job in a spawned task: it finds the text to check (the thread's answer, the message a
//! link points at, or the text given), runs the pipeline — collect, verify (Slack
//! permalinks through the Web API), render — and posts the sources section where it
//! belongs, through [`api`], which paces, retries and falls back. A delivery Slack
//! retries is done once.

pub mod api;
pub mod http;
pub mod inbound;
pub mod settings;
pub mod socket;

use crate::collect::input::FormatHint;
use crate::config::Config;
use crate::metrics::Metrics;
use crate::model::{SourceKind, Verdict, VerdictClass};
use crate::pipeline::Pipeline;
use crate::render::blocks::BlockMessage;
use crate::verify::{InternalChecker, VerifyError};
use api::{CallError, Outgoing, ResponseMessage, SlackApi};
use dashmap::DashMap;
use futures_util::future::BoxFuture;
use inbound::{BotIdentity, Job, Permalink, Reply, Subject, SHARE_ACTION_ID, USAGE};
pub use settings::{SlackSettings, Transport};
use slack_morphism::prelude::SlackHistoryMessage;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
/// Jobs running or waiting at once; past it new requests are acknowledged and
/// dropped with a warning in the log, so a flood cannot grow memory without bound.
pub const MAX_PENDING_JOBS: usize = 2_000;

/// Why the bot could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The Slack client could not be set up.
    #[error(transparent)]
    Setup(#[from] api::SetupError),
    /// The verifier could not be set up.
    #[error(transparent)]
    Verify(#[from] VerifyError),
    /// `auth.test` failed: the token is wrong or Slack cannot be reached.
    #[error("cannot sign in to Slack (auth.test): {0}")]
    SignIn(CallError),
}

/// The bot: its Slack client, who it is, the pipeline's settings and verifier, and the
/// memory of deliveries already handled.
pub struct Bot {
    api: Arc<SlackApi>,
    identity: BotIdentity,
    watched: HashSet<String>,
    pipeline: Pipeline,
    metrics: Arc<Metrics>,
    seen: TtlSet,
    shareable: DashMap<String, (Instant, ResponseMessage)>,
    next_key: AtomicU64,
    pending: Arc<tokio::sync::Semaphore>,
}

impl Bot {
    /// Signs in (`auth.test`) and builds the pipeline. Slack permalinks among the
    /// sources are checked through the Web API.
    pub async fn start(settings: &SlackSettings, config: Config) -> Result<Arc<Bot>, StartError> {
        Bot::start_with_metrics(settings, config, Metrics::new()).await
    }

    /// [`Bot::start`], counting Slack calls and checked links in `metrics`.
    pub async fn start_with_metrics(
        settings: &SlackSettings,
        config: Config,
        metrics: Arc<Metrics>,
    ) -> Result<Arc<Bot>, StartError> {
        let api = Arc::new(
            SlackApi::new(
                &settings.api_url,
                &settings.bot_token,
                settings.call_timeout,
            )?
            .with_metrics(metrics.clone()),
        );
        let identity = api.identity().await.map_err(StartError::SignIn)?;
        let pipeline = Pipeline::builder()
            .config(config)
            .metrics(metrics.clone())
            .internal_checker(Arc::new(PermalinkChecker { api: api.clone() }))
            .build()?;
        tracing::info!(user_id = %identity.user_id, "signed in to Slack");
        Ok(Arc::new(Bot {
            api,
            identity,
            watched: settings.watch_bot_ids.iter().cloned().collect(),
            pipeline,
            metrics,
            seen: TtlSet::new(DEDUPE_TTL, DEDUPE_MAX),
            shareable: DashMap::new(),
            next_key: AtomicU64::new(1),
            pending: Arc::new(tokio::sync::Semaphore::new(MAX_PENDING_JOBS)),
        }))
    }

    /// The pipeline answers are checked with.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The metrics the bot counts into.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Who the bot is.
    pub fn identity(&self) -> &BotIdentity {
        &self.identity
    }

    /// The Web API client.
    pub fn api(&self) -> &Arc<SlackApi> {
        &self.api
    }

    /// True the first time `delivery_id` is seen within [`DEDUPE_TTL`]: later copies
    /// (Slack's retries) are acknowledged and dropped.
    pub fn first_delivery(&self, delivery_id: &str) -> bool {
        self.seen.insert(delivery_id)
    }

    /// An Events API callback: done once per `event_id` (Slack's retries and Socket
    /// Mode's redeliveries are dropped), in a task of its own.
    pub fn accept_event(
        self: &Arc<Self>,
        callback: &slack_morphism::prelude::SlackPushEventCallback,
    ) {
        if !self.first_delivery(&callback.event_id.0) {
            tracing::debug!(event_id = %callback.event_id.0, "dropped a repeated delivery");
            return;
        }
        if let Some(job) = inbound::event_job(&callback.event, &self.identity, &self.watched) {
            self.spawn(job);
        }
    }

    /// Does `job` in a task of its own; returns at once. When [`MAX_PENDING_JOBS`]
    /// are already running or waiting, the job is dropped and the log says so.
    pub fn spawn(self: &Arc<Self>, job: Job) {
        let Ok(permit) = self.pending.clone().try_acquire_owned() else {
            tracing::warn!(
                limit = MAX_PENDING_JOBS,
                "too many requests in progress: this one is dropped"
            );
            return;
        };
        let bot = self.clone();
        tokio::spawn(async move {
            bot.run(job).await;
            drop(permit);
        });
    }

    /// Does one job to the end: every failure is logged and, where someone asked,
    /// told to them.
    pub async fn run(&self, job: Job) {
        match job {
            Job::Usage { reply } => self.say(&reply, USAGE).await,
            Job::Refuse { reply, why } => self.say(&reply, &why).await,
            Job::Check { subject, reply } => self.check(subject, &reply).await,
            Job::Share { key, response_url } => self.share(&key, &response_url).await,
        }
    }

    async fn check(&self, subject: Subject, reply: &Reply) {
        let text = match self.subject_text(&subject).await {
            Ok(Some(text)) => text,
            Ok(None) => {
                let what = match subject {
                    Subject::ThreadAnswer { .. } => "I found no answer to check in this thread (only my own messages and the mention).",
                    _ => "I could not find that message: it may have been deleted, or I cannot see its channel.",
                };
                return self.say(reply, what).await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot read the message to check");
                return self
                    .say(
                        reply,
                        &format!(
                            "I could not read the message to check: {}.",
                            slack_reason(&error)
                        ),
                    )
                    .await;
            }
        };
        let answer = match self.pipeline.parse(text.as_bytes(), FormatHint::Auto) {
            Ok(answer) => answer,
            Err(error) => {
                return self
                    .say(reply, &format!("I could not read that answer: {error}."))
                    .await
            }
        };
        let report = self.pipeline.check(&answer).await;
        let outgoing = Outgoing {
            blocks: self.pipeline.blocks(&report),
            mrkdwn: self.pipeline.mrkdwn(&report),
        };
        self.deliver(reply, outgoing).await;
    }

    /// The text a subject names, `None` when there is none.
    async fn subject_text(&self, subject: &Subject) -> Result<Option<String>, CallError> {
        match subject {
            Subject::Text(text) => Ok(Some(text.clone())),
            Subject::Message(link) => Ok(self.api.message(link).await?.and_then(message_text)),
            Subject::ThreadAnswer {
                channel,
                thread_ts,
                except_ts,
            } => {
                let messages = self.api.thread(channel, thread_ts).await?;
                Ok(messages
                    .into_iter()
                    .rev()
                    .filter(|m| m.origin.ts.0 != *except_ts && !self.is_own(m))
                    .find_map(message_text))
            }
        }
    }

    fn is_own(&self, message: &SlackHistoryMessage) -> bool {
        let by_user = message
            .sender
            .user
            .as_ref()
            .is_some_and(|u| u.0 == self.identity.user_id);
        let by_bot = match (&message.sender.bot_id, &self.identity.bot_id) {
            (Some(sender), Some(own)) => sender.0 == *own,
            _ => false,
        };
        by_user || by_bot
    }

    /// Posts the report where it belongs; says why when it cannot.
    async fn deliver(&self, reply: &Reply, outgoing: Outgoing) {
        match reply {
            Reply::Thread {
                channel,
                thread_ts,
                user,
                response_url,
            } => match self.api.post(channel, Some(thread_ts), &outgoing).await {
                Ok(_) => {}
                Err(error) => {
                    tracing::warn!(%error, channel, "cannot post the sources");
                    let why = match error.code() {
                        Some("not_in_channel") | Some("channel_not_found") => "I am not in this channel, so I cannot post the sources here. Invite me with `/invite @sourcebot` and ask again.".to_string(),
                        _ => format!("I checked the sources but could not post them: {}.", slack_reason(&error)),
                    };
                    self.tell(channel, user.as_deref(), response_url.as_deref(), &why)
                        .await;
                }
            },
            Reply::Ephemeral { response_url } => {
                let key = self.keep_for_sharing(&outgoing);
                let mut blocks = outgoing.blocks.blocks.clone();
                blocks.push(share_button(&key));
                let message =
                    ResponseMessage::with_blocks("ephemeral", &outgoing.blocks.text, blocks);
                if let Err(error) = self.api.respond(response_url, &message).await {
                    tracing::warn!(%error, "cannot answer the command");
                    let plain = ResponseMessage::ephemeral(&outgoing.mrkdwn);
                    if let Err(error) = self.api.respond(response_url, &plain).await {
                        tracing::error!(%error, "cannot answer the command, even as plain text");
                    }
                }
            }
        }
    }

    /// Keeps a report for its "Share in channel" button; returns its key.
    fn keep_for_sharing(&self, outgoing: &Outgoing) -> String {
        let now = Instant::now();
        if self.shareable.len() >= SHARE_MAX {
            self.shareable
                .retain(|_, (at, _)| now.duration_since(*at) < SHARE_TTL);
            if self.shareable.len() >= SHARE_MAX {
                self.shareable.clear();
            }
        }
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let key = format!(
            "{nanos:x}-{:x}",
            self.next_key.fetch_add(1, Ordering::Relaxed)
        );
        let message = ResponseMessage::with_blocks(
            "in_channel",
            &outgoing.blocks.text,
            outgoing.blocks.blocks.clone(),
        );
        self.shareable.insert(key.clone(), (now, message));
        key
    }

    async fn share(&self, key: &str, response_url: &str) {
        let stored = self
            .shareable
            .remove(key)
            .map(|(_, stored)| stored)
            .filter(|(at, _)| at.elapsed() <= SHARE_TTL);
        let message = match stored {
            Some((_, message)) => message,
            None => ResponseMessage::ephemeral(
                "That report is no longer available to share: run the command again.",
            ),
        };
        if let Err(error) = self.api.respond(response_url, &message).await {
            tracing::warn!(%error, "cannot answer the share button");
        }
    }

    /// A short message to whoever asked.
    async fn say(&self, reply: &Reply, text: &str) {
        match reply {
            Reply::Thread {
                channel,
                thread_ts,
                user,
                response_url,
            } => {
                let outgoing = Outgoing {
                    blocks: BlockMessage {
                        text: text.to_string(),
                        blocks: Vec::new(),
                    },
                    mrkdwn: text.to_string(),
                };
                if let Err(error) = self.api.post(channel, Some(thread_ts), &outgoing).await {
                    tracing::warn!(%error, channel, "cannot reply");
                    self.tell(channel, user.as_deref(), response_url.as_deref(), text)
                        .await;
                }
            }
            Reply::Ephemeral { response_url } => {
                let message = ResponseMessage::ephemeral(text);
                if let Err(error) = self.api.respond(response_url, &message).await {
                    tracing::warn!(%error, "cannot answer the command");
                }
            }
        }
    }

    /// Tells one person something privately: through the interaction's response URL
    /// when there is one, else as an ephemeral message in the channel.
    async fn tell(
        &self,
        channel: &str,
        user: Option<&str>,
        response_url: Option<&str>,
        text: &str,
    ) {
        let result = match (response_url, user) {
            (Some(url), _) => {
                self.api
                    .respond(url, &ResponseMessage::ephemeral(text))
                    .await
            }
            (None, Some(user)) => self.api.post_ephemeral(channel, user, text).await,
            (None, None) => return,
        };
        if let Err(error) = result {
            tracing::warn!(%error, channel, "cannot tell the person either");
        }
    }
}

/// The text of a message, if it has any.
fn message_text(message: SlackHistoryMessage) -> Option<String> {
    message.content.text.filter(|t| !t.trim().is_empty())
}

/// Slack's error in a few words for people.
fn slack_reason(error: &CallError) -> String {
    match error {
        CallError::Slack { code, .. } => format!("Slack said `{code}`"),
        CallError::RateLimited { .. } => "Slack is rate-limiting me; try again in a minute".into(),
        CallError::Timeout { .. } => "Slack did not answer in time".into(),
        CallError::Transport { .. } => "Slack could not be reached".into(),
    }
}

/// The "Share in channel" button carrying the stored report's key.
fn share_button(key: &str) -> serde_json::Value {
    serde_json::json!({
        "type": "actions",
        "elements": [{
            "type": "button",
            "action_id": SHARE_ACTION_ID,
            "text": {"type": "plain_text", "text": "Share in channel"},
            "value": key,
        }]
    })
}

/// Checks Slack permalinks through the Web API: verified when the message exists,
/// broken when Slack says it does not, restricted when the bot cannot see the channel.
struct PermalinkChecker {
    api: Arc<SlackApi>,
}

impl InternalChecker for PermalinkChecker {
    fn handles(&self, kind: SourceKind, url: &str) -> bool {
        kind == SourceKind::Slack && Permalink::parse(url).is_some()
    }

    fn check<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Verdict> {
        Box::pin(async move {
            let started = Instant::now();
            let Some(link) = Permalink::parse(url) else {
                return Verdict::not_checked("not a Slack message link");
            };
            let (class, reason) = match self.api.message(&link).await {
                Ok(Some(_)) => (VerdictClass::Verified, "the message exists".to_string()),
                Ok(None) => (
                    VerdictClass::Broken,
                    "Slack has no such message".to_string(),
                ),
                Err(error) => match error.code() {
                    Some(
                        "channel_not_found" | "not_in_channel" | "missing_scope" | "access_denied",
                    ) => (
                        VerdictClass::Restricted,
                        format!(
                            "the bot cannot see this channel ({})",
                            error.code().unwrap_or_default()
                        ),
                    ),
                    Some("thread_not_found" | "message_not_found") => (
                        VerdictClass::Broken,
                        "Slack has no such message".to_string(),
                    ),
                    _ => (VerdictClass::Unreachable, error.to_string()),
                },
            };
            Verdict {
                class,
                status_code: None,
                final_url: Some(url.to_string()),
                elapsed_ms: Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)),
                reason: Some(reason),
            }
        })
    }
}

/// Delivery ids seen recently, in two generations: an id is remembered for at least
/// one generation's span ([`DEDUPE_TTL`] / 2, which covers Slack's last retry after
/// 5 minutes) and at most two. Ids are kept as 64-bit hashes; each check is O(1) and a
/// generation ends by dropping the older set whole, so no request ever waits on a
/// sweep. A generation that fills up ([`DEDUPE_MAX`] / 2 ids) ends early, and the log
/// says that retries older than its span may then be posted again.
struct TtlSet {
    generations: std::sync::Mutex<Generations>,
    span: Duration,
    per_generation: usize,
}

struct Generations {
    current: HashSet<u64>,
    previous: HashSet<u64>,
    started: Instant,
}

impl TtlSet {
    fn new(ttl: Duration, max: usize) -> TtlSet {
        TtlSet {
            generations: std::sync::Mutex::new(Generations {
                current: HashSet::new(),
                previous: HashSet::new(),
                started: Instant::now(),
            }),
            span: ttl / 2,
            per_generation: (max / 2).max(1),
        }
    }

    /// True when `id` was not seen recently (and remembers it now).
    fn insert(&self, id: &str) -> bool {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let hash =
            BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(id);
        let Ok(mut generations) = self.generations.lock() else {
            // A panic elsewhere poisoned the lock: treat every delivery as new rather
            // than drop them all.
            return true;
        };
        let full = generations.current.len() >= self.per_generation;
        if full || generations.started.elapsed() >= self.span {
            if full {
                tracing::warn!(
                    ids = self.per_generation,
                    "delivery ids arrive faster than they can be remembered for 5 minutes: late retries may be posted twice"
                );
            }
            let current = std::mem::take(&mut generations.current);
            generations.previous = current;
            generations.started = Instant::now();
        }
        if generations.previous.contains(&hash) {
            return false;
        }
        generations.current.insert(hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delivery_is_done_once_within_the_ttl() {
        let seen = TtlSet::new(Duration::from_secs(600), 10);
        assert!(seen.insert("Ev1"));
        assert!(!seen.insert("Ev1"));
        assert!(seen.insert("Ev2"));
        // Remembered across one generation change, forgotten after two.
        let short = TtlSet::new(Duration::from_millis(40), 10);
        assert!(short.insert("Ev1"));
        std::thread::sleep(Duration::from_millis(25));
        assert!(!short.insert("Ev1"), "forgotten within the TTL");
        std::thread::sleep(Duration::from_millis(50));
        assert!(short.insert("Ev3"));
        std::thread::sleep(Duration::from_millis(25));
        assert!(short.insert("Ev1"), "remembered past its TTL");
    }

    #[test]
    fn the_delivery_memory_stays_bounded() {
        let seen = TtlSet::new(Duration::from_secs(600), 100);
        for i in 0..10_000 {
            assert!(seen.insert(&format!("Ev{i}")));
            let generations = seen.generations.lock().expect("lock");
            assert!(generations.current.len() + generations.previous.len() <= 100);
        }
        assert!(!seen.insert("Ev9999"), "the newest was forgotten");
    }
}

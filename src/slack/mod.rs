//! The Slack bot. Requests arrive over HTTP ([`http`]) or Socket Mode ([`socket`]) as
//! the JSON Slack sent; [`inbound`] reads each into a [`Job`]; the [`Bot`] acknowledges
//! at once and does the job in a spawned task: it finds the message to check (the
//! mention's own, the thread's answer, the message a link or shortcut points at),
//! reads it as a person sees it ([`crate::collect::slack_message`]), runs the pipeline —
//! collect, verify (Slack permalinks through the Web API), render — and posts the
//! sources where they belong, through [`api`], which paces, retries and falls back.
//! Watched assistants' answers are checked once they settle, and their replies follow
//! their edits and deletion ([`settle`]). A delivery Slack retries is done once. A report
//! whose claims were checked against their pages carries a "Show evidence" button that
//! opens the evidence in a modal (`slack/evidence.rs`).

pub mod api;
mod deliver;
mod evidence;
mod feedback;
pub mod home;
pub mod http;
pub mod inbound;
pub mod permalinks;
pub mod settings;
pub mod settings_view;
pub mod settle;
pub mod socket;
pub mod sources_command;
mod steer;
pub mod workspace;
pub mod workspace_settings;

use crate::collect::input::FormatHint;
use crate::collect::slack_message::{
    read_message, thread, MessageMeta, MessageRead, ReadNotes, ReadOptions, SkipReason,
};
use crate::config::Config;
use crate::metrics::Metrics;
use crate::model::Answer;
use crate::pipeline::Pipeline;
use crate::state::{BotState, MemoryState, RedisSettings, RedisState};
use crate::store::installations::{SqlStore, StoreError};
use crate::store::workspace_data::WorkspaceData;
use crate::verify::VerifyError;
use api::{CallError, SlackApi};
pub use evidence::{EVIDENCE_BUTTON_TEXT, EVIDENCE_EXPIRED};
pub use feedback::{Answered, API_ASSISTANT, THANKS_DOWN, THANKS_UP};
use inbound::{BotIdentity, Job, Reply, Subject, USAGE};
use serde_json::Value;
pub use settings::{SlackSettings, Transport};
use slack_morphism::prelude::SlackCommandEvent;
use std::collections::HashSet;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
pub use steer::ONLY_ADMINS;
use workspace::Installed;
pub use workspace::{Installations, Workspace, WorkspaceKey, Workspaces};
use workspace_settings::{Defaults, WorkspaceHub};

/// Jobs running or waiting at once (watched answers waiting to settle included); past
/// it new requests are acknowledged and dropped with a warning in the log, so a flood
/// cannot grow memory without bound.
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
    /// The shared state cannot be used.
    #[error(transparent)]
    State(#[from] crate::state::redis::RedisStateError),
    /// The database of workspace settings and history cannot be opened.
    #[error("cannot open the workspace settings database: {0}")]
    Store(#[from] StoreError),
    /// Neither a bot token nor installations to serve.
    #[error("nothing to serve: set SLACK_BOT_TOKEN, or SLACK_CLIENT_ID and the other OAuth settings to install the app in workspaces")]
    NoWorkspace,
}

/// Where the bot's pipeline comes from.
enum PipelineFrom {
    /// Built once signed in, checking the home workspace's Slack links.
    Config(Box<Config>),
    /// Built by the caller beforehand.
    Built(Arc<Pipeline>),
}

/// What a bot is assembled from besides its settings and pipeline.
struct Parts {
    metrics: Arc<Metrics>,
    state: Arc<dyn BotState>,
    installations: Option<Arc<dyn Installations>>,
    data: Option<Arc<dyn WorkspaceData>>,
}

/// The bot: the workspaces it serves (each with its Slack client and identity), whom it
/// watches, the pipeline, and its state (deliveries handled, reports to share, replies
/// to watched answers).
pub struct Bot {
    workspaces: Workspaces,
    /// The client every workspace's is made from (Socket Mode's connection, metrics).
    base_api: Arc<SlackApi>,
    pipeline: Arc<Pipeline>,
    metrics: Arc<Metrics>,
    state: Arc<dyn BotState>,
    settler: settle::Settler,
    next_key: AtomicU64,
    pending: Arc<tokio::sync::Semaphore>,
    /// This process's id as a holder of shared locks.
    holder: String,
    /// Each workspace's settings, report history and feedback.
    hub: WorkspaceHub,
    /// Workspaces whose Slack lately refused the feedback element.
    feedback_refused: crate::state::memory::TtlMap<String, ()>,
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
        let state = Bot::state_from(settings, &metrics)?;
        Bot::start_with_state(settings, config, metrics, state).await
    }

    /// The state `settings` ask for: Redis with `SOURCEBOT_REDIS_URL`, else memory.
    pub fn state_from(
        settings: &SlackSettings,
        metrics: &Arc<Metrics>,
    ) -> Result<Arc<dyn BotState>, StartError> {
        Ok(match &settings.redis_url {
            Some(url) => Arc::new(RedisState::new(
                &RedisSettings::new(url.as_str()),
                Some(metrics.clone()),
            )?),
            None => Arc::new(MemoryState::new()),
        })
    }

    /// [`Bot::start_with_metrics`], keeping the bot's state in `state`: one workspace,
    /// the bot token's.
    pub async fn start_with_state(
        settings: &SlackSettings,
        config: Config,
        metrics: Arc<Metrics>,
        state: Arc<dyn BotState>,
    ) -> Result<Arc<Bot>, StartError> {
        Bot::start_serving(settings, config, metrics, state, None).await
    }

    /// The bot for every workspace that installed the app: each request is served with
    /// its workspace's credentials from `installations`. With `SLACK_BOT_TOKEN` set too,
    /// that token's workspace is served with it when nothing is installed there, and
    /// it checks the answer API's Slack permalinks.
    pub async fn start_serving(
        settings: &SlackSettings,
        config: Config,
        metrics: Arc<Metrics>,
        state: Arc<dyn BotState>,
        installations: Option<Arc<dyn Installations>>,
    ) -> Result<Arc<Bot>, StartError> {
        Bot::start_with_data(settings, config, metrics, state, installations, None).await
    }

    /// [`Bot::start_serving`], keeping each workspace's settings, report history and
    /// feedback in `data` (the installation database); with `None`, in an SQLite
    /// database in memory, gone when the process ends.
    pub async fn start_with_data(
        settings: &SlackSettings,
        config: Config,
        metrics: Arc<Metrics>,
        state: Arc<dyn BotState>,
        installations: Option<Arc<dyn Installations>>,
        data: Option<Arc<dyn WorkspaceData>>,
    ) -> Result<Arc<Bot>, StartError> {
        let parts = Parts {
            metrics,
            state,
            installations,
            data,
        };
        Bot::assemble(settings, PipelineFrom::Config(Box::new(config)), parts).await
    }

    /// [`Bot::start_with_data`] with a pipeline built before signing in (`serve`'s,
    /// which the answer API uses meanwhile): the bot checks answers with it, and Slack
    /// links in answers that name no workspace are checked through whatever internal
    /// checker it was built with.
    pub async fn start_with_pipeline(
        settings: &SlackSettings,
        pipeline: Arc<Pipeline>,
        metrics: Arc<Metrics>,
        state: Arc<dyn BotState>,
        installations: Option<Arc<dyn Installations>>,
        data: Option<Arc<dyn WorkspaceData>>,
    ) -> Result<Arc<Bot>, StartError> {
        let parts = Parts {
            metrics,
            state,
            installations,
            data,
        };
        Bot::assemble(settings, PipelineFrom::Built(pipeline), parts).await
    }

    async fn assemble(
        settings: &SlackSettings,
        pipeline: PipelineFrom,
        parts: Parts,
    ) -> Result<Arc<Bot>, StartError> {
        let Parts {
            metrics,
            state,
            installations,
            data,
        } = parts;
        let data: Arc<dyn WorkspaceData> = match data {
            Some(data) => data,
            None => Arc::new(SqlStore::connect_for_data("sqlite::memory:").await?),
        };
        let base_api = Arc::new(
            SlackApi::new(&settings.api_url, "", settings.call_timeout)?
                .with_metrics(metrics.clone())
                .with_state(state.clone())
                .with_retries(settings.retry_for),
        );
        let watched: HashSet<String> = settings.watch_bot_ids.iter().cloned().collect();
        let home = match settings.bot_token.as_deref() {
            Some(token) => {
                let api = base_api.with_token(token);
                let (identity, team_id) = api.sign_in().await.map_err(StartError::SignIn)?;
                tracing::info!(user_id = %identity.user_id, team_id = %team_id, "signed in to Slack");
                let key = WorkspaceKey::new(None, Some(&team_id), false);
                Some(Arc::new(Workspace::new(
                    key,
                    api,
                    identity,
                    watched.clone(),
                    &state,
                )))
            }
            None => None,
        };
        let workspaces = match (installations, home) {
            (Some(installations), home) => Workspaces::Installed(
                Installed::new(
                    installations,
                    base_api.clone(),
                    state.clone(),
                    watched,
                    home,
                )
                .with_ttl(settings.workspace_cache_ttl),
            ),
            (None, Some(home)) => Workspaces::Single(home),
            (None, None) => return Err(StartError::NoWorkspace),
        };
        let pipeline = match pipeline {
            PipelineFrom::Built(pipeline) => pipeline,
            PipelineFrom::Config(config) => {
                let mut pipeline = Pipeline::builder()
                    .config(*config)
                    .metrics(metrics.clone())
                    .shared_state(state.clone());
                if let Some(home) = workspaces.home() {
                    pipeline = pipeline.internal_checker(home.permalinks.clone());
                }
                Arc::new(pipeline.build()?)
            }
        };
        let defaults = Defaults {
            watch_bot_ids: settings.watch_bot_ids.iter().cloned().collect(),
            support: pipeline.checks_support(),
            sources_per_kind: pipeline.config().render.max_per_kind,
            internal_quotes: pipeline.config().render.internal_quotes,
        };
        let history = std::time::Duration::from_secs(u64::from(settings.history_days) * 86_400);
        let hub = WorkspaceHub::new(data, state.clone(), defaults, history);
        let bot = Arc::new(Bot {
            workspaces,
            base_api,
            pipeline,
            metrics,
            state,
            settler: settle::Settler::new(settings.settle, settings.settle_max),
            next_key: AtomicU64::new(1),
            pending: Arc::new(tokio::sync::Semaphore::new(MAX_PENDING_JOBS)),
            holder: holder_id(),
            hub,
            feedback_refused: crate::state::memory::TtlMap::new(
                feedback::FEEDBACK_REFUSAL_TTL,
                feedback::FEEDBACK_REFUSAL_MAX,
            ),
        });
        bot.prune_history_hourly();
        Ok(bot)
    }

    /// Deletes history older than `SOURCEBOT_HISTORY_DAYS` now and every hour, in a
    /// task that ends with the bot. Replicas may each do it: deleting twice is harmless.
    fn prune_history_hourly(self: &Arc<Self>) {
        let bot = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(std::time::Duration::from_secs(3600));
            loop {
                every.tick().await;
                let Some(bot) = bot.upgrade() else { return };
                bot.prune_history().await;
            }
        });
    }

    /// Deletes the reports and feedback older than `SOURCEBOT_HISTORY_DAYS`.
    pub async fn prune_history(&self) {
        let keep = i64::try_from(self.hub.history.as_secs()).unwrap_or(i64::MAX);
        let older_than = crate::calendar::unix_now().saturating_sub(keep);
        match self.hub.data().prune(older_than).await {
            Ok(0) => {}
            Ok(rows) => tracing::info!(rows, "deleted history past SOURCEBOT_HISTORY_DAYS"),
            Err(error) => {
                self.metrics.history_failure("prune");
                tracing::warn!(%error, "cannot delete old history");
            }
        }
    }

    /// Each workspace's settings, report history and feedback.
    pub fn hub(&self) -> &WorkspaceHub {
        &self.hub
    }

    /// The pipeline answers are checked with.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The same pipeline, to share (the answer API checks with it).
    pub fn shared_pipeline(&self) -> &Arc<Pipeline> {
        &self.pipeline
    }

    /// This process's id as a holder of shared locks.
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// The bot's state: in this process, or shared by replicas.
    pub fn state(&self) -> &Arc<dyn BotState> {
        &self.state
    }

    /// Where the bot's state lives and whether it answers now.
    pub async fn state_health(&self) -> crate::state::StateHealth {
        self.state.check_health().await
    }

    /// The metrics the bot counts into.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// The workspaces the bot serves.
    pub fn workspaces(&self) -> &Workspaces {
        &self.workspaces
    }

    /// Who the bot is in the bot token's workspace (`None` when it serves installed
    /// workspaces only).
    pub fn identity(&self) -> Option<&BotIdentity> {
        self.workspaces.home().map(|home| &home.watch.identity)
    }

    /// The Web API client with the bot token (`None` when the bot serves installed
    /// workspaces only).
    pub fn api(&self) -> Option<&Arc<SlackApi>> {
        self.workspaces.home().map(|home| &home.api)
    }

    /// The Web API client without a token, which every workspace's shares.
    pub fn base_api(&self) -> &Arc<SlackApi> {
        &self.base_api
    }

    /// True the first time `delivery_id` is seen recently: later copies (Slack's
    /// retries) are acknowledged and dropped.
    pub async fn first_delivery(&self, delivery_id: &str) -> bool {
        self.state.first_delivery(delivery_id).await
    }

    /// An Events API callback, as Slack sent it: done once per `event_id` (Slack's
    /// retries and Socket Mode's redeliveries are dropped), in its workspace, in a task
    /// of its own.
    pub async fn accept_event(self: &Arc<Self>, callback: &Value) {
        let Some((event_id, event)) = inbound::callback_parts(callback) else {
            tracing::warn!("an event callback without event_id or event: ignored");
            return;
        };
        if !self.first_delivery(event_id).await {
            tracing::debug!(event_id, "dropped a repeated delivery");
            return;
        }
        let key = WorkspaceKey::of_callback(callback);
        if inbound::removes_the_app(event) {
            match key {
                Some(key) => {
                    let bot = self.clone();
                    tokio::spawn(async move {
                        bot.workspaces.uninstalled(&key).await;
                        bot.hub.forget(key.scope()).await;
                    });
                }
                None => tracing::warn!("an uninstall event that names no workspace: ignored"),
            }
            return;
        }
        // Watched answers keep their order: handled here when the workspace is at hand.
        if let Some(workspace) = self.workspaces.at_hand(key.as_ref()) {
            if let Some(job) = self.event_job(&workspace, event).await {
                self.spawn(workspace, job);
            }
            return;
        }
        let Some(permit) = self.permit() else {
            return;
        };
        let (bot, event) = (self.clone(), event.clone());
        tokio::spawn(async move {
            if let Some(workspace) = bot.workspace(key.as_ref(), "an event").await {
                if let Some(job) = bot.event_job(&workspace, &event).await {
                    bot.spawn(workspace, job);
                }
            }
            drop(permit);
        });
    }

    /// What an event asks of `workspace`, under its settings: whom it watches, and in
    /// which channels (a watched answer elsewhere is left alone; a deletion always
    /// goes through, so that an earlier reply follows it).
    async fn event_job(&self, workspace: &Workspace, event: &Value) -> Option<Job> {
        let applied = self.hub.applied(workspace.id()).await;
        let job = inbound::event_job(event, &applied.watch(&workspace.watch.identity))?;
        match &job {
            Job::Watched(inbound::AnswerEvent::Changed { channel, .. })
                if !applied.channels.includes(channel) =>
            {
                tracing::debug!(
                    channel,
                    "a watched answer outside the workspace's chosen channels"
                );
                None
            }
            _ => Some(job),
        }
    }

    /// An interaction payload (the shortcut, a button, a modal's submission), as Slack
    /// sent it: done once per interaction (its `trigger_id`), so a Socket Mode
    /// redelivery or a copy that reached another replica is dropped; then in its
    /// workspace, in a task of its own. Returns the body to acknowledge it with, when
    /// Slack needs one: the settings modal's errors.
    pub async fn accept_interaction(self: &Arc<Self>, payload: &Value) -> Option<Value> {
        if let Some(trigger_id) = payload.get("trigger_id").and_then(Value::as_str) {
            if !self.first_interaction(trigger_id).await {
                tracing::debug!("dropped a repeated interaction");
                return None;
            }
        }
        if payload.get("type").and_then(Value::as_str) == Some("view_submission")
            && payload.pointer("/view/callback_id").and_then(Value::as_str)
                == Some(settings_view::SETTINGS_CALLBACK_ID)
        {
            return self.settings_submitted(payload).await;
        }
        if let Some(job) = inbound::interaction_job(payload) {
            self.spawn_in(WorkspaceKey::of_interaction(payload), job);
        }
        None
    }

    /// A slash command (`key` its workspace, from the command's fields): returns the
    /// text to acknowledge it with at once; the check runs in a task of its own, once
    /// per `trigger_id`.
    pub async fn accept_command(
        self: &Arc<Self>,
        command: &SlackCommandEvent,
        key: Option<WorkspaceKey>,
    ) -> String {
        match inbound::command_job(command) {
            Job::Usage { .. } => sources_command::HELP.to_string(),
            Job::Refuse { why, .. } => why,
            job => {
                let ack = match &job {
                    Job::Settings {
                        command: sources_command::SourcesCommand::Settings,
                        ..
                    } => "Reading this workspace's settings…",
                    Job::Settings { .. } => "Looking that assistant up…",
                    _ => "Checking the sources…",
                };
                if self.first_interaction(&command.trigger_id.0).await {
                    self.spawn_in(key, job);
                }
                ack.to_string()
            }
        }
    }

    /// True the first time the interaction or command with `trigger_id` is seen.
    pub async fn first_interaction(&self, trigger_id: &str) -> bool {
        trigger_id.is_empty()
            || self
                .first_delivery(&format!("interaction:{trigger_id}"))
                .await
    }

    /// The workspace `key` names, or `None` (logged: `what` was acknowledged and is not
    /// acted on) when it cannot be served.
    async fn workspace(&self, key: Option<&WorkspaceKey>, what: &str) -> Option<Arc<Workspace>> {
        match self.workspaces.resolve(key).await {
            Ok(workspace) => Some(workspace),
            Err(why @ workspace::Unserved::Store(_)) => {
                self.metrics.unserved("database");
                tracing::warn!(
                    %why,
                    workspace = key.map_or("-", WorkspaceKey::scope),
                    "{what} from a workspace whose installation cannot be read (the database is down?): acknowledged, not acted on"
                );
                None
            }
            Err(why) => {
                self.metrics.unserved(match why {
                    workspace::Unserved::NoWorkspace => "no_workspace",
                    _ => "not_installed",
                });
                tracing::info!(%why, "{what} from a workspace the app is not installed in: not acted on");
                None
            }
        }
    }

    /// Does `job` in the workspace `key` names, in a task of its own; returns at once.
    fn spawn_in(self: &Arc<Self>, key: Option<WorkspaceKey>, job: Job) {
        if let Some(workspace) = self.workspaces.at_hand(key.as_ref()) {
            return self.spawn(workspace, job);
        }
        let Some(permit) = self.permit() else {
            return;
        };
        let bot = self.clone();
        tokio::spawn(async move {
            if let Some(workspace) = bot.workspace(key.as_ref(), "a request").await {
                bot.spawn(workspace, job);
            }
            drop(permit);
        });
    }

    /// Does `job` in `workspace` in a task of its own; returns at once. When
    /// [`MAX_PENDING_JOBS`] are already running or waiting, the job is dropped and the
    /// log says so.
    pub fn spawn(self: &Arc<Self>, workspace: Arc<Workspace>, job: Job) {
        if let Job::Watched(event) = job {
            self.watched(workspace, event);
            return;
        }
        let Some(permit) = self.permit() else {
            return;
        };
        let bot = self.clone();
        tokio::spawn(async move {
            bot.run(&workspace, job).await;
            drop(permit);
        });
    }

    /// A slot for one more job, or `None` (logged) when all are taken.
    fn permit(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        let permit = self.pending.clone().try_acquire_owned().ok();
        if permit.is_none() {
            self.metrics.unserved("busy");
            tracing::warn!(
                limit = MAX_PENDING_JOBS,
                "too many requests in progress: this one is dropped"
            );
        }
        permit
    }

    /// Does one job to the end in `workspace`: every failure is logged and, where
    /// someone asked, told to them.
    pub async fn run(self: &Arc<Self>, workspace: &Arc<Workspace>, job: Job) {
        let ws = workspace.as_ref();
        match job {
            Job::Usage { reply } => self.say(ws, &reply, USAGE).await,
            Job::Refuse { reply, why } => self.say(ws, &reply, &why).await,
            Job::Check { subject, reply } => self.check(ws, subject, &reply).await,
            Job::Share { key, response_url } => self.share(ws, &key, &response_url).await,
            Job::Evidence {
                key,
                trigger_id,
                response_url,
                channel,
                user,
            } => {
                let presser = deliver::Presser {
                    response_url: response_url.as_deref(),
                    channel: channel.as_deref(),
                    user: user.as_deref(),
                };
                self.show_evidence(ws, &key, trigger_id.as_deref(), presser)
                    .await
            }
            Job::Watched(event) => self.watched(workspace.clone(), event),
            Job::Settings {
                command,
                user,
                response_url,
            } => {
                self.settings_command(ws, command, &user, &response_url)
                    .await
            }
            Job::EditSettings {
                trigger_id,
                user,
                response_url,
                channel,
            } => {
                self.edit_settings(
                    ws,
                    &trigger_id,
                    &user,
                    response_url.as_deref(),
                    channel.as_deref(),
                )
                .await
            }
            Job::Feedback {
                press,
                ephemeral,
                response_url,
            } => self.feedback(ws, press, ephemeral, response_url).await,
            Job::WrongPart {
                user,
                locator,
                wrong,
                comment,
            } => self.wrong_part(ws, &user, &locator, wrong, comment).await,
            Job::Home { user } => self.publish_home(ws, &user).await,
        }
    }

    /// Reads a Slack message as the bot does: the bot's own mention left out; notes
    /// about what was skipped go to the debug log and the metrics.
    fn read(&self, ws: &Workspace, message: &Value) -> MessageRead {
        let read = read_message(
            message,
            &ReadOptions {
                omit_mention_of: Some(ws.watch.identity.user_id.clone()),
                ..ReadOptions::default()
            },
        );
        self.note(&read.notes);
        read
    }

    fn note(&self, notes: &ReadNotes) {
        if notes.counts.total() == 0 {
            return;
        }
        for reason in SkipReason::ALL {
            self.metrics
                .read_skips(reason.as_str(), notes.counts.get(reason));
        }
        tracing::debug!(
            skipped = notes.counts.total(),
            truncated = notes.truncated,
            first = ?notes.skipped.iter().take(5).map(|s| format!("{} {} ({})", s.path, s.what, s.reason.as_str())).collect::<Vec<_>>(),
            "parts of a Slack message were not read"
        );
    }

    async fn check(&self, ws: &Workspace, subject: Subject, reply: &Reply) {
        let applied = self.hub.applied(ws.id()).await;
        let watch = applied.watch(&ws.watch.identity);
        let answer = match self.subject_answer(ws, &watch, &subject).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(why)) => return self.say(ws, reply, &why).await,
            Err(error) => {
                tracing::warn!(%error, "cannot read the message to check");
                return self
                    .say(
                        ws,
                        reply,
                        &format!(
                            "I could not read the message to check: {}.",
                            slack_reason(&error)
                        ),
                    )
                    .await;
            }
        };
        if answer.text.trim().is_empty() && answer.sources.is_empty() {
            return self
                .say(ws, reply, "That message has no text, links or sources I can read, so there is nothing to check.")
                .await;
        }
        let reply = inbound::reply_for_audience(reply, applied.audience);
        let mut report = self
            .pipeline
            .check_with(&answer, Some(&ws.permalinks))
            .await;
        // An ephemeral message in a thread cannot be edited: it waits for the support check.
        let whisper = matches!(reply, Reply::Whisper { .. });
        if whisper && applied.support {
            self.pipeline
                .check_support_with(&mut report, Some(&ws.permalinks), None)
                .await;
        }
        let key = self.report_key();
        let outgoing = self.outgoing(&report, applied.sources_per_kind);
        let shown = self
            .with_evidence(ws, &report, outgoing.clone(), reply.channel())
            .await;
        let Some(delivered) = self.deliver(ws, &reply, shown, &key).await else {
            return;
        };
        let answered = Answered {
            assistant: None,
            asked_by: reply.user().map(str::to_string),
        };
        // The links are up; now whether their pages say what the claims say, shown by
        // editing the same message (an edit notifies nobody).
        if whisper {
            // Checked before it was shown.
        } else if let Some(updated) = self.support_pass(ws, &mut report, &applied).await {
            if updated.blocks != outgoing.blocks || updated.mrkdwn != outgoing.mrkdwn {
                // With a "Show evidence" button now that claims were checked against pages.
                let updated = self
                    .with_evidence(ws, &report, updated, reply.channel())
                    .await;
                self.redeliver(ws, &delivered, updated, &key).await;
            }
        }
        let (channel, ts) = delivered.location(&key);
        self.record_report(ws, &report, &key, channel, ts, &answered)
            .await;
    }

    /// Checks the claims of a report already shown against their pages, when the
    /// workspace has claim support on; the report as it would now be shown, or `None`
    /// when the check did not run.
    async fn support_pass(
        &self,
        ws: &Workspace,
        report: &mut crate::model::Report,
        applied: &workspace_settings::Applied,
    ) -> Option<api::Outgoing> {
        if !applied.support {
            return None;
        }
        self.pipeline
            .check_support_with(report, Some(&ws.permalinks), None)
            .await?;
        Some(self.outgoing(report, applied.sources_per_kind))
    }

    /// The answer a subject names; `Ok(Err(why))` when there is none to check, with one
    /// short sentence saying why.
    async fn subject_answer(
        &self,
        ws: &Workspace,
        watch: &inbound::Watch,
        subject: &Subject,
    ) -> Result<Result<Answer, String>, CallError> {
        Ok(match subject {
            Subject::Text(text) => self
                .pipeline
                .parse(text.as_bytes(), FormatHint::Auto)
                .map_err(|error| format!("I could not read that answer: {error}.")),
            Subject::Message(message) => Ok(self.read(ws, message).answer),
            Subject::Permalink(link) => match ws.api.message(link).await? {
                Some(message) => Ok(self.read(ws, &message).answer),
                None => Err("I could not find that message: it may have been deleted, or I cannot see its channel.".to_string()),
            },
            Subject::ThreadAnswer {
                channel,
                thread_ts,
                before_ts,
            } => {
                let messages = ws.api.thread(channel, thread_ts).await?;
                let own = |m: &MessageMeta| watch.identity.posted(m);
                let prefer = |m: &MessageMeta| watch.prefers(m);
                let query = thread::AnswerQuery {
                    before_ts: Some(before_ts),
                    exclude: &own,
                    prefer: &prefer,
                };
                let options = ReadOptions {
                    omit_mention_of: Some(ws.watch.identity.user_id.clone()),
                    ..ReadOptions::default()
                };
                match thread::latest_answer(
                    &messages,
                    &query,
                    &options,
                    &self.pipeline.config().collect,
                ) {
                    Some(picked) => {
                        self.note(&picked.read.notes);
                        Ok(picked.read.answer)
                    }
                    None => Err("I found no answer to check above this mention: no message in this thread cites a source or says something that needs one.".to_string()),
                }
            }
        })
    }
}

/// Slack's error in a few words for people.
fn slack_reason(error: &CallError) -> String {
    match error {
        CallError::Slack { code, .. } => format!("Slack said `{code}`"),
        CallError::RateLimited { .. } => "Slack is rate-limiting me; try again in a minute".into(),
        CallError::Timeout { .. } => "Slack did not answer in time".into(),
        CallError::Unreachable { .. } | CallError::Transport { .. } => {
            "Slack could not be reached".into()
        }
    }
}

/// A random id for this process, to hold shared locks with: replicas never share one.
fn holder_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    if let Ok(since) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(since.as_nanos());
    }
    format!("{:016x}", hasher.finish())
}

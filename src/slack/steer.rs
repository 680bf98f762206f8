//! Running sourcebot from Slack: `/sources watch|unwatch|settings`, the settings modal
//! behind the **Edit** button, and the App Home. Who may change settings is decided
//! here and nowhere else: the workspace's admins and owners (`users.info`: `is_admin`,
//! `is_owner`, `is_primary_owner`) and the person who installed the app; anyone else
//! is told so in a sentence and nothing changes. A watched assistant is named by its
//! bot user and kept with the bot id its messages carry, which `users.info` gives.
//! The views themselves are built in [`super::settings_view`] and [`super::home`];
//! this module asks Slack and the settings store, and answers.

use super::api::{CallError, ResponseMessage};
use super::deliver::Presser;
use super::home::home_view;
use super::settings_view::{
    errors_response, inert_name, read_settings_submission, settings_modal, settings_summary,
    CHANNELS_SCOPE_BLOCK,
};
use super::sources_command::{Mention, SourcesCommand};
use super::workspace::WorkspaceKey;
use super::{slack_reason, Bot, Workspace};
use crate::calendar::unix_now;
use crate::model::workspace::{WatchedAssistant, WorkspaceSettings};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// What anyone but an admin, an owner or the installer is told.
pub const ONLY_ADMINS: &str = "Only workspace admins can change sourcebot's settings.";

/// The longest the settings modal's submission waits for Slack (`users.info`) and the
/// database before answering: Slack closes the request at 3 s.
pub const SUBMISSION_BUDGET: Duration = Duration::from_millis(2_200);

/// The App Home's two windows, in days.
pub const HOME_WINDOWS: (i64, i64) = (7, 30);

/// Longest name of a watched assistant quoted back.
const NAME_MAX: usize = 80;

impl Bot {
    /// Whether `user` may change the settings of `ws`: its installer, or an admin or
    /// owner by `users.info`.
    pub(super) async fn may_change_settings(
        &self,
        ws: &Workspace,
        user: &str,
    ) -> Result<bool, CallError> {
        if ws.installer.as_deref() == Some(user) {
            return Ok(true);
        }
        Ok(ws.api.user_info(user).await?.administers())
    }

    /// `/sources watch|unwatch|settings` from `user`, answered through the command's
    /// `response_url`.
    pub(super) async fn settings_command(
        &self,
        ws: &Workspace,
        command: SourcesCommand,
        user: &str,
        response_url: &str,
    ) {
        let message = match command {
            SourcesCommand::Settings => self.summary(ws, user).await,
            SourcesCommand::Watch(mention) => {
                ResponseMessage::ephemeral(&self.change_watch(ws, user, &mention, true).await)
            }
            SourcesCommand::Unwatch(mention) => {
                ResponseMessage::ephemeral(&self.change_watch(ws, user, &mention, false).await)
            }
            SourcesCommand::Help | SourcesCommand::Check(_) => return,
        };
        if let Err(error) = ws.api.respond(response_url, &message).await {
            tracing::warn!(%error, "cannot answer /sources");
        }
    }

    /// The settings summary, with **Edit** for those who may change them.
    async fn summary(&self, ws: &Workspace, user: &str) -> ResponseMessage {
        let own = match self.hub.own(ws.id()).await {
            Ok(own) => own,
            Err(error) => {
                tracing::warn!(%error, workspace = ws.id(), "cannot read the settings");
                return ResponseMessage::ephemeral(
                    "I cannot read this workspace's settings right now; try again in a minute.",
                );
            }
        };
        let can_edit = self
            .may_change_settings(ws, user)
            .await
            .unwrap_or_else(|error| {
                tracing::warn!(%error, "cannot tell whether the user is an admin: no Edit button");
                false
            });
        let summary = settings_summary(&own, &self.hub.defaults().as_settings(), can_edit);
        let text = summary["text"].as_str().unwrap_or_default();
        let blocks = summary["blocks"].as_array().cloned().unwrap_or_default();
        ResponseMessage::with_blocks("ephemeral", text, blocks)
    }

    /// Starts (`watch`) or stops watching the assistant `mention` names; the sentence
    /// to answer with.
    async fn change_watch(
        &self,
        ws: &Workspace,
        user: &str,
        mention: &Mention,
        watch: bool,
    ) -> String {
        match self.may_change_settings(ws, user).await {
            Ok(true) => {}
            Ok(false) => return ONLY_ADMINS.to_string(),
            Err(error) => {
                tracing::warn!(%error, "cannot tell whether the user is an admin");
                return format!(
                    "I could not check that you are an admin of this workspace: {}.",
                    slack_reason(&error)
                );
            }
        }
        let assistant = match ws.api.user_info(&mention.user_id).await {
            Ok(assistant) => assistant,
            Err(error) if error.code() == Some("user_not_found") => {
                return "I cannot find that user in this workspace.".to_string()
            }
            Err(error) => {
                return format!("I could not look that user up: {}.", slack_reason(&error))
            }
        };
        let name = inert_name(&assistant.name, NAME_MAX);
        let bot_id = match (&assistant.bot_id, assistant.is_bot) {
            (Some(bot_id), true) => bot_id.clone(),
            _ => {
                return format!(
                    "*{name}* is not a bot, so there are no answers of theirs to watch. Name an AI assistant's bot user, e.g. `/sources watch @Assistant`."
                )
            }
        };
        if assistant.id == ws.watch.identity.user_id {
            return "I check my own reports already: name another assistant.".to_string();
        }
        let mut own = match self.hub.own(ws.id()).await {
            Ok(own) => own,
            Err(error) => {
                tracing::warn!(%error, workspace = ws.id(), "cannot read the settings");
                return "I cannot read this workspace's settings right now; try again in a minute."
                    .to_string();
            }
        };
        let listed = own.watched.iter().position(|a| a.bot_id == bot_id);
        let by_server = self.hub.defaults().watch_bot_ids.contains(&bot_id);
        let answer = match (watch, listed) {
            (true, Some(_)) => return format!("I already watch *{name}*."),
            (true, None) => {
                own.watched.push(WatchedAssistant {
                    user_id: assistant.id.clone(),
                    bot_id: bot_id.clone(),
                    name: assistant.name.clone(),
                });
                format!("From now on I check *{name}*'s answers on my own, in {}.", scope_words(&own))
            }
            (false, Some(at)) => {
                own.watched.remove(at);
                if by_server {
                    format!("*{name}* is no longer on this workspace's list, but this server watches it for every workspace (`SOURCEBOT_WATCH_BOT_IDS`): ask whoever runs sourcebot.")
                } else {
                    format!("I no longer check *{name}*'s answers on my own.")
                }
            }
            (false, None) if by_server => {
                return format!("This server watches *{name}* for every workspace (`SOURCEBOT_WATCH_BOT_IDS`); only whoever runs sourcebot can stop that.")
            }
            (false, None) => return format!("I was not watching *{name}*."),
        };
        match self.hub.save(ws.id(), &own, user).await {
            Ok(()) => answer,
            Err(error) => {
                tracing::warn!(%error, workspace = ws.id(), "cannot save the settings");
                "I could not save that change; nothing changed. Try again in a minute.".to_string()
            }
        }
    }

    /// The **Edit** button: the settings modal for those who may change them, the
    /// sentence why not for anyone else.
    pub(super) async fn edit_settings(
        &self,
        ws: &Workspace,
        trigger_id: &str,
        user: &str,
        response_url: Option<&str>,
        channel: Option<&str>,
    ) {
        let refusal = match self.may_change_settings(ws, user).await {
            Ok(true) => None,
            Ok(false) => Some(ONLY_ADMINS.to_string()),
            Err(error) => Some(format!(
                "I could not check that you are an admin of this workspace: {}.",
                slack_reason(&error)
            )),
        };
        let presser = Presser {
            response_url,
            channel,
            user: Some(user),
        };
        if let Some(why) = refusal {
            return self.tell_presser(ws, &presser, &why).await;
        }
        let own = match self.hub.own(ws.id()).await {
            Ok(own) => own,
            Err(error) => {
                tracing::warn!(%error, workspace = ws.id(), "cannot read the settings");
                return self
                    .tell_presser(
                        ws,
                        &presser,
                        "I cannot read this workspace's settings right now; try again in a minute.",
                    )
                    .await;
            }
        };
        if let Err(error) = ws.api.open_view(trigger_id, &settings_modal(&own)).await {
            tracing::warn!(%error, "cannot open the settings modal");
        }
    }

    /// The settings modal's `view_submission`, answered within Slack's 3 s: `None` to
    /// close the modal (saved), or the body that shows errors under the fields (a value
    /// that cannot be used, someone who may not change settings, a store that cannot
    /// save).
    pub async fn settings_submitted(self: &Arc<Self>, payload: &Value) -> Option<Value> {
        let failed = |why: &str| {
            Some(errors_response(&[(
                CHANNELS_SCOPE_BLOCK.to_string(),
                why.to_string(),
            )]))
        };
        let answer = tokio::time::timeout(SUBMISSION_BUDGET, async {
            let key = WorkspaceKey::of_interaction(payload);
            let Some(ws) = self.workspace(key.as_ref(), "a settings submission").await else {
                return failed("This workspace is not one I serve; nothing was saved.");
            };
            let Some(user) = payload.pointer("/user/id").and_then(Value::as_str) else {
                return failed("I cannot tell who sent this; nothing was saved.");
            };
            match self.may_change_settings(&ws, user).await {
                Ok(true) => {}
                Ok(false) => return failed(ONLY_ADMINS),
                Err(error) => {
                    tracing::warn!(%error, "cannot tell whether the user is an admin");
                    return failed(
                        "I could not check that you are an admin; nothing was saved. Try again.",
                    );
                }
            }
            let own = match self.hub.own(ws.id()).await {
                Ok(own) => own,
                Err(error) => {
                    tracing::warn!(%error, workspace = ws.id(), "cannot read the settings");
                    return failed(
                        "I cannot read this workspace's settings right now; nothing was saved.",
                    );
                }
            };
            let next = match read_settings_submission(payload, &own) {
                Ok(next) => next,
                Err(errors) => return Some(errors_response(&errors)),
            };
            if let Err(error) = self.hub.save(ws.id(), &next, user).await {
                tracing::warn!(%error, workspace = ws.id(), "cannot save the settings");
                return failed(
                    "I could not save the settings; nothing changed. Try again in a minute.",
                );
            }
            // The Home tab shows the settings: draw it again for whoever saved them.
            let (bot, user) = (self.clone(), user.to_string());
            tokio::spawn(async move { bot.publish_home(&ws, &user).await });
            None
        })
        .await;
        answer.unwrap_or_else(|_| {
            tracing::warn!("the settings submission took too long: nothing was saved");
            failed("That took too long; nothing was saved. Try again.")
        })
    }

    /// Draws the App Home for `user` (`views.publish`): what sourcebot does, the
    /// workspace's settings (with **Edit** for admins), and the last 7 and 30 days.
    pub(super) async fn publish_home(&self, ws: &Workspace, user: &str) {
        let own = self.hub.own(ws.id()).await.unwrap_or_else(|error| {
            tracing::warn!(%error, workspace = ws.id(), "cannot read the settings for the App Home");
            WorkspaceSettings::default()
        });
        let now = unix_now();
        let (short, long) = HOME_WINDOWS;
        let data = self.hub.data();
        let (last_short, last_long, can_edit) = tokio::join!(
            data.activity(ws.id(), now - short * 86_400),
            data.activity(ws.id(), now - long * 86_400),
            self.may_change_settings(ws, user),
        );
        let (last_short, last_long) = match (last_short, last_long) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(error), _) | (_, Err(error)) => {
                tracing::warn!(%error, workspace = ws.id(), "cannot read the history for the App Home");
                (Vec::new(), Vec::new())
            }
        };
        let names = |bot_id: &str| {
            own.watched
                .iter()
                .find(|a| a.bot_id == bot_id)
                .map(|a| a.name.clone())
        };
        let defaults = self.hub.defaults().as_settings();
        let view = home_view(
            &own,
            Some(&defaults),
            &last_short,
            &last_long,
            &names,
            can_edit.unwrap_or(false),
        );
        if let Err(error) = ws.api.publish_view(user, &view).await {
            tracing::warn!(%error, "cannot publish the App Home");
        }
    }
}

/// Where a workspace's watched answers get sources, in words.
fn scope_words(settings: &WorkspaceSettings) -> &'static str {
    match settings.channels {
        crate::model::workspace::ChannelScope::All => "every channel I am in",
        crate::model::workspace::ChannelScope::Only(_) => {
            "the channels chosen in `/sources settings`"
        }
    }
}

//! A workspace's settings as the bot applies them. The environment gives the server's
//! defaults ([`Defaults`]: `SOURCEBOT_WATCH_BOT_IDS`, `SOURCEBOT_SUPPORT`,
//! `SOURCEBOT_MAX_PER_KIND`, `SOURCEBOT_INTERNAL_QUOTES`); a workspace's own settings, saved from Slack
//! (`/sources watch`, the settings modal) in the installation database, win where it
//! has them. Watched assistants are the exception: the server's and the workspace's
//! are both watched, so that an operator's list keeps working while a workspace adds
//! its own. Settings are read through [`SettingsCache`], which every replica re-checks
//! against a version in the shared state, so a change made anywhere holds everywhere
//! within seconds. When the database cannot be read, the defaults apply and the log
//! says so: a report is never held back for a setting.

use super::inbound::{BotIdentity, Watch};
use crate::model::workspace::{ChannelScope, ReportAudience, WatchedAssistant, WorkspaceSettings};
use crate::state::BotState;
use crate::store::installations::StoreError;
use crate::store::workspace_data::{SettingsCache, WorkspaceData};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// The server's defaults, from the environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Defaults {
    /// Bot ids watched in every workspace (`SOURCEBOT_WATCH_BOT_IDS`).
    pub watch_bot_ids: HashSet<String>,
    /// Whether claims are checked against their pages (on when the server can).
    pub support: bool,
    /// Sources listed per kind (0: all).
    pub sources_per_kind: usize,
    /// Whether the evidence modal quotes internal documents
    /// (`SOURCEBOT_INTERNAL_QUOTES`).
    pub internal_quotes: bool,
}

impl Defaults {
    /// The defaults in the shape of a workspace's settings, for showing them: watched
    /// bots are named by their bot id (the environment gives no more).
    pub fn as_settings(&self) -> WorkspaceSettings {
        let mut ids: Vec<&String> = self.watch_bot_ids.iter().collect();
        ids.sort();
        WorkspaceSettings {
            watched: ids
                .into_iter()
                .map(|id| WatchedAssistant {
                    user_id: String::new(),
                    bot_id: id.clone(),
                    name: id.clone(),
                })
                .collect(),
            channels: ChannelScope::All,
            support: Some(self.support),
            sources_per_kind: Some(self.sources_per_kind),
            audience: Some(ReportAudience::Channel),
            internal_quotes: Some(self.internal_quotes),
        }
    }
}

/// What holds in one workspace now: its own settings over the defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// Bot ids whose answers get sources on their own.
    pub watched: HashSet<String>,
    /// Where they do.
    pub channels: ChannelScope,
    /// Whether claims are checked against their pages.
    pub support: bool,
    /// Sources listed per kind (0: all).
    pub sources_per_kind: usize,
    /// Who sees reports people ask for in channels.
    pub audience: ReportAudience,
    /// Whether the evidence modal quotes internal documents.
    pub internal_quotes: bool,
    /// The workspace's own settings (default when it saved none).
    pub own: WorkspaceSettings,
}

impl Applied {
    /// `own` over `defaults`.
    pub fn of(own: WorkspaceSettings, defaults: &Defaults) -> Applied {
        let mut watched = defaults.watch_bot_ids.clone();
        watched.extend(own.watched.iter().map(|a| a.bot_id.clone()));
        Applied {
            watched,
            channels: own.channels.clone(),
            support: own.support.unwrap_or(defaults.support),
            sources_per_kind: own.sources_per_kind.unwrap_or(defaults.sources_per_kind),
            audience: own.audience.unwrap_or(ReportAudience::Channel),
            internal_quotes: own.internal_quotes.unwrap_or(defaults.internal_quotes),
            own,
        }
    }

    /// Whom the bot (`identity`) watches here.
    pub fn watch(&self, identity: &BotIdentity) -> Watch {
        Watch {
            identity: identity.clone(),
            bot_ids: self.watched.clone(),
        }
    }
}

/// The workspaces' settings and history, as the bot uses them.
pub struct WorkspaceHub {
    data: Arc<dyn WorkspaceData>,
    cache: SettingsCache,
    defaults: Defaults,
    /// How long reports and feedback are kept.
    pub history: Duration,
}

impl WorkspaceHub {
    /// Settings and history kept in `data`, cached against versions in `state` (the
    /// process's unscoped shared state), over `defaults`; history kept for `history`.
    pub fn new(
        data: Arc<dyn WorkspaceData>,
        state: Arc<dyn BotState>,
        defaults: Defaults,
        history: Duration,
    ) -> WorkspaceHub {
        WorkspaceHub {
            cache: SettingsCache::new(data.clone(), state),
            data,
            defaults,
            history,
        }
    }

    /// The server's defaults.
    pub fn defaults(&self) -> &Defaults {
        &self.defaults
    }

    /// Where settings, reports and feedback are kept.
    pub fn data(&self) -> &Arc<dyn WorkspaceData> {
        &self.data
    }

    /// The settings `workspace` saved (default ones when it saved none).
    pub async fn own(&self, workspace: &str) -> Result<WorkspaceSettings, StoreError> {
        Ok(self.cache.get(workspace).await?.unwrap_or_default())
    }

    /// What holds in `workspace` now; the defaults, logged, when its settings cannot
    /// be read.
    pub async fn applied(&self, workspace: &str) -> Applied {
        let own = match self.own(workspace).await {
            Ok(own) => own,
            Err(error) => {
                tracing::warn!(%error, workspace, "cannot read the workspace's settings: the server's defaults apply");
                WorkspaceSettings::default()
            }
        };
        Applied::of(own, &self.defaults)
    }

    /// Saves `settings` as `workspace`'s own, changed by `user` now; every replica sees
    /// them within seconds. The change is logged with who made it.
    pub async fn save(
        &self,
        workspace: &str,
        settings: &WorkspaceSettings,
        user: &str,
    ) -> Result<(), StoreError> {
        self.cache
            .save(workspace, settings, user, crate::calendar::unix_now())
            .await?;
        tracing::info!(
            workspace,
            changed_by = user,
            settings = %serde_json::to_string(settings).unwrap_or_default(),
            "workspace settings changed"
        );
        Ok(())
    }

    /// Deletes everything kept for `workspace` (the app left it): settings, reports,
    /// feedback. Logged; a failure too.
    pub async fn forget(&self, workspace: &str) {
        match self.cache.forget(workspace).await {
            Ok(rows) => tracing::info!(
                workspace,
                rows,
                "the workspace's settings and history are deleted"
            ),
            Err(error) => {
                tracing::warn!(%error, workspace, "cannot delete the workspace's settings and history")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant(bot_id: &str) -> WatchedAssistant {
        WatchedAssistant {
            user_id: format!("U{bot_id}"),
            bot_id: bot_id.to_string(),
            name: bot_id.to_string(),
        }
    }

    #[test]
    fn a_workspace_adds_to_the_servers_watched_bots_and_its_own_values_win() {
        let defaults = Defaults {
            watch_bot_ids: HashSet::from(["B_SERVER".to_string()]),
            support: true,
            sources_per_kind: 5,
            internal_quotes: true,
        };
        let none = Applied::of(WorkspaceSettings::default(), &defaults);
        assert_eq!(none.watched, HashSet::from(["B_SERVER".to_string()]));
        assert!(none.support);
        assert_eq!(none.sources_per_kind, 5);
        assert_eq!(none.audience, ReportAudience::Channel);
        assert_eq!(none.channels, ChannelScope::All);
        assert!(none.internal_quotes);

        let own = WorkspaceSettings {
            watched: vec![assistant("B_OWN")],
            channels: ChannelScope::Only(vec!["C1".into()]),
            support: Some(false),
            sources_per_kind: Some(2),
            audience: Some(ReportAudience::AskerOnly),
            internal_quotes: Some(false),
        };
        let applied = Applied::of(own, &defaults);
        assert_eq!(
            applied.watched,
            HashSet::from(["B_SERVER".to_string(), "B_OWN".to_string()])
        );
        assert!(!applied.support);
        assert_eq!(applied.sources_per_kind, 2);
        assert_eq!(applied.audience, ReportAudience::AskerOnly);
        assert!(!applied.internal_quotes);
        assert!(applied.channels.includes("C1") && !applied.channels.includes("C2"));
    }

    #[test]
    fn the_defaults_show_as_settings() {
        let defaults = Defaults {
            watch_bot_ids: HashSet::from(["B2".to_string(), "B1".to_string()]),
            support: false,
            sources_per_kind: 0,
            internal_quotes: false,
        };
        let shown = defaults.as_settings();
        let ids: Vec<&str> = shown.watched.iter().map(|a| a.bot_id.as_str()).collect();
        assert_eq!(ids, ["B1", "B2"]);
        assert_eq!(shown.support, Some(false));
        assert_eq!(shown.internal_quotes, Some(false));
    }
}

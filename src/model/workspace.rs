//! What a workspace decides for itself and what sourcebot keeps about its work there:
//! the plain data behind `/sources watch|unwatch|settings`, the settings modal, the App
//! Home and the feedback buttons. Stored per workspace by
//! [`crate::store::workspace_data`]; shown and read by the Slack views
//! ([`crate::slack::home`], [`crate::slack::settings_view`], [`crate::render::feedback`]).
//! [`WorkspaceKey`] names an installation: Slack's requests carry it (read in
//! [`crate::slack::workspace`]) and the store keeps installations under it.
//! Nothing here touches the network or a database.

use serde::{Deserialize, Serialize};

/// Which installation serves a request: a workspace (`T…`), possibly in an Enterprise
/// Grid organization (`E…`), or the organization as a whole for an org-wide install.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WorkspaceKey {
    /// The organization, if any.
    pub enterprise_id: Option<String>,
    /// The workspace; `None` for the org-wide install.
    pub team_id: Option<String>,
    /// The org-wide install itself.
    pub is_enterprise_install: bool,
}

impl WorkspaceKey {
    /// The key from ids as requests carry them (empty strings count as absent): an
    /// org-wide install is keyed by its organization alone; anything else needs a
    /// workspace.
    pub fn new(
        enterprise_id: Option<&str>,
        team_id: Option<&str>,
        is_enterprise_install: bool,
    ) -> Option<WorkspaceKey> {
        let present = |id: Option<&str>| id.filter(|s| !s.is_empty()).map(str::to_string);
        let enterprise_id = present(enterprise_id);
        if is_enterprise_install {
            return Some(WorkspaceKey {
                enterprise_id: Some(enterprise_id?),
                team_id: None,
                is_enterprise_install,
            });
        }
        Some(WorkspaceKey {
            enterprise_id,
            team_id: Some(present(team_id)?),
            is_enterprise_install,
        })
    }

    /// The id the installation's state is kept under: its workspace, or its
    /// organization for an org-wide install.
    pub fn scope(&self) -> &str {
        self.team_id
            .as_deref()
            .or(self.enterprise_id.as_deref())
            .unwrap_or_default()
    }
}

/// A workspace's own settings. A field left `None` (or empty, for the watched list)
/// takes the server's default from the environment; a workspace's own value wins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceSettings {
    /// Assistants whose answers get sources on their own.
    #[serde(default)]
    pub watched: Vec<WatchedAssistant>,
    /// Where watched answers get sources.
    #[serde(default)]
    pub channels: ChannelScope,
    /// Whether cited pages are read and claims checked against them.
    #[serde(default)]
    pub support: Option<bool>,
    /// How many sources of each kind a report lists.
    #[serde(default)]
    pub sources_per_kind: Option<usize>,
    /// Whether reports in channels are posted in the thread or offered to the asker only.
    #[serde(default)]
    pub audience: Option<ReportAudience>,
    /// Whether the **Show evidence** modal quotes internal documents (read with
    /// sourcebot's credentials) to the person who opens it.
    #[serde(default)]
    pub internal_quotes: Option<bool>,
}

/// A watched assistant: its bot user, and the bot id (`B…`) its messages carry, which
/// sourcebot resolves once with `users.info`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchedAssistant {
    /// The assistant's bot user (`U…`).
    pub user_id: String,
    /// The bot id its messages carry (`B…`).
    pub bot_id: String,
    /// Its name as Slack gave it (untrusted text: escape before showing).
    pub name: String,
}

/// Where watched answers get sources.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "scope", content = "ids", rename_all = "snake_case")]
pub enum ChannelScope {
    /// Every channel sourcebot is in.
    #[default]
    All,
    /// Only these channels (`C…`, `G…`).
    Only(Vec<String>),
}

impl ChannelScope {
    /// Whether a watched answer in `channel` gets sources.
    pub fn includes(&self, channel: &str) -> bool {
        match self {
            ChannelScope::All => true,
            ChannelScope::Only(ids) => ids.iter().any(|id| id == channel),
        }
    }
}

/// Who sees a report in a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportAudience {
    /// Posted in the answer's thread for everyone.
    Channel,
    /// Offered to the person who asked only (ephemeral).
    AskerOnly,
}

/// What one posted report counted (the answer's text is never kept).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportCounts {
    /// Sources listed.
    pub sources: u32,
    /// Of which verified.
    pub verified: u32,
    /// Of which broken.
    pub broken: u32,
    /// Claims in the answer.
    pub claims: u32,
    /// Claims that cite nothing.
    pub uncited: u32,
    /// Claims their pages do not support.
    pub not_supported: u32,
}

/// One posted report, as the history keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportRecord {
    /// The workspace ([`crate::slack::WorkspaceKey::scope`]).
    pub workspace: String,
    /// The channel the report was posted in.
    pub channel: String,
    /// The report message's `ts` (with the channel, the report's identity).
    pub message_ts: String,
    /// The watched assistant's bot id, when the answer was a watched one.
    pub assistant: Option<String>,
    /// The person who asked (mention, command, shortcut), otherwise.
    pub asked_by: Option<String>,
    /// What the report counted.
    pub counts: ReportCounts,
    /// Which judge spoke on claim support (`built-in`, a model name, or `none`).
    pub judge: String,
    /// When it was posted (unix seconds).
    pub posted_at: i64,
}

/// A vote on a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Vote {
    /// 👍
    Up,
    /// 👎
    Down,
}

impl Vote {
    /// The metric label and export value: `up` or `down`.
    pub fn as_str(self) -> &'static str {
        match self {
            Vote::Up => "up",
            Vote::Down => "down",
        }
    }
}

/// What was wrong with a report, as the 👎 modal asks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WrongPart {
    /// A link's verdict.
    LinkVerdict,
    /// A claim's verdict.
    ClaimVerdict,
    /// A source that is missing.
    MissingSource,
    /// Something else.
    Other,
}

/// One person's feedback on one report (pressing again changes the vote).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedbackRecord {
    /// The workspace ([`crate::slack::WorkspaceKey::scope`]).
    pub workspace: String,
    /// The report's channel.
    pub channel: String,
    /// The report message's `ts`.
    pub message_ts: String,
    /// Who voted.
    pub user_id: String,
    /// The vote.
    pub vote: Vote,
    /// What was wrong, when the 👎 modal was answered.
    pub wrong: Option<WrongPart>,
    /// The modal's free text (untrusted: stored as given, escaped when shown).
    pub comment: Option<String>,
    /// When (unix seconds).
    pub at: i64,
}

/// One line of the App Home's figures: a watched assistant, or "asked by people".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActivityLine {
    /// The assistant's bot id, or `None` for reports people asked for.
    pub assistant: Option<String>,
    /// Reports posted.
    pub reports: u64,
    /// Links checked.
    pub links: u64,
    /// Of which broken.
    pub broken: u64,
    /// Claims that cite nothing.
    pub uncited: u64,
    /// Claims their pages do not support.
    pub not_supported: u64,
    /// Claims in all (the share's denominator).
    pub claims: u64,
    /// 👍 given.
    pub up: u64,
    /// 👎 given.
    pub down: u64,
}

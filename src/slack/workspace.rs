//! Which workspace a request comes from, and the bot's token and identity there.
//!
//! With one bot token (`SLACK_BOT_TOKEN`), every request is served as the workspace the
//! token belongs to. Installed by OAuth into many workspaces, each event, command and
//! interaction names its workspace (`team_id`, `enterprise_id`,
//! `is_enterprise_install`, `authorizations`); [`WorkspaceKey`] reads it,
//! [`Installations`] (the installation store implements it, see [`crate::install`])
//! gives that workspace's token and bot identity, and [`Workspaces`] turns them into a
//! [`Workspace`]: a Web API client with that token, the bot's identity there, its
//! permalink checker and its own slice of the shared state, cached for a minute so
//! that a busy workspace does not read the database for every event. A request from a
//! workspace with no installation is acknowledged, logged and not acted on.

use super::api::SlackApi;
use super::inbound::{BotIdentity, Watch};
pub use super::permalinks::{NoSlackToken, PermalinkChecker, NO_SLACK_TOKEN};
use crate::health::Part;
use crate::state::{BotState, ScopedState};
use crate::verify::InternalChecker;
use async_trait::async_trait;
use dashmap::DashMap;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a resolved workspace is reused before its installation is read again: a
/// rotated token or an uninstall on another replica is seen within this time (a
/// rotated-out token stays valid until it expires, hours later).
pub const WORKSPACE_CACHE_TTL: Duration = Duration::from_secs(60);

/// Workspaces kept resolved at most; past it entries too old to serve even while the
/// database is down are dropped, then expired ones, then all.
pub const WORKSPACE_CACHE_MAX: usize = 10_000;

/// How old a cached workspace may be and still be served while the installation
/// database cannot be read: long enough to ride out an outage, short enough that a
/// rotated token (valid for 12 hours) is still good.
pub const WORKSPACE_STALE_MAX: Duration = Duration::from_secs(3600);

pub use crate::model::workspace::WorkspaceKey;

/// Reading which installation a Slack request names.
impl WorkspaceKey {
    /// The installation an Events API `callback` was delivered for: the first of its
    /// `authorizations` (the installation Slack used), else its top-level
    /// `enterprise_id`, `team_id` and `is_enterprise_install`.
    pub fn of_callback(callback: &Value) -> Option<WorkspaceKey> {
        let text = |pointer: &str| callback.pointer(pointer).and_then(Value::as_str);
        let flag = |pointer: &str| callback.pointer(pointer).and_then(Value::as_bool);
        if callback.pointer("/authorizations/0").is_some() {
            let key = WorkspaceKey::new(
                text("/authorizations/0/enterprise_id"),
                text("/authorizations/0/team_id"),
                flag("/authorizations/0/is_enterprise_install").unwrap_or(false),
            );
            if key.is_some() {
                return key;
            }
        }
        WorkspaceKey::new(
            text("/enterprise_id"),
            text("/team_id"),
            flag("/is_enterprise_install").unwrap_or(false),
        )
    }

    /// The installation an interaction payload (shortcut, button) came through: its
    /// `team.id` (else the user's `team_id`), `enterprise.id` and
    /// `is_enterprise_install`.
    pub fn of_interaction(payload: &Value) -> Option<WorkspaceKey> {
        let text = |pointer: &str| payload.pointer(pointer).and_then(Value::as_str);
        WorkspaceKey::new(
            text("/enterprise/id").or_else(|| text("/user/enterprise_id")),
            text("/team/id").or_else(|| text("/user/team_id")),
            payload
                .get("is_enterprise_install")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        )
    }

    /// The installation a slash command came through, from its form fields
    /// (`team_id`, `enterprise_id`, `is_enterprise_install` as `"true"`/`"false"`).
    pub fn of_command(field: impl Fn(&str) -> Option<String>) -> Option<WorkspaceKey> {
        let enterprise_id = field("enterprise_id");
        let team_id = field("team_id");
        WorkspaceKey::new(
            enterprise_id.as_deref(),
            team_id.as_deref(),
            field("is_enterprise_install").as_deref() == Some("true"),
        )
    }
}

/// The bot's token and identity in one workspace (or organization).
#[derive(Clone, PartialEq, Eq)]
pub struct WorkspaceCredentials {
    /// The installation they belong to.
    pub key: WorkspaceKey,
    /// The bot token (`xoxb-…`, or `xoxe.xoxb-…` with rotation).
    pub bot_token: String,
    /// The bot user there (`U…`).
    pub bot_user_id: String,
    /// The bot's id there (`B…`), when known.
    pub bot_id: Option<String>,
    /// Who installed the app there (`U…`), when known: they may change its settings.
    pub installer_user_id: Option<String>,
}

impl std::fmt::Debug for WorkspaceCredentials {
    /// The token is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkspaceCredentials")
            .field("key", &self.key)
            .field("bot_token", &"<redacted>")
            .field("bot_user_id", &self.bot_user_id)
            .field("bot_id", &self.bot_id)
            .field("installer_user_id", &self.installer_user_id)
            .finish()
    }
}

/// Where the bot finds each workspace's credentials, and whom it tells when the app
/// leaves one: the installation store ([`crate::install`]), so the bot needs to know
/// nothing about how installations are kept.
#[async_trait]
pub trait Installations: Send + Sync {
    /// The credentials that serve `key` (a workspace's own install, else its
    /// organization's org-wide one); `Ok(None)` when the app is not installed there.
    async fn credentials(
        &self,
        key: &WorkspaceKey,
    ) -> Result<Option<WorkspaceCredentials>, InstallationsError>;

    /// The app was uninstalled from `key`'s workspace or organization, or its bot
    /// token revoked: forget the installation.
    async fn uninstalled(&self, key: &WorkspaceKey);
}

/// Why the credentials of a workspace could not be read (the database failed, a
/// stored token could not be opened). Never holds a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read the installation: {0}")]
pub struct InstallationsError(pub String);

/// Everything the bot needs to act in one workspace.
pub struct Workspace {
    /// The installation this is, or `None` for the one workspace of `SLACK_BOT_TOKEN`
    /// when its team is unknown.
    pub key: Option<WorkspaceKey>,
    /// The Web API with this workspace's token; its pacing and back-offs are the
    /// workspace's own.
    pub api: Arc<SlackApi>,
    /// Who the bot is here, and which bots it watches.
    pub watch: Watch,
    /// The workspace's slice of the shared state (replies, locks, shares, pacing).
    pub state: Arc<dyn BotState>,
    /// Checks Slack permalinks with this workspace's token.
    pub permalinks: Arc<dyn InternalChecker>,
    /// Who installed the app here, when known: they may change its settings.
    pub installer: Option<String>,
}

impl Workspace {
    /// A workspace served with `api` (its token) as `identity`; its state is `shared`
    /// scoped to `key`.
    pub fn new(
        key: Option<WorkspaceKey>,
        api: SlackApi,
        identity: BotIdentity,
        watched: HashSet<String>,
        shared: &Arc<dyn BotState>,
    ) -> Workspace {
        let state: Arc<dyn BotState> = match &key {
            Some(key) => Arc::new(ScopedState::new(shared.clone(), key.scope())),
            None => shared.clone(),
        };
        let api = match &key {
            Some(key) => api.for_workspace(key.scope()),
            None => api,
        };
        let api = Arc::new(api.with_state(state.clone()));
        Workspace {
            key,
            permalinks: Arc::new(PermalinkChecker::new(api.clone())),
            api,
            watch: Watch {
                identity,
                bot_ids: watched,
            },
            state,
            installer: None,
        }
    }

    /// This workspace, installed by `installer`.
    pub fn with_installer(mut self, installer: Option<String>) -> Workspace {
        self.installer = installer;
        self
    }

    /// The workspace's id for logs (`T…`, `E…`, or `-`).
    pub fn id(&self) -> &str {
        self.key.as_ref().map_or("-", WorkspaceKey::scope)
    }
}

/// The workspaces the bot serves: the one of its bot token, or every workspace that
/// installed it.
pub enum Workspaces {
    /// `SLACK_BOT_TOKEN` alone: every request is served in its workspace.
    Single(Arc<Workspace>),
    /// Installed by OAuth: each request in its own workspace.
    Installed(Installed),
}

/// The workspaces that installed the app, resolved on demand and cached.
pub struct Installed {
    installations: Arc<dyn Installations>,
    /// The client every workspace's is made from (shares connections and metrics).
    base: Arc<SlackApi>,
    /// The state every workspace's slice is cut from.
    shared: Arc<dyn BotState>,
    watched: HashSet<String>,
    /// `SLACK_BOT_TOKEN`'s workspace, when a token is set too: it is served with that
    /// token when the store has no installation for it.
    home: Option<Arc<Workspace>>,
    cache: DashMap<WorkspaceKey, (Arc<Workspace>, Instant)>,
    /// How long a cached workspace is used before its installation is read again.
    ttl: Duration,
}

/// Why a request's workspace cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unserved {
    /// The request names no workspace.
    #[error("the request names no workspace")]
    NoWorkspace,
    /// The app is not installed there (or was uninstalled).
    #[error("the app is not installed in workspace {0}")]
    NotInstalled(String),
    /// The installation could not be read.
    #[error(transparent)]
    Store(#[from] InstallationsError),
}

impl Installed {
    /// Workspaces from `installations`, each with a client made from `base` (a client
    /// without a token, sharing its connections and metrics), its state cut from
    /// `shared`; `home` serves its own workspace when nothing is installed there.
    pub fn new(
        installations: Arc<dyn Installations>,
        base: Arc<SlackApi>,
        shared: Arc<dyn BotState>,
        watched: HashSet<String>,
        home: Option<Arc<Workspace>>,
    ) -> Installed {
        Installed {
            installations,
            base,
            shared,
            watched,
            home,
            cache: DashMap::new(),
            ttl: WORKSPACE_CACHE_TTL,
        }
    }

    /// These workspaces, each read again from the store `ttl` after it was last read.
    pub fn with_ttl(mut self, ttl: Duration) -> Installed {
        self.ttl = ttl;
        self
    }

    /// The workspace `key` names, from the cache when it is fresh; while the store
    /// cannot be read, from the cache when it was read within [`WORKSPACE_STALE_MAX`].
    async fn resolve(&self, key: &WorkspaceKey) -> Result<Arc<Workspace>, Unserved> {
        if let Some(workspace) = self.cached(key) {
            return Ok(workspace);
        }
        let health = self.base.metrics().map(|metrics| metrics.health());
        // The store failed a moment ago: serve the last read at once rather than wait
        // for the pool to time out again on every request.
        if health.is_some_and(|health| store_failed_lately(&health.record(Part::Database))) {
            if let Some(workspace) = self.aged(key, WORKSPACE_STALE_MAX) {
                return Ok(workspace);
            }
        }
        let credentials = match self.installations.credentials(key).await {
            Ok(credentials) => {
                if let Some(health) = health {
                    health.ok(Part::Database);
                }
                credentials
            }
            Err(error) => {
                if let Some(health) = health {
                    health.failed(Part::Database, &error.to_string());
                }
                if let Some(workspace) = self.aged(key, WORKSPACE_STALE_MAX) {
                    tracing::warn!(
                        workspace = key.scope(),
                        %error,
                        "the installation database cannot be read: serving the workspace as last read"
                    );
                    return Ok(workspace);
                }
                return Err(error.into());
            }
        };
        let workspace = match credentials {
            Some(credentials) => Arc::new(
                Workspace::new(
                    Some(credentials.key.clone()),
                    self.base.with_token(&credentials.bot_token),
                    BotIdentity {
                        user_id: credentials.bot_user_id,
                        bot_id: credentials.bot_id,
                    },
                    self.watched.clone(),
                    &self.shared,
                )
                .with_installer(credentials.installer_user_id),
            ),
            None => match self.home.as_ref().filter(|home| serves(home, key)) {
                Some(home) => home.clone(),
                None => return Err(Unserved::NotInstalled(key.scope().to_string())),
            },
        };
        self.keep(key, &workspace);
        Ok(workspace)
    }

    fn cached(&self, key: &WorkspaceKey) -> Option<Arc<Workspace>> {
        self.aged(key, self.ttl)
    }

    /// The cached workspace for `key` if it was read less than `age` ago.
    fn aged(&self, key: &WorkspaceKey, age: Duration) -> Option<Arc<Workspace>> {
        let entry = self.cache.get(key)?;
        (entry.1.elapsed() < age).then(|| entry.0.clone())
    }

    fn keep(&self, key: &WorkspaceKey, workspace: &Arc<Workspace>) {
        if self.cache.len() >= WORKSPACE_CACHE_MAX {
            self.cache
                .retain(|_, (_, at)| at.elapsed() < WORKSPACE_STALE_MAX);
        }
        if self.cache.len() >= WORKSPACE_CACHE_MAX {
            let ttl = self.ttl;
            self.cache.retain(|_, (_, at)| at.elapsed() < ttl);
            if self.cache.len() >= WORKSPACE_CACHE_MAX {
                self.cache.clear();
            }
        }
        self.cache
            .insert(key.clone(), (workspace.clone(), Instant::now()));
    }
}

/// How long after the store failed to answer a cached workspace is served without
/// asking it again (seconds).
pub const STORE_RETRY_AFTER: i64 = 5;

/// Whether the store is down and failed within the last [`STORE_RETRY_AFTER`] seconds.
fn store_failed_lately(database: &crate::health::Record) -> bool {
    database.status == crate::health::Status::Down
        && database
            .last_error_at
            .is_some_and(|at| crate::calendar::unix_now() - at < STORE_RETRY_AFTER)
}

/// Whether the single-token workspace `home` is the one `key` names.
fn serves(home: &Workspace, key: &WorkspaceKey) -> bool {
    home.key.as_ref().is_some_and(|own| {
        own.team_id.is_some() && own.team_id == key.team_id
            || own.is_enterprise_install && own.enterprise_id == key.enterprise_id
    })
}

impl Workspaces {
    /// The workspace that serves `key` (the one workspace with a single token).
    pub async fn resolve(&self, key: Option<&WorkspaceKey>) -> Result<Arc<Workspace>, Unserved> {
        match self {
            Workspaces::Single(workspace) => Ok(workspace.clone()),
            Workspaces::Installed(installed) => {
                installed.resolve(key.ok_or(Unserved::NoWorkspace)?).await
            }
        }
    }

    /// The workspace for `key` when it is at hand without waiting (always with a single
    /// token; from the cache otherwise).
    pub fn at_hand(&self, key: Option<&WorkspaceKey>) -> Option<Arc<Workspace>> {
        match self {
            Workspaces::Single(workspace) => Some(workspace.clone()),
            Workspaces::Installed(installed) => installed.cached(key?),
        }
    }

    /// The app left `key`'s workspace: the installation is forgotten (told to the
    /// store), and so is the workspace's state here and in the shared store.
    pub async fn uninstalled(&self, key: &WorkspaceKey) {
        match self {
            Workspaces::Single(_) => {
                tracing::info!(
                    workspace = key.scope(),
                    "the app was uninstalled or its bot token revoked"
                );
            }
            Workspaces::Installed(installed) => {
                // State first, the installation last: once the installation is gone,
                // so is everything the workspace kept (Slack sends nothing more).
                installed.cache.retain(|cached, (workspace, _)| {
                    cached != key && workspace.key.as_ref() != Some(key)
                });
                installed.shared.forget_scope(key.scope()).await;
                installed.installations.uninstalled(key).await;
            }
        }
    }

    /// The single token's workspace, or the home workspace when installed by OAuth with
    /// a token too: used where a request names no workspace (the answer API).
    pub fn home(&self) -> Option<&Arc<Workspace>> {
        match self {
            Workspaces::Single(workspace) => Some(workspace),
            Workspaces::Installed(installed) => installed.home.as_ref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Installations that answer for `T1` and `T2`, or fail as a database that is down.
    struct Flaky {
        down: std::sync::atomic::AtomicBool,
        reads: std::sync::atomic::AtomicUsize,
    }

    #[async_trait]
    impl Installations for Flaky {
        async fn credentials(
            &self,
            key: &WorkspaceKey,
        ) -> Result<Option<WorkspaceCredentials>, InstallationsError> {
            use std::sync::atomic::Ordering;
            self.reads.fetch_add(1, Ordering::SeqCst);
            if self.down.load(Ordering::SeqCst) {
                return Err(InstallationsError("connection refused".into()));
            }
            Ok(Some(WorkspaceCredentials {
                key: key.clone(),
                bot_token: format!("xoxb-{}", key.scope()),
                bot_user_id: "U0BOT".into(),
                bot_id: None,
                installer_user_id: None,
            }))
        }

        async fn uninstalled(&self, _key: &WorkspaceKey) {}
    }

    #[tokio::test]
    async fn while_the_database_is_down_recent_workspaces_are_served_and_others_are_not() {
        use std::sync::atomic::Ordering;
        let flaky = Arc::new(Flaky {
            down: false.into(),
            reads: 0.into(),
        });
        let metrics = crate::metrics::Metrics::new();
        let base = SlackApi::new("http://127.0.0.1:9/api", "", Duration::from_secs(1))
            .expect("client")
            .with_metrics(metrics.clone());
        let shared: Arc<dyn BotState> = Arc::new(crate::state::MemoryState::new());
        let installed = Installed::new(flaky.clone(), Arc::new(base), shared, HashSet::new(), None)
            .with_ttl(Duration::from_millis(1));
        let workspaces = Workspaces::Installed(installed);
        let t1 = WorkspaceKey::new(None, Some("T1"), false).expect("key");
        let t2 = WorkspaceKey::new(None, Some("T2"), false).expect("key");
        let first = workspaces.resolve(Some(&t1)).await.expect("T1 served");
        assert_eq!(
            metrics.health().record(Part::Database).status,
            crate::health::Status::Ok
        );
        flaky.down.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(5)).await;
        // Past the TTL the store is asked again; it fails; the last read serves.
        let stale = workspaces
            .resolve(Some(&t1))
            .await
            .expect("T1 still served");
        assert!(Arc::ptr_eq(&first, &stale));
        assert_eq!(
            flaky.reads.load(Ordering::SeqCst),
            2,
            "the store was asked again"
        );
        // It failed a moment ago: the next request is served without waiting on it.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let again = workspaces
            .resolve(Some(&t1))
            .await
            .expect("T1 still served");
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(
            flaky.reads.load(Ordering::SeqCst),
            2,
            "not asked again so soon"
        );
        // A workspace with nothing cached still asks (the store may be back).
        let refused = workspaces.resolve(Some(&t2)).await.err();
        assert!(matches!(refused, Some(Unserved::Store(_))), "{refused:?}");
        let database = metrics.health().record(Part::Database);
        assert_eq!(database.status, crate::health::Status::Down);
        assert_eq!(
            database.last_error.as_deref(),
            Some("cannot read the installation: connection refused")
        );
        // Back: both served, and the part is up again.
        flaky.down.store(false, Ordering::SeqCst);
        workspaces.resolve(Some(&t2)).await.expect("T2 served");
        assert_eq!(
            metrics.health().record(Part::Database).status,
            crate::health::Status::Ok
        );
    }

    #[test]
    fn callbacks_name_their_installation() {
        // The shape of https://docs.slack.dev/apis/events-api/#callback-field.
        let callback = json!({
            "team_id": "T0OTHER",
            "authorizations": [{"enterprise_id": null, "team_id": "T0001", "user_id": "U0BOT",
                "is_bot": true, "is_enterprise_install": false}]
        });
        let key = WorkspaceKey::of_callback(&callback).unwrap();
        assert_eq!(key.team_id.as_deref(), Some("T0001"));
        assert_eq!(key.scope(), "T0001");

        let org = json!({"team_id": "T0001", "enterprise_id": "E0001",
            "authorizations": [{"enterprise_id": "E0001", "team_id": null,
                "is_enterprise_install": true}]});
        let key = WorkspaceKey::of_callback(&org).unwrap();
        assert_eq!(key.team_id, None);
        assert!(key.is_enterprise_install);
        assert_eq!(key.scope(), "E0001");

        let bare = json!({"team_id": "T0002"});
        assert_eq!(
            WorkspaceKey::of_callback(&bare).unwrap().team_id.as_deref(),
            Some("T0002")
        );
        assert_eq!(WorkspaceKey::of_callback(&json!({})), None);
        assert_eq!(
            WorkspaceKey::of_callback(&json!({"is_enterprise_install": true, "team_id": "T1"})),
            None,
            "an org-wide install needs its organization"
        );
    }

    #[test]
    fn interactions_and_commands_name_their_installation() {
        let payload = json!({"type": "message_action", "team": {"id": "T0001", "domain": "acme"},
            "user": {"id": "U1", "team_id": "T0001"}, "enterprise": null,
            "is_enterprise_install": false});
        let key = WorkspaceKey::of_interaction(&payload).unwrap();
        assert_eq!(key.team_id.as_deref(), Some("T0001"));
        assert_eq!(key.enterprise_id, None);

        let fields = [
            ("team_id", "T0002"),
            ("enterprise_id", "E0002"),
            ("is_enterprise_install", "false"),
        ];
        let field = |name: &str| {
            fields
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        };
        let key = WorkspaceKey::of_command(field).unwrap();
        assert_eq!(key.team_id.as_deref(), Some("T0002"));
        assert_eq!(key.enterprise_id.as_deref(), Some("E0002"));
        assert!(!key.is_enterprise_install);
    }

    #[test]
    fn credentials_never_print_their_token() {
        let credentials = WorkspaceCredentials {
            key: WorkspaceKey::new(None, Some("T1"), false).unwrap(),
            bot_token: "xoxb-secret-token".to_string(),
            bot_user_id: "U1".to_string(),
            bot_id: None,
            installer_user_id: None,
        };
        assert!(!format!("{credentials:?}").contains("secret"));
    }
}

//! The installations sourcebot was given, behind one interface
//! ([`InstallationStore`]) and kept in SQL through `sqlx` ([`SqlStore`]): a SQLite file
//! by default (`sqlite://sourcebot.db`, nothing to install), PostgreSQL for several
//! replicas (`postgres://…`). The schema is created by the embedded migrations
//! (`src/store/migrations`, the same SQL on both). Tokens are sealed with the
//! [`TokenKey`] before they are written and opened when read; neither a token nor a
//! database password ever appears in an error or a debug print.

use super::token_key::{TokenKey, TokenKeyError};
pub use crate::model::workspace::WorkspaceKey;
use async_trait::async_trait;
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{PgPool, SqlitePool};
use std::str::FromStr;

/// One installation: the bot's identity and token in one workspace, or in a whole
/// organization for an org-wide install.
#[derive(Clone, PartialEq, Eq)]
pub struct Installation {
    /// The Enterprise Grid organization, if any.
    pub enterprise_id: Option<String>,
    /// The workspace; `None` for an org-wide install.
    pub team_id: Option<String>,
    /// Installed for the whole organization.
    pub is_enterprise_install: bool,
    /// The app.
    pub app_id: String,
    /// The bot user in that workspace.
    pub bot_user_id: String,
    /// The bot's id (`B…`), when Slack gave it.
    pub bot_id: Option<String>,
    /// The bot token (in memory; sealed at rest).
    pub bot_token: String,
    /// The scopes granted.
    pub bot_scopes: Vec<String>,
    /// With token rotation: the single-use refresh token (sealed at rest).
    pub bot_refresh_token: Option<String>,
    /// With token rotation: when the bot token expires (unix seconds).
    pub bot_token_expires_at: Option<i64>,
    /// Who installed it.
    pub installer_user_id: Option<String>,
    /// When (unix seconds).
    pub installed_at: i64,
}

impl std::fmt::Debug for Installation {
    /// Tokens are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Installation")
            .field("enterprise_id", &self.enterprise_id)
            .field("team_id", &self.team_id)
            .field("is_enterprise_install", &self.is_enterprise_install)
            .field("app_id", &self.app_id)
            .field("bot_user_id", &self.bot_user_id)
            .field("bot_id", &self.bot_id)
            .field("bot_token", &"<redacted>")
            .field("bot_scopes", &self.bot_scopes)
            .field(
                "bot_refresh_token",
                &self.bot_refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("bot_token_expires_at", &self.bot_token_expires_at)
            .field("installer_user_id", &self.installer_user_id)
            .field("installed_at", &self.installed_at)
            .finish()
    }
}

impl Installation {
    /// The key it is stored under.
    pub fn key(&self) -> WorkspaceKey {
        WorkspaceKey {
            enterprise_id: self.enterprise_id.clone(),
            team_id: self.team_id.clone(),
            is_enterprise_install: self.is_enterprise_install,
        }
    }
}

/// Why the store could not do something.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL is not one this store reads.
    #[error("SOURCEBOT_DATABASE_URL ({0}) is not usable: expected sqlite://path or postgres://user:password@host/db")]
    BadUrl(String),
    /// The database refused or failed.
    #[error("the installation database failed: {0}")]
    Database(String),
    /// The database could not be reached (refused, no route, no connection within
    /// the pool's time): trying again later may work.
    #[error("the installation database cannot be reached: {0}")]
    Unreachable(String),
    /// A stored token could not be opened, or a token sealed.
    #[error(transparent)]
    Token(#[from] TokenKeyError),
}

impl StoreError {
    pub(crate) fn database(error: impl std::fmt::Display) -> StoreError {
        StoreError::Database(crate::state::redis::without_secrets(&error.to_string()))
    }

    /// A connection error as [`StoreError::Unreachable`], anything else as
    /// [`StoreError::Database`].
    pub(crate) fn connecting(error: sqlx::Error) -> StoreError {
        match error {
            sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::Tls(_) => {
                StoreError::Unreachable(crate::state::redis::without_secrets(&error.to_string()))
            }
            other => StoreError::database(other),
        }
    }
}

/// Where installations are kept.
#[async_trait]
pub trait InstallationStore: Send + Sync {
    /// Saves (inserts or replaces) the installation for its key.
    async fn save(&self, installation: &Installation) -> Result<(), StoreError>;
    /// The installation that serves `key`: for an org-wide key, the organization's
    /// install; for a workspace, its own install, else its organization's org-wide one.
    async fn find(&self, key: &WorkspaceKey) -> Result<Option<Installation>, StoreError>;
    /// Deletes the installation stored under exactly `key`; whether one was there.
    async fn delete(&self, key: &WorkspaceKey) -> Result<bool, StoreError>;
    /// Installations whose bot token expires before `unix_seconds` and that can be
    /// refreshed (for token rotation).
    async fn expiring_before(&self, unix_seconds: i64) -> Result<Vec<Installation>, StoreError>;
}

/// A row as stored: ids with '' for none, tokens sealed.
type Row = (
    String,
    String,
    bool,
    String,
    String,
    Option<String>,
    String,
    String,
    Option<String>,
    Option<i64>,
    Option<String>,
    i64,
);

const COLUMNS: &str = "enterprise_id, team_id, is_enterprise_install, app_id, bot_user_id, bot_id, bot_token, bot_scopes, bot_refresh_token, bot_token_expires_at, installer_user_id, installed_at";

/// The installations in SQLite or PostgreSQL.
pub struct SqlStore {
    pool: Pool,
    key: TokenKey,
}

/// The connection pool, of one database or the other.
pub(crate) enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs the same statement, with the same binds, on either database (`$1`… in the
/// SQL; SQLite reads them as `?1`…).
macro_rules! on_pool {
    ($pool:expr, $sql:expr, |$query:ident| $body:expr) => {
        match $pool {
            Pool::Sqlite(pool) => {
                let sql = $sql.replace('$', "?");
                let $query = sqlx::query_as::<_, Row>(&sql);
                let $query = $body;
                $query.fetch_all(pool).await.map_err(StoreError::database)
            }
            Pool::Postgres(pool) => {
                let $query = sqlx::query_as::<_, Row>($sql);
                let $query = $body;
                $query.fetch_all(pool).await.map_err(StoreError::database)
            }
        }
    };
}

/// Runs a statement that returns no rows; the rows it changed.
macro_rules! exec_on_pool {
    ($pool:expr, $sql:expr, |$query:ident| $body:expr) => {
        match $pool {
            Pool::Sqlite(pool) => {
                let sql = $sql.replace('$', "?");
                let $query = sqlx::query(&sql);
                let $query = $body;
                $query
                    .execute(pool)
                    .await
                    .map(|done| done.rows_affected())
                    .map_err(StoreError::database)
            }
            Pool::Postgres(pool) => {
                let $query = sqlx::query($sql);
                let $query = $body;
                $query
                    .execute(pool)
                    .await
                    .map(|done| done.rows_affected())
                    .map_err(StoreError::database)
            }
        }
    };
}

impl SqlStore {
    /// Connects to `url` (`sqlite://path` — the file is created if missing —,
    /// `sqlite::memory:`, or `postgres://…`/`postgresql://…`) and runs the migrations.
    pub async fn connect(url: &str, key: TokenKey) -> Result<SqlStore, StoreError> {
        let shown = crate::state::redis::without_secrets(url);
        let pool = if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)
                .map_err(|_| StoreError::BadUrl(shown.clone()))?
                .create_if_missing(true);
            let pool = SqlitePoolOptions::new()
                .max_connections(4)
                .connect_with(options)
                .await
                .map_err(StoreError::database)?;
            sqlx::migrate!("src/store/migrations")
                .run(&pool)
                .await
                .map_err(StoreError::database)?;
            Pool::Sqlite(pool)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = PgPoolOptions::new()
                .max_connections(8)
                // Long enough for a busy pool; short enough that a database that is
                // away fails a request in 2 s rather than hold it.
                .acquire_timeout(std::time::Duration::from_secs(2))
                .connect(url)
                .await
                .map_err(StoreError::connecting)?;
            sqlx::migrate!("src/store/migrations")
                .run(&pool)
                .await
                .map_err(StoreError::database)?;
            Pool::Postgres(pool)
        } else {
            return Err(StoreError::BadUrl(shown));
        };
        Ok(SqlStore { pool, key })
    }

    /// Connects to `url` for the workspace data only (settings, report history,
    /// feedback: [`crate::store::workspace_data`]), without a token key: with
    /// `SLACK_BOT_TOKEN` and no OAuth, and for `sourcebot feedback export`. Stored
    /// tokens cannot be read through it.
    pub async fn connect_for_data(url: &str) -> Result<SqlStore, StoreError> {
        let key = TokenKey::random().map_err(StoreError::database)?;
        SqlStore::connect(url, key).await
    }

    /// The pool, for the other tables kept in the same database.
    pub(crate) fn pool(&self) -> &Pool {
        &self.pool
    }

    fn open(&self, row: Row) -> Result<Installation, StoreError> {
        let (
            enterprise,
            team,
            org,
            app_id,
            bot_user_id,
            bot_id,
            token,
            scopes,
            refresh,
            expires,
            installer,
            at,
        ) = row;
        let some = |s: String| (!s.is_empty()).then_some(s);
        Ok(Installation {
            enterprise_id: some(enterprise),
            team_id: some(team),
            is_enterprise_install: org,
            app_id,
            bot_user_id,
            bot_id,
            bot_token: self.key.open(&token)?,
            bot_scopes: scopes
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            bot_refresh_token: refresh.map(|r| self.key.open(&r)).transpose()?,
            bot_token_expires_at: expires,
            installer_user_id: installer,
            installed_at: at,
        })
    }

    /// The row stored under exactly these ids.
    async fn exactly(
        &self,
        enterprise: &str,
        team: &str,
        org: bool,
    ) -> Result<Option<Installation>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM installations WHERE enterprise_id = $1 AND team_id = $2 AND is_enterprise_install = $3");
        let rows = on_pool!(&self.pool, &sql, |q| q
            .bind(enterprise)
            .bind(team)
            .bind(org))?;
        rows.into_iter()
            .next()
            .map(|row| self.open(row))
            .transpose()
    }
}

fn id(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or_default()
}

#[async_trait]
impl InstallationStore for SqlStore {
    async fn save(&self, i: &Installation) -> Result<(), StoreError> {
        let token = self.key.seal(&i.bot_token)?;
        let refresh = i
            .bot_refresh_token
            .as_deref()
            .map(|r| self.key.seal(r))
            .transpose()?;
        let team = if i.is_enterprise_install {
            ""
        } else {
            id(&i.team_id)
        };
        let sql = format!(
            "INSERT INTO installations ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
             ON CONFLICT (enterprise_id, team_id, is_enterprise_install) DO UPDATE SET \
             app_id = excluded.app_id, bot_user_id = excluded.bot_user_id, bot_id = excluded.bot_id, \
             bot_token = excluded.bot_token, bot_scopes = excluded.bot_scopes, \
             bot_refresh_token = excluded.bot_refresh_token, bot_token_expires_at = excluded.bot_token_expires_at, \
             installer_user_id = excluded.installer_user_id, installed_at = excluded.installed_at"
        );
        exec_on_pool!(&self.pool, &sql, |q| q
            .bind(id(&i.enterprise_id))
            .bind(team)
            .bind(i.is_enterprise_install)
            .bind(&i.app_id)
            .bind(&i.bot_user_id)
            .bind(&i.bot_id)
            .bind(&token)
            .bind(i.bot_scopes.join(","))
            .bind(&refresh)
            .bind(i.bot_token_expires_at)
            .bind(&i.installer_user_id)
            .bind(i.installed_at))?;
        Ok(())
    }

    async fn find(&self, key: &WorkspaceKey) -> Result<Option<Installation>, StoreError> {
        let enterprise = id(&key.enterprise_id);
        if key.is_enterprise_install {
            return self.exactly(enterprise, "", true).await;
        }
        if let Some(own) = self.exactly(enterprise, id(&key.team_id), false).await? {
            return Ok(Some(own));
        }
        if enterprise.is_empty() {
            return Ok(None);
        }
        self.exactly(enterprise, "", true).await
    }

    async fn delete(&self, key: &WorkspaceKey) -> Result<bool, StoreError> {
        let team = if key.is_enterprise_install {
            ""
        } else {
            id(&key.team_id)
        };
        let deleted = exec_on_pool!(
            &self.pool,
            "DELETE FROM installations WHERE enterprise_id = $1 AND team_id = $2 AND is_enterprise_install = $3",
            |q| q.bind(id(&key.enterprise_id)).bind(team).bind(key.is_enterprise_install)
        )?;
        Ok(deleted > 0)
    }

    async fn expiring_before(&self, unix_seconds: i64) -> Result<Vec<Installation>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM installations WHERE bot_refresh_token IS NOT NULL AND bot_token_expires_at < $1 ORDER BY bot_token_expires_at");
        let rows = on_pool!(&self.pool, &sql, |q| q.bind(unix_seconds))?;
        rows.into_iter().map(|row| self.open(row)).collect()
    }
}

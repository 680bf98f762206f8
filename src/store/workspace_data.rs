//! What sourcebot keeps per workspace beside its installation, in the same SQL database
//! ([`SqlStore`]: SQLite by default, PostgreSQL for replicas; tables created by the
//! migration `20261126000000_workspace_data.sql`): the workspace's own settings, a small
//! history of the reports it posted there (counts only, never the answer's text), and
//! the feedback people gave on them, with the evidence of a report kept once feedback
//! arrives. [`WorkspaceData`] is the interface; [`SettingsCache`] keeps settings in
//! memory and, through a version in the shared state ([`BotState`]), sees a change made
//! on any replica within a few seconds. Untrusted text (comments, names) is stored as
//! given and escaped where it is shown.

use super::installations::{Pool, SqlStore, StoreError};
use crate::model::workspace::{ActivityLine, FeedbackRecord, ReportRecord, WorkspaceSettings};
use crate::state::BotState;
use async_trait::async_trait;
use serde_json::{json, Value};
use sqlx::Row;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Workspaces whose settings a [`SettingsCache`] holds at most; past it the oldest
/// loaded go first.
pub const SETTINGS_CACHE_MAX: usize = 10_000;
/// How often a [`SettingsCache`] asks the shared state, per workspace, whether the
/// settings changed on another replica.
pub const SETTINGS_RECHECK: Duration = Duration::from_secs(1);

/// Where per-workspace settings, report history and feedback are kept.
#[async_trait]
pub trait WorkspaceData: Send + Sync {
    /// `"sqlite"` or `"postgres"`, for `/readyz`.
    fn backend(&self) -> &'static str;
    /// Whether the database answers a trivial query now.
    async fn ping(&self) -> Result<(), StoreError>;
    /// The settings `workspace` saved, if any.
    async fn settings(&self, workspace: &str) -> Result<Option<WorkspaceSettings>, StoreError>;
    /// Saves (replaces) the settings of `workspace`, changed by `changed_by` at `at`
    /// (unix seconds).
    async fn save_settings(
        &self,
        workspace: &str,
        settings: &WorkspaceSettings,
        changed_by: &str,
        at: i64,
    ) -> Result<(), StoreError>;
    /// Records a posted report; recording the same report (workspace, channel,
    /// `message_ts`) again keeps one row and takes the new counts and judge (a report
    /// updated in place: the support check, an edited answer), keeping when it was
    /// first posted and for whom.
    async fn record_report(&self, report: &ReportRecord) -> Result<(), StoreError>;
    /// Records one person's feedback on a report. Pressing again replaces the vote; a
    /// later answer with the same vote (the 👎 modal) fills `wrong` and `comment`
    /// without losing what was there; a changed vote drops the old vote's `wrong` and
    /// `comment` unless it brings its own.
    async fn record_feedback(&self, feedback: &FeedbackRecord) -> Result<(), StoreError>;
    /// Keeps `evidence` (JSON) with the report, if that report was recorded; whether it
    /// was.
    async fn keep_evidence(
        &self,
        workspace: &str,
        channel: &str,
        message_ts: &str,
        evidence: &Value,
    ) -> Result<bool, StoreError>;
    /// The App Home's figures for reports of `workspace` posted at or after `since`: one
    /// line per watched assistant and one (`assistant: None`) for reports people asked
    /// for, each only when it has reports; 👍/👎 counted from the feedback on those
    /// reports. Ordered by reports, most first.
    async fn activity(&self, workspace: &str, since: i64) -> Result<Vec<ActivityLine>, StoreError>;
    /// Every feedback given at or after `since` (of one workspace, or of all), oldest
    /// first, as JSON objects: `vote`, `wrong`, `comment`, `user_id`, `at`,
    /// `workspace`, `channel`, `message_ts`, and from the report (null when it was not
    /// recorded) `assistant`, `asked_by`, `counts`, `judge`, `posted_at` and the kept
    /// `evidence`.
    async fn export_feedback(
        &self,
        since: i64,
        workspace: Option<&str>,
    ) -> Result<Vec<Value>, StoreError>;
    /// Deletes the reports posted before `older_than` and the feedback on them (and
    /// feedback older than that whose report is gone); how many rows went.
    async fn prune(&self, older_than: i64) -> Result<u64, StoreError>;
    /// Deletes the settings, reports and feedback of `workspace` (the app left it); how
    /// many rows went.
    async fn forget_workspace(&self, workspace: &str) -> Result<u64, StoreError>;
}

/// Runs a query on either database (`$1`… in the SQL; SQLite reads them as `?1`…) and
/// maps each row with `$map` (which may use `?` on `sqlx` errors).
macro_rules! rows {
    ($pool:expr, $sql:expr, |$q:ident| $bind:expr, |$row:ident| $map:expr) => {
        match $pool {
            Pool::Sqlite(pool) => {
                let sql = $sql.replace('$', "?");
                let $q = sqlx::query(&sql);
                let $q = $bind;
                let rows = $q.fetch_all(pool).await.map_err(StoreError::database)?;
                rows.iter()
                    .map(|$row| -> Result<_, sqlx::Error> { Ok($map) })
                    .collect::<Result<Vec<_>, sqlx::Error>>()
                    .map_err(StoreError::database)?
            }
            Pool::Postgres(pool) => {
                let $q = sqlx::query(&$sql);
                let $q = $bind;
                let rows = $q.fetch_all(pool).await.map_err(StoreError::database)?;
                rows.iter()
                    .map(|$row| -> Result<_, sqlx::Error> { Ok($map) })
                    .collect::<Result<Vec<_>, sqlx::Error>>()
                    .map_err(StoreError::database)?
            }
        }
    };
}

/// Runs a statement that returns no rows on either database; the rows it changed.
macro_rules! exec {
    ($pool:expr, $sql:expr, |$q:ident| $bind:expr) => {
        match $pool {
            Pool::Sqlite(pool) => {
                let sql = $sql.replace('$', "?");
                let $q = sqlx::query(&sql);
                let $q = $bind;
                $q.execute(pool)
                    .await
                    .map(|done| done.rows_affected())
                    .map_err(StoreError::database)?
            }
            Pool::Postgres(pool) => {
                let $q = sqlx::query(&$sql);
                let $q = $bind;
                $q.execute(pool)
                    .await
                    .map(|done| done.rows_affected())
                    .map_err(StoreError::database)?
            }
        }
    };
}

/// A count from the database as a `u64` (never negative).
fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// An enum's serde name (`link_verdict`, `up`…).
fn serde_name(value: &impl serde::Serialize) -> Result<String, StoreError> {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => Ok(name),
        Ok(other) => Ok(other.to_string()),
        Err(error) => Err(StoreError::database(error)),
    }
}

/// The App Home's sums per assistant, over the reports in the window (the index
/// `reports_by_time` finds them).
const ACTIVITY_SQL: &str = "SELECT assistant, COUNT(*), \
     CAST(COALESCE(SUM(sources), 0) AS BIGINT), CAST(COALESCE(SUM(broken), 0) AS BIGINT), \
     CAST(COALESCE(SUM(uncited), 0) AS BIGINT), CAST(COALESCE(SUM(not_supported), 0) AS BIGINT), \
     CAST(COALESCE(SUM(claims), 0) AS BIGINT) \
     FROM reports WHERE workspace = $1 AND posted_at >= $2 GROUP BY assistant";

/// 👍/👎 per assistant, from the feedback on the reports in the window.
const VOTES_SQL: &str = "SELECT r.assistant, \
     CAST(COALESCE(SUM(CASE WHEN f.vote = 'up' THEN 1 ELSE 0 END), 0) AS BIGINT), \
     CAST(COALESCE(SUM(CASE WHEN f.vote = 'down' THEN 1 ELSE 0 END), 0) AS BIGINT) \
     FROM feedback f JOIN reports r ON r.workspace = f.workspace \
     AND r.channel = f.channel AND r.message_ts = f.message_ts \
     WHERE f.workspace = $1 AND r.posted_at >= $2 GROUP BY r.assistant";

const EXPORT_SQL: &str = "SELECT f.vote, f.wrong, f.comment, f.user_id, f.at, \
     f.workspace, f.channel, f.message_ts, r.assistant, r.asked_by, \
     r.sources, r.verified, r.broken, r.claims, r.uncited, r.not_supported, \
     r.judge, r.posted_at, r.evidence \
     FROM feedback f LEFT JOIN reports r ON r.workspace = f.workspace \
     AND r.channel = f.channel AND r.message_ts = f.message_ts \
     WHERE f.at >= $1";

const EXPORT_ORDER: &str = " ORDER BY f.at, f.workspace, f.channel, f.message_ts, f.user_id";

#[async_trait]
impl WorkspaceData for SqlStore {
    fn backend(&self) -> &'static str {
        match self.pool() {
            Pool::Sqlite(_) => "sqlite",
            Pool::Postgres(_) => "postgres",
        }
    }

    async fn ping(&self) -> Result<(), StoreError> {
        match self.pool() {
            Pool::Sqlite(pool) => sqlx::query("SELECT 1").execute(pool).await.map(|_| ()),
            Pool::Postgres(pool) => sqlx::query("SELECT 1").execute(pool).await.map(|_| ()),
        }
        .map_err(StoreError::database)
    }

    async fn settings(&self, workspace: &str) -> Result<Option<WorkspaceSettings>, StoreError> {
        let found = rows!(
            self.pool(),
            "SELECT settings FROM workspace_settings WHERE workspace = $1",
            |q| q.bind(workspace),
            |row| row.try_get::<String, _>(0)?
        );
        let Some(text) = found.into_iter().next() else {
            return Ok(None);
        };
        serde_json::from_str(&text).map(Some).map_err(|error| {
            StoreError::Database(format!(
                "the settings stored for workspace {workspace} are not valid: {error}"
            ))
        })
    }

    async fn save_settings(
        &self,
        workspace: &str,
        settings: &WorkspaceSettings,
        changed_by: &str,
        at: i64,
    ) -> Result<(), StoreError> {
        let text = serde_json::to_string(settings).map_err(StoreError::database)?;
        exec!(
            self.pool(),
            "INSERT INTO workspace_settings (workspace, settings, changed_by, changed_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (workspace) DO UPDATE SET \
             settings = excluded.settings, changed_by = excluded.changed_by, \
             changed_at = excluded.changed_at",
            |q| q.bind(workspace).bind(&text).bind(changed_by).bind(at)
        );
        Ok(())
    }

    async fn record_report(&self, r: &ReportRecord) -> Result<(), StoreError> {
        let c = r.counts;
        exec!(
            self.pool(),
            "INSERT INTO reports (workspace, channel, message_ts, assistant, asked_by, \
             sources, verified, broken, claims, uncited, not_supported, judge, posted_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
             ON CONFLICT (workspace, channel, message_ts) DO UPDATE SET \
             sources = excluded.sources, verified = excluded.verified, broken = excluded.broken, \
             claims = excluded.claims, uncited = excluded.uncited, \
             not_supported = excluded.not_supported, judge = excluded.judge",
            |q| q
                .bind(&r.workspace)
                .bind(&r.channel)
                .bind(&r.message_ts)
                .bind(&r.assistant)
                .bind(&r.asked_by)
                .bind(i64::from(c.sources))
                .bind(i64::from(c.verified))
                .bind(i64::from(c.broken))
                .bind(i64::from(c.claims))
                .bind(i64::from(c.uncited))
                .bind(i64::from(c.not_supported))
                .bind(&r.judge)
                .bind(r.posted_at)
        );
        Ok(())
    }

    async fn record_feedback(&self, f: &FeedbackRecord) -> Result<(), StoreError> {
        let vote = f.vote.as_str();
        let wrong = f.wrong.as_ref().map(serde_name).transpose()?;
        // Kept as a JSON string: PostgreSQL's TEXT cannot hold a NUL character, and a
        // comment is kept exactly as given.
        let comment = f
            .comment
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(StoreError::database)?;
        exec!(
            self.pool(),
            "INSERT INTO feedback (workspace, channel, message_ts, user_id, vote, wrong, comment, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (workspace, channel, message_ts, user_id) DO UPDATE SET \
             wrong = CASE WHEN excluded.vote = feedback.vote \
                 THEN COALESCE(excluded.wrong, feedback.wrong) ELSE excluded.wrong END, \
             comment = CASE WHEN excluded.vote = feedback.vote \
                 THEN COALESCE(excluded.comment, feedback.comment) ELSE excluded.comment END, \
             vote = excluded.vote, at = excluded.at",
            |q| q
                .bind(&f.workspace)
                .bind(&f.channel)
                .bind(&f.message_ts)
                .bind(&f.user_id)
                .bind(vote)
                .bind(&wrong)
                .bind(&comment)
                .bind(f.at)
        );
        Ok(())
    }

    async fn keep_evidence(
        &self,
        workspace: &str,
        channel: &str,
        message_ts: &str,
        evidence: &Value,
    ) -> Result<bool, StoreError> {
        let text = evidence.to_string();
        let changed = exec!(
            self.pool(),
            "UPDATE reports SET evidence = $4 WHERE workspace = $1 AND channel = $2 AND message_ts = $3",
            |q| q.bind(workspace).bind(channel).bind(message_ts).bind(&text)
        );
        Ok(changed > 0)
    }

    async fn activity(&self, workspace: &str, since: i64) -> Result<Vec<ActivityLine>, StoreError> {
        let mut lines = rows!(
            self.pool(),
            ACTIVITY_SQL,
            |q| q.bind(workspace).bind(since),
            |row| ActivityLine {
                assistant: row.try_get::<Option<String>, _>(0)?,
                reports: count(row.try_get(1)?),
                links: count(row.try_get(2)?),
                broken: count(row.try_get(3)?),
                uncited: count(row.try_get(4)?),
                not_supported: count(row.try_get(5)?),
                claims: count(row.try_get(6)?),
                up: 0,
                down: 0,
            }
        );
        let votes = rows!(
            self.pool(),
            VOTES_SQL,
            |q| q.bind(workspace).bind(since),
            |row| (
                row.try_get::<Option<String>, _>(0)?,
                count(row.try_get(1)?),
                count(row.try_get(2)?)
            )
        );
        for (assistant, up, down) in votes {
            if let Some(line) = lines.iter_mut().find(|line| line.assistant == assistant) {
                line.up = up;
                line.down = down;
            }
        }
        lines.sort_by(|a, b| {
            b.reports
                .cmp(&a.reports)
                .then_with(|| a.assistant.is_none().cmp(&b.assistant.is_none()))
                .then_with(|| a.assistant.cmp(&b.assistant))
        });
        Ok(lines)
    }

    async fn export_feedback(
        &self,
        since: i64,
        workspace: Option<&str>,
    ) -> Result<Vec<Value>, StoreError> {
        let sql = match workspace {
            Some(_) => format!("{EXPORT_SQL} AND f.workspace = $2{EXPORT_ORDER}"),
            None => format!("{EXPORT_SQL}{EXPORT_ORDER}"),
        };
        let raw = rows!(
            self.pool(),
            sql,
            |q| match workspace {
                Some(workspace) => q.bind(since).bind(workspace),
                None => q.bind(since),
            },
            |row| {
                let workspace: String = row.try_get(5)?;
                let channel: String = row.try_get(6)?;
                let message_ts: String = row.try_get(7)?;
                let posted_at: Option<i64> = row.try_get(17)?;
                let counts = match posted_at {
                    Some(_) => json!({
                        "sources": row.try_get::<Option<i64>, _>(10)?,
                        "verified": row.try_get::<Option<i64>, _>(11)?,
                        "broken": row.try_get::<Option<i64>, _>(12)?,
                        "claims": row.try_get::<Option<i64>, _>(13)?,
                        "uncited": row.try_get::<Option<i64>, _>(14)?,
                        "not_supported": row.try_get::<Option<i64>, _>(15)?,
                    }),
                    None => Value::Null,
                };
                let evidence: Option<String> = row.try_get(18)?;
                let comment: Option<String> = row.try_get(2)?;
                let object = json!({
                    "vote": row.try_get::<String, _>(0)?,
                    "wrong": row.try_get::<Option<String>, _>(1)?,
                    "comment": Value::Null,
                    "user_id": row.try_get::<String, _>(3)?,
                    "at": row.try_get::<i64, _>(4)?,
                    "workspace": workspace,
                    "channel": channel,
                    "message_ts": message_ts,
                    "assistant": row.try_get::<Option<String>, _>(8)?,
                    "asked_by": row.try_get::<Option<String>, _>(9)?,
                    "counts": counts,
                    "judge": row.try_get::<Option<String>, _>(16)?,
                    "posted_at": posted_at,
                });
                (object, comment, evidence)
            }
        );
        raw.into_iter()
            .map(|(mut object, comment, evidence)| {
                let comment = match comment {
                    None => Value::Null,
                    Some(text) => match serde_json::from_str::<String>(&text) {
                        Ok(comment) => Value::String(comment),
                        // Written before comments were kept as JSON: as it is.
                        Err(_) => Value::String(text),
                    },
                };
                let evidence = match evidence {
                    None => Value::Null,
                    Some(text) => serde_json::from_str(&text).map_err(|error| {
                        StoreError::Database(format!(
                            "the evidence kept for report {} {} of workspace {} is not valid JSON: {error}",
                            object["channel"], object["message_ts"], object["workspace"]
                        ))
                    })?,
                };
                if let Value::Object(map) = &mut object {
                    map.insert("comment".to_string(), comment);
                    map.insert("evidence".to_string(), evidence);
                }
                Ok(object)
            })
            .collect()
    }

    async fn prune(&self, older_than: i64) -> Result<u64, StoreError> {
        // Feedback first (it finds its reports), then the reports, in one transaction:
        // a database that goes away half-way leaves both as they were.
        self.together(&[
            (
                "DELETE FROM feedback WHERE EXISTS (SELECT 1 FROM reports r \
                 WHERE r.workspace = feedback.workspace AND r.channel = feedback.channel \
                 AND r.message_ts = feedback.message_ts AND r.posted_at < $1) \
                 OR (feedback.at < $1 AND NOT EXISTS (SELECT 1 FROM reports r \
                 WHERE r.workspace = feedback.workspace AND r.channel = feedback.channel \
                 AND r.message_ts = feedback.message_ts))",
                Param::Int(older_than),
            ),
            (
                "DELETE FROM reports WHERE posted_at < $1",
                Param::Int(older_than),
            ),
        ])
        .await
    }

    async fn forget_workspace(&self, workspace: &str) -> Result<u64, StoreError> {
        self.together(&[
            (
                "DELETE FROM feedback WHERE workspace = $1",
                Param::Text(workspace),
            ),
            (
                "DELETE FROM reports WHERE workspace = $1",
                Param::Text(workspace),
            ),
            (
                "DELETE FROM workspace_settings WHERE workspace = $1",
                Param::Text(workspace),
            ),
        ])
        .await
    }
}

/// The one parameter (`$1`) of a statement run by [`SqlStore::together`].
enum Param<'a> {
    Int(i64),
    Text(&'a str),
}

impl SqlStore {
    /// Runs `statements` in one transaction: all of them, or (when the database fails
    /// half-way) none. How many rows they changed.
    async fn together(&self, statements: &[(&str, Param<'_>)]) -> Result<u64, StoreError> {
        let mut changed = 0;
        match self.pool() {
            Pool::Sqlite(pool) => {
                let mut tx = pool.begin().await.map_err(StoreError::database)?;
                for (sql, param) in statements {
                    let sql = sql.replace('$', "?");
                    let query = match param {
                        Param::Int(n) => sqlx::query(&sql).bind(*n),
                        Param::Text(t) => sqlx::query(&sql).bind(*t),
                    };
                    changed += query
                        .execute(&mut *tx)
                        .await
                        .map_err(StoreError::database)?
                        .rows_affected();
                }
                tx.commit().await.map_err(StoreError::database)?;
            }
            Pool::Postgres(pool) => {
                let mut tx = pool.begin().await.map_err(StoreError::database)?;
                for (sql, param) in statements {
                    let query = match param {
                        Param::Int(n) => sqlx::query(sql).bind(*n),
                        Param::Text(t) => sqlx::query(sql).bind(*t),
                    };
                    changed += query
                        .execute(&mut *tx)
                        .await
                        .map_err(StoreError::database)?
                        .rows_affected();
                }
                tx.commit().await.map_err(StoreError::database)?;
            }
        }
        Ok(changed)
    }
}

/// One workspace's settings as a [`SettingsCache`] holds them.
struct Cached {
    settings: Option<WorkspaceSettings>,
    /// The shared version they were loaded at.
    version: u64,
    /// When the shared version was last asked.
    checked: Instant,
}

/// The cache's map and the order workspaces were loaded in (for eviction).
#[derive(Default)]
struct Entries {
    map: HashMap<String, Cached>,
    order: VecDeque<String>,
}

impl Entries {
    fn put(&mut self, workspace: &str, cached: Cached, max: usize) {
        if self.map.insert(workspace.to_string(), cached).is_some() {
            return;
        }
        self.order.push_back(workspace.to_string());
        while self.map.len() > max {
            match self.order.pop_front() {
                Some(oldest) => {
                    self.map.remove(&oldest);
                }
                None => break,
            }
        }
        // Keys forgotten by `remove` leave stale names in `order`; drop them once
        // they outnumber the live ones.
        if self.order.len() > 2 * max.max(1) {
            let map = &self.map;
            self.order.retain(|name| map.contains_key(name));
        }
    }
}

/// Workspace settings held in memory over a [`WorkspaceData`], kept in step across
/// replicas by a per-workspace version in the shared state: a change saved through any
/// replica's cache bumps it, and a read asks for it at most once per re-check interval
/// (default [`SETTINGS_RECHECK`]) and reloads when it moved. At most
/// [`SETTINGS_CACHE_MAX`] workspaces are held; past it the oldest loaded go first.
///
/// Give it the process's unscoped shared state (the same on every replica).
pub struct SettingsCache {
    data: Arc<dyn WorkspaceData>,
    state: Arc<dyn BotState>,
    recheck: Duration,
    max: usize,
    entries: Mutex<Entries>,
}

impl SettingsCache {
    /// A cache re-checking the shared version once a second per workspace.
    pub fn new(data: Arc<dyn WorkspaceData>, state: Arc<dyn BotState>) -> SettingsCache {
        SettingsCache::with_recheck(data, state, SETTINGS_RECHECK)
    }

    /// A cache re-checking the shared version every `recheck` per workspace.
    pub fn with_recheck(
        data: Arc<dyn WorkspaceData>,
        state: Arc<dyn BotState>,
        recheck: Duration,
    ) -> SettingsCache {
        SettingsCache {
            data,
            state,
            recheck,
            max: SETTINGS_CACHE_MAX,
            entries: Mutex::new(Entries::default()),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The settings `workspace` saved (`None`: it saved none, the defaults hold), as
    /// of at most one re-check interval ago on any replica.
    pub async fn get(&self, workspace: &str) -> Result<Option<WorkspaceSettings>, StoreError> {
        let held = {
            let entries = self.entries();
            entries.map.get(workspace).map(|cached| {
                (
                    cached.checked.elapsed() < self.recheck,
                    cached.version,
                    cached.settings.clone(),
                )
            })
        };
        if let Some((true, _, settings)) = held {
            return Ok(settings);
        }
        // The version first, then the settings: a change in between is seen next time.
        let version = self.state.settings_version(workspace).await;
        if let Some((_, held_version, settings)) = &held {
            if *held_version == version {
                if let Some(cached) = self.entries().map.get_mut(workspace) {
                    cached.checked = Instant::now();
                }
                return Ok(settings.clone());
            }
        }
        let settings = match self.data.settings(workspace).await {
            Ok(settings) => settings,
            // The database is away: the settings as last read, rather than the
            // defaults (which could post in public what a workspace keeps private).
            Err(error) => match held {
                Some((_, _, settings)) => {
                    tracing::warn!(%error, workspace, "cannot read the workspace's settings: using them as last read");
                    return Ok(settings);
                }
                None => return Err(error),
            },
        };
        let cached = Cached {
            settings: settings.clone(),
            version,
            checked: Instant::now(),
        };
        self.entries().put(workspace, cached, self.max);
        Ok(settings)
    }

    /// Saves the settings of `workspace` and tells every replica (through the shared
    /// version) that they changed.
    pub async fn save(
        &self,
        workspace: &str,
        settings: &WorkspaceSettings,
        changed_by: &str,
        at: i64,
    ) -> Result<(), StoreError> {
        self.data
            .save_settings(workspace, settings, changed_by, at)
            .await?;
        let version = self.state.bump_settings_version(workspace).await;
        let cached = Cached {
            settings: Some(settings.clone()),
            version,
            checked: Instant::now(),
        };
        self.entries().put(workspace, cached, self.max);
        Ok(())
    }

    /// Deletes everything kept for `workspace` ([`WorkspaceData::forget_workspace`]),
    /// and its settings from every replica's cache; how many rows went.
    pub async fn forget(&self, workspace: &str) -> Result<u64, StoreError> {
        let deleted = self.data.forget_workspace(workspace).await?;
        self.state.bump_settings_version(workspace).await;
        self.entries().map.remove(workspace);
        Ok(deleted)
    }

    /// Workspaces held in memory now.
    pub fn len(&self) -> usize {
        self.entries().map.len()
    }

    /// Whether no workspace is held in memory.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::MemoryState;
    use crate::store::token_key::TokenKey;

    async fn store() -> SqlStore {
        let key = TokenKey::from_hex(KEY).expect("a valid key");
        SqlStore::connect("sqlite::memory:", key)
            .await
            .expect("an in-memory database")
    }

    const KEY: &str = "1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100";

    #[tokio::test]
    async fn malformed_settings_are_an_error_naming_the_workspace() {
        let store = store().await;
        let inserted: Result<u64, StoreError> = async {
            Ok(exec!(
                store.pool(),
                "INSERT INTO workspace_settings (workspace, settings, changed_by, changed_at) VALUES ($1, $2, NULL, 1)",
                |q| q.bind("TBAD").bind("{not json")
            ))
        }
        .await;
        inserted.expect("a malformed row");
        let error = store.settings("TBAD").await.expect_err("malformed");
        assert!(error.to_string().contains("TBAD"), "{error}");
        let cache = SettingsCache::new(Arc::new(store), Arc::new(MemoryState::new()));
        assert!(cache.get("TBAD").await.is_err());
    }

    #[tokio::test]
    async fn while_the_database_cannot_be_read_the_settings_as_last_read_hold() {
        let store = Arc::new(store().await);
        let state: Arc<dyn BotState> = Arc::new(MemoryState::new());
        let cache = SettingsCache::with_recheck(store.clone(), state.clone(), Duration::ZERO);
        let private = WorkspaceSettings {
            audience: Some(crate::model::workspace::ReportAudience::AskerOnly),
            ..WorkspaceSettings::default()
        };
        cache.save("TA", &private, "U1", 1).await.expect("saved");
        assert_eq!(cache.get("TA").await.expect("read"), Some(private.clone()));
        // The table is gone, as if the database were away; another replica's change
        // makes this one read again.
        let moved: Result<u64, StoreError> = async {
            Ok(exec!(
                store.pool(),
                "ALTER TABLE workspace_settings RENAME TO workspace_settings_away",
                |q| q
            ))
        }
        .await;
        moved.expect("renamed");
        state.bump_settings_version("TA").await;
        assert_eq!(
            cache.get("TA").await.expect("as last read"),
            Some(private),
            "not the defaults, which would post in public"
        );
        assert!(
            cache.get("TNEVER").await.is_err(),
            "a workspace never read has nothing to fall back on"
        );
    }

    #[test]
    fn the_cache_is_bounded_and_evicts_the_oldest() {
        let mut entries = Entries::default();
        for i in 0..25 {
            let cached = Cached {
                settings: None,
                version: 0,
                checked: Instant::now(),
            };
            entries.put(&format!("T{i}"), cached, 10);
        }
        assert_eq!(entries.map.len(), 10);
        assert!(!entries.map.contains_key("T14"));
        assert!(entries.map.contains_key("T15") && entries.map.contains_key("T24"));
    }
}

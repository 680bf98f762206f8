//! How each part `serve` leans on is doing, as `/readyz` reports it: Slack (the sign-in
//! and, per workspace, whether its calls reach Slack), the installation database and
//! the model endpoint. Each part's record holds its status, its last error (never a
//! secret: callers pass error texts that name no token) and when its status last
//! changed. The shared state (Redis) reports its own health
//! ([`crate::state::StateHealth`]) and is not kept here.
//!
//! One [`Health`] lives in [`crate::metrics::Metrics`], so every client that counts
//! into the metrics also reports here without another handle to pass around. It is a
//! std mutex over a small map: each update is a few assignments, never held across an
//! await. The per-workspace Slack records are bounded ([`MAX_WORKSPACES`]).

use std::collections::HashMap;
use std::sync::Mutex;

/// Workspaces whose Slack health is kept at most; past it the oldest healthy records
/// are dropped first, then the oldest.
pub const MAX_WORKSPACES: usize = 10_000;

/// A part of the service whose health `/readyz` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// Slack's Web API: signing in, then every call.
    Slack,
    /// The installation database (and workspaces' settings and history).
    Database,
    /// The language model endpoint (`SOURCEBOT_LLM_ENDPOINT`), when configured.
    Model,
}

impl Part {
    /// The part's name in `/readyz` and in the `sourcebot_part_up` metric.
    pub fn name(self) -> &'static str {
        match self {
            Part::Slack => "slack",
            Part::Database => "database",
            Part::Model => "model",
        }
    }
}

/// What a part is doing now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Not asked yet (the model before its first question).
    Unknown,
    /// Being brought up: Slack before its first sign-in, the database before it opened.
    Starting,
    /// Its last use worked.
    Ok,
    /// Its last use failed because the part could not be reached.
    Down,
    /// Not used by this process (no model configured).
    Off,
}

impl Status {
    /// The status as `/readyz` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Unknown => "unknown",
            Status::Starting => "starting",
            Status::Ok => "ok",
            Status::Down => "down",
            Status::Off => "off",
        }
    }
}

/// What one Slack call found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlackOutcome<'a> {
    /// Slack answered (whatever it said, short of refusing the token).
    Reached,
    /// Slack answered but refused the workspace's token (`invalid_auth`,
    /// `token_revoked`…): that workspace is down, Slack is not.
    Refused(&'a str),
    /// Slack could not be reached, or did not answer in time.
    Unreachable(&'a str),
}

/// One part's (or one workspace's) health.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// What it is doing now.
    pub status: Status,
    /// The last failure, kept after it recovers so an operator can see what happened.
    pub last_error: Option<String>,
    /// When the last failure happened (Unix seconds).
    pub last_error_at: Option<i64>,
    /// Since when it has had this status (Unix seconds).
    pub since: i64,
}

impl Record {
    fn new(status: Status) -> Record {
        Record {
            status,
            last_error: None,
            last_error_at: None,
            since: crate::calendar::unix_now(),
        }
    }

    fn set(&mut self, status: Status, error: Option<String>) {
        let now = crate::calendar::unix_now();
        if self.status != status {
            self.since = now;
        }
        self.status = status;
        if let Some(error) = error {
            self.last_error = Some(error);
            self.last_error_at = Some(now);
        }
    }
}

#[derive(Debug)]
struct Inner {
    parts: HashMap<Part, Record>,
    workspaces: HashMap<String, Record>,
}

/// The health of every part, updated by whoever uses it.
#[derive(Debug)]
pub struct Health {
    inner: Mutex<Inner>,
}

impl Default for Health {
    fn default() -> Self {
        Health::new()
    }
}

impl Health {
    /// Every part unknown: Slack and the database become `Starting` when `serve`
    /// begins bringing them up, the model `Off` unless one is configured.
    pub fn new() -> Health {
        let parts = [Part::Slack, Part::Database, Part::Model]
            .into_iter()
            .map(|part| (part, Record::new(Status::Unknown)))
            .collect();
        Health {
            inner: Mutex::new(Inner {
                parts,
                workspaces: HashMap::new(),
            }),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        // A poisoned lock only means a panic elsewhere mid-update: the data is a few
        // plain fields, still usable.
        let mut inner = match self.inner.lock() {
            Ok(inner) => inner,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut inner)
    }

    /// `part` now has `status` (its last error unchanged).
    pub fn set(&self, part: Part, status: Status) {
        self.with(|inner| {
            if let Some(record) = inner.parts.get_mut(&part) {
                record.set(status, None);
            }
        });
    }

    /// `part` worked.
    pub fn ok(&self, part: Part) {
        self.set(part, Status::Ok);
    }

    /// `part` failed with `error`: down, or still starting when it never came up.
    pub fn failed(&self, part: Part, error: &str) {
        self.with(|inner| {
            if let Some(record) = inner.parts.get_mut(&part) {
                let status = match record.status {
                    Status::Starting => Status::Starting,
                    _ => Status::Down,
                };
                record.set(status, Some(error.to_string()));
            }
        });
    }

    /// What a call in `workspace` (`None`: a call with no workspace's token) found.
    /// The Slack part follows reachability once signed in; a workspace's record also
    /// goes down when Slack refuses its token.
    pub fn slack_call(&self, workspace: Option<&str>, outcome: SlackOutcome<'_>) {
        let (part_status, error) = match outcome {
            SlackOutcome::Reached => (Status::Ok, None),
            SlackOutcome::Refused(error) => (Status::Ok, Some(error)),
            SlackOutcome::Unreachable(error) => (Status::Down, Some(error)),
        };
        let workspace_status = if error.is_some() {
            Status::Down
        } else {
            Status::Ok
        };
        self.with(|inner| {
            if let Some(record) = inner.parts.get_mut(&Part::Slack) {
                if record.status != Status::Starting {
                    let unreachable = (part_status == Status::Down).then_some(error).flatten();
                    record.set(part_status, unreachable.map(str::to_string));
                }
            }
            let Some(workspace) = workspace else { return };
            if let Some(record) = inner.workspaces.get_mut(workspace) {
                record.set(workspace_status, error.map(str::to_string));
                return;
            }
            if inner.workspaces.len() >= MAX_WORKSPACES {
                make_room(&mut inner.workspaces);
            }
            let mut record = Record::new(workspace_status);
            record.set(workspace_status, error.map(str::to_string));
            inner.workspaces.insert(workspace.to_string(), record);
        });
    }

    /// A copy of `part`'s record.
    pub fn record(&self, part: Part) -> Record {
        self.with(|inner| inner.parts.get(&part).cloned())
            .unwrap_or_else(|| Record::new(Status::Unknown))
    }

    /// The workspaces whose Slack calls fail now, by id, at most `limit` (the most
    /// recent failures first), and how many workspaces are known in all.
    pub fn slack_workspaces(&self, limit: usize) -> (Vec<(String, Record)>, usize) {
        self.with(|inner| {
            let mut down: Vec<(String, Record)> = inner
                .workspaces
                .iter()
                .filter(|(_, r)| r.status == Status::Down)
                .map(|(id, r)| (id.clone(), r.clone()))
                .collect();
            down.sort_by_key(|(_, record)| std::cmp::Reverse(record.last_error_at));
            down.truncate(limit);
            (down, inner.workspaces.len())
        })
    }

    /// The part `serve` is still bringing up, and its record: the database while it
    /// is starting (it opens first), else Slack.
    pub fn bringing_up(&self) -> (Part, Record) {
        let database = self.record(Part::Database);
        if database.status == Status::Starting {
            (Part::Database, database)
        } else {
            (Part::Slack, self.record(Part::Slack))
        }
    }
}

/// Drops the oldest healthy records (the oldest of all when every one is failing)
/// until a tenth of the room is free.
fn make_room(workspaces: &mut HashMap<String, Record>) {
    let target = MAX_WORKSPACES - MAX_WORKSPACES / 10;
    let mut order: Vec<(bool, i64, String)> = workspaces
        .iter()
        .map(|(id, r)| (r.status == Status::Down, r.since, id.clone()))
        .collect();
    order.sort();
    for (_, _, id) in order
        .into_iter()
        .take(workspaces.len().saturating_sub(target))
    {
        workspaces.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_starting_stays_starting_until_it_works_then_goes_down_and_back() {
        let health = Health::new();
        health.set(Part::Slack, Status::Starting);
        health.failed(Part::Slack, "connection refused");
        let starting = health.record(Part::Slack);
        assert_eq!(starting.status, Status::Starting);
        assert_eq!(starting.last_error.as_deref(), Some("connection refused"));
        health.ok(Part::Slack);
        assert_eq!(health.record(Part::Slack).status, Status::Ok);
        health.slack_call(
            Some("T1"),
            SlackOutcome::Unreachable("Slack is unreachable"),
        );
        let down = health.record(Part::Slack);
        assert_eq!(down.status, Status::Down);
        assert_eq!(down.last_error.as_deref(), Some("Slack is unreachable"));
        let (failing, known) = health.slack_workspaces(10);
        assert_eq!(known, 1);
        assert_eq!(failing[0].0, "T1");
        health.slack_call(Some("T1"), SlackOutcome::Reached);
        let back = health.record(Part::Slack);
        assert_eq!(back.status, Status::Ok);
        assert_eq!(
            back.last_error.as_deref(),
            Some("Slack is unreachable"),
            "the last error is kept after recovery"
        );
        assert!(health.slack_workspaces(10).0.is_empty());
    }

    #[test]
    fn calls_before_the_sign_in_do_not_end_starting() {
        let health = Health::new();
        health.set(Part::Slack, Status::Starting);
        health.slack_call(None, SlackOutcome::Reached);
        assert_eq!(health.record(Part::Slack).status, Status::Starting);
    }

    #[test]
    fn workspace_records_are_bounded_and_failing_ones_kept_longest() {
        let health = Health::new();
        health.slack_call(Some("Tdown"), SlackOutcome::Refused("invalid_auth"));
        assert_eq!(
            health.record(Part::Slack).status,
            Status::Ok,
            "a refused token is the workspace's problem, not Slack's"
        );
        for i in 0..MAX_WORKSPACES + 50 {
            health.slack_call(Some(&format!("T{i}")), SlackOutcome::Reached);
        }
        let (failing, known) = health.slack_workspaces(5);
        assert!(known <= MAX_WORKSPACES, "{known}");
        assert_eq!(failing.len(), 1);
        assert_eq!(failing[0].0, "Tdown");
    }
}

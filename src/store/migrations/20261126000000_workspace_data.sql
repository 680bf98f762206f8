-- Per-workspace data beside the installations: each workspace's own settings, a small
-- history of the reports sourcebot posted there (counts only, never the answer's text)
-- and the feedback people gave on them. `workspace` is `WorkspaceKey::scope()`: the
-- team id, or the organization id for an org-wide install. Times are unix seconds.

-- The settings a workspace chose (JSON of `WorkspaceSettings`), and who changed them last.
CREATE TABLE IF NOT EXISTS workspace_settings (
    workspace TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    changed_by TEXT,
    changed_at BIGINT NOT NULL
);

-- One row per posted report. `evidence` (JSON: claims, sources, verdicts, quotes,
-- missing words) is kept only once someone gives feedback on the report.
CREATE TABLE IF NOT EXISTS reports (
    workspace TEXT NOT NULL,
    channel TEXT NOT NULL,
    message_ts TEXT NOT NULL,
    assistant TEXT,
    asked_by TEXT,
    sources BIGINT NOT NULL,
    verified BIGINT NOT NULL,
    broken BIGINT NOT NULL,
    claims BIGINT NOT NULL,
    uncited BIGINT NOT NULL,
    not_supported BIGINT NOT NULL,
    judge TEXT NOT NULL,
    posted_at BIGINT NOT NULL,
    evidence TEXT,
    PRIMARY KEY (workspace, channel, message_ts)
);

CREATE INDEX IF NOT EXISTS reports_by_time ON reports (workspace, posted_at);
CREATE INDEX IF NOT EXISTS reports_posted_at ON reports (posted_at);

-- One row per person and report: pressing again changes the vote; the 👎 modal fills
-- `wrong` (`link_verdict`, `claim_verdict`, `missing_source`, `other`) and `comment`.
CREATE TABLE IF NOT EXISTS feedback (
    workspace TEXT NOT NULL,
    channel TEXT NOT NULL,
    message_ts TEXT NOT NULL,
    user_id TEXT NOT NULL,
    vote TEXT NOT NULL,
    wrong TEXT,
    comment TEXT,
    at BIGINT NOT NULL,
    PRIMARY KEY (workspace, channel, message_ts, user_id)
);

CREATE INDEX IF NOT EXISTS feedback_at ON feedback (at);

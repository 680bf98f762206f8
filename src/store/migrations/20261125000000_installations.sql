-- Installations: one row per workspace install, or per organization for an org-wide
-- (Enterprise Grid) install. A missing enterprise or team id is stored as '' so that
-- the primary key works the same on SQLite and PostgreSQL. Tokens are sealed
-- (AES-256-GCM, "v1:…") by the application before they are written.
CREATE TABLE IF NOT EXISTS installations (
    enterprise_id TEXT NOT NULL DEFAULT '',
    team_id TEXT NOT NULL DEFAULT '',
    is_enterprise_install BOOLEAN NOT NULL,
    app_id TEXT NOT NULL,
    bot_user_id TEXT NOT NULL,
    bot_id TEXT,
    bot_token TEXT NOT NULL,
    bot_scopes TEXT NOT NULL,
    bot_refresh_token TEXT,
    bot_token_expires_at BIGINT,
    installer_user_id TEXT,
    installed_at BIGINT NOT NULL,
    PRIMARY KEY (enterprise_id, team_id, is_enterprise_install)
);

CREATE INDEX IF NOT EXISTS installations_token_expiry ON installations (bot_token_expires_at);

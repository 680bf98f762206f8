//! `sourcebot feedback export`: the feedback people gave on reports in Slack, read from
//! the database `sourcebot serve` keeps its workspaces' data in, as JSON objects ready
//! to print one a line. What `--since` and `SOURCEBOT_DATABASE_URL` accept is decided
//! here, so the command line stays a thin shell.

use super::oauth::{DATABASE_URL, DEFAULT_DATABASE_URL};
use crate::store::installations::{SqlStore, StoreError};
use crate::store::workspace_data::WorkspaceData;
use serde_json::Value;
use std::path::PathBuf;

/// Why the feedback could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A SQLite file that does not exist: nothing to export, and none is created.
    #[error("no database at {path} ({DATABASE_URL}={shown}): nothing to export. Point {DATABASE_URL} at the database `sourcebot serve` uses")]
    NoDatabase {
        /// The file looked for.
        path: String,
        /// The URL, without secrets.
        shown: String,
    },
    /// The database could not be opened.
    #[error("cannot open the database at {shown}: {error}")]
    Open {
        /// The URL, without secrets.
        shown: String,
        /// Why.
        error: StoreError,
    },
    /// The feedback could not be read.
    #[error("cannot read the feedback in {shown}: {error}")]
    Read {
        /// The URL, without secrets.
        shown: String,
        /// Why.
        error: StoreError,
    },
}

/// One claim's support verdict in a report people gave feedback on, and what they said:
/// the labelled data the fitting examples read from an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimVote {
    /// The verdict the report showed (`supported`, `partly supported`, `not supported`,
    /// `unreadable`).
    pub verdict: String,
    /// `up` or `down`.
    pub vote: String,
    /// With a 👎, what the person said was wrong (`link_verdict`, `claim_verdict`,
    /// `missing_source`, `other`), when they said.
    pub wrong: Option<String>,
}

/// Reads an export (JSON Lines, as `sourcebot feedback export` prints it): one
/// [`ClaimVote`] for each support verdict of each claim of each report whose evidence
/// was kept. Blank lines are skipped; a line that is not a JSON object is an error
/// naming its number.
pub fn claim_votes(export: &str) -> Result<Vec<ClaimVote>, String> {
    let mut votes = Vec::new();
    for (number, line) in export.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line: Value = serde_json::from_str(line)
            .map_err(|error| format!("line {}: not JSON: {error}", number + 1))?;
        if !line.is_object() {
            return Err(format!("line {}: not a JSON object", number + 1));
        }
        let Some(vote) = line["vote"].as_str() else {
            return Err(format!("line {}: no \"vote\"", number + 1));
        };
        let wrong = line["wrong"].as_str().map(str::to_string);
        let claims = line
            .pointer("/evidence/claims")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for claim in claims {
            let supports = claim["support"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            for support in supports {
                if let Some(verdict) = support["verdict"].as_str() {
                    votes.push(ClaimVote {
                        verdict: verdict.to_string(),
                        vote: vote.to_string(),
                        wrong: wrong.clone(),
                    });
                }
            }
        }
    }
    Ok(votes)
}

/// The database `lookup` (the environment) names in `SOURCEBOT_DATABASE_URL`, or the
/// default `sqlite://sourcebot.db`.
pub fn database_url(lookup: impl Fn(&str) -> Option<String>) -> String {
    lookup(DATABASE_URL)
        .map(|url| url.trim().to_string())
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| DEFAULT_DATABASE_URL.to_string())
}

/// The feedback given at or after `since` (unix seconds) in `teams` (every workspace
/// when empty; blanks and repeats ignored), oldest first, from the database at `url`.
pub async fn export(url: &str, since: i64, teams: &[String]) -> Result<Vec<Value>, ExportError> {
    let shown = crate::state::redis::without_secrets(url);
    // Opening a SQLite URL creates the file: look first, so a wrong path is an error
    // and not an empty database left behind.
    if let Some(path) = sqlite_file(url) {
        if !path.exists() {
            return Err(ExportError::NoDatabase {
                path: path.display().to_string(),
                shown,
            });
        }
    }
    let store = SqlStore::connect_for_data(url)
        .await
        .map_err(|error| ExportError::Open {
            shown: shown.clone(),
            error,
        })?;
    let read = |error| ExportError::Read {
        shown: shown.clone(),
        error,
    };
    let mut teams: Vec<&str> = teams
        .iter()
        .map(|team| team.trim())
        .filter(|team| !team.is_empty())
        .collect();
    teams.sort_unstable();
    teams.dedup();
    if teams.is_empty() {
        return store.export_feedback(since, None).await.map_err(read);
    }
    let mut lines = Vec::new();
    for team in teams {
        lines.extend(
            store
                .export_feedback(since, Some(team))
                .await
                .map_err(read)?,
        );
    }
    // The order of one workspace's export, across them all.
    lines.sort_by_cached_key(|line| {
        let text = |key: &str| line[key].as_str().unwrap_or_default().to_string();
        (
            line["at"].as_i64().unwrap_or_default(),
            text("workspace"),
            text("channel"),
            text("message_ts"),
            text("user_id"),
        )
    });
    Ok(lines)
}

/// `--since` as unix seconds: a span back from `now` (digits and one of `s`, `m`, `h`,
/// `d`, `w`), or a date or date and time (`YYYY-MM-DD`, midnight UTC, or RFC 3339,
/// read by [`crate::score::search::parse_date`]'s ISO form). `None` for anything else.
pub fn parse_since(text: &str, now: i64) -> Option<i64> {
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, rest) = text.split_at(digits);
    let unit = match rest {
        "s" => Some(1),
        "m" => Some(60),
        "h" => Some(3_600),
        "d" => Some(86_400),
        "w" => Some(7 * 86_400),
        _ => None,
    };
    if let (Some(unit), false) = (unit, number.is_empty()) {
        let span = number.parse::<i64>().ok()?.checked_mul(unit)?;
        return now.checked_sub(span);
    }
    // A date: four digits and a dash first, so parse_date's relative forms ("3 days
    // ago", "yesterday") are not taken.
    if digits != 4 || !rest.starts_with('-') {
        return None;
    }
    let at = crate::score::search::parse_date(text, std::time::SystemTime::now())?;
    match at.duration_since(std::time::UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).ok(),
        Err(before) => i64::try_from(before.duration().as_secs()).ok().map(|s| -s),
    }
}

/// The file a `sqlite:` URL names (`sqlite://path`, `sqlite:path`, `sqlite:///abs`,
/// with or without `?options`); `None` for other URLs and in-memory databases.
pub fn sqlite_file(url: &str) -> Option<PathBuf> {
    if !url.starts_with("sqlite:") {
        return None;
    }
    let rest = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:");
    let (database, options) = rest.split_once('?').unwrap_or((rest, ""));
    let in_memory = database.is_empty()
        || database == ":memory:"
        || options.split('&').any(|option| option == "mode=memory");
    if in_memory {
        return None;
    }
    // sqlx's own reading of the path (percent-decoding included).
    let parsed = <sqlx::sqlite::SqliteConnectOptions as std::str::FromStr>::from_str(url).ok()?;
    Some(parsed.get_filename().to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_reads_spans_and_dates_and_nothing_else() {
        let now = 1_800_000_000;
        assert_eq!(parse_since("30d", now), Some(now - 30 * 86_400));
        assert_eq!(parse_since("2w", now), Some(now - 14 * 86_400));
        assert_eq!(parse_since("90m", now), Some(now - 5_400));
        assert_eq!(parse_since("2026-01-31", now), Some(1_769_817_600));
        assert_eq!(
            parse_since("2026-01-31T10:00:00+01:00", now),
            Some(1_769_850_000)
        );
        for bad in [
            "",
            "d",
            "30",
            "30x",
            "yesterday",
            "-3d",
            "3 days ago",
            "99999999999999999999d",
        ] {
            assert_eq!(parse_since(bad, now), None, "{bad}");
        }
    }

    #[test]
    fn claim_votes_read_each_verdict_of_each_kept_claim() {
        let export = concat!(
            r#"{"vote":"down","wrong":"claim_verdict","evidence":{"claims":[{"text":"a","support":[{"verdict":"supported"},{"verdict":"not supported"}]},{"text":"b","support":[]}]}}"#,
            "\n\n",
            r#"{"vote":"up","wrong":null,"evidence":null}"#,
            "\n",
        );
        let votes = claim_votes(export).expect("read");
        assert_eq!(votes.len(), 2);
        assert_eq!(votes[1].verdict, "not supported");
        assert_eq!(votes[1].wrong.as_deref(), Some("claim_verdict"));
        assert_eq!(claim_votes("[1]").unwrap_err(), "line 1: not a JSON object");
        assert!(claim_votes("{\"vote\":\"up\"}\nnope")
            .unwrap_err()
            .starts_with("line 2: not JSON"));
        assert_eq!(claim_votes("{}").unwrap_err(), "line 1: no \"vote\"");
    }

    #[test]
    fn sqlite_urls_name_their_file_and_memory_names_none() {
        assert_eq!(
            sqlite_file("sqlite://sourcebot.db"),
            Some(PathBuf::from("sourcebot.db"))
        );
        assert_eq!(sqlite_file("sqlite::memory:"), None);
        assert_eq!(sqlite_file("postgres://u:p@h/db"), None);
        assert_eq!(database_url(|_| None), DEFAULT_DATABASE_URL);
        assert_eq!(
            database_url(|_| Some(" postgres://h/db ".into())),
            "postgres://h/db"
        );
    }
}

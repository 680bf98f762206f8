//! `sourcebot feedback export` as an operator runs it: a SQLite database written through
//! the workspace data (`SqlStore::connect_for_data`) with reports and feedback in three
//! workspaces at different times, read back as JSON Lines; `--since` as a span, a date
//! and an RFC 3339 time; `--team` once, repeated and unknown; a bad `--since` (exit 2,
//! naming the flag); a database that does not exist (a clear error, and no file made);
//! a comment full of control characters and mentions kept to the byte; and a reader
//! that closes the pipe early.

#[allow(dead_code)]
#[path = "support/cli.rs"]
mod cli;

use serde_json::{json, Value};
use sourcebot::model::workspace::{FeedbackRecord, ReportCounts, ReportRecord, Vote, WrongPart};
use sourcebot::store::installations::SqlStore;
use sourcebot::store::workspace_data::WorkspaceData;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const HOUR: i64 = 3_600;
const DAY: i64 = 24 * HOUR;

/// A comment as hostile as a person can type: control characters (NUL, bell, escape,
/// CR/LF, tab), a line separator, mentions, markup, quotes and backslashes, emoji, and
/// padded to 10,000 characters.
fn hostile_comment() -> String {
    let mut comment = String::from(
        "\u{0}\u{1}\u{7}\u{1b}[31mred\u{1b}[0m\r\n\tline\u{2028}sep <!channel> <!here> \
         <@U0ADMIN> <https://evil.invalid|click> &amp; \"quoted\" \\back\\slash 👎🏽 ",
    );
    while comment.chars().count() < 10_000 {
        comment.push_str("<!everyone> \u{7f}");
    }
    comment.chars().take(10_000).collect()
}

/// What was written, for the checks.
struct Fixture {
    _dir: tempfile::TempDir,
    url: String,
    now: i64,
    comment: String,
    evidence: Value,
}

fn counts(n: u32) -> ReportCounts {
    ReportCounts {
        sources: n,
        verified: n - 1,
        broken: 1,
        claims: 2 * n,
        uncited: 1,
        not_supported: 0,
    }
}

fn report(
    workspace: &str,
    channel: &str,
    ts: &str,
    assistant: Option<&str>,
    n: u32,
    posted_at: i64,
) -> ReportRecord {
    ReportRecord {
        workspace: workspace.into(),
        channel: channel.into(),
        message_ts: ts.into(),
        assistant: assistant.map(str::to_string),
        asked_by: assistant.is_none().then(|| "U0ASKER".to_string()),
        counts: counts(n),
        judge: "built-in".into(),
        posted_at,
    }
}

#[allow(clippy::too_many_arguments)]
fn feedback(
    workspace: &str,
    channel: &str,
    ts: &str,
    user: &str,
    vote: Vote,
    wrong: Option<WrongPart>,
    comment: Option<&str>,
    at: i64,
) -> FeedbackRecord {
    FeedbackRecord {
        workspace: workspace.into(),
        channel: channel.into(),
        message_ts: ts.into(),
        user_id: user.into(),
        vote,
        wrong,
        comment: comment.map(str::to_string),
        at,
    }
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs() as i64
}

/// Five feedbacks, by the user who gave them:
/// - `U1`: T1, 40 days ago, on a report of then (outside the default 30 days);
/// - `U4`: T2, 3 days ago, 👍 on an assistant's report whose evidence was kept;
/// - `U2`: T1, 2 days ago, 👍 on a report someone asked for;
/// - `U5`: T3, 1 day ago, 👎 on a report that was never recorded;
/// - `U3`: T1, 1 hour ago, 👎 "claim verdict" with the hostile comment.
async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = format!("sqlite://{}", dir.path().join("sourcebot.db").display());
    let store = SqlStore::connect_for_data(&url).await.expect("database");
    let now = unix_now();
    let comment = hostile_comment();
    let evidence = json!({"claims": [{"text": "Deploys freeze on Fridays.",
                                      "verdict": "supported", "quote": "Freeze: Fridays"}]});
    let reports = [
        report(
            "T1",
            "C1",
            "1700000000.000100",
            Some("BAI"),
            4,
            now - 40 * DAY,
        ),
        report(
            "T2",
            "C2",
            "1700000000.000200",
            Some("BXY"),
            3,
            now - 3 * DAY,
        ),
        report("T1", "C1", "1700000000.000300", None, 2, now - 2 * DAY - 60),
    ];
    for record in &reports {
        store.record_report(record).await.expect("report");
    }
    let kept = store
        .keep_evidence("T2", "C2", "1700000000.000200", &evidence)
        .await
        .expect("evidence");
    assert!(kept);
    let votes = [
        feedback(
            "T1",
            "C1",
            "1700000000.000100",
            "U1",
            Vote::Down,
            None,
            Some("old"),
            now - 40 * DAY,
        ),
        feedback(
            "T2",
            "C2",
            "1700000000.000200",
            "U4",
            Vote::Up,
            None,
            None,
            now - 3 * DAY,
        ),
        feedback(
            "T1",
            "C1",
            "1700000000.000300",
            "U2",
            Vote::Up,
            None,
            None,
            now - 2 * DAY,
        ),
        feedback(
            "T3",
            "C9",
            "1700000000.000900",
            "U5",
            Vote::Down,
            Some(WrongPart::MissingSource),
            None,
            now - DAY,
        ),
        feedback(
            "T1",
            "C1",
            "1700000000.000300",
            "U3",
            Vote::Down,
            Some(WrongPart::ClaimVerdict),
            Some(&comment),
            now - HOUR,
        ),
    ];
    for vote in &votes {
        store.record_feedback(vote).await.expect("feedback");
    }
    Fixture {
        _dir: dir,
        url,
        now,
        comment,
        evidence,
    }
}

/// `sourcebot feedback export {args}` against `url`.
fn export(url: &str, args: &[&str]) -> Command {
    let mut all = vec!["feedback".to_string(), "export".to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    cli::command(&all, &[("SOURCEBOT_DATABASE_URL", url.to_string())])
}

async fn run(url: &str, args: &[&str]) -> Output {
    cli::run(export(url, args)).await
}

/// The lines of a successful export, each parsed.
fn lines(output: &Output) -> Vec<Value> {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status.code(),
        cli::stderr(output)
    );
    cli::stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// Who gave each feedback exported, in order.
fn users(lines: &[Value]) -> Vec<&str> {
    lines
        .iter()
        .map(|line| line["user_id"].as_str().expect("user_id"))
        .collect()
}

#[tokio::test]
async fn exports_every_feedback_of_the_last_30_days_as_json_lines() {
    let f = fixture().await;
    let output = run(&f.url, &[]).await;
    let all = lines(&output);
    assert_eq!(users(&all), ["U4", "U2", "U5", "U3"], "oldest first");
    for line in &all {
        for key in [
            "vote",
            "wrong",
            "comment",
            "user_id",
            "at",
            "workspace",
            "channel",
            "message_ts",
            "assistant",
            "asked_by",
            "counts",
            "judge",
            "posted_at",
            "evidence",
        ] {
            assert!(line.get(key).is_some(), "{key} missing from {line}");
        }
    }
    let [assistant, asked, unrecorded, hostile] = &all[..] else {
        unreachable!("four lines")
    };
    assert_eq!(
        assistant,
        &json!({"vote": "up", "wrong": null, "comment": null, "user_id": "U4",
                "at": f.now - 3 * DAY, "workspace": "T2", "channel": "C2",
                "message_ts": "1700000000.000200", "assistant": "BXY", "asked_by": null,
                "counts": {"sources": 3, "verified": 2, "broken": 1, "claims": 6,
                           "uncited": 1, "not_supported": 0},
                "judge": "built-in", "posted_at": f.now - 3 * DAY, "evidence": f.evidence})
    );
    assert_eq!(asked["assistant"], Value::Null);
    assert_eq!(asked["asked_by"], json!("U0ASKER"));
    assert_eq!(asked["counts"]["sources"], json!(2));
    assert_eq!(asked["evidence"], Value::Null);
    // Feedback on a report that was not recorded: the report's fields are null.
    assert_eq!(unrecorded["workspace"], json!("T3"));
    assert_eq!(unrecorded["wrong"], json!("missing_source"));
    for key in ["assistant", "counts", "judge", "posted_at", "evidence"] {
        assert_eq!(unrecorded[key], Value::Null, "{key}");
    }
    assert_eq!(hostile["vote"], json!("down"));
    assert_eq!(hostile["wrong"], json!("claim_verdict"));

    // The hostile comment comes out as the exact JSON string of what was typed, on one
    // line of its own.
    assert_eq!(hostile["comment"], json!(f.comment));
    let text = cli::stdout(&output);
    let last = text.lines().last().expect("a last line");
    let exact = serde_json::to_string(&f.comment).expect("JSON string");
    assert!(
        last.contains(&exact),
        "the comment is not the exact JSON string"
    );
    assert_eq!(text.lines().count(), 4);
    assert!(text.ends_with('\n'));
}

#[tokio::test]
async fn since_takes_spans_dates_and_rfc3339_times() {
    let f = fixture().await;
    assert_eq!(
        users(&lines(&run(&f.url, &["--since", "36h"]).await)),
        ["U5", "U3"]
    );
    assert_eq!(
        users(&lines(&run(&f.url, &["--since", "60d"]).await)),
        ["U1", "U4", "U2", "U5", "U3"]
    );
    assert_eq!(
        users(&lines(&run(&f.url, &["--since", "1w"]).await)),
        ["U4", "U2", "U5", "U3"]
    );
    assert_eq!(
        users(&lines(&run(&f.url, &["--since", "90m"]).await)),
        ["U3"]
    );
    assert_eq!(
        users(&lines(&run(&f.url, &["--since", "2s"]).await)),
        Vec::<&str>::new()
    );

    // RFC 3339: 36 hours ago in UTC, and the same instant written two hours east.
    let at = |secs: i64| UNIX_EPOCH + Duration::from_secs(secs as u64);
    let utc = humantime::format_rfc3339_seconds(at(f.now - 36 * HOUR)).to_string();
    assert_eq!(
        users(&lines(&run(&f.url, &["--since", &utc]).await)),
        ["U5", "U3"],
        "{utc}"
    );
    let later = humantime::format_rfc3339_seconds(at(f.now - 34 * HOUR)).to_string();
    let east = format!("{}+02:00", later.trim_end_matches('Z'));
    assert_eq!(
        users(&lines(&run(&f.url, &["--since", &east]).await)),
        ["U5", "U3"],
        "{east}"
    );
    // A date is midnight UTC: ten days ago's date keeps all but the 40-day-old one.
    let day = humantime::format_rfc3339_seconds(at(f.now - 10 * DAY)).to_string();
    let date = &day[..10];
    assert_eq!(
        users(&lines(&run(&f.url, &["--since", date]).await)),
        ["U4", "U2", "U5", "U3"],
        "{date}"
    );
    assert_eq!(
        users(&lines(&run(&f.url, &["--since", "2000-01-01"]).await)).len(),
        5
    );
    assert!(lines(&run(&f.url, &["--since", "2999-01-01T00:00:00Z"]).await).is_empty());
}

#[tokio::test]
async fn team_filters_and_repeats() {
    let f = fixture().await;
    assert_eq!(
        users(&lines(&run(&f.url, &["--team", "T1"]).await)),
        ["U2", "U3"]
    );
    // Repeated: the union, in time order across the workspaces; a repeat counts once.
    let union = lines(&run(&f.url, &["--team", "T1", "--team", "T2"]).await);
    assert_eq!(users(&union), ["U4", "U2", "U3"]);
    let again = lines(&run(&f.url, &["--team", "T2", "--team", "T1", "--team", "T2"]).await);
    assert_eq!(again, union);
    assert!(union
        .iter()
        .all(|line| line["workspace"] == json!("T1") || line["workspace"] == json!("T2")));
    // With --since too; and a workspace with no feedback exports nothing.
    assert_eq!(
        users(&lines(
            &run(&f.url, &["--team", "T1", "--since", "60d"]).await
        )),
        ["U1", "U2", "U3"]
    );
    assert!(lines(&run(&f.url, &["--team", "T9"]).await).is_empty());
}

#[tokio::test]
async fn a_bad_since_is_a_usage_error_naming_the_flag() {
    let f = fixture().await;
    for bad in [
        "30",
        "30x",
        "d",
        "-5d",
        "5 days",
        "yesterday",
        "3 days ago",
        "2026-13-01",
        "2026-02-30",
        "2026-01-31T25:00:00Z",
        "99999999999999999999d",
        "",
    ] {
        // `--since=…`, so clap takes `-5d` as the value and not as a flag.
        let output = run(&f.url, &[&format!("--since={bad}")]).await;
        let stderr = cli::stderr(&output);
        assert_eq!(output.status.code(), Some(2), "--since {bad:?}: {stderr}");
        assert!(stderr.contains("--since"), "--since {bad:?}: {stderr}");
        assert!(
            stderr.contains("30d") && stderr.contains("RFC 3339"),
            "--since {bad:?} should say what is accepted: {stderr}"
        );
        assert!(cli::stdout(&output).is_empty(), "--since {bad:?}");
    }
}

#[tokio::test]
async fn a_missing_database_is_an_error_and_no_file_is_made() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let missing = dir.path().join("nothing-here.db");
    let url = format!("sqlite://{}", missing.display());
    let output = run(&url, &[]).await;
    let stderr = cli::stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no database"), "{stderr}");
    assert!(stderr.contains("nothing-here.db"), "{stderr}");
    assert!(stderr.contains("SOURCEBOT_DATABASE_URL"), "{stderr}");
    assert!(cli::stdout(&output).is_empty());
    assert!(
        !missing.exists(),
        "the export created {}",
        missing.display()
    );
    assert_eq!(entries(dir.path()), Vec::<PathBuf>::new());

    // Without SOURCEBOT_DATABASE_URL: sourcebot.db in the working directory.
    let mut cmd = cli::command(&["feedback".into(), "export".into()], &[]);
    cmd.current_dir(dir.path());
    let output = cli::run(cmd).await;
    let stderr = cli::stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("sourcebot.db"), "{stderr}");
    assert_eq!(entries(dir.path()), Vec::<PathBuf>::new());
}

/// What a directory holds.
fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|entry| entry.expect("entry").path())
        .collect()
}

#[tokio::test]
async fn a_reader_that_stops_early_is_no_error() {
    let f = fixture().await;
    let mut cmd = export(&f.url, &["--since", "60d"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let output = tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().expect("spawn sourcebot");
        // Close the pipe before sourcebot writes: every write fails with EPIPE.
        drop(child.stdout.take());
        child.wait_with_output().expect("wait")
    })
    .await
    .expect("join");
    let stderr = cli::stderr(&output);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}

//! The per-workspace data contract (settings, report history, feedback, two replicas'
//! settings caches), written once and run by `tests/workspace_data.rs` on SQLite and on
//! a PostgreSQL the test starts.
#![allow(dead_code)]

use sourcebot::model::workspace::{
    ActivityLine, ChannelScope, FeedbackRecord, ReportAudience, ReportCounts, ReportRecord, Vote,
    WatchedAssistant, WorkspaceSettings, WrongPart,
};
use sourcebot::state::{BotState, MemoryState};
use sourcebot::store::workspace_data::{SettingsCache, WorkspaceData};
use std::sync::Arc;
use std::time::Duration;

pub const KEY: &str = "1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100";

pub fn settings(bot: &str) -> WorkspaceSettings {
    WorkspaceSettings {
        watched: vec![WatchedAssistant {
            user_id: format!("U{bot}"),
            bot_id: bot.to_string(),
            name: "Helper <!here>".into(),
        }],
        channels: ChannelScope::Only(vec!["C1".into(), "G2".into()]),
        support: Some(false),
        sources_per_kind: Some(3),
        audience: Some(ReportAudience::AskerOnly),
        internal_quotes: Some(false),
    }
}

pub fn report(
    workspace: &str,
    ts: &str,
    assistant: Option<&str>,
    posted_at: i64,
    n: u32,
) -> ReportRecord {
    ReportRecord {
        workspace: workspace.into(),
        channel: "C1".into(),
        message_ts: ts.into(),
        assistant: assistant.map(str::to_string),
        asked_by: if assistant.is_none() {
            Some("U9".into())
        } else {
            None
        },
        counts: ReportCounts {
            sources: n,
            verified: n.saturating_sub(1),
            broken: 1,
            claims: 2 * n,
            uncited: 1,
            not_supported: n / 2,
        },
        judge: "built-in".into(),
        posted_at,
    }
}

pub fn feedback(workspace: &str, ts: &str, user: &str, vote: Vote, at: i64) -> FeedbackRecord {
    FeedbackRecord {
        workspace: workspace.into(),
        channel: "C1".into(),
        message_ts: ts.into(),
        user_id: user.into(),
        vote,
        wrong: None,
        comment: None,
        at,
    }
}

/// Settings round-trip, are replaced, stay per workspace.
pub async fn check_settings(data: &dyn WorkspaceData) {
    assert_eq!(data.settings("T1").await.expect("read"), None);
    data.save_settings("T1", &settings("B1"), "U1", 100)
        .await
        .expect("save");
    assert_eq!(
        data.settings("T1").await.expect("read"),
        Some(settings("B1"))
    );
    data.save_settings("T1", &WorkspaceSettings::default(), "U2", 200)
        .await
        .expect("overwrite");
    assert_eq!(
        data.settings("T1").await.expect("read"),
        Some(WorkspaceSettings::default())
    );
    assert_eq!(data.settings("T2").await.expect("read"), None);
}

/// Reports and feedback: idempotent reports, changed votes, the modal, activity, export.
pub async fn check_history(data: &dyn WorkspaceData) {
    let ws = "TH";
    data.record_report(&report(ws, "1.1", Some("B1"), 1000, 4))
        .await
        .expect("report");
    // Recorded twice (a retried post): counted once.
    data.record_report(&report(ws, "1.1", Some("B1"), 1000, 4))
        .await
        .expect("report again");
    data.record_report(&report(ws, "1.2", Some("B1"), 1100, 2))
        .await
        .expect("report");
    data.record_report(&report(ws, "1.3", None, 1200, 3))
        .await
        .expect("report");
    data.record_report(&report(ws, "0.9", Some("B2"), 10, 5))
        .await
        .expect("an old report");
    data.record_report(&report("TOTHER", "1.1", Some("B1"), 1000, 9))
        .await
        .expect("another workspace");

    // Pressing again changes the vote.
    data.record_feedback(&feedback(ws, "1.1", "U1", Vote::Up, 1001))
        .await
        .expect("vote");
    data.record_feedback(&feedback(ws, "1.1", "U1", Vote::Down, 1002))
        .await
        .expect("vote again");
    // The modal's answer fills what was wrong and keeps the vote.
    let mut modal = feedback(ws, "1.1", "U1", Vote::Down, 1003);
    modal.wrong = Some(WrongPart::ClaimVerdict);
    modal.comment = Some("the second claim is fine".into());
    data.record_feedback(&modal).await.expect("modal");
    // Pressing 👎 again later does not lose the modal's answer.
    data.record_feedback(&feedback(ws, "1.1", "U1", Vote::Down, 1004))
        .await
        .expect("press again");
    data.record_feedback(&feedback(ws, "1.1", "U2", Vote::Up, 1005))
        .await
        .expect("vote");
    data.record_feedback(&feedback(ws, "1.3", "U3", Vote::Up, 1205))
        .await
        .expect("vote");
    data.record_feedback(&feedback(ws, "0.9", "U3", Vote::Down, 20))
        .await
        .expect("vote on the old report");
    data.record_feedback(&feedback("TOTHER", "1.1", "U1", Vote::Up, 1001))
        .await
        .expect("vote elsewhere");

    let lines = data.activity(ws, 500).await.expect("activity");
    assert_eq!(
        lines,
        vec![
            ActivityLine {
                assistant: Some("B1".into()),
                reports: 2,
                links: 6,
                broken: 2,
                uncited: 2,
                not_supported: 3,
                claims: 12,
                up: 1,
                down: 1,
            },
            ActivityLine {
                assistant: None,
                reports: 1,
                links: 3,
                broken: 1,
                uncited: 1,
                not_supported: 1,
                claims: 6,
                up: 1,
                down: 0,
            },
        ]
    );
    let all = data.activity(ws, 0).await.expect("activity");
    assert_eq!(all.len(), 3);
    // Ties: assistants first, "asked by people" last.
    assert_eq!(all[1].assistant.as_deref(), Some("B2"));
    assert_eq!((all[1].reports, all[1].down), (1, 1));
    assert_eq!(all[2].assistant, None);
    assert!(data.activity(ws, 5000).await.expect("activity").is_empty());
    assert!(data
        .activity("TNONE", 0)
        .await
        .expect("activity")
        .is_empty());

    // Evidence is kept only for a recorded report.
    let evidence = serde_json::json!({"claims": [{"text": "x", "verdict": "not_supported"}], "sources": ["https://example.com/"]});
    assert!(data
        .keep_evidence(ws, "C1", "1.1", &evidence)
        .await
        .expect("keep"));
    assert!(!data
        .keep_evidence(ws, "C1", "9.9", &evidence)
        .await
        .expect("no such report"));

    let exported = data.export_feedback(1000, Some(ws)).await.expect("export");
    assert_eq!(exported.len(), 3, "{exported:#?}");
    let first = &exported[0];
    assert_eq!(first["user_id"], "U1");
    assert_eq!(first["vote"], "down");
    assert_eq!(first["wrong"], "claim_verdict");
    assert_eq!(first["comment"], "the second claim is fine");
    assert_eq!(first["workspace"], ws);
    assert_eq!(first["channel"], "C1");
    assert_eq!(first["message_ts"], "1.1");
    assert_eq!(first["assistant"], "B1");
    assert_eq!(first["asked_by"], serde_json::Value::Null);
    assert_eq!(first["judge"], "built-in");
    assert_eq!(first["posted_at"], 1000);
    assert_eq!(first["counts"]["sources"], 4);
    assert_eq!(first["counts"]["not_supported"], 2);
    assert_eq!(first["evidence"], evidence);
    assert_eq!(exported[1]["vote"], "up");
    assert_eq!(exported[1]["evidence"], evidence);
    assert_eq!(exported[2]["message_ts"], "1.3");
    assert_eq!(exported[2]["evidence"], serde_json::Value::Null);
    assert_eq!(exported[2]["asked_by"], "U9");
    let everywhere = data.export_feedback(0, None).await.expect("export");
    let here = |row: &&serde_json::Value| row["workspace"] == ws || row["workspace"] == "TOTHER";
    assert_eq!(everywhere.iter().filter(here).count(), 5);

    // A vote changed to 👍 drops the old 👎's reason.
    data.record_feedback(&feedback(ws, "1.1", "U1", Vote::Up, 1010))
        .await
        .expect("change");
    let exported = data.export_feedback(1010, Some(ws)).await.expect("export");
    assert_eq!(exported.len(), 2, "{exported:#?}");
    assert_eq!(exported[0]["user_id"], "U1");
    assert_eq!(exported[0]["vote"], "up");
    assert_eq!(exported[0]["wrong"], serde_json::Value::Null);
    assert_eq!(exported[0]["comment"], serde_json::Value::Null);
}

/// Prune and forget delete exactly the right rows.
pub async fn check_deleting(data: &dyn WorkspaceData) {
    for ws in ["TA", "TB"] {
        data.save_settings(ws, &settings("B1"), "U1", 1)
            .await
            .expect("save");
        data.record_report(&report(ws, "1.0", Some("B1"), 100, 1))
            .await
            .expect("old");
        data.record_report(&report(ws, "2.0", Some("B1"), 300, 1))
            .await
            .expect("new");
        // Feedback given late on an old report goes with it.
        data.record_feedback(&feedback(ws, "1.0", "U1", Vote::Up, 400))
            .await
            .expect("vote");
        data.record_feedback(&feedback(ws, "2.0", "U1", Vote::Down, 400))
            .await
            .expect("vote");
    }
    assert_eq!(data.prune(200).await.expect("prune"), 4);
    for ws in ["TA", "TB"] {
        let lines = data.activity(ws, 0).await.expect("activity");
        assert_eq!(lines.len(), 1);
        assert_eq!((lines[0].reports, lines[0].up, lines[0].down), (1, 0, 1));
    }
    assert_eq!(data.prune(200).await.expect("prune again"), 0);

    assert_eq!(data.forget_workspace("TA").await.expect("forget"), 3);
    assert_eq!(data.settings("TA").await.expect("read"), None);
    assert!(data.activity("TA", 0).await.expect("activity").is_empty());
    assert!(data
        .export_feedback(0, Some("TA"))
        .await
        .expect("export")
        .is_empty());
    // The other workspace is untouched.
    assert_eq!(
        data.settings("TB").await.expect("read"),
        Some(settings("B1"))
    );
    assert_eq!(data.activity("TB", 0).await.expect("activity").len(), 1);
    assert_eq!(
        data.export_feedback(0, Some("TB"))
            .await
            .expect("export")
            .len(),
        1
    );
    assert_eq!(data.forget_workspace("TNONE").await.expect("forget"), 0);
}

/// A hostile comment is stored and returned exactly.
pub async fn check_hostile(data: &dyn WorkspaceData) {
    let ws = "TX";
    data.record_report(&report(ws, "1.0", None, 100, 1))
        .await
        .expect("report");
    let mut comment: String = "<!channel> <@U1> $1 ?1 '; DROP TABLE feedback; -- \u{0}\u{1}\u{7}\u{1b}[31m\r\n\t\u{202e}é😀 "
        .to_string();
    while comment.chars().count() < 10_000 {
        comment.push_str("<!channel>\u{0}");
    }
    let comment: String = comment.chars().take(10_000).collect();
    let mut hostile = feedback(ws, "1.0", "U1", Vote::Down, 100);
    hostile.wrong = Some(WrongPart::Other);
    hostile.comment = Some(comment.clone());
    data.record_feedback(&hostile).await.expect("store");
    let exported = data.export_feedback(0, Some(ws)).await.expect("export");
    assert_eq!(exported.len(), 1);
    assert_eq!(exported[0]["comment"].as_str(), Some(comment.as_str()));
    assert_eq!(exported[0]["wrong"], "other");
    // Hostile settings (names, channel ids) too.
    let mut odd = settings("B1");
    odd.watched[0].name = comment.clone();
    data.save_settings(ws, &odd, "U1", 1).await.expect("save");
    assert_eq!(data.settings(ws).await.expect("read"), Some(odd));
}

/// Two replicas' caches over the same database and shared state.
pub async fn check_two_replicas(data: Arc<dyn WorkspaceData>) {
    let shared: Arc<dyn BotState> = Arc::new(MemoryState::new());
    let one = SettingsCache::with_recheck(data.clone(), shared.clone(), Duration::from_millis(100));
    let two = SettingsCache::with_recheck(data.clone(), shared.clone(), Duration::from_millis(100));
    assert_eq!(two.get("TR").await.expect("read"), None);
    one.save("TR", &settings("B1"), "U1", 1)
        .await
        .expect("save");
    assert_eq!(one.get("TR").await.expect("read"), Some(settings("B1")));
    let seen = async {
        loop {
            if two.get("TR").await.expect("read") == Some(settings("B1")) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), seen)
        .await
        .expect("replica two sees the change within 5 s");
    two.save("TR", &settings("B2"), "U2", 2)
        .await
        .expect("save");
    let seen = async {
        loop {
            if one.get("TR").await.expect("read") == Some(settings("B2")) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), seen)
        .await
        .expect("replica one sees the change back within 5 s");
    assert_eq!(one.forget("TR").await.expect("forget"), 1);
    let gone = async {
        while two.get("TR").await.expect("read").is_some() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), gone)
        .await
        .expect("replica two forgets too");
}

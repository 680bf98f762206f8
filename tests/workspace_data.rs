//! The per-workspace data (settings, report history, feedback) keeps one contract on
//! SQLite (in memory) and on a real PostgreSQL the test starts itself
//! (`tests/support/postgres.rs`; skipped with a notice when its binaries are not
//! installed), and two replicas' settings caches see each other's changes over it. The
//! checks are in `tests/support/workspace_checks.rs`.

mod support;

#[path = "support/workspace_checks.rs"]
mod workspace_checks;

use sourcebot::model::workspace::Vote;
use sourcebot::store::installations::SqlStore;
use sourcebot::store::token_key::TokenKey;
use sourcebot::store::workspace_data::WorkspaceData;
use std::sync::Arc;
use workspace_checks::*;

fn key() -> TokenKey {
    TokenKey::from_hex(KEY).expect("a valid key")
}

#[tokio::test]
async fn sqlite_keeps_the_contract() {
    for check in 0..5 {
        // A fresh database for each check, as each expects.
        let store = SqlStore::connect("sqlite::memory:", key())
            .await
            .expect("an in-memory database");
        match check {
            0 => check_settings(&store).await,
            1 => check_history(&store).await,
            2 => check_deleting(&store).await,
            3 => check_hostile(&store).await,
            _ => check_two_replicas(Arc::new(store)).await,
        }
    }
}

#[tokio::test]
async fn postgresql_keeps_the_same_contract() {
    let Some(server) = support::postgres::PostgresServer::start().await else {
        eprintln!(
            "PostgreSQL binaries (initdb, postgres) not found: skipping the PostgreSQL checks"
        );
        return;
    };
    let store = SqlStore::connect(&server.url(), key())
        .await
        .expect("connects");
    // Deleting first: its prune would otherwise take the other checks' old reports.
    check_deleting(&store).await;
    check_settings(&store).await;
    check_history(&store).await;
    check_hostile(&store).await;
    // Reconnecting runs the migrations again, harmlessly, and finds the same rows.
    let again = SqlStore::connect(&server.url(), key())
        .await
        .expect("reconnects");
    assert_eq!(
        again.settings("TB").await.expect("read"),
        Some(settings("B1"))
    );
    check_two_replicas(Arc::new(again)).await;
}

/// Deleting a workspace's data (the app uninstalled) and pruning old history are each
/// all or nothing: a database that fails half-way (here a trigger refusing the last
/// statement, as a server going away would) leaves every row as it was, and the same
/// call works once the database answers again.
#[tokio::test]
async fn a_failure_half_way_leaves_nothing_half_deleted() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("data.db").display());
    let store = SqlStore::connect(&url, key()).await.expect("opens");
    store
        .save_settings("TA", &settings("B1"), "U1", 1)
        .await
        .expect("save");
    store
        .record_report(&report("TA", "1.0", Some("B1"), 100, 1))
        .await
        .expect("report");
    store
        .record_feedback(&feedback("TA", "1.0", "U1", Vote::Up, 150))
        .await
        .expect("vote");
    let side = sqlx::SqlitePool::connect(&url)
        .await
        .expect("a second connection");
    for (trigger, table) in [
        ("refuse_settings", "workspace_settings"),
        ("refuse_reports", "reports"),
    ] {
        sqlx::query(&format!(
            "CREATE TRIGGER {trigger} BEFORE DELETE ON {table} BEGIN SELECT RAISE(ABORT, 'the database went away'); END"
        ))
        .execute(&side)
        .await
        .expect("trigger");
    }
    let refused = store
        .forget_workspace("TA")
        .await
        .expect_err("refused half-way");
    assert!(refused.to_string().contains("went away"), "{refused}");
    let refused = store.prune(200).await.expect_err("refused half-way");
    assert!(refused.to_string().contains("went away"), "{refused}");
    // Nothing went: the feedback deleted before the refusal is back.
    assert_eq!(
        store.settings("TA").await.expect("read"),
        Some(settings("B1"))
    );
    let lines = store.activity("TA", 0).await.expect("activity");
    assert_eq!((lines[0].reports, lines[0].up), (1, 1), "{lines:?}");
    assert_eq!(
        store
            .export_feedback(0, Some("TA"))
            .await
            .expect("export")
            .len(),
        1
    );
    for trigger in ["refuse_settings", "refuse_reports"] {
        sqlx::query(&format!("DROP TRIGGER {trigger}"))
            .execute(&side)
            .await
            .expect("drop");
    }
    assert_eq!(store.prune(200).await.expect("prune"), 2);
    assert_eq!(store.forget_workspace("TA").await.expect("forget"), 1);
    assert_eq!(store.settings("TA").await.expect("read"), None);
}

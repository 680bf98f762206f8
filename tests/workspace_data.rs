//! The per-workspace data (settings, report history, feedback) keeps one contract on
//! SQLite (in memory) and on a real PostgreSQL the test starts itself
//! (`tests/support/postgres.rs`; skipped with a notice when its binaries are not
//! installed), and two replicas' settings caches see each other's changes over it. The
//! checks are in `tests/support/workspace_checks.rs`.

mod support;

#[path = "support/workspace_checks.rs"]
mod workspace_checks;

use sourcebot::install::store::SqlStore;
use sourcebot::install::token_key::TokenKey;
use sourcebot::install::workspace_data::WorkspaceData;
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

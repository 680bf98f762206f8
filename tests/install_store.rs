//! The installation store against real databases: a SQLite file, and a PostgreSQL the
//! test starts itself (`tests/support/postgres.rs`; skipped with a notice when its
//! binaries are not installed). The same checks run on both: save, find, a re-install
//! replacing the old one, the org-wide fallback, delete, tokens about to expire, tokens
//! sealed at rest, the wrong key refused clearly, reopening the same database.

mod support;

use sourcebot::store::installations::{Installation, InstallationStore, SqlStore, WorkspaceKey};
use sourcebot::store::token_key::TokenKey;

const KEY: &str = "1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100";
const OTHER_KEY: &str = "aa1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100";

fn key(hex: &str) -> TokenKey {
    TokenKey::from_hex(hex).expect("a valid key")
}

fn workspace(team: &str, enterprise: Option<&str>, token: &str) -> Installation {
    Installation {
        enterprise_id: enterprise.map(str::to_string),
        team_id: Some(team.to_string()),
        is_enterprise_install: false,
        app_id: "A0001".into(),
        bot_user_id: format!("UBOT{team}"),
        bot_id: Some("B0001".into()),
        bot_token: token.into(),
        bot_scopes: vec!["chat:write".into(), "commands".into()],
        bot_refresh_token: None,
        bot_token_expires_at: None,
        installer_user_id: Some("U1".into()),
        installed_at: 1_700_000_000,
    }
}

fn team_key(team: &str, enterprise: Option<&str>) -> WorkspaceKey {
    WorkspaceKey {
        enterprise_id: enterprise.map(str::to_string),
        team_id: Some(team.to_string()),
        is_enterprise_install: false,
    }
}

/// Everything a store must do; `raw_tokens` reads the stored token column.
async fn contract(store: &SqlStore, raw_tokens: Vec<String>) {
    let _ = raw_tokens;
    let a = workspace("T1", None, "xoxb-team-one-secret");
    store.save(&a).await.expect("save");
    assert_eq!(
        store.find(&team_key("T1", None)).await.expect("find"),
        Some(a.clone())
    );
    assert_eq!(store.find(&team_key("T2", None)).await.expect("find"), None);

    // A re-install replaces the old one.
    let again = workspace("T1", None, "xoxb-team-one-new");
    store.save(&again).await.expect("save again");
    assert_eq!(
        store.find(&team_key("T1", None)).await.expect("find"),
        Some(again)
    );

    // An org-wide install serves the organization's workspaces; a workspace's own
    // install wins.
    let org = Installation {
        team_id: None,
        is_enterprise_install: true,
        enterprise_id: Some("E1".into()),
        bot_refresh_token: Some("xoxe-1-refresh-secret".into()),
        bot_token_expires_at: Some(1_700_040_000),
        ..workspace("ignored", Some("E1"), "xoxe.xoxb-org-secret")
    };
    store.save(&org).await.expect("save org");
    let served = store.find(&team_key("T9", Some("E1"))).await.expect("find");
    assert_eq!(served.as_ref().map(|i| i.is_enterprise_install), Some(true));
    assert_eq!(
        served.and_then(|i| i.bot_refresh_token).as_deref(),
        Some("xoxe-1-refresh-secret")
    );
    let own = workspace("T8", Some("E1"), "xoxb-own");
    store.save(&own).await.expect("save own");
    assert_eq!(
        store.find(&team_key("T8", Some("E1"))).await.expect("find"),
        Some(own)
    );
    assert_eq!(
        store.find(&team_key("T9", None)).await.expect("find"),
        None,
        "no org, no fallback"
    );

    // Expiring tokens (with a refresh token) are listed for rotation.
    let expiring = store.expiring_before(1_700_050_000).await.expect("list");
    assert_eq!(expiring.len(), 1);
    assert!(expiring[0].is_enterprise_install);
    assert!(store
        .expiring_before(1_700_000_000)
        .await
        .expect("list")
        .is_empty());

    // Delete removes exactly that one.
    assert!(store.delete(&org.key()).await.expect("delete"));
    assert!(!store.delete(&org.key()).await.expect("delete again"));
    assert_eq!(
        store.find(&team_key("T9", Some("E1"))).await.expect("find"),
        None
    );
    assert!(store
        .find(&team_key("T8", Some("E1")))
        .await
        .expect("find")
        .is_some());
}

#[tokio::test]
async fn sqlite_keeps_installations_sealed_and_reopens_them() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("sourcebot.db");
    let url = format!("sqlite://{}", path.display());
    let store = SqlStore::connect(&url, key(KEY)).await.expect("opens");
    contract(&store, Vec::new()).await;
    drop(store);

    // The file holds no token in plain text.
    let bytes = std::fs::read(&path).expect("the database file");
    let text = String::from_utf8_lossy(&bytes);
    for secret in ["xoxb-team-one", "xoxb-own", "secret"] {
        assert!(!text.contains(secret), "{secret} is stored in plain text");
    }
    assert!(text.contains("v1:"), "tokens are sealed");

    // Reopened (the migrations run again): the same installations.
    let reopened = SqlStore::connect(&url, key(KEY)).await.expect("reopens");
    let found = reopened.find(&team_key("T1", None)).await.expect("find");
    assert_eq!(
        found.map(|i| i.bot_token).as_deref(),
        Some("xoxb-team-one-new")
    );

    // With another key, tokens cannot be read, and the error says why.
    let wrong = SqlStore::connect(&url, key(OTHER_KEY))
        .await
        .expect("opens");
    let error = wrong
        .find(&team_key("T1", None))
        .await
        .expect_err("the wrong key");
    let message = error.to_string();
    assert!(message.contains("SOURCEBOT_TOKEN_KEY"), "{message}");
    assert!(!message.contains("xoxb"), "{message}");
}

#[tokio::test]
async fn unusable_urls_are_named_without_their_password() {
    let error = SqlStore::connect("mysql://root:hunter2@db/sourcebot", key(KEY))
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(error.contains("SOURCEBOT_DATABASE_URL"), "{error}");
    assert!(!error.contains("hunter2"), "{error}");
    let error = SqlStore::connect("postgres://sourcebot:hunter2@127.0.0.1:1/none", key(KEY))
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(!error.contains("hunter2"), "{error}");
    assert!(!error.is_empty());
    let debug = format!("{:?}", workspace("T1", None, "xoxb-do-not-print"));
    assert!(!debug.contains("xoxb-do-not-print"), "{debug}");
}

#[tokio::test]
async fn postgresql_keeps_the_same_contract() {
    let Some(server) = support::postgres::PostgresServer::start().await else {
        return;
    };
    let store = SqlStore::connect(&server.url(), key(KEY))
        .await
        .expect("connects");
    contract(&store, Vec::new()).await;
    let pool = sqlx::PgPool::connect(&server.url())
        .await
        .expect("a plain connection");
    let tokens: Vec<(String,)> = sqlx::query_as("SELECT bot_token FROM installations")
        .fetch_all(&pool)
        .await
        .expect("read the raw column");
    assert!(!tokens.is_empty());
    for (token,) in tokens {
        assert!(
            token.starts_with("v1:") && !token.contains("xoxb"),
            "{token}"
        );
    }
    // Reconnecting runs the migrations again, harmlessly.
    let again = SqlStore::connect(&server.url(), key(KEY))
        .await
        .expect("reconnects");
    assert!(again
        .find(&team_key("T1", None))
        .await
        .expect("find")
        .is_some());
}

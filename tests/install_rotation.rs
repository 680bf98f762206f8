//! Token rotation against the fake Slack's `oauth.v2.access` (single-use refresh
//! tokens) and a real SQLite store: two replicas refreshing the same expiring token at
//! once call Slack once and both then read the new token; a token not yet due is left
//! alone; a refresh Slack refuses is reported and leaves the installation as it was.

mod support;

use sourcebot::install::oauth::OAuthSettings;
use sourcebot::install::rotation::{Rotator, Round};
use sourcebot::slack::api::SlackApi;
use sourcebot::state::{BotState, MemoryState};
use sourcebot::store::installations::{InstallationStore, SqlStore, WorkspaceKey};
use sourcebot::store::token_key::TokenKey;
use std::sync::Arc;
use std::time::Duration;
use support::slack::{FakeSlack, OAuthGrant, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET};

const KEY: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
const NOW: i64 = 1_800_000_000;

fn settings() -> OAuthSettings {
    OAuthSettings::from_lookup(|name| match name {
        "SLACK_CLIENT_ID" => Some(OAUTH_CLIENT_ID.into()),
        "SLACK_CLIENT_SECRET" => Some(OAUTH_CLIENT_SECRET.into()),
        "SOURCEBOT_PUBLIC_URL" => Some("https://sourcebot.example.com".into()),
        "SOURCEBOT_TOKEN_KEY" => Some(KEY.into()),
        _ => None,
    })
    .expect("valid settings")
    .expect("OAuth on")
}

fn team() -> WorkspaceKey {
    WorkspaceKey {
        enterprise_id: None,
        team_id: Some("T0R".into()),
        is_enterprise_install: false,
    }
}

/// A store holding a rotating install of T0R whose token expires `expires_in` seconds
/// after [`NOW`], installed through the fake's real code exchange.
async fn installed(
    slack: &FakeSlack,
    api: &SlackApi,
    expires_in: i64,
) -> (Arc<SqlStore>, tempfile::TempDir) {
    let redirect = settings().redirect_uri();
    slack.grant_oauth_code(
        "code-r",
        OAuthGrant {
            rotating: true,
            ..OAuthGrant::workspace("T0R", &redirect)
        },
    );
    let answer = api
        .oauth_access(
            OAUTH_CLIENT_ID,
            OAUTH_CLIENT_SECRET,
            vec![
                ("code", Some("code-r".into())),
                ("redirect_uri", Some(redirect)),
            ],
        )
        .await
        .expect("the code exchange");
    let mut installation =
        sourcebot::install::oauth::installation_from_access(&answer, NOW).expect("readable");
    installation.bot_token_expires_at = Some(NOW + expires_in);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("rotation.db").display());
    let store = Arc::new(
        SqlStore::connect(&url, TokenKey::from_hex(KEY).expect("key"))
            .await
            .expect("the store opens"),
    );
    store.save(&installation).await.expect("saved");
    (store, dir)
}

fn rotator(
    store: &Arc<SqlStore>,
    state: &Arc<MemoryState>,
    api: &Arc<SlackApi>,
    holder: &str,
) -> Rotator {
    Rotator {
        settings: settings(),
        store: store.clone(),
        state: state.clone() as Arc<dyn BotState>,
        slack: api.clone(),
        holder: holder.into(),
    }
}

fn refreshes(slack: &FakeSlack) -> usize {
    slack
        .calls_to("oauth.v2.access")
        .iter()
        .filter(|c| c.str("grant_type") == Some("refresh_token"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_refreshing_one_expiring_token_call_slack_once() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let api =
        Arc::new(SlackApi::new(&slack.api_url(), "", Duration::from_secs(5)).expect("client"));
    let (store, _dir) = installed(&slack, &api, 600).await;
    let before = store.find(&team()).await.expect("find").expect("installed");
    let state = Arc::new(MemoryState::new());
    let (a, b) = (
        rotator(&store, &state, &api, "replica-a"),
        rotator(&store, &state, &api, "replica-b"),
    );
    let (ra, rb) = tokio::join!(a.refresh_due(NOW), b.refresh_due(NOW));
    assert_eq!(ra.refreshed + rb.refreshed, 1, "{ra:?} {rb:?}");
    assert_eq!(ra.failed + rb.failed, 0, "{ra:?} {rb:?}");
    assert_eq!(refreshes(&slack), 1, "one refresh token, used once");
    let after = store.find(&team()).await.expect("find").expect("installed");
    assert_ne!(after.bot_token, before.bot_token);
    assert_ne!(after.bot_refresh_token, before.bot_refresh_token);
    assert_eq!(after.bot_token_expires_at, Some(NOW + 43_200));
    // No longer due: nothing more.
    assert_eq!(a.refresh_due(NOW).await, Round::default());
    assert_eq!(refreshes(&slack), 1);
}

#[tokio::test]
async fn a_token_not_due_is_left_and_a_refused_refresh_changes_nothing() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let api =
        Arc::new(SlackApi::new(&slack.api_url(), "", Duration::from_secs(5)).expect("client"));
    let (store, _dir) = installed(&slack, &api, 6 * 3600).await;
    let state = Arc::new(MemoryState::new());
    let r = rotator(&store, &state, &api, "replica-a");
    assert_eq!(
        r.refresh_due(NOW).await,
        Round::default(),
        "6 h left: not due"
    );
    assert_eq!(refreshes(&slack), 0);

    // Due, but Slack refuses the refresh token: reported, nothing changed.
    let mut spent = store.find(&team()).await.expect("find").expect("installed");
    spent.bot_token_expires_at = Some(NOW + 60);
    spent.bot_refresh_token = Some("xoxe-1-not-a-real-refresh".into());
    store.save(&spent).await.expect("saved");
    let round = r.refresh_due(NOW).await;
    assert_eq!(round.failed, 1, "{round:?}");
    assert_eq!(store.find(&team()).await.expect("find"), Some(spent));
}

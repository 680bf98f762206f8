//! The OAuth v2 install flow end to end, against the fake Slack's `oauth.v2.access` and
//! a real SQLite installation store: `/slack/install` redirects to Slack's authorize
//! page with the manifest's scopes, the redirect URI and a state bound to a cookie;
//! Slack's redirect with the right state and code stores the installation (its token
//! encrypted); a forged, reused, expired or other-browser state is refused with 400
//! and nothing is stored; a cancelled install or a code Slack refuses stores nothing;
//! an org-wide install is stored by its enterprise id.

mod support;

use serde_json::{json, Value};
use sourcebot::install::lifecycle::StoreInstallations;
use sourcebot::install::oauth::{OAuthSettings, BOT_SCOPES, STATE_COOKIE};
use sourcebot::install::routes::{router, InstallService};
use sourcebot::slack::api::SlackApi;
use sourcebot::state::MemoryState;
use sourcebot::store::installations::{Installation, InstallationStore, SqlStore, WorkspaceKey};
use sourcebot::store::token_key::TokenKey;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use support::bot::{harness_serving, Harness, SECRET};
use support::serve::serve_app;
use support::slack::{
    app_mention_event, event_callback, message_shortcut_payload, trigger_id, unix_now, FakeSlack,
    Message, OAuthGrant, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, WORKSPACE_DOMAIN,
};

const KEY: &str = "8d3f1c2b4a5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8";
const PUBLIC: &str = "https://sourcebot.example.com";

/// The install routes on 127.0.0.1, a fake Slack, and the store behind them.
struct Install {
    slack: FakeSlack,
    settings: OAuthSettings,
    store: Arc<SqlStore>,
    base: String,
    http: reqwest::Client,
    _dir: tempfile::TempDir,
    _server: tokio::task::JoinHandle<()>,
}

fn settings() -> OAuthSettings {
    OAuthSettings::from_lookup(|name| match name {
        "SLACK_CLIENT_ID" => Some(OAUTH_CLIENT_ID.into()),
        "SLACK_CLIENT_SECRET" => Some(OAUTH_CLIENT_SECRET.into()),
        "SOURCEBOT_PUBLIC_URL" => Some(PUBLIC.into()),
        "SOURCEBOT_TOKEN_KEY" => Some(KEY.into()),
        _ => None,
    })
    .expect("valid settings")
    .expect("OAuth on")
}

impl Install {
    async fn start() -> Install {
        sourcebot::verify::install_crypto_provider();
        let slack = FakeSlack::start().await;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let url = format!("sqlite://{}", dir.path().join("installs.db").display());
        let store = Arc::new(
            SqlStore::connect(&url, TokenKey::from_hex(KEY).expect("key"))
                .await
                .expect("the store opens"),
        );
        let api = SlackApi::new(&slack.api_url(), "", Duration::from_secs(5)).expect("client");
        let service = Arc::new(InstallService {
            settings: settings(),
            store: store.clone(),
            state: Arc::new(MemoryState::new()),
            slack: Arc::new(api),
        });
        let (addr, server) = serve_app(router(service)).await;
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        Install {
            slack,
            settings: settings(),
            store,
            base: format!("http://{addr}"),
            http,
            _dir: dir,
            _server: server,
        }
    }

    /// `GET /slack/install`: the state in the Location and the cookie's nonce.
    async fn begin(&self) -> (String, String) {
        let response = self
            .http
            .get(format!("{}/slack/install", self.base))
            .send()
            .await
            .expect("/slack/install answers");
        assert_eq!(response.status().as_u16(), 302);
        let location = response.headers()["location"]
            .to_str()
            .expect("ASCII")
            .to_string();
        let cookie = response.headers()["set-cookie"]
            .to_str()
            .expect("ASCII")
            .to_string();
        let url = url::Url::parse(&location).expect("a URL");
        let query: HashMap<String, String> = url.query_pairs().into_owned().collect();
        let nonce = cookie
            .split(';')
            .next()
            .and_then(|pair| pair.strip_prefix(&format!("{STATE_COOKIE}=")))
            .expect("the state cookie")
            .to_string();
        (query["state"].clone(), nonce)
    }

    /// Slack's redirect back, with `query` and the cookie `nonce` (if any): the status
    /// and the page.
    async fn back(&self, query: &[(&str, &str)], nonce: Option<&str>) -> (u16, String) {
        let query = serde_urlencoded::to_string(query).expect("a query");
        let mut request = self
            .http
            .get(format!("{}/slack/oauth_redirect?{query}", self.base));
        if let Some(nonce) = nonce {
            request = request.header("cookie", format!("other=1; {STATE_COOKIE}={nonce}"));
        }
        let response = request.send().await.expect("the redirect answers");
        let status = response.status().as_u16();
        (status, response.text().await.unwrap_or_default())
    }

    async fn installed(&self, team: &str) -> Option<sourcebot::store::installations::Installation> {
        self.store
            .find(&WorkspaceKey {
                enterprise_id: None,
                team_id: Some(team.into()),
                is_enterprise_install: false,
            })
            .await
            .expect("the store answers")
    }
}

#[tokio::test]
async fn install_redirects_to_slack_with_the_manifests_scopes_and_a_bound_state() {
    let i = Install::start().await;
    let response = i
        .http
        .get(format!("{}/slack/install", i.base))
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status().as_u16(), 302);
    let location = url::Url::parse(response.headers()["location"].to_str().unwrap_or_default())
        .expect("a URL");
    assert_eq!(
        location.as_str().split('?').next(),
        Some("https://slack.com/oauth/v2/authorize")
    );
    let query: HashMap<String, String> = location.query_pairs().into_owned().collect();
    assert_eq!(query["client_id"], OAUTH_CLIENT_ID);
    assert_eq!(query["scope"], BOT_SCOPES.join(","));
    assert_eq!(
        query["redirect_uri"],
        format!("{PUBLIC}/slack/oauth_redirect")
    );
    let cookie = response.headers()["set-cookie"]
        .to_str()
        .unwrap_or_default();
    for part in [
        "HttpOnly",
        "Secure",
        "SameSite=Lax",
        "Path=/slack",
        "Max-Age=600",
    ] {
        assert!(cookie.contains(part), "{part}: {cookie}");
    }
    assert!(query["state"].starts_with(
        cookie
            .split(';')
            .next()
            .unwrap_or_default()
            .split('=')
            .nth(1)
            .unwrap_or("-")
    ));
}

#[tokio::test]
async fn the_right_state_and_code_store_the_installation_once() {
    let i = Install::start().await;
    let (state, nonce) = i.begin().await;
    let redirect = i.settings.redirect_uri();
    i.slack
        .grant_oauth_code("code-1", OAuthGrant::workspace("T0002", &redirect));
    let (status, page) = i
        .back(&[("code", "code-1"), ("state", &state)], Some(&nonce))
        .await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("installed in Team T0002"), "{page}");
    let installed = i.installed("T0002").await.expect("stored");
    assert_eq!(installed.bot_user_id, "UBOTT0002");
    assert!(installed.bot_token.starts_with("xoxb-T0002-"));
    let exchange = &i.slack.calls_to("oauth.v2.access")[0];
    assert_eq!(exchange.str("code"), Some("code-1"));
    assert_eq!(exchange.str("redirect_uri"), Some(redirect.as_str()));
    assert_eq!(
        exchange.str("client_secret"),
        Some(OAUTH_CLIENT_SECRET),
        "sent as Basic auth"
    );
    assert_eq!(
        exchange.http_method, "POST",
        "a form POST: no code or secret in a URL"
    );

    // The same redirect again (a reload, or a thief with the link): refused, nothing new.
    let (status, page) = i
        .back(&[("code", "code-1"), ("state", &state)], Some(&nonce))
        .await;
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("already used"), "{page}");
    assert_eq!(i.slack.calls_to("oauth.v2.access").len(), 1);
}

#[tokio::test]
async fn forged_expired_and_other_browser_states_are_refused_and_nothing_is_stored() {
    let i = Install::start().await;
    let redirect = i.settings.redirect_uri();
    i.slack
        .grant_oauth_code("code-2", OAuthGrant::workspace("T0003", &redirect));
    let (state, nonce) = i.begin().await;
    // The last character changed (to one it is not: a state ending in `0` would
    // otherwise be "forged" into itself, one run in 64).
    let swap = if state.ends_with('0') { '1' } else { '0' };
    let forged = format!("{}{swap}", &state[..state.len() - 1]);
    assert_ne!(forged, state);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let (expired, expired_nonce) = i.settings.new_state(now - 700).expect("a state");
    for (query_state, cookie, why) in [
        (forged.as_str(), Some(nonce.as_str()), "was not made here"),
        ("no-dots", Some(nonce.as_str()), "was not made here"),
        (state.as_str(), None, "another browser"),
        (state.as_str(), Some("someone-else"), "another browser"),
        (expired.as_str(), Some(expired_nonce.as_str()), "expired"),
    ] {
        let (status, page) = i
            .back(&[("code", "code-2"), ("state", query_state)], cookie)
            .await;
        assert_eq!(status, 400, "{why}: {page}");
        assert!(page.contains(why), "{why}: {page}");
    }
    let (status, _) = i.back(&[("code", "code-2")], Some(&nonce)).await;
    assert_eq!(status, 400, "no state at all");
    assert!(
        i.slack.calls_to("oauth.v2.access").is_empty(),
        "no code was exchanged"
    );
    assert!(i.installed("T0003").await.is_none());
    // The real state still works afterwards.
    let (status, page) = i
        .back(&[("code", "code-2"), ("state", &state)], Some(&nonce))
        .await;
    assert_eq!(status, 200, "{page}");
    assert!(i.installed("T0003").await.is_some());
}

#[tokio::test]
async fn a_cancelled_install_or_a_refused_code_stores_nothing() {
    let i = Install::start().await;
    let (state, nonce) = i.begin().await;
    let (status, page) = i
        .back(
            &[("error", "access_denied"), ("state", &state)],
            Some(&nonce),
        )
        .await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("cancelled"), "{page}");
    let (state, nonce) = i.begin().await;
    let (status, page) = i
        .back(
            &[("code", "never-granted"), ("state", &state)],
            Some(&nonce),
        )
        .await;
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("invalid_code"), "{page}");
    assert!(!page.contains(OAUTH_CLIENT_SECRET));
    assert!(i.installed("T0004").await.is_none());
}

#[tokio::test]
async fn an_org_wide_install_is_stored_by_its_enterprise() {
    let i = Install::start().await;
    let (state, nonce) = i.begin().await;
    i.slack.grant_oauth_code(
        "code-org",
        OAuthGrant {
            team_id: None,
            team_name: String::new(),
            enterprise_id: Some("E0ORG".into()),
            is_enterprise_install: true,
            rotating: true,
            redirect_uri: Some(i.settings.redirect_uri()),
        },
    );
    let (status, page) = i
        .back(&[("code", "code-org"), ("state", &state)], Some(&nonce))
        .await;
    assert_eq!(status, 200, "{page}");
    // A workspace of that organization is served by the org-wide install.
    let found = i
        .store
        .find(&WorkspaceKey {
            enterprise_id: Some("E0ORG".into()),
            team_id: Some("T0ANY".into()),
            is_enterprise_install: false,
        })
        .await
        .expect("the store answers")
        .expect("the org's install");
    assert!(found.is_enterprise_install);
    assert_eq!(found.team_id, None);
    assert!(
        found.bot_refresh_token.is_some(),
        "rotating tokens keep their refresh token"
    );
    assert!(found.bot_token_expires_at.is_some());
}

/// A store holding installations for `teams`, each with its own token
/// (`xoxb-{team}-installed`) and bot user (`UBOT{team}`).
async fn store_with(teams: &[&str]) -> (Arc<SqlStore>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("installs.db").display());
    let store = Arc::new(
        SqlStore::connect(&url, TokenKey::from_hex(KEY).expect("key"))
            .await
            .expect("the store opens"),
    );
    for team in teams {
        store.save(&installed_in(team)).await.expect("saved");
    }
    (store, dir)
}

fn installed_in(team: &str) -> Installation {
    Installation {
        enterprise_id: None,
        team_id: Some(team.into()),
        is_enterprise_install: false,
        app_id: "A0001".into(),
        bot_user_id: format!("UBOT{team}"),
        bot_id: Some(format!("BBOT{team}")),
        bot_token: format!("xoxb-{team}-installed"),
        bot_scopes: vec!["chat:write".into()],
        bot_refresh_token: None,
        bot_token_expires_at: None,
        installer_user_id: None,
        installed_at: 1,
    }
}

/// The bot serving what `store` holds, without a bot token of its own.
async fn bot_for(store: &Arc<SqlStore>) -> Harness {
    let installations = Arc::new(StoreInstallations {
        store: store.clone(),
    });
    harness_serving(
        Arc::new(FakeSlack::start().await),
        Some(installations),
        |settings| settings.bot_token = None,
    )
    .await
}

/// `event` delivered as Slack delivers it for the installation in `team`: the
/// callback's `team_id` and its `authorizations` name that workspace and its bot.
fn callback_in(team: &str, event_id: &str, mut event: Value) -> Value {
    event["team"] = json!(team);
    let mut callback = event_callback(event_id, event);
    callback["team_id"] = json!(team);
    callback["authorizations"][0]["team_id"] = json!(team);
    callback["authorizations"][0]["user_id"] = json!(format!("UBOT{team}"));
    callback
}

/// Every Web API call made with `token`, by method.
fn methods_with(slack: &FakeSlack, token: &str) -> Vec<String> {
    slack
        .calls()
        .into_iter()
        .filter(|call| call.token.as_deref() == Some(token))
        .map(|call| call.method)
        .collect()
}

/// A thread in `team`'s `channel`: a question, an answer citing the
/// runbook, then the bot's own earlier reply there (which cites something else and
/// must be skipped), then a mention of the bot.
fn thread_in(slack: &FakeSlack, team: &str, channel: &str, parent: &str) -> (String, Value) {
    slack.add_message(
        channel,
        Message::from_user(parent, "U1", "Can we deploy on Friday?"),
    );
    let ts = |n: u32| format!("{}.{:06}", &parent[..10], n);
    slack.add_message(
        channel,
        // A person's answer: no assistant is preferred over the bot's own reply, so
        // only knowing who the bot is in this workspace skips that reply.
        Message::from_user(
            &ts(200),
            "U2",
            "Deploys are frozen on Fridays, per the <http://127.0.0.1:9/runbook|Release runbook>.",
        )
        .in_thread(parent),
    );
    slack.add_message(
        channel,
        Message {
            ts: ts(300),
            thread_ts: Some(parent.into()),
            user: Some(format!("UBOT{team}")),
            bot_id: Some(format!("BBOT{team}")),
            text: "Deploys are allowed on Fridays since March, per the <http://127.0.0.1:9/own-reply|Own earlier reply>.".into(),
        },
    );
    let mention = format!("<@UBOT{team}>");
    slack.add_message(
        channel,
        Message::from_user(&ts(400), "U1", &mention).in_thread(parent),
    );
    let event = app_mention_event(channel, "U1", &mention, &ts(400), Some(parent));
    (ts(400), event)
}

/// Two workspaces installed, a third not: a mention in each installed workspace is
/// read and answered with that workspace's token, as that workspace's bot (its own
/// earlier reply skipped); a command and a shortcut in B use B's token; the third
/// workspace's event is acknowledged and not acted on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_workspace_is_served_with_its_own_token_and_bot_identity() {
    let (store, _dir) = store_with(&["T0A", "T0B"]).await;
    let h = bot_for(&store).await;

    let (_, mention) = thread_in(&h.slack, "T0B", "C0BCHAN", "1700000500.000100");
    let (status, _, took) = h.callback(&callback_in("T0B", "EvB1", mention)).await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(3));
    let posts = h
        .slack
        .wait_for("chat.postMessage", 1, Duration::from_secs(10))
        .await;
    assert_eq!(posts[0].token.as_deref(), Some("xoxb-T0B-installed"));
    let shown = posts[0].str("text").unwrap_or_default().to_string()
        + &posts[0]
            .param("blocks")
            .map(Value::to_string)
            .unwrap_or_default();
    assert!(shown.contains("Release runbook"), "{shown}");
    assert!(
        !shown.contains("Own earlier reply"),
        "B's bot skips its own reply: {shown}"
    );
    assert_eq!(
        methods_with(&h.slack, "xoxb-T0B-installed"),
        ["conversations.replies", "chat.postMessage"]
    );

    let (_, mention) = thread_in(&h.slack, "T0A", "C0ACHAN", "1700000600.000100");
    h.callback(&callback_in("T0A", "EvA1", mention)).await;
    let posts = h
        .slack
        .wait_for("chat.postMessage", 2, Duration::from_secs(10))
        .await;
    assert_eq!(posts[1].token.as_deref(), Some("xoxb-T0A-installed"));
    assert_eq!(posts[1].str("channel"), Some("C0ACHAN"));

    // A command in B that points at a message: read with B's token.
    let link = format!(
        "https://{WORKSPACE_DOMAIN}.slack.com/archives/C0BCHAN/p1700000500000200?thread_ts=1700000500.000100"
    );
    let body = serde_urlencoded::to_string([
        ("team_id", "T0B"),
        ("team_domain", "bee"),
        ("channel_id", "C0BCHAN"),
        ("user_id", "U1"),
        ("command", "/sources"),
        ("text", link.as_str()),
        ("response_url", &h.slack.response_url("cmdB")),
        ("trigger_id", &trigger_id()),
    ])
    .expect("form");
    let (status, _, _) = h
        .post_signed(
            "/slack/commands",
            &body,
            "application/x-www-form-urlencoded",
            SECRET,
            unix_now(),
            &[],
        )
        .await;
    assert_eq!(status, 200);
    let reads = h
        .slack
        .wait_for("conversations.replies", 3, Duration::from_secs(10))
        .await;
    assert_eq!(reads[2].token.as_deref(), Some("xoxb-T0B-installed"));
    h.slack
        .wait_for("response_url", 1, Duration::from_secs(10))
        .await;

    // The shortcut on a message in B: posted with B's token.
    let mut shortcut = message_shortcut_payload(
        "check_sources",
        "C0BCHAN",
        "U1",
        &Message::from_user(
            "1700000800.000100",
            "U2",
            "Friday deploys need the <http://127.0.0.1:9/runbook|Release runbook>.",
        ),
        &h.slack.response_url("shortcutB"),
    );
    shortcut["team"]["id"] = json!("T0B");
    shortcut["user"]["team_id"] = json!("T0B");
    let (status, _, _) = h.interaction(shortcut).await;
    assert_eq!(status, 200);
    let posts = h
        .slack
        .wait_for("chat.postMessage", 3, Duration::from_secs(10))
        .await;
    assert_eq!(posts[2].str("channel"), Some("C0BCHAN"));
    assert_eq!(posts[2].token.as_deref(), Some("xoxb-T0B-installed"));

    // An event from a workspace with no installation: acknowledged, not acted on.
    let before = h.slack.calls().len();
    let (_, mention) = thread_in(&h.slack, "T0C", "C0CCHAN", "1700000700.000100");
    let (status, _, took) = h.callback(&callback_in("T0C", "EvC1", mention)).await;
    assert_eq!(status, 200, "acknowledged");
    assert!(took < Duration::from_secs(3));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(h.slack.calls().len(), before, "nothing done in T0C");
}

/// `app_uninstalled`, and `tokens_revoked` with bot tokens, delete the installation of
/// the workspace the callback names and that workspace's state; revoked user tokens
/// alone keep it; after it, the workspace's events are not acted on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uninstalling_or_revoking_the_bot_token_deletes_the_installation_and_its_state() {
    let (store, _dir) = store_with(&["T0A", "T0B"]).await;
    let h = bot_for(&store).await;
    let key = installed_in("T0A").key();
    let workspace = h
        .bot
        .workspaces()
        .resolve(Some(&key))
        .await
        .expect("T0A is served");
    assert_eq!(workspace.watch.identity.user_id, "UBOTT0A");
    workspace
        .state
        .keep_share("report-1", json!({"text": "kept"}))
        .await;
    let other = h
        .bot
        .workspaces()
        .resolve(Some(&installed_in("T0B").key()))
        .await
        .expect("T0B is served");
    other
        .state
        .keep_share("report-1", json!({"text": "B's"}))
        .await;

    let users_only = json!({"type": "tokens_revoked", "tokens": {"oauth": ["U1"], "bot": []}, "event_ts": "1700000900.000100"});
    h.callback(&callback_in("T0A", "EvRevokeUsers", users_only))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        store.find(&key).await.expect("find").is_some(),
        "user tokens only: kept"
    );

    let bot_revoked = json!({"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOTT0A"]}, "event_ts": "1700000901.000100"});
    h.callback(&callback_in("T0A", "EvRevokeBot", bot_revoked))
        .await;
    assert!(
        gone(&store, &installed_in("T0A")).await,
        "the bot token revoked: deleted"
    );
    assert_eq!(
        workspace.state.take_share("report-1").await,
        None,
        "the workspace's state went with it"
    );
    assert_eq!(
        other.state.take_share("report-1").await,
        Some(json!({"text": "B's"})),
        "another workspace's state stays"
    );
    let (_, mention) = thread_in(&h.slack, "T0A", "C0ACHAN", "1700000950.000100");
    h.callback(&callback_in("T0A", "EvAfter", mention)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        h.slack.calls_to("chat.postMessage").is_empty(),
        "nothing is done in a workspace that removed the app"
    );

    let uninstalled = json!({"type": "app_uninstalled", "event_ts": "1700000902.000100"});
    h.callback(&callback_in("T0B", "EvUninstalled", uninstalled))
        .await;
    assert!(
        gone(&store, &installed_in("T0B")).await,
        "uninstalled: deleted"
    );
}

/// Whether the installation disappears from the store within five seconds.
async fn gone(store: &SqlStore, installation: &Installation) -> bool {
    for _ in 0..250 {
        if store
            .find(&installation.key())
            .await
            .expect("find")
            .is_none()
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

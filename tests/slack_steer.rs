//! Running sourcebot from Slack, end to end over HTTP against the fake Slack Web API:
//! `/sources watch|unwatch|settings` (admins only), the settings modal and its
//! submission, the App Home, and the feedback footer on every report — recorded,
//! counted, changed, explained in the 👎 modal and exported — with the settings kept in
//! a database that survives a restart and holds on a second replica (through Redis).
//! The payloads follow Slack's reference: `users.info`, `views.publish`,
//! `app_home_opened`, `block_actions` from `feedback_buttons`, `view_submission`.

mod support;

use serde_json::{json, Value};
use sourcebot::model::workspace::{ChannelScope, WorkspaceSettings};
use sourcebot::render::feedback::{COMMENT_BLOCK, WRONG_PART_BLOCK, WRONG_PART_CALLBACK_ID};
use sourcebot::slack::ONLY_ADMINS;
use sourcebot::store::installations::SqlStore;
use sourcebot::store::workspace_data::WorkspaceData;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::bot::{harness_keeping, Harness, CHANNEL};
use support::slack::{
    admin_user, app_mention_event, bot_message, bot_user, member_user, message_event, trigger_id,
    FakeSlack, BOT_USER_ID, TEAM_ID,
};
use support::{HostileServer, Route};

const WAIT: Duration = Duration::from_secs(5);
/// The assistant's bot user and bot id.
const AI_USER: &str = "UAIBOT";
const AI_BOT: &str = "BAI2";

/// A loopback address of this file's block, 127.41.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(41)
}

/// A page that answers 200.
async fn site() -> HostileServer {
    HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await
}

/// An answer citing `site`'s page.
fn answer_text(site: &HostileServer) -> String {
    format!(
        "Deploys freeze on Fridays [1].\n\n[1] {} - Freeze policy",
        site.url("/ok")
    )
}

/// The fake Slack with an admin, a member and the assistant's bot user.
async fn fake_slack() -> Arc<FakeSlack> {
    let slack = Arc::new(FakeSlack::start().await);
    slack.add_user(admin_user("UADMIN", "Ada"));
    slack.add_user(member_user("UMEMBER", "Bob"));
    slack.add_user(bot_user(AI_USER, AI_BOT, "Helper AI"));
    slack
}

/// The bot on `slack`, watching nothing from the environment, keeping its workspace
/// data in `data` (fresh in memory when `None`) and its state in `redis` (this process
/// when `None`).
async fn bot(
    slack: &Arc<FakeSlack>,
    data: Option<Arc<dyn WorkspaceData>>,
    redis: Option<String>,
) -> Harness {
    harness_keeping(slack.clone(), None, data, |settings| {
        settings.watch_bot_ids = Vec::new();
        settings.redis_url = redis;
    })
    .await
}

/// Polls `probe` every 20 ms until it finds something, for at most [`WAIT`]; fails
/// with `what` when it never does.
async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(Instant::now() < deadline, "waited in vain for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The text and blocks of the `response_url` posts to `id`, waiting for `n`.
async fn responses(h: &Harness, id: &str, n: usize) -> Vec<String> {
    eventually(&format!("{n} answers to {id}"), || async {
        let found: Vec<String> = h
            .slack
            .calls_to("response_url")
            .into_iter()
            .filter(|call| call.str("id") == Some(id))
            .map(|call| {
                let blocks = call.param("blocks").map(Value::to_string);
                format!(
                    "{} {}",
                    call.str("text").unwrap_or_default(),
                    blocks.unwrap_or_default()
                )
            })
            .collect();
        (found.len() >= n).then_some(found)
    })
    .await
}

/// Runs `/sources text` as `user` and returns the answer posted to its response URL.
async fn sources(h: &Harness, user: &str, text: &str, id: &str) -> String {
    let (status, _, _) = h.command_by(user, text, id).await;
    assert_eq!(status, 200);
    responses(h, id, 1).await.remove(0)
}

/// The assistant posts `text` in `channel` at `ts`.
async fn assistant_answers(h: &Harness, channel: &str, ts: &str, text: &str) {
    let message = bot_message(ts, AI_BOT, "AAI2", text, None, None);
    h.event(&format!("Ev{ts}"), message_event(channel, &message), &[])
        .await;
}

/// U1 mentions the bot with `text` in `channel` at `ts` (the Events API delivery
/// `event_id`).
async fn mention(h: &Harness, event_id: &str, channel: &str, text: &str, ts: &str) {
    h.event(
        event_id,
        app_mention_event(channel, "U1", text, ts, None),
        &[],
    )
    .await;
}

/// The bot's own posts in `channel`, as stored.
fn bot_posts(h: &Harness, channel: &str) -> Vec<Value> {
    h.slack
        .raw_messages(channel)
        .into_iter()
        .filter(|m| m["user"] == BOT_USER_ID || m["bot_id"] == support::slack::BOT_ID)
        .collect()
}

/// Waits until the bot has `n` posts in `channel`.
async fn wait_posts(h: &Harness, channel: &str, n: usize) -> Vec<Value> {
    eventually(&format!("{n} posts in {channel}"), || async {
        let posts = bot_posts(h, channel);
        (posts.len() >= n).then_some(posts)
    })
    .await
}

/// Waits for the history to hold `reports` reports: the bot records each once its
/// support check is done.
async fn wait_recorded(h: &Harness, reports: u64) {
    eventually(&format!("{reports} reports recorded"), || async {
        let lines = h
            .bot
            .hub()
            .data()
            .activity(TEAM_ID, 0)
            .await
            .expect("activity");
        (lines.iter().map(|l| l.reports).sum::<u64>() >= reports).then_some(())
    })
    .await
}

/// Every feedback the bot recorded, as `sourcebot feedback export` prints it.
async fn export(h: &Harness) -> Vec<Value> {
    h.bot
        .hub()
        .data()
        .export_feedback(0, None)
        .await
        .expect("export")
}

/// The settings the workspace saved.
async fn own(h: &Harness) -> WorkspaceSettings {
    h.bot.hub().own(TEAM_ID).await.expect("settings")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_watches_and_unwatches_and_a_member_is_refused() {
    let slack = fake_slack().await;
    let h = bot(&slack, None, None).await;
    let page = site().await;

    let refused = sources(&h, "UMEMBER", &format!("watch <@{AI_USER}|helper>"), "m1").await;
    assert!(refused.contains(ONLY_ADMINS), "{refused}");
    assert!(own(&h).await.watched.is_empty());

    let not_a_bot = sources(&h, "UADMIN", "watch <@UMEMBER>", "a0").await;
    assert!(not_a_bot.contains("is not a bot"), "{not_a_bot}");
    let unknown = sources(&h, "UADMIN", "watch <@UNOBODY>", "a00").await;
    assert!(unknown.contains("cannot find that user"), "{unknown}");

    let watched = sources(&h, "UADMIN", &format!("watch <@{AI_USER}|helper>"), "a1").await;
    assert!(watched.contains("Helper AI"), "{watched}");
    let saved = own(&h).await;
    assert_eq!(saved.watched.len(), 1);
    assert_eq!(
        saved.watched[0].bot_id, AI_BOT,
        "the bot id users.info gave"
    );
    assert_eq!(saved.watched[0].user_id, AI_USER);

    // With nothing in the environment, the watched assistant's answer gets sources.
    assistant_answers(&h, CHANNEL, "1700003000.000100", &answer_text(&page)).await;
    let posts = wait_posts(&h, CHANNEL, 1).await;
    assert_eq!(posts[0]["thread_ts"], "1700003000.000100");

    let summary = sources(&h, "UMEMBER", "settings", "m2").await;
    assert!(
        summary.contains("Helper AI") && !summary.contains("sourcebot_edit_settings"),
        "{summary}"
    );
    let summary = sources(&h, "UADMIN", "settings", "a2").await;
    assert!(
        summary.contains("sourcebot_edit_settings"),
        "admins get Edit: {summary}"
    );

    let refused = sources(&h, "UMEMBER", &format!("unwatch <@{AI_USER}>"), "m3").await;
    assert!(refused.contains(ONLY_ADMINS), "{refused}");
    assert_eq!(own(&h).await.watched.len(), 1, "nothing changed");
    let unwatched = sources(&h, "UADMIN", &format!("unwatch <@{AI_USER}>"), "a3").await;
    assert!(unwatched.contains("no longer"), "{unwatched}");
    assert!(own(&h).await.watched.is_empty());
    assistant_answers(&h, CHANNEL, "1700003100.000100", &answer_text(&page)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        bot_posts(&h, CHANNEL).len(),
        1,
        "an unwatched assistant gets nothing"
    );
}

/// A JSON fixture from `tests/data/slack/`.
fn fixture(path: &str) -> Value {
    let path = format!("{}/tests/data/slack/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The settings modal's submission as Slack sends it (Slack's reference shape), from
/// `user`, choosing only `channels`.
fn settings_submission(user: &str, channels: &[&str]) -> Value {
    let mut payload = fixture("view_submission.json");
    payload["team"]["id"] = json!(TEAM_ID);
    payload["user"]["id"] = json!(user);
    payload["trigger_id"] = json!(trigger_id());
    payload["view"]["state"]["values"]["channels_list"]["channels_list"]
        ["selected_conversations"] = json!(channels);
    payload
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_settings_modal_saves_for_admins_and_watched_answers_follow_the_chosen_channels() {
    let slack = fake_slack().await;
    let h = bot(&slack, None, None).await;
    let page = site().await;
    sources(&h, "UADMIN", &format!("watch <@{AI_USER}>"), "w").await;

    // A member's submission is refused under the form, and nothing changes.
    let (status, body, took) = h
        .interaction(settings_submission("UMEMBER", &["C0SCOPED"]))
        .await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(3), "{took:?}");
    let body: Value = serde_json::from_str(&body).expect("errors JSON");
    assert_eq!(body["response_action"], "errors");
    assert_eq!(body["errors"]["channels_scope"], ONLY_ADMINS);
    assert_eq!(own(&h).await.channels, ChannelScope::All);

    // An empty channel list is an error under that field.
    let (_, body, _) = h.interaction(settings_submission("UADMIN", &[])).await;
    let body: Value = serde_json::from_str(&body).expect("errors JSON");
    assert!(body["errors"]["channels_list"].is_string(), "{body}");

    // An admin's submission closes the modal (an empty 200) and saves.
    let (status, body, _) = h
        .interaction(settings_submission("UADMIN", &["C0SCOPED"]))
        .await;
    assert_eq!((status, body.as_str()), (200, ""));
    let saved = own(&h).await;
    assert_eq!(saved.channels, ChannelScope::Only(vec!["C0SCOPED".into()]));
    assert_eq!(saved.sources_per_kind, Some(10));
    assert_eq!(saved.support, Some(true));
    assert_eq!(saved.internal_quotes, Some(false));
    assert_eq!(
        saved.watched.len(),
        1,
        "the modal keeps the watched assistants"
    );

    // Outside the chosen channels a watched answer is left alone; inside, it gets sources.
    assistant_answers(&h, "C0ELSEWHERE", "1700004000.000100", &answer_text(&page)).await;
    assistant_answers(&h, "C0SCOPED", "1700004100.000100", &answer_text(&page)).await;
    wait_posts(&h, "C0SCOPED", 1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(bot_posts(&h, "C0ELSEWHERE").is_empty());

    // The Edit button opens the modal for an admin, filled in with the saved settings.
    let press = json!({
        "type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "UADMIN"},
        "trigger_id": trigger_id(), "response_url": slack.response_url("edit"),
        "container": {"type": "message", "channel_id": CHANNEL, "message_ts": "1.1", "is_ephemeral": true},
        "channel": {"id": CHANNEL},
        "actions": [{"type": "button", "action_id": "sourcebot_edit_settings", "value": "edit"}],
    });
    h.interaction(press).await;
    let opened = slack.wait_for("views.open", 1, WAIT).await;
    let view = opened[0].param("view").cloned().unwrap_or_default();
    assert!(view.to_string().contains("C0SCOPED"), "{view}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_survive_a_restart_and_hold_on_a_second_replica() {
    let Some(redis) = support::redis::RedisServer::start().await else {
        eprintln!("redis-server is not installed: the replica test is skipped");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("sqlite://{}", dir.path().join("sourcebot.db").display());
    let open = || async {
        let store = SqlStore::connect_for_data(&url).await.expect("database");
        Some(Arc::new(store) as Arc<dyn WorkspaceData>)
    };
    let slack = fake_slack().await;
    let page = site().await;
    let one = bot(&slack, open().await, Some(redis.url())).await;
    let two = bot(&slack, open().await, Some(redis.url())).await;
    // The second replica reads (and caches) the settings before they change.
    assert!(two.bot.hub().applied(TEAM_ID).await.watched.is_empty());

    sources(&one, "UADMIN", &format!("watch <@{AI_USER}>"), "w").await;
    let changed = Instant::now();
    loop {
        if two
            .bot
            .hub()
            .applied(TEAM_ID)
            .await
            .watched
            .contains(AI_BOT)
        {
            break;
        }
        assert!(
            changed.elapsed() < Duration::from_secs(5),
            "the change must hold on the other replica within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The second replica acts on it.
    assistant_answers(&two, CHANNEL, "1700005000.000100", &answer_text(&page)).await;
    wait_posts(&two, CHANNEL, 1).await;

    // A restart (a new process on the same database) keeps them.
    drop(one);
    drop(two);
    let three = bot(&slack, open().await, None).await;
    let kept = own(&three).await;
    assert_eq!(kept.watched.len(), 1);
    assert_eq!(kept.watched[0].bot_id, AI_BOT);
}

/// A press of a feedback button (`block_actions` from Slack's reference, with a
/// `feedback_buttons` action) on the report `ts` in `channel`, carrying `value`.
fn feedback_press(
    slack: &FakeSlack,
    user: &str,
    channel: &str,
    ts: &str,
    value: &str,
    id: &str,
) -> Value {
    let mut payload = fixture("block_actions_feedback_buttons.json");
    payload["team"]["id"] = json!(TEAM_ID);
    payload["user"]["id"] = json!(user);
    payload["channel"]["id"] = json!(channel);
    payload["container"]["channel_id"] = json!(channel);
    payload["container"]["message_ts"] = json!(ts);
    payload["message"]["ts"] = json!(ts);
    payload["trigger_id"] = json!(trigger_id());
    payload["response_url"] = json!(slack.response_url(id));
    payload["actions"][0]["value"] = json!(value);
    payload
}

/// The feedback values (`up:…`, `down:…`) a posted report carries.
fn feedback_values(post: &Value) -> (String, String) {
    let footer = post["blocks"]
        .as_array()
        .and_then(|blocks| blocks.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(footer["type"], "context_actions", "the footer: {footer}");
    let element = &footer["elements"][0];
    assert_eq!(element["type"], "feedback_buttons");
    (
        element["positive_button"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        element["negative_button"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feedback_is_recorded_counted_changed_explained_and_exported() {
    let slack = fake_slack().await;
    let h = bot(&slack, None, None).await;
    let page = site().await;
    let text = format!("<@{BOT_USER_ID}> {}", answer_text(&page));
    mention(&h, "EvF1", CHANNEL, &text, "1700006000.000100").await;
    let post = wait_posts(&h, CHANNEL, 1).await.remove(0);
    let ts = post["ts"].as_str().expect("ts").to_string();
    wait_recorded(&h, 1).await;
    let (up, down) = feedback_values(&post);

    // 👍: recorded, counted, thanked.
    h.interaction(feedback_press(&slack, "UREADER", CHANNEL, &ts, &up, "t1"))
        .await;
    let thanks = responses(&h, "t1", 1).await;
    assert!(thanks[0].contains("Thanks for the 👍"), "{thanks:?}");
    let metrics = h.bot.metrics().encode();
    assert!(
        metrics.contains("sourcebot_feedback_total{value=\"up\"} 1"),
        "{metrics}"
    );

    // 👎 from the same person changes the vote and opens the modal.
    h.interaction(feedback_press(&slack, "UREADER", CHANNEL, &ts, &down, "t2"))
        .await;
    responses(&h, "t2", 1).await;
    let opened = slack.wait_for("views.open", 1, WAIT).await;
    let modal = opened[0].param("view").cloned().unwrap_or_default();
    assert_eq!(modal["callback_id"], WRONG_PART_CALLBACK_ID);
    let exported = export(&h).await;
    assert_eq!(
        exported.len(),
        1,
        "one vote per person and report: {exported:?}"
    );
    assert_eq!(exported[0]["vote"], "down");
    assert!(h
        .bot
        .metrics()
        .encode()
        .contains("sourcebot_feedback_total{value=\"down\"} 1"));

    // The modal's answer, hostile: 10,000 characters with control characters and mentions.
    let hostile: String = format!(
        "<!channel> <@U0> \u{0}\u{7}\u{1b}[31m {}",
        "x".repeat(10_000)
    );
    let submission = json!({
        "type": "view_submission",
        "team": {"id": TEAM_ID, "domain": "acme"},
        "user": {"id": "UREADER"},
        "trigger_id": trigger_id(),
        "view": {
            "id": "V1", "type": "modal", "callback_id": WRONG_PART_CALLBACK_ID,
            "private_metadata": modal["private_metadata"],
            "state": {"values": {
                WRONG_PART_BLOCK: {WRONG_PART_BLOCK: {"type": "radio_buttons", "selected_option": {"value": "claim_verdict", "text": {"type": "plain_text", "text": "A claim's verdict"}}}},
                COMMENT_BLOCK: {COMMENT_BLOCK: {"type": "plain_text_input", "value": hostile}},
            }},
        },
    });
    let (status, body, _) = h.interaction(submission).await;
    assert_eq!((status, body.as_str()), (200, ""));
    let line = eventually("the modal's answer in the export", || async {
        let exported = export(&h).await;
        exported[0]["comment"]
            .is_string()
            .then(|| exported[0].clone())
    })
    .await;
    assert_eq!(line["vote"], "down");
    assert_eq!(line["wrong"], "claim_verdict");
    let kept: String = hostile.chars().take(3_000).collect();
    assert_eq!(
        line["comment"],
        json!(kept),
        "stored as given, cut to 3,000 characters"
    );
    assert_eq!(line["channel"], CHANNEL);
    assert_eq!(line["message_ts"], json!(ts));
    assert_eq!(line["asked_by"], "U1");
    assert_eq!(line["counts"]["sources"], 1);
    assert!(
        line["evidence"]["groups"].is_array(),
        "evidence kept for a report with feedback: {line}"
    );
    // The line reads back as labelled data for the fitting examples.
    let votes =
        sourcebot::install::feedback_export::claim_votes(&line.to_string()).expect("labels");
    assert!(votes
        .iter()
        .all(|v| v.vote == "down" && v.wrong.as_deref() == Some("claim_verdict")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_that_refuses_the_feedback_element_gets_buttons_and_it_is_remembered() {
    let slack = fake_slack().await;
    slack.refuse_block_type("context_actions");
    let h = bot(&slack, None, None).await;
    let page = site().await;
    let text = format!("<@{BOT_USER_ID}> {}", answer_text(&page));
    mention(&h, "EvR1", CHANNEL, &text, "1700007000.000100").await;
    let post = wait_posts(&h, CHANNEL, 1).await.remove(0);
    let footer = post["blocks"]
        .as_array()
        .and_then(|b| b.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(footer["type"], "actions", "{footer}");
    assert!(
        footer.to_string().contains("sourcebot_feedback_up"),
        "{footer}"
    );
    let attempts = slack.calls_to("chat.postMessage").len();
    assert_eq!(attempts, 2, "the element, refused; then the buttons");

    // The next report goes with the buttons at once.
    mention(&h, "EvR2", CHANNEL, &text, "1700007100.000100").await;
    wait_posts(&h, CHANNEL, 2).await;
    assert_eq!(slack.calls_to("chat.postMessage").len(), 3);
    // …and a press of the plain 👍 button counts as one.
    let ts = post["ts"].as_str().expect("ts");
    let value = footer["elements"][0]["value"]
        .as_str()
        .expect("value")
        .to_string();
    let mut press = feedback_press(&slack, "UREADER", CHANNEL, ts, &value, "b1");
    press["actions"][0]["type"] = json!("button");
    press["actions"][0]["action_id"] = json!("sourcebot_feedback_up");
    h.interaction(press).await;
    responses(&h, "b1", 1).await;
    let exported = export(&h).await;
    assert_eq!(exported.len(), 1);
    assert_eq!(exported[0]["vote"], "up");
}

/// Opens the App Home as `user` and returns the view published for them.
async fn open_home(h: &Harness, user: &str, event_id: &str) -> Value {
    let before = h.slack.published_views().len();
    let mut event = fixture("events/app_home_opened.json");
    event["user"] = json!(user);
    h.event(event_id, event, &[]).await;
    let (to, view) = eventually(&format!("views.publish for {user}"), || async {
        h.slack.published_views().get(before).cloned()
    })
    .await;
    assert_eq!(to, user);
    view
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_home_counts_the_reports_posted_and_names_are_shown_escaped() {
    let slack = fake_slack().await;
    // An assistant whose name tries to notify everyone.
    slack.add_user(bot_user("UEVIL", "BEVIL", "<!channel> Evil & Co"));
    let h = bot(&slack, None, None).await;
    let page = site().await;

    let empty = open_home(&h, "UMEMBER", "EvH0").await;
    assert_eq!(empty["type"], "home");
    assert!(
        empty.to_string().contains("No reports in the last"),
        "{empty}"
    );
    assert!(
        !empty.to_string().contains("sourcebot_edit_settings"),
        "members get no Edit"
    );

    sources(&h, "UADMIN", &format!("watch <@{AI_USER}>"), "w1").await;
    sources(&h, "UADMIN", "watch <@UEVIL>", "w2").await;
    // Two answers from the assistant, one from the other, and one mention by a person.
    assistant_answers(&h, CHANNEL, "1700008000.000100", &answer_text(&page)).await;
    assistant_answers(&h, "C0OTHER", "1700008100.000100", &answer_text(&page)).await;
    let evil = bot_message(
        "1700008200.000100",
        "BEVIL",
        "AEVIL",
        &answer_text(&page),
        None,
        None,
    );
    h.event("EvEvil", message_event("C0THIRD", &evil), &[])
        .await;
    let text = format!("<@{BOT_USER_ID}> {}", answer_text(&page));
    mention(&h, "EvH1", "C0FOURTH", &text, "1700008300.000100").await;
    wait_recorded(&h, 4).await;

    let view = open_home(&h, "UADMIN", "EvH2").await;
    let shown = view.to_string();
    assert!(view["blocks"].as_array().is_some_and(|b| b.len() <= 100));
    assert!(shown.contains("sourcebot_edit_settings"), "admins get Edit");
    assert!(shown.contains("`Helper AI` · 2 reports"), "{shown}");
    assert!(
        shown.contains("`&lt;!channel&gt; Evil &amp; Co` · 1 report"),
        "{shown}"
    );
    assert!(
        shown.contains("*Claim support:* on: cited pages"),
        "{shown}"
    );
    assert!(shown.contains("*Asked by people* · 1 report"), "{shown}");
    assert!(
        !shown.contains("<!channel>"),
        "a name never becomes markup: {shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uninstalling_deletes_the_workspaces_settings_and_history() {
    let slack = fake_slack().await;
    let h = bot(&slack, None, None).await;
    sources(&h, "UADMIN", &format!("watch <@{AI_USER}>"), "w").await;
    assert_eq!(own(&h).await.watched.len(), 1);
    h.event("EvU1", json!({"type": "app_uninstalled"}), &[])
        .await;
    eventually("the settings deleted after app_uninstalled", || async {
        own(&h).await.watched.is_empty().then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspaces_own_settings_shape_its_reports() {
    let slack = fake_slack().await;
    let h = bot(&slack, None, None).await;
    let one = site().await;
    let two = site().await;
    // Every channel, claim support off, one source per kind, reports to the asker only.
    let mut submission = settings_submission("UADMIN", &[]);
    let values = &mut submission["view"]["state"]["values"];
    values["channels_scope"]["channels_scope"]["selected_option"]["value"] = json!("all");
    values["support"]["support"]["selected_option"]["value"] = json!("off");
    values["sources_per_kind"]["sources_per_kind"]["value"] = json!("1");
    values["audience"]["audience"]["selected_option"] = json!({"value": "asker_only", "text": {"type": "plain_text", "text": "Offer to the person who asked only"}});
    let (status, body, _) = h.interaction(submission).await;
    assert_eq!((status, body.as_str()), (200, ""), "saved");

    let text = format!(
        "<@{BOT_USER_ID}> Deploys freeze on Fridays [1]. Rollbacks need a ticket [2].\n\n[1] {} - Freeze policy\n[2] {} - Rollback policy",
        one.url("/ok"),
        two.url("/ok")
    );
    mention(&h, "EvS1", CHANNEL, &text, "1700009000.000100").await;
    let shown = slack.wait_for("chat.postEphemeral", 1, WAIT).await;
    assert_eq!(shown[0].str("user"), Some("U1"), "only the asker sees it");
    assert_eq!(shown[0].str("thread_ts"), Some("1700009000.000100"));
    let blocks = shown[0]
        .param("blocks")
        .map(Value::to_string)
        .unwrap_or_default();
    assert!(
        blocks.contains("Freeze policy") && !blocks.contains("Rollback policy"),
        "one source per kind: {blocks}"
    );
    assert!(blocks.contains("feedback_buttons"), "{blocks}");
    wait_recorded(&h, 1).await;
    assert!(
        slack.calls_to("chat.postMessage").is_empty(),
        "nothing posted for everyone"
    );
    assert!(
        slack.calls_to("chat.update").is_empty(),
        "support off: no second pass"
    );
}

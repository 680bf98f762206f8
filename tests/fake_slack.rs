//! The fake Slack itself (tests/support/slack.rs): raw messages come back whole through
//! `conversations.history` and `conversations.replies`, the bot's messages can be
//! posted, updated, linked to and deleted with the fields and errors Slack documents,
//! the event builders give the shapes of Slack's Events API, `users.info` answers with
//! users shaped as Slack's reference shows them, `views.publish` and `views.open` keep
//! to a view's limits, and a block type can be refused as an older workspace does.

mod support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use support::serve::loopback_client;
use support::slack::{
    admin_user, bot_message, bot_profile, bot_user, event_callback, events_api_envelope,
    member_user, message_changed_event, message_deleted_event, message_event,
    message_shortcut_payload, message_shortcut_payload_raw, owner_user, permalink,
    primary_owner_user, tombstone_event, tombstone_message, trigger_id, Failure, FakeSlack,
    Message, APP_ID, BOT_ID, BOT_NAME, BOT_USER_ID, TEAM_ID,
};

const CHANNEL: &str = "C0GENERAL";
const TOKEN: &str = "xoxb-test";

/// A client for the fake, signed in with the bot token.
struct Client {
    http: reqwest::Client,
    api: String,
}

impl Client {
    fn new(slack: &FakeSlack) -> Client {
        sourcebot::verify::install_crypto_provider();
        Client {
            http: loopback_client(),
            api: slack.api_url(),
        }
    }

    /// POSTs `params` as JSON to `method`; the decoded answer.
    async fn post(&self, method: &str, params: Value) -> Value {
        let response = self
            .http
            .post(format!("{}/{method}", self.api))
            .bearer_auth(TOKEN)
            .header("content-type", "application/json; charset=utf-8")
            .body(params.to_string())
            .send()
            .await
            .expect("request");
        decode(response).await
    }

    /// POSTs `fields` form-encoded to `method`, as Slack's SDKs send most methods; the
    /// decoded answer.
    async fn form(&self, method: &str, fields: &[(&str, &str)]) -> Value {
        let body = serde_urlencoded::to_string(fields).expect("form");
        let response = self
            .http
            .post(format!("{}/{method}", self.api))
            .bearer_auth(TOKEN)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("request");
        decode(response).await
    }

    /// GETs `method` with `query`; the decoded answer.
    async fn get(&self, method: &str, query: &[(&str, &str)]) -> Value {
        let query = serde_urlencoded::to_string(query).expect("query");
        let response = self
            .http
            .get(format!("{}/{method}?{query}", self.api))
            .bearer_auth(TOKEN)
            .send()
            .await
            .expect("request");
        decode(response).await
    }
}

async fn decode(response: reqwest::Response) -> Value {
    assert_eq!(response.status().as_u16(), 200);
    let text = response.text().await.expect("body");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Asserts every field of `expected` is in `actual` with the same value.
fn assert_fields(actual: &Value, expected: &Value) {
    let expected = expected.as_object().expect("an object");
    for (key, value) in expected {
        assert_eq!(actual.get(key), Some(value), "field {key} of {actual}");
    }
}

fn assert_error(answer: &Value, code: &str) {
    assert_eq!(answer["ok"], json!(false), "{answer}");
    assert_eq!(answer["error"], json!(code), "{answer}");
}

fn messages(answer: &Value) -> Vec<Value> {
    assert_eq!(answer["ok"], json!(true), "{answer}");
    answer["messages"].as_array().cloned().unwrap_or_default()
}

/// An assistant's answer in full: blocks, attachments, files, metadata, an edit stamp and
/// a field Slack may add tomorrow.
fn assistant_answer(ts: &str) -> Value {
    let blocks = json!([
        {"type": "rich_text", "block_id": "a1", "elements": [
            {"type": "rich_text_section", "elements": [
                {"type": "text", "text": "The freeze starts Friday "},
                {"type": "link", "url": "https://nothing.invalid/freeze", "text": "[1]"}
            ]}
        ]},
        {"type": "context", "block_id": "a2", "elements": [
            {"type": "mrkdwn", "text": "<https://nothing.invalid/freeze|Freeze policy>"}
        ]}
    ]);
    let attachments = json!([
        {"id": 1, "fallback": "Freeze policy", "title": "Freeze policy",
         "title_link": "https://nothing.invalid/freeze", "text": "Deploys freeze on Fridays."},
        {"id": 2, "fallback": "Calendar", "title": "Calendar",
         "title_link": "https://nothing.invalid/calendar", "footer": "Updated 2024"}
    ]);
    let mut message = bot_message(
        ts,
        "BAI",
        "AAI",
        "The freeze starts Friday [1].",
        Some(blocks),
        Some(attachments),
    );
    message["files"] =
        json!([{"id": "F1", "name": "policy.pdf", "url_private": "https://files.slack.com/F1"}]);
    message["metadata"] = json!({"event_type": "answer", "event_payload": {"sources": 1}});
    message["edited"] = json!({"user": "U0AIBOT", "ts": "1700000101.000000"});
    message["x_future_field"] = json!({"nested": [1, 2, 3]});
    message
}

#[tokio::test]
async fn raw_messages_come_back_whole_with_thread_fields() {
    let slack = FakeSlack::start().await;
    let client = Client::new(&slack);
    let parent_ts = "1700000100.000100";
    let answer = assistant_answer(parent_ts);
    slack.add_raw_message(CHANNEL, answer.clone());
    let reply = json!({
        "type": "message", "user": "U1", "text": "thanks", "ts": "1700000100.000200",
        "thread_ts": parent_ts, "client_msg_id": "c-1", "team": TEAM_ID
    });
    slack.add_raw_message(CHANNEL, reply.clone());

    // History: the parent only, every field kept, thread fields merged in.
    let history = messages(
        &client
            .get("conversations.history", &[("channel", CHANNEL)])
            .await,
    );
    assert_eq!(history.len(), 1, "{history:?}");
    let parent = &history[0];
    assert_fields(parent, &answer);
    assert_eq!(parent["thread_ts"], json!(parent_ts));
    assert_eq!(parent["reply_count"], json!(1));
    assert_eq!(parent["reply_users_count"], json!(1));
    assert_eq!(parent["reply_users"], json!(["U1"]));
    assert_eq!(parent["latest_reply"], json!("1700000100.000200"));
    assert!(parent.get("subtype").is_none());

    // Replies: the parent then the reply, both whole; the reply names its parent's author.
    let thread = messages(
        &client
            .get(
                "conversations.replies",
                &[("channel", CHANNEL), ("ts", parent_ts)],
            )
            .await,
    );
    assert_eq!(thread.len(), 2, "{thread:?}");
    assert_eq!(&thread[0], parent);
    assert_fields(&thread[1], &reply);
    assert_eq!(thread[1]["parent_user_id"], json!("U0AIBOT"));
    assert_eq!(slack.raw_messages(CHANNEL), thread);
    let legacy = slack.messages(CHANNEL);
    assert_eq!(legacy[0].bot_id.as_deref(), Some("BAI"));
    assert_eq!(legacy[1].thread_ts.as_deref(), Some(parent_ts));

    // The assistant edits its answer: history shows the new one, thread fields still on.
    let mut edited = answer.clone();
    edited["text"] = json!("The freeze starts Thursday [1].");
    edited["edited"] = json!({"user": "U0AIBOT", "ts": "1700000102.000000"});
    slack.replace_raw_message(CHANNEL, edited.clone());
    let history = messages(
        &client
            .get("conversations.history", &[("channel", CHANNEL)])
            .await,
    );
    assert_fields(&history[0], &edited);
    assert_eq!(history[0]["reply_count"], json!(1));

    // The reply goes: the parent loses its thread fields.
    assert!(slack.remove_message(CHANNEL, "1700000100.000200"));
    assert!(!slack.remove_message(CHANNEL, "1700000100.000200"));
    let history = messages(
        &client
            .get("conversations.history", &[("channel", CHANNEL)])
            .await,
    );
    assert_eq!(history, vec![edited]);
    assert_eq!(slack.calls_to("conversations.history").len(), 3);
    assert_eq!(slack.calls_to("conversations.replies").len(), 1);
}

#[tokio::test]
async fn the_bots_messages_are_posted_updated_linked_and_deleted() {
    let slack = FakeSlack::start().await;
    let client = Client::new(&slack);
    slack.add_message(
        CHANNEL,
        Message::from_user("1700000000.000050", "U1", "a question"),
    );
    let blocks = json!([{"type": "section", "text": {"type": "mrkdwn", "text": "*Sources*"}}]);

    // chat.postMessage
    let posted = client
        .post(
            "chat.postMessage",
            json!({"channel": CHANNEL, "text": "Sources", "blocks": blocks}),
        )
        .await;
    assert_eq!(posted["ok"], json!(true), "{posted}");
    assert_eq!(posted["channel"], json!(CHANNEL));
    let ts = posted["ts"].as_str().expect("ts").to_string();
    let message = &posted["message"];
    assert_fields(
        message,
        &json!({
            "type": "message", "text": "Sources", "user": BOT_USER_ID, "bot_id": BOT_ID,
            "app_id": APP_ID, "ts": ts, "team": TEAM_ID, "blocks": blocks,
            "bot_profile": bot_profile(BOT_ID, APP_ID)
        }),
    );
    assert!(message.get("subtype").is_none(), "{message}");
    let profile = &message["bot_profile"];
    for key in [
        "id", "app_id", "name", "icons", "deleted", "updated", "team_id",
    ] {
        assert!(profile.get(key).is_some(), "bot_profile.{key}: {profile}");
    }
    assert_eq!(profile["name"], json!(BOT_NAME));

    let reply = client
        .post(
            "chat.postMessage",
            json!({"channel": CHANNEL, "text": "more", "thread_ts": ts}),
        )
        .await;
    let reply_ts = reply["ts"].as_str().expect("ts").to_string();
    assert_eq!(reply["message"]["thread_ts"], json!(ts));

    // chat.update: text only keeps the blocks; an empty array removes them.
    let updated = client
        .post(
            "chat.update",
            json!({"channel": CHANNEL, "ts": ts, "text": "Sources (2)"}),
        )
        .await;
    assert_fields(
        &updated,
        &json!({"ok": true, "channel": CHANNEL, "ts": ts, "text": "Sources (2)"}),
    );
    let message = &updated["message"];
    assert_fields(
        message,
        &json!({"type": "message", "text": "Sources (2)", "user": BOT_USER_ID,
                "bot_id": BOT_ID, "blocks": blocks}),
    );
    assert_eq!(message["edited"]["user"], json!(BOT_USER_ID));
    assert!(message["edited"]["ts"].is_string(), "{message}");
    let cleared = client
        .post(
            "chat.update",
            json!({"channel": CHANNEL, "ts": ts, "text": "plain", "blocks": []}),
        )
        .await;
    assert!(cleared["message"].get("blocks").is_none(), "{cleared}");
    let history = messages(
        &client
            .get("conversations.history", &[("channel", CHANNEL)])
            .await,
    );
    let stored = history.iter().find(|m| m["ts"] == json!(ts)).expect("kept");
    assert_eq!(stored["text"], json!("plain"));
    assert_eq!(stored["reply_count"], json!(1));
    assert_error(
        &client
            .post(
                "chat.update",
                json!({"channel": CHANNEL, "ts": "1600000000.000100", "text": "x"}),
            )
            .await,
        "message_not_found",
    );
    assert_error(
        &client
            .post(
                "chat.update",
                json!({"channel": CHANNEL, "ts": "1700000000.000050", "text": "x"}),
            )
            .await,
        "cant_update_message",
    );

    // chat.getPermalink: plain for a parent, with thread_ts and cid for a reply.
    let link = client
        .get(
            "chat.getPermalink",
            &[("channel", CHANNEL), ("message_ts", &ts)],
        )
        .await;
    let expected = format!(
        "https://fakeslack.slack.com/archives/{CHANNEL}/p{}",
        ts.replace('.', "")
    );
    assert_eq!(
        link,
        json!({"ok": true, "channel": CHANNEL, "permalink": expected})
    );
    let link = client
        .get(
            "chat.getPermalink",
            &[("channel", CHANNEL), ("message_ts", &reply_ts)],
        )
        .await;
    assert_eq!(
        link["permalink"],
        json!(format!(
            "https://fakeslack.slack.com/archives/{CHANNEL}/p{}?thread_ts={ts}&cid={CHANNEL}",
            reply_ts.replace('.', "")
        ))
    );
    assert_error(
        &client
            .get(
                "chat.getPermalink",
                &[("channel", CHANNEL), ("message_ts", "1600000000.000100")],
            )
            .await,
        "message_not_found",
    );

    // chat.delete: errors first, then the parent (it has a reply: a tombstone stays),
    // then the reply (the tombstone goes with it).
    assert_error(
        &client
            .post(
                "chat.delete",
                json!({"channel": CHANNEL, "ts": "1600000000.000100"}),
            )
            .await,
        "message_not_found",
    );
    assert_error(
        &client
            .post(
                "chat.delete",
                json!({"channel": CHANNEL, "ts": "1700000000.000050"}),
            )
            .await,
        "cant_delete_message",
    );
    let deleted = client
        .post("chat.delete", json!({"channel": CHANNEL, "ts": ts}))
        .await;
    assert_eq!(deleted, json!({"ok": true, "channel": CHANNEL, "ts": ts}));
    let history = messages(
        &client
            .get("conversations.history", &[("channel", CHANNEL)])
            .await,
    );
    let tombstone = history
        .iter()
        .find(|m| m["ts"] == json!(ts))
        .expect("tombstone");
    assert_fields(
        tombstone,
        &json!({"subtype": "tombstone", "text": "This message was deleted.", "hidden": true,
                "user": "USLACKBOT", "thread_ts": ts, "reply_count": 1}),
    );
    let deleted = client
        .post("chat.delete", json!({"channel": CHANNEL, "ts": reply_ts}))
        .await;
    assert_eq!(deleted["ok"], json!(true), "{deleted}");
    let history = messages(
        &client
            .get("conversations.history", &[("channel", CHANNEL)])
            .await,
    );
    assert_eq!(history.len(), 1, "{history:?}");
    assert_eq!(history[0]["ts"], json!("1700000000.000050"));
    assert_error(
        &client
            .get(
                "conversations.replies",
                &[("channel", CHANNEL), ("ts", &ts)],
            )
            .await,
        "thread_not_found",
    );

    // A reply with no replies of its own just goes.
    let lone = client
        .post(
            "chat.postMessage",
            json!({"channel": CHANNEL, "text": "lone"}),
        )
        .await;
    let lone_ts = lone["ts"].as_str().expect("ts");
    client
        .post("chat.delete", json!({"channel": CHANNEL, "ts": lone_ts}))
        .await;
    assert_eq!(slack.messages(CHANNEL).len(), 1);
    assert_eq!(slack.calls_to("chat.delete").len(), 5);
    assert_eq!(slack.calls_to("chat.getPermalink").len(), 3);
}

#[test]
fn event_builders_have_slacks_shapes() {
    let answer = assistant_answer("1700000100.000100");

    let event = message_event(CHANNEL, &answer);
    assert_fields(&event, &answer);
    assert_fields(
        &event,
        &json!({"type": "message", "channel": CHANNEL, "channel_type": "channel",
                "event_ts": "1700000100.000100"}),
    );

    let mut new_message = answer.clone();
    new_message["text"] = json!("changed");
    new_message
        .as_object_mut()
        .expect("object")
        .remove("edited");
    let changed = message_changed_event(CHANNEL, &new_message, &answer, "1700000200.000300");
    assert_fields(
        &changed,
        &json!({"type": "message", "subtype": "message_changed", "hidden": true,
                "channel": CHANNEL, "ts": "1700000200.000300",
                "event_ts": "1700000200.000300", "previous_message": answer}),
    );
    assert_eq!(changed["message"]["text"], json!("changed"));
    assert_eq!(
        changed["message"]["edited"],
        json!({"user": "U0AIBOT", "ts": "1700000200.000300"})
    );
    let kept = message_changed_event(CHANNEL, &answer, &answer, "1700000200.000300");
    assert_eq!(kept["message"]["edited"], answer["edited"]);

    let deleted = message_deleted_event(CHANNEL, "1700000100.000100", &answer, "1700000300.000100");
    assert_fields(
        &deleted,
        &json!({"type": "message", "subtype": "message_deleted", "hidden": true,
                "channel": CHANNEL, "deleted_ts": "1700000100.000100",
                "ts": "1700000300.000100", "event_ts": "1700000300.000100",
                "previous_message": answer}),
    );

    let mut parent = answer.clone();
    parent["thread_ts"] = json!("1700000100.000100");
    parent["reply_count"] = json!(2);
    parent["reply_users"] = json!(["U1"]);
    parent["reply_users_count"] = json!(1);
    parent["latest_reply"] = json!("1700000100.000300");
    let tombstone = tombstone_event(CHANNEL, &parent, "1700000400.000100");
    assert_fields(
        &tombstone,
        &json!({"type": "message", "subtype": "message_changed", "hidden": true,
                "channel": CHANNEL, "ts": "1700000400.000100",
                "event_ts": "1700000400.000100", "previous_message": parent}),
    );
    assert_eq!(tombstone["message"], tombstone_message(&parent));
    assert_fields(
        &tombstone["message"],
        &json!({"type": "message", "subtype": "tombstone", "hidden": true,
                "text": "This message was deleted.", "ts": "1700000100.000100",
                "thread_ts": "1700000100.000100", "reply_count": 2,
                "latest_reply": "1700000100.000300", "reply_users": ["U1"]}),
    );

    assert_fields(
        &answer,
        &json!({"type": "message", "user": "U0AIBOT", "bot_id": "BAI", "app_id": "AAI",
                "team": TEAM_ID, "ts": "1700000100.000100"}),
    );
    for key in [
        "id", "app_id", "name", "icons", "deleted", "updated", "team_id",
    ] {
        assert!(
            answer["bot_profile"].get(key).is_some(),
            "bot_profile.{key}"
        );
    }
    assert_eq!(answer["bot_profile"]["id"], json!("BAI"));
    let bare = bot_message("1.000100", "BAI", "AAI", "hi", None, None);
    assert!(bare.get("blocks").is_none() && bare.get("attachments").is_none());
    assert!(bare.get("subtype").is_none());

    let callback = event_callback("Ev1", event.clone());
    assert_fields(
        &callback,
        &json!({"token": "XXYYZZ", "team_id": TEAM_ID, "api_app_id": APP_ID,
                "event": event, "type": "event_callback", "event_id": "Ev1",
                "event_time": 1_700_000_100, "is_ext_shared_channel": false}),
    );
    assert_eq!(callback["authorizations"][0]["user_id"], json!(BOT_USER_ID));
    assert_eq!(callback["authorizations"][0]["is_bot"], json!(true));
    let context = callback["event_context"].as_str().expect("event_context");
    assert!(context.starts_with("4-eyJ"), "{context}");
    let envelope = events_api_envelope("env-1", "Ev1", event.clone());
    assert_eq!(envelope["payload"], callback);

    let shortcut =
        message_shortcut_payload_raw("sources", CHANNEL, "U1", &answer, "https://hooks.invalid/1");
    assert_eq!(shortcut["message"], answer);
    assert_eq!(shortcut["message_ts"], json!("1700000100.000100"));
    assert_eq!(shortcut["type"], json!("message_action"));
    let legacy = message_shortcut_payload(
        "sources",
        CHANNEL,
        "U1",
        &Message::from_user("1700000000.000100", "U2", "hello"),
        "https://hooks.invalid/2",
    );
    assert_eq!(legacy["message_ts"], json!("1700000000.000100"));
    assert_eq!(legacy["message"]["user"], json!("U2"));
    assert_eq!(legacy["message"]["text"], json!("hello"));

    assert_eq!(
        permalink(CHANNEL, "1700000100.000200", Some("1700000100.000100")),
        format!(
            "https://fakeslack.slack.com/archives/{CHANNEL}/p1700000100000200?thread_ts=1700000100.000100&cid={CHANNEL}"
        )
    );
    assert_eq!(
        permalink(CHANNEL, "1700000100.000100", Some("1700000100.000100")),
        format!("https://fakeslack.slack.com/archives/{CHANNEL}/p1700000100000100")
    );
}

/// A fixture under tests/data/slack.
fn fixture(path: &str) -> Value {
    let path = format!("{}/tests/data/slack/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The keys of a JSON object.
fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .cloned()
        .collect()
}

/// The JSON type of `value`, to compare shapes.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Asserts that every key `actual` shares with `reference` holds a value of the same
/// JSON type.
fn assert_same_kinds(actual: &Value, reference: &Value, what: &str) {
    for key in keys(actual).intersection(&keys(reference)) {
        assert_eq!(
            kind(&actual[key]),
            kind(&reference[key]),
            "{what}: {key} is {} in the builder's user, {} in Slack's example",
            actual[key],
            reference[key]
        );
    }
}

#[test]
fn user_builders_have_the_keys_of_slacks_example() {
    // The example response of https://docs.slack.dev/reference/methods/users.info.
    let example = fixture("users_info.json");
    assert_eq!(example["ok"], json!(true));
    let reference = &example["user"];
    let people = [
        member_user("U0MEMBER", "Ada Lovelace"),
        admin_user("U0ADMIN", "Grace Hopper"),
        owner_user("U0OWNER", "Alan Turing"),
        primary_owner_user("U0PRIMARY", "Edsger Dijkstra"),
    ];
    for user in &people {
        assert_eq!(keys(user), keys(reference), "{user}");
        assert_eq!(
            keys(&user["profile"]),
            keys(&reference["profile"]),
            "{user}"
        );
        assert_same_kinds(user, reference, "user");
        assert_same_kinds(&user["profile"], &reference["profile"], "profile");
    }

    // A bot user: Slack gives no `has_2fa` and no email for bots, and adds the bot id,
    // its app and `always_active` to the profile.
    let bot = bot_user("U0AIBOT", "BAI", "Answer Bot");
    let mut want = keys(reference);
    want.remove("has_2fa");
    assert_eq!(keys(&bot), want, "{bot}");
    let mut want = keys(&reference["profile"]);
    want.remove("email");
    want.extend(["bot_id", "api_app_id", "always_active"].map(String::from));
    assert_eq!(keys(&bot["profile"]), want, "{bot}");
    assert_same_kinds(&bot, reference, "bot user");
    assert_same_kinds(&bot["profile"], &reference["profile"], "bot profile");
}

#[tokio::test]
async fn users_info_answers_with_the_users_a_test_adds() {
    let slack = FakeSlack::start().await;
    let client = Client::new(&slack);
    let people = [
        member_user("U0MEMBER", "Ada Lovelace"),
        admin_user("U0ADMIN", "Grace Hopper"),
        owner_user("U0OWNER", "Alan Turing"),
        primary_owner_user("U0PRIMARY", "Edsger Dijkstra"),
        bot_user("U0AIBOT", "BAI", "Answer Bot"),
    ];
    for user in &people {
        slack.add_user(user.clone());
    }
    // (is_admin, is_owner, is_primary_owner, is_bot) of each.
    let flags = [
        (false, false, false, false),
        (true, false, false, false),
        (true, true, false, false),
        (true, true, true, false),
        (false, false, false, true),
    ];
    for (user, (admin, owner, primary, bot)) in people.iter().zip(flags) {
        let id = user["id"].as_str().expect("id");
        let answer = client.get("users.info", &[("user", id)]).await;
        assert_eq!(answer["ok"], json!(true), "{answer}");
        let got = &answer["user"];
        // As added, but without the email: that needs users:read.email, which
        // sourcebot does not ask for.
        let mut expected = user.clone();
        expected["profile"]
            .as_object_mut()
            .expect("profile")
            .remove("email");
        assert_eq!(got, &expected);
        assert_fields(
            got,
            &json!({"id": id, "team_id": TEAM_ID, "deleted": false, "is_admin": admin,
                    "is_owner": owner, "is_primary_owner": primary, "is_bot": bot,
                    "is_restricted": false, "is_ultra_restricted": false,
                    "is_app_user": false}),
        );
    }
    assert_fields(
        &people[0],
        &json!({"name": "ada.lovelace", "real_name": "Ada Lovelace"}),
    );
    assert_fields(
        &people[0]["profile"],
        &json!({"real_name": "Ada Lovelace", "display_name": "ada.lovelace",
                "email": "ada.lovelace@fakeslack.example", "team": TEAM_ID}),
    );

    // Form-encoded as SDKs send it; a bot user names its bot id and app.
    let bot = client.form("users.info", &[("user", "U0AIBOT")]).await;
    assert_fields(
        &bot["user"]["profile"],
        &json!({"bot_id": "BAI", "api_app_id": "AAI", "real_name": "Answer Bot",
                "display_name": ""}),
    );
    // The bot's own user is known from the start.
    let own = client.get("users.info", &[("user", BOT_USER_ID)]).await;
    assert_fields(
        &own["user"],
        &json!({"id": BOT_USER_ID, "is_bot": true, "real_name": BOT_NAME}),
    );
    assert_fields(
        &own["user"]["profile"],
        &json!({"bot_id": BOT_ID, "api_app_id": APP_ID}),
    );

    // `include_locale` adds the locale; it is absent otherwise.
    let localized = client
        .get(
            "users.info",
            &[("user", "U0MEMBER"), ("include_locale", "true")],
        )
        .await;
    assert_eq!(localized["user"]["locale"], json!("en-US"));
    let plain = client.get("users.info", &[("user", "U0MEMBER")]).await;
    assert!(plain["user"].get("locale").is_none(), "{plain}");

    // Unknown or missing user.
    assert_eq!(
        client.get("users.info", &[("user", "U0NOBODY")]).await,
        json!({"ok": false, "error": "user_not_found"})
    );
    assert_error(&client.get("users.info", &[]).await, "user_not_found");

    // Adding a user again replaces it; failures can be queued as for any method.
    slack.add_user(admin_user("U0MEMBER", "Ada Lovelace"));
    let promoted = client.get("users.info", &[("user", "U0MEMBER")]).await;
    assert_eq!(promoted["user"]["is_admin"], json!(true));
    slack.fail_next(
        "users.info",
        Failure::SlackError("user_not_visible".into()),
        1,
    );
    assert_error(
        &client.get("users.info", &[("user", "U0MEMBER")]).await,
        "user_not_visible",
    );
    assert_eq!(slack.calls_to("users.info").len(), 13);
}

/// A section block with `text`.
fn section(text: &str) -> Value {
    json!({"type": "section", "text": {"type": "mrkdwn", "text": text}})
}

#[tokio::test]
async fn views_publish_keeps_each_users_home_tab() {
    let slack = FakeSlack::start().await;
    let client = Client::new(&slack);
    let home = json!({"type": "home", "callback_id": "sourcebot_home", "blocks": [
        {"type": "header", "text": {"type": "plain_text", "text": "sourcebot"}},
        {"type": "section", "block_id": "what",
         "text": {"type": "mrkdwn", "text": "Checks the sources of AI answers."}},
        {"type": "divider"}
    ]});

    // JSON, the view as an object: answered with the view as Slack stores it.
    let first = client
        .post("views.publish", json!({"user_id": "U1", "view": home}))
        .await;
    assert_eq!(first["ok"], json!(true), "{first}");
    let view = &first["view"];
    assert_fields(
        view,
        &json!({"team_id": TEAM_ID, "type": "home", "close": null, "submit": null,
                "callback_id": "sourcebot_home", "private_metadata": "", "external_id": "",
                "state": {"values": {}}, "clear_on_close": false, "notify_on_close": false,
                "previous_view_id": null, "app_id": APP_ID, "bot_id": BOT_ID}),
    );
    let id = view["id"].as_str().expect("view id").to_string();
    assert!(id.starts_with('V'), "{id}");
    assert_eq!(view["root_view_id"], json!(id));
    let hash = view["hash"].as_str().expect("hash").to_string();
    let blocks = view["blocks"].as_array().expect("blocks");
    assert_eq!(blocks.len(), 3);
    assert_eq!(blocks[1], home["blocks"][1], "a block_id given is kept");
    assert!(
        blocks[0]["block_id"].is_string(),
        "Slack fills in block ids"
    );

    // Form-encoded, the view as a JSON string, with the current hash: the same view,
    // a new hash.
    let mut updated = home.clone();
    updated["blocks"] = json!([section("Updated")]);
    let second = client
        .form(
            "views.publish",
            &[
                ("user_id", "U1"),
                ("view", &updated.to_string()),
                ("hash", &hash),
            ],
        )
        .await;
    assert_eq!(second["ok"], json!(true), "{second}");
    assert_eq!(second["view"]["id"], json!(id));
    assert_ne!(second["view"]["hash"], json!(hash));
    // The old hash is stale now.
    assert_error(
        &client
            .post(
                "views.publish",
                json!({"user_id": "U1", "view": home, "hash": hash}),
            )
            .await,
        "hash_conflict",
    );
    // Another user's Home tab is a view of its own.
    let other = client
        .post("views.publish", json!({"user_id": "U2", "view": home}))
        .await;
    assert_eq!(other["ok"], json!(true), "{other}");
    assert_ne!(other["view"]["id"], json!(id));

    // A view that is not a Home tab, and one of more than 100 blocks.
    let mut modal = home.clone();
    modal["type"] = json!("modal");
    let refused = client
        .post("views.publish", json!({"user_id": "U1", "view": modal}))
        .await;
    assert_error(&refused, "invalid_arguments");
    let many: Vec<Value> = (0..101).map(|i| section(&format!("line {i}"))).collect();
    let mut big = home.clone();
    big["blocks"] = json!(many);
    let refused = client
        .post("views.publish", json!({"user_id": "U1", "view": big}))
        .await;
    assert_error(&refused, "invalid_blocks");
    assert_eq!(
        refused["errors"],
        json!(["no more than 100 items allowed [json-pointer:/view/blocks]"])
    );
    let mut full = home.clone();
    full["blocks"] = json!(many[..100]);
    let accepted = client
        .post("views.publish", json!({"user_id": "U1", "view": full}))
        .await;
    assert_eq!(accepted["ok"], json!(true), "100 blocks fit: {accepted}");

    // A block Slack would not take, and missing arguments.
    let mut empty = home.clone();
    empty["blocks"] = json!([section("")]);
    let refused = client
        .post("views.publish", json!({"user_id": "U1", "view": empty}))
        .await;
    assert_error(&refused, "invalid_arguments");
    assert!(
        refused["response_metadata"]["messages"][0]
            .as_str()
            .is_some_and(|m| m.contains("[json-pointer:/view/blocks/0/text/text]")),
        "{refused}"
    );
    assert_error(
        &client.post("views.publish", json!({"view": home})).await,
        "invalid_arguments",
    );
    assert_error(
        &client.post("views.publish", json!({"user_id": "U1"})).await,
        "invalid_arguments",
    );
    assert_error(
        &client
            .post(
                "views.publish",
                json!({"user_id": "U1", "view": {"type": "home"}}),
            )
            .await,
        "invalid_arguments",
    );

    // What was accepted, as sent and in order; every call is recorded.
    assert_eq!(
        slack.published_views(),
        vec![
            ("U1".to_string(), home.clone()),
            ("U1".to_string(), updated),
            ("U2".to_string(), home),
            ("U1".to_string(), full),
        ]
    );
    assert_eq!(slack.calls_to("views.publish").len(), 11);
}

#[tokio::test]
async fn views_open_refuses_more_than_100_blocks() {
    let slack = FakeSlack::start().await;
    let client = Client::new(&slack);
    let modal = |n: usize| {
        json!({
            "type": "modal",
            "title": {"type": "plain_text", "text": "Evidence"},
            "close": {"type": "plain_text", "text": "Close"},
            "blocks": (0..n).map(|i| section(&format!("claim {i}"))).collect::<Vec<_>>()
        })
    };
    let opened = client
        .post(
            "views.open",
            json!({"trigger_id": trigger_id(), "view": modal(100)}),
        )
        .await;
    assert_eq!(opened["ok"], json!(true), "{opened}");
    assert!(opened["view"]["id"].is_string(), "{opened}");

    let refused = client
        .post(
            "views.open",
            json!({"trigger_id": trigger_id(), "view": modal(101)}),
        )
        .await;
    assert_error(&refused, "invalid_blocks");
    assert_eq!(
        refused["errors"],
        json!(["no more than 100 items allowed [json-pointer:/view/blocks]"])
    );
    let refused = client
        .form(
            "views.open",
            &[
                ("trigger_id", &trigger_id()),
                ("view", &modal(101).to_string()),
            ],
        )
        .await;
    assert_error(&refused, "invalid_blocks");

    // Everything else is answered as before.
    let mut home = modal(1);
    home["type"] = json!("home");
    assert_error(
        &client
            .post(
                "views.open",
                json!({"trigger_id": trigger_id(), "view": home}),
            )
            .await,
        "invalid_arguments",
    );
    assert_error(
        &client
            .post(
                "views.open",
                json!({"trigger_id": trigger_id(), "view": modal(0)}),
            )
            .await,
        "invalid_arguments",
    );
}

#[tokio::test]
async fn a_refused_block_type_fails_every_message_method() {
    let slack = FakeSlack::start().await;
    let client = Client::new(&slack);
    // Slack's own example of the AI-answer footer, fourth.
    let footer = fixture("blocks/context_actions_feedback_buttons.json");
    let blocks = json!([
        section("*Sources*"),
        section("1 link checked"),
        {"type": "divider"},
        footer
    ]);
    let plain = json!(blocks.as_array().expect("blocks")[..3]);

    // Slack takes the block by default.
    let posted = client
        .post(
            "chat.postMessage",
            json!({"channel": CHANNEL, "text": "Sources", "blocks": blocks}),
        )
        .await;
    assert_eq!(posted["ok"], json!(true), "{posted}");
    let ts = posted["ts"].as_str().expect("ts").to_string();

    slack.refuse_block_type("context_actions");
    let detail = "unsupported type `context_actions` [json-pointer:/blocks/3/type]";
    let attempts = [
        (
            "chat.postMessage",
            json!({"channel": CHANNEL, "text": "Sources", "blocks": blocks}),
        ),
        (
            "chat.update",
            json!({"channel": CHANNEL, "ts": ts, "text": "Sources", "blocks": blocks}),
        ),
        (
            "chat.postEphemeral",
            json!({"channel": CHANNEL, "user": "U1", "text": "Sources", "blocks": blocks}),
        ),
        // Some clients send the blocks as a JSON string inside JSON.
        (
            "chat.postMessage",
            json!({"channel": CHANNEL, "text": "Sources", "blocks": blocks.to_string()}),
        ),
    ];
    for (method, params) in attempts {
        let answer = client.post(method, params).await;
        assert_error(&answer, "invalid_blocks");
        assert_eq!(answer["errors"], json!([detail]), "{method}: {answer}");
    }
    // Form-encoded, the blocks as a JSON string.
    let answer = client
        .form(
            "chat.postMessage",
            &[
                ("channel", CHANNEL),
                ("text", "Sources"),
                ("blocks", &blocks.to_string()),
            ],
        )
        .await;
    assert_error(&answer, "invalid_blocks");
    assert_eq!(answer["errors"], json!([detail]), "{answer}");
    // The refused update changed nothing.
    let history = messages(
        &client
            .get("conversations.history", &[("channel", CHANNEL)])
            .await,
    );
    assert_eq!(history.len(), 1, "{history:?}");
    assert_eq!(history[0]["blocks"], blocks);

    // Without that block everything goes through.
    for (method, params) in [
        (
            "chat.postMessage",
            json!({"channel": CHANNEL, "text": "Sources", "blocks": plain}),
        ),
        (
            "chat.update",
            json!({"channel": CHANNEL, "ts": ts, "text": "Sources", "blocks": plain}),
        ),
        (
            "chat.postEphemeral",
            json!({"channel": CHANNEL, "user": "U1", "text": "Sources", "blocks": plain}),
        ),
    ] {
        let answer = client.post(method, params).await;
        assert_eq!(answer["ok"], json!(true), "{method}: {answer}");
    }
    assert_eq!(slack.calls_to("chat.postMessage").len(), 5);
    assert_eq!(slack.calls_to("chat.update").len(), 2);
    assert_eq!(slack.calls_to("chat.postEphemeral").len(), 2);
}

#[tokio::test]
async fn context_actions_blocks_are_held_to_their_limits() {
    let slack = FakeSlack::start().await;
    let client = Client::new(&slack);
    let footer = fixture("blocks/context_actions_feedback_buttons.json");
    let icon = json!({"type": "icon_button", "icon": "trash",
                      "text": {"type": "plain_text", "text": "Delete"},
                      "action_id": "delete_button_1", "value": "delete_item"});
    let post = |elements: Value| {
        let client = &client;
        async move {
            let blocks = json!([{"type": "context_actions", "elements": elements}]);
            client
                .post(
                    "chat.postMessage",
                    json!({"channel": CHANNEL, "text": "Sources", "blocks": blocks}),
                )
                .await
        }
    };
    let buttons = footer["elements"][0].clone();

    let fine = post(json!([buttons, icon])).await;
    assert_eq!(fine["ok"], json!(true), "{fine}");

    let six = json!([icon, icon, icon, icon, icon, icon]);
    let mut no_negative = buttons.clone();
    no_negative
        .as_object_mut()
        .expect("element")
        .remove("negative_button");
    let mut long_value = buttons.clone();
    long_value["positive_button"]["value"] = json!("v".repeat(2001));
    let mut markdown_text = buttons.clone();
    markdown_text["negative_button"]["text"]["type"] = json!("mrkdwn");
    let cases = [
        (
            json!([]),
            "must provide 1-5 items [json-pointer:/blocks/0/elements]",
        ),
        (
            six,
            "must provide 1-5 items [json-pointer:/blocks/0/elements]",
        ),
        (
            json!([{"type": "button", "text": {"type": "plain_text", "text": "Go"}}]),
            "must be feedback_buttons or icon_button [json-pointer:/blocks/0/elements/0/type]",
        ),
        (
            json!([no_negative]),
            "missing required field: negative_button [json-pointer:/blocks/0/elements/0]",
        ),
        (
            json!([long_value]),
            "must be 1-2000 characters [json-pointer:/blocks/0/elements/0/positive_button/value]",
        ),
        (
            json!([icon, markdown_text]),
            "must be plain_text [json-pointer:/blocks/0/elements/1/negative_button/text/type]",
        ),
    ];
    for (elements, detail) in cases {
        let answer = post(elements.clone()).await;
        assert_error(&answer, "invalid_blocks");
        assert_eq!(answer["errors"], json!([detail]), "{elements}: {answer}");
    }
}

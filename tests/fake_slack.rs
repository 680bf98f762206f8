//! The fake Slack itself (tests/support/slack.rs): raw messages come back whole through
//! `conversations.history` and `conversations.replies`, the bot's messages can be
//! posted, updated, linked to and deleted with the fields and errors Slack documents,
//! and the event builders give the shapes of Slack's Events API.

mod support;

use serde_json::{json, Value};
use support::serve::loopback_client;
use support::slack::{
    bot_message, bot_profile, event_callback, events_api_envelope, message_changed_event,
    message_deleted_event, message_event, message_shortcut_payload, message_shortcut_payload_raw,
    permalink, tombstone_event, tombstone_message, FakeSlack, Message, APP_ID, BOT_ID, BOT_NAME,
    BOT_USER_ID, TEAM_ID,
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

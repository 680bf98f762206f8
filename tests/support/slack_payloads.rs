//! What Slack sends the bot, as the fake's tests build it: Events API callbacks and
//! Socket Mode envelopes, message events (new, changed, deleted, tombstoned), bot
//! messages and profiles, permalinks, mentions, slash commands, shortcuts and
//! interactions, each in the shape Slack's reference shows.

use super::*;

/// An `events_api` Socket Mode envelope around `event` (e.g. [`app_mention_event`]), with
/// the outer `event_callback` payload Slack wraps events in. `retry_attempt` is 0; set
/// `retry_attempt` and `retry_reason` on the result to model a retry.
pub fn events_api_envelope(envelope_id: &str, event_id: &str, event: Value) -> Value {
    json!({
        "envelope_id": envelope_id,
        "type": "events_api",
        "accepts_response_payload": false,
        "retry_attempt": 0,
        "retry_reason": "",
        "payload": event_callback(event_id, event)
    })
}

/// The outer `event_callback` body Slack wraps an Events API `event` in (POSTed to the
/// app's Request URL over HTTP, or the `payload` of a Socket Mode envelope): `token`,
/// `team_id`, `api_app_id`, `event`, `type`, `event_id`, `event_time` (the event's
/// `event_ts` in whole seconds), `authorizations` (the bot), `is_ext_shared_channel` and
/// `event_context`. Follows <https://docs.slack.dev/apis/events-api/#callback-field>.
pub fn event_callback(event_id: &str, event: Value) -> Value {
    let event_time = event
        .get("event_ts")
        .and_then(Value::as_str)
        .and_then(ts_micros)
        .map_or(1_700_000_000, |micros| micros / 1_000_000);
    // Slack's `event_context` is an opaque token; it is "4-" and base64url JSON naming
    // the event type, team, app and channel.
    let context = json!({
        "et": event.get("type").and_then(Value::as_str).unwrap_or("message"),
        "tid": TEAM_ID,
        "aid": APP_ID,
        "cid": event.get("channel").and_then(Value::as_str).unwrap_or_default(),
    });
    json!({
        "token": "XXYYZZ",
        "team_id": TEAM_ID,
        "api_app_id": APP_ID,
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": event_time,
        "authorizations": [{
            "enterprise_id": null,
            "team_id": TEAM_ID,
            "user_id": BOT_USER_ID,
            "is_bot": true,
            "is_enterprise_install": false
        }],
        "is_ext_shared_channel": false,
        "event_context": format!("4-{}", base64url(context.to_string().as_bytes()))
    })
}

/// A `message` event for `message` (a message object as Slack returns it, e.g. from
/// [`bot_message`]) posted in `channel`: every field of the message, with `type:
/// "message"`, `channel`, `channel_type: "channel"` and `event_ts` (the message's ts).
/// Follows <https://docs.slack.dev/reference/events/message/>.
pub fn message_event(channel: &str, message: &Value) -> Value {
    let mut event = message.as_object().cloned().unwrap_or_default();
    let ts = event.get("ts").cloned().unwrap_or(Value::Null);
    event.insert("type".into(), json!("message"));
    event.insert("channel".into(), json!(channel));
    event.insert("channel_type".into(), json!("channel"));
    event.insert("event_ts".into(), ts);
    Value::Object(event)
}

/// A `message_changed` event: the message `previous_message` of `channel` became
/// `new_message` at `event_ts` (as after `chat.update`). `message` carries `edited:
/// {user, ts: event_ts}` unless `new_message` has its own `edited`; the event's `ts` is
/// `event_ts`. Follows <https://docs.slack.dev/reference/events/message/message_changed/>
/// (plus `channel_type`, which live events carry).
pub fn message_changed_event(
    channel: &str,
    new_message: &Value,
    previous_message: &Value,
    event_ts: &str,
) -> Value {
    let mut message = new_message.clone();
    if message.get("edited").is_none() {
        let editor = ["user", "bot_id"]
            .iter()
            .find_map(|key| message.get(*key).and_then(Value::as_str))
            .unwrap_or(BOT_USER_ID)
            .to_string();
        message["edited"] = json!({ "user": editor, "ts": event_ts });
    }
    json!({
        "type": "message",
        "subtype": "message_changed",
        "hidden": true,
        "channel": channel,
        "channel_type": "channel",
        "ts": event_ts,
        "event_ts": event_ts,
        "message": message,
        "previous_message": previous_message
    })
}

/// A `message_deleted` event: the message `deleted_ts` of `channel`, last seen as
/// `previous_message`, was deleted at `event_ts` (as by `chat.delete`). Follows
/// <https://docs.slack.dev/reference/events/message/message_deleted/> (plus
/// `previous_message` and `channel_type`, which live events carry).
pub fn message_deleted_event(
    channel: &str,
    deleted_ts: &str,
    previous_message: &Value,
    event_ts: &str,
) -> Value {
    json!({
        "type": "message",
        "subtype": "message_deleted",
        "hidden": true,
        "channel": channel,
        "channel_type": "channel",
        "ts": event_ts,
        "event_ts": event_ts,
        "deleted_ts": deleted_ts,
        "previous_message": previous_message
    })
}

/// What a thread parent with replies becomes when it is deleted: Slack keeps it in the
/// thread as a `tombstone` by `USLACKBOT` (`text: "This message was deleted."`, `hidden:
/// true`) with the parent's `ts`, `thread_ts` and thread fields, and returns it from
/// `conversations.history`/`conversations.replies` in its place. `parent` is the parent
/// as history returns it (e.g. from [`FakeSlack::raw_messages`]).
///
/// Slack documents no page for this subtype; the shape is that of tombstones captured
/// from live workspaces in public Slack-adapter test fixtures (see
/// [`tombstone_event`]).
pub fn tombstone_message(parent: &Value) -> Value {
    let ts = parent.get("ts").cloned().unwrap_or(Value::Null);
    let mut message = json!({
        "type": "message",
        "subtype": "tombstone",
        "text": "This message was deleted.",
        "user": "USLACKBOT",
        "hidden": true,
        "ts": ts.clone(),
        "thread_ts": parent.get("thread_ts").cloned().unwrap_or(ts),
    });
    for key in [
        "reply_count",
        "reply_users_count",
        "latest_reply",
        "reply_users",
        "is_locked",
    ] {
        if let Some(value) = parent.get(key) {
            message[key] = value.clone();
        }
    }
    message
}

/// What Slack sends when a thread parent with replies is deleted: not a
/// `message_deleted` but a `message_changed` (`hidden`, `ts` = `event_ts`) whose
/// `message` is the [`tombstone_message`] of `parent` and whose `previous_message` is
/// `parent`.
///
/// Slack's reference has no example of it (the subtype list at
/// <https://docs.slack.dev/reference/events/message/> only says hidden subtypes exist);
/// this follows live `message_changed` tombstone events as captured in public
/// Slack-adapter test fixtures (e.g. "ignores message_changed tombstone subtypes"):
/// `message` = `{type, subtype: "tombstone", text: "This message was deleted.", user:
/// "USLACKBOT", hidden: true, ts, thread_ts, reply_count, reply_users_count,
/// latest_reply, reply_users, is_locked}`.
pub fn tombstone_event(channel: &str, parent: &Value, event_ts: &str) -> Value {
    json!({
        "type": "message",
        "subtype": "message_changed",
        "hidden": true,
        "channel": channel,
        "channel_type": "channel",
        "ts": event_ts,
        "event_ts": event_ts,
        "message": tombstone_message(parent),
        "previous_message": parent
    })
}

/// The user id of the bot user behind `bot_id`: [`BOT_USER_ID`] for [`BOT_ID`], else
/// `U0{id}BOT` (`"U0AIBOT"` for `"BAI"`).
pub fn bot_user_id(bot_id: &str) -> String {
    if bot_id == BOT_ID {
        return BOT_USER_ID.to_string();
    }
    format!("U0{}BOT", bot_id.strip_prefix('B').unwrap_or(bot_id))
}

/// The `bot_profile` Slack attaches to an app's messages: `id`, `app_id`, `name`,
/// `icons`, `deleted`, `updated`, `team_id`.
pub fn bot_profile(bot_id: &str, app_id: &str) -> Value {
    let name = if bot_id == BOT_ID {
        BOT_NAME.to_string()
    } else {
        format!("assistant-{}", bot_id.to_ascii_lowercase())
    };
    json!({
        "id": bot_id,
        "app_id": app_id,
        "name": name,
        "icons": {
            "image_36": "https://a.slack-edge.com/80588/img/plugins/app/bot_36.png",
            "image_48": "https://a.slack-edge.com/80588/img/plugins/app/bot_48.png",
            "image_72": "https://a.slack-edge.com/80588/img/plugins/app/service_72.png"
        },
        "deleted": false,
        "updated": 1_700_000_000,
        "team_id": TEAM_ID
    })
}

/// A message object as an app posts it with `chat.postMessage` and
/// `conversations.history` returns it: `type: "message"`, no `subtype`, `user` (the
/// app's bot user, see [`bot_user_id`]), `bot_id`, `app_id`, `bot_profile`, `team`,
/// `text`, `ts`, and `blocks`/`attachments` when given. Follows the `message` of
/// <https://docs.slack.dev/reference/methods/chat.postMessage/> and live responses
/// (java-slack-sdk `json-logs/samples/api/chat.update.json`).
pub fn bot_message(
    ts: &str,
    bot_id: &str,
    app_id: &str,
    text: &str,
    blocks: Option<Value>,
    attachments: Option<Value>,
) -> Value {
    let mut message = json!({
        "type": "message",
        "user": bot_user_id(bot_id),
        "bot_id": bot_id,
        "app_id": app_id,
        "bot_profile": bot_profile(bot_id, app_id),
        "team": TEAM_ID,
        "text": text,
        "ts": ts,
    });
    if let Some(blocks) = blocks {
        message["blocks"] = blocks;
    }
    if let Some(attachments) = attachments {
        message["attachments"] = attachments;
    }
    message
}

/// A message's permalink as `chat.getPermalink` gives it:
/// `https://fakeslack.slack.com/archives/{channel}/p{ts without the dot}`, plus
/// `?thread_ts={thread_ts}&cid={channel}` for a reply.
pub fn permalink(channel: &str, ts: &str, thread_ts: Option<&str>) -> String {
    let mut link = format!(
        "https://{WORKSPACE_DOMAIN}.slack.com/archives/{channel}/p{}",
        ts.replace('.', "")
    );
    if let Some(thread_ts) = thread_ts.filter(|t| *t != ts) {
        link.push_str(&format!("?thread_ts={thread_ts}&cid={channel}"));
    }
    link
}

/// Base64url without padding.
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// An `app_mention` event by `user` in `channel` at `ts`, in the thread `thread_ts` if
/// given.
pub fn app_mention_event(
    channel: &str,
    user: &str,
    text: &str,
    ts: &str,
    thread_ts: Option<&str>,
) -> Value {
    let mut event = json!({
        "type": "app_mention",
        "user": user,
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
        "team": TEAM_ID
    });
    if let Some(thread_ts) = thread_ts {
        event["thread_ts"] = json!(thread_ts);
    }
    event
}

/// A `slash_commands` Socket Mode envelope: `command` (e.g. `"/sources"`) with `text`,
/// run by `user` in `channel`, answering to `response_url`.
pub fn slash_command_envelope(
    envelope_id: &str,
    command: &str,
    text: &str,
    channel: &str,
    user: &str,
    response_url: &str,
) -> Value {
    json!({
        "envelope_id": envelope_id,
        "type": "slash_commands",
        "accepts_response_payload": true,
        "payload": {
            "token": "XXYYZZ",
            "team_id": TEAM_ID,
            "team_domain": "fakeslack",
            "channel_id": channel,
            "channel_name": "general",
            "user_id": user,
            "user_name": "someone",
            "command": command,
            "text": text,
            "api_app_id": APP_ID,
            "is_enterprise_install": "false",
            "response_url": response_url,
            "trigger_id": trigger_id()
        }
    })
}

/// A new `trigger_id` in Slack's shape (`13345224609.738474920.8088930838d88f008e0`):
/// Slack gives every interaction and command its own, and the bot does each once.
pub fn trigger_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!(
        "{}.{}.{:016x}",
        13_345_224_609 + n,
        unix_now(),
        n.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    )
}

/// An `interactive` Socket Mode envelope around an interaction `payload` (e.g.
/// [`message_shortcut_payload`]).
pub fn interactive_envelope(envelope_id: &str, payload: Value) -> Value {
    json!({
        "envelope_id": envelope_id,
        "type": "interactive",
        "accepts_response_payload": false,
        "payload": payload
    })
}

/// The payload of a message shortcut (`message_action`) with `callback_id`, run by `user`
/// on `message` in `channel`, answering to `response_url`.
pub fn message_shortcut_payload(
    callback_id: &str,
    channel: &str,
    user: &str,
    message: &Message,
    response_url: &str,
) -> Value {
    message_shortcut_payload_raw(
        callback_id,
        channel,
        user,
        &message_from(message),
        response_url,
    )
}

/// [`message_shortcut_payload`] on `message` given as the JSON object Slack sends (e.g. a
/// [`bot_message`] with blocks and attachments), carried whole. Follows
/// <https://docs.slack.dev/reference/interaction-payloads/shortcuts-interaction-payload/>.
pub fn message_shortcut_payload_raw(
    callback_id: &str,
    channel: &str,
    user: &str,
    message: &Value,
    response_url: &str,
) -> Value {
    json!({
        "type": "message_action",
        "token": "XXYYZZ",
        "action_ts": "1700000000.000001",
        "team": { "id": TEAM_ID, "domain": "fakeslack" },
        "user": { "id": user, "username": "someone", "team_id": TEAM_ID, "name": "someone" },
        "channel": { "id": channel, "name": "general" },
        "is_enterprise_install": false,
        "callback_id": callback_id,
        "trigger_id": trigger_id(),
        "response_url": response_url,
        "message_ts": message.get("ts").cloned().unwrap_or(Value::Null),
        "message": message,
    })
}

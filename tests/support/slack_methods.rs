//! The Web API methods the fake Slack answers, each as Slack's reference describes it
//! (`chat.postMessage`, `chat.update`, `conversations.history`, `views.open`,
//! `oauth.v2.access`…), over its in-memory store, with the block and view checks Slack
//! makes before it accepts a message.

use super::*;

const KNOWN_METHODS: &[&str] = &[
    "auth.test",
    "chat.postMessage",
    "chat.postEphemeral",
    "chat.update",
    "chat.delete",
    "chat.getPermalink",
    "conversations.history",
    "conversations.replies",
    "conversations.info",
    "apps.connections.open",
    "oauth.v2.access",
    "files.info",
    "views.open",
    "views.publish",
    "users.info",
];

/// The JSON answer to a Web API call that did not fail on purpose.
pub(super) fn dispatch(inner: &mut Inner, base: &str, call: &Call) -> Value {
    let method = call.method.as_str();
    if !KNOWN_METHODS.contains(&method) {
        return json!({ "ok": false, "error": "unknown_method", "req_method": method });
    }
    if method == "oauth.v2.access" {
        return oauth_access(inner, &call.params);
    }
    let Some(token) = call.token.as_deref().filter(|t| !t.is_empty()) else {
        return slack_error("not_authed");
    };
    // App-level tokens only open Socket Mode connections; bot tokens cannot.
    if (method == "apps.connections.open") != token.starts_with("xapp-") {
        return slack_error("not_allowed_token_type");
    }
    let params = &call.params;
    if let Some(channel) = p_str(params, "channel") {
        if inner.access(channel) == Access::Hidden {
            return slack_error("channel_not_found");
        }
    }
    match method {
        "auth.test" => json!({
            "ok": true,
            "url": format!("https://{WORKSPACE_DOMAIN}.slack.com/"),
            "team": TEAM_NAME,
            "user": BOT_NAME,
            "team_id": TEAM_ID,
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "is_enterprise_install": false
        }),
        "chat.postMessage" => post_message(inner, params),
        "chat.postEphemeral" => post_ephemeral(inner, params),
        "chat.update" => update_message(inner, params),
        "chat.delete" => delete_message(inner, params),
        "chat.getPermalink" => get_permalink(inner, params),
        "conversations.history" => history(inner, params),
        "files.info" => {
            let id = params
                .get("file")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match inner.files.get(id) {
                Some(file) => {
                    let mut reply = json!({ "ok": true, "file": file, "comments": [] });
                    if let Some(content) = inner.file_contents.get(id) {
                        reply["content"] = json!(content);
                        reply["is_truncated"] = json!(false);
                    }
                    reply
                }
                None => json!({ "ok": false, "error": "file_not_found" }),
            }
        }
        "conversations.info" => conversation_info(inner, params),
        "conversations.replies" => replies(inner, params),
        "views.open" => views_open(params),
        "views.publish" => people::views_publish(inner, params),
        "users.info" => people::users_info(inner, params),
        "apps.connections.open" => {
            inner.socket_urls += 1;
            let ws_base = base.replacen("http://", "ws://", 1);
            json!({ "ok": true, "url": format!("{ws_base}/socket?n={}", inner.socket_urls) })
        }
        _ => json!({ "ok": false, "error": "unknown_method", "req_method": method }),
    }
}

/// The fake app's client id and secret, which `oauth.v2.access` requires.
pub const OAUTH_CLIENT_ID: &str = "1111111111.2222222222";
/// See [`OAUTH_CLIENT_ID`].
pub const OAUTH_CLIENT_SECRET: &str = "fake-client-secret-3333";

/// What an install code (from [`FakeSlack::grant_oauth_code`]) gives.
#[derive(Clone, Debug)]
pub struct OAuthGrant {
    /// The workspace; `None` for an org-wide install.
    pub team_id: Option<String>,
    /// Its name.
    pub team_name: String,
    /// The Enterprise Grid organization, if any.
    pub enterprise_id: Option<String>,
    /// Installed org-wide.
    pub is_enterprise_install: bool,
    /// Token rotation on: tokens expire (`expires_in` 43,200 s) and come with a
    /// single-use refresh token.
    pub rotating: bool,
    /// The `redirect_uri` the exchange must name (the authorize step's).
    pub redirect_uri: Option<String>,
}

impl OAuthGrant {
    /// A plain workspace install of `team_id`.
    pub fn workspace(team_id: &str, redirect_uri: &str) -> OAuthGrant {
        OAuthGrant {
            team_id: Some(team_id.to_string()),
            team_name: format!("Team {team_id}"),
            enterprise_id: None,
            is_enterprise_install: false,
            rotating: false,
            redirect_uri: Some(redirect_uri.to_string()),
        }
    }
}

impl FakeSlack {
    /// Makes `code` exchangeable once with `oauth.v2.access` for `grant`.
    pub fn grant_oauth_code(&self, code: &str, grant: OAuthGrant) {
        self.shared
            .lock()
            .oauth_codes
            .insert(code.to_string(), grant);
    }
}

/// `oauth.v2.access`: the app's credentials (Basic auth or form), then an install
/// `code` (single use, with its `redirect_uri`) or `grant_type=refresh_token` (single
/// use); answers as <https://docs.slack.dev/reference/methods/oauth.v2.access> shows.
fn oauth_access(inner: &mut Inner, params: &Value) -> Value {
    if p_str(params, "client_id") != Some(OAUTH_CLIENT_ID) {
        return slack_error("invalid_client_id");
    }
    if p_str(params, "client_secret") != Some(OAUTH_CLIENT_SECRET) {
        return slack_error("bad_client_secret");
    }
    let grant = if p_str(params, "grant_type") == Some("refresh_token") {
        let Some(grant) =
            p_str(params, "refresh_token").and_then(|t| inner.refresh_tokens.remove(t))
        else {
            return slack_error("invalid_refresh_token");
        };
        grant
    } else {
        let Some(grant) = p_str(params, "code").and_then(|c| inner.oauth_codes.remove(c)) else {
            return slack_error("invalid_code");
        };
        if grant.redirect_uri.is_some()
            && p_str(params, "redirect_uri") != grant.redirect_uri.as_deref()
        {
            return slack_error("bad_redirect_uri");
        }
        grant
    };
    inner.tokens_issued += 1;
    let n = inner.tokens_issued;
    let team = grant.team_id.clone().unwrap_or_default();
    let mut answer = json!({
        "ok": true,
        "access_token": if grant.rotating { format!("xoxe.xoxb-1-{team}-{n}") } else { format!("xoxb-{team}-{n}") },
        "token_type": "bot",
        "scope": "app_mentions:read,channels:history,chat:write,commands,groups:history,im:history,mpim:history",
        "bot_user_id": format!("UBOT{team}"),
        "app_id": APP_ID,
        "team": grant.team_id.as_ref().map(|id| json!({"name": grant.team_name, "id": id})),
        "enterprise": grant.enterprise_id.as_ref().map(|id| json!({"name": "Fake Org", "id": id})),
        "is_enterprise_install": grant.is_enterprise_install,
        "authed_user": {"id": "UINSTALLER"},
    });
    if grant.rotating {
        let refresh = format!("xoxe-1-refresh-{team}-{n}");
        answer["expires_in"] = json!(43_200);
        answer["refresh_token"] = json!(refresh);
        inner.refresh_tokens.insert(refresh, grant);
    }
    answer
}

/// Standard base64 (with or without padding), for Basic auth.
pub(super) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let bytes: Vec<u8> = text.bytes().filter(|c| *c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= value(*c)? << (18 - 6 * i);
        }
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

/// The content checks `chat.postMessage`, `chat.update` and `chat.postEphemeral` share
/// (block types refused with [`FakeSlack::refuse_block_type`] included).
fn check_content(inner: &Inner, params: &Value) -> Option<Value> {
    if p_str(params, "text").is_none_or(str::is_empty)
        && params.get("blocks").is_none()
        && params.get("attachments").is_none()
    {
        return Some(slack_error("no_text"));
    }
    if let Some(error) = people::refused_block(inner, params) {
        return Some(error);
    }
    if let Some(blocks) = params.get("blocks") {
        if let Some(detail) = check_blocks(blocks) {
            return Some(invalid_blocks(&detail));
        }
    }
    None
}

/// `chat.postMessage`: `{ok, channel, ts, message}`, the message as Slack stores it
/// (`type`, no `subtype` unless broadcast, `text`, `user`, `bot_id`, `app_id`, `ts`,
/// `team`, `bot_profile`, `thread_ts` in a thread, and the `blocks`, `attachments` and
/// `metadata` sent), per <https://docs.slack.dev/reference/methods/chat.postMessage/>.
fn post_message(inner: &mut Inner, params: &Value) -> Value {
    let Some(channel) = p_str(params, "channel").filter(|c| !c.is_empty()) else {
        return slack_error("channel_not_found");
    };
    if inner.access(channel) == Access::NotMember {
        return slack_error("not_in_channel");
    }
    if let Some(error) = check_content(inner, params) {
        return error;
    }
    // A reply to a reply lands in the parent's thread.
    let thread_ts = p_str(params, "thread_ts")
        .filter(|t| !t.is_empty())
        .map(|t| {
            inner
                .find(channel, t)
                .and_then(|s| s.thread_ts.clone())
                .unwrap_or_else(|| t.to_string())
        });
    let ts = inner.next_ts();
    let mut message = json!({
        "type": "message",
        "text": p_str(params, "text").unwrap_or_default(),
        "user": BOT_USER_ID,
        "bot_id": BOT_ID,
        "app_id": APP_ID,
        "ts": ts,
        "team": TEAM_ID,
        "bot_profile": bot_profile(BOT_ID, APP_ID),
    });
    if let Some(thread_ts) = &thread_ts {
        message["thread_ts"] = json!(thread_ts);
        if p_bool(params, "reply_broadcast") {
            message["subtype"] = json!("thread_broadcast");
        }
    }
    set_content(&mut message, params);
    let stored = Stored::new(message).unwrap_or_else(|e| unreachable!("{e}"));
    let message = inner.message_json(channel, &stored);
    inner.store(channel, stored);
    json!({ "ok": true, "channel": channel, "ts": ts, "message": message })
}

/// Sets the `blocks`, `attachments` and `metadata` sent in `params` on `message`; an
/// empty `blocks` or `attachments` array removes the old ones (as `chat.update` does),
/// and each attachment gets the `id` Slack numbers them with.
fn set_content(message: &mut Value, params: &Value) {
    for key in ["blocks", "attachments", "metadata"] {
        let Some(value) = params.get(key) else {
            continue;
        };
        if value.as_array().is_some_and(Vec::is_empty) {
            if let Some(object) = message.as_object_mut() {
                object.remove(key);
            }
            continue;
        }
        let mut value = value.clone();
        if key == "attachments" {
            if let Some(list) = value.as_array_mut() {
                for (i, attachment) in list.iter_mut().enumerate() {
                    if let Some(object) = attachment.as_object_mut() {
                        object.entry("id").or_insert(json!(i + 1));
                    }
                }
            }
        }
        message[key] = value;
    }
}

fn post_ephemeral(inner: &mut Inner, params: &Value) -> Value {
    let Some(channel) = p_str(params, "channel").filter(|c| !c.is_empty()) else {
        return slack_error("channel_not_found");
    };
    if p_str(params, "user").is_none_or(str::is_empty) {
        return slack_error("user_not_in_channel");
    }
    if inner.access(channel) == Access::NotMember {
        return slack_error("not_in_channel");
    }
    if let Some(error) = check_content(inner, params) {
        return error;
    }
    json!({ "ok": true, "message_ts": inner.next_ts() })
}

/// `chat.update`: `{ok, channel, ts, text, message}`, the message without its `ts` and
/// with `edited`, as Slack answers (java-slack-sdk
/// `json-logs/samples/api/chat.update.json`). Blocks and attachments not sent are kept,
/// an empty array removes them (<https://docs.slack.dev/reference/methods/chat.update/>).
/// `cant_update_message` for a message that is not the bot's.
fn update_message(inner: &mut Inner, params: &Value) -> Value {
    let (Some(channel), Some(ts)) = (p_str(params, "channel"), p_str(params, "ts")) else {
        return slack_error("message_not_found");
    };
    let Some(existing) = inner.find(channel, ts) else {
        return slack_error("message_not_found");
    };
    if !existing.is_bots() {
        return slack_error("cant_update_message");
    }
    if let Some(error) = check_content(inner, params) {
        return error;
    }
    let text = p_str(params, "text").unwrap_or_default().to_string();
    let mut message = Value::Object(existing.json.clone());
    message["text"] = json!(text);
    set_content(&mut message, params);
    message["edited"] = json!({ "user": BOT_USER_ID, "ts": inner.edit_ts() });
    let updated = Stored::new(message).unwrap_or_else(|e| unreachable!("{e}"));
    let mut message = inner.message_json(channel, &updated);
    inner.store(channel, updated);
    if let Some(object) = message.as_object_mut() {
        object.remove("ts");
    }
    json!({ "ok": true, "channel": channel, "ts": ts, "text": text, "message": message })
}

/// `chat.delete`: `{ok, channel, ts}` (<https://docs.slack.dev/reference/methods/chat.delete/>).
/// The message leaves history and its thread; a thread parent with replies is replaced
/// by a [`tombstone_message`], as Slack does, and a tombstone goes with its last
/// reply. `message_not_found` for an unknown ts, `cant_delete_message` for a message
/// that is not the bot's.
fn delete_message(inner: &mut Inner, params: &Value) -> Value {
    let Some(channel) = p_str(params, "channel").filter(|c| !c.is_empty()) else {
        return slack_error("channel_not_found");
    };
    let Some(ts) = p_str(params, "ts").filter(|t| !t.is_empty()) else {
        return slack_error("message_not_found");
    };
    let Some(existing) = inner.find(channel, ts).cloned() else {
        return slack_error("message_not_found");
    };
    if !existing.is_bots() {
        return slack_error("cant_delete_message");
    }
    if !existing.is_reply() && !inner.replies(channel, ts).is_empty() {
        let tombstone = tombstone_message(&inner.message_json(channel, &existing));
        let stored = Stored::new(tombstone).unwrap_or_else(|e| unreachable!("{e}"));
        inner.store(channel, stored);
    } else {
        inner.remove(channel, ts);
        if let Some(parent) = existing
            .thread_ts
            .as_deref()
            .filter(|_| existing.is_reply())
        {
            let tombstone = inner.find(channel, parent).is_some_and(|p| {
                p.json.get("subtype").and_then(Value::as_str) == Some("tombstone")
            });
            if tombstone && inner.replies(channel, parent).is_empty() {
                inner.remove(channel, parent);
            }
        }
    }
    json!({ "ok": true, "channel": channel, "ts": ts })
}

/// `chat.getPermalink` (`channel`, `message_ts`): `{ok, channel, permalink}`, see
/// [`permalink`] (<https://docs.slack.dev/reference/methods/chat.getPermalink/>);
/// `message_not_found` for an unknown ts.
fn get_permalink(inner: &mut Inner, params: &Value) -> Value {
    let Some(channel) = p_str(params, "channel").filter(|c| !c.is_empty()) else {
        return slack_error("channel_not_found");
    };
    let Some(found) = p_str(params, "message_ts").and_then(|ts| inner.find(channel, ts)) else {
        return slack_error("message_not_found");
    };
    let thread_ts = found.thread_ts.as_deref().filter(|_| found.is_reply());
    json!({
        "ok": true,
        "channel": channel,
        "permalink": permalink(channel, &found.ts, thread_ts)
    })
}

/// Whether a message at `ts` is within Slack's `oldest`/`latest`/`inclusive` window.
fn in_window(ts: &str, params: &Value) -> bool {
    let inclusive = p_bool(params, "inclusive");
    let Some(t) = ts_micros(ts) else {
        return true;
    };
    let oldest = p_str(params, "oldest").and_then(ts_micros);
    let latest = p_str(params, "latest").and_then(ts_micros);
    let after_oldest = oldest.is_none_or(|o| if inclusive { t >= o } else { t > o });
    let before_latest = latest.is_none_or(|l| if inclusive { t <= l } else { t < l });
    after_oldest && before_latest
}

/// One page of `items` per `cursor`/`limit`: the page, and the cursor of the next one.
fn paginate(
    items: Vec<Value>,
    params: &Value,
    default_limit: u64,
) -> Result<(Vec<Value>, Option<String>), Value> {
    let start = match p_str(params, "cursor").filter(|c| !c.is_empty()) {
        None => 0,
        Some(cursor) => match cursor
            .strip_prefix("next_offset:")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(offset) => offset,
            None => return Err(slack_error("invalid_cursor")),
        },
    };
    let limit = p_u64(params, "limit")
        .filter(|l| *l > 0)
        .unwrap_or(default_limit)
        .min(999) as usize;
    let end = start.saturating_add(limit).min(items.len());
    let page = items
        .get(start..end)
        .map(<[Value]>::to_vec)
        .unwrap_or_default();
    let next = (end < items.len()).then(|| format!("next_offset:{end}"));
    Ok((page, next))
}

fn listing(page: Vec<Value>, next: Option<String>) -> Value {
    let mut body = json!({ "ok": true, "messages": page, "has_more": next.is_some() });
    if let Some(next) = next {
        body["response_metadata"] = json!({ "next_cursor": next });
    }
    body
}

fn history(inner: &mut Inner, params: &Value) -> Value {
    let Some(channel) = p_str(params, "channel").filter(|c| !c.is_empty()) else {
        return slack_error("channel_not_found");
    };
    let list = inner.channels.get(channel).cloned().unwrap_or_default();
    let items: Vec<Value> = list
        .iter()
        .rev()
        .filter(|s| !s.is_reply() || s.is_broadcast())
        .filter(|s| in_window(&s.ts, params))
        .map(|s| inner.message_json(channel, s))
        .collect();
    match paginate(items, params, 100) {
        Ok((page, next)) => {
            let mut body = listing(page, next);
            body["pin_count"] = json!(0);
            body["channel_actions_ts"] = Value::Null;
            body["channel_actions_count"] = json!(0);
            body
        }
        Err(error) => error,
    }
}

/// `conversations.replies`: the parent then its replies, oldest first. For the ts of a
/// reply Slack returns only that reply; for an unknown ts, `thread_not_found`.
fn replies(inner: &mut Inner, params: &Value) -> Value {
    let Some(channel) = p_str(params, "channel").filter(|c| !c.is_empty()) else {
        return slack_error("channel_not_found");
    };
    let Some(ts) = p_str(params, "ts").filter(|t| !t.is_empty()) else {
        return slack_error("invalid_arguments");
    };
    let Some(found) = inner.find(channel, ts).cloned() else {
        return slack_error("thread_not_found");
    };
    let mut items = vec![inner.message_json(channel, &found)];
    if !found.is_reply() {
        items.extend(
            inner
                .replies(channel, ts)
                .into_iter()
                .filter(|s| in_window(&s.ts, params))
                .map(|s| inner.message_json(channel, s)),
        );
    }
    match paginate(items, params, 1000) {
        Ok((page, next)) => listing(page, next),
        Err(error) => error,
    }
}

/// `views.open`: a `trigger_id` in Slack's shape issued at most 3 s ago (the fake's
/// [`trigger_id`] carries the second it was made; an older one is `expired_trigger_id`),
/// and a modal view Slack would take — plain-text title and close button of 1–24
/// characters, 1–100 blocks each as [`check_blocks`] wants them — else
/// `invalid_arguments` with the reason (`invalid_blocks` past 100 blocks). Answers with
/// the view, given an id.
fn views_open(params: &Value) -> Value {
    let Some(trigger) = p_str(params, "trigger_id").filter(|t| !t.is_empty()) else {
        return slack_error("invalid_arguments");
    };
    let Some(issued) = trigger
        .split('.')
        .nth(1)
        .and_then(|t| t.parse::<u64>().ok())
    else {
        return slack_error("invalid_trigger_id");
    };
    if unix_now().saturating_sub(issued) > 3 {
        return slack_error("expired_trigger_id");
    }
    let view = match params.get("view") {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
        Some(view) => view.clone(),
        None => Value::Null,
    };
    if let Some(error) = people::too_many_view_blocks(&view) {
        return error;
    }
    if let Some(detail) = check_view(&view) {
        return json!({
            "ok": false,
            "error": "invalid_arguments",
            "response_metadata": { "messages": [format!("[ERROR] {detail}")] }
        });
    }
    let mut opened = view;
    opened["id"] = json!("V0EVIDENCE");
    json!({ "ok": true, "view": opened })
}

/// Why Slack would refuse `view` as a modal, if it would.
fn check_view(view: &Value) -> Option<String> {
    if view.get("type").and_then(Value::as_str) != Some("modal") {
        return Some("must be a modal [json-pointer:/view/type]".to_string());
    }
    for field in ["title", "close", "submit"] {
        let Some(text) = view.get(field) else {
            if field == "title" {
                return Some("missing required field: title [json-pointer:/view]".to_string());
            }
            continue;
        };
        if text.get("type").and_then(Value::as_str) != Some("plain_text") {
            return Some(format!(
                "must be plain_text [json-pointer:/view/{field}/type]"
            ));
        }
        let chars = text
            .get("text")
            .and_then(Value::as_str)
            .map_or(0, |t| t.chars().count());
        if chars == 0 || chars > 24 {
            return Some(format!(
                "must be 1-24 characters [json-pointer:/view/{field}/text]"
            ));
        }
    }
    let blocks = view.get("blocks").unwrap_or(&Value::Null);
    if blocks.as_array().is_some_and(Vec::is_empty) {
        return Some("must provide at least 1 item [json-pointer:/view/blocks]".to_string());
    }
    check_blocks_up_to(blocks, 100)
}

/// What Slack rejects as `invalid_blocks`, with its JSON-pointer detail: more than 50
/// blocks, a block without a known `type`, section text empty or over 3,000 characters,
/// a section with neither text nor fields, over 10 fields or a field over 2,000
/// characters, a header not plain text or over 150 characters, a context block
/// with no elements or over 10, and a `context_actions` block outside its limits
/// (`check_context_actions`). (`msg_blocks_too_long` is not modelled: use
/// [`FakeSlack::fail_next`].)
pub(super) fn check_blocks(blocks: &Value) -> Option<String> {
    check_blocks_up_to(blocks, 50)
}

/// [`check_blocks`] with at most `max` blocks (100 in a modal), and actions blocks of
/// 1–25 elements, each button with plain text of 1–75 characters, an `action_id` of at
/// most 255 and a `value` of at most 2,000.
pub(super) fn check_blocks_up_to(blocks: &Value, max: usize) -> Option<String> {
    let Some(list) = blocks.as_array() else {
        return Some("must be an array [json-pointer:/blocks]".to_string());
    };
    if list.len() > max {
        return Some(format!(
            "no more than {max} items allowed [json-pointer:/blocks]"
        ));
    }
    let chars = |v: &Value| {
        v.get("text")
            .and_then(Value::as_str)
            .map(|t| t.chars().count())
    };
    for (i, block) in list.iter().enumerate() {
        let at = format!("/blocks/{i}");
        match block.get("type").and_then(Value::as_str) {
            Some("section") => {
                let fields = block.get("fields").and_then(Value::as_array);
                match block.get("text") {
                    Some(text) => match chars(text) {
                        None | Some(0) => {
                            return Some(format!(
                                "must be more than 0 characters [json-pointer:{at}/text/text]"
                            ))
                        }
                        Some(n) if n > 3000 => {
                            return Some(format!(
                                "must be less than 3001 characters [json-pointer:{at}/text/text]"
                            ))
                        }
                        _ => {}
                    },
                    None if fields.is_none() => {
                        return Some(format!(
                            "must provide either text or fields [json-pointer:{at}]"
                        ))
                    }
                    None => {}
                }
                if let Some(fields) = fields {
                    if fields.len() > 10 {
                        return Some(format!(
                            "no more than 10 items allowed [json-pointer:{at}/fields]"
                        ));
                    }
                    for (j, field) in fields.iter().enumerate() {
                        if chars(field).unwrap_or(0) > 2000 {
                            return Some(format!(
                                "must be less than 2001 characters [json-pointer:{at}/fields/{j}/text]"
                            ));
                        }
                    }
                }
            }
            Some("header") => {
                let text = block.get("text").unwrap_or(&Value::Null);
                if text.get("type").and_then(Value::as_str) != Some("plain_text") {
                    return Some(format!("must be plain_text [json-pointer:{at}/text/type]"));
                }
                if chars(text).unwrap_or(0) > 150 {
                    return Some(format!(
                        "must be less than 151 characters [json-pointer:{at}/text/text]"
                    ));
                }
            }
            Some("context") => {
                let count = block
                    .get("elements")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                if count == 0 {
                    return Some(format!(
                        "must provide at least 1 item [json-pointer:{at}/elements]"
                    ));
                }
                if count > 10 {
                    return Some(format!(
                        "no more than 10 items allowed [json-pointer:{at}/elements]"
                    ));
                }
            }
            Some("actions") => {
                let elements = block
                    .get("elements")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice);
                if elements.is_empty() || elements.len() > 25 {
                    return Some(format!(
                        "must provide 1-25 items [json-pointer:{at}/elements]"
                    ));
                }
                for (j, element) in elements.iter().enumerate() {
                    if element.get("type").and_then(Value::as_str) != Some("button") {
                        continue;
                    }
                    let len = |key: &str| {
                        element
                            .pointer(key)
                            .and_then(Value::as_str)
                            .map(|t| t.chars().count())
                    };
                    if !len("/text/text").is_some_and(|n| (1..=75).contains(&n)) {
                        return Some(format!(
                            "must be 1-75 characters [json-pointer:{at}/elements/{j}/text/text]"
                        ));
                    }
                    if len("/action_id").is_some_and(|n| n > 255)
                        || len("/value").is_some_and(|n| n > 2000)
                    {
                        return Some(format!("too long [json-pointer:{at}/elements/{j}]"));
                    }
                }
            }
            Some("context_actions") => {
                if let Some(detail) = people::check_context_actions(block, &at) {
                    return Some(detail);
                }
            }
            Some("divider" | "image" | "rich_text" | "input" | "file" | "video" | "markdown") => {}
            Some(other) => {
                return Some(format!(
                    "unsupported type: {other} [json-pointer:{at}/type]"
                ))
            }
            None => return Some(format!("missing required field: type [json-pointer:{at}]")),
        }
    }
    None
}

/// `conversations.info`: the conversation object as Slack's reference shows it, public
/// unless it is a direct message (`D…`), a private group (`G…`) or a channel the test
/// made private ([`FakeSlack::set_private`]).
fn conversation_info(inner: &Inner, params: &Value) -> Value {
    let Some(id) = p_str(params, "channel") else {
        return slack_error("channel_not_found");
    };
    let im = id.starts_with('D');
    let private = im || id.starts_with('G') || inner.private_channels.contains(id);
    json!({
        "ok": true,
        "channel": {
            "id": id,
            "name": if im { Value::Null } else { json!(format!("channel-{}", id.to_lowercase())) },
            "is_channel": !im && !id.starts_with('G'),
            "is_group": id.starts_with('G'),
            "is_im": im,
            "is_mpim": false,
            "is_private": private,
            "created": 1_700_000_000,
            "is_archived": false,
            "is_general": false,
            "is_member": true,
        }
    })
}

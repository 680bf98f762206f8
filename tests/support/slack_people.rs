//! The fake Slack's people and Home tabs (a child module of `slack.rs`, which
//! dispatches to it): `users.info` for the users a test adds ([`FakeSlack::add_user`],
//! built with [`member_user`], [`admin_user`], [`owner_user`], [`primary_owner_user`]
//! and [`bot_user`]), `views.publish` for App Home tabs ([`FakeSlack::published_views`]),
//! the 100-block limit of views, the `context_actions` block's own limits, and a switch
//! that makes the message methods refuse a block type as an older workspace does
//! ([`FakeSlack::refuse_block_type`]).
//!
//! The shapes follow Slack's reference: `users.info`
//! (<https://docs.slack.dev/reference/methods/users.info>, whose example response is
//! kept as `tests/data/slack/users_info.json`; bot users' `profile.bot_id`,
//! `api_app_id` and `always_active` as in java-slack-sdk
//! `json-logs/samples/api/users.info.json`), `views.publish`
//! (<https://docs.slack.dev/reference/methods/views.publish>) and the context actions
//! block (<https://docs.slack.dev/reference/block-kit/blocks/context-actions-block>).

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Value};

use super::{
    check_blocks_up_to, invalid_blocks, p_bool, p_str, slack_error, unix_now, FakeSlack, Inner,
    APP_ID, BOT_ID, BOT_NAME, BOT_USER_ID, TEAM_ID,
};

/// Blocks a view (modal or Home tab) may hold.
const MAX_VIEW_BLOCKS: usize = 100;
/// The largest view `views.publish` takes, in bytes of JSON (`view_too_large` past it).
const MAX_VIEW_BYTES: usize = 250_000;
/// When the users the builders make were last updated (unix seconds).
const UPDATED: i64 = 1_700_000_000;

/// What the fake knows of people and Home tabs, and which block types it refuses.
pub(super) struct People {
    /// `users.info`'s user objects, by id.
    users: HashMap<String, Value>,
    /// Every Home tab published, in order: the user and the view as sent.
    published: Vec<(String, Value)>,
    /// Each user's Home tab: its view id and current `hash`.
    homes: HashMap<String, (String, String)>,
    /// Home tabs published so far (numbers ids and hashes).
    publishes: u64,
    /// Block types `chat.postMessage`, `chat.update` and `chat.postEphemeral` refuse.
    refused_types: BTreeSet<String>,
}

impl Default for People {
    /// Knows the bot's own user, as Slack does.
    fn default() -> People {
        let mut users = HashMap::new();
        users.insert(
            BOT_USER_ID.to_string(),
            bot_user(BOT_USER_ID, BOT_ID, BOT_NAME),
        );
        People {
            users,
            published: Vec::new(),
            homes: HashMap::new(),
            publishes: 0,
            refused_types: BTreeSet::new(),
        }
    }
}

impl FakeSlack {
    /// Makes `user` (a user object as `users.info` returns it, with a string `id`;
    /// see [`member_user`] and the other builders) known to `users.info`; a user with
    /// the same id is replaced. The fake knows the bot's own user ([`BOT_USER_ID`])
    /// from the start.
    ///
    /// # Panics
    /// If `user` has no string `id`.
    pub fn add_user(&self, user: Value) {
        let Some(id) = user.get("id").and_then(Value::as_str).map(str::to_string) else {
            panic!("fake Slack: a user needs a string `id`: {user}");
        };
        self.shared.lock().people.users.insert(id, user);
    }

    /// Every Home tab `views.publish` accepted, in order: the `user_id` and the view as
    /// sent (decoded when it came as a JSON string). The last one for a user is what
    /// that user sees.
    pub fn published_views(&self) -> Vec<(String, Value)> {
        self.shared.lock().people.published.clone()
    }

    /// From now on `chat.postMessage`, `chat.update` and `chat.postEphemeral` refuse a
    /// message with a top-level block of type `block_type` (e.g. `context_actions`,
    /// which some workspaces do not take yet) as Slack does: `invalid_blocks` with
    /// ``unsupported type `{block_type}` [json-pointer:/blocks/{i}/type]``. Several
    /// types may be refused; the calls are still recorded.
    pub fn refuse_block_type(&self, block_type: &str) {
        self.shared
            .lock()
            .people
            .refused_types
            .insert(block_type.to_string());
    }
}

/// `users.info` (`user`, optional `include_locale`): `{ok, user}` for a known user, the
/// user object as added except `profile.email`, which needs the `users:read.email`
/// scope sourcebot does not ask for; `user_not_found` otherwise.
pub(super) fn users_info(inner: &Inner, params: &Value) -> Value {
    let Some(mut user) = p_str(params, "user").and_then(|id| inner.people.users.get(id).cloned())
    else {
        return slack_error("user_not_found");
    };
    if let Some(profile) = user.get_mut("profile").and_then(Value::as_object_mut) {
        profile.remove("email");
    }
    if p_bool(params, "include_locale") {
        user["locale"] = json!("en-US");
    }
    json!({ "ok": true, "user": user })
}

/// `views.publish` (`user_id`, `view` as JSON or a JSON string, optional `hash`): the
/// Home tab `view` for `user_id`. Refused: no `user_id`, no view object or no `blocks`
/// (`invalid_arguments`), a view over 250 kB (`view_too_large`), a view whose `type`
/// is not `home` (`invalid_arguments`), more than 100 blocks (`invalid_blocks`),
/// blocks Slack would not take (`invalid_arguments` with the reason, as `views.open`),
/// and a `hash` that is not the user's current one (`hash_conflict`). Answers with the
/// view as Slack stores it: a view id that stays the user's, a new `hash`, and the
/// fields Slack fills in.
pub(super) fn views_publish(inner: &mut Inner, params: &Value) -> Value {
    let Some(user) = p_str(params, "user_id").filter(|u| !u.is_empty()) else {
        return invalid_arguments("invalid `user_id`");
    };
    let view = match params.get("view") {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
        Some(view) => view.clone(),
        None => Value::Null,
    };
    if !view.is_object() {
        return invalid_arguments("missing required field: view [json-pointer:/view]");
    }
    if view.to_string().len() > MAX_VIEW_BYTES {
        return slack_error("view_too_large");
    }
    if view.get("type").and_then(Value::as_str) != Some("home") {
        return invalid_arguments("must be home [json-pointer:/view/type]");
    }
    if let Some(error) = too_many_view_blocks(&view) {
        return error;
    }
    let Some(blocks) = view.get("blocks").cloned() else {
        return invalid_arguments("missing required field: blocks [json-pointer:/view]");
    };
    if let Some(detail) = check_blocks_up_to(&blocks, MAX_VIEW_BLOCKS) {
        return invalid_arguments(&detail.replace("[json-pointer:/", "[json-pointer:/view/"));
    }
    let people = &mut inner.people;
    let current = people.homes.get(user).cloned();
    if let Some(sent) = p_str(params, "hash").filter(|h| !h.is_empty()) {
        if current.as_ref().map(|(_, hash)| hash.as_str()) != Some(sent) {
            return slack_error("hash_conflict");
        }
    }
    people.publishes += 1;
    let n = people.publishes;
    let id = current.map_or_else(|| format!("V0HOME{n:04}"), |(id, _)| id);
    let hash = format!("{}.{:08x}", unix_now(), mix(n) as u32);
    people
        .homes
        .insert(user.to_string(), (id.clone(), hash.clone()));
    people.published.push((user.to_string(), view.clone()));
    let text = |key: &str| view.get(key).cloned().unwrap_or_else(|| json!(""));
    let mut stored = json!({
        "id": id,
        "team_id": TEAM_ID,
        "type": "home",
        "close": null,
        "submit": null,
        "blocks": with_block_ids(blocks),
        "private_metadata": text("private_metadata"),
        "callback_id": text("callback_id"),
        "state": { "values": {} },
        "hash": hash,
        "clear_on_close": false,
        "notify_on_close": false,
        "root_view_id": id,
        "previous_view_id": null,
        "app_id": APP_ID,
        "external_id": text("external_id"),
        "bot_id": BOT_ID
    });
    if let Some(title) = view.get("title") {
        stored["title"] = title.clone();
    }
    json!({ "ok": true, "view": stored })
}

/// `invalid_blocks` for a view with more than 100 blocks, if `view` has them.
pub(super) fn too_many_view_blocks(view: &Value) -> Option<Value> {
    let count = view.get("blocks").and_then(Value::as_array)?.len();
    (count > MAX_VIEW_BLOCKS).then(|| {
        invalid_blocks(&format!(
            "no more than {MAX_VIEW_BLOCKS} items allowed [json-pointer:/view/blocks]"
        ))
    })
}

/// `invalid_blocks` when the message's `blocks` (JSON, or a JSON string as a form may
/// carry them) hold a top-level block of a type [`FakeSlack::refuse_block_type`]
/// refused.
pub(super) fn refused_block(inner: &Inner, params: &Value) -> Option<Value> {
    let refused = &inner.people.refused_types;
    if refused.is_empty() {
        return None;
    }
    let blocks = match params.get("blocks")? {
        Value::String(text) => serde_json::from_str(text).ok()?,
        blocks => blocks.clone(),
    };
    blocks
        .as_array()?
        .iter()
        .enumerate()
        .find_map(|(i, block)| {
            let kind = block.get("type").and_then(Value::as_str)?;
            refused.contains(kind).then(|| {
                invalid_blocks(&format!(
                    "unsupported type `{kind}` [json-pointer:/blocks/{i}/type]"
                ))
            })
        })
}

/// Why Slack would refuse the `context_actions` block at `at` (`/blocks/3`), if it
/// would: 1–5 elements, each a `feedback_buttons` (both buttons, each with plain text
/// of 1–75 characters and a value of 1–2,000) or an `icon_button` (an `icon` and plain
/// text), action ids of at most 255 characters.
pub(super) fn check_context_actions(block: &Value, at: &str) -> Option<String> {
    let elements = block
        .get("elements")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    if elements.is_empty() || elements.len() > 5 {
        return Some(format!(
            "must provide 1-5 items [json-pointer:{at}/elements]"
        ));
    }
    let chars = |v: &Value, pointer: &str| {
        v.pointer(pointer)
            .and_then(Value::as_str)
            .map(|t| t.chars().count())
    };
    for (j, element) in elements.iter().enumerate() {
        let here = format!("{at}/elements/{j}");
        if chars(element, "/action_id").is_some_and(|n| n > 255) {
            return Some(format!(
                "must be less than 256 characters [json-pointer:{here}/action_id]"
            ));
        }
        // `base` is where `v` is: its text must be plain text.
        let plain_text = |v: &Value, base: &str| {
            (v.pointer("/text/type").and_then(Value::as_str) != Some("plain_text"))
                .then(|| format!("must be plain_text [json-pointer:{base}/text/type]"))
        };
        match element.get("type").and_then(Value::as_str) {
            Some("feedback_buttons") => {
                for side in ["positive_button", "negative_button"] {
                    let Some(button) = element.get(side).filter(|b| b.is_object()) else {
                        return Some(format!(
                            "missing required field: {side} [json-pointer:{here}]"
                        ));
                    };
                    if let Some(error) = plain_text(button, &format!("{here}/{side}")) {
                        return Some(error);
                    }
                    if !chars(button, "/text/text").is_some_and(|n| (1..=75).contains(&n)) {
                        return Some(format!(
                            "must be 1-75 characters [json-pointer:{here}/{side}/text/text]"
                        ));
                    }
                    if !chars(button, "/value").is_some_and(|n| (1..=2000).contains(&n)) {
                        return Some(format!(
                            "must be 1-2000 characters [json-pointer:{here}/{side}/value]"
                        ));
                    }
                }
            }
            Some("icon_button") => {
                if element.get("icon").and_then(Value::as_str).is_none() {
                    return Some(format!(
                        "missing required field: icon [json-pointer:{here}]"
                    ));
                }
                if let Some(error) = plain_text(element, &here) {
                    return Some(error);
                }
            }
            _ => {
                return Some(format!(
                    "must be feedback_buttons or icon_button [json-pointer:{here}/type]"
                ))
            }
        }
    }
    None
}

/// `{"ok":false,"error":"invalid_arguments"}` with `detail` in
/// `response_metadata.messages`, as Slack's view methods answer.
fn invalid_arguments(detail: &str) -> Value {
    json!({
        "ok": false,
        "error": "invalid_arguments",
        "response_metadata": { "messages": [format!("[ERROR] {detail}")] }
    })
}

/// The blocks as Slack stores them: each block without a `block_id` gets one.
fn with_block_ids(mut blocks: Value) -> Value {
    if let Some(list) = blocks.as_array_mut() {
        for (i, block) in list.iter_mut().enumerate() {
            if let Some(object) = block.as_object_mut() {
                object
                    .entry("block_id")
                    .or_insert_with(|| json!(format!("{:05x}", mix(i as u64) & 0xf_ffff)));
            }
        }
    }
    blocks
}

/// A fixed scramble of `n` (for ids and hashes that look like Slack's).
fn mix(n: u64) -> u64 {
    n.wrapping_add(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
}

/// FNV-1a of `text`: the same avatar and colour for the same user every time.
fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The user name (handle) Slack would give `name`: lower case, spaces as dots.
fn handle(name: &str) -> String {
    name.trim().to_lowercase().replace(char::is_whitespace, ".")
}

/// The fields every user object has, human or bot; `profile` gets the avatar images.
fn base_user(id: &str, name: &str, is_bot: bool, profile: Value) -> Value {
    let print = fingerprint(id);
    let avatar = format!("g{:011x}", print & 0x0fff_ffff_ffff);
    let mut profile = profile;
    profile["avatar_hash"] = json!(avatar);
    let image =
        |size: &str| format!("https://avatars.slack-edge.com/2023-11-14/{id}_{avatar}_{size}.png");
    profile["image_original"] = json!(image("original"));
    for size in ["24", "32", "48", "72", "192", "512"] {
        profile[format!("image_{size}")] = json!(image(size));
    }
    profile["team"] = json!(TEAM_ID);
    profile["status_text"] = json!("");
    profile["status_emoji"] = json!("");
    profile["real_name"] = json!(name);
    profile["real_name_normalized"] = json!(name);
    json!({
        "id": id,
        "team_id": TEAM_ID,
        "name": handle(name),
        "deleted": false,
        "color": format!("{:06x}", (print >> 40) & 0xff_ffff),
        "real_name": name,
        "tz": "America/Los_Angeles",
        "tz_label": "Pacific Standard Time",
        "tz_offset": -28_800,
        "profile": profile,
        "is_admin": false,
        "is_owner": false,
        "is_primary_owner": false,
        "is_restricted": false,
        "is_ultra_restricted": false,
        "is_bot": is_bot,
        "updated": UPDATED,
        "is_app_user": false
    })
}

/// A person, with the fields of Slack's documented example: `name` is the real name
/// (`"Ada Lovelace"`), the user name its lower-case handle (`ada.lovelace`, also the
/// display name), the email `{handle}@fakeslack.example`.
fn person(id: &str, name: &str, admin: bool, owner: bool, primary: bool) -> Value {
    let handle = handle(name);
    let profile = json!({
        "display_name": handle,
        "display_name_normalized": handle,
        "email": format!("{handle}@fakeslack.example"),
    });
    let mut user = base_user(id, name, false, profile);
    user["is_admin"] = json!(admin);
    user["is_owner"] = json!(owner);
    user["is_primary_owner"] = json!(primary);
    user["has_2fa"] = json!(false);
    user
}

/// A workspace member who is not an admin (see `person` for the names).
pub fn member_user(id: &str, name: &str) -> Value {
    person(id, name, false, false, false)
}

/// A workspace admin (`is_admin`), not an owner.
pub fn admin_user(id: &str, name: &str) -> Value {
    person(id, name, true, false, false)
}

/// A workspace owner: `is_owner` and `is_admin` (owners administer too), not the
/// primary owner.
pub fn owner_user(id: &str, name: &str) -> Value {
    person(id, name, true, true, false)
}

/// The primary owner: `is_primary_owner`, `is_owner` and `is_admin`.
pub fn primary_owner_user(id: &str, name: &str) -> Value {
    person(id, name, true, true, true)
}

/// An app's bot user `user_id` whose messages carry `bot_id`: `is_bot`, and in
/// `profile` the `bot_id`, the app's `api_app_id` ([`APP_ID`] for [`BOT_ID`], else
/// `A` and the bot id without its `B`: `AAI` for `BAI`) and `always_active`. As Slack
/// answers for bots, the display name is empty (the real name is `name`), and there is
/// no email and no `has_2fa`.
pub fn bot_user(user_id: &str, bot_id: &str, name: &str) -> Value {
    let app_id = if bot_id == BOT_ID {
        APP_ID.to_string()
    } else {
        format!("A{}", bot_id.strip_prefix('B').unwrap_or(bot_id))
    };
    let profile = json!({
        "display_name": "",
        "display_name_normalized": "",
        "bot_id": bot_id,
        "api_app_id": app_id,
        "always_active": false,
    });
    base_user(user_id, name, true, profile)
}

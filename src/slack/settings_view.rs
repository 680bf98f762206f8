//! `/sources settings` and its modal. [`settings_summary`] is the ephemeral answer: each
//! setting with its value and whether the workspace chose it or the server default
//! applies, with an **Edit** button for those who may change them. [`settings_modal`]
//! is the form (channels, claim support, sources per kind, who sees reports, whether
//! the evidence quotes internal documents; watched assistants only shown, since
//! `/sources watch` changes them), and
//! [`read_settings_submission`] reads its `view_submission` into new settings or into
//! the per-block errors Slack's `response_action: errors` shows under each field.
//! Every name is escaped; a channel id becomes a `<#C…>` mention only when it is an id
//! and nothing else. Pure: no network, no state.

use serde_json::{json, Value};

use crate::model::workspace::{ChannelScope, ReportAudience, WorkspaceSettings};
use crate::render::blocks::plain_text;
use crate::render::escape::{clean_text, escape_within};

/// The `action_id` of the **Edit** button (in `/sources settings` and the App Home).
pub const EDIT_SETTINGS_ACTION_ID: &str = "sourcebot_edit_settings";
/// The `callback_id` of the settings modal.
pub const SETTINGS_CALLBACK_ID: &str = "sourcebot_settings";
/// Block (and action) ids of the modal's fields, as errors name them.
pub const CHANNELS_SCOPE_BLOCK: &str = "channels_scope";
/// The channel list's block (and action) id.
pub const CHANNELS_LIST_BLOCK: &str = "channels_list";
/// The claim-support block (and action) id.
pub const SUPPORT_BLOCK: &str = "support";
/// The sources-per-kind block (and action) id.
pub const SOURCES_PER_KIND_BLOCK: &str = "sources_per_kind";
/// The audience block (and action) id.
pub const AUDIENCE_BLOCK: &str = "audience";
/// The internal-quotes block (and action) id.
pub const INTERNAL_QUOTES_BLOCK: &str = "internal_quotes";
/// The smallest and largest number of sources per kind a workspace may choose.
pub const SOURCES_PER_KIND_RANGE: (usize, usize) = (1, 50);

/// A watched assistant's name is shown in at most this many characters (escaped).
const NAME_MAX: usize = 80;
/// At most this many watched assistants are named; the rest are counted.
const WATCHED_SHOWN: usize = 20;
/// At most this many channels are named; the rest are counted.
const CHANNELS_SHOWN: usize = 30;

/// An untrusted name as inert mrkdwn: cleaned, cut and escaped ([`escape_within`], so
/// no mention or link), with backticks turned into `'` and the whole put in a code span,
/// so that `*`, `_` and `~` in it format nothing either.
pub fn inert_name(name: &str, max_len: usize) -> String {
    format!("`{}`", escape_within(name, max_len).replace('`', "'"))
}

/// Where a shown value comes from.
fn origin(own: bool) -> &'static str {
    if own {
        "set for this workspace"
    } else {
        "server default"
    }
}

/// Whether `id` is a channel id that may be written as a `<#…>` mention.
fn is_channel_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some('C' | 'G' | 'D'))
        && (3..=32).contains(&id.len())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// Channel ids as mentions (anything that is not an id, escaped as text), the first
/// [`CHANNELS_SHOWN`] of them, and "and N more".
fn channel_list(ids: &[String]) -> String {
    let mut shown: Vec<String> = ids
        .iter()
        .take(CHANNELS_SHOWN)
        .map(|id| {
            if is_channel_id(id) {
                format!("<#{id}>")
            } else {
                inert_name(id, 40)
            }
        })
        .collect();
    if ids.len() > CHANNELS_SHOWN {
        shown.push(format!("and {} more", ids.len() - CHANNELS_SHOWN));
    }
    shown.join(", ")
}

/// The channels setting in words.
fn channels_words(scope: &ChannelScope) -> String {
    match scope {
        ChannelScope::All => "every channel I am in".to_string(),
        ChannelScope::Only(ids) if ids.is_empty() => "no channel".to_string(),
        ChannelScope::Only(ids) => format!("only {}", channel_list(ids)),
    }
}

/// The claim-support setting in words.
fn support_words(support: Option<bool>) -> &'static str {
    match support {
        Some(true) => "on: cited pages are read and claims checked against them",
        Some(false) => "off: links are checked, claims are not",
        None => "not set",
    }
}

/// The internal-quotes setting in words.
fn internal_quotes_words(quotes: Option<bool>) -> &'static str {
    match quotes {
        Some(true) => "quoted in the evidence, to the person who opens it",
        Some(false) => "never quoted: verdicts and missing words only",
        None => "not set",
    }
}

/// The audience setting in words.
fn audience_words(audience: Option<ReportAudience>) -> &'static str {
    match audience {
        Some(ReportAudience::Channel) => "posted in the answer's thread",
        Some(ReportAudience::AskerOnly) => "offered to the person who asked only",
        None => "not set",
    }
}

/// The watched assistants by name (escaped), or a sentence when there are none.
pub fn watched_words(settings: &WorkspaceSettings) -> String {
    if settings.watched.is_empty() {
        return "none (add one with `/sources watch @Assistant`)".to_string();
    }
    let mut names: Vec<String> = settings
        .watched
        .iter()
        .take(WATCHED_SHOWN)
        .map(|a| {
            if clean_text(&a.name).is_empty() {
                inert_name(&a.user_id, NAME_MAX)
            } else {
                inert_name(&a.name, NAME_MAX)
            }
        })
        .collect();
    if settings.watched.len() > WATCHED_SHOWN {
        names.push(format!(
            "and {} more",
            settings.watched.len() - WATCHED_SHOWN
        ));
    }
    names.join(", ")
}

/// The settings as mrkdwn lines `• *Name:* value (origin)`: the workspace's own value
/// where it has one, else the default's. With `defaults` `None`, an unset value reads
/// "server default".
pub fn settings_lines(
    settings: &WorkspaceSettings,
    defaults: Option<&WorkspaceSettings>,
) -> String {
    let fallback = WorkspaceSettings::default();
    let defaults = defaults.unwrap_or(&fallback);
    let line =
        |name: &str, value: String, own: bool| format!("• *{name}:* {value} _({})_", origin(own));
    let watched_own = !settings.watched.is_empty();
    let watched = watched_words(if watched_own { settings } else { defaults });
    // `All` is the type's default, so only a list of channels is the workspace's own.
    let channels_own = matches!(settings.channels, ChannelScope::Only(_));
    let channels = channels_words(if channels_own {
        &settings.channels
    } else {
        &defaults.channels
    });
    let support = settings.support.or(defaults.support);
    let per_kind = match settings.sources_per_kind.or(defaults.sources_per_kind) {
        Some(n) => n.to_string(),
        None => "not set".to_string(),
    };
    let audience = settings.audience.or(defaults.audience);
    [
        line("Watched assistants", watched, watched_own),
        line("Channels", channels, channels_own),
        line(
            "Claim support",
            support_words(support).to_string(),
            settings.support.is_some(),
        ),
        line(
            "Sources per kind",
            per_kind,
            settings.sources_per_kind.is_some(),
        ),
        line(
            "Reports in channels",
            audience_words(audience).to_string(),
            settings.audience.is_some(),
        ),
        line(
            "Internal documents' words",
            internal_quotes_words(settings.internal_quotes.or(defaults.internal_quotes))
                .to_string(),
            settings.internal_quotes.is_some(),
        ),
    ]
    .join("\n")
}

/// The **Edit** button.
pub fn edit_button() -> Value {
    crate::render::blocks::button(EDIT_SETTINGS_ACTION_ID, "Edit", "edit")
}

/// The ephemeral answer to `/sources settings` (`{"text", "blocks"}`): every setting
/// with its value and its origin, and an **Edit** button when `can_edit`.
pub fn settings_summary(
    settings: &WorkspaceSettings,
    defaults: &WorkspaceSettings,
    can_edit: bool,
) -> Value {
    let lines = settings_lines(settings, Some(defaults));
    let mut blocks = vec![json!({
        "type": "section",
        "text": {"type": "mrkdwn", "text": format!("*sourcebot settings for this workspace*\n{lines}")},
    })];
    if can_edit {
        blocks.push(json!({"type": "actions", "elements": [edit_button()]}));
    } else {
        blocks.push(json!({
            "type": "context",
            "elements": [{"type": "mrkdwn", "text": "Only workspace admins and owners can change these."}],
        }));
    }
    json!({"text": "sourcebot settings for this workspace", "blocks": blocks})
}

/// A radio option.
fn option(value: &str, label: &str) -> Value {
    json!({"text": plain_text(label), "value": value})
}

/// An input block of radio buttons with `initial` chosen.
fn radio(block: &str, label: &str, options: Vec<Value>, initial: usize) -> Value {
    let initial = options[initial].clone();
    json!({
        "type": "input",
        "block_id": block,
        "label": plain_text(label),
        "element": {
            "type": "radio_buttons",
            "action_id": block,
            "options": options,
            "initial_option": initial,
        },
    })
}

/// The settings modal for `views.open`, filled in with `settings`.
pub fn settings_modal(settings: &WorkspaceSettings) -> Value {
    let (scope_initial, ids) = match &settings.channels {
        ChannelScope::All => (0, Vec::new()),
        ChannelScope::Only(ids) => (
            1,
            ids.iter().filter(|id| is_channel_id(id)).cloned().collect(),
        ),
    };
    let mut list = json!({
        "type": "multi_conversations_select",
        "action_id": CHANNELS_LIST_BLOCK,
        "placeholder": plain_text("Choose channels"),
        "filter": {"include": ["public", "private"], "exclude_bot_users": true},
    });
    if !ids.is_empty() {
        list["initial_conversations"] = json!(ids);
    }
    let support_initial = match settings.support {
        None => 0,
        Some(true) => 1,
        Some(false) => 2,
    };
    let audience_initial = match settings.audience {
        None => 0,
        Some(ReportAudience::Channel) => 1,
        Some(ReportAudience::AskerOnly) => 2,
    };
    let quotes_initial = match settings.internal_quotes {
        None => 0,
        Some(true) => 1,
        Some(false) => 2,
    };
    let (min, max) = SOURCES_PER_KIND_RANGE;
    let mut number = json!({
        "type": "number_input",
        "action_id": SOURCES_PER_KIND_BLOCK,
        "is_decimal_allowed": false,
        "min_value": min.to_string(),
        "max_value": max.to_string(),
    });
    if let Some(n) = settings.sources_per_kind {
        number["initial_value"] = json!(n.clamp(min, max).to_string());
    }
    json!({
        "type": "modal",
        "callback_id": SETTINGS_CALLBACK_ID,
        "title": plain_text("sourcebot settings"),
        "submit": plain_text("Save"),
        "close": plain_text("Cancel"),
        "blocks": [
            {
                "type": "context",
                "elements": [{"type": "mrkdwn", "text": format!("*Watched assistants:* {}. Change them with `/sources watch` and `/sources unwatch`.", watched_words(settings))}],
            },
            radio(CHANNELS_SCOPE_BLOCK, "Where watched answers get sources", vec![
                option("all", "Every channel I am in"),
                option("only", "Only these channels"),
            ], scope_initial),
            {
                "type": "input",
                "block_id": CHANNELS_LIST_BLOCK,
                "optional": true,
                "label": plain_text("The channels (when only these)"),
                "element": list,
            },
            radio(SUPPORT_BLOCK, "Check claims against the pages they cite", vec![
                option("default", "Server default"),
                option("on", "On"),
                option("off", "Off"),
            ], support_initial),
            {
                "type": "input",
                "block_id": SOURCES_PER_KIND_BLOCK,
                "optional": true,
                "label": plain_text("Sources listed per kind"),
                "hint": plain_text(&format!("A whole number from {min} to {max}; leave empty for the server default.")),
                "element": number,
            },
            radio(AUDIENCE_BLOCK, "Reports in channels", vec![
                option("default", "Server default"),
                option("channel", "Post in the answer's thread"),
                option("asker_only", "Offer to the person who asked only"),
            ], audience_initial),
            radio(INTERNAL_QUOTES_BLOCK, "Quote internal documents in the evidence", vec![
                option("default", "Server default"),
                option("on", "Quote them to the person who opens the evidence"),
                option("off", "Never: show verdicts and missing words only"),
            ], quotes_initial),
        ],
    })
}

/// The response body that shows `errors` under their fields
/// (`{"response_action":"errors","errors":{block_id: message}}`).
pub fn errors_response(errors: &[(String, String)]) -> Value {
    let map: serde_json::Map<String, Value> = errors
        .iter()
        .map(|(block, message)| (block.clone(), json!(message)))
        .collect();
    json!({"response_action": "errors", "errors": map})
}

/// Reads the settings modal's `view_submission` into new settings, starting from
/// `current` (whose watched assistants are kept). Every field that cannot be read is an
/// error `(block_id, sentence)`, in the shape `response_action: errors` needs (see
/// [`errors_response`]); a field missing from the state keeps its current value.
pub fn read_settings_submission(
    view_submission: &Value,
    current: &WorkspaceSettings,
) -> Result<WorkspaceSettings, Vec<(String, String)>> {
    let values = view_submission.pointer("/view/state/values");
    let field = |block: &str| values.and_then(|v| v.get(block)).and_then(|b| b.get(block));
    let chosen = |block: &str| {
        field(block).map(|a| a.pointer("/selected_option/value").and_then(Value::as_str))
    };
    let mut errors: Vec<(String, String)> = Vec::new();
    let mut error =
        |block: &str, message: &str| errors.push((block.to_string(), message.to_string()));
    let mut next = current.clone();

    let selected: Vec<String> = field(CHANNELS_LIST_BLOCK)
        .and_then(|a| a.get("selected_conversations"))
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    match chosen(CHANNELS_SCOPE_BLOCK) {
        None => {}
        Some(Some("all")) => next.channels = ChannelScope::All,
        Some(Some("only")) => {
            if selected.is_empty() {
                error(
                    CHANNELS_LIST_BLOCK,
                    "Choose at least one channel, or choose every channel above.",
                );
            } else if selected.iter().any(|id| !is_channel_id(id)) {
                error(
                    CHANNELS_LIST_BLOCK,
                    "One of these is not a channel I can use; choose channels from the list.",
                );
            } else {
                next.channels = ChannelScope::Only(selected);
            }
        }
        Some(_) => error(
            CHANNELS_SCOPE_BLOCK,
            "Choose every channel or only the channels below.",
        ),
    }
    match chosen(SUPPORT_BLOCK) {
        None => {}
        Some(None | Some("default")) => next.support = None,
        Some(Some("on")) => next.support = Some(true),
        Some(Some("off")) => next.support = Some(false),
        Some(Some(_)) => error(SUPPORT_BLOCK, "Choose the server default, on or off."),
    }
    match chosen(AUDIENCE_BLOCK) {
        None => {}
        Some(None | Some("default")) => next.audience = None,
        Some(Some("channel")) => next.audience = Some(ReportAudience::Channel),
        Some(Some("asker_only")) => next.audience = Some(ReportAudience::AskerOnly),
        Some(Some(_)) => error(
            AUDIENCE_BLOCK,
            "Choose the server default, the thread, or the person who asked.",
        ),
    }
    match chosen(INTERNAL_QUOTES_BLOCK) {
        None => {}
        Some(None | Some("default")) => next.internal_quotes = None,
        Some(Some("on")) => next.internal_quotes = Some(true),
        Some(Some("off")) => next.internal_quotes = Some(false),
        Some(Some(_)) => error(
            INTERNAL_QUOTES_BLOCK,
            "Choose the server default, quote them, or never.",
        ),
    }
    if let Some(action) = field(SOURCES_PER_KIND_BLOCK) {
        let (min, max) = SOURCES_PER_KIND_RANGE;
        let text = action
            .get("value")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or("");
        if text.is_empty() {
            next.sources_per_kind = None;
        } else {
            match text.parse::<u64>() {
                Ok(n) if (min as u64..=max as u64).contains(&n) => next.sources_per_kind = Some(n as usize),
                Ok(_) => error(SOURCES_PER_KIND_BLOCK, &format!("Choose a number from {min} to {max}, or leave it empty for the server default.")),
                Err(_) => error(SOURCES_PER_KIND_BLOCK, &format!("Enter a whole number from {min} to {max} in digits, or leave it empty for the server default.")),
            }
        }
    }
    next.watched = current.watched.clone();
    if errors.is_empty() {
        Ok(next)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::workspace::WatchedAssistant;
    use crate::render::blocks::{check_limits, BlockMessage};

    fn fixture() -> Value {
        let path = format!(
            "{}/tests/data/slack/view_submission.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn assistant(name: &str) -> WatchedAssistant {
        WatchedAssistant {
            user_id: "U0AI".into(),
            bot_id: "B0AI".into(),
            name: name.into(),
        }
    }

    fn with_per_kind(value: Value) -> Value {
        let mut payload = fixture();
        payload["view"]["state"]["values"][SOURCES_PER_KIND_BLOCK][SOURCES_PER_KIND_BLOCK]
            ["value"] = value;
        payload
    }

    #[test]
    fn the_summary_shows_values_origins_and_escapes_names() {
        let settings = WorkspaceSettings {
            watched: vec![assistant("<!channel> *Ask* <@U1>")],
            support: Some(false),
            ..Default::default()
        };
        let defaults = WorkspaceSettings {
            sources_per_kind: Some(5),
            audience: Some(ReportAudience::AskerOnly),
            ..Default::default()
        };
        let body = settings_summary(&settings, &defaults, true);
        let text = body["blocks"][0]["text"]["text"].as_str().unwrap();
        assert!(
            text.contains("&lt;!channel&gt; *Ask* &lt;@U1&gt;"),
            "{text}"
        );
        assert!(!text.contains("<!channel>") && !text.contains("<@U1>"));
        assert!(text.contains("*Claim support:* off"));
        assert!(
            text.contains("*Sources per kind:* 5 _(server default)_"),
            "{text}"
        );
        assert!(text.contains("offered to the person who asked only _(server default)_"));
        assert!(text.contains("*Internal documents' words:* not set _(server default)_"));
        assert!(text.contains("*Watched assistants:* `&lt;!channel&gt;"));
        assert_eq!(
            body["blocks"][1]["elements"][0]["action_id"],
            EDIT_SETTINGS_ACTION_ID
        );
        let message = BlockMessage {
            text: body["text"].as_str().unwrap().into(),
            blocks: body["blocks"].as_array().unwrap().clone(),
        };
        assert_eq!(check_limits(&message), Ok(()));
        let readonly = settings_summary(&settings, &defaults, false);
        assert!(!readonly.to_string().contains(EDIT_SETTINGS_ACTION_ID));
    }

    #[test]
    fn channels_are_mentions_only_when_they_are_ids() {
        let settings = WorkspaceSettings {
            channels: ChannelScope::Only(vec!["C012AB3CD".into(), "<!here>".into()]),
            ..Default::default()
        };
        let text = settings_lines(&settings, None);
        assert!(text.contains("<#C012AB3CD>"), "{text}");
        assert!(
            text.contains("&lt;!here&gt;") && !text.contains("<!here>"),
            "{text}"
        );
        assert!(text.contains("_(set for this workspace)_"));
    }

    #[test]
    fn the_modal_is_filled_in_from_the_settings() {
        let settings = WorkspaceSettings {
            watched: vec![assistant("Glean")],
            channels: ChannelScope::Only(vec!["C1AB".into()]),
            support: Some(true),
            sources_per_kind: Some(7),
            audience: Some(ReportAudience::Channel),
            internal_quotes: Some(false),
        };
        let view = settings_modal(&settings);
        assert_eq!(view["callback_id"], SETTINGS_CALLBACK_ID);
        let blocks = view["blocks"].as_array().unwrap();
        assert!(blocks[0]["elements"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Glean"));
        assert_eq!(blocks[1]["element"]["initial_option"]["value"], "only");
        assert_eq!(
            blocks[2]["element"]["initial_conversations"],
            json!(["C1AB"])
        );
        assert_eq!(blocks[3]["element"]["initial_option"]["value"], "on");
        assert_eq!(blocks[4]["element"]["initial_value"], "7");
        assert_eq!(blocks[4]["element"]["min_value"], "1");
        assert_eq!(blocks[4]["element"]["max_value"], "50");
        assert_eq!(blocks[5]["element"]["initial_option"]["value"], "channel");
        assert_eq!(blocks[6]["block_id"], INTERNAL_QUOTES_BLOCK);
        assert_eq!(blocks[6]["element"]["initial_option"]["value"], "off");
        for field in ["title", "submit", "close"] {
            assert!(view[field]["text"].as_str().unwrap().chars().count() <= 24);
        }
        let blank = settings_modal(&WorkspaceSettings::default());
        assert!(blank["blocks"][2]["element"]
            .get("initial_conversations")
            .is_none());
        assert!(blank["blocks"][4]["element"].get("initial_value").is_none());
    }

    #[test]
    fn the_reference_submission_is_read_and_keeps_the_watched() {
        let current = WorkspaceSettings {
            watched: vec![assistant("Glean")],
            audience: Some(ReportAudience::Channel),
            ..Default::default()
        };
        let read = read_settings_submission(&fixture(), &current).unwrap();
        assert_eq!(
            read,
            WorkspaceSettings {
                watched: current.watched.clone(),
                channels: ChannelScope::Only(vec!["C012AB3CD".into(), "G12345".into()]),
                support: Some(true),
                sources_per_kind: Some(10),
                audience: None,
                internal_quotes: Some(false),
            }
        );
    }

    #[test]
    fn bad_numbers_are_errors_under_their_field() {
        for value in [
            json!("0"),
            json!("500"),
            json!("ten"),
            json!("2.5"),
            json!("-3"),
        ] {
            let errors =
                read_settings_submission(&with_per_kind(value.clone()), &Default::default())
                    .unwrap_err();
            assert_eq!(errors.len(), 1, "{value}");
            assert_eq!(errors[0].0, SOURCES_PER_KIND_BLOCK);
            assert!(errors[0].1.contains("1 to 50"), "{}", errors[0].1);
        }
        let read =
            read_settings_submission(&with_per_kind(Value::Null), &Default::default()).unwrap();
        assert_eq!(read.sources_per_kind, None);
        let response = errors_response(&[(SOURCES_PER_KIND_BLOCK.into(), "x".into())]);
        assert_eq!(
            response,
            json!({"response_action": "errors", "errors": {"sources_per_kind": "x"}})
        );
    }

    #[test]
    fn only_these_channels_needs_channels() {
        let mut payload = fixture();
        payload["view"]["state"]["values"][CHANNELS_LIST_BLOCK][CHANNELS_LIST_BLOCK]
            ["selected_conversations"] = json!([]);
        let errors = read_settings_submission(&payload, &Default::default()).unwrap_err();
        assert_eq!(errors[0].0, CHANNELS_LIST_BLOCK);
        payload["view"]["state"]["values"][CHANNELS_SCOPE_BLOCK][CHANNELS_SCOPE_BLOCK]
            ["selected_option"]["value"] = json!("all");
        let read = read_settings_submission(&payload, &Default::default()).unwrap();
        assert_eq!(read.channels, ChannelScope::All);
    }

    #[test]
    fn odd_payloads_never_panic() {
        let current = WorkspaceSettings {
            support: Some(true),
            ..Default::default()
        };
        for payload in [
            json!(null),
            json!({"view": {"state": {"values": []}}}),
            json!({"view": {"state": {"values": {"support": 3}}}}),
        ] {
            assert_eq!(
                read_settings_submission(&payload, &current),
                Ok(current.clone())
            );
        }
        let mut payload = fixture();
        payload["view"]["state"]["values"][SUPPORT_BLOCK][SUPPORT_BLOCK]["selected_option"]
            ["value"] = json!("<!channel>");
        let errors = read_settings_submission(&payload, &current).unwrap_err();
        assert_eq!(errors[0].0, SUPPORT_BLOCK);
    }
}

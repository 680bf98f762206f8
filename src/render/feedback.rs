//! The 👍/👎 under every report, and the 👎 follow-up modal. [`feedback_block`] is
//! Slack's `context_actions` block with a `feedback_buttons` element (the AI-answer
//! footer); [`fallback_feedback_block`] is an ordinary `actions` block with two buttons
//! of the same meaning, for workspaces where Slack refuses the new block with
//! `invalid_blocks`. Both carry `{vote}:{report key}` in their values, so
//! [`read_feedback_action`] reads either press from a `block_actions` payload the same
//! way. [`wrong_part_modal`] asks what was wrong; [`read_wrong_part`] reads its
//! `view_submission`, keeping the free text as given (it is untrusted: escape it when
//! showing it) but never longer than [`MAX_COMMENT_CHARS`]. Pure: no network, no state.

use serde_json::{json, Value};

use super::blocks::{button, plain_text, MAX_BUTTON_VALUE};
use crate::model::workspace::{Vote, WrongPart};

/// The `action_id` of the `feedback_buttons` element (and the `block_id` of its block).
pub const FEEDBACK_ACTION_ID: &str = "sourcebot_feedback";
/// The `action_id` of the fallback 👍 button.
pub const FEEDBACK_UP_ACTION_ID: &str = "sourcebot_feedback_up";
/// The `action_id` of the fallback 👎 button.
pub const FEEDBACK_DOWN_ACTION_ID: &str = "sourcebot_feedback_down";
/// The `callback_id` of the 👎 follow-up modal.
pub const WRONG_PART_CALLBACK_ID: &str = "sourcebot_feedback_wrong";
/// The block and action id of the modal's radio buttons.
pub const WRONG_PART_BLOCK: &str = "wrong_part";
/// The block and action id of the modal's free text.
pub const COMMENT_BLOCK: &str = "wrong_comment";
/// At most this many characters of free text are asked for and kept.
pub const MAX_COMMENT_CHARS: usize = 3_000;
/// At most this many characters in a view's `private_metadata` (Slack's limit).
const MAX_PRIVATE_METADATA: usize = 3_000;

/// One press of 👍 or 👎 under a report, as a `block_actions` payload tells it. Every
/// field is copied from the payload; none is checked against anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackPress {
    /// The report key the button carried.
    pub report_key: String,
    /// The vote.
    pub vote: Vote,
    /// Who pressed (`user.id`).
    pub user_id: String,
    /// `team.id` (absent for org-wide installs, where `team` is null).
    pub team_id: Option<String>,
    /// `enterprise.id`, when the workspace is in an Enterprise Grid.
    pub enterprise_id: Option<String>,
    /// The report's channel (`channel.id`, else `container.channel_id`).
    pub channel: Option<String>,
    /// The report message's `ts` (`container.message_ts`, else `message.ts`).
    pub message_ts: Option<String>,
    /// The `trigger_id` for opening the 👎 modal (valid for 3 s).
    pub trigger_id: Option<String>,
}

/// The value a feedback button carries: `up:{key}` or `down:{key}`.
fn button_value(vote: Vote, report_key: &str) -> String {
    format!("{}:{report_key}", vote.as_str())
}

/// Reads a value made by [`button_value`]; `None` for anything else or an empty key.
fn read_button_value(value: &str) -> Option<(Vote, String)> {
    let (vote, key) = value.split_once(':')?;
    let vote = match vote {
        "up" => Vote::Up,
        "down" => Vote::Down,
        _ => return None,
    };
    (!key.is_empty()).then(|| (vote, key.to_string()))
}

/// The feedback footer for a report: a `context_actions` block holding one
/// `feedback_buttons` element, as Slack's Block Kit reference shows it, whose buttons
/// carry `up:{report_key}` and `down:{report_key}`. `report_key` is sourcebot's own
/// short key; a key too long for a button's 2,000-character value is a bug of the
/// caller (the value would be refused by Slack, never cut here to another key).
pub fn feedback_block(report_key: &str) -> Value {
    debug_assert!(button_value(Vote::Down, report_key).len() <= MAX_BUTTON_VALUE);
    json!({
        "type": "context_actions",
        "block_id": FEEDBACK_ACTION_ID,
        "elements": [{
            "type": "feedback_buttons",
            "action_id": FEEDBACK_ACTION_ID,
            "positive_button": {
                "text": {"type": "plain_text", "text": "👍"},
                "accessibility_label": "These sources were helpful",
                "value": button_value(Vote::Up, report_key),
            },
            "negative_button": {
                "text": {"type": "plain_text", "text": "👎"},
                "accessibility_label": "These sources were not helpful",
                "value": button_value(Vote::Down, report_key),
            },
        }],
    })
}

/// The same two votes as an ordinary `actions` block of buttons (👍 Helpful,
/// 👎 Not helpful), for when Slack refuses [`feedback_block`] with `invalid_blocks`.
pub fn fallback_feedback_block(report_key: &str) -> Value {
    json!({
        "type": "actions",
        "block_id": FEEDBACK_ACTION_ID,
        "elements": [
            button(FEEDBACK_UP_ACTION_ID, "👍 Helpful", &button_value(Vote::Up, report_key)),
            button(FEEDBACK_DOWN_ACTION_ID, "👎 Not helpful", &button_value(Vote::Down, report_key)),
        ],
    })
}

/// A string at `pointer` in `value`, when there is one and it is not empty.
fn string_at(value: &Value, pointer: &str) -> Option<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Reads a press of either feedback form from a `block_actions` payload: the first
/// action that is sourcebot's `feedback_buttons` element or one of its fallback
/// buttons, with a value it made. `None` for any other payload, or when the presser
/// is missing.
pub fn read_feedback_action(payload: &Value) -> Option<FeedbackPress> {
    if payload.get("type").and_then(Value::as_str) != Some("block_actions") {
        return None;
    }
    let (vote, report_key) = payload
        .get("actions")?
        .as_array()?
        .iter()
        .find_map(|action| {
            let id = action.get("action_id").and_then(Value::as_str)?;
            let kind = action.get("type").and_then(Value::as_str)?;
            let ours = matches!(
                (kind, id),
                ("feedback_buttons", FEEDBACK_ACTION_ID)
                    | ("button", FEEDBACK_UP_ACTION_ID | FEEDBACK_DOWN_ACTION_ID)
            );
            ours.then(|| read_button_value(action.get("value")?.as_str()?))
                .flatten()
        })?;
    Some(FeedbackPress {
        report_key,
        vote,
        user_id: string_at(payload, "/user/id")?,
        team_id: string_at(payload, "/team/id"),
        enterprise_id: string_at(payload, "/enterprise/id"),
        channel: string_at(payload, "/channel/id")
            .or_else(|| string_at(payload, "/container/channel_id")),
        message_ts: string_at(payload, "/container/message_ts")
            .or_else(|| string_at(payload, "/message/ts")),
        trigger_id: string_at(payload, "/trigger_id"),
    })
}

/// The choices of the modal's radio buttons: value, label, meaning.
const WRONG_PARTS: [(&str, &str, WrongPart); 4] = [
    ("link_verdict", "A link's verdict", WrongPart::LinkVerdict),
    (
        "claim_verdict",
        "A claim's verdict",
        WrongPart::ClaimVerdict,
    ),
    (
        "missing_source",
        "A source that is missing",
        WrongPart::MissingSource,
    ),
    ("other", "Something else", WrongPart::Other),
];

/// The 👎 follow-up modal for `views.open`: what was wrong (radio buttons, optional)
/// and a few words (multiline, optional, at most [`MAX_COMMENT_CHARS`]). The report key
/// travels in `private_metadata`.
pub fn wrong_part_modal(report_key: &str) -> Value {
    let options: Vec<Value> = WRONG_PARTS
        .iter()
        .map(|(value, label, _)| json!({"text": plain_text(label), "value": value}))
        .collect();
    let metadata: String = report_key.chars().take(MAX_PRIVATE_METADATA).collect();
    json!({
        "type": "modal",
        "callback_id": WRONG_PART_CALLBACK_ID,
        "private_metadata": metadata,
        "title": plain_text("What was wrong?"),
        "submit": plain_text("Send"),
        "close": plain_text("Skip"),
        "blocks": [
            {
                "type": "section",
                "text": {"type": "mrkdwn", "text": "Thanks for the 👎. Telling me what was wrong helps fix it; both questions are optional."},
            },
            {
                "type": "input",
                "block_id": WRONG_PART_BLOCK,
                "optional": true,
                "label": plain_text("Which part was wrong?"),
                "element": {
                    "type": "radio_buttons",
                    "action_id": WRONG_PART_BLOCK,
                    "options": options,
                },
            },
            {
                "type": "input",
                "block_id": COMMENT_BLOCK,
                "optional": true,
                "label": plain_text("Anything to add?"),
                "element": {
                    "type": "plain_text_input",
                    "action_id": COMMENT_BLOCK,
                    "multiline": true,
                    "max_length": MAX_COMMENT_CHARS,
                    "placeholder": plain_text("Which link or claim, and what it should have said"),
                },
            },
        ],
    })
}

/// Reads the 👎 modal's `view_submission`: the report key (from `private_metadata`),
/// what was wrong, and the free text as given (untrusted; cut to
/// [`MAX_COMMENT_CHARS`] characters; `None` when blank). `Err` with a sentence for the
/// log when the payload is not this modal's submission or carries no report key.
pub fn read_wrong_part(
    view_submission: &Value,
) -> Result<(String, Option<WrongPart>, Option<String>), String> {
    if view_submission.get("type").and_then(Value::as_str) != Some("view_submission") {
        return Err("not a view_submission payload".to_string());
    }
    let view = view_submission
        .get("view")
        .ok_or("a view_submission without a view")?;
    if view.get("callback_id").and_then(Value::as_str) != Some(WRONG_PART_CALLBACK_ID) {
        return Err("not the feedback modal's submission".to_string());
    }
    let key = string_at(view, "/private_metadata")
        .ok_or("the feedback modal's submission carries no report key")?;
    let values = view.pointer("/state/values");
    let field = |block: &str| values.and_then(|v| v.get(block)).and_then(|b| b.get(block));
    let wrong = field(WRONG_PART_BLOCK)
        .and_then(|a| a.pointer("/selected_option/value"))
        .and_then(Value::as_str)
        .and_then(|chosen| {
            WRONG_PARTS
                .iter()
                .find(|(value, _, _)| *value == chosen)
                .map(|(_, _, part)| *part)
        });
    let comment = field(COMMENT_BLOCK)
        .and_then(|a| a.get("value"))
        .and_then(Value::as_str)
        .filter(|text| !text.trim().is_empty())
        .map(|text| text.chars().take(MAX_COMMENT_CHARS).collect());
    Ok((key, wrong, comment))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::blocks::{check_limits, BlockMessage};
    use crate::render::evidence::modal::check_view_limits;

    fn fixture(path: &str) -> Value {
        let text = std::fs::read_to_string(format!(
            "{}/tests/data/slack/{path}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect(path);
        serde_json::from_str(&text).expect(path)
    }

    const KEY: &str = "C123ABC456/1700000000.000200";

    #[test]
    fn the_feedback_block_has_the_reference_shape() {
        let reference = fixture("blocks/context_actions_feedback_buttons.json");
        let ours = feedback_block(KEY);
        assert_eq!(ours["type"], reference["type"]);
        let (theirs, mine) = (&reference["elements"][0], &ours["elements"][0]);
        assert_eq!(mine["type"], theirs["type"]);
        for button in ["positive_button", "negative_button"] {
            assert_eq!(mine[button]["text"], theirs[button]["text"], "{button}");
            let keys = |v: &Value| {
                let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
                k.retain(|k| k != "accessibility_label");
                k.sort();
                k
            };
            assert_eq!(keys(&mine[button]), keys(&theirs[button]));
            assert!(mine[button]["accessibility_label"].as_str().unwrap().len() <= 75);
        }
        assert_eq!(mine["positive_button"]["value"], format!("up:{KEY}"));
        assert_eq!(mine["negative_button"]["value"], format!("down:{KEY}"));
        assert_eq!(ours["elements"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn the_feedback_block_is_within_limits_and_a_broken_one_is_not() {
        let message = BlockMessage {
            text: "Sources".into(),
            blocks: vec![feedback_block(KEY)],
        };
        assert_eq!(check_limits(&message), Ok(()));
        let mut broken = feedback_block(KEY);
        broken["elements"][0]["positive_button"]["text"]["text"] = json!("");
        let message = BlockMessage {
            text: "Sources".into(),
            blocks: vec![broken],
        };
        assert!(check_limits(&message).is_err());
    }

    #[test]
    fn the_fallback_block_is_within_limits() {
        let message = BlockMessage {
            text: "Sources".into(),
            blocks: vec![fallback_feedback_block(KEY)],
        };
        assert_eq!(check_limits(&message), Ok(()));
        let values: Vec<&str> = message.blocks[0]["elements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["value"].as_str().unwrap())
            .collect();
        assert_eq!(values, [format!("up:{KEY}"), format!("down:{KEY}")]);
    }

    #[test]
    fn a_feedback_buttons_press_is_read_from_the_reference_payload() {
        let payload = fixture("block_actions_feedback_buttons.json");
        let press = read_feedback_action(&payload).unwrap();
        assert_eq!(
            press,
            FeedbackPress {
                report_key: KEY.into(),
                vote: Vote::Down,
                user_id: "U123ABC456".into(),
                team_id: Some("T123ABC456".into()),
                enterprise_id: None,
                channel: Some("C123ABC456".into()),
                message_ts: Some("1700000000.000200".into()),
                trigger_id: Some(
                    "12321423423.333649436676.d8c1bb837935619ccad0f624c448ffb3".into()
                ),
            }
        );
    }

    #[test]
    fn a_fallback_press_reads_the_same() {
        let mut payload = fixture("block_actions_feedback_buttons.json");
        let up = fallback_feedback_block(KEY)["elements"][0].clone();
        payload["actions"] = json!([{
            "type": "button", "action_id": up["action_id"], "block_id": FEEDBACK_ACTION_ID,
            "text": up["text"], "value": up["value"], "action_ts": "1700000001.000300",
        }]);
        payload["channel"] = Value::Null;
        payload["enterprise"] = json!({"id": "E123", "name": "Acme"});
        let press = read_feedback_action(&payload).unwrap();
        assert_eq!((press.vote, press.report_key.as_str()), (Vote::Up, KEY));
        assert_eq!(press.channel.as_deref(), Some("C123ABC456"));
        assert_eq!(press.enterprise_id.as_deref(), Some("E123"));
    }

    #[test]
    fn other_presses_are_not_feedback() {
        let base = fixture("block_actions_feedback_buttons.json");
        for action in [
            json!({"type": "button", "action_id": "share_sources", "value": "up:k"}),
            json!({"type": "feedback_buttons", "action_id": "someone_else", "value": "up:k"}),
            json!({"type": "feedback_buttons", "action_id": FEEDBACK_ACTION_ID, "value": "positive_feedback"}),
            json!({"type": "feedback_buttons", "action_id": FEEDBACK_ACTION_ID, "value": "up:"}),
            json!({"type": "feedback_buttons", "action_id": FEEDBACK_ACTION_ID}),
        ] {
            let mut payload = base.clone();
            payload["actions"] = json!([action]);
            assert_eq!(read_feedback_action(&payload), None, "{action}");
        }
        assert_eq!(
            read_feedback_action(&json!({"type": "view_submission"})),
            None
        );
        assert_eq!(read_feedback_action(&json!(null)), None);
    }

    #[test]
    fn the_modal_is_within_limits_and_carries_the_key() {
        let view = wrong_part_modal(KEY);
        assert_eq!(
            check_view_limits(&json!({
                "type": "modal", "title": view["title"], "close": view["close"],
                "blocks": [view["blocks"][0]],
            })),
            Ok(())
        );
        assert_eq!(view["callback_id"], WRONG_PART_CALLBACK_ID);
        assert_eq!(view["private_metadata"], KEY);
        assert_eq!(view["blocks"][2]["element"]["max_length"], 3000);
        assert_eq!(view["blocks"][2]["element"]["multiline"], true);
        assert_eq!(
            view["blocks"][1]["element"]["options"]
                .as_array()
                .unwrap()
                .len(),
            4
        );
        for field in ["title", "submit", "close"] {
            assert!(view[field]["text"].as_str().unwrap().chars().count() <= 24);
        }
    }

    /// The reference `view_submission` fixture, turned into the 👎 modal's.
    fn submission(part: Value, comment: Value) -> Value {
        let mut payload = fixture("view_submission.json");
        payload["view"]["callback_id"] = json!(WRONG_PART_CALLBACK_ID);
        payload["view"]["private_metadata"] = json!(KEY);
        payload["view"]["state"]["values"] = json!({
            WRONG_PART_BLOCK: {WRONG_PART_BLOCK: {"type": "radio_buttons", "selected_option": part}},
            COMMENT_BLOCK: {COMMENT_BLOCK: {"type": "plain_text_input", "value": comment}},
        });
        payload
    }

    #[test]
    fn the_modal_submission_is_read() {
        let payload = submission(
            json!({"text": {"type": "plain_text", "text": "A claim's verdict"}, "value": "claim_verdict"}),
            json!("The second claim is in the page."),
        );
        assert_eq!(
            read_wrong_part(&payload),
            Ok((
                KEY.to_string(),
                Some(WrongPart::ClaimVerdict),
                Some("The second claim is in the page.".into())
            ))
        );
        let empty = submission(Value::Null, Value::Null);
        assert_eq!(read_wrong_part(&empty), Ok((KEY.to_string(), None, None)));
        let unknown = submission(json!({"value": "everything"}), json!("  \n "));
        assert_eq!(read_wrong_part(&unknown), Ok((KEY.to_string(), None, None)));
    }

    #[test]
    fn hostile_input_is_kept_as_given_and_cut() {
        let hostile = format!("<!channel> *bold* \u{0}\u{7}\u{202e}{}", "x".repeat(10_000));
        let payload = submission(json!({"value": "other"}), json!(hostile));
        let (_, part, comment) = read_wrong_part(&payload).unwrap();
        assert_eq!(part, Some(WrongPart::Other));
        let comment = comment.unwrap();
        assert_eq!(comment.chars().count(), MAX_COMMENT_CHARS);
        assert!(hostile.starts_with(&comment));
        assert!(comment.starts_with("<!channel> *bold* \u{0}"));
    }

    #[test]
    fn malformed_submissions_are_errors_not_panics() {
        let mut no_key = submission(Value::Null, Value::Null);
        no_key["view"]["private_metadata"] = json!("");
        assert!(read_wrong_part(&no_key).is_err());
        let mut other_modal = submission(Value::Null, Value::Null);
        other_modal["view"]["callback_id"] = json!("sourcebot_settings");
        assert!(read_wrong_part(&other_modal).is_err());
        for payload in [
            json!(null),
            json!({"type": "view_submission"}),
            json!({"type": "view_submission", "view": {"callback_id": WRONG_PART_CALLBACK_ID, "private_metadata": "k", "state": {"values": {"wrong_comment": {"wrong_comment": {"value": 7}}, "wrong_part": []}}}}),
        ] {
            let _ = read_wrong_part(&payload);
        }
        let odd = json!({"type": "view_submission", "view": {"callback_id": WRONG_PART_CALLBACK_ID, "private_metadata": "k", "state": {"values": {"wrong_comment": {"wrong_comment": {"value": 7}}}}}});
        assert_eq!(read_wrong_part(&odd), Ok(("k".to_string(), None, None)));
    }
}

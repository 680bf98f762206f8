//! What Slack asks of the bot, read into plain jobs: which message (or text) to check,
//! and where the answer goes. Events and interactions are read from their JSON as
//! Slack sent it (slack-morphism's models drop fields the message reader needs, such as
//! attachments' `title_link`), slash commands from slack-morphism's model. This module
//! decides what each request means — a mention's own links, or the thread's answer; a
//! watched assistant's answer, its edits and its deletion; what to ignore (the bot's
//! own messages, bots nobody watches) — and never touches the network.

use crate::collect::slack_message::{read_message, worth_checking, MessageMeta, ReadOptions};
use crate::collect::{collect, CollectOptions};
use crate::model::workspace::WrongPart;
use crate::render::feedback::{
    read_feedback_action, read_wrong_part, FeedbackPress, WRONG_PART_CALLBACK_ID,
};
use crate::slack::settings_view::EDIT_SETTINGS_ACTION_ID;
use crate::slack::sources_command::{self, SourcesCommand};
use serde_json::Value;
use slack_morphism::prelude::SlackCommandEvent;
use std::collections::HashSet;

/// Who the bot is, from `auth.test` at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotIdentity {
    /// The bot user's id (`U…`): mentions look like `<@U…>`.
    pub user_id: String,
    /// The bot's id (`B…`): messages it posts carry it.
    pub bot_id: Option<String>,
}

impl BotIdentity {
    /// Whether the bot posted `message`.
    pub fn posted(&self, message: &MessageMeta) -> bool {
        message.user.as_deref() == Some(self.user_id.as_str())
            || (message.bot_id.is_some() && message.bot_id == self.bot_id)
    }
}

/// The bots whose messages get sources on their own, and who the bot is.
#[derive(Debug, Clone)]
pub struct Watch {
    /// The bot itself: never watched.
    pub identity: BotIdentity,
    /// Watched bots' ids (`B…`).
    pub bot_ids: HashSet<String>,
}

impl Watch {
    /// Whether `message` is by a watched bot (and not by this one).
    pub fn watches(&self, message: &MessageMeta) -> bool {
        !self.identity.posted(message)
            && message
                .bot_id
                .as_ref()
                .is_some_and(|id| self.bot_ids.contains(id))
    }

    /// Whether `message` is by an assistant to prefer when looking for a thread's
    /// answer: a watched bot, or any bot when none is watched.
    pub fn prefers(&self, message: &MessageMeta) -> bool {
        if self.identity.posted(message) {
            return false;
        }
        match &message.bot_id {
            Some(id) => self.bot_ids.is_empty() || self.bot_ids.contains(id),
            None => false,
        }
    }
}

/// Where a report is posted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A visible reply in a thread of `channel` (under `thread_ts`). `user` is told
    /// ephemerally if the bot cannot post there.
    Thread {
        /// The channel.
        channel: String,
        /// The thread's parent message.
        thread_ts: String,
        /// Who asked, if a person did.
        user: Option<String>,
        /// Where to explain a failure when posting is refused (interactions give one).
        response_url: Option<String>,
    },
    /// Only the person who asked sees it, through the command's `response_url`, with a
    /// "Share in channel" button.
    Ephemeral {
        /// Slack's response URL for the command.
        response_url: String,
        /// The channel the command ran in.
        channel: String,
    },
    /// Only `user` sees it, in the thread (`chat.postEphemeral`): a workspace that
    /// offers reports to the asker only, asked by a mention.
    Whisper {
        /// The channel.
        channel: String,
        /// The thread's parent message.
        thread_ts: String,
        /// Who asked.
        user: String,
    },
}

impl Reply {
    /// The conversation the reply goes to.
    pub fn channel(&self) -> &str {
        match self {
            Reply::Thread { channel, .. }
            | Reply::Ephemeral { channel, .. }
            | Reply::Whisper { channel, .. } => channel,
        }
    }

    /// Who asked, when a person did and is known.
    pub fn user(&self) -> Option<&str> {
        match self {
            Reply::Thread { user, .. } => user.as_deref(),
            Reply::Whisper { user, .. } => Some(user),
            Reply::Ephemeral { .. } => None,
        }
    }
}

/// Where a report goes in a workspace whose reports in channels go to `audience`: to
/// the asker only, a thread reply becomes the interaction's ephemeral answer (the
/// shortcut's `response_url`) or an ephemeral message in the thread (a mention); other
/// replies stay as they are.
pub fn reply_for_audience(
    reply: &Reply,
    audience: crate::model::workspace::ReportAudience,
) -> Reply {
    use crate::model::workspace::ReportAudience;
    match (reply, audience) {
        (
            Reply::Thread {
                channel,
                thread_ts,
                user,
                response_url,
            },
            ReportAudience::AskerOnly,
        ) => match (response_url, user) {
            (Some(response_url), _) => Reply::Ephemeral {
                response_url: response_url.clone(),
                channel: channel.clone(),
            },
            (None, Some(user)) => Reply::Whisper {
                channel: channel.clone(),
                thread_ts: thread_ts.clone(),
                user: user.clone(),
            },
            (None, None) => reply.clone(),
        },
        _ => reply.clone(),
    }
}

/// What to check.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    /// This text (a slash command's), read as any answer is: Markdown, mrkdwn or JSON.
    Text(String),
    /// This message, as Slack delivered it (a mention with its own links, the message a
    /// shortcut was used on).
    Message(Box<Value>),
    /// The answer in this thread: the newest message older than `before_ts` that is
    /// worth checking, preferring watched assistants, never the bot's own.
    ThreadAnswer {
        /// The channel.
        channel: String,
        /// The thread's parent `ts`.
        thread_ts: String,
        /// The asking message's `ts`: only messages before it count.
        before_ts: String,
    },
    /// The message a permalink points at.
    Permalink(Permalink),
}

/// Something that happened to a watched assistant's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerEvent {
    /// Posted, or edited into this (streaming, corrections).
    Changed {
        /// The channel.
        channel: String,
        /// The message as it now is.
        message: Box<Value>,
    },
    /// Deleted (`message_deleted`, or a thread parent replaced by a tombstone).
    Deleted {
        /// The channel.
        channel: String,
        /// The answer's `ts`.
        ts: String,
    },
}

/// One piece of work, decided from one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    /// Check `subject` and post the report to `reply`.
    Check {
        /// What to check.
        subject: Subject,
        /// Where the report goes.
        reply: Reply,
    },
    /// A watched answer was posted, edited or deleted: its reply follows once it settles.
    Watched(AnswerEvent),
    /// Tell the person how to use the bot.
    Usage {
        /// Where.
        reply: Reply,
    },
    /// Tell the person why the bot will not do what was asked.
    Refuse {
        /// Where.
        reply: Reply,
        /// Why, in mrkdwn.
        why: String,
    },
    /// Post the report stored under `key` visibly, through `response_url`.
    Share {
        /// The stored report's key (the button's value).
        key: String,
        /// The response URL of the ephemeral message that carried the button.
        response_url: String,
    },
    /// `/sources watch|unwatch|settings`: change or show the workspace's settings.
    Settings {
        /// What was asked ([`SourcesCommand::Watch`], [`SourcesCommand::Unwatch`] or
        /// [`SourcesCommand::Settings`]).
        command: SourcesCommand,
        /// Who asked.
        user: String,
        /// The command's response URL (the answer is ephemeral).
        response_url: String,
    },
    /// The settings' **Edit** button: the modal, for admins.
    EditSettings {
        /// The click's `trigger_id`, which `views.open` needs within 3 s.
        trigger_id: String,
        /// Who pressed it.
        user: String,
        /// Where to tell them when they may not (the message's response URL)…
        response_url: Option<String>,
        /// …or an ephemeral message in this channel (none from the App Home).
        channel: Option<String>,
    },
    /// 👍 or 👎 under a report.
    Feedback {
        /// The press.
        press: FeedbackPress,
        /// Whether the report was an ephemeral message (its key then names it).
        ephemeral: bool,
        /// Where to thank the person.
        response_url: Option<String>,
    },
    /// The 👎 modal's answer.
    WrongPart {
        /// Who answered.
        user: String,
        /// The report it is about, as [`feedback_locator`] wrote it.
        locator: String,
        /// What was wrong, if they chose.
        wrong: Option<WrongPart>,
        /// Their words, if any (untrusted, at most 3,000 characters).
        comment: Option<String>,
    },
    /// Someone opened the App Home's Home tab.
    Home {
        /// Who.
        user: String,
    },
    /// Open the evidence kept under `key` in a modal for whoever pressed the button.
    Evidence {
        /// The kept evidence's key (the button's value).
        key: String,
        /// The click's `trigger_id`, which `views.open` needs within 3 s.
        trigger_id: Option<String>,
        /// Where to tell the person when the modal cannot open: the message's response
        /// URL…
        response_url: Option<String>,
        /// …or an ephemeral message to this user in this channel.
        channel: Option<String>,
        /// The person who pressed the button.
        user: Option<String>,
    },
}

/// The callback id of the "Check sources" message shortcut.
pub const SHORTCUT_CALLBACK_ID: &str = "check_sources";
/// The action id of the "Share in channel" button.
pub const SHARE_ACTION_ID: &str = "share_sources";
/// The action id of the "Show evidence" button.
pub const EVIDENCE_ACTION_ID: &str = "show_evidence";

/// The usage text, in mrkdwn: `/sources help`'s.
pub const USAGE: &str = sources_command::HELP;

/// An Events API callback's `event_id`, and the `event` it carries.
pub fn callback_parts(callback: &Value) -> Option<(&str, &Value)> {
    let event_id = callback.get("event_id")?.as_str()?;
    let event = callback.get("event").filter(|e| e.is_object())?;
    Some((event_id, event))
}

/// Whether `event` takes the app away from a workspace: `app_uninstalled`, or
/// `tokens_revoked` listing bot tokens (`tokens.bot`; revoked user tokens alone leave
/// the bot in place).
pub fn removes_the_app(event: &Value) -> bool {
    match event.get("type").and_then(Value::as_str) {
        Some("app_uninstalled") => true,
        Some("tokens_revoked") => event
            .pointer("/tokens/bot")
            .and_then(Value::as_array)
            .is_some_and(|bots| !bots.is_empty()),
        _ => false,
    }
}

/// Reads an event (the `event` of an Events API callback) into a job, or `None` when
/// there is nothing to do.
pub fn event_job(event: &Value, watch: &Watch) -> Option<Job> {
    match event.get("type").and_then(Value::as_str)? {
        "app_mention" => mention_job(event, &watch.identity),
        "message" => watched_job(event, watch).map(Job::Watched),
        // The Messages tab opens this event too: only the Home tab is drawn.
        "app_home_opened" if event.get("tab").and_then(Value::as_str) == Some("home") => {
            let user = event.get("user").and_then(Value::as_str)?;
            (!user.is_empty()).then(|| Job::Home {
                user: user.to_string(),
            })
        }
        _ => None,
    }
}

/// The report a 👎 modal is about, as its `private_metadata` carries it: the channel
/// and the report's message `ts` (or key, for an ephemeral report), space-separated.
pub fn feedback_locator(channel: &str, message_ts: &str) -> String {
    format!("{channel} {message_ts}")
}

/// Reads a [`feedback_locator`] back.
pub fn read_feedback_locator(locator: &str) -> Option<(&str, &str)> {
    let (channel, ts) = locator.split_once(' ')?;
    (!channel.is_empty() && !ts.is_empty() && !ts.contains(' ')).then_some((channel, ts))
}

/// A mention: its own links; else, in a thread, the thread's answer; else its own
/// claims; else the usage.
fn mention_job(event: &Value, identity: &BotIdentity) -> Option<Job> {
    let meta = MessageMeta::of(event);
    if identity.posted(&meta) {
        return None;
    }
    let channel = meta.channel.clone()?;
    let ts = meta.ts.clone()?;
    // A mention that starts a thread carries its own ts as thread_ts.
    let thread_ts = meta.thread_ts.clone().filter(|t| *t != ts);
    let reply = Reply::Thread {
        channel: channel.clone(),
        thread_ts: thread_ts.clone().unwrap_or_else(|| ts.clone()),
        user: meta.user.clone(),
        response_url: None,
    };
    let own = read_message(
        event,
        &ReadOptions {
            omit_mention_of: Some(identity.user_id.clone()),
            ..ReadOptions::default()
        },
    );
    if let Some(link) = lone_permalink(&own.answer.text) {
        return Some(if link.channel != channel {
            Job::Refuse {
                reply,
                why: OTHER_CHANNEL.to_string(),
            }
        } else {
            Job::Check {
                subject: Subject::Permalink(link),
                reply,
            }
        });
    }
    let collected = collect(&own.answer, &CollectOptions::default());
    let subject = if !collected.sources.is_empty() {
        Subject::Message(Box::new(event.clone()))
    } else if let Some(thread_ts) = thread_ts {
        Subject::ThreadAnswer {
            channel,
            thread_ts,
            before_ts: ts,
        }
    } else if worth_checking(&collected) {
        Subject::Message(Box::new(event.clone()))
    } else {
        return Some(Job::Usage { reply });
    };
    Some(Job::Check { subject, reply })
}

/// Why a link to another channel's message is not read.
const OTHER_CHANNEL: &str = "I can only check a message link from this channel (so nobody can read another channel through me). Ask in the message's channel, or use *Check sources* in the message's ⋯ menu.";

/// A `message` event that concerns a watched assistant's answer: posted, edited
/// (`message_changed`), deleted (`message_deleted`, or turned into a tombstone).
fn watched_job(event: &Value, watch: &Watch) -> Option<AnswerEvent> {
    let channel = event.get("channel").and_then(Value::as_str)?.to_string();
    let subtype = event.get("subtype").and_then(Value::as_str);
    match subtype {
        None | Some("bot_message") | Some("thread_broadcast") => {
            let meta = MessageMeta::of(event);
            watch.watches(&meta).then(|| AnswerEvent::Changed {
                channel,
                message: Box::new(event.clone()),
            })
        }
        Some("message_changed") => {
            let message = event.get("message").filter(|m| m.is_object())?;
            let meta = MessageMeta::of(message);
            let previous = event.get("previous_message").map(MessageMeta::of);
            if meta.is_tombstone() {
                return Some(AnswerEvent::Deleted {
                    channel,
                    ts: meta.ts?,
                });
            }
            let watched =
                watch.watches(&meta) || previous.as_ref().is_some_and(|p| watch.watches(p));
            watched.then(|| AnswerEvent::Changed {
                channel,
                message: Box::new(message.clone()),
            })
        }
        Some("message_deleted") => {
            let ts = event.get("deleted_ts").and_then(Value::as_str)?.to_string();
            let previous = event.get("previous_message").map(MessageMeta::of);
            // Without the previous message nobody can say whose it was: look it up.
            let watched = previous.as_ref().is_none_or(|p| watch.watches(p));
            watched.then_some(AnswerEvent::Deleted { channel, ts })
        }
        Some(_) => None,
    }
}

/// Reads a slash command into a job.
pub fn command_job(command: &SlackCommandEvent) -> Job {
    let reply = Reply::Ephemeral {
        response_url: command.response_url.0.to_string(),
        channel: command.channel_id.0.clone(),
    };
    let text = command
        .text
        .as_deref()
        .unwrap_or_default()
        .trim()
        .to_string();
    if text.is_empty() {
        return Job::Usage { reply };
    }
    let text = match sources_command::parse(&text) {
        Err(error) => {
            return Job::Refuse {
                reply,
                why: error.0,
            }
        }
        Ok(SourcesCommand::Help) => return Job::Usage { reply },
        Ok(SourcesCommand::Check(text)) => text,
        Ok(command_asked) => {
            return Job::Settings {
                command: command_asked,
                user: command.user_id.0.clone(),
                response_url: command.response_url.0.to_string(),
            }
        }
    };
    match lone_permalink(&text) {
        // The bot may be in channels the person is not: it reads links to messages of
        // the channel the command runs in only, so nobody reads a channel through it.
        Some(link) if link.channel != command.channel_id.0 => Job::Refuse {
            reply,
            why: OTHER_CHANNEL.to_string(),
        },
        Some(link) => Job::Check {
            subject: Subject::Permalink(link),
            reply,
        },
        None => Job::Check {
            subject: Subject::Text(text),
            reply,
        },
    }
}

/// Reads an interaction payload (the message shortcut, the share and evidence buttons)
/// into a job.
pub fn interaction_job(payload: &Value) -> Option<Job> {
    let field = |value: &Value, pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    match payload.get("type").and_then(Value::as_str)? {
        "message_action"
            if payload.get("callback_id").and_then(Value::as_str) == Some(SHORTCUT_CALLBACK_ID) =>
        {
            let channel = field(payload, "/channel/id")?;
            let message = payload.get("message").filter(|m| m.is_object())?;
            let meta = MessageMeta::of(message);
            let thread_ts = meta.thread_ts.clone().or(meta.ts.clone())?;
            Some(Job::Check {
                subject: Subject::Message(Box::new(message.clone())),
                reply: Reply::Thread {
                    channel,
                    thread_ts,
                    user: field(payload, "/user/id"),
                    response_url: field(payload, "/response_url"),
                },
            })
        }
        "block_actions" => {
            if let Some(press) = read_feedback_action(payload) {
                return Some(Job::Feedback {
                    press,
                    ephemeral: payload
                        .pointer("/container/is_ephemeral")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                    response_url: field(payload, "/response_url"),
                });
            }
            let actions = payload.get("actions")?.as_array()?;
            actions.iter().find_map(|action| {
                match action.get("action_id").and_then(Value::as_str)? {
                    SHARE_ACTION_ID => Some(Job::Share {
                        key: field(action, "/value")?,
                        response_url: field(payload, "/response_url")?,
                    }),
                    EVIDENCE_ACTION_ID => Some(Job::Evidence {
                        key: field(action, "/value")?,
                        trigger_id: field(payload, "/trigger_id"),
                        response_url: field(payload, "/response_url"),
                        channel: field(payload, "/channel/id")
                            .or_else(|| field(payload, "/container/channel_id")),
                        user: field(payload, "/user/id"),
                    }),
                    EDIT_SETTINGS_ACTION_ID => Some(Job::EditSettings {
                        trigger_id: field(payload, "/trigger_id")?,
                        user: field(payload, "/user/id")?,
                        response_url: field(payload, "/response_url"),
                        channel: field(payload, "/channel/id")
                            .or_else(|| field(payload, "/container/channel_id")),
                    }),
                    _ => None,
                }
            })
        }
        "view_submission"
            if payload.pointer("/view/callback_id").and_then(Value::as_str)
                == Some(WRONG_PART_CALLBACK_ID) =>
        {
            let (locator, wrong, comment) = match read_wrong_part(payload) {
                Ok(read) => read,
                Err(why) => {
                    tracing::warn!(why, "an unreadable feedback modal submission");
                    return None;
                }
            };
            Some(Job::WrongPart {
                user: field(payload, "/user/id")?,
                locator,
                wrong,
                comment,
            })
        }
        _ => None,
    }
}

/// The thread a reply to this message belongs in: its own thread if it is a reply, else
/// a new thread under it.
pub fn thread_of(message: &MessageMeta) -> Option<String> {
    message.thread_ts.clone().or_else(|| message.ts.clone())
}

/// A permalink standing alone (`<https://…/archives/C1/p…>` or bare); `None` for
/// anything else.
pub fn lone_permalink(text: &str) -> Option<Permalink> {
    let trimmed = text.trim().trim_start_matches('<').trim_end_matches('>');
    let link = trimmed.split('|').next().unwrap_or_default();
    if link.contains(char::is_whitespace) {
        return None;
    }
    Permalink::parse(&crate::mrkdwn::decode_entities(link))
}

/// A Slack message permalink: `https://acme.slack.com/archives/C123/p1700000000000100`,
/// optionally `?thread_ts=1700000000.000050`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permalink {
    /// The channel id.
    pub channel: String,
    /// The message's `ts` (`1700000000.000100`).
    pub ts: String,
    /// The thread's parent `ts`, for replies.
    pub thread_ts: Option<String>,
}

/// The file id (`F…`) a Slack file link names: `files.slack.com/files-pri/T…-F…/name`
/// (and `files-tmb`), or `WORKSPACE.slack.com/files/U…/F…/name`; `None` for anything
/// else.
pub fn slack_file_id(link: &str) -> Option<String> {
    let url = url::Url::parse(link).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    if !(host == "slack.com" || host.ends_with(".slack.com")) {
        return None;
    }
    let segments: Vec<&str> = url.path_segments()?.collect();
    let candidate = match segments.as_slice() {
        ["files-pri" | "files-tmb", team_file, ..] if host == "files.slack.com" => {
            team_file.split('-').nth(1)?
        }
        ["files", _user, file, ..] if host != "files.slack.com" => file,
        _ => return None,
    };
    let valid = candidate.len() >= 7
        && candidate.len() <= 24
        && candidate.starts_with('F')
        && candidate
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    valid.then(|| candidate.to_string())
}

impl Permalink {
    /// Reads a permalink; `None` for anything else.
    pub fn parse(link: &str) -> Option<Permalink> {
        let url = url::Url::parse(link).ok()?;
        let host = url.host_str()?;
        if !(host == "slack.com" || host.ends_with(".slack.com")) {
            return None;
        }
        let mut segments = url.path_segments()?;
        if segments.next()? != "archives" {
            return None;
        }
        let channel = segments.next()?.to_string();
        let message = segments.next()?;
        let valid_channel = !channel.is_empty()
            && channel.len() <= 24
            && channel
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
        let digits = message.strip_prefix('p')?;
        if !valid_channel
            || digits.len() < 11
            || digits.len() > 20
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let ts = format!("{}.{}", &digits[..10], &digits[10..]);
        let thread_ts = url
            .query_pairs()
            .find(|(k, _)| k == "thread_ts")
            .map(|(_, v)| v.into_owned())
            .filter(|t| is_ts(t));
        Some(Permalink {
            channel,
            ts,
            thread_ts,
        })
    }
}

/// `1700000000.000100`.
fn is_ts(text: &str) -> bool {
    let mut parts = text.split('.');
    let (Some(secs), Some(frac), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !secs.is_empty()
        && !frac.is_empty()
        && secs.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn watch() -> Watch {
        Watch {
            identity: BotIdentity {
                user_id: "UBOT".into(),
                bot_id: Some("BBOT".into()),
            },
            bot_ids: ["BAI".to_string()].into_iter().collect(),
        }
    }

    #[test]
    fn permalinks_are_read() {
        assert_eq!(
            Permalink::parse("https://acme.slack.com/archives/C04ENG/p1731412345678901"),
            Some(Permalink {
                channel: "C04ENG".into(),
                ts: "1731412345.678901".into(),
                thread_ts: None
            })
        );
        let reply = Permalink::parse(
            "https://acme.slack.com/archives/C1/p1700000000000200?thread_ts=1700000000.000100&cid=C1",
        )
        .expect("reply");
        assert_eq!(reply.thread_ts.as_deref(), Some("1700000000.000100"));
        assert!(lone_permalink("<https://acme.slack.com/archives/C1/p1700000000000200?thread_ts=1700000000.000100&amp;cid=C1>").is_some());
        for not_one in [
            "https://acme.slack.com/archives/C1",
            "https://evil.com/archives/C1/p1700000000000100",
            "https://acme.slack.com/archives/c1/p1700000000000100",
            "https://acme.slack.com/archives/C1/pabc",
            "https://acme.slack.com/files/U1/F1/x.pdf",
            "not a link",
        ] {
            assert_eq!(Permalink::parse(not_one), None, "{not_one}");
        }
    }

    fn mention(text: &str, thread_ts: Option<&str>) -> Value {
        let mut event = json!({"type": "app_mention", "user": "U1", "channel": "C1",
            "ts": "1700000000.000900", "event_ts": "1700000000.000900", "text": text});
        if let Some(thread_ts) = thread_ts {
            event["thread_ts"] = json!(thread_ts);
        }
        event
    }

    fn subject(job: Option<Job>) -> Option<Subject> {
        match job {
            Some(Job::Check { subject, .. }) => Some(subject),
            _ => None,
        }
    }

    #[test]
    fn a_mention_that_cites_nothing_in_a_thread_checks_the_threads_answer() {
        for text in [
            "<@UBOT> sources?",
            "<@UBOT> can you check this?",
            "<@UBOT>",
            "<@UBOT> is [1] right?",
        ] {
            let job = event_job(&mention(text, Some("1700000000.000100")), &watch());
            assert_eq!(
                subject(job),
                Some(Subject::ThreadAnswer {
                    channel: "C1".into(),
                    thread_ts: "1700000000.000100".into(),
                    before_ts: "1700000000.000900".into()
                }),
                "{text}"
            );
        }
    }

    #[test]
    fn a_mention_with_links_checks_its_own_text() {
        let event = mention(
            "<@UBOT> Rust 1.0 shipped in 2015 [1].\n\n[1] https://blog.rust-lang.org/ - Rust",
            Some("1700000000.000100"),
        );
        assert!(matches!(
            subject(event_job(&event, &watch())),
            Some(Subject::Message(_))
        ));
        // Outside a thread, claims alone are checked too; nothing at all gets the usage.
        let claims = mention("<@UBOT> Revenue grew 12% in 2023.", None);
        assert!(matches!(
            subject(event_job(&claims, &watch())),
            Some(Subject::Message(_))
        ));
        let nothing = mention("<@UBOT> hi there", None);
        assert!(matches!(
            event_job(&nothing, &watch()),
            Some(Job::Usage { .. })
        ));
    }

    #[test]
    fn links_to_other_channels_are_refused() {
        let other = mention(
            "<@UBOT> https://acme.slack.com/archives/C2/p1700000000000050",
            None,
        );
        assert!(matches!(
            event_job(&other, &watch()),
            Some(Job::Refuse { .. })
        ));
        let same = mention(
            "<@UBOT> <https://acme.slack.com/archives/C1/p1700000000000050>",
            None,
        );
        assert!(matches!(
            subject(event_job(&same, &watch())),
            Some(Subject::Permalink(_))
        ));
    }

    #[test]
    fn watched_answers_their_edits_and_deletions() {
        let answer = json!({"type": "message", "channel": "C1", "ts": "1.1", "bot_id": "BAI", "text": "Thinking…"});
        assert!(matches!(
            event_job(&answer, &watch()),
            Some(Job::Watched(AnswerEvent::Changed { .. }))
        ));
        let other_bot = json!({"type": "message", "channel": "C1", "ts": "1.1", "bot_id": "BOTHER", "text": "x"});
        assert_eq!(event_job(&other_bot, &watch()), None);
        let own = json!({"type": "message", "channel": "C1", "ts": "1.1", "bot_id": "BBOT", "user": "UBOT", "text": "x"});
        assert_eq!(event_job(&own, &watch()), None);
        let person =
            json!({"type": "message", "channel": "C1", "ts": "1.1", "user": "U1", "text": "x"});
        assert_eq!(event_job(&person, &watch()), None);
        let changed = json!({"type": "message", "subtype": "message_changed", "hidden": true, "channel": "C1", "ts": "1.5",
            "message": {"type": "message", "ts": "1.1", "bot_id": "BAI", "text": "Done", "edited": {"user": "U9", "ts": "1.5"}},
            "previous_message": answer});
        match event_job(&changed, &watch()) {
            Some(Job::Watched(AnswerEvent::Changed { channel, message })) => {
                assert_eq!(channel, "C1");
                assert_eq!(message["text"], "Done");
            }
            other => panic!("{other:?}"),
        }
        let deleted = json!({"type": "message", "subtype": "message_deleted", "hidden": true, "channel": "C1", "ts": "1.6", "deleted_ts": "1.1",
            "previous_message": {"type": "message", "ts": "1.1", "bot_id": "BAI", "text": "Done"}});
        assert_eq!(
            event_job(&deleted, &watch()),
            Some(Job::Watched(AnswerEvent::Deleted {
                channel: "C1".into(),
                ts: "1.1".into()
            }))
        );
        let tombstone = json!({"type": "message", "subtype": "message_changed", "hidden": true, "channel": "C1", "ts": "1.7",
            "message": {"type": "message", "subtype": "tombstone", "text": "This message was deleted.", "ts": "1.1", "thread_ts": "1.1", "hidden": true}});
        assert_eq!(
            event_job(&tombstone, &watch()),
            Some(Job::Watched(AnswerEvent::Deleted {
                channel: "C1".into(),
                ts: "1.1".into()
            }))
        );
        let joined = json!({"type": "message", "subtype": "channel_join", "channel": "C1", "ts": "1.8", "user": "U1", "bot_id": "BAI"});
        assert_eq!(event_job(&joined, &watch()), None);
    }

    #[test]
    fn the_shortcut_checks_the_whole_message() {
        let payload = json!({"type": "message_action", "callback_id": "check_sources",
            "channel": {"id": "C1", "name": "general"}, "user": {"id": "U1"},
            "response_url": "https://hooks.slack.com/x", "message_ts": "1.1",
            "message": {"type": "message", "ts": "1.1", "thread_ts": "1.0", "text": "fallback",
                "attachments": [{"title": "Doc", "title_link": "https://docs.example.com"}]}});
        match interaction_job(&payload) {
            Some(Job::Check {
                subject: Subject::Message(message),
                reply:
                    Reply::Thread {
                        thread_ts,
                        user,
                        response_url,
                        ..
                    },
            }) => {
                assert_eq!(
                    message["attachments"][0]["title_link"],
                    "https://docs.example.com"
                );
                assert_eq!(thread_ts, "1.0");
                assert_eq!(user.as_deref(), Some("U1"));
                assert_eq!(response_url.as_deref(), Some("https://hooks.slack.com/x"));
            }
            other => panic!("{other:?}"),
        }
        let share = json!({"type": "block_actions", "response_url": "https://hooks.slack.com/y",
            "actions": [{"action_id": "share_sources", "value": "k1", "type": "button"}]});
        assert_eq!(
            interaction_job(&share),
            Some(Job::Share {
                key: "k1".into(),
                response_url: "https://hooks.slack.com/y".into()
            })
        );
        let evidence = json!({"type": "block_actions", "trigger_id": "123.456.abc",
            "user": {"id": "U1"}, "container": {"type": "message", "channel_id": "C1"},
            "response_url": "https://hooks.slack.com/z",
            "actions": [{"action_id": "show_evidence", "value": "e1", "type": "button"}]});
        assert_eq!(
            interaction_job(&evidence),
            Some(Job::Evidence {
                key: "e1".into(),
                trigger_id: Some("123.456.abc".into()),
                response_url: Some("https://hooks.slack.com/z".into()),
                channel: Some("C1".into()),
                user: Some("U1".into()),
            })
        );
        let unknown = json!({"type": "block_actions",
            "actions": [{"action_id": "something_else", "value": "x", "type": "button"}]});
        assert_eq!(interaction_job(&unknown), None);
        assert_eq!(interaction_job(&json!({"type": "view_submission"})), None);
    }
}

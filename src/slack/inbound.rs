//! What Slack asks of the bot, read into plain jobs: which text (or which message) to
//! check, and where the answer goes. Events, slash commands and interactions arrive in
//! slack-morphism's models; this module decides what each one means — including what
//! to ignore (the bot's own messages, other bots outside the watch list) — and never
//! touches the network.

use slack_morphism::prelude::*;
use std::collections::HashSet;

/// Who the bot is, from `auth.test` at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotIdentity {
    /// The bot user's id (`U…`): mentions look like `<@U…>`.
    pub user_id: String,
    /// The bot's id (`B…`): messages it posts carry it.
    pub bot_id: Option<String>,
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
    },
}

/// What to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// This text.
    Text(String),
    /// The answer in this thread: the most recent message that is not the bot's and is
    /// not `except_ts` (the mention itself).
    ThreadAnswer {
        /// The channel.
        channel: String,
        /// The thread's parent `ts`.
        thread_ts: String,
        /// The mention's own `ts`.
        except_ts: String,
    },
    /// The message a permalink points at.
    Message(Permalink),
}

/// One piece of work, decided from one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// Check `subject` and post the report to `reply`.
    Check {
        /// What to check.
        subject: Subject,
        /// Where the report goes.
        reply: Reply,
    },
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
}

/// The callback id of the "Check sources" message shortcut.
pub const SHORTCUT_CALLBACK_ID: &str = "check_sources";
/// The action id of the "Share in channel" button.
pub const SHARE_ACTION_ID: &str = "share_sources";

/// The usage text, in mrkdwn.
pub const USAGE: &str = "Hi! I show what an AI answer rests on: its sources, checked and grouped, and the claims that cite nothing.\n\
• *Mention me in a thread* (`@sourcebot`) and I check the thread's answer.\n\
• *Mention me with text* (`@sourcebot <answer>`) and I check that text.\n\
• `/sources <answer text or message link>` checks it privately. Slack does not allow slash commands inside threads: use a mention or the shortcut there.\n\
• *Check sources* in a message's ⋯ menu checks that message.";

/// Reads an Events API callback into a job, or `None` when there is nothing to do.
pub fn event_job(
    event: &SlackEventCallbackBody,
    identity: &BotIdentity,
    watched: &HashSet<String>,
) -> Option<Job> {
    match event {
        SlackEventCallbackBody::AppMention(mention) => mention_job(mention, identity),
        SlackEventCallbackBody::Message(message) => watched_job(message, identity, watched),
        _ => None,
    }
}

fn mention_job(mention: &SlackAppMentionEvent, identity: &BotIdentity) -> Option<Job> {
    if mention.user.0 == identity.user_id {
        return None;
    }
    let channel = mention.channel.0.clone();
    let ts = mention.origin.ts.0.clone();
    let thread_ts = mention.origin.thread_ts.as_ref().map(|t| t.0.clone());
    let user = Some(mention.user.0.clone());
    let text = without_mention(
        mention.content.text.as_deref().unwrap_or_default(),
        identity,
    );
    match thread_ts {
        // In a thread: the thread's answer, unless text was given with the mention.
        Some(thread_ts) if text.is_empty() => Some(Job::Check {
            subject: Subject::ThreadAnswer {
                channel: channel.clone(),
                thread_ts: thread_ts.clone(),
                except_ts: ts,
            },
            reply: Reply::Thread {
                channel,
                thread_ts,
                user,
                response_url: None,
            },
        }),
        thread_ts => {
            let reply = Reply::Thread {
                channel,
                thread_ts: thread_ts.unwrap_or(ts),
                user,
                response_url: None,
            };
            if text.is_empty() {
                return Some(Job::Usage { reply });
            }
            Some(match subject_of(&text) {
                Subject::Message(link) if link.channel != mention.channel.0 => Job::Refuse {
                    reply,
                    why: OTHER_CHANNEL.to_string(),
                },
                subject => Job::Check { subject, reply },
            })
        }
    }
}

/// Why a link to another channel's message is not read.
const OTHER_CHANNEL: &str = "I can only check a message link from this channel (so nobody can read another channel through me). Ask in the message's channel, or use *Check sources* in the message's ⋯ menu.";

/// A message from a watched bot: its sources as a thread reply.
fn watched_job(
    message: &SlackMessageEvent,
    identity: &BotIdentity,
    watched: &HashSet<String>,
) -> Option<Job> {
    let bot_id = message.sender.bot_id.as_ref()?.0.clone();
    if identity.bot_id.as_deref() == Some(bot_id.as_str()) || !watched.contains(&bot_id) {
        return None;
    }
    // Edits, deletions and joins are not answers.
    let subtype = message.subtype.as_ref();
    if subtype.is_some_and(|s| *s != SlackMessageEventType::BotMessage) {
        return None;
    }
    let text = message.content.as_ref()?.text.clone()?;
    if text.trim().is_empty() {
        return None;
    }
    let channel = message.origin.channel.as_ref()?.0.clone();
    let thread_ts = thread_of(&message.origin);
    Some(Job::Check {
        subject: Subject::Text(text),
        reply: Reply::Thread {
            channel,
            thread_ts,
            user: None,
            response_url: None,
        },
    })
}

/// Reads a slash command into a job.
pub fn command_job(command: &SlackCommandEvent) -> Job {
    let reply = Reply::Ephemeral {
        response_url: command.response_url.0.to_string(),
    };
    let text = command
        .text
        .as_deref()
        .unwrap_or_default()
        .trim()
        .to_string();
    if text.is_empty() || text.eq_ignore_ascii_case("help") {
        return Job::Usage { reply };
    }
    match subject_of(&text) {
        // The bot may be in channels the person is not: it reads links to messages of
        // the channel the command runs in only, so nobody reads a channel through it.
        Subject::Message(link) if link.channel != command.channel_id.0 => Job::Refuse {
            reply,
            why: OTHER_CHANNEL.to_string(),
        },
        subject => Job::Check { subject, reply },
    }
}

/// Reads an interaction (the message shortcut, the share button) into a job.
pub fn interaction_job(interaction: &SlackInteractionEvent) -> Option<Job> {
    match interaction {
        SlackInteractionEvent::MessageAction(action)
            if action.callback_id.0 == SHORTCUT_CALLBACK_ID =>
        {
            let channel = action.channel.as_ref()?.id.0.clone();
            let message = action.message.as_ref()?;
            let thread_ts = thread_of(&message.origin);
            let reply = Reply::Thread {
                channel,
                thread_ts,
                user: Some(action.user.id.0.clone()),
                response_url: Some(action.response_url.0.to_string()),
            };
            let text = message.content.text.clone().unwrap_or_default();
            if text.trim().is_empty() {
                Some(Job::Usage { reply })
            } else {
                Some(Job::Check {
                    subject: Subject::Text(text),
                    reply,
                })
            }
        }
        SlackInteractionEvent::BlockActions(actions) => {
            let share = actions
                .actions
                .as_ref()?
                .iter()
                .find(|a| a.action_id.0 == SHARE_ACTION_ID)?;
            Some(Job::Share {
                key: share.value.clone()?,
                response_url: actions.response_url.as_ref()?.0.to_string(),
            })
        }
        _ => None,
    }
}

/// The text with the bot's mention (`<@UBOT>` or `<@UBOT|name>`) taken out, trimmed.
pub fn without_mention(text: &str, identity: &BotIdentity) -> String {
    let plain = format!("<@{}>", identity.user_id);
    let named = format!("<@{}|", identity.user_id);
    let mut rest = text.replace(&plain, " ");
    while let Some(start) = rest.find(&named) {
        let end = rest[start..]
            .find('>')
            .map(|i| start + i + 1)
            .unwrap_or(rest.len());
        rest.replace_range(start..end, " ");
    }
    rest.trim().to_string()
}

/// The thread a reply to this message belongs in: its own thread if it is a reply, else
/// a new thread under it.
fn thread_of(origin: &SlackMessageOrigin) -> String {
    origin
        .thread_ts
        .as_ref()
        .map(|t| t.0.clone())
        .unwrap_or_else(|| origin.ts.0.clone())
}

/// A permalink alone is a message to fetch; anything else is text to check.
fn subject_of(text: &str) -> Subject {
    let trimmed = text.trim().trim_start_matches('<').trim_end_matches('>');
    let link = trimmed.split('|').next().unwrap_or_default();
    match Permalink::parse(link) {
        Some(permalink) if !link.contains(char::is_whitespace) => Subject::Message(permalink),
        _ => Subject::Text(text.to_string()),
    }
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

    fn identity() -> BotIdentity {
        BotIdentity {
            user_id: "UBOT".into(),
            bot_id: Some("BBOT".into()),
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

    #[test]
    fn mentions_are_taken_out() {
        let id = identity();
        assert_eq!(without_mention("<@UBOT> check this", &id), "check this");
        assert_eq!(without_mention("<@UBOT|sourcebot>", &id), "");
        assert_eq!(
            without_mention("hey <@UBOT> and <@UOTHER>", &id),
            "hey   and <@UOTHER>"
        );
    }

    #[test]
    fn links_to_other_channels_are_refused() {
        let mention: SlackAppMentionEvent = serde_json::from_value(serde_json::json!({
            "type": "app_mention", "user": "U1", "channel": "C1", "ts": "1700000000.000100",
            "text": "<@UBOT> https://acme.slack.com/archives/C2/p1700000000000050",
        }))
        .expect("mention");
        assert!(matches!(
            mention_job(&mention, &identity()),
            Some(Job::Refuse { .. })
        ));
        let same: SlackAppMentionEvent = serde_json::from_value(serde_json::json!({
            "type": "app_mention", "user": "U1", "channel": "C1", "ts": "1700000000.000100",
            "text": "<@UBOT> https://acme.slack.com/archives/C1/p1700000000000050",
        }))
        .expect("mention");
        assert!(matches!(
            mention_job(&same, &identity()),
            Some(Job::Check {
                subject: Subject::Message(_),
                ..
            })
        ));
    }

    #[test]
    fn a_lone_permalink_is_a_message_and_text_is_text() {
        assert!(matches!(
            subject_of("<https://acme.slack.com/archives/C1/p1700000000000100>"),
            Subject::Message(_)
        ));
        assert!(matches!(
            subject_of("see https://acme.slack.com/archives/C1/p1700000000000100 for more"),
            Subject::Text(_)
        ));
    }
}

//! What the text after `/sources` asks for. `watch @Assistant` and `unwatch @Assistant`
//! take exactly one user mention, as Slack sends it in a slash command's text when
//! "Escape channels, users, and links" is on (`<@U123ABC>` or `<@U123ABC|name>`);
//! `settings` and `help` stand alone; everything else is an answer, a permalink or
//! nothing, and is checked as before. A malformed `watch` is a [`CommandError`] with a
//! sentence for the person who typed it. Pure: no network, no state.

use crate::mrkdwn::{angle, Angle};
use crate::render::escape::escape_within;

/// The help text `/sources help` answers with (mrkdwn).
pub const HELP: &str = "*sourcebot* checks the sources an AI answer cites.\n\
• `/sources <answer or message link>`: check an answer now (only you see the result, with a button to share it).\n\
• `/sources watch @Assistant`: check every answer that assistant posts in channels I am in.\n\
• `/sources unwatch @Assistant`: stop checking that assistant's answers on their own.\n\
• `/sources settings`: see this workspace's settings (admins can change them).\n\
• `/sources help`: this text.\n\
• *Check sources* in a message's ⋯ menu checks that message.\n\
Slack does not allow slash commands inside threads: there, mention me (`@sourcebot`) and I check the thread's answer, or mention me with links to check that text.";

/// The form a `watch` or `unwatch` takes, shown in errors.
const WATCH_FORM: &str = "`/sources watch @Assistant`";

/// At most this many characters of what the person typed are quoted back in an error.
const QUOTED_MAX: usize = 60;

/// One user mention as a slash command's text carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The user id (`U…` or `W…`), checked to be an id and nothing else.
    pub user_id: String,
    /// The name Slack put after the `|`, when it did (untrusted: escape before showing).
    pub name: Option<String>,
}

/// What `/sources …` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourcesCommand {
    /// Start checking this assistant's answers on their own.
    Watch(Mention),
    /// Stop checking this assistant's answers on their own.
    Unwatch(Mention),
    /// Show the workspace's settings.
    Settings,
    /// Show [`HELP`].
    Help,
    /// Check this text (an answer, a permalink, or nothing), exactly as given.
    Check(String),
}

/// Why a `/sources` text could not be read: one sentence for the person who typed it
/// (mrkdwn; anything quoted from the input is escaped).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CommandError(pub String);

/// Reads the text after `/sources`. The first word chooses the subcommand
/// (case-insensitive); a text that is not one of them, including the empty text and
/// words that merely start like one (`watched …`), is [`SourcesCommand::Check`] with
/// the text unchanged.
pub fn parse(text: &str) -> Result<SourcesCommand, CommandError> {
    let trimmed = text.trim();
    let (word, rest) = match trimmed.find(char::is_whitespace) {
        Some(at) => (&trimmed[..at], trimmed[at..].trim()),
        None => (trimmed, ""),
    };
    let word = word.to_ascii_lowercase();
    match (word.as_str(), rest.is_empty()) {
        ("watch", _) => mention(rest, "watch").map(SourcesCommand::Watch),
        ("unwatch", _) => mention(rest, "unwatch").map(SourcesCommand::Unwatch),
        ("settings", true) => Ok(SourcesCommand::Settings),
        ("help", true) => Ok(SourcesCommand::Help),
        _ => Ok(SourcesCommand::Check(text.to_string())),
    }
}

/// Reads exactly one user mention from `rest`, the text after `watch`/`unwatch`.
fn mention(rest: &str, verb: &str) -> Result<Mention, CommandError> {
    let form = |why: String| {
        CommandError(format!("{why} Write it like this: {WATCH_FORM}, picking the assistant from the list Slack offers when you type `@`."))
    };
    if rest.is_empty() {
        return Err(form(format!("`{verb}` needs the assistant to {verb}.")));
    }
    let quoted = escape_within(rest, QUOTED_MAX);
    let Some(inner) = rest.strip_prefix('<').filter(|i| i.starts_with('@')) else {
        return Err(form(format!(
            "“{quoted}” is not a mention of a user, so I cannot tell which assistant to {verb}."
        )));
    };
    let Some(end) = inner.find('>') else {
        return Err(form(format!("“{quoted}” is not a complete mention.")));
    };
    if !inner[end + 1..].trim().is_empty() {
        return Err(form(format!("I can {verb} one assistant at a time.")));
    }
    let Angle::User { id, label: name } = angle(&inner[..end]) else {
        return Err(form(format!("“{quoted}” is not a mention of a user.")));
    };
    if !is_user_id(id) {
        return Err(form(format!("“{quoted}” is not a mention of a user.")));
    }
    Ok(Mention {
        user_id: id.to_string(),
        name: name
            .filter(|n| !n.trim().is_empty())
            .map(|n| n.trim().to_string()),
    })
}

/// Whether `id` looks like a Slack user id: `U` or `W` and at least two more upper-case
/// letters or digits.
fn is_user_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some('U' | 'W'))
        && id.len() >= 3
        && id.len() <= 32
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch(id: &str, name: Option<&str>) -> SourcesCommand {
        SourcesCommand::Watch(Mention {
            user_id: id.to_string(),
            name: name.map(str::to_string),
        })
    }

    #[test]
    fn watch_and_unwatch_take_one_mention_as_slack_sends_it() {
        assert_eq!(parse("watch <@U123ABC>"), Ok(watch("U123ABC", None)));
        assert_eq!(
            parse("  WATCH   <@U123ABC|gleanbot>  "),
            Ok(watch("U123ABC", Some("gleanbot")))
        );
        assert_eq!(
            parse("watch <@W0ENTERPRISE|Ask AI>"),
            Ok(watch("W0ENTERPRISE", Some("Ask AI")))
        );
        assert_eq!(
            parse("Unwatch <@U99>  "),
            Ok(SourcesCommand::Unwatch(Mention {
                user_id: "U99".into(),
                name: None
            }))
        );
    }

    #[test]
    fn malformed_mentions_are_errors_that_show_the_form() {
        for text in [
            "watch",
            "watch bob",
            "watch @bob",
            "watch <#C1|x>",
            "watch <@U1> <@U2>",
            "watch <@U123ABC> please",
            "unwatch <@u123abc>",
            "watch <@U123ABC",
            "watch <!channel>",
            "unwatch <@B123ABC>",
        ] {
            let error = parse(text).expect_err(text);
            assert!(error.0.contains(WATCH_FORM), "{text}: {}", error.0);
        }
        assert!(parse("watch <@U1> <@U2>")
            .unwrap_err()
            .0
            .contains("one assistant at a time"));
    }

    #[test]
    fn errors_never_echo_markup() {
        let error = parse("watch <!channel> <@U1>").unwrap_err().0;
        assert!(!error.contains("<!channel>"), "{error}");
        assert!(error.contains("&lt;!channel&gt;"), "{error}");
        let error = parse(&format!("watch {}", "<".repeat(10_000)))
            .unwrap_err()
            .0;
        assert!(error.len() < 1_000);
    }

    #[test]
    fn settings_and_help_stand_alone() {
        assert_eq!(parse("settings"), Ok(SourcesCommand::Settings));
        assert_eq!(parse(" Help "), Ok(SourcesCommand::Help));
        assert_eq!(
            parse("settings please"),
            Ok(SourcesCommand::Check("settings please".into()))
        );
    }

    #[test]
    fn everything_else_is_checked_as_given() {
        for text in [
            "",
            "watched answers are great [1]\n[1] https://example.org",
            "watchful",
            "https://acme.slack.com/archives/C1/p1700000000000100",
            "Help me understand https://example.org",
        ] {
            assert_eq!(parse(text), Ok(SourcesCommand::Check(text.to_string())));
        }
    }

    #[test]
    fn help_is_short_mrkdwn_naming_every_subcommand() {
        for word in ["watch", "unwatch", "settings", "help"] {
            assert!(HELP.contains(&format!("/sources {word}")), "{word}");
        }
        assert!(HELP.len() < 1_000);
    }
}

//! Slack's mrkdwn rules in one place, for the code that reads Slack text (the collector's
//! scanner, the Slack message reader) and the code that writes it (the renderers).
//!
//! - Slack escapes exactly three characters in message text: `&` as `&amp;`, `<` as
//!   `&lt;`, `>` as `&gt;`. [`escape_text`] writes them and [`decode_entities`] reads
//!   them back, once: `&amp;lt;` decodes to `&lt;`, not to `<`.
//! - Everything between `<` and `>` is a control sequence ([`angle`]): a link
//!   `<url|label>` or `<url>`, a user `<@U…>`, a channel `<#C…|name>`, a user group
//!   `<!subteam^S…|@name>`, a broadcast `<!here>`, a date `<!date^…|fallback>`. The URL of
//!   a link ends at the first `|`; [`link_url`] encodes a URL so that it stays one.

/// Characters that are invisible or reorder text: zero-width spaces and joiners,
/// directional marks, embeddings, overrides and isolates, the word joiner and the
/// byte-order mark.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// Escapes `&`, `<` and `>` as `&amp;`, `&lt;` and `&gt;`, and nothing else.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Decodes the three entities Slack writes (`&amp;`, `&lt;`, `&gt;`) exactly once, left
/// to right: `&amp;lt;` becomes `&lt;`. Any other `&` is kept as it is.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let (decoded, len) = if tail.starts_with("&amp;") {
            ('&', 5)
        } else if tail.starts_with("&lt;") {
            ('<', 4)
        } else if tail.starts_with("&gt;") {
            ('>', 4)
        } else {
            ('&', 1)
        };
        out.push(decoded);
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// Appends the UTF-8 bytes of `c` percent-encoded (`%0A`, `%E2%80%AE`…).
fn push_percent_encoded(out: &mut String, c: char) {
    let mut buf = [0u8; 4];
    for b in c.encode_utf8(&mut buf).bytes() {
        out.push_str(&format!("%{b:02X}"));
    }
}

/// A URL made safe to stand inside `<…|…>`: `|`, `<`, `>`, `"`, whitespace, control
/// characters and zero-width or bidi characters are percent-encoded (`|` → `%7C`,
/// space → `%20`…), `&` is written `&amp;`, and everything else (including existing
/// `%xx` escapes and other non-ASCII text) is left as it is. Reading it back with
/// [`decode_entities`] gives the URL with only those characters encoded.
pub fn link_url(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '|' | '<' | '>' | '"' => push_percent_encoded(&mut out, c),
            c if c.is_whitespace() || c.is_control() || is_invisible(c) => {
                push_percent_encoded(&mut out, c)
            }
            c => out.push(c),
        }
    }
    out
}

/// What a `<…>` control sequence in mrkdwn stands for. Strings are as written (not
/// decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Angle<'a> {
    /// `<url>` or `<url|label>` (any scheme: `https:`, `mailto:`…).
    Link {
        /// The URL.
        url: &'a str,
        /// The label, if given.
        label: Option<&'a str>,
    },
    /// `<@U123>` or `<@U123|name>`: a user (or bot user) mention.
    User {
        /// The user id.
        id: &'a str,
        /// The name Slack sent along, if any.
        label: Option<&'a str>,
    },
    /// `<#C123>` or `<#C123|general>`: a channel.
    Channel {
        /// The channel id.
        id: &'a str,
        /// The channel name, if given.
        label: Option<&'a str>,
    },
    /// `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^S123|@team>`,
    /// `<!date^1392734382^{date}|Feb 18>`: a special command.
    Special {
        /// What follows `!`, up to `|` (`here`, `subteam^S123`, `date^…`).
        command: &'a str,
        /// The text after `|`, if any (a user group's handle, a date's fallback).
        label: Option<&'a str>,
    },
}

impl Angle<'_> {
    /// The words a person sees for it, for a mention, channel or command (`@name`,
    /// `#general`, `@here`, a date's fallback); `None` for a link.
    pub fn shown(&self) -> Option<String> {
        fn label(l: Option<&str>) -> Option<&str> {
            l.map(str::trim).filter(|l| !l.is_empty())
        }
        match *self {
            Angle::Link { .. } => None,
            Angle::User { id, label: l } => Some(match label(l) {
                Some(name) => format!("@{}", name.trim_start_matches('@')),
                None => format!("@{id}"),
            }),
            Angle::Channel { id, label: l } => Some(match label(l) {
                Some(name) => format!("#{}", name.trim_start_matches('#')),
                None => format!("#{id}"),
            }),
            Angle::Special { command, label: l } => Some(match label(l) {
                Some(text) => text.to_string(),
                None => match command {
                    "here" | "channel" | "everyone" => format!("@{command}"),
                    other => match date_command(other) {
                        Some(shown) => shown,
                        None => other
                            .split_once('^')
                            .map_or(other, |(_, rest)| rest)
                            .to_string(),
                    },
                },
            }),
        }
    }
}

/// Whether `content` (what stands between `<` and `>`) is one of Slack's mentions or
/// commands: `@` or `#` and an id (`@U0123|ada`, `#C0123`), or `!` and one of `here`,
/// `channel`, `everyone`, `subteam^…`, `date^…`. Other text in angle brackets that
/// starts with those characters (`<!-- a comment -->`, `<#fff>`…) is not.
pub fn is_control_sequence(content: &str) -> bool {
    let head = content.split('|').next().unwrap_or_default();
    if let Some(id) = head.strip_prefix('@').or_else(|| head.strip_prefix('#')) {
        return !id.is_empty()
            && id.len() <= 64
            && id.bytes().all(|b| b.is_ascii_alphanumeric())
            && id
                .bytes()
                .any(|b| b.is_ascii_digit() || b.is_ascii_uppercase());
    }
    match head.strip_prefix('!') {
        Some("here" | "channel" | "everyone") => true,
        Some(command) => command.starts_with("subteam^") || command.starts_with("date^"),
        None => false,
    }
}

/// `date^1392734382^{date_short} at {time}` (the command of a `<!date^…>` without a
/// fallback) as Slack shows it, in UTC: never the raw epoch seconds. `None` when it is
/// not a date command or its timestamp is not a number.
fn date_command(command: &str) -> Option<String> {
    let mut parts = command.strip_prefix("date^")?.split('^');
    let timestamp: i64 = parts.next()?.trim().parse().ok()?;
    let format = parts.next().unwrap_or(DEFAULT_DATE_FORMAT);
    Some(format_slack_date(timestamp, format))
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// How a date without a format of its own is written (`Feb 18, 2014`).
pub const DEFAULT_DATE_FORMAT: &str = "{date_short}";

/// Timestamps formatted at most: about ±10,000 years either side of 1970.
const MAX_DATE_SECONDS: i64 = 315_537_897_599;

/// A Unix `timestamp` written with Slack's date tokens (`{date_num}` 2014-02-18,
/// `{date_slash}` 02/18/2014, `{date}` February 18th, 2014, `{date_short}` Feb 18, 2014,
/// `{date_long}` Tuesday, February 18th, 2014, their `_pretty` forms, `{time}` 6:39 AM,
/// `{time_secs}` 6:39:42 AM, `{ago}`), in UTC: a reader of a message cannot know the
/// viewer's time zone, and "today" depends on when it is read, so the `_pretty` forms
/// and `{ago}` are written as dates. Other text in `format` is kept as it is.
pub fn format_slack_date(timestamp: i64, format: &str) -> String {
    let timestamp = timestamp.clamp(-MAX_DATE_SECONDS, MAX_DATE_SECONDS);
    let days = timestamp.div_euclid(86_400);
    let seconds = timestamp.rem_euclid(86_400);
    let (year, month, day) = crate::calendar::civil_from_days(days);
    let month_name = MONTHS[(month - 1) as usize];
    let weekday = WEEKDAYS[(days + 4).rem_euclid(7) as usize];
    let ordinal = format!("{day}{}", ordinal_suffix(day));
    let (hour, minute, second) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    let (hour12, meridiem) = match hour {
        0 => (12, "AM"),
        1..=11 => (hour, "AM"),
        12 => (12, "PM"),
        _ => (hour - 12, "PM"),
    };
    let date = format!("{month_name} {ordinal}, {year}");
    let date_long = format!("{weekday}, {date}");
    let date_short = format!("{} {day}, {year}", &month_name[..3]);
    let mut out = String::with_capacity(format.len() + 16);
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let Some(close) = after.find('}') else {
            rest = after;
            break;
        };
        let token = &after[1..close];
        match token {
            "date_num" => out.push_str(&format!("{year:04}-{month:02}-{day:02}")),
            "date_slash" => out.push_str(&format!("{month:02}/{day:02}/{year:04}")),
            "date" | "date_pretty" | "ago" | "day_divider_pretty" => out.push_str(&date),
            "date_short" | "date_short_pretty" => out.push_str(&date_short),
            "date_long" | "date_long_pretty" | "date_long_full" => out.push_str(&date_long),
            "time" => out.push_str(&format!("{hour12}:{minute:02} {meridiem}")),
            "time_secs" => out.push_str(&format!("{hour12}:{minute:02}:{second:02} {meridiem}")),
            _ => out.push_str(&after[..=close]),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// `st`, `nd`, `rd` or `th` for a day of the month.
fn ordinal_suffix(day: u32) -> &'static str {
    match (day % 10, day % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

/// Reads the content of a `<…>` sequence (without the brackets).
pub fn angle(content: &str) -> Angle<'_> {
    let (head, label) = match content.split_once('|') {
        Some((head, label)) => (head, Some(label)),
        None => (content, None),
    };
    if let Some(id) = head.strip_prefix('@') {
        return Angle::User { id, label };
    }
    if let Some(id) = head.strip_prefix('#') {
        return Angle::Channel { id, label };
    }
    if let Some(command) = head.strip_prefix('!') {
        return Angle::Special { command, label };
    }
    Angle::Link { url: head, label }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_slack_shows_them_never_as_epoch_seconds() {
        // Slack's reference example: 1392734382 is Tuesday, February 18th, 2014, 14:39:42 UTC.
        let ts = 1_392_734_382;
        assert_eq!(format_slack_date(ts, "{date_num}"), "2014-02-18");
        assert_eq!(format_slack_date(ts, "{date_slash}"), "02/18/2014");
        assert_eq!(format_slack_date(ts, "{date}"), "February 18th, 2014");
        assert_eq!(format_slack_date(ts, "{date_short}"), "Feb 18, 2014");
        assert_eq!(
            format_slack_date(ts, "{date_long} at {time}"),
            "Tuesday, February 18th, 2014 at 2:39 PM"
        );
        assert_eq!(format_slack_date(ts, "{time_secs}"), "2:39:42 PM");
        assert_eq!(
            format_slack_date(0, "{date_num} {time}"),
            "1970-01-01 12:00 AM"
        );
        assert_eq!(
            format_slack_date(951_782_400, "{date}"),
            "February 29th, 2000"
        );
        assert_eq!(format_slack_date(-86_400, "{date_num}"), "1969-12-31");
        assert_eq!(
            format_slack_date(ts, "{unknown} {date_num"),
            "{unknown} {date_num"
        );
        for day in [1u32, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31] {
            let expected = match day {
                1 | 21 | 31 => "st",
                2 | 22 => "nd",
                3 | 23 => "rd",
                _ => "th",
            };
            assert_eq!(ordinal_suffix(day), expected, "{day}");
        }
        // Out-of-range timestamps are clamped, not a panic.
        assert!(!format_slack_date(i64::MAX, "{date}").is_empty());
        assert!(!format_slack_date(i64::MIN, "{date}").is_empty());
        assert_eq!(
            angle("!date^1392734382^{date_num}").shown().as_deref(),
            Some("2014-02-18")
        );
        assert_eq!(
            angle("!date^1392734382^{date_num}|Feb 18")
                .shown()
                .as_deref(),
            Some("Feb 18")
        );
    }

    #[test]
    fn control_sequences_are_told_from_other_angle_text() {
        for yes in [
            "@U0123",
            "@U0123|ada",
            "#C0123|general",
            "!here",
            "!channel|channel",
            "!subteam^S1|@ops",
            "!date^1^{date}|x",
        ] {
            assert!(is_control_sequence(yes), "{yes}");
        }
        for no in [
            "!-- comment --",
            "#fff",
            "@",
            "@ada smith",
            "!important",
            "#",
            "b",
        ] {
            assert!(!is_control_sequence(no), "{no}");
        }
    }

    #[test]
    fn entities_are_decoded_once() {
        assert_eq!(decode_entities("a &amp; b &lt;c&gt;"), "a & b <c>");
        assert_eq!(decode_entities("&amp;lt;"), "&lt;");
        assert_eq!(decode_entities("&amp;amp;"), "&amp;");
        assert_eq!(decode_entities("AT&T &copy; &"), "AT&T &copy; &");
        assert_eq!(decode_entities(&escape_text("<a> & <b>")), "<a> & <b>");
    }

    #[test]
    fn control_sequences_are_read() {
        assert_eq!(
            angle("https://a.com/x?a=1&amp;b=2|A &amp; B"),
            Angle::Link {
                url: "https://a.com/x?a=1&amp;b=2",
                label: Some("A &amp; B")
            }
        );
        assert_eq!(angle("@U123").shown().as_deref(), Some("@U123"));
        assert_eq!(angle("@U123|ada").shown().as_deref(), Some("@ada"));
        assert_eq!(angle("#C1|general").shown().as_deref(), Some("#general"));
        assert_eq!(angle("#C1").shown().as_deref(), Some("#C1"));
        assert_eq!(angle("!here").shown().as_deref(), Some("@here"));
        assert_eq!(angle("!channel").shown().as_deref(), Some("@channel"));
        assert_eq!(
            angle("!subteam^S1|@oncall").shown().as_deref(),
            Some("@oncall")
        );
        assert_eq!(angle("!subteam^S1").shown().as_deref(), Some("S1"));
        assert_eq!(
            angle("!date^1392734382^{date_short}|Feb 18, 2014")
                .shown()
                .as_deref(),
            Some("Feb 18, 2014")
        );
        assert_eq!(angle("mailto:a@b.com|mail").shown(), None);
    }

    #[test]
    fn link_urls_stay_one_url() {
        assert_eq!(
            link_url("https://a.com/x|y z&q"),
            "https://a.com/x%7Cy%20z&amp;q"
        );
    }
}

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
                    other => other
                        .split_once('^')
                        .map_or(other, |(_, rest)| rest)
                        .to_string(),
                },
            }),
        }
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

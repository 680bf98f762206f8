//! Escaping untrusted text for Slack mrkdwn. Titles, snippets, URLs, claim text and
//! warnings all come from the answer or from the web, so before they reach Slack they
//! go through these functions: text escapes exactly `&`, `<` and `>` (Slack's rule;
//! nothing else, since `&#39;` would show literally), labels are also put on one line
//! and stripped of control, zero-width and bidi characters, and URLs percent-encode the
//! characters that would end or break a `<url|label>` link. With `<` and `>` escaped in
//! every untrusted string, no source can produce a mention (`<!channel>`, `<@U…>`,
//! `<#C…>`), a nested link or a second link.

pub use crate::mrkdwn::{escape_text, is_invisible, link_url};

/// Puts text on one line for display: every run of whitespace (newlines, tabs,
/// no-break spaces…) becomes one space, control characters and zero-width or bidi
/// characters are removed, and the ends are trimmed. Not escaped.
pub fn clean_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            pending_space = true;
        } else if !(c.is_control() || is_invisible(c)) {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        }
    }
    out
}

/// Cuts `s` to its first `max_chars` characters (not bytes), trims the space before
/// the cut and appends `…`; `s` unchanged when it is not longer than that or when
/// `max_chars` is 0 (no limit). The result has at most `max_chars + 1` characters.
pub fn cut_chars(s: &str, max_chars: usize) -> String {
    if max_chars == 0 {
        return s.to_string();
    }
    match s.char_indices().nth(max_chars) {
        Some((byte, _)) => format!("{}…", s[..byte].trim_end()),
        None => s.to_string(),
    }
}

/// A safe link label: cleaned ([`clean_text`]), cut to `max_chars` characters
/// ([`cut_chars`]; 0 means no cut) and escaped ([`escape_text`]). A `|` is kept as
/// it is: Slack ends the URL at the first `|`, so later ones belong to the label.
/// `"link"` when nothing is left after cleaning.
pub fn link_label(s: &str, max_chars: usize) -> String {
    let cleaned = cut_chars(&clean_text(s), max_chars);
    if cleaned.is_empty() {
        "link".to_string()
    } else {
        escape_text(&cleaned)
    }
}

/// The length of the scheme prefix when `s` starts with `http://` or `https://`
/// (in any case).
fn http_scheme_len(s: &str) -> Option<usize> {
    ["https://", "http://"].iter().find_map(|scheme| {
        s.get(..scheme.len())
            .filter(|p| p.eq_ignore_ascii_case(scheme))
            .map(|_| scheme.len())
    })
}

/// The host (with its port, if any, and without user info) of an http or https URL;
/// `None` for other URLs or when the host is empty.
pub fn url_host(s: &str) -> Option<&str> {
    let rest = &s[http_scheme_len(s)?..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit('@').next().unwrap_or(authority);
    (!host.is_empty()).then_some(host)
}

/// Whether `s` may be rendered as a link: an `http://` or `https://` URL with a host.
/// Anything else (`javascript:`, `mailto:`, relative paths) is only ever shown as text.
pub fn is_http_url(s: &str) -> bool {
    url_host(s).is_some()
}

/// A complete link `<{link_url}|{label}>`. The label is the cleaned, cut and escaped
/// `label`, or the URL's host when nothing is left of it, or `"link"`. When `url` is
/// not an http or https URL there is no link at all: the escaped label followed by the
/// escaped URL text (cut to 100 characters) in parentheses.
pub fn link(url: &str, label: &str, max_chars: usize) -> String {
    let mut shown = cut_chars(&clean_text(label), max_chars);
    if !is_http_url(url) {
        let url_text = escape_text(&cut_chars(&clean_text(url), 100));
        return match (shown.is_empty(), url_text.is_empty()) {
            (true, true) => "link".to_string(),
            (true, false) => url_text,
            (false, true) => escape_text(&shown),
            (false, false) => format!("{} ({url_text})", escape_text(&shown)),
        };
    }
    if shown.is_empty() {
        shown = cut_chars(&clean_text(url_host(url).unwrap_or("")), max_chars);
    }
    if shown.is_empty() {
        shown = "link".to_string();
    }
    format!("<{}|{}>", link_url(url), escape_text(&shown))
}

/// `s` cleaned ([`clean_text`]) and escaped ([`escape_text`]), cut so that the result is
/// at most `max_len` UTF-16 code units (as Slack counts) with its `…`: the cut never
/// splits an entity such as `&amp;`, so an escaped text stays whole however hostile the
/// input. Empty when nothing is left after cleaning.
pub fn escape_within(s: &str, max_len: usize) -> String {
    let cleaned = clean_text(s);
    let escaped = escape_text(&cleaned);
    if escaped.encode_utf16().count() <= max_len {
        return escaped;
    }
    let budget = max_len.saturating_sub(1);
    let mut out = String::new();
    let mut len = 0;
    for c in cleaned.chars() {
        let piece: &str = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            _ => "",
        };
        let piece_len = if piece.is_empty() {
            c.len_utf16()
        } else {
            piece.len()
        };
        if len + piece_len > budget {
            break;
        }
        if piece.is_empty() {
            out.push(c);
        } else {
            out.push_str(piece);
        }
        len += piece_len;
    }
    let mut out = out.trim_end().to_string();
    if max_len > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_within_a_length_never_splits_an_entity() {
        assert_eq!(escape_within("a <b> & c", 100), "a &lt;b&gt; &amp; c");
        let cut = escape_within(&"&".repeat(1_000), 12);
        assert_eq!(cut, "&amp;&amp;…");
        assert!(cut.encode_utf16().count() <= 12);
        let cut = escape_within("<@U1> ping", 6);
        assert_eq!(cut, "&lt;@…");
        assert_eq!(escape_within("  \u{202e}\n ", 10), "");
        // Characters outside the BMP count twice, as Slack counts them.
        assert!(escape_within(&"😀".repeat(100), 11).encode_utf16().count() <= 11);
    }
}

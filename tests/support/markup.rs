//! What a claim's text must not hold: link markup as written (a claim is the text a
//! person reads). Shared by the property tests and the Slack message corpus test.

/// Whether `text` holds Slack or Markdown link markup, or a Slack mention as written.
pub fn has_link_markup(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    if lower.contains("<http") || lower.contains("<www.") {
        return Some("a Slack link");
    }
    if text.contains("](") {
        return Some("a Markdown link");
    }
    if text.contains("<@") || text.contains("<#") || text.contains("<!") {
        return Some("a Slack mention or command");
    }
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        match after.find('>') {
            Some(close) if after[..close].contains('|') => return Some("a <…|…> sequence"),
            _ => rest = after,
        }
    }
    None
}

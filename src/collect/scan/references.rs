//! Reference lines: the headings that open a reference list, and each line under them
//! or anywhere else that defines a source — `[1]: url "Title"`, `[1] Title - url`,
//! `2. Title — url` — read into a numbered or labelled [`RefEntry`].

use super::*;

/// The text of a Markdown ATX heading line (`## References` → `References`).
pub(super) fn heading_text(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    if hashes == 0 || hashes > 6 {
        return None;
    }
    let rest = &trimmed[hashes..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some(rest.trim())
}

/// Longest line looked at as a possible "References" heading.
pub(super) const MAX_HEADING_BYTES: usize = 64;

/// Headings that open a reference list, in the languages the corpora use.
pub(super) const REFERENCE_HEADINGS: [&str; 14] = [
    "references",
    "reference",
    "sources",
    "source",
    "citations",
    "bibliography",
    "works cited",
    "further reading",
    "links",
    "参考文献",
    "参考资料",
    "参考来源",
    "来源",
    "引用",
];

/// Whether a line (heading text or a line on its own such as `**Sources:**`) names a
/// reference list.
pub(super) fn is_reference_heading(line: &str) -> bool {
    let core = line
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '_' | '#' | ' ' | ':' | '：'))
        .trim();
    core.len() <= 40
        && REFERENCE_HEADINGS
            .iter()
            .any(|h| core.eq_ignore_ascii_case(h))
}

/// Parses a reference-list line or a reference definition spanning `start..end` of `text`.
pub(super) fn parse_ref_line(
    text: &str,
    start: usize,
    end: usize,
    in_reference_section: bool,
) -> Option<RefEntry> {
    let line = &text[start..end];
    let body = strip_bullet(line.trim_start());
    let first = *body.as_bytes().first()?;
    let (id, rest, is_definition) = if first == b'[' {
        let (label, after) = bracket_content(body, 0)?;
        let label = label.trim();
        let label = label.strip_prefix('^').unwrap_or(label);
        let after_text = &body[after..];
        if let Some(def) = after_text.strip_prefix(':') {
            (ref_id(label), def, true)
        } else {
            let number = parse_citation_number(label)?;
            if !after_text.starts_with([' ', '\t']) {
                return None;
            }
            (RefId::Number(number), after_text, false)
        }
    } else if first.is_ascii_digit() {
        let digits = body.bytes().take_while(u8::is_ascii_digit).count();
        let after = &body[digits..];
        let after = after.strip_prefix(['.', ')'])?;
        if !after.starts_with([' ', '\t']) {
            return None;
        }
        (
            RefId::Number(parse_citation_number(&body[..digits])?),
            after,
            false,
        )
    } else {
        return None;
    };
    let rest = rest.trim();
    let span = Span::new(start, end);
    if is_definition {
        return definition(span, id, rest);
    }
    let numbered_list = first != b'[';
    let entry = entry_with_link(span, id.clone(), rest, numbered_list);
    if entry.is_some() {
        return entry;
    }
    // In a reference section, a numbered entry without a link is still a reference.
    let words = rest.split_whitespace().count();
    (in_reference_section && words >= 2 && rest.len() <= MAX_LABEL_BYTES).then(|| RefEntry {
        span,
        id,
        url: None,
        title: Some(rest.to_string()),
    })
}

pub(super) fn ref_id(label: &str) -> RefId {
    match parse_citation_number(label) {
        Some(n) => RefId::Number(n),
        None => RefId::Label(label.to_lowercase()),
    }
}

/// `[id]: url "title"`, `[id]: <url>`, `[id]: url - Title`.
pub(super) fn definition(span: Span, id: RefId, rest: &str) -> Option<RefEntry> {
    let (url, after) = if let Some(inner) = rest.strip_prefix('<') {
        let close = inner.find('>')?;
        (&inner[..close], &inner[close + 1..])
    } else {
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        (&rest[..len], &rest[len..])
    };
    if url.is_empty() || !(is_http_scheme(url) || is_www(url.as_bytes())) {
        return None;
    }
    let title = clean_title(
        after
            .trim()
            .trim_matches(|c| matches!(c, '"' | '\'' | '(' | ')')),
    );
    Some(RefEntry {
        span,
        id,
        url: Some(url.to_string()),
        title,
    })
}

/// A `[n] …` or `n. …` line that holds a link: the link is the reference, the text
/// around it the title.
pub(super) fn entry_with_link(
    span: Span,
    id: RefId,
    rest: &str,
    numbered_list: bool,
) -> Option<RefEntry> {
    let inner = scan_fragment(rest);
    let mut link = inner.links.first()?.clone();
    if link.form == LinkForm::Bare {
        // In a reference line the URL is the whole token up to the next space, CJK path
        // text included (`/wiki/PPP模式 - title`); prose uses the stricter cut.
        let token_len = url_token_len(&rest[link.span.start..]);
        if token_len > link.span.len() {
            link.span.end = link.span.start + token_len;
            link.url = rest[link.span.start..link.span.end].to_string();
        }
    }
    let before = rest[..link.span.start].trim();
    let after = rest[link.span.end..].trim();
    // A numbered list item is a reference only when it is shaped like one: the link
    // alone, a Markdown/Slack link first, or a title and the link joined by a dash or
    // colon. "1. Install it from https://…" is an ordinary list item.
    if numbered_list && !looks_like_reference_item(before, after, link.form) {
        return None;
    }
    let label = link
        .label
        .as_deref()
        .map(str::trim)
        .filter(|l| !l.is_empty());
    // `Title (https://…)`: the parenthesis around the link belongs to neither side.
    let before = before.strip_suffix('(').unwrap_or(before);
    let after = after.strip_prefix(')').unwrap_or(after);
    let title = label
        .and_then(clean_title)
        .or_else(|| clean_title(strip_separators(before)))
        .or_else(|| clean_title(strip_separators(after)));
    Some(RefEntry {
        span,
        id,
        url: Some(link.url.clone()),
        title,
    })
}

pub(super) fn looks_like_reference_item(before: &str, after: &str, form: LinkForm) -> bool {
    if before.is_empty() {
        return form != LinkForm::Bare || after.is_empty() || starts_with_separator(after);
    }
    ends_with_separator(before) && after.is_empty()
}

pub(super) const SEPARATORS: [&str; 7] = ["-", "–", "—", ":", "：", "|", "·"];

pub(super) fn starts_with_separator(s: &str) -> bool {
    SEPARATORS.iter().any(|sep| s.starts_with(sep))
}

pub(super) fn ends_with_separator(s: &str) -> bool {
    SEPARATORS.iter().any(|sep| s.ends_with(sep))
}

/// Trims dashes, colons and full stops that join a title to its link.
pub(super) fn strip_separators(s: &str) -> &str {
    s.trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, '-' | '–' | '—' | ':' | '：' | '|' | '·' | ',' | '.')
    })
}

/// A title worth keeping: trimmed, not empty, not absurdly long.
pub(super) fn clean_title(s: &str) -> Option<String> {
    let s = s.trim();
    (!s.is_empty() && s.len() <= MAX_LABEL_BYTES).then(|| s.to_string())
}

/// Strips a leading `- `, `* `, `+ ` or `• ` list bullet.
pub(super) fn strip_bullet(s: &str) -> &str {
    for bullet in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = s.strip_prefix(bullet) {
            return rest.trim_start();
        }
    }
    s
}

/// Scans a fragment of a line (the rest of a reference entry) for its links.
pub(super) fn scan_fragment(fragment: &str) -> Scan {
    let mut scanner = Scanner::new(fragment);
    scanner.inline(0, fragment.len());
    scanner.out
}

//! The small grammars the scanner reads at a position: bracket contents and Markdown
//! link destinations, `[Source: type - title]` tags, `[n]` marker numbers, URL schemes,
//! and where a bare URL ends (trailing punctuation, unbalanced brackets, CJK text).

use super::*;

/// The content of the bracket that opens at `open` (which must be `[`), allowing one
/// level of nesting per bracket and no blank line; returns it and the index after `]`.
pub(super) fn bracket_content(text: &str, open: usize) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    if bytes.get(open) != Some(&b'[') {
        return None;
    }
    let mut depth = 0usize;
    let limit = (open + 1 + MAX_LABEL_BYTES).min(bytes.len());
    let mut i = open + 1;
    while i < limit {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' if depth == 0 => return Some((&text[open + 1..i], i + 1)),
            b']' => depth -= 1,
            b'\n' if bytes.get(i + 1) == Some(&b'\n') => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// A Markdown link destination `(url "title")` starting at `open` (which must be `(`);
/// returns the URL, the title and the index after `)`.
pub(super) fn link_destination(text: &str, open: usize) -> Option<(&str, Option<&str>, usize)> {
    let bytes = text.as_bytes();
    if bytes.get(open) != Some(&b'(') {
        return None;
    }
    let mut i = open + 1;
    while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    let (url_start, url_end) = if bytes.get(i) == Some(&b'<') {
        let close = memchr::memchr2(b'>', b'\n', &bytes[i + 1..])?;
        if bytes[i + 1 + close] != b'>' {
            return None;
        }
        let range = (i + 1, i + 1 + close);
        i = range.1 + 1;
        range
    } else {
        let start = i;
        let mut depth = 0usize;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'(' => depth += 1,
                b')' if depth == 0 => break,
                b')' => depth -= 1,
                b'\\' => i += 1,
                _ if b.is_ascii_whitespace() => break,
                _ => {}
            }
            i += 1;
            if i - start > crate::collect::canon::MAX_URL_BYTES {
                return None;
            }
        }
        (start, i.min(bytes.len()))
    };
    while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    let mut title = None;
    if let Some(&quote @ (b'"' | b'\'')) = bytes.get(i) {
        let close = memchr::memchr2(quote, b'\n', &bytes[i + 1..])?;
        if bytes[i + 1 + close] != quote {
            return None;
        }
        title = Some(&text[i + 1..i + 1 + close]);
        i += close + 2;
        while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
            i += 1;
        }
    }
    if bytes.get(i) != Some(&b')') {
        return None;
    }
    Some((&text[url_start..url_end], title, i + 1))
}

/// `Source: type - title` in a link label: the declared kind (if the type is one
/// sourcebot knows) and the title.
pub(super) fn source_tag(label: &str) -> Option<(Option<SourceKind>, &str)> {
    let rest = label.trim();
    let head = rest.get(..7)?;
    if !head.eq_ignore_ascii_case("source:") {
        return None;
    }
    let rest = rest[7..].trim_start();
    let split = rest
        .char_indices()
        .find(|&(_, c)| matches!(c, '-' | '–' | '—' | ':' | '|'))
        .map(|(i, c)| (i, c.len_utf8()));
    match split {
        Some((i, sep_len)) => {
            let kind = SourceKind::parse_loose(&rest[..i]);
            let title = rest[i + sep_len..].trim();
            Some((
                kind,
                if title.is_empty() {
                    rest[..i].trim()
                } else {
                    title
                },
            ))
        }
        None => Some((SourceKind::parse_loose(rest), rest)),
    }
}

/// The citation marker whose `[` is at `pos` in `text` (`[1]`, `[1, 3]`, `[2-4]`,
/// `[3–4]`, `[^5]`): where it ends (the byte after `]`) and the numbers it cites, ranges
/// expanded, in the order written. `[1](url)` is a link, not a marker; numbers are 1 to
/// 100,000, ranges at most 100 wide, markers at most 64 bytes. The one reading of
/// markers that the scanner, the support tokenizer and `missing` share.
pub fn citation_marker(text: &str, pos: usize) -> Option<(usize, Vec<u32>)> {
    let bytes = text.as_bytes();
    if bytes.get(pos) != Some(&b'[') {
        return None;
    }
    let window = &bytes[pos + 1..(pos + 1 + MAX_MARKER_BYTES).min(bytes.len())];
    let close = memchr::memchr(b']', window)?;
    let inner = text.get(pos + 1..pos + 1 + close)?;
    let end = pos + close + 2;
    // `[1](url)` is a link and `[1]: url` a definition (read as a reference line before
    // any marker is looked for), not markers.
    if bytes.get(end) == Some(&b'(') {
        return None;
    }
    Some((end, parse_marker_numbers(inner)?))
}

/// The numbers a marker body (`1`, `1, 3`, `2-4`, `^5`) cites, or `None` when the body
/// is not a marker.
pub(super) fn parse_marker_numbers(inner: &str) -> Option<Vec<u32>> {
    let inner = inner.strip_prefix('^').unwrap_or(inner).trim();
    if inner.is_empty() {
        return None;
    }
    let mut numbers = Vec::new();
    for part in inner.split([',', '，', ';']) {
        let part = part.trim();
        let range = part.split_once(['-', '–', '—']);
        match range {
            Some((a, b)) => {
                let (a, b) = (
                    parse_citation_number(a.trim())?,
                    parse_citation_number(b.trim())?,
                );
                if b < a || b - a > MAX_MARKER_RANGE {
                    return None;
                }
                numbers.extend(a..=b);
            }
            None => numbers.push(parse_citation_number(part)?),
        }
    }
    Some(numbers)
}

/// A citation number: 1 to 100,000, ASCII digits only.
pub(super) fn parse_citation_number(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 6 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_CITATION_NUMBER).contains(n))
}

/// Length of `http://` or `https://` at the start of `s` (any case).
pub(super) fn scheme_prefix_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.len() >= 7 && b[..7].eq_ignore_ascii_case(b"http://") {
        Some(7)
    } else if b.len() >= 8 && b[..8].eq_ignore_ascii_case(b"https://") {
        Some(8)
    } else {
        None
    }
}

/// Whether `s` starts with `http://` or `https://` (any case).
pub(super) fn is_http_scheme(s: &str) -> bool {
    scheme_prefix_len(s.trim_start()).is_some()
}

/// Whether `s` starts with a URL scheme (`letters:`).
pub(super) fn has_scheme(s: &str) -> bool {
    match s.find(':') {
        Some(i) if i > 0 => {
            let scheme = &s[..i];
            scheme.as_bytes()[0].is_ascii_alphabetic()
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        }
        _ => false,
    }
}

/// Schemes that are links but never sources, and need no warning: an address to write
/// to or call is not something an answer rests on.
pub(super) fn is_ignored_scheme(s: &str) -> bool {
    let lower = s.get(..7).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("mailto:") || lower.starts_with("tel:")
}

/// Schemes that are links without `//` (`mailto:`, `javascript:`…); any other scheme
/// counts only when `://` follows it, so that `<a:b>` is not read as a link.
const SCHEMES_WITHOUT_SLASHES: [&str; 6] = ["mailto", "tel", "javascript", "data", "sms", "urn"];

/// Length of a non-http scheme with its colon at the start of `s` (`ftp:`, `slack:`,
/// `mailto:`), when it is followed by `//` or is one of [`SCHEMES_WITHOUT_SLASHES`].
pub(super) fn other_scheme_len(s: &str) -> Option<usize> {
    let colon = s.bytes().take(33).position(|b| b == b':')?;
    let scheme = &s[..colon];
    let well_formed = colon >= 2 && has_scheme(&s[..=colon]);
    let known = s[colon + 1..].starts_with("//")
        || SCHEMES_WITHOUT_SLASHES
            .iter()
            .any(|known| known.eq_ignore_ascii_case(scheme));
    (well_formed && known).then_some(colon + 1)
}

/// Whether `s` (a bracket's content) starts with a URL, brackets and spaces aside.
pub(super) fn starts_with_url(s: &str) -> bool {
    let s = s.trim_start_matches(|c: char| c == '[' || c.is_whitespace());
    scheme_prefix_len(s).is_some() || is_www(s.as_bytes())
}

/// `s` with Markdown's backslash escapes read: a `\` before ASCII punctuation is dropped.
pub(super) fn unescape_markdown(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\\') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(char::is_ascii_punctuation) {
            continue;
        }
        out.push(c);
    }
    std::borrow::Cow::Owned(out)
}

/// The code of a code span whose body runs from `body_start` to `close` (the closing
/// backticks): one space is stripped from each side when both sides have one and the
/// code is not all spaces, as CommonMark does.
pub(super) fn code_span_content(text: &str, body_start: usize, close: usize) -> Span {
    let body = &text[body_start..close];
    if body.len() >= 2 && body.starts_with(' ') && body.ends_with(' ') && !body.trim().is_empty() {
        Span::new(body_start + 1, close - 1)
    } else {
        Span::new(body_start, close)
    }
}

/// A bare URL may not be glued to a word or another URL before it.
pub(super) fn can_precede_url(text: &str, pos: usize) -> bool {
    match text[..pos].chars().next_back() {
        Some(c) => {
            !(c.is_ascii_alphanumeric()
                || matches!(c, '/' | '@' | '.' | '-' | '_' | '%' | '=' | '&'))
        }
        None => true,
    }
}

/// CJK punctuation and full-width forms: they always end a bare URL.
pub(super) fn is_cjk_punctuation(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{303F}' | '\u{FF00}'..='\u{FFEF}' | '\u{2018}'..='\u{201F}' | '\u{2026}' | '\u{00A0}')
}

/// CJK ideographs, kana and hangul.
pub(super) fn is_cjk_text(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{AC00}'..='\u{D7AF}'
        | '\u{F900}'..='\u{FAFF}')
}

/// Where a bare URL candidate must stop regardless of punctuation rules: whitespace,
/// `<>"` and backticks, `|`, a backslash (unless `escapes`, where a backslash before
/// ASCII punctuation is a Markdown escape and part of the URL), CJK punctuation, and
/// CJK text not directly after a path separator.
pub(super) fn candidate_end(s: &str) -> usize {
    candidate_end_with(s, false)
}

fn candidate_end_with(s: &str, escapes: bool) -> usize {
    let mut previous = ' ';
    let mut in_cjk_path = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            previous = c;
            continue;
        }
        if escapes
            && c == '\\'
            && s[i + 1..]
                .chars()
                .next()
                .is_some_and(|n| n.is_ascii_punctuation())
        {
            escaped = true;
            previous = c;
            continue;
        }
        let stop = if c.is_ascii() {
            c.is_ascii_whitespace()
                || c.is_ascii_control()
                || matches!(c, '<' | '>' | '"' | '`' | '|' | '\\')
        } else if is_cjk_punctuation(c) || c.is_whitespace() || c.is_control() {
            true
        } else if is_cjk_text(c) {
            let keep = in_cjk_path
                || matches!(
                    previous,
                    '/' | '=' | '?' | '&' | '#' | '_' | '-' | '+' | '('
                );
            in_cjk_path = keep;
            !keep
        } else {
            false
        };
        if stop {
            return i;
        }
        if !is_cjk_text(c) {
            in_cjk_path = false;
        }
        previous = c;
    }
    s.len()
}

pub(super) fn link_finder() -> &'static LinkFinder {
    static FINDER: OnceLock<LinkFinder> = OnceLock::new();
    FINDER.get_or_init(|| {
        let mut finder = LinkFinder::new();
        finder.kinds(&[LinkKind::Url]);
        finder.url_must_have_scheme(false);
        finder
    })
}

/// Length of the URL token at the start of `s` (which starts with a URL): up to
/// whitespace, `<>"|` or CJK punctuation, less trailing punctuation and unbalanced
/// closing brackets. CJK text inside is kept.
pub(super) fn url_token_len(s: &str) -> usize {
    let end = s
        .char_indices()
        .find(|&(_, c)| {
            c.is_whitespace()
                || c.is_control()
                || matches!(c, '<' | '>' | '"' | '|' | '`')
                || is_cjk_punctuation(c)
        })
        .map_or(s.len(), |(i, _)| i);
    match link_finder().links(&s[..end]).next() {
        Some(link) if link.start() == 0 => link.end(),
        _ => 0,
    }
}

/// The bare URL at the start of `s`, if one starts there: its length in `s`, and the
/// URL with Markdown's backslash escapes read when it has any (`\\(` is `(`).
pub(super) fn bare_url_at(s: &str) -> Option<(usize, Option<String>)> {
    let raw = &s[..candidate_end_with(s, true)];
    if !raw.contains('\\') {
        return url_in_candidate(s, raw).map(|len| (len, None));
    }
    // Read the escapes, find the URL in what Markdown shows, and map its end back.
    let mut shown = String::with_capacity(raw.len());
    let mut raw_end_of = Vec::with_capacity(raw.len() + 1);
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|(_, n)| n.is_ascii_punctuation()) {
            continue;
        }
        shown.push(c);
        raw_end_of.resize(shown.len(), i + c.len_utf8());
    }
    let len = bare_url_len(&shown)?;
    let raw_len = *raw_end_of.get(len - 1)?;
    let unescaped = shown[..len].to_string();
    Some((raw_len, (raw_len != unescaped.len()).then_some(unescaped)))
}

/// Length of the bare URL at the start of `s`, if one starts there. The candidate is
/// cut at hard stops first; linkify then drops trailing punctuation and unbalanced
/// closing brackets while keeping balanced parentheses.
pub(super) fn bare_url_len(s: &str) -> Option<usize> {
    url_in_candidate(s, &s[..candidate_end(s)])
}

/// [`bare_url_len`] with the candidate (`s` cut at its hard stops) already found.
fn url_in_candidate(s: &str, candidate: &str) -> Option<usize> {
    let prefix = match scheme_prefix_len(s) {
        Some(len) => len,
        None if is_www(s.as_bytes()) => 4,
        None => return None,
    };
    if candidate.len() <= prefix {
        return None;
    }
    let link = link_finder().links(candidate).next()?;
    if link.start() != 0 {
        return None;
    }
    let mut end = link.end();
    // linkify keeps a few characters that end sentences in Markdown: `*`, `_`, `~`, `'`.
    while end > prefix && matches!(candidate.as_bytes()[end - 1], b'*' | b'_' | b'~' | b'\'') {
        end -= 1;
    }
    (end > prefix).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_is_read_at_its_bracket() {
        let text = "See [1, 3] and [^5][2–4], [1](https://a.com), [they].";
        assert_eq!(citation_marker(text, 4), Some((10, vec![1, 3])));
        assert_eq!(citation_marker(text, 15), Some((19, vec![5])));
        assert_eq!(citation_marker(text, 19), Some((26, vec![2, 3, 4])));
        assert_eq!(citation_marker(text, 28), None, "a link");
        assert_eq!(citation_marker(text, 48), None, "a word");
        assert_eq!(citation_marker(text, 0), None, "no bracket");
        assert_eq!(citation_marker(text, text.len()), None);
        assert_eq!(citation_marker("[1", 0), None);
    }
}

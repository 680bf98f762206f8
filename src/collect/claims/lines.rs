//! What a line or sentence is: word counts for the fragment and greeting rules, and
//! the shapes that are not prose (headings, rules, tables, labels, list markers,
//! display math).

use super::*;

/// Counting stops once words and CJK characters together reach this: every rule that
/// reads the counts is decided by then.
pub(super) const COUNT_CAP: usize = 16;

/// A smaller cap that decides the fragment and quotation-length rules (but not the
/// greeting rule): once words and CJK characters together reach it, a sentence is no
/// fragment under either branch of [`Counts::is_fragment`] and a quotation has three
/// words or four CJK characters. The counts only grow, so stopping here gives the same
/// answers as counting on to [`COUNT_CAP`].
pub(super) const FRAGMENT_CAP: usize = if MIN_CJK_UNITS > MIN_WORDS {
    MIN_CJK_UNITS
} else {
    MIN_WORDS
};

/// Word counts for the fragment and greeting rules, capped at `cap` (at most
/// [`COUNT_CAP`]).
pub(super) struct Counts {
    /// Whitespace-separated tokens with a letter or digit that is not CJK.
    pub(super) words: usize,
    /// CJK characters.
    pub(super) cjk: usize,
    in_token: bool,
    token_counts: bool,
    cap: usize,
}

impl Counts {
    pub(super) fn with_cap(cap: usize) -> Self {
        Counts {
            words: 0,
            cjk: 0,
            in_token: false,
            token_counts: false,
            cap,
        }
    }

    /// Counts the words and CJK characters of `s`. Works on bytes and decodes a char only
    /// where a non-ASCII byte starts one.
    pub(super) fn feed(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii() {
                i = self.feed_ascii(bytes, i);
            }
            if i >= bytes.len() || self.words + self.cjk >= self.cap {
                return;
            }
            let Some(c) = s[i..].chars().next() else {
                return;
            };
            // (No CJK character is whitespace; the cheaper test goes first.)
            if is_cjk(c) {
                self.cjk += 1;
                self.separate();
            } else if c.is_whitespace() {
                self.separate();
            } else {
                self.in_token = true;
                self.token_counts |= c.is_alphanumeric();
            }
            i += c.len_utf8();
        }
    }

    /// [`Self::feed`] for the ASCII bytes from `i` on, up to the first non-ASCII byte or
    /// the cap; returns where it stopped (when the cap is reached: anywhere).
    ///
    /// It reads up to [`masks::BLOCK`] bytes at a time from bit masks, without a branch
    /// per byte. Byte by byte, whitespace ends a token, and the token counts as a word if
    /// it has a letter or digit: `has[p] = token[p] & (has[p - 1] | alnum[p])`. The bytes
    /// where `has` is still false are the runs of plain (non-alphanumeric) token bytes
    /// that begin a token; adding each run's first bit to the plain mask carries through
    /// the run and clears it, which picks those runs out. A word ends at each whitespace
    /// byte after a byte where `has` holds. Words only grow at whitespace, so when a
    /// block would reach the cap, counting stops just after a whitespace byte, with no
    /// token open.
    pub(super) fn feed_ascii(&mut self, bytes: &[u8], mut i: usize) -> usize {
        let max_words = self.cap.saturating_sub(self.cjk);
        while i < bytes.len() && self.words < max_words {
            let non_ascii = masks::at(bytes, i, |c| !c.is_ascii());
            let n = (non_ascii.trailing_zeros() as usize).min(bytes.len() - i);
            if n == 0 {
                break;
            }
            let valid = low_bits(n);
            let space = masks::at(bytes, i, |c| c.is_ascii_whitespace()) & valid;
            let alnum = masks::at(bytes, i, |c| c.is_ascii_alphanumeric()) & valid;
            let token = !space & valid;
            let plain = token & !alnum;
            // Token starts; bit 0 continues an open token, which is a start for the
            // plain-run pick-out only if it does not count yet.
            let starts = token & !((token << 1) | u64::from(self.in_token));
            let open_plain = u64::from(self.in_token && !self.token_counts);
            let seeds = plain & (starts | open_plain);
            let not_yet = (plain.wrapping_add(seeds) ^ plain) & plain;
            let has = token & !not_yet;
            let ends = space & ((has << 1) | u64::from(self.token_counts));
            let words = self.words + ends.count_ones() as usize;
            if words >= max_words {
                (self.words, self.in_token, self.token_counts) = (max_words, false, false);
                return i + n;
            }
            self.words = words;
            self.in_token = token >> (n - 1) & 1 == 1;
            self.token_counts = has >> (n - 1) & 1 == 1;
            i += n;
        }
        i
    }

    pub(super) fn separate(&mut self) {
        if self.in_token && self.token_counts {
            self.words += 1;
        }
        self.in_token = false;
        self.token_counts = false;
    }

    pub(super) fn is_fragment(&self) -> bool {
        if self.cjk > 0 {
            self.cjk + self.words < MIN_CJK_UNITS
        } else {
            self.words < MIN_WORDS
        }
    }
}

/// `spans.partition_point(pred)` (`pred` holds for a prefix of `spans`), searched from
/// index `hint`: the few spans from there are looked at one by one before a binary
/// search of the rest. Right for any hint; fast when the answer lies just after it.
pub(super) fn partition_point_near(
    spans: &[Span],
    hint: usize,
    pred: impl Fn(&Span) -> bool,
) -> usize {
    let mut from = hint.min(spans.len());
    if from > 0 && !pred(&spans[from - 1]) {
        from = 0;
    }
    let rest = &spans[from..];
    from + match rest.iter().take(4).position(|s| !pred(s)) {
        Some(k) => k,
        None => rest.partition_point(&pred),
    }
}

pub(super) fn trim_span(text: &str, start: usize, end: usize) -> Option<Span> {
    let end = end.min(text.len());
    if start >= end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return None;
    }
    let s = &text[start..end];
    let lead = s.len() - s.trim_start().len();
    let kept = s.trim().len();
    (kept > 0).then(|| Span::new(start + lead, start + lead + kept))
}

/// Length of a leading block-quote prefix (`> `, `>> `) with its indentation.
pub(super) fn quote_prefix_len(line: &str) -> usize {
    let mut n = 0;
    let bytes = line.as_bytes();
    loop {
        let ws = bytes[n..]
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
        if bytes.get(n + ws) == Some(&b'>') {
            n += ws + 1;
        } else {
            return n;
        }
    }
}

/// Offset of a list item's text after its bullet or number, if the line is one.
pub(super) fn list_content_offset(body: &str) -> Option<usize> {
    let indent = body.len() - body.trim_start().len();
    let rest = &body[indent..];
    let mut chars = rest.char_indices();
    let (_, first) = chars.next()?;
    let marker_end = if BULLETS.contains(&first) {
        first.len_utf8()
    } else {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 3 || !matches!(rest.as_bytes().get(digits), Some(b'.' | b')')) {
            return None;
        }
        digits + 1
    };
    let after = &rest[marker_end..];
    let spaces = after.len() - after.trim_start().len();
    if spaces == 0 || after.trim().is_empty() {
        return None;
    }
    Some(indent + marker_end + spaces)
}

/// A display-math line: `$$ … $$`.
pub(super) fn is_display_math(trimmed: &str) -> bool {
    trimmed.len() > 4 && trimmed.starts_with("$$") && trimmed.ends_with("$$")
}

/// A line that opens with a citation marker (`[3] …`), as reference entries do.
pub(super) fn starts_with_citation(trimmed: &str) -> bool {
    let Some(rest) = trimmed.strip_prefix('[') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with(']')
}

/// `---`, `***`, `___` (possibly spaced) and setext `===` underlines.
pub(super) fn is_rule(trimmed: &str) -> bool {
    let Some(first) = trimmed.chars().next() else {
        return false;
    };
    if !matches!(first, '-' | '*' | '_' | '=') {
        return false;
    }
    let marks = trimmed.chars().filter(|&c| c == first).count();
    marks >= 3 && trimmed.chars().all(|c| c == first || c == ' ' || c == '\t')
}

/// Table rows (`| a | b |`) and separator rows (`---|---`).
pub(super) fn is_table_row(trimmed: &str) -> bool {
    // The character test first: it fails at once on prose, where searching the whole
    // line for `|` would not.
    trimmed.starts_with('|')
        || (trimmed
            .bytes()
            .all(|c| matches!(c, b'|' | b'-' | b':' | b' ' | b'\t'))
            && trimmed.contains('|')
            && trimmed.contains('-'))
}

/// `# Heading` … `###### Heading`.
pub(super) fn is_atx_heading(trimmed: &str) -> bool {
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes)
        && trimmed[hashes..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace)
}

/// A line that is only bold or italic text (`**Summary**`, `__Key points:__`, `*Note*:`)
/// and does not read as a finished sentence.
pub(super) fn is_emphasis_only(s: &str) -> bool {
    let s = s.trim_end_matches([':', '：']).trim_end();
    let marks = s.bytes().take_while(|&b| b == b'*' || b == b'_').count();
    if marks == 0 || s.len() <= 2 * marks {
        return false;
    }
    let (open, rest) = s.split_at(marks);
    let Some(inner) = rest.strip_suffix(open) else {
        return false;
    };
    let inner = inner.trim_end_matches([':', '：']).trim();
    !inner.is_empty() && !inner.contains(open) && !ends_with_terminator(inner)
}

/// A short line without terminal punctuation that ends with a colon or is in Title Case.
pub(super) fn is_label(s: &str) -> bool {
    // A label of MAX_LABEL_WORDS words is never longer than this many bytes in practice.
    // The checks are ordered cheapest and most decisive first; none has side effects.
    s.len() <= MAX_LABEL_WORDS * 24
        && !ends_with_terminator(s)
        && (s.ends_with([':', '：']) || is_title_case(s))
        && label_words(s) <= MAX_LABEL_WORDS
}

pub(super) fn label_words(s: &str) -> usize {
    let cjk = s.chars().filter(|&c| is_cjk(c)).count();
    let words = s
        .split_whitespace()
        .filter(|w| w.chars().any(|c| !is_cjk(c) && c.is_alphanumeric()))
        .count();
    words + cjk / 2
}

pub(super) fn ends_with_terminator(s: &str) -> bool {
    s.trim_end()
        .trim_end_matches(CLOSERS)
        .chars()
        .next_back()
        .is_some_and(|c| TERMINATORS.contains(&c))
}

/// Every cased word capitalised, except minor words after the first.
pub(super) fn is_title_case(s: &str) -> bool {
    // A whitespace-separated word is judged by its first letter or digit, so it is read
    // up to there (and to its end only when that is needed): a line of CJK text without
    // spaces is turned away at its first char instead of being split up first.
    let mut cased = 0;
    let mut rest = s.trim_start();
    let mut index = 0;
    while !rest.is_empty() {
        // The word's first letter or digit, if it has one before the next whitespace.
        let first = rest
            .char_indices()
            .find(|(_, c)| c.is_whitespace() || c.is_alphanumeric())
            .filter(|(_, c)| c.is_alphanumeric());
        let end = |rest: &str| rest.find(char::is_whitespace).unwrap_or(rest.len());
        match first {
            Some((_, c)) if c.is_uppercase() => cased += 1,
            Some((k, c)) if c.is_lowercase() => {
                let word = rest[k..end(rest)].trim_end_matches(|c: char| !c.is_alphanumeric());
                if index == 0 || !contains_ignore_case(MINOR_WORDS, word) {
                    return false;
                }
            }
            Some((_, c)) if !c.is_numeric() => return false,
            _ => {}
        }
        rest = rest[end(rest)..].trim_start();
        index += 1;
    }
    cased > 0
}

/// The run of ASCII letters and dots that ends at `dot` ("e.g", "U.S", "Dr").
pub(super) fn word_before(text: &str, dot: usize) -> &str {
    let bytes = text.as_bytes();
    let mut start = dot;
    while start > 0
        && dot - start < 12
        && (bytes[start - 1].is_ascii_alphabetic() || bytes[start - 1] == b'.')
    {
        start -= 1;
    }
    if start > 0 && bytes[start - 1].is_ascii_digit() {
        return "";
    }
    text[start..dot].trim_start_matches('.')
}

/// The run of ASCII letters at `at`, not past `limit`.
pub(super) fn ascii_word_at(text: &str, at: usize, limit: usize) -> &str {
    let bytes = text.as_bytes();
    let len = bytes[at..limit.min(bytes.len())]
        .iter()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    &text[at..at + len]
}

/// The first byte at or after `at` that is not a space or tab (or `limit`).
pub(super) fn skip_spaces(text: &str, at: usize, limit: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = at;
    while i < limit && i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    i
}

/// The sentence without leading emphasis, quotes and heading marks, for prefix rules.
pub(super) fn lead_text(s: &str) -> &str {
    s.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '*' | '_' | '#' | '>' | '"' | '“' | '\'' | '「' | '(')
    })
}

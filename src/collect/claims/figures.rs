//! Signals from figures: [`claim_signals`] and the scanner that reads numbers,
//! percentages, money, dates and years.

use super::*;

// ---------------------------------------------------------------------------------------
// Signals
// ---------------------------------------------------------------------------------------

/// Why a reader would expect a source for this sentence. `sentence` is the claim text with
/// citations and links already replaced by spaces by the caller. Empty when nothing asks
/// for one. Sorted (in [`ClaimSignal`] order), without repeats. The rules are described in
/// the module documentation.
pub fn claim_signals(sentence: &str) -> Vec<ClaimSignal> {
    let mut found = SignalSet::default();
    scan_figures(sentence, &mut found);
    scan_words(sentence, &mut found);
    scan_quotations(sentence, &mut found);
    found.to_vec()
}

/// A set of signals as bits, in [`ALL_SIGNALS`] order.
#[derive(Default, Clone, Copy)]
pub(super) struct SignalSet(pub(super) u8);

impl SignalSet {
    pub(super) fn add(&mut self, signal: ClaimSignal) {
        if let Some(i) = ALL_SIGNALS.iter().position(|s| *s == signal) {
            self.0 |= 1 << i;
        }
    }

    pub(super) fn to_vec(self) -> Vec<ClaimSignal> {
        if self.0 == 0 {
            return Vec::new();
        }
        ALL_SIGNALS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, s)| *s)
            .collect()
    }
}

/// Finds every figure (a run of digits with inner `.,:/-` separators) and classifies it.
pub(super) fn scan_figures(s: &str, found: &mut SignalSet) {
    let b = s.as_bytes();
    let first = s.len() - s.trim_start().len();
    // The bytes that may start a bracket or a digit: `[`, an ASCII digit, or 0xEF, the
    // first byte of the full-width digits `０`–`９`.
    let mut starts = masks::Finder::new(b, |c| c == b'[' || c.wrapping_sub(b'0') < 10 || c == 0xEF);
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            if let Some(end) = citation_bracket_end(b, i) {
                i = end;
                continue;
            }
        }
        if digit_len(b, i) == 0 {
            i = starts.next(i + 1);
            continue;
        }
        let end = figure_end(b, i);
        if let Some(signal) = classify_figure(s, i, end, first) {
            found.add(signal);
        }
        i = end;
    }
}

/// Length of the digit (ASCII or full-width) at `i`, or 0.
pub(super) fn digit_len(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(d) if d.is_ascii_digit() => 1,
        Some(0xEF) if b.get(i + 1) == Some(&0xBC) && matches!(b.get(i + 2), Some(0x90..=0x99)) => 3,
        _ => 0,
    }
}

pub(super) fn figure_end(b: &[u8], mut i: usize) -> usize {
    loop {
        let d = digit_len(b, i);
        if d > 0 {
            i += d;
            continue;
        }
        if matches!(b.get(i), Some(b'.' | b',' | b':' | b'/' | b'-')) && digit_len(b, i + 1) > 0 {
            i += 1;
            continue;
        }
        return i;
    }
}

/// A citation bracket (`[1]`, `[1, 3]`, `[2-4]`, `[^1]`) starting at `i`: its end.
pub(super) fn citation_bracket_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    if b.get(j) == Some(&b'^') {
        j += 1;
    }
    let mut digits = 0;
    while let Some(&c) = b.get(j) {
        match c {
            b'0'..=b'9' => digits += 1,
            b',' | b' ' | b'-' => {}
            b']' => return (digits > 0).then_some(j + 1),
            _ => return None,
        }
        j += 1;
    }
    None
}

/// What one figure `s[a..e]` signals, if anything.
pub(super) fn classify_figure(s: &str, a: usize, e: usize, first: usize) -> Option<ClaimSignal> {
    let b = s.as_bytes();
    let tok = &s[a..e];
    let glued = ascii_letters_before(s, a);
    if !glued.is_empty() {
        return glued_prefix_signal(glued, tok);
    }
    match a.checked_sub(1).map(|p| b[p]) {
        Some(b'#') => {
            return Some(if tok == "1" {
                ClaimSignal::Superlative
            } else {
                ClaimSignal::Number
            })
        }
        Some(b'-' | b'/') => {
            let word = ascii_letters_before(s, a - 1);
            if !word.is_empty() && !contains_ignore_case(HYPHEN_PREFIXES, word) {
                return None;
            }
        }
        _ => {}
    }
    if a == first && is_list_number(b, tok, e) {
        return None;
    }
    if tok.bytes().filter(|&c| c == b'.').count() >= 2 {
        return None;
    }
    let suffix = ascii_letters_at(s, e);
    let rest = &s[e + suffix.len()..];
    if !suffix.is_empty() {
        return suffix_signal(s, a, tok, suffix, rest);
    }
    if currency_before(s, a) {
        return Some(ClaimSignal::Money);
    }
    if percent_after(rest) {
        return Some(ClaimSignal::Percentage);
    }
    if money_after(rest) {
        return Some(ClaimSignal::Money);
    }
    if let Some(signal) = cjk_date_after(tok, rest) {
        return Some(signal);
    }
    if is_date_shape(tok) || (is_decade(tok) && (rest.starts_with("'s") || rest.starts_with("’s")))
    {
        return Some(ClaimSignal::Date);
    }
    if decade_apostrophe(s, a, tok) || month_adjacent(s, a, e) {
        return Some(ClaimSignal::Date);
    }
    Some(ClaimSignal::Number)
}

/// `1.` or `1)` at the very start of the sentence, followed by whitespace.
pub(super) fn is_list_number(b: &[u8], tok: &str, e: usize) -> bool {
    tok.bytes().all(|c| c.is_ascii_digit())
        && matches!(b.get(e), Some(b'.' | b')'))
        && b.get(e + 1).is_none_or(u8::is_ascii_whitespace)
}

/// A figure glued to letters before it: versions, identifiers, quarters, fiscal years,
/// currency codes.
pub(super) fn glued_prefix_signal(letters: &str, tok: &str) -> Option<ClaimSignal> {
    if letters.eq_ignore_ascii_case("q") && matches!(tok, "1" | "2" | "3" | "4") {
        return Some(ClaimSignal::Date);
    }
    if letters.eq_ignore_ascii_case("fy") {
        return Some(ClaimSignal::Date);
    }
    if CURRENCY_CODE_SET.contains(letters) {
        return Some(ClaimSignal::Money);
    }
    None
}

/// A figure with letters glued after it: decades, ordinals, units; anything else is an
/// identifier.
pub(super) fn suffix_signal(
    s: &str,
    a: usize,
    tok: &str,
    suffix: &str,
    rest: &str,
) -> Option<ClaimSignal> {
    if suffix == "s" && is_decade(tok) {
        return Some(ClaimSignal::Date);
    }
    if !contains_ignore_case(UNIT_SUFFIXES, suffix) {
        return None;
    }
    if matches!(
        suffix.to_ascii_lowercase().as_str(),
        "st" | "nd" | "rd" | "th"
    ) {
        let next = rest.trim_start();
        if starts_with_phrase(next, "century") || starts_with_phrase(next, "centuries") {
            return Some(ClaimSignal::Date);
        }
        return Some(ClaimSignal::Number);
    }
    if currency_before(s, a) || money_after(rest) {
        return Some(ClaimSignal::Money);
    }
    Some(ClaimSignal::Number)
}

pub(super) fn ascii_letters_before(s: &str, a: usize) -> &str {
    let b = s.as_bytes();
    let mut start = a;
    while start > 0 && b[start - 1].is_ascii_alphabetic() {
        start -= 1;
    }
    &s[start..a]
}

pub(super) fn ascii_letters_at(s: &str, e: usize) -> &str {
    let n = s.as_bytes()[e..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    &s[e..e + n]
}

/// A currency symbol or code just before the figure (one space allowed).
pub(super) fn currency_before(s: &str, a: usize) -> bool {
    let head = &s[..a];
    let head = head.strip_suffix(' ').unwrap_or(head);
    if head
        .chars()
        .next_back()
        .is_some_and(|c| CURRENCY_SYMBOLS.contains(&c))
    {
        return true;
    }
    let word = ascii_letters_before(head, head.len());
    !word.is_empty() && CURRENCY_CODE_SET.contains(word)
}

pub(super) fn strip_one_space(s: &str) -> &str {
    s.strip_prefix([' ', '\u{a0}', '\u{202f}', '\u{2009}'])
        .unwrap_or(s)
}

pub(super) fn percent_after(rest: &str) -> bool {
    let r = strip_one_space(rest);
    r.starts_with(['%', '％']) || starts_with_any(r, &PERCENT_PHRASES)
}

pub(super) fn money_after(rest: &str) -> bool {
    let mut r = strip_one_space(rest);
    if let Some(m) = MONEY_MAGNITUDE_PHRASES.first_match(r) {
        r = strip_one_space(&r[m.len()..]);
    }
    r = r.strip_prefix("of ").unwrap_or(r);
    if r.starts_with(CURRENCY_SYMBOLS) || CJK_CURRENCY_PHRASES.any_exact_prefix(r) {
        return true;
    }
    let word = ascii_letters_at(r, 0);
    CURRENCY_CODE_SET.contains(word) || starts_with_any(r, &CURRENCY_PHRASES)
}

/// `2023年`, `90年代`, `3月`, `3日`, `20世纪`; a duration such as `20年` is a number.
pub(super) fn cjk_date_after(tok: &str, rest: &str) -> Option<ClaimSignal> {
    let value: Option<u32> = tok.parse().ok();
    if rest.starts_with("年代") || rest.starts_with("世纪") {
        return Some(ClaimSignal::Date);
    }
    if rest.starts_with('年') {
        return Some(if is_year(tok) {
            ClaimSignal::Date
        } else {
            ClaimSignal::Number
        });
    }
    if rest.starts_with('月') && value.is_some_and(|v| (1..=12).contains(&v)) {
        return Some(ClaimSignal::Date);
    }
    if rest.starts_with(['日', '号']) && value.is_some_and(|v| (1..=31).contains(&v)) {
        return Some(ClaimSignal::Date);
    }
    None
}

pub(super) fn is_year(tok: &str) -> bool {
    tok.len() == 4
        && tok.bytes().all(|c| c.is_ascii_digit())
        && tok.parse::<u32>().is_ok_and(|y| (1500..=2100).contains(&y))
}

/// `1990`-style decade starts and two-digit `90`.
pub(super) fn is_decade(tok: &str) -> bool {
    tok.ends_with('0')
        && (is_year(tok) || (tok.len() == 2 && tok.bytes().all(|c| c.is_ascii_digit())))
}

/// `'90s`.
pub(super) fn decade_apostrophe(s: &str, a: usize, tok: &str) -> bool {
    let before = &s[..a];
    tok.len() == 2
        && tok.ends_with('0')
        && (before.ends_with('\'') || before.ends_with('’'))
        && s[a + tok.len()..].starts_with('s')
}

/// Years, ISO dates, slash dates and year ranges.
pub(super) fn is_date_shape(tok: &str) -> bool {
    if is_year(tok) {
        return true;
    }
    let parts: Vec<&str> = tok.split(['-', '/']).collect();
    let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
    let all_digits = parts.iter().all(|p| p.bytes().all(|c| c.is_ascii_digit()));
    if !all_digits || parts.len() < 2 || parts.len() > 3 {
        return false;
    }
    match lens.as_slice() {
        [4, 2, 2] => tok.contains('-') && is_year(parts[0]),
        [1 | 2, 1 | 2, 2 | 4] => tok.contains('/'),
        [4, 2 | 4] => is_year(parts[0]),
        _ => false,
    }
}

/// A capitalised month name right before or after the figure (`March 3`, `3 March`).
pub(super) fn month_adjacent(s: &str, a: usize, e: usize) -> bool {
    let head = s[..a].trim_end_matches([' ', '.']);
    let before = ascii_letters_before(head, head.len());
    let tail = s[e..].trim_start_matches([' ', ',']);
    let tail = tail.strip_prefix("of ").unwrap_or(tail);
    let after = ascii_letters_at(tail, 0);
    is_month(before) || is_month(after)
}

/// Whether `rest` (what follows a stamp word) goes on with a date: after an optional
/// `:` and `on`, a digit or a capitalised month name.
pub(super) fn starts_with_date(rest: &str) -> bool {
    let rest = rest.trim_start_matches([':', '：', ' ', '\t']);
    let rest = rest.strip_prefix("on ").unwrap_or(rest).trim_start();
    rest.starts_with(|c: char| c.is_ascii_digit()) || is_month(ascii_letters_at(rest, 0))
}

pub(super) fn is_month(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && (contains_ignore_case(&MONTH_NAMES, word)
            || contains_ignore_case(MONTH_ABBREVIATIONS, word))
}

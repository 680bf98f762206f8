//! What the page does not say: the claim's salient words that the page never mentions.
//!
//! A claim that cites a page usually rests on a detail — a number, a date, a name — and
//! the detail is what an answer gets wrong. [`missing_words`] lists the claim's numbers,
//! quantities, dates and names that the page (its text and title) does not have, each
//! as the claim writes it (`"1909"`, `"16 May 2001"`, `"Beulah"`; a word hyphenated to
//! a missing one with it: `"Grammy-nominated"`), so that a reader can
//! see at a glance what to look for. Plain content words ("dedicated", "founder") are
//! not listed: on WiCE's annotated claims a missing plain word is the unsupported part
//! only about half of the time (paraphrase), against nearly nine times in ten for
//! numbers, dates and names (docs/support.md has the figures).
//!
//! The page is matched as a reader would match it:
//! - numbers in their usual spellings: `1,200` = `1200` = `1.2k` = `1.2 thousand`;
//!   `five` = `5`; `5%` = `5 percent` (the value counts); a number that appears on the
//!   page only inside another number does not count (`2019` is not in `20190`);
//! - ordinals as ordinals: `3rd` = `third`, and not a bare `3`;
//! - a quantity (a number before a noun, `17 hours`) needs the number near that noun
//!   on the page (within four words), not anywhere, and is missing as a whole;
//! - an ordinal written in figures, or in a name or compound, near its noun too
//!   (`1st District`, `first-class`);
//! - dates as dates, in their usual orders: `July 11, 1909` = `11 July 1909` =
//!   `1909-07-11`; a date the page lacks is missing as the claim writes it (with
//!   `early`, `mid` or `late` before its year), since that is what a reader looks for;
//!   `May` is a month only next to a day or year, a name otherwise;
//! - a name between two missing names is one missing name (`Port Baku Mall`);
//! - words case- and accent-insensitively, with simple inflections where the Snowball
//!   stemmer agrees (`acquired` = `acquires`), hyphenated words as a whole or in parts;
//!   an all-capitals acronym case-sensitively (`US` is not `us`), dots aside (`U.S.`).
//!
//! No allocation per character; a page is indexed once ([`PageIndex`]) and every claim
//! citing it is matched against the index.

use super::text::{is_stop, stem};
use std::collections::{HashMap, HashSet};

/// Cardinal number words and their values ("one" is left out: it is far more often a
/// pronoun — "one of the", "the only one" — than a count).
const CARDINALS: [(&str, f64); 27] = [
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
    ("hundred", 100.0),
];

/// Ordinal words and their values.
const ORDINALS: [(&str, u32); 10] = [
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
];

/// Words after a number that multiply it (`1.2 million`), and glued suffixes (`1.2k`).
const MULTIPLIERS: [(&str, f64); 9] = [
    ("thousand", 1e3),
    ("million", 1e6),
    ("billion", 1e9),
    ("trillion", 1e12),
    ("k", 1e3),
    ("m", 1e6),
    ("mn", 1e6),
    ("bn", 1e9),
    ("b", 1e9),
];

/// The months' names, January first (the collector's table).
use crate::collect::claims::MONTH_NAMES as MONTHS;

/// How far (in words) a quantity's number may stand from its noun on the page.
const QUANTITY_WINDOW: usize = 4;

/// Most words of a page indexed; the rest of a longer page is not read for this.
pub const MAX_INDEXED_WORDS: usize = 400_000;

/// One word or number of a text, with where it stands.
#[derive(Debug, Clone, Copy)]
struct Word<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

/// The words of `text`: runs of letters and digits (with apostrophes inside words and
/// `,` or `.` between digits), in order.
fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::with_capacity(text.len() / 5);
    let bytes = text.as_bytes();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !c.is_alphanumeric() {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, d)) = chars.peek() {
            let inside = d.is_alphanumeric()
                || (matches!(d, '\'' | '’')
                    && text[i + d.len_utf8()..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphabetic))
                || (matches!(d, ',' | '.')
                    && bytes[end - 1].is_ascii_digit()
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
            if !inside {
                break;
            }
            end = i + d.len_utf8();
            chars.next();
        }
        out.push(Word {
            text: &text[start..end],
            start,
            end,
        });
    }
    out
}

/// Lower case without accents (`Hernández` → `hernandez`).
fn fold(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        match fold_char(c) {
            Some(base) => out.push(base),
            None => out.extend(c.to_lowercase()),
        }
    }
    out.replace('’', "'")
}

/// The base letter of a Latin letter with an accent.
fn fold_char(c: char) -> Option<char> {
    let base = match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' => 'a',
        'ç' | 'Ç' => 'c',
        'è' | 'é' | 'ê' | 'ë' | 'È' | 'É' | 'Ê' | 'Ë' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'Ì' | 'Í' | 'Î' | 'Ï' => 'i',
        'ñ' | 'Ñ' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' => 'o',
        'ù' | 'ú' | 'û' | 'ü' | 'Ù' | 'Ú' | 'Û' | 'Ü' => 'u',
        'ý' | 'ÿ' | 'Ý' => 'y',
        _ => return None,
    };
    Some(base)
}

/// What a number-like word is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Figure {
    /// A count or amount (`1,200`, `five`, `1.2k`).
    Number(f64),
    /// An ordinal (`3rd`, `third`).
    Ordinal(u32),
}

/// The figure `word` writes, if it is one.
fn figure(word: &str) -> Option<Figure> {
    let folded = word.to_ascii_lowercase();
    if let Some(&(_, n)) = ORDINALS.iter().find(|(w, _)| *w == folded) {
        return Some(Figure::Ordinal(n));
    }
    if let Some(&(_, n)) = CARDINALS.iter().find(|(w, _)| *w == folded) {
        return Some(Figure::Number(n));
    }
    let digits_end = folded
        .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
        .unwrap_or(folded.len());
    if digits_end == 0 {
        return None;
    }
    let (digits, suffix) = folded.split_at(digits_end);
    let value: f64 = digits.replace(',', "").parse().ok()?;
    match suffix {
        "" => Some(Figure::Number(value)),
        "st" | "nd" | "rd" | "th" => {
            let whole = digits.replace(',', "");
            whole.parse().ok().map(Figure::Ordinal)
        }
        _ => MULTIPLIERS
            .iter()
            .find(|(w, _)| *w == suffix)
            .map(|(_, m)| Figure::Number(value * m)),
    }
}

fn multiplier(word: &str) -> Option<f64> {
    let folded = word.to_ascii_lowercase();
    MULTIPLIERS
        .iter()
        .find(|(w, _)| w.len() > 2 && *w == folded)
        .map(|(_, m)| *m)
}

/// The month (1–12) `word` names: a full name, or a three-letter abbreviation other
/// than `may`/`mar` (words in their own right), or `sept`.
fn month(word: &str) -> Option<u32> {
    let folded = word.to_ascii_lowercase();
    let folded = folded.trim_end_matches('.');
    if let Some(i) = MONTHS.iter().position(|m| *m == folded) {
        return Some(i as u32 + 1);
    }
    if folded == "sept" {
        return Some(9);
    }
    if folded.len() == 3 && folded != "may" && folded != "mar" {
        return MONTHS
            .iter()
            .position(|m| m.starts_with(folded))
            .map(|i| i as u32 + 1);
    }
    None
}

/// A day (1–31) or a year (100–9999) written in digits.
fn day_or_year(word: &str) -> Option<u32> {
    if word.is_empty() || word.len() > 4 || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse().ok()
}

/// A date the text gives, as precise as it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum DateKey {
    /// Year, month and day.
    Day(u32, u32, u32),
    /// Year and month.
    Month(u32, u32),
    /// Month and day, without a year.
    MonthDay(u32, u32),
}

/// A date around the month at `at` in `words` (`11 July 1909`, `July 11, 1909`,
/// `July 1909`, `July 11`), with the indexes of the words it spans.
fn date_at(words: &[Word<'_>], at: usize, month: u32) -> Option<(DateKey, Vec<usize>)> {
    let value = |i: Option<usize>| {
        i.and_then(|i| words.get(i))
            .and_then(|w| day_or_year(w.text))
    };
    let before = at.checked_sub(1);
    let after = Some(at + 1);
    let after2 = Some(at + 2);
    let is_day = |v: Option<u32>| v.filter(|d| (1..=31).contains(d));
    let is_year = |v: Option<u32>| v.filter(|y| *y >= 100);
    if let (Some(day), Some(year)) = (is_day(value(before)), is_year(value(after))) {
        return Some((DateKey::Day(year, month, day), vec![at - 1, at, at + 1]));
    }
    if let (Some(day), Some(year)) = (is_day(value(after)), is_year(value(after2))) {
        return Some((DateKey::Day(year, month, day), vec![at, at + 1, at + 2]));
    }
    if let Some(year) = is_year(value(after)) {
        return Some((DateKey::Month(year, month), vec![at, at + 1]));
    }
    if let Some(day) = is_day(value(after)) {
        return Some((DateKey::MonthDay(month, day), vec![at, at + 1]));
    }
    if let Some(day) = is_day(value(before)) {
        return Some((DateKey::MonthDay(month, day), vec![at - 1, at]));
    }
    None
}

/// Every key a date also stands for (a day is also its month and its month-day).
fn date_keys(key: DateKey) -> impl Iterator<Item = DateKey> {
    let more = match key {
        DateKey::Day(y, m, d) => [Some(DateKey::Month(y, m)), Some(DateKey::MonthDay(m, d))],
        _ => [None, None],
    };
    std::iter::once(key).chain(more.into_iter().flatten())
}

/// A page's words, numbers, ordinals, dates and acronyms, for matching claims against.
#[derive(Debug, Clone, Default)]
pub struct PageIndex {
    words: HashSet<String>,
    stems: HashSet<String>,
    /// Number values (as bits) → positions, for quantities.
    numbers: HashMap<u64, Vec<u32>>,
    /// Ordinal values → positions, for ordinals before a noun (`1st District`).
    ordinals: HashMap<u32, Vec<u32>>,
    dates: HashSet<DateKey>,
    acronyms: HashSet<String>,
    /// The stem at each position (for quantities), up to [`MAX_INDEXED_WORDS`].
    position_stems: Vec<String>,
}

impl PageIndex {
    /// Indexes the texts of a page (its title among them, if known).
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> PageIndex {
        let mut index = PageIndex::default();
        for text in texts {
            index.add(text);
        }
        index
    }

    /// Whether nothing was indexed.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    fn add(&mut self, text: &str) {
        let found = words(text);
        for (i, word) in found.iter().enumerate() {
            let position = self.position_stems.len();
            if position >= MAX_INDEXED_WORDS {
                return;
            }
            let folded = fold(word.text);
            let stemmed = stem(&folded);
            match figure(word.text) {
                Some(Figure::Number(value)) => {
                    self.add_number(value, position);
                    if let Some(m) = found.get(i + 1).and_then(|w| multiplier(w.text)) {
                        self.add_number(value * m, position);
                    }
                }
                Some(Figure::Ordinal(n)) => {
                    push_position(self.ordinals.entry(n).or_default(), position);
                }
                None => {}
            }
            if let Some(m) = month(word.text) {
                if let Some((key, _)) = date_at(&found, i, m) {
                    self.dates.extend(date_keys(key));
                }
            }
            if is_acronym(word.text) {
                self.acronyms.insert(word.text.to_string());
            }
            for part in folded.split(['-', '\'']).filter(|p| !p.is_empty()) {
                self.words.insert(part.to_string());
            }
            self.words.insert(folded);
            self.stems.insert(stemmed.clone());
            self.position_stems.push(stemmed);
        }
        self.add_iso_dates(text);
        self.add_dotted_acronyms(text);
    }

    fn add_number(&mut self, value: f64, position: usize) {
        push_position(self.numbers.entry(value.to_bits()).or_default(), position);
    }

    /// `1909-07-11`, `1909/07/11`.
    fn add_iso_dates(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i + 10 <= bytes.len() {
            let window = &bytes[i..i + 10];
            let digits = |r: std::ops::Range<usize>| window[r].iter().all(u8::is_ascii_digit);
            let separated = matches!(window[4], b'-' | b'/') && window[7] == window[4];
            let boundary = i == 0 || !bytes[i - 1].is_ascii_digit();
            let closed = bytes.get(i + 10).is_none_or(|b| !b.is_ascii_digit());
            if separated && boundary && closed && digits(0..4) && digits(5..7) && digits(8..10) {
                let number = |r: std::ops::Range<usize>| {
                    std::str::from_utf8(&window[r])
                        .ok()
                        .and_then(|s| s.parse::<u32>().ok())
                        .unwrap_or(0)
                };
                let (y, m, d) = (number(0..4), number(5..7), number(8..10));
                if (1..=12).contains(&m) && (1..=31).contains(&d) {
                    self.dates.extend(date_keys(DateKey::Day(y, m, d)));
                    self.words.insert(MONTHS[m as usize - 1].to_string());
                }
                i += 10;
            } else {
                i += 1;
            }
        }
    }

    /// `U.S.`, `U.K.`: the letters of a dotted acronym, as one acronym.
    fn add_dotted_acronyms(&mut self, text: &str) {
        let mut letters = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_uppercase() && chars.peek() == Some(&'.') {
                chars.next();
                letters.push(c);
                continue;
            }
            if letters.chars().count() >= 2 {
                self.acronyms.insert(std::mem::take(&mut letters));
            }
            letters.clear();
        }
        if letters.chars().count() >= 2 {
            self.acronyms.insert(letters);
        }
    }

    fn has_word(&self, word: &str) -> bool {
        if is_acronym(word) {
            return self.acronyms.contains(word);
        }
        let folded = fold(word);
        self.words.contains(&folded) || self.stems.contains(&stem(&folded))
    }

    fn has_number(&self, value: f64) -> bool {
        self.numbers.contains_key(&value.to_bits())
    }

    /// Whether `value` stands within [`QUANTITY_WINDOW`] words of a word whose stem is
    /// `noun`.
    fn has_quantity(&self, value: f64, noun: &str) -> bool {
        self.numbers
            .get(&value.to_bits())
            .is_some_and(|positions| self.near(positions, noun))
    }

    /// Whether the ordinal `n` stands within [`QUANTITY_WINDOW`] words of a word whose
    /// stem is `noun` (`1st District` needs `first district`, not any `first`).
    fn has_ordinal_before(&self, n: u32, noun: &str) -> bool {
        self.ordinals
            .get(&n)
            .is_some_and(|positions| self.near(positions, noun))
    }

    /// Whether one of `positions` stands within [`QUANTITY_WINDOW`] words of `noun`.
    fn near(&self, positions: &[u32], noun: &str) -> bool {
        positions.iter().any(|&p| {
            let p = p as usize;
            let from = p.saturating_sub(QUANTITY_WINDOW);
            let to = (p + QUANTITY_WINDOW + 1).min(self.position_stems.len());
            self.position_stems[from..to].iter().any(|s| s == noun)
        })
    }
}

/// Keeps a word's position, up to 64 a value (enough to find one near a noun).
fn push_position(positions: &mut Vec<u32>, position: usize) {
    if positions.len() < 64 {
        positions.push(position as u32);
    }
}

/// How many of the claim's numbers and capitalised words (not its first word) the page
/// does not have as words, compared without case: the one-line rule's count, cruder
/// than [`missing_words`] and a signal of its own.
pub fn rule_missing_count(claim: &str, page: &PageIndex) -> usize {
    claim
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .enumerate()
        .filter(|(i, w)| {
            let number = w.bytes().any(|b| b.is_ascii_digit());
            let name = *i > 0 && w.chars().next().is_some_and(char::is_uppercase);
            (number || name)
                && !page.words.contains(&fold(w))
                && !w.parse::<f64>().is_ok_and(|v| page.has_number(v))
        })
        .count()
}

/// Two or more capital letters (digits allowed after the first): `US`, `NASA`, `G7`.
fn is_acronym(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase)
        && word.chars().count() >= 2
        && word.chars().all(|c| c.is_uppercase() || c.is_ascii_digit())
}

/// Whether the word at `i` reads as a name: an acronym, or capitalised in mid-sentence
/// (`Theresa May`, `the US`; not `I`), or a sentence's capitalised first word when it is
/// no stop word and the next word is capitalised too (`Brian Pendleton`).
fn is_name(words: &[Word<'_>], i: usize) -> bool {
    let capitalised = |w: &Word<'_>| w.text.chars().next().is_some_and(char::is_uppercase);
    let word = &words[i];
    if is_acronym(word.text) {
        return true;
    }
    if !capitalised(word) || word.text == "I" {
        return false;
    }
    i > 0 || (!is_stop(&fold(word.text)) && words.get(1).is_some_and(capitalised))
}

/// The claim's salient words (numbers, quantities, ordinals, dates, names) that `page`
/// never mentions, each as the claim writes it; words next to each other in the claim
/// are given together (`16 May 2001`, `five-decade`). In the claim's order, without
/// repeats.
pub fn missing_words(claim: &str, page: &PageIndex) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (start, end) in missing_spans(claim, page) {
        let phrase = &claim[start..end];
        if !out.iter().any(|p| p == phrase) {
            out.push(phrase.to_string());
        }
    }
    out
}

/// Where [`missing_words`]' words stand in `claim` (byte ranges, in order).
///
/// The claim's dates, figures and names are looked up first; then what a reader takes
/// as one with a missing word joins it: the noun of a quantity or ordinal the page has
/// only elsewhere (`17 hours`, `1st District`), `early`/`mid`/`late` before a missing
/// year, a name between two missing names (`Port Baku Mall`), and a word hyphenated to a
/// missing one (`Grammy-nominated`).
pub fn missing_spans(claim: &str, page: &PageIndex) -> Vec<(usize, usize)> {
    if page.is_empty() {
        return Vec::new();
    }
    let markers = citation_markers(claim);
    let words: Vec<Word<'_>> = words(claim)
        .into_iter()
        .filter(|w| !markers.iter().any(|(s, e)| *s <= w.start && w.end <= *e))
        .collect();
    let mut flagged = vec![false; words.len()];
    let decided = flag_dates(&words, page, &mut flagged);
    flag_figures_and_names(claim, &words, page, &decided, &mut flagged);
    flag_date_modifiers(&words, &mut flagged);
    flag_names_between(claim, &words, &mut flagged);
    flag_hyphenated(claim, &words, &mut flagged);
    joined(claim, &words, &flagged)
}

/// Flags the claim's dates the page does not have, and returns which words belong to a
/// date (decided: not looked up again as numbers or names). A date is missing as the
/// claim writes it, except that a year the page gives elsewhere is left out of a missing
/// month (`3 March` of `3 March 2001`); a day whose month and year the page has makes the
/// whole date missing, since that is what a reader looks for.
fn flag_dates(words: &[Word<'_>], page: &PageIndex, flagged: &mut [bool]) -> Vec<bool> {
    let mut decided = vec![false; words.len()];
    for i in 0..words.len() {
        let Some(m) = month(words[i].text) else {
            continue;
        };
        let Some((key, span)) = date_at(words, i, m) else {
            continue;
        };
        for &j in &span {
            decided[j] = true;
        }
        if page.dates.contains(&key) {
            continue;
        }
        let month_on_page =
            matches!(key, DateKey::Day(y, m, _) if page.dates.contains(&DateKey::Month(y, m)));
        for &j in &span {
            let year = day_or_year(words[j].text).filter(|y| *y >= 100);
            // A year the page gives elsewhere is not missing; the month is.
            flagged[j] = month_on_page || !year.is_some_and(|y| page.has_number(f64::from(y)));
        }
    }
    decided
}

/// Flags the claim's numbers, quantities, ordinals and names (outside dates) that the
/// page does not have; a quantity or ordinal the page has only away from its noun is
/// missing with its noun (`17 hours`, `1st District`, `first-class`).
fn flag_figures_and_names(
    claim: &str,
    words: &[Word<'_>],
    page: &PageIndex,
    decided: &[bool],
    flagged: &mut [bool],
) {
    let mut nouns = Vec::new();
    for i in 0..words.len() {
        if decided[i] {
            continue;
        }
        let word = words[i].text;
        flagged[i] = match figure(word) {
            Some(Figure::Ordinal(n)) => {
                if !page.ordinals.contains_key(&n) {
                    true
                } else {
                    // Tied to its noun when written in figures (`1st District`), or
                    // part of a name or a compound (`First Avenue`, `first-class`); a
                    // word ordinal before a plain noun is too often loose ("the first
                    // single" on a page that says "debut single").
                    let in_figures = word.starts_with(|c: char| c.is_ascii_digit());
                    let noun = noun_after(words, i, |next| {
                        in_figures
                            || next.text.starts_with(char::is_uppercase)
                            || &claim[words[i].end..next.start] == "-"
                    });
                    let apart = noun
                        .is_some_and(|j| !page.has_ordinal_before(n, &stem(&fold(words[j].text))));
                    nouns.extend(noun.filter(|_| apart));
                    apart
                }
            }
            Some(Figure::Number(value)) => {
                let scaled = words
                    .get(i + 1)
                    .and_then(|next| multiplier(next.text))
                    .map(|m| value * m);
                if !page.has_number(value) && !scaled.is_some_and(|v| page.has_number(v)) {
                    true
                } else {
                    // A quantity: the number must stand near its noun on the page.
                    let counted = value < 1000.0 && word.bytes().all(|b| b.is_ascii_digit());
                    let noun =
                        noun_after(words, i, |next| next.text.chars().all(char::is_lowercase))
                            .filter(|_| counted);
                    let apart = noun
                        .is_some_and(|j| !page.has_quantity(value, &stem(&fold(words[j].text))));
                    nouns.extend(noun.filter(|_| apart));
                    apart
                }
            }
            None => is_name(words, i) && !page.has_word(word),
        };
    }
    for noun in nouns {
        flagged[noun] = true;
    }
}

/// The word right after the figure at `i` when it can be the figure's noun: next to it,
/// no figure, month or stop word, and `also` holds.
fn noun_after(words: &[Word<'_>], i: usize, also: impl Fn(&Word<'_>) -> bool) -> Option<usize> {
    let next = words.get(i + 1)?;
    let noun = next.start - words[i].end <= 1
        && figure(next.text).is_none()
        && month(next.text).is_none()
        && !is_stop(&fold(next.text))
        && also(next);
    noun.then_some(i + 1)
}

/// `early`, `mid` or `late` before a missing year is part of it (`early 2007`).
fn flag_date_modifiers(words: &[Word<'_>], flagged: &mut [bool]) {
    for i in 1..words.len() {
        let year = day_or_year(words[i].text).is_some_and(|y| y >= 100);
        if flagged[i]
            && year
            && matches!(fold(words[i - 1].text).as_str(), "early" | "mid" | "late")
        {
            flagged[i - 1] = true;
        }
    }
}

/// A capitalised word between two missing names, with nothing but spaces, hyphens and
/// stop words between them, is part of one missing name (`Port Baku Mall`,
/// `Northeastern New England`, `Clothing and Textile Workers`).
fn flag_names_between(claim: &str, words: &[Word<'_>], flagged: &mut [bool]) {
    let capitalised = |j: usize| words[j].text.chars().next().is_some_and(char::is_uppercase);
    let stop = |j: usize| is_stop(&fold(words[j].text));
    let plain_gap = |j: usize| {
        claim[words[j].end..words[j + 1].start]
            .chars()
            .all(|c| c.is_whitespace() || c == '-')
    };
    let found = flagged.to_vec();
    let missing_name = |j: usize| found[j] && capitalised(j);
    for i in 1..words.len().saturating_sub(1) {
        if found[i] || !capitalised(i) {
            continue;
        }
        let mut left = i - 1;
        while left > 0 && stop(left) && !found[left] {
            left -= 1;
        }
        let mut right = i + 1;
        while right + 1 < words.len() && stop(right) && !found[right] {
            right += 1;
        }
        if missing_name(left) && missing_name(right) && (left..right).all(plain_gap) {
            flagged[i] = true;
        }
    }
}

/// A word hyphenated to a missing one is part of it (`Grammy-nominated`).
fn flag_hyphenated(claim: &str, words: &[Word<'_>], flagged: &mut [bool]) {
    for i in 1..words.len() {
        let glued = &claim[words[i - 1].end..words[i].start] == "-";
        if glued && (flagged[i - 1] || flagged[i]) {
            flagged[i - 1] = true;
            flagged[i] = true;
        }
    }
}

/// Byte ranges of citation markers in `text` (`[1]`, `[2, 3]`, `[4-6]`, `[^1]`): their
/// numbers are not the claim's.
fn citation_markers(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(open) = bytes[i..].iter().position(|&b| b == b'[').map(|p| i + p) {
        let close = bytes[open..]
            .iter()
            .take(24)
            .position(|&b| b == b']')
            .map(|p| open + p);
        match close {
            Some(close) => {
                let inner = text[open + 1..close].trim_start_matches('^');
                let marker = inner.bytes().any(|b| b.is_ascii_digit())
                    && inner
                        .bytes()
                        .all(|b| b.is_ascii_digit() || matches!(b, b',' | b'-' | b' '));
                if marker {
                    out.push((open, close + 1));
                }
                i = open + 1;
            }
            None => i = open + 1,
        }
    }
    out
}

/// The flagged words' spans, neighbours joined across what stands between them in the
/// claim (a space, a hyphen, a comma).
fn joined(claim: &str, words: &[Word<'_>], flagged: &[bool]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    for (word, _) in words.iter().zip(flagged).filter(|(_, f)| **f) {
        run = match run {
            Some((start, end))
                if claim[end..word.start].chars().count() <= 2
                    && claim[end..word.start]
                        .chars()
                        .all(|c| c.is_whitespace() || matches!(c, '-' | ',' | '–')) =>
            {
                Some((start, word.end))
            }
            other => {
                out.extend(other);
                Some((word.start, word.end))
            }
        };
    }
    out.extend(run);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(claim: &str, page: &str) -> Vec<String> {
        missing_words(claim, &PageIndex::new([page]))
    }

    #[test]
    fn numbers_match_in_their_usual_spellings() {
        let claim = "The plant employs 1,200 people.";
        for page in [
            "It employs 1200 people.",
            "It employs 1,200 people.",
            "It employs 1.2k people.",
            "It employs 1.2 thousand people.",
        ] {
            assert!(missing(claim, page).is_empty(), "{page}");
        }
        assert_eq!(missing(claim, "It employs 1,300 people."), ["1,200"]);
        assert!(missing("Sales fell 5% in March.", "sales fell 5 percent in March").is_empty());
        assert!(missing("It has five wards.", "It has 5 wards.").is_empty());
        assert!(missing("It has 5 wards.", "It has five wards.").is_empty());
        assert!(missing("Revenue was $3.5 million.", "revenue of 3,500,000 dollars").is_empty());
    }

    #[test]
    fn a_number_inside_another_number_does_not_count() {
        assert_eq!(
            missing("It opened in 2019.", "Reference 20190 applies."),
            ["2019"]
        );
        assert_eq!(missing("It opened in 2019.", "Call 555-20191."), ["2019"]);
        assert!(missing("It opened in 2019.", "It opened on 2019-03-01.").is_empty());
    }

    #[test]
    fn dates_match_in_their_usual_orders() {
        let claim = "He was born on July 11, 1909 in Ohio.";
        for page in [
            "Born 11 July 1909 in Ohio.",
            "Born July 11, 1909, Ohio.",
            "Born 1909-07-11 in Ohio.",
        ] {
            assert!(missing(claim, page).is_empty(), "{page}");
        }
        // The page has the month and year, not the day: the date as written is missing.
        assert_eq!(
            missing(claim, "Born in July 1909 in Ohio."),
            ["July 11, 1909"]
        );
        assert_eq!(
            missing("It began in early 2007.", "It began in 2009."),
            ["early 2007"]
        );
        assert!(missing("It began in late 2007.", "It began late, in 2007.").is_empty());
        // Another date entirely: the whole date as the claim writes it.
        assert_eq!(
            missing(
                "Brian Pendleton died on 16 May 2001.",
                "Brian Pendleton died in 2003."
            ),
            ["16 May 2001"]
        );
        // The year is on the page elsewhere: the day and month are missing.
        assert_eq!(
            missing(
                "It closed on 3 March 2001.",
                "Founded 2001, it closed in June."
            ),
            ["3 March"]
        );
    }

    #[test]
    fn may_is_a_month_only_beside_a_day_or_year() {
        assert!(missing("May Smith won in May 2001.", "May Smith won in May 2001.").is_empty());
        assert_eq!(
            missing("It opened in May 2001.", "It opened in June 2001."),
            ["May"]
        );
        assert_eq!(
            missing("It was run by Theresa May.", "It was run by Theresa Smith."),
            ["May"]
        );
        assert!(missing("It may open in 2001.", "It opened in 2001.").is_empty());
    }

    #[test]
    fn acronyms_match_case_sensitively_and_dots_aside() {
        assert_eq!(
            missing("It shipped to the US market.", "Give it to us now."),
            ["US"]
        );
        assert!(missing("It shipped to the US market.", "Sold in the U.S. market.").is_empty());
        assert!(missing("It shipped to the US market.", "Sold in the US market.").is_empty());
    }

    #[test]
    fn names_match_case_and_accent_insensitively_and_by_stem() {
        assert!(missing(
            "His wife is Lisandra Hernández.",
            "married to LISANDRA HERNANDEZ"
        )
        .is_empty());
        assert_eq!(
            missing(
                "His wife is Lisandra Hernández.",
                "married to Lisandra Perez"
            ),
            ["Hernández"]
        );
        assert!(missing("The Beatles released it.", "a Beatle released it").is_empty());
        // A sentence's first word is a name only before another capitalised word.
        assert!(missing("Deploys are frozen in 2024.", "freezes in 2024").is_empty());
        assert_eq!(
            missing("Brian Pendleton left.", "Pendleton left."),
            ["Brian"]
        );
    }

    #[test]
    fn ordinals_and_quantities() {
        assert!(missing("It was the 3rd edition.", "the third edition").is_empty());
        assert_eq!(missing("It was the 3rd edition.", "3 editions"), ["3rd"]);
        assert!(missing("It was funded with 17 hours left.", "with 17 hours to go").is_empty());
        assert_eq!(
            missing(
                "It was funded with 17 hours left.",
                "17 backers pledged early, and two hours were left"
            ),
            ["17 hours"]
        );
        assert_eq!(
            missing(
                "He appeared in a Grammy-nominated film.",
                "A film about DJs."
            ),
            ["Grammy-nominated"]
        );
        // An ordinal in figures, or in a name or compound, needs its noun near it on the
        // page, as a quantity does.
        let claim = "He ran for the 1st District seat.";
        assert!(missing(claim, "He ran in the First District.").is_empty());
        assert!(missing(claim, "the 1st district of the state").is_empty());
        assert_eq!(
            missing(claim, "He first ran in 2016 for a district seat."),
            ["1st District"]
        );
        assert_eq!(missing(claim, "He ran for the district seat."), ["1st"]);
        assert_eq!(
            missing(
                "He retired from first-class cricket.",
                "First picked in 1990, he later played minor county cricket, a lower class."
            ),
            ["first-class"]
        );
        // A word ordinal before a plain noun is too loose to hold to its noun.
        assert!(missing("It was the first single.", "The debut single came first.").is_empty());
    }

    #[test]
    fn hyphenated_words_and_neighbours_are_given_together() {
        assert!(missing("A five-decade career.", "a career of five decades").is_empty());
        assert_eq!(
            missing("It won in 1909 at Beulah Park.", "It won at the track."),
            ["1909", "Beulah Park"]
        );
        assert!(missing("Nothing salient here at all.", "unrelated").is_empty());
        // A name between two missing names is one missing name.
        assert_eq!(
            missing(
                "The store is in the Port Baku Mall.",
                "The store opened in Baku in 2012."
            ),
            ["Port Baku Mall"]
        );
        assert_eq!(
            missing(
                "He joined the Clothing and Textile Workers Union.",
                "He joined a textile union in 1974."
            ),
            ["Clothing", "Textile Workers"]
        );
        // Not across punctuation, and not a name the page has beside only one.
        assert_eq!(
            missing(
                "In 1905, William Seymour spoke.",
                "William Seymour spoke in 1906."
            ),
            ["1905"]
        );
        assert!(
            missing("It won in 1909.", "").is_empty(),
            "an empty page: not judged"
        );
    }

    #[test]
    fn citation_markers_are_not_the_claims_numbers() {
        assert!(missing("It was founded in Boston [1][2, 3].", "Founded in Boston.").is_empty());
        assert_eq!(
            missing("It was founded in 1998 [^4].", "Founded long ago."),
            ["1998"]
        );
    }

    #[test]
    fn the_rules_count_is_cruder() {
        let index = PageIndex::new(["Founded in 1998 in Boston by Ada Lovelace."]);
        assert_eq!(
            rule_missing_count("It was founded in 1998 in Boston.", &index),
            0
        );
        // Every capitalised word but the first, and every figure, compared as words.
        assert_eq!(
            rule_missing_count("It was founded in 1999 in Austin.", &index),
            2
        );
        assert_eq!(rule_missing_count("Deploys Grew 5x", &index), 2);
    }

    #[test]
    fn the_page_title_counts() {
        let index = PageIndex::new(["About Us – Media Play News", "We cover 24 studios."]);
        assert!(missing_words("Media Play News covers 24 studios.", &index).is_empty());
    }

    #[test]
    fn hostile_input_never_panics() {
        let long = "9".repeat(10_000);
        let cases = [
            "",
            "1,",
            ",1",
            "1..2",
            "May",
            "May May May",
            "1st May",
            "31 May 99999",
            "0000-00-00",
            "2019-13-45",
            "’s",
            "U.S.A.",
            "Ⅻ",
            &long,
        ];
        for claim in cases {
            for page in cases {
                let _ = missing(claim, page);
            }
        }
    }
}

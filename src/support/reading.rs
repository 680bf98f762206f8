//! Reading a text the way `missing` and the figure reader compare it: its words (with
//! where they stand), folded to lower case without accents; the numbers, ordinals and
//! multipliers they write (`1,200`, `five`, `3rd`, `1.2k`); the months they name; and
//! the dates around a month (`11 July 1909`, `July 11, 1909`, `July 1909`).

/// Cardinal number words and their values ("one" is left out: it is far more often a
/// pronoun — "one of the", "the only one" — than a count).
pub(in crate::support) const CARDINALS: [(&str, f64); 27] = [
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
pub(in crate::support) const ORDINALS: [(&str, u32); 10] = [
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
pub(in crate::support) const MULTIPLIERS: [(&str, f64); 9] = [
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
pub(in crate::support) use crate::collect::claims::MONTH_NAMES as MONTHS;

/// One word or number of a text, with where it stands.
#[derive(Debug, Clone, Copy)]
pub(in crate::support) struct Word<'a> {
    /// The word as written.
    pub text: &'a str,
    /// Where it starts (a byte offset).
    pub start: usize,
    /// Where it ends.
    pub end: usize,
}

/// The words of `text`: runs of letters and digits (with apostrophes inside words and
/// `,` or `.` between digits), in order.
pub(in crate::support) fn words(text: &str) -> Vec<Word<'_>> {
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
pub(in crate::support) fn fold(word: &str) -> String {
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
pub(in crate::support) enum Numeral {
    /// A count or amount (`1,200`, `five`, `1.2k`).
    Number(f64),
    /// An ordinal (`3rd`, `third`).
    Ordinal(u32),
}

/// The number or ordinal `word` writes, if it is one.
pub(in crate::support) fn numeral(word: &str) -> Option<Numeral> {
    let folded = word.to_ascii_lowercase();
    if let Some(&(_, n)) = ORDINALS.iter().find(|(w, _)| *w == folded) {
        return Some(Numeral::Ordinal(n));
    }
    if let Some(&(_, n)) = CARDINALS.iter().find(|(w, _)| *w == folded) {
        return Some(Numeral::Number(n));
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
        "" => Some(Numeral::Number(value)),
        "st" | "nd" | "rd" | "th" => {
            let whole = digits.replace(',', "");
            whole.parse().ok().map(Numeral::Ordinal)
        }
        _ => MULTIPLIERS
            .iter()
            .find(|(w, _)| *w == suffix)
            .map(|(_, m)| Numeral::Number(value * m)),
    }
}

/// The multiplier a separate word after a number names (`thousand`, `million`; the
/// short suffixes only count glued to their number).
pub(in crate::support) fn multiplier(word: &str) -> Option<f64> {
    let folded = word.to_ascii_lowercase();
    MULTIPLIERS
        .iter()
        .find(|(w, _)| w.len() > 2 && *w == folded)
        .map(|(_, m)| *m)
}

/// The month (1–12) `word` names: a full name, or a three-letter abbreviation other
/// than `may`/`mar` (words in their own right), or `sept`.
pub(in crate::support) fn month(word: &str) -> Option<u32> {
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
pub(in crate::support) fn day_or_year(word: &str) -> Option<u32> {
    if word.is_empty() || word.len() > 4 || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse().ok()
}

/// A date the text gives, as precise as it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(in crate::support) enum DateKey {
    /// Year, month and day.
    Day(u32, u32, u32),
    /// Year and month.
    Month(u32, u32),
    /// Month and day, without a year.
    MonthDay(u32, u32),
}

/// A date around the month at `at` in `words` (`11 July 1909`, `July 11, 1909`,
/// `July 1909`, `July 11`), with the indexes of the words it spans.
pub(in crate::support) fn date_at(
    words: &[Word<'_>],
    at: usize,
    month: u32,
) -> Option<(DateKey, Vec<usize>)> {
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
pub(in crate::support) fn date_keys(key: DateKey) -> impl Iterator<Item = DateKey> {
    let more = match key {
        DateKey::Day(y, m, d) => [Some(DateKey::Month(y, m)), Some(DateKey::MonthDay(m, d))],
        _ => [None, None],
    };
    std::iter::once(key).chain(more.into_iter().flatten())
}

/// Two or more capital letters (digits allowed after the first): `US`, `NASA`, `G7`.
pub(in crate::support) fn is_acronym(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase)
        && word.chars().count() >= 2
        && word.chars().all(|c| c.is_uppercase() || c.is_ascii_digit())
}

/// Byte ranges of citation markers in `text` (`[1]`, `[2, 3]`, `[4-6]`, `[^1]`, read as
/// the collector's scanner reads them): their numbers are not the claim's.
pub(in crate::support) fn citation_markers(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find('[').map(|p| from + p) {
        match crate::collect::scan::citation_marker(text, open) {
            Some((end, _)) => {
                out.push((open, end));
                from = end;
            }
            None => from = open + 1,
        }
    }
    out
}

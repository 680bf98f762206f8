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
//! - figures read whole ([`super::figures`]): a time, a sum of money, a size, a share, a
//!   quarter, a range or a rate the page does not give in any spelling is missing once,
//!   as the claim writes it (`14:00 UTC`, not `14`; `$4.5 million`, `3.2 GB`, `10–15%`,
//!   `Q3 2025`, `1,200 requests per second`), and one it gives in another spelling is
//!   not (`14:00` = `2 p.m.`, `$4.5 million` = `4.5 million dollars` = `US$4.5m`);
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
//! Citation markers (`[1]`, `[2-4]`, `[^5]`) are read as the collector's scanner reads
//! them ([`crate::collect::scan::citation_marker`]): their numbers are not the claim's.
//!
//! No allocation per character; a page is indexed once ([`PageIndex`]) and every claim
//! citing it is matched against the index. The module's pieces: `read` (words, numbers,
//! months, dates), `index` (the page's index), this file (the rules).

mod index;
#[cfg(test)]
mod tests;

use super::figures::{self, Figure, Kind, Value};
use super::reading::*;
use super::text::{is_stop, stem};
pub use index::{PageIndex, MAX_INDEXED_WORDS};

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
/// The claim's dates are looked up first, then its figures read whole (times, sums,
/// sizes, shares, quarters, ranges, rates), then its other numbers and its names; then
/// what a reader takes
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
    let mut decided = flag_dates(&words, page, &mut flagged);
    let whole = flag_whole_figures(claim, &words, page, &mut decided, &mut flagged);
    flag_figures_and_names(claim, &words, page, &decided, &mut flagged);
    flag_date_modifiers(&words, &mut flagged);
    flag_names_between(claim, &words, &mut flagged);
    flag_hyphenated(claim, &words, &mut flagged);
    with_whole(joined(claim, &words, &flagged), whole)
}

/// Whether a claim's figure is matched whole rather than word by word: times, sums,
/// sizes, shares, quarters, ranges and rates (a date, a year, a number and a count of a
/// noun keep the word-by-word rules).
fn read_whole(figure: &Figure) -> bool {
    let range = matches!(figure.value, Value::Range(..));
    match &figure.kind {
        Kind::Time | Kind::Money { .. } | Kind::Size { .. } | Kind::Percent | Kind::Quarter => true,
        Kind::Count { per, .. } => per.is_some() || range,
        Kind::Year | Kind::Number => range,
        Kind::Date => false,
    }
}

/// Flags the claim's figures read whole ([`read_whole`]) that the page does not give in
/// any spelling, marks their words decided, and returns their spans as the claim writes
/// them (`14:00 UTC`, `$4.5 million`, `10–15%`; a count without its noun).
fn flag_whole_figures(
    claim: &str,
    words: &[Word<'_>],
    page: &PageIndex,
    decided: &mut [bool],
    flagged: &mut [bool],
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for figure in figures::read_words(claim, words) {
        if !read_whole(&figure) {
            continue;
        }
        let inside: Vec<usize> = (0..words.len())
            .filter(|&j| figure.span.start <= words[j].start && words[j].end <= figure.span.end)
            .collect();
        if inside.iter().any(|&j| decided[j]) {
            continue;
        }
        for &j in &inside {
            decided[j] = true;
        }
        if page.has_figure(&figure) {
            continue;
        }
        let shown = match &figure.kind {
            Kind::Count { per: None, .. } => figure.head.clone(),
            _ => figure.span.clone(),
        };
        for &j in &inside {
            flagged[j] = words[j].end <= shown.end;
        }
        out.push((shown.start, shown.end));
    }
    out
}

/// `spans` (sorted) with the `whole` figures' spans added: a span that overlaps one
/// grows to take it in (`4.5 million` → `$4.5 million`).
fn with_whole(spans: Vec<(usize, usize)>, whole: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    if whole.is_empty() {
        return spans;
    }
    let mut all = spans;
    all.extend(whole);
    all.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(all.len());
    for (start, end) in all {
        match out.last_mut() {
            Some(last) if start < last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
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
        flagged[i] = match numeral(word) {
            Some(Numeral::Ordinal(n)) => {
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
            Some(Numeral::Number(value)) => {
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
/// no figure, multiplier (`1 million` is a number), month or stop word, and `also` holds.
fn noun_after(words: &[Word<'_>], i: usize, also: impl Fn(&Word<'_>) -> bool) -> Option<usize> {
    let next = words.get(i + 1)?;
    let noun = next.start - words[i].end <= 1
        && numeral(next.text).is_none()
        && multiplier(next.text).is_none()
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

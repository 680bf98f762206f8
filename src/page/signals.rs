//! What a page shows about itself: the signals of care a reader looks for before
//! trusting it (who wrote it, when it was published and last updated, what it cites,
//! whether it corrects its mistakes, how long it is), gathered into a
//! [`PageSignals`].
//!
//! [`read`] reads them from the page's main text, whatever kind of page it came
//! from: a byline and dated lines near the top, references sections, DOIs and
//! citation markers, correction notices, and the word count.
//!
//! Pure and bounded: no network, no logging, no panics; every count stops at
//! [`MAX_COUNT`], every scan is linear in its input, and nothing of the page's words
//! is kept but the normalised dates.

mod words;

use crate::model::PageSignals;
use aho_corasick::AhoCorasick;
use regex::{Captures, Regex};
use std::collections::HashSet;
use std::sync::LazyLock;
use words::{
    CORRECTION_OPENINGS, CORRECTION_PHRASES, DATE_FORMS, MONTH, NOT_NAMES, REFERENCE_HEADINGS,
    WEEKDAY,
};

/// Most ad slots and references counted on one page.
pub(super) const MAX_COUNT: usize = 10_000;

/// Characters at the top of the text searched for a byline and dates.
const HEAD_CHARS: usize = 2_000;

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the signal patterns are valid")
}

/// "Published May 4, 2023", "Last updated: 2023-05-04", "Posted on 4 May 2023".
static DATED_LINE: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b(?P<kw>first\s+published|originally\s+published|published|posted|last\s+updated|updated|last\s+modified|modified|last\s+revised|revised)(?:\s+on)?\s*:?\s*(?:on\s+)?{WEEKDAY}{}",
        DATE_FORMS.replace("MONTH", MONTH)
    ))
});

/// A byline at the start of a paragraph: "By Jane Smith", "Written by A. Writer",
/// "Author: Ludwig van Beethoven". Two capitalised words at least.
static BYLINE: LazyLock<Regex> = LazyLock::new(|| {
    let name = r"\p{Lu}[\p{L}\p{M}'\x{2019}.\-]*";
    regex(&format!(
        r"^(?:(?:(?i:written|words|reported|story|text)\s+)?(?i:by)(?:\s*:\s*|\s+)|(?i:authors?)\s*:\s*)(?P<first>{name})(?:\s+(?i:van|von|de|der|den|da|di|du|del|della|la|le|bin|ibn|al|el)){{0,3}}\s+{name}"
    ))
});

/// A DOI (the Crossref pattern for modern DOIs).
static DOI: LazyLock<Regex> = LazyLock::new(|| regex(r"10\.[0-9]{4,9}/[-._;()/:A-Za-z0-9]+"));

/// A citation marker: `[12]`, `[1, 3]`, `[4–6]`.
static MARKER: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\[([0-9]{1,3}(?:\s*[,\x{2013}-]\s*[0-9]{1,3}){0,20})\]"));

/// The number that opens a reference entry: `[3] ` or `3. `.
static ENTRY_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?:^|\s)(?:\[([0-9]{1,3})\]|([0-9]{1,3})\.)\s"));

static CORRECTIONS: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(CORRECTION_PHRASES)
        .expect("the correction phrases are valid")
});

/// The signals of a page whose main text is `text`.
pub(super) fn read(text: &str) -> PageSignals {
    let head = prefix(text, HEAD_CHARS);
    let (published, updated) = dates_in(head);
    PageSignals {
        author: byline_in(head),
        published,
        updated,
        references: references_in(text).min(MAX_COUNT),
        corrections: corrections_in(text),
        ad_slots: 0,
        scholarly: false,
        words: text.split_whitespace().count(),
    }
}

/// The signals a page's main text shows by itself (no markup): a byline and dates
/// near the top, references, corrections and the word count. For text that did not
/// come through [`extract`](super::extract), such as a chat message read as a page.
/// Pure and bounded; counts stop at 10,000.
pub fn text_signals(text: &str) -> PageSignals {
    read(text)
}

/// The date in a match of [`DATE_FORMS`].
fn date_of(captures: &Captures<'_>) -> Option<String> {
    let get = |name: &str| captures.name(name).map(|m| m.as_str());
    let number = |name: &str| get(name)?.parse::<u32>().ok();
    let month = |name: &str| get(name).and_then(month_number);
    if get("y1").is_some() {
        ymd(number("y1")?, Some(number("m1")?), Some(number("d1")?))
    } else if get("y2").is_some() {
        ymd(number("y2")?, Some(month("mn2")?), Some(number("d2")?))
    } else if get("y3").is_some() {
        ymd(number("y3")?, Some(month("mn3")?), Some(number("d3")?))
    } else {
        ymd(number("y4")?, Some(month("mn4")?), None)
    }
}

/// `1` for January (any of its spellings in [`MONTH`]) to `12`.
fn month_number(name: &str) -> Option<u32> {
    let start = prefix(name, 3).to_ascii_lowercase();
    let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    months
        .iter()
        .position(|m| *m == start)
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// A checked date: the year in 1900..=2100, the month and day real ones (`None`: the
/// form has no month, or no day), as `YYYY-MM-DD`, `YYYY-MM` or `YYYY`.
fn ymd(year: u32, month: Option<u32>, day: Option<u32>) -> Option<String> {
    if !(1900..=2100).contains(&year) {
        return None;
    }
    let Some(month) = month else {
        return Some(format!("{year:04}"));
    };
    if !(1..=12).contains(&month) {
        return None;
    }
    let Some(day) = day else {
        return Some(format!("{year:04}-{month:02}"));
    };
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (1..=days)
        .contains(&day)
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

/// The first "Published …" and "Updated …" dates in `head`.
fn dates_in(head: &str) -> (Option<String>, Option<String>) {
    let mut published = None;
    let mut updated = None;
    for captures in DATED_LINE.captures_iter(head) {
        let keyword = captures
            .name("kw")
            .map(|m| m.as_str().to_ascii_lowercase())
            .unwrap_or_default();
        let slot = if ["updat", "modif", "revis"]
            .iter()
            .any(|k| keyword.contains(k))
        {
            &mut updated
        } else {
            &mut published
        };
        if slot.is_none() {
            *slot = date_of(&captures);
        }
        if published.is_some() && updated.is_some() {
            break;
        }
    }
    (published, updated)
}

/// Whether a paragraph of `head` (or a part of one between `|`, `·` or `•`) opens with
/// a byline naming someone.
fn byline_in(head: &str) -> bool {
    head.split("\n\n")
        .flat_map(|paragraph| paragraph.split(['|', '\u{b7}', '\u{2022}']))
        .filter_map(|part| BYLINE.captures(part.trim()))
        .any(|captures| {
            captures.name("first").is_some_and(|first| {
                let first = first.as_str().trim_end_matches('.');
                !NOT_NAMES.iter().any(|n| n.eq_ignore_ascii_case(first))
            })
        })
}

/// Whether the text carries a correction notice or mentions a corrections policy.
fn corrections_in(text: &str) -> bool {
    CORRECTIONS.is_match(text)
        || text.split("\n\n").any(|paragraph| {
            let start = paragraph.trim_start().as_bytes();
            CORRECTION_OPENINGS.iter().any(|opening| {
                start
                    .get(..opening.len())
                    .is_some_and(|s| s.eq_ignore_ascii_case(opening.as_bytes()))
            })
        })
}

/// References in the text: the entries of its references sections, the distinct
/// citation markers, or the distinct DOIs, whichever are more (they mostly count the
/// same references).
fn references_in(text: &str) -> usize {
    section_entries(text)
        .max(citation_markers(text))
        .max(distinct_dois(text))
}

/// Entries under references headings, up to the next heading.
fn section_entries(text: &str) -> usize {
    let mut inside = false;
    let mut entries = 0usize;
    for paragraph in text.split("\n\n") {
        if is_references_heading(paragraph) {
            inside = true;
        } else if inside && looks_like_heading(paragraph) {
            inside = false;
        } else if inside {
            entries += entries_in(paragraph);
            if entries >= MAX_COUNT {
                return MAX_COUNT;
            }
        }
    }
    entries
}

/// Entries in one paragraph of a references section: one, or as many as its entries
/// numbered in sequence (`[1] … [2] …`, `1. … 2. …`: lines of plain text join into
/// one paragraph).
fn entries_in(paragraph: &str) -> usize {
    let mut expected = None;
    let mut count = 0usize;
    for captures in ENTRY_NUMBER.captures_iter(paragraph) {
        let number = captures
            .get(1)
            .or_else(|| captures.get(2))
            .and_then(|m| m.as_str().parse::<usize>().ok());
        let Some(number) = number else { continue };
        if expected.is_none_or(|e| e == number) {
            count += 1;
            expected = Some(number + 1);
        }
    }
    count.max(1)
}

/// Whether `paragraph` is the heading of a references section ("References",
/// "7. Notes", "## Bibliography", "WORKS CITED:").
fn is_references_heading(paragraph: &str) -> bool {
    let line = paragraph.trim();
    if line.len() > 60 {
        return false;
    }
    let line = line.trim_start_matches(['#', '*', '_', ' ']);
    let line = match line.split_once(' ') {
        Some((number, rest))
            if !number.is_empty()
                && number.trim_end_matches('.').chars().all(|c| {
                    c.is_ascii_digit() || matches!(c, 'I' | 'V' | 'X' | 'i' | 'v' | 'x')
                }) =>
        {
            rest
        }
        _ => line,
    };
    let line = line
        .trim_end_matches(['#', '*', '_', ':', ' '])
        .to_lowercase();
    REFERENCE_HEADINGS.contains(&line.as_str())
}

/// Whether `paragraph` looks like a section heading: a few words, no digits, no
/// sentence or citation punctuation.
fn looks_like_heading(paragraph: &str) -> bool {
    let line = paragraph.trim();
    line.chars().count() <= 40
        && line.split_whitespace().count() <= 4
        && !line.contains(|c: char| c.is_ascii_digit() || matches!(c, '.' | '[' | ',' | '('))
}

/// Distinct numbers in citation markers (`[3]`, `[1, 4]`, `[5–7]`), 1 to 999.
fn citation_markers(text: &str) -> usize {
    let mut seen = [false; 1000];
    for captures in MARKER.captures_iter(text) {
        let Some(list) = captures.get(1) else {
            continue;
        };
        for item in list.as_str().split(',') {
            let mut ends = item
                .split(['-', '\u{2013}'])
                .map(|n| n.trim().parse::<usize>());
            let (Some(Ok(first)), last) = (ends.next(), ends.next()) else {
                continue;
            };
            let last = match last {
                Some(Ok(last)) if last >= first && last - first <= 100 => last,
                _ => first,
            };
            for number in first.max(1)..=last {
                if let Some(slot) = seen.get_mut(number) {
                    *slot = true;
                }
            }
        }
    }
    seen.iter().filter(|&&s| s).count()
}

/// Distinct DOIs in the text.
fn distinct_dois(text: &str) -> usize {
    let mut dois = HashSet::new();
    for found in DOI.find_iter(text) {
        let doi = found.as_str().trim_end_matches(['.', ',', ';', ':', ')']);
        dois.insert(prefix(doi, 200).to_ascii_lowercase());
        if dois.len() >= MAX_COUNT {
            break;
        }
    }
    dois.len()
}

/// The first `chars` characters of `s`.
fn prefix(s: &str, chars: usize) -> &str {
    match s.char_indices().nth(chars) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

#[cfg(test)]
mod tests;

//! A page indexed once for `missing`: its words, stems, numbers and ordinals with their
//! positions, dates, acronyms and the whole figures it gives, so that every claim citing
//! the page is matched against the index without reading the page again.

use crate::support::figures::{self, Figure, Kind, Value};
use crate::support::reading::*;
use crate::support::text::stem;
use std::collections::{HashMap, HashSet};

/// How far (in words) a quantity's number may stand from its noun on the page.
pub(in crate::support) const QUANTITY_WINDOW: usize = 4;

/// Most words of a page indexed; the rest of a longer page is not read for this.
pub const MAX_INDEXED_WORDS: usize = 400_000;

/// Most figures of a page kept for reading claims' figures whole.
const MAX_INDEXED_FIGURES: usize = 50_000;

/// A page's words, numbers, ordinals, dates and acronyms, for matching claims against.
#[derive(Debug, Clone, Default)]
pub struct PageIndex {
    pub(super) words: HashSet<String>,
    pub(super) stems: HashSet<String>,
    /// Number values (as bits) → positions, for quantities.
    pub(super) numbers: HashMap<u64, Vec<u32>>,
    /// Ordinal values → positions, for ordinals before a noun (`1st District`).
    pub(super) ordinals: HashMap<u32, Vec<u32>>,
    pub(super) dates: HashSet<DateKey>,
    pub(super) acronyms: HashSet<String>,
    /// The stem at each position (for quantities), up to [`MAX_INDEXED_WORDS`].
    pub(super) position_stems: Vec<String>,
    /// The page's figures that claims' whole figures are matched against (all but its
    /// dates, which are matched as `dates`), up to [`MAX_INDEXED_FIGURES`].
    pub(super) figures: Vec<Figure>,
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
        let room = MAX_INDEXED_WORDS.saturating_sub(self.position_stems.len());
        self.add_figures(text, &found[..found.len().min(room)]);
        for (i, word) in found.iter().enumerate() {
            let position = self.position_stems.len();
            if position >= MAX_INDEXED_WORDS {
                return;
            }
            let folded = fold(word.text);
            let stemmed = stem(&folded);
            match numeral(word.text) {
                Some(Numeral::Number(value)) => {
                    self.add_number(value, position);
                    if let Some(m) = found.get(i + 1).and_then(|w| multiplier(w.text)) {
                        self.add_number(value * m, position);
                    }
                }
                Some(Numeral::Ordinal(n)) => {
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

    fn add_figures(&mut self, text: &str, found: &[Word<'_>]) {
        let kept = figures::read_words(text, found)
            .into_iter()
            .filter(|f| f.kind != Kind::Date);
        let room = MAX_INDEXED_FIGURES.saturating_sub(self.figures.len());
        self.figures.extend(kept.take(room));
    }

    /// Whether the page gives `figure` (one of a claim's, read whole), however spelled.
    pub(super) fn has_figure(&self, figure: &Figure) -> bool {
        let found = self.figures.iter().any(|page| figure.found_in(page));
        // A range of years the page gives year by year (`from 1998 … until 2001`).
        let years = matches!(
            (&figure.kind, &figure.value),
            (Kind::Year, Value::Range(low, high)) if self.has_number(*low) && self.has_number(*high)
        );
        found || years
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

    pub(super) fn has_word(&self, word: &str) -> bool {
        if is_acronym(word) {
            return self.acronyms.contains(word);
        }
        let folded = fold(word);
        self.words.contains(&folded) || self.stems.contains(&stem(&folded))
    }

    pub(super) fn has_number(&self, value: f64) -> bool {
        self.numbers.contains_key(&value.to_bits())
    }

    /// Whether `value` stands within [`QUANTITY_WINDOW`] words of a word whose stem is
    /// `noun`.
    pub(super) fn has_quantity(&self, value: f64, noun: &str) -> bool {
        self.numbers
            .get(&value.to_bits())
            .is_some_and(|positions| self.near(positions, noun))
    }

    /// Whether the ordinal `n` stands within [`QUANTITY_WINDOW`] words of a word whose
    /// stem is `noun` (`1st District` needs `first district`, not any `first`).
    pub(super) fn has_ordinal_before(&self, n: u32, noun: &str) -> bool {
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

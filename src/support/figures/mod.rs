//! Figures read whole. A claim rests on its figures — a time, a sum, a share, a count —
//! and a figure read in pieces is misread: `14:00 UTC` is not `14`, `$4.5 million` is
//! not `4.5`. [`figures`] finds each figure of a text with its byte span, its [`Kind`]
//! and its [`Value`] normalised so that two spellings compare equal (`14:00` = `2 p.m.`,
//! `$4.5 million` = `4.5 million dollars` = `US$4.5m`, `3.2 GB` = `3.2 gigabytes`,
//! `10–15%` = `10 to 15 per cent`, `Q3 2025` = `third quarter of 2025`); `missing` uses
//! it to list a figure the page lacks once, as the claim writes it, and [`super::differs`] to
//! say what the page gives instead for the same thing ("the page says 16:00 UTC, not
//! 14:00 UTC").
//!
//! Kinds: years, dates (read as `missing` reads them), times of day (with their zone),
//! quarters, money (its currency part of the kind), sizes in bytes, percentages, counts
//! of a thing (a number before its noun: `17 hours`, `1,200 requests per second`; the
//! stemmed noun and any rate part of the kind) and plain numbers. A range
//! (`10–15`, `between 10 and 15`, `10 to 15`) is one figure.
//!
//! Pieces: `parse` reads the figures, `units` holds the currencies, sizes, zones and
//! rates it knows, `differs` compares a claim's figures with a passage's.

pub(in crate::support) mod parse;
#[cfg(test)]
mod tests;
mod units;

use crate::support::reading::{words, Word};
use std::ops::Range;

/// What a figure counts or measures. Two figures can disagree only within one kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A year (`1998`; a range of years `1998–2001`).
    Year,
    /// A date (`11 July 1909`, `July 1909`, `2019-03-01`).
    Date,
    /// A time of day (`14:00 UTC`, `2 p.m.`).
    Time,
    /// A quarter of a year (`Q3 2025`, `third quarter`).
    Quarter,
    /// A share (`5%`, `10–15 per cent`).
    Percent,
    /// A sum of money in a currency (ISO code; `$` is the US dollar), with its rate if
    /// it has one (`$30 a month`: `month`).
    Money {
        /// The currency's ISO code (`USD`, `EUR`, `GBP`…).
        currency: &'static str,
        /// What the sum is per (`month`, `share`), if anything.
        per: Option<String>,
    },
    /// A size in bytes (`3.2 GB`, `512 KiB`), with its rate if it has one (`GB/s`).
    Size {
        /// What the size is per (`second`), if anything.
        per: Option<String>,
    },
    /// A count of a thing: the number before its noun (`17 hours`, `3 directors`).
    Count {
        /// The noun, lower case and stemmed (`hour`, `director`, `km`).
        noun: String,
        /// What the count is per (`1,200 requests per second`: `second`), if anything.
        per: Option<String>,
    },
    /// A number with nothing to say what it counts.
    Number,
}

/// A figure's value, normalised: the same value however it is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An amount in the kind's base unit (units of the currency, bytes, percent, items;
    /// a year's number).
    Amount(f64),
    /// A range of amounts, low to high.
    Range(f64, f64),
    /// A date, as precise as it is written.
    Date {
        /// The year, if given.
        year: Option<u32>,
        /// The month (1–12).
        month: u32,
        /// The day, if given.
        day: Option<u32>,
    },
    /// A time of day.
    Time {
        /// Minutes after midnight (`2 p.m.` is 840).
        minute: u32,
        /// The zone as written (`UTC`, `ET`), if given.
        zone: Option<String>,
    },
    /// A quarter of a year.
    Quarter {
        /// 1 to 4.
        quarter: u32,
        /// The year, if given.
        year: Option<u32>,
    },
}

/// A figure of a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Where the whole figure stands in the text (byte range): `$4.5 million`,
    /// `14:00 UTC`, `1,200 requests per second`.
    pub span: Range<usize>,
    /// The figure without the noun it counts (`1,200` of `1,200 requests per second`);
    /// the whole span for other kinds.
    pub head: Range<usize>,
    /// What it counts or measures.
    pub kind: Kind,
    /// Its value.
    pub value: Value,
}

/// The figures of `text`, in order, none overlapping. Citation markers (`[1]`) and the
/// digits of URLs are not figures.
pub fn figures(text: &str) -> Vec<Figure> {
    parse::read(text, &prose_words(text))
}

/// The words of `text` that are prose: not inside a citation marker (`[1]`) or a URL
/// (`https://…/2020-report`, `www.…`), whose digits are no figures.
pub(in crate::support) fn prose_words(text: &str) -> Vec<Word<'_>> {
    let mut skipped = crate::support::reading::citation_markers(text);
    let mut at = 0;
    for token in text.split_whitespace() {
        let start = text[at..].find(token).map_or(at, |i| at + i);
        at = start + token.len();
        let lower = token.trim_start_matches(['(', '[', '<', '"']);
        if token.contains("://") || lower.starts_with("www.") {
            skipped.push((start, at));
        }
    }
    words(text)
        .into_iter()
        .filter(|w| !skipped.iter().any(|(s, e)| *s <= w.start && w.end <= *e))
        .collect()
}

/// The figures among `words` (the words of `text`, as `missing` reads them), in order.
pub(in crate::support) fn read_words(
    text: &str,
    words: &[crate::support::reading::Word<'_>],
) -> Vec<Figure> {
    parse::read(text, words)
}

/// Whether two amounts are the same number (written differently: `1.2k` and `1,200`).
fn same_amount(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

impl Value {
    /// Whether two values are the same amount or range.
    fn same_amount(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Amount(a), Value::Amount(b)) => same_amount(*a, *b),
            (Value::Range(a, b), Value::Range(c, d)) => same_amount(*a, *c) && same_amount(*b, *d),
            _ => false,
        }
    }

    /// Whether this (an amount or a range) includes the year `year`.
    fn has_year(&self, year: u32) -> bool {
        match self {
            Value::Amount(a) => same_amount(*a, f64::from(year)),
            Value::Range(a, b) => {
                same_amount(*a, f64::from(year)) || same_amount(*b, f64::from(year))
            }
            _ => false,
        }
    }
}

/// Whether a rate on the page fits the claim's: the same, or the claim gives none (a
/// page's `$30 a month` has the claim's `$30`), or the page gives none.
fn same_rate(claim: &Option<String>, page: &Option<String>) -> bool {
    claim.is_none() || page.is_none() || claim == page
}

impl Figure {
    /// The figure as `text` (the text it was read from) writes it.
    pub fn text<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.span.clone()).unwrap_or_default()
    }

    /// Whether `page` (a figure of the page) gives this figure (one of the claim's),
    /// however it is spelled: the same value of the same kind, or of a kind that says
    /// less (a time without its zone, a quarter without its year, a sum or share written
    /// as a bare number, a year inside a date).
    pub fn found_in(&self, page: &Figure) -> bool {
        use Kind::*;
        match (&self.kind, &page.kind) {
            (Time, Time) => match (&self.value, &page.value) {
                (
                    Value::Time { minute, zone },
                    Value::Time {
                        minute: other,
                        zone: other_zone,
                    },
                ) => {
                    minute == other
                        && (zone.is_none() || other_zone.is_none() || zone == other_zone)
                }
                _ => false,
            },
            (Quarter, Quarter) => match (&self.value, &page.value) {
                (
                    Value::Quarter { quarter, year },
                    Value::Quarter {
                        quarter: q,
                        year: y,
                    },
                ) => quarter == q && (year.is_none() || y.is_none() || year == y),
                _ => false,
            },
            (Date, Date) => match (&self.value, &page.value) {
                (
                    Value::Date { year, month, day },
                    Value::Date {
                        year: y,
                        month: m,
                        day: d,
                    },
                ) => month == m && (year.is_none() || year == y) && (day.is_none() || day == d),
                _ => false,
            },
            (Year, Date) => match (&self.value, &page.value) {
                (Value::Amount(_), Value::Date { year: Some(y), .. }) => self.value.has_year(*y),
                _ => false,
            },
            (Year, Year | Number) | (Percent, Percent | Number) | (Number, _) => {
                self.value.same_amount(&page.value)
            }
            (
                Money { currency, per },
                Money {
                    currency: c,
                    per: p,
                },
            ) => currency == c && same_rate(per, p) && self.value.same_amount(&page.value),
            (Size { per }, Size { per: p }) => {
                same_rate(per, p) && self.value.same_amount(&page.value)
            }
            (Count { noun, per }, Count { noun: n, per: p }) => {
                noun == n && same_rate(per, p) && self.value.same_amount(&page.value)
            }
            (Money { .. } | Size { .. } | Count { .. }, Number) => {
                self.value.same_amount(&page.value)
            }
            _ => false,
        }
    }

    /// Whether `other` is a figure of the same kind for the same sort of thing, so that
    /// a different value would contradict this one: a year and a year, a time and a time,
    /// money in the same currency and rate, a size and a size, a share and a share,
    /// counts of the same noun at the same rate, dates written as precisely, a year and
    /// a dated day of another year. Never a plain number, and never two kinds apart (a
    /// year and a count, a time and a share).
    pub fn comparable(&self, other: &Figure) -> bool {
        use Kind::*;
        match (&self.kind, &other.kind) {
            (Year, Year) | (Time, Time) | (Quarter, Quarter) | (Percent, Percent) => true,
            // A year and a dated day of another year (`in 1995` against `on Jan. 28,
            // 1996`).
            (Year, Date) | (Date, Year) => match (&self.value, &other.value) {
                (Value::Amount(year), Value::Date { year: Some(y), .. })
                | (Value::Date { year: Some(y), .. }, Value::Amount(year)) => {
                    !same_amount(*year, f64::from(*y))
                }
                _ => false,
            },
            (Date, Date) => match (&self.value, &other.value) {
                (
                    Value::Date { year, day, .. },
                    Value::Date {
                        year: y, day: d, ..
                    },
                ) => year.is_some() == y.is_some() && day.is_some() == d.is_some(),
                _ => false,
            },
            (
                Money { currency, per },
                Money {
                    currency: c,
                    per: p,
                },
            ) => currency == c && per == p,
            (Size { per }, Size { per: p }) => per == p,
            (Count { noun, per }, Count { noun: n, per: p }) => noun == n && per == p,
            _ => false,
        }
    }
}

//! Credibility of search results (`{title, link, snippet, date?, position}`).
//!
//! Each result gets four component scores in `[0, 1]` — the reputation of its domain,
//! how recent it is, how informative its snippet is, and its rank — and a value
//! `0.4·domain + 0.3·recency + 0.2·snippet + 0.1·position` (weights configurable through
//! [`SearchWeights`]), rounded to 4 decimals, half away from zero. [`score_all`] sorts
//! results by that value, best first; [`filter_above_threshold`] keeps those strictly
//! above a threshold, by default [`DEFAULT_CREDIBILITY_THRESHOLD`].
//!
//! Everything here is a pure function of its inputs: the domain scorer and the current
//! time are parameters, so that tests and callers control them. [`score_default`] and
//! [`score_all_default`] use the built-in domain tiers, the default weights and the
//! system clock.
//!
//! The curves, exactly:
//!
//! * **Recency** ([`recency_score`]): the age is counted in whole days elapsed (rounded
//!   down), so a date written without a time counts as that whole day. From 1.0 at 0
//!   days it falls linearly to 0.9 at 30 days, then linearly to 0.4 at 730 days (2 × 365;
//!   any date older than two calendar years is at least that old), then linearly to a
//!   floor of 0.2 at 1825 days (5 × 365), where it stays. Dates in the future count as
//!   now (1.0). No date, and a date [`parse_date`] does not understand, both score 0.5:
//!   an unreadable date tells as little as a missing one.
//! * **Snippet** ([`snippet_score`]): see that function; a snippet of at least 80
//!   characters made of complete sentences scores 0.7 to 1.0, a short or empty one 0.3
//!   at most.
//! * **Position** ([`position_score`]): `1 − (position − 1)/9` clamped to `[0, 1]`;
//!   position 0 counts as 1, no position scores 0.5.

pub use crate::model::SearchComponents;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::calendar::{days_from_civil, days_in_month};
use crate::model::{Source, StructuredSource};

/// Results whose value is strictly above this are considered credible.
pub const DEFAULT_CREDIBILITY_THRESHOLD: f64 = 0.8;

/// Snippets shorter than this many characters are "short".
pub const SNIPPET_MIN_CHARS: usize = 80;

/// A sentence needs at least this many words to count as a full sentence.
const SENTENCE_MIN_WORDS: usize = 3;

const SECS_PER_DAY: u64 = 86_400;

/// One search result, as search APIs return it (`{title, link, snippet, date?,
/// position}`). Missing `title` and `snippet` read as empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SearchResult {
    /// The result's title.
    #[serde(default)]
    pub title: String,
    /// The result's URL.
    pub link: String,
    /// The excerpt shown under the title.
    #[serde(default)]
    pub snippet: String,
    /// The date as the search engine wrote it (`2024-05-01`, `May 1, 2024`, `3 days
    /// ago`…).
    #[serde(default)]
    pub date: Option<String>,
    /// 1-based rank in the result list.
    #[serde(default)]
    pub position: Option<u32>,
}

impl From<StructuredSource> for SearchResult {
    /// `url` becomes `link`; a missing url, title or snippet becomes empty.
    fn from(source: StructuredSource) -> Self {
        SearchResult {
            title: source.title.unwrap_or_default(),
            link: source.url.unwrap_or_default(),
            snippet: source.snippet.unwrap_or_default(),
            date: source.date,
            position: source.position,
        }
    }
}

impl From<&Source> for SearchResult {
    /// The link as first written (else the canonical one, else empty), title, snippet,
    /// date and position of a collected source.
    fn from(source: &Source) -> Self {
        SearchResult {
            title: source.title.clone(),
            link: source
                .url
                .clone()
                .or_else(|| source.canonical_url.clone())
                .unwrap_or_default(),
            snippet: source.snippet.clone().unwrap_or_default(),
            date: source.date.clone(),
            position: source.position,
        }
    }
}

/// The weight of each component in a result's value. They should be non-negative and
/// sum to 1.0; [`SearchWeights::validate`] checks that.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchWeights {
    /// Weight of the domain score (default 0.4).
    pub domain: f64,
    /// Weight of the recency score (default 0.3).
    pub recency: f64,
    /// Weight of the snippet score (default 0.2).
    pub snippet: f64,
    /// Weight of the position score (default 0.1).
    pub position: f64,
}

impl Default for SearchWeights {
    fn default() -> Self {
        SearchWeights {
            domain: 0.4,
            recency: 0.3,
            snippet: 0.2,
            position: 0.1,
        }
    }
}

/// Why a set of [`SearchWeights`] is unusable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WeightsError {
    /// A weight is NaN, infinite or negative.
    Invalid {
        /// Which weight (`domain`, `recency`, `snippet`, `position`).
        name: &'static str,
        /// Its value.
        value: f64,
    },
    /// The weights do not sum to 1.0 (within 1e-9).
    SumNotOne {
        /// What they sum to.
        sum: f64,
    },
}

impl std::fmt::Display for WeightsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WeightsError::Invalid { name, value } => write!(
                f,
                "search weight `{name}` is {value}; it must be a finite number ≥ 0"
            ),
            WeightsError::SumNotOne { sum } => write!(
                f,
                "search weights sum to {sum}; domain + recency + snippet + position must be 1.0"
            ),
        }
    }
}

impl std::error::Error for WeightsError {}

impl SearchWeights {
    /// The sum of the four weights.
    pub fn sum(&self) -> f64 {
        self.domain + self.recency + self.snippet + self.position
    }

    /// Whether the weights sum to 1.0, within 1e-9.
    pub fn sums_to_one(&self) -> bool {
        (self.sum() - 1.0).abs() <= 1e-9
    }

    /// Checks that every weight is finite and non-negative and that they sum to 1.0
    /// (within 1e-9).
    pub fn validate(&self) -> Result<(), WeightsError> {
        for (name, value) in [
            ("domain", self.domain),
            ("recency", self.recency),
            ("snippet", self.snippet),
            ("position", self.position),
        ] {
            if !value.is_finite() || value < 0.0 {
                return Err(WeightsError::Invalid { name, value });
            }
        }
        if self.sums_to_one() {
            Ok(())
        } else {
            Err(WeightsError::SumNotOne { sum: self.sum() })
        }
    }
}

/// A result with its component scores and its value. The components are kept
/// unrounded; `value` is their weighted sum rounded to 4 decimals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchScore {
    /// The result scored.
    pub result: SearchResult,
    /// Reputation of the link's domain, in `[0, 1]`.
    pub domain: f64,
    /// How recent the result is ([`recency_score`]).
    pub recency: f64,
    /// How informative the snippet is ([`snippet_score`]).
    pub snippet: f64,
    /// Rank score ([`position_score`]).
    pub position: f64,
    /// The weighted sum, rounded to 4 decimals.
    pub value: f64,
}

impl From<SearchScore> for SearchComponents {
    fn from(score: SearchScore) -> Self {
        SearchComponents {
            domain: score.domain,
            recency: score.recency,
            snippet: score.snippet,
            position: score.position,
            value: score.value,
            above_threshold: score.value > DEFAULT_CREDIBILITY_THRESHOLD,
        }
    }
}

/// Scores one result. `domain_score` maps the link to a score in `[0, 1]` (values
/// outside are clamped, NaN counts as 0.0); `now` is the time recency is measured from.
pub fn score(
    result: &SearchResult,
    domain_score: &dyn Fn(&str) -> f64,
    weights: &SearchWeights,
    now: SystemTime,
) -> SearchScore {
    let raw_domain = domain_score(&result.link);
    let domain = if raw_domain.is_nan() {
        0.0
    } else {
        raw_domain.clamp(0.0, 1.0)
    };
    let recency = recency_score(result.date.as_deref(), now);
    let snippet = snippet_score(&result.snippet);
    let position = position_score(result.position);
    let value = round4(
        weights.domain * domain
            + weights.recency * recency
            + weights.snippet * snippet
            + weights.position * position,
    );
    SearchScore {
        result: result.clone(),
        domain,
        recency,
        snippet,
        position,
        value,
    }
}

/// Scores every result and sorts them by value, highest first; results of equal value
/// keep their input order.
pub fn score_all(
    results: &[SearchResult],
    domain_score: &dyn Fn(&str) -> f64,
    weights: &SearchWeights,
    now: SystemTime,
) -> Vec<SearchScore> {
    let mut scores: Vec<SearchScore> = results
        .iter()
        .map(|r| score(r, domain_score, weights, now))
        .collect();
    scores.sort_by(|a, b| b.value.total_cmp(&a.value));
    scores
}

/// Keeps the scores whose value is strictly greater than `threshold`, in their order.
pub fn filter_above_threshold(scores: Vec<SearchScore>, threshold: f64) -> Vec<SearchScore> {
    scores.into_iter().filter(|s| s.value > threshold).collect()
}

/// [`score`] with the built-in domain tiers, the default weights and the system clock.
pub fn score_default(result: &SearchResult) -> SearchScore {
    let tiers = crate::score::domain::DomainTiers::builtin();
    let domain = |url: &str| tiers.domain_score(url);
    score(
        result,
        &domain,
        &SearchWeights::default(),
        SystemTime::now(),
    )
}

/// [`score_all`] with the built-in domain tiers, the default weights and the system
/// clock.
pub fn score_all_default(results: &[SearchResult]) -> Vec<SearchScore> {
    let tiers = crate::score::domain::DomainTiers::builtin();
    let domain = |url: &str| tiers.domain_score(url);
    score_all(
        results,
        &domain,
        &SearchWeights::default(),
        SystemTime::now(),
    )
}

/// Rounds to 4 decimals, half away from zero (`0.03125` → `0.0313`).
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

// ---------------------------------------------------------------------------------
// Recency
// ---------------------------------------------------------------------------------

/// How recent a result is, from its date as written, measured at `now`.
///
/// No date, a blank one, or one [`parse_date`] does not understand: 0.5. Otherwise
/// [`recency_for_age_days`] of the whole days elapsed since that date (a future date
/// counts as 0 days).
pub fn recency_score(date: Option<&str>, now: SystemTime) -> f64 {
    let Some(when) = date.and_then(|d| parse_date(d, now)) else {
        return 0.5;
    };
    let age_days = now
        .duration_since(when)
        .map(|d| d.as_secs() / SECS_PER_DAY)
        .unwrap_or(0);
    recency_for_age_days(age_days)
}

/// The recency curve over an age in whole days: 1.0 at 0, linearly down to 0.9 at 30,
/// to 0.4 at 730, to 0.2 at 1825, and 0.2 beyond. Continuous and non-increasing.
pub fn recency_for_age_days(days: u64) -> f64 {
    // Each piece is written as its lower anchor plus a non-negative term, so the
    // anchors (0.9 at 30 days, 0.4 at 730, 0.2 from 1825) hold exactly.
    let d = days as f64;
    if days <= 30 {
        0.9 + 0.1 * (30.0 - d) / 30.0
    } else if days <= 730 {
        0.4 + 0.5 * (730.0 - d) / 700.0
    } else if days <= 1825 {
        0.2 + 0.2 * (1825.0 - d) / 1095.0
    } else {
        0.2
    }
}

/// Reads a date as search engines and agents write it. `now` anchors relative forms.
/// Case and surrounding whitespace do not matter. Understood, and nothing else:
///
/// * **Relative**: `now`, `just now`, `today` (= `now`); `yesterday` (1 day before);
///   `last week`, `last month`, `last year`; `N UNIT ago` where `N` is a whole number,
///   `a`, `an` or `one`, and may be written against the unit (`3d ago`, `5mins ago`).
///   Units: `s`/`sec`/`secs`/`second(s)`; `m`/`min`/`mins`/`minute(s)` (so `m` is
///   minutes); `h`/`hr`/`hrs`/`hour(s)`; `d`/`day(s)`; `w`/`wk`/`wks`/`week(s)`;
///   `mo`/`mos`/`mon`/`month(s)` (30 days); `y`/`yr`/`yrs`/`year(s)` (365 days).
/// * **ISO 8601** (extended form): `YYYY-MM-DD` (midnight UTC; month and day may have
///   one digit), optionally followed by `T`, `t` or a space and `HH:MM`, `HH:MM:SS` or
///   `HH:MM:SS.fff…` (fraction ignored), then optionally a zone: `Z`, `UTC`, `GMT`,
///   `±HH:MM`, `±HHMM` or `±HH`, with or without a space before it. No zone means UTC.
/// * **Written out**: an optional weekday (`Wed`, `Wednesday`, with or without a
///   comma), then `May 1, 2024` or `1 May 2024` (full or three-letter English month
///   names, `Sept`, an optional `.` after an abbreviation, ordinal days such as `1st`,
///   commas optional, a four-digit year), optionally followed by `HH:MM` or `HH:MM:SS`
///   and a zone (`GMT`, `UTC`, `UT`, `Z`, `±HHMM`, `±HH:MM`, or a US zone `EST` `EDT`
///   `CST` `CDT` `MST` `MDT` `PST` `PDT`). This covers RFC 2822 and HTTP dates.
///
/// Anything else (including impossible dates such as `2024-02-30`, and future relative
/// forms such as `in 3 days`) gives `None`.
pub fn parse_date(text: &str, now: SystemTime) -> Option<SystemTime> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let lower = text.to_lowercase();
    parse_relative(&lower, now)
        .or_else(|| parse_iso(&lower))
        .or_else(|| parse_written(&lower))
}

fn parse_relative(lower: &str, now: SystemTime) -> Option<SystemTime> {
    let tokens: Vec<&str> = lower.split_whitespace().collect();
    let ago = |secs: u64| now.checked_sub(Duration::from_secs(secs));
    match tokens.as_slice() {
        ["now"] | ["just", "now"] | ["today"] => Some(now),
        ["yesterday"] => ago(SECS_PER_DAY),
        ["last", unit @ ("week" | "month" | "year")] => ago(unit_secs(unit)?),
        [amount, unit, "ago"] => ago(amount_value(amount)?.checked_mul(unit_secs(unit)?)?),
        [compact, "ago"] => {
            let split = compact
                .find(|c: char| !c.is_ascii_digit())
                .filter(|&i| i > 0)?;
            let (digits, unit) = compact.split_at(split);
            ago(digits.parse::<u64>().ok()?.checked_mul(unit_secs(unit)?)?)
        }
        _ => None,
    }
}

fn amount_value(word: &str) -> Option<u64> {
    match word {
        "a" | "an" | "one" => Some(1),
        _ if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) => word.parse().ok(),
        _ => None,
    }
}

fn unit_secs(unit: &str) -> Option<u64> {
    let secs = match unit {
        "s" | "sec" | "secs" | "second" | "seconds" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3_600,
        "d" | "day" | "days" => SECS_PER_DAY,
        "w" | "wk" | "wks" | "week" | "weeks" => 7 * SECS_PER_DAY,
        "mo" | "mos" | "mon" | "month" | "months" => 30 * SECS_PER_DAY,
        "y" | "yr" | "yrs" | "year" | "years" => 365 * SECS_PER_DAY,
        _ => return None,
    };
    Some(secs)
}

/// A tiny byte cursor for the ISO parser.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor {
            bytes: text.as_bytes(),
            at: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Between `min` and `max` ASCII digits, as a number.
    fn digits(&mut self, min: usize, max: usize) -> Option<u32> {
        let start = self.at;
        while self.at - start < max && self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        if self.at - start < min {
            return None;
        }
        self.bytes[start..self.at].iter().try_fold(0u32, |n, &b| {
            n.checked_mul(10)?.checked_add(u32::from(b - b'0'))
        })
    }

    /// Skips ASCII digits; how many.
    fn skip_digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    fn rest(&self) -> &'a [u8] {
        &self.bytes[self.at.min(self.bytes.len())..]
    }
}

fn parse_iso(lower: &str) -> Option<SystemTime> {
    let mut c = Cursor::new(lower);
    let year = c.digits(4, 4)?;
    if !c.eat(b'-') {
        return None;
    }
    let month = c.digits(1, 2)?;
    if !c.eat(b'-') {
        return None;
    }
    let day = c.digits(1, 2)?;
    if c.done() {
        return to_system_time(year, month, day, 0, 0, 0, 0);
    }
    if !(c.eat(b't') || c.eat(b' ')) {
        return None;
    }
    let (hour, minute, second) = parse_clock(&mut c)?;
    if (c.eat(b'.') || c.eat(b',')) && c.skip_digits() == 0 {
        return None;
    }
    while c.eat(b' ') {}
    let offset = if c.done() {
        0
    } else {
        zone_offset(std::str::from_utf8(c.rest()).ok()?)?
    };
    to_system_time(year, month, day, hour, minute, second, offset)
}

/// `HH:MM` or `HH:MM:SS`.
fn parse_clock(c: &mut Cursor<'_>) -> Option<(u32, u32, u32)> {
    let hour = c.digits(2, 2)?;
    if !c.eat(b':') {
        return None;
    }
    let minute = c.digits(2, 2)?;
    let second = if c.eat(b':') { c.digits(2, 2)? } else { 0 };
    Some((hour, minute, second))
}

/// A zone as seconds east of UTC: `z`, `utc`, `gmt`, `ut`, a US zone, or `±HH`,
/// `±HHMM`, `±HH:MM` (input already lower-cased).
fn zone_offset(zone: &str) -> Option<i64> {
    let hours: i64 = match zone {
        "z" | "utc" | "gmt" | "ut" => return Some(0),
        "edt" => -4,
        "est" | "cdt" => -5,
        "cst" | "mdt" => -6,
        "mst" | "pdt" => -7,
        "pst" => -8,
        _ => {
            let mut c = Cursor::new(zone);
            let sign = match c.peek() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return None,
            };
            c.at += 1;
            let hh = c.digits(2, 2)?;
            let mm = if c.done() {
                0
            } else {
                c.eat(b':');
                c.digits(2, 2)?
            };
            if !c.done() || hh > 23 || mm > 59 {
                return None;
            }
            return Some(sign * (i64::from(hh) * 3_600 + i64::from(mm) * 60));
        }
    };
    Some(hours * 3_600)
}

fn parse_written(lower: &str) -> Option<SystemTime> {
    let cleaned = lower.replace(',', " ");
    let mut tokens: &[&str] = &cleaned.split_whitespace().collect::<Vec<_>>();
    if let Some((first, rest)) = tokens.split_first() {
        if is_weekday(first) {
            tokens = rest;
        }
    }
    let [a, b, year, rest @ ..] = tokens else {
        return None;
    };
    let (month, day) = match (month_number(a), month_number(b)) {
        (Some(m), None) => (m, day_number(b)?),
        (None, Some(m)) => (m, day_number(a)?),
        _ => return None,
    };
    if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let year: u32 = year.parse().ok()?;
    let (clock, zone) = match rest {
        [] => (None, None),
        [clock] => (Some(*clock), None),
        [clock, zone] => (Some(*clock), Some(*zone)),
        _ => return None,
    };
    let (hour, minute, second) = match clock {
        None => (0, 0, 0),
        Some(clock) => {
            let mut c = Cursor::new(clock);
            let parsed = parse_clock(&mut c)?;
            if !c.done() {
                return None;
            }
            parsed
        }
    };
    let offset = match zone {
        None => 0,
        Some(zone) => zone_offset(zone)?,
    };
    to_system_time(year, month, day, hour, minute, second, offset)
}

fn is_weekday(token: &str) -> bool {
    matches!(
        token.trim_end_matches('.'),
        "mon"
            | "tue"
            | "tues"
            | "wed"
            | "thu"
            | "thur"
            | "thurs"
            | "fri"
            | "sat"
            | "sun"
            | "monday"
            | "tuesday"
            | "wednesday"
            | "thursday"
            | "friday"
            | "saturday"
            | "sunday"
    )
}

fn month_number(token: &str) -> Option<u32> {
    let word = token.strip_suffix('.').unwrap_or(token);
    if word == "sept" {
        return Some(9);
    }
    crate::collect::claims::MONTH_NAMES
        .iter()
        .position(|m| *m == word || (word.len() == 3 && m.starts_with(word)))
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// `1`, `01`, `1st`, `22nd`, `3rd`, `4th`.
fn day_number(token: &str) -> Option<u32> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| token.strip_suffix(s))
        .unwrap_or(token);
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A validated civil date and time, `offset` seconds east of UTC, as a `SystemTime`.
fn to_system_time(
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    offset: i64,
) -> Option<SystemTime> {
    if !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let secs = days_from_civil(i64::from(year), month, day) * SECS_PER_DAY as i64
        + i64::from(hour) * 3_600
        + i64::from(minute) * 60
        + i64::from(second)
        - offset;
    if secs >= 0 {
        UNIX_EPOCH.checked_add(Duration::from_secs(secs.unsigned_abs()))
    } else {
        UNIX_EPOCH.checked_sub(Duration::from_secs(secs.unsigned_abs()))
    }
}

// ---------------------------------------------------------------------------------
// Snippet
// ---------------------------------------------------------------------------------

/// How informative a snippet is. The snippet is trimmed; its length is counted in
/// characters (Unicode scalar values).
///
/// A *full sentence* is a stretch of text that ends with `.`, `!` or `?` (optionally
/// followed by closing quotes or brackets) before whitespace or the end, is not an
/// ellipsis (`...`, `…`), and has at least 3 words. The snippet is *complete* when it
/// has at least one full sentence and itself ends with `.`, `!` or `?` that is not an
/// ellipsis — search engines end cut-off snippets with `...`.
///
/// | snippet | score |
/// |---|---|
/// | empty or whitespace | 0.0 |
/// | under 80 characters, not complete | 0.2 |
/// | under 80 characters, complete | 0.3 |
/// | 80 or more, no full sentence (a fragment, a list of keywords) | 0.4 |
/// | 80 or more, full sentences but cut off at the end | 0.5 |
/// | 80 or more, complete | 0.7 at 80 characters, rising linearly to 1.0 at 160 and beyond |
pub fn snippet_score(snippet: &str) -> f64 {
    let text = snippet.trim();
    if text.is_empty() {
        return 0.0;
    }
    let length = text.chars().count();
    let shape = sentence_shape(text);
    let complete = shape.ends_sentence && shape.full_sentences > 0;
    let min = SNIPPET_MIN_CHARS as f64;
    if length < SNIPPET_MIN_CHARS {
        if complete {
            0.3
        } else {
            0.2
        }
    } else if complete {
        0.7 + 0.3 * ((length as f64 - min) / min).min(1.0)
    } else if shape.full_sentences > 0 {
        0.5
    } else {
        0.4
    }
}

struct SentenceShape {
    /// Full sentences found.
    full_sentences: usize,
    /// Whether the text ends with sentence punctuation that is not an ellipsis.
    ends_sentence: bool,
}

fn sentence_shape(text: &str) -> SentenceShape {
    const CLOSERS: [char; 7] = ['"', '\'', '”', '’', ')', ']', '»'];
    let is_terminal = |c: char| matches!(c, '.' | '!' | '?' | '…');
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let mut full_sentences = 0;
    let mut ends_sentence = false;
    let mut start = 0;
    let mut i = 0;
    while i < n {
        if !is_terminal(chars[i]) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < n && is_terminal(chars[j]) {
            j += 1;
        }
        let mut k = j;
        while k < n && CLOSERS.contains(&chars[k]) {
            k += 1;
        }
        if k == n || chars[k].is_whitespace() {
            let run = &chars[i..j];
            let ellipsis = run.contains(&'…') || run.iter().filter(|&&c| c == '.').count() >= 2;
            let words = chars[start..i]
                .iter()
                .collect::<String>()
                .split_whitespace()
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .count();
            if !ellipsis && words >= SENTENCE_MIN_WORDS {
                full_sentences += 1;
            }
            if k == n {
                ends_sentence = !ellipsis;
            }
            start = k;
        }
        i = k.max(i + 1);
    }
    SentenceShape {
        full_sentences,
        ends_sentence,
    }
}

// ---------------------------------------------------------------------------------
// Position
// ---------------------------------------------------------------------------------

/// The rank score: `1 − (position − 1)/9` clamped to `[0, 1]`, so position 1 scores
/// 1.0, 5 scores 0.5556 (rounded), 10 and beyond 0.0. Position 0 is read as 1 (a
/// 0-based rank of the first result). No position scores 0.5, the middle of the scale,
/// as no date does for recency: the result is neither rewarded nor punished for what
/// its source did not say.
pub fn position_score(position: Option<u32>) -> f64 {
    match position {
        None => 0.5,
        Some(p) => {
            let p = f64::from(p.max(1));
            (1.0 - (p - 1.0) / 9.0).clamp(0.0, 1.0)
        }
    }
}

#[cfg(test)]
mod tests;

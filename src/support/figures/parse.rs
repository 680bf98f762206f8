//! The figure reader: one pass over a text's words that reads, at each word, the
//! longest figure starting there — a quarter, a date, a time of day, or an amount with
//! what follows it (a second amount making a range, a `%`, a currency, a unit of size,
//! a rate, the noun it counts).

use super::{units, Figure, Kind, Value};
use crate::support::reading::{
    date_at, day_or_year, fold, month, multiplier, DateKey, Word, CARDINALS, ORDINALS,
};
use crate::support::text::{is_stop, stem};

/// Words before a four-digit number that make it a year even when a noun follows
/// (`in 1998 elections`, `the 2000 season`).
const YEAR_LEADS: [&str; 20] = [
    "in", "since", "by", "from", "until", "till", "of", "the", "during", "early", "mid", "late",
    "before", "after", "around", "circa", "to", "between", "through", "and",
];

/// The figures among `words` (the words of `text`), in order.
pub(in crate::support) fn read(text: &str, words: &[Word<'_>]) -> Vec<Figure> {
    let reader = Reader { text, words };
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match reader.figure_at(i) {
            Some((figure, next)) => {
                out.push(figure);
                i = next.max(i + 1);
            }
            None => i += 1,
        }
    }
    out
}

/// A number read at a word.
#[derive(Debug, Clone, Copy)]
struct Num<'t> {
    /// Its value, multiplier applied.
    value: f64,
    /// The multiplier it was written with (1 when none).
    scale: f64,
    /// The word after it (and after its multiplier word).
    next: usize,
    /// Where it ends in the text.
    end: usize,
    /// Letters glued after its digits that are not a multiplier (`GB` of `3.2GB`).
    glued: &'t str,
    /// Written in digits alone, four of them, without separators: it may be a year.
    year_like: bool,
    /// Written as a word (`three`).
    spelled: bool,
}

struct Reader<'t, 'w> {
    text: &'t str,
    words: &'w [Word<'t>],
}

impl<'t> Reader<'t, '_> {
    fn figure_at(&self, i: usize) -> Option<(Figure, usize)> {
        self.quarter_at(i)
            .or_else(|| self.date_at(i))
            .or_else(|| self.iso_date_at(i))
            .or_else(|| self.time_at(i))
            .or_else(|| self.amount_at(i))
    }

    /// The text between the word before `j` ends (`from`) and word `j` starts.
    fn gap_to(&self, from: usize, j: usize) -> Option<&'t str> {
        let w = self.words.get(j)?;
        self.text.get(from..w.start)
    }

    /// Whether word `j` follows `from` after exactly one space.
    fn spaced(&self, from: usize, j: usize) -> bool {
        self.gap_to(from, j).is_some_and(|g| {
            let mut chars = g.chars();
            chars.next().is_some_and(char::is_whitespace) && chars.next().is_none()
        })
    }

    /// Word `j`'s text lower-cased, if it follows `from` after one space.
    fn next_word(&self, from: usize, j: usize) -> Option<String> {
        self.spaced(from, j).then(|| fold(self.words[j].text))
    }

    fn figure(&self, span: (usize, usize), head_end: usize, kind: Kind, value: Value) -> Figure {
        Figure {
            span: span.0..span.1,
            head: span.0..head_end,
            kind,
            value,
        }
    }

    /// `Q3`, `Q3 2025`, `Q3 FY2025`, `third quarter`, `3rd quarter of 2025`.
    fn quarter_at(&self, i: usize) -> Option<(Figure, usize)> {
        let w = self.words[i];
        let lower = w.text.to_ascii_lowercase();
        let (quarter, mut end, mut next) = match lower.as_bytes() {
            [b'q', q @ b'1'..=b'4'] => (u32::from(q - b'0'), w.end, i + 1),
            _ => {
                let quarter = match lower.as_str() {
                    "1st" => 1,
                    "2nd" => 2,
                    "3rd" => 3,
                    "4th" => 4,
                    other => ORDINALS
                        .iter()
                        .find(|(word, n)| *word == other && *n <= 4)
                        .map(|(_, n)| *n)?,
                };
                let is_quarter = self.next_word(w.end, i + 1).as_deref() == Some("quarter");
                if !is_quarter {
                    return None;
                }
                (quarter, self.words[i + 1].end, i + 2)
            }
        };
        let mut year = None;
        let mut j = next;
        if self.next_word(end, j).as_deref() == Some("of") {
            j += 1;
            if self.next_word(self.words[j - 1].end, j).as_deref() == Some("fiscal") {
                j += 1;
            }
        }
        let after = self.words[j - 1].end.max(end);
        if let Some(y) = self
            .spaced(after, j)
            .then(|| fiscal_year(self.words[j].text))
            .flatten()
        {
            year = Some(y);
            end = self.words[j].end;
            next = j + 1;
        }
        let value = Value::Quarter { quarter, year };
        let figure = self.figure((w.start, end), end, Kind::Quarter, value);
        Some((figure, next))
    }

    /// A date around a month name that starts at word `i` (`11 July 1909`,
    /// `July 11, 1909`, `July 1909`, `July 11`), read as `missing` reads dates.
    fn date_at(&self, i: usize) -> Option<(Figure, usize)> {
        let at =
            (i..=i + 1).find(|&j| self.words.get(j).is_some_and(|w| month(w.text).is_some()))?;
        let m = month(self.words[at].text)?;
        let (key, span) = date_at(self.words, at, m)?;
        let (first, last) = (*span.first()?, *span.last()?);
        if first != i {
            return None;
        }
        let value = match key {
            DateKey::Day(y, m, d) => Value::Date {
                year: Some(y),
                month: m,
                day: Some(d),
            },
            DateKey::Month(y, m) => Value::Date {
                year: Some(y),
                month: m,
                day: None,
            },
            DateKey::MonthDay(m, d) => Value::Date {
                year: None,
                month: m,
                day: Some(d),
            },
        };
        let (start, end) = (self.words[first].start, self.words[last].end);
        Some((self.figure((start, end), end, Kind::Date, value), last + 1))
    }

    /// `2019-03-01`, `2019/03/01`.
    fn iso_date_at(&self, i: usize) -> Option<(Figure, usize)> {
        let [y, m, d] = [i, i + 1, i + 2].map(|j| self.words.get(j));
        let (y, m, d) = (y?, m?, d?);
        let sep = self.text.get(y.end..m.start)?;
        let shaped = y.text.len() == 4
            && m.text.len() == 2
            && d.text.len() == 2
            && matches!(sep, "-" | "/")
            && self.text.get(m.end..d.start) == Some(sep);
        if !shaped {
            return None;
        }
        let (year, month, day) = (
            day_or_year(y.text)?,
            day_or_year(m.text)?,
            day_or_year(d.text)?,
        );
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return None;
        }
        let value = Value::Date {
            year: Some(year),
            month,
            day: Some(day),
        };
        Some((
            self.figure((y.start, d.end), d.end, Kind::Date, value),
            i + 3,
        ))
    }

    /// `14:00`, `14:00 UTC`, `9:30 am ET`, `2 p.m.`, `2pm`, `2:00 PM`.
    fn time_at(&self, i: usize) -> Option<(Figure, usize)> {
        let w = self.words[i];
        let digits = w.text.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 2 {
            return None;
        }
        let hour: u32 = w.text[..digits].parse().ok()?;
        let glued = &w.text[digits..];
        let (mut minute, mut end, mut next, mut half) = (0, w.end, i + 1, meridiem(glued));
        if !glued.is_empty() && half.is_none() {
            return None;
        }
        if glued.is_empty() {
            let colon = self.text.get(w.end..w.end + 1) == Some(":");
            let minutes = self
                .words
                .get(i + 1)
                .filter(|m| colon && m.start == w.end + 1);
            if let Some(m) = minutes {
                let two = m.text.len() >= 2 && m.text.bytes().take(2).all(|b| b.is_ascii_digit());
                let rest = m.text.get(2..).unwrap_or_default();
                if !two || !(rest.is_empty() || meridiem(rest).is_some()) {
                    return None;
                }
                minute = m.text[..2].parse().ok()?;
                half = meridiem(rest);
                end = m.end;
                next = i + 2;
                // Seconds: `10:30:45`.
                let seconds = self.words.get(next).filter(|s| {
                    self.text.get(end..end + 1) == Some(":")
                        && s.start == end + 1
                        && s.text.len() == 2
                        && s.text.bytes().all(|b| b.is_ascii_digit())
                });
                if let Some(s) = seconds {
                    end = s.end;
                    next += 1;
                }
            }
            if half.is_none() {
                if let Some((pm, after)) = self.meridiem_after(end) {
                    half = Some(pm);
                    end = after;
                    while self.words.get(next).is_some_and(|w| w.start < end) {
                        next += 1;
                    }
                }
            }
            if next == i + 1 && half.is_none() {
                return None;
            }
        }
        let hour = match half {
            Some(pm) if (1..=12).contains(&hour) => hour % 12 + if pm { 12 } else { 0 },
            Some(_) => return None,
            None if hour <= 24 => hour % 24,
            None => return None,
        };
        if minute >= 60 {
            return None;
        }
        let mut zone = None;
        if self
            .words
            .get(next)
            .is_some_and(|z| units::zone(z.text) && self.spaced(end, next))
        {
            zone = Some(self.words[next].text.to_string());
            end = self.words[next].end;
            next += 1;
        }
        let value = Value::Time {
            minute: hour * 60 + minute,
            zone,
        };
        Some((self.figure((w.start, end), end, Kind::Time, value), next))
    }

    /// ` am`, ` p.m.`, `PM` right after `at`: whether it is afternoon, and where it ends.
    fn meridiem_after(&self, at: usize) -> Option<(bool, usize)> {
        let rest = self.text.get(at..)?;
        let trimmed = rest.strip_prefix(' ').unwrap_or(rest);
        let skipped = rest.len() - trimmed.len();
        for (written, pm) in [("a.m.", false), ("p.m.", true), ("am", false), ("pm", true)] {
            let Some(head) = trimmed.get(..written.len()) else {
                continue;
            };
            if !head.eq_ignore_ascii_case(written) {
                continue;
            }
            let after = &trimmed[written.len()..];
            if after.chars().next().is_some_and(char::is_alphanumeric) {
                continue;
            }
            return Some((pm, at + skipped + written.len()));
        }
        None
    }

    /// The number written at word `i` (`1,200`, `4.5`, `three`, `1.2k`, `4.5 million`,
    /// `3.2GB`).
    fn number_at(&self, i: usize) -> Option<Num<'t>> {
        let w = *self.words.get(i)?;
        let folded = w.text.to_ascii_lowercase();
        if let Some(&(_, value)) = CARDINALS.iter().find(|(word, _)| *word == folded) {
            let mut num = Num {
                value,
                scale: 1.0,
                next: i + 1,
                end: w.end,
                glued: "",
                year_like: false,
                spelled: true,
            };
            self.scale_by_word(&mut num);
            return Some(num);
        }
        let digits_end = w
            .text
            .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
            .unwrap_or(w.text.len());
        let digits = &w.text[..digits_end];
        if !digits.starts_with(|c: char| c.is_ascii_digit()) || !grouped(digits) {
            return None;
        }
        let value: f64 = digits.replace(',', "").parse().ok()?;
        let suffix = &w.text[digits_end..];
        let lower_suffix = suffix.to_ascii_lowercase();
        if matches!(lower_suffix.as_str(), "st" | "nd" | "rd" | "th" | "s") {
            return None;
        }
        let glued_scale = match lower_suffix.as_str() {
            "k" => Some(1e3),
            "m" | "mn" => Some(1e6),
            "b" | "bn" => Some(1e9),
            _ => None,
        };
        let mut num = Num {
            value: value * glued_scale.unwrap_or(1.0),
            scale: glued_scale.unwrap_or(1.0),
            next: i + 1,
            end: w.end,
            glued: if glued_scale.is_some() { "" } else { suffix },
            year_like: suffix.is_empty()
                && digits.len() == 4
                && digits.bytes().all(|b| b.is_ascii_digit()),
            spelled: false,
        };
        if glued_scale.is_none() && suffix.is_empty() {
            self.scale_by_word(&mut num);
        }
        Some(num)
    }

    /// `4.5 million`, `1.2 thousand`, `two hundred`, `$3 bn`: the multiplier word after
    /// a number.
    fn scale_by_word(&self, num: &mut Num<'t>) {
        let Some(word) = self.next_word(num.end, num.next) else {
            return;
        };
        let scale = match word.as_str() {
            "hundred" => Some(100.0),
            "bn" => Some(1e9),
            "mn" => Some(1e6),
            other => multiplier(other),
        };
        if let Some(scale) = scale {
            num.value *= scale;
            num.scale = scale;
            num.end = self.words[num.next].end;
            num.next += 1;
            num.year_like = false;
        }
    }

    /// The currency written before word `i` (`$`, `US$`, `€`, `USD `) and where it
    /// starts.
    fn currency_before(&self, i: usize) -> Option<(&'static str, usize)> {
        let start = self.words[i].start;
        let before = self.text.get(..start)?;
        let trimmed = before.strip_suffix(' ').unwrap_or(before);
        if let Some(sign_char) = trimmed.chars().next_back() {
            if let Some(code) = units::sign(sign_char) {
                let at = trimmed.len() - sign_char.len_utf8();
                if sign_char == '$' {
                    // `US$`, `U.S.$`, `C$`, `A$`: letters glued before the sign.
                    let head = &self.text[..at];
                    let letters = head
                        .trim_end_matches(|c: char| c.is_ascii_uppercase() || c == '.')
                        .len();
                    let word_start = !head[..letters]
                        .chars()
                        .next_back()
                        .is_some_and(char::is_alphanumeric);
                    if let Some(code) =
                        units::dollar_prefix(&head[letters..]).filter(|_| word_start)
                    {
                        return Some((code, letters));
                    }
                }
                return Some((code, at));
            }
        }
        let code_word = i.checked_sub(1).map(|j| self.words[j])?;
        let code = units::code(code_word.text)?;
        self.spaced(code_word.end, i)
            .then_some((code, code_word.start))
    }

    /// A second number making a range with `first` (`10–15`, `10 to 15`, `10%–15%`,
    /// `$3–$5`, `between 10 and 15`), and whether a `%` stood after the first.
    fn range_after(&self, first: &Num<'t>, between: bool) -> Option<(Num<'t>, bool)> {
        let j = first.next;
        let gap = self.gap_to(first.end, j)?;
        if gap.chars().count() > 5 {
            return None;
        }
        let trimmed = gap.trim();
        let percent = trimmed.starts_with('%');
        let link = trimmed.trim_start_matches('%').trim();
        let link = link
            .strip_suffix(|c: char| units::sign(c).is_some())
            .unwrap_or(link)
            .trim();
        let second = if matches!(link, "-" | "–" | "—") || (link == "/" && first.year_like) {
            self.number_at(j)?
        } else if link.is_empty() && gap.ends_with(char::is_whitespace) {
            let word = fold(self.words[j].text);
            let joins = word == "to" || (between && word == "and");
            let number = self.words.get(j + 1)?;
            let after = self.text.get(self.words[j].end..number.start)?;
            let spaced = after.starts_with(char::is_whitespace)
                && after.trim().chars().all(|c| units::sign(c).is_some());
            if !joins || !spaced {
                return None;
            }
            self.number_at(j + 1)?
        } else {
            return None;
        };
        if second.spelled != first.spelled || first.glued != second.glued {
            return None;
        }
        // `2018–19`: a season of two years, the second written short.
        let short_year = first.year_like
            && !percent
            && matches!(link, "-" | "–" | "—" | "/")
            && self.words[j].text.len() == 2
            && self.words[j].text.bytes().all(|b| b.is_ascii_digit());
        if short_year {
            let century = (first.value / 100.0).floor() * 100.0;
            let year = century + second.value;
            if year == first.value + 1.0 {
                return Some((
                    Num {
                        value: year,
                        year_like: true,
                        ..second
                    },
                    false,
                ));
            }
        }
        let low = if first.scale == 1.0 {
            first.value * second.scale
        } else {
            first.value
        };
        if second.value <= low {
            return None;
        }
        Some((second, percent))
    }

    /// An amount at word `i` and what it measures.
    fn amount_at(&self, i: usize) -> Option<(Figure, usize)> {
        let first = self.number_at(i)?;
        let prefix = self.currency_before(i);
        let mut start = prefix.map_or(self.words[i].start, |(_, at)| at);
        let between = i.checked_sub(1).is_some_and(|j| {
            fold(self.words[j].text) == "between" && self.spaced(self.words[j].end, i)
        });
        let range = self.range_after(&first, between);
        let (last, value) = match &range {
            Some((second, _)) => {
                let low = if first.scale == 1.0 {
                    first.value * second.scale
                } else {
                    first.value
                };
                (*second, Value::Range(low, second.value))
            }
            None => (first, Value::Amount(first.value)),
        };
        if range.is_some() && between {
            start = self.words[i - 1].start;
        }
        let year_like =
            first.year_like && range.as_ref().is_none_or(|(second, _)| second.year_like);
        let (mut end, mut next) = (last.end, last.next);

        // A share: `5%`, `5 %`, `5 percent`, `5 per cent`, `10%–15%`.
        let percent_sign = self
            .text
            .get(end..)
            .map(|rest| rest.strip_prefix(' ').unwrap_or(rest))
            .is_some_and(|rest| rest.starts_with('%'));
        if percent_sign {
            end = self.text[end..].find('%').map_or(end, |p| end + p + 1);
            while self.words.get(next).is_some_and(|w| w.start < end) {
                next += 1;
            }
            return Some((self.figure((start, end), end, Kind::Percent, value), next));
        }
        match self.next_word(end, next).as_deref() {
            Some("percent" | "pct") => {
                end = self.words[next].end;
                return Some((
                    self.figure((start, end), end, Kind::Percent, value),
                    next + 1,
                ));
            }
            Some("per")
                if self.next_word(self.words[next].end, next + 1).as_deref() == Some("cent") =>
            {
                end = self.words[next + 1].end;
                return Some((
                    self.figure((start, end), end, Kind::Percent, value),
                    next + 2,
                ));
            }
            _ => {}
        }
        if range.as_ref().is_some_and(|(_, p)| *p) {
            return None;
        }

        // A size: `3.2 GB`, `3.2GB`, `3.2 gigabytes`.
        let glued_size = (!last.glued.is_empty())
            .then(|| units::size(last.glued))
            .flatten();
        let word_size = last
            .glued
            .is_empty()
            .then(|| {
                self.spaced(end, next)
                    .then(|| units::size(self.words[next].text))
            })
            .flatten()
            .flatten();
        if let Some(bytes) = glued_size.or(word_size) {
            if word_size.is_some() {
                end = self.words[next].end;
                next += 1;
            }
            let (per, end, next) = self.rate_after(end, next);
            let kind = Kind::Size { per };
            return Some((
                self.figure((start, end), end, kind, scaled(&value, bytes)),
                next,
            ));
        }
        if !last.glued.is_empty() {
            // `5km`, `12mph`: a count of the glued unit (`5G`, `3D` are names).
            let unit = last.glued.len() >= 2 && last.glued.bytes().all(|b| b.is_ascii_lowercase());
            if !unit {
                return None;
            }
            let noun = stem(&last.glued.to_lowercase());
            let (per, end, next) = self.rate_after(end, next);
            let kind = Kind::Count { noun, per };
            return Some((self.figure((start, end), last.end, kind, value), next));
        }

        // Money: `$4.5 million`, `4.5 million dollars`, `30 euros`, `USD 30`, `30 EUR`.
        let mut currency = prefix.map(|(code, _)| code);
        if currency.is_none() {
            if let Some((code, after, skip)) = self.currency_after(end, next) {
                currency = Some(code);
                end = after;
                next += skip;
            }
        }
        if let Some(currency) = currency {
            let (per, end, next) = self.rate_after(end, next);
            let kind = Kind::Money { currency, per };
            return Some((self.figure((start, end), end, kind, value), next));
        }

        // A count: the noun right after the number.
        let lead = i
            .checked_sub(1)
            .map(|j| fold(self.words[j].text))
            .is_some_and(|w| YEAR_LEADS.contains(&w.as_str()));
        let year = year_like && is_year(&value);
        if !(year && lead) {
            if let Some(noun) = self.noun_at(end, next) {
                let head_end = end;
                let (per, end, after) = self.rate_after(self.words[next].end, next + 1);
                let kind = Kind::Count { noun, per };
                return Some((self.figure((start, end), head_end, kind, value), after));
            }
        }
        if first.spelled {
            return None;
        }
        let kind = if year { Kind::Year } else { Kind::Number };
        Some((self.figure((start, end), end, kind, value), next))
    }

    /// A currency written after an amount ending at `end` (`dollars`, `US dollars`,
    /// `euros`, `EUR`): its code, where it ends, and how many words it takes.
    fn currency_after(&self, end: usize, next: usize) -> Option<(&'static str, usize, usize)> {
        if !self.spaced(end, next) {
            return None;
        }
        let w = self.words[next];
        if let Some(code) = units::code(w.text).or_else(|| units::word(&fold(w.text))) {
            return Some((code, w.end, 1));
        }
        let code = units::dollar_adjective(&fold(w.text))?;
        let dollars = self.next_word(w.end, next + 1)?;
        matches!(dollars.as_str(), "dollar" | "dollars")
            .then(|| (code, self.words[next + 1].end, 2))
    }

    /// The noun a number ending at `end` counts: the next word after one space, in lower
    /// case, no stop word, month, number or unit.
    fn noun_at(&self, end: usize, next: usize) -> Option<String> {
        let w = self.words.get(next)?;
        if !self.spaced(end, next)
            || !w
                .text
                .chars()
                .all(|c| c.is_lowercase() || c == '\'' || c == '’')
        {
            return None;
        }
        let folded = fold(w.text);
        let unit = CARDINALS.iter().any(|(c, _)| *c == folded)
            || ORDINALS.iter().any(|(o, _)| *o == folded)
            || matches!(
                folded.as_str(),
                "percent" | "hundred" | "thousand" | "million" | "billion"
            );
        if is_stop(&folded) || month(w.text).is_some() || unit {
            return None;
        }
        Some(stem(&folded))
    }

    /// A rate after a figure ending at `end` (`per second`, `a year`, `/s`, `annually`):
    /// what it is per, where the figure now ends, and the word after it.
    fn rate_after(&self, end: usize, next: usize) -> (Option<String>, usize, usize) {
        let none = (None, end, next);
        let Some(w) = self.words.get(next) else {
            return none;
        };
        let gap = self.text.get(end..w.start).unwrap_or_default();
        let folded = fold(w.text);
        if gap == "/" {
            let per = units::rate_word(&folded).map_or_else(|| stem(&folded), str::to_string);
            return (Some(per), w.end, next + 1);
        }
        if !self.spaced(end, next) {
            return none;
        }
        if let Some(per) = units::rate_adverb(&folded) {
            return (Some(per.to_string()), w.end, next + 1);
        }
        let Some(unit) = self.next_word(w.end, next + 1) else {
            return none;
        };
        let per = match folded.as_str() {
            "per" => units::rate_word(&unit).map_or_else(|| stem(&unit), str::to_string),
            "a" | "an" | "each" | "every" => match units::rate_word(&unit) {
                Some(per) => per.to_string(),
                None => return none,
            },
            _ => return none,
        };
        (Some(per), self.words[next + 1].end, next + 2)
    }
}

/// Whether digits with separators are grouped as a number (`1,200`, `4.5`, `1,200.5`),
/// not a list (`1,2,3`).
fn grouped(digits: &str) -> bool {
    let whole = digits.split('.').next().unwrap_or(digits);
    let dots = digits.matches('.').count();
    let mut groups = whole.split(',');
    let first = groups.next().unwrap_or_default();
    dots <= 1 && (!whole.contains(',') || (first.len() <= 3 && groups.all(|g| g.len() == 3)))
}

/// Whether a value (an amount or a range) reads as years (1000–2100).
fn is_year(value: &Value) -> bool {
    let year = |v: f64| (1000.0..=2100.0).contains(&v) && v.fract() == 0.0;
    match value {
        Value::Amount(a) => year(*a),
        Value::Range(a, b) => year(*a) && year(*b),
        _ => false,
    }
}

/// `value` times `unit` (bytes per unit of size).
fn scaled(value: &Value, unit: f64) -> Value {
    match value {
        Value::Amount(a) => Value::Amount(a * unit),
        Value::Range(a, b) => Value::Range(a * unit, b * unit),
        other => other.clone(),
    }
}

/// `am`/`a.m.` (false) or `pm`/`p.m.` (true), when `s` is one of them.
fn meridiem(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "am" => Some(false),
        "pm" => Some(true),
        _ => None,
    }
}

/// A year written alone or as a fiscal year (`2025`, `FY2025`, `FY25`).
fn fiscal_year(word: &str) -> Option<u32> {
    let digits = word
        .strip_prefix("FY")
        .or_else(|| word.strip_prefix("fy"))
        .unwrap_or(word);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match digits.len() {
        4 => digits.parse().ok().filter(|y| (1000..=2100).contains(y)),
        2 if word.len() == 4 => digits.parse::<u32>().ok().map(|y| 2000 + y),
        _ => None,
    }
}

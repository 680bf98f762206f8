//! Old pages behind claims about the present. A claim that says "currently", "the
//! latest", "as of", "this year" (or names this year or last) is time-sensitive: a page
//! last dated years ago may no longer say what is true. When the support check has read
//! a cited page and the page gives a date (its update date, else its publication date),
//! a time-sensitive claim citing a page older than [`STALE_AFTER_DAYS`] lists it in
//! [`Claim::stale_sources`], with the words that made the claim time-sensitive.
//!
//! This is shown to people, not weighted: no development data pairs dated pages with
//! experts' judgements, so no weight could be fitted for it. Pages that give no date,
//! and pages not read, are never called old.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use regex::Regex;

use crate::model::{Claim, PageSignals, Report, StaleSource};
use crate::score::search::parse_date;

/// A cited page is old for a time-sensitive claim when its latest date is more than
/// this many days before the check (two years).
pub const STALE_AFTER_DAYS: u64 = 730;

const DAY: u64 = 86_400;

/// Words that tie a claim to the present, in English and Chinese.
fn present_words() -> Option<&'static Regex> {
    static WORDS: OnceLock<Option<Regex>> = OnceLock::new();
    WORDS
        .get_or_init(|| {
            Regex::new(
                r"(?i)\b(?:currently|current|nowadays|now|today|at present|presently|latest|most recent|recently|recent|as of|this year|so far|to date|up to date|these days|ongoing|still)\b|目前|当前|现在|最新|近年来|今年|截至|迄今",
            )
            .ok()
        })
        .as_ref()
}

/// Four-digit years standing alone (not inside a longer number).
fn years() -> Option<&'static Regex> {
    static YEARS: OnceLock<Option<Regex>> = OnceLock::new();
    YEARS
        .get_or_init(|| Regex::new(r"(?:^|[^0-9])((?:19|20)[0-9]{2})(?:[^0-9]|$)").ok())
        .as_ref()
}

/// What makes `claim` time-sensitive, as written in it ("currently", "2026"): a word
/// tying it to the present, or this year or last named; `None` when nothing does.
pub fn time_sensitive(claim: &str, this_year: i64) -> Option<String> {
    if let Some(found) = present_words().and_then(|words| words.find(claim)) {
        return Some(found.as_str().to_string());
    }
    years()?
        .captures_iter(claim)
        .filter_map(|c| c.get(1))
        .find(|year| {
            year.as_str()
                .parse::<i64>()
                .is_ok_and(|y| y == this_year || y == this_year - 1)
        })
        .map(|year| year.as_str().to_string())
}

/// The latest moment a page's date can mean: a bare year is its last day, a month its
/// last day, so a page is never called older than it may be. `None` for a date not
/// understood.
pub fn latest_moment(date: &str) -> Option<SystemTime> {
    let date = date.trim();
    let parts: Vec<&str> = date.split('-').collect();
    let end_of = |next_period_start: String| {
        parse_date(&next_period_start, UNIX_EPOCH)
            .and_then(|t| t.checked_sub(Duration::from_secs(1)))
    };
    match parts.as_slice() {
        [year] if year.len() == 4 => {
            let year: i64 = year.parse().ok()?;
            end_of(format!("{:04}-01-01", year + 1))
        }
        [year, month] if year.len() == 4 => {
            let year: i64 = year.parse().ok()?;
            let month: u32 = month.parse().ok().filter(|m| (1..=12).contains(m))?;
            let (next_year, next_month) = if month == 12 {
                (year + 1, 1)
            } else {
                (year, month + 1)
            };
            end_of(format!("{next_year:04}-{next_month:02}-01"))
        }
        _ => parse_date(date, UNIX_EPOCH)
            .filter(|_| date.len() >= 10)
            .and_then(|t| t.checked_add(Duration::from_secs(DAY - 1))),
    }
}

/// The page's own date as it gives it (its update date, else its publication date)
/// and its age in whole days at `now`; `None` without a date understood, or for a date
/// in the future.
pub fn page_age(page: &PageSignals, now: SystemTime) -> Option<(String, u64)> {
    let dated = page.updated.as_deref().or(page.published.as_deref())?;
    let moment = latest_moment(dated)?;
    let age = now.duration_since(moment).ok()?;
    Some((dated.to_string(), age.as_secs() / DAY))
}

/// The Gregorian year of `now` (UTC).
pub fn year_of(now: SystemTime) -> i64 {
    let days = match now.duration_since(UNIX_EPOCH) {
        Ok(since) => (since.as_secs() / DAY) as i64,
        Err(before) => -((before.duration().as_secs() / DAY) as i64) - 1,
    };
    crate::calendar::civil_from_days(days).0
}

/// Sets every claim's [`Claim::stale_sources`]: for a time-sensitive claim, the cited
/// pages that were read, give a date, and are older than [`STALE_AFTER_DAYS`] at
/// `now`. Claims whose cited pages were not read keep an empty list.
pub fn mark_stale_sources(report: &mut Report, now: SystemTime) {
    let ages: Vec<(usize, (String, u64))> = report
        .sources()
        .filter_map(|s| Some((s.id, page_age(s.page.as_ref()?, now)?)))
        .filter(|(_, (_, age))| *age > STALE_AFTER_DAYS)
        .collect();
    let this_year = year_of(now);
    for claim in &mut report.claims {
        claim.stale_sources = stale_for(claim, &ages, this_year);
    }
}

/// The old pages `claim` cites, when it is time-sensitive.
fn stale_for(
    claim: &Claim,
    old_pages: &[(usize, (String, u64))],
    this_year: i64,
) -> Vec<StaleSource> {
    let cited_old: Vec<&(usize, (String, u64))> = old_pages
        .iter()
        .filter(|(id, _)| claim.cites.contains(id))
        .collect();
    if cited_old.is_empty() {
        return Vec::new();
    }
    let Some(because) = time_sensitive(&claim.text, this_year) else {
        return Vec::new();
    };
    cited_old
        .into_iter()
        .map(|(id, (dated, age_days))| StaleSource {
            source: *id,
            dated: dated.clone(),
            age_days: *age_days,
            because: because.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(date: &str) -> SystemTime {
        parse_date(date, UNIX_EPOCH).expect("date")
    }

    #[test]
    fn claims_about_the_present_are_time_sensitive() {
        for (claim, because) in [
            ("The current version is 3.2.", "current"),
            ("It is currently the largest lake.", "currently"),
            ("As of March, 40% had signed up.", "As of"),
            ("The latest figures show a fall.", "latest"),
            ("Unemployment this year is 4%.", "this year"),
            ("Revenue in 2026 was $4m.", "2026"),
            ("Revenue in 2025 was $4m.", "2025"),
            ("目前全球约有80亿人。", "目前"),
        ] {
            assert_eq!(
                time_sensitive(claim, 2026).as_deref(),
                Some(because),
                "{claim}"
            );
        }
        for claim in [
            "Paris is the capital of France.",
            "The treaty was signed in 2019.",
            "It has 20260 members.",
            "The concurrent runs finished.",
            "He knows the snowfall record.",
        ] {
            assert_eq!(time_sensitive(claim, 2026), None, "{claim}");
        }
    }

    #[test]
    fn a_page_is_never_called_older_than_its_date_allows() {
        assert_eq!(latest_moment("2024"), Some(at("2024-12-31T23:59:59Z")));
        assert_eq!(latest_moment("2024-02"), Some(at("2024-02-29T23:59:59Z")));
        assert_eq!(latest_moment("2023-12"), Some(at("2023-12-31T23:59:59Z")));
        assert_eq!(
            latest_moment("2024-05-04"),
            Some(at("2024-05-04T23:59:59Z"))
        );
        for bad in ["", "24", "2024-13", "2024-02-30", "May 2024", "2024-5-4x"] {
            assert_eq!(latest_moment(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_page_is_dated_by_its_update_then_its_publication() {
        let now = at("2026-11-25T12:00:00Z");
        let page = |published: Option<&str>, updated: Option<&str>| PageSignals {
            published: published.map(str::to_string),
            updated: updated.map(str::to_string),
            ..PageSignals::default()
        };
        assert_eq!(
            page_age(&page(Some("2019-03-01"), None), now),
            Some(("2019-03-01".to_string(), 2825))
        );
        assert_eq!(
            page_age(&page(Some("2019-03-01"), Some("2026-11-01")), now).map(|a| a.1),
            Some(23)
        );
        assert_eq!(page_age(&page(None, None), now), None);
        assert_eq!(page_age(&page(Some("2027-01-01"), None), now), None);
    }

    #[test]
    fn years_are_read_across_leap_days_and_new_year() {
        assert_eq!(year_of(at("2026-11-25T22:25:16Z")), 2026);
        assert_eq!(year_of(at("2024-02-29T00:00:00Z")), 2024);
        assert_eq!(year_of(at("2025-12-31T23:59:59Z")), 2025);
        assert_eq!(year_of(at("2026-01-01T00:00:00Z")), 2026);
        assert_eq!(year_of(UNIX_EPOCH), 1970);
        assert_eq!(year_of(at("2000-03-01T00:00:00Z")), 2000);
    }
}

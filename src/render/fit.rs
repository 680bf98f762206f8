//! Claims whose sources do not suit them, in kind or in time. In kind: the one place
//! a report shows a claim's type and the kind of source that would suit it, because
//! only there does it change what a reader should do ("a health claim cited only to a
//! forum: check it against official and scholarly sources"). A claim is shown when it
//! has a type other than general, cites something, and the sources it cites suit its
//! type poorly (their mean relevance, as scored, below [`POOR_FIT`]). In time: a claim
//! about the present ("currently", "the latest") citing a page last dated years ago
//! ([`crate::score::recency`]). The renderers share [`poor_fits`], [`PoorFit::advice`]
//! and [`stale_citations`], and only escape and lay out what they return.

use std::collections::HashMap;

use super::escape::{clean_text, cut_chars};
use super::source_title;
use crate::model::{Claim, ClaimType, Report, Source, SourceKind, SourceType};
use crate::score::classify::{available_source_in_words, kind_in_words, wanted_sources};

/// A claim whose cited sources' relevance is below this is shown (the rules give 0.2–0.3
/// to forums, blogs and social media for health, law, money and statistics claims, and
/// 0.5 or more to anything a reader could reasonably check such a claim against).
pub const POOR_FIT: f64 = 0.4;

/// The advice on a claim is cut to this many characters in every format (agents' names
/// and pages' titles are in it).
pub(crate) const ADVICE_MAX_CHARS: usize = 200;

/// A recommended kind of source is named as the better choice when the classifier gave
/// it at least this relevance; otherwise the advice says what the claim's type wants.
const GOOD_FIT: f64 = 0.7;

/// A claim whose sources suit it poorly, with what it cites and what would suit it.
/// The strings are plain text (not escaped): each renderer escapes them its own way.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PoorFit<'a> {
    /// The claim.
    pub claim: &'a Claim,
    /// Its type (never general).
    pub claim_type: ClaimType,
    /// What it is cited to, in words, each once, in order of citation ("a forum",
    /// "Slack messages").
    pub cited: Vec<&'static str>,
    /// What would suit it better, in words: one of the answer's own kinds of source
    /// when the classifier recommended one, else what claims of its type want.
    pub better: String,
}

impl PoorFit<'_> {
    /// `health claim cited only to a forum; check it against official and scholarly
    /// sources`. Plain text.
    pub fn advice(&self) -> String {
        format!(
            "{} claim cited only to {}; check it against {}",
            self.claim_type,
            join_words(&self.cited),
            self.better
        )
    }
}

/// The claims whose sources suit them poorly, in the order of the answer.
pub(crate) fn poor_fits(report: &Report) -> Vec<PoorFit<'_>> {
    let poorly_suited: Vec<(&Claim, ClaimType)> = report
        .claims
        .iter()
        .filter_map(|claim| Some((claim, poorly_suited_type(claim)?)))
        .collect();
    if poorly_suited.is_empty() {
        return Vec::new();
    }
    let by_id: HashMap<usize, &Source> = report.sources().map(|s| (s.id, s)).collect();
    poorly_suited
        .into_iter()
        .map(|(claim, claim_type)| poor_fit(&by_id, claim, claim_type))
        .collect()
}

/// The claim's type when the claim is typed (not general), cites something, and its
/// sources suit it poorly.
fn poorly_suited_type(claim: &Claim) -> Option<ClaimType> {
    let claim_type = claim.claim_type.filter(|t| *t != ClaimType::General)?;
    let relevance = claim.relevance?;
    (!claim.cites.is_empty() && relevance < POOR_FIT).then_some(claim_type)
}

/// The [`PoorFit`] of a poorly suited claim of `claim_type`.
fn poor_fit<'a>(
    by_id: &HashMap<usize, &Source>,
    claim: &'a Claim,
    claim_type: ClaimType,
) -> PoorFit<'a> {
    let mut cited: Vec<&'static str> = Vec::new();
    for id in &claim.cites {
        let words = by_id
            .get(id)
            .copied()
            .map_or("a source that is not listed", source_in_words);
        if !cited.contains(&words) {
            cited.push(words);
        }
    }
    let better = claim
        .classification
        .as_ref()
        .and_then(|c| {
            c.recommendations
                .iter()
                .filter(|r| r.relevance >= GOOD_FIT)
                .max_by(|a, b| a.relevance.total_cmp(&b.relevance))
        })
        .map(|r| format!("the answer's {}", available_source_in_words(&r.source)))
        .unwrap_or_else(|| wanted_sources(claim_type).to_string());
    PoorFit {
        claim,
        claim_type,
        cited,
        better,
    }
}

/// A cited source in words: its kind for internal sources, its type of publication
/// for web pages ("a forum", "a blog"), "a web page" when nothing says which.
fn source_in_words(source: &Source) -> &'static str {
    match source.kind {
        SourceKind::Slack | SourceKind::Confluence | SourceKind::File => kind_in_words(source.kind),
        SourceKind::Web => match source
            .credibility
            .as_ref()
            .map_or(SourceType::Unknown, |c| c.source_type)
        {
            SourceType::Journal => "a journal",
            SourceType::Government => "a government site",
            SourceType::Academic => "an academic site",
            SourceType::Encyclopedia => "an encyclopedia",
            SourceType::Documentation => "documentation",
            SourceType::News => "a news site",
            SourceType::Company => "a company's site",
            SourceType::Forum => "a forum",
            SourceType::Blog => "a blog",
            SourceType::Social => "social media",
            SourceType::ContentFarm => "a content farm",
            SourceType::Landing => "a sales page",
            SourceType::Unknown => "a web page",
        },
    }
}

/// A claim about the present that cites old pages, with what to tell the reader:
/// `says “currently”; NHS page is dated 2019-03-01 (7 years old)`. Plain text (titles
/// cleaned, not escaped).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StaleCitation<'a> {
    /// The claim.
    pub claim: &'a Claim,
    /// What to tell the reader.
    pub advice: String,
}

/// The claims that cite pages too old for what they say, in the order of the answer.
pub(crate) fn stale_citations(report: &Report) -> Vec<StaleCitation<'_>> {
    report
        .claims
        .iter()
        .filter(|claim| !claim.stale_sources.is_empty())
        .map(|claim| {
            let pages: Vec<String> = claim
                .stale_sources
                .iter()
                .map(|stale| {
                    format!(
                        "{} is dated {} ({})",
                        cut_chars(&source_title(report, stale.source), 80),
                        cut_chars(&clean_text(&stale.dated), 20),
                        years_old(stale.age_days)
                    )
                })
                .collect();
            let because = claim
                .stale_sources
                .first()
                .map(|s| cut_chars(&clean_text(&s.because), 40))
                .unwrap_or_default();
            StaleCitation {
                claim,
                advice: format!("says “{because}”; {}", pages.join("; ")),
            }
        })
        .collect()
}

/// `2 years old`, `over a year old` (never less: only pages over two years old are
/// listed).
fn years_old(age_days: u64) -> String {
    match age_days / 365 {
        0 => "less than a year old".to_string(),
        1 => "over a year old".to_string(),
        years => format!("{years} years old"),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join_words(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_joined_as_people_write_them() {
        assert_eq!(join_words(&[]), "");
        assert_eq!(join_words(&["a forum"]), "a forum");
        assert_eq!(join_words(&["a forum", "a blog"]), "a forum and a blog");
        assert_eq!(
            join_words(&["a forum", "a blog", "files"]),
            "a forum, a blog and files"
        );
    }
}

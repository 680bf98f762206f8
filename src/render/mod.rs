//! Rendering a [`Report`] for people and programs: Slack mrkdwn ([`mrkdwn()`]),
//! Block Kit ([`blocks()`]), plain text for terminals ([`text()`]) and JSON
//! ([`json()`]). Every string that comes from a source or from the answer is
//! untrusted: the Slack renderers pass it through [`escape`], so nothing a source says
//! can become a mention, a second link or broken markup, and the Block Kit renderer
//! keeps every message inside Slack's size limits while still accounting for every
//! source ("…and N more").
//!
//! What the support check found — each page's verdict, its own words and the words it
//! never mentions — is shown by [`evidence`]: a line under each quoted claim, the
//! **Show evidence** modal, and the text list of `sourcebot check --evidence`.
//!
//! This module holds the options and the pieces all renderers share: the display
//! order of kinds, the per-kind cap, the marks for verdicts and the short summaries.

pub mod answer;
pub mod blocks;
pub mod escape;
pub mod evidence;
pub mod feedback;
pub(crate) mod fit;
pub mod json;
pub mod limits;
pub mod mrkdwn;
pub mod text;

pub use blocks::{
    blocks, check_limits, text_len, BlockLimitError, BlockMessage, MAX_BLOCKS,
    MAX_CONTEXT_ELEMENTS, MAX_FALLBACK_TEXT, MAX_SECTION_TEXT, MAX_TOTAL_BLOCK_TEXT,
};
pub use json::{json, write_json};
pub use mrkdwn::mrkdwn;
pub use text::text;

use crate::model::{Claim, Report, Source, SourceKind, VerdictClass};
use escape::{clean_text, cut_chars};

/// At most this many dangling citation numbers are listed, then "and N more".
pub const MAX_DANGLING_SHOWN: usize = 10;
/// At most this many warnings are shown as notes, then a count.
pub const MAX_NOTES_SHOWN: usize = 3;

/// Every verdict class, in the order summaries list them.
const VERDICT_ORDER: [VerdictClass; 9] = [
    VerdictClass::Verified,
    VerdictClass::Broken,
    VerdictClass::Restricted,
    VerdictClass::ServerError,
    VerdictClass::TimedOut,
    VerdictClass::Unreachable,
    VerdictClass::Blocked,
    VerdictClass::Invalid,
    VerdictClass::NotChecked,
];

/// How much of a report the renderers show, and in what order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    /// Order of the kind groups. Kinds missing from the list are appended in the
    /// default order ([`SourceKind::ALL`]) and repeats are ignored, so no source is
    /// ever hidden by a short list.
    pub kind_order: Vec<SourceKind>,
    /// Sources shown per kind before "…and N more" (default 5); 0 means no cap.
    pub max_per_kind: usize,
    /// Titles longer than this many characters are cut and end in `…` (default 50);
    /// 0 means titles are never cut (Block Kit still shortens a line that cannot fit).
    pub title_max_chars: usize,
    /// Uncited claims quoted before "…and N more" (default 3); 0 shows only the count.
    pub max_uncited_shown: usize,
    /// Characters of each uncited claim quoted (default 80); 0 means the whole claim
    /// (Block Kit still shortens it).
    pub uncited_excerpt_chars: usize,
    /// The name of the language model that judges whether pages support claims
    /// (`SOURCEBOT_LLM_MODEL`, when the model judges): reports name it where it spoke.
    /// `None`: "the language model".
    pub support_model: Option<String>,
    /// Whether the **Show evidence** modal quotes the documents sourcebot read with its
    /// own credentials (`SOURCEBOT_INTERNAL_QUOTES`, on by default; a workspace may
    /// turn it off for itself). Channel messages never quote any page.
    pub internal_quotes: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            kind_order: SourceKind::ALL.to_vec(),
            max_per_kind: 5,
            title_max_chars: 50,
            max_uncited_shown: 3,
            uncited_excerpt_chars: 80,
            support_model: None,
            internal_quotes: true,
        }
    }
}

impl RenderOptions {
    /// The order actually used: `kind_order` without repeats, followed by every kind it
    /// left out, in the default order.
    pub fn effective_kind_order(&self) -> Vec<SourceKind> {
        let mut order: Vec<SourceKind> = Vec::with_capacity(SourceKind::ALL.len());
        for kind in self.kind_order.iter().chain(SourceKind::ALL.iter()) {
            if !order.contains(kind) {
                order.push(*kind);
            }
        }
        order
    }
}

/// The sources of one kind as a renderer shows them: the first few, and how many more.
#[derive(Debug, Clone)]
pub(crate) struct KindSection<'a> {
    /// Its heading ([`section_heading`]).
    pub heading: &'static str,
    /// The sources shown, in order of first appearance.
    pub shown: Vec<&'a Source>,
    /// How many more sources of this kind are not shown.
    pub more: usize,
}

/// The sources of `kind`, in order of appearance.
fn sources_of_kind(report: &Report, kind: SourceKind) -> Vec<&Source> {
    report.sources().filter(|s| s.kind == kind).collect()
}

/// Every source, grouped by kind in the effective display order.
pub(crate) fn ordered_sources<'a>(report: &'a Report, opts: &RenderOptions) -> Vec<&'a Source> {
    opts.effective_kind_order()
        .into_iter()
        .flat_map(|kind| sources_of_kind(report, kind))
        .collect()
}

/// The non-empty kinds in display order, each cut to `max_per_kind` sources. Sources
/// are grouped by their own `kind`, so a report's group order never matters.
pub(crate) fn kind_sections<'a>(report: &'a Report, opts: &RenderOptions) -> Vec<KindSection<'a>> {
    opts.effective_kind_order()
        .into_iter()
        .filter_map(|kind| {
            let mut shown = sources_of_kind(report, kind);
            if shown.is_empty() {
                return None;
            }
            let total = shown.len();
            let heading = section_heading(kind, &shown);
            if opts.max_per_kind > 0 {
                shown.truncate(opts.max_per_kind);
            }
            let more = total - shown.len();
            Some(KindSection {
                heading,
                shown,
                more,
            })
        })
        .collect()
}

/// The heading over `sources`, all of `kind`: the kind's own, but Atlassian's group
/// says Jira where it holds Jira issues ("Confluence and Jira", or "Jira" alone).
pub(crate) fn section_heading(kind: SourceKind, sources: &[&Source]) -> &'static str {
    if kind != SourceKind::Confluence {
        return kind.heading();
    }
    let jira = sources
        .iter()
        .filter(|s| s.link().is_some_and(crate::collect::kind::is_jira_link))
        .count();
    match jira {
        0 => kind.heading(),
        n if n == sources.len() => "Jira",
        _ => "Confluence and Jira",
    }
}

/// The number of unique sources in the report.
pub(crate) fn source_count(report: &Report) -> usize {
    report.sources().count()
}

/// The verdict class shown for a source: its own class when links were checked,
/// otherwise always "not checked" (so "verified" never appears unchecked).
pub(crate) fn shown_class(report: &Report, source: &Source) -> VerdictClass {
    if report.verification.performed {
        source.verdict.class
    } else {
        VerdictClass::NotChecked
    }
}

/// The verification state in words: "links not checked", or counts per verdict
/// ("✓ 5 verified · ⚠ 1 broken · – 1 not checked") when links were checked. Safe as
/// mrkdwn.
pub(crate) fn verdict_summary(report: &Report) -> String {
    if !report.verification.performed {
        return "links not checked".to_string();
    }
    let mut counts = crate::model::VerdictCounts::default();
    for source in report.sources() {
        counts.add(source.verdict.class);
    }
    counts_summary(&counts)
}

/// Counts per verdict in words, in display order, leaving out zeros: "✓ 5 verified ·
/// ⚠ 1 broken · – 1 not checked" ("links checked" when all are zero). Safe as mrkdwn.
pub fn counts_summary(counts: &crate::model::VerdictCounts) -> String {
    let parts: Vec<String> = VERDICT_ORDER
        .iter()
        .filter_map(|class| {
            let n = counts.get(*class);
            (n > 0).then(|| format!("{} {n} {}", class.mark(), class.label()))
        })
        .collect();
    if parts.is_empty() {
        "links checked".to_string()
    } else {
        parts.join(" · ")
    }
}

/// `Confidence 0.78 (medium) · 6 sources from 5 domains · 2 of 9 claims cite nothing`,
/// when the report was scored.
pub(crate) fn confidence_line(report: &Report) -> Option<String> {
    let confidence = report.confidence.as_ref()?;
    let sources = plural(confidence.sources, "source", "sources");
    let domains = plural(confidence.domains, "domain", "domains");
    let mut line = if confidence.label == crate::score::confidence::NOT_CHECKED_LABEL {
        format!("Confidence: not checked (none of its sources could be checked or read) · {sources} from {domains}")
    } else {
        format!(
            "Confidence {:.2} ({}) · {sources} from {domains}",
            confidence.value, confidence.label
        )
    };
    let claims = claims_total(report);
    let uncited = uncited_total(report, uncited(report).len());
    if let Some(part) = uncited_in_words(uncited, claims) {
        line.push_str(" · ");
        line.push_str(&part);
    }
    Some(line)
}

/// How many of the answer's claims cite nothing, in words: `2 of 9 claims cite nothing`,
/// `1 of 1 claim cites nothing`, `every claim cites a source`; nothing when the answer
/// makes no claim (a list of search results).
fn uncited_in_words(uncited: usize, claims: usize) -> Option<String> {
    match (uncited, claims) {
        (_, 0) => None,
        (0, _) => Some("every claim cites a source".to_string()),
        (uncited, 1) => Some(format!("{uncited} of 1 claim cites nothing")),
        (uncited, claims) => Some(format!("{uncited} of {claims} claims cite nothing")),
    }
}

/// Whether a source is shown as "low credibility": it has a link and its credibility
/// is below [`crate::score::LOW_CREDIBILITY`].
pub(crate) fn low_credibility(source: &Source) -> bool {
    source
        .credibility
        .as_ref()
        .is_some_and(|c| c.base_from != "no_url" && c.value < crate::score::LOW_CREDIBILITY)
}

/// `"1 source"`, `"2 sources"`.
pub(crate) fn plural(n: usize, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("{n} {singular}")
    } else {
        format!("{n} {plural}")
    }
}

/// The claims that want a source and cite none, in order (as listed in the report,
/// which may hold only the first ones of a very long answer).
pub(crate) fn uncited(report: &Report) -> Vec<&Claim> {
    report.uncited_claims().collect()
}

/// What the support check found for `source`: how many of the claims citing it it
/// supports (fully or partly), of those it could be judged against; `None` when it was
/// judged against none.
pub(crate) fn support_counts(report: &Report, source: usize) -> Option<(usize, usize)> {
    use crate::model::SupportVerdict;
    let (mut supports, mut judged) = (0, 0);
    for support in report
        .claims
        .iter()
        .flat_map(|c| c.support.iter())
        .filter(|s| s.source == source && s.verdict != SupportVerdict::Unreadable)
    {
        judged += 1;
        if support.verdict != SupportVerdict::NotSupported {
            supports += 1;
        }
    }
    (judged > 0).then_some((supports, judged))
}

/// The claims that none of their readable pages supports, each with the ids of the
/// pages that do not (claims whose pages could not be read are not listed).
pub(crate) fn unsupported(report: &Report) -> Vec<(&Claim, Vec<usize>)> {
    use crate::model::SupportVerdict;
    report
        .claims
        .iter()
        .filter_map(|claim| {
            let readable: Vec<_> = claim
                .support
                .iter()
                .filter(|s| s.verdict != SupportVerdict::Unreadable)
                .collect();
            (!readable.is_empty()
                && readable
                    .iter()
                    .all(|s| s.verdict == SupportVerdict::NotSupported))
            .then(|| (claim, readable.iter().map(|s| s.source).collect()))
        })
        .collect()
}

/// The title of the source with `id`, cleaned (not escaped); `"source {id}"` when there
/// is none.
pub(crate) fn source_title(report: &Report, id: usize) -> String {
    report
        .sources()
        .find(|s| s.id == id)
        .map(|s| clean_text(&s.title))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| format!("source {id}"))
}

/// How many claims cite nothing: the metrics count every one, also those a very long
/// answer's report does not list.
pub(crate) fn uncited_total(report: &Report, listed: usize) -> usize {
    report.metrics.uncited_claims.max(listed)
}

/// How many sentences were considered, listed or not.
pub(crate) fn claims_total(report: &Report) -> usize {
    report.metrics.claims.max(report.claims.len())
}

/// The notes worth showing: that the network looks down (first: it changes what every
/// verdict means), then the warnings, cleaned, empty ones left out.
pub(crate) fn cleaned_warnings(report: &Report) -> Vec<String> {
    let network = report
        .verification
        .network_down
        .then(|| report.verification.note.clone());
    network
        .into_iter()
        .chain(report.warnings.iter().cloned())
        .map(|w| clean_text(&w))
        .filter(|w| !w.is_empty())
        .collect()
}

/// A claim's text on one line, cut to `max_chars` characters with `…` (0: not cut).
/// Not escaped.
pub(crate) fn excerpt(text: &str, max_chars: usize) -> String {
    cut_chars(&clean_text(text), max_chars)
}

/// The numbers of the dangling citations, deduplicated and ascending.
pub(crate) fn dangling_numbers(report: &Report) -> Vec<u32> {
    let mut numbers: Vec<u32> = report.dangling_citations.iter().map(|d| d.number).collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// The dangling citation numbers, deduplicated and ascending: `"[4], [7]"`, with at
/// most [`MAX_DANGLING_SHOWN`] listed and then `" and N more"`. `None` when there are
/// none. Digits and brackets only, so safe in every format.
pub(crate) fn dangling_list(report: &Report) -> Option<String> {
    let numbers = dangling_numbers(report);
    if numbers.is_empty() {
        return None;
    }
    let shown: Vec<String> = numbers
        .iter()
        .take(MAX_DANGLING_SHOWN)
        .map(|n| format!("[{n}]"))
        .collect();
    let mut list = shown.join(", ");
    if numbers.len() > MAX_DANGLING_SHOWN {
        list.push_str(&format!(" and {} more", numbers.len() - MAX_DANGLING_SHOWN));
    }
    Some(list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Answer;

    #[test]
    fn atlassians_group_is_headed_jira_where_it_holds_jira_issues() {
        let answer = Answer::from_text(
            "Freezes [1]. Rota [2]. Policy [3].\n\n\
             [1] https://acme.atlassian.net/browse/OPS-1 - Freeze ticket\n\
             [2] https://acme.atlassian.net/wiki/spaces/ENG/pages/1/Rota - Rota\n\
             [3] https://www.notion.so/acme/Policy-0123456789abcdef0123456789abcdef - Policy",
        );
        let report = crate::check(&answer, &Default::default());
        let headings = |report: &Report| -> Vec<&'static str> {
            kind_sections(report, &RenderOptions::default())
                .iter()
                .map(|s| s.heading)
                .collect()
        };
        assert_eq!(headings(&report), ["Confluence and Jira", "Files"]);
        let mut jira_only = report.clone();
        jira_only.groups[0].sources.retain(|s| s.id == 1);
        assert_eq!(headings(&jira_only)[0], "Jira");
        let mut wiki_only = report;
        wiki_only.groups[0].sources.retain(|s| s.id == 2);
        assert_eq!(headings(&wiki_only)[0], "Confluence");
    }

    #[test]
    fn the_uncited_count_reads_as_words() {
        assert_eq!(uncited_in_words(0, 0), None);
        assert_eq!(
            uncited_in_words(0, 4).as_deref(),
            Some("every claim cites a source")
        );
        assert_eq!(
            uncited_in_words(1, 1).as_deref(),
            Some("1 of 1 claim cites nothing")
        );
        assert_eq!(
            uncited_in_words(2, 9).as_deref(),
            Some("2 of 9 claims cite nothing")
        );
    }
}

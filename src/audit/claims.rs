//! The claims of audited reports judged against the pages they cite, as `check` judges
//! them ([`Pipeline::check_support`]: web pages through the verifier's bounded, guarded
//! GET, internal documents through their product's API, within the support budget and
//! page limit of each report), and counted: per claim the best verdict of the pages it
//! cites, per report how many claims are supported, partly supported, not supported or
//! could not be judged. Only counts and citation numbers leave this module: no quote,
//! no word of a page, and no title an internal document gave its source.

use super::AuditProgress;
use crate::model::{Report, SupportVerdict};
use crate::pipeline::Pipeline;
use crate::support::check::SupportOutcome;
use futures_util::StreamExt;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::Ordering;

/// One report's claims (or all reports' claims) judged against the pages they cite.
/// `claims = judged + unreadable + notRead` and `judged = supported + partlySupported +
/// notSupported`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimCounts {
    /// Claims that cite at least one source.
    pub claims: usize,
    /// Of which judged: at least one page they cite was read.
    pub judged: usize,
    /// Judged, and a page they cite supports them.
    pub supported: usize,
    /// Judged, and the best a page they cite does is support them in part.
    pub partly_supported: usize,
    /// Judged, and no page they cite supports them even in part.
    pub not_supported: usize,
    /// Every page they cite that was tried could not be read (or was empty).
    pub unreadable: usize,
    /// No page they cite was tried: no URL, a link that did not verify, an internal
    /// link without credentials, or over the page limit or time budget.
    pub not_read: usize,
    /// `supported / judged` (0.0 when nothing was judged).
    pub supported_rate: f64,
    /// Cited pages read (or found unreadable) and judged.
    pub pages_read: usize,
    /// Cited pages left unread: over the page limit, or not read within the budget.
    pub pages_skipped: usize,
}

impl ClaimCounts {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &ClaimCounts) {
        self.claims += other.claims;
        self.judged += other.judged;
        self.supported += other.supported;
        self.partly_supported += other.partly_supported;
        self.not_supported += other.not_supported;
        self.unreadable += other.unreadable;
        self.not_read += other.not_read;
        self.pages_read += other.pages_read;
        self.pages_skipped += other.pages_skipped;
        self.supported_rate = ratio(self.supported, self.judged);
    }
}

/// A report whose claims were judged: its counts, and the numbers of the citations
/// behind the claims its pages do not support (fully).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeastSupported {
    /// The file.
    pub file: String,
    /// Its claims, counted.
    #[serde(flatten)]
    pub counts: ClaimCounts,
    /// The citation numbers (`[n]`) the claims no read page supports cite, in order.
    pub not_supported_citations: Vec<u32>,
    /// The citation numbers the claims only partly supported cite, in order.
    pub partly_supported_citations: Vec<u32>,
}

impl LeastSupported {
    /// Whether this report is listed before `other`: more claims not supported, then
    /// more partly supported, then a lower supported share, then by file name.
    pub fn ranks_before(&self, other: &LeastSupported) -> bool {
        let (a, b) = (&self.counts, &other.counts);
        b.not_supported
            .cmp(&a.not_supported)
            .then(b.partly_supported.cmp(&a.partly_supported))
            .then(a.supported_rate.total_cmp(&b.supported_rate))
            .then(self.file.cmp(&other.file))
            .is_lt()
    }
}

/// The best verdict of the pages `verdicts` (supported over partly over not over
/// unreadable); `None` when no page was tried.
fn best(verdicts: impl Iterator<Item = SupportVerdict>) -> Option<SupportVerdict> {
    let rank = |verdict: &SupportVerdict| match verdict {
        SupportVerdict::Supported => 3,
        SupportVerdict::PartlySupported => 2,
        SupportVerdict::NotSupported => 1,
        SupportVerdict::Unreadable => 0,
    };
    verdicts.max_by_key(rank)
}

/// `report`'s claims counted after its support check, which did `outcome`, with the
/// citation numbers behind those not (fully) supported.
pub fn count_claims(file: &str, report: &Report, outcome: &SupportOutcome) -> LeastSupported {
    let numbers: HashMap<usize, &[u32]> = report
        .sources()
        .map(|s| (s.id, s.citation_numbers.as_slice()))
        .collect();
    let mut counts = ClaimCounts {
        pages_read: outcome.pages,
        pages_skipped: outcome.skipped,
        ..ClaimCounts::default()
    };
    let (mut not_supported, mut partly) = (BTreeSet::new(), BTreeSet::new());
    for claim in &report.claims {
        if claim.cites.is_empty() && claim.support.is_empty() {
            continue;
        }
        counts.claims += 1;
        let numbers_of_claim = || {
            claim
                .cites
                .iter()
                .filter_map(|id| numbers.get(id))
                .flat_map(|n| n.iter().copied())
        };
        match best(claim.support.iter().map(|s| s.verdict)) {
            None => counts.not_read += 1,
            Some(SupportVerdict::Unreadable) => counts.unreadable += 1,
            Some(SupportVerdict::Supported) => counts.supported += 1,
            Some(SupportVerdict::PartlySupported) => {
                counts.partly_supported += 1;
                partly.extend(numbers_of_claim());
            }
            Some(SupportVerdict::NotSupported) => {
                counts.not_supported += 1;
                not_supported.extend(numbers_of_claim());
            }
        }
    }
    counts.judged = counts.supported + counts.partly_supported + counts.not_supported;
    counts.supported_rate = ratio(counts.supported, counts.judged);
    LeastSupported {
        file: file.to_string(),
        counts,
        not_supported_citations: not_supported.into_iter().collect(),
        partly_supported_citations: partly.into_iter().collect(),
    }
}

/// Reports whose pages are read at once: as many as keep the pages read at once
/// within the link concurrency (each report reads up to the support check's
/// concurrency); the verifier's own slots bound the requests in any case.
fn reports_at_once(pipeline: &Pipeline) -> usize {
    let config = pipeline.config();
    (config.verify.concurrency / config.support.concurrency.max(1)).max(1)
}

/// Judges the claims of a chunk's verified reports against their pages, a few reports
/// at once, each within its own support budget; what each check did, in the reports'
/// order (`None` where the pipeline reads no page). A title that a document read with
/// sourcebot's credentials gave its source is taken back, so that nothing of it
/// reaches the audit's output.
pub(super) async fn judge_claims(
    reports: &mut [Report],
    pipeline: &Pipeline,
    progress: Option<&AuditProgress>,
) -> Vec<Option<SupportOutcome>> {
    if let Some(progress) = progress {
        progress.judging_done.store(0, Ordering::Relaxed);
        progress
            .judging_total
            .store(reports.len(), Ordering::Relaxed);
    }
    let mut outcomes = vec![None; reports.len()];
    let mut judged = futures_util::stream::iter(reports.iter_mut().enumerate().map(
        |(index, report)| async move {
            let titles: HashMap<usize, String> =
                report.sources().map(|s| (s.id, s.title.clone())).collect();
            let outcome = pipeline.check_support(report).await;
            for source in report.groups.iter_mut().flat_map(|g| g.sources.iter_mut()) {
                let internal = source.read_via.as_ref().is_some_and(|r| r.is_internal());
                if let (true, Some(title)) = (internal, titles.get(&source.id)) {
                    source.title.clone_from(title);
                }
            }
            (index, outcome)
        },
    ))
    .buffer_unordered(reports_at_once(pipeline));
    while let Some((index, outcome)) = judged.next().await {
        if let Some(slot) = outcomes.get_mut(index) {
            *slot = outcome;
        }
        if let Some(progress) = progress {
            progress.judging_done.fetch_add(1, Ordering::Relaxed);
        }
    }
    outcomes
}

/// `part / whole`, 0.0 when `whole` is 0.
pub(super) fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::input::{parse_answer, FormatHint};
    use crate::collect::CollectOptions;

    /// A research report of six citations, each a claim citing its source `[n]`, the
    /// n-th judged against pages with `verdicts[n]`.
    fn judged_report(verdicts: &[&[&str]]) -> Report {
        let citations: Vec<serde_json::Value> = (1..=verdicts.len())
            .map(|n| {
                serde_json::json!({"id": n.to_string(), "text": format!("The service in region {n} handled twelve hundred requests per second during the test"),
                    "url": format!("https://site{n}.example/page")})
            })
            .collect();
        let json = serde_json::json!({"title": "T", "phase": "final", "citations": citations});
        let answer =
            parse_answer(json.to_string().as_bytes(), FormatHint::Json, 1 << 20).expect("report");
        let mut report = crate::build_report(
            &answer,
            crate::collect::collect(&answer, &CollectOptions::default()),
        );
        for (claim, verdicts) in report.claims.iter_mut().zip(verdicts) {
            let Some(&source) = claim.cites.first() else {
                continue;
            };
            claim.support = verdicts
                .iter()
                .map(|verdict| {
                    serde_json::from_value(serde_json::json!({
                        "source": source, "score": 0.5, "verdict": verdict,
                        "quote": "the page's own words"
                    }))
                    .expect("support")
                })
                .collect();
        }
        report
    }

    #[test]
    fn each_claim_counts_once_by_its_best_page() {
        let report = judged_report(&[
            &["not supported", "supported"],
            &["partly supported", "unreadable"],
            &["not supported"],
            &["unreadable"],
            &[],
        ]);
        let outcome = SupportOutcome {
            pages: 4,
            skipped: 1,
            judged: 6,
        };
        let counted = count_claims("r.json", &report, &outcome);
        let c = &counted.counts;
        assert_eq!(
            (c.claims, c.judged, c.supported, c.partly_supported),
            (5, 3, 1, 1),
            "{c:?}"
        );
        assert_eq!((c.not_supported, c.unreadable, c.not_read), (1, 1, 1));
        assert_eq!((c.pages_read, c.pages_skipped), (4, 1));
        assert!((c.supported_rate - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(counted.not_supported_citations, [3]);
        assert_eq!(counted.partly_supported_citations, [2]);
        // Only counts and numbers: no quote reaches the audit.
        let json = serde_json::to_string(&counted).expect("json");
        assert!(!json.contains("own words"), "{json}");
    }

    #[test]
    fn most_unsupported_first() {
        let ranked = |file: &str, not: usize, partly: usize, supported: usize| LeastSupported {
            file: file.into(),
            counts: ClaimCounts {
                not_supported: not,
                partly_supported: partly,
                supported,
                judged: not + partly + supported,
                supported_rate: supported as f64 / (not + partly + supported) as f64,
                ..ClaimCounts::default()
            },
            not_supported_citations: Vec::new(),
            partly_supported_citations: Vec::new(),
        };
        assert!(ranked("b", 2, 0, 5).ranks_before(&ranked("a", 1, 3, 0)));
        assert!(ranked("b", 1, 2, 5).ranks_before(&ranked("a", 1, 1, 0)));
        assert!(ranked("b", 1, 1, 0).ranks_before(&ranked("a", 1, 1, 5)));
        assert!(ranked("a", 1, 1, 1).ranks_before(&ranked("b", 1, 1, 1)));
        assert!(!ranked("a", 1, 1, 1).ranks_before(&ranked("a", 1, 1, 1)));
    }
}

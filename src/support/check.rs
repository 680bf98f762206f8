//! The support check of a report: after its links are probed, the pages of the web
//! sources that claims cite (and that answered) are read through the verifier
//! ([`Verifier::fetch_page`]: the same guard, caps and cache), each page is cut into
//! sentences once, and every claim citing it is scored against it on the blocking
//! pool. The whole check runs within a budget ([`SupportSettings::budget`]); pages not
//! read by then are left unjudged, and the report says how many. Reading pages
//! happens only here and in `verify/`; no page text is kept in the report beyond the
//! short quote.

use super::passages::Page;
use super::SupportScorer;
use crate::model::{ClaimSupport, Report, SourceKind, SupportVerdict, VerdictClass};
use crate::page::PageRead;
use crate::verify::Verifier;
use futures_util::StreamExt;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How the support check runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupportSettings {
    /// Whether it runs at all (`SOURCEBOT_SUPPORT`).
    pub enabled: bool,
    /// The longest one report's check may take (`SOURCEBOT_SUPPORT_TIMEOUT`).
    pub budget: Duration,
    /// Pages read at most per report (the most cited first).
    pub max_pages: usize,
    /// Pages read at once.
    pub concurrency: usize,
}

impl Default for SupportSettings {
    fn default() -> Self {
        SupportSettings {
            enabled: true,
            budget: Duration::from_secs(8),
            max_pages: 20,
            concurrency: 4,
        }
    }
}

/// What a support check did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SupportOutcome {
    /// Pages read (or found unreadable) and judged.
    pub pages: usize,
    /// Pages not judged: over the page limit, or not read within the budget.
    pub skipped: usize,
    /// Claim–source pairs judged.
    pub judged: usize,
}

/// A page to read: the source's id and link, and the claims that cite it.
struct Target {
    source: usize,
    url: String,
    claims: Vec<usize>,
}

/// Which pages to read for `report`: verified web sources that claims cite, the most
/// cited first, at most `max_pages`; and how many were left out.
fn targets(report: &Report, max_pages: usize) -> (Vec<Target>, usize) {
    let mut citing: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (index, claim) in report.claims.iter().enumerate() {
        for id in &claim.cites {
            citing.entry(*id).or_default().push(index);
        }
    }
    let mut targets: Vec<Target> = report
        .sources()
        .filter(|s| s.kind == SourceKind::Web && s.verdict.class == VerdictClass::Verified)
        .filter_map(|s| {
            Some(Target {
                source: s.id,
                url: s.canonical_url.clone()?,
                claims: citing.get(&s.id)?.clone(),
            })
        })
        .collect();
    targets.sort_by(|a, b| {
        b.claims
            .len()
            .cmp(&a.claims.len())
            .then(a.source.cmp(&b.source))
    });
    let skipped = targets.len().saturating_sub(max_pages);
    targets.truncate(max_pages);
    (targets, skipped)
}

/// Reads the cited pages of `report` and records, on each claim, how far each of its
/// sources supports it.
pub async fn check_support(
    report: &mut Report,
    verifier: &Verifier,
    scorer: &Arc<SupportScorer>,
    settings: &SupportSettings,
) -> SupportOutcome {
    let (targets, over_limit) = targets(report, settings.max_pages);
    let total = targets.len();
    let claims: Arc<Vec<String>> = Arc::new(report.claims.iter().map(|c| c.text.clone()).collect());
    let deadline = Instant::now() + settings.budget;
    let mut judged_pages = futures_util::stream::iter(targets.into_iter().map(|target| {
        let (scorer, claims) = (scorer.clone(), claims.clone());
        async move {
            let page = verifier.fetch_page(&target.url).await;
            judge(scorer, claims, target, page).await
        }
    }))
    .buffer_unordered(settings.concurrency.max(1));
    let mut outcome = SupportOutcome {
        skipped: over_limit,
        ..SupportOutcome::default()
    };
    loop {
        match tokio::time::timeout_at(deadline.into(), judged_pages.next()).await {
            Ok(Some(results)) => {
                outcome.pages += 1;
                for (claim, support) in results {
                    if let Some(claim) = report.claims.get_mut(claim) {
                        claim.support.push(support);
                        outcome.judged += 1;
                    }
                }
            }
            Ok(None) => break,
            Err(_) => break,
        }
    }
    outcome.skipped += total - outcome.pages;
    for claim in &mut report.claims {
        claim.support.sort_by_key(|s| s.source);
    }
    if outcome.skipped > 0 {
        report.warnings.push(format!(
            "The support check read {} of {} cited pages; {} were not judged (too many, or not read within {} s).",
            outcome.pages,
            outcome.pages + outcome.skipped,
            outcome.skipped,
            settings.budget.as_secs_f64()
        ));
    }
    outcome
}

/// Scores every claim of `target` against its `page`, on the blocking pool.
async fn judge(
    scorer: Arc<SupportScorer>,
    claims: Arc<Vec<String>>,
    target: Target,
    page: Arc<PageRead>,
) -> Vec<(usize, ClaimSupport)> {
    let unreadable = |reason: String, target: &Target| {
        target
            .claims
            .iter()
            .map(|&claim| {
                (
                    claim,
                    ClaimSupport {
                        source: target.source,
                        score: 0.0,
                        verdict: SupportVerdict::Unreadable,
                        quote: None,
                        reason: Some(reason.clone()),
                    },
                )
            })
            .collect::<Vec<_>>()
    };
    if let PageRead::Unreadable(reason) = &*page {
        return unreadable(reason.clone(), &target);
    }
    let scoring = {
        let target_claims = target.claims.clone();
        let source = target.source;
        tokio::task::spawn_blocking(move || {
            let Some(read) = page.page() else {
                return Vec::new();
            };
            let sentences = Page::new(&[read.text.as_str()]);
            target_claims
                .iter()
                .filter_map(|&claim| {
                    let text = claims.get(claim)?;
                    let support = scorer.score_page(text, &sentences);
                    Some((
                        claim,
                        ClaimSupport {
                            source,
                            score: support.score,
                            verdict: support.verdict,
                            quote: support.quote,
                            reason: None,
                        },
                    ))
                })
                .collect()
        })
    };
    match scoring.await {
        Ok(results) => results,
        Err(error) => unreadable(format!("judging the page failed: {error}"), &target),
    }
}

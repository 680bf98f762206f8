//! The support check of a report: after its links are probed, the pages of the web
//! sources that claims cite (and that answered) are read through the verifier
//! ([`Verifier::fetch_page`]: the same guard, caps and cache), and internal sources
//! (Confluence and Jira, Google Drive, SharePoint and OneDrive, Notion, GitHub, Slack
//! messages and files) through their product's API ([`Verifier::read_internal`]:
//! remembered like pages), never as web pages. What sourcebot reads with its own
//! credentials reaches the language model only when the operator allows it
//! ([`SupportSettings::model_reads_internal`]), and a document read only in part
//! supports a claim or leaves it unjudged, never "not supported". Each page is
//! cut into sentences once, and every claim citing it is scored against it on the
//! blocking pool by the built-in scorer; when a language model is configured, the
//! claims and the page's best passages then go to it ([`super::judge`]), and its
//! verdicts replace the built-in ones it gave validly. The whole check runs within a
//! budget ([`SupportSettings::budget`]); pages not read by then are left unjudged,
//! and the report says how many. No page text is kept in the report beyond the short
//! quote. A page read with a title of its own gives it to its source when the source's
//! title was only made from the link.

use super::judge::{judge_label, passages_for, verdict_score, LlmJudge};
use super::passages::Page;
use super::SupportScorer;
use crate::llm::CallBudget;
use crate::metrics::Metrics;
use crate::model::{ClaimSupport, Report, SourceKind, SupportJudge, SupportVerdict, VerdictClass};
use crate::page::PageRead;
use crate::verify::{retitle, Checkers, InternalChecker, Verifier};
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
    /// Whether the language model judges when one is configured
    /// (`SOURCEBOT_SUPPORT_JUDGE`: `llm`, the default, or `builtin`).
    pub use_model: bool,
    /// Whether what sourcebot reads with its own credentials (internal documents,
    /// Slack messages) may be sent to the language model too
    /// (`SOURCEBOT_LLM_READS_INTERNAL`, off by default: the built-in scorer judges
    /// them).
    pub model_reads_internal: bool,
}

impl Default for SupportSettings {
    fn default() -> Self {
        SupportSettings {
            enabled: true,
            budget: Duration::from_secs(8),
            max_pages: 20,
            concurrency: 4,
            use_model: true,
            model_reads_internal: false,
        }
    }
}

/// Who judges: the built-in scorer always, the language model when configured, and
/// the metrics they count into.
#[derive(Debug, Clone)]
pub struct SupportJudges {
    /// The built-in scorer: the judge when there is no model, and its fallback.
    pub builtin: Arc<SupportScorer>,
    /// The language model judge, when configured.
    pub llm: Option<LlmJudge>,
    /// Where pages handled and judgements are counted.
    pub metrics: Option<Arc<Metrics>>,
}

impl SupportJudges {
    /// The built-in scorer alone, counting nowhere.
    pub fn builtin(scorer: Arc<SupportScorer>) -> SupportJudges {
        SupportJudges {
            builtin: scorer,
            llm: None,
            metrics: None,
        }
    }
}

/// The model calls are given up this long before the check's deadline, so that the
/// built-in judgement of their claims still makes it into the report.
const MODEL_MARGIN: Duration = Duration::from_millis(300);

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

/// How a cited source's text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// Fetched over HTTP through the verifier's guard.
    Web,
    /// Through the internal checker's API (Slack messages).
    Internal,
}

/// A page to read: the source's id, link, title and verdict, and the claims that cite
/// it.
struct Target {
    source: usize,
    url: String,
    title: Option<String>,
    verdict: crate::model::Verdict,
    claims: Vec<usize>,
    reader: Reader,
}

/// Which pages to read for `report`: verified sources that claims cite (web pages,
/// and internal sources `internal` handles), the most cited first, at most
/// `max_pages`; and how many were left out.
fn targets(
    report: &Report,
    max_pages: usize,
    internal: Option<&Arc<dyn InternalChecker>>,
) -> (Vec<Target>, usize) {
    let mut citing: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (index, claim) in report.claims.iter().enumerate() {
        for id in &claim.cites {
            citing.entry(*id).or_default().push(index);
        }
    }
    let mut targets: Vec<Target> = report
        .sources()
        .filter(|s| s.verdict.class == VerdictClass::Verified)
        .filter_map(|s| {
            let url = s.canonical_url.clone()?;
            // A link a product checks is read through that product, never as a web
            // page (a Jira issue, a Notion page, a GitHub file).
            let reader = if internal.is_some_and(|c| c.handles(s.kind, &url)) {
                Reader::Internal
            } else if s.kind == SourceKind::Web {
                Reader::Web
            } else {
                return None;
            };
            Some(Target {
                source: s.id,
                title: Some(s.title.clone()).filter(|t| !t.trim().is_empty()),
                verdict: s.verdict.clone(),
                url,
                claims: citing.get(&s.id)?.clone(),
                reader,
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
/// sources supports it; internal sources are read through `internal`, then the
/// verifier's own checker (as [`Verifier::verify_report_with`] checks them).
pub async fn check_support(
    report: &mut Report,
    verifier: &Verifier,
    internal: Option<&Arc<dyn InternalChecker>>,
    judges: &SupportJudges,
    settings: &SupportSettings,
) -> SupportOutcome {
    let combined = Checkers::chain(internal, verifier.internal_checker());
    let internal = combined.as_ref();
    let (targets, over_limit) = targets(report, settings.max_pages, internal);
    let total = targets.len();
    let claims: Arc<Vec<String>> = Arc::new(report.claims.iter().map(|c| c.text.clone()).collect());
    let deadline = Instant::now() + settings.budget;
    let budget = judges.llm.as_ref().map(LlmJudge::budget);
    let mut judged_pages = futures_util::stream::iter(targets.into_iter().map(|target| {
        let (claims, budget) = (claims.clone(), budget.as_ref());
        async move {
            let page = match target.reader {
                Reader::Web => verifier.fetch_page(&target.url).await,
                Reader::Internal => {
                    verifier
                        .read_internal(internal?, &target.url, &target.verdict)
                        .await?
                }
            };
            let source = target.source;
            // What sourcebot read with its own credentials goes to the model only when
            // the operator allows it.
            let model_may_read = page
                .page()
                .is_none_or(|read| !read.read_via.is_internal() || settings.model_reads_internal);
            let results = judge(
                judges,
                claims,
                target,
                page.clone(),
                budget.filter(|_| model_may_read),
                deadline,
            )
            .await;
            Some((source, page, results))
        }
    }))
    .buffer_unordered(settings.concurrency.max(1));
    let mut outcome = SupportOutcome {
        skipped: over_limit,
        ..SupportOutcome::default()
    };
    let mut no_content = 0;
    loop {
        match tokio::time::timeout_at(deadline.into(), judged_pages.next()).await {
            Ok(Some(Some((source, page, results)))) => {
                outcome.pages += 1;
                if let Some(cited) = report
                    .groups
                    .iter_mut()
                    .flat_map(|g| g.sources.iter_mut())
                    .find(|s| s.id == source)
                {
                    let read = page.page();
                    // What the page shows about itself, for the source's credibility.
                    cited.page = read.map(|read| read.signals.clone());
                    // How it was read: who may see its words quoted.
                    cited.read_via = read.map(|read| read.read_via.clone());
                    // Where the page is read, its own title wins over one made from
                    // the link (never over one the answer gave).
                    if let Some(title) = read.and_then(|read| read.title.as_deref()) {
                        retitle(cited, title);
                    }
                }
                for (claim, support) in results {
                    if let Some(metrics) = &judges.metrics {
                        metrics.support_judgement(
                            &support.verdict.as_str().replace(' ', "_"),
                            judge_label(support.judge),
                        );
                    }
                    if let Some(claim) = report.claims.get_mut(claim) {
                        claim.support.push(support);
                        outcome.judged += 1;
                    }
                }
            }
            Ok(Some(None)) => no_content += 1,
            Ok(None) | Err(_) => break,
        }
    }
    outcome.skipped += total - outcome.pages - no_content;
    if let Some(metrics) = &judges.metrics {
        metrics.support_pages("judged", outcome.pages);
        metrics.support_pages("skipped", outcome.skipped);
    }
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

/// Judges every claim of `target` against its `page`: the built-in scorer on the
/// blocking pool, then the model (when there is one and it has calls left).
async fn judge(
    judges: &SupportJudges,
    claims: Arc<Vec<String>>,
    target: Target,
    page: Arc<PageRead>,
    budget: Option<&CallBudget>,
    deadline: Instant,
) -> Vec<(usize, ClaimSupport)> {
    let in_part = page_read_in_part(&page);
    let mut results = judge_whole(judges, claims, target, page, budget, deadline).await;
    if in_part {
        only_what_the_part_says(&mut results);
    }
    results
}

/// [`judge`], as if the page were read whole.
async fn judge_whole(
    judges: &SupportJudges,
    claims: Arc<Vec<String>>,
    target: Target,
    page: Arc<PageRead>,
    budget: Option<&CallBudget>,
    deadline: Instant,
) -> Vec<(usize, ClaimSupport)> {
    if let PageRead::Unreadable(reason) = &*page {
        return unreadable(reason, &target);
    }
    let with_model = judges.llm.is_some() && budget.is_some();
    let scoring = {
        let target_claims = target.claims.clone();
        let (source, scorer, claims) = (target.source, judges.builtin.clone(), claims.clone());
        tokio::task::spawn_blocking(move || {
            let Some(read) = page.page() else {
                return (Vec::new(), Vec::new());
            };
            let sentences = Page::new(&[read.text.as_str()]);
            let texts: Vec<&str> = target_claims
                .iter()
                .filter_map(|&claim| claims.get(claim).map(String::as_str))
                .collect();
            let passages = if with_model {
                passages_for(&sentences, &texts)
            } else {
                Vec::new()
            };
            let results = target_claims
                .iter()
                .filter_map(|&claim| {
                    let support = scorer.score_page(claims.get(claim)?, &sentences);
                    Some((
                        claim,
                        ClaimSupport {
                            source,
                            score: support.score,
                            verdict: support.verdict,
                            quote: support.quote,
                            missing: support.missing,
                            differs: support.differs,
                            reason: None,
                            judge: SupportJudge::Builtin,
                        },
                    ))
                })
                .collect::<Vec<_>>();
            (results, passages)
        })
    };
    let (mut results, passages) = match scoring.await {
        Ok(scored) => scored,
        Err(error) => return unreadable(&format!("judging the page failed: {error}"), &target),
    };

    let (Some(model), Some(budget)) = (&judges.llm, budget) else {
        return results;
    };
    if passages.is_empty() {
        // Nothing on the page matches any claim: there is nothing to ask about.
        return results;
    }
    let texts: Vec<&str> = results
        .iter()
        .map(|(claim, _)| claims.get(*claim).map_or("", String::as_str))
        .collect();
    let judged = model
        .judge(
            target.title.as_deref(),
            &passages,
            &texts,
            budget,
            deadline.checked_sub(MODEL_MARGIN).unwrap_or(deadline),
        )
        .await;
    for judgement in judged.judgements {
        if let Some((_, support)) = results.get_mut(judgement.claim) {
            support.verdict = judgement.verdict;
            support.score = verdict_score(judgement.verdict);
            if judgement.quote.is_some() {
                support.quote = judgement.quote;
            }
            support.reason = Some(judgement.reason).filter(|r| !r.is_empty());
            support.judge = SupportJudge::Llm;
        }
    }
    results
}

/// What a claim judged against part of an internal document says: the document was
/// read only in part (a paginated API's cap), so what the part does not say may be in
/// the rest.
pub const READ_IN_PART: &str =
    "only the first part of the document could be read, and that part does not say this";

/// Whether `page` is an internal document read only in part.
fn page_read_in_part(page: &PageRead) -> bool {
    page.page()
        .is_some_and(|read| read.truncated && read.read_via.is_internal())
}

/// Judgements against a document read in part: one that supports the claim stands;
/// any other cannot be told from the part (the rest may say it), so it is unjudged,
/// saying why, with nothing said missing or given differently.
fn only_what_the_part_says(results: &mut [(usize, ClaimSupport)]) {
    for (_, support) in results {
        if support.verdict != SupportVerdict::Supported {
            support.verdict = SupportVerdict::Unreadable;
            support.score = 0.0;
            support.quote = None;
            support.missing.clear();
            support.differs.clear();
            support.reason = Some(READ_IN_PART.to_string());
        }
    }
}

/// Every claim of `target` marked unreadable for `reason`.
fn unreadable(reason: &str, target: &Target) -> Vec<(usize, ClaimSupport)> {
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
                    missing: Vec::new(),
                    differs: Vec::new(),
                    reason: Some(reason.to_string()),
                    judge: SupportJudge::Builtin,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ReadVia;

    fn judged(verdict: SupportVerdict) -> (usize, ClaimSupport) {
        (
            0,
            ClaimSupport {
                source: 1,
                score: 0.2,
                verdict,
                quote: Some("The part read.".into()),
                missing: vec!["1909".into()],
                differs: vec![crate::model::Differ {
                    claim: "1909".into(),
                    page: "1910".into(),
                }],
                reason: None,
                judge: SupportJudge::Builtin,
            },
        )
    }

    #[test]
    fn a_document_read_in_part_supports_a_claim_or_leaves_it_unjudged() {
        let mut results = [
            judged(SupportVerdict::Supported),
            judged(SupportVerdict::PartlySupported),
            judged(SupportVerdict::NotSupported),
        ];
        only_what_the_part_says(&mut results);
        assert_eq!(results[0].1.verdict, SupportVerdict::Supported);
        assert_eq!(results[0].1.missing, ["1909"]);
        for (_, support) in &results[1..] {
            assert_eq!(support.verdict, SupportVerdict::Unreadable);
            assert_eq!(support.reason.as_deref(), Some(READ_IN_PART));
            assert!(support.missing.is_empty() && support.quote.is_none());
            assert!(support.differs.is_empty());
        }
        let page = |truncated: bool, read_via: ReadVia| {
            crate::page::document("Some text.".into(), None, truncated, read_via)
        };
        let confluence = ReadVia::Product {
            product: "Confluence".into(),
        };
        assert!(page_read_in_part(&page(true, confluence.clone())));
        assert!(!page_read_in_part(&page(false, confluence)));
        // A web page cut at the size cap is judged as it always was.
        let web = page(true, ReadVia::Web);
        assert!(!page_read_in_part(&web));
    }
}

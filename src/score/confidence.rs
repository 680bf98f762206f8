//! How far each source, and the whole answer, can be trusted — the formulas of the
//! product's specification, with their weights in [`ScoringWeights`]:
//!
//! - a source: no URL → 0.0; otherwise a base (the domain's tier for web links, the
//!   [`ReliabilityRegistry`] for internal kinds and for configured agents), moved by the
//!   verdict (verified +0.05, broken or server error −0.3, restricted and timed out
//!   unchanged, blocked or invalid → 0.0), blended with the agent's own confidence when
//!   it gave one (`0.6 × computed + 0.4 × agent`), clamped with
//!   `min(1.0, max(0.0, x))`;
//! - an answer: no citations → exactly 0.0; otherwise
//!   `0.6 × mean source credibility + 0.4 × diversity`, where diversity is the number of
//!   unique registrable domains over the number of cited sources (capped at 1.0), clamped;
//!   coverage (the share of claims that cite a source) is reported beside it.
//!
//! Domain lookups come in as functions, so the formulas are tested on their own.

pub use crate::model::{AnswerConfidence, SourceCredibility};
use crate::model::{Source, SourceKind, VerdictClass};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The weights of the formulas. Defaults are the specification's numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoringWeights {
    /// Weight of the mean source credibility in the answer's confidence (0.6).
    pub credibility: f64,
    /// Weight of domain diversity in the answer's confidence (0.4).
    pub diversity: f64,
    /// Weight of the agent's own confidence in a source's credibility (0.4; the
    /// computed score gets the rest).
    pub agent: f64,
    /// Added for a verified link (0.05).
    pub verified_bonus: f64,
    /// Taken for a broken link or a server error (0.3).
    pub failure_penalty: f64,
}

impl Default for ScoringWeights {
    fn default() -> Self {
        ScoringWeights {
            credibility: 0.6,
            diversity: 0.4,
            agent: 0.4,
            verified_bonus: 0.05,
            failure_penalty: 0.3,
        }
    }
}

impl ScoringWeights {
    /// Whether the answer's two weights sum to 1.0 (within 1e-9).
    pub fn is_normalised(&self) -> bool {
        (self.credibility + self.diversity - 1.0).abs() < 1e-9
    }
}

/// How reliable a source is by where it lives (internal kinds) or by which agent found
/// it (configured names), when its domain says nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReliabilityRegistry {
    /// Per source kind: Slack 0.7, Confluence 0.85, files 0.75, web 0.6 (web links use
    /// their domain's tier; this is for web sources without a usable host).
    pub kinds: HashMap<SourceKind, f64>,
    /// Per agent or source name (lower-case), e.g. `"confluence_search" = 0.85`; the
    /// highest configured name among a source's agents wins over its domain or kind.
    pub names: HashMap<String, f64>,
}

impl Default for ReliabilityRegistry {
    fn default() -> Self {
        ReliabilityRegistry {
            kinds: HashMap::from([
                (SourceKind::Slack, 0.7),
                (SourceKind::Confluence, 0.85),
                (SourceKind::File, 0.75),
                (SourceKind::Web, 0.6),
            ]),
            names: HashMap::new(),
        }
    }
}

impl ReliabilityRegistry {
    /// The registry's value for `kind`.
    pub fn kind(&self, kind: SourceKind) -> f64 {
        self.kinds.get(&kind).copied().unwrap_or(0.5)
    }

    /// The highest configured value among `agents`, if any is configured.
    pub fn agents(&self, agents: &[String]) -> Option<f64> {
        agents
            .iter()
            .filter_map(|a| self.names.get(&a.to_lowercase()).copied())
            .reduce(f64::max)
    }
}

/// `min(1.0, max(0.0, x))`.
pub fn clamp(x: f64) -> f64 {
    1.0_f64.min(0.0_f64.max(x))
}

/// The credibility of one source. `domain_score` gives a URL's domain score (0.9 high
/// tier, 0.5 unknown…).
pub fn source_credibility(
    source: &Source,
    domain_score: &dyn Fn(&str) -> f64,
    registry: &ReliabilityRegistry,
    weights: &ScoringWeights,
) -> SourceCredibility {
    let url = source.link();
    let agent_confidence = source.agent_confidence.map(clamp);
    let Some(url) = url else {
        return SourceCredibility {
            value: 0.0,
            base: 0.0,
            base_from: "no_url".into(),
            verification: 0.0,
            agent_confidence,
            search: None,
            ..SourceCredibility::default()
        };
    };
    let (base, base_from) = match registry.agents(&source.agents) {
        Some(value) => (value, "agent"),
        None if source.kind == SourceKind::Web => (domain_score(url), "domain"),
        None => (registry.kind(source.kind), "kind"),
    };
    let class = source.verdict.class;
    if matches!(class, VerdictClass::Blocked | VerdictClass::Invalid) {
        return SourceCredibility {
            value: 0.0,
            base,
            base_from: base_from.into(),
            verification: -base,
            agent_confidence,
            search: None,
            ..SourceCredibility::default()
        };
    }
    let verification = match class {
        VerdictClass::Verified => weights.verified_bonus,
        VerdictClass::Broken | VerdictClass::ServerError => -weights.failure_penalty,
        _ => 0.0,
    };
    let computed = base + verification;
    let blended = match agent_confidence {
        Some(agent) => (1.0 - weights.agent) * computed + weights.agent * agent,
        None => computed,
    };
    SourceCredibility {
        value: clamp(blended),
        base,
        base_from: base_from.into(),
        verification,
        agent_confidence,
        search: None,
        ..SourceCredibility::default()
    }
}

/// Takes the support check into account, claim by claim, from the evidence of its read
/// pages: a claim some page supports counts as supported; one a page partly supports
/// counts as supported when the page mentions all its numbers, dates and names (it has
/// no `missing` words, and the page gave a quote), and as half supported otherwise; a
/// claim its pages do not support counts as unsupported. An answer with any
/// unsupported weight cannot be `high` (capped just below 0.85), and one where half or
/// more of the judged claims' weight is unsupported is `low` (capped just below 0.6).
/// A claim is judged when at least one of its pages could be read.
pub fn apply_support(confidence: &mut AnswerConfidence, claims: &[crate::model::Claim]) {
    let mut judged = 0usize;
    let mut supported = 0.0f64;
    for claim in claims {
        if let Some(credit) = claim_support_credit(claim) {
            judged += 1;
            supported += credit;
        }
    }
    if judged == 0 {
        confidence.supported_share = None;
        return;
    }
    let unsupported = judged as f64 - supported;
    confidence.supported_share = Some(supported / judged as f64);
    let cap = if unsupported * 2.0 >= judged as f64 {
        SUPPORT_CAP_LOW
    } else if unsupported > 0.0 {
        SUPPORT_CAP_MEDIUM
    } else {
        return;
    };
    if confidence.value > cap {
        confidence.value = cap;
        confidence.label = label(cap).into();
    }
}

/// How far a claim's read pages support it, 0 to 1 (see [`apply_support`]); `None`
/// when no page of it could be read.
pub fn claim_support_credit(claim: &crate::model::Claim) -> Option<f64> {
    use crate::model::SupportVerdict;
    claim
        .support
        .iter()
        .filter_map(|s| match s.verdict {
            SupportVerdict::Supported => Some(1.0),
            SupportVerdict::PartlySupported if s.missing.is_empty() && s.quote.is_some() => {
                Some(1.0)
            }
            SupportVerdict::PartlySupported => Some(0.5),
            SupportVerdict::NotSupported => Some(0.0),
            SupportVerdict::Unreadable => None,
        })
        .reduce(f64::max)
}

/// The label of an answer none of whose sources could be checked or read.
pub const NOT_CHECKED_LABEL: &str = "not checked";

/// An answer none of whose sources could be checked (no link answered, none was
/// checked through its product, the network was down, or checking was off) and none of
/// whose pages was read cannot be `medium` or `high`: its confidence is capped at
/// [`SUPPORT_CAP_LOW`] and labelled [`NOT_CHECKED_LABEL`], so that people read that it
/// could not be checked, not that it was found wanting or trusted.
pub fn apply_unchecked(confidence: &mut AnswerConfidence, sources: &[&Source]) {
    if sources.is_empty() || confidence.supported_share.is_some() {
        return;
    }
    let answered = |class: VerdictClass| {
        matches!(
            class,
            VerdictClass::Verified
                | VerdictClass::Broken
                | VerdictClass::Restricted
                | VerdictClass::ServerError
        )
    };
    if sources.iter().any(|s| answered(s.verdict.class)) {
        return;
    }
    confidence.value = confidence.value.min(SUPPORT_CAP_LOW);
    confidence.label = NOT_CHECKED_LABEL.into();
}

/// The highest confidence of an answer with some unsupported claims: `medium`.
pub const SUPPORT_CAP_MEDIUM: f64 = 0.84;
/// The highest confidence of an answer with half or more claims unsupported: `low`.
pub const SUPPORT_CAP_LOW: f64 = 0.59;

/// The label for a confidence value.
pub fn label(value: f64) -> &'static str {
    if value >= 0.85 {
        "high"
    } else if value >= 0.6 {
        "medium"
    } else {
        "low"
    }
}

/// The answer's confidence from its sources' credibility. `registrable_domain` gives a
/// URL's registrable domain; `claims` and `cited_claims` give the coverage.
pub fn answer_confidence(
    sources: &[(&Source, f64)],
    registrable_domain: &dyn Fn(&str) -> Option<String>,
    claims: usize,
    cited_claims: usize,
    weights: &ScoringWeights,
) -> AnswerConfidence {
    let coverage = if claims == 0 {
        1.0
    } else {
        cited_claims.min(claims) as f64 / claims as f64
    };
    if sources.is_empty() {
        return AnswerConfidence {
            value: 0.0,
            label: label(0.0).into(),
            mean_credibility: 0.0,
            diversity: 0.0,
            sources: 0,
            domains: 0,
            coverage,
            supported_share: None,
        };
    }
    let mean = sources.iter().map(|(_, c)| c).sum::<f64>() / sources.len() as f64;
    let domains: HashSet<String> = sources
        .iter()
        .filter_map(|(s, _)| s.link())
        .filter_map(registrable_domain)
        .collect();
    let diversity = (domains.len() as f64 / sources.len() as f64).min(1.0);
    let value = clamp(weights.credibility * mean + weights.diversity * diversity);
    AnswerConfidence {
        value,
        label: label(value).into(),
        mean_credibility: mean,
        diversity,
        sources: sources.len(),
        domains: domains.len(),
        coverage,
        supported_share: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FoundBy, Verdict};

    fn source(url: Option<&str>, kind: SourceKind, class: VerdictClass) -> Source {
        Source {
            id: 1,
            canonical_url: url.map(str::to_string),
            url: url.map(str::to_string),
            title: "t".into(),
            kind,
            references: 1,
            found_by: vec![FoundBy::Inline],
            citation_numbers: Vec::new(),
            agents: Vec::new(),
            snippet: None,
            date: None,
            position: None,
            agent_confidence: None,
            verdict: Verdict {
                class,
                ..Verdict::not_checked("")
            },
            credibility: None,
            page: None,
            read_via: None,
        }
    }

    /// High tier for `*.gov` and `nature.com`, low for `reddit.com`, else unknown.
    fn domain_score(url: &str) -> f64 {
        if url.contains(".gov") || url.contains("nature.com") {
            0.9
        } else if url.contains("reddit.com") {
            0.3
        } else {
            0.5
        }
    }

    fn domain_of(url: &str) -> Option<String> {
        let host = url::Url::parse(url).ok()?.host_str()?.to_string();
        let parts: Vec<&str> = host.rsplitn(3, '.').collect();
        Some(format!("{}.{}", parts.get(1)?, parts.first()?))
    }

    fn credibility(source: &Source) -> f64 {
        source_credibility(
            source,
            &domain_score,
            &ReliabilityRegistry::default(),
            &ScoringWeights::default(),
        )
        .value
    }

    #[test]
    fn the_weights_sum_to_one() {
        assert!(ScoringWeights::default().is_normalised());
    }

    #[test]
    fn source_rules() {
        use VerdictClass::*;
        let web = |url, class| credibility(&source(Some(url), SourceKind::Web, class));
        assert_eq!(
            credibility(&source(None, SourceKind::Slack, NotChecked)),
            0.0
        );
        assert_eq!(web("https://nih.gov/a", NotChecked), 0.9);
        assert!((web("https://nih.gov/a", Verified) - 0.95).abs() < 1e-12);
        assert!((web("https://example.com/", Broken) - 0.2).abs() < 1e-12);
        assert!((web("https://example.com/", ServerError) - 0.2).abs() < 1e-12);
        assert_eq!(web("https://example.com/", Restricted), 0.5);
        assert_eq!(web("https://example.com/", TimedOut), 0.5);
        assert_eq!(web("https://nih.gov/", Blocked), 0.0);
        assert_eq!(web("https://nih.gov/", Invalid), 0.0);
        // Clamped: a low tier broken goes to 0.0, not below.
        assert_eq!(web("https://reddit.com/r/x", Broken), 0.0);
        let confluence = source(
            Some("https://acme.atlassian.net/wiki/x"),
            SourceKind::Confluence,
            NotChecked,
        );
        assert_eq!(credibility(&confluence), 0.85);
    }

    #[test]
    fn agent_confidence_is_blended() {
        let mut s = source(
            Some("https://example.com/"),
            SourceKind::Web,
            VerdictClass::NotChecked,
        );
        s.agent_confidence = Some(1.0);
        // 0.6 × 0.5 + 0.4 × 1.0 = 0.7
        assert!((credibility(&s) - 0.7).abs() < 1e-12);
        s.agent_confidence = Some(7.0); // out of range: clamped to 1.0 first
        assert!((credibility(&s) - 0.7).abs() < 1e-12);
    }

    #[test]
    fn configured_agents_set_the_base() {
        let mut s = source(
            Some("https://example.com/"),
            SourceKind::Web,
            VerdictClass::NotChecked,
        );
        s.agents = vec!["Confluence_Search".into()];
        let mut registry = ReliabilityRegistry::default();
        registry.names.insert("confluence_search".into(), 0.85);
        let scored = source_credibility(&s, &domain_score, &registry, &ScoringWeights::default());
        assert_eq!(scored.value, 0.85);
        assert_eq!(scored.base_from, "agent");
    }

    #[test]
    fn answer_rules() {
        let weights = ScoringWeights::default();
        let none = answer_confidence(&[], &domain_of, 4, 0, &weights);
        assert_eq!(none.value, 0.0);
        assert_eq!(none.coverage, 0.0);
        // Five distinct high-tier domains beat five pages of one domain.
        let distinct: Vec<Source> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|d| {
                source(
                    Some(&format!("https://{d}.gov/x")),
                    SourceKind::Web,
                    VerdictClass::Verified,
                )
            })
            .collect();
        let same: Vec<Source> = (0..5)
            .map(|i| {
                source(
                    Some(&format!("https://a.gov/{i}")),
                    SourceKind::Web,
                    VerdictClass::Verified,
                )
            })
            .collect();
        let score = |list: &[Source]| {
            let pairs: Vec<(&Source, f64)> = list.iter().map(|s| (s, credibility(s))).collect();
            answer_confidence(&pairs, &domain_of, 5, 5, &weights)
        };
        let (distinct, same) = (score(&distinct), score(&same));
        assert_eq!(distinct.domains, 5);
        assert_eq!(same.domains, 1);
        assert!(distinct.value > same.value);
        // 0.6 × 0.95 + 0.4 × 1.0 = 0.97; 0.6 × 0.95 + 0.4 × 0.2 = 0.65.
        assert!((distinct.value - 0.97).abs() < 1e-12);
        assert!((same.value - 0.65).abs() < 1e-12);
        assert_eq!(distinct.label, "high");
        assert_eq!(same.label, "medium");
        assert_eq!(distinct.coverage, 1.0);
    }

    /// A high confidence of two sources from two domains, every claim cited.
    fn high() -> AnswerConfidence {
        AnswerConfidence {
            value: 0.9,
            label: "high".into(),
            mean_credibility: 0.9,
            diversity: 1.0,
            sources: 2,
            domains: 2,
            coverage: 1.0,
            supported_share: None,
        }
    }

    #[test]
    fn unsupported_claims_cap_the_confidence() {
        use crate::model::{Claim, ClaimSupport, Span, SupportVerdict};
        let claim_with =
            |verdicts: &[SupportVerdict], quote: Option<&str>, missing: &[&str]| Claim {
                text: "c".into(),
                span: Span { start: 0, end: 1 },
                cites: vec![1],
                signals: Vec::new(),
                claim_type: None,
                relevance: None,
                classification: None,
                stale_sources: Vec::new(),
                support: verdicts
                    .iter()
                    .map(|v| ClaimSupport {
                        source: 1,
                        score: 0.5,
                        verdict: *v,
                        quote: quote.map(str::to_string),
                        missing: missing.iter().map(|m| m.to_string()).collect(),
                        differs: Vec::new(),
                        reason: None,
                        judge: Default::default(),
                    })
                    .collect(),
            };
        let claim = |verdicts: &[SupportVerdict]| claim_with(verdicts, Some("q"), &[]);
        use SupportVerdict::*;
        let mut all_good = high();
        apply_support(
            &mut all_good,
            &[claim(&[Supported]), claim(&[PartlySupported, NotSupported])],
        );
        assert_eq!((all_good.value, all_good.supported_share), (0.9, Some(1.0)));
        let mut one_bad = high();
        apply_support(
            &mut one_bad,
            &[
                claim(&[Supported]),
                claim(&[Supported]),
                claim(&[NotSupported]),
            ],
        );
        assert_eq!(one_bad.label, "medium");
        let mut half_bad = high();
        apply_support(
            &mut half_bad,
            &[claim(&[Supported]), claim(&[NotSupported, Unreadable])],
        );
        assert_eq!(half_bad.label, "low");
        let mut unread = high();
        apply_support(&mut unread, &[claim(&[Unreadable]), claim(&[])]);
        assert_eq!(
            (unread.label.as_str(), unread.supported_share),
            ("high", None)
        );
        // Partly supported with the page's numbers, dates and names all there and a
        // quote counts as supported; with missing words, as half supported.
        let mut partly = high();
        apply_support(
            &mut partly,
            &[claim(&[Supported]), claim(&[PartlySupported])],
        );
        assert_eq!(
            (partly.label.as_str(), partly.supported_share),
            ("high", Some(1.0))
        );
        let mut missing = high();
        apply_support(
            &mut missing,
            &[
                claim(&[Supported]),
                claim_with(&[PartlySupported], Some("q"), &["1909"]),
            ],
        );
        assert_eq!(
            (missing.label.as_str(), missing.supported_share),
            ("medium", Some(0.75))
        );
        let mut no_quote = high();
        apply_support(&mut no_quote, &[claim_with(&[PartlySupported], None, &[])]);
        assert_eq!(
            (no_quote.label.as_str(), no_quote.supported_share),
            ("low", Some(0.5))
        );
    }

    #[test]
    fn an_answer_nothing_of_which_could_be_checked_says_so() {
        use VerdictClass::*;
        let down = source(Some("https://nih.gov/a"), SourceKind::Web, TimedOut);
        let internal = source(None, SourceKind::Slack, NotChecked);
        let mut unchecked = high();
        apply_unchecked(&mut unchecked, &[&down, &internal]);
        assert_eq!(
            (unchecked.label.as_str(), unchecked.value),
            (NOT_CHECKED_LABEL, SUPPORT_CAP_LOW)
        );
        // One source that answered (even with a 404) means the answer was checked.
        let broken = source(Some("https://a.example/x"), SourceKind::Web, Broken);
        let mut checked = high();
        apply_unchecked(&mut checked, &[&down, &broken]);
        assert_eq!(checked.label, "high");
        // A page that was read is a check too.
        let mut read = high();
        read.supported_share = Some(1.0);
        apply_unchecked(&mut read, &[&down]);
        assert_eq!(read.label, "high");
        // No sources: nothing to check, the confidence stands.
        let mut none = high();
        apply_unchecked(&mut none, &[]);
        assert_eq!(none.label, "high");
    }

    #[test]
    fn labels_have_their_bounds() {
        assert_eq!(label(0.85), "high");
        assert_eq!(label(0.8499), "medium");
        assert_eq!(label(0.6), "medium");
        assert_eq!(label(0.5999), "low");
    }
}

//! Credibility and confidence: how far each source, and the whole answer, can be
//! trusted. [`domain`] rates a link's domain from the curated tier list,
//! [`confidence`] holds the formulas and their weights, [`classify`] the claim types
//! and which sources suit them, [`search`] the score of search results.
//! [`Scorer::score_report`] puts them together on a report: every source gets its
//! credibility, every claim its type, the answer its confidence.

pub mod classify;
pub mod confidence;
pub mod domain;
pub mod search;

use crate::model::Report;
use classify::{ClaimClassifier, RuleClassifier};
use confidence::{answer_confidence, source_credibility, ReliabilityRegistry, ScoringWeights};
use domain::{registrable_domain, DomainTiers};

/// Sources below this credibility are marked "low credibility" where they are shown.
pub const LOW_CREDIBILITY: f64 = 0.4;

/// Everything scoring needs: the domain tiers, the reliability registry, the weights and
/// the claim classifier.
pub struct Scorer {
    /// The domain tier list.
    pub tiers: &'static DomainTiers,
    /// Reliability per kind and per agent name.
    pub registry: ReliabilityRegistry,
    /// The formulas' weights.
    pub weights: ScoringWeights,
    /// Claim types.
    pub classifier: Box<dyn ClaimClassifier>,
}

impl Default for Scorer {
    fn default() -> Self {
        Scorer {
            tiers: DomainTiers::builtin(),
            registry: ReliabilityRegistry::default(),
            weights: ScoringWeights::default(),
            classifier: Box::new(RuleClassifier),
        }
    }
}

impl Scorer {
    /// Scores `report` in place: each source's credibility (after verification, when it
    /// ran), each claim's type, and the answer's confidence.
    pub fn score_report(&self, report: &mut Report) {
        let domain_score = |url: &str| self.tiers.domain_score(url);
        for group in &mut report.groups {
            for source in &mut group.sources {
                source.credibility = Some(source_credibility(
                    source,
                    &domain_score,
                    &self.registry,
                    &self.weights,
                ));
            }
        }
        for claim in &mut report.claims {
            claim.claim_type = Some(self.classifier.classify(&claim.text));
        }
        let scored: Vec<(&crate::model::Source, f64)> = report
            .sources()
            .map(|s| (s, s.credibility.as_ref().map_or(0.0, |c| c.value)))
            .collect();
        let host_domain = |url: &str| {
            url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().and_then(registrable_domain))
        };
        let confidence = answer_confidence(
            &scored,
            &host_domain,
            report.metrics.claims,
            report.metrics.cited_claims,
            &self.weights,
        );
        report.confidence = Some(confidence);
    }
}

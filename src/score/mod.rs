//! Credibility and confidence: how far each source, and the whole answer, can be
//! trusted. [`domain`] rates a link's domain from the curated tier list,
//! [`confidence`] holds the formulas and their weights, [`classify`] the claim types
//! and which sources suit them, [`search`] the score of search results.
//! [`Scorer::score_report`] puts them together on a report: every source gets its
//! credibility, every claim its type, the answer its confidence.

pub mod classify;
pub mod confidence;
pub mod credibility;
pub mod domain;
pub mod ratings;
pub mod recency;
pub mod search;
pub mod source_type;

use crate::model::{
    Claim, ClaimClassification, ClassificationMethod, InputShape, Report, SourceKind,
};
use classify::{ClaimClassifier, RuleClassifier};
use confidence::{answer_confidence, source_credibility, ReliabilityRegistry, ScoringWeights};
use credibility::{CredibilityWeights, SourceFeatures};
use domain::{registrable_domain, DomainTiers};
use ratings::DomainRatings;
use search::{SearchResult, SearchWeights};
use std::sync::Arc;
use std::time::SystemTime;

/// Sources below this credibility are marked "low credibility" where they are shown.
pub const LOW_CREDIBILITY: f64 = 0.4;

/// What a deployment can configure about scoring (see `crate::config`): the weights,
/// the reliability registry and the domain tier list (the shipped one, possibly
/// extended with the deployment's own).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreSettings {
    /// The formulas' weights.
    pub weights: ScoringWeights,
    /// Reliability per source kind and per agent name.
    pub registry: ReliabilityRegistry,
    /// The domain tier list.
    pub tiers: Arc<DomainTiers>,
    /// Published domain-quality ratings, when a file of them is loaded.
    pub ratings: Option<Arc<DomainRatings>>,
    /// How a web source's base score is made.
    pub credibility: CredibilityMethod,
}

impl Default for ScoreSettings {
    fn default() -> Self {
        ScoreSettings {
            weights: ScoringWeights::default(),
            registry: ReliabilityRegistry::default(),
            tiers: DomainTiers::builtin_shared(),
            ratings: None,
            credibility: CredibilityMethod::default(),
        }
    }
}

/// How a web source's base score is made (`SOURCEBOT_CREDIBILITY`).
///
/// The tiers stay the default: on questions it was not fitted on, the model separated
/// reliable from unreliable sources no better than the tiers beyond the noise of the
/// data (see docs/credibility.md), and it moves scores by under 0.01 — not enough to earn a
/// change that would move audit thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CredibilityMethod {
    /// The domain tier moved by the fitted model's other signals (published rating,
    /// source type, path depth): [`credibility::CredibilityWeights`].
    Model,
    /// The domain tier alone, as the seed rules had it.
    #[default]
    Tiers,
}

/// Everything scoring needs: the domain tiers, the reliability registry, the weights and
/// the claim classifier.
pub struct Scorer {
    /// The domain tier list.
    pub tiers: Arc<DomainTiers>,
    /// Reliability per kind and per agent name.
    pub registry: ReliabilityRegistry,
    /// The formulas' weights.
    pub weights: ScoringWeights,
    /// The weights of search results' scores (search-results input only).
    pub search_weights: SearchWeights,
    /// Claim types.
    pub classifier: Box<dyn ClaimClassifier>,
    /// Published domain-quality ratings, when loaded.
    pub ratings: Option<Arc<DomainRatings>>,
    /// The credibility model's weights; `None` scores by the tiers alone.
    pub model: Option<&'static CredibilityWeights>,
}

impl Default for Scorer {
    fn default() -> Self {
        Scorer::from_settings(&ScoreSettings::default())
    }
}

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scorer")
            .field("tiers", &self.tiers.len())
            .field("registry", &self.registry)
            .field("weights", &self.weights)
            .field("search_weights", &self.search_weights)
            .finish_non_exhaustive()
    }
}

impl Scorer {
    /// A scorer with `settings` and the rule-based claim classifier.
    pub fn from_settings(settings: &ScoreSettings) -> Scorer {
        Scorer {
            tiers: Arc::clone(&settings.tiers),
            registry: settings.registry.clone(),
            weights: settings.weights.clone(),
            search_weights: SearchWeights::default(),
            classifier: Box::new(RuleClassifier),
            ratings: settings.ratings.clone(),
            model: match settings.credibility {
                CredibilityMethod::Model => Some(CredibilityWeights::builtin()),
                CredibilityMethod::Tiers => None,
            },
        }
    }

    /// Classifies every claim the model has not (the rules), and sets how well the
    /// sources each cites suit it: the model's relevance for the kind of source when
    /// it gave one, else the rules' [`classify::relevance`]. Recommendations are kept
    /// for the claims that cite a source or want one; the rest only count.
    /// `fits` are the report's sources as the scorer read them.
    fn classify_claims(
        &self,
        report: &mut Report,
        available: &[classify::AvailableSource],
        fits: &[classify::SourceFit],
    ) {
        let fit: std::collections::HashMap<usize, &classify::SourceFit> =
            fits.iter().map(|f| (f.id, f)).collect();
        let by_model = |claim: &Claim| {
            claim
                .classification
                .as_ref()
                .is_some_and(|c| c.method != ClassificationMethod::Rules)
        };
        let wants_source = |claim: &Claim| !claim.cites.is_empty() || !claim.signals.is_empty();
        // A model's type stands; every other claim is read by the rules below.
        let typed_by_rules = |claim: &Claim| !by_model(claim) || claim.claim_type.is_none();
        // Most claims want only their type: those are typed together, on two threads
        // when there are many.
        let mut types_alone = {
            let typed_alone: Vec<&str> = report
                .claims
                .iter()
                .filter(|claim| typed_by_rules(claim) && !wants_source(claim))
                .map(|claim| claim.text.as_str())
                .collect();
            self.classifier.claim_types(&typed_alone).into_iter()
        };
        for claim in &mut report.claims {
            let by_model = by_model(claim);
            let claim_type = match claim.claim_type.filter(|_| !typed_by_rules(claim)) {
                Some(claim_type) => claim_type,
                None => {
                    let classification = if wants_source(claim) {
                        self.classifier.classify(&claim.text, available)
                    } else {
                        classify::Classification {
                            claim_type: types_alone
                                .next()
                                .unwrap_or_else(|| self.classifier.claim_type(&claim.text)),
                            recommendations: Vec::new(),
                            method: ClassificationMethod::Rules,
                        }
                    };
                    claim.classification = Some(ClaimClassification {
                        method: classification.method,
                        recommendations: classification.recommendations,
                    });
                    classification.claim_type
                }
            };
            claim.claim_type = Some(claim_type);
            let recommended = |name: &str| {
                claim
                    .classification
                    .as_ref()
                    .filter(|_| by_model)
                    .and_then(|c| c.recommendations.iter().find(|r| r.source == name))
                    .map(|r| r.relevance)
            };
            let fits: Vec<f64> = claim
                .cites
                .iter()
                .filter_map(|id| fit.get(id))
                .map(|f| {
                    recommended(&f.name)
                        .unwrap_or_else(|| classify::relevance(claim_type, f.kind, f.tier))
                })
                .collect();
            claim.relevance =
                (!fits.is_empty()).then(|| fits.iter().sum::<f64>() / fits.len() as f64);
        }
    }

    /// Scores `report` in place: each source's credibility (after verification, when it
    /// ran), each claim's type, and the answer's confidence.
    pub fn score_report(&self, report: &mut Report) {
        let domain_score = |url: &str| self.tiers.domain_score(url);
        let now = SystemTime::now();
        // Each link is parsed once, here: its tier, features and kind of source.
        let mut fits: Vec<classify::SourceFit> = Vec::new();
        for group in &mut report.groups {
            for source in &mut group.sources {
                let parsed = source.link().and_then(|u| url::Url::parse(u).ok());
                let tier = parsed
                    .as_ref()
                    .map_or(domain::Tier::Unknown, |u| self.tiers.tier_of(u));
                fits.push(classify::SourceFit::new(source, tier));
                let ratings = self.ratings.as_deref();
                let page = source.page.as_ref();
                let features =
                    match (source.kind, source.link(), &parsed) {
                        (SourceKind::Web, Some(_), Some(parsed)) => Some(
                            SourceFeatures::of_parsed(parsed, &self.tiers, ratings, page),
                        ),
                        (SourceKind::Web, Some(url), None) => {
                            Some(SourceFeatures::of(url, &self.tiers, ratings, page))
                        }
                        _ => None,
                    };
                let adjustment = match (self.model, &features) {
                    (Some(model), Some(features)) => model.adjustments(features).total(),
                    _ => 0.0,
                };
                // The tier score as the features read it (the same link), else as the
                // link says it.
                let tier_score = features.as_ref().map(|f| f.tier);
                let model_score = |url: &str| {
                    (tier_score.unwrap_or_else(|| domain_score(url)) + adjustment).clamp(0.0, 1.0)
                };
                let mut credibility =
                    source_credibility(source, &model_score, &self.registry, &self.weights);
                if let Some(features) = features {
                    if credibility.base_from == "domain" {
                        // What the model moved the tier score by, after clamping.
                        credibility.adjustment = credibility.base - features.tier;
                    }
                    credibility.source_type = features.source_type;
                    credibility.rating = features.rating;
                }
                if report.shape == InputShape::SearchResults {
                    let scored = search::score(
                        &SearchResult::from(&*source),
                        &domain_score,
                        &self.search_weights,
                        now,
                    );
                    credibility.search = Some(scored.into());
                }
                source.credibility = Some(credibility);
            }
        }
        let available = classify::available_sources_of(&fits, &self.registry);
        self.classify_claims(report, &available, &fits);
        recency::mark_stale_sources(report, now);
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
        let mut confidence = confidence;
        confidence::apply_support(&mut confidence, &report.claims);
        let sources: Vec<&crate::model::Source> = report.sources().collect();
        confidence::apply_unchecked(&mut confidence, &sources);
        report.confidence = Some(confidence);
    }
}

#[cfg(test)]
mod tests {
    use crate::collect::CollectOptions;
    use crate::model::Answer;
    use crate::score::classify::ClaimType;

    #[test]
    fn a_checked_report_is_scored_throughout() {
        let answer = Answer::from_text(
            "The recommended dose is 500 mg [1]. Our revenue grew by 45% last year [2]. Paris is in France.\n\n\
             [1] https://www.nih.gov/dose - NIH\n\
             [2] https://www.reddit.com/r/x - A thread",
        );
        // The seed rules: the domain tier alone.
        let tiers_only = super::Scorer::from_settings(&super::ScoreSettings {
            credibility: super::CredibilityMethod::Tiers,
            ..super::ScoreSettings::default()
        });
        let report = crate::check_with(&answer, &CollectOptions::default(), &tiers_only);
        let health = report
            .claims
            .iter()
            .find(|c| c.text.contains("dose"))
            .expect("dose claim");
        assert_eq!(health.claim_type, Some(ClaimType::Health));
        assert_eq!(
            health.relevance,
            Some(1.0),
            "a .gov source suits a health claim"
        );
        let money = report
            .claims
            .iter()
            .find(|c| c.text.contains("revenue"))
            .expect("revenue claim");
        assert_eq!(money.claim_type, Some(ClaimType::Money));
        assert_eq!(money.relevance, Some(0.3), "a forum thread suits it poorly");
        let uncited = report
            .claims
            .iter()
            .find(|c| c.text.contains("Paris"))
            .expect("paris claim");
        assert_eq!(uncited.relevance, None);
        for source in report.sources() {
            assert!(
                source.credibility.is_some(),
                "{} was not scored",
                source.title
            );
        }
        let confidence = report.confidence.clone().expect("confidence");
        assert_eq!((confidence.sources, confidence.domains), (2, 2));
        // 0.6 × mean(0.9, 0.35) + 0.4 × 1.0 = 0.775, but no link was checked: the answer
        // could not be checked, and says so rather than "medium".
        assert_eq!(confidence.label, super::confidence::NOT_CHECKED_LABEL);
        assert_eq!(confidence.value, super::confidence::SUPPORT_CAP_LOW);
        let mut checked = report.clone();
        for group in &mut checked.groups {
            for source in &mut group.sources {
                source.verdict.class = crate::model::VerdictClass::Verified;
            }
        }
        tiers_only.score_report(&mut checked);
        let credibility: Vec<f64> = checked
            .sources()
            .filter_map(|s| s.credibility.as_ref().map(|c| c.value))
            .collect();
        let confidence = checked.confidence.expect("confidence");
        let mean = credibility.iter().sum::<f64>() / credibility.len() as f64;
        assert!((confidence.value - (0.6 * mean + 0.4)).abs() < 1e-9);
        assert_ne!(confidence.label, super::confidence::NOT_CHECKED_LABEL);
    }

    /// A model's type stands; a model's classification without a type, a claim that
    /// wants a source and a plain sentence are each typed by the rules, in their places
    /// (the plain ones are typed together, apart from the others).
    #[test]
    fn model_types_stand_and_the_rest_are_typed_in_place() {
        use crate::model::{ClaimClassification, ClassificationMethod};
        let answer = Answer::from_text(
            "Paris is the capital of France. The court ruled against them. \
             The dose is 500 mg [1]. Revenue grew to $4 million. Kubernetes rolls out pods.\n\n\
             [1] https://www.nih.gov/dose - NIH",
        );
        let scorer = super::Scorer::default();
        let mut report = crate::build_report(
            &answer,
            crate::collect::collect(&answer, &CollectOptions::default()),
        );
        assert_eq!(report.claims.len(), 5, "{:#?}", report.claims);
        let by_model = || {
            Some(ClaimClassification {
                method: ClassificationMethod::Llm,
                recommendations: Vec::new(),
            })
        };
        // The model calls the first (a plain sentence) a law claim; it classified the
        // second (plain too) but gave no type. The third cites, the fourth has a figure.
        report.claims[0].classification = by_model();
        report.claims[0].claim_type = Some(ClaimType::Law);
        report.claims[1].classification = by_model();
        let plain = |c: &crate::model::Claim| c.signals.is_empty() && c.cites.is_empty();
        let plain: Vec<bool> = report.claims.iter().map(plain).collect();
        assert_eq!(plain, [true, true, false, false, true]);
        scorer.score_report(&mut report);
        let types: Vec<_> = report.claims.iter().map(|c| c.claim_type).collect();
        assert_eq!(
            types,
            [
                Some(ClaimType::Law),
                Some(ClaimType::Law),
                Some(ClaimType::Health),
                Some(ClaimType::Money),
                Some(ClaimType::Code),
            ]
        );
        let methods: Vec<_> = report
            .claims
            .iter()
            .map(|c| c.classification.as_ref().map(|c| c.method))
            .collect();
        assert_eq!(methods[0], Some(ClassificationMethod::Llm));
        assert_eq!(methods[1], Some(ClassificationMethod::Rules));
        assert_eq!(methods[4], Some(ClassificationMethod::Rules));
    }

    /// A page read with scholarly metadata makes its source a journal article, and the
    /// model's adjustment for that type is what moved its score.
    #[test]
    fn a_read_page_refines_the_source_type() {
        let answer = Answer::from_text(
            "A finding [1].\n\n[1] https://journal.example.org/article/7 - Paper",
        );
        let scorer = super::Scorer::from_settings(&super::ScoreSettings {
            credibility: super::CredibilityMethod::Model,
            ..super::ScoreSettings::default()
        });
        let mut report = crate::check_with(&answer, &CollectOptions::default(), &scorer);
        let before = report
            .sources()
            .next()
            .and_then(|s| s.credibility.clone())
            .expect("scored");
        assert_eq!(before.source_type, crate::model::SourceType::Unknown);
        for group in &mut report.groups {
            for source in &mut group.sources {
                source.page = Some(crate::model::PageSignals {
                    scholarly: true,
                    ..Default::default()
                });
            }
        }
        scorer.score_report(&mut report);
        let after = report
            .sources()
            .next()
            .and_then(|s| s.credibility.clone())
            .expect("scored");
        assert_eq!(after.source_type, crate::model::SourceType::Journal);
        let page = crate::model::PageSignals {
            scholarly: true,
            ..Default::default()
        };
        let features = super::SourceFeatures::of(
            "https://journal.example.org/article/7",
            super::DomainTiers::builtin(),
            None,
            Some(&page),
        );
        let expected = super::CredibilityWeights::builtin()
            .adjustments(&features)
            .total();
        assert!((after.adjustment - expected).abs() < 1e-12, "{after:?}");
        assert_ne!(after.adjustment, before.adjustment);
        assert!((after.base - (0.5 + after.adjustment)).abs() < 1e-9);
    }

    #[test]
    fn search_results_carry_their_search_score() {
        use crate::collect::input::{parse_answer, FormatHint};
        let input = r#"{"organic":[
            {"title":"Rust","link":"https://www.rust-lang.org/","position":1,
             "snippet":"Rust is a language empowering everyone to build reliable and efficient software. It is fast and memory safe.",
             "date":"3 days ago"},
            {"title":"Forum","link":"https://www.reddit.com/r/rust/","position":9,"snippet":"meh"}]}"#;
        let answer = parse_answer(input.as_bytes(), FormatHint::Json, 1 << 20).expect("parse");
        let report = crate::check(&answer, &CollectOptions::default());
        let scores: Vec<(String, super::search::SearchComponents)> = report
            .sources()
            .map(|s| {
                let credibility = s.credibility.clone().expect("scored");
                (s.title.clone(), credibility.search.expect("search score"))
            })
            .collect();
        let (_, rust) = scores.iter().find(|(t, _)| t == "Rust").expect("rust");
        assert_eq!(rust.domain, 0.9);
        assert!(rust.recency >= 0.9, "3 days ago is recent: {rust:?}");
        assert!(rust.snippet >= 0.7);
        assert_eq!(rust.position, 1.0);
        assert!(rust.above_threshold, "{rust:?}");
        let (_, forum) = scores.iter().find(|(t, _)| t == "Forum").expect("forum");
        assert_eq!(forum.recency, 0.5, "no date");
        assert!(forum.snippet <= 0.3);
        assert!(!forum.above_threshold);
        // 0.4 × 0.35 + 0.3 × 0.5 + 0.2 × snippet + 0.1 × (1 − 8/9), rounded.
        let expected = 0.4 * 0.35 + 0.3 * 0.5 + 0.2 * forum.snippet + 0.1 * (1.0 - 8.0 / 9.0);
        assert!((forum.value - expected).abs() < 1e-4);
        // Other shapes carry none.
        let text = crate::check(
            &Answer::from_text("See https://www.rust-lang.org/ for more."),
            &CollectOptions::default(),
        );
        assert!(text
            .sources()
            .all(|s| s.credibility.as_ref().is_some_and(|c| c.search.is_none())));
    }
}

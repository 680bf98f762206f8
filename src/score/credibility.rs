//! The credibility model: how far a web source can be trusted, from more than its
//! domain's tier. A source's signals — its domain tier, a published rating of its
//! domain when one is loaded ([`super::ratings`]), what kind of publication it is
//! ([`super::source_type`]) and how deep in its site the page sits — are combined by a
//! small logistic model whose weights live in `credibility_weights.json`, fitted by
//! `examples/credibility_fit.rs` on expert ratings (ExpertQA) and reported on questions
//! it was not fitted on.
//!
//! The tier stays the anchor: the model says what each other signal is worth in tier
//! points (its weight over the tier's weight), and the source's base score is its tier
//! score moved by those amounts, clamped to 0–1. With every other weight at zero the
//! score is the tier score, so the seed rules are what the model falls back to.

use crate::model::{PageSignals, SourceType};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::domain::DomainTiers;
use super::ratings::DomainRatings;
use super::source_type::source_type_of;

/// The shipped weights.
const BUILTIN_WEIGHTS: &str = include_str!("credibility_weights.json");

/// Path depth counted at most this deep (`/a/b/c/d/e/f` and deeper count alike).
pub const MAX_PATH_DEPTH: usize = 6;

/// What the model reads of one source.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceFeatures {
    /// The domain tier's score (0.2 low … 0.9 high, 0.5 unknown).
    pub tier: f64,
    /// The published rating of the domain (0–1), when ratings are loaded and name it.
    pub rating: Option<f64>,
    /// What kind of publication it is.
    pub source_type: SourceType,
    /// Path segments, at most [`MAX_PATH_DEPTH`].
    pub path_depth: usize,
}

impl SourceFeatures {
    /// The features of the source at `url`, its page's signals when it was read.
    pub fn of(
        url: &str,
        tiers: &DomainTiers,
        ratings: Option<&DomainRatings>,
        page: Option<&PageSignals>,
    ) -> SourceFeatures {
        match url::Url::parse(url) {
            Ok(parsed) => SourceFeatures::of_parsed(&parsed, tiers, ratings, page),
            Err(_) => SourceFeatures {
                tier: tiers.domain_score(url),
                rating: None,
                source_type: SourceType::Unknown,
                path_depth: 0,
            },
        }
    }

    /// [`SourceFeatures::of`] a link already parsed.
    pub fn of_parsed(
        parsed: &url::Url,
        tiers: &DomainTiers,
        ratings: Option<&DomainRatings>,
        page: Option<&PageSignals>,
    ) -> SourceFeatures {
        let path_depth = parsed
            .path_segments()
            .map_or(0, |segments| segments.filter(|s| !s.is_empty()).count())
            .min(MAX_PATH_DEPTH);
        SourceFeatures {
            tier: tiers.domain_score_of(parsed),
            rating: ratings.and_then(|r| r.rating_of(parsed)),
            source_type: source_type_of(parsed, page),
            path_depth,
        }
    }
}

/// The model's weights, as `credibility_weights.json` holds them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CredibilityWeights {
    /// The weight of the tier score (log-odds per point; must be positive).
    pub tier: f64,
    /// The weight of `rating − 0.5` where a rating applies.
    pub rating: f64,
    /// The weight of having a rating at all (the rated set is news and information
    /// sites).
    pub rated: f64,
    /// The weight of the path depth, per segment over [`MAX_PATH_DEPTH`].
    pub path_depth: f64,
    /// The weight of each source type (types not named weigh 0).
    pub types: BTreeMap<SourceType, f64>,
    /// How the weights were fitted and what they scored where they were not fitted.
    pub fitted: String,
}

/// Weights that cannot be used: the file and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("credibility weights: {0}")]
pub struct WeightsError(pub String);

/// One signal's part in a source's score, in tier points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adjustments {
    /// From the published rating (and being rated at all).
    pub rating: f64,
    /// From the source type.
    pub source_type: f64,
    /// From the path depth.
    pub path_depth: f64,
}

impl Adjustments {
    /// All of them.
    pub fn total(&self) -> f64 {
        self.rating + self.source_type + self.path_depth
    }
}

impl CredibilityWeights {
    /// The shipped weights, parsed once. The tests check they parse; should they ever
    /// not, every adjustment is 0 and the score is the tier score.
    pub fn builtin() -> &'static CredibilityWeights {
        static WEIGHTS: std::sync::OnceLock<CredibilityWeights> = std::sync::OnceLock::new();
        WEIGHTS.get_or_init(|| {
            CredibilityWeights::parse(BUILTIN_WEIGHTS).unwrap_or_else(|_| CredibilityWeights {
                tier: 1.0,
                rating: 0.0,
                rated: 0.0,
                path_depth: 0.0,
                types: BTreeMap::new(),
                fitted: "the shipped weights did not parse: tiers only".into(),
            })
        })
    }

    /// Parses and checks weights: every number finite, the tier's weight positive.
    pub fn parse(text: &str) -> Result<CredibilityWeights, WeightsError> {
        let weights: CredibilityWeights =
            serde_json::from_str(text).map_err(|e| WeightsError(e.to_string()))?;
        let numbers = [
            weights.tier,
            weights.rating,
            weights.rated,
            weights.path_depth,
        ];
        if numbers
            .iter()
            .chain(weights.types.values())
            .any(|w| !w.is_finite())
        {
            return Err(WeightsError("every weight must be a finite number".into()));
        }
        if weights.tier <= 0.0 {
            return Err(WeightsError(format!(
                "the tier's weight must be positive, found {}",
                weights.tier
            )));
        }
        Ok(weights)
    }

    /// What each signal adds to the tier score, in tier points.
    pub fn adjustments(&self, features: &SourceFeatures) -> Adjustments {
        let per_tier_point = |weight: f64| weight / self.tier;
        let rating = features
            .rating
            .map_or(0.0, |r| self.rating * (r - 0.5) + self.rated);
        let depth = features.path_depth as f64 / MAX_PATH_DEPTH as f64;
        Adjustments {
            rating: per_tier_point(rating),
            source_type: per_tier_point(
                self.types
                    .get(&features.source_type)
                    .copied()
                    .unwrap_or(0.0),
            ),
            path_depth: per_tier_point(self.path_depth * depth),
        }
    }

    /// The source's base score: its tier score moved by the other signals, 0–1.
    pub fn score(&self, features: &SourceFeatures) -> f64 {
        (features.tier + self.adjustments(features).total()).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(tier: f64, rating: Option<f64>, kind: SourceType, depth: usize) -> SourceFeatures {
        SourceFeatures {
            tier,
            rating,
            source_type: kind,
            path_depth: depth,
        }
    }

    #[test]
    fn the_shipped_weights_parse_and_point_the_expected_way() {
        let weights = CredibilityWeights::parse(BUILTIN_WEIGHTS).expect("shipped weights parse");
        assert!(weights.tier > 0.0);
        assert!(
            weights.rating >= 0.0,
            "a better-rated domain never scores lower"
        );
        for bad in [
            SourceType::Forum,
            SourceType::Blog,
            SourceType::Social,
            SourceType::ContentFarm,
            SourceType::Landing,
        ] {
            let w = weights.types.get(&bad).copied().unwrap_or(0.0);
            assert!(w <= 0.0, "{bad:?} weighs {w}");
        }
        assert!(!weights.fitted.is_empty());
    }

    #[test]
    fn adjustments_are_in_tier_points_and_the_score_is_clamped() {
        let weights = CredibilityWeights {
            tier: 2.0,
            rating: 1.0,
            rated: 0.2,
            path_depth: 0.6,
            types: [(SourceType::Forum, -0.4), (SourceType::Journal, 0.5)]
                .into_iter()
                .collect(),
            fitted: "test".into(),
        };
        let plain = features(0.5, None, SourceType::Unknown, 0);
        assert_eq!(weights.score(&plain), 0.5, "no signal: the tier score");
        let forum = features(0.5, None, SourceType::Forum, 0);
        assert!((weights.score(&forum) - 0.3).abs() < 1e-12);
        let rated = features(0.5, Some(1.0), SourceType::Unknown, 0);
        // (1.0 × (1.0 − 0.5) + 0.2) / 2.0 = 0.35
        assert!((weights.adjustments(&rated).rating - 0.35).abs() < 1e-12);
        let deep = features(0.5, None, SourceType::Unknown, MAX_PATH_DEPTH);
        assert!((weights.adjustments(&deep).path_depth - 0.3).abs() < 1e-12);
        let top = features(0.9, Some(1.0), SourceType::Journal, MAX_PATH_DEPTH);
        assert_eq!(weights.score(&top), 1.0);
        let bottom = features(0.2, Some(0.0), SourceType::Forum, 0);
        let w = CredibilityWeights {
            rated: -1.0,
            ..weights.clone()
        };
        assert_eq!(w.score(&bottom), 0.0);
    }

    #[test]
    fn bad_weights_are_refused_with_the_reason() {
        let fault = |text: &str| CredibilityWeights::parse(text).expect_err("refused").0;
        let ok = r#"{"tier":1.0,"rating":0.5,"rated":0.0,"path_depth":0.1,"types":{"forum":-0.2},"fitted":"x"}"#;
        assert!(CredibilityWeights::parse(ok).is_ok());
        assert!(fault(&ok.replace("\"tier\":1.0", "\"tier\":0.0")).contains("positive"));
        assert!(fault(&ok.replace("forum", "chatroom")).contains("unknown variant"));
        assert!(
            fault(&ok.replace("\"fitted\":\"x\"", "\"fitted\":\"x\",\"extra\":1"))
                .contains("unknown field")
        );
        assert!(fault("not json").contains("expected"));
    }

    #[test]
    fn features_are_read_from_the_link() {
        let ratings = DomainRatings::parse("domain,pc1\nreuters.com,0.95\n").expect("parses");
        let tiers = DomainTiers::builtin();
        let f = SourceFeatures::of(
            "https://www.reuters.com/world/europe/some-story-2024/",
            tiers,
            Some(&ratings),
            None,
        );
        assert_eq!(f.rating, Some(0.95));
        assert_eq!(f.source_type, SourceType::News);
        assert_eq!(f.path_depth, 3);
        assert_eq!(f.tier, tiers.domain_score("https://www.reuters.com/"));
        let f = SourceFeatures::of("https://example.com/a/b/c/d/e/f/g/h", tiers, None, None);
        assert_eq!((f.rating, f.path_depth), (None, MAX_PATH_DEPTH));
        let f = SourceFeatures::of("not a link", tiers, Some(&ratings), None);
        assert_eq!(
            (f.rating, f.path_depth, f.source_type),
            (None, 0, SourceType::Unknown)
        );
    }
}

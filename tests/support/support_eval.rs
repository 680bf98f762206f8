//! The support scorer's evaluation, shared by `examples/support_fit.rs` (which fits
//! and prints the figures of docs/support.md) and `tests/support_corpus.rs` (which holds
//! them): loading the three development sets (WiCE, AttributionBench, ExpertQA),
//! measuring claims, fitting with both cut-offs, scoring verdicts against labels per
//! source set, leaving each set out in turn, the two baselines (word overlap and the
//! one-line rule), and `missing` against WiCE's annotated words. What the figures
//! mean: the example's opening comment.
#![allow(dead_code)]

#[path = "auc.rs"]
mod auc;

use serde_json::Value;
use sourcebot::model::SupportVerdict;
use sourcebot::support::features::{features, FEATURE_NAMES};
use sourcebot::support::missing::{missing_spans, PageIndex};
use sourcebot::support::model::{fit_weighted, Model};
use sourcebot::support::passages::Page;
use sourcebot::support::text::strip_evidence_header;
use sourcebot::support::SupportScorer;
use std::collections::HashSet;
use std::path::Path;

/// The value after `--name` on the command line, if given.
fn option(name: &str) -> Option<String> {
    let mut args = std::env::args().skip_while(|a| a != name);
    args.next()?;
    args.next()
}

/// The L2 penalty on the weights (`--l2 X`).
pub fn l2() -> f64 {
    option("--l2")
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_L2)
}

/// Chosen by 5-fold cross-validation on WiCE among 0.1, 1, 3, 10 and 30.
pub const DEFAULT_L2: f64 = 3.0;

/// The features the shipped model weighs. Fitted on the three development sets, a
/// model of all 24 features ranks claims better within each set, but its verdicts do not
/// carry to a set it was not fitted on: it learns each set's own standard (WiCE's strict
/// "every detail", AttributionBench's looser "attributable") and the shape of its
/// evidence (whole articles, or chosen passages). Of every pair of measures
/// (`--pairs`), rarity-weighted coverage of the whole page with the claim's numbers the
/// best passages lack carries best (docs/support.md has the tables). `--keep a,b` or
/// `--drop a,b` fits others.
pub const KEPT: [&str; 2] = ["numbers_missing", "rare_recall_page"];

/// Features never fitted: page length, claim length and the best window's share of the
/// match tell the data sets apart (whole articles against a few chosen passages) more
/// than they tell support.
pub const SET_TELLERS: [&str; 3] = ["page_words_log", "claim_words_log", "best_window_share"];

/// The precision "not supported" must reach on the fitting data (held out, it comes
/// out a little lower).
pub const NOT_SUPPORTED_PRECISION: f64 = 0.95;

/// One labelled claim.
#[derive(Clone)]
pub struct Claim {
    /// Where it comes from: WiCE's `meta.id`, AttributionBench's `id`, or for ExpertQA
    /// `expertqa_{domain|rand}:LINE:SYSTEM:CLAIM` (0-based line of the file and index of
    /// the claim in the answer).
    pub id: String,
    /// The claim.
    pub text: String,
    /// Its evidence: passages or an article's sentences.
    pub evidence: Vec<String>,
    /// Fully supported by its evidence.
    pub supported: bool,
    /// Its evidence supports none of it (WiCE `not_supported`, ExpertQA `N/A`).
    pub none: bool,
    /// The development set it comes from: one of [`GROUPS`].
    pub group: &'static str,
    /// The source set it is reported under: `WiCE`, `ExpertQA`, or AttributionBench's
    /// `src_dataset` (`Stanford-GenSearch`, `AttributedQA`, `LFQA`).
    pub set: String,
}

/// The three development sets the judge is fitted on, each left out in turn.
pub const GROUPS: [&str; 3] = ["WiCE", "AttributionBench", "ExpertQA"];

/// The source sets reported, in order.
pub const SETS: [&str; 5] = [
    "WiCE",
    "Stanford-GenSearch",
    "ExpertQA",
    "AttributedQA",
    "LFQA",
];

/// The development files, relative to the corpus folder: WiCE dev, AttributionBench
/// dev, ExpertQA's two validation splits.
pub const DEV_FILES: [&str; 4] = [
    "wice_claim_dev.jsonl",
    "attributionbench_dev.jsonl",
    "expertqa_domain_val.jsonl",
    "expertqa_rand_val.jsonl",
];

/// Every claim of the three development sets, or the first file that is absent.
pub fn load_dev_sets(corpora: &Path) -> anyhow::Result<Result<Vec<Claim>, std::path::PathBuf>> {
    let paths: Vec<std::path::PathBuf> = DEV_FILES.iter().map(|f| corpora.join(f)).collect();
    if let Some(absent) = paths.iter().find(|p| !p.exists()) {
        return Ok(Err(absent.clone()));
    }
    let mut claims = load_wice(&paths[0])?;
    claims.extend(load_attributionbench(&paths[1])?);
    claims.extend(load_expertqa(&paths[2])?);
    claims.extend(load_expertqa(&paths[3])?);
    Ok(Ok(claims))
}

/// The passages of a JSON list of strings, each without its `[n] URL` header.
fn passages(list: Option<&Value>) -> Vec<String> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|p| strip_evidence_header(p).to_string())
        .collect()
}

/// AttributionBench's development claims, each against the passages annotators took
/// from its cited pages. Its ExpertQA rows are left out: they are ExpertQA's validation
/// claims, which [`load_expertqa`] reads with the expert's own label.
pub fn load_attributionbench(path: &Path) -> anyhow::Result<Vec<Claim>> {
    let mut claims = Vec::new();
    for line in std::fs::read_to_string(path)?.lines() {
        let record: Value = serde_json::from_str(line)?;
        let text = |key: &str| record.get(key).and_then(Value::as_str).unwrap_or("");
        let set = text("src_dataset");
        if set == "ExpertQA" || set.is_empty() {
            continue;
        }
        let evidence = passages(record.get("references"));
        claims.push(Claim {
            id: text("id").to_string(),
            text: text("claim").to_string(),
            evidence,
            supported: text("attribution_label") == "attributable",
            none: false,
            group: "AttributionBench",
            set: set.to_string(),
        });
    }
    Ok(claims)
}

/// ExpertQA's claims that have evidence and a label other than "Missing".
pub fn load_expertqa(path: &Path) -> anyhow::Result<Vec<Claim>> {
    let split = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("")
        .trim_start_matches("expertqa_")
        .trim_end_matches("_val.jsonl")
        .to_string();
    let mut claims = Vec::new();
    for (number, line) in std::fs::read_to_string(path)?.lines().enumerate() {
        let record: Value = serde_json::from_str(line)?;
        let Some(answers) = record.get("answers").and_then(Value::as_object) else {
            continue;
        };
        for (system, answer) in answers {
            for (index, claim) in answer
                .get("claims")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let label = claim.get("support").and_then(Value::as_str).unwrap_or("");
                let evidence = passages(claim.get("evidence"));
                if evidence.is_empty() || label.is_empty() || label == "Missing" {
                    continue;
                }
                claims.push(Claim {
                    id: format!("expertqa_{split}:{number}:{system}:{index}"),
                    text: claim
                        .get("claim_string")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    evidence,
                    supported: label == "Complete",
                    none: label == "N/A",
                    group: "ExpertQA",
                    set: "ExpertQA".to_string(),
                });
            }
        }
    }
    Ok(claims)
}

/// WiCE's article sentences: the title line `(meta data) TITLE: …` reads as the title.
pub fn wice_evidence(record: &Value) -> Vec<String> {
    record
        .get("evidence")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|s| {
            s.trim_start_matches("(meta data) TITLE:")
                .trim()
                .to_string()
        })
        .collect()
}

pub fn load_wice(path: &Path) -> anyhow::Result<Vec<Claim>> {
    let mut claims = Vec::new();
    for line in std::fs::read_to_string(path)?.lines() {
        let record: Value = serde_json::from_str(line)?;
        let label = record.get("label").and_then(Value::as_str).unwrap_or("");
        claims.push(Claim {
            id: record
                .get("meta")
                .and_then(|meta| meta.get("id"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            text: record
                .get("claim")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            evidence: wice_evidence(&record),
            supported: label == "supported",
            none: label == "not_supported",
            group: "WiCE",
            set: "WiCE".to_string(),
        });
    }
    Ok(claims)
}

/// Each claim's features, in [`FEATURE_NAMES`] order, and one more value at
/// [`DIFFERS`]: 1 when the page gives one of its figures differently (the model does
/// not weigh it; the verdict rules do).
pub fn measure(claims: &[Claim]) -> Vec<Vec<f64>> {
    claims
        .iter()
        .map(|c| {
            let passages: Vec<&str> = c.evidence.iter().map(String::as_str).collect();
            let measured = features(&c.text, &Page::new(&passages));
            let mut row = measured.values.to_vec();
            row.push(if measured.differs.is_empty() {
                0.0
            } else {
                1.0
            });
            row
        })
        .collect()
}

/// Where [`measure`] puts whether the page gives one of the claim's figures differently.
pub const DIFFERS: usize = FEATURE_NAMES.len();

/// Features left out of the fit: their weight is 0 (all but [`KEPT`]; `--keep a,b` keeps
/// others, `--drop a,b` leaves out only those).
pub fn dropped() -> Vec<usize> {
    if let Some(list) = option("--drop") {
        let names: Vec<&str> = list.split(',').collect();
        return (0..FEATURE_NAMES.len())
            .filter(|&j| names.contains(&FEATURE_NAMES[j]))
            .collect();
    }
    let kept = option("--keep").unwrap_or_else(|| KEPT.join(","));
    let names: Vec<&str> = kept.split(',').collect();
    (0..FEATURE_NAMES.len())
        .filter(|&j| !names.contains(&FEATURE_NAMES[j]))
        .collect()
}

pub fn roc_auc(scores: &[f64], labels: &[bool]) -> f64 {
    let pick = |wanted: bool| -> Vec<f64> {
        scores
            .iter()
            .zip(labels)
            .filter(|(_, l)| **l == wanted)
            .map(|(s, _)| *s)
            .collect()
    };
    auc::auc(&pick(true), &pick(false)).unwrap_or(0.5)
}

/// Balanced accuracy of the calls `said_supported` against `labels`.
pub fn balanced(said_supported: &[bool], labels: &[bool]) -> f64 {
    let (mut tp, mut p, mut tn, mut n) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (said, label) in said_supported.iter().zip(labels) {
        if *label {
            p += 1.0;
            tp += f64::from(u8::from(*said));
        } else {
            n += 1.0;
            tn += f64::from(u8::from(!*said));
        }
    }
    (tp / p.max(1.0) + tn / n.max(1.0)) / 2.0
}

pub fn balanced_accuracy(scores: &[f64], labels: &[bool], cut: f64) -> f64 {
    let said: Vec<bool> = scores.iter().map(|s| *s >= cut).collect();
    balanced(&said, labels)
}

/// The highest cut-off (at most `ceiling`) below which at least
/// [`NOT_SUPPORTED_PRECISION`] of the claims are indeed not supported; 0 when none.
pub fn not_supported_cut(scores: &[f64], labels: &[bool], ceiling: f64) -> f64 {
    let mut order: Vec<(f64, bool)> = scores.iter().copied().zip(labels.iter().copied()).collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let wanted = ns_precision();
    let (mut below, mut wrong, mut best) = (0usize, 0usize, 0.0);
    for (i, (score, supported)) in order.iter().enumerate() {
        below += 1;
        wrong += usize::from(*supported);
        let next = order.get(i + 1).map_or(f64::INFINITY, |n| n.0);
        let cut = if next.is_finite() {
            (score + next) / 2.0
        } else {
            *score + 1e-9
        };
        let precision = 1.0 - wrong as f64 / below as f64;
        if cut <= ceiling && below >= 10 && precision >= wanted && next > *score {
            best = cut;
        }
    }
    best
}

/// [`NOT_SUPPORTED_PRECISION`], or `--ns-precision X`.
pub fn ns_precision() -> f64 {
    option("--ns-precision")
        .and_then(|v| v.parse().ok())
        .unwrap_or(NOT_SUPPORTED_PRECISION)
}

/// Each claim's weight in a fit: every development set in `claims` weighs the same, and
/// within a set supported and unsupported claims weigh the same, so that the fit
/// serves balanced accuracy on each set rather than the largest set's base rate.
pub fn balanced_weights(claims: &[Claim]) -> Vec<f64> {
    let mut counts: std::collections::HashMap<(&str, bool), usize> = Default::default();
    for claim in claims {
        *counts.entry((claim.group, claim.supported)).or_default() += 1;
    }
    let cells = counts.len().max(1) as f64;
    let mut group_counts: std::collections::HashMap<&str, usize> = Default::default();
    for claim in claims {
        *group_counts.entry(claim.group).or_default() += 1;
    }
    let groups = group_counts.len().max(1) as f64;
    let by_claims = option("--weigh").as_deref() == Some("claims");
    let set_weight = |group: &str| -> f64 {
        let w = |g: &str| -> f64 {
            option(&format!("--weight-{g}"))
                .and_then(|v| v.parse().ok())
                .unwrap_or(1.0)
        };
        w(group) * groups / group_counts.keys().map(|g| w(g)).sum::<f64>()
    };
    claims
        .iter()
        .map(|c| {
            if by_claims {
                // Each set as many times as it has claims; labels balanced within it.
                let n = group_counts[c.group] as f64;
                n / (2.0 * counts[&(c.group, c.supported)] as f64)
            } else {
                set_weight(c.group) * claims.len() as f64
                    / (cells * counts[&(c.group, c.supported)] as f64)
            }
        })
        .collect()
}

/// Fits a model on `claims` (their measured `rows`) with both cut-offs: weighted by
/// [`balanced_weights`], so "supported" is at 0.5; "not supported" below the highest
/// score at which, in every development set fitted on, at least
/// [`NOT_SUPPORTED_PRECISION`] of the claims under it are indeed not supported.
pub fn fit_model(rows: &[Vec<f64>], claims: &[Claim], fitted_on: &str) -> Model {
    fit_model_without(rows, claims, fitted_on, None)
}

/// [`fit_model`] with the features at `left_out` held at weight 0.
pub fn fit_model_without(
    rows: &[Vec<f64>],
    claims: &[Claim],
    fitted_on: &str,
    left_out: Option<&[usize]>,
) -> Model {
    let labels: Vec<bool> = claims.iter().map(|c| c.supported).collect();
    let weights = balanced_weights(claims);
    let left_out = left_out.map_or_else(dropped, <[usize]>::to_vec);
    let groups: Vec<usize> = if option("--pooled").is_some() {
        vec![0; claims.len()]
    } else {
        claims
            .iter()
            .map(|c| GROUPS.iter().position(|g| *g == c.group).unwrap_or(0))
            .collect()
    };
    // Group indices from 0 with no gap, so that each group fitted has its intercept.
    let present: Vec<usize> = {
        let mut p = groups.clone();
        p.sort_unstable();
        p.dedup();
        p
    };
    let groups: Vec<usize> = groups
        .iter()
        .map(|g| present.iter().position(|p| p == g).unwrap_or(0))
        .collect();
    let mut model = fit_weighted(rows, &labels, &weights, &groups, l2(), fitted_on, &left_out);
    let scorer = SupportScorer::with_model(model.clone());
    let scores: Vec<f64> = rows.iter().map(|r| scorer.probability(r)).collect();
    model.supported_at = match option("--cut").as_deref() {
        Some("half") => 0.5,
        _ => mean_best_cut(&scores, claims),
    };
    model.partly_at = GROUPS
        .iter()
        .filter_map(|group| {
            let (s, l): (Vec<f64>, Vec<bool>) = scores
                .iter()
                .zip(claims)
                .filter(|(_, c)| c.group == *group)
                .map(|(s, c)| (*s, c.supported))
                .unzip();
            (!s.is_empty()).then(|| not_supported_cut(&s, &l, model.supported_at))
        })
        .filter(|cut| *cut > 0.0)
        .fold(model.supported_at, f64::min);
    model
}

/// What a method said of each claim: supported, not supported, and its score when it
/// has one.
#[derive(Clone)]
pub struct Calls {
    /// Said "supported".
    pub supported: Vec<bool>,
    /// Said "not supported".
    pub not: Vec<bool>,
    /// The score, for a method that has one.
    pub scores: Option<Vec<f64>>,
}

impl Calls {
    /// The figures of these calls on the claims `keep` picks.
    pub fn on(&self, claims: &[Claim], keep: impl Fn(&Claim) -> bool) -> Scored {
        let picked: Vec<usize> = (0..claims.len()).filter(|&i| keep(&claims[i])).collect();
        let subset: Vec<Claim> = picked.iter().map(|&i| claims[i].clone()).collect();
        let take = |v: &[bool]| picked.iter().map(|&i| v[i]).collect::<Vec<bool>>();
        let auc = self.scores.as_ref().map(|scores| {
            let s: Vec<f64> = picked.iter().map(|&i| scores[i]).collect();
            let labels: Vec<bool> = subset.iter().map(|c| c.supported).collect();
            roc_auc(&s, &labels)
        });
        score_calls(&take(&self.supported), &take(&self.not), &subset, auc)
    }

    /// The figures on one source set.
    pub fn on_set(&self, claims: &[Claim], set: &str) -> Scored {
        self.on(claims, |c| c.set == set)
    }
}

/// A model's calls on `rows`.
pub fn calls_of(model: &Model, rows: &[Vec<f64>]) -> Calls {
    let scorer = SupportScorer::with_model(model.clone());
    let scores: Vec<f64> = rows.iter().map(|r| scorer.probability(r)).collect();
    Calls {
        supported: scores
            .iter()
            .zip(rows)
            .map(|(s, r)| verdict_of(*s, r, model) == SupportVerdict::Supported)
            .collect(),
        not: scores
            .iter()
            .zip(rows)
            .map(|(s, r)| verdict_of(*s, r, model) == SupportVerdict::NotSupported)
            .collect(),
        scores: Some(scores),
    }
}

/// Each claim called by a model fitted on the other two development sets: the figure
/// that predicts answers no one here has seen. `left_out`: the features held at 0
/// (`None`: [`dropped`]).
pub fn left_out_calls(rows: &[Vec<f64>], claims: &[Claim], left_out: Option<&[usize]>) -> Calls {
    let folds: Vec<usize> = claims
        .iter()
        .map(|c| GROUPS.iter().position(|g| *g == c.group).unwrap_or(0))
        .collect();
    held_out_calls(rows, claims, &folds, GROUPS.len(), left_out)
}

/// Each claim called by a model fitted on the other four of five folds of all three
/// sets (claim `i` of each set in fold `i % 5`).
pub fn cross_validated_calls(rows: &[Vec<f64>], claims: &[Claim]) -> Calls {
    let mut position: std::collections::HashMap<&str, usize> = Default::default();
    let folds: Vec<usize> = claims
        .iter()
        .map(|c| {
            let n = position.entry(c.group).or_default();
            *n += 1;
            (*n - 1) % 5
        })
        .collect();
    held_out_calls(rows, claims, &folds, 5, None)
}

/// Each claim called by a model fitted on the claims of the other folds (`folds[i]` is
/// claim `i`'s, below `count`).
fn held_out_calls(
    rows: &[Vec<f64>],
    claims: &[Claim],
    folds: &[usize],
    count: usize,
    left_out: Option<&[usize]>,
) -> Calls {
    let mut calls = Calls {
        supported: vec![false; claims.len()],
        not: vec![false; claims.len()],
        scores: Some(vec![0.0; claims.len()]),
    };
    for fold in 0..count {
        let train: Vec<usize> = (0..claims.len()).filter(|&i| folds[i] != fold).collect();
        if train.is_empty() {
            continue;
        }
        let train_rows: Vec<Vec<f64>> = train.iter().map(|&i| rows[i].clone()).collect();
        let train_claims: Vec<Claim> = train.iter().map(|&i| claims[i].clone()).collect();
        let model = fit_model_without(&train_rows, &train_claims, "held out", left_out);
        let scorer = SupportScorer::with_model(model.clone());
        for i in (0..claims.len()).filter(|&i| folds[i] == fold) {
            let p = scorer.probability(&rows[i]);
            let verdict = verdict_of(p, &rows[i], &model);
            calls.supported[i] = verdict == SupportVerdict::Supported;
            calls.not[i] = verdict == SupportVerdict::NotSupported;
            if let Some(scores) = calls.scores.as_mut() {
                scores[i] = p;
            }
        }
    }
    calls
}

/// The verdict on a claim scored `p` (its features `row`), as the shipped scorer gives it
/// ([`Model::verdict`]). Options reproduce rules measured and not kept: `--not-rule
/// score` says "not supported" on the score alone (no detail need be missing); `--cap
/// none` lets a claim whose page gives a figure differently be supported; `--cap
/// negation` (or `negation-old`) instead caps "supported" when a negation stands beside
/// the words the best passage shares with the claim and the claim has none.
pub fn verdict_of(p: f64, row: &[f64], model: &Model) -> SupportVerdict {
    let index = |name: &str| FEATURE_NAMES.iter().position(|n| *n == name).unwrap_or(0);
    let lacks_detail =
        option("--not-rule").as_deref() == Some("score") || row[index("missing_any")] > 0.0;
    let gives_other_figure = match option("--cap").as_deref() {
        Some("negation") => row[index("negation_near")] > 0.0,
        Some("negation-old") => row[index("negation_mismatch")] > 0.0,
        Some("none") => false,
        _ => row[DIFFERS] > 0.0,
    };
    model.verdict(p, lacks_detail, gives_other_figure)
}

/// Word overlap: the share of the claim's content words (stop words dropped, stemmed)
/// that its evidence contains.
pub fn overlap_score(claim: &Claim) -> f64 {
    use sourcebot::support::text::tokenize;
    let evidence: HashSet<String> = claim
        .evidence
        .iter()
        .flat_map(|e| tokenize(e))
        .map(|t| t.stem)
        .collect();
    let words: HashSet<String> = tokenize(&claim.text)
        .into_iter()
        .filter(|t| !t.stop)
        .map(|t| t.stem)
        .collect();
    if words.is_empty() {
        return 1.0;
    }
    words.iter().filter(|w| evidence.contains(*w)).count() as f64 / words.len() as f64
}

/// The cut with the best balanced accuracy on `claims`, each development set weighing
/// the same (the mean of the sets' balanced accuracies).
pub fn mean_best_cut(scores: &[f64], claims: &[Claim]) -> f64 {
    let mut candidates: Vec<f64> = scores.to_vec();
    candidates.sort_by(f64::total_cmp);
    candidates.dedup();
    let groups: Vec<&str> = GROUPS
        .iter()
        .copied()
        .filter(|g| claims.iter().any(|c| c.group == *g))
        .collect();
    let mean_ba = |cut: f64| -> f64 {
        groups
            .iter()
            .map(|g| {
                let (s, l): (Vec<f64>, Vec<bool>) = scores
                    .iter()
                    .zip(claims)
                    .filter(|(_, c)| c.group == *g)
                    .map(|(s, c)| (*s, c.supported))
                    .unzip();
                balanced_accuracy(&s, &l, cut)
            })
            .sum::<f64>()
            / groups.len().max(1) as f64
    };
    candidates
        .into_iter()
        .max_by(|a, b| mean_ba(*a).total_cmp(&mean_ba(*b)))
        .unwrap_or(0.5)
}

/// Word overlap's calls: the cut chosen on all three sets (`left_out` false), or for
/// each set on the other two (`left_out` true). It never says "not supported".
pub fn overlap_calls(claims: &[Claim], left_out: bool) -> Calls {
    let scores: Vec<f64> = claims.iter().map(overlap_score).collect();
    let mut supported = vec![false; claims.len()];
    for group in GROUPS {
        let (train_scores, train_claims): (Vec<f64>, Vec<Claim>) = scores
            .iter()
            .zip(claims)
            .filter(|(_, c)| !left_out || c.group != group)
            .map(|(s, c)| (*s, c.clone()))
            .unzip();
        let cut = mean_best_cut(&train_scores, &train_claims);
        for i in (0..claims.len()).filter(|&i| claims[i].group == group) {
            supported[i] = scores[i] >= cut;
        }
    }
    Calls {
        supported,
        not: vec![false; claims.len()],
        scores: Some(scores),
    }
}

/// The one-line rule's calls.
pub fn rule_calls_all(claims: &[Claim]) -> Calls {
    let not: Vec<bool> = claims.iter().map(rule_says_unsupported).collect();
    Calls {
        supported: not.iter().map(|n| !n).collect(),
        not,
        scores: None,
    }
}

/// How a set of verdicts did against the labels.
pub struct Scored {
    /// Balanced accuracy of "supported" against the rest.
    pub balanced_accuracy: f64,
    /// ROC AUC of the score, for a model.
    pub auc: Option<f64>,
    /// "not supported" said, and how often the claim was indeed not (fully) supported,
    /// and how often its evidence supported none of it.
    pub said_not: usize,
    /// Of those, the share not fully supported.
    pub not_precision: f64,
    /// Of those, the share supported in no part.
    pub none_precision: f64,
    /// The share of claims said "supported".
    pub said_supported: f64,
}

pub fn score_calls(
    said_supported: &[bool],
    said_not: &[bool],
    claims: &[Claim],
    auc: Option<f64>,
) -> Scored {
    let labels: Vec<bool> = claims.iter().map(|c| c.supported).collect();
    let not: Vec<&Claim> = claims
        .iter()
        .zip(said_not)
        .filter(|(_, n)| **n)
        .map(|(c, _)| c)
        .collect();
    let share = |f: &dyn Fn(&Claim) -> bool| {
        if not.is_empty() {
            f64::NAN
        } else {
            not.iter().filter(|c| f(c)).count() as f64 / not.len() as f64
        }
    };
    Scored {
        balanced_accuracy: balanced(said_supported, &labels),
        auc,
        said_not: not.len(),
        not_precision: share(&|c| !c.supported),
        none_precision: share(&|c| c.none),
        said_supported: said_supported.iter().filter(|s| **s).count() as f64
            / said_supported.len().max(1) as f64,
    }
}

pub fn model_calls(model: &Model, rows: &[Vec<f64>], claims: &[Claim]) -> Scored {
    calls_of(model, rows).on(claims, |_| true)
}

/// The one-line rule: a claim is supported unless one of its numbers or capitalised
/// words (not its first word) never appears in the evidence, compared in lower case.
pub fn rule_calls(claims: &[Claim]) -> Scored {
    rule_calls_all(claims).on(claims, |_| true)
}

pub fn rule_says_unsupported(claim: &Claim) -> bool {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let page: HashSet<String> = claim
        .evidence
        .iter()
        .flat_map(|e| words(e))
        .map(|w| w.to_lowercase())
        .collect();
    words(&claim.text).iter().enumerate().any(|(i, w)| {
        let salient = w.chars().any(|c| c.is_ascii_digit())
            || (i > 0 && w.chars().next().is_some_and(char::is_uppercase));
        salient && !page.contains(&w.to_lowercase())
    })
}

/// How `missing` did against WiCE's annotated unsupported words.
pub struct MissingFigures {
    /// Claims read.
    pub claims: usize,
    /// Content words `missing` listed.
    pub listed: usize,
    /// Of which the annotators marked unsupported.
    pub right: usize,
    /// Content words the annotators marked unsupported.
    pub annotated_content: usize,
    /// Tokens the annotators marked unsupported (function words and punctuation too).
    pub annotated: usize,
    /// Claims with at least one right word listed.
    pub claims_with_right: usize,
}

impl MissingFigures {
    /// The share of listed words that are annotated unsupported.
    pub fn precision(&self) -> f64 {
        self.right as f64 / self.listed.max(1) as f64
    }

    /// The share of annotated content words that are listed.
    pub fn recall(&self) -> f64 {
        self.right as f64 / self.annotated_content.max(1) as f64
    }
}

/// `missing` against WiCE's annotated unsupported words (`wice_tokens_dev.jsonl`).
pub fn missing_figures(path: &Path) -> anyhow::Result<MissingFigures> {
    let mut figures = MissingFigures {
        claims: 0,
        listed: 0,
        right: 0,
        annotated_content: 0,
        annotated: 0,
        claims_with_right: 0,
    };
    for line in std::fs::read_to_string(path)?.lines() {
        let record: Value = serde_json::from_str(line)?;
        let claim = record.get("claim").and_then(Value::as_str).unwrap_or("");
        let tokens: Vec<&str> = record
            .get("claim_tokens")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let marks: Vec<bool> = record
            .get("non_supported_spans")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|v| v.as_bool().unwrap_or(false))
            .collect();
        let evidence = wice_evidence(&record);
        let index = PageIndex::new(evidence.iter().map(String::as_str));
        let spans = missing_spans(claim, &index);
        figures.claims += 1;
        let mut any_right = false;
        // Walk the tokens through the claim to find each one's place.
        let mut cursor = 0usize;
        for (token, mark) in tokens.iter().zip(&marks) {
            let Some(at) = claim[cursor..].find(token) else {
                continue;
            };
            let (start, end) = (cursor + at, cursor + at + token.len());
            cursor = end;
            let content = token.chars().any(char::is_alphanumeric)
                && !sourcebot::support::text::is_stop(&token.to_lowercase());
            figures.annotated += usize::from(*mark);
            figures.annotated_content += usize::from(*mark && content);
            if !content || !spans.iter().any(|(s, e)| *s <= start && end <= *e) {
                continue;
            }
            figures.listed += 1;
            if *mark {
                figures.right += 1;
                any_right = true;
            }
        }
        figures.claims_with_right += usize::from(any_right);
    }
    Ok(figures)
}

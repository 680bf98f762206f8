//! The support scorer's evaluation, shared by `examples/support_fit.rs` (which fits
//! and prints the figures of docs/support.md) and `tests/support_corpus.rs` (which holds them):
//! loading ExpertQA and WiCE, measuring claims, fitting with both cut-offs, scoring
//! verdicts against labels, the one-line rule, cross-validation, and `missing` against
//! WiCE's annotated words. What the figures mean: the example's opening comment.
#![allow(dead_code)]

#[path = "auc.rs"]
mod auc;

use serde_json::Value;
use sourcebot::support::features::{features, FEATURE_NAMES};
use sourcebot::support::missing::{missing_spans, PageIndex};
use sourcebot::support::model::{fit, Model};
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

/// Features held at zero in every fit: page length, claim length and the best window's
/// share of the match tell the data sets apart (whole articles against a few chosen
/// passages) more than they tell support, and a model fitted on one leans on them
/// wrongly on the other (`--drop` replaces the list).
pub const DROPPED: [&str; 3] = ["page_words_log", "claim_words_log", "best_window_share"];

/// The precision "not supported" must reach on the fitting data (held out, it comes
/// out a little lower).
pub const NOT_SUPPORTED_PRECISION: f64 = 0.95;

/// One labelled claim.
#[derive(Clone)]
pub struct Claim {
    /// The claim.
    pub text: String,
    /// Its evidence: passages or an article's sentences.
    pub evidence: Vec<String>,
    /// Fully supported by its evidence.
    pub supported: bool,
    /// Its evidence supports none of it (WiCE `not_supported`, ExpertQA `N/A`).
    pub none: bool,
}

pub fn load_expertqa(path: &Path) -> anyhow::Result<Vec<Claim>> {
    let mut claims = Vec::new();
    for line in std::fs::read_to_string(path)?.lines() {
        let record: Value = serde_json::from_str(line)?;
        let Some(answers) = record.get("answers").and_then(Value::as_object) else {
            continue;
        };
        for answer in answers.values() {
            for claim in answer
                .get("claims")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let label = claim.get("support").and_then(Value::as_str).unwrap_or("");
                let evidence: Vec<String> = claim
                    .get("evidence")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(|p| strip_evidence_header(p).to_string())
                    .collect();
                if evidence.is_empty() || label.is_empty() || label == "Missing" {
                    continue;
                }
                claims.push(Claim {
                    text: claim
                        .get("claim_string")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    evidence,
                    supported: label == "Complete",
                    none: label == "N/A",
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
            text: record
                .get("claim")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            evidence: wice_evidence(&record),
            supported: label == "supported",
            none: label == "not_supported",
        });
    }
    Ok(claims)
}

pub fn measure(claims: &[Claim]) -> Vec<Vec<f64>> {
    let dropped = dropped();
    claims
        .iter()
        .map(|c| {
            let passages: Vec<&str> = c.evidence.iter().map(String::as_str).collect();
            let mut values = features(&c.text, &Page::new(&passages)).values.to_vec();
            for &i in &dropped {
                values[i] = 0.0;
            }
            values
        })
        .collect()
}

/// Features left out of the fit: held at 0, so their weight is 0 ([`DROPPED`], or
/// `--drop a,b`).
pub fn dropped() -> Vec<usize> {
    let list = option("--drop").unwrap_or_else(|| DROPPED.join(","));
    list.split(',')
        .filter_map(|name| FEATURE_NAMES.iter().position(|n| *n == name))
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

/// The share of `labels` that are true: the "supported" cut-off. A logistic model's
/// probabilities are calibrated to its fitting data, where a claim scored above the
/// share of supported claims is more likely supported than the base rate says; that
/// cut balances the two kinds of error, as balanced accuracy weighs them. (The cut with
/// the best balanced accuracy on the fitting data, [`best_cut`], was used before: it
/// follows a few claims at the edge and moved held-out balanced accuracy by up to 0.07
/// between fold assignments; the base rate moves it by 0.03.)
pub fn base_rate(labels: &[bool]) -> f64 {
    labels.iter().filter(|l| **l).count() as f64 / labels.len().max(1) as f64
}

/// The cut-off with the best balanced accuracy on `scores`.
pub fn best_cut(scores: &[f64], labels: &[bool]) -> f64 {
    let mut candidates: Vec<f64> = scores.to_vec();
    candidates.sort_by(f64::total_cmp);
    candidates.dedup();
    candidates
        .into_iter()
        .max_by(|a, b| {
            balanced_accuracy(scores, labels, *a).total_cmp(&balanced_accuracy(scores, labels, *b))
        })
        .unwrap_or(0.5)
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

/// Fits a model on `claims` (their measured `rows`) with both cut-offs.
pub fn fit_model(rows: &[Vec<f64>], claims: &[Claim], fitted_on: &str) -> Model {
    let labels: Vec<bool> = claims.iter().map(|c| c.supported).collect();
    let mut model = fit(rows, &labels, l2(), fitted_on);
    let scorer = SupportScorer::with_model(model.clone());
    let scores: Vec<f64> = rows.iter().map(|r| scorer.probability(r)).collect();
    model.supported_at = base_rate(&labels);
    model.partly_at = not_supported_cut(&scores, &labels, model.supported_at);
    model
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
    }
}

pub fn model_calls(model: &Model, rows: &[Vec<f64>], claims: &[Claim]) -> Scored {
    let scorer = SupportScorer::with_model(model.clone());
    let scores: Vec<f64> = rows.iter().map(|r| scorer.probability(r)).collect();
    let supported: Vec<bool> = scores.iter().map(|s| *s >= model.supported_at).collect();
    let not: Vec<bool> = scores.iter().map(|s| *s < model.partly_at).collect();
    let labels: Vec<bool> = claims.iter().map(|c| c.supported).collect();
    score_calls(&supported, &not, claims, Some(roc_auc(&scores, &labels)))
}

/// The one-line rule: a claim is supported unless one of its numbers or capitalised
/// words (not its first word) never appears in the evidence, compared in lower case.
pub fn rule_calls(claims: &[Claim]) -> Scored {
    let said_not: Vec<bool> = claims.iter().map(rule_says_unsupported).collect();
    let said_supported: Vec<bool> = said_not.iter().map(|n| !n).collect();
    score_calls(&said_supported, &said_not, claims, None)
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

/// How many ways of dealing claims into five folds [`repeated_cross_validation`] tries.
pub const FOLD_ASSIGNMENTS: usize = 8;

/// 5-fold cross-validation over `claims` (rows measured), each fold's model fitted on
/// the other four folds plus `also` (rows, claims); the held-out verdicts scored
/// together. Claim `i` is in fold `i % 5`.
pub fn cross_validated(
    rows: &[Vec<f64>],
    claims: &[Claim],
    also: Option<(&[Vec<f64>], &[Claim])>,
) -> Scored {
    let folds: Vec<usize> = (0..claims.len()).map(|i| i % 5).collect();
    cross_validated_over(rows, claims, also, &folds)
}

/// [`cross_validated`] over [`FOLD_ASSIGNMENTS`] ways of dealing the claims into five
/// folds (the first `i % 5`, the others shuffled with fixed seeds): one split's figure
/// moves with the few claims at the cut, the spread says by how much.
pub fn repeated_cross_validation(rows: &[Vec<f64>], claims: &[Claim]) -> Vec<Scored> {
    (0..FOLD_ASSIGNMENTS)
        .map(|seed| {
            let folds = if seed == 0 {
                (0..claims.len()).map(|i| i % 5).collect()
            } else {
                shuffled_folds(claims.len(), seed as u64)
            };
            cross_validated_over(rows, claims, None, &folds)
        })
        .collect()
}

/// Claims dealt into five folds of (nearly) equal size in an order shuffled with
/// `seed` (Fisher–Yates over SplitMix64: the same folds on every machine).
fn shuffled_folds(count: usize, seed: u64) -> Vec<usize> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut order: Vec<usize> = (0..count).collect();
    for i in (1..count).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let mut folds = vec![0; count];
    for (rank, &claim) in order.iter().enumerate() {
        folds[claim] = rank % 5;
    }
    folds
}

/// The mean, lowest and highest of the balanced accuracies of `runs`.
pub fn spread(runs: &[Scored]) -> (f64, f64, f64) {
    let values: Vec<f64> = runs.iter().map(|r| r.balanced_accuracy).collect();
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, low, high)
}

/// Cross-validation with claim `i` held out in fold `folds[i]` (0..5).
fn cross_validated_over(
    rows: &[Vec<f64>],
    claims: &[Claim],
    also: Option<(&[Vec<f64>], &[Claim])>,
    folds: &[usize],
) -> Scored {
    let mut said_supported = vec![false; claims.len()];
    let mut said_not = vec![false; claims.len()];
    let mut scores = vec![0.0; claims.len()];
    for fold in 0..5 {
        let mut train_rows: Vec<Vec<f64>> = Vec::new();
        let mut train_claims: Vec<Claim> = Vec::new();
        for ((row, claim), _) in rows
            .iter()
            .zip(claims)
            .zip(folds)
            .filter(|(_, f)| **f != fold)
        {
            train_rows.push(row.clone());
            train_claims.push(claim.clone());
        }
        if let Some((extra_rows, extra_claims)) = also {
            train_rows.extend(extra_rows.iter().cloned());
            train_claims.extend(extra_claims.iter().cloned());
        }
        let model = fit_model(&train_rows, &train_claims, "cross-validation");
        let scorer = SupportScorer::with_model(model.clone());
        for i in (0..claims.len()).filter(|&i| folds[i] == fold) {
            let p = scorer.probability(&rows[i]);
            scores[i] = p;
            said_supported[i] = p >= model.supported_at;
            said_not[i] = p < model.partly_at;
        }
    }
    let labels: Vec<bool> = claims.iter().map(|c| c.supported).collect();
    score_calls(
        &said_supported,
        &said_not,
        claims,
        Some(roc_auc(&scores, &labels)),
    )
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

//! The small model that turns the support features into a probability: logistic
//! regression on standardised features, its weights in `weights.json` beside this file
//! (fitted by `examples/support_fit.rs` on the development sets, which it names in the
//! file), and the two cut-offs that make a verdict of the probability. [`fit`] and
//! [`fit_weighted`] are the fitting itself (Newton's method with a small L2 penalty),
//! so that anyone can reproduce the weights.

use super::features::{FEATURE_NAMES, FEATURE_SIGNS};
use crate::model::SupportVerdict;
use serde::{Deserialize, Serialize};

/// A fitted model, as `weights.json` keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The features, in order (must match [`FEATURE_NAMES`]).
    pub features: Vec<String>,
    /// Each feature's mean on the fitting data.
    pub mean: Vec<f64>,
    /// Each feature's standard deviation on the fitting data (1 where it was 0).
    pub scale: Vec<f64>,
    /// The weight of each standardised feature.
    pub weights: Vec<f64>,
    /// The intercept.
    pub bias: f64,
    /// At or above this probability a claim is `supported`.
    pub supported_at: f64,
    /// At or above this (and below `supported_at`) it is `partly supported`; below it,
    /// `not supported`. Chosen on the fitting data so that "not supported" holds (the
    /// claim is indeed not fully supported) at least nine times in ten there.
    pub partly_at: f64,
    /// Where the weights came from (data file, claims, date).
    pub fitted_on: String,
}

/// Why a model file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Not the JSON shape of [`Model`].
    #[error("the support model is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Features or lengths that do not match this build.
    #[error("the support model does not match this build: {0}")]
    Mismatch(String),
}

/// The weights shipped with sourcebot.
const BUILTIN: &str = include_str!("weights.json");

impl Model {
    /// The model shipped with sourcebot.
    pub fn builtin() -> Result<Model, ModelError> {
        Model::from_json(BUILTIN)
    }

    /// A model from its JSON, checked against this build's features.
    pub fn from_json(json: &str) -> Result<Model, ModelError> {
        let model: Model = serde_json::from_str(json)?;
        let n = FEATURE_NAMES.len();
        if model.features != FEATURE_NAMES {
            return Err(ModelError::Mismatch(format!(
                "features {:?}, expected {:?}",
                model.features, FEATURE_NAMES
            )));
        }
        if model.mean.len() != n || model.scale.len() != n || model.weights.len() != n {
            return Err(ModelError::Mismatch(format!(
                "expected {n} means, scales and weights"
            )));
        }
        let finite = model
            .mean
            .iter()
            .chain(&model.scale)
            .chain(&model.weights)
            .chain([&model.bias, &model.supported_at, &model.partly_at])
            .all(|v| v.is_finite());
        if !finite || model.scale.iter().any(|s| *s <= 0.0) {
            return Err(ModelError::Mismatch(
                "weights must be finite and scales positive".into(),
            ));
        }
        Ok(model)
    }

    /// The verdict for a claim scored `score`, whose page lacks one of its names or
    /// figures (`lacks_detail`: `missing` is not empty) and gives one of them differently
    /// (`gives_other_figure`: `differs` is not empty):
    /// - `supported` at or above `supported_at`, unless the page gives another figure for
    ///   the same thing;
    /// - `not supported` below `partly_at` only when the page also lacks a detail of the
    ///   claim (a low score alone is as often a page that says it in other words: on the
    ///   development sets this keeps "not supported" right 90 times in 100 where it was
    ///   right 81 to 83 times);
    /// - `partly supported` otherwise.
    pub fn verdict(
        &self,
        score: f64,
        lacks_detail: bool,
        gives_other_figure: bool,
    ) -> SupportVerdict {
        if score >= self.supported_at && !gives_other_figure {
            SupportVerdict::Supported
        } else if score < self.partly_at && lacks_detail {
            SupportVerdict::NotSupported
        } else {
            SupportVerdict::PartlySupported
        }
    }

    /// The probability that the passages support the claim, for feature `values`.
    pub fn probability(&self, values: &[f64]) -> f64 {
        let z: f64 = self.bias
            + values
                .iter()
                .zip(&self.mean)
                .zip(&self.scale)
                .zip(&self.weights)
                .map(|(((v, m), s), w)| w * (v - m) / s)
                .sum::<f64>();
        sigmoid(z)
    }
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Fits a logistic regression of `labels` on `rows` (each [`FEATURE_NAMES`] long):
/// features standardised, Newton's method with an L2 penalty `l2` on the weights (not
/// the intercept), 50 iterations at most. A weight whose sign goes against
/// [`FEATURE_SIGNS`] is set to zero and the rest refitted, until all keep to theirs.
/// The cut-offs are left at 0.5; the caller sets them.
pub fn fit(rows: &[Vec<f64>], labels: &[bool], l2: f64, fitted_on: &str) -> Model {
    let ones = vec![1.0; rows.len()];
    let zeros = vec![0; rows.len()];
    fit_weighted(rows, labels, &ones, &zeros, l2, fitted_on, &[])
}

/// [`fit`] with a weight for each row (a row of weight 2 counts as two rows; the
/// features are standardised with the same weights), an intercept of its own for each
/// group of rows (`groups[i]` is row `i`'s, from 0), and the features at the indices in
/// `left_out` held at weight 0. The model's intercept is the mean of the groups': the
/// weights learn what tells support within each group, not what tells the groups apart
/// (one data set's pages are longer, another's annotators stricter), and a text from
/// none of them gets the middle ground.
pub fn fit_weighted(
    rows: &[Vec<f64>],
    labels: &[bool],
    weights: &[f64],
    groups: &[usize],
    l2: f64,
    fitted_on: &str,
    left_out: &[usize],
) -> Model {
    let mut used = [true; FEATURE_NAMES.len()];
    for &j in left_out {
        if let Some(u) = used.get_mut(j) {
            *u = false;
        }
    }
    loop {
        let model = fit_with(rows, labels, weights, groups, l2, fitted_on, &used);
        let wrong: Vec<usize> = (0..used.len())
            .filter(|&j| used[j] && f64::from(FEATURE_SIGNS[j]) * model.weights[j] < 0.0)
            .collect();
        // Drop the worst offender only: the others may come right without it.
        match wrong
            .into_iter()
            .max_by(|&a, &b| model.weights[a].abs().total_cmp(&model.weights[b].abs()))
        {
            Some(j) => used[j] = false,
            None => return model,
        }
    }
}

/// [`fit`] over the features `used` marks (the others get weight 0).
fn fit_with(
    rows: &[Vec<f64>],
    labels: &[bool],
    weights: &[f64],
    groups: &[usize],
    l2: f64,
    fitted_on: &str,
    used: &[bool],
) -> Model {
    let n = FEATURE_NAMES.len();
    let count: f64 = weights.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    let mut mean = vec![0.0; n];
    for (row, weight) in rows.iter().zip(weights) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += weight * v / count;
        }
    }
    let mut scale = vec![0.0; n];
    for (row, weight) in rows.iter().zip(weights) {
        for ((s, v), m) in scale.iter_mut().zip(row).zip(&mean) {
            *s += weight * (v - m).powi(2) / count;
        }
    }
    for s in &mut scale {
        *s = if *s > 1e-12 { s.sqrt() } else { 1.0 };
    }
    let group_count = groups.iter().max().map_or(1, |g| g + 1);
    let x: Vec<Vec<f64>> = rows
        .iter()
        .zip(groups)
        .map(|(row, &group)| {
            let mut z: Vec<f64> = row
                .iter()
                .zip(&mean)
                .zip(&scale)
                .zip(used)
                .map(|(((v, m), s), u)| if *u { (v - m) / s } else { 0.0 })
                .collect();
            z.extend((0..group_count).map(|g| if g == group { 1.0 } else { 0.0 }));
            z
        })
        .collect();
    let d = n + group_count;
    let mut beta = vec![0.0; d];
    for _ in 0..50 {
        let mut gradient = vec![0.0; d];
        let mut hessian = vec![vec![0.0; d]; d];
        for ((xi, &yi), &weight) in x.iter().zip(labels).zip(weights) {
            let p = sigmoid(xi.iter().zip(&beta).map(|(a, b)| a * b).sum());
            let y = if yi { 1.0 } else { 0.0 };
            let w = weight * (p * (1.0 - p)).max(1e-9);
            for j in 0..d {
                gradient[j] += weight * (p - y) * xi[j];
                for k in 0..d {
                    hessian[j][k] += w * xi[j] * xi[k];
                }
            }
        }
        for j in 0..n {
            gradient[j] += l2 * beta[j];
            hessian[j][j] += l2;
        }
        let Some(step) = solve(hessian, gradient) else {
            break;
        };
        let size: f64 = step.iter().map(|s| s.abs()).sum();
        for (b, s) in beta.iter_mut().zip(&step) {
            *b -= s;
        }
        if size < 1e-9 {
            break;
        }
    }
    Model {
        features: FEATURE_NAMES.iter().map(|s| s.to_string()).collect(),
        mean,
        scale,
        weights: beta[..n].to_vec(),
        bias: beta[n..].iter().sum::<f64>() / group_count as f64,
        supported_at: 0.5,
        partly_at: 0.5,
        fitted_on: fitted_on.to_string(),
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` when `a` is
/// singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (upper, lower) = a.split_at_mut(col + 1);
        let pivot_row = &upper[col];
        for (offset, row) in lower.iter_mut().enumerate() {
            let factor = row[col] / pivot_row[col];
            for (cell, above) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *cell -= factor * above;
            }
            b[col + 1 + offset] -= factor * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_model_loads() {
        let model = Model::builtin().expect("weights.json matches this build");
        assert!(model.supported_at >= model.partly_at);
    }

    #[test]
    fn fitting_separates_a_separable_feature() {
        let n = FEATURE_NAMES.len();
        let mut rows = Vec::new();
        let mut labels = Vec::new();
        for i in 0..200 {
            let mut row = vec![0.5; n];
            let positive = i % 2 == 0;
            row[0] = if positive { 0.9 } else { 0.2 } + (i % 7) as f64 * 0.01;
            rows.push(row);
            labels.push(positive);
        }
        let model = fit(&rows, &labels, 1.0, "test");
        assert!(model.weights[0] > 0.0);
        let mut high = vec![0.5; n];
        high[0] = 0.95;
        let mut low = vec![0.5; n];
        low[0] = 0.1;
        assert!(model.probability(&high) > 0.9);
        assert!(model.probability(&low) < 0.1);
    }

    #[test]
    fn broken_model_files_are_refused_with_a_reason() {
        assert!(Model::from_json("{").is_err());
        let mut model = Model::builtin().expect("builtin");
        model.scale[0] = 0.0;
        let json = serde_json::to_string(&model).expect("json");
        let error = Model::from_json(&json).expect_err("a zero scale");
        assert!(error.to_string().contains("scales"));
    }
}

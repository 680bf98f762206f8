//! Fits the credibility model's weights (`src/score/credibility_weights.json`) on expert
//! ratings and reports how well it separates sources experts called reliable from those
//! they did not, on questions it was not fitted on.
//!
//! Data: the ExpertQA validation files in `../shared/corpora` (claims rated "Reliable"
//! or "Not reliable at all" by domain experts, with the URLs each cites), pooled so that
//! a claim in both files counts once; Lin et al. (2023)'s domain ratings from the same
//! directory. Questions are split in two halves by a fixed hash of their text: the
//! weights are fitted on one half (the L2 penalty chosen by 5-fold cross-validation
//! inside it, folds by question) and reported on the other, with 95% intervals from
//! resampling whole questions. The reverse split is printed too, as a check of how much
//! the figure depends on the split. A weight that comes out against its stated
//! direction (a forum or content farm scoring higher, a better rating scoring lower) is
//! dropped and the rest refitted.
//!
//! ```sh
//! cargo run --release --example credibility_fit            # report
//! cargo run --release --example credibility_fit -- --write # and write the weights
//! ```

#[path = "../tests/support/auc.rs"]
mod auc;

use auc::Label;
use sourcebot::model::SourceType;
use sourcebot::score::credibility::{CredibilityWeights, SourceFeatures, MAX_PATH_DEPTH};
use sourcebot::score::domain::DomainTiers;
use sourcebot::score::ratings::DomainRatings;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

/// Source types with a weight of their own: every type but unknown (the last, and the
/// reference).
const TYPES: &[SourceType] = match SourceType::ALL.split_last() {
    Some((_, weighted)) => weighted,
    None => &[],
};
const _: () = assert!(matches!(
    SourceType::ALL[SourceType::ALL.len() - 1],
    SourceType::Unknown
));

/// Types whose weight may not be positive: a reader trusts these less, not more.
const NEVER_POSITIVE: [SourceType; 5] = [
    SourceType::Forum,
    SourceType::Blog,
    SourceType::Social,
    SourceType::ContentFarm,
    SourceType::Landing,
];

/// Columns: tier, rating − 0.5 (0 when unrated), rated, depth, then one per type.
const COLUMNS: usize = 4 + TYPES.len();

/// L2 penalties tried.
const PENALTIES: [f64; 6] = [0.1, 1.0, 10.0, 100.0, 1_000.0, 10_000.0];

/// One rated claim, ready to fit.
struct Row {
    question: String,
    label: Label,
    /// The mean of its sources' feature vectors.
    x: [f64; COLUMNS],
    /// The same without ratings (a deployment that loads none).
    x_unrated: [f64; COLUMNS],
    /// Baselines, mean over its sources.
    tier: f64,
    gov_edu: f64,
    seed: f64,
    /// Lin et al.'s rating, mean over its rated sources; `None` when none is rated.
    lin: Option<f64>,
    /// The expert's own support label as a number (Complete 2, Partial 1, else 0): not
    /// a source signal, shown for reference.
    support: f64,
}

fn main() -> ExitCode {
    let write = std::env::args().any(|a| a == "--write");
    match run(write) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("credibility_fit: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(write: bool) -> Result<(), String> {
    let dir = Path::new(auc::DEFAULT_CORPUS_DIR);
    let ratings = DomainRatings::load(&dir.join("lin2023_domain_pc1.csv"))
        .map_err(|e| format!("{e} (is ../shared/corpora there?)"))?;
    let mut parsed = Vec::new();
    for name in auc::FILES {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        parsed.push(auc::parse_jsonl(&text));
    }
    let pooled = auc::pool(&parsed.iter().collect::<Vec<_>>());
    let book = auc::score_urls(&pooled.claims);
    let tiers = DomainTiers::builtin();
    let rows: Vec<Row> = pooled
        .claims
        .iter()
        .filter_map(|claim| {
            let links: Vec<&str> = claim
                .urls
                .iter()
                .filter_map(|u| {
                    book.get(u)
                        .and_then(|s| s.as_ref())
                        .map(|s| s.link.as_str())
                })
                .collect();
            row(claim, &links, tiers, &ratings)
        })
        .collect();
    let (half_a, half_b): (Vec<&Row>, Vec<&Row>) =
        rows.iter().partition(|r| in_first_half(&r.question));
    println!(
        "{} claims ({} Reliable, {} Not reliable at all) on {} questions; fit half {} claims, report half {}",
        rows.len(),
        rows.iter().filter(|r| r.label == Label::Reliable).count(),
        rows.iter().filter(|r| r.label == Label::NotReliable).count(),
        rows.iter().map(|r| r.question.as_str()).collect::<std::collections::HashSet<_>>().len(),
        half_a.len(),
        half_b.len()
    );
    let shipped = fit_and_report(
        "fitted on half A, reported on half B (shipped)",
        &half_a,
        &half_b,
    );
    fit_and_report(
        "fitted on half B, reported on half A (check)",
        &half_b,
        &half_a,
    );
    println!("\nweights (half A):\n{}", describe(&shipped));
    if write {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/score/credibility_weights.json");
        let text = serde_json::to_string_pretty(&shipped).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("written to {}", path.display());
    }
    Ok(())
}

/// A claim's row: the mean of its sources' features; `None` without a readable source.
fn row(
    claim: &auc::Claim,
    links: &[&str],
    tiers: &DomainTiers,
    ratings: &DomainRatings,
) -> Option<Row> {
    if links.is_empty() {
        return None;
    }
    let n = links.len() as f64;
    let (mut x, mut x_unrated) = ([0.0; COLUMNS], [0.0; COLUMNS]);
    let (mut tier, mut gov_edu, mut seed) = (0.0, 0.0, 0.0);
    let mut lin = Vec::new();
    for link in links {
        let rated = SourceFeatures::of(link, tiers, Some(ratings), None);
        let unrated = SourceFeatures {
            rating: None,
            ..rated.clone()
        };
        for (target, features) in [(&mut x, &rated), (&mut x_unrated, &unrated)] {
            for (sum, value) in target.iter_mut().zip(vector(features)) {
                *sum += value / n;
            }
        }
        lin.extend(rated.rating);
        tier += rated.tier / n;
        gov_edu += gov_edu_rule(link) / n;
        seed += auc::seed_allowlist_score(link) / n;
    }
    Some(Row {
        question: claim.question.clone(),
        label: claim.label,
        x,
        x_unrated,
        tier,
        gov_edu,
        seed,
        lin: (!lin.is_empty()).then(|| lin.iter().sum::<f64>() / lin.len() as f64),
        support: match claim.support.as_deref() {
            Some("Complete") => 2.0,
            Some("Partial") => 1.0,
            _ => 0.0,
        },
    })
}

/// One source's columns.
fn vector(f: &SourceFeatures) -> [f64; COLUMNS] {
    let mut x = [0.0; COLUMNS];
    x[0] = f.tier;
    x[1] = f.rating.map_or(0.0, |r| r - 0.5);
    x[2] = if f.rating.is_some() { 1.0 } else { 0.0 };
    x[3] = f.path_depth as f64 / MAX_PATH_DEPTH as f64;
    if let Some(i) = TYPES.iter().position(|t| *t == f.source_type) {
        x[4 + i] = 1.0;
    }
    x
}

/// The rule "government and university hosts are credible": 0.9 for `.gov`, `.edu`
/// and their country forms (`gov.uk`, `ac.uk`, `edu.au`), else 0.5.
fn gov_edu_rule(link: &str) -> f64 {
    let host = url::Url::parse(link)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase));
    let Some(host) = host else { return 0.5 };
    let labels: Vec<&str> = host.trim_end_matches('.').split('.').collect();
    let n = labels.len();
    let public = |l: &str| matches!(l, "gov" | "edu" | "ac");
    let listed = (n >= 2 && public(labels[n - 1]))
        || (n >= 3 && labels[n - 1].len() == 2 && public(labels[n - 2]));
    if listed {
        0.9
    } else {
        0.5
    }
}

/// Which half a question is in: FNV-1a of its text, even or odd.
fn in_first_half(question: &str) -> bool {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in question.trim().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash.is_multiple_of(2)
}

/// Fits on `fit`, prints the figures on `report`, returns the weights.
fn fit_and_report(title: &str, fit: &[&Row], report: &[&Row]) -> CredibilityWeights {
    let penalty = choose_penalty(fit);
    let (w, allowed) = fit_constrained(fit, penalty);
    let weights = to_weights(&w, &allowed, penalty, fit.len());
    println!("\n{title}: L2 penalty {penalty} (5-fold CV by question)");
    println!("scorer                                         AUC     95% CI (questions)   claims");
    let line = |name: &str, rows: &[(&str, Label, f64)]| {
        let (pos, neg) = sides(rows);
        let value = auc::auc(&pos, &neg).map_or("—".into(), |v| format!("{v:.3}"));
        let ci = auc::cluster_bootstrap(rows, auc::RESAMPLES, auc::SEED)
            .map_or("—".into(), |i| format!("[{:.3}, {:.3}]", i.low, i.high));
        println!("{name:<47}{value:<8}{ci:<21}{}", rows.len());
    };
    let scored = |score: &dyn Fn(&Row) -> f64| -> Vec<(&str, Label, f64)> {
        report
            .iter()
            .map(|r| (r.question.as_str(), r.label, score(r)))
            .collect()
    };
    line(
        "model, Lin et al. ratings loaded",
        &scored(&|r| predict(&w, &r.x)),
    );
    line(
        "model, no ratings loaded",
        &scored(&|r| predict(&w, &r.x_unrated)),
    );
    line("domain tiers alone (the default)", &scored(&|r| r.tier));
    line(".gov/.edu rule", &scored(&|r| r.gov_edu));
    line("seed allowlist (6 developer domains)", &scored(&|r| r.seed));
    let covered: Vec<(&str, Label, f64)> = report
        .iter()
        .filter_map(|r| r.lin.map(|lin| (r.question.as_str(), r.label, lin)))
        .collect();
    line("Lin et al. alone, on the claims it rates", &covered);
    let covered_model: Vec<(&str, Label, f64)> = report
        .iter()
        .filter(|r| r.lin.is_some())
        .map(|r| (r.question.as_str(), r.label, predict(&w, &r.x)))
        .collect();
    line("model, on the same claims", &covered_model);
    line(
        "for reference: the expert's own support label",
        &scored(&|r| r.support),
    );
    weights
}

fn sides(rows: &[(&str, Label, f64)]) -> (Vec<f64>, Vec<f64>) {
    let pick = |label: Label| rows.iter().filter(|r| r.1 == label).map(|r| r.2).collect();
    (pick(Label::Reliable), pick(Label::NotReliable))
}

/// The linear predictor (the claim's log-odds of "Reliable", up to the intercept).
fn predict(w: &[f64; COLUMNS + 1], x: &[f64; COLUMNS]) -> f64 {
    w[COLUMNS] + x.iter().zip(w).map(|(x, w)| x * w).sum::<f64>()
}

/// The penalty with the best mean AUC over 5 folds of whole questions.
fn choose_penalty(rows: &[&Row]) -> f64 {
    let fold = |r: &Row| {
        let mut hash: u64 = 0x9e37_79b9_7f4a_7c15;
        for byte in r.question.bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        (hash >> 7) % 5
    };
    let mut best = (f64::NEG_INFINITY, PENALTIES[0]);
    for penalty in PENALTIES {
        let mut aucs = Vec::new();
        for k in 0..5 {
            let train: Vec<&Row> = rows.iter().copied().filter(|r| fold(r) != k).collect();
            let test: Vec<&Row> = rows.iter().copied().filter(|r| fold(r) == k).collect();
            let (w, _) = fit_constrained(&train, penalty);
            let scored: Vec<(&str, Label, f64)> = test
                .iter()
                .map(|r| (r.question.as_str(), r.label, predict(&w, &r.x)))
                .collect();
            let (pos, neg) = sides(&scored);
            aucs.extend(auc::auc(&pos, &neg));
        }
        let mean = aucs.iter().sum::<f64>() / aucs.len().max(1) as f64;
        if mean > best.0 {
            best = (mean, penalty);
        }
    }
    best.1
}

/// Fits with the direction constraints: a weight against its direction is fixed at 0
/// and the rest refitted, until none is. Returns the weights (intercept last) and which
/// columns stayed free.
fn fit_constrained(rows: &[&Row], penalty: f64) -> ([f64; COLUMNS + 1], [bool; COLUMNS]) {
    let mut allowed = [true; COLUMNS];
    loop {
        let w = fit_logistic(rows, penalty, &allowed);
        let mut changed = false;
        for (i, free) in allowed.iter_mut().enumerate() {
            if *free && against_direction(i, w[i]) {
                *free = false;
                changed = true;
            }
        }
        if !changed {
            return (w, allowed);
        }
    }
}

/// Whether column `i`'s weight `w` points the way it may not.
fn against_direction(i: usize, w: f64) -> bool {
    match i {
        0 | 1 => w < 0.0,
        _ if i >= 4 => NEVER_POSITIVE.contains(&TYPES[i - 4]) && w > 0.0,
        _ => false,
    }
}

/// Class-balanced, L2-penalised logistic regression by gradient descent; the tier and
/// the intercept are not penalised (the tier is the anchor the other signals move), so
/// a larger penalty pulls the model towards the tiers alone. Columns not `allowed`
/// stay 0.
fn fit_logistic(rows: &[&Row], penalty: f64, allowed: &[bool; COLUMNS]) -> [f64; COLUMNS + 1] {
    let positives = rows
        .iter()
        .filter(|r| r.label == Label::Reliable)
        .count()
        .max(1) as f64;
    let negatives = (rows.len() as f64 - positives).max(1.0);
    let total = rows.len().max(1) as f64;
    let weight_of = |label: Label| match label {
        Label::Reliable => total / (2.0 * positives),
        Label::NotReliable => total / (2.0 * negatives),
    };
    let mut w = [0.0; COLUMNS + 1];
    let rate = 0.5;
    for _ in 0..4_000 {
        let mut gradient = [0.0; COLUMNS + 1];
        for r in rows {
            let y = if r.label == Label::Reliable { 1.0 } else { 0.0 };
            let p = 1.0 / (1.0 + (-predict(&w, &r.x)).exp());
            let e = (p - y) * weight_of(r.label);
            for (g, x) in gradient.iter_mut().zip(r.x) {
                *g += e * x;
            }
            gradient[COLUMNS] += e;
        }
        for i in 0..=COLUMNS {
            let mut step = gradient[i] / total;
            if i < COLUMNS {
                if !allowed[i] {
                    w[i] = 0.0;
                    continue;
                }
                if i > 0 {
                    step += penalty * w[i] / total;
                }
            }
            w[i] -= rate * step;
        }
    }
    w
}

fn to_weights(
    w: &[f64; COLUMNS + 1],
    allowed: &[bool; COLUMNS],
    penalty: f64,
    rows: usize,
) -> CredibilityWeights {
    let round = |x: f64| (x * 1e4).round() / 1e4;
    let dropped: Vec<String> = (0..COLUMNS)
        .filter(|&i| !allowed[i])
        .map(column_name)
        .collect();
    CredibilityWeights {
        tier: round(w[0].max(1e-4)),
        rating: round(w[1]),
        rated: round(w[2]),
        path_depth: round(w[3]),
        types: TYPES
            .iter()
            .enumerate()
            .filter(|(i, _)| w[4 + i] != 0.0)
            .map(|(i, t)| (*t, round(w[4 + i])))
            .collect::<BTreeMap<_, _>>(),
        fitted: format!(
            "examples/credibility_fit.rs: class-balanced logistic regression, L2 {penalty}, on {rows} ExpertQA claims (half A of the questions); dropped against their direction: {}",
            if dropped.is_empty() { "none".into() } else { dropped.join(", ") }
        ),
    }
}

fn column_name(i: usize) -> String {
    match i {
        0 => "tier".into(),
        1 => "rating".into(),
        2 => "rated".into(),
        3 => "path_depth".into(),
        _ => TYPES[i - 4].as_str().into(),
    }
}

fn describe(weights: &CredibilityWeights) -> String {
    let probe = |label: &str, f: SourceFeatures| {
        format!(
            "  {label:<40} {:+.3} tier points",
            weights.adjustments(&f).total()
        )
    };
    let base = SourceFeatures {
        tier: 0.5,
        rating: None,
        source_type: SourceType::Unknown,
        path_depth: 0,
    };
    let mut lines = vec![format!(
        "  tier weight {:.3} (log-odds per point); {}",
        weights.tier, weights.fitted
    )];
    lines.push(probe(
        "rated 0.9 by Lin et al.",
        SourceFeatures {
            rating: Some(0.9),
            ..base.clone()
        },
    ));
    lines.push(probe(
        "rated 0.2 by Lin et al.",
        SourceFeatures {
            rating: Some(0.2),
            ..base.clone()
        },
    ));
    lines.push(probe(
        "path 3 segments deep",
        SourceFeatures {
            path_depth: 3,
            ..base.clone()
        },
    ));
    for &t in TYPES {
        lines.push(probe(
            t.as_str(),
            SourceFeatures {
                source_type: t,
                ..base.clone()
            },
        ));
    }
    lines.join("\n")
}

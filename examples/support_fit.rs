//! Fits the support scorer's model and reports how often it agrees with experts.
//!
//! Data: the two ExpertQA validation splits in `../shared/corpora`
//! (`expertqa_domain_val.jsonl`, `expertqa_rand_val.jsonl`; MIT, Malaviya et al. 2024).
//! Every claim with evidence passages and an expert `support` label is used:
//! "Complete" counts as supported; "Partial", "Incomplete" and "N/A" as not; "Missing"
//! (no evidence) is left out. The model is fitted on one split and reported on the
//! other — never on what it was fitted on — in both directions; the cut-offs are chosen
//! on the fitting split too. Beside it, in the same run: "always supported", and plain
//! content-word recall with its best cut-off (chosen on the fitting split, and the best
//! possible on the reported split for reference).
//!
//! ```text
//! cargo run --release --example support_fit            # report only
//! cargo run --release --example support_fit -- --write # also write src/support/weights.json
//! ```
//!
//! `--write` keeps the model fitted on the domain split (reported on the random split).

#[path = "../tests/support/auc.rs"]
mod auc;

use serde_json::Value;
use sourcebot::support::features::{features, FEATURE_NAMES};
use sourcebot::support::model::{fit, Model};
use sourcebot::support::passages::Page;
use sourcebot::support::text::strip_evidence_header;
use sourcebot::support::SupportScorer;
use std::path::Path;
use std::time::Instant;

/// The L2 penalty on the weights (`--l2 X`; chosen by cross-validation on the domain
/// split).
fn l2() -> f64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--l2")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_L2)
}

const DEFAULT_L2: f64 = 1.0;

/// One labelled claim.
struct Claim {
    text: String,
    evidence: Vec<String>,
    label: String,
}

impl Claim {
    fn supported(&self) -> bool {
        self.label == "Complete"
    }
}

fn load(path: &Path) -> anyhow::Result<Vec<Claim>> {
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
                    label: label.to_string(),
                });
            }
        }
    }
    Ok(claims)
}

fn measure(claims: &[Claim]) -> Vec<Vec<f64>> {
    claims
        .iter()
        .map(|c| {
            let passages: Vec<&str> = c.evidence.iter().map(String::as_str).collect();
            features(&c.text, &Page::new(&passages)).values.to_vec()
        })
        .collect()
}

/// ROC AUC of `scores` for `labels` (ties count half), as the credibility measurement
/// computes it.
fn roc_auc(scores: &[f64], labels: &[bool]) -> f64 {
    let pick = |wanted: bool| -> Vec<f64> {
        scores
            .iter()
            .zip(labels)
            .filter(|(_, l)| **l == wanted)
            .map(|(s, _)| *s)
            .collect()
    };
    let (pos, neg) = (pick(true), pick(false));
    auc::auc(&pos, &neg).unwrap_or(0.5)
}

/// Balanced accuracy of "score ≥ cut means supported".
fn balanced_accuracy(scores: &[f64], labels: &[bool], cut: f64) -> f64 {
    let (mut tp, mut p, mut tn, mut n) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (s, l) in scores.iter().zip(labels) {
        if *l {
            p += 1.0;
            if *s >= cut {
                tp += 1.0;
            }
        } else {
            n += 1.0;
            if *s < cut {
                tn += 1.0;
            }
        }
    }
    (tp / p.max(1.0) + tn / n.max(1.0)) / 2.0
}

/// The cut-off with the best balanced accuracy on `scores`.
fn best_cut(scores: &[f64], labels: &[bool]) -> f64 {
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

struct Row {
    name: String,
    balanced_accuracy: f64,
    auc: f64,
}

/// Fits on `fit_claims`, reports on `report_claims`; the model and the table rows.
fn run(
    fit_name: &str,
    fit_claims: &[Claim],
    report_name: &str,
    report_claims: &[Claim],
) -> (Model, Vec<Row>) {
    let fit_rows = measure(fit_claims);
    let fit_labels: Vec<bool> = fit_claims.iter().map(Claim::supported).collect();
    let mut model = fit(
        &fit_rows,
        &fit_labels,
        l2(),
        &format!(
            "ExpertQA {fit_name} ({} claims with evidence; Complete = supported)",
            fit_claims.len()
        ),
    );
    let fit_scorer = SupportScorer::with_model(model.clone());
    let fit_scores: Vec<f64> = fit_rows.iter().map(|r| fit_scorer.probability(r)).collect();
    model.supported_at = best_cut(&fit_scores, &fit_labels);
    // "Partly": what separates claims with some support (Partial, Incomplete) from
    // none (N/A), among those below the supported cut.
    let (partial_scores, partial_labels): (Vec<f64>, Vec<bool>) = fit_claims
        .iter()
        .zip(&fit_scores)
        .filter(|(c, s)| !c.supported() && **s < model.supported_at)
        .map(|(c, s)| (*s, c.label != "N/A"))
        .unzip();
    model.partly_at = best_cut(&partial_scores, &partial_labels).min(model.supported_at);

    let report_rows = measure(report_claims);
    let labels: Vec<bool> = report_claims.iter().map(Claim::supported).collect();
    let scorer = SupportScorer::with_model(model.clone());
    let scores: Vec<f64> = report_rows.iter().map(|r| scorer.probability(r)).collect();
    let recall_index = FEATURE_NAMES
        .iter()
        .position(|n| *n == "recall_page")
        .unwrap_or(0);
    let recall_fit: Vec<f64> = fit_rows.iter().map(|r| r[recall_index]).collect();
    let recall_report: Vec<f64> = report_rows.iter().map(|r| r[recall_index]).collect();
    let recall_cut = best_cut(&recall_fit, &fit_labels);
    let recall_oracle = best_cut(&recall_report, &labels);
    let rows = vec![
        Row {
            name: format!("sourcebot (fit on {fit_name}, reported on {report_name})"),
            balanced_accuracy: balanced_accuracy(&scores, &labels, model.supported_at),
            auc: roc_auc(&scores, &labels),
        },
        Row {
            name: "always supported".into(),
            balanced_accuracy: 0.5,
            auc: 0.5,
        },
        Row {
            name: format!("content-word recall, cut {recall_cut:.2} from {fit_name}"),
            balanced_accuracy: balanced_accuracy(&recall_report, &labels, recall_cut),
            auc: roc_auc(&recall_report, &labels),
        },
        Row {
            name: format!("content-word recall, best cut on {report_name} ({recall_oracle:.2})"),
            balanced_accuracy: balanced_accuracy(&recall_report, &labels, recall_oracle),
            auc: roc_auc(&recall_report, &labels),
        },
    ];
    (model, rows)
}

fn main() -> anyhow::Result<()> {
    let write = std::env::args().any(|a| a == "--write");
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let domain_path = corpora.join("expertqa_domain_val.jsonl");
    let random_path = corpora.join("expertqa_rand_val.jsonl");
    if !domain_path.exists() || !random_path.exists() {
        println!(
            "NOTICE: {} not found: nothing to fit or report.",
            corpora.display()
        );
        return Ok(());
    }
    let domain = load(&domain_path)?;
    let random = load(&random_path)?;
    let share = |c: &[Claim]| c.iter().filter(|c| c.supported()).count() as f64 / c.len() as f64;
    println!(
        "claims with evidence: domain split {} ({:.0}% supported), random split {} ({:.0}% supported)",
        domain.len(),
        share(&domain) * 100.0,
        random.len(),
        share(&random) * 100.0
    );
    // Choices (features, penalty) are made on this figure alone: 5-fold
    // cross-validation inside the domain split, the reported split never looked at.
    let rows_domain = measure(&domain);
    let labels_domain: Vec<bool> = domain.iter().map(Claim::supported).collect();
    let (mut cv_scores, mut cv_labels, mut cv_ba) = (Vec::new(), Vec::new(), Vec::new());
    for fold in 0..5 {
        let split = |keep: bool| -> (Vec<Vec<f64>>, Vec<bool>) {
            rows_domain
                .iter()
                .zip(&labels_domain)
                .enumerate()
                .filter(|(i, _)| (i % 5 == fold) != keep)
                .map(|(_, (r, l))| (r.clone(), *l))
                .unzip()
        };
        let (train_rows, train_labels) = split(true);
        let (test_rows, test_labels) = split(false);
        let model = SupportScorer::with_model(fit(&train_rows, &train_labels, l2(), "cv"));
        let train_scores: Vec<f64> = train_rows.iter().map(|r| model.probability(r)).collect();
        let cut = best_cut(&train_scores, &train_labels);
        let scores: Vec<f64> = test_rows.iter().map(|r| model.probability(r)).collect();
        cv_ba.push(balanced_accuracy(&scores, &test_labels, cut));
        cv_scores.extend(scores);
        cv_labels.extend(test_labels);
    }
    println!(
        "5-fold cross-validation on the domain split: balanced accuracy {:.3}, ROC AUC {:.3}",
        cv_ba.iter().sum::<f64>() / cv_ba.len() as f64,
        roc_auc(&cv_scores, &cv_labels)
    );
    if std::env::args().any(|a| a == "--features") {
        for (i, name) in FEATURE_NAMES.iter().enumerate() {
            let column: Vec<f64> = rows_domain.iter().map(|r| r[i]).collect();
            println!("  {name:>20} AUC {:.3}", roc_auc(&column, &labels_domain));
        }
    }
    if std::env::args().any(|a| a == "--cv-only") {
        return Ok(());
    }
    let (model, rows) = run("domain split", &domain, "random split", &random);
    let (_, reverse) = run("random split", &random, "domain split", &domain);
    println!();
    println!("| method | balanced accuracy | ROC AUC |");
    println!("|---|---|---|");
    for row in rows.iter().chain(&reverse) {
        println!(
            "| {} | {:.3} | {:.3} |",
            row.name, row.balanced_accuracy, row.auc
        );
    }
    println!();
    println!(
        "cut-offs (from the domain split): supported ≥ {:.3}, partly ≥ {:.3}",
        model.supported_at, model.partly_at
    );
    for (name, weight) in FEATURE_NAMES.iter().zip(&model.weights) {
        println!("  {name:>20} {weight:+.3}");
    }

    // Speed: every claim of both splits, as `sourcebot support` scores them.
    let scorer = SupportScorer::with_model(model.clone());
    let started = Instant::now();
    let mut scored = 0usize;
    for claim in domain.iter().chain(&random) {
        let passages: Vec<&str> = claim.evidence.iter().map(String::as_str).collect();
        std::hint::black_box(scorer.score(&claim.text, &passages));
        scored += 1;
    }
    let elapsed = started.elapsed();
    println!(
        "\nscored {scored} claims in {:.0} ms on one core ({:.0} claims/s)",
        elapsed.as_secs_f64() * 1000.0,
        scored as f64 / elapsed.as_secs_f64()
    );

    if write {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/support/weights.json");
        std::fs::write(&path, serde_json::to_string_pretty(&model)? + "\n")?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

//! Claim support on real claims judged by others, held to the figures docs/support.md prints
//! (`cargo run --release --example support_fit` prints them all): on WiCE's development
//! split (Wikipedia sentences judged against the whole article they cite), `missing`
//! lists words the annotators marked unsupported with precision ≥ 0.85 and finds at
//! least 40 in 100 of them; the verdict, fitted and reported by 5-fold cross-validation,
//! reaches a balanced accuracy of at least 0.75, beats the one-line rule in the same
//! run however the folds are dealt (and by 0.015 on average), and its "not supported"
//! holds (the claim is not fully supported) at least 85 times in 100. Skipped with a notice when `../shared/corpora` is absent.

#[path = "support/support_eval.rs"]
mod support_eval;

use std::path::{Path, PathBuf};
use support_eval::*;

fn corpus(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora")
        .join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "NOTICE: {} is absent: the WiCE support figures are not checked",
            path.display()
        );
        None
    }
}

#[test]
fn missing_words_are_the_annotated_unsupported_words() {
    let Some(path) = corpus("wice_tokens_dev.jsonl") else {
        return;
    };
    let figures = missing_figures(&path).expect("WiCE tokens");
    eprintln!(
        "missing: {} words listed, precision {:.3}, recall {:.3} of {} annotated content words",
        figures.listed,
        figures.precision(),
        figures.recall(),
        figures.annotated_content
    );
    assert_eq!(figures.claims, 124);
    assert!(figures.listed >= 80, "{} words listed", figures.listed);
    assert!(
        figures.precision() >= 0.85,
        "precision {:.3}",
        figures.precision()
    );
    assert!(figures.recall() >= 0.40, "recall {:.3}", figures.recall());
}

#[test]
fn verdicts_hold_on_wice_held_out() {
    let Some(path) = corpus("wice_claim_dev.jsonl") else {
        return;
    };
    let wice = load_wice(&path).expect("WiCE claims");
    assert_eq!(wice.len(), 349);
    let rows = measure(&wice);
    let model = cross_validated(&rows, &wice, None);
    let (mean, low, high) = spread(&repeated_cross_validation(&rows, &wice));
    let rule = rule_calls(&wice);
    eprintln!(
        "WiCE, 5-fold: balanced accuracy {:.4} (one-line rule {:.4}); over {FOLD_ASSIGNMENTS} fold assignments {mean:.4} ({low:.4}-{high:.4}); \"not supported\" {} times, {:.3} not fully supported",
        model.balanced_accuracy, rule.balanced_accuracy, model.said_not, model.not_precision
    );
    assert!(
        model.balanced_accuracy >= 0.75,
        "{:.4}",
        model.balanced_accuracy
    );
    // One split's figure moves with the few claims at the cut: every way of dealing
    // the folds must beat the rule, and on average by a clear margin.
    assert!(
        low > rule.balanced_accuracy && mean >= rule.balanced_accuracy + 0.015,
        "the one-line rule ({:.3}) is not beaten: mean {mean:.3}, lowest {low:.3}",
        rule.balanced_accuracy
    );
    assert!(mean >= 0.735, "mean over fold assignments {mean:.3}");
    assert!(
        model.said_not >= 50,
        "\"not supported\" said {} times",
        model.said_not
    );
    assert!(model.not_precision >= 0.85, "{:.3}", model.not_precision);
}

//! Claim support on real claims judged by others, held to the figures docs/support.md
//! prints (`cargo run --release --example support_fit` prints them all). On WiCE's
//! development split (Wikipedia sentences judged against the whole article they cite),
//! `missing` lists words the annotators marked unsupported with precision ≥ 0.85 and
//! finds at least 40 in 100 of them. Over the source sets of the three development sets
//! (WiCE, AttributionBench, ExpertQA), the verdict of a model fitted on the other two
//! sets beats word overlap and the one-line rule in the same run on average and on every
//! source set but LFQA, where it equals word overlap (no cut of either score does better
//! on LFQA's 110 claims: docs/support.md says so), and its "not supported" holds (the
//! claim is not fully supported) at least 88 times in 100 wherever it is said ten times
//! or more, ExpertQA aside. Skipped with a notice when `../shared/corpora` is absent.

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
fn verdicts_hold_on_each_development_set_left_out() {
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let claims = match load_dev_sets(&corpora).expect("development sets") {
        Ok(claims) => claims,
        Err(absent) => {
            eprintln!(
                "NOTICE: {} is absent: the support figures are not checked",
                absent.display()
            );
            return;
        }
    };
    let rows = measure(&claims);
    let left_out = left_out_calls(&rows, &claims, None);
    let overlap = overlap_calls(&claims, true);
    let rule = rule_calls_all(&claims);
    let mut failures = Vec::new();
    let mean = |calls: &Calls| {
        SETS.iter()
            .map(|set| calls.on_set(&claims, set).balanced_accuracy)
            .sum::<f64>()
            / SETS.len() as f64
    };
    for set in SETS {
        let model = left_out.on_set(&claims, set);
        let words = overlap.on_set(&claims, set);
        let simple = rule.on_set(&claims, set);
        eprintln!(
            "{set}, left out: balanced accuracy {:.3} (word overlap {:.3}, one-line rule {:.3}); \"not supported\" {} times, {:.3} right",
            model.balanced_accuracy,
            words.balanced_accuracy,
            simple.balanced_accuracy,
            model.said_not,
            model.not_precision
        );
        // The judge beats both baselines, except on LFQA, where it may equal the better.
        let better = words.balanced_accuracy.max(simple.balanced_accuracy);
        let beaten = if set == "LFQA" {
            model.balanced_accuracy >= better
        } else {
            model.balanced_accuracy > better
        };
        if !beaten {
            failures.push(format!(
                "{set}: {:.3} against a baseline's {better:.3}",
                model.balanced_accuracy
            ));
        }
        // ExpertQA's experts called most claims complete whatever the evidence's words:
        // there "not supported" holds about as often as the base rate says (documented).
        if set != "ExpertQA" && model.said_not >= 10 && model.not_precision < 0.88 {
            failures.push(format!(
                "{set}: \"not supported\" right {:.3}",
                model.not_precision
            ));
        }
    }
    let (model, words, simple) = (mean(&left_out), mean(&overlap), mean(&rule));
    eprintln!("mean over the source sets, left out: {model:.3} (word overlap {words:.3}, one-line rule {simple:.3})");
    if model <= words || model <= simple {
        failures.push(format!(
            "mean {model:.3} does not beat {words:.3} and {simple:.3}"
        ));
    }
    let wice = left_out.on_set(&claims, "WiCE");
    assert!(
        wice.said_not >= 30,
        "\"not supported\" said {} times on WiCE",
        wice.said_not
    );
    assert!(failures.is_empty(), "{failures:?}");
}

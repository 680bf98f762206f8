//! Fits the support scorer's model and reports how often its verdicts agree with people
//! who judged claims against their sources, beside the simplest rule, in one run.
//!
//! Data (in `../shared/corpora`, development sets only):
//! - ExpertQA's two validation splits (`expertqa_domain_val.jsonl`,
//!   `expertqa_rand_val.jsonl`; MIT, Malaviya et al. 2024): every claim with evidence
//!   passages and an expert `support` label; "Complete" is supported, "Partial",
//!   "Incomplete" and "N/A" are not; "Missing" (no evidence) is left out.
//! - WiCE's development split (`wice_claim_dev.jsonl`; Kamoi et al. 2023): Wikipedia
//!   sentences judged against the whole article they cite; `supported` is supported,
//!   `partially_supported` and `not_supported` are not. `wice_tokens_dev.jsonl` marks
//!   the words of 124 claims the article does not support: it measures `missing`.
//!
//! Every figure is reported on claims the model was not fitted on: fitted on one data
//! set and reported on the other, both ways; within ExpertQA fitted on one split and
//! reported on the other; within WiCE by 5-fold cross-validation. The shipped model
//! (`--write`) is fitted on WiCE, whose claims are judged against the whole article
//! they cite — sourcebot's situation once it has read a page — and reported on both
//! ExpertQA splits (never fitted on them) and, by 5-fold cross-validation, on WiCE —
//! once with claim `i` in fold `i % 5`, and over eight ways of dealing the folds, whose
//! mean and range say how far one split's figure can be trusted. A model fitted on
//! ExpertQA and WiCE together is in the table too. Cut-offs come from the fitting
//! data: `supported` at the share of supported claims (the base rate), `not supported`
//! below the highest score at which 95 in 100 of the fitting claims under it are indeed
//! not supported.
//!
//! The one-line rule beside it: "supported unless a number or a capitalised word of the
//! claim never appears in the evidence".
//!
//! ```text
//! cargo run --release --example support_fit            # report only
//! cargo run --release --example support_fit -- --write # also write src/support/weights.json
//! cargo run --release --example support_fit -- --feedback feedback.jsonl
//! ```
//!
//! `--feedback FILE` also reads what people said in Slack about the verdicts sourcebot
//! showed them (`sourcebot feedback export`): per verdict, how many claims were under a
//! 👍, under a 👎 that said "a claim's verdict" was wrong, and under any other 👎.

#[path = "../tests/support/support_eval.rs"]
mod support_eval;

use sourcebot::support::features::FEATURE_NAMES;
use std::path::Path;
use std::time::Instant;
use support_eval::*;

fn print_row(name: &str, scored: &Scored) {
    let auc = scored.auc.map_or("—".to_string(), |a| format!("{a:.3}"));
    println!(
        "| {name} | {:.3} | {auc} | {} | {:.3} | {:.3} |",
        scored.balanced_accuracy, scored.said_not, scored.not_precision, scored.none_precision
    );
}

/// `--feedback FILE`: per verdict shown, the claims people gave 👍, 👎 for a claim's
/// verdict, and 👎 for something else.
fn print_feedback(path: &str) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    let votes = sourcebot::install::feedback_export::claim_votes(&text)
        .map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    println!(
        "feedback from Slack ({path}): {} claim verdicts in reports people voted on",
        votes.len()
    );
    println!(
        "  {:>17} {:>6} {:>18} {:>12}",
        "verdict shown", "👍", "👎 claim verdict", "👎 other"
    );
    for verdict in [
        "supported",
        "partly supported",
        "not supported",
        "unreadable",
    ] {
        let of = |keep: &dyn Fn(&sourcebot::install::feedback_export::ClaimVote) -> bool| {
            votes
                .iter()
                .filter(|v| v.verdict == verdict && keep(v))
                .count()
        };
        println!(
            "  {verdict:>17} {:>6} {:>18} {:>12}",
            of(&|v| v.vote == "up"),
            of(&|v| v.vote == "down" && v.wrong.as_deref() == Some("claim_verdict")),
            of(&|v| v.vote == "down" && v.wrong.as_deref() != Some("claim_verdict")),
        );
    }
    println!();
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let write = std::env::args().any(|a| a == "--write");
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--feedback") {
        let Some(path) = args.get(at + 1) else {
            anyhow::bail!("--feedback needs a file: sourcebot feedback export > feedback.jsonl");
        };
        print_feedback(path)?;
    }
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let paths = [
        corpora.join("expertqa_domain_val.jsonl"),
        corpora.join("expertqa_rand_val.jsonl"),
        corpora.join("wice_claim_dev.jsonl"),
        corpora.join("wice_tokens_dev.jsonl"),
    ];
    if let Some(absent) = paths.iter().find(|p| !p.exists()) {
        println!(
            "NOTICE: {} not found: nothing to fit or report.",
            absent.display()
        );
        return Ok(());
    }
    let m = missing_figures(&paths[3])?;
    println!(
        "missing on WiCE's annotated claims ({}): {} words listed, precision {:.3}; \
         recall {:.3} of the annotated content words ({}), {:.3} of all annotated tokens ({}); \
         {} of {} claims get at least one right word",
        m.claims,
        m.listed,
        m.precision(),
        m.recall(),
        m.annotated_content,
        m.right as f64 / m.annotated.max(1) as f64,
        m.annotated,
        m.claims_with_right,
        m.claims
    );
    let domain = load_expertqa(&paths[0])?;
    let random = load_expertqa(&paths[1])?;
    let wice = load_wice(&paths[2])?;
    let share = |c: &[Claim]| c.iter().filter(|c| c.supported).count() as f64 / c.len() as f64;
    println!(
        "claims: ExpertQA domain {} ({:.0}% supported), random {} ({:.0}%), WiCE {} ({:.0}%)",
        domain.len(),
        share(&domain) * 100.0,
        random.len(),
        share(&random) * 100.0,
        wice.len(),
        share(&wice) * 100.0
    );
    let started = Instant::now();
    let rows_domain = measure(&domain);
    let rows_random = measure(&random);
    let rows_wice = measure(&wice);
    let measured_in = started.elapsed();

    let expertqa: Vec<Claim> = domain.iter().chain(&random).cloned().collect();
    let rows_expertqa: Vec<Vec<f64>> = rows_domain.iter().chain(&rows_random).cloned().collect();
    let on_domain = fit_model(&rows_domain, &domain, "ExpertQA domain split");
    let on_random = fit_model(&rows_random, &random, "ExpertQA random split");
    let mut combined_rows = rows_domain.clone();
    combined_rows.extend(rows_wice.iter().cloned());
    let mut combined_claims = domain.clone();
    combined_claims.extend(wice.iter().cloned());
    let combined = fit_model(
        &combined_rows,
        &combined_claims,
        "ExpertQA domain split and WiCE dev",
    );
    let shipped = fit_model(
        &rows_wice,
        &wice,
        &format!(
            "WiCE dev ({} claims, each against the whole article it cites; supported = supported)",
            wice.len()
        ),
    );
    println!();
    println!("| method, reported on | balanced accuracy | ROC AUC | said \"not supported\" | of which not fully supported | of which supported in no part |");
    println!("|---|---|---|---|---|---|");
    println!("| **WiCE dev** | | | | | |");
    print_row(
        "**shipped: fitted on WiCE (5-fold, each fold held out)**",
        &cross_validated(&rows_wice, &wice, None),
    );
    let (mean, low, high) = spread(&repeated_cross_validation(&rows_wice, &wice));
    println!(
        "| shipped, {FOLD_ASSIGNMENTS} ways of dealing the folds: mean (lowest–highest) | {mean:.3} ({low:.3}–{high:.3}) | | | | |"
    );
    print_row("fitted on ExpertQA (both splits)", &{
        let model = fit_model(&rows_expertqa, &expertqa, "ExpertQA");
        model_calls(&model, &rows_wice, &wice)
    });
    print_row(
        "fitted on ExpertQA domain + WiCE (5-fold over WiCE)",
        &cross_validated(&rows_wice, &wice, Some((&rows_domain, &domain))),
    );
    print_row("one-line rule", &rule_calls(&wice));
    println!("| **ExpertQA random split** | | | | | |");
    print_row(
        "**shipped: fitted on WiCE**",
        &model_calls(&shipped, &rows_random, &random),
    );
    print_row(
        "fitted on ExpertQA domain",
        &model_calls(&on_domain, &rows_random, &random),
    );
    print_row(
        "fitted on ExpertQA domain + WiCE",
        &model_calls(&combined, &rows_random, &random),
    );
    print_row("one-line rule", &rule_calls(&random));
    println!("| **ExpertQA domain split** | | | | | |");
    print_row(
        "**shipped: fitted on WiCE**",
        &model_calls(&shipped, &rows_domain, &domain),
    );
    print_row(
        "fitted on ExpertQA random",
        &model_calls(&on_random, &rows_domain, &domain),
    );
    print_row("one-line rule", &rule_calls(&domain));
    println!();
    println!(
        "shipped cut-offs: supported ≥ {:.3}, not supported < {:.3} (partly supported between)",
        shipped.supported_at, shipped.partly_at
    );
    for (name, weight) in FEATURE_NAMES.iter().zip(&shipped.weights) {
        println!("  {name:>20} {weight:+.3}");
    }
    if std::env::args().any(|a| a == "--weights") {
        for (label, model) in [("WiCE", &shipped), ("ExpertQA domain", &on_domain)] {
            println!(
                "fitted on {label}: supported ≥ {:.3}, not < {:.3}",
                model.supported_at, model.partly_at
            );
            for (name, weight) in FEATURE_NAMES.iter().zip(&model.weights) {
                println!("  {name:>20} {weight:+.3}");
            }
        }
        let labels: Vec<bool> = wice.iter().map(|c| c.supported).collect();
        for (i, name) in FEATURE_NAMES.iter().enumerate() {
            let column: Vec<f64> = rows_wice.iter().map(|r| r[i]).collect();
            let labels_e: Vec<bool> = expertqa.iter().map(|c| c.supported).collect();
            let column_e: Vec<f64> = rows_expertqa.iter().map(|r| r[i]).collect();
            println!(
                "  {name:>20} AUC WiCE {:.3} ExpertQA {:.3}",
                roc_auc(&column, &labels),
                roc_auc(&column_e, &labels_e)
            );
        }
    }
    let claims = domain.len() + random.len() + wice.len();
    println!(
        "\nmeasured {claims} claims in {:.0} ms on one core ({:.0} claims/s)",
        measured_in.as_secs_f64() * 1000.0,
        claims as f64 / measured_in.as_secs_f64()
    );
    if write {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/support/weights.json");
        std::fs::write(&path, serde_json::to_string_pretty(&shipped)? + "\n")?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

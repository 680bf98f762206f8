//! Fits the support scorer's model on three development sets written by others and
//! reports, per source set, how often its verdicts agree with the people who judged the
//! claims, beside the two simplest baselines, in one run.
//!
//! Data (in `../shared/corpora`, development splits only; nothing here reads a test
//! split):
//! - WiCE dev (`wice_claim_dev.jsonl`; Kamoi et al. 2023): Wikipedia sentences judged
//!   against the whole article they cite; `supported` is supported, `partially_supported`
//!   and `not_supported` are not. `wice_tokens_dev.jsonl` marks the words of 124 claims
//!   the article does not support: it measures `missing`.
//! - AttributionBench dev (`attributionbench_dev.jsonl`; Li et al. 2024): claims from
//!   Stanford-GenSearch (Bing Chat, NeevaAI, perplexity.ai, YouChat), AttributedQA and
//!   LFQA, each against the passages annotators took from its cited pages;
//!   `attributable` is supported. Its ExpertQA rows are read from ExpertQA itself.
//! - ExpertQA's two validation splits (`expertqa_domain_val.jsonl`,
//!   `expertqa_rand_val.jsonl`; MIT, Malaviya et al. 2024): claims with evidence passages
//!   and an expert `support` label; "Complete" is supported, "Partial", "Incomplete" and
//!   "N/A" are not; "Missing" (no evidence) is left out.
//!
//! The model is fitted on all three together, each set weighing the same and, within a
//! set, supported and unsupported claims weighing the same. "Supported" is at 0.5;
//! "not supported" is below the highest score at which, in every set fitted on, 95 in
//! 100 of the claims under it are indeed not supported. Three figures per source set:
//! - **left out**: fitted on the other two sets, measured on this one. This is the
//!   figure that predicts answers no one here has seen.
//! - **5-fold**: fitted on four fifths of every set, measured on the fifth.
//! - **in sample**: the shipped model, fitted on everything.
//!
//! The baselines, in the same run:
//! - **word overlap**: the share of the claim's content words that the evidence holds,
//!   cut where it best splits the fitting sets (the other two sets when left out).
//! - **the one-line rule**: "supported unless a number or a capitalised word of the
//!   claim never appears in the evidence".
//!
//! ```text
//! cargo run --release --example support_fit              # report only
//! cargo run --release --example support_fit -- --write   # also write src/support/weights.json
//! cargo run --release --example support_fit -- --features # each feature alone, and left out
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

fn print_row(set: &str, name: &str, scored: &Scored) {
    let auc = scored.auc.map_or("—".to_string(), |a| format!("{a:.3}"));
    let precision = if scored.said_not == 0 {
        "—".to_string()
    } else {
        format!("{:.3}", scored.not_precision)
    };
    println!(
        "| {set} | {name} | {:.3} | {auc} | {:.0}% | {} | {precision} |",
        scored.balanced_accuracy,
        scored.said_supported * 100.0,
        scored.said_not
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
    let args: Vec<String> = std::env::args().collect();
    let write = args.iter().any(|a| a == "--write");
    if let Some(at) = args.iter().position(|a| a == "--feedback") {
        let Some(path) = args.get(at + 1) else {
            anyhow::bail!("--feedback needs a file: sourcebot feedback export > feedback.jsonl");
        };
        print_feedback(path)?;
    }
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let claims = match load_dev_sets(&corpora)? {
        Ok(claims) => claims,
        Err(absent) => {
            println!(
                "NOTICE: {} not found: nothing to fit or report.",
                absent.display()
            );
            return Ok(());
        }
    };
    let tokens = corpora.join("wice_tokens_dev.jsonl");
    if tokens.exists() {
        let m = missing_figures(&tokens)?;
        println!(
            "missing on WiCE's annotated claims ({}): {} words listed, precision {:.3}; \
             recall {:.3} of the annotated content words ({}); {} of {} claims get at least one right word",
            m.claims,
            m.listed,
            m.precision(),
            m.recall(),
            m.annotated_content,
            m.claims_with_right,
            m.claims
        );
    }
    for set in SETS {
        let of: Vec<&Claim> = claims.iter().filter(|c| c.set == set).collect();
        let supported = of.iter().filter(|c| c.supported).count();
        println!(
            "{set}: {} claims, {:.0}% supported",
            of.len(),
            100.0 * supported as f64 / of.len().max(1) as f64
        );
    }
    let started = Instant::now();
    let rows = measure(&claims);
    let measured_in = started.elapsed();

    for set in SETS {
        let (with, supported) = rows
            .iter()
            .zip(&claims)
            .filter(|(r, c)| c.set == set && r[DIFFERS] > 0.0)
            .fold((0, 0), |(n, s), (_, c)| {
                (n + 1, s + usize::from(c.supported))
            });
        println!("{set}: the page gives a figure differently (differs) for {with} claims, {supported} of them labelled supported");
    }
    let shipped = fit_model(
        &rows,
        &claims,
        &format!(
            "WiCE dev, AttributionBench dev (without its ExpertQA rows) and ExpertQA validation ({} claims; each set and each label weighing the same)",
            claims.len()
        ),
    );
    let left_out = left_out_calls(&rows, &claims, None);
    let folded = cross_validated_calls(&rows, &claims);
    let in_sample = calls_of(&shipped, &rows);
    let overlap_out = overlap_calls(&claims, true);
    let overlap_in = overlap_calls(&claims, false);
    let rule = rule_calls_all(&claims);

    println!();
    println!("| source set | method | balanced accuracy | ROC AUC | said \"supported\" | said \"not supported\" | of which not fully supported |");
    println!("|---|---|---|---|---|---|---|");
    for set in SETS {
        let rows_of = [
            ("**left out** (fitted on the other two sets)", &left_out),
            ("5-fold (all three sets)", &folded),
            ("in sample (shipped)", &in_sample),
            ("word overlap, left out", &overlap_out),
            ("word overlap, in sample", &overlap_in),
            ("one-line rule", &rule),
        ];
        for (name, calls) in rows_of {
            print_row(set, name, &calls.on_set(&claims, set));
        }
    }
    println!();
    println!(
        "left out, mean over the five source sets: {:.3} (word overlap {:.3}, one-line rule {:.3})",
        mean_ba(&left_out, &claims),
        mean_ba(&overlap_out, &claims),
        mean_ba(&rule, &claims)
    );
    println!(
        "shipped cut-offs: supported ≥ {:.3}, not supported < {:.3} (partly supported between)",
        shipped.supported_at, shipped.partly_at
    );
    for (name, weight) in FEATURE_NAMES.iter().zip(&shipped.weights) {
        println!("  {name:>20} {weight:+.3}");
    }
    if args.iter().any(|a| a == "--means") {
        for (j, name) in FEATURE_NAMES.iter().enumerate() {
            let cells: Vec<String> = GROUPS
                .iter()
                .flat_map(|g| [true, false].map(move |l| (g, l)))
                .map(|(g, l)| {
                    let v: Vec<f64> = rows
                        .iter()
                        .zip(&claims)
                        .filter(|(_, c)| c.group == *g && c.supported == l)
                        .map(|(r, _)| r[j])
                        .collect();
                    format!("{:.2}", v.iter().sum::<f64>() / v.len().max(1) as f64)
                })
                .collect();
            println!("  {name:>20} {}", cells.join(" "));
        }
    }
    if args.iter().any(|a| a == "--features") {
        print_features(&rows, &claims);
    }
    if args.iter().any(|a| a == "--select") {
        select_features(&rows, &claims);
    }
    println!(
        "\nmeasured {} claims in {:.0} ms on one core ({:.0} claims/s)",
        claims.len(),
        measured_in.as_secs_f64() * 1000.0,
        claims.len() as f64 / measured_in.as_secs_f64()
    );
    if write {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/support/weights.json");
        std::fs::write(&path, serde_json::to_string_pretty(&shipped)? + "\n")?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// The mean balanced accuracy of `calls` over the five source sets.
fn mean_ba(calls: &Calls, claims: &[Claim]) -> f64 {
    SETS.iter()
        .map(|set| calls.on_set(claims, set).balanced_accuracy)
        .sum::<f64>()
        / SETS.len() as f64
}

/// Each feature alone: its ROC AUC on each development set, and the balanced accuracy
/// of a model of it alone fitted on two sets and measured on the third.
fn print_features(rows: &[Vec<f64>], claims: &[Claim]) {
    println!("\neach feature alone: ROC AUC per development set; balanced accuracy left out, per source set and mean");
    println!(
        "| feature | AUC WiCE | AUC AttributionBench | AUC ExpertQA | {} | mean |",
        SETS.join(" | ")
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (j, name) in FEATURE_NAMES.iter().enumerate() {
        if SET_TELLERS.contains(name) {
            continue;
        }
        let aucs: Vec<String> = GROUPS
            .iter()
            .map(|group| {
                let (column, labels): (Vec<f64>, Vec<bool>) = rows
                    .iter()
                    .zip(claims)
                    .filter(|(_, c)| c.group == *group)
                    .map(|(r, c)| (r[j], c.supported))
                    .unzip();
                format!("{:.3}", roc_auc(&column, &labels))
            })
            .collect();
        let others: Vec<usize> = (0..FEATURE_NAMES.len()).filter(|&k| k != j).collect();
        let calls = left_out_calls(rows, claims, Some(&others));
        let per: Vec<String> = SETS
            .iter()
            .map(|set| format!("{:.3}", calls.on_set(claims, set).balanced_accuracy))
            .collect();
        println!(
            "| {name} | {} | {} | {:.3} |",
            aucs.join(" | "),
            per.join(" | "),
            mean_ba(&calls, claims)
        );
    }
}

/// Greedy forward selection of features by the left-out figure (`--select`): from none,
/// add the feature that raises the mean left-out balanced accuracy most, while one does.
fn select_features(rows: &[Vec<f64>], claims: &[Claim]) {
    let mut chosen: Vec<usize> = Vec::new();
    let mut best = 0.0;
    loop {
        let mut step: Option<(usize, f64)> = None;
        for j in (0..FEATURE_NAMES.len())
            .filter(|&j| !chosen.contains(&j) && !SET_TELLERS.contains(&FEATURE_NAMES[j]))
        {
            let mut with = chosen.clone();
            with.push(j);
            let left_out: Vec<usize> = (0..FEATURE_NAMES.len())
                .filter(|k| !with.contains(k))
                .collect();
            let calls = left_out_calls(rows, claims, Some(&left_out));
            let score = mean_ba(&calls, claims);
            if chosen.is_empty() {
                let per: Vec<String> = SETS
                    .iter()
                    .map(|set| format!("{:.3}", calls.on_set(claims, set).balanced_accuracy))
                    .collect();
                println!(
                    "  alone {:<20} mean {score:.3}: {}",
                    FEATURE_NAMES[j],
                    per.join(" ")
                );
            }
            if step.is_none_or(|(_, s)| score > s) {
                step = Some((j, score));
            }
        }
        match step {
            Some((j, score)) if score > best + 0.001 => {
                chosen.push(j);
                best = score;
                let left_out: Vec<usize> = (0..FEATURE_NAMES.len())
                    .filter(|k| !chosen.contains(k))
                    .collect();
                let calls = left_out_calls(rows, claims, Some(&left_out));
                let per: Vec<String> = SETS
                    .iter()
                    .map(|set| format!("{set} {:.3}", calls.on_set(claims, set).balanced_accuracy))
                    .collect();
                println!(
                    "+ {:<20} mean {score:.3}: {}",
                    FEATURE_NAMES[j],
                    per.join(", ")
                );
            }
            _ => break,
        }
    }
}

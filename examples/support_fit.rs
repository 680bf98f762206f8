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
//! cargo run --release --example support_fit -- --pairs    # every pair of measures, left out
//! cargo run --release --example support_fit -- --dump rows.tsv  # measured rows, for analysis
//! ```
//!
//! `--feedback FILE` also reads what people said in Slack about the verdicts sourcebot
//! showed them (`sourcebot feedback export`): per verdict, how many claims were under a
//! 👍, under a 👎 that said "a claim's verdict" was wrong, and under any other 👎.

#[path = "../tests/support/support_eval.rs"]
mod support_eval;

use sourcebot::support::features::FEATURE_NAMES;
use sourcebot::support::missing::{missing_spans, PageIndex};
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
    print_margins(
        &claims,
        &left_out,
        &[("word overlap", &overlap_out), ("one-line rule", &rule)],
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
    if let Some(at) = args.iter().position(|a| a == "--dump") {
        let Some(path) = args.get(at + 1) else {
            anyhow::bail!("--dump needs a file to write the measured rows to");
        };
        dump_rows(path, &rows, &claims, &left_out)?;
    }
    if args.iter().any(|a| a == "--features") {
        print_features(&rows, &claims);
    }
    if args.iter().any(|a| a == "--select") {
        select_features(&rows, &claims);
    }
    if args.iter().any(|a| a == "--pairs") {
        print_pairs(&rows, &claims, &[&overlap_out, &rule]);
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

/// How many resamples [`print_margins`] draws.
const RESAMPLES: usize = 2000;

/// How sure the left-out margins are: per source set, the judge's balanced accuracy
/// minus each baseline's, on the claims as they are and over [`RESAMPLES`] paired
/// resamples (supported and unsupported claims each drawn with replacement, so both
/// methods are measured on the same draw), with the 95% interval and the share of
/// draws where the judge is ahead. A fixed seed: the same figures every run.
fn print_margins(claims: &[Claim], judge: &Calls, baselines: &[(&str, &Calls)]) {
    println!("\nleft out, the judge minus each baseline: on the claims, then the 95% interval over {RESAMPLES} paired resamples and the share of them where the judge is ahead");
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |below: usize| -> usize {
        // xorshift64*: enough for resampling, and no dependency.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % below.max(1)
    };
    for set in SETS {
        let of: Vec<usize> = (0..claims.len())
            .filter(|&i| claims[i].set == set)
            .collect();
        let (supported, unsupported): (Vec<usize>, Vec<usize>) =
            of.iter().partition(|&&i| claims[i].supported);
        let ba_on = |calls: &Calls, picked: &[usize]| {
            let said: Vec<bool> = picked.iter().map(|&i| calls.supported[i]).collect();
            let labels: Vec<bool> = picked.iter().map(|&i| claims[i].supported).collect();
            balanced(&said, &labels)
        };
        let mut cells = Vec::new();
        for (name, baseline) in baselines {
            let observed = ba_on(judge, &of) - ba_on(baseline, &of);
            let mut margins: Vec<f64> = (0..RESAMPLES)
                .map(|_| {
                    let draw: Vec<usize> = [&supported, &unsupported]
                        .iter()
                        .flat_map(|group| {
                            (0..group.len())
                                .map(|_| group[next(group.len())])
                                .collect::<Vec<_>>()
                        })
                        .collect();
                    ba_on(judge, &draw) - ba_on(baseline, &draw)
                })
                .collect();
            margins.sort_by(f64::total_cmp);
            let ahead = margins.iter().filter(|m| **m > 0.0).count() as f64 / RESAMPLES as f64;
            cells.push(format!(
                "{name} {observed:+.3} [{:+.3}, {:+.3}] ahead {:.0}%",
                margins[RESAMPLES * 25 / 1000],
                margins[RESAMPLES * 975 / 1000 - 1],
                ahead * 100.0
            ));
        }
        println!("  {set}: {}", cells.join("; "));
    }
}

/// `--dump FILE`: every claim's measured row as tab-separated values, one claim a
/// line after a header: development set, source set, label, the features, `differs`,
/// word overlap, whether the one-line rule says "not supported", the left-out score and
/// verdict of the model fitted (`--keep` chooses its features), `missing`, the claim; for analysis
/// outside this program.
fn dump_rows(
    path: &str,
    rows: &[Vec<f64>],
    claims: &[Claim],
    left_out: &Calls,
) -> anyhow::Result<()> {
    let mut out = format!(
        "group\tset\tsupported\tnone\t{}\tdiffers\toverlap\trule_not\tpassages\tleft_out_score\tleft_out_supported\tmissing\tclaim\n",
        FEATURE_NAMES.join("\t")
    );
    for (i, (row, claim)) in rows.iter().zip(claims).enumerate() {
        let score = left_out.scores.as_ref().map_or(f64::NAN, |s| s[i]);
        let values: Vec<String> = row.iter().map(|v| format!("{v}")).collect();
        let index = PageIndex::new(claim.evidence.iter().map(String::as_str));
        let missing: Vec<&str> = missing_spans(&claim.text, &index)
            .into_iter()
            .filter_map(|(start, end)| claim.text.get(start..end))
            .collect();
        let one_line = |text: &str| text.replace(['\t', '\n'], " ");
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{score}\t{}\t{}\t{}\n",
            claim.group,
            claim.set,
            u8::from(claim.supported),
            u8::from(claim.none),
            values.join("\t"),
            overlap_score(claim),
            u8::from(rule_says_unsupported(claim)),
            claim.evidence.len(),
            u8::from(left_out.supported[i]),
            one_line(&missing.join(" | ")),
            one_line(&claim.text)
        ));
    }
    std::fs::write(path, out).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    println!("wrote {} rows to {path}", rows.len());
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

/// Every pair of measures (`--pairs`), each fitted as the shipped model is and measured
/// left out: the ten with the best mean, and the ten whose worst margin over the better
/// baseline (`baselines`, per source set) is largest. Choosing among so many by the
/// left-out figure flatters it a little; the held-out test sets are what tell.
fn print_pairs(rows: &[Vec<f64>], claims: &[Claim], baselines: &[&Calls]) {
    let better: Vec<f64> = SETS
        .iter()
        .map(|set| {
            baselines
                .iter()
                .map(|calls| calls.on_set(claims, set).balanced_accuracy)
                .fold(0.0, f64::max)
        })
        .collect();
    let usable: Vec<usize> = (0..FEATURE_NAMES.len())
        .filter(|&j| !SET_TELLERS.contains(&FEATURE_NAMES[j]))
        .collect();
    let mut results: Vec<(String, Vec<f64>)> = Vec::new();
    for (a, &first) in usable.iter().enumerate() {
        for &second in &usable[a + 1..] {
            let left_out: Vec<usize> = (0..FEATURE_NAMES.len())
                .filter(|&k| k != first && k != second)
                .collect();
            let calls = left_out_calls(rows, claims, Some(&left_out));
            let per: Vec<f64> = SETS
                .iter()
                .map(|set| calls.on_set(claims, set).balanced_accuracy)
                .collect();
            results.push((
                format!("{} + {}", FEATURE_NAMES[first], FEATURE_NAMES[second]),
                per,
            ));
        }
    }
    let mean = |per: &[f64]| per.iter().sum::<f64>() / per.len().max(1) as f64;
    let margin = |per: &[f64]| {
        per.iter()
            .zip(&better)
            .map(|(p, b)| p - b)
            .fold(f64::INFINITY, f64::min)
    };
    let print = |title: &str, key: &dyn Fn(&[f64]) -> f64| {
        let mut sorted: Vec<&(String, Vec<f64>)> = results.iter().collect();
        sorted.sort_by(|x, y| key(&y.1).total_cmp(&key(&x.1)));
        println!(
            "\n{} pairs of measures, left out; the ten with the best {title}:",
            results.len()
        );
        println!(
            "| measures | {} | mean | worst margin over the better baseline |",
            SETS.join(" | ")
        );
        println!("|---|---|---|---|---|---|---|---|");
        for (name, per) in sorted.into_iter().take(10) {
            let cells: Vec<String> = per.iter().map(|v| format!("{v:.3}")).collect();
            println!(
                "| {name} | {} | {:.3} | {:+.3} |",
                cells.join(" | "),
                mean(per),
                margin(per)
            );
        }
    };
    print("mean", &mean);
    print("worst margin", &margin);
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

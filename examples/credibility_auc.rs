//! Measures whether sourcebot's source-credibility score means something on real data:
//! the ROC AUC of the credibility of the sources cited by ExpertQA claims that experts
//! rated "Reliable" against those rated "Not reliable at all", beside the seed
//! specification's six-domain allowlist and a baseline that rates every source 0.5,
//! with 95% bootstrap intervals and the tiers of the cited sources.
//!
//! `cargo run --release --example credibility_auc [CORPUS_DIR]` (default
//! `../shared/corpora`); exits with status 2 when the corpus is not there.

#[path = "../tests/support/auc.rs"]
mod auc;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use auc::{Figures, Interval, Parsed, ScoredClaim, Scorer};
use sourcebot::score::domain::Tier;

fn main() -> ExitCode {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| auc::DEFAULT_CORPUS_DIR.to_string()),
    );
    match run(&dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("credibility_auc: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(dir: &Path) -> Result<(), String> {
    let started = Instant::now();
    if !dir.is_dir() {
        return Err(format!(
            "corpus directory {} not found (pass the directory holding {} and {})",
            dir.display(),
            auc::FILES[0],
            auc::FILES[1]
        ));
    }
    let mut files: Vec<(PathBuf, Parsed)> = Vec::new();
    for name in auc::FILES {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        files.push((path, auc::parse_jsonl(&text)));
    }
    let parsed: Vec<&Parsed> = files.iter().map(|(_, p)| p).collect();
    let pooled = auc::pool(&parsed);
    let all_claims: Vec<auc::Claim> = files
        .iter()
        .flat_map(|(_, p)| p.claims.iter().cloned())
        .collect();
    let book = auc::score_urls(&all_claims);
    let pooled_scored = auc::score_claims(&pooled.claims, &book);
    let pooled_figures = auc::figures(&pooled_scored.claims, auc::RESAMPLES, auc::SEED);

    let names: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
    println!(
        "ExpertQA validation ({}): {} claims rated Reliable, {} Not reliable at all \
         (skipped {}: {}; {} rated claims are in both files and count once)",
        names.join(" + "),
        pooled_figures.positives,
        pooled_figures.negatives,
        pooled.skipped.values().sum::<usize>() + pooled_scored.no_readable_url,
        skip_list(&pooled.skipped, pooled_scored.no_readable_url),
        pooled.repeated,
    );
    table(&pooled_figures);

    for (path, parsed) in &files {
        let scored = auc::score_claims(&parsed.claims, &book);
        let figures = auc::figures(&scored.claims, auc::RESAMPLES, auc::SEED);
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        println!();
        println!(
            "{name}: {} Reliable, {} Not reliable at all (skipped {}: {})",
            figures.positives,
            figures.negatives,
            parsed.skipped.len() + scored.no_readable_url,
            skip_list(&auc::reasons(&parsed.skipped), scored.no_readable_url),
        );
        table(&figures);
    }

    println!();
    tier_table(&pooled_scored.claims);

    println!();
    let tally = |f: fn(&auc::Tally) -> usize| files.iter().map(|(_, p)| f(&p.tally)).sum::<usize>();
    println!(
        "Data (both files, repeats included): {} answers, {} claims, {} bad lines, \
         {} answers with an empty attribution, {} [n] numbers cited in answers without \
         an attribution entry, {} malformed entries, {} unresolved \
         citations; URLs taken from `evidence` for {} claims, from [n] markers for {}; \
         {} distinct URLs cited by rated claims, {} of them unreadable by sourcebot; {} conflicting ratings \
         between files.",
        tally(|t| t.answers),
        tally(|t| t.claims),
        tally(|t| t.bad_lines),
        tally(|t| t.empty_attribution),
        tally(|t| t.missing_numbers),
        tally(|t| t.malformed_entries),
        tally(|t| t.unresolved_citations),
        tally(|t| t.from_evidence),
        tally(|t| t.from_markers),
        book.len(),
        book.values().filter(|s| s.is_none()).count(),
        pooled.conflicting,
    );
    println!(
        "Intervals: {} resamples, splitmix64 seed {:#x}; \"claims\" resamples claims \
         (stratified), \"questions\" resamples whole questions. Took {:.1} s.",
        auc::RESAMPLES,
        auc::SEED,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn skip_list(reasons: &BTreeMap<String, usize>, unreadable: usize) -> String {
    let mut parts: Vec<(usize, String)> = reasons
        .iter()
        .map(|(reason, n)| (*n, reason.clone()))
        .collect();
    if unreadable > 0 {
        parts.push((unreadable, "no URL sourcebot can read".into()));
    }
    parts.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    parts
        .iter()
        .map(|(n, reason)| format!("{n} {reason}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn interval(i: Option<Interval>) -> String {
    i.map_or_else(|| "—".into(), |i| format!("[{:.3}, {:.3}]", i.low, i.high))
}

fn table(figures: &Figures) {
    println!("scorer                      AUC     95% CI (claims)   95% CI (questions)");
    for row in &figures.rows {
        let value = row.auc.map_or_else(|| "—".into(), |v| format!("{v:.3}"));
        println!(
            "{:<28}{:<8}{:<18}{}",
            row.scorer.name(),
            value,
            interval(row.by_claim),
            interval(row.by_question)
        );
    }
}

fn tier_table(claims: &[ScoredClaim]) {
    let counts = auc::tier_counts(claims);
    let totals = [
        counts[0].iter().sum::<usize>(),
        counts[1].iter().sum::<usize>(),
    ];
    let (pos, neg) = auc::split(claims, Scorer::TiersMean);
    println!(
        "Cited sources by tier (pooled; one count per claim and source): {} of Reliable \
         claims, {} of Not reliable at all",
        totals[0], totals[1]
    );
    println!("tier                    Reliable          Not reliable at all");
    let share = |n: usize, total: usize| {
        let pct = if total == 0 {
            0.0
        } else {
            100.0 * n as f64 / total as f64
        };
        format!("{n:>4} ({pct:>4.1}%)")
    };
    for (i, tier) in Tier::ALL.iter().enumerate() {
        println!(
            "{:<24}{:<18}{}",
            format!("{tier} ({:.2})", tier.score()),
            share(counts[0][i], totals[0]),
            share(counts[1][i], totals[1])
        );
    }
    if counts[0][6] + counts[1][6] > 0 {
        println!(
            "{:<24}{:<18}{}",
            "no host",
            share(counts[0][6], totals[0]),
            share(counts[1][6], totals[1])
        );
    }
    let (seed_pos, seed_neg) = auc::split(claims, Scorer::Seed);
    let listed = |v: &[f64]| v.iter().filter(|&&x| x > 0.5).count();
    println!(
        "{:<24}{:>4}{:<14}{:>4}",
        "claims on seed list",
        listed(&seed_pos),
        "",
        listed(&seed_neg)
    );
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    println!(
        "{:<24}{:<18}{:.3}",
        "mean claim score",
        format!("{:.3}", mean(&pos)),
        mean(&neg)
    );
}

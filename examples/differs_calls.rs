//! Every "the page says X, not Y" the product would show on the three development sets,
//! for judging by hand: the calls `support::differs` makes, measured the way the product
//! makes them (`features(claim, &Page::new(&passages)).differs`: the best window only,
//! only figures the whole page lacks).
//!
//! Data: `../shared/corpora` (WiCE dev, AttributionBench dev without its ExpertQA rows,
//! ExpertQA's two validation splits), loaded by `tests/support/support_eval.rs`. When it
//! is absent the example prints a NOTICE and exits 0.
//!
//! For each call it prints the source set, an id that traces the claim back to its
//! record (WiCE `meta.id`; AttributionBench `id`; ExpertQA
//! `expertqa_{domain|rand}:LINE:SYSTEM:CLAIM`, 0-based line and claim index, as in
//! `tests/data/differs_cases.jsonl`), the claim, both figures, the best window the call
//! was made on, and the window's sentence holding the page's figure, with whether
//! `differs(claim, sentence)` alone makes the same call (such a sentence can go into
//! `tests/data/differs_cases.jsonl` as the case's passage). Totals close the run.
//!
//! ```text
//! cargo run --example differs_calls
//! ```

#[path = "../tests/support/support_eval.rs"]
mod support_eval;

use sourcebot::support::differs::differs;
use sourcebot::support::features::features;
use sourcebot::support::passages::Page;
use std::path::Path;
use support_eval::{load_dev_sets, Claim};

/// One-line text: runs of whitespace collapsed to a space.
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn main() -> anyhow::Result<()> {
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let claims: Vec<Claim> = match load_dev_sets(&corpora)? {
        Ok(claims) => claims,
        Err(absent) => {
            println!(
                "NOTICE: {} not found: no development sets, no calls to print.",
                absent.display()
            );
            return Ok(());
        }
    };
    let (mut with_call, mut calls) = (0usize, 0usize);
    let mut per_set: Vec<(String, usize, usize)> = Vec::new();
    for claim in &claims {
        let id = &claim.id;
        let at = match per_set.iter().position(|(s, _, _)| *s == claim.set) {
            Some(at) => at,
            None => {
                per_set.push((claim.set.clone(), 0, 0));
                per_set.len() - 1
            }
        };
        per_set[at].1 += 1;
        let passages: Vec<&str> = claim.evidence.iter().map(String::as_str).collect();
        let page = Page::new(&passages);
        let measured = features(&claim.text, &page);
        if measured.differs.is_empty() {
            continue;
        }
        with_call += 1;
        calls += measured.differs.len();
        per_set[at].2 += measured.differs.len();
        let window: &[&str] = match &measured.best {
            Some(w) => &page.sentences[w.first.min(w.end)..w.end.min(page.sentences.len())],
            None => &[],
        };
        println!("== {} {id}", claim.set);
        println!("claim:  {}", flat(&claim.text));
        println!("window: {}", flat(&window.join(" ")));
        for differ in &measured.differs {
            println!("  CALL  claim {:?} -> page {:?}", differ.claim, differ.page);
            let sentence = window.iter().find(|s| s.contains(differ.page.as_str()));
            match sentence {
                Some(sentence) => {
                    let alone = differs(&claim.text, sentence).contains(differ);
                    let same = if alone {
                        "same call"
                    } else {
                        "NOT the same call"
                    };
                    println!("  sentence ({same} on it alone): {}", flat(sentence));
                }
                None => println!("  sentence: (the page figure spans sentences)"),
            }
        }
        println!();
    }
    println!("== totals");
    for (set, read, set_calls) in &per_set {
        println!("{set}: {read} claims, {set_calls} calls");
    }
    println!(
        "claims read {}, claims with a call {with_call}, calls {calls}",
        claims.len()
    );
    Ok(())
}

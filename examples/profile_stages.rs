//! Prints how long each collector stage takes over the DeepResearch Bench corpus, to
//! see where time goes: `cargo run --release --example profile_stages`; with
//! `--synthetic`, the same over the benchmark's 1 MB answer of 10,000 links;
//! with `--scan-only`, only the scan, for profilers.
use sourcebot::collect::{claims, scan};
use std::time::Instant;

#[path = "../benches/support/mod.rs"]
mod support;

fn main() {
    let articles = if std::env::args().any(|a| a == "--synthetic") {
        vec![support::synthetic_answer(1_000_000, 10_000)]
    } else if let Some(articles) = support::drb_articles() {
        articles
    } else {
        eprintln!("corpora not found at ../shared/corpora");
        return;
    };
    let bytes: usize = articles.iter().map(String::len).sum();
    let only_scan = std::env::args().any(|a| a == "--scan-only");
    let rounds = if only_scan { 200 } else { 20 };
    let mb = (bytes * rounds) as f64 / 1e6;
    let t = Instant::now();
    let mut scans = Vec::new();
    for _ in 0..rounds {
        scans = articles.iter().map(|a| scan::scan(a)).collect();
    }
    println!(
        "scan:           {:7.1} MB/s",
        mb / t.elapsed().as_secs_f64()
    );
    if only_scan {
        return;
    }
    let t = Instant::now();
    let mut spans = Vec::new();
    for _ in 0..rounds {
        spans = articles
            .iter()
            .zip(&scans)
            .map(|(a, s)| claims::split_claims(a, &s.citations(), &s.non_prose()))
            .collect();
    }
    println!(
        "split_claims:   {:7.1} MB/s",
        mb / t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    for _ in 0..rounds {
        for (a, ss) in articles.iter().zip(&spans) {
            for s in ss {
                std::hint::black_box(claims::claim_signals(&a[s.start..s.end]));
            }
        }
    }
    println!(
        "claim_signals:  {:7.1} MB/s",
        mb / t.elapsed().as_secs_f64()
    );
    let options = sourcebot::collect::CollectOptions::default();
    let t = Instant::now();
    for _ in 0..rounds {
        for a in &articles {
            std::hint::black_box(sourcebot::collect::collect(
                &sourcebot::model::Answer::from_text(a.as_str()),
                &options,
            ));
        }
    }
    println!(
        "collect (all):  {:7.1} MB/s",
        mb / t.elapsed().as_secs_f64()
    );
}

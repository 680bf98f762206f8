//! Prints how long each collector stage takes over the DeepResearch Bench corpus, to
//! see where time goes: `cargo run --release --example profile_stages`.
use sourcebot::collect::{claims, scan};
use std::time::Instant;

fn main() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora/drb_claude37_raw.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("corpora not found at {}", path.display());
        return;
    };
    let articles: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["article"].as_str().map(str::to_string))
        .collect();
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

//! Prints how long each collector stage takes over the DeepResearch Bench corpus, to
//! see where time goes: `cargo run --release --example profile_stages`; with
//! `--synthetic`, the same over the benchmark's 1 MB answer of 10,000 links;
//! with `--scan-only`, only the scan, for profilers; with `--pipeline`, what
//! `sourcebot check FILE --format json --no-verify` does to the 100 reports joined into
//! one answer, phase by phase (median of 15 rounds, in milliseconds).
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
    if std::env::args().any(|a| a == "--pipeline") {
        pipeline(&articles.join("\n\n"));
        return;
    }
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

/// The phases of one `check --format json --no-verify` of `text`, in milliseconds.
fn pipeline(text: &str) {
    use sourcebot::collect::input::{parse_answer, FormatHint};
    let options = sourcebot::collect::CollectOptions::default();
    let scorer = sourcebot::score::Scorer::default();
    let mut phases: Vec<(&str, Vec<f64>)> = ["parse", "scan", "collect", "score", "json"]
        .iter()
        .map(|p| (*p, Vec::new()))
        .collect();
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for _ in 0..15 {
        let t = Instant::now();
        let answer = match parse_answer(text.as_bytes(), FormatHint::Auto, 64 << 20) {
            Ok(answer) => answer,
            Err(error) => {
                eprintln!("cannot read the joined reports: {error}");
                return;
            }
        };
        phases[0].1.push(ms(t));
        let t = Instant::now();
        std::hint::black_box(scan::scan(&answer.text));
        phases[1].1.push(ms(t));
        let t = Instant::now();
        let mut report =
            sourcebot::build_report(&answer, sourcebot::collect::collect(&answer, &options));
        phases[2].1.push(ms(t));
        let t = Instant::now();
        scorer.score_report(&mut report);
        phases[3].1.push(ms(t));
        let t = Instant::now();
        let mut out = Vec::new();
        if sourcebot::render::write_json(&report, &mut out).is_err() {
            eprintln!("cannot write the report");
            return;
        }
        std::hint::black_box(&out);
        phases[4].1.push(ms(t));
    }
    println!("{} bytes, median of 15 rounds:", text.len());
    for (name, mut times) in phases {
        times.sort_by(f64::total_cmp);
        println!("  {name:8} {:7.2} ms", times[times.len() / 2]);
    }
}

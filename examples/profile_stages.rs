//! Prints how long each collector stage takes over the DeepResearch Bench corpus, to
//! see where time goes: `cargo run --release --example profile_stages`.
use sourcebot::collect::{claims, scan};
use std::time::Instant;

/// The benchmark's synthetic answer, for profiling link-heavy text.
fn synthetic() -> String {
    let prose = "Progressive delivery catches most regressions before they reach every user, and the team measured a 42% drop in rollbacks during 2024. ";
    let mut body = String::new();
    let mut refs = String::new();
    for i in 0..10_000 {
        let start = body.len();
        while body.len() - start + 60 < 10 {
            body.push_str(prose);
        }
        body.push_str(prose);
        match i % 4 {
            0 => body.push_str(&format!("See [{}].\n", i + 1)),
            1 => body.push_str(&format!(
                "Thread <https://acme.slack.com/archives/C{i:06}/p{i:016}|#eng thread {i}>.\n"
            )),
            2 => body.push_str(&format!(
                "Doc [Runbook {i}](https://acme.atlassian.net/wiki/spaces/ENG/pages/{i}).\n"
            )),
            _ => body.push_str(&format!(
                "More at https://docs.example{}.org/guide/{i}?utm_source=chatgpt.com.\n",
                i % 97
            )),
        }
        if i % 4 == 0 {
            refs.push_str(&format!(
                "[{}] https://www.site{}.com/articles/{i} - Article {i}\n",
                i + 1,
                i % 113
            ));
        }
    }
    body + "\n\nReferences:\n" + &refs
}

fn main() {
    if std::env::args().any(|a| a == "--synthetic") {
        let answer = sourcebot::model::Answer::from_text(synthetic());
        let options = sourcebot::collect::CollectOptions::default();
        let t = std::time::Instant::now();
        for _ in 0..100 {
            std::hint::black_box(sourcebot::collect::collect(&answer, &options));
        }
        let mb = answer.text.len() as f64 * 100.0 / 1e6;
        println!(
            "synthetic collect: {:7.1} MB/s",
            mb / t.elapsed().as_secs_f64()
        );
        return;
    }
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

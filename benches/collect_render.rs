//! Speed of collect and render: over the DeepResearch Bench corpus (when
//! ../shared/corpora is present), over a 1 MB synthetic answer with 10,000 links, and a
//! 100 KB answer collected and rendered end to end. Targets (README): collect ≥ 100 MB/s
//! of answer text on one core; a 100 KB answer collected and rendered in under 1 ms.
//!
//! Run: `cargo bench --bench collect_render`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sourcebot::collect::{collect, CollectOptions};
use sourcebot::model::Answer;
use sourcebot::render::{self, RenderOptions};
use std::hint::black_box;
use std::path::PathBuf;

/// A realistic answer of about `target_bytes` with `links` citations spread through it:
/// prose with `[n]` markers, Slack and Markdown links, bare URLs, and a reference list.
fn synthetic_answer(target_bytes: usize, links: usize) -> String {
    let prose = "Progressive delivery catches most regressions before they reach every user, and the team measured a 42% drop in rollbacks during 2024. ";
    let mut body = String::with_capacity(target_bytes + 1024);
    let mut refs = String::new();
    let per_link = target_bytes / links.max(1);
    for i in 0..links {
        let start = body.len();
        while body.len() - start + 60 < per_link.saturating_sub(90) {
            body.push_str(prose);
        }
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
    body.push_str("\n\nReferences:\n");
    body.push_str(&refs);
    body
}

fn corpus_articles() -> Option<Vec<String>> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/drb_claude37_raw.jsonl");
    let text = std::fs::read_to_string(&path).ok()?;
    Some(
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["article"].as_str().map(str::to_string))
            .collect(),
    )
}

fn bench_corpus(c: &mut Criterion) {
    let Some(articles) = corpus_articles() else {
        eprintln!("NOTICE: ../shared/corpora not found; skipping the DeepResearch Bench benchmark");
        return;
    };
    let answers: Vec<Answer> = articles.into_iter().map(Answer::from_text).collect();
    let bytes: usize = answers.iter().map(|a| a.text.len()).sum();
    let options = CollectOptions::default();
    let render_options = RenderOptions::default();
    let mut group = c.benchmark_group("drb_corpus");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("collect", |b| {
        b.iter(|| {
            for answer in &answers {
                black_box(collect(black_box(answer), &options));
            }
        })
    });
    group.bench_function("collect_render", |b| {
        b.iter(|| {
            for answer in &answers {
                let report = sourcebot::check(black_box(answer), &options);
                black_box(render::mrkdwn(&report, &render_options));
                black_box(render::blocks(&report, &render_options));
            }
        })
    });
    group.finish();
}

fn bench_synthetic(c: &mut Criterion) {
    let options = CollectOptions::default();
    let render_options = RenderOptions::default();
    let big = Answer::from_text(synthetic_answer(1_000_000, 10_000));
    let mut group = c.benchmark_group("synthetic_1mb_10k_links");
    group.throughput(Throughput::Bytes(big.text.len() as u64));
    group.sample_size(20);
    group.bench_function("collect", |b| {
        b.iter(|| black_box(collect(black_box(&big), &options)))
    });
    group.bench_function("collect_render", |b| {
        b.iter(|| {
            let report = sourcebot::check(black_box(&big), &options);
            black_box(render::mrkdwn(&report, &render_options));
            black_box(render::blocks(&report, &render_options));
        })
    });
    group.finish();

    let small = Answer::from_text(synthetic_answer(100_000, 400));
    let mut group = c.benchmark_group("answer_100kb");
    group.throughput(Throughput::Bytes(small.text.len() as u64));
    group.bench_function("collect_render_mrkdwn_blocks", |b| {
        b.iter(|| {
            let report = sourcebot::check(black_box(&small), &options);
            black_box(render::mrkdwn(&report, &render_options));
            black_box(render::blocks(&report, &render_options));
        })
    });
    group.finish();
}

criterion_group!(benches, bench_corpus, bench_synthetic);
criterion_main!(benches);

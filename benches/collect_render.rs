//! Speed of collect and render: over the DeepResearch Bench corpus (when
//! ../shared/corpora is present), over a 1 MB synthetic answer with 10,000 links, and a
//! 100 KB answer collected and rendered end to end, and a 50-block Slack answer read as
//! a person sees it. Targets (docs/speed.md): collect ≥ 100 MB/s of answer text on one core; a
//! 100 KB answer collected and rendered in under 1 ms; a 50-block Slack message read in
//! under 1 ms.
//!
//! Run: `cargo bench --bench collect_render`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sourcebot::collect::{collect, CollectOptions};
use sourcebot::model::Answer;
use sourcebot::render::{self, RenderOptions};
use std::hint::black_box;

mod support;

fn bench_corpus(c: &mut Criterion) {
    let Some(articles) = support::drb_articles() else {
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
    let big = Answer::from_text(support::synthetic_answer(1_000_000, 10_000));
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

    let small = Answer::from_text(support::synthetic_answer(100_000, 400));
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

fn bench_slack_message(c: &mut Criterion) {
    use sourcebot::collect::slack_message::{read_message, ReadOptions};
    let message = support::slack_answer_message(50, "https://docs.example.com", 40);
    let read_options = ReadOptions::default();
    let options = CollectOptions::default();
    let mut group = c.benchmark_group("slack_message_50_blocks");
    group.bench_function("read", |b| {
        b.iter(|| black_box(read_message(black_box(&message), &read_options)))
    });
    group.bench_function("read_collect", |b| {
        b.iter(|| {
            let read = read_message(black_box(&message), &read_options);
            black_box(collect(&read.answer, &options))
        })
    });
    group.bench_function("parse_read", |b| {
        let json = message.to_string();
        b.iter(|| {
            let value: serde_json::Value = serde_json::from_str(black_box(&json)).expect("json");
            black_box(read_message(&value, &read_options))
        })
    });
    group.finish();
}

criterion_group!(benches, bench_corpus, bench_synthetic, bench_slack_message);
criterion_main!(benches);

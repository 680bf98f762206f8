//! How long reading an internal document takes once its bytes have arrived: each
//! product's format made text, an Office file read, and the claims judged against the
//! result. Prints its figures; the network is not part of them (a document's calls are
//! bounded by `SOURCEBOT_FETCH_TIMEOUT`, 5 s, however fast this is).
//!
//! The documents are built here, at the largest size sourcebot reads (2 MiB a reply or
//! file) and at a common one, from realistic pieces: a Confluence runbook in storage
//! format (headings, paragraphs, tables, info macros, code), a Jira issue with 300
//! comments in the Atlassian Document Format, the same in wiki markup, a Markdown
//! README, a Word document, a PowerPoint deck and an Excel sheet. Each figure is the
//! median of the runs (the first argument, default 7).
//!
//! ```text
//! cargo run --release --example document_bench -- 7
//! ```

#[path = "../tests/support/office.rs"]
#[allow(dead_code)]
mod office;

use serde_json::{json, Value};
use sourcebot::model::ReadVia;
use sourcebot::page::{self, PageRead};
use sourcebot::products::text::{
    adf::adf_to_text, markdown::markdown_to_text, storage::storage_to_text, wiki::wiki_to_text,
};
use sourcebot::support::passages::Page;
use sourcebot::support::SupportScorer;
use std::time::{Duration, Instant};

/// The largest reply or file read: `SOURCEBOT_FETCH_MAX_BYTES`' default.
const MAX_BYTES: usize = 2 << 20;

/// The claims judged against every document.
const CLAIMS: [&str; 5] = [
    "Production deploys freeze at 18:00 on Fridays.",
    "The on-call engineer starts the rollback job from the CI dashboard.",
    "Sev1 incidents page the on-call engineer within 5 minutes.",
    "The capacity plan grows the orders cluster to 16 nodes before Black Friday.",
    "Exceptions need the release manager's approval in the deploys channel.",
];

/// One section of the runbook, as its sentences.
fn section(n: usize) -> [String; 4] {
    [
        format!("Section {n}: freeze windows and rollbacks"),
        format!("Production deploys of service {n} freeze at 18:00 on Fridays and resume at 09:00 on Mondays."),
        format!("The on-call engineer for service {n} starts the rollback job from the CI dashboard and posts the incident number."),
        format!("Sev1 incidents on service {n} page the on-call engineer within 5 minutes; the release manager approves exceptions."),
    ]
}

/// A storage-format page of about `bytes`.
fn storage(bytes: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    while out.len() < bytes {
        let [h, a, b, c] = section(n);
        out.push_str(&format!(
            "<h2>{h}</h2><p>{a}</p><ac:structured-macro ac:name=\"info\"><ac:parameter ac:name=\"title\">Note</ac:parameter><ac:rich-text-body><p>{b}</p></ac:rich-text-body></ac:structured-macro>\
             <table><tbody><tr><th>Service</th><th>Owner</th></tr><tr><td>svc-{n}</td><td>{c}</td></tr></tbody></table>\
             <ac:structured-macro ac:name=\"code\"><ac:plain-text-body><![CDATA[kubectl rollout undo deploy/svc-{n}\nkubectl rollout status deploy/svc-{n}]]></ac:plain-text-body></ac:structured-macro>"
        ));
        n += 1;
    }
    out
}

/// An ADF paragraph.
fn paragraph(text: &str) -> Value {
    json!({"type": "paragraph", "content": [{"type": "text", "text": text}]})
}

/// A Jira issue's description and `comments` comments in ADF, as one array of docs.
fn adf_issue(comments: usize) -> Vec<Value> {
    (0..=comments)
        .map(|n| {
            let [h, a, b, c] = section(n);
            json!({"type": "doc", "version": 1, "content": [
                {"type": "heading", "attrs": {"level": 3}, "content": [{"type": "text", "text": h}]},
                paragraph(&a),
                {"type": "bulletList", "content": [
                    {"type": "listItem", "content": [paragraph(&b)]},
                    {"type": "listItem", "content": [paragraph(&c)]}
                ]}
            ]})
        })
        .collect()
}

/// The same issue in wiki markup.
fn wiki_issue(comments: usize) -> Vec<String> {
    (0..=comments)
        .map(|n| {
            let [h, a, b, c] = section(n);
            format!("h3. {h}\n{a} *Note:* _{b}_\n* {c}\n{{code}}kubectl rollout undo deploy/svc-{n}{{code}}\n")
        })
        .collect()
}

/// A README of about `bytes`.
fn markdown(bytes: usize) -> String {
    let mut out = String::from("---\ntitle: Runbook\n---\n# Runbook\n\n");
    let mut n = 0;
    while out.len() < bytes {
        let [h, a, b, c] = section(n);
        out.push_str(&format!(
            "## {h}\n\n{a} See [the dashboard](https://ci.example/{n}).\n\n- {b}\n- `{c}`\n\n| svc | owner |\n|---|---|\n| svc-{n} | team-{n} |\n\n```sh\nkubectl rollout undo deploy/svc-{n}\n```\n\n"
        ));
        n += 1;
    }
    out
}

/// The median and the fastest of `runs` runs of `work`.
fn time<T>(runs: usize, mut work: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        last = Some(work());
        times.push(started.elapsed());
    }
    times.sort();
    let result = last.expect("at least one run");
    (times[times.len() / 2], times[0], result)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Prints one row: what, its input size, the time to text, the text's size, and the
/// time to judge the five claims against it.
fn row(
    name: &str,
    input: usize,
    runs: usize,
    scorer: &SupportScorer,
    make: impl FnMut() -> String,
) {
    let (median, fastest, text) = time(runs, make);
    let read = page::document(text, None, false, ReadVia::Web);
    let (judged, chars) = match &read {
        PageRead::Read(page) => {
            let (judge_median, _, _) = time(runs, || {
                let sentences = Page::new(&[page.text.as_str()]);
                CLAIMS
                    .iter()
                    .map(|claim| scorer.score_page(claim, &sentences).score)
                    .sum::<f64>()
            });
            (ms(judge_median), page.text.chars().count())
        }
        PageRead::Unreadable(reason) => (format!("unreadable: {reason}"), 0),
    };
    println!(
        "| {name} | {} KiB | {} (fastest {}) | {} chars | {judged} |",
        input >> 10,
        ms(median),
        ms(fastest),
        chars
    );
}

/// The text of an Office or PDF file, as the page reader gives it.
fn office_text(content_type: &str, bytes: &[u8]) -> String {
    match page::extract(Some(content_type), bytes, false) {
        PageRead::Read(page) => page.text,
        PageRead::Unreadable(reason) => panic!("{content_type}: {reason}"),
    }
}

fn main() -> anyhow::Result<()> {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(7);
    let scorer = SupportScorer::builtin()?;
    println!("| document | input | to text: median | text | 5 claims judged |");
    println!("|---|---|---|---|---|");
    for bytes in [64 << 10, MAX_BYTES] {
        let page = storage(bytes);
        row("Confluence storage", page.len(), runs, &scorer, || {
            storage_to_text(&page)
        });
    }
    for comments in [20, 300] {
        let docs = adf_issue(comments);
        let size = serde_json::to_string(&docs)?.len();
        row(
            &format!("Jira ADF, {comments} comments"),
            size,
            runs,
            &scorer,
            || {
                docs.iter()
                    .map(adf_to_text)
                    .collect::<Vec<_>>()
                    .join("\n\n")
            },
        );
        let bodies = wiki_issue(comments);
        let size = bodies.iter().map(String::len).sum();
        row(
            &format!("Jira wiki markup, {comments} comments"),
            size,
            runs,
            &scorer,
            || {
                bodies
                    .iter()
                    .map(|b| wiki_to_text(b))
                    .collect::<Vec<_>>()
                    .join("\n\n")
            },
        );
    }
    for bytes in [64 << 10, MAX_BYTES] {
        let readme = markdown(bytes);
        row("GitHub Markdown", readme.len(), runs, &scorer, || {
            markdown_to_text(&readme)
        });
    }
    let paragraphs: Vec<String> = (0..4_000).flat_map(section).collect();
    let refs: Vec<&str> = paragraphs.iter().map(String::as_str).collect();
    let docx = office::docx(&refs);
    row(
        ".docx, 16,000 paragraphs",
        docx.len(),
        runs,
        &scorer,
        || {
            office_text(
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                &docx,
            )
        },
    );
    let slides: Vec<Vec<String>> = (0..400).map(|n| section(n).to_vec()).collect();
    let slide_refs: Vec<Vec<&str>> = slides
        .iter()
        .map(|s| s.iter().map(String::as_str).collect())
        .collect();
    let deck: Vec<&[&str]> = slide_refs.iter().map(Vec::as_slice).collect();
    let pptx = office::pptx(&deck);
    row(".pptx, 400 slides", pptx.len(), runs, &scorer, || {
        office_text(
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            &pptx,
        )
    });
    let cells: Vec<[String; 3]> = (0..10_000)
        .map(|n| {
            [
                format!("svc-{n}"),
                format!("{}", n % 64),
                format!("team-{}", n % 40),
            ]
        })
        .collect();
    let rows: Vec<Vec<&str>> = cells
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    let row_refs: Vec<&[&str]> = rows.iter().map(Vec::as_slice).collect();
    let xlsx = office::xlsx(&row_refs);
    row(".xlsx, 10,000 rows", xlsx.len(), runs, &scorer, || {
        office_text(
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            &xlsx,
        )
    });
    Ok(())
}

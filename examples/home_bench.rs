//! How long the App Home's figures take to compute: fills 10,000 reports (a quarter of
//! them asked for by people, the rest from three watched assistants) and feedback on
//! one report in five, for one workspace over 40 days, then times
//! [`WorkspaceData::activity`] for the last 7 and the last 30 days and prints the
//! median of 20 runs in ms. On SQLite (a temporary file) and, when
//! `SOURCEBOT_BENCH_POSTGRES_URL` is set (`postgres://user:password@host/db`), on
//! PostgreSQL too (the bench's rows are deleted afterwards):
//!
//! ```text
//! cargo run --release --example home_bench
//! ```

use sourcebot::install::store::SqlStore;
use sourcebot::install::token_key::TokenKey;
use sourcebot::install::workspace_data::WorkspaceData;
use sourcebot::model::workspace::{FeedbackRecord, ReportCounts, ReportRecord, Vote};
use std::time::Instant;

const REPORTS: u32 = 10_000;
const DAYS: i64 = 40;
const RUNS: usize = 20;
const DAY: i64 = 86_400;
const KEY: &str = "1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100";

/// Fills `workspace` with the bench's reports and feedback, ending at `now`.
async fn fill(data: &dyn WorkspaceData, workspace: &str, now: i64) -> anyhow::Result<()> {
    let start = now - DAYS * DAY;
    let step = DAYS * DAY / i64::from(REPORTS);
    for i in 0..REPORTS {
        let posted_at = start + i64::from(i) * step;
        let ts = format!("{posted_at}.{i:06}");
        let assistant = match i % 4 {
            0 => None,
            n => Some(format!("B{n}")),
        };
        let asked_by = assistant.is_none().then(|| format!("U{}", i % 50));
        data.record_report(&ReportRecord {
            workspace: workspace.to_string(),
            channel: format!("C{}", i % 20),
            message_ts: ts.clone(),
            assistant,
            asked_by,
            counts: ReportCounts {
                sources: 5 + i % 7,
                verified: 4 + i % 5,
                broken: i % 3,
                claims: 6 + i % 9,
                uncited: i % 4,
                not_supported: i % 2,
            },
            judge: "built-in".to_string(),
            posted_at,
        })
        .await?;
        if i % 5 == 0 {
            data.record_feedback(&FeedbackRecord {
                workspace: workspace.to_string(),
                channel: format!("C{}", i % 20),
                message_ts: ts,
                user_id: format!("U{}", i % 50),
                vote: if i % 3 == 0 { Vote::Down } else { Vote::Up },
                wrong: None,
                comment: None,
                at: posted_at + 60,
            })
            .await?;
        }
    }
    Ok(())
}

/// The median of `RUNS` runs of `activity` over the last `days`, in ms.
async fn time(
    data: &dyn WorkspaceData,
    workspace: &str,
    now: i64,
    days: i64,
) -> anyhow::Result<f64> {
    let mut runs = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let lines = data.activity(workspace, now - days * DAY).await?;
        runs.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(lines.len() == 4, "expected 4 lines, got {}", lines.len());
    }
    runs.sort_by(f64::total_cmp);
    Ok((runs[RUNS / 2 - 1] + runs[RUNS / 2]) / 2.0)
}

async fn bench(name: &str, data: &dyn WorkspaceData, workspace: &str) -> anyhow::Result<()> {
    let now = 1_800_000_000;
    let filled = Instant::now();
    fill(data, workspace, now).await?;
    println!(
        "{name}: {REPORTS} reports and {} feedback filled in {:.1} s",
        REPORTS / 5,
        filled.elapsed().as_secs_f64()
    );
    for days in [7, 30] {
        let median = time(data, workspace, now, days).await?;
        println!(
            "{name}: activity() over the last {days} days: median {median:.2} ms of {RUNS} runs"
        );
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let url = format!("sqlite://{}", dir.path().join("home_bench.db").display());
    let sqlite = SqlStore::connect(&url, TokenKey::from_hex(KEY)?).await?;
    bench("SQLite", &sqlite, "TBENCH").await?;

    match std::env::var("SOURCEBOT_BENCH_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => {
            let postgres = SqlStore::connect(&url, TokenKey::from_hex(KEY)?).await?;
            let workspace = format!("TBENCH{}", std::process::id());
            let result = bench("PostgreSQL", &postgres, &workspace).await;
            postgres.forget_workspace(&workspace).await?;
            result?;
        }
        _ => println!("PostgreSQL: skipped (set SOURCEBOT_BENCH_POSTGRES_URL to run it)"),
    }
    Ok(())
}

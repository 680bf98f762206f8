//! The whole `sourcebot check` with the support check on and off: prints its figures.
//!
//! Runs the release `sourcebot` binary (from the same target directory) on answers whose
//! claims cite pages served in this process, each run with a cold cache, and times the
//! whole command (start, collect, probe, read, judge, render). Two cases:
//!
//! - *1,000 links*: as `verify_bench`, 1,000 links on 100 loopback hosts (127.0.0.2 …
//!   127.0.0.101), 90 answering a small HTML page in 50 ms and 10 never answering; each
//!   link cited by one claim, so the support check reads its 20 pages (the most cited
//!   first). Goal: support on takes no more than support off plus 0.3 s.
//! - *slow and hanging pages*: one answer citing a page that answers at once, one that
//!   answers after 1.5 s, one whose body trickles without end, one that sends its
//!   headers and stalls, and one that never answers. Goal: the whole check within the
//!   2 s probe budget plus 0.5 s.
//!
//! Each figure is the median of the runs (the first argument, default 5), with the
//! fastest and slowest, and the requests the servers saw in one run.
//!
//! ```text
//! cargo build --release --bin sourcebot --example support_bench
//! target/release/examples/support_bench 5
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};
use support::cli::{allow_private, command_for, run, stderr, stdout};
use support::serve::release_binary;
use support::{Action, HostileServer, Route};

const SERVERS: usize = 100;
const HANGING: usize = 10;
const LINKS: usize = 1000;
const DEFAULT_RUNS: usize = 5;
/// The goals.
const MANY_LINKS_MARGIN: Duration = Duration::from_millis(300);
const SLOW_PAGES_LIMIT: Duration = Duration::from_millis(2500);

/// The servers of one case and the answer citing them.
struct Case {
    servers: Vec<HostileServer>,
    file: std::path::PathBuf,
}

impl Case {
    fn requests(&self) -> usize {
        self.servers.iter().map(HostileServer::requests).sum()
    }

    fn gets(&self) -> usize {
        self.servers
            .iter()
            .flat_map(HostileServer::request_log)
            .filter(|r| r.method == "GET")
            .count()
    }
}

/// What one run measured.
struct Run {
    /// The whole command.
    wall: Duration,
    /// The link check within it, as the report says.
    verify: Duration,
    /// Claim–source pairs judged.
    judged: usize,
    /// Requests the servers saw, and how many were GETs.
    requests: usize,
    gets: usize,
}

/// One run of `sourcebot check --format json` on the case's answer.
async fn check(case: &Case, support: bool) -> Run {
    let mut env = allow_private();
    if !support {
        env.push(("SOURCEBOT_SUPPORT", "off".to_string()));
    }
    let args = vec![
        "check".to_string(),
        case.file.display().to_string(),
        "--format".to_string(),
        "json".to_string(),
    ];
    let program = release_binary();
    let (requests, gets) = (case.requests(), case.gets());
    let started = Instant::now();
    let output = run(command_for(&program.display().to_string(), &args, &env)).await;
    let wall = started.elapsed();
    assert!(
        output.status.success(),
        "sourcebot check failed (build it first: cargo build --release --bin sourcebot): {}",
        stderr(&output)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap_or_default();
    let judged = report["claims"].as_array().map_or(0, |claims| {
        claims
            .iter()
            .map(|c| c["support"].as_array().map_or(0, Vec::len))
            .sum()
    });
    let verify = report["verification"]["elapsed_ms"]
        .as_u64()
        .map_or(Duration::ZERO, Duration::from_millis);
    Run {
        wall,
        verify,
        judged,
        requests: case.requests() - requests,
        gets: case.gets() - gets,
    }
}

/// The median, fastest and slowest of `walls`, in seconds.
fn spread(walls: &mut [Duration]) -> (f64, f64, f64) {
    walls.sort();
    let s = |d: Duration| d.as_secs_f64();
    (
        s(walls[walls.len() / 2]),
        s(walls[0]),
        s(walls[walls.len() - 1]),
    )
}

/// Runs the case `runs` times with support on and off, alternating; prints and returns
/// the two medians.
async fn measure(name: &str, case: &Case, runs: usize) -> (f64, f64) {
    let mut medians = [0.0; 2];
    let mut runs_of: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (i, support) in [true, false].into_iter().enumerate() {
            runs_of[i].push(check(case, support).await);
        }
    }
    println!("{name}:");
    for (i, label) in ["support on: ", "support off:"].into_iter().enumerate() {
        let mut walls: Vec<Duration> = runs_of[i].iter().map(|r| r.wall).collect();
        let mut verifies: Vec<Duration> = runs_of[i].iter().map(|r| r.verify).collect();
        let (median, fastest, slowest) = spread(&mut walls);
        let (verify, _, _) = spread(&mut verifies);
        let last = runs_of[i]
            .last()
            .map_or((0, 0, 0), |r| (r.judged, r.requests, r.gets));
        println!(
            "  {label} {median:.2} s ({fastest:.2}–{slowest:.2}), link check {verify:.2} s of it; {} claim–source pairs judged; {} requests ({} GET) a run",
            last.0, last.1, last.2
        );
        medians[i] = median;
    }
    (medians[0], medians[1])
}

async fn many_links(dir: &tempfile::TempDir) -> Case {
    let mut servers = Vec::with_capacity(SERVERS);
    for i in 0..SERVERS {
        let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + i as u8));
        let hanging = i >= SERVERS - HANGING;
        let routes: Vec<(String, Route)> = (0..LINKS)
            .filter(|link| link % SERVERS == i)
            .map(|link| {
                let action = if hanging {
                    Action::Hang
                } else {
                    Action::text(
                        200,
                        &format!("<html><head><title>Page {link}</title></head><body><article><p>Fact {link} holds on every weekday, says page {link}.</p></article></body></html>"),
                    )
                    .after(Duration::from_millis(50))
                };
                (format!("/page/{link}"), Route::always(action))
            })
            .collect();
        let routes: Vec<(&str, Route)> = routes
            .iter()
            .map(|(p, r)| (p.as_str(), r.clone()))
            .collect();
        servers.push(HostileServer::start(ip, routes).await);
    }
    let mut text = String::new();
    for link in 0..LINKS {
        text.push_str(&format!(
            "Fact {link} holds on every weekday [{}]. ",
            link + 1
        ));
    }
    text.push_str("\n\n");
    for link in 0..LINKS {
        let server = &servers[link % SERVERS];
        text.push_str(&format!(
            "[{}] {} - Page {link}\n",
            link + 1,
            server.url(&format!("/page/{link}"))
        ));
    }
    let file = dir.path().join("many.md");
    std::fs::write(&file, text).unwrap_or_else(|e| panic!("write the answer: {e}"));
    Case { servers, file }
}

async fn slow_pages(dir: &tempfile::TempDir) -> Case {
    let page = |n: usize| {
        format!("<html><body><article><p>Deploys are frozen on Fridays, says page {n}.</p></article></body></html>")
    };
    let pages: Vec<(&str, Action)> = vec![
        ("/quick", Action::text(200, &page(1))),
        (
            "/slow",
            Action::text(200, &page(2)).after(Duration::from_millis(1500)),
        ),
        ("/trickle", Action::Trickle(Duration::from_millis(100))),
        ("/stall", Action::HeadersThenStall),
        ("/hang", Action::Hang),
    ];
    let mut servers = Vec::new();
    let mut text = String::new();
    let mut references = String::new();
    for (n, (path, action)) in pages.into_iter().enumerate() {
        let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 1, 2 + n as u8));
        let server = HostileServer::start(ip, vec![(path, Route::always(action))]).await;
        text.push_str(&format!("Deploys are frozen on Fridays [{}]. ", n + 1));
        references.push_str(&format!("[{}] {} - Page {n}\n", n + 1, server.url(path)));
        servers.push(server);
    }
    let file = dir.path().join("slow.md");
    std::fs::write(&file, format!("{text}\n\n{references}"))
        .unwrap_or_else(|e| panic!("write the answer: {e}"));
    Case { servers, file }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let runs = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_RUNS)
        .max(1);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    println!("support_bench: the release sourcebot check --format json, cold cache, median of {runs} runs (fastest–slowest)");
    let case = many_links(&dir).await;
    let (on, off) = measure(
        &format!("{LINKS} links on {SERVERS} loopback hosts ({HANGING} never answer), every link cited by a claim"),
        &case,
        runs,
    )
    .await;
    println!(
        "  support costs {:+.2} s  (goal ≤ +{:.1} s: {})",
        on - off,
        MANY_LINKS_MARGIN.as_secs_f64(),
        if on - off <= MANY_LINKS_MARGIN.as_secs_f64() {
            "met"
        } else {
            "not met"
        }
    );
    drop(case);
    let case = slow_pages(&dir).await;
    let (on, _) = measure(
        "5 pages: at once, after 1.5 s, trickling, stalling after the headers, never answering",
        &case,
        runs,
    )
    .await;
    println!(
        "  whole check with support {on:.2} s  (goal ≤ {:.1} s: {})",
        SLOW_PAGES_LIMIT.as_secs_f64(),
        if on <= SLOW_PAGES_LIMIT.as_secs_f64() {
            "met"
        } else {
            "not met"
        }
    );
}

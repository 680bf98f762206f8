//! Link-checking benchmark: prints its figures.
//!
//! Starts 100 loopback servers, each on its own address (127.0.0.2 … 127.0.0.101, so
//! per-host caps apply per server), 90 answering in 50 ms and 10 never answering. One
//! answer cites 1,000 links spread over them; the pipeline collects it and checks every
//! link with a 2 s timeout and the default caps (32 at once, 4 per host; a host starts
//! with one slot and earns more as it answers). Then the same
//! answer is checked again, from the cache. Targets: first check ≤ 2.5 s wall, second
//! under 10 ms, peak RSS under 64 MB (servers included: they run in this process).
//!
//! ```text
//! cargo run --release --example verify_bench
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use sourcebot::collect::CollectOptions;
use sourcebot::model::Answer;
use sourcebot::verify::resolve::StaticLookup;
use sourcebot::verify::Verifier;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{Action, HostileServer, Route};

const SERVERS: usize = 100;
const HANGING: usize = 10;
const LINKS: usize = 1000;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut servers = Vec::with_capacity(SERVERS);
    for i in 0..SERVERS {
        let ip = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + i as u8));
        let action = if i >= SERVERS - HANGING {
            Action::Hang
        } else {
            Action::status(200).after(Duration::from_millis(50))
        };
        let decide = move |_: &support::RequestInfo, _: usize| action.clone();
        let routes: Vec<(String, Route)> = (0..LINKS)
            .filter(|link| link % SERVERS == i)
            .map(|link| (format!("/page/{link}"), Route::new(decide.clone())))
            .collect();
        let routes: Vec<(&str, Route)> = routes
            .iter()
            .map(|(p, r)| (p.as_str(), r.clone()))
            .collect();
        servers.push(HostileServer::start(ip, routes).await);
    }
    let mut text = String::from("An answer that cites a thousand pages.\n\n");
    for link in 0..LINKS {
        let server = &servers[link % SERVERS];
        text.push_str(&format!(
            "[{}] {} - Page {link}\n",
            link + 1,
            server.url(&format!("/page/{link}"))
        ));
    }
    let answer = Answer::from_text(&text);
    let verifier = Verifier::builder()
        .timeout(Duration::from_secs(2))
        .allow_private(true)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    let options = CollectOptions::default();

    let started = Instant::now();
    let first = sourcebot::check_and_verify(
        &answer,
        &options,
        &verifier,
        &sourcebot::score::Scorer::default(),
        None,
    )
    .await;
    let first_wall = started.elapsed();
    let counts = &first.verification.counts;
    let requests: usize = servers.iter().map(HostileServer::requests).sum();

    let started = Instant::now();
    let mut second = sourcebot::check(&answer, &options);
    let collect_wall = started.elapsed();
    verifier.verify_report(&mut second, None).await;
    let second_wall = started.elapsed();
    let requests_after: usize = servers.iter().map(HostileServer::requests).sum();

    let reason_count = |needle: &str| {
        first
            .sources()
            .filter(|s| {
                s.verdict
                    .reason
                    .as_deref()
                    .is_some_and(|r| r.contains(needle))
            })
            .count()
    };
    let host_silent = reason_count("let another link time out");
    let budget_spent = reason_count("budget ran out");
    println!("verify_bench: {LINKS} links on {SERVERS} loopback hosts ({HANGING} never answer), timeout 2 s, caps 32 / 4 per host");
    println!(
        "first check:  {:>8.1} ms wall, collect included; verification {} ms  (target ≤ 2500 ms)",
        first_wall.as_secs_f64() * 1e3,
        first.verification.elapsed_ms.unwrap_or_default()
    );
    println!(
        "  verdicts: {} verified (of {} on answering hosts), {} timed out ({} not probed: their host had just let a link time out; {} cut by the budget), {} other",
        counts.verified,
        LINKS / SERVERS * (SERVERS - HANGING),
        counts.timed_out,
        host_silent,
        budget_spent,
        first.sources().count() - counts.verified - counts.timed_out
    );
    println!("  requests the servers saw: {requests}");
    println!(
        "second check: {:>8.3} ms wall  (target < 10 ms; collect {:.3} ms of it), {} verified, {} new requests",
        second_wall.as_secs_f64() * 1e3,
        collect_wall.as_secs_f64() * 1e3,
        second.verification.counts.verified,
        requests_after - requests
    );
    println!("cached verdicts: {}", verifier.cached_verdicts());
    match peak_rss_kib() {
        Some(kib) => println!(
            "peak RSS: {:.1} MB  (target < 64 MB; servers included)",
            kib as f64 / 1024.0
        ),
        None => println!("peak RSS: unknown (no /proc/self/status)"),
    }
}

/// The process's peak resident set (VmHWM), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

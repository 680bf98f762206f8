//! `sourcebot serve` under load: prints its figures.
//!
//! Starts the fake Slack Web API (tests/support/slack.rs) and two loopback link servers
//! answering 200 in this process, and the real `sourcebot serve` (HTTP mode, from the
//! same target directory) as a child process pointed at them. Then sends signed
//! `event_callback` requests carrying `app_mention` events, each with its own
//! `event_id`, open loop at a steady 200 a second (request i leaves at start + i × 5 ms,
//! whatever became of the earlier ones), spread over 200 channels so the
//! one-post-a-second pacing per channel never queues them behind one channel. Each
//! mention's text is a short answer citing one or two links with a query of its own, so
//! every event runs the whole pipeline: collect, probe (no cache hits), render,
//! `chat.postMessage`. It measures the ack latency of every request (send → response
//! status) and reports p50/p90/p99/max, waits for the work to drain and counts the posts
//! the fake Slack saw against the events sent, and reads the bot process's peak RSS
//! (VmHWM of the child) and its RSS over time. The load generator uses a tokio runtime
//! of 2 worker threads (the CI machine has 2 cores) and shares the machine with the
//! bot. Targets: ack p99 ≤ 10 ms, the bot's peak RSS ≤ 64 MB. The duration in seconds is
//! the first argument (default 30):
//!
//! ```text
//! cargo build --release --bin sourcebot --example serve_bench
//! target/release/examples/serve_bench 30
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use serde_json::json;
use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::serve::{
    free_port, ready_within, release_binary, spawn_bench_serve, BENCH_SIGNING_SECRET,
};
use support::slack::{app_mention_event, sign_request, unix_now, FakeSlack, BOT_USER_ID};
use support::{HostileServer, Route};

const SECRET: &str = BENCH_SIGNING_SECRET;
/// Events a second.
const RATE: u64 = 200;
/// Channels the events are spread over.
const CHANNELS: usize = 200;
/// Default duration of the load, in seconds.
const DEFAULT_SECS: u64 = 30;
/// The longest the work may take to drain after the load.
const DRAIN_MAX: Duration = Duration::from_secs(30);
/// Draining stops early when no post arrived for this long.
const DRAIN_IDLE: Duration = Duration::from_secs(5);
/// Targets.
const TARGET_P99_MS: f64 = 10.0;
const TARGET_RSS_MB: f64 = 64.0;

/// One request's outcome.
struct Sample {
    /// Send → response status.
    ack: Duration,
    /// How late the request left after its scheduled time.
    lag: Duration,
    /// The HTTP status; 0 when the request failed.
    status: u16,
}

/// One reading taken every second while the load runs and drains.
struct Reading {
    at: Duration,
    rss_kib: u64,
    sent: usize,
    probes: usize,
    posts: usize,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let secs = match std::env::args().nth(1) {
        None => DEFAULT_SECS,
        Some(arg) => match arg.parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("usage: serve_bench [SECONDS]  (a whole number of seconds, default {DEFAULT_SECS})");
                std::process::exit(2);
            }
        },
    };
    let total = (secs * RATE) as usize;
    let interval = Duration::from_nanos(1_000_000_000 / RATE);

    sourcebot::verify::install_crypto_provider();
    let fake = Arc::new(FakeSlack::start().await);
    let site_a = HostileServer::start(
        IpAddr::V4(Ipv4Addr::new(127, 5, 0, 1)),
        vec![("/ok", Route::status(200))],
    )
    .await;
    let site_b = HostileServer::start(
        IpAddr::V4(Ipv4Addr::new(127, 5, 0, 2)),
        vec![("/ok", Route::status(200))],
    )
    .await;
    let addr = format!("127.0.0.1:{}", free_port());
    let bot = spawn_bench_serve(
        std::process::Command::new(release_binary()),
        &fake.api_url(),
        &addr,
        &[],
    );
    let bot_pid = bot.0.id();
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(256)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    if !ready_within(&http, &addr, Duration::from_secs(20)).await {
        eprintln!("serve_bench: sourcebot serve did not say ready (/readyz) within 20 s");
        drop(bot); // exit skips destructors: stop the server first
        std::process::exit(1);
    }
    let url = format!("http://{addr}/slack/events");
    let (url_a, url_b) = (site_a.url("/ok"), site_b.url("/ok"));
    let rss_before = status_kib(bot_pid, "VmRSS:").unwrap_or_default();

    // Every second: RSS, requests sent, probes the link servers saw, posts stored.
    let readings: Arc<Mutex<Vec<Reading>>> = Arc::default();
    let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let start = tokio::time::Instant::now() + Duration::from_millis(50);
    let sampler = {
        let (readings, sent, fake) = (readings.clone(), sent.clone(), fake.clone());
        let probes = {
            let (a, b) = (Arc::new(site_a), Arc::new(site_b));
            move || a.requests() + b.requests()
        };
        tokio::spawn(async move {
            let mut tick = tokio::time::interval_at(start, Duration::from_secs(1));
            loop {
                let at = tick.tick().await;
                let reading = Reading {
                    at: at.duration_since(start),
                    rss_kib: status_kib(bot_pid, "VmRSS:").unwrap_or_default(),
                    sent: sent.load(std::sync::atomic::Ordering::Relaxed),
                    probes: probes(),
                    posts: stored_posts(&fake),
                };
                readings.lock().unwrap().push(reading);
            }
        })
    };

    // The load: request i leaves at start + i × interval, open loop.
    let mut requests = Vec::with_capacity(total);
    for i in 0..total {
        let due = start + interval * i as u32;
        tokio::time::sleep_until(due).await;
        let text = if i % 2 == 0 {
            format!(
                "<@{BOT_USER_ID}> Deploys freeze on Fridays [1]. Rollbacks need a ticket [2].\n\n[1] {url_a}?n={i} - Freeze policy\n[2] {url_b}?n={i} - Rollback policy"
            )
        } else {
            format!(
                "<@{BOT_USER_ID}> Deploys freeze on Fridays [1].\n\n[1] {url_a}?n={i} - Freeze policy"
            )
        };
        let channel = format!("C{}", i % CHANNELS);
        let ts = format!("1700001000.{i:06}");
        let body = json!({
            "token": "x", "team_id": "T0001", "api_app_id": "A0001",
            "type": "event_callback", "event_id": format!("Ev{i:08}"),
            "event_time": 1_700_001_000,
            "event": app_mention_event(&channel, "U1", &text, &ts, None),
        })
        .to_string();
        let (http, url, sent) = (http.clone(), url.clone(), sent.clone());
        requests.push(tokio::spawn(async move {
            let timestamp = unix_now().to_string();
            let request = http
                .post(url)
                .header("content-type", "application/json")
                .header("x-slack-request-timestamp", &timestamp)
                .header("x-slack-signature", sign_request(SECRET, &timestamp, &body))
                .body(body);
            let lag = tokio::time::Instant::now().saturating_duration_since(due);
            sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let began = Instant::now();
            let response = request.send().await;
            let ack = began.elapsed();
            let status = match response {
                Ok(response) => {
                    let status = response.status().as_u16();
                    let _ = response.bytes().await;
                    status
                }
                Err(_) => 0,
            };
            Sample { ack, lag, status }
        }));
    }
    let load_wall = start.elapsed();
    let mut samples = Vec::with_capacity(total);
    for request in requests {
        samples.push(request.await.expect("request task"));
    }
    let acked_wall = start.elapsed();

    // Let the work drain: until every event has its post, or no post came for a while.
    // `last` ends as the number of posts Slack accepted (each is stored as a message).
    let drain_started = Instant::now();
    let mut last = stored_posts(&fake);
    let mut last_change = Instant::now();
    while last < total && drain_started.elapsed() < DRAIN_MAX && last_change.elapsed() < DRAIN_IDLE
    {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let now_posts = stored_posts(&fake);
        if now_posts != last {
            last = now_posts;
            last_change = Instant::now();
        }
    }
    let drain_wall = drain_started.elapsed();
    sampler.abort();
    let peak_kib = status_kib(bot_pid, "VmHWM:");
    let end_kib = status_kib(bot_pid, "VmRSS:");
    let generator_peak_kib = status_kib(std::process::id(), "VmHWM:");
    let every_call = fake.calls();
    let calls: Vec<&support::Call> = every_call
        .iter()
        .filter(|c| c.method == "chat.postMessage")
        .collect();
    let answered: HashSet<(String, String)> = calls
        .iter()
        .filter_map(|c| {
            Some((
                c.str("channel")?.to_string(),
                c.str("thread_ts")?.to_string(),
            ))
        })
        .collect();
    let all_verified = calls
        .iter()
        .filter(|c| {
            let text = c.str("text").unwrap_or_default();
            text.contains("verified") && !text.contains("broken") && !text.contains("timed out")
        })
        .count();
    let other_calls: Vec<String> = {
        let mut methods: Vec<String> = every_call
            .iter()
            .map(|c| c.method.clone())
            .filter(|m| m != "chat.postMessage" && m != "auth.test")
            .collect();
        methods.sort();
        methods.dedup();
        methods
    };
    let post_calls = calls.len();
    drop(calls);
    drop(every_call);
    sampler.abort();
    drop(bot);

    let errors = samples.iter().filter(|s| s.status != 200).count();
    let failed = samples.iter().filter(|s| s.status == 0).count();
    let mut acks: Vec<Duration> = samples.iter().map(|s| s.ack).collect();
    acks.sort_unstable();
    let mut lags: Vec<Duration> = samples.iter().map(|s| s.lag).collect();
    lags.sort_unstable();
    let mut from_due: Vec<Duration> = samples.iter().map(|s| s.lag + s.ack).collect();
    from_due.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let p99 = ms(percentile(&acks, 99.0));
    let mark = |ok: bool| if ok { "ok" } else { "MISSED" };

    println!(
        "serve_bench: {total} signed app_mention events over {secs} s ({RATE}/s open loop, {CHANNELS} channels), 1–2 links each to loopback servers answering 200"
    );
    println!(
        "load: last request scheduled at {:.2} s, all acked at {:.2} s; sending lag p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        load_wall.as_secs_f64(),
        acked_wall.as_secs_f64(),
        ms(percentile(&lags, 50.0)),
        ms(percentile(&lags, 99.0)),
        ms(percentile(&lags, 100.0)),
    );
    println!("{:<24} {:>10}  target", "ack latency", "");
    println!("{:<24} {:>10}", "  requests", samples.len());
    println!(
        "{:<24} {:>10}  0          {}",
        "  errors (non-200)",
        errors,
        mark(errors == 0)
    );
    if failed > 0 {
        println!("{:<24} {:>10}", "    of which no answer", failed);
    }
    for (name, q) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("max", 100.0)] {
        let value = ms(percentile(&acks, q));
        if name == "p99" {
            println!(
                "{:<24} {:>7.2} ms  ≤ {TARGET_P99_MS} ms    {}",
                "  p99",
                value,
                mark(p99 <= TARGET_P99_MS)
            );
        } else {
            println!("{:<24} {:>7.2} ms", format!("  {name}"), value);
        }
    }
    println!(
        "{:<24} {:>7.2} ms  (p99 counted from the scheduled time: sending lag included)",
        "  p99 from schedule",
        ms(percentile(&from_due, 99.0))
    );
    println!("work");
    println!(
        "{:<24} {:>10}  (distinct threads answered: {}; reports with every link verified: {})",
        "  chat.postMessage calls",
        post_calls,
        answered.len(),
        all_verified
    );
    println!(
        "{:<24} {:>10}  {} after a drain of {:.1} s",
        "  posts vs events",
        format!("{last}/{total}"),
        if last == total {
            "every event answered"
        } else {
            "NOT every event answered"
        },
        drain_wall.as_secs_f64()
    );
    println!(
        "{:<24} {:>10}",
        "  link probes",
        readings
            .lock()
            .unwrap()
            .last()
            .map(|r| r.probes)
            .unwrap_or_default()
    );
    if !other_calls.is_empty() {
        println!("  other Slack calls: {}", other_calls.join(", "));
    }
    println!("memory (the sourcebot serve process)");
    let mb = |kib: u64| kib as f64 / 1024.0;
    match peak_kib {
        Some(kib) => println!(
            "{:<24} {:>7.1} MB  ≤ {TARGET_RSS_MB} MB    {}",
            "  peak RSS (VmHWM)",
            mb(kib),
            mark(mb(kib) <= TARGET_RSS_MB)
        ),
        None => println!("  peak RSS: unknown (no /proc/self/status)"),
    }
    if let Some(kib) = end_kib {
        println!("{:<24} {:>7.1} MB", "  RSS at the end", mb(kib));
    }
    println!("{:<24} {:>7.1} MB", "  RSS before the load", mb(rss_before));
    if let Some(kib) = generator_peak_kib {
        println!(
            "{:<24} {:>7.1} MB  (this process: fake Slack, link servers, load generator)",
            "  load side peak RSS",
            mb(kib)
        );
    }
    println!("timeline (every 5 s: sent / probes / posts stored / the bot's RSS)");
    for r in readings.lock().unwrap().iter().step_by(5) {
        println!(
            "  {:>4.0} s  {:>6} sent  {:>6} probes  {:>6} posts  {:>6.1} MB",
            r.at.as_secs_f64(),
            r.sent,
            r.probes,
            r.posts,
            mb(r.rss_kib)
        );
    }
}

/// The `q`-th percentile (nearest rank) of sorted `values`.
fn percentile(values: &[Duration], q: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((q / 100.0) * values.len() as f64).ceil() as usize;
    values[rank.clamp(1, values.len()) - 1]
}

/// Messages the fake stored in the benchmark's channels: one per successful post.
fn stored_posts(fake: &FakeSlack) -> usize {
    (0..CHANNELS)
        .map(|c| fake.messages(&format!("C{c}")).len())
        .sum()
}

/// A `/proc/self/status` figure in KiB (`VmHWM:` is the peak RSS, `VmRSS:` the RSS).
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

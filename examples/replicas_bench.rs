//! Two replicas sharing Redis under load: prints ack latency and whether every event
//! was answered exactly once.
//!
//! Starts a `redis-server` on a free port, the fake Slack Web API and two loopback link
//! servers in this process, and two real `sourcebot serve` processes (HTTP mode, from
//! the same target directory) with `SOURCEBOT_REDIS_URL` pointing at that Redis. Then
//! sends signed `event_callback`s carrying `app_mention`s, open loop at 200 events a
//! second over 200 channels, **each event delivered to both replicas at once** (as a
//! load balancer might after a client retry, or Slack after a timeout), and one event
//! in ten delivered a third time a second later with `X-Slack-Retry-Num: 1` (to either
//! replica). Every event cites one or two links with a query of its own, so each runs
//! the whole pipeline: claim, collect, probe, render, `chat.postMessage`.
//!
//! Measured: the ack latency of every request (p50/p90/p99/max; target p99 ≤ 10 ms),
//! the events answered (target: every one), the events answered more than once (target
//! 0) and lost (target 0). The duration in seconds is the first argument (default 30):
//!
//! ```text
//! cargo build --release --bin sourcebot --example replicas_bench
//! target/release/examples/replicas_bench 30
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use serde_json::json;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::redis::RedisServer;
use support::serve::{
    free_port, ready_within, release_binary, spawn_bench_serve, BENCH_SIGNING_SECRET,
};
use support::slack::{app_mention_event, sign_request, unix_now, FakeSlack, BOT_USER_ID};
use support::{HostileServer, Route};

/// Events a second.
const RATE: u64 = 200;
/// Channels the events are spread over.
const CHANNELS: usize = 200;
const DEFAULT_SECS: u64 = 30;
/// One event in this many is retried.
const RETRY_EVERY: usize = 10;
/// When the retry follows the first deliveries.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// Draining stops when every event is answered, after this long at most, or after
/// this long without a new post.
const DRAIN_MAX: Duration = Duration::from_secs(30);
const DRAIN_IDLE: Duration = Duration::from_secs(5);
const TARGET_P99_MS: f64 = 10.0;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let secs = match std::env::args().nth(1) {
        None => DEFAULT_SECS,
        Some(arg) => match arg.parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!(
                    "usage: replicas_bench [SECONDS]  (a whole number, default {DEFAULT_SECS})"
                );
                std::process::exit(2);
            }
        },
    };
    let total = (secs * RATE) as usize;
    let interval = Duration::from_nanos(1_000_000_000 / RATE);

    sourcebot::verify::install_crypto_provider();
    let Some(redis) = RedisServer::start().await else {
        eprintln!("replicas_bench needs redis-server (apt-get install redis-server)");
        std::process::exit(1);
    };
    let fake = Arc::new(FakeSlack::start().await);
    let site_a = HostileServer::start(
        IpAddr::V4(Ipv4Addr::new(127, 10, 0, 1)),
        vec![("/ok", Route::status(200))],
    )
    .await;
    let site_b = HostileServer::start(
        IpAddr::V4(Ipv4Addr::new(127, 10, 0, 2)),
        vec![("/ok", Route::status(200))],
    )
    .await;
    let redis_url = redis.url();
    let extra = [("SOURCEBOT_REDIS_URL", redis_url.as_str())];
    let addrs = [
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
    ];
    let replicas: Vec<_> = addrs
        .iter()
        .map(|addr| {
            spawn_bench_serve(
                std::process::Command::new(release_binary()),
                &fake.api_url(),
                addr,
                &extra,
            )
        })
        .collect();
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(256)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    for addr in &addrs {
        if !ready_within(&http, addr, Duration::from_secs(20)).await {
            eprintln!("replicas_bench: sourcebot serve on {addr} did not say ready within 20 s");
            drop(replicas);
            std::process::exit(1);
        }
    }
    let urls: Vec<String> = addrs
        .iter()
        .map(|addr| format!("http://{addr}/slack/events"))
        .collect();
    let (link_a, link_b) = (site_a.url("/ok"), site_b.url("/ok"));

    // The load: event i leaves at start + i × interval, to both replicas, open loop.
    let start = tokio::time::Instant::now() + Duration::from_millis(50);
    let mut requests = Vec::with_capacity(total * 2 + total / RETRY_EVERY);
    for i in 0..total {
        let due = start + interval * i as u32;
        tokio::time::sleep_until(due).await;
        let text = if i % 2 == 0 {
            format!(
                "<@{BOT_USER_ID}> Deploys freeze on Fridays [1]. Rollbacks need a ticket [2].\n\n[1] {link_a}?n={i} - Freeze policy\n[2] {link_b}?n={i} - Rollback policy"
            )
        } else {
            format!(
                "<@{BOT_USER_ID}> Deploys freeze on Fridays [1].\n\n[1] {link_a}?n={i} - Freeze policy"
            )
        };
        let body = json!({
            "token": "x", "team_id": "T0001", "api_app_id": "A0001",
            "type": "event_callback", "event_id": format!("Ev{i:08}"),
            "event_time": 1_700_001_000,
            "event": app_mention_event(&format!("C{}", i % CHANNELS), "U1", &text, &event_ts(i), None),
        })
        .to_string();
        let mut deliveries: Vec<(String, Duration, bool)> = urls
            .iter()
            .map(|url| (url.clone(), Duration::ZERO, false))
            .collect();
        if i % RETRY_EVERY == 0 {
            deliveries.push((urls[(i / RETRY_EVERY) % 2].clone(), RETRY_AFTER, true));
        }
        for (url, after, retry) in deliveries {
            let (http, body) = (http.clone(), body.clone());
            requests.push(tokio::spawn(async move {
                if !after.is_zero() {
                    tokio::time::sleep(after).await;
                }
                deliver(&http, &url, &body, retry).await
            }));
        }
    }
    let mut acks = Vec::with_capacity(requests.len());
    let mut errors = 0;
    for request in requests {
        match request.await {
            Ok((200, ack)) => acks.push(ack),
            _ => errors += 1,
        }
    }

    let drain_started = Instant::now();
    let mut last = fake.calls_to("chat.postMessage").len();
    let mut last_change = Instant::now();
    while last < total && drain_started.elapsed() < DRAIN_MAX && last_change.elapsed() < DRAIN_IDLE
    {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let now = fake.calls_to("chat.postMessage").len();
        if now != last {
            last = now;
            last_change = Instant::now();
        }
    }
    // A moment more, so that a late duplicate would be seen.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut answers: HashMap<String, usize> = HashMap::new();
    for call in fake.calls_to("chat.postMessage") {
        if let Some(thread) = call.str("thread_ts") {
            *answers.entry(thread.to_string()).or_default() += 1;
        }
    }
    drop(replicas);

    let answered = (0..total)
        .filter(|i| answers.contains_key(&event_ts(*i)))
        .count();
    let twice = answers.values().filter(|n| **n > 1).count();
    let lost = total - answered;
    acks.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let p99 = ms(percentile(&acks, 99.0));
    let mark = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "replicas_bench: 2 × sourcebot serve sharing one redis-server; {total} events over {secs} s ({RATE}/s, {CHANNELS} channels), each delivered to both replicas, 1 in {RETRY_EVERY} retried once more"
    );
    println!(
        "requests: {} sent, {errors} not answered 200 ({})",
        acks.len() + errors,
        mark(errors == 0)
    );
    println!(
        "ack latency: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms (target ≤ {TARGET_P99_MS} ms: {}), max {:.2} ms",
        ms(percentile(&acks, 50.0)),
        ms(percentile(&acks, 90.0)),
        p99,
        mark(p99 <= TARGET_P99_MS),
        ms(percentile(&acks, 100.0)),
    );
    println!(
        "events answered: {answered}/{total}; answered more than once: {twice} ({}); lost: {lost} ({})",
        mark(twice == 0),
        mark(lost == 0)
    );
    println!(
        "posts: {} chat.postMessage calls, drained {:.1} s after the last ack",
        answers.values().sum::<usize>(),
        drain_started.elapsed().as_secs_f64()
    );
    if errors > 0 || twice > 0 || lost > 0 || p99 > TARGET_P99_MS {
        std::process::exit(1);
    }
}

/// The `ts` of event `i` (and so the thread its answer goes to).
fn event_ts(i: usize) -> String {
    format!("1700001000.{i:06}")
}

/// Sends one signed delivery; its status (0 if none) and ack latency.
async fn deliver(http: &reqwest::Client, url: &str, body: &str, retry: bool) -> (u16, Duration) {
    let timestamp = unix_now().to_string();
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("x-slack-request-timestamp", &timestamp)
        .header(
            "x-slack-signature",
            sign_request(BENCH_SIGNING_SECRET, &timestamp, body),
        )
        .body(body.to_string());
    if retry {
        request = request
            .header("x-slack-retry-num", "1")
            .header("x-slack-retry-reason", "http_timeout");
    }
    let began = Instant::now();
    let status = match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            let _ = response.bytes().await;
            status
        }
        Err(_) => 0,
    };
    (status, began.elapsed())
}

/// The `q`-th percentile (nearest rank) of sorted `values`.
fn percentile(values: &[Duration], q: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((q / 100.0) * values.len() as f64).ceil() as usize;
    values[rank.clamp(1, values.len()) - 1]
}

//! `POST /v1/check` of `sourcebot serve` under load: prints its figures.
//!
//! Starts the fake Slack Web API (tests/support/slack.rs) and 10 loopback link servers
//! (127.9.0.1 … 127.9.0.10, each answering 200 at once) in this process, and the real
//! `sourcebot serve` (HTTP mode with the answer API on, from the same target directory)
//! as a child process pointed at them, pinned to cores 0 and 1 with `taskset -c 0,1`
//! when `taskset` is there (the CI machine has 2 cores). The rate limit is set out of the
//! way (`1000000/s`). The answer is one realistic Markdown answer of about 20 KB:
//! sections of claims with `[n]` markers, a few inline Markdown links, a code block and a
//! reference list of 40 sources `[n] URL - Title`, 50 distinct links in all, every one on
//! a link server.
//!
//! Two phases, each for the same duration, closed loop: 16 clients (tasks sharing one
//! keep-alive connection pool) each send the answer, read the whole response, and send
//! it again at once.
//!
//! 1. `POST /v1/check?verify=false` with `content-type: text/markdown`: collect, score
//!    and render only.
//! 2. `POST /v1/check?verify=true`: first one request alone, which probes all 50 links
//!    (its latency is printed on its own), then the load, whose checks find every verdict
//!    in the cache (the link servers' request count shows whether any probe went out).
//!
//! For each phase it prints requests/s, the latency of every request (send → whole body
//! read) at p50/p90/p99/max, the non-200 answers (the first one's body is printed), and
//! the server's CPU seconds (utime + stime from /proc/<pid>/stat) and peak RSS (VmHWM
//! from /proc/<pid>/status). The load generator runs on a tokio runtime of 2 worker
//! threads and shares the machine with the server: its own CPU time is printed too. At
//! the end: the command and a summary block to paste into docs/speed.md. The duration of
//! each phase in seconds is the first argument (default 10):
//!
//! ```text
//! cargo build --release --bin sourcebot --example api_bench
//! target/release/examples/api_bench 10
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use axum::body::Bytes;
use serde_json::Value;
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};
use support::serve::{free_port, ready_within, release_binary, spawn_bench_serve};
use support::{FakeSlack, HostileServer, Route};

/// The bearer token of the answer API (at least 16 characters).
const TOKEN: &str = "api-bench-token-5f1c9e0d7a3b2c48";
/// Concurrent clients.
const CLIENTS: usize = 16;
/// Loopback link servers.
const SERVERS: usize = 10;
/// Sources in the reference list.
const REFERENCES: usize = 40;
/// Distinct inline Markdown links in the running text.
const INLINE: usize = 10;
/// Sentences of prose (about 20 KB with the reference list).
const SENTENCES: usize = 120;
/// Default duration of each phase, in seconds.
const DEFAULT_SECS: u64 = 10;
/// The longest one request may take before the client gives up.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// What one phase of load produced.
struct Phase {
    /// Latency (send → whole body read) of every request, sorted.
    latencies: Vec<Duration>,
    /// Requests answered with anything but 200, or not answered.
    errors: usize,
    /// The first of those in time: when it was answered, its status and body.
    first_error: Option<(Instant, String)>,
    /// First request sent → last response read.
    wall: Duration,
    /// Response body bytes read over the phase.
    body_bytes: u64,
    /// The last 200 body one client read, to show what the answers said.
    last_body: Option<Bytes>,
    /// The server's CPU time over the phase.
    server_cpu: Option<Duration>,
    /// This process's CPU time over the phase (the load generator and link servers).
    client_cpu: Option<Duration>,
    /// The server's peak RSS so far (VmHWM) and its RSS, in KiB, after the phase.
    peak_kib: Option<u64>,
    rss_kib: Option<u64>,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let secs = match std::env::args().nth(1) {
        None => DEFAULT_SECS,
        Some(arg) => match arg.parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!(
                    "usage: api_bench [SECONDS]  (seconds per phase, a whole number, default {DEFAULT_SECS})"
                );
                std::process::exit(2);
            }
        },
    };
    let duration = Duration::from_secs(secs);

    sourcebot::verify::install_crypto_provider();
    let fake = FakeSlack::start().await;

    // The links: reference n on server (n - 1) % SERVERS, inline link k on server k %
    // SERVERS; every path answers 200 with no body.
    let reference_paths: Vec<String> = (1..=REFERENCES)
        .map(|n| format!("/docs/{}-{n}", slug(TITLES[(n - 1) % TITLES.len()])))
        .collect();
    let inline_paths: Vec<String> = (0..INLINE)
        .map(|k| format!("/guides/{}", slug(LINK_LABELS[k % LINK_LABELS.len()])))
        .collect();
    let mut servers = Vec::with_capacity(SERVERS);
    for i in 0..SERVERS {
        let mine: Vec<&str> = reference_paths
            .iter()
            .enumerate()
            .filter(|(n, _)| n % SERVERS == i)
            .chain(
                inline_paths
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| k % SERVERS == i),
            )
            .map(|(_, path)| path.as_str())
            .collect();
        let routes = mine.into_iter().map(|p| (p, Route::status(200))).collect();
        let ip = IpAddr::V4(Ipv4Addr::new(127, 9, 0, 1 + i as u8));
        servers.push(HostileServer::start(ip, routes).await);
    }
    let reference_urls: Vec<String> = reference_paths
        .iter()
        .enumerate()
        .map(|(n, path)| servers[n % SERVERS].url(path))
        .collect();
    let inline_urls: Vec<String> = inline_paths
        .iter()
        .enumerate()
        .map(|(k, path)| servers[k % SERVERS].url(path))
        .collect();
    let answer = build_answer(&reference_urls, &inline_urls);
    let probes = || servers.iter().map(HostileServer::requests).sum::<usize>();

    // `sourcebot serve`, on 2 cores when taskset can pin it, in an empty directory so
    // that no `.env` is read.
    let addr = format!("127.0.0.1:{}", free_port());
    let workdir = tempfile::tempdir().expect("temporary directory");
    let pinned = taskset_works();
    let mut command = if pinned {
        let mut command = std::process::Command::new("taskset");
        command.args(["-c", "0,1"]).arg(release_binary());
        command
    } else {
        std::process::Command::new(release_binary())
    };
    command.current_dir(workdir.path());
    let bot = spawn_bench_serve(
        command,
        &fake.api_url(),
        &addr,
        &[
            ("SOURCEBOT_API_TOKEN", TOKEN),
            ("SOURCEBOT_API_RATE_LIMIT", "1000000/s"),
        ],
    );
    let bot_pid = bot.0.id();
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(CLIENTS * 2)
        .timeout(REQUEST_TIMEOUT)
        .build()
        .expect("client");
    if !ready_within(&http, &addr, Duration::from_secs(20)).await {
        eprintln!("api_bench: sourcebot serve did not say ready (/readyz) within 20 s");
        drop(bot); // exit skips destructors: stop the server first
        std::process::exit(1);
    }
    let cpus_allowed = status_field(bot_pid, "Cpus_allowed_list:");
    let nproc = std::thread::available_parallelism().map_or(0, usize::from);
    let rss_before = status_kib(bot_pid, "VmRSS:");
    let body = Bytes::from(answer);
    let url = |verify: bool| format!("http://{addr}/v1/check?verify={verify}");

    // One request first, to see that the API answers and what it makes of the answer.
    let (status, first_body, first_latency) = send(&http, &url(false), &body).await;
    if status != 200 {
        eprintln!(
            "api_bench: the first POST /v1/check?verify=false was answered {status}: {}",
            String::from_utf8_lossy(&first_body)
        );
        drop(bot); // exit skips destructors: stop the server first
        std::process::exit(1);
    }
    let shape = summary(&first_body);

    // Phase 1: no verification.
    let unverified = load(&http, &url(false), &body, duration, bot_pid).await;

    // Phase 2: one request alone probes every link; then the load, from the cache.
    let probes_before = probes();
    let (status, lone_body, lone_latency) = send(&http, &url(true), &body).await;
    let lone_probes = probes() - probes_before;
    let lone = summary(&lone_body);
    let probes_before_load = probes();
    let verified = load(&http, &url(true), &body, duration, bot_pid).await;
    let load_probes = probes() - probes_before_load;
    let steady = verified.last_body.as_deref().map(summary);
    let metrics = match http.get(format!("http://{addr}/metrics")).send().await {
        Ok(response) => response.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    };
    drop(bot);

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mb = |kib: u64| kib as f64 / 1024.0;
    let command = format!(
        "cargo build --release --bin sourcebot --example api_bench && target/release/examples/api_bench {secs}"
    );
    println!(
        "api_bench: POST /v1/check, {CLIENTS} keep-alive clients, closed loop, {secs} s per phase"
    );
    println!(
        "machine: nproc {nproc}; server pinned with taskset -c 0,1: {}{}",
        if pinned {
            "yes"
        } else {
            "no (no working taskset)"
        },
        cpus_allowed
            .map(|cpus| format!(" (its Cpus_allowed_list: {cpus})"))
            .unwrap_or_default()
    );
    println!(
        "answer: {} bytes of text/markdown, {} sources ({} in the reference list, {} inline), {} link servers on 127.9.0.x answering 200",
        body.len(),
        REFERENCES + INLINE,
        REFERENCES,
        INLINE,
        SERVERS
    );
    println!(
        "  the service read it as: {} unique sources, {} claims ({} cited, {} uncited), {} dangling citations",
        shape.unique_sources, shape.claims, shape.cited, shape.uncited, shape.dangling
    );
    println!("  response: {} bytes of JSON", first_body.len());
    if let Some(kib) = rss_before {
        println!("  server RSS before the load: {:.1} MB", mb(kib));
    }

    println!();
    println!("phase 1: POST /v1/check?verify=false");
    println!(
        "  first request (alone)   {:>8.2} ms  (a new connection)",
        ms(first_latency)
    );
    print_phase(&unverified);

    println!();
    println!("phase 2: POST /v1/check?verify=true");
    println!(
        "  first request (alone)   {:>8.2} ms  status {status}; {} probes reached the link servers; {}",
        ms(lone_latency),
        lone_probes,
        lone.verdicts
    );
    print_phase(&verified);
    println!(
        "  probes during the load  {:>8}     (0: every verdict came from the cache)",
        load_probes
    );
    if let Some(steady) = &steady {
        println!("  a steady-state answer:  {}", steady.verdicts);
    }
    let api_lines: Vec<&str> = metrics
        .lines()
        .filter(|l| l.contains("/v1/check") && !l.starts_with('#'))
        .collect();
    if !api_lines.is_empty() {
        println!("server /metrics lines for /v1/check:");
        for line in api_lines {
            println!("  {line}");
        }
    }

    println!();
    println!("command: {command}");
    println!();
    println!("summary (for docs/speed.md):");
    println!("```text");
    println!(
        "POST /v1/check, {}-byte Markdown answer with {} links, {CLIENTS} keep-alive clients, {secs} s per phase,",
        body.len(),
        REFERENCES + INLINE
    );
    println!(
        "server {} (nproc {nproc}); the load generator shares the machine",
        if pinned {
            "pinned to cores 0,1 with taskset"
        } else {
            "on every core (no taskset)"
        }
    );
    println!(
        "{:<22} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>10} {:>9}",
        "", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "CPU ms/req", "peak RSS"
    );
    for (name, phase) in [
        ("verify=false", &unverified),
        ("verify=true (cached)", &verified),
    ] {
        println!(
            "{:<22} {:>9.0} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>7} {:>10} {:>9}",
            name,
            rate(phase),
            ms(percentile(&phase.latencies, 50.0)),
            ms(percentile(&phase.latencies, 90.0)),
            ms(percentile(&phase.latencies, 99.0)),
            ms(percentile(&phase.latencies, 100.0)),
            phase.errors,
            phase
                .server_cpu
                .map(|cpu| format!("{:.2}", ms(cpu) / phase.latencies.len().max(1) as f64))
                .unwrap_or_else(|| "?".into()),
            phase
                .peak_kib
                .map(|kib| format!("{:.1} MB", mb(kib)))
                .unwrap_or_else(|| "?".into()),
        );
    }
    println!(
        "verify=true, first request (probes {} links): {:.1} ms",
        lone_probes,
        ms(lone_latency)
    );
    println!("```");
}

/// Runs `CLIENTS` closed-loop clients against `url` for `duration`.
async fn load(
    http: &reqwest::Client,
    url: &str,
    body: &Bytes,
    duration: Duration,
    bot_pid: u32,
) -> Phase {
    let server_cpu_before = cpu_time(bot_pid);
    let client_cpu_before = cpu_time(std::process::id());
    let started = Instant::now();
    let deadline = started + duration;
    let mut clients = Vec::with_capacity(CLIENTS);
    for client in 0..CLIENTS {
        let (http, url, body) = (http.clone(), url.to_string(), body.clone());
        clients.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let (mut errors, mut first_error, mut bytes, mut last) = (0, None, 0u64, None);
            while Instant::now() < deadline {
                let (status, answer, latency) = send(&http, &url, &body).await;
                latencies.push(latency);
                bytes += answer.len() as u64;
                if status == 200 {
                    if client == 0 {
                        last = Some(answer);
                    }
                } else {
                    errors += 1;
                    if first_error.is_none() {
                        first_error = Some((Instant::now(), describe_error(status, &answer)));
                    }
                }
            }
            (latencies, errors, first_error, bytes, last)
        }));
    }
    let mut phase = Phase {
        latencies: Vec::new(),
        errors: 0,
        first_error: None,
        wall: Duration::ZERO,
        body_bytes: 0,
        last_body: None,
        server_cpu: None,
        client_cpu: None,
        peak_kib: None,
        rss_kib: None,
    };
    for client in clients {
        let (latencies, errors, first_error, bytes, last) = client.await.expect("client task");
        phase.latencies.extend(latencies);
        phase.errors += errors;
        phase.first_error = match (phase.first_error, first_error) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        };
        phase.body_bytes += bytes;
        phase.last_body = phase.last_body.or(last);
    }
    phase.wall = started.elapsed();
    phase.latencies.sort_unstable();
    phase.server_cpu = cpu_time(bot_pid)
        .zip(server_cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    phase.client_cpu = cpu_time(std::process::id())
        .zip(client_cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    phase.peak_kib = status_kib(bot_pid, "VmHWM:");
    phase.rss_kib = status_kib(bot_pid, "VmRSS:");
    phase
}

/// Sends the answer once: (status, body, send → whole body read). Status 0 when the
/// request failed; the body is then the error.
async fn send(http: &reqwest::Client, url: &str, body: &Bytes) -> (u16, Bytes, Duration) {
    let began = Instant::now();
    let response = http
        .post(url)
        .bearer_auth(TOKEN)
        .header("content-type", "text/markdown")
        .body(body.clone())
        .send()
        .await;
    match response {
        Ok(response) => {
            let status = response.status().as_u16();
            match response.bytes().await {
                Ok(bytes) => (status, bytes, began.elapsed()),
                Err(error) => (
                    0,
                    Bytes::from(format!("reading the body: {error}")),
                    began.elapsed(),
                ),
            }
        }
        Err(error) => (0, Bytes::from(format!("{error}")), began.elapsed()),
    }
}

fn describe_error(status: u16, body: &[u8]) -> String {
    let text: String = String::from_utf8_lossy(body).chars().take(400).collect();
    if status == 0 {
        format!("no answer: {text}")
    } else {
        format!("HTTP {status}: {text}")
    }
}

fn rate(phase: &Phase) -> f64 {
    phase.latencies.len() as f64 / phase.wall.as_secs_f64().max(1e-9)
}

fn print_phase(phase: &Phase) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let n = phase.latencies.len();
    println!(
        "  requests                {:>8}     in {:.2} s: {:.0} requests/s",
        n,
        phase.wall.as_secs_f64(),
        rate(phase)
    );
    println!("  errors (non-200)        {:>8}", phase.errors);
    if let Some((_, error)) = &phase.first_error {
        println!("    first: {error}");
    }
    for (name, q) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("max", 100.0)] {
        println!(
            "  latency {name:<15} {:>8.2} ms",
            ms(percentile(&phase.latencies, q))
        );
    }
    println!(
        "  response bytes          {:>8}     per request on average",
        phase.body_bytes / n.max(1) as u64
    );
    match phase.server_cpu {
        Some(cpu) => println!(
            "  server CPU              {:>8.2} s   ({:.2} cores busy, {:.2} ms per request)",
            cpu.as_secs_f64(),
            cpu.as_secs_f64() / phase.wall.as_secs_f64().max(1e-9),
            ms(cpu) / n.max(1) as f64
        ),
        None => println!("  server CPU: unknown (no /proc/<pid>/stat)"),
    }
    if let Some(cpu) = phase.client_cpu {
        println!(
            "  load side CPU           {:>8.2} s   (this process: clients and link servers)",
            cpu.as_secs_f64()
        );
    }
    match (phase.peak_kib, phase.rss_kib) {
        (Some(peak), Some(rss)) => println!(
            "  server peak RSS         {:>8.1} MB  (VmHWM since start; RSS now {:.1} MB)",
            peak as f64 / 1024.0,
            rss as f64 / 1024.0
        ),
        _ => println!("  server RSS: unknown (no /proc/<pid>/status)"),
    }
}

/// What a `/v1/check` response said, in short.
struct Summary {
    unique_sources: u64,
    claims: u64,
    cited: u64,
    uncited: u64,
    dangling: u64,
    /// The verification counts and note, as one line.
    verdicts: String,
}

fn summary(body: &[u8]) -> Summary {
    let report: Value = serde_json::from_slice(body).unwrap_or_default();
    let metric = |name: &str| report["metrics"][name].as_u64().unwrap_or_default();
    let counts = &report["verification"]["counts"];
    let mut classes: Vec<String> = counts
        .as_object()
        .map(|counts| {
            counts
                .iter()
                .filter(|(_, n)| n.as_u64().unwrap_or_default() > 0)
                .map(|(class, n)| format!("{n} {class}"))
                .collect()
        })
        .unwrap_or_default();
    if classes.is_empty() {
        classes.push("no verdicts".into());
    }
    Summary {
        unique_sources: metric("unique_sources"),
        claims: metric("claims"),
        cited: metric("cited_claims"),
        uncited: metric("uncited_claims"),
        dangling: metric("dangling_citations"),
        verdicts: format!(
            "{} ({})",
            classes.join(", "),
            report["verification"]["note"].as_str().unwrap_or("no note")
        ),
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

/// A line of `/proc/<pid>/status` after its name (`Cpus_allowed_list:` …).
fn status_field(pid: u32, field: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    Some(line[field.len()..].trim().to_string())
}

/// A `/proc/<pid>/status` figure in KiB (`VmHWM:` is the peak RSS, `VmRSS:` the RSS).
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    status_field(pid, field)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The user + system CPU time of `pid` so far (fields 14 and 15 of /proc/<pid>/stat).
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_secs_f64(
        (utime + stime) as f64 / clock_ticks() as f64,
    ))
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 on every common Linux).
fn clock_ticks() -> u64 {
    static TICKS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|text| text.trim().parse().ok())
            .filter(|&ticks| ticks > 0)
            .unwrap_or(100)
    })
}

/// Whether `taskset -c 0,1` can pin a process here.
fn taskset_works() -> bool {
    std::process::Command::new("taskset")
        .args(["-c", "0,1", "true"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// `Payments Deploy Runbook` → `payments-deploy-runbook`.
fn slug(title: &str) -> String {
    title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}

/// The titles of the reference list, used in turn.
const TITLES: [&str; 20] = [
    "Postgres 16 Release Notes",
    "Logical Replication Guide",
    "Connection Pooling with PgBouncer",
    "Zero-Downtime Schema Migrations",
    "Payments Service Runbook",
    "Database Capacity Plan 2024",
    "Incident Review: Replica Lag in March",
    "Backup and Point-in-Time Recovery",
    "Vacuum and Autovacuum Tuning",
    "Read Replica Routing Design",
    "Service Level Objectives for Storage",
    "Change Management Policy",
    "Load Test Results Q3",
    "Index Maintenance Playbook",
    "Failover Drill Report",
    "Query Performance Dashboard",
    "Data Retention Standard",
    "Disaster Recovery Plan",
    "Encryption at Rest Requirements",
    "On-Call Handbook",
];

/// Labels of the inline links, used in turn.
const LINK_LABELS: [&str; 10] = [
    "migration checklist",
    "cutover runbook",
    "replication dashboard",
    "pooler settings",
    "rollback plan",
    "capacity sheet",
    "maintenance calendar",
    "schema lint rules",
    "failover script",
    "status page template",
];

const SECTIONS: [&str; 8] = [
    "Summary",
    "Why we are moving",
    "Replication and cutover",
    "Connection handling",
    "Schema changes during the move",
    "Capacity and performance",
    "Backups, recovery and failover",
    "Risks and open questions",
];

const SUBJECTS: [&str; 12] = [
    "The new primary cluster",
    "Logical replication from the old cluster",
    "PgBouncer in transaction mode",
    "The payments service",
    "Our largest table, ledger_entries,",
    "The read replica in the second zone",
    "Autovacuum on the busiest tables",
    "The nightly base backup",
    "The cutover window",
    "Each schema migration",
    "The on-call engineer",
    "The query planner in Postgres 16",
];

const PREDICATES: [&str; 12] = [
    "keeps replication lag under 200 milliseconds at peak write load",
    "needs about 40 minutes to catch up after a full resync",
    "handles roughly 3,500 transactions per second before CPU saturates",
    "must stay under 80 percent of its connection limit at all times",
    "is expected to grow by 15 percent per quarter through next year",
    "can be rolled back within 10 minutes if the health checks fail",
    "has to be reviewed by a second engineer before it runs in production",
    "restores to any point in the last 14 days from WAL archives",
    "was the root cause of the replica lag incident in March",
    "cuts the p99 latency of the checkout query by about a third",
    "requires the application to avoid session-level prepared statements",
    "is scheduled for the Sunday maintenance window between 02:00 and 04:00 UTC",
];

const QUALIFIERS: [&str; 10] = [
    ", according to the load tests run last sprint",
    " once the new instance class is in place",
    ", as long as long-running analytics queries move to the replica",
    " under the current retention settings",
    ", which the storage SLO already assumes",
    " if the pooler is sized as planned",
    ", based on the last three failover drills",
    " with the default checkpoint settings",
    ", per the change management policy",
    " when measured over a full business week",
];

/// A realistic Markdown answer of about 20 KB: sections of claims citing `[n]`, inline
/// links now and then, a code block, and the reference list `[n] URL - Title`.
fn build_answer(references: &[String], inline: &[String]) -> String {
    let mut text = String::from(
        "Short answer: yes, we can move the payments database to the new Postgres 16 cluster \
         this quarter, provided the cutover happens in the Sunday window and the pooler is \
         resized first.\n\n",
    );
    let per_section = SENTENCES / SECTIONS.len();
    let mut inline_used = 0;
    for (s, section) in SECTIONS.iter().enumerate() {
        text.push_str(&format!("## {section}\n\n"));
        for i in s * per_section..(s + 1) * per_section {
            let mut sentence = format!(
                "{} {}{}",
                SUBJECTS[i % SUBJECTS.len()],
                PREDICATES[(i * 5 + 3) % PREDICATES.len()],
                QUALIFIERS[(i * 7 + 1) % QUALIFIERS.len()]
            );
            if i % 11 == 5 {
                let k = inline_used % inline.len();
                inline_used += 1;
                sentence.push_str(&format!(
                    " (see the [{}]({}))",
                    LINK_LABELS[k % LINK_LABELS.len()],
                    inline[k]
                ));
            }
            // Most sentences cite one or two sources; every seventh cites none.
            let first = (i * 3) % references.len() + 1;
            let second = (i * 7 + 11) % references.len() + 1;
            if i % 7 == 6 {
                sentence.push('.');
            } else if i % 4 == 0 && second != first {
                sentence.push_str(&format!(" [{first}][{second}]."));
            } else {
                sentence.push_str(&format!(" [{first}]."));
            }
            text.push_str(&sentence);
            // Paragraphs of five sentences.
            text.push_str(if i % 5 == 4 { "\n\n" } else { " " });
        }
        if !text.ends_with("\n\n") {
            text.push_str("\n\n");
        }
        if s == 3 {
            text.push_str(
                "The pooler settings we plan to use:\n\n```ini\n[pgbouncer]\npool_mode = transaction\n\
                 max_client_conn = 2000\ndefault_pool_size = 40\nserver_idle_timeout = 120\n```\n\n",
            );
        }
    }
    text.push_str("**Sources**\n\n");
    for (n, url) in references.iter().enumerate() {
        let part = if n < TITLES.len() { "" } else { ", appendix" };
        text.push_str(&format!(
            "[{}] {url} - {}{part}\n",
            n + 1,
            TITLES[n % TITLES.len()]
        ));
    }
    text
}

//! Serving sourcebot in tests and benchmarks: `sourcebot serve` as a child process (a
//! free port to give it, a guard that stops it however the test or benchmark ends, a
//! wait until `/readyz` says it signed in to Slack), or the app's router in-process on
//! a loopback port.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `sourcebot serve` child, killed and reaped when dropped.
pub struct ServeChild(pub Child);

impl Drop for ServeChild {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback port free a moment ago, for `SOURCEBOT_LISTEN`.
pub fn free_port() -> u16 {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    probe.local_addr().expect("its address").port()
}

/// Polls `http://{addr}/readyz` until it answers 200 (true) or `limit` passes (false).
pub async fn ready_within(http: &reqwest::Client, addr: &str, limit: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if let Ok(response) = http.get(format!("http://{addr}/readyz")).send().await {
            if response.status().is_success() {
                return true;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// The `sourcebot` binary beside a benchmark's own (`target/release/sourcebot` for
/// `target/release/examples/…`).
pub fn release_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    exe.parent()
        .and_then(|examples| examples.parent())
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default()
        .join("sourcebot")
}

/// Serves `app` on 127.0.0.1 at a free port in a task: the address, and the task to
/// abort when done.
pub async fn serve_app(app: axum::Router) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let addr = listener.local_addr().expect("its address");
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (addr, server)
}

/// An HTTP client for the tests' loopback servers: no proxy from the environment.
pub fn loopback_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client")
}

/// The signing secret the benchmarks sign their Slack requests with.
pub const BENCH_SIGNING_SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";

/// Starts `command` (the release `sourcebot`, perhaps behind `taskset`) as `serve` in
/// HTTP mode on `addr`, against the fake Slack at `slack_api_url`, with private
/// addresses allowed for the loopback link servers, warnings-only logs, no other
/// environment, and `extra` settings.
pub fn spawn_bench_serve(
    mut command: Command,
    slack_api_url: &str,
    addr: &str,
    extra: &[(&str, &str)],
) -> ServeChild {
    command
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("SLACK_BOT_TOKEN", "xoxb-test")
        .env("SLACK_SIGNING_SECRET", BENCH_SIGNING_SECRET)
        .env("SOURCEBOT_SLACK_API_URL", slack_api_url)
        .env("SOURCEBOT_LISTEN", addr)
        .env("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1")
        .env("RUST_LOG", "warn")
        // The workspace data in memory: no sourcebot.db left in the working directory.
        .env("SOURCEBOT_DATABASE_URL", "sqlite::memory:")
        .envs(extra.iter().copied())
        .stdout(Stdio::null());
    ServeChild(
        command.spawn().expect(
            "start sourcebot serve (build it first: cargo build --release --bin sourcebot)",
        ),
    )
}

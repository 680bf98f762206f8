//! `sourcebot serve` as a child process for the outage tests: started against a fake
//! Slack (or any Slack API URL) with the answer API on, JSON logs captured from stderr,
//! and small helpers to ask its endpoints (`/readyz…`, `/v1/check`, `/v1/answers`, a
//! signed `/slack/events` mention), to poll until something holds, and to search the
//! logs. Every request helper returns a [`Reply`] (status 0 when the request itself
//! failed), so a poll never panics half-way and a failed assertion can show the body.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::serve::{free_port, loopback_client, ServeChild};
use super::slack::{event_callback, sign_request, unix_now, FakeSlack};

/// The bot token `serve` is given.
pub const BOT_TOKEN: &str = "xoxb-outage-test-token";
/// The signing secret `serve` checks Slack's requests with.
pub const SIGNING_SECRET: &str = "outage-test-signing-secret";
/// The answer API's bearer token (`SOURCEBOT_API_TOKEN`).
pub const API_TOKEN: &str = "outage-test-api-token-0123456789abcdef";

/// The answer to one request.
#[derive(Debug)]
pub struct Reply {
    /// The HTTP status, or 0 when no answer came (refused, reset, timed out).
    pub status: u16,
    /// The response headers.
    pub headers: reqwest::header::HeaderMap,
    /// The body as text (the error for status 0).
    pub text: String,
    /// The body as JSON, or `Value::Null`.
    pub json: Value,
    /// How long the request took.
    pub took: Duration,
}

impl Reply {
    /// The header `name` as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// What `sent` (begun at `started`) answered: status 0 with the error when nothing.
    pub async fn from(sent: reqwest::Result<reqwest::Response>, started: Instant) -> Reply {
        match sent {
            Ok(response) => {
                let status = response.status().as_u16();
                let headers = response.headers().clone();
                let text = response.text().await.unwrap_or_default();
                let json = serde_json::from_str(&text).unwrap_or(Value::Null);
                Reply {
                    status,
                    headers,
                    text,
                    json,
                    took: started.elapsed(),
                }
            }
            Err(e) => Reply {
                status: 0,
                headers: reqwest::header::HeaderMap::new(),
                text: format!("request failed: {e}"),
                json: Value::Null,
                took: started.elapsed(),
            },
        }
    }
}

/// A running `sourcebot serve`, killed when dropped.
pub struct Served {
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// A client for it (no proxy).
    pub http: reqwest::Client,
    logs: Arc<Mutex<String>>,
    _child: ServeChild,
    _dir: tempfile::TempDir,
}

impl Served {
    /// Starts `sourcebot serve` in HTTP mode against `slack`, with the answer API on
    /// ([`API_TOKEN`]), JSON logs, the installation data in memory, private addresses
    /// allowed for test link servers, no inherited `SOURCEBOT_`/`SLACK_`/proxy settings,
    /// and `extra` settings. Returns once it answers `/healthz`.
    ///
    /// # Panics
    /// If the binary is unknown (only integration tests know it), does not start, or
    /// does not answer `/healthz` within 10 s.
    pub async fn start(slack: &FakeSlack, extra: &[(&str, &str)]) -> Served {
        Served::start_at(&slack.api_url(), extra).await
    }

    /// [`Served::start`] against the Slack Web API at `slack_api_url`.
    pub async fn start_at(slack_api_url: &str, extra: &[(&str, &str)]) -> Served {
        // Integration tests know the binary; examples sharing this module do not.
        let Some(binary) = option_env!("CARGO_BIN_EXE_sourcebot") else {
            panic!("the sourcebot binary is known to integration tests only");
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let addr = format!("127.0.0.1:{}", free_port());
        let mut cmd = serve_command(binary, dir.path());
        cmd.env("SLACK_BOT_TOKEN", BOT_TOKEN)
            .env("SLACK_SIGNING_SECRET", SIGNING_SECRET)
            .env("SOURCEBOT_SLACK_API_URL", slack_api_url)
            .env("SOURCEBOT_LISTEN", &addr)
            .env("SOURCEBOT_API_TOKEN", API_TOKEN)
            .env("SOURCEBOT_LOG_FORMAT", "json")
            .env("SOURCEBOT_DATABASE_URL", "sqlite::memory:")
            .env("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1")
            .envs(extra.iter().copied());
        let served = Served::spawn(cmd, addr, dir, loopback_client());
        let health = eventually(Duration::from_secs(10), || async {
            let reply = served.get("/healthz").await;
            (reply.status == 200).then_some(reply)
        })
        .await;
        assert!(
            health.is_some(),
            "/healthz never answered 200; logs:\n{}",
            served.logs()
        );
        served
    }

    /// Runs `cmd` (a [`serve_command`] with its settings, listening on `addr`, run in
    /// `dir`), keeping its stderr; asks it with `http`. Does not wait for it.
    pub fn spawn(
        mut cmd: Command,
        addr: String,
        dir: tempfile::TempDir,
        http: reqwest::Client,
    ) -> Served {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn sourcebot serve");
        let logs = Arc::new(Mutex::new(String::new()));
        if let Some(stderr) = child.stderr.take() {
            let sink = logs.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    let mut all = sink.lock().unwrap_or_else(|p| p.into_inner());
                    all.push_str(&line);
                    all.push('\n');
                }
            });
        }
        Served {
            addr,
            http,
            logs,
            _child: ServeChild(child),
            _dir: dir,
        }
    }

    /// `http://ADDR{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Everything `serve` wrote to stderr so far.
    pub fn logs(&self) -> String {
        self.logs.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The log lines so far that are JSON objects.
    pub fn json_logs(&self) -> Vec<Value> {
        self.logs()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(Value::is_object)
            .collect()
    }

    /// Waits up to `limit` for a JSON log line `matches` accepts.
    pub async fn wait_for_log(
        &self,
        limit: Duration,
        matches: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        eventually(limit, || async {
            self.json_logs().into_iter().find(|line| matches(line))
        })
        .await
    }

    /// Panics if `serve` panicked (its stderr says "panicked"), showing the logs.
    pub fn assert_no_panic(&self) {
        let logs = self.logs();
        assert!(
            !logs.contains("panicked"),
            "sourcebot serve panicked:\n{logs}"
        );
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Reply {
        let started = Instant::now();
        let sent = self
            .http
            .get(self.url(path))
            .timeout(Duration::from_secs(10))
            .send()
            .await;
        Reply::from(sent, started).await
    }

    /// `POST /v1/check{query}` with `markdown`, bearing `token` if given.
    pub async fn check_as(&self, query: &str, markdown: &str, token: Option<&str>) -> Reply {
        let mut request = self
            .http
            .post(self.url(&format!("/v1/check{query}")))
            .header("content-type", "text/markdown")
            .timeout(Duration::from_secs(20))
            .body(markdown.to_string());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let started = Instant::now();
        Reply::from(request.send().await, started).await
    }

    /// `POST /v1/check{query}` with `markdown` and the right token.
    pub async fn check(&self, query: &str, markdown: &str) -> Reply {
        self.check_as(query, markdown, Some(API_TOKEN)).await
    }

    /// `POST /v1/answers` with the JSON `body`, bearing `token` if given.
    pub async fn answers_as(&self, body: &Value, token: Option<&str>) -> Reply {
        let mut request = self
            .http
            .post(self.url("/v1/answers"))
            .header("content-type", "application/json")
            .timeout(Duration::from_secs(30))
            .body(body.to_string());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let started = Instant::now();
        Reply::from(request.send().await, started).await
    }

    /// `POST /v1/answers` with the JSON `body` and the right token.
    pub async fn answers(&self, body: &Value) -> Reply {
        self.answers_as(body, Some(API_TOKEN)).await
    }

    /// Delivers `event` (e.g. an `app_mention_event`) to `/slack/events` in a signed
    /// `event_callback` with `event_id`, as Slack does over HTTP.
    pub async fn event(&self, event_id: &str, event: Value) -> Reply {
        let body = event_callback(event_id, event).to_string();
        let timestamp = unix_now().to_string();
        let started = Instant::now();
        let sent = self
            .http
            .post(self.url("/slack/events"))
            .header("content-type", "application/json")
            .header("x-slack-request-timestamp", &timestamp)
            .header(
                "x-slack-signature",
                sign_request(SIGNING_SECRET, &timestamp, &body),
            )
            .timeout(Duration::from_secs(10))
            .body(body)
            .send()
            .await;
        Reply::from(sent, started).await
    }

    /// Polls `GET /readyz` until `holds` accepts the reply or `limit` passes; the last
    /// reply either way, and whether it held.
    pub async fn readyz_until(
        &self,
        path: &str,
        limit: Duration,
        holds: impl Fn(&Reply) -> bool,
    ) -> (Reply, bool) {
        let deadline = Instant::now() + limit;
        loop {
            let reply = self.get(path).await;
            if holds(&reply) {
                return (reply, true);
            }
            if Instant::now() >= deadline {
                return (reply, false);
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

/// `binary serve` in `dir`, without the Slack, `SOURCEBOT_`, proxy and `RUST_LOG`
/// settings of the environment the tests run in: each test gives its own.
pub fn serve_command(binary: &str, dir: &std::path::Path) -> Command {
    let mut cmd = Command::new(binary);
    cmd.arg("serve").current_dir(dir);
    for (key, _) in std::env::vars() {
        let upper = key.to_ascii_uppercase();
        if key.starts_with("SOURCEBOT_")
            || key.starts_with("SLACK_")
            || upper.ends_with("_PROXY")
            || key == "RUST_LOG"
        {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// How often the helpers poll.
pub const POLL: Duration = Duration::from_millis(100);

/// Calls `probe` every [`POLL`] until it returns something or `limit` passes.
pub async fn eventually<T, F, Fut>(limit: Duration, mut probe: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = probe().await {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Whether `value` holds, at any depth, the key `key` with the string `expected`.
pub fn has_field(value: &Value, key: &str, expected: &str) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(k, v)| {
            (k == key && v.as_str() == Some(expected)) || has_field(v, key, expected)
        }),
        Value::Array(items) => items.iter().any(|v| has_field(v, key, expected)),
        _ => false,
    }
}

/// The level of a JSON log line (`"level"`, at the top or under `"fields"`), upper-cased.
pub fn log_level(line: &Value) -> String {
    line.get("level")
        .or_else(|| line.get("fields").and_then(|f| f.get("level")))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_uppercase()
}

/// The parts `/readyz` reports on.
pub const READY_PARTS: [&str; 4] = ["slack", "shared_state", "database", "model"];

/// Asserts the shape every `/readyz…` body has (see docs/outages.md): `ready`, `probe`,
/// `degraded`, `api`, and per part `status`, `last_error`, `affects`.
pub fn assert_readyz_shape(reply: &Reply, probe: &str) {
    let body = &reply.json;
    assert!(body.is_object(), "/readyz body is not JSON: {}", reply.text);
    assert!(body["ready"].is_boolean(), "ready: {body}");
    assert_eq!(
        body["ready"].as_bool(),
        Some(reply.status == 200),
        "ready agrees with the status {}: {body}",
        reply.status
    );
    assert_eq!(body["probe"], json!(probe), "probe: {body}");
    assert!(
        body["degraded"]
            .as_array()
            .is_some_and(|d| d.iter().all(Value::is_string)),
        "degraded is an array of part names: {body}"
    );
    assert_eq!(body["api"], "on", "the API is on: {body}");
    for part in READY_PARTS {
        let p = &body[part];
        assert!(p.is_object(), "part {part} missing: {body}");
        let status = p["status"].as_str().unwrap_or_default();
        assert!(
            ["ok", "down", "starting", "off", "unknown"].contains(&status),
            "{part}.status {status:?}: {body}"
        );
        assert!(
            p["last_error"].is_null() || p["last_error"].is_string(),
            "{part}.last_error: {body}"
        );
        assert!(
            p["affects"]
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string)),
            "{part}.affects is an array of endpoints: {body}"
        );
    }
}

/// Whether `/readyz`'s `degraded` lists `part`.
pub fn degraded(body: &Value, part: &str) -> bool {
    body["degraded"]
        .as_array()
        .is_some_and(|d| d.iter().any(|p| p == part))
}

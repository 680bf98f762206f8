//! Two real `sourcebot serve` processes sharing a real `redis-server` (started on a free
//! port, stopped after; skipped with a notice when it is not installed) and one fake
//! Slack, as replicas behind a load balancer: an event delivered to both is answered
//! once, and Slack's retry to either is not answered again. Then Redis is killed
//! mid-run: both still acknowledge within 3 s, still answer (de-duplication best
//! effort), and `/readyz` stays 200 naming the shared state as degraded; once Redis is back they
//! recover by themselves and answer each event once again.

mod support;

use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::redis::RedisServer;
use support::serve::{free_port, loopback_client, ready_within, spawn_bench_serve, ServeChild};
use support::slack::{app_mention_event, sign_request, unix_now, FakeSlack, BOT_USER_ID};
use support::{HostileServer, Route};

const SECRET: &str = support::serve::BENCH_SIGNING_SECRET;
const CHANNEL: &str = "C0REPLICAS";
const WAIT: Duration = Duration::from_secs(10);

/// Two replicas, their addresses, and what they share.
struct Replicas {
    slack: FakeSlack,
    addrs: [String; 2],
    http: reqwest::Client,
    site: HostileServer,
    _children: [ServeChild; 2],
}

impl Replicas {
    async fn start(redis_url: &str) -> Replicas {
        sourcebot::verify::install_crypto_provider();
        let slack = FakeSlack::start().await;
        let addrs = [
            format!("127.0.0.1:{}", free_port()),
            format!("127.0.0.1:{}", free_port()),
        ];
        let spawn = |addr: &str| {
            spawn_bench_serve(
                std::process::Command::new(env!("CARGO_BIN_EXE_sourcebot")),
                &slack.api_url(),
                addr,
                &[("SOURCEBOT_REDIS_URL", redis_url)],
            )
        };
        let children = [spawn(&addrs[0]), spawn(&addrs[1])];
        let http = loopback_client();
        for addr in &addrs {
            assert!(
                ready_within(&http, addr, Duration::from_secs(20)).await,
                "sourcebot serve on {addr} did not get ready"
            );
        }
        let site =
            HostileServer::start(support::next_ip(10), vec![("/ok", Route::status(200))]).await;
        Replicas {
            slack,
            addrs,
            http,
            site,
            _children: children,
        }
    }

    /// Delivers event `n` (a mention citing a link) to replica `to`; the status and
    /// how long the ack took.
    async fn deliver(&self, to: usize, n: usize, retry: bool) -> (u16, Duration) {
        let text = format!(
            "<@{BOT_USER_ID}> Deploys freeze on Fridays after 3 pm [1].\n\n[1] {}?n={n} - Freeze policy",
            self.site.url("/ok")
        );
        let body = json!({
            "token": "x", "team_id": "T0001", "api_app_id": "A0001",
            "type": "event_callback", "event_id": format!("EvReplica{n}"),
            "event_time": 1_700_002_000,
            "event": app_mention_event(CHANNEL, "U1", &text, &ts(n), None),
        })
        .to_string();
        let timestamp = unix_now().to_string();
        let mut request = self
            .http
            .post(format!("http://{}/slack/events", self.addrs[to]))
            .header("content-type", "application/json")
            .header("x-slack-request-timestamp", &timestamp)
            .header("x-slack-signature", sign_request(SECRET, &timestamp, &body))
            .body(body);
        if retry {
            request = request.header("x-slack-retry-num", "1");
        }
        let began = Instant::now();
        let status = match request.send().await {
            Ok(response) => response.status().as_u16(),
            Err(_) => 0,
        };
        (status, began.elapsed())
    }

    /// Delivers event `n` to both replicas at once; both must ack 200 within 3 s.
    async fn to_both(&self, n: usize) {
        let (a, b) = tokio::join!(self.deliver(0, n, false), self.deliver(1, n, false));
        for (status, took) in [a, b] {
            assert_eq!(status, 200, "event {n}");
            assert!(
                took < Duration::from_secs(3),
                "event {n}: ack took {took:?}"
            );
        }
    }

    /// Posts answering event `n`, once the posts stop coming in.
    async fn answers(&self, n: usize) -> usize {
        let deadline = Instant::now() + WAIT;
        let count = || {
            self.slack
                .calls_to("chat.postMessage")
                .iter()
                .filter(|c| c.str("thread_ts") == Some(ts(n).as_str()))
                .count()
        };
        while count() == 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // Long enough for a second answer to show up, were there one.
        tokio::time::sleep(Duration::from_millis(1200)).await;
        count()
    }

    async fn ready(&self, to: usize) -> (u16, Value) {
        let response = self
            .http
            .get(format!("http://{}/readyz", self.addrs[to]))
            .send()
            .await
            .expect("/readyz answers");
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }
}

fn ts(n: usize) -> String {
    format!("1700002000.{n:06}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_serve_processes_answer_each_event_once_and_ride_out_a_redis_outage() {
    let Some(mut redis) = RedisServer::start().await else {
        return;
    };
    let r = Replicas::start(&redis.url()).await;

    // Delivered to both: answered once. Slack's retry, to either: not again.
    r.to_both(1).await;
    assert_eq!(r.answers(1).await, 1);
    assert_eq!(r.deliver(1, 1, true).await.0, 200);
    assert_eq!(r.deliver(0, 1, true).await.0, 200);
    assert_eq!(r.answers(1).await, 1, "retries are not answered again");

    // Redis dies: acks stay fast, events are still answered, /readyz names Redis.
    redis.kill();
    r.to_both(2).await;
    let during = r.answers(2).await;
    assert!(
        (1..=2).contains(&during),
        "answered (at most twice: de-duplication is best effort): {during}"
    );
    for to in 0..2 {
        let (status, body) = r.ready(to).await;
        assert_eq!(status, 200, "a replica that can answer stays in the pool");
        assert_eq!(body["degraded"], json!(["shared_state"]), "{body}");
    }

    // Redis is back: each replica recovers by itself, and events are answered once.
    redis.restart().await;
    let deadline = Instant::now() + WAIT;
    loop {
        let (a, b) = (r.ready(0).await.1, r.ready(1).await.1);
        if a["degraded"] == json!([]) && b["degraded"] == json!([]) {
            break;
        }
        assert!(Instant::now() < deadline, "not recovered: {a} {b}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    r.to_both(3).await;
    assert_eq!(r.answers(3).await, 1, "once again after the outage");
}

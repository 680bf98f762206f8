//! The bot's state shared between replicas through a real `redis-server` (started by
//! each test on a free port, stopped after; skipped with a notice when it is not
//! installed). The same contract holds in memory and in Redis; two replicas sharing a
//! Redis claim each delivery once and share each other's reports and evidence; keys carry their
//! TTLs; and when Redis is killed mid-run the bot goes on — calls return within their
//! timeout, an event is answered rather than lost, health and the gauge say so — and
//! recovers by itself once Redis is back.

mod support;

use redis::AsyncCommands;
use serde_json::{json, Value};
use sourcebot::metrics::Metrics;
use sourcebot::slack::api::CHANNEL_PACE;
use sourcebot::state::{
    AnswerKey, BotState, MemoryState, RedisSettings, RedisState, ReplyRecord, DEDUPE_TTL,
    EVIDENCE_TTL, REPLY_TTL, SHARE_TTL,
};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::bot::{harness_sharing, harness_with, Harness, CHANNEL};
use support::redis::RedisServer;
use support::slack::{app_mention_event, assert_paced};
use support::{HostileServer, Route};

const WAIT: Duration = Duration::from_secs(6);

/// A loopback address of this file's block, 127.8.x.y.
fn next_ip() -> std::net::IpAddr {
    support::next_ip(8)
}

/// A Redis state on `server` with its own namespace (so tests could share a server).
fn redis_state(server: &RedisServer, metrics: Option<Arc<Metrics>>) -> RedisState {
    let mut settings = RedisSettings::new(server.url());
    settings.namespace = "test:".into();
    RedisState::new(&settings, metrics).expect("a usable URL")
}

fn reply(ts: &str) -> ReplyRecord {
    ReplyRecord {
        channel: "C1".into(),
        ts: ts.into(),
        content_digest: 7,
        shown_digest: 9,
        ..ReplyRecord::default()
    }
}

fn answer(ts: &str) -> AnswerKey {
    AnswerKey {
        channel: "C1".into(),
        ts: ts.into(),
    }
}

/// What every implementation must do.
async fn contract(state: &dyn BotState) {
    assert!(state.first_delivery("Ev1").await, "first sight");
    assert!(!state.first_delivery("Ev1").await, "a retry");
    assert!(state.first_delivery("Ev2").await);

    assert_eq!(state.take_share("nothing").await, None);
    let report = json!({"response_type": "in_channel", "text": "Sources (2)"});
    state.keep_share("k1", report.clone()).await;
    assert_eq!(state.take_share("k1").await, Some(report));
    assert_eq!(state.take_share("k1").await, None, "taken once");

    assert_eq!(state.evidence("e1").await, None);
    let view = json!({"type": "modal", "blocks": [{"type": "divider"}]});
    state.keep_evidence("e1", view.clone()).await;
    assert_eq!(state.evidence("e1").await, Some(view.clone()));
    assert_eq!(
        state.evidence("e1").await,
        Some(view),
        "read as often as pressed"
    );

    assert_eq!(state.reply_to(&answer("1.1")).await, None);
    state.remember_reply(&answer("1.1"), reply("1.2")).await;
    assert_eq!(state.reply_to(&answer("1.1")).await, Some(reply("1.2")));
    state.remember_reply(&answer("1.1"), reply("1.3")).await;
    assert_eq!(state.reply_to(&answer("1.1")).await, Some(reply("1.3")));
    state.forget_reply(&answer("1.1")).await;
    assert_eq!(state.reply_to(&answer("1.1")).await, None);

    let pace = Duration::from_secs(1);
    assert_eq!(state.next_post_slot("C1", pace).await, Duration::ZERO);
    let wait = state.next_post_slot("C1", pace).await;
    assert!(
        wait > Duration::from_millis(800) && wait <= pace,
        "{wait:?}"
    );
    assert_eq!(state.next_post_slot("C2", pace).await, Duration::ZERO);

    assert_eq!(state.held_back("chat.postMessage").await, Duration::ZERO);
    state
        .hold_back("chat.postMessage", Duration::from_secs(30))
        .await;
    state
        .hold_back("chat.postMessage", Duration::from_secs(1))
        .await;
    let held = state.held_back("chat.postMessage").await;
    assert!(
        held > Duration::from_secs(28),
        "the longer hold wins: {held:?}"
    );
    assert_eq!(state.held_back("chat.update").await, Duration::ZERO);

    let ttl = Duration::from_secs(60);
    assert!(state.lock_answer(&answer("8.1"), "h1", ttl).await);
    assert!(
        !state.lock_answer(&answer("8.1"), "h2", ttl).await,
        "held by h1"
    );
    assert!(
        state.lock_answer(&answer("8.2"), "h2", ttl).await,
        "another answer"
    );
    state.unlock_answer(&answer("8.1"), "h2").await;
    assert!(
        !state.lock_answer(&answer("8.1"), "h2", ttl).await,
        "only h1 releases it"
    );
    state.unlock_answer(&answer("8.1"), "h1").await;
    assert!(state.lock_answer(&answer("8.1"), "h2", ttl).await);

    // Model tokens add up per day, and days stay apart.
    assert_eq!(state.model_tokens("2026-11-25").await, 0);
    assert_eq!(state.add_model_tokens("2026-11-25", 120).await, 120);
    assert_eq!(state.add_model_tokens("2026-11-25", 30).await, 150);
    assert_eq!(state.add_model_tokens("2026-11-26", 5).await, 5);
    assert_eq!(state.model_tokens("2026-11-25").await, 150);
    assert_eq!(state.model_tokens("2026-11-26").await, 5);
    // Settings versions: per workspace, only ever rising, read back as bumped.
    assert_eq!(state.settings_version("T1").await, 0);
    assert_eq!(state.bump_settings_version("T1").await, 1);
    assert_eq!(state.bump_settings_version("T1").await, 2);
    assert_eq!(state.settings_version("T1").await, 2);
    assert_eq!(state.settings_version("T2").await, 0);
    assert!(
        state
            .lock_answer(&answer("8.3"), "h1", Duration::from_millis(50))
            .await
    );
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert!(
        state.lock_answer(&answer("8.3"), "h2", ttl).await,
        "an expired lock is free"
    );
    assert!(state.health().up);
}

#[tokio::test]
async fn memory_and_redis_keep_the_same_contract() {
    contract(&MemoryState::new()).await;
    let Some(server) = RedisServer::start().await else {
        return;
    };
    let state = redis_state(&server, None);
    contract(&state).await;
    assert_eq!(state.health().backend, "redis");
}

/// Workspaces keep apart in both stores, and forgetting one deletes its families and
/// nothing of another's, nor the shared families (deliveries, verdicts).
async fn workspaces_keep_apart(shared: Arc<dyn BotState>) {
    use sourcebot::state::ScopedState;
    // Ids with glob characters must match literally, not as patterns.
    let a = ScopedState::new(shared.clone(), "T0A*");
    let b = ScopedState::new(shared.clone(), "T0AB");
    for state in [&a, &b] {
        state.keep_share("k1", json!({"text": "r"})).await;
        state.keep_evidence("e1", json!({"type": "modal"})).await;
        state.remember_reply(&answer("1.1"), reply("1.2")).await;
        state
            .hold_back("chat.postMessage", Duration::from_secs(30))
            .await;
        assert!(
            state
                .lock_answer(&answer("1.1"), "h1", Duration::from_secs(30))
                .await
        );
        state.next_post_slot("C1", Duration::from_secs(1)).await;
    }
    assert!(a.first_delivery("EvScoped").await);
    let forgotten = shared.forget_scope("T0A*").await;
    assert!(forgotten >= 6, "A's entries went: {forgotten}");
    assert_eq!(a.take_share("k1").await, None);
    assert_eq!(a.evidence("e1").await, None);
    assert_eq!(a.reply_to(&answer("1.1")).await, None);
    assert_eq!(a.held_back("chat.postMessage").await, Duration::ZERO);
    assert!(
        a.lock_answer(&answer("1.1"), "h2", Duration::from_secs(30))
            .await
    );
    assert_eq!(b.reply_to(&answer("1.1")).await, Some(reply("1.2")));
    assert!(b.held_back("chat.postMessage").await > Duration::from_secs(28));
    assert!(
        !b.lock_answer(&answer("1.1"), "h2", Duration::from_secs(30))
            .await,
        "B's lock is still held"
    );
    assert_eq!(b.take_share("k1").await, Some(json!({"text": "r"})));
    assert_eq!(b.evidence("e1").await, Some(json!({"type": "modal"})));
    assert!(
        !b.first_delivery("EvScoped").await,
        "deliveries are not a workspace's"
    );
}

#[tokio::test]
async fn a_workspaces_state_is_its_own_and_goes_with_it() {
    workspaces_keep_apart(Arc::new(MemoryState::new())).await;
    let Some(server) = RedisServer::start().await else {
        return;
    };
    workspaces_keep_apart(Arc::new(redis_state(&server, None))).await;
}

#[tokio::test]
async fn two_replicas_claim_each_delivery_once_and_share_reports_and_replies() {
    let Some(server) = RedisServer::start().await else {
        return;
    };
    let (a, b) = (redis_state(&server, None), redis_state(&server, None));
    // Both replicas get the same delivery at once: exactly one claims it.
    let mut claims = 0;
    for round in 0..50 {
        let id = format!("EvRace{round}");
        let (x, y) = tokio::join!(a.first_delivery(&id), b.first_delivery(&id));
        assert!(
            x ^ y,
            "round {round}: exactly one replica claims it ({x}, {y})"
        );
        claims += usize::from(x) + usize::from(y);
    }
    assert_eq!(claims, 50);
    // Slack's retry lands on the other replica: not answered again.
    assert!(a.first_delivery("EvRetry").await);
    assert!(!b.first_delivery("EvRetry").await);

    let report = json!({"blocks": [{"type": "section"}]});
    a.keep_share("k", report.clone()).await;
    assert_eq!(b.take_share("k").await, Some(report), "B shares A's report");
    assert_eq!(a.take_share("k").await, None, "once");

    a.remember_reply(&answer("5.1"), reply("5.2")).await;
    assert_eq!(b.reply_to(&answer("5.1")).await, Some(reply("5.2")));

    // One channel's posts are paced over both replicas; a back-off one sees, both keep.
    let pace = Duration::from_secs(1);
    assert_eq!(a.next_post_slot("CP", pace).await, Duration::ZERO);
    let wait = b.next_post_slot("CP", pace).await;
    assert!(
        wait > Duration::from_millis(800),
        "B waits for A's post: {wait:?}"
    );
    a.hold_back("chat.update", Duration::from_secs(20)).await;
    let held = b.held_back("chat.update").await;
    assert!(held > Duration::from_secs(18), "{held:?}");
}

#[tokio::test]
async fn every_key_carries_its_ttl() {
    let Some(server) = RedisServer::start().await else {
        return;
    };
    let state = redis_state(&server, None);
    state.first_delivery("EvTtl").await;
    state.keep_share("kttl", json!({"text": "x"})).await;
    state.keep_evidence("ettl", json!({"type": "modal"})).await;
    state.remember_reply(&answer("7.1"), reply("7.2")).await;
    state.add_model_tokens("2026-11-25", 10).await;
    let mut redis = server.connection().await;
    let keys: Vec<String> = redis.keys("test:*").await.expect("KEYS");
    assert_eq!(keys.len(), 5, "{keys:?}");
    for (key, ttl) in [
        ("test:delivery:EvTtl", DEDUPE_TTL),
        ("test:share:kttl", SHARE_TTL),
        ("test:evidence:ettl", EVIDENCE_TTL),
        ("test:reply:C1:7.1", REPLY_TTL),
        (
            "test:llm-tokens:2026-11-25",
            Duration::from_secs(2 * 24 * 3600),
        ),
    ] {
        let left: i64 = redis.pttl(key).await.expect("PTTL");
        let ttl_ms = ttl.as_millis() as i64;
        assert!(
            left > ttl_ms - 5_000 && left <= ttl_ms,
            "{key}: {left} ms left, TTL {ttl_ms} ms"
        );
    }
    // The reply is kept as the JSON of the record.
    let stored: String = redis.get("test:reply:C1:7.1").await.expect("GET");
    let stored: Value = serde_json::from_str(&stored).expect("JSON");
    assert_eq!(stored["ts"], "7.2");
}

#[tokio::test]
async fn redis_killed_mid_run_degrades_then_recovers_by_itself() {
    let Some(mut server) = RedisServer::start().await else {
        return;
    };
    let metrics = Metrics::new();
    let state = redis_state(&server, Some(metrics.clone()));
    assert!(state.first_delivery("EvBefore").await);
    assert!(gauge(&metrics).contains("sourcebot_shared_state_up 1"));

    server.kill();
    let started = Instant::now();
    // Unknown whether seen: answered rather than lost.
    assert!(state.first_delivery("EvBefore").await);
    assert!(state.first_delivery("EvDuring").await);
    state.keep_share("k", json!({"text": "x"})).await;
    assert_eq!(state.take_share("k").await, None);
    state.remember_reply(&answer("9.1"), reply("9.2")).await;
    assert_eq!(state.reply_to(&answer("9.1")).await, None);
    // Pacing falls back to this process's own.
    let pace = Duration::from_secs(1);
    assert_eq!(state.next_post_slot("CF", pace).await, Duration::ZERO);
    assert!(state.next_post_slot("CF", pace).await > Duration::from_millis(800));
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "nine calls against a dead Redis took {took:?}"
    );
    let health = state.health();
    assert!(!health.up);
    let why = health.last_error.unwrap_or_default();
    assert!(!why.is_empty());
    assert!(gauge(&metrics).contains("sourcebot_shared_state_up 0"));

    server.restart().await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut recovered = false;
    while Instant::now() < deadline {
        if state.first_delivery("EvAfter").await && state.health().up {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "the state answers again once Redis is back");
    assert!(!state.first_delivery("EvAfter").await, "claims work again");
    assert!(gauge(&metrics).contains("sourcebot_shared_state_up 1"));
}

#[tokio::test]
async fn a_bot_starts_and_answers_while_redis_is_down() {
    let Some(mut server) = RedisServer::start().await else {
        return;
    };
    let url = server.url();
    server.kill();
    let h = replica(&url).await;
    let site = HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await;
    let (status, _, took) = h
        .event("EvDown", mention(&site, "1700000100.000100"), &[])
        .await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(3), "ack took {took:?}");
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(posts.len(), 1, "the mention is answered without Redis");
}

/// A replica: the bot in HTTP mode with its state in the Redis at `url`.
async fn replica(url: &str) -> Harness {
    let url = url.to_string();
    harness_with(move |s| s.redis_url = Some(url)).await
}

fn mention(site: &HostileServer, ts: &str) -> Value {
    let text = format!(
        "<@UBOT> Deploys freeze on Fridays after 3 pm [1].\n\n[1] {} - Freeze policy",
        site.url("/ok")
    );
    app_mention_event(CHANNEL, "U1", &text, ts, None)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_event_delivered_to_two_replicas_is_answered_once() {
    let Some(server) = RedisServer::start().await else {
        return;
    };
    let (a, b) = (replica(&server.url()).await, replica(&server.url()).await);
    let site = HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await;
    for n in 0..5 {
        let id = format!("EvTwice{n}");
        let event = mention(&site, &format!("17000002{n:02}.000100"));
        let (x, y) = tokio::join!(a.event(&id, event.clone(), &[]), b.event(&id, event, &[]));
        assert_eq!((x.0, y.0), (200, 200));
    }
    // Slack's retry of the last one, to replica B, is not answered again either.
    let retry = mention(&site, "1700000204.000100");
    b.event(
        "EvTwice4",
        retry,
        &[
            ("x-slack-retry-num", "1"),
            ("x-slack-retry-reason", "http_timeout"),
        ],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let deadline = Instant::now() + WAIT;
    let mut posts = 0;
    while Instant::now() < deadline {
        posts =
            a.slack.calls_to("chat.postMessage").len() + b.slack.calls_to("chat.postMessage").len();
        if posts >= 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let posts_a = a.slack.calls_to("chat.postMessage").len();
    let posts_b = b.slack.calls_to("chat.postMessage").len();
    assert_eq!(
        posts_a + posts_b,
        5,
        "five events, five answers (A {posts_a}, B {posts_b}; {posts})"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_share_click_on_one_replica_shares_the_report_another_rendered() {
    let Some(server) = RedisServer::start().await else {
        return;
    };
    let (a, b) = (replica(&server.url()).await, replica(&server.url()).await);
    let site = HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await;
    let text = format!(
        "Deploys freeze on Fridays after 3 pm [1].\n\n[1] {} - Freeze policy",
        site.url("/ok")
    );
    a.command(&text, "cmdA").await;
    let private = a.slack.wait_for("response_url", 1, WAIT).await;
    assert_eq!(private.len(), 1);
    let key = private[0]
        .param("blocks")
        .and_then(|blocks| {
            blocks.as_array()?.iter().find_map(|block| {
                block["elements"].as_array()?.iter().find_map(|e| {
                    (e["action_id"] == "share_sources")
                        .then(|| e["value"].as_str().map(str::to_string))?
                })
            })
        })
        .expect("the share button's key");
    // The click reaches replica B; the response URL is A's (Slack's, in real life).
    let click = json!({
        "type": "block_actions",
        "team": {"id": "T0001", "domain": "acme"},
        "user": {"id": "U1", "username": "ada", "team_id": "T0001"},
        "api_app_id": "A0001",
        "container": {"type": "message", "message_ts": "1700000500.000100", "channel_id": CHANNEL, "is_ephemeral": true},
        "trigger_id": support::slack::trigger_id(),
        "channel": {"id": CHANNEL, "name": "general"},
        "response_url": a.slack.response_url("cmdA"),
        "actions": [{"type": "button", "action_id": "share_sources", "block_id": "b", "value": key, "action_ts": "1700000500.000200", "text": {"type": "plain_text", "text": "Share in channel"}}],
    });
    let (status, ..) = b.interaction(click).await;
    assert_eq!(status, 200);
    let responses = a.slack.wait_for("response_url", 2, WAIT).await;
    assert_eq!(responses.len(), 2, "B shared A's report");
    assert_eq!(responses[1].str("response_type"), Some("in_channel"));
    let shared = responses[1]
        .param("blocks")
        .map(Value::to_string)
        .unwrap_or_default();
    assert!(shared.contains("Freeze policy"), "{shared}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_interaction_reaching_two_replicas_is_done_once() {
    let Some(server) = RedisServer::start().await else {
        return;
    };
    let (a, b) = (replica(&server.url()).await, replica(&server.url()).await);
    let site = HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await;
    let message = support::slack::bot_message(
        "1700000300.000100",
        "BAI",
        "AAI",
        &format!(
            "Deploys freeze on Fridays after 3 pm [1].\n\n[1] {} - Freeze policy",
            site.url("/ok")
        ),
        None,
        None,
    );
    let payload = support::slack::message_shortcut_payload_raw(
        "check_sources",
        CHANNEL,
        "U1",
        &message,
        &a.slack.response_url("shortcut"),
    );
    let (x, y) = tokio::join!(a.interaction(payload.clone()), b.interaction(payload));
    assert_eq!((x.0, y.0), (200, 200));
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline && posts(&a) + posts(&b) == 0 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(posts(&a) + posts(&b), 1, "one check for one click");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_seen_by_one_replica_holds_the_other_back_and_posts_are_paced_over_both() {
    let Some(server) = RedisServer::start().await else {
        return;
    };
    let (a, b) = (replica(&server.url()).await, replica(&server.url()).await);
    let site = HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await;

    // Both replicas answer in one channel at once: the posts go a second apart.
    a.event("EvPaceA", mention(&site, "1700000400.000100"), &[])
        .await;
    b.event("EvPaceB", mention(&site, "1700000400.000200"), &[])
        .await;
    let (pa, pb) = (
        a.slack.wait_for("chat.postMessage", 1, WAIT).await,
        b.slack.wait_for("chat.postMessage", 1, WAIT).await,
    );
    assert_paced(
        &[pa[0].at, pb[0].at],
        CHANNEL_PACE,
        "one post from each replica",
    );

    // Slack rate-limits A for 2 s: B, posting right after, waits too.
    a.slack.fail_next(
        "chat.postMessage",
        support::Failure::RateLimited {
            retry_after_secs: 2,
        },
        1,
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    a.event("Ev429A", mention(&site, "1700000401.000100"), &[])
        .await;
    let limited = a.slack.wait_for("chat.postMessage", 2, WAIT).await;
    let limited_at = limited[1].at;
    // Another channel, so pacing is not what makes B wait.
    let other = app_mention_event(
        "C0OTHER",
        "U1",
        &format!(
            "<@UBOT> Deploys freeze on Fridays after 3 pm [1].\n\n[1] {} - Freeze policy",
            site.url("/ok")
        ),
        "1700000401.000200",
        None,
    );
    b.event("Ev429B", other, &[]).await;
    let posted = b.slack.wait_for("chat.postMessage", 2, WAIT).await;
    assert_eq!(posted.len(), 2, "B posts once the hold is over");
    let held_for = posted[1].at.saturating_duration_since(limited_at);
    assert!(
        held_for >= Duration::from_millis(1700),
        "B posted {held_for:?} after A's 429 (Retry-After 2 s)"
    );
    let retried = a.slack.wait_for("chat.postMessage", 3, WAIT).await;
    assert_eq!(retried.len(), 3, "A retried once after the wait");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_one_replica_checked_is_not_probed_again_by_the_other() {
    let Some(server) = RedisServer::start().await else {
        return;
    };
    let (a, b) = (replica(&server.url()).await, replica(&server.url()).await);
    // When each request arrived: a replica probes before it posts, and reads a
    // verified page for the support check after.
    let seen: Arc<std::sync::Mutex<Vec<(&'static str, Instant)>>> = Arc::default();
    let route = |path: &'static str, status: u16| {
        let seen = seen.clone();
        Route::new(move |_, _| {
            if let Ok(mut seen) = seen.lock() {
                seen.push((path, Instant::now()));
            }
            support::Action::status(status)
        })
    };
    let site = HostileServer::start(
        next_ip(),
        vec![("/ok", route("/ok", 200)), ("/gone", route("/gone", 404))],
    )
    .await;
    let text = format!(
        "<@UBOT> Deploys freeze on Fridays after 3 pm [1]. The old runbook moved in 2023 [2].\n\n[1] {} - Freeze policy\n[2] {} - Old runbook",
        site.url("/ok"),
        site.url("/gone")
    );
    a.event(
        "EvVA",
        app_mention_event(CHANNEL, "U1", &text, "1700000600.000100", None),
        &[],
    )
    .await;
    let first = a.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(first.len(), 1);
    // The requests before a replica posted were its probes (with the support check on,
    // the probe of a cited page is the GET that reads it).
    let probes = |path: &str, posted: Instant| {
        seen.lock()
            .map(|seen| {
                seen.iter()
                    .filter(|(p, at)| *p == path && *at < posted)
                    .count()
            })
            .unwrap_or_default()
    };
    let (ok_probes, gone_probes) = (probes("/ok", first[0].at), probes("/gone", first[0].at));
    assert!(ok_probes >= 1 && gone_probes >= 1);

    b.event(
        "EvVB",
        app_mention_event(CHANNEL, "U1", &text, "1700000601.000100", None),
        &[],
    )
    .await;
    let second = b.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(second.len(), 1);
    assert_eq!(
        (probes("/ok", second[0].at), probes("/gone", second[0].at)),
        (ok_probes, gone_probes),
        "B used A's verdicts, verified and broken alike"
    );
    // The same verdicts shown by both.
    let shown = |call: &support::Call| {
        call.param("blocks")
            .map(Value::to_string)
            .unwrap_or_default()
    };
    for needle in ["Freeze policy", "Old runbook", "broken"] {
        assert!(
            shown(&second[0]).contains(needle),
            "{needle}: {}",
            shown(&second[0])
        );
    }
    let mut redis = server.connection().await;
    let keys: Vec<String> = redis.keys("sourcebot:verdict:*").await.expect("KEYS");
    assert_eq!(keys.len(), 2, "{keys:?}");
    for key in keys {
        let left: i64 = redis.pttl(&key).await.expect("PTTL");
        assert!(left > 0 && left <= 3_600_000, "{key}: {left}");
    }
}

/// A watched assistant's answer at `ts` citing `url` as `title`, edited at `edited`.
fn watched_answer(ts: &str, url: &str, title: &str, edited: Option<&str>) -> Value {
    let mut message = support::slack::bot_message(
        ts,
        "BAI",
        "AAI",
        "Hello! I found some results for you!",
        Some(json!([
            {"type": "section", "text": {"type": "mrkdwn", "text": "Deploys freeze on Fridays after 3 pm [1]."}},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": format!("[1] <{url}|{title}>")}]}
        ])),
        None,
    );
    if let Some(edited) = edited {
        message["edited"] = json!({"user": "U0AIBOT", "ts": edited});
    }
    message
}

/// Everything a post or update showed.
fn shown(call: &support::Call) -> String {
    call.param("blocks")
        .map(Value::to_string)
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_of_one_answer_spread_over_two_replicas_give_one_reply_showing_the_newest() {
    let Some(server) = RedisServer::start().await else {
        return;
    };
    let settle = |s: &mut sourcebot::slack::SlackSettings, url: String| {
        s.redis_url = Some(url);
        s.settle = Duration::from_millis(150);
        s.settle_max = Duration::from_secs(2);
    };
    let (url_a, url_b) = (server.url(), server.url());
    let a = harness_with(move |s| settle(s, url_a)).await;
    // Both replicas talk to the same Slack, as in production.
    let b = harness_sharing(a.slack.clone(), move |s| settle(s, url_b)).await;
    let slack = a.slack.clone();
    let site = HostileServer::start(
        next_ip(),
        vec![
            ("/draft", Route::status(200)),
            ("/final", Route::status(200)),
        ],
    )
    .await;
    let ts = "1700000700.000100";
    let first = watched_answer(ts, &site.url("/draft"), "Draft policy", None);
    let newest = watched_answer(
        ts,
        &site.url("/final"),
        "Final policy",
        Some("1700000701.000100"),
    );
    slack.add_raw_message(CHANNEL, newest.clone());
    // Slack hands the first version to A and the edit to B, at the same moment.
    let (x, y) = tokio::join!(
        a.event(
            "EvSpreadA",
            support::slack::message_event(CHANNEL, &first),
            &[]
        ),
        b.event(
            "EvSpreadB",
            support::slack::message_changed_event(CHANNEL, &newest, &first, "1700000701.000100"),
            &[]
        )
    );
    assert_eq!((x.0, y.0), (200, 200));
    // Settle (150 ms), a check, and at most one paced update (1 s) later: wait until the
    // reply shows the newest version (or time runs out), then a moment for anything extra.
    let replies = || {
        let mut calls = slack.calls_to("chat.postMessage");
        calls.extend(slack.calls_to("chat.update"));
        calls.sort_by_key(|call| call.at);
        calls
    };
    let deadline = std::time::Instant::now() + WAIT;
    while std::time::Instant::now() < deadline
        && !replies()
            .last()
            .is_some_and(|c| shown(c).contains("Final policy"))
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let calls = replies();
    let posts = calls
        .iter()
        .filter(|c| c.method == "chat.postMessage")
        .count();
    assert_eq!(posts, 1, "one reply for one answer: {calls:?}");
    let last = calls.last().expect("a reply");
    assert!(
        shown(last).contains("Final policy"),
        "the reply ends up showing the newest version: {}",
        shown(last)
    );

    // The answer is deleted (the event reaches A); a late copy of the first version then
    // reaches B: B must not reply to a deleted answer.
    let deleted = support::slack::message_deleted_event(CHANNEL, ts, &newest, "1700000702.000100");
    a.event("EvSpreadDel", deleted, &[]).await;
    let deletes = slack.wait_for("chat.delete", 1, WAIT).await;
    assert_eq!(deletes.len(), 1, "the reply is deleted with the answer");
    b.event(
        "EvSpreadLate",
        support::slack::message_event(CHANNEL, &first),
        &[],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        slack.calls_to("chat.postMessage").len(),
        1,
        "no reply to a deleted answer"
    );
}

fn posts(h: &Harness) -> usize {
    h.slack.calls_to("chat.postMessage").len()
}

/// The metrics text.
fn gauge(metrics: &Metrics) -> String {
    metrics.encode()
}

//! Issue 28, Slack's part: `sourcebot serve` keeps working when Slack is down. Run as an
//! operator runs it (a child process, JSON logs on stderr) against a fake Slack that is
//! away from the start, goes away mid-run (connections refused, open ones cut) and comes
//! back on the same port, or answers 503 as Slack's edge does. Each test checks every
//! endpoint's answer, the `/readyz` body, the log lines, and that nothing panics.
//! docs/outages.md describes the behaviour.

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::outage::{
    assert_readyz_shape, degraded, has_field, log_level, Reply, Served, API_TOKEN,
};
use support::serve::loopback_client;
use support::slack::{
    app_mention_event, Call, Failure, FakeSlack, Message, BOT_ID, BOT_USER_ID, WORKSPACE_DOMAIN,
};

/// The error code of `/v1/answers` while Slack cannot be reached (docs/api.md,
/// docs/outages.md).
const SLACK_DOWN_CODE: &str = "slack_unavailable";
/// The channel the mentions and answers are in.
const CHANNEL: &str = "C0OUTAGE01";
/// The thread `/v1/answers` posts in.
const THREAD: &str = "1700000000.000100";
/// Longest wait for something the bot does at once (an answer to a mention…).
const WAIT: Duration = Duration::from_secs(10);

/// A mention whose text the bot checks: no link, so nothing leaves the machine.
fn mention(ts: &str) -> Value {
    app_mention_event(
        CHANNEL,
        "U1",
        &format!("<@{BOT_USER_ID}> Deploys freeze on Fridays after 3 pm."),
        ts,
        None,
    )
}

/// The `/v1/answers` body: the sources of a short answer, in [`THREAD`].
fn answer_body() -> Value {
    json!({
        "channel": CHANNEL,
        "thread_ts": THREAD,
        "text": "Deploys freeze on Fridays after 3 pm."
    })
}

/// The `chat.postMessage` calls (failed ones included) replying in thread `ts`.
fn posts_in_thread(slack: &FakeSlack, ts: &str) -> Vec<Call> {
    slack
        .calls_to("chat.postMessage")
        .into_iter()
        .filter(|call| call.str("thread_ts") == Some(ts))
        .collect()
}

/// Waits up to `limit` for at least `n` posts in thread `ts`; the posts then.
async fn wait_posts_in_thread(slack: &FakeSlack, ts: &str, n: usize, limit: Duration) -> Vec<Call> {
    let deadline = Instant::now() + limit;
    loop {
        let posts = posts_in_thread(slack, ts);
        if posts.len() >= n || Instant::now() >= deadline {
            return posts;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The bot's messages stored in thread `ts` of [`CHANNEL`].
fn bot_messages_in_thread(slack: &FakeSlack, ts: &str) -> Vec<Message> {
    slack
        .messages(CHANNEL)
        .into_iter()
        .filter(|m| m.thread_ts.as_deref() == Some(ts) && m.ts != ts)
        .filter(|m| m.user.as_deref() == Some(BOT_USER_ID) || m.bot_id.as_deref() == Some(BOT_ID))
        .collect()
}

/// What the fake recorded, for failure messages.
fn calls_summary(slack: &FakeSlack) -> String {
    slack
        .calls()
        .iter()
        .map(|c| {
            format!(
                "{} channel={:?} thread_ts={:?}",
                c.method,
                c.str("channel"),
                c.str("thread_ts")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts `reply` is the 503 `/v1/answers` gives while Slack cannot be reached.
fn assert_slack_down(reply: &Reply) {
    assert_eq!(
        reply.status, 503,
        "/v1/answers while Slack is down: {}",
        reply.text
    );
    assert_eq!(
        reply.json["error"]["code"], SLACK_DOWN_CODE,
        "the error code: {}",
        reply.text
    );
    let message = reply.json["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Slack"),
        "the message names Slack: {}",
        reply.text
    );
    assert!(
        reply.header("retry-after").is_some(),
        "a Retry-After header: {:?}",
        reply.headers
    );
}

/// Asserts `reply` is the 401 of a missing or wrong API token.
fn assert_unauthorized(reply: &Reply, what: &str) {
    assert_eq!(reply.status, 401, "{what}: {}", reply.text);
    assert_eq!(
        reply.json["error"]["code"], "unauthorized",
        "{what}: {}",
        reply.text
    );
}

/// Waits until `/readyz` says 200 with Slack "ok" and not degraded.
async fn assert_ready_with_slack_ok(bot: &Served, limit: Duration, when: &str) {
    let (ready, held) = bot
        .readyz_until("/readyz", limit, |r| {
            r.status == 200 && r.json["slack"]["status"] == "ok" && !degraded(&r.json, "slack")
        })
        .await;
    assert!(
        held,
        "{when}: /readyz never said 200 with slack.status \"ok\" and \"slack\" not degraded within {limit:?}: {} {}",
        ready.status, ready.text
    );
    assert_readyz_shape(&ready, "all");
}

// ---------------------------------------------------------------------------------------
// The fake itself

/// `go_away` refuses new connections and cuts open ones (a held request too);
/// `come_back` listens on the same port with the same state; `start_away` starts away;
/// `Failure::Unavailable` is a plain-text 503.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fake_slack_goes_away_and_comes_back() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let http = loopback_client();
    let api = slack.api_url();
    let auth = |http: reqwest::Client| {
        let url = format!("{api}/auth.test");
        async move { http.post(url).bearer_auth("xoxb-x").send().await }
    };
    let first = auth(http.clone()).await.expect("the fake answers");
    assert_eq!(first.status().as_u16(), 200);
    slack.add_message(
        CHANNEL,
        Message::from_user("1700000000.000100", "U1", "hello"),
    );
    // A request held open: cut when the fake goes away, not left hanging.
    slack.fail_next("conversations.history", Failure::Hang, 1);
    let held = tokio::spawn({
        let (http, url) = (http.clone(), format!("{api}/conversations.history"));
        async move {
            http.post(url)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(format!("channel={CHANNEL}"))
                .send()
                .await
        }
    });
    slack
        .wait_for("conversations.history", 1, Duration::from_secs(5))
        .await;
    let addr = slack.addr();
    assert!(!slack.is_away());
    slack.go_away();
    assert!(slack.is_away());
    let held = tokio::time::timeout(Duration::from_secs(5), held)
        .await
        .expect("the held request is cut at once")
        .expect("join");
    assert!(held.is_err(), "the held request got an answer: {held:?}");
    // New connections are refused: a connect error, not an HTTP status, not a hang.
    let started = Instant::now();
    let refused = auth(loopback_client())
        .await
        .expect_err("no answer while away");
    assert!(refused.is_connect(), "connection refused, not {refused:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "refused at once"
    );
    let tcp = tokio::net::TcpStream::connect(addr).await;
    assert_eq!(
        tcp.map(|_| ()).map_err(|e| e.kind()),
        Err(std::io::ErrorKind::ConnectionRefused)
    );
    // Back on the same port with the same state.
    slack.come_back().await;
    assert!(!slack.is_away());
    assert_eq!(slack.addr(), addr);
    let back = auth(http.clone()).await.expect("the fake is back");
    assert_eq!(back.status().as_u16(), 200);
    let body: Value = serde_json::from_str(&back.text().await.expect("body")).expect("JSON");
    assert_eq!(body["ok"], true, "{body}");
    assert_eq!(
        slack.calls_to("auth.test").len(),
        2,
        "calls kept; none while away"
    );
    assert_eq!(slack.calls_to("conversations.history").len(), 1);
    assert_eq!(slack.messages(CHANNEL).len(), 1, "messages kept");
    slack.come_back().await; // already back: nothing happens
                             // Slack's edge answering 503.
    slack.fail_next("chat.postMessage", Failure::Unavailable, 1);
    let post = |http: reqwest::Client| {
        let url = format!("{api}/chat.postMessage");
        async move {
            http.post(url)
                .bearer_auth("xoxb-x")
                .header("content-type", "application/x-www-form-urlencoded")
                .body(format!("channel={CHANNEL}&text=hi"))
                .send()
                .await
                .expect("an answer")
        }
    };
    let unavailable = post(http.clone()).await;
    assert_eq!(unavailable.status().as_u16(), 503);
    assert!(
        unavailable
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("text/plain")),
        "{:?}",
        unavailable.headers()
    );
    let text = unavailable.text().await.expect("body");
    assert!(
        serde_json::from_str::<Value>(&text).is_err(),
        "not JSON: {text}"
    );
    assert_eq!(
        post(http.clone()).await.status().as_u16(),
        200,
        "one failure only"
    );
    assert_eq!(slack.messages(CHANNEL).len(), 2);
    // Away from the start.
    let away = FakeSlack::start_away().await;
    assert!(away.is_away());
    let url = format!("{}/auth.test", away.api_url());
    let err = loopback_client()
        .post(&url)
        .send()
        .await
        .expect_err("away from the start");
    assert!(err.is_connect(), "{err:?}");
    away.go_away(); // already away: nothing happens
    away.come_back().await;
    let ok = loopback_client()
        .post(&url)
        .bearer_auth("xoxb-x")
        .send()
        .await
        .expect("back");
    assert_eq!(ok.status().as_u16(), 200);
}

// ---------------------------------------------------------------------------------------
// A. Slack unreachable at start

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slack_unreachable_at_start_leaves_the_api_up_and_is_caught_up_when_it_returns() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start_away().await;
    let bot = Served::start(&slack, &[]).await;

    // /readyz: not ready, Slack "starting" with the sign-in error.
    let (ready, held) = bot
        .readyz_until("/readyz", WAIT, |r| {
            r.status == 503
                && r.json["slack"]["last_error"]
                    .as_str()
                    .is_some_and(|e| !e.is_empty())
        })
        .await;
    assert!(
        held,
        "/readyz while Slack is unreachable: expected 503 with slack.last_error, got {} {}\nlogs:\n{}",
        ready.status,
        ready.text,
        bot.logs()
    );
    assert_readyz_shape(&ready, "all");
    assert_eq!(ready.json["ready"], false, "{}", ready.text);
    assert_eq!(ready.json["slack"]["status"], "starting", "{}", ready.text);
    let affects = ready.json["slack"]["affects"].to_string();
    assert!(
        affects.contains("/slack/events") && affects.contains("/v1/answers"),
        "slack.affects names its endpoints: {}",
        ready.text
    );
    let slack_probe = bot.get("/readyz/slack").await;
    assert_eq!(
        slack_probe.status, 503,
        "/readyz/slack: {}",
        slack_probe.text
    );
    assert_readyz_shape(&slack_probe, "slack");
    assert_eq!(
        slack_probe.json["slack"]["status"], "starting",
        "{}",
        slack_probe.text
    );
    let api_probe = bot.get("/readyz/api").await;
    assert_eq!(api_probe.status, 200, "/readyz/api: {}", api_probe.text);
    assert_readyz_shape(&api_probe, "api");
    assert_eq!(api_probe.json["ready"], true, "{}", api_probe.text);
    let health = bot.get("/healthz").await;
    assert_eq!(health.status, 200, "/healthz: {}", health.text);

    // /v1/check needs nothing from Slack; a Slack link in it is not checked.
    let permalink =
        format!("https://{WORKSPACE_DOMAIN}.slack.com/archives/C0123456789/p1700000000000100");
    let checked = bot
        .check(
            "",
            &format!("The freeze starts on Friday [1].\n\n[1] {permalink} - Freeze thread"),
        )
        .await;
    assert_eq!(checked.status, 200, "/v1/check: {}", checked.text);
    let source = checked.json["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["sources"].as_array().cloned().unwrap_or_default())
        .find(|s| {
            s["url"]
                .as_str()
                .is_some_and(|u| u.contains("/archives/C0123456789/p1700000000000100"))
        })
        .unwrap_or_else(|| panic!("the Slack link is in the report: {}", checked.text));
    assert_eq!(
        source["verdict"]["class"], "not_checked",
        "a Slack link while Slack is unreachable: {source}"
    );
    let unverified = bot.check("?verify=false", "Rust is fast.").await;
    assert_eq!(unverified.status, 200, "{}", unverified.text);

    // /v1/answers needs Slack: 503 naming it. Who asks is decided first.
    assert_slack_down(&bot.answers(&answer_body()).await);
    assert_unauthorized(&bot.answers_as(&answer_body(), None).await, "no token");
    assert_unauthorized(
        &bot.answers_as(&answer_body(), Some("not-the-api-token-0123456789"))
            .await,
        "a wrong token",
    );
    assert_unauthorized(
        &bot.check_as("?verify=false", "Rust.", None).await,
        "no token",
    );
    assert_unauthorized(
        &bot.check_as("?verify=false", "Rust.", Some(&API_TOKEN[1..]))
            .await,
        "a wrong token",
    );

    // Slack's own requests: 503, so that Slack delivers them again.
    let refused_ts = "1700000100.000100";
    let early = bot.event("EvOutageStart1", mention(refused_ts)).await;
    assert_eq!(
        early.status, 503,
        "a signed event before sign-in: {}",
        early.text
    );

    // Slack comes back: ready, mentions answered, /v1/answers posts.
    let back_at = Instant::now();
    slack.come_back().await;
    assert_ready_with_slack_ok(&bot, Duration::from_secs(12), "Slack came back").await;
    eprintln!("ready {:?} after Slack came back", back_at.elapsed());
    let ts = "1700000200.000100";
    let ack = bot.event("EvOutageStart2", mention(ts)).await;
    assert_eq!(ack.status, 200, "a mention once signed in: {}", ack.text);
    assert!(ack.took < Duration::from_secs(3), "acked in {:?}", ack.took);
    let posts = wait_posts_in_thread(&slack, ts, 1, WAIT).await;
    assert_eq!(
        posts.len(),
        1,
        "the mention is answered once in its thread; calls:\n{}\nlogs:\n{}",
        calls_summary(&slack),
        bot.logs()
    );
    let posted = bot.answers(&answer_body()).await;
    assert_eq!(
        posted.status, 200,
        "/v1/answers once signed in: {}",
        posted.text
    );
    assert_eq!(
        posts_in_thread(&slack, THREAD).len(),
        1,
        "{}",
        calls_summary(&slack)
    );
    assert!(
        posts_in_thread(&slack, refused_ts).is_empty(),
        "the delivery refused with 503 is left to Slack's redelivery: {}",
        calls_summary(&slack)
    );
    bot.assert_no_panic();
}

// ---------------------------------------------------------------------------------------
// B. Slack going away mid-run

/// Slack's edge answering 503 twice: the reply is tried again with back-off and posted
/// once. Slack gone: `/v1/check` unaffected, `/v1/answers` 503 at once, `/readyz` still
/// 200 listing Slack as degraded. Slack back: answered again, no longer degraded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slack_going_away_mid_run_degrades_and_recovers() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let bot = Served::start(&slack, &[("SOURCEBOT_SLACK_RETRY_FOR", "20s")]).await;
    assert_ready_with_slack_ok(&bot, WAIT, "signed in").await;

    // Two 503s from Slack's edge, then it takes the post: posted exactly once.
    slack.fail_next("chat.postMessage", Failure::Unavailable, 2);
    let ts = "1700000300.000100";
    let ack = bot.event("EvOutageMid1", mention(ts)).await;
    assert_eq!(ack.status, 200, "the mention is acknowledged: {}", ack.text);
    assert!(ack.took < Duration::from_secs(3), "acked in {:?}", ack.took);
    let posts = wait_posts_in_thread(&slack, ts, 3, Duration::from_secs(15)).await;
    assert_eq!(
        posts.len(),
        3,
        "2 refused posts, then the one that is taken; calls:\n{}\nlogs:\n{}",
        calls_summary(&slack),
        bot.logs()
    );
    let backed_off = posts[2].at - posts[0].at;
    assert!(
        backed_off >= Duration::from_millis(2_500),
        "tried again after 1 s then 2 s, not at once: {backed_off:?}"
    );
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(
        posts_in_thread(&slack, ts).len(),
        3,
        "no post after the one taken: {}",
        calls_summary(&slack)
    );
    assert_eq!(
        bot_messages_in_thread(&slack, ts).len(),
        1,
        "one reply in the thread: {:?}",
        slack.messages(CHANNEL)
    );

    // Slack goes away.
    slack.go_away();
    let checked = bot
        .check("?verify=false", "Deploys freeze on Fridays.")
        .await;
    assert_eq!(
        checked.status, 200,
        "/v1/check while Slack is away: {}",
        checked.text
    );
    let refused = bot.answers(&answer_body()).await;
    assert_slack_down(&refused);
    assert!(
        refused.took < Duration::from_secs(5),
        "/v1/answers does not wait out the retry window: {:?}",
        refused.took
    );
    assert_unauthorized(&bot.answers_as(&answer_body(), None).await, "no token");
    let (ready, held) = bot
        .readyz_until("/readyz", Duration::from_secs(5), |r| {
            degraded(&r.json, "slack")
        })
        .await;
    assert!(
        held,
        "/readyz lists slack as degraded once a call failed: {} {}",
        ready.status, ready.text
    );
    assert_readyz_shape(&ready, "all");
    assert_eq!(ready.status, 200, "still ready: {}", ready.text);
    assert_eq!(ready.json["ready"], true, "{}", ready.text);
    assert_eq!(ready.json["slack"]["status"], "down", "{}", ready.text);
    assert!(
        ready.json["slack"]["last_error"]
            .as_str()
            .is_some_and(|e| !e.is_empty()),
        "slack.last_error says what failed: {}",
        ready.text
    );
    assert_eq!(bot.get("/healthz").await.status, 200);

    // Slack comes back: the next mention is answered, Slack is no longer degraded.
    slack.come_back().await;
    let ts = "1700000400.000100";
    let ack = bot.event("EvOutageMid2", mention(ts)).await;
    assert_eq!(
        ack.status, 200,
        "a mention after Slack came back: {}",
        ack.text
    );
    let posts = wait_posts_in_thread(&slack, ts, 1, WAIT).await;
    assert_eq!(
        posts.len(),
        1,
        "answered once Slack is back; calls:\n{}\nlogs:\n{}",
        calls_summary(&slack),
        bot.logs()
    );
    assert_ready_with_slack_ok(&bot, WAIT, "Slack came back").await;
    bot.assert_no_panic();
}

/// A reply Slack cannot take within `SOURCEBOT_SLACK_RETRY_FOR` is given up and logged
/// at WARN with its channel and thread; it is not posted late when Slack returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_slack_cannot_take_within_the_window_is_logged_with_its_thread() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let bot = Served::start(&slack, &[("SOURCEBOT_SLACK_RETRY_FOR", "2s")]).await;
    assert_ready_with_slack_ok(&bot, WAIT, "signed in").await;

    slack.go_away();
    let lost = "1700000500.000100";
    let ack = bot.event("EvOutageLost1", mention(lost)).await;
    assert_eq!(
        ack.status, 200,
        "acknowledged while Slack is away: {}",
        ack.text
    );
    assert!(ack.took < Duration::from_secs(3), "acked in {:?}", ack.took);
    let warned = bot
        .wait_for_log(Duration::from_secs(10), |line| {
            log_level(line) == "WARN"
                && has_field(line, "channel", CHANNEL)
                && has_field(line, "thread_ts", lost)
        })
        .await;
    let Some(warned) = warned else {
        panic!(
            "no WARN log line with channel {CHANNEL} and thread_ts {lost} within the window + 8 s; logs:\n{}",
            bot.logs()
        );
    };
    eprintln!("given up and logged: {warned}");

    slack.come_back().await;
    let ts = "1700000600.000100";
    let ack = bot.event("EvOutageLost2", mention(ts)).await;
    assert_eq!(ack.status, 200, "{}", ack.text);
    let posts = wait_posts_in_thread(&slack, ts, 1, WAIT).await;
    assert_eq!(
        posts.len(),
        1,
        "answered once Slack is back; calls:\n{}\nlogs:\n{}",
        calls_summary(&slack),
        bot.logs()
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        posts_in_thread(&slack, lost).is_empty(),
        "the reply given up is not posted late: {}",
        calls_summary(&slack)
    );
    assert_ready_with_slack_ok(&bot, WAIT, "Slack came back").await;
    bot.assert_no_panic();
}

/// A `chat.postMessage` that timed out may have been posted: it is not sent again,
/// even with a retry window open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_that_timed_out_is_not_sent_again() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let bot = Served::start(
        &slack,
        &[
            ("SOURCEBOT_SLACK_RETRY_FOR", "20s"),
            ("SOURCEBOT_SLACK_TIMEOUT", "1s"),
        ],
    )
    .await;
    assert_ready_with_slack_ok(&bot, WAIT, "signed in").await;
    slack.fail_next("chat.postMessage", Failure::Hang, 1);
    let ts = "1700000700.000100";
    let ack = bot.event("EvOutageTimeout1", mention(ts)).await;
    assert_eq!(ack.status, 200, "{}", ack.text);
    let posts = wait_posts_in_thread(&slack, ts, 1, WAIT).await;
    assert_eq!(posts.len(), 1, "{}", calls_summary(&slack));
    // 1 s timeout, then retries would come 1 s and 2 s later.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        posts_in_thread(&slack, ts).len(),
        1,
        "a timed-out post is not sent again (it may have arrived); calls:\n{}\nlogs:\n{}",
        calls_summary(&slack),
        bot.logs()
    );
    bot.assert_no_panic();
}

/// Socket Mode, Slack away at start: the API and the probes answer (Slack's part
/// naming Socket Mode among what it affects); once Slack is back, the bot signs in and
/// opens its connection, and `/readyz` turns 200.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn socket_mode_waits_for_slack_and_connects_when_it_returns() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start_away().await;
    let bot = Served::start(&slack, &[("SLACK_APP_TOKEN", "xapp-1-outage-test")]).await;
    let (ready, _) = bot
        .readyz_until("/readyz", WAIT, |r| {
            r.json["slack"]["last_error"].is_string()
        })
        .await;
    assert_eq!(ready.status, 503, "{}", ready.text);
    assert_readyz_shape(&ready, "all");
    assert!(
        ready.json["slack"]["affects"]
            .as_array()
            .is_some_and(|a| a.iter().any(|e| e == "Socket Mode")),
        "{}",
        ready.text
    );
    let checked = bot
        .check("?verify=false", "Deploys freeze on Fridays.")
        .await;
    assert_eq!(checked.status, 200, "{}", checked.text);
    assert_eq!(slack.socket_connections(), 0);
    slack.come_back().await;
    assert_ready_with_slack_ok(&bot, Duration::from_secs(12), "Slack came back").await;
    assert!(
        slack
            .wait_for_socket_connections(1, Duration::from_secs(10))
            .await,
        "no Socket Mode connection; logs:\n{}",
        bot.logs()
    );
    bot.assert_no_panic();
}

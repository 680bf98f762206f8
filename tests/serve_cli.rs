//! `sourcebot serve` as an operator starts it: settings from the environment and from
//! a `.env` file, one line naming any missing or malformed setting, a clear stop when
//! Slack refuses the token, `/healthz` once running, and JSON logs that never contain a
//! token or the signing secret.

mod support;

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::serve::{free_port, loopback_client, ready_within, ServeChild};
use support::slack::{Failure, FakeSlack};

const BOT_TOKEN: &str = "xoxb-secret-bot-token";
const SIGNING_SECRET: &str = "very-secret-signing-secret";

/// `sourcebot serve` in `dir`, with only the given variables (no inherited Slack,
/// SOURCEBOT_ or proxy settings).
fn serve(dir: &std::path::Path, envs: &[(&str, String)]) -> Command {
    let mut cmd = support::outage::serve_command(env!("CARGO_BIN_EXE_sourcebot"), dir);
    cmd.envs(envs.iter().map(|(k, v)| (*k, v.as_str())));
    cmd
}

/// `sourcebot serve` in `dir` with the Slack settings for `slack`, listening on
/// `listen`, and `extra` settings.
fn serve_signed_in(
    dir: &std::path::Path,
    slack: &FakeSlack,
    listen: String,
    extra: &[(&str, String)],
) -> Command {
    let mut envs = vec![
        ("SLACK_BOT_TOKEN", BOT_TOKEN.to_string()),
        ("SLACK_SIGNING_SECRET", SIGNING_SECRET.to_string()),
        ("SOURCEBOT_SLACK_API_URL", slack.api_url()),
        ("SOURCEBOT_LISTEN", listen),
    ];
    envs.extend(extra.iter().cloned());
    serve(dir, &envs)
}

async fn output(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().expect("run sourcebot"))
        .await
        .expect("join")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_setting_stops_start_up_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = output(serve(dir.path(), &[])).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let message = stderr(&out);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("SLACK_BOT_TOKEN"), "{message}");
    let out = output(serve(dir.path(), &[("SLACK_BOT_TOKEN", BOT_TOKEN.into())])).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("SLACK_SIGNING_SECRET"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_are_read_from_a_dotenv_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join(".env"),
        "SLACK_BOT_TOKEN=xoxp-wrong-kind\nSLACK_SIGNING_SECRET=s\n",
    )
    .expect("write .env");
    let out = output(serve(dir.path(), &[])).await;
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains("SLACK_BOT_TOKEN") && message.contains("xoxb-"),
        "{message}"
    );
    assert!(
        !message.contains("xoxp-wrong-kind"),
        "a token was echoed: {message}"
    );
    std::fs::write(dir.path().join(".env"), "this is not a setting\n").expect("write .env");
    let out = output(serve(dir.path(), &[])).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("sourcebot: .env: cannot read line"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_slack_refuses_stops_start_up() {
    let slack = FakeSlack::start().await;
    slack.fail_next("auth.test", Failure::SlackError("invalid_auth".into()), 1);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = output(serve_signed_in(
        dir.path(),
        &slack,
        "127.0.0.1:0".into(),
        &[],
    ))
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("cannot sign in to Slack (auth.test): Slack refused auth.test: invalid_auth"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn it_is_not_ready_until_slack_answers_and_keeps_trying() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    slack.fail_next("auth.test", Failure::ServerError, 1);
    let port = free_port();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = serve_signed_in(dir.path(), &slack, format!("127.0.0.1:{port}"), &[]);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let _running = ServeChild(cmd.spawn().expect("spawn"));
    let client = loopback_client();
    // The first auth.test fails with a 500: alive, not ready, and it says why.
    let started = Instant::now();
    let mut not_ready = None;
    while started.elapsed() < Duration::from_secs(10) && not_ready.is_none() {
        if let Ok(response) = client
            .get(format!("http://127.0.0.1:{port}/readyz"))
            .send()
            .await
        {
            let status = response.status().as_u16();
            let text = response.text().await.unwrap_or_default();
            let body: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            if status == 503 && !body["slack"]["last_error"].is_null() {
                not_ready = Some(body);
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let body = not_ready.expect("/readyz said 503 with the sign-in error");
    assert_eq!(body["ready"], false);
    assert!(
        body["slack"]["last_error"]
            .as_str()
            .unwrap_or_default()
            .contains("auth.test"),
        "{body}"
    );
    let health = client
        .get(format!("http://127.0.0.1:{port}/healthz"))
        .send()
        .await
        .expect("healthz");
    assert_eq!(health.status().as_u16(), 200);
    let early = client
        .post(format!("http://127.0.0.1:{port}/slack/events"))
        .body("{}")
        .send()
        .await
        .expect("request");
    assert_eq!(
        early.status().as_u16(),
        503,
        "Slack is asked to retry later"
    );
    assert!(early.headers().contains_key("retry-after"));
    // The retry (2 s later) succeeds.
    assert!(
        ready_within(
            &client,
            &format!("127.0.0.1:{port}"),
            Duration::from_secs(10)
        )
        .await,
        "never became ready"
    );
    assert_eq!(slack.calls_to("auth.test").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn it_serves_health_and_logs_json_without_secrets() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let port = free_port();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = serve_signed_in(
        dir.path(),
        &slack,
        format!("127.0.0.1:{port}"),
        &[
            ("SOURCEBOT_LOG_FORMAT", "json".into()),
            ("RUST_LOG", "debug".into()),
        ],
    );
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    let mut running = ServeChild(cmd.spawn().expect("spawn"));
    let client = loopback_client();
    let started = Instant::now();
    let mut healthy = false;
    while started.elapsed() < Duration::from_secs(10) {
        if let Ok(response) = client
            .get(format!("http://127.0.0.1:{port}/healthz"))
            .send()
            .await
        {
            healthy = response.status().is_success();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(healthy, "/healthz never answered");
    assert!(
        ready_within(
            &client,
            &format!("127.0.0.1:{port}"),
            Duration::from_secs(10)
        )
        .await,
        "/readyz never said ready"
    );
    // An unsigned request: refused, and logged.
    let refused = client
        .post(format!("http://127.0.0.1:{port}/slack/events"))
        .body("{}")
        .send()
        .await
        .expect("request");
    assert_eq!(refused.status().as_u16(), 401);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let _ = running.0.kill();
    let mut logs = String::new();
    if let Some(mut err) = running.0.stderr.take() {
        let _ = err.read_to_string(&mut logs);
    }
    assert!(!logs.trim().is_empty(), "no logs");
    for line in logs.lines() {
        let parsed: Result<serde_json::Value, _> = serde_json::from_str(line);
        assert!(parsed.is_ok(), "not a JSON log line: {line}");
    }
    assert!(logs.contains("signed in to Slack"), "{logs}");
    assert!(
        logs.contains("answer API off: set SOURCEBOT_API_TOKEN"),
        "start-up says the API is off: {logs}"
    );
    assert!(!logs.contains(BOT_TOKEN), "the bot token was logged");
    assert!(
        !logs.contains(SIGNING_SECRET),
        "the signing secret was logged"
    );
    assert_eq!(
        slack.calls_to("auth.test")[0].token.as_deref(),
        Some(BOT_TOKEN)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_api_is_served_beside_slack_when_a_token_is_set() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let port = free_port();
    let dir = tempfile::tempdir().expect("tempdir");
    let token = "serve-cli-token-0123456789";
    let mut cmd = serve_signed_in(
        dir.path(),
        &slack,
        format!("127.0.0.1:{port}"),
        &[("SOURCEBOT_API_TOKEN", token.into())],
    );
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let _running = ServeChild(cmd.spawn().expect("spawn"));
    let client = loopback_client();
    assert!(
        ready_within(
            &client,
            &format!("127.0.0.1:{port}"),
            Duration::from_secs(10)
        )
        .await
    );
    let checked = client
        .post(format!("http://127.0.0.1:{port}/v1/check?verify=false"))
        .bearer_auth(token)
        .header("content-type", "text/markdown")
        .body("Rust 1.0 shipped in 2015 [1].\n\n[1] https://blog.rust-lang.org/ - Rust blog")
        .send()
        .await
        .expect("check");
    assert_eq!(checked.status().as_u16(), 200);
    let report: serde_json::Value =
        serde_json::from_str(&checked.text().await.expect("body")).expect("JSON");
    assert_eq!(report["metrics"]["unique_sources"], 1);
    let metrics = client
        .get(format!("http://127.0.0.1:{port}/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("body");
    assert!(
        metrics.contains("sourcebot_http_requests_total{route=\"/v1/check\",status=\"200\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("sourcebot_slack_api_calls_total{method=\"auth.test\",outcome=\"ok\"} 1"),
        "{metrics}"
    );
}

/// Issue 28, first part: while Slack cannot be reached, a `/v1` request without a
/// token or with a wrong one is 401, not "signing in" — who asks is decided first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_authenticates_first_while_slack_is_unreachable() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    slack.fail_next("auth.test", Failure::ServerError, 1_000);
    let port = free_port();
    let dir = tempfile::tempdir().expect("tempdir");
    let token = "a-long-random-api-token-for-this-test-0123456789";
    let mut cmd = serve_signed_in(
        dir.path(),
        &slack,
        format!("127.0.0.1:{port}"),
        &[("SOURCEBOT_API_TOKEN", token.to_string())],
    );
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let _running = ServeChild(cmd.spawn().expect("spawn"));
    let client = loopback_client();
    let url = format!("http://127.0.0.1:{port}/v1/check");
    let ask = |bearer: Option<&'static str>| {
        let mut request = client
            .post(&url)
            .header("content-type", "text/markdown")
            .body("Rust is fast [1].\n\n[1] https://www.rust-lang.org/");
        if let Some(bearer) = bearer {
            request = request.header("authorization", format!("Bearer {bearer}"));
        }
        request.send()
    };
    // Slack has been asked and refused: the gate stays closed.
    slack
        .wait_for("auth.test", 1, Duration::from_secs(10))
        .await;
    let started = Instant::now();
    let answered = loop {
        if let Ok(response) = ask(None).await {
            break response;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never listened"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(answered.status().as_u16(), 401, "no token");
    let body: serde_json::Value =
        serde_json::from_str(&answered.text().await.expect("body")).expect("JSON error");
    assert_eq!(body["error"]["code"], "unauthorized", "{body}");
    let wrong = ask(Some("not-the-token")).await.expect("request");
    assert_eq!(wrong.status().as_u16(), 401, "a wrong token");
    // /v1/check needs nothing from Slack: answered while Slack still refuses.
    let right = client
        .post(format!("{url}?verify=false"))
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "text/markdown")
        .body("Rust is fast.")
        .send()
        .await
        .expect("request");
    assert_eq!(right.status().as_u16(), 200, "checked without Slack");
    let report: serde_json::Value =
        serde_json::from_str(&right.text().await.expect("body")).expect("the report");
    assert!(report["claims"].is_array(), "{report}");
    // Posting needs Slack: 503 naming it and what failed.
    let post = client
        .post(format!("http://127.0.0.1:{port}/v1/answers"))
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(r#"{"channel": "C0123456789", "thread_ts": "1700000000.000100", "text": "Rust is fast."}"#)
        .send()
        .await
        .expect("request");
    assert_eq!(post.status().as_u16(), 503);
    assert!(post.headers().contains_key("retry-after"));
    let refused: serde_json::Value =
        serde_json::from_str(&post.text().await.expect("body")).expect("JSON error");
    assert_eq!(refused["error"]["code"], "slack_unavailable", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Slack") && message.contains("auth.test"),
        "names Slack and what failed: {message}"
    );
}

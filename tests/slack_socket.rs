//! Socket Mode end to end: the bot connects to a fake Slack over a WebSocket
//! (`apps.connections.open`, then `hello`), acknowledges each envelope at once, and
//! does the work: an `app_mention` posts one report, its redelivery posts nothing
//! more, a slash command is acknowledged and answered through its `response_url`.

mod support;

use serde_json::Value;
use sourcebot::config::Config;
use sourcebot::slack::{self, Bot, SlackSettings, Transport};
use std::time::{Duration, Instant};
use support::slack::{
    app_mention_event, events_api_envelope, slash_command_envelope, FakeSlack, BOT_USER_ID,
};

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envelopes_are_acked_at_once_and_handled_once() {
    sourcebot::verify::install_crypto_provider();
    let slack = FakeSlack::start().await;
    let settings = SlackSettings::from_lookup(|name| match name {
        "SLACK_BOT_TOKEN" => Some("xoxb-test".into()),
        "SLACK_APP_TOKEN" => Some("xapp-test".into()),
        "SOURCEBOT_SLACK_API_URL" => Some(slack.api_url()),
        _ => None,
    })
    .expect("settings");
    let Transport::Socket { app_token } = settings.transport.clone() else {
        panic!("Socket Mode expected with an app token");
    };
    let bot = Bot::start(&settings, Config::default())
        .await
        .expect("bot starts");
    let serving = tokio::spawn(async move { slack::socket::serve(bot, &app_token).await });
    assert!(
        slack.wait_for_socket_connections(1, WAIT).await,
        "the bot never connected"
    );
    let opened = slack.calls_to("apps.connections.open");
    assert_eq!(opened[0].token.as_deref(), Some("xapp-test"));

    let mention = app_mention_event(
        "C0GENERAL",
        "U1",
        &format!("<@{BOT_USER_ID}> Rust 1.0 shipped in 2015 [1].\n\n[1] https://nothing.invalid/rust - Rust"),
        "1700002000.000100",
        None,
    );
    let sent = Instant::now();
    slack
        .socket_send(events_api_envelope("env-1", "EvS1", mention.clone()))
        .await;
    let ack = slack.wait_for_ack("env-1", WAIT).await;
    assert!(ack.is_some(), "no ack for the event");
    assert!(
        sent.elapsed() < Duration::from_secs(3),
        "ack took {:?}",
        sent.elapsed()
    );
    let posts = slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(posts[0].str("thread_ts"), Some("1700002000.000100"));
    let shown = posts[0]
        .param("blocks")
        .map(Value::to_string)
        .unwrap_or_default();
    assert!(shown.contains("⚠ 1 broken"), "{shown}");

    // Slack redelivers the same event (retry_attempt 1): acked, not posted again.
    let mut retry = events_api_envelope("env-2", "EvS1", mention);
    retry["retry_attempt"] = 1.into();
    retry["retry_reason"] = "timeout".into();
    slack.socket_send(retry).await;
    assert!(slack.wait_for_ack("env-2", WAIT).await.is_some());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(slack.calls_to("chat.postMessage").len(), 1);

    // A slash command: acknowledged with a message, answered through response_url.
    slack
        .socket_send(slash_command_envelope(
            "env-3",
            "/sources",
            "Rust is fast [1].\n\n[1] https://nothing.invalid/fast - Fast",
            "C0GENERAL",
            "U1",
            &slack.response_url("sock-cmd"),
        ))
        .await;
    let ack = slack
        .wait_for_ack("env-3", WAIT)
        .await
        .expect("command ack");
    assert!(ack.to_string().contains("Checking the sources"), "{ack}");
    let responses = slack.wait_for("response_url", 1, WAIT).await;
    assert_eq!(responses[0].str("response_type"), Some("ephemeral"));
    serving.abort();
}

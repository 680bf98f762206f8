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

/// The bot in Socket Mode against `slack`, with `extra` settings; connected when this
/// returns. Abort the handle to stop it.
async fn serve_socket(slack: &FakeSlack, extra: &[(&str, &str)]) -> tokio::task::JoinHandle<()> {
    sourcebot::verify::install_crypto_provider();
    let settings = SlackSettings::from_lookup(|name| match name {
        "SLACK_BOT_TOKEN" => Some("xoxb-test".into()),
        "SLACK_APP_TOKEN" => Some("xapp-test".into()),
        "SOURCEBOT_SLACK_API_URL" => Some(slack.api_url()),
        _ => extra
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.to_string()),
    })
    .expect("settings");
    let Transport::Socket { app_token } = settings.transport.clone() else {
        panic!("Socket Mode expected with an app token");
    };
    let bot = Bot::start(&settings, Config::default())
        .await
        .expect("bot starts");
    let serving = tokio::spawn(async move {
        let _ = slack::socket::serve(bot, &app_token).await;
    });
    assert!(
        slack.wait_for_socket_connections(1, WAIT).await,
        "the bot never connected"
    );
    serving
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envelopes_are_acked_at_once_and_handled_once() {
    let slack = FakeSlack::start().await;
    let serving = serve_socket(&slack, &[]).await;
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

/// A watched assistant's answer whose citations are attachment title links reaches the
/// bot over Socket Mode with every field (slack-morphism's typed models would drop
/// `title_link`), and gets one reply once it settles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watched_answer_with_attachments_is_read_whole_over_socket_mode() {
    let slack = FakeSlack::start().await;
    let serving = serve_socket(
        &slack,
        &[
            ("SOURCEBOT_WATCH_BOT_IDS", "BAI"),
            ("SOURCEBOT_SETTLE", "100ms"),
        ],
    )
    .await;
    let answer = serde_json::json!({
        "type": "message", "channel": "C0GENERAL", "channel_type": "channel",
        "ts": "1700003000.000100", "event_ts": "1700003000.000100",
        "user": "U0AIBOT", "bot_id": "BAI", "app_id": "AAI",
        "text": "Here is what I found about the deploy freeze.",
        "attachments": [
            {"id": 1, "fallback": "Freeze policy", "title": "Freeze policy",
             "title_link": "https://nothing.invalid/freeze", "text": "Deploys freeze on Fridays after 3 pm."},
            {"id": 2, "fallback": "Holiday calendar", "title": "Holiday calendar",
             "title_link": "https://nothing.invalid/holidays", "footer": "Updated 2024"}
        ]
    });
    slack
        .socket_send(events_api_envelope("env-w1", "EvW1", answer))
        .await;
    assert!(slack.wait_for_ack("env-w1", WAIT).await.is_some());
    let posts = slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].str("thread_ts"), Some("1700003000.000100"));
    let shown = posts[0]
        .param("blocks")
        .map(Value::to_string)
        .unwrap_or_default();
    assert!(shown.contains("Freeze policy"), "{shown}");
    assert!(shown.contains("Holiday calendar"), "{shown}");
    assert!(shown.contains("⚠ 2 broken"), "{shown}");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(slack.calls_to("chat.postMessage").len(), 1, "one reply");
    serving.abort();
}

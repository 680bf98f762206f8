//! The Slack bot end to end, over HTTP: signed requests built here drive `serve`'s
//! router, the bot talks to a fake Slack Web API (tests/support/slack.rs), and the
//! links in the answers point at hostile local servers. Every entry point, the
//! signature check, deduplication, Slack's failures (429, invalid_blocks,
//! not_in_channel, a hang) and the 3-second ack are covered.

mod support;

use serde_json::{json, Value};
use sourcebot::slack::api::CHANNEL_PACE;
use std::net::IpAddr;
use std::time::{Duration, Instant};
use support::bot::{harness, harness_with, CHANNEL, SECRET};
use support::slack::{
    app_mention_event, assert_paced, sign_request, unix_now, Access, Failure, Message, BOT_USER_ID,
};
use support::{Action, HostileServer, Route};

const WAIT: Duration = Duration::from_secs(5);

/// A loopback address of this file's block, 127.4.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(4)
}

/// A server whose page answers 200, and one whose page is gone.
async fn sites() -> (HostileServer, HostileServer) {
    let ok = HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await;
    let gone = HostileServer::start(next_ip(), vec![("/gone", Route::status(404))]).await;
    (ok, gone)
}

fn answer_text(ok: &HostileServer, gone: &HostileServer) -> String {
    format!(
        "Deploys freeze on Fridays [1]. The old runbook moved [2].\n\n[1] {} - Freeze policy\n[2] {} - Old runbook",
        ok.url("/ok"),
        gone.url("/gone")
    )
}

/// All the text a posted message carries (fallback text and blocks), as one string.
fn posted_text(call: &support::slack::Call) -> String {
    format!(
        "{} {}",
        call.str("text").unwrap_or_default(),
        call.param("blocks")
            .map(Value::to_string)
            .unwrap_or_default()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_verification_is_answered() {
    let h = harness().await;
    let body = json!({"token": "x", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "type": "url_verification"}).to_string();
    let (status, text, _) = h.post_json("/slack/events", &body).await;
    assert_eq!(status, 200);
    let answer: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(
        answer["challenge"],
        "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
    );
}

#[test]
fn slacks_documented_signature_vector_matches() {
    // The vector from Slack's documentation (SLACK.md). Its timestamp is from 2018, so
    // slack-morphism's verifier must reject it for age alone: that proves the
    // signature itself matched (the age is checked only after the hash).
    use slack_morphism::prelude::SlackSigningSecret;
    use slack_morphism::signature_verifier::{
        SlackEventSignatureVerifier, SlackEventSignatureVerifierError,
    };
    let body = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    let expected = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
    assert_eq!(
        sign_request(SECRET, "1531420618", body),
        expected,
        "the test's own signer"
    );
    let verifier = SlackEventSignatureVerifier::new(&SlackSigningSecret::new(SECRET.into()));
    match verifier.verify(expected, body, "1531420618") {
        Err(SlackEventSignatureVerifierError::IncorrectOrExpiredTimestampError(_)) => {}
        other => panic!("expected only the old timestamp to be refused, got {other:?}"),
    }
    let mut tampered = body.to_string();
    tampered.push('x');
    assert!(matches!(
        verifier.verify(expected, &tampered, "1531420618"),
        Err(SlackEventSignatureVerifierError::WrongSignatureError(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_signatures_are_refused() {
    let h = harness().await;
    let body = json!({"type": "url_verification", "challenge": "c"}).to_string();
    let ts = unix_now();
    // Tampered body: signed one thing, sent another.
    let signature = sign_request(SECRET, &ts.to_string(), &body);
    let tampered = h
        .http
        .post(h.url("/slack/events"))
        .header("x-slack-request-timestamp", ts.to_string())
        .header("x-slack-signature", signature)
        .body(body.replace("\"c\"", "\"d\""))
        .send()
        .await
        .expect("request");
    assert_eq!(tampered.status().as_u16(), 401);
    let (wrong_secret, ..) = h
        .post_signed(
            "/slack/events",
            &body,
            "application/json",
            "not-the-secret",
            ts,
            &[],
        )
        .await;
    assert_eq!(wrong_secret, 401);
    let (stale, ..) = h
        .post_signed(
            "/slack/events",
            &body,
            "application/json",
            SECRET,
            ts - 600,
            &[],
        )
        .await;
    assert_eq!(stale, 401);
    let missing = h
        .http
        .post(h.url("/slack/events"))
        .body(body.clone())
        .send()
        .await
        .expect("request");
    assert_eq!(missing.status().as_u16(), 401);
    // Nothing reached Slack on behalf of a forged request.
    assert!(h.slack.calls_to("chat.postMessage").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_bodies_are_refused_before_the_signature_check() {
    let h = harness_with(|s| s.max_body_bytes = 4096).await;
    let body = "x".repeat(10_000);
    let (status, ..) = h.post_json("/slack/events", &body).await;
    assert_eq!(status, 413);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssl_checks_and_health_are_answered() {
    let h = harness().await;
    let response = h
        .http
        .post(h.url("/slack/commands"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("ssl_check=1&token=x")
        .send()
        .await
        .expect("request");
    assert_eq!(response.status().as_u16(), 200);
    let health = h.http.get(h.url("/healthz")).send().await.expect("health");
    assert_eq!(health.status().as_u16(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_top_level_mention_with_text_is_checked_and_answered_in_a_thread() {
    let h = harness().await;
    let (ok, gone) = sites().await;
    let text = format!("<@{BOT_USER_ID}> {}", answer_text(&ok, &gone));
    let event = app_mention_event(CHANNEL, "U1", &text, "1700000100.000100", None);
    let (status, _, took) = h.event("Ev1", event, &[]).await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(3));
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(posts.len(), 1);
    let post = &posts[0];
    assert_eq!(post.str("channel"), Some(CHANNEL));
    assert_eq!(post.str("thread_ts"), Some("1700000100.000100"));
    assert_eq!(post.param("unfurl_links"), Some(&json!(false)));
    assert_eq!(post.param("unfurl_media"), Some(&json!(false)));
    assert_eq!(post.token.as_deref(), Some("xoxb-test"));
    let shown = posted_text(post);
    assert!(shown.contains("✓ 1 verified"), "{shown}");
    assert!(shown.contains("⚠ 1 broken"), "{shown}");
    assert!(shown.contains("Freeze policy"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mention_in_a_thread_checks_the_threads_answer() {
    let h = harness().await;
    let (ok, gone) = sites().await;
    let parent = "1700000200.000100";
    h.slack.add_message(
        CHANNEL,
        Message::from_user(parent, "U1", "Can we deploy on Friday?"),
    );
    h.slack.add_message(
        CHANNEL,
        Message::from_bot("1700000200.000200", "BAI", &answer_text(&ok, &gone)).in_thread(parent),
    );
    // An earlier reply of sourcebot's own, and the mention: both skipped.
    h.slack.add_message(
        CHANNEL,
        Message {
            ts: "1700000200.000300".into(),
            thread_ts: Some(parent.into()),
            user: Some(BOT_USER_ID.into()),
            bot_id: Some("BBOT".into()),
            text: "*Sources* · 0 sources".into(),
        },
    );
    let mention_ts = "1700000200.000400";
    let mention = format!("<@{BOT_USER_ID}>");
    h.slack.add_message(
        CHANNEL,
        Message::from_user(mention_ts, "U1", &mention).in_thread(parent),
    );
    let event = app_mention_event(CHANNEL, "U1", &mention, mention_ts, Some(parent));
    h.event("Ev2", event, &[]).await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(posts[0].str("thread_ts"), Some(parent));
    assert!(
        posted_text(&posts[0]).contains("Old runbook"),
        "{}",
        posted_text(&posts[0])
    );
    let replies = h.slack.calls_to("conversations.replies");
    assert_eq!(replies[0].str("ts"), Some(parent));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mention_with_nothing_to_check_gets_the_usage() {
    let h = harness().await;
    let event = app_mention_event(
        CHANNEL,
        "U1",
        &format!("<@{BOT_USER_ID}>"),
        "1700000300.000100",
        None,
    );
    h.event("Ev3", event, &[]).await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert!(posts[0]
        .str("text")
        .unwrap_or_default()
        .contains("/sources"));
    assert!(posts[0].str("text").unwrap_or_default().contains("threads"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_event_is_posted_once() {
    let h = harness().await;
    let (ok, gone) = sites().await;
    let text = format!("<@{BOT_USER_ID}> {}", answer_text(&ok, &gone));
    let event = app_mention_event(CHANNEL, "U1", &text, "1700000400.000100", None);
    h.event("EvSame", event.clone(), &[]).await;
    for retry in ["1", "2", "3"] {
        let (status, ..) = h
            .event(
                "EvSame",
                event.clone(),
                &[
                    ("x-slack-retry-num", retry),
                    ("x-slack-retry-reason", "http_timeout"),
                ],
            )
            .await;
        assert_eq!(status, 200);
    }
    h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(h.slack.calls_to("chat.postMessage").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_slash_command_answers_privately_and_can_share() {
    let h = harness().await;
    let (ok, gone) = sites().await;
    let (status, ack, took) = h.command(&answer_text(&ok, &gone), "cmd1").await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(3));
    assert!(ack.contains("ephemeral"), "{ack}");
    let responses = h.slack.wait_for("response_url", 1, WAIT).await;
    let private = &responses[0];
    assert_eq!(private.str("response_type"), Some("ephemeral"));
    let blocks = private
        .param("blocks")
        .map(Value::to_string)
        .unwrap_or_default();
    assert!(blocks.contains("Share in channel"), "{blocks}");
    assert!(blocks.contains("Freeze policy"), "{blocks}");
    // The button's value is the stored report's key.
    let key = private.param("blocks").and_then(|b| {
        b.as_array()?.iter().find_map(|block| {
            block["elements"].as_array()?.iter().find_map(|e| {
                (e["action_id"] == "share_sources")
                    .then(|| e["value"].as_str().map(str::to_string))?
            })
        })
    });
    let key = key.expect("share button value");
    let click = json!({
        "type": "block_actions",
        "team": {"id": "T0001", "domain": "acme"},
        "user": {"id": "U1", "username": "ada", "team_id": "T0001"},
        "api_app_id": "A0001",
        "container": {"type": "message", "message_ts": "1700000500.000100", "channel_id": CHANNEL, "is_ephemeral": true},
        "trigger_id": support::slack::trigger_id(),
        "channel": {"id": CHANNEL, "name": "general"},
        "response_url": h.slack.response_url("cmd1"),
        "actions": [{"type": "button", "action_id": "share_sources", "block_id": "b", "value": key, "action_ts": "1700000500.000200", "text": {"type": "plain_text", "text": "Share in channel"}}],
    });
    let (status, ..) = h.interaction(click).await;
    assert_eq!(status, 200);
    let responses = h.slack.wait_for("response_url", 2, WAIT).await;
    assert_eq!(responses[1].str("response_type"), Some("in_channel"));
    assert!(!responses[1]
        .param("blocks")
        .map(Value::to_string)
        .unwrap_or_default()
        .contains("Share in channel"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_slash_command_reads_a_message_link() {
    let h = harness().await;
    let (ok, gone) = sites().await;
    h.slack.add_message(
        CHANNEL,
        Message::from_bot("1700000600.000100", "BAI", &answer_text(&ok, &gone)),
    );
    let link = format!("https://acme.slack.com/archives/{CHANNEL}/p1700000600000100");
    h.command(&link, "cmd2").await;
    let responses = h.slack.wait_for("response_url", 1, WAIT).await;
    let blocks = responses[0]
        .param("blocks")
        .map(Value::to_string)
        .unwrap_or_default();
    assert!(blocks.contains("Old runbook"), "{blocks}");
    assert!(!h.slack.calls_to("conversations.history").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_slash_command_explains_itself() {
    let h = harness().await;
    let (status, ack, _) = h.command("", "cmd3").await;
    assert_eq!(status, 200);
    assert!(ack.contains("/sources"), "{ack}");
    assert!(ack.contains("threads"), "{ack}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_message_shortcut_replies_in_the_messages_thread() {
    let h = harness().await;
    let (ok, gone) = sites().await;
    let message = Message::from_bot("1700000700.000100", "BAI", &answer_text(&ok, &gone));
    let payload = support::slack::message_shortcut_payload(
        "check_sources",
        CHANNEL,
        "U1",
        &message,
        &h.slack.response_url("sc1"),
    );
    let (status, _, took) = h.interaction(payload).await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(3));
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(posts[0].str("thread_ts"), Some("1700000700.000100"));
    assert!(posted_text(&posts[0]).contains("Freeze policy"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watched_bots_get_sources_and_others_are_ignored() {
    let h = harness().await;
    let (ok, gone) = sites().await;
    let message = |bot_id: &str, ts: &str| json!({"type": "message", "subtype": "bot_message", "bot_id": bot_id, "text": answer_text(&ok, &gone), "ts": ts, "channel": CHANNEL, "channel_type": "channel"});
    h.event("EvW1", message("BAI", "1700000800.000100"), &[])
        .await;
    h.event("EvW2", message("BOTHER", "1700000800.000200"), &[])
        .await;
    h.event("EvW3", message("BBOT", "1700000800.000300"), &[])
        .await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let posts_now = h.slack.calls_to("chat.postMessage");
    assert_eq!(posts_now.len(), 1, "{posts_now:?}");
    assert_eq!(posts[0].str("thread_ts"), Some("1700000800.000100"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_is_waited_out_then_posted_once() {
    let h = harness().await;
    h.slack.fail_next(
        "chat.postMessage",
        Failure::RateLimited {
            retry_after_secs: 1,
        },
        1,
    );
    let event = app_mention_event(
        CHANNEL,
        "U1",
        &format!("<@{BOT_USER_ID}>"),
        "1700000900.000100",
        None,
    );
    h.event("EvRL", event, &[]).await;
    let posts = h.slack.wait_for("chat.postMessage", 2, WAIT).await;
    assert_eq!(posts.len(), 2, "the 429 and the retry");
    assert!(posts[1].at.duration_since(posts[0].at) >= Duration::from_millis(950));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(h.slack.calls_to("chat.postMessage").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejected_blocks_fall_back_to_plain_text() {
    let h = harness().await;
    let (ok, gone) = sites().await;
    // The blocks with Slack's feedback element, then with ordinary feedback buttons,
    // are both refused: the plain text goes.
    h.slack.fail_next(
        "chat.postMessage",
        Failure::SlackError("invalid_blocks".into()),
        2,
    );
    let text = format!("<@{BOT_USER_ID}> {}", answer_text(&ok, &gone));
    h.event(
        "EvIB",
        app_mention_event(CHANNEL, "U1", &text, "1700001000.000100", None),
        &[],
    )
    .await;
    let posts = h.slack.wait_for("chat.postMessage", 3, WAIT).await;
    let blocks = |i: usize| {
        posts[i]
            .param("blocks")
            .map(Value::to_string)
            .unwrap_or_default()
    };
    assert!(blocks(0).contains("feedback_buttons"), "{}", blocks(0));
    assert!(
        blocks(1).contains("sourcebot_feedback_up") && !blocks(1).contains("feedback_buttons"),
        "{}",
        blocks(1)
    );
    assert!(posts[2].param("blocks").is_none(), "{:?}", posts[2].params);
    let plain = posts[2].str("text").unwrap_or_default();
    assert!(
        plain.contains("*Sources*") && plain.contains("Freeze policy"),
        "{plain}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_being_in_the_channel_is_explained_privately() {
    let h = harness().await;
    h.slack.set_channel("C0OUTSIDE", Access::NotMember);
    let text = format!("<@{BOT_USER_ID}> Rust is fast [1].\n\n[1] https://nothing.invalid/ - Gone");
    h.event(
        "EvNC",
        app_mention_event("C0OUTSIDE", "U1", &text, "1700001100.000100", None),
        &[],
    )
    .await;
    let told = h.slack.wait_for("chat.postEphemeral", 1, WAIT).await;
    assert_eq!(told[0].str("user"), Some("U1"));
    assert!(told[0].str("text").unwrap_or_default().contains("/invite"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_slack_times_out_and_the_bot_keeps_serving() {
    let h = harness_with(|s| s.call_timeout = Duration::from_millis(500)).await;
    h.slack.fail_next("chat.postMessage", Failure::Hang, 1);
    let usage = |ts: &str| app_mention_event(CHANNEL, "U1", &format!("<@{BOT_USER_ID}>"), ts, None);
    h.event("EvH1", usage("1700001200.000100"), &[]).await;
    h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (status, ..) = h.event("EvH2", usage("1700001200.000200"), &[]).await;
    assert_eq!(status, 200);
    let posts = h.slack.wait_for("chat.postMessage", 2, WAIT).await;
    assert!(posts.len() >= 2, "the bot stopped serving after a hang");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_handler_acks_within_3_s_while_links_hang() {
    let h = harness().await;
    let hang = HostileServer::start(next_ip(), vec![("/", Route::always(Action::Hang))]).await;
    let answer = format!("It hangs [1].\n\n[1] {} - Hanging", hang.url("/"));
    let (_, _, mention) = h
        .event(
            "EvAck",
            app_mention_event(
                CHANNEL,
                "U1",
                &format!("<@{BOT_USER_ID}> {answer}"),
                "1700001300.000100",
                None,
            ),
            &[],
        )
        .await;
    let (_, _, command) = h.command(&answer, "ack1").await;
    let message = Message::from_bot("1700001300.000200", "BAI", &answer);
    let (_, _, shortcut) = h
        .interaction(support::slack::message_shortcut_payload(
            "check_sources",
            CHANNEL,
            "U1",
            &message,
            &h.slack.response_url("ack2"),
        ))
        .await;
    for (what, took) in [
        ("mention", mention),
        ("command", command),
        ("shortcut", shortcut),
    ] {
        assert!(took < Duration::from_secs(1), "{what} acked after {took:?}");
    }
    // The work still finishes: the hanging link is reported timed out.
    let posts = h
        .slack
        .wait_for("chat.postMessage", 2, Duration::from_secs(8))
        .await;
    assert!(posts.iter().any(|p| posted_text(p).contains("timed out")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slack_permalinks_among_the_sources_are_checked_through_the_api() {
    let h = harness().await;
    h.slack.add_message(
        "C0FOUND",
        Message::from_user("1700001400.000100", "U1", "the freeze"),
    );
    h.slack.set_channel("C0SECRET", Access::Hidden);
    let text = format!(
        "<@{BOT_USER_ID}> Freeze agreed [1]. Then changed [2]. Secretly [3].\n\n\
         [1] https://acme.slack.com/archives/C0FOUND/p1700001400000100 - The freeze\n\
         [2] https://acme.slack.com/archives/C0FOUND/p1700001499000100 - Deleted\n\
         [3] https://acme.slack.com/archives/C0SECRET/p1700001400000100 - Private"
    );
    h.event(
        "EvPL",
        app_mention_event(CHANNEL, "U1", &text, "1700001400.000900", None),
        &[],
    )
    .await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    let shown = posted_text(&posts[0]);
    assert!(shown.contains("✓ 1 verified"), "{shown}");
    assert!(shown.contains("⚠ 1 broken"), "{shown}");
    assert!(shown.contains("🔒 1 restricted"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn posts_to_one_channel_are_paced_one_a_second() {
    let h = harness().await;
    let usage = |ts: &str| app_mention_event(CHANNEL, "U1", &format!("<@{BOT_USER_ID}>"), ts, None);
    let other = app_mention_event(
        "C0OTHER",
        "U1",
        &format!("<@{BOT_USER_ID}>"),
        "1700001500.000900",
        None,
    );
    for (i, event) in [
        usage("1700001500.000100"),
        usage("1700001500.000200"),
        usage("1700001500.000300"),
        other,
    ]
    .into_iter()
    .enumerate()
    {
        h.event(&format!("EvPace{i}"), event, &[]).await;
    }
    let posts = h.slack.wait_for("chat.postMessage", 4, WAIT).await;
    let mut in_channel: Vec<Instant> = posts
        .iter()
        .filter(|p| p.str("channel") == Some(CHANNEL))
        .map(|p| p.at)
        .collect();
    in_channel.sort();
    assert_eq!(in_channel.len(), 3);
    assert_paced(&in_channel, CHANNEL_PACE, CHANNEL);
    // Another channel is not held up by this one's pace.
    let other_at = posts
        .iter()
        .find(|p| p.str("channel") == Some("C0OTHER"))
        .map(|p| p.at)
        .expect("post to the other channel");
    assert!(
        other_at.duration_since(in_channel[0]) < Duration::from_millis(900)
            || other_at < in_channel[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_slash_command_will_not_read_another_channel() {
    let h = harness().await;
    h.slack.add_message(
        "C0PRIVATE",
        Message::from_user("1700001600.000100", "U9", "secret plans [1]"),
    );
    let link = "https://acme.slack.com/archives/C0PRIVATE/p1700001600000100";
    let (status, ack, _) = h.command(link, "cmd-other").await;
    assert_eq!(status, 200);
    assert!(
        ack.contains("only check a message link from this channel"),
        "{ack}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        h.slack.calls_to("conversations.history").is_empty(),
        "the bot read the other channel"
    );
    assert!(h.slack.calls_to("response_url").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharing_an_unknown_report_says_so() {
    let h = harness().await;
    let click = json!({
        "type": "block_actions",
        "team": {"id": "T0001", "domain": "acme"},
        "user": {"id": "U1", "username": "ada", "team_id": "T0001"},
        "api_app_id": "A0001",
        "container": {"type": "message", "message_ts": "1700001700.000100", "channel_id": CHANNEL, "is_ephemeral": true},
        "trigger_id": support::slack::trigger_id(),
        "response_url": h.slack.response_url("old"),
        "actions": [{"type": "button", "action_id": "share_sources", "block_id": "b", "value": "no-such-key", "action_ts": "1700001700.000200"}],
    });
    h.interaction(click).await;
    let responses = h.slack.wait_for("response_url", 1, WAIT).await;
    assert_eq!(responses[0].str("response_type"), Some("ephemeral"));
    assert!(responses[0]
        .str("text")
        .unwrap_or_default()
        .contains("no longer available"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_threads_latest_answer_is_found_past_the_first_page() {
    let h = harness().await;
    let (ok, gone) = sites().await;
    let parent = "1700001800.000100";
    h.slack
        .add_message(CHANNEL, Message::from_user(parent, "U1", "Long discussion"));
    for i in 0..250u32 {
        let ts = format!("1700001801.{:06}", i + 1);
        h.slack.add_message(
            CHANNEL,
            Message::from_user(&ts, "U2", "chatter").in_thread(parent),
        );
    }
    h.slack.add_message(
        CHANNEL,
        Message::from_bot("1700001900.000100", "BAI", &answer_text(&ok, &gone)).in_thread(parent),
    );
    let mention_ts = "1700001900.000200";
    let mention = format!("<@{BOT_USER_ID}>");
    h.slack.add_message(
        CHANNEL,
        Message::from_user(mention_ts, "U1", &mention).in_thread(parent),
    );
    h.event(
        "EvLong",
        app_mention_event(CHANNEL, "U1", &mention, mention_ts, Some(parent)),
        &[],
    )
    .await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert!(
        posted_text(&posts[0]).contains("Freeze policy"),
        "{}",
        posted_text(&posts[0])
    );
    assert!(
        h.slack.calls_to("conversations.replies").len() >= 2,
        "only one page was read"
    );
}

/// The sources are posted as soon as the links are checked; then the bot reads the
/// cited pages and edits that same message (one `chat.update`, no new post) to say
/// which page supports its claim and which claim its page does not support.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_posted_sources_are_updated_in_place_with_what_the_pages_support() {
    let h = harness().await;
    let html = |body: &str| {
        Route::always(Action::bytes(
            200,
            &[("content-type", "text/html; charset=utf-8")],
            format!("<html><head><title>Policy</title></head><body><nav>Home · About</nav><main>{body}</main></body></html>").into_bytes(),
        ))
    };
    let site = HostileServer::start(
        next_ip(),
        vec![
            ("/freeze", html("<p>Release policy.</p><p>Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend.</p>")),
            ("/cafeteria", html("<p>The cafeteria opens at nine and serves lunch until two.</p>")),
        ],
    )
    .await;
    let text = format!(
        "<@{BOT_USER_ID}> Deploys are frozen on Fridays [1]. The company was founded in Boston in 1998 by two engineers [2].\n\n[1] {} - Freeze policy\n[2] {} - Company history",
        site.url("/freeze"),
        site.url("/cafeteria")
    );
    let event = app_mention_event(CHANNEL, "U1", &text, "1700000900.000100", None);
    h.event("EvSupport", event, &[]).await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    let updates = h
        .slack
        .wait_for("chat.update", 1, Duration::from_secs(15))
        .await;
    assert_eq!(updates.len(), 1, "one edit");
    assert_eq!(updates[0].str("channel"), Some(CHANNEL));
    assert_eq!(
        updates[0].str("ts").map(str::to_string),
        h.slack
            .messages(CHANNEL)
            .iter()
            .rev()
            .find(|m| m.user.as_deref() == Some(BOT_USER_ID))
            .map(|m| m.ts.clone()),
        "the posted message is the one edited"
    );
    let before = posted_text(&posts[0]);
    let after = posted_text(&updates[0]);
    assert!(!before.contains("supports"), "{before}");
    assert!(after.contains("supports 1 of 1 claim"), "{after}");
    assert!(after.contains("not supported by the page"), "{after}");
    assert!(after.contains("founded in Boston"), "{after}");
    assert!(after.contains("not in Company history"), "{after}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        h.slack.calls_to("chat.postMessage").len(),
        1,
        "no second post"
    );
}

/// Cited Slack messages are read for support like web pages: through the workspace's
/// token, with the text the permalink check already fetched (no second call).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cited_slack_messages_are_read_for_support() {
    let h = harness().await;
    let docs = "C0DOCS";
    h.slack.add_message(
        docs,
        Message::from_user(
            "1700001000.000100",
            "U2",
            "Heads up: deploys are frozen on Fridays and during public holidays from now on.",
        ),
    );
    h.slack.add_message(
        docs,
        Message::from_user(
            "1700001000.000200",
            "U3",
            "The cafeteria opens at nine and serves lunch until two.",
        ),
    );
    let text = format!(
        "<@{BOT_USER_ID}> Deploys are frozen on Fridays [1]. The company was founded in Boston in 1998 by two engineers [2].\n\n[1] {} - Freeze announcement\n[2] {} - Lunch hours",
        support::slack::permalink(docs, "1700001000.000100", None),
        support::slack::permalink(docs, "1700001000.000200", None),
    );
    let event = app_mention_event(CHANNEL, "U1", &text, "1700001000.000900", None);
    h.event("EvSlackSupport", event, &[]).await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    let updates = h
        .slack
        .wait_for("chat.update", 1, Duration::from_secs(15))
        .await;
    let before = posted_text(&posts[0]);
    let after = posted_text(&updates[0]);
    assert!(before.contains("2 verified"), "{before}");
    assert!(after.contains("supports 1 of 1 claim"), "{after}");
    assert!(after.contains("not in Lunch hours"), "{after}");
    let history = h.slack.calls_to("conversations.history");
    assert_eq!(history.len(), 2, "one call per cited message: {history:?}");
}

/// Slack file links are checked with `files.info` through the workspace's token: a
/// file Slack knows is verified and titled as Slack titles it; one it does not know is
/// broken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slack_file_links_are_checked_with_files_info() {
    let h = harness().await;
    // The shape of files.info's documented `file` object.
    h.slack.add_file(serde_json::json!({
        "id": "F0S43PZDF", "created": 1531763342, "timestamp": 1531763342,
        "name": "q3-plan.pdf", "title": "Q3 plan", "mimetype": "application/pdf",
        "filetype": "pdf", "user": "U061F7AUR", "mode": "hosted", "is_external": false,
        "url_private": "https://files.slack.com/files-pri/T061EG9RZ-F0S43PZDF/q3-plan.pdf"
    }));
    let text = format!(
        "<@{BOT_USER_ID}> The plan ships in Q3 [1]. The old plan said Q2 [2].\n\n[1] https://files.slack.com/files-pri/T061EG9RZ-F0S43PZDF/q3-plan.pdf\n[2] https://fakeslack.slack.com/files/U061F7AUR/F0GONE0001/old-plan.pdf"
    );
    let event = app_mention_event(CHANNEL, "U1", &text, "1700001100.000900", None);
    h.event("EvSlackFiles", event, &[]).await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    let shown = posted_text(&posts[0]);
    assert!(shown.contains("Q3 plan"), "{shown}");
    assert!(shown.contains("1 verified"), "{shown}");
    assert!(shown.contains("1 broken"), "{shown}");
    let infos = h.slack.calls_to("files.info");
    let asked: Vec<&str> = infos.iter().filter_map(|c| c.str("file")).collect();
    assert!(
        asked.contains(&"F0S43PZDF") && asked.contains(&"F0GONE0001"),
        "{asked:?}"
    );
}

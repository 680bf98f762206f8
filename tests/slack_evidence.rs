//! The "Show evidence" button end to end, over HTTP against the fake Slack: once the
//! cited pages are read, the report is edited to carry the button; pressing it (a
//! signed `block_actions` payload) is acknowledged within 3 s and opens a modal with
//! `views.open` and the click's `trigger_id`. The modal and the message stay within
//! Block Kit's limits (checked with the renderer's own checks and the fake's), fifty
//! checked claims fit, hostile claims, quotes, titles and words are escaped, and an
//! expired button or trigger gets a sentence, never silence. With Redis, a press on
//! another replica opens the evidence the first one kept.

mod support;

use serde_json::{json, Value};
use sourcebot::render::blocks::{check_limits, BlockMessage};
use sourcebot::render::evidence::modal::check_view_limits;
use std::time::Duration;
use support::bot::{harness, harness_sharing, Harness, CHANNEL};
use support::slack::{app_mention_event, trigger_id, unix_now, Call, BOT_USER_ID};
use support::{Action, HostileServer, Route};

const WAIT: Duration = Duration::from_secs(15);
const EVIDENCE_ACTION: &str = "show_evidence";

/// A loopback address of this file's block, 127.31.x.y.
fn next_ip() -> std::net::IpAddr {
    support::next_ip(31)
}

/// A route serving `body` as an HTML page titled `title`.
fn html(title: &str, body: &str) -> Route {
    Route::always(Action::bytes(
        200,
        &[("content-type", "text/html; charset=utf-8")],
        format!("<html><head><title>{title}</title></head><body><main>{body}</main></body></html>")
            .into_bytes(),
    ))
}

/// Two pages: one says what its claim says, the other does not.
async fn pages() -> HostileServer {
    HostileServer::start(
        next_ip(),
        vec![
            ("/freeze", html("Policy", "<p>Release policy.</p><p>Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend.</p>")),
            ("/cafeteria", html("Policy", "<p>The cafeteria opens at nine and serves lunch until two.</p>")),
        ],
    )
    .await
}

/// Mentions the bot with `text`, as `event_id`, at `ts`; returns the report's edit once
/// the pages were read.
async fn mention_and_wait_for_the_edit(h: &Harness, event_id: &str, text: &str, ts: &str) -> Call {
    let event = app_mention_event(CHANNEL, "U1", &format!("<@{BOT_USER_ID}> {text}"), ts, None);
    let (status, ..) = h.event(event_id, event, &[]).await;
    assert_eq!(status, 200);
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert!(
        evidence_key(&posts[0]).is_none(),
        "no button before the pages are read"
    );
    let updates = h.slack.wait_for("chat.update", 1, WAIT).await;
    assert_eq!(updates.len(), 1, "one edit");
    updates[0].clone()
}

/// The "Show evidence" button's value in a posted message, if it has the button.
fn evidence_key(call: &Call) -> Option<String> {
    call.param("blocks")?.as_array()?.iter().find_map(|block| {
        block["elements"].as_array()?.iter().find_map(|e| {
            (e["action_id"] == EVIDENCE_ACTION).then(|| e["value"].as_str().map(str::to_string))?
        })
    })
}

/// The posted message as the renderer's limit check reads it.
fn posted_message(call: &Call) -> BlockMessage {
    BlockMessage {
        text: call.str("text").unwrap_or_default().to_string(),
        blocks: call
            .param("blocks")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
    }
}

/// A press of the "Show evidence" button carrying `key`, with `trigger`.
fn click(h: &Harness, key: &str, trigger: &str, response_id: &str) -> Value {
    json!({
        "type": "block_actions",
        "team": {"id": "T0001", "domain": "acme"},
        "user": {"id": "U2", "username": "grace", "team_id": "T0001"},
        "api_app_id": "A0001",
        "container": {"type": "message", "message_ts": "1700003000.000100", "channel_id": CHANNEL, "is_ephemeral": false},
        "trigger_id": trigger,
        "channel": {"id": CHANNEL, "name": "general"},
        "response_url": h.slack.response_url(response_id),
        "actions": [{"type": "button", "action_id": EVIDENCE_ACTION, "block_id": "b", "value": key,
            "action_ts": "1700003000.000200", "text": {"type": "plain_text", "text": "Show evidence"}}],
    })
}

/// Presses the button and returns the `views.open` call it made.
async fn press(h: &Harness, key: &str, response_id: &str) -> Call {
    let trigger = trigger_id();
    let (status, _, took) = h.interaction(click(h, key, &trigger, response_id)).await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(3), "acknowledged in {took:?}");
    let opened = h.slack.wait_for("views.open", 1, WAIT).await;
    assert_eq!(opened.len(), 1, "one modal");
    assert_eq!(opened[0].str("trigger_id"), Some(trigger.as_str()));
    assert_eq!(opened[0].token.as_deref(), Some("xoxb-test"));
    opened[0].clone()
}

/// Every text of a view's blocks, one per line.
fn view_texts(view: &Value) -> Vec<String> {
    view["blocks"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| {
                    b.pointer("/text/text")
                        .or_else(|| b.pointer("/elements/0/text"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_evidence_opens_each_checked_claim_in_a_modal() {
    let h = harness().await;
    let site = pages().await;
    let text = format!(
        "Deploys are frozen on Fridays [1]. The company was founded in Boston in 1998 by two engineers [2].\n\n[1] {} - Freeze policy\n[2] {} - Company history",
        site.url("/freeze"),
        site.url("/cafeteria")
    );
    let update = mention_and_wait_for_the_edit(&h, "EvEvidence1", &text, "1700003000.000100").await;
    assert_eq!(check_limits(&posted_message(&update)), Ok(()));
    let key = evidence_key(&update).expect("the edit carries the button");
    assert!(key.len() >= 32, "a random key: {key}");
    let blocks = update
        .param("blocks")
        .map(Value::to_string)
        .unwrap_or_default();
    assert!(
        blocks.contains(&format!("\"{}\"", sourcebot::slack::EVIDENCE_BUTTON_TEXT)),
        "{blocks}"
    );

    let opened = press(&h, &key, "ev1").await;
    let view = opened.param("view").cloned().unwrap_or_default();
    assert_eq!(check_view_limits(&view), Ok(()));
    assert_eq!(view["title"]["text"], "Evidence");
    let texts = view_texts(&view);
    assert!(
        texts[0].starts_with(
            "2 claims checked against the pages they cite · judged by the built-in scorer"
        ),
        "{texts:?}"
    );
    let supported = &texts[1];
    assert!(
        supported.starts_with("“Deploys are frozen on Fridays"),
        "{supported}"
    );
    assert!(
        supported.contains(&format!(
            "• ✓ *supported* · <{}|Freeze policy>",
            site.url("/freeze")
        )),
        "{supported}"
    );
    assert!(
        supported.contains("\n> ") && supported.contains("frozen on Fridays"),
        "{supported}"
    );
    let unsupported = &texts[2];
    assert!(
        unsupported.contains("founded in Boston in 1998"),
        "{unsupported}"
    );
    assert!(
        unsupported.contains(&format!(
            "• ✗ *not supported* · <{}|Company history>",
            site.url("/cafeteria")
        )),
        "{unsupported}"
    );
    assert!(
        unsupported.contains("> The cafeteria opens at nine"),
        "{unsupported}"
    );
    // The claim's year is a word the page never mentions, in the modal and under the
    // quoted claim of the message.
    assert!(
        unsupported.contains("_does not mention ") && unsupported.contains("1998"),
        "{unsupported}"
    );
    let shown = posted_message(&update)
        .blocks
        .iter()
        .map(Value::to_string)
        .collect::<String>();
    assert!(
        shown.contains("the page does not mention") && shown.contains("1998"),
        "{shown}"
    );

    // The button works as often as it is pressed.
    let again = trigger_id();
    h.interaction(click(&h, &key, &again, "ev1b")).await;
    let opened = h.slack.wait_for("views.open", 2, WAIT).await;
    assert_eq!(opened.len(), 2);
    assert_eq!(opened[1].str("trigger_id"), Some(again.as_str()));
    assert!(
        h.slack.calls_to("response_url").is_empty(),
        "nothing else said"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_checked_claims_stay_within_a_modals_limits() {
    let h = harness().await;
    let site = pages().await;
    let claims: String = (0..50)
        .map(|n| {
            format!(
                "Deploy window {n} closes at {} pm on Fridays [1]. ",
                n % 12 + 1
            )
        })
        .collect();
    let text = format!("{claims}\n\n[1] {} - Freeze policy", site.url("/freeze"));
    let update =
        mention_and_wait_for_the_edit(&h, "EvEvidence50", &text, "1700003100.000100").await;
    assert_eq!(check_limits(&posted_message(&update)), Ok(()));
    let key = evidence_key(&update).expect("the button");
    let opened = press(&h, &key, "ev50").await;
    let view = opened.param("view").cloned().unwrap_or_default();
    assert_eq!(check_view_limits(&view), Ok(()));
    let texts = view_texts(&view);
    let sections = texts.iter().filter(|t| t.starts_with('“')).count();
    let counted = texts
        .iter()
        .find_map(|t| {
            t.strip_prefix("_…and ")?
                .split(' ')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .unwrap_or(0);
    assert!(texts[0].starts_with("50 claims checked"), "{}", texts[0]);
    assert_eq!(
        sections + counted,
        50,
        "every claim shown or counted: {texts:?}"
    );
    assert!(sections >= 40, "most claims fit: {sections}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_claims_quotes_and_titles_are_escaped_in_the_modal() {
    let h = harness().await;
    // The page's text carries the hostile link as text (it is quoted); the answer links
    // to the test's own server, so nothing reaches the network.
    let page = format!(
        "Deploys are frozen on Fridays, &lt;!channel&gt; &lt;@U1&gt; &lt;https://evil|x&gt; &amp; say the wardens. {}",
        "Padding words for a long page. ".repeat(400)
    );
    let site = HostileServer::start(
        next_ip(),
        vec![(
            "/freeze",
            html("&lt;!here&gt; &amp; &lt;@U2&gt;", &format!("<p>{page}</p>")),
        )],
    )
    .await;
    let long_claim = format!(
        "Deploys are frozen on Fridays {} [1].",
        "and also then ".repeat(700)
    );
    let hostile = format!("<!channel> <@U1> <{}|x> & \u{0007}", site.url("/evil"));
    let text = format!(
        "Deploys are frozen on Fridays, {hostile} say the wardens in 1911 [1]. {long_claim}\n\n[1] {} - <!here> & <@U2>",
        site.url("/freeze")
    );
    let update =
        mention_and_wait_for_the_edit(&h, "EvEvidenceHostile", &text, "1700003200.000100").await;
    assert_eq!(check_limits(&posted_message(&update)), Ok(()));
    let key = evidence_key(&update).expect("the button");
    let opened = press(&h, &key, "evh").await;
    let view = opened.param("view").cloned().unwrap_or_default();
    assert_eq!(check_view_limits(&view), Ok(()));
    let link = format!("<{}|", site.url("/freeze"));
    for text in view_texts(&view) {
        assert!(!text.contains('\u{0007}'), "{text:?}");
        for line in text.lines() {
            let body = line
                .strip_prefix("> ")
                .unwrap_or(line)
                .replacen(&link, "", 1);
            // The page's own link is the only markup; its label ends at the one `>`.
            let body = match body.find('>') {
                Some(end) if line.contains(&link) => body[..end].to_string() + &body[end + 1..],
                _ => body,
            };
            assert!(
                !body.contains('<') && !body.contains('>'),
                "markup in {line:?}"
            );
        }
    }
    let all = view_texts(&view).join("\n");
    assert!(
        all.contains("&lt;!channel&gt;") && all.contains("&lt;@U1&gt;"),
        "{all}"
    );
    assert!(
        all.contains("&lt;https://evil|x&gt;"),
        "the quote, escaped: {all}"
    );
    assert!(all.contains("&amp;"), "{all}");
    assert!(all.contains('…'), "the long claim is cut: {all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_evidence_or_trigger_gets_a_sentence() {
    let h = harness().await;
    let (status, _, took) = h
        .interaction(click(
            &h,
            "0123456789abcdef0123456789abcdef",
            &trigger_id(),
            "gone",
        ))
        .await;
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(3));
    let said = h.slack.wait_for("response_url", 1, WAIT).await;
    assert_eq!(said[0].str("response_type"), Some("ephemeral"));
    assert_eq!(said[0].param("replace_original"), Some(&json!(false)));
    let sentence = said[0].str("text").unwrap_or_default();
    assert_eq!(sentence, sourcebot::slack::EVIDENCE_EXPIRED);
    assert!(sentence.contains("no longer kept"), "{sentence}");
    assert!(h.slack.calls_to("views.open").is_empty());

    // Kept evidence, but a click Slack took too long to hand over: still a sentence.
    let site = pages().await;
    let text = format!(
        "Deploys are frozen on Fridays [1].\n\n[1] {} - Freeze policy",
        site.url("/freeze")
    );
    let update =
        mention_and_wait_for_the_edit(&h, "EvEvidenceOld", &text, "1700003300.000100").await;
    let key = evidence_key(&update).expect("the button");
    let stale = format!("13345224609.{}.0123456789abcdef", unix_now() - 60);
    h.interaction(click(&h, &key, &stale, "late")).await;
    let said = h.slack.wait_for("response_url", 2, WAIT).await;
    assert_eq!(said.len(), 2);
    let sentence = said[1].str("text").unwrap_or_default();
    assert!(
        sentence.starts_with("I could not open the evidence"),
        "{sentence}"
    );
    let opened = h.slack.calls_to("views.open");
    assert_eq!(opened.len(), 1, "tried once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_press_on_another_replica_opens_the_evidence_the_first_kept() {
    let Some(server) = support::redis::RedisServer::start().await else {
        return;
    };
    let url = server.url();
    let a = {
        let url = url.clone();
        support::bot::harness_with(move |s| s.redis_url = Some(url)).await
    };
    let b = harness_sharing(a.slack.clone(), move |s| s.redis_url = Some(url)).await;
    let site = pages().await;
    let text = format!(
        "Deploys are frozen on Fridays [1].\n\n[1] {} - Freeze policy",
        site.url("/freeze")
    );
    let update =
        mention_and_wait_for_the_edit(&a, "EvEvidenceReplica", &text, "1700003400.000100").await;
    let key = evidence_key(&update).expect("the button");
    let opened = press(&b, &key, "evr").await;
    let view = opened.param("view").cloned().unwrap_or_default();
    assert_eq!(check_view_limits(&view), Ok(()));
    assert!(
        view_texts(&view).join("\n").contains("Freeze policy"),
        "{view}"
    );
}

/// The answer API posts the same button with the sources it posts, and its response
/// says who judged the pages, by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_api_posts_the_button_and_names_the_judge() {
    const TOKEN: &str = "test-token-0123456789abcdef";
    let h = harness().await;
    let settings = sourcebot::api::ApiSettings {
        tokens: vec![TOKEN.into()],
        ..Default::default()
    };
    let app = sourcebot::api::router(sourcebot::api::ApiState::new(h.bot.clone(), settings));
    let (addr, server) = support::serve::serve_app(app).await;
    let site = pages().await;
    let text = format!(
        "Deploys are frozen on Fridays [1]. The company was founded in Boston in 1998 by two engineers [2].\n\n[1] {} - Freeze policy\n[2] {} - Company history",
        site.url("/freeze"),
        site.url("/cafeteria")
    );
    let body = json!({"channel": CHANNEL, "thread_ts": "1700003500.000100", "text": text});
    let response = support::serve::loopback_client()
        .post(format!("http://{addr}/v1/answers"))
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(response.status().as_u16(), 200);
    let reply: Value = serde_json::from_str(&response.text().await.expect("body")).expect("json");
    assert_eq!(
        reply["support_judges"],
        json!([{"judge": "builtin", "name": "built-in scorer", "judged": 2}]),
        "{reply}"
    );
    assert_eq!(reply["claims"][1]["support"][0]["judge"], "builtin");
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(check_limits(&posted_message(&posts[0])), Ok(()));
    let key = evidence_key(&posts[0]).expect("the posted sources carry the button");
    let opened = press(&h, &key, "evapi").await;
    let view = opened.param("view").cloned().unwrap_or_default();
    assert_eq!(check_view_limits(&view), Ok(()));
    server.abort();
}

/// A watched assistant's answer gets its reply unasked; once the pages are read the
/// reply is edited to carry the button, which opens the evidence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watched_answers_reply_carries_the_button_once_the_pages_are_read() {
    let h = harness().await;
    let site = pages().await;
    let text = format!(
        "Deploys are frozen on Fridays [1].\n\n[1] {} - Freeze policy",
        site.url("/freeze")
    );
    let answer = json!({"type": "message", "subtype": "bot_message", "bot_id": "BAI",
        "text": text, "ts": "1700003600.000100", "channel": CHANNEL, "channel_type": "channel"});
    let (status, ..) = h.event("EvEvidenceWatched", answer, &[]).await;
    assert_eq!(status, 200);
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(posts[0].str("thread_ts"), Some("1700003600.000100"));
    assert!(evidence_key(&posts[0]).is_none());
    let updates = h.slack.wait_for("chat.update", 1, WAIT).await;
    assert_eq!(check_limits(&posted_message(&updates[0])), Ok(()));
    let key = evidence_key(&updates[0]).expect("the edited reply carries the button");
    let opened = press(&h, &key, "evw").await;
    let view = opened.param("view").cloned().unwrap_or_default();
    assert_eq!(check_view_limits(&view), Ok(()));
    assert!(
        view_texts(&view).join("\n").contains("*supported*"),
        "{view}"
    );
}

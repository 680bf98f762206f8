//! Answers as real assistants post them in Slack, end to end against the fake Slack Web
//! API: an answer in `section` blocks with its citations in a `context` block and a
//! notification-only `text`; numbered references in a `markdown` block; citations as
//! attachment `title_link`s; a fallback `text` that differs from the blocks. Each shape
//! is checked as a watched assistant's reply, as the answer a mention in its thread
//! finds, through the message shortcut and through `/sources <permalink>`, and each
//! must give the same report: the same sources, titles and verdicts. Then the life of a
//! streamed answer: placeholder, edits several a second, one reply once settled, an
//! edit that updates it in place (and one that changes nothing), deletion and a
//! tombstone that delete it.

mod support;

use serde_json::{json, Value};
use std::net::IpAddr;
use std::time::{Duration, Instant};
use support::bot::{harness_with, Harness, CHANNEL};
use support::slack::{
    app_mention_event, bot_message, message_changed_event, message_deleted_event, message_event,
    message_shortcut_payload_raw, permalink, tombstone_event, Call, Message, BOT_USER_ID,
};
use support::{HostileServer, Route};

const WAIT: Duration = Duration::from_secs(6);
/// The settle time of these tests: short, so they run fast.
const SETTLE: Duration = Duration::from_millis(150);
/// The watched assistant.
const AI: &str = "BAI";

/// A loopback address of this file's block, 127.7.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(7)
}

/// The bot with a short settle time.
async fn bot() -> Harness {
    harness_with(|s| {
        s.settle = SETTLE;
        s.settle_max = Duration::from_secs(2);
    })
    .await
}

/// A page that answers 200 and one that is gone.
struct Sites {
    ok: HostileServer,
    gone: HostileServer,
}

impl Sites {
    async fn start() -> Sites {
        Sites {
            ok: HostileServer::start(next_ip(), vec![("/freeze", Route::status(200))]).await,
            gone: HostileServer::start(next_ip(), vec![("/runbook", Route::status(404))]).await,
        }
    }

    fn ok(&self) -> String {
        self.ok.url("/freeze")
    }

    fn gone(&self) -> String {
        self.gone.url("/runbook")
    }
}

/// The ways assistants post the same answer.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// The answer in a section with `[n]` markers, the citations in a context block;
    /// `text` is a notification line.
    SectionsAndContext,
    /// Standard Markdown in a `markdown` block with a reference list.
    MarkdownBlock,
    /// The answer in `text`, the citations as attachments' title links.
    Attachments,
    /// Blocks show one source; the fallback `text` names another, which nobody sees.
    FallbackDiffers,
}

const SHAPES: [Shape; 4] = [
    Shape::SectionsAndContext,
    Shape::MarkdownBlock,
    Shape::Attachments,
    Shape::FallbackDiffers,
];

/// The claims every shape makes.
const ANSWER: &str = "Deploys freeze on Fridays after 3 pm [1]. The old runbook moved in 2023 [2].";

impl Shape {
    /// The message as the assistant posts it at `ts`.
    fn message(self, sites: &Sites, ts: &str) -> Value {
        let (ok, gone) = (sites.ok(), sites.gone());
        let (text, blocks, attachments) = match self {
            Shape::SectionsAndContext => (
                "Hello! I found some results for you!".to_string(),
                Some(json!([
                    {"type": "section", "text": {"type": "mrkdwn", "text": ANSWER}},
                    {"type": "context", "elements": [
                        {"type": "mrkdwn", "text": format!("[1] <{ok}|Freeze policy>")},
                        {"type": "mrkdwn", "text": format!("[2] <{gone}|Old runbook>")}
                    ]},
                    {"type": "context_actions", "elements": [{"type": "feedback_buttons", "action_id": "fb",
                        "positive_button": {"text": {"type": "plain_text", "text": "Good"}, "value": "up"},
                        "negative_button": {"text": {"type": "plain_text", "text": "Bad"}, "value": "down"}}]}
                ])),
                None,
            ),
            Shape::MarkdownBlock => (
                "Deploy freeze answer".to_string(),
                Some(json!([{"type": "markdown", "text": format!(
                    "{ANSWER}\n\n**Sources**\n\n[1]: {ok} \"Freeze policy\"\n[2]: {gone} \"Old runbook\""
                )}])),
                None,
            ),
            Shape::Attachments => (
                "Deploys freeze on Fridays after 3 pm. The old runbook moved in 2023.".to_string(),
                None,
                Some(json!([
                    {"id": 1, "fallback": "Freeze policy", "color": "#36a64f", "title": "Freeze policy", "title_link": ok,
                     "text": "Production deploys stop at 15:00 on Fridays."},
                    {"id": 2, "fallback": "Old runbook", "title": "Old runbook", "title_link": gone,
                     "footer": "Wiki"}
                ])),
            ),
            Shape::FallbackDiffers => (
                format!("Sources: <{gone}|Old runbook>"),
                Some(json!([
                    {"type": "section", "text": {"type": "mrkdwn", "text": format!(
                        "Deploys freeze on Fridays after 3 pm <{ok}|Freeze policy>."
                    )}}
                ])),
                None,
            ),
        };
        bot_message(ts, AI, "AAI", &text, blocks, attachments)
    }

    /// What its report must say: (text that must be there, text that must not).
    fn expected(self) -> (Vec<&'static str>, Vec<&'static str>) {
        match self {
            Shape::FallbackDiffers => (
                vec!["Freeze policy", "✓ 1 verified", "1 source"],
                vec!["Old runbook", "broken"],
            ),
            _ => (
                vec![
                    "Freeze policy",
                    "Old runbook",
                    "✓ 1 verified",
                    "⚠ 1 broken",
                    "2 sources",
                ],
                vec!["No sources", "Hello! I found"],
            ),
        }
    }
}

/// Everything a post or response shows: text and blocks.
fn shown(call: &Call) -> String {
    format!(
        "{} {}",
        call.str("text").unwrap_or_default(),
        call.param("blocks")
            .map(Value::to_string)
            .unwrap_or_default()
    )
}

fn assert_report(shape: Shape, call: &Call, via: &str) {
    let shown = shown(call);
    let (must, must_not) = shape.expected();
    for text in must {
        assert!(
            shown.contains(text),
            "{shape:?} {via}: no {text:?} in {shown}"
        );
    }
    for text in must_not {
        assert!(
            !shown.contains(text),
            "{shape:?} {via}: {text:?} in {shown}"
        );
    }
}

/// A distinct ts for test `n`, message `i`.
fn ts(n: u64, i: u64) -> String {
    format!("17000{n:05}.{i:06}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_shape_as_a_watched_reply() {
    let h = bot().await;
    let sites = Sites::start().await;
    for (n, shape) in SHAPES.into_iter().enumerate() {
        let answer = shape.message(&sites, &ts(100 + n as u64, 100));
        h.slack.add_raw_message(CHANNEL, answer.clone());
        h.event(&format!("EvW{n}"), message_event(CHANNEL, &answer), &[])
            .await;
        let posts = h.slack.wait_for("chat.postMessage", n + 1, WAIT).await;
        assert_eq!(posts.len(), n + 1, "{shape:?}: one reply");
        let post = &posts[n];
        assert_eq!(post.str("thread_ts"), answer["ts"].as_str(), "{shape:?}");
        assert_report(shape, post, "watched");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_shape_as_the_answer_a_mention_in_its_thread_finds() {
    let h = bot().await;
    let sites = Sites::start().await;
    for (n, shape) in SHAPES.into_iter().enumerate() {
        let n64 = 200 + n as u64;
        let parent = ts(n64, 100);
        h.slack.add_message(
            CHANNEL,
            Message::from_user(&parent, "U1", "How long do deploy freezes last?"),
        );
        let mut answer = shape.message(&sites, &ts(n64, 200));
        answer["thread_ts"] = json!(parent);
        h.slack.add_raw_message(CHANNEL, answer);
        // Small talk between the answer and the mention does not hide it.
        for (i, text) in [(300, "thanks!"), (400, "what about prod?")] {
            h.slack.add_message(
                CHANNEL,
                Message::from_user(&ts(n64, i), "U2", text).in_thread(&parent),
            );
        }
        let mention = format!("<@{BOT_USER_ID}> sources?");
        h.slack.add_message(
            CHANNEL,
            Message::from_user(&ts(n64, 500), "U1", &mention).in_thread(&parent),
        );
        let event = app_mention_event(CHANNEL, "U1", &mention, &ts(n64, 500), Some(&parent));
        h.event(&format!("EvM{n}"), event, &[]).await;
        let posts = h.slack.wait_for("chat.postMessage", n + 1, WAIT).await;
        assert_eq!(posts.len(), n + 1, "{shape:?}");
        assert_eq!(posts[n].str("thread_ts"), Some(parent.as_str()));
        assert_report(shape, &posts[n], "mention");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_shape_through_the_shortcut() {
    let h = bot().await;
    let sites = Sites::start().await;
    for (n, shape) in SHAPES.into_iter().enumerate() {
        let answer = shape.message(&sites, &ts(300 + n as u64, 100));
        let response_url = h.slack.response_url(&format!("shortcut-{n}"));
        let payload =
            message_shortcut_payload_raw("check_sources", CHANNEL, "U1", &answer, &response_url);
        let (status, ..) = h.interaction(payload).await;
        assert_eq!(status, 200);
        let posts = h.slack.wait_for("chat.postMessage", n + 1, WAIT).await;
        assert_eq!(posts.len(), n + 1, "{shape:?}");
        assert_eq!(posts[n].str("thread_ts"), answer["ts"].as_str());
        assert_report(shape, &posts[n], "shortcut");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_shape_through_sources_with_a_permalink() {
    let h = bot().await;
    let sites = Sites::start().await;
    for (n, shape) in SHAPES.into_iter().enumerate() {
        let answer_ts = ts(400 + n as u64, 100);
        h.slack
            .add_raw_message(CHANNEL, shape.message(&sites, &answer_ts));
        let link = permalink(CHANNEL, &answer_ts, None);
        h.command(&link, &format!("cmd-{n}")).await;
        let responses = h.slack.wait_for("response_url", n + 1, WAIT).await;
        assert_eq!(responses.len(), n + 1, "{shape:?}");
        assert_eq!(responses[n].str("response_type"), Some("ephemeral"));
        assert_report(shape, &responses[n], "/sources");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_answer_gets_one_reply_updated_in_place_and_deleted_with_it() {
    let h = bot().await;
    let sites = Sites::start().await;
    let answer_ts = ts(500, 100);
    let placeholder = bot_message(&answer_ts, AI, "AAI", "Thinking…", None, None);
    h.slack.add_raw_message(CHANNEL, placeholder.clone());
    h.event("EvS0", message_event(CHANNEL, &placeholder), &[])
        .await;
    // Streamed: the answer grows, several edits a second.
    let full = Shape::SectionsAndContext.message(&sites, &answer_ts);
    let words: Vec<&str> = ANSWER.split(' ').collect();
    let mut previous = placeholder.clone();
    let started = Instant::now();
    for (i, end) in (2..=words.len()).step_by(2).enumerate() {
        let partial = bot_message(
            &answer_ts,
            AI,
            "AAI",
            "Hello! I found some results for you!",
            Some(
                json!([{"type": "section", "text": {"type": "mrkdwn", "text": words[..end].join(" ")}}]),
            ),
            None,
        );
        let edited_at = ts(500, 200 + i as u64);
        h.event(
            &format!("EvS{}", i + 1),
            message_changed_event(CHANNEL, &partial, &previous, &edited_at),
            &[],
        )
        .await;
        previous = partial;
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    let final_ts = ts(500, 900);
    h.slack.replace_raw_message(CHANNEL, full.clone());
    h.event(
        "EvSfinal",
        message_changed_event(CHANNEL, &full, &previous, &final_ts),
        &[],
    )
    .await;
    let streamed_for = started.elapsed();
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(posts.len(), 1);
    assert_report(Shape::SectionsAndContext, &posts[0], "streamed");
    assert!(
        streamed_for > SETTLE,
        "the edits took {streamed_for:?}: longer than the settle time, so settling is what waited"
    );
    // Nothing more: no second post, no update for the edits before the end.
    tokio::time::sleep(SETTLE * 4).await;
    assert_eq!(h.slack.calls_to("chat.postMessage").len(), 1, "one reply");
    assert!(h.slack.calls_to("chat.update").is_empty());
    let reply_ts = posts[0].str("ts").map(str::to_string);
    let reply_ts = reply_ts.unwrap_or_else(|| {
        // The fake's response carries the ts; read it from the stored reply.
        h.slack
            .raw_messages(CHANNEL)
            .iter()
            .find(|m| m["user"] == BOT_USER_ID)
            .and_then(|m| m["ts"].as_str().map(str::to_string))
            .expect("the reply is stored")
    });

    // Slack re-sends the parent when its thread changes: same content, nothing to do.
    let mut resent = full.clone();
    resent["reply_count"] = json!(1);
    resent["edited"] = json!({"user": "U0AIBOT", "ts": ts(500, 950)});
    h.event(
        "EvSresent",
        message_changed_event(CHANNEL, &resent, &full, &ts(500, 950)),
        &[],
    )
    .await;
    tokio::time::sleep(SETTLE * 4).await;
    assert!(
        h.slack.calls_to("chat.update").is_empty(),
        "no update for the same content"
    );

    // A correction that changes what the reply shows: updated in place.
    let mut corrected = Shape::SectionsAndContext.message(&sites, &answer_ts);
    corrected["blocks"][1]["elements"][1]["text"] =
        json!(format!("[2] <{}|Runbook archive>", sites.gone()));
    h.event(
        "EvScorrected",
        message_changed_event(CHANNEL, &corrected, &full, &ts(501, 100)),
        &[],
    )
    .await;
    let updates = h.slack.wait_for("chat.update", 1, WAIT).await;
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0].str("ts"), Some(reply_ts.as_str()));
    assert!(
        shown(&updates[0]).contains("Runbook archive"),
        "{}",
        shown(&updates[0])
    );
    assert_eq!(
        h.slack.calls_to("chat.postMessage").len(),
        1,
        "still one reply"
    );

    // Deleted: the reply goes too.
    h.event(
        "EvSdeleted",
        message_deleted_event(CHANNEL, &answer_ts, &corrected, &ts(502, 100)),
        &[],
    )
    .await;
    let deletes = h.slack.wait_for("chat.delete", 1, WAIT).await;
    assert_eq!(deletes.len(), 1);
    assert_eq!(deletes[0].str("ts"), Some(reply_ts.as_str()));
    assert_eq!(deletes[0].str("channel"), Some(CHANNEL));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tombstone_deletes_the_reply_and_placeholders_get_none() {
    let h = bot().await;
    let sites = Sites::start().await;
    // A placeholder that never becomes an answer: no reply.
    let idle = bot_message(&ts(600, 100), AI, "AAI", "Thinking…", None, None);
    h.event("EvT0", message_event(CHANNEL, &idle), &[]).await;
    let status = bot_message(
        &ts(600, 200),
        AI,
        "AAI",
        "Searching the wiki for you…",
        None,
        None,
    );
    h.event("EvT1", message_event(CHANNEL, &status), &[]).await;
    let greeting = bot_message(
        &ts(600, 300),
        AI,
        "AAI",
        "Hello! How can I help?",
        None,
        None,
    );
    h.event("EvT2", message_event(CHANNEL, &greeting), &[])
        .await;
    tokio::time::sleep(SETTLE * 4).await;
    assert!(h.slack.calls_to("chat.postMessage").is_empty());

    // An answer with replies, deleted: Slack turns it into a tombstone.
    let answer = Shape::Attachments.message(&sites, &ts(600, 400));
    h.slack.add_raw_message(CHANNEL, answer.clone());
    h.event("EvT3", message_event(CHANNEL, &answer), &[]).await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    assert_eq!(posts.len(), 1);
    let parent = h
        .slack
        .raw_messages(CHANNEL)
        .into_iter()
        .find(|m| m["ts"] == answer["ts"])
        .expect("the answer, with its thread fields");
    h.event(
        "EvT4",
        tombstone_event(CHANNEL, &parent, &ts(600, 900)),
        &[],
    )
    .await;
    let deletes = h.slack.wait_for("chat.delete", 1, WAIT).await;
    assert_eq!(deletes.len(), 1);
    assert_ne!(
        deletes[0].str("ts"),
        answer["ts"].as_str(),
        "the reply, not the answer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mention_with_no_answer_above_it_says_so_in_one_sentence() {
    let h = bot().await;
    let parent = ts(700, 100);
    h.slack
        .add_message(CHANNEL, Message::from_user(&parent, "U1", "Anyone around?"));
    h.slack.add_message(
        CHANNEL,
        Message::from_user(&ts(700, 200), "U2", "thanks!").in_thread(&parent),
    );
    let mention = format!("<@{BOT_USER_ID}> can you check this?");
    let event = app_mention_event(CHANNEL, "U1", &mention, &ts(700, 300), Some(&parent));
    h.event("EvN1", event, &[]).await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    let text = posts[0].str("text").unwrap_or_default();
    assert!(
        text.starts_with("I found no answer to check above this mention"),
        "{text}"
    );
    assert_eq!(
        text.matches(". ").count() + text.matches(".\n").count(),
        0,
        "one sentence: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mention_with_its_own_links_checks_them_not_the_thread() {
    let h = bot().await;
    let sites = Sites::start().await;
    let parent = ts(800, 100);
    h.slack
        .add_raw_message(CHANNEL, Shape::Attachments.message(&sites, &parent));
    let mention = format!(
        "<@{BOT_USER_ID}> is this right? Freezes start at 3 pm <{}|policy>",
        sites.ok()
    );
    let event = app_mention_event(CHANNEL, "U1", &mention, &ts(800, 200), Some(&parent));
    h.event("EvO1", event, &[]).await;
    let posts = h.slack.wait_for("chat.postMessage", 1, WAIT).await;
    let shown = shown(&posts[0]);
    assert!(shown.contains("policy"), "{shown}");
    assert!(
        !shown.contains("Old runbook"),
        "the thread's answer was not checked: {shown}"
    );
    assert!(h.slack.calls_to("conversations.replies").is_empty());
}

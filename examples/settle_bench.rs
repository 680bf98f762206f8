//! A streamed answer, end to end: how long after it settles the reply is posted, and how
//! fast a second mention on the same answer is served. Prints p50/p99/max.
//!
//! Starts the Slack bot in HTTP mode in this process (the test harness of
//! `tests/support/bot.rs`, with the default settle time, 1.5 s, and the default 2 s
//! probe budget) against the fake Slack Web API, and a loopback server for the links.
//! Each round is one watched assistant's answer in a channel of its own: it is posted
//! as "Thinking…", edited eight times 100 ms apart as it streams, then edited into its
//! final form with three citations in a `context` block (a fresh URL each round, so
//! every round probes). The bot may post only after the settle time without edits, so
//! the figure that matters is **after settling**: the time from the final edit to the
//! reply's `chat.postMessage`, less the settle time. Target: within the 2 s probe
//! budget plus 0.5 s. Then, once Slack's one-post-a-second pace allows, someone writes
//! "@sourcebot sources?" in the answer's thread; the bot reads the thread, finds the
//! answer and posts again, its verdicts now from the cache. Target: under 100 ms from
//! the event to the post.
//!
//! Two scenarios: every link answers at once (200, 200, 404), and one link never
//! answers, so the probe budget runs out: the worst case the target allows for.
//! Rounds per scenario are the first argument (default 10); p99 of so few rounds is
//! close to the maximum, which is printed too.
//!
//! ```text
//! cargo run --release --example settle_bench -- 10
//! ```

#[path = "../tests/support/mod.rs"]
mod support;

use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::bot::{harness_with, Harness};
use support::slack::{
    app_mention_event, bot_message, message_changed_event, message_event, Message, BOT_USER_ID,
};
use support::{Action, HostileServer, Route};

/// The watched assistant.
const AI: &str = "BAI";
const AI_APP: &str = "AAI";
const DEFAULT_ROUNDS: usize = 10;
/// Streamed edits before the final one, and the pause between them.
const STREAM_EDITS: usize = 8;
const STREAM_GAP: Duration = Duration::from_millis(100);
/// Slack's pace: one post a second per channel.
const PACE: Duration = Duration::from_millis(1_100);
/// The longest wait for a post.
const WAIT: Duration = Duration::from_secs(40);
/// Targets.
const PROBE_BUDGET: Duration = Duration::from_secs(2);
const AFTER_SETTLE_SLACK: Duration = Duration::from_millis(500);
const CACHED_TARGET: Duration = Duration::from_millis(100);

/// The answer every round gives, in words, streamed a few at a time.
const ANSWER: &str = "Deploys freeze on Fridays after 3 pm [1]. The freeze lasts until \
Monday 9 am [2]. The old runbook described a longer freeze [3].";

/// What one round measured.
struct Round {
    /// Final edit → reply posted, less the settle time.
    after_settle: Duration,
    /// Mention event sent → second reply posted.
    cached_mention: Duration,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let rounds = match std::env::args().nth(1) {
        None => DEFAULT_ROUNDS,
        Some(arg) => match arg.parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!(
                    "usage: settle_bench [ROUNDS]  (a whole number, default {DEFAULT_ROUNDS})"
                );
                std::process::exit(2);
            }
        },
    };
    let mut settle = Duration::ZERO;
    let h = harness_with(|s| settle = s.settle).await;
    let ip = support::next_ip(9);
    let sites = HostileServer::start(
        ip,
        vec![
            ("/freeze", Route::status(200)),
            ("/monday", Route::status(200)),
            ("/runbook", Route::status(404)),
            ("/silent", Route::always(Action::Hang)),
        ],
    )
    .await;
    println!(
        "settle {} ms, probe budget {} ms, {rounds} rounds a scenario",
        settle.as_millis(),
        PROBE_BUDGET.as_millis()
    );
    let scenarios: [(&str, [&str; 3]); 2] = [
        ("links answer at once", ["/freeze", "/monday", "/runbook"]),
        ("one link never answers", ["/freeze", "/monday", "/silent"]),
    ];
    let mut failed = false;
    for (n, (name, paths)) in scenarios.iter().enumerate() {
        let mut measured = Vec::with_capacity(rounds);
        for round in 0..rounds {
            let id = n * 1_000 + round;
            let links: Vec<String> = paths
                .iter()
                .map(|path| sites.url(&format!("{path}?round={id}")))
                .collect();
            match run_round(&h, id, &links, settle).await {
                Ok(r) => measured.push(r),
                Err(why) => {
                    eprintln!("{name}, round {round}: {why}");
                    failed = true;
                }
            }
        }
        println!("\n{name}:");
        let after: Vec<Duration> = measured.iter().map(|r| r.after_settle).collect();
        let cached: Vec<Duration> = measured.iter().map(|r| r.cached_mention).collect();
        failed |= !report(
            "  settled answer → reply, after settling",
            &after,
            PROBE_BUDGET + AFTER_SETTLE_SLACK,
        );
        failed |= !report("  second mention, verdicts cached", &cached, CACHED_TARGET);
    }
    if failed {
        std::process::exit(1);
    }
}

/// One answer streamed, settled and replied to, then a mention in its thread.
async fn run_round(
    h: &Harness,
    id: usize,
    links: &[String],
    settle: Duration,
) -> Result<Round, String> {
    let channel = format!("CBENCH{id:05}");
    let answer_ts = ts(id, 100);
    let posts_before = h.slack.calls_to("chat.postMessage").len();

    let placeholder = bot_message(&answer_ts, AI, AI_APP, "Thinking…", None, None);
    h.slack.add_raw_message(&channel, placeholder.clone());
    h.event(
        &format!("Ev{id}p"),
        message_event(&channel, &placeholder),
        &[],
    )
    .await;
    let words: Vec<&str> = ANSWER.split(' ').collect();
    let mut previous = placeholder;
    for edit in 1..=STREAM_EDITS {
        let shown = words.len() * edit / (STREAM_EDITS + 1);
        let partial = answer_message(&answer_ts, &words[..shown.max(1)].join(" "), None);
        let event = message_changed_event(&channel, &partial, &previous, &ts(id, 100 + edit));
        h.event(&format!("Ev{id}e{edit}"), event, &[]).await;
        previous = partial;
        tokio::time::sleep(STREAM_GAP).await;
    }
    let full = answer_message(&answer_ts, ANSWER, Some(links));
    h.slack.replace_raw_message(&channel, full.clone());
    let final_edit = message_changed_event(&channel, &full, &previous, &ts(id, 200));
    let settled_from = Instant::now();
    h.event(&format!("Ev{id}f"), final_edit, &[]).await;
    let reply = next_post(h, posts_before, "the reply").await?;
    let after_settle = reply
        .at
        .saturating_duration_since(settled_from)
        .saturating_sub(settle);
    if reply.str("thread_ts") != Some(answer_ts.as_str()) {
        return Err(format!("the reply went to {:?}", reply.str("thread_ts")));
    }

    tokio::time::sleep(PACE).await;
    let mention = format!("<@{BOT_USER_ID}> sources?");
    let mention_ts = ts(id, 300);
    h.slack.add_message(
        &channel,
        Message::from_user(&mention_ts, "U1", &mention).in_thread(&answer_ts),
    );
    let event = app_mention_event(&channel, "U1", &mention, &mention_ts, Some(&answer_ts));
    let asked = Instant::now();
    h.event(&format!("Ev{id}m"), event, &[]).await;
    let second = next_post(h, posts_before + 1, "the mention's reply").await?;
    if second.param("blocks") != reply.param("blocks") {
        return Err("the mention's reply differs from the watched reply".into());
    }
    Ok(Round {
        after_settle,
        cached_mention: second.at.saturating_duration_since(asked),
    })
}

/// The post after the first `seen` posts.
async fn next_post(h: &Harness, seen: usize, what: &str) -> Result<support::Call, String> {
    let posts = h.slack.wait_for("chat.postMessage", seen + 1, WAIT).await;
    posts
        .get(seen)
        .cloned()
        .ok_or_else(|| format!("{what} was not posted within {} s", WAIT.as_secs()))
}

/// The assistant's message at `ts`: `text` in a section, and the citations in a
/// context block when given.
fn answer_message(ts: &str, text: &str, links: Option<&[String]>) -> Value {
    let mut blocks = vec![json!({"type": "section", "text": {"type": "mrkdwn", "text": text}})];
    if let Some(links) = links {
        let titles = ["Freeze policy", "Freeze calendar", "Old runbook"];
        let elements: Vec<Value> = links
            .iter()
            .zip(titles)
            .enumerate()
            .map(|(i, (url, title))| {
                json!({"type": "mrkdwn", "text": format!("[{}] <{url}|{title}>", i + 1)})
            })
            .collect();
        blocks.push(json!({"type": "context", "elements": elements}));
    }
    bot_message(
        ts,
        AI,
        AI_APP,
        "Hello! I found some results for you!",
        Some(Value::Array(blocks)),
        None,
    )
}

/// A Slack ts unique to round `id`.
fn ts(id: usize, i: usize) -> String {
    format!("{}.{i:06}", 1_700_000_000 + id * 10)
}

/// Prints p50/p99/max of `samples` against `target`; false when p99 misses it.
fn report(name: &str, samples: &[Duration], target: Duration) -> bool {
    if samples.is_empty() {
        println!("{name}: no samples");
        return false;
    }
    let mut sorted = samples.to_vec();
    sorted.sort();
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let met = at(0.99) <= target;
    println!(
        "{name}: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms over {} (target p99 ≤ {:.0} ms: {})",
        ms(at(0.5)),
        ms(at(0.99)),
        ms(sorted[sorted.len() - 1]),
        sorted.len(),
        ms(target),
        if met { "met" } else { "MISSED" }
    );
    met
}

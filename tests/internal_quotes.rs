//! What sourcebot shows of documents it read with its own credentials, and to whom, end
//! to end over HTTP against the fake Slack and a fake Confluence: the channel message
//! carries each claim's verdict and missing words but never a document's words (nor
//! what it says instead of a claim's figure: its words too); the **Show evidence**
//! modal quotes them to the person who presses the button, unless the workspace turned
//! internal quotes off; a message from a private conversation is quoted only in a modal
//! opened from that same conversation; the answer API's caller, who holds the
//! credentials, gets the quote; and the optional language model sees a document's words
//! only when the operator allows it. (tests/differs_render.rs holds the same rules for
//! the differing figures, rendered from reports built by hand.)

mod support;

use serde_json::{json, Value};
use sourcebot::api::{self, ApiSettings, ApiState};
use sourcebot::config::Config;
use sourcebot::model::workspace::WorkspaceSettings;
use std::collections::HashMap;
use std::time::Duration;
use support::bot::{harness_configured, Harness, CHANNEL};
use support::llm::{FakeLlm, LlmMode};
use support::serve::{loopback_client, serve_app};
use support::slack::{app_mention_event, trigger_id, Call, FakeSlack, Message, BOT_USER_ID};
use support::{Action, HostileServer, Route};

const WAIT: Duration = Duration::from_secs(15);
const EVIDENCE_ACTION: &str = "show_evidence";
/// The runbook's words that must never reach a channel.
const RUNBOOK_SENTENCE: &str =
    "Deploys freeze at 18:00 on Fridays and the freeze lifts at 09:00 on Mondays.";
/// A private channel's words.
const SECRET_SENTENCE: &str = "The Falcon launch moved to 14 March after the load tests.";

/// A fake Confluence Cloud site with one runbook page, in storage format as the v2 API
/// gives it ("Get page by id" with `body-format=storage`).
async fn confluence() -> HostileServer {
    let page = json!({
        "id": "123456", "status": "current", "title": "Deploy runbook",
        "spaceId": "98306", "parentId": "98305", "parentType": "page",
        "authorId": "5b10ac8d82e05b22cc7d4ef5", "createdAt": "2024-03-01T10:00:00.000Z",
        "version": {"number": 7, "message": "", "minorEdit": false},
        "body": {"storage": {
            "value": format!("<h1>Freeze windows</h1><p>{RUNBOOK_SENTENCE}</p><ac:structured-macro ac:name=\"info\"><ac:rich-text-body><p>Hotfixes need the on-call lead&rsquo;s approval.</p></ac:rich-text-body></ac:structured-macro>"),
            "representation": "storage"
        }},
        "_links": {"webui": "/spaces/ENG/pages/123456/Deploy+runbook", "tinyui": "/x/QOIB"}
    });
    HostileServer::start_local(vec![(
        "/wiki/api/v2/pages/123456",
        Route::always(Action::bytes(
            200,
            &[("content-type", "application/json")],
            page.to_string().into_bytes(),
        )),
    )])
    .await
}

/// The settings that read Confluence Cloud at `site`.
fn confluence_settings(site: &HostileServer) -> HashMap<String, String> {
    HashMap::from([
        ("SOURCEBOT_CONFLUENCE_URL".to_string(), site.url("/")),
        (
            "SOURCEBOT_CONFLUENCE_EMAIL".to_string(),
            "bot@acme.io".to_string(),
        ),
        (
            "SOURCEBOT_CONFLUENCE_TOKEN".to_string(),
            "tok-cloud".to_string(),
        ),
    ])
}

/// The bot on `slack` with Confluence at `site` and `extra` settings.
async fn bot(
    slack: &std::sync::Arc<FakeSlack>,
    site: &HostileServer,
    extra: &[(&str, &str)],
) -> Harness {
    let mut vars = confluence_settings(site);
    vars.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let mut config = Config::from_lookup(|name| vars.get(name).cloned()).expect("settings");
    config.verify.allow_private = true;
    harness_configured(slack.clone(), config).await
}

/// The answer, citing the runbook: one claim it says, one whose figure it contradicts.
fn answer(site: &HostileServer) -> String {
    let link = site.url("/wiki/spaces/ENG/pages/123456/Deploy+runbook");
    format!(
        "Deploys freeze at 18:00 on Fridays [1]. The freeze lifts at 07:30 on Tuesdays [1].\n\n[1] {link} - Runbook"
    )
}

/// Every text a posted or edited message carries: its `text` and its blocks.
fn message_texts(call: &Call) -> String {
    format!(
        "{}\n{}",
        call.str("text").unwrap_or_default(),
        call.param("blocks")
            .map(Value::to_string)
            .unwrap_or_default()
    )
}

/// The "Show evidence" button's value in a message, if it has one.
fn evidence_key(call: &Call) -> Option<String> {
    call.param("blocks")?.as_array()?.iter().find_map(|block| {
        block["elements"].as_array()?.iter().find_map(|e| {
            (e["action_id"] == EVIDENCE_ACTION).then(|| e["value"].as_str().map(str::to_string))?
        })
    })
}

/// Mentions the bot in `channel` with `text`; returns every message the bot posted or
/// edited for it once the cited documents were read (the edit carries the button).
async fn mention(h: &Harness, channel: &str, event_id: &str, ts: &str, text: &str) -> Vec<Call> {
    let posted_before = h.slack.calls_to("chat.postMessage").len();
    let edited_before = h.slack.calls_to("chat.update").len();
    let event = app_mention_event(channel, "U1", &format!("<@{BOT_USER_ID}> {text}"), ts, None);
    let (status, ..) = h.event(event_id, event, &[]).await;
    assert_eq!(status, 200);
    let mut calls = h
        .slack
        .wait_for("chat.postMessage", posted_before + 1, WAIT)
        .await;
    calls.extend(
        h.slack
            .wait_for("chat.update", edited_before + 1, WAIT)
            .await,
    );
    calls
}

/// Presses the evidence button carrying `key` in `channel`; the modal it opened.
async fn press(h: &Harness, channel: &str, key: &str) -> Value {
    let opened_before = h.slack.calls_to("views.open").len();
    let click = json!({
        "type": "block_actions",
        "team": {"id": "T0001", "domain": "acme"},
        "user": {"id": "U2", "username": "grace", "team_id": "T0001"},
        "api_app_id": "A0001",
        "container": {"type": "message", "message_ts": "1700003000.000100", "channel_id": channel, "is_ephemeral": false},
        "trigger_id": trigger_id(),
        "channel": {"id": channel, "name": "somewhere"},
        "response_url": h.slack.response_url(key),
        "actions": [{"type": "button", "action_id": EVIDENCE_ACTION, "block_id": "b", "value": key,
            "action_ts": "1700003000.000200", "text": {"type": "plain_text", "text": "Show evidence"}}],
    });
    let (status, ..) = h.interaction(click).await;
    assert_eq!(status, 200);
    let opened = h
        .slack
        .wait_for("views.open", opened_before + 1, WAIT)
        .await;
    opened[opened_before]
        .param("view")
        .cloned()
        .expect("views.open carries a view")
}

/// The evidence button's key in the last of `calls` that has one.
fn last_key(calls: &[Call]) -> String {
    calls
        .iter()
        .rev()
        .find_map(evidence_key)
        .expect("a message with the evidence button")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_documents_words_reach_the_evidence_modal_never_the_channel() {
    let slack = std::sync::Arc::new(FakeSlack::start().await);
    let site = confluence().await;
    let h = bot(&slack, &site, &[]).await;
    let calls = mention(
        &h,
        CHANNEL,
        "EvInternal1",
        "1700004000.000100",
        &answer(&site),
    )
    .await;
    for call in &calls {
        let shown = message_texts(call);
        for words in [
            "18:00 on Fridays and the freeze lifts",
            "09:00",
            "on-call lead",
        ] {
            assert!(
                !shown.contains(words),
                "a document's words in the channel: {shown}"
            );
        }
    }
    let edited = message_texts(calls.last().expect("the edit"));
    // The verdict and the claim's own missing words are there (the time read whole);
    // what the runbook says ("09:00") is its words, so the channel says only that the
    // claim's time is missing.
    assert!(edited.contains("not supported"), "{edited}");
    assert!(edited.contains("does not mention 07:30"), "{edited}");
    assert!(!edited.contains("the page says"), "{edited}");
    let view = press(&h, CHANNEL, &last_key(&calls)).await;
    let modal = view.to_string();
    assert!(modal.contains("18:00 on Fridays"), "{modal}");
    assert!(modal.contains("*supported*"), "{modal}");
    assert!(
        modal.contains("*not supported*") || modal.contains("*partly supported*"),
        "{modal}"
    );
    // The modal may quote the runbook here: its time is missing, or said to differ.
    assert!(
        modal.contains("does not mention 07:30")
            || modal.contains("the page says 09:00, not 07:30"),
        "{modal}"
    );
    // The Confluence page was read through its API, once.
    let reads = site
        .request_log()
        .into_iter()
        .filter(|r| r.query.contains("body-format=storage"))
        .count();
    assert_eq!(reads, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_that_keeps_internal_words_out_gets_verdicts_only() {
    let slack = std::sync::Arc::new(FakeSlack::start().await);
    let site = confluence().await;
    let h = bot(&slack, &site, &[]).await;
    h.bot
        .hub()
        .save(
            "T0001",
            &WorkspaceSettings {
                internal_quotes: Some(false),
                ..Default::default()
            },
            "UADMIN",
        )
        .await
        .expect("saved");
    let calls = mention(
        &h,
        CHANNEL,
        "EvInternal2",
        "1700004100.000100",
        &answer(&site),
    )
    .await;
    let modal = press(&h, CHANNEL, &last_key(&calls)).await.to_string();
    assert!(!modal.contains("18:00 on Fridays and"), "{modal}");
    assert!(!modal.contains("09:00"), "{modal}");
    assert!(
        modal.contains("keeps the words of internal documents out of Slack"),
        "{modal}"
    );
    // Nor what the runbook says instead of the claim's time: only that it is missing.
    assert!(modal.contains("does not mention 07:30"), "{modal}");
    assert!(!modal.contains("the page says"), "{modal}");

    // The server's default does the same for a workspace that chose nothing (a new
    // bot, with a database of its own).
    let quiet = bot(&slack, &site, &[("SOURCEBOT_INTERNAL_QUOTES", "off")]).await;
    let calls = mention(
        &quiet,
        CHANNEL,
        "EvInternal3",
        "1700004200.000100",
        &answer(&site),
    )
    .await;
    let modal = press(&quiet, CHANNEL, &last_key(&calls)).await.to_string();
    assert!(!modal.contains("09:00"), "{modal}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_conversations_words_are_quoted_only_inside_it() {
    let slack = std::sync::Arc::new(FakeSlack::start().await);
    let site = confluence().await;
    let h = bot(&slack, &site, &[]).await;
    slack.set_private("C0SECRET");
    slack.add_message(
        "C0SECRET",
        Message::from_user("1700004300.000100", "U9", SECRET_SENTENCE),
    );
    let link = "https://acme.slack.com/archives/C0SECRET/p1700004300000100";
    let text = format!("The Falcon launch moved to 14 March [1].\n\n[1] {link} - launch thread");

    let elsewhere = mention(&h, CHANNEL, "EvPrivate1", "1700004400.000100", &text).await;
    for call in &elsewhere {
        assert!(!message_texts(call).contains("after the load tests"));
    }
    let modal = press(&h, CHANNEL, &last_key(&elsewhere)).await.to_string();
    assert!(!modal.contains("after the load tests"), "{modal}");
    assert!(!modal.contains("the page says"), "{modal}");
    assert!(modal.contains("private conversation"), "{modal}");
    // Whether the channel is public was asked of Slack, not guessed.
    assert!(!slack.calls_to("conversations.info").is_empty());

    // Asked inside the private channel, its words are quoted there.
    let inside = mention(&h, "C0SECRET", "EvPrivate2", "1700004500.000100", &text).await;
    let modal = press(&h, "C0SECRET", &last_key(&inside)).await.to_string();
    assert!(modal.contains("after the load tests"), "{modal}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_apis_caller_gets_the_quote_and_how_it_was_read() {
    let slack = std::sync::Arc::new(FakeSlack::start().await);
    let site = confluence().await;
    let h = bot(&slack, &site, &[]).await;
    let settings = ApiSettings {
        tokens: vec!["api-token-1".into()],
        ..ApiSettings::default()
    };
    let (addr, server) = serve_app(api::router(ApiState::new(h.bot.clone(), settings))).await;
    let reply = loopback_client()
        .post(format!("http://{addr}/v1/check"))
        .bearer_auth("api-token-1")
        .header("content-type", "text/markdown")
        .body(answer(&site))
        .send()
        .await
        .expect("the API answers");
    assert_eq!(reply.status(), 200);
    let report: Value = serde_json::from_str(&reply.text().await.expect("body")).expect("JSON");
    server.abort();
    let source = &report["groups"][0]["sources"][0];
    assert_eq!(report["groups"][0]["kind"], "confluence", "{report}");
    assert_eq!(
        source["read_via"],
        json!({"via": "product", "product": "Confluence"}),
        "{source}"
    );
    let claims = report["claims"].as_array().expect("claims");
    let first = &claims[0]["support"][0];
    assert_eq!(first["verdict"], "supported", "{first}");
    assert!(
        first["quote"]
            .as_str()
            .is_some_and(|q| q.contains("Deploys freeze at 18:00 on Fridays")),
        "{first}"
    );
    let second = &claims[1]["support"][0];
    assert_ne!(second["verdict"], "supported", "{second}");
    // The rendered channel message in the same reply quotes nothing.
    let mrkdwn = report["rendered"]["mrkdwn"].as_str().expect("mrkdwn");
    assert!(!mrkdwn.contains("09:00"), "{mrkdwn}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_sees_a_documents_words_only_when_the_operator_allows_it() {
    let site = confluence().await;
    let llm = FakeLlm::start(LlmMode::Judge(std::sync::Arc::new(|_: &str| "supported"))).await;
    let run = |extra: Vec<(&'static str, String)>| {
        let mut vars = confluence_settings(&site);
        vars.extend([
            ("SOURCEBOT_LLM_URL".to_string(), llm.base_url()),
            ("SOURCEBOT_LLM_MODEL".to_string(), "fake-model".to_string()),
            ("SOURCEBOT_LLM_TIMEOUT".to_string(), "2s".to_string()),
        ]);
        vars.extend(extra.into_iter().map(|(k, v)| (k.to_string(), v)));
        let text = answer(&site);
        async move {
            let config = Config::from_lookup(|name| vars.get(name).cloned()).expect("settings");
            let pipeline = sourcebot::pipeline::Pipeline::builder()
                .config(config)
                .build()
                .expect("pipeline");
            let mut report = support::pipeline::check(&pipeline, &text).await;
            pipeline.check_support(&mut report).await.expect("checked");
            report
        }
    };
    // By default the built-in scorer judges the runbook, and the model is never asked.
    let kept = run(Vec::new()).await;
    assert!(
        llm.requests().is_empty(),
        "the model saw an internal document"
    );
    assert!(kept.claims[0]
        .support
        .iter()
        .all(|s| s.judge == sourcebot::model::SupportJudge::Builtin));
    // Allowed, the model judges it from the runbook's passages.
    let allowed = run(vec![("SOURCEBOT_LLM_READS_INTERNAL", "on".to_string())]).await;
    let asked = llm.requests();
    assert!(!asked.is_empty(), "the model was not asked");
    assert!(
        asked
            .iter()
            .any(|r| r.body.to_string().contains("18:00 on Fridays")),
        "the model was asked without the runbook's words"
    );
    assert_eq!(
        allowed.claims[0].support[0].judge,
        sourcebot::model::SupportJudge::Llm
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slack_snippets_text_is_read_and_judged() {
    let slack = std::sync::Arc::new(FakeSlack::start().await);
    let site = confluence().await;
    let h = bot(&slack, &site, &[]).await;
    // A snippet as files.info returns it (mode "snippet"), its text beside the file.
    slack.add_snippet(
        json!({
            "id": "F0SNIPPET1", "name": "failover.txt", "title": "Failover notes",
            "mode": "snippet", "filetype": "text", "mimetype": "text/plain",
            "is_public": true, "channels": [CHANNEL], "groups": [], "ims": [],
            "preview": "Failover to the standby region takes 4 minutes.",
            "preview_is_truncated": false, "lines": 2
        }),
        "Failover to the standby region takes 4 minutes.\nThe DNS switch is manual.",
    );
    let link = "https://files.slack.com/files-pri/T0001-F0SNIPPET1/failover.txt";
    let text = format!(
        "Failover to the standby region takes 4 minutes [1].\n\n[1] {link} - Failover notes"
    );
    let calls = mention(&h, CHANNEL, "EvSnippet1", "1700004600.000100", &text).await;
    let modal = press(&h, CHANNEL, &last_key(&calls)).await.to_string();
    assert!(modal.contains("*supported*"), "{modal}");
    assert!(
        modal.contains("Failover to the standby region takes 4 minutes."),
        "{modal}"
    );
    // The check's files.info served the read too.
    assert_eq!(slack.calls_to("files.info").len(), 1);
}

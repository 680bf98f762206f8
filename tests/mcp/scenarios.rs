//! The scenarios both MCP transports run (tests/mcp_stdio.rs, tests/mcp_http.rs), each
//! over a connected rmcp client: the listing, a check of hostile pages against
//! `sourcebot check`, `check_links` and `judge_claims` against the command line, bad
//! inputs, private addresses, progress, and a call given up.

use super::*;

/// Lists the tools and checks the listing ([`assert_tool_listing`]) and the server's
/// name; returns each tool's output schema by name.
pub async fn tools_are_listed(client: &Client) -> HashMap<String, Value> {
    let info = client.peer_info().expect("the server introduced itself");
    let info = serde_json::to_value(&*info).expect("server info is JSON");
    assert_eq!(info["serverInfo"]["name"], "sourcebot", "{info:#}");
    assert!(
        info["capabilities"]["tools"].is_object(),
        "tools are a capability: {info:#}"
    );
    assert_tool_listing(&list_tools(client).await)
}

/// `check_answer` on the [`Web`]'s answer: what the pages are known to do, the output
/// schema, and the same findings as `sourcebot check --format json` run in `dir` with
/// `envs` on the same answer. The same answer as the agent's JSON, unverified, lists the
/// same sources, none checked.
pub async fn hostile_answer_agrees_with_check(
    client: &Client,
    web: &Web,
    dir: &Path,
    envs: &[(&'static str, String)],
) {
    let schemas = tools_are_listed(client).await;
    let answer = web.answer();
    let result = call_within(client, CHECK, "check_answer", json!({ "answer": answer })).await;
    let output = structured(&result);
    assert_valid("check_answer", &schemas["check_answer"], output);
    assert_web_findings(web, output);
    let report = check_json(dir, &answer, envs).await;
    for (path, verdict) in EXPECTED {
        let url = web.url(path);
        let class = report["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|g| g["sources"].as_array().into_iter().flatten())
            .find(|s| s["url"] == url.as_str())
            .map(|s| s["verdict"]["class"].clone());
        assert_eq!(
            class,
            Some(json!(verdict)),
            "sourcebot check itself on {path}: {report:#}"
        );
    }
    assert_same_as_check(output, &report);

    let agent = json!({ "text": answer, "sources": [] });
    let result = call(
        client,
        "check_answer",
        json!({ "answer": agent, "verify": false }),
    )
    .await;
    let unverified = structured(&result);
    assert_valid("check_answer", &schemas["check_answer"], unverified);
    let sources = unverified["sources"].as_array().expect("sources");
    assert_eq!(sources.len(), EXPECTED.len(), "{unverified:#}");
    assert!(
        sources.iter().all(|s| s["verdict"] == "not_checked"),
        "verify: false probes nothing: {unverified:#}"
    );
    assert_eq!(
        unverified["unsupported_claims"],
        json!([]),
        "no page read: {unverified:#}"
    );
}

/// `check_links` on the [`Web`]'s links gives each the verdict the check gives it;
/// `judge_claims` on [`claims_to_judge`] gives what `sourcebot support` (run in `dir`
/// with `envs`) gives for the same lines.
pub async fn links_and_claims_agree_with_the_command_line(
    client: &Client,
    web: &Web,
    dir: &Path,
    envs: &[(&'static str, String)],
) {
    let schemas = tools_are_listed(client).await;
    let urls = web.urls();
    let result = call_within(client, CHECK, "check_links", json!({ "urls": urls })).await;
    let output = structured(&result);
    assert_valid("check_links", &schemas["check_links"], output);
    let links = output["links"].as_array().expect("links");
    assert_eq!(links.len(), urls.len(), "one verdict a link: {output:#}");
    for (path, verdict) in EXPECTED {
        let url = web.url(path);
        let link = links
            .iter()
            .find(|l| l["url"] == url.as_str())
            .unwrap_or_else(|| panic!("{url} missing from {output:#}"));
        assert_eq!(link["verdict"], verdict, "{path}: {link:#}");
        assert!(link["reason"].is_string(), "{path}: {link:#}");
    }
    for (path, status) in [("/gone", 404), ("/down", 500), ("/freeze", 200)] {
        let url = web.url(path);
        let link = links
            .iter()
            .find(|l| l["url"] == url.as_str())
            .expect("listed");
        assert_eq!(link["status_code"], status, "{path}: {link:#}");
    }

    let claims = claims_to_judge();
    let result = call(client, "judge_claims", json!({ "claims": claims })).await;
    let output = structured(&result);
    assert_valid("judge_claims", &schemas["judge_claims"], output);
    let lines = support_lines(dir, &claims, envs).await;
    assert_eq!(
        lines[0]["verdict"], "supported",
        "sourcebot support: {lines:#?}"
    );
    assert_ne!(
        lines[1]["verdict"], "supported",
        "sourcebot support: {lines:#?}"
    );
    assert_same_as_support(output, &lines);
    assert_eq!(
        output["judgments"][1]["differs"],
        json!([{"claim": "14:00 UTC", "page": "16:00 UTC"}]),
        "{output:#}"
    );
}

/// Every bad input is a tool result with `isError` and one sentence naming what was
/// wrong (`mentions`), and the session still works after them: the tools are listed
/// and `ok_url` is checked.
pub async fn bad_inputs_are_refused(client: &Client, ok_url: &str) {
    let too_many: Vec<String> = (0..=MAX_SOURCES)
        .map(|i| format!("{ok_url}?n={i}"))
        .collect();
    let cases: Vec<(&str, Value, &[&str])> = vec![
        ("check_answer", json!({ "answer": 42 }), &["answer"]),
        ("check_answer", json!({}), &["answer"]),
        ("check_answer", json!({ "answer": "   " }), &["answer"]),
        ("check_answer", json!({ "answer": null }), &["answer"]),
        (
            "check_answer",
            json!({ "answer": "See [1].", "verify": "yes" }),
            &["verify"],
        ),
        (
            "check_answer",
            json!({ "answer": "See [1].", "verfy": false }),
            &["verfy"],
        ),
        ("check_links", json!({ "urls": "x" }), &["urls"]),
        ("check_links", json!({ "urls": [] }), &["urls"]),
        ("check_links", json!({ "urls": [1, 2] }), &["urls"]),
        ("check_links", json!({ "links": [ok_url] }), &["links"]),
        ("check_links", json!({ "urls": too_many }), &["at most"]),
        ("judge_claims", json!({ "claims": "x" }), &["claims"]),
        (
            "judge_claims",
            json!({ "claims": [{ "claim": "x" }] }),
            &["evidence"],
        ),
        (
            "judge_claims",
            json!({ "claims": [{ "claim": "x", "evidence": 7 }] }),
            &["evidence"],
        ),
    ];
    let mut wrong = Vec::new();
    for (tool, arguments, mentions) in &cases {
        let result = call(client, tool, arguments.clone()).await;
        let sentence = refusal(&result);
        let lower = sentence.to_lowercase();
        if !mentions.iter().all(|m| lower.contains(m)) {
            wrong.push(format!(
                "{tool} {arguments}: {sentence:?} does not name {mentions:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "refusals that do not say what was wrong:\n{}",
        wrong.join("\n")
    );
    // The session goes on.
    assert_eq!(list_tools(client).await.len(), TOOLS.len());
    let result = call(client, "check_links", json!({ "urls": [ok_url] })).await;
    let output = structured(&result);
    assert_eq!(output["links"][0]["verdict"], "verified", "{output:#}");
}

/// With private addresses not allowed, a loopback link is `blocked` by `check_links`
/// and in `check_answer`, and `site` is never asked.
pub async fn loopback_is_blocked(client: &Client, site: &HostileServer) {
    let url = site.url("/ok");
    let result = call(client, "check_links", json!({ "urls": [url] })).await;
    let output = structured(&result);
    assert_eq!(output["links"][0]["verdict"], "blocked", "{output:#}");
    let result = call(client, "check_answer", answer_citing(&url)).await;
    let output = structured(&result);
    assert_eq!(output["sources"][0]["verdict"], "blocked", "{output:#}");
    assert_eq!(site.requests(), 0, "a private address was reached");
}

/// `check_answer` on an answer citing every server of `slow` (each slower than the
/// progress interval) sends progress, for the token rmcp's client puts on every
/// request: at least one notification, each within its total, increasing.
pub async fn progress_is_reported(client: &Client, slow: &[HostileServer]) {
    let mut answer = String::from("The rollback is announced");
    for n in 1..=slow.len() {
        answer.push_str(&format!(" [{n}]"));
    }
    answer.push_str(".\n\n");
    for (n, server) in slow.iter().enumerate() {
        answer.push_str(&format!(
            "[{}] {} - Rollbacks {}\n",
            n + 1,
            server.url("/slow"),
            n + 1
        ));
    }
    let result = call_within(client, CHECK, "check_answer", json!({ "answer": answer })).await;
    let output = structured(&result);
    assert!(
        output["sources"]
            .as_array()
            .is_some_and(|s| s.len() == slow.len() && s.iter().all(|s| s["verdict"] == "verified")),
        "{output:#}"
    );
    let seen = client
        .service()
        .progress_within(Duration::from_secs(2))
        .await;
    assert!(
        !seen.is_empty(),
        "no progress notification while {} slow links were checked",
        slow.len()
    );
    let mut last = None;
    for note in &seen {
        if let Some(total) = note.total {
            assert!(note.progress <= total, "{note:?}");
        }
        if let Some(before) = last {
            assert!(note.progress > before, "progress must increase: {seen:?}");
        }
        last = Some(note.progress);
    }
}

/// How a test gives up a call.
#[derive(Debug, Clone, Copy)]
pub enum GiveUp {
    /// `notifications/cancelled`, through the request's handle.
    Cancel,
    /// Drop the call's future: rmcp's client tells the server it was abandoned.
    Drop,
}

/// Starts `check_answer` on an answer citing `silent` (which never answers), gives it
/// up as `how` once the probe is connected, and checks that the server closes that
/// connection within [`CANCEL_CLOSES`] (its probe timeout is [`LONG_TIMEOUT`]), and
/// that it still answers: `ok_url` is checked.
pub async fn giving_up_stops_the_probe(
    client: &Client,
    silent: &Silent,
    ok_url: &str,
    how: GiveUp,
) {
    let arguments = answer_citing(&silent.url("/never"));
    let running = match how {
        GiveUp::Cancel => {
            let handle = start_call(client, "check_answer", arguments).await;
            assert!(
                silent.wait_for(QUICK, |s| s.accepted() >= 1).await,
                "the probe never reached the page"
            );
            handle
                .cancel(Some("the test gives up".into()))
                .await
                .expect("the cancellation is sent");
            None
        }
        GiveUp::Drop => {
            let peer = client.peer().clone();
            let call = tokio::spawn(async move {
                let _ = peer.call_tool(params("check_answer", arguments)).await;
            });
            assert!(
                silent.wait_for(QUICK, |s| s.accepted() >= 1).await,
                "the probe never reached the page"
            );
            call.abort();
            Some(call)
        }
    };
    if let Some(call) = running {
        let _ = call.await;
    }
    let closed = silent.wait_for(CANCEL_CLOSES, |s| s.open() == 0).await;
    assert!(
        closed,
        "{how:?}: {} of {} connections to the page still open {CANCEL_CLOSES:?} after the call was given up",
        silent.open(),
        silent.accepted()
    );
    let result = call(client, "check_links", json!({ "urls": [ok_url] })).await;
    let output = structured(&result);
    assert_eq!(output["links"][0]["verdict"], "verified", "{output:#}");
}

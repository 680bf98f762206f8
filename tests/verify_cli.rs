//! `sourcebot check` with link checking, as people use it: against local servers
//! (private addresses allowed through the documented setting), every mark in the text
//! output, the full verdict in JSON, `--no-verify`, `--timeout`, `--concurrency`,
//! proxies ignored, and the progress line on a terminal only.

mod support;

use serde_json::Value;
use std::net::IpAddr;
use std::time::{Duration, Instant};
use support::cli::{allow_private, command, have_script, on_terminal, run, stderr, stdout};
use support::{Action, HostileServer, Route};

/// A loopback address of this file's block, 127.3.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(3)
}

/// Writes `text` to a file in `dir`; JSON answers go to a `.json` file.
fn write_answer(dir: &tempfile::TempDir, text: &str) -> String {
    let name = if text.starts_with('{') {
        "answer.json"
    } else {
        "answer.md"
    };
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write answer");
    path.to_string_lossy().into_owned()
}

/// An answer citing one link of each outcome on its own server.
struct Web {
    ok: HostileServer,
    gone: HostileServer,
    robots: HostileServer,
    down: HostileServer,
    answer: String,
}

async fn web() -> Web {
    let ok = HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await;
    let gone = HostileServer::start(next_ip(), vec![("/gone", Route::status(404))]).await;
    let robots = HostileServer::start(next_ip(), vec![("/robots", Route::status(403))]).await;
    let down = HostileServer::start(next_ip(), vec![("/down", Route::status(503))]).await;
    let text = format!(
        "Deploys are frozen on Fridays [1]. The old runbook moved [2]. \
         The vendor page needs a login [3]. The status page is down [4]. \
         See also <https://acme.slack.com/archives/C1/p1700000000000100|the thread>.\n\n\
         [1] {} - Freeze policy\n[2] {} - Old runbook\n[3] {} - Vendor docs\n[4] {} - Status\n",
        ok.url("/ok"),
        gone.url("/gone"),
        robots.url("/robots"),
        down.url("/down"),
    );
    // An agent's structured source with a link that is not http: invalid.
    let answer = serde_json::json!({
        "text": text,
        "sources": [{"url": "ftp://files.acme.io/runbook", "title": "the wiki"}],
    })
    .to_string();
    Web {
        ok,
        gone,
        robots,
        down,
        answer,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_output_marks_every_verdict_and_counts_them() {
    let web = web().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(&dir, &web.answer);
    let output = run(command(&["check".into(), file], &allow_private())).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with(
            "Sources (6) — ✓ 1 verified · ⚠ 1 broken · 🔒 1 restricted · ⚠ 1 server error · ⊘ 1 invalid · – 1 not checked\n"
        ),
        "{text}"
    );
    let confidence = text.lines().nth(1).unwrap_or_default();
    assert!(
        confidence.starts_with("Confidence ") && confidence.contains("· 6 sources from "),
        "{confidence}"
    );
    for line in [
        "✓ Freeze policy  [verified]",
        "⚠ Old runbook  [broken: HTTP 404 · low credibility]",
        "🔒 Vendor docs  [restricted: HTTP 403: the page refuses robots]",
        "⚠ Status  [server error: HTTP 503 · low credibility]",
        "⊘ the wiki  [invalid: not a valid http or https link · low credibility]",
        "– the thread  [not checked: no Slack token: set SLACK_BOT_TOKEN]",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    for server in [&web.ok, &web.gone, &web.robots, &web.down] {
        assert!(server.requests() >= 1, "{server:?} was not probed");
    }
    // Not a terminal: no progress line.
    assert_eq!(stderr(&output), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_carries_the_full_verdict() {
    let web = web().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(&dir, &web.answer);
    let args = vec!["check".into(), file, "--format".into(), "json".into()];
    let output = run(command(&args, &allow_private())).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).expect("json");
    let web_sources = report["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .find(|g| g["kind"] == "web")
        .expect("web group")["sources"]
        .clone();
    let gone = web_sources
        .as_array()
        .expect("sources")
        .iter()
        .find(|s| s["title"] == "Old runbook")
        .expect("old runbook");
    let verdict = &gone["verdict"];
    assert_eq!(verdict["class"], "broken");
    assert_eq!(verdict["status_code"], 404);
    assert_eq!(verdict["final_url"], web.gone.url("/gone"));
    assert!(verdict["elapsed_ms"].is_u64());
    assert_eq!(verdict["reason"], "HTTP 404");
    let verification = &report["verification"];
    assert_eq!(verification["performed"], true);
    assert_eq!(verification["network_down"], false);
    assert_eq!(verification["counts"]["verified"], 1);
    assert_eq!(verification["counts"]["broken"], 1);
    assert_eq!(verification["counts"]["not_checked"], 1);
    assert!(verification["note"]
        .as_str()
        .unwrap_or_default()
        .starts_with("Checked 4 external links in"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mrkdwn_and_blocks_show_the_marks() {
    let web = web().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(&dir, &web.answer);
    let args = vec![
        "check".into(),
        file.clone(),
        "--format".into(),
        "mrkdwn".into(),
    ];
    let mrkdwn = stdout(&run(command(&args, &allow_private())).await);
    assert!(
        mrkdwn.contains(&format!("• ✓ <{}|Freeze policy>\n", web.ok.url("/ok"))),
        "{mrkdwn}"
    );
    assert!(mrkdwn.contains(&format!(
        "• ⚠ <{}|Old runbook> · broken",
        web.gone.url("/gone")
    )));
    let args = vec!["check".into(), file, "--format".into(), "blocks".into()];
    let blocks = stdout(&run(command(&args, &allow_private())).await);
    let blocks: Value = serde_json::from_str(&blocks).expect("blocks json");
    let all = blocks.to_string();
    assert!(all.contains("🔒") && all.contains("✓ 1 verified"), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_verify_touches_nothing() {
    let web = web().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(&dir, &web.answer);
    let args = vec!["check".into(), file.clone(), "--no-verify".into()];
    let output = run(command(&args, &allow_private())).await;
    let text = stdout(&output);
    assert!(
        text.starts_with("Sources (6) — links not checked\n"),
        "{text}"
    );
    let args = vec![
        "check".into(),
        file,
        "--no-verify".into(),
        "--format".into(),
        "json".into(),
    ];
    let json = stdout(&run(command(&args, &allow_private())).await);
    let report: Value = serde_json::from_str(&json).expect("json");
    assert_eq!(report["verification"]["performed"], false);
    assert_eq!(report["verification"]["counts"]["not_checked"], 6);
    assert_eq!(report["verification"]["counts"]["verified"], 0);
    for server in [&web.ok, &web.gone, &web.robots, &web.down] {
        assert_eq!(server.connections(), 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_addresses_are_blocked_unless_allowed() {
    let web = web().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(&dir, &web.answer);
    let output = run(command(&["check".into(), file], &[])).await;
    let text = stdout(&output);
    assert!(text.contains("⊘ Freeze policy  [blocked: "), "{text}");
    for server in [&web.ok, &web.gone, &web.robots, &web.down] {
        assert_eq!(
            server.connections(),
            0,
            "the guard let a connection through"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_flag_bounds_the_check() {
    let hang = HostileServer::start(next_ip(), vec![("/", Route::always(Action::Hang))]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(
        &dir,
        &format!("It hangs [1].\n\n[1] {} - Hanging\n", hang.url("/")),
    );
    let args = vec!["check".into(), file, "--timeout".into(), "500ms".into()];
    let started = Instant::now();
    let output = run(command(&args, &allow_private())).await;
    let wall = started.elapsed();
    let text = stdout(&output);
    assert!(
        text.contains("⚠ Hanging  [timed out: no answer within 500 ms]"),
        "{text}"
    );
    // 0.5 s probe + 0.5 s batch grace at most; the rest is process start-up.
    assert!(wall < Duration::from_secs(2), "took {wall:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_flag_caps_probes() {
    let slow = HostileServer::start(
        next_ip(),
        vec![(
            "/",
            Route::always(Action::status(200).after(Duration::from_millis(150))),
        )],
    )
    .await;
    let refs: String = (1..=4)
        .map(|i| format!("[{i}] {} - Page {i}\n", slow.url(&format!("/?page={i}"))))
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(&dir, &format!("Four pages [1][2][3][4].\n\n{refs}"));
    let args = vec!["check".into(), file, "--concurrency".into(), "1".into()];
    let output = run(command(&args, &allow_private())).await;
    assert!(
        stdout(&output).contains("✓ 4 verified"),
        "{}",
        stdout(&output)
    );
    assert_eq!(slow.max_concurrent(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_flags_are_usage_errors() {
    for (flag, value, says) in [
        (
            "--timeout",
            "soon",
            "--timeout \"soon\": expected a duration",
        ),
        ("--timeout", "0ms", "from 100ms"),
        ("--concurrency", "0", "--concurrency"),
    ] {
        let args = vec![
            "check".into(),
            "examples/answer.md".into(),
            flag.into(),
            value.into(),
        ];
        let output = run(command(&args, &[])).await;
        assert_eq!(output.status.code(), Some(2), "{flag} {value}");
        assert!(stderr(&output).contains(says), "{}", stderr(&output));
    }
    let output = run(command(
        &["check".into(), "examples/answer.md".into()],
        &[("SOURCEBOT_VERIFY_TIMEOUT", "forever".into())],
    ))
    .await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("SOURCEBOT_VERIFY_TIMEOUT=\"forever\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_proxies_are_ignored() {
    let target = HostileServer::start(next_ip(), vec![("/", Route::status(200))]).await;
    let proxy = HostileServer::start(next_ip(), vec![("/", Route::status(200))]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(
        &dir,
        &format!("A page [1].\n\n[1] {} - Page\n", target.url("/")),
    );
    let proxy_url = format!("http://{}", proxy.addr());
    let mut envs = allow_private();
    for name in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "all_proxy",
    ] {
        envs.push((name, proxy_url.clone()));
    }
    let output = run(command(&["check".into(), file], &envs)).await;
    assert!(
        stdout(&output).contains("✓ Page  [verified]"),
        "{}",
        stdout(&output)
    );
    assert_eq!(proxy.connections(), 0, "a request went through the proxy");
    assert_eq!(target.requests(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_gets_a_progress_line_when_checking_is_slow() {
    if !have_script() {
        return;
    }
    let slow = HostileServer::start(
        next_ip(),
        vec![(
            "/",
            Route::always(Action::status(200).after(Duration::from_millis(1200))),
        )],
    )
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(
        &dir,
        &format!("Slow [1].\n\n[1] {} - Slow page\n", slow.url("/")),
    );
    let terminal = on_terminal(&format!("check {file}"), &allow_private()).await;
    assert!(terminal.contains("checking links"), "{terminal:?}");
    assert!(terminal.contains("0/1"), "{terminal:?}");
}

/// With links checked, the cited pages are read: each claim carries whether its page
/// supports it (JSON), the text shows it per source and lists the unsupported claim;
/// `SOURCEBOT_SUPPORT=off` leaves it out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_says_whether_each_page_supports_its_claim() {
    let page = |body: &str| {
        Route::always(Action::bytes(
            200,
            &[("content-type", "text/html; charset=utf-8")],
            format!("<html><body><nav>Menu</nav><article>{body}</article><footer>© Acme</footer></body></html>").into_bytes(),
        ))
    };
    let site = HostileServer::start(
        next_ip(),
        vec![
            ("/freeze", page("<p>Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend.</p>")),
            ("/menu", page("<p>The cafeteria opens at nine and serves lunch until two.</p>")),
        ],
    )
    .await;
    let text = format!(
        "Deploys are frozen on Fridays [1]. The company was founded in Boston in 1998 by two engineers [2].\n\n[1] {} - Freeze policy\n[2] {} - Company history\n",
        site.url("/freeze"),
        site.url("/menu")
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(&dir, &text);
    let args = vec![
        "check".into(),
        file.clone(),
        "--format".into(),
        "json".into(),
    ];
    let output = run(command(&args, &allow_private())).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).expect("json");
    let claims = report["claims"].as_array().expect("claims");
    assert_eq!(claims[0]["support"][0]["source"], 1);
    assert_eq!(claims[0]["support"][0]["verdict"], "supported");
    assert!(claims[0]["support"][0]["quote"]
        .as_str()
        .unwrap_or_default()
        .contains("frozen on Fridays"));
    assert_eq!(claims[1]["support"][0]["verdict"], "not supported");
    assert!(report["confidence"]["supported_share"].as_f64() == Some(0.5));
    assert_eq!(report["confidence"]["label"], "low");

    let output = run(command(&["check".into(), file.clone()], &allow_private())).await;
    let shown = stdout(&output);
    assert!(
        shown.contains("Freeze policy  [verified · supports 1 of 1 claim]"),
        "{shown}"
    );
    assert!(
        shown.contains("Claims their pages do not support (1):"),
        "{shown}"
    );
    assert!(shown.contains("founded in Boston"), "{shown}");
    // Each judged claim with its verdict and quote.
    assert!(shown.contains("Claim support (2 judged):"), "{shown}");
    assert!(
        shown.contains("      1. Freeze policy: supported — \"")
            && shown.contains("frozen on Fridays"),
        "{shown}"
    );
    assert!(
        shown.contains("      2. Company history: not supported"),
        "{shown}"
    );

    let mut off = allow_private();
    off.push(("SOURCEBOT_SUPPORT", "off".into()));
    let output = run(command(&args, &off)).await;
    let report: Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert!(report["claims"][0].get("support").is_none());
}

/// With `SLACK_BOT_TOKEN`, `check` checks Slack permalinks and files through the Web
/// API (here a fake one): a message that exists and a file Slack knows are verified,
/// the file titled as Slack titles it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_uses_the_slack_token_for_permalinks_and_files() {
    let slack = support::FakeSlack::start().await;
    slack.add_message(
        "C0DOCS",
        support::Message::from_user("1700002000.000100", "U2", "Deploys are frozen on Fridays."),
    );
    slack.add_file(serde_json::json!({
        "id": "F0S43PZDF", "name": "q3-plan.pdf", "title": "Q3 plan", "mode": "hosted"
    }));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(
        &dir,
        &format!(
            "Deploys are frozen on Fridays [1], says the plan [2].\n\n[1] {} - Freeze announcement\n[2] https://files.slack.com/files-pri/T061EG9RZ-F0S43PZDF/q3-plan.pdf\n",
            support::slack::permalink("C0DOCS", "1700002000.000100", None)
        ),
    );
    let mut env = allow_private();
    env.push(("SOURCEBOT_SLACK_API_URL", slack.api_url()));
    let mut cmd = command(
        &["check".into(), file, "--format".into(), "json".into()],
        &env,
    );
    cmd.env("SLACK_BOT_TOKEN", "xoxb-test-token");
    let output = run(cmd).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).expect("json");
    let sources: Vec<&Value> = report["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["sources"].as_array().into_iter().flatten())
        .collect();
    assert_eq!(sources.len(), 2, "{report}");
    for source in &sources {
        assert_eq!(source["verdict"]["class"], "verified", "{source}");
    }
    assert!(sources.iter().any(|s| s["title"] == "Q3 plan"), "{report}");
    assert_eq!(slack.calls_to("files.info").len(), 1);
}

/// `--evidence` lists, under the text report, each claim checked against its page: the
/// page, its verdict and judge, its link, the page's own words, and the words the JSON
/// says it never mentions. Without the flag the text is as before; with another format
/// it is a usage error. The text names the judge in its support part.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_evidence_flag_lists_each_checked_claim_under_the_text_report() {
    let page = |body: &str| {
        Route::always(Action::bytes(
            200,
            &[("content-type", "text/html; charset=utf-8")],
            format!("<html><body><article>{body}</article></body></html>").into_bytes(),
        ))
    };
    let site = HostileServer::start(
        next_ip(),
        vec![
            (
                "/freeze",
                page("<p>Deploys are frozen on Fridays and during public holidays.</p>"),
            ),
            (
                "/menu",
                page("<p>The cafeteria opens at nine and serves lunch until two.</p>"),
            ),
        ],
    )
    .await;
    let text = format!(
        "Deploys are frozen on Fridays [1]. The company was founded in Boston in 1998 by two engineers [2].\n\n[1] {} - Freeze policy\n[2] {} - Company history\n",
        site.url("/freeze"),
        site.url("/menu")
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_answer(&dir, &text);
    let plain = run(command(&["check".into(), file.clone()], &allow_private())).await;
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let plain = stdout(&plain);
    assert!(!plain.contains("Evidence ("), "{plain}");
    assert!(
        plain.contains("  Judged by the built-in scorer."),
        "{plain}"
    );

    let args = vec!["check".into(), file.clone(), "--evidence".into()];
    let output = run(command(&args, &allow_private())).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let shown = stdout(&output);
    let (report, evidence) = shown
        .split_once("\nEvidence (2 claims checked against their pages):\n")
        .expect("the list under the report");
    assert_eq!(
        format!("{report}\n"),
        plain,
        "the report itself is unchanged"
    );
    assert!(
        evidence.starts_with("  - Deploys are frozen on Fridays [1].\n      1. Freeze policy — supported (built-in scorer)\n"),
        "{evidence}"
    );
    assert!(
        evidence.contains(&format!("         {}\n", site.url("/freeze"))),
        "{evidence}"
    );
    assert!(
        evidence.contains("         \"Deploys are frozen on Fridays"),
        "{evidence}"
    );
    assert!(
        evidence.contains("      2. Company history — not supported (built-in scorer)"),
        "{evidence}"
    );
    assert!(
        evidence.contains("\"The cafeteria opens at nine"),
        "{evidence}"
    );

    // The words the page never mentions, as the JSON gives them.
    let json = run(command(
        &[
            "check".into(),
            file.clone(),
            "--format".into(),
            "json".into(),
        ],
        &allow_private(),
    ))
    .await;
    let report: Value = serde_json::from_str(&stdout(&json)).expect("json");
    let missing: Vec<&str> = report["claims"][1]["support"][0]["missing"]
        .as_array()
        .expect("missing is always in the JSON")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(missing.contains(&"1998"), "{missing:?}");
    assert!(
        evidence.contains(&format!(
            "         does not mention: {}",
            missing.join(", ")
        )),
        "{evidence}"
    );

    let refused = run(command(
        &[
            "check".into(),
            file,
            "--evidence".into(),
            "--format".into(),
            "json".into(),
        ],
        &allow_private(),
    ))
    .await;
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("--evidence"),
        "{}",
        stderr(&refused)
    );
}

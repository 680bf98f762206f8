//! `sourcebot audit` as CI runs it: on a temporary directory of research reports, its
//! exit codes (0 pass, 1 fail, 2 no file or bad usage), its text and JSON output, the
//! worst citations with their reasons, link checking against local servers (private
//! addresses allowed through the documented setting) with the concurrency cap, and the
//! progress line on a terminal.

mod support;

use serde_json::Value;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;
use support::cli::{allow_private, command, have_script, on_terminal, run, stderr, stdout};
use support::{Action, HostileServer, Route};

/// A loopback address of this file's block, 127.5.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(5)
}

/// A research report citing `citations` (text, url) in order.
fn report(citations: &[(&str, Option<&str>)]) -> String {
    let items: Vec<Value> = citations
        .iter()
        .enumerate()
        .map(|(i, (text, url))| {
            let mut item = serde_json::json!({"id": format!("c{}", i + 1), "text": text});
            if let Some(url) = url {
                item["url"] = Value::from(*url);
            }
            item
        })
        .collect();
    serde_json::json!({
        "title": "Report",
        "phase": "final",
        "generatedAt": "2026-11-01T00:00:00Z",
        "citations": items,
    })
    .to_string()
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("dirs");
    }
    std::fs::write(path, text).expect("write report");
}

/// Five citations of high-tier domains, all with URLs.
fn good_report() -> String {
    report(&[
        ("Census figures", Some("https://www.census.gov/data")),
        ("The Rust book", Some("https://doc.rust-lang.org/book/")),
        ("A Nature paper", Some("https://www.nature.com/articles/x1")),
        ("WHO guidance", Some("https://www.who.int/news")),
        (
            "An arXiv preprint",
            Some("https://arxiv.org/abs/2401.00001"),
        ),
    ])
}

fn audit_args(dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["audit".to_string()];
    args.push(dir.to_string_lossy().into_owned());
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn json(output: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(output)).expect("audit JSON")
}

#[tokio::test]
async fn good_reports_pass_with_exit_code_0() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "docs/research/a.json", &good_report());
    write(dir.path(), "docs/research/deep/b.json", &good_report());
    // The default glob, docs/research/**/*.json, from the working directory.
    let mut cmd = command(&["audit".into(), "--no-verify".into()], &[]);
    cmd.current_dir(dir.path());
    let output = run(cmd).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with(
            "PASS  Scanned 2 reports, 10 citations. Coverage: 100.0%. Above threshold: 10/10"
        ),
        "{text}"
    );
    assert!(!text.contains("Worst citations"), "{text}");
}

#[tokio::test]
async fn a_citation_without_url_fails_with_exit_code_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.json", &good_report());
    write(
        dir.path(),
        "b.json",
        &report(&[
            ("Census figures", Some("https://www.census.gov/data")),
            ("Something the agent remembered", None),
        ]),
    );
    let output = run(command(
        &audit_args(dir.path(), &["--no-verify", "--format", "json"]),
        &[],
    ))
    .await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let value = json(&output);
    let metrics = &value["metrics"];
    assert_eq!(value["status"], "fail");
    assert_eq!(metrics["reportsScanned"], 2);
    assert_eq!(metrics["totalCitations"], 7);
    assert_eq!(metrics["citationsWithUrl"], 6);
    assert_eq!(metrics["citationsAboveThreshold"], 6);
    assert_eq!(metrics["belowThresholdCount"], 0);
    assert_eq!(metrics["coverageRate"], 6.0 / 7.0);
    assert_eq!(metrics["aboveThresholdRate"], 1.0);
    assert_eq!(
        value["details"],
        "Scanned 2 reports, 7 citations. Coverage: 85.7%. Above threshold: 6/6"
    );
    let worst = &value["worst"][0];
    assert_eq!(worst["url"], Value::Null);
    assert_eq!(worst["title"], "Something the agent remembered");
    assert!(worst["file"].as_str().unwrap_or("").ends_with("b.json"));
    assert!(worst["reason"].as_str().unwrap_or("").contains("no URL"));
}

#[tokio::test]
async fn low_credibility_citations_fail_and_are_listed_worst_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "a.json",
        &report(&[
            ("Census figures", Some("https://www.census.gov/data")),
            ("A forum thread", Some("https://www.reddit.com/r/rust/x")),
            (
                "A blog nobody knows",
                Some("https://blog.unknown-site.example/p"),
            ),
        ]),
    );
    let output = run(command(&audit_args(dir.path(), &["--no-verify"]), &[])).await;
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.starts_with("FAIL  "), "{text}");
    assert!(text.contains("Above threshold: 1/3"), "{text}");
    let forum = text.find("0.35  ").expect("forum listed");
    let unknown = text.find("0.50  ").expect("unknown listed");
    assert!(forum < unknown, "lowest first: {text}");
    assert!(text.contains("user-generated tier (reddit.com)"), "{text}");
    assert!(text.contains("unknown domain"), "{text}");
    // A lower threshold lets the unknown blog through but not the forum.
    let output = run(command(
        &audit_args(dir.path(), &["--no-verify", "--threshold", "0.4"]),
        &[],
    ))
    .await;
    assert!(stdout(&output).contains("Above threshold: 2/3"));
}

#[tokio::test]
async fn a_glob_matching_nothing_exits_2_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pattern = dir.path().join("reports/**/*.json");
    let pattern = pattern.to_string_lossy().into_owned();
    let output = run(command(&["audit".into(), pattern.clone()], &[])).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(&format!("no file matches {pattern}")),
        "{}",
        stderr(&output)
    );
    // The default glob, named when it is the one that matched nothing.
    let mut cmd = command(&["audit".into()], &[]);
    cmd.current_dir(dir.path());
    let output = run(cmd).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no file matches docs/research/**/*.json"));
}

#[tokio::test]
async fn bad_usage_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.json", &good_report());
    for (extra, says) in [
        (
            vec!["--threshold", "1.5"],
            "--threshold 1.5: expected a number from 0 to 1",
        ),
        (vec!["--threshold", "high"], "--threshold"),
        (vec!["--concurrency", "0"], "--concurrency"),
        (vec!["--format", "yaml"], "--format"),
        (vec!["--timeout", "soon"], "--timeout \"soon\""),
    ] {
        let output = run(command(&audit_args(dir.path(), &extra), &[])).await;
        assert_eq!(output.status.code(), Some(2), "{extra:?}");
        assert!(
            stderr(&output).contains(says),
            "{extra:?}: {}",
            stderr(&output)
        );
    }
    let bad = dir.path().join("r/[x.json").to_string_lossy().into_owned();
    let output = run(command(&["audit".into(), bad], &[])).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("is not a valid glob"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test]
async fn unreadable_files_are_named_and_fail_the_audit() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.json", &good_report());
    write(dir.path(), "b.json", "{\"title\": \"cut off");
    write(
        dir.path(),
        "c.json",
        "{\"citations\": [{\"id\": 1, \"url\": 7}]}",
    );
    let output = run(command(&audit_args(dir.path(), &["--no-verify"]), &[])).await;
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains("Scanned 1 reports, 5 citations"), "{text}");
    assert!(text.contains("Files that could not be read:"), "{text}");
    assert!(text.contains("b.json: invalid JSON"), "{text}");
    assert!(text.contains("c.json:"), "{text}");
}

#[tokio::test]
async fn answer_files_are_audited_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "answer.md",
        "Rust guarantees memory safety [1]. It compiles to native code [2].\n\n\
         [1] https://doc.rust-lang.org/book/ch04-00-understanding-ownership.html - Ownership\n",
    );
    let pattern = dir.path().join("*.md").to_string_lossy().into_owned();
    let output = run(command(
        &[
            "audit".into(),
            pattern,
            "--no-verify".into(),
            "--format".into(),
            "json".into(),
        ],
        &[],
    ))
    .await;
    let value = json(&output);
    // [1] has its reference; [2] is a citation whose source is missing.
    assert_eq!(value["metrics"]["totalCitations"], 2);
    assert_eq!(value["metrics"]["citationsWithUrl"], 1);
    assert!(value["worst"][0]["reason"]
        .as_str()
        .unwrap_or("")
        .contains("[2] is cited but the report lists no source"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_are_checked_and_the_verdict_moves_the_score() {
    let site = HostileServer::start(
        next_ip(),
        vec![("/ok", Route::status(200)), ("/gone", Route::status(404))],
    )
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let (ok, gone) = (site.url("/ok"), site.url("/gone"));
    // Two reports cite the same page: it is probed once.
    write(
        dir.path(),
        "a.json",
        &report(&[("Works", Some(ok.as_str())), ("Gone", Some(gone.as_str()))]),
    );
    write(
        dir.path(),
        "b.json",
        &report(&[("Works", Some(ok.as_str()))]),
    );
    // An IP address scores as an unknown domain (0.5); verified adds 0.05 (the seed
    // rules: the domain tier alone).
    let args = audit_args(dir.path(), &["--threshold", "0.5", "--format", "json"]);
    let mut env = allow_private();
    env.push(("SOURCEBOT_CREDIBILITY", "tiers".to_string()));
    let output = run(command(&args, &env)).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["verified"], true);
    assert_eq!(value["verdicts"]["verified"], 2);
    assert_eq!(value["verdicts"]["broken"], 1);
    assert_eq!(value["metrics"]["citationsAboveThreshold"], 2);
    let worst = &value["worst"][0];
    assert_eq!(worst["url"], gone);
    assert_eq!(worst["verdict"], "broken");
    assert!((worst["credibility"].as_f64().unwrap_or(1.0) - 0.2).abs() < 1e-9);
    assert!(
        worst["reason"]
            .as_str()
            .unwrap_or("")
            .contains("broken: HTTP 404"),
        "{worst}"
    );
    assert_eq!(
        site.requests_to("/ok").len(),
        1,
        "one probe per distinct link"
    );
    // Without checking, the same citations sit at the threshold and fail.
    let output = run(command(
        &audit_args(dir.path(), &["--threshold", "0.5", "--no-verify"]),
        &allow_private(),
    ))
    .await;
    assert!(
        stdout(&output).contains("Above threshold: 0/3"),
        "{}",
        stdout(&output)
    );
    // And private addresses stay blocked unless allowed: blocked scores 0.0.
    let output = run(command(&args, &[])).await;
    let value = json(&output);
    assert_eq!(value["verdicts"]["blocked"], 3);
    assert_eq!(value["metrics"]["citationsAboveThreshold"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_concurrency_cap_holds_and_no_link_is_cut_off() {
    let slow = HostileServer::start(
        next_ip(),
        vec![(
            "/",
            Route::always(Action::status(200).after(Duration::from_millis(300))),
        )],
    )
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let citations: Vec<(String, String)> = (1..=6)
        .map(|i| (format!("Page {i}"), slow.url(&format!("/?page={i}"))))
        .collect();
    let refs: Vec<(&str, Option<&str>)> = citations
        .iter()
        .map(|(t, u)| (t.as_str(), Some(u.as_str())))
        .collect();
    write(dir.path(), "a.json", &report(&refs));
    // 6 links × 300 ms one at a time outlast a chat answer's 1 s + 0.5 s budget; an
    // audit gives each link its own timeout once it has a slot.
    let args = audit_args(
        dir.path(),
        &[
            "--concurrency",
            "1",
            "--timeout",
            "1s",
            "--threshold",
            "0.5",
            "--format",
            "json",
        ],
    );
    let output = run(command(&args, &allow_private())).await;
    let value = json(&output);
    assert_eq!(value["verdicts"]["verified"], 6, "{value}");
    assert_eq!(slow.max_concurrent(), 1);
    assert_eq!(output.status.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_gets_a_progress_line() {
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
    let url = slow.url("/");
    write(
        dir.path(),
        "a.json",
        &report(&[("Slow", Some(url.as_str()))]),
    );
    let terminal = on_terminal(&format!("audit {}", dir.path().display()), &allow_private()).await;
    assert!(terminal.contains("auditing"), "{terminal:?}");
    assert!(terminal.contains("0/1 files"), "{terminal:?}");
    assert!(terminal.contains("links 0/1"), "{terminal:?}");
}

#[tokio::test]
async fn a_deployment_tier_file_changes_the_verdict() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "reports/a.json",
        &report(&[
            ("Census figures", Some("https://www.census.gov/data")),
            ("Our wiki", Some("https://wiki.acme-intranet.example/page")),
        ]),
    );
    let reports = dir.path().join("reports");
    let output = run(command(&audit_args(&reports, &["--no-verify"]), &[])).await;
    assert_eq!(output.status.code(), Some(1), "an unknown domain is 0.5");
    write(dir.path(), "tiers.txt", "[high]\nacme-intranet.example\n");
    let tiers = dir.path().join("tiers.txt").to_string_lossy().into_owned();
    let output = run(command(
        &audit_args(&reports, &["--no-verify"]),
        &[("SOURCEBOT_DOMAIN_TIERS", tiers)],
    ))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

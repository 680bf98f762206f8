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
    // One probe per distinct link; the support check reads the page once more, as
    // `check` would, however many reports cite it.
    let asked = site.requests_to("/ok");
    let count = |method: &str| asked.iter().filter(|m| m.as_str() == method).count();
    assert_eq!(count("HEAD"), 1, "one probe per distinct link: {asked:?}");
    assert!(count("GET") <= 1, "one read per page: {asked:?}");
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

/// A page of `body` in an article, between a menu and a footer.
fn page(body: &str) -> Route {
    Route::always(Action::bytes(
        200,
        &[("content-type", "text/html; charset=utf-8")],
        format!(
            "<html><body><nav>Menu</nav><article>{body}</article><footer>© Acme</footer></body></html>"
        )
        .into_bytes(),
    ))
}

/// What the freeze page says, word for word: never shown by the audit.
const FREEZE_PAGE: &str =
    "Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend.";
/// What the cafeteria page says.
const MENU_PAGE: &str = "The cafeteria opens at nine and serves lunch until two.";

/// A site with a page that supports the freeze claim and one that says nothing of the
/// company's history.
async fn claim_site() -> HostileServer {
    HostileServer::start(
        next_ip(),
        vec![
            ("/freeze", page(&format!("<p>{FREEZE_PAGE}</p>"))),
            ("/menu", page(&format!("<p>{MENU_PAGE}</p>"))),
        ],
    )
    .await
}

/// Three reports on `site`: `a.json` and `c.json` cite the freeze page for what it
/// says; `b.json` cites the cafeteria page for the company's history, and the freeze
/// page again.
fn claim_reports(dir: &Path, site: &HostileServer) {
    let (freeze, menu) = (site.url("/freeze"), site.url("/menu"));
    write(
        dir,
        "a.json",
        &report(&[("Deploys are frozen on Fridays.", Some(freeze.as_str()))]),
    );
    write(
        dir,
        "b.json",
        &report(&[
            ("Deploys are frozen on Fridays.", Some(freeze.as_str())),
            (
                "The company was founded in Boston in 1998 by two engineers.",
                Some(menu.as_str()),
            ),
        ]),
    );
    write(
        dir,
        "c.json",
        &report(&[("Deploys are frozen on Fridays.", Some(freeze.as_str()))]),
    );
}

/// The methods of every request `site` saw.
fn methods(site: &HostileServer) -> Vec<String> {
    site.request_log().into_iter().map(|r| r.method).collect()
}

/// The audit reads each cited page once (however many reports cite it) and judges each
/// claim against it: per report and in all, how many claims the pages support, and the
/// report with the claim its page does not support listed with its citation number.
/// Neither output shows a word of any page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_are_judged_against_the_pages_they_cite() {
    let site = claim_site().await;
    let dir = tempfile::tempdir().expect("tempdir");
    claim_reports(dir.path(), &site);
    let args = audit_args(dir.path(), &["--threshold", "0.1", "--format", "json"]);
    let output = run(command(&args, &allow_private())).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["supportChecked"], true);
    assert_eq!(value["minSupported"], Value::Null);
    assert_eq!(value["failures"], serde_json::json!([]));
    let totals = &value["support"];
    assert_eq!(totals["claims"], 4, "{totals}");
    assert_eq!(totals["judged"], 4, "{totals}");
    assert_eq!(totals["supported"], 3, "{totals}");
    assert_eq!(totals["notSupported"], 1, "{totals}");
    assert_eq!(totals["partlySupported"], 0, "{totals}");
    assert_eq!(totals["unreadable"], 0);
    assert_eq!(totals["notRead"], 0);
    assert_eq!(totals["supportedRate"], 0.75);
    // Each report reads its pages: b.json two, a.json and c.json one each.
    assert_eq!(totals["pagesRead"], 4);
    assert_eq!(totals["pagesSkipped"], 0);
    let reports = value["reports"].as_array().expect("reports");
    let by_file = |name: &str| {
        reports
            .iter()
            .find(|r| r["path"].as_str().unwrap_or_default().ends_with(name))
            .map(|r| r["support"].clone())
            .expect("report")
    };
    assert_eq!(by_file("a.json")["supported"], 1);
    assert_eq!(by_file("a.json")["judged"], 1);
    assert_eq!(by_file("b.json")["supported"], 1);
    assert_eq!(by_file("b.json")["notSupported"], 1);
    assert_eq!(by_file("b.json")["supportedRate"], 0.5);
    let least = value["leastSupported"].as_array().expect("least supported");
    assert_eq!(least.len(), 1, "{value}");
    assert!(least[0]["file"]
        .as_str()
        .unwrap_or_default()
        .ends_with("b.json"));
    assert_eq!(least[0]["notSupported"], 1);
    assert_eq!(least[0]["notSupportedCitations"], serde_json::json!([2]));
    assert_eq!(least[0]["partlySupportedCitations"], serde_json::json!([]));
    assert_eq!(value["leastSupportedOmitted"], 0);
    // One GET per page however many reports cite it: the freeze page is cited three
    // times, in three reports of one chunk.
    let gets = |path: &str| {
        site.requests_to(path)
            .iter()
            .filter(|m| m.as_str() == "GET")
            .count()
    };
    assert_eq!(gets("/freeze"), 1, "{:?}", site.requests_to("/freeze"));
    assert_eq!(gets("/menu"), 1, "{:?}", site.requests_to("/menu"));
    let json_text = stdout(&output);
    for words in ["public holidays", "cafeteria", "Menu"] {
        assert!(!json_text.contains(words), "{words}: {json_text}");
    }

    let args = audit_args(dir.path(), &["--threshold", "0.1"]);
    let output = run(command(&args, &allow_private())).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("\nclaims: 4 of 4 claims judged · ✓ 3 supported · ✗ 1 not supported\n"),
        "{text}"
    );
    assert!(text.contains("\nClaims per report:\n"), "{text}");
    assert!(
        text.contains("b.json: 2 of 2 claims judged · ✓ 1 supported · ✗ 1 not supported\n"),
        "{text}"
    );
    assert!(
        text.contains("a.json: 1 of 1 claim judged · ✓ 1 supported\n"),
        "{text}"
    );
    let least = text
        .split_once("\nLeast supported reports:\n")
        .map(|(_, rest)| rest)
        .expect("the least supported reports");
    assert!(
        least.starts_with("  ✗ 1 ◐ 0 of 2 judged (50% supported)  "),
        "{least}"
    );
    assert!(
        least.contains("b.json\n        not supported [2]\n"),
        "{least}"
    );
    for words in ["public holidays", "cafeteria", "Menu"] {
        assert!(!text.contains(words), "{words}: {text}");
    }
}

/// `--min-supported` passes the audit when at least that share of the judged claims is
/// supported, and fails it (exit 1) with a line saying why when less is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn min_supported_passes_and_fails_the_audit() {
    let site = claim_site().await;
    let dir = tempfile::tempdir().expect("tempdir");
    claim_reports(dir.path(), &site);
    // 3 of 4 judged claims are supported.
    for (min, code) in [("0.75", 0), ("0.5", 0), ("0", 0), ("0.8", 1), ("1", 1)] {
        let args = audit_args(dir.path(), &["--threshold", "0.1", "--min-supported", min]);
        let output = run(command(&args, &allow_private())).await;
        assert_eq!(
            output.status.code(),
            Some(code),
            "{min}: {}",
            stdout(&output)
        );
        let text = stdout(&output);
        assert!(
            text.contains(&format!(
                "\nsupported: 3/4 judged claims (75.0%) · --min-supported {}\n",
                min.parse::<f64>().unwrap_or_default()
            )),
            "{min}: {text}"
        );
        if code == 0 {
            assert!(text.starts_with("PASS  "), "{text}");
            assert!(!text.contains("The audit fails:"), "{text}");
        } else {
            assert!(text.starts_with("FAIL  "), "{text}");
            assert!(
                text.contains(&format!(
                    "The audit fails:\n  - 3 of 4 judged claims are supported (75.0%), below --min-supported {}\n",
                    min.parse::<f64>().unwrap_or_default()
                )),
                "{text}"
            );
        }
    }
    let args = audit_args(
        dir.path(),
        &[
            "--threshold",
            "0.1",
            "--min-supported",
            "0.9",
            "--format",
            "json",
        ],
    );
    let output = run(command(&args, &allow_private())).await;
    assert_eq!(output.status.code(), Some(1));
    let value = json(&output);
    assert_eq!(value["status"], "fail");
    assert_eq!(value["minSupported"], 0.9);
    assert_eq!(
        value["failures"],
        serde_json::json!([
            "3 of 4 judged claims are supported (75.0%), below --min-supported 0.9"
        ])
    );
}

/// `--no-support` (or `SOURCEBOT_SUPPORT=off`) reads no page: the links are probed
/// (HEAD) and nothing else is asked of the site, and the audit says the claims were not
/// judged. `--no-verify` asks the site nothing at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_support_reads_no_page() {
    let site = claim_site().await;
    let dir = tempfile::tempdir().expect("tempdir");
    claim_reports(dir.path(), &site);
    let args = audit_args(
        dir.path(),
        &["--threshold", "0.1", "--no-support", "--format", "json"],
    );
    let output = run(command(&args, &allow_private())).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["verdicts"]["verified"], 4, "{value}");
    assert_eq!(value["supportChecked"], false);
    assert_eq!(value["support"], Value::Null);
    assert_eq!(value["leastSupported"], serde_json::json!([]));
    assert!(value["reports"]
        .as_array()
        .expect("reports")
        .iter()
        .all(|r| r["support"].is_null()));
    // One probe per distinct link, and no page read.
    assert_eq!(methods(&site), ["HEAD", "HEAD"]);

    let mut off = allow_private();
    off.push(("SOURCEBOT_SUPPORT", "off".to_string()));
    let output = run(command(
        &audit_args(dir.path(), &["--threshold", "0.1"]),
        &off,
    ))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(
            "\nclaims: not judged (the cited pages were not read: --no-support, SOURCEBOT_SUPPORT=off, or the support check could not start)\n"
        ),
        "{text}"
    );
    assert!(!text.contains("Claims per report"), "{text}");
    assert_eq!(methods(&site), ["HEAD"; 4]);

    let output = run(command(
        &audit_args(dir.path(), &["--threshold", "0.1", "--no-verify"]),
        &allow_private(),
    ))
    .await;
    let text = stdout(&output);
    assert!(
        text.contains(
            "\nclaims: not judged (the cited pages are read only when links are checked)\n"
        ),
        "{text}"
    );
    assert_eq!(site.requests(), 4, "--no-verify asks nothing");
}

/// `--min-supported` takes a number from 0 to 1, and needs the pages read: with
/// `--no-support`, `--no-verify` or `SOURCEBOT_SUPPORT=off` it is a usage error naming
/// both. No page is asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_min_supported_is_a_usage_error() {
    let site = claim_site().await;
    let dir = tempfile::tempdir().expect("tempdir");
    claim_reports(dir.path(), &site);
    for (extra, says) in [
        (
            vec!["--min-supported", "1.5"],
            "--min-supported 1.5: expected a number from 0 to 1",
        ),
        (
            vec!["--min-supported=-0.1"],
            "--min-supported -0.1: expected a number from 0 to 1",
        ),
        (
            vec!["--min-supported", "NaN"],
            "--min-supported NaN: expected a number from 0 to 1",
        ),
        (
            vec!["--min-supported", "inf"],
            "--min-supported inf: expected a number from 0 to 1",
        ),
        (vec!["--min-supported", "most"], "--min-supported"),
        (vec!["--min-supported", ""], "--min-supported"),
        (
            vec!["--min-supported", "0.8", "--no-support"],
            "--min-supported needs the cited pages read to judge claims, and --no-support reads none",
        ),
        (
            vec!["--no-verify", "--min-supported", "0.8"],
            "--min-supported needs the cited pages read to judge claims, and --no-verify",
        ),
    ] {
        let output = run(command(&audit_args(dir.path(), &extra), &allow_private())).await;
        assert_eq!(output.status.code(), Some(2), "{extra:?}");
        assert!(
            stderr(&output).contains(says),
            "{extra:?}: {}",
            stderr(&output)
        );
        assert!(stdout(&output).is_empty(), "{extra:?}");
    }
    let mut off = allow_private();
    off.push(("SOURCEBOT_SUPPORT", "off".to_string()));
    let output = run(command(
        &audit_args(dir.path(), &["--min-supported", "0.8"]),
        &off,
    ))
    .await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--min-supported needs the cited pages read to judge claims, and SOURCEBOT_SUPPORT=off reads none"),
        "{}",
        stderr(&output)
    );
    assert_eq!(site.requests(), 0, "a usage error asks nothing");
}

/// What the runbook says: read with sourcebot's credentials, never shown by the audit.
const RUNBOOK_SENTENCE: &str =
    "Deploys freeze at 18:00 on Fridays and the freeze lifts at 09:00 on Mondays.";

/// An internal document (a Confluence page, read through its API with sourcebot's
/// credentials) is judged like a web page, and only counted: neither output carries
/// its words. (Its title, which the link check gives, is the source's title as in
/// `check`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn internal_documents_are_counted_never_shown() {
    let page = serde_json::json!({
        "id": "123456", "status": "current", "title": "Freeze calendar",
        "spaceId": "98306", "parentId": "98305", "parentType": "page",
        "authorId": "5b10ac8d82e05b22cc7d4ef5", "createdAt": "2024-03-01T10:00:00.000Z",
        "version": {"number": 7, "message": "", "minorEdit": false},
        "body": {"storage": {
            "value": format!("<h1>Freeze windows</h1><p>{RUNBOOK_SENTENCE}</p>"),
            "representation": "storage"
        }},
        "_links": {"webui": "/spaces/ENG/pages/123456/Deploy+runbook", "tinyui": "/x/QOIB"}
    });
    let site = HostileServer::start(
        next_ip(),
        vec![(
            "/wiki/api/v2/pages/123456",
            Route::always(Action::bytes(
                200,
                &[("content-type", "application/json")],
                page.to_string().into_bytes(),
            )),
        )],
    )
    .await;
    let link = site.url("/wiki/spaces/ENG/pages/123456/Deploy+runbook");
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "a.json",
        &report(&[
            ("Deploys freeze at 18:00 on Fridays.", Some(link.as_str())),
            ("The freeze lifts at 07:30 on Mondays.", Some(link.as_str())),
        ]),
    );
    let mut env = allow_private();
    env.push(("SOURCEBOT_CONFLUENCE_URL", site.url("/")));
    env.push(("SOURCEBOT_CONFLUENCE_EMAIL", "bot@acme.io".to_string()));
    env.push(("SOURCEBOT_CONFLUENCE_TOKEN", "tok-cloud".to_string()));
    // A threshold of 1 lists every citation among the worst, with its title.
    let args = audit_args(dir.path(), &["--threshold", "1", "--format", "json"]);
    let output = run(command(&args, &env)).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let value = json(&output);
    assert_eq!(value["verdicts"]["verified"], 1, "{value}");
    let totals = &value["support"];
    assert_eq!(totals["judged"], 2, "{value}");
    assert_eq!(totals["supported"], 1, "{totals}");
    assert_eq!(
        totals["supported"].as_u64().unwrap_or(0)
            + totals["partlySupported"].as_u64().unwrap_or(0)
            + totals["notSupported"].as_u64().unwrap_or(0),
        2
    );
    let text = run(command(
        &audit_args(dir.path(), &["--threshold", "1"]),
        &env,
    ))
    .await;
    let text = stdout(&text);
    assert!(text.contains("Worst citations:"), "{text}");
    for shown in [stdout(&output), text] {
        for words in [
            "09:00",
            "Freeze windows",
            "lifts at 09",
            "18:00 on Fridays and",
        ] {
            assert!(!shown.contains(words), "{words}: {shown}");
        }
    }
}

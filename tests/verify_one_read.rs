//! One read per page: with the support check on, a cited page's probe is the GET that
//! reads it, so the server sees one request per page; the page cache and the verdict
//! cache agree; a page that hangs costs one budget; and with the check off (the
//! `--no-support` flag, `SOURCEBOT_SUPPORT=off`) no page is read at all. Every server
//! is local, on this file's loopback block, and counts what it is asked.

mod support;

use serde_json::Value;
use sourcebot::config::Config;
use sourcebot::model::{Report, VerdictClass};
use sourcebot::pipeline::Pipeline;
use sourcebot::verify::resolve::StaticLookup;
use sourcebot::verify::Verifier;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::cli::{allow_private, command, run, stderr, stdout};
use support::{Action, HostileServer, Route};

/// A loopback address of this file's block, 127.27.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(27)
}

const FREEZE: &str = "<html><head><title>Freeze policy</title></head><body><article><p>Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend.</p></article></body></html>";

fn page() -> Route {
    Route::text(200, FREEZE)
}

/// The settings from these variables, private addresses allowed.
fn config(vars: &[(&str, &str)]) -> Config {
    let mut vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect();
    vars.insert("SOURCEBOT_VERIFY_ALLOW_PRIVATE".into(), "1".into());
    Config::from_lookup(|name| vars.get(name).cloned()).expect("valid settings")
}

/// A verifier for loopback servers with the settings' caps and timeouts.
fn verifier(config: &Config) -> Verifier {
    Verifier::builder()
        .settings(config.verify.clone())
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier")
}

/// A pipeline with `config` probing through `verifier`.
fn pipeline(config: Config, verifier: &Verifier) -> Pipeline {
    Pipeline::builder()
        .config(config)
        .verifier(verifier.clone())
        .build()
        .expect("pipeline")
}

/// `text` checked by `pipeline`, support check included when it is on.
async fn check(pipeline: &Pipeline, text: &str) -> Report {
    let answer = sourcebot::model::Answer::from_text(text);
    let mut report = pipeline.check(&answer).await;
    pipeline.check_support(&mut report).await;
    report
}

/// The support entries of every claim of `report`.
fn judged(report: &Report) -> usize {
    report.claims.iter().map(|c| c.support.len()).sum()
}

fn freeze_answer(url: &str) -> String {
    format!("Deploys are frozen on Fridays [1].\n\n[1] {url} - Freeze policy\n")
}

#[tokio::test]
async fn a_cited_page_is_requested_once_and_an_uncited_one_only_probed() {
    let site = HostileServer::start(next_ip(), vec![("/freeze", page()), ("/other", page())]).await;
    let config = config(&[]);
    let pipeline = pipeline(config.clone(), &verifier(&config));
    let text = format!(
        "Deploys are frozen on Fridays [1].\n\nSee also {}\n\n[1] {} - Freeze policy\n",
        site.url("/other"),
        site.url("/freeze")
    );
    let report = check(&pipeline, &text).await;
    assert_eq!(judged(&report), 1, "{:?}", report.claims);
    let support = &report.claims[0].support[0];
    assert_eq!(support.verdict.as_str(), "supported", "{support:?}");
    assert_eq!(
        site.requests_to("/freeze"),
        ["GET"],
        "the page was asked twice"
    );
    assert_eq!(
        site.requests_to("/other"),
        ["HEAD"],
        "an uncited page was read"
    );
    assert!(report
        .sources()
        .all(|s| s.verdict.class == VerdictClass::Verified));
}

#[tokio::test]
async fn a_head_refusing_server_costs_one_get() {
    // 405 to HEAD, the page to GET.
    let refusing = Route::new(|request, _| {
        if request.method == "HEAD" {
            Action::status(405)
        } else {
            Action::text(200, FREEZE)
        }
    });
    let site = HostileServer::start(
        next_ip(),
        vec![("/on", refusing.clone()), ("/off", refusing)],
    )
    .await;
    let on = config(&[]);
    let report = check(
        &pipeline(on.clone(), &verifier(&on)),
        &freeze_answer(&site.url("/on")),
    )
    .await;
    assert_eq!(judged(&report), 1);
    assert_eq!(site.requests_to("/on"), ["GET"]);
    // Without the support check the probe is as it was: HEAD, then GET for the status.
    let off = config(&[("SOURCEBOT_SUPPORT", "off")]);
    let report = check(
        &pipeline(off.clone(), &verifier(&off)),
        &freeze_answer(&site.url("/off")),
    )
    .await;
    assert_eq!(judged(&report), 0);
    assert_eq!(site.requests_to("/off"), ["HEAD", "GET"]);
}

#[tokio::test]
async fn the_verdict_cache_and_the_page_cache_agree() {
    let site = HostileServer::start(
        next_ip(),
        vec![("/probed", page()), ("/read", page()), ("/both", page())],
    )
    .await;
    let on = config(&[]);
    let off = config(&[("SOURCEBOT_SUPPORT", "off")]);
    let verifier = verifier(&on);
    let (with_support, without) = (pipeline(on, &verifier), pipeline(off, &verifier));

    // A verdict remembered without its page: the support read later is one GET, not a
    // probe and a read; concurrent reads of it share that GET; then nothing more.
    let text = freeze_answer(&site.url("/probed"));
    check(&without, &text).await;
    assert_eq!(site.requests_to("/probed"), ["HEAD"]);
    let (a, b) = tokio::join!(check(&with_support, &text), check(&with_support, &text));
    assert_eq!((judged(&a), judged(&b)), (1, 1));
    assert_eq!(site.requests_to("/probed"), ["HEAD", "GET"]);
    check(&with_support, &text).await;
    assert_eq!(site.requests_to("/probed"), ["HEAD", "GET"]);

    // A page read settles its link's verdict: no probe follows.
    let url = site.url("/read");
    assert!(verifier.fetch_page(&url).await.page().is_some());
    let report = check(&without, &freeze_answer(&url)).await;
    assert_eq!(site.requests_to("/read"), ["GET"]);
    assert!(report
        .sources()
        .all(|s| s.verdict.class == VerdictClass::Verified));
    assert_eq!(report.verification.counts.verified, 1);

    // A page read by its probe is found by the support check and by later checks.
    let text = freeze_answer(&site.url("/both"));
    check(&with_support, &text).await;
    check(&without, &text).await;
    check(&with_support, &text).await;
    assert_eq!(site.requests_to("/both"), ["GET"]);
}

#[tokio::test]
async fn a_hanging_page_costs_one_budget_not_two() {
    let site = HostileServer::start(
        next_ip(),
        vec![
            (
                "/trickle",
                Route::always(Action::Trickle(Duration::from_millis(100))),
            ),
            ("/stall", Route::always(Action::HeadersThenStall)),
            ("/hang", Route::always(Action::Hang)),
        ],
    )
    .await;
    let config = config(&[
        ("SOURCEBOT_VERIFY_TIMEOUT", "1s"),
        ("SOURCEBOT_FETCH_TIMEOUT", "5s"),
    ]);
    let pipeline = pipeline(config.clone(), &verifier(&config));
    let text = format!(
        "Deploys are frozen on Fridays [1]. Deploys stop on Fridays [2]. Nobody deploys on Fridays [3].\n\n[1] {} - Trickle\n[2] {} - Stall\n[3] {} - Hang\n",
        site.url("/trickle"),
        site.url("/stall"),
        site.url("/hang")
    );
    let started = Instant::now();
    let report = check(&pipeline, &text).await;
    let elapsed = started.elapsed();
    for path in ["/trickle", "/stall", "/hang"] {
        assert_eq!(site.requests_to(path), ["GET"], "{path}");
    }
    // The two that answered are verified and unreadable within the probe's own second;
    // the silent one timed out and is not read at all.
    let reasons: Vec<String> = report
        .claims
        .iter()
        .flat_map(|c| &c.support)
        .map(|s| s.reason.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        reasons,
        [
            "the page did not finish arriving within 1 s",
            "the page did not finish arriving within 1 s"
        ],
        "{:?}",
        report.claims
    );
    let classes: Vec<VerdictClass> = report.sources().map(|s| s.verdict.class).collect();
    assert_eq!(
        classes,
        [
            VerdictClass::Verified,
            VerdictClass::Verified,
            VerdictClass::TimedOut
        ]
    );
    // One budget (1 s), not the probe's and then the page fetch's (1 s + 5 s).
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
}

#[tokio::test]
async fn a_page_read_by_its_probe_keeps_the_caps_and_the_guard() {
    // Over the size cap: read up to it, marked truncated, verdict from the status.
    let big = "<p>Deploys are frozen on Fridays.</p>".repeat(10_000);
    let site = HostileServer::start(next_ip(), vec![("/big", Route::text(200, &big))]).await;
    let config = config(&[("SOURCEBOT_FETCH_MAX_BYTES", "65536")]);
    let verifier = verifier(&config);
    let report = check(
        &pipeline(config.clone(), &verifier),
        &freeze_answer(&site.url("/big")),
    )
    .await;
    assert_eq!(site.requests_to("/big"), ["GET"]);
    assert_eq!(judged(&report), 1);
    let read = verifier.fetch_page(&site.url("/big")).await;
    assert!(read.page().is_some_and(|p| p.truncated), "{read:?}");
    assert_eq!(site.requests_to("/big"), ["GET"]);

    // A redirect to a private address: blocked, and the internal server sees nothing.
    let internal = HostileServer::start(
        IpAddr::V4(Ipv4Addr::LOCALHOST),
        vec![("/", Route::text(200, "<p>secret</p>"))],
    )
    .await;
    let target = format!("http://127.0.0.1:{}/", internal.addr().port());
    let public = HostileServer::start(next_ip(), vec![("/", Route::redirect(302, &target))]).await;
    let guarded = Verifier::builder()
        .allow_socket(public.addr())
        .read_pages(20)
        .lookup(Arc::new(StaticLookup::new()))
        .build()
        .expect("verifier");
    let strict = Pipeline::builder()
        .config(Config::default())
        .verifier(guarded.clone())
        .build()
        .expect("pipeline");
    let report = check(&strict, &freeze_answer(&public.url("/"))).await;
    let verdict = &report.sources().next().expect("a source").verdict;
    assert_eq!(verdict.class, VerdictClass::Blocked, "{verdict:?}");
    assert_eq!(public.requests_to("/"), ["GET"]);
    assert_eq!(
        internal.connections(),
        0,
        "a read reached the internal server"
    );
    assert!(guarded
        .fetch_page(&public.url("/"))
        .await
        .unreadable_reason()
        .is_some_and(|r| r.starts_with("redirected to")));
    assert_eq!(
        public.requests_to("/"),
        ["GET"],
        "a blocked page was asked again"
    );
}

#[tokio::test]
async fn support_off_reads_no_page_in_the_pipeline() {
    let site = HostileServer::start(next_ip(), vec![("/freeze", page())]).await;
    let off = config(&[("SOURCEBOT_SUPPORT", "off")]);
    // The serve and API paths: the pipeline built from the settings.
    let pipeline = Pipeline::builder().config(off).build().expect("pipeline");
    assert!(!pipeline.checks_support());
    let answer = sourcebot::model::Answer::from_text(freeze_answer(&site.url("/freeze")));
    let mut report = pipeline.check(&answer).await;
    assert!(pipeline.check_support(&mut report).await.is_none());
    assert_eq!(judged(&report), 0);
    assert_eq!(site.requests_to("/freeze"), ["HEAD"]);
}

/// `sourcebot check` and `sourcebot audit` from the command line: with the support
/// check on, the cited page is one GET; `--no-support` and `SOURCEBOT_SUPPORT=off`
/// probe it with HEAD only and judge nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_support_and_support_off_read_no_page_from_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut off = allow_private();
    off.push(("SOURCEBOT_SUPPORT", "off".into()));
    for (name, extra, env) in [
        ("on", None, allow_private()),
        ("flag", Some("--no-support"), allow_private()),
        ("env", None, off),
    ] {
        let site = HostileServer::start(next_ip(), vec![("/freeze", page())]).await;
        let file = dir.path().join(format!("{name}.md"));
        std::fs::write(&file, freeze_answer(&site.url("/freeze"))).expect("write");
        let file = file.display().to_string();
        let mut args = vec![
            "check".to_string(),
            file.clone(),
            "--format".into(),
            "json".into(),
        ];
        args.extend(extra.map(str::to_string));
        let output = run(command(&args, &env)).await;
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        let report: Value = serde_json::from_str(&stdout(&output)).expect("json");
        let support = report["claims"][0].get("support");
        if name == "on" {
            assert_eq!(site.requests_to("/freeze"), ["GET"], "{name}");
            assert_eq!(support.and_then(|s| s.as_array()).map(Vec::len), Some(1));
            continue;
        }
        assert_eq!(site.requests_to("/freeze"), ["HEAD"], "{name}");
        assert!(support.is_none(), "{name}: {report}");
        // The audit reads no page either.
        let mut args = vec!["audit".to_string(), file, "--format".into(), "json".into()];
        args.extend(extra.map(str::to_string));
        let output = run(command(&args, &env)).await;
        assert!(
            output.status.code().is_some_and(|c| c <= 1),
            "{name}: {}",
            stderr(&output)
        );
        assert_eq!(site.requests_to("/freeze"), ["HEAD", "HEAD"], "{name}");
    }
}

//! `sourcebot mcp` end to end over standard input and output, driven by the SDK's own
//! client (rmcp's `TokioChildProcess` spawning the binary in an empty directory, with no
//! environment but the settings each test gives): the three tools listed with input and
//! output schemas that are valid JSON Schema and the read-only and open-world
//! annotations; `check_answer` on an answer citing hostile local pages (one supporting
//! its claim, one giving another figure, a 404, a 500, a slow one and a hanging one),
//! its result valid against its output schema and the same, link by link and claim by
//! claim, as `sourcebot check --format json` on the same answer; `check_links` and
//! `judge_claims` against the check and `sourcebot support`; bad inputs refused as tool
//! errors naming what was wrong, the session going on after them; loopback links
//! blocked unless allowed; progress while links are checked; a call cancelled or
//! dropped stops probing a page that never answers, and the server answers the next
//! call; and the process exits on its own when the client closes. Every server is on
//! this file's loopback block (127.36.x.y).

#[path = "mcp/common.rs"]
mod mcp;
mod support;

use mcp::{Client, GiveUp, Recorder, Silent, Web, QUICK};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::Stdio;
use support::{HostileServer, Route};

/// A loopback address of this file's block, 127.36.x.y.
fn next_ip() -> IpAddr {
    support::next_ip(36)
}

/// `sourcebot mcp` as a child process, and rmcp's client talking to it.
struct Server {
    client: Client,
    dir: tempfile::TempDir,
}

impl Server {
    /// Starts `sourcebot mcp` with `envs` in an empty directory (no `.env` read), its
    /// standard error in a file there, and initializes the client.
    async fn start(envs: &[(&'static str, String)]) -> Server {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let log = std::fs::File::create(dir.path().join("stderr.log")).expect("a log file");
        let mut command = tokio::process::Command::new(mcp::program());
        command
            .arg("mcp")
            .current_dir(dir.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
            .kill_on_drop(true);
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(log)
            .spawn()
            .expect("start sourcebot mcp");
        let client = tokio::time::timeout(QUICK, Recorder::default().serve(transport))
            .await
            .expect("sourcebot mcp initializes in time")
            .unwrap_or_else(|e| {
                panic!(
                    "sourcebot mcp initializes: {e}; stderr: {}",
                    stderr_of(&dir)
                )
            });
        Server { client, dir }
    }

    /// What the server wrote to standard error so far.
    fn stderr(&self) -> String {
        stderr_of(&self.dir)
    }

    /// Closes the client (and with it the server's standard input).
    async fn close(self) {
        let stderr = self.stderr();
        let closed = tokio::time::timeout(QUICK, self.client.cancel()).await;
        assert!(
            closed.is_ok(),
            "the client did not close in time; stderr: {stderr}"
        );
        assert!(
            !stderr.contains("panicked"),
            "the server panicked: {stderr}"
        );
    }
}

fn stderr_of(dir: &tempfile::TempDir) -> String {
    std::fs::read_to_string(dir.path().join("stderr.log")).unwrap_or_default()
}

/// A server whose `/ok` answers 200.
async fn ok_site() -> HostileServer {
    HostileServer::start(next_ip(), vec![("/ok", Route::status(200))]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_the_three_tools_with_their_schemas_and_annotations() {
    let server = Server::start(&mcp::settings(true)).await;
    let schemas = mcp::tools_are_listed(&server.client).await;
    assert_eq!(schemas.len(), 3);
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_answer_agrees_with_sourcebot_check_on_hostile_pages() {
    let web = Web::start(next_ip).await;
    let envs = mcp::settings(true);
    let server = Server::start(&envs).await;
    mcp::hostile_answer_agrees_with_check(&server.client, &web, server.dir.path(), &envs).await;
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_links_and_judge_claims_agree_with_the_command_line() {
    let web = Web::start(next_ip).await;
    let envs = mcp::settings(true);
    let server = Server::start(&envs).await;
    mcp::links_and_claims_agree_with_the_command_line(
        &server.client,
        &web,
        server.dir.path(),
        &envs,
    )
    .await;
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_are_tool_errors_and_the_session_goes_on() {
    let site = ok_site().await;
    let server = Server::start(&mcp::settings(true)).await;
    mcp::bad_inputs_are_refused(&server.client, &site.url("/ok")).await;
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_links_are_blocked_unless_allowed() {
    let site = ok_site().await;
    let server = Server::start(&mcp::settings(false)).await;
    mcp::loopback_is_blocked(&server.client, &site).await;
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_is_reported_while_links_are_checked() {
    let slow = mcp::slow_sites(next_ip).await;
    let server = Server::start(&mcp::settings(true)).await;
    mcp::progress_is_reported(&server.client, &slow).await;
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_stops_probing_and_the_server_goes_on() {
    let silent = Silent::start(next_ip()).await;
    let site = ok_site().await;
    let server = Server::start(&mcp::patient_settings()).await;
    mcp::giving_up_stops_the_probe(&server.client, &silent, &site.url("/ok"), GiveUp::Cancel).await;
    server.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_stops_probing_and_the_server_goes_on() {
    let silent = Silent::start(next_ip()).await;
    let site = ok_site().await;
    let server = Server::start(&mcp::patient_settings()).await;
    mcp::giving_up_stops_the_probe(&server.client, &silent, &site.url("/ok"), GiveUp::Drop).await;
    server.close().await;
}

/// `sourcebot mcp` started in `dir` with `extra` settings, its standard error to `log`,
/// held by the test itself (not by `TokioChildProcess`), and rmcp's client over its
/// pipes.
async fn spawn_held(
    dir: &std::path::Path,
    log: &std::path::Path,
    extra: &[(&str, &str)],
) -> (tokio::process::Child, Client) {
    let mut child = tokio::process::Command::new(mcp::program())
        .arg("mcp")
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(mcp::settings(true).iter().map(|(k, v)| (*k, v.clone())))
        .envs(extra.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).expect("a log file"))
        .kill_on_drop(true)
        .spawn()
        .expect("start sourcebot mcp");
    let stdin = child.stdin.take().expect("its standard input");
    let stdout = child.stdout.take().expect("its standard output");
    let client = tokio::time::timeout(QUICK, Recorder::default().serve((stdout, stdin)))
        .await
        .expect("initializes in time")
        .expect("initializes");
    (child, client)
}

/// rmcp's `TokioChildProcess` kills a server that has not exited 3 s after its input
/// closed, which would hide one that never exits; this test holds the child itself,
/// talks to it with the same client over its pipes, closes them, and waits for the
/// process to exit on its own, successfully.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_process_exits_when_the_client_closes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log: PathBuf = dir.path().join("stderr.log");
    let (mut child, client) = spawn_held(dir.path(), &log, &[]).await;
    assert_eq!(mcp::list_tools(&client).await.len(), 3);
    tokio::time::timeout(QUICK, client.cancel())
        .await
        .expect("the client closes in time")
        .expect("the client closes");
    let status = tokio::time::timeout(QUICK, child.wait())
        .await
        .unwrap_or_else(|_| {
            panic!(
                "sourcebot mcp still runs {QUICK:?} after its input closed; stderr: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            )
        })
        .expect("wait for sourcebot mcp");
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.success(), "{status}; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// What a call carries (an answer, evidence a tool judged) never reaches the log, even
/// at `RUST_LOG=debug`: the SDK logs every request and result whole at debug level and
/// the HTML parser logs page text, and sourcebot holds both back.
#[tokio::test]
async fn nothing_a_call_carries_is_logged_even_at_debug() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log: PathBuf = dir.path().join("stderr.log");
    let (mut child, client) = spawn_held(dir.path(), &log, &[("RUST_LOG", "debug")]).await;
    let secret = "Zanzibar-7731 quarterly payroll figure";
    let result = mcp::call(
        &client,
        "judge_claims",
        serde_json::json!({"claims": [{"claim": format!("The {secret} is final."), "evidence": format!("Internal: the {secret} is final.")}]}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result:#}");
    let page = "<html><body><p>Zanzibar-7731 page text.</p></body></html>";
    let site = HostileServer::start(next_ip(), vec![("/p", Route::text(200, page))]).await;
    let answer = format!(
        "The Zanzibar-7731 page says so [1].\n\n[1] {} - Page",
        site.url("/p")
    );
    let result = mcp::call(
        &client,
        "check_answer",
        serde_json::json!({"answer": answer}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result:#}");
    tokio::time::timeout(QUICK, client.cancel())
        .await
        .expect("the client closes in time")
        .expect("the client closes");
    let _ = tokio::time::timeout(QUICK, child.wait()).await;
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!stderr.is_empty(), "debug logging is on and says something");
    assert!(
        !stderr.contains("Zanzibar"),
        "content reached the log: {stderr}"
    );
}

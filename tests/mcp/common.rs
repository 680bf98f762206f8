//! What the MCP server's end-to-end tests share (tests/mcp_stdio.rs over standard input
//! and output, tests/mcp_http.rs over streamable HTTP): a handler for rmcp's own client
//! that records the progress it is sent; tool calls bounded in time, their results as
//! the JSON on the wire; the checks every tool listing and every result must pass, JSON
//! Schema included; a web of hostile local pages (one that supports its claim, one
//! that gives another figure, a 404, a 500, a slow one and a hanging one) with an
//! answer citing them all; a server that never answers and tells when its connections
//! close; and `sourcebot check` and `sourcebot support` run on the same input, for
//! comparison.

use crate::support::{Action, HostileServer, Route};
use rmcp::model::{CallToolRequestParams, ClientRequest, ProgressNotificationParam, Request};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestHandle, RunningService};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

/// The tools, in the order they are listed.
pub const TOOLS: [&str; 3] = ["check_answer", "check_links", "judge_claims"];

/// The longest a quick call may take: a listing, a refused input, links that answer at
/// once.
pub const QUICK: Duration = Duration::from_secs(10);

/// The longest a check of the hostile web may take: its hanging page costs one probe
/// timeout ([`VERIFY_TIMEOUT`]), the rest answer within a second.
pub const CHECK: Duration = Duration::from_secs(30);

/// How long a cancelled call may keep its connection to a page that never answers.
pub const CANCEL_CLOSES: Duration = Duration::from_secs(5);

/// The probe timeout of these tests (`SOURCEBOT_VERIFY_TIMEOUT`): what the hanging
/// page costs.
pub const VERIFY_TIMEOUT: &str = "2s";

/// The probe, fetch and support timeouts of the cancellation tests: far longer than
/// [`CANCEL_CLOSES`], so that only the cancellation can close a connection in time.
pub const LONG_TIMEOUT: &str = "60s";

/// Most sources or links in one call (`SOURCEBOT_API_MAX_SOURCES`); the hostile answer
/// has six.
pub const MAX_SOURCES: usize = 10;

/// The settings `sourcebot mcp` and `sourcebot check` run with here: the probe timeout,
/// the source limit, and loopback links allowed when `allow_private`.
pub fn settings(allow_private: bool) -> Vec<(&'static str, String)> {
    let mut settings = vec![
        ("SOURCEBOT_VERIFY_TIMEOUT", VERIFY_TIMEOUT.to_string()),
        ("SOURCEBOT_API_MAX_SOURCES", MAX_SOURCES.to_string()),
    ];
    if allow_private {
        settings.push(("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1".to_string()));
    }
    settings
}

/// The settings of the cancellation tests: loopback links allowed, and every timeout
/// [`LONG_TIMEOUT`].
pub fn patient_settings() -> Vec<(&'static str, String)> {
    vec![
        ("SOURCEBOT_VERIFY_ALLOW_PRIVATE", "1".to_string()),
        ("SOURCEBOT_VERIFY_TIMEOUT", LONG_TIMEOUT.to_string()),
        ("SOURCEBOT_FETCH_TIMEOUT", LONG_TIMEOUT.to_string()),
        ("SOURCEBOT_SUPPORT_TIMEOUT", LONG_TIMEOUT.to_string()),
        ("SOURCEBOT_API_TIMEOUT", LONG_TIMEOUT.to_string()),
        ("SOURCEBOT_API_MAX_SOURCES", MAX_SOURCES.to_string()),
    ]
}

// ---------------------------------------------------------------------------------------
// The client

/// The client's handler: records every progress notification it is sent.
#[derive(Clone, Default)]
pub struct Recorder {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl Recorder {
    /// The progress notifications received so far, in order.
    pub fn progress(&self) -> Vec<ProgressNotificationParam> {
        self.progress
            .lock()
            .map(|seen| seen.clone())
            .unwrap_or_default()
    }

    /// Waits up to `limit` for a first progress notification; all received by then.
    pub async fn progress_within(&self, limit: Duration) -> Vec<ProgressNotificationParam> {
        let started = Instant::now();
        loop {
            let seen = self.progress();
            if !seen.is_empty() || started.elapsed() >= limit {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Ok(mut seen) = self.progress.lock() {
            seen.push(params);
        }
    }
}

/// A running rmcp client with the [`Recorder`].
pub type Client = RunningService<RoleClient, Recorder>;

/// The listed tools, as the JSON on the wire.
pub async fn list_tools(client: &Client) -> Vec<Value> {
    let tools = tokio::time::timeout(QUICK, client.list_all_tools())
        .await
        .expect("tools/list answers in time")
        .expect("tools/list succeeds");
    tools
        .iter()
        .map(|tool| serde_json::to_value(tool).expect("a tool is JSON"))
        .collect()
}

/// The `tools/call` request for `name` with `arguments` (an object).
pub fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("the arguments of a tool call are an object: {arguments}");
    };
    CallToolRequestParams::new(name.to_string()).with_arguments(arguments)
}

/// Calls `name` with `arguments` and returns its result as the JSON on the wire, within
/// `limit`. A protocol error fails the test: a bad input must be a tool result.
pub async fn call_within(client: &Client, limit: Duration, name: &str, arguments: Value) -> Value {
    let call = client.call_tool(params(name, arguments.clone()));
    let result = tokio::time::timeout(limit, call)
        .await
        .unwrap_or_else(|_| panic!("{name} did not answer within {limit:?}: {arguments}"))
        .unwrap_or_else(|e| panic!("{name} failed as a protocol error: {e}; {arguments}"));
    serde_json::to_value(&result).expect("a result is JSON")
}

/// Calls `name` with `arguments` within [`QUICK`].
pub async fn call(client: &Client, name: &str, arguments: Value) -> Value {
    call_within(client, QUICK, name, arguments).await
}

/// Sends `tools/call` for `name` and returns the handle, to cancel it or wait for it.
pub async fn start_call(
    client: &Client,
    name: &str,
    arguments: Value,
) -> RequestHandle<RoleClient> {
    let request = ClientRequest::CallToolRequest(Request::new(params(name, arguments)));
    client
        .peer()
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .expect("the call is sent")
}

/// The structured content of a successful result, which must also carry one text block
/// (the summary for models that read only text).
pub fn structured(result: &Value) -> &Value {
    assert_ne!(result["isError"], true, "an error: {result:#}");
    let content = result["content"].as_array().expect("content is a list");
    assert!(
        content.iter().any(|block| block["type"] == "text"
            && block["text"].as_str().is_some_and(|t| !t.trim().is_empty())),
        "no text summary in {result:#}"
    );
    let structured = &result["structuredContent"];
    assert!(structured.is_object(), "no structuredContent in {result:#}");
    structured
}

/// The one sentence of a refused call, which must be a tool result with `isError`
/// (never a protocol error) and one text block naming what was wrong.
pub fn refusal(result: &Value) -> String {
    assert_eq!(result["isError"], true, "not refused: {result:#}");
    let content = result["content"].as_array().expect("content is a list");
    assert_eq!(content.len(), 1, "one text block: {result:#}");
    assert_eq!(content[0]["type"], "text", "{result:#}");
    let text = content[0]["text"].as_str().unwrap_or_default().to_string();
    assert!(!text.trim().is_empty(), "an empty refusal: {result:#}");
    assert!(
        text.trim().lines().count() == 1,
        "one sentence, one line: {text:?}"
    );
    text
}

// ---------------------------------------------------------------------------------------
// The tools' listing and schemas

/// Checks the listing: exactly the three tools, each with a description, an input and
/// an output schema that are JSON Schema objects, and the read-only annotation; the
/// tools that reach the web say open-world, `judge_claims` (which fetches nothing) says
/// it does not. Returns each tool's output schema by name.
pub fn assert_tool_listing(tools: &[Value]) -> HashMap<String, Value> {
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    let mut expected = TOOLS.to_vec();
    expected.sort_unstable();
    assert_eq!(sorted, expected, "exactly the three tools: {names:?}");
    let mut outputs = HashMap::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or_default();
        assert!(
            tool["description"]
                .as_str()
                .is_some_and(|d| d.trim().len() > 40),
            "{name}: no description for a model to read: {tool:#}"
        );
        for key in ["inputSchema", "outputSchema"] {
            assert_object_schema(name, key, &tool[key]);
        }
        let annotations = &tool["annotations"];
        assert_eq!(annotations["readOnlyHint"], true, "{name}: {tool:#}");
        let reaches_the_web = name != "judge_claims";
        assert_eq!(
            annotations["openWorldHint"], reaches_the_web,
            "{name}: open-world exactly when it reaches the web: {tool:#}"
        );
        outputs.insert(name.to_string(), tool["outputSchema"].clone());
    }
    for (tool, field) in [
        ("check_answer", "answer"),
        ("check_links", "urls"),
        ("judge_claims", "claims"),
    ] {
        let input = tools
            .iter()
            .find(|t| t["name"] == tool)
            .map(|t| &t["inputSchema"])
            .expect("listed");
        assert!(
            input["properties"].get(field).is_some(),
            "{tool}: no {field:?} in {input:#}"
        );
        assert!(
            input["required"]
                .as_array()
                .is_some_and(|r| r.iter().any(|f| f == field)),
            "{tool}: {field:?} is not required in {input:#}"
        );
    }
    outputs
}

/// `schema` is a valid JSON Schema for objects with named properties.
fn assert_object_schema(tool: &str, key: &str, schema: &Value) {
    assert_eq!(schema["type"], "object", "{tool}.{key}: {schema:#}");
    assert!(
        schema["properties"].is_object(),
        "{tool}.{key} has no properties: {schema:#}"
    );
    if let Err(error) = jsonschema::meta::validate(schema) {
        panic!("{tool}.{key} is not valid JSON Schema: {error}\n{schema:#}");
    }
    let validator = jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("{tool}.{key} does not compile: {e}\n{schema:#}"));
    assert!(
        !validator.is_valid(&json!({})),
        "{tool}.{key} requires no field: {schema:#}"
    );
}

/// `instance` (a result's structured content) is valid against `schema` (its tool's
/// output schema).
pub fn assert_valid(tool: &str, schema: &Value, instance: &Value) {
    let validator = jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("{tool}: the output schema does not compile: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{tool}: the result does not match its output schema:\n{}\n{instance:#}",
        errors.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// The hostile web

/// A page that supports "Deploys are frozen on Fridays".
pub const FREEZE_PAGE: &str = "<html><head><title>Freeze policy</title></head><body><article><p>Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend.</p></article></body></html>";

/// A page that gives the maintenance window as 16:00 UTC.
pub const WINDOW_PAGE: &str = "<html><head><title>Maintenance window</title></head><body><article><p>The weekly maintenance window of the payments database starts every Tuesday at 16:00 UTC and lasts two hours.</p></article></body></html>";

/// The page the slow server sends, after [`SLOW`].
pub const ROLLBACK_PAGE: &str = "<html><head><title>Rollbacks</title></head><body><article><p>Every rollback of the payments service is announced in the incident channel before it starts.</p></article></body></html>";

/// How long the slow page waits before answering: well within [`VERIFY_TIMEOUT`].
pub const SLOW: Duration = Duration::from_millis(300);

/// The claim the answer makes with a figure and no citation.
pub const UNCITED: &str = "Refunds take 12 business days to reach the customer.";

/// Six pages, each on a loopback address of its own, and an answer citing them all.
pub struct Web {
    /// `/freeze`: supports its claim.
    pub supports: HostileServer,
    /// `/window`: gives 16:00 UTC where the claim says 14:00 UTC.
    pub contradicts: HostileServer,
    /// `/gone`: 404.
    pub gone: HostileServer,
    /// `/down`: 500.
    pub down: HostileServer,
    /// `/slow`: the page after [`SLOW`].
    pub slow: HostileServer,
    /// `/hang`: never answers.
    pub hangs: HostileServer,
}

/// What `sourcebot check` must say of each page of the [`Web`].
pub const EXPECTED: [(&str, &str); 6] = [
    ("/freeze", "verified"),
    ("/window", "verified"),
    ("/gone", "broken"),
    ("/down", "server_error"),
    ("/slow", "verified"),
    ("/hang", "timed_out"),
];

impl Web {
    /// The six pages, on addresses from `next_ip`.
    pub async fn start(next_ip: impl Fn() -> IpAddr) -> Web {
        Web {
            supports: HostileServer::start(
                next_ip(),
                vec![("/freeze", Route::text(200, FREEZE_PAGE))],
            )
            .await,
            contradicts: HostileServer::start(
                next_ip(),
                vec![("/window", Route::text(200, WINDOW_PAGE))],
            )
            .await,
            gone: HostileServer::start(next_ip(), vec![("/gone", Route::status(404))]).await,
            down: HostileServer::start(next_ip(), vec![("/down", Route::status(500))]).await,
            slow: HostileServer::start(
                next_ip(),
                vec![(
                    "/slow",
                    Route::always(Action::text(200, ROLLBACK_PAGE).after(SLOW)),
                )],
            )
            .await,
            hangs: HostileServer::start(next_ip(), vec![("/hang", Route::always(Action::Hang))])
                .await,
        }
    }

    /// The URL of the page at `path` (one of [`EXPECTED`]'s).
    pub fn url(&self, path: &str) -> String {
        let server = match path {
            "/freeze" => &self.supports,
            "/window" => &self.contradicts,
            "/gone" => &self.gone,
            "/down" => &self.down,
            "/slow" => &self.slow,
            "/hang" => &self.hangs,
            other => panic!("no page {other}"),
        };
        server.url(path)
    }

    /// Every page's URL, in [`EXPECTED`]'s order.
    pub fn urls(&self) -> Vec<String> {
        EXPECTED.iter().map(|(path, _)| self.url(path)).collect()
    }

    /// The answer: a claim citing each page, the maintenance window at 14:00 UTC where
    /// its page says 16:00 UTC, and [`UNCITED`] citing nothing.
    pub fn answer(&self) -> String {
        format!(
            "Deploys are frozen on Fridays [1]. The weekly maintenance window of the payments \
             database starts every Tuesday at 14:00 UTC [2]. The old runbook moved [3]. The \
             status page is down [4]. Every rollback of the payments service is announced in \
             the incident channel [5]. The audit log is kept for a year [6]. {UNCITED}\n\n\
             [1] {} - Freeze policy\n[2] {} - Maintenance window\n[3] {} - Old runbook\n\
             [4] {} - Status\n[5] {} - Rollbacks\n[6] {} - Audit log\n",
            self.url("/freeze"),
            self.url("/window"),
            self.url("/gone"),
            self.url("/down"),
            self.url("/slow"),
            self.url("/hang"),
        )
    }
}

/// Two claims for `judge_claims` and `sourcebot support`: one its evidence supports,
/// one whose evidence gives another time.
pub fn claims_to_judge() -> Vec<Value> {
    vec![
        json!({
            "claim": "Deploys are frozen on Fridays.",
            "evidence": "Deploys are frozen on Fridays and during public holidays, so that nobody is paged at the weekend.",
        }),
        json!({
            "claim": "The weekly maintenance window of the payments database starts every Tuesday at 14:00 UTC.",
            "evidence": ["The weekly maintenance window of the payments database starts every Tuesday at 16:00 UTC and lasts two hours."],
        }),
    ]
}

// ---------------------------------------------------------------------------------------
// Comparing with the command line

/// Checks `check_answer`'s structured content against `sourcebot check --format json`
/// on the same answer (`report`): the same sources with the same verdict class, reason
/// and status per link, the same confidence, every claim a cited page does not fully
/// support with the same verdict, quote, `missing` and `differs`, and the claims that
/// cite nothing.
pub fn assert_same_as_check(output: &Value, report: &Value) {
    let cli_sources: Vec<&Value> = report["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["sources"].as_array().into_iter().flatten())
        .collect();
    let sources = output["sources"].as_array().expect("sources");
    assert_eq!(
        sources.len(),
        cli_sources.len(),
        "the same sources as the check:\n{output:#}\n{report:#}"
    );
    for cli in &cli_sources {
        let url = &cli["url"];
        let mine = sources
            .iter()
            .find(|s| &s["url"] == url)
            .unwrap_or_else(|| panic!("{url} missing from {output:#}"));
        assert_eq!(mine["verdict"], cli["verdict"]["class"], "{url}: {mine:#}");
        assert_eq!(mine["kind"], cli["kind"], "{url}: {mine:#}");
        assert_eq!(mine["id"], cli["id"], "{url}: {mine:#}");
        assert_eq!(
            mine["reason"],
            cli["verdict"]["reason"].as_str().unwrap_or_default(),
            "{url}: {mine:#}"
        );
        assert_eq!(
            mine["status_code"],
            cli["verdict"]
                .get("status_code")
                .cloned()
                .unwrap_or(Value::Null),
            "{url}: {mine:#}"
        );
    }
    let confidence = &output["confidence"];
    assert_eq!(
        confidence["label"], report["confidence"]["label"],
        "{output:#}"
    );
    let (mine, theirs) = (
        confidence["value"].as_f64().expect("a confidence value"),
        report["confidence"]["value"]
            .as_f64()
            .expect("the check's confidence"),
    );
    assert!(
        (mine - theirs).abs() < 1e-9,
        "confidence {mine} against the check's {theirs}"
    );

    let claims = report["claims"].as_array().expect("claims");
    let mut expected_unsupported = Vec::new();
    for claim in claims {
        for support in claim["support"].as_array().into_iter().flatten() {
            if support["verdict"] != "supported" {
                expected_unsupported.push((claim, support));
            }
        }
    }
    let unsupported = output["unsupported_claims"]
        .as_array()
        .expect("unsupported_claims");
    assert_eq!(
        unsupported.len(),
        expected_unsupported.len(),
        "the claims the check finds not fully supported:\n{output:#}"
    );
    for (claim, support) in expected_unsupported {
        let mine = unsupported
            .iter()
            .find(|u| u["claim"] == claim["text"] && u["source_id"] == support["source"])
            .unwrap_or_else(|| panic!("{} missing from {output:#}", claim["text"]));
        assert_eq!(mine["verdict"], support["verdict"], "{mine:#}");
        assert_eq!(mine["quote"], support["quote"], "{mine:#}");
        assert_eq!(mine["missing"], support["missing"], "{mine:#}");
        assert_eq!(
            mine["differs"],
            support.get("differs").cloned().unwrap_or(json!([])),
            "{mine:#}"
        );
    }
    let uncited: Vec<&Value> = claims
        .iter()
        .filter(|c| c["cites"].as_array().is_some_and(Vec::is_empty))
        .map(|c| &c["text"])
        .collect();
    let mine: Vec<&Value> = output["uncited_claims"]
        .as_array()
        .expect("uncited_claims")
        .iter()
        .collect();
    for claim in &mine {
        assert!(
            uncited.contains(claim),
            "{claim} cites a source: {report:#}"
        );
    }
}

/// Checks `check_answer`'s result on the [`Web`]'s answer for what the pages are known
/// to do, whatever the check says: each page's verdict, the 14:00 UTC claim not fully
/// supported with 16:00 UTC as what its page says instead, the Friday claim supported,
/// and [`UNCITED`] among the claims that cite nothing.
pub fn assert_web_findings(web: &Web, output: &Value) {
    let sources = output["sources"].as_array().expect("sources");
    for (path, verdict) in EXPECTED {
        let url = web.url(path);
        let source = sources
            .iter()
            .find(|s| s["url"] == url.as_str())
            .unwrap_or_else(|| panic!("{url} missing from {output:#}"));
        assert_eq!(source["verdict"], verdict, "{path}: {source:#}");
        assert_eq!(source["kind"], "web", "{path}: {source:#}");
        assert!(source["reason"].is_string(), "{path}: {source:#}");
    }
    for (path, status) in [("/gone", 404), ("/down", 500), ("/freeze", 200)] {
        let url = web.url(path);
        let source = sources
            .iter()
            .find(|s| s["url"] == url.as_str())
            .expect("listed");
        assert_eq!(source["status_code"], status, "{path}: {source:#}");
    }
    let window = web.url("/window");
    let window_id = sources
        .iter()
        .find(|s| s["url"] == window.as_str())
        .map(|s| s["id"].clone())
        .expect("listed");
    let unsupported = output["unsupported_claims"]
        .as_array()
        .expect("unsupported_claims");
    let contradicted = unsupported
        .iter()
        .find(|u| u["claim"].as_str().is_some_and(|c| c.contains("14:00 UTC")))
        .unwrap_or_else(|| panic!("the 14:00 UTC claim is not among {output:#}"));
    assert_eq!(contradicted["source_id"], window_id, "{contradicted:#}");
    assert_eq!(contradicted["url"], window.as_str(), "{contradicted:#}");
    assert!(
        matches!(
            contradicted["verdict"].as_str(),
            Some("partly supported" | "not supported")
        ),
        "{contradicted:#}"
    );
    assert!(
        contradicted["quote"]
            .as_str()
            .is_some_and(|q| q.contains("16:00 UTC")),
        "{contradicted:#}"
    );
    assert_eq!(
        contradicted["missing"],
        json!(["14:00 UTC"]),
        "{contradicted:#}"
    );
    assert_eq!(
        contradicted["differs"],
        json!([{"claim": "14:00 UTC", "page": "16:00 UTC"}]),
        "{contradicted:#}"
    );
    assert!(
        !unsupported.iter().any(|u| u["claim"]
            .as_str()
            .is_some_and(|c| c.contains("frozen on Fridays"))),
        "the Friday freeze is supported by its page: {output:#}"
    );
    let uncited = output["uncited_claims"].as_array().expect("uncited_claims");
    assert!(
        uncited.iter().any(|c| c
            .as_str()
            .is_some_and(|c| c.contains("Refunds take 12 business days"))),
        "{UNCITED:?} cites nothing: {output:#}"
    );
    assert!(
        !uncited
            .iter()
            .any(|c| c.as_str().is_some_and(|c| c.contains("frozen on Fridays"))),
        "a cited claim among the uncited: {output:#}"
    );
}

/// Checks `judge_claims`'s judgments against `sourcebot support`'s lines for the same
/// claims: the same verdict, score, quote, `missing` and `differs`, in order.
pub fn assert_same_as_support(judgments: &Value, lines: &[Value]) {
    let judgments = judgments["judgments"].as_array().expect("judgments");
    assert_eq!(
        judgments.len(),
        lines.len(),
        "one judgment a claim: {judgments:#?}"
    );
    for (mine, line) in judgments.iter().zip(lines) {
        assert_eq!(mine["claim"], line["claim"], "{mine:#}");
        assert_eq!(
            mine["verdict"], line["verdict"],
            "{mine:#} against {line:#}"
        );
        let (score, theirs) = (
            mine["support"].as_f64().expect("a score"),
            line["support"].as_f64().expect("support's score"),
        );
        assert!((score - theirs).abs() < 1e-9, "{mine:#} against {line:#}");
        assert_eq!(mine["quote"], line["quote"], "{mine:#} against {line:#}");
        assert_eq!(
            mine["missing"], line["missing"],
            "{mine:#} against {line:#}"
        );
        assert_eq!(
            mine.get("differs").cloned().unwrap_or(json!([])),
            line.get("differs").cloned().unwrap_or(json!([])),
            "{mine:#} against {line:#}"
        );
    }
}

/// The `sourcebot` binary: Cargo names it to integration tests; the examples that
/// share this module get the one on the `PATH`.
pub fn program() -> &'static str {
    option_env!("CARGO_BIN_EXE_sourcebot").unwrap_or("sourcebot")
}

/// `sourcebot {args}` in `dir` (so that no `.env` of the checkout is read) with no
/// environment but `PATH` and `envs`.
pub fn sourcebot(dir: &Path, args: &[&str], envs: &[(&'static str, String)]) -> Command {
    let mut command = Command::new(program());
    command
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())));
    command
}

/// Runs `command` off the runtime's threads (so the test's servers keep answering),
/// with `stdin` as its standard input.
pub async fn run(mut command: Command, stdin: Vec<u8>) -> Output {
    tokio::task::spawn_blocking(move || {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("start sourcebot");
        let mut input = child.stdin.take().expect("its standard input");
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = input.write_all(&stdin);
        });
        let output = child.wait_with_output().expect("sourcebot runs");
        let _ = writer.join();
        output
    })
    .await
    .expect("join")
}

/// `sourcebot check answer.md --format json` in `dir` with `envs`: the report.
pub async fn check_json(dir: &Path, answer: &str, envs: &[(&'static str, String)]) -> Value {
    let file = dir.join("answer.md");
    std::fs::write(&file, answer).expect("write the answer");
    let output = run(
        sourcebot(dir, &["check", "answer.md", "--format", "json"], envs),
        Vec::new(),
    )
    .await;
    assert_eq!(
        output.status.code(),
        Some(0),
        "sourcebot check: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the check's JSON")
}

/// `sourcebot support -` in `dir` with `envs` on `lines`: its output lines.
pub async fn support_lines(
    dir: &Path,
    lines: &[Value],
    envs: &[(&'static str, String)],
) -> Vec<Value> {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let output = run(sourcebot(dir, &["support", "-"], envs), input.into_bytes()).await;
    assert_eq!(
        output.status.code(),
        Some(0),
        "sourcebot support: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// A server that never answers

/// A server that accepts connections, reads what comes, never answers, and counts the
/// connections it accepted and those the client closed. Dropping it stops everything.
pub struct Silent {
    addr: std::net::SocketAddr,
    accepted: Arc<AtomicUsize>,
    closed: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

impl Silent {
    /// Listens on `ip:0`.
    pub async fn start(ip: IpAddr) -> Silent {
        let listener = TcpListener::bind((ip, 0))
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().expect("its address");
        let accepted = Arc::new(AtomicUsize::new(0));
        let closed = Arc::new(AtomicUsize::new(0));
        let (seen, gone) = (accepted.clone(), closed.clone());
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            while let Ok((mut stream, _)) = listener.accept().await {
                seen.fetch_add(1, Ordering::SeqCst);
                let gone = gone.clone();
                connections.spawn(async move {
                    let mut sink = [0u8; 4096];
                    while let Ok(n) = stream.read(&mut sink).await {
                        if n == 0 {
                            break;
                        }
                    }
                    gone.fetch_add(1, Ordering::SeqCst);
                });
                while connections.try_join_next().is_some() {}
            }
        });
        Silent {
            addr,
            accepted,
            closed,
            task,
        }
    }

    /// `http://ip:port{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// Connections accepted and not yet closed by the client.
    pub fn open(&self) -> usize {
        self.accepted() - self.closed.load(Ordering::SeqCst)
    }

    /// Waits up to `limit` for `done(self)`; whether it came.
    pub async fn wait_for(&self, limit: Duration, done: impl Fn(&Silent) -> bool) -> bool {
        let started = Instant::now();
        while !done(self) {
            if started.elapsed() >= limit {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        true
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The arguments of `check_answer` on an answer citing `url` only.
pub fn answer_citing(url: &str) -> Value {
    json!({
        "answer": format!("The audit log is kept for a year [1].\n\n[1] {url} - Audit log\n"),
    })
}

/// Four sites whose one page answers after 700 ms, each on its own address from
/// `next_ip`: a check of them takes long enough to report progress.
pub async fn slow_sites(next_ip: fn() -> IpAddr) -> Vec<HostileServer> {
    let mut slow = Vec::new();
    for _ in 0..4 {
        let page = Action::text(200, ROLLBACK_PAGE).after(Duration::from_millis(700));
        slow.push(HostileServer::start(next_ip(), vec![("/slow", Route::always(page))]).await);
    }
    slow
}

#[path = "scenarios.rs"]
mod scenarios;
pub use scenarios::*;

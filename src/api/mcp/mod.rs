//! sourcebot as an MCP server (the Model Context Protocol, through the official Rust
//! SDK, `rmcp`), so that an assistant can check its own draft before anyone sees it.
//! Three tools ([`tools`]): `check_answer` (the whole check of `sourcebot check`: links
//! probed, cited pages read, claims judged), `check_links` and `judge_claims` (what
//! `sourcebot support` does). Every call runs through the one [`Pipeline`], so the
//! verdicts are the check's and every rule of the check holds: the prober's guard
//! against private addresses, nothing read logged, the same limits as `/v1/check`.
//!
//! Two transports: standard input and output (`sourcebot mcp`, [`serve_stdio`]) and
//! streamable HTTP at `/mcp` beside `/v1` ([`http::routes`]), behind the same bearer
//! tokens, with `Origin` checked against DNS rebinding. Over HTTP the server keeps no
//! session: any replica answers any request, so no sticky load balancer is needed.
//!
//! A bad input is a tool result with `isError` and one sentence naming what was wrong,
//! never a protocol error. A call reports progress while links are checked when the
//! client sends a progress token, and stops its work when the client cancels it.

pub mod http;
pub mod tools;

use crate::api::ApiSettings;
use crate::collect::input::FormatHint;
use crate::metrics::Metrics;
use crate::model::Answer;
use crate::pipeline::Pipeline;
use crate::verify::Progress;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ProgressToken, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tools::{
    CheckAnswerInput, CheckLinksInput, CheckLinksOutput, Evidence, JudgeClaimsInput,
    JudgeClaimsOutput, Judgment, LinkOutput,
};

/// How often progress is sent while links are checked.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Most claims `judge_claims` takes in one call.
pub const MAX_CLAIMS: usize = 1000;

/// The bounds of a call, the same as `/v1/check`'s.
#[derive(Debug, Clone, Copy)]
pub struct McpLimits {
    /// Most sources an answer (or links a `check_links` call) may have.
    pub max_sources: usize,
    /// Longest a check may take.
    pub timeout: Duration,
    /// Largest answer, in bytes.
    pub max_bytes: usize,
}

impl McpLimits {
    /// The limits `settings` give `/v1/check`.
    pub fn from_settings(settings: &ApiSettings) -> McpLimits {
        McpLimits {
            max_sources: settings.max_sources,
            timeout: settings.timeout,
            max_bytes: settings.max_body_bytes,
        }
    }
}

/// The MCP server: the pipeline, the limits, and where to count calls. Cloning is
/// shallow.
#[derive(Clone)]
pub struct McpServer {
    pipeline: Arc<Pipeline>,
    limits: McpLimits,
    metrics: Option<Arc<Metrics>>,
}

/// Why a call gave no result: its outcome label and one sentence for the caller.
#[derive(Debug)]
struct Refusal {
    outcome: &'static str,
    message: String,
}

impl Refusal {
    fn bad_input(message: impl Into<String>) -> Refusal {
        Refusal {
            outcome: "bad_input",
            message: message.into(),
        }
    }
}

/// A result: its structured content and its text.
type Done = (Value, String);

impl McpServer {
    /// A server over `pipeline`, bounded by `limits`.
    pub fn new(pipeline: Arc<Pipeline>, limits: McpLimits) -> McpServer {
        McpServer {
            pipeline,
            limits,
            metrics: None,
        }
    }

    /// Counts each call in `metrics` (`sourcebot_mcp_tool_calls_total`).
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> McpServer {
        self.metrics = Some(metrics);
        self
    }

    /// Runs the tool `name` on `arguments`; `progress` reports links checked.
    async fn run(
        &self,
        name: &str,
        arguments: Value,
        progress: Option<Reporter>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<Done, Refusal> {
        let work = async {
            match name {
                tools::CHECK_ANSWER => self.check_answer(input(name, arguments)?, progress).await,
                tools::CHECK_LINKS => self.check_links(input(name, arguments)?, progress).await,
                tools::JUDGE_CLAIMS => self.judge_claims(input(name, arguments)?).await,
                other => Err(Refusal {
                    outcome: "unknown_tool",
                    message: format!(
                        "there is no tool {other:?}: the tools are {}, {} and {}",
                        tools::CHECK_ANSWER,
                        tools::CHECK_LINKS,
                        tools::JUDGE_CLAIMS
                    ),
                }),
            }
        };
        tokio::select! {
            biased;
            () = cancelled => Err(Refusal {
                outcome: "cancelled",
                message: "the call was cancelled".into(),
            }),
            done = work => done,
        }
    }

    async fn check_answer(
        &self,
        input: CheckAnswerInput,
        progress: Option<Reporter>,
    ) -> Result<Done, Refusal> {
        let answer = self.answer(&input.answer)?;
        let verify = input.verify && self.pipeline.verifies();
        let report = self
            .checked(&answer, verify, input.support, progress)
            .await?;
        let output = tools::answer_output(&report);
        let text = output.summary.clone();
        Ok((structured(&output)?, text))
    }

    /// Reads the `answer` argument as `sourcebot check` reads a file.
    fn answer(&self, value: &Value) -> Result<Answer, Refusal> {
        let (bytes, hint) = match value {
            Value::String(text) if text.trim().is_empty() => {
                return Err(Refusal::bad_input("\"answer\" is empty"))
            }
            Value::String(text) => (text.clone().into_bytes(), FormatHint::Auto),
            Value::Object(_) | Value::Array(_) => (
                serde_json::to_vec(value).map_err(|e| Refusal::bad_input(e.to_string()))?,
                FormatHint::Json,
            ),
            other => {
                return Err(Refusal::bad_input(format!(
                    "\"answer\" must be the answer's text (a string) or the agent's JSON (an object or a list), not {}",
                    json_kind(other)
                )))
            }
        };
        if bytes.len() > self.limits.max_bytes {
            return Err(Refusal::bad_input(format!(
                "the answer has {} bytes; at most {} are read",
                bytes.len(),
                self.limits.max_bytes
            )));
        }
        self.pipeline
            .parse(&bytes, hint)
            .map_err(|e| Refusal::bad_input(format!("the answer could not be read: {e}")))
    }

    /// `answer` collected, its links probed (when `verify`) and its cited pages read
    /// (when `support` and the check reads pages), within the time allowed.
    async fn checked(
        &self,
        answer: &Answer,
        verify: bool,
        support: bool,
        progress: Option<Reporter>,
    ) -> Result<crate::model::Report, Refusal> {
        let pipeline = &self.pipeline;
        let mut report = pipeline.collect(answer);
        let listed = report.metrics.unique_sources + report.metrics.links_skipped;
        if listed > self.limits.max_sources {
            return Err(Refusal {
                outcome: "too_many",
                message: format!(
                    "the answer has {listed} sources; at most {} are checked in one call",
                    self.limits.max_sources
                ),
            });
        }
        let started = Instant::now();
        let counter = Progress::new();
        let probing = pipeline.verify_and_score(&mut report, verify, Some(&counter));
        let ticking = async {
            match &progress {
                Some(reporter) => reporter.follow(&counter).await,
                None => std::future::pending().await,
            }
        };
        let timed = tokio::time::timeout(self.limits.timeout, async {
            tokio::select! {
                () = probing => {},
                () = ticking => {},
            }
        });
        if timed.await.is_err() {
            return Err(self.too_long());
        }
        if verify && support {
            let left = self.limits.timeout.saturating_sub(started.elapsed());
            pipeline
                .check_support_with(&mut report, None, Some(left))
                .await;
        }
        Ok(report)
    }

    fn too_long(&self) -> Refusal {
        Refusal {
            outcome: "timeout",
            message: format!(
                "the check took longer than {}",
                humantime::format_duration(self.limits.timeout)
            ),
        }
    }

    async fn check_links(
        &self,
        input: CheckLinksInput,
        progress: Option<Reporter>,
    ) -> Result<Done, Refusal> {
        if input.urls.is_empty() {
            return Err(Refusal::bad_input(
                "\"urls\" is empty: give at least one link",
            ));
        }
        if input.urls.len() > self.limits.max_sources {
            return Err(Refusal {
                outcome: "too_many",
                message: format!(
                    "{} links given; at most {} are checked in one call",
                    input.urls.len(),
                    self.limits.max_sources
                ),
            });
        }
        if let Some(bad) = input
            .urls
            .iter()
            .find(|u| u.trim().is_empty() || u.chars().any(char::is_whitespace))
        {
            return Err(Refusal::bad_input(format!(
                "{bad:?} is not a link: give each link alone, without spaces"
            )));
        }
        // The links as an answer of their own, one a line: the check's own reading,
        // canonical form and verdicts.
        let answer = self
            .pipeline
            .parse(input.urls.join("\n").as_bytes(), FormatHint::Text)
            .map_err(|e| Refusal::bad_input(format!("the links could not be read: {e}")))?;
        let report = self
            .checked(&answer, self.pipeline.verifies(), false, progress)
            .await?;
        // In the order given, each canonical link once; a link the check cannot read as
        // http or https is `invalid`, with why.
        let mut links: Vec<LinkOutput> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for url in &input.urls {
            let checked = crate::collect::canon::canonicalize(url).map(|canonical| {
                report
                    .sources()
                    .find(|s| s.canonical_url.as_deref() == Some(canonical.as_str()))
                    .map(|source| (canonical, source))
            });
            let link = match checked {
                Ok(Some((canonical, source))) => {
                    if !seen.insert(canonical) {
                        continue;
                    }
                    LinkOutput {
                        url: source.url.clone().unwrap_or_else(|| url.clone()),
                        verdict: tools::wire_name(source.verdict.class),
                        reason: source.verdict.reason.clone().unwrap_or_default(),
                        status_code: source.verdict.status_code,
                    }
                }
                Ok(None) => LinkOutput {
                    url: url.clone(),
                    verdict: tools::wire_name(crate::model::VerdictClass::Invalid),
                    reason: "the link could not be read".into(),
                    status_code: None,
                },
                Err(why) => LinkOutput {
                    url: url.clone(),
                    verdict: tools::wire_name(crate::model::VerdictClass::Invalid),
                    reason: why.to_string(),
                    status_code: None,
                },
            };
            links.push(link);
        }
        let text = links
            .iter()
            .map(|l| format!("{} {}: {}", l.url, l.verdict.replace('_', " "), l.reason))
            .collect::<Vec<_>>()
            .join("\n");
        Ok((structured(&CheckLinksOutput { links })?, text))
    }

    async fn judge_claims(&self, input: JudgeClaimsInput) -> Result<Done, Refusal> {
        if input.claims.is_empty() {
            return Err(Refusal::bad_input("\"claims\" is empty: give at least one"));
        }
        if input.claims.len() > MAX_CLAIMS {
            return Err(Refusal {
                outcome: "too_many",
                message: format!(
                    "{} claims given; at most {MAX_CLAIMS} are judged in one call",
                    input.claims.len()
                ),
            });
        }
        let bytes: usize = input
            .claims
            .iter()
            .map(|c| {
                c.claim.len()
                    + match &c.evidence {
                        Evidence::Text(t) => t.len(),
                        Evidence::Passages(p) => p.iter().map(String::len).sum(),
                    }
            })
            .sum();
        if bytes > self.limits.max_bytes {
            return Err(Refusal::bad_input(format!(
                "the claims and their evidence have {bytes} bytes; at most {} are read",
                self.limits.max_bytes
            )));
        }
        let scorer = self.pipeline.builtin_support().map_err(|e| Refusal {
            outcome: "bad_input",
            message: format!("the support scorer could not be loaded: {e}"),
        })?;
        // Scoring is CPU work: off the async workers, within the time a call has.
        let judging = tokio::task::spawn_blocking(move || {
            input
                .claims
                .into_iter()
                .map(|claim| {
                    let evidence = match claim.evidence {
                        Evidence::Text(text) => vec![text],
                        Evidence::Passages(passages) => passages,
                    };
                    let support = crate::support::jsonl::judge(&scorer, &claim.claim, &evidence);
                    Judgment {
                        claim: claim.claim,
                        verdict: support.verdict.as_str().to_string(),
                        support: support.score,
                        quote: support.quote,
                        missing: support.missing,
                        differs: support
                            .differs
                            .into_iter()
                            .map(|d| tools::DifferOutput {
                                claim: d.claim,
                                page: d.page,
                            })
                            .collect(),
                    }
                })
                .collect::<Vec<_>>()
        });
        let judgments = tokio::time::timeout(self.limits.timeout, judging)
            .await
            .map_err(|_| self.too_long())?
            .map_err(|e| Refusal {
                outcome: "bad_input",
                message: format!("judging stopped: {e}"),
            })?;
        let text = judgments
            .iter()
            .map(|j| {
                let mut line = format!("{}: \"{}\"", j.verdict, j.claim);
                for differ in &j.differs {
                    line.push_str(&format!(
                        "; the evidence says {}, not {}",
                        differ.page, differ.claim
                    ));
                }
                if !j.missing.is_empty() {
                    line.push_str(&format!("; never mentioned: {}", j.missing.join(", ")));
                }
                line
            })
            .collect::<Vec<_>>()
            .join("\n");
        Ok((structured(&JudgeClaimsOutput { judgments })?, text))
    }

    fn count(&self, tool: &str, outcome: &str) {
        if let Some(metrics) = &self.metrics {
            let tool = match tool {
                tools::CHECK_ANSWER | tools::CHECK_LINKS | tools::JUDGE_CLAIMS => tool,
                _ => "unknown",
            };
            metrics.mcp_call(tool, outcome);
        }
    }
}

/// The arguments of tool `name` as its input type, or a sentence naming the argument
/// that is wrong (`urls[1]: invalid type: integer `1`, expected a string`).
fn input<T: DeserializeOwned>(name: &str, arguments: Value) -> Result<T, Refusal> {
    serde_path_to_error::deserialize(arguments).map_err(|e| {
        let path = e.path().to_string();
        let why = e.into_inner();
        if path == "." {
            Refusal::bad_input(format!("{name}: {why}"))
        } else {
            Refusal::bad_input(format!("{name}: \"{path}\": {why}"))
        }
    })
}

/// `output` as structured content.
fn structured(output: &impl Serialize) -> Result<Value, Refusal> {
    serde_json::to_value(output).map_err(|e| Refusal {
        outcome: "bad_input",
        message: format!("the result could not be written as JSON: {e}"),
    })
}

/// What kind of JSON value `value` is, in words.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Sends progress notifications for one call.
struct Reporter {
    peer: Peer<RoleServer>,
    token: ProgressToken,
}

impl Reporter {
    /// Sends the links checked so far whenever they change, until dropped.
    async fn follow(&self, progress: &Progress) {
        let mut sent = None;
        loop {
            let now = (progress.done(), progress.total());
            if sent != Some(now) && now.1 > 0 {
                let note = ProgressNotificationParam::new(self.token.clone(), now.0 as f64)
                    .with_total(now.1 as f64)
                    .with_message(format!("{} of {} links checked", now.0, now.1));
                // A client that stopped listening does not stop the check.
                let _ = self.peer.notify_progress(note).await;
                sent = Some(now);
            }
            tokio::time::sleep(PROGRESS_EVERY).await;
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sourcebot", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "sourcebot checks what an answer rests on. Before posting an answer that \
                 cites sources, call check_answer on it; fix broken links, cite a page for \
                 uncited claims, correct figures a page gives differently; then call it again.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let progress = context.meta.get_progress_token().map(|token| Reporter {
            peer: context.peer.clone(),
            token,
        });
        let result = match self
            .run(&name, arguments, progress, context.ct.cancelled_owned())
            .await
        {
            Ok((value, text)) => {
                self.count(&name, "ok");
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(value);
                result
            }
            Err(refusal) if refusal.outcome == "unknown_tool" => {
                // The specification makes an unknown tool a protocol error (-32602);
                // every other bad input is a result the model can read and correct.
                self.count(&name, "bad_input");
                return Err(ErrorData::invalid_params(refusal.message, None));
            }
            Err(refusal) => {
                self.count(&name, refusal.outcome);
                CallToolResult::error(vec![ContentBlock::text(refusal.message)])
            }
        };
        Ok(result.into())
    }
}

/// Errors of [`serve_stdio`].
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The client's first messages were not an MCP start.
    #[error("the MCP client did not start a session: {0}")]
    Start(String),
    /// The session ended on an error.
    #[error("the MCP session ended on an error: {0}")]
    Session(String),
}

/// Serves `server` over standard input and output until the client closes them.
pub async fn serve_stdio(server: McpServer) -> Result<(), ServeError> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError::Start(e.to_string()))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| ServeError::Session(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused<T: DeserializeOwned + std::fmt::Debug>(arguments: Value) -> String {
        input::<T>("tool", arguments).expect_err("refused").message
    }

    #[test]
    fn a_bad_argument_is_named_by_its_path() {
        let message = refused::<CheckLinksInput>(json!({"urls": "x"}));
        assert!(
            message.starts_with("tool: \"urls\": invalid type"),
            "{message}"
        );
        let message = refused::<CheckLinksInput>(json!({"urls": ["a", 1]}));
        assert!(message.contains("\"urls[1]\""), "{message}");
        let message = refused::<CheckAnswerInput>(json!({"answer": "a", "verify": "yes"}));
        assert!(message.contains("\"verify\""), "{message}");
        let message =
            refused::<JudgeClaimsInput>(json!({"claims": [{"claim": "x", "evidence": 7}]}));
        assert!(
            message.contains("\"claims[0].evidence\": expected a string or a list of strings"),
            "{message}"
        );
        let message = refused::<CheckAnswerInput>(json!({}));
        assert!(message.contains("missing field `answer`"), "{message}");
    }
}

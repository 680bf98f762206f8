//! Prometheus metrics of a running `serve`: HTTP requests by route and status, links
//! checked by verdict, probe latency, verdict-cache hits and misses, and Slack Web API
//! calls by method and outcome. One [`Metrics`] is shared by the HTTP service, the
//! verifier and the Slack client, which count into it; `GET /metrics` encodes it in
//! the Prometheus text format (through the official `prometheus-client` crate).
//! Every label value comes from a fixed set (matched routes, verdict classes, method
//! names), so the number of series stays bounded whatever clients send.

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// Labels of an HTTP request.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// The matched route (`/v1/check`), or `unmatched`.
    pub route: String,
    /// The response status code.
    pub status: u16,
}

/// Labels of a checked link.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct VerdictLabels {
    /// The verdict class (`verified`, `broken`…).
    pub verdict: String,
}

/// Labels of a verdict-cache lookup.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheLabels {
    /// `hit` or `miss`.
    pub result: String,
}

/// Labels of a Slack Web API call.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SlackCallLabels {
    /// The API method (`chat.postMessage`).
    pub method: String,
    /// `ok`, `slack_error`, `rate_limited`, `timeout` or `transport`.
    pub outcome: String,
}

/// Labels of something a Slack message reader skipped.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SkipLabels {
    /// `unknown_type`, `wrong_type`, `too_deep` or `too_many`.
    pub reason: String,
}

/// Labels of what became of a watched answer once it settled.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AnswerLabels {
    /// `posted`, `updated`, `unchanged`, `deleted`, `not_worth_a_reply` or `failed`.
    pub outcome: String,
}

/// Labels of a feedback vote on a report.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FeedbackLabels {
    /// `up` or `down`.
    pub value: String,
}

/// Labels of a write to the workspace's history that failed.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HistoryLabels {
    /// `report`, `feedback`, `evidence` or `prune`.
    pub what: String,
}

/// Labels of a call to the language model.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LlmCallLabels {
    /// What it was for (`support`).
    pub purpose: String,
    /// `ok`, `cached`, or why it failed (`timeout`, `rate_limited`, `malformed`…).
    pub outcome: String,
}

/// Labels of tokens the language model used.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LlmTokenLabels {
    /// What they were for (`support`).
    pub purpose: String,
    /// `prompt` or `completion`.
    pub kind: String,
}

/// Labels of a latency histogram by purpose.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PurposeLabels {
    /// What the call was for (`support`).
    pub purpose: String,
}

/// Labels of a call to a product's API (Confluence, Google Drive…).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ProductCallLabels {
    /// The product (`Confluence`).
    pub product: String,
    /// `ok`, `rate_limited`, `server_error`, `http_error`, `timeout`, `transport` or
    /// `malformed`.
    pub outcome: String,
}

/// Labels of a cited page the support check handled.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SupportPageLabels {
    /// `read`, `unreadable` or `skipped` (over the limit or out of time).
    pub result: String,
}

/// Labels of a claim judged against a source.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SupportJudgementLabels {
    /// `supported`, `partly_supported`, `not_supported` or `unreadable`.
    pub verdict: String,
    /// `builtin` or `llm`.
    pub judge: String,
}

/// Labels of an answer's claims classified.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ClassificationLabels {
    /// `llm` or `rules`.
    pub method: String,
    /// Why the rules classified an answer the model was asked about (`timeout`,
    /// `malformed`, `over_daily_budget`…); `none` when nothing failed.
    pub fallback: String,
}

/// Labels of an MCP tool call.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct McpCallLabels {
    /// `check_answer`, `check_links`, `judge_claims`, or `unknown`.
    pub tool: String,
    /// `ok`, `bad_input`, `too_many`, `timeout` or `cancelled`.
    pub outcome: String,
}

/// The metrics of one process.
pub struct Metrics {
    registry: Registry,
    mcp_calls: Family<McpCallLabels, Counter>,
    requests: Family<RequestLabels, Counter>,
    links: Family<VerdictLabels, Counter>,
    probe_seconds: Histogram,
    cache: Family<CacheLabels, Counter>,
    slack_calls: Family<SlackCallLabels, Counter>,
    read_skips: Family<SkipLabels, Counter>,
    watched_answers: Family<AnswerLabels, Counter>,
    feedback: Family<FeedbackLabels, Counter>,
    history_failures: Family<HistoryLabels, Counter>,
    shared_state_up: Gauge,
    llm_calls: Family<LlmCallLabels, Counter>,
    llm_tokens: Family<LlmTokenLabels, Counter>,
    llm_seconds: Family<PurposeLabels, Histogram>,
    support_pages: Family<SupportPageLabels, Counter>,
    support_judgements: Family<SupportJudgementLabels, Counter>,
    classifications: Family<ClassificationLabels, Counter>,
    product_calls: Family<ProductCallLabels, Counter>,
    unserved: Family<UnservedLabels, Counter>,
    slack_retries: Family<SlackRetryLabels, Counter>,
    replies_lost: Family<SlackRetryLabels, Counter>,
    health: crate::health::Health,
}

/// Labels of a request acknowledged and not acted on.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct UnservedLabels {
    /// `database` (the installation could not be read), `not_installed`,
    /// `no_workspace` or `busy` (too many jobs at once).
    pub reason: String,
}

/// Labels of a reply to Slack tried again, or given up.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SlackRetryLabels {
    /// The API method (`chat.postMessage`, `response_url`…).
    pub method: String,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// Upper bounds of the probe latency buckets, in seconds: a probe ends within its
/// timeout (2 s by default, 60 s at most).
const PROBE_BUCKETS: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0,
];

/// Upper bounds of the language model's latency buckets, in seconds.
const LLM_BUCKETS: [f64; 10] = [0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 6.0, 10.0, 20.0, 60.0];

impl Metrics {
    /// Empty metrics, registered under the `sourcebot_` prefix.
    pub fn new() -> Arc<Metrics> {
        let mut registry = Registry::with_prefix("sourcebot");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by route and status",
            requests.clone(),
        );
        let mcp_calls = Family::<McpCallLabels, Counter>::default();
        registry.register(
            "mcp_tool_calls",
            "MCP tool calls answered, by tool and outcome",
            mcp_calls.clone(),
        );
        let links = Family::<VerdictLabels, Counter>::default();
        registry.register(
            "links_checked",
            "External links checked, by verdict (cached verdicts included)",
            links.clone(),
        );
        let probe_seconds = Histogram::new(PROBE_BUCKETS);
        registry.register(
            "probe_duration_seconds",
            "Time of each probe that went to the network",
            probe_seconds.clone(),
        );
        let cache = Family::<CacheLabels, Counter>::default();
        registry.register(
            "verdict_cache_lookups",
            "Verdict cache lookups, by result (hit or miss)",
            cache.clone(),
        );
        let slack_calls = Family::<SlackCallLabels, Counter>::default();
        registry.register(
            "slack_api_calls",
            "Slack Web API calls, by method and outcome",
            slack_calls.clone(),
        );
        let read_skips = Family::<SkipLabels, Counter>::default();
        registry.register(
            "slack_message_skips",
            "Parts of Slack messages the reader skipped (unknown block types, fields of the wrong type, nesting too deep, past the limits), by reason",
            read_skips.clone(),
        );
        let watched_answers = Family::<AnswerLabels, Counter>::default();
        registry.register(
            "watched_answers",
            "Watched assistants' answers handled once settled, by outcome",
            watched_answers.clone(),
        );
        let feedback = Family::<FeedbackLabels, Counter>::default();
        registry.register(
            "feedback",
            "Feedback votes on reports (👍 up, 👎 down), a changed vote counted again",
            feedback.clone(),
        );
        let history_failures = Family::<HistoryLabels, Counter>::default();
        registry.register(
            "history_failures",
            "Writes to the workspace history (reports, feedback, kept evidence, pruning) that the installation database refused; each is also in the log",
            history_failures.clone(),
        );
        let shared_state_up = Gauge::default();
        shared_state_up.set(1);
        registry.register(
            "shared_state_up",
            "1 while the bot's state store answers (always 1 in memory), 0 while shared state (Redis) is away",
            shared_state_up.clone(),
        );
        let unserved = Family::<UnservedLabels, Counter>::default();
        registry.register(
            "unserved",
            "Slack requests acknowledged and not acted on, by reason (database: the installation could not be read; not_installed; no_workspace; busy)",
            unserved.clone(),
        );
        let slack_retries = Family::<SlackRetryLabels, Counter>::default();
        registry.register(
            "slack_retries",
            "Replies to Slack tried again because Slack could not be reached (refused connection, 502, 503, 504), by method",
            slack_retries.clone(),
        );
        let replies_lost = Family::<SlackRetryLabels, Counter>::default();
        registry.register(
            "slack_replies_lost",
            "Replies to Slack given up after SOURCEBOT_SLACK_RETRY_FOR of retries (each logged with its channel and thread), by method",
            replies_lost.clone(),
        );
        let llm_calls = Family::<LlmCallLabels, Counter>::default();
        registry.register(
            "llm_calls",
            "Questions to the language model, by purpose and outcome (ok, cached, or why it failed and the built-in rules took over)",
            llm_calls.clone(),
        );
        let llm_tokens = Family::<LlmTokenLabels, Counter>::default();
        registry.register(
            "llm_tokens",
            "Tokens the language model reported using, by purpose and kind (prompt, completion)",
            llm_tokens.clone(),
        );
        let llm_seconds = Family::<PurposeLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(LLM_BUCKETS)
        });
        registry.register(
            "llm_call_duration_seconds",
            "Time of each call to the language model that went to the network",
            llm_seconds.clone(),
        );
        let support_pages = Family::<SupportPageLabels, Counter>::default();
        registry.register(
            "support_pages",
            "Cited pages the support check handled, by result (read, unreadable, skipped)",
            support_pages.clone(),
        );
        let support_judgements = Family::<SupportJudgementLabels, Counter>::default();
        registry.register(
            "support_judgements",
            "Claims judged against a cited source, by verdict and judge (builtin, llm)",
            support_judgements.clone(),
        );
        let classifications = Family::<ClassificationLabels, Counter>::default();
        registry.register(
            "claim_classifications",
            "Answers whose claims were classified, by method (llm, rules) and, when the model was asked but the rules took over, why",
            classifications.clone(),
        );
        let product_calls = Family::<ProductCallLabels, Counter>::default();
        registry.register(
            "product_api_calls",
            "Calls to products' APIs to check internal links, by product and outcome",
            product_calls.clone(),
        );
        Arc::new(Metrics {
            product_calls,
            llm_calls,
            llm_tokens,
            llm_seconds,
            support_pages,
            support_judgements,
            classifications,
            registry,
            mcp_calls,
            requests,
            links,
            probe_seconds,
            cache,
            slack_calls,
            read_skips,
            watched_answers,
            feedback,
            history_failures,
            shared_state_up,
            unserved,
            slack_retries,
            replies_lost,
            health: crate::health::Health::new(),
        })
    }

    /// How each part is doing, for `/readyz`.
    pub fn health(&self) -> &crate::health::Health {
        &self.health
    }

    /// Counts a request acknowledged and not acted on, by why.
    pub fn unserved(&self, reason: &str) {
        self.unserved
            .get_or_create(&UnservedLabels {
                reason: reason.to_string(),
            })
            .inc();
    }

    /// Counts a reply to Slack tried again because Slack could not be reached.
    pub fn slack_retry(&self, method: &str) {
        self.slack_retries
            .get_or_create(&SlackRetryLabels {
                method: method.to_string(),
            })
            .inc();
    }

    /// Counts a reply to Slack given up after its retries.
    pub fn reply_lost(&self, method: &str) {
        self.replies_lost
            .get_or_create(&SlackRetryLabels {
                method: method.to_string(),
            })
            .inc();
    }

    /// Sets `sourcebot_shared_state_up`: whether the state store answers.
    pub fn shared_state_up(&self, up: bool) {
        self.shared_state_up.set(i64::from(up));
    }

    /// Counts an MCP tool call answered, by tool and outcome.
    pub fn mcp_call(&self, tool: &str, outcome: &str) {
        self.mcp_calls
            .get_or_create(&McpCallLabels {
                tool: tool.to_string(),
                outcome: outcome.to_string(),
            })
            .inc();
    }

    /// Counts an HTTP request answered.
    pub fn request(&self, route: &str, status: u16) {
        self.requests
            .get_or_create(&RequestLabels {
                route: route.to_string(),
                status,
            })
            .inc();
    }

    /// Counts a link checked with `verdict`; `probe_seconds` is the probe's time when it
    /// went to the network, `from_cache` whether the verdict was remembered.
    pub fn link(&self, verdict: &str, probe_seconds: Option<f64>, from_cache: bool) {
        self.links
            .get_or_create(&VerdictLabels {
                verdict: verdict.to_string(),
            })
            .inc();
        if let Some(seconds) = probe_seconds {
            self.probe_seconds.observe(seconds);
        }
        let result = if from_cache { "hit" } else { "miss" };
        self.cache
            .get_or_create(&CacheLabels {
                result: result.to_string(),
            })
            .inc();
    }

    /// Counts a Slack call of `method` that ended with `outcome`.
    pub fn slack_call(&self, method: &str, outcome: &str) {
        self.slack_calls
            .get_or_create(&SlackCallLabels {
                method: method.to_string(),
                outcome: outcome.to_string(),
            })
            .inc();
    }

    /// Counts `count` parts of Slack messages skipped for `reason`.
    pub fn read_skips(&self, reason: &str, count: usize) {
        if count > 0 {
            self.read_skips
                .get_or_create(&SkipLabels {
                    reason: reason.to_string(),
                })
                .inc_by(count as u64);
        }
    }

    /// Counts a feedback vote (`up` or `down`).
    pub fn feedback(&self, value: &str) {
        self.feedback
            .get_or_create(&FeedbackLabels {
                value: value.to_string(),
            })
            .inc();
    }

    /// Counts a write to the workspace history that failed (`what`: `report`,
    /// `feedback`, `evidence` or `prune`).
    pub fn history_failure(&self, what: &str) {
        self.history_failures
            .get_or_create(&HistoryLabels {
                what: what.to_string(),
            })
            .inc();
    }

    /// Counts a watched answer that ended with `outcome`.
    pub fn watched_answer(&self, outcome: &str) {
        self.watched_answers
            .get_or_create(&AnswerLabels {
                outcome: outcome.to_string(),
            })
            .inc();
    }

    /// Counts a question to the language model for `purpose` that ended with `outcome`;
    /// `seconds` is its time when it went to the network.
    pub fn llm_call(&self, purpose: &str, outcome: &str, seconds: Option<f64>) {
        self.llm_calls
            .get_or_create(&LlmCallLabels {
                purpose: purpose.to_string(),
                outcome: outcome.to_string(),
            })
            .inc();
        if let Some(seconds) = seconds {
            self.llm_seconds
                .get_or_create(&PurposeLabels {
                    purpose: purpose.to_string(),
                })
                .observe(seconds);
        }
    }

    /// Counts the tokens a call for `purpose` used.
    pub fn llm_tokens(&self, purpose: &str, prompt: u64, completion: u64) {
        for (kind, count) in [("prompt", prompt), ("completion", completion)] {
            self.llm_tokens
                .get_or_create(&LlmTokenLabels {
                    purpose: purpose.to_string(),
                    kind: kind.to_string(),
                })
                .inc_by(count);
        }
    }

    /// Counts a call to `product`'s API that ended with `outcome`.
    pub fn product_call(&self, product: &str, outcome: &str) {
        self.product_calls
            .get_or_create(&ProductCallLabels {
                product: product.to_string(),
                outcome: outcome.to_string(),
            })
            .inc();
    }

    /// Counts `count` cited pages the support check handled with `result`.
    pub fn support_pages(&self, result: &str, count: usize) {
        if count > 0 {
            self.support_pages
                .get_or_create(&SupportPageLabels {
                    result: result.to_string(),
                })
                .inc_by(count as u64);
        }
    }

    /// Counts a claim judged against a source with `verdict` by `judge`.
    pub fn support_judgement(&self, verdict: &str, judge: &str) {
        self.support_judgements
            .get_or_create(&SupportJudgementLabels {
                verdict: verdict.to_string(),
                judge: judge.to_string(),
            })
            .inc();
    }

    /// Counts an answer classified by `method`; `fallback` says why the rules took over
    /// from the model (`none` when they did not).
    pub fn classification(&self, method: &str, fallback: &str) {
        self.classifications
            .get_or_create(&ClassificationLabels {
                method: method.to_string(),
                fallback: fallback.to_string(),
            })
            .inc();
    }

    /// Everything, in the Prometheus text exposition format.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        if encode(&mut text, &self.registry).is_err() {
            // Writing to a String cannot fail; say so rather than serve half a page.
            return "# metrics could not be encoded\n".to_string();
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_show_up_in_the_text_format() {
        let metrics = Metrics::new();
        metrics.request("/v1/check", 200);
        metrics.request("/v1/check", 200);
        metrics.request("/v1/answers", 401);
        metrics.link("verified", Some(0.03), false);
        metrics.link("verified", None, true);
        metrics.slack_call("chat.postMessage", "ok");
        let text = metrics.encode();
        for line in [
            "sourcebot_http_requests_total{route=\"/v1/check\",status=\"200\"} 2",
            "sourcebot_http_requests_total{route=\"/v1/answers\",status=\"401\"} 1",
            "sourcebot_links_checked_total{verdict=\"verified\"} 2",
            "sourcebot_verdict_cache_lookups_total{result=\"hit\"} 1",
            "sourcebot_verdict_cache_lookups_total{result=\"miss\"} 1",
            "sourcebot_probe_duration_seconds_count 1",
            "sourcebot_probe_duration_seconds_bucket{le=\"0.05\"} 1",
            "sourcebot_slack_api_calls_total{method=\"chat.postMessage\",outcome=\"ok\"} 1",
        ] {
            assert!(text.contains(line), "{line} missing from\n{text}");
        }
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
}

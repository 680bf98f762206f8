//! The three MCP tools as plain data: what each takes and gives (serde types whose JSON
//! Schema rmcp lists as the tool's `inputSchema` and `outputSchema`), the words a model
//! reads to decide when to call it, and the turn of a checked [`Report`] into what
//! `check_answer` gives. No transport here and no network: `super` runs the pipeline.

use crate::model::{Report, SupportVerdict};
use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `check_answer`: the one tool most agents need.
pub const CHECK_ANSWER: &str = "check_answer";
/// `check_links`: links alone.
pub const CHECK_LINKS: &str = "check_links";
/// `judge_claims`: claims against evidence text the caller has.
pub const JUDGE_CLAIMS: &str = "judge_claims";

/// What `check_answer` takes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckAnswerInput {
    /// The answer: Markdown, Slack mrkdwn or plain text as a string, or the agent's JSON
    /// (`{text, sources}`, agent results, a research report, search results) as a JSON
    /// value or a string holding it.
    pub answer: Value,
    /// Probe each link (default true). False: collect and score only.
    #[serde(default = "yes")]
    pub verify: bool,
    /// Read the cited pages and judge the claims against them (default true; needs
    /// `verify`).
    #[serde(default = "yes")]
    pub support: bool,
}

/// What `check_links` takes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckLinksInput {
    /// The links to check, http or https.
    pub urls: Vec<String>,
}

/// What `judge_claims` takes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JudgeClaimsInput {
    /// Each claim with the evidence to judge it against.
    pub claims: Vec<ClaimToJudge>,
}

/// One claim and its evidence.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimToJudge {
    /// The claim, one sentence.
    pub claim: String,
    /// The evidence: one text, or a list of passages.
    pub evidence: Evidence,
}

/// Evidence as one text or as passages.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Evidence {
    /// One text.
    Text(String),
    /// Passages.
    Passages(Vec<String>),
}

impl<'de> Deserialize<'de> for Evidence {
    /// A string, or a list of strings; anything else is refused in words a model reads.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Evidence, D::Error> {
        let refused = || serde::de::Error::custom("expected a string or a list of strings");
        match Value::deserialize(deserializer)? {
            Value::String(text) => Ok(Evidence::Text(text)),
            Value::Array(items) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text),
                    _ => Err(refused()),
                })
                .collect::<Result<Vec<String>, D::Error>>()
                .map(Evidence::Passages),
            _ => Err(refused()),
        }
    }
}

fn yes() -> bool {
    true
}

/// What `check_answer` gives.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckAnswerOutput {
    /// One paragraph saying what was found.
    pub summary: String,
    /// How far the answer can be trusted, from its sources' credibility, their variety
    /// and how many of its claims cite one; null when nothing was scored.
    pub confidence: Option<Confidence>,
    /// Every source the answer cites, internal ones first, each once.
    pub sources: Vec<SourceOutput>,
    /// Claims that state a figure, date, quotation or superlative and cite nothing.
    pub uncited_claims: Vec<String>,
    /// Claims a cited page does not fully support, with what the page says.
    pub unsupported_claims: Vec<UnsupportedClaim>,
}

/// The answer's confidence.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Confidence {
    /// From 0 to 1.
    pub value: f64,
    /// In words (`high`, `medium`, `low`, `not checked`).
    pub label: String,
}

/// One source and its verdict.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SourceOutput {
    /// The source's number in this answer.
    pub id: usize,
    /// Its link, when it has one.
    pub url: Option<String>,
    /// Its title, when it has one.
    pub title: Option<String>,
    /// `slack`, `confluence`, `file` or `web`.
    pub kind: String,
    /// The link's verdict, as `sourcebot check --format json` gives it: `verified`,
    /// `broken`, `restricted`, `server_error`, `timed_out`, `unreachable`, `blocked`,
    /// `invalid` or `not_checked`.
    pub verdict: String,
    /// Why, in words.
    pub reason: String,
    /// The final HTTP status, when one came back.
    pub status_code: Option<u16>,
}

/// A claim a cited page does not fully support.
#[derive(Debug, Serialize, JsonSchema)]
pub struct UnsupportedClaim {
    /// The claim.
    pub claim: String,
    /// The source it cites (its `id` in `sources`).
    pub source_id: usize,
    /// That source's link.
    pub url: Option<String>,
    /// `partly supported` or `not supported`.
    pub verdict: String,
    /// The page's passage closest to the claim.
    pub quote: Option<String>,
    /// The claim's names, figures and dates the page never mentions.
    pub missing: Vec<String>,
    /// The claim's figures the page gives differently.
    pub differs: Vec<DifferOutput>,
}

/// A figure the page gives differently.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DifferOutput {
    /// As the claim says it.
    pub claim: String,
    /// As the page says it.
    pub page: String,
}

/// What `check_links` gives.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckLinksOutput {
    /// Each distinct link, in the order given (links that differ only in tracking
    /// parameters or a fragment are one).
    pub links: Vec<LinkOutput>,
}

/// One link's verdict.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LinkOutput {
    /// The link.
    pub url: String,
    /// Its verdict, as in `check_answer`.
    pub verdict: String,
    /// Why, in words.
    pub reason: String,
    /// The final HTTP status, when one came back.
    pub status_code: Option<u16>,
}

/// What `judge_claims` gives.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JudgeClaimsOutput {
    /// One judgment a claim, in order.
    pub judgments: Vec<Judgment>,
}

/// One claim judged, as `sourcebot support` gives it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Judgment {
    /// The claim.
    pub claim: String,
    /// `supported`, `partly supported`, `not supported`, or `unreadable` (no evidence).
    pub verdict: String,
    /// The score, 0 to 1.
    pub support: f64,
    /// The evidence's passage closest to the claim.
    pub quote: Option<String>,
    /// The claim's names, figures and dates the evidence never mentions.
    pub missing: Vec<String>,
    /// The claim's figures the evidence gives differently.
    pub differs: Vec<DifferOutput>,
}

const CHECK_ANSWER_WORDS: &str = "Checks the sources an answer cites before you post it. \
Call it on your draft whenever it cites sources (links, [n] references, or structured \
sources), and again after fixing what it found. It finds every cited source, probes each \
link (a dead or invented link comes back `broken`), reads the cited pages and says, claim \
by claim, whether the page supports it: what the page never mentions (`missing`) and the \
figures it gives differently (`differs`). It also lists the claims that state a figure, \
date or quotation and cite nothing. Fix by dropping or replacing broken links, citing a \
page for uncited claims, and correcting figures the page contradicts.";

const CHECK_LINKS_WORDS: &str = "Checks whether links are real and reachable, as \
`check_answer` does for an answer's sources: each comes back `verified`, `broken` (404, \
410, or a host that does not resolve: typical of invented links), `restricted`, \
`server_error`, `timed_out`, `unreachable`, `blocked` (a private address) or `invalid`. \
Use it on links you are about to cite.";

const JUDGE_CLAIMS_WORDS: &str = "Judges claims against evidence text you already have \
(passages you retrieved), without fetching anything: for each claim, whether the evidence \
supports it, the closest passage, the claim's names and figures the evidence never \
mentions, and figures it gives differently. Use it to check a sentence against its \
source before citing that source for it.";

/// The three tools, as `tools/list` gives them.
pub fn definitions() -> Vec<Tool> {
    let annotations = |title: &str| {
        ToolAnnotations::with_title(title)
            .read_only(true)
            .open_world(true)
    };
    vec![
        Tool::new(
            CHECK_ANSWER,
            CHECK_ANSWER_WORDS,
            schema::<CheckAnswerInput>(),
        )
        .with_title("Check an answer's sources")
        .with_output_schema::<CheckAnswerOutput>()
        .with_annotations(annotations("Check an answer's sources")),
        Tool::new(CHECK_LINKS, CHECK_LINKS_WORDS, schema::<CheckLinksInput>())
            .with_title("Check links")
            .with_output_schema::<CheckLinksOutput>()
            .with_annotations(annotations("Check links")),
        Tool::new(
            JUDGE_CLAIMS,
            JUDGE_CLAIMS_WORDS,
            schema::<JudgeClaimsInput>(),
        )
        .with_title("Judge claims against evidence")
        .with_output_schema::<JudgeClaimsOutput>()
        .with_annotations(
            ToolAnnotations::with_title("Judge claims against evidence")
                .read_only(true)
                .open_world(false),
        ),
    ]
}

/// The JSON Schema of `T` as an object.
fn schema<T: JsonSchema>() -> std::sync::Arc<serde_json::Map<String, Value>> {
    let value = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    match value {
        Value::Object(map) => std::sync::Arc::new(map),
        _ => std::sync::Arc::new(serde_json::Map::new()),
    }
}

/// The wire name of a value that serialises to a string (a verdict class, a kind).
pub(crate) fn wire_name(value: impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => name,
        _ => String::new(),
    }
}

/// `check_answer`'s result for a checked `report`.
pub fn answer_output(report: &Report) -> CheckAnswerOutput {
    let sources: Vec<SourceOutput> = report
        .sources()
        .map(|source| SourceOutput {
            id: source.id,
            url: source.url.clone(),
            title: Some(source.title.clone()).filter(|t| !t.is_empty()),
            kind: wire_name(source.kind),
            verdict: wire_name(source.verdict.class),
            reason: source.verdict.reason.clone().unwrap_or_default(),
            status_code: source.verdict.status_code,
        })
        .collect();
    let uncited_claims: Vec<String> = report.uncited_claims().map(|c| c.text.clone()).collect();
    let unsupported_claims: Vec<UnsupportedClaim> = report
        .claims
        .iter()
        .flat_map(|claim| claim.support.iter().map(move |support| (claim, support)))
        .filter(|(_, support)| {
            matches!(
                support.verdict,
                SupportVerdict::PartlySupported | SupportVerdict::NotSupported
            )
        })
        .map(|(claim, support)| UnsupportedClaim {
            claim: claim.text.clone(),
            source_id: support.source,
            url: report
                .sources()
                .find(|s| s.id == support.source)
                .and_then(|s| s.url.clone()),
            verdict: support.verdict.as_str().to_string(),
            quote: support.quote.clone(),
            missing: support.missing.clone(),
            differs: support
                .differs
                .iter()
                .map(|d| DifferOutput {
                    claim: d.claim.clone(),
                    page: d.page.clone(),
                })
                .collect(),
        })
        .collect();
    let summary = summary(report, &sources, &uncited_claims, &unsupported_claims);
    CheckAnswerOutput {
        summary,
        confidence: report.confidence.as_ref().map(|c| Confidence {
            value: c.value,
            label: c.label.clone(),
        }),
        sources,
        uncited_claims,
        unsupported_claims,
    }
}

/// The text a model that reads only text gets: counts, then what to fix.
fn summary(
    report: &Report,
    sources: &[SourceOutput],
    uncited: &[String],
    unsupported: &[UnsupportedClaim],
) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for source in sources {
        match counts.iter_mut().find(|(v, _)| *v == source.verdict) {
            Some((_, n)) => *n += 1,
            None => counts.push((source.verdict.clone(), 1)),
        }
    }
    let by_verdict: Vec<String> = counts
        .iter()
        .map(|(verdict, n)| format!("{n} {}", verdict.replace('_', " ")))
        .collect();
    let mut out = format!(
        "{} source{}",
        sources.len(),
        if sources.len() == 1 { "" } else { "s" }
    );
    if !by_verdict.is_empty() {
        out.push_str(&format!(" ({})", by_verdict.join(", ")));
    }
    out.push_str(&format!(
        "; {} of {} claims cite nothing; {} claim-source pair{} not fully supported.",
        uncited.len(),
        report.claims.len(),
        unsupported.len(),
        if unsupported.len() == 1 {
            " is"
        } else {
            "s are"
        }
    ));
    if let Some(confidence) = &report.confidence {
        out.push_str(&format!(
            " Confidence {:.2} ({}).",
            confidence.value, confidence.label
        ));
    }
    for source in sources.iter().filter(|s| {
        !matches!(
            s.verdict.as_str(),
            "verified" | "not_checked" | "restricted"
        )
    }) {
        out.push_str(&format!(
            "\n- [{}] {} {}: {}",
            source.id,
            source.url.as_deref().unwrap_or("(no link)"),
            source.verdict.replace('_', " "),
            source.reason
        ));
    }
    for claim in unsupported {
        let mut line = format!(
            "\n- {} by [{}]: \"{}\"",
            claim.verdict, claim.source_id, claim.claim
        );
        for differ in &claim.differs {
            line.push_str(&format!(
                "; the page says {}, not {}",
                differ.page, differ.claim
            ));
        }
        // A figure the page gives differently is said once, above.
        let said: Vec<crate::model::Differ> = claim
            .differs
            .iter()
            .map(|d| crate::model::Differ {
                claim: d.claim.clone(),
                page: d.page.clone(),
            })
            .collect();
        let missing = crate::render::evidence::not_differing(
            &claim.missing,
            &said.iter().collect::<Vec<_>>(),
        );
        if !missing.is_empty() {
            line.push_str(&format!("; the page never mentions {}", missing.join(", ")));
        }
        out.push_str(&line);
    }
    for claim in uncited {
        out.push_str(&format!("\n- cites nothing: \"{claim}\""));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_schemas_and_annotations() {
        let tools = definitions();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, [CHECK_ANSWER, CHECK_LINKS, JUDGE_CLAIMS]);
        for tool in &tools {
            assert_eq!(tool.input_schema.get("type"), Some(&Value::from("object")));
            let output = tool.output_schema.as_ref().expect("output schema");
            assert_eq!(output.get("type"), Some(&Value::from("object")));
            let annotations = tool.annotations.as_ref().expect("annotations");
            assert_eq!(annotations.read_only_hint, Some(true));
            assert!(tool.description.as_ref().is_some_and(|d| d.len() > 100));
        }
        let answer = &tools[0].input_schema;
        assert_eq!(answer.get("required"), Some(&serde_json::json!(["answer"])));
    }

    #[test]
    fn unknown_fields_and_wrong_types_are_refused_by_name() {
        let error = serde_json::from_value::<CheckLinksInput>(serde_json::json!({"urls": "x"}))
            .expect_err("a string is not a list");
        assert!(error.to_string().contains("sequence"), "{error}");
        let error = serde_json::from_value::<CheckAnswerInput>(
            serde_json::json!({"answer": "a", "verfy": false}),
        )
        .expect_err("unknown field");
        assert!(error.to_string().contains("verfy"), "{error}");
    }
}

//! The JSON report is a contract with programs that call sourcebot: this test pins
//! every field name and the spelling of every enum value, so that a rename shows up
//! as a failing test rather than as a broken caller. Adding a field means adding it
//! here too.

use serde_json::Value;
use sourcebot::collect::input::{parse_answer, FormatHint};
use sourcebot::collect::CollectOptions;
use std::collections::BTreeSet;

/// Every key path in `value`, arrays written as `[]`.
fn key_paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let path = format!("{prefix}.{key}");
                out.insert(path.clone());
                key_paths(child, &path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn report_json(path: &str) -> Value {
    let bytes = std::fs::read(path).expect("example");
    let answer = parse_answer(&bytes, FormatHint::Auto, 1 << 20).expect("parse");
    let report = sourcebot::check(&answer, &CollectOptions::default());
    serde_json::from_str(&sourcebot::render::json(&report)).expect("json")
}

#[test]
fn report_field_names_are_stable() {
    let mut paths = BTreeSet::new();
    for example in [
        "examples/answer.md",
        "examples/answer.json",
        "examples/search-results.json",
    ] {
        key_paths(&report_json(example), "", &mut paths);
    }
    let expected = [
        ".claims",
        ".claims[].cites",
        ".claims[].claim_type",
        ".claims[].classification",
        ".claims[].classification.method",
        ".claims[].classification.recommendations",
        ".claims[].classification.recommendations[].reason",
        ".claims[].classification.recommendations[].relevance",
        ".claims[].classification.recommendations[].source",
        ".claims[].relevance",
        ".claims[].signals",
        ".claims[].span",
        ".claims[].span.end",
        ".claims[].span.start",
        ".claims[].text",
        ".confidence",
        ".confidence.coverage",
        ".confidence.diversity",
        ".confidence.domains",
        ".confidence.label",
        ".confidence.mean_credibility",
        ".confidence.sources",
        ".confidence.value",
        ".dangling_citations",
        ".groups",
        ".groups[].kind",
        ".groups[].sources",
        ".groups[].sources[].agent_confidence",
        ".groups[].sources[].agents",
        ".groups[].sources[].canonical_url",
        ".groups[].sources[].citation_numbers",
        ".groups[].sources[].credibility",
        ".groups[].sources[].credibility.adjustment",
        ".groups[].sources[].credibility.agent_confidence",
        ".groups[].sources[].credibility.base",
        ".groups[].sources[].credibility.base_from",
        ".groups[].sources[].credibility.rating",
        ".groups[].sources[].credibility.search",
        ".groups[].sources[].credibility.search.above_threshold",
        ".groups[].sources[].credibility.search.domain",
        ".groups[].sources[].credibility.search.position",
        ".groups[].sources[].credibility.search.recency",
        ".groups[].sources[].credibility.search.snippet",
        ".groups[].sources[].credibility.search.value",
        ".groups[].sources[].credibility.source_type",
        ".groups[].sources[].credibility.value",
        ".groups[].sources[].credibility.verification",
        ".groups[].sources[].date",
        ".groups[].sources[].found_by",
        ".groups[].sources[].id",
        ".groups[].sources[].kind",
        ".groups[].sources[].page",
        ".groups[].sources[].position",
        ".groups[].sources[].references",
        ".groups[].sources[].snippet",
        ".groups[].sources[].title",
        ".groups[].sources[].url",
        ".groups[].sources[].verdict",
        ".groups[].sources[].verdict.class",
        ".groups[].sources[].verdict.elapsed_ms",
        ".groups[].sources[].verdict.final_url",
        ".groups[].sources[].verdict.reason",
        ".groups[].sources[].verdict.status_code",
        ".metrics",
        ".metrics.claims",
        ".metrics.cited_claims",
        ".metrics.dangling_citations",
        ".metrics.duplicates_removed",
        ".metrics.failed_agent_results",
        ".metrics.links_skipped",
        ".metrics.per_kind",
        ".metrics.per_kind.confluence",
        ".metrics.per_kind.file",
        ".metrics.per_kind.slack",
        ".metrics.per_kind.web",
        ".metrics.total_references",
        ".metrics.uncited_claims",
        ".metrics.unique_sources",
        ".origin",
        ".origin.type",
        ".shape",
        ".verification",
        ".verification.counts",
        ".verification.counts.blocked",
        ".verification.counts.broken",
        ".verification.counts.invalid",
        ".verification.counts.not_checked",
        ".verification.counts.restricted",
        ".verification.counts.server_error",
        ".verification.counts.timed_out",
        ".verification.counts.unreachable",
        ".verification.counts.verified",
        ".verification.elapsed_ms",
        ".verification.network_down",
        ".verification.note",
        ".verification.performed",
        ".warnings",
    ];
    let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        paths, expected,
        "the JSON report's fields changed: update callers and this list"
    );
}

/// A claim's support for one source (`claims[].support[]`): its fields, with every
/// optional one present, and `differs` (what the page says instead of the claim's
/// figures) left out when empty.
#[test]
fn claim_support_field_names_are_stable() {
    use sourcebot::model::{ClaimSupport, Differ, SupportJudge, SupportVerdict};
    let full = ClaimSupport {
        source: 1,
        score: 0.1,
        verdict: SupportVerdict::PartlySupported,
        quote: Some("The API serves 900 requests per second.".into()),
        missing: vec!["1,200 requests per second".into()],
        differs: vec![Differ {
            claim: "1,200 requests per second".into(),
            page: "900 requests per second".into(),
        }],
        reason: Some("The page gives another rate.".into()),
        judge: SupportJudge::Llm,
    };
    let value = serde_json::to_value(&full).expect("json");
    let mut paths = BTreeSet::new();
    key_paths(&value, "", &mut paths);
    let expected: BTreeSet<String> = [
        ".differs",
        ".differs[].claim",
        ".differs[].page",
        ".judge",
        ".missing",
        ".quote",
        ".reason",
        ".score",
        ".source",
        ".verdict",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(
        paths, expected,
        "a claim's support fields changed: update callers and this list"
    );
    assert_eq!(value["verdict"], "partly supported");
    assert_eq!(value["judge"], "llm");
    assert_eq!(
        value["differs"],
        serde_json::json!([{"claim": "1,200 requests per second", "page": "900 requests per second"}])
    );
    let bare = ClaimSupport {
        quote: None,
        differs: Vec::new(),
        reason: None,
        ..full
    };
    let value = serde_json::to_value(&bare).expect("json");
    assert!(value.get("differs").is_none(), "{value}");
    assert_eq!(
        value["missing"],
        serde_json::json!(["1,200 requests per second"])
    );
    // A caller's older JSON, without `differs`, still reads.
    let back: ClaimSupport = serde_json::from_value(value).expect("reads back");
    assert!(back.differs.is_empty());
}

#[test]
fn enum_values_are_lower_case_words() {
    let report = report_json("examples/answer.md");
    assert_eq!(report["shape"], "text");
    assert_eq!(report["origin"]["type"], "unknown");
    let kinds: Vec<&str> = report["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["slack", "confluence", "file", "web"]);
    let first = &report["groups"][0]["sources"][0];
    assert_eq!(first["verdict"]["class"], "not_checked");
    assert_eq!(first["found_by"][0], "inline");
    let signals: BTreeSet<&str> = report["claims"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c["signals"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap())
        })
        .collect();
    assert!(
        signals.iter().all(|s| [
            "number",
            "date",
            "percentage",
            "money",
            "quotation",
            "superlative"
        ]
        .contains(s)),
        "{signals:?}"
    );
    let report = report_json("examples/agent-results.json");
    assert_eq!(report["shape"], "agent_results");
    assert_eq!(report["metrics"]["failed_agent_results"], 1);
    let report = report_json("examples/research-report.json");
    assert_eq!(report["shape"], "research_report");
    assert_eq!(
        report_json("examples/search-results.json")["shape"],
        "search_results"
    );
    assert_eq!(report_json("examples/answer.json")["shape"], "answer_json");
}

/// The audit's JSON (`sourcebot audit --format json`) is a contract with CI jobs: its
/// metric names are the report format's, camelCase.
#[tokio::test]
async fn audit_field_names_are_stable() {
    use sourcebot::audit::{audit_files, find_files, AuditOptions};
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("report.json"),
        r#"{"title":"T","phase":"final","generatedAt":"2026-01-01","citations":[
            {"id":"1","text":"Census","url":"https://www.census.gov/","confidenceScore":0.9},
            {"id":"2","text":"No link"}]}"#,
    )
    .expect("write");
    std::fs::write(dir.path().join("broken.json"), "{").expect("write");
    let files = find_files(&[dir.path().to_string_lossy().into_owned()]).expect("files");
    let pipeline = sourcebot::pipeline::Pipeline::builder()
        .verify(false)
        .build()
        .expect("pipeline");
    let report = audit_files(&files, &AuditOptions::default(), &pipeline, None)
        .await
        .expect("audit");
    let value = serde_json::to_value(&report).expect("json");
    let mut paths = BTreeSet::new();
    key_paths(&value, "", &mut paths);
    let expected = [
        ".details",
        ".errors",
        ".failures",
        ".errors[].message",
        ".errors[].path",
        ".leastSupported",
        ".leastSupportedOmitted",
        ".metrics",
        ".metrics.aboveThresholdRate",
        ".metrics.belowThresholdCount",
        ".metrics.citationsAboveThreshold",
        ".metrics.citationsWithUrl",
        ".metrics.coverageRate",
        ".metrics.reportsScanned",
        ".metrics.totalCitations",
        ".minSupported",
        ".reports",
        ".reports[].aboveThreshold",
        ".reports[].citations",
        ".reports[].confidence",
        ".reports[].path",
        ".reports[].support",
        ".reports[].withUrl",
        ".status",
        ".support",
        ".supportChecked",
        ".threshold",
        ".verdicts",
        ".verdicts.blocked",
        ".verdicts.broken",
        ".verdicts.invalid",
        ".verdicts.not_checked",
        ".verdicts.restricted",
        ".verdicts.server_error",
        ".verdicts.timed_out",
        ".verdicts.unreachable",
        ".verdicts.verified",
        ".verified",
        ".worst",
        ".worst[].citations",
        ".worst[].credibility",
        ".worst[].file",
        ".worst[].numbers",
        ".worst[].reason",
        ".worst[].title",
        ".worst[].url",
        ".worst[].verdict",
        ".worstOmitted",
    ];
    let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        paths, expected,
        "the audit JSON's fields changed: update callers and this list"
    );
    assert_eq!(value["status"], "fail");
    assert_eq!(value["metrics"]["totalCitations"], 2);
    assert_eq!(value["metrics"]["coverageRate"], 0.5);
}

/// The command line streams the report (`render::write_json`) instead of building the
/// text first (`render::json`): the bytes are the same, for every bundled example.
#[test]
fn streamed_json_is_the_rendered_json() {
    for example in [
        "examples/answer.md",
        "examples/answer.json",
        "examples/search-results.json",
        "examples/research-report.json",
        "examples/agent-results.json",
        "examples/slack-message.json",
    ] {
        let bytes = std::fs::read(example).expect("example");
        let answer = parse_answer(&bytes, FormatHint::Auto, 1 << 20).expect("parse");
        let report = sourcebot::check(&answer, &CollectOptions::default());
        let mut streamed = Vec::new();
        sourcebot::render::write_json(&report, &mut streamed).expect("write");
        assert_eq!(
            String::from_utf8(streamed).expect("utf-8"),
            sourcebot::render::json(&report),
            "{example}"
        );
    }
}

/// Source types are spelled in JSON as their names say (`content_farm`), and read back.
#[test]
fn source_types_are_spelled_as_named() {
    use sourcebot::model::SourceType;
    let spelled: Vec<String> = SourceType::ALL
        .iter()
        .map(|t| {
            serde_json::to_value(t)
                .expect("serialises")
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(
        spelled,
        [
            "journal",
            "government",
            "academic",
            "encyclopedia",
            "documentation",
            "news",
            "company",
            "forum",
            "blog",
            "social",
            "content_farm",
            "landing",
            "unknown"
        ]
    );
    for t in SourceType::ALL {
        assert_eq!(serde_json::to_value(t).expect("serialises"), t.as_str());
        let back: SourceType = serde_json::from_value(t.as_str().into()).expect("reads back");
        assert_eq!(back, t);
    }
}

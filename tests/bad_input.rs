//! Hostile and oversized input through the library: each gives a clear error or a
//! bounded result that says what was left out, never a panic.

use sourcebot::collect::input::{parse_answer, FormatHint, InputError, DEFAULT_MAX_INPUT_BYTES};
use sourcebot::collect::{CollectOptions, DEFAULT_MAX_SOURCES};
use sourcebot::model::Answer;
use sourcebot::render::{self, RenderOptions};

fn check(text: String) -> sourcebot::model::Report {
    sourcebot::check(&Answer::from_text(text), &CollectOptions::default())
}

#[test]
fn a_100_kb_url_is_counted_and_named_not_kept() {
    let url = format!("https://example.com/{}", "a".repeat(100 * 1024));
    let report = check(format!(
        "Claim with a huge link {url} and a normal one https://b.com/x."
    ));
    assert_eq!(report.metrics.unique_sources, 1);
    assert_eq!(report.metrics.links_skipped, 1);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("longer than 16384 bytes")),
        "{:?}",
        report.warnings
    );
    let out = render::mrkdwn(&report, &RenderOptions::default());
    assert!(
        out.contains("longer than 16384 bytes"),
        "the person sees the note: {out}"
    );
}

#[test]
fn a_100_kb_url_in_markdown_and_slack_form() {
    let long = "b".repeat(100 * 1024);
    let report = check(format!(
        "[x](https://a.com/{long}) <https://c.com/{long}|y>"
    ));
    assert_eq!(
        report.metrics.unique_sources + report.metrics.links_skipped,
        2
    );
    assert!(render::check_limits(&render::blocks(&report, &RenderOptions::default())).is_ok());
}

#[test]
fn a_hundred_thousand_links_are_bounded() {
    let text: String = (0..100_000)
        .map(|i| format!("https://h{i}.example.com/p "))
        .collect();
    let report = check(text);
    assert_eq!(report.metrics.unique_sources, DEFAULT_MAX_SOURCES);
    assert_eq!(report.metrics.links_skipped, 100_000 - DEFAULT_MAX_SOURCES);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("99000 more link(s)")),
        "{:?}",
        report.warnings
    );
    let options = RenderOptions::default();
    let message = render::blocks(&report, &options);
    assert!(render::check_limits(&message).is_ok());
    assert!(render::mrkdwn(&report, &options).contains("…and 995 more"));
}

#[test]
fn a_hundred_thousand_markers_with_no_references() {
    let text: String = (1..=100_000)
        .map(|i| format!("Claim {i} [{i}]. "))
        .collect();
    let report = check(text);
    // [1900]…[2100] resolve to nothing and read as bracketed years, not citations.
    assert_eq!(report.metrics.dangling_citations, 100_000 - 201);
    let out = render::mrkdwn(&report, &RenderOptions::default());
    assert!(
        out.len() < 20_000,
        "the dangling list is capped: {} bytes",
        out.len()
    );
}

#[test]
fn a_flood_of_markers_and_links_is_read_up_to_a_bound() {
    use sourcebot::collect::scan::{MAX_LINKS_READ, MAX_MARKERS_READ};
    let report = check("[5]".repeat(MAX_MARKERS_READ + 10));
    assert_eq!(report.metrics.dangling_citations, MAX_MARKERS_READ);
    assert!(
        report.dangling_citations.len() <= 1 + 1_000,
        "repeats listed are capped"
    );
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("10 citation marker(s) beyond the first 200000")),
        "{:?}",
        report.warnings
    );
    let report = check("https://a.com/x ".repeat(MAX_LINKS_READ + 7));
    assert_eq!(report.metrics.unique_sources, 1);
    assert_eq!(report.metrics.links_skipped, 7);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("7 link(s) beyond the first 200000")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn a_very_long_answer_lists_the_first_claims_and_counts_all() {
    let sentences = sourcebot::collect::MAX_LISTED_CLAIMS + 50;
    let report = check("Revenue grew 5% in the third quarter. ".repeat(sentences));
    assert_eq!(report.claims.len(), sourcebot::collect::MAX_LISTED_CLAIMS);
    assert_eq!(report.metrics.claims, sentences);
    assert_eq!(report.metrics.uncited_claims, sentences);
    assert!(report
        .warnings
        .iter()
        .any(|w| w.contains(&format!("of {sentences} sentences"))));
    let out = render::mrkdwn(&report, &RenderOptions::default());
    assert!(
        out.contains(&format!("{sentences} claims cite nothing")),
        "counts come from the metrics"
    );
}

#[test]
fn input_over_the_limit_is_refused_before_parsing() {
    let big = vec![b'x'; DEFAULT_MAX_INPUT_BYTES + 1];
    assert_eq!(
        parse_answer(&big, FormatHint::Auto, DEFAULT_MAX_INPUT_BYTES),
        Err(InputError::TooLarge {
            limit: DEFAULT_MAX_INPUT_BYTES
        })
    );
}

#[test]
fn non_utf8_is_refused_with_the_offset() {
    let err = parse_answer(b"ok \xc3\x28 bad", FormatHint::Auto, 1024).unwrap_err();
    assert_eq!(err, InputError::NotUtf8 { offset: 3 });
    assert!(err.to_string().contains("offset 3"));
}

#[test]
fn json_of_the_wrong_shape_names_the_path() {
    let cases: [(&str, &str); 6] = [
        (
            "42",
            "$: expected an object or an array of agent results, found a number",
        ),
        (
            r#"{"text": 5}"#,
            "$.text: expected a string, found a number",
        ),
        (
            r#"{"text": "a", "sources": {}}"#,
            "$.sources: expected an array, found an object",
        ),
        (
            r#"[{"success": "yes"}]"#,
            "$[0].success: expected a boolean, found a string",
        ),
        (
            r#"{"citations": [{"id": "1", "url": 3}]}"#,
            "$.citations[0].url: expected a string, found a number",
        ),
        (
            r#"{"organic": [{"link": "https://a.com", "position": -1}]}"#,
            "$.organic[0].position: expected a whole number ≥ 0, found -1",
        ),
    ];
    for (json, message) in cases {
        let err = parse_answer(json.as_bytes(), FormatHint::Json, 1024).unwrap_err();
        assert_eq!(err.to_string(), message, "{json}");
    }
}

#[test]
fn deeply_nested_json_is_refused_not_a_stack_overflow() {
    let json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let err = parse_answer(json.as_bytes(), FormatHint::Json, DEFAULT_MAX_INPUT_BYTES).unwrap_err();
    assert!(err.to_string().contains("recursion limit"), "{err}");
}

#[test]
fn pathological_text_stays_bounded() {
    for text in [
        "[".repeat(200_000),
        "(".repeat(200_000),
        "`".repeat(200_000),
        "<https://".repeat(20_000),
        "[a](".repeat(50_000),
        "https://a.com/".to_string() + &"(".repeat(100_000),
        "。".repeat(100_000),
        "1. ".repeat(100_000),
        "\n".repeat(200_000),
    ] {
        let report = check(text);
        assert!(render::check_limits(&render::blocks(&report, &RenderOptions::default())).is_ok());
    }
}

/// A Slack message as JSON text, parsed and checked as the CLI and the API do.
fn check_slack(json: &str) -> sourcebot::model::Report {
    let answer = parse_answer(
        json.as_bytes(),
        FormatHint::SlackMessage,
        DEFAULT_MAX_INPUT_BYTES,
    )
    .expect("a Slack message is read, however broken its parts");
    sourcebot::check(&answer, &CollectOptions::default())
}

/// The canonical URLs of a report's sources.
fn urls(report: &sourcebot::model::Report) -> Vec<String> {
    report
        .sources()
        .filter_map(|s| s.canonical_url.clone())
        .collect()
}

#[test]
fn a_slack_message_of_fifty_blocks_is_read_whole() {
    let blocks: Vec<serde_json::Value> = (0..50)
        .map(|i| serde_json::json!({"type": "section", "text": {"type": "mrkdwn", "text": format!("Point {i} rose 5% <https://s{i}.example.com/|source {i}>.")}}))
        .collect();
    let report = check_slack(
        &serde_json::json!({"type": "message", "ts": "1.1", "blocks": blocks}).to_string(),
    );
    assert_eq!(report.metrics.unique_sources, 50);
    assert_eq!(report.metrics.cited_claims, 50);
    assert!(render::check_limits(&render::blocks(&report, &RenderOptions::default())).is_ok());
}

#[test]
fn deep_rich_text_nesting_is_cut_and_the_rest_is_read() {
    // rich_text sections nested 5,000 deep where runs belong: far past serde_json's own
    // recursion limit (128) in text, so build it as a value.
    let mut nested = serde_json::json!({"type": "link", "url": "https://deepest.example.com/"});
    for _ in 0..100 {
        nested = serde_json::json!({"type": "rich_text_section", "elements": [nested]});
    }
    let message = serde_json::json!({"type": "message", "ts": "1.1", "blocks": [
        {"type": "rich_text", "elements": [nested]},
        {"type": "section", "text": {"type": "mrkdwn", "text": "After it <https://after.example.com/|after>."}}
    ]});
    let read = sourcebot::collect::slack_message::read_message(&message, &Default::default());
    assert!(read.notes.counts.too_deep >= 1, "{:?}", read.notes);
    let report = sourcebot::check(&read.answer, &CollectOptions::default());
    assert_eq!(urls(&report), ["https://after.example.com/"]);
    // Nesting deeper than serde_json reads (128 levels) is a clear JSON error, not a crash.
    let deep_text = format!(
        "{{\"type\":\"message\",\"ts\":\"1.1\",\"blocks\":[{}{}]}}",
        "[".repeat(1_000),
        "]".repeat(1_000)
    );
    let error = parse_answer(
        deep_text.as_bytes(),
        FormatHint::SlackMessage,
        DEFAULT_MAX_INPUT_BYTES,
    )
    .expect_err("too deep for JSON");
    assert!(error.to_string().contains("recursion limit"), "{error}");
}

#[test]
fn ten_thousand_elements_are_read_within_bounds() {
    let runs: Vec<serde_json::Value> = (0..10_000)
        .map(|i| serde_json::json!({"type": "link", "url": format!("https://e{i}.example.com/p"), "text": format!("link {i}")}))
        .collect();
    let json = serde_json::json!({"type": "message", "ts": "1.1", "blocks": [
        {"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": runs}]}
    ]})
    .to_string();
    let report = check_slack(&json);
    assert_eq!(report.metrics.unique_sources, DEFAULT_MAX_SOURCES);
    assert_eq!(report.metrics.links_skipped, 10_000 - DEFAULT_MAX_SOURCES);
    assert!(render::check_limits(&render::blocks(&report, &RenderOptions::default())).is_ok());
}

#[test]
fn invalid_utf16_escapes_do_not_lose_the_message() {
    let json = r#"{"type":"message","ts":"1.1","blocks":[
        {"type":"section","text":{"type":"mrkdwn","text":"Cut mid-emoji \ud83d and a lone low \udc00 here."}},
        {"type":"section","text":{"type":"mrkdwn","text":"Still read <https://kept.example.com/|kept>."}}]}"#;
    let report = check_slack(json);
    assert_eq!(urls(&report), ["https://kept.example.com/"]);
}

#[test]
fn wrong_field_types_are_skipped_and_the_rest_is_read() {
    let json = r#"{"type":"message","ts":"1.1","text":42,"blocks":[
        {"type":"section","text":["not","an","object"],"fields":{"a":1},"accessory":{"type":"button","url":7}},
        {"type":"context","elements":"none"},
        {"type":"rich_text","elements":[{"type":"rich_text_section","elements":[{"type":"link","url":12},{"type":"text","text":null}]}]},
        {"type":"table","rows":[["x",{"type":"raw_text","text":5}],7]},
        {"type":"section","text":{"type":"mrkdwn","text":"Survivor <https://survivor.example.com/|survivor>."}}],
        "attachments":[7,{"title":["x"],"title_link":{"u":1},"fields":[{"title":3,"value":"<https://field.example.com/|field>"}]}]}"#;
    let report = check_slack(json);
    assert_eq!(
        urls(&report),
        [
            "https://survivor.example.com/",
            "https://field.example.com/"
        ]
    );
}

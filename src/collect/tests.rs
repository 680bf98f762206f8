//! The collector's unit tests.
use super::sentences::blank_spans;
use super::*;

fn run(text: &str) -> Collected {
    collect(&Answer::from_text(text), &CollectOptions::default())
}

fn urls(c: &Collected) -> Vec<&str> {
    c.sources
        .iter()
        .filter_map(|s| s.canonical_url.as_deref())
        .collect()
}

#[test]
fn duplicates_collapse_on_the_canonical_url() {
    let c = run("A https://Example.com:443/a?utm_source=x#top and <https://example.com/a|Example A> and [A](https://example.com/a?fbclid=1).");
    assert_eq!(urls(&c), ["https://example.com/a"]);
    assert_eq!(c.sources[0].references, 3);
    assert_eq!(c.sources[0].title, "Example A");
    assert_eq!(c.metrics.total_references, 3);
    assert_eq!(c.metrics.duplicates_removed, 2);
}

#[test]
fn markers_resolve_to_the_reference_list() {
    let c = run("Rust is fast [1]. It is safe [1][2].\n\n[1] https://a.com/fast - Fast\n[2] https://b.com/safe - Safe\n[3] https://c.com/unused - Unused\n");
    assert_eq!(
        urls(&c),
        [
            "https://a.com/fast",
            "https://b.com/safe",
            "https://c.com/unused"
        ]
    );
    let refs: Vec<usize> = c.sources.iter().map(|s| s.references).collect();
    assert_eq!(
        refs,
        [2, 1, 1],
        "markers count; an uncited entry counts once"
    );
    assert_eq!(c.sources[0].citation_numbers, [1]);
    assert_eq!(c.sources[0].found_by, [FoundBy::ReferenceList]);
    assert!(c.dangling.is_empty());
}

#[test]
fn dangling_markers_are_reported() {
    let c = run("Claim [1]. Other [4].\n\n[1] https://a.com\n");
    assert_eq!(c.dangling.len(), 1);
    assert_eq!(c.dangling[0].number, 4);
    assert_eq!(c.metrics.dangling_citations, 1);
}

#[test]
fn bracketed_years_are_not_dangling_citations() {
    let c = run("Forecast [2025-2030] and the outlook [2024] [3].\n\n[1] https://a.com\n");
    assert_eq!(c.dangling.iter().map(|d| d.number).collect::<Vec<_>>(), [3]);
    let c = run("See [2024].\n\n[2024] https://a.com/2024 - Report\n");
    assert!(c.dangling.is_empty());
    assert_eq!(c.sources[0].references, 1);
    assert_eq!(c.sources[0].citation_numbers, [2024]);
}

#[test]
fn markers_resolve_to_structured_sources_by_position_then_order() {
    let answer = Answer {
        text: "The first claim cites two [2]. The second claim cites one [1].".into(),
        sources: vec![
            StructuredSource {
                url: Some("https://b.com".into()),
                position: Some(2),
                ..Default::default()
            },
            StructuredSource {
                url: Some("https://a.com".into()),
                position: Some(1),
                ..Default::default()
            },
        ],
        shape: InputShape::AnswerJson,
        ..Answer::default()
    };
    let c = collect(&answer, &CollectOptions::default());
    assert_eq!(urls(&c), ["https://b.com/", "https://a.com/"]);
    assert_eq!(c.claims[0].cites, [1]);
    assert_eq!(c.claims[1].cites, [2]);
    let answer = Answer {
        text: "A [2].".into(),
        sources: vec![
            StructuredSource {
                url: Some("https://x.com".into()),
                ..Default::default()
            },
            StructuredSource {
                url: Some("https://y.com".into()),
                ..Default::default()
            },
        ],
        ..Answer::default()
    };
    let c = collect(&answer, &CollectOptions::default());
    assert_eq!(
        urls(&c),
        ["https://y.com/", "https://x.com/"],
        "ids follow reading order"
    );
    assert_eq!(c.sources[0].references, 1);
    assert_eq!(c.sources[1].references, 1);
}

#[test]
fn structured_fields_are_kept() {
    let answer = Answer {
        text: String::new(),
        sources: vec![StructuredSource {
            url: Some("https://acme.atlassian.net/wiki/spaces/X/pages/1".into()),
            title: Some("Runbook".into()),
            kind: Some("web".into()),
            snippet: Some("snip".into()),
            date: Some("2024-01-01".into()),
            position: Some(3),
            confidence: Some(0.7),
            citation_id: None,
            subagent: Some("wiki".into()),
        }],
        shape: InputShape::AgentResults,
        ..Answer::default()
    };
    let c = collect(&answer, &CollectOptions::default());
    let s = &c.sources[0];
    assert_eq!(
        s.kind,
        SourceKind::Confluence,
        "the URL says confluence; a declared 'web' does not demote it"
    );
    assert_eq!(
        (
            s.title.as_str(),
            s.snippet.as_deref(),
            s.position,
            s.agent_confidence
        ),
        ("Runbook", Some("snip"), Some(3), Some(0.7))
    );
    assert_eq!(s.agents, ["wiki"]);
    assert_eq!(s.found_by, [FoundBy::AgentResult]);
}

#[test]
fn declared_kind_applies_to_unknown_hosts() {
    let c = run("[Source: confluence - Deploy Runbook](https://wiki.acme.io/pages/1)");
    assert_eq!(c.sources[0].kind, SourceKind::Confluence);
}

#[test]
fn configured_hosts_classify() {
    let mut options = CollectOptions::default();
    options.kind_rules.confluence_hosts = vec!["wiki.acme.io".into()];
    let c = collect(&Answer::from_text("see https://wiki.acme.io/x"), &options);
    assert_eq!(c.sources[0].kind, SourceKind::Confluence);
}

#[test]
fn via_notes_are_sources_without_links() {
    let c = run("Freeze on Friday (via slack: #eng-deploys). Also (via slack: #ENG-deploys).");
    assert_eq!(c.sources.len(), 1);
    let s = &c.sources[0];
    assert_eq!(
        (
            s.kind,
            s.title.as_str(),
            s.canonical_url.as_deref(),
            s.references
        ),
        (SourceKind::Slack, "#eng-deploys", None, 2)
    );
    assert_eq!(s.verdict.class, crate::model::VerdictClass::NotChecked);
}

#[test]
fn untitled_sources_get_a_readable_title() {
    let c = run("see https://www.example.com/docs/guide/ and [1](https://a.com/x)");
    assert_eq!(c.sources[0].title, "example.com/docs/guide");
    assert_eq!(
        c.sources[1].title, "a.com/x",
        "a bare number is not a title"
    );
    assert!(c.sources.iter().all(|s| !s.title.is_empty()));
}

#[test]
fn first_real_title_wins() {
    let c = run("https://a.com/x then [https://a.com/x](https://a.com/x) then [Real](https://a.com/x) then [Later](https://a.com/x)");
    assert_eq!(c.sources[0].title, "Real");
}

#[test]
fn every_verdict_is_not_checked() {
    let c = run("a https://a.com b (via confluence: Page) [x](https://exa mple.com)");
    assert!(c
        .sources
        .iter()
        .all(|s| s.verdict.class == crate::model::VerdictClass::NotChecked));
}

#[test]
fn source_limit_counts_what_is_left_out() {
    let text: String = (0..20).map(|i| format!("https://a{i}.com ")).collect();
    let options = CollectOptions {
        max_sources: 5,
        ..CollectOptions::default()
    };
    let c = collect(&Answer::from_text(text), &options);
    assert_eq!(c.sources.len(), 5);
    assert_eq!(c.metrics.links_skipped, 15);
    assert!(
        c.warnings.iter().any(|w| w.contains("15 more link(s)")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn too_long_links_are_counted_and_named() {
    let text = format!("see https://a.com/{}", "x".repeat(100_000));
    let c = run(&text);
    assert!(c.sources.is_empty());
    assert_eq!(c.metrics.links_skipped, 1);
    assert!(
        c.warnings.iter().any(|w| w.contains("longer than")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn unsupported_schemes_and_redefinitions_are_warned_about() {
    let c = run("[f](ftp://a.com/x) [1]\n\n[1] https://a.com/1\n[1] https://a.com/2\n");
    assert!(c.warnings.iter().any(|w| w.contains("ftp://a.com/x")));
    assert!(c
        .warnings
        .iter()
        .any(|w| w.contains("[1]") && w.contains("more than once")));
    assert_eq!(c.sources.len(), 2, "both links are still sources");
}

#[test]
fn claims_cite_their_markers_and_links() {
    let c = run("Revenue grew 45% in 2023 [1]. Costs fell by half (https://b.com/costs). Profit tripled to $3 million.\n\n[1] https://a.com/rev\n");
    let cites: Vec<Vec<usize>> = c.claims.iter().map(|cl| cl.cites.clone()).collect();
    assert_eq!(cites, vec![vec![1], vec![2], vec![]]);
    assert_eq!(c.metrics.uncited_claims, 1);
    assert!(c.claims[2].is_uncited());
    assert_eq!(c.metrics.cited_claims, 2);
}

#[test]
fn citation_numbers_are_not_figures() {
    let c = run("Rust is loved by developers [12].\n\n[12] https://a.com\n");
    assert_eq!(c.claims.len(), 1);
    assert!(c.claims[0].signals.is_empty(), "{:?}", c.claims[0].signals);
}

#[test]
fn blank_spans_replaces_covered_text() {
    let text = "ab [1] cd https://x.y ef";
    let spans = [Span::new(3, 6), Span::new(10, 21)];
    assert_eq!(blank_spans(&text[1..], 1, &spans), "b   cd   ef");
}

#[path = "../../tests/support/pieces.rs"]
mod pieces;

#[allow(dead_code)] // the benchmark's other inputs are not used here
#[path = "../../benches/support/mod.rs"]
mod bench_inputs;

/// The two ways of running the collector — sentences read on this thread, or on a
/// second one while the sources are gathered — agree on `text`.
fn assert_same_on_both_paths(text: &str) {
    let answer = Answer::from_text(text);
    let options = CollectOptions::default();
    let one = collect_on(&answer, &options, false);
    let two = collect_on(&answer, &options, true);
    assert_eq!(one, two, "the two-thread collector differs on {text:?}");
}

/// Every corpus text, alone and all joined (the size at which `collect` itself takes
/// the second thread), and generated answers of 1 MB, are collected alike on one
/// thread and on two.
#[test]
fn one_thread_and_two_agree_on_the_corpus_and_generated_answers() {
    let corpora = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let mut texts: Vec<String> = Vec::new();
    match std::fs::read_to_string(corpora.join("drb_claude37_raw.jsonl")) {
        Ok(lines) => texts.extend(
            lines
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter_map(|v| v["article"].as_str().map(str::to_string)),
        ),
        Err(_) => eprintln!(
            "notice: {} not found; the corpus part of this test is skipped",
            corpora.display()
        ),
    }
    for name in ["expertqa_domain_val.jsonl", "expertqa_rand_val.jsonl"] {
        if let Ok(lines) = std::fs::read_to_string(corpora.join(name)) {
            texts.extend(
                lines
                    .lines()
                    .filter_map(|v| serde_json::from_str::<serde_json::Value>(v).ok())
                    .flat_map(|v| {
                        let answers = v["answers"].as_object().cloned().unwrap_or_default();
                        answers
                            .values()
                            .filter_map(|a| a["answer_string"].as_str().map(str::to_string))
                            .collect::<Vec<_>>()
                    }),
            );
        }
    }
    if !texts.is_empty() {
        texts.push(texts.join("\n\n"));
    }
    texts.push(bench_inputs::synthetic_answer(1_000_000, 10_000));
    for text in &texts {
        assert_same_on_both_paths(text);
    }
}

proptest::proptest! {
    #[test]
    fn one_thread_and_two_agree_on_any_text(text in pieces::answer_text()) {
        assert_same_on_both_paths(&text);
    }
}

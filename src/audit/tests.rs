//! The audit's unit tests: the tally, the globs, the text, and files read and scored.
use super::*;
use crate::model::VerdictClass;

fn cited(url: Option<&str>, credibility: f64) -> AuditedCitation {
    AuditedCitation {
        file: "r.json".into(),
        numbers: Vec::new(),
        citations: 1,
        title: "t".into(),
        url: url.map(str::to_string),
        credibility,
        verdict: VerdictClass::NotChecked,
        reason: String::new(),
    }
}

fn audit(citations: Vec<AuditedCitation>) -> AuditReport {
    let mut tally = Tally::new(DEFAULT_CREDIBILITY_THRESHOLD, DEFAULT_WORST);
    for citation in citations {
        tally.add_citation(citation);
    }
    tally.add_file(FileSummary {
        path: "r.json".into(),
        citations: 0,
        with_url: 0,
        above_threshold: 0,
        confidence: 0.0,
        support: None,
    });
    tally.finish(false, false)
}

fn five(scores: [f64; 5]) -> Vec<AuditedCitation> {
    scores
        .iter()
        .enumerate()
        .map(|(i, s)| cited(Some(&format!("https://site{i}.example/")), *s))
        .collect()
}

#[test]
fn five_citations_above_the_threshold_pass() {
    let report = audit(five([0.81, 0.9, 0.95, 0.85, 1.0]));
    let m = &report.metrics;
    assert_eq!(m.total_citations, 5);
    assert_eq!(m.citations_with_url, 5);
    assert_eq!(m.citations_above_threshold, 5);
    assert_eq!(m.below_threshold_count, 0);
    assert_eq!(m.coverage_rate, 1.0);
    assert_eq!(m.above_threshold_rate, 1.0);
    assert_eq!(report.status, AuditStatus::Pass);
    assert_eq!(
        report.details,
        "Scanned 1 reports, 5 citations. Coverage: 100.0%. Above threshold: 5/5"
    );
    assert!(report.worst.is_empty());
}

#[test]
fn a_citation_without_url_fails_on_coverage() {
    let mut citations = five([0.9; 5]);
    citations[2] = cited(None, 0.0);
    let report = audit(citations);
    assert_eq!(report.metrics.citations_with_url, 4);
    assert_eq!(report.metrics.citations_above_threshold, 4);
    assert_eq!(report.metrics.below_threshold_count, 0);
    assert!(report.metrics.coverage_rate < 1.0);
    assert_eq!(report.metrics.coverage_rate, 0.8);
    assert_eq!(report.status, AuditStatus::Fail);
    assert!(report
        .details
        .ends_with("Coverage: 80.0%. Above threshold: 4/4"));
    assert_eq!(report.worst.len(), 1);
}

#[test]
fn a_citation_at_0_7_fails_on_the_threshold() {
    let report = audit(five([0.9, 0.9, 0.7, 0.9, 0.9]));
    assert_eq!(report.metrics.citations_above_threshold, 4);
    assert_eq!(report.metrics.below_threshold_count, 1);
    assert_eq!(report.metrics.coverage_rate, 1.0);
    assert_eq!(report.metrics.above_threshold_rate, 0.8);
    assert_eq!(report.status, AuditStatus::Fail);
    assert_eq!(report.worst[0].credibility, 0.7);
}

#[test]
fn the_threshold_itself_is_not_above_it() {
    let report = audit(five([0.9, 0.9, 0.8, 0.9, 0.9]));
    assert_eq!(report.metrics.below_threshold_count, 1);
    assert_eq!(report.status, AuditStatus::Fail);
}

#[test]
fn no_citations_means_zero_rates_and_fail() {
    let report = audit(Vec::new());
    assert_eq!(report.metrics.total_citations, 0);
    assert_eq!(report.metrics.coverage_rate, 0.0);
    assert_eq!(report.metrics.above_threshold_rate, 0.0);
    assert_eq!(report.status, AuditStatus::Fail);
    // Nothing with a URL: the rate is 0.0, not NaN.
    let report = audit(vec![cited(None, 0.0)]);
    assert_eq!(report.metrics.above_threshold_rate, 0.0);
}

#[test]
fn pass_needs_both_full_coverage_and_nothing_below() {
    for (coverage_full, none_below, pass) in [
        (true, true, true),
        (true, false, false),
        (false, true, false),
        (false, false, false),
    ] {
        let mut citations = five([0.9; 5]);
        if !coverage_full {
            citations.push(cited(None, 0.0));
        }
        if !none_below {
            citations.push(cited(Some("https://low.example/"), 0.2));
        }
        let status = audit(citations).status;
        assert_eq!(
            status == AuditStatus::Pass,
            pass,
            "{coverage_full} {none_below}"
        );
    }
}

#[test]
fn a_file_that_cannot_be_read_fails_the_audit() {
    let mut tally = Tally::new(0.8, 10);
    for citation in five([0.9; 5]) {
        tally.add_citation(citation);
    }
    tally.add_error(FileError {
        path: "bad.json".into(),
        message: "invalid JSON".into(),
    });
    let report = tally.finish(true, false);
    assert_eq!(report.status, AuditStatus::Fail);
    assert_eq!(report.metrics.reports_scanned, 0);
}

#[test]
fn a_source_cited_twice_is_two_citations_and_one_row() {
    let mut tally = Tally::new(0.8, 10);
    let mut twice = cited(None, 0.0);
    twice.citations = 2;
    tally.add_citation(twice);
    tally.add_citation(cited(Some("https://a.example/"), 0.9));
    let report = tally.finish(false, false);
    assert_eq!(report.metrics.total_citations, 3);
    assert_eq!(report.metrics.citations_with_url, 1);
    assert_eq!(report.worst.len(), 1);
    assert_eq!(report.worst[0].citations, 2);
}

#[test]
fn only_the_worst_are_kept_lowest_first() {
    let mut tally = Tally::new(0.8, 3);
    for score in [0.5, 0.1, 0.7, 0.3, 0.6, 0.9, 0.2] {
        tally.add_citation(cited(Some("https://x.example/"), score));
    }
    let report = tally.finish(false, false);
    let kept: Vec<f64> = report.worst.iter().map(|c| c.credibility).collect();
    assert_eq!(kept, vec![0.1, 0.2, 0.3]);
    assert_eq!(report.worst_omitted, 3);
    let text = render_text(&report);
    assert!(text.contains("…and 3 more sources"), "{text}");
}

#[test]
fn text_output_cannot_carry_terminal_escapes() {
    let mut tally = Tally::new(0.8, 3);
    let mut evil = cited(None, 0.0);
    evil.title = "\u{1b}[2J\u{1b}]0;owned\u{7}title\u{202e}".into();
    evil.file = "a\u{1b}[31m.json".into();
    tally.add_citation(evil);
    let text = render_text(&tally.finish(false, false));
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(!text.contains('\u{7}'));
    assert!(!text.contains('\u{202e}'));
}

#[test]
fn globs_must_match_and_directories_stand_for_their_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("r/deep")).expect("dirs");
    for file in ["r/a.json", "r/deep/b.json", "r/notes.md"] {
        std::fs::write(root.join(file), "{}").expect("write");
    }
    let at = |p: &str| root.join(p).to_string_lossy().into_owned();
    let found = find_files(&[at("r")]).expect("directory");
    assert_eq!(
        found,
        vec![root.join("r/a.json"), root.join("r/deep/b.json")]
    );
    let found = find_files(&[at("r/**/*.json"), at("r/a.json"), at("r/*.md")]).expect("globs");
    assert_eq!(found.len(), 3, "union without repeats: {found:?}");
    let missing = at("r/**/*.yaml");
    match find_files(&[at("r/a.json"), missing.clone()]) {
        Err(AuditError::NoMatch { pattern }) => assert_eq!(pattern, missing),
        other => panic!("expected no match, got {other:?}"),
    }
    assert!(matches!(
        find_files(&["r/***/x".to_string()]),
        Err(AuditError::BadPattern { .. })
    ));
}

#[tokio::test]
async fn files_are_read_scored_and_counted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report_json = r#"{"title":"T","phase":"final","generatedAt":"2026-01-01","citations":[
        {"id":"1","text":"Official statistics","url":"https://www.census.gov/data"},
        {"id":"2","text":"A forum thread","url":"https://www.reddit.com/r/x"},
        {"id":"3","text":"Uncited claim with no link"},
        {"id":"4","text":"Again the census","url":"https://www.census.gov/data"}]}"#;
    std::fs::write(dir.path().join("a.json"), report_json).expect("write");
    std::fs::write(
        dir.path().join("b.md"),
        "Rust is memory safe [1] and fast [2].\n\n[1] https://doc.rust-lang.org/book/ - The Book\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("c.json"), "[1, 2").expect("write");
    let mut files =
        find_files(&[dir.path().join("*").to_string_lossy().into_owned()]).expect("files");
    files.sort();
    let pipeline = Pipeline::builder().verify(false).build().expect("pipeline");
    let report = audit_files(&files, &AuditOptions::default(), &pipeline, None)
        .await
        .expect("audit");
    let m = &report.metrics;
    // a.json: 4 citations, 3 with URL (census ×2 at 0.9, reddit at 0.35);
    // b.md: [1] the Book (0.9) and [2] dangling, without URL.
    assert_eq!(m.reports_scanned, 2);
    assert_eq!(m.total_citations, 6);
    assert_eq!(m.citations_with_url, 4);
    assert_eq!(m.citations_above_threshold, 3);
    assert_eq!(m.below_threshold_count, 1);
    assert_eq!(report.status, AuditStatus::Fail);
    assert_eq!(report.errors.len(), 1);
    assert!(report.errors[0].path.ends_with("c.json"));
    let reasons: Vec<&str> = report.worst.iter().map(|c| c.reason.as_str()).collect();
    assert!(reasons.iter().any(|r| r.contains("no URL")), "{reasons:?}");
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("lists no source under that number")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("user-generated tier")),
        "{reasons:?}"
    );
}

/// A file whose claims were judged: `not` not supported, `partly` partly, `supported`
/// supported, each citing `[n]` in that order.
fn judged(file: &str, not: usize, partly: usize, supported: usize) -> LeastSupported {
    let judged = not + partly + supported;
    LeastSupported {
        file: file.into(),
        counts: ClaimCounts {
            claims: judged,
            judged,
            supported,
            partly_supported: partly,
            not_supported: not,
            supported_rate: claims::ratio(supported, judged),
            pages_read: judged,
            ..ClaimCounts::default()
        },
        not_supported_citations: (1..=not as u32).collect(),
        partly_supported_citations: (not as u32 + 1..=(not + partly) as u32).collect(),
    }
}

/// Five good citations and `files` judged, against `min`.
fn supported(min: Option<f64>, files: Vec<LeastSupported>, worst: usize) -> AuditReport {
    let mut tally = Tally::new(0.8, worst).with_min_supported(min);
    for citation in five([0.9; 5]) {
        tally.add_citation(citation);
    }
    for file in files {
        tally.add_file(FileSummary {
            path: file.file.clone(),
            citations: 1,
            with_url: 1,
            above_threshold: 1,
            confidence: 0.9,
            support: Some(file.counts.clone()),
        });
        tally.add_claims(file);
    }
    tally.finish(true, true)
}

#[test]
fn the_supported_share_is_held_against_the_minimum() {
    let files = || vec![judged("a.json", 1, 0, 3), judged("b.json", 0, 1, 1)];
    // 4 of 6 judged claims are supported: 0.67.
    let report = supported(None, files(), 10);
    let totals = report.support.as_ref().expect("judged");
    assert_eq!((totals.judged, totals.supported), (6, 4));
    assert!((totals.supported_rate - 4.0 / 6.0).abs() < 1e-9);
    assert_eq!(report.status, AuditStatus::Pass, "{:?}", report.failures);
    assert_eq!(supported(Some(0.6), files(), 10).status, AuditStatus::Pass);
    // At the minimum is not below it.
    let exactly = supported(Some(0.5), vec![judged("a.json", 1, 0, 1)], 10);
    assert_eq!(exactly.status, AuditStatus::Pass);
    let report = supported(Some(0.7), files(), 10);
    assert_eq!(report.status, AuditStatus::Fail);
    assert_eq!(
        report.failures,
        ["4 of 6 judged claims are supported (66.7%), below --min-supported 0.7"]
    );
    let text = render_text(&report);
    assert!(
        text.contains(
            "claims: 6 of 6 claims judged · ✓ 4 supported · ◐ 1 partly · ✗ 1 not supported"
        ),
        "{text}"
    );
    assert!(
        text.contains("supported: 4/6 judged claims (66.7%) · --min-supported 0.7"),
        "{text}"
    );
    assert!(
        text.contains("\nClaims per report:\n  a.json: 4 of 4 claims judged"),
        "{text}"
    );
    assert!(text.ends_with("The audit fails:\n  - 4 of 6 judged claims are supported (66.7%), below --min-supported 0.7\n"), "{text}");
}

#[test]
fn nothing_judged_cannot_meet_a_minimum() {
    let report = supported(Some(0.5), Vec::new(), 10);
    assert_eq!(report.status, AuditStatus::Fail);
    assert!(report.failures[0].starts_with("no claim could be judged"));
    // A minimum of 0 asks for nothing.
    assert_eq!(
        supported(Some(0.0), Vec::new(), 10).status,
        AuditStatus::Pass
    );
    // Claims not judged at all (no page read) cannot meet it either.
    let mut tally = Tally::new(0.8, 10).with_min_supported(Some(0.5));
    for citation in five([0.9; 5]) {
        tally.add_citation(citation);
    }
    let report = tally.finish(true, false);
    assert_eq!(report.status, AuditStatus::Fail);
    assert_eq!(report.support, None);
    assert!(render_text(&report).contains("claims: not judged (the cited pages were not read"));
}

#[test]
fn the_least_supported_reports_are_listed_most_unsupported_first() {
    let report = supported(
        None,
        vec![
            judged("fine.json", 0, 0, 4),
            judged("some.json", 1, 2, 1),
            judged("worst.json", 3, 0, 0),
            judged("partly.json", 0, 1, 3),
        ],
        2,
    );
    let files: Vec<&str> = report
        .least_supported
        .iter()
        .map(|r| r.file.as_str())
        .collect();
    assert_eq!(files, ["worst.json", "some.json"]);
    assert_eq!(report.least_supported_omitted, 1, "partly.json");
    assert_eq!(report.least_supported[1].not_supported_citations, [1]);
    assert_eq!(report.least_supported[1].partly_supported_citations, [2, 3]);
    let text = render_text(&report);
    assert!(
        text.contains("Least supported reports:\n  ✗ 3 ◐ 0 of 3 judged (0% supported)  worst.json\n        not supported [1][2][3]\n"),
        "{text}"
    );
    assert!(
        text.contains("        not supported [1] · partly [2][3]\n"),
        "{text}"
    );
    assert!(
        text.contains("…and 1 more reports with claims not fully supported"),
        "{text}"
    );
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["leastSupported"][0]["notSupported"], 3);
    assert_eq!(json["leastSupported"][0]["file"], "worst.json");
    assert_eq!(json["support"]["supportedRate"], 8.0 / 15.0);
    assert_eq!(json["reports"][0]["support"]["judged"], 4);
}

#[test]
fn every_failure_is_said() {
    let mut tally = Tally::new(0.8, 10);
    tally.add_citation(cited(None, 0.0));
    tally.add_citation(cited(Some("https://a.example/"), 0.5));
    tally.add_error(FileError {
        path: "bad.json".into(),
        message: "invalid JSON".into(),
    });
    let report = tally.finish(false, false);
    assert_eq!(
        report.failures,
        [
            "1 citation has no URL",
            "1 citation scores at or below the threshold 0.80",
            "1 file could not be read"
        ]
    );
    let report = audit(Vec::new());
    assert_eq!(report.failures, ["no citation was found to audit"]);
}

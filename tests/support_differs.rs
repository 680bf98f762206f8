//! `differs` ("the page says 16:00 UTC, not 14:00 UTC") on real claims and passages
//! written by others: `tests/data/differs_cases.jsonl` holds claims from the development
//! sets of WiCE, AttributionBench and ExpertQA that have a figure their passage lacks,
//! each with what a careful reader says the passage gives instead for the same thing
//! (or nothing, when it gives a figure for something else). A wrong "the page says"
//! misleads, so `differs` must be right at least 9 times in 10 when it speaks; how much
//! of what a reader finds it finds is printed, and held above a floor.
//!
//! The development sets hold few passages that give another figure for the same thing:
//! screening every claim with a figure its evidence lacks found 20 such cases, against
//! the 50 the precision was meant to rest on, and one of them (`3 months` against `2 to
//! 3 months`) was later judged no contradiction (a figure inside the claim's range
//! narrows it). Every call the product makes on the development sets
//! (`features(..).differs`, printed by `cargo run --example differs_calls`) is a case
//! too: 5 calls on 3,067 claims, all right. In all: 84 cases, 21 differs a reader finds
//! in 19 of them; `differs` returns 6, all right, and finds 6, recall 0.286 (see
//! tests/data/README.md). Six calls without a wrong one is "no wrong call seen", not a
//! measured 1.0: docs/support.md says so.

use serde_json::Value;
use sourcebot::support::differs::differs;
use std::path::Path;

/// Least share of the Differs returned that a reader expects.
const MIN_PRECISION: f64 = 0.9;
/// Least share of the Differs a reader expects that are returned (a floor against
/// regressions, below what the rule reaches).
const MIN_RECALL: f64 = 0.25;
/// Least number of cases the file holds.
const MIN_CASES: usize = 60;
/// Least number of cases where something is returned or expected (19 in the file: the
/// 20 the screening found less the one re-judged).
const MIN_JUDGED: usize = 19;

/// One hand-checked case.
struct Case {
    source: String,
    id: String,
    claim: String,
    passage: String,
    expected: Vec<(String, String)>,
    note: String,
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/differs_cases.jsonl");
    let text = std::fs::read_to_string(&path).expect("tests/data/differs_cases.jsonl");
    let field = |v: &Value, name: &str| {
        v.get(name)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let v: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
            let expected = v
                .get("expected")
                .and_then(Value::as_array)
                .unwrap_or_else(|| panic!("line {}: no expected list", i + 1))
                .iter()
                .map(|d| (field(d, "claim"), field(d, "page")))
                .collect();
            Case {
                source: field(&v, "source"),
                id: field(&v, "id"),
                claim: field(&v, "claim"),
                passage: field(&v, "passage"),
                expected,
                note: field(&v, "note"),
            }
        })
        .collect()
}

/// Lower case, spaces collapsed, punctuation at the ends dropped.
fn norm(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_string()
}

/// Whether one text holds the other (`93 different` and `93 different shapes`).
fn holds(a: &str, b: &str) -> bool {
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && !b.is_empty() && (a.contains(&b) || b.contains(&a))
}

/// Whether a returned Differ is the expected one.
fn matches(returned: &(String, String), expected: &(String, String)) -> bool {
    holds(&returned.0, &expected.0) && holds(&returned.1, &expected.1)
}

#[test]
fn the_cases_are_well_formed() {
    let cases = cases();
    assert!(cases.len() >= MIN_CASES, "{} cases", cases.len());
    let mut seen = std::collections::HashSet::new();
    for case in &cases {
        assert!(
            matches!(
                case.source.as_str(),
                "wice" | "attributionbench" | "expertqa"
            ),
            "{}: source {}",
            case.id,
            case.source
        );
        assert!(
            !case.id.is_empty() && !case.claim.is_empty() && !case.passage.is_empty(),
            "{}",
            case.id
        );
        assert!(!case.note.is_empty(), "{}: no note", case.id);
        assert!(
            seen.insert((case.id.clone(), case.passage.clone())),
            "{}: twice",
            case.id
        );
        for (claim, page) in &case.expected {
            assert!(case.claim.contains(claim.as_str()), "{}: {claim}", case.id);
            assert!(case.passage.contains(page.as_str()), "{}: {page}", case.id);
        }
    }
}

#[test]
fn differs_is_right_when_it_speaks() {
    let cases = cases();
    let (mut returned, mut right, mut expected, mut found, mut judged) = (0, 0, 0, 0, 0);
    for case in &cases {
        let got: Vec<(String, String)> = differs(&case.claim, &case.passage)
            .into_iter()
            .map(|d| (d.claim, d.page))
            .collect();
        judged += usize::from(!got.is_empty() || !case.expected.is_empty());
        returned += got.len();
        expected += case.expected.len();
        for differ in &got {
            if case.expected.iter().any(|e| matches(differ, e)) {
                right += 1;
            } else {
                eprintln!(
                    "WRONG {} {}: {:?} ({})",
                    case.source, case.id, differ, case.note
                );
            }
        }
        for wanted in &case.expected {
            if got.iter().any(|g| matches(g, wanted)) {
                found += 1;
            } else {
                eprintln!("missed {} {}: {:?}", case.source, case.id, wanted);
            }
        }
    }
    let precision = right as f64 / returned.max(1) as f64;
    let recall = found as f64 / expected.max(1) as f64;
    eprintln!(
        "differs: {} cases, {judged} with a differ returned or expected; {returned} returned, precision {precision:.3}; {expected} expected, recall {recall:.3}",
        cases.len()
    );
    assert!(judged >= MIN_JUDGED, "{judged} cases judged");
    assert!(returned > 0, "nothing returned");
    assert!(precision >= MIN_PRECISION, "precision {precision:.3}");
    assert!(recall >= MIN_RECALL, "recall {recall:.3}");
}

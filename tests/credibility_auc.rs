//! Checks the credibility-AUC measurement (`tests/support/auc.rs`): the AUC and the
//! bootstrap on hand-computed cases, the claim-to-URL mapping on a tiny ExpertQA-shaped
//! input full of defects, and, when `../shared/corpora` is there, the figures on the
//! ExpertQA validation files: sourcebot's tiers must beat the trivial baseline.

#[path = "support/auc.rs"]
mod auc;

use std::path::Path;

use auc::{Label, Scorer};
use sourcebot::score::domain::Tier;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

// --- AUC ------------------------------------------------------------------

#[test]
fn auc_of_perfect_separation_is_one() {
    assert_eq!(auc::auc(&[0.9, 0.8, 0.75], &[0.2, 0.5]), Some(1.0));
}

#[test]
fn auc_of_reversed_separation_is_zero() {
    assert_eq!(auc::auc(&[0.2, 0.35], &[0.5, 0.9, 0.75]), Some(0.0));
}

#[test]
fn auc_of_all_ties_is_one_half() {
    let value = auc::auc(&[0.5; 7], &[0.5; 3]).expect("both sides");
    assert!(close(value, 0.5), "{value}");
}

#[test]
fn auc_of_a_mixed_case_counts_ties_as_halves() {
    // Pairs (pos, neg): 0.9 beats 0.5 and 0.2 (2); each 0.5 ties 0.5 (½) and beats
    // 0.2 (1), twice (3). 5 of 6 pairs.
    let value = auc::auc(&[0.9, 0.5, 0.5], &[0.5, 0.2]).expect("both sides");
    assert!(close(value, 5.0 / 6.0), "{value}");
    // 0.75 beats 0.5 and 0.35, loses to 0.9 (2); 0.35 ties 0.35 (½), loses to the rest.
    let value = auc::auc(&[0.75, 0.35], &[0.5, 0.9, 0.35]).expect("both sides");
    assert!(close(value, 2.5 / 6.0), "{value}");
}

#[test]
fn auc_needs_both_sides() {
    assert_eq!(auc::auc(&[], &[0.5]), None);
    assert_eq!(auc::auc(&[0.5], &[]), None);
}

#[test]
fn auc_agrees_with_counting_every_pair() {
    let mut rng = auc::SplitMix64::new(7);
    // Few distinct values, so ties are common.
    let levels = [0.0, 0.2, 0.35, 0.5, 0.75, 0.9, 0.95];
    for round in 0..50 {
        let n1 = 1 + rng.below(40);
        let n0 = 1 + rng.below(40);
        let pos: Vec<f64> = (0..n1).map(|_| levels[rng.below(levels.len())]).collect();
        let neg: Vec<f64> = (0..n0).map(|_| levels[rng.below(levels.len())]).collect();
        let mut wins = 0.0;
        for p in &pos {
            for q in &neg {
                wins += if p > q {
                    1.0
                } else if p == q {
                    0.5
                } else {
                    0.0
                };
            }
        }
        let brute = wins / (n1 * n0) as f64;
        let fast = auc::auc(&pos, &neg).expect("both sides");
        assert!(close(fast, brute), "round {round}: {fast} vs {brute}");
    }
}

// --- Generator and bootstrap ----------------------------------------------

#[test]
fn splitmix64_gives_the_reference_sequence() {
    let mut rng = auc::SplitMix64::new(0);
    assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
    assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    assert_eq!(rng.next_u64(), 0x06c4_5d18_8009_454f);
    let mut rng = auc::SplitMix64::new(1);
    for _ in 0..1000 {
        assert!(rng.below(3) < 3);
    }
}

fn sample(seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = auc::SplitMix64::new(seed);
    let levels = [0.2, 0.35, 0.5, 0.75, 0.9];
    let pos = (0..60).map(|_| levels[1 + rng.below(4)]).collect();
    let neg = (0..25).map(|_| levels[rng.below(4)]).collect();
    (pos, neg)
}

#[test]
fn bootstrap_is_deterministic_and_contains_the_estimate() {
    let (pos, neg) = sample(3);
    let point = auc::auc(&pos, &neg).expect("both sides");
    let a = auc::bootstrap_auc(&pos, &neg, 1000, 42).expect("interval");
    let b = auc::bootstrap_auc(&pos, &neg, 1000, 42).expect("interval");
    assert_eq!(a, b, "same seed, same interval");
    let c = auc::bootstrap_auc(&pos, &neg, 1000, 43).expect("interval");
    assert_ne!(a, c, "another seed draws other resamples");
    for interval in [a, c] {
        assert!(interval.contains(point), "{interval:?} misses {point}");
        assert!(0.0 <= interval.low && interval.low < interval.high && interval.high <= 1.0);
    }
    assert_eq!(auc::bootstrap_auc(&pos, &[], 1000, 42), None);
    assert_eq!(auc::bootstrap_auc(&pos, &neg, 0, 42), None);
    // Constant scores have a degenerate interval at one half.
    let flat = auc::bootstrap_auc(&[0.5; 10], &[0.5; 4], 200, 1).expect("interval");
    assert!(close(flat.low, 0.5) && close(flat.high, 0.5), "{flat:?}");
}

#[test]
fn cluster_bootstrap_is_deterministic_and_contains_the_estimate() {
    let (pos, neg) = sample(5);
    let claims: Vec<auc::ScoredClaim> = pos
        .iter()
        .map(|&s| (Label::Reliable, s))
        .chain(neg.iter().map(|&s| (Label::NotReliable, s)))
        .enumerate()
        .map(|(i, (label, s))| auc::ScoredClaim {
            label,
            question: format!("q{}", i % 17),
            scores: [s, s, 0.5, 0.5],
            tiers: vec![Some(Tier::Unknown)],
        })
        .collect();
    let point = auc::auc(&pos, &neg).expect("both sides");
    let a = auc::cluster_bootstrap_auc(&claims, Scorer::TiersMean, 1000, 9).expect("interval");
    let b = auc::cluster_bootstrap_auc(&claims, Scorer::TiersMean, 1000, 9).expect("interval");
    assert_eq!(a, b);
    assert!(a.contains(point), "{a:?} misses {point}");
    let figures = auc::figures(&claims, 200, 9);
    assert_eq!((figures.positives, figures.negatives), (60, 25));
    assert!(close(figures.auc(Scorer::Baseline).expect("auc"), 0.5));
    assert!(close(figures.auc(Scorer::TiersMean).expect("auc"), point));
}

// --- Claims and URLs --------------------------------------------------------

#[test]
fn entries_and_markers_are_read() {
    let entry = auc::parse_entry("[3] https://www.nih.gov/a\n\nAn excerpt [4] here.");
    assert_eq!(entry.number, Some(3));
    assert_eq!(entry.url.as_deref(), Some("https://www.nih.gov/a"));
    assert_eq!(auc::parse_entry("[2] not a url").url, None);
    assert_eq!(auc::parse_entry("[2]").url, None);
    let bare = auc::parse_entry("https://example.com/x");
    assert_eq!(
        (bare.number, bare.url.as_deref()),
        (None, Some("https://example.com/x"))
    );
    assert_eq!(auc::parse_entry("[x] www.example.com").number, None);
    assert_eq!(
        auc::marker_numbers("a[1][2] b [3, 5]. c [x] [2019-2020] [7"),
        [1, 2, 3, 5]
    );
}

/// One bad line, one line without answers, and an ExpertQA line whose two answers
/// hold an empty attribution, a missing number, malformed entries and a URL sourcebot
/// cannot read.
const TINY: &str = concat!(
    "not json at all\n",
    r#"{"question": "no answers here"}"#,
    "\n",
    r#"{"question": "Q", "annotator_id": "1", "metadata": {}, "answers": {"#,
    r#""sys_a": {"answer_string": "X [1].", "attribution": [], "claims": ["#,
    r#"{"claim_string": "X [1].", "evidence": [], "reliability": "Reliable"}]},"#,
    r#""sys_b": {"answer_string": "A [1]. B [2]. C [3]. D [4] [1].","#,
    r#""attribution": ["[1] https://www.nih.gov/a", "[2] not a url", "[4] https://github.com/x/y", "oops"],"#,
    r#""claims": ["#,
    r#"{"claim_string": "A [1].", "evidence": ["[1] https://www.nih.gov/a\n\nexcerpt"], "reliability": "Reliable"},"#,
    r#"{"claim_string": "B [2].", "evidence": [], "reliability": "Not reliable at all"},"#,
    r#"{"claim_string": "C [3].", "evidence": [], "reliability": "Not reliable at all"},"#,
    r#"{"claim_string": "D [4] [1].", "reliability": "Not reliable at all"},"#,
    r#"{"claim_string": "E [3].", "evidence": ["[3]"], "reliability": "Reliable"},"#,
    r#"{"claim_string": "F [1].", "evidence": ["[1] https://www.nih.gov/a"], "reliability": "Somewhat reliable"},"#,
    r#"{"claim_string": "G [1].", "evidence": ["[1] https://www.nih.gov/a"], "reliability": null},"#,
    r#"{"claim_string": "H [5].", "evidence": ["[5] https://"], "reliability": "Reliable"}]}}}"#,
    "\n",
);

#[test]
fn defects_are_counted_not_lost() {
    let parsed = auc::parse_jsonl(TINY);
    let t = &parsed.tally;
    assert_eq!((t.lines, t.bad_lines), (3, 2));
    assert_eq!((t.answers, t.claims), (2, 9));
    assert_eq!(t.empty_attribution, 1);
    // sys_a cites [1] with no attribution; sys_b cites [2] (malformed) and [3] (absent).
    assert_eq!(t.missing_numbers, 3);
    // "[2] not a url", "oops" in the attribution; "[3]" as evidence.
    assert_eq!(t.malformed_entries, 3);
    // X [1], B [2], C [3], E's evidence [3].
    assert_eq!(t.unresolved_citations, 4);
    assert_eq!(t.no_url, 4);
    assert_eq!(t.other_label.get("Somewhat reliable"), Some(&1));
    assert_eq!(t.other_label.get("(none)"), Some(&1));
    assert_eq!((t.from_evidence, t.from_markers), (2, 1));
    // Every claim is kept or skipped with a reason.
    assert_eq!(parsed.claims.len() + parsed.skipped.len(), t.claims);
    assert_eq!(parsed.skipped.len(), t.skipped());
    let reasons = auc::reasons(&parsed.skipped);
    assert_eq!(reasons.get(auc::NO_URL), Some(&4));

    let texts: Vec<&str> = parsed.claims.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["A [1].", "D [4] [1].", "H [5]."]);
    assert_eq!(parsed.claims[0].urls, ["https://www.nih.gov/a"]);
    assert_eq!(parsed.claims[0].label, Label::Reliable);
    assert_eq!(
        parsed.claims[1].urls,
        ["https://github.com/x/y", "https://www.nih.gov/a"]
    );
    assert_eq!(parsed.claims[1].label, Label::NotReliable);
    assert_eq!(parsed.claims[2].urls, ["https://"]);

    // Scoring: `https://` is no source sourcebot can read; the claim citing only it
    // is left out of every scorer, and counted.
    let book = auc::score_urls(&parsed.claims);
    assert_eq!(book.len(), 3);
    assert_eq!(book.get("https://"), Some(&None));
    let scored = auc::score_claims(&parsed.claims, &book);
    assert_eq!((scored.unreadable_urls, scored.no_readable_url), (1, 1));
    assert_eq!(scored.claims.len(), 2);
    let a = &scored.claims[0];
    assert!(close(a.score(Scorer::TiersMean), 0.9), "{a:?}");
    assert!(close(a.score(Scorer::Seed), 0.5));
    assert_eq!(a.tiers, [Some(Tier::High)]);
    let d = &scored.claims[1];
    assert!(close(d.score(Scorer::TiersMax), 0.9));
    // github.com is on the seed list, nih.gov is not.
    assert!(close(d.score(Scorer::Seed), 0.7), "{d:?}");
    assert!(close(d.score(Scorer::Baseline), 0.5));
    let counts = auc::tier_counts(&scored.claims);
    assert_eq!(counts[0][0] + counts[1][0], 3, "three high-tier sources");
}

#[test]
fn pooling_counts_a_claim_once() {
    let line = |label: &str| {
        format!(
            concat!(
                r#"{{"question": "Q", "answers": {{"s": {{"answer_string": "", "#,
                r#""attribution": ["[1] https://arxiv.org/abs/1"], "claims": ["#,
                r#"{{"claim_string": "A [1].", "reliability": "Reliable"}}, "#,
                r#"{{"claim_string": "B [1].", "reliability": "{label}"}}, "#,
                r#"{{"claim_string": "C", "reliability": "Missing"}}]}}}}}}"#
            ),
            label = label
        )
    };
    let first = auc::parse_jsonl(&line("Reliable"));
    let same = auc::parse_jsonl(&line("Reliable"));
    let pooled = auc::pool(&[&first, &same]);
    assert_eq!(
        (pooled.claims.len(), pooled.repeated, pooled.conflicting),
        (2, 2, 0)
    );
    assert_eq!(pooled.skipped.get("Missing"), Some(&1));
    let other = auc::parse_jsonl(&line("Not reliable at all"));
    let pooled = auc::pool(&[&first, &other]);
    assert_eq!(
        (pooled.claims.len(), pooled.repeated, pooled.conflicting),
        (1, 1, 1)
    );
    assert_eq!(pooled.claims[0].text, "A [1].");
}

#[test]
fn seed_allowlist_matches_hosts_and_their_subdomains() {
    let cases = [
        ("https://arxiv.org/abs/2101.00001", 0.9),
        ("https://export.arxiv.org/abs/1", 0.9),
        ("https://github.com/rust-lang/rust", 0.9),
        ("https://www.npmjs.com/package/x", 0.9),
        ("https://developer.mozilla.org/en-US/", 0.9),
        ("https://docs.anthropic.com/claude", 0.9),
        ("https://cloud.google.com/run", 0.9),
        ("https://GITHUB.COM./x", 0.9),
        ("https://mozilla.org/", 0.5),
        ("https://www.google.com/", 0.5),
        ("https://notgithub.com/", 0.5),
        ("https://github.com.evil.example/", 0.5),
        ("https://raw.githubusercontent.com/x", 0.5),
        ("not a url", 0.5),
    ];
    for (url, score) in cases {
        assert_eq!(auc::seed_allowlist_score(url), score, "{url}");
    }
}

// --- The corpus --------------------------------------------------------------

#[test]
fn sourcebot_tiers_beat_the_baseline_on_expertqa() {
    let dir = Path::new(auc::DEFAULT_CORPUS_DIR);
    if !dir.join(auc::FILES[0]).exists() {
        eprintln!(
            "skipping: ../shared/corpora not found (no {}); run from the project root with \
             the shared corpora beside it",
            auc::FILES[0]
        );
        return;
    }
    let files: Vec<auc::Parsed> = auc::FILES
        .iter()
        .map(|name| {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            auc::parse_jsonl(&text)
        })
        .collect();
    for (name, parsed) in auc::FILES.iter().zip(&files) {
        let t = &parsed.tally;
        assert_eq!(
            parsed.claims.len() + parsed.skipped.len(),
            t.claims,
            "{name}: every claim is kept or skipped"
        );
    }
    let refs: Vec<&auc::Parsed> = files.iter().collect();
    let pooled = auc::pool(&refs);
    assert_eq!(pooled.conflicting, 0, "the files agree where they overlap");
    let all: Vec<auc::Claim> = files.iter().flat_map(|p| p.claims.clone()).collect();
    let book = auc::score_urls(&all);

    // Per file: 488 + 106 and 435 + 110 when written; pooled 594 + 130.
    let mut sets: Vec<(String, Vec<auc::ScoredClaim>, usize, usize)> = auc::FILES
        .iter()
        .zip(&files)
        .map(|(name, p)| {
            (
                name.to_string(),
                auc::score_claims(&p.claims, &book).claims,
                400,
                80,
            )
        })
        .collect();
    sets.push((
        "pooled".into(),
        auc::score_claims(&pooled.claims, &book).claims,
        500,
        100,
    ));
    for (name, claims, min_pos, min_neg) in &sets {
        let f = auc::figures(claims, auc::RESAMPLES, auc::SEED);
        assert!(f.positives >= *min_pos, "{name}: {} positives", f.positives);
        assert!(f.negatives >= *min_neg, "{name}: {} negatives", f.negatives);
        let baseline = f.auc(Scorer::Baseline).expect("baseline AUC");
        assert!(
            (baseline - 0.5).abs() < 1e-12,
            "{name}: baseline {baseline}"
        );
        let tiers = f.auc(Scorer::TiersMean).expect("tier AUC");
        assert!(tiers > 0.5, "{name}: sourcebot tiers AUC {tiers} ≤ 0.5");
        let seed = f.auc(Scorer::Seed).expect("seed AUC");
        assert!(
            tiers > seed,
            "{name}: sourcebot tiers AUC {tiers} ≤ seed allowlist {seed}"
        );
        for row in &f.rows {
            let value = row.auc.expect("AUC");
            for interval in [row.by_claim, row.by_question] {
                let interval = interval.expect("interval");
                assert!(
                    interval.contains(value),
                    "{name} {:?}: {interval:?}",
                    row.scorer
                );
            }
        }
    }
}

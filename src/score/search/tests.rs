//! Tests of `search`.
use super::*;

/// 2025-06-15T12:00:00Z, the fixed "now" of every test.
fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_749_988_800)
}

fn secs_before(secs: u64) -> SystemTime {
    now() - Duration::from_secs(secs)
}

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

fn parse(text: &str) -> Option<SystemTime> {
    parse_date(text, now())
}

fn recency(date: &str) -> f64 {
    recency_score(Some(date), now())
}

fn approx(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// A string of `n` characters.
fn sized(body: &str, n: usize, end: &str) -> String {
    let mut s: String = body.chars().cycle().take(n - end.chars().count()).collect();
    s.push_str(end);
    assert_eq!(s.chars().count(), n);
    s
}

const WORDS: &str = "the quick brown fox jumps over the lazy dog ";

fn result(link: &str, snippet: &str, date: Option<&str>, position: Option<u32>) -> SearchResult {
    SearchResult {
        title: "t".into(),
        link: link.into(),
        snippet: snippet.into(),
        date: date.map(str::to_string),
        position,
    }
}

// ---- time arithmetic ----

#[test]
fn fixed_now_is_what_it_says() {
    assert_eq!(parse("2025-06-15T12:00:00Z"), Some(now()));
}

// ---- recency bounds ----

#[test]
fn recency_within_30_days_is_at_least_0_9() {
    assert!(recency("29 days ago") > 0.9);
    assert!(recency("30 days ago") >= 0.9);
    assert!(approx(recency("30 days ago"), 0.9));
    assert!(recency("31 days ago") < 0.9);
    assert!(approx(recency("today"), 1.0));
    for d in 0..=30 {
        assert!(recency_for_age_days(d) >= 0.9, "{d}");
    }
}

#[test]
fn recency_counts_whole_days_so_date_only_values_cover_the_day() {
    // 2025-05-16 is 30 calendar days before now, 30.5 days by the clock.
    assert!(recency("2025-05-16") >= 0.9);
    assert!(recency("2025-05-15") < 0.9);
    assert!(recency("2025-05-17") > 0.9);
}

#[test]
fn recency_older_than_two_years_is_at_most_0_4() {
    assert!(recency("729 days ago") > 0.4);
    assert!(approx(recency("730 days ago"), 0.4));
    assert!(recency("731 days ago") < 0.4);
    assert!(approx(recency("2 years ago"), 0.4));
    // Calendar dates: two years back (731 days, across 2024-02-29) and a day more
    // are at most 0.4; 729 whole days back is above it. (730 days back, a day
    // inside two calendar years here, scores exactly 0.4: the curve uses 730 days
    // so that anything older than two calendar years is always covered.)
    assert!(recency("2023-06-15") <= 0.4);
    assert!(recency("2023-06-14") < 0.4);
    assert!(recency("2023-06-17") > 0.4);
    for d in 731..4000 {
        assert!(recency_for_age_days(d) <= 0.4, "{d}");
    }
}

#[test]
fn recency_curve_is_monotonic_with_floor() {
    let mut last = recency_for_age_days(0);
    assert!(approx(last, 1.0));
    for d in 1..5000 {
        let r = recency_for_age_days(d);
        assert!(r <= last, "{d}");
        assert!(r >= 0.2, "{d}");
        last = r;
    }
    assert!(approx(recency_for_age_days(1825), 0.2));
    assert!(approx(recency_for_age_days(100_000), 0.2));
    assert!(approx(recency_for_age_days(380), 0.65));
}

#[test]
fn recency_without_a_usable_date_is_neutral() {
    assert_eq!(recency_score(None, now()), 0.5);
    assert_eq!(recency(""), 0.5);
    assert_eq!(recency("   "), 0.5);
    assert_eq!(recency("sometime last spring"), 0.5);
    assert_eq!(recency("2024-13-01"), 0.5);
}

#[test]
fn recency_of_future_dates_is_as_now() {
    assert_eq!(recency("2030-01-01"), 1.0);
    assert_eq!(recency("2025-06-16T00:00:00Z"), 1.0);
}

// ---- relative forms ----

#[test]
fn relative_forms() {
    let day = SECS_PER_DAY;
    let cases: &[(&str, u64)] = &[
        ("3 days ago", 3 * day),
        ("1 day ago", day),
        ("1 days ago", day),
        ("2 weeks ago", 14 * day),
        ("5 months ago", 150 * day),
        ("1 year ago", 365 * day),
        ("a year ago", 365 * day),
        ("one month ago", 30 * day),
        ("an hour ago", 3_600),
        ("2 hours ago", 7_200),
        ("10 minutes ago", 600),
        ("45 seconds ago", 45),
        ("yesterday", day),
        ("today", 0),
        ("just now", 0),
        ("now", 0),
        ("3d ago", 3 * day),
        ("3 d ago", 3 * day),
        ("5mins ago", 300),
        ("5m ago", 300),
        ("2h ago", 7_200),
        ("1w ago", 7 * day),
        ("2mo ago", 60 * day),
        ("4y ago", 4 * 365 * day),
        ("2 yrs ago", 2 * 365 * day),
        ("last week", 7 * day),
        ("last month", 30 * day),
        ("last year", 365 * day),
        ("  3 Days  AGO ", 3 * day),
        ("Yesterday", day),
    ];
    for (text, secs) in cases {
        assert_eq!(parse(text), Some(secs_before(*secs)), "{text}");
    }
}

#[test]
fn relative_garbage_is_not_understood() {
    for text in [
        "in 3 days",
        "3 days",
        "days ago",
        "ago",
        "d ago",
        "3 fortnights ago",
        "-3 days ago",
        "3.5 days ago",
        "last monday",
        "99999999999999999999 days ago",
        "18446744073709551615 years ago",
        "not a date",
    ] {
        assert_eq!(parse(text), None, "{text}");
    }
}

// ---- ISO 8601 ----

#[test]
fn iso_forms() {
    // 2024-05-01T00:00:00Z
    let may1 = 1_714_521_600;
    let cases: &[(&str, u64)] = &[
        ("2024-05-01", may1),
        ("2024-5-1", may1),
        ("2024-05-01T10:00:00Z", may1 + 36_000),
        ("2024-05-01t10:00:00z", may1 + 36_000),
        ("2024-05-01T10:00Z", may1 + 36_000),
        ("2024-05-01T10:00:00", may1 + 36_000),
        ("2024-05-01 10:00:00", may1 + 36_000),
        ("2024-05-01T10:00:00.123456Z", may1 + 36_000),
        ("2024-05-01T10:00:00,5+00:00", may1 + 36_000),
        ("2024-05-01T10:00:00.123456789012345Z", may1 + 36_000),
        ("2024-05-01T10:00:00+02:00", may1 + 28_800),
        ("2024-05-01T10:00:00+0200", may1 + 28_800),
        ("2024-05-01T10:00:00+02", may1 + 28_800),
        ("2024-05-01T10:00:00-05:30", may1 + 36_000 + 19_800),
        ("2024-05-01T00:30:00+01:00", may1 - 1_800),
        ("2024-05-01 10:00:00 UTC", may1 + 36_000),
        ("2024-05-01 10:00:00 +0000", may1 + 36_000),
        ("2024-02-29", 1_709_164_800),
    ];
    for (text, secs) in cases {
        assert_eq!(parse(text), Some(at(*secs)), "{text}");
    }
}

#[test]
fn iso_garbage_is_not_understood() {
    for text in [
        "2024-02-30",
        "2023-02-29",
        "2024-00-10",
        "2024-13-01",
        "2024-05-32",
        "24-05-01",
        "2024-05",
        "2024-05-01T25:00:00Z",
        "2024-05-01T10:60:00Z",
        "2024-05-01T10:00:00+25:00",
        "2024-05-01T10:00:00Q",
        "2024-05-01T10",
        "2024-05-01X",
        "2024-05-01T10:00:00.Z",
    ] {
        assert_eq!(parse(text), None, "{text}");
    }
}

// ---- written-out dates ----

#[test]
fn written_forms() {
    let may1 = 1_714_521_600;
    let cases: &[(&str, u64)] = &[
        ("May 1, 2024", may1),
        ("May 1 2024", may1),
        ("may 01, 2024", may1),
        ("1 May 2024", may1),
        ("1st May, 2024", may1),
        ("May 1st, 2024", may1),
        ("Wed, 01 May 2024 10:00:00 GMT", may1 + 36_000),
        ("Wednesday, May 1, 2024", may1),
        ("Wed, 01 May 2024 12:00:00 +0200", may1 + 36_000),
        ("01 May 2024 05:00 EST", may1 + 36_000),
        ("Sept. 5, 2024", 1_725_494_400),
        ("Sep 5, 2024", 1_725_494_400),
        ("September 5, 2024", 1_725_494_400),
        ("Mar 5, 2024", 1_709_596_800),
    ];
    for (text, secs) in cases {
        assert_eq!(parse(text), Some(at(*secs)), "{text}");
    }
}

#[test]
fn written_garbage_is_not_understood() {
    for text in [
        "May 2024",
        "May 32, 2024",
        "Feb 30, 2024",
        "Mayo 1, 2024",
        "May May 2024",
        "1 2 2024",
        "May 1, 24",
        "May 1, 2024 noonish",
        "May 1, 2024 10:00 GMT extra",
        "Ma 1, 2024",
    ] {
        assert_eq!(parse(text), None, "{text}");
    }
}

// ---- snippet ----

#[test]
fn snippet_boundaries() {
    let s79 = sized(WORDS, 79, ".");
    let s80 = sized(WORDS, 80, ".");
    assert_eq!(snippet_score(&s79), 0.3);
    assert!(approx(snippet_score(&s80), 0.7));
    assert!(snippet_score(&s80) >= 0.7);
    // Whitespace around does not count.
    assert!(approx(snippet_score(&format!("  {s80}\n")), 0.7));
    assert_eq!(snippet_score(&format!("  {s79}\n")), 0.3);
    // Other terminal punctuation, and closing quotes after it.
    assert!(approx(snippet_score(&sized(WORDS, 80, "!")), 0.7));
    assert!(approx(snippet_score(&sized(WORDS, 80, "?")), 0.7));
    assert!(approx(snippet_score(&sized(WORDS, 80, ".\"")), 0.7));
}

#[test]
fn snippet_without_terminal_punctuation() {
    assert_eq!(snippet_score(&sized(WORDS, 80, "g")), 0.4);
    assert_eq!(snippet_score(&sized(WORDS, 200, "g")), 0.4);
    assert_eq!(snippet_score(&sized(WORDS, 79, "g")), 0.2);
    // Cut off with an ellipsis.
    assert_eq!(snippet_score(&sized(WORDS, 80, "...")), 0.4);
    assert_eq!(snippet_score(&sized(WORDS, 80, "…")), 0.4);
    // Full sentences, then cut off.
    let cut = format!(
        "{} {}",
        "Rust 1.0 shipped in May 2015.",
        sized(WORDS, 60, "...")
    );
    assert!(cut.chars().count() >= 80);
    assert_eq!(snippet_score(&cut), 0.5);
}

#[test]
fn snippet_empty_and_short() {
    assert_eq!(snippet_score(""), 0.0);
    assert_eq!(snippet_score("   \n\t"), 0.0);
    assert_eq!(snippet_score("Rust is fast."), 0.3);
    assert_eq!(snippet_score("Rust"), 0.2);
    assert_eq!(snippet_score("Hi."), 0.2);
    for n in 1..80 {
        assert!(snippet_score(&sized(WORDS, n, "")) <= 0.3, "{n}");
    }
}

#[test]
fn snippet_long_complete_rises_to_one() {
    assert!(approx(snippet_score(&sized(WORDS, 120, ".")), 0.85));
    assert!(approx(snippet_score(&sized(WORDS, 160, ".")), 1.0));
    assert!(approx(snippet_score(&sized(WORDS, 500, ".")), 1.0));
}

#[test]
fn snippet_needs_a_full_sentence() {
    // Ends with a period but no stretch has three words.
    let keywords = sized("rust,cargo,crates,serde,tokio,", 80, ".");
    assert_eq!(snippet_score(&keywords), 0.4);
    // Abbreviations and decimals do not split sentences.
    let s = "Dr. Smith measured 3.5 kg in the U.S. lab and wrote a long report about it all day.";
    assert!(s.chars().count() >= 80);
    assert!(snippet_score(s) >= 0.7);
}

#[test]
fn snippet_length_counts_characters_not_bytes() {
    let s = sized("élan vital über alles ", 80, ".");
    assert!(s.len() > 80);
    assert!(approx(snippet_score(&s), 0.7));
    let s = sized("élan vital über alles ", 79, ".");
    assert_eq!(snippet_score(&s), 0.3);
}

// ---- position ----

#[test]
fn position_scores() {
    assert_eq!(position_score(Some(1)), 1.0);
    assert_eq!(position_score(Some(10)), 0.0);
    assert_eq!(round4(position_score(Some(5))), 0.5556);
    assert_eq!(position_score(Some(11)), 0.0);
    assert_eq!(position_score(Some(u32::MAX)), 0.0);
    assert_eq!(position_score(Some(0)), 1.0);
    assert_eq!(position_score(None), 0.5);
    let mut last = 1.0;
    for p in 1..20 {
        let s = position_score(Some(p));
        assert!(s <= last && (0.0..=1.0).contains(&s));
        last = s;
    }
}

// ---- weights and value ----

#[test]
fn default_weights_sum_to_one() {
    let w = SearchWeights::default();
    assert_eq!(
        (w.domain, w.recency, w.snippet, w.position),
        (0.4, 0.3, 0.2, 0.1)
    );
    assert!(w.sums_to_one());
    assert_eq!(w.validate(), Ok(()));
}

#[test]
fn bad_weights_are_reported() {
    let w = SearchWeights {
        domain: 0.5,
        ..SearchWeights::default()
    };
    assert!(!w.sums_to_one());
    assert!(matches!(w.validate(), Err(WeightsError::SumNotOne { .. })));
    let w = SearchWeights {
        domain: 0.8,
        position: -0.3,
        ..SearchWeights::default()
    };
    assert!(matches!(
        w.validate(),
        Err(WeightsError::Invalid {
            name: "position",
            ..
        })
    ));
    let w = SearchWeights {
        domain: f64::NAN,
        ..SearchWeights::default()
    };
    assert!(w.validate().is_err());
    assert!(!w.validate().unwrap_err().to_string().is_empty());
}

#[test]
fn weights_deserialize_with_defaults() {
    let w: SearchWeights = serde_json::from_str(r#"{"domain": 0.5, "position": 0.0}"#).unwrap();
    assert_eq!(w.domain, 0.5);
    assert_eq!(w.recency, 0.3);
    assert_eq!(w.position, 0.0);
}

#[test]
fn rounding_is_half_away_from_zero() {
    // 0.03125 and 312.5 are exact in binary, so this is a true tie.
    assert_eq!(round4(0.03125), 0.0313);
    assert_eq!(round4(-0.03125), -0.0313);
    assert_eq!(round4(0.904_777_777), 0.9048);
    assert_eq!(round4(0.123_44), 0.1234);
}

#[test]
fn weighted_value_hand_computed() {
    // domain 0.9; "3 days ago" → 0.9 + 0.1·27/30 = 0.99; a complete 120-character
    // snippet → 0.7 + 0.3·40/80 = 0.85; position 3 → 1 − 2/9 = 0.7778.
    // 0.4·0.9 + 0.3·0.99 + 0.2·0.85 + 0.1·0.77777… = 0.36 + 0.297 + 0.17 + 0.077777…
    // = 0.904777… → 0.9048.
    let r = result(
        "https://example.org/a",
        &sized(WORDS, 120, "."),
        Some("3 days ago"),
        Some(3),
    );
    let s = score(&r, &|_| 0.9, &SearchWeights::default(), now());
    assert!(approx(s.domain, 0.9));
    assert!(approx(s.recency, 0.99));
    assert!(approx(s.snippet, 0.85));
    assert!(approx(s.position, 7.0 / 9.0));
    assert_eq!(s.value, 0.9048);
    assert_eq!(s.result, r);
}

#[test]
fn weighted_value_neutral_inputs() {
    // Unknown domain 0.5, no date 0.5, empty snippet 0.0, no position 0.5:
    // 0.2 + 0.15 + 0 + 0.05 = 0.4.
    let r = result("https://unknown.example/", "", None, None);
    let s = score(&r, &|_| 0.5, &SearchWeights::default(), now());
    assert_eq!(s.value, 0.4);
}

#[test]
fn domain_scorer_gets_the_link_and_is_clamped() {
    let r = result("https://seen.example/x", "", None, None);
    let seen = |url: &str| {
        if url == "https://seen.example/x" {
            1.0
        } else {
            0.0
        }
    };
    assert_eq!(
        score(&r, &seen, &SearchWeights::default(), now()).domain,
        1.0
    );
    assert_eq!(
        score(&r, &|_| 7.0, &SearchWeights::default(), now()).domain,
        1.0
    );
    assert_eq!(
        score(&r, &|_| -1.0, &SearchWeights::default(), now()).domain,
        0.0
    );
    assert_eq!(
        score(&r, &|_| f64::NAN, &SearchWeights::default(), now()).domain,
        0.0
    );
}

#[test]
fn custom_weights_are_used() {
    let w = SearchWeights {
        domain: 1.0,
        recency: 0.0,
        snippet: 0.0,
        position: 0.0,
    };
    let r = result("https://a.example/", "", Some("10 years ago"), Some(10));
    assert_eq!(score(&r, &|_| 0.66666, &w, now()).value, 0.6667);
}

// ---- score_all and filtering ----

#[test]
fn score_all_sorts_descending_and_stably() {
    let long = sized(WORDS, 160, ".");
    let results = vec![
        result("https://low.example/", "", Some("2015-01-01"), Some(10)),
        result("https://high.example/", &long, Some("1 day ago"), Some(1)),
        result("https://tie.example/1", "", None, None),
        result("https://mid.example/", &long, Some("2024-01-01"), Some(4)),
        result("https://tie.example/2", "", None, None),
    ];
    let domain = |url: &str| if url.contains("high") { 0.9 } else { 0.5 };
    let scores = score_all(&results, &domain, &SearchWeights::default(), now());
    let links: Vec<&str> = scores.iter().map(|s| s.result.link.as_str()).collect();
    assert_eq!(
        links,
        [
            "https://high.example/",
            "https://mid.example/",
            "https://tie.example/1",
            "https://tie.example/2",
            "https://low.example/",
        ]
    );
    assert!(scores.windows(2).all(|w| w[0].value >= w[1].value));
    assert!(score_all(&[], &domain, &SearchWeights::default(), now()).is_empty());
}

#[test]
fn filter_is_strictly_greater_than_threshold() {
    let make = |value: f64| SearchScore {
        result: result(&format!("https://x.example/{value}"), "", None, None),
        domain: 0.0,
        recency: 0.0,
        snippet: 0.0,
        position: 0.0,
        value,
    };
    let scores = vec![
        make(0.95),
        make(0.8),
        make(0.8001),
        make(0.7999),
        make(0.81),
    ];
    let kept = filter_above_threshold(scores, DEFAULT_CREDIBILITY_THRESHOLD);
    let values: Vec<f64> = kept.iter().map(|s| s.value).collect();
    assert_eq!(values, [0.95, 0.8001, 0.81]);
    assert_eq!(DEFAULT_CREDIBILITY_THRESHOLD, 0.8);
}

#[test]
fn exactly_threshold_from_scoring_is_dropped() {
    // domain 1.0, recency 1.0 (today), empty snippet 0.0, position 1 → 1.0:
    // 0.4 + 0.3 + 0 + 0.1 = 0.8 exactly after rounding.
    let r = result("https://a.example/", "", Some("today"), Some(1));
    let s = score(&r, &|_| 1.0, &SearchWeights::default(), now());
    assert_eq!(s.value, 0.8);
    assert!(filter_above_threshold(vec![s], DEFAULT_CREDIBILITY_THRESHOLD).is_empty());
}

// ---- conversions and serde ----

#[test]
fn search_result_json_round_trip() {
    let json = r#"{"title":"T","link":"https://a.example/","snippet":"S","date":"3 days ago","position":2,"extra":1}"#;
    let r: SearchResult = serde_json::from_str(json).unwrap();
    assert_eq!(
        r,
        result("https://a.example/", "S", Some("3 days ago"), Some(2)).with_title("T")
    );
    let minimal: SearchResult = serde_json::from_str(r#"{"link":"https://a.example/"}"#).unwrap();
    assert_eq!(minimal.snippet, "");
    assert_eq!(minimal.date, None);
    let s = score(&r, &|_| 0.5, &SearchWeights::default(), now());
    let v = serde_json::to_value(&s).unwrap();
    for key in [
        "result", "domain", "recency", "snippet", "position", "value",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    let back: SearchScore = serde_json::from_value(v).unwrap();
    assert_eq!(back, s);
}

impl SearchResult {
    fn with_title(mut self, title: &str) -> Self {
        self.title = title.into();
        self
    }
}

#[test]
fn from_structured_source() {
    let src = StructuredSource {
        url: Some("https://a.example/".into()),
        title: Some("A".into()),
        snippet: Some("S".into()),
        date: Some("2024-05-01".into()),
        position: Some(4),
        ..StructuredSource::default()
    };
    let r = SearchResult::from(src);
    assert_eq!(
        r,
        SearchResult {
            title: "A".into(),
            link: "https://a.example/".into(),
            snippet: "S".into(),
            date: Some("2024-05-01".into()),
            position: Some(4),
        }
    );
    assert_eq!(
        SearchResult::from(StructuredSource::default()),
        SearchResult::default()
    );
}

#[test]
fn from_collected_source() {
    // Built from JSON so that fields added to `Source` later (with defaults) do
    // not break this test.
    let mut src: Source = serde_json::from_value(serde_json::json!({
        "id": 1,
        "canonical_url": "https://a.example/",
        "url": "https://A.example/#x",
        "title": "A",
        "kind": "web",
        "references": 1,
        "found_by": ["search_result"],
        "snippet": "S",
        "date": "3 days ago",
        "position": 2,
        "verdict": {"class": "not_checked"},
    }))
    .unwrap();
    let r = SearchResult::from(&src);
    assert_eq!(r.link, "https://A.example/#x");
    assert_eq!((r.title.as_str(), r.snippet.as_str()), ("A", "S"));
    assert_eq!(
        (r.date.as_deref(), r.position),
        (Some("3 days ago"), Some(2))
    );
    src.url = None;
    assert_eq!(SearchResult::from(&src).link, "https://a.example/");
}

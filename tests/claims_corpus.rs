//! Claim splitting and signals over real answers: the ExpertQA validation answers (whose
//! claims were split and labelled by domain experts) and the DeepResearch Bench reports.
//! Checks that nothing panics, that every span is well formed, that no heading, greeting
//! or bare summing-up comes back as a claim, and how well the sentences agree with the
//! experts' claims. Prints figures; run with `-- --nocapture` to see them, and with
//! `--release` for a meaningful throughput figure.

use regex::Regex;
use serde_json::Value;
use sourcebot::collect::claims::{claim_signals, split_claims};
use sourcebot::model::Span;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// Citation markers (`[1]`, `[1, 3]`, `[2-4]`) and URLs without trailing punctuation.
static OPAQUE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[\d+(?:\s*[,–-]\s*\d+)*\]|https?://[^\s<>()\[\]]*[^\s<>()\[\].,;:!?'\x22]")
        .unwrap()
});

/// Fenced code blocks and reference-list lines (`[n] https://… - title`).
static EXCLUDED_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?ms)^```.*?^```[^\n]*$|(?m)^[ \t]*\[\d+\][^\n]*https?://[^\n]*$").unwrap()
});

fn corpora() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("corpora not found at {}; skipping", dir.display());
        None
    }
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

fn spans_of(re: &Regex, text: &str) -> Vec<Span> {
    re.find_iter(text)
        .map(|m| Span::new(m.start(), m.end()))
        .collect()
}

/// The opaque spans the collector would pass, minus those inside excluded spans.
fn opaque_spans(text: &str, excluded: &[Span]) -> Vec<Span> {
    spans_of(&OPAQUE_RE, text)
        .into_iter()
        .filter(|s| !excluded.iter().any(|e| e.overlaps(s)))
        .collect()
}

/// The sentence with opaque spans replaced by spaces, as the caller of `claim_signals`
/// prepares it. Reuses `buf`.
fn blanked<'b>(text: &str, span: Span, opaque: &[Span], buf: &'b mut String) -> &'b str {
    buf.clear();
    let mut cursor = span.start;
    let k = opaque.partition_point(|o| o.end <= span.start);
    for o in opaque[k..].iter().take_while(|o| o.start < span.end) {
        let a = o.start.max(cursor);
        buf.push_str(&text[cursor..a]);
        let b = o.end.min(span.end);
        buf.extend(std::iter::repeat_n(' ', b.saturating_sub(a)));
        cursor = b.max(cursor);
    }
    buf.push_str(&text[cursor..span.end]);
    buf.as_str()
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks the span invariants and the non-claim rules; returns the sentences' texts.
fn checked_claims<'t>(text: &'t str, opaque: &[Span], excluded: &[Span]) -> Vec<(Span, &'t str)> {
    let spans = split_claims(text, opaque, excluded);
    let mut prev_end = 0;
    let mut buf = String::new();
    for s in &spans {
        assert!(s.start < s.end && s.end <= text.len(), "bad span {s:?}");
        assert!(
            s.start >= prev_end,
            "unordered or overlapping spans at {s:?}"
        );
        assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
        assert!(
            !excluded.iter().any(|e| e.overlaps(s)),
            "span {s:?} overlaps excluded text"
        );
        prev_end = s.end;
        let sentence = &text[s.start..s.end];
        assert_eq!(sentence, sentence.trim(), "untrimmed sentence");
        assert!(
            !is_heading(sentence),
            "heading returned as claim: {sentence:?}"
        );
        assert!(
            !is_greeting(sentence),
            "greeting returned as claim: {sentence:?}"
        );
        let plain = blanked(text, *s, opaque, &mut buf);
        assert!(
            !is_bare_conclusion(plain),
            "bare conclusion returned as claim: {sentence:?}"
        );
    }
    spans.iter().map(|s| (*s, &text[s.start..s.end])).collect()
}

fn is_heading(sentence: &str) -> bool {
    let first = sentence.lines().next().unwrap_or("").trim_start();
    let hashes = first.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && first[hashes..].starts_with(' ')
}

fn is_greeting(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let lower = lower.trim_start_matches(['*', '_', ' ']);
    [
        "hi ",
        "hi!",
        "hi,",
        "hello",
        "i hope this helps",
        "let me know",
        "happy to help",
        "great question",
    ]
    .iter()
    .any(|g| lower.starts_with(g))
}

fn is_bare_conclusion(plain: &str) -> bool {
    let lower = plain.to_lowercase();
    let lower = lower.trim_start_matches(['*', '_', ' ']);
    ["in conclusion", "in summary", "to summarize", "overall,"]
        .iter()
        .any(|c| lower.starts_with(c))
        && !plain.chars().any(|c| c.is_ascii_digit())
}

fn pct(part: usize, whole: usize) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

struct Expert {
    claim: String,
    support: String,
}

struct QaAnswer {
    text: String,
    claims: Vec<Expert>,
}

fn expertqa_answers(dir: &Path) -> Vec<QaAnswer> {
    let mut out = Vec::new();
    for name in ["expertqa_domain_val.jsonl", "expertqa_rand_val.jsonl"] {
        for row in read_jsonl(&dir.join(name)) {
            let Some(answers) = row["answers"].as_object() else {
                continue;
            };
            for answer in answers.values() {
                let text = answer["answer_string"].as_str().unwrap_or("").to_string();
                let claims = answer["claims"]
                    .as_array()
                    .map(|cs| {
                        cs.iter()
                            .map(|c| Expert {
                                claim: c["claim_string"].as_str().unwrap_or("").to_string(),
                                support: c["support"].as_str().unwrap_or("none").to_string(),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                out.push(QaAnswer { text, claims });
            }
        }
    }
    out
}

#[test]
fn expertqa_answers_agree_with_the_experts() {
    let Some(dir) = corpora() else { return };
    let answers = expertqa_answers(&dir);
    assert!(answers.len() > 400, "expected the 423 ExpertQA answers");
    let (mut expert_total, mut contained, mut exact) = (0, 0, 0);
    let (mut sentences, mut flagged) = (0, 0);
    // support label -> (claims, flagged claims), over the experts' own claim strings.
    let mut by_support: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut per_signal: BTreeMap<String, usize> = BTreeMap::new();
    let mut buf = String::new();
    for answer in &answers {
        let text = answer.text.as_str();
        let opaque = opaque_spans(text, &[]);
        let found = checked_claims(text, &opaque, &[]);
        let ours: Vec<String> = found.iter().map(|(_, s)| normalize(s)).collect();
        for (span, _) in &found {
            sentences += 1;
            let signals = claim_signals(blanked(text, *span, &opaque, &mut buf));
            flagged += usize::from(!signals.is_empty());
            for s in signals {
                *per_signal.entry(format!("{s:?}")).or_default() += 1;
            }
        }
        for expert in &answer.claims {
            let claim = normalize(expert.claim.trim_end_matches(['-', ' ']));
            if claim.is_empty() {
                continue;
            }
            expert_total += 1;
            contained += usize::from(ours.iter().any(|o| o.contains(&claim)));
            exact += usize::from(ours.contains(&claim));
            let claim_opaque = opaque_spans(&expert.claim, &[]);
            let whole = Span::new(0, expert.claim.len());
            let signals = claim_signals(blanked(&expert.claim, whole, &claim_opaque, &mut buf));
            let entry = by_support.entry(expert.support.clone()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(!signals.is_empty());
        }
    }
    println!(
        "ExpertQA: {} answers, {sentences} claim sentences, {flagged} flagged by claim_signals ({:.1}%)",
        answers.len(),
        pct(flagged, sentences)
    );
    println!("ExpertQA signals per sentence kind: {per_signal:?}");
    println!(
        "ExpertQA: {contained}/{expert_total} expert claims ({:.1}%) lie within one of our sentences; {exact} ({:.1}%) match one exactly",
        pct(contained, expert_total),
        pct(exact, expert_total)
    );
    for (support, (n, f)) in &by_support {
        println!(
            "ExpertQA support={support:<10} claims={n:>5} flagged={f:>5} ({:.1}%)",
            pct(*f, *n)
        );
    }
    // Measured: 2,221 of 2,411 expert claims (92.1%) lie within one of our sentences; the
    // rest run across list items (the experts' splitter ignored line breaks) or are
    // lead-ins, questions, sign-offs and bare conclusions that we drop on purpose.
    // Floor: the measurement minus a small margin.
    assert!(
        pct(contained, expert_total) >= 90.0,
        "agreement with the experts fell to {:.1}%",
        pct(contained, expert_total)
    );
}

struct Report {
    text: String,
    opaque: Vec<Span>,
    excluded: Vec<Span>,
}

fn drb_reports(dir: &Path) -> Vec<Report> {
    read_jsonl(&dir.join("drb_claude37_raw.jsonl"))
        .into_iter()
        .map(|row| {
            let text = row["article"].as_str().unwrap_or("").to_string();
            let excluded = spans_of(&EXCLUDED_RE, &text);
            let opaque = opaque_spans(&text, &excluded);
            Report {
                text,
                opaque,
                excluded,
            }
        })
        .collect()
}

#[test]
fn drb_reports_split_cleanly() {
    let Some(dir) = corpora() else { return };
    let reports = drb_reports(&dir);
    assert_eq!(
        reports.len(),
        100,
        "expected 100 DeepResearch Bench reports"
    );
    let (mut sentences, mut flagged, mut cjk_sentences) = (0, 0, 0);
    let mut per_signal: BTreeMap<String, usize> = BTreeMap::new();
    let mut buf = String::new();
    for report in &reports {
        let found = checked_claims(&report.text, &report.opaque, &report.excluded);
        assert!(!found.is_empty(), "a report yielded no claims");
        for (span, sentence) in &found {
            sentences += 1;
            cjk_sentences += usize::from(
                sentence
                    .chars()
                    .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            );
            let signals = claim_signals(blanked(&report.text, *span, &report.opaque, &mut buf));
            flagged += usize::from(!signals.is_empty());
            for s in signals {
                *per_signal.entry(format!("{s:?}")).or_default() += 1;
            }
        }
    }
    println!(
        "DRB: {} reports, {sentences} claim sentences ({cjk_sentences} with CJK), {flagged} flagged ({:.1}%)",
        reports.len(),
        pct(flagged, sentences)
    );
    println!("DRB signals per sentence kind: {per_signal:?}");
}

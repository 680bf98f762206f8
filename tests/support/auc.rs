//! Whether sourcebot's source-credibility score means something: the ROC AUC of the
//! credibility of the sources an ExpertQA claim cites, for claims a domain expert rated
//! "Reliable" against claims rated "Not reliable at all", compared with a trivial
//! baseline (every source 0.5) and the seed specification's six-domain allowlist.
//! Pure functions, no printing: `examples/credibility_auc.rs` prints the figures and
//! `tests/credibility_auc.rs` checks them. Each includes this file with `#[path]`.
// Each includer uses part of this module.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;
use sourcebot::collect::CollectOptions;
use sourcebot::model::Answer;
use sourcebot::score::domain::{DomainTiers, Tier};
use url::{Host, Url};

/// The ExpertQA validation files, in the order they are reported.
pub const FILES: [&str; 2] = ["expertqa_rand_val.jsonl", "expertqa_domain_val.jsonl"];

/// The corpus directory, relative to the project root.
pub const DEFAULT_CORPUS_DIR: &str = "../shared/corpora";

/// The `reliability` label of a positive claim.
pub const RELIABLE: &str = "Reliable";

/// The `reliability` label of a negative claim.
pub const NOT_RELIABLE: &str = "Not reliable at all";

/// The allowlist of the project's original specification: a URL on one of these
/// domains (or a subdomain) scored 0.9, anything else 0.5.
pub const SEED_ALLOWLIST: [&str; 6] = [
    "arxiv.org",
    "github.com",
    "npmjs.com",
    "developer.mozilla.org",
    "docs.anthropic.com",
    "cloud.google.com",
];

/// Bootstrap resamples per interval.
pub const RESAMPLES: usize = 1_000;

/// Seed of the bootstrap's generator.
pub const SEED: u64 = 0x5eed_c0de_2024_0001;

/// An expert's rating of a claim, for the claims that take part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Label {
    /// Rated "Reliable": a positive.
    Reliable,
    /// Rated "Not reliable at all": a negative.
    NotReliable,
}

impl Label {
    /// The label a `reliability` value gives, if it is one of the two that take part.
    pub fn from_reliability(value: Option<&Value>) -> Option<Label> {
        match value.and_then(Value::as_str) {
            Some(RELIABLE) => Some(Label::Reliable),
            Some(NOT_RELIABLE) => Some(Label::NotReliable),
            _ => None,
        }
    }
}

/// A rated claim and the URLs it cites, as written in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// The question the answer is for (claims are clustered by it).
    pub question: String,
    /// The system that wrote the answer (`bing_chat`, `gpt4` …).
    pub system: String,
    /// The claim's text.
    pub text: String,
    /// The expert's rating.
    pub label: Label,
    /// The cited URLs, without repeats, in order of citation.
    pub urls: Vec<String>,
    /// The expert's `support` label (Complete, Partial, …), if given.
    pub support: Option<String>,
}

impl Claim {
    /// What identifies a claim across files: question, system and text.
    pub fn key(&self) -> (&str, &str, &str) {
        (&self.question, &self.system, &self.text)
    }
}

/// A claim left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The question the answer is for.
    pub question: String,
    /// The system that wrote the answer.
    pub system: String,
    /// The claim's text.
    pub text: String,
    /// Why: its rating when that is neither of the two that take part (`(none)` when
    /// absent or not a string), or [`NO_URL`].
    pub reason: String,
}

/// The reason of a rated claim that cites no URL.
pub const NO_URL: &str = "no URL";

/// A file's claims: those that take part, those left out, and a tally.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// Claims rated "Reliable" or "Not reliable at all" that cite a URL.
    pub claims: Vec<Claim>,
    /// Every other claim, with the reason.
    pub skipped: Vec<Skipped>,
    /// Counts of what was found.
    pub tally: Tally,
}

/// What reading a file found, including everything that was left out and why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Non-empty lines read.
    pub lines: usize,
    /// Lines that are not JSON objects with an `answers` object (skipped whole).
    pub bad_lines: usize,
    /// Answers (one per system per question).
    pub answers: usize,
    /// Answers whose `attribution` list is empty or absent.
    pub empty_attribution: usize,
    /// Distinct `[n]` numbers in answers' texts that their `attribution` has no URL for.
    pub missing_numbers: usize,
    /// Claims seen, rated or not.
    pub claims: usize,
    /// Claims skipped for their rating, by rating (`(none)` when absent or not a string).
    pub other_label: BTreeMap<String, usize>,
    /// Rated claims skipped because they cite no URL.
    pub no_url: usize,
    /// Rated claims kept whose URLs came from their `evidence` entries.
    pub from_evidence: usize,
    /// Rated claims kept whose URLs came from `[n]` markers and the `attribution` list.
    pub from_markers: usize,
    /// Attribution or evidence entries not of the form `[n] URL`.
    pub malformed_entries: usize,
    /// Citations in rated claims that lead to no URL (number not in the attribution, or
    /// its entry malformed).
    pub unresolved_citations: usize,
}

impl Tally {
    /// Rated claims skipped for any reason here, plus claims with another rating.
    pub fn skipped(&self) -> usize {
        self.other_label.values().sum::<usize>() + self.no_url
    }
}

/// One `attribution` or `evidence` entry: `"[n] URL…"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The number in brackets, if the entry starts with one.
    pub number: Option<u32>,
    /// The URL after it, if the next word looks like one (`http://`, `https://` or
    /// `www.`, any case).
    pub url: Option<String>,
}

/// Reads an entry. Evidence entries go on with a blank line and an excerpt; only the
/// first word after the number is the URL.
pub fn parse_entry(text: &str) -> Entry {
    let text = text.trim_start();
    let (number, rest) = match text.strip_prefix('[').and_then(|t| t.split_once(']')) {
        Some((n, rest)) => match n.trim().parse::<u32>() {
            Ok(n) => (Some(n), rest),
            Err(_) => (None, text),
        },
        None => (None, text),
    };
    let url = rest
        .split_whitespace()
        .next()
        .filter(|word| looks_like_url(word))
        .map(str::to_string);
    Entry { number, url }
}

fn looks_like_url(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("www.")
}

/// The citation numbers of `[n]` and `[n, m]` markers in `text`, in order.
pub fn marker_numbers(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find(']') else { break };
        let inside = &rest[..close];
        let numbers: Option<Vec<u32>> = inside
            .split(',')
            .map(|n| n.trim().parse::<u32>().ok())
            .collect();
        if let Some(numbers) = numbers {
            out.extend(numbers);
            rest = &rest[close + 1..];
        }
    }
    out
}

/// Reads an ExpertQA JSONL file: the claims rated "Reliable" or "Not reliable at all"
/// that cite at least one URL, every other claim with the reason, and a [`Tally`]. A claim's URLs come
/// from its `evidence` entries (`"[n] URL\n\nexcerpt"`), an entry without a URL taking
/// its number's URL from the answer's `attribution`; a claim without evidence falls
/// back to the `[n]` markers in its text, looked up in the `attribution`. Nothing here
/// panics on bad data: what cannot be used is counted.
pub fn parse_jsonl(text: &str) -> Parsed {
    let mut out = Parsed::default();
    let tally = &mut out.tally;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        tally.lines += 1;
        let value: Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(_) => {
                tally.bad_lines += 1;
                continue;
            }
        };
        let Some(answers) = value.get("answers").and_then(Value::as_object) else {
            tally.bad_lines += 1;
            continue;
        };
        let question = value
            .get("question")
            .and_then(Value::as_str)
            .unwrap_or_default();
        for (system, answer) in answers {
            read_answer(
                question,
                system,
                answer,
                &mut out.claims,
                &mut out.skipped,
                tally,
            );
        }
    }
    out
}

fn strings(value: Option<&Value>) -> Vec<&str> {
    value
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn read_answer(
    question: &str,
    system: &str,
    answer: &Value,
    claims: &mut Vec<Claim>,
    skipped: &mut Vec<Skipped>,
    tally: &mut Tally,
) {
    tally.answers += 1;
    let attribution = strings(answer.get("attribution"));
    if attribution.is_empty() {
        tally.empty_attribution += 1;
    }
    let mut by_number: HashMap<u32, String> = HashMap::new();
    for entry in attribution.iter().map(|e| parse_entry(e)) {
        match entry {
            Entry {
                number: Some(n),
                url: Some(url),
            } => {
                by_number.entry(n).or_insert(url);
            }
            _ => tally.malformed_entries += 1,
        }
    }
    let answer_text = answer
        .get("answer_string")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut cited: Vec<u32> = marker_numbers(answer_text);
    cited.sort_unstable();
    cited.dedup();
    tally.missing_numbers += cited.iter().filter(|n| !by_number.contains_key(n)).count();
    let empty = Vec::new();
    let list = answer
        .get("claims")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for claim in list {
        tally.claims += 1;
        let text = claim
            .get("claim_string")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let skip = |reason: &str| Skipped {
            question: question.to_string(),
            system: system.to_string(),
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let reliability = claim.get("reliability");
        let Some(label) = Label::from_reliability(reliability) else {
            let name = reliability.and_then(Value::as_str).unwrap_or("(none)");
            *tally.other_label.entry(name.to_string()).or_default() += 1;
            skipped.push(skip(name));
            continue;
        };
        let evidence = strings(claim.get("evidence"));
        let mut urls: Vec<String> = Vec::new();
        let mut push = |url: String| {
            if !urls.contains(&url) {
                urls.push(url);
            }
        };
        let from_evidence = !evidence.is_empty();
        if from_evidence {
            for entry in evidence.iter().map(|e| parse_entry(e)) {
                match entry {
                    Entry { url: Some(url), .. } => push(url),
                    Entry {
                        number: Some(n),
                        url: None,
                    } => {
                        tally.malformed_entries += 1;
                        match by_number.get(&n) {
                            Some(url) => push(url.clone()),
                            None => tally.unresolved_citations += 1,
                        }
                    }
                    Entry {
                        number: None,
                        url: None,
                    } => {
                        tally.malformed_entries += 1;
                        tally.unresolved_citations += 1;
                    }
                }
            }
        } else {
            for n in marker_numbers(text) {
                match by_number.get(&n) {
                    Some(url) => push(url.clone()),
                    None => tally.unresolved_citations += 1,
                }
            }
        }
        if urls.is_empty() {
            tally.no_url += 1;
            skipped.push(skip(NO_URL));
            continue;
        }
        if from_evidence {
            tally.from_evidence += 1;
        } else {
            tally.from_markers += 1;
        }
        claims.push(Claim {
            question: question.to_string(),
            system: system.to_string(),
            text: text.to_string(),
            label,
            urls,
            support: claim
                .get("support")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
    }
}

/// Claims of several files, each counted once.
#[derive(Debug, Clone, Default)]
pub struct Pooled {
    /// The distinct claims, in order of first appearance.
    pub claims: Vec<Claim>,
    /// Claims that appeared again in a later file with the same rating (dropped).
    pub repeated: usize,
    /// Claims that appeared in two files with different ratings (all copies dropped).
    pub conflicting: usize,
    /// Distinct claims left out, by reason (see [`Skipped::reason`]).
    pub skipped: BTreeMap<String, usize>,
}

/// Pools files: a claim (same question, system and text) in several files counts
/// once, kept or skipped; one rated differently in two files is left out.
pub fn pool(files: &[&Parsed]) -> Pooled {
    let sets: Vec<&[Claim]> = files.iter().map(|f| f.claims.as_slice()).collect();
    let mut seen: HashSet<(&str, &str, &str)> = HashSet::new();
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    for s in files.iter().flat_map(|f| &f.skipped) {
        if seen.insert((&s.question, &s.system, &s.text)) {
            *skipped.entry(s.reason.clone()).or_default() += 1;
        }
    }
    let mut first: HashMap<(&str, &str, &str), usize> = HashMap::new();
    let mut conflicts: HashSet<usize> = HashSet::new();
    let mut kept: Vec<&Claim> = Vec::new();
    let mut repeated = 0;
    for claim in sets.iter().flat_map(|s| s.iter()) {
        match first.get(&claim.key()) {
            Some(&i) if kept[i].label == claim.label => repeated += 1,
            Some(&i) => {
                conflicts.insert(i);
            }
            None => {
                first.insert(claim.key(), kept.len());
                kept.push(claim);
            }
        }
    }
    Pooled {
        claims: kept
            .iter()
            .enumerate()
            .filter(|(i, _)| !conflicts.contains(i))
            .map(|(_, c)| (*c).clone())
            .collect(),
        repeated,
        conflicting: conflicts.len(),
        skipped,
    }
}

/// What sourcebot makes of one cited URL.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlScore {
    /// The source's credibility (`credibility.value`), links not checked.
    pub credibility: f64,
    /// The link sourcebot judged (canonical URL, else as written).
    pub link: String,
    /// The tier of its host in the built-in list (`None` without a host).
    pub tier: Option<Tier>,
}

/// Scores `url` the way the product does: [`sourcebot::check`] on a one-claim answer
/// whose reference list gives `url` as `[1]`, and the credibility of the source that
/// `[1]` resolves to. `None` when sourcebot finds no source there (not a link it can
/// read, such as `https://`).
pub fn product_score(url: &str) -> Option<UrlScore> {
    let answer = Answer::from_text(format!("A claim [1].\n\n[1] {url}"));
    let report = sourcebot::check(&answer, &CollectOptions::default());
    let source = report.sources().find(|s| s.citation_numbers.contains(&1))?;
    let link = source.link()?.to_string();
    Some(UrlScore {
        credibility: source.credibility.as_ref()?.value,
        tier: tier_of(&link),
        link,
    })
}

/// The built-in tier of a link's host: [`DomainTiers::tier`]; an IP address is
/// unknown; `None` without a host.
pub fn tier_of(link: &str) -> Option<Tier> {
    match Url::parse(link).ok()?.host()? {
        Host::Domain(domain) => Some(DomainTiers::builtin().tier(domain)),
        Host::Ipv4(_) | Host::Ipv6(_) => Some(Tier::Unknown),
    }
}

/// The seed specification's score of a link: 0.9 when its host is one of
/// [`SEED_ALLOWLIST`] or under one, else 0.5 (also for a link without a host).
pub fn seed_allowlist_score(link: &str) -> f64 {
    let host = Url::parse(link).ok().and_then(|u| {
        u.host_str()
            .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
    });
    let listed = host.is_some_and(|host| {
        SEED_ALLOWLIST.iter().any(|domain| {
            host == *domain
                || host
                    .strip_suffix(domain)
                    .is_some_and(|rest| rest.ends_with('.'))
        })
    });
    if listed {
        0.9
    } else {
        0.5
    }
}

/// The product's score of every URL the claims cite, each computed once.
pub fn score_urls(claims: &[Claim]) -> HashMap<String, Option<UrlScore>> {
    let mut book = HashMap::new();
    for url in claims.iter().flat_map(|c| &c.urls) {
        if !book.contains_key(url) {
            book.insert(url.clone(), product_score(url));
        }
    }
    book
}

/// The scorers compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scorer {
    /// sourcebot's credibility, mean over the claim's sources.
    TiersMean,
    /// sourcebot's credibility, max over the claim's sources.
    TiersMax,
    /// The seed allowlist, mean over the claim's sources.
    Seed,
    /// Every source 0.5.
    Baseline,
}

impl Scorer {
    /// Every scorer, in table order.
    pub const ALL: [Scorer; 4] = [
        Scorer::TiersMean,
        Scorer::TiersMax,
        Scorer::Seed,
        Scorer::Baseline,
    ];

    /// The scorer's name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Scorer::TiersMean => "sourcebot (mean)",
            Scorer::TiersMax => "sourcebot (max)",
            Scorer::Seed => "seed allowlist (6 domains)",
            Scorer::Baseline => "baseline (all 0.5)",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A claim with its score under every [`Scorer`].
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredClaim {
    /// The expert's rating.
    pub label: Label,
    /// The question, for the clustered bootstrap.
    pub question: String,
    /// Scores, indexed like [`Scorer::ALL`].
    pub scores: [f64; 4],
    /// The tier of each cited source sourcebot could read.
    pub tiers: Vec<Option<Tier>>,
}

impl ScoredClaim {
    /// The claim's score under `scorer`.
    pub fn score(&self, scorer: Scorer) -> f64 {
        self.scores[scorer.index()]
    }
}

/// Scored claims, and what scoring had to leave out.
#[derive(Debug, Clone, Default)]
pub struct Scored {
    /// The claims with at least one source sourcebot could read.
    pub claims: Vec<ScoredClaim>,
    /// Cited URLs sourcebot found no source in (left out of every scorer).
    pub unreadable_urls: usize,
    /// Claims left out because none of their URLs could be read.
    pub no_readable_url: usize,
}

/// Scores every claim under every [`Scorer`], on the same sources: those of its URLs
/// that `book` (from [`score_urls`]) could read.
pub fn score_claims(claims: &[Claim], book: &HashMap<String, Option<UrlScore>>) -> Scored {
    let mut out = Scored::default();
    for claim in claims {
        let mut read: Vec<&UrlScore> = Vec::new();
        for url in &claim.urls {
            match book.get(url) {
                Some(Some(score)) => read.push(score),
                _ => out.unreadable_urls += 1,
            }
        }
        if read.is_empty() {
            out.no_readable_url += 1;
            continue;
        }
        let credibility: Vec<f64> = read.iter().map(|s| s.credibility).collect();
        let seed: Vec<f64> = read.iter().map(|s| seed_allowlist_score(&s.link)).collect();
        let baseline = vec![0.5; read.len()];
        out.claims.push(ScoredClaim {
            label: claim.label,
            question: claim.question.clone(),
            scores: [
                mean(&credibility),
                credibility.iter().copied().fold(f64::MIN, f64::max),
                mean(&seed),
                mean(&baseline),
            ],
            tiers: read.iter().map(|s| s.tier).collect(),
        });
    }
    out
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The positives' and the negatives' scores under `scorer`.
pub fn split(claims: &[ScoredClaim], scorer: Scorer) -> (Vec<f64>, Vec<f64>) {
    let mut pos = Vec::new();
    let mut neg = Vec::new();
    for claim in claims {
        match claim.label {
            Label::Reliable => pos.push(claim.score(scorer)),
            Label::NotReliable => neg.push(claim.score(scorer)),
        }
    }
    (pos, neg)
}

/// ROC AUC of scores `pos` against `neg` (Mann–Whitney U over `|pos| × |neg|`, a tie
/// counting one half), from mid-ranks in O(n log n). `None` when either side is empty.
pub fn auc(pos: &[f64], neg: &[f64]) -> Option<f64> {
    if pos.is_empty() || neg.is_empty() {
        return None;
    }
    let mut all: Vec<(f64, bool)> = pos
        .iter()
        .map(|&s| (s, true))
        .chain(neg.iter().map(|&s| (s, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j < all.len() && all[j].0.total_cmp(&all[i].0).is_eq() {
            j += 1;
        }
        // Ranks i+1 ..= j share their mean.
        let mid = (i + 1 + j) as f64 / 2.0;
        let positives = all[i..j].iter().filter(|x| x.1).count();
        rank_sum += mid * positives as f64;
        i = j;
    }
    let (n1, n0) = (pos.len() as f64, neg.len() as f64);
    Some((rank_sum - n1 * (n1 + 1.0) / 2.0) / (n1 * n0))
}

/// splitmix64: a small, fast, fixed-seed generator (Steele, Lea and Flood 2014).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (multiply-shift; `n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// A percentile bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// 2.5th percentile.
    pub low: f64,
    /// 97.5th percentile.
    pub high: f64,
}

impl Interval {
    /// Whether `x` lies in the interval (ends included).
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

fn percentile_interval(mut values: Vec<f64>) -> Option<Interval> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let low = ((n as f64) * 0.025).floor() as usize;
    let high = (((n as f64) * 0.975).ceil() as usize).clamp(1, n) - 1;
    Some(Interval {
        low: values[low.min(n - 1)],
        high: values[high],
    })
}

/// 95% percentile bootstrap interval of [`auc`]: `resamples` times, draw `|pos|`
/// positives and `|neg|` negatives with replacement (stratified, so every resample has
/// both). The same seed and sizes give the same draws, so scorers compared on the same
/// claims are resampled alike. `None` when either side is empty or `resamples` is 0.
pub fn bootstrap_auc(pos: &[f64], neg: &[f64], resamples: usize, seed: u64) -> Option<Interval> {
    auc(pos, neg)?;
    let mut rng = SplitMix64::new(seed);
    let mut p = vec![0.0; pos.len()];
    let mut q = vec![0.0; neg.len()];
    let mut aucs = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for x in p.iter_mut() {
            *x = pos[rng.below(pos.len())];
        }
        for x in q.iter_mut() {
            *x = neg[rng.below(neg.len())];
        }
        aucs.extend(auc(&p, &q));
    }
    percentile_interval(aucs)
}

/// 95% bootstrap interval of [`auc`] under `scorer`, resampling whole questions with
/// replacement (claims of one question share sources and raters, so they are not
/// independent draws). A resample without a positive or a negative is left out.
pub fn cluster_bootstrap_auc(
    claims: &[ScoredClaim],
    scorer: Scorer,
    resamples: usize,
    seed: u64,
) -> Option<Interval> {
    let scored: Vec<(&str, Label, f64)> = claims
        .iter()
        .map(|c| (c.question.as_str(), c.label, c.score(scorer)))
        .collect();
    cluster_bootstrap(&scored, resamples, seed)
}

/// [`cluster_bootstrap_auc`] of any scores: `(question, label, score)` for each claim.
pub fn cluster_bootstrap(
    claims: &[(&str, Label, f64)],
    resamples: usize,
    seed: u64,
) -> Option<Interval> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut clusters: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    for &(question, label, score) in claims {
        let next = clusters.len();
        let i = *index.entry(question).or_insert(next);
        if i == clusters.len() {
            clusters.push((Vec::new(), Vec::new()));
        }
        match label {
            Label::Reliable => clusters[i].0.push(score),
            Label::NotReliable => clusters[i].1.push(score),
        }
    }
    if clusters.is_empty() {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut aucs = Vec::with_capacity(resamples);
    let (mut p, mut q) = (Vec::new(), Vec::new());
    for _ in 0..resamples {
        p.clear();
        q.clear();
        for _ in 0..clusters.len() {
            let (cp, cq) = &clusters[rng.below(clusters.len())];
            p.extend_from_slice(cp);
            q.extend_from_slice(cq);
        }
        aucs.extend(auc(&p, &q));
    }
    percentile_interval(aucs)
}

/// How many cited sources of positives (`[0]`) and negatives (`[1]`) fall in each tier,
/// in the order of [`Tier::ALL`], then sources without a host.
pub fn tier_counts(claims: &[ScoredClaim]) -> [[usize; 7]; 2] {
    let mut counts = [[0; 7]; 2];
    for claim in claims {
        let side = match claim.label {
            Label::Reliable => 0,
            Label::NotReliable => 1,
        };
        for tier in &claim.tiers {
            let slot = match tier {
                Some(t) => Tier::ALL.iter().position(|x| x == t).unwrap_or(6),
                None => 6,
            };
            counts[side][slot] += 1;
        }
    }
    counts
}

/// One scorer's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// The scorer.
    pub scorer: Scorer,
    /// Its AUC (`None` without positives or negatives).
    pub auc: Option<f64>,
    /// 95% interval resampling claims ([`bootstrap_auc`]).
    pub by_claim: Option<Interval>,
    /// 95% interval resampling questions ([`cluster_bootstrap_auc`]).
    pub by_question: Option<Interval>,
}

/// The figures for one set of claims.
#[derive(Debug, Clone)]
pub struct Figures {
    /// Positives (claims rated "Reliable" and scored).
    pub positives: usize,
    /// Negatives (claims rated "Not reliable at all" and scored).
    pub negatives: usize,
    /// Per scorer, in the order of [`Scorer::ALL`].
    pub rows: Vec<Row>,
}

impl Figures {
    /// The AUC of `scorer`.
    pub fn auc(&self, scorer: Scorer) -> Option<f64> {
        self.rows
            .iter()
            .find(|r| r.scorer == scorer)
            .and_then(|r| r.auc)
    }
}

/// AUC and both bootstrap intervals of every scorer on `claims`.
pub fn figures(claims: &[ScoredClaim], resamples: usize, seed: u64) -> Figures {
    let rows = Scorer::ALL
        .iter()
        .map(|&scorer| {
            let (pos, neg) = split(claims, scorer);
            Row {
                scorer,
                auc: auc(&pos, &neg),
                by_claim: bootstrap_auc(&pos, &neg, resamples, seed),
                by_question: cluster_bootstrap_auc(claims, scorer, resamples, seed),
            }
        })
        .collect();
    let (pos, neg) = split(claims, Scorer::Baseline);
    Figures {
        positives: pos.len(),
        negatives: neg.len(),
        rows,
    }
}

/// Skipped claims counted by reason.
pub fn reasons(skipped: &[Skipped]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for s in skipped {
        *out.entry(s.reason.clone()).or_default() += 1;
    }
    out
}

//! What kind of claim a sentence makes, and which sources suit it. A claim about a
//! drug dose wants a medical or official source; a claim about an API wants its
//! documentation or code; a revenue figure wants the company's own records. The
//! [`ClaimClassifier`] trait is the seam: [`RuleClassifier`] reads keywords and
//! patterns; the language-model classifier (`crate::llm::classifier`) gives the same
//! [`Classification`] for a whole answer at once. [`relevance`] says how well a source
//! fits a claim's type, and [`available_sources`] names the kinds of source an answer
//! draws on, as a classifier is told about them.

pub use crate::model::ClaimType;
use crate::model::{ClassificationMethod, Report, SourceKind, SourceRecommendation};
use crate::score::confidence::ReliabilityRegistry;
use crate::score::domain::{DomainTiers, Tier};
use memchr::memmem;
use std::sync::LazyLock;

/// Decides a claim's type and which of the answer's sources suit it. Implementations
/// must be cheap: every claim of every answer goes through one.
pub trait ClaimClassifier: Send + Sync {
    /// The type of `claim` (a sentence of the answer).
    fn claim_type(&self, claim: &str) -> ClaimType;

    /// The claim's type, the `sources` that suit it best (each with a relevance and a
    /// reason), and the method that decided.
    fn classify(&self, claim: &str, sources: &[AvailableSource]) -> Classification;

    /// The types of `claims`, in order: [`claim_type`](Self::claim_type) of each. The
    /// rules read a large batch on two threads.
    fn claim_types(&self, claims: &[&str]) -> Vec<ClaimType> {
        claims.iter().map(|claim| self.claim_type(claim)).collect()
    }
}

/// Claims of at least this many bytes in all are typed on two threads.
const TWO_THREADS_FROM_BYTES: usize = 64 * 1024;

/// A classifier's decision about one claim, as the source-selection spec shapes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Classification {
    /// The claim's type.
    pub claim_type: ClaimType,
    /// The available sources that suit it, best first.
    pub recommendations: Vec<SourceRecommendation>,
    /// Who decided.
    pub method: ClassificationMethod,
}

/// A kind of source an answer draws on: a Confluence space, Slack, files, web pages of
/// one domain tier, or one agent's results. The name, description and reliability are
/// what a classifier is told; the kind and tier are what the rules read.
#[derive(Debug, Clone, PartialEq)]
pub struct AvailableSource {
    /// `confluence`, `slack`, `file`, `web:high`, `web:reputable`, `web:unknown`,
    /// `web:user-generated`, `web:low` or `agent:NAME`.
    pub name: String,
    /// What it is, in a few words.
    pub description: String,
    /// How far it is trusted, 0–1 (the registry's reliability of the kind or agent,
    /// the tier's score for web pages).
    pub reliability: f64,
    /// Its kind.
    pub kind: SourceKind,
    /// For web pages, the domain tier; `None` for other kinds and agents.
    pub tier: Option<Tier>,
    /// Whether it is an agent's results (`agent:NAME`).
    pub agent: bool,
}

/// The name of the available source a report's source belongs to (see
/// [`AvailableSource::name`]); agents' sources count under their agent.
pub fn available_source_name(kind: SourceKind, tier: Tier, agents: &[String]) -> String {
    if let Some(agent) = agents.first() {
        return format!("agent:{agent}");
    }
    match kind {
        SourceKind::Web => format!("web:{}", web_tier_name(tier)),
        other => other.to_string(),
    }
}

/// The tier as an available source's name says it (neutral and unknown are one).
fn web_tier_name(tier: Tier) -> &'static str {
    match tier {
        Tier::High => "high",
        Tier::Reputable => "reputable",
        Tier::Neutral | Tier::Unknown => "unknown",
        Tier::UserGenerated => "user-generated",
        Tier::Low => "low",
    }
}

/// A kind of source as a reader says it: "Slack messages", "Confluence pages",
/// "files", "web pages".
pub fn kind_in_words(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::Slack => "Slack messages",
        SourceKind::Confluence => "Confluence pages",
        SourceKind::File => "files",
        SourceKind::Web => "web pages",
    }
}

/// An available source's name (see [`AvailableSource::name`]) as a reader says it:
/// `web:high` is "official or scholarly web pages", `agent:NAME` is "NAME's results".
/// A name it does not know is returned as it is. Not escaped: agents' names come from
/// the agent.
pub fn available_source_in_words(name: &str) -> String {
    if let Some(agent) = name.strip_prefix("agent:") {
        return format!("{agent}'s results");
    }
    match name {
        "confluence" => kind_in_words(SourceKind::Confluence),
        "slack" => kind_in_words(SourceKind::Slack),
        "file" => kind_in_words(SourceKind::File),
        "web:high" => "official or scholarly web pages",
        "web:reputable" => "established news or reference sites",
        "web:unknown" => "web pages of no known reputation",
        "web:user-generated" => "forums, Q&A sites, blogs or social media",
        "web:low" => "content farms",
        other => other,
    }
    .to_string()
}

/// One of a report's sources as the classifier sees it: its kind, its host's tier and
/// the available source it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceFit {
    /// The source's id.
    pub id: usize,
    /// Its kind.
    pub kind: SourceKind,
    /// Its host's tier ([`Tier::Unknown`] without a link, for an address, or for a
    /// link that does not parse).
    pub tier: Tier,
    /// The available source it belongs to ([`available_source_name`]).
    pub name: String,
}

impl SourceFit {
    /// The fit of a source whose host has `tier`.
    pub fn new(source: &crate::model::Source, tier: Tier) -> SourceFit {
        SourceFit {
            id: source.id,
            kind: source.kind,
            tier,
            name: available_source_name(source.kind, tier, &source.agents),
        }
    }
}

/// Every source of `report` as the classifier sees it, in report order.
pub fn source_fits(report: &Report, tiers: &DomainTiers) -> Vec<SourceFit> {
    report
        .sources()
        .map(|source| {
            let tier = source
                .link()
                .and_then(|u| url::Url::parse(u).ok())
                .map_or(Tier::Unknown, |u| tiers.tier_of(&u));
            SourceFit::new(source, tier)
        })
        .collect()
}

/// The kinds of source `report` draws on, in a stable order (internal kinds, web tiers
/// from high to low, then agents by name), each once.
pub fn available_sources(
    report: &Report,
    tiers: &DomainTiers,
    registry: &ReliabilityRegistry,
) -> Vec<AvailableSource> {
    available_sources_of(&source_fits(report, tiers), registry)
}

/// [`available_sources`] of a report's sources as [`source_fits`] gives them.
pub fn available_sources_of(
    fits: &[SourceFit],
    registry: &ReliabilityRegistry,
) -> Vec<AvailableSource> {
    let mut found: Vec<AvailableSource> = Vec::new();
    for fit in fits {
        if found.iter().any(|f| f.name == fit.name) {
            continue;
        }
        let name = fit.name.clone();
        let available = match fit.name.strip_prefix("agent:") {
            Some(agent) => AvailableSource {
                description: format!("results of the agent {agent}"),
                reliability: registry.agents(&[agent.to_string()]).unwrap_or(0.5),
                kind: fit.kind,
                tier: None,
                agent: true,
                name,
            },
            None if fit.kind == SourceKind::Web => AvailableSource {
                description: web_description(fit.tier).to_string(),
                reliability: fit.tier.score(),
                kind: SourceKind::Web,
                tier: Some(fit.tier),
                agent: false,
                name,
            },
            None => AvailableSource {
                description: match fit.kind {
                    SourceKind::Confluence => "the organisation's Confluence pages",
                    SourceKind::Slack => "messages in the organisation's Slack",
                    _ => "the organisation's files",
                }
                .to_string(),
                reliability: registry.kind(fit.kind),
                kind: fit.kind,
                tier: None,
                agent: false,
                name,
            },
        };
        found.push(available);
    }
    found.sort_by_key(|a| (a.agent, a.kind == SourceKind::Web, tier_rank(a.tier)));
    found
}

fn tier_rank(tier: Option<Tier>) -> usize {
    tier.map_or(0, |t| Tier::ALL.iter().position(|x| *x == t).unwrap_or(0))
}

fn web_description(tier: Tier) -> &'static str {
    match tier {
        Tier::High => "web pages of governments, universities, scholarly publishers, standards bodies and official documentation",
        Tier::Reputable => "web pages of established news organisations and well-sourced reference works",
        Tier::Neutral | Tier::Unknown => "web pages of sites with no known reputation",
        Tier::UserGenerated => "web pages of forums, Q&A sites, blogs and social media",
        Tier::Low => "web pages of content farms and sites known to fabricate",
    }
}

/// What each type of claim wants, in a few words ("official and scholarly sources"):
/// the rules' reasons say it, and the report says it where a claim's sources suit it
/// poorly.
pub fn wanted_sources(claim_type: ClaimType) -> &'static str {
    match claim_type {
        ClaimType::Health => "official and scholarly sources",
        ClaimType::Law => "statutes, regulators and the organisation's own policies",
        ClaimType::Statistics => "statistics offices and journals, then the press",
        ClaimType::Money => "filings, the financial press and the organisation's own records",
        ClaimType::Code => "documentation and code hosts",
        ClaimType::General => "any source",
    }
}

/// The rules' recommendations for a claim of `claim_type`: every available source with
/// its [`relevance`], best first, and the rule's reason; none for a general claim (any
/// source suits it). Agents' results get 0.5: the rules do not know what an agent
/// searches.
pub fn rule_recommendations(
    claim_type: ClaimType,
    sources: &[AvailableSource],
) -> Vec<SourceRecommendation> {
    if claim_type == ClaimType::General {
        return Vec::new();
    }
    let mut recommendations: Vec<SourceRecommendation> = sources
        .iter()
        .map(|source| {
            let (relevance, reason) = if source.agent {
                (
                    0.5,
                    format!(
                        "{claim_type} claims want {}; the rules do not know what this agent searches",
                        wanted_sources(claim_type)
                    ),
                )
            } else {
                let tier = source.tier.unwrap_or(Tier::Unknown);
                let relevance = relevance(claim_type, source.kind, tier);
                let fit = if relevance >= 0.8 {
                    "suit"
                } else if relevance >= 0.5 {
                    "partly suit"
                } else {
                    "do not suit"
                };
                (
                    relevance,
                    format!(
                        "{claim_type} claims want {}; {} {fit} them",
                        wanted_sources(claim_type),
                        available_source_in_words(&source.name)
                    ),
                )
            };
            SourceRecommendation {
                source: source.name.clone(),
                relevance,
                reason,
            }
        })
        .collect();
    recommendations.sort_by(|a, b| b.relevance.total_cmp(&a.relevance));
    recommendations
}

/// Keywords and patterns, checked in order of how much a wrong source costs: health,
/// law, money, code, statistics; otherwise general.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleClassifier;

const HEALTH: &[&str] = &[
    "patient",
    "disease",
    "dose",
    "dosage",
    "vaccine",
    "symptom",
    "treatment",
    "clinical",
    "cancer",
    "diabetes",
    "infection",
    "therapy",
    "medication",
    "drug",
    "fda",
    "diagnos*",
    "mg/",
    " mg ",
    "blood pressure",
    "virus",
    "pregnan*",
    "surgery",
    "mortality",
];
const LAW: &[&str] = &[
    "law",
    "legal",
    "court",
    "statute",
    "regulation",
    "gdpr",
    "hipaa",
    "compliance",
    "contract",
    "liability",
    "lawsuit",
    "attorney",
    "jurisdiction",
    "licen*",
    "§",
    "article ",
    "directive",
    "copyright",
    "patent",
];
const MONEY: &[&str] = &[
    "$",
    "€",
    "£",
    "¥",
    "usd",
    "eur",
    "revenue",
    "price",
    "cost",
    "budget",
    "salary",
    "profit",
    "invoice",
    "funding",
    "valuation",
    "per month",
    "per year",
    "pricing",
    "tax",
];
const CODE: &[&str] = &[
    "api",
    "function",
    "library",
    "compile",
    "`",
    "error",
    "bug",
    "endpoint",
    "deploy",
    "kubernetes",
    "docker",
    "python",
    "rust",
    "javascript",
    "typescript",
    "java ",
    "sql",
    "http",
    "json",
    "cli",
    "sdk",
    "framework",
    "version ",
    "release ",
    "crate",
    "package",
];
const STATISTICS: &[&str] = &[
    "%",
    "percent",
    "per cent",
    "average",
    "median",
    "rate",
    "survey",
    "study",
    "million",
    "billion",
    "majority",
    "proportion",
    "ratio",
    "growth",
    "increase",
    "decrease",
];

/// The keyword lists in the order they are tried: health, law, money, code,
/// statistics.
const TYPES: [(ClaimType, &[&str]); 5] = [
    (ClaimType::Health, HEALTH),
    (ClaimType::Law, LAW),
    (ClaimType::Money, MONEY),
    (ClaimType::Code, CODE),
    (ClaimType::Statistics, STATISTICS),
];

/// One keyword as the matcher looks for it.
struct Keyword {
    /// Index into [`TYPES`].
    rank: usize,
    /// Symbols and multi-word keys match anywhere.
    anywhere: bool,
    /// Whole words must end at a word boundary; stems (`licen*`) need not.
    whole: bool,
}

/// Every keyword of every type in one Aho-Corasick automaton, so a claim is read once
/// however many keywords there are.
struct Matcher {
    automaton: aho_corasick::AhoCorasick,
    keywords: Vec<Keyword>,
}

fn matcher() -> Option<&'static Matcher> {
    static MATCHER: std::sync::OnceLock<Option<Matcher>> = std::sync::OnceLock::new();
    MATCHER
        .get_or_init(|| {
            let mut patterns = Vec::new();
            let mut keywords = Vec::new();
            for (rank, (_, words)) in TYPES.iter().enumerate() {
                for word in *words {
                    let anywhere = !word.chars().next().is_some_and(char::is_alphanumeric)
                        || word.contains(' ');
                    let (stem, whole) = match word.strip_suffix('*') {
                        Some(stem) if !anywhere => (stem, false),
                        _ => (*word, true),
                    };
                    patterns.push(stem);
                    keywords.push(Keyword {
                        rank,
                        anywhere,
                        whole,
                    });
                }
            }
            // Case is ignored by the automaton (the keywords are ASCII), so claims are
            // not lower-cased first; a DFA makes the overlapping search one table
            // lookup a byte.
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(patterns)
                .ok()
                .map(|automaton| Matcher {
                    automaton,
                    keywords,
                })
        })
        .as_ref()
}

impl ClaimClassifier for RuleClassifier {
    fn classify(&self, claim: &str, sources: &[AvailableSource]) -> Classification {
        let claim_type = self.claim_type(claim);
        Classification {
            claim_type,
            recommendations: rule_recommendations(claim_type, sources),
            method: ClassificationMethod::Rules,
        }
    }

    fn claim_types(&self, claims: &[&str]) -> Vec<ClaimType> {
        let bytes: usize = claims.iter().map(|claim| claim.len()).sum();
        if bytes < TWO_THREADS_FROM_BYTES {
            return claims.iter().map(|claim| self.claim_type(claim)).collect();
        }
        // Halves by bytes, not by count: the keyword search costs by the byte.
        let mut seen = 0;
        let middle = claims
            .iter()
            .position(|claim| {
                seen += claim.len();
                seen * 2 >= bytes
            })
            .map_or(claims.len(), |at| at + 1);
        let (first, second) = claims.split_at(middle);
        std::thread::scope(|scope| {
            let second_half = scope.spawn(|| {
                second
                    .iter()
                    .map(|c| self.claim_type(c))
                    .collect::<Vec<_>>()
            });
            let mut types: Vec<ClaimType> = first.iter().map(|c| self.claim_type(c)).collect();
            match second_half.join() {
                Ok(rest) => types.extend(rest),
                // The thread cannot panic on a claim; should it, the types are read here.
                Err(_) => types.extend(second.iter().map(|c| self.claim_type(c))),
            }
            types
        })
    }

    fn claim_type(&self, claim: &str) -> ClaimType {
        let matcher = match matcher() {
            Some(matcher) if !folds_into_ascii(claim) => matcher,
            _ => return classify_slowly(&format!(" {} ", claim.to_lowercase())),
        };
        PADDED.with_borrow_mut(|text| {
            text.clear();
            text.push(' ');
            text.push_str(claim);
            text.push(' ');
            let claim_type = type_of_padded(matcher, text);
            if text.capacity() > PADDED_KEPT_BYTES {
                *text = String::new(); // a very long claim: its buffer is not kept
            }
            claim_type
        })
    }
}

/// The largest padding buffer a thread keeps between claims.
const PADDED_KEPT_BYTES: usize = 64 * 1024;

thread_local! {
    /// The claim being read, padded with a space each side: one buffer a thread, reused
    /// for every claim instead of a copy each.
    static PADDED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The type of a claim, `text` being the claim padded with a space each side.
fn type_of_padded(matcher: &Matcher, text: &str) -> ClaimType {
    let mut found = [false; TYPES.len()];
    for hit in matcher.automaton.find_overlapping_iter(text) {
        let keyword = &matcher.keywords[hit.pattern().as_usize()];
        if found[keyword.rank] {
            continue;
        }
        let before_ok = keyword.anywhere
            || text[..hit.start()]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
        let after_ok = keyword.anywhere
            || !keyword.whole
            || text[hit.end()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
        found[keyword.rank] = before_ok && after_ok;
        if found[0] {
            break; // health is tried first: nothing can beat it
        }
    }
    found
        .iter()
        .position(|&f| f)
        .map_or(ClaimType::General, |rank| TYPES[rank].0)
}

/// Whether `claim` holds one of the two non-ASCII letters whose lower case is ASCII
/// (the Kelvin sign `K` → `k`, `İ` → `i̇`): the automaton ignores ASCII case only, so
/// such a claim is lower-cased and read keyword by keyword.
fn folds_into_ascii(claim: &str) -> bool {
    static KELVIN: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new("\u{212A}"));
    static DOTTED_I: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new("\u{130}"));
    !claim.is_ascii()
        && (KELVIN.find(claim.as_bytes()).is_some() || DOTTED_I.find(claim.as_bytes()).is_some())
}

/// The same decision keyword by keyword: the reference the automaton is tested
/// against, and the fallback should the automaton ever fail to build.
fn classify_slowly(text: &str) -> ClaimType {
    TYPES
        .iter()
        .find(|(_, words)| words.iter().any(|w| contains_word(text, w)))
        .map_or(ClaimType::General, |(claim_type, _)| *claim_type)
}

/// Whether `keyword` occurs in `text` (lower-case, padded with spaces): symbols and
/// multi-word keys anywhere; words as whole words; a key ending in `*` as the start of
/// a word (`regulat*` matches "regulation" and "regulatory").
fn contains_word(text: &str, keyword: &str) -> bool {
    if !keyword.chars().next().is_some_and(char::is_alphanumeric) || keyword.contains(' ') {
        return text.contains(keyword);
    }
    let (stem, whole) = match keyword.strip_suffix('*') {
        Some(stem) => (stem, false),
        None => (keyword, true),
    };
    text.match_indices(stem).any(|(at, _)| {
        let before_ok = text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after_ok = !whole
            || text[at + stem.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
        before_ok && after_ok
    })
}

/// How well a source fits a claim of `claim_type`, 0.0–1.0, from the source's kind and,
/// for web sources, its domain's tier. Each type prefers its own sources:
///
/// | claim type | web by tier: high · reputable · neutral/unknown · user-generated · low | internal: Confluence · files · Slack |
/// |---|---|---|
/// | health | 1.0 · 0.7 · 0.5 · 0.2 · 0.1 (official and scholarly first) | 0.6 · 0.6 · 0.5 |
/// | law | 1.0 · 0.7 · 0.5 · 0.3 · 0.1 (statutes, regulators) | 0.8 · 0.7 · 0.5 (the organisation's own policies) |
/// | statistics | 1.0 · 0.8 · 0.5 · 0.3 · 0.1 (statistics offices, journals, then the press) | 0.7 · 0.8 · 0.5 |
/// | money | 0.9 · 0.9 · 0.5 · 0.3 · 0.1 (filings and the financial press) | 1.0 · 1.0 · 0.8 (the organisation's own records) |
/// | code | 1.0 · 0.7 · 0.6 · 0.7 · 0.2 (docs and code hosts; Q&A sites serve code well) | 0.9 · 0.7 · 0.7 |
/// | general | 1.0 for any source | 1.0 |
pub fn relevance(claim_type: ClaimType, kind: SourceKind, tier: Tier) -> f64 {
    use SourceKind::*;
    let by_tier = |[high, reputable, neutral, user_generated, low]: [f64; 5]| match tier {
        Tier::High => high,
        Tier::Reputable => reputable,
        Tier::Neutral | Tier::Unknown => neutral,
        Tier::UserGenerated => user_generated,
        Tier::Low => low,
    };
    let by_kind = |[confluence, file, slack]: [f64; 3]| match kind {
        Confluence => confluence,
        File => file,
        Slack | Web => slack,
    };
    match (claim_type, kind) {
        (ClaimType::General, _) => 1.0,
        (ClaimType::Health, Web) => by_tier([1.0, 0.7, 0.5, 0.2, 0.1]),
        (ClaimType::Law, Web) => by_tier([1.0, 0.7, 0.5, 0.3, 0.1]),
        (ClaimType::Statistics, Web) => by_tier([1.0, 0.8, 0.5, 0.3, 0.1]),
        (ClaimType::Money, Web) => by_tier([0.9, 0.9, 0.5, 0.3, 0.1]),
        (ClaimType::Code, Web) => by_tier([1.0, 0.7, 0.6, 0.7, 0.2]),
        (ClaimType::Health, _) => by_kind([0.6, 0.6, 0.5]),
        (ClaimType::Law, _) => by_kind([0.8, 0.7, 0.5]),
        (ClaimType::Statistics, _) => by_kind([0.7, 0.8, 0.5]),
        (ClaimType::Money, _) => by_kind([1.0, 1.0, 0.8]),
        (ClaimType::Code, _) => by_kind([0.9, 0.7, 0.7]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_typed_by_their_words() {
        let rules = RuleClassifier;
        for (claim, expected) in [
            (
                "The recommended dose is 500 mg twice a day.",
                ClaimType::Health,
            ),
            ("Patients with diabetes should avoid it.", ClaimType::Health),
            ("GDPR requires consent for this processing.", ClaimType::Law),
            (
                "The court ruled against the company in 2021.",
                ClaimType::Law,
            ),
            ("Revenue grew to $4.2 million last year.", ClaimType::Money),
            ("The Pro plan costs €20 per month.", ClaimType::Money),
            (
                "Call the `retry` function before the API times out.",
                ClaimType::Code,
            ),
            (
                "Kubernetes rolls out the new version gradually.",
                ClaimType::Code,
            ),
            ("About 45% of respondents agreed.", ClaimType::Statistics),
            ("The median wait fell last quarter.", ClaimType::Statistics),
            ("Paris is the capital of France.", ClaimType::General),
        ] {
            assert_eq!(rules.claim_type(claim), expected, "{claim}");
        }
    }

    #[test]
    fn keywords_match_whole_words_only() {
        let rules = RuleClassifier;
        // "rapid" contains "api", "lawn" contains "law": neither counts.
        assert_eq!(
            rules.claim_type("The rapid growth of the lawn."),
            ClaimType::Statistics
        );
        assert_eq!(rules.claim_type("A rapid fox."), ClaimType::General);
    }

    #[test]
    fn relevance_prefers_the_right_sources() {
        use crate::score::domain::Tier::*;
        use SourceKind::*;
        assert_eq!(relevance(ClaimType::General, Slack, Unknown), 1.0);
        assert_eq!(relevance(ClaimType::General, Web, Low), 1.0);
        assert_eq!(relevance(ClaimType::Health, Web, High), 1.0);
        assert_eq!(relevance(ClaimType::Health, Web, Unknown), 0.5);
        assert_eq!(relevance(ClaimType::Health, Web, UserGenerated), 0.2);
        assert_eq!(relevance(ClaimType::Health, Confluence, Unknown), 0.6);
        assert_eq!(relevance(ClaimType::Money, Confluence, Unknown), 1.0);
        assert_eq!(relevance(ClaimType::Money, Slack, Unknown), 0.8);
        assert_eq!(relevance(ClaimType::Money, Web, Reputable), 0.9);
        assert_eq!(relevance(ClaimType::Code, Confluence, Unknown), 0.9);
        assert_eq!(relevance(ClaimType::Code, Web, High), 1.0);
        // A Q&A site suits a code claim better than a health claim.
        assert!(
            relevance(ClaimType::Code, Web, UserGenerated)
                > relevance(ClaimType::Health, Web, UserGenerated)
        );
        assert_eq!(relevance(ClaimType::Law, Confluence, Unknown), 0.8);
        assert_eq!(relevance(ClaimType::Statistics, File, Unknown), 0.8);
        // Within every type, a higher tier never fits worse.
        for claim_type in [
            ClaimType::Health,
            ClaimType::Law,
            ClaimType::Statistics,
            ClaimType::Money,
        ] {
            let fits: Vec<f64> = [High, Reputable, Unknown, UserGenerated, Low]
                .into_iter()
                .map(|tier| relevance(claim_type, Web, tier))
                .collect();
            assert!(
                fits.windows(2).all(|w| w[0] >= w[1]),
                "{claim_type:?}: {fits:?}"
            );
        }
    }

    #[test]
    fn a_large_batch_on_two_threads_is_typed_as_claim_by_claim() {
        let rules = RuleClassifier;
        let samples = [
            "The recommended dose is 500 mg twice a day.",
            "GDPR requires consent for this processing.",
            "Revenue grew to $4.2 million last year.",
            "About 45% of respondents agreed.",
            "Paris is the capital of France.",
            "\u{212A}ubernetes rolls out the new version gradually.",
            "患者应在医生指导下服用该药物。",
        ];
        // A claim longer than the kept buffer, then short ones reusing a fresh buffer.
        let long = format!("{} the court ruled", "word ".repeat(PADDED_KEPT_BYTES / 4));
        let mut claims: Vec<&str> = samples.iter().copied().cycle().take(2_000).collect();
        claims.insert(1_000, &long);
        let total: usize = claims.iter().map(|c| c.len()).sum();
        assert!(total >= TWO_THREADS_FROM_BYTES * 2, "{total} bytes");
        let one_by_one: Vec<ClaimType> = claims.iter().map(|c| rules.claim_type(c)).collect();
        assert_eq!(rules.claim_types(&claims), one_by_one);
        assert_eq!(one_by_one[1_000], ClaimType::Law);
        assert_eq!(one_by_one[5], ClaimType::Code);
        assert!(rules.claim_types(&[]).is_empty());
        assert_eq!(
            rules.claim_types(&claims[..3]),
            [ClaimType::Health, ClaimType::Law, ClaimType::Money]
        );
    }

    proptest::proptest! {
        /// The automaton decides exactly as the keyword-by-keyword reference, on text
        /// made of keywords, their pieces, word characters and separators.
        #[test]
        fn the_automaton_agrees_with_the_reference(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(
                        TYPES.iter().flat_map(|(_, w)| w.iter().map(|k| k.trim_end_matches('*').to_string())).collect::<Vec<_>>()
                    ),
                    "[a-zA-Z]{1,4}",
                    proptest::sample::select(vec![" ".to_string(), "-".to_string(), "/".to_string(), "é".to_string(), "É".to_string(), "%".to_string(), "`".to_string(), ", ".to_string(), "\u{212A}".to_string(), "\u{130}".to_string(), "MG".to_string(), "Patient".to_string()]),
                ],
                0..12,
            )
        ) {
            let claim = pieces.concat();
            let text = format!(" {} ", claim.to_lowercase());
            proptest::prop_assert_eq!(RuleClassifier.claim_type(&claim), classify_slowly(&text), "{:?}", claim);
        }
    }
}

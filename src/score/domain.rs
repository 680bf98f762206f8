//! Domain authority: how much the domain of a cited source lends it, before
//! anything else is weighed.
//!
//! The tiers come from a curated list, `domain_tiers.txt` beside this file,
//! compiled into the binary ([`DomainTiers::builtin`]). Its header documents what
//! each tier means, its starting score and how to extend it. In short:
//!
//! | tier | score | what |
//! | --- | --- | --- |
//! | [`Tier::High`] | 0.90 | official, scholarly, standards, reference works, developer docs, code hosts and registries |
//! | [`Tier::Reputable`] | 0.75 | news organisations, science press, fact-checkers, open but well-sourced reference works |
//! | [`Tier::Neutral`] | 0.50 | considered and left neutral: search engines, archives, free hosting |
//! | [`Tier::Unknown`] | 0.50 | not listed |
//! | [`Tier::UserGenerated`] | 0.35 | social media, forums, Q&A, blog platforms, open wikis |
//! | [`Tier::Low`] | 0.20 | content farms, scrapers, predatory publishers, deprecated sources, satire |
//!
//! Matching: the most specific listed name wins. A host is looked up as itself,
//! then each parent domain in turn, so a host entry (`aws.amazon.com`) beats its
//! registrable domain (`amazon.com`), and a registrable domain (`academia.edu`)
//! beats a public-suffix rule (`*.edu`).

use std::collections::HashMap;
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, OnceLock};

use url::{Host, Url};

/// The list shipped with sourcebot.
const BUILTIN: &str = include_str!("domain_tiers.txt");

/// A tier of the list: how much authority a domain lends the sources it hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Official and primary sources: governments, universities, scholarly
    /// publishers, standards bodies, edited reference works, developer
    /// documentation, code hosts and package registries. Starts at 0.90.
    High,
    /// Edited secondary sources with a record of accuracy: news organisations,
    /// science press, fact-checkers, open but well-sourced reference works such
    /// as Wikipedia. Starts at 0.75.
    Reputable,
    /// Listed, and deliberately neutral: search engines, archives, shops, free
    /// hosting. Starts at 0.50, like [`Tier::Unknown`].
    Neutral,
    /// Anyone publishes without review: social media, forums, Q&A sites, blog
    /// platforms, open wikis, press-release wires. Starts at 0.35.
    UserGenerated,
    /// Known to mislead: content farms, scrapers, predatory publishers,
    /// deprecated sources, satire. Starts at 0.20.
    Low,
    /// Not on the list (or an IP address): no evidence either way. Starts at 0.50.
    Unknown,
}

impl Tier {
    /// Every tier, from most to least authority (unknown last).
    pub const ALL: [Tier; 6] = [
        Tier::High,
        Tier::Reputable,
        Tier::Neutral,
        Tier::UserGenerated,
        Tier::Low,
        Tier::Unknown,
    ];

    /// The starting domain score of a source in this tier, in `0.0..=1.0`.
    pub const fn score(self) -> f64 {
        match self {
            Tier::High => 0.9,
            Tier::Reputable => 0.75,
            Tier::Neutral | Tier::Unknown => 0.5,
            Tier::UserGenerated => 0.35,
            Tier::Low => 0.2,
        }
    }

    /// The tier's name: its section header in the list (`high`,
    /// `user-generated` …), or `unknown`.
    pub const fn name(self) -> &'static str {
        match self {
            Tier::High => "high",
            Tier::Reputable => "reputable",
            Tier::Neutral => "neutral",
            Tier::UserGenerated => "user-generated",
            Tier::Low => "low",
            Tier::Unknown => "unknown",
        }
    }

    /// The tier a section header names; `unknown` is not a section.
    fn from_section(name: &str) -> Option<Tier> {
        Tier::ALL
            .into_iter()
            .find(|tier| *tier != Tier::Unknown && tier.name() == name)
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The name, normalised (lower case, punycode), without any `*.`.
    pub name: String,
    /// True for a suffix rule (`*.gov`): it matches hosts strictly under `name`.
    /// False for a plain entry: it matches `name` and every host under it.
    pub suffix_rule: bool,
    /// The tier of the section the entry is in.
    pub tier: Tier,
    /// The 1-based line of the entry in the list.
    pub line: usize,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.suffix_rule {
            write!(f, "*.{}", self.name)
        } else {
            f.write_str(&self.name)
        }
    }
}

/// A parsed tier list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DomainTiers {
    /// Entries in file order.
    entries: Vec<Entry>,
    /// Entry name → index into `entries`. A name appears at most once.
    index: HashMap<String, usize>,
}

/// A line of a tier list that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("domain tier list, line {line}: {message}")]
pub struct TierListError {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl DomainTiers {
    /// The list shipped with sourcebot (`domain_tiers.txt`), parsed once.
    ///
    /// The shipped list is checked by the tests; should it ever fail to parse,
    /// this is an empty list (every host unknown) rather than a crash.
    pub fn builtin() -> &'static DomainTiers {
        DomainTiers::builtin_arc()
    }

    /// The shipped list behind an [`Arc`], for scorers that may also hold an extended
    /// list; cloning it copies no entry.
    pub fn builtin_shared() -> Arc<DomainTiers> {
        Arc::clone(DomainTiers::builtin_arc())
    }

    fn builtin_arc() -> &'static Arc<DomainTiers> {
        static TIERS: OnceLock<Arc<DomainTiers>> = OnceLock::new();
        TIERS.get_or_init(|| Arc::new(DomainTiers::parse(BUILTIN).unwrap_or_default()))
    }

    /// This list extended by `extra` (a list of the same format, e.g. a deployment's
    /// own): a name in `extra` takes the tier `extra` gives it, replacing this list's
    /// entry for the same name; other names are added. Line numbers of added and
    /// replaced entries are those of `extra`.
    pub fn extended_with(&self, extra: &DomainTiers) -> DomainTiers {
        let mut merged = self.clone();
        for entry in &extra.entries {
            match merged.index.get(&entry.name) {
                Some(&i) => merged.entries[i] = entry.clone(),
                None => {
                    merged
                        .index
                        .insert(entry.name.clone(), merged.entries.len());
                    merged.entries.push(entry.clone());
                }
            }
        }
        merged
    }

    /// Parses a list in the format of `domain_tiers.txt`: `[tier]` section
    /// headers, one name per line (`example.org`, `docs.example.org` or
    /// `*.suffix`), `#` comments. Errors name the line and what is wrong with it.
    pub fn parse(text: &str) -> Result<DomainTiers, TierListError> {
        let mut tiers = DomainTiers::default();
        let mut section: Option<Tier> = None;
        for (number, raw) in text.lines().enumerate() {
            let line = number + 1;
            let error = |message: String| TierListError { line, message };
            let content = raw.split('#').next().unwrap_or_default().trim();
            if content.is_empty() {
                continue;
            }
            if let Some(rest) = content.strip_prefix('[') {
                let name = rest
                    .strip_suffix(']')
                    .ok_or_else(|| error(format!("`{content}`: a section header ends with `]`")))?
                    .trim();
                section = Some(Tier::from_section(name).ok_or_else(|| {
                    error(format!(
                        "unknown tier `[{name}]`; the tiers are [high], [reputable], \
                         [neutral], [user-generated] and [low]"
                    ))
                })?);
                continue;
            }
            if content.split_whitespace().nth(1).is_some() {
                return Err(error(format!(
                    "`{content}`: one name per line (comments start with `#`)"
                )));
            }
            let tier = section.ok_or_else(|| {
                error(format!(
                    "`{content}` comes before any section: put it under a header such as [high]"
                ))
            })?;
            let (suffix_rule, spelled) = match content.strip_prefix("*.") {
                Some(rest) => (true, rest),
                None => (false, content),
            };
            let name = normalise_name(spelled, suffix_rule).map_err(error)?;
            if let Some(&first) = tiers.index.get(&name) {
                let previous = &tiers.entries[first];
                let this = if suffix_rule {
                    format!("*.{name}")
                } else {
                    name.clone()
                };
                let message = if previous.suffix_rule == suffix_rule {
                    format!("`{this}` is already listed on line {}", previous.line)
                } else {
                    format!(
                        "`{this}` conflicts with `{previous}` on line {}",
                        previous.line
                    )
                };
                return Err(error(message));
            }
            tiers.index.insert(name.clone(), tiers.entries.len());
            tiers.entries.push(Entry {
                name,
                suffix_rule,
                tier,
                line,
            });
        }
        Ok(tiers)
    }

    /// The tier of a host, as the `url` crate gives it (lower-case ASCII,
    /// punycode; a trailing dot and upper case are tolerated).
    ///
    /// The most specific listed name wins: the host itself, then each parent
    /// domain in turn. So host entries come first, then the registrable domain,
    /// then public-suffix rules (`*.gov`, `*.gov.uk`, `*.ac.jp` …). IP addresses
    /// and hosts that match nothing are [`Tier::Unknown`].
    pub fn tier(&self, host: &str) -> Tier {
        self.matching_entry(host)
            .map_or(Tier::Unknown, |entry| entry.tier)
    }

    /// The entry that decides a host's tier, if any: say which rule rated a
    /// source (`*.gov`, `academia.edu` …).
    pub fn matching_entry(&self, host: &str) -> Option<&Entry> {
        let host = normalise_host(host)?;
        let mut candidate = host.as_str();
        let mut is_host = true;
        loop {
            if let Some(&i) = self.index.get(candidate) {
                let entry = &self.entries[i];
                // A suffix rule covers what is under its name, not the name itself.
                if !(entry.suffix_rule && is_host) {
                    return Some(entry);
                }
            }
            let (_, parent) = candidate.split_once('.')?;
            candidate = parent;
            is_host = false;
        }
    }

    /// The starting domain score of a URL: the score of its host's tier (0.9
    /// high, 0.75 reputable, 0.5 neutral or unknown, 0.35 user-generated, 0.2
    /// low). An IP address scores as unknown; a URL without a host (`mailto:`,
    /// `file:///`, text that is no URL) scores 0.0. A scheme-less address such
    /// as `www.example.org/page` is read as `https://`.
    pub fn domain_score(&self, url: &str) -> f64 {
        let url = url.trim();
        let parsed = match Url::parse(url) {
            Ok(parsed) => parsed,
            Err(url::ParseError::RelativeUrlWithoutBase) if looks_like_bare_host(url) => {
                match Url::parse(&format!("https://{url}")) {
                    Ok(parsed) => parsed,
                    Err(_) => return 0.0,
                }
            }
            Err(_) => return 0.0,
        };
        self.domain_score_of(&parsed)
    }

    /// [`DomainTiers::domain_score`] of a URL already parsed.
    pub fn domain_score_of(&self, parsed: &Url) -> f64 {
        match parsed.host() {
            Some(Host::Domain(domain)) => self.tier(domain).score(),
            Some(Host::Ipv4(_) | Host::Ipv6(_)) => Tier::Unknown.score(),
            None => 0.0,
        }
    }

    /// The tier of a parsed URL's host ([`Tier::Unknown`] for an address or no host).
    pub fn tier_of(&self, parsed: &Url) -> Tier {
        parsed
            .host_str()
            .map_or(Tier::Unknown, |host| self.tier(host))
    }

    /// The entries, in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// How many entries the list has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list has no entries (every host is unknown).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The registrable domain of a host, from the public suffix list (`psl`):
/// `docs.python.org` → `python.org`, `www.bbc.co.uk` → `bbc.co.uk`,
/// `user.github.io` → `user.github.io` (GitHub Pages is a public suffix).
/// `None` for IP addresses, single labels and hosts that are themselves public
/// suffixes (`gov.uk`, `github.io`).
pub fn registrable_domain(host: &str) -> Option<String> {
    let host = normalise_host(host)?;
    // A lone label (`localhost`, `com`) has no registrable domain.
    if !host.contains('.') {
        return None;
    }
    let domain = psl::domain(host.as_bytes())?;
    std::str::from_utf8(domain.as_bytes())
        .ok()
        .map(str::to_owned)
}

/// Lower-cases a host and drops a trailing dot; `None` for IP addresses and
/// empty hosts.
fn normalise_host(host: &str) -> Option<String> {
    let host = host.trim().trim_end_matches('.');
    if host.is_empty() || is_ip(host) {
        return None;
    }
    Some(host.to_ascii_lowercase())
}

/// Whether a host is an IPv4 or IPv6 address (bracketed or not).
fn is_ip(host: &str) -> bool {
    let unbracketed = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    unbracketed.parse::<Ipv4Addr>().is_ok() || unbracketed.parse::<Ipv6Addr>().is_ok()
}

/// Whether text without a scheme starts with something that could be a host
/// (`www.example.org/page`), rather than a path or a sentence.
fn looks_like_bare_host(text: &str) -> bool {
    let head = text.split(['/', '?', '#']).next().unwrap_or_default();
    !head.is_empty()
        && !head.starts_with('.')
        && head.contains('.')
        && !text.chars().any(char::is_whitespace)
}

/// Checks and normalises one name of the list (without its `*.`).
fn normalise_name(spelled: &str, suffix_rule: bool) -> Result<String, String> {
    if spelled.contains('*') {
        return Err(format!(
            "`{spelled}`: `*` may only open a suffix rule, as in `*.gov.uk`"
        ));
    }
    if spelled.contains(['/', ':', '@', '?']) {
        return Err(format!(
            "`{spelled}`: write a domain name, not a URL (no scheme, port or path)"
        ));
    }
    if spelled.ends_with('.') || spelled.starts_with('.') || spelled.contains("..") {
        return Err(format!("`{spelled}`: empty label"));
    }
    let name = match Host::parse(spelled) {
        Ok(Host::Domain(name)) => name,
        Ok(Host::Ipv4(_) | Host::Ipv6(_)) => {
            return Err(format!(
                "`{spelled}`: an IP address is not a domain; IP hosts are always unknown"
            ))
        }
        Err(e) => return Err(format!("`{spelled}`: not a domain name ({e})")),
    };
    for label in name.split('.') {
        let valid = !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-');
        if !valid {
            return Err(format!("`{spelled}`: `{label}` is not a valid label"));
        }
    }
    if !suffix_rule && !name.contains('.') {
        return Err(format!(
            "`{spelled}` is a single label: for a whole top-level domain write `*.{spelled}`"
        ));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &str) -> DomainTiers {
        DomainTiers::parse(text).unwrap()
    }

    fn parse_error(text: &str) -> TierListError {
        DomainTiers::parse(text).unwrap_err()
    }

    #[test]
    fn an_extra_list_overrides_and_extends() {
        let base = list("[high]\nexample.org\n[low]\nfarm.example\n");
        let extra = list("[low]\nexample.org\n[reputable]\nintranet.acme.example\n");
        let merged = base.extended_with(&extra);
        assert_eq!(merged.len(), 3);
        assert_eq!(merged.tier("docs.example.org"), Tier::Low);
        assert_eq!(merged.tier("farm.example"), Tier::Low);
        assert_eq!(merged.tier("intranet.acme.example"), Tier::Reputable);
        assert_eq!(
            base.tier("example.org"),
            Tier::High,
            "the base is unchanged"
        );
        assert_eq!(
            DomainTiers::builtin_shared().as_ref(),
            DomainTiers::builtin(),
            "one built-in list"
        );
    }

    // --- Parsing ----------------------------------------------------------

    #[test]
    fn parses_sections_entries_and_comments() {
        let tiers = list(
            "# a comment\n\n[high]\nexample.org   # trailing comment\n*.gov\n\
             [ reputable ]\nnews.example\n[neutral]\n[user-generated]\nforum.example\n\
             [low]\nFarm.Example\n",
        );
        assert_eq!(tiers.len(), 5);
        let names: Vec<String> = tiers.entries().iter().map(Entry::to_string).collect();
        assert_eq!(
            names,
            [
                "example.org",
                "*.gov",
                "news.example",
                "forum.example",
                "farm.example"
            ]
        );
        assert_eq!(tiers.entries()[1].line, 5);
        assert!(tiers.entries()[1].suffix_rule);
        assert_eq!(tiers.tier("example.org"), Tier::High);
        assert_eq!(tiers.tier("news.example"), Tier::Reputable);
        assert_eq!(tiers.tier("forum.example"), Tier::UserGenerated);
        assert_eq!(tiers.tier("farm.example"), Tier::Low);
    }

    #[test]
    fn parse_errors_name_the_line() {
        let cases: &[(&str, usize, &str)] = &[
            ("example.org\n", 1, "before any section"),
            ("[high]\n[medium]\n", 2, "unknown tier `[medium]`"),
            ("[unknown]\n", 1, "unknown tier"),
            ("[high\n", 1, "ends with `]`"),
            (
                "[high]\n\n# c\nexample.org other.org\n",
                4,
                "one name per line",
            ),
            ("[high]\nhttps://example.org/\n", 2, "not a URL"),
            ("[high]\nexample.org:443\n", 2, "not a URL"),
            ("[high]\nexample..org\n", 2, "empty label"),
            ("[high]\n.example.org\n", 2, "empty label"),
            ("[high]\nexample.org.\n", 2, "empty label"),
            ("[high]\nfoo.*.org\n", 2, "`*` may only open"),
            ("[high]\n*example.org\n", 2, "`*` may only open"),
            ("[high]\n*.\n", 2, "not a domain name"),
            ("[high]\n192.0.2.1\n", 2, "IP address"),
            ("[high]\nexa_mple.org\n", 2, "not a valid label"),
            ("[high]\n-bad.org\n", 2, "not a valid label"),
            ("[high]\nlocalhost\n", 2, "single label"),
            (
                "[high]\na.org\n[low]\n\nA.ORG\n",
                5,
                "already listed on line 2",
            ),
            ("[high]\n*.gov\n*.gov\n", 3, "already listed on line 2"),
            (
                "[high]\ngov.uk\n[low]\n*.gov.uk\n",
                4,
                "conflicts with `gov.uk` on line 2",
            ),
        ];
        for &(text, line, message) in cases {
            let error = parse_error(text);
            assert_eq!(error.line, line, "{text:?}: {error}");
            assert!(error.message.contains(message), "{text:?}: {error}");
            assert!(error.to_string().contains(&format!("line {line}:")));
        }
    }

    #[test]
    fn unicode_names_become_punycode() {
        let tiers = list("[high]\nbücher.example\n");
        assert_eq!(tiers.entries()[0].name, "xn--bcher-kva.example");
        assert_eq!(tiers.tier("www.xn--bcher-kva.example"), Tier::High);
    }

    #[test]
    fn empty_list_rates_everything_unknown() {
        let tiers = list("# nothing\n[high]\n");
        assert!(tiers.is_empty());
        assert_eq!(tiers.tier("python.org"), Tier::Unknown);
        assert_eq!(
            DomainTiers::default().domain_score("https://python.org"),
            0.5
        );
    }

    // --- Matching ---------------------------------------------------------

    #[test]
    fn subdomains_of_listed_domains_inherit_their_tier() {
        let tiers = list("[high]\npython.org\n[low]\nfarm.example\n");
        assert_eq!(tiers.tier("python.org"), Tier::High);
        assert_eq!(tiers.tier("docs.python.org"), Tier::High);
        assert_eq!(tiers.tier("a.b.docs.python.org"), Tier::High);
        assert_eq!(tiers.tier("www.farm.example"), Tier::Low);
        // Label boundaries, not string suffixes.
        assert_eq!(tiers.tier("notpython.org"), Tier::Unknown);
        assert_eq!(tiers.tier("python.org.evil.example"), Tier::Unknown);
    }

    #[test]
    fn host_entry_beats_registrable_domain_which_beats_suffix_rule() {
        let tiers = list(
            "[high]\n*.edu\naws.amazon.com\n[neutral]\namazon.com\n\
             [user-generated]\nacademia.edu\nforum.aws.amazon.com\n",
        );
        assert_eq!(tiers.tier("amazon.com"), Tier::Neutral);
        assert_eq!(tiers.tier("www.amazon.com"), Tier::Neutral);
        assert_eq!(tiers.tier("aws.amazon.com"), Tier::High);
        assert_eq!(tiers.tier("docs.aws.amazon.com"), Tier::High);
        assert_eq!(tiers.tier("forum.aws.amazon.com"), Tier::UserGenerated);
        assert_eq!(tiers.tier("mit.edu"), Tier::High);
        assert_eq!(tiers.tier("academia.edu"), Tier::UserGenerated);
        assert_eq!(tiers.tier("www.academia.edu"), Tier::UserGenerated);
        let entry = tiers.matching_entry("docs.aws.amazon.com").unwrap();
        assert_eq!(entry.to_string(), "aws.amazon.com");
        assert_eq!(
            tiers.matching_entry("ocw.mit.edu").unwrap().to_string(),
            "*.edu"
        );
        assert!(tiers.matching_entry("example.com").is_none());
    }

    #[test]
    fn suffix_rules_cover_hosts_under_the_suffix_but_not_the_suffix() {
        let tiers = list("[high]\n*.gov.uk\n*.gov\n");
        assert_eq!(tiers.tier("www.gov.uk"), Tier::High);
        assert_eq!(tiers.tier("ons.gov.uk"), Tier::High);
        assert_eq!(tiers.tier("gov.uk"), Tier::Unknown);
        assert_eq!(tiers.tier("gov"), Tier::Unknown);
        assert_eq!(tiers.tier("nasa.gov"), Tier::High);
        assert_eq!(tiers.tier("co.uk"), Tier::Unknown);
    }

    #[test]
    fn hosts_are_normalised() {
        let tiers = DomainTiers::builtin();
        assert_eq!(tiers.tier("Docs.Python.ORG"), Tier::High);
        assert_eq!(tiers.tier("docs.python.org."), Tier::High);
        assert_eq!(tiers.tier(""), Tier::Unknown);
        assert_eq!(tiers.tier("."), Tier::Unknown);
    }

    #[test]
    fn ip_hosts_are_unknown() {
        let tiers = list("[high]\n*.arpa\n[low]\n*.example\n");
        for host in [
            "192.0.2.1",
            "10.0.0.1",
            "[2001:db8::1]",
            "2001:db8::1",
            "[::1]",
        ] {
            assert_eq!(tiers.tier(host), Tier::Unknown, "{host}");
            assert_eq!(registrable_domain(host), None, "{host}");
        }
        assert_eq!(tiers.domain_score("http://192.0.2.1/paper.pdf"), 0.5);
        assert_eq!(tiers.domain_score("http://[2001:db8::1]:8080/"), 0.5);
    }

    #[test]
    fn every_suffix_family_is_recognised() {
        let tiers = DomainTiers::builtin();
        let official = [
            "nasa.gov",
            "pubmed.ncbi.nlm.nih.gov",
            "www.cdc.gov",
            "www.army.mil",
            "www.who.int",
            "www.nato.int",
            "www.gov.uk",
            "www.ons.gov.uk",
            "www.nhs.uk",
            "www.legifrance.gouv.fr",
            "www.canada.ca",
            "www.statcan.gc.ca",
            "www.abs.gov.au",
            "www.stats.govt.nz",
            "www.mhlw.go.jp",
            "www.city.yokohama.lg.jp",
            "www.korea.go.kr",
            "www.stats.gov.cn",
            "www.india.gov.in",
            "www.mygov.nic.in",
            "www.gov.br",
            "www.camara.leg.br",
            "www.gob.mx",
            "www.argentina.gob.ar",
            "www.boe.gob.es",
            "www.gov.sg",
            "www.gov.za",
            "www.bmk.gv.at",
            "www.gov.ie",
            "www.gov.scot",
            "gov.wales",
            "commission.europa.eu",
            "eur-lex.europa.eu",
        ];
        let academic = [
            "web.mit.edu",
            "plato.stanford.edu",
            "www.ox.ac.uk",
            "www.cam.ac.uk",
            "core.ac.uk",
            "www.sydney.edu.au",
            "www.u-tokyo.ac.jp",
            "www.tsinghua.edu.cn",
            "www.iitb.ac.in",
            "www.auckland.ac.nz",
            "www.uct.ac.za",
            "www.huji.ac.il",
            "www.nus.edu.sg",
        ];
        for host in official.iter().chain(&academic) {
            if *host == "www.usp.br" {
                // A university outside any academic suffix is simply unknown.
                assert_eq!(tiers.tier(host), Tier::Unknown, "{host}");
                continue;
            }
            assert_eq!(tiers.tier(host), Tier::High, "{host}");
        }
    }

    #[test]
    fn domain_scores() {
        let tiers = DomainTiers::builtin();
        let cases: &[(&str, f64)] = &[
            ("https://www.nature.com/articles/s41586-020-2649-2", 0.9),
            ("https://en.wikipedia.org/wiki/Rust", 0.75),
            ("https://www.google.com/search?q=rust", 0.5),
            ("https://some-unknown-site.example/page", 0.5),
            ("https://www.reddit.com/r/rust/", 0.35),
            ("https://www.ehow.com/how_123.html", 0.2),
            ("HTTPS://DOCS.PYTHON.ORG/3/", 0.9),
            ("www.cdc.gov/flu/index.html", 0.9),
            ("docs.rs/serde", 0.9),
            ("mailto:someone@python.org", 0.0),
            ("file:///etc/passwd", 0.0),
            ("data:text/plain,hello", 0.0),
            ("not a url", 0.0),
            ("", 0.0),
            ("/relative/path.html", 0.0),
            ("https://", 0.0),
        ];
        for &(url, score) in cases {
            assert_eq!(tiers.domain_score(url), score, "{url}");
        }
    }

    #[test]
    fn tier_scores_are_ordered_and_documented() {
        let scores: Vec<f64> = Tier::ALL.iter().map(|t| t.score()).collect();
        assert_eq!(scores, [0.9, 0.75, 0.5, 0.35, 0.2, 0.5]);
        for tier in Tier::ALL {
            assert!((0.0..=1.0).contains(&tier.score()));
            assert_eq!(tier.to_string(), tier.name());
            if tier != Tier::Unknown {
                assert_eq!(Tier::from_section(tier.name()), Some(tier));
                // The header of the shipped list documents every tier and its score.
                let doc = format!("[{}]", tier.name());
                let line = BUILTIN
                    .lines()
                    .find(|l| l.starts_with('#') && l.contains(&doc))
                    .unwrap_or_else(|| panic!("{doc} is not documented"));
                assert!(line.contains(&format!("{:.2}", tier.score())), "{line}");
            }
        }
        assert_eq!(Tier::from_section("unknown"), None);
    }

    #[test]
    fn registrable_domains() {
        let cases: &[(&str, Option<&str>)] = &[
            ("docs.python.org", Some("python.org")),
            ("python.org", Some("python.org")),
            ("bbc.co.uk", Some("bbc.co.uk")),
            ("www.bbc.co.uk", Some("bbc.co.uk")),
            ("docs.aws.amazon.com", Some("amazon.com")),
            ("pubmed.ncbi.nlm.nih.gov", Some("nih.gov")),
            ("user.github.io", Some("user.github.io")),
            ("WWW.Example.COM.", Some("example.com")),
            ("github.io", None),
            ("gov.uk", None),
            ("co.uk", None),
            ("com", None),
            ("localhost", None),
            ("", None),
            ("192.0.2.1", None),
            ("[::1]", None),
        ];
        for &(host, expected) in cases {
            assert_eq!(registrable_domain(host).as_deref(), expected, "{host}");
        }
    }

    // --- The shipped list -------------------------------------------------

    #[test]
    fn builtin_list_parses_without_duplicates_or_conflicts() {
        // `parse` rejects a name listed twice in any form, so parsing is the check.
        let tiers = DomainTiers::parse(BUILTIN).unwrap_or_else(|e| panic!("{e}"));
        assert!(tiers.len() > 300, "{} entries", tiers.len());
        assert_eq!(DomainTiers::builtin().len(), tiers.len());
        let mut seen = std::collections::HashSet::new();
        for entry in tiers.entries() {
            assert!(seen.insert(entry.name.as_str()), "{entry} listed twice");
        }
        for tier in Tier::ALL {
            let count = tiers.entries().iter().filter(|e| e.tier == tier).count();
            assert_eq!(count == 0, tier == Tier::Unknown, "{tier}: {count} entries");
        }
    }

    #[test]
    fn builtin_list_has_no_redundant_entries() {
        // An entry that repeats the tier its nearest listed parent already gives
        // is noise that hides the real exceptions.
        let tiers = DomainTiers::builtin();
        for entry in tiers.entries() {
            let mut parent = entry.name.as_str();
            while let Some((_, rest)) = parent.split_once('.') {
                parent = rest;
                if let Some(&i) = tiers.index.get(parent) {
                    let outer = &tiers.entries[i];
                    assert_ne!(
                        outer.tier, entry.tier,
                        "`{entry}` (line {}) is already {} through `{outer}` (line {})",
                        entry.line, outer.tier, outer.line
                    );
                    break;
                }
            }
        }
    }

    #[test]
    fn builtin_suffix_rules_name_public_suffixes_and_plain_entries_do_not() {
        for entry in DomainTiers::builtin().entries() {
            let suffix = psl::suffix(entry.name.as_bytes()).unwrap();
            let is_public_suffix = suffix.is_known() && suffix.as_bytes() == entry.name.as_bytes();
            if entry.suffix_rule {
                assert!(
                    is_public_suffix,
                    "`{entry}` (line {}): not a public suffix; list it without `*.`",
                    entry.line
                );
            } else {
                assert!(
                    !is_public_suffix,
                    "`{entry}` (line {}) is a public suffix: write `*.{}`",
                    entry.line, entry.name
                );
            }
        }
    }

    #[test]
    fn well_known_hosts() {
        use Tier::*;
        let cases: &[(&str, Tier)] = &[
            // Official, scholarly, standards, reference.
            ("www.nih.gov", High),
            ("www.who.int", High),
            ("www.un.org", High),
            ("ec.europa.eu", High),
            ("doi.org", High),
            ("arxiv.org", High),
            ("www.nature.com", High),
            ("www.sciencedirect.com", High),
            ("link.springer.com", High),
            ("onlinelibrary.wiley.com", High),
            ("dl.acm.org", High),
            ("ieeexplore.ieee.org", High),
            ("www.thelancet.com", High),
            ("www.cochranelibrary.com", High),
            ("datatracker.ietf.org", High),
            ("www.rfc-editor.org", High),
            ("www.w3.org", High),
            ("html.spec.whatwg.org", High),
            ("www.iso.org", High),
            ("www.britannica.com", High),
            // Developer documentation, code hosts, registries.
            ("docs.python.org", High),
            ("developer.mozilla.org", High),
            ("learn.microsoft.com", High),
            ("docs.aws.amazon.com", High),
            ("doc.rust-lang.org", High),
            ("rust-lang.github.io", High),
            ("kubernetes.io", High),
            ("github.com", High),
            ("raw.githubusercontent.com", High),
            ("crates.io", High),
            ("pypi.org", High),
            ("www.npmjs.com", High),
            ("pkg.go.dev", High),
            ("requests.readthedocs.io", High),
            // Reputable.
            ("en.wikipedia.org", Reputable),
            ("www.reuters.com", Reputable),
            ("apnews.com", Reputable),
            ("www.bbc.co.uk", Reputable),
            ("www.nytimes.com", Reputable),
            ("en.cppreference.com", Reputable),
            ("www.mdpi.com", Reputable),
            // Neutral and unknown.
            ("www.google.com", Neutral),
            ("www.amazon.com", Neutral),
            ("web.archive.org", Neutral),
            ("someone.github.io", Neutral),
            ("www.researchgate.net", Neutral),
            ("example.com", Unknown),
            ("blog.some-company.io", Unknown),
            ("gov.uk", Unknown),
            // User-generated.
            ("www.reddit.com", UserGenerated),
            ("stackoverflow.com", UserGenerated),
            ("www.quora.com", UserGenerated),
            ("medium.com", UserGenerated),
            ("someone.medium.com", UserGenerated),
            ("someone.substack.com", UserGenerated),
            ("someone.blogspot.com", UserGenerated),
            ("someone.wordpress.com", UserGenerated),
            ("x.com", UserGenerated),
            ("twitter.com", UserGenerated),
            ("www.youtube.com", UserGenerated),
            ("www.facebook.com", UserGenerated),
            ("developers.facebook.com", High),
            ("answers.microsoft.com", UserGenerated),
            ("discuss.python.org", UserGenerated),
            ("www.academia.edu", UserGenerated),
            ("harrypotter.fandom.com", UserGenerated),
            // Low.
            ("www.ehow.com", Low),
            ("www.answers.com", Low),
            ("www.dailymail.co.uk", Low),
            ("www.scirp.org", Low),
            ("baike.baidu.com", Low),
            ("www.theonion.com", Low),
        ];
        let tiers = DomainTiers::builtin();
        for &(host, tier) in cases {
            assert_eq!(tiers.tier(host), tier, "{host}");
        }
    }
}

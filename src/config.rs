//! Settings from the environment, each with a documented default and a clear error
//! naming the variable and what it should look like. `.env.example` lists every one.
//! Reading goes through a lookup function so tests never touch the process
//! environment.

use crate::collect::input::DEFAULT_MAX_INPUT_BYTES;
use crate::collect::kind::KindRules;
use crate::collect::CollectOptions;
use crate::model::SourceKind;
use crate::render::RenderOptions;
use crate::score::domain::DomainTiers;
use crate::score::ratings::DomainRatings;
use crate::score::{CredibilityMethod, ScoreSettings};
use crate::verify::VerifySettings;
use std::sync::Arc;
use std::time::Duration;

pub use crate::setting::{duration, ConfigError};
use crate::setting::{flag, positive, whole};

/// Everything the pipeline can be told through the environment.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Collector settings.
    pub collect: CollectOptions,
    /// Renderer settings.
    pub render: RenderOptions,
    /// Largest input read, in bytes.
    pub max_input_bytes: usize,
    /// Link checking.
    pub verify: VerifySettings,
    /// Credibility and confidence.
    pub score: ScoreSettings,
    /// Whether cited pages are read to see if they support their claims.
    pub support: crate::support::check::SupportSettings,
    /// The language model, when one is configured (`SOURCEBOT_LLM_URL`).
    pub llm: Option<crate::llm::LlmSettings>,
    /// Whether the language model classifies claims (`SOURCEBOT_CLASSIFIER=llm`).
    pub classify_with_model: bool,
    /// Products whose APIs check internal links (Confluence, Google Drive…).
    pub products: crate::products::ProductSettings,
}

impl Default for Config {
    fn default() -> Self {
        let mut config = Config {
            collect: CollectOptions::default(),
            render: RenderOptions::default(),
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            verify: VerifySettings::default(),
            score: ScoreSettings::default(),
            support: crate::support::check::SupportSettings::default(),
            llm: None,
            classify_with_model: false,
            products: crate::products::ProductSettings::default(),
        };
        config.set_support(config.support.enabled);
        config
    }
}

impl Config {
    /// Turns the support check on or off, and with it the reading of cited pages by
    /// their probes ([`VerifySettings::read_pages`]: the pages the check reads, when
    /// on; none when off, so every probe is a HEAD and no page is read).
    pub fn set_support(&mut self, enabled: bool) {
        self.support.enabled = enabled;
        self.verify.read_pages = if enabled { self.support.max_pages } else { 0 };
    }
}

/// `SOURCEBOT_SLACK_HOSTS`: extra hosts whose links are Slack sources.
pub const SLACK_HOSTS: &str = "SOURCEBOT_SLACK_HOSTS";
/// `SOURCEBOT_CONFLUENCE_HOSTS`: extra hosts whose links are Confluence pages.
pub const CONFLUENCE_HOSTS: &str = "SOURCEBOT_CONFLUENCE_HOSTS";
/// `SOURCEBOT_FILE_HOSTS`: extra hosts whose links are files.
pub const FILE_HOSTS: &str = "SOURCEBOT_FILE_HOSTS";
/// `SOURCEBOT_MAX_SOURCES`: most unique sources kept per answer.
pub const MAX_SOURCES: &str = "SOURCEBOT_MAX_SOURCES";
/// `SOURCEBOT_MAX_INPUT_BYTES`: largest answer read.
pub const MAX_INPUT_BYTES: &str = "SOURCEBOT_MAX_INPUT_BYTES";
/// `SOURCEBOT_MAX_PER_KIND`: sources listed per kind before "…and N more".
pub const MAX_PER_KIND: &str = "SOURCEBOT_MAX_PER_KIND";
/// `SOURCEBOT_KIND_ORDER`: display order of the kinds.
pub const KIND_ORDER: &str = "SOURCEBOT_KIND_ORDER";
/// `SOURCEBOT_VERIFY_TIMEOUT`: the whole probe of one link (`2s`, `1500ms`).
pub const VERIFY_TIMEOUT: &str = "SOURCEBOT_VERIFY_TIMEOUT";
/// `SOURCEBOT_VERIFY_CONCURRENCY`: probes at once, over all answers.
pub const VERIFY_CONCURRENCY: &str = "SOURCEBOT_VERIFY_CONCURRENCY";
/// `SOURCEBOT_VERIFY_PER_HOST`: probes of one host at once.
pub const VERIFY_PER_HOST: &str = "SOURCEBOT_VERIFY_PER_HOST";
/// `SOURCEBOT_VERIFY_CACHE_TTL`: how long a verified verdict is remembered (`1h`).
pub const VERIFY_CACHE_TTL: &str = "SOURCEBOT_VERIFY_CACHE_TTL";
/// `SOURCEBOT_VERIFY_CACHE_TTL_FAILED`: how long other verdicts are remembered (`5m`).
pub const VERIFY_CACHE_TTL_FAILED: &str = "SOURCEBOT_VERIFY_CACHE_TTL_FAILED";
/// `SOURCEBOT_VERIFY_CACHE_MAX`: verdicts remembered at most (0: no cache).
pub const VERIFY_CACHE_MAX: &str = "SOURCEBOT_VERIFY_CACHE_MAX";
/// `SOURCEBOT_VERIFY_ALLOW_PRIVATE`: `1` lets probes reach private and loopback
/// addresses. For tests only: unsafe in production.
pub const VERIFY_ALLOW_PRIVATE: &str = "SOURCEBOT_VERIFY_ALLOW_PRIVATE";
/// `SOURCEBOT_FETCH_MAX_BYTES`: most bytes of a cited page read (after decompression).
pub const FETCH_MAX_BYTES: &str = "SOURCEBOT_FETCH_MAX_BYTES";
/// `SOURCEBOT_FETCH_TIMEOUT`: the whole fetch of one cited page read apart from its
/// link's probe (`5s`); a page read by its probe has the probe's time.
pub const FETCH_TIMEOUT: &str = "SOURCEBOT_FETCH_TIMEOUT";
/// `SOURCEBOT_SUPPORT`: `on` (default) reads the cited pages of checked answers to see
/// whether they support their claims; `off` skips it.
pub const SUPPORT: &str = "SOURCEBOT_SUPPORT";
/// `SOURCEBOT_SUPPORT_TIMEOUT`: how long the support check of one answer may take
/// (`8s`); pages not read by then are left unjudged.
pub const SUPPORT_TIMEOUT: &str = "SOURCEBOT_SUPPORT_TIMEOUT";
/// `SOURCEBOT_SUPPORT_JUDGE`: `llm` (the default) lets the language model judge
/// support when `SOURCEBOT_LLM_URL` is set; `builtin` keeps the built-in scorer.
pub const SUPPORT_JUDGE: &str = "SOURCEBOT_SUPPORT_JUDGE";
/// `SOURCEBOT_LLM_READS_INTERNAL`: `on` lets the language model see the passages of
/// internal documents and Slack messages sourcebot reads with its own credentials;
/// `off` (the default) leaves them to the built-in scorer.
pub const LLM_READS_INTERNAL: &str = "SOURCEBOT_LLM_READS_INTERNAL";
/// `SOURCEBOT_INTERNAL_QUOTES`: `on` (the default) lets the **Show evidence** modal
/// quote internal documents and Slack messages to the person who opens it; `off`
/// shows their verdicts and missing words only. A workspace's own setting wins.
pub const INTERNAL_QUOTES: &str = "SOURCEBOT_INTERNAL_QUOTES";
/// `SOURCEBOT_CLASSIFIER`: `rules` (the default) classifies claims by keywords; `llm`
/// asks the language model (`SOURCEBOT_LLM_URL`), the rules taking over on any failure.
pub const CLASSIFIER: &str = "SOURCEBOT_CLASSIFIER";
/// The largest page read accepted for `SOURCEBOT_FETCH_MAX_BYTES`: 64 MiB.
pub const MAX_FETCH_MAX_BYTES: usize = 64 << 20;

/// `SOURCEBOT_SOURCE_RELIABILITY`: reliability per source kind and per agent name,
/// `confluence=0.85,slack=0.7,my_search_agent=0.9`.
pub const SOURCE_RELIABILITY: &str = "SOURCEBOT_SOURCE_RELIABILITY";
/// `SOURCEBOT_SCORING_WEIGHTS`: the formulas' weights,
/// `credibility=0.6,diversity=0.4,agent=0.4,verified_bonus=0.05,failure_penalty=0.3`.
pub const SCORING_WEIGHTS: &str = "SOURCEBOT_SCORING_WEIGHTS";
/// `SOURCEBOT_DOMAIN_TIERS`: a file of domain tiers (the format of the shipped
/// `domain_tiers.txt`) that extends and overrides the shipped list.
pub const DOMAIN_TIERS: &str = "SOURCEBOT_DOMAIN_TIERS";
/// `SOURCEBOT_DOMAIN_RATINGS`: a file of published domain-quality ratings
/// (`domain,rating` lines, the format of Lin et al.'s `domain_pc1.csv`) for the
/// credibility model.
pub const DOMAIN_RATINGS: &str = "SOURCEBOT_DOMAIN_RATINGS";
/// `SOURCEBOT_CREDIBILITY`: `tiers` (the default: the domain tier alone, as the seed
/// rules had it) or `model` (the domain tier moved by the fitted model's other signals).
pub const CREDIBILITY: &str = "SOURCEBOT_CREDIBILITY";

/// The longest probe timeout accepted: a check that waits longer is no longer a check.
pub const MAX_VERIFY_TIMEOUT: Duration = Duration::from_secs(60);

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup` (a variable's value, or `None` when unset).
    /// Empty values count as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let get = |name: &'static str| {
            lookup(name)
                .filter(|v| !v.trim().is_empty())
                .map(|v| (name, v))
        };
        let mut config = Config::default();
        let rules = &mut config.collect.kind_rules;
        if let Some((name, value)) = get(SLACK_HOSTS) {
            rules.slack_hosts = hosts(name, &value)?;
        }
        if let Some((name, value)) = get(CONFLUENCE_HOSTS) {
            rules.confluence_hosts = hosts(name, &value)?;
        }
        if let Some((name, value)) = get(FILE_HOSTS) {
            rules.file_hosts = hosts(name, &value)?;
        }
        if let Some((name, value)) = get(MAX_SOURCES) {
            config.collect.max_sources = positive(name, &value, 1_000_000)?;
        }
        if let Some((name, value)) = get(MAX_INPUT_BYTES) {
            config.max_input_bytes = positive(name, &value, 1 << 30)?;
        }
        if let Some((name, value)) = get(MAX_PER_KIND) {
            config.render.max_per_kind = whole(name, &value, 1_000)?;
        }
        if let Some((name, value)) = get(KIND_ORDER) {
            config.render.kind_order = kind_order(name, &value)?;
        }
        read_verify(&get, &mut config.verify)?;
        read_score(&get, &mut config.score)?;
        if let Some((name, value)) = get(SUPPORT) {
            config.set_support(flag(name, &value)?);
        }
        if let Some((name, value)) = get(SUPPORT_TIMEOUT) {
            config.support.budget =
                duration(name, &value, Duration::from_millis(100), MAX_VERIFY_TIMEOUT)?;
        }
        config.llm = crate::llm::LlmSettings::from_lookup(&get)?;
        if let Some((name, value)) = get(LLM_READS_INTERNAL) {
            config.support.model_reads_internal = flag(name, &value)?;
        }
        if let Some((name, value)) = get(INTERNAL_QUOTES) {
            config.render.internal_quotes = flag(name, &value)?;
        }
        config.products = crate::products::ProductSettings::from_lookup(&get)?;
        add_product_hosts(&config.products, &mut config.collect.kind_rules);
        if let Some((name, value)) = get(CLASSIFIER) {
            config.classify_with_model = match value.trim().to_ascii_lowercase().as_str() {
                "llm" if config.llm.is_some() => true,
                "llm" => {
                    return Err(ConfigError {
                        name,
                        value,
                        expected: format!(
                            "llm needs a language model: set {} and {}",
                            crate::llm::LLM_URL,
                            crate::llm::LLM_MODEL
                        ),
                    })
                }
                "rules" => false,
                _ => {
                    return Err(ConfigError {
                        name,
                        value,
                        expected: "expected rules or llm".to_string(),
                    })
                }
            };
        }
        if let Some((name, value)) = get(SUPPORT_JUDGE) {
            config.support.use_model = match value.trim().to_ascii_lowercase().as_str() {
                "llm" if config.llm.is_some() => true,
                "llm" => {
                    return Err(ConfigError {
                        name,
                        value,
                        expected: format!(
                            "llm needs a language model: set {} and {}",
                            crate::llm::LLM_URL,
                            crate::llm::LLM_MODEL
                        ),
                    })
                }
                "builtin" => false,
                _ => {
                    return Err(ConfigError {
                        name,
                        value,
                        expected: "expected llm or builtin".to_string(),
                    })
                }
            };
        }
        // Reports name the model where it judged support.
        config.render.support_model = config
            .llm
            .as_ref()
            .filter(|_| config.support.use_model)
            .map(|llm| llm.model.clone());
        Ok(config)
    }
}

/// The hosts of the products configured, as internal hosts of their kinds: links a
/// product's API checks are never grouped under Web. A Confluence or Jira site (one
/// without a context path: with one, the host serves more than Atlassian) is
/// Atlassian's, grouped with Confluence; a GitHub Enterprise host holds files.
fn add_product_hosts(products: &crate::products::ProductSettings, rules: &mut KindRules) {
    let add = |list: &mut Vec<String>, host: Option<&str>| {
        if let Some(host) = host.map(|h| h.trim_end_matches('.').to_ascii_lowercase()) {
            if !host.is_empty() && !list.contains(&host) {
                list.push(host);
            }
        }
    };
    for site in [&products.confluence, &products.jira].into_iter().flatten() {
        if site.site.path().trim_matches('/').is_empty() {
            add(&mut rules.confluence_hosts, site.site.host_str());
        }
    }
    if let Some(github) = &products.github {
        if github.web_host != "github.com" {
            add(&mut rules.file_hosts, Some(&github.web_host));
        }
    }
}

fn read_verify(
    get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    verify: &mut VerifySettings,
) -> Result<(), ConfigError> {
    if let Some((name, value)) = get(VERIFY_TIMEOUT) {
        verify.timeout = duration(name, &value, Duration::from_millis(100), MAX_VERIFY_TIMEOUT)?;
    }
    if let Some((name, value)) = get(VERIFY_CONCURRENCY) {
        verify.concurrency = positive(name, &value, 1024)?;
    }
    if let Some((name, value)) = get(VERIFY_PER_HOST) {
        verify.per_host = positive(name, &value, 64)?;
    }
    let week = Duration::from_secs(7 * 24 * 3600);
    if let Some((name, value)) = get(VERIFY_CACHE_TTL) {
        verify.cache_ttl_verified = duration(name, &value, Duration::ZERO, week)?;
    }
    if let Some((name, value)) = get(VERIFY_CACHE_TTL_FAILED) {
        verify.cache_ttl_failed = duration(name, &value, Duration::ZERO, week)?;
    }
    if let Some((name, value)) = get(VERIFY_CACHE_MAX) {
        verify.cache_max_entries = whole(name, &value, 10_000_000)?;
    }
    if let Some((name, value)) = get(VERIFY_ALLOW_PRIVATE) {
        verify.allow_private = flag(name, &value)?;
    }
    if let Some((name, value)) = get(FETCH_MAX_BYTES) {
        verify.fetch_max_bytes = positive(name, &value, MAX_FETCH_MAX_BYTES)?;
    }
    if let Some((name, value)) = get(FETCH_TIMEOUT) {
        verify.fetch_timeout =
            duration(name, &value, Duration::from_millis(100), MAX_VERIFY_TIMEOUT)?;
    }
    Ok(())
}

fn read_score(
    get: &impl Fn(&'static str) -> Option<(&'static str, String)>,
    score: &mut ScoreSettings,
) -> Result<(), ConfigError> {
    if let Some((name, value)) = get(SOURCE_RELIABILITY) {
        for (key, reliability) in pairs(name, &value, "kind-or-agent=0.85")? {
            match SourceKind::ALL.into_iter().find(|k| k.as_str() == key) {
                Some(kind) => {
                    score.registry.kinds.insert(kind, reliability);
                }
                None => {
                    score.registry.names.insert(key, reliability);
                }
            }
        }
    }
    if let Some((name, value)) = get(SCORING_WEIGHTS) {
        let weights = &mut score.weights;
        for (key, weight) in pairs(name, &value, "credibility=0.6")? {
            let slot = match key.as_str() {
                "credibility" => &mut weights.credibility,
                "diversity" => &mut weights.diversity,
                "agent" => &mut weights.agent,
                "verified_bonus" => &mut weights.verified_bonus,
                "failure_penalty" => &mut weights.failure_penalty,
                _ => {
                    return Err(ConfigError {
                        name,
                        value: value.clone(),
                        expected: format!(
                            "unknown weight {key:?}; the weights are credibility, diversity, \
                             agent, verified_bonus and failure_penalty"
                        ),
                    })
                }
            };
            *slot = weight;
        }
        if !weights.is_normalised() {
            return Err(ConfigError {
                name,
                value,
                expected: format!(
                    "credibility and diversity must sum to 1.0 (they sum to {})",
                    weights.credibility + weights.diversity
                ),
            });
        }
    }
    if let Some((name, value)) = get(DOMAIN_TIERS) {
        let failed = |expected: String| ConfigError {
            name,
            value: value.clone(),
            expected,
        };
        let text = std::fs::read_to_string(value.trim())
            .map_err(|e| failed(format!("expected a readable tier list file: {e}")))?;
        let extra = DomainTiers::parse(&text).map_err(|e| failed(e.to_string()))?;
        score.tiers = Arc::new(score.tiers.extended_with(&extra));
    }
    if let Some((name, value)) = get(DOMAIN_RATINGS) {
        let ratings =
            DomainRatings::load(std::path::Path::new(value.trim())).map_err(|e| ConfigError {
                name,
                value: value.clone(),
                expected: format!("a readable ratings file (domain,rating lines): {e}"),
            })?;
        score.ratings = Some(Arc::new(ratings));
    }
    if let Some((name, value)) = get(CREDIBILITY) {
        score.credibility = match value.trim().to_ascii_lowercase().as_str() {
            "model" => CredibilityMethod::Model,
            "tiers" => CredibilityMethod::Tiers,
            _ => {
                return Err(ConfigError {
                    name,
                    value,
                    expected: "model or tiers".into(),
                })
            }
        };
    }
    Ok(())
}

/// `key=0.5,other=1` → [(key, 0.5), (other, 1.0)]: keys lower-cased, values in 0–1.
fn pairs(
    name: &'static str,
    value: &str,
    example: &str,
) -> Result<Vec<(String, f64)>, ConfigError> {
    let failed = |expected: String| ConfigError {
        name,
        value: value.to_string(),
        expected,
    };
    let mut parsed = Vec::new();
    for item in value.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (key, number) = item.split_once('=').ok_or_else(|| {
            failed(format!(
                "{item:?} has no `=`; expected name=number pairs separated by commas, e.g. {example}"
            ))
        })?;
        let key = key.trim().to_lowercase();
        if key.is_empty() {
            return Err(failed(format!("{item:?} has no name before `=`")));
        }
        let number = number
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|n| (0.0..=1.0).contains(n))
            .ok_or_else(|| failed(format!("{item:?}: expected a number from 0 to 1")))?;
        parsed.push((key, number));
    }
    Ok(parsed)
}

fn hosts(name: &'static str, value: &str) -> Result<Vec<String>, ConfigError> {
    KindRules::parse_host_list(value).map_err(|reason| ConfigError {
        name,
        value: value.to_string(),
        expected: format!(
            "{reason}; expected host names separated by commas, e.g. wiki.acme.io,*.corp.example"
        ),
    })
}

/// `web,slack` → [web, slack]; kinds left out keep their default order after them.
fn kind_order(name: &'static str, value: &str) -> Result<Vec<SourceKind>, ConfigError> {
    let mut order = Vec::new();
    for word in value.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let kind = SourceKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(word))
            .ok_or_else(|| ConfigError {
                name,
                value: value.to_string(),
                expected: format!("unknown kind {word:?}; expected kinds from slack, confluence, file, web separated by commas"),
            })?;
        if !order.contains(&kind) {
            order.push(kind);
        }
    }
    for kind in SourceKind::ALL {
        if !order.contains(&kind) {
            order.push(kind);
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_when_unset_or_empty() {
        assert_eq!(config(&[]).unwrap(), Config::default());
        assert_eq!(config(&[(MAX_SOURCES, "  ")]).unwrap(), Config::default());
    }

    #[test]
    fn internal_documents_settings_and_the_products_hosts_are_read() {
        let c = config(&[]).unwrap();
        assert!(!c.support.model_reads_internal, "off by default");
        assert!(c.render.internal_quotes, "on by default");
        let c = config(&[
            (LLM_READS_INTERNAL, "on"),
            (INTERNAL_QUOTES, "off"),
            (
                "SOURCEBOT_CONFLUENCE_URL",
                "https://acme.atlassian.net/wiki",
            ),
            ("SOURCEBOT_CONFLUENCE_EMAIL", "bot@acme.io"),
            ("SOURCEBOT_CONFLUENCE_TOKEN", "tok"),
            ("SOURCEBOT_JIRA_URL", "https://jira.acme.io"),
            ("SOURCEBOT_GITHUB_TOKEN", "ghp_x"),
            ("SOURCEBOT_GITHUB_API_URL", "https://ghe.acme.io/api/v3"),
        ])
        .unwrap();
        assert!(c.support.model_reads_internal);
        assert!(!c.render.internal_quotes);
        assert_eq!(
            c.collect.kind_rules.confluence_hosts,
            ["acme.atlassian.net", "jira.acme.io"]
        );
        assert_eq!(c.collect.kind_rules.file_hosts, ["ghe.acme.io"]);
        let rules = &c.collect.kind_rules;
        use crate::collect::kind::classify;
        assert_eq!(
            classify("https://jira.acme.io/browse/OPS-1", rules),
            SourceKind::Confluence
        );
        assert_eq!(
            classify("https://ghe.acme.io/acme/tools/blob/main/README.md", rules),
            SourceKind::File
        );
        // github.com stays on the web: a public repository is for anyone to read.
        let public = config(&[("SOURCEBOT_GITHUB_TOKEN", "ghp_x")]).unwrap();
        assert!(public.collect.kind_rules.file_hosts.is_empty());
        // A Data Center site under a context path leaves its host's other pages alone.
        let dc = config(&[
            (
                "SOURCEBOT_CONFLUENCE_URL",
                "https://intranet.acme.io/confluence",
            ),
            ("SOURCEBOT_CONFLUENCE_PAT", "pat"),
        ])
        .unwrap();
        assert!(dc.collect.kind_rules.confluence_hosts.is_empty());
        let error = config(&[(LLM_READS_INTERNAL, "maybe")]).unwrap_err();
        assert_eq!(error.name, LLM_READS_INTERNAL);
        let error = config(&[(INTERNAL_QUOTES, "sometimes")]).unwrap_err();
        assert_eq!(error.name, INTERNAL_QUOTES);
    }

    #[test]
    fn reads_every_setting() {
        let c = config(&[
            (CONFLUENCE_HOSTS, "wiki.acme.io, *.corp.example"),
            (SLACK_HOSTS, "chat.acme.io"),
            (FILE_HOSTS, "files.acme.io"),
            (MAX_SOURCES, "50"),
            (MAX_INPUT_BYTES, "1000"),
            (MAX_PER_KIND, "0"),
            (KIND_ORDER, "web, slack"),
        ])
        .unwrap();
        assert_eq!(
            c.collect.kind_rules.confluence_hosts,
            ["wiki.acme.io", "corp.example"]
        );
        assert_eq!(c.collect.kind_rules.slack_hosts, ["chat.acme.io"]);
        assert_eq!(c.collect.kind_rules.file_hosts, ["files.acme.io"]);
        assert_eq!(c.collect.max_sources, 50);
        assert_eq!(c.max_input_bytes, 1000);
        assert_eq!(c.render.max_per_kind, 0);
        assert_eq!(
            c.render.kind_order,
            [
                SourceKind::Web,
                SourceKind::Slack,
                SourceKind::Confluence,
                SourceKind::File
            ]
        );
    }

    #[test]
    fn errors_name_the_variable() {
        let e = config(&[(MAX_SOURCES, "lots")]).unwrap_err();
        assert_eq!(e.name, MAX_SOURCES);
        assert!(
            e.to_string()
                .starts_with("SOURCEBOT_MAX_SOURCES=\"lots\" is not valid"),
            "{e}"
        );
        let e = config(&[(MAX_SOURCES, "0")]).unwrap_err();
        assert!(e.expected.contains("from 1"), "{e}");
        let e = config(&[(CONFLUENCE_HOSTS, "bad/host")]).unwrap_err();
        assert!(e.to_string().contains("bad/host"), "{e}");
        let e = config(&[(KIND_ORDER, "web,email")]).unwrap_err();
        assert!(e.to_string().contains("email"), "{e}");
    }

    #[test]
    fn reads_the_verify_settings() {
        let c = config(&[
            (VERIFY_TIMEOUT, "1500ms"),
            (VERIFY_CONCURRENCY, "8"),
            (VERIFY_PER_HOST, "2"),
            (VERIFY_CACHE_TTL, "2h"),
            (VERIFY_CACHE_TTL_FAILED, "30s"),
            (VERIFY_CACHE_MAX, "0"),
            (VERIFY_ALLOW_PRIVATE, "1"),
            (FETCH_MAX_BYTES, "65536"),
            (FETCH_TIMEOUT, "3s"),
        ])
        .unwrap();
        assert_eq!(
            c.verify,
            VerifySettings {
                timeout: Duration::from_millis(1500),
                concurrency: 8,
                per_host: 2,
                cache_ttl_verified: Duration::from_secs(7200),
                cache_ttl_failed: Duration::from_secs(30),
                cache_max_entries: 0,
                allow_private: true,
                fetch_max_bytes: 65_536,
                fetch_timeout: Duration::from_secs(3),
                read_pages: crate::support::check::SupportSettings::default().max_pages,
                ..VerifySettings::default()
            }
        );
        assert!(!config(&[]).unwrap().verify.allow_private);
        let bare = config(&[(VERIFY_TIMEOUT, "2.5")]).unwrap();
        assert_eq!(bare.verify.timeout, Duration::from_millis(2500));
    }

    #[test]
    fn support_off_reads_no_page_with_the_probes() {
        let on = config(&[]).unwrap();
        assert!(on.support.enabled);
        assert_eq!(on.verify.read_pages, on.support.max_pages);
        assert_eq!(Config::default(), on);
        let off = config(&[(SUPPORT, "off")]).unwrap();
        assert!(!off.support.enabled);
        assert_eq!(off.verify.read_pages, 0);
        let mut flagged = on.clone();
        flagged.set_support(false);
        assert_eq!(flagged, off);
    }

    #[test]
    fn bad_verify_settings_say_what_is_expected() {
        for (name, value, expected) in [
            (VERIFY_TIMEOUT, "soon", "duration"),
            (VERIFY_TIMEOUT, "-1", "duration"),
            (VERIFY_TIMEOUT, "0s", "from 100ms"),
            (VERIFY_TIMEOUT, "2h", "to 1m"),
            (VERIFY_CONCURRENCY, "0", "from 1"),
            (VERIFY_PER_HOST, "many", "whole number"),
            (FETCH_MAX_BYTES, "0", "from 1"),
            (FETCH_MAX_BYTES, "1GB", "whole number"),
            (FETCH_TIMEOUT, "2h", "to 1m"),
            (VERIFY_ALLOW_PRIVATE, "maybe", "1 or 0"),
        ] {
            let e = config(&[(name, value)]).unwrap_err();
            assert_eq!(e.name, name);
            assert!(e.to_string().contains(expected), "{e}");
        }
    }

    #[test]
    fn reads_the_score_settings() {
        let dir = tempfile::tempdir().unwrap();
        let tiers = dir.path().join("tiers.txt");
        std::fs::write(&tiers, "[high]\nwiki.acme.example\n[low]\nwikipedia.org\n").unwrap();
        let tiers_path = tiers.to_string_lossy().to_string();
        let read = config(&[
            (SOURCE_RELIABILITY, "Confluence=0.9, web=0.55,acme_search=1"),
            (
                SCORING_WEIGHTS,
                "credibility=0.7,diversity=0.3,verified_bonus=0.1",
            ),
            (DOMAIN_TIERS, &tiers_path),
        ])
        .unwrap()
        .score;
        assert_eq!(read.registry.kind(SourceKind::Confluence), 0.9);
        assert_eq!(read.registry.kind(SourceKind::Web), 0.55);
        assert_eq!(read.registry.kind(SourceKind::Slack), 0.7, "default kept");
        assert_eq!(read.registry.agents(&["ACME_search".into()]), Some(1.0));
        assert_eq!(
            (read.weights.credibility, read.weights.diversity),
            (0.7, 0.3)
        );
        assert_eq!(read.weights.verified_bonus, 0.1);
        assert_eq!(read.weights.agent, 0.4, "default kept");
        use crate::score::domain::Tier;
        assert_eq!(read.tiers.tier("wiki.acme.example"), Tier::High);
        assert_eq!(read.tiers.tier("en.wikipedia.org"), Tier::Low);
        assert_eq!(
            read.tiers.tier("nih.gov"),
            Tier::High,
            "the shipped list stays"
        );
    }

    #[test]
    fn bad_score_settings_say_what_is_expected() {
        for (name, value, expected) in [
            (SOURCE_RELIABILITY, "confluence", "no `=`"),
            (SOURCE_RELIABILITY, "confluence=high", "number from 0 to 1"),
            (SOURCE_RELIABILITY, "web=1.5", "number from 0 to 1"),
            (SOURCE_RELIABILITY, "=0.5", "no name"),
            (SCORING_WEIGHTS, "credibility=0.5", "sum to 1.0"),
            (SCORING_WEIGHTS, "trust=0.5", "unknown weight"),
            (DOMAIN_TIERS, "/nonexistent/tiers.txt", "readable tier list"),
        ] {
            let e = config(&[(name, value)]).unwrap_err();
            assert_eq!(e.name, name);
            assert!(e.to_string().contains(expected), "{e}");
        }
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, "[high]\nexample.org\n[shiny]\n").unwrap();
        let e = config(&[(DOMAIN_TIERS, &bad.to_string_lossy())]).unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
    }

    #[test]
    fn reports_name_the_model_only_when_it_judges_support() {
        let llm = [
            (crate::llm::LLM_URL, "https://llm.example/v1"),
            (crate::llm::LLM_MODEL, "gpt-4o-mini"),
        ];
        assert_eq!(config(&[]).unwrap().render.support_model, None);
        assert_eq!(
            config(&llm).unwrap().render.support_model.as_deref(),
            Some("gpt-4o-mini")
        );
        let builtin = [llm[0], llm[1], (SUPPORT_JUDGE, "builtin")];
        assert_eq!(config(&builtin).unwrap().render.support_model, None);
    }
}

//! Settings from the environment, each with a documented default and a clear error
//! naming the variable and what it should look like. `.env.example` lists every one.
//! Reading goes through a lookup function so tests never touch the process
//! environment.

use crate::collect::input::DEFAULT_MAX_INPUT_BYTES;
use crate::collect::kind::KindRules;
use crate::collect::CollectOptions;
use crate::model::SourceKind;
use crate::render::RenderOptions;
use thiserror::Error;

/// A setting that is present but malformed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{name}={value:?} is not valid: {expected}")]
pub struct ConfigError {
    /// The variable.
    pub name: &'static str,
    /// Its value.
    pub value: String,
    /// What it should look like.
    pub expected: String,
}

/// Everything the pipeline can be told through the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Collector settings.
    pub collect: CollectOptions,
    /// Renderer settings.
    pub render: RenderOptions,
    /// Largest input read, in bytes.
    pub max_input_bytes: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            collect: CollectOptions::default(),
            render: RenderOptions::default(),
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
        }
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
        Ok(config)
    }
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

fn whole(name: &'static str, value: &str, max: usize) -> Result<usize, ConfigError> {
    value
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n <= max)
        .ok_or_else(|| ConfigError {
            name,
            value: value.to_string(),
            expected: format!("expected a whole number from 0 to {max}"),
        })
}

fn positive(name: &'static str, value: &str, max: usize) -> Result<usize, ConfigError> {
    match whole(name, value, max) {
        Ok(0) | Err(_) => Err(ConfigError {
            name,
            value: value.to_string(),
            expected: format!("expected a whole number from 1 to {max}"),
        }),
        Ok(n) => Ok(n),
    }
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
}

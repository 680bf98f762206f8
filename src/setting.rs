//! One environment setting's value: the error that names a malformed one
//! ([`ConfigError`]) and the parsers every group of settings shares (durations, flags,
//! counts). It depends on nothing else in the crate, so the modules that read their own
//! settings ([`crate::config`], [`crate::llm`], [`crate::products`]) need not depend on
//! each other.

use std::time::Duration;
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

/// `2s`, `1500ms`, `5m`, `1h` (humantime's forms), or a bare number of seconds (`2`,
/// `0.5`), within `min..=max`.
pub fn duration(
    name: &'static str,
    value: &str,
    min: Duration,
    max: Duration,
) -> Result<Duration, ConfigError> {
    let value_trimmed = value.trim();
    let bare_seconds = value_trimmed
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok());
    bare_seconds
        .or_else(|| humantime::parse_duration(value_trimmed).ok())
        .filter(|d| *d >= min && *d <= max)
        .ok_or_else(|| ConfigError {
            name,
            value: value.to_string(),
            expected: format!(
                "expected a duration from {} to {}, e.g. 2s, 1500ms, 5m, 1h",
                humantime::format_duration(min),
                humantime::format_duration(max)
            ),
        })
}

/// `1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`.
pub fn flag(name: &'static str, value: &str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ConfigError {
            name,
            value: value.to_string(),
            expected: "expected 1 or 0 (true/false, yes/no, on/off)".to_string(),
        }),
    }
}

/// A whole number from 0 to `max`.
pub fn whole(name: &'static str, value: &str, max: usize) -> Result<usize, ConfigError> {
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

/// A whole number from 1 to `max`.
pub fn positive(name: &'static str, value: &str, max: usize) -> Result<usize, ConfigError> {
    match whole(name, value, max) {
        Ok(0) | Err(_) => Err(ConfigError {
            name,
            value: value.to_string(),
            expected: format!("expected a whole number from 1 to {max}"),
        }),
        Ok(n) => Ok(n),
    }
}

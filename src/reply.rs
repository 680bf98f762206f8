//! Talking to the HTTP services sourcebot calls (cited links, the language model,
//! product APIs): the client for the services the operator configures, how long a
//! `Retry-After` asks to wait, the innermost cause of a failed request (reqwest's own
//! message is generic), and a body read whole up to a cap. The callers decide what
//! each means for them.

use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use std::time::{Duration, SystemTime};

/// The HTTP client for a service the operator configures (the language model, a
/// product's API), not for cited links: rustls with ring, sourcebot's user agent, no
/// redirect followed, idle connections kept a minute.
pub fn service_client() -> Result<reqwest::Client, reqwest::Error> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!("sourcebot/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(Duration::from_secs(60))
        .build()
}

/// `Retry-After` as seconds or an HTTP date (a date in the past is no wait).
pub fn parse_retry_after(value: &HeaderValue) -> Option<Duration> {
    let text = value.to_str().ok()?.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(text).ok()?;
    Some(
        at.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The `Retry-After` of `headers`, if there is a readable one.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    headers.get(RETRY_AFTER).and_then(parse_retry_after)
}

/// The innermost cause of a request error: "connection refused", not "error sending
/// request".
pub fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message = cause.to_string();
        source = cause.source();
    }
    message
}

/// Why a body could not be read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// The connection failed while reading (its innermost cause).
    Transport(String),
    /// The body is larger than the cap (in bytes).
    TooLarge(usize),
}

/// The whole body of `response`, or an error as soon as it passes `max` bytes.
pub async fn read_capped(
    response: &mut reqwest::Response,
    max: usize,
) -> Result<Vec<u8>, BodyError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| BodyError::Transport(innermost(&e)))?
    {
        if body.len() + chunk.len() > max {
            return Err(BodyError::TooLarge(max));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let value = |s: &str| HeaderValue::from_str(s).expect("header");
        assert_eq!(
            parse_retry_after(&value("120")),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after(&value("Wed, 21 Oct 2015 07:28:00 GMT")),
            Some(Duration::ZERO)
        );
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        let wait = parse_retry_after(&value(&later)).expect("date");
        assert!(wait > Duration::from_secs(25) && wait <= Duration::from_secs(30));
        assert_eq!(parse_retry_after(&value("soon")), None);
    }
}

//! Short-lived access tokens for products that sign in with OAuth 2.0 (Google's
//! signed-JWT grant, Microsoft's client credentials): a token is fetched when first
//! needed, kept until a minute before it expires, and refreshed by one check while the
//! others wait for it ([`TokenCache`]). A refresh that fails is not remembered past the
//! checks that were waiting for it. When no token can be had, the link is "not
//! checked" ([`token_failure`]), never broken: a refused credential is a configuration
//! error, logged once naming the setting. Tokens are never logged or printed.

use super::api::{self, ApiFailure, ProductApi};
use crate::verify::Checked;
use serde_json::Value;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// How long before its expiry a token is replaced.
pub const REFRESH_MARGIN: Duration = Duration::from_secs(60);

/// A token fetched from a token endpoint and how long it lives.
pub struct Token {
    /// The access token.
    pub access_token: String,
    /// Its lifetime from now.
    pub expires_in: Duration,
}

/// Tokens are never printed.
impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("access_token", &"<redacted>")
            .field("expires_in", &self.expires_in)
            .finish()
    }
}

/// Reads a token endpoint's JSON reply (`{"access_token", "expires_in",
/// "token_type": "Bearer"}`; `expires_in` a number, or a string of one as older
/// endpoints send).
pub fn read_token_reply(reply: &Value) -> Result<Token, ApiFailure> {
    let access_token = reply
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| ApiFailure::Malformed("the token reply has no access_token".into()))?;
    if let Some(kind) = reply.get("token_type").and_then(Value::as_str) {
        if !kind.eq_ignore_ascii_case("bearer") {
            return Err(ApiFailure::Malformed(format!(
                "the token is of type {kind:?}, not Bearer"
            )));
        }
    }
    let expires_in = match reply.get("expires_in") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        _ => None,
    }
    .ok_or_else(|| ApiFailure::Malformed("the token reply has no expires_in".into()))?;
    Ok(Token {
        access_token: access_token.to_string(),
        expires_in: Duration::from_secs(expires_in),
    })
}

/// The token in use, and the last refresh that failed.
#[derive(Default)]
struct Held {
    /// The token and when to replace it.
    token: Option<(String, Instant)>,
    /// When the last refresh failed, and how.
    failed: Option<(Instant, ApiFailure)>,
}

/// One product's access token, shared by its checks.
#[derive(Default)]
pub struct TokenCache {
    held: Mutex<Held>,
}

impl std::fmt::Debug for TokenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenCache(<redacted>)")
    }
}

impl TokenCache {
    /// The token, fetched with `fetch` when there is none or it expires within
    /// [`REFRESH_MARGIN`]; waits no later than `deadline`. Checks that were waiting
    /// while a refresh failed get that failure rather than trying again at once.
    pub async fn get<F, Fut>(&self, deadline: Instant, fetch: F) -> Result<String, ApiFailure>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Token, ApiFailure>>,
    {
        let asked = Instant::now();
        let Ok(mut held) = tokio::time::timeout_at(deadline.into(), self.held.lock()).await else {
            return Err(ApiFailure::Timeout);
        };
        if let Some((token, refresh_at)) = &held.token {
            if Instant::now() < *refresh_at {
                return Ok(token.clone());
            }
        }
        if let Some((when, failure)) = &held.failed {
            if *when >= asked {
                return Err(failure.clone());
            }
        }
        match fetch().await {
            Ok(token) => {
                let now = Instant::now();
                let refresh_at = now + token.expires_in.saturating_sub(REFRESH_MARGIN);
                held.token = Some((token.access_token.clone(), refresh_at));
                held.failed = None;
                Ok(token.access_token)
            }
            Err(failure) => {
                held.token = None;
                held.failed = Some((Instant::now(), failure.clone()));
                Err(failure)
            }
        }
    }
}

/// The verdict for a link whose check could not get a token: not checked, saying
/// why. A refused credential (the token endpoint's 400 or 401: `invalid_grant`,
/// `invalid_client`) reads as the API's 401 does and is logged once naming `setting`.
pub fn token_failure(api: &ProductApi, url: &str, failure: &ApiFailure, setting: &str) -> Checked {
    let product = api.product;
    let why = match failure {
        ApiFailure::Status {
            status: 400 | 401, ..
        } => {
            let refused = ApiFailure::Status {
                status: 401,
                retry_after: None,
            };
            return api::failure(api, url, &refused, setting, true);
        }
        ApiFailure::Status { status, .. } => format!("its sign-in answered HTTP {status}"),
        ApiFailure::Timeout => "its sign-in did not answer in time".to_string(),
        ApiFailure::Transport(error) => format!("cannot reach its sign-in: {error}"),
        ApiFailure::Malformed(error) => {
            format!("its sign-in answered something unexpected ({error})")
        }
        ApiFailure::TooLarge(max) => format!("its sign-in answered more than {max} bytes"),
    };
    api::not_checked(&format!(
        "not checked: no access token from {product} ({why})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn token_replies_are_read_as_the_endpoints_send_them() {
        let token = read_token_reply(
            &json!({"access_token": "ya29.x", "expires_in": 3599, "token_type": "Bearer"}),
        )
        .unwrap();
        assert_eq!(token.access_token, "ya29.x");
        assert_eq!(token.expires_in, Duration::from_secs(3599));
        assert!(!format!("{token:?}").contains("ya29"));
        let token =
            read_token_reply(&json!({"access_token": "eyJ0", "expires_in": "3600"})).unwrap();
        assert_eq!(token.expires_in, Duration::from_secs(3600));
        for bad in [
            json!({"expires_in": 3600}),
            json!({"access_token": "", "expires_in": 3600}),
            json!({"access_token": "x"}),
            json!({"access_token": "x", "expires_in": 3600, "token_type": "mac"}),
        ] {
            assert!(
                matches!(read_token_reply(&bad), Err(ApiFailure::Malformed(_))),
                "{bad}"
            );
        }
    }

    #[tokio::test]
    async fn concurrent_checks_share_one_refresh_and_tokens_are_kept_until_near_expiry() {
        let cache = Arc::new(TokenCache::default());
        let fetches = Arc::new(AtomicUsize::new(0));
        let deadline = Instant::now() + Duration::from_secs(5);
        let get = |lifetime: u64| {
            let (cache, fetches) = (cache.clone(), fetches.clone());
            async move {
                cache
                    .get(deadline, || async move {
                        let n = fetches.fetch_add(1, Ordering::SeqCst) + 1;
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        Ok(Token {
                            access_token: format!("token-{n}"),
                            expires_in: Duration::from_secs(lifetime),
                        })
                    })
                    .await
            }
        };
        let tokens = futures_util::future::join_all((0..5).map(|_| get(3600))).await;
        assert!(tokens.iter().all(|t| t.as_deref() == Ok("token-1")));
        assert_eq!(fetches.load(Ordering::SeqCst), 1);

        // A token that expires within the margin is replaced at once.
        let cache = Arc::new(TokenCache::default());
        let fetches = Arc::new(AtomicUsize::new(0));
        for expected in ["token-1", "token-2"] {
            let f = fetches.clone();
            let token = cache
                .get(deadline, || async move {
                    let n = f.fetch_add(1, Ordering::SeqCst) + 1;
                    Ok(Token {
                        access_token: format!("token-{n}"),
                        expires_in: Duration::from_secs(30),
                    })
                })
                .await;
            assert_eq!(token.as_deref(), Ok(expected));
        }
    }

    #[tokio::test]
    async fn a_failed_refresh_is_shared_with_waiting_checks_but_not_remembered() {
        let cache = Arc::new(TokenCache::default());
        let fetches = Arc::new(AtomicUsize::new(0));
        let deadline = Instant::now() + Duration::from_secs(5);
        let failing = || {
            let (cache, fetches) = (cache.clone(), fetches.clone());
            async move {
                cache
                    .get(deadline, || async move {
                        fetches.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        Err::<Token, _>(ApiFailure::Status {
                            status: 401,
                            retry_after: None,
                        })
                    })
                    .await
            }
        };
        let results = futures_util::future::join_all((0..4).map(|_| failing())).await;
        assert!(results.iter().all(Result::is_err));
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        // A later check tries again.
        assert!(failing().await.is_err());
        assert_eq!(fetches.load(Ordering::SeqCst), 2);
    }
}

//! `Idempotency-Key` on `POST /v1/answers`: the same key from the same caller within
//! [`REPLY_TTL`] gets the first request's response instead of a second post, on any
//! replica. Two layers: this process's table ([`Replies`]), where concurrent requests
//! with one key wait on one cell, and the bot's state
//! ([`crate::state::BotState::claim_idempotency`]), where replicas sharing Redis claim
//! the key, wait for the replica that runs it, and read the response it kept. A key
//! used for a different request is refused (422); a key another replica still runs
//! after [`PENDING_WAIT`] is answered 409 with `Retry-After`. In Redis the caller is
//! named by a SHA-256 of its token, never the token.

use super::ApiError;
use crate::state::{BotState, IdempotencyClaim};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long an `Idempotency-Key`'s response is kept.
pub const REPLY_TTL: Duration = Duration::from_secs(3600);
/// Most `Idempotency-Key` responses kept in one process; the oldest go first beyond it.
pub const MAX_REPLIES: usize = 10_000;
/// How long a claim lasts while its request runs (a replica that dies mid-request
/// frees the key after this).
const PENDING_TTL: Duration = Duration::from_secs(120);
/// How long a request waits for another replica running the same key.
pub const PENDING_WAIT: Duration = Duration::from_secs(30);
/// How often it looks.
const PENDING_POLL: Duration = Duration::from_millis(100);

/// A response as it was sent, kept to be sent again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredReply {
    /// The HTTP status.
    pub status: u16,
    /// The JSON body.
    pub body: Value,
    /// `Retry-After`, in seconds, if it had one.
    #[serde(default)]
    pub retry_after: Option<u64>,
}

impl StoredReply {
    /// A 200 with `body`.
    pub fn ok(body: Value) -> StoredReply {
        StoredReply {
            status: 200,
            body,
            retry_after: None,
        }
    }

    /// The refusal `error` as it is sent.
    pub fn from_error(error: &ApiError) -> StoredReply {
        StoredReply {
            status: error.status.as_u16(),
            body: error.body(),
            retry_after: error.retry_after,
        }
    }

    /// The response to send.
    pub fn response(&self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK);
        let mut response = (status, Json(self.body.clone())).into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// A response being made, or made, for one key, and whether another replica made it.
type ReplyCell = Arc<tokio::sync::OnceCell<(StoredReply, bool)>>;

/// This process's responses by (token, idempotency key), each behind a cell that
/// concurrent requests with the same key wait on.
#[derive(Default)]
pub struct Replies {
    /// (token, key) → when the first request came, what it asked, and its response.
    cells: dashmap::DashMap<(String, String), (Instant, u64, ReplyCell)>,
}

impl Replies {
    /// The cell for `key`; a key already used (within [`REPLY_TTL`]) for a different
    /// request is refused with 422.
    pub fn cell(&self, token: &str, key: &str, asked: u64) -> Result<ReplyCell, ApiError> {
        if self.cells.len() >= MAX_REPLIES {
            self.cells.retain(|_, (at, _, _)| at.elapsed() < REPLY_TTL);
            while self.cells.len() >= MAX_REPLIES {
                let oldest = self
                    .cells
                    .iter()
                    .min_by_key(|entry| entry.value().0)
                    .map(|entry| entry.key().clone());
                match oldest {
                    Some(oldest) => {
                        self.cells.remove(&oldest);
                    }
                    None => break,
                }
            }
        }
        let fresh = || (Instant::now(), asked, ReplyCell::default());
        let mut entry = self
            .cells
            .entry((token.to_string(), key.to_string()))
            .or_insert_with(fresh);
        if entry.0.elapsed() >= REPLY_TTL {
            *entry = fresh();
        }
        if entry.1 != asked {
            return Err(reused());
        }
        Ok(entry.2.clone())
    }
}

fn reused() -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
        "this Idempotency-Key was used for a different request; use a new key for a new answer",
    )
    .at("Idempotency-Key")
}

/// Runs `run` once for `key` over every replica sharing `state`: claims the key and
/// runs it (keeping what it returns, or freeing the key when it fails with nothing
/// done), or waits for the replica that runs it and returns its response. The flag
/// says whether the response came from another replica.
pub async fn once_across_replicas<F, Fut>(
    state: &Arc<dyn BotState>,
    key: &str,
    asked: u64,
    run: F,
) -> Result<(StoredReply, bool), ApiError>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<StoredReply, ApiError>>,
{
    let deadline = Instant::now() + PENDING_WAIT;
    loop {
        match state.claim_idempotency(key, asked, PENDING_TTL).await {
            IdempotencyClaim::Claimed => {
                let outcome = run().await;
                match &outcome {
                    Ok(reply) => match serde_json::to_string(reply) {
                        Ok(kept) => state.finish_idempotency(key, asked, &kept, REPLY_TTL).await,
                        Err(_) => state.release_idempotency(key, asked).await,
                    },
                    Err(_) => state.release_idempotency(key, asked).await,
                }
                return outcome.map(|reply| (reply, false));
            }
            IdempotencyClaim::Done(kept) => {
                return serde_json::from_str(&kept)
                    .map(|reply| (reply, true))
                    .map_err(|_| {
                        ApiError::new(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            "internal",
                            "the response kept for this Idempotency-Key cannot be read",
                        )
                    });
            }
            IdempotencyClaim::Mismatch => return Err(reused()),
            IdempotencyClaim::Pending => {
                if Instant::now() >= deadline {
                    let mut busy = ApiError::new(
                        StatusCode::CONFLICT,
                        "idempotency_key_in_progress",
                        "a request with this Idempotency-Key is still running; retry later for its response",
                    )
                    .at("Idempotency-Key");
                    busy.retry_after = Some(1);
                    return Err(busy);
                }
                tokio::time::sleep(PENDING_POLL).await;
            }
        }
    }
}

/// The key in the shared state: the caller (a SHA-256 of its token, never the token)
/// and its `Idempotency-Key`.
pub fn shared_key(token: &str, key: &str) -> String {
    let caller = Sha256::digest(token.as_bytes());
    let caller: String = caller[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("{caller}:{key}")
}

/// `Idempotency-Key`: the same key (with the same token) within [`REPLY_TTL`] gets
/// the first request's response instead of a second post.
pub fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let key = value.to_str().ok().map(str::trim).unwrap_or_default();
    if key.is_empty() || key.len() > 200 || key.chars().any(|c| c.is_control()) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "malformed",
            "Idempotency-Key: expected 1 to 200 printable characters",
        )
        .at("Idempotency-Key"));
    }
    Ok(Some(key.to_string()))
}

/// What a `/v1/answers` request asks, in 64 bits: its body and whether to verify. The
/// same in every replica and release (SHA-256), so replicas agree on it.
pub fn fingerprint(body: &[u8], verify: bool) -> u64 {
    let mut hasher = Sha256::new();
    hasher.update(body);
    hasher.update([u8::from(verify)]);
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_key_never_holds_the_token() {
        let key = shared_key("sb_live_secret_token", "order-42");
        assert!(!key.contains("secret"), "{key}");
        assert!(key.ends_with(":order-42"));
        assert_eq!(key, shared_key("sb_live_secret_token", "order-42"));
        assert_ne!(key, shared_key("another", "order-42"));
    }

    #[test]
    fn fingerprints_depend_on_the_body_and_the_verify_flag() {
        assert_eq!(fingerprint(b"{}", true), fingerprint(b"{}", true));
        assert_ne!(fingerprint(b"{}", true), fingerprint(b"{}", false));
        assert_ne!(fingerprint(b"{}", true), fingerprint(b"{ }", true));
    }

    #[test]
    fn a_stored_reply_is_sent_again_as_it_was() {
        let mut error = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", "try later");
        error.retry_after = Some(3);
        let stored = StoredReply::from_error(&error);
        let again: StoredReply =
            serde_json::from_str(&serde_json::to_string(&stored).unwrap_or_default())
                .unwrap_or_else(|_| StoredReply::ok(Value::Null));
        assert_eq!(again, stored);
        let response = again.response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            response.headers().get(header::RETRY_AFTER),
            Some(&HeaderValue::from(3u64))
        );
        assert_eq!(stored.body["error"]["code"], "busy");
    }
}

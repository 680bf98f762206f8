//! Refusals: [`ApiError`], its status and its JSON body.

use super::*;

/// A refusal: its status and the JSON body `{error: {code, message, path?}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable, machine-readable code (`unauthorized`, `malformed`…).
    pub code: &'static str,
    /// What was wrong, for people.
    pub message: String,
    /// The JSON path of the bad field, when one is to blame.
    pub path: Option<String>,
    /// Seconds to wait before trying again (429, 503).
    pub retry_after: Option<u64>,
    /// Anything else the caller needs (what was already posted, say).
    pub extra: Option<Value>,
}

impl ApiError {
    /// A refusal with `status`, `code` and `message`.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            path: None,
            retry_after: None,
            extra: None,
        }
    }

    pub(super) fn at(mut self, path: impl Into<String>) -> ApiError {
        self.path = Some(path.into());
        self
    }

    pub(super) fn retry_after(mut self, seconds: u64) -> ApiError {
        self.retry_after = Some(seconds.max(1));
        self
    }
}

impl ApiError {
    /// The JSON body sent for it: `{"error": {"code", "message", "path"?, …extra}}`.
    pub fn body(&self) -> Value {
        let mut error = serde_json::json!({"code": self.code, "message": self.message});
        if let Some(path) = &self.path {
            error["path"] = Value::from(path.as_str());
        }
        if let Some(Value::Object(extra)) = &self.extra {
            for (key, value) in extra {
                error[key] = value.clone();
            }
        }
        serde_json::json!({ "error": error })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body())).into_response();
        let headers = response.headers_mut();
        if let Some(seconds) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"sourcebot\""),
            );
        }
        response
    }
}

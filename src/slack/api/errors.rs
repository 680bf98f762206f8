//! Why a Slack call failed, in words a log reader understands, and which failures
//! mean Slack could not be reached at all (so a reply may be sent again) or refused a
//! workspace's token (so that workspace, not Slack, is down).

/// Slack's error codes that mean the workspace's token no longer works: that workspace
/// is down in `/readyz`, not Slack.
pub(super) const REFUSED_TOKEN: [&str; 6] = [
    "invalid_auth",
    "not_authed",
    "token_revoked",
    "token_expired",
    "account_inactive",
    "team_access_not_granted",
];

/// Whether a failed request never left this process: the connection could not be made
/// (refused, no route, name not resolved), so Slack did not act on it.
pub(super) fn never_sent(protocol: &slack_morphism::errors::SlackClientHttpProtocolError) -> bool {
    protocol
        .cause
        .as_ref()
        .and_then(|cause| cause.downcast_ref::<hyper_util::client::legacy::Error>())
        .is_some_and(hyper_util::client::legacy::Error::is_connect)
}

/// Why a Slack call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// Slack answered `ok: false` with this error code.
    #[error("Slack refused {method}: {code}")]
    Slack {
        /// The API method.
        method: &'static str,
        /// Slack's error code (`not_in_channel`, `invalid_blocks`…).
        code: String,
    },
    /// Still rate limited after the one retry.
    #[error("Slack rate-limited {method} twice")]
    RateLimited {
        /// The API method.
        method: &'static str,
    },
    /// No answer within the call timeout.
    #[error("Slack did not answer {method} within {seconds} s")]
    Timeout {
        /// The API method.
        method: &'static str,
        /// The timeout.
        seconds: u64,
    },
    /// Slack could not be reached (the connection failed before the request was
    /// sent) or said it is unavailable (HTTP 502, 503, 504): the request was not acted
    /// on, so it may be sent again.
    #[error("Slack cannot be reached ({method}): {detail}")]
    Unreachable {
        /// The API method.
        method: &'static str,
        /// What went wrong.
        detail: String,
    },
    /// The request failed on the way (network, protocol).
    #[error("calling Slack's {method} failed: {detail}")]
    Transport {
        /// The API method.
        method: &'static str,
        /// What went wrong.
        detail: String,
    },
}

impl CallError {
    /// The outcome label of `sourcebot_slack_api_calls_total`.
    pub fn outcome(&self) -> &'static str {
        match self {
            CallError::Slack { .. } => "slack_error",
            CallError::RateLimited { .. } => "rate_limited",
            CallError::Timeout { .. } => "timeout",
            CallError::Unreachable { .. } => "unreachable",
            CallError::Transport { .. } => "transport",
        }
    }

    /// Whether Slack could not be reached or did not answer: trying later may work.
    pub fn is_outage(&self) -> bool {
        matches!(
            self,
            CallError::Timeout { .. } | CallError::Unreachable { .. } | CallError::Transport { .. }
        )
    }

    /// Slack's error code, when Slack gave one.
    pub fn code(&self) -> Option<&str> {
        match self {
            CallError::Slack { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// Why the client could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The system's root certificates could not be loaded.
    #[error("cannot load the system's root certificates: {0}")]
    Certificates(String),
}

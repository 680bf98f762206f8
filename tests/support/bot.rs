//! The Slack bot's HTTP mode under test: `serve`'s Slack router in-process on
//! 127.0.0.1:0, a fake Slack Web API behind it (`super::slack`), and methods that send
//! it signed events, slash commands and interactions as Slack does. Settings are the
//! test defaults (`BAI` watched, a 2 s call timeout); `harness_with` adjusts them.

use super::serve::{loopback_client, serve_app};
use super::slack::{event_callback, sign_request, trigger_id, unix_now, FakeSlack};
use serde_json::{json, Value};
use sourcebot::config::Config;
use sourcebot::slack::{self, Bot, SlackSettings, Transport};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// The signing secret of Slack's documented example, used by every signed request.
pub const SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";
/// The channel commands run in.
pub const CHANNEL: &str = "C0GENERAL";

/// The bot's HTTP server, a fake Slack behind it, and a client to sign requests with.
pub struct Harness {
    /// The fake Slack behind the bot (shared by the replicas of [`harness_sharing`]).
    pub slack: std::sync::Arc<FakeSlack>,
    /// Where the bot's HTTP server listens.
    pub addr: SocketAddr,
    /// A loopback client.
    pub http: reqwest::Client,
    /// The bot itself.
    pub bot: std::sync::Arc<Bot>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// The bot with the test settings.
pub async fn harness() -> Harness {
    harness_with(|_| {}).await
}

/// The bot with the test settings as `adjust` leaves them.
pub async fn harness_with(adjust: impl FnOnce(&mut SlackSettings)) -> Harness {
    harness_sharing(std::sync::Arc::new(FakeSlack::start().await), adjust).await
}

/// Another bot (a replica) on the fake Slack `slack`, e.g. another harness's, with the
/// test settings as `adjust` leaves them.
pub async fn harness_sharing(
    slack: std::sync::Arc<FakeSlack>,
    adjust: impl FnOnce(&mut SlackSettings),
) -> Harness {
    harness_serving(slack, None, adjust).await
}

/// The bot serving the workspaces `installations` names (with OAuth: each with its own
/// token), or the test token's one workspace when `None`; on the fake Slack `slack`,
/// with the test settings as `adjust` leaves them (`bot_token: None` for OAuth alone).
pub async fn harness_serving(
    slack: std::sync::Arc<FakeSlack>,
    installations: Option<std::sync::Arc<dyn slack::Installations>>,
    adjust: impl FnOnce(&mut SlackSettings),
) -> Harness {
    harness_keeping(slack, installations, None, adjust).await
}

/// [`harness_serving`], keeping the workspaces' settings, report history and feedback
/// in `data` (a database a test opened, shared by replicas or kept across a restart);
/// with `None`, in a fresh SQLite database in memory.
pub async fn harness_keeping(
    slack: std::sync::Arc<FakeSlack>,
    installations: Option<std::sync::Arc<dyn slack::Installations>>,
    data: Option<std::sync::Arc<dyn sourcebot::store::workspace_data::WorkspaceData>>,
    adjust: impl FnOnce(&mut SlackSettings),
) -> Harness {
    let mut config = Config::default();
    config.verify.allow_private = true;
    harness_starting(slack, installations, data, config, adjust).await
}

/// The bot with the pipeline settings `config` (e.g. products read from variables with
/// `Config::from_lookup`) and the test's Slack settings, on the fake Slack `slack`.
pub async fn harness_configured(slack: std::sync::Arc<FakeSlack>, config: Config) -> Harness {
    harness_starting(slack, None, None, config, |_| {}).await
}

/// [`harness_keeping`] with the pipeline settings `config`.
async fn harness_starting(
    slack: std::sync::Arc<FakeSlack>,
    installations: Option<std::sync::Arc<dyn slack::Installations>>,
    data: Option<std::sync::Arc<dyn sourcebot::store::workspace_data::WorkspaceData>>,
    config: Config,
    adjust: impl FnOnce(&mut SlackSettings),
) -> Harness {
    sourcebot::verify::install_crypto_provider();
    let mut settings = SlackSettings::from_lookup(|name| match name {
        "SLACK_BOT_TOKEN" => Some("xoxb-test".into()),
        "SLACK_SIGNING_SECRET" => Some(SECRET.into()),
        "SOURCEBOT_SLACK_API_URL" => Some(slack.api_url()),
        "SOURCEBOT_WATCH_BOT_IDS" => Some("BAI".into()),
        "SOURCEBOT_SLACK_TIMEOUT" => Some("2s".into()),
        _ => None,
    })
    .expect("settings");
    adjust(&mut settings);
    let metrics = sourcebot::metrics::Metrics::new();
    let state = Bot::state_from(&settings, &metrics).expect("state");
    let bot = Bot::start_with_data(&settings, config, metrics, state, installations, data)
        .await
        .expect("bot starts");
    let Transport::Http { signing_secret } = &settings.transport else {
        panic!("HTTP mode expected");
    };
    let app = slack::http::router(bot.clone(), signing_secret, settings.max_body_bytes);
    let (addr, server) = serve_app(app).await;
    Harness {
        slack,
        addr,
        http: loopback_client(),
        bot,
        server,
    }
}

impl Harness {
    /// The bot's URL for `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// POSTs `body` to `path`, signed with `secret` at `timestamp`, with extra headers.
    pub async fn post_signed(
        &self,
        path: &str,
        body: &str,
        content_type: &str,
        secret: &str,
        timestamp: u64,
        extra: &[(&str, &str)],
    ) -> (u16, String, Duration) {
        let timestamp = timestamp.to_string();
        let mut request = self
            .http
            .post(self.url(path))
            .header("content-type", content_type)
            .header("x-slack-request-timestamp", &timestamp)
            .header("x-slack-signature", sign_request(secret, &timestamp, body))
            .body(body.to_string());
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        let started = Instant::now();
        let response = request.send().await.expect("request");
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        (status, text, started.elapsed())
    }

    /// POSTs a JSON `body` to `path`, signed now with the right secret.
    pub async fn post_json(&self, path: &str, body: &str) -> (u16, String, Duration) {
        self.post_signed(path, body, "application/json", SECRET, unix_now(), &[])
            .await
    }

    /// Sends `callback` (an `event_callback` as Slack sends it), signed.
    pub async fn callback(&self, callback: &Value) -> (u16, String, Duration) {
        self.post_json("/slack/events", &callback.to_string()).await
    }

    /// Sends `event` in a signed `event_callback` with `event_id`, plus `extra` headers.
    pub async fn event(
        &self,
        event_id: &str,
        event: Value,
        extra: &[(&str, &str)],
    ) -> (u16, String, Duration) {
        let body = event_callback(event_id, event).to_string();
        self.post_signed(
            "/slack/events",
            &body,
            "application/json",
            SECRET,
            unix_now(),
            extra,
        )
        .await
    }

    /// Runs `/sources text` in [`CHANNEL`], answering to the response URL `response_id`.
    pub async fn command(&self, text: &str, response_id: &str) -> (u16, String, Duration) {
        self.command_by("U1", text, response_id).await
    }

    /// [`Harness::command`] run by `user`.
    pub async fn command_by(
        &self,
        user: &str,
        text: &str,
        response_id: &str,
    ) -> (u16, String, Duration) {
        let body = serde_urlencoded::to_string([
            ("token", "x"),
            ("team_id", "T0001"),
            ("team_domain", "acme"),
            ("channel_id", CHANNEL),
            ("channel_name", "general"),
            ("user_id", user),
            ("user_name", "ada"),
            ("command", "/sources"),
            ("text", text),
            ("response_url", &self.slack.response_url(response_id)),
            ("trigger_id", &trigger_id()),
        ])
        .expect("form");
        self.post_signed(
            "/slack/commands",
            &body,
            "application/x-www-form-urlencoded",
            SECRET,
            unix_now(),
            &[],
        )
        .await
    }

    /// Sends an interaction `payload`, signed, as Slack's form post.
    pub async fn interaction(&self, payload: Value) -> (u16, String, Duration) {
        let body = serde_urlencoded::to_string([("payload", payload.to_string())]).expect("form");
        self.post_signed(
            "/slack/interactions",
            &body,
            "application/x-www-form-urlencoded",
            SECRET,
            unix_now(),
            &[],
        )
        .await
    }
}

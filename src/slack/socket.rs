//! Socket Mode: when an app token is set, the bot opens a WebSocket to Slack instead of
//! serving public URLs. slack-morphism's clients manager keeps the connection
//! (`apps.connections.open`, reconnecting when Slack says `disconnect` or the socket
//! drops); this module is its listener, and reads each frame as the JSON Slack sent —
//! not through slack-morphism's typed models, which drop fields the message reader
//! needs (attachments' `title_link`, `from_url`…). Each envelope is acknowledged when
//! [`RawListener::on_message`] returns, and the read loop waits for that, so it only
//! reads the request into a job, spawns it and returns: Slack gets its ack at once.

use super::workspace::WorkspaceKey;
use super::Bot;
use crate::collect::slack_message::lenient;
use async_trait::async_trait;
use serde_json::{json, Value};
use slack_morphism::prelude::*;
use slack_morphism::socket_mode::clients_manager::{
    SlackSocketModeClientsManager, SlackSocketModeClientsManagerFactory,
};
use std::sync::{Arc, OnceLock, Weak};

type Manager = dyn SlackSocketModeClientsManager + Send + Sync;

/// Connects with `app_token` and serves until the process is told to stop.
pub async fn serve(
    bot: Arc<Bot>,
    app_token: &str,
) -> Result<(), slack_morphism::errors::SlackClientError> {
    let client = bot.base_api().client();
    let environment = Arc::new(
        SlackClientEventsListenerEnvironment::new(client.clone()).with_error_handler(on_error),
    );
    let manager: Arc<Manager> = client.http_api.connector.new_clients_manager(environment);
    let listener = Arc::new(RawListener {
        bot,
        manager: OnceLock::new(),
    });
    let _ = listener.manager.set(Arc::downgrade(&manager));
    manager
        .register_new_token(
            &SlackClientSocketModeConfig::new(),
            SlackApiToken::new(app_token.to_string().into()),
            listener,
        )
        .await?;
    tracing::info!("Socket Mode connected");
    manager.start().await;
    manager.await_term_signals().await;
    manager.shutdown().await;
    Ok(())
}

/// Reads Socket Mode frames as JSON and hands them to the bot.
pub struct RawListener {
    bot: Arc<Bot>,
    manager: OnceLock<Weak<Manager>>,
}

impl RawListener {
    fn manager(&self) -> Option<Arc<Manager>> {
        self.manager.get().and_then(Weak::upgrade)
    }

    /// What to do with one envelope; returns its acknowledgement's payload, if any.
    async fn envelope(&self, kind: &str, payload: &Value) -> Option<Value> {
        match kind {
            "events_api" => {
                self.bot.accept_event(payload).await;
                None
            }
            "interactive" => self.bot.accept_interaction(payload).await,
            "slash_commands" => {
                let command: SlackCommandEvent = match serde_json::from_value(payload.clone()) {
                    Ok(command) => command,
                    Err(error) => {
                        tracing::warn!(%error, "unreadable slash command");
                        return None;
                    }
                };
                let workspace = WorkspaceKey::of_command(|name| {
                    payload.get(name).and_then(|value| match value {
                        Value::String(text) => Some(text.clone()),
                        Value::Bool(flag) => Some(flag.to_string()),
                        _ => None,
                    })
                });
                let text = self.bot.accept_command(&command, workspace).await;
                Some(json!({ "response_type": "ephemeral", "text": text }))
            }
            other => {
                tracing::debug!(kind = other, "ignored a Socket Mode envelope");
                None
            }
        }
    }
}

#[async_trait]
impl SlackSocketModeClientListener for RawListener {
    async fn on_message(
        &self,
        client_id: &SlackSocketModeWssClientId,
        message_body: String,
    ) -> Option<String> {
        let frame = match lenient::parse(&message_body) {
            Ok((frame, _)) => frame,
            Err(error) => {
                tracing::warn!(%error, "an unreadable Socket Mode frame");
                return None;
            }
        };
        let kind = frame.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "hello" => return None,
            "disconnect" => {
                tracing::info!(reason = ?frame.get("reason"), "Slack asks to reconnect");
                if let Some(manager) = self.manager() {
                    manager.restart_client(client_id).await;
                }
                return None;
            }
            _ => {}
        }
        let envelope_id = frame
            .get("envelope_id")
            .and_then(Value::as_str)?
            .to_string();
        let payload = frame.get("payload").cloned().unwrap_or(Value::Null);
        let mut ack = json!({ "envelope_id": envelope_id });
        if let Some(reply) = self.envelope(kind, &payload).await {
            ack["payload"] = reply;
        }
        Some(ack.to_string())
    }

    async fn on_error(&self, error: Box<dyn std::error::Error + Send + Sync>) {
        tracing::warn!(%error, "Socket Mode error");
    }

    async fn on_disconnect(&self, client_id: &SlackSocketModeWssClientId) {
        if let Some(manager) = self.manager() {
            manager.restart_client(client_id).await;
        }
    }
}

fn on_error(
    error: Box<dyn std::error::Error + Send + Sync>,
    _client: Arc<SlackHyperClient>,
    _states: SlackClientEventsUserState,
) -> axum::http::StatusCode {
    tracing::warn!(%error, "Socket Mode error");
    axum::http::StatusCode::OK
}

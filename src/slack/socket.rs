//! Socket Mode: when an app token is set, the bot opens a WebSocket to Slack instead of
//! serving public URLs. slack-morphism's listener keeps the connection (reconnecting as
//! Slack asks) and acknowledges each envelope when its callback returns, so the
//! callbacks only read the request into a job, spawn it and return.

use super::inbound::{command_job, interaction_job, Job, USAGE};
use super::Bot;
use slack_morphism::prelude::*;
use std::sync::Arc;

/// The bot, as the listener's user state.
struct BotState(Arc<Bot>);

/// Connects with `app_token` and serves until the process is told to stop.
pub async fn serve(
    bot: Arc<Bot>,
    app_token: &str,
) -> Result<(), slack_morphism::errors::SlackClientError> {
    let client = bot.api().client();
    let callbacks = SlackSocketModeListenerCallbacks::new()
        .with_push_events(on_push)
        .with_command_events(on_command)
        .with_interaction_events(on_interaction);
    let environment = Arc::new(
        SlackClientEventsListenerEnvironment::new(client)
            .with_error_handler(on_error)
            .with_user_state(BotState(bot)),
    );
    let listener = SlackClientSocketModeListener::new(
        &SlackClientSocketModeConfig::new(),
        environment,
        callbacks,
    );
    listener
        .listen_for(&SlackApiToken::new(app_token.to_string().into()))
        .await?;
    tracing::info!("Socket Mode connected");
    listener.serve().await;
    Ok(())
}

async fn bot_of(states: &SlackClientEventsUserState) -> Option<Arc<Bot>> {
    states
        .read()
        .await
        .get_user_state::<BotState>()
        .map(|state| state.0.clone())
}

async fn on_push(
    event: SlackPushEventCallback,
    _client: Arc<SlackHyperClient>,
    states: SlackClientEventsUserState,
) -> UserCallbackResult<()> {
    if let Some(bot) = bot_of(&states).await {
        bot.accept_event(&event);
    }
    Ok(())
}

async fn on_command(
    event: SlackCommandEvent,
    _client: Arc<SlackHyperClient>,
    states: SlackClientEventsUserState,
) -> UserCallbackResult<SlackCommandEventResponse> {
    let text = match (bot_of(&states).await, command_job(&event)) {
        (_, Job::Usage { .. }) => USAGE.to_string(),
        (_, Job::Refuse { why, .. }) => why,
        (Some(bot), job) => {
            bot.spawn(job);
            "Checking the sources…".to_string()
        }
        (None, _) => "sourcebot is starting; try again in a moment.".to_string(),
    };
    Ok(SlackCommandEventResponse::new(
        SlackMessageContent::new().with_text(text),
    ))
}

async fn on_interaction(
    event: SlackInteractionEvent,
    _client: Arc<SlackHyperClient>,
    states: SlackClientEventsUserState,
) -> UserCallbackResult<()> {
    if let (Some(bot), Some(job)) = (bot_of(&states).await, interaction_job(&event)) {
        bot.spawn(job);
    }
    Ok(())
}

fn on_error(
    error: Box<dyn std::error::Error + Send + Sync>,
    _client: Arc<SlackHyperClient>,
    _states: SlackClientEventsUserState,
) -> axum::http::StatusCode {
    tracing::warn!(%error, "Socket Mode error");
    axum::http::StatusCode::OK
}

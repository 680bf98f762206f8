//! `sourcebot serve`, wired so that each endpoint depends on what it needs and nothing
//! else. From the first moment the process listens: `/healthz`, `/readyz` (each part's
//! health), `/metrics`, and the answer API's `POST /v1/check`, whose pipeline needs
//! neither Slack nor a database. Meanwhile a task brings up the database (installations,
//! or the workspace settings file) and signs in to Slack, each tried again with
//! back-off while it cannot be reached; until both are up, Slack's routes answer 503
//! (Slack delivers again) and `/v1/answers` answers 503 naming Slack. Once up, the Slack
//! routes open and Slack links in `/v1/check` answers are checked through the bot token.

use crate::api::{self, ApiSettings, ApiState, Gate, SlackRoutes};
use crate::config::Config;
use crate::health::{Part, Status};
use crate::install::{
    self, lifecycle::StoreInstallations, oauth::OAuthSettings, rotation::Rotator,
    routes::InstallService,
};
use crate::metrics::Metrics;
use crate::pipeline::Pipeline;
use crate::slack::api::SlackApi;
use crate::slack::permalinks::SlackLinksOnceSignedIn;
use crate::slack::{self, Bot, SlackSettings, Transport};
use crate::state::BotState;
use crate::store::installations::{InstallationStore, SqlStore, StoreError};
use crate::store::workspace_data::WorkspaceData;
use anyhow::Context;
use std::sync::Arc;
use std::time::Duration;

/// The first wait before trying Slack or the database again; it doubles each time.
const FIRST_RETRY: Duration = Duration::from_secs(2);
/// The longest wait between two tries.
const LONGEST_RETRY: Duration = Duration::from_secs(60);

/// Serves until Ctrl-C or SIGTERM: see the module's description.
pub async fn run(
    settings: SlackSettings,
    api_settings: ApiSettings,
    oauth: Option<OAuthSettings>,
    config: Config,
) -> anyhow::Result<()> {
    crate::verify::install_crypto_provider();
    let metrics = Metrics::new();
    let health = metrics.health();
    health.set(Part::Slack, Status::Starting);
    health.set(Part::Database, Status::Starting);
    let listener = tokio::net::TcpListener::bind(settings.listen)
        .await
        .with_context(|| format!("cannot listen on {}", settings.listen))?;
    let state = Bot::state_from(&settings, &metrics)?;
    // The pipeline exists from the first moment: /v1/check needs nothing else. Slack
    // links in its answers wait for the bot token's sign-in to be checked.
    let slack_links = Arc::new(SlackLinksOnceSignedIn::new());
    let mut pipeline = Pipeline::builder()
        .config(config)
        .metrics(metrics.clone())
        .shared_state(state.clone());
    if settings.bot_token.is_some() {
        pipeline = pipeline.internal_checker(slack_links.clone());
    }
    let pipeline = Arc::new(pipeline.build()?);
    let routes = match settings.transport {
        Transport::Http { .. } => SlackRoutes::Http,
        Transport::Socket { .. } => SlackRoutes::Socket,
    };
    let api_state = ApiState::starting(
        pipeline.clone(),
        metrics.clone(),
        state.clone(),
        api_settings.clone(),
        routes,
    );
    let gate = Gate::new(metrics.clone());
    let app = api::count_requests(
        api::routes(api_state.clone()).merge(slack::http::health_router()),
        metrics.clone(),
    )
    .fallback_service(gate.router());
    let http = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(stop_signal())
            .await
    });
    if api_settings.enabled() {
        tracing::info!(
            tokens = api_settings.tokens.len(),
            "answer API on: POST /v1/check, POST /v1/answers, MCP at /mcp"
        );
    } else {
        tracing::info!(
            "answer API off: set SOURCEBOT_API_TOKEN to serve /v1/check and /v1/answers"
        );
    }
    let parts = BringUp {
        settings: &settings,
        oauth,
        pipeline,
        metrics: metrics.clone(),
        state,
        api_state: api_state.clone(),
    };
    let (bot, install) = tokio::select! {
        up = parts.run() => up?,
        _ = stop_signal() => {
            tracing::info!("stopped before signing in");
            return Ok(());
        }
    };
    if let Some(home) = bot.workspaces().home() {
        slack_links.attach(home.permalinks.clone());
    }
    api_state.signed_in(bot.clone());
    let install_routes = install.map(|install| install.routes(&bot));
    match &settings.transport {
        Transport::Http { signing_secret } => {
            let mut slack_routes =
                slack::http::router(bot, signing_secret, settings.max_body_bytes);
            if let Some(install_routes) = install_routes {
                slack_routes = slack_routes.merge(install_routes);
            }
            gate.open(api::count_requests(
                api::fallbacks(slack_routes),
                metrics.clone(),
            ));
            tracing::info!(listen = %settings.listen, "serving Slack over HTTP");
            http.await
                .context("the HTTP server failed")?
                .context("the HTTP server stopped")?;
        }
        Transport::Socket { app_token } => {
            let routes = install_routes.unwrap_or_default();
            gate.open(api::count_requests(api::fallbacks(routes), metrics.clone()));
            tracing::info!(listen = %settings.listen, "serving /healthz, /readyz, /metrics and the answer API; Slack over Socket Mode");
            tokio::select! {
                socket = slack::socket::serve(bot, app_token) => socket.context("Socket Mode failed")?,
                _ = stop_signal() => {}
            }
        }
    }
    tracing::info!("stopped");
    Ok(())
}

/// What bringing up the database and Slack needs.
struct BringUp<'a> {
    settings: &'a SlackSettings,
    oauth: Option<OAuthSettings>,
    pipeline: Arc<Pipeline>,
    metrics: Arc<Metrics>,
    state: Arc<dyn BotState>,
    api_state: Arc<ApiState>,
}

impl BringUp<'_> {
    /// Opens the database, then signs in to Slack, each tried again (after 2 s, then
    /// up to a minute apart) while it cannot be reached; a setting that cannot work
    /// (a bad database URL, a token Slack refuses) ends it. `/readyz` shows each
    /// part's last failure meanwhile.
    async fn run(self) -> anyhow::Result<(Arc<Bot>, Option<Install>)> {
        let health = self.metrics.health();
        let (install, data) = retrying(
            "the database",
            &self.metrics,
            Part::Database,
            || self.open_database(),
            |error: &anyhow::Error| {
                matches!(
                    error.downcast_ref::<StoreError>(),
                    Some(StoreError::Unreachable(_))
                )
                .then(|| format!("{error:#}"))
            },
        )
        .await?;
        health.ok(Part::Database);
        self.api_state.database(data.clone());
        let installations = install
            .as_ref()
            .map(|install| install.installations.clone());
        let bot = retrying(
            "Slack",
            &self.metrics,
            Part::Slack,
            || {
                Bot::start_with_pipeline(
                    self.settings,
                    self.pipeline.clone(),
                    self.metrics.clone(),
                    self.state.clone(),
                    installations.clone(),
                    Some(data.clone()),
                )
            },
            |error| match error {
                slack::StartError::SignIn(error)
                    if error.is_outage()
                        || matches!(error, slack::api::CallError::RateLimited { .. }) =>
                {
                    Some(error.to_string())
                }
                _ => None,
            },
        )
        .await?;
        if bot.identity().is_some() {
            health.ok(Part::Slack);
        } else {
            // Installed workspaces only: nothing to sign in to until a request names
            // one; its calls tell Slack's health.
            health.set(Part::Slack, Status::Unknown);
        }
        Ok((bot, install))
    }

    /// The installation store with OAuth, else the workspace settings database.
    async fn open_database(&self) -> anyhow::Result<(Option<Install>, Arc<dyn WorkspaceData>)> {
        match &self.oauth {
            Some(oauth) => {
                let install =
                    open_installations(oauth.clone(), self.settings, &self.metrics, &self.state)
                        .await?;
                let data = install.data.clone();
                Ok((Some(install), data))
            }
            None => Ok((None, open_workspace_data().await?)),
        }
    }
}

/// Runs `attempt` until it works, waiting 2 s, 4 s… (at most a minute) after each
/// failure `unreachable` describes (`what` could not be reached: logged, and told to
/// `part`'s health for `/readyz`); any other failure ends it.
async fn retrying<T, E, F, Fut>(
    what: &str,
    metrics: &Metrics,
    part: Part,
    mut attempt: F,
    unreachable: impl Fn(&E) -> Option<String>,
) -> Result<T, E>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
{
    let mut wait = FIRST_RETRY;
    loop {
        let error = match attempt().await {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        let Some(shown) = unreachable(&error) else {
            return Err(error);
        };
        tracing::warn!(error = %shown, retry_in_s = wait.as_secs(), "cannot reach {what}; trying again");
        metrics.health().failed(part, &shown);
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(LONGEST_RETRY);
    }
}

/// The installation store, opened (and migrated) at `SOURCEBOT_DATABASE_URL`, and what
/// is built on it: the bot's view of it, and the install routes and token rotation
/// once the bot runs.
struct Install {
    oauth: OAuthSettings,
    store: Arc<dyn InstallationStore>,
    installations: Arc<dyn slack::Installations>,
    /// The same database, for workspaces' settings, report history and feedback.
    data: Arc<dyn WorkspaceData>,
    /// A Slack client without a token, for `oauth.v2.access`.
    slack: Arc<SlackApi>,
}

async fn open_installations(
    oauth: OAuthSettings,
    settings: &SlackSettings,
    metrics: &Arc<Metrics>,
    state: &Arc<dyn BotState>,
) -> anyhow::Result<Install> {
    let store = Arc::new(
        SqlStore::connect(&oauth.database_url, oauth.token_key.clone())
            .await
            .context("cannot open the installation store")?,
    );
    let data: Arc<dyn WorkspaceData> = store.clone();
    let store: Arc<dyn InstallationStore> = store;
    let slack = Arc::new(
        SlackApi::new(&settings.api_url, "", settings.call_timeout)?
            .with_metrics(metrics.clone())
            .with_state(state.clone()),
    );
    Ok(Install {
        oauth,
        installations: Arc::new(StoreInstallations {
            store: store.clone(),
        }),
        data,
        store,
        slack,
    })
}

impl Install {
    /// `/slack/install` and `/slack/oauth_redirect`; starts refreshing rotating tokens.
    fn routes(self, bot: &Arc<Bot>) -> axum::Router {
        tracing::info!(
            redirect_uri = %self.oauth.redirect_uri(),
            "installing in workspaces: GET /slack/install; rotating tokens refreshed before they expire"
        );
        Arc::new(Rotator {
            settings: self.oauth.clone(),
            store: self.store.clone(),
            state: bot.state().clone(),
            slack: self.slack.clone(),
            holder: bot.holder().to_string(),
        })
        .spawn();
        install::routes::router(Arc::new(InstallService {
            settings: self.oauth,
            store: self.store,
            state: bot.state().clone(),
            slack: self.slack,
        }))
    }
}

/// The database of workspaces' settings, report history and feedback when the bot
/// serves one workspace with its token: `SOURCEBOT_DATABASE_URL`, default
/// `sqlite://sourcebot.db` (created if missing).
async fn open_workspace_data() -> anyhow::Result<Arc<dyn WorkspaceData>> {
    let url = install::feedback_export::database_url(|name| std::env::var(name).ok());
    let store = SqlStore::connect_for_data(&url).await.with_context(|| {
        format!(
            "cannot open the workspace database at {}",
            crate::state::redis::without_secrets(&url)
        )
    })?;
    Ok(Arc::new(store))
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn stop_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(terminate) => terminate,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

//! The installation store as the bot sees it ([`crate::slack::Installations`]): each
//! request's workspace gets its bot token and identity from the stored installation,
//! and when Slack says the app was uninstalled from a workspace or organization
//! (`app_uninstalled`), or its bot token revoked (`tokens_revoked` with bot tokens),
//! the installation is deleted, so nothing is done there with a token Slack no longer
//! honours (the bot deletes the workspace's shared state itself).

use crate::slack::workspace::{InstallationsError, WorkspaceCredentials};
use crate::slack::Installations;
use crate::store::installations::{InstallationStore, WorkspaceKey};
use std::sync::Arc;

/// The bot's view of the installation store.
pub struct StoreInstallations {
    /// The installations.
    pub store: Arc<dyn InstallationStore>,
}

#[async_trait::async_trait]
impl Installations for StoreInstallations {
    async fn credentials(
        &self,
        key: &WorkspaceKey,
    ) -> Result<Option<WorkspaceCredentials>, InstallationsError> {
        let found = self
            .store
            .find(key)
            .await
            .map_err(|error| InstallationsError(error.to_string()))?;
        Ok(found.map(|installation| WorkspaceCredentials {
            key: installation.key(),
            bot_token: installation.bot_token,
            bot_user_id: installation.bot_user_id,
            bot_id: installation.bot_id,
            installer_user_id: installation.installer_user_id,
        }))
    }

    async fn uninstalled(&self, key: &WorkspaceKey) {
        let workspace = key.scope().to_string();
        match self.store.delete(key).await {
            Ok(true) => tracing::info!(%workspace, "uninstalled: the installation is deleted"),
            Ok(false) => {
                tracing::debug!(%workspace, "uninstalled: no installation was stored")
            }
            Err(error) => {
                tracing::warn!(%workspace, %error, "cannot delete an uninstalled installation")
            }
        }
    }
}

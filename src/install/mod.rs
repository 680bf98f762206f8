//! Installing sourcebot into many Slack workspaces: the OAuth v2 install flow
//! ([`oauth`], [`routes`]) and the installations it stores (one per workspace, or per
//! Enterprise Grid organization for org-wide installs), kept in a SQL database with
//! their tokens encrypted at rest ([`store`], [`token_key`]).

pub mod feedback_export;
pub mod lifecycle;
pub mod oauth;
pub mod rotation;
pub mod routes;
pub mod store;
pub mod token_key;
pub mod workspace_data;

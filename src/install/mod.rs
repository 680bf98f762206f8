//! Installing sourcebot into many Slack workspaces: the OAuth v2 install flow
//! ([`oauth`], [`routes`]), the bot's view of the installations ([`lifecycle`]), token
//! rotation ([`rotation`]) and the feedback export ([`feedback_export`]). The
//! installations themselves are kept by [`crate::store`].

pub mod feedback_export;
pub mod lifecycle;
pub mod oauth;
pub mod rotation;
pub mod routes;

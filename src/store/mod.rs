//! What sourcebot keeps in its SQL database (SQLite by default, PostgreSQL for
//! replicas), behind interfaces the adapters use: the installations of the app, one per
//! workspace or Enterprise Grid organization, with their tokens encrypted at rest
//! ([`installations`], [`token_key`]), and each workspace's settings, report history
//! and feedback ([`workspace_data`]). The schema is the embedded migrations in
//! `src/store/migrations`. The Slack bot and the install flow both use this module;
//! it uses neither.

pub mod installations;
pub mod token_key;
pub mod workspace_data;

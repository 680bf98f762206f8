//! Credibility and confidence: how far each source, and the whole answer, can be
//! trusted. [`confidence`] holds the formulas and their weights, [`classify`] the claim
//! types and which sources suit them.

pub mod classify;
pub mod confidence;

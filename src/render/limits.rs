//! Slack's limits on a modal view, which the evidence modal is built within
//! ([`super::evidence::modal`]) and which the Block Kit checks name when a view breaks
//! one ([`super::blocks::BlockLimitError`]).

/// At most this many blocks in a modal (Slack's limit).
pub const MAX_VIEW_BLOCKS: usize = 100;
/// At most this many characters in a modal's title and close button (Slack's limit).
pub const MAX_VIEW_TITLE: usize = 24;
/// At most this many characters of block text in a modal: sourcebot's own bound, so a
/// kept view stays small in the shared state (about 40 kB) and quick to open.
pub const MAX_VIEW_TEXT: usize = 40_000;

//! How long a title made from a link may be, and the cut that keeps it so: shared by
//! the titles made from a URL's host and path ([`super::canon`]) and those a site's own
//! link form gives ([`super::link_title`]).

/// Longest title [`super::canon::title_from_url`] makes, in characters.
pub const MAX_TITLE_CHARS: usize = 60;

/// The first `MAX_TITLE_CHARS - 1` characters and `…`, or all of `s` when it fits.
pub(super) fn cut(s: &str) -> String {
    match s.char_indices().nth(MAX_TITLE_CHARS) {
        None => s.to_owned(),
        Some(_) => {
            let end = s
                .char_indices()
                .nth(MAX_TITLE_CHARS - 1)
                .map_or(s.len(), |(i, _)| i);
            format!("{}…", &s[..end])
        }
    }
}

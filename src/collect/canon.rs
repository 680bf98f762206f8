//! Canonical URLs and readable titles made from URLs. Sources are deduplicated on
//! the canonical form of their link: scheme and host lower-cased (IDN hosts in
//! punycode), trailing host dot, default port and fragment dropped (SPA routes such
//! as `#/page` kept), and tracking parameters (`utm_*`, `fbclid`, … see
//! [`TRACKING_PARAMS`]) removed from the query while every other parameter keeps its
//! order and spelling. When a source has no title worth showing, [`title_from_url`]
//! makes one (site by site where host and path alone would give many pages the same
//! title: see [`super::link_title`]), and [`title_is_just_url`] tells whether a given
//! title is such a case.

use url::Url;

/// Why a link could not be canonicalised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonError {
    /// Nothing but whitespace.
    #[error("empty link")]
    Empty,
    /// Longer than [`MAX_URL_BYTES`] (before or after canonicalisation).
    #[error("link is {len} bytes long, more than the {max} allowed")]
    TooLong {
        /// Length in bytes.
        len: usize,
        /// The limit, [`MAX_URL_BYTES`].
        max: usize,
    },
    /// A scheme other than http or https (`mailto`, `ftp`, `javascript`…).
    #[error("not an http or https link (scheme `{scheme}`)")]
    NotHttp {
        /// The scheme, lower-cased and cut to 32 characters.
        scheme: String,
    },
    /// Not a URL the `url` crate accepts, or no scheme at all.
    #[error("not a valid link: {reason}")]
    Unparseable {
        /// A few words saying why.
        reason: String,
    },
    /// An http or https link without a host (`https://`).
    #[error("link has no host")]
    NoHost,
}

/// Longest URL accepted, in bytes (16 KiB). Longer input -> [`CanonError::TooLong`].
pub const MAX_URL_BYTES: usize = 16 * 1024;

/// Query parameters that only track the click and never change the page, removed
/// by [`canonicalize`] (names compared ASCII case-insensitively). Every parameter
/// whose name starts with [`TRACKING_PREFIX`] is removed as well.
pub const TRACKING_PARAMS: &[&str] = &[
    "fbclid",
    "gclid",
    "dclid",
    "gbraid",
    "wbraid",
    "msclkid",
    "mc_cid",
    "mc_eid",
    "ref_src",
    "igshid",
    "_hsenc",
    "_hsmi",
    "yclid",
    "_ga",
    "_gl",
    "mkt_tok",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
    "spm",
];

/// Name prefix of Google Analytics campaign parameters (`utm_source`, `utm_medium`…),
/// all removed by [`canonicalize`] (compared ASCII case-insensitively).
pub const TRACKING_PREFIX: &str = "utm_";

use super::title::cut;
pub use super::title::MAX_TITLE_CHARS;

/// Longest scheme kept in [`CanonError::NotHttp`].
const MAX_SCHEME_CHARS: usize = 32;

/// Last path segments that name a directory's default page, dropped from titles.
const INDEX_PAGES: &[&str] = &[
    "index.html",
    "index.htm",
    "index.shtml",
    "index.php",
    "index.asp",
    "index.aspx",
    "index.jsp",
    "default.html",
    "default.htm",
    "default.asp",
    "default.aspx",
];

/// Canonical form of an http/https link, the key sources are deduplicated on.
///
/// Surrounding whitespace is trimmed and a scheme-less `www.` link gets `https://`.
/// Userinfo is kept as written; refusing it is the verifier's job.
pub fn canonicalize(raw: &str) -> Result<String, CanonError> {
    canonical_url(raw).map(String::from)
}

/// The canonical form of an http/https link as a parsed [`Url`], for callers that go on
/// to read its host and path ([`crate::collect::kind::classify_url`],
/// [`title_from_canonical`]) without parsing it again. [`canonicalize`] is its string
/// form; the rules are the same.
pub fn canonical_url(raw: &str) -> Result<Url, CanonError> {
    let trimmed = raw.trim();
    check_len(trimmed.len())?;
    let mut url = if has_http_scheme(trimmed) {
        parse(trimmed)?
    } else if starts_with_ignore_case(trimmed, "www.") {
        parse(&format!("https://{trimmed}"))?
    } else {
        return Err(scheme_error(trimmed));
    };
    strip_host_trailing_dot(&mut url)?;
    strip_tracking_params(&mut url);
    if !url.fragment().is_some_and(is_spa_route) {
        url.set_fragment(None);
    }
    check_len(url.as_str().len())?;
    Ok(url)
}

/// A readable title made from a canonical URL. Links of sites where many pages share a
/// host and path (a YouTube video, a search, a Google Doc) get the title their row of
/// [`super::link_title::QUIRKS`] gives, e.g. `YouTube video dQw4w9WgXcQ` or
/// `Google search: tide times`. Any other: host (without a leading `www.`) plus the
/// path trimmed (percent-decoded when that gives valid UTF-8, trailing slash and
/// `index.html`-style endings dropped, long paths shortened with `…` to about
/// [`MAX_TITLE_CHARS`] characters), e.g. `https://www.example.com/docs/guide/` ->
/// `example.com/docs/guide`. A non-default port is kept; query and fragment are not.
/// Something that is not a URL with a host gives itself, shortened, or `link` when
/// blank. Never empty.
pub fn title_from_url(url: &str) -> String {
    let trimmed = url.trim();
    let parsed = Url::parse(trimmed)
        .ok()
        .or_else(|| canonicalize(trimmed).ok().and_then(|c| Url::parse(&c).ok()));
    match parsed {
        Some(u) if u.host_str().is_some_and(|h| !h.is_empty()) => title_from_parsed(&u),
        _ => fallback_title(trimmed),
    }
}

/// Whether a title says no more than the URL itself (empty, whitespace, equal to the URL
/// as written or canonical, or the URL without scheme / `www.` / trailing slash, or
/// the title [`title_from_url`] would make), so that a better title may replace it.
pub fn title_is_just_url(title: &str, url: &str) -> bool {
    let title = title.trim();
    let url = url.trim();
    if title.is_empty() || title == url || bare(title).eq_ignore_ascii_case(bare(url)) {
        return true;
    }
    if title.contains(char::is_whitespace) {
        // Words: a title from a row of the quirks table, or a path with spaces.
        return title == title_from_url(url);
    }
    if let Ok(canon_url) = canonicalize(url) {
        if bare(title).eq_ignore_ascii_case(bare(&canon_url))
            || canonicalize(title).is_ok_and(|t| t == canon_url)
        {
            return true;
        }
    }
    title == title_from_url(url)
}

fn check_len(len: usize) -> Result<(), CanonError> {
    if len == 0 {
        Err(CanonError::Empty)
    } else if len > MAX_URL_BYTES {
        Err(CanonError::TooLong {
            len,
            max: MAX_URL_BYTES,
        })
    } else {
        Ok(())
    }
}

fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

fn has_http_scheme(s: &str) -> bool {
    starts_with_ignore_case(s, "http://") || starts_with_ignore_case(s, "https://")
}

fn parse(s: &str) -> Result<Url, CanonError> {
    match Url::parse(s) {
        Ok(url) if url.host_str().is_some_and(|h| !h.is_empty()) => Ok(url),
        Ok(_) | Err(url::ParseError::EmptyHost) => Err(CanonError::NoHost),
        Err(e) => Err(CanonError::Unparseable {
            reason: e.to_string(),
        }),
    }
}

/// The error for a link that does not start with `http://`, `https://` or `www.`.
fn scheme_error(s: &str) -> CanonError {
    let Some((scheme, rest)) = s.split_once(':') else {
        return unparseable("no http:// or https:// scheme");
    };
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    // `example.com:8080/x` is a host and port, not a scheme.
    if !valid || rest.starts_with(|c: char| c.is_ascii_digit()) {
        return unparseable("no http:// or https:// scheme");
    }
    let mut scheme = scheme.to_ascii_lowercase();
    if scheme == "http" || scheme == "https" {
        return unparseable("expected // after the scheme");
    }
    scheme.truncate(MAX_SCHEME_CHARS);
    CanonError::NotHttp { scheme }
}

fn unparseable(reason: &str) -> CanonError {
    CanonError::Unparseable {
        reason: reason.to_owned(),
    }
}

/// `example.com.` and `example.com` are the same host.
fn strip_host_trailing_dot(url: &mut Url) -> Result<(), CanonError> {
    let Some(url::Host::Domain(domain)) = url.host() else {
        return Ok(());
    };
    if !domain.ends_with('.') {
        return Ok(());
    }
    let stripped = domain.trim_end_matches('.').to_owned();
    if stripped.is_empty() {
        return Err(CanonError::NoHost);
    }
    url.set_host(Some(&stripped))
        .map_err(|e| CanonError::Unparseable {
            reason: e.to_string(),
        })
}

fn is_tracking_param(pair: &str) -> bool {
    let name = pair.split_once('=').map_or(pair, |(name, _)| name);
    starts_with_ignore_case(name, TRACKING_PREFIX)
        || TRACKING_PARAMS.iter().any(|p| p.eq_ignore_ascii_case(name))
}

/// Removes tracking parameters and empty `&&` pieces from the raw query, without
/// decoding or re-encoding what stays; drops the `?` when nothing does.
fn strip_tracking_params(url: &mut Url) {
    let Some(query) = url.query() else {
        return;
    };
    let drop = |pair: &str| pair.is_empty() || is_tracking_param(pair);
    if !query.is_empty() && !query.split('&').any(drop) {
        return;
    }
    let mut kept = String::with_capacity(query.len());
    for pair in query.split('&').filter(|p| !drop(p)) {
        if !kept.is_empty() {
            kept.push('&');
        }
        kept.push_str(pair);
    }
    url.set_query((!kept.is_empty()).then_some(kept.as_str()));
}

/// `#/page` and `#!/page` name different pages of a single-page app.
fn is_spa_route(fragment: &str) -> bool {
    fragment.starts_with('/') || fragment.starts_with("!/")
}

/// [`title_from_url`] for a URL already parsed by [`canonical_url`].
pub fn title_from_canonical(url: &Url) -> String {
    if url.host_str().is_some_and(|h| !h.is_empty()) {
        title_from_parsed(url)
    } else {
        fallback_title(url.as_str())
    }
}

/// The title a row of [`super::link_title::QUIRKS`] gives `url`, else host and path.
fn title_from_parsed(url: &Url) -> String {
    if let Some(title) = super::link_title::title(url) {
        return title;
    }
    let full_host = url.host_str().unwrap_or_default();
    let full_host = match full_host.trim_end_matches('.') {
        "" => full_host,
        trimmed => trimmed,
    };
    let host = match full_host.strip_prefix("www.") {
        Some(rest) if !rest.is_empty() => rest,
        _ => full_host,
    };
    let host = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    };
    let decoded = percent_decode(url.path());
    let path = trim_path(decoded.as_deref().unwrap_or(url.path()));
    shorten(&host, path)
}

/// Drops trailing slashes and a last `index.html`-style segment.
fn trim_path(path: &str) -> &str {
    let path = path.trim_end_matches('/');
    let (dir, last) = path.rsplit_once('/').unwrap_or(("", path));
    if INDEX_PAGES.iter().any(|p| p.eq_ignore_ascii_case(last)) {
        dir.trim_end_matches('/')
    } else {
        path
    }
}

/// `host + path`, cut to about [`MAX_TITLE_CHARS`]: first `host/first/…/last`, then
/// `host/…/last`, then a plain cut with `…`.
fn shorten(host: &str, path: &str) -> String {
    let len = |s: &str| s.chars().count();
    if len(host) + len(path) <= MAX_TITLE_CHARS {
        return format!("{host}{path}");
    }
    let mut segments = path.split('/').filter(|s| !s.is_empty());
    let first = segments.next();
    if let (Some(first), Some(last)) = (first, segments.next_back()) {
        for candidate in [
            format!("{host}/{first}/…/{last}"),
            format!("{host}/…/{last}"),
        ] {
            if len(&candidate) <= MAX_TITLE_CHARS {
                return candidate;
            }
        }
    }
    cut(&format!("{host}{path}"))
}

/// The title of something that is not a URL with a host.
fn fallback_title(s: &str) -> String {
    let clean: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let clean = clean.trim();
    if clean.is_empty() {
        "link".to_owned()
    } else {
        cut(clean)
    }
}

/// Percent-decodes `s`; `None` when there is nothing to decode or the result is not
/// UTF-8 free of control characters.
fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return None;
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out)
        .ok()
        .filter(|d| !d.chars().any(char::is_control))
}

/// `s` without `http://` / `https://`, a leading `www.` and trailing slashes.
fn bare(s: &str) -> &str {
    let s = ["https://", "http://"]
        .iter()
        .find(|p| starts_with_ignore_case(s, p))
        .map_or(s, |p| &s[p.len()..]);
    let s = if starts_with_ignore_case(s, "www.") {
        &s[4..]
    } else {
        s
    };
    s.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Result<String, CanonError> {
        Ok(s.to_owned())
    }

    fn unparseable(reason: &str) -> Result<String, CanonError> {
        Err(CanonError::Unparseable {
            reason: reason.to_owned(),
        })
    }

    fn not_http(scheme: &str) -> Result<String, CanonError> {
        Err(CanonError::NotHttp {
            scheme: scheme.to_owned(),
        })
    }

    #[test]
    fn canonicalize_table() {
        let long = format!("https://example.com/{}", "a".repeat(20 * 1024));
        let table: Vec<(&str, Result<String, CanonError>)> = vec![
            // Whitespace, case, scheme-less www.
            ("  https://example.com/a  ", ok("https://example.com/a")),
            ("\n\thttps://example.com/a\r\n", ok("https://example.com/a")),
            ("HTTPS://Example.COM/Path", ok("https://example.com/Path")),
            ("hTtP://ExAmPlE.cOm/", ok("http://example.com/")),
            ("www.example.com", ok("https://www.example.com/")),
            ("WWW.Example.com/Path", ok("https://www.example.com/Path")),
            (
                "www.example.com/a?utm_medium=x",
                ok("https://www.example.com/a"),
            ),
            // Ports.
            (
                "HTTP://EXAMPLE.COM:80/A?b=1#frag",
                ok("http://example.com/A?b=1"),
            ),
            ("https://example.com:443/x", ok("https://example.com/x")),
            ("http://example.com:443/x", ok("http://example.com:443/x")),
            ("https://example.com:80/x", ok("https://example.com:80/x")),
            (
                "https://example.com:8443/x",
                ok("https://example.com:8443/x"),
            ),
            // Empty path, dot segments, case and encoding of the path.
            ("https://example.com", ok("https://example.com/")),
            (
                "https://example.com/a/./b/../c",
                ok("https://example.com/a/c"),
            ),
            (
                "https://example.com/Docs/README",
                ok("https://example.com/Docs/README"),
            ),
            (
                "https://example.com/a%2Fb%20c",
                ok("https://example.com/a%2Fb%20c"),
            ),
            ("https://example.com/a b", ok("https://example.com/a%20b")),
            // Fragments.
            (
                "https://example.com/a#section-2",
                ok("https://example.com/a"),
            ),
            ("https://example.com/a#", ok("https://example.com/a")),
            (
                "https://app.example.com/#/settings/profile",
                ok("https://app.example.com/#/settings/profile"),
            ),
            (
                "https://app.example.com/#!/inbox",
                ok("https://app.example.com/#!/inbox"),
            ),
            ("https://example.com/#!top", ok("https://example.com/")),
            // Tracking parameters.
            (
                "https://x.com/a?utm_source=chatgpt.com",
                ok("https://x.com/a"),
            ),
            (
                "https://example.com/a?id=7&utm_source=chatgpt.com&page=2",
                ok("https://example.com/a?id=7&page=2"),
            ),
            (
                "https://example.com/a?UTM_Campaign=x&q=1",
                ok("https://example.com/a?q=1"),
            ),
            (
                "https://example.com/?fbclid=abc&gclid=d&dclid=e&gbraid=f&wbraid=g",
                ok("https://example.com/"),
            ),
            (
                "https://example.com/?msclkid=1&mc_cid=2&mc_eid=3&ref_src=4&igshid=5&x=y",
                ok("https://example.com/?x=y"),
            ),
            (
                "https://example.com/?_hsenc=1&_hsmi=2&yclid=3&_ga=4&_gl=5&mkt_tok=6",
                ok("https://example.com/"),
            ),
            (
                "https://example.com/?oly_anon_id=1&oly_enc_id=2&vero_id=3&spm=4&keep",
                ok("https://example.com/?keep"),
            ),
            (
                "https://example.com/?FBCLID=1&b=2",
                ok("https://example.com/?b=2"),
            ),
            (
                "https://example.com/?utm_source",
                ok("https://example.com/"),
            ),
            (
                "https://example.com/?a=1%2B2&b=x+y&utm_term=z",
                ok("https://example.com/?a=1%2B2&b=x+y"),
            ),
            (
                "https://example.com/?b=2&a=1",
                ok("https://example.com/?b=2&a=1"),
            ),
            (
                "https://example.com/?source=x&utmost=1&ref=2",
                ok("https://example.com/?source=x&utmost=1&ref=2"),
            ),
            ("https://example.com/a?", ok("https://example.com/a")),
            (
                "https://example.com/a?&&x=1&",
                ok("https://example.com/a?x=1"),
            ),
            (
                "https://example.com/a?q=1#frag",
                ok("https://example.com/a?q=1"),
            ),
            // Hosts.
            ("https://example.com./a", ok("https://example.com/a")),
            ("http://[::1]:8080/x", ok("http://[::1]:8080/x")),
            ("http://[0:0:0:0:0:0:0:1]/", ok("http://[::1]/")),
            ("http://127.0.0.1:80/", ok("http://127.0.0.1/")),
            (
                "https://Bücher.example/",
                ok("https://xn--bcher-kva.example/"),
            ),
            (
                "https://user:pw@Example.com/",
                ok("https://user:pw@example.com/"),
            ),
            // Errors.
            ("", Err(CanonError::Empty)),
            ("   \n ", Err(CanonError::Empty)),
            ("https://", Err(CanonError::NoHost)),
            ("http:///", Err(CanonError::NoHost)),
            ("mailto:someone@example.com", not_http("mailto")),
            ("javascript:alert(1)", not_http("javascript")),
            ("JavaScript:alert(1)", not_http("javascript")),
            ("ftp://example.com/file.txt", not_http("ftp")),
            ("data:text/html,hi", not_http("data")),
            (
                "example.com/page",
                unparseable("no http:// or https:// scheme"),
            ),
            (
                "example.com:8080/page",
                unparseable("no http:// or https:// scheme"),
            ),
            (
                "//example.com/page",
                unparseable("no http:// or https:// scheme"),
            ),
            (
                "http:example.com",
                unparseable("expected // after the scheme"),
            ),
            // Reasons from the `url` crate: any reason will do.
            ("https://exa mple.com/", unparseable("*")),
            ("https://example.com:99999/", unparseable("*")),
            ("http://[::1/", unparseable("*")),
            ("https://exa<mple.com/", unparseable("*")),
            (
                long.as_str(),
                Err(CanonError::TooLong {
                    len: long.len(),
                    max: MAX_URL_BYTES,
                }),
            ),
        ];
        assert!(table.len() >= 35);
        for (input, expected) in &table {
            let got = canonicalize(input);
            match (&got, expected) {
                (Err(CanonError::Unparseable { .. }), Err(CanonError::Unparseable { reason }))
                    if reason == "*" => {}
                _ => assert_eq!(&got, expected, "input {input:?}"),
            }
        }
    }

    #[test]
    fn canonical_form_is_stable() {
        for input in [
            "HTTP://EXAMPLE.COM:80/A?b=1#frag",
            "https://Bücher.example./x?utm_source=a&b=1%2B2",
            "www.example.com/a b#/route",
        ] {
            let once = canonicalize(input).unwrap();
            assert_eq!(canonicalize(&once).unwrap(), once);
        }
    }

    #[test]
    fn too_long_after_encoding() {
        // Each space becomes `%20`, tripling the length past the limit.
        let input = format!("https://example.com/{}", " x".repeat(6000));
        assert!(input.len() <= MAX_URL_BYTES);
        assert!(matches!(
            canonicalize(&input),
            Err(CanonError::TooLong { .. })
        ));
    }

    #[test]
    fn exactly_max_is_accepted() {
        let prefix = "https://example.com/";
        let input = format!("{prefix}{}", "a".repeat(MAX_URL_BYTES - prefix.len()));
        assert_eq!(canonicalize(&input).unwrap().len(), MAX_URL_BYTES);
    }

    #[test]
    fn long_scheme_is_cut() {
        let input = format!("{}:x", "z".repeat(100));
        match canonicalize(&input) {
            Err(CanonError::NotHttp { scheme }) => assert_eq!(scheme.len(), MAX_SCHEME_CHARS),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn error_messages() {
        assert_eq!(CanonError::Empty.to_string(), "empty link");
        assert_eq!(
            CanonError::TooLong {
                len: 20000,
                max: MAX_URL_BYTES
            }
            .to_string(),
            "link is 20000 bytes long, more than the 16384 allowed"
        );
        assert_eq!(
            not_http("ftp").unwrap_err().to_string(),
            "not an http or https link (scheme `ftp`)"
        );
        assert_eq!(CanonError::NoHost.to_string(), "link has no host");
    }

    #[test]
    fn title_table() {
        let long_path = format!("https://example.com/docs/{}/end", "segment/".repeat(10));
        let long_segment = format!("https://example.com/{}", "x".repeat(100));
        let table: Vec<(&str, String)> = vec![
            (
                "https://www.example.com/docs/guide/",
                "example.com/docs/guide".into(),
            ),
            ("https://example.com/", "example.com".into()),
            ("https://www.example.com", "example.com".into()),
            ("https://example.com/a/index.html", "example.com/a".into()),
            ("https://example.com/a/Default.aspx", "example.com/a".into()),
            ("https://example.com/index.php", "example.com".into()),
            (
                "https://example.com/a/b.html?x=1#top",
                "example.com/a/b.html".into(),
            ),
            (
                "https://example.com/caf%C3%A9/na%C3%AFve",
                "example.com/café/naïve".into(),
            ),
            ("https://example.com/bad%FF", "example.com/bad%FF".into()),
            (
                "https://example.com/nl%0Ahere",
                "example.com/nl%0Ahere".into(),
            ),
            ("http://localhost:8080/x/", "localhost:8080/x".into()),
            ("https://www./", "www".into()),
            ("https://Example.com./a/", "example.com/a".into()),
            (
                "https://docs.example.com/Guide",
                "docs.example.com/Guide".into(),
            ),
            (
                "https://xn--bcher-kva.example/",
                "xn--bcher-kva.example".into(),
            ),
            (long_path.as_str(), "example.com/docs/…/end".into()),
            (
                long_segment.as_str(),
                format!("example.com/{}…", "x".repeat(47)),
            ),
            ("www.example.com/a/", "example.com/a".into()),
            (
                "mailto:someone@example.com",
                "mailto:someone@example.com".into(),
            ),
            ("   ", "link".into()),
            ("", "link".into()),
        ];
        for (input, expected) in &table {
            let title = title_from_url(input);
            assert_eq!(&title, expected, "input {input:?}");
            assert!(title.chars().count() <= MAX_TITLE_CHARS, "{title:?}");
        }
    }

    #[test]
    fn titles_that_are_just_the_url() {
        let url = "https://www.example.com/docs/";
        for title in [
            "",
            "   ",
            "https://www.example.com/docs/",
            "https://www.example.com/docs",
            "http://example.com/docs",
            "www.example.com/docs/",
            "example.com/docs",
            "EXAMPLE.COM/docs/",
            "https://www.example.com/docs/?utm_source=chatgpt.com",
            "https://WWW.example.com:443/docs/#intro",
        ] {
            assert!(title_is_just_url(title, url), "{title:?}");
        }
        assert!(title_is_just_url(
            "https://example.com/a",
            "https://example.com/a?utm_source=x"
        ));
        assert!(title_is_just_url(
            "example.com/a",
            "https://example.com/a/index.html"
        ));
        for title in [
            "Docs",
            "Example docs",
            "example.com/other",
            "https://example.com/docs/more",
            "example.com docs",
        ] {
            assert!(!title_is_just_url(title, url), "{title:?}");
        }
    }

    /// Deterministic xorshift generator, so the odd inputs are the same every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn odd_string(rng: &mut Rng) -> String {
        const PIECES: &[&str] = &[
            "http://",
            "https://",
            "HTTPS://",
            "www.",
            "ftp:",
            "mailto:",
            "%",
            "%2",
            "%zz",
            "%C3%A9",
            "%FF",
            "[",
            "]",
            "[::1]",
            "@",
            ":",
            ":80",
            ":443",
            ":99999",
            "/",
            "//",
            "/..",
            "/.",
            "?",
            "&",
            "&&",
            "=",
            "#",
            "#/",
            "#!/",
            "utm_source=x",
            "fbclid=1",
            "index.html",
            ".",
            "..",
            "xn--",
            "Bücher",
            "例え",
            "🦀",
            " ",
            "\t",
            "\n",
            "\0",
            "\\",
            "\u{202e}",
            "\u{feff}",
            "a",
            "example.com",
            "slack.com",
            "archives",
            "atlassian.net",
            "wiki",
            "*.",
            ",",
        ];
        const STARTS: &[&str] = &[
            "https://example.com/",
            "HTTP://Ex.COM:80",
            "www.a.b/",
            "http://[::1]",
        ];
        let mut s = String::new();
        if rng.below(2) == 0 {
            s.push_str(STARTS[rng.below(STARTS.len())]);
        }
        let parts = rng.below(12);
        for _ in 0..parts {
            match rng.below(4) {
                0 => {
                    let c = char::from_u32((rng.next() % 0x11_0000) as u32).unwrap_or('?');
                    s.push(c);
                }
                1 => s.push(char::from(rng.below(128) as u8)),
                _ => s.push_str(PIECES[rng.below(PIECES.len())]),
            }
        }
        if rng.below(50) == 0 {
            let piece = PIECES[rng.below(PIECES.len())];
            s.push_str(&piece.repeat(MAX_URL_BYTES / piece.len().max(1) + rng.below(3)));
        }
        s
    }

    #[test]
    fn odd_input_never_panics() {
        let mut rng = Rng(0x5eed_cafe_f00d_d00d);
        let mut accepted = 0;
        for _ in 0..2_000 {
            let s = odd_string(&mut rng);
            let title = title_from_url(&s);
            assert!(!title.is_empty());
            let _ = title_is_just_url(&s, &s);
            if let Ok(canon) = canonicalize(&s) {
                accepted += 1;
                assert!(canon.len() <= MAX_URL_BYTES);
                assert_eq!(canonicalize(&canon).as_ref(), Ok(&canon), "input {s:?}");
                assert!(!title_from_url(&canon).is_empty());
            }
        }
        // Enough of the odd inputs are links for the checks above to mean something.
        assert!(accepted > 200, "only {accepted} accepted");
    }
}

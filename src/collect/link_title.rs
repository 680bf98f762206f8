//! Titles for links whose host and path are shared by many different pages. A YouTube
//! video, a Google search or a Google Doc is told apart by a query parameter or an id
//! in the path, so the `host/path` title [`super::canon::title_from_url`] makes would
//! give every such link the same title (`youtube.com/watch`). Each site that needs
//! better is one row of [`QUIRKS`]: its name, how its links are recognised (hosts and
//! path patterns) and how one is titled (which part of the link, shown how, after
//! which words), after lychee's `quirks` table; the rest of the code never names a
//! site. [`title`] returns `None` for every other link, and canon falls back to
//! `host/path`.
//!
//! What a title shows comes from the link and is untrusted: ids must look like ids
//! (ASCII letters, digits, `-`, `_`), text is percent- and plus-decoded (invalid UTF-8
//! becomes `�`), control characters become spaces, whitespace is collapsed, and the
//! title is cut to [`MAX_TITLE_CHARS`] with `…`. No input panics.

use super::title::{cut, MAX_TITLE_CHARS};
use url::Url;

/// Ids up to this many characters are shown whole (a YouTube video id has 11).
pub const SHORT_ID_CHARS: usize = 12;

/// A longer id is shown as its first this many characters and `…` (a Google Docs id
/// has 44; ten of its random characters still tell documents apart).
pub const ID_PREFIX_CHARS: usize = 10;

/// Which hosts a row applies to, compared after a leading `www.` and a trailing dot
/// are dropped (hosts from the `url` crate are already lower-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostIs {
    /// Exactly this host.
    Exact(&'static str),
    /// This name under any public suffix of the ICANN section of the list: `google`
    /// matches `google.com`, `google.co.uk`, `google.de`, not `google.evil.example`
    /// nor `google.blogspot.com` (a private suffix).
    AnyTld(&'static str),
    /// This domain or any host under it: `wikipedia.org` matches `en.wikipedia.org`.
    Under(&'static str),
}

/// Where the part that tells links apart is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The first non-empty query parameter of one of these names, in this order.
    Query(&'static [&'static str]),
    /// The path segment the pattern marks `{}`.
    Path,
}

/// How the part is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// An id: ASCII letters, digits, `-` and `_` only (otherwise the row does not
    /// apply), cut after [`ID_PREFIX_CHARS`] when longer than [`SHORT_ID_CHARS`].
    Id,
    /// Text such as a search query: decoded, whitespace collapsed.
    Text,
    /// A MediaWiki page name: as [`Show::Text`], with `_` read as a space.
    PageName,
}

/// One site's kind of link and how it is titled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quirk {
    /// What the row is for, in words.
    pub name: &'static str,
    /// The hosts it applies to.
    pub hosts: &'static [HostIs],
    /// Path patterns, any of which may match: `/`-separated segments where a literal
    /// matches itself (ASCII case-insensitively, `;` parameters ignored), `*` any one
    /// segment, `{}` any one segment taken as the [`Part::Path`], and a last `**` the
    /// rest of the path, if any. A trailing slash on the link's path is ignored.
    pub paths: &'static [&'static str],
    /// Where the part that tells links apart is.
    pub part: Part,
    /// How it is shown.
    pub show: Show,
    /// The words before it, e.g. `YouTube video `.
    pub label: &'static str,
}

const YOUTUBE: &[HostIs] = &[
    HostIs::Exact("youtube.com"),
    HostIs::Exact("m.youtube.com"),
    HostIs::Exact("music.youtube.com"),
];
const YOUTUBE_EMBED: &[HostIs] = &[
    HostIs::Exact("youtube.com"),
    HostIs::Exact("m.youtube.com"),
    HostIs::Exact("music.youtube.com"),
    HostIs::Exact("youtube-nocookie.com"),
];
const GOOGLE_DOCS: &[HostIs] = &[HostIs::Exact("docs.google.com")];
const GOOGLE_DRIVE: &[HostIs] = &[HostIs::Exact("drive.google.com")];

/// Every site-specific title, first matching row first.
pub const QUIRKS: &[Quirk] = &[
    Quirk {
        name: "YouTube video",
        hosts: YOUTUBE,
        paths: &["/watch"],
        part: Part::Query(&["v"]),
        show: Show::Id,
        label: "YouTube video ",
    },
    Quirk {
        name: "YouTube video by path",
        hosts: YOUTUBE_EMBED,
        paths: &["/shorts/{}", "/embed/{}", "/live/{}", "/v/{}"],
        part: Part::Path,
        show: Show::Id,
        label: "YouTube video ",
    },
    Quirk {
        name: "YouTube short link",
        hosts: &[HostIs::Exact("youtu.be")],
        paths: &["/{}"],
        part: Part::Path,
        show: Show::Id,
        label: "YouTube video ",
    },
    Quirk {
        name: "YouTube playlist",
        hosts: YOUTUBE,
        paths: &["/playlist"],
        part: Part::Query(&["list"]),
        show: Show::Id,
        label: "YouTube playlist ",
    },
    Quirk {
        name: "YouTube search",
        hosts: YOUTUBE,
        paths: &["/results"],
        part: Part::Query(&["search_query"]),
        show: Show::Text,
        label: "YouTube search: ",
    },
    Quirk {
        name: "Google search",
        hosts: &[HostIs::AnyTld("google")],
        paths: &["/search"],
        part: Part::Query(&["q"]),
        show: Show::Text,
        label: "Google search: ",
    },
    Quirk {
        name: "Google Scholar search",
        hosts: &[HostIs::AnyTld("scholar.google")],
        paths: &["/scholar"],
        part: Part::Query(&["q"]),
        show: Show::Text,
        label: "Google Scholar search: ",
    },
    Quirk {
        name: "Bing search",
        hosts: &[HostIs::Exact("bing.com")],
        paths: &["/search"],
        part: Part::Query(&["q"]),
        show: Show::Text,
        label: "Bing search: ",
    },
    Quirk {
        name: "DuckDuckGo search",
        hosts: &[HostIs::Exact("duckduckgo.com")],
        paths: &["/"],
        part: Part::Query(&["q"]),
        show: Show::Text,
        label: "DuckDuckGo search: ",
    },
    Quirk {
        name: "DuckDuckGo HTML search",
        hosts: &[HostIs::Exact("html.duckduckgo.com")],
        paths: &["/html"],
        part: Part::Query(&["q"]),
        show: Show::Text,
        label: "DuckDuckGo search: ",
    },
    Quirk {
        name: "Yahoo search",
        hosts: &[HostIs::Under("search.yahoo.com")],
        paths: &["/search"],
        part: Part::Query(&["p"]),
        show: Show::Text,
        label: "Yahoo search: ",
    },
    Quirk {
        name: "Baidu search",
        hosts: &[HostIs::Exact("baidu.com")],
        paths: &["/s"],
        part: Part::Query(&["wd", "word"]),
        show: Show::Text,
        label: "Baidu search: ",
    },
    Quirk {
        name: "Yandex search",
        hosts: &[HostIs::AnyTld("yandex")],
        paths: &["/search"],
        part: Part::Query(&["text"]),
        show: Show::Text,
        label: "Yandex search: ",
    },
    Quirk {
        name: "GitHub search",
        hosts: &[HostIs::Exact("github.com")],
        paths: &["/search"],
        part: Part::Query(&["q"]),
        show: Show::Text,
        label: "GitHub search: ",
    },
    Quirk {
        name: "Google Docs document",
        hosts: GOOGLE_DOCS,
        paths: &[
            "/document/d/e/{}/**",
            "/document/d/{}/**",
            "/document/u/*/d/{}/**",
        ],
        part: Part::Path,
        show: Show::Id,
        label: "Google Docs document ",
    },
    Quirk {
        name: "Google Sheets spreadsheet",
        hosts: GOOGLE_DOCS,
        paths: &[
            "/spreadsheets/d/e/{}/**",
            "/spreadsheets/d/{}/**",
            "/spreadsheets/u/*/d/{}/**",
        ],
        part: Part::Path,
        show: Show::Id,
        label: "Google Sheets spreadsheet ",
    },
    Quirk {
        name: "Google Slides presentation",
        hosts: GOOGLE_DOCS,
        paths: &[
            "/presentation/d/e/{}/**",
            "/presentation/d/{}/**",
            "/presentation/u/*/d/{}/**",
        ],
        part: Part::Path,
        show: Show::Id,
        label: "Google Slides presentation ",
    },
    Quirk {
        name: "Google Forms form",
        hosts: GOOGLE_DOCS,
        paths: &["/forms/d/e/{}/**", "/forms/d/{}/**", "/forms/u/*/d/{}/**"],
        part: Part::Path,
        show: Show::Id,
        label: "Google Forms form ",
    },
    Quirk {
        name: "Google Drive file",
        hosts: GOOGLE_DRIVE,
        paths: &["/file/d/{}/**"],
        part: Part::Path,
        show: Show::Id,
        label: "Google Drive file ",
    },
    Quirk {
        name: "Google Drive file by query",
        hosts: GOOGLE_DRIVE,
        paths: &["/open", "/uc"],
        part: Part::Query(&["id"]),
        show: Show::Id,
        label: "Google Drive file ",
    },
    Quirk {
        name: "Google Drive folder",
        hosts: GOOGLE_DRIVE,
        paths: &["/drive/folders/{}/**", "/drive/u/*/folders/{}/**"],
        part: Part::Path,
        show: Show::Id,
        label: "Google Drive folder ",
    },
    Quirk {
        name: "Wikipedia page by query",
        hosts: &[HostIs::Under("wikipedia.org")],
        paths: &["/w/index.php"],
        part: Part::Query(&["title"]),
        show: Show::PageName,
        label: "Wikipedia: ",
    },
    Quirk {
        name: "Hacker News item",
        hosts: &[HostIs::Exact("news.ycombinator.com")],
        paths: &["/item"],
        part: Part::Query(&["id"]),
        show: Show::Id,
        label: "Hacker News item ",
    },
    Quirk {
        name: "Hacker News user",
        hosts: &[HostIs::Exact("news.ycombinator.com")],
        paths: &["/user"],
        part: Part::Query(&["id"]),
        show: Show::Id,
        label: "Hacker News user ",
    },
];

/// The title the first matching row of [`QUIRKS`] gives `url`, or `None` when no row
/// matches (or the part it needs is missing, empty or not what it should be).
pub fn title(url: &Url) -> Option<String> {
    let host = site_host(url)?;
    QUIRKS.iter().find_map(|quirk| quirk.title(&host, url))
}

impl Quirk {
    /// This row's title for `url`, whose host (as [`site_host`] gives it) is `host`.
    fn title(&self, host: &str, url: &Url) -> Option<String> {
        if !self.hosts.iter().any(|h| h.matches(host)) {
            return None;
        }
        let segment = self
            .paths
            .iter()
            .find_map(|pattern| match_path(pattern, url.path()))?;
        let shown = match self.part {
            Part::Path => show(self.show, &percent_decode_lossy(segment?)),
            Part::Query(names) => names.iter().find_map(|name| {
                url.query_pairs()
                    .filter(|(key, _)| key == name)
                    .find_map(|(_, value)| show(self.show, &value))
            }),
        }?;
        Some(cut(&format!("{}{shown}", self.label)))
    }
}

impl HostIs {
    /// Whether `host` (lower-case, without `www.` or a trailing dot) is one of these.
    fn matches(self, host: &str) -> bool {
        match self {
            HostIs::Exact(name) => host == name,
            HostIs::Under(domain) => {
                host == domain
                    || host
                        .strip_suffix(domain)
                        .is_some_and(|rest| rest.ends_with('.'))
            }
            HostIs::AnyTld(name) => host
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|suffix| {
                    psl::suffix(host.as_bytes()).is_some_and(|s| {
                        s.typ() == Some(psl::Type::Icann) && s.as_bytes() == suffix.as_bytes()
                    })
                }),
        }
    }
}

/// The host rows compare: lower-case, trailing dot and a leading `www.` dropped;
/// `None` for an IP address or no host.
fn site_host(url: &Url) -> Option<String> {
    let url::Host::Domain(host) = url.host()? else {
        return None;
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    Some(match host.strip_prefix("www.") {
        Some(rest) => rest.to_owned(),
        None => host,
    })
}

/// Matches `path` (raw, as in the URL) against `pattern` (see [`Quirk::paths`]):
/// `None` when it does not match, else the `{}` segment, if the pattern has one.
fn match_path<'a>(pattern: &str, path: &'a str) -> Option<Option<&'a str>> {
    let mut segments = path.trim_end_matches('/').split('/').skip(1);
    let mut taken = None;
    for want in pattern.trim_end_matches('/').split('/').skip(1) {
        if want == "**" {
            return Some(taken);
        }
        let got = segments.next()?;
        match want {
            "*" => {}
            "{}" => taken = Some(got),
            literal => {
                let name = got.split(';').next().unwrap_or_default();
                if !name.eq_ignore_ascii_case(literal) {
                    return None;
                }
            }
        }
    }
    segments.next().is_none().then_some(taken)
}

/// `value` shown as `how` says, or `None` when there is nothing to show (or an id is
/// not one).
fn show(how: Show, value: &str) -> Option<String> {
    let shown = match how {
        Show::Id => {
            let id = value.trim();
            let valid = !id.is_empty()
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !valid {
                return None;
            }
            if id.len() > SHORT_ID_CHARS {
                format!("{}…", &id[..ID_PREFIX_CHARS])
            } else {
                id.to_owned()
            }
        }
        Show::Text => clean_text(value, false),
        Show::PageName => clean_text(value, true),
    };
    (!shown.is_empty()).then_some(shown)
}

/// `text` with control characters (and `_` when `underscores` says so) read as spaces,
/// whitespace collapsed, and no more than [`MAX_TITLE_CHARS`] + 1 characters kept (the
/// title is cut after the label is added).
fn clean_text(text: &str, underscores: bool) -> String {
    let mut out = String::new();
    let mut kept = 0;
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() || (underscores && c == '_') {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            kept += 1;
            space = false;
        }
        if kept > MAX_TITLE_CHARS {
            break;
        }
        out.push(c);
        kept += 1;
    }
    out
}

/// Percent-decodes a path segment; invalid UTF-8 becomes `�`.
fn percent_decode_lossy(segment: &str) -> String {
    // The decoder reads form data: in a path segment `+` is no space and `&` no
    // separator, so both are escaped first.
    let encoded = segment.replace('+', "%2B").replace('&', "%26");
    url::form_urlencoded::parse(format!("x={encoded}").as_bytes())
        .next()
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::canon::{title_from_url, title_is_just_url};

    fn t(url: &str) -> String {
        title_from_url(url)
    }

    #[test]
    fn every_row() {
        let table: &[(&str, &str)] = &[
            // YouTube videos, every form.
            (
                "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
                "YouTube video dQw4w9WgXcQ",
            ),
            (
                "https://m.youtube.com/watch?v=dQw4w9WgXcQ",
                "YouTube video dQw4w9WgXcQ",
            ),
            (
                "https://music.youtube.com/watch?v=dQw4w9WgXcQ&list=RDAMVM",
                "YouTube video dQw4w9WgXcQ",
            ),
            (
                "https://youtu.be/dQw4w9WgXcQ?t=42",
                "YouTube video dQw4w9WgXcQ",
            ),
            (
                "https://www.youtube.com/shorts/aBcD_e-F012",
                "YouTube video aBcD_e-F012",
            ),
            (
                "https://www.youtube.com/embed/dQw4w9WgXcQ?start=10",
                "YouTube video dQw4w9WgXcQ",
            ),
            (
                "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
                "YouTube video dQw4w9WgXcQ",
            ),
            (
                "https://www.youtube.com/live/jfKfPfyJRdk",
                "YouTube video jfKfPfyJRdk",
            ),
            (
                "https://www.youtube.com/v/dQw4w9WgXcQ",
                "YouTube video dQw4w9WgXcQ",
            ),
            (
                "https://www.youtube.com/playlist?list=PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf",
                "YouTube playlist PLrAXtmErZ…",
            ),
            (
                "https://www.youtube.com/results?search_query=rust+async",
                "YouTube search: rust async",
            ),
            // Search pages.
            (
                "https://www.google.com/search?q=rust+borrow+checker&hl=en",
                "Google search: rust borrow checker",
            ),
            (
                "https://www.google.co.uk/search?q=tide%20times",
                "Google search: tide times",
            ),
            (
                "https://google.de/search?client=x&q=Br%C3%BCcke",
                "Google search: Brücke",
            ),
            (
                "https://scholar.google.com/scholar?q=tidal+locking",
                "Google Scholar search: tidal locking",
            ),
            (
                "https://www.bing.com/search?q=a%2Bb+c",
                "Bing search: a+b c",
            ),
            ("https://duckduckgo.com/?q=slack+bot", "DuckDuckGo search: slack bot"),
            (
                "https://html.duckduckgo.com/html/?q=slack",
                "DuckDuckGo search: slack",
            ),
            (
                "https://search.yahoo.com/search?p=moon+phases",
                "Yahoo search: moon phases",
            ),
            (
                "https://uk.search.yahoo.com/search;_ylt=AwrE?p=moon",
                "Yahoo search: moon",
            ),
            (
                "https://www.baidu.com/s?wd=%E6%BD%AE%E6%B1%90",
                "Baidu search: 潮汐",
            ),
            ("https://baidu.com/s?word=tide", "Baidu search: tide"),
            (
                "https://yandex.ru/search/?text=%D0%BF%D1%80%D0%B8%D0%BB%D0%B8%D0%B2",
                "Yandex search: прилив",
            ),
            (
                "https://yandex.com.tr/search?text=gelgit",
                "Yandex search: gelgit",
            ),
            (
                "https://github.com/search?q=sourcebot&type=code",
                "GitHub search: sourcebot",
            ),
            // Google Docs, Sheets, Slides, Forms, Drive.
            (
                "https://docs.google.com/document/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh/edit",
                "Google Docs document 1AbCdEfGhI…",
            ),
            (
                "https://docs.google.com/document/u/1/d/1ZyXwVuTsRqPoNmLkJiHgFeDcBa/edit#heading=h.x",
                "Google Docs document 1ZyXwVuTsR…",
            ),
            (
                "https://docs.google.com/document/d/e/2PACX-1vQabcdefghijkl/pub",
                "Google Docs document 2PACX-1vQa…",
            ),
            (
                "https://docs.google.com/spreadsheets/d/1SheetIdAbCdEfGhIjKlMnOp/edit#gid=0",
                "Google Sheets spreadsheet 1SheetIdAb…",
            ),
            (
                "https://docs.google.com/presentation/d/1SlideIdAbCdEfGh/present",
                "Google Slides presentation 1SlideIdAb…",
            ),
            (
                "https://docs.google.com/forms/d/e/1FAIpQLSfAbCdEf/viewform",
                "Google Forms form 1FAIpQLSfA…",
            ),
            (
                "https://docs.google.com/forms/d/1FormIdXyZ",
                "Google Forms form 1FormIdXyZ",
            ),
            (
                "https://drive.google.com/file/d/1FileIdAbCdEfGhIjK/view?usp=sharing",
                "Google Drive file 1FileIdAbC…",
            ),
            (
                "https://drive.google.com/open?id=1FileIdAbCdEfGhIjK",
                "Google Drive file 1FileIdAbC…",
            ),
            (
                "https://drive.google.com/uc?export=download&id=1FileIdAbCdEfGhIjK",
                "Google Drive file 1FileIdAbC…",
            ),
            (
                "https://drive.google.com/drive/folders/1FolderIdAbCdEfGh",
                "Google Drive folder 1FolderIdA…",
            ),
            (
                "https://drive.google.com/drive/u/0/folders/1FolderIdAbCdEfGh?resourcekey=x",
                "Google Drive folder 1FolderIdA…",
            ),
            // Wikipedia and Hacker News.
            (
                "https://en.wikipedia.org/w/index.php?title=Tidal_locking&oldid=1",
                "Wikipedia: Tidal locking",
            ),
            (
                "https://news.ycombinator.com/item?id=38309611",
                "Hacker News item 38309611",
            ),
            (
                "https://news.ycombinator.com/user?id=pg",
                "Hacker News user pg",
            ),
        ];
        for (url, expected) in table {
            let title = t(url);
            assert_eq!(&title, expected, "url {url:?}");
            assert!(title.chars().count() <= MAX_TITLE_CHARS, "{title:?}");
            assert!(title_is_just_url(&title, url), "{title:?} for {url:?}");
        }
        // Every row is exercised by the table above.
        for quirk in QUIRKS {
            let used = table.iter().any(|(url, _)| {
                Url::parse(url)
                    .is_ok_and(|u| site_host(&u).is_some_and(|h| quirk.title(&h, &u).is_some()))
            });
            assert!(used, "row {:?} has no case", quirk.name);
        }
    }

    #[test]
    fn videos_are_told_apart_and_the_same_video_is_the_same() {
        let a = t("https://www.youtube.com/watch?v=dQw4w9WgXcQ");
        let b = t("https://www.youtube.com/watch?v=9bZkp7q19f0");
        assert_ne!(a, b);
        assert_eq!(a, t("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=30s"));
        assert_eq!(a, t("https://youtube.com/watch?t=30s&v=dQw4w9WgXcQ"));
        assert_eq!(a, t("https://youtu.be/dQw4w9WgXcQ"));
        assert_eq!(
            a,
            t("https://youtube.com/watch?v=dQw4w9WgXcQ&list=PLx&index=2")
        );
        assert_eq!(
            a,
            t("https://www.youtube.com/watch?v=dQw4w9WgXcQ&utm_source=chatgpt.com")
        );
        assert_ne!(
            t("https://docs.google.com/document/d/1AbCdEfGhIjKlMnOp/edit"),
            t("https://docs.google.com/document/d/1QrStUvWxYzAbCdEf/edit")
        );
        assert_ne!(
            t("https://www.google.com/search?q=one"),
            t("https://www.google.com/search?q=two")
        );
        // Another video's made title, or a real one, is more than this link says.
        let url = "https://youtu.be/dQw4w9WgXcQ";
        assert!(title_is_just_url(&a, url));
        assert!(!title_is_just_url(&b, url));
        assert!(!title_is_just_url("Never Gonna Give You Up", url));
    }

    #[test]
    fn other_links_keep_host_and_path() {
        for (url, expected) in [
            // Not the site's host, or not its kind of page.
            (
                "https://google.evil.example/search?q=x",
                "google.evil.example/search",
            ),
            (
                "https://notyoutube.com/watch?v=dQw4w9WgXcQ",
                "notyoutube.com/watch",
            ),
            (
                "https://www.youtube.com/channel/UCabc",
                "youtube.com/channel/UCabc",
            ),
            (
                "https://www.youtube.com/watch/extra?v=abc",
                "youtube.com/watch/extra",
            ),
            ("https://www.google.com/maps?q=x", "google.com/maps"),
            (
                "https://en.wikipedia.org/wiki/Tide",
                "en.wikipedia.org/wiki/Tide",
            ),
            ("http://127.0.0.1/search?q=x", "127.0.0.1/search"),
            // Nothing to tell the link apart by.
            ("https://www.youtube.com/watch?v=", "youtube.com/watch"),
            ("https://www.youtube.com/watch", "youtube.com/watch"),
            ("https://youtu.be/", "youtu.be"),
            ("https://www.google.com/search?q=", "google.com/search"),
            ("https://www.google.com/search?q=+%20+", "google.com/search"),
            ("https://www.google.com/search", "google.com/search"),
            (
                "https://docs.google.com/document/d/",
                "docs.google.com/document/d",
            ),
            (
                "https://news.ycombinator.com/item?id=",
                "news.ycombinator.com/item",
            ),
        ] {
            assert_eq!(t(url), expected, "url {url:?}");
        }
    }

    #[test]
    fn hostile_input_is_cleaned_and_capped() {
        // Control characters (decoded or raw) become spaces and collapse.
        assert_eq!(
            t("https://www.google.com/search?q=a%0A%0Db%00c%1B%5B31m"),
            "Google search: a b c [31m"
        );
        assert_eq!(
            t("https://www.google.com/search?q=%09%E2%80%83tabs%09"),
            "Google search: tabs"
        );
        // Invalid UTF-8 and broken escapes never panic.
        assert_eq!(t("https://www.google.com/search?q=%FF"), "Google search: �");
        assert_eq!(
            t("https://www.google.com/search?q=%E6%BD&x"),
            "Google search: �"
        );
        assert_eq!(
            t("https://www.google.com/search?q=%zz%"),
            "Google search: %zz%"
        );
        // An id that is not one falls back to host and path.
        for url in [
            "https://www.youtube.com/watch?v=%FF",
            "https://www.youtube.com/watch?v=a%0Ab",
            "https://www.youtube.com/watch?v=%3Cb%3E",
            "https://youtu.be/caf%C3%A9",
            "https://news.ycombinator.com/item?id=1%201",
        ] {
            assert!(!t(url).starts_with("YouTube"), "{url:?}");
            assert!(!t(url).starts_with("Hacker"), "{url:?}");
        }
        // A huge query is cut to the title's length.
        let huge = format!("https://www.google.com/search?q={}", "word+".repeat(2_000));
        assert_eq!(
            huge.len() - "https://www.google.com/search?q=".len(),
            10_000
        );
        let title = t(&huge);
        assert!(title.starts_with("Google search: word word"), "{title:?}");
        assert!(title.ends_with('…'), "{title:?}");
        assert_eq!(title.chars().count(), MAX_TITLE_CHARS);
        let huge_id = format!("https://www.youtube.com/watch?v={}", "a".repeat(10_000));
        assert_eq!(t(&huge_id), "YouTube video aaaaaaaaaa…");
        let long_word = format!("https://www.bing.com/search?q={}", "界".repeat(10_000));
        assert_eq!(t(&long_word).chars().count(), MAX_TITLE_CHARS);
    }

    #[test]
    fn host_patterns() {
        assert!(HostIs::AnyTld("google").matches("google.co.uk"));
        assert!(HostIs::AnyTld("google").matches("google.com"));
        assert!(!HostIs::AnyTld("google").matches("google.evil.example"));
        assert!(!HostIs::AnyTld("google").matches("google.notatld"));
        assert!(!HostIs::AnyTld("google").matches("google"));
        assert!(!HostIs::AnyTld("google").matches("images.google.com"));
        assert!(!HostIs::AnyTld("google").matches("google.blogspot.com"));
        assert!(HostIs::Under("wikipedia.org").matches("de.m.wikipedia.org"));
        assert!(!HostIs::Under("wikipedia.org").matches("notwikipedia.org"));
        assert!(HostIs::Exact("youtu.be").matches("youtu.be"));
    }

    #[test]
    fn path_patterns() {
        assert_eq!(match_path("/watch", "/watch"), Some(None));
        assert_eq!(match_path("/watch", "/watch/"), Some(None));
        assert_eq!(match_path("/watch", "/watch/x"), None);
        assert_eq!(match_path("/", "/"), Some(None));
        assert_eq!(match_path("/", "/x"), None);
        assert_eq!(match_path("/{}", "/abc"), Some(Some("abc")));
        assert_eq!(match_path("/d/{}/**", "/d/abc"), Some(Some("abc")));
        assert_eq!(match_path("/d/{}/**", "/d/abc/edit/x"), Some(Some("abc")));
        assert_eq!(match_path("/d/{}/**", "/d"), None);
        assert_eq!(match_path("/u/*/d/{}", "/u/3/d/x"), Some(Some("x")));
        assert_eq!(match_path("/search", "/SEARCH;a=b"), Some(None));
        assert_eq!(percent_decode_lossy("a+b&c=d%20e%FF"), "a+b&c=d e\u{fffd}");
    }

    #[test]
    fn odd_links_never_panic() {
        let pieces = [
            "https://",
            "www.",
            "youtube.com",
            "youtu.be",
            "google.co.uk",
            "docs.google.com",
            "drive.google.com",
            "/watch",
            "/search",
            "/document/d/",
            "/u/",
            "/",
            "?",
            "&",
            "=",
            "v=",
            "q=",
            "id=",
            "%",
            "%F",
            "%FF",
            "%00",
            "+",
            "#",
            "\u{202e}",
            "界",
            ";",
        ];
        let mut state: u64 = 0x1234_5678_9abc_def1;
        for _ in 0..3_000 {
            let mut s = String::new();
            for _ in 0..(state % 9) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                s.push_str(pieces[(state % pieces.len() as u64) as usize]);
            }
            let title = t(&s);
            assert!(!title.is_empty());
            assert!(title.chars().count() <= MAX_TITLE_CHARS, "{title:?}");
            assert!(!title.chars().any(char::is_control), "{title:?}");
        }
    }
}

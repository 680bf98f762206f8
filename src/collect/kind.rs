//! Classifies a canonical URL into a [`SourceKind`]: Slack message permalinks,
//! Confluence pages and Jira issues (Atlassian's), files and documents (Slack files,
//! Google Drive and Docs, SharePoint and OneDrive, Notion, Dropbox, Box) and
//! everything else on the web. Matching is always on
//! the parsed host and path, never on a substring of the whole URL, so
//! `https://evil.com/?x=slack.com/archives/1` stays web. Internal hosts can be added
//! per kind through [`KindRules`]; they win over the built-in rules.

use crate::model::SourceKind;
use url::Url;

/// Extra internal hosts per kind, from configuration (e.g. `SOURCEBOT_CONFLUENCE_HOSTS`).
/// A listed host matches itself and its subdomains, whatever the path; entries are
/// compared ASCII case-insensitively, and a leading `*.` or `.` is accepted and means
/// the same. Checked before the built-in rules, in the order slack, confluence, file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KindRules {
    /// Hosts whose links are Slack messages.
    pub slack_hosts: Vec<String>,
    /// Hosts whose links are Confluence pages.
    pub confluence_hosts: Vec<String>,
    /// Hosts whose links are files.
    pub file_hosts: Vec<String>,
}

impl KindRules {
    /// Parses a comma/space separated host list as it comes from an environment variable,
    /// e.g. `wiki.corp.example, *.docs.corp.example`. Entries are lower-cased and lose a
    /// leading `*.` or `.` and a trailing `.`; IDN hosts become punycode. A blank list is
    /// empty; a trailing comma is accepted. An entry that is not a valid host name
    /// (contains `/`, `:`, `@`, `*` inside…, or is empty between commas) is an error
    /// naming the entry.
    pub fn parse_host_list(list: &str) -> Result<Vec<String>, String> {
        let mut hosts = Vec::new();
        if list.trim().is_empty() {
            return Ok(hosts);
        }
        let pieces: Vec<&str> = list.split(',').collect();
        for (i, piece) in pieces.iter().enumerate() {
            let before = hosts.len();
            for entry in piece.split_whitespace() {
                hosts.push(parse_host(entry)?);
            }
            let is_last = i + 1 == pieces.len();
            if hosts.len() == before && !is_last {
                return Err(format!(
                    "empty host entry at position {} in {list:?}",
                    i + 1
                ));
            }
        }
        Ok(hosts)
    }
}

/// The kind of a canonical http/https URL; `Web` if it cannot be parsed.
pub fn classify(url: &str, rules: &KindRules) -> SourceKind {
    match Url::parse(url.trim()) {
        Ok(parsed) => classify_url(&parsed, rules),
        Err(_) => SourceKind::Web,
    }
}

/// The kind of a parsed URL (see [`classify`]).
pub fn classify_url(url: &Url, rules: &KindRules) -> SourceKind {
    let Some(host) = url.host_str() else {
        return SourceKind::Web;
    };
    let host = host.trim_end_matches('.');
    let path = url.path();
    let configured = [
        (&rules.slack_hosts, SourceKind::Slack),
        (&rules.confluence_hosts, SourceKind::Confluence),
        (&rules.file_hosts, SourceKind::File),
    ];
    if let Some((_, kind)) = configured.iter().find(|(list, _)| {
        list.iter()
            .any(|p| host_matches(host, configured_pattern(p)))
    }) {
        return *kind;
    }
    if is_slack_permalink(host, path) {
        SourceKind::Slack
    } else if is_file_host(host) || is_slack_file_page(host, path) {
        SourceKind::File
    } else if is_confluence(host, path)
        || (is_subdomain_of(host, "atlassian.net") && is_jira_path(path))
    {
        SourceKind::Confluence
    } else {
        SourceKind::Web
    }
}

/// Whether `url` is a Jira link (an issue, a board or project page: `/browse/KEY-1`,
/// `/jira/…`, `/secure/RapidBoard.jspa`), on whatever host: a Jira site's links sit
/// with Confluence, Atlassian's other product, and are headed as Jira's.
pub fn is_jira_link(url: &str) -> bool {
    Url::parse(url).is_ok_and(|url| is_jira_path(url.path()))
}

/// Whether `path` is a Jira issue, board or project path.
fn is_jira_path(path: &str) -> bool {
    let issue_key = |rest: &str| {
        let key = rest.trim_end_matches('/');
        key.split_once('-').is_some_and(|(project, number)| {
            project.starts_with(|c: char| c.is_ascii_uppercase())
                && !number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit())
        })
    };
    path.strip_prefix("/browse/").is_some_and(issue_key)
        || path.starts_with("/jira/")
        || path.starts_with("/secure/RapidBoard.jspa")
}

/// Hosts (and their subdomains) whose links are files.
const FILE_HOSTS: &[&str] = &[
    "files.slack.com",
    "slack-files.com",
    "drive.google.com",
    "docs.google.com",
    "sheets.google.com",
    "slides.google.com",
    "onedrive.live.com",
    "1drv.ms",
    "dropbox.com",
    "dl.dropboxusercontent.com",
    "box.com",
    "notion.so",
    "notion.site",
];

/// Hosts whose subdomains, but not themselves, serve files.
const FILE_PARENT_DOMAINS: &[&str] = &["sharepoint.com"];

/// Whether `host` is `domain` or one of its subdomains (ASCII case-insensitive).
fn host_matches(host: &str, domain: &str) -> bool {
    !domain.is_empty() && (host.eq_ignore_ascii_case(domain) || is_subdomain_of(host, domain))
}

/// Whether `host` ends with `.domain` (ASCII case-insensitive).
fn is_subdomain_of(host: &str, domain: &str) -> bool {
    let (h, d) = (host.as_bytes(), domain.as_bytes());
    !d.is_empty()
        && h.len() > d.len()
        && h[h.len() - d.len() - 1] == b'.'
        && h[h.len() - d.len()..].eq_ignore_ascii_case(d)
}

/// A configured entry without a leading `*.` / `.` or trailing `.`.
fn configured_pattern(entry: &str) -> &str {
    let entry = entry.trim();
    let entry = entry
        .strip_prefix("*.")
        .or_else(|| entry.strip_prefix('.'))
        .unwrap_or(entry);
    entry.trim_end_matches('.')
}

/// `https://x.slack.com/archives/C…/p…` and `https://app.slack.com/client/T…/C…`.
fn is_slack_permalink(host: &str, path: &str) -> bool {
    if !host_matches(host, "slack.com") {
        return false;
    }
    let has_segments =
        |rest: &str, n: usize| rest.split('/').filter(|s| !s.is_empty()).count() >= n;
    if let Some(rest) = path.strip_prefix("/archives/") {
        return has_segments(rest, 1);
    }
    match path.strip_prefix("/client/") {
        Some(rest) => host.eq_ignore_ascii_case("app.slack.com") && has_segments(rest, 2),
        None => false,
    }
}

/// A file's page in a workspace, as Slack's file cards link it:
/// `https://acme.slack.com/files/U…/F…/name`.
fn is_slack_file_page(host: &str, path: &str) -> bool {
    is_subdomain_of(host, "slack.com")
        && path
            .strip_prefix("/files/")
            .is_some_and(|rest| rest.split('/').filter(|s| !s.is_empty()).count() >= 2)
}

fn is_file_host(host: &str) -> bool {
    FILE_HOSTS.iter().any(|d| host_matches(host, d))
        || FILE_PARENT_DOMAINS.iter().any(|d| is_subdomain_of(host, d))
}

/// `*.atlassian.net/wiki/…`, or any host with a Confluence-shaped path.
fn is_confluence(host: &str, path: &str) -> bool {
    (is_subdomain_of(host, "atlassian.net") && path.starts_with("/wiki/"))
        || path.starts_with("/display/")
        || path.starts_with("/wiki/spaces/")
        || path.contains("/confluence/")
}

/// One entry of a host list, checked and normalised.
fn parse_host(entry: &str) -> Result<String, String> {
    let bad = |why: &str| Err(format!("{entry:?} is not a host name ({why})"));
    let bare = configured_pattern(entry);
    if bare.is_empty() {
        return bad("empty");
    }
    if let Some(c) = bare.chars().find(|c| {
        matches!(
            c,
            '/' | ':' | '@' | '*' | '?' | '#' | '\\' | '[' | ']' | '%'
        ) || c.is_whitespace()
            || c.is_control()
    }) {
        return bad(&format!("contains {c:?}"));
    }
    let host = match Url::parse(&format!("https://{bare}/")) {
        Ok(url) => url.host_str().map(str::to_owned),
        Err(e) => return bad(&e.to_string()),
    };
    match host {
        Some(h) if h.split('.').all(is_label) => Ok(h),
        _ => bad("only letters, digits, `-` and `_` between dots"),
    }
}

fn is_label(label: &str) -> bool {
    (1..=63).contains(&label.len())
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use SourceKind::{Confluence, File, Slack, Web};

    #[test]
    fn classify_table() {
        let rules = KindRules::default();
        let table = [
            // Slack permalinks.
            (
                "https://acme.slack.com/archives/C0123/p1700000000000100",
                Slack,
            ),
            ("https://slack.com/archives/C0123/p1", Slack),
            ("https://acme.enterprise.slack.com/archives/C0123/p1", Slack),
            ("https://app.slack.com/client/T0123/C0456", Slack),
            (
                "https://app.slack.com/client/T0123/C0456/thread/C0456-1.2",
                Slack,
            ),
            ("https://ACME.Slack.com/archives/C1/p2", Slack),
            // Slack pages that are not permalinks.
            ("https://slack.com/help/articles/123", Web),
            (
                "https://acme.slack.com/files/U07ASSIST1/F07FILE0001/q3_report.pdf",
                File,
            ),
            ("https://acme.slack.com/files/U07ASSIST1", Web),
            ("https://slack.com/files/U1/F1/x", Web),
            ("https://acme.slack.com/archives/", Web),
            ("https://app.slack.com/client/T0123", Web),
            ("https://acme.slack.com/client/T0123/C0456", Web),
            ("https://slack.com/", Web),
            // Files.
            ("https://files.slack.com/files-pri/T1-F2/report.pdf", File),
            ("https://slack-files.com/T1-F2-abc", File),
            ("https://drive.google.com/file/d/abc/view", File),
            ("https://docs.google.com/document/d/abc/edit", File),
            ("https://docs.google.com/spreadsheets/d/abc", File),
            ("https://docs.google.com/presentation/d/abc", File),
            ("https://docs.google.com/forms/d/abc", File),
            ("https://sheets.google.com/x", File),
            ("https://slides.google.com/x", File),
            ("https://acme.sharepoint.com/sites/x/doc.docx", File),
            ("https://acme-my.sharepoint.com/personal/x", File),
            ("https://onedrive.live.com/?id=1", File),
            ("https://1drv.ms/w/s!abc", File),
            ("https://www.dropbox.com/s/abc/file.pdf", File),
            ("https://dropbox.com/scl/fi/abc", File),
            ("https://dl.dropboxusercontent.com/s/abc", File),
            ("https://app.box.com/s/abc", File),
            ("https://acme.box.com/s/abc", File),
            ("https://box.com/s/abc", File),
            // Confluence.
            (
                "https://acme.atlassian.net/wiki/spaces/ENG/pages/1/Title",
                Confluence,
            ),
            ("https://acme.atlassian.net/wiki/x", Confluence),
            (
                "https://wiki.corp.example/confluence/display/ENG/Page",
                Confluence,
            ),
            ("https://intranet.example/display/ENG/Page", Confluence),
            (
                "https://intranet.example/wiki/spaces/ENG/overview",
                Confluence,
            ),
            // Jira sits with Confluence: Atlassian's.
            ("https://acme.atlassian.net/browse/ENG-123", Confluence),
            (
                "https://acme.atlassian.net/jira/software/projects/ENG/boards/1?selectedIssue=ENG-1",
                Confluence,
            ),
            // Notion pages are documents.
            (
                "https://www.notion.so/acme/Deploy-policy-0123456789abcdef0123456789abcdef",
                File,
            ),
            ("https://acme.notion.site/Policy-0123456789abcdef0123456789abcdef", File),
            // Web, including the traps.
            ("https://acme.atlassian.net/browse/eng", Web),
            ("https://atlassian.net.evil.example/browse/ENG-1", Web),
            ("https://example.com/browse/ENG-123", Web),
            ("https://notion.so.evil.example/x", Web),
            ("https://evilnotion.so/x", Web),
            ("https://atlassian.net/wiki/x", Web),
            ("https://www.google.com/search?q=x", Web),
            ("https://google.com/drive/", Web),
            ("https://sharepoint.com/", Web),
            ("https://evil.com/?x=slack.com/archives/1", Web),
            ("https://slack.com.evil.com/archives/x", Web),
            ("https://notslack.com/archives/C1/p1", Web),
            ("https://evil.com/files.slack.com/x", Web),
            ("https://drive.google.com.evil.com/file/d/x", Web),
            ("https://mydropbox.com/s/x", Web),
            ("https://evil.com/#/wiki/spaces/x", Web),
            ("https://example.com/a?path=/display/x", Web),
            ("https://example.com/confluence", Web),
            ("not a url", Web),
            ("", Web),
        ];
        assert!(table.len() >= 25);
        for (url, kind) in table {
            assert_eq!(classify(url, &rules), kind, "url {url:?}");
        }
    }

    #[test]
    fn configured_hosts_win() {
        let rules = KindRules {
            slack_hosts: vec!["chat.corp.example".into()],
            confluence_hosts: vec!["*.WIKI.corp.example".into(), "docs.google.com".into()],
            file_hosts: vec![".files.corp.example".into(), "chat.corp.example".into()],
        };
        let table = [
            ("https://chat.corp.example/anything", Slack),
            ("https://a.chat.corp.example/", Slack),
            ("https://wiki.corp.example/x", Confluence),
            ("https://eng.wiki.corp.example/pages/1", Confluence),
            ("https://docs.google.com/document/d/abc", Confluence),
            ("https://files.corp.example/a.pdf", File),
            ("https://x.files.corp.example/a.pdf", File),
            ("https://corp.example/", Web),
            ("https://evilwiki.corp.example/", Web),
            ("https://wiki.corp.example.evil.com/", Web),
            ("https://evil.com/?h=wiki.corp.example", Web),
            ("https://drive.google.com/file/d/x", File),
        ];
        for (url, kind) in table {
            assert_eq!(classify(url, &rules), kind, "url {url:?}");
        }
    }

    #[test]
    fn classify_url_matches_classify() {
        let url = Url::parse("https://acme.slack.com/archives/C1/p2").unwrap();
        assert_eq!(classify_url(&url, &KindRules::default()), Slack);
    }

    #[test]
    fn parse_good_host_lists() {
        let parse = KindRules::parse_host_list;
        assert_eq!(
            parse("wiki.corp.example, Docs.Corp.Example  intranet").unwrap(),
            ["wiki.corp.example", "docs.corp.example", "intranet"]
        );
        assert_eq!(parse("*.corp.example").unwrap(), ["corp.example"]);
        assert_eq!(parse(".corp.example,").unwrap(), ["corp.example"]);
        assert_eq!(parse("corp.example.").unwrap(), ["corp.example"]);
        assert_eq!(
            parse("my_host.corp,10.0.0.5").unwrap(),
            ["my_host.corp", "10.0.0.5"]
        );
        assert_eq!(
            parse("wiki.bücher.example").unwrap(),
            ["wiki.xn--bcher-kva.example"]
        );
        assert!(parse("").unwrap().is_empty());
        assert!(parse("  \n ").unwrap().is_empty());
    }

    #[test]
    fn parse_bad_host_lists() {
        let parse = KindRules::parse_host_list;
        for (list, named) in [
            ("good.example, bad/host", "bad/host"),
            ("host:8080", "host:8080"),
            ("user@host", "user@host"),
            ("*", "*"),
            ("*.", "*."),
            ("a.*.example", "a.*.example"),
            ("https://wiki.example", "https://wiki.example"),
            ("a..b", "a..b"),
            ("bad!host", "bad!host"),
            ("[::1]", "[::1]"),
        ] {
            let err = parse(list).unwrap_err();
            assert!(err.contains(&format!("{named:?}")), "{list:?}: {err}");
        }
        let err = parse("a.example,,b.example").unwrap_err();
        assert!(err.contains("empty"), "{err}");
        let err = parse(", a.example").unwrap_err();
        assert!(err.contains("empty"), "{err}");
    }

    #[test]
    fn odd_input_never_panics() {
        let rules = KindRules {
            slack_hosts: vec!["".into(), "*.".into(), ".".into()],
            confluence_hosts: vec!["wiki.example".into()],
            file_hosts: vec!["\u{feff}".into()],
        };
        let mut state: u64 = 0x0dd_ba11_5eed;
        let pieces = [
            "https://",
            "http://",
            "slack.com",
            ".",
            "/archives/",
            "/client/",
            "%",
            "[",
            "]",
            "@",
            ":",
            "?",
            "#",
            "/wiki/",
            "*",
            "ü",
            "🦀",
            " ",
            ",",
            "\0",
            "/",
            "a",
        ];
        for i in 0..2_000 {
            let mut s = String::from(match i % 4 {
                0 => "https://",
                1 => "https://x.slack.com/",
                _ => "",
            });
            for _ in 0..(i % 13) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                match state % 3 {
                    0 => s.push(char::from_u32((state >> 8) as u32 % 0x11_0000).unwrap_or('?')),
                    _ => s.push_str(pieces[(state >> 8) as usize % pieces.len()]),
                }
            }
            if i % 500 == 7 {
                s.push_str(&"a.".repeat(10_000));
            }
            let _ = classify(&s, &rules);
            let _ = KindRules::parse_host_list(&s);
        }
    }
}

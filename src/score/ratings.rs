//! Published domain-quality ratings: a file of `domain,rating` lines, each rating from
//! 0 (lowest quality) to 1 (highest), looked up by a link's host. The format is that of
//! Lin et al. (2023), "High level of correspondence across different news domain quality
//! rating sets", PNAS Nexus 2(9), pgad286, whose `domain_pc1.csv` (11,520 news and
//! information domains, an aggregate of expert and fact-checker ratings;
//! github.com/hauselin/domain-quality-ratings, "feel free to reuse the data") is the
//! set sourcebot is measured with. The file is not shipped: a deployment points
//! `SOURCEBOT_DOMAIN_RATINGS` at its copy.
//!
//! A host is looked up as itself and then as each parent domain down to its registrable
//! domain (`news.bbc.co.uk` → `bbc.co.uk`), so the most specific rated name wins; a
//! public suffix alone (`co.uk`) is never a match.

use std::collections::HashMap;

/// Most lines a ratings file may hold (the published set has 11,521).
pub const MAX_LINES: usize = 1_000_000;

/// Longest domain name accepted (DNS's limit).
const MAX_DOMAIN_BYTES: usize = 253;

/// Domain-quality ratings by domain name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DomainRatings {
    /// Lower-case domain (punycode) → rating in 0..=1.
    by_domain: HashMap<String, f64>,
    /// Sections rated apart from their site (`theguardian.com/observer`): domain →
    /// (path prefix without slashes at either end, rating).
    sections: HashMap<String, Vec<(String, f64)>>,
}

/// A ratings file that could not be read: the line and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("domain ratings, line {line}: {message}")]
pub struct RatingsError {
    /// The 1-based line number (0 for the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl DomainRatings {
    /// Parses a ratings file: a header line naming two columns (`domain,pc1` in the
    /// published set; any names), then `domain,rating` lines. Blank lines are skipped;
    /// a domain may be quoted; a domain listed twice, a rating that is not a number from
    /// 0 to 1, or a line without two columns is an error naming the line.
    pub fn parse(text: &str) -> Result<DomainRatings, RatingsError> {
        let mut lines = text.lines().enumerate();
        let header = lines
            .by_ref()
            .find(|(_, l)| !l.trim().is_empty())
            .ok_or_else(|| error(0, "the file is empty".into()))?;
        if header.1.split(',').count() != 2 {
            return Err(error(
                header.0 + 1,
                format!(
                    "expected a header of two columns (domain,pc1), found {:?}",
                    shorten(header.1)
                ),
            ));
        }
        let mut ratings = DomainRatings::default();
        for (index, line) in lines {
            let number = index + 1;
            if number > MAX_LINES {
                return Err(error(number, format!("more than {MAX_LINES} lines")));
            }
            if line.trim().is_empty() {
                continue;
            }
            let (domain, section, rating) = parse_line(line).map_err(|m| error(number, m))?;
            let twice = match section {
                None => ratings.by_domain.insert(domain.clone(), rating).is_some(),
                Some(section) => {
                    let sections = ratings.sections.entry(domain.clone()).or_default();
                    let twice = sections.iter().any(|(s, _)| *s == section);
                    sections.push((section, rating));
                    twice
                }
            };
            if twice {
                let name = line.rsplit_once(',').map_or(line, |(name, _)| name.trim());
                return Err(error(
                    number,
                    format!("{} is listed twice", shorten(&name.to_ascii_lowercase())),
                ));
            }
        }
        if ratings.is_empty() {
            return Err(error(0, "no domain is rated".into()));
        }
        Ok(ratings)
    }

    /// Reads and parses the file at `path`.
    pub fn load(path: &std::path::Path) -> Result<DomainRatings, RatingsError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| error(0, format!("cannot read {}: {e}", path.display())))?;
        DomainRatings::parse(&text)
    }

    /// The rating of a host: its own, else its nearest rated parent down to its
    /// registrable domain. `None` when nothing there is rated, and for IP addresses.
    pub fn rating(&self, host: &str) -> Option<f64> {
        let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
        if let Some(&rating) = self.by_domain.get(&host) {
            return Some(rating);
        }
        let registrable = super::domain::registrable_domain(&host)?;
        let mut name = host.as_str();
        loop {
            if let Some(&rating) = self.by_domain.get(name) {
                return Some(rating);
            }
            if name == registrable {
                return None;
            }
            name = name.split_once('.')?.1;
        }
    }

    /// The rating of a link: a rated section its path is in (`theguardian.com/observer`
    /// for `https://www.theguardian.com/observer/x`), else its host's rating (see
    /// [`DomainRatings::rating`]).
    pub fn rating_of_url(&self, url: &str) -> Option<f64> {
        self.rating_of(&url::Url::parse(url).ok()?)
    }

    /// [`DomainRatings::rating_of_url`] of a URL already parsed.
    pub fn rating_of(&self, parsed: &url::Url) -> Option<f64> {
        let host = parsed.host_str()?;
        if !self.sections.is_empty() {
            let path = parsed.path().trim_matches('/');
            let registrable = super::domain::registrable_domain(host)?;
            let mut name = host.trim_end_matches('.');
            loop {
                let section = self.sections.get(name).and_then(|sections| {
                    sections
                        .iter()
                        .filter(|(prefix, _)| in_section(path, prefix))
                        .max_by_key(|(prefix, _)| prefix.len())
                });
                if let Some((_, rating)) = section {
                    return Some(*rating);
                }
                if name == registrable {
                    break;
                }
                match name.split_once('.') {
                    Some((_, parent)) => name = parent,
                    None => break,
                }
            }
        }
        self.rating(host)
    }

    /// How many domains and sections are rated.
    pub fn len(&self) -> usize {
        self.by_domain.len() + self.sections.values().map(Vec::len).sum::<usize>()
    }

    /// Whether nothing is rated.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One `domain,rating` or `domain/section,rating` line: the domain in punycode, the
/// section if any, and the rating.
fn parse_line(line: &str) -> Result<(String, Option<String>, f64), String> {
    let (name, rating) = line
        .rsplit_once(',')
        .ok_or_else(|| format!("expected domain,rating, found {:?}", shorten(line)))?;
    let name = name.trim().trim_matches('"').trim();
    let (domain, section) = match name.split_once('/') {
        Some((domain, section)) => (domain, Some(section.trim_matches('/'))),
        None => (name, None),
    };
    let not_a_domain = || format!("{:?} is not a domain name", shorten(name));
    if domain.len() > MAX_DOMAIN_BYTES || domain.chars().any(|c| c.is_whitespace()) {
        return Err(not_a_domain());
    }
    // IDNA, as a browser would read the name: `wvec–13newsnow.com` becomes punycode.
    let domain = match url::Host::parse(domain) {
        Ok(url::Host::Domain(ascii)) if ascii.contains('.') => ascii,
        // The published set rates a few sites by address.
        Ok(url::Host::Ipv4(address)) => address.to_string(),
        _ => return Err(not_a_domain()),
    };
    let section = match section {
        Some(s) if s.is_empty() || s.chars().any(|c| c.is_whitespace() || c == '?') => {
            return Err(not_a_domain())
        }
        Some(s) => Some(s.to_ascii_lowercase()),
        None => None,
    };
    let rating: f64 = rating
        .trim()
        .trim_matches('"')
        .parse()
        .map_err(|_| format!("rating {:?} is not a number", shorten(rating.trim())))?;
    if !(0.0..=1.0).contains(&rating) {
        return Err(format!("rating {rating} of {domain} is not from 0 to 1"));
    }
    Ok((domain, section, rating))
}

/// Whether `path` (without its leading slash) is `prefix` or under it, case ignored.
fn in_section(path: &str, prefix: &str) -> bool {
    path.len() >= prefix.len()
        && path.is_char_boundary(prefix.len())
        && path[..prefix.len()].eq_ignore_ascii_case(prefix)
        && matches!(path.as_bytes().get(prefix.len()), None | Some(b'/'))
}

fn error(line: usize, message: String) -> RatingsError {
    RatingsError { line, message }
}

/// At most 60 characters of untrusted text, for an error message.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "domain,pc1\nreuters.com,1\nbbc.co.uk,0.93\nnews.bbc.co.uk,0.9\n\"infowars.com\",0.0\nwww.example.org,0.5\n";

    #[test]
    fn hosts_match_themselves_then_their_parents() {
        let ratings = DomainRatings::parse(SAMPLE).expect("parses");
        assert_eq!(ratings.len(), 5);
        assert_eq!(ratings.rating("reuters.com"), Some(1.0));
        assert_eq!(ratings.rating("www.reuters.com"), Some(1.0));
        assert_eq!(ratings.rating("WWW.Reuters.COM."), Some(1.0));
        assert_eq!(ratings.rating("news.bbc.co.uk"), Some(0.9));
        assert_eq!(ratings.rating("sport.news.bbc.co.uk"), Some(0.9));
        assert_eq!(ratings.rating("www.bbc.co.uk"), Some(0.93));
        assert_eq!(ratings.rating("infowars.com"), Some(0.0));
        assert_eq!(ratings.rating("www.example.org"), Some(0.5));
        assert_eq!(
            ratings.rating("example.org"),
            None,
            "a rated host does not rate its parent"
        );
    }

    #[test]
    fn sections_are_rated_apart_from_their_site() {
        let ratings = DomainRatings::parse(
            "domain,pc1\ntheguardian.com,0.9\ntheguardian.com/observer,0.8\nfacebook.com/news,0.4\nwvec–13newsnow.com,0.7\n",
        )
        .expect("parses");
        assert_eq!(ratings.len(), 4);
        let of = |url: &str| ratings.rating_of_url(url);
        assert_eq!(of("https://www.theguardian.com/observer/2023/a"), Some(0.8));
        assert_eq!(of("https://www.theguardian.com/Observer"), Some(0.8));
        assert_eq!(of("https://www.theguardian.com/observers-club"), Some(0.9));
        assert_eq!(of("https://www.theguardian.com/world"), Some(0.9));
        assert_eq!(of("https://www.facebook.com/news/x"), Some(0.4));
        assert_eq!(of("https://www.facebook.com/someone"), None);
        assert_eq!(
            ratings.rating("facebook.com"),
            None,
            "a host alone is not in a section"
        );
        assert_eq!(of("https://wvec–13newsnow.com/"), Some(0.7), "IDNA");
        assert_eq!(ratings.rating("wvec-13newsnow.com"), None);
    }

    #[test]
    fn unrated_hosts_suffixes_and_addresses_have_no_rating() {
        let ratings = DomainRatings::parse(SAMPLE).expect("parses");
        assert_eq!(ratings.rating("co.uk"), None);
        assert_eq!(ratings.rating("itv.co.uk"), None);
        assert_eq!(ratings.rating("reuters.com.evil.example"), None);
        assert_eq!(ratings.rating("notreuters.com"), None);
        assert_eq!(ratings.rating("127.0.0.1"), None);
        let by_address = DomainRatings::parse("domain,pc1\n82.221.129.208,0.1\n").expect("parses");
        assert_eq!(
            by_address.rating_of_url("http://82.221.129.208/x"),
            Some(0.1)
        );
        assert_eq!(ratings.rating(""), None);
        assert_eq!(
            ratings.rating_of_url("https://www.reuters.com/world/x"),
            Some(1.0)
        );
        assert_eq!(ratings.rating_of_url("not a url"), None);
        assert_eq!(ratings.rating_of_url("mailto:a@reuters.com"), None);
    }

    #[test]
    fn bad_files_name_the_line_and_the_fault() {
        let fault = |text: &str| DomainRatings::parse(text).expect_err("refused");
        assert_eq!(fault("").line, 0);
        assert_eq!(fault("domain,pc1\n").message, "no domain is rated");
        let e = fault("domain;pc1\na.com,1\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("header"), "{e}");
        let e = fault("domain,pc1\na.com,1\nb.com,high\n");
        assert_eq!(e.line, 3);
        assert!(e.to_string().contains("\"high\" is not a number"), "{e}");
        let e = fault("domain,pc1\na.com,1.5\n");
        assert!(e.message.contains("not from 0 to 1"), "{e}");
        let e = fault("domain,pc1\na.com,NaN\n");
        assert!(e.message.contains("not from 0 to 1"), "{e}");
        let e = fault("domain,pc1\na.com,1\nA.com,0.5\n");
        assert_eq!((e.line, e.message.as_str()), (3, "a.com is listed twice"));
        let e = fault("domain,pc1\na.com/x,1\na.com/x/,0.5\n");
        assert_eq!(e.line, 3, "{e}");
        let e = fault("domain,pc1\nlocalhost,1\n");
        assert!(e.message.contains("not a domain name"), "{e}");
        let e = fault("domain,pc1\n<script>.com,1\n");
        assert!(e.message.contains("not a domain name"), "{e}");
        let e = fault("domain,pc1\njust-one-column\n");
        assert!(e.message.contains("expected domain,rating"), "{e}");
        let long = format!("domain,pc1\n{}.com,1\n", "a".repeat(300));
        let e = fault(&long);
        assert!(e.message.len() < 120, "untrusted text is shortened: {e}");
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let e = DomainRatings::load(std::path::Path::new("/nonexistent/ratings.csv"))
            .expect_err("refused");
        assert!(e.message.contains("/nonexistent/ratings.csv"), "{e}");
    }

    /// The published set parses whole, and its best-known names are where the paper
    /// puts them.
    #[test]
    fn the_published_set_parses() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpora/lin2023_domain_pc1.csv");
        if !path.exists() {
            eprintln!("notice: {} not found; skipped", path.display());
            return;
        }
        let ratings = DomainRatings::load(&path).expect("the published set parses");
        assert_eq!(ratings.len(), 11_520, "every line is kept");
        assert_eq!(ratings.rating("www.reuters.com"), Some(1.0));
        let infowars = ratings.rating("infowars.com").expect("rated");
        assert!(infowars < 0.2, "{infowars}");
    }
}

//! What kind of publication a source is — a journal, a government body, an
//! encyclopedia, a product's documentation, news, a forum, a blog, social media, a
//! content farm, a shop — judged from its link and, when its page was read, from the
//! scholarly metadata the page carries. A reader weighs a claim differently by where it
//! was published; this names that for each source so that the credibility model and
//! people can use it.
//!
//! The rules read the host (well-known sites by name, government and academic
//! suffixes, `docs.`/`forum.`/`blog.` hosts) and then the path (`/docs/`, `/blog/`,
//! `/questions/`, `/pricing`…). Names are matched on whole labels: `reddit.com` covers
//! `old.reddit.com`, never `reddit.com.evil.example`.

use crate::model::{PageSignals, SourceType};

/// Sites known by name, each with its type. A host matches an entry when it is the
/// entry or under it.
const KNOWN_SITES: &[(&str, SourceType)] = &[
    // Scholarly publishers, indexes and preprint servers.
    ("doi.org", SourceType::Journal),
    ("sciencedirect.com", SourceType::Journal),
    ("springer.com", SourceType::Journal),
    ("wiley.com", SourceType::Journal),
    ("tandfonline.com", SourceType::Journal),
    ("jstor.org", SourceType::Journal),
    ("nature.com", SourceType::Journal),
    ("science.org", SourceType::Journal),
    ("cell.com", SourceType::Journal),
    ("pnas.org", SourceType::Journal),
    ("frontiersin.org", SourceType::Journal),
    ("mdpi.com", SourceType::Journal),
    ("sagepub.com", SourceType::Journal),
    ("plos.org", SourceType::Journal),
    ("bmj.com", SourceType::Journal),
    ("thelancet.com", SourceType::Journal),
    ("nejm.org", SourceType::Journal),
    ("jamanetwork.com", SourceType::Journal),
    ("academic.oup.com", SourceType::Journal),
    ("pubs.acs.org", SourceType::Journal),
    ("ieeexplore.ieee.org", SourceType::Journal),
    ("dl.acm.org", SourceType::Journal),
    ("arxiv.org", SourceType::Journal),
    ("biorxiv.org", SourceType::Journal),
    ("medrxiv.org", SourceType::Journal),
    ("ssrn.com", SourceType::Journal),
    ("researchgate.net", SourceType::Journal),
    ("semanticscholar.org", SourceType::Journal),
    ("europepmc.org", SourceType::Journal),
    ("pubmed.ncbi.nlm.nih.gov", SourceType::Journal),
    ("ncbi.nlm.nih.gov", SourceType::Journal),
    ("biomedcentral.com", SourceType::Journal),
    ("hindawi.com", SourceType::Journal),
    ("elifesciences.org", SourceType::Journal),
    ("peerj.com", SourceType::Journal),
    ("karger.com", SourceType::Journal),
    ("ahajournals.org", SourceType::Journal),
    ("annualreviews.org", SourceType::Journal),
    ("degruyter.com", SourceType::Journal),
    ("emerald.com", SourceType::Journal),
    ("iop.org", SourceType::Journal),
    ("aps.org", SourceType::Journal),
    ("cochranelibrary.com", SourceType::Journal),
    ("scielo.org", SourceType::Journal),
    ("journals.lww.com", SourceType::Journal),
    // Intergovernmental and standards bodies outside government suffixes.
    ("europa.eu", SourceType::Government),
    ("un.org", SourceType::Government),
    ("who.int", SourceType::Government),
    ("oecd.org", SourceType::Government),
    ("worldbank.org", SourceType::Government),
    ("imf.org", SourceType::Government),
    ("iso.org", SourceType::Government),
    ("w3.org", SourceType::Government),
    ("ietf.org", SourceType::Government),
    ("rfc-editor.org", SourceType::Government),
    ("ecb.europa.eu", SourceType::Government),
    ("nhs.uk", SourceType::Government),
    // Encyclopedias and dictionaries.
    ("wikipedia.org", SourceType::Encyclopedia),
    ("britannica.com", SourceType::Encyclopedia),
    ("encyclopedia.com", SourceType::Encyclopedia),
    ("merriam-webster.com", SourceType::Encyclopedia),
    ("dictionary.com", SourceType::Encyclopedia),
    ("dictionary.cambridge.org", SourceType::Encyclopedia),
    ("oxfordreference.com", SourceType::Encyclopedia),
    ("plato.stanford.edu", SourceType::Encyclopedia),
    ("iep.utm.edu", SourceType::Encyclopedia),
    ("scholarpedia.org", SourceType::Encyclopedia),
    ("investopedia.com", SourceType::Encyclopedia),
    ("law.cornell.edu", SourceType::Encyclopedia),
    ("worldhistory.org", SourceType::Encyclopedia),
    ("newworldencyclopedia.org", SourceType::Encyclopedia),
    ("thefreedictionary.com", SourceType::Encyclopedia),
    // Documentation.
    ("developer.mozilla.org", SourceType::Documentation),
    ("readthedocs.io", SourceType::Documentation),
    ("readthedocs.org", SourceType::Documentation),
    ("docs.rs", SourceType::Documentation),
    ("doc.rust-lang.org", SourceType::Documentation),
    ("learn.microsoft.com", SourceType::Documentation),
    ("cppreference.com", SourceType::Documentation),
    // News.
    ("reuters.com", SourceType::News),
    ("apnews.com", SourceType::News),
    ("bbc.co.uk", SourceType::News),
    ("bbc.com", SourceType::News),
    ("nytimes.com", SourceType::News),
    ("washingtonpost.com", SourceType::News),
    ("theguardian.com", SourceType::News),
    ("wsj.com", SourceType::News),
    ("ft.com", SourceType::News),
    ("economist.com", SourceType::News),
    ("bloomberg.com", SourceType::News),
    ("cnn.com", SourceType::News),
    ("cnbc.com", SourceType::News),
    ("npr.org", SourceType::News),
    ("forbes.com", SourceType::News),
    ("time.com", SourceType::News),
    ("theatlantic.com", SourceType::News),
    ("axios.com", SourceType::News),
    ("politico.com", SourceType::News),
    ("aljazeera.com", SourceType::News),
    ("usatoday.com", SourceType::News),
    ("nbcnews.com", SourceType::News),
    ("cbsnews.com", SourceType::News),
    ("abcnews.go.com", SourceType::News),
    ("foxnews.com", SourceType::News),
    ("latimes.com", SourceType::News),
    ("techcrunch.com", SourceType::News),
    ("theverge.com", SourceType::News),
    ("wired.com", SourceType::News),
    ("arstechnica.com", SourceType::News),
    ("scientificamerican.com", SourceType::News),
    ("newscientist.com", SourceType::News),
    ("sciencedaily.com", SourceType::News),
    ("nationalgeographic.com", SourceType::News),
    ("hbr.org", SourceType::News),
    // Forums and Q&A.
    ("reddit.com", SourceType::Forum),
    ("quora.com", SourceType::Forum),
    ("stackexchange.com", SourceType::Forum),
    ("stackoverflow.com", SourceType::Forum),
    ("superuser.com", SourceType::Forum),
    ("serverfault.com", SourceType::Forum),
    ("askubuntu.com", SourceType::Forum),
    ("answers.microsoft.com", SourceType::Forum),
    ("news.ycombinator.com", SourceType::Forum),
    ("city-data.com", SourceType::Forum),
    // Blog platforms.
    ("medium.com", SourceType::Blog),
    ("substack.com", SourceType::Blog),
    ("wordpress.com", SourceType::Blog),
    ("blogspot.com", SourceType::Blog),
    ("tumblr.com", SourceType::Blog),
    ("ghost.io", SourceType::Blog),
    ("hashnode.dev", SourceType::Blog),
    ("dev.to", SourceType::Blog),
    ("livejournal.com", SourceType::Blog),
    // Social media and video.
    ("twitter.com", SourceType::Social),
    ("x.com", SourceType::Social),
    ("facebook.com", SourceType::Social),
    ("instagram.com", SourceType::Social),
    ("linkedin.com", SourceType::Social),
    ("tiktok.com", SourceType::Social),
    ("youtube.com", SourceType::Social),
    ("youtu.be", SourceType::Social),
    ("pinterest.com", SourceType::Social),
    ("threads.net", SourceType::Social),
    ("mastodon.social", SourceType::Social),
    ("bsky.app", SourceType::Social),
    ("vimeo.com", SourceType::Social),
    // Essay mills, homework answers and thin how-to farms.
    ("ukessays.com", SourceType::ContentFarm),
    ("studymode.com", SourceType::ContentFarm),
    ("bartleby.com", SourceType::ContentFarm),
    ("ipl.org", SourceType::ContentFarm),
    ("123helpme.com", SourceType::ContentFarm),
    ("coursehero.com", SourceType::ContentFarm),
    ("chegg.com", SourceType::ContentFarm),
    ("studocu.com", SourceType::ContentFarm),
    ("brainly.com", SourceType::ContentFarm),
    ("scribd.com", SourceType::ContentFarm),
    ("slideshare.net", SourceType::ContentFarm),
    ("ehow.com", SourceType::ContentFarm),
    ("wikihow.com", SourceType::ContentFarm),
    ("answers.com", SourceType::ContentFarm),
    ("reference.com", SourceType::ContentFarm),
    ("ivypanda.com", SourceType::ContentFarm),
    ("gradesfixer.com", SourceType::ContentFarm),
    ("papersowl.com", SourceType::ContentFarm),
    ("kibin.com", SourceType::ContentFarm),
    ("cram.com", SourceType::ContentFarm),
    ("antiessays.com", SourceType::ContentFarm),
    ("writework.com", SourceType::ContentFarm),
    ("samploon.com", SourceType::ContentFarm),
    ("studycorgi.com", SourceType::ContentFarm),
    ("edubirdie.com", SourceType::ContentFarm),
    // Shops.
    ("amazon.com", SourceType::Landing),
    ("ebay.com", SourceType::Landing),
    ("etsy.com", SourceType::Landing),
    ("aliexpress.com", SourceType::Landing),
    ("walmart.com", SourceType::Landing),
];

/// Suffixes of government, military and intergovernmental hosts: the host ends with
/// one of these labels, or with one of them followed by a country code.
const GOVERNMENT_LABELS: &[&str] = &["gov", "gob", "gouv", "govt", "go", "mil", "int"];

/// Suffixes of academic hosts, likewise.
const ACADEMIC_LABELS: &[&str] = &["edu", "ac"];

/// First labels of hosts that say what the site is.
const HOST_PREFIXES: &[(&str, SourceType)] = &[
    ("docs", SourceType::Documentation),
    ("doc", SourceType::Documentation),
    ("developer", SourceType::Documentation),
    ("developers", SourceType::Documentation),
    ("devdocs", SourceType::Documentation),
    ("help", SourceType::Documentation),
    ("support", SourceType::Documentation),
    ("forum", SourceType::Forum),
    ("forums", SourceType::Forum),
    ("community", SourceType::Forum),
    ("discuss", SourceType::Forum),
    ("discourse", SourceType::Forum),
    ("answers", SourceType::Forum),
    ("blog", SourceType::Blog),
    ("blogs", SourceType::Blog),
    ("news", SourceType::News),
    ("shop", SourceType::Landing),
    ("store", SourceType::Landing),
];

/// First path segments that say what the page is.
const PATH_SEGMENTS: &[(&str, SourceType)] = &[
    ("docs", SourceType::Documentation),
    ("documentation", SourceType::Documentation),
    ("manual", SourceType::Documentation),
    ("api-reference", SourceType::Documentation),
    ("forum", SourceType::Forum),
    ("forums", SourceType::Forum),
    ("community", SourceType::Forum),
    ("questions", SourceType::Forum),
    ("threads", SourceType::Forum),
    ("blog", SourceType::Blog),
    ("blogs", SourceType::Blog),
    ("news", SourceType::News),
    ("pricing", SourceType::Landing),
    ("plans", SourceType::Landing),
    ("shop", SourceType::Landing),
    ("store", SourceType::Landing),
    ("buy", SourceType::Landing),
    ("cart", SourceType::Landing),
    ("checkout", SourceType::Landing),
    ("product", SourceType::Landing),
    ("products", SourceType::Landing),
    ("about", SourceType::Company),
    ("about-us", SourceType::Company),
    ("company", SourceType::Company),
    ("careers", SourceType::Company),
    ("press", SourceType::Company),
    ("newsroom", SourceType::Company),
    ("investors", SourceType::Company),
    ("customers", SourceType::Company),
    ("case-studies", SourceType::Company),
];

/// The type of the source at `url`, refined by its page's signals when it was read: a
/// page with scholarly metadata is a journal article wherever it is hosted (a
/// government host stays government). [`SourceType::Unknown`] when nothing says.
pub fn source_type(url: &str, page: Option<&PageSignals>) -> SourceType {
    match url::Url::parse(url) {
        Ok(parsed) => source_type_of(&parsed, page),
        Err(_) => SourceType::Unknown,
    }
}

/// [`source_type`] of a URL already parsed.
pub fn source_type_of(parsed: &url::Url, page: Option<&PageSignals>) -> SourceType {
    let from_url = url_type(parsed);
    match page {
        Some(page) if page.scholarly && from_url != SourceType::Government => SourceType::Journal,
        _ => from_url,
    }
}

/// The type the link alone says.
fn url_type(parsed: &url::Url) -> SourceType {
    let Some(url::Host::Domain(host)) = parsed.host() else {
        return SourceType::Unknown;
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    if let Some(kind) = known_site(host) {
        return kind;
    }
    let labels: Vec<&str> = host.split('.').collect();
    if has_suffix(&labels, GOVERNMENT_LABELS) {
        return SourceType::Government;
    }
    let first_segment = parsed
        .path_segments()
        .and_then(|mut segments| segments.find(|s| !s.is_empty()))
        .map(str::to_ascii_lowercase);
    if let Some(kind) = HOST_PREFIXES
        .iter()
        .find(|(prefix, _)| labels.len() > 2 && labels[0] == *prefix)
        .map(|(_, kind)| *kind)
    {
        return kind;
    }
    if has_suffix(&labels, ACADEMIC_LABELS) {
        return SourceType::Academic;
    }
    if let Some(kind) = first_segment.as_deref().and_then(|segment| {
        PATH_SEGMENTS
            .iter()
            .find(|(name, _)| *name == segment)
            .map(|(_, kind)| *kind)
    }) {
        return kind;
    }
    SourceType::Unknown
}

/// The type of a well-known site `host` is or is under.
fn known_site(host: &str) -> Option<SourceType> {
    let mut name = host;
    loop {
        if let Some((_, kind)) = KNOWN_SITES.iter().find(|(site, _)| *site == name) {
            return Some(*kind);
        }
        name = name.split_once('.')?.1;
    }
}

/// Whether the host's labels end with one of `suffixes`, alone after a name (`nasa.gov`)
/// or before a two-letter country code (`gov.uk`, `ons.gov.uk`, `ox.ac.uk`).
fn has_suffix(labels: &[&str], suffixes: &[&str]) -> bool {
    let n = labels.len();
    let last = labels[n - 1];
    let alone = n >= 2 && suffixes.contains(&last);
    let before_country = n >= 2 && last.len() == 2 && suffixes.contains(&labels[n - 2]);
    alone || before_country
}

#[cfg(test)]
mod tests {
    use super::*;
    use SourceType::*;

    #[test]
    fn links_name_their_type() {
        let cases = [
            ("https://www.nature.com/articles/s41586-023-0", Journal),
            ("https://pubmed.ncbi.nlm.nih.gov/12345/", Journal),
            ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1/", Journal),
            ("https://doi.org/10.1000/xyz", Journal),
            ("https://arxiv.org/abs/2301.00001", Journal),
            ("https://www.cdc.gov/flu/", Government),
            ("https://www.gov.uk/guidance/x", Government),
            ("https://www.ons.gov.uk/economy", Government),
            ("https://www.who.int/news-room", Government),
            ("https://eur-lex.europa.eu/x", Government),
            ("https://www.army.mil/x", Government),
            ("https://www.mit.edu/research", Academic),
            ("https://www.ox.ac.uk/about", Academic),
            ("https://en.wikipedia.org/wiki/Rust", Encyclopedia),
            ("https://plato.stanford.edu/entries/x/", Encyclopedia),
            ("https://www.investopedia.com/terms/x", Encyclopedia),
            ("https://docs.python.org/3/library/", Documentation),
            ("https://kubernetes.io/docs/concepts/", Documentation),
            (
                "https://developer.mozilla.org/en-US/docs/Web",
                Documentation,
            ),
            ("https://support.apple.com/en-us/1", Documentation),
            ("https://www.reuters.com/world/x", News),
            ("https://edition.cnn.com/2024/x", News),
            ("https://news.example.com/x", News),
            ("https://www.reddit.com/r/rust/comments/1", Forum),
            ("https://stackoverflow.com/questions/1", Forum),
            ("https://community.example.com/t/1", Forum),
            ("https://example.com/questions/how", Forum),
            ("https://medium.com/@a/post", Blog),
            ("https://someone.substack.com/p/x", Blog),
            ("https://blog.example.com/post", Blog),
            ("https://example.com/blog/2024/post", Blog),
            ("https://twitter.com/a/status/1", Social),
            ("https://www.youtube.com/watch?v=1", Social),
            ("https://www.ukessays.com/essays/x.php", ContentFarm),
            ("https://www.wikihow.com/Do-X", ContentFarm),
            ("https://www.amazon.com/dp/B000", Landing),
            ("https://example.com/pricing", Landing),
            ("https://example.com/about-us", Company),
            ("https://example.com/careers/", Company),
            ("https://example.com/2024/05/some-article", Unknown),
            ("https://example.com/", Unknown),
        ];
        for (url, expected) in cases {
            assert_eq!(source_type(url, None), expected, "{url}");
        }
    }

    #[test]
    fn look_alike_hosts_and_odd_links_are_not_matched() {
        for url in [
            "https://reddit.com.evil.example/r/x",
            "https://notwikipedia.org/wiki/x",
            "https://gov.example.com/x",
            "https://edu.example.com/x",
            "https://192.0.2.1/docs/x",
            "mailto:a@cdc.gov",
            "not a link",
            "",
        ] {
            assert_eq!(source_type(url, None), Unknown, "{url}");
        }
        assert_eq!(source_type("https://gov/x", None), Unknown);
    }

    #[test]
    fn scholarly_pages_are_journals_wherever_they_are_hosted() {
        let scholarly = PageSignals {
            scholarly: true,
            ..PageSignals::default()
        };
        let plain = PageSignals::default();
        let url = "https://journal.example.org/article/1";
        assert_eq!(source_type(url, None), Unknown);
        assert_eq!(source_type(url, Some(&plain)), Unknown);
        assert_eq!(source_type(url, Some(&scholarly)), Journal);
        assert_eq!(
            source_type("https://www.ncbi.nlm.nih.gov/x", Some(&scholarly)),
            Journal
        );
        assert_eq!(
            source_type("https://www.cdc.gov/mmwr/x", Some(&scholarly)),
            Government
        );
    }
}

//! What the tests of reading Confluence, Jira, Notion and GitHub documents through their
//! APIs share (tests/products_read_atlassian.rs, tests/products_read_notion_github.rs,
//! tests/products_read_limits.rs): the sentences the documents say and the claims made
//! about them, a pipeline with a short check budget, answers citing links, the
//! assertions on how a claim was judged and how a source was read, the calls a fake of
//! `product_docs` got, and the refusals every product's reads are put through.

use super::product_docs::{pairs, query, Content, Doc, Product};
use super::{HostileServer, RequestInfo};
use sourcebot::model::{
    Claim, ClaimSupport, ReadVia, Report, Source, SourceKind, SupportVerdict, VerdictClass,
};
use sourcebot::pipeline::Pipeline;
use std::net::IpAddr;
use std::time::{Duration, Instant};

// What the documents say, sentence by sentence (as every fixture words it).

/// The freeze: 48 hours before each major release.
pub const FROZEN: &str = "Production deploys are frozen for 48 hours before each major release.";
/// The rollbacks: within 30 minutes of the first alert.
pub const ROLLBACK: &str = "Rollbacks must finish within 30 minutes of the first alert.";
/// Who announces the freeze, and where.
pub const ANNOUNCEMENT: &str = "The release manager announces each freeze in the deploys channel.";

// Claims: one the documents say, one whose figure they contradict (15, not 30
// minutes), and two more for the refusal cases.

/// The claim the documents say ([`FROZEN`]).
pub const SAYS: &str = "Production deploys are frozen for 48 hours before each major release";
/// The claim whose figure the documents contradict (15, not 30 minutes).
pub const CONTRADICTS: &str = "Rollbacks must finish within 15 minutes of the first alert";
/// The claim [`ROLLBACK`] says, for the refusal cases.
pub const ROLLS_BACK: &str = "Rollbacks must finish within 30 minutes of the first alert";
/// The claim [`ANNOUNCEMENT`] says, for the refusal cases.
pub const ANNOUNCES: &str = "The release manager announces each freeze in the deploys channel";
/// A claim no document says, for the refusal cases.
pub const HOTFIXES: &str = "Hotfixes skip the freeze when two reviewers approve them";

/// The read cap of the refusal tests: 16 KiB.
pub const CAP: usize = 16 * 1024;

/// A pipeline with `vars` and a 2 s check budget (the Drive and Graph tests' too).
pub fn pipeline(vars: &[(&str, String)]) -> Pipeline {
    let mut vars = vars.to_vec();
    vars.push(("SOURCEBOT_VERIFY_TIMEOUT", "2s".into()));
    super::pipeline::pipeline(&vars)
}

/// `text` checked by `pipeline`, then its cited documents read and its claims judged
/// against them.
pub async fn check_and_read(pipeline: &Pipeline, text: &str) -> Report {
    let mut report = super::pipeline::check(pipeline, text).await;
    pipeline
        .check_support(&mut report)
        .await
        .expect("the support check ran");
    report
}

/// An answer making each claim, citing the links numbered (from 1) after it.
pub fn answer(claims: &[(&str, &[usize])], links: &[String]) -> String {
    let mut text = String::new();
    for (claim, cites) in claims {
        text.push_str(claim);
        for n in *cites {
            text.push_str(&format!(" [{n}]"));
        }
        text.push_str(". ");
    }
    text.push_str("\n\n");
    for (n, link) in links.iter().enumerate() {
        text.push_str(&format!("[{}] {link}\n", n + 1));
    }
    text
}

pub use super::pipeline::source;

/// The claim that starts with `words`.
pub fn claim<'a>(report: &'a Report, words: &str) -> &'a Claim {
    report
        .claims
        .iter()
        .find(|c| c.text.starts_with(words))
        .unwrap_or_else(|| panic!("no claim {words:?} in {:#?}", report.claims))
}

/// How far `link` supports the claim that starts with `words`.
pub fn support<'a>(report: &'a Report, words: &str, link: &str) -> &'a ClaimSupport {
    let id = source(report, link).id;
    claim(report, words)
        .support
        .iter()
        .find(|s| s.source == id)
        .unwrap_or_else(|| {
            panic!(
                "{link} was not judged for {words:?}: {:#?}",
                claim(report, words)
            )
        })
}

/// The sentences of a document as a reader sees it, given block by block (a heading,
/// a paragraph, a table row as its cells joined with `" | "`): each block cut after a
/// `.`, `!` or `?` followed by a space and a capital.
pub fn sentences_of(blocks: &[&str]) -> Vec<String> {
    let mut sentences = Vec::new();
    for block in blocks {
        let mut start = 0;
        let chars: Vec<(usize, char)> = block.char_indices().collect();
        for (n, &(i, c)) in chars.iter().enumerate() {
            let next_is_capital = chars.get(n + 2).is_some_and(|(_, c)| c.is_uppercase());
            let then_space = chars.get(n + 1).is_some_and(|(_, c)| *c == ' ');
            if matches!(c, '.' | '!' | '?') && then_space && next_is_capital {
                sentences.push(block[start..=i].trim().to_string());
                start = i + 1;
            }
        }
        sentences.push(block[start..].trim().to_string());
    }
    sentences
}

/// Asserts that `link` supports the claim `words`, quoting the document's own words:
/// consecutive sentences of `document` (its blocks as a reader sees them, no markup),
/// `sentence` among them.
pub fn expect_supported(
    report: &Report,
    words: &str,
    link: &str,
    document: &[&str],
    sentence: &str,
) {
    let support = support(report, words, link);
    assert_eq!(
        support.verdict,
        SupportVerdict::Supported,
        "{link} should support {words:?}: {support:#?}"
    );
    let quote = support
        .quote
        .as_deref()
        .unwrap_or_else(|| panic!("{link}: a supported claim has no quote: {support:#?}"));
    let sentences = sentences_of(document);
    let n = sentences.len();
    let own_words = (0..n).any(|first| {
        (first + 1..=n).any(|end| {
            let run = &sentences[first..end];
            run.iter().any(|s| s == sentence) && run.join(" ") == quote
        })
    });
    assert!(
        own_words,
        "{link}: the quote {quote:?} is not the document's own sentences around {sentence:?}: {sentences:#?}"
    );
    assert!(support.missing.is_empty(), "{support:#?}");
}

/// Asserts that `link` does not support the claim `words`, whose `figure` it lacks.
pub fn expect_contradicted(report: &Report, words: &str, link: &str, figure: &str) {
    let support = support(report, words, link);
    assert!(
        matches!(
            support.verdict,
            SupportVerdict::NotSupported | SupportVerdict::PartlySupported
        ),
        "{link} should not support {words:?}: {support:#?}"
    );
    assert!(
        support.missing.iter().any(|m| m.contains(figure)),
        "{figure:?} should be missing: {support:#?}"
    );
}

/// Asserts that the claim `words` could not be judged against `link`, for `reason`.
pub fn expect_unreadable(report: &Report, words: &str, link: &str, reason: &str) {
    let support = support(report, words, link);
    assert_eq!(
        support.verdict,
        SupportVerdict::Unreadable,
        "{link} should be unreadable for {words:?}: {support:#?}"
    );
    assert_eq!(
        support.reason.as_deref(),
        Some(reason),
        "{link}: {support:#?}"
    );
    assert_eq!(support.quote, None, "{support:#?}");
}

/// Asserts that `link` was checked and read through `product`, and sits in `kind`.
pub fn expect_read_through(report: &Report, link: &str, product: &str, kind: SourceKind) {
    let source = source(report, link);
    assert_eq!(
        source.verdict.class,
        VerdictClass::Verified,
        "{link}: {:?}",
        source.verdict
    );
    assert_eq!(
        source.read_via,
        Some(ReadVia::Product {
            product: product.into()
        }),
        "{link} was not read through {product}"
    );
    assert_eq!(source.kind, kind, "{link} is in the wrong group");
    assert!(
        report
            .groups
            .iter()
            .any(|g| g.sources.iter().any(|s| s.id == source.id) && g.kind == kind),
        "{link} is not shown with the {kind:?} sources"
    );
}

/// The requests `server` got that `keep` picks, in order.
pub fn requests(server: &HostileServer, keep: impl Fn(&RequestInfo) -> bool) -> Vec<RequestInfo> {
    server
        .request_log()
        .into_iter()
        .filter(|r| keep(r))
        .collect()
}

/// Asserts `request` is a GET of `path` with `query`, `authorization` and `headers`.
pub fn expect_call(
    request: &RequestInfo,
    path: &str,
    query_pairs: &[(&str, &str)],
    authorization: &str,
    headers: &[(&str, &str)],
) {
    assert_eq!(request.method, "GET", "{request:?}");
    assert_eq!(request.path, path, "{request:?}");
    assert_eq!(query(request), pairs(query_pairs), "{request:?}");
    assert_eq!(
        request.header("authorization"),
        Some(authorization),
        "{request:?}"
    );
    for (name, value) in headers {
        assert_eq!(request.header(name), Some(*value), "{name}: {request:?}");
    }
}

/// Checks `text` again with `pipeline` and asserts it is judged as `first` was with
/// no further content call to `server` (`product`'s): the document came from the
/// pipeline's cache. (The link's check is remembered too: nothing at all is asked.)
pub async fn expect_cached(
    pipeline: &Pipeline,
    text: &str,
    first: &Report,
    server: &HostileServer,
    product: Product,
) {
    let reads = || requests(server, |r| product.is_content_call(r)).len();
    let (reads_before, calls_before) = (reads(), server.request_log().len());
    let again = check_and_read(pipeline, text).await;
    assert_eq!(
        reads(),
        reads_before,
        "the document was read again: {:#?}",
        server.request_log()
    );
    assert_eq!(
        server.request_log().len(),
        calls_before,
        "the link was checked again: {:#?}",
        server.request_log()
    );
    let supports = |r: &Report| {
        r.claims
            .iter()
            .map(|c| c.support.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        supports(first),
        supports(&again),
        "the cached document was judged differently"
    );
}

/// Four documents of `product`, served on `ip`, whose content calls refuse (403), ask
/// for a one-second wait (429), are larger than the 16 KiB cap, and are empty; each
/// link's check succeeds.
pub async fn refusals_caps_and_empty_documents(product: Product, ip: IpAddr) {
    let docs = [
        Doc::new(product.doc_id(1), "Freeze policy", Content::Status(403)),
        Doc::new(
            product.doc_id(2),
            "Rollback policy",
            Content::RateLimited {
                seconds: 1,
                then: vec![ROLLBACK.into()],
            },
        ),
        Doc::new(
            product.doc_id(3),
            "Freeze calendar",
            Content::Oversized(4 * CAP),
        ),
        Doc::new(product.doc_id(4), "Hotfix policy", Content::Empty),
    ];
    let server = product.serve(ip, &docs).await;
    let mut vars = product.settings(&server);
    vars.push(("SOURCEBOT_FETCH_MAX_BYTES", CAP.to_string()));
    let pipeline = pipeline(&vars);
    let links: Vec<String> = docs.iter().map(|d| product.link(&server, d)).collect();
    let text = answer(
        &[
            (SAYS, &[1]),
            (ROLLS_BACK, &[2]),
            (ANNOUNCES, &[3]),
            (HOTFIXES, &[4]),
        ],
        &links,
    );
    let started = Instant::now();
    let report = check_and_read(&pipeline, &text).await;
    let took = started.elapsed();
    let name = product.name();
    for link in &links {
        let source = source(&report, link);
        assert_eq!(
            source.verdict.class,
            VerdictClass::Verified,
            "{name}: {link}: {:?}",
            source.verdict
        );
        assert_eq!(source.kind, product.kind(), "{name}: {link}");
    }

    expect_unreadable(
        &report,
        SAYS,
        &links[0],
        &format!("{name} does not let sourcebot read it"),
    );
    // The 429's Retry-After was waited out, and the document read on the second call.
    let title = format!("{}: {}", docs[1].id, docs[1].title);
    let document = match product {
        // An issue's text starts with its key and summary.
        Product::JiraCloud | Product::JiraDataCenter => vec![title.as_str(), ROLLBACK],
        _ => vec![ROLLBACK],
    };
    expect_supported(&report, ROLLS_BACK, &links[1], &document, ROLLBACK);
    let content_calls = |doc: &Doc| {
        requests(&server, |r| {
            product.is_content_call(r) && r.path.contains(doc.id.as_str())
        })
        .len()
    };
    assert_eq!(
        content_calls(&docs[1]),
        2,
        "{name}: {:#?}",
        server.request_log()
    );
    assert!(
        took >= Duration::from_secs(1),
        "{name}: the Retry-After was not waited out ({took:?})"
    );
    assert!(took < Duration::from_secs(5), "{name}: took {took:?}");
    expect_unreadable(
        &report,
        ANNOUNCES,
        &links[2],
        "the document is larger than sourcebot reads (16 KiB)",
    );
    match product {
        // An issue is never empty: it has its key and summary, and is judged on them.
        Product::JiraCloud | Product::JiraDataCenter => {
            let support = support(&report, HOTFIXES, &links[3]);
            assert!(
                matches!(
                    support.verdict,
                    SupportVerdict::NotSupported | SupportVerdict::PartlySupported
                ),
                "{name}: {support:#?}"
            );
            assert_eq!(
                source(&report, &links[3]).read_via,
                Some(ReadVia::Product {
                    product: name.into()
                })
            );
        }
        _ => expect_unreadable(&report, HOTFIXES, &links[3], "the document has no text"),
    }
    for doc in &docs {
        assert!(
            content_calls(doc) >= 1,
            "{name}: {} was never read: {:#?}",
            doc.id,
            server.request_log()
        );
    }
    for request in server.request_log() {
        assert_eq!(
            request.header("authorization"),
            Some(product.authorization()),
            "{name}: {request:?}"
        );
    }
}

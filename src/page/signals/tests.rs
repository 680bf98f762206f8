//! Page signals over fixture pages modelled on what real sites serve (a news article,
//! a journal article, a blog post, a Wikipedia article, a bare page, plain text,
//! hostile markup), read end to end through [`extract`], and the pieces (dates,
//! bylines, ad containers, references, corrections) one by one.

use super::*;
use crate::page::{extract, PageRead};

fn read(content_type: &str, body: &str) -> PageRead {
    extract(Some(content_type), body.as_bytes(), false)
}

fn signals_of(content_type: &str, body: &str) -> PageSignals {
    let read = read(content_type, body);
    read.page()
        .unwrap_or_else(|| panic!("not read: {read:?}"))
        .signals
        .clone()
}

fn html(body: &str) -> PageSignals {
    signals_of("text/html; charset=utf-8", body)
}

fn date(s: &str) -> Option<String> {
    Some(s.to_string())
}

const NEWS: &str = r#"<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Council approves £40m flood defences for the river front | The Daily Example</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="og:type" content="article">
<meta property="og:title" content="Council approves £40m flood defences">
<meta property="article:published_time" content="2023-05-04T08:30:00+01:00">
<meta property="article:modified_time" content="2023-05-05T17:02:11+01:00">
<meta property="article:section" content="Local">
<link rel="stylesheet" href="/static/main.css">
<script src="/static/app.js" defer></script>
</head>
<body class="article-page">
<header class="site-header"><a class="logo" href="/">The Daily Example</a>
  <nav><a href="/news">News</a> <a href="/sport">Sport</a></nav></header>
<div class="hero gradient"><div class="shadow-box"></div></div>
<main>
  <article>
    <h1>Council approves £40m flood defences for the river front</h1>
    <p class="byline">By <a href="/profile/jane-smith">Jane Smith</a>, Environment correspondent</p>
    <p>The city council voted on Wednesday to build new flood walls along the river front.</p>
    <div class="ad-slot ad-slot--inline"><ins class="adsbygoogle" style="display:block"
        data-ad-client="ca-pub-1234567890" data-ad-slot="987654"></ins></div>
    <p>Work is due to start in the autumn and to last two years.</p>
    <p><a href="/news/2023/may/03/department-of-corrections-budget">Read more about the budget</a></p>
    <p><em>Correction: An earlier version of this article gave the cost as £14m.</em></p>
  </article>
</main>
<aside class="rail">
  <iframe src="https://securepubads.g.doubleclick.net/gampad/ads?sz=300x250" width="300" height="250"></iframe>
  <div class="load-more">Load more stories</div>
</aside>
<footer><p>&copy; 2023 The Daily Example</p></footer>
</body></html>"#;

#[test]
fn a_news_article() {
    let read = read("text/html", NEWS);
    let page = read.page().expect("read");
    assert_eq!(
        page.text,
        "Council approves £40m flood defences for the river front\n\n\
         By Jane Smith, Environment correspondent\n\n\
         The city council voted on Wednesday to build new flood walls along the river front.\n\n\
         Work is due to start in the autumn and to last two years.\n\n\
         Read more about the budget\n\n\
         Correction: An earlier version of this article gave the cost as £14m."
    );
    assert_eq!(
        page.signals,
        PageSignals {
            author: true,
            published: date("2023-05-04"),
            updated: date("2023-05-05"),
            references: 0,
            corrections: true,
            ad_slots: 2,
            scholarly: false,
            words: 59,
        }
    );
}

const JOURNAL: &str = r#"<!DOCTYPE html>
<html><head>
<title>Tidal dissipation in shallow seas | Journal of Coastal Research</title>
<meta name="citation_title" content="Tidal dissipation in shallow seas">
<meta name="citation_author" content="Okafor, Ngozi">
<meta name="citation_author" content="Lindqvist, Erik">
<meta name="citation_journal_title" content="Journal of Coastal Research">
<meta name="citation_volume" content="42">
<meta name="citation_issue" content="3">
<meta name="citation_firstpage" content="101">
<meta name="citation_publication_date" content="2021/03/15">
<meta name="citation_online_date" content="2021/02/01">
<meta name="citation_doi" content="10.1234/jcr.2021.0042">
<meta name="citation_pdf_url" content="https://journal.example.org/content/42/3/101.full.pdf">
<meta name="dc.identifier" content="doi:10.1234/jcr.2021.0042">
</head><body>
<div class="journal-header">Journal of Coastal Research</div>
<main>
<article>
  <h1>Tidal dissipation in shallow seas</h1>
  <ul class="contributors"><li>Ngozi Okafor</li><li>Erik Lindqvist</li></ul>
  <section><h2>Abstract</h2><p>Most tidal energy is lost in shallow seas, not the deep ocean.</p></section>
  <section><h2>Introduction</h2>
    <p>Tides lose energy through bottom friction [1, 2] and internal waves [3&ndash;5].</p>
  </section>
  <section class="references" id="references"><h2>References</h2>
    <ol>
      <li>Egbert GD, Ray RD. Significant dissipation of tidal energy in the deep ocean. Nature. 2000;405:775-778. doi:10.1038/35015531</li>
      <li>Munk W, Wunsch C. Abyssal recipes II. Deep-Sea Res I. 1998;45:1977-2010. doi:10.1016/S0967-0637(98)00070-3</li>
      <li>Garrett C, Kunze E. Internal tide generation in the deep ocean. Annu Rev Fluid Mech. 2007;39:57-87. doi:10.1146/annurev.fluid.39.050905.110227</li>
      <li>Jayne SR, St. Laurent LC. Parameterizing tidal dissipation over rough topography. Geophys Res Lett. 2001;28:811-814. doi:10.1029/2000GL012044</li>
      <li>Ray RD. Ocean self-attraction and loading in numerical tidal models. Mar Geod. 1998;21:181-192. doi:10.1080/01490419809388134</li>
      <li>Taylor GI. Tidal friction in the Irish Sea. Phil Trans R Soc A. 1920;220:1-33. doi:10.1098/rsta.1920.0001</li>
    </ol>
  </section>
</article>
</main>
</body></html>"#;

#[test]
fn a_journal_article() {
    assert_eq!(
        html(JOURNAL),
        PageSignals {
            author: true,
            published: date("2021-03-15"),
            updated: None,
            references: 6,
            corrections: false,
            ad_slots: 0,
            scholarly: true,
            words: 126,
        }
    );
}

const BLOG: &str = r#"<!DOCTYPE html>
<html lang="en"><head>
<title>Ten years of sourdough - Crumb &amp; Co</title>
<script type="application/ld+json">
{"@context":"https://schema.org","@type":"BlogPosting","headline":"Ten years of sourdough",
 "author":{"@type":"Person","name":"Priya Raman","url":"https://bakes.example.com/about"},
 "datePublished":"2022-11-08T07:00:00Z",
 "publisher":{"@type":"Organization","name":"Crumb & Co",
   "logo":{"@type":"ImageObject","url":"https://bakes.example.com/logo.png"}}}
</script>
<script async src="https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js?client=ca-pub-0000000000"></script>
<script async src="https://securepubads.g.doubleclick.net/tag/js/gpt.js"></script>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123"></script>
<script src="/wp-content/themes/crumb/app.js"></script>
</head>
<body class="post-template has-ads">
<article class="post">
  <h1>Ten years of sourdough</h1>
  <div class="post-meta">Filed under Baking</div>
  <p>My starter turned ten this week, which is older than my car.</p>
  <div id="div-gpt-ad-1700000000000-0" style="min-width: 300px; min-height: 250px;"></div>
  <p>It has survived two moves, one power cut and a very hot summer.</p>
  <ins class="adsbygoogle" style="display:block" data-ad-client="ca-pub-0000000000" data-ad-slot="1111"></ins>
  <script>(adsbygoogle = window.adsbygoogle || []).push({});</script>
  <div id="taboola-below-article-thumbnails"></div>
  <script src="https://cdn.taboola.com/libtrc/crumbco/loader.js"></script>
</article>
</body></html>"#;

#[test]
fn a_blog_post() {
    assert_eq!(
        html(BLOG),
        PageSignals {
            author: true,
            published: date("2022-11-08"),
            updated: None,
            references: 0,
            corrections: false,
            // adsbygoogle.js, gpt.js, the GPT slot, the AdSense slot, the Taboola
            // container and its loader; not Tag Manager, not the theme's script.
            ad_slots: 6,
            scholarly: false,
            words: 32,
        }
    );
}

const WIKIPEDIA: &str = r##"<!DOCTYPE html>
<html class="client-nojs" lang="en" dir="ltr"><head>
<meta charset="UTF-8"><title>Tide - Wikipedia</title>
</head><body class="skin-vector mediawiki ltr sitedir-ltr">
<div id="mw-navigation"><div id="p-search">Search Wikipedia</div></div>
<main id="content" class="mw-body">
<h1 id="firstHeading" class="firstHeading mw-first-heading">Tide</h1>
<div id="bodyContent" class="vector-body">
<div id="mw-content-text" class="mw-body-content"><div class="mw-content-ltr mw-parser-output" lang="en" dir="ltr">
<p><b>Tides</b> are the rise and fall of sea levels caused by the gravitational forces of the Moon and the Sun.<sup id="cite_ref-1" class="reference"><a href="#cite_note-1">[1]</a></sup>
Most places have two high tides a day.<sup id="cite_ref-2" class="reference"><a href="#cite_note-2">[2]</a></sup><sup id="cite_ref-3" class="reference"><a href="#cite_note-3">[3]</a></sup></p>
<p>Tide tables are published for ports.<sup id="cite_ref-1b" class="reference"><a href="#cite_note-1">[1]</a></sup><sup id="cite_ref-4" class="reference"><a href="#cite_note-4">[4]</a></sup></p>
<h2><span class="mw-headline" id="References">References</span></h2>
<div class="reflist"><div class="mw-references-wrap"><ol class="references">
<li id="cite_note-1"><span class="mw-cite-backlink"><b><a href="#cite_ref-1">^</a></b></span> <span class="reference-text"><cite class="citation web cs1"><a href="https://oceanservice.noaa.gov/facts/tides.html">"What are tides?"</a>. <i>NOAA</i>. Retrieved 2 March 2024.</cite></span></li>
<li id="cite_note-2"><span class="mw-cite-backlink"><b><a href="#cite_ref-2">^</a></b></span> <span class="reference-text"><cite class="citation book cs1">Pugh, David (2014). <i>Sea Level Science</i>. Cambridge University Press. ISBN 978-1-107-02819-7.</cite></span></li>
<li id="cite_note-3"><span class="mw-cite-backlink"><b><a href="#cite_ref-3">^</a></b></span> <span class="reference-text"><cite class="citation journal cs1">Munk, W. (1997). "Once again: once again—tidal friction". <i>Progress in Oceanography</i>. <b>40</b>: 7–35.</cite></span></li>
<li id="cite_note-4"><span class="mw-cite-backlink"><b><a href="#cite_ref-4">^</a></b></span> <span class="reference-text">Admiralty Tide Tables, volume 1 (2024 ed.).</span></li>
</ol></div></div>
<h2><span class="mw-headline" id="External_links">External links</span></h2>
<ul><li><a href="https://tidesandcurrents.noaa.gov/">NOAA Tides and Currents</a></li></ul>
</div></div></div>
</main>
<div id="footer"><ul id="footer-info"><li id="footer-info-lastmod"> This page was last edited on 2 March 2024, at 10:12<span class="anonymous-show">&#160;(UTC)</span>.</li></ul></div>
</body></html>"##;

#[test]
fn a_wikipedia_article() {
    assert_eq!(
        html(WIKIPEDIA),
        PageSignals {
            references: 4,
            words: 85,
            ..PageSignals::default()
        }
    );
}

const BARE: &str = r#"<!DOCTYPE html>
<html><head><title>Garden notes</title></head>
<body class="page has-sidebar">
<div class="header"><div class="shadow"></div></div>
<div class="content gradient">
<h1>Garden notes</h1>
<p>By 2030 the allotments will have a second well.</p>
<p>By continuing to water in the evening, the beans did well.</p>
<p>Results were published widely in the village newsletter [2019].</p>
<p>The department of corrections donated two benches [citation needed].</p>
<div class="download"><a href="/notes.txt">Download these notes</a></div>
</div>
</body></html>"#;

#[test]
fn a_bare_page_shows_nothing() {
    assert_eq!(
        html(BARE),
        PageSignals {
            words: 43,
            ..PageSignals::default()
        }
    );
}

#[test]
fn plain_text_and_markdown() {
    let text = "Tides and the Moon\n\nBy Jane Smith\n\nPublished May 4, 2023 \u{b7} Last updated: 6th May 2023\n\n\
                The Moon's gravity raises two bulges of water.\n\
                Most coasts see two high tides a day.\n";
    assert_eq!(
        signals_of("text/plain", text),
        PageSignals {
            author: true,
            published: date("2023-05-04"),
            updated: date("2023-05-06"),
            words: 33,
            ..PageSignals::default()
        }
    );
    // Markdown: the lines of a references list join into one paragraph; the entries
    // are still counted, by their numbers in sequence.
    let markdown = "# Tidal friction\n\nWritten by A. Writer\n\nFriction slows the Earth [1].\n\n\
                    ## References\n\n\
                    1. Egbert GD, Ray RD. Nature. 2000;405:775. doi:10.1038/35015531\n\
                    2. Munk W. Once again: tidal friction. Prog Oceanogr. 1997;40:7-35.\n\
                    3. Ray RD. Tidal energy dissipation. 2001.\n";
    assert_eq!(
        signals_of("text/markdown", markdown),
        PageSignals {
            author: true,
            references: 3,
            words: 39,
            ..PageSignals::default()
        }
    );
}

#[test]
fn hostile_markup_reports_nothing_and_does_not_panic() {
    let huge = "A".repeat(1 << 20);
    let nines = "9".repeat(1 << 20);
    let page = format!(
        r#"<html><head>
<meta name="author" content="{huge}">
<meta name="description" content="{huge}">
<meta property="article:published_time" content="2023-13-45">
<meta name="citation_date" content="0001-01-01">
<meta property="article:modified_time" content="{nines}">
<meta name="date" content="2023-02-29">
<script type="application/ld+json">{{"@type": "NewsArticle", "author": {{"name": "Jane"}}, "datePublished": "2023-05-04"</script>
<script type="application/ld+json">{deep_json}</script>
<script type="application/ld+json">{{"@type": "NewsArticle", "author": "", "datePublished": "1899-12-31"}}</script>
</head><body>
<p>Plain words.</p>
<time itemprop="datePublished" datetime="2023-04-31">April</time>
<div class="byline"></div><span class="authority">Port authority</span>
<a href="/news/department-of-corrections">Prisons</a>
{deep}
</body></html>"#,
        deep_json = "[".repeat(100_000),
        deep = "<div>".repeat(100_000),
    );
    let started = std::time::Instant::now();
    assert_eq!(
        html(&page),
        PageSignals {
            // "Plain words.", "April", "Port authority", "Prisons".
            words: 6,
            ..PageSignals::default()
        }
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // Hostile text: brackets, DOI prefixes and keywords without end.
    let text = format!(
        "{}\n\n{}\n\n{}\n\n{}",
        "[".repeat(100_000),
        "10.".repeat(50_000),
        "Published ".repeat(10_000),
        "By ".repeat(10_000)
    );
    let signals = text_signals(&text);
    assert_eq!(
        signals,
        PageSignals {
            words: 2 + 2 * 10_000,
            ..PageSignals::default()
        }
    );
}

#[test]
fn counts_are_capped() {
    let ads = format!(
        "<p>Words.</p>{}",
        "<ins class=\"adsbygoogle\"></ins>".repeat(MAX_COUNT + 5)
    );
    assert_eq!(html(&ads).ad_slots, MAX_COUNT);
    let dois: String = (0..MAX_COUNT + 5)
        .map(|i| format!("doi:10.1000/{i} "))
        .collect();
    assert_eq!(text_signals(&dois).references, MAX_COUNT);
    let cites = format!(
        "<p>Words.</p>{}",
        "<cite>A book</cite>".repeat(MAX_COUNT + 5)
    );
    assert_eq!(html(&cites).references, MAX_COUNT);
}

#[test]
fn dates_are_normalised_and_checked() {
    for (raw, expected) in [
        ("2023-05-04", Some("2023-05-04")),
        ("  2023-05-04T08:30:00+01:00 ", Some("2023-05-04")),
        ("2023-05-04 10:00:00", Some("2023-05-04")),
        ("2023/05/04", Some("2023-05-04")),
        ("2023-5-4", Some("2023-05-04")),
        ("20230504", Some("2023-05-04")),
        ("20230504T083000Z", Some("2023-05-04")),
        ("2023-05", Some("2023-05")),
        ("2023", Some("2023")),
        ("May 4, 2023", Some("2023-05-04")),
        ("4 May 2023", Some("2023-05-04")),
        ("4th of May, 2023", Some("2023-05-04")),
        ("Thu, 04 May 2023 10:00:00 GMT", Some("2023-05-04")),
        ("September 2021", Some("2021-09")),
        ("Sept. 9, 2021", Some("2021-09-09")),
        ("2024-02-29", Some("2024-02-29")),
        ("2000-02-29", Some("2000-02-29")),
        ("2100-12-31", Some("2100-12-31")),
        ("1900-01-01", Some("1900-01-01")),
        ("2023-02-29", None),
        ("1900-02-29", None),
        ("2023-04-31", None),
        ("2023-13-45", None),
        ("2023-00-10", None),
        ("2023-05-00", None),
        ("0001-01-01", None),
        ("1899-12-31", None),
        ("2101", None),
        ("04/05/2023", None),
        ("2023-05-04-07", None),
        ("2023--05", None),
        ("2023-05-", Some("2023-05")),
        ("1700000000", None),
        ("2023 was a good year", None),
        ("May 32, 2023", None),
        ("yesterday", None),
        ("", None),
        ("\u{661}\u{662}\u{663}\u{664}-01-01", None),
    ] {
        assert_eq!(normalise_date(raw).as_deref(), expected, "{raw:?}");
    }
}

#[test]
fn dated_lines_near_the_top_are_read() {
    for (text, published, updated) in [
        ("Published May 4, 2023", Some("2023-05-04"), None),
        ("Posted on 4 May 2023 by admin", Some("2023-05-04"), None),
        (
            "First published: Thursday, 4 May 2023",
            Some("2023-05-04"),
            None,
        ),
        (
            "Updated 2023-05-06. Published 2023-05-04.",
            Some("2023-05-04"),
            Some("2023-05-06"),
        ),
        ("Last modified: March 2022", None, Some("2022-03")),
        (
            "This page was updated on 2023/07/01",
            None,
            Some("2023-07-01"),
        ),
        ("Published 2023-13-45", None, None),
        ("Published in Nature on May 4, 2023", None, None),
        ("Unpublished May 4, 2023", None, None),
        ("Published 2023", None, None),
    ] {
        let signals = text_signals(text);
        assert_eq!(signals.published.as_deref(), published, "{text}");
        assert_eq!(signals.updated.as_deref(), updated, "{text}");
    }
    // Only the top of the text is searched.
    let late = format!("{}\n\nPublished May 4, 2023", "word ".repeat(500));
    assert_eq!(text_signals(&late).published, None);
}

#[test]
fn bylines_name_someone() {
    for (text, expected) in [
        ("By Jane Smith", true),
        ("BY JANE SMITH", true),
        ("by Jane Smith and John Doe", true),
        ("Written by A. Writer", true),
        ("Author: Ludwig van Beethoven", true),
        ("By: Siobhán O\u{2019}Brien-Ng", true),
        ("Tides | By Jane Smith | 4 May 2023", true),
        ("By clicking Accept All you agree", false),
        ("By Clicking Accept you agree", false),
        ("By continuing to browse", false),
        ("By 2030 the fleet will be electric", false),
        ("By Reuters", false),
        ("By the Way, Tides Matter", false),
        ("By The Associated Press", false),
        ("Bylaws Committee Meets Today", false),
        ("Posted by admin", false),
        ("Stand By Your Man", false),
    ] {
        assert_eq!(text_signals(text).author, expected, "{text}");
    }
    // Only the top of the text is searched.
    let late = format!("{}\n\nBy Jane Smith", "word ".repeat(500));
    assert!(!text_signals(&late).author);
}

/// A page with `head` in its head and `body` before some text.
fn page(head: &str, body: &str) -> String {
    format!("<html><head>{head}</head><body>{body}<p>Some text.</p></body></html>")
}

#[test]
fn the_markup_names_an_author() {
    for (head, body, expected) in [
        (r#"<meta name="author" content="Jane Smith">"#, "", true),
        (
            r#"<meta property="article:author" content="https://www.facebook.com/janesmith">"#,
            "",
            true,
        ),
        (
            r#"<meta name="citation_author" content="Smith, Jane">"#,
            "",
            true,
        ),
        (r#"<meta name="byl" content="By Jane Smith">"#, "", true),
        (r#"<link rel="author" href="/about/jane">"#, "", true),
        ("", r#"<a rel="author external" href="/jane">J.</a>"#, true),
        (
            r#"<script type="application/ld+json">{"@type":"Article","author":"Jane Smith"}</script>"#,
            "",
            true,
        ),
        (
            r#"<script type="application/ld+json">[{"@type":"WebSite"},{"@type":"Article","author":[{"@type":"Person","name":"Jane Smith"}]}]</script>"#,
            "",
            true,
        ),
        (
            r#"<script type="application/ld+json">{"@graph":[{"@type":"WebPage"},{"@type":"Article","author":{"@id":"https://example.com/#/schema/person/1"}}]}</script>"#,
            "",
            true,
        ),
        (
            "",
            r#"<div class="c-byline"><span>Jane Smith</span></div>"#,
            true,
        ),
        ("", r#"<span itemprop="author">Jane Smith</span>"#, true),
        (
            "",
            r#"<span class="postAuthorName">Jane Smith</span>"#,
            true,
        ),
        (r#"<meta name="author" content="  ">"#, "", false),
        (
            r#"<meta name="description" content="By Jane Smith">"#,
            "",
            false,
        ),
        (
            r#"<script type="application/ld+json">{"@type":"Article","author":""}</script>"#,
            "",
            false,
        ),
        (
            r#"<script type="application/json">{"author":"Jane Smith"}</script>"#,
            "",
            false,
        ),
        (
            "",
            r#"<div class="byline"> <img src="/a.png"> </div>"#,
            false,
        ),
        (
            "",
            r#"<div class="authority-notice">Port notice</div>"#,
            false,
        ),
        ("", r#"<p class="authorized">Authorised dealer</p>"#, false),
        (
            "",
            r#"<ol class="comment-list"><li><div class="comment-author vcard">Sam</div></li></ol>"#,
            false,
        ),
    ] {
        assert_eq!(html(&page(head, body)).author, expected, "{head}{body}");
    }
}

#[test]
fn the_markup_dates_a_page() {
    for (head, body, published, updated) in [
        (
            r#"<meta name="citation_publication_date" content="2021/03/15">"#,
            "",
            Some("2021-03-15"),
            None,
        ),
        (
            r#"<meta name="DC.date.issued" content="2021-03-15">"#,
            "",
            Some("2021-03-15"),
            None,
        ),
        (
            r#"<meta name="pubdate" content="20210315">"#,
            "",
            Some("2021-03-15"),
            None,
        ),
        (
            r#"<meta property="og:updated_time" content="2021-03-16T10:00:00Z">"#,
            "",
            None,
            Some("2021-03-16"),
        ),
        (
            "",
            r#"<time itemprop="datePublished" datetime="2021-03-15T09:00">15 March</time>"#,
            Some("2021-03-15"),
            None,
        ),
        (
            "",
            r#"<time pubdate datetime="2021-03-15">15 March</time>"#,
            Some("2021-03-15"),
            None,
        ),
        (
            "",
            r#"<time class="entry-date published" datetime="2021-03-15T09:00:00+00:00">March 15</time><time class="updated" datetime="2021-04-01T09:00:00+00:00">April 1</time>"#,
            Some("2021-03-15"),
            Some("2021-04-01"),
        ),
        (
            "",
            r#"<time datetime="2021-03-15">a date with no role</time>"#,
            None,
            None,
        ),
        // The meta tag wins over JSON-LD, JSON-LD over <time>, all of them over text.
        (
            r#"<script type="application/ld+json">{"datePublished":"2020-01-02","dateModified":"2020-01-03"}</script><meta property="article:published_time" content="2020-01-01">"#,
            r#"<time itemprop="dateModified" datetime="2020-01-09"></time><p>Published May 4, 2023</p>"#,
            Some("2020-01-01"),
            Some("2020-01-03"),
        ),
        // An invalid tag does not hide a valid one.
        (
            r#"<meta property="article:published_time" content="2023-13-45"><meta name="date" content="2023-05-04">"#,
            "",
            Some("2023-05-04"),
            None,
        ),
    ] {
        let signals = html(&page(head, body));
        assert_eq!(signals.published.as_deref(), published, "{head}{body}");
        assert_eq!(signals.updated.as_deref(), updated, "{head}{body}");
    }
}

#[test]
fn scholarly_metadata_is_recognised() {
    for (head, expected) in [
        (r#"<meta name="citation_doi" content="10.1234/x">"#, true),
        (r#"<meta name="citation_journal_title" content="J">"#, true),
        (r#"<meta name="citation_pdf_url" content="/x.pdf">"#, true),
        (r#"<meta name="prism.doi" content="10.1234/x">"#, true),
        (
            r#"<meta name="DC.Identifier" content="https://doi.org/10.1234/x">"#,
            true,
        ),
        (
            r#"<script type="application/ld+json">{"@type":["ScholarlyArticle","CreativeWork"]}</script>"#,
            true,
        ),
        (
            r#"<meta name="dc.identifier" content="ISBN 978-1-107-02819-7">"#,
            false,
        ),
        (
            r#"<meta name="citation_author" content="Smith, Jane">"#,
            false,
        ),
        (r#"<meta name="dc.title" content="Garden notes">"#, false),
        (r#"<meta property="og:type" content="article">"#, false),
    ] {
        assert_eq!(html(&page(head, "")).scholarly, expected, "{head}");
    }
}

#[test]
fn ad_slots_are_counted_once_each() {
    for (body, expected) in [
        (r#"<div class="ad"></div>"#, 1),
        (r#"<div id="ads"></div>"#, 1),
        (r#"<div class="sidebar_ads"></div>"#, 1),
        (r#"<div id="div-gpt-ad-1700000000000-0"></div>"#, 1),
        (r#"<div class="dfp-leaderboard"></div>"#, 1),
        (r#"<div class="advertisement"></div>"#, 1),
        (r#"<section class="Sponsored-Content"></section>"#, 1),
        (r#"<div aria-label="Advertisement"></div>"#, 1),
        (
            r#"<amp-ad width="300" height="250" type="doubleclick"></amp-ad>"#,
            1,
        ),
        (
            r#"<iframe src="https://tpc.googlesyndication.com/safeframe/1-0-40/html/container.html"></iframe>"#,
            1,
        ),
        (
            r#"<script src="//c.amazon-adsystem.com/aax2/apstag.js"></script>"#,
            1,
        ),
        (
            r#"<script src="https://widgets.outbrain.com/outbrain.js"></script>"#,
            1,
        ),
        (
            r#"<script src="https://static.criteo.net/js/ld/publishertag.js"></script>"#,
            1,
        ),
        (
            r#"<div class="ad-container"><div class="ad-slot"><iframe src="https://ad.doubleclick.net/x"></iframe></div></div>"#,
            1,
        ),
        (
            r#"<div class="ad"></div><div class="ad"></div><div class="ad"></div>"#,
            3,
        ),
        (r#"<div class="header"></div>"#, 0),
        (r#"<div class="shadow"></div>"#, 0),
        (r#"<div class="load-more"></div>"#, 0),
        (r#"<div class="gradient"></div>"#, 0),
        (
            r#"<div class="read-more"></div><div class="add-to-cart"></div><div class="badge"></div>"#,
            0,
        ),
        (
            r#"<div class="no-ads"></div><div class="has-ads"></div>"#,
            0,
        ),
        (
            r#"<iframe src="https://www.youtube.com/embed/abc"></iframe>"#,
            0,
        ),
        (
            r#"<script src="https://notdoubleclick.net/x.js"></script>"#,
            0,
        ),
        (r#"<script src="/js/ads-helper.js"></script>"#, 0),
        (
            r#"<script src="https://www.googletagmanager.com/gtm.js"></script>"#,
            0,
        ),
    ] {
        assert_eq!(html(&page("", body)).ad_slots, expected, "{body}");
    }
    // A page wrapper that says it has ads does not swallow the slots inside it.
    let wrapped = r#"<body class="with-ads"><div class="page has-ads"><div class="ad"></div></div><p>Text.</p></body>"#;
    assert_eq!(html(wrapped).ad_slots, 1);
}

#[test]
fn references_are_counted_from_markup_and_text() {
    for (text, expected) in [
        ("Tides [1] follow the Moon [2][3], as shown [2].", 3),
        ("See [1, 4] and [5\u{2013}9].", 7),
        ("Arrays start at [0] and years like [2019] are not markers.", 0),
        ("See doi:10.1038/35015531 and https://doi.org/10.1038/35015531.", 1),
        ("Two: 10.1000/abc, 10.1016/S0140-6736(20)30183-5.", 2),
        (
            "Body.\n\nReferences\n\nSmith J. A book. 2001.\n\nDoe K. A paper. 2002.\n\nSee also\n\nUnrelated text, with commas.",
            2,
        ),
        (
            "Body.\n\n7. Bibliography:\n\n[1] One, 2001. [2] Two, 2002. [3] Three, 2003.",
            3,
        ),
        (
            "Body.\n\nNotes\n\nFirst note, 2001.\n\nReferences\n\nFirst source, 2001.\n\nSecond source, 2002.",
            3,
        ),
        ("References are available on request.", 0),
    ] {
        assert_eq!(text_signals(text).references, expected, "{text}");
    }
    let markup = page(
        "",
        "<ol class=\"c-article-references\"><li>One</li><li>Two</li><li>Three</li></ol>\
         <ul class=\"menu\"><li>Home</li><li>About</li></ul>",
    );
    assert_eq!(html(&markup).references, 3);
    let cites = page("", "<p><cite>Hamlet</cite> and <cite>Macbeth</cite></p>");
    assert_eq!(html(&cites).references, 2);
}

#[test]
fn corrections_are_recognised() {
    for (text, expected) in [
        ("Correction: An earlier version misspelled her name.", true),
        ("Correction (May 5, 2023): The vote was 7-2.", true),
        (
            "This article has been corrected to show the right date.",
            true,
        ),
        ("We corrected the figure on May 5.", true),
        (
            "Editor\u{2019}s note: An earlier version of this story said otherwise.",
            true,
        ),
        ("Read our corrections policy.", true),
        ("Retraction: this paper has data problems.", true),
        ("Erratum to: Tidal dissipation in shallow seas", true),
        ("The Department of Correction: budget talks resume.", false),
        ("Error correction codes protect the data.", false),
        ("The department of corrections opened a new wing.", false),
        ("Nothing to see here.", false),
    ] {
        assert_eq!(text_signals(text).corrections, expected, "{text}");
    }
    for (href, expected) in [
        ("/corrections", true),
        (
            "https://www.example.com/about/corrections-policy.html",
            true,
        ),
        ("/info/corrections-and-clarifications", true),
        ("/about?page=correction_policy", true),
        ("/news/department-of-corrections", false),
        ("/tags/error-correction", false),
    ] {
        let body = format!("<footer><a href=\"{href}\">Link</a></footer>");
        assert_eq!(html(&page("", &body)).corrections, expected, "{href}");
    }
}

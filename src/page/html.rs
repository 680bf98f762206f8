//! The main text of an HTML page. The page is parsed as a browser would (html5ever,
//! through `scraper`: entities decoded, broken markup repaired), then walked once,
//! without recursion, keeping the text of what a reader came for:
//!
//! - the walk starts at `<main>` (or `[role=main]`), else at the `<article>` with the
//!   most text, else at the whole document;
//! - it skips what is never the page's own prose: scripts, styles, `<noscript>`,
//!   templates, SVG and MathML, navigation, page headers (a `<header>` inside the
//!   article is its headline and is kept), footers, asides, forms, buttons, frames and
//!   embedded objects, hidden elements, and elements whose role, id, class or
//!   `aria-label` names a cookie banner, consent dialog, menu, sidebar, footer, share
//!   buttons, related links, ads and the like;
//! - block elements (paragraphs, headings, list items, table rows, `<br>`) end a
//!   paragraph; whitespace is collapsed inside each.
//!
//! Should the class and id rules drop every word (a page wrapper called
//! `has-sidebar`), the walk is done again with the tag rules alone.
//!
//! The first pass over the document, which finds the title and where the article
//! starts, also shows every node to `signals::Markup` (author, dates, ads…).

use super::signals::Markup;
use super::{clean_title, MAX_TEXT_CHARS};
use ego_tree::iter::Edge;
use ego_tree::NodeRef;
use scraper::node::Element;
use scraper::{ElementRef, Html, Node};

/// What an HTML page yields.
pub(super) struct Extracted {
    /// `<title>`, else `og:title`.
    pub(super) title: Option<String>,
    /// Paragraphs separated by `"\n\n"`; may pass [`MAX_TEXT_CHARS`] by a little.
    pub(super) text: String,
    /// The page has scripts: an empty text may be a page that JavaScript draws.
    pub(super) scripted: bool,
    /// The page nests deeper than [`MAX_DEPTH`]: only what comes before was read.
    pub(super) cut: bool,
    /// What the markup shows about the page.
    pub(super) markup: Markup,
}

/// How deep elements may nest before the rest of the page is dropped unparsed.
pub(super) const MAX_DEPTH: usize = 512;

/// Elements whose content is never the page's prose.
const SKIPPED: [&str; 25] = [
    "script", "style", "noscript", "template", "svg", "math", "nav", "footer", "aside", "form",
    "button", "iframe", "frame", "frameset", "object", "embed", "canvas", "select", "textarea",
    "input", "dialog", "head", "audio", "video", "map",
];

/// Elements that end a paragraph before and after them.
const BLOCKS: [&str; 42] = [
    "address",
    "article",
    "blockquote",
    "body",
    "br",
    "caption",
    "center",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "main",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "tfoot",
    "thead",
    "tr",
    "ul",
    "menu",
    "dir",
    "listing",
];

/// Roles of page furniture.
const FURNITURE_ROLES: [&str; 10] = [
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "menu",
    "menubar",
    "toolbar",
    "search",
    "dialog",
    "alertdialog",
];

/// Words that mark furniture when a class or id begins or ends with them
/// (`share-buttons`, `post-related`), or when an `aria-label` has them.
const FURNITURE_WORDS: [&str; 37] = [
    "nav",
    "navbar",
    "navigation",
    "menu",
    "menubar",
    "sidebar",
    "footer",
    "share",
    "sharing",
    "social",
    "related",
    "advert",
    "adverts",
    "advertisement",
    "advertising",
    "ad",
    "ads",
    "sponsored",
    "promo",
    "promotion",
    "newsletter",
    "subscribe",
    "subscription",
    "signup",
    "breadcrumb",
    "breadcrumbs",
    "comments",
    "comment",
    "popup",
    "modal",
    "banner",
    "toolbar",
    "skip",
    "cookie",
    "cookies",
    "consent",
    "gdpr",
];

/// Fragments that mark furniture anywhere in a class or id (`cookieBanner`,
/// `CybotCookiebotDialog`, `onetrust-consent-sdk`).
const FURNITURE_FRAGMENTS: [&str; 9] = [
    "cookie",
    "consent",
    "gdpr",
    "newsletter",
    "advert",
    "breadcrumb",
    "sidebar",
    "navbar",
    "sponsor",
];

/// Words that mark a page header: furniture outside the article only.
const HEADER_WORDS: [&str; 3] = ["header", "masthead", "topbar"];

/// The title and main text of `source`.
pub(super) fn extract(source: &str) -> Extracted {
    let cut_at = too_deep_at(source);
    let document = Html::parse_document(cut_at.map_or(source, |at| &source[..at]));
    let root = document.root_element();
    let mut title = None;
    let mut og_title = None;
    let mut scripted = false;
    let mut main = None;
    let mut articles = Vec::new();
    let mut markup = Markup::default();
    for edge in root.traverse() {
        let node = match edge {
            Edge::Open(node) => node,
            Edge::Close(node) => {
                markup.close(node);
                continue;
            }
        };
        markup.open(node);
        let Some(element) = ElementRef::wrap(node) else {
            continue;
        };
        let value = element.value();
        match value.name() {
            "title" if title.is_none() => title = clean_title(&element.text().collect::<String>()),
            "meta" if og_title.is_none() => {
                let property = value.attr("property").or_else(|| value.attr("name"));
                if property.is_some_and(|p| p.eq_ignore_ascii_case("og:title")) {
                    og_title = value.attr("content").and_then(clean_title);
                }
            }
            "script" => scripted = true,
            "main" if main.is_none() => main = Some(element),
            "article" => articles.push(element),
            _ if main.is_none() && has_role(value, "main") => main = Some(element),
            _ => {}
        }
    }
    let start = main.or_else(|| {
        articles
            .into_iter()
            .max_by_key(|a| a.text().map(str::len).sum::<usize>())
    });
    let mut text = String::new();
    if let Some(start) = start {
        text = walk(*start, true, Rules::All);
    }
    if text.is_empty() {
        text = walk(*root, false, Rules::All);
    }
    if text.is_empty() {
        text = walk(*root, false, Rules::TagsOnly);
    }
    Extracted {
        title: title.or(og_title),
        text,
        scripted,
        cut: cut_at.is_some(),
        markup,
    }
}

/// Where `</name` (any case) first appears in `bytes` from `from` on.
fn find_end_tag(bytes: &[u8], from: usize, name: &str) -> Option<usize> {
    let mut at = from;
    loop {
        let found = at + memchr::memmem::find(bytes.get(at..)?, b"</")?;
        let after = bytes.get(found + 2..found + 2 + name.len())?;
        if after.eq_ignore_ascii_case(name.as_bytes()) {
            return Some(found);
        }
        at = found + 2;
    }
}

/// Elements without an end tag.
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param",
];

/// Elements whose end tag may be left out: they do not nest.
const OPTIONAL_END: [&str; 17] = [
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot",
    "colgroup", "rb", "rt", "rp", "html",
];

/// Elements whose content is raw text: no tags inside.
const RAW_TEXT: [&str; 6] = ["script", "style", "textarea", "title", "xmp", "noscript"];

/// Where the page first nests deeper than [`MAX_DEPTH`], by a quick count of start
/// and end tags (void, optional-end and raw-text elements and comments aside).
///
/// html5ever checks the stack of open elements at many start tags, so its cost grows
/// with depth × tags: cutting here keeps a hostile 2 MiB page from taking minutes.
fn too_deep_at(source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(offset) = memchr::memchr(b'<', &bytes[at..]) {
        let open = at + offset;
        let rest = &bytes[open + 1..];
        let tag_end = memchr::memchr(b'>', rest).map_or(bytes.len(), |end| open + 1 + end + 1);
        if rest.starts_with(b"!--") {
            at = memchr::memmem::find(rest, b"-->").map_or(bytes.len(), |end| open + 1 + end + 3);
            continue;
        }
        if rest.starts_with(b"/") {
            depth = depth.saturating_sub(1);
            at = tag_end;
            continue;
        }
        let name_len = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if name_len == 0 {
            at = open + 1;
            continue;
        }
        let name = rest[..name_len].to_ascii_lowercase();
        let name = std::str::from_utf8(&name).unwrap_or_default();
        let self_closing = tag_end >= 2 && bytes.get(tag_end - 2) == Some(&b'/');
        at = tag_end;
        if RAW_TEXT.contains(&name) {
            at = find_end_tag(bytes, at, name).unwrap_or(bytes.len());
            continue;
        }
        if VOID.contains(&name) || OPTIONAL_END.contains(&name) || self_closing {
            continue;
        }
        depth += 1;
        if depth > MAX_DEPTH {
            return Some(open);
        }
    }
    None
}

/// Which rules decide what is furniture.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rules {
    /// Tags, roles, classes, ids and labels.
    All,
    /// Tags and hidden elements only.
    TagsOnly,
}

/// One step of the walk: enter a node, or leave an element.
enum Step<'a> {
    Enter(NodeRef<'a, Node>),
    Leave {
        block: bool,
        cell: bool,
        article: bool,
    },
}

/// The text under `start`, which is inside an article when `in_article`.
fn walk(start: NodeRef<'_, Node>, in_article: bool, rules: Rules) -> String {
    let mut out = Writer::default();
    let mut article_depth = usize::from(in_article);
    let mut steps = vec![Step::Enter(start)];
    while let Some(step) = steps.pop() {
        if out.full() {
            break;
        }
        let node = match step {
            Step::Leave {
                block,
                cell,
                article,
            } => {
                if block {
                    out.end_paragraph();
                } else if cell {
                    out.space();
                }
                if article {
                    article_depth = article_depth.saturating_sub(1);
                }
                continue;
            }
            Step::Enter(node) => node,
        };
        let element = match node.value() {
            Node::Text(text) => {
                out.text(text);
                continue;
            }
            Node::Element(element) => element,
            Node::Document | Node::Fragment => {
                push_children(&mut steps, node);
                continue;
            }
            _ => continue,
        };
        let name = element.name();
        if is_furniture(element, article_depth > 0, rules) {
            // Furniture between two words still separates them.
            out.space();
            continue;
        }
        let block = BLOCKS.contains(&name);
        let cell = matches!(name, "td" | "th");
        let article = matches!(name, "article" | "main") || has_role(element, "main");
        if block {
            out.end_paragraph();
        } else if cell {
            out.space();
        }
        if article {
            article_depth += 1;
        }
        steps.push(Step::Leave {
            block,
            cell,
            article,
        });
        push_children(&mut steps, node);
    }
    out.finish()
}

/// Pushes the children of `node` so that the first is taken next.
fn push_children<'a>(steps: &mut Vec<Step<'a>>, node: NodeRef<'a, Node>) {
    let start = steps.len();
    steps.extend(node.children().map(Step::Enter));
    steps[start..].reverse();
}

/// Whether `element` is page furniture, hidden, or never prose.
fn is_furniture(element: &Element, in_article: bool, rules: Rules) -> bool {
    let name = element.name();
    if SKIPPED.contains(&name) || (name == "header" && !in_article) {
        return true;
    }
    if element.attr("hidden").is_some()
        || element
            .attr("aria-hidden")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        || element.attr("style").is_some_and(hidden_by_style)
    {
        return true;
    }
    if rules == Rules::TagsOnly {
        return false;
    }
    if FURNITURE_ROLES.iter().any(|role| has_role(element, role)) {
        return true;
    }
    let named = |token: &str| {
        let lower = token.to_ascii_lowercase();
        if FURNITURE_FRAGMENTS.iter().any(|f| lower.contains(f)) {
            return true;
        }
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        for word in [words.first(), words.last()].into_iter().flatten() {
            if FURNITURE_WORDS.contains(word) || (!in_article && HEADER_WORDS.contains(word)) {
                return true;
            }
        }
        false
    };
    if element.id().is_some_and(named) || element.classes().any(named) {
        return true;
    }
    element.attr("aria-label").is_some_and(|label| {
        label
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| FURNITURE_WORDS.contains(&word.to_lowercase().as_str()))
    })
}

/// `style="display: none"` or `visibility: hidden`.
fn hidden_by_style(style: &str) -> bool {
    let compact: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    compact.contains("display:none") || compact.contains("visibility:hidden")
}

/// Whether `role` is one of the element's roles.
fn has_role(element: &Element, role: &str) -> bool {
    element.attr("role").is_some_and(|roles| {
        roles
            .split_whitespace()
            .any(|r| r.eq_ignore_ascii_case(role))
    })
}

/// Collects text: paragraphs separated by blank lines, whitespace collapsed.
#[derive(Default)]
struct Writer {
    out: String,
    paragraph: String,
    pending_space: bool,
    chars: usize,
}

impl Writer {
    fn text(&mut self, text: &str) {
        for c in text.chars() {
            if c.is_whitespace() {
                self.pending_space = true;
                continue;
            }
            if self.pending_space && !self.paragraph.is_empty() {
                self.paragraph.push(' ');
                self.chars += 1;
            }
            self.pending_space = false;
            self.paragraph.push(c);
            self.chars += 1;
        }
    }

    fn space(&mut self) {
        self.pending_space = true;
    }

    fn end_paragraph(&mut self) {
        if !self.paragraph.is_empty() {
            if !self.out.is_empty() {
                self.out.push_str("\n\n");
                self.chars += 2;
            }
            self.out.push_str(&self.paragraph);
            self.paragraph.clear();
        }
        self.pending_space = false;
    }

    /// Enough text: the rest would be cut anyway.
    fn full(&self) -> bool {
        self.chars > MAX_TEXT_CHARS
    }

    fn finish(mut self) -> String {
        self.end_paragraph();
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(html: &str) -> String {
        extract(html).text
    }

    const ARTICLE: &str = r#"<!DOCTYPE html>
<html><head><title>  Tides &amp; the Moon | Example News </title>
<meta property="og:title" content="Tides and the Moon">
<style>p { color: red }</style><script>var tracking = "SCRIPT TEXT";</script></head>
<body>
<div id="cookie-banner">We use cookies. <button>Accept all</button></div>
<header class="site-header"><a href="/">Example News</a>
  <nav><ul><li><a href="/world">World</a></li><li><a href="/science">Science</a></li></ul></nav>
</header>
<div class="layout">
  <aside class="sidebar">Most read: celebrity gossip</aside>
  <article>
    <header><h1>Tides &amp; the Moon</h1><p class="byline">By A. Writer</p></header>
    <p>The Moon's gravity pulls the oceans,
       raising   two bulges of water.</p>
    <p>Most coasts see <em>two</em> high tides a day&nbsp;&mdash; about 12&nbsp;h 25&nbsp;min apart.</p>
    <div class="share-buttons">Share on X</div>
    <ul><li>Spring tides: Sun and Moon aligned.</li><li>Neap tides: at right angles.</li></ul>
    <section class="related-articles"><h2>Related</h2><a>Why the sky is blue</a></section>
    <footer>Tags: science, oceans</footer>
  </article>
</div>
<div class="newsletter-signup">Subscribe to our newsletter</div>
<footer><p>&copy; 2024 Example News</p></footer>
<noscript>Enable JavaScript</noscript>
</body></html>"#;

    #[test]
    fn an_article_page_yields_only_the_article() {
        let extracted = extract(ARTICLE);
        assert_eq!(
            extracted.title.as_deref(),
            Some("Tides & the Moon | Example News")
        );
        assert_eq!(
            extracted.text,
            "Tides & the Moon\n\nBy A. Writer\n\n\
             The Moon's gravity pulls the oceans, raising two bulges of water.\n\n\
             Most coasts see two high tides a day — about 12 h 25 min apart.\n\n\
             Spring tides: Sun and Moon aligned.\n\nNeap tides: at right angles."
        );
        for furniture in [
            "cookies",
            "Accept",
            "World",
            "Most read",
            "Share on",
            "Related",
            "Tags",
            "newsletter",
            "2024",
            "SCRIPT",
            "color",
            "JavaScript",
        ] {
            assert!(!extracted.text.contains(furniture), "{furniture} kept");
        }
    }

    #[test]
    fn main_wins_and_without_it_the_body_is_read_without_furniture() {
        let page = "<body><div>Intro outside</div><main><p>Inside main</p></main></body>";
        assert_eq!(text(page), "Inside main");
        let role = "<body><p>Outside</p><div role=main><p>Role main</p></div></body>";
        assert_eq!(text(role), "Role main");
        let plain = "<body><nav>Home | About</nav><h1>Title</h1><p>One.</p><p>Two<br>lines</p>\
                     <div role=contentinfo>Contact</div><div aria-label=\"Cookie consent\">OK</div></body>";
        assert_eq!(text(plain), "Title\n\nOne.\n\nTwo\n\nlines");
    }

    #[test]
    fn the_longest_article_is_chosen() {
        let page = "<article><p>Teaser.</p></article>\
                    <article><p>The real story, which is longer.</p></article>";
        assert_eq!(text(page), "The real story, which is longer.");
    }

    #[test]
    fn inline_markup_keeps_words_together_and_cells_apart() {
        assert_eq!(
            text("<p>un<b>break</b>able <i>words</i></p>"),
            "unbreakable words"
        );
        assert_eq!(
            text("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>"),
            "a b\n\nc"
        );
    }

    #[test]
    fn hidden_things_are_dropped() {
        let page = "<p>seen</p><p hidden>unseen</p><p style=\"display: none\">nope</p>\
                    <span aria-hidden=true>icon</span><template><p>later</p></template>\
                    <svg><text>chart label</text></svg>";
        assert_eq!(text(page), "seen");
    }

    #[test]
    fn a_wrapper_named_like_furniture_does_not_empty_the_page() {
        let page = "<body><div class=\"page has-sidebar\"><p>All the text.</p></div></body>";
        assert_eq!(text(page), "All the text.");
    }

    #[test]
    fn og_title_is_the_fallback_and_script_only_pages_say_so() {
        let page = "<head><meta property=og:title content=\" From  OG \"></head><p>x</p>";
        assert_eq!(extract(page).title.as_deref(), Some("From OG"));
        let app =
            extract("<html><body><div id=app></div><script src=app.js></script></body></html>");
        assert!(app.text.is_empty());
        assert!(app.scripted);
    }

    #[test]
    fn deep_nesting_is_cut_before_the_parser_sees_it() {
        // html5ever's scope checks make deep nesting quadratic: 400,000 nested <div>s
        // (2 MiB) would take minutes. Past MAX_DEPTH the rest of the page is dropped.
        let started = std::time::Instant::now();
        let page = format!(
            "<p>kept</p>{}deep{}",
            "<div>".repeat(400_000),
            "</div>".repeat(400_000)
        );
        let extracted = extract(&page);
        assert_eq!(extracted.text, "kept");
        assert!(extracted.cut);
        let spans = format!("{}deep", "<span>".repeat(MAX_DEPTH - 10));
        let extracted = extract(&spans);
        assert_eq!(extracted.text, "deep");
        assert!(!extracted.cut);
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn the_depth_count_ignores_void_optional_and_raw_text_elements() {
        let sloppy = format!(
            "{}{}<script>{}</script><!-- {} -->",
            "<p>para".repeat(5_000),
            "<li>item<br><img src=x><hr/>".repeat(5_000),
            "if (a<b) {}".repeat(5_000),
            "<div>".repeat(5_000)
        );
        assert_eq!(too_deep_at(&sloppy), None);
        let deep = "<div>".repeat(MAX_DEPTH + 1);
        assert_eq!(too_deep_at(&deep), Some(MAX_DEPTH * 5));
    }

    #[test]
    fn the_walk_stops_once_the_text_is_long_enough() {
        let page = "<p>words and more words</p>".repeat(50_000);
        let extracted = text(&page);
        assert!(extracted.chars().count() > MAX_TEXT_CHARS);
        assert!(extracted.chars().count() < MAX_TEXT_CHARS + 100);
    }
}

//! Tests of `scan`.
use super::*;

fn urls(text: &str) -> Vec<String> {
    scan(text).links.into_iter().map(|l| l.url).collect()
}

#[test]
fn slack_links_with_and_without_label() {
    let s = scan("See <https://a.com/x|the doc> and <https://b.com/y>.");
    assert_eq!(s.links.len(), 2);
    assert_eq!(s.links[0].url, "https://a.com/x");
    assert_eq!(s.links[0].label.as_deref(), Some("the doc"));
    assert_eq!(s.links[0].form, LinkForm::Slack);
    assert_eq!(s.links[1].url, "https://b.com/y");
    assert_eq!(s.links[1].label, None);
}

#[test]
fn slack_entities_are_decoded_in_url_and_label() {
    let s = scan("<https://a.com/?a=1&amp;b=2|R&amp;D &lt;notes&gt;>");
    assert_eq!(s.links[0].url, "https://a.com/?a=1&b=2");
    assert_eq!(s.links[0].label.as_deref(), Some("R&D <notes>"));
}

#[test]
fn slack_mentions_are_not_links() {
    let s = scan("Hey <@U123> and <#C1|general> and <!here>");
    assert!(s.links.is_empty());
}

#[test]
fn markdown_links_and_titles() {
    let s = scan("Read [the book](https://doc.rust-lang.org/book/ \"The Book\") now.");
    assert_eq!(s.links.len(), 1);
    assert_eq!(s.links[0].url, "https://doc.rust-lang.org/book/");
    assert_eq!(s.links[0].label.as_deref(), Some("the book"));
    assert_eq!(s.links[0].form, LinkForm::Markdown);
}

#[test]
fn markdown_link_keeps_balanced_parentheses() {
    let u = urls("[Rust](https://en.wikipedia.org/wiki/Rust_(programming_language)) is nice");
    assert_eq!(
        u,
        ["https://en.wikipedia.org/wiki/Rust_(programming_language)"]
    );
}

#[test]
fn markdown_angle_destination() {
    assert_eq!(urls("[a](<https://a.com/x y>)"), ["https://a.com/x y"]);
}

#[test]
fn markdown_autolink() {
    assert_eq!(urls("Go to <https://a.com/x>."), ["https://a.com/x"]);
}

#[test]
fn source_tag_declares_kind_and_title() {
    let s = scan("[Source: confluence - Deploy Runbook](https://wiki.acme.io/pages/1)");
    assert_eq!(s.links[0].declared_kind, Some(SourceKind::Confluence));
    assert_eq!(s.links[0].label.as_deref(), Some("Deploy Runbook"));
    let s = scan("[Source: slack – #eng thread](https://acme.slack.com/archives/C1/p2)");
    assert_eq!(s.links[0].declared_kind, Some(SourceKind::Slack));
    assert_eq!(s.links[0].label.as_deref(), Some("#eng thread"));
}

#[test]
fn via_notes() {
    let s = scan(
        "Deploys freeze Friday (via slack: #eng-deploys). Runbook (via Confluence: Deploy Runbook)",
    );
    assert_eq!(s.via_notes.len(), 2);
    assert_eq!(s.via_notes[0].kind, SourceKind::Slack);
    assert_eq!(s.via_notes[0].name, "#eng-deploys");
    assert_eq!(s.via_notes[1].kind, SourceKind::Confluence);
    assert_eq!(s.via_notes[1].name, "Deploy Runbook");
    assert!(scan("(via email: bob)").via_notes.is_empty());
}

#[test]
fn bare_urls_with_and_without_scheme() {
    assert_eq!(
        urls("see https://a.com/x and www.b.org/y, ok"),
        ["https://a.com/x", "www.b.org/y"]
    );
    assert_eq!(urls("HTTPS://A.COM/X"), ["HTTPS://A.COM/X"]);
}

#[test]
fn bare_urls_drop_trailing_punctuation() {
    for (text, want) in [
        ("end https://a.com/x.", "https://a.com/x"),
        ("list https://a.com/x, next", "https://a.com/x"),
        ("semi https://a.com/x; then", "https://a.com/x"),
        ("colon https://a.com/x: then", "https://a.com/x"),
        ("wow https://a.com/x!", "https://a.com/x"),
        ("huh https://a.com/x?", "https://a.com/x"),
        ("(see https://a.com/x)", "https://a.com/x"),
        ("[see https://a.com/x]", "https://a.com/x"),
        ("{see https://a.com/x}", "https://a.com/x"),
        ("'https://a.com/x'", "https://a.com/x"),
        ("\"https://a.com/x\"", "https://a.com/x"),
        ("**https://a.com/x**", "https://a.com/x"),
        ("*https://a.com/x*", "https://a.com/x"),
        ("https://a.com/x).", "https://a.com/x"),
        ("https://a.com/x?q=1&r=2.", "https://a.com/x?q=1&r=2"),
    ] {
        assert_eq!(urls(text), [want], "in {text:?}");
    }
}

#[test]
fn bare_urls_keep_balanced_parentheses() {
    assert_eq!(
        urls("See https://en.wikipedia.org/wiki/Rust_(programming_language)."),
        ["https://en.wikipedia.org/wiki/Rust_(programming_language)"]
    );
    assert_eq!(
        urls("(https://en.wikipedia.org/wiki/Rust_(programming_language))"),
        ["https://en.wikipedia.org/wiki/Rust_(programming_language)"]
    );
}

#[test]
fn bare_urls_stop_at_cjk() {
    assert_eq!(
        urls("见https://example.com/page。后面"),
        ["https://example.com/page"]
    );
    assert_eq!(
        urls("网址https://example.com/a，然后"),
        ["https://example.com/a"]
    );
    assert_eq!(
        urls("（https://example.com/a）中文"),
        ["https://example.com/a"]
    );
    assert_eq!(
        urls("参见https://example.com/page了解更多"),
        ["https://example.com/page"]
    );
    assert_eq!(urls("“https://example.com/q”"), ["https://example.com/q"]);
}

#[test]
fn cjk_path_segments_are_kept() {
    assert_eq!(
        urls("https://zh.wikipedia.org/zh-hans/中產階級 - 维基"),
        ["https://zh.wikipedia.org/zh-hans/中產階級"]
    );
    assert_eq!(
        urls("https://wiki.mbalib.com/wiki/中产阶级。"),
        ["https://wiki.mbalib.com/wiki/中产阶级"]
    );
}

#[test]
fn reference_lines_keep_cjk_inside_the_url_token() {
    let s = scan("[1] https://wiki.mbalib.com/wiki/PPP模式 - PPP模式 - MBA智库\n[2] https://www.zhonghuashu.com/wiki/道德經_(王弼本) - 道德經\n[3] https://a.com/x。 - t\n");
    let got: Vec<_> = s
        .refs
        .iter()
        .map(|r| r.url.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        got,
        [
            "https://wiki.mbalib.com/wiki/PPP模式",
            "https://www.zhonghuashu.com/wiki/道德經_(王弼本)",
            "https://a.com/x"
        ]
    );
    assert_eq!(s.refs[0].title.as_deref(), Some("PPP模式 - MBA智库"));
}

#[test]
fn urls_glued_to_words_are_not_started_mid_word() {
    assert!(urls("xhttps://a.com").is_empty());
    assert!(urls("foowww.a.com").is_empty());
    assert_eq!(
        urls("https://web.archive.org/web/2020/https://a.com/x"),
        ["https://web.archive.org/web/2020/https://a.com/x"]
    );
}

#[test]
fn scheme_alone_is_not_a_link() {
    assert!(urls("see https:// and http://").is_empty());
    assert!(urls("www. is a prefix").is_empty());
}

#[test]
fn code_is_not_a_citation() {
    let text = "Run `curl https://a.com/x` then\n```\nhttps://b.com/y [1]\n```\nand ``x ` https://c.com`` end https://d.com";
    let s = scan(text);
    assert_eq!(
        s.links.iter().map(|l| l.url.as_str()).collect::<Vec<_>>(),
        ["https://d.com"]
    );
    assert!(s.markers.is_empty());
    assert_eq!(s.code.len(), 1, "one fenced block");
    assert_eq!(s.code_spans.len(), 2, "two code spans");
}

#[test]
fn tilde_fences_and_unclosed_fences() {
    let s = scan("~~~python\nhttps://a.com\n~~~\nhttps://b.com\n```\nhttps://c.com");
    assert_eq!(
        s.links.iter().map(|l| l.url.as_str()).collect::<Vec<_>>(),
        ["https://b.com"]
    );
}

#[test]
fn closing_fence_followed_by_a_marker() {
    let s = scan("```\nhttps://a.com/in-code\n``` [21]\nhttps://b.com/after\n```python\n```\n");
    assert_eq!(s.markers.len(), 1);
    assert_eq!(s.markers[0].numbers, [21]);
    assert_eq!(
        s.links.iter().map(|l| l.url.as_str()).collect::<Vec<_>>(),
        ["https://b.com/after"]
    );
    let s = scan("```\ncode\n```python\nhttps://a.com\n```\n");
    assert!(s.links.is_empty(), "an info string does not close a block");
}

#[test]
fn unclosed_backtick_is_literal() {
    assert_eq!(urls("a ` b https://a.com/x"), ["https://a.com/x"]);
}

#[test]
fn images_are_not_citations() {
    assert!(urls("![logo](https://a.com/logo.png)").is_empty());
}

#[test]
fn markers_of_every_shape() {
    let s = scan("A[1]. B [1][2]. C [1, 3]. D [2-4]. E [^5]. F [3–4]");
    let numbers: Vec<Vec<u32>> = s.markers.iter().map(|m| m.numbers.clone()).collect();
    assert_eq!(
        numbers,
        vec![
            vec![1],
            vec![1],
            vec![2],
            vec![1, 3],
            vec![2, 3, 4],
            vec![5],
            vec![3, 4]
        ]
    );
}

#[test]
fn non_markers() {
    for text in [
        "[they]",
        "[2409.04481]",
        "[0]",
        "[4-2]",
        "[1-500]",
        "[1](https://a.com)",
        "[]",
        "[ ]",
        "[1a]",
    ] {
        assert!(scan(text).markers.is_empty(), "{text}");
    }
}

#[test]
fn reference_lines_of_every_shape() {
    let text = "Body [1][2][3][4][5][6].\n\n[1] https://a.com/1 - Title One\n[2]: https://a.com/2 \"Title Two\"\n3. Title Three — https://a.com/3\n[4] Title Four. https://a.com/4\n[5] https://a.com/5\n[^6]: https://a.com/6\n";
    let s = scan(text);
    let got: Vec<(RefId, Option<String>, Option<String>)> = s
        .refs
        .iter()
        .map(|r| (r.id.clone(), r.url.clone(), r.title.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                RefId::Number(1),
                Some("https://a.com/1".into()),
                Some("Title One".into())
            ),
            (
                RefId::Number(2),
                Some("https://a.com/2".into()),
                Some("Title Two".into())
            ),
            (
                RefId::Number(3),
                Some("https://a.com/3".into()),
                Some("Title Three".into())
            ),
            (
                RefId::Number(4),
                Some("https://a.com/4".into()),
                Some("Title Four".into())
            ),
            (RefId::Number(5), Some("https://a.com/5".into()), None),
            (RefId::Number(6), Some("https://a.com/6".into()), None),
        ]
    );
    assert_eq!(s.markers.len(), 6);
    assert!(s.links.is_empty(), "reference URLs are not inline links");
}

#[test]
fn reference_titles_keep_their_parentheses() {
    let s = scan("[1] https://a.com/x - Canary Release (Martin Fowler)\n[2] A Paper (2020) (https://b.com/y)\n");
    assert_eq!(
        s.refs[0].title.as_deref(),
        Some("Canary Release (Martin Fowler)")
    );
    assert_eq!(s.refs[1].title.as_deref(), Some("A Paper (2020)"));
}

#[test]
fn numbered_markdown_link_reference() {
    let s = scan("Sources:\n1. [Rust Book](https://doc.rust-lang.org/book/)\n2) <https://a.com|A>");
    assert_eq!(s.refs.len(), 2);
    assert_eq!(s.refs[0].title.as_deref(), Some("Rust Book"));
    assert_eq!(s.refs[1].title.as_deref(), Some("A"));
}

#[test]
fn ordinary_numbered_list_item_is_not_a_reference() {
    let s = scan("1. Install it from https://a.com/cli and run it.\n2. Done.");
    assert!(s.refs.is_empty());
    assert_eq!(s.links.len(), 1);
}

#[test]
fn reference_without_link_only_in_reference_section() {
    let s = scan("Claim [1].\n\n## References\n[1] Smith, J. (2020). A Study. Nature.\n");
    assert_eq!(s.refs.len(), 1);
    assert_eq!(s.refs[0].url, None);
    let s = scan("[1] Smith said so.\n");
    assert!(s.refs.is_empty());
    assert_eq!(s.markers.len(), 1);
}

#[test]
fn label_definitions_and_uses() {
    let s = scan("See [the docs][rust].\n\n[rust]: https://doc.rust-lang.org \"Docs\"\n");
    assert_eq!(s.label_uses.len(), 1);
    assert_eq!(s.label_uses[0].id, "rust");
    assert_eq!(s.refs[0].id, RefId::Label("rust".into()));
}

#[test]
fn unsupported_schemes_are_recorded_mail_is_ignored() {
    let s = scan("[x](ftp://a.com/f) [m](mailto:a@b.c) [r](./local.md) <javascript:alert(1)> <mailto:a@b.c|mail> <tel:+15550100>");
    let urls: Vec<&str> = s.unsupported.iter().map(|u| u.url.as_str()).collect();
    assert_eq!(urls, ["ftp://a.com/f", "javascript:alert(1)"]);
    assert!(s.links.is_empty());
}

#[test]
fn link_inside_brackets_is_found() {
    assert_eq!(urls("[see https://a.com/x]"), ["https://a.com/x"]);
}

#[test]
fn spans_cover_the_construct() {
    let text = "x [a](https://a.com) y";
    let s = scan(text);
    assert_eq!(
        &text[s.links[0].span.start..s.links[0].span.end],
        "[a](https://a.com)"
    );
}

#[test]
fn no_panic_on_odd_input() {
    for text in [
        "[",
        "<",
        "(via ",
        "(via slack:",
        "`",
        "```",
        "[1",
        "[^",
        "<https://",
        "<https://a|",
        "www.",
        "h",
        "[a](",
        "[a](<",
        "![",
        "![a](",
        "[a][",
        "\u{FEFF}https://a.com",
        "é[1]",
        "[1]é",
        "1.",
        "[1]",
    ] {
        let _ = scan(text);
    }
}

#[test]
fn other_schemes_are_named_whether_bare_or_linked() {
    let s = scan(
        "Open slack://channel?team=T1&id=C1, file:///etc/hosts or ftp://ftp.example.com/f.txt. \
         Also [the share](smb://fs/share) and <slack://open|Slack>; not C://x, a:b or re://.",
    );
    let urls: Vec<&str> = s.unsupported.iter().map(|u| u.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "slack://channel?team=T1&id=C1",
            "file:///etc/hosts",
            "ftp://ftp.example.com/f.txt",
            "smb://fs/share",
            "slack://open"
        ]
    );
    assert!(s.links.is_empty());
    // A URL glued to a word is not read, and http links are still links.
    let s = scan("xftp://a.com/f and https://b.com/x and git+ssh://git@host/repo.git");
    let urls: Vec<&str> = s.unsupported.iter().map(|u| u.url.as_str()).collect();
    assert_eq!(urls, ["xftp://a.com/f", "git+ssh://git@host/repo.git"]);
    assert_eq!(s.links.len(), 1);
}

#[test]
fn schemeless_slack_links_keep_their_labels() {
    let s = scan("Docs at <www.example.org/page|Example page> and <WWW.example.org/b>.");
    assert_eq!(s.links.len(), 2);
    assert_eq!(s.links[0].url, "www.example.org/page");
    assert_eq!(s.links[0].label.as_deref(), Some("Example page"));
    assert_eq!(s.links[0].form, LinkForm::Slack);
    assert_eq!(s.links[1].url, "WWW.example.org/b");
    assert_eq!(s.links[1].label, None);
}

#[test]
fn backslash_escapes_in_urls_read_as_markdown_renders_them() {
    let text = r"See https://learn.microsoft.com/ms535874\(v=vs.85\).aspx\. And https://en.wikipedia.org/wiki/Rust\_(programming\_language) too, [x](https://a.com/a\_b) and https://c.com/x\y.";
    let s = scan(text);
    let urls: Vec<&str> = s.links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://learn.microsoft.com/ms535874(v=vs.85).aspx",
            "https://en.wikipedia.org/wiki/Rust_(programming_language)",
            "https://a.com/a_b",
            "https://c.com/x",
        ]
    );
    // The span covers the URL as written, escapes included, and not the escaped period.
    assert!(text[s.links[0].span.start..s.links[0].span.end].ends_with(r"\).aspx"));
}

#[test]
fn adjacent_bracketed_urls_are_both_found() {
    assert_eq!(
        urls("[[https://a.com/1]][[https://b.com/2]] and [https://c.com/3][https://d.com/4]"),
        [
            "https://a.com/1",
            "https://b.com/2",
            "https://c.com/3",
            "https://d.com/4"
        ]
    );
    // A real reference use is still one.
    let s = scan("[the docs][rust]\n\n[rust]: https://doc.rust-lang.org\n");
    assert_eq!(s.label_uses.len(), 1);
}

#[test]
fn mentions_are_shown_as_slack_shows_them_and_are_not_links() {
    let s =
        scan("<@U0123|ada> in <#C0456> said <!here> <!subteam^S1|@ops> but <!-- not --> <#fff>");
    assert!(s.links.is_empty() && s.unsupported.is_empty());
    let shown: Vec<String> = s
        .shown
        .iter()
        .map(|item| match &item.as_text {
            ShownText::DecodedWords(words) => words.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(shown, ["@ada", "#C0456", "@here", "@ops"]);
}

/// What `scan` shows for each piece of markup it read, in order.
fn shown_words(text: &str) -> Vec<(String, String)> {
    scan(text)
        .shown
        .iter()
        .map(|item| {
            let span = &text[item.span.start..item.span.end];
            match &item.as_text {
                ShownText::DecodedWords(words) => (span.to_string(), words.clone()),
                other => (span.to_string(), format!("{other:?}")),
            }
        })
        .collect()
}

#[test]
fn slack_links_whose_url_cannot_be_read_show_their_label() {
    // As Slack's SDK fixtures give a file_share and a file_mention message.
    for text in [
        "<@cal> uploaded a file: <https:...7.png|7.png>",
        "<@cal> mentioned a file: <https:...7.png|7.png>",
    ] {
        let s = scan(text);
        assert!(s.links.is_empty(), "{:?}", s.links);
        assert!(s.unsupported.is_empty(), "{:?}", s.unsupported);
        // (`<@cal>`, a name where Slack now puts a user id, is not read as a mention.)
        assert_eq!(
            shown_words(text),
            [("<https:...7.png|7.png>".to_string(), "7.png".to_string())]
        );
    }
    // The label is entity-decoded, as any Slack link's; a cut URL and other schemes
    // read the same.
    assert_eq!(
        shown_words("See <https:...q3.pdf|R&amp;D &lt;plan&gt;> now")[0].1,
        "R&D <plan>"
    );
    assert_eq!(shown_words("<https://|the doc>")[0].1, "the doc");
    assert_eq!(shown_words("<ftp:..x|archive>")[0].1, "archive");
    assert!(scan("<https://|the doc> <https:...7.png|7.png>")
        .links
        .is_empty());
}

#[test]
fn angle_brackets_that_are_not_links_stay_as_written() {
    for text in [
        "a <b and c> d",
        "x < y and y > z",
        "a <b|c> d",
        "a <b:c|d> e",
        "<https:...7.png>",
        "<https:...7.png|>",
        "<https:...7.png|   >",
        "<https:...7.png|7.png",
        "<https:...7.png|7\n.png>",
        "<https:... 7.png|7.png>",
        "<1:2|3>",
        "<:x|y>",
    ] {
        let s = scan(text);
        assert!(s.shown.is_empty(), "{text}: {:?}", shown_words(text));
        assert!(s.links.is_empty(), "{text}");
    }
    // Mentions and links still read as before.
    assert_eq!(shown_words("<@U1|ada>")[0].1, "@ada");
    let s = scan("<https://a.com/x|the doc>");
    assert_eq!(s.links[0].url, "https://a.com/x");
    assert_eq!(shown_words("<https://a.com/x|the doc>")[0].1, "the doc");
}

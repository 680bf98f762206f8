//! The claim rules' unit tests.
use super::*;

fn split(text: &str) -> Vec<&str> {
    split_claims(text, &[], &[])
        .iter()
        .map(|s| &text[s.start..s.end])
        .collect()
}

fn markers(text: &str) -> Vec<Span> {
    let re = Regex::new(r"\[\d+(?:,\s*\d+)*\]|https?://[^\s)\]]*[^\s)\].,;:!?]").unwrap();
    re.find_iter(text)
        .map(|m| Span::new(m.start(), m.end()))
        .collect()
}

fn split_marked(text: &str) -> Vec<&str> {
    split_claims(text, &markers(text), &[])
        .iter()
        .map(|s| &text[s.start..s.end])
        .collect()
}

fn signals(s: &str) -> Vec<ClaimSignal> {
    claim_signals(s)
}

use ClaimSignal::*;

#[test]
fn splits_plain_sentences() {
    assert_eq!(
        split("The sky is blue today. Grass is usually green! Water is wet in most places."),
        vec![
            "The sky is blue today.",
            "Grass is usually green!",
            "Water is wet in most places."
        ]
    );
}

#[test]
fn abbreviations_do_not_split() {
    let t = "Many fruits, e.g. apples and pears, are sweet. Dr. Smith met Mr. Jones at St. Mary's hospital.";
    assert_eq!(
        split(t),
        vec![
            "Many fruits, e.g. apples and pears, are sweet.",
            "Dr. Smith met Mr. Jones at St. Mary's hospital."
        ]
    );
    let t = "Apple Inc. announced results vs. last year, i.e. better ones. See Fig. 3 for details.";
    assert_eq!(
        split(t),
        vec![
            "Apple Inc. announced results vs. last year, i.e. better ones.",
            "See Fig. 3 for details."
        ]
    );
}

#[test]
fn etc_ends_a_sentence_only_before_a_new_one() {
    let t = "They sell apples, pears, etc. and other fruit. They sell tools, nails, etc. The shop is big.";
    assert_eq!(
        split(t),
        vec![
            "They sell apples, pears, etc. and other fruit.",
            "They sell tools, nails, etc.",
            "The shop is big."
        ]
    );
}

#[test]
fn dotted_acronyms_and_initials() {
    let t = "The U.S. Congress passed the bill in May. J. R. R. Tolkien wrote the book in England.";
    assert_eq!(
        split(t),
        vec![
            "The U.S. Congress passed the bill in May.",
            "J. R. R. Tolkien wrote the book in England."
        ]
    );
    let t = "Sales rose sharply in the U.S. The rest of the world lagged behind.";
    assert_eq!(
        split(t),
        vec![
            "Sales rose sharply in the U.S.",
            "The rest of the world lagged behind."
        ]
    );
}

#[test]
fn months_titles_and_numbers_abbreviated() {
    let t =
        "The law took effect on Jan. 5 last year. Item No. 7 was sold for approx. five dollars.";
    assert_eq!(
        split(t),
        vec![
            "The law took effect on Jan. 5 last year.",
            "Item No. 7 was sold for approx. five dollars."
        ]
    );
}

#[test]
fn decimals_versions_and_domains_do_not_split() {
    let t = "Pi is about 3.14 in value. The firm raised $1.5 billion last year. Version v2.0.1 runs on Node.js and ASP.NET well. Visit example.com for more details.";
    assert_eq!(
        split(t),
        vec![
            "Pi is about 3.14 in value.",
            "The firm raised $1.5 billion last year.",
            "Version v2.0.1 runs on Node.js and ASP.NET well.",
            "Visit example.com for more details."
        ]
    );
}

#[test]
fn ellipsis_inside_does_not_split() {
    let t = "He waited... and waited for the bus. Then it came… finally at noon. It was very late… The driver apologised to everyone.";
    assert_eq!(
        split(t),
        vec![
            "He waited... and waited for the bus.",
            "Then it came… finally at noon.",
            "It was very late…",
            "The driver apologised to everyone."
        ]
    );
}

#[test]
fn markers_after_terminator_attach_to_the_sentence_before() {
    assert_eq!(
        split_marked("Foo is 5 in this test.[1] Bar is 6 in that test."),
        vec!["Foo is 5 in this test.[1]", "Bar is 6 in that test."]
    );
    assert_eq!(
        split_marked("Foo is 5 in this test. [1][2] Bar is 6 in that test."),
        vec!["Foo is 5 in this test. [1][2]", "Bar is 6 in that test."]
    );
    assert_eq!(
        split_marked("Foo is 5 in this test [1]. Bar is 6 in that test [2, 3]."),
        vec![
            "Foo is 5 in this test [1].",
            "Bar is 6 in that test [2, 3]."
        ]
    );
}

#[test]
fn urls_are_never_split() {
    let t = "Read the guide at https://example.com/a.b?c=d. It explains the setup in detail.";
    assert_eq!(
        split_marked(t),
        vec![
            "Read the guide at https://example.com/a.b?c=d.",
            "It explains the setup in detail."
        ]
    );
}

#[test]
fn closing_quotes_and_brackets_stay_with_the_sentence() {
    let t = "He said \"the plan will work.\" Then he left the room. (This happened twice in one day.) Nobody was surprised by it.";
    assert_eq!(
        split(t),
        vec![
            "He said \"the plan will work.\"",
            "Then he left the room.",
            "(This happened twice in one day.)",
            "Nobody was surprised by it."
        ]
    );
}

#[test]
fn quoted_questions_and_parentheticals_do_not_split() {
    let t = "\"Why teach word roots?\" asks Alana Domingo from the press. The term (waning?) applies to mobile gaming here.";
    assert_eq!(
        split(t),
        vec![
            "\"Why teach word roots?\" asks Alana Domingo from the press.",
            "The term (waning?) applies to mobile gaming here."
        ]
    );
}

#[test]
fn multi_sentence_quotations_close_where_they_end() {
    let t = "\"The film is about three women in a city. The title reflects their struggle.\" The film is similar to others.";
    assert_eq!(
        split(t),
        vec![
            "\"The film is about three women in a city.",
            "The title reflects their struggle.\"",
            "The film is similar to others."
        ]
    );
}

#[test]
fn bold_sentences_split_after_emphasis() {
    let t = "**The market grew quickly.** Prices rose across the region.";
    assert_eq!(
        split(t),
        vec![
            "**The market grew quickly.**",
            "Prices rose across the region."
        ]
    );
}

#[test]
fn cjk_terminators_need_no_space() {
    let t = "中国的经济增长很快。北京是中国的首都城市！这是真的吗？上海是最大的城市。[1][2]";
    let text = t;
    let got = split_marked(text);
    assert_eq!(
        got,
        vec![
            "中国的经济增长很快。",
            "北京是中国的首都城市！",
            "上海是最大的城市。[1][2]"
        ]
    );
}

#[test]
fn cjk_fragments_are_dropped() {
    assert_eq!(
        split("好的。中国人口众多而且分布不均。"),
        vec!["中国人口众多而且分布不均。"]
    );
}

#[test]
fn list_items_start_new_sentences_and_lose_bullets() {
    let t = "The options are these:\n- Apples grow on trees in orchards\n* Pears are often sweeter than apples\n• Plums ripen late in the summer\n1. Cherries are small and red\n2) Grapes grow on vines in rows";
    assert_eq!(
        split(t),
        vec![
            "Apples grow on trees in orchards",
            "Pears are often sweeter than apples",
            "Plums ripen late in the summer",
            "Cherries are small and red",
            "Grapes grow on vines in rows"
        ]
    );
}

#[test]
fn blank_line_ends_a_sentence() {
    let t = "This paragraph has no final stop\n\nThis one starts a new sentence";
    assert_eq!(
        split(t),
        vec![
            "This paragraph has no final stop",
            "This one starts a new sentence"
        ]
    );
}

#[test]
fn wrapped_lines_join() {
    let t = "This sentence is wrapped\nacross two lines of text. Next one is here.";
    assert_eq!(
        split(t),
        vec![
            "This sentence is wrapped\nacross two lines of text.",
            "Next one is here."
        ]
    );
}

#[test]
fn headings_are_not_claims() {
    let t = "# Market Overview\n## The Largest Firms In 2023\nThe market grew 5% last year.\n**Summary**\nSales rose in every single region.\n__Key points__\nKey Findings And Results\nProfits fell in the third quarter.\nWhat we learned:\nCosts rose faster than expected.";
    assert_eq!(
        split(t),
        vec![
            "The market grew 5% last year.",
            "Sales rose in every single region.",
            "Profits fell in the third quarter.",
            "Costs rose faster than expected."
        ]
    );
}

#[test]
fn setext_rules_and_tables_are_skipped() {
    let t = "Market Report Title\n===================\n\nThe market grew a lot in 2020.\n\n---\n\n| Year | Sales figure here |\n|------|-------|\n| 2020 | 5 |\n\nPrices fell sharply in 2021.";
    assert_eq!(
        split(t),
        vec![
            "The market grew a lot in 2020.",
            "Prices fell sharply in 2021."
        ]
    );
}

#[test]
fn bold_list_label_is_skipped_but_bold_lead_in_is_kept() {
    let t = "- **Benefits**\n- **Cost:** The plan costs less than the old one.";
    assert_eq!(
        split(t),
        vec!["**Cost:** The plan costs less than the old one."]
    );
}

#[test]
fn greetings_and_sign_offs_are_dropped() {
    let t = "Hi! Hello there! Sure! Great question. The tower is 330 metres tall. I hope this helps. Let me know if you need anything else. Happy to help with more questions.";
    assert_eq!(split(t), vec!["The tower is 330 metres tall."]);
}

#[test]
fn meta_lines_are_dropped() {
    let t = "Here's what I found:\nThe bridge opened to traffic in 1937.\nHere is a summary of the main points.\nLet me search for more specific information now.";
    assert_eq!(split(t), vec!["The bridge opened to traffic in 1937."]);
}

#[test]
fn date_stamps_are_dropped_and_sentences_that_start_alike_are_kept() {
    let t = "Updated 12 Jan 2025\n\nLast updated: 3 March 2024\n\nPublished 2024-05-01 by the platform team\n\nAs of March 2025\n\nUpdated guidance cuts the limit to 5 requests.\n\nPublished studies found a 12% drop in 2023.\n\nUpdated 12 Jan 2025: the limit rose to 500 requests a second for every paying customer.";
    assert_eq!(
            split(t),
            vec![
                "Updated guidance cuts the limit to 5 requests.",
                "Published studies found a 12% drop in 2023.",
                "Updated 12 Jan 2025: the limit rose to 500 requests a second for every paying customer."
            ]
        );
}

#[test]
fn conclusions_without_figures_are_dropped() {
    let t = "In conclusion, the policy has broad effects on people. In summary, revenue grew 12% over the decade. To summarize, it matters a great deal. Overall, the results were mixed for everyone. Overall costs rose steadily over time.";
    assert_eq!(
        split(t),
        vec![
            "In summary, revenue grew 12% over the decade.",
            "Overall costs rose steadily over time."
        ]
    );
}

#[test]
fn conclusion_figure_inside_a_marker_does_not_count() {
    let t = "In conclusion, the policy has broad effects on people [5].";
    assert!(split_marked(t).is_empty());
}

#[test]
fn questions_are_dropped() {
    let t = "Why does this happen so often? Because the pipes are old. Is it safe to drink? [2] The water is tested daily.";
    assert_eq!(
        split_marked(t),
        vec!["Because the pipes are old.", "The water is tested daily."]
    );
}

#[test]
fn short_fragments_are_dropped() {
    assert_eq!(
        split("Yes. It works. This one has enough words."),
        vec!["This one has enough words."]
    );
}

#[test]
fn excluded_spans_end_sentences_and_are_never_included() {
    let t = "Install the tool first now `cargo install x` and then run it twice today.";
    let a = t.find('`').unwrap();
    let b = t.rfind('`').unwrap() + 1;
    let got = split_claims(t, &[], &[Span::new(a, b)]);
    let texts: Vec<&str> = got.iter().map(|s| &t[s.start..s.end]).collect();
    assert_eq!(
        texts,
        vec!["Install the tool first now", "and then run it twice today."]
    );
    assert!(got.iter().all(|s| !s.overlaps(&Span::new(a, b))));
}

#[test]
fn code_block_lines_are_excluded() {
    let t = "Run the following command now.\n```\nls -la. Then more code here.\n```\nThe output lists all the files.";
    let a = t.find("```").unwrap();
    let b = t.rfind("```").unwrap() + 3;
    let got = split_claims(t, &[], &[Span::new(a, b)]);
    let texts: Vec<&str> = got.iter().map(|s| &t[s.start..s.end]).collect();
    assert_eq!(
        texts,
        vec![
            "Run the following command now.",
            "The output lists all the files."
        ]
    );
}

#[test]
fn invalid_spans_are_repaired() {
    let t = "Héllo wörld is a phrase. Ünïcode text is handled well here.";
    let got = split_claims(
        t,
        &[Span::new(50, 2), Span::new(2, 3), Span::new(1000, 2000)],
        &[Span::new(2, 1)],
    );
    for s in &got {
        assert!(t.is_char_boundary(s.start) && t.is_char_boundary(s.end));
    }
}

#[test]
fn signal_percentage() {
    for s in [
        "Growth was 45% last quarter",
        "Growth was 45 % overall",
        "It rose 4.5 percent",
        "It rose 3 per cent",
        "增长了百分之五",
        "增长了５％",
    ] {
        assert!(signals(s).contains(&Percentage), "{s}");
    }
    assert_eq!(signals("Growth was 45% this week"), vec![Percentage]);
}

#[test]
fn signal_money() {
    for s in [
        "It cost $5 to make",
        "Revenue hit €3.2bn",
        "Price is £40 now",
        "It costs ¥500",
        "Paid ₹20 each",
        "USD 5 per unit",
        "Price is 5 EUR",
        "It cost 5 million dollars",
        "millions of dollars were lost",
        "投资了3万元",
        "收入2亿元",
        "价值10美元",
        "Fees reached $5B",
    ] {
        assert!(signals(s).contains(&Money), "{s}");
    }
    assert!(!signals("It cost $5 to make").contains(&Number));
}

#[test]
fn signal_date() {
    for s in [
        "It was founded in 1998",
        "On March 3, 2021 it opened",
        "Open from 3 March onwards",
        "Released 2021-03-03",
        "Results for Q3 2023",
        "2023年的数据",
        "3月的销量",
        "Popular in the 1990s",
        "Built in the 19th century",
        "Started mid-2023 only",
        "Released on 3/3/2021",
    ] {
        assert!(signals(s).contains(&Date), "{s}");
    }
    assert_eq!(signals("It was founded in 1998"), vec![Date]);
    assert!(!signals("There were 2500 people").contains(&Date));
}

#[test]
fn signal_number() {
    for s in [
        "There are 12 members",
        "About 1,234 people came",
        "It weighs 5kg in total",
        "A 10x improvement",
        "Python 3 is common",
        "第1级是统治阶层",
        "过去20年增长很快",
    ] {
        assert!(signals(s).contains(&Number), "{s}");
    }
}

#[test]
fn spelled_magnitudes_are_numbers() {
    for s in [
        "Three million people live there",
        "Thousands of people came",
        "Sales doubled",
        "Half of them left",
        "It is twice as fast",
        "人口达到十四亿",
        "有五万人参加",
    ] {
        assert!(signals(s).contains(&Number), "{s}");
    }
}

#[test]
fn number_exclusions() {
    for s in [
        "1. Apples are good",
        "Upgrade to v2 now",
        "Release v2.0.1 is out",
        "HTTP/2 is faster",
        "GPT-4 is a model",
        "COVID-19 spread widely",
        "Water is H2O",
        "The 4IR changes work",
        "It renders in 3D",
        "Version 2.0.1 is out",
    ] {
        let got = signals(s);
        assert!(
            !got.contains(&Number) && !got.contains(&Date),
            "{s}: {got:?}"
        );
    }
    assert!(signals("It grew a lot   ").is_empty());
    assert!(signals("It grew a lot [1] and [2, 3]").is_empty());
}

#[test]
fn signal_quotation() {
    assert!(signals("He said \"we will win this\" today").contains(&Quotation));
    assert!(signals("He said “we will win this” today").contains(&Quotation));
    assert!(signals("他说「我们一定会赢」").contains(&Quotation));
    assert!(!signals("The so-called \"experts\" disagree").contains(&Quotation));
    assert!(!signals("The \"middle class\" shrank").contains(&Quotation));
    assert!(!signals("所谓的\"中惨\"现象").contains(&Quotation));
}

#[test]
fn signal_superlative() {
    for s in [
        "It is the largest city",
        "The best result so far",
        "She was the first woman",
        "The only option left",
        "A record high",
        "The #1 brand",
        "It is number one",
        "The leading cause of death",
        "The top seller",
        "The wealthiest family",
        "这是最大的城市",
        "排名第一",
        "首个登月的人",
        "唯一的选择",
    ] {
        assert!(signals(s).contains(&Superlative), "{s}");
    }
}

#[test]
fn superlative_exclusions() {
    for s in [
        "It keeps the interest low",
        "A test of the rest",
        "The forest is quiet",
        "I suggest a request",
        "The latest version",
        "It is not only cheap",
        "This is leading to problems",
        "Use best practices",
        "It will most likely rain",
        "At first it was hard",
        "First, open the box",
        "We need to record data",
        "Record the date in the log",
        "First-line treatment works",
        "On top of that it rains",
        "最后我们回家了",
        "最新的版本",
        "最近很忙",
    ] {
        assert!(!signals(s).contains(&Superlative), "{s}");
    }
}

#[test]
fn signals_are_sorted_and_unique() {
    let got = signals("In 2020 the largest firm earned $5 billion, 12% more, and \"we are very happy\" said 3 people, 5 of them.");
    assert_eq!(
        got,
        vec![Number, Date, Percentage, Money, Quotation, Superlative]
    );
    assert!(signals("The cat sat on the mat").is_empty());
}

#[test]
fn case_insensitive_words() {
    assert!(signals("THE LARGEST CITY").contains(&Superlative));
    assert!(signals("Two MILLION people").contains(&Number));
}

#[test]
fn random_input_never_panics() {
    let pieces = [
        "a",
        "Foo",
        " ",
        "  ",
        "\n",
        "\n\n",
        ".",
        "!",
        "?",
        "…",
        "。",
        "！",
        "？",
        "[1]",
        "e.g.",
        "U.S.",
        "中国",
        "日本語",
        "한국어",
        "é",
        "👍🏽",
        "\u{0301}",
        "- ",
        "* ",
        "1. ",
        "# ",
        "**",
        "\"",
        "“",
        "”",
        "「",
        "」",
        "$",
        "5",
        "2023",
        "%",
        "年",
        "最",
        "|",
        "---",
        "\r\n",
        "\t",
        ":",
        "：",
        "https://x.y/z.",
        "\u{a0}",
        "\u{3000}",
        "(",
        ")",
        "Mr.",
        "...",
        "'",
        "’",
        "`",
        ">",
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..2000 {
        let n = (next() % 40) as usize;
        let mut text = String::new();
        for _ in 0..n {
            text.push_str(pieces[(next() % pieces.len() as u64) as usize]);
        }
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let mut cuts: Vec<usize> = (0..(next() % 8))
            .map(|_| bounds[(next() % bounds.len() as u64) as usize])
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut opaque = Vec::new();
        let mut excluded = Vec::new();
        for (k, w) in cuts.windows(2).enumerate() {
            if k % 2 == 0 {
                if next() % 2 == 0 {
                    opaque.push(Span::new(w[0], w[1]));
                } else {
                    excluded.push(Span::new(w[0], w[1]));
                }
            }
        }
        let got = split_claims(&text, &opaque, &excluded);
        let mut prev_end = 0;
        for s in &got {
            assert!(s.start < s.end && s.end <= text.len(), "{text:?} {s:?}");
            assert!(s.start >= prev_end, "{text:?} {got:?}");
            assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
            assert!(
                excluded.iter().all(|e| !e.overlaps(s)),
                "{text:?} {s:?} {excluded:?}"
            );
            prev_end = s.end;
            let sig = claim_signals(&text[s.start..s.end]);
            assert!(sig.windows(2).all(|w| w[0] < w[1]));
        }
        claim_signals(&text);
    }
}

/// Claims of `text` collected as a whole answer, as people read them.
fn claim_texts(answer: &crate::model::Answer) -> Vec<String> {
    crate::collect::collect(answer, &crate::collect::CollectOptions::default())
        .claims
        .into_iter()
        .map(|c| c.text)
        .collect()
}

#[test]
fn a_slack_link_whose_url_cannot_be_read_reads_as_its_label() {
    let answer = crate::model::Answer {
        text: "Ada uploaded the load test chart: <https:...7.png|7.png> shows 1,200 requests per second in March 2025.".into(),
        ..crate::model::Answer::default()
    };
    assert_eq!(
        claim_texts(&answer),
        ["Ada uploaded the load test chart: 7.png shows 1,200 requests per second in March 2025."]
    );
    let collected = crate::collect::collect(&answer, &crate::collect::CollectOptions::default());
    assert!(collected.sources.is_empty(), "{:?}", collected.sources);
    // Angle brackets that are no link stay as written.
    let answer = crate::model::Answer {
        text:
            "In 2024 the ratio x < y held in all 12 regions, and a <b and c> d held in 3 of them."
                .into(),
        ..crate::model::Answer::default()
    };
    assert_eq!(
        claim_texts(&answer),
        ["In 2024 the ratio x < y held in all 12 regions, and a <b and c> d held in 3 of them."]
    );
}

#[test]
fn slack_sdk_file_share_fixtures_read_as_slack_shows_them() {
    for (fixture, reads) in [
        (
            r#"{"type": "message", "subtype": "file_share", "ts": "1358877455.000010", "text": "<@cal> uploaded a file: <https:...7.png|7.png>", "file": {}, "user": "U2147483697", "upload": true}"#,
            "@cal uploaded a file: 7.png",
        ),
        (
            r#"{"type": "message", "subtype": "file_mention", "ts": "1358877455.000010", "text": "<@cal> mentioned a file: <https:...7.png|7.png>", "file": {}, "user": "U2147483697"}"#,
            "@cal mentioned a file: 7.png",
        ),
    ] {
        let answer = crate::collect::input::parse_answer(
            fixture.as_bytes(),
            crate::collect::input::FormatHint::SlackMessage,
            1 << 20,
        )
        .expect("a Slack message");
        let collected =
            crate::collect::collect(&answer, &crate::collect::CollectOptions::default());
        assert!(collected.sources.is_empty(), "{:?}", collected.sources);
        let texts: Vec<&str> = collected.claims.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, [reads]);
    }
}

//! `missing`'s rules, one test a rule.

use super::*;

fn missing(claim: &str, page: &str) -> Vec<String> {
    missing_words(claim, &PageIndex::new([page]))
}

#[test]
fn numbers_match_in_their_usual_spellings() {
    let claim = "The plant employs 1,200 people.";
    for page in [
        "It employs 1200 people.",
        "It employs 1,200 people.",
        "It employs 1.2k people.",
        "It employs 1.2 thousand people.",
    ] {
        assert!(missing(claim, page).is_empty(), "{page}");
    }
    assert_eq!(missing(claim, "It employs 1,300 people."), ["1,200"]);
    assert!(missing("Sales fell 5% in March.", "sales fell 5 percent in March").is_empty());
    assert!(missing("It has five wards.", "It has 5 wards.").is_empty());
    assert!(missing("It has 5 wards.", "It has five wards.").is_empty());
    assert!(missing("Revenue was $3.5 million.", "revenue of 3,500,000 dollars").is_empty());
}

#[test]
fn a_number_inside_another_number_does_not_count() {
    assert_eq!(
        missing("It opened in 2019.", "Reference 20190 applies."),
        ["2019"]
    );
    assert_eq!(missing("It opened in 2019.", "Call 555-20191."), ["2019"]);
    assert!(missing("It opened in 2019.", "It opened on 2019-03-01.").is_empty());
}

#[test]
fn dates_match_in_their_usual_orders() {
    let claim = "He was born on July 11, 1909 in Ohio.";
    for page in [
        "Born 11 July 1909 in Ohio.",
        "Born July 11, 1909, Ohio.",
        "Born 1909-07-11 in Ohio.",
    ] {
        assert!(missing(claim, page).is_empty(), "{page}");
    }
    // The page has the month and year, not the day: the date as written is missing.
    assert_eq!(
        missing(claim, "Born in July 1909 in Ohio."),
        ["July 11, 1909"]
    );
    assert_eq!(
        missing("It began in early 2007.", "It began in 2009."),
        ["early 2007"]
    );
    assert!(missing("It began in late 2007.", "It began late, in 2007.").is_empty());
    // Another date entirely: the whole date as the claim writes it.
    assert_eq!(
        missing(
            "Brian Pendleton died on 16 May 2001.",
            "Brian Pendleton died in 2003."
        ),
        ["16 May 2001"]
    );
    // The year is on the page elsewhere: the day and month are missing.
    assert_eq!(
        missing(
            "It closed on 3 March 2001.",
            "Founded 2001, it closed in June."
        ),
        ["3 March"]
    );
}

#[test]
fn may_is_a_month_only_beside_a_day_or_year() {
    assert!(missing("May Smith won in May 2001.", "May Smith won in May 2001.").is_empty());
    assert_eq!(
        missing("It opened in May 2001.", "It opened in June 2001."),
        ["May"]
    );
    assert_eq!(
        missing("It was run by Theresa May.", "It was run by Theresa Smith."),
        ["May"]
    );
    assert!(missing("It may open in 2001.", "It opened in 2001.").is_empty());
}

#[test]
fn acronyms_match_case_sensitively_and_dots_aside() {
    assert_eq!(
        missing("It shipped to the US market.", "Give it to us now."),
        ["US"]
    );
    assert!(missing("It shipped to the US market.", "Sold in the U.S. market.").is_empty());
    assert!(missing("It shipped to the US market.", "Sold in the US market.").is_empty());
}

#[test]
fn names_match_case_and_accent_insensitively_and_by_stem() {
    assert!(missing(
        "His wife is Lisandra Hernández.",
        "married to LISANDRA HERNANDEZ"
    )
    .is_empty());
    assert_eq!(
        missing(
            "His wife is Lisandra Hernández.",
            "married to Lisandra Perez"
        ),
        ["Hernández"]
    );
    assert!(missing("The Beatles released it.", "a Beatle released it").is_empty());
    // A sentence's first word is a name only before another capitalised word.
    assert!(missing("Deploys are frozen in 2024.", "freezes in 2024").is_empty());
    assert_eq!(
        missing("Brian Pendleton left.", "Pendleton left."),
        ["Brian"]
    );
}

#[test]
fn ordinals_and_quantities() {
    assert!(missing("It was the 3rd edition.", "the third edition").is_empty());
    assert_eq!(missing("It was the 3rd edition.", "3 editions"), ["3rd"]);
    assert!(missing("It was funded with 17 hours left.", "with 17 hours to go").is_empty());
    assert_eq!(
        missing(
            "It was funded with 17 hours left.",
            "17 backers pledged early, and two hours were left"
        ),
        ["17 hours"]
    );
    assert_eq!(
        missing(
            "He appeared in a Grammy-nominated film.",
            "A film about DJs."
        ),
        ["Grammy-nominated"]
    );
    // An ordinal in figures, or in a name or compound, needs its noun near it on the
    // page, as a quantity does.
    let claim = "He ran for the 1st District seat.";
    assert!(missing(claim, "He ran in the First District.").is_empty());
    assert!(missing(claim, "the 1st district of the state").is_empty());
    assert_eq!(
        missing(claim, "He first ran in 2016 for a district seat."),
        ["1st District"]
    );
    assert_eq!(missing(claim, "He ran for the district seat."), ["1st"]);
    assert_eq!(
        missing(
            "He retired from first-class cricket.",
            "First picked in 1990, he later played minor county cricket, a lower class."
        ),
        ["first-class"]
    );
    // A word ordinal before a plain noun is too loose to hold to its noun.
    assert!(missing("It was the first single.", "The debut single came first.").is_empty());
}

#[test]
fn hyphenated_words_and_neighbours_are_given_together() {
    assert!(missing("A five-decade career.", "a career of five decades").is_empty());
    assert_eq!(
        missing("It won in 1909 at Beulah Park.", "It won at the track."),
        ["1909", "Beulah Park"]
    );
    assert!(missing("Nothing salient here at all.", "unrelated").is_empty());
    // A name between two missing names is one missing name.
    assert_eq!(
        missing(
            "The store is in the Port Baku Mall.",
            "The store opened in Baku in 2012."
        ),
        ["Port Baku Mall"]
    );
    assert_eq!(
        missing(
            "He joined the Clothing and Textile Workers Union.",
            "He joined a textile union in 1974."
        ),
        ["Clothing", "Textile Workers"]
    );
    // Not across punctuation, and not a name the page has beside only one.
    assert_eq!(
        missing(
            "In 1905, William Seymour spoke.",
            "William Seymour spoke in 1906."
        ),
        ["1905"]
    );
    assert!(
        missing("It won in 1909.", "").is_empty(),
        "an empty page: not judged"
    );
}

#[test]
fn citation_markers_are_not_the_claims_numbers() {
    assert!(missing("It was founded in Boston [1][2, 3].", "Founded in Boston.").is_empty());
    assert_eq!(
        missing("It was founded in 1998 [^4].", "Founded long ago."),
        ["1998"]
    );
}

#[test]
fn citation_markers_are_the_scanners_markers() {
    // The scanner's own cases (collect::scan's `markers_of_every_shape` and
    // `non_markers`): the same spans, and nothing where it reads none.
    for text in [
        "A[1]. B [1][2]. C [1, 3]. D [2-4]. E [^5]. F [3–4]",
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
        let scanned: Vec<(usize, usize)> = crate::collect::scan::scan(text)
            .markers
            .iter()
            .map(|m| (m.span.start, m.span.end))
            .collect();
        assert_eq!(citation_markers(text), scanned, "{text}");
    }
    assert_eq!(
        missing("It opened in 2019 [1-500].", "It opened in 2019."),
        ["1-500"]
    );
    assert!(missing("It opened in 2019 [^3][4–5].", "It opened in 2019.").is_empty());
}

#[test]
fn figures_are_missing_whole_as_the_claim_writes_them() {
    assert_eq!(
        missing(
            "Deploys stop before the 14:00 UTC deploy freeze.",
            "The deploy freeze starts at 16:00 UTC."
        ),
        ["14:00 UTC"]
    );
    assert!(missing(
        "Deploys stop before the 14:00 UTC deploy freeze.",
        "The deploy freeze starts at 2 p.m. UTC."
    )
    .is_empty());
    assert_eq!(
        missing(
            "The deal was worth $4.5 million.",
            "The deal was worth $3 million."
        ),
        ["$4.5 million"]
    );
    for page in [
        "It was worth 4.5 million dollars.",
        "It was worth US$4.5m.",
        "It was worth $4,500,000.",
    ] {
        assert!(
            missing("The deal was worth $4.5 million.", page).is_empty(),
            "{page}"
        );
    }
    assert_eq!(
        missing("Each backup takes 3.2 GB.", "Each backup takes 3 GB."),
        ["3.2 GB"]
    );
    assert!(missing("Each backup takes 3.2 GB.", "Backups: 3.2 gigabytes.").is_empty());
    assert_eq!(
        missing(
            "Costs fell 10–15% this year.",
            "Costs fell 10% and then 15%."
        ),
        ["10–15%"]
    );
    assert!(missing(
        "Costs fell 10–15% this year.",
        "Costs fell 10 to 15 per cent."
    )
    .is_empty());
    assert_eq!(
        missing("Sales peaked in Q3 2025.", "Sales peaked in Q2 2025."),
        ["Q3 2025"]
    );
    assert!(missing("Sales peaked in Q3 2025.", "the third quarter of 2025").is_empty());
    assert_eq!(
        missing(
            "It serves 1,200 requests per second.",
            "It serves 1,200 requests per minute."
        ),
        ["1,200 requests per second"]
    );
    // A page that gives the count without its rate has it.
    assert!(missing(
        "It serves 1,200 requests per second.",
        "It serves 1,200 requests at peak."
    )
    .is_empty());
    // `1 million` is a number, not one of a noun `million`.
    assert!(missing(
        "Gold is awarded at 1 million subscribers.",
        "Gold: 1,000,000 subscribers"
    )
    .is_empty());
}

#[test]
fn the_rules_count_is_cruder() {
    let index = PageIndex::new(["Founded in 1998 in Boston by Ada Lovelace."]);
    assert_eq!(
        rule_missing_count("It was founded in 1998 in Boston.", &index),
        0
    );
    // Every capitalised word but the first, and every figure, compared as words.
    assert_eq!(
        rule_missing_count("It was founded in 1999 in Austin.", &index),
        2
    );
    assert_eq!(rule_missing_count("Deploys Grew 5x", &index), 2);
}

#[test]
fn the_page_title_counts() {
    let index = PageIndex::new(["About Us – Media Play News", "We cover 24 studios."]);
    assert!(missing_words("Media Play News covers 24 studios.", &index).is_empty());
}

#[test]
fn hostile_input_never_panics() {
    let long = "9".repeat(10_000);
    let cases = [
        "",
        "1,",
        ",1",
        "1..2",
        "May",
        "May May May",
        "1st May",
        "31 May 99999",
        "0000-00-00",
        "2019-13-45",
        "’s",
        "U.S.A.",
        "Ⅻ",
        &long,
    ];
    for claim in cases {
        for page in cases {
            let _ = missing(claim, page);
        }
    }
}

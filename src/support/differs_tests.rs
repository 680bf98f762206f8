//! `differs`: what the page gives for the same thing, and each rule that keeps it silent.

use super::*;
use crate::support::figures::figures;

fn differ(claim: &str, page: &str) -> Vec<(String, String)> {
    differs(claim, page)
        .into_iter()
        .map(|d| (d.claim, d.page))
        .collect()
}

fn pair(claim: &str, page: &str) -> Vec<(String, String)> {
    vec![(claim.to_string(), page.to_string())]
}

#[test]
fn differs_says_what_the_page_gives_for_the_same_thing() {
    assert_eq!(
        differ(
            "Deploys stop before the 14:00 UTC deploy freeze.",
            "The deploy freeze starts at 16:00 UTC on Fridays."
        ),
        pair("14:00 UTC", "16:00 UTC")
    );
    assert_eq!(
        differ(
            "The API handles 1,200 requests per second at peak.",
            "At peak the API handles 900 requests per second."
        ),
        pair("1,200 requests per second", "900 requests per second")
    );
    assert_eq!(
        differ(
            "Emergency changes need approval from 3 directors.",
            "Emergency changes need approval from 2 directors."
        ),
        pair("3 directors", "2 directors")
    );
    assert_eq!(
        differ(
            "The contract is worth $4.5 million to the vendor.",
            "The contract is worth $3.1 million to the vendor over three years."
        ),
        pair("$4.5 million", "$3.1 million")
    );
    assert_eq!(
        differ(
            "The company was founded in 1998 by two engineers.",
            "The company was founded in 2001 by two engineers."
        ),
        pair("1998", "2001")
    );
    assert_eq!(
        differ(
            "Revenue grew 12% in Q3 2025.",
            "Revenue grew 9% in the third quarter of 2025."
        ),
        pair("12%", "9%")
    );
    assert_eq!(
        differ(
            "Backups are capped at 3.2 GB per tenant.",
            "Backups are capped at 5 GB per tenant."
        ),
        pair("3.2 GB per tenant", "5 GB per tenant")
    );
}

#[test]
fn differs_never_compares_across_kinds() {
    // A year against a count.
    assert!(differ(
        "The team was founded in 1998 by its owners.",
        "The team was founded by 12 owners."
    )
    .is_empty());
    // A time against a percentage.
    assert!(differ(
        "The deploy freeze starts at 14:00 UTC.",
        "The deploy freeze starts when 80% of tests pass."
    )
    .is_empty());
    // Money in dollars against a count of people.
    assert!(differ(
        "The grant paid $300 to each volunteer.",
        "The grant paid 300 volunteers."
    )
    .is_empty());
    // Dollars against euros.
    assert!(differ(
        "The contract is worth $4.5 million to the vendor.",
        "The contract is worth €3.1 million to the vendor."
    )
    .is_empty());
    // Counts of different nouns.
    assert!(differ(
        "Emergency changes need approval from 3 directors.",
        "Emergency changes need approval from 2 managers."
    )
    .is_empty());
    // A plain number against a plain number.
    assert!(differ(
        "The code is 4471 for the west door.",
        "The code is 4478 for the west door."
    )
    .is_empty());
}

#[test]
fn differs_stays_silent_when_in_doubt() {
    // The figure is on the page in another spelling.
    assert!(differ(
        "The contract is worth $4.5 million.",
        "The contract is worth 4.5 million dollars."
    )
    .is_empty());
    // Nothing but the kind in common: another thing.
    assert!(differ(
        "The company was founded in 1998 by two engineers.",
        "The museum opened in 2001."
    )
    .is_empty());
    // Two candidates of the kind near the shared words.
    assert!(differ(
        "The deploy freeze starts at 14:00 UTC.",
        "The deploy freeze starts at 16:00 UTC; the deploy freeze ends at 18:00 UTC."
    )
    .is_empty());
    // A figure inside the claim's range narrows it, either way round.
    assert!(differ(
        "The test reflects blood glucose over the past 2 to 3 months.",
        "The test reflects your average blood glucose over the past 3 months."
    )
    .is_empty());
    assert!(differ(
        "The test reflects blood glucose over the past 3 months.",
        "The test reflects your average blood glucose over the past 2 to 3 months."
    )
    .is_empty());
    // A bound the claim's figure meets.
    assert!(differ(
        "The baby's heart rate is 120 beats per minute, a score of 2.",
        "More than 100 beats per minute indicates that the baby's heart rate scores 2."
    )
    .is_empty());
    // A rounding of the claim's figure.
    assert!(differ(
        "The average weight of an American male is around 198 pounds.",
        "The average weight of an American male is 199.8 pounds."
    )
    .is_empty());
    // Someone else's figure: a name near it that the claim never mentions.
    assert!(differ(
        "In 2015 she came second with earnings of $9 million.",
        "Last year Heidi Klum came second with earnings of $20 million."
    )
    .is_empty());
    // Shared names alone are no shared slot.
    assert!(differ(
        "The Dallas Cowboys last won the Super Bowl in 1995.",
        "Super Bowl X: 1976, Dallas Cowboys lost to the Pittsburgh Steelers."
    )
    .is_empty());
    // One passage figure for two of the claim's figures.
    assert!(differ(
        "Runners rest at 50 beats per minute, idle people at 80 beats per minute.",
        "Runners often rest at 40 beats per minute."
    )
    .is_empty());
    // Digits in a URL.
    assert!(differ(
        "Rent grew fastest since 2001.",
        "Rent grew: https://example.com/2020-rent-grew"
    )
    .is_empty());
}

#[test]
fn differs_in_reads_the_window() {
    let page = crate::support::passages::Page::new(&[
        "Release policy. The deploy freeze starts at 16:00 UTC on Fridays. Exceptions need approval.",
    ]);
    let window = crate::support::passages::Window {
        first: 0,
        end: page.sentences.len(),
        center: 1,
        score: 1.0,
    };
    let found = differs_in(
        "Deploys stop before the 14:00 UTC deploy freeze.",
        &page,
        &window,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].page, "16:00 UTC");
    let outside = crate::support::passages::Window {
        first: 5,
        end: 9,
        center: 6,
        score: 0.0,
    };
    assert!(differs_in("Deploys stop at 14:00 UTC.", &page, &outside).is_empty());
}

#[test]
fn hostile_text_never_panics() {
    let long = "9".repeat(5_000);
    let cases = [
        "",
        "$",
        "US$",
        "€",
        "%",
        "1%",
        "1,",
        ",1",
        "1..2",
        "1,2,3",
        "Q",
        "Q5",
        "Q3 FY",
        "12:",
        ":30",
        "25:99",
        "2 p.",
        "2 p.m",
        "a.m.",
        "between",
        "between 5 and",
        "10 to",
        "10–",
        "–15%",
        "1e9",
        "3.2G",
        "3.2 GiBs",
        "0000-00-00",
        "2019-13-45",
        "per",
        "5 per",
        "5 a",
        "5 /",
        "5/",
        "’s",
        "Ⅻ",
        "½",
        "١٢٣",
        &long,
    ];
    for a in cases {
        let _ = figures(a);
        for b in cases {
            let _ = differs(a, b);
            let _ = differs(&format!("{a} {b}"), &format!("{b} {a}"));
        }
    }
}

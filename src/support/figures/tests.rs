//! The figure reader: each kind of figure in its spellings.

use super::*;

/// The figures of `text` as written, with their kinds and values.
fn read(text: &str) -> Vec<(String, Kind, Value)> {
    figures(text)
        .into_iter()
        .map(|f| (f.text(text).to_string(), f.kind, f.value))
        .collect()
}

/// The one figure of `text`.
fn one(text: &str) -> (String, Kind, Value) {
    let found = read(text);
    assert_eq!(found.len(), 1, "{text}: {found:?}");
    found.into_iter().next().expect("one figure")
}

/// Whether every spelling reads as one figure of the same kind and value.
fn same(spellings: &[&str]) {
    let first = &figures(spellings[0]);
    assert_eq!(first.len(), 1, "{}: {first:?}", spellings[0]);
    for text in &spellings[1..] {
        let other = &figures(text);
        assert_eq!(other.len(), 1, "{text}: {other:?}");
        assert_eq!(
            other[0].kind, first[0].kind,
            "{text} against {}",
            spellings[0]
        );
        assert!(
            other[0].found_in(&first[0]) && first[0].found_in(&other[0]),
            "{text} against {}: {:?} {:?}",
            spellings[0],
            other[0].value,
            first[0].value
        );
    }
}

#[test]
fn times_of_day_read_whole_with_their_zone() {
    same(&["at 14:00", "at 2 p.m.", "at 2pm", "at 2:00 PM", "at 2 PM"]);
    let (text, kind, value) = one("before the 14:00 UTC deploy freeze");
    assert_eq!(text, "14:00 UTC");
    assert_eq!(kind, Kind::Time);
    assert_eq!(
        value,
        Value::Time {
            minute: 840,
            zone: Some("UTC".into())
        }
    );
    assert_eq!(one("opens at 9:30 am ET daily").0, "9:30 am ET");
    assert_eq!(
        one("12 am").2,
        Value::Time {
            minute: 0,
            zone: None
        }
    );
    // Not times: a score, a ratio, a bare number.
    assert!(read("won 2:1").iter().all(|(_, k, _)| *k != Kind::Time));
    assert!(read("at 14").iter().all(|(_, k, _)| *k != Kind::Time));
}

#[test]
fn sums_of_money_read_whole_in_their_currency() {
    same(&[
        "$4.5 million",
        "4.5 million dollars",
        "$4,500,000",
        "US$4.5m",
        "USD 4.5 million",
        "4.5 million US dollars",
    ]);
    same(&["€30", "30 euros", "30 EUR"]);
    let (text, kind, value) = one("a £1.2bn deal");
    assert_eq!(text, "£1.2bn");
    assert_eq!(
        kind,
        Kind::Money {
            currency: "GBP",
            per: None
        }
    );
    assert_eq!(value, Value::Amount(1.2e9));
    assert_eq!(
        one("C$5").1,
        Kind::Money {
            currency: "CAD",
            per: None
        }
    );
    assert_eq!(
        one("$30 a month").1,
        Kind::Money {
            currency: "USD",
            per: Some("month".into())
        }
    );
}

#[test]
fn sizes_read_whole_in_bytes() {
    same(&["3.2 GB", "3.2 gigabytes", "3.2GB", "3,200 MB"]);
    assert_eq!(one("512 KiB").2, Value::Amount(524_288.0));
    assert_eq!(
        one("3 GB/s").1,
        Kind::Size {
            per: Some("second".into())
        }
    );
    // Gigabits are not bytes.
    assert!(read("a 10 Gb link")
        .iter()
        .all(|(_, k, _)| !matches!(k, Kind::Size { .. })));
}

#[test]
fn shares_and_their_ranges_read_whole() {
    same(&[
        "10–15%",
        "10-15 percent",
        "10 to 15 per cent",
        "10%–15%",
        "10 - 15 %",
    ]);
    same(&["5%", "5 percent", "5 per cent", "5 %"]);
    assert_eq!(one("fell 10–15%").0, "10–15%");
    assert_eq!(one("fell 10–15%").2, Value::Range(10.0, 15.0));
}

#[test]
fn quarters_read_whole() {
    same(&[
        "Q3 2025",
        "third quarter of 2025",
        "3rd quarter 2025",
        "Q3 FY2025",
    ]);
    assert_eq!(
        one("in Q4").2,
        Value::Quarter {
            quarter: 4,
            year: None
        }
    );
    assert!(read("the third time").is_empty());
}

#[test]
fn counts_carry_their_noun_and_rate() {
    let (text, kind, value) = one("it serves 1,200 requests per second");
    assert_eq!(text, "1,200 requests per second");
    assert_eq!(
        kind,
        Kind::Count {
            noun: "request".into(),
            per: Some("second".into())
        }
    );
    assert_eq!(value, Value::Amount(1200.0));
    same(&[
        "1,200 requests per second",
        "1200 requests a second",
        "1.2k requests/s",
    ]);
    same(&["3 directors", "three directors"]);
    same(&["17 hours", "17 hour"]);
    let figure = &figures("approval from 3 directors")[0];
    assert_eq!(&"approval from 3 directors"[figure.head.clone()], "3");
    // `1 million` is a number, not a count of millions.
    assert_eq!(one("1 million subscribers").2, Value::Amount(1e6));
}

#[test]
fn years_dates_ranges_and_plain_numbers() {
    assert_eq!(one("founded in 1998").1, Kind::Year);
    assert_eq!(one("in the 2000 season").1, Kind::Year);
    assert!(matches!(one("2000 people came").1, Kind::Count { .. }));
    same(&["July 11, 1909", "11 July 1909", "1909-07-11"]);
    assert_eq!(
        one("in July 1909").2,
        Value::Date {
            year: Some(1909),
            month: 7,
            day: None
        }
    );
    let (text, kind, value) = one("from 1998 to 2001");
    assert_eq!((text.as_str(), kind), ("1998 to 2001", Kind::Year));
    assert_eq!(value, Value::Range(1998.0, 2001.0));
    assert_eq!(one("the 2018–19 season").2, Value::Range(2018.0, 2019.0));
    same(&["between 10 and 15", "10 to 15", "10–15"]);
    assert_eq!(one("between 10 and 15").0, "between 10 and 15");
    // A fall is two figures, not a range.
    assert_eq!(read("fell from 15 to 10").len(), 2);
    assert_eq!(one("it scored 42").1, Kind::Number);
}

#[test]
fn markers_urls_and_names_are_no_figures() {
    assert!(read("Deploys are frozen [1][2, 3].").is_empty());
    assert!(read("see https://example.com/2020-report/14:00").is_empty());
    assert!(read("5G and 3D, the 1990s, the 3rd").is_empty());
}

#[test]
fn spellings_of_one_figure_are_found_in_each_other() {
    let claim = &figures("$4.5 million")[0];
    for page in ["4.5 million dollars", "US$4,500,000", "4.5 million"] {
        assert!(claim.found_in(&figures(page)[0]), "{page}");
    }
    assert!(!claim.found_in(&figures("€4.5 million")[0]));
    let time = &figures("14:00 UTC")[0];
    assert!(time.found_in(&figures("2 p.m.")[0]));
    assert!(!time.found_in(&figures("14:00 CET")[0]));
    let quarter = &figures("Q3 2025")[0];
    assert!(quarter.found_in(&figures("the third quarter")[0]));
    assert!(!quarter.found_in(&figures("Q3 2024")[0]));
}

//! Comma-separated (and tab-separated) values, as Google Sheets and other spreadsheets
//! export them: each record a paragraph, its fields trimmed, the empty ones dropped,
//! the rest joined by `" | "`. No header row is assumed, and records may differ in
//! length. The bytes are decoded first, as plain text is.

use super::{collapse_whitespace, MAX_TEXT_CHARS};

/// Most records read from one file (a hundred thousand rows); the rest is dropped and
/// the page marked truncated. The text cap usually comes first.
pub(super) const MAX_RECORDS: usize = 100_000;

/// The records of `source`, fields separated by `delimiter`, as paragraphs separated by
/// `"\n\n"`, and whether reading stopped before the end (a cap was reached).
pub(super) fn read(source: &str, delimiter: u8) -> (String, bool) {
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(source.as_bytes());
    let mut out = String::new();
    let mut chars = 0;
    let mut records = 0;
    let mut record = ::csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => return (out, false),
            // Flexible and decoded already, the reader has little left to refuse; what
            // it read so far stands.
            Err(_) => return (out, true),
        }
        if records == MAX_RECORDS || chars > MAX_TEXT_CHARS {
            return (out, true);
        }
        records += 1;
        let fields: Vec<String> = record
            .iter()
            .map(collapse_whitespace)
            .filter(|field| !field.is_empty())
            .collect();
        if fields.is_empty() {
            continue;
        }
        let paragraph = fields.join(" | ");
        if !out.is_empty() {
            out.push_str("\n\n");
            chars += 2;
        }
        chars += paragraph.chars().count();
        out.push_str(&paragraph);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::{extract, PageKind, PageRead};

    #[test]
    fn records_are_paragraphs_of_trimmed_fields() {
        let source = "Port,Height (m),Note\r\n Brest , 7.5 ,\r\n,,\r\n\"Saint-Malo\",12,\"Highest, \"\"busiest\"\"\nof all\"\nLone\n";
        assert_eq!(
            read(source, b','),
            (
                "Port | Height (m) | Note\n\nBrest | 7.5\n\nSaint-Malo | 12 | Highest, \"busiest\" of all\n\nLone".to_string(),
                false
            )
        );
        assert_eq!(read("a\tb\t\tc\n", b'\t').0, "a | b | c");
        assert_eq!(read("", b','), (String::new(), false));
    }

    #[test]
    fn csv_is_dispatched_before_other_text() {
        let read = extract(
            Some("text/csv; charset=utf-8"),
            b"name,value\nmoon,1\n",
            false,
        );
        let page = read.page().unwrap_or_else(|| panic!("{read:?}"));
        assert_eq!(page.kind, PageKind::Text);
        assert_eq!(page.text, "name | value\n\nmoon | 1");
        let tsv = extract(Some("text/tab-separated-values"), b"a\tb\n", false);
        assert_eq!(tsv.page().map(|p| p.text.as_str()), Some("a | b"));
        let latin1 = extract(Some("text/csv; charset=iso-8859-1"), b"caf\xe9,ok\n", false);
        assert_eq!(latin1.page().map(|p| p.text.as_str()), Some("café | ok"));
        assert_eq!(
            extract(Some("text/csv"), b" , ,\n\n", false).unreadable_reason(),
            Some(crate::page::NO_TEXT)
        );
    }

    #[test]
    fn hostile_csv_is_bounded_and_never_panics() {
        // Empty records count too: what comes after the cap is not read.
        let many = format!("{}late,x\n", ",\n".repeat(MAX_RECORDS));
        assert_eq!(read(&many, b','), (String::new(), true));
        let (text, cut) = read(&"x,y\n".repeat(MAX_RECORDS), b',');
        assert!(cut);
        assert!(
            text.chars().count() > MAX_TEXT_CHARS,
            "stops just past the text cap"
        );
        let wide = format!("{}\n", "word,".repeat(60_000));
        let read_wide = extract(Some("text/csv"), wide.as_bytes(), false);
        assert!(read_wide.page().is_some_and(|p| p.truncated));
        // An unclosed quote runs to the end: one field.
        assert_eq!(read("a,\"b\nc,d", b',').0, "a | b c,d");
        let mut junk: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        junk.extend_from_slice(&[0; 512]);
        assert!(matches!(
            extract(Some("text/csv"), &junk, false),
            PageRead::Unreadable(reason) if reason.starts_with("the page is binary data")
        ));
    }

    proptest::proptest! {
        /// Any text reads without a panic, and never yields an empty paragraph.
        #[test]
        fn any_text_reads(source in "[a-z,;\"\t\r\n ]{0,200}") {
            let (text, _) = read(&source, b',');
            proptest::prop_assert!(!text.split("\n\n").any(|p| p.trim().is_empty()) || text.is_empty());
        }
    }
}

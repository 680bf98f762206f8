//! The text of a PDF, through `pdf-extract` (pure Rust, on `lopdf`). PDF parsers
//! panic on hostile or broken files, so the parser runs under `catch_unwind` and a
//! panic is a page that cannot be read. A PDF cut at the size cap is not parsed at
//! all: its cross-reference table is at the end, so the start alone reads as nothing.

use super::text::paragraphs;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The text of the PDF in `bytes`, as paragraphs, or why it cannot be read.
pub(super) fn read(bytes: &[u8], truncated: bool) -> Result<String, String> {
    if truncated {
        return Err(
            "the PDF is larger than the size limit, and a PDF can't be read in part".into(),
        );
    }
    // AssertUnwindSafe: nothing outlives the call but its result.
    match catch_unwind(AssertUnwindSafe(|| {
        pdf_extract::extract_text_from_mem(bytes)
    })) {
        Ok(Ok(text)) => Ok(paragraphs(&text)),
        Ok(Err(error)) => Err(format!(
            "the PDF could not be read ({})",
            crate::render::escape::cut_chars(&error.to_string(), 120)
        )),
        Err(_) => Err("the PDF could not be read (it is damaged or unusual)".into()),
    }
}

/// The PDF the tests build, shared with the integration tests.
#[cfg(test)]
#[path = "../../tests/support/pdf.rs"]
mod fixture;

#[cfg(test)]
mod tests {
    use super::fixture::simple_pdf;
    use crate::page::{extract, PageKind};

    #[test]
    fn a_simple_pdf_is_read() {
        let pdf = simple_pdf(&["Tides follow the Moon.", "Two high tides a day."]);
        let read = extract(Some("application/pdf"), &pdf, false);
        let page = read.page().unwrap_or_else(|| panic!("{read:?}"));
        assert_eq!(page.kind, PageKind::Pdf);
        assert!(
            page.text.contains("Tides follow the Moon."),
            "{:?}",
            page.text
        );
        assert!(
            page.text.contains("Two high tides a day."),
            "{:?}",
            page.text
        );
        // Served untyped, it is recognised by its first bytes.
        let sniffed = extract(Some("application/octet-stream"), &pdf, false);
        assert_eq!(sniffed.page().map(|p| p.kind), Some(PageKind::Pdf));
    }

    #[test]
    fn a_pdf_page_carries_its_text_signals() {
        let pdf = simple_pdf(&[
            "Tidal friction and the length of the day",
            "Friction slows the Earth: doi:10.1038/35015531 and doi:10.1016/j.pocean.2004.01.001",
        ]);
        let read = extract(Some("application/pdf"), &pdf, false);
        let page = read.page().unwrap_or_else(|| panic!("{read:?}"));
        assert_eq!(
            page.signals,
            crate::model::PageSignals {
                references: 2,
                words: 15,
                ..Default::default()
            },
            "{:?}",
            page.text
        );
    }

    #[test]
    fn broken_and_cut_pdfs_are_unreadable_without_a_panic() {
        let pdf = simple_pdf(&["Some text."]);
        let cut = extract(Some("application/pdf"), &pdf[..pdf.len() / 2], true);
        assert!(cut
            .unreadable_reason()
            .is_some_and(|r| r.contains("in part")));
        for broken in [
            b"%PDF-1.4\n".to_vec(),
            b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF".to_vec(),
            pdf[..pdf.len() / 2].to_vec(),
            pdf.iter().map(|b| b ^ 0x20).collect(),
        ] {
            let read = extract(Some("application/pdf"), &broken, false);
            assert!(read.unreadable_reason().is_some(), "{read:?}");
        }
    }
}

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

/// A one-page PDF showing `lines` in Helvetica, one line per text row, with a correct
/// cross-reference table: enough for a parser to find the text.
#[cfg(test)]
pub(crate) fn simple_pdf(lines: &[&str]) -> Vec<u8> {
    let mut content = String::from("BT /F1 12 Tf 72 720 Td 14 TL\n");
    for line in lines {
        let escaped = line
            .replace('\\', "\\\\")
            .replace('(', "\\(")
            .replace(')', "\\)");
        content.push_str(&format!("({escaped}) Tj T*\n"));
    }
    content.push_str("ET\n");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
         /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_string(),
        format!(
            "<< /Length {} >>\nstream\n{content}endstream",
            content.len()
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_string(),
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

#[cfg(test)]
mod tests {
    use super::*;
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

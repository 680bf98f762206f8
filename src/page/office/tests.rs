//! Unit tests of the Office reader on packages built in memory (`tests/support/office.rs`,
//! shared with the integration tests): each format's text, the types and sniffing that
//! pick the reader, and damaged, hostile and oversized packages.

use super::fixture::{self, RawEntry};
use super::package::resolve;
use super::*;
use crate::page::{extract, PageKind, PageRead};
use std::time::{Duration, Instant};

const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const PPTX: &str = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

fn page(content_type: &str, bytes: &[u8]) -> crate::page::Page {
    match extract(Some(content_type), bytes, false) {
        PageRead::Read(page) => page,
        unreadable => panic!("{unreadable:?}"),
    }
}

fn reason(content_type: &str, bytes: &[u8]) -> String {
    match extract(Some(content_type), bytes, false) {
        PageRead::Unreadable(reason) => reason,
        read => panic!("read: {read:?}"),
    }
}

#[test]
fn a_docx_is_read_paragraph_by_paragraph() {
    let docx = fixture::docx(&[
        "Tides follow the Moon.",
        "",
        "  Two high   tides a day & <one> \"low\".",
    ]);
    let page = page(DOCX, &docx);
    assert_eq!(page.kind, PageKind::Office);
    assert_eq!(page.kind.as_str(), "office");
    assert_eq!(
        page.text,
        "Tides follow the Moon.\n\nTwo high tides a day & <one> \"low\"."
    );
    assert_eq!(page.title, None);
    assert!(!page.truncated);
}

#[test]
fn a_docx_title_comes_from_its_core_properties() {
    let docx = fixture::docx_titled(" Tidal \n friction ", &["Body text."]);
    assert_eq!(page(DOCX, &docx).title.as_deref(), Some("Tidal friction"));
}

#[test]
fn docx_table_rows_are_blocks_of_cells() {
    let docx = fixture::docx_with_table(
        &["Heights by port:"],
        &[
            &["Port", "High", "Low"],
            &["Brest", "", "1.2 m"],
            &["Saint-Malo", "12.0 m"],
        ],
    );
    assert_eq!(
        page(DOCX, &docx).text,
        "Heights by port:\n\nPort | High | Low\n\nBrest | 1.2 m\n\nSaint-Malo | 12.0 m"
    );
}

#[test]
fn word_runs_tabs_breaks_notes_and_nested_tables() {
    let w = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;
    let document = format!(
        r#"<w:document {w}><w:body>
            <w:p><w:r><w:t>Split</w:t></w:r><w:r><w:t xml:space="preserve"> ru</w:t></w:r><w:r><w:t>n</w:t><w:tab/><w:t>tab</w:t><w:br/><w:t>next line</w:t></w:r></w:p>
            <w:p><w:r><w:delText>deleted</w:delText><w:instrText>PAGE</w:instrText><w:t>kept &amp; &#233;</w:t></w:r></w:p>
            <w:tbl><w:tr><w:tc><w:p><w:r><w:t>outer</w:t></w:r></w:p>
              <w:tbl><w:tr><w:tc><w:p><w:r><w:t>in 1</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>in 2</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
            </w:tc><w:tc><w:p><w:r><w:t>right</w:t></w:r></w:p><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
            <w:p><mc:AlternateContent xmlns:mc="m"><mc:Choice><w:t>box</w:t></mc:Choice><mc:Fallback><w:t>box again</w:t></mc:Fallback></mc:AlternateContent></w:p>
            </w:body></w:document>"#
    );
    let footnotes = format!(
        r#"<w:footnotes {w}><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:t>A footnote.</w:t></w:r></w:p></w:footnote></w:footnotes>"#
    );
    let docx = fixture::zip_parts(&[
        ("word/document.xml", document.as_bytes()),
        ("word/footnotes.xml", footnotes.as_bytes()),
    ]);
    assert_eq!(
        page("application/octet-stream", &docx).text,
        "Split run tab\n\nnext line\n\nkept & é\n\nouter in 1 | in 2 | right cell\n\nbox\n\nA footnote."
    );
}

#[test]
fn a_pptx_is_read_slide_by_slide() {
    let pptx = fixture::pptx(&[
        &["Tides", "Why the sea rises & falls"],
        &[],
        &["The Moon pulls", "", "Twice a day"],
    ]);
    let page = page(PPTX, &pptx);
    assert_eq!(page.kind, PageKind::Office);
    assert_eq!(
        page.text,
        "Tides\n\nWhy the sea rises & falls\n\nThe Moon pulls\n\nTwice a day"
    );
}

#[test]
fn slides_follow_the_presentation_order_and_carry_their_notes() {
    let p = r#"xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
    let rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let slide = |text: &str| {
        format!(
            r#"<p:sld {p}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>{text}</a:t></a:r><a:br/><a:r><a:t>more</a:t></a:r><a:fld type="slidenum"><a:t>9</a:t></a:fld></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>"#
        )
    };
    let presentation = format!(
        r#"<p:presentation {p}><p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId2"/></p:sldIdLst></p:presentation>"#
    );
    let rels = format!(
        r#"<Relationships xmlns="x"><Relationship Id="rId2" Type="{rel}/slide" Target="slides/slide1.xml"/><Relationship Id="rId7" Type="{rel}/slide" Target="/ppt/slides/slide2.xml"/><Relationship Id="rId9" Type="{rel}/hyperlink" Target="https://example.com/" TargetMode="External"/></Relationships>"#
    );
    let slide_rels = format!(
        r#"<Relationships xmlns="x"><Relationship Id="rId1" Type="{rel}/notesSlide" Target="../notesSlides/notesSlide4.xml"/></Relationships>"#
    );
    let notes = format!(
        r#"<p:notes {p}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Say it slowly.</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:notes>"#
    );
    let (first, second) = (slide("First"), slide("Second"));
    let pptx = fixture::zip_parts(&[
        ("ppt/presentation.xml", presentation.as_bytes()),
        ("ppt/_rels/presentation.xml.rels", rels.as_bytes()),
        ("ppt/slides/slide1.xml", second.as_bytes()),
        ("ppt/slides/slide2.xml", first.as_bytes()),
        ("ppt/slides/_rels/slide1.xml.rels", slide_rels.as_bytes()),
        ("ppt/notesSlides/notesSlide4.xml", notes.as_bytes()),
    ]);
    assert_eq!(
        page(PPTX, &pptx).text,
        "First\n\nmore\n\nSecond\n\nmore\n\nSay it slowly."
    );
    // Without the list, slides go by their number (10 after 9, not after 1).
    let numbered = fixture::zip_parts(&[
        (
            "ppt/presentation.xml",
            format!("<p:presentation {p}/>").as_bytes(),
        ),
        ("ppt/slides/slide10.xml", slide("Ten").as_bytes()),
        ("ppt/slides/slide9.xml", slide("Nine").as_bytes()),
        ("ppt/slides/slide1.xml", slide("One").as_bytes()),
    ]);
    assert_eq!(
        page(PPTX, &numbered).text,
        "One\n\nmore\n\nNine\n\nmore\n\nTen\n\nmore"
    );
}

#[test]
fn an_xlsx_is_read_row_by_row() {
    let xlsx = fixture::xlsx(&[
        &["Port", "Height (m)", "Note"],
        &["Brest", "7.5", ""],
        &["", "", ""],
        &["Saint-Malo", "12", "Highest & <busiest>"],
        &["Brest", "-0.25"],
    ]);
    let page = page(XLSX, &xlsx);
    assert_eq!(page.kind, PageKind::Office);
    assert_eq!(
        page.text,
        "Port | Height (m) | Note\n\nBrest | 7.5\n\nSaint-Malo | 12 | Highest & <busiest>\n\nBrest | -0.25"
    );
}

#[test]
fn excel_cell_types_sheets_and_order() {
    let s = r#"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
    let rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let workbook = format!(
        r#"<workbook {s}><sheets><sheet name="Later" sheetId="1" r:id="rId1"/><sheet name="Secret" sheetId="3" state="hidden" r:id="rId3"/><sheet name="Summary" sheetId="2" r:id="rId2"/></sheets></workbook>"#
    );
    let rels = format!(
        r#"<Relationships xmlns="x"><Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="{rel}/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId3" Type="{rel}/worksheet" Target="worksheets/sheet3.xml"/><Relationship Id="rId4" Type="{rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>"#
    );
    let strings = format!(
        r#"<sst {s}><si><t>plain</t></si><si><r><t>ri</t></r><r><rPr><b/></rPr><t xml:space="preserve">ch </t></r><rPh><t>ふりがな</t></rPh></si></sst>"#
    );
    let sheet1 = format!(
        r#"<worksheet {s}><sheetData><row r="1"><c r="A1" t="s"><v>1</v></c><c r="B1" t="inlineStr"><is><t>inline</t></is></c><c r="C1" t="str"><f>A1&amp;"x"</f><v>formula result</v></c><c r="D1" t="b"><v>1</v></c><c r="E1" t="b"><v>0</v></c><c r="F1"><v>3.14</v></c><c r="G1" t="s"><v>99</v></c><c r="H1" s="1"/></row></sheetData></worksheet>"#
    );
    let sheet2 = format!(
        r#"<worksheet {s}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>"#
    );
    let sheet3 = format!(
        r#"<worksheet {s}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>hidden</t></is></c></row></sheetData></worksheet>"#
    );
    let xlsx = fixture::zip_parts(&[
        ("xl/workbook.xml", workbook.as_bytes()),
        ("xl/_rels/workbook.xml.rels", rels.as_bytes()),
        ("xl/sharedStrings.xml", strings.as_bytes()),
        ("xl/worksheets/sheet1.xml", sheet1.as_bytes()),
        ("xl/worksheets/sheet2.xml", sheet2.as_bytes()),
        ("xl/worksheets/sheet3.xml", sheet3.as_bytes()),
    ]);
    assert_eq!(
        page("application/octet-stream", &xlsx).text,
        "Later\n\nrich | inline | formula result | TRUE | FALSE | 3.14\n\nSummary\n\nplain"
    );
}

#[test]
fn variant_types_and_untyped_packages_are_recognised() {
    let docx = fixture::docx(&["Words."]);
    for content_type in [
        "application/vnd.ms-word.document.macroEnabled.12",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.template",
        "application/octet-stream",
        "binary/octet-stream",
        "application/zip",
    ] {
        assert_eq!(page(content_type, &docx).text, "Words.", "{content_type}");
    }
    assert_eq!(
        extract(None, &docx, false).page().map(|p| p.kind),
        Some(PageKind::Office)
    );
    let pptx = fixture::pptx(&[&["Slide words."]]);
    let xlsx = fixture::xlsx(&[&["Cell words."]]);
    assert_eq!(page("application/unknown", &pptx).text, "Slide words.");
    assert_eq!(page("application/octet-stream", &xlsx).text, "Cell words.");
    assert_eq!(
        page("application/vnd.ms-excel.sheet.macroEnabled.12", &xlsx).text,
        "Cell words."
    );
    // Served as the wrong Office type, the parts decide.
    assert_eq!(page(DOCX, &xlsx).text, "Cell words.");
}

#[test]
fn other_zips_and_legacy_formats_are_not_read() {
    let zip = fixture::zip_parts(&[("notes.txt", b"not an office file".as_slice())]);
    assert_eq!(
        reason("application/octet-stream", &zip),
        "can't read this kind of page (application/octet-stream)"
    );
    assert_eq!(
        reason("application/zip", &zip),
        "can't read this kind of page (application/zip)"
    );
    assert_eq!(
        reason(DOCX, &zip),
        "the .docx file could not be read (it is not a Word document)"
    );
    for legacy in [
        "application/msword",
        "application/vnd.ms-excel",
        "application/vnd.ms-powerpoint",
    ] {
        let mut ole = COMPOUND_FILE.to_vec();
        ole.extend([0; 512]);
        assert_eq!(
            reason(legacy, &ole),
            format!("can't read this kind of page ({legacy})")
        );
    }
    let mut ole = COMPOUND_FILE.to_vec();
    ole.extend([0; 512]);
    assert_eq!(
        reason(XLSX, &ole),
        "the .xlsx file could not be read (it is password-protected, or in the .xls format)"
    );
    assert_eq!(
        reason(PPTX, b"<html>not a deck</html>"),
        "the .pptx file could not be read (it is not an Office Open XML file)"
    );
}

#[test]
fn a_package_cut_at_the_size_cap_is_not_read() {
    let docx = fixture::docx(&["Words."]);
    let half = &docx[..docx.len() / 2];
    let typed = extract(Some(DOCX), half, true);
    assert_eq!(
        typed.unreadable_reason(),
        Some("the .docx file is larger than the size limit, and an Office file can't be read in part")
    );
    let untyped = extract(Some("application/octet-stream"), half, true);
    assert_eq!(
        untyped.unreadable_reason(),
        Some("the Office file is larger than the size limit, and an Office file can't be read in part")
    );
    let damaged = extract(Some("application/octet-stream"), half, false);
    assert_eq!(
        damaged.unreadable_reason(),
        Some("the Office file could not be read (it is damaged, or not a zip file)")
    );
}

#[test]
fn packages_without_text_say_so() {
    assert_eq!(
        reason(DOCX, &fixture::docx(&[])),
        "the document has no readable text"
    );
    assert_eq!(
        reason(PPTX, &fixture::pptx(&[&[], &[""]])),
        "the presentation has no readable text"
    );
    assert_eq!(
        reason(XLSX, &fixture::xlsx(&[&["", ""]])),
        "the spreadsheet has no readable text"
    );
}

#[test]
fn damaged_packages_are_unreadable_or_partial_never_a_panic() {
    let docx = fixture::docx(&["Some words here.", "And more words."]);
    // Flipped bytes all through the file.
    for step in [7, 13, 101] {
        let mut broken = docx.clone();
        for i in (0..broken.len()).step_by(step) {
            broken[i] ^= 0x5a;
        }
        let _ = extract(Some(DOCX), &broken, false);
        let _ = extract(Some("application/octet-stream"), &broken, false);
    }
    // Cut anywhere, not marked truncated.
    for end in (0..docx.len()).step_by(37) {
        let read = extract(Some(DOCX), &docx[..end], false);
        assert!(read.unreadable_reason().is_some(), "{end}: {read:?}");
    }
    // The document part's deflate data damaged in its middle.
    let text: String = (0..20_000u32)
        .map(|i| format!("w{} ", i * 7919 % 10_007))
        .collect();
    let long = fixture::docx(&[&text]);
    let data = {
        let mut zip = ZipArchive::new(Cursor::new(long.as_slice())).expect("zip");
        let part = zip.by_name("word/document.xml").expect("part");
        let start = part.data_start().expect("data start") as usize;
        start..start + part.compressed_size() as usize
    };
    let mut broken = long.clone();
    let middle = (data.start + data.end) / 2;
    for b in &mut broken[middle..middle + 64] {
        *b = !*b;
    }
    let read = extract(Some(DOCX), &broken, false);
    if let Some(page) = read.page() {
        assert!(page.truncated, "{read:?}");
    }
}

#[test]
fn unclosed_and_malformed_xml_keeps_what_it_can() {
    let w = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;
    let cases: [(&str, Option<&str>); 5] = [
        (
            "<w:document W><w:body><w:p><w:r><w:t>Unclosed to the end",
            Some("Unclosed to the end"),
        ),
        (
            "<w:document W><w:body><w:p><w:r><w:t>Before</w:t></w:r></w:p><w:p><w:t>bad <<<< & markup",
            Some("Before"),
        ),
        ("<w:document W><w:tbl><w:tr><w:tc><w:t>cell</w:t></w:tbl>", Some("cell")),
        ("</w:p></w:tc></w:tr><w:t>stray</w:t></w:p>", Some("stray")),
        ("\u{0}\u{1}not xml at all <<<", None),
    ];
    for (xml, want) in cases {
        let xml = xml.replace(" W>", &format!(" {w}>"));
        let docx = fixture::zip_parts(&[("word/document.xml", xml.as_bytes())]);
        let read = extract(Some(DOCX), &docx, false);
        match want {
            Some(want) => assert!(
                read.page().is_some_and(|p| p.text.contains(want)),
                "{xml}: {read:?}"
            ),
            None => assert!(read.unreadable_reason().is_some(), "{xml}: {read:?}"),
        }
    }
}

#[test]
fn encrypted_entries_are_unreadable() {
    let xml = b"<w:document><w:body><w:p><w:r><w:t>secret</w:t></w:r></w:p></w:body></w:document>";
    let mut entry = RawEntry::stored("word/document.xml", xml);
    entry.flags = 1;
    let zip = fixture::raw_zip(&[entry]);
    assert_eq!(
        reason("application/octet-stream", &zip),
        "the .docx file could not be read (it is encrypted)"
    );
}

#[test]
fn a_zip_bomb_is_cut_off_quickly() {
    let started = Instant::now();
    // 400 MB of empty paragraphs: no text, so only the byte caps stop it.
    let markup = fixture::docx_bomb("<w:p/>", 400 << 20);
    assert!(markup.len() < 4 << 20, "{}", markup.len());
    let built = started.elapsed();
    let read = extract(Some(DOCX), &markup, false);
    assert_eq!(
        read.unreadable_reason(),
        Some("the document has no readable text"),
        "{read:?}"
    );
    // 400 MB of words: the text cap stops it.
    let words = fixture::docx_bomb("<w:p><w:r><w:t>tide moon sea </w:t></w:r></w:p>", 400 << 20);
    let read = extract(Some("application/octet-stream"), &words, false);
    let page = read.page().unwrap_or_else(|| panic!("{read:?}"));
    assert!(page.truncated);
    assert!(page.text.chars().count() <= crate::page::MAX_TEXT_CHARS);
    assert!(page.text.starts_with("tide moon sea\n\ntide moon sea"));
    // One 400 MB stretch of bare text, a single XML event: the part's byte cap
    // bounds it.
    let run = fixture::docx_bomb("tide moon sea ", 400 << 20);
    let read = extract(Some(DOCX), &run, false);
    assert!(read.unreadable_reason().is_some() || read.page().is_some_and(|p| p.truncated));
    let read_time = started.elapsed() - built;
    assert!(read_time < Duration::from_secs(60), "{read_time:?}");
}

#[test]
fn too_many_entries_are_refused_and_many_are_fine() {
    let docx = |extra: usize| {
        let xml =
            b"<w:document><w:body><w:p><w:r><w:t>Found it.</w:t></w:r></w:p></w:body></w:document>";
        let mut entries: Vec<RawEntry> = (0..extra)
            .map(|i| RawEntry::stored(&format!("word/media/image{i}.png"), b"png"))
            .collect();
        entries.push(RawEntry::stored("word/document.xml", xml));
        fixture::raw_zip(&entries)
    };
    assert_eq!(page(DOCX, &docx(5_000)).text, "Found it.");
    let started = Instant::now();
    assert_eq!(
        reason(DOCX, &docx(MAX_ENTRIES)),
        "the .docx file could not be read (it holds more than 10000 parts)"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // Untyped, its first entry shows it for an Office file, which can't be opened.
    assert_eq!(
        reason("application/octet-stream", &docx(MAX_ENTRIES)),
        "the Office file could not be read (it holds more than 10000 parts)"
    );
}

#[test]
fn slide_and_row_caps_mark_the_page_truncated() {
    let slides: Vec<[&str; 1]> = (0..MAX_SLIDES + 5).map(|_| ["Same slide."]).collect();
    let slides: Vec<&[&str]> = slides.iter().map(|s| s.as_slice()).collect();
    let page = page(PPTX, &fixture::pptx(&slides));
    assert!(page.truncated);
    assert_eq!(page.text.matches("Same slide.").count(), MAX_SLIDES);
}

#[test]
fn relationship_targets_resolve_to_package_paths() {
    assert_eq!(resolve("ppt", "slides/slide1.xml"), "ppt/slides/slide1.xml");
    assert_eq!(
        resolve("ppt/slides", "../notesSlides/n.xml"),
        "ppt/notesSlides/n.xml"
    );
    assert_eq!(resolve("ppt/slides", "/ppt/media/a.png"), "ppt/media/a.png");
    assert_eq!(resolve("", "word/document.xml"), "word/document.xml");
    assert_eq!(resolve("", "../../../x.xml"), "x.xml");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Whatever a package's bytes become, reading it never panics.
    #[test]
    fn damaged_packages_never_panic(
        flips in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..16),
        cut in 0usize..4096,
    ) {
        let mut bytes = fixture::xlsx(&[&["a", "1"], &["b & c", "2.5"]]);
        for (at, value) in flips {
            let at = at % bytes.len();
            bytes[at] = value;
        }
        bytes.truncate(bytes.len() - cut % bytes.len());
        for content_type in [XLSX, DOCX, "application/octet-stream", "application/zip"] {
            let _ = extract(Some(content_type), &bytes, false);
            let _ = extract(Some(content_type), &bytes, true);
        }
    }
}

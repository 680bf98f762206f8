//! Office Open XML packages (.docx, .pptx, .xlsx) built in the test, as Word, PowerPoint and Excel write them.
//!
//! Each builder writes a real, minimal package: `[Content_Types].xml`, `_rels/.rels`,
//! `docProps/core.xml` and `docProps/app.xml`, the main part with its relationships and
//! the parts the application needs to open it (styles; for PowerPoint a slide master,
//! a layout and a theme), every part deflate-compressed with the `zip` crate's writer.
//! python-docx, python-pptx and openpyxl open what these builders write. Text given to
//! a builder is escaped for XML. The page reader's unit tests include this file too.
//!
//! For hostile tests: [`zip_parts`] packs any parts, [`raw_zip`] writes entries exactly
//! as given (stored or already deflated, any flags, any declared size), and
//! [`docx_bomb`] a `.docx` whose document part inflates to hundreds of megabytes.

use std::io::{Cursor, Write};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const A: &str = "http://schemas.openxmlformats.org/drawingml/2006/main";
const P: &str = "http://schemas.openxmlformats.org/presentationml/2006/main";
const S: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const R: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const DECL: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;

/// A `.docx` with one paragraph of text for each of `paragraphs`.
pub fn docx(paragraphs: &[&str]) -> Vec<u8> {
    docx_package(None, paragraphs, &[])
}

/// A `.docx` whose core properties carry `title` (`dc:title`), with `paragraphs`.
pub fn docx_titled(title: &str, paragraphs: &[&str]) -> Vec<u8> {
    docx_package(Some(title), paragraphs, &[])
}

/// A `.docx` with `paragraphs`, then a table of `rows` (one cell a string; rows may
/// differ in length, an empty string is an empty cell), then an empty paragraph as
/// Word leaves after a table.
pub fn docx_with_table(paragraphs: &[&str], rows: &[&[&str]]) -> Vec<u8> {
    docx_package(None, paragraphs, rows)
}

fn docx_package(title: Option<&str>, paragraphs: &[&str], rows: &[&[&str]]) -> Vec<u8> {
    let mut body = String::new();
    for text in paragraphs {
        body.push_str(&word_paragraph(text));
    }
    if !rows.is_empty() {
        let columns = rows.iter().map(|row| row.len()).max().unwrap_or(1).max(1);
        let width = 9360 / columns;
        body.push_str(r#"<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/><w:tblLook w:val="04A0"/></w:tblPr><w:tblGrid>"#);
        for _ in 0..columns {
            body.push_str(&format!(r#"<w:gridCol w:w="{width}"/>"#));
        }
        body.push_str("</w:tblGrid>");
        for row in rows {
            body.push_str("<w:tr>");
            for column in 0..columns {
                let text = row.get(column).copied().unwrap_or_default();
                body.push_str(&format!(
                    r#"<w:tc><w:tcPr><w:tcW w:w="{width}" w:type="dxa"/></w:tcPr>{}</w:tc>"#,
                    word_paragraph(text)
                ));
            }
            body.push_str("</w:tr>");
        }
        body.push_str("</w:tbl><w:p/>");
    }
    let document = format!(
        r#"{DECL}<w:document xmlns:w="{W}" xmlns:r="{R}"><w:body>{body}<w:sectPr><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/></w:sectPr></w:body></w:document>"#
    );
    let styles = format!(
        r#"{DECL}<w:styles xmlns:w="{W}"><w:docDefaults><w:rPrDefault><w:rPr/></w:rPrDefault><w:pPrDefault/></w:docDefaults><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style></w:styles>"#
    );
    let word = "application/vnd.openxmlformats-officedocument.wordprocessingml";
    let parts = vec![
        (
            "[Content_Types].xml".to_string(),
            content_types(&[
                ("/word/document.xml", format!("{word}.document.main+xml")),
                ("/word/styles.xml", format!("{word}.styles+xml")),
            ]),
        ),
        ("_rels/.rels".to_string(), root_rels("word/document.xml")),
        ("docProps/core.xml".to_string(), core(title)),
        ("docProps/app.xml".to_string(), app("Microsoft Office Word")),
        ("word/document.xml".to_string(), document),
        (
            "word/_rels/document.xml.rels".to_string(),
            rels(&[("rId1", "styles", "styles.xml")]),
        ),
        ("word/styles.xml".to_string(), styles),
    ];
    pack(&parts)
}

/// One `w:p` showing `text` in one run (an empty paragraph for empty text).
fn word_paragraph(text: &str) -> String {
    if text.is_empty() {
        return "<w:p/>".to_string();
    }
    format!(
        r#"<w:p><w:r><w:t xml:space="preserve">{}</w:t></w:r></w:p>"#,
        escape(text)
    )
}

/// A `.pptx` with one slide for each of `slides`, each showing its paragraphs in one
/// text box, in that order.
pub fn pptx(slides: &[&[&str]]) -> Vec<u8> {
    let pml = "application/vnd.openxmlformats-officedocument.presentationml";
    let mut types = vec![
        (
            "/ppt/presentation.xml".to_string(),
            format!("{pml}.presentation.main+xml"),
        ),
        (
            "/ppt/slideMasters/slideMaster1.xml".to_string(),
            format!("{pml}.slideMaster+xml"),
        ),
        (
            "/ppt/slideLayouts/slideLayout1.xml".to_string(),
            format!("{pml}.slideLayout+xml"),
        ),
        (
            "/ppt/theme/theme1.xml".to_string(),
            "application/vnd.openxmlformats-officedocument.theme+xml".to_string(),
        ),
    ];
    let mut presentation_rels = vec![
        (
            "rId1".to_string(),
            "slideMaster",
            "slideMasters/slideMaster1.xml".to_string(),
        ),
        ("rId2".to_string(), "theme", "theme/theme1.xml".to_string()),
    ];
    let mut slide_ids = String::new();
    let mut slide_parts = Vec::new();
    for (i, paragraphs) in slides.iter().enumerate() {
        let n = i + 1;
        let id = format!("rId{}", n + 2);
        types.push((
            format!("/ppt/slides/slide{n}.xml"),
            format!("{pml}.slide+xml"),
        ));
        presentation_rels.push((id.clone(), "slide", format!("slides/slide{n}.xml")));
        slide_ids.push_str(&format!(r#"<p:sldId id="{}" r:id="{id}"/>"#, 255 + n));
        slide_parts.push((format!("ppt/slides/slide{n}.xml"), slide(paragraphs)));
        slide_parts.push((
            format!("ppt/slides/_rels/slide{n}.xml.rels"),
            rels(&[("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml")]),
        ));
    }
    let slide_id_list = if slide_ids.is_empty() {
        String::new()
    } else {
        format!("<p:sldIdLst>{slide_ids}</p:sldIdLst>")
    };
    let presentation = format!(
        r#"{DECL}<p:presentation xmlns:a="{A}" xmlns:r="{R}" xmlns:p="{P}" saveSubsetFonts="1"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>{slide_id_list}<p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/><p:defaultTextStyle><a:defPPr><a:defRPr lang="en-US"/></a:defPPr></p:defaultTextStyle></p:presentation>"#
    );
    let master = format!(
        r#"{DECL}<p:sldMaster xmlns:a="{A}" xmlns:r="{R}" xmlns:p="{P}"><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg>{}</p:cSld><p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/><p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst><p:txStyles><p:titleStyle><a:lvl1pPr><a:defRPr sz="4400"/></a:lvl1pPr></p:titleStyle><p:bodyStyle><a:lvl1pPr><a:defRPr sz="2800"/></a:lvl1pPr></p:bodyStyle><p:otherStyle><a:lvl1pPr><a:defRPr sz="1800"/></a:lvl1pPr></p:otherStyle></p:txStyles></p:sldMaster>"#,
        shape_tree("")
    );
    let layout = format!(
        r#"{DECL}<p:sldLayout xmlns:a="{A}" xmlns:r="{R}" xmlns:p="{P}" type="blank" preserve="1"><p:cSld name="Blank">{}</p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>"#,
        shape_tree("")
    );
    let presentation_rels: Vec<(&str, &str, &str)> = presentation_rels
        .iter()
        .map(|(id, kind, target)| (id.as_str(), *kind, target.as_str()))
        .collect();
    let types: Vec<(&str, String)> = types
        .iter()
        .map(|(part, kind)| (part.as_str(), kind.clone()))
        .collect();
    let mut parts = vec![
        ("[Content_Types].xml".to_string(), content_types(&types)),
        ("_rels/.rels".to_string(), root_rels("ppt/presentation.xml")),
        ("docProps/core.xml".to_string(), core(None)),
        (
            "docProps/app.xml".to_string(),
            app("Microsoft Office PowerPoint"),
        ),
        ("ppt/presentation.xml".to_string(), presentation),
        (
            "ppt/_rels/presentation.xml.rels".to_string(),
            rels(&presentation_rels),
        ),
        ("ppt/slideMasters/slideMaster1.xml".to_string(), master),
        (
            "ppt/slideMasters/_rels/slideMaster1.xml.rels".to_string(),
            rels(&[
                ("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml"),
                ("rId2", "theme", "../theme/theme1.xml"),
            ]),
        ),
        ("ppt/slideLayouts/slideLayout1.xml".to_string(), layout),
        (
            "ppt/slideLayouts/_rels/slideLayout1.xml.rels".to_string(),
            rels(&[("rId1", "slideMaster", "../slideMasters/slideMaster1.xml")]),
        ),
        ("ppt/theme/theme1.xml".to_string(), theme()),
    ];
    parts.extend(slide_parts);
    pack(&parts)
}

/// A slide showing `paragraphs` in one text box.
fn slide(paragraphs: &[&str]) -> String {
    let mut text = String::new();
    for paragraph in paragraphs {
        if paragraph.is_empty() {
            text.push_str(r#"<a:p><a:endParaRPr lang="en-US" dirty="0"/></a:p>"#);
        } else {
            text.push_str(&format!(
                r#"<a:p><a:r><a:rPr lang="en-US" dirty="0"/><a:t>{}</a:t></a:r></a:p>"#,
                escape(paragraph)
            ));
        }
    }
    if text.is_empty() {
        text.push_str(r#"<a:p><a:endParaRPr lang="en-US" dirty="0"/></a:p>"#);
    }
    let shape = format!(
        r#"<p:sp><p:nvSpPr><p:cNvPr id="2" name="TextBox 1"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="838200" y="365125"/><a:ext cx="10515600" cy="4351338"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr><p:txBody><a:bodyPr wrap="square" rtlCol="0"><a:spAutoFit/></a:bodyPr><a:lstStyle/>{text}</p:txBody></p:sp>"#
    );
    format!(
        r#"{DECL}<p:sld xmlns:a="{A}" xmlns:r="{R}" xmlns:p="{P}"><p:cSld>{}</p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>"#,
        shape_tree(&shape)
    )
}

/// A `p:spTree` with its group properties and `shapes`.
fn shape_tree(shapes: &str) -> String {
    format!(
        r#"<p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>{shapes}</p:spTree>"#
    )
}

/// The smallest complete DrawingML theme: twelve colours, two fonts, three of each
/// format style.
fn theme() -> String {
    let colour = |name: &str, rgb: &str| format!("<a:{name}><a:srgbClr val=\"{rgb}\"/></a:{name}>");
    let colours = [
        ("dk2", "44546A"),
        ("lt2", "E7E6E6"),
        ("accent1", "4472C4"),
        ("accent2", "ED7D31"),
        ("accent3", "A5A5A5"),
        ("accent4", "FFC000"),
        ("accent5", "5B9BD5"),
        ("accent6", "70AD47"),
        ("hlink", "0563C1"),
        ("folHlink", "954F72"),
    ]
    .iter()
    .map(|(name, rgb)| colour(name, rgb))
    .collect::<String>();
    let fill = r#"<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>"#;
    let line = format!(r#"<a:ln w="6350">{fill}</a:ln>"#);
    let effect = "<a:effectStyle><a:effectLst/></a:effectStyle>";
    format!(
        r#"{DECL}<a:theme xmlns:a="{A}" name="Office Theme"><a:themeElements><a:clrScheme name="Office"><a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1><a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1>{colours}</a:clrScheme><a:fontScheme name="Office"><a:majorFont><a:latin typeface="Calibri Light"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme><a:fmtScheme name="Office"><a:fillStyleLst>{fill}{fill}{fill}</a:fillStyleLst><a:lnStyleLst>{line}{line}{line}</a:lnStyleLst><a:effectStyleLst>{effect}{effect}{effect}</a:effectStyleLst><a:bgFillStyleLst>{fill}{fill}{fill}</a:bgFillStyleLst></a:fmtScheme></a:themeElements><a:objectDefaults/><a:extraClrSchemeLst/></a:theme>"#
    )
}

/// A `.xlsx` with one sheet ("Sheet1") holding `rows` from A1: a cell that reads as a
/// number is written as a number, any other text through the shared strings, an empty
/// string is no cell.
pub fn xlsx(rows: &[&[&str]]) -> Vec<u8> {
    let mut shared: Vec<&str> = Vec::new();
    let mut uses = 0;
    let mut sheet_data = String::new();
    for (r, row) in rows.iter().enumerate() {
        let mut cells = String::new();
        for (c, value) in row.iter().enumerate() {
            if value.is_empty() {
                continue;
            }
            let at = format!("{}{}", column_name(c), r + 1);
            if is_number(value) {
                cells.push_str(&format!(r#"<c r="{at}"><v>{value}</v></c>"#));
            } else {
                let index = match shared.iter().position(|s| s == value) {
                    Some(index) => index,
                    None => {
                        shared.push(value);
                        shared.len() - 1
                    }
                };
                uses += 1;
                cells.push_str(&format!(r#"<c r="{at}" t="s"><v>{index}</v></c>"#));
            }
        }
        sheet_data.push_str(&format!(r#"<row r="{}">{cells}</row>"#, r + 1));
    }
    let sheet = format!(
        r#"{DECL}<worksheet xmlns="{S}" xmlns:r="{R}"><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15"/><sheetData>{sheet_data}</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>"#
    );
    let strings: String = shared
        .iter()
        .map(|s| format!(r#"<si><t xml:space="preserve">{}</t></si>"#, escape(s)))
        .collect();
    let shared_strings = format!(
        r#"{DECL}<sst xmlns="{S}" count="{uses}" uniqueCount="{}">{strings}</sst>"#,
        shared.len()
    );
    let workbook = format!(
        r#"{DECL}<workbook xmlns="{S}" xmlns:r="{R}"><bookViews><workbookView xWindow="0" yWindow="0" windowWidth="16384" windowHeight="8192"/></bookViews><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#
    );
    let styles = format!(
        r#"{DECL}<styleSheet xmlns="{S}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>"#
    );
    let sml = "application/vnd.openxmlformats-officedocument.spreadsheetml";
    let parts = vec![
        (
            "[Content_Types].xml".to_string(),
            content_types(&[
                ("/xl/workbook.xml", format!("{sml}.sheet.main+xml")),
                ("/xl/worksheets/sheet1.xml", format!("{sml}.worksheet+xml")),
                ("/xl/sharedStrings.xml", format!("{sml}.sharedStrings+xml")),
                ("/xl/styles.xml", format!("{sml}.styles+xml")),
            ]),
        ),
        ("_rels/.rels".to_string(), root_rels("xl/workbook.xml")),
        ("docProps/core.xml".to_string(), core(None)),
        ("docProps/app.xml".to_string(), app("Microsoft Excel")),
        ("xl/workbook.xml".to_string(), workbook),
        (
            "xl/_rels/workbook.xml.rels".to_string(),
            rels(&[
                ("rId1", "worksheet", "worksheets/sheet1.xml"),
                ("rId2", "sharedStrings", "sharedStrings.xml"),
                ("rId3", "styles", "styles.xml"),
            ]),
        ),
        ("xl/worksheets/sheet1.xml".to_string(), sheet),
        ("xl/sharedStrings.xml".to_string(), shared_strings),
        ("xl/styles.xml".to_string(), styles),
    ];
    pack(&parts)
}

/// Whether Excel would hold `value` as a number: a finite decimal, written plainly.
fn is_number(value: &str) -> bool {
    value
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
        && value.chars().any(|c| c.is_ascii_digit())
        && value.parse::<f64>().is_ok_and(f64::is_finite)
}

/// `A`, `B`, … `Z`, `AA`, … for the zero-based column `index`.
fn column_name(index: usize) -> String {
    let mut name = Vec::new();
    let mut n = index + 1;
    while n > 0 {
        let digit = (n - 1) % 26;
        name.push(b'A' + digit as u8);
        n = (n - 1) / 26;
    }
    name.reverse();
    String::from_utf8(name).expect("ASCII")
}

/// `[Content_Types].xml`: the defaults for `.rels` and `.xml`, the core and app
/// properties, and `overrides` (part name, content type).
fn content_types(overrides: &[(&str, String)]) -> String {
    let mut xml = format!(
        r#"{DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>"#
    );
    for (part, content_type) in overrides {
        xml.push_str(&format!(
            r#"<Override PartName="{part}" ContentType="{content_type}"/>"#
        ));
    }
    xml.push_str(r#"<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/></Types>"#);
    xml
}

/// `_rels/.rels`: the main part at `main`, and the core and app properties.
fn root_rels(main: &str) -> String {
    format!(
        r#"{DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId3" Type="{REL}/extended-properties" Target="docProps/app.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/><Relationship Id="rId1" Type="{REL}/officeDocument" Target="{main}"/></Relationships>"#
    )
}

/// A part's relationships: (id, type after `…/relationships/`, target).
fn rels(relationships: &[(&str, &str, &str)]) -> String {
    let mut xml = format!(
        r#"{DECL}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
    );
    for (id, kind, target) in relationships {
        xml.push_str(&format!(
            r#"<Relationship Id="{id}" Type="{REL}/{kind}" Target="{target}"/>"#
        ));
    }
    xml.push_str("</Relationships>");
    xml
}

/// `docProps/core.xml`, with `title` when there is one.
fn core(title: Option<&str>) -> String {
    let title = title
        .map(|t| format!("<dc:title>{}</dc:title>", escape(t)))
        .unwrap_or_default();
    format!(
        r#"{DECL}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">{title}<dc:creator>sourcebot tests</dc:creator><cp:lastModifiedBy>sourcebot tests</cp:lastModifiedBy><cp:revision>1</cp:revision><dcterms:created xsi:type="dcterms:W3CDTF">2024-01-01T00:00:00Z</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">2024-01-01T00:00:00Z</dcterms:modified></cp:coreProperties>"#
    )
}

/// `docProps/app.xml` naming `application`.
fn app(application: &str) -> String {
    format!(
        r#"{DECL}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"><Application>{application}</Application></Properties>"#
    )
}

fn pack(parts: &[(String, String)]) -> Vec<u8> {
    let parts: Vec<(&str, &[u8])> = parts
        .iter()
        .map(|(name, xml)| (name.as_str(), xml.as_bytes()))
        .collect();
    zip_parts(&parts)
}

/// A zip of `parts` (name, bytes), in that order, each deflate-compressed by the
/// `zip` crate's writer.
pub fn zip_parts(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, bytes) in parts {
        zip.start_file(*name, options).expect("start a part");
        zip.write_all(bytes).expect("write a part");
    }
    zip.finish().expect("finish the zip").into_inner()
}

/// `text` with the five XML special characters escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// One entry of a [`raw_zip`], written exactly as given.
#[derive(Debug, Clone)]
pub struct RawEntry {
    /// The entry's name.
    pub name: String,
    /// 0: stored; 8: `data` is raw deflate.
    pub method: u16,
    /// The general-purpose flags (bit 0: encrypted).
    pub flags: u16,
    /// The bytes as stored in the zip.
    pub data: Vec<u8>,
    /// The CRC-32 of the bytes once inflated.
    pub crc: u32,
    /// The size of the bytes once inflated, as declared.
    pub size: u32,
}

impl RawEntry {
    /// `bytes` stored as they are, with their true CRC and size.
    pub fn stored(name: &str, bytes: &[u8]) -> RawEntry {
        let mut crc = flate2::Crc::new();
        crc.update(bytes);
        RawEntry {
            name: name.to_string(),
            method: 0,
            flags: 0,
            data: bytes.to_vec(),
            crc: crc.sum(),
            size: bytes.len() as u32,
        }
    }
}

/// A zip of `entries` as given (no zip64, no data descriptors): local headers and
/// data, the central directory, its end record.
pub fn raw_zip(entries: &[RawEntry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for entry in entries {
        let offset = out.len() as u32;
        let name = entry.name.as_bytes();
        let common = |buf: &mut Vec<u8>| {
            buf.extend_from_slice(&20u16.to_le_bytes()); // version needed
            buf.extend_from_slice(&entry.flags.to_le_bytes());
            buf.extend_from_slice(&entry.method.to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes()); // time
            buf.extend_from_slice(&0x21u16.to_le_bytes()); // date: 1980-01-01
            buf.extend_from_slice(&entry.crc.to_le_bytes());
            buf.extend_from_slice(&(entry.data.len() as u32).to_le_bytes());
            buf.extend_from_slice(&entry.size.to_le_bytes());
            buf.extend_from_slice(&(name.len() as u16).to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes()); // extra field length
        };
        out.extend_from_slice(b"PK\x03\x04");
        common(&mut out);
        out.extend_from_slice(name);
        out.extend_from_slice(&entry.data);

        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        common(&mut central);
        central.extend_from_slice(&0u16.to_le_bytes()); // comment length
        central.extend_from_slice(&0u16.to_le_bytes()); // disk number
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
    }
    let central_offset = out.len() as u32;
    let count = entries.len() as u16;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&central_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// A `.docx` whose `word/document.xml` inflates to about `inflated_bytes` (at most
/// 4 GiB): the document's start, then `unit` (raw XML, not escaped: `<w:p/>` for
/// markup with no text, `<w:p><w:r><w:t>words </w:t></w:r></w:p>` for text) repeated,
/// then its end. The deflate stream is one compressed megabyte of `unit`s repeated, so
/// building it is quick and the file is small; its CRC and sizes are true.
pub fn docx_bomb(unit: &str, inflated_bytes: usize) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    // Room for all of it: deflate grows incompressible input by a few bytes a block.
    let deflate = |input: &[u8], flush: FlushCompress| {
        let mut compress = Compress::new(Compression::default(), false);
        let mut out = Vec::with_capacity(input.len() + input.len() / 8 + 1024);
        compress
            .compress_vec(input, &mut out, flush)
            .expect("deflate");
        assert_eq!(
            compress.total_in() as usize,
            input.len(),
            "deflate took it all"
        );
        out
    };
    let head = format!(r#"{DECL}<w:document xmlns:w="{W}"><w:body>"#);
    let tail = "</w:body></w:document>";
    let unit = if unit.is_empty() { " " } else { unit };
    let chunk = unit.repeat((1 << 20) / unit.len() + 1);
    let chunks = (inflated_bytes / chunk.len()).max(1);
    let packed_chunk = deflate(chunk.as_bytes(), FlushCompress::Full);
    let mut data = deflate(head.as_bytes(), FlushCompress::Full);
    let mut crc = flate2::Crc::new();
    crc.update(head.as_bytes());
    for _ in 0..chunks {
        data.extend_from_slice(&packed_chunk);
        crc.update(chunk.as_bytes());
    }
    data.extend(deflate(tail.as_bytes(), FlushCompress::Finish));
    crc.update(tail.as_bytes());
    let size = head.len() + chunks * chunk.len() + tail.len();
    let word = "application/vnd.openxmlformats-officedocument.wordprocessingml";
    let types = content_types(&[("/word/document.xml", format!("{word}.document.main+xml"))]);
    raw_zip(&[
        RawEntry::stored("[Content_Types].xml", types.as_bytes()),
        RawEntry::stored("_rels/.rels", root_rels("word/document.xml").as_bytes()),
        RawEntry::stored("docProps/core.xml", core(None).as_bytes()),
        RawEntry::stored("docProps/app.xml", app("Microsoft Office Word").as_bytes()),
        RawEntry {
            name: "word/document.xml".to_string(),
            method: 8,
            flags: 0,
            data,
            crc: crc.sum(),
            size: u32::try_from(size).expect("at most 4 GiB"),
        },
    ])
}

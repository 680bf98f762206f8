//! Word: the document's body, then its footnotes and endnotes, as paragraphs and table
//! rows (see [`Flow`]).

use super::package::Package;
use super::text::{Flow, Text};
use std::io::{Read, Seek};

/// The Word document's body, then its footnotes and endnotes.
pub(super) fn read<R: Read + Seek>(
    package: &mut Package<R>,
    main: &str,
    text: &mut Text,
) -> Result<(), &'static str> {
    const SKIP: &[&str] = &["Fallback", "moveFrom"];
    let rels = package.relationships(main);
    package.read_required(main, SKIP, &mut Flow::new(text))?;
    for notes in ["footnotes", "endnotes"] {
        text.close_all();
        let part = rels
            .iter()
            .find(|r| r.kind == notes)
            .map_or_else(|| format!("word/{notes}.xml"), |r| r.target.clone());
        package.read_optional(&part, SKIP, &mut Flow::new(text));
    }
    Ok(())
}
